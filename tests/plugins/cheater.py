"""A deliberately broken strategy plugin: it discards a card it does not hold.

Used by the tests to prove that an illegal decision stops the run with a clear error
(never a wrong result), and that third-party strategies load from a module path.
"""

from typing import NamedTuple

from numba import njit

from kernels.obs import CONTINUE
from strategies import Strategy


class Params(NamedTuple):
    """No parameters worth tuning."""

    unused: int = 0


@njit(cache=True)
def take_nb(obs, params, scratch):
    return False


@njit(cache=True)
def discard_nb(obs, params, scratch):
    for card in range(52):  # the lowest card it does NOT hold: illegal
        if not (obs.hand >> card) & 1:
            return card
    return -1


@njit(cache=True)
def knock_nb(obs, params, scratch, discard):
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
