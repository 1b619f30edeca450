"""A run's exact summary read back: integer sums by (stat, seat, key), and the moments
the analysis needs from them (own and net points, knocks), exact until the last step."""

from __future__ import annotations

import itertools
from collections.abc import Iterable

import polars as pl

from kernels import layout as L
from sim.stats import Moments

__all__ = ["Sums", "add_sums", "knock_count", "net_moments", "own_moments", "sums_of"]

Sums = dict[tuple[str, int, int], int]


def sums_of(frame: pl.DataFrame) -> Sums:
    """A run's summary (``rundir.load_summary``) as exact integer sums by (stat, seat, key)."""
    out: Sums = {}
    for stat, seat, key, value in frame.select("stat", "seat", "key", "value").iter_rows():
        out[(stat, int(seat), int(key))] = out.get((stat, int(seat), int(key)), 0) + int(value)
    return out


def add_sums(a: Sums, b: Sums) -> Sums:
    out = dict(a)
    for k, v in b.items():
        out[k] = out.get(k, 0) + v
    return out


def _cross_sum(s: Sums, stat: str, i: int, j: int) -> int:
    a, b = (i, j) if i < j else (j, i)
    return s.get((stat, a, b), 0)


def net_moments(s: Sums, prefix: str, n: int, seat: int, players: int) -> Moments:
    """Moments of ``x_seat - mean(x_others)`` from exact integer sums (engine units).

    With ``Q = players - 1`` and ``X = Q x_s - sum_{j != s} x_j`` (an integer per
    hand): ``sum X = Q S_s - sum S_j`` and ``sum X^2 = Q^2 SS_s - 2Q sum_j C_sj +
    sum_j SS_j + 2 sum_{j<k} C_jk`` (j, k != s); scaled by ``1 / (POINT_SCALE Q)``.
    """
    q = players - 1
    others = [j for j in range(players) if j != seat]
    total = q * s.get((f"{prefix}_sum", seat, -1), 0) - sum(
        s.get((f"{prefix}_sum", j, -1), 0) for j in others
    )
    square = q * q * s.get((f"{prefix}_sumsq", seat, -1), 0)
    square -= 2 * q * sum(_cross_sum(s, f"{prefix}_cross", seat, j) for j in others)
    square += sum(s.get((f"{prefix}_sumsq", j, -1), 0) for j in others)
    square += 2 * sum(
        _cross_sum(s, f"{prefix}_cross", j, k) for j, k in itertools.combinations(others, 2)
    )
    return Moments.from_sums(n, total, square).scaled(1.0 / (L.POINT_SCALE * q))


def own_moments(s: Sums, prefix: str, n: int, seat: int) -> Moments:
    """Moments of ``seat``'s own values (``prefix``: "points" or "score"), in points."""
    return Moments.from_sums(
        n, s.get((f"{prefix}_sum", seat, -1), 0), s.get((f"{prefix}_sumsq", seat, -1), 0)
    ).scaled(1.0 / L.POINT_SCALE)


def knock_count(s: Sums, seat: int, outcomes: Iterable[int] | None = None) -> int:
    """Hands ``seat`` knocked (ending in one of ``outcomes``, or any)."""
    keep = None if outcomes is None else set(outcomes)
    return sum(
        v
        for (stat, st, key), v in s.items()
        if stat == "knocker_outcome" and st == seat and (keep is None or key in keep)
    )
