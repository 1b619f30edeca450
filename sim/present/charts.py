"""Charts of simulation results: each function returns a matplotlib ``Figure``.

Figures are built with ``matplotlib.figure.Figure`` directly (the Agg canvas; no pyplot,
no GUI, nothing is ever shown), so they are safe in a headless process and in threads.
:func:`save` writes a figure as PNG and SVG next to each other, atomically.

>>> from sim.present import charts, stats
>>> fig = charts.outcome_mix(stats.outcome_mix(hands, by=["variant"]), setting="variant")
>>> charts.save(fig, "runs/demo/outcome_mix")          # -> [..png, ..svg]

Inputs are polars frames with the columns of ``sim/stats.py``'s summaries (the column
names can be changed by keyword):

- :func:`knock_curve`: one row per (variant, threshold): ``net``/``net_low``/``net_high``
  (points per hand) and ``win_rate``/``win_low``/``win_high`` (fractions), as
  ``stats.seat_summary(hands, by=["variant", "threshold"])`` gives for one seat.
- :func:`heatmap`: one row per (x, y) cell with a value (and optionally low/high).
- :func:`outcome_mix`: ``stats.outcome_mix`` (long: setting, outcome, share).
- :func:`hand_length`: hand records with ``turns`` (or pre-counted ``turns``/``count``).
- :func:`tournament_matrix`: one row per (row player, column player) with the row
  player's win rate and net points per hand (or net final score per game) against the
  column player, with CIs (``sim.study.tournament`` cells).
"""

from __future__ import annotations

import contextlib
import io
import textwrap
from collections.abc import Iterator, Sequence
from typing import TYPE_CHECKING, Any

import matplotlib as mpl
import numpy as np
import polars as pl
from matplotlib.figure import Figure

from sim import store
from sim.store import PathInput, StorePath

if TYPE_CHECKING:
    from matplotlib.typing import RcKeyType

__all__ = [
    "OUTCOME_GROUPS",
    "annotate_cell",
    "hand_length",
    "heatmap",
    "knock_curve",
    "outcome_mix",
    "save",
    "tournament_matrix",
]

POINTS_LABEL = "net points per hand (points)"
WIN_LABEL = "win rate (%)"
THRESHOLD_LABEL = "knock threshold (deadwood)"
TURNS_LABEL = "turns (draws)"

# Outcome labels grouped for the mix chart: (legend text, outcome labels, colour).
OUTCOME_GROUPS: tuple[tuple[str, tuple[str, ...], str], ...] = (
    ("knock win", ("knock_win",), "#4C72B0"),
    ("undercut", ("undercut",), "#DD8452"),
    ("gin / rummy", ("gin", "big_gin", "rummy"), "#55A868"),
    ("tie", ("tie",), "#8172B3"),
    ("dead hand", ("dead_hand",), "#937860"),
    ("stock exhausted", ("exhausted",), "#8C8C8C"),
)

_STYLE: dict[RcKeyType, Any] = {
    "font.size": 10,
    "axes.titlesize": 11,
    "axes.titleweight": "bold",
    "axes.labelsize": 10,
    "axes.spines.top": False,
    "axes.spines.right": False,
    "axes.grid": True,
    "grid.alpha": 0.3,
    "grid.linewidth": 0.6,
    "legend.fontsize": 9,
    "axes.axisbelow": True,
    "legend.frameon": False,
    "figure.dpi": 100,
    "savefig.dpi": 150,
    "svg.hashsalt": "rummy-sim",  # stable SVG ids: same figure, same file
    "svg.fonttype": "none",  # text stays text in SVG (smaller, searchable)
}


@contextlib.contextmanager
def figure_style() -> Iterator[None]:
    with mpl.rc_context(_STYLE):
        yield


def new_figure(width: float, height: float) -> Figure:
    return Figure(figsize=(width, height), layout="constrained")


def annotate_cell(ax: Any, image: Any, row: int, column: int, text: str, fontsize: float) -> None:
    """Write ``text`` in a heatmap cell, white on dark colours and black on light ones
    (by the colour's luminance), so every cell stays readable whatever its value."""
    r, g, b, _ = image.cmap(image.norm(image.get_array()[row, column]))
    dark = 0.299 * r + 0.587 * g + 0.114 * b < 0.5
    ax.text(column, row, text, ha="center", va="center", fontsize=fontsize,
            color="white" if dark else "black")  # fmt: skip


def _frame(data: Any) -> pl.DataFrame:
    if isinstance(data, pl.LazyFrame):
        return data.collect()
    if isinstance(data, pl.DataFrame):
        return data
    return pl.DataFrame(data)


def _label_of(row: dict[str, Any], columns: Sequence[str]) -> str:
    """A group's legend text: strings as they are, numbers named (``gin · threshold 5``)."""
    parts = []
    for c in columns:
        v = row[c]
        numeric = isinstance(v, (int, float, np.number)) and not isinstance(v, bool)
        parts.append(f"{c} {v}" if numeric and len(columns) > 1 else str(v))
    return " · ".join(parts)


def _frame_axes(ax: Any) -> None:
    """A full frame and no grid (for image-like axes)."""
    ax.grid(False)
    for spine in ax.spines.values():
        spine.set_visible(True)


def _as_list(columns: str | Sequence[str] | None) -> list[str]:
    if columns is None:
        return []
    return [columns] if isinstance(columns, str) else list(columns)


def _colors(n: int) -> list[Any]:
    cmap = mpl.colormaps["tab10" if n <= 10 else "tab20"]
    return [cmap(i % cmap.N) for i in range(n)]


# --- knock-threshold curve -----------------------------------------------------------


def knock_curve(
    frame: pl.DataFrame | pl.LazyFrame,
    *,
    x: str = "threshold",
    line: str | Sequence[str] | None = "variant",
    points: tuple[str, str, str] = ("net", "net_low", "net_high"),
    win: tuple[str, str, str] | None = ("win_rate", "win_low", "win_high"),
    points_label: str = POINTS_LABEL,
    x_label: str = THRESHOLD_LABEL,
    title: str = "Knock threshold: points and win rate",
    subtitle: str | None = None,
    confidence: float = 0.95,
) -> Figure:
    """Expected points per hand (top) and win rate (bottom) against the knock threshold.

    One line per ``line`` group with its confidence interval (a band, and bars with caps
    so that a narrow interval still shows); a star marks each line's best threshold for
    points. Win rates are fractions in the frame, shown in percent; groups whose win
    rates are identical (rules that change only the scoring play the same hands) are
    drawn as one line, labelled with every group it stands for.
    """
    df = _frame(frame).sort(x)
    groups = _as_list(line)
    keys = df.select(groups).unique(maintain_order=True).to_dicts() if groups else [{}]
    panels = 2 if win is not None else 1
    with figure_style():
        fig = new_figure(7.5, 3.3 * panels + 0.6)
        axes = fig.subplots(panels, 1, sharex=True, squeeze=False)[:, 0]
        colors = _colors(len(keys))
        drawn_win: list[tuple[Any, Any]] = []  # (values, its Line2D) per win line drawn
        for key, color in zip(keys, colors, strict=True):
            sub = df.filter(*(pl.col(c) == v for c, v in key.items())) if key else df
            label = _label_of(key, groups) if key else None
            xs = sub[x].to_numpy()
            mean, low, high = (sub[c].to_numpy().astype(float) for c in points)
            ax = axes[0]
            ax.fill_between(xs, low, high, color=color, alpha=0.25, linewidth=0)
            ax.errorbar(xs, mean, yerr=_bar_lengths(mean, low, high), fmt="none",
                        ecolor=color, elinewidth=1.0, capsize=3)  # fmt: skip
            ax.plot(xs, mean, "-o", color=color, markersize=4, label=label)
            if np.isfinite(mean).any():
                b = int(np.nanargmax(mean))
                ax.plot(
                    xs[b],
                    mean[b],
                    marker="*",
                    markersize=14,
                    color=color,
                    markeredgecolor="black",
                    markeredgewidth=0.6,
                    linestyle="none",
                    zorder=5,
                )
            if win is not None:
                w, wl, wh = (sub[c].to_numpy().astype(float) * 100.0 for c in win)
                values = (tuple(xs), tuple(w), tuple(wl), tuple(wh))
                same = next((line for seen, line in drawn_win if seen == values), None)
                if same is not None:  # the same hands under another scoring: name it there
                    same.set_label(f"{same.get_label()} = {label}")
                    continue
                axes[1].fill_between(xs, wl, wh, color=color, alpha=0.25, linewidth=0)
                axes[1].errorbar(xs, w, yerr=_bar_lengths(w, wl, wh), fmt="none",
                                 ecolor=color, elinewidth=1.0, capsize=3)  # fmt: skip
                (drawn,) = axes[1].plot(xs, w, "-o", color=color, markersize=4, label=label)
                drawn_win.append((values, drawn))
        ax = axes[0]
        ax.axhline(0.0, color="black", linewidth=0.8, alpha=0.6)
        ax.set_ylabel(points_label)
        fig.suptitle(title, fontweight="bold")
        if subtitle:
            ax.set_title(subtitle, fontsize=9, fontweight="normal", color="0.25")
        if win is not None:
            axes[1].axhline(50.0, color="black", linewidth=0.8, alpha=0.6, linestyle=":")
            axes[1].set_ylabel(WIN_LABEL)
            merged = [str(ln.get_label()) for _, ln in drawn_win if " = " in str(ln.get_label())]
            if merged:
                axes[1].set_title(
                    "the same hands, so the same win rate: " + "; ".join(merged),
                    fontsize=8.5, fontweight="normal", color="0.3",
                )  # fmt: skip
        axes[-1].set_xlabel(x_label)
        xs_all = np.unique(df[x].to_numpy())
        if xs_all.size and np.issubdtype(xs_all.dtype, np.number) and xs_all.size <= 25:
            axes[-1].set_xticks(xs_all)
        handles, labels = axes[0].get_legend_handles_labels()
        from matplotlib.lines import Line2D
        from matplotlib.patches import Patch

        handles += [
            Patch(facecolor="grey", alpha=0.25, label=f"{confidence * 100:g}% CI"),
            Line2D(
                [],
                [],
                marker="*",
                color="grey",
                markeredgecolor="black",
                linestyle="none",
                markersize=11,
                label="best threshold",
            ),
        ]
        fig.legend(handles=handles, loc="outside lower center", ncol=min(len(handles), 5))
    return fig


def _bar_lengths(mean: Any, low: Any, high: Any) -> Any:
    """Error-bar lengths below and above each mean (0 where an end is missing)."""
    below = np.nan_to_num(np.asarray(mean) - np.asarray(low))
    above = np.nan_to_num(np.asarray(high) - np.asarray(mean))
    return np.vstack([np.maximum(below, 0.0), np.maximum(above, 0.0)])


# --- a comparison ----------------------------------------------------------------------


def comparison(
    sides: Sequence[tuple[str, float, float, float]],
    difference: tuple[float, float, float],
    *,
    unit: str,
    title: str,
    confidence: float = 0.95,
) -> Figure:
    """A comparison of two sides on the same deals: seat 0's result on each side
    (``(label, estimate, low, high)``, A first) with its interval, and beside it the
    paired difference A - B (``(estimate, low, high)``) against 0. The difference's own
    interval is the one to read: the sides' intervals overlap even where A - B excludes 0."""
    level = f"{confidence * 100:g}%"
    with figure_style():
        fig = new_figure(8.0, 2.8)
        left, right = fig.subplots(1, 2, width_ratios=(3, 2))
        y = np.arange(len(sides))[::-1]
        means = [m for _, m, _, _ in sides]
        bars = _bar_lengths(means, [lo for *_, lo, _ in sides], [hi for *_, hi in sides])
        left.errorbar(means, y, xerr=bars, fmt="o", capsize=4, color=_colors(1)[0])
        names = [f"{'AB'[i]}: {textwrap.shorten(label, 30)}" for i, (label, *_) in
                 enumerate(sides)]  # fmt: skip
        left.set_yticks(y, names)
        left.set_ylim(-0.6, len(sides) - 0.4)
        left.set_xlabel(f"seat 0's net {unit} [{level} CI]")
        d, low, high = difference
        right.errorbar([d], [0], xerr=_bar_lengths([d], [low], [high]), fmt="D", capsize=4,
                       color="#C44E52")  # fmt: skip
        right.set_yticks([0], ["A - B"])
        right.set_ylim(-0.6, 0.6)
        right.set_xlabel(f"A - B, paired [{level} CI]")
        for ax in (left, right):
            ax.axvline(0.0, color="0.35", linewidth=0.8, linestyle="--")
        fig.suptitle(title, fontsize=11)
    return fig


# --- heatmap ---------------------------------------------------------------------------


def heatmap(
    frame: pl.DataFrame | pl.LazyFrame,
    *,
    x: str = "threshold",
    y: str | Sequence[str] = "variant",
    value: str = "net",
    low: str | None = "net_low",
    high: str | None = "net_high",
    value_label: str = POINTS_LABEL,
    x_label: str = THRESHOLD_LABEL,
    y_label: str | None = None,
    title: str = "Net points per hand by knock threshold and variant",
    percent: bool = False,
    mark_best: str | None = "row",
    higher_is_better: bool = True,
    fmt: str | None = None,
) -> Figure:
    """A grid of ``value`` over ``x`` (columns) by ``y`` (rows), cells annotated.

    Each cell shows the value and, given ``low``/``high``, its interval ``[low, high]``. A
    diverging colour scale centred on 0 is used when values take both signs.
    ``mark_best="row"`` outlines the best cell of each row (``"all"``: of the grid;
    None: none), the highest unless ``higher_is_better=False``.
    ``percent=True`` shows fractions as percent.
    """
    df = _frame(frame)
    ys = _as_list(y)
    scale = 100.0 if percent else 1.0
    x_vals = df.select(x).unique().sort(x)[x].to_list()
    y_keys = df.select(ys).unique(maintain_order=True).to_dicts()
    y_names = [_label_of(k, ys) for k in y_keys]
    grid = np.full((len(y_keys), len(x_vals)), np.nan)
    lo, hi = np.full_like(grid, np.nan), np.full_like(grid, np.nan)
    x_index = {v: i for i, v in enumerate(x_vals)}
    y_index = {tuple(k.values()): i for i, k in enumerate(y_keys)}
    for row in df.iter_rows(named=True):
        i, j = y_index[tuple(row[c] for c in ys)], x_index[row[x]]
        grid[i, j] = float(row[value]) * scale
        if low and high and row.get(low) is not None and row.get(high) is not None:
            lo[i, j], hi[i, j] = float(row[low]) * scale, float(row[high]) * scale
    finite = grid[np.isfinite(grid)]
    with figure_style():
        fig = new_figure(max(5.5, 0.75 * len(x_vals) + 3.2), max(2.6, 0.62 * len(y_keys) + 1.8))
        ax = fig.subplots()
        _frame_axes(ax)
        if finite.size and finite.min() < 0 < finite.max():
            lim = float(np.abs(finite).max())
            cmap, vmin, vmax = "RdBu", -lim, lim
        else:
            cmap = "viridis"
            vmin, vmax = (float(finite.min()), float(finite.max())) if finite.size else (0.0, 1.0)
        im = ax.imshow(np.ma.masked_invalid(grid), cmap=cmap, vmin=vmin, vmax=vmax, aspect="auto")
        cbar = fig.colorbar(im, ax=ax, shrink=0.9)
        cbar.set_label(value_label)
        ax.set_xticks(range(len(x_vals)), [str(v) for v in x_vals])
        ax.set_yticks(range(len(y_names)), y_names)
        ax.set_xlabel(x_label)
        ax.set_ylabel(y_label if y_label is not None else " · ".join(ys))
        fig.suptitle(title, fontweight="bold")
        if fmt is None:
            span = float(np.abs(finite).max()) if finite.size else 1.0
            fmt = ".0f" if span >= 100 else ".1f" if span >= 10 else ".2f"
        small = len(x_vals) * len(y_keys) <= 300
        for i in range(grid.shape[0]):
            for j in range(grid.shape[1]):
                v = grid[i, j]
                if not np.isfinite(v) or not small:
                    continue
                text = format(v, fmt) + ("%" if percent else "")
                if np.isfinite(lo[i, j]) and np.isfinite(hi[i, j]):
                    text += f"\n[{format(lo[i, j], fmt)}, {format(hi[i, j], fmt)}]"
                annotate_cell(ax, im, i, j, text, fontsize=7.0)
        if mark_best and finite.size:
            from matplotlib.patches import Rectangle

            pick = np.nanargmax if higher_is_better else np.nanargmin
            if mark_best == "all":
                best = np.unravel_index(pick(grid), grid.shape)
                cells = [(int(best[0]), int(best[1]))]
            else:
                cells = [
                    (i, int(pick(grid[i])))
                    for i in range(grid.shape[0])
                    if np.isfinite(grid[i]).any()
                ]
            for i, j in cells:
                ax.add_patch(
                    Rectangle(
                        (j - 0.5, i - 0.5), 1, 1, fill=False, edgecolor="black", linewidth=2.0
                    )
                )
        notes = ["[95% CI] under each value"] if np.isfinite(lo).any() else []
        if mark_best and finite.size:
            notes.append(
                "outlined: best of each row" if mark_best == "row" else "outlined: best cell"
            )
        if notes:
            ax.set_title(";  ".join(notes), fontsize=8.5, fontweight="normal", color="0.3")
    return fig


# --- outcome mix -----------------------------------------------------------------------


def outcome_mix(
    frame: pl.DataFrame | pl.LazyFrame,
    *,
    setting: str | Sequence[str] = "variant",
    outcome: str = "outcome",
    share: str = "share",
    title: str = "How hands end",
) -> Figure:
    """Stacked horizontal bars: the share of hands ending each way, one bar per setting.

    Takes ``stats.outcome_mix(hands, by=[...])``; outcomes are grouped as in
    :data:`OUTCOME_GROUPS` (gin, big gin and rummy together) and groups that never
    happen are left out. Segments of 4% or more are labelled.
    """
    df = _frame(frame)
    cols = _as_list(setting)
    keys = df.select(cols).unique(maintain_order=True).to_dicts() if cols else [{}]
    names = [_label_of(k, cols) if k else "all hands" for k in keys]
    shares = np.zeros((len(keys), len(OUTCOME_GROUPS)))
    for i, key in enumerate(keys):
        sub = df.filter(*(pl.col(c) == v for c, v in key.items())) if key else df
        by_label = dict(
            zip(sub[outcome].cast(pl.String).to_list(), sub[share].to_list(), strict=True)
        )
        for g, (_, labels, _) in enumerate(OUTCOME_GROUPS):
            shares[i, g] = 100.0 * sum(float(by_label.get(lab, 0.0) or 0.0) for lab in labels)
    used = [g for g in range(len(OUTCOME_GROUPS)) if shares[:, g].max() > 0]
    with figure_style():
        fig = new_figure(8.0, max(2.4, 0.42 * len(keys) + 1.7))
        ax = fig.subplots()
        ax.grid(axis="y", visible=False)
        left = np.zeros(len(keys))
        ypos = np.arange(len(keys))
        for g in used:
            label, _, color = OUTCOME_GROUPS[g]
            ax.barh(
                ypos,
                shares[:, g],
                left=left,
                color=color,
                label=label,
                height=0.7,
                edgecolor="white",
                linewidth=0.5,
            )
            if len(keys) <= 40:
                for i in range(len(keys)):
                    if shares[i, g] >= 4.0:
                        ax.text(
                            left[i] + shares[i, g] / 2,
                            ypos[i],
                            f"{shares[i, g]:.0f}%",
                            ha="center",
                            va="center",
                            fontsize=7.5,
                            color="white",
                        )
            left += shares[:, g]
        ax.set_yticks(ypos, names)
        ax.invert_yaxis()
        ax.set_xlim(0, 100)
        ax.set_xlabel("share of hands (%)")
        ax.set_ylabel(" · ".join(cols) if cols else "")
        ax.set_title(title)
        fig.legend(loc="outside lower center", ncol=len(used))
    return fig


# --- hand length -----------------------------------------------------------------------


def hand_length(
    frame: pl.DataFrame | pl.LazyFrame,
    *,
    by: str | Sequence[str] | None = "variant",
    turns: str = "turns",
    count: str | None = None,
    title: str = "How long hands last",
    max_series: int = 10,
) -> Figure:
    """The distribution of hand length: share of hands (%) per number of turns.

    ``frame`` holds one row per hand (a ``turns`` column), or pre-counted rows with a
    ``count`` column. One step line per group (at most ``max_series``, the first seen);
    the legend gives each group's mean and median, and a dashed line marks the mean.
    """
    lf = _frame(frame).lazy()
    groups = _as_list(by)
    weight = pl.col(count).sum() if count else pl.len()
    counts = lf.group_by([*groups, turns]).agg(weight.alias("_n")).sort([*groups, turns]).collect()
    keys = (
        _frame(frame).select(groups).unique(maintain_order=True).head(max_series).to_dicts()
        if groups
        else [{}]
    )
    with figure_style():
        fig = new_figure(7.5, 4.0)
        ax = fig.subplots()
        colors = _colors(len(keys))
        top = 0.0
        for key, color in zip(keys, colors, strict=True):
            sub = counts.filter(*(pl.col(c) == v for c, v in key.items())) if key else counts
            t = sub[turns].to_numpy().astype(float)
            n = sub["_n"].to_numpy().astype(float)
            total = n.sum()
            if total == 0:
                continue
            share = 100.0 * n / total
            mean = float((t * n).sum() / total)
            median = float(t[np.searchsorted(np.cumsum(n), total / 2.0)])
            full = np.arange(int(t.min()), int(t.max()) + 1)
            dense = np.zeros(full.size)
            dense[(t - full[0]).astype(int)] = share
            name = _label_of(key, groups) if key else "all hands"
            ax.step(
                full,
                dense,
                where="mid",
                color=color,
                linewidth=1.6,
                label=f"{name} (mean {mean:.1f}, median {median:.0f})",
            )
            ax.axvline(mean, color=color, linestyle="--", linewidth=0.9, alpha=0.8)
            # the axis stops where 99.5% of every group's hands have ended
            top = max(top, float(t[np.searchsorted(np.cumsum(n), 0.995 * total)]))
        ax.set_xlabel(TURNS_LABEL)
        ax.set_ylabel("share of hands (%)")
        ax.set_ylim(bottom=0)
        ax.set_xlim(0, top + 1 if top else None)
        ax.set_title(title)
        ax.legend(title="dashed: mean", loc="upper right")
    return fig


# --- tournament matrix -----------------------------------------------------------------


def tournament_matrix(
    frame: pl.DataFrame | pl.LazyFrame,
    *,
    row: str = "player",
    col: str = "opponent",
    win: tuple[str, str, str] | None = ("win_rate", "win_low", "win_high"),
    points: tuple[str, str, str] | None = ("net", "net_low", "net_high"),
    title: str = "Round robin: row player against column player",
    confidence: float = 0.95,
    players: int = 2,
    mode: str = "deals",
) -> Figure:
    """Heatmaps of the row player's win rate (%) and net result against each column
    player, each cell with its CI half-width; the diagonal is blank.

    ``mode`` names what was measured: ``"deals"`` (share of hands won, net points per
    deal) or ``"games"`` (share of games won, net final score per game). The win
    colours are centred on the even share: ``1 / players`` of the hands (games) that
    someone won, i.e. ``(1 - no_winner_rate) / players`` with the mean
    ``no_winner_rate`` of the cells when the frame has that column, else
    ``1 / players``; net results are centred on 0.
    """
    if mode not in ("deals", "games"):
        raise ValueError(f"mode={mode!r} is not allowed; choose 'deals' or 'games'")
    if players < 2:
        raise ValueError(f"players={players} is not allowed; a round robin needs 2 or more")
    df = _frame(frame)
    won = "hands won" if mode == "deals" else "games won"
    net_label = "net points per hand" if mode == "deals" else "net final score per game"
    nobody = (
        float(df["no_winner_rate"].drop_nulls().mean() or 0.0)  # type: ignore[arg-type]
        if "no_winner_rate" in df.columns and df["no_winner_rate"].drop_nulls().len()
        else 0.0
    )
    even = 100.0 * (1.0 - nobody) / players
    names = list(
        dict.fromkeys(df[row].cast(pl.String).to_list() + df[col].cast(pl.String).to_list())
    )
    idx = {p: i for i, p in enumerate(names)}
    panels = [(spec, kind) for spec, kind in ((win, "win"), (points, "points")) if spec is not None]
    n = len(names)
    with figure_style():
        fig = new_figure(max(4.8, 0.85 * n + 2.4) * len(panels), max(3.6, 0.75 * n + 2.0))
        axes = fig.subplots(1, len(panels), squeeze=False)[0]
        for ax, (spec, kind) in zip(axes, panels, strict=True):
            scale = 100.0 if kind == "win" else 1.0
            grid = np.full((n, n), np.nan)
            lo, hi = np.full((n, n), np.nan), np.full((n, n), np.nan)
            for r in df.iter_rows(named=True):
                i, j = idx[str(r[row])], idx[str(r[col])]
                grid[i, j] = float(r[spec[0]]) * scale
                if r.get(spec[1]) is not None and r.get(spec[2]) is not None:
                    lo[i, j], hi[i, j] = float(r[spec[1]]) * scale, float(r[spec[2]]) * scale
            finite = grid[np.isfinite(grid)]
            center = even if kind == "win" else 0.0
            lim = float(np.abs(finite - center).max()) if finite.size else 1.0
            lim = lim or 1.0
            _frame_axes(ax)
            im = ax.imshow(
                np.ma.masked_invalid(grid), cmap="RdBu", vmin=center - lim, vmax=center + lim
            )
            cbar = fig.colorbar(im, ax=ax, shrink=0.85)
            cbar.set_label(f"{won} (%), even {even:.1f}%" if kind == "win" else net_label)
            ax.set_xticks(range(n), names, rotation=30, ha="right")
            ax.set_yticks(range(n), names)
            ax.set_xlabel("opponent (column)")
            ax.set_ylabel("player (row)")
            ax.set_title(
                f"{won} by row vs column (%)" if kind == "win" else f"{net_label}, row vs column"
            )
            fmt = ".1f"
            for i in range(n):
                for j in range(n):
                    if i == j or not np.isfinite(grid[i, j]):
                        ax.text(j, i, "—", ha="center", va="center", color="0.5")
                        continue
                    text = format(grid[i, j], fmt)
                    if np.isfinite(lo[i, j]) and np.isfinite(hi[i, j]):
                        text += f"\n[{format(lo[i, j], fmt)}, {format(hi[i, j], fmt)}]"
                    annotate_cell(ax, im, i, j, text, fontsize=7.5)
        fig.suptitle(f"{title} ([{confidence * 100:g}% CI] under each value)", fontweight="bold")
    return fig


# --- saving ----------------------------------------------------------------------------


def save(
    fig: Figure, path_stem: PathInput, formats: Sequence[str] = ("png", "svg")
) -> list[StorePath]:
    """Write ``fig`` as ``<path_stem>.png`` and ``<path_stem>.svg`` (atomically: each to
    a temporary file in the same folder, then renamed). Returns the paths written.

    The layout is computed for the first format and kept for the others (and for any
    later drawing of ``fig``): the constrained layout would come out the same each time,
    at a third of each later file's drawing time."""
    stem = store.location(path_stem)
    store.make_dir(stem.parent, "chart folder")
    written = []
    for ext in formats:
        target = stem.parent / f"{stem.name}.{ext}"
        image = io.BytesIO()
        with figure_style():
            metadata = {"Date": None} if ext == "svg" else None
            fig.savefig(image, format=ext, metadata=metadata, facecolor="white")
        fig.set_layout_engine("none")
        store.write_bytes_atomic(target, image.getbuffer())
        written.append(target)
    return written
