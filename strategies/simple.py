"""Simple: the baseline Gin player in the style of OpenSpiel's simple bot.

In plain words:

* Draw: take the face-up card only when it would be part of at least one meld made
  with cards of the hand (a set or run of the rule set's meld model, jokers standing
  in as the rules allow); otherwise draw from the stock. In the upcard option: take
  it on the same test, otherwise pass.
* Discard: uniformly at random (from the seat's seeded stream) one of the cards
  whose removal leaves the least deadwood, where the least is taken over every held
  card. Excluded: the card just taken from the pile (always, even where the rules
  would allow throwing it back), and any card that would repeat a
  (card drawn, card discarded) pair this seat already made earlier in the hand.
  Fallback when every least-deadwood card is excluded: the best allowed card in
  best-discard order (least deadwood left, then highest value, then highest index),
  no random draw. If every card is excluded (possible only after the same card was
  drawn again and again from rebuilt stocks), the pair rule is dropped and the same
  best-discard order picks among all cards but the one just taken from the pile.
* Knock: as soon as the deadwood left after the discard is within the knock limit
  (gin at 0); ``knock_at`` (default -1: the rule's limit, or 10 where the rules have
  none) lowers the threshold for threshold studies (a knock is still only made when
  legal). Big gin: when the rules allow it and every card is melded.

Memory (the seat's scratch, zeroed each deal): word ``1 + d`` holds the mask of the
cards discarded after drawing card ``d`` (d = 0..53), so a pair is one bit test.
Words 55-56 (``KEPT_HAND``, ``KEPT_DEADWOOD``): the hand a random least-deadwood
discard left and that deadwood, so the knock need not solve it again (a stale entry
can never match another hand). Decisions never depend on them.
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np
from numba import njit

from kernels.bits import lowest_bit, popcount
from kernels.borrow import stack_empty
from kernels.deadwood import (
    discard_deadwoods_by_search,
    discard_order_key,
    least_removals,
    min_deadwood_one,
)
from kernels.greedy import decide_knock, knock_threshold
from kernels.layout import DECK_CAPACITY
from kernels.melds import melds_with
from kernels.obs import SCRATCH_FREE, forbidden_discard, strategy_below
from kernels.tables import CARD_VALUE
from strategies.base import Strategy, param_slots

PAIRS = SCRATCH_FREE  # scratch[PAIRS + drawn]: mask of cards discarded after that draw
KEPT_HAND = PAIRS + 54  # the hand after the last least-deadwood discard
KEPT_DEADWOOD = KEPT_HAND + 1  # its least deadwood
NO_KEY = np.int64(1) << 40  # above every packed best-discard key


class Params(NamedTuple):
    """Simple's parameters."""

    knock_at: int = -1  # knock at this deadwood or less; -1: the rule's limit, or 10


SLOT = param_slots(Params)  # where each field sits in the row the hooks read


@njit(cache=True, inline="always")
def take_nb(obs, params, scratch):
    """Take the pile top when it would sit in a meld with the hand."""
    if obs.pile_n <= 0:
        return False
    return melds_with(obs.hand, obs.pile[obs.pile_n - 1], obs.tab)


@njit(cache=True)
def _fallback_discard(hand, excluded, just_taken, tab):
    """Every least-deadwood card is excluded: the best allowed card in best-discard
    order, or (every card excluded) the best of all but the card just taken."""
    best_allowed = NO_KEY
    best_any = NO_KEY
    lefts = stack_empty(DECK_CAPACITY, 0)
    discard_deadwoods_by_search(hand, tab, lefts)  # rare: not worth the piece's compile
    rest = hand
    while rest:
        card = lowest_bit(rest)
        bit = np.int64(1) << card
        rest &= rest - 1
        deadwood = lefts[card]
        key = discard_order_key(deadwood, np.int64(tab[CARD_VALUE + card]), card)
        if not bit & excluded:
            best_allowed = min(best_allowed, key)
        if not bit & just_taken:
            best_any = min(best_any, key)
    if best_allowed < NO_KEY:
        return 63 - (best_allowed & 0xFF)
    return 63 - (best_any & 0xFF)


@njit(cache=True, inline="always")
def discard_nb(obs, params, scratch):
    """A random least-deadwood card, minus the excluded ones; see the module notes."""
    hand = obs.hand
    just_taken = np.int64(0)
    if obs.from_pile and obs.drawn >= 0:
        just_taken = np.int64(1) << obs.drawn
    forbidden = forbidden_discard(obs)
    if forbidden >= 0:
        just_taken |= np.int64(1) << forbidden  # the same card; kept for clarity
    excluded = just_taken
    if obs.drawn >= 0:
        excluded |= scratch[PAIRS + obs.drawn]
    least, least_mask = least_removals(hand, obs.tab)
    candidates = least_mask & ~excluded
    if candidates != 0:
        k = strategy_below(obs, scratch, popcount(candidates))
        for _ in range(k):
            candidates &= candidates - 1
        choice = lowest_bit(candidates)
        scratch[KEPT_HAND] = hand & ~(np.int64(1) << choice)
        scratch[KEPT_DEADWOOD] = least
    else:
        choice = _fallback_discard(hand, excluded, just_taken, obs.tab)
    if obs.drawn >= 0:
        scratch[PAIRS + obs.drawn] |= np.int64(1) << choice
    return choice


@njit(cache=True, inline="always")
def knock_nb(obs, params, scratch, discard):
    """Big gin when ready, else knock as soon as within the limit (or ``knock_at``)."""
    kept = obs.hand & ~(np.int64(1) << discard)
    if scratch[KEPT_HAND] == kept:
        deadwood = scratch[KEPT_DEADWOOD]
    else:
        deadwood = min_deadwood_one(kept, obs.tab)
    return decide_knock(obs, deadwood, knock_threshold(obs, np.int64(params[SLOT.knock_at])))


STRATEGY: Strategy = Strategy(
    name="simple",
    description=__doc__,
    params=Params,
    take_nb=take_nb,
    discard_nb=discard_nb,
    knock_nb=knock_nb,
    module=__name__,
    bounds={"knock_at": (-1, None)},
)
