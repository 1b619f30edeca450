"""Schedule: greedy play whose knock threshold falls as the hand goes on.

In plain words:

* Draw and discard exactly as ``greedy`` (take the pile card when it lowers the
  least deadwood by at least ``min_gain``; throw the best discard).
* Knock when the deadwood left after the discard is at most
  ``floor(max(lo, a - b * turn))`` and the knock is legal, where ``turn`` is the
  number of draws made so far in the hand, this seat's current draw included (the
  observation's ``turn`` in the discard phase). With the defaults (a = 10, b = 0.5,
  lo = 0) the first draw allows 9 (9.5 rounded down), the tenth 5, and from the
  twentieth on only gin.
* Big gin: when the rules allow it and every card is melded.

Memory: greedy's solver memo (scratch words 1-6, see ``strategies.greedy``).
"""

from __future__ import annotations

import math
from typing import NamedTuple

import numpy as np
from numba import njit

from kernels.greedy import memo_discard, memo_knock_decision, memo_take
from strategies.base import Strategy, param_slots


class Params(NamedTuple):
    """Schedule's parameters."""

    a: float = 10.0  # threshold at turn 0
    b: float = 0.5  # drop per draw
    lo: float = 0.0  # the threshold never goes below this
    min_gain: int = 1  # take the pile card only if it lowers the least deadwood this much


SLOT = param_slots(Params)  # where each field sits in the row the hooks read


@njit(cache=True)
def threshold_at(turn, a, b, lo):
    """``floor(max(lo, a - b * turn))`` as an integer."""
    return np.int64(math.floor(max(lo, a - b * turn)))


@njit(cache=True, inline="always")
def take_nb(obs, params, scratch):
    """Greedy's draw."""
    return memo_take(obs, np.int64(params[SLOT.min_gain]), scratch)


@njit(cache=True, inline="always")
def discard_nb(obs, params, scratch):
    """Greedy's discard."""
    return memo_discard(obs, scratch)


@njit(cache=True, inline="always")
def knock_nb(obs, params, scratch, discard):
    """Big gin when ready, else knock at the scheduled threshold or less (when legal)."""
    threshold = threshold_at(obs.turn, params[SLOT.a], params[SLOT.b], params[SLOT.lo])
    return memo_knock_decision(obs, discard, threshold, scratch)


STRATEGY: Strategy = Strategy(
    name="schedule",
    description=__doc__,
    params=Params,
    take_nb=take_nb,
    discard_nb=discard_nb,
    knock_nb=knock_nb,
    module=__name__,
    # Wide enough for any study; bounded so the threshold always fits an int64.
    bounds={"a": (-1000.0, 1000.0), "b": (-100.0, 100.0), "lo": (-1000.0, 1000.0)},
)
