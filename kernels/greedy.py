"""Greedy's decisions, in one home: the greedy strategy's hooks, its family's, and the
engine's rollout policy (``kernels/rollout.py``, ``mc``'s and ``rummy advise``'s
rollouts) all call these.

* Take the pile's top card when that lowers the least deadwood by at least
  ``min_gain`` (``memo_take``: the hand's least deadwood now against the least after
  taking the card and throwing the best other card).
* Throw the best discard (``memo_discard``: the least deadwood left, then the highest
  value, then the highest index; never the card just taken where the rules forbid it).
* Knock at a threshold or less when the knock is legal; big gin when allowed and ready
  (``decide_knock``, ``memo_knock_decision``).

Memory (the seat's scratch, zeroed each deal): a turn asks the solver the same
questions several times (the draw's best discard of hand + pile card is the
discard's when the card is taken; the discard knows the deadwood the knock checks;
that deadwood is the next draw's current deadwood), so the last answers are kept,
each under the hand mask it is about (a stale entry can never match another hand;
the empty mask's answer, 0, is true):

* words 1-4 (``BEST_HAND``, ``BEST_FORBIDDEN``, ``BEST_CARD``, ``BEST_DEADWOOD``): the
  last best discard asked: hand mask, forbidden card (-1 none), card, deadwood left;
* words 5-6 (``LEAST_HAND``, ``LEAST_DEADWOOD``): the last least deadwood asked (or
  learnt from a discard): hand mask, deadwood.

Decisions never depend on these words, only the time they take.
"""

import numpy as np
from numba import njit

from kernels.deadwood import best_discard_one, min_deadwood_one
from kernels.layout import R_DISCARD_TAKEN_CARD
from kernels.melds import melds_with
from kernels.obs import BIG_GIN, CONTINUE, KNOCK, SCRATCH_FREE, forbidden_discard
from kernels.showdown import big_gin_ready as hand_big_gin_ready
from kernels.showdown import knock_limit_of, knock_within_limit
from kernels.tables import CARD_VALUE

# Where the rules set no knock limit (Knock Rummy), ``knock_at = -1`` knocks at 10 or
# less: the common Gin limit, so one default reads the same under every rule set.
DEFAULT_KNOCK_AT = 10

# Scratch words of the solver memo (see the module notes).
BEST_HAND = SCRATCH_FREE  # hand mask of the memoised best discard
BEST_FORBIDDEN = SCRATCH_FREE + 1  # its forbidden card (-1: none)
BEST_CARD = SCRATCH_FREE + 2
BEST_DEADWOOD = SCRATCH_FREE + 3
LEAST_HAND = SCRATCH_FREE + 4  # hand mask of the memoised least deadwood
LEAST_DEADWOOD = SCRATCH_FREE + 5
# The next word, free in greedy, is where the strategies of the family that need it
# (advice, chart) count this seat's turns of the hand: its discard adds one each turn.
OWN_TURNS = SCRATCH_FREE + 6


# --- the knock rules (``simple`` and ``random`` use them too) -------------------------


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
    """True when the rules allow big gin and every card of the hand is melded
    (``kernels.showdown.big_gin_ready``)."""
    return hand_big_gin_ready(obs.rules, obs.hand, obs.tab)


@njit(cache=True, inline="always")
def knock_legal(obs, deadwood):
    """True when a knock keeping ``deadwood`` is within the knock limit."""
    return knock_within_limit(obs.rules, obs.upcard, deadwood)


@njit(cache=True, inline="always")
def decide_knock(obs, deadwood, threshold):
    """BIG_GIN when ready; KNOCK when ``deadwood`` (what the discard leaves) is at most
    ``threshold`` and the knock is legal; CONTINUE otherwise."""
    if big_gin_ready(obs):
        return BIG_GIN
    if deadwood <= threshold and knock_legal(obs, deadwood):
        return KNOCK
    return CONTINUE


# --- the solver memo in the seat's scratch (greedy, schedule, defensive) --------------


@njit(cache=True, inline="always")
def memo_min_deadwood(mask, scratch, tab):
    """``min_deadwood_one(mask, tab)``, remembered in ``scratch`` (LEAST_* words)."""
    if scratch[LEAST_HAND] == mask:
        return scratch[LEAST_DEADWOOD]
    deadwood = min_deadwood_one(mask, tab)
    scratch[LEAST_HAND] = mask
    scratch[LEAST_DEADWOOD] = deadwood
    return deadwood


@njit(cache=True)
def memo_best_discard(mask, forbidden, scratch, tab):
    """``best_discard_one(mask, forbidden, tab)``, remembered in ``scratch`` (BEST_*)."""
    if scratch[BEST_HAND] == mask and scratch[BEST_FORBIDDEN] == forbidden:
        return scratch[BEST_CARD], scratch[BEST_DEADWOOD]
    card, deadwood = best_discard_one(mask, forbidden, tab)
    remember_best_discard(mask, forbidden, card, deadwood, scratch)
    return card, deadwood


@njit(cache=True, inline="always")
def learn_min_deadwood(mask, deadwood, scratch):
    """Remember that ``mask``'s least deadwood is ``deadwood`` (known from a discard)."""
    scratch[LEAST_HAND] = mask
    scratch[LEAST_DEADWOOD] = deadwood


@njit(cache=True, inline="always")
def remember_best_discard(mask, forbidden, card, deadwood, scratch):
    """Store a best discard in the memo (BEST_* words)."""
    scratch[BEST_HAND] = mask
    scratch[BEST_FORBIDDEN] = forbidden
    scratch[BEST_CARD] = card
    scratch[BEST_DEADWOOD] = deadwood


@njit(cache=True, inline="always")
def cannot_gain(hand, deadwood, card, tab):
    """True when taking ``card`` cannot lower ``deadwood``, the hand's least deadwood,
    shown without a solve: no joker about, ``card`` in no meld of hand + card, and
    ``card`` worth at least ``deadwood`` or at least any natural card. Discarding
    ``card`` again leaves ``deadwood``; discarding another card c leaves
    deadwood(hand - c) + value(card), and deadwood(hand - c) is at least 0 and at least
    ``deadwood`` - value(c) (c as deadwood extends any arrangement of hand - c). The
    opponent's high discards mostly pass this test."""
    value = np.int64(tab[CARD_VALUE + card])
    top_value = max(np.int64(10), np.int64(tab[CARD_VALUE]))  # the ace's value
    return (
        (value >= deadwood or value >= top_value)
        and ((hand | (np.int64(1) << card)) >> 52) == 0
        and not melds_with(hand, card, tab)
    )


@njit(cache=True, inline="always")
def memo_take(obs, min_gain, scratch):
    """Take the pile top when that lowers the least deadwood by at least ``min_gain``:
    the hand's least deadwood now against the least after taking the card and
    discarding the best other card (the card itself, where the rules allow it).

    Where the taken card may not be thrown back, the solver is first asked without
    that restriction (cheaper: no scan for the best allowed card). If another card is
    the best, it is also the best allowed one. If the pile card itself is the best,
    every other discard leaves at least the hand's deadwood now, so the gain is at most
    0: no take for ``min_gain >= 1``; only a smaller ``min_gain`` needs the exact
    answer. A pile card that ``cannot_gain`` is refused before any solve."""
    if obs.pile_n <= 0:
        return False
    top = obs.pile[obs.pile_n - 1]
    current = memo_min_deadwood(obs.hand, scratch, obs.tab)
    if min_gain >= 1 and cannot_gain(obs.hand, current, top, obs.tab):
        return False
    held = obs.hand | (np.int64(1) << top)
    none = np.int64(-1)
    card, after = memo_best_discard(held, none, scratch, obs.tab)
    if obs.rules[R_DISCARD_TAKEN_CARD] == 0:
        if card != top:
            # The discard hook asks for this hand with the pile card forbidden.
            remember_best_discard(held, top, card, after, scratch)
        elif min_gain >= 1:
            return False
        else:
            _, after = memo_best_discard(held, top, scratch, obs.tab)
    return current - after >= min_gain


@njit(cache=True, inline="always")
def memo_discard(obs, scratch):
    """``best_discard_one`` without the card the rules forbid, through the memo;
    remembers the deadwood the card leaves."""
    card, deadwood = memo_best_discard(obs.hand, forbidden_discard(obs), scratch, obs.tab)
    learn_min_deadwood(obs.hand & ~(np.int64(1) << card), deadwood, scratch)
    return card


@njit(cache=True, inline="always")
def memo_knock_decision(obs, discard, threshold, scratch):
    """``decide_knock`` on the deadwood ``discard`` leaves, through the memo."""
    deadwood = memo_min_deadwood(obs.hand & ~(np.int64(1) << discard), scratch, obs.tab)
    return decide_knock(obs, deadwood, threshold)
