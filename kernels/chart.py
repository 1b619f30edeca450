"""The strategy charts' kernel: positions read from the engine's event log, each scored
two ways by ``kernels.mc.evaluate``.

``docs/CHARTS.md`` says what a chart is; ``tests/study/test_chart.py`` holds the
pure-Python twin of one position's scoring and compares it with this kernel.

The compiled engine plays the deals with the policy line-up and its event log on
(``sim.engine.logged_deals``); the events of all the deals lie end to end in
``events`` (rows ``code, seat, card, extra`` of ``kernels/engine.py``), deal ``i`` in
rows ``starts[i] .. starts[i + 1] - 1``. :func:`knock_positions` walks each deal's
log, keeping the focal seat's view (its hand, the pile, what every seat took from the
pile and threw, the stock's size, the rebuilds, the turn), and at each of the focal
seat's decisions of the chart's kind it has a *position*: the focal seat's ``Obs`` at
that moment, built from its own view only, as the engine would hand it to a hook.

* ``CHART_KNOCK``: a discard decision where a knock is legal (its best discard leaves
  deadwood within the knock limit). Column: that deadwood. Actions: knock laying the
  best discard away, or discard it and play on.
* ``CHART_DRAW``: a draw decision with a card on the pile (not the first turn's upcard
  option). Column: what the pile's top card does for the hand (``draw_class``).
  Actions: take it, or draw from the stock; either way the rollout plays on.
* ``CHART_DISCARD``: a discard of the focal seat that the next seat then meets (the
  hand goes on). Column: the card's rank (jokers last); layer: whether the next seat
  showed interest, holding a card it took from the pile of that rank or in a run shape
  with it. Nothing is sampled: the row says whether the next seat took the card and
  what taking it saved that seat (its least deadwood before, less the least after its
  best discard: the log holds every hand, so this is a measurement, not a view).

A position falls in one cell (the seat's own turn, the column, the number of pile
cards the opponents took this hand); it is scored when a draw from its own random
stream falls below its cell's rate (stratification: common cells are thinned, rare
ones all kept). Scoring plays the two actions on the same ``samples`` determinized
deals (common random numbers) by ``evaluate``, mc's one kernel of samples and
rollouts.

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
from kernels.deadwood import RANK_ACROSS_SUITS, best_discard_one, min_deadwood_one
from kernels.mc import ACT_DISCARD, ACT_DRAW, ACT_KNOCK, ACT_TAKE, evaluate
from kernels.melds import melds_with, run_near
from kernels.obs import PHASE_DISCARD, PHASE_DRAW, Obs
from kernels.rng import GOLDEN, mix64, random64
from kernels.showdown import knock_limit_of

CHART_SALT = 0x43484152540000  # "CHART": a chart's key is random64(run key, CHART_SALT + kind)
ACCEPT_COUNTER = 1 << 40  # the acceptance draw: far above any sample index

# Chart kinds (``kind``): which decisions are positions, and the two actions scored.
CHART_KNOCK = 0  # knock now (first) or discard and play on (second)
CHART_DRAW = 1  # take the pile's top card (first) or draw from the stock (second)
CHART_DISCARD = 2  # the discard taken by the next seat (first) or not (second)
N_DISCARD_COLUMNS = 14  # ranks A .. K, then jokers

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
N_POSITION_COLUMNS = 9


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
    if melds_with(hand, top, tab):
        return DRAW_MELD
    if top < 52:  # a joker that makes no meld has no rank or suit to pair with
        rank = top % 13
        if hand & (np.int64(RANK_ACROSS_SUITS) << rank):
            return DRAW_PAIR
        if hand & (np.int64(run_near(rank, tab)) << (13 * (top // 13))):
            return DRAW_NEAR_RUN
    forbidden = top if rules[L.R_DISCARD_TAKEN_CARD] == 0 else -1
    _, after = best_discard_one(hand | (np.int64(1) << top), forbidden, tab)
    lower = min_deadwood_one(hand, tab) - after
    if lower >= 7:
        return DRAW_LOWER_7
    if lower >= 4:
        return DRAW_LOWER_4
    if lower >= 1:
        return DRAW_LOWER_1
    return DRAW_NOTHING


@njit(cache=True, nogil=True)
def chart_positions(
    kind, rules, tab, events, starts, first_number, dealer, focal, ckey, samples, model,
    knock_at, min_gain, n_turns, n_columns, n_took, rates, eligible, rows,
):  # fmt: skip
    """Walk the logs of deals ``first_number + i`` (``starts``), count every eligible
    position of the chart ``kind`` per cell in ``eligible`` (added to) and score the
    accepted ones into ``rows`` (``P_*`` columns). Returns the number of rows written
    (``rows`` needs one per focal draw at most).

    Knock chart: a position is eligible at a focal discard decision when a knock with
    the best discard is legal; not when big gin is allowed and ready (then the choice
    is big gin, not a knock). Draw chart: at a focal draw with a card on the pile, but
    not the hand's first draw under the upcard option (that is the option's take or
    pass, or the forced draw after both passed). ``dealer`` deals every hand (single
    deals: the last seat).
    """
    rules, tab = borrow(rules), borrow(tab)  # typed as the engine hands them to hooks
    players = rules[L.R_PLAYERS]
    n_cards = 52 + rules[L.R_JOKERS]
    units = (players - 1) * L.POINT_SCALE
    forbid_taken = rules[L.R_DISCARD_TAKEN_CARD] == 0
    big_gin_ok = rules[L.R_BIG_GIN_BONUS] > 0
    option = rules[L.R_UPCARD_OPTION] == 1
    hands = np.zeros(players, np.int64)
    taken = np.zeros(players, np.int64)
    discarded = np.zeros(players, np.int64)
    pile = np.zeros(128, np.int64)
    scores = np.zeros(players, np.int64)  # single deals: no game score
    if kind == CHART_KNOCK:
        kinds = np.array([ACT_KNOCK, ACT_DISCARD], np.int64)
    else:
        kinds = np.array([ACT_TAKE, ACT_DRAW], np.int64)
    cards = np.full(2, -1, np.int64)
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
        pending = -1  # discard chart: the focal seat's last discard, until the next seat draws
        pending_cell = 0
        pending_turn = 0
        pending_took = 0
        pile_n = 0
        stock_n = 0
        rebuilds = 0
        rebuilt = np.int64(0)
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
                rebuilt = np.int64(0)
                for k in range(stock_n):
                    rebuilt |= np.int64(1) << pile[k]
                pile[0] = pile[pile_n - 1]
                pile_n = 1
            elif code == E.EV_DISCARD:
                bit = np.int64(1) << card
                hands[seat] &= ~bit
                taken[seat] &= ~bit
                discarded[seat] |= bit
                pile[pile_n] = card
                pile_n += 1
                if kind == CHART_DISCARD and seat == focal:
                    pending = card
                    pending_turn = own_turn
                    pending_took = 1 if interested(taken[(seat + 1) % players], card, tab) else 0
                    column = 13 if card >= 52 else card % 13
                    pending_cell = cell_of(own_turn, column, pending_took, n_turns, n_columns,
                                           n_took)  # fmt: skip
            elif code == E.EV_DRAW_PILE or code == E.EV_DRAW_STOCK:
                # Before the draw: the fate of the focal seat's discard (discard chart).
                first_draw = turn == 0
                from_pile = code == E.EV_DRAW_PILE
                if pending >= 0 and seat == (focal + 1) % players and written < rows.shape[0]:
                    took_it = from_pile and card == pending
                    saved = np.int64(0)
                    if took_it:
                        forbidden = card if forbid_taken else -1
                        _, after = best_discard_one(hands[seat] | (np.int64(1) << card),
                                                    forbidden, tab)  # fmt: skip
                        saved = min_deadwood_one(hands[seat], tab) - after
                    eligible[pending_cell] += 1
                    rows[written, P_DEAL] = number
                    rows[written, P_TURN] = pending_turn
                    rows[written, P_COLUMN] = 13 if pending >= 52 else pending % 13
                    rows[written, P_TOOK] = pending_took
                    rows[written, P_CELL] = pending_cell
                    rows[written, P_GAIN] = saved
                    rows[written, P_FIRST_WON] = 1 if took_it else 0
                    rows[written, P_SECOND_WON] = 0 if took_it else 1
                    rows[written, P_CARD] = pending
                    written += 1
                    pending = -1
                if seat == focal:
                    own_turn += 1
                if (
                    kind == CHART_DRAW and seat == focal and pile_n > 0
                    and not (option and first_draw)
                ):  # fmt: skip
                    top = pile[pile_n - 1]
                    column = draw_class(rules, tab, hands[seat], top)
                    cell = cell_of(own_turn, column, took, n_turns, n_columns, n_took)
                    eligible[cell] += 1
                    pkey = position_key(ckey, number, own_turn)
                    if samples > 0 and uniform01(pkey, ACCEPT_COUNTER) < rates[cell]:
                        obs = Obs(
                            np.int64(focal), np.int64(players), hands[seat], borrow(pile),
                            np.int64(pile_n), borrow(taken), borrow(discarded),
                            np.int64(stock_n), np.int64(rebuilds), rebuilt, np.int64(turn),
                            np.int64(PHASE_DRAW), np.int64(upcard), np.int64(-1), False,
                            np.int64(dealer), rules, borrow(scores), tab, pkey,
                        )  # fmt: skip
                        evaluate(obs, kinds, cards, pkey, 0, model, knock_at, min_gain,
                                 net, won, ends)  # fmt: skip
                        _write(rows, written, number, own_turn, column, took, cell, top,
                               net, won, units)  # fmt: skip
                        written += 1
                # The draw itself.
                if from_pile:
                    pile_n -= 1
                    taken[seat] |= np.int64(1) << card
                    if seat != focal:
                        took += 1
                else:
                    stock_n -= 1
                hands[seat] |= np.int64(1) << card
                turn += 1
                if kind != CHART_KNOCK or seat != focal:
                    continue
                # After the draw: the focal seat's discard decision (knock chart).
                hand = hands[seat]
                forbidden = card if from_pile and forbid_taken else -1
                best, d = best_discard_one(hand, forbidden, tab)
                if limit >= 0 and d > limit:
                    continue
                if d == 0 and big_gin_ok and min_deadwood_one(hand, tab) == 0:
                    continue
                cell = cell_of(own_turn, d, took, n_turns, n_columns, n_took)
                eligible[cell] += 1
                pkey = position_key(ckey, number, own_turn)
                if samples <= 0 or uniform01(pkey, ACCEPT_COUNTER) >= rates[cell]:
                    continue
                obs = Obs(
                    np.int64(focal), np.int64(players), hand, borrow(pile), np.int64(pile_n),
                    borrow(taken), borrow(discarded), np.int64(stock_n), np.int64(rebuilds),
                    rebuilt, np.int64(turn), np.int64(PHASE_DISCARD), np.int64(upcard),
                    np.int64(card), from_pile, np.int64(dealer), rules, borrow(scores), tab, pkey,
                )  # fmt: skip
                cards[0] = best
                cards[1] = best
                evaluate(obs, kinds, cards, pkey, 0, model, knock_at, min_gain, net, won, ends)
                _write(rows, written, number, own_turn, d, took, cell, best, net, won, units)
                written += 1
    return written


@njit(cache=True)
def _write(rows, k, number, own_turn, column, took, cell, card, net, won, units):
    """Row ``k`` of ``rows``: the position and its exact sums over the samples."""
    gain = np.int64(0)
    first_won = np.int64(0)
    second_won = np.int64(0)
    for j in range(net.shape[1]):
        gain += np.int64(np.round((net[0, j] - net[1, j]) * units))
        first_won += won[0, j]
        second_won += won[1, j]
    rows[k, P_DEAL] = number
    rows[k, P_TURN] = own_turn
    rows[k, P_COLUMN] = column
    rows[k, P_TOOK] = took
    rows[k, P_CELL] = cell
    rows[k, P_GAIN] = gain
    rows[k, P_FIRST_WON] = first_won
    rows[k, P_SECOND_WON] = second_won
    rows[k, P_CARD] = card
