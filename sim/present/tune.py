"""The chart of a tune: the curve with its CI band (one parameter), a heatmap (two),
or one profile per parameter through the best (more)."""

from __future__ import annotations

import math
from typing import Any

import numpy as np
import polars as pl

from sim.stats import DEFAULT_CONFIDENCE
from sim.store import StorePath
from sim.study.search import Point
from sim.study.tune import TuneResult
from sim.study.tune_request import TuneRequest
from sim.study.units import metric_name

__all__ = ["tune_chart"]


# --- the chart -----------------------------------------------------------------------------------

CHART_STEM = "charts/tune"  # charts/tune.png and .svg in the tune's folder


def save_chart(result: TuneResult) -> tuple[StorePath, ...]:
    """Draw the result's chart (:func:`tune_chart`) into its folder; the paths written."""
    from sim.present import charts

    fig = tune_chart(
        result.settings,
        result.request,
        best=result.best,
        default=result.default,
        confidence=result.confidence,
    )
    return tuple(charts.save(fig, result.directory / CHART_STEM))


def tune_chart(
    settings: pl.DataFrame,
    request: TuneRequest,
    *,
    best: Point,
    default: Point,
    confidence: float = DEFAULT_CONFIDENCE,
) -> Any:
    """Setting against expected points with CI bands: a curve for one parameter, a
    heatmap (settings played) for two, one profile through the best per parameter for
    more. A star marks the best; a dashed line the default (when it lies in the range)."""
    from sim.present import charts

    space = request.space
    metric = metric_name(request.mode)
    per = "hand" if request.mode == "deals" else "game"
    tuned, others = request.shown()
    who = f"{tuned} (seat 0) vs {'/'.join(others)}"
    title = f"Tuning {tuned} under {request.rules.name}: {metric}"
    seating = f", {request.rotations} seatings" if request.duplicate else ""
    subtitle = f"{who}; {request.count:,} {request.mode} per setting{seating}, same deals"
    candidates = settings.filter(pl.col("candidate"))
    points_label = f"net points per {per} (seat 0)"
    if len(space) == 1:
        name = space[0].name
        fig = charts.knock_curve(
            candidates.sort(name),
            x=name,
            line=None,
            points=("mean", "low", "high"),
            win=None,
            points_label=points_label,
            x_label=name,
            title=title,
            subtitle=subtitle,
            confidence=confidence,
        )
        ax = fig.axes[0]
        if default[0] not in space[0].values:  # e.g. greedy's -1, "the rule's limit"
            return fig
        ax.axvline(float(default[0]), color="0.35", linestyle="--", linewidth=1.0)
        ax.annotate(
            "default",
            (float(default[0]), 1.0),
            xycoords=("data", "axes fraction"),
            xytext=(3, -12),
            textcoords="offset points",
            fontsize=8,
            color="0.35",
        )
        return fig
    if len(space) == 2:
        x, y = space[0].name, space[1].name
        return charts.heatmap(
            candidates,
            x=x,
            y=y,
            value="mean",
            low="low",
            high="high",
            value_label=points_label,
            x_label=x,
            y_label=y,
            title=title + (" (settings played)" if len(candidates) < request.size else ""),
            mark_best="all",
        )
    return _profiles(
        candidates,
        request,
        best=best,
        default=default,
        title=title,
        subtitle=subtitle,
        points_label=points_label,
        confidence=confidence,
    )


def _profiles(
    frame: pl.DataFrame,
    request: TuneRequest,
    *,
    best: Point,
    default: Point,
    title: str,
    subtitle: str,
    points_label: str,
    confidence: float,
) -> Any:
    from sim.present import charts

    space = request.space
    n = len(space)
    with charts.figure_style():
        fig = charts.new_figure(4.2 * min(n, 3), 3.4 * math.ceil(n / 3) + 0.8)
        axes = fig.subplots(math.ceil(n / 3), min(n, 3), squeeze=False).ravel()
        for i, r in enumerate(space):
            ax = axes[i]
            held = [pl.col(o.name) == best[j] for j, o in enumerate(space) if j != i]
            sub = frame.filter(*held).sort(r.name) if held else frame.sort(r.name)
            xs = sub[r.name].to_numpy().astype(float)
            mean, low, high = (sub[c].to_numpy().astype(float) for c in ("mean", "low", "high"))
            ax.fill_between(xs, low, high, color="C0", alpha=0.18, linewidth=0)
            ax.plot(xs, mean, "-o", color="C0", markersize=3.5)
            k = (
                int(np.flatnonzero(xs == float(best[i]))[0])
                if (xs == float(best[i])).any()
                else None
            )
            if k is not None:
                ax.plot(
                    xs[k],
                    mean[k],
                    marker="*",
                    markersize=13,
                    color="C0",
                    markeredgecolor="black",
                    markeredgewidth=0.6,
                    linestyle="none",
                    zorder=5,
                )
            if default[i] in r.values:
                ax.axvline(float(default[i]), color="0.35", linestyle="--", linewidth=1.0)
            ax.set_xlabel(r.name)
            others = ", ".join(f"{o.name}={best[j]}" for j, o in enumerate(space) if j != i)
            ax.set_title(
                f"{others} held at the best", fontsize=8.5, fontweight="normal", color="0.3"
            )
            if i % 3 == 0:
                ax.set_ylabel(points_label)
        for ax in axes[n:]:
            ax.set_visible(False)
        fig.suptitle(
            f"{title}\n{subtitle}; band: {confidence * 100:g}% CI, star: best, dashed: default",
            fontweight="bold",
            fontsize=10,
        )
    return fig
