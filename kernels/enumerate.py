"""The distribution of the least deadwood of a random hand: exact and Monte Carlo.

Conventions
-----------
* Hands are int64 masks inside the kernels (bit ``suit * 13 + rank``; jokers at bits
  52 and 53); a suit pattern is a 13-bit rank mask (bit 0 = Ace ... bit 12 = King).
* ``tab``: the flat solver table array of ``kernels.tables``.
* Histograms are ``int64[n_chunks, n_values]``: row ``c`` is filled only by chunk ``c``
  of the ``prange`` loop, and the caller sums the rows. Integer sums do not depend on
  the order of addition, so results are identical for every thread count.
* Every kernel is pure apart from the ``out``/``hist`` arrays it is given (and the
  scratch ``deck`` of :func:`sample_hand_nb`, restored before it returns).

Exact enumeration (natural cards only)
--------------------------------------
The deadwood of a hand does not change when its suits are permuted (runs stay in a
suit, sets take one card per suit, card values ignore suits), so every hand is one
of the classes ``p0 <= p1 <= p2 <= p3`` of four suit patterns, and the class stands
for ``24 / (m_1! m_2! ...)`` hands, ``m_j`` the multiplicities of equal patterns.
With N = 10 that is about 660 million classes instead of 15.8 billion hands. Patterns
are kept sorted by (popcount, value) so each level of the loop nest walks only the
patterns of one popcount that are not below the level above (``start_index``).

Monte Carlo (jokers allowed)
----------------------------
Sample ``i`` depends only on ``(key, i)``: its random words are SplitMix64 outputs of
the state ``mix64(key ^ (i * GOLDEN))`` stepped by ``GOLDEN``; cards come from a
partial Fisher-Yates shuffle of the deck with unbiased bounded integers (Lemire's
multiply-shift with rejection, on the top 32 bits of each word).
"""

from functools import cache

import numpy as np
from numba import njit, prange

from kernels.bits import popcount
from kernels.deadwood import min_deadwood_one, natural_min_deadwood
from kernels.layout import N_RANKS

N_PATTERNS = 1 << N_RANKS
MAX_ENUMERATED_CARDS = 11  # the exact enumeration's tested range (C(52, 11) = 60e9)
# Work items: one outer pattern p0, one popcount of p1, and a block of at most this
# many p1 patterns, so that no single item (p0 = 0 covers every hand with a void)
# holds a large share of the work.
P1_BLOCK = 32
# Rows of the histogram: chunks of the prange loop. Chunk ``c`` takes items
# ``c, c + N_CHUNKS, ...``, so neighbouring (similar) items spread over every chunk
# and a static split of the chunks over threads is balanced. Fixed, not per thread.
N_CHUNKS = 64

# --- counter-based random numbers (SplitMix64, Steele, Lea & Flood 2014) -------------
GOLDEN = np.uint64(0x9E3779B97F4A7C15)  # 2^64 / golden ratio, odd: i * GOLDEN is a bijection
MIX_1 = np.uint64(0xBF58476D1CE4E5B9)
MIX_2 = np.uint64(0x94D049BB133111EB)
LOW_32 = np.uint64(0xFFFFFFFF)
TWO_32 = np.uint64(1 << 32)
SHIFT_30 = np.uint64(30)
SHIFT_27 = np.uint64(27)
SHIFT_31 = np.uint64(31)
SHIFT_32 = np.uint64(32)

# Suit permutations a class stands for, by which neighbours are equal:
# index e01 | e12 << 1 | e23 << 2 (e01: p0 == p1, ...); 24 / product of factorials.
CLASS_WEIGHT = np.array([24, 12, 12, 4, 12, 6, 4, 1], np.int64)


@njit(cache=True, inline="always")
def mix64_nb(z):
    """SplitMix64 output function: a bijection of uint64 with good avalanche."""
    z = (z ^ (z >> SHIFT_30)) * MIX_1
    z = (z ^ (z >> SHIFT_27)) * MIX_2
    return z ^ (z >> SHIFT_31)


@njit(cache=True, inline="always")
def _next_nb(state):
    """One SplitMix64 step: ``(new state, 64 random bits)``, both uint64."""
    state = state + GOLDEN
    return state, mix64_nb(state)


@njit(cache=True, inline="always")
def bounded_nb(state, n):
    """Unbiased integer in ``[0, n)`` for ``1 <= n <= 2^32`` (Lemire 2019).

    ``state`` and ``n`` are uint64; returns ``(new state, value)`` as uint64. The
    product of 32 random bits and ``n`` has its top half uniform on ``[0, n)`` once
    the rare low halves below ``2^32 mod n`` are rejected.
    """
    state, bits = _next_nb(state)
    product = (bits >> SHIFT_32) * n
    low = product & LOW_32
    if low < n:
        threshold = (TWO_32 - n) % n
        while low < threshold:
            state, bits = _next_nb(state)
            product = (bits >> SHIFT_32) * n
            low = product & LOW_32
    return state, product >> SHIFT_32


@njit(cache=True, inline="always")
def sample_state_nb(key, index):
    """Starting state of sample ``index`` (uint64 key, int index >= 0)."""
    return mix64_nb(key ^ (np.uint64(index) * GOLDEN))


@njit(cache=True)
def sample_hand_nb(key, index, cards, deck, swaps):
    """Hand ``index`` of the stream ``key``: ``cards`` cards drawn from ``deck``.

    Parameters
    ----------
    key : uint64
    index : int64
        Sample number; the hand depends only on ``(key, index)``.
    cards : int64
        Hand size, at most ``deck.shape[0]``.
    deck : int64[deck_size]
        Card indices, ``deck[j] == j`` on entry (52 naturals, then 0 or 2 jokers);
        shuffled in place and restored before returning.
    swaps : int64[>= cards]
        Scratch.

    Returns
    -------
    int64
        The hand mask.
    """
    state = sample_state_nb(key, index)
    size = deck.shape[0]
    mask = np.int64(0)
    for j in range(cards):  # partial Fisher-Yates: deck[j] is drawn from deck[j:]
        state, r = bounded_nb(state, np.uint64(size - j))
        k = j + np.int64(r)
        swaps[j] = k
        card = deck[k]
        deck[k] = deck[j]
        deck[j] = card
        mask |= np.int64(1) << card
    for j in range(cards - 1, -1, -1):  # undo, so the next sample starts from 0..n-1
        k = swaps[j]
        card = deck[k]
        deck[k] = deck[j]
        deck[j] = card
    return mask


@njit(cache=True, parallel=True)
def random_hands_nb(key, first, cards, deck_size, out):
    """``out[i]`` = hand ``first + i`` of the stream ``key`` (int64[n], filled)."""
    n = out.shape[0]
    n_chunks = min(N_CHUNKS, n)
    for c in prange(n_chunks):
        deck = np.arange(deck_size, dtype=np.int64)
        swaps = np.empty(cards + 1, np.int64)
        for i in range(c, n, n_chunks):
            out[i] = sample_hand_nb(key, first + i, cards, deck, swaps)


@njit(cache=True, parallel=True)
def monte_carlo_histogram_nb(key, first, samples, cards, deck_size, tab, hist):
    """Count the least deadwood of hands ``first .. first + samples - 1`` of the stream
    ``key`` (the caller counts a large number in batches, between which it can be
    interrupted: the counts add up to those of one call).

    Parameters
    ----------
    key : uint64
    first, samples, cards, deck_size : int64
        ``deck_size`` is 52, or 54 with jokers.
    tab : uint16[TABLE_SIZE], the flat solver tables
    hist : int64[n_chunks, n_values]
        Counts are added; row ``c`` receives chunk ``c``'s counts (chunk ``c`` takes
        the contiguous samples ``first + c * per .. first + (c + 1) * per - 1``).
        ``n_values`` must exceed the largest possible deadwood.
    """
    n_chunks = hist.shape[0]
    per = (samples + n_chunks - 1) // n_chunks
    for c in prange(n_chunks):
        deck = np.arange(deck_size, dtype=np.int64)
        swaps = np.empty(cards + 1, np.int64)
        stop = min(samples, (c + 1) * per)
        for i in range(c * per, stop):
            mask = sample_hand_nb(key, first + i, cards, deck, swaps)
            hist[c, min_deadwood_one(mask, tab)] += 1


# --- exact enumeration ---------------------------------------------------------------


@cache
def pattern_tables() -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The 8192 suit patterns sorted by (popcount, value), and where each group starts.

    Returns
    -------
    patterns : int64[8192]
    offsets : int64[N_RANKS + 2]
        Patterns of popcount ``k`` are ``patterns[offsets[k]:offsets[k + 1]]``.
    start_index : int64[N_RANKS + 1, 8193]
        ``start_index[k, p]``: the first position in ``patterns`` of popcount ``k``
        whose value is ``>= p`` (``offsets[k + 1]`` if none).
    """
    values = np.arange(N_PATTERNS, dtype=np.int64)
    counts = np.bitwise_count(values).astype(np.int64)
    order = np.lexsort((values, counts))
    patterns = values[order]
    offsets = np.zeros(N_RANKS + 2, np.int64)
    offsets[1:] = np.cumsum(np.bincount(counts, minlength=N_RANKS + 1))
    start_index = np.empty((N_RANKS + 1, N_PATTERNS + 1), np.int64)
    for k in range(N_RANKS + 1):
        group = patterns[offsets[k] : offsets[k + 1]]
        start_index[k] = offsets[k] + np.searchsorted(group, np.arange(N_PATTERNS + 1))
    for array in (patterns, offsets, start_index):
        array.setflags(write=False)
    return patterns, offsets, start_index


@njit(cache=True)
def _items_pass_nb(cards, offsets, start_index, items, fill):
    """Count the work items, and write them into ``items`` when ``fill``."""
    n = 0
    for p0 in range(N_PATTERNS):
        k0 = popcount(p0)
        if k0 > cards or (p0 != 0 and k0 > cards - 3):
            continue  # p0 > 0 is the smallest pattern: the other three are not empty
        for k1 in range(cards - k0 + 1):
            if (p0 != 0 and k1 == 0) or (k1 > 0 and cards - k0 - k1 < 2):
                continue  # p1 >= p0 > 0 is not empty; p1 > 0 leaves two suits not empty
            lo = start_index[k1, p0]
            hi = offsets[k1 + 1]
            while lo < hi:
                top = min(hi, lo + P1_BLOCK)
                if fill:
                    items[n, 0] = p0
                    items[n, 1] = lo
                    items[n, 2] = top
                n += 1
                lo = top
    return n


@njit(cache=True)
def enumeration_items_nb(cards, offsets, start_index):
    """Work items of the exact enumeration of ``cards``-card hands.

    Returns
    -------
    int64[n_items, 3]
        ``(p0, lo, hi)``: the smallest suit pattern, and a range ``lo:hi`` of
        positions in ``patterns`` (all of one popcount, values ``>= p0``) for ``p1``.
    """
    n = _items_pass_nb(cards, offsets, start_index, np.empty((0, 3), np.int64), False)
    items = np.empty((n, 3), np.int64)
    _items_pass_nb(cards, offsets, start_index, items, True)
    return items


@njit(cache=True, parallel=True)
def exact_histogram_nb(cards, patterns, offsets, start_index, items, tab, hist):
    """Weighted count of the least deadwood of every ``cards``-card natural hand.

    Parameters
    ----------
    cards : int64
        Hand size (1..13; the tested range is 1..11).
    patterns, offsets, start_index : from :func:`pattern_tables`
    items : int64[n_items, 3]
        From :func:`enumeration_items_nb` for the same ``cards``.
    tab : the flat solver table array of the rule set (``kernels.tables``)
    hist : int64[n_chunks, n_values]
        Zeroed by the caller; row ``c`` gets chunk ``c``'s counts. Summed over rows,
        ``hist[:, d]`` is the number of hands (of ``C(52, cards)``) with deadwood ``d``.
    """
    n_chunks = hist.shape[0]
    n_items = items.shape[0]
    for c in prange(n_chunks):
        for item in range(c, n_items, n_chunks):
            p0 = items[item, 0]
            k0 = popcount(p0)
            for i1 in range(items[item, 1], items[item, 2]):
                p1 = patterns[i1]
                rest = cards - k0 - popcount(p1)
                e01 = np.int64(p0 == p1)
                low1 = p0 | (p1 << 13)
                for k2 in range(rest + 1):
                    k3 = rest - k2
                    if p1 != 0 and (k2 == 0 or k3 == 0):
                        continue  # p3 >= p2 >= p1 > 0 holds no empty suit
                    end3 = offsets[k3 + 1]
                    for i2 in range(start_index[k2, p1], offsets[k2 + 1]):
                        p2 = patterns[i2]
                        e12 = np.int64(p1 == p2)
                        low2 = low1 | (p2 << 26)
                        i3 = start_index[k3, p2]
                        if i3 < end3 and patterns[i3] == p2:
                            # p3 == p2: the only place the last two patterns can tie.
                            mask = low2 | (p2 << 39)
                            d = natural_min_deadwood(mask, tab)
                            hist[c, d] += CLASS_WEIGHT[e01 | (e12 << 1) | 4]
                            i3 += 1
                        weight = CLASS_WEIGHT[e01 | (e12 << 1)]
                        for i in range(i3, end3):
                            mask = low2 | (patterns[i] << 39)
                            hist[c, natural_min_deadwood(mask, tab)] += weight
