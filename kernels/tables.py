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

from functools import cache
from typing import NamedTuple, TypeVar

import numpy as np
from numba import njit, types

from kernels.borrow import BorrowedArray
from kernels.layout import ACE_AROUND, ACE_HIGH_OR_LOW, ACE_LOW, N_RANKS

FULL_SUIT = (1 << N_RANKS) - 1
# Discard keys pack (deadwood change + KEY_OFFSET, 255 - value, 63 - card) in one int.
KEY_OFFSET = 512
N_PATTERNS = 1 << N_RANKS


# The tables live in ONE flat, read-only uint16 array (the ``tab`` every kernel takes):
# numba keeps a reference count per array argument, and a tuple of arrays passed
# through the hot calls measured several times slower than a single array.
RUN_DEADWOOD = 0  # [8192] least deadwood of a suit pattern using runs only
RUN_CAPABLE = 8192  # [8192] bits of the pattern that lie in some 3-card run inside it
# The best discard reads, per suit, the pattern's run deadwood, run-capable ranks and
# best single-card removal together: these sit side by side in SUIT_FACTS, SUIT_STRIDE
# uint16 per pattern (8 bytes, so a 64-byte cache line holds 8 patterns), one cache
# line per suit. Field F of pattern p is at ``SUIT_FACTS + SUIT_STRIDE * p + F``. The
# least-deadwood kernels read the two compact tables above instead (32 KiB in all):
# reading the 64 KiB block there measured 10% slower.
SUIT_FACTS = 16384  # [SUIT_STRIDE * 8192]
SUIT_STRIDE = 4
FACT_DEADWOOD = 0  # = RUN_DEADWOOD[p]
FACT_CAPABLE = 1  # = RUN_CAPABLE[p]
FACT_BEST_LO = 2  # low 16 bits of the packed best single-card removal key (0xFFFF if empty)
FACT_BEST_HI = 3  # high bits of that key (see kernels.deadwood._pack; 0xFFFF if empty)
RUN_SHAPE = SUIT_FACTS + SUIT_STRIDE * N_PATTERNS  # [8192] 1 where the pattern is exactly one run
# [8192] ranks of the pattern whose removal leaves its least run deadwood (all the
# cards that tie for the best single removal; 0 for an empty pattern)
BEST_REMOVALS = RUN_SHAPE + N_PATTERNS
CARD_VALUE = BEST_REMOVALS + N_PATTERNS  # [54] deadwood value of every card index, jokers included
ACE_SLOT = CARD_VALUE + 54  # the ace mode code (ACE_*)
N_WINDOWS_SLOT = ACE_SLOT + 1  # how many run shapes follow
WINDOWS = N_WINDOWS_SLOT + 1  # [n] every run shape of the ace mode as a 13-bit pattern, ascending
MAX_WINDOWS = 160  # 131 under "around", the most of any mode
TABLE_SIZE = WINDOWS + MAX_WINDOWS
# An empty pattern has no card to remove: its removal key is all ones, which keeps any
# key built from it at or above kernels.deadwood.NO_KEY (1 << 31) whatever is added.
NO_REMOVAL = (1 << 32) - 1
# The table array's type where a piece (``kernels/link.py``) takes it.
TAB = BorrowedArray(types.uint16, 1, "C", readonly=True)


class TableViews(NamedTuple):
    """Named views of a flat table array, for Python code and tests."""

    run_deadwood: np.ndarray
    run_capable: np.ndarray
    run_shape: np.ndarray
    best_removal: np.ndarray  # int64, from FACT_BEST_LO / _HI (NO_REMOVAL if empty)
    best_removals: np.ndarray  # ranks tied for the best removal
    card_value: np.ndarray
    windows: np.ndarray
    ace: int


def table_views(tab: np.ndarray) -> TableViews:
    """Named views of the flat table array ``tab``."""
    n_windows = int(tab[N_WINDOWS_SLOT])
    facts = tab[SUIT_FACTS : SUIT_FACTS + SUIT_STRIDE * N_PATTERNS].reshape(N_PATTERNS, SUIT_STRIDE)
    return TableViews(
        run_deadwood=tab[RUN_DEADWOOD : RUN_DEADWOOD + N_PATTERNS],
        run_capable=tab[RUN_CAPABLE : RUN_CAPABLE + N_PATTERNS],
        run_shape=tab[RUN_SHAPE : RUN_SHAPE + N_PATTERNS],
        best_removal=(facts[:, FACT_BEST_HI].astype(np.int64) << 16) | facts[:, FACT_BEST_LO],
        best_removals=tab[BEST_REMOVALS : BEST_REMOVALS + N_PATTERNS],
        card_value=tab[CARD_VALUE : CARD_VALUE + 54],
        windows=tab[WINDOWS : WINDOWS + n_windows],
        ace=int(tab[ACE_SLOT]),
    )


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


# An array of patterns or one pattern: ``_rotate`` works on either alike.
_Patterns = TypeVar("_Patterns", np.ndarray, np.int64)


def _rotate(pattern: _Patterns, shift: int) -> _Patterns:
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


def _best_removals_table(run_deadwood: np.ndarray) -> np.ndarray:
    """Ranks of every suit pattern whose removal leaves the least run deadwood."""
    patterns = np.arange(N_PATTERNS, dtype=np.int64)
    after = np.full((N_RANKS, N_PATTERNS), np.iinfo(np.int64).max, np.int64)
    for r in range(N_RANKS):
        held = (patterns >> r) & 1 == 1
        after[r] = np.where(held, run_deadwood[patterns ^ (1 << r)], after[r])
    least = after.min(axis=0)
    ties = np.zeros(N_PATTERNS, np.int64)
    for r in range(N_RANKS):
        ties |= np.where((after[r] == least) & ((patterns >> r) & 1 == 1), 1 << r, 0)
    return ties.astype(np.uint16)


def _best_removal_table(run_deadwood: np.ndarray, rank_values: np.ndarray) -> np.ndarray:
    """Packed key of the best single-card removal from every suit pattern."""
    patterns = np.arange(N_PATTERNS, dtype=np.int64)
    best = np.full(N_PATTERNS, np.iinfo(np.int32).max, np.int64)
    for r in range(N_RANKS):
        held = (patterns >> r) & 1 == 1
        delta = run_deadwood[patterns ^ (1 << r)].astype(np.int64) - run_deadwood
        key = ((delta + KEY_OFFSET) << 16) | ((255 - int(rank_values[r])) << 8) | (63 - r)
        best = np.where(held, np.minimum(best, key), best)
    return np.where(best == np.iinfo(np.int32).max, NO_REMOVAL, best)


def _run_windows(ace: int) -> list[int]:
    """Every run shape (3..13 ranks) of the ace mode as a 13-bit pattern."""
    shapes = {
        ((1 << length) - 1) << start for length in range(3, 14) for start in range(14 - length)
    }
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


@cache
def build_tables(ace: int, ace_high_value: int = 15, joker_value: int = 15) -> np.ndarray:
    """Solver tables for one ace mode (``ACE_*``) and the values of aces and jokers.

    Returns the flat, read-only uint16 array described at the top of this module.
    Under ``ace = low`` an unmelded ace is worth 1; under the other modes it is worth
    ``ace_high_value`` (RULES.md "Melds and deadwood").
    """
    if ace not in (ACE_LOW, ACE_HIGH_OR_LOW, ACE_AROUND):
        raise ValueError(f"unknown ace mode code {ace}")
    rank_values = np.array([1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 10, 10, 10], np.int32)
    if ace != ACE_LOW:
        rank_values[0] = ace_high_value
    run_deadwood = _run_deadwood_table(ace, rank_values).astype(np.int64)
    best_removal = _best_removal_table(run_deadwood, rank_values)
    windows = _run_windows(ace)
    card_value = np.concatenate([np.tile(rank_values, 4), [joker_value, joker_value]])
    if run_deadwood.max() > 0xFFFF or best_removal[1:].max() >= 1 << 31:
        raise ValueError("card values too large for the solver tables")
    tab = np.zeros(TABLE_SIZE, np.uint16)
    run_capable = _run_capable_table(windows)
    tab[RUN_DEADWOOD : RUN_DEADWOOD + N_PATTERNS] = run_deadwood
    tab[RUN_CAPABLE : RUN_CAPABLE + N_PATTERNS] = run_capable
    facts = tab[SUIT_FACTS : SUIT_FACTS + SUIT_STRIDE * N_PATTERNS].reshape(N_PATTERNS, SUIT_STRIDE)
    facts[:, FACT_DEADWOOD] = run_deadwood
    facts[:, FACT_CAPABLE] = run_capable
    facts[:, FACT_BEST_LO] = best_removal & 0xFFFF
    facts[:, FACT_BEST_HI] = best_removal >> 16
    tab[RUN_SHAPE : RUN_SHAPE + N_PATTERNS] = _run_shape_table(windows)
    tab[BEST_REMOVALS : BEST_REMOVALS + N_PATTERNS] = _best_removals_table(run_deadwood)
    tab[CARD_VALUE : CARD_VALUE + 54] = card_value
    tab[ACE_SLOT] = ace
    tab[N_WINDOWS_SLOT] = len(windows)
    tab[WINDOWS : WINDOWS + len(windows)] = windows
    tab.flags.writeable = False  # shared by every kernel and strategy: never written
    return tab
