"""Lookup tables the deadwood solver reads, built once per (ace mode, card values).

Conventions
-----------
A suit pattern is a 13-bit mask of ranks (bit 0 = Ace ... bit 12 = King). Runs never
cross suits, so the best use of one suit's cards *by runs alone* depends only on its
pattern: ``run_deadwood[p]`` is that least deadwood. Sets are the only thing that ties
suits together; the solver removes set cards from the patterns and then sums four
table reads.

The tables are arguments of the kernels (never module globals), so one compiled
kernel serves every ace mode and card value, and the numba cache cannot go stale when
a rule changes.
"""

from functools import lru_cache
from typing import NamedTuple

import numpy as np
from numba import njit

from kernels.layout import ACE_AROUND, ACE_HIGH_OR_LOW, ACE_LOW, N_RANKS

FULL_SUIT = (1 << N_RANKS) - 1
# Discard keys pack (deadwood change + KEY_OFFSET, 255 - value, 63 - card) in one int.
KEY_OFFSET = 512
N_PATTERNS = 1 << N_RANKS


class Tables(NamedTuple):
    """Everything the solver needs to know about one rule set's melds and values.

    Attributes
    ----------
    run_deadwood : uint8[8192]
        Least deadwood of a suit pattern using runs only.
    run_capable : uint16[8192]
        Bits of the pattern that lie in some 3-card run inside the pattern: a set card
        whose bit is clear here can never be wanted by a run.
    card_value : int32[54]
        Deadwood value of every card index (jokers 52 and 53 included).
    windows : int32[n_windows]
        Every run shape of the ace mode as a 13-bit pattern (3 to 13 ranks).
    run_shape : uint8[8192]
        1 where the pattern is exactly one run of the ace mode (3 to 13 ranks).
    best_removal : int32[8192]
        The best card to take out of a suit pattern as a packed discard key (see
        ``kernels.deadwood._pack``): deadwood change, card value and rank, so the
        best discard of a hand is the minimum of four reads.
    ace : int
        The ace mode code (``ACE_*``).
    """

    run_deadwood: np.ndarray
    run_capable: np.ndarray
    card_value: np.ndarray
    windows: np.ndarray
    run_shape: np.ndarray
    best_removal: np.ndarray
    ace: int


@njit(cache=True)
def _linear_run_table(values):
    """Least run-only deadwood of every pattern when the 13 positions form a line.

    ``values[i]`` is the deadwood value of position ``i``. The lowest card of a pattern
    is either deadwood or the first card of a run that starts there, so
    ``best[p] = min(values[low] + best[p - low], best[p - run])`` over the runs of 3+
    starting at ``low``; every term is a smaller pattern, so one pass upwards suffices.
    """
    best = np.zeros(N_PATTERNS, np.int32)
    for p in range(1, N_PATTERNS):
        low = 0
        while not (p >> low) & 1:
            low += 1
        b = values[low] + best[p & (p - 1)]
        run = 1 << low
        length = 1
        while low + length < N_RANKS and (p >> (low + length)) & 1:
            run |= 1 << (low + length)
            length += 1
            if length >= 3 and best[p & ~run] < b:
                b = best[p & ~run]
        best[p] = b
    return best


def _rotate(pattern: np.ndarray, shift: int) -> np.ndarray:
    """Rotate 13-bit patterns down by ``shift`` ranks (rank ``shift`` moves to bit 0)."""
    return ((pattern >> shift) | (pattern << (N_RANKS - shift))) & FULL_SUIT


def _run_deadwood_table(ace: int, rank_values: np.ndarray) -> np.ndarray:
    patterns = np.arange(N_PATTERNS, dtype=np.int64)
    low = _linear_run_table(rank_values)
    if ace == ACE_LOW:
        return low
    # Ace high: the line 2..K,A is the same line rotated by one rank.
    high = _linear_run_table(np.roll(rank_values, -1))[_rotate(patterns, 1)]
    if ace == ACE_HIGH_OR_LOW:
        # A run may hold the ace at either end but never both, and a pattern holds one
        # ace per suit: its best is the better of the two lines.
        return np.minimum(low, high)
    # Around the corner: no run crosses a missing rank, so cutting the circle at the
    # lowest missing rank gives a line with the same runs.
    table = np.zeros(N_PATTERNS, np.int32)
    lines = [_linear_run_table(np.roll(rank_values, -(m + 1))) for m in range(N_RANKS)]
    for p in range(N_PATTERNS - 1):
        m = 0
        while (p >> m) & 1:
            m += 1
        table[p] = lines[m][_rotate(np.int64(p), (m + 1) % N_RANKS)]
    table[FULL_SUIT] = 0
    return table


def _best_removal_table(run_deadwood: np.ndarray, rank_values: np.ndarray) -> np.ndarray:
    """Packed key of the best single-card removal from every suit pattern."""
    patterns = np.arange(N_PATTERNS, dtype=np.int64)
    best = np.full(N_PATTERNS, np.iinfo(np.int32).max, np.int64)
    for r in range(N_RANKS):
        held = (patterns >> r) & 1 == 1
        delta = run_deadwood[patterns ^ (1 << r)].astype(np.int64) - run_deadwood
        key = ((delta + KEY_OFFSET) << 16) | ((255 - int(rank_values[r])) << 8) | (63 - r)
        best = np.where(held, np.minimum(best, key), best)
    return best.astype(np.int32)


def _run_windows(ace: int) -> list[int]:
    """Every run shape (3..13 ranks) of the ace mode as a 13-bit pattern."""
    shapes = {((1 << length) - 1) << start for length in range(3, 14) for start in range(14 - length)}
    if ace in (ACE_HIGH_OR_LOW, ACE_AROUND):  # ... Q-K-A: the ace after the King
        shapes |= {(((1 << (13 - start)) - 1) << start) | 1 for start in range(1, 12)}
    if ace == ACE_AROUND:  # ... K-A-2 ...: any arc of the circle
        for length in range(3, 13):
            for start in range(N_RANKS):
                shapes.add(int(_rotate(np.int64((1 << length) - 1), (N_RANKS - start) % N_RANKS)))
    return sorted(shapes)


def _run_shape_table(windows: list[int]) -> np.ndarray:
    shape = np.zeros(N_PATTERNS, np.uint8)
    shape[windows] = 1
    return shape


def _run_capable_table(windows: list[int]) -> np.ndarray:
    patterns = np.arange(N_PATTERNS, dtype=np.int64)
    capable = np.zeros(N_PATTERNS, np.int64)
    for w in windows:
        if bin(w).count("1") == 3:
            capable |= np.where((patterns & w) == w, w, 0)
    return capable.astype(np.uint16)


@lru_cache(maxsize=None)
def build_tables(ace: int, ace_high_value: int = 15, joker_value: int = 15) -> Tables:
    """Solver tables for one ace mode (``ACE_*``) and the values of aces and jokers.

    Under ``ace = low`` an unmelded ace is worth 1; under the other modes it is worth
    ``ace_high_value`` (RULES.md "Melds and deadwood").
    """
    if ace not in (ACE_LOW, ACE_HIGH_OR_LOW, ACE_AROUND):
        raise ValueError(f"unknown ace mode code {ace}")
    rank_values = np.array([1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 10, 10, 10], np.int32)
    if ace != ACE_LOW:
        rank_values[0] = ace_high_value
    run_deadwood = _run_deadwood_table(ace, rank_values)
    if run_deadwood.max() > 255:
        raise ValueError("card values too large for the uint8 run table")
    windows = _run_windows(ace)
    card_value = np.concatenate([np.tile(rank_values, 4), [joker_value, joker_value]])
    return Tables(
        run_deadwood=run_deadwood.astype(np.uint8),
        run_capable=_run_capable_table(windows),
        card_value=card_value.astype(np.int32),
        windows=np.array(windows, np.int32),
        run_shape=_run_shape_table(windows),
        best_removal=_best_removal_table(run_deadwood.astype(np.int64), rank_values),
        ace=ace,
    )
