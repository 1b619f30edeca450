"""The rollout policy: how ``mc`` and ``rummy advise`` play a hand's rest in their samples.

These are the engine template's own hooks: ``kernels/engine.py`` calls them where a
generated engine calls its strategies (``sim/engine_build.py``), so the template module
is an engine whose every seat plays this policy, and ``kernels.mc.evaluate`` plays its
rollouts through it. The hand's rules (draws, rebuilds, the dead-hand wall, knocks,
the showdown) thus have one home, the engine's loop.

A seat's parameter row (``kernels.obs.N_PARAMS`` floats) holds the fields of ``Params``
first, each at its slot ``SLOT.<field>``:

* ``knock_at``: knock at this deadwood or less when the knock is legal (-1: the rule's
  limit, or 10 where the rules set none; -2, ``FROM_RULES``: greedy's tuned threshold
  for the hand's rules, ``rollout_knock_at``, as ``mc`` chooses its own); big gin
  whenever allowed and ready;
* ``min_gain``: take the pile's top card when that lowers the least deadwood by this
  much (greedy's test, ``kernels.greedy.memo_take``);
* ``gin_drops``: 0 throws the best discard (greedy's); 1 *throws for gin*: while the
  hand is not gin, the card with the fewest meld partners (``gin_drop``), which keeps
  the pairs and near runs that the least-deadwood discard throws for being high; -1
  throws for gin while no opponent has knocked with deadwood in this game (the seat's
  game memory), as ``mc``'s ``gin_drop=-1`` decides (``kernels.mc.rollout_policy``
  passes 0 or 1 here; the ``rollout`` strategy, ``strategies/rollout.py``, may pass -1).

With ``gin_drops`` 0 this is exactly ``greedy:knock_at=K,min_gain=G``: the same
functions decide.
"""

from typing import NamedTuple

import numpy as np
from numba import njit

from kernels import layout as L
from kernels.bits import lowest_bit
from kernels.deadwood import RANK_ACROSS_SUITS, loose_cards
from kernels.greedy import (
    big_gin_ready,
    knock_threshold,
    memo_best_discard,
    memo_discard,
    memo_knock_decision,
    memo_take,
)
from kernels.obs import BIG_GIN, CONTINUE, GAME_OPP_KNOCKS, forbidden_discard
from kernels.slots import param_slots
from kernels.tables import CARD_VALUE


class Params(NamedTuple):
    """The rollout policy's parameters (``kernels.mc.rollout_params`` writes the rows)."""

    knock_at: int = -1  # knock at this deadwood or less; -1: the rule's limit, or 10; -2: tuned
    min_gain: int = 1  # take the pile card only if it lowers the least deadwood this much
    gin_drops: int = 0  # 1: throw for gin (``gin_drop``); 0: the best discard; -1: until a knock


SLOT = param_slots(Params)  # where each field sits in a seat's row
FROM_RULES = -2  # knock_at: the threshold ``rollout_knock_at`` chooses for the hand's rules


# Greedy's best knock threshold against greedy in Knock Rummy (any deadwood may knock),
# by player count (index): `rummy tune greedy --param knock_at=0..40 --against greedy
# --rules knock-rummy -r players=N --deals 20000 --duplicate --seed 9` (4 players: the
# tune_knock_rummy_greedy experiment). Indices 0 and 1 are never read.
TUNED_KNOCK_RUMMY_AT = (33, 33, 33, 27, 26, 26, 27)


# Gin rules under which playing for gin (rollouts knocking at 0) was greedy's tuned
# threshold against simple: both bonuses at least this, and not Hollywood scoring.
GIN_FIRST_BONUS = 25


@njit(cache=True)
def rollout_knock_at(rules, knock_at):
    """The seat's rollout threshold that ``mc`` and ``rummy advise`` pass to
    ``evaluate``: ``knock_at`` when set (>= 0), else chosen from the rules as greedy's
    tuned threshold there (docs/MC.md, where ``mc`` measured the same way): 0 (play for
    gin) under Gin scoring with gin and undercut bonuses of 25 or more, except in
    Hollywood games (the `gin`, `eaai` and `oklahoma-gin` presets); the tuned threshold
    for the player count (``TUNED_KNOCK_RUMMY_AT``) where any deadwood may knock;
    elsewhere -1, the rule's limit (`gin-classic`, `hollywood-gin`,
    `round-the-corner-gin`)."""
    if knock_at >= 0:
        return knock_at
    if (
        rules[L.R_SCORING] == L.SCORING_GIN
        and rules[L.R_GIN_BONUS] >= GIN_FIRST_BONUS
        and rules[L.R_UNDERCUT_BONUS] >= GIN_FIRST_BONUS
        and rules[L.R_GAME] != L.GAME_HOLLYWOOD
    ):
        return np.int64(0)
    if rules[L.R_KNOCK_LIMIT] == L.KNOCK_ANY:
        return np.int64(TUNED_KNOCK_RUMMY_AT[rules[L.R_PLAYERS]])
    return np.int64(-1)


@njit(cache=True, inline="always")
def take(obs, params, scratch):
    """Greedy's pile test with ``min_gain``."""
    return memo_take(obs, np.int64(params[SLOT.min_gain]), scratch)


@njit(cache=True)
def discard(obs, params, scratch):
    """The best discard; throwing for gin, ``gin_drop``'s card unless the best discard
    leaves gin. (A hand with two cards in no possible meld is not gin whatever it
    throws: ``gin_drop`` then, without a solve.)"""
    gin = params[SLOT.gin_drops]
    if gin == 0 or (gin < 0 and scratch[GAME_OPP_KNOCKS] != 0):
        return memo_discard(obs, scratch)
    forbidden = forbidden_discard(obs)
    if loose_cards(obs.hand, obs.tab) < 2:
        card, deadwood = memo_best_discard(obs.hand, forbidden, scratch, obs.tab)
        if deadwood == 0:
            return card
    return gin_drop(obs.hand, forbidden, obs.tab)


@njit(cache=True)
def knock(obs, params, scratch, card):
    """Big gin when ready, else knock at ``knock_at`` or less (when legal; ``FROM_RULES``:
    ``rollout_knock_at``'s threshold for this hand's rules). Knocking only with gin, a
    hand keeping a card in no possible meld has deadwood: no solve needed."""
    knock_at = np.int64(params[SLOT.knock_at])
    if knock_at == FROM_RULES:
        knock_at = rollout_knock_at(obs.rules, np.int64(-1))
    threshold = knock_threshold(obs, knock_at)
    if threshold == 0 and loose_cards(obs.hand & ~(np.int64(1) << card), obs.tab) > 0:
        return BIG_GIN if big_gin_ready(obs) else CONTINUE
    return memo_knock_decision(obs, card, threshold, scratch)


# Masks for ``meld_partner_counts``: the cards of each rank, in every suit.
_RANK = np.int64(RANK_ACROSS_SUITS)
_NOT_LOW1 = np.int64(L.NATURAL_BITS) & ~_RANK  # a card with a rank below it (not an ace)
_NOT_LOW2 = _NOT_LOW1 & ~(_RANK << 1)
_NOT_HIGH1 = np.int64(L.NATURAL_BITS) & ~(_RANK << 12)  # a card with a rank above it
_NOT_HIGH2 = _NOT_HIGH1 & ~(_RANK << 11)


@njit(cache=True, inline="always")
def _add3(x, y, z):
    """Bitwise full adder: (sum, carry) of three one-bit masks, position by position."""
    half = x ^ y
    return half ^ z, (x & y) | (z & half)


@njit(cache=True)
def meld_partner_counts(hand):
    """For every natural card position, how many meld partners ``hand`` holds for it
    (other cards of its rank; cards of its suit one or two ranks away), bit-sliced:
    ``(ones, twos, fours)``, so the count at card c is bit c of ones + 2 twos + 4 fours
    (0 to 7). Seven one-bit masks (each "the partner at this offset is held") summed
    by full adders, for every card at once, instead of a loop per card."""
    h = hand & L.NATURAL_BITS
    below1 = (h << 1) & _NOT_LOW1
    below2 = (h << 2) & _NOT_LOW2
    above1 = (h >> 1) & _NOT_HIGH1
    above2 = (h >> 2) & _NOT_HIGH2
    # The same rank in the other three suits: the 52 bits rotated by whole suits.
    suit1 = ((h << 13) | (h >> 39)) & L.NATURAL_BITS
    suit2 = ((h << 26) | (h >> 26)) & L.NATURAL_BITS
    suit3 = ((h << 39) | (h >> 13)) & L.NATURAL_BITS
    s1, c1 = _add3(below1, below2, above1)
    s2, c2 = _add3(above2, suit1, suit2)
    ones, c3 = _add3(s1, s2, suit3)
    twos, fours = _add3(c1, c2, c3)
    return ones, twos, fours


@njit(cache=True)
def gin_key(counts, card, tab):
    """``gin_drop``'s order, lowest thrown first: the card's meld partners in the hand
    (from ``meld_partner_counts``), then the highest deadwood value."""
    ones, twos, fours = counts
    partners = ((ones >> card) & 1) + 2 * ((twos >> card) & 1) + 4 * ((fours >> card) & 1)
    return partners * 64 - np.int64(tab[CARD_VALUE + card])


@njit(cache=True)
def gin_drop(hand, forbidden, tab):
    """The discard of a seat that plays for gin: the natural card with the fewest meld
    partners in the hand (``gin_key``), ties to the highest deadwood value, then the
    lowest index. A heuristic, not a solve: it keeps the pairs and near runs that the
    least-deadwood discard throws for being high, which is what a race to gin needs.
    Jokers are never thrown. (The cards with the fewest partners are found as one
    mask from the bit-sliced counts; only those few are compared by value.)"""
    ones, twos, fours = meld_partner_counts(hand)
    allowed = hand & L.NATURAL_BITS
    if forbidden >= 0:
        allowed &= ~(np.int64(1) << forbidden)
    fewest = np.int64(0)
    for count in range(8):  # the least count held by an allowed card
        fewest = allowed
        fewest &= ones if count & 1 else ~ones
        fewest &= twos if count & 2 else ~twos
        fewest &= fours if count & 4 else ~fours
        if fewest:
            break
    best = np.int64(-1)
    best_value = np.int64(-1)
    while fewest:
        c = lowest_bit(fewest)
        fewest &= fewest - 1
        value = np.int64(tab[CARD_VALUE + c])
        if value > best_value:  # ties: the lowest index, met first
            best_value = value
            best = c
    return best
