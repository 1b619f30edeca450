"""The engine's probe: one seat's decisions of one kind, counted, forced, or played both ways.

A strategy chart (``docs/CHARTS.md``) asks, at some decisions of one seat (the *focal*
seat) in real play, what each of two actions is worth: knock now or play on, take the
pile's top card or draw from the stock. It needs no model of the hidden cards: the
engine holds the deal's true state. So ``play_hands`` (``kernels/engine.py``), handed a
:class:`Probe`, does this at each such decision, a *position*:

* it puts the position in a cell (own turn, column, took: ``kernels.chart.cell_of``)
  and counts it (``eligible``);
* if the cell is forced (``force[cell]`` >= 0) the seat takes that action instead of
  its own choice and the hand goes on: a single-cell deviation, played on fresh deals
  to check a chart's prediction;
* else, when ``samples`` > 0 and the position is accepted (a draw from its own stream
  below its cell's rate, ``rates``), the engine saves the whole state (every hand, the
  pile, the stock, every seat's scratch and the counters) and plays the hand on to its
  end once per sample and action, the action forced at this decision and every later
  decision made by the line-up's own hooks. Sample 0 keeps the deal's own stock order
  (so the seat's own action in sample 0 is the real continuation); sample j > 0 draws
  the order of the unseen stock anew, and its own reshuffles, from the position's
  stream. Then it restores the state and the real play goes on with the seat's own
  choice, which the position's row records (``P_POLICY``).

The knock chart's first action, knocking with the best discard, ends the hand at once
with the same showdown in every sample: it is played once. The discard chart forces and
branches nothing: at each focal discard the next seat then meets, it records whether
that seat took the card and what the card saved it.

A position's row (``kernels.chart.P_*``) holds exact sums over its samples: the gain of
the first action over the second in units of 1/((players - 1) x POINT_SCALE) point (a
seat's net points, its points less the mean of the others', are whole in them) and the
samples each action won.

Randomness: position ``(deal, own turn)`` draws from ``position_key(chart key, deal,
own turn)`` only: its acceptance draw (counter ``ACCEPT_COUNTER``), sample j's stock
order (``random64(pkey, j)`` as a shuffle key) and sample j's reshuffles (key
``random64(pkey, REBUILD_SALT + j)``). So a position is scored the same whichever
chunk, worker or thread meets it.

The row array is the caller's: ``play_hands`` stops before a deal when fewer than
``MAX_ROWS_PER_DEAL`` rows are left and says where (``PU_NEXT``); the caller empties
the rows and calls again from there.
"""

from typing import NamedTuple

import numpy as np
from numba import njit

from kernels import layout as L
from kernels.borrow import borrow
from kernels.chart import (
    ACCEPT_COUNTER,
    CHART_KNOCK,
    N_POSITION_COLUMNS,
    P_CARD,
    P_CELL,
    P_COLUMN,
    P_DEAL,
    P_FIRST_WON,
    P_GAIN,
    P_POLICY,
    P_SECOND_WON,
    P_TOOK,
    P_TURN,
    cell_of,
    position_key,
    uniform01,
)
from kernels.rng import random64, shuffle

# --- the probe's settings: ``config`` (int64) ------------------------------------------
PC_KIND = 0  # kernels.chart.CHART_*
PC_FOCAL = 1  # the seat whose decisions are positions
PC_SAMPLES = 2  # samples per accepted position (0: count, force, never branch)
PC_TURNS = 3  # cells: own turns 1 .. PC_TURNS (the last "or later")
PC_COLUMNS = 4  # ... columns
PC_TOOK = 5  # ... layers (1: not split)
PC_KEY = 6  # the chart's key (``kernels.chart.chart_key``), its 64 bits as int64
PC_RESUME = 7  # 1: no deal, the hand plays on from the state handed in (``resume_at``)
N_CONFIG = 8

NO_KIND = -1  # PC_KIND of a probe that watches no decision (a resumed hand)

# --- the probe's state while the engine plays: ``cursor`` (int64) ---------------------
PU_ROWS = 0  # rows written
PU_NEXT = 1  # where play_hands stopped: the next deal row to play (``end`` when done)
PU_OWN = 2  # this hand: the focal seat's draws so far
PU_TOOK = 3  # this hand: the pile cards the other seats took
PU_PENDING = 4  # discard chart: the focal seat's discard the next seat has yet to meet
PU_PENDING_TURN = 5  # ... thrown at this own turn
PU_PENDING_TOOK = 6  # ... with this layer (the next seat's interest)
PU_PENDING_CELL = 7  # ... in this cell
PU_BRANCH = 8  # -1: the real play; else the branch being played (``branch_action``)
PU_AT = 9  # draws made (counters[C_TURNS]) at this hand's last position, -1 none
PU_ROW = 10  # the row of that position, -1 when its seat's own choice is recorded
PU_SEAT = 11  # the position's seat, drawn card and whether it came from the pile
PU_DRAWN = 12
PU_FROM_PILE = 13
PU_FIRST_NET = 14  # the first action's net points and win in the current sample
PU_FIRST_WON = 15
PU_BEST = 16  # knock chart: the card the forced knock lays away (the best discard)
PU_FORCE = 17  # the action forced at the current decision: FORCE_*
PU_UPCARD = 18  # a resumed hand: its first upcard, the seat to move, the upcard option's
PU_ASKING = 19  # questions left, whether the next draw is from the stock without asking,
PU_STOCK_NEXT = 20  # and whether it resumes at the discard decision after drawing
PU_AT_DISCARD = 21  # ``PU_DRAWN`` (``PU_FROM_PILE``)
N_CURSOR = 22

FORCE_NONE = -1
FORCE_FIRST = 0  # knock laying the best discard away; take the pile's top card
FORCE_SECOND = 1  # discard the seat's own choice and play on; draw from the stock

MAX_ROWS_PER_DEAL = 1024  # a hand has at most MAX_TURNS (1000) draws, one position each
REBUILD_SALT = 0x5EB0000  # counter of sample j's reshuffle key: REBUILD_SALT + j


class Probe(NamedTuple):
    """What the engine watches, and where it writes (see the module notes).

    ``rates`` float64[n_cells]: acceptance rate per cell (0: count only).
    ``force`` int64[n_cells]: FORCE_* per cell (FORCE_NONE: the seat's own choice).
    ``eligible`` int64[n_cells]: positions met per cell (added to).
    ``rows`` int64[capacity, N_POSITION_COLUMNS]: scored positions (discard chart: the
    discards the next seat met).
    ``saved_*``: the state at the current position (players rows where per seat).
    """

    config: np.ndarray
    cursor: np.ndarray
    rates: np.ndarray
    force: np.ndarray
    eligible: np.ndarray
    rows: np.ndarray
    saved_stock: np.ndarray
    saved_pile: np.ndarray
    saved_hands: np.ndarray
    saved_taken: np.ndarray
    saved_discarded: np.ndarray
    saved_scratch: np.ndarray
    saved_counters: np.ndarray
    saved_cursor: np.ndarray


# The cursor's words about the hand in play, saved and restored with the state.
HAND_WORDS = (PU_OWN, PU_TOOK, PU_PENDING, PU_PENDING_TURN, PU_PENDING_TOOK, PU_PENDING_CELL)


def new_probe(
    *, kind: int, focal: int, samples: int, turns: int, columns: int, took: int, key: int,
    players: int, scratch_size: int, deck_capacity: int, capacity: int = 8192,
) -> Probe:  # fmt: skip
    """A probe with every cell counted and none forced or scored (``rates`` 0): set
    ``rates`` and ``force`` before playing."""
    n_cells = turns * columns * took
    config = np.zeros(N_CONFIG, np.int64)
    config[PC_KIND], config[PC_FOCAL], config[PC_SAMPLES] = kind, focal, samples
    config[PC_TURNS], config[PC_COLUMNS], config[PC_TOOK] = turns, columns, took
    config[PC_KEY] = np.uint64(key).view(np.int64)
    return Probe(
        config=config,
        cursor=np.zeros(N_CURSOR, np.int64),
        rates=np.zeros(n_cells, np.float64),
        force=np.full(n_cells, FORCE_NONE, np.int64),
        eligible=np.zeros(n_cells, np.int64),
        rows=np.zeros((max(capacity, 2 * MAX_ROWS_PER_DEAL), N_POSITION_COLUMNS), np.int64),
        saved_stock=np.zeros(deck_capacity, np.int64),
        saved_pile=np.zeros(deck_capacity, np.int64),
        saved_hands=np.zeros(players, np.int64),
        saved_taken=np.zeros(players, np.int64),
        saved_discarded=np.zeros(players, np.int64),
        saved_scratch=np.zeros((players, scratch_size), np.int64),
        saved_counters=np.zeros(8, np.int64),
        saved_cursor=np.zeros(N_CURSOR, np.int64),
    )


@njit(cache=True)
def start_hand(probe):
    """Reset the per-hand cursor words at a deal."""
    u = probe.cursor
    u[PU_OWN] = 0
    u[PU_TOOK] = 0
    u[PU_PENDING] = -1
    u[PU_BRANCH] = -1
    u[PU_AT] = -1
    u[PU_ROW] = -1
    u[PU_FORCE] = FORCE_NONE


@njit(cache=True)
def room_for_a_deal(probe):
    """Whether the rows can take every position one more deal may have."""
    return probe.cursor[PU_ROWS] + MAX_ROWS_PER_DEAL <= probe.rows.shape[0]


@njit(cache=True)
def branch_action(kind, branch):
    """(sample, action) of a branch: the knock chart plays its knock (action 0) once,
    in branch 0, then one play-on per sample; the draw chart both actions per sample."""
    if kind == CHART_KNOCK:
        return (np.int64(0), np.int64(0)) if branch == 0 else (branch - 1, np.int64(1))
    return branch // 2, branch % 2


@njit(cache=True)
def n_branches(kind, samples):
    return samples + 1 if kind == CHART_KNOCK else 2 * samples


@njit(cache=True)
def met(probe, number, own_turn, column, card, at_turn):
    """A position of the focal seat, in ``column``, at its ``own_turn`` with ``at_turn``
    draws made: counted, then forced, branched from or left alone. Returns the action
    to force now (FORCE_*); when the position is accepted for scoring, its row is
    started and the caller saves the state and plays branch 0 (``PU_BRANCH`` is 0)."""
    cfg, u = probe.config, probe.cursor
    cell = cell_of(own_turn, column, u[PU_TOOK], cfg[PC_TURNS], cfg[PC_COLUMNS], cfg[PC_TOOK])
    probe.eligible[cell] += 1
    u[PU_AT] = at_turn
    if probe.force[cell] != FORCE_NONE:
        return probe.force[cell]
    pkey = position_key(np.uint64(cfg[PC_KEY]), number, own_turn)
    if cfg[PC_SAMPLES] <= 0 or uniform01(pkey, ACCEPT_COUNTER) >= probe.rates[cell]:
        return FORCE_NONE
    r = u[PU_ROWS]
    u[PU_ROWS] = r + 1
    row = probe.rows[r]
    row[:] = 0
    row[P_DEAL] = number
    row[P_TURN] = own_turn
    row[P_COLUMN] = column
    row[P_TOOK] = u[PU_TOOK]
    row[P_CELL] = cell
    row[P_CARD] = card
    row[P_POLICY] = -1
    u[PU_ROW] = r
    u[PU_BRANCH] = 0
    return FORCE_FIRST


@njit(cache=True)
def chose(probe, first):
    """The real play's own choice at the position just branched from (``first``: the
    first action, knock or take)."""
    u = probe.cursor
    probe.rows[u[PU_ROW], P_POLICY] = 1 if first else 0
    u[PU_ROW] = -1


@njit(cache=True)
def branch_done(probe, net, won):
    """Record the branch just played (the focal seat's net points in gain units, and
    whether it won the hand) and move to the next. Returns (sample, action) of the next
    branch, or (-1, -1) when every branch is played (the real play resumes)."""
    cfg, u = probe.config, probe.cursor
    kind, samples = cfg[PC_KIND], cfg[PC_SAMPLES]
    sample, action = branch_action(kind, u[PU_BRANCH])
    row = probe.rows[u[PU_ROW]]
    if action == 0:
        u[PU_FIRST_NET] = net
        u[PU_FIRST_WON] = won
    else:
        row[P_GAIN] += u[PU_FIRST_NET] - net
        row[P_FIRST_WON] += u[PU_FIRST_WON]
        row[P_SECOND_WON] += won
    u[PU_BRANCH] += 1
    if u[PU_BRANCH] >= n_branches(kind, samples):
        u[PU_BRANCH] = -1
        return np.int64(-1), np.int64(-1)
    return branch_action(kind, u[PU_BRANCH])


@njit(cache=True)
def save(probe, stock, pile, hands, taken, discarded, scratch, counters, seat, drawn, from_pile):
    """Keep the state at the position (and the seat, the card it drew, from where)."""
    probe.saved_stock[:] = stock
    probe.saved_pile[:] = pile
    probe.saved_hands[:] = hands
    probe.saved_taken[:] = taken
    probe.saved_discarded[:] = discarded
    probe.saved_scratch[:, :] = scratch
    probe.saved_counters[:] = counters
    u = probe.cursor
    for word in HAND_WORDS:
        probe.saved_cursor[word] = u[word]
    u[PU_SEAT] = seat
    u[PU_DRAWN] = drawn
    u[PU_FROM_PILE] = from_pile


@njit(cache=True)
def restore(probe, stock, pile, hands, taken, discarded, scratch, counters, rules, number, sample):
    """Put the saved state back for ``sample`` (-1: the real play, as saved); for a
    sample j > 0 the unseen stock is shuffled anew. Returns the key of the branch's
    reshuffles (0 for the real play and sample 0: the engine's own)."""
    stock[:] = probe.saved_stock
    pile[:] = probe.saved_pile
    hands[:] = probe.saved_hands
    taken[:] = probe.saved_taken
    discarded[:] = probe.saved_discarded
    scratch[:, :] = probe.saved_scratch
    counters[:] = probe.saved_counters
    u = probe.cursor
    for word in HAND_WORDS:
        u[word] = probe.saved_cursor[word]
    if sample <= 0:
        return np.uint64(0)
    pkey = position_key(np.uint64(probe.config[PC_KEY]), number, probe.rows[u[PU_ROW], P_TURN])
    top, end = counters[L.C_STOCK_TOP], counters[L.C_STOCK_END]
    # After a rebuild under "turn over" the stock's order is public: the pile's, as it lay.
    public = counters[L.C_REBUILDS] > 0 and rules[L.R_STOCK_EXHAUSTION] == L.EXHAUST_TURN_OVER
    if not public:
        shuffle(stock[top:end], end - top, random64(pkey, sample))
    return random64(pkey, REBUILD_SALT + sample)


@njit(cache=True)
def net_units(points, seat):
    """``seat``'s net points (its points less the mean of the others') in gain units."""
    players = points.shape[0]
    total = np.int64(0)
    for s in range(players):
        total += points[s]
    return players * points[seat] - total


@njit(cache=True)
def discard_met(probe, card, interest, column):
    """The focal seat threw ``card``: pending until the next seat draws."""
    u = probe.cursor
    cfg = probe.config
    u[PU_PENDING] = card
    u[PU_PENDING_TURN] = u[PU_OWN]
    u[PU_PENDING_TOOK] = interest
    u[PU_PENDING_CELL] = cell_of(
        u[PU_OWN], column, interest, cfg[PC_TURNS], cfg[PC_COLUMNS], cfg[PC_TOOK]
    )


@njit(cache=True)
def discard_fate(probe, number, took_it, saved):
    """The next seat drew: whether it took the pending discard, and what that saved it."""
    u = probe.cursor
    card = u[PU_PENDING]
    probe.eligible[u[PU_PENDING_CELL]] += 1
    r = u[PU_ROWS]
    u[PU_ROWS] = r + 1
    row = probe.rows[r]
    row[P_DEAL] = number
    row[P_TURN] = u[PU_PENDING_TURN]
    row[P_COLUMN] = 13 if card >= 52 else card % 13
    row[P_TOOK] = u[PU_PENDING_TOOK]
    row[P_CELL] = u[PU_PENDING_CELL]
    row[P_GAIN] = saved
    row[P_FIRST_WON] = 1 if took_it else 0
    row[P_SECOND_WON] = 0 if took_it else 1
    row[P_CARD] = card
    row[P_POLICY] = 1 if took_it else 0
    u[PU_PENDING] = -1


@njit(cache=True)
def resume_probe(players):
    """A probe that watches nothing and makes ``play_hands`` play one hand on from the
    state it is handed (``resume_at`` says from where); its other arrays are unused."""
    config = np.zeros(N_CONFIG, np.int64)
    config[PC_KIND] = NO_KIND
    config[PC_RESUME] = 1
    config[PC_TURNS] = config[PC_COLUMNS] = config[PC_TOOK] = 1
    one = np.zeros(1, np.int64)
    return Probe(
        config,
        np.zeros(N_CURSOR, np.int64),
        np.zeros(1, np.float64),
        np.full(1, FORCE_NONE),
        one,
        np.zeros((1, N_POSITION_COLUMNS), np.int64),
        one.copy(),
        one.copy(),
        np.zeros(players, np.int64),
        np.zeros(players, np.int64),
        np.zeros(players, np.int64),
        np.zeros((players, 1), np.int64),
        np.zeros(8, np.int64),
        np.zeros(N_CURSOR, np.int64),
    )


@njit(cache=True)
def borrowed_probe(owner):
    """``owner``'s arrays as borrowed views (kernels/borrow.py), for a probe handed to
    ``play_hands`` once per rollout: counted arrays would cost an ``NRT_incref`` /
    ``NRT_decref`` pair each per call. ``owner`` must outlive the views."""
    return Probe(
        borrow(owner.config),
        borrow(owner.cursor),
        borrow(owner.rates),
        borrow(owner.force),
        borrow(owner.eligible),
        borrow(owner.rows),
        borrow(owner.saved_stock),
        borrow(owner.saved_pile),
        borrow(owner.saved_hands),
        borrow(owner.saved_taken),
        borrow(owner.saved_discarded),
        borrow(owner.saved_scratch),
        borrow(owner.saved_counters),
        borrow(owner.saved_cursor),
    )


@njit(cache=True)
def resume_at(probe, upcard, seat, asking, stock_next, drawn, from_pile):
    """Where a resumed hand goes on: ``seat`` draws next (``asking`` upcard-option
    questions left; ``stock_next``: from the stock without being asked), or, with
    ``drawn`` >= 0, ``seat`` has drawn ``drawn`` (``from_pile``) and discards next."""
    u = probe.cursor
    u[PU_UPCARD] = upcard
    u[PU_SEAT] = seat
    u[PU_ASKING] = asking
    u[PU_STOCK_NEXT] = stock_next
    u[PU_AT_DISCARD] = drawn >= 0
    u[PU_DRAWN] = drawn
    u[PU_FROM_PILE] = from_pile
