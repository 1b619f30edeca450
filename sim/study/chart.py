"""Strategy charts (knock, draw): a study on the run pipeline.

>>> from sim.study.chart import draw_chart, knock_chart
>>> chart = knock_chart("gin", "greedy:knock_at=0", deals=200_000, seed=1)
>>> chart.cells.filter(pl.col("verdict") == "knock")
>>> draw_chart("knock-rummy", "greedy", deals=100_000, seed=1).cells

The policy line-up plays seeded single deals; at every decision of the focal seat of
the chart's kind the position is scored two ways from the deal's true state, the hand
played on by the line-up itself after each action (knock chart: where a knock is
legal, knock now or play on; draw chart: where the pile holds a card, take it or draw
from the stock), and the gains are summed per cell (own turn; the deadwood left, or
what the pile card does for the hand; optionally the pile cards the opponents took).
``docs/CHARTS.md`` says how and why; the run is a ``RunConfig(mode="chart")`` played by
``sim.study.execute`` (resumable, any worker count, identical sums), its chunks by
``sim/study/chart_cells.py``.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass
from fractions import Fraction
from typing import Any

import polars as pl

from kernels.chart import TOOK_COUNT, TOOK_INTEREST, TOOK_NONE
from sim import store
from sim.limits import MAX_CHART_SAMPLES, MAX_CHART_TURNS, MAX_DEADWOOD_COLUMNS
from sim.rules import RuleSet
from sim.sizes import CHART_MIN_POSITIONS, CHART_PER_CELL, CHART_PILOT, CHART_SAMPLES, CHART_TURNS
from sim.solver import resolve_rules
from sim.stats import Moments, mean_ci, wilson
from sim.store import PathInput, StorePath
from sim.study.chart_cells import (
    CHARTS,
    DRAW_CLASSES,
    RANKS,
    ChartSpec,
    gain_units,
    rates_for,
)
from sim.study.execute import LOCAL, Executor, Progress, execute
from sim.study.kinds import CHART, RESULTS_ROOT
from sim.study.rundir import load_cells, load_manifest
from sim.study.runs import RunConfig, RunError, RunResult
from strategies.chart import KNOCK_COLUMNS

__all__ = [
    "ChartRequest",
    "StrategyChart",
    "cell_totals",
    "discard_chart",
    "draw_chart",
    "is_chart_run",
    "knock_chart",
    "load_chart",
    "pooled_chart",
    "strategy_chart",
    "summarize_cells",
]

MAX_ROUNDS = 1000
DEFAULT_MIN_POSITIONS = CHART_MIN_POSITIONS  # fewer: the cell is "too few", no verdict


@dataclass(frozen=True)
class StrategyChart:
    """A finished chart: its run and one row per cell met (:func:`summarize_cells`)."""

    config: RunConfig
    spec: ChartSpec
    run_dir: StorePath
    cells: pl.DataFrame
    deals: int
    result: RunResult | None = None  # None when loaded from disk

    @property
    def positions(self) -> int:
        """Positions scored (discards counted, for the discard chart)."""
        column = "discards" if self.spec.chart == "discard" else "positions"
        return int(self.cells[column].sum()) if self.cells.height else 0


def chart_spec(
    rules: RuleSet, *, chart: str = "knock", focal: int = 0, samples: int = CHART_SAMPLES,
    turns: int = CHART_TURNS, deadwood: int | None = None, took: bool = False,
    per_cell: int = CHART_PER_CELL, pilot: int = CHART_PILOT, round: int = 0,
) -> ChartSpec:  # fmt: skip
    """A checked :class:`ChartSpec` (RunError, one line, for a bad value)."""

    def check(name: str, value: Any, low: int, high: int) -> int:
        ok = isinstance(value, int) and not isinstance(value, bool) and low <= value <= high
        if not ok:
            raise RunError(f"{name}={value!r} is not allowed; choose an integer {low}..{high}")
        return int(value)

    if chart not in CHARTS:
        raise RunError(f"chart={chart!r} is not allowed; choose one of: {', '.join(CHARTS)}")
    check("focal", focal, 0, rules.players - 1)
    if chart != "knock":
        if deadwood is not None:
            raise RunError(f"deadwood columns belong to the knock chart; the {chart} chart's "
                           "columns are fixed")  # fmt: skip
        deadwood = 0
    elif deadwood is None:
        # Every legal deadwood: 0 .. the limit (11 columns under "upcard", whose limit
        # is at most 10); with no limit every deadwood a knock mask tells apart, 0 ..
        # 50, and "51 or more".
        limit = rules.knock_limit
        deadwood = KNOCK_COLUMNS if limit is None else 11 if limit == "upcard" else limit + 1
    else:
        deadwood = check("deadwood", deadwood, 1, MAX_DEADWOOD_COLUMNS)
    counting = chart == "discard"  # it counts what happened: nothing sampled, nothing thinned
    return ChartSpec(
        chart=chart,
        focal=focal,
        samples=0 if counting else check("samples", samples, 1, MAX_CHART_SAMPLES),
        turns=check("turns", turns, 1, MAX_CHART_TURNS),
        deadwood=deadwood,
        took=(TOOK_INTEREST if counting else TOOK_COUNT) if took else TOOK_NONE,
        per_cell=0 if counting else check("per_cell", per_cell, 0, 10**9),
        pilot=check("pilot", pilot, 1, 10**8),
        round=check("round", round, 0, MAX_ROUNDS),
    )  # fmt: skip


@dataclass(frozen=True, kw_only=True)
class ChartRequest:
    """What a strategy chart studies: a policy under rules, the chart's kind and shape
    (:func:`chart_spec` checks them), its deals and seed, and where it is filed.

    ``policy`` is the line-up (one spec fills every seat); ``focal`` the seat whose
    decisions are charted; ``samples`` the plays of each action per position (the
    first with the deal's own stock, the others with its unseen order drawn anew);
    ``round`` the round of ``solve`` the chart belongs to; ``min_positions`` the
    positions a cell needs for a verdict.
    """

    rules: str | RuleSet
    policy: str | tuple[str, ...]
    deals: int
    chart: str = "knock"
    seed: int | None = None
    focal: int = 0
    samples: int = CHART_SAMPLES
    turns: int = CHART_TURNS
    deadwood: int | None = None
    took: bool = False
    per_cell: int = CHART_PER_CELL
    pilot: int = CHART_PILOT
    round: int = 0
    min_positions: int = DEFAULT_MIN_POSITIONS
    experiment: str = CHART.folder
    out: PathInput = RESULTS_ROOT
    chunk_size: int | None = None

    def spec(self, rules: RuleSet) -> ChartSpec:
        """The chart's checked spec under ``rules`` (RunError, one line)."""
        return chart_spec(
            rules, chart=self.chart, focal=self.focal, samples=self.samples, turns=self.turns,
            deadwood=self.deadwood, took=self.took, per_cell=self.per_cell, pilot=self.pilot,
            round=self.round,
        )  # fmt: skip


def strategy_chart(
    request: ChartRequest,
    executor: Executor = LOCAL,
    *,
    progress: Callable[[Progress], None] | None = None,
) -> StrategyChart:
    """Play (or resume) the chart ``request`` asks for on ``executor`` and return its
    cells. Raises RunError (one line) for a bad value, before anything is played."""
    deals = request.deals
    if isinstance(deals, bool) or not isinstance(deals, int) or deals < 1:
        raise RunError(f"deals={deals!r} is not allowed; give a positive number of deals")
    r = resolve_rules(request.rules)
    # The line-up normalised and the seed drawn once (when None) by a first config.
    base = RunConfig(rules=r, lineup=request.policy, count=deals, mode="chart", seed=request.seed)
    spec = request.spec(r)
    config = RunConfig(
        rules=r, lineup=base.lineup, names=base.names, count=deals, mode="chart", seed=base.seed,
        experiment=request.experiment, chunk_size=request.chunk_size, labels=spec.labels(),
        out=store.location(request.out),
    )  # fmt: skip
    # The rates are the pilot's: count it once here, before the worker threads ask.
    rates_for(r, config.seats, config.seed, deals, spec)  # type: ignore[arg-type]
    [result] = execute([config], executor, progress=progress)
    done = load_chart(result.run_dir, min_positions=request.min_positions)
    return StrategyChart(config, spec, result.run_dir, done.cells, deals, result)


def _chart_of(
    chart: str,
    rules: str | RuleSet,
    policy: str | tuple[str, ...],
    executor: Executor,
    progress: Callable[[Progress], None] | None,
    fields: dict[str, Any],
) -> StrategyChart:
    request = ChartRequest(rules=rules, policy=policy, chart=chart, **fields)
    return strategy_chart(request, executor, progress=progress)


def knock_chart(
    rules: str | RuleSet,
    policy: str | tuple[str, ...],
    *,
    executor: Executor = LOCAL,
    progress: Callable[[Progress], None] | None = None,
    **fields: Any,
) -> StrategyChart:
    """The knock chart: knock now or play on (``fields``: :class:`ChartRequest`'s)."""
    return _chart_of("knock", rules, policy, executor, progress, fields)


def draw_chart(
    rules: str | RuleSet,
    policy: str | tuple[str, ...],
    *,
    executor: Executor = LOCAL,
    progress: Callable[[Progress], None] | None = None,
    **fields: Any,
) -> StrategyChart:
    """The draw chart: take the pile's top card or draw (``fields``: :class:`ChartRequest`'s)."""
    return _chart_of("draw", rules, policy, executor, progress, fields)


def discard_chart(
    rules: str | RuleSet,
    policy: str | tuple[str, ...],
    *,
    executor: Executor = LOCAL,
    progress: Callable[[Progress], None] | None = None,
    **fields: Any,
) -> StrategyChart:
    """The discard chart: how often the next seat takes the focal seat's discard, by own
    turn and rank, and what it saves the taker (``fields``: :class:`ChartRequest`'s;
    nothing is played twice, so ``samples`` and the thinning do not apply)."""
    return _chart_of("discard", rules, policy, executor, progress, fields)


def is_chart_run(path: PathInput) -> bool:
    """True when ``path`` is a run folder holding a strategy chart."""
    try:
        return load_manifest(path)["config"].get("mode") == "chart"
    except (RunError, OSError, KeyError, TypeError, ValueError):
        return False


def load_chart(run_dir: PathInput, *, min_positions: int = DEFAULT_MIN_POSITIONS) -> StrategyChart:
    """A finished chart run's cells (every part checked against its digest)."""
    manifest = load_manifest(run_dir)
    config = RunConfig.from_dict(manifest["config"])
    if config.mode != "chart":
        raise RunError(f"{run_dir} is not a chart run (mode {config.mode!r})")
    spec = ChartSpec.from_labels(dict(config.labels))
    raw = load_cells(run_dir)
    cells = summarize_cells(raw, spec, config.players, min_positions=min_positions)
    return StrategyChart(config, spec, store.location(run_dir), cells, config.count)


def pooled_chart(
    charts: list[StrategyChart], *, min_positions: int = DEFAULT_MIN_POSITIONS
) -> StrategyChart:
    """Charts of one kind and shape pooled: every cell's sums added over the charts, so
    each chart weighs in a cell by the positions it scored there (how often its play
    meets the cell, up to the thinning's ``per_cell``); filed as the last chart. Charts
    of other kinds or shapes: RunError."""
    last = charts[-1]
    if any(c.spec.n_cells != last.spec.n_cells or c.spec.chart != last.spec.chart
           for c in charts):  # fmt: skip
        raise RunError("only charts of one kind and shape pool")
    raw = pl.concat([load_cells(c.run_dir) for c in charts], how="diagonal_relaxed")
    cells = summarize_cells(raw, last.spec, last.config.players, min_positions=min_positions)
    return StrategyChart(last.config, last.spec, last.run_dir, cells, sum(c.deals for c in charts))


def _verdict(
    low: float, high: float, positions: int, min_positions: int, actions: tuple[str, str]
) -> str:
    if positions < min_positions or not (math.isfinite(low) and math.isfinite(high)):
        return "too few"
    if low > 0:
        return actions[0]
    if high < 0:
        return actions[1]
    return "too close"


def summarize_cells(
    raw: pl.DataFrame, spec: ChartSpec, players: int, *, min_positions: int = DEFAULT_MIN_POSITIONS
) -> pl.DataFrame:
    """One row per cell met: the chunks' integer sums added exactly, then per cell the
    mean gain of the first action over the second (knock over play on, take over draw:
    points per hand, 95% t CI over positions), each action's hand-win probability
    (Wilson, the positions as trials: a position's samples share its hand, so they are
    not counted as more), the share of positions where the policy itself took the first
    action (``knock_chosen``, ``take_chosen``) and the verdict: the first action, the
    second, too close (the CI covers 0) or too few (fewer than ``min_positions``
    positions: no verdict). A draw chart's cells also name their card class (``does``)."""
    keys = ["turn", spec.column_name, spec.layer_name]
    if raw.height == 0:
        return pl.DataFrame(schema=dict.fromkeys(keys, pl.Int64))
    if spec.chart == "discard":
        return _summarize_discards(raw, spec, keys, min_positions)
    sums = _cell_sums(raw, spec, keys)
    scale = spec.samples * gain_units(players)
    first, second = (a.split()[0] for a in spec.actions)  # knock, play / take, draw
    out = []
    for (turn, column, took), acc in sorted(sums.items()):
        eligible, n, g, g2, first_won, second_won, own_first, _, _ = acc
        # Exact moments of the per-position mean gains G / scale, then floats.
        gain = _moments_ci(Fraction(g, scale), Fraction(g2, scale * scale), n)
        first_ci = wilson(round(first_won / spec.samples), n)
        second_ci = wilson(round(second_won / spec.samples), n)
        cell: dict[str, Any] = {"turn": turn, spec.column_name: column, "took": took}
        if spec.chart == "draw":
            cell["does"] = DRAW_CLASSES[column]
        cell.update(
            {
                "eligible": eligible,
                "positions": n,
                "gain": gain.estimate,
                "gain_low": gain.low,
                "gain_high": gain.high,
                f"{first}_win": first_won / (n * spec.samples) if n else None,
                f"{first}_win_low": first_ci.low,
                f"{first}_win_high": first_ci.high,
                f"{second}_win": second_won / (n * spec.samples) if n else None,
                f"{second}_win_low": second_ci.low,
                f"{second}_win_high": second_ci.high,
                f"{first}_chosen": own_first / n if n else None,
                "verdict": _verdict(gain.low, gain.high, n, min_positions, spec.actions),
            }
        )
        out.append(cell)
    return pl.DataFrame(out).with_columns(pl.col(keys + ["eligible", "positions"]).cast(pl.Int64))


def _summarize_discards(
    raw: pl.DataFrame, spec: ChartSpec, keys: list[str], min_positions: int
) -> pl.DataFrame:
    """The discard chart's cells: per cell the discards, the share the next seat took
    (Wilson), the deadwood a taken card saved its taker (95% t CI over the takes) and
    that saving per discard (t CI over the discards: the expected cost of throwing
    such a card). Cells with fewer than ``min_positions`` discards are "too few"."""
    out = []
    for (turn, rank, interest), acc in sorted(_cell_sums(raw, spec, keys).items()):
        _, n, saved, saved_sq, taken = acc[:5]
        rate = wilson(taken, n)
        when_taken = _moments_ci(saved, saved_sq, taken)
        per_discard = _moments_ci(saved, saved_sq, n)
        out.append(
            {
                "turn": turn,
                "rank": rank,
                "interest": interest,
                "label": RANKS[rank],
                "discards": n,
                "taken_rate": taken / n if n else None,
                "taken_low": rate.low,
                "taken_high": rate.high,
                "saved": when_taken.estimate,
                "saved_low": when_taken.low,
                "saved_high": when_taken.high,
                "cost": per_discard.estimate,
                "cost_low": per_discard.low,
                "cost_high": per_discard.high,
                "verdict": "too few" if n < min_positions else "measured",
            }  # fmt: skip
        )
    return pl.DataFrame(out).with_columns(pl.col([*keys, "discards"]).cast(pl.Int64))


def cell_totals(chart: StrategyChart) -> dict[tuple[int, int, int], list[int]]:
    """Each cell's sums (``spec.cell_columns``) over every chunk of the chart's run, by
    (turn, column, layer)."""
    spec = chart.spec
    keys = ["turn", spec.column_name, spec.layer_name]
    return _cell_sums(load_cells(chart.run_dir), spec, keys)


def _cell_sums(
    raw: pl.DataFrame, spec: ChartSpec, keys: list[str]
) -> dict[tuple[int, int, int], list[int]]:
    """The chunks' sums added per cell (``keys``), in Python integers: exact whatever
    the sizes (int64 sums of squares could overflow)."""
    columns = spec.cell_columns
    sums: dict[tuple[int, int, int], list[int]] = {}
    for row in raw.select([*keys, *columns]).iter_rows():
        acc = sums.setdefault(row[:3], [0] * len(columns))
        for i, value in enumerate(row[3:]):
            acc[i] += int(value)
    return sums


def _moments_ci(total: Fraction | int, square: Fraction | int, count: int) -> Any:
    """The mean of ``count`` values from their exact sum and sum of squares (values
    beyond those counted are 0), with its 95% t interval."""
    mean = Fraction(total, count) if count else Fraction(0)
    m2 = Fraction(square * count - total * total, count) if count else Fraction(0)
    return mean_ci(Moments(count, float(mean), float(m2)))
