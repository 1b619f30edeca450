"""Finished strategy charts as a ``chart`` seat (``strategies/chart.py``): the numbers
``rummy strategy-chart export`` prints.

>>> from sim.study.chart import load_chart
>>> chart_seat(load_chart("results/chart/KNOCK_RUN"), draw=load_chart("results/chart/DRAW_RUN"))
'chart:k1=...,t1=...,safety=...'

The mapping (``docs/CHARTS.md``, "The chart strategy"):

* knock mask of own turn t, bit d: set when the knock chart's cell (t, d) says
  "knock"; a cell with no verdict (too close, too few, not met) falls back to the
  chart policy's own rule: knock when d is at most its ``knock_at`` (-1: the rule's
  limit, or 10). Own turns past the chart's last row read that row; bit 30 reads the
  last deadwood column of a chart without a knock limit ("30 or more");
* take mask of own turn t, bit c: set when the draw chart's cell (t, c) says "take";
  a cell with no verdict (or no draw chart) takes only a meld;
* safety: the ranks by the share of their discards the next seat took, pooled over
  turns, least taken first (ties: higher rank first); without a discard chart, high
  cards first (the strategy's default); ranks the chart never met come last.
"""

from __future__ import annotations

from typing import Any

import polars as pl

from kernels.chart import DRAW_MELD
from sim.study.chart import StrategyChart
from sim.study.runs import RunError
from strategies.chart import (
    DEFAULT_TAKE,
    HIGH_FIRST,
    KNOCK_TOP,
    RANKS,
    STRATEGY,
    TURNS,
    safety_of,
)
from strategies.greedy import DEFAULT_KNOCK_AT

__all__ = ["chart_params", "chart_seat"]


def _verdicts(chart: StrategyChart) -> dict[tuple[int, int], str]:
    """The verdict of each cell met, by (own turn, column)."""
    column = chart.spec.column_name
    return {(r["turn"], r[column]): r["verdict"] for r in chart.cells.iter_rows(named=True)}


def _check(chart: StrategyChart | None, kind: str, knock: StrategyChart) -> None:
    if chart is None:
        return
    if chart.spec.chart != kind:
        raise RunError(f"{chart.run_dir} is a {chart.spec.chart} chart, not a {kind} chart")
    if chart.spec.took != 1:
        raise RunError(
            f"{chart.run_dir} is split by {chart.spec.layer_name} (--took); "
            "export reads charts made without --took"
        )
    if chart is not knock and chart.config.rules.to_dict() != knock.config.rules.to_dict():
        raise RunError(
            f"the {kind} chart {chart.run_dir} was made under other rules "
            f"({chart.config.rules.name}, {chart.config.players} players) than the knock "
            f"chart ({knock.config.rules.name}, {knock.config.players} players)"
        )


def _knock_masks(chart: StrategyChart) -> list[int]:
    verdicts = _verdicts(chart)
    spec = chart.spec
    policy_at = spec.knock_at
    if policy_at < 0:
        limit = chart.config.rules.knock_limit
        policy_at = limit if limit is not None and limit >= 0 else DEFAULT_KNOCK_AT
    columns = min(spec.deadwood, KNOCK_TOP + 1)
    masks = []
    for turn in range(1, TURNS + 1):
        mask = 0
        for d in range(columns):
            verdict = verdicts.get((min(turn, spec.turns), d))
            if verdict in ("knock", "play on"):
                knocks = verdict == "knock"
            else:  # no verdict: the policy's own rule
                knocks = d <= policy_at
            mask |= knocks << d
        masks.append(mask)
    return masks


def _take_masks(chart: StrategyChart | None) -> list[int]:
    if chart is None:
        return [DEFAULT_TAKE] * TURNS
    verdicts = _verdicts(chart)
    masks = []
    for turn in range(1, TURNS + 1):
        mask = 0
        for c in range(chart.spec.n_columns):
            verdict = verdicts.get((min(turn, chart.spec.turns), c))
            if verdict in ("take", "draw"):
                takes = verdict == "take"
            else:  # no verdict: only a meld
                takes = c == DRAW_MELD
            mask |= takes << c
        masks.append(mask)
    return masks


def _safety(chart: StrategyChart | None) -> int:
    if chart is None:
        return HIGH_FIRST
    cells = chart.cells.filter(pl.col("rank") < RANKS)
    pooled = cells.group_by("rank").agg(
        pl.col("discards").sum(), (pl.col("taken_rate") * pl.col("discards")).sum().alias("taken")
    )
    rate = {r["rank"]: r["taken"] / r["discards"] for r in pooled.iter_rows(named=True)}
    order = sorted(rate, key=lambda rank: (rate[rank], -rank))
    # Ranks never thrown have no rate: last, high first (an order lists all 13).
    return safety_of(order + [rank for rank in reversed(range(RANKS)) if rank not in rate])


def chart_params(
    knock: StrategyChart, draw: StrategyChart | None = None, discard: StrategyChart | None = None
) -> Any:
    """The ``chart`` strategy's parameters from finished charts (see the module notes).

    Raises
    ------
    RunError
        A chart of the wrong kind, split by ``--took``, or made under other rules than
        the knock chart.
    """
    for chart, kind in ((knock, "knock"), (draw, "draw"), (discard, "discard")):
        _check(chart, kind, knock)
    values = dict(
        zip([f"k{t}" for t in range(1, TURNS + 1)], _knock_masks(knock), strict=True)
    ) | dict(zip([f"t{t}" for t in range(1, TURNS + 1)], _take_masks(draw), strict=True))
    return STRATEGY.params(**values, safety=_safety(discard))


def chart_seat(
    knock: StrategyChart, draw: StrategyChart | None = None, discard: StrategyChart | None = None
) -> str:
    """The seat spec of :func:`chart_params`, every field written out (a saved spec
    keeps its meaning if the strategy's defaults change)."""
    params = chart_params(knock, draw, discard)
    return "chart:" + ",".join(f"{k}={v}" for k, v in zip(params._fields, params, strict=True))
