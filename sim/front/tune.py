"""The tune's front: ``rummy tune`` and ``rummy.tune``, declared once.

A strategy's parameters searched on common deals (``sim.study.tune``): every setting in
seat 0 against the same line-up on the same deals; the best with its 95% CI, its paired
difference with the default parameters, a confirmation on fresh deals and whether it
beats the runner-up (Holm-adjusted). A tune comes from arguments, from a tune file
(``config``, which ``rummy run FILE`` plays too), or from an interrupted tune's folder
(``resume``: plays only what is missing). Examples::

    rummy tune greedy --param knock_at=0..10 --against simple --rules gin --duplicate
    rummy tune --config experiments/tune_schedule_gin.toml
    rummy tune --resume results/tune/3f9c2a1b4d5e
    rummy.tune("greedy", "knock_at=0..10", against="simple", rules="gin", duplicate=True)
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Annotated, Any, cast

import typer
from rich.markup import escape
from rich.table import Table

from sim.front import params
from sim.front.declare import Front, Param, ParamsError, flag_of, literal, spelled
from sim.limits import MAX_COUNT
from sim.present.terminal import Said, ci, console, folder
from sim.rules import DEFAULT_PRESET
from sim.sizes import DEFAULT_DEALS
from sim.stats import format_p, p_clause
from sim.store import StorePath
from sim.study.kinds import TUNE
from sim.study.quantities import points_unit
from sim.study.search import DEFAULT_MAX_EVALS, SEARCHES, label_of
from sim.study.session import Session
from sim.study.tune import SETTINGS_FILE, TuneResult
from sim.study.tune_request import TuneRequest

__all__ = ["FRONT", "MAX_ROWS"]

MAX_ROWS = 25  # settings printed; the rest are in settings.parquet

EXAMPLES = """Examples:

rummy tune greedy --param knock_at=0..10 --against simple --rules gin --duplicate

rummy tune schedule --param a=4..14 --param b=0..1:0.1 --against simple --rules gin-classic

rummy tune greedy --param knock_at=0..40:4 --against greedy --rules knock-rummy --rule players=4

rummy tune --config experiments/tune_schedule_gin.toml"""

# What a tune file or a folder to resume states: given with one, refused.
SPEC = ("strategy", "param", "against", "rules", "rule")
SETTINGS = (*SPEC, "config", "deals", "games", "duplicate", "max_evals", "search", "confirm")


def _strategy() -> Param:
    help = "The strategy to tune (seat 0), optionally with parameters held fixed: greedy, " \
        "schedule:min_gain=2."  # fmt: skip
    argument = typer.Argument(help=help, metavar="STRATEGY", show_default=False)
    return Param("strategy", help, Annotated[str | None, argument],
                 lambda v: None if v is None else params.text(v, "'greedy'"), "str | None",
                 argument=True)  # fmt: skip


def _ranges() -> Param:
    """The tuned parameters' values: ``--param knock_at=0..10`` (repeatable) at the
    command line; text or a list of texts in the notebook."""
    help = (
        "A parameter and its values: knock_at=0..10, knock_at=0..10:2 (step), b=0..1:0.1 "
        "(float step) or a=8,9,10; several: the space is every combination"
    )
    option = typer.Option("--param", "-p", help=help + " (repeatable).", show_default=False)

    def read(value: Any) -> tuple[str, ...]:
        ranges = params.texts(value, "knock_at=0..10")
        return (ranges,) if isinstance(ranges, str) else ranges

    return Param("param", help + " (a list).", Annotated[list[str] | None, option],
                 lambda v: () if v is None else read(v), "str | Sequence[str] | None",
                 parse=lambda v: tuple(v or ()))  # fmt: skip


def _choice_of_search() -> Param:
    help = "auto (grid when it fits {max_evals}), grid or coordinate (default: auto)."

    def read(value: Any) -> str:
        if value not in SEARCHES:
            raise ValueError(f"choose one of: {', '.join(SEARCHES)}")
        return str(value)

    option = typer.Option("--search", callback=params.usage(read),
                          help=spelled(help, flag_of), show_default=False)  # fmt: skip
    return Param("search", help, Annotated[str | None, option],
                 lambda v: None if v is None else read(v), "str | None")  # fmt: skip


def _confirm() -> Param:
    """0 (no replay) or a sample an interval can be drawn from: not 1."""
    help = (
        "Replay the best and the default on this many fresh deals (another seed) for an "
        "unbiased difference; 0: no replay (default: as many as {deals})."
    )

    def read(value: Any) -> int:
        if params.whole(value, 0) == 1:
            raise ValueError("1 is not allowed; give 0 (no replay) or at least 2")
        return int(value)

    callback = params.at_most(MAX_COUNT, params.usage(read))
    option = typer.Option("--confirm", min=0, callback=callback, help=spelled(help, flag_of),
                          show_default=False)  # fmt: skip
    return Param("confirm", help, Annotated[int | None, option],
                 lambda v: None if v is None else read(v), "int | None")  # fmt: skip


PARAMS = (
    _strategy(),
    _ranges(),
    params.lineup("against", "The other seats: one spec for all (simple), or one per seat "
                  "joined by '/' (greedy/greedy/simple) (default: the tuned strategy with its "
                  "defaults).", None),
    params.preset("rules", f"Rule preset (default: {DEFAULT_PRESET}).", default=None),
    params.overrides("rule", short="-r"),
    params.count("deals", 2, f"Single deals per setting (default: {DEFAULT_DEALS['tune']:,}).",
                 short="-n"),
    params.games(2, "setting"),
    params.maybe("duplicate", "Also play every deal with the seats rotated, so seat luck cancels."),
    params.number("max_evals", "Settings to play at most: a space this small is played in full "
                  f"(grid), a larger one by coordinate descent (default: {DEFAULT_MAX_EVALS}).",
                  None, 1),
    _choice_of_search(),
    _confirm(),
    params.path("config", "A tune file (TOML with a tune table: strategy, against, params), "
                "e.g. experiments/tune_schedule_gin.toml; the options given win over it."),
    params.path("resume", "Finish an interrupted tune's folder (results/tune/ID): plays only "
                "what is missing.", uri=True),
    params.seed(),
    params.flag("chart", "Save the chart as PNG and SVG.", default=True),
)  # fmt: skip


@dataclass(frozen=True)
class Plan:
    """The tune to play (a resume: the one stored in its folder), and whether to draw
    its chart."""

    request: TuneRequest
    resume: StorePath | None
    chart: bool


def _stored(values: Mapping[str, Any]) -> TuneRequest | None:
    """The request a folder to resume holds, or None (no ``resume`` given)."""
    from sim.study.tune import stored_request

    if values["resume"] is None:
        return None
    with params.refused("resume", values["resume"]):
        return stored_request(values["resume"])


def _stored_seed(values: Mapping[str, Any]) -> int | None:
    """The seed of the tune to resume (which takes no setting: each is refused before
    its folder is read), or of the tune file where it names one."""
    if values["resume"] is not None:
        params.resumed_alone(values, FRONT.given(values, (*SETTINGS, "seed")))
        return cast(TuneRequest, _stored(values)).seed
    return None if values["config"] is None else params.seed_in_file(values["config"])


def _request(values: Mapping[str, Any]) -> Plan:
    from sim.study.search import parse_param
    from sim.study.tune_request import AGENT_NOT_TUNED, load_tune_file, make_request
    from strategies import parse_seat
    from strategies.agent import is_agent_spec

    # both given: refused first
    count, mode = params.size(TUNE.name, values["deals"], values["games"])
    stored = _stored(values)  # its settings refused with the seed (_stored_seed)
    if stored is not None:
        return Plan(stored, values["resume"], values["chart"])
    if values["config"] is not None:
        given = FRONT.given(values, SPEC)
        if given is not None:
            raise ParamsError(f"{{{given}}} cannot be combined with {{config}}: edit the file")
        sized = {} if values["deals"] is None and values["games"] is None else {
            "count": count, "mode": mode}  # fmt: skip
        chosen = {k: values[k] for k in ("seed", "duplicate", "max_evals", "search", "confirm")}
        with params.refused("config", values["config"]):
            request = load_tune_file(values["config"], **chosen, **sized)
        return Plan(request, None, values["chart"])
    strategy = values["strategy"]
    if strategy is None:
        raise ParamsError("none given; give the strategy to tune and its {param} ranges (e.g. "
                          "greedy with knock_at=0..10), or {config}", ("strategy", "config"),
                          (None, None))  # fmt: skip
    if not values["param"]:
        raise ParamsError("give at least one NAME=VALUES to tune, e.g. knock_at=0..10", "param",
                          None)  # fmt: skip
    if is_agent_spec(strategy):
        raise ParamsError(literal(AGENT_NOT_TUNED.format(strategy=strategy)), "strategy", strategy)
    rules = params.rule_set(
        {"rules": values["rules"] or DEFAULT_PRESET, "rule": values["rule"]}, "rules", "rule"
    )
    with params.refused("strategy", strategy):
        base, _ = parse_seat(strategy, rules=rules)
    space = []
    for text in values["param"]:
        try:
            space.append(parse_param(base, text, where=""))
        except ValueError as error:  # which of the ranges, and why
            why = f"{literal(repr(text))}: {literal(str(error))}"
            raise ParamsError(why, "param", values["param"]) from None
    try:  # its refusals name what they refuse (against='a/b/c' gives 3 seats ...)
        request = make_request(
            strategy, space,
            against=values["against"] or strategy.partition(":")[0],
            rules=rules, count=count, mode=mode, seed=values["seed"],
            duplicate=bool(values["duplicate"]),
            max_evals=values["max_evals"] or DEFAULT_MAX_EVALS,
            search=values["search"] or "auto",
            confirm=count if values["confirm"] is None else values["confirm"],
        )  # fmt: skip
    except ValueError as error:
        raise ParamsError(literal(str(error))) from None
    return Plan(request, None, values["chart"])


@dataclass(frozen=True)
class Tuned:
    """A tune played, and the charts drawn of it."""

    result: TuneResult
    charts: tuple[StorePath, ...]


def _play(plan: Plan, session: Session) -> Tuned:
    from sim.present.tune import save_chart
    from sim.study.tune import resume, tune

    def say(text: str) -> None:
        if session.progress is not None:
            session.progress(Said(text))

    def on_batch(what: str, n: int) -> None:
        say(f"{what}: {n} new setting{'s' if n != 1 else ''}")

    options: dict[str, Any] = {
        "on_batch": on_batch,
        "on_start": lambda _, directory: say(f"directory: {folder(directory)}"),
    }
    if plan.resume is not None:
        result = resume(plan.resume, session, **options)
    else:
        result = tune(plan.request, session, **options)
    return Tuned(result, save_chart(result) if plan.chart else ())


def _announce(plan: Plan, executor: Any) -> str:
    req = plan.request
    sizes = ", ".join(f"{r.name}: {len(r)} value{'s' if len(r) > 1 else ''}" for r in req.space)
    how = (
        "every setting (grid)"
        if req.method == "grid"
        else f"coordinate descent, at most {req.max_evals} settings"
    )
    seating = f" x {req.rotations} seatings (duplicate)" if req.duplicate else ""
    tuned, others = req.shown()
    return escape(
        f"tune {tuned} vs {'/'.join(others)} under {req.rules.name} ({req.players} players): "
        f"{req.size:,} settings ({sizes}); {how}; {req.count:,} {req.mode} per setting"
        f"{seating}, {executor.describe()}"
    )


def _told(done: Tuned, as_json: bool) -> None:
    from sim.present.experiment_text import tell_hands

    tell_hands(done.result.hands_played, done.result.elapsed, as_json)


def _record(done: Tuned) -> dict[str, Any]:
    from sim.study.tune import load_tune

    unit = points_unit(done.result.request.mode)  # the metric: net points (or final score)
    return load_tune(done.result.directory) | {
        "charts": [str(p) for p in done.charts],
        "units": {"best": unit, "vs_default": unit},
    }


def _show(done: Tuned) -> None:
    """The settings table (best first), the search, the verdicts, where the results are."""
    out = console()
    result, req = done.result, done.result.request
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
    for chart_path in done.charts:
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


def _notebook(done: Tuned) -> Any:
    from rummy.results import TuneResult as Shown

    return Shown.of(done.result.to_dict(), done.result.settings, done.result.directory,
                    done.result)  # fmt: skip


FRONT = Front(
    kind=TUNE,
    summary="Search a strategy's parameters on common deals: every setting in seat 0 against "
    "the same line-up on the same deals; reports the best with its 95% CI, its paired "
    "difference with the default parameters and whether it beats the runner-up "
    "(Holm-adjusted).",
    params=PARAMS,
    positional=2,
    request=_request,
    play=_play,
    show=_show,
    record=_record,
    notebook=_notebook,
    epilog=EXAMPLES,
    announce=_announce,
    told=_told,
    stored_seed=_stored_seed,
)
