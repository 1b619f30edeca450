"""Finished strategy charts as a ``chart`` seat (``strategies/chart.py``): the numbers
``rummy strategy-chart export`` prints.

>>> from sim.study.chart import load_chart
>>> chart_seat(load_chart("results/chart/KNOCK_RUN"), draw=load_chart("results/chart/DRAW_RUN"))
'chart:k1=...,t1=...,safety=...'

The mapping (``docs/CHARTS.md``, "The chart strategy"):

* knock mask of own turn t: knocks with deadwood d when the knock chart's cell (t, d)
  says "knock" (``strategies.chart.knock_mask`` writes the bits); a cell with no
  verdict (too close, too few) keeps what the policy itself did there (knock when it
  knocked at most of the cell's positions), and a cell never met follows the
  policy's own rule (``_policy_knocks``). Own turns past the chart's last row read
  that row; without a knock limit the chart's last deadwood column ("that or more")
  stands for every deadwood from it up;
* take mask of own turn t, bit c: set when the draw chart's cell (t, c) says "take";
  a cell with no verdict keeps what the policy did there, a cell never met follows the
  policy's own rule (``_policy_takes``);
* safety: the ranks by the share of their discards the next seat took, pooled over
  turns, least taken first (ties: higher rank first); ranks the chart never met come
  last;
* without a draw (discard) chart, the seat takes (discards) as the policy does where
  the chart strategy can say it: greedy's pile test (take bit 7) and discard (safety 0)
  for ``greedy``, its own masks (order) for a ``chart`` seat; for any other policy the
  chart strategy's defaults (only a meld; high cards first);
* lookahead and gin_chance: a ``chart`` policy's own (no chart measures them),
  otherwise 0.

Every chart must come from the same rules, line-up, focal seat and round as the knock
chart: a seat is the answer to one policy's play.
"""

from __future__ import annotations

from typing import Any

import polars as pl

from kernels.chart import DRAW_LOWER_1, DRAW_LOWER_4, DRAW_LOWER_7, DRAW_MELD
from kernels.greedy import DEFAULT_KNOCK_AT
from sim.stats import normal_quantile
from sim.study.chart import StrategyChart
from sim.study.runs import RunError
from strategies import parse_seat
from strategies.chart import (
    DEFAULT_TAKE,
    HIGH_FIRST,
    K0,
    KNOCK_COLUMNS,
    RANKS,
    STRATEGY,
    T0,
    TAKE_LOWERS,
    TURNS,
    WEIGHTS,
    knock_mask,
    knock_wanted,
    safety_of,
)

__all__ = ["chart_params", "chart_seat"]

# The draw chart's columns greedy takes: a meld card (which lowers its deadwood but for
# the rare high card it would rather throw) and every card that lowers its deadwood.
GREEDY_TAKES = (DRAW_MELD, DRAW_LOWER_1, DRAW_LOWER_4, DRAW_LOWER_7)


def _cells(chart: StrategyChart) -> dict[tuple[int, int], dict[str, Any]]:
    """Each cell met, by (own turn, column)."""
    column = chart.spec.column_name
    return {(r["turn"], r[column]): r for r in chart.cells.iter_rows(named=True)}


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
    if chart is knock:
        return
    if chart.config.rule_set.to_dict() != knock.config.rule_set.to_dict():
        raise RunError(
            f"the {kind} chart {chart.run_dir} was made under other rules "
            f"({chart.config.rule_set.name}, {chart.config.players} players) than the knock "
            f"chart ({knock.config.rule_set.name}, {knock.config.players} players)"
        )
    theirs = (chart.config.lineup_label, chart.spec.focal, chart.spec.round)
    ours = (knock.config.lineup_label, knock.spec.focal, knock.spec.round)
    if theirs != ours:
        raise RunError(
            f"the {kind} chart {chart.run_dir} was made of another play than the knock chart "
            f"(line-up {theirs[0]}, seat {theirs[1]}, round {theirs[2]}; the knock chart: "
            f"{ours[0]}, seat {ours[1]}, round {ours[2]})"
        )


def _policy(chart: StrategyChart) -> tuple[Any, Any]:
    """The focal seat's strategy and parameters in the chart's line-up."""
    return parse_seat(chart.config.lineup[chart.spec.focal])


def _policy_knocks(chart: StrategyChart, turn: int, deadwood: int) -> bool:
    """What the policy does in a knock cell the chart never met: a chart seat its own
    bit; a strategy with ``knock_at`` knocks at that or less (-1: the rule's limit, or
    10); any other knocks whenever it may (at the rule's limit, or 10)."""
    strategy, params = _policy(chart)
    if strategy.name == STRATEGY.name:
        return bool(knock_wanted(params[K0 + turn - 1], deadwood))
    at = getattr(params, "knock_at", -1)
    if at < 0:
        limit = chart.config.rule_set.knock_limit
        at = limit if isinstance(limit, int) else DEFAULT_KNOCK_AT
    return deadwood <= at


def _policy_takes(chart: StrategyChart, turn: int, column: int) -> bool:
    """What the policy does in a draw cell the chart never met: a chart seat its own
    bit; greedy takes a card that makes a meld or lowers its deadwood; any other takes
    only a meld."""
    strategy, params = _policy(chart)
    if strategy.name == STRATEGY.name:
        return bool(params[T0 + turn - 1] >> column & 1)
    if strategy.name == "greedy":
        return column in GREEDY_TAKES
    return column == DRAW_MELD


def _own_play(chart: StrategyChart) -> tuple[list[int], int]:
    """The take masks and safety order of the policy's own play, where the chart
    strategy can say it (see the module notes)."""
    strategy, params = _policy(chart)
    if strategy.name == STRATEGY.name:
        return list(params[T0 : T0 + TURNS]), params.safety
    if strategy.name == "greedy":
        return [TAKE_LOWERS] * TURNS, 0
    return [DEFAULT_TAKE] * TURNS, HIGH_FIRST


def _choices(
    chart: StrategyChart, columns: int, first: str, fallback: Any, familywise: bool
) -> list[list[bool]]:
    """Per own turn, per column c: whether to play ``first`` in cell (turn, c): as the
    cell says; a cell without a verdict keeps the policy's own majority there; a cell
    never met ``fallback``. With ``familywise`` a verdict that changes the policy's
    majority must also hold at 95% over every cell with a verdict (Bonferroni):
    ``_switches``."""
    cells = _cells(chart)
    z = _familywise_z(chart) if familywise else 0.0
    turns = []
    for turn in range(1, TURNS + 1):
        row = []
        for c in range(columns):
            cell = cells.get((min(turn, chart.spec.turns), c))
            if cell is None:
                row.append(bool(fallback(chart, turn, c)))
                continue
            share = cell[f"{first}_chosen"]
            own = fallback(chart, turn, c) if share is None else share >= 0.5
            if cell["verdict"] in chart.spec.actions:
                says = cell["verdict"] == first
                row.append(says if says == own or _switches(cell, z) else bool(own))
            else:  # too close, too few: what the policy did there (none scored: its rule)
                row.append(bool(own))
        turns.append(row)
    return turns


def _familywise_z(chart: StrategyChart) -> float:
    """The normal quantile that keeps 95% over the chart's cells with a verdict."""
    m = sum(r["verdict"] in chart.spec.actions for r in chart.cells.iter_rows(named=True))
    return normal_quantile(1 - 0.025 / max(m, 1))


def _switches(cell: dict[str, Any], z: float) -> bool:
    """The cell's gain is further from 0 than ``z`` standard errors (its 95% t interval's
    half width is 1.96 of them, near enough for the sizes charts have)."""
    se = (cell["gain_high"] - cell["gain_low"]) / (2 * 1.96)
    return abs(cell["gain"]) > z * se


def knock_masks(chart: StrategyChart, familywise: bool = False) -> list[int]:
    """The chart strategy's knock masks (``k1`` ..) that a knock chart gives."""
    columns = min(chart.spec.deadwood, KNOCK_COLUMNS)
    rows = _choices(chart, columns, "knock", _policy_knocks, familywise)
    if chart.config.rule_set.knock_limit is None:  # the last column: "that or more"
        rows = [row + row[-1:] * (KNOCK_COLUMNS - columns) for row in rows]
    return [knock_mask(row) for row in rows]


def take_masks(chart: StrategyChart, familywise: bool = False) -> list[int]:
    """The chart strategy's take masks (``t1`` ..) that a draw chart gives."""
    rows = _choices(chart, chart.spec.n_columns, "take", _policy_takes, familywise)
    return [sum(chosen << c for c, chosen in enumerate(row)) for row in rows]


def _safety(chart: StrategyChart | None, knock: StrategyChart) -> int:
    if chart is None or "discards" not in chart.cells.columns:
        # No chart, or one that met no discard (a line-up that knocks on its first
        # turn): the policy's own discard.
        return _own_play(knock)[1]
    cells = chart.cells.filter(pl.col("rank") < RANKS)
    pooled = cells.group_by("rank").agg(
        pl.col("discards").sum(), (pl.col("taken_rate") * pl.col("discards")).sum().alias("taken")
    )
    rate = {r["rank"]: r["taken"] / r["discards"] for r in pooled.iter_rows(named=True)}
    order = sorted(rate, key=lambda rank: (rate[rank], -rank))
    # Ranks never thrown have no rate: last, high first (an order lists all 13).
    return safety_of(order + [rank for rank in reversed(range(RANKS)) if rank not in rate])


def chart_params(
    knock: StrategyChart,
    draw: StrategyChart | None = None,
    discard: StrategyChart | None = None,
    *,
    familywise: bool = False,
) -> Any:
    """The ``chart`` strategy's parameters from finished charts (see the module notes;
    ``familywise``: a verdict changes what the policy does only when it holds at 95%
    over all the chart's cells, as ``solve`` exports).

    Raises
    ------
    RunError
        A chart of the wrong kind, split by ``--took``, or made under other rules than
        the knock chart.
    """
    for chart, kind in ((knock, "knock"), (draw, "draw"), (discard, "discard")):
        _check(chart, kind, knock)
    values = dict(
        zip([f"k{t}" for t in range(1, TURNS + 1)], knock_masks(knock, familywise), strict=True)
    ) | dict(
        zip([f"t{t}" for t in range(1, TURNS + 1)],
            _own_play(knock)[0] if draw is None else take_masks(draw, familywise), strict=True)
    )  # fmt: skip
    strategy, own = _policy(knock)
    # The weights: a chart policy's own (no chart measures them), otherwise off.
    weights = {name: getattr(own, name) if strategy.name == STRATEGY.name else 0
               for name in WEIGHTS}  # fmt: skip
    params: Any = STRATEGY.params  # the chart's Params class (typed as any NamedTuple)
    return params(**values, safety=_safety(discard, knock), **weights)


def chart_seat(
    knock: StrategyChart,
    draw: StrategyChart | None = None,
    discard: StrategyChart | None = None,
    *,
    familywise: bool = False,
) -> str:
    """The seat spec of :func:`chart_params`, every field written out (a saved spec
    keeps its meaning if the strategy's defaults change)."""
    params = chart_params(knock, draw, discard, familywise=familywise)
    return "chart:" + ",".join(f"{k}={v}" for k, v in zip(params._fields, params, strict=True))
