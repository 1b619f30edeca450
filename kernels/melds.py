"""Arrangements (which melds a hand lays down) and lay-offs, for the showdown.

Conventions
-----------
* Hands and melds are int64 masks (bit ``suit * 13 + rank``; jokers at 52 and 53).
* Canonical order (RULES.md "Showdown"): a meld is the ascending tuple of its card
  indices; an arrangement is the sorted list of its melds; arrangements compare
  lexicographically. ``hand_melds`` returns melds sorted in that order, and a
  pre-order depth-first walk that only appends later melds visits arrangements in
  exactly the canonical order (a list comes before its extensions).
* Lay-offs: a defender's card fits a knocker meld when the meld with the card added is
  still one meld (a run shape of the ace mode, or a set of 4 from a set of 3). The
  cards a defender can lay on one knocker meld are exactly ``W - meld`` for a run
  shape ``W`` containing the meld (a chain at either end), or the missing fourth card
  of a set of three. Choices on different melds combine freely: every card needs one
  host and each chain is anchored at its meld, so any union can be laid in order.

These run once per showdown, not per turn: they favour clarity over speed, but their
small fixed-size working arrays live on the stack (``kernels.borrow.stack_empty``):
a heap allocation per array cost about as much as the work done with it.
"""

import numpy as np
from numba import njit
from numba.core.types import UniTuple, boolean, int64

from kernels.bits import at_least_three, lowest_bit, popcount, suit_patterns
from kernels.borrow import BorrowedArray, borrow, borrow_row, stack_empty
from kernels.deadwood import min_deadwood_piece, natural_min_deadwood
from kernels.layout import ACE_AROUND, ACE_LOW, NATURAL_BITS
from kernels.link import piece
from kernels.tables import (
    ACE_SLOT,
    CARD_VALUE,
    N_WINDOWS_SLOT,
    RUN_CAPABLE,
    RUN_SHAPE,
    TAB,
    WINDOWS,
)

MAX_MELDS = 2048  # melds inside one hand of up to 13 cards, jokers included
MAX_NATURAL_MELDS = 256  # without jokers: 66 runs in a 13-card suit, 5 per 4-card rank
FEW_ARRANGEMENTS = 64  # first try for the knocker's equal-deadwood arrangements
MAX_ARRANGEMENTS = 4096  # minimum-deadwood arrangements kept for one hand
MAX_MELDS_PER_ARRANGEMENT = 8  # 13 cards make at most 4 melds; room to spare
DEPTHS = MAX_MELDS_PER_ARRANGEMENT + 1  # levels of the arrangement walk
ROW = 1 + MAX_MELDS_PER_ARRANGEMENT  # an arrangement row: count, then meld indices
MAX_PLAYERS = 6  # seats at one showdown (RULES.md players): defenders are fewer
MAX_LAYOFF_OPTIONS = 64  # lay-off choices on one knocker meld (the empty one included)
RANK_ACROSS_SUITS = 1 | (1 << 13) | (1 << 26) | (1 << 39)
# Card bits where six neighbouring ranks of one suit can start (ranks 0..7 of each):
# masks a shifted run test so that no block spans two suits.
SIX_FIT = 0xFF | (0xFF << 13) | (0xFF << 26) | (0xFF << 39)
JOKER_A = np.int64(1) << 52
JOKER_B = np.int64(1) << 53
MASKS = BorrowedArray(int64, 1, "C")  # melds, hands or deadwoods, where a piece takes them
PAIR = UniTuple(int64, 2)


@njit(cache=True)
def mask_value(mask, tab):
    """Total deadwood value of the cards of a mask."""
    total = np.int64(0)
    rest = mask
    while rest:
        card = lowest_bit(rest)
        rest &= rest - 1
        total += tab[CARD_VALUE + card]
    return total


@njit(cache=True, inline="always")
def meld_less(a, b):
    """True when meld ``a`` comes before ``b`` as ascending tuples of card indices.

    Both tuples agree up to their lowest differing card ``t``, held by one of them: the
    other comes next with a card above ``t`` (so it is the larger), or ends there (so
    it is a proper prefix, the smaller).
    """
    if a == b:
        return False
    t = lowest_bit(a ^ b)
    above = -(np.int64(2) << t)  # the bits above t
    if (a >> t) & 1:
        return (b & above) != 0
    return (a & above) == 0


@njit(cache=True)
def _add_with_jokers(natural_part, missing, jokers_held, out, n):
    """Append ``natural_part`` completed by ``missing`` jokers, for each joker choice."""
    if missing == 0:
        out[n] = natural_part
        return n + 1
    if missing == 1:
        if jokers_held & JOKER_A:
            out[n] = natural_part | JOKER_A
            n += 1
        if jokers_held & JOKER_B:
            out[n] = natural_part | JOKER_B
            n += 1
        return n
    if missing == 2 and jokers_held == (JOKER_A | JOKER_B):
        out[n] = natural_part | JOKER_A | JOKER_B
        return n + 1
    return n


@njit(cache=True)
def hand_melds(mask, tab, out):
    """Write every meld contained in the hand to ``out`` in canonical order.

    A meld's natural cards are any non-empty subset of a run shape or of one rank;
    jokers fill the rest (a joker may stand for a card held elsewhere). Returns the
    number of melds written.
    """
    natural = mask & NATURAL_BITS
    jokers_held = mask & ~NATURAL_BITS
    n_jokers = popcount(jokers_held)
    n = 0
    for s in range(4):
        p = (natural >> (13 * s)) & 0x1FFF
        if n_jokers == 0 and tab[RUN_CAPABLE + p] == 0:
            continue  # no 3-card run in this suit, so no run at all
        for wi in range(tab[N_WINDOWS_SLOT]):
            w = np.int64(tab[WINDOWS + wi])
            held = p & w
            if n_jokers == 0:
                # Without jokers only the whole shape is a meld (the showdown's
                # common case: no subset walk). The shapes come in ascending order,
                # and one above the pattern cannot lie inside it.
                if w > p:
                    break
                if held == w:
                    out[n] = w << (13 * s)
                    n += 1
                continue
            need = popcount(w) - n_jokers  # fewest natural cards this shape can use
            if held == 0 or popcount(held) < need:
                continue
            sub = held
            while sub:  # every non-empty subset the jokers can complete
                missing = popcount(w) - popcount(sub)
                if missing <= n_jokers:
                    n = _add_with_jokers(np.int64(sub) << (13 * s), missing, jokers_held, out, n)
                sub = (sub - 1) & held
    for r in range(13):
        cards = natural & (RANK_ACROSS_SUITS << r)
        if popcount(cards) + n_jokers < 3:
            continue  # no set of this rank
        if n_jokers == 0:
            # The set itself, and for four cards each set of three.
            out[n] = cards
            n += 1
            if popcount(cards) == 4:
                rest = cards
                while rest:
                    bit = rest & -rest
                    rest ^= bit
                    out[n] = cards ^ bit
                    n += 1
            continue
        sub = cards
        while sub:
            size = popcount(sub)
            for total in (3, 4):
                if size <= total <= size + n_jokers:
                    n = _add_with_jokers(sub, total - size, jokers_held, out, n)
            sub = (sub - 1) & cards
    # Insertion sort into canonical order (a few dozen melds in a real hand).
    for i in range(1, n):
        m = out[i]
        j = i - 1
        while j >= 0 and meld_less(m, out[j]):
            out[j + 1] = out[j]
            j -= 1
        out[j + 1] = m
    # A meld reachable two ways (5C JK JK is a set and several runs) is listed once.
    kept = 0
    for i in range(n):
        if kept == 0 or out[i] != out[kept - 1]:
            out[kept] = out[i]
            kept += 1
    return kept


@njit(cache=True)
def arrangements_at(mask, target, tab, melds, n_melds, out):
    """Every arrangement of deadwood ``target``, in canonical order.

    ``melds[:n_melds]`` come from ``hand_melds``. Row k of ``out`` (int64[A, 1 + M])
    holds the count of melds then their indices into ``melds``. Returns the number of
    rows written (at most ``out.shape[0]``).
    """
    value = mask_value(mask, tab)
    if n_melds <= MAX_NATURAL_MELDS:
        meld_value = stack_empty(MAX_NATURAL_MELDS, 0)
    else:
        meld_value = np.empty(n_melds, np.int64)
    for i in range(n_melds):
        meld_value[i] = mask_value(melds[i], tab)
    stack = stack_empty(DEPTHS, 0)
    used = stack_empty(DEPTHS, 0)  # cards used at each depth
    melded = stack_empty(DEPTHS, 0)  # value melded so far
    for k in range(DEPTHS):
        used[k] = 0
        melded[k] = 0
    n_out = 0
    depth = 0
    # Visit the empty arrangement, then walk: at each depth try later melds in order.
    if value == target:
        out[n_out, 0] = 0
        n_out += 1
    stack[0] = -1
    while depth >= 0 and n_out < out.shape[0]:
        i = stack[depth] + 1
        while i < n_melds and (melds[i] & used[depth]) != 0:
            i += 1
        if i >= n_melds or depth >= MAX_MELDS_PER_ARRANGEMENT:
            depth -= 1
            continue
        stack[depth] = i
        used[depth + 1] = used[depth] | melds[i]
        melded[depth + 1] = melded[depth] + meld_value[i]
        if value - melded[depth + 1] == target:
            out[n_out, 0] = depth + 1
            for k in range(depth + 1):
                out[n_out, 1 + k] = stack[k]
            n_out += 1
        # A deeper level can only lower the deadwood further.
        if value - melded[depth + 1] > target:
            depth += 1
            stack[depth] = i
    return n_out


@njit(cache=True)
def sole_arrangement(mask, tab, out_melds):
    """The least-deadwood arrangement of a hand when it is the only one, found without
    listing melds; -1 when the shortcut does not apply (then list them).

    Applies to natural hands under ``ace = low`` where no rank held in three suits has
    a card a 3-card run could use. Then a card of such a rank can only be in its
    rank's set, which holds every card of the rank (a set of three out of four would
    leave the fourth as deadwood), and every other card only in a run, so the runs
    cover exactly the maximal blocks of three or more neighbouring ranks of a suit
    (leaving a card of a block out would add its value). A block is one run unless it
    has six or more cards, which could also be split: then -1. Writes the melds in
    canonical order (disjoint melds: by their lowest card) and returns their number.
    """
    if (mask & ~NATURAL_BITS) != 0 or tab[ACE_SLOT] != ACE_LOW:
        return -1
    p0, p1, p2, p3 = suit_patterns(mask)
    c0 = np.int64(tab[RUN_CAPABLE + p0])
    c1 = np.int64(tab[RUN_CAPABLE + p1])
    c2 = np.int64(tab[RUN_CAPABLE + p2])
    c3 = np.int64(tab[RUN_CAPABLE + p3])
    sets = at_least_three(p0, p1, p2, p3)
    if sets & (c0 | c1 | c2 | c3):
        return -1
    runs = c0 | (c1 << 13) | (c2 << 26) | (c3 << 39)
    if runs & (runs >> 1) & (runs >> 2) & (runs >> 3) & (runs >> 4) & (runs >> 5) & SIX_FIT:
        return -1  # a block of six or more
    n = 0
    rest = runs | ((sets * RANK_ACROSS_SUITS) & mask)
    while rest:
        low = lowest_bit(rest)
        rank = low % 13
        if (sets >> rank) & 1:
            meld = rest & (RANK_ACROSS_SUITS << rank)
        else:
            above = (runs >> low) & (0x1FFF >> rank)  # the block from here, in its suit
            meld = ((above ^ (above + 1)) >> 1) << low
        out_melds[n] = meld
        n += 1
        rest &= ~meld
    return n


@piece(PAIR(int64, TAB, MASKS))
def canonical_arrangement(mask, tab, out_melds):
    """The canonical first least-deadwood arrangement of a hand.

    Writes its melds to ``out_melds`` and returns ``(n_melds, deadwood)``.
    """
    n_sole = sole_arrangement(mask, tab, borrow(out_melds))  # one type: one compile
    if n_sole >= 0:
        melded = np.int64(0)
        for k in range(n_sole):
            melded |= out_melds[k]
        return n_sole, mask_value(mask & ~melded, tab)
    target = min_deadwood_piece(mask, tab)
    if (mask & ~NATURAL_BITS) == 0:
        melds = stack_empty(MAX_NATURAL_MELDS, 0)
    else:
        melds = np.empty(MAX_MELDS, np.int64)
    n = hand_melds(mask, tab, melds)
    rows = stack_empty(1, ROW)
    arrangements_at(mask, target, tab, melds, n, rows)
    for k in range(rows[0, 0]):
        out_melds[k] = melds[rows[0, 1 + k]]
    return rows[0, 0], target


# --- lay-offs ----------------------------------------------------------------------


@njit(cache=True, inline="always")
def _run_neighbours(pattern, tab):
    """The ranks next to a suit pattern's cards: the King and the Ace too where the
    ace mode lets a run hold both."""
    near = (pattern << 1) | (pattern >> 1)
    if tab[ACE_SLOT] != ACE_LOW:
        near |= (pattern >> 12) | (pattern << 12)
    return near & 0x1FFF


@njit(cache=True)
def _layoff_options(meld, defender, tab, out):
    """Every set of defender cards that can be laid on one knocker meld (the empty
    set included). Returns how many were written to ``out``."""
    out[0] = 0
    n = 1
    if meld & ~NATURAL_BITS:
        return n  # lay-offs are not defined with jokers (rejected by the rules)
    low = lowest_bit(meld)
    rank = low % 13
    same_rank = RANK_ACROSS_SUITS << rank
    if popcount(meld) == 3 and (meld & ~same_rank) == 0:
        fourth = same_rank & ~meld & defender
        if fourth:
            out[n] = fourth
            n += 1
        return n
    if (meld & ~same_rank) == 0:
        return n  # a set of four takes nothing
    # A run takes exactly the cards ``W - meld`` of the run shapes ``W`` around it
    # whose new cards the defender holds. Each such ``W`` grows from the meld one end
    # card at a time through run shapes, so adding one held card at a time finds them
    # all, reading the run-shape table for only the defender's few cards of the suit.
    s = low // 13
    w = (meld >> (13 * s)) & 0x1FFF
    d = (defender >> (13 * s)) & 0x1FFF & ~w
    if _run_neighbours(w, tab) & d == 0:
        return n  # the first card of any chain lies next to the run
    shapes = stack_empty(MAX_LAYOFF_OPTIONS, 0)
    shapes[0] = w
    head = 0
    while head < n:
        grown = shapes[head]
        head += 1
        rest = d & ~grown
        while rest:
            bit = rest & -rest
            rest ^= bit
            shape = grown | bit
            if tab[RUN_SHAPE + shape] == 0:
                continue
            seen = False
            for k in range(1, n):
                seen = seen or shapes[k] == shape
            if not seen:
                shapes[n] = shape
                out[n] = np.int64(shape & ~w) << (13 * s)
                n += 1
    return n


@njit(cache=True)
def _arrangement_less(a, n_a, b, n_b):
    """True when the meld list ``a[:n_a]`` comes before ``b[:n_b]`` (canonical order)."""
    for k in range(min(n_a, n_b)):
        if a[k] != b[k]:
            return meld_less(a[k], b[k])
    return n_a < n_b


@piece(PAIR(MASKS, int64, int64, int64, TAB))
def layoff_optimal(knocker_melds, n_knocker_melds, defender, own, tab):
    """Least deadwood of a defender choosing its melds and lay-offs jointly.

    ``own`` is the defender's least deadwood laying nothing off (the caller has it).
    Returns ``(deadwood, laid_mask)``. Among equal deadwood: the defender's remaining
    cards with the canonical-first arrangement, then the laid cards first as an
    ascending tuple (RULES.md canonical order), so the choice is well defined.
    """
    options = stack_empty(MAX_MELDS_PER_ARRANGEMENT, MAX_LAYOFF_OPTIONS)
    counts = stack_empty(MAX_MELDS_PER_ARRANGEMENT, 0)
    choice = stack_empty(MAX_MELDS_PER_ARRANGEMENT, 0)
    for k in range(n_knocker_melds):
        counts[k] = _layoff_options(knocker_melds[k], defender, tab, borrow_row(options, k))
        choice[k] = 0
    best = own
    best_laid = np.int64(0)
    best_melds = stack_empty(MAX_MELDS_PER_ARRANGEMENT, 0)
    best_n = -1  # the best's canonical arrangement, computed when first needed
    melds = stack_empty(MAX_MELDS_PER_ARRANGEMENT, 0)
    while True:
        laid = np.int64(0)
        for k in range(n_knocker_melds):
            laid |= options[k, choice[k]]
        if laid:
            d = natural_min_deadwood(defender & ~laid, tab)
            if d < best:
                best, best_laid, best_n = d, laid, -1
            elif d == best:
                if best_n < 0:
                    best_n, _ = canonical_arrangement(defender & ~best_laid, tab, best_melds)
                n, _ = canonical_arrangement(defender & ~laid, tab, melds)
                same = n == best_n
                if same:
                    for k in range(n):
                        same = same and melds[k] == best_melds[k]
                better = _arrangement_less(melds, n, best_melds, best_n)
                if better or (same and meld_less(laid, best_laid)):
                    best_laid = laid
                    best_n = n
                    for k in range(n):  # a loop: slice assignment compiles for seconds
                        best_melds[k] = melds[k]
        # Next combination (mixed-radix counter over the melds' options).
        k = 0
        while k < n_knocker_melds:
            choice[k] += 1
            if choice[k] < counts[k]:
                break
            choice[k] = 0
            k += 1
        if k == n_knocker_melds:
            break
    return best, best_laid


@njit(cache=True)
def layoff_fits(card, meld, tab):
    """True when ``card`` can be laid on ``meld`` (a run end or a set's fourth card)."""
    if meld & ~NATURAL_BITS or card >= 52 or (meld >> card) & 1:
        return False
    grown = meld | (np.int64(1) << card)
    rank = card % 13
    same_rank = RANK_ACROSS_SUITS << rank
    if (meld & ~same_rank) == 0:
        return popcount(meld) == 3
    s = card // 13
    if (meld >> (13 * s)) & 0x1FFF == 0:
        return False
    return tab[RUN_SHAPE + ((grown >> (13 * s)) & 0x1FFF)] == 1


@piece(PAIR(MASKS, int64, int64, TAB), lazy=True)  # only greedy lay-off rules use it
def layoff_greedy(knocker_melds, n_knocker_melds, defender, tab):
    """The defender keeps its canonical arrangement, then lays off deadwood greedily.

    Scans its unmatched cards in ascending index, lays the first that fits onto the
    first knocker meld it fits (melds grow as cards are laid) and restarts from the
    lowest card until nothing fits. Returns ``(deadwood, laid_mask)``.
    """
    own = stack_empty(MAX_MELDS_PER_ARRANGEMENT, 0)
    n_own, _ = canonical_arrangement(defender, tab, own)
    unmatched = defender
    for k in range(n_own):
        unmatched &= ~own[k]
    grown = stack_empty(MAX_MELDS_PER_ARRANGEMENT, 0)
    for k in range(n_knocker_melds):
        grown[k] = knocker_melds[k]
    laid = np.int64(0)
    progress = True
    while progress:
        progress = False
        rest = unmatched & ~laid
        while rest and not progress:
            card = lowest_bit(rest)
            rest &= rest - 1
            for k in range(n_knocker_melds):
                if layoff_fits(card, grown[k], tab):
                    grown[k] |= np.int64(1) << card
                    laid |= np.int64(1) << card
                    progress = True
                    break
    return mask_value(unmatched & ~laid, tab), laid


@njit(cache=True)
def may_lay_off(knocker_melds, n_knocker_melds, defender, tab):
    """True when some card of ``defender`` fits some knocker meld on its own
    (``layoff_fits``): the first step of every lay-off. When none does, nothing can be
    laid off, in any order, and the arrangements need not be built. Only the cards
    that could fit are tried: a set of three's fourth card, a run's neighbours."""
    for k in range(n_knocker_melds):
        meld = knocker_melds[k]
        if meld & ~NATURAL_BITS:
            continue  # lay-offs are not defined with jokers
        low = lowest_bit(meld)
        same_rank = RANK_ACROSS_SUITS << (low % 13)
        if (meld & ~same_rank) == 0:
            if popcount(meld) == 3 and defender & same_rank & ~meld:
                return True
            continue
        s = low // 13
        w = (meld >> (13 * s)) & 0x1FFF
        ends = _run_neighbours(w, tab) & ~w & (defender >> (13 * s))
        while ends:
            bit = ends & -ends
            ends ^= bit
            if tab[RUN_SHAPE + (w | bit)]:
                return True
    return False


@njit(cache=True)
def could_lay_off(knocker, defenders, tab):
    """False when no card of ``defenders`` (their hands' union) can be laid off on any
    meld of any arrangement of the natural hand ``knocker``; True when one may (then
    the arrangements decide). A run of the knocker lies within the cards a 3-card run
    could use (``RUN_CAPABLE``), and a card that goes on it, first of its chain, lies
    next to one of them; a set that takes a card is a rank the knocker holds three
    times, and the card is that rank's fourth. Exact under ``ace = low``; where the
    ace may follow the King, a 2 next to the ace of a Q-K-A run also answers True. A
    few table reads: the showdown asks it before building any arrangement."""
    if knocker & ~NATURAL_BITS:
        return True  # jokers: the arrangements decide
    reach = np.int64(0)
    for s in range(4):
        p = (knocker >> (13 * s)) & 0x1FFF
        reach |= (_run_neighbours(np.int64(tab[RUN_CAPABLE + p]), tab) & ~p) << (13 * s)
    p0, p1, p2, p3 = suit_patterns(knocker)
    three = at_least_three(p0, p1, p2, p3) & ~(p0 & p1 & p2 & p3)  # ranks held exactly 3 times
    reach |= (three * RANK_ACROSS_SUITS) & ~knocker
    return (reach & defenders) != 0


@njit(cache=True, inline="always")
def defender_after_layoffs(knocker_melds, n_knocker_melds, defender, own, greedy, tab):
    """``(deadwood, laid_mask)`` of a defender under the rule set's ``layoff_play``
    (``own``: its least deadwood laying nothing off, which is the answer at once when
    no card of the defender fits a knocker meld: ``may_lay_off``)."""
    if not may_lay_off(knocker_melds, n_knocker_melds, defender, tab):
        return own, np.int64(0)
    if greedy:
        return layoff_greedy(knocker_melds, n_knocker_melds, defender, tab)
    return layoff_optimal(knocker_melds, n_knocker_melds, defender, own, tab)


@piece(int64(int64, int64, MASKS, MASKS, int64, boolean, boolean, TAB, MASKS))
def knocker_arrangement(
    knocker, target, defenders, owns, n_defenders, layoffs, greedy, tab, out_melds
):
    """The knocker's arrangement as RULES.md chooses it (``target``: the knocker's
    least deadwood, ``owns``: each defender's laying nothing off; the showdown has them).

    Least deadwood; with lay-offs and deadwood above zero, then the least total
    reduction the defenders get from laying off; then the canonical first. Writes the
    melds to ``out_melds`` and returns their number.
    """
    mask = knocker
    n_sole = sole_arrangement(mask, tab, borrow(out_melds))  # one type: one compile
    if n_sole >= 0:
        return n_sole  # the only one: nothing to choose
    if (mask & ~NATURAL_BITS) == 0:
        melds = stack_empty(MAX_NATURAL_MELDS, 0)
    else:
        melds = np.empty(MAX_MELDS, np.int64)
    n = hand_melds(mask, tab, melds)
    rows = stack_empty(FEW_ARRANGEMENTS, ROW)
    if not layoffs or target == 0:
        rows = rows[:1]
    n_rows = arrangements_at(mask, target, tab, melds, n, rows)
    if n_rows == FEW_ARRANGEMENTS:  # maybe more: list them all
        rows = np.empty((MAX_ARRANGEMENTS, ROW), np.int64)
        n_rows = arrangements_at(mask, target, tab, melds, n, rows)
    best_row = 0
    if n_rows > 1:
        chosen = stack_empty(MAX_MELDS_PER_ARRANGEMENT, 0)
        best_relief = np.int64(1) << 40
        for row in range(n_rows):
            m = rows[row, 0]
            for k in range(m):
                chosen[k] = melds[rows[row, 1 + k]]
            relief = np.int64(0)
            for j in range(n_defenders):
                # borrowed, as the showdown passes its melds: one compile of each
                d, _ = defender_after_layoffs(borrow(chosen), m, defenders[j], owns[j], greedy, tab)
                relief += owns[j] - d
            if relief < best_relief:
                best_relief = relief
                best_row = row
    for k in range(rows[best_row, 0]):
        out_melds[k] = melds[rows[best_row, 1 + k]]
    return rows[best_row, 0]


@njit(cache=True, inline="always")
def melds_with(hand, card, tab):
    """True when ``card`` (not in ``hand``) is part of some meld of ``hand | card``.

    A meld holding the card always contains a 3-card meld holding it (a 3-card run
    window, or 3 cards of a rank) needing no more jokers, so 3-card shapes suffice.
    Without jokers (the common case, inlined): two more cards of its rank, or a
    3-card run window through it in its suit (one table read).
    """
    if card >= 52 or (hand >> 52) != 0:
        return _melds_with_jokers(hand, card, tab)
    rank = card % 13
    if popcount(hand & (RANK_ACROSS_SUITS << rank)) >= 2:
        return True
    p = ((hand >> (13 * (card // 13))) & 0x1FFF) | (1 << rank)
    return (tab[RUN_CAPABLE + p] >> rank) & 1 != 0


@njit(cache=True)
def _melds_with_jokers(hand, card, tab):
    """``melds_with`` where a joker is held or is the card: for a natural card, a
    3-card shape through it whose missing places the hand's jokers fill; for a joker,
    a shape with at least one natural card of the hand whose missing places the joker
    and the hand's jokers fill."""
    natural = hand & NATURAL_BITS
    jokers = popcount(hand >> 52)
    if card >= 52:
        need = max(1, 2 - jokers)  # natural cards a 3-card shape must hold
        for r in range(13):
            if popcount(natural & (RANK_ACROSS_SUITS << r)) >= need:
                return True
        for s in range(4):
            p = (natural >> (13 * s)) & 0x1FFF
            if p == 0:
                continue
            for i in range(tab[N_WINDOWS_SLOT]):
                w = np.int64(tab[WINDOWS + i])
                if popcount(w) == 3 and popcount(p & w) >= need:
                    return True
        return False
    rank = card % 13
    suit = card // 13
    if popcount(natural & (RANK_ACROSS_SUITS << rank)) + 1 + jokers >= 3:
        return True
    p = ((natural >> (13 * suit)) & 0x1FFF) | (1 << rank)
    for i in range(tab[N_WINDOWS_SLOT]):
        w = np.int64(tab[WINDOWS + i])
        if popcount(w) == 3 and (w >> rank) & 1 and popcount(w & ~p) <= jokers:
            return True
    return False


@njit(cache=True, inline="always")
def _run_completions(p, ace):
    """Ranks outside suit pattern ``p`` that make a 3-card run window with two of its
    ranks, for every window at once. Rank r sits at bit r + 1 of a 16-bit line, the ace
    again at bit 14 (after the King) where it may be high, and the King again at bit 0
    (before the ace) where runs go round the corner; a bit completes a window when both
    neighbours on one side, or one on each side, are held."""
    line = p << 1
    if ace != ACE_LOW:
        line |= (p & 1) << 14
    if ace == ACE_AROUND:
        line |= p >> 12
    ends = ((line << 1) & (line << 2)) | ((line << 1) & (line >> 1)) | ((line >> 1) & (line >> 2))
    ranks = (ends >> 1) & 0x1FFF
    if ace != ACE_LOW:
        ranks |= (ends >> 14) & 1  # Q K -> the ace
    if ace == ACE_AROUND:
        ranks |= (ends & 1) << 12  # A 2 -> the King
    return ranks & ~p


@njit(cache=True)
def meld_partners(hand, cards, tab):
    """The cards of ``cards`` (none of them in ``hand``) that ``melds_with`` ``hand``,
    as one mask. Without jokers in the hand, for every natural card at once: the ranks
    the hand holds in two suits or more (a set of three with the card), and each suit's
    run-window completions (``_run_completions``); a joker among ``cards``, and every
    card where the hand holds a joker, is asked one by one."""
    if (hand >> 52) != 0:
        found = np.int64(0)
        rest = cards
        while rest:
            card = lowest_bit(rest)
            rest &= rest - 1
            if _melds_with_jokers(hand, card, tab):
                found |= np.int64(1) << card
        return found
    p0, p1, p2, p3 = suit_patterns(hand)
    pairs = (p0 & (p1 | p2 | p3)) | (p1 & (p2 | p3)) | (p2 & p3)
    ace = np.int64(tab[ACE_SLOT])
    found = pairs * RANK_ACROSS_SUITS
    found |= _run_completions(p0, ace)
    found |= _run_completions(p1, ace) << 13
    found |= _run_completions(p2, ace) << 26
    found |= _run_completions(p3, ace) << 39
    found &= cards
    for joker in (52, 53):
        if (cards >> joker) & 1 and _melds_with_jokers(hand, joker, tab):
            found |= np.int64(1) << joker
    return found


@njit(cache=True)
def run_near(rank, tab):
    """13-bit mask of the ranks sharing a 3-card run shape with ``rank`` (ace-aware)."""
    near = np.int64(0)
    for i in range(tab[N_WINDOWS_SLOT]):
        w = np.int64(tab[WINDOWS + i])
        if popcount(w) == 3 and (w >> rank) & 1:
            near |= w
    return near & ~(1 << rank)
