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
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np
from numba import njit

from kernels.deadwood import best_discard_one, min_deadwood_one
from kernels.layout import R_BIG_GIN_BONUS, R_DISCARD_TAKEN_CARD
from kernels.obs import BIG_GIN, CONTINUE, KNOCK, forbidden_discard
from kernels.showdown import knock_limit_of
from strategies import Strategy

# Where the rules set no knock limit (Knock Rummy), ``knock_at = -1`` knocks at 10 or
# less: the common Gin limit, so one default reads the same under every rule set.
DEFAULT_KNOCK_AT = 10


class Params(NamedTuple):
    """Greedy's parameters."""

    knock_at: int = -1  # knock with this much deadwood or less; -1: the rule's limit, or 10
    min_gain: int = 1  # take the pile card only if it lowers the least deadwood this much


# --- helpers shared by the greedy family ---------------------------------------------
# (``schedule`` and ``defensive`` play greedy; ``simple`` and ``random`` reuse the knock
# rules.)


@njit(cache=True, inline="always")
def rule_threshold(obs):
    """The rule set's knock limit for this hand, or ``DEFAULT_KNOCK_AT`` if it has none."""
    limit = knock_limit_of(obs.rules, obs.upcard)
    if limit < 0:
        return np.int64(DEFAULT_KNOCK_AT)
    return np.int64(limit)


@njit(cache=True, inline="always")
def knock_threshold(obs, knock_at):
    """``knock_at`` when it is 0 or more; for -1 (any negative) the rule threshold."""
    if knock_at >= 0:
        return np.int64(knock_at)
    return rule_threshold(obs)


@njit(cache=True, inline="always")
def big_gin_ready(obs):
    """True when the rules allow big gin and every card of the hand is melded."""
    return obs.rules[R_BIG_GIN_BONUS] > 0 and min_deadwood_one(obs.hand, obs.tab) == 0


@njit(cache=True, inline="always")
def knock_legal(obs, deadwood):
    """True when a knock keeping ``deadwood`` is within the knock limit."""
    limit = knock_limit_of(obs.rules, obs.upcard)
    return limit < 0 or deadwood <= limit


@njit(cache=True, inline="always")
def knock_decision(obs, discard, threshold):
    """BIG_GIN when ready; KNOCK when the deadwood left after ``discard`` is at most
    ``threshold`` and the knock is legal; CONTINUE otherwise."""
    if big_gin_ready(obs):
        return BIG_GIN
    deadwood = min_deadwood_one(obs.hand & ~(np.int64(1) << discard), obs.tab)
    if deadwood <= threshold and knock_legal(obs, deadwood):
        return KNOCK
    return CONTINUE


@njit(cache=True, inline="always")
def pile_gain(obs):
    """How much taking the pile's top card lowers the least deadwood (current least
    deadwood minus the least after taking it and discarding the best other card).
    Call only with a non-empty pile."""
    top = obs.pile[obs.pile_n - 1]
    current = min_deadwood_one(obs.hand, obs.tab)
    forbidden = top
    if obs.rules[R_DISCARD_TAKEN_CARD] != 0:
        forbidden = -1
    _, after = best_discard_one(obs.hand | (np.int64(1) << top), forbidden, obs.tab)
    return current - after


@njit(cache=True, inline="always")
def greedy_take(obs, min_gain):
    """Take the pile top when it lowers the least deadwood by at least ``min_gain``."""
    if obs.pile_n <= 0:
        return False
    return pile_gain(obs) >= min_gain


@njit(cache=True, inline="always")
def greedy_discard(obs):
    """``best_discard_one`` with the card the rules forbid left out."""
    card, _ = best_discard_one(obs.hand, forbidden_discard(obs), obs.tab)
    return card


# --- the hooks -----------------------------------------------------------------------


@njit(cache=True, inline="always")
def take_nb(obs, params, scratch):
    """Take the pile top when it saves at least ``min_gain`` deadwood."""
    return greedy_take(obs, np.int64(params[1]))


@njit(cache=True, inline="always")
def discard_nb(obs, params, scratch):
    """The best discard (least deadwood left, then highest value, then highest index)."""
    return greedy_discard(obs)


@njit(cache=True, inline="always")
def knock_nb(obs, params, scratch, discard):
    """Big gin when ready, else knock at ``knock_at`` or less (when legal)."""
    return knock_decision(obs, discard, knock_threshold(obs, np.int64(params[0])))


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
