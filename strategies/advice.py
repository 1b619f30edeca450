"""Advice: greedy play with the rule books' tips as knobs (docs/TIPS.md tests them).

In plain words (with every knob at its default it plays exactly as ``greedy``):

* Draw: ``take_if`` says when to take the top card of the discard pile (and the
  Gin upcard):
    0: when that lowers the least deadwood by at least ``min_gain`` (greedy's test);
    1: only when the card completes a meld with cards of the hand ("take the discard
       only when it completes a meld");
    2: when it completes a meld, or makes a pair (a card of its rank in the hand) or a
       two-card run (a card one rank above or below in its suit; no wrap around the
       ace) with the hand.
  Otherwise draw from the stock (pass the upcard).
* Discard: each legal card is scored, and the lowest score is thrown; ties go to the
  card of highest deadwood value, then the highest card index (greedy's order). The
  score is the deadwood the discard leaves (``throw_low = 0``: greedy's discard,
  which throws the highest unmatched card and keeps low cards as cheap deadwood), or
  with ``throw_low = 1`` the card's own value when the card is unmatched in a best
  arrangement of the hand (else 1000 plus the deadwood it leaves), so the lowest
  unmatched card goes first and high cards are kept for melds. Added to the score:
    ``keep_partials`` points, early in the hand, for a card that forms a pair or a
    two-card run with another card of the hand (early keeps pairs and near-runs);
    ``avoid_middle`` points, late in the hand, for a middle card (5 to 9), which
    fits more of an opponent's possible melds than an end card (ace, king).
  "Early" is while ``turn`` (draws so far in the hand, this one included) is below
  ``late_turn``, "late" from then on; with ``late_turn = 0`` the whole hand is late.
* Knock: as greedy, at ``knock_at`` or less (-1: the rules' limit, or 10 where they
  have none) when legal, but before this seat's own turn number ``knock_from`` (1 is
  its first turn) only with no deadwood at all.
* Big gin: when the rules allow it and every card is melded.

Memory: greedy's solver memo (scratch words 1-6, see ``strategies.greedy``) and word 7,
the number of this seat's turns so far (counted by the discard, which every turn asks
once). A discard that scores cards (any of ``throw_low``, ``keep_partials``,
``avoid_middle`` set) solves every candidate afresh: slower than greedy, which is
why these knobs live here and not on greedy (greedy's speed is the engine's
benchmark).
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np
from numba import njit

from kernels.bits import lowest_bit
from kernels.borrow import stack_empty
from kernels.deadwood import discard_deadwoods, discard_order_key, min_deadwood_one
from kernels.greedy import (
    OWN_TURNS,
    knock_threshold,
    learn_min_deadwood,
    memo_discard,
    memo_knock_decision,
    memo_take,
)
from kernels.layout import DECK_CAPACITY
from kernels.link import piece
from kernels.melds import RANK_ACROSS_SUITS
from kernels.obs import DISCARD_HOOK, KNOCK_HOOK, TAKE_HOOK, forbidden_discard
from kernels.tables import CARD_VALUE
from strategies.base import Strategy, param_slots
from strategies.simple import take_nb as meld_take  # simple's draw: only for a meld

MIDDLE_LOW, MIDDLE_HIGH = 4, 8  # rank indices of the middle cards: 5 through 9
MATCHED = 1000  # throw_low: a melded card scores this plus the deadwood it leaves
TAKE_DEADWOOD, TAKE_MELD, TAKE_PARTIAL = 0, 1, 2


class Params(NamedTuple):
    """Advice's parameters."""

    knock_at: int = -1  # knock with this much deadwood or less; -1: the rule's limit, or 10
    min_gain: int = 1  # take_if = 0: take if it lowers the least deadwood this much
    take_if: int = 0  # 0: lowers deadwood; 1: completes a meld; 2: meld, pair or 2-card run
    throw_low: int = 0  # 1: throw the lowest unmatched card first (0: greedy's discard)
    knock_from: int = 0  # before this own turn, knock only with no deadwood
    avoid_middle: int = 0  # late: a middle card (5-9) counts this much more as a discard
    keep_partials: int = 0  # early: breaking a pair or two-card run costs this much
    late_turn: int = 0  # turns below this are early, the rest late


SLOT = param_slots(Params)  # where each field sits in the row the hooks read


@njit(cache=True)
def in_partial(hand, card):
    """True when natural ``card`` makes a pair or a two-card run with a card of
    ``hand`` (``card`` itself excluded): same rank, or one rank apart in its suit."""
    if card >= 52:
        return False
    rest = hand & ~(np.int64(1) << card)
    rank = card % 13
    if rest & (np.int64(RANK_ACROSS_SUITS) << rank):
        return True
    suit_cards = (rest >> (13 * (card // 13))) & 0x1FFF
    near = np.int64(0)
    if rank > 0:
        near |= np.int64(1) << (rank - 1)
    if rank < 12:
        near |= np.int64(1) << (rank + 1)
    return (suit_cards & near) != 0


@njit(cache=True)
def is_middle(card):
    """True for a natural card of rank 5 to 9."""
    rank = card % 13
    return card < 52 and MIDDLE_LOW <= rank <= MIDDLE_HIGH


@piece(TAKE_HOOK)
def take_nb(obs, params, scratch):
    """Take the pile top under the ``take_if`` rule."""
    mode = np.int64(params[SLOT.take_if])
    if mode == TAKE_DEADWOOD:
        return memo_take(obs, np.int64(params[SLOT.min_gain]), scratch)
    if meld_take(obs, params, scratch):
        return True
    if mode != TAKE_PARTIAL or obs.pile_n <= 0:
        return False
    top = obs.pile[obs.pile_n - 1]
    return in_partial(obs.hand | (np.int64(1) << top), top)


@njit(cache=True)
def scored_discard(obs, params, forbidden):
    """The lowest-scoring legal discard (see the module notes) and the deadwood it leaves."""
    throw_low = np.int64(params[SLOT.throw_low]) != 0
    early = obs.turn < np.int64(params[SLOT.late_turn])
    middle_cost = np.int64(0) if early else np.int64(params[SLOT.avoid_middle])
    partial_cost = np.int64(params[SLOT.keep_partials]) if early else np.int64(0)
    whole = min_deadwood_one(obs.hand, obs.tab) if throw_low else np.int64(0)
    best = np.int64(1) << 60
    best_left = np.int64(0)
    lefts = stack_empty(DECK_CAPACITY, 0)
    discard_deadwoods(obs.hand, obs.tab, lefts)
    rest = obs.hand
    while rest:
        card = lowest_bit(rest)
        rest &= rest - 1
        if card == forbidden:
            continue
        left = lefts[card]
        value = np.int64(obs.tab[CARD_VALUE + card])
        score = left
        if throw_low:
            score = value if left + value == whole else MATCHED + left
        if partial_cost and in_partial(obs.hand, card):
            score += partial_cost
        if middle_cost and is_middle(card):
            score += middle_cost
        key = discard_order_key(score, value, card)
        if key < best:
            best = key
            best_left = left
    return 63 - (best & 0xFF), best_left


@piece(DISCARD_HOOK)
def discard_nb(obs, params, scratch):
    """Greedy's discard with every knob at 0; else the lowest-scoring card."""
    scratch[OWN_TURNS] += 1
    if (
        params[SLOT.throw_low] == 0
        and params[SLOT.avoid_middle] == 0
        and params[SLOT.keep_partials] == 0
    ):
        return memo_discard(obs, scratch)
    card, left = scored_discard(obs, params, forbidden_discard(obs))
    learn_min_deadwood(obs.hand & ~(np.int64(1) << card), left, scratch)
    return card


@piece(KNOCK_HOOK)
def knock_nb(obs, params, scratch, discard):
    """Big gin when ready, else knock at the threshold (only gin before ``knock_from``)."""
    threshold = knock_threshold(obs, np.int64(params[SLOT.knock_at]))
    if scratch[OWN_TURNS] < np.int64(params[SLOT.knock_from]):
        threshold = min(threshold, np.int64(0))
    return memo_knock_decision(obs, discard, threshold, scratch)


STRATEGY: Strategy = Strategy(
    name="advice",
    description=__doc__,
    params=Params,
    take_nb=take_nb,
    discard_nb=discard_nb,
    knock_nb=knock_nb,
    module=__name__,
    turn_word=OWN_TURNS,
    bounds={
        "knock_at": (-1, None),
        "take_if": (0, 2),
        "throw_low": (0, 1),
        "knock_from": (0, 1000),
        "avoid_middle": (0, 100),
        "keep_partials": (0, 100),
        "late_turn": (0, 1000),
    },
)
