"""One seat's view as a flat ``int64`` vector: what an agent outside the engine sees.

An :class:`~kernels.obs.Obs` holds arrays the engine owns and lends for one hook call.
A seat played from outside the compiled loop (a Python object, another program: ``docs/
AGENTS.md``), and a compiled strategy asked for one decision from outside it
(``rummy.player``), need the same facts as one value they can keep: this vector. It
holds exactly what the hook's ``Obs`` and the engine's words of the seat's game memory
hold (never another seat's hidden cards), so a view packed from the engine's ``Obs``
and unpacked again gives the hooks the very ``Obs`` the engine gave them.

Layout: the ``V_*`` words below, then per seat ``taken``, ``discarded`` and ``scores``
(``players`` words each, from ``V_HEAD`` on), then the pile bottom to top. The random
key is stored as the int64 with its bits.
"""

import numpy as np
from numba import njit

from kernels.obs import GAME_HANDS, GAME_OPP_GINS, GAME_OPP_KNOCKS, forbidden_discard
from kernels.showdown import knock_limit_of

V_SEAT = 0
V_PLAYERS = 1
V_HAND = 2  # mask of the seat's cards
V_PILE_N = 3
V_STOCK = 4  # cards left in the stock
V_REBUILDS = 5
V_REBUILT = 6  # mask
V_TURN = 7
V_PHASE = 8  # kernels.obs PHASE_*
V_UPCARD = 9
V_DRAWN = 10  # -1 before the seat's draw
V_FROM_PILE = 11  # 0/1
V_DEALER = 12
V_KEY = 13  # the seat's random stream for the hand (uint64 bits)
V_KNOCK_LIMIT = 14  # -1: any deadwood may knock (derived: rules and upcard)
V_GAME_HANDS = 15  # game memory the engine keeps (kernels/obs.py): hands dealt before
V_OPP_KNOCKS = 16
V_OPP_GINS = 17
V_FORBIDDEN = 18  # the card the seat may not discard now, -1 none (derived: rules)
V_HEAD = 19


def view_size(players: int, pile_n: int) -> int:
    return V_HEAD + 3 * players + pile_n


@njit(cache=True)
def pack(obs, scratch):
    """The view of ``obs`` (and of the engine's words of ``scratch``), as a new vector."""
    players = obs.players
    out = np.empty(V_HEAD + 3 * players + obs.pile_n, np.int64)
    out[V_SEAT] = obs.seat
    out[V_PLAYERS] = players
    out[V_HAND] = obs.hand
    out[V_PILE_N] = obs.pile_n
    out[V_STOCK] = obs.stock_n
    out[V_REBUILDS] = obs.rebuilds
    out[V_REBUILT] = obs.rebuilt
    out[V_TURN] = obs.turn
    out[V_PHASE] = obs.phase
    out[V_UPCARD] = obs.upcard
    out[V_DRAWN] = obs.drawn
    out[V_FROM_PILE] = 1 if obs.from_pile else 0
    out[V_DEALER] = obs.dealer
    out[V_KEY] = np.int64(obs.rng_key)
    out[V_KNOCK_LIMIT] = knock_limit_of(obs.rules, obs.upcard)
    out[V_GAME_HANDS] = scratch[GAME_HANDS]
    out[V_OPP_KNOCKS] = scratch[GAME_OPP_KNOCKS]
    out[V_OPP_GINS] = scratch[GAME_OPP_GINS]
    out[V_FORBIDDEN] = forbidden_discard(obs)
    for s in range(players):
        out[V_HEAD + s] = obs.taken[s]
        out[V_HEAD + players + s] = obs.discarded[s]
        out[V_HEAD + 2 * players + s] = obs.scores[s]
    for i in range(obs.pile_n):
        out[V_HEAD + 3 * players + i] = obs.pile[i]
    return out


@njit(cache=True)
def unpack(view, pile, taken, discarded, scores):
    """Fill the arrays an ``Obs`` lends from ``view`` (the inverse of :func:`pack`)."""
    players = view[V_PLAYERS]
    for s in range(players):
        taken[s] = view[V_HEAD + s]
        discarded[s] = view[V_HEAD + players + s]
        scores[s] = view[V_HEAD + 2 * players + s]
    for i in range(view[V_PILE_N]):
        pile[i] = view[V_HEAD + 3 * players + i]
