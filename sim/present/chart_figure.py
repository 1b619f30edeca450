"""The knock chart as a picture: a grid of own turn by deadwood, each cell coloured by
its verdict and annotated with its mean gain (``sim.study.chart`` cells).

>>> from sim.present.chart_figure import knock_chart_figure
>>> charts.save(knock_chart_figure(chart.cells, title="gin, greedy"), "knock_chart")
"""

from __future__ import annotations

from typing import Any

import numpy as np
import polars as pl
from matplotlib.colors import ListedColormap
from matplotlib.figure import Figure
from matplotlib.patches import Patch

from sim.present.charts import annotate_cell, figure_style, new_figure

__all__ = ["VERDICTS", "knock_chart_figure"]

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
