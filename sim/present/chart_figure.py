"""A strategy chart as a picture (a grid of own turn by deadwood, or by what the pile
card does, each cell coloured by its verdict and annotated with its mean gain) and as a
section of an HTML report.

>>> from sim.present.chart_figure import save_chart_figures, write_chart_report
>>> save_chart_figures(chart)            # a sim.study.chart.StrategyChart: PNG and SVG
>>> write_chart_report(chart, chart.run_dir / "report.html")
"""

from __future__ import annotations

import dataclasses
from typing import TYPE_CHECKING, Any

import numpy as np
import polars as pl
from matplotlib import colormaps
from matplotlib.colors import ListedColormap
from matplotlib.figure import Figure
from matplotlib.patches import Patch

from sim.present.charts import annotate_cell, figure_style, new_figure, save
from sim.store import PathInput, StorePath, location
from sim.study.chart_cells import RANKS
from sim.study.chart_check import load_check

if TYPE_CHECKING:
    from sim.study.chart import StrategyChart

__all__ = [
    "chart_figure",
    "column_labels",
    "discard_chart_figure",
    "chart_figures",
    "chart_section",
    "save_chart_figures",
    "short_lineup",
    "verdicts",
    "write_chart_report",
]

COLOURS = ("#e8e8e8", "#4C72B0", "#f2d98d", "#55A868")  # too few, second, too close, first


def verdicts(actions: tuple[str, str]) -> tuple[tuple[str, str, str], ...]:
    """Verdict, legend text, colour (index = the value drawn in the grid), for the two
    actions of a chart (first, second): the first is green, the second blue."""
    first, second = actions
    return (
        ("too few", "too few positions (no verdict)", COLOURS[0]),
        (second, f"{second} (CI below 0)", COLOURS[1]),
        ("too close", "too close to call (CI covers 0)", COLOURS[2]),
        (first, f"{first} (CI above 0)", COLOURS[3]),
    )


def chart_figure(
    cells: pl.DataFrame, *, title: str, turns: int, column: str, labels: list[str],
    actions: tuple[str, str] = ("knock", "play on"), took: int | None = None,
) -> Figure:  # fmt: skip
    """The chart of ``cells`` (one layer of pile cards taken: ``took``, or all of them
    when the chart was not split). Rows: the seat's own turn 1 .. ``turns`` (the last
    row: that turn or later); columns: the cells' ``column`` (the deadwood its best
    discard leaves, or what the pile card does), one per label; in each cell the mean
    gain of the first action over the second (points per hand)."""
    df = cells if took is None else cells.filter(pl.col("took") == took)
    shown = verdicts(actions)
    code = {name: i for i, (name, _, _) in enumerate(shown)}
    columns = len(labels)
    grid = np.full((turns, columns), np.nan)
    for r in df.iter_rows(named=True):
        grid[r["turn"] - 1, r[column]] = code[r["verdict"]]
    cmap = ListedColormap([colour for _, _, colour in shown])
    with figure_style():
        fig = new_figure(max(5.0, 0.62 * columns + 2.0), max(4.0, 0.42 * turns + 1.8))
        ax = fig.subplots()
        image = ax.imshow(
            np.ma.masked_invalid(grid), cmap=cmap, vmin=-0.5, vmax=len(shown) - 0.5,
            aspect="auto",
        )  # fmt: skip
        for r in df.iter_rows(named=True):
            i, j = r["turn"] - 1, r[column]
            gain = r["gain"]
            if r["verdict"] == "too few" or gain is None or not np.isfinite(gain):
                text = f"n={r['positions']}"  # no verdict, and no gain that reads as one
            else:
                text = f"{gain:+.1f}"
            annotate_cell(ax, image, i, j, text, fontsize=7)
        ax.set_xticks(range(columns), labels, rotation=30 if column == "card" else 0)
        ax.set_yticks(
            range(turns), [f"{t}+" if t == turns else str(t) for t in range(1, turns + 1)]
        )
        ax.set_xlabel(
            "deadwood after the best discard" if column == "deadwood"
            else "what the pile's top card does for the hand"
        )  # fmt: skip
        ax.set_ylabel("own turn")
        fig.suptitle(title, fontsize=9, fontweight="bold", wrap=True)
        handles: list[Any] = [Patch(color=c, label=text) for _, text, c in reversed(shown)]
        ax.legend(
            handles=handles, loc="upper left", bbox_to_anchor=(1.01, 1.0), fontsize=8,
            title=f"{actions[0]} vs {actions[1]}\n(cell: mean gain, points)", title_fontsize=8,
        )  # fmt: skip
    return fig


def discard_chart_figure(
    cells: pl.DataFrame, *, title: str, turns: int, interest: int | None = None
) -> Figure:
    """The discard chart of ``cells`` (one layer of the next seat's interest, or all):
    rows the seat's own turn, columns the rank thrown; each cell coloured by the share
    of such discards the next seat took and annotated with it (percent) and, below, the
    deadwood a discard of it saved the next seat on average (the taken ones saved
    more; 0 for the others). Cells with too few discards are grey, with their count."""
    df = cells if interest is None else cells.filter(pl.col("interest") == interest)
    grid = np.full((turns, len(RANKS)), np.nan)
    for r in df.iter_rows(named=True):
        if r["verdict"] != "too few":
            grid[r["turn"] - 1, r["rank"]] = 100.0 * r["taken_rate"]
    with figure_style():
        fig = new_figure(max(5.0, 0.62 * len(RANKS) + 2.5), max(4.0, 0.42 * turns + 1.8))
        ax = fig.subplots()
        cmap = colormaps["Reds"].with_extremes(bad=COLOURS[0])
        top = max(10.0, float(np.nanmax(grid))) if np.isfinite(grid).any() else 10.0
        image = ax.imshow(np.ma.masked_invalid(grid), cmap=cmap, vmin=0, vmax=top, aspect="auto")
        for r in df.iter_rows(named=True):
            i, j = r["turn"] - 1, r["rank"]
            if r["verdict"] == "too few":
                ax.text(j, i, f"n={r['discards']}", ha="center", va="center", fontsize=6)
            else:
                text = f"{100 * r['taken_rate']:.0f}%\n{r['cost']:.1f}"
                annotate_cell(ax, image, i, j, text, fontsize=6)
        ax.set_xticks(range(len(RANKS)), RANKS)
        ax.set_yticks(
            range(turns), [f"{t}+" if t == turns else str(t) for t in range(1, turns + 1)]
        )
        ax.set_xlabel("rank discarded")
        ax.set_ylabel("own turn")
        fig.suptitle(title, fontsize=9, fontweight="bold", wrap=True)
        bar = fig.colorbar(image, ax=ax, fraction=0.04, pad=0.02)
        bar.set_label("taken by the next seat (%); below: deadwood saved per discard", fontsize=8)
    return fig


def _took_label(layer: int, layers: int) -> str:
    return f"opponents took {layer}{'+' if layer == layers - 1 else ''} pile card(s)"


def _interest_label(layer: int) -> str:
    return "the next seat took a related card" if layer else "no related card taken"


def column_labels(chart: StrategyChart) -> list[str]:
    """The chart's column labels: deadwood values (the last "or more" where the rules
    set no knock limit), the draw chart's card classes or the discard chart's ranks."""
    spec = chart.spec
    if spec.column_labels is not None:
        return list(spec.column_labels)
    last = spec.deadwood - 1
    open_deadwood = chart.config.rule_set.knock_limit is None
    return [f"{j}+" if j == last and open_deadwood else str(j) for j in range(spec.deadwood)]


def short_lineup(names: tuple[str, ...]) -> str:
    """The line-up for a title, each seat as it is shown (``RunConfig.seat_names``:
    ``chart:gin``, ``chart#<digest>``, never a chart's parameters), and one name
    once when every seat plays it."""
    return f"{names[0]} in every seat" if len(set(names)) == 1 else "/".join(names)


def save_chart_figures(chart: StrategyChart, folder: PathInput | None = None) -> list[StorePath]:
    """Write the chart's figures as PNG and SVG (in its run folder by default)."""
    where = chart.run_dir if folder is None else location(folder)
    return [path for stem, fig in chart_figures(chart) for path in save(fig, where / stem)]


def chart_figures(chart: StrategyChart) -> list[tuple[str, Figure]]:
    """``(file stem, figure)`` of a chart: ``knock_chart`` (``draw_chart``), or with
    ``took`` layers one ``knock_chart_took<k>`` per layer."""
    spec, config = chart.spec, chart.config
    title = (
        f"{spec.chart.capitalize()} chart: {config.rule_set.name}, "
        f"{short_lineup(config.seat_names)}, seat {spec.focal}\n{chart.deals:,} deals, "
        + (
            f"{chart.positions:,} discards"
            if spec.chart == "discard"
            else f"{chart.positions:,} positions x {spec.samples} samples"
        )
    )
    layers = [None] if spec.took == 1 else list(range(spec.took))
    stem = f"{spec.chart}_chart"
    out = []
    for layer in layers:
        if spec.chart == "discard":
            label = "" if layer is None else f"; {_interest_label(layer)}"
            fig = discard_chart_figure(
                chart.cells, title=title + label, turns=spec.turns, interest=layer
            )
            out.append((stem if layer is None else f"{stem}_interest{layer}", fig))
            continue
        fig = chart_figure(
            chart.cells,
            title=title if layer is None else f"{title}; {_took_label(layer, spec.took)}",
            turns=spec.turns,
            column=spec.column_name,
            labels=column_labels(chart),
            actions=spec.actions,
            took=layer,
        )
        out.append((stem if layer is None else f"{stem}_took{layer}", fig))
    return out


def chart_section(chart: StrategyChart, figures: list[Any] | None = None) -> Any:
    """The chart's section of an HTML report (``sim.present.report.Section``): how it was
    made, its verdicts, its pictures (``figures``: paths or figures; default: drawn)
    and every cell."""
    from sim.present.report import Section

    spec = chart.spec
    counts = (
        chart.cells["verdict"].value_counts().sort("verdict").rows() if chart.cells.height else []
    )
    first, second = spec.actions
    if spec.chart == "discard":
        text = (
            f"The line-up {chart.config.shown_lineup} played {chart.deals:,} single deals; "
            f"every discard of seat {spec.focal} that the next seat then met was counted by "
            "own turn and rank: the share the next seat took (Wilson 95% interval) and the "
            "deadwood it saved that seat (its least deadwood before, less the least after "
            "its best discard), per taken card and per discard, with 95% t intervals "
            "(docs/CHARTS.md). Nothing is sampled: it is what the policies did."
        )
        figures = figures if figures is not None else [f for _, f in chart_figures(chart)]
        return Section("Discard chart", text=text, figures=figures, tables=[("Cells", chart.cells)])
    if spec.chart == "knock":
        where = f"each discard decision of seat {spec.focal} where a knock was legal"
        actions = (
            "knock now (the best discard laid away: the showdown of the real hands) and play "
            "on (the seat's own discard, then the line-up's own play to the hand's end)"
        )
    else:
        where = f"each draw decision of seat {spec.focal} with a card on the pile"
        actions = "take and draw, each followed by the line-up's own play to the hand's end"
    text = (
        f"The line-up {chart.config.shown_lineup} played {chart.deals:,} single deals; at "
        f"{where}, {actions} were scored from the deal's true state, {spec.samples} times "
        "each: once with the deal's own stock, then with the order of the unseen stock "
        "drawn anew (docs/CHARTS.md). A cell's gain is the mean over its positions of "
        f"({first} - {second}), in points per hand, with its 95% t interval; its verdict "
        f"is {first} or {second} when the interval excludes 0, too close when it covers 0, "
        "and too few below the minimum count (no verdict)."
    )
    notes = [f"{verdict}: {n} cell(s)" for verdict, n in counts]
    notes.append(f"positions thinned to about {spec.per_cell:,} per cell")
    tables: list[Any] = [("Cells (every column: the run's cells table)", _cell_rows(chart))]
    check = load_check(chart)
    if check is not None and check.cells:
        notes.append(check.summary())
        caption = (
            "Check: the other action in one cell, its predicted gain per hand (reach x gain) "
            f"and the gain measured on {check.deals:,} fresh paired deals (95% intervals)"
        )
        tables.append((caption, _check_rows(chart, check)))
    figures = figures if figures is not None else [f for _, f in chart_figures(chart)]
    return Section(
        f"{spec.chart.capitalize()} chart", text=text, figures=figures, notes=notes,
        tables=tables,
    )  # fmt: skip


def chart_rule(chart: StrategyChart) -> list[str]:
    """A knock or draw chart as the rule a player reads: the sentences of its card
    (``sim.present.chart_card``) for the knock or take masks ``strategy-chart export``
    makes of it (a cell without a verdict keeps the policy's own play)."""
    from sim.present.chart_card import knock_rules, take_rules
    from sim.study.chart_seat import knock_masks, take_masks

    if chart.spec.chart == "knock":
        gin = chart.config.rule_set.scoring != "knock"
        return ["Knock: " + " ".join(knock_rules(knock_masks(chart), gin))]
    if chart.spec.chart == "draw":
        return ["Take the pile card: " + " ".join(take_rules(take_masks(chart)))]
    return []


def chart_answer(chart: StrategyChart) -> list[str]:
    """The chart's answer in plain words: the rule it gives (:func:`chart_rule`), then
    how many cells say which action, and where each action pays most (its gain with the
    95% interval, in points per hand)."""
    from sim.stats import format_estimate

    spec = chart.spec
    cells = chart.cells
    if not cells.height or "verdict" not in cells.columns:
        return ["No cell was met: play more deals."]
    counts = dict(cells["verdict"].value_counts().rows())
    first, second = spec.actions
    total = sum(counts.values())
    out = [
        *chart_rule(chart),
        f"Of {total} cells (own turn by {spec.column_name}), {counts.get(first, 0)} say "
        f"{first}, {counts.get(second, 0)} say {second}, {counts.get('too close', 0)} are too "
        f"close to call and {counts.get('too few', 0)} have too few positions.",
    ]
    if spec.chart == "discard":
        return out
    labels = column_labels(chart)
    for action, pick in ((first, "max"), (second, "min")):
        chosen = cells.filter(pl.col("verdict") == action)
        if not chosen.height:
            continue
        r = chosen.sort("gain", descending=pick == "max").row(0, named=True)
        gain = format_estimate(r["gain"], r["gain_low"], r["gain_high"], sign=True)
        out.append(
            f"{action.capitalize()} pays most at own turn {r['turn']}, {spec.column_name} "
            f"{labels[r[spec.column_name]]}: {first} minus {second} is {gain} points per hand."
        )
    return out


def _check_rows(chart: StrategyChart, check: Any) -> list[dict[str, str]]:
    """The check's cells, compact: where, the action, its reach, the fresh deals that met
    it, predicted and measured gain per hand [95% CI], the verdict."""
    from sim.stats import format_estimate

    labels = column_labels(chart)
    rows = []
    for c in check.cells:
        rows.append(
            {
                "turn": str(c.turn),
                chart.spec.column_name: labels[c.column],
                "action": c.action,
                "reach %": f"{c.reach * 100:.2g}",
                "fresh deals met": f"{c.met:,}",
                "predicted, points/hand": format_estimate(
                    c.predicted.estimate, c.predicted.low, c.predicted.high, sign=True
                ),
                "measured, points/hand": format_estimate(
                    c.measured.estimate, c.measured.low, c.measured.high, sign=True
                ),
                "verdict": check.verdict(c),
            }
        )
    return rows


def _cell_rows(chart: StrategyChart) -> list[dict[str, str]]:
    """The cells, compact: where, how many positions, the gain [95% CI], the verdict and
    how often the policy itself took the first action."""
    from sim.stats import format_estimate

    spec = chart.spec
    if spec.chart == "discard" or not chart.cells.height:
        return chart.cells.to_dicts()
    labels = column_labels(chart)
    first = spec.actions[0].split()[0]
    chosen = f"{first}_chosen"
    rows = []
    for r in chart.cells.iter_rows(named=True):
        row = {"turn": str(r["turn"]), spec.column_name: labels[r[spec.column_name]]}
        if spec.took > 1:
            row["took"] = str(r["took"])
        row.update(
            {
                "positions": f"{r['positions']:,}",
                "gain, points/hand": format_estimate(
                    r["gain"], r["gain_low"], r["gain_high"], sign=True
                ),
                "verdict": str(r["verdict"]),
                f"policy chose {first} %": ""
                if r.get(chosen) is None
                else f"{r[chosen] * 100:.0f}",
            }
        )
        rows.append(row)
    return rows


def write_chart_report(
    chart: StrategyChart, path: PathInput, figures: list[Any] | None = None
) -> StorePath:
    """The chart's self-contained HTML report (its section, config and provenance)."""
    from sim.present.report import Section, write_report
    from sim.study.provenance import provenance

    config = chart.config
    section = chart_section(chart, figures)
    question = {
        "knock": "Where a knock is legal: knock now, or play on?",
        "draw": "With a card on the pile: take it, or draw from the stock?",
        "discard": "How safe is each discard: how often does the next seat take it?",
    }[chart.spec.chart]
    answer = Section(
        "Answer", text=question, notes=chart_answer(chart), figures=section.figures[:1]
    )
    rest = dataclasses.replace(section, figures=section.figures[1:])
    return write_report(
        f"{chart.spec.chart.capitalize()} chart: {config.rule_set.name}, "
        f"{short_lineup(config.seat_names)}",
        [answer, rest],
        config=config.to_dict(),
        provenance=provenance(config),
        path=path,
        subtitle=f"run {config.run_id}, seed {config.seed}",
    )
