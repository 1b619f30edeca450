"""The knock chart as a picture (a grid of own turn by deadwood, each cell coloured by
its verdict and annotated with its mean gain) and as a section of an HTML report.

>>> from sim.present.chart_figure import knock_chart_figures, write_knock_chart_report
>>> for stem, fig in knock_chart_figures(chart):      # a sim.study.chart.KnockChart
...     charts.save(fig, chart.run_dir / stem)
>>> write_knock_chart_report(chart, chart.run_dir / "report.html")
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np
import polars as pl
from matplotlib.colors import ListedColormap
from matplotlib.figure import Figure
from matplotlib.patches import Patch

from sim.present.charts import annotate_cell, figure_style, new_figure

if TYPE_CHECKING:
    from sim.study.chart import KnockChart

__all__ = [
    "VERDICTS",
    "knock_chart_figure",
    "knock_chart_figures",
    "knock_chart_section",
    "write_knock_chart_report",
]

# Verdict, legend text, colour (index = the value drawn in the grid).
VERDICTS: tuple[tuple[str, str, str], ...] = (
    ("too few", "too few positions (no verdict)", "#e8e8e8"),
    ("play on", "play on (CI below 0)", "#4C72B0"),
    ("too close", "too close to call (CI covers 0)", "#f2d98d"),
    ("knock", "knock (CI above 0)", "#55A868"),
)


def knock_chart_figure(
    cells: pl.DataFrame, *, title: str, turns: int, columns: int, open_deadwood: bool,
    took: int | None = None,
) -> Figure:  # fmt: skip
    """The chart of ``cells`` (one layer of pile cards taken: ``took``, or all of them
    when the chart was not split). Rows: the seat's own turn 1 .. ``turns`` (the last
    row: that turn or later); columns: the deadwood its best discard leaves, 0 ..
    ``columns - 1`` (the last one "or more" when ``open_deadwood``: no knock limit);
    in each cell the mean gain of knocking over playing on (points per hand)."""
    df = cells if took is None else cells.filter(pl.col("took") == took)
    code = {name: i for i, (name, _, _) in enumerate(VERDICTS)}
    grid = np.full((turns, columns), np.nan)
    for r in df.iter_rows(named=True):
        grid[r["turn"] - 1, r["deadwood"]] = code[r["verdict"]]
    cmap = ListedColormap([colour for _, _, colour in VERDICTS])
    with figure_style():
        fig = new_figure(max(5.0, 0.62 * columns + 2.0), max(4.0, 0.42 * turns + 1.8))
        ax = fig.subplots()
        image = ax.imshow(
            np.ma.masked_invalid(grid), cmap=cmap, vmin=-0.5, vmax=len(VERDICTS) - 0.5,
            aspect="auto",
        )  # fmt: skip
        for r in df.iter_rows(named=True):
            i, j = r["turn"] - 1, r["deadwood"]
            gain = r["gain"]
            if r["verdict"] == "too few" or gain is None or not np.isfinite(gain):
                text = f"n={r['positions']}"  # no verdict, and no gain that reads as one
            else:
                text = f"{gain:+.1f}"
            annotate_cell(ax, image, i, j, text, fontsize=7)
        last = columns - 1
        ax.set_xticks(
            range(columns),
            [f"{j}+" if j == last and open_deadwood else str(j) for j in range(columns)],
        )
        ax.set_yticks(
            range(turns), [f"{t}+" if t == turns else str(t) for t in range(1, turns + 1)]
        )
        ax.set_xlabel("deadwood after the best discard")
        ax.set_ylabel("own turn")
        fig.suptitle(title, fontsize=9, fontweight="bold", wrap=True)
        handles: list[Any] = [Patch(color=c, label=text) for _, text, c in reversed(VERDICTS)]
        ax.legend(
            handles=handles, loc="upper left", bbox_to_anchor=(1.01, 1.0), fontsize=8,
            title="knock now vs play on\n(cell: mean gain, points)", title_fontsize=8,
        )  # fmt: skip
    return fig


def _took_label(layer: int, layers: int) -> str:
    return f"opponents took {layer}{'+' if layer == layers - 1 else ''} pile card(s)"


def knock_chart_figures(chart: KnockChart) -> list[tuple[str, Figure]]:
    """``(file stem, figure)`` of a chart: ``knock_chart``, or with ``took`` layers one
    ``knock_chart_took<k>`` per layer."""
    spec, config = chart.spec, chart.config
    title = (
        f"Knock chart: {config.rules.name}, {config.lineup_label}, seat {spec.focal}\n"  # type: ignore[union-attr]
        f"{chart.deals:,} deals, {chart.positions:,} positions x {spec.samples} samples"
    )
    layers = [None] if spec.took == 1 else list(range(spec.took))
    out = []
    for layer in layers:
        fig = knock_chart_figure(
            chart.cells,
            title=title if layer is None else f"{title}; {_took_label(layer, spec.took)}",
            turns=spec.turns,
            columns=spec.deadwood,
            open_deadwood=config.rules.knock_limit is None,  # type: ignore[union-attr]
            took=layer,
        )
        out.append(("knock_chart" if layer is None else f"knock_chart_took{layer}", fig))
    return out


def knock_chart_section(chart: KnockChart, figures: list[Any] | None = None) -> Any:
    """The chart's section of an HTML report (``sim.present.report.Section``): how it was
    made, its verdicts, its pictures (``figures``: paths or figures; default: drawn)
    and every cell."""
    from sim.present.report import Section

    spec = chart.spec
    counts = (
        chart.cells["verdict"].value_counts().sort("verdict").rows() if chart.cells.height else []
    )
    text = (
        f"The line-up {chart.config.lineup_label} played {chart.deals:,} single deals; at "
        f"each discard decision of seat {spec.focal} where a knock was legal, knocking now "
        f"and playing on were scored on the same {spec.samples} sampled deals of the cards "
        "that seat could not see (docs/CHARTS.md). A cell's gain is the mean over its "
        "positions of (knock - play on), in points per hand, with its 95% t interval; "
        "its verdict is knock or play on when the interval excludes 0, too close when it "
        "covers 0, and too few below the minimum count (no verdict)."
    )
    notes = [f"{verdict}: {n} cell(s)" for verdict, n in counts]
    notes.append(
        f"play on: the seat throws the best discard, then greedy play by every seat, this "
        f"seat knocking at {spec.knock_at} (-1: the rule's limit), pile test min_gain "
        f"{spec.min_gain}; positions thinned to about {spec.per_cell:,} per cell"
    )
    figures = figures if figures is not None else [f for _, f in knock_chart_figures(chart)]
    return Section(
        "Knock chart", text=text, figures=figures, notes=notes, tables=[("Cells", chart.cells)]
    )


def write_knock_chart_report(
    chart: KnockChart, path: str | os.PathLike[str], figures: list[Any] | None = None
) -> Path:
    """The chart's self-contained HTML report (its section, config and provenance)."""
    from sim.present.report import write_report
    from sim.study.provenance import provenance

    config = chart.config
    return write_report(
        f"Knock chart: {config.rules.name}, {config.lineup_label}",  # type: ignore[union-attr]
        [knock_chart_section(chart, figures)],
        config=config.to_dict(),
        provenance=provenance(config),
        path=path,
        subtitle=f"run {config.run_id}, seed {config.seed}",
    )
