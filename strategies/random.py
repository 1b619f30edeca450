"""Random: every choice uniformly at random among the legal ones (a baseline).

In plain words:

* Draw: take the top card of the discard pile with probability 1/2 (when the pile is
  not empty; otherwise draw from the stock). The upcard option: take it with
  probability 1/2, else pass.
* Discard: a card chosen uniformly among the legal ones (every held card but the
  card just taken from the pile, when the rules forbid throwing it back).
* Big gin: when the rules allow it and all hand_size + 1 cards are melded, go out
  with big gin with probability ``p``.
* Knock: otherwise, when the knock is legal (the deadwood left after the discard is
  within the knock limit), knock with probability ``p``.

Every draw comes from the seat's own seeded stream (``strategy_below``), one draw
per choice actually offered: a coin for the draw, one uniform index for the discard,
and for each legal way out (big gin, then knock) a number in [0, 1_000_000) that
says yes when below ``p * 1_000_000``.
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np
from numba import njit

from kernels.bits import lowest_bit, popcount
from kernels.deadwood import min_deadwood_one
from kernels.greedy import big_gin_ready, knock_legal
from kernels.obs import BIG_GIN, CONTINUE, KNOCK, forbidden_discard, strategy_below
from strategies.base import Strategy, param_slots

# Probabilities are drawn as integers: yes when below(1_000_000) < p * 1_000_000.
PROBABILITY_STEPS = 1_000_000


class Params(NamedTuple):
    """Random's parameters."""

    p: float = 0.5  # probability of knocking (or going big gin) when it is legal


SLOT = param_slots(Params)  # where each field sits in the row the hooks read


@njit(cache=True)
def chance(obs, scratch, p):
    """One draw from the seat's stream: True with probability ``p``."""
    # typed counts, not literals: one compile of strategy_below serves every call
    return strategy_below(obs, scratch, np.int64(PROBABILITY_STEPS)) < p * PROBABILITY_STEPS


@njit(cache=True, inline="always")
def take_nb(obs, params, scratch):
    """A fair coin (no draw when the pile is empty: the stock it is)."""
    if obs.pile_n <= 0:
        return False
    return strategy_below(obs, scratch, np.int64(2)) == 1


@njit(cache=True, inline="always")
def discard_nb(obs, params, scratch):
    """A uniform legal card: the k-th of the legal cards in ascending index order."""
    legal = obs.hand
    forbidden = forbidden_discard(obs)
    if forbidden >= 0:
        legal &= ~(np.int64(1) << forbidden)
    k = strategy_below(obs, scratch, popcount(legal))
    for _ in range(k):
        legal &= legal - 1
    return lowest_bit(legal)


@njit(cache=True, inline="always")
def knock_nb(obs, params, scratch, discard):
    """Big gin, then a knock, each with probability ``p`` when legal."""
    p = params[SLOT.p]
    if big_gin_ready(obs) and chance(obs, scratch, p):
        return BIG_GIN
    deadwood = min_deadwood_one(obs.hand & ~(np.int64(1) << discard), obs.tab)
    if knock_legal(obs, deadwood) and chance(obs, scratch, p):
        return KNOCK
    return CONTINUE


STRATEGY: Strategy = Strategy(
    name="random",
    description=__doc__,
    params=Params,
    take_nb=take_nb,
    discard_nb=discard_nb,
    knock_nb=knock_nb,
    module=__name__,
    bounds={"p": (0.0, 1.0)},
)
