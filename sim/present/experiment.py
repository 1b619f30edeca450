"""Charts and the HTML report of an experiment (or of one run directory).

Charts read the analysed frames only (``sim.study.analysis.ExperimentData``) and
return matplotlib figures; :func:`save_charts` writes them as PNG and SVG, and
:func:`write_experiment_report` writes the self-contained report.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import polars as pl

from sim import store
from sim.stats import format_estimate, format_p, p_clause
from sim.store import PathInput, StorePath
from sim.study.analysis import ExperimentData
from sim.study.claims import display_rows
from sim.study.design import (
    CHART_KINDS,
    HEADLINES,
    PLACEHOLDER,
    RATE_HEADLINES,
    Experiment,
    ExperimentError,
    applicable_charts,
    why_not,
)
from sim.study.experiment import (
    CHARTS_DIR,
    REPORT_FILE,
    ExperimentProgress,
    ExperimentResult,
    run_experiment,
)
from sim.study.house_rules import MEASURES, SHARE
from sim.study.session import Session
from sim.study.settings import format_value, short_key

__all__ = [
    "chart_figures",
    "answers",
    "best_moves",
    "HOUSE_UNITS",
    "house_rule_label",
    "rule_names",
    "save_charts",
    "seat0_text",
    "short_labels",
    "write_experiment_report",
]


# --- charts ----------------------------------------------------------------------------


def _headline_label(data: ExperimentData) -> str:
    label = HEADLINES[data.headline][1]
    return label + (" (%)" if data.headline in RATE_HEADLINES else " (points)")


def _curve_columns(data: ExperimentData) -> tuple[tuple[str, str, str], tuple[str, str, str], str]:
    """The top panel's columns (the headline when it is a net result: the same numbers
    and intervals as the answer and the table), the win panel's, and the top's label."""
    if data.mode == "games":
        top = ("estimate", "low", "high") if data.headline == "net_score" else (
            "net_score", "net_score_low", "net_score_high"
        )  # fmt: skip
        return (
            top,
            ("game_win_rate", "game_win_low", "game_win_high"),
            "net score per game (points)",
        )
    top = (
        ("estimate", "low", "high")
        if data.headline == "net_points"
        else ("net", "net_low", "net_high")
    )
    return top, ("win_rate", "win_low", "win_high"), "net points per hand (points)"


def seat0_text(data: ExperimentData) -> str:
    """Seat 0 in words: how it is shown (``strategies.seat_label``: ``chart:gin``, never a
    chart's parameters), and which of its parameters the grid varies (``greedy,
    knock_at varied``, ``chart:gin, lookahead varied``) instead of the raw template
    ``greedy:knock_at={knock_at}``."""
    from strategies import StrategyError, seat_label
    from strategies.chart_files import named_text

    seat = data.seat0()
    varied = PLACEHOLDER.findall(seat)
    if data.kind == "run":  # shown already
        return seat
    if not varied:
        try:
            return seat_label(seat)
        except StrategyError:  # a spec this version cannot read (a record of another)
            return seat
    named = named_text(seat)  # a chart by name or file: chart:gin, lookahead varied
    name = named if named and not PLACEHOLDER.search(named) else seat.split(":")[0].strip()
    return f"{name}, {' and '.join(dict.fromkeys(varied))} varied"


def chart_figures(
    data: ExperimentData, kinds: Sequence[str] | None = None
) -> list[tuple[str, Any]]:
    """``(kind, Figure)`` for every requested chart kind (default: ``data.charts()``).

    Raises
    ------
    ExperimentError
        A kind that does not fit the design (``knock_curve`` without a threshold...).
    """
    from sim.present import charts

    meta = data.meta
    fit = applicable_charts(meta)
    kinds = list(kinds) if kinds else list(data.charts())
    figures = []
    summary = data.summary
    grid = list(meta.get("grid_keys") or [])
    variants = list(meta.get("variants") or [])
    points, win, points_label = _curve_columns(data)
    title = data.record.get("name", data.name)
    for kind in kinds:
        kind = kind.replace("-", "_")
        if kind not in CHART_KINDS:
            raise ExperimentError(
                f"unknown chart kind {kind!r}; choose from: {', '.join(CHART_KINDS)}"
            )
        if kind not in fit:
            raise ExperimentError(f"{data.name}: {why_not(kind)}")
        if kind == "knock_curve":
            x = meta["threshold"]
            lines = (["variant"] if len(variants) > 1 else []) + [k for k in grid if k != x]
            fig = charts.knock_curve(
                summary,
                x=x,
                line=lines or None,
                points=points,
                win=win,
                points_label=points_label,
                subtitle=f"{title}: seat 0 = {seat0_text(data)}; mean and 95% CI per setting",
            )
        elif kind == "curve":
            x = meta["numeric_keys"][0]
            name = short_key(x, grid)
            others = (["variant"] if len(variants) > 1 else []) + [k for k in grid if k != x]
            if meta.get("symmetric"):
                frame = data.seats.with_columns(
                    pl.format("seat {}", pl.col("seat"))
                    .str.replace(r"^seat 0$", "seat 0 (plays first)")
                    .alias("seat ")
                )
                lines = ["seat ", *others]
                pts = ("net", "net_low", "net_high")
                wn = ("win_rate", "win_low", "win_high")
                label = "net points per hand (points)"
                heading = f"Each seat's edge by {name} (the same strategy in every seat)"
            else:
                frame = summary
                lines = others
                pts, wn, label = points, win, points_label
                heading = f"Seat 0 by {name}"
            fig = charts.knock_curve(
                frame,
                x=x,
                line=lines or None,
                points=pts,
                win=wn,
                points_label=label,
                x_label=name,
                title=heading,
                subtitle=f"{title}: mean and 95% CI per setting",
            )
            _without_best_marks(fig)
        elif kind == "heatmap":
            x = meta.get("threshold") or (meta.get("numeric_keys") or grid)[0]
            ys = (["variant"] if len(variants) > 1 else []) + [k for k in grid if k != x]
            percent = data.headline in RATE_HEADLINES
            fig = charts.heatmap(
                summary,
                x=x,
                y=ys,
                value="estimate",
                low="low",
                high="high",
                value_label=_headline_label(data),
                x_label=x if x != meta.get("threshold") else "knock threshold (deadwood)",
                y_label=" · ".join(ys),
                title=f"{HEADLINES[data.headline][1].capitalize()} of seat 0 by {x} and "
                f"{' and '.join(ys)}",
                percent=percent,
            )
        elif kind == "outcome_mix":
            mix, merged = _distinct_outcomes(data)
            note = "\n(settings that play identical hands are drawn once)" if merged else ""
            fig = charts.outcome_mix(mix, setting="setting", title=f"How hands end ({title}){note}")
        else:
            subset, merged = _length_subset(data)
            note = "\n(settings that play identical hands are drawn once)" if merged else ""
            fig = charts.hand_length(
                subset,
                by="setting",
                turns="turns",
                count="count",
                title=f"How long hands last ({title}){note}",
                max_series=8,
            )
        figures.append((kind, fig))
    return figures


LABEL_WIDTH = 18  # a setting label longer than this is shown as S1, S2, ... with a legend
REPORT_LABEL_WIDTH = 48  # the same in the report's tables (a page has more room)


def short_labels(
    data: ExperimentData, rows: pl.DataFrame, width: int = LABEL_WIDTH
) -> tuple[str, list[str], list[str]]:
    """Labels that tell ``rows`` (summary rows) apart with only what varies among them:
    the column header, a label per row, and the legend when labels were longer than
    ``width`` (``S1: variant=gin, knock_at=0``; empty otherwise)."""
    meta = data.meta
    keys = (["variant"] if len(meta.get("variants") or []) > 1 else []) + list(
        meta.get("grid_keys") or []
    )
    keys = [k for k in keys if k in rows.columns]
    varying = [k for k in keys if rows[k].n_unique() > 1]
    grid = list(meta.get("grid_keys") or [])
    if not varying:
        return "setting", [str(x) for x in rows["setting"]], []
    if len(varying) == 1:
        key = varying[0]
        header = short_key(key, grid)
        labels = [format_value(v) for v in rows[key]]
    else:
        header = "setting"
        labels = [
            ", ".join(f"{short_key(k, grid)}={format_value(r[k])}" for k in varying)
            for r in rows.iter_rows(named=True)
        ]
    if max(len(x) for x in labels) <= width:
        return header, labels, []
    codes = [f"S{i}" for i in range(1, len(labels) + 1)]
    return "setting", codes, [f"{c}: {x}" for c, x in zip(codes, labels, strict=True)]


def house_rule_label(row: Mapping[str, Any], headline: str, short: bool = False) -> str:
    """A house-rule row's measure in words, with its unit: "turns per hand", "undercut
    %", "seat 0's net points/hand, knock_at=0"; ``short``: without the units (a terminal
    says them once, :data:`HOUSE_UNITS`)."""
    if row["measure"] == "headline":
        what = HEADLINES[headline][1].replace(" per ", "/") + (" %" if row["unit"] == SHARE else "")
        if short:
            return "seat 0" + (f", {row['strategy']}" if row["strategy"] else "")
        return f"seat 0's {what}" + (f", {row['strategy']}" if row["strategy"] else "")
    return (HOUSE_SHORT if short else HOUSE_LABELS)[row["measure"]]


# Every hand's, whoever won it: not seat 0's own gin and undercut shares of the settings
# table ("seat 0 gin %"), so never the same label.
HOUSE_LABELS = {
    "turns": "turns per hand",
    "gin_rate": "gin % of all hands (with big gin, rummy)",
    "undercut_rate": "undercut % of all hands",
    "first_edge": "first player's edge, points/hand",
}
HOUSE_SHORT = {
    "turns": "turns/hand",
    "gin_rate": "gin % of all hands",
    "undercut_rate": "undercut % of all hands",
    "first_edge": "first player's edge",
}
HOUSE_UNITS = (
    "gin % counts big gin and rummy; the first player's edge is in points per hand; "
    "seat 0's rows give its {headline}"
)


def rule_names(reference: str, group: str) -> tuple[str, str]:
    """Two rule settings named by what tells them apart: ``undercut_bonus=10`` and
    ``undercut_bonus=25`` as ``10`` and ``25`` (the key is in the title)."""
    a, b = reference.split(", "), group.split(", ")
    a_only = [x for x in a if x not in b] or a
    b_only = [x for x in b if x not in a] or b
    keys_a = [x.partition("=")[0] for x in a_only]
    if all("=" in x for x in a_only + b_only) and keys_a == [x.partition("=")[0] for x in b_only]:
        return (
            ", ".join(x.partition("=")[2] for x in a_only),
            ", ".join(x.partition("=")[2] for x in b_only),
        )
    return ", ".join(a_only), ", ".join(b_only)


def _without_best_marks(fig: Any) -> None:
    """Drop ``knock_curve``'s "best threshold" stars (a curve over players or another
    grid value has no best to mark) and its legend entry."""
    for ax in fig.axes:
        for line in list(ax.lines):
            if line.get_marker() == "*":
                line.remove()
    for legend in list(fig.legends):
        handles = [
            h
            for h, t in zip(legend.legend_handles, legend.get_texts(), strict=True)
            if t.get_text() != "best threshold"
        ]
        labels = [t.get_text() for t in legend.get_texts() if t.get_text() != "best threshold"]
        legend.remove()
        fig.legend(
            handles, labels, loc="outside lower center", ncol=min(len(handles), 5), frameon=False
        )


def _distinct_outcomes(data: ExperimentData) -> tuple[pl.DataFrame, bool]:
    """The outcome mix with each distinct bar once (rules that change only the scoring
    play identical hands; the chart counts gin, big gin and rummy as one), labelled by
    what varies among the settings kept; and whether any setting was merged."""
    from sim.present.charts import OUTCOME_GROUPS

    seen: dict[tuple[int, ...], str] = {}
    for (label,), rows in data.outcomes.group_by("setting", maintain_order=True):
        count = dict(zip(rows["outcome"].to_list(), rows["count"].to_list(), strict=True))
        bar = tuple(sum(count.get(o, 0) for o in group) for _, group, _ in OUTCOME_GROUPS)
        seen.setdefault(bar, str(label))
    kept = list(seen.values())
    if len(kept) == data.outcomes["setting"].n_unique():
        return data.outcomes, False
    rows = data.summary.filter(pl.col("setting").is_in(kept))
    header, labels, legend = short_labels(data, rows, width=REPORT_LABEL_WIDTH)
    if legend:  # too long for codes on a chart axis: the full labels
        labels = [x.split(": ", 1)[1] for x in legend]
    elif header != "setting":
        labels = [f"{header} {x}" for x in labels]
    names = dict(zip(rows["setting"].to_list(), labels, strict=True))
    frame = data.outcomes.filter(pl.col("setting").is_in(kept)).with_columns(
        pl.col("setting").replace_strict(names, return_dtype=pl.String)
    )
    return frame, True


def _length_subset(data: ExperimentData, limit: int = 6) -> tuple[pl.DataFrame, bool]:
    """At most ``limit`` settings for the hand-length chart: evenly spaced over the
    first grid key (its lowest, highest and middle values), for the first variant
    when the others would not fit."""
    labels = data.summary["setting"].to_list()
    if len(labels) <= limit:
        return data.turns, False
    meta = data.meta
    grid = list(meta.get("grid_keys") or [])
    chosen: list[str] = []
    if grid:
        key = meta.get("threshold") or grid[0]
        values = data.summary[key].unique(maintain_order=True).to_list()
        groups = data.summary["variant"].unique(maintain_order=True).to_list()
        per = min(len(values), max(2, limit // max(1, len(groups))))
        picks = [values[round(j * (len(values) - 1) / (per - 1))] for j in range(per)]
        for group in groups:
            sub = data.summary.filter(pl.col("variant") == group)
            for v in dict.fromkeys(picks):
                hit = sub.filter(pl.col(key) == v)["setting"].to_list()
                if hit and len(chosen) < limit:
                    chosen.append(hit[0])
    if not chosen:
        step = (len(labels) - 1) / (limit - 1)
        chosen = [labels[round(j * step)] for j in range(limit)]
    # settings that differ only in scoring play identical hands: draw such a line once
    seen: list[list[tuple[int, int]]] = []
    unique = []
    for label in chosen:
        hist = data.turns.filter(pl.col("setting") == label).select("turns", "count").rows()
        if hist not in seen:
            seen.append(hist)
            unique.append(label)
    merged = len(unique) < len(chosen)
    chosen = unique
    order = {label: j for j, label in enumerate(chosen)}
    frame = (
        data.turns.filter(pl.col("setting").is_in(chosen))
        .with_columns(pl.col("setting").replace_strict(order, return_dtype=pl.Int64).alias("_o"))
        .sort(["_o", "turns"])
        .drop("_o")
    )
    return frame, merged


def save_charts(
    data: ExperimentData, directory: PathInput, kinds: Sequence[str] | None = None
) -> list[StorePath]:
    """Draw the charts and write each as PNG and SVG under ``directory``."""
    from sim.present import charts

    written: list[StorePath] = []
    directory = store.location(directory)
    for kind, fig in chart_figures(data, kinds):
        try:
            written += charts.save(fig, directory / kind)
        except OSError as error:
            raise ExperimentError(
                f"cannot write charts to {directory}: {error.strerror or error}"
            ) from None
    return written


@dataclass(frozen=True)
class Drawn:
    """An experiment played, with its charts and its report (:func:`play_drawn`)."""

    result: ExperimentResult
    charts: tuple[StorePath, ...]
    report: StorePath

    @property
    def notes(self) -> tuple[str, ...]:
        """What playing it said, once each (a chunk size not used, ...)."""
        return self.result.notes


def play_drawn(
    experiment: Experiment, session: Session, replace: bool = False, resume: bool = False
) -> Drawn:
    """Play ``experiment`` (resumable) in ``session``, then draw its charts and write its
    report, telling ``session.progress`` each phase. ``replace``: another study's own
    files in its folder are deleted (``--force``; a folder holding anything else is
    refused), else refused; ``resume``: as ``run_experiment`` resumes. The study's lock
    is held to its last file, the report: until then another process writing the same
    folder (or replacing it) is refused in one line."""

    def tell(phase: str) -> None:
        if session.progress is not None:
            session.progress(ExperimentProgress(phase))

    with store.study_folder(session.out / experiment.name):
        result = run_experiment(
            experiment, session.executor, out=session.out, progress=session.progress,
            command=session.provenance, replace=replace, resume=resume,
        )  # fmt: skip
        tell("charts")
        charts = save_charts(result.data, result.directory / CHARTS_DIR)
        tell("report")
        pngs = [(path.stem, path) for path in charts if path.suffix == ".png"]  # not drawn again
        report = write_experiment_report(result.data, result.directory / REPORT_FILE, pngs)
    return Drawn(result, tuple(charts), report)


# --- the report ------------------------------------------------------------------------


def _within(label: str, group: str) -> str:
    """A setting's label without its rule setting's parts (``knock_at=0`` of
    ``gin, knock_at=0`` under ``gin``)."""
    drop = set(group.split(", ")) if group != "all" else set()
    return ", ".join(x for x in label.split(", ") if x not in drop) or label


def _effect(data: ExperimentData, estimate: float, low: float, high: float, sign: bool) -> str:
    """A headline number with its interval and unit (a rate in %, differences of rates
    in percentage points)."""
    rate = data.headline in RATE_HEADLINES
    return format_estimate(estimate, low, high, unit=data.unit, percent=rate, sign=sign)


def _others(seats: list[dict[str, Any]], seat: int) -> str:
    """The other seats' strategies, each once: who a seat played against."""
    return ", ".join(dict.fromkeys(r["strategy"] for r in seats if r["seat"] != seat))


def _games_won(row: Mapping[str, Any], games: int) -> str:
    """ "79.0% [77.7, 80.2] of games (3,159 of 4,000)": a row's games won
    (``game_win_rate`` over ``games`` played, every seating counted)."""
    rate = row["game_win_rate"]
    won = format_estimate(rate, row["game_win_low"], row["game_win_high"], percent=True)
    return f"{won} of games ({round(rate * games):,} of {games:,})"


def best_moves(data: ExperimentData) -> list[str]:
    """One sentence on whether the best setting (the strategy's part of it) changes with
    the rules: "The best setting moves with the rules: knock_at=10 under gin-classic,
    knock_at=0 under gin." Only where several rule settings each have a best."""
    verdicts = {v["group"]: v for v in data.verdicts}
    groups = [g for g in (data.groups or {}) if g != "all"]
    best = {g: _within(verdicts[g]["best"], g) for g in groups if verdicts.get(g, {}).get("best")}
    if len(best) < 2:
        return []
    if len(set(best.values())) == 1:
        return [f"The best setting, {next(iter(best.values()))}, is the same under every rule "
                "setting."]  # fmt: skip
    where = ", ".join(f"{b} under {g}" for g, b in best.items())
    return [f"The best setting moves with the rules: {where}."]


def answers(data: ExperimentData) -> list[str]:
    """The answer in plain words: per rule setting, the best setting and what it beats
    the runner-up by (or that none is clearly best); then what the rules change."""
    if data.kind == "run":
        seats = list(data.seats.iter_rows(named=True))
        return [
            f"Seat {r['seat']} ({r['strategy']}) against {_others(seats, r['seat'])} scores "
            + format_estimate(r["net"], r["net_low"], r["net_high"], unit="net points per hand")
            + " and wins "
            + format_estimate(r["win_rate"], r["win_low"], r["win_high"], percent=True)
            + " of hands"
            + (
                f" and {_games_won(r, int(data.summary['units'][0]))}"
                if data.mode == "games"
                else ""
            )
            + "."
            for r in seats
        ]
    out = []
    verdicts = {v["group"]: v for v in data.verdicts}
    groups = data.groups or {"all": data.summary["setting"].to_list()}
    metric = HEADLINES[data.headline][1]
    for group, labels in groups.items():
        under = "" if group == "all" else f"Under {group}, "
        verdict = verdicts.get(group)
        if verdict is None or verdict.get("runner_up") is None:
            row = data.summary.filter(pl.col("setting") == labels[0]).row(0, named=True)
            rate = data.headline in RATE_HEADLINES
            what = format_estimate(row["estimate"], row["low"], row["high"], percent=rate)
            only = _within(labels[0], group)
            where = f"Under {group}" if group != "all" else f"With {only}"
            if group != "all" and only != labels[0]:
                where += f" and {only}"
            shown = str(row["lineup"]).split("/")
            against = ", ".join(dict.fromkeys(shown[1:])) or "no one"
            games = ""
            if data.mode == "games":
                played = int(row["units"]) * int(row["rotations"] or 1)
                games = f"; it wins {_games_won(row, played)}"
            out.append(f"{where}, seat 0 ({shown[0]}) against {against}: {metric} {what}{games}.")
            continue
        best, runner = _within(verdict["best"], group), _within(verdict["runner_up"], group)
        comp = data.comparisons.filter(
            (pl.col("group") == group) & (pl.col("setting") == verdict["runner_up"])
        ).row(0, named=True)
        diff = _effect(data, comp["difference"], comp["low"], comp["high"], True)
        p = p_clause(comp["holm_p"])
        if verdict["significant"]:
            out.append(
                f"{under}{best} is best: it beats the runner-up, {runner}, by {diff} "
                f"({metric}; Holm-adjusted {p})."
            )
        else:
            out.append(
                f"{under}no setting is clearly best: {best} leads the runner-up, {runner}, "
                f"by {diff}, which the noise could explain ({metric}; Holm-adjusted {p})."
            )
    out += best_moves(data)
    house = data.house_rules
    if house is not None and house.height:
        for (group,), rows in house.group_by("group", maintain_order=True):
            parts = []
            for r in rows.filter(pl.col("measure") != "headline").iter_rows(named=True):
                percent = r["unit"] == SHARE
                if r["low"] == r["high"] == 0:  # the very same hands: nothing to estimate
                    parts.append(f"{MEASURES[r['measure']][0].split(' (')[0]} unchanged")
                    continue
                change = format_estimate(
                    r["difference"], r["low"], r["high"], percent=percent, sign=True,
                    unit=r["unit"],
                )  # fmt: skip
                parts.append(f"{MEASURES[r['measure']][0].split(' (')[0]} {change}")
            out.append(
                f"{group} against {rows['reference'][0]}, on the same deals: "
                + "; ".join(parts) + "."
            )  # fmt: skip
    return out


def _method_notes(data: ExperimentData) -> list[str]:
    """How every number of the report is estimated, said once."""
    s = data.summary
    rotations = int(s["rotations"].max() or 1) if s.height else 1  # type: ignore[arg-type]
    units = "deals" if data.mode == "deals" else "games"
    notes = [
        f"Headline: {data.headline}, {HEADLINES[data.headline][2]} ({data.unit}). Seat 0 is "
        f"the first seat of the line-up ({seat0_text(data)})."
    ]
    if data.kind != "run":
        notes.append(
            f"Every setting played the same {units} (one seed: common random numbers)"
            + (
                f", each also with the seats rotated ({rotations} seatings), the headline "
                "averaging each deal over them, so the luck of the cards cancels."
                if rotations > 1
                else "."
            )
        )
    notes.append(
        "Numbers are written estimate [95% interval]: t intervals for means, Wilson for "
        "rates (%); 'vs best' is the paired difference from the best setting of the same "
        "rules on common deals, its p Holm-adjusted within those rules."
    )
    if data.record.get("precision") is not None:
        reached = data.record.get("precision_reached")
        notes.append(
            f"Precision target: half-width {data.record['precision']:g} {data.unit}, "
            + ("reached" if reached else "not reached (stopped at max_count)")
            + f" after {data.record.get('blocks', 1)} block(s)."
        )
    return notes


def _settings_table(data: ExperimentData, rows: pl.DataFrame) -> list[dict[str, str]]:
    """One rule setting's settings, compact: what varies, the headline, won %, how
    hands end, length, and the comparison with the best."""
    header, labels, _ = short_labels(data, rows, width=REPORT_LABEL_WIDTH)
    rate = data.headline in RATE_HEADLINES
    games = data.mode == "games"
    won = ("game_win_rate", "game_win_low", "game_win_high") if games else (
        "win_rate", "win_low", "win_high"
    )  # fmt: skip
    unit = "%" if rate else data.unit.replace(" per ", "/")
    compared = rows.height > 1 and bool(rows["best"].any())
    out = []
    for label, r in zip(labels, rows.iter_rows(named=True), strict=True):
        best = bool(r["best"])
        diff = r.get("diff_vs_best")
        out.append(
            {
                "": "★" if best else "",
                header: label,
                f"{data.headline} ({unit})": format_estimate(
                    r["estimate"], r["low"], r["high"], percent=rate
                ),
                f"{'games' if games else 'hands'} won %": format_estimate(
                    r[won[0]], r[won[1]], r[won[2]], percent=True
                ),
                "seat 0 knock %": f"{r['knock_rate'] * 100:.1f}",
                "seat 0 gin %": f"{r['gin_rate'] * 100:.1f}",
                "seat 0 undercut %": f"{r['undercut_rate'] * 100:.1f}",
                "turns": f"{r['mean_turns']:.1f}",
            }
        )
        if not compared:
            continue
        out[-1].update(
            {
                "vs best": "best"
                if best
                else (
                    ""
                    if diff is None or math.isnan(diff)
                    else format_estimate(
                        diff, r["diff_low"], r["diff_high"], percent=rate, sign=True
                    )
                ),
                "Holm p": format_p(r.get("holm_p")),
            }
        )
    return out


def _house_table(data: ExperimentData) -> list[tuple[str, list[dict[str, str]]]]:
    house = data.house_rules
    if house is None or not house.height:
        return []
    out = []
    for (group,), rows in house.group_by("group", maintain_order=True):
        reference = str(rows["reference"][0])
        before, after = rule_names(reference, str(group))
        table = []
        for r in rows.iter_rows(named=True):
            percent = r["unit"] == SHARE
            table.append(
                {
                    "measure": house_rule_label(r, data.headline),
                    before: format_estimate(r["reference_value"], percent=percent, decimals=2),
                    after: format_estimate(
                        r["value"], r["value_low"], r["value_high"], percent=percent
                    ),
                    "change": format_estimate(
                        r["difference"], r["low"], r["high"], percent=percent, sign=True
                    ),
                    "p": format_p(r["p_value"]),
                }
            )
        out.append((f"{group} against {reference} (change = {after} minus {before})", table))
    return out


def write_experiment_report(
    data: ExperimentData,
    path: PathInput,
    figures: Sequence[tuple[str, Any]] | None = None,
) -> StorePath:
    """The self-contained HTML report: the question and its answer in plain words, the
    chart that shows it, a compact table per rule setting (the method stated once),
    what the rules change, the claims, the other charts; configuration and provenance
    at the end."""
    from sim.present.report import Section, write_report

    figs = dict(figures) if figures is not None else dict(chart_figures(data))
    summary = data.summary
    description = str(data.record.get("description") or "")
    question = description or (
        f"What seat 0 ({seat0_text(data)}) achieves"
        + ("" if data.kind == "run" else ", setting by setting")
        + f": {HEADLINES[data.headline][2]}."
    )
    main = [(_caption(k), figs[k]) for k in ("knock_curve", "curve", "heatmap") if k in figs]
    sections = [
        Section("Answer", text=f"Question: {question}", notes=answers(data), figures=main[:1])
    ]
    groups = data.groups or {"all": summary["setting"].to_list()}
    if len(groups) > 1 and all(len(m) == 1 for m in groups.values()):
        groups = {"all": summary["setting"].to_list()}  # one setting per rule setting
    tables: list[Any] = []
    for group, labels in groups.items():
        rows = summary.filter(pl.col("setting").is_in(labels))
        caption = "Every setting" if group == "all" else f"Under {group}"
        tables.append((caption, _settings_table(data, rows)))
    heading = "Settings" if len(groups) == 1 else "Settings, per rule setting"
    sections.append(Section(heading, notes=_method_notes(data), tables=tables))
    house = _house_table(data)
    if house:
        sections.append(
            Section(
                "What the rules change",
                text="Each rule setting against the first, deal by deal on the same deals: "
                "hand length, how often hands end in gin or an undercut, the edge of the "
                "player who moves first, and seat 0's headline under each strategy setting "
                "(paired t intervals, two-sided p).",
                tables=house,
            )
        )
    if data.claims is not None:
        sections.append(_claims_section(data.claims))
    if main[1:]:
        sections.append(Section("More charts", figures=main[1:]))
    if "outcome_mix" in figs or "hand_length" in figs:
        sections.append(
            Section(
                "How hands end and how long they last",
                figures=[
                    (_caption(k), figs[k]) for k in ("outcome_mix", "hand_length") if k in figs
                ],
            )
        )
    sections.append(
        Section(
            "Seats",
            text="Every seat of every setting (seatings pooled under duplicate); points per "
            "hand, win rate in %.",
            tables=[("Per seat", _seats_table(data))],
        )
    )
    if data.runs.height:
        sections.append(
            Section(
                "Runs",
                text="One run directory per setting, seating and block under the results "
                "folder; each holds its Parquet tables and manifest.json.",
                tables=[("Run directories", data.runs.select(
                    [c for c in ("setting", "block", "rotation", "run_id", "seed", "count")
                     if c in data.runs.columns]
                ))],
            )
        )  # fmt: skip
    title = f"rummy-sim: {data.name}"
    subtitle = (
        f"{'experiment' if data.kind == 'experiment' else 'run'}; seed {data.record.get('seed')}"
    )
    try:
        return write_report(title, sections, data.config, data.provenance, path, subtitle=subtitle)
    except OSError as error:
        raise ExperimentError(f"cannot write {path}: {error.strerror or error}") from None


def _seats_table(data: ExperimentData) -> list[dict[str, str]]:
    header, labels, _ = short_labels(data, data.summary, width=REPORT_LABEL_WIDTH)
    label_of = dict(zip(data.summary["setting"].to_list(), labels, strict=True))
    return [
        {
            header: label_of.get(r["setting"], r["setting"]),
            "seat": str(r["seat"]),
            "strategy": r["strategy"],
            "points/hand": format_estimate(r["points"], r["points_low"], r["points_high"]),
            "net points/hand": format_estimate(r["net"], r["net_low"], r["net_high"]),
            "won %": format_estimate(r["win_rate"], r["win_low"], r["win_high"], percent=True),
            "knock %": f"{r['knock_rate'] * 100:.1f}",
        }
        for r in data.seats.iter_rows(named=True)
    ]


def _claims_section(claims: pl.DataFrame) -> Any:
    """The claims tested by the experiment: each with its verdict and evidence."""
    from sim.present.report import Section

    rows = [
        {"claim": "↳ " + r["claim"][2:] if r["claim"].startswith("  ") else r["claim"],
         "verdict": r["verdict"], "effect": r["effect"],
         "95% CI": r["ci"], "n": r["n"], "note": r["note"]}
        for r in display_rows(claims)
    ]  # fmt: skip
    return Section(
        "Claims",
        text="Each claim is a tip from the named source, stated as a hypothesis. A "
        "comparison is the paired difference, deal by deal, of the treatment settings "
        "minus the control settings (t interval); a rate is the share of hands meeting "
        "its event among those meeting its condition (Wilson interval), against its level.",
        notes=[
            "supported: the 95% interval lies entirely on the expected side; refuted: "
            "entirely on the other side; too close to call: it covers the reference; "
            "depends on X: the verdict differs between values of the grid key X (rows "
            "below the claim)."
        ],
        tables=[("Verdicts", rows)],
    )


def _caption(kind: str) -> str:
    return {
        "knock_curve": "Knock threshold: seat 0's points per hand and win rate",
        "curve": "Seat results against the grid value",
        "heatmap": "Headline by threshold and variant",
        "outcome_mix": "How hands end, per setting",
        "hand_length": "Distribution of hand length (turns)",
    }[kind]
