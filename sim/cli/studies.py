"""Playing a run or an experiment from the command line, and printing what it found.

Shared by ``rummy run`` (a run, an experiment file, a resume) and ``rummy sweep``:
each prints what it will play and the seed, shows one progress bar (with the
experiment's phases), then the summary tables (or the same as strict JSON with
``--json``).
"""

from __future__ import annotations

import math
from pathlib import Path

import polars as pl
from rich.console import Console
from rich.markup import escape
from rich.table import Table

from sim.cli.output import (
    ProgressView,
    ci,
    command_line,
    console,
    err_console,
    fail,
    fmt,
    folder,
    pct,
    print_json,
    seed_line,
)
from sim.present.experiment import save_charts, write_experiment_report
from sim.stats import format_p
from sim.study.analysis import ExperimentData, data_from_run
from sim.study.claims import display_rows
from sim.study.design import HEADLINES, RATE_HEADLINES, Experiment
from sim.study.execute import Executor, run
from sim.study.experiment import ExperimentProgress, run_experiment
from sim.study.runs import RunConfig, RunResult
from sim.study.settings import expand

__all__ = ["check_common", "play_experiment", "play_run", "print_run_result"]


def check_common(deals: int | None, games: int | None, precision: float | None) -> None:
    """What ``run`` and ``sweep`` check before anything else (exit 1, one line)."""
    if deals is not None and games is not None:
        fail("give --deals or --games, not both")
    if precision is not None and not precision > 0:
        fail(f"--precision {precision:g} is not allowed; give a half-width > 0")


def _count(n: int, noun: str) -> str:
    return f"{n:,} {noun}{'' if n == 1 else 's'}"


def play_experiment(
    experiment: Experiment,
    executor: Executor,
    *,
    out: Path,
    drawn: bool,
    as_json: bool = False,
) -> None:
    """Play an experiment (resumable), draw its charts and report, then print its
    summary or its JSON."""
    say = err_console() if as_json else console()
    seed = experiment.seed
    assert seed is not None
    runs = sum(len(s.configs) for s in expand(experiment, seed=seed))
    say.print(
        f"[bold]{escape(experiment.name)}[/bold]: {_count(experiment.n_settings, 'setting')}, "
        f"{_count(runs, 'run')} of {experiment.count:,} {experiment.mode}"
        + (" (duplicate)" if experiment.duplicate else "")
        + f", {executor.describe()}"
    )
    say.print(seed_line(seed, drawn))
    with ProgressView(experiment.name) as view:
        result = run_experiment(
            experiment, executor, out=out, progress=view.phase, command=command_line()
        )
        view.phase(ExperimentProgress("charts"))
        charts = save_charts(result.data, result.directory / "charts")
        view.phase(ExperimentProgress("report"))
        report = write_experiment_report(result.data, result.directory / "report.html")
    for note in dict.fromkeys(note for r in result.runs for note in r.notes):
        err_console().print(f"note: {note}", markup=False)
    rate = (
        f" ({result.hands_played / result.elapsed:,.0f} hands/s)"
        if result.hands_played and result.elapsed > 0
        else ""
    )
    say.print(f"{result.hands_played:,} hands played in {result.elapsed:.1f} s{rate}")
    if as_json:
        record = {
            "kind": "experiment",
            "name": experiment.name,
            "seed": result.experiment.seed,
            "directory": str(result.directory),
            "hands_played": result.hands_played,
            "elapsed": result.elapsed,
            "summary": result.data.summary.to_dicts(),
            "verdicts": result.data.verdicts,
            "charts": [str(p) for p in charts],
            "report": str(report),
        }
        if result.data.claims is not None:  # only where the experiment states claims
            record["claims"] = result.data.claims.to_dicts()
        print_json(record)
        return
    print_experiment_summary(result.data, result.directory, say)


def play_run(config: RunConfig, executor: Executor, *, drawn: bool, as_json: bool = False) -> None:
    """Play one run (resumable), then print its summary or its JSON."""
    say = err_console() if as_json else console()
    say.print(
        f"[bold]{escape(config.experiment)}[/bold]: {config.rule_set.name} "
        f"({config.players} players), {escape(config.lineup_label)}, {config.count:,} "
        f"{config.mode}, {executor.describe()}"
    )
    say.print(seed_line(config.seed, drawn))  # type: ignore[arg-type]
    with ProgressView(config.experiment) as view:
        result = run(config, executor, progress=view.progress)
    print_run_result(result, as_json)


def print_run_result(result: RunResult, as_json: bool = False) -> None:
    """What a run did (notes, chunks played) and its summary, or the same as JSON."""
    say = err_console() if as_json else console()
    for note in result.notes:
        err_console().print(f"note: {note}", markup=False)
    if result.chunks_skipped:
        say.print(f"{result.chunks_skipped} of {result.chunks_total} chunks were already done")
    if result.chunks_run and result.elapsed > 0:
        say.print(f"{result.chunks_run} chunks played in {result.elapsed:.1f} s")
    data = data_from_run(result.run_dir)
    if as_json:
        print_json(
            {
                "kind": "run",
                "run_dir": str(result.run_dir),
                "seed": result.seed,
                "chunks_run": result.chunks_run,
                "chunks_skipped": result.chunks_skipped,
                "elapsed": result.elapsed,
                "summary": data.summary.to_dicts()[0],
                "seats": data.seats.to_dicts(),
                "outcomes": data.outcomes.select(
                    "outcome", "count", "share", "low", "high"
                ).to_dicts(),
            }
        )
        return
    print_run_summary(data, result.run_dir, say)


def print_experiment_summary(data: ExperimentData, directory: Path, out: Console) -> None:
    """The per-setting table (best marked per group), the verdicts, where results are."""
    s = data.summary
    headline = data.headline
    label = HEADLINES[headline][1]
    rate = headline in RATE_HEADLINES
    method = s["method"][0] if s.height else "t"
    unit = "deals" if data.mode == "deals" else "games"
    rotations = int(s["rotations"].max() or 1) if s.height else 1  # type: ignore[arg-type]
    units = int(s["units"][0]) if s.height else 0
    table = Table(
        title=escape(
            f"{data.name}: seat 0 = {data.seat0()}; {units:,} {unit} per setting"
            + (f", each played in {rotations} seatings (duplicate)" if rotations > 1 else "")
            + "; 95% intervals"
        ),
        title_justify="left",
    )
    table.add_column("")
    table.add_column("setting")
    short = "Wilson" if method == "Wilson" else method.split(" ")[0]
    table.add_column(escape(f"{label}{' %' if rate else ''} [{short}]"), justify="right")
    games = data.mode == "games"
    table.add_column(escape(f"{'games' if games else 'hands'} won % [Wilson]"), justify="right")
    for name in ("knock %", "undercut %", "turns", "vs best", "Holm p"):
        table.add_column(name, justify="right")
    for row in s.iter_rows(named=True):
        scale = 100.0 if rate else 1.0
        best = bool(row.get("best"))
        diff = row.get("diff_vs_best")
        won = ("game_win_rate", "game_win_low", "game_win_high") if games else (
            "win_rate", "win_low", "win_high"
        )  # fmt: skip
        cells = [
            "★" if best else "",
            row["setting"],
            ci(row["estimate"], row["low"], row["high"], 2, scale),
            ci(row[won[0]], row[won[1]], row[won[2]], 1, 100.0),
            pct(row["knock_rate"]),
            pct(row["undercut_rate"]),
            f"{row['mean_turns']:.1f}",
            "best"
            if best
            else ("" if diff is None or math.isnan(diff) else fmt(diff * scale, 2, True)),
            format_p(row.get("holm_p")),
        ]
        table.add_row(*(escape(c) for c in cells), style="bold" if best else None)
    out.print(table)
    for verdict in data.verdicts:
        group = "" if verdict["group"] == "all" else f"{verdict['group']}: "
        out.print(f"{group}{verdict['summary']}", markup=False)
    if data.claims is not None:
        print_claims(data.claims, out)
    if data.record.get("precision") is not None:
        widest = float(s["half_width"].max()) if s.height else math.nan  # type: ignore[arg-type]
        state = "reached" if data.record.get("precision_reached") else "NOT reached (max-count)"
        out.print(
            f"precision ±{data.record['precision']:g}: {state}; widest half-width {widest:.4g} "
            f"after {data.record.get('blocks', 1)} block(s)"
        )
    out.print(
        f"results: {folder(directory)} (summary.parquet, seats.parquet, charts/, report.html)",
        markup=False,
    )


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


def print_run_summary(data: ExperimentData, run_dir: Path, out: Console) -> None:
    """Per seat: points and net points per hand (t), win rate (Wilson); how hands end."""
    games = data.mode == "games"
    row0 = data.summary.row(0, named=True)
    table = Table(
        title=escape(
            f"{data.name}: {int(row0['units']):,} {data.mode}, "
            f"{int(row0['hands']):,} hands, 95% intervals"
        ),
        title_justify="left",
    )
    columns = [
        ("seat", "right"),
        ("strategy", "left"),
        ("points/hand [t]", "right"),
        ("net points/hand [t]", "right"),
        ("win % [Wilson]", "right"),
        ("knock %", "right"),
    ]
    if games:
        columns += [("net score/game [t]", "right"), ("games won % [Wilson]", "right")]
    for name, justify in columns:
        table.add_column(escape(name), justify=justify)  # type: ignore[arg-type]
    for r in data.seats.iter_rows(named=True):
        cells = [
            str(r["seat"]),
            r["strategy"],
            ci(r["points"], r["points_low"], r["points_high"]),
            ci(r["net"], r["net_low"], r["net_high"]),
            ci(r["win_rate"], r["win_low"], r["win_high"], 1, 100.0),
            pct(r["knock_rate"]),
        ]
        if games:
            cells += [
                ci(r["net_score"], r["net_score_low"], r["net_score_high"], 1),
                ci(r["game_win_rate"], r["game_win_low"], r["game_win_high"], 1, 100.0),
            ]
        table.add_row(*(escape(c) for c in cells))
    out.print(table)
    mix = ", ".join(
        f"{o} {share * 100:.1f}%"
        for o, share in data.outcomes.select("outcome", "share").iter_rows()
        if share and share > 0
    )
    out.print(f"outcomes: {mix}", markup=False)
    out.print(f"mean turns per hand: {row0['mean_turns']:.1f}")
    out.print(f"results: {folder(run_dir)}", markup=False)
