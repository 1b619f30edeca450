"""A strategy plugin that plays from its game memory (``kernels/obs.py``): greedy's
take and discard, and a knock threshold that moves with what the game's memory holds
(the engine's hand counts and a word of its own, counting its knock questions).

Used by the tests to check that the engine, its twin and a game's replay keep every
seat's game memory alike, hand after hand (``MemoryRef`` is the twin).
"""

from typing import NamedTuple

from numba import njit

from kernels.link import piece
from kernels.obs import (
    DISCARD_HOOK,
    GAME_FREE,
    GAME_HANDS,
    GAME_OPP_GINS,
    GAME_OPP_KNOCKS,
    KNOCK_HOOK,
    TAKE_HOOK,
)
from strategies import Strategy, greedy, param_slots


class Params(NamedTuple):
    """Greedy's pile test."""

    min_gain: int = 1


SLOT = param_slots(Params)  # params[SLOT.min_gain] reads min_gain


@njit(cache=True)
def threshold(scratch):
    """0-10, from every word of the game memory the engine or this seat writes."""
    memory = (
        scratch[GAME_HANDS]
        + 3 * scratch[GAME_OPP_KNOCKS]
        + 5 * scratch[GAME_OPP_GINS]
        + scratch[GAME_FREE]
    )
    return memory % 11


@piece(TAKE_HOOK)
def take_nb(obs, params, scratch):
    return greedy.memo_take(obs, params[SLOT.min_gain], scratch)


@piece(DISCARD_HOOK)
def discard_nb(obs, params, scratch):
    return greedy.memo_discard(obs, scratch)


@piece(KNOCK_HOOK)
def knock_nb(obs, params, scratch, discard):
    scratch[GAME_FREE] += 1  # a game word of its own: every knock question of the game
    return greedy.memo_knock_decision(obs, discard, threshold(scratch), scratch)


STRATEGY = Strategy(
    name="game_memory",
    description="A test plugin whose knocks depend on its game memory.",
    params=Params,
    take_nb=take_nb,
    discard_nb=discard_nb,
    knock_nb=knock_nb,
    module=__name__,
)


class MemoryRef:
    """The twin, for ``tests.reference.engine_ref``."""

    def take(self, obs, params, scratch):  # type: ignore[no-untyped-def]
        from tests.reference import strategies_ref as S

        return S.greedy_take(obs, int(params[SLOT.min_gain]))

    def discard(self, obs, params, scratch):  # type: ignore[no-untyped-def]
        from tests.reference import strategies_ref as S

        return S.greedy_discard(obs)

    def knock(self, obs, params, scratch, discard):  # type: ignore[no-untyped-def]
        from tests.reference import strategies_ref as S

        scratch[GAME_FREE] += 1
        memory = (
            scratch[GAME_HANDS]
            + 3 * scratch[GAME_OPP_KNOCKS]
            + 5 * scratch[GAME_OPP_GINS]
            + scratch[GAME_FREE]
        )
        return S.knock_decision(obs, discard, memory % 11)
