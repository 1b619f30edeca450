"""``rummy run``, ``rummy sweep``, ``rummy chart`` and ``rummy report``.

Examples::

    rummy run experiments/gin_knock_threshold.toml            # an experiment file
    rummy run --rules gin --seats greedy:knock_at=7/simple --deals 1_000_000 --seed 7
    rummy run --resume results/default/3f9c2a1b4d5e           # finish an interrupted run
    rummy sweep --rules gin --seats 'greedy:knock_at={k}/simple' --grid k=0..10 --duplicate
    rummy chart results/gin_knock_threshold --kind knock-curve
    rummy report results/gin_knock_threshold

Every command builds a ``RunConfig`` or an ``Experiment`` and hands it to
``sim.runner.run`` / ``sim.experiment.run_experiment``; a mistake ends in one line on
stderr and exit status 1, and nothing half-written is left behind.
"""

from __future__ import annotations

import contextlib
import math
import os
import shlex
import sys
import time
from collections.abc import Iterator
from enum import StrEnum
from pathlib import Path
from typing import Annotated, Any

import typer
from rich.console import Console
from rich.markup import escape
from rich.progress import (
    BarColumn,
    Progress,
    SpinnerColumn,
    TaskProgressColumn,
    TextColumn,
    TimeElapsedColumn,
    TimeRemainingColumn,
)
from rich.table import Table

from sim import experiment as X
from sim import runner, store
from sim.cli.common import fail, path_text, print_json
from sim.cli.table_cmds import JsonOption, RuleOverrides, load_rules
from sim.engine import StrategyDecisionError
from sim.results import ResultsError
from sim.rules import RuleError, parse_overrides
from strategies import StrategyError


class Backend(StrEnum):
    local = "local"
    ray = "ray"


class Rows(StrEnum):
    hands = "hands"
    none = "none"


class Headline(StrEnum):
    net_points = "net_points"
    points = "points"
    win_rate = "win_rate"
    net_score = "net_score"
    game_win_rate = "game_win_rate"


class ChartKind(StrEnum):
    knock_curve = "knock-curve"
    curve = "curve"
    heatmap = "heatmap"
    outcome_mix = "outcome-mix"
    hand_length = "hand-length"


SeatsOption = Annotated[
    list[str] | None,
    typer.Option(
        "--seats",
        "-s",
        help="Line-up: seat specs separated by '/' or ',' (greedy:knock_at=7/simple), or the "
        "option once per seat; one spec fills every seat.",
        show_default=False,
    ),
]
DealsOption = Annotated[
    int | None,
    typer.Option(
        "--deals", "-n", min=1, help="Single hands to play (per setting).", show_default=False
    ),
]
GamesOption = Annotated[
    int | None,
    typer.Option(
        "--games",
        min=1,
        help="Whole games of the rule set's game mode (instead of --deals).",
        show_default=False,
    ),
]
SeedOption = Annotated[
    int | None,
    typer.Option(
        "--seed",
        min=0,
        help="Master seed; a fresh one is drawn and printed when omitted.",
        show_default=False,
    ),
]
WorkersOption = Annotated[
    int | None,
    typer.Option(
        "--workers",
        "-w",
        min=1,
        help="Worker threads (or Ray tasks) (default: CPU cores).",
        show_default=False,
    ),
]
OutOption = Annotated[
    Path, typer.Option("--out", "-o", parser=path_text, help="Results root folder.")
]
BackendOption = Annotated[Backend, typer.Option("--backend", help="Where chunks run.")]
AddressOption = Annotated[
    str | None,
    typer.Option("--address", help="Ray cluster address (with --backend ray).", show_default=False),
]
RowsOption = Annotated[
    Rows | None,
    typer.Option(
        "--rows",
        help="Keep per-hand rows ('hands'), or only exact summaries ('none': far less disk; "
        "comparisons are then unpaired) (default: hands).",
        show_default=False,
    ),
]
PrecisionOption = Annotated[
    float | None,
    typer.Option(
        "--precision",
        help="Keep adding deals until the headline's 95% CI half-width is below this.",
        show_default=False,
    ),
]
MaxCountOption = Annotated[
    int | None,
    typer.Option(
        "--max-count",
        min=1,
        help="Cap per setting for --precision (default: 10 x the size).",
        show_default=False,
    ),
]
DuplicateOption = Annotated[
    bool | None,
    typer.Option(
        "--duplicate/--no-duplicate",
        help="Also play every deal with the seats rotated, so seat luck cancels.",
        show_default=False,
    ),
]
HeadlineOption = Annotated[
    Headline | None,
    typer.Option(
        "--headline",
        help="Metric compared: seat 0's net_points, points or win_rate per hand (deals), "
        "net_score or game_win_rate per game (games).",
        show_default=False,
    ),
]
NameOption = Annotated[
    str | None,
    typer.Option("--name", help="Folder under --out for the results.", show_default=False),
]
ChunkOption = Annotated[
    int | None,
    typer.Option(
        "--chunk-size",
        min=1,
        help="Deals or games per chunk (resume granularity).",
        show_default=False,
    ),
]

_ERRORS = (
    store.StorageError,
    X.ExperimentError,
    runner.RunError,
    ResultsError,
    RuleError,
    StrategyError,
    StrategyDecisionError,
)


@contextlib.contextmanager
def _one_line_errors() -> Iterator[None]:
    """Turn every expected error into one line on stderr and exit 1 (130 on Ctrl-C)."""
    try:
        yield
    except _ERRORS as error:
        fail(str(error).strip().splitlines()[0] if str(error).strip() else type(error).__name__)
    except KeyboardInterrupt:
        typer.echo(
            "interrupted: finished chunks are kept; run the same command again to resume",
            err=True,
        )
        raise typer.Exit(code=130) from None
    except OSError as error:
        where = f"{error.filename}: " if getattr(error, "filename", None) else ""
        fail(f"{where}{error.strerror or error}")


def _command() -> str:
    return shlex.join(["rummy", *sys.argv[1:]]) if sys.argv else "rummy"


def _console() -> Console:
    """Standard output; tables keep their width when piped (rich assumes 80 columns)."""
    wide = None if sys.stdout.isatty() else 160
    return Console(highlight=False, soft_wrap=False, width=wide)


def _err_console() -> Console:
    return Console(stderr=True, highlight=False)


def _num(n: int) -> str:
    return f"{n:,}"


def _count(n: int, noun: str) -> str:
    return f"{n:,} {noun}{'' if n == 1 else 's'}"


# --- progress ----------------------------------------------------------------------------


class _ProgressView:
    """A rich progress bar fed by ``sim.runner.Progress`` or ``ExperimentProgress``."""

    def __init__(self, label: str):
        self.label = label
        self.bar = Progress(
            SpinnerColumn(),
            TextColumn("[bold]{task.description}"),
            BarColumn(bar_width=30),
            TaskProgressColumn(),
            TextColumn("{task.fields[rate]}"),
            TextColumn("left"),
            TimeRemainingColumn(),
            TextColumn("elapsed"),
            TimeElapsedColumn(),
            console=_err_console(),
            transient=False,
        )
        self.task = self.bar.add_task(label, total=None, rate="")
        self.started = time.perf_counter()

    def __enter__(self) -> _ProgressView:
        self.bar.start()
        return self

    def __exit__(self, exc_type: object, *exc: object) -> None:
        if exc_type is not None:  # leave only the error's one line behind
            self.bar.live.transient = True
        self.bar.stop()

    def _rate(self, hands: int, elapsed: float) -> str:
        if elapsed <= 0 or hands <= 0:
            return "- hands/s"
        return f"{hands / elapsed:,.0f} hands/s"

    def run_progress(self, p: runner.Progress) -> None:
        """A single run's progress (chunks)."""
        self.bar.update(
            self.task,
            description=f"{self.label}: chunk {p.chunks_done}/{p.chunks_total}",
            total=p.units_total,
            completed=p.units_done,
            rate=self._rate(p.hands_played, p.elapsed),
        )

    def experiment_progress(self, p: X.ExperimentProgress) -> None:
        if p.phase == "run":
            block = f" (+block {p.block})" if p.block else ""
            self.bar.update(
                self.task,
                description=f"{self.label}{block}: run {p.runs_done}/{p.runs_total}",
                total=max(p.units_total, 1),
                completed=p.units_done,
                rate=self._rate(p.hands_done, p.elapsed),
            )
        else:
            text = {
                "engine": "loading the engine (the first use compiles it: about a minute)",
                "analyse": "analysing",
                "charts": "drawing charts",
                "report": "writing the report",
            }.get(p.phase, p.phase)
            if p.phase == "engine":
                self.bar.update(self.task, description=f"{self.label}: {text}", total=None)
            else:
                self.bar.update(self.task, description=f"{self.label}: {text}")


# --- summaries ---------------------------------------------------------------------------


def _f(value: float, digits: int, sign: bool = False) -> str:
    """A number without the "-0.00" of a tiny negative."""
    text = f"{value:+.{digits}f}" if sign else f"{value:.{digits}f}"
    if float(text) == 0.0:
        text = f"{0.0:+.{digits}f}" if sign else f"{0.0:.{digits}f}"
    return text


def _ci(estimate: float, low: float, high: float, digits: int = 2, scale: float = 1.0) -> str:
    if estimate is None or (isinstance(estimate, float) and math.isnan(estimate)):
        return "-"
    if low is None or high is None or math.isnan(low) or math.isnan(high):
        return _f(estimate * scale, digits)
    return f"{_f(estimate * scale, digits)} [{_f(low * scale, digits)}, {_f(high * scale, digits)}]"


def _pct(value: float | None) -> str:
    if value is None or math.isnan(value):
        return "-"
    return f"{value * 100:.1f}"


def _p(value: float | None) -> str:
    if value is None or math.isnan(value):
        return ""
    return "<0.0001" if value < 1e-4 else f"{value:.2g}"


def print_experiment_summary(data: X.ExperimentData, directory: Path, console: Console) -> None:
    """The per-setting table (best marked per group), the verdicts, where results are."""
    s = data.summary
    headline = data.headline
    label = X.HEADLINES[headline][1]
    rate = headline in X.RATE_HEADLINES
    method = s["method"][0] if s.height else "t"
    unit = "deals" if data.mode == "deals" else "games"
    rotations = int(s["rotations"].max() or 1) if s.height else 1  # type: ignore[arg-type]
    units = int(s["units"][0]) if s.height else 0
    table = Table(
        title=escape(
            f"{data.name}: seat 0 = {X._seat0_template(data)}; {_num(units)} {unit} per setting"
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
    table.add_column("knock %", justify="right")
    table.add_column("undercut %", justify="right")
    table.add_column("turns", justify="right")
    table.add_column("vs best", justify="right")
    table.add_column("Holm p", justify="right")
    for row in s.iter_rows(named=True):
        scale = 100.0 if rate else 1.0
        best = bool(row.get("best"))
        diff = row.get("diff_vs_best")
        cells = [
            "★" if best else "",
            row["setting"],
            _ci(row["estimate"], row["low"], row["high"], 2, scale),
            _ci(row["game_win_rate"], row["game_win_low"], row["game_win_high"], 1, 100.0)
            if games
            else _ci(row["win_rate"], row["win_low"], row["win_high"], 1, 100.0),
            _pct(row["knock_rate"]),
            _pct(row["undercut_rate"]),
            f"{row['mean_turns']:.1f}",
            "best"
            if best
            else ("" if diff is None or math.isnan(diff) else _f(diff * scale, 2, True)),
            _p(row.get("holm_p")),
        ]
        table.add_row(*(escape(c) for c in cells), style="bold" if best else None)
    console.print(table)
    for verdict in data.verdicts:
        group = "" if verdict["group"] == "all" else f"{verdict['group']}: "
        console.print(f"{group}{verdict['summary']}", markup=False)
    if data.record.get("precision") is not None:
        widest = float(s["half_width"].max()) if s.height else math.nan  # type: ignore[arg-type]
        state = "reached" if data.record.get("precision_reached") else "NOT reached (max-count)"
        console.print(
            f"precision ±{data.record['precision']:g}: {state}; widest half-width {widest:.4g} "
            f"after {data.record.get('blocks', 1)} block(s)"
        )
    console.print(
        f"results: {directory}/ (summary.parquet, seats.parquet, charts/, report.html)",
        markup=False,
    )


def print_run_summary(data: X.ExperimentData, run_dir: Path, console: Console) -> None:
    """Per seat: points and net points per hand (t), win rate (Wilson); how hands end."""
    seats = data.seats
    games = data.mode == "games"
    row0 = data.summary.row(0, named=True)
    table = Table(
        title=escape(
            f"{data.name}: {_num(int(row0['units']))} {data.mode}, "
            f"{_num(int(row0['hands']))} hands, 95% intervals"
        ),
        title_justify="left",
    )
    for name, justify in (
        ("seat", "right"),
        ("strategy", "left"),
        ("points/hand [t]", "right"),
        ("net points/hand [t]", "right"),
        ("win % [Wilson]", "right"),
        ("knock %", "right"),
    ):
        table.add_column(escape(name), justify=justify)  # type: ignore[arg-type]
    if games:
        table.add_column(escape("net score/game [t]"), justify="right")
        table.add_column(escape("games won % [Wilson]"), justify="right")
    for r in seats.iter_rows(named=True):
        cells = [
            str(r["seat"]),
            r["strategy"],
            _ci(r["points"], r["points_low"], r["points_high"]),
            _ci(r["net"], r["net_low"], r["net_high"]),
            _ci(r["win_rate"], r["win_low"], r["win_high"], 1, 100.0),
            _pct(r["knock_rate"]),
        ]
        if games:
            cells += [
                _ci(r["net_score"], r["net_score_low"], r["net_score_high"], 1),
                _ci(r["game_win_rate"], r["game_win_low"], r["game_win_high"], 1, 100.0),
            ]
        table.add_row(*(escape(c) for c in cells))
    console.print(table)
    mix = ", ".join(
        f"{o} {share * 100:.1f}%"
        for o, share in data.outcomes.select("outcome", "share").iter_rows()
        if share and share > 0
    )
    console.print(f"outcomes: {mix}", markup=False)
    console.print(f"mean turns per hand: {row0['mean_turns']:.1f}")
    console.print(f"results: {run_dir}/", markup=False)


# --- rummy run -----------------------------------------------------------------------------


def _seed_line(console: Console, seed: int, drawn: bool) -> None:
    if drawn:
        console.print(f"seed {seed} (drawn; pass --seed {seed} to repeat or resume)")
    else:
        console.print(f"seed {seed}")


def _run_experiment(
    experiment: X.Experiment,
    *,
    workers: int | None,
    out: Path,
    backend: Backend,
    address: str | None,
    drawn: bool,
    as_json: bool = False,
) -> None:
    console = _err_console() if as_json else _console()
    seed = experiment.seed
    assert seed is not None
    runs = sum(len(s.configs) for s in X.expand(experiment, seed=seed))
    console.print(
        f"[bold]{experiment.name}[/bold]: {_count(experiment.n_settings, 'setting')}, "
        f"{_count(runs, 'run')} of "
        f"{_num(experiment.count)} {experiment.mode}"
        + (" (duplicate)" if experiment.duplicate else "")
        + f", {workers or os.cpu_count() or 1} workers"
    )
    _seed_line(console, seed, drawn)
    with _ProgressView(experiment.name) as view:
        result = X.run_experiment(
            experiment,
            workers=workers,
            out=out,
            progress=view.experiment_progress,
            backend=backend.value,  # type: ignore[arg-type]
            address=address,
            command=_command(),
        )
    for note in dict.fromkeys(note for run in result.runs for note in run.notes):
        _err_console().print(f"note: {note}")
    console.print(
        f"{_num(result.hands_played)} hands played in {result.elapsed:.1f} s"
        + (
            f" ({result.hands_played / result.elapsed:,.0f} hands/s)"
            if result.hands_played and result.elapsed > 0
            else ""
        )
    )
    if as_json:
        print_json(
            {
                "kind": "experiment",
                "name": experiment.name,
                "seed": result.experiment.seed,
                "directory": str(result.directory),
                "hands_played": result.hands_played,
                "elapsed": result.elapsed,
                "summary": result.data.summary.to_dicts(),
                "verdicts": result.data.verdicts,
                "charts": [str(p) for p in result.charts],
                "report": str(result.report) if result.report else None,
            }
        )
        return
    print_experiment_summary(result.data, result.directory, console)


def _single_run(config: runner.RunConfig, drawn: bool, as_json: bool = False) -> None:
    console = _err_console() if as_json else _console()
    rules = config.rules
    console.print(
        f"[bold]{config.experiment}[/bold]: {rules.name} ({config.players} players), "  # type: ignore[union-attr]
        f"{config.lineup_label}, {_num(config.count)} {config.mode}, {config.workers} workers"
    )
    _seed_line(console, config.seed, drawn)  # type: ignore[arg-type]
    X.check_backend(config.backend)  # before anything is written: fail fast
    store.make_dir(Path(config.out))
    if config.backend == "local":
        with _err_console().status(
            "loading the engine (the first use compiles it: about a minute)"
        ):
            X.prepare_engine(config.rules, config.lineup)  # type: ignore[arg-type]
    with _ProgressView(config.experiment) as view:
        result = runner.run(config, progress=view.run_progress)
    _after_run(result, console, as_json)


def _after_run(result: runner.RunResult, console: Console, as_json: bool = False) -> None:
    for note in result.notes:
        _err_console().print(f"note: {note}")
    if result.chunks_skipped:
        console.print(f"{result.chunks_skipped} of {result.chunks_total} chunks were already done")
    played = result.chunks_run
    if played and result.elapsed > 0:
        console.print(f"{result.chunks_run} chunks played in {result.elapsed:.1f} s")
    data = X.data_from_run(result.run_dir)
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
    print_run_summary(data, result.run_dir, console)


def _resume(
    directory: Path,
    *,
    workers: int | None,
    backend: Backend,
    address: str | None,
    as_json: bool = False,
) -> None:
    console = _err_console() if as_json else _console()
    if (directory / X.EXPERIMENT_JSON).exists():
        import json

        try:
            record = json.loads((directory / X.EXPERIMENT_JSON).read_text())
            data = record["experiment"]
        except (OSError, ValueError, KeyError, TypeError):
            raise X.ExperimentError(
                f"{directory / X.EXPERIMENT_JSON}: not a readable experiment record"
            ) from None
        experiment = X.Experiment.from_dict(data, source=str(directory / X.EXPERIMENT_JSON))
        console.print(f"resuming experiment {experiment.name} in {directory}")
        _run_experiment(
            experiment,
            workers=workers,
            out=directory.parent,
            backend=backend,
            address=address,
            drawn=False,
            as_json=as_json,
        )
        return
    if not (directory / runner.MANIFEST).exists():
        raise X.ExperimentError(
            f"{directory}: nothing to resume (no {X.EXPERIMENT_JSON} or {runner.MANIFEST}); give "
            "a run directory (results/NAME/RUN_ID) or an experiment directory (results/NAME)"
        )
    config = runner.resume_config(directory, workers=workers, backend=backend.value)  # type: ignore[arg-type]
    console.print(f"resuming run {directory} (seed {config.seed})")
    if backend == Backend.local:
        with _err_console().status("loading the engine"):
            X.prepare_engine()
    with _ProgressView(directory.name) as view:
        result = runner.resume(
            directory,
            workers=workers,
            backend=backend.value,  # type: ignore[arg-type]
            address=address,
            command=_command(),
            progress=view.run_progress,
        )
    _after_run(result, console, as_json)


def run(
    experiment_file: Annotated[
        Path | None,
        typer.Argument(
            help="An experiment file (TOML), e.g. experiments/gin_knock_threshold.toml.",
            show_default=False,
        ),
    ] = None,
    rules: Annotated[
        str | None,
        typer.Option(
            "--rules",
            help="Rule preset (see `rummy rules list`) (default: gin).",
            show_default=False,
        ),
    ] = None,
    rule: RuleOverrides = None,
    seats: SeatsOption = None,
    deals: DealsOption = None,
    games: GamesOption = None,
    seed: SeedOption = None,
    workers: WorkersOption = None,
    out: OutOption = Path("results"),
    name: NameOption = None,
    backend: BackendOption = Backend.local,
    address: AddressOption = None,
    rows: RowsOption = None,
    precision: PrecisionOption = None,
    max_count: MaxCountOption = None,
    duplicate: DuplicateOption = None,
    headline: HeadlineOption = None,
    chunk_size: ChunkOption = None,
    resume: Annotated[
        Path | None,
        typer.Option(
            "--resume",
            help="Finish an interrupted run or experiment directory (plays only what is missing).",
            show_default=False,
        ),
    ] = None,
    as_json: JsonOption = False,
) -> None:
    """Play many deals (or games): one run from options, or an experiment file.

    Prints the seed, a progress bar, then a summary with 95% intervals and where the
    results are. Runs are resumable: the same command again plays only missing chunks.
    """
    with _one_line_errors():
        _check_common(address, backend, deals, games, precision)
        if resume is not None:
            given = [
                flag
                for flag, value in (
                    ("an experiment file", experiment_file),
                    ("--rules", rules),
                    ("--rule", rule),
                    ("--seats", seats),
                    ("--deals", deals),
                    ("--games", games),
                    ("--seed", seed),
                    ("--name", name),
                    ("--rows", rows),
                    ("--precision", precision),
                    ("--max-count", max_count),
                    ("--duplicate", duplicate),
                    ("--headline", headline),
                    ("--chunk-size", chunk_size),
                )
                if value
            ]
            if given:
                fail(
                    f"--resume takes the settings stored in the directory; drop {given[0]} "
                    "(only --workers, --backend and --address may change)"
                )
            _resume(resume, workers=workers, backend=backend, address=address, as_json=as_json)
            return
        if experiment_file is not None:
            for flag, value in (("--rules", rules), ("--rule", rule), ("--seats", seats)):
                if value:
                    fail(
                        f"{flag} cannot be combined with an experiment file: edit the file, "
                        "or use `rummy sweep` for a grid from the command line"
                    )
            from sim import tune as tune_api

            if tune_api.is_tune_file(experiment_file):  # a [tune] file: `rummy tune --config`
                _run_tune_file(
                    experiment_file,
                    deals=deals,
                    games=games,
                    seed=seed,
                    duplicate=duplicate,
                    workers=workers,
                    out=out,
                    as_json=as_json,
                    unused=(
                        ("--name", name),
                        ("--rows", rows),
                        ("--precision", precision),
                        ("--max-count", max_count),
                        ("--headline", headline),
                        ("--chunk-size", chunk_size),
                        ("--backend ray", backend == Backend.ray),
                    ),
                )
                return
            experiment = X.load_experiment(experiment_file)
            changes: dict[str, Any] = {}
            if deals is not None or games is not None:
                changes["mode"] = "deals" if deals is not None else "games"
                changes["count"] = deals if deals is not None else games
                if changes["mode"] != experiment.mode:
                    changes["headline"] = ""  # the mode's default headline
                if experiment.max_count is not None and experiment.max_count < changes["count"]:
                    changes["max_count"] = None
            overrides: tuple[tuple[str, Any], ...] = (
                ("seed", seed),
                ("name", name),
                ("rows", rows.value if rows else None),
                ("precision", precision),
                ("max_count", max_count),
                ("duplicate", duplicate),
                ("headline", headline.value if headline else None),
                ("chunk_size", chunk_size),
            )
            for key, value in overrides:
                if value is not None:
                    changes[key] = value
            if changes:
                experiment = experiment.replace(**changes)
            drawn = experiment.seed is None
            if drawn:
                experiment = experiment.replace(seed=runner.new_seed())
            _run_experiment(
                experiment,
                workers=workers,
                out=out,
                backend=backend,
                address=address,
                drawn=drawn,
                as_json=as_json,
            )
            return
        if not seats:
            fail(
                "give a line-up with --seats (e.g. greedy:knock_at=7/simple), or an "
                "experiment file (e.g. experiments/gin_knock_threshold.toml)"
            )
        preset = rules or "gin"
        mode = "games" if games is not None else "deals"
        count = games if games is not None else (deals if deals is not None else 100_000)
        drawn = seed is None
        the_seed = runner.new_seed() if seed is None else seed
        if precision is not None or duplicate or headline is not None:
            data: dict[str, Any] = {
                "name": name or "default",
                "seed": the_seed,
                mode: count,
                "rules": {"preset": preset, **_overrides(rule)},
                "seats": list(seats),
                "duplicate": bool(duplicate),
                "rows": rows.value if rows else "hands",
            }
            extra: tuple[tuple[str, Any], ...] = (
                ("precision", precision),
                ("max_count", max_count),
                ("chunk_size", chunk_size),
                ("headline", headline.value if headline else None),
            )
            for key, value in extra:
                if value is not None:
                    data[key] = value
            experiment = X.Experiment.from_dict(data, source="rummy run")
            _run_experiment(
                experiment,
                workers=workers,
                out=out,
                backend=backend,
                address=address,
                drawn=drawn,
                as_json=as_json,
            )
            return
        if max_count is not None:
            fail("--max-count needs --precision")
        ruleset = load_rules(preset, rule)
        config = runner.RunConfig(
            rules=ruleset,
            lineup=tuple(seats),
            count=count,
            mode=mode,  # type: ignore[arg-type]
            experiment=name or "default",
            seed=the_seed,
            chunk_size=chunk_size,
            workers=workers,
            backend=backend.value,  # type: ignore[arg-type]
            address=address,
            rows=rows.value if rows else "hands",  # type: ignore[arg-type]
            out=out,
            command=_command(),
        )
        _single_run(config, drawn, as_json)


def _check_common(
    address: str | None,
    backend: Backend,
    deals: int | None,
    games: int | None,
    precision: float | None,
) -> None:
    if address is not None and backend != Backend.ray:
        fail("--address needs --backend ray")
    if deals is not None and games is not None:
        fail("give --deals or --games, not both")
    if precision is not None and not precision > 0:
        fail(f"--precision {precision:g} is not allowed; give a half-width > 0")


def _overrides(items: list[str] | None) -> dict[str, Any]:
    return dict(parse_overrides(items or []))


# --- rummy sweep -----------------------------------------------------------------------------


def sweep(
    seats: SeatsOption = None,
    grid: Annotated[
        list[str] | None,
        typer.Option(
            "--grid",
            "-g",
            help="A grid key and its values: k=0..10, k=0..10:2 (step), k=1,3,7, or a rule "
            "parameter rule.undercut_bonus=10,25 (repeatable: every combination is a setting).",
            show_default=False,
        ),
    ] = None,
    rules: Annotated[
        list[str] | None,
        typer.Option(
            "--rules",
            help="Rule preset (default: gin); give it more than once to compare presets "
            "(each becomes a variant).",
            show_default=False,
        ),
    ] = None,
    rule: RuleOverrides = None,
    deals: DealsOption = None,
    games: GamesOption = None,
    seed: SeedOption = None,
    duplicate: DuplicateOption = None,
    headline: HeadlineOption = None,
    precision: PrecisionOption = None,
    max_count: MaxCountOption = None,
    workers: WorkersOption = None,
    out: OutOption = Path("results"),
    name: NameOption = None,
    backend: BackendOption = Backend.local,
    address: AddressOption = None,
    rows: RowsOption = None,
    chunk_size: ChunkOption = None,
    as_json: JsonOption = False,
) -> None:
    """Run a grid (strategy parameters x rule parameters) on common deals, mark the best
    setting and say whether it beats the runner-up (Holm-adjusted paired t tests).

    Example: rummy sweep --rules gin --seats 'greedy:knock_at={k}/simple' --grid k=0..10
    """
    with _one_line_errors():
        _check_common(address, backend, deals, games, precision)
        if not seats:
            fail("give a line-up template with --seats, e.g. 'greedy:knock_at={k}/simple'")
        if not grid:
            fail("give at least one --grid key=values, e.g. --grid k=0..10")
        table: dict[str, Any] = {}
        for item in grid:
            key, eq, text = item.partition("=")
            key = key.strip()
            if not eq or not key or not text.strip():
                fail(f"bad --grid {item!r}: write key=values, e.g. k=0..10 or rule.gin_bonus=20,25")
            if key in table:
                fail(f"bad --grid {item!r}: {key} is given more than once")
            try:
                table[key] = X.parse_grid_values(text)
            except ValueError as error:
                fail(f"bad --grid {item!r}: {error}")
        mode = "games" if games is not None else "deals"
        count = games if games is not None else (deals if deals is not None else 100_000)
        presets = list(dict.fromkeys(rules or ["gin"]))
        data: dict[str, Any] = {
            "name": name or "sweep",
            mode: count,
            "rules": {"preset": presets[0], **_overrides(rule)},
            "seats": list(seats),
            "grid": table,
            "duplicate": bool(duplicate),
            "rows": rows.value if rows else "hands",
        }
        if len(presets) > 1:
            data["variants"] = {p: {"preset": p} for p in presets}
        for key, value in (
            ("seed", seed),
            ("headline", headline.value if headline else None),
            ("precision", precision),
            ("max_count", max_count),
            ("chunk_size", chunk_size),
        ):
            if value is not None:
                data[key] = value
        if max_count is not None and precision is None:
            fail("--max-count needs --precision")
        experiment = X.Experiment.from_dict(data, source="rummy sweep")
        drawn = experiment.seed is None
        if drawn:
            experiment = experiment.replace(seed=runner.new_seed())
        _run_experiment(
            experiment,
            workers=workers,
            out=out,
            backend=backend,
            address=address,
            drawn=drawn,
            as_json=as_json,
        )


# --- rummy chart / rummy report -------------------------------------------------------------


ResultsArgument = Annotated[
    Path,
    typer.Argument(
        help="An experiment directory (results/NAME), a run directory (results/NAME/RUN_ID), "
        "or one of their Parquet files.",
        show_default=False,
    ),
]


def _results_dir(path: Path) -> Path:
    if path.is_file():
        return (
            path.parent if path.parent.joinpath(X.EXPERIMENT_JSON).exists() else path.parent.parent
        )
    return path


def chart(
    path: ResultsArgument,
    kind: Annotated[
        list[ChartKind] | None,
        typer.Option(
            "--kind",
            "-k",
            help="Chart to draw (repeatable) (default: every chart that fits the results).",
            show_default=False,
        ),
    ] = None,
    out: Annotated[
        Path | None,
        typer.Option(
            "--out",
            "-o",
            parser=path_text,
            help="Folder for the files (default: PATH/charts).",
            show_default=False,
        ),
    ] = None,
) -> None:
    """Draw charts (PNG and SVG) of an experiment or a run: the knock-threshold curve,
    threshold x variant heatmap, outcome mix per setting, distribution of hand length."""
    with _one_line_errors():
        data = X.load_results(path)
        target = out if out is not None else _results_dir(path) / "charts"
        kinds = [k.value for k in kind] if kind else None
        written = X.save_charts(data, target, kinds)
        console = _console()
        for file in written:
            console.print(str(file))


def report(
    path: ResultsArgument,
    out: Annotated[
        Path | None,
        typer.Option(
            "--out",
            "-o",
            parser=path_text,
            help="The HTML file (default: PATH/report.html).",
            show_default=False,
        ),
    ] = None,
) -> None:
    """Write a self-contained HTML report (charts embedded, tables, config, provenance)."""
    with _one_line_errors():
        data = X.load_results(path)
        target = out if out is not None else _results_dir(path) / "report.html"
        written = X.write_experiment_report(data, target)
        _console().print(str(written))


def _run_tune_file(
    path: Path,
    *,
    deals: int | None,
    games: int | None,
    seed: int | None,
    duplicate: bool | None,
    workers: int | None,
    out: Path,
    as_json: bool,
    unused: tuple[tuple[str, Any], ...],
) -> None:
    """``rummy run FILE`` for a tune file (a ``[tune]`` table): as ``rummy tune --config``."""
    from sim.cli.tune_cmd import run_tune_file

    for flag, value in unused:
        if value:
            fail(f"{flag} does not apply to a tune file ({path}); see `rummy tune --help`")
    run_tune_file(
        path,
        deals=deals,
        games=games,
        seed=seed,
        duplicate=duplicate,
        workers=workers,
        out=out,
        as_json=as_json,
    )
