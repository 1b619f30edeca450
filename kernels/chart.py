"""The knock chart's kernel: positions read from the engine's event log, each scored
two ways by ``kernels.mc.evaluate``.

``docs/CHARTS.md`` says what a chart is; ``tests/study/test_chart.py`` holds the
pure-Python twin of one position's scoring and compares it with this kernel.

The compiled engine plays the deals with the policy line-up and its event log on
(``sim.engine.logged_deals``); the events of all the deals lie end to end in
``events`` (rows ``code, seat, card, extra`` of ``kernels/engine.py``), deal ``i`` in
rows ``starts[i] .. starts[i + 1] - 1``. :func:`knock_positions` walks each deal's
log, keeping the focal seat's view (its hand, the pile, what every seat took from the
pile and threw, the stock's size, the turn), and at each of the focal seat's discard
decisions where a knock is legal (its best discard leaves deadwood within the knock
limit) it has a *position*: the focal seat's ``Obs`` at that moment, built from its
own view only, as the engine would hand it to a hook.

A position falls in one cell (the seat's own turn, the deadwood its best discard
leaves, the number of pile cards the opponents took this hand); it is scored when a
draw from its own random stream falls below its cell's rate (stratification: common
cells are thinned, rare ones all kept). Scoring plays two actions on the same
``samples`` determinized deals (common random numbers): knock laying the best
discard away, or discard it and play on, both by ``evaluate``, mc's one kernel of
samples and rollouts.

Randomness: position ``(deal, own turn)`` draws from ``position_key(chart_key, deal,
own_turn)``: its acceptance draw is value ``ACCEPT_COUNTER`` of that stream, its
samples are ``evaluate``'s samples ``0 .. samples - 1`` of it. So every position is
scored the same whichever chunk or worker meets it.
"""

import numpy as np
from numba import njit

from kernels import engine as E
from kernels import layout as L
from kernels.borrow import borrow
from kernels.deadwood import best_discard_one, min_deadwood_one
from kernels.mc import ACT_DISCARD, ACT_KNOCK, evaluate
from kernels.obs import PHASE_DISCARD, Obs
from kernels.rng import GOLDEN, mix64, random64
from kernels.showdown import knock_limit_of

CHART_SALT = 0x43484152540000  # "CHART": the chart's key is random64(run key, CHART_SALT)
ACCEPT_COUNTER = 1 << 40  # the acceptance draw: far above any sample index

# Columns of a scored position (``rows``; all int64).
P_DEAL = 0  # deal number
P_TURN = 1  # the focal seat's own turn (1 = its first draw of the hand)
P_DEADWOOD = 2  # deadwood the best discard leaves
P_TOOK = 3  # pile cards the opponents took this hand so far
P_CELL = 4  # cell index (``cell_of``)
P_GAIN = 5  # sum over samples of (knock - play on), units of 1/((players-1)*POINT_SCALE)
P_KNOCK_WON = 6  # samples in which the knock won the hand
P_PLAY_WON = 7  # samples in which playing on won the hand
P_CARD = 8  # the best discard (laid away by the knock, thrown by playing on)
N_POSITION_COLUMNS = 9


@njit(cache=True)
def chart_key(key):
    """The chart's own key, apart from every stream the engine draws."""
    return random64(key, CHART_SALT)


@njit(cache=True)
def position_key(ckey, number, own_turn):
    """The stream of the focal seat's position at its ``own_turn`` of deal ``number``."""
    return mix64(mix64(np.uint64(ckey) ^ (np.uint64(number) * GOLDEN)) + np.uint64(own_turn))


@njit(cache=True)
def uniform01(skey, counter):
    """A uniform float in [0, 1) from 53 bits of ``random64(skey, counter)``."""
    return np.float64(random64(skey, counter) >> np.uint64(11)) * (1.0 / 9007199254740992.0)


@njit(cache=True)
def cell_of(own_turn, deadwood, took, n_turns, n_deadwood, n_took):
    """The cell of a position: turns past ``n_turns`` share the last row, deadwood past
    ``n_deadwood - 1`` the last column, ``took`` past ``n_took - 1`` the last layer."""
    t = min(own_turn, n_turns) - 1
    d = min(deadwood, n_deadwood - 1)
    k = min(took, n_took - 1)
    return (t * n_deadwood + d) * n_took + k


@njit(cache=True, nogil=True)
def knock_positions(
    rules, tab, events, starts, first_number, dealer, focal, ckey, samples, model, knock_at,
    min_gain, n_turns, n_deadwood, n_took, rates, eligible, rows,
):  # fmt: skip
    """Walk the logs of deals ``first_number + i`` (``starts``), count every eligible
    position per cell in ``eligible`` (added to) and score the accepted ones into
    ``rows`` (``P_*`` columns). Returns the number of rows written (``rows`` needs one
    per focal draw at most).

    A position is eligible at a focal discard decision when a knock with the best
    discard is legal; not when big gin is allowed and ready (then the choice is big
    gin, not a knock). ``dealer`` deals every hand (single deals: the last seat).
    """
    rules, tab = borrow(rules), borrow(tab)  # typed as the engine hands them to hooks
    players = rules[L.R_PLAYERS]
    n_cards = 52 + rules[L.R_JOKERS]
    units = (players - 1) * L.POINT_SCALE
    forbid_taken = rules[L.R_DISCARD_TAKEN_CARD] == 0
    big_gin_ok = rules[L.R_BIG_GIN_BONUS] > 0
    hands = np.zeros(players, np.int64)
    taken = np.zeros(players, np.int64)
    discarded = np.zeros(players, np.int64)
    pile = np.zeros(128, np.int64)
    scores = np.zeros(players, np.int64)  # single deals: no game score
    kinds = np.array([ACT_KNOCK, ACT_DISCARD], np.int64)
    cards = np.zeros(2, np.int64)
    net = np.zeros((2, max(samples, 1)), np.float64)
    won = np.zeros((2, max(samples, 1)), np.int8)
    ends = np.zeros((2, max(samples, 1)), np.int8)
    written = 0
    for i in range(starts.shape[0] - 1):
        number = first_number + i
        for s in range(players):
            hands[s] = 0
            taken[s] = 0
            discarded[s] = 0
        pile_n = 0
        stock_n = 0
        rebuilds = 0
        turn = 0
        own_turn = 0
        took = 0
        upcard = -1
        limit = knock_limit_of(rules, upcard)  # per deal: it depends on the upcard only
        for e in range(starts[i], starts[i + 1]):
            code = events[e, 0]
            seat = events[e, 1]
            card = events[e, 2]
            if code == E.EV_DEAL:
                hands[seat] = events[e, 3]
            elif code == E.EV_UPCARD:
                upcard = card
                limit = knock_limit_of(rules, upcard)
                pile[0] = card
                pile_n = 1
                stock_n = n_cards - players * rules[L.R_HAND_SIZE] - 1
            elif code == E.EV_REBUILD:
                stock_n = pile_n - 1
                rebuilds += 1
                pile[0] = pile[pile_n - 1]
                pile_n = 1
            elif code == E.EV_DISCARD:
                bit = np.int64(1) << card
                hands[seat] &= ~bit
                taken[seat] &= ~bit
                discarded[seat] |= bit
                pile[pile_n] = card
                pile_n += 1
            elif code == E.EV_DRAW_PILE or code == E.EV_DRAW_STOCK:
                from_pile = code == E.EV_DRAW_PILE
                if from_pile:
                    pile_n -= 1
                    taken[seat] |= np.int64(1) << card
                    if seat != focal:
                        took += 1
                else:
                    stock_n -= 1
                hands[seat] |= np.int64(1) << card
                turn += 1
                if seat != focal:
                    continue
                own_turn += 1
                hand = hands[seat]
                forbidden = card if from_pile and forbid_taken else -1
                best, d = best_discard_one(hand, forbidden, tab)
                if limit >= 0 and d > limit:
                    continue
                if d == 0 and big_gin_ok and min_deadwood_one(hand, tab) == 0:
                    continue
                cell = cell_of(own_turn, d, took, n_turns, n_deadwood, n_took)
                eligible[cell] += 1
                pkey = position_key(ckey, number, own_turn)
                if samples <= 0 or uniform01(pkey, ACCEPT_COUNTER) >= rates[cell]:
                    continue
                obs = Obs(
                    np.int64(focal), np.int64(players), hand, borrow(pile), np.int64(pile_n),
                    borrow(taken), borrow(discarded), np.int64(stock_n), np.int64(rebuilds),
                    np.int64(turn), np.int64(PHASE_DISCARD), np.int64(upcard), np.int64(card),
                    from_pile,
                    np.int64(dealer), rules, borrow(scores), tab, pkey,
                )  # fmt: skip
                cards[0] = best
                cards[1] = best
                evaluate(obs, kinds, cards, pkey, 0, model, knock_at, min_gain, net, won, ends)
                gain = np.int64(0)
                knock_won = np.int64(0)
                play_won = np.int64(0)
                for j in range(samples):
                    gain += np.int64(np.round((net[0, j] - net[1, j]) * units))
                    knock_won += won[0, j]
                    play_won += won[1, j]
                rows[written, P_DEAL] = number
                rows[written, P_TURN] = own_turn
                rows[written, P_DEADWOOD] = d
                rows[written, P_TOOK] = took
                rows[written, P_CELL] = cell
                rows[written, P_GAIN] = gain
                rows[written, P_KNOCK_WON] = knock_won
                rows[written, P_PLAY_WON] = play_won
                rows[written, P_CARD] = best
                written += 1
    return written
