"""The notebook API: one function per common study, each over its ``sim.study`` driver.

Each function checks its input (a one-line ``ValueError`` before anything is played or
written), plays on an ``Executor`` (default: threads, one per CPU), shows a progress bar
while it plays (rich, in a terminal or a notebook; ``progress=False`` for none), writes
the same folders as the ``rummy`` command under ``out`` (default ``results``, as the
command: the same call again reads back what is done instead of playing it), and returns
a typed result of :mod:`rummy.results`: estimates with intervals and units, points in
game points, cards as text. docs/PYTHON.md shows each in use.
"""

from __future__ import annotations

import contextlib
import os
from collections.abc import Callable, Iterator, Mapping, Sequence
from typing import Any

from rummy.results import (
    POINTS_PER_HAND,
    SHARE_OF_HANDS,
    Action,
    Advice,
    Comparison,
    Estimate,
    Pairing,
    PlayResult,
    SeatResult,
    SettingResult,
    StudyResult,
    TournamentResult,
    TuneResult,
)
from sim.rules import RuleSet, get_rules
from sim.store import StorePath
from sim.study.execute import LOCAL, Executor

__all__ = [
    "advise",
    "compare",
    "experiment",
    "load",
    "play",
    "strategy_chart",
    "sweep",
    "tournament",
    "tune",
]

Out = str | os.PathLike[str]
DEFAULT_OUT = "results"  # as the rummy command's --out


# --- what every study shares ----------------------------------------------------------------


@contextlib.contextmanager
def _progress(label: str, show: bool) -> Iterator[Any]:
    """The command line's progress bar (``sim.cli.output.ProgressView``: one look for a
    study, in a terminal or a notebook), or None when not shown."""
    if not show:
        yield None
        return
    from sim.cli.output import ProgressView

    with ProgressView(label) as view:
        yield view


def _callback(view: Any, phases: bool = False) -> Callable[[Any], None] | None:
    if view is None:
        return None
    return view.phase if phases else view.progress


def _size(deals: int | None, games: int | None, default: int) -> tuple[int, str]:
    """The count and mode of a study: ``deals=`` single hands or ``games=`` whole games."""
    if deals is not None and games is not None:
        raise ValueError(f"give deals or games, not both (deals={deals!r}, games={games!r})")
    if games is not None:
        return games, "games"
    return (deals if deals is not None else default), "deals"


def _rules(rules: str | RuleSet) -> RuleSet:
    return rules if isinstance(rules, RuleSet) else get_rules(rules)


def _call(name: str, **args: Any) -> str:
    """The call as provenance (stored where the command line stores its command)."""
    given = ", ".join(f"{k}={v!r}" for k, v in args.items() if v is not None)
    return f"rummy.{name}({given})"


def _units(mode: str) -> str:
    return "points per deal" if mode == "deals" else "points per game"


# --- one run ---------------------------------------------------------------------------------


def play(
    seats: str | Sequence[str],
    *,
    rules: str | RuleSet = "gin",
    deals: int | None = None,
    games: int | None = None,
    seed: int | None = None,
    name: str = "default",
    out: Out = DEFAULT_OUT,
    executor: Executor = LOCAL,
    progress: bool = True,
) -> PlayResult:
    """Play a line-up (``rummy run --seats``): per seat, points and net points per hand
    and the share of hands won, with 95% intervals; how hands ended.

    ``seats``: one spec per seat, ``"greedy:knock_at=7/simple"`` or a list (one spec
    fills every seat); ``deals`` single hands (default 100,000) or ``games`` whole games;
    ``seed`` None draws one (``result.seed``). Written to ``<out>/<name>/<run id>/``.
    """
    from sim.study import RunConfig, load_results, run

    count, mode = _size(deals, games, 100_000)
    lineup = seats if isinstance(seats, str) else tuple(seats)
    config = RunConfig(
        rules=_rules(rules), lineup=lineup, count=count, mode=mode, experiment=name, seed=seed,
        out=out,
        command=_call("play", seats=seats, rules=str(rules), deals=deals, games=games, seed=seed),
    )  # fmt: skip
    with _progress(name, progress) as view:
        done = run(config, executor, progress=_callback(view))
    return _play_result(load_results(done.run_dir), done.run_dir)


def _play_result(data: Any, directory: StorePath) -> PlayResult:
    row = data.summary.row(0, named=True)
    seats = tuple(
        SeatResult(
            seat=int(r["seat"]),
            strategy=r["strategy"],
            points=Estimate.of_row(r, "points", "points_low", "points_high", POINTS_PER_HAND, "t"),
            net=Estimate.of_row(r, "net", "net_low", "net_high", POINTS_PER_HAND, "t"),
            win_rate=Estimate.of_row(
                r, "win_rate", "win_low", "win_high", SHARE_OF_HANDS, "Wilson"
            ),
            knock_rate=float(r["knock_rate"]),
        )
        for r in data.seats.iter_rows(named=True)
    )
    outcomes = {
        r["outcome"]: Estimate.of_row(r, "share", "low", "high", SHARE_OF_HANDS, "Wilson")
        for r in data.outcomes.iter_rows(named=True)
    }
    return PlayResult(
        directory=directory,
        seed=int(data.record["seed"]),
        rules=row["rules"],
        lineup=tuple(s.strategy for s in seats),
        mode=data.mode,
        count=int(row["units"]),
        hands=int(row["hands"]),
        seats=seats,
        outcomes=outcomes,
        mean_turns=float(row["mean_turns"]),
        raw=data,
    )


# --- two sides on the same deals -------------------------------------------------------------


def compare(
    seats: str | Sequence[str],
    vs_seats: str | Sequence[str] | None = None,
    *,
    rules: str | RuleSet = "gin",
    vs_rules: str | RuleSet | None = None,
    deals: int | None = None,
    games: int | None = None,
    seed: int | None = None,
    duplicate: bool = False,
    out: Out = DEFAULT_OUT,
    executor: Executor = LOCAL,
    progress: bool = True,
) -> Comparison:
    """Two line-ups (``vs_seats``) or two rule sets (``vs_rules``) on identical deals
    (``rummy compare``): seat 0's net points on each side and the paired difference
    A - B with its 95% interval and p-value. ``duplicate`` also plays every deal with the
    seats rotated (seat luck cancels). Default 50,000 deals."""
    from sim.study.compare import CompareRequest, Side
    from sim.study.compare import compare as compare_api

    count, mode = _size(deals, games, 50_000)
    a = Side(_rules(rules), seats if isinstance(seats, str) else tuple(seats))
    b_seats = seats if vs_seats is None else vs_seats
    b = Side(
        _rules(rules if vs_rules is None else vs_rules),
        b_seats if isinstance(b_seats, str) else tuple(b_seats),
    )
    with _progress("compare", progress) as view:
        done = compare_api(
            CompareRequest(a, b, count=count, mode=mode, seed=seed, duplicate=duplicate),  # type: ignore[arg-type]
            executor, out=out, progress=_callback(view),
            command=_call("compare", seats=seats, vs_seats=vs_seats, rules=str(rules),
                          vs_rules=None if vs_rules is None else str(vs_rules), deals=deals,
                          games=games, seed=seed, duplicate=duplicate),
        )  # fmt: skip
    unit = _units(done.mode)
    wins = done.win_difference
    return Comparison(
        directory=done.directory,
        seed=done.seed,
        a=done.a.label,
        b=done.b.label,
        a_net=Estimate.of(done.a.net, unit),
        b_net=Estimate.of(done.b.net, unit),
        difference=Estimate.of(done.difference.ci, unit, difference=True),
        p_value=done.difference.p_value,
        win_difference=Estimate(
            wins.estimate,
            wins.ci.low,
            wins.ci.high,
            SHARE_OF_HANDS,
            wins.method,
            wins.ci.confidence,
            wins.ci.n,
            difference=True,
        ),
        raw=done,
    )


# --- experiments and sweeps ------------------------------------------------------------------


def experiment(
    source: Out | Mapping[str, Any],
    *,
    out: Out = DEFAULT_OUT,
    executor: Executor = LOCAL,
    progress: bool = True,
    **changes: Any,
) -> StudyResult:
    """An experiment (``rummy run FILE.toml``): every setting of its grid on common deals,
    the best per group and its Holm-adjusted test against the others.

    ``source`` is an experiment file (TOML), or its keys as a dict; ``changes`` set any
    of its fields (``count=2_000``, ``seed=1``, ``duplicate=True``: the fields of
    ``sim.study.design.Experiment``), checked as the file is. Written to
    ``<out>/<name>/`` (tables, record; charts and the report are drawn by
    ``sim.present.experiment``)."""
    from sim.study import load_experiment, run_experiment
    from sim.study.experiment_file import experiment_from_dict, replace_checked

    if isinstance(source, Mapping):
        planned = experiment_from_dict(source, source="rummy.experiment")
        what = "a dict"
    else:
        planned = load_experiment(source)
        what = str(source)
    if changes:
        planned = replace_checked(planned, **changes)
    with _progress(planned.name, progress) as view:
        done = run_experiment(
            planned, executor, out=out, progress=_callback(view, phases=True),
            command=_call("experiment", source=what, **changes),
        )  # fmt: skip
    return _study_result(done.data, done.directory)


def sweep(
    seats: str | Sequence[str],
    grid: Mapping[str, Any],
    *,
    rules: str | Sequence[str] = "gin",
    deals: int | None = None,
    games: int | None = None,
    seed: int | None = None,
    duplicate: bool = False,
    name: str | None = None,
    out: Out = DEFAULT_OUT,
    executor: Executor = LOCAL,
    progress: bool = True,
) -> StudyResult:
    """A grid from arguments (``rummy sweep``): ``seats`` is a line-up template whose
    ``{placeholders}`` take the ``grid``'s values (``{"k": "0..10"}``, a list, or
    ``"rule.undercut_bonus": [10, 25]`` for a rule parameter); several ``rules`` presets
    become variants. Default 100,000 deals per setting."""
    from sim.study import run_experiment
    from sim.study.experiment_file import sweep_experiment
    from sim.study.runs import new_seed

    count, mode = _size(deals, games, 100_000)
    presets = [rules] if isinstance(rules, str) else list(dict.fromkeys(rules))
    planned = sweep_experiment(
        seats if isinstance(seats, str) else list(seats), grid, presets=presets,
        seed=new_seed() if seed is None else seed, mode=mode, count=count,
        duplicate=duplicate, name=name, source="rummy.sweep",
    )  # fmt: skip
    with _progress(planned.name, progress) as view:
        done = run_experiment(
            planned, executor, out=out, progress=_callback(view, phases=True),
            command=_call("sweep", seats=seats, grid=dict(grid), rules=str(rules), deals=deals,
                          games=games, seed=seed, duplicate=duplicate),
        )  # fmt: skip
    return _study_result(done.data, done.directory)


def _study_result(data: Any, directory: StorePath) -> StudyResult:
    from sim.study.design import RATE_HEADLINES

    unit = SHARE_OF_HANDS if data.headline in RATE_HEADLINES else _units(data.mode)
    settings = []
    for r in data.summary.iter_rows(named=True):
        best = bool(r.get("best"))
        settings.append(
            SettingResult(
                setting=r["setting"],
                group=r["group"],
                headline=Estimate.of_row(r, "estimate", "low", "high", unit, r["method"]),
                win_rate=Estimate.of_row(
                    r, "win_rate", "win_low", "win_high", SHARE_OF_HANDS, "Wilson"
                ),
                best=best,
                vs_best=None
                if best or r.get("diff_vs_best") is None
                else Estimate.of_row(
                    r, "diff_vs_best", "diff_low", "diff_high", unit, "paired t", difference=True
                ),
                holm_p=r.get("holm_p"),
            )
        )
    verdicts = tuple(
        (v["summary"] if v["group"] == "all" else f"{v['group']}: {v['summary']}")
        for v in data.verdicts
    )
    return StudyResult(
        directory=directory,
        name=data.name,
        seed=int(data.record["seed"]),
        headline=data.headline,
        settings=tuple(settings),
        verdicts=verdicts,
        summary=data.summary,
        raw=data,
    )


def load(path: Out) -> PlayResult | StudyResult:
    """The results in a run folder (``results/NAME/RUN_ID``) or an experiment folder
    (``results/NAME``) as :func:`play` or :func:`experiment` returned them: means and
    rates with intervals (``sim.study.load_summary`` gives a run's raw integer sums)."""
    from sim import store
    from sim.study import load_results

    data = load_results(path)
    if data.kind == "run":
        return _play_result(data, store.location(path))
    return _study_result(data, store.location(path))


# --- round robin and tuning -------------------------------------------------------------------


def tournament(
    strategies: str | Sequence[str],
    *,
    rules: str | RuleSet = "gin",
    deals: int | None = None,
    games: int | None = None,
    seed: int | None = None,
    out: Out = DEFAULT_OUT,
    executor: Executor = LOCAL,
    progress: bool = True,
) -> TournamentResult:
    """A round robin (``rummy tournament``): every strategy against every other, in
    every seating of the same deals. Default 20,000 deals per seating."""
    from sim.study.tournament import TournamentRequest
    from sim.study.tournament import tournament as tournament_api

    count, mode = _size(deals, games, 20_000)
    with _progress("tournament", progress) as view:
        lineup = strategies if isinstance(strategies, str) else list(strategies)
        request = TournamentRequest(lineup, count, _rules(rules), mode, seed)  # type: ignore[arg-type]
        done = tournament_api(
            request, executor, out=out, progress=_callback(view),
            command=_call("tournament", strategies=strategies, rules=str(rules), deals=deals,
                          games=games, seed=seed),
        )  # fmt: skip
    unit = _units(done.mode)
    pairings = tuple(
        Pairing(
            player=r["player"],
            opponent=r["opponent"],
            net=Estimate.of_row(r, "net", "net_low", "net_high", unit, "t"),
            win_rate=Estimate.of_row(
                r, "win_rate", "win_low", "win_high", SHARE_OF_HANDS, "Wilson"
            ),
            p_value=float(r["p_value"]),
        )
        for r in done.matrix.iter_rows(named=True)
    )
    return TournamentResult(done.directory, done.seed, pairings, done.matrix, done)


def tune(
    strategy: str,
    params: Sequence[str],
    *,
    against: str | Sequence[str],
    rules: str | RuleSet = "gin",
    deals: int | None = None,
    games: int | None = None,
    seed: int | None = None,
    duplicate: bool = False,
    out: Out = DEFAULT_OUT,
    executor: Executor = LOCAL,
    progress: bool = True,
    **search: Any,
) -> TuneResult:
    """A strategy's best parameters on common deals (``rummy tune``): ``params`` as
    ``"knock_at=0..10"``; ``against`` the other seats; ``search`` the other keywords of
    ``sim.study.tune_request.make_request`` (``max_evals``, ``confirm``, ...). Default
    50,000 deals per setting."""
    from sim.study.tune import tune as tune_api
    from sim.study.tune_request import make_request

    count, mode = _size(deals, games, 50_000)
    request = make_request(
        strategy, list(params), against=against, rules=_rules(rules), count=count, mode=mode,
        seed=seed, duplicate=duplicate, **search,
    )  # fmt: skip
    with _progress("tune", progress) as view:
        done = tune_api(
            request, executor, out=out, progress=_callback(view),
            command=_call("tune", strategy=strategy, params=list(params), against=against,
                          rules=str(rules), deals=deals, games=games, seed=seed),
        )  # fmt: skip
    unit = _units(mode)
    return TuneResult(
        directory=done.directory,
        seed=done.request.seed,
        best=dict(zip((r.name for r in request.space), done.best, strict=True)),
        best_value=Estimate.of(done.best_interval, unit),
        vs_default=Estimate.of(done.vs_default.ci, unit, difference=True),
        settings=done.settings,
        raw=done,
    )


# --- charts and advice ------------------------------------------------------------------------


def strategy_chart(
    seats: str | Sequence[str],
    *,
    kind: str = "knock",
    rules: str | RuleSet = "gin",
    deals: int = 200_000,
    seed: int | None = None,
    out: Out = DEFAULT_OUT,
    executor: Executor = LOCAL,
    progress: bool = True,
    **fields: Any,
) -> Any:
    """A strategy chart (``rummy strategy-chart knock|draw|discard``): per own turn and
    deadwood (or card class, or rank) the mean gain of knocking over playing on (of
    taking over drawing) in points per hand with its 95% interval, and a verdict.
    Returns ``sim.study.chart.StrategyChart`` (``.cells``: a polars frame, one row per
    cell); ``fields`` are ``sim.study.chart.ChartRequest``'s (``took=True``, ...)."""
    from sim.study.chart import ChartRequest
    from sim.study.chart import strategy_chart as chart_api

    policy = seats if isinstance(seats, str) else tuple(seats)
    request = ChartRequest(
        rules=_rules(rules), policy=policy, chart=kind, deals=deals, seed=seed, out=out,
        **fields,
    )  # fmt: skip
    with _progress(f"{kind} chart", progress) as view:
        return chart_api(request, executor, progress=_callback(view))


def advise(
    hand: str,
    *,
    rules: str | RuleSet = "gin",
    pile: str = "",
    samples: int = 2000,
    seed: int = 0,
    **position: Any,
) -> Advice:
    """Every legal action of a position scored by Monte Carlo over the cards you cannot
    see (``rummy advise``), best first: expected net points for the hand and the chance
    of winning it, with 95% intervals. ``position``: the other keywords of
    ``sim.advise.Position.parse`` (``took={1: "7H"}``, ``stock=20``, ``turn=3``, ...)."""
    from sim.advise import Position
    from sim.advise import advise as advise_api

    done = advise_api(
        Position.parse(_rules(rules), hand=hand, pile=pile, **position), samples=samples, seed=seed
    )
    actions = tuple(
        Action(
            label=a.label,
            kind=a.kind,
            card=a.card,
            points=Estimate.of(a.points, POINTS_PER_HAND),
            win=Estimate.of(a.win, SHARE_OF_HANDS),
            vs_best=Estimate.of(a.vs_best, POINTS_PER_HAND, difference=True),
            p_value=a.p_value,
        )
        for a in done.actions
    )
    return Advice(actions, done.samples, done.seed, done)
