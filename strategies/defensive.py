"""Defensive: greedy play that avoids feeding the opponents and knocks early under threat.

In plain words:

* Draw: as ``greedy`` (take the pile card when it lowers the least deadwood by at
  least ``min_gain``).
* Discard: among the legal cards whose removal leaves at most ``slack`` more
  deadwood than the best discard, throw the one with the lowest danger score; ties go
  to the least deadwood left, then the highest value, then the highest index (the
  greedy order). The danger of a card is summed over the opponents, from what each
  did in public this hand (``taken``: cards it took from the pile and still holds;
  ``discarded``: cards it threw):
    +3 if it holds a taken card of the same rank (it may be collecting that set);
    +3 if it holds a taken card of the same suit sharing a 3-card run shape with the
       card (ranks one or two apart, as the ace mode allows: K-A under "around");
    -2 if it discarded a card of the same rank (it gave up that set);
    -1 if it discarded a card of the same suit sharing a 3-card run shape.
  A joker scores +3 for every opponent (it fits any meld).
* Knock: an opponent "looks close to going out" when one of them holds at least
  ``alarm_taken`` cards taken from the pile, or when ``turn`` (draws so far in the
  hand, this one included) reaches ``alarm_turn``. The calm threshold is
  ``knock_at``; with ``knock_at = -1`` it is the rule's limit (or 10 where the rules
  have none) minus ``alarm``, not below 0, so the strategy waits for a better hand
  while calm. Under alarm the threshold is raised by ``alarm``. It knocks when the
  deadwood left after the discard is at most the threshold and the knock is legal.
* Big gin: when the rules allow it and every card is melded.

Memory: greedy's solver memo (scratch words 1-6, see ``strategies.greedy``); the
discard also remembers the deadwood its card leaves.
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np
from numba import njit

from kernels.bits import lowest_bit, popcount
from kernels.borrow import stack_empty
from kernels.deadwood import discard_deadwoods
from kernels.greedy import (
    learn_min_deadwood,
    memo_best_discard,
    memo_knock_decision,
    memo_take,
    rule_threshold,
)
from kernels.layout import DECK_CAPACITY
from kernels.link import piece
from kernels.melds import run_near
from kernels.obs import DISCARD_HOOK, KNOCK_HOOK, TAKE_HOOK, forbidden_discard
from kernels.tables import CARD_VALUE
from strategies.base import Strategy, param_slots

RANK_ACROSS_SUITS = 1 | (1 << 13) | (1 << 26) | (1 << 39)
TAKEN_SAME_RANK = 3
TAKEN_RUN_NEAR = 3
DISCARDED_SAME_RANK = -2
DISCARDED_RUN_NEAR = -1
JOKER_DANGER = 3  # per opponent
DANGER_OFFSET = 1 << 10  # keeps packed keys positive: |danger| <= 6 * 5 opponents
NO_KEY = np.int64(1) << 60


class Params(NamedTuple):
    """Defensive's parameters."""

    knock_at: int = -1  # calm threshold; -1: the rule's limit (or 10) minus alarm
    min_gain: int = 1  # take the pile card only if it lowers the least deadwood this much
    slack: int = 2  # discards within this much of the least deadwood are considered
    alarm: int = 2  # threshold raised by this when an opponent looks close
    alarm_taken: int = 2  # alarm when an opponent holds this many cards taken from the pile
    alarm_turn: int = 16  # alarm from this turn on


SLOT = param_slots(Params)  # where each field sits in the row the hooks read


@njit(cache=True)
def danger(obs, card):
    """The danger score of throwing ``card`` (see the module notes)."""
    if card >= 52:
        return JOKER_DANGER * (obs.players - 1)
    rank = card % 13
    suit = card // 13
    same_rank = np.int64(RANK_ACROSS_SUITS) << rank
    near = np.int64(run_near(rank, obs.tab)) << (13 * suit)
    score = 0
    for o in range(obs.players):
        if o == obs.seat:
            continue
        taken = obs.taken[o]
        thrown = obs.discarded[o]
        if taken & same_rank:
            score += TAKEN_SAME_RANK
        if taken & near:
            score += TAKEN_RUN_NEAR
        if thrown & same_rank:
            score += DISCARDED_SAME_RANK
        if thrown & near:
            score += DISCARDED_RUN_NEAR
    return score


@njit(cache=True)
def alarmed(obs, params):
    """True when an opponent looks close to going out (see the module notes)."""
    if obs.turn >= np.int64(params[SLOT.alarm_turn]):
        return True
    for o in range(obs.players):
        if o != obs.seat and popcount(obs.taken[o]) >= np.int64(params[SLOT.alarm_taken]):
            return True
    return False


@piece(TAKE_HOOK)
def take_nb(obs, params, scratch):
    """Greedy's draw."""
    return memo_take(obs, np.int64(params[SLOT.min_gain]), scratch)


@piece(DISCARD_HOOK)
def discard_nb(obs, params, scratch):
    """The least dangerous card within ``slack`` of the least deadwood."""
    forbidden = forbidden_discard(obs)
    _, least = memo_best_discard(obs.hand, forbidden, scratch, obs.tab)
    limit = least + np.int64(params[SLOT.slack])
    best = NO_KEY
    lefts = stack_empty(DECK_CAPACITY, 0)
    discard_deadwoods(obs.hand, obs.tab, lefts)
    rest = obs.hand
    while rest:
        card = lowest_bit(rest)
        rest &= rest - 1
        if card == forbidden:
            continue
        deadwood = lefts[card]
        if deadwood > limit:
            continue
        key = (
            (np.int64(danger(obs, card) + DANGER_OFFSET) << 32)
            | (deadwood << 16)
            | ((255 - np.int64(obs.tab[CARD_VALUE + card])) << 8)
            | (63 - card)
        )
        best = min(best, key)
    choice = 63 - (best & 0xFF)
    learn_min_deadwood(obs.hand & ~(np.int64(1) << choice), (best >> 16) & 0xFFFF, scratch)
    return choice


@piece(KNOCK_HOOK)
def knock_nb(obs, params, scratch, discard):
    """Big gin when ready, else knock at the (possibly raised) threshold when legal."""
    alarm = np.int64(params[SLOT.alarm])
    knock_at = np.int64(params[SLOT.knock_at])
    if knock_at >= 0:
        threshold = knock_at
    else:
        threshold = max(np.int64(0), rule_threshold(obs) - alarm)
    if alarmed(obs, params):
        threshold += alarm
    return memo_knock_decision(obs, discard, threshold, scratch)


STRATEGY: Strategy = Strategy(
    name="defensive",
    description=__doc__,
    params=Params,
    take_nb=take_nb,
    discard_nb=discard_nb,
    knock_nb=knock_nb,
    module=__name__,
    bounds={
        "knock_at": (-1, None),
        "slack": (0, None),
        "alarm": (0, None),
        "alarm_taken": (1, None),
        "alarm_turn": (0, None),
    },
)
