"""``rummy strategies``: list the strategies (built-in and plugins) and show one in full.

Examples: ``rummy strategies list``, ``rummy strategies show greedy --json``.
A seat is written ``NAME`` or ``NAME:key=value,key=value`` (``greedy:knock_at=7``).
"""

from __future__ import annotations

from typing import Annotated

import typer
from rich.console import Console

from sim.cli.output import compact_table, fail, print_json
from strategies import Strategy, StrategyError, discover, get_strategy, registry

app = typer.Typer(
    help="List the strategies, or show one strategy's description and parameters.",
    no_args_is_help=True,
    context_settings={"help_option_names": ["-h", "--help"]},
)


def _known() -> dict[str, Strategy]:
    """Built-ins plus every installed plugin (a broken plugin is a one-line error)."""
    try:
        discover()
    except StrategyError as error:
        fail(str(error))
    return registry()


def _defaults(strategy: Strategy) -> str:
    return ", ".join(f"{name}={value}" for name, value in strategy.defaults()._asdict().items())


@app.command("list", short_help="The strategies: name, parameters, one-line description.")
def list_strategies(
    as_json: Annotated[
        bool, typer.Option("--json", help="Print every strategy as JSON instead of a table.")
    ] = False,
) -> None:
    """List the strategies: name, parameters with defaults, one-line description."""
    known = _known()
    if as_json:
        print_json(
            {
                name: {
                    "summary": s.summary,
                    "module": s.module,
                    "parameters": {k: v["default"] for k, v in s.parameters().items()},
                }
                for name, s in known.items()
            }
        )
        return
    table = compact_table("Strategies (seat spec: NAME or NAME:key=value,...)")
    table.add_column("name", no_wrap=True, style="bold")
    table.add_column("parameters (defaults)")
    table.add_column("description")
    for name, strategy in known.items():
        table.add_row(name, _defaults(strategy) or "(none)", strategy.summary)
    Console().print(table)


@app.command("show")
def show(
    name: Annotated[
        str,
        typer.Argument(help="Strategy name (see `strategies list`).", show_default=False),
    ],
    as_json: Annotated[
        bool, typer.Option("--json", help="Print the strategy as JSON instead of text.")
    ] = False,
) -> None:
    """Show a strategy's full description and every parameter."""
    _known()
    try:
        strategy = get_strategy(name)
    except StrategyError as error:
        fail(str(error))
    if as_json:
        print_json(strategy.to_dict())
        return
    console = Console()
    console.print(f"[bold]{strategy.name}[/bold]  ({strategy.module})", highlight=False)
    console.print(strategy.description.strip(), markup=False, highlight=False)
    table = compact_table(f"{strategy.name} parameters")
    table.add_column("parameter", no_wrap=True, style="bold")
    table.add_column("type", no_wrap=True)
    table.add_column("default", no_wrap=True)
    table.add_column("range", no_wrap=True)
    chart = strategy.name == "chart"  # its cards for fewer players: one line below
    for key, info in strategy.parameters().items():
        if chart and _layer_copy(key):
            continue
        if info["type"] == "spec":  # a seat spec (Strategy.specs), or one of its words
            table.add_row(key, "spec", repr(info["default"]), " | ".join(["SPEC", *info["words"]]))
            continue
        low, high = info["min"], info["max"]
        span = ""
        if low is not None or high is not None:
            span = f"{'' if low is None else low}..{'' if high is None else high}"
        table.add_row(key, info["type"], str(info["default"]), span)
    console.print(table)
    if chart:  # the layers' fields in one line, then the charts it seats by name or file
        from strategies.chart_files import shipped_names

        console.print(
            "n2_k1 .. n5_gin_chance: the fields from k1 to gin_chance again, the card for 2 "
            "to 5 players (a pool's players left), where layers has bit n - 2",
            markup=False,
            highlight=False,
        )
        console.print(
            f"seat a shipped chart by name, chart:NAME ({', '.join(shipped_names())}), or a "
            'chart file, chart:file=PATH; then overrides (docs/CHARTS.md, "Chart files")',
            markup=False,
            highlight=False,
        )


def _layer_copy(name: str) -> bool:
    """Whether a chart field is a copy of a card field for fewer players (``n2_k1``)."""
    from strategies.chart import card_field

    return card_field(name) != name
