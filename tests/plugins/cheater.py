"""A deliberately broken strategy plugin: it breaks one rule, chosen by ``how``.

``how``: 0 discards a card it does not hold; 1 takes the pile card and throws it
straight back (forbidden under ``discard_taken_card = false``); 2 knocks at once,
whatever its deadwood; 3 claims big gin at once; 4 answers the knock question with
a code that means nothing.

Used by the tests to prove that every illegal decision stops the run with a clear
error (never a wrong result), and that third-party strategies load from a module path.
"""

from typing import NamedTuple

from kernels.bits import lowest_bit
from kernels.link import piece
from kernels.obs import BIG_GIN, CONTINUE, DISCARD_HOOK, KNOCK, KNOCK_HOOK, TAKE_HOOK
from strategies import Strategy, param_slots


class Params(NamedTuple):
    """Which rule to break."""

    how: int = 0


SLOT = param_slots(Params)  # params[SLOT.how] reads how


@piece(TAKE_HOOK)
def take_nb(obs, params, scratch):
    return params[SLOT.how] == 1 and obs.pile_n > 0


@piece(DISCARD_HOOK)
def discard_nb(obs, params, scratch):
    how = params[SLOT.how]
    if how == 0:
        for card in range(52):  # the lowest card it does NOT hold
            if not (obs.hand >> card) & 1:
                return card
    if how == 1 and obs.from_pile:
        return obs.drawn
    return lowest_bit(obs.hand)


@piece(KNOCK_HOOK)
def knock_nb(obs, params, scratch, discard):
    how = params[SLOT.how]
    if how == 2:
        return KNOCK
    if how == 3:
        return BIG_GIN
    if how == 4:
        return 7
    return CONTINUE


STRATEGY = Strategy(
    name="cheater",
    description=__doc__,
    params=Params,
    take_nb=take_nb,
    discard_nb=discard_nb,
    knock_nb=knock_nb,
    module=__name__,
)
