"""What a strategy chart is made of: its kinds, cells, columns and random streams.

``docs/CHARTS.md`` says what a chart is. The engine finds a chart's positions in real
play and scores them from the deal's true state (``kernels/probe.py``); this module
holds what both it and the study layer (``sim/study/chart_cells.py``) need to agree on:

* ``CHART_KNOCK``: a discard decision of the focal seat where a knock is legal (its
  best discard leaves deadwood within the knock limit), not when big gin is allowed and
  ready. Column: that deadwood. Actions: knock laying the best discard away, or the
  seat's own discard and play on.
* ``CHART_DRAW``: a draw decision of the focal seat with a card on the pile (not the
  Gin upcard option: its take or pass, or the forced draw after both passed). Column:
  what the pile's top card does for the hand (``draw_class``). Actions: take it, or
  draw from the stock; either way the hand goes on.
* ``CHART_DISCARD``: a discard of the focal seat that the next seat then meets (the
  hand goes on). Column: the card's rank (jokers last); layer: whether the next seat
  showed interest, holding a card it took from the pile of that rank or in a run shape
  with it. Nothing is forced or sampled: the row says whether the next seat took the
  card and what taking it saved that seat (its least deadwood before, less the least
  after its best discard).

A position falls in one cell (the seat's own turn, the column, the number of pile
cards the opponents took this hand: ``cell_of``). Position ``(deal, own turn)`` draws
everything from its own stream, ``position_key(chart_key, deal, own_turn)``.
"""

import numpy as np
from numba import njit

from kernels import layout as L
from kernels.deadwood import RANK_ACROSS_SUITS, best_discard_one, min_deadwood_one
from kernels.melds import melds_with, run_near
from kernels.rng import GOLDEN, mix64, random64

CHART_SALT = 0x43484152540000  # "CHART": a chart's key is random64(run key, CHART_SALT + kind)
ACCEPT_COUNTER = 1 << 40  # the acceptance draw: far above any sample index

# Chart kinds (``kind``): which decisions are positions, and the two actions scored.
CHART_KNOCK = 0  # knock now (first) or discard and play on (second)
CHART_DRAW = 1  # take the pile's top card (first) or draw from the stock (second)
CHART_DISCARD = 2  # the discard taken by the next seat (first) or not (second)
N_DISCARD_COLUMNS = 14  # ranks A .. K, then jokers

# A chart's layers (``cell_of``'s ``n_took``): how many, and what splits the cells.
TOOK_NONE = 1  # one layer: not split
TOOK_INTEREST = 2  # discard chart: the next seat showed no interest (0) or some (1)
TOOK_COUNT = 3  # knock and draw charts: pile cards the opponents took, 0, 1, 2 or more

# The draw chart's columns: what the pile's top card does for the hand (``draw_class``),
# the first that holds. A "lower" card lowers the hand's least deadwood (after the best
# discard) by 1-3, 4-6 or 7 or more without making a meld or a near-meld.
DRAW_MELD = 0  # part of a meld with the hand's cards
DRAW_PAIR = 1  # the hand holds a card of its rank (a set lacks one card)
DRAW_NEAR_RUN = 2  # the hand holds a card of its suit 1-2 ranks away in a run shape
DRAW_LOWER_1 = 3  # lowers the least deadwood by 1-3
DRAW_LOWER_4 = 4  # ... by 4-6
DRAW_LOWER_7 = 5  # ... by 7 or more
DRAW_NOTHING = 6  # none of these
N_DRAW_CLASSES = 7

# Columns of a scored position (``rows``; all int64).
P_DEAL = 0  # deal number
P_TURN = 1  # the focal seat's own turn (1 = its first draw of the hand)
P_COLUMN = 2  # knock chart: deadwood the best discard leaves; draw chart: ``draw_class``
P_TOOK = 3  # pile cards the opponents took this hand so far (discard chart: interest 0/1)
P_CELL = 4  # cell index (``cell_of``)
P_GAIN = 5  # sum over samples of (first - second action), units of 1/((players-1)*POINT_SCALE);
#            discard chart: the deadwood the card saved its taker (0 when not taken)
P_FIRST_WON = 6  # samples in which the first action (knock, take) won the hand (discard: taken)
P_SECOND_WON = 7  # ... the second action (play on, draw) won the hand (discard: not taken)
P_CARD = 8  # the best discard (knock chart), the pile top (draw), the card thrown (discard)
P_POLICY = 9  # 1 when the seat's own choice at the position was the first action (knock,
#               take; discard chart: the card was taken), 0 the second
N_POSITION_COLUMNS = 10


@njit(cache=True)
def chart_key(key, kind):
    """The chart's own key, apart from every stream the engine draws (and from the
    other kinds' keys)."""
    return random64(key, CHART_SALT + kind)


@njit(cache=True)
def position_key(ckey, number, own_turn):
    """The stream of the focal seat's position at its ``own_turn`` of deal ``number``."""
    return mix64(mix64(np.uint64(ckey) ^ (np.uint64(number) * GOLDEN)) + np.uint64(own_turn))


@njit(cache=True)
def uniform01(skey, counter):
    """A uniform float in [0, 1) from 53 bits of ``random64(skey, counter)``."""
    return np.float64(random64(skey, counter) >> np.uint64(11)) * (1.0 / 9007199254740992.0)


@njit(cache=True)
def cell_of(own_turn, column, took, n_turns, n_columns, n_took):
    """The cell of a position: turns past ``n_turns`` share the last row, columns past
    ``n_columns - 1`` the last column, ``took`` past ``n_took - 1`` the last layer."""
    t = min(own_turn, n_turns) - 1
    d = min(column, n_columns - 1)
    k = min(took, n_took - 1)
    return (t * n_columns + d) * n_took + k


@njit(cache=True)
def interested(taken, card, tab):
    """True when a seat that took the pile cards ``taken`` (and still holds them) showed
    interest in ``card``: one of them has its rank or shares a 3-card run shape with it
    in its suit (any taken card, for a joker)."""
    if card >= 52:
        return taken != 0
    rank = card % 13
    if taken & (np.int64(RANK_ACROSS_SUITS) << rank):
        return True
    return taken & (np.int64(run_near(rank, tab)) << (13 * (card // 13))) != 0


@njit(cache=True)
def draw_class(rules, tab, hand, top):
    """What taking ``top`` does for ``hand`` (``DRAW_*``): a meld, a pair, a near run,
    a lower least deadwood (after the best discard; the taken card itself may not be
    thrown where the rules forbid it), or nothing."""
    shape = draw_shape(tab, hand, top)
    if shape >= 0:
        return shape
    return lowering_class(take_saving(rules, tab, hand, top))


@njit(cache=True, inline="always")
def take_saving(rules, tab, hand, card):
    """How much taking ``card`` lowers ``hand``'s least deadwood: the least now, less
    the least after the best discard (not ``card`` itself where the rules forbid it)."""
    _, after = best_discard_one(hand | (np.int64(1) << card), taken_forbidden(rules, card), tab)
    return min_deadwood_one(hand, tab) - after


@njit(cache=True, inline="always")
def draw_shape(tab, hand, top):
    """``draw_class``'s first three questions, which need no solve: ``DRAW_MELD``,
    ``DRAW_PAIR`` or ``DRAW_NEAR_RUN``, else -1 (a lowering class then)."""
    if melds_with(hand, top, tab):
        return DRAW_MELD
    if top < 52:  # a joker that makes no meld has no rank or suit to pair with
        rank = top % 13
        if hand & (np.int64(RANK_ACROSS_SUITS) << rank):
            return DRAW_PAIR
        if hand & (np.int64(run_near(rank, tab)) << (13 * (top // 13))):
            return DRAW_NEAR_RUN
    return np.int64(-1)


@njit(cache=True, inline="always")
def taken_forbidden(rules, card):
    """The card a seat that took ``card`` from the pile may not discard (-1: none)."""
    return card if rules[L.R_DISCARD_TAKEN_CARD] == 0 else np.int64(-1)


@njit(cache=True, inline="always")
def lowering_class(lower):
    """``draw_class``'s last answers, by how much the take lowers the least deadwood."""
    if lower >= 7:
        return DRAW_LOWER_7
    if lower >= 4:
        return DRAW_LOWER_4
    if lower >= 1:
        return DRAW_LOWER_1
    return DRAW_NOTHING
