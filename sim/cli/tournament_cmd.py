"""``rummy tournament``: a round robin of strategies on identical deals, every seating.

Examples::

    rummy tournament --strategies greedy,simple,defensive,random --rules gin --deals 20_000
    rummy tournament --strategies greedy,greedy:knock_at=5 --rules knock-rummy --json
"""

from __future__ import annotations

from pathlib import Path
from typing import Annotated, Any

import typer
from rich.table import Table

from sim.cli.options import (
    MAX_COUNT,
    AddressOption,
    Backend,
    BackendOption,
    JsonOption,
    OutOption,
    RuleOverrides,
    RulesOption,
    SeedOption,
    StudyGamesOption,
    WorkersOption,
    at_most,
    rules_of,
)
from sim.cli.output import (
    chosen_seed,
    ci,
    command_line,
    compact_table,
    study_size,
)
from sim.cli.output import (
    console as output_console,
)
from sim.cli.runner import executor_of, run_study
from sim.present.tournament import save_chart
from sim.rules import DEFAULT_PRESET
from sim.sizes import DEFAULT_DEALS
from sim.stats import format_estimate, format_p
from sim.store import StorePath
from sim.study.kinds import RESULTS_ROOT
from sim.study.tournament import TournamentRequest, TournamentResult
from sim.study.tournament import tournament as tournament_api

EXAMPLES = """Examples:

rummy tournament --strategies greedy,simple,defensive,random --rules gin

rummy tournament --strategies greedy,greedy:knock_at=5 --rules knock-rummy --deals 5_000"""

app = typer.Typer()


@app.command("tournament", epilog=EXAMPLES)
def tournament(
    strategies: Annotated[
        list[str],
        typer.Option(
            "--strategies",
            "-s",
            help="The strategies, comma-separated (greedy,simple,defensive,random); a "
            "strategy's own parameters follow it (greedy:knock_at=7,min_gain=2,simple). "
            "Repeatable.",
            show_default=False,
        ),
    ],
    rules: RulesOption = DEFAULT_PRESET,
    rule: RuleOverrides = None,
    deals: Annotated[
        int | None,
        typer.Option(
            "--deals",
            "-n",
            min=2,
            callback=at_most(MAX_COUNT),
            help=f"Single deals per seating run (default: {DEFAULT_DEALS['tournament']:,}).",
            show_default=False,
        ),
    ] = None,
    games: StudyGamesOption = None,
    chart: Annotated[
        bool,
        typer.Option("--chart/--no-chart", help="Save the matrix chart as PNG and SVG."),
    ] = True,
    seed: SeedOption = None,
    workers: WorkersOption = None,
    out: OutOption = Path(RESULTS_ROOT),
    backend: BackendOption = Backend.local,
    address: AddressOption = None,
    as_json: JsonOption = False,
) -> None:
    """Round robin: every pair of strategies on the same deals in every seating; prints
    the matrix of win rates (95% Wilson CI) and net points per deal (95% t CI; with
    --games: games won and net final score per game), row strategy against column
    strategy. With more than two players a cell is the row strategy alone against a
    field of the column strategy (an even win rate is 1 / players)."""
    executor = executor_of(workers, backend, address)
    count, mode = study_size("tournament", deals, games)
    rule_set = rules_of(rules, rule)
    seed, drawn = chosen_seed(seed)

    def play(progress: Any) -> tuple[TournamentResult, tuple[StorePath, ...]]:
        request = TournamentRequest(strategies, count, rule_set, mode, seed)  # type: ignore[arg-type]
        result = tournament_api(
            request, executor, out=out, command=command_line(), progress=progress
        )
        return result, save_chart(result) if chart else ()

    run_study(
        "tournament", seed, drawn, as_json, play,
        record=lambda done: {
            **done[0].to_dict(), "charts": [str(p) for p in done[1]], "seed_drawn": drawn
        },
        show=lambda done: _print_tournament(*done),
    )  # fmt: skip


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
