"""Solve a chart to its fixed point: chart a policy's own play, play the chart, repeat.

>>> from sim.study.solve import SolveRequest, solve
>>> result = solve(SolveRequest("gin", "greedy:knock_at=0", rounds=6, deals=2_000_000, seed=7))
>>> # threads of this process, under results/solve/ (a sim.study.session.Session)
>>> result.final_seat                 # a ``chart`` seat spec
>>> result.exploit.cells[0].measured  # the best single-cell deviation against it

Round ``k`` charts seat ``S_k`` played by every seat (knock, draw and discard charts, made
as ``sim.study.chart`` makes any chart, from the deals' true state) and exports them
(``sim.study.chart_seat``) as ``S_{k+1}``. Where a cell has no verdict the export keeps
what ``S_k`` did there, and a verdict changes it only when it holds at 95% over all
the chart's cells with a verdict (Bonferroni, ``familywise``): with some 300 cells
tested at 95% each, about seven cells whose two actions are worth the same would flip
by chance every round, and the rounds would never stop. A seat whose charts find no
cell where the other action is better, with that confidence, exports itself: that
seat is the *fixed point*, a chart that is its own best answer cell by cell. Where the
best answer is mixed, two seats can answer each other in turn: an export equal to a
seat charted before closes a *cycle*, and the rounds stop there too, at the seat just
charted (``vs_previous`` says how little the seats of the cycle differ). Otherwise the
rounds stop after ``rounds`` exports, and the last seat is charted once more, so that
it is checked like any other.

Per round: how many knock and draw cells changed verdict since the previous round's
charts, how many of the seat's mask bits changed, and the strength of ``S_{k+1}``
against ``S_k`` and against ``S_0``, in net points per hand on duplicate deals (every
deal played once in each seating; paired t interval). At the end the final seat's own
knock and draw charts are checked where a deviation could gain most (the cells whose
predicted gain per hand has the largest upper 95% bound: ``sim.study.chart_check``,
``rank="upper"``; ranked by the estimate alone, a fixed point's top cells are the
rarest, met too seldom to measure): the largest gain measured is the chart's
exploitability within its cells.

With ``against``, every other seat plays one fixed opponent in every round and the
rounds seek the chart's best answer to it (``vs_against``: each export against it).

With ``average`` (fictitious play), round ``k`` exports the best answer to the average
of the seats charted so far: its charts are the rounds' charts pooled
(``sim.study.chart.pooled_chart``: each cell's sums over rounds 0 .. k), where the
best answers to each seat alone would cycle or wander. The rounds stop when the answer
is the seat just charted (``fixed``: the answer to the average stopped changing, which
is not a fixed point of the seat alone), never at a cycle; the final check measures the
last seat against itself, as always.

Everything lies under ``<out>/<name>/<solve_id>/``: the chart runs (``charts/``, each
resumable), ``solve.json`` (written after every round, whole or not at all, sealed with
its own digest: ``sim.study.records.write_sealed``) and ``final.chart`` (the final
seat as a chart file, with the header of the rules it was solved under:
``strategies/chart_files.py``; seat it as ``chart:file=.../final.chart``). The same
command plays only what is missing.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Callable
from dataclasses import dataclass, field, fields
from typing import Any, cast

import numpy as np

from sim import sizes, store
from sim.engine import play_deals
from sim.limits import MAX_CHECK_CELLS
from sim.rules import RuleSet, house_rules
from sim.solver import resolve_rules
from sim.stats import Interval, mean_ci
from sim.store import PathInput, StorePath
from sim.study.chart import ChartRequest, StrategyChart, pooled_chart, strategy_chart
from sim.study.chart_check import ChartCheck, check_of, checked
from sim.study.chart_seat import chart_seat
from sim.study.kinds import SOLVE
from sim.study.records import read_sealed, write_sealed
from sim.study.runs import RunError, new_seed
from sim.study.session import DEFAULT_SESSION, Session
from sim.study.units import rotate
from strategies import StrategyError, format_seat, parse_lineup, seat_label
from strategies.chart_files import chart_file_text, named_text

__all__ = [
    "SolveRequest", "SolveResult", "SolveRound", "head_to_head", "load_solve", "seated", "solve",
]  # fmt: skip

SOLVE_FILE = SOLVE.records[0]
FINAL_FILE = "final.chart"
MAX_ROUNDS = 100


@dataclass(frozen=True)
class SolveRound:
    """One round: the seat charted, its charts, what changed and what it gained."""

    index: int
    seat: str  # S_k, charted with every seat playing it
    charts: dict[str, str]  # chart kind -> run folder
    next_seat: str  # S_{k+1}, the export of these charts
    bits_changed: int | None  # mask bits and safety places where S_{k+1} differs from S_k
    knock_changed: int | None  # cells whose verdict differs from the previous round's
    draw_changed: int | None
    vs_previous: Interval  # S_{k+1} against S_k, net points per hand
    vs_start: Interval  # S_{k+1} against S_0
    vs_against: Interval | None = None  # S_{k+1} against the fixed opponents (``against``)

    def to_dict(self) -> dict[str, Any]:
        out: dict[str, Any] = {k: getattr(self, k) for k in (
            "index", "seat", "charts", "next_seat", "bits_changed", "knock_changed",
            "draw_changed")}  # fmt: skip
        for name in ("vs_previous", "vs_start", "vs_against"):
            i = getattr(self, name)
            out[name] = None if i is None else {"estimate": i.estimate, "low": i.low,
                                                "high": i.high, "n": i.n}  # fmt: skip
        return out


@dataclass(frozen=True)
class SolveResult:
    """The rounds, the final seat and its exploitability within its charts' cells."""

    folder: StorePath
    start: str
    rounds: tuple[SolveRound, ...]
    fixed: bool  # the last round exported its own seat
    final_seat: str
    cycle: int = 0  # >0: the last export was the seat charted that many rounds earlier
    exploit: dict[str, ChartCheck] = field(default_factory=dict)  # knock, draw

    @property
    def largest_deviation(self) -> Any:
        """The checked cell whose deviation gained most, of those the fresh deals met
        (None when none was met: a deviation never played measures nothing)."""
        cells = [c for check in self.exploit.values() for c in check.cells if c.reached]
        return max(cells, key=lambda c: c.measured.estimate, default=None)


def head_to_head(
    rules: RuleSet, seat: str, other: str, *, deals: int, seed: int, first: int = 0,
    threads: int = 1,
) -> Interval:  # fmt: skip
    """``seat`` against ``other`` in every other seat: the mean over the rules' seatings
    (``seat`` in each chair once) of its net points (its points less the mean of the
    others'), per deal, with the paired t interval over deals."""
    players = rules.players
    template = (seat,) + (other,) * (players - 1)
    total = np.zeros(deals)
    for r in range(players):
        cols = play_deals(rules, rotate(template, r), deals=deals, seed=seed, first=first,
                          threads=threads)  # fmt: skip
        where = (0 - r) % players  # the chair template seat 0 takes in rotation r
        points = cols.points / 60.0
        others = (points.sum(axis=1) - points[:, where]) / (players - 1)
        total += points[:, where] - others
    return mean_ci(total / players)


def _bits(a: str, b: str) -> int:
    """Mask bits (and safety order places) where two chart seats differ."""
    pa, pb = parse_lineup(a, 1)[0][1], parse_lineup(b, 1)[0][1]
    changed = 0
    for name, x, y in zip(pa._fields, pa, pb, strict=True):
        if name == "safety":
            changed += sum((x >> (4 * i)) & 15 != (y >> (4 * i)) & 15 for i in range(13))
        else:
            changed += bin(int(x) ^ int(y)).count("1")
    return changed


def _verdict_changes(new: StrategyChart, old: StrategyChart | None) -> int | None:
    """Cells met by both charts whose verdicts differ (None for the first round)."""
    if old is None:
        return None
    keys = ["turn", new.spec.column_name]
    a = {tuple(r[:2]): r[2] for r in new.cells.select(*keys, "verdict").iter_rows()}
    b = {tuple(r[:2]): r[2] for r in old.cells.select(*keys, "verdict").iter_rows()}
    return sum(a[k] != b[k] for k in a.keys() & b.keys())


def _solve_id(settings: dict[str, Any]) -> str:
    text = json.dumps(settings, sort_keys=True, separators=(",", ":"))
    return hashlib.sha256(text.encode()).hexdigest()[:12]


@dataclass(frozen=True)
class SolveRequest:
    """What a solve studies: from ``start`` (one seat spec, played by every seat), with
    ``against`` (one seat spec, or None) in every other seat instead, at most ``rounds``
    exports.

    ``deals`` for each knock chart, ``draw_deals`` and ``discard_deals`` (default: the
    same) for the draw and discard charts, each chart with ``samples``, ``per_cell``,
    ``turns`` and ``min_positions`` as ``ChartRequest`` has them; ``strength_deals``
    duplicate deals for each strength measurement, ``check_cells`` and ``check_deals``
    for the final check; ``seed`` for everything (None draws one); ``name`` the folder
    it is filed under. :func:`solve` checks every value before anything is played.
    """

    rules: str | RuleSet
    start: str
    against: str | None = None
    rounds: int = sizes.SOLVE_ROUNDS
    deals: int = sizes.SOLVE_DEALS
    draw_deals: int | None = None
    discard_deals: int | None = None
    samples: int = sizes.CHART_SAMPLES
    per_cell: int = sizes.CHART_PER_CELL
    turns: int = sizes.CHART_TURNS
    min_positions: int = sizes.CHART_MIN_POSITIONS
    strength_deals: int = sizes.SOLVE_STRENGTH_DEALS
    check_cells: int = sizes.CHECK_CELLS
    check_deals: int = sizes.CHECK_DEALS
    seed: int | None = None
    name: str = SOLVE.folder
    average: bool = False  # fictitious play: answer the average of the rounds so far


def seated(request: SolveRequest, rules: RuleSet) -> tuple[Any, Any]:
    """The start's line-up and the opponents' (None without ``against``), each one
    policy in every seat it fills (RunError, one line, where not)."""
    try:
        lineup = parse_lineup(request.start, rules.players, rules=rules)
        opponents = (
            None if request.against is None
            else parse_lineup(request.against, rules.players, rules=rules)
        )  # fmt: skip
    except StrategyError as error:
        raise RunError(str(error)) from None
    if len({id(s) for s, _ in lineup}) != 1 or len(set(lineup)) != 1:
        raise RunError(f"solve starts from one policy in every seat, got {request.start!r}")
    if opponents is not None and len(set(opponents)) != 1:
        raise RunError(f"against is one policy for every other seat, got {request.against!r}")
    return lineup, opponents


def solve(
    request: SolveRequest,
    session: Session = DEFAULT_SESSION,
    *,
    say: Callable[[str], None] | None = None,
) -> SolveResult:
    """Solve ``request``; see the module notes. With ``against`` the rounds seek the
    chart's best answer to that opponent. ``session``'s executor plays the charts (its
    progress hears their chunks; the solve is filed under its results root); the
    strength and check games play on its local worker count of threads in this process.
    ``say`` hears each step before it starts ("round 1: draw chart of ..."). Raises
    RunError (one line) for a bad value."""
    r = resolve_rules(request.rules)
    for label, value, low, high in (("rounds", request.rounds, 0, MAX_ROUNDS),
                                    ("strength_deals", request.strength_deals, 2, 10**9),
                                    ("check_cells", request.check_cells, 1, MAX_CHECK_CELLS),
                                    ("check_deals", request.check_deals, 2, 10**9)):  # fmt: skip
        if isinstance(value, bool) or not isinstance(value, int) or not low <= value <= high:
            raise RunError(f"{label}={value!r} is not allowed; choose an integer {low}..{high}")
    lineup, opponents = seated(request, r)
    seed = new_seed() if request.seed is None else request.seed
    deals_of = {
        "knock": request.deals,
        "draw": request.draw_deals or request.deals,
        "discard": request.discard_deals or request.deals,
    }
    # What the solve's folder is named by (every field but the folder's name), the
    # defaults filled in: the same solve asked either way finds the same folder.
    settings = {f.name: getattr(request, f.name) for f in fields(request)}
    del settings["name"]
    if not request.average:
        del settings["average"]  # so a solve asked before the option finds its folder
    settings |= {"rules": r.to_dict(), "draw_deals": deals_of["draw"],
                 "discard_deals": deals_of["discard"], "seed": seed}  # fmt: skip
    # A chart by name or file (chart:gin) is named by what it reads too: another
    # version of the chart is another solve.
    settings |= {
        f"{key}_params": format_seat(*seated[0])
        for key, seated in (("start", lineup), ("against", opponents))
        if seated is not None and named_text(getattr(request, key)) is not None
    }
    folder = session.out / request.name / _solve_id(settings)
    say = say or (lambda _: None)
    threads = session.executor.local_workers

    def lineup_of(seat: str) -> str:
        return (
            seat
            if request.against is None
            else "/".join([seat] + [request.against] * (r.players - 1))
        )

    def charts_of(seat: str, k: int) -> dict[str, StrategyChart]:
        made = {}
        for kind in ("knock", "draw", "discard"):
            say(f"round {k}: {kind} chart of {_short(seat)}")
            wanted = ChartRequest(
                rules=r, policy=lineup_of(seat), chart=kind, deals=deals_of[kind], seed=seed,
                samples=request.samples, turns=request.turns, per_cell=request.per_cell, round=k,
                min_positions=request.min_positions, experiment="charts", out=folder,
            )  # fmt: skip
            made[kind] = strategy_chart(wanted, session.executor, progress=session.progress)
        return made

    # The folder is locked from its first chart to its record: a second process solving
    # the same request is refused in one line (store.study_folder).
    with store.study_folder(folder):
        done: list[SolveRound] = []
        seat = request.start
        every: list[dict[str, StrategyChart]] = []  # each round's charts
        fixed, cycle = False, 0
        for k in range(request.rounds + 1):
            charts = charts_of(seat, k)
            every.append(charts)
            if k == request.rounds:
                break  # the last seat charted, to be checked
            answered = charts
            if request.average:
                pool = request.min_positions
                answered = {kind: pooled_chart([c[kind] for c in every], min_positions=pool)
                            for kind in charts}  # fmt: skip
            nxt = chart_seat(
                answered["knock"], answered["draw"], answered["discard"], familywise=True
            )
            say(f"round {k}: strength of the exported seat")
            vs_prev = head_to_head(
                r, nxt, seat, deals=request.strength_deals, seed=seed, threads=threads
            )
            vs_start = head_to_head(
                r, nxt, request.start, deals=request.strength_deals, seed=seed, threads=threads
            )
            vs_against = None if request.against is None else head_to_head(
                r, nxt, request.against, deals=request.strength_deals, seed=seed, threads=threads
            )  # fmt: skip
            done.append(SolveRound(
                k, seat, {kind: str(c.run_dir) for kind, c in charts.items()}, nxt,
                _bits(nxt, seat) if _params(seat) is not None else None,
                _verdict_changes(charts["knock"], every[-2]["knock"] if k else None),
                _verdict_changes(charts["draw"], every[-2]["draw"] if k else None),
                vs_prev, vs_start, vs_against,
            ))  # fmt: skip
            _write(folder, settings, done, None)
            if _params(nxt) == _params(seat):
                fixed = True
                break
            earlier = [r.seat for r in done[:-1] if _params(r.seat) == _params(nxt)]
            if earlier and not request.average:
                # A cycle: the seats in it answer each other best in a few cells, by margins
                # the rounds have measured (``vs_previous``). Stop at the seat just charted.
                cycle = k - next(r.index for r in done if r.seat == earlier[0]) + 1
                break
            seat = nxt
        say("the final seat's largest deviations")
        exploit = {
            kind: checked(charts[kind], cells=request.check_cells, deals=request.check_deals,
                          rank="upper", threads=threads)
            for kind in ("knock", "draw")
        }  # fmt: skip
        result = SolveResult(
            folder, request.start, tuple(done), fixed, seat, cycle=cycle, exploit=exploit
        )
        text = chart_file_text(seat, r, house_rules(r), _reached(charts, request))
        store.write_text_atomic(folder / FINAL_FILE, text)
        _write(folder, settings, done, result)
    return result


def _reached(charts: dict[str, StrategyChart], request: SolveRequest) -> int | None:
    """The last own turn on which the final seat, playing every seat, met a knock or draw
    cell in its charts: None where hands reached the charts' last row (or the seat
    played against other opponents, ``against``). The rules of the turns after it were
    set in earlier rounds, against other play (the card says so)."""
    if request.against is not None:
        return None
    met = [int(cast(int, charts[kind].cells["turn"].max())) for kind in ("knock", "draw")
           if charts[kind].cells.height]  # fmt: skip
    return max(met) if met and max(met) < request.turns else None


def _params(seat: str) -> Any:
    """A chart seat's parameters (None for any other strategy: never a fixed point)."""
    strategy, params = parse_lineup(seat, 1)[0]
    return params if strategy.name == "chart" else None


def _short(seat: str) -> str:
    """How a seat is shown in the progress lines (``strategies.seat_label``)."""
    return seat_label(seat)


def load_solve(folder: PathInput) -> tuple[SolveResult, dict[str, Any]]:
    """A finished solve read back from its record (``solve.json``), and the settings it
    was solved with (``seed``, ``average`` where it was fictitious play, ...); its
    intervals are paired t intervals at 95%, as the rounds measured them.

    Raises
    ------
    RunError
        The record is absent, edited or damaged, or the solve has not finished (one line
        naming it and how to finish it).
    """
    folder = store.location(folder)
    path = folder / SOLVE_FILE
    again = "run the solve's command again"
    try:
        record = read_sealed(path, again, error=RunError)
    except FileNotFoundError:
        raise RunError(f"{folder} is not a solve's folder (no {SOLVE_FILE})") from None
    if "final_seat" not in record:
        raise RunError(f"{folder} is an unfinished solve: {again} to finish it")

    def interval(data: dict[str, Any] | None) -> Interval | None:
        if data is None:
            return None
        return Interval(data["estimate"], data["low"], data["high"], "t", n=data["n"])

    try:
        rounds = tuple(
            SolveRound(
                r["index"], r["seat"], dict(r["charts"]), r["next_seat"], r["bits_changed"],
                r["knock_changed"], r["draw_changed"], cast(Interval, interval(r["vs_previous"])),
                cast(Interval, interval(r["vs_start"])), interval(r["vs_against"]),
            )
            for r in record["rounds"]
        )  # fmt: skip
        settings = dict(record["settings"])
        result = SolveResult(
            folder, settings["start"], rounds, bool(record["fixed"]), record["final_seat"],
            cycle=int(record["cycle"]),
            exploit={kind: check_of(c) for kind, c in record["exploit"].items()},
        )  # fmt: skip
    except (KeyError, TypeError, ValueError) as exc:
        raise RunError(f"{path} is damaged ({type(exc).__name__}: {exc}); {again}") from None
    return result, settings


def _write(folder: StorePath, settings: dict[str, Any], rounds: list[SolveRound],
           result: SolveResult | None) -> None:  # fmt: skip
    body: dict[str, Any] = {"settings": settings, "rounds": [r.to_dict() for r in rounds]}
    if result is not None:
        body |= {"fixed": result.fixed, "cycle": result.cycle, "final_seat": result.final_seat,
                 "exploit": {k: c.to_dict() for k, c in result.exploit.items()}}  # fmt: skip
    write_sealed(folder / SOLVE_FILE, body)
