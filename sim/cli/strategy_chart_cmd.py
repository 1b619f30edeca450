"""``rummy strategy-chart knock|draw``: when to knock, when to take the pile card, cell
by cell (``sim.study.chart``).

The policy line-up plays seeded deals; at each decision of the focal seat of the chart's
kind (knock: a discard where a knock is legal; draw: a draw with a card on the pile) the
two actions (knock now or play on; take or draw) are scored from the deal's true state,
the hand played on by the line-up itself after each. It prints the seed, the run
directory and a compact card (own turn by deadwood, or by what the pile card does: the
mean gain of the first action, coloured by the verdict), and writes the cells as Parquet
in the run, the chart as PNG and SVG next to it (``knock_chart.png``,
``draw_chart.png``) and an HTML report (``report.html``, also ``rummy report RUN_DIR``);
``--json`` prints every cell instead of the card. ``docs/CHARTS.md`` says how it is
made. (``rummy chart RUN_DIR`` draws the figures again.)
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any

import typer

from sim import sizes, store
from sim.cli.options import (
    MAX_COUNT,
    AddressOption,
    Backend,
    BackendOption,
    ChunkOption,
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
from sim.cli.output import Steps, chosen_seed, compact_table, console, fail, print_json
from sim.rules import DEFAULT_PRESET
from sim.stats import format_estimate
from sim.study.kinds import CHART, RESULTS_ROOT, SOLVE

# The study's modules load with the commands that play (their imports, inside them): the
# card plays nothing, and starts in about half the time without them.
if TYPE_CHECKING:
    from sim.store import StorePath
    from sim.study.chart import StrategyChart
    from sim.study.chart_check import ChartCheck

app = typer.Typer(
    help="Strategy charts a player can take to the table.",
    no_args_is_help=True,
    context_settings={"help_option_names": ["-h", "--help"]},
)

EXAMPLES = {
    "knock": """Examples:

rummy strategy-chart knock --rules gin --seats greedy:knock_at=0 --deals 200_000 --seed 1

rummy strategy-chart knock --rules knock-rummy --players 3 --seats greedy --deals 100_000 --took""",
    "draw": """Examples:

rummy strategy-chart draw --rules gin --seats greedy --deals 200_000 --seed 1

rummy strategy-chart draw --rules knock-rummy --players 4 --seats greedy --deals 100_000""",
    "discard": """Examples:

rummy strategy-chart discard --rules gin --seats greedy --deals 200_000 --seed 1 --took

rummy strategy-chart discard --rules knock-rummy --players 4 --seats greedy --deals 100_000""",
}
HELP = {
    "knock": "Knock now or play on: the mean gain of knocking per own turn and deadwood "
    "(95% CI), the knock's hand-win rate and a verdict per cell.",
    "draw": "Take the pile's top card or draw from the stock: the mean gain of taking per "
    "own turn and what the card does for the hand (95% CI), and a verdict per cell.",
    "discard": "How safe a discard is: per own turn and rank, the share the next seat "
    "takes and the deadwood it saves it (95% CIs); --took splits by whether the next "
    "seat took a related card. Nothing is played twice (--samples, --per-cell unused).",
}
STYLE = {"too close": "yellow", "too few": "dim"}

# Options the chart commands and ``solve`` share.
PlayersOption = Annotated[
    int | None,
    typer.Option("--players", min=2, max=6, help="Seats (Knock Rummy: 2-6).", show_default=False),
]
SamplesOption = Annotated[
    int,
    typer.Option("--samples", min=1, max=4096,
                 help="Plays of each action per position (the unseen stock reshuffled)."),
]  # fmt: skip
PerCellOption = Annotated[
    int,
    typer.Option("--per-cell", min=0, callback=at_most(MAX_COUNT),
                 help="Positions a cell should get (common cells are thinned; 0: score every "
                 "position)."),
]  # fmt: skip
MinPositionsOption = Annotated[
    int,
    typer.Option(
        "--min-positions",
        min=2,
        callback=at_most(MAX_COUNT),
        help="Fewer positions: 'too few', no verdict.",
    ),
]  # the first action green, the second blue


def _command(kind: str) -> Callable[..., None]:
    """The command of one chart kind: the options are the same for every kind."""

    def command(
        seats: SeatsOption = None,
        rules: RulesOption = DEFAULT_PRESET,
        rule: RuleOverrides = None,
        players: PlayersOption = None,
        deals: Annotated[
            int,
            typer.Option(
                "--deals", "-n", min=1, callback=at_most(MAX_COUNT), help="Deals the policy plays."
            ),
        ] = sizes.DEFAULT_DEALS["chart"],
        seat: Annotated[int, typer.Option("--seat", min=0, max=5, help="The focal seat.")] = 0,
        samples: SamplesOption = sizes.CHART_SAMPLES,
        per_cell: PerCellOption = sizes.CHART_PER_CELL,
        turns: Annotated[
            int,
            typer.Option("--turns", min=1, max=60, help="Rows: own turns 1..N (N: N or later)."),
        ] = sizes.CHART_TURNS,
        took: Annotated[
            bool,
            typer.Option(
                "--took/--no-took",
                help="Split by the pile cards the opponents took (0/1/2+; "
                "discard chart: whether the next seat took a related card).",
            ),
        ] = False,
        min_positions: MinPositionsOption = sizes.CHART_MIN_POSITIONS,
        check: Annotated[
            int,
            typer.Option(
                "--check",
                min=0,
                callback=at_most(MAX_COUNT),
                help="Knock and draw charts: play this many cells with the largest predicted "
                "effect as single-cell deviations on fresh deals (0: none).",
            ),
        ] = sizes.CHECK_CELLS,
        check_deals: Annotated[
            int | None,
            typer.Option(
                "--check-deals",
                min=2,
                callback=at_most(MAX_COUNT),
                help="Fresh deals per checked cell (default: as many as --deals, at most "
                "1,000,000).",
                show_default=False,
            ),
        ] = None,
        check_cell: Annotated[
            list[str] | None,
            typer.Option(
                "--check-cell",
                help="Also check this cell: TURN,COLUMN (deadwood, or the draw chart's "
                "column number); repeatable.",
                show_default=False,
            ),
        ] = None,
        seed: SeedOption = None,
        workers: WorkersOption = None,
        out: OutOption = Path(RESULTS_ROOT),
        name: NameOption = None,
        chunk_size: ChunkOption = None,
        backend: BackendOption = Backend.local,
        address: AddressOption = None,
        as_json: JsonOption = False,
    ) -> None:
        from sim.cli.runner import executor_of, run_study
        from sim.study.chart import ChartRequest, strategy_chart

        executor = executor_of(workers, backend, address)
        policy = tuple(seats or ["greedy"])  # the policy line-up; default: greedy in every seat
        overrides = {} if players is None else {"players": players}
        r = rules_of(rules, rule, **overrides)
        if players is not None and r.players != players:
            fail(f"--players {players} conflicts with --rule players={r.players}")
        at = [_cell_of(text) for text in check_cell or []]
        seed, drawn = chosen_seed(seed)

        def play(progress: Any) -> _Charted:
            request = ChartRequest(
                rules=r, policy=policy, chart=kind, deals=deals, seed=seed, focal=seat,
                samples=samples, turns=turns, took=took, per_cell=per_cell,
                min_positions=min_positions, experiment=name or CHART.folder, out=out,
                chunk_size=chunk_size,
            )  # fmt: skip
            chart = strategy_chart(request, executor, progress=progress)
            verdict = None
            if kind != "discard" and (check or at):
                from sim.study.chart_check import checked

                verdict = checked(
                    chart, cells=check, deals=check_deals, at=at, threads=executor.local_workers,
                    progress=lambda done, total: progress(Steps(done, total, "check, play")),
                )  # fmt: skip
            return _Charted(chart, verdict, *_save_figures(chart))

        run_study("chart", seed, drawn, as_json, play, record=_Charted.record, show=_Charted.show)

    command.__doc__ = HELP[kind]
    return command


SUMMARY = {  # each command's line in the group's --help, whole at 80 columns
    "knock": "Knock or play on, by own turn and deadwood.",
    "draw": "Take the pile's card or draw, by own turn and card.",
    "discard": "How safe each discard is, by own turn and rank.",
}

for _kind in EXAMPLES:
    app.command(_kind, epilog=EXAMPLES[_kind], help=HELP[_kind], short_help=SUMMARY[_kind])(
        _command(_kind)
    )


@dataclass(frozen=True)
class _Charted:
    """What a chart command made: the chart, its check, its figures and report."""

    chart: StrategyChart
    verdict: ChartCheck | None  # the check, when one was asked for
    figures: list[StorePath]
    report: StorePath

    def record(self) -> dict[str, Any]:
        chart = self.chart
        return {
            "seed": chart.config.seed,
            "run_dir": str(chart.run_dir),
            "rules": chart.config.rule_set.name,
            "lineup": chart.config.lineup_label,
            "focal": chart.spec.focal,
            "deals": chart.deals,
            "positions": chart.positions,
            "spec": chart.spec.labels(),
            "figures": [str(p) for p in self.figures],
            "report": str(self.report),
            "cells": [_finite(row) for row in chart.cells.iter_rows(named=True)],
            "check": None if self.verdict is None else _finite(self.verdict.to_dict()),
        }

    def show(self) -> None:
        _print_card(self.chart)
        if self.verdict is not None:
            _print_check(self.chart, self.verdict)
        console().print(f"run: {self.chart.run_dir}", markup=False)
        console().print("chart: " + ", ".join(str(p) for p in self.figures), markup=False)
        console().print(f"report: {self.report}", markup=False)


def _finite(value: Any) -> Any:
    """A record for strict JSON: NaN (an interval with one position) becomes null."""
    if isinstance(value, dict):
        return {k: _finite(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_finite(v) for v in value]
    return None if isinstance(value, float) and not math.isfinite(value) else value


def _cell_of(text: str) -> tuple[int, int]:
    """``--check-cell TURN,COLUMN``."""
    parts = text.split(",")
    if len(parts) != 2 or not all(p.strip().isdigit() for p in parts):
        fail(f"--check-cell {text!r}: write TURN,COLUMN, e.g. 6,6")
    return int(parts[0]), int(parts[1])


def _print_check(chart: StrategyChart, check: Any) -> None:
    """The checked cells: the chart's prediction against the deviation played."""
    column = chart.spec.column_name
    table = compact_table(
        f"check: the other action in one cell, predicted and played on {check.deals:,} "
        "fresh deals (points per hand, 95% intervals)"
    )
    for name in ("turn", column, "action", "reach %", "predicted", "measured", ""):
        # the intervals never wrap; the verdict, last, wraps between its words
        table.add_column(
            name, justify="left" if name in ("action", "") else "right",
            no_wrap=name in ("predicted", "measured"),
        )  # fmt: skip
    for cell in check.cells:
        p, m = cell.predicted, cell.measured
        table.add_row(
            str(cell.turn), str(cell.column), cell.action, f"{cell.reach * 100:.2g}",
            # to the hundredth of a point: a card's gains need no more, and 80 columns fit
            format_estimate(p.estimate, p.low, p.high, sign=True, decimals=2),
            format_estimate(m.estimate, m.low, m.high, sign=True, decimals=2),
            _VERDICT_STYLE[check.verdict(cell)],
        )  # fmt: skip
    console().print(table)
    summary = check.summary()
    console().print(f"[bold red]{summary}[/]" if check.misses else summary, highlight=False)


_VERDICT_STYLE = {"agrees": "[green]agrees[/]", "MISSES": "[bold red]MISSES[/]",
                  "not reached": "[dim]not reached[/]", "too rare": "[dim]too rare[/]"}  # fmt: skip


def _save_figures(chart: StrategyChart) -> tuple[list[StorePath], StorePath]:
    """The chart's PNG and SVG files, and its HTML report, in its run folder."""
    from sim.present.chart_figure import save_chart_figures, write_chart_report

    paths = save_chart_figures(chart)
    pngs = [p for p in paths if p.suffix == ".png"]
    return paths, write_chart_report(chart, chart.run_dir / "report.html", pngs)


def _print_card(chart: StrategyChart) -> None:
    """Own turn by column (deadwood, what the pile card does, or the rank thrown): each
    cell's mean gain of the first action (points), marked and coloured by the verdict
    (■ green the first action, □ blue the second, ~ yellow too close, · dim too few: the
    marks tell them apart without colour, piped or printed); for the discard chart the
    share of discards the next seat took (percent, redder when higher)."""
    from sim.present.chart_figure import column_labels

    spec = chart.spec
    first, second = spec.actions
    style = {first: "bold green", second: "bold blue", **STYLE}
    mark = {first: "■", second: "□", "too close": "~"}
    labels = column_labels(chart)
    layers = [None] if spec.took == 1 else list(range(spec.took))
    for layer in layers:
        cells = chart.cells
        if layer is not None:
            cells = cells.filter(cells[spec.layer_name] == layer)
        by = {(r["turn"], r[spec.column_name]): r for r in cells.iter_rows(named=True)}
        if spec.chart == "discard":
            title = "discards taken by the next seat, percent"
            if layer is not None:
                title += " (it took a related card)" if layer else " (no related card taken)"
        else:
            title = f"{'knock now' if first == 'knock' else first} minus {second}, points per hand"
            if layer is not None:
                title += f" (opponents took {layer}{'+' if layer == spec.took - 1 else ''})"
        table = compact_table(title)
        table.add_column("turn", justify="right", style="bold")
        for label in labels:
            table.add_column(label, justify="right")
        for t in range(1, spec.turns + 1):
            row = []
            for d in range(len(labels)):
                cell = by.get((t, d))
                if cell is None:
                    row.append("")
                elif cell["verdict"] == "too few":
                    row.append("[dim]·[/dim]")
                elif spec.chart == "discard":
                    rate = cell["taken_rate"]
                    colour = "bold red" if rate >= 0.2 else "red" if rate >= 0.1 else "default"
                    row.append(f"[{colour}]{100 * rate:.0f}[/]")
                else:
                    verdict = cell["verdict"]
                    row.append(f"[{style[verdict]}]{cell['gain']:+.0f}{mark[verdict]}[/]")
            table.add_row(f"{t}+" if t == spec.turns else str(t), *row)
        console().print(table)
    if spec.chart == "discard":
        console().print(f"[dim]· too few[/]  {chart.positions:,} discards counted")
        return
    console().print(
        f"[bold green]■ {first}[/]  [bold blue]□ {second}[/]  [yellow]~ too close[/]  "
        "[dim]· too few[/]  "
        f"{chart.positions:,} positions, {spec.samples} samples each"
    )


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
    overrides = {} if players is None else {"players": players}
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
                "rounds": [_finite(r.to_dict()) for r in result.rounds],
                "fixed": result.fixed,
                "cycle": result.cycle,
                "final_seat": result.final_seat,
                "exploit": {k: _finite(c.to_dict()) for k, c in result.exploit.items()},
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
