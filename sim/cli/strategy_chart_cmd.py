"""``rummy strategy-chart``: the chart commands (``knock``, ``draw``, ``discard``: made
from their front, ``sim/front/chart.py``), and what is made of finished charts:
``export`` (the chart strategy's seat spec), ``card`` (the card, drawn without a
simulation) and ``solve`` (rounds of chart and export to a fixed point).
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any

import typer

from sim import sizes, store
from sim.cli.options import (
    JsonOption,
    at_most,
    file_text,
    out_check,
    path_text,
)
from sim.cli.output import console, fail, print_json
from sim.front import chart as chart_front
from sim.front import solve as solve_front
from sim.front.command import command_of
from sim.limits import MAX_COUNT
from sim.study.kinds import CHART

# The study's modules load with the commands that play (their imports, inside them): the
# card plays nothing, and starts in about half the time without them.
if TYPE_CHECKING:
    pass

app = typer.Typer(
    help="Strategy charts a player can take to the table.",
    no_args_is_help=True,
    context_settings={"help_option_names": ["-h", "--help"]},
)

for _command in CHART.commands:  # strategy-chart knock|draw|discard, made from its front
    _kind = _command.split()[-1]
    app.command(
        _kind, epilog=chart_front.EXAMPLES[_kind], help=chart_front.command_help(_kind),
        short_help=chart_front.SUMMARY[_kind],
    )(command_of(chart_front.FRONT, _command))  # fmt: skip


def _chart_file_out(help: str) -> Any:
    """The ``--out`` of a command that writes a chart file."""
    return typer.Option("--out", parser=file_text, callback=out_check, help=help)


@app.command(
    "export",
    short_help="The chart strategy's seat spec from finished charts.",
    epilog="""Examples:

rummy strategy-chart export results/chart/KNOCK_RUN --draw results/chart/DRAW_RUN --out gin.chart

rummy run --rules gin --seats chart:file=gin.chart/greedy --games 4000""",
)
def export(
    knock_run: Annotated[Path, typer.Argument(help="A finished knock chart's run folder.")],
    draw: Annotated[
        Path | None, typer.Option("--draw", help="A draw chart's run folder (take masks).")
    ] = None,
    discard: Annotated[
        Path | None, typer.Option("--discard", help="A discard chart's run folder (safety).")
    ] = None,
    out: Annotated[
        Path | None,
        _chart_file_out(
            "Also write the chart file: the seat spec under a header of the rules it was "
            "made for (seat it as chart:file=FILE)."
        ),
    ] = None,
    min_positions: Annotated[
        int,
        typer.Option(
            "--min-positions",
            min=2,
            callback=at_most(MAX_COUNT),
            help="Fewer positions: no verdict (as the charts).",
        ),
    ] = sizes.CHART_MIN_POSITIONS,
    as_json: JsonOption = False,
) -> None:
    """The `chart` strategy's seat spec from finished charts (knock by the knock chart,
    take by the draw chart, discard by the least deadwood then the discard chart's
    safety order; docs/CHARTS.md, "The chart strategy"). --out writes it as a chart
    file, with the rules it was made for (docs/CHARTS.md, "Chart files")."""
    from sim.rules import house_rules
    from sim.study.chart import load_chart
    from sim.study.chart_seat import chart_params, chart_seat
    from sim.study.runs import RunError
    from strategies.chart_files import chart_file_text

    try:
        charts = [
            None if p is None else load_chart(p, min_positions=min_positions)
            for p in (knock_run, draw, discard)
        ]
        spec = chart_seat(*charts)  # type: ignore[arg-type]
        params = chart_params(*charts)  # type: ignore[arg-type]
        rules = charts[0].config.rule_set  # type: ignore[union-attr]
        text = chart_file_text(spec, rules, house_rules(rules))
    except (RunError, OSError, ValueError) as exc:
        fail(str(exc).splitlines()[0] if str(exc) else type(exc).__name__)
    if out is not None:
        try:
            store.refuse_record_path(out, owner=knock_run)  # not into another study's folder
            store.write_text_atomic(out, text)  # whole or not at all, no temporary left
        except store.StorageError as exc:
            fail(f"--out: {exc}")
    if as_json:
        where = None if out is None else str(out)
        print_json({"spec": spec, "params": params._asdict(), "out": where})
        return
    console().print(spec, markup=False, soft_wrap=True)


@app.command(
    "card",
    short_help="A chart's rules as a card: text, JSON, PNG or PDF.",
    epilog="""Examples:

rummy strategy-chart card chart:gin

rummy strategy-chart card chart:file=final.chart --out cards/final""",
)
def card(
    chart: Annotated[
        str,
        typer.Argument(
            help="A chart seat: chart:NAME (a shipped chart), chart:file=PATH, or its "
            "parameters spelt out (chart:k1=...)."
        ),
    ],
    out: Annotated[
        Path | None,
        typer.Option(
            "--out",
            parser=path_text,
            callback=out_check,
            help="Also write the card in this folder as card.png and card.pdf (one page, "
            "A4 and Letter) and card.html (for a phone's screen).",
            show_default=False,
        ),
    ] = None,
    as_json: JsonOption = False,
) -> None:
    """A chart as a card a person can carry: its knock, draw and discard rules in plain
    sentences, read from the chart's parameters alone (nothing is played; docs/CHARTS.md,
    "The card: a chart as rules")."""
    from sim.present.chart_card import card_text, chart_card, page_fits, save_card
    from strategies import StrategyError, parse_seat, seat_label
    from strategies.chart_files import STRATEGY_NAME, seat_reference

    try:
        strategy, params = parse_seat(chart)
        if strategy.name != STRATEGY_NAME:
            raise StrategyError(
                f"{chart.strip()!r} is not a chart; give chart:NAME, chart:file=PATH or "
                "chart:k1=..."
            )
        named = seat_reference(chart)
        made = chart_card(params, seat_label(chart), None if named is None else named[0].header)
    except StrategyError as exc:
        fail(str(exc).splitlines()[0])
    if out is not None:
        try:
            save_card(made, out)
        except store.StorageError as exc:
            fail(f"--out: {exc}")
        if not page_fits(made):
            note = "card.png and card.pdf end where the page does (the text holds it all)"
            typer.echo(f"note: the card is longer than one page: {note}", err=True)
    if as_json:
        print_json(made.record())
        return
    console().print(card_text(made), markup=False, soft_wrap=True)


@app.command(
    "pool",
    short_help="A chart for a pool game: a card for each number of players left.",
    epilog="""Examples:

rummy strategy-chart pool chart:file=six.chart --left 2=chart:file=two.chart --out pool.chart

rummy run --rules knock-rummy -r players=6 --seats chart:file=pool.chart/mc --games 400""",
)
def pool(
    chart: Annotated[
        str,
        typer.Argument(
            help="The chart for the full table: chart:NAME (a shipped chart) or "
            "chart:file=PATH (a chart file, whose header names its rules)."
        ),
    ],
    left: Annotated[
        list[str],
        typer.Option(
            "--left",
            help="N=CHART: the chart to play once N players are left (2 to 5, fewer than "
            "the chart's); once per N.",
            show_default=False,
        ),
    ],
    out: Annotated[
        Path | None,
        _chart_file_out(
            "Also write the chart file (the first chart's header; seat it as chart:file=FILE)."
        ),
    ] = None,
    as_json: JsonOption = False,
) -> None:
    """A chart that plays on as a pool game's players go out: CHART while the whole table
    plays, each --left chart once that many are left (its own card, checked to be made
    for the same rules with that many players; docs/CHARTS.md, "Pool games"). Prints the
    seat spec."""
    from strategies import StrategyError, format_seat
    from strategies.chart import STRATEGY, with_layers
    from strategies.chart_files import header_file_text

    try:
        header, params = _chart_file(chart)
        cards: dict[int, Any] = {}
        seats: dict[int, str] = {}
        for item in left:
            n, cards[n] = _layer(item, header, cards)
            seats[n] = item.partition("=")[2].strip()
        spec = format_seat(STRATEGY, with_layers(params, cards))
    except (StrategyError, ValueError) as exc:
        fail(str(exc).splitlines()[0])
    if out is not None:
        try:
            store.write_text_atomic(out, header_file_text(header, spec))
        except store.StorageError as exc:
            fail(f"--out: {exc}")
    if as_json:
        where = None if out is None else str(out)
        print_json({"spec": spec, "left": {str(n): seats[n] for n in sorted(seats)}, "out": where})
        return
    console().print(spec, markup=False, soft_wrap=True)


def _chart_file(seat: str) -> tuple[dict[str, str], Any]:
    """A chart seated by name or file, with a header: (its header, its parameters)."""
    from strategies import StrategyError, parse_seat
    from strategies.chart_files import seat_reference

    _, params = parse_seat(seat)
    named = seat_reference(seat)
    if named is None or not named[0].header:
        raise StrategyError(
            f"{seat.strip()!r}: give chart:NAME or chart:file=PATH of a chart file with a "
            "header (the rules it was made for: the cards for fewer players are checked "
            "against them)"
        )
    return dict(named[0].header), params


def _layer(item: str, header: dict[str, str], cards: dict[int, Any]) -> tuple[int, Any]:
    """``--left N=CHART`` read: N, and the chart's parameters (checked: made for the
    rules of ``header`` with N players, N not given before)."""
    from strategies import StrategyError, parse_seat, seat_label
    from strategies.chart import LAYER_PLAYERS
    from strategies.chart_files import STRATEGY_NAME, check_layer, seat_reference

    count, equals, seat = item.partition("=")
    players = int(header.get("players", LAYER_PLAYERS[-1] + 1))
    allowed = range(LAYER_PLAYERS[0], min(players - 1, LAYER_PLAYERS[-1]) + 1)
    if not equals or not count.strip().isdigit() or int(count) not in allowed:
        raise StrategyError(
            f"--left {item!r}: write N=CHART with N players left, {allowed.start} to "
            f"{allowed.stop - 1} (fewer than the chart's {players})"
        )
    n = int(count)
    if n in cards:
        raise StrategyError(f"--left {item!r}: {n} players left is given twice")
    try:
        strategy, params = parse_seat(seat)
        if strategy.name != STRATEGY_NAME:
            raise StrategyError(f"{seat.strip()!r} is not a chart")
        named = seat_reference(seat)
        if named is not None:
            check_layer(named[0], seat_label(seat), header, n)
    except StrategyError as error:
        raise StrategyError(f"--left {item!r}: {str(error).splitlines()[0]}") from None
    return n, params


app.command("solve", epilog=solve_front.EXAMPLES, short_help=solve_front.SHORT_HELP)(
    command_of(solve_front.FRONT)
)
