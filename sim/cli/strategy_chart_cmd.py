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
    MAX_COUNT,
    Backend,
    JsonOption,
    NameOption,
    OutOption,
    RuleOverrides,
    RulesOption,
    SeatsOption,
    SeedOption,
    WorkersOption,
    at_most,
    file_text,
    out_check,
    path_text,
    rules_of,
)
from sim.cli.output import chosen_seed, compact_table, console, fail, print_json
from sim.front import chart as chart_front
from sim.front.chart import MinPositionsOption, PerCellOption, PlayersOption, SamplesOption
from sim.front.command import command_of
from sim.rules import DEFAULT_PRESET
from sim.study.kinds import CHART, RESULTS_ROOT, SOLVE

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
        typer.Option(
            "--out",
            parser=file_text,
            callback=out_check,
            help="Also write the chart file: the seat spec under a header of the rules it "
            "was made for (seat it as chart:file=FILE).",
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
    from strategies.chart_files import STRATEGY_NAME, reference

    try:
        strategy, params = parse_seat(chart)
        if strategy.name != STRATEGY_NAME:
            raise StrategyError(
                f"{chart.strip()!r} is not a chart; give chart:NAME, chart:file=PATH or "
                "chart:k1=..."
            )
        named = reference(chart.strip().partition(":")[2])
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
    "solve",
    short_help="A chart that is its own best answer, solved by rounds.",
    epilog="""Examples:

rummy strategy-chart solve --rules gin --seats greedy:knock_at=0 --rounds 10 --deals 3_000_000

rummy run --rules gin --seats chart:file=results/solve/SOLVE_ID/final.chart/simple --games 2000""",
)
def solve_command(
    seats: SeatsOption = None,
    rules: RulesOption = DEFAULT_PRESET,
    rule: RuleOverrides = None,
    players: PlayersOption = None,
    against: Annotated[
        str | None,
        typer.Option(
            "--against",
            help="Every other seat plays this instead of the chart itself: the chart's best "
            "answer to that opponent.",
            show_default=False,
        ),
    ] = None,
    average: Annotated[
        bool,
        typer.Option(
            "--average",
            help="Fictitious play: each round answers the average of the seats charted so "
            "far (its charts pooled), where answers to each seat alone cycle.",
        ),
    ] = False,
    rounds: Annotated[
        int, typer.Option("--rounds", min=0, max=100, help="Most rounds of chart and export.")
    ] = sizes.SOLVE_ROUNDS,
    deals: Annotated[
        int,
        typer.Option(
            "--deals",
            "-n",
            min=1,
            callback=at_most(MAX_COUNT),
            help="Deals of each round's knock chart.",
        ),
    ] = sizes.SOLVE_DEALS,
    draw_deals: Annotated[
        int | None,
        typer.Option(
            "--draw-deals",
            min=1,
            callback=at_most(MAX_COUNT),
            help="Deals of each draw chart (default: --deals).",
            show_default=False,
        ),
    ] = None,
    discard_deals: Annotated[
        int | None,
        typer.Option(
            "--discard-deals",
            min=1,
            callback=at_most(MAX_COUNT),
            help="Deals of each discard chart (default: --deals).",
            show_default=False,
        ),
    ] = None,
    samples: SamplesOption = sizes.CHART_SAMPLES,
    per_cell: PerCellOption = sizes.CHART_PER_CELL,
    min_positions: MinPositionsOption = sizes.CHART_MIN_POSITIONS,
    strength_deals: Annotated[
        int,
        typer.Option(
            "--strength-deals",
            min=2,
            callback=at_most(MAX_COUNT),
            help="Duplicate deals per strength figure.",
        ),
    ] = sizes.SOLVE_STRENGTH_DEALS,
    check: Annotated[
        int,
        typer.Option(
            "--check",
            min=1,
            callback=at_most(MAX_COUNT),
            help="Cells of the final charts checked (most gain).",
        ),
    ] = sizes.CHECK_CELLS,
    check_deals: Annotated[
        int,
        typer.Option(
            "--check-deals",
            min=2,
            callback=at_most(MAX_COUNT),
            help="Fresh deals per checked cell.",
        ),
    ] = sizes.CHECK_DEALS,
    seed: SeedOption = None,
    workers: WorkersOption = None,
    out: OutOption = Path(RESULTS_ROOT),
    name: NameOption = None,
    as_json: JsonOption = False,
) -> None:
    """A chart that is its own best answer: chart a policy's own play (knock, draw and
    discard charts, every seat playing it), export the charts as a `chart` seat, chart
    that seat's own play, and repeat until the export is the seat itself or --rounds
    exports; then check the final charts' most profitable single-cell deviations
    (docs/CHARTS.md, "Solving a chart")."""
    from sim.cli.runner import executor_of
    from sim.study.runs import RunError
    from sim.study.solve import SolveRequest, solve

    start = "/".join(seats or ["greedy"])
    overrides: dict[str, int] = {} if players is None else {"players": players}
    r = rules_of(rules, rule, **overrides)
    seed, drawn = chosen_seed(seed)
    if not as_json:
        console().print(f"seed {seed}" + (" (drawn)" if drawn else ""), markup=False)
    try:
        request = SolveRequest(
            r, start, against=against, rounds=rounds, deals=deals, draw_deals=draw_deals,
            discard_deals=discard_deals, samples=samples, per_cell=per_cell,
            min_positions=min_positions, strength_deals=strength_deals, check_cells=check,
            check_deals=check_deals, seed=seed, name=name or SOLVE.folder, average=average,
        )  # fmt: skip
        result = solve(
            request, executor_of(workers, Backend.local, None), out=out,
            progress=None if as_json else (lambda text: console().print(f"  {text}", style="dim")),
        )  # fmt: skip
    except RunError as exc:
        fail(str(exc))
    best = result.largest_deviation
    if as_json:
        print_json(
            {
                "seed": seed,
                "folder": str(result.folder),
                "rounds": [chart_front.finite(r.to_dict()) for r in result.rounds],
                "fixed": result.fixed,
                "cycle": result.cycle,
                "final_seat": result.final_seat,
                "exploit": {k: chart_front.finite(c.to_dict()) for k, c in result.exploit.items()},
            }
        )
        return
    table = compact_table("rounds (strength: net points per hand on duplicate deals, 95% CI)")
    labels = ["round", "bits changed", "knock cells", "draw cells", "vs previous", "vs start"]
    for label in labels + (["vs against"] if against else []):
        table.add_column(label, justify="right")
    for rd in result.rounds:
        row = [
            str(rd.index), "-" if rd.bits_changed is None else str(rd.bits_changed),
            "-" if rd.knock_changed is None else str(rd.knock_changed),
            "-" if rd.draw_changed is None else str(rd.draw_changed),
            _interval(rd.vs_previous), _interval(rd.vs_start),
        ]  # fmt: skip
        table.add_row(*row, *([_interval(rd.vs_against)] if rd.vs_against else []))
    console().print(table)
    if result.fixed and average:
        console().print(f"the answer to the average of the seats stopped changing after "
                        f"{len(result.rounds)} round(s); the final seat's own deviations "
                        "below")  # fmt: skip
    elif result.fixed:
        console().print(f"fixed point after {len(result.rounds)} round(s): the charts of the "
                        "final seat say to play exactly as it plays")  # fmt: skip
    elif result.cycle:
        console().print(
            f"a cycle of {result.cycle} seats after {len(result.rounds)} round(s): each "
            "answers the other best in a few cells (see 'vs previous')"
        )
    else:
        console().print(f"[yellow]no fixed point in {len(result.rounds)} round(s)[/]")
    played = sum(len(c.cells) for c in result.exploit.values())
    if best is not None:
        m = best.measured
        console().print(
            f"largest single-cell deviation against the final seat: {best.action} at turn "
            f"{best.turn}, column {best.column}: {_interval(m)} points per hand "
            f"({played} cells played)"
        )
    elif played:
        console().print(f"no single-cell deviation measured: none of the {played} cells "
                        "played was met by the fresh deals")  # fmt: skip
    for kind, exploit in result.exploit.items():
        console().print(f"{kind} chart's {exploit.summary()}", highlight=False)
    console().print(f"final seat: {result.folder / 'final.chart'}", markup=False)
    console().print(f"solve: {result.folder}", markup=False)


def _interval(i: Any) -> str:
    return f"{i.estimate:+.3f} [{i.low:+.3f}, {i.high:+.3f}]"
