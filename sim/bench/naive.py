"""A naive exact deadwood solver, the baseline ``rummy bench deadwood`` compares against.

This is the textbook method (as in OpenSpiel's ``MinDeadwood``), compiled with numba
so the comparison measures the algorithm, not the interpreter: list every meld inside
the hand (run windows of the ace mode in each suit; sets of 3 and 4 of each rank),
then search depth-first over combinations of pairwise disjoint melds for the one
that melds the most value. Natural cards only. The best discard solves the hand once
per card, with the same tie-break as ``kernels.deadwood.best_discard_one`` (least
deadwood, then highest card value, then highest index), so outputs compare equal.

Conventions as in ``kernels/``: hands are int64 masks (uint64 in arrays), ``windows``
and ``card_value`` are ``kernels.tables.table_views(tab)`` arrays of the rule set.
"""

import numpy as np
from numba import njit, prange

from kernels.bits import lowest_bit, popcount

RANK_ACROSS_SUITS = 1 | (1 << 13) | (1 << 26) | (1 << 39)  # the Aces; shift for a rank
# Melds inside one natural hand of up to 13 cards: at most 66 run windows in a suit
# and 5 set choices per rank; far more room than needed.
MAX_MELDS = 512
MAX_DEPTH = 8  # melds in one arrangement: 13 cards make at most 4
N_CHUNKS = 64  # prange chunks; scratch is allocated once per chunk


@njit(cache=True)
def hand_value_naive_nb(mask, card_value):
    """Total value of the cards of ``mask``."""
    total = np.int64(0)
    rest = mask
    while rest:
        total += card_value[lowest_bit(rest)]
        rest &= rest - 1
    return total


@njit(cache=True)
def list_melds_naive_nb(mask, windows, card_value, melds, values):
    """Write every meld inside ``mask`` to ``melds`` (its value to ``values``); count."""
    n = 0
    for s in range(4):
        pattern = (mask >> (13 * s)) & 0x1FFF
        for w in windows:
            if pattern & w == w:
                meld = np.int64(w) << (13 * s)
                melds[n] = meld
                values[n] = hand_value_naive_nb(meld, card_value)
                n += 1
    for r in range(13):
        cards = mask & (RANK_ACROSS_SUITS << r)
        if popcount(cards) < 3:
            continue
        melds[n] = cards
        values[n] = hand_value_naive_nb(cards, card_value)
        n += 1
        if popcount(cards) == 4:  # and each set of three
            rest = cards
            while rest:
                low = rest & -rest
                rest ^= low
                melds[n] = cards ^ low
                values[n] = hand_value_naive_nb(cards ^ low, card_value)
                n += 1
    return n


@njit(cache=True)
def min_deadwood_naive_nb(mask, windows, card_value, melds, values):
    """Least deadwood of a natural hand by depth-first search over disjoint melds.

    ``melds`` and ``values`` (int64[MAX_MELDS]) are scratch.
    """
    n = list_melds_naive_nb(mask, windows, card_value, melds, values)
    next_meld = np.empty(MAX_DEPTH, np.int64)
    used = np.empty(MAX_DEPTH, np.int64)
    melded = np.empty(MAX_DEPTH, np.int64)
    best = np.int64(0)
    depth = 0
    next_meld[0] = 0
    used[0] = 0
    melded[0] = 0
    while depth >= 0:
        j = next_meld[depth]
        if j == n:
            depth -= 1
            continue
        next_meld[depth] = j + 1
        if melds[j] & used[depth] == 0:
            value = melded[depth] + values[j]
            best = max(best, value)
            depth += 1
            next_meld[depth] = j + 1  # only later melds: each combination once
            used[depth] = used[depth - 1] | melds[j]
            melded[depth] = value
    return hand_value_naive_nb(mask, card_value) - best


@njit(cache=True)
def best_discard_naive_nb(mask, windows, card_value, melds, values):
    """``(card, deadwood)``: the best discard, solving the hand once per card."""
    best_card = -1
    best_deadwood = np.int64(1) << 30
    best_value = np.int64(-1)
    rest = mask
    while rest:
        card = lowest_bit(rest)
        rest &= rest - 1
        d = min_deadwood_naive_nb(mask ^ (np.int64(1) << card), windows, card_value, melds, values)
        value = np.int64(card_value[card])
        # Ascending cards: on a full tie the later (higher) card wins.
        if d < best_deadwood or (d == best_deadwood and value >= best_value):
            best_card, best_deadwood, best_value = card, d, value
    return best_card, best_deadwood


@njit(cache=True, parallel=True)
def min_deadwood_naive_batch(masks, windows, card_value, out):
    """``out[i]`` = least deadwood of ``masks[i]`` (uint64[n] -> int64[n])."""
    n = masks.shape[0]
    for c in prange(N_CHUNKS):
        melds = np.empty(MAX_MELDS, np.int64)
        values = np.empty(MAX_MELDS, np.int64)
        for i in range(c, n, N_CHUNKS):
            out[i] = min_deadwood_naive_nb(np.int64(masks[i]), windows, card_value, melds, values)


@njit(cache=True, parallel=True)
def best_discard_naive_batch(masks, windows, card_value, out_card, out_deadwood):
    """Best discard of every hand (no forbidden card)."""
    n = masks.shape[0]
    for c in prange(N_CHUNKS):
        melds = np.empty(MAX_MELDS, np.int64)
        values = np.empty(MAX_MELDS, np.int64)
        for i in range(c, n, N_CHUNKS):
            card, d = best_discard_naive_nb(np.int64(masks[i]), windows, card_value, melds, values)
            out_card[i] = card
            out_deadwood[i] = d
