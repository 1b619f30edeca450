"""Greedy: take the pile card when it lowers the deadwood, throw the worst card, knock low.

In plain words:

* Draw: take the top card of the discard pile when that lowers the least deadwood by
  at least ``min_gain``: compare the hand's least deadwood now with the least
  deadwood after taking the card and discarding the best other card (the taken card
  itself may not be thrown back unless the rules allow it). Otherwise draw from the
  stock. The same test decides the upcard option (take it, or pass).
* Discard: the card whose removal leaves the least deadwood; ties go to the card of
  highest deadwood value, then the highest card index (``best_discard_one``). Never
  the card just taken from the pile when the rules forbid it.
* Knock: when the deadwood left after the discard is at most ``knock_at`` and the
  rules allow the knock. ``knock_at = -1`` means the rule set's knock limit (for
  Oklahoma, the limit the first upcard sets), or 10 where the rules have no limit
  (Knock Rummy).
* Big gin: when the rules allow it (``big_gin_bonus > 0``) and all hand_size + 1
  cards are melded, go out with big gin instead of knocking.

The decisions (and the solver memo they share with ``schedule``, ``defensive``,
``advice``, ``chart`` and ``mc``'s rollouts) live in ``kernels/greedy.py``.
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np
from numba import njit

from kernels.greedy import knock_threshold, memo_discard, memo_knock_decision, memo_take
from strategies.base import Strategy, param_slots


class Params(NamedTuple):
    """Greedy's parameters."""

    knock_at: int = -1  # knock with this much deadwood or less; -1: the rule's limit, or 10
    min_gain: int = 1  # take the pile card only if it lowers the least deadwood this much


SLOT = param_slots(Params)  # where each field sits in the row the hooks read

# --- the hooks -----------------------------------------------------------------------


@njit(cache=True, inline="always")
def take_nb(obs, params, scratch):
    """Take the pile top when it saves at least ``min_gain`` deadwood."""
    return memo_take(obs, np.int64(params[SLOT.min_gain]), scratch)


@njit(cache=True, inline="always")
def discard_nb(obs, params, scratch):
    """The best discard (least deadwood left, then highest value, then highest index)."""
    return memo_discard(obs, scratch)


@njit(cache=True, inline="always")
def knock_nb(obs, params, scratch, discard):
    """Big gin when ready, else knock at ``knock_at`` or less (when legal)."""
    threshold = knock_threshold(obs, np.int64(params[SLOT.knock_at]))
    return memo_knock_decision(obs, discard, threshold, scratch)


STRATEGY: Strategy = Strategy(
    name="greedy",
    description=__doc__,
    params=Params,
    take_nb=take_nb,
    discard_nb=discard_nb,
    knock_nb=knock_nb,
    module=__name__,
    bounds={"knock_at": (-1, None)},
)
