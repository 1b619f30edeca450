"""Charts and the HTML report of an experiment (or of one run directory).

Charts read the analysed frames only (``sim.study.analysis.ExperimentData``) and
return matplotlib figures; :func:`save_charts` writes them as PNG and SVG, and
:func:`write_experiment_report` writes the self-contained report.
"""

from __future__ import annotations

import os
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import polars as pl

from sim import store
from sim.study.analysis import ExperimentData
from sim.study.claims import display_rows
from sim.study.design import (
    CHART_KINDS,
    HEADLINES,
    RATE_HEADLINES,
    ExperimentError,
    applicable_charts,
    why_not,
)
from sim.study.settings import short_key

__all__ = ["chart_figures", "save_charts", "write_experiment_report"]


# --- charts ----------------------------------------------------------------------------


def _headline_label(data: ExperimentData) -> str:
    label = HEADLINES[data.headline][1]
    return label + (" (%)" if data.headline in RATE_HEADLINES else " (points)")


def _curve_columns(data: ExperimentData) -> tuple[tuple[str, str, str], tuple[str, str, str], str]:
    if data.mode == "games":
        return (
            ("net_score", "net_score_low", "net_score_high"),
            ("game_win_rate", "game_win_low", "game_win_high"),
            "net score per game (points)",
        )
    return (
        ("net", "net_low", "net_high"),
        ("win_rate", "win_low", "win_high"),
        "net points per hand (points)",
    )


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
                subtitle=f"{title}: seat 0 = {data.seat0()}; mean and 95% CI per setting",
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
            fig = charts.outcome_mix(
                data.outcomes, setting="setting", title=f"How hands end ({title})"
            )
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
    data: ExperimentData, directory: str | os.PathLike[str], kinds: Sequence[str] | None = None
) -> list[Path]:
    """Draw the charts and write each as PNG and SVG under ``directory``."""
    from sim.present import charts

    written: list[Path] = []
    directory = store.location(directory)
    for kind, fig in chart_figures(data, kinds):
        try:
            written += charts.save(fig, directory / kind)
        except OSError as error:
            raise ExperimentError(
                f"cannot write charts to {directory}: {error.strerror or error}"
            ) from None
    return written


# --- the report ------------------------------------------------------------------------


_SUMMARY_COLUMNS = (
    "setting",
    "units",
    "hands",
    "estimate",
    "low",
    "high",
    "method",
    "win_rate",
    "win_low",
    "win_high",
    "knock_rate",
    "gin_rate",
    "undercut_rate",
    "mean_turns",
    "best",
    "diff_vs_best",
    "p_value",
    "holm_p",
)


def write_experiment_report(
    data: ExperimentData,
    path: str | os.PathLike[str],
    figures: Sequence[tuple[str, Any]] | None = None,
) -> Path:
    """The self-contained HTML report: verdicts, tables, charts, config, provenance."""
    from sim.present.report import Section, write_report

    figs = dict(figures) if figures is not None else dict(chart_figures(data))
    headline = data.headline
    what = HEADLINES[headline][2]
    summary = data.summary
    sections = []
    description = str(data.record.get("description") or "")
    intro = [description] if description else []
    units = "deals" if data.mode == "deals" else "games"
    if data.kind == "run":
        intro.append(
            f"One run of {int(summary['units'][0]):,} {units} with the line-up "
            f"{summary['lineup'][0]} (seat 0 plays first); headline metric: {headline} — "
            f"{what}."
        )
    else:
        intro.append(
            f"Headline metric: {headline} — {what}; seat 0 is the first seat of the line-up "
            f"({data.seat0()}). Every setting played the same {units} (one seed: common "
            "random numbers)."
        )
    if summary.height and int(summary["rotations"].max() or 1) > 1:  # type: ignore[arg-type]
        intro.append(
            "Duplicate: every deal was also played with the seats rotated, and the "
            "headline averages each deal over the seatings, so the luck of the cards cancels."
        )
    notes = [v["summary"] for v in data.verdicts]
    if data.record.get("precision") is not None:
        reached = data.record.get("precision_reached")
        notes.append(
            f"precision target ±{data.record['precision']:g}: "
            + ("reached" if reached else "not reached (stopped at max_count)")
            + f" after {data.record.get('blocks', 1)} block(s)"
        )
    notes.append(
        "Intervals are 95%: t for means, Wilson for rates; comparisons are paired on common "
        "deals and Holm-adjusted within each group."
    )
    cols = [c for c in _SUMMARY_COLUMNS if c in summary.columns]
    sections.append(
        Section(
            "Summary",
            text="\n\n".join(intro),
            notes=notes,
            tables=[("Per setting (seat 0)", summary.select(cols))],
        )
    )
    if data.claims is not None:
        sections.append(_claims_section(data.claims))
    curve_figs = [(k, figs[k]) for k in ("knock_curve", "curve", "heatmap") if k in figs]
    if curve_figs:
        sections.append(
            Section(
                "Settings compared",
                text="Mean and 95% confidence interval per setting; a star or an outline "
                "marks the best.",
                figures=[(_caption(k), f) for k, f in curve_figs],
            )
        )
    if data.comparisons.height:
        sections.append(
            Section(
                "Paired comparisons",
                text="The best setting of each group against every other, on the same deals: "
                "difference = best minus the other (a positive difference favours the best).",
                tables=[("Best vs each setting", data.comparisons)],
            )
        )
    sections.append(
        Section(
            "Seats",
            text="Every seat of every setting (seatings pooled under duplicate).",
            tables=[("Per seat", data.seats)],
        )
    )
    wide = data.outcomes.with_columns((pl.col("share") * 100).round(2).alias("percent")).pivot(
        on="outcome", index="setting", values="percent"
    )
    sections.append(
        Section(
            "How hands end",
            figures=[(_caption("outcome_mix"), figs["outcome_mix"])]
            if "outcome_mix" in figs
            else [],
            tables=[("Share of hands (%) per outcome", wide)],
        )
    )
    if "hand_length" in figs:
        sections.append(
            Section(
                "Hand length",
                figures=[(_caption("hand_length"), figs["hand_length"])],
                tables=[("Mean turns per hand", summary.select("setting", "mean_turns"))],
            )
        )
    if data.runs.height:
        sections.append(
            Section(
                "Runs",
                text="One run directory per setting, seating and block; each holds its "
                "Parquet tables and manifest.json.",
                tables=[("Run directories", data.runs)],
            )
        )
    title = f"rummy-sim: {data.name}"
    subtitle = (
        f"{'experiment' if data.kind == 'experiment' else 'run'}; seed {data.record.get('seed')}"
    )
    try:
        return write_report(title, sections, data.config, data.provenance, path, subtitle=subtitle)
    except OSError as error:
        raise ExperimentError(f"cannot write {path}: {error.strerror or error}") from None


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
