"""Exact minimum deadwood and best discard over 64-bit hand masks.

Conventions
-----------
* ``mask``: int64 inside kernels (uint64 in public arrays) hand, bit ``suit * 13 + rank``,
  jokers at bits 52 and 53.
* ``tab``: the flat uint16 table array of ``kernels.tables`` (ace mode and values).
* Every function is pure; batch functions write into caller-allocated ``out`` arrays.

The method (exact, never greedy)
--------------------------------
Runs stay inside a suit, so without sets the least deadwood is the sum of four table
reads ``RUN_DEADWOOD[pattern of suit s]``. Sets tie suits together, but only at ranks
held in three or more suits. For each such rank the solver tries the set choices
that can matter (``_sets_min``): all cards in the set, none, or for a 4-card rank the
set of three leaving one card to a run. Any card that cannot be part of a 3-card run
in its suit never needs to leave a set, which prunes almost every branch.

Best discard (no jokers): removing a run-side card changes only its own suit's run
deadwood, so for each set choice the best such removal is four reads of a per-suit
table (``SUIT_FACTS``: deadwood, run-capable ranks and best single-card removal side
by side). Cards of sets no run could use have a closed form (``_easy_set_key``), and
the set choices at contested ranks are enumerated once, with every candidate read off
the same leaves (``_contested_key``): no hand is solved twice.

Jokers (RULES.md): a joker meld is natural cards ``S`` plus jokers, where ``S`` alone
is a set or run with one (or two) cards missing. The solver tries every such ``S``
(``_joker_partials``), solves the natural rest exactly, and keeps the best.
"""

import numpy as np
from numba import njit, prange
from numba.core.types import UniTuple, int64
from numba.cpython.unsafe.numbers import leading_zeros

from kernels.bits import at_least_three, lowest_bit, popcount, suit_patterns
from kernels.borrow import BorrowedArray, stack_empty
from kernels.layout import DECK_CAPACITY, NATURAL_BITS
from kernels.link import Piece, piece
from kernels.tables import (
    BEST_REMOVALS,
    CARD_VALUE,
    FACT_BEST_HI,
    FACT_BEST_LO,
    FACT_CAPABLE,
    FACT_DEADWOOD,
    KEY_OFFSET,
    N_WINDOWS_SLOT,
    RUN_CAPABLE,
    SUIT_FACTS,
    SUIT_STRIDE,
    TAB,
    WINDOWS,
)

BIG = 1 << 30  # larger than any deadwood
RANK_ACROSS_SUITS = 1 | (1 << 13) | (1 << 26) | (1 << 39)  # the Aces; shift for a rank
# Joker-meld natural parts in one hand: far above what 13 cards can produce.
MAX_PARTIALS = 4096
# Up to this many cards a hand rarely holds a rank in three suits (12% of random
# 8-card hands, 24% of 10-card ones): testing for one first, and skipping the set
# work without one, is then faster than doing it always (``_strip_easy_sets``).
FEW_CARDS = 8


@njit(cache=True)
def _run_deadwood(p, tab):
    """Least run-only deadwood of suit pattern ``p``."""
    return np.int64(tab[p])


@njit(cache=True)
def _capable(p, tab):
    """Ranks of suit pattern ``p`` that lie in some 3-card run inside it."""
    return np.int64(tab[RUN_CAPABLE + p])


@njit(cache=True)
def _fact(p, field, tab):
    """Field ``field`` (``FACT_*``) of suit pattern ``p`` in the best-discard block."""
    return np.int64(tab[SUIT_FACTS + SUIT_STRIDE * p + field])


@njit(cache=True)
def _removal(p, tab):
    """Packed key of the best single-card removal from suit pattern ``p`` (suit 0),
    relative to the pattern's own deadwood; ``NO_REMOVAL`` for an empty pattern."""
    return (_fact(p, FACT_BEST_HI, tab) << 16) | _fact(p, FACT_BEST_LO, tab)


@njit(cache=True, inline="always")
def _strip_easy_sets(p0, p1, p2, p3, branch, tab):
    """Put every set no run could use into a set; return the patterns left and the
    ranks still contested between a set and a run.

    A rank held in three or more suits none of whose cards fits a 3-card run in its
    suit is always best as a set (of 3 or 4): those cards have no other use.
    ``branch`` (a constant once inlined) returns early when no rank can make a set:
    measured faster for hands of up to ``FEW_CARDS`` cards, slower for larger ones
    (where the branch is mispredicted often); both give the same answer.
    """
    ranks = at_least_three(p0, p1, p2, p3)
    if ranks == 0 and branch:
        return p0, p1, p2, p3, ranks, ranks
    wanted = _capable(p0, tab) | _capable(p1, tab) | _capable(p2, tab) | _capable(p3, tab)
    contested = ranks & wanted
    easy = ranks & ~contested
    return p0 & ~easy, p1 & ~easy, p2 & ~easy, p3 & ~easy, easy, contested


@njit(cache=True)
def _four_reads(p0, p1, p2, p3, tab):
    return (
        _run_deadwood(p0, tab)
        + _run_deadwood(p1, tab)
        + _run_deadwood(p2, tab)
        + _run_deadwood(p3, tab)
    )


@njit(cache=True)
def _spread(suits, rank):
    """Mask of the cards of ``rank`` in the suits of a 4-bit suit mask."""
    return (
        (suits & 1)
        | (((suits >> 1) & 1) << 13)
        | (((suits >> 2) & 1) << 26)
        | (((suits >> 3) & 1) << 39)
    ) << rank


@njit(cache=True)
def _set_options(mask, ranks, tab, every_none):
    """The set choices worth trying at the lowest rank of ``ranks``.

    Returns ``(rank, options, count)``: ``options`` packs ``count`` 4-bit suit masks
    (which suits' cards of the rank go into the set), 4 bits each; the first is the
    whole set. Tried: the whole set; for a rank held in 4 suits, the set of 3 leaving
    out one card a run could use; and no set at all, unless at most one card of a
    4-card rank is wanted by a run (leaving that one out is then strictly better) and
    ``every_none`` is False. ``count`` is 1 with no rank.
    """
    if ranks == 0:
        return 0, 0, 1
    r = lowest_bit(ranks)
    held = 0
    capable = 0
    for s in range(4):
        p = (mask >> (13 * s)) & 0x1FFF
        if (p >> r) & 1:
            held |= 1 << s
            if (_capable(p, tab) >> r) & 1:
                capable |= 1 << s
    options = held
    count = 1
    if capable == 0:
        return r, options, count
    if held == 15:
        rest = capable
        while rest:
            s = lowest_bit(rest)
            rest &= rest - 1
            options |= (held & ~(1 << s)) << (4 * count)
            count += 1
        if popcount(capable) == 1 and not every_none:
            return r, options, count
    # no set at all: option 0 (nothing moves), packed as a zero nibble
    return r, options, count + 1


@njit(cache=True, inline="always")
def _rank_options(mask, contested, tab, every_none):
    """``_set_options`` of the four lowest ``contested`` ranks, one after the other
    (a rank past the last has one option: nothing)."""
    r0, o0, n0 = _set_options(mask, contested, tab, every_none)
    rest = contested & (contested - 1)
    r1, o1, n1 = _set_options(mask, rest, tab, every_none)
    rest &= rest - 1
    r2, o2, n2 = _set_options(mask, rest, tab, every_none)
    rest &= rest - 1
    r3, o3, n3 = _set_options(mask, rest, tab, every_none)
    return r0, o0, n0, r1, o1, n1, r2, o2, n2, r3, o3, n3


# Leaves of the set choices in a hand of up to 13 cards: a rank held in all four suits
# has at most six options, a rank in three suits two, so three ranks of four (12 cards)
# make the most, 6 * 6 * 6.
MAX_LEAVES = 6**3


@njit(cache=True, inline="always")
def _set_leaves(mask, contested, tab, every_none, leaves, whole):
    """Every combination of set options at the ``contested`` ranks (``_set_options``,
    with the "none" option always tried if ``every_none``): ``leaves[i]`` gets the
    natural cards one choice leaves to runs, ``whole[i]`` a 4-bit mask of the ranks
    (lowest contested first) whose whole set it takes (option 0). Returns the number
    of leaves, the four ranks packed 4 bits each, and a 4-bit mask of those held in
    all four suits (where one card out of the set of 4 leaves a set of 3).

    Plain nested loops: a recursive numba function measured much slower.
    """
    options = _rank_options(mask, contested, tab, every_none)
    r0, o0, n0, r1, o1, n1, r2, o2, n2, r3, o3, n3 = options
    n = 0
    for a in range(n0):
        m0 = mask & ~_spread((o0 >> (4 * a)) & 15, r0)
        for b in range(n1):
            m1 = m0 & ~_spread((o1 >> (4 * b)) & 15, r1)
            for c in range(n2):
                m2 = m1 & ~_spread((o2 >> (4 * c)) & 15, r2)
                for d in range(n3):
                    leaves[n] = m2 & ~_spread((o3 >> (4 * d)) & 15, r3)
                    whole[n] = (a == 0) | ((b == 0) << 1) | ((c == 0) << 2) | ((d == 0) << 3)
                    n += 1
    ranks = r0 | (r1 << 4) | (r2 << 8) | (r3 << 12)
    fours = (
        ((o0 & 15) == 15)
        | (((o1 & 15) == 15) << 1)
        | (((o2 & 15) == 15) << 2)
        | (((o3 & 15) == 15) << 3)
    )
    return n, ranks, fours


@njit(cache=True)
def _sets_min(mask, contested, tab):
    """Least deadwood choosing sets at the ``contested`` ranks (at most 4 in 13 cards).

    The loops of ``_set_leaves``, solving each leaf as it comes: the solver's hottest
    path with sets (writing the leaves down first measured 2-6% slower end to end).
    """
    options = _rank_options(mask, contested, tab, False)
    r0, o0, n0, r1, o1, n1, r2, o2, n2, r3, o3, n3 = options
    best = np.int64(BIG)
    for a in range(n0):
        m0 = mask & ~_spread((o0 >> (4 * a)) & 15, r0)
        for b in range(n1):
            m1 = m0 & ~_spread((o1 >> (4 * b)) & 15, r1)
            for c in range(n2):
                m2 = m1 & ~_spread((o2 >> (4 * c)) & 15, r2)
                for d in range(n3):
                    p0, p1, p2, p3 = suit_patterns(m2 & ~_spread((o3 >> (4 * d)) & 15, r3))
                    best = min(best, _four_reads(p0, p1, p2, p3, tab))
    return best


@njit(cache=True, inline="always")
def _natural_min_inline(mask, branch, tab):
    """Least deadwood of natural cards (``branch``: see ``_strip_easy_sets``)."""
    p0, p1, p2, p3 = suit_patterns(mask)
    q0, q1, q2, q3, easy, contested = _strip_easy_sets(p0, p1, p2, p3, branch, tab)
    if contested == 0:
        return _four_reads(q0, q1, q2, q3, tab)
    natural = q0 | (q1 << 13) | (q2 << 26) | (q3 << 39)
    return _sets_min(natural, contested, tab)


@njit(cache=True, inline="always")
def natural_min_deadwood(mask, tab):
    """Least deadwood of a hand of natural cards (no jokers)."""
    return _natural_min_inline(mask, True, tab)


@njit(cache=True)
def loose_cards(mask, tab):
    """How many natural cards of the hand lie in no possible meld of it (no 3-card run
    in its suit, its rank in fewer than three suits): each is deadwood in every
    arrangement, of this hand and of any hand it keeps after discarding. 0 with a
    joker, which melds with anything. A few table reads."""
    if (mask >> 52) != 0:
        return np.int64(0)
    p0, p1, p2, p3 = suit_patterns(mask)
    sets = at_least_three(p0, p1, p2, p3)
    return (
        popcount(p0 & ~(_capable(p0, tab) | sets)) + popcount(p1 & ~(_capable(p1, tab) | sets))
        + popcount(p2 & ~(_capable(p2, tab) | sets)) + popcount(p3 & ~(_capable(p3, tab) | sets))
    )  # fmt: skip


@njit(cache=True)
def every_card_meldable(mask, tab):
    """False when some natural card of the hand lies in no possible meld of it
    (``loose_cards``): the least deadwood is then above 0. True says nothing (and
    always with a joker). The gate in front of a full solve where only a deadwood of 0
    matters."""
    return loose_cards(mask, tab) == 0


@njit(cache=True)
def _joker_partials(natural, tab, missing, out):
    """Write every natural part of a meld that lacks exactly ``missing`` cards.

    A meld with ``missing`` jokers has natural cards ``S``: a run window of length L
    with L - missing of its cards (the joker may stand for a card held elsewhere, so
    every such subset counts), or 3 - missing or 4 - missing cards of one rank. At
    least one card is natural. Returns how many masks were written to ``out``.
    """
    n = 0
    for s in range(4):
        p = (natural >> (13 * s)) & 0x1FFF
        if p == 0:
            continue
        for wi in range(tab[N_WINDOWS_SLOT]):
            w = np.int64(tab[WINDOWS + wi])
            held = p & w
            k = popcount(w) - missing  # natural cards this meld needs
            if k < 1 or popcount(held) < k:
                continue
            extra = popcount(held) - k  # held cards the jokers stand in for
            if extra == 0:
                out[n] = held << (13 * s)
                n += 1
            elif extra == 1:
                rest = held
                while rest:
                    b = rest & -rest
                    rest ^= b
                    out[n] = (held ^ b) << (13 * s)
                    n += 1
            elif extra == 2:
                r1 = held
                while r1:
                    b1 = r1 & -r1
                    r1 ^= b1
                    r2 = r1
                    while r2:
                        b2 = r2 & -r2
                        r2 ^= b2
                        out[n] = (held ^ b1 ^ b2) << (13 * s)
                        n += 1
    # Sets: every subset of a rank's cards of size 3 - missing or 4 - missing (>= 1).
    for r in range(13):
        cards = natural & (RANK_ACROSS_SUITS << r)
        have = popcount(cards)
        if have == 0:
            continue
        sub = cards
        while True:
            size = popcount(sub)
            if size >= 1 and (size == 3 - missing or size == 4 - missing):
                out[n] = sub
                n += 1
            if sub == 0:
                break
            sub = (sub - 1) & cards
    return n


@njit(cache=True)
def _joker_min_deadwood(mask, tab):
    """Least deadwood of a hand holding one or two jokers (the piece
    ``joker_min_deadwood``: compiled on the first joker hand only)."""
    natural = mask & NATURAL_BITS
    jokers = popcount(mask >> 52)
    joker_value = np.int64(tab[CARD_VALUE + 52])
    best = natural_min_deadwood(natural, tab) + jokers * joker_value
    single = np.empty(MAX_PARTIALS, np.int64)
    n_single = _joker_partials(natural, tab, 1, single)
    for i in range(n_single):
        d = natural_min_deadwood(natural & ~single[i], tab)
        best = min(best, d + (jokers - 1) * joker_value)
        if jokers == 2:
            # The second joker in another meld of its own.
            for k in range(i + 1, n_single):
                if single[i] & single[k] == 0:
                    rest = natural & ~single[i] & ~single[k]
                    best = min(best, natural_min_deadwood(rest, tab))
    if jokers == 2:
        # Both jokers in one meld.
        double = np.empty(MAX_PARTIALS, np.int64)
        n_double = _joker_partials(natural, tab, 2, double)
        for i in range(n_double):
            best = min(best, natural_min_deadwood(natural & ~double[i], tab))
    return best


joker_min_deadwood = Piece(_joker_min_deadwood, int64(int64, TAB), lazy=True)


@njit(cache=True)
def min_deadwood_one(mask, tab):
    """Exact least deadwood of one hand (int64 mask; 0, 1 or 2 jokers; up to 13 cards).

    Strategies and the engine call this directly, every turn: compiled into them (a
    second or so), its natural path inlines where it pays (through a slot, Gin greedy
    vs greedy measured 5% slower). Callers that solve a hand now and then call
    ``min_deadwood_piece``. The best discard and the least removals are pieces: their
    calls cost the same through a slot (A/B: 1.005 and 1.002) and their compile (5 s)
    stays out of the engine's."""
    if (mask >> 52) == 0:
        return natural_min_deadwood(mask, tab)
    return joker_min_deadwood(mask, tab)


# The same solver as a piece (kernels/link.py): compiled once, called through a slot by
# the showdown, the arrangements and the table commands.
min_deadwood_piece = Piece(min_deadwood_one, int64(int64, TAB))


# A discard candidate is packed into one integer so that the best is a plain minimum:
# least deadwood, then highest card value, then highest card index. Real keys stay
# below 1 << 31 (deadwood + KEY_OFFSET < 1 << 15); any key at or above NO_KEY, such as
# one built from an empty pattern's NO_REMOVAL, means "no card".
NO_KEY = np.int64(1) << 31


@njit(cache=True)
def _pack(d, value, card):
    return ((d + KEY_OFFSET) << 16) | ((255 - value) << 8) | (63 - card)


@njit(cache=True)
def _forbidden_bit(forbidden):
    """Mask of the forbidden card (0 for -1: nothing forbidden)."""
    return np.int64(1) << forbidden if forbidden >= 0 else np.int64(0)


@njit(cache=True)
def _removal_without(q, s, forbidden, tab):
    """Like ``_removal(q) - 13 * s`` for suit ``s``, but never removing ``forbidden``.

    Only the suit of a forbidden card needs this scan; the table holds the rest.
    """
    best = NO_KEY
    base = _run_deadwood(q, tab)
    rest = q
    while rest:
        r = lowest_bit(rest)
        rest &= rest - 1
        card = 13 * s + r
        if card != forbidden:
            delta = _run_deadwood(q ^ (1 << r), tab) - base
            best = min(best, _pack(delta, np.int64(tab[CARD_VALUE + card]), card))
    return best


@njit(cache=True, inline="always")
def _leaf_key(m, fbit, forbidden, tab):
    """Run deadwood of the natural cards ``m`` (no sets), and the best packed discard
    among them: removing a card changes only its own suit's run deadwood, so the key is
    the best of four per-suit table reads shifted by the total."""
    q0, q1, q2, q3 = suit_patterns(m)
    total = (
        _fact(q0, FACT_DEADWOOD, tab)
        + _fact(q1, FACT_DEADWOOD, tab)
        + _fact(q2, FACT_DEADWOOD, tab)
        + _fact(q3, FACT_DEADWOOD, tab)
    )
    removal = min(
        min(_removal(q0, tab), _removal(q1, tab) - 13),
        min(_removal(q2, tab) - 26, _removal(q3, tab) - 39),
    )
    if m & fbit and 63 - (removal & 0xFF) == forbidden:
        # The best card is the forbidden one: find the best of the others (any other
        # best is already the best allowed one).
        removal = _removal_forbidden(q0, q1, q2, q3, forbidden, tab)
    return total, removal + (total << 16)


@njit(cache=True)
def _removal_forbidden(q0, q1, q2, q3, forbidden, tab):
    """Best relative removal key of four patterns when ``forbidden`` lies in one."""
    s = forbidden // 13
    a = _removal_without(q0, 0, forbidden, tab) if s == 0 else _removal(q0, tab)
    b = _removal_without(q1, 1, forbidden, tab) if s == 1 else _removal(q1, tab) - 13
    c = _removal_without(q2, 2, forbidden, tab) if s == 2 else _removal(q2, tab) - 26
    d = _removal_without(q3, 3, forbidden, tab) if s == 3 else _removal(q3, tab) - 39
    return min(min(a, b), min(c, d))


@njit(cache=True)
def _top_card_key(d, cards, fbit, tab):
    """Key of discarding the highest card of ``cards`` (one rank; not all forbidden)."""
    card = 63 - leading_zeros(cards & ~fbit)
    return _pack(d, np.int64(tab[CARD_VALUE + card]), card)


@njit(cache=True)
def _easy_set_deadwood(rank_cards, rank, total, tab):
    """Deadwood left by taking one card out of an easy set (``_easy_set_key``) in a
    hand of deadwood ``total``: a set of 4 leaves a set of 3; a set of 3 leaves two
    deadwood cards of the rank."""
    if popcount(rank_cards) == 4:
        return total
    return total + 2 * np.int64(tab[CARD_VALUE + rank])


@njit(cache=True, inline="always")
def _set_ranks(mask, p0, p1, p2, p3, ranks, tab):
    """Split the set ``ranks`` (held in three or more suits) of a natural hand with
    suit patterns ``p0..p3``: ``contested`` ones, where some card could also sit in a
    run, and ``easy`` ones, always best as a set; and the hand without the easy sets.
    The discard kernels' counterpart of ``_strip_easy_sets`` (they read the run-capable
    ranks from the best-discard block, beside the other facts they read)."""
    wanted = (
        _fact(p0, FACT_CAPABLE, tab)
        | _fact(p1, FACT_CAPABLE, tab)
        | _fact(p2, FACT_CAPABLE, tab)
        | _fact(p3, FACT_CAPABLE, tab)
    )
    easy = ranks & ~wanted
    return ranks & wanted, easy, mask & ~(easy * RANK_ACROSS_SUITS)


@njit(cache=True)
def _easy_set_key(mask, easy, total, fbit, tab):
    """Best key among the cards of the ``easy`` set ranks (``total``: the hand's deadwood).

    No run can use such a card, nor any other card of its rank, so the set's cards
    have no other use: one out of a set of 4 leaves a set of 3 (deadwood ``total``);
    one out of a set of 3 leaves two deadwood cards (``total + 2 * value``). All cards
    of a rank tie on value, so the highest one not forbidden is the rank's candidate.
    """
    key = NO_KEY
    while easy:
        r = lowest_bit(easy)
        easy &= easy - 1
        cards = mask & (RANK_ACROSS_SUITS << r)
        key = min(key, _top_card_key(_easy_set_deadwood(cards, r, total, tab), cards, fbit, tab))
    return key


@njit(cache=True, inline="always")
def _leaf_totals(totals, whole, n):
    """The least of the leaves' run deadwood ``totals``, and for each of the four
    ranks the least over the leaves that take its whole set."""
    best = f0 = f1 = f2 = f3 = np.int64(BIG)
    for i in range(n):
        t = totals[i]
        best = min(best, t)
        w = whole[i]
        f0 = min(f0, t) if w & 1 else f0
        f1 = min(f1, t) if w & 2 else f1
        f2 = min(f2, t) if w & 4 else f2
        f3 = min(f3, t) if w & 8 else f3
    return best, (f0, f1, f2, f3)


@njit(cache=True)
def _contested_key(mask, contested, fbit, forbidden, tab):
    """Least deadwood of the natural cards ``mask`` (easy sets already removed) and the
    best discard key among them, choosing sets at the ``contested`` ranks.

    Every leaf (one set choice per rank) is an arrangement of the hand; taking a
    run-side card out of it leaves an arrangement of the smaller hand, and so does
    taking one card out of a set of 4 (a set of 3 stays). Each key is thus achievable,
    and each is reached at its optimum:
    - a card of no contested rank is run-side in every leaf, and the hand without it
      needs no set choice the hand does not try (removing a card makes no rank newly
      wanted by a run);
    - a card of a 3-card contested rank leaves two: no set there, the "none" leaf;
    - a card of a 4-card contested rank leaves three, as a set (the set-of-4 leaves
      less that card) or run-side (the "none" leaf, tried here for every contested
      rank, ``every_none``, even where the solver alone would prune it).
    """
    leaves = stack_empty(MAX_LEAVES, 0)
    whole = stack_empty(MAX_LEAVES, 0)
    totals = stack_empty(MAX_LEAVES, 0)
    n, ranks, fours = _set_leaves(mask, contested, tab, True, leaves, whole)
    best_key = NO_KEY
    for i in range(n):
        totals[i], key = _leaf_key(leaves[i], fbit, forbidden, tab)
        best_key = min(best_key, key)
    best_total, four = _leaf_totals(totals, whole, n)
    for k in range(4):
        if (fours >> k) & 1:
            cards = mask & (RANK_ACROSS_SUITS << ((ranks >> (4 * k)) & 15))
            best_key = min(best_key, _top_card_key(four[k], cards, fbit, tab))
    return best_total, best_key


@njit(cache=True)
def _best_discard_by_search(mask, forbidden, tab):
    """Best discard by solving the hand once per candidate card (used with jokers)."""
    lefts = stack_empty(DECK_CAPACITY, 0)
    discard_deadwoods_by_search(mask, tab, lefts)
    key = NO_KEY
    rest = mask
    while rest:
        card = lowest_bit(rest)
        rest &= rest - 1
        if card != forbidden:
            key = min(key, _pack(lefts[card], np.int64(tab[CARD_VALUE + card]), card))
    return key


@njit(cache=True, inline="always")
def _discard_key(mask, forbidden, tab):
    """Packed key of the best discard (see ``best_discard_one``); NO_KEY if none."""
    if (mask >> 52) != 0:
        return _best_discard_by_search(mask, forbidden, tab)
    fbit = _forbidden_bit(forbidden)
    p0, p1, p2, p3 = suit_patterns(mask)
    ranks = at_least_three(p0, p1, p2, p3)
    if ranks == 0:
        # No set possible: every card is run-side.
        return _leaf_key(mask, fbit, forbidden, tab)[1]
    contested, easy, natural = _set_ranks(mask, p0, p1, p2, p3, ranks, tab)
    if contested == 0:
        total, key = _leaf_key(natural, fbit, forbidden, tab)
    else:
        total, key = _contested_key(natural, contested, fbit, forbidden, tab)
    if easy:
        key = min(key, _easy_set_key(mask, easy, total, fbit, tab))
    return key


@njit(cache=True)
def _unpack(key):
    if key >= NO_KEY:
        return np.int64(-1), np.int64(BIG)
    return 63 - (key & 0xFF), (key >> 16) - KEY_OFFSET


@piece(UniTuple(int64, 2)(int64, int64, TAB))
def best_discard_by_search(mask, forbidden, tab):
    """``best_discard_one`` by solving the hand once per card: the same answer (the
    definition the fast kernel is tested against), a fraction of its compile. For a
    few hands (``sim.best_discard`` of a small batch, ``rummy deadwood``), where the
    fast kernel's compile would cost more than it ever saves."""
    return _unpack(_best_discard_by_search(mask, forbidden, tab))


@njit(cache=True)
def discard_order_key(deadwood, value, card):
    """The best-discard order as one integer, smallest first: least deadwood left,
    then highest value, then highest index (``key >> 16`` is the deadwood and
    ``63 - (key & 0xFF)`` the card)."""
    return (deadwood << 16) | ((255 - value) << 8) | (63 - card)


@piece(UniTuple(int64, 2)(int64, int64, TAB))
def best_discard_one(mask, forbidden, tab):
    """Card whose removal leaves the least deadwood, and that deadwood.

    Ties go to the card of highest deadwood value, then the highest index (the card a
    player most wants out of its hand). ``forbidden`` is a card index that may not be
    discarded (the card just taken from the pile), or -1.
    Returns ``(card, deadwood)``; ``(-1, BIG)`` when no card may be discarded.

    Without jokers no hand is solved twice: every candidate is read off the per-suit
    best-removal table for each set choice (``_contested_key``), and the cards of sets
    no run could use have a closed form (``_easy_set_key``).
    """
    return _unpack(_discard_key(mask, forbidden, tab))


# --- every least-deadwood discard at once ---------------------------------------------


@njit(cache=True, inline="always")
def _merge(least, cards, d, more):
    """Fold candidate ``(d, more)`` (a deadwood and the cards whose removal leaves it)
    into the running ``(least, cards)``."""
    if d < least:
        return d, more
    if d == least:
        return least, cards | more
    return least, cards


@njit(cache=True, inline="always")
def _suit_removals(q, s, least, cards, total, tab):
    """Fold in suit ``s``'s run-side removals from pattern ``q``, in a leaf of run
    deadwood ``total``: its best removal changes the total by the key's delta, and the
    table lists every card that ties for it."""
    if q == 0:
        return least, cards
    d = total + (_removal(q, tab) >> 16) - KEY_OFFSET
    return _merge(least, cards, d, np.int64(tab[BEST_REMOVALS + q]) << (13 * s))


@njit(cache=True)
def _leaf_removals(m, least, cards, tab):
    """``_leaf_key`` for every card: the run deadwood of the natural cards ``m`` (no
    sets) and the running least removal with every card that leaves it."""
    q0, q1, q2, q3 = suit_patterns(m)
    total = (
        _fact(q0, FACT_DEADWOOD, tab)
        + _fact(q1, FACT_DEADWOOD, tab)
        + _fact(q2, FACT_DEADWOOD, tab)
        + _fact(q3, FACT_DEADWOOD, tab)
    )
    least, cards = _suit_removals(q0, 0, least, cards, total, tab)
    least, cards = _suit_removals(q1, 1, least, cards, total, tab)
    least, cards = _suit_removals(q2, 2, least, cards, total, tab)
    least, cards = _suit_removals(q3, 3, least, cards, total, tab)
    return total, least, cards


@njit(cache=True)
def _contested_removals(mask, contested, tab):
    """``_contested_key`` for every card: the least deadwood of the natural cards
    ``mask`` choosing sets at the ``contested`` ranks, the least deadwood one removal
    leaves and every card whose removal leaves it. The same leaves and the same
    candidates as ``_contested_key`` (see there why each card's best is among them)."""
    leaves = stack_empty(MAX_LEAVES, 0)
    whole = stack_empty(MAX_LEAVES, 0)
    totals = stack_empty(MAX_LEAVES, 0)
    n, ranks, fours = _set_leaves(mask, contested, tab, True, leaves, whole)
    least = np.int64(BIG)
    cards = np.int64(0)
    for i in range(n):
        totals[i], least, cards = _leaf_removals(leaves[i], least, cards, tab)
    best_total, four = _leaf_totals(totals, whole, n)
    # One card out of a set of 4 leaves a set of 3: any of the four.
    for k in range(4):
        if (fours >> k) & 1:
            rank_cards = mask & (RANK_ACROSS_SUITS << ((ranks >> (4 * k)) & 15))
            least, cards = _merge(least, cards, four[k], rank_cards)
    return best_total, least, cards


@njit(cache=True)
def _least_removals_by_search(mask, tab):
    """``least_removals`` by solving the hand once per card (used with jokers)."""
    lefts = stack_empty(DECK_CAPACITY, 0)
    discard_deadwoods_by_search(mask, tab, lefts)
    least = np.int64(BIG)
    cards = np.int64(0)
    rest = mask
    while rest:
        bit = rest & -rest
        rest ^= bit
        least, cards = _merge(least, cards, lefts[lowest_bit(bit)], bit)
    return least, cards


@piece(UniTuple(int64, 2)(int64, TAB))
def least_removals(mask, tab):
    """The least deadwood that discarding one card leaves, and the mask of every card
    whose discard leaves it: ``d(c) = min_deadwood_one(mask - c)`` minimised over the
    hand, with all the cards that tie (``(BIG, 0)`` for an empty hand).

    Without jokers, one pass over the same set choices as ``best_discard_one``: each
    suit's best removal and the cards tied for it come from two table reads.
    """
    if (mask >> 52) != 0:
        return _least_removals_by_search(mask, tab)
    p0, p1, p2, p3 = suit_patterns(mask)
    ranks = at_least_three(p0, p1, p2, p3)
    if ranks == 0:
        _, least, cards = _leaf_removals(mask, np.int64(BIG), np.int64(0), tab)
        return least, cards
    contested, easy, natural = _set_ranks(mask, p0, p1, p2, p3, ranks, tab)
    if contested == 0:
        total, least, cards = _leaf_removals(natural, np.int64(BIG), np.int64(0), tab)
    else:
        total, least, cards = _contested_removals(natural, contested, tab)
    while easy:  # every card of a set no run could use (``_easy_set_key``)
        r = lowest_bit(easy)
        easy &= easy - 1
        rank_cards = mask & (RANK_ACROSS_SUITS << r)
        d = _easy_set_deadwood(rank_cards, r, total, tab)
        least, cards = _merge(least, cards, d, rank_cards)
    return least, cards


# --- the deadwood each discard leaves ------------------------------------------------


@njit(cache=True, inline="always")
def _suit_deadwoods(q, s, others, out, tab):
    """Fold into ``out`` the deadwood each card of suit ``s`` (pattern ``q``) leaves
    when removed from a leaf whose other suits' run deadwood is ``others``."""
    rest = q
    while rest:
        r = lowest_bit(rest)
        rest &= rest - 1
        card = 13 * s + r
        out[card] = min(out[card], others + _run_deadwood(q ^ (1 << r), tab))


@njit(cache=True)
def _leaf_deadwoods(m, out, tab):
    """Fold into ``out`` the deadwood each card of the natural cards ``m`` (no sets)
    leaves when removed: only its own suit's run deadwood changes. Returns the run
    deadwood of ``m``."""
    q0, q1, q2, q3 = suit_patterns(m)
    d0, d1 = _run_deadwood(q0, tab), _run_deadwood(q1, tab)
    d2, d3 = _run_deadwood(q2, tab), _run_deadwood(q3, tab)
    total = d0 + d1 + d2 + d3
    _suit_deadwoods(q0, 0, total - d0, out, tab)
    _suit_deadwoods(q1, 1, total - d1, out, tab)
    _suit_deadwoods(q2, 2, total - d2, out, tab)
    _suit_deadwoods(q3, 3, total - d3, out, tab)
    return total


@njit(cache=True, inline="always")
def _least_of(mask, out):
    """The least of ``out`` over the cards of ``mask`` (``BIG`` for none)."""
    least = np.int64(BIG)
    rest = mask
    while rest:
        least = min(least, out[lowest_bit(rest)])
        rest &= rest - 1
    return least


@njit(cache=True, inline="always")
def discard_deadwoods_by_search(mask, tab, out):
    """``discard_deadwoods`` by solving the hand once per card: for hands with jokers,
    and for callers that ask so rarely (``simple``'s fallback) that compiling the
    one-pass piece into their engine would cost more than it saves."""
    rest = mask
    while rest:
        bit = rest & -rest
        rest ^= bit
        out[lowest_bit(bit)] = min_deadwood_one(mask ^ bit, tab)
    return _least_of(mask, out)


@njit(cache=True, inline="always")
def _clear(mask, out):
    """``BIG`` in ``out`` for every card of ``mask``: the start of each card's least,
    before the set-choice leaves fold theirs in."""
    rest = mask
    while rest:
        out[lowest_bit(rest)] = BIG
        rest &= rest - 1


DEADWOODS = BorrowedArray(int64, 1, "C")  # one entry per card index (``DECK_CAPACITY``)


@piece(int64(int64, TAB, DEADWOODS))
def discard_deadwoods(mask, tab, out):
    """The least deadwood each discard leaves: ``out[c] = min_deadwood_one(mask - c)``
    for every card ``c`` of the hand (``out`` has 54 entries or more; the others are
    left as they are); returns the least of them (``BIG`` for an empty hand). The one
    home of "the deadwood left by each legal discard", which every strategy that
    weighs its discards reads: a piece, compiled once, off their engines' compile.

    Without jokers the hand is solved once, not once per card: each card's removal is
    read off the same set-choice leaves as ``least_removals`` (see
    ``_contested_key`` why every card's least is among them), the cards of sets no
    run could use by their closed form (``_easy_set_deadwood``).
    """
    if (mask >> 52) != 0:
        return discard_deadwoods_by_search(mask, tab, out)
    _clear(mask, out)
    p0, p1, p2, p3 = suit_patterns(mask)
    ranks = at_least_three(p0, p1, p2, p3)
    if ranks == 0:
        _leaf_deadwoods(mask, out, tab)
        return _least_of(mask, out)
    contested, easy, natural = _set_ranks(mask, p0, p1, p2, p3, ranks, tab)
    if contested == 0:
        total = _leaf_deadwoods(natural, out, tab)
    else:
        leaves = stack_empty(MAX_LEAVES, 0)
        whole = stack_empty(MAX_LEAVES, 0)
        totals = stack_empty(MAX_LEAVES, 0)
        n, set_ranks, fours = _set_leaves(natural, contested, tab, True, leaves, whole)
        for i in range(n):
            totals[i] = _leaf_deadwoods(leaves[i], out, tab)
        total, four = _leaf_totals(totals, whole, n)
        for k in range(4):
            if (fours >> k) & 1:  # one card out of the set of 4 leaves a set of 3
                cards = natural & (RANK_ACROSS_SUITS << ((set_ranks >> (4 * k)) & 15))
                while cards:
                    card = lowest_bit(cards)
                    cards &= cards - 1
                    out[card] = min(out[card], four[k])
    while easy:
        r = lowest_bit(easy)
        easy &= easy - 1
        cards = mask & (RANK_ACROSS_SUITS << r)
        left = _easy_set_deadwood(cards, r, total, tab)
        while cards:
            out[lowest_bit(cards)] = left
            cards &= cards - 1
    return _least_of(mask, out)


# --- two discards: the best second one after each first ----------------------------


@njit(cache=True, inline="always")
def _delta(q, tab):
    """How much the best single removal changes suit pattern ``q``'s run deadwood
    (``BIG`` for an empty pattern: no card to remove)."""
    return (_removal(q, tab) >> 16) - KEY_OFFSET if q else np.int64(BIG)


@njit(cache=True, inline="always")
def _suit_second_discards(q, s, others, elsewhere, out, tab):
    """``_leaf_second_discards`` for the cards of suit ``s`` (pattern ``q``), the other
    suits' run deadwood being ``others`` and the best second card outside this suit
    costing ``elsewhere``. What is left of the suit is read from one table entry: its
    run deadwood and its best removal."""
    rest = q
    while rest:
        r = lowest_bit(rest)
        rest &= rest - 1
        left = q ^ (1 << r)
        first = others + _fact(left, FACT_DEADWOOD, tab)
        card = 13 * s + r
        out[card] = min(out[card], first + min(elsewhere, _delta(left, tab)))


@njit(cache=True)
def _leaf_second_discards(m, spare, out, tab):
    """Fold into ``out`` what each run-side card of a leaf (natural cards ``m``, no
    sets) leaves after it and then the best second card go: the second from another
    suit (that suit's best removal), from the same suit (the best removal of what is
    left there), or from outside the runs at the cost ``spare``. Returns the leaf's run
    deadwood and the least single removal delta among its suits."""
    q0, q1, q2, q3 = suit_patterns(m)
    d0, d1 = _fact(q0, FACT_DEADWOOD, tab), _fact(q1, FACT_DEADWOOD, tab)
    d2, d3 = _fact(q2, FACT_DEADWOOD, tab), _fact(q3, FACT_DEADWOOD, tab)
    total = d0 + d1 + d2 + d3
    e0, e1, e2, e3 = _delta(q0, tab), _delta(q1, tab), _delta(q2, tab), _delta(q3, tab)
    low, high = min(e0, e1), min(e2, e3)  # the best removal in suits 0-1, in 2-3
    _suit_second_discards(q0, 0, total - d0, min(spare, min(e1, high)), out, tab)
    _suit_second_discards(q1, 1, total - d1, min(spare, min(e0, high)), out, tab)
    _suit_second_discards(q2, 2, total - d2, min(spare, min(low, e3)), out, tab)
    _suit_second_discards(q3, 3, total - d3, min(spare, min(low, e2)), out, tab)
    return total, min(low, high)


@piece(int64(int64, TAB, DEADWOODS))
def second_discard_deadwoods(mask, tab, out):
    """The least deadwood after two discards, for each first: ``out[c]`` = the least
    over cards ``e`` of ``min_deadwood_one(mask - c - e)`` for every card ``c`` of the
    hand, which is ``best_discard_one(mask - c, -1)``'s deadwood (``out`` as in
    ``discard_deadwoods``); returns the least of them. A lookahead asks it of the hand
    with a card it might draw: what keeping that card and throwing the best other one
    leaves, for each card it might throw now (``strategies/chart.py``).

    Without jokers, one pass over the set-choice leaves of the whole hand (every "none"
    tried, as in ``discard_deadwoods``), not a solve per card. The best arrangement of
    the hand less c and e is a leaf of this hand with c and e each taken from the
    leaf's runs or out of a set of 4 (a set of 3 stays), never both out of one set:
    - a set in the smaller hand is a set of this hand's rank less what was taken: the
      whole set (a leaf), or three of four where the fourth was one of c and e (the
      whole set less that card) or is kept for a run (a leaf, where a run could use it;
      else the whole set is no worse);
    - a rank left with two cards or fewer has no set: the "none" leaf, c and e taken
      from its runs;
    - the cards of sets no run could use (``_set_ranks``' easy sets) stay out of every
      leaf: one out of a set of 4 leaves a set of 3, one out of a set of 3 leaves two
      deadwood cards.
    """
    if (mask >> 52) != 0:
        rest = mask
        while rest:
            bit = rest & -rest
            rest ^= bit
            out[lowest_bit(bit)] = best_discard_one(mask ^ bit, np.int64(-1), tab)[1]
        return _least_of(mask, out)
    _clear(mask, out)
    p0, p1, p2, p3 = suit_patterns(mask)
    ranks = at_least_three(p0, p1, p2, p3)
    if ranks == 0:
        _leaf_second_discards(mask, np.int64(BIG), out, tab)
        return _least_of(mask, out)
    contested, easy, natural = _set_ranks(mask, p0, p1, p2, p3, ranks, tab)
    # The easy sets: how many of 4, and the two cheapest of 3 to break (two cards of
    # the rank left as deadwood), with the rank of the cheapest.
    easy_fours = np.int64(0)
    break1, break2, break1_rank = np.int64(BIG), np.int64(BIG), np.int64(-1)
    rest = easy
    while rest:
        r = lowest_bit(rest)
        rest &= rest - 1
        if popcount(mask & (RANK_ACROSS_SUITS << r)) == 4:
            easy_fours += 1
        else:
            cost = 2 * np.int64(tab[CARD_VALUE + r])
            if cost < break1:
                break1, break2, break1_rank = cost, break1, r
            else:
                break2 = min(break2, cost)
    leaves = stack_empty(MAX_LEAVES, 0)
    whole = stack_empty(MAX_LEAVES, 0)
    n = np.int64(1)
    set_ranks = fours = np.int64(0)
    if contested == 0:
        leaves[0] = natural
        whole[0] = 0
    else:
        n, set_ranks, fours = _set_leaves(natural, contested, tab, True, leaves, whole)
    for i in range(n):
        in_fours = popcount(whole[i] & fours)  # whole sets of 4 this leaf takes
        spare = np.int64(0) if in_fours + easy_fours > 0 else break1
        # The second card outside the runs once a card left one set of 4: another set
        # of 4, or an easy set of 3 broken.
        spare_after_four = np.int64(0) if in_fours + easy_fours > 1 else break1
        total, least = _leaf_second_discards(leaves[i], spare, out, tab)
        for k in range(4):  # a card out of one of this leaf's sets of 4
            if (whole[i] & fours) >> k & 1:
                left = total + min(least, spare_after_four)
                cards = natural & (RANK_ACROSS_SUITS << ((set_ranks >> (4 * k)) & 15))
                while cards:
                    card = lowest_bit(cards)
                    cards &= cards - 1
                    out[card] = min(out[card], left)
        # A card out of an easy set.
        rest = easy
        while rest:
            r = lowest_bit(rest)
            rest &= rest - 1
            cards = mask & (RANK_ACROSS_SUITS << r)
            value = np.int64(tab[CARD_VALUE + r])
            if popcount(cards) == 4:  # three stay a set; the second may break them
                left = total + min(least, min(spare_after_four, 2 * value))
            else:  # two deadwood cards stay; the second may be one of them
                other = np.int64(0) if in_fours + easy_fours > 0 else np.int64(BIG)
                other = min(other, break2 if r == break1_rank else break1)
                left = total + 2 * value + min(min(least, other), -value)
            while cards:
                card = lowest_bit(cards)
                cards &= cards - 1
                out[card] = min(out[card], left)
    return _least_of(mask, out)


# The solver's tested range (RULES.md hands of 1 to 13 cards; more cards could hold more
# set choices than ``MAX_LEAVES`` has room for).
MAX_CARDS = 13


@njit(cache=True, parallel=True, nogil=True)
def min_deadwood_batch(masks, tab, jokers, out):
    """``out[i] = least deadwood of masks[i]``; masks uint64[n], out int64[n].

    ``jokers``: whether hands may hold jokers (the rule set has them). Returns how many
    hands the solver does not take (a card past bit 53, a joker the rules do not have,
    more than ``MAX_CARDS`` cards); their ``out`` means nothing (-1 where a bad bit).
    The test is part of this one pass (three numpy passes cost 3 ns a hand): the card
    count is added up, not branched on, for natural hands, whose solve is safe (only
    wrong) with too many cards: 0.3 ns a hand, against 0.55 ns for a full test up
    front. ``nogil``: a joker hand may bind the joker solver's slot (kernels/link.py).

    The natural-card path is written into the loop body: measured 2-3x faster than a
    call to ``natural_min_deadwood`` per hand (numba does not inline it as well).
    """
    # Which of two equally exact paths is faster depends on the hand size (see
    # ``_strip_easy_sets``): a batch takes the size of its first hand, one test for
    # all (a test per hand measured 7% slower on 7-card hands).
    few = masks.shape[0] > 0 and popcount(np.int64(masks[0])) <= FEW_CARDS
    first_bad_bit = 54 if jokers else 52
    bad = 0
    for i in prange(masks.shape[0]):
        mask = np.int64(masks[i])
        too_many = popcount(mask) > MAX_CARDS
        bad += too_many
        if (mask >> 52) != 0:  # jokers, or bits past them
            if (mask >> first_bad_bit) != 0 or too_many:
                out[i] = -1
                bad += 1
            else:
                out[i] = joker_min_deadwood(mask, tab)
        elif few:  # the same code twice, each inlined with its own constant
            out[i] = _natural_min_inline(mask, True, tab)
        else:
            out[i] = _natural_min_inline(mask, False, tab)
    return bad


@njit(cache=True, parallel=True, nogil=True)
def best_discard_batch(masks, forbidden, tab, jokers, out_card, out_deadwood):
    """Best discard of every hand; ``forbidden`` int64[n], or int64[1] for every hand
    (-1 for none). Returns how many hands the solver does not take
    (``min_deadwood_batch``) or have a forbidden card outside -1..53; they get card -1
    and deadwood -1 (a discard's set choices overflow their room past 13 cards)."""
    one = forbidden.shape[0] == 1
    first_bad_bit = 54 if jokers else 52
    bad = 0
    for i in prange(masks.shape[0]):
        mask = np.int64(masks[i])
        f = forbidden[0] if one else forbidden[i]
        if (mask >> first_bad_bit) != 0 or popcount(mask) > MAX_CARDS or f < -1 or f > 53:
            out_card[i] = -1
            out_deadwood[i] = -1
            bad += 1
        else:
            c, d = _unpack(_discard_key(mask, f, tab))
            out_card[i] = c
            out_deadwood[i] = d
    return bad
