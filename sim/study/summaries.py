"""Exact per-chunk aggregates of a run (the ``summary`` table) and their combination.

A chunk's summary holds integer sums (points in engine units of 1/60 point, squares
and cross products, counts and histograms), so that the summaries of any chunking of
a run add up to the same totals: :func:`combine_summaries` is exact and order-free.
Histograms keep only non-zero bins for the same reason. The values are 38-digit
integers (decimal128), not int64: a sum of squared game scores can pass 2**63 in one
chunk of extreme (but allowed) rules, and a run's sums must never wrap around.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np
import numpy.typing as npt
import polars as pl
import pyarrow as pa

from kernels import layout as L
from kernels.engine import N_COLUMNS
from sim.study.tables import LABEL_TYPE, ResultsError, label_column

__all__ = [
    "SUMMARY_SCHEMA",
    "SUMMARY_STATS",
    "SUMMARY_VALUE_TYPE",
    "combine_summaries",
    "summarize_games",
    "summarize_hands",
    "summary_to_arrow",
]

SUMMARY_VALUE_TYPE = pa.decimal128(38, 0)
"""Exact integer sums far beyond int64 (polars reads them as Decimal(38, 0))."""

SUMMARY_SCHEMA = pa.schema(
    [
        ("stat", pa.string()),
        ("seat", pa.int8()),
        ("key", pa.int32()),
        ("value", SUMMARY_VALUE_TYPE),
        ("variant", LABEL_TYPE),
        ("lineup", LABEL_TYPE),
    ]
)

SUMMARY_STATS: dict[str, str] = {
    "count": "deals (single-deal runs) or games played; seat -1, key -1",
    "hands": "hands dealt (rows of the hands table); seat -1, key -1",
    "outcome": "hands by outcome; key = outcome code (OUTCOME_LABELS), seat -1",
    "knocker_outcome": "hands by knocker (seat, -1 none) and outcome code (key)",
    "wins": "hands won; seat = the hand's winner (-1 none), key -1",
    "points_sum": "sum of seat's hand points, engine units (1/60 point); key -1",
    "points_sumsq": "sum of squared hand points, units squared; key -1",
    "points_cross": "sum of points_seat * points_key over hands, units squared (seat < key)",
    "deadwood_sum": "sum of seat's showdown deadwood; key -1",
    "deadwood_sumsq": "sum of squared deadwood; key -1",
    "laid_off_sum": "cards seat laid off; key -1",
    "turns": "histogram of turns per hand; key = turns, seat -1",
    "rebuilds": "histogram of stock rebuilds per hand; key = rebuilds, seat -1",
    "game_wins": "games won; seat = the game's winner (-1 none), key -1",
    "game_hands": "histogram of scored hands per game; key = hands, seat -1",
    "game_hands_dealt": "hands dealt over all games (dead hands too); seat -1, key -1",
    "score_sum": "sum of seat's final game score, units; key -1",
    "score_sumsq": "sum of squared final scores, units squared; key -1",
    "score_cross": "sum of score_seat * score_key over games, units squared (seat < key)",
    "game_points_sum": "sum of seat's cumulative hand points per game, units; key -1",
    "boxes_sum": "hands (boxes) seat won in games; key -1",
    "column_score_sum": "Hollywood: sum of seat's final score in column key, units",
    "inference_misses": "mc's sampled opponent hands that fit nothing shown (only when any)",
}
"""Every statistic a ``summary`` part may hold; ``combine_summaries`` sums them."""

_LIMIT = float(2**62)  # numpy int64 sums below this cannot wrap; above, Python ints
_SUMMARY_LIMIT = 1e37  # combined sums stay inside decimal128(38, 0)


# --- per-chunk aggregates ------------------------------------------------------------

Row = tuple[str, int, int, int]


def _sum(values: npt.NDArray[Any]) -> int:
    """Exact integer sum (checked against int64 overflow)."""
    as_int = values.astype(np.int64, copy=False)
    if as_int.size and float(np.abs(as_int).max()) * as_int.size >= _LIMIT:
        return sum(int(x) for x in as_int)  # Python ints: exact, slower, never needed in practice
    return int(as_int.sum())


def _sumsq(values: npt.NDArray[Any], other: npt.NDArray[Any] | None = None) -> int:
    a = values.astype(np.int64, copy=False)
    b = a if other is None else other.astype(np.int64, copy=False)
    if a.size and float(np.abs(a).max()) * float(np.abs(b).max()) * a.size >= _LIMIT:
        return sum(int(x) * int(y) for x, y in zip(a.tolist(), b.tolist(), strict=True))
    return int(np.dot(a, b))


# Histograms of values spanning at most this many integers are counted in one pass
# (``np.bincount``); wider ones are sorted (``np.unique``). Same bins either way.
_DENSE_SPAN = 1 << 16


def _histogram(stat: str, values: npt.NDArray[Any], seat: int = -1) -> list[Row]:
    """Non-zero bins only, so that combined histograms do not depend on chunking."""
    if values.size == 0:
        return []
    if values.dtype.kind == "i" and values.dtype.itemsize <= 2:
        # The engine's int8 and int16 columns: counted on their raw bits, no widened
        # copy; bins at and above the sign bit are the negative values.
        width = 8 * values.dtype.itemsize
        counts = np.bincount(values.view(f"u{values.dtype.itemsize}"))
        keys = np.flatnonzero(counts)
        signed = np.where(keys >= 1 << (width - 1), keys - (1 << width), keys)
        order = np.argsort(signed, kind="stable")
        return [(stat, seat, int(signed[i]), int(counts[keys[i]])) for i in order]
    v = values.astype(np.int64, copy=False)
    low = int(v.min())
    if int(v.max()) - low < _DENSE_SPAN:
        counts = np.bincount(v - low)
        keys = np.flatnonzero(counts)
        return [(stat, seat, int(k) + low, int(counts[k])) for k in keys]
    keys, counts = np.unique(v, return_counts=True)
    return [(stat, seat, int(k), int(c)) for k, c in zip(keys, counts, strict=True)]


def _per_seat(stat: str, values: npt.NDArray[Any], players: int, square: bool) -> list[Row]:
    rows = [(f"{stat}_sum", k, -1, _sum(values[:, k])) for k in range(players)]
    if square:
        rows += [(f"{stat}_sumsq", k, -1, _sumsq(values[:, k])) for k in range(players)]
    return rows


def _cross(stat: str, values: npt.NDArray[Any], players: int) -> list[Row]:
    return [
        (stat, i, j, _sumsq(values[:, i], values[:, j]))
        for i in range(players)
        for j in range(i + 1, players)
    ]


def summarize_hands(hand_columns: Any, players: int) -> list[Row]:
    """Exact aggregates of a batch of hands: ``(stat, seat, key, value)`` rows.

    Per-seat sums are always present (zero or not); histogram and count bins only
    when non-zero. See :data:`SUMMARY_STATS`.
    """
    h = hand_columns
    n_out = len(L.OUTCOME_LABELS)
    rows: list[Row] = [("hands", -1, -1, len(h.number))]
    rows += [(s, -1, k, v) for s, _, k, v in _histogram("outcome", h.outcome)]
    pair = (h.knocker.astype(np.int64) + 1) * n_out + h.outcome
    rows += [
        ("knocker_outcome", int(k // n_out) - 1, int(k % n_out), v)
        for _, _, k, v in _histogram("", pair)
    ]
    rows += [("wins", int(k), -1, v) for _, _, k, v in _histogram("", h.winner)]
    rows += _per_seat("points", h.points, players, square=True)
    rows += _cross("points_cross", h.points, players)
    rows += _per_seat("deadwood", h.deadwood, players, square=True)
    rows += _per_seat("laid_off", h.laid_off, players, square=False)
    rows += _histogram("turns", h.turns)
    rows += _histogram("rebuilds", h.rebuilds)
    return rows


def summarize_games(game_columns: Any, players: int, *, hollywood: bool = False) -> list[Row]:
    """Exact aggregates of a batch of games (see :func:`summarize_hands`)."""
    g = game_columns
    rows: list[Row] = [("game_wins", int(k), -1, v) for _, _, k, v in _histogram("", g.winner)]
    rows += _histogram("game_hands", g.hands)
    rows.append(("game_hands_dealt", -1, -1, _sum(g.hands_dealt)))
    rows += _per_seat("score", g.scores, players, square=True)
    rows += _cross("score_cross", g.scores, players)
    rows += [("game_points_sum", k, -1, _sum(g.points[:, k])) for k in range(players)]
    rows += [("boxes_sum", k, -1, _sum(g.boxes[:, k])) for k in range(players)]
    if hollywood:
        rows += [
            ("column_score_sum", k, c, _sum(g.columns[:, c, k]))
            for k in range(players)
            for c in range(N_COLUMNS)
        ]
    return rows


def summary_to_arrow(rows: Sequence[Row], variant: str, lineup: str) -> pa.Table:
    """A ``summary`` part from ``(stat, seat, key, value)`` rows."""
    unknown = {stat for stat, *_ in rows} - set(SUMMARY_STATS)
    if unknown:
        raise ValueError(f"unknown summary statistic {sorted(unknown)[0]!r}")
    n = len(rows)
    stat, seat, key, value = zip(*rows, strict=True) if rows else ((), (), (), ())
    return pa.Table.from_arrays(
        [
            pa.array(stat, pa.string()),
            pa.array(seat, pa.int8()),
            pa.array(key, pa.int32()),
            pa.array(value, SUMMARY_VALUE_TYPE),
            label_column(variant, n),
            label_column(lineup, n),
        ],
        schema=SUMMARY_SCHEMA,
    )


def combine_summaries(parts: pl.LazyFrame | pl.DataFrame) -> pl.DataFrame:
    """Add up summary parts: one row per (variant, lineup, stat, seat, key), sorted.

    Sums are exact (38-digit integers, checked against overflow), so the result is the
    same however a run was chunked. ``variant`` and ``lineup`` come back as plain
    strings; ``value`` as Decimal(38, 0) (``int(value)`` is exact).
    """
    frame = parts.lazy().with_columns(
        pl.col("variant").cast(pl.String), pl.col("lineup").cast(pl.String)
    )
    keys = ["variant", "lineup", "stat", "seat", "key"]
    out = (
        frame.group_by(keys)
        .agg(pl.col("value").sum(), pl.col("value").abs().cast(pl.Float64).sum().alias("_bound"))
        .sort(keys)
        .collect()
    )
    if out.height and float(out["_bound"].max()) >= _SUMMARY_LIMIT:  # type: ignore[arg-type]
        raise ResultsError("summary sums exceed 10**37; combine fewer parts at a time")
    return out.drop("_bound").select(["stat", "seat", "key", "value", "variant", "lineup"])
