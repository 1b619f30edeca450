"""The round engine: one hand of Knock Rummy or Gin, played by strategy hooks.

This module follows ``docs/ENGINE.md`` step by step (deal, upcard option, draws,
stock rebuilds, discards, knocks, dead hands, the showdown); ``tests/reference/
engine_ref.py`` is its pure-Python twin and the tests compare the two draw by draw.

Strategy dispatch
-----------------
The hooks are called through ``hook_take``, ``hook_discard`` and ``hook_knock``,
which branch on a strategy id per seat. The versions below are stand-ins so that this
module imports and can be tested on its own; ``sim/engine_build.py`` writes a module
made of a real dispatcher (every registered strategy, by id) followed by this file's
source, so that numba compiles the hooks into the loop and caches the result on disk
(a dispatcher passed as an argument, or a closure, would be recompiled in every
process). A line-up is then plain data: strategy ids and parameter rows per seat, so
a new line-up or new parameter values never recompile.

Conventions
-----------
* ``rules``: int64 rule vector; ``tab``: solver tables; masks are int64.
* ``state``: a :class:`HandState` of arrays allocated once per block of hands.
* Per-hand results go to the columns of a :class:`HandColumns` at ``row``.
* Return value of ``play_hand``: 0, or an ``ERR_*`` code with details in ``state.error``.
"""

from typing import NamedTuple

import numpy as np
from numba import njit, prange

from kernels import layout as L
from kernels.borrow import borrow
from kernels.deadwood import best_discard_one, min_deadwood_one
from kernels.melds import MAX_MELDS_PER_ARRANGEMENT
from kernels.obs import (
    BIG_GIN,
    CONTINUE,
    KNOCK,
    PHASE_DISCARD,
    PHASE_DRAW,
    PHASE_UPCARD_OPTION,
    SCRATCH_SIZE,
    Obs,
    forbidden_discard,
)
from kernels.rng import PURPOSE_DEAL, PURPOSE_RESHUFFLE, PURPOSE_STRATEGY, make_stream, shuffle, stream_key
from kernels.showdown import knock_limit_of, showdown

MAX_TURNS = 1000  # a hand that could never end is cut here (rebuilds are bounded)
MAX_PLAYERS = 6
DECK_CAPACITY = 54  # 52 cards and 2 jokers

ERR_NONE = 0
ERR_NOT_HELD = 1  # discard of a card the seat does not hold
ERR_FORBIDDEN = 2  # discard of the card just taken from the pile
ERR_KNOCK_OVER_LIMIT = 3  # knock with deadwood above the limit
ERR_BAD_BIG_GIN = 4  # big gin not allowed or not all melded
ERR_BAD_KNOCK_CODE = 5  # knock hook returned something else than 0, 1, 2
ERROR_NAMES = (
    "none",
    "discarded a card it does not hold",
    "discarded the card it just took from the pile",
    "knocked with deadwood above the knock limit",
    "claimed big gin illegally",
    "returned an unknown knock decision",
)

# Event log codes (``state.log`` rows: code, seat, card, extra), for replays.
EV_DEAL = 0  # seat, -1, hand mask
EV_UPCARD = 1  # -1, card, -1
EV_PASS = 2  # seat passes the upcard
EV_DRAW_PILE = 3
EV_DRAW_STOCK = 4
EV_REBUILD = 5  # -1, -1, rebuild index
EV_DISCARD = 6
EV_KNOCK = 7  # seat, card laid away
EV_BIG_GIN = 8
EV_DEAD_HAND = 9
EV_EXHAUSTED = 10
LOG_CAPACITY = 4 * MAX_TURNS + 64


class HandState(NamedTuple):
    """Working arrays of one hand (allocated once per block of hands)."""

    deck: np.ndarray  # int64[DECK_CAPACITY]
    stock: np.ndarray  # int64[DECK_CAPACITY]; stock[stock_top:stock_end], top first
    pile: np.ndarray  # int64[DECK_CAPACITY]; bottom to top
    hands: np.ndarray  # int64[players]
    taken: np.ndarray  # int64[players]
    discarded: np.ndarray  # int64[players]
    scratch: np.ndarray  # int64[players, SCRATCH_SIZE]
    deadwood: np.ndarray  # int64[players]
    laid: np.ndarray  # int64[players]
    points: np.ndarray  # int64[players]
    knocker_melds: np.ndarray  # int64[MAX_MELDS_PER_ARRANGEMENT]
    counters: np.ndarray  # int64[8]: pile_n, stock_top, stock_end, turn, rebuilds, log_n
    error: np.ndarray  # int64[8]: code, seat, number, hand_index, turn, value
    log: np.ndarray  # int64[LOG_CAPACITY, 4]


class HandColumns(NamedTuple):
    """Per-hand results, one row per hand (columnar: turned into Arrow as is)."""

    number: np.ndarray  # int64
    hand_index: np.ndarray  # int32
    dealer: np.ndarray  # int8
    upcard: np.ndarray  # int8
    knocker: np.ndarray  # int8 (-1: none)
    outcome: np.ndarray  # int8 (kernels.layout outcome codes)
    turns: np.ndarray  # int16
    stock_left: np.ndarray  # int8
    rebuilds: np.ndarray  # int8
    deadwood: np.ndarray  # int16[n, players]
    laid_off: np.ndarray  # int8[n, players] (number of cards)
    points: np.ndarray  # int64[n, players] in 1/POINT_SCALE units


def new_state(players: int) -> HandState:
    """Working arrays for hands of ``players`` seats (Python side)."""
    return _new_state(players)


@njit(cache=True)
def _new_state(players):
    return HandState(
        np.zeros(DECK_CAPACITY, np.int64),
        np.zeros(DECK_CAPACITY, np.int64),
        np.zeros(DECK_CAPACITY, np.int64),
        np.zeros(players, np.int64),
        np.zeros(players, np.int64),
        np.zeros(players, np.int64),
        np.zeros((players, SCRATCH_SIZE), np.int64),
        np.zeros(players, np.int64),
        np.zeros(players, np.int64),
        np.zeros(players, np.int64),
        np.zeros(MAX_MELDS_PER_ARRANGEMENT, np.int64),
        np.zeros(8, np.int64),
        np.zeros(8, np.int64),
        np.zeros((LOG_CAPACITY, 4), np.int64),
    )


@njit(cache=True)
def _borrowed_state(owner):
    """``owner``'s arrays as borrowed views (see ``kernels/borrow.py``); ``owner``
    must stay alive while the views are used."""
    return HandState(
        borrow(owner.deck),
        borrow(owner.stock),
        borrow(owner.pile),
        borrow(owner.hands),
        borrow(owner.taken),
        borrow(owner.discarded),
        borrow(owner.scratch),
        borrow(owner.deadwood),
        borrow(owner.laid),
        borrow(owner.points),
        borrow(owner.knocker_melds),
        borrow(owner.counters),
        borrow(owner.error),
        borrow(owner.log),
    )


def new_columns(n: int, players: int) -> HandColumns:
    """Empty result columns for ``n`` hands."""
    return HandColumns(
        number=np.zeros(n, np.int64),
        hand_index=np.zeros(n, np.int32),
        dealer=np.zeros(n, np.int8),
        upcard=np.zeros(n, np.int8),
        knocker=np.zeros(n, np.int8),
        outcome=np.zeros(n, np.int8),
        turns=np.zeros(n, np.int16),
        stock_left=np.zeros(n, np.int8),
        rebuilds=np.zeros(n, np.int8),
        deadwood=np.zeros((n, players), np.int16),
        laid_off=np.zeros((n, players), np.int8),
        points=np.zeros((n, players), np.int64),
    )


# --- hooks: replaced by the generated dispatcher (sim/engine_build.py) -------------
# Stand-ins: draw from the stock, discard the best card, knock when legal.


@njit(cache=True)
def hook_take(sid, obs, params, scratch):
    return False


@njit(cache=True)
def hook_discard(sid, obs, params, scratch):
    card, _ = best_discard_one(obs.hand, forbidden_discard(obs), obs.tab)
    return card


@njit(cache=True)
def hook_knock(sid, obs, params, scratch, discard):
    limit = knock_limit_of(obs.rules, obs.upcard)
    d = min_deadwood_one(obs.hand & ~(np.int64(1) << discard), obs.tab)
    return KNOCK if limit < 0 or d <= limit else CONTINUE


# --- end hooks ------------------------------------------------------------------------


@njit(cache=True)
def _log(state, code, seat, card, extra):
    n = state.counters[5]
    if n < state.log.shape[0]:
        state.log[n, 0] = code
        state.log[n, 1] = seat
        state.log[n, 2] = card
        state.log[n, 3] = extra
        state.counters[5] = n + 1


@njit(cache=True)
def _observe(state, seat, phase, upcard, drawn, from_pile, dealer, rules, scores, tab, key, number, hand_index):
    """The Obs of one seat: its own hand and public facts only."""
    c = state.counters
    return Obs(
        seat,
        state.hands.shape[0],
        state.hands[seat],
        state.pile,
        c[0],
        state.taken,
        state.discarded,
        c[2] - c[1],
        c[3],
        phase,
        upcard,
        drawn,
        from_pile,
        dealer,
        rules,
        scores,
        tab,
        stream_key(key, number, make_stream(PURPOSE_STRATEGY, hand_index, seat)),
    )


@njit(cache=True)
def _fail(state, code, seat, number, hand_index, value):
    e = state.error
    e[0] = code
    e[1] = seat
    e[2] = number
    e[3] = hand_index
    e[4] = state.counters[3]
    e[5] = value
    return code


@njit(cache=True)
def _rebuild(state, rules, key, number, hand_index):
    """Turn every pile card but the top into a new stock (RULES.md stock_exhaustion)."""
    c = state.counters
    n = c[0] - 1
    for i in range(n):
        state.stock[i] = state.pile[i]  # bottom (oldest) first: the new top
    state.pile[0] = state.pile[n]
    c[0] = 1
    c[4] += 1
    if rules[L.R_STOCK_EXHAUSTION] == L.EXHAUST_RESHUFFLE:
        skey = stream_key(key, number, make_stream(PURPOSE_RESHUFFLE, hand_index, c[4]))
        shuffle(state.stock, n, skey)
    c[1] = 0
    c[2] = n


@njit(cache=True)
def _finish(state, cols, row, number, hand_index, dealer, upcard, knocker, outcome):
    c = state.counters
    players = state.hands.shape[0]
    cols.number[row] = number
    cols.hand_index[row] = hand_index
    cols.dealer[row] = dealer
    cols.upcard[row] = upcard
    cols.knocker[row] = knocker
    cols.outcome[row] = outcome
    cols.turns[row] = c[3]
    cols.stock_left[row] = c[2] - c[1]
    cols.rebuilds[row] = c[4]
    for seat in range(players):
        if outcome == L.DEAD_HAND:
            cols.deadwood[row, seat] = 0
            cols.laid_off[row, seat] = 0
            cols.points[row, seat] = 0
        else:
            cols.deadwood[row, seat] = state.deadwood[seat]
            laid = state.laid[seat]
            n = 0
            while laid:
                laid &= laid - 1
                n += 1
            cols.laid_off[row, seat] = n
            cols.points[row, seat] = state.points[seat]


@njit(cache=True)
def _score(state, rules, tab, knocker, upcard, dealer):
    outcome, _ = showdown(
        rules,
        state.hands,
        knocker,
        upcard,
        dealer,
        tab,
        state.deadwood,
        state.laid,
        state.points,
        state.knocker_melds,
    )
    return outcome


@njit(cache=True)
def play_hand(rules, tab, key, number, hand_index, dealer, sids, params, scores, state, cols, row, logging):
    """Play one hand and write its row. Returns 0 or an ``ERR_*`` code."""
    players = state.hands.shape[0]
    hand_size = rules[L.R_HAND_SIZE]
    n_cards = 52 + rules[L.R_JOKERS]
    c = state.counters
    for i in range(8):
        c[i] = 0
    # The deal (docs/ENGINE.md "The deal").
    for i in range(n_cards):
        state.deck[i] = i
    shuffle(state.deck, n_cards, stream_key(key, number, make_stream(PURPOSE_DEAL, hand_index, 0)))
    for seat in range(players):
        state.hands[seat] = 0
        state.taken[seat] = 0
        state.discarded[seat] = 0
        for k in range(SCRATCH_SIZE):
            state.scratch[seat, k] = 0
    dealt = players * hand_size
    for k in range(dealt):
        seat = (dealer + 1 + k) % players
        state.hands[seat] |= np.int64(1) << state.deck[k]
    upcard = state.deck[dealt]
    state.pile[0] = upcard
    c[0] = 1
    for k in range(dealt + 1, n_cards):
        state.stock[k - dealt - 1] = state.deck[k]
    c[1] = 0
    c[2] = n_cards - dealt - 1
    if logging:
        for seat in range(players):
            _log(state, EV_DEAL, seat, -1, state.hands[seat])
        _log(state, EV_UPCARD, -1, upcard, -1)

    seat = (dealer + 1) % players
    first = 0  # 0: a normal draw; 1: the upcard was taken; 2: forced stock draw
    if rules[L.R_UPCARD_OPTION] == 1:
        non_dealer = seat
        obs = _observe(state, non_dealer, PHASE_UPCARD_OPTION, upcard, -1, False, dealer, rules, scores, tab, key, number, hand_index)
        if hook_take(sids[non_dealer], obs, params[non_dealer], state.scratch[non_dealer]):
            first = 1
        else:
            if logging:
                _log(state, EV_PASS, non_dealer, upcard, -1)
            obs = _observe(state, dealer, PHASE_UPCARD_OPTION, upcard, -1, False, dealer, rules, scores, tab, key, number, hand_index)
            if hook_take(sids[dealer], obs, params[dealer], state.scratch[dealer]):
                seat = dealer
                first = 1
            else:
                if logging:
                    _log(state, EV_PASS, dealer, upcard, -1)
                first = 2

    while True:
        # --- draw ---
        if first == 1:
            from_pile = True
        elif first == 2 or c[0] == 0:
            from_pile = False
        else:
            obs = _observe(state, seat, PHASE_DRAW, upcard, -1, False, dealer, rules, scores, tab, key, number, hand_index)
            from_pile = hook_take(sids[seat], obs, params[seat], state.scratch[seat])
        first = 0
        if from_pile:
            c[0] -= 1
            card = state.pile[c[0]]
            state.taken[seat] |= np.int64(1) << card
            if logging:
                _log(state, EV_DRAW_PILE, seat, card, -1)
        else:
            if c[1] == c[2]:
                # The stock is empty: rebuild it, or end the hand (RULES.md).
                if c[4] >= rules[L.R_MAX_REBUILDS] or c[0] <= 1 or rules[L.R_STOCK_EXHAUSTION] == L.EXHAUST_DEAD_HAND:
                    if logging:
                        _log(state, EV_EXHAUSTED, -1, -1, -1)
                    outcome = _score(state, rules, tab, -1, upcard, dealer)
                    _finish(state, cols, row, number, hand_index, dealer, upcard, -1, outcome)
                    return ERR_NONE
                _rebuild(state, rules, key, number, hand_index)
                if logging:
                    _log(state, EV_REBUILD, -1, -1, c[4])
            card = state.stock[c[1]]
            c[1] += 1
            if logging:
                _log(state, EV_DRAW_STOCK, seat, card, -1)
        state.hands[seat] |= np.int64(1) << card
        c[3] += 1

        # --- discard, knock ---
        obs = _observe(state, seat, PHASE_DISCARD, upcard, card, from_pile, dealer, rules, scores, tab, key, number, hand_index)
        discard = hook_discard(sids[seat], obs, params[seat], state.scratch[seat])
        if discard < 0 or discard >= DECK_CAPACITY or not (state.hands[seat] >> discard) & 1:
            return _fail(state, ERR_NOT_HELD, seat, number, hand_index, discard)
        if discard == forbidden_discard(obs):
            return _fail(state, ERR_FORBIDDEN, seat, number, hand_index, discard)
        decision = hook_knock(sids[seat], obs, params[seat], state.scratch[seat], discard)
        if decision == KNOCK:
            kept = state.hands[seat] & ~(np.int64(1) << discard)
            limit = knock_limit_of(rules, upcard)
            if limit >= 0:
                d = min_deadwood_one(kept, tab)
                if d > limit:
                    return _fail(state, ERR_KNOCK_OVER_LIMIT, seat, number, hand_index, d)
            state.hands[seat] = kept
            if logging:
                _log(state, EV_KNOCK, seat, discard, -1)
            outcome = _score(state, rules, tab, seat, upcard, dealer)
            _finish(state, cols, row, number, hand_index, dealer, upcard, seat, outcome)
            return ERR_NONE
        if decision == BIG_GIN:
            if rules[L.R_BIG_GIN_BONUS] == 0 or min_deadwood_one(state.hands[seat], tab) != 0:
                return _fail(state, ERR_BAD_BIG_GIN, seat, number, hand_index, discard)
            if logging:
                _log(state, EV_BIG_GIN, seat, -1, -1)
            outcome = _score(state, rules, tab, seat, upcard, dealer)
            _finish(state, cols, row, number, hand_index, dealer, upcard, seat, outcome)
            return ERR_NONE
        if decision != CONTINUE:
            return _fail(state, ERR_BAD_KNOCK_CODE, seat, number, hand_index, decision)
        bit = np.int64(1) << discard
        state.hands[seat] &= ~bit
        state.pile[c[0]] = discard
        c[0] += 1
        state.discarded[seat] |= bit
        state.taken[seat] &= ~bit
        if logging:
            _log(state, EV_DISCARD, seat, discard, -1)
        if rules[L.R_STOCK_EXHAUSTION] == L.EXHAUST_DEAD_HAND and c[2] - c[1] <= rules[L.R_WALL]:
            if logging:
                _log(state, EV_DEAD_HAND, -1, -1, -1)
            _finish(state, cols, row, number, hand_index, dealer, upcard, -1, L.DEAD_HAND)
            return ERR_NONE
        if c[3] >= MAX_TURNS:
            outcome = _score(state, rules, tab, -1, upcard, dealer)
            _finish(state, cols, row, number, hand_index, dealer, upcard, -1, outcome)
            return ERR_NONE
        seat = (seat + 1) % players


@njit(cache=True, parallel=True)
def play_deals(rules, tab, key, first_number, sids, params, cols, n_blocks, errors):
    """Play single hands ``first_number + i`` for every row i of ``cols``.

    Each hand is dealt by the last seat (seat 0 moves first) and depends only on its
    number, so the split into ``n_blocks`` (one working state each, run in parallel)
    changes nothing in the results. ``errors`` int64[n_blocks, 8] receives the first
    illegal decision of each block (code 0: none).
    """
    players = rules[L.R_PLAYERS]
    n = cols.number.shape[0]
    scores = np.zeros(players, np.int64)
    size = (n + n_blocks - 1) // n_blocks
    for b in prange(n_blocks):
        owner = _new_state(players)
        state = _borrowed_state(owner)
        for i in range(b * size, min(n, (b + 1) * size)):
            err = play_hand(
                borrow(rules), borrow(tab), key, first_number + i, 0, players - 1,
                borrow(sids), borrow(params), borrow(scores), state, cols, i, False,
            )
            if err != ERR_NONE:
                for k in range(8):
                    errors[b, k] = state.error[k]
                break
        owner.counters[7] = 0  # keeps the owner (and so the borrowed views) alive to here
