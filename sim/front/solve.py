"""The solve's front: ``rummy strategy-chart solve`` and ``rummy.solve``, declared once.

A chart that is its own best answer (``sim.study.solve``): chart a policy's own play
(knock, draw and discard charts, every seat playing it), export the charts as a
``chart`` seat, chart that seat's own play, and repeat until the export is the seat
itself, a cycle, or the last round; then check the final charts' most profitable
single-cell deviations. Examples::

    rummy strategy-chart solve --rules gin --seats greedy:knock_at=0 --rounds 10
    rummy.solve("greedy:knock_at=0", rules="gin", rounds=10)

Like the chart commands' front it keeps the study's modules inside the functions that
play: the group's other commands load this module and play nothing.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from sim import sizes
from sim.front import chart, params
from sim.front.declare import Front
from sim.limits import MAX_CHECK_CELLS
from sim.present.terminal import Said, compact_table, console
from sim.stats import format_estimate
from sim.study.kinds import SOLVE
from sim.study.quantities import POINTS_PER_HAND

if TYPE_CHECKING:
    from sim.study.session import Session
    from sim.study.solve import SolveRequest, SolveResult

__all__ = ["EXAMPLES", "FRONT", "SHORT_HELP", "deviation", "ending"]

EXAMPLES = """Examples:

rummy strategy-chart solve --rules gin --seats greedy:knock_at=0 --rounds 10 --deals 3_000_000

rummy run --rules gin --seats chart:file=results/solve/SOLVE_ID/final.chart/simple --games 2000"""
SHORT_HELP = "A chart that is its own best answer, solved by rounds."

PARAMS = (
    params.lineup("seats", "The policy to start from, one seat spec played by every seat "
                  "(greedy:knock_at=0).", "greedy", short="-s"),
    params.preset("rules"),
    params.overrides("rule", short="-r"),
    chart.param("players"),
    params.words("against", "Every other seat plays this instead of the chart itself: the "
                 "chart's best answer to that opponent.", None, "'simple'"),
    params.flag("average", "Fictitious play: each round answers the average of the seats "
                "charted so far (its charts pooled), where answers to each seat alone cycle."),
    params.number("rounds", "Most rounds of chart and export.", sizes.SOLVE_ROUNDS, 0, 100),
    params.number("deals", "Deals of each round's knock chart.", sizes.SOLVE_DEALS, 1,
                  short="-n"),
    params.number("draw_deals", "Deals of each draw chart (default: {deals}).", None, 1),
    params.number("discard_deals", "Deals of each discard chart (default: {deals}).", None, 1),
    chart.param("samples"),
    chart.param("per_cell"),
    chart.param("turns"),
    chart.param("min_positions"),
    params.number("strength_deals", "Duplicate deals per strength figure.",
                  sizes.SOLVE_STRENGTH_DEALS, 2),
    params.number("check", "Cells of the final charts checked (most gain).", sizes.CHECK_CELLS,
                  1, MAX_CHECK_CELLS),
    params.number("check_deals", "Fresh deals per checked cell.", sizes.CHECK_DEALS, 2),
    params.seed(),
    params.folder_name(),
)  # fmt: skip


def _request(values: Mapping[str, Any]) -> SolveRequest:
    from sim.study.solve import SolveRequest, seated

    rules = params.seated_rules(values)
    seats = values["seats"]
    start = seats if isinstance(seats, str) else "/".join(seats)
    request = SolveRequest(
        rules, start, against=values["against"], rounds=values["rounds"], deals=values["deals"],
        draw_deals=values["draw_deals"], discard_deals=values["discard_deals"],
        samples=values["samples"], per_cell=values["per_cell"], turns=values["turns"],
        min_positions=values["min_positions"], strength_deals=values["strength_deals"],
        check_cells=values["check"], check_deals=values["check_deals"], seed=values["seed"],
        name=values["name"] or SOLVE.folder, average=values["average"],
    )  # fmt: skip
    with params.refused(("seats", "against"), (seats, values["against"])):
        seated(request, rules)  # one policy each
    return request


@dataclass(frozen=True)
class Solved:
    """A solve played, and what it was asked (its seed, its opponent, fictitious play)."""

    request: SolveRequest
    result: SolveResult


def _play(request: SolveRequest, session: Session) -> Solved:
    from sim.study.solve import solve

    def say(text: str) -> None:
        if session.progress is not None:
            session.progress(Said(text))

    return Solved(request, solve(request, session, say=say))


def _interval(i: Any) -> str:
    return f"{i.estimate:+.3f} [{i.low:+.3f}, {i.high:+.3f}]"


def ending(result: SolveResult, average: bool) -> str:
    """How the rounds ended (``average``: by fictitious play), in a sentence."""
    rounds = len(result.rounds)
    if result.fixed and average:
        return (f"the answer to the average of the seats stopped changing after {rounds} "
                "round(s); the final seat's own deviations below")  # fmt: skip
    if result.fixed:
        return (f"fixed point after {rounds} round(s): the charts of the final seat say to "
                "play exactly as it plays")  # fmt: skip
    if result.cycle:
        return (f"a cycle of {result.cycle} seats after {rounds} round(s): each answers the "
                "other best in a few cells (see 'vs previous')")  # fmt: skip
    return f"no fixed point in {rounds} round(s)"


def deviation(result: SolveResult) -> str:
    """The largest single-cell deviation measured against the final seat, in a sentence."""
    played = sum(len(c.cells) for c in result.exploit.values())
    best = result.largest_deviation
    if best is not None:
        return (f"largest single-cell deviation against the final seat: {best.action} at turn "
                f"{best.turn}, column {best.column}: {_interval(best.measured)} points per "
                f"hand ({played} cells played)")  # fmt: skip
    if played:
        return (f"no single-cell deviation measured: none of the {played} cells played was "
                "met by the fresh deals")  # fmt: skip
    return "no cell was checked"


def _show(done: Solved) -> None:
    result, against = done.result, done.request.against is not None
    table = compact_table(
        "rounds: the seat's bits and its charts' knock and draw cells changed; its strength "
        "(net points per hand on duplicate deals, 95% CI)"
    )
    labels = ["round", "bits", "knock", "draw", "vs previous", "vs start"]
    for label in labels + (["vs against"] if against else []):
        # the intervals never wrap: to the hundredth of a point, or the tenth beside a
        # third interval, 80 columns hold them
        table.add_column(label, justify="right", no_wrap=label.startswith("vs"))
    decimals = 1 if against else 2
    for rd in result.rounds:
        row = [
            str(rd.index), "-" if rd.bits_changed is None else str(rd.bits_changed),
            "-" if rd.knock_changed is None else str(rd.knock_changed),
            "-" if rd.draw_changed is None else str(rd.draw_changed),
            *(format_estimate(i.estimate, i.low, i.high, sign=True, decimals=decimals)
              for i in (rd.vs_previous, rd.vs_start, rd.vs_against) if i is not None),
        ]  # fmt: skip
        table.add_row(*row)
    out = console()
    out.print(table)
    ended = ending(result, done.request.average)
    out.print(ended if result.fixed or result.cycle else f"[yellow]{ended}[/]")
    out.print(deviation(result), markup=False)
    for kind, exploit in result.exploit.items():
        out.print(f"{kind} chart's {exploit.summary()}", highlight=False)
    out.print(f"final seat: {result.folder / 'final.chart'}", markup=False)
    out.print(f"solve: {result.folder}", markup=False)


def _record(done: Solved) -> dict[str, Any]:
    result = done.result
    return {
        "seed": done.request.seed,
        "folder": str(result.folder),
        "rounds": [chart.finite(r.to_dict()) for r in result.rounds],
        "fixed": result.fixed,
        "cycle": result.cycle,
        "final_seat": result.final_seat,
        "exploit": {k: chart.finite(c.to_dict()) for k, c in result.exploit.items()},
        "units": {
            "vs_previous": POINTS_PER_HAND,
            "vs_start": POINTS_PER_HAND,
            "vs_against": POINTS_PER_HAND,
            "exploit": POINTS_PER_HAND,
        },  # fmt: skip
    }


def _notebook(done: Solved) -> Any:
    from rummy.results import SolveResult as Shown

    seed = done.request.seed
    assert seed is not None  # each door chose it (Front.seed_of)
    return Shown.of(done.result, seed, ending(done.result, done.request.average),
                    deviation(done.result))  # fmt: skip


FRONT = Front(
    kind=SOLVE,
    summary="A chart that is its own best answer: chart a policy's own play (knock, draw and "
    "discard charts, every seat playing it), export the charts as a `chart` seat, chart that "
    "seat's own play, and repeat until the export is the seat itself or {rounds} exports; "
    "then check the final charts' most profitable single-cell deviations (docs/CHARTS.md, "
    '"Solving a chart").',
    params=PARAMS,
    positional=1,
    request=_request,
    play=_play,
    show=_show,
    record=_record,
    notebook=_notebook,
    epilog=EXAMPLES,
)
