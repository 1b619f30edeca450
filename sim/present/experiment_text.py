"""A run or an experiment as the terminal shows it: what it will play, what playing it
said, its summary tables and its ``--json`` record (``rummy run``, ``rummy sweep``:
``sim.front.run``, ``sim.front.sweep``; a tune's hands too, ``sim.front.tune``).
"""

from __future__ import annotations

import math
from typing import Any

import polars as pl
from rich.console import Console
from rich.markup import escape
from rich.measure import Measurement
from rich.table import Table

from sim.present.experiment import (
    HOUSE_UNITS,
    Drawn,
    best_moves,
    house_rule_label,
    rule_names,
    seat0_text,
    short_labels,
)
from sim.present.terminal import chatter, ci, compact_table, err_console, folder, pct
from sim.stats import format_p
from sim.store import StorePath
from sim.study.analysis import ExperimentData
from sim.study.claims import display_rows
from sim.study.design import HEADLINES, RATE_HEADLINES, Experiment
from sim.study.execute import Executor
from sim.study.house_rules import SHARE
from sim.study.quantities import experiment_units
from sim.study.settings import expand

__all__ = [
    "announce_experiment",
    "experiment_record",
    "print_experiment_summary",
    "print_run_summary",
    "tell_experiment",
    "tell_hands",
    "tell_notes",
]


def _count(n: int, noun: str) -> str:
    return f"{n:,} {noun}{'' if n == 1 else 's'}"


def announce_experiment(experiment: Experiment, executor: Executor) -> str:
    """What an experiment will play, in one line: its settings, runs and workers."""
    settings = expand(experiment, seed=experiment.seed)
    runs = sum(len(s.configs) for s in settings)
    agents = any(c.seats_agents for s in settings for c in s.configs)
    return (
        f"[bold]{escape(experiment.name)}[/bold]: {_count(experiment.n_settings, 'setting')}, "
        f"{_count(runs, 'run')} of {experiment.count:,} {experiment.mode}"
        + (" (duplicate)" if experiment.duplicate else "")
        + f", {executor.describe(agents)}"
    )


def tell_experiment(drawn: Drawn, as_json: bool) -> None:
    """What playing it said (notes, on standard error) and the hands it played."""
    result = drawn.result
    tell_notes(drawn.notes)
    tell_hands(result.hands_played, result.elapsed, as_json)


def tell_notes(notes: tuple[str, ...]) -> None:
    """What playing a study said (``note:`` lines, on standard error)."""
    for note in notes:
        err_console().print(f"note: {note}", markup=False)


def tell_hands(hands: int, elapsed: float, as_json: bool) -> None:
    """How many hands a study played, in how long (and how fast)."""
    rate = f" ({hands / elapsed:,.0f} hands/s)" if hands and elapsed > 0 else ""
    chatter(as_json).print(f"{hands:,} hands played in {elapsed:.1f} s{rate}")


def experiment_record(drawn: Drawn) -> dict[str, Any]:
    """An experiment's ``--json``: where it is, what it played, its summary and verdicts."""
    result = drawn.result
    data = result.data
    record: dict[str, Any] = {
        "kind": "experiment",
        "name": result.experiment.name,
        "seed": result.experiment.seed,
        "directory": str(result.directory),
        "hands_played": result.hands_played,
        "elapsed": result.elapsed,
        "summary": data.summary.to_dicts(),
        "units": experiment_units(data.headline),
        "verdicts": data.verdicts,
        "charts": [str(p) for p in drawn.charts],
        "report": str(drawn.report),
    }
    if data.claims is not None:  # only where the experiment states claims
        record["claims"] = data.claims.to_dicts()
    if len(data.groups) > 1:  # settings under different rules
        record["groups"] = data.groups
    if data.house_rules is not None:
        record["house_rules"] = data.house_rules.to_dicts()
    return record


def print_experiment_summary(data: ExperimentData, directory: StorePath, out: Console) -> None:
    """Per rule setting, the table of its settings (the best marked) and its verdict;
    how the rules change the game when settings differ in their rules; the claims."""
    s = data.summary
    unit = "deals" if data.mode == "deals" else "games"
    rotations = int(s["rotations"].max() or 1) if s.height else 1  # type: ignore[arg-type]
    units = int(s["units"][0]) if s.height else 0
    out.print(
        f"{data.name}: seat 0 = {seat0_text(data)}; {units:,} {unit} per setting"
        + (f", each played in {rotations} seatings (duplicate)" if rotations > 1 else "")
        + "; estimate [95% interval]",
        markup=False,
    )
    groups = data.groups or {"all": s["setting"].to_list()}
    if len(groups) > 1:
        out.print(
            f"compared within each rule setting: {len(groups)} groups ({'; '.join(groups)})",
            markup=False,
        )
    verdicts = {v["group"]: v for v in data.verdicts}
    if len(groups) > 1 and all(len(m) == 1 for m in groups.values()):
        out.print("one setting per rule setting: nothing to compare within one", markup=False)
        groups = {"": s["setting"].to_list()}  # one table, no comparisons
    for group, members in groups.items():
        rows = s.filter(pl.col("setting").is_in(members))
        _print_group(data, rows, "" if group == "all" else group, out)
        verdict = verdicts.get(group)
        if verdict is not None:
            out.print(verdict["summary"], markup=False)
    for line in best_moves(data):
        out.print(line, markup=False)
    if data.house_rules is not None and data.house_rules.height:
        print_house_rules(data, out)
    if data.claims is not None:
        print_claims(data.claims, out)
    if data.record.get("precision") is not None:
        widest = float(s["half_width"].max()) if s.height else math.nan  # type: ignore[arg-type]
        state = "reached" if data.record.get("precision_reached") else "NOT reached (max-count)"
        out.print(
            f"precision: half-width target {data.record['precision']:g} {data.unit}: {state}; "
            f"widest {widest:.2g} after {data.record.get('blocks', 1)} block(s)",
            markup=False,
        )
    out.print(
        f"results: {folder(directory)} (summary.parquet, seats.parquet, charts/, report.html)",
        markup=False,
    )


def _print_group(data: ExperimentData, rows: pl.DataFrame, group: str, out: Console) -> None:
    """One rule setting's settings: headline, won %, knock %, turns, against the best
    (turns left out where the table would not fit the terminal: the report has them)."""
    header, labels, legend = short_labels(data, rows)
    table = _group_table(data, rows, group, header, labels, turns=True)
    natural = Measurement.get(out, out.options.update(width=1_000), table).maximum
    if natural > out.width:
        table = _group_table(data, rows, group, header, labels, turns=False)
    out.print(table)
    for line in legend:
        out.print(f"  {line}", markup=False)


def _group_table(
    data: ExperimentData,
    rows: pl.DataFrame,
    group: str,
    header: str,
    labels: list[str],
    turns: bool,
) -> Table:
    rate = data.headline in RATE_HEADLINES
    games = data.mode == "games"
    table = compact_table(escape(group))
    table.add_column("", no_wrap=True, min_width=1)
    # Never squeezed: the labels are what tell the rows apart.
    table.add_column(escape(header), no_wrap=True, min_width=max(map(len, [header, *labels])))
    short = HEADLINES[data.headline][1].replace(" per ", "/")
    table.add_column(escape(f"{short}{' %' if rate else ''}"), justify="right", no_wrap=True)
    table.add_column(
        escape(f"{'games' if games else 'hands'} won %"), justify="right", no_wrap=True
    )
    compared = rows.height > 1 and bool(rows["best"].any())
    tail = ["vs best", "Holm p"] if compared else []
    for name in ("knock %", *(["turns"] if turns else []), *tail):
        table.add_column(name, justify="right", no_wrap=True)
    won = ("game_win_rate", "game_win_low", "game_win_high") if games else (
        "win_rate", "win_low", "win_high"
    )  # fmt: skip
    for label, row in zip(labels, rows.iter_rows(named=True), strict=True):
        best = bool(row.get("best"))
        diff = row.get("diff_vs_best")
        cells = [
            "★" if best else "",
            label,
            ci(row["estimate"], row["low"], row["high"], scale=100.0 if rate else 1.0),
            ci(row[won[0]], row[won[1]], row[won[2]], scale=100.0),
            pct(row["knock_rate"]),
            *([f"{row['mean_turns']:.1f}"] if turns else []),
        ]
        if compared:
            cells += [
                "best"
                if best
                else (
                    ""
                    if diff is None or math.isnan(diff)
                    else ci(diff, None, None, 2, 100.0 if rate else 1.0, sign=True)
                ),
                format_p(row.get("holm_p")),
            ]
        table.add_row(*(escape(c) for c in cells), style="bold" if best else None)
    return table


def print_house_rules(data: ExperimentData, out: Console) -> None:
    """How each rule setting changes the game against the first, on the same deals."""
    frame = data.house_rules
    assert frame is not None
    reference = str(frame["reference"][0])
    out.print(
        f"How the rules change the game: each rule setting against {reference}, paired on "
        "the same deals (change = rule setting minus reference, 95% interval); "
        + HOUSE_UNITS.format(headline=HEADLINES[data.headline][1]),
        markup=False,
    )
    for (group,), rows in frame.group_by("group", maintain_order=True):
        table = compact_table(escape(f"{group} against {reference}"))
        table.add_column("measure")
        before, after = rule_names(reference, str(group))
        table.add_column(escape(_clip(before)), justify="right", no_wrap=True)
        table.add_column(escape(_clip(after)), justify="right", no_wrap=True)
        table.add_column("change [95% CI]", justify="right", no_wrap=True)
        table.add_column("p", justify="right", no_wrap=True)
        for r in rows.iter_rows(named=True):
            percent = r["unit"] == SHARE
            table.add_row(
                escape(house_rule_label(r, data.headline, short=True)),
                ci(r["reference_value"], None, None, 2, 100.0 if percent else 1.0),
                ci(r["value"], None, None, 2, 100.0 if percent else 1.0),
                escape(
                    ci(
                        r["difference"],
                        r["low"],
                        r["high"],
                        2,
                        100.0 if percent else 1.0,
                        sign=True,
                    )
                ),  # fmt: skip
                format_p(r["p_value"]),
            )
        out.print(table)


def _clip(text: str, width: int = 12) -> str:
    return text if len(text) <= width else text[: width - 1] + "…"


def print_claims(claims: pl.DataFrame, out: Console) -> None:
    """The claims' verdicts: claim, verdict, effect, 95% interval, n (and a note)."""
    table = Table(
        title="Claims: supported / refuted when the 95% interval lies on one side; "
        "differences are treatment minus control, per deal",
        title_justify="left",
    )
    for name, justify in (("claim", "left"), ("verdict", "left"), ("effect", "right"),
                          ("95% CI", "right"), ("n", "right")):  # fmt: skip
        table.add_column(name, justify=justify)  # type: ignore[arg-type]
    notes = []
    for row in display_rows(claims):
        style = "bold" if not row["claim"].startswith("  ") else None
        table.add_row(
            *(escape(row[k]) for k in ("claim", "verdict", "effect", "ci", "n")), style=style
        )
        if row["note"]:
            notes.append(f"{row['name']}: {row['note']}")
    out.print(table)
    for note in notes:
        out.print(note, markup=False)


def print_run_summary(data: ExperimentData, run_dir: StorePath, out: Console) -> None:
    """Per seat: points and net points per hand (t), win rate (Wilson); how hands end."""
    games = data.mode == "games"
    row0 = data.summary.row(0, named=True)
    out.print(
        f"{data.name}: {int(row0['units']):,} {data.mode}, {int(row0['hands']):,} hands; "
        "estimate [95% interval]: t for points, Wilson for %",
        markup=False,
    )
    tables = [
        (
            "per hand",
            [("points/hand", "points"), ("net points/hand", "net"), ("won %", "win_rate")],
        )
    ]
    if games:
        tables.append(
            ("per game", [("net score/game", "net_score"), ("games won %", "game_win_rate")])
        )
    for title, columns in tables:
        table = compact_table(title if games else "")
        table.add_column("seat", justify="right")
        table.add_column("strategy", overflow="fold")
        for name, _ in columns:
            table.add_column(escape(name), justify="right", no_wrap=True)
        for r in data.seats.iter_rows(named=True):
            cells = [str(r["seat"]), r["strategy"]]
            for _, key in columns:
                low, high = ("win_low", "win_high") if key == "win_rate" else (
                    ("game_win_low", "game_win_high") if key == "game_win_rate"
                    else (f"{key}_low", f"{key}_high")
                )  # fmt: skip
                scale = 100.0 if key.endswith("win_rate") else 1.0
                cells.append(ci(r[key], r[low], r[high], scale=scale))
            table.add_row(*(escape(c) for c in cells))
        out.print(table)
    mix = ", ".join(
        f"{o} {share * 100:.1f}%"
        for o, share in data.outcomes.select("outcome", "share").iter_rows()
        if share and share > 0
    )
    out.print(f"outcomes: {mix}", markup=False)
    knocks = ", ".join(
        f"seat {r['seat']} {pct(r['knock_rate'])}%" for r in data.seats.iter_rows(named=True)
    )
    out.print(f"hands knocked: {knocks}", markup=False)
    out.print(f"mean turns per hand: {row0['mean_turns']:.1f}")
    out.print(f"results: {folder(run_dir)}", markup=False)
