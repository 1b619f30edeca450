"""A chart's chunk: deals played with the engine's probe, per-cell sums.

What a worker does for a chart run (``RunConfig(mode="chart")``, see
``sim/study/chart.py`` and ``docs/CHARTS.md``): :func:`chart_chunk` plays deal numbers
``first .. first + n - 1`` with the policy line-up and a probe (``sim.engine.
probe_deals``, ``kernels/probe.py``), which scores the accepted positions from the
deals' true state, and returns one ``cells`` table: per cell, integer sums only
(positions, eligible positions, gain in exact units, hand wins, the seat's own
choices), so that the chunks of a run add up exactly, in any order, on any number of
workers.

The chart's settings travel as the run's labels (:class:`ChartSpec`): they are part
of the run's identity and a column of every row.
"""

from __future__ import annotations

import json
from dataclasses import asdict, dataclass
from functools import lru_cache
from typing import Any, NamedTuple

import numpy as np
import numpy.typing as npt
import pyarrow as pa

from kernels import chart as K
from kernels.layout import DECK_CAPACITY, POINT_SCALE
from kernels.obs import SCRATCH_SIZE
from kernels.probe import new_probe
from sim.rules import RuleSet
from sim.sizes import CHART_PER_CELL, CHART_PILOT, CHART_SAMPLES, CHART_TURNS
from sim.study import provenance as P

__all__ = [
    "CHARTS",
    "DRAW_CLASSES",
    "RANKS",
    "ChartKind",
    "ChartSpec",
    "cell_coordinates",
    "cell_sums",
    "chart_chunk",
    "gain_units",
    "rates_for",
    "score_deals",
    "OWN_FIRST",
]


class ChartKind(NamedTuple):
    """What one kind of chart is made of."""

    code: int  # ``kernels.chart.CHART_*``
    column: str  # the column axis
    layer: str  # the third axis (split with ``--took``)
    actions: tuple[str, str]  # the outcomes compared, first minus second
    sums: tuple[str, str, str, str]  # the cell sums of the per-position value (its sum,
    #                                  its square) and of each outcome's count


CHARTS = {
    "knock": ChartKind(K.CHART_KNOCK, "deadwood", "took", ("knock", "play on"),
                       ("gain_sum", "gain_sq", "knock_won", "play_won")),
    "draw": ChartKind(K.CHART_DRAW, "card", "took", ("take", "draw"),
                      ("gain_sum", "gain_sq", "take_won", "draw_won")),
    "discard": ChartKind(K.CHART_DISCARD, "rank", "interest", ("taken", "not taken"),
                         ("saved_sum", "saved_sq", "taken", "not_taken")),
}  # fmt: skip
# The draw chart's columns (``kernels.chart.DRAW_*``): what the pile's top card does.
DRAW_CLASSES = ("meld", "pair", "near run", "lower 1-3", "lower 4-6", "lower 7+", "nothing")
assert len(DRAW_CLASSES) == K.N_DRAW_CLASSES
# The sums over the positions where the seat itself chose the first action (knock, take):
# with the others they split a cell by what the policy does there (single-cell checks).
OWN_FIRST = ("own_first", "own_first_sum", "own_first_sq")
# The discard chart's columns: the card's rank, jokers last.
RANKS = ("A", "2", "3", "4", "5", "6", "7", "8", "9", "10", "J", "Q", "K", "JK")
assert len(RANKS) == K.N_DISCARD_COLUMNS


@dataclass(frozen=True)
class ChartSpec:
    """A strategy chart's settings (stored as the run's labels).

    ``chart``: the kind (``CHARTS``). ``turns`` rows (own turns 1 .. turns, the last one
    "turns or later"); columns: for the knock chart ``deadwood`` of them (0 .. deadwood
    - 1, the last one "that or more"), for the draw chart the ``DRAW_CLASSES``, for the
    discard chart the ``RANKS`` (``deadwood`` is then 0); ``took`` layers (1 layer = not
    split; knock and draw charts: the pile cards the opponents took, 3 = 0, 1, 2+;
    discard chart: whether the next seat showed interest, 2). ``per_cell``: the
    positions a cell should get (0: score every position); ``pilot`` deals are counted
    first to thin the common cells to about that many. ``samples``: plays of each
    action per position, the unseen stock's order drawn anew for all but the first
    (the discard chart plays nothing: it counts). ``round``: the round of
    ``solve`` that made it (0: a chart of its own).
    """

    chart: str = "knock"
    focal: int = 0
    samples: int = CHART_SAMPLES
    turns: int = CHART_TURNS
    deadwood: int = 11
    took: int = 1
    per_cell: int = CHART_PER_CELL
    pilot: int = CHART_PILOT
    round: int = 0

    def labels(self) -> dict[str, Any]:
        return {f"chart_{k}" if k != "chart" else k: v for k, v in asdict(self).items()}

    @classmethod
    def from_labels(cls, labels: dict[str, Any]) -> ChartSpec:
        return cls(
            **{k.removeprefix("chart_"): v for k, v in labels.items() if k.startswith("chart")}
        )

    @property
    def kind(self) -> ChartKind:
        return CHARTS[self.chart]

    @property
    def column_name(self) -> str:
        """The column axis: ``deadwood``, ``card`` (draw chart) or ``rank`` (discard)."""
        return self.kind.column

    @property
    def layer_name(self) -> str:
        """The third axis: ``took``, or ``interest`` (discard chart)."""
        return self.kind.layer

    @property
    def actions(self) -> tuple[str, str]:
        """The outcomes compared, first minus second: (knock, play on), (take, draw),
        (taken, not taken)."""
        return self.kind.actions

    @property
    def n_columns(self) -> int:
        if self.chart == "knock":
            return self.deadwood
        return K.N_DRAW_CLASSES if self.chart == "draw" else K.N_DISCARD_COLUMNS

    @property
    def column_labels(self) -> tuple[str, ...] | None:
        """Names of the columns (draw and discard charts; None: deadwood values)."""
        return {"draw": DRAW_CLASSES, "discard": RANKS}.get(self.chart)

    @property
    def cell_columns(self) -> tuple[str, ...]:
        """The sums of one cell in one chunk (all int64): positions met (every one,
        scored or not), positions scored, the sum over positions of the per-position
        value and of its square (knock and draw charts: the sum over samples of first -
        second action, in ``gain_units``; discard chart: the deadwood the card saved its
        taker), the count of each outcome (samples won after each action; discards
        taken and not), and over the positions where the seat's own choice was the first
        action (``OWN_FIRST``): their count and the sum and square of their value."""
        return ("eligible", "positions", *self.kind.sums, *OWN_FIRST)

    @property
    def n_cells(self) -> int:
        return self.turns * self.n_columns * self.took


def gain_units(players: int) -> int:
    """Units of the exact gain sums: 1/((players - 1) * POINT_SCALE) point (a seat's net
    points, its points minus the mean of the others', are whole in them)."""
    return (players - 1) * POINT_SCALE


def score_deals(
    rules: RuleSet, lineup: Any, seed: int, first: int, n: int, spec: ChartSpec,
    rates: npt.NDArray[np.float64], force: npt.NDArray[np.int64] | None = None,
) -> tuple[npt.NDArray[np.int64], npt.NDArray[np.int64], Any]:  # fmt: skip
    """Deals ``first .. first + n - 1`` played with the chart's probe: ``(eligible per
    cell, scored position rows, the hands' columns)`` (rows: ``kernels.chart.P_*``
    columns). Zero rates only count; ``force`` (``kernels.probe.FORCE_*`` per cell)
    plays the other action in the cells it names (the hands then differ from the
    policy's)."""
    from sim.engine import key_of, probe_deals

    code = spec.kind.code
    probe = new_probe(
        kind=code, focal=spec.focal, samples=spec.samples, turns=spec.turns,
        columns=spec.n_columns, took=spec.took, key=int(K.chart_key(key_of(seed), code)),
        players=rules.players, scratch_size=SCRATCH_SIZE, deck_capacity=DECK_CAPACITY,
    )  # fmt: skip
    probe.rates[:] = rates
    if force is not None:
        probe.force[:] = force
    cols, rows = probe_deals(rules, lineup, probe, deals=n, seed=seed, first=first)
    return probe.eligible, rows, cols


@lru_cache(maxsize=8)
def _rates(rules_json: str, lineup: tuple[str, ...], seed: int, count: int, spec: ChartSpec) -> Any:
    rules = RuleSet.from_dict(json.loads(rules_json))
    rates = np.ones(spec.n_cells)
    if spec.per_cell <= 0:
        return rates
    pilot = min(spec.pilot, count)
    eligible, _, _ = score_deals(rules, lineup, seed, 0, pilot, spec, np.zeros(spec.n_cells))
    # Aim above per_cell and trust only the low end of the pilot's count (3 standard
    # deviations each way), so that a thinned cell falls short of per_cell only rarely.
    aim = spec.per_cell + 3.0 * np.sqrt(spec.per_cell)
    low = (eligible - 3.0 * np.sqrt(eligible)) * (count / max(pilot, 1))
    sure = low > aim
    rates[sure] = aim / low[sure]
    rates.setflags(write=False)
    return rates


def rates_for(
    rules: RuleSet, lineup: tuple[str, ...], seed: int, count: int, spec: ChartSpec
) -> Any:
    """Each cell's acceptance rate: about ``per_cell`` (a little more, see ``_rates``)
    over the positions the cell is expected to meet in ``count`` deals, counted on the
    first ``pilot`` deals; 1 for a cell they meet too rarely to tell, and for every cell
    when ``per_cell`` is 0. A pure function of its
    arguments: each worker computes it once (cached) and gets the same rates."""
    return _rates(json.dumps(rules.to_dict(), sort_keys=True), tuple(lineup), seed, count, spec)


def cell_sums(
    eligible: npt.NDArray[np.int64], rows: npt.NDArray[np.int64], spec: ChartSpec
) -> dict[str, npt.NDArray[np.int64]]:
    """Per cell, the integer sums of ``spec.cell_columns``."""
    cells = rows[:, K.P_CELL]
    n = spec.n_cells
    gain = rows[:, K.P_GAIN].astype(object)  # Python ints: squares never wrap
    own = rows[:, K.P_POLICY] == 1
    total, square, first, second = spec.kind.sums
    count, own_sum, own_sq = OWN_FIRST
    return {
        "eligible": eligible.copy(),
        "positions": np.bincount(cells, minlength=n).astype(np.int64),
        total: _int_sum(cells, gain, n),
        square: _int_sum(cells, gain * gain, n),
        first: _int_sum(cells, rows[:, K.P_FIRST_WON], n),
        second: _int_sum(cells, rows[:, K.P_SECOND_WON], n),
        count: _int_sum(cells, own.astype(np.int64), n),
        own_sum: _int_sum(cells, gain * own, n),
        own_sq: _int_sum(cells, gain * gain * own, n),
    }


def _int_sum(cells: npt.NDArray[np.int64], values: npt.NDArray[Any], n: int) -> Any:
    """Exact integer sums by cell (``np.bincount`` would sum in float64); a sum beyond
    int64 raises instead of wrapping."""
    out = np.zeros(n, dtype=object)
    np.add.at(out, cells, values)
    return out.astype(np.int64)


def cell_coordinates(spec: ChartSpec) -> dict[str, npt.NDArray[np.int64]]:
    """Turn, column and layer of every cell index (``kernels.chart.cell_of``'s order)."""
    index = np.arange(spec.n_cells)
    return {
        "turn": index // (spec.n_columns * spec.took) + 1,
        spec.column_name: (index // spec.took) % spec.n_columns,
        spec.layer_name: index % spec.took,
    }


def chart_chunk(payload: dict[str, Any], chunk_index: int, first: int, n: int) -> dict[str, Any]:
    """One chunk of a chart run: its ``cells`` table (the cells it met), with provenance."""
    cfg = payload["config"]
    rules = RuleSet.from_dict(cfg["rules"])
    lineup = tuple(cfg["lineup"])
    spec = ChartSpec.from_labels(cfg["labels"])
    rates = rates_for(rules, lineup, cfg["seed"], cfg["count"], spec)
    eligible, rows, _ = score_deals(rules, lineup, cfg["seed"], first, n, spec, rates)
    sums = cell_sums(eligible, rows, spec)
    keep = sums["eligible"] > 0
    columns: dict[str, Any] = {
        k: pa.array(v[keep], pa.int16()) for k, v in cell_coordinates(spec).items()
    }
    columns.update({k: pa.array(sums[k][keep], pa.int64()) for k in spec.cell_columns})
    n_rows = int(keep.sum())
    for name, value in payload["labels"].items():
        columns[name] = pa.array([value] * n_rows)
    table = pa.table(columns)
    chunk = {
        "index": chunk_index, "first": first, "count": n, "size": cfg["chunk_size"],
        "n_chunks": cfg["n_chunks"],
    }  # fmt: skip
    meta = {**payload["provenance"], "table": "cells", "chunk": chunk, "rows": n_rows, "hands": n}
    return {"chunk": chunk_index, "hands": n, "tables": {"cells": P.with_provenance(table, meta)}}
