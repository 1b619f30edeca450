"""What a strategy hook sees: one seat's observation, and its private helpers.

The round kernel builds an :class:`Obs` for the seat to move from that seat's own
hand and the public record only. The array of every hand is never part of it, so no
hook can read another player's hidden cards through this API.

Hook signatures (all ``@njit``; ``params`` float64[N_PARAMS] is the seat's parameter
vector, ``scratch`` int64[SCRATCH_SIZE] its private memory: words below
``SCRATCH_HAND`` are zeroed at each deal, the rest (the game's memory) when a game or
a single deal starts, and kept across the hands of a game):

* ``take(obs, params, scratch) -> bool``: take the top card of the discard pile
  (True) or not. In ``PHASE_UPCARD_OPTION`` not taking is a pass (no draw); in
  ``PHASE_DRAW`` not taking means drawing from the stock.
* ``discard(obs, params, scratch) -> int``: the card to discard (or to lay away when
  knocking); ``obs.hand`` holds ``hand_size + 1`` cards.
* ``knock(obs, params, scratch, discard) -> int``: ``CONTINUE`` (discard and play
  on), ``KNOCK`` (lay ``discard`` away and knock) or ``BIG_GIN`` (go out with every
  card, when the rules allow it).
"""

from typing import NamedTuple

import numpy as np
from numba import njit, types

from kernels.borrow import BorrowedArray
from kernels.layout import R_DISCARD_TAKEN_CARD, R_JOKERS
from kernels.rng import below
from kernels.tables import TAB

PHASE_UPCARD_OPTION = 0  # first turn of Gin: take the upcard or pass
PHASE_DRAW = 1  # take the pile top or draw from the stock
PHASE_DISCARD = 2  # after the draw: choose a discard, then whether to knock

CONTINUE = 0
KNOCK = 1
BIG_GIN = 2

SCRATCH_SIZE = 80  # int64 words of private memory per seat
SCRATCH_HAND = 64  # words [0, SCRATCH_HAND): the hand's memory, zeroed at each deal
SCRATCH_RNG = 0  # scratch[0]: the seat's random counter (managed by ``strategy_below``)
SCRATCH_FREE = 1  # first word a strategy may use for itself
# Words [SCRATCH_HAND, SCRATCH_SIZE): the game's memory, zeroed when a game (or a single
# deal) starts and kept across its hands. The engine counts in the first three, at the
# end of every hand, what the whole table saw of it (docs/ENGINE.md "Game memory"):
GAME_HANDS = SCRATCH_HAND  # hands of this game the seat was dealt in, dead hands too
GAME_OPP_KNOCKS = SCRATCH_HAND + 1  # ... in which another seat knocked with deadwood
GAME_OPP_GINS = SCRATCH_HAND + 2  # ... in which another seat went out with none
GAME_FREE = SCRATCH_HAND + 3  # first game word a strategy may use for itself
N_PARAMS = 224  # parameters per seat (float64; the chart strategy uses 216)


class Obs(NamedTuple):
    """One seat's view of the hand in progress.

    Attributes
    ----------
    seat, players : int
    hand : int64 mask of the seat's own cards.
    pile : int64[capacity]; ``pile[:pile_n]`` is the discard pile, bottom to top.
    pile_n : int
    taken : int64[players]; per seat, the cards it took from the pile and still holds.
    discarded : int64[players]; per seat, every card it discarded this hand.
    stock_n : int, cards left in the stock.
    rebuilds : int, times the stock was rebuilt from the pile this hand (public).
    rebuilt : int64 mask of the cards the last rebuild put into the stock (public: they
        were the pile's; 0 before any rebuild). The stock holds only such cards.
    turn : int, draws made so far this hand (the upcard option's passes do not count).
    phase : int, ``PHASE_*``.
    upcard : int, the first upcard of the hand.
    drawn : int, the card this seat just drew (-1 before its draw).
    from_pile : bool, whether ``drawn`` came from the discard pile.
    dealer : int
    rules : int64[N_RULE_FIELDS], the compiled rule vector.
    scores : int64[players], game scores so far in 1/POINT_SCALE units.
    tab : uint16[TABLE_SIZE], the rule set's flat solver tables (``kernels.tables``).
    rng_key : uint64, this seat's strategy stream for this hand.
    """

    seat: int
    players: int
    hand: int
    pile: np.ndarray
    pile_n: int
    taken: np.ndarray
    discarded: np.ndarray
    stock_n: int
    rebuilds: int
    rebuilt: int
    turn: int
    phase: int
    upcard: int
    drawn: int
    from_pile: bool
    dealer: int
    rules: np.ndarray
    scores: np.ndarray
    tab: object
    rng_key: np.uint64


# The types the engine hands a hook (``kernels/engine.py`` builds them), for hooks and
# kernels compiled as pieces (``kernels/link.py``): ``mc``'s hooks, ``kernels.mc``.
_ROW = BorrowedArray(types.int64, 1, "C")
_I = types.int64
OBS = types.NamedTuple(
    (_I, _I, _I, _ROW, _I, _ROW, _ROW, _I, _I, _I, _I, _I, _I, _I, types.boolean, _I, _ROW,
     _ROW, TAB, types.uint64),
    Obs,
)  # fmt: skip
PARAMS = BorrowedArray(types.float64, 1, "C", readonly=True)  # a seat's parameter row
SCRATCH = BorrowedArray(types.int64, 1, "C")  # a seat's scratch row
TAKE_HOOK = types.boolean(OBS, PARAMS, SCRATCH)
DISCARD_HOOK = types.int64(OBS, PARAMS, SCRATCH)
KNOCK_HOOK = types.int64(OBS, PARAMS, SCRATCH, types.int64)


@njit(cache=True)
def strategy_below(obs, scratch, n):
    """Uniform integer in ``[0, n)`` from the seat's own seeded stream."""
    value, scratch[SCRATCH_RNG] = below(obs.rng_key, scratch[SCRATCH_RNG], n)
    return value


@njit(cache=True)
def forbidden_discard(obs):
    """The card this seat may not discard now (-1 if none): the card it just took
    from the discard pile, unless the rules allow discarding it (RULES.md
    ``discard_taken_card``)."""
    if obs.from_pile and obs.rules[R_DISCARD_TAKEN_CARD] == 0:
        return obs.drawn
    return -1


@njit(cache=True)
def hidden_cards(obs):
    """Mask of the cards this seat cannot see: not in its hand, not in the pile, and
    not taken from the pile by an opponent that still holds them."""
    n_cards = 52 + obs.rules[R_JOKERS]
    hidden = ((np.int64(1) << n_cards) - 1) & ~obs.hand
    for i in range(obs.pile_n):
        hidden &= ~(np.int64(1) << obs.pile[i])
    for seat in range(obs.players):
        if seat != obs.seat:
            hidden &= ~obs.taken[seat]
    return hidden
