"""The strategy chart's front: ``rummy strategy-chart knock|draw|discard`` and
``rummy.strategy_chart``, declared once.

The policy line-up plays seeded deals; at each decision of the focal seat of the chart's
kind (knock: a discard where a knock is legal; draw: a draw with a card on the pile) the
two actions (knock now or play on; take or draw) are scored from the deal's true state,
the hand played on by the line-up itself after each; the discard chart counts what the
next seat takes. Each door prints or returns the card (own turn by column: the mean gain
of the first action and a verdict per cell), checks the cells with the largest predicted
effect as single-cell deviations on fresh deals (knock and draw charts), and writes the
cells as Parquet in the run, the chart as PNG and SVG and an HTML report beside them.
The chart's kind is the command's last word and the notebook's ``kind``. Examples::

    rummy strategy-chart knock --rules gin --seats greedy:knock_at=0 --deals 200_000
    rummy.strategy_chart("greedy:knock_at=0", kind="knock", rules="gin", deals=200_000)

``docs/CHARTS.md`` says how a chart is made. The study's modules load inside the
functions that play: ``rummy strategy-chart card`` plays nothing and reads this module.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING, Annotated, Any

import typer

from sim import sizes
from sim.front import params
from sim.front.declare import Front, Param, ParamsError, flag_of, literal, spelled
from sim.limits import MAX_CHART_SAMPLES, MAX_CHART_TURNS, MAX_DEADWOOD_COLUMNS
from sim.present.terminal import Steps, compact_table, console
from sim.stats import format_estimate
from sim.study.kinds import CHART
from sim.study.quantities import chart_units

if TYPE_CHECKING:
    from sim.store import StorePath
    from sim.study.chart import ChartRequest, StrategyChart
    from sim.study.chart_check import ChartCheck
    from sim.study.session import Session

__all__ = [
    "EXAMPLES",
    "FRONT",
    "HELP",
    "KINDS",
    "SUMMARY",
    "command_help",
    "finite",
    "param",
    "print_card",
]

# the charts, each the last word of its command (strategy-chart knock): the kind's
# declaration says them (sim.study.chart_cells.CHARTS too, behind numpy)
KINDS = tuple(command.split()[-1] for command in CHART.commands)

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
    "takes and the deadwood it saves it (95% CIs); {took} splits by whether the next "
    "seat took a related card. Nothing is played twice ({samples}, {per_cell} unused).",
}
SUMMARY = {  # each command's line in the group's --help, whole at 80 columns
    "knock": "Knock or play on, by own turn and deadwood.",
    "draw": "Take the pile's card or draw, by own turn and card.",
    "discard": "How safe each discard is, by own turn and rank.",
}
STYLE = {"too close": "yellow", "too few": "dim"}


def _kind() -> Param:
    """The chart's kind: the notebook's keyword; the command's last word (not an option)."""

    def read(value: Any) -> str:
        if value not in KINDS:
            raise ValueError(f"choose one of: {', '.join(KINDS)}")
        return str(value)

    option = typer.Option("--kind", help="knock, draw or discard.")
    return Param("kind", "The chart: knock, draw or discard.", Annotated[str, option], read,
                 "str", default="knock")  # fmt: skip


def _cells() -> Param:
    """Cells to check besides the largest: ``--check-cell 6,6`` (repeatable) at the
    command line; ``["6,6"]`` or ``[(6, 6)]`` in the notebook."""
    help = "Also check this cell: TURN,COLUMN (deadwood, or the draw chart's column number)"

    def cell(value: Any) -> tuple[int, int]:
        if isinstance(value, str):
            parts = value.split(",")
            if len(parts) == 2 and all(p.strip().isdigit() for p in parts):
                return int(parts[0]), int(parts[1])
        elif isinstance(value, tuple | list) and len(value) == 2:
            if all(isinstance(v, int) and not isinstance(v, bool) and v >= 0 for v in value):
                return int(value[0]), int(value[1])
        raise ValueError(f"{value!r}: write TURN,COLUMN, e.g. 6,6")

    def parse(items: list[str] | None) -> tuple[tuple[int, int], ...]:
        try:
            return tuple(cell(item) for item in items or [])
        except ValueError as error:
            raise ParamsError(literal(str(error)), "check_cell", items) from None

    def read(value: Any) -> tuple[tuple[int, int], ...]:
        if not isinstance(value, list | tuple):
            raise ValueError('give a list of cells, e.g. ["6,6"] or [(6, 6)]')
        return tuple(cell(item) for item in value)

    option = typer.Option("--check-cell", help=help + "; repeatable.", show_default=False)
    return Param("check_cell", help + "; a list.", Annotated[list[str] | None, option],
                 lambda v: () if v is None else read(v), "Sequence[str | tuple[int, int]] | None",
                 parse=parse)  # fmt: skip


PARAMS = (
    params.lineup("seats", "Line-up: seat specs separated by '/' or ',' "
                  "(greedy:knock_at=7/simple); one spec fills every seat.", "greedy", short="-s"),
    _kind(),
    params.preset("rules"),
    params.overrides("rule", short="-r"),
    params.number("players", "Seats (Knock Rummy: 2-6).", None, 2, 6),
    params.number("deals", "Deals the policy plays.", sizes.DEFAULT_DEALS["chart"], 1,
                  short="-n"),
    params.number("seat", "The focal seat.", 0, 0, 5),
    params.number("samples", "Plays of each action per position (the unseen stock "
                  "reshuffled).", sizes.CHART_SAMPLES, 1, MAX_CHART_SAMPLES),
    params.number("per_cell", "Positions a cell should get (common cells are thinned; 0: "
                  "score every position).", sizes.CHART_PER_CELL, 0),
    params.number("pilot", "Deals of the first pass that finds how common each cell is.",
                  sizes.CHART_PILOT, 1),
    params.number("turns", "Rows: own turns 1..N (N: N or later).", sizes.CHART_TURNS, 1,
                  MAX_CHART_TURNS),
    params.number("deadwood", "The knock chart's columns: deadwood 0..N-1, the last N-1 or "
                  "more (default: every deadwood a knock may have).", None, 1,
                  MAX_DEADWOOD_COLUMNS),
    params.flag("took", "Split by the pile cards the opponents took (0/1/2+; discard chart: "
                "whether the next seat took a related card)."),
    params.number("min_positions", "Fewer positions: 'too few', no verdict.",
                  sizes.CHART_MIN_POSITIONS, 2),
    params.number("check", "Knock and draw charts: play this many cells with the largest "
                  "predicted effect as single-cell deviations on fresh deals (0: none).",
                  sizes.CHECK_CELLS, 0),
    params.number("check_deals", "Fresh deals per checked cell (default: as many as {deals}, "
                  "at most 1,000,000).", None, 2),
    _cells(),
    params.seed(),
    params.folder_name(),
    params.chunk_size(),
)  # fmt: skip


def param(name: str) -> Param:
    """One of the chart's parameters (``solve`` takes the same ``samples``, ...: one home
    each)."""
    return next(p for p in PARAMS if p.name == name)


@dataclass(frozen=True)
class Plan:
    """The chart to play, and the check to make of it."""

    request: ChartRequest
    check: int
    check_deals: int | None
    at: tuple[tuple[int, int], ...]


def _request(values: Mapping[str, Any]) -> Plan:
    from sim.study.chart import ChartRequest

    rules = params.seated_rules(values)
    if values["seat"] >= rules.players:
        raise ParamsError(f"{rules.players} players sit at seats 0..{rules.players - 1}", "seat",
                          values["seat"])  # fmt: skip
    params.seated("seats", values["seats"], rules)
    request = ChartRequest(
        rules=rules, policy=values["seats"], chart=values["kind"], deals=values["deals"],
        seed=values["seed"], focal=values["seat"], samples=values["samples"],
        turns=values["turns"], deadwood=values["deadwood"], took=values["took"],
        per_cell=values["per_cell"], pilot=values["pilot"],
        min_positions=values["min_positions"], experiment=values["name"] or CHART.folder,
        chunk_size=values["chunk_size"],
    )  # fmt: skip
    with params.refused("deadwood", values["deadwood"]):  # the one its spec may refuse
        request.spec(rules)
    return Plan(request, values["check"], values["check_deals"], values["check_cell"])


@dataclass(frozen=True)
class Charted:
    """A chart played: its cells, its check (None: none asked for, or a discard chart),
    its figures and its report."""

    chart: StrategyChart
    check: ChartCheck | None
    figures: tuple[StorePath, ...]
    report: StorePath


def _play(plan: Plan, session: Session) -> Charted:
    from sim.present.chart_figure import save_chart_figures, write_chart_report
    from sim.study.chart import strategy_chart

    request = replace(plan.request, out=session.out)
    chart = strategy_chart(request, session.executor, progress=session.progress)
    check = None
    if request.chart != "discard" and (plan.check or plan.at):
        from sim.study.chart_check import checked

        def steps(done: int, total: int) -> None:
            if session.progress is not None:
                session.progress(Steps(done, total, "check, play"))

        check = checked(chart, cells=plan.check, deals=plan.check_deals, at=list(plan.at),
                        threads=session.executor.local_workers, progress=steps)  # fmt: skip
    figures = save_chart_figures(chart)
    pngs = [p for p in figures if p.suffix == ".png"]
    report = write_chart_report(chart, chart.run_dir / "report.html", pngs)
    return Charted(chart, check, tuple(figures), report)


def finite(value: Any) -> Any:
    """A record for strict JSON: NaN (an interval with one position) becomes null."""
    if isinstance(value, dict):
        return {k: finite(v) for k, v in value.items()}
    if isinstance(value, list):
        return [finite(v) for v in value]
    return None if isinstance(value, float) and not math.isfinite(value) else value


def _record(done: Charted) -> dict[str, Any]:
    chart = done.chart
    return {
        "seed": chart.config.seed,
        "run_dir": str(chart.run_dir),
        "rules": chart.config.rule_set.name,
        "lineup": chart.config.lineup_label,
        "focal": chart.spec.focal,
        "deals": chart.deals,
        "positions": chart.positions,
        "spec": chart.spec.labels(),
        "figures": [str(p) for p in done.figures],
        "report": str(done.report),
        "cells": [finite(row) for row in chart.cells.iter_rows(named=True)],
        "units": chart_units(chart.spec.chart),
        "check": None if done.check is None else finite(done.check.to_dict()),
    }


def _show(done: Charted) -> None:
    print_card(done.chart)
    if done.check is not None:
        _print_check(done.chart, done.check)
    console().print(f"run: {done.chart.run_dir}", markup=False)
    console().print("chart: " + ", ".join(str(p) for p in done.figures), markup=False)
    console().print(f"report: {done.report}", markup=False)


def _print_check(chart: StrategyChart, check: ChartCheck) -> None:
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


def print_card(chart: StrategyChart) -> None:
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


def _notebook(done: Charted) -> Any:
    from rummy.results import ChartResult

    return ChartResult.of(done.chart, done.check, done.figures, done.report)


def command_help(kind: str) -> str:
    """The help of ``strategy-chart KIND``, in the command's words."""
    return spelled(HELP[kind], flag_of)


FRONT = Front(
    kind=CHART,
    summary="A strategy chart: per own turn and deadwood (or card class, or rank) the mean "
    "gain of knocking over playing on (of taking over drawing) in points per hand with its "
    "95% interval and a verdict; the discard chart, how often the next seat takes each "
    "discard. The cells with the largest predicted effect are checked as single-cell "
    "deviations on fresh deals; the card is drawn as PNG and SVG, with an HTML report.",
    params=PARAMS,
    positional=1,
    request=_request,
    play=_play,
    show=_show,
    record=_record,
    notebook=_notebook,
    subcommand="kind",
)
