"""The round engine: one hand of Knock Rummy or Gin, played by strategy hooks.

This module follows ``docs/ENGINE.md`` step by step (deal, upcard option, draws,
stock rebuilds, discards, knocks, dead hands, the showdown); ``tests/reference/
engine_ref.py`` is its pure-Python twin and the tests compare the two draw by draw.

Strategy dispatch
-----------------
The hooks are called through ``hook_take``, ``hook_discard`` and ``hook_knock``,
which branch on a strategy id per seat. The versions below are stand-ins: the rollout
policy of ``kernels/rollout.py`` in every seat, so this module is an engine of its own,
the one ``mc``'s and ``rummy advise``'s rollouts play (``kernels/mc.py``). For
strategies, ``sim/engine_build.py`` writes a module made of a real dispatcher (every
registered strategy, by id) followed by this file's source, so that numba compiles the
hooks into the loop and caches the result on disk (a dispatcher passed as an argument,
or a closure, would be recompiled in every process). A line-up is then plain data:
strategy ids and parameter rows per seat, so a new line-up or new parameter values never
recompile.

Conventions
-----------
* ``rules``: int64 rule vector; ``tab``: solver tables; masks are int64.
* ``state``: a :class:`HandState` of arrays allocated once per block of hands.
* Per-hand results go to the columns of a :class:`HandColumns` at ``row``.
* Return value of ``play_hands``: 0, or an ``ERR_*`` code with details in ``state.error``.

Compile time
------------
Numba compiles a jitted callee once more for every literal argument value it sees
(``-1``, ``0``, ``False``, a phase constant), and every caller re-optimizes all the code
it links. So the heavy callees are pieces (``kernels/link.py``): the showdown and its
parts, the best discard, the least removals and ``mc``'s hooks are compiled once on
their own (in parallel, ``sim/warm.py``) and called through a slot; only the least
deadwood, whose inlined natural path pays, is compiled into the loop. So the loop passes
typed values (``none``, ``np.int64(0)``), counters start typed, and the small helpers
(``_log``, ``_observe``, ``_fail``, ``_score``, ``play_game``) are inlined; the take
hook has a single call site. Outside the loop (``decide``, ``mc``'s replays of an
opponent's turns) the hooks are asked through ``ask_take``, ``ask_discard`` and
``ask_knock``, each compiled once, rather than every strategy's dispatch inlined at each
call site. Numba's inlining copies the inlined function's IR block by block, each copy
with the whole scope, so it costs time in the square of the function's size: the hand's
body is written in the loop of ``play_hands`` itself, which Python calls directly (a
jitted wrapper would re-optimize the whole engine once more), and games and replays call
the same compiled loop with one row. Whether to write the event log is a type (None or
True), not a value: the deals' loop has none of its branches (a runtime flag measured
3-7% slower). Each of these choices shortens the engine's cold start; docs/ENGINE.md
("Compile time") has the figures and the commands that measure them.
"""

from typing import NamedTuple

import numpy as np
from numba import njit

from kernels import layout as L
from kernels import probe as P
from kernels import rollout
from kernels.bits import popcount
from kernels.borrow import borrow, borrow_row, stack_empty
from kernels.chart import (
    CHART_DISCARD,
    CHART_DRAW,
    CHART_KNOCK,
    draw_class,
    interested,
    take_saving,
)
from kernels.deadwood import best_discard_one, min_deadwood_one
from kernels.layout import DECK_CAPACITY
from kernels.melds import MAX_MELDS_PER_ARRANGEMENT
from kernels.obs import (
    BIG_GIN,
    CONTINUE,
    GAME_HANDS,
    GAME_OPP_GINS,
    GAME_OPP_KNOCKS,
    KNOCK,
    PHASE_DISCARD,
    PHASE_DRAW,
    PHASE_UPCARD_OPTION,
    SCRATCH_HAND,
    SCRATCH_SIZE,
    Obs,
    forbidden_discard,
)
from kernels.rng import (
    PURPOSE_DEAL,
    PURPOSE_FIRST_DEALER,
    PURPOSE_RESHUFFLE,
    PURPOSE_STRATEGY,
    below,
    make_stream,
    shuffle,
    stream_key,
)
from kernels.showdown import big_gin_ready, knock_within_limit, showdown
from kernels.view import (
    V_DEALER,
    V_DRAWN,
    V_FROM_PILE,
    V_HAND,
    V_KEY,
    V_PHASE,
    V_PILE_N,
    V_PLAYERS,
    V_REBUILDS,
    V_REBUILT,
    V_SEAT,
    V_STOCK,
    V_TURN,
    V_UPCARD,
    unpack,
)

MAX_TURNS = 1000  # a hand that could never end is cut here (rebuilds are bounded)
MAX_PLAYERS = 6

ERR_NONE = 0
ERR_NOT_HELD = 1  # discard of a card the seat does not hold
ERR_FORBIDDEN = 2  # discard of the card just taken from the pile
ERR_KNOCK_OVER_LIMIT = 3  # knock with deadwood above the limit
ERR_BAD_BIG_GIN = 4  # big gin not allowed or not all melded
ERR_BAD_KNOCK_CODE = 5  # knock hook returned something else than 0, 1, 2
ERR_CARDS_LOST = 6  # the end-of-hand check found a card missing or in two places
ERROR_NAMES = (
    "none",
    "discarded a card it does not hold",
    "discarded the card it just took from the pile",
    "knocked with deadwood above the knock limit",
    "claimed big gin illegally",
    "returned an unknown knock decision",
    "left the cards inconsistent (an engine bug: please report it)",
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

    stock: np.ndarray  # int64[DECK_CAPACITY]; stock[stock_top:stock_end], top first
    pile: np.ndarray  # int64[DECK_CAPACITY]; bottom to top
    hands: np.ndarray  # int64[players]
    taken: np.ndarray  # int64[players]
    discarded: np.ndarray  # int64[players]
    scratch: np.ndarray  # int64[players, SCRATCH_SIZE]
    deadwood: np.ndarray  # int64[players]
    laid: np.ndarray  # int64[players]
    points: np.ndarray  # int64[players]
    seat_keys: np.ndarray  # uint64[players]: each seat's strategy stream for this hand
    knocker_melds: np.ndarray  # int64[MAX_MELDS_PER_ARRANGEMENT]
    counters: np.ndarray  # int64[8]: the C_* slots of kernels/layout.py
    error: np.ndarray  # int64[8]: code, seat, number, hand_index, turn, value
    log: np.ndarray  # int64[LOG_CAPACITY, 4]


class HandColumns(NamedTuple):
    """Per-hand results, one row per hand (columnar: turned into Arrow as is)."""

    number: np.ndarray  # int64
    hand_index: np.ndarray  # int32
    dealer: np.ndarray  # int8
    upcard: np.ndarray  # int8
    knocker: np.ndarray  # int8 (-1: none)
    winner: np.ndarray  # int8: the hand's winner (-1: none), see ``hand_winner``
    outcome: np.ndarray  # int8 (kernels.layout outcome codes)
    turns: np.ndarray  # int16
    stock_left: np.ndarray  # int8
    rebuilds: np.ndarray  # int8
    deadwood: np.ndarray  # int16[n, players]
    laid_off: np.ndarray  # int8[n, players] (number of cards)
    points: np.ndarray  # int64[n, players] in 1/POINT_SCALE units


def new_state(players: int) -> HandState:
    """Working arrays for hands of ``players`` seats (Python side: ``new_state_nb`` run
    as plain Python, which builds the same numpy arrays without compiling it)."""
    return new_state_nb.py_func(players)


@njit(cache=True)
def new_state_nb(players):
    return HandState(
        np.zeros(DECK_CAPACITY, np.int64),
        np.zeros(DECK_CAPACITY, np.int64),
        np.zeros(players, np.int64),
        np.zeros(players, np.int64),
        np.zeros(players, np.int64),
        np.zeros((players, SCRATCH_SIZE), np.int64),
        np.zeros(players, np.int64),
        np.zeros(players, np.int64),
        np.zeros(players, np.int64),
        np.zeros(players, np.uint64),
        np.zeros(MAX_MELDS_PER_ARRANGEMENT, np.int64),
        np.zeros(8, np.int64),
        np.zeros(8, np.int64),
        np.zeros((LOG_CAPACITY, 4), np.int64),
    )


@njit(cache=True, inline="always")
def borrowed_state(owner):
    """``owner``'s arrays as borrowed views (see ``kernels/borrow.py``); ``owner``
    must stay alive while the views are used."""
    return HandState(
        borrow(owner.stock),
        borrow(owner.pile),
        borrow(owner.hands),
        borrow(owner.taken),
        borrow(owner.discarded),
        borrow(owner.scratch),
        borrow(owner.deadwood),
        borrow(owner.laid),
        borrow(owner.points),
        borrow(owner.seat_keys),
        borrow(owner.knocker_melds),
        borrow(owner.counters),
        borrow(owner.error),
        borrow(owner.log),
    )


@njit(cache=True, inline="always")
def borrowed_columns(owner):
    """``owner``'s result columns as borrowed views (``owner`` must outlive them)."""
    return HandColumns(
        borrow(owner.number),
        borrow(owner.hand_index),
        borrow(owner.dealer),
        borrow(owner.upcard),
        borrow(owner.knocker),
        borrow(owner.winner),
        borrow(owner.outcome),
        borrow(owner.turns),
        borrow(owner.stock_left),
        borrow(owner.rebuilds),
        borrow(owner.deadwood),
        borrow(owner.laid_off),
        borrow(owner.points),
    )


@njit(cache=True)
def one_row(players):
    """Result columns for one hand (a game's hands, a rollout), made in jitted code."""
    return HandColumns(
        np.zeros(1, np.int64),
        np.zeros(1, np.int32),
        np.zeros(1, np.int8),
        np.zeros(1, np.int8),
        np.zeros(1, np.int8),
        np.zeros(1, np.int8),
        np.zeros(1, np.int8),
        np.zeros(1, np.int16),
        np.zeros(1, np.int8),
        np.zeros(1, np.int8),
        np.zeros((1, players), np.int16),
        np.zeros((1, players), np.int8),
        np.zeros((1, players), np.int64),
    )


def new_columns(n: int, players: int) -> HandColumns:
    """Empty result columns for ``n`` hands."""
    return HandColumns(
        number=np.zeros(n, np.int64),
        hand_index=np.zeros(n, np.int32),
        dealer=np.zeros(n, np.int8),
        upcard=np.zeros(n, np.int8),
        knocker=np.zeros(n, np.int8),
        winner=np.zeros(n, np.int8),
        outcome=np.zeros(n, np.int8),
        turns=np.zeros(n, np.int16),
        stock_left=np.zeros(n, np.int8),
        rebuilds=np.zeros(n, np.int8),
        deadwood=np.zeros((n, players), np.int16),
        laid_off=np.zeros((n, players), np.int8),
        points=np.zeros((n, players), np.int64),
    )


# --- hooks: replaced by the generated dispatcher (sim/engine_build.py) -------------
# Stand-ins: the rollout policy (kernels/rollout.py) in every seat. This module's own
# engine plays the rollouts of mc and rummy advise (kernels/mc.py).


@njit(cache=True, inline="always")
def hook_take(sid, obs, params, scratch):
    return rollout.take(obs, params, scratch)


@njit(cache=True, inline="always")
def hook_discard(sid, obs, params, scratch):
    return rollout.discard(obs, params, scratch)


@njit(cache=True, inline="always")
def hook_knock(sid, obs, params, scratch, discard):
    return rollout.knock(obs, params, scratch, discard)


# --- end hooks ------------------------------------------------------------------------


# The hooks once more, each compiled once, for the callers outside the loop ("Compile
# time" above): there a call costs nothing next to the hook it makes.
@njit(cache=True)
def ask_take(sid, obs, params, scratch):
    return hook_take(sid, obs, params, scratch)


@njit(cache=True)
def ask_discard(sid, obs, params, scratch):
    return hook_discard(sid, obs, params, scratch)


@njit(cache=True)
def ask_knock(sid, obs, params, scratch, discard):
    return hook_knock(sid, obs, params, scratch, discard)


@njit(cache=True, inline="always")
def view_obs(view, pile, seats, rules, tab):
    """The ``Obs`` of a seat's view (``kernels/view.py``), its arrays in ``pile`` and
    ``seats``: stack arrays of the caller's frame (``stack_empty``), not the heap: the
    Obs holds borrowed views, which keep nothing alive, and numba frees a heap array
    at its last use in a function, before a hook has read it (kernels/borrow.py)."""
    players = view[V_PLAYERS]
    pile[:] = 0
    seats[:] = 0
    taken, discarded, scores = seats[0, :players], seats[1, :players], seats[2, :players]
    unpack(view, pile, taken, discarded, scores)
    return Obs(
        view[V_SEAT],
        players,
        view[V_HAND],
        borrow(pile),
        view[V_PILE_N],
        borrow(taken),
        borrow(discarded),
        view[V_STOCK],
        view[V_REBUILDS],
        view[V_REBUILT],
        view[V_TURN],
        view[V_PHASE],
        view[V_UPCARD],
        view[V_DRAWN],
        view[V_FROM_PILE] != 0,
        view[V_DEALER],
        borrow(rules),
        borrow(scores),
        tab,
        np.uint64(view[V_KEY]),
    )


@njit(cache=True)
def decide(what, sids, params, scratch, view, rules, tab, discard):
    """One decision of strategy ``sids[0]`` (parameters ``params[0]``, memory
    ``scratch[0]``, which it updates) from a seat's view (``kernels/view.py``), by the
    hooks the loop calls: ``what`` 0 take (returns 0/1), 1 discard (the card), 2 knock
    (the decision on ``discard``). For ``rummy.player``: the same hook, the same
    ``Obs`` and so the same answer as in the engine."""
    pile = stack_empty(DECK_CAPACITY, 0)
    seats = stack_empty(3, MAX_PLAYERS)
    obs = view_obs(view, pile, seats, rules, tab)
    sid = sids[0]
    p, s = borrow_row(params, 0), borrow_row(scratch, 0)
    if what == 0:
        return np.int64(1) if ask_take(sid, obs, p, s) else np.int64(0)
    if what == 1:
        return np.int64(ask_discard(sid, obs, p, s))
    return np.int64(ask_knock(sid, obs, p, s, discard))


@njit(cache=True, inline="always")
def _log(state, code, seat, card, extra):
    n = state.counters[L.C_EVENTS]
    if n < state.log.shape[0]:
        state.log[n, 0] = code
        state.log[n, 1] = seat
        state.log[n, 2] = card
        state.log[n, 3] = extra
        state.counters[L.C_EVENTS] = n + 1


@njit(cache=True, inline="always")
def discard_card(state, seat, card):
    """``seat`` throws ``card`` on the pile: out of its hand and of the cards it is seen
    to hold, into what it discarded this hand (the engine's and ``mc``'s actions)."""
    bit = np.int64(1) << card
    state.hands[seat] &= ~bit
    state.taken[seat] &= ~bit
    state.discarded[seat] |= bit
    c = state.counters
    state.pile[c[L.C_PILE]] = card
    c[L.C_PILE] += 1


@njit(cache=True, inline="always")
def take_pile_card(state, seat):
    """``seat`` takes the pile's top card, seen by all: returns it (the caller puts it
    in the hand and counts the draw)."""
    c = state.counters
    c[L.C_PILE] -= 1
    card = state.pile[c[L.C_PILE]]
    state.taken[seat] |= np.int64(1) << card
    return card


@njit(cache=True, inline="always")
def dead_at_wall(rules, stock_n):
    """True when a discard with ``stock_n`` cards left in the stock ends a dead hand (the
    rules' wall: RULES.md, stock exhaustion)."""
    return rules[L.R_STOCK_EXHAUSTION] == L.EXHAUST_DEAD_HAND and stock_n <= rules[L.R_WALL]


@njit(cache=True, inline="always")
def _left_of(seat, players):
    """The next seat to the left (a compare, not the division ``%`` compiles to)."""
    nxt = seat + 1
    return nxt if nxt < players else nxt - players


@njit(cache=True, inline="always")
def _observe(state, seat, phase, upcard, drawn, from_pile, dealer, rules, scores, tab):
    """The Obs of one seat: its own hand and public facts only."""
    c = state.counters
    return Obs(
        seat,
        state.hands.shape[0],
        state.hands[seat],
        state.pile,
        c[L.C_PILE],
        state.taken,
        state.discarded,
        c[L.C_STOCK_END] - c[L.C_STOCK_TOP],
        c[L.C_REBUILDS],
        c[L.C_REBUILT],
        c[L.C_TURNS],
        phase,
        upcard,
        drawn,
        from_pile,
        dealer,
        rules,
        scores,
        tab,
        state.seat_keys[seat],
    )


@njit(cache=True, inline="always")
def _fail(state, code, seat, number, hand_index, value):
    e = state.error
    e[0] = code
    e[1] = seat
    e[2] = number
    e[3] = hand_index
    e[4] = state.counters[L.C_TURNS]
    e[5] = value
    return code


@njit(cache=True)
def _rebuild(state, rules, key, number, hand_index):
    """Turn every pile card but the top into a new stock (RULES.md stock_exhaustion)."""
    c = state.counters
    n = c[L.C_PILE] - 1
    c[L.C_REBUILT] = 0
    for i in range(n):
        state.stock[i] = state.pile[i]  # bottom (oldest) first: the new top
        c[L.C_REBUILT] |= np.int64(1) << state.pile[i]
    state.pile[0] = state.pile[n]
    c[L.C_PILE] = 1
    c[L.C_REBUILDS] += 1
    if rules[L.R_STOCK_EXHAUSTION] == L.EXHAUST_RESHUFFLE:
        skey = stream_key(key, number, make_stream(PURPOSE_RESHUFFLE, hand_index, c[L.C_REBUILDS]))
        shuffle(state.stock, n, skey)
    c[L.C_STOCK_TOP] = 0
    c[L.C_STOCK_END] = n


@njit(cache=True)
def hand_winner(outcome, knocker, dealer, deadwood):
    """Who won the hand (for dealer rules and Gin boxes), -1 for nobody.

    The knocker after a knock win, rummy, gin or big gin; after an undercut the first
    seat from the knocker's left with the least deadwood (the defender in Gin); after
    an exhausted showdown the first seat from the dealer's left with the least
    deadwood, or nobody when every seat holds it; nobody after a tie or a dead hand.
    """
    players = deadwood.shape[0]
    if outcome == L.KNOCK_WIN or outcome == L.RUMMY or outcome == L.GIN or outcome == L.BIG_GIN:
        return knocker
    if outcome == L.UNDERCUT or outcome == L.EXHAUSTED:
        first = knocker + 1 if outcome == L.UNDERCUT else dealer + 1
        candidates = players - 1 if outcome == L.UNDERCUT else players
        least = np.int64(1) << 40
        for i in range(candidates):
            least = min(least, deadwood[(first + i) % players])
        if outcome == L.EXHAUSTED:
            everyone = True
            for seat in range(players):
                everyone = everyone and deadwood[seat] == least
            if everyone:
                return -1
        for i in range(candidates):
            if deadwood[(first + i) % players] == least:
                return (first + i) % players
    return -1


@njit(cache=True)
def _cards_conserved(hands, pile, stock, c, laid_away):
    """Every card of the deck is in exactly one place: a hand, the pile, the stock or
    (after a knock) laid away face down. (Only the arrays it reads are passed: every
    array argument is seven machine words.)"""
    seen = np.int64(0)
    count = 0
    for seat in range(hands.shape[0]):
        seen |= hands[seat]
        count += popcount(hands[seat])
    for i in range(c[L.C_PILE]):
        seen |= np.int64(1) << pile[i]
    for i in range(c[L.C_STOCK_TOP], c[L.C_STOCK_END]):
        seen |= np.int64(1) << stock[i]
    count += c[L.C_PILE] + c[L.C_STOCK_END] - c[L.C_STOCK_TOP]
    if laid_away >= 0:
        seen |= np.int64(1) << laid_away
        count += 1
    n_cards = c[L.C_DECK]
    return count == n_cards and seen == (np.int64(1) << n_cards) - 1


@njit(cache=True, inline="always")
def _finish(state, cols, row, number, hand_index, dealer, upcard, knocker, outcome, laid_away):
    """Write the hand's row."""
    c = state.counters
    players = state.hands.shape[0]
    if outcome == L.DEAD_HAND:
        cols.winner[row] = -1
    else:
        cols.winner[row] = hand_winner(outcome, knocker, dealer, state.deadwood)
    cols.number[row] = number
    cols.hand_index[row] = hand_index
    cols.dealer[row] = dealer
    cols.upcard[row] = upcard
    cols.knocker[row] = knocker
    cols.outcome[row] = outcome
    cols.turns[row] = c[L.C_TURNS]
    cols.stock_left[row] = c[L.C_STOCK_END] - c[L.C_STOCK_TOP]
    cols.rebuilds[row] = c[L.C_REBUILDS]
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


@njit(cache=True, inline="always")
def _score(state, rules, tab, knocker, knocker_deadwood, upcard, dealer):
    outcome, _ = showdown(
        rules,
        state.hands,
        knocker,
        knocker_deadwood,
        upcard,
        dealer,
        tab,
        state.deadwood,
        state.laid,
        state.points,
        state.knocker_melds,
    )
    return outcome


@njit(cache=True, nogil=True)
def play_hands(
    rules,
    tab,
    key,
    first_number,
    hand_index,
    dealer,
    sids,
    params,
    scores,
    state,
    cols,
    begin,
    end,
    log_events,
    probe,
):
    """Play hands ``first_number + row`` into rows ``begin .. end-1`` of ``cols``.

    ``state`` is a :func:`new_state`, ``cols`` a :func:`new_columns`; ``log_events`` is
    None (the event-log branches compile away) or True (a replay); ``probe`` is None
    (likewise) or a ``kernels.probe.Probe``: one seat's decisions of one kind counted,
    forced or played both ways from the true state (strategy charts); it may stop
    before a deal for room in its rows (``PU_NEXT``). Returns 0, or the ``ERR_*`` code
    of the first illegal decision (details in ``state.error``; that hand's row is not
    written). The same compiled loop plays blocks of single deals (called from Python:
    the GIL is released) and the hands of games (one row each). The hand's body is
    written here, not inlined from a helper, and no wrapper calls this from Python: see
    "Compile time" above.
    """
    # Borrowed views (kernels/borrow.py): no reference counting in the loop. The
    # caller's arrays outlive this call.
    rules, tab, sids = borrow(rules), borrow(tab), borrow(sids)
    params, scores = borrow(params), borrow(scores)
    state, cols = borrowed_state(state), borrowed_columns(cols)
    players = state.hands.shape[0]
    n_cards = 52 + rules[L.R_JOKERS]
    dealt = players * rules[L.R_HAND_SIZE]
    none = np.int64(-1)  # typed, not a literal (see "Compile time" above)
    c = state.counters
    # The deck is shuffled in the stock's array: after the dealt cards and the upcard,
    # the rest is the stock as it lies.
    deck = state.stock
    focal = none
    kind = none
    if probe is not None:
        focal = probe.config[P.PC_FOCAL]
        kind = probe.config[P.PC_KIND]
        probe.cursor[P.PU_NEXT] = end
    for row in range(begin, end):
        number = first_number + row
        play_key = key  # the key of this play's reshuffles (a probe's samples: their own)
        # A probe's replay of the hand from its saved position, and a resumed hand, may
        # start at the discard decision instead of a draw; ``force`` overrides the seat's
        # choice at the decision it is set for (kernels/probe.py).
        at_discard = False
        force = none
        card = none
        from_pile = False
        if probe is not None and probe.config[P.PC_RESUME] != 0:
            # Play on from ``state`` as it is (rollouts, kernels/mc.py): no deal.
            P.start_hand(probe)
            u = probe.cursor
            upcard, seat, asking = u[P.PU_UPCARD], u[P.PU_SEAT], u[P.PU_ASKING]
            stock_next, at_discard = u[P.PU_STOCK_NEXT] != 0, u[P.PU_AT_DISCARD] != 0
            card, from_pile = u[P.PU_DRAWN], u[P.PU_FROM_PILE] != 0
            for s in range(players):  # the seats' streams, as a deal sets them
                state.seat_keys[s] = stream_key(
                    key, number, make_stream(PURPOSE_STRATEGY, hand_index, s)
                )
        else:
            if probe is not None:
                if not P.room_for_a_deal(probe):
                    probe.cursor[P.PU_NEXT] = row
                    break
                P.start_hand(probe)
            for i in range(8):
                c[i] = 0
            c[L.C_DECK] = n_cards
            # The deal (docs/ENGINE.md "The deal").
            for i in range(n_cards):
                deck[i] = i
            deal_key = stream_key(key, number, make_stream(PURPOSE_DEAL, hand_index, 0))
            shuffle(deck, n_cards, deal_key)
            for seat in range(players):
                state.hands[seat] = 0
                state.taken[seat] = 0
                state.discarded[seat] = 0
                seat_stream = make_stream(PURPOSE_STRATEGY, hand_index, seat)
                state.seat_keys[seat] = stream_key(key, number, seat_stream)
                # The hand's memory; the game's too at a game's first hand (or a deal).
                scratch = borrow_row(state.scratch, seat)  # a unit-stride row: one memset
                for k in range(SCRATCH_SIZE if hand_index == 0 else SCRATCH_HAND):
                    scratch[k] = 0
            seat = _left_of(dealer, players)
            for k in range(dealt):
                state.hands[seat] |= np.int64(1) << deck[k]
                seat = _left_of(seat, players)
            upcard = deck[dealt]
            state.pile[0] = upcard
            c[L.C_PILE] = 1
            c[L.C_STOCK_TOP] = dealt + 1
            c[L.C_STOCK_END] = n_cards
            if log_events is not None:
                for seat in range(players):
                    _log(state, EV_DEAL, seat, -1, state.hands[seat])
                _log(state, EV_UPCARD, -1, upcard, -1)
            seat = (dealer + 1) % players
            # Both passed the upcard: the non-dealer draws from the stock.
            stock_next = False
            # The Gin upcard option asks the non-dealer, then the dealer, whether to take
            # the upcard; a pass draws nothing. It shares the draw's single take call (one
            # inlined copy of every strategy's take hook, not three).
            asking = 2 if rules[L.R_UPCARD_OPTION] == 1 else 0  # option questions left
        while True:  # the hand; again from a saved position for each of a probe's branches
            # How the hand ends (set before leaving the loop): the knocker (none: a
            # showdown after the stock ran out or the turn guard), the card it laid away,
            # a dead hand.
            knocker = none
            knocker_deadwood = none
            laid_away = none
            dead = False
            while True:
                if at_discard:
                    at_discard = False  # the drawn card is the saved one
                else:
                    # --- draw ---
                    if stock_next or c[L.C_PILE] == 0:
                        from_pile = False
                    else:
                        phase = PHASE_UPCARD_OPTION if asking > 0 else PHASE_DRAW
                        watched = False  # a position of a probe's draw chart
                        if probe is not None and kind == CHART_DRAW and seat == focal:
                            watched = phase == PHASE_DRAW
                            u = probe.cursor
                            if watched and u[P.PU_BRANCH] < 0 and u[P.PU_AT] != c[L.C_TURNS]:
                                top = state.pile[c[L.C_PILE] - 1]
                                column = draw_class(rules, tab, state.hands[seat], top)
                                force = P.met(probe, number, u[P.PU_OWN] + 1, column, top,
                                              c[L.C_TURNS])  # fmt: skip
                                if u[P.PU_BRANCH] == 0:
                                    P.save(probe, state.stock, state.pile, state.hands,
                                           state.taken, state.discarded, state.scratch, c,
                                           seat, none, False)  # fmt: skip
                        obs = _observe(
                            state, seat, phase, upcard, none, False, dealer, rules, scores, tab
                        )
                        from_pile = hook_take(
                            sids[seat], obs, borrow_row(params, seat),
                            borrow_row(state.scratch, seat),
                        )  # fmt: skip
                        if probe is not None and watched:
                            if force != none:
                                from_pile = force == P.FORCE_FIRST
                                force = none
                            elif probe.cursor[P.PU_ROW] >= 0 and probe.cursor[P.PU_BRANCH] < 0:
                                P.chose(probe, from_pile)
                        if asking > 0:
                            asking -= 1
                            if not from_pile:
                                if log_events is not None:
                                    _log(state, EV_PASS, seat, upcard, -1)
                                if asking == 1:
                                    seat = dealer  # the non-dealer passed: ask the dealer
                                else:
                                    seat = _left_of(dealer, players)  # both passed
                                    stock_next = True
                                continue
                            asking = 0
                    stock_next = False
                    if from_pile:
                        card = take_pile_card(state, seat)
                        if log_events is not None:
                            _log(state, EV_DRAW_PILE, seat, card, -1)
                    else:
                        if c[L.C_STOCK_TOP] == c[L.C_STOCK_END]:
                            # The stock is empty: rebuild it, or end the hand (RULES.md).
                            if (
                                c[L.C_REBUILDS] >= rules[L.R_MAX_REBUILDS]
                                or c[L.C_PILE] <= 1
                                or rules[L.R_STOCK_EXHAUSTION] == L.EXHAUST_DEAD_HAND
                            ):
                                if log_events is not None:
                                    _log(state, EV_EXHAUSTED, -1, -1, -1)
                                break  # a showdown with no knocker
                            _rebuild(state, rules, play_key, number, hand_index)
                            if log_events is not None:
                                _log(state, EV_REBUILD, -1, -1, c[L.C_REBUILDS])
                        card = state.stock[c[L.C_STOCK_TOP]]
                        c[L.C_STOCK_TOP] += 1
                        if log_events is not None:
                            _log(state, EV_DRAW_STOCK, seat, card, -1)
                    if probe is not None:
                        u = probe.cursor
                        if seat == focal:
                            u[P.PU_OWN] += 1
                        elif from_pile:
                            u[P.PU_TOOK] += 1
                        if u[P.PU_PENDING] >= 0 and seat == _left_of(focal, players):
                            took_it = from_pile and card == u[P.PU_PENDING]
                            saved = np.int64(0)
                            if took_it:  # what the card saved the seat that took it
                                saved = take_saving(rules, tab, state.hands[seat], card)
                            P.discard_fate(probe, number, took_it, saved)
                    state.hands[seat] |= np.int64(1) << card
                    c[L.C_TURNS] += 1

                # --- discard, knock ---
                watched = False  # a position of a probe's knock chart
                best = none
                if probe is not None and kind == CHART_KNOCK and seat == focal:
                    u = probe.cursor
                    if u[P.PU_BRANCH] < 0 and u[P.PU_AT] != c[L.C_TURNS]:
                        hand = state.hands[seat]
                        taken_back = from_pile and rules[L.R_DISCARD_TAKEN_CARD] == 0
                        best, d = best_discard_one(hand, card if taken_back else none, tab)
                        big_gin = d == 0 and big_gin_ready(rules, hand, tab)
                        if knock_within_limit(rules, upcard, d) and not big_gin:
                            u[P.PU_BEST] = best
                            force = P.met(probe, number, u[P.PU_OWN], d, best, c[L.C_TURNS])
                            if u[P.PU_BRANCH] == 0:
                                P.save(probe, state.stock, state.pile, state.hands,
                                       state.taken, state.discarded, state.scratch, c, seat,
                                       card, from_pile)  # fmt: skip
                    watched = u[P.PU_AT] == c[L.C_TURNS] and (force != none or u[P.PU_ROW] >= 0)
                obs = _observe(
                    state, seat, PHASE_DISCARD, upcard, card, from_pile, dealer, rules, scores, tab
                )
                if probe is not None and watched and force == P.FORCE_FIRST:
                    # Knock laying the best discard away (the hand ends: no hook is asked).
                    force = none
                    discard = probe.cursor[P.PU_BEST]
                    decision = np.int64(KNOCK)
                else:
                    discard = hook_discard(
                        sids[seat], obs, borrow_row(params, seat), borrow_row(state.scratch, seat)
                    )
                    held = (state.hands[seat] >> discard) & 1
                    if discard < 0 or discard >= DECK_CAPACITY or not held:
                        return _fail(state, ERR_NOT_HELD, seat, number, hand_index, discard)
                    if discard == forbidden_discard(obs):
                        return _fail(state, ERR_FORBIDDEN, seat, number, hand_index, discard)
                    decision = hook_knock(
                        sids[seat], obs, borrow_row(params, seat),
                        borrow_row(state.scratch, seat), discard,
                    )  # fmt: skip
                    if probe is not None and watched:
                        if force == P.FORCE_SECOND:
                            force = none
                            decision = np.int64(CONTINUE)
                        elif probe.cursor[P.PU_ROW] >= 0 and probe.cursor[P.PU_BRANCH] < 0:
                            P.chose(probe, decision == KNOCK)
                if decision == KNOCK:
                    kept = state.hands[seat] & ~(np.int64(1) << discard)
                    knocker_deadwood = min_deadwood_one(kept, tab)  # the showdown's too
                    if not knock_within_limit(rules, upcard, knocker_deadwood):
                        return _fail(
                            state, ERR_KNOCK_OVER_LIMIT, seat, number, hand_index, knocker_deadwood
                        )
                    state.hands[seat] = kept
                    if log_events is not None:
                        _log(state, EV_KNOCK, seat, discard, -1)
                    knocker = seat
                    laid_away = discard
                    break
                if decision == BIG_GIN:
                    all_melded = min_deadwood_one(state.hands[seat], tab) == 0
                    if rules[L.R_BIG_GIN_BONUS] == 0 or not all_melded:
                        return _fail(state, ERR_BAD_BIG_GIN, seat, number, hand_index, discard)
                    if log_events is not None:
                        _log(state, EV_BIG_GIN, seat, -1, -1)
                    knocker = seat
                    knocker_deadwood = np.int64(0)
                    break
                if decision != CONTINUE:
                    return _fail(state, ERR_BAD_KNOCK_CODE, seat, number, hand_index, decision)
                discard_card(state, seat, discard)
                if log_events is not None:
                    _log(state, EV_DISCARD, seat, discard, -1)
                if probe is not None and kind == CHART_DISCARD and seat == focal:
                    nxt = _left_of(seat, players)
                    interest = 1 if interested(state.taken[nxt], discard, tab) else 0
                    column = 13 if discard >= 52 else discard % 13
                    P.discard_met(probe, discard, interest, column)
                if dead_at_wall(rules, c[L.C_STOCK_END] - c[L.C_STOCK_TOP]):
                    if log_events is not None:
                        _log(state, EV_DEAD_HAND, -1, -1, -1)
                    dead = True
                    break
                if c[L.C_TURNS] >= MAX_TURNS:
                    break  # a showdown with no knocker
                seat = _left_of(seat, players)

            # One exit for every way a hand ends: one call site of the showdown and one of
            # the row writer (less code to compile; inlining the writer measured slower).
            if dead:
                outcome = np.int64(L.DEAD_HAND)
            else:
                outcome = _score(state, rules, tab, knocker, knocker_deadwood, upcard, dealer)
            if not _cards_conserved(state.hands, state.pile, state.stock, c, laid_away):
                return _fail(state, ERR_CARDS_LOST, max(knocker, 0), number, hand_index, outcome)
            if probe is not None and probe.cursor[P.PU_BRANCH] >= 0:
                # A branch of the position ended: record it, play the next (or the real play).
                net, won = np.int64(0), np.int64(0)
                if not dead:
                    net = P.net_units(state.points, focal)
                    won = np.int64(hand_winner(outcome, knocker, dealer, state.deadwood) == focal)
                sample, action = P.branch_done(probe, net, won)
                salt = P.restore(probe, state.stock, state.pile, state.hands, state.taken,
                                 state.discarded, state.scratch, c, rules, number,
                                 sample)  # fmt: skip
                play_key = key if sample <= 0 else salt
                u = probe.cursor
                seat = u[P.PU_SEAT]
                card = u[P.PU_DRAWN]
                from_pile = u[P.PU_FROM_PILE] != 0
                at_discard = kind == CHART_KNOCK
                asking = 0
                stock_next = False
                force = action if action >= 0 else none
                continue
            break
        _finish(state, cols, row, number, hand_index, dealer, upcard, knocker, outcome, laid_away)
        # The game's memory: how the hand ended, as every seat saw it (kernels/obs.py).
        went_out = outcome == L.GIN or outcome == L.BIG_GIN or outcome == L.RUMMY
        for seat in range(players):
            scratch = borrow_row(state.scratch, seat)
            scratch[GAME_HANDS] += 1
            if knocker >= 0 and knocker != seat:
                scratch[GAME_OPP_GINS if went_out else GAME_OPP_KNOCKS] += 1
    return ERR_NONE


# --- games ------------------------------------------------------------------------------

MAX_GAME_HANDS = 1000  # hands dealt in one game before the guard stops it (winner -1)
N_COLUMNS = 3  # Hollywood: three games scored at once


class GameColumns(NamedTuple):
    """Per-game results, one row per game (scores in 1/POINT_SCALE units)."""

    number: np.ndarray  # int64
    hands: np.ndarray  # int32: scored hands (dead hands excluded)
    hands_dealt: np.ndarray  # int32
    first_dealer: np.ndarray  # int8
    winner: np.ndarray  # int8 (-1: none)
    points: np.ndarray  # int64[n, players]: cumulative hand points
    scores: np.ndarray  # int64[n, players]: final scores (gin: boxes and bonuses added)
    boxes: np.ndarray  # int32[n, players]: hands won
    columns: np.ndarray  # int64[n, N_COLUMNS, players]: Hollywood column final scores


def new_game_columns(n: int, players: int) -> GameColumns:
    """Empty result columns for ``n`` games."""
    return GameColumns(
        number=np.zeros(n, np.int64),
        hands=np.zeros(n, np.int32),
        hands_dealt=np.zeros(n, np.int32),
        first_dealer=np.zeros(n, np.int8),
        winner=np.zeros(n, np.int8),
        points=np.zeros((n, players), np.int64),
        scores=np.zeros((n, players), np.int64),
        boxes=np.zeros((n, players), np.int32),
        columns=np.zeros((n, N_COLUMNS, players), np.int64),
    )


@njit(cache=True)
def _state_for(state, k):
    """The working state for a hand of ``k`` seats: views of a ``players``-seat state,
    of the same types as a :func:`new_state` (one compile of ``play_hands`` serves
    single deals and games)."""
    return HandState(
        state.stock,
        state.pile,
        state.hands[:k],
        state.taken[:k],
        state.discarded[:k],
        state.scratch[:k],
        state.deadwood[:k],
        state.laid[:k],
        state.points[:k],
        state.seat_keys[:k],
        state.knocker_melds,
        state.counters,
        state.error,
        state.log,
    )


@njit(cache=True)
def _gin_finals(rules, points, boxes, winner, out):
    """Final scores of a closed ``gin:T`` game (RULES.md: boxes, game bonus, shutout)."""
    S = L.POINT_SCALE
    for seat in range(2):
        out[seat] = points[seat] + rules[L.R_BOX_BONUS] * boxes[seat] * S
    bonus = rules[L.R_GAME_BONUS] * S
    if boxes[1 - winner] == 0 and rules[L.R_SHUTOUT] == L.SHUTOUT_DOUBLE:
        out[winner] = 2 * (out[winner] + bonus)
    elif boxes[1 - winner] == 0 and rules[L.R_SHUTOUT] == L.SHUTOUT_BONUS:
        out[winner] += 2 * bonus
    else:
        out[winner] += bonus


@njit(cache=True)
def _first_dealer(key, number, players):
    skey = stream_key(key, number, make_stream(PURPOSE_FIRST_DEALER, 0, 0))
    value, _ = below(skey, 0, players)
    return value


@njit(cache=True)
def _next_active(seat, active):
    """The first seat still in, from ``seat`` itself going left."""
    players = active.shape[0]
    for i in range(players):
        if active[(seat + i) % players]:
            return (seat + i) % players
    return -1


@njit(cache=True, inline="always")
def play_game(rules_by_k, tab, key, number, sids, params, state, one, hands_out, start, games, g):
    """Play game ``number`` (RULES.md "A game of many hands", docs/ENGINE.md "Games").

    ``rules_by_k[k]`` is the rule vector for a hand of k seats (a pool plays on with
    fewer seats). Each hand's row goes to ``hands_out`` at ``start``, ``start + 1``, ...
    in game seats; ``one`` is a one-row scratch ``HandColumns``. The game's row is
    ``g`` of ``games``. Returns ``(rows written, error code)``; rows = -1 when
    ``hands_out`` is too small.
    """
    rules = rules_by_k[rules_by_k.shape[0] - 1]
    players = rules[L.R_PLAYERS]
    mode = rules[L.R_GAME]
    target = rules[L.R_GAME_TARGET] * L.POINT_SCALE
    dealer = _first_dealer(key, number, players)
    games.number[g] = number
    games.first_dealer[g] = dealer
    scores = np.zeros(players, np.int64)
    wins = np.zeros(players, np.int64)
    active = np.ones(players, np.bool_)
    seats = np.zeros(players, np.int64)
    hand_points = np.zeros(players, np.int64)
    col_points = np.zeros((N_COLUMNS, players), np.int64)
    col_boxes = np.zeros((N_COLUMNS, players), np.int64)
    col_winner = np.full(N_COLUMNS, -1, np.int64)
    k_scores = np.zeros(players, np.int64)
    k_sids = np.zeros(players, np.int64)
    # Row k: the parameters of the seat in place k; copied only when a seat moves up (a
    # pool's outs), since seats only leave: place k holds seat k until one below goes.
    k_params = params.copy()
    memory = np.zeros((players, SCRATCH_SIZE - SCRATCH_HAND), np.int64)  # by game seat
    # Counters start typed, not as literals (see "Compile time" above).
    hand_index = np.int64(0)
    scored = 0
    winner = -1
    row = start
    while hand_index < MAX_GAME_HANDS:
        # The seats still in play this hand, in ascending order (all but a pool's outs).
        k = np.int64(0)
        for seat in range(players):
            if active[seat]:
                seats[k] = seat
                k_scores[k] = scores[seat]
                k_sids[k] = sids[seat]
                if seat != k:
                    k_params[k] = params[seat]
                k += 1
        dealt_dealer = np.int64(0)
        for i in range(k):
            if seats[i] == dealer:
                dealt_dealer = i
        for i in range(k):  # each seat's game memory (a pool's seats move up as others go)
            state.scratch[i, SCRATCH_HAND:] = memory[seats[i]]
        err = play_hands(
            rules_by_k[k],
            tab,
            key,
            number,
            hand_index,
            dealt_dealer,
            k_sids[:k],
            k_params[:k],
            k_scores[:k],
            _state_for(state, k),
            one,
            np.int64(0),
            np.int64(1),
            None,
            None,
        )
        for i in range(k):
            memory[seats[i]] = state.scratch[i, SCRATCH_HAND:]
        if err != ERR_NONE:
            return row - start, err
        if row >= hands_out.number.shape[0]:
            return -1, ERR_NONE
        # The hand's row, in game seats.
        hands_out.number[row] = number
        hands_out.hand_index[row] = hand_index
        hands_out.dealer[row] = dealer
        hands_out.upcard[row] = one.upcard[0]
        hands_out.knocker[row] = -1 if one.knocker[0] < 0 else seats[one.knocker[0]]
        hand_winner = -1 if one.winner[0] < 0 else seats[one.winner[0]]
        hands_out.winner[row] = hand_winner
        hands_out.outcome[row] = one.outcome[0]
        hands_out.turns[row] = one.turns[0]
        hands_out.stock_left[row] = one.stock_left[0]
        hands_out.rebuilds[row] = one.rebuilds[0]
        for seat in range(players):
            hands_out.deadwood[row, seat] = -1  # not dealt in (out of a pool)
            hands_out.laid_off[row, seat] = 0
            hands_out.points[row, seat] = 0
            hand_points[seat] = 0
        for i in range(k):
            hands_out.deadwood[row, seats[i]] = one.deadwood[0, i]
            hands_out.laid_off[row, seats[i]] = one.laid_off[0, i]
            hands_out.points[row, seats[i]] = one.points[0, i]
            hand_points[seats[i]] = one.points[0, i]
        row += 1
        hand_index += 1
        if one.outcome[0] == L.DEAD_HAND:
            continue  # the same dealer deals again
        scored += 1
        for seat in range(players):
            scores[seat] += hand_points[seat]
        if hand_winner >= 0:
            wins[hand_winner] += 1

        # Does the game end?
        done = False
        if mode == L.GAME_HAND:
            winner = hand_winner
            done = True
        elif mode == L.GAME_HANDS or mode == L.GAME_MATCH:
            if mode == L.GAME_MATCH or scored >= rules[L.R_GAME_TARGET]:
                top = np.int64(-(1 << 60))
                for seat in range(players):
                    if mode == L.GAME_HANDS or scores[seat] >= target:
                        top = max(top, scores[seat])
                n_top = 0
                for seat in range(players):
                    if (mode == L.GAME_HANDS or scores[seat] >= target) and scores[seat] == top:
                        n_top += 1
                        winner = seat
                if n_top == 1:
                    done = True
                else:
                    winner = -1
        elif mode == L.GAME_POOL:
            left = 0
            for i in range(k):
                if scores[seats[i]] <= -target:
                    active[seats[i]] = False
            for seat in range(players):
                if active[seat]:
                    left += 1
                    winner = seat
            if left == 1:
                done = True
            else:
                winner = -1
        elif mode == L.GAME_GIN:
            top = np.int64(-(1 << 60))
            for seat in range(players):
                if scores[seat] >= target and scores[seat] > top:
                    top = scores[seat]
                    winner = seat
            done = winner >= 0
        elif mode == L.GAME_HOLLYWOOD:
            if hand_winner >= 0:
                for col in range(min(wins[hand_winner], N_COLUMNS)):
                    if col_winner[col] >= 0:
                        continue  # a closed column takes nothing more
                    col_points[col, hand_winner] += hand_points[hand_winner]
                    col_boxes[col, hand_winner] += 1
                    if col_points[col, hand_winner] >= target:
                        col_winner[col] = hand_winner
            done = col_winner[0] >= 0 and col_winner[1] >= 0 and col_winner[2] >= 0
        if done:
            break

        # The next dealer.
        if hand_winner < 0:
            nxt = dealer
        elif rules[L.R_DEALER] == L.DEALER_WINNER:
            nxt = hand_winner
        elif rules[L.R_DEALER] == L.DEALER_LOSER:
            if k == 2:
                nxt = seats[0] if seats[1] == hand_winner else seats[1]
            else:
                nxt = -1
                least = np.int64(1) << 60
                for i in range(k):
                    least = min(least, hand_points[seats[i]])
                for i in range(k):
                    seat = seats[(dealt_dealer + 1 + i) % k]
                    if nxt < 0 and hand_points[seat] == least:
                        nxt = seat
        else:  # rotate, alternate_scored: the deal passes left after a scored hand
            nxt = (dealer + 1) % players
        dealer = _next_active(nxt, active)

    games.hands[g] = scored
    games.hands_dealt[g] = hand_index
    for seat in range(players):
        games.points[g, seat] = scores[seat]
        games.scores[g, seat] = scores[seat]
        games.boxes[g, seat] = wins[seat]
        for col in range(N_COLUMNS):
            games.columns[g, col, seat] = 0
    if mode == L.GAME_GIN and winner >= 0:
        _gin_finals(rules, scores, wins, winner, games.scores[g])
    if mode == L.GAME_HOLLYWOOD:
        totals = np.zeros(players, np.int64)
        for col in range(N_COLUMNS):
            if col_winner[col] >= 0:
                _gin_finals(
                    rules, col_points[col], col_boxes[col], col_winner[col], games.columns[g, col]
                )
            else:
                for seat in range(players):
                    games.columns[g, col, seat] = col_points[col, seat]
            for seat in range(players):
                totals[seat] += games.columns[g, col, seat]
        winner = -1
        if col_winner[0] >= 0 and col_winner[1] >= 0 and col_winner[2] >= 0:
            winner = 0 if totals[0] > totals[1] else (1 if totals[1] > totals[0] else -1)
        for seat in range(players):
            games.scores[g, seat] = totals[seat]
    games.winner[g] = winner
    return row - start, ERR_NONE


@njit(cache=True, nogil=True)
def play_games(
    rules_by_k, tab, key, first_number, sids, params, hands_out, games, begin, end, status
):
    """Play games ``first_number + g`` for rows g = begin .. end-1 of ``games``.

    Their hands go to ``hands_out`` from row 0 on. ``status`` gets (rows written, error
    code, error details...); rows = -1 when ``hands_out`` was too small (the caller
    retries with more room). Results do not depend on how games are split.
    """
    players = rules_by_k[rules_by_k.shape[0] - 1][L.R_PLAYERS]
    state = new_state_nb(players)
    one = one_row(players)
    capacity = hands_out.number.shape[0]
    written = np.int64(0)
    for g in range(begin, end):
        rows, err = play_game(
            borrow(rules_by_k),
            tab,
            key,
            first_number + g,
            borrow(sids),
            borrow(params),
            state,
            one,
            hands_out,
            written,
            games,
            g,
        )
        if rows < 0 or written + rows > capacity:
            written = -1
            break
        written += rows
        if err != ERR_NONE:
            status[1] = err
            for k in range(6):
                status[2 + k] = state.error[k]
            break
    status[0] = written
