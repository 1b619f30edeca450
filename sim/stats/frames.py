"""Summaries of hand frames (polars): per-seat means and rates, outcome mixes.

:func:`seat_summary` and :func:`outcome_mix` read hand records with the column names
of the ``hands`` table: per-seat ``points_0 .. points_{P-1}`` (float, points), ``winner``
and ``knocker`` (seat, -1 for none), ``outcome`` (a label of
``kernels.layout.OUTCOME_LABELS`` or its integer code) and grouping columns such as
``variant`` and ``lineup``. They take a polars ``DataFrame`` or ``LazyFrame``.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from typing import Any

import polars as pl

from kernels.layout import OUTCOME_LABELS
from sim.stats.estimates import (
    DEFAULT_CONFIDENCE,
    Moments,
    mean_ci,
    wilson,
)

__all__ = [
    "net_points",
    "outcome_mix",
    "players_of",
    "seat_summary",
]

# --- hand frames -------------------------------------------------------------------------

Frame = pl.DataFrame | pl.LazyFrame


def players_of(df: Frame) -> int:
    """The number of seats, from the ``points_k`` columns."""
    names = df.collect_schema().names() if isinstance(df, pl.LazyFrame) else df.columns
    k = 0
    while f"points_{k}" in names:
        k += 1
    if k == 0:
        raise ValueError("the frame has no points_0 column")
    return k


def net_points(seat: int, players: int) -> pl.Expr:
    """Seat ``seat``'s points minus the mean of the other seats' points, per hand.

    Hand winners score and the others score 0, so this is the seat's zero-sum edge (for
    two players, its points minus the opponent's).
    """
    others = [pl.col(f"points_{k}") for k in range(players) if k != seat]
    own = pl.col(f"points_{seat}").cast(pl.Float64)
    if not others:
        return own
    return own - pl.sum_horizontal(others).cast(pl.Float64) / len(others)


def _outcome_label_expr(schema: Mapping[str, Any]) -> pl.Expr:
    dtype = schema["outcome"]
    if dtype.is_integer():
        return pl.col("outcome").replace_strict(
            list(range(len(OUTCOME_LABELS))), list(OUTCOME_LABELS), return_dtype=pl.String
        )
    return pl.col("outcome").cast(pl.String)


def outcome_mix(
    df: Frame, by: Sequence[str] = (), confidence: float = DEFAULT_CONFIDENCE
) -> pl.DataFrame:
    """Share of hands per outcome, Wilson CIs; long format, every label present.

    Columns: ``by...``, ``outcome`` (label, in ``OUTCOME_LABELS`` order), ``count``,
    ``hands``, ``share``, ``low``, ``high``, ``method``.
    """
    lf = df.lazy()
    schema = lf.collect_schema()
    by = list(by)
    counts = (
        lf.select([*by, _outcome_label_expr(schema).alias("outcome")])
        .group_by([*by, "outcome"])
        .agg(pl.len().alias("count"))
        .collect()
    )
    if by:
        groups = lf.select(by).unique(maintain_order=True).collect()
    else:
        groups = pl.DataFrame({"_": [0]})
    labels = pl.DataFrame(
        {"outcome": list(OUTCOME_LABELS), "_order": list(range(len(OUTCOME_LABELS)))}
    )
    extra = sorted(set(counts["outcome"].to_list()) - set(OUTCOME_LABELS))
    if extra:
        labels = pl.concat(
            [
                labels,
                pl.DataFrame(
                    {
                        "outcome": extra,
                        "_order": list(
                            range(len(OUTCOME_LABELS), len(OUTCOME_LABELS) + len(extra))
                        ),
                    }
                ),
            ]
        )
    grid = groups.join(labels, how="cross")
    if not by:
        grid = grid.drop("_")
    full = grid.join(counts, on=[*by, "outcome"], how="left", nulls_equal=True).with_columns(
        pl.col("count").fill_null(0).cast(pl.Int64)
    )
    full = full.with_columns(
        (pl.col("count").sum().over(by) if by else pl.col("count").sum()).alias("hands")
    )
    if by:
        group_index = {tuple(r): i for i, r in enumerate(groups.select(by).iter_rows())}
        full = (
            full.with_columns(
                pl.Series("_g", [group_index[tuple(r)] for r in full.select(by).iter_rows()])
            )
            .sort(["_g", "_order"])
            .drop("_g")
        )
    else:
        full = full.sort("_order")
    ivs = [wilson(c, n, confidence) for c, n in zip(full["count"], full["hands"], strict=True)]
    return full.drop("_order").with_columns(
        pl.Series("share", [iv.estimate for iv in ivs], pl.Float64),
        pl.Series("low", [iv.low for iv in ivs], pl.Float64),
        pl.Series("high", [iv.high for iv in ivs], pl.Float64),
        pl.lit("Wilson").alias("method"),
    )


def seat_summary(
    df: Frame,
    players: int | None = None,
    by: Sequence[str] = (),
    confidence: float = DEFAULT_CONFIDENCE,
) -> pl.DataFrame:
    """Per seat (and group ``by``): hands, points, win rate and how its hands ended.

    Columns
    -------
    ``by...``, ``seat``, ``hands``;
    ``points``, ``points_low``, ``points_high``: points won per hand (t interval);
    ``net``, ``net_low``, ``net_high``: points minus the other seats' mean (see
    :func:`net_points`; the zero-sum edge), t interval;
    ``win_rate``, ``win_low``, ``win_high``: hands with ``winner == seat`` (Wilson);
    ``knock_rate`` (the seat ended the hand: ``knocker == seat``), ``gin_rate`` (won
    with gin or big gin), ``undercut_rate`` (the seat knocked and was undercut), and
    ``points_method`` / ``rate_method`` naming the intervals.
    """
    lf = df.lazy()
    players = players_of(lf) if players is None else players
    schema = lf.collect_schema()
    outcome = _outcome_label_expr(schema)
    by = list(by)
    parts = []
    for seat in range(players):
        pts = pl.col(f"points_{seat}").cast(pl.Float64)
        net = net_points(seat, players)
        won = pl.col("winner") == seat
        knocked = pl.col("knocker") == seat
        aggs = [
            pl.len().alias("hands"),
            pts.mean().alias("_pm"),
            pts.var(ddof=1).alias("_pv"),
            net.mean().alias("_nm"),
            net.var(ddof=1).alias("_nv"),
            won.sum().alias("_wins"),
            knocked.sum().alias("_knocks"),
            (won & outcome.is_in(["gin", "big_gin"])).sum().alias("_gins"),
            (knocked & (outcome == "undercut")).sum().alias("_undercut"),
        ]
        grouped = lf.group_by(by, maintain_order=True).agg(aggs) if by else lf.select(aggs)
        parts.append(grouped.with_columns(pl.lit(seat, pl.Int64).alias("seat")).collect())
    raw = pl.concat(parts)
    rows = []
    for r in raw.iter_rows(named=True):
        n = int(r["hands"])
        p_iv = mean_ci(_moments_from(n, r["_pm"], r["_pv"]), confidence)
        n_iv = mean_ci(_moments_from(n, r["_nm"], r["_nv"]), confidence)
        w_iv = wilson(r["_wins"], n, confidence)
        rows.append(
            {
                **{k: r[k] for k in by},
                "seat": r["seat"],
                "hands": n,
                "points": p_iv.estimate,
                "points_low": p_iv.low,
                "points_high": p_iv.high,
                "net": n_iv.estimate,
                "net_low": n_iv.low,
                "net_high": n_iv.high,
                "win_rate": w_iv.estimate,
                "win_low": w_iv.low,
                "win_high": w_iv.high,
                "knock_rate": r["_knocks"] / n if n else math.nan,
                "gin_rate": r["_gins"] / n if n else math.nan,
                "undercut_rate": r["_undercut"] / n if n else math.nan,
                "points_method": p_iv.method,
                "rate_method": w_iv.method,
            }
        )
    out = pl.DataFrame(rows)
    return out.sort([*by, "seat"], maintain_order=True) if not by else _sort_groups(out, raw, by)


def _moments_from(n: int, mean: float | None, var: float | None) -> Moments:
    """Moments from a count, mean and sample variance (polars gives None for n < 2)."""
    return Moments(n, mean or 0.0, (var or 0.0) * (n - 1) if n > 1 else 0.0)


def _sort_groups(out: pl.DataFrame, raw: pl.DataFrame, by: list[str]) -> pl.DataFrame:
    """Keep groups in first-seen order, seats ascending within each."""
    order: dict[tuple[Any, ...], int] = {}
    for key in raw.select(by).iter_rows():
        order.setdefault(tuple(key), len(order))
    idx = [order[tuple(k)] for k in out.select(by).iter_rows()]
    return out.with_columns(pl.Series("_g", idx)).sort(["_g", "seat"]).drop("_g")
