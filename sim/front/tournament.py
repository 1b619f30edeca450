"""The round robin's front: ``rummy tournament`` and ``rummy.tournament``, declared once.

Every strategy against every other, in every seating of the same deals. Examples::

    rummy tournament --strategies greedy,simple,defensive,random --rules gin --deals 20_000
    rummy tournament --strategies greedy,greedy:knock_at=5 --rules knock-rummy --json
    rummy.tournament("greedy,simple", rules="gin", deals=5_000, chart=False)
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from rich.table import Table

from sim.front import params
from sim.front.declare import Front
from sim.present.terminal import ci, compact_table
from sim.present.terminal import console as output_console
from sim.sizes import DEFAULT_DEALS
from sim.stats import format_estimate, format_p
from sim.store import StorePath
from sim.study.kinds import TOURNAMENT
from sim.study.session import Session
from sim.study.tournament import TournamentRequest, TournamentResult, parse_strategies, tournament

__all__ = ["FRONT"]

EXAMPLES = """Examples:

rummy tournament --strategies greedy,simple,defensive,random --rules gin

rummy tournament --strategies greedy,greedy:knock_at=5 --rules knock-rummy --deals 5_000"""

PARAMS = (
    params.specs(
        "strategies", "The strategies, comma-separated (greedy,simple,defensive,random); a "
        "strategy's own parameters follow it (greedy:knock_at=7,min_gain=2,simple).",
        "greedy,simple", short="-s",
    ),
    params.preset("rules"),
    params.overrides("rule", short="-r"),
    params.count("deals", 2, "Single deals per seating run (default: "
                 f"{DEFAULT_DEALS['tournament']:,}).", short="-n"),
    params.games(2, "run"),
    params.flag("chart", "Save the matrix chart as PNG and SVG.", default=True),
    params.seed(),
)  # fmt: skip


@dataclass(frozen=True)
class Plan:
    """The round robin to play, and whether to draw its matrix chart."""

    request: TournamentRequest
    chart: bool


def _request(values: Mapping[str, Any]) -> Plan:
    count, mode = params.size(TOURNAMENT.name, values["deals"], values["games"])
    rules = params.rule_set(values, "rules", "rule")
    given = values["strategies"]
    strategies = given if isinstance(given, str) else list(given)
    with params.refused("strategies", given):  # each spec, and at least two of them
        parse_strategies(strategies, rules)
    return Plan(TournamentRequest(strategies, count, rules, mode, values["seed"]), values["chart"])  # type: ignore[arg-type]


def _play(plan: Plan, session: Session) -> tuple[TournamentResult, tuple[StorePath, ...]]:
    from sim.present.tournament import save_chart

    result = tournament(plan.request, session)
    return result, save_chart(result) if plan.chart else ()


def _matrix_table(result: TournamentResult, title: str, cell: Any) -> Table:
    table = compact_table(title)
    table.add_column("row vs column")
    for name in result.shown:
        table.add_column(name, justify="right")
    cells = {(r["player"], r["opponent"]): r for r in result.matrix.iter_rows(named=True)}
    for row in result.shown:
        table.add_row(
            row,
            *("—" if row == col else cell(cells[(row, col)]) for col in result.shown),
        )
    return table


def _two_lines(text: str) -> str:
    """``estimate [low, high]`` as two lines of a narrow cell."""
    return text.replace(" [", "\n[", 1)


def _print_tournament(result: TournamentResult, charts: tuple[StorePath, ...]) -> None:
    console = output_console(markup=False)
    console.print(
        f"tournament {result.directory}: {len(result.strategies)} strategies under "
        f"{result.rules.name} ({result.players} players), {result.count:,} {result.mode} "
        f"per seating, same seed everywhere"
    )
    console.print(f"scheme: {result.scheme}")
    level = f"{result.confidence * 100:g}%"
    console.print(
        _matrix_table(
            result,
            f"Win rate of row vs column ({level} Wilson CI)",
            lambda r: _two_lines(
                format_estimate(r["win_rate"], r["win_low"], r["win_high"], percent=True)
            ),
        )
    )
    console.print(
        _matrix_table(
            result,
            f"{result.metric.capitalize()}, row vs column ({level} t CI; p of net = 0)",
            lambda r: (
                _two_lines(ci(r["net"], r["net_low"], r["net_high"], sign=True))
                + f"\np {format_p(r['p_value']) or '-'}"
            ),
        )
    )
    for name, method in result.methods().items():
        console.print(f"{name}: {method}")
    if result.players == 2:
        console.print("hands nobody won (ties, dead hands) make up the rest of each pair's 100%")
    else:
        console.print(
            f"an even win rate is {100 / result.players:.1f}% ({result.players} players); "
            "cells (i, j) and (j, i) are different tables"
        )
    if charts:
        console.print("chart: " + ", ".join(str(p) for p in charts))


def _record(done: tuple[TournamentResult, tuple[StorePath, ...]]) -> dict[str, Any]:
    result, charts = done
    return {**result.to_dict(), "charts": [str(p) for p in charts]}


def _notebook(done: tuple[TournamentResult, tuple[StorePath, ...]]) -> Any:
    from rummy.results import TournamentResult as Shown

    result = done[0]
    return Shown.of_matrix(result.matrix, result.mode, result.seed, result.directory, result)


FRONT = Front(
    kind=TOURNAMENT,
    summary="Round robin: every pair of strategies on the same deals in every seating; "
    "the matrix of win rates (95% Wilson CI) and net points per hand (95% t CI; "
    "with {games}: games won and net final score per game), row strategy against column "
    "strategy. With more than two players a cell is the row strategy alone against a "
    "field of the column strategy (an even win rate is 1 / players).",
    params=PARAMS,
    positional=1,
    request=_request,
    play=_play,
    show=lambda done: _print_tournament(*done),
    record=_record,
    notebook=_notebook,
    epilog=EXAMPLES,
)
