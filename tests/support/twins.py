"""Helpers several test modules share: frames, line-ups and solvers for the twins."""

from __future__ import annotations

from functools import cache
from typing import Any

import numpy as np
import polars as pl

from kernels.deadwood import min_deadwood_one
from kernels.layout import OUTCOME_LABELS, POINT_SCALE
from kernels.tables import build_tables
from strategies import params_vector, parse_lineup
from tests.reference.strategies_ref import REF_STRATEGIES


def hands_frame(cols: Any, variant: str = "gin", lineup: str = "greedy/simple") -> pl.DataFrame:
    """Engine columns (``sim.engine.play_deals``) as a hand frame with the hands table's
    column names: wide per-seat ``points_k`` (points), ``deadwood_k``, ``laid_off_k``."""
    n, players = cols.points.shape
    data = {
        "game": np.arange(n, dtype=np.int64),
        "deal": cols.number,
        "dealer": cols.dealer,
        "knocker": cols.knocker,
        "winner": cols.winner,
        "outcome": [OUTCOME_LABELS[o] for o in cols.outcome],
        "turns": cols.turns,
        "stock_left": cols.stock_left,
        "rebuilds": cols.rebuilds,
        "variant": [variant] * n,
        "lineup": [lineup] * n,
    }
    for k in range(players):
        data[f"points_{k}"] = cols.points[:, k] / POINT_SCALE
        data[f"deadwood_{k}"] = cols.deadwood[:, k]
        data[f"laid_off_{k}"] = cols.laid_off[:, k]
    return pl.DataFrame(data).with_columns(pl.col("variant", "lineup").cast(pl.Categorical))


def ref_lineup(rules: Any, spec: str) -> tuple[list[Any], list[list[float]]]:
    """A line-up as the reference engine takes it: twin strategies and parameter rows."""
    seats = parse_lineup(spec, rules.players)
    return (
        [REF_STRATEGIES[s.name] for s, _ in seats],
        [list(params_vector(p)) for _, p in seats],
    )


@cache
def tables(ace: int, ace_high_value: int, joker_value: int) -> np.ndarray:
    return build_tables(ace, ace_high_value, joker_value)


def fast_solver(cards: frozenset[int], ace: str, ace_high_value: int, joker_value: int) -> int:
    """The numba solver behind the twins' ``SOLVER`` slot (it is tested against
    ``deadwood_ref`` in tests/kernels/test_deadwood.py); the twins' own logic is unchanged."""
    m = 0
    for c in cards:
        m |= 1 << c
    code = {"low": 0, "high_or_low": 1, "around": 2}[ace]
    return int(min_deadwood_one(np.int64(m), tables(code, ace_high_value, joker_value)))
