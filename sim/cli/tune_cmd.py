"""``rummy tune``: search a strategy's parameters on common deals (``sim.study.tune``).

Examples::

    rummy tune greedy --param knock_at=0..10 --against simple --rules gin --duplicate
    rummy tune schedule --param a=4..14 --param b=0..1:0.1 --against simple --rules gin
    rummy tune greedy --param knock_at=0..40:4 --against greedy --rules knock-rummy \\
        --rule players=4 --duplicate
    rummy tune --config experiments/tune_schedule_gin.toml     # also: rummy run FILE
    rummy tune --resume results/tune/3f9c2a1b4d5e               # finish an interrupted tune

Prints the seed, one line per batch of settings, then the settings played (mean net
points with 95% t intervals), the best, its paired difference with the default
parameters, the confirmation on fresh deals and the Holm-adjusted verdict against the
runner-up; ``--json`` prints ``tune.json`` instead. Every mistake is one line on stderr,
before anything is written.
"""

from __future__ import annotations

from pathlib import Path
from typing import Annotated, Any

import typer
from rich.markup import escape
from rich.table import Table

from sim.cli.options import (
    MAX_COUNT,
    AddressOption,
    Backend,
    BackendOption,
    JsonOption,
    OutOption,
    RuleOverrides,
    SeedOption,
    WorkersOption,
    at_most,
    path_text,
    rules_of,
)
from sim.cli.output import (
    ProgressView,
    chatter,
    ci,
    command_line,
    console,
    fail,
    folder,
    print_json,
    seed_line,
    study_size,
)
from sim.cli.runner import executor_of, refuse_on_resume
from sim.present.tune import save_chart
from sim.rules import DEFAULT_PRESET
from sim.sizes import DEFAULT_DEALS
from sim.stats import format_p, p_clause
from sim.store import StorageError, StorePath, read_toml
from sim.study.execute import Executor
from sim.study.kinds import RESULTS_ROOT
from sim.study.quantities import points_unit
from sim.study.search import DEFAULT_MAX_EVALS, SEARCHES, label_of
from sim.study.tune import SETTINGS_FILE, TuneResult, load_tune
from sim.study.tune import resume as resume_tune
from sim.study.tune import tune as tune_api
from sim.study.tune_request import AGENT_NOT_TUNED, TuneRequest, load_tune_file, make_request
from strategies.agent import is_agent_spec

__all__ = ["run_tune_file", "tune"]

MAX_ROWS = 25  # settings printed; the rest are in settings.parquet

TUNE_EXAMPLES = """Examples:

rummy tune greedy --param knock_at=0..10 --against simple --rules gin --duplicate

rummy tune schedule --param a=4..14 --param b=0..1:0.1 --against simple --rules gin-classic

rummy tune greedy --param knock_at=0..40:4 --against greedy --rules knock-rummy --rule players=4

rummy tune --config experiments/tune_schedule_gin.toml"""


def _confirm(value: int | None) -> int | None:
    """0 (no replay) or a sample an interval can be drawn from: not 1."""
    if value == 1:
        raise typer.BadParameter("1 is not allowed; give 0 (no replay) or at least 2")
    return value


def _search(value: str | None) -> str | None:
    if value is not None and value not in SEARCHES:
        raise typer.BadParameter(f"{value!r} is not one of: {', '.join(SEARCHES)}")
    return value


app = typer.Typer()


@app.command("tune", epilog=TUNE_EXAMPLES)
def tune(
    strategy: Annotated[
        str | None,
        typer.Argument(
            help="The strategy to tune (seat 0), optionally with parameters held fixed: "
            "greedy, schedule:min_gain=2.",
            show_default=False,
        ),
    ] = None,
    param: Annotated[
        list[str] | None,
        typer.Option(
            "--param",
            "-p",
            help="A parameter and its values: knock_at=0..10, knock_at=0..10:2 (step), "
            "b=0..1:0.1 (float step) or a=8,9,10 (repeatable: the space is every combination).",
            show_default=False,
        ),
    ] = None,
    against: Annotated[
        str | None,
        typer.Option(
            "--against",
            help="The other seats: one spec for all (simple), or one per seat joined by '/' "
            "(greedy/greedy/simple) (default: the tuned strategy with its defaults).",
            show_default=False,
        ),
    ] = None,
    rules: Annotated[
        str | None,
        typer.Option(
            "--rules", help=f"Rule preset (default: {DEFAULT_PRESET}).", show_default=False
        ),
    ] = None,
    rule: RuleOverrides = None,
    deals: Annotated[
        int | None,
        typer.Option(
            "--deals",
            "-n",
            min=2,
            callback=at_most(MAX_COUNT),
            help=f"Single deals per setting (default: {DEFAULT_DEALS['tune']:,}).",
            show_default=False,
        ),
    ] = None,
    games: Annotated[
        int | None,
        typer.Option(
            "--games",
            min=2,
            callback=at_most(MAX_COUNT),
            help="Whole games per setting instead of deals; the metric becomes the net "
            "final score per game.",
            show_default=False,
        ),
    ] = None,
    duplicate: Annotated[
        bool | None,
        typer.Option(
            "--duplicate/--no-duplicate",
            help="Also play every deal with the seats rotated, so seat luck cancels.",
            show_default=False,
        ),
    ] = None,
    max_evals: Annotated[
        int | None,
        typer.Option(
            "--max-evals",
            min=1,
            callback=at_most(MAX_COUNT),
            help=f"Settings to play at most: a space this small is played in full (grid), a "
            f"larger one by coordinate descent (default: {DEFAULT_MAX_EVALS}).",
            show_default=False,
        ),
    ] = None,
    search: Annotated[
        str | None,
        typer.Option(
            "--search",
            callback=_search,
            help="auto (grid when it fits --max-evals), grid or coordinate (default: auto).",
            show_default=False,
        ),
    ] = None,
    confirm: Annotated[
        int | None,
        typer.Option(
            "--confirm",
            min=0,
            callback=at_most(MAX_COUNT, _confirm),
            help="Replay the best and the default on this many fresh deals (another seed) for "
            "an unbiased difference; 0: no replay (default: as many as --deals).",
            show_default=False,
        ),
    ] = None,
    config: Annotated[
        Path | None,
        typer.Option(
            "--config",
            help="A tune file (TOML with a tune table: strategy, against, params), "
            "e.g. experiments/tune_schedule_gin.toml.",
            show_default=False,
        ),
    ] = None,
    resume: Annotated[
        Path | None,
        typer.Option(
            "--resume",
            parser=path_text,
            help="Finish an interrupted tune directory (results/tune/ID): plays only what is "
            "missing.",
            show_default=False,
        ),
    ] = None,
    seed: SeedOption = None,
    workers: WorkersOption = None,
    out: OutOption = Path(RESULTS_ROOT),
    backend: BackendOption = Backend.local,
    address: AddressOption = None,
    chart: Annotated[
        bool, typer.Option("--chart/--no-chart", help="Save the chart as PNG and SVG.")
    ] = True,
    as_json: JsonOption = False,
) -> None:
    """Search a strategy's parameters on common deals: every setting in seat 0 against
    the same line-up on the same deals; reports the best with its 95% CI, its paired
    difference with the default parameters and whether it beats the runner-up
    (Holm-adjusted)."""
    executor = executor_of(workers, backend, address)
    study_size("tune", deals, games)  # both given: refused before anything else
    spec_flags = (
        ("STRATEGY", strategy),
        ("--param", param),
        ("--against", against),
        ("--rules", rules),
        ("--rule", rule),
    )
    if resume is not None:
        refuse_on_resume(
            [*spec_flags, ("--config", config), ("--deals", deals), ("--games", games),
             ("--duplicate", duplicate), ("--max-evals", max_evals), ("--search", search),
             ("--confirm", confirm), ("--seed", seed)],
            "--workers, --backend, --address, --chart and --json",
        )  # fmt: skip
        _run(None, executor, out=out, chart=chart, as_json=as_json, resume=resume, drawn=False)
        return
    if config is not None:
        given = [f for f, v in spec_flags if v]
        if given:
            fail(f"{given[0]} cannot be combined with --config: edit the file")
        run_tune_file(
            config,
            deals=deals,
            games=games,
            seed=seed,
            duplicate=duplicate,
            max_evals=max_evals,
            search=search,
            confirm=confirm,
            executor=executor,
            out=out,
            chart=chart,
            as_json=as_json,
        )
        return
    if strategy is None:
        fail(
            "give the strategy to tune and its --param ranges (e.g. rummy tune greedy "
            "--param knock_at=0..10 --against simple), or --config FILE"
        )
    if not param:
        fail("give at least one --param NAME=VALUES to tune, e.g. --param knock_at=0..10")
    rule_set = rules_of(rules or DEFAULT_PRESET, rule)
    count, mode = study_size("tune", deals, games)
    drawn = seed is None
    if is_agent_spec(strategy):
        fail(AGENT_NOT_TUNED.format(strategy=strategy))
    request = make_request(
        strategy,
        param,
        against=against if against is not None else strategy.partition(":")[0],
        rules=rule_set,
        count=count,
        mode=mode,
        seed=seed,
        duplicate=bool(duplicate),
        max_evals=max_evals if max_evals is not None else DEFAULT_MAX_EVALS,
        search=search or "auto",
        confirm=confirm if confirm is not None else count,
    )
    _run(request, executor, out=out, chart=chart, as_json=as_json, drawn=drawn)


def run_tune_file(
    path: Path,
    *,
    deals: int | None = None,
    games: int | None = None,
    seed: int | None = None,
    duplicate: bool | None = None,
    max_evals: int | None = None,
    search: str | None = None,
    confirm: int | None = None,
    executor: Executor,
    out: Path = Path(RESULTS_ROOT),
    chart: bool = True,
    as_json: bool = False,
) -> None:
    """Run a tune file; flags given win over the file (``rummy tune --config`` and
    ``rummy run FILE`` both come here)."""
    overrides: dict[str, Any] = {
        "seed": seed,
        "duplicate": duplicate,
        "max_evals": max_evals,
        "search": search,
        "confirm": confirm,
    }
    if deals is not None or games is not None:
        overrides["mode"] = "deals" if deals is not None else "games"
        overrides["count"] = deals if deals is not None else games
    request = load_tune_file(path, **overrides)
    drawn = seed is None and not _file_has_seed(path)
    _run(request, executor, out=out, chart=chart, as_json=as_json, drawn=drawn)


def _file_has_seed(path: Path) -> bool:
    try:
        return "seed" in read_toml(path)
    except StorageError:
        return False


def _run(
    request: TuneRequest | None,
    executor: Executor,
    *,
    out: Path,
    chart: bool,
    as_json: bool,
    drawn: bool,
    resume: Path | None = None,
) -> None:
    say = chatter(as_json)

    def on_start(req: TuneRequest, directory: Path) -> None:
        sizes = ", ".join(f"{r.name}: {len(r)} value{'s' if len(r) > 1 else ''}" for r in req.space)
        how = (
            "every setting (grid)"
            if req.method == "grid"
            else f"coordinate descent, at most {req.max_evals} settings"
        )
        seating = f" x {req.rotations} seatings (duplicate)" if req.duplicate else ""
        tuned, others = req.shown()
        say.print(
            escape(
                f"tune {tuned} vs {'/'.join(others)} under {req.rules.name} "
                f"({req.players} players): {req.size:,} settings ({sizes}); {how}; "
                f"{req.count:,} {req.mode} per setting{seating}, "
                f"{executor.describe()}"
            )
        )
        say.print(seed_line(req.seed, drawn), markup=False)
        say.print(escape(f"directory: {folder(directory)}"))

    with ProgressView("tune") as view:

        def on_batch(what: str, n: int) -> None:
            view.bar.console.print(escape(f"{what}: {n} new setting{'s' if n != 1 else ''}"))

        options: dict[str, Any] = {
            "command": command_line(),
            "progress": view.progress,
            "on_batch": on_batch,
            "on_start": on_start,
        }
        if resume is not None:
            result = resume_tune(resume, executor, **options)
        else:
            assert request is not None
            result = tune_api(request, executor, out=out, **options)
    charts = save_chart(result) if chart else ()
    unit = points_unit(result.request.mode)  # tune's metric: net points (or final score)
    record = load_tune(result.directory) | {
        "charts": [str(p) for p in charts],
        "units": {"best": unit, "vs_default": unit},
    }
    say.print(
        f"{result.hands_played:,} hands played in {result.elapsed:.1f} s"
        + (
            f" ({result.hands_played / result.elapsed:,.0f} hands/s)"
            if result.hands_played and result.elapsed > 0
            else ""
        )
    )
    if as_json:
        print_json(record | {"seed_drawn": drawn})
        return
    print_tune(result, charts, console())


def print_tune(result: TuneResult, charts: tuple[StorePath, ...], out: Any) -> None:
    """The settings table (best first), the search, the verdicts, where the results are."""
    req = result.request
    table, hidden = _settings_table(result)
    out.print(table)
    if hidden > 0:
        out.print(f"({hidden} more settings in {result.directory / SETTINGS_FILE})")
    s = result.search
    if s.method == "coordinate":
        stop = (
            "converged (a whole round moved nothing)"
            if s.converged
            else "stopped by --max-evals"
            if s.budget_exhausted
            else f"stopped after {s.rounds} rounds"
        )
        path = " -> ".join(label_of(req.space, p) for p in s.path)
        out.print(
            escape(
                f"search: coordinate descent from the default, {len(s.values)} of {req.size:,} "
                f"settings played in {s.rounds} round{'s' if s.rounds != 1 else ''}, {stop}; "
                f"path: {path}"
            )
        )
    else:
        out.print(f"search: every setting of the grid ({len(s.values)})")
    best = result.best_interval
    out.print(
        escape(
            f"best: {result.best_label} ({req.seat_spec(result.best)}): "
            f"{ci(best.estimate, best.low, best.high, 3)} {result.metric}"
        )
    )
    d = result.vs_default
    if result.best == result.default:
        out.print("the default parameters are the best setting played")
    else:
        out.print(
            escape(
                f"best - default ({result.default_label}): "
                f"{ci(d.mean_diff, d.ci.low, d.ci.high, 3)} (95% paired t on the same deals; "
                f"optimistic: the best was picked on them), {p_clause(d.p_value)}"
            )
        )
    c = result.confirmation
    if c is not None:
        out.print(
            escape(
                f"confirmed on {req.confirm:,} fresh {req.mode} (seed {result.confirm_seed}): "
                f"best - default {ci(c.mean_diff, c.ci.low, c.ci.high, 3)} (95% paired t), "
                f"{p_clause(c.p_value)}"
            )
        )
    out.print(escape(result.verdict.summary()))
    for name in result.on_edge():
        out.print(
            escape(
                f"note: the best {name} is the first or last value of its range; where values "
                f"beyond it make sense, widen --param {name}"
            )
        )
    out.print(escape(f"results: {folder(result.directory)}"))
    for chart_path in charts:
        out.print(escape(f"chart: {chart_path}"))


def _settings_table(result: TuneResult) -> tuple[Table, int]:
    """The best settings (at most ``MAX_ROWS``, and the default), and how many are not shown."""
    req = result.request
    frame = result.settings.sort("mean", descending=True)
    shown = frame.head(MAX_ROWS)
    default_label = result.default_label
    if default_label not in shown["setting"].to_list():
        shown = shown.vstack(frame.filter(frame["setting"] == default_label))
    tuned, others = req.shown()
    table = Table(
        title=escape(
            f"{tuned} (seat 0) vs {'/'.join(others)} under {req.rules.name}: "
            f"{result.metric}, {req.count:,} {req.mode} per setting, same deals; 95% t intervals"
        ),
        title_justify="left",
    )
    table.add_column("")
    table.add_column("setting")
    table.add_column(f"net {points_unit(req.mode)}", justify="right")  # 95% t: the title
    table.add_column("vs best", justify="right")
    table.add_column("Holm p", justify="right")
    table.add_column("vs default", justify="right")
    for r in shown.iter_rows(named=True):
        mark = "★" if r["best"] else ""
        name = r["setting"] + (" (default)" if r["default"] else "")
        if not r["candidate"]:
            name += ", not in the space"
        table.add_row(
            mark,
            escape(name),
            escape(ci(r["mean"], r["low"], r["high"], 3)),
            "" if r["best"] else ci(r["diff_vs_best"], None, None, 3, sign=True),
            format_p(r["holm_p"]),
            ci(r["diff_vs_default"], None, None, 3, sign=True),
        )
    return table, frame.height - shown.height
