"""Pure-Python twins of the built-in strategies (``strategies/*.py``), for the tests and
the reference engine.

Each twin makes the same decisions as its numba strategy, random draws included,
written the plain way: lists, sorted candidates, ``min`` over tuples.

Conventions
-----------
- Observation: any object with the attributes of ``kernels.obs.Obs`` in plain Python
  form (``RefObs`` below is one): ``seat``, ``players``, ``hand`` (int mask),
  ``pile`` (list of cards, bottom to top; when the object also has ``pile_n``, only
  ``pile[:pile_n]`` counts), ``taken`` and ``discarded`` (lists of int masks, one per
  seat), ``stock_n``, ``turn``, ``phase``, ``upcard``, ``drawn``, ``from_pile``,
  ``dealer``, ``rules`` (the compiled rule vector as a list or array of ints),
  ``scores``, ``rng_key`` (int). There is no ``tab``: deadwood comes from
  ``deadwood_ref.min_deadwood_ref`` with a rules namespace built from the rule vector
  (``rules_namespace``: ace mode, ace and joker values), memoised per hand.
- ``params``: the parameter values in field order, as the NamedTuple or as the
  float vector the numba hooks get (int fields are read back with ``int()``).
- ``scratch``: a list of ``SCRATCH_SIZE`` ints, zeroed each deal. ``scratch[0]`` is the
  seat's random counter: a draw is ``rng_ref.below(obs.rng_key, scratch[0], n)`` and
  the counter moves on, exactly as ``kernels.obs.strategy_below`` does.
  ``simple`` keeps its (drawn, discarded) pairs in ``scratch[1 + drawn]`` as a mask
  of the cards discarded after drawing that card (the numba layout, so the two can
  be compared word for word). ``greedy``, ``schedule`` and ``defensive`` keep the
  solver memo of ``strategies.greedy`` in words 1-6 (``BEST_*``, ``LEAST_*``): the
  twins compute every answer afresh and write the words the numba hooks leave
  (a numba hook that finds its answer there writes nothing, the same words).
- ``SOLVER(cards, ace, ace_high_value, joker_value) -> int``: the least-deadwood
  function the twins use (module attribute; a test may swap in a faster solver that
  is itself tested against ``deadwood_ref``).

``REF_STRATEGIES[name]`` has ``take(obs, params, scratch) -> bool``,
``discard(obs, params, scratch) -> int`` and ``knock(obs, params, scratch, discard)
-> int`` (``CONTINUE``, ``KNOCK`` or ``BIG_GIN``).
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from fractions import Fraction
from functools import cache, lru_cache
from typing import Any

from kernels.chart import DRAW_LOWER_1
from kernels.layout import (
    ACE_AROUND,
    ACE_HIGH_OR_LOW,
    ACE_LOW,
    KNOCK_UPCARD,
    R_ACE,
    R_ACE_HIGH_VALUE,
    R_BIG_GIN_BONUS,
    R_DISCARD_TAKEN_CARD,
    R_JOKER_VALUE,
    R_KNOCK_LIMIT,
)
from kernels.obs import GAME_OPP_KNOCKS
from tests.reference import deadwood_ref, rng_ref
from tests.reference.rules_ns import make_rules

# The codes of kernels/obs.py (a test checks they agree).
PHASE_UPCARD_OPTION = 0
PHASE_DRAW = 1
PHASE_DISCARD = 2
CONTINUE = 0
KNOCK = 1
BIG_GIN = 2
SCRATCH_SIZE = 80
N_PARAMS = 224

ACE_NAMES = {ACE_LOW: "low", ACE_HIGH_OR_LOW: "high_or_low", ACE_AROUND: "around"}
DEFAULT_KNOCK_AT = 10  # greedy family: the threshold where the rules set no limit
# The greedy family's solver memo in the scratch (strategies/greedy.py).
BEST_HAND, BEST_FORBIDDEN, BEST_CARD, BEST_DEADWOOD = 1, 2, 3, 4
LEAST_HAND, LEAST_DEADWOOD = 5, 6
PROBABILITY_STEPS = 1_000_000


@dataclass
class RefObs:
    """A plain-Python observation with the fields of ``kernels.obs.Obs`` (no ``tab``)."""

    seat: int
    players: int
    hand: int
    pile: list[int]
    taken: list[int]
    discarded: list[int]
    stock_n: int
    rebuilds: int  # stock rebuilds so far this hand
    rebuilt: int  # mask of the cards the last rebuild put into the stock (0: none)
    turn: int
    phase: int
    upcard: int
    drawn: int
    from_pile: bool
    dealer: int
    rules: Sequence[int]
    scores: list[int] = field(default_factory=list)
    rng_key: int = 0

    @property
    def pile_n(self) -> int:
        return len(self.pile)


# --- cards, rules and the solver -----------------------------------------------------


def near_ranks(rules: Any, rank: int) -> set[int]:
    """The ranks sharing a 3-card run shape with ``rank`` under the rules' ace mode
    (twin of ``kernels.melds.run_near``)."""
    ace = rules_namespace(rules).ace
    return set().union(*(w for w in deadwood_ref.run_windows(3, ace) if rank in w)) - {rank}


def cards_of(mask: int) -> list[int]:
    """Ascending card indices of a mask (bits 0..53), lowest set bit first."""
    rest = int(mask) & ((1 << 54) - 1)
    cards = []
    while rest:
        low = rest & -rest
        cards.append(low.bit_length() - 1)
        rest ^= low
    return cards


def rules_namespace(rules: Sequence[int]) -> Any:
    """The ``deadwood_ref`` rules namespace of a compiled rule vector."""
    return _namespace(int(rules[R_ACE]), int(rules[R_ACE_HIGH_VALUE]), int(rules[R_JOKER_VALUE]))


@cache
def _namespace(ace: int, ace_high_value: int, joker_value: int) -> Any:
    return make_rules(ace=ACE_NAMES[ace], ace_high_value=ace_high_value, joker_value=joker_value)


@lru_cache(maxsize=1 << 18)
def _reference_solver(
    cards: frozenset[int], ace: str, ace_high_value: int, joker_value: int
) -> int:
    rules = make_rules(ace=ace, ace_high_value=ace_high_value, joker_value=joker_value)
    return deadwood_ref.min_deadwood_ref(cards, rules)


SOLVER: Callable[[frozenset[int], str, int, int], int] = _reference_solver


def min_deadwood(mask: int, obs: Any) -> int:
    """Least deadwood of the cards of ``mask`` under the observation's rules."""
    ns = rules_namespace(obs.rules)
    hand = int(mask) & ((1 << 54) - 1)
    return _solved(SOLVER, hand, ns.ace, ns.ace_high_value, ns.joker_value)


# The rollouts of the twins ask about the same hands over and over: each answer is kept,
# by the solver asked (tests swap ``SOLVER``), the hand and the rule values it depends on.
@lru_cache(maxsize=1 << 18)
def _solved(solver: Callable[..., int], hand: int, ace: str, high: int, joker: int) -> int:
    return solver(frozenset(cards_of(hand)), ace, high, joker)


def value_of(card: int, obs: Any) -> int:
    return deadwood_ref.card_value(card, rules_namespace(obs.rules))


def pile_of(obs: Any) -> list[int]:
    pile = [int(card) for card in obs.pile]
    n = getattr(obs, "pile_n", len(pile))
    return pile[:n]


def forbidden_discard(obs: Any) -> int | None:
    """The card just taken from the pile, unless the rules allow throwing it back."""
    if obs.from_pile and int(obs.rules[R_DISCARD_TAKEN_CARD]) == 0:
        return int(obs.drawn)
    return None


def knock_limit(obs: Any) -> int:
    """The knock limit (-1: any), as ``kernels.showdown.knock_limit_of``."""
    limit = int(obs.rules[R_KNOCK_LIMIT])
    if limit != KNOCK_UPCARD:
        return limit
    rank = int(obs.upcard) % 13
    if rank == 0:
        return 0  # an Ace upcard allows only going out with zero deadwood
    return min(rank + 1, 10)


def knock_legal(obs: Any, deadwood: int) -> bool:
    limit = knock_limit(obs)
    return limit < 0 or deadwood <= limit


def big_gin_ready(obs: Any) -> bool:
    return int(obs.rules[R_BIG_GIN_BONUS]) > 0 and min_deadwood(obs.hand, obs) == 0


def without(mask: int, card: int) -> int:
    return int(mask) & ~(1 << card)


def draw(obs: Any, scratch: list[int], n: int) -> int:
    """Uniform integer in [0, n) from the seat's stream; moves the counter on."""
    value, scratch[0] = rng_ref.below(int(obs.rng_key), int(scratch[0]), n)
    return value


def chance(obs: Any, scratch: list[int], p: float) -> bool:
    return draw(obs, scratch, PROBABILITY_STEPS) < p * PROBABILITY_STEPS


def read_params(params: Sequence[float], fields: Sequence[tuple[str, type]]) -> dict[str, Any]:
    """Parameter values by name: ``fields`` is ``(name, int or float)`` in order."""
    values = list(params)
    return {name: kind(values[i]) for i, (name, kind) in enumerate(fields)}


def discard_order(obs: Any, card: int) -> tuple[int, int, int]:
    """Best-discard order: least deadwood left, then highest value, then highest index."""
    return (min_deadwood(without(obs.hand, card), obs), -value_of(card, obs), -card)


def best_discard(obs: Any, hand: int, forbidden: int | None) -> tuple[int, int]:
    """``(card, deadwood left)`` of the best discard of ``hand`` (not ``forbidden``)."""
    scored = [
        (min_deadwood(without(hand, card), obs), -value_of(card, obs), -card, card)
        for card in cards_of(hand)
        if card != forbidden
    ]
    deadwood, _, _, card = min(scored)
    return card, deadwood


# --- the greedy family ---------------------------------------------------------------


def rule_threshold(obs: Any) -> int:
    limit = knock_limit(obs)
    return DEFAULT_KNOCK_AT if limit < 0 else limit


def knock_threshold(obs: Any, knock_at: int) -> int:
    return knock_at if knock_at >= 0 else rule_threshold(obs)


def knock_decision(obs: Any, discard: int, threshold: int) -> int:
    if big_gin_ready(obs):
        return BIG_GIN
    deadwood = min_deadwood(without(obs.hand, discard), obs)
    if deadwood <= threshold and knock_legal(obs, deadwood):
        return KNOCK
    return CONTINUE


def greedy_take(obs: Any, min_gain: int) -> bool:
    pile = pile_of(obs)
    if not pile:
        return False
    top = pile[-1]
    current = min_deadwood(obs.hand, obs)
    forbidden = None if int(obs.rules[R_DISCARD_TAKEN_CARD]) else top
    _, after = best_discard(obs, int(obs.hand) | (1 << top), forbidden)
    return current - after >= min_gain


def greedy_discard(obs: Any) -> int:
    card, _ = best_discard(obs, obs.hand, forbidden_discard(obs))
    return card


def memo_min_deadwood(obs: Any, scratch: list[int], mask: int) -> int:
    """``min_deadwood`` as the memo leaves the scratch (LEAST_* words)."""
    deadwood = min_deadwood(mask, obs)
    learn_min_deadwood(scratch, mask, deadwood)
    return deadwood


def learn_min_deadwood(scratch: list[int], mask: int, deadwood: int) -> None:
    scratch[LEAST_HAND] = int(mask)
    scratch[LEAST_DEADWOOD] = deadwood


def memo_best_discard(
    obs: Any, scratch: list[int], hand: int, forbidden: int | None
) -> tuple[int, int]:
    """``best_discard`` as the memo leaves the scratch (BEST_* words)."""
    card, deadwood = best_discard(obs, hand, forbidden)
    scratch[BEST_HAND] = int(hand)
    scratch[BEST_FORBIDDEN] = -1 if forbidden is None else int(forbidden)
    scratch[BEST_CARD] = card
    scratch[BEST_DEADWOOD] = deadwood
    return card, deadwood


def cannot_gain(obs: Any, deadwood: int, card: int) -> bool:
    """The kernel's no-solve refusal: no joker in hand + card, the card in no meld of
    it, and worth at least the hand's least deadwood or at least any natural card."""
    held = cards_of(int(obs.hand) | (1 << card))
    if any(deadwood_ref.is_joker(c) for c in held):
        return False
    if any(card in meld for meld in deadwood_ref.melds_in(held, rules_namespace(obs.rules))):
        return False
    value = value_of(card, obs)
    return value >= deadwood or value >= max(value_of(c, obs) for c in range(52))


def memo_take(obs: Any, min_gain: int, scratch: list[int]) -> bool:
    """The plain take test (``greedy_take``), leaving the scratch as the memo does: the
    hand's least deadwood is remembered; a pile card that ``cannot_gain`` (with
    ``min_gain >= 1``) is refused with no other word written; otherwise it asks for the
    best discard of hand + pile card with nothing forbidden first; when the taken card
    may not be thrown back, it files that answer under the pile card when another card
    is the best, and asks again with the pile card forbidden only when the pile card is
    the best and ``min_gain`` is below 1."""
    pile = pile_of(obs)
    if not pile:
        return False
    top = pile[-1]
    current = memo_min_deadwood(obs, scratch, int(obs.hand))
    if min_gain >= 1 and cannot_gain(obs, current, top):
        assert not greedy_take(obs, min_gain), "cannot_gain refused a card that gains"
        return False
    held = int(obs.hand) | (1 << top)
    card, _ = memo_best_discard(obs, scratch, held, None)
    if not int(obs.rules[R_DISCARD_TAKEN_CARD]):
        if card != top:
            scratch[BEST_FORBIDDEN] = top
        elif min_gain < 1:
            memo_best_discard(obs, scratch, held, top)
    return greedy_take(obs, min_gain)


def memo_discard(obs: Any, scratch: list[int]) -> int:
    card, deadwood = memo_best_discard(obs, scratch, int(obs.hand), forbidden_discard(obs))
    learn_min_deadwood(scratch, without(obs.hand, card), deadwood)
    return card


def memo_knock_decision(obs: Any, discard: int, threshold: int, scratch: list[int]) -> int:
    # the memo learns the deadwood left first, as the kernel's does, big gin or not
    deadwood = memo_min_deadwood(obs, scratch, without(obs.hand, discard))
    if big_gin_ready(obs):
        return BIG_GIN
    if deadwood <= threshold and knock_legal(obs, deadwood):
        return KNOCK
    return CONTINUE


class RandomRef:
    FIELDS = (("p", float),)

    def take(self, obs: Any, params: Sequence[float], scratch: list[int]) -> bool:
        if not pile_of(obs):
            return False
        return draw(obs, scratch, 2) == 1

    def discard(self, obs: Any, params: Sequence[float], scratch: list[int]) -> int:
        forbidden = forbidden_discard(obs)
        legal = [card for card in cards_of(obs.hand) if card != forbidden]
        return legal[draw(obs, scratch, len(legal))]

    def knock(self, obs: Any, params: Sequence[float], scratch: list[int], discard: int) -> int:
        p = read_params(params, self.FIELDS)["p"]
        if big_gin_ready(obs) and chance(obs, scratch, p):
            return BIG_GIN
        deadwood = min_deadwood(without(obs.hand, discard), obs)
        if knock_legal(obs, deadwood) and chance(obs, scratch, p):
            return KNOCK
        return CONTINUE


class GreedyRef:
    FIELDS = (("knock_at", int), ("min_gain", int))

    def take(self, obs: Any, params: Sequence[float], scratch: list[int]) -> bool:
        return memo_take(obs, read_params(params, self.FIELDS)["min_gain"], scratch)

    def discard(self, obs: Any, params: Sequence[float], scratch: list[int]) -> int:
        return memo_discard(obs, scratch)

    def knock(self, obs: Any, params: Sequence[float], scratch: list[int], discard: int) -> int:
        knock_at = read_params(params, self.FIELDS)["knock_at"]
        return memo_knock_decision(obs, discard, knock_threshold(obs, knock_at), scratch)


class SimpleRef:
    FIELDS = (("knock_at", int),)
    PAIRS = 1  # scratch[1 + drawn]: mask of the cards discarded after drawing ``drawn``
    KEPT_HAND, KEPT_DEADWOOD = 55, 56  # the knock's memo: hand after a least discard

    def take(self, obs: Any, params: Sequence[float], scratch: list[int]) -> bool:
        pile = pile_of(obs)
        if not pile:
            return False
        top = pile[-1]
        hand = cards_of(obs.hand) + [top]
        melds = deadwood_ref.melds_in(hand, rules_namespace(obs.rules))
        return any(top in meld for meld in melds)

    def discard(self, obs: Any, params: Sequence[float], scratch: list[int]) -> int:
        hand = cards_of(obs.hand)
        drawn = int(obs.drawn)
        just_taken = {drawn} if obs.from_pile and drawn >= 0 else set()
        forbidden = forbidden_discard(obs)
        if forbidden is not None:
            just_taken.add(forbidden)
        repeated = set(cards_of(scratch[self.PAIRS + drawn])) if drawn >= 0 else set()
        excluded = just_taken | repeated
        left = {card: min_deadwood(without(obs.hand, card), obs) for card in hand}
        least = min(left.values())
        candidates = [card for card in hand if left[card] == least and card not in excluded]
        allowed = [card for card in hand if card not in excluded]
        if candidates:
            choice = candidates[draw(obs, scratch, len(candidates))]
            scratch[self.KEPT_HAND] = without(obs.hand, choice)
            scratch[self.KEPT_DEADWOOD] = least
        elif allowed:
            choice = min(allowed, key=lambda card: discard_order(obs, card))
        else:
            rest = [card for card in hand if card not in just_taken]
            choice = min(rest, key=lambda card: discard_order(obs, card))
        if drawn >= 0:
            scratch[self.PAIRS + drawn] |= 1 << choice
        return choice

    def knock(self, obs: Any, params: Sequence[float], scratch: list[int], discard: int) -> int:
        knock_at = read_params(params, self.FIELDS)["knock_at"]
        return knock_decision(obs, discard, knock_threshold(obs, knock_at))


class ScheduleRef:
    FIELDS = (("a", float), ("b", float), ("lo", float), ("min_gain", int))

    def take(self, obs: Any, params: Sequence[float], scratch: list[int]) -> bool:
        return memo_take(obs, read_params(params, self.FIELDS)["min_gain"], scratch)

    def discard(self, obs: Any, params: Sequence[float], scratch: list[int]) -> int:
        return memo_discard(obs, scratch)

    def knock(self, obs: Any, params: Sequence[float], scratch: list[int], discard: int) -> int:
        p = read_params(params, self.FIELDS)
        threshold = math.floor(max(p["lo"], p["a"] - p["b"] * int(obs.turn)))
        return memo_knock_decision(obs, discard, threshold, scratch)


class DefensiveRef:
    FIELDS = (
        ("knock_at", int),
        ("min_gain", int),
        ("slack", int),
        ("alarm", int),
        ("alarm_taken", int),
        ("alarm_turn", int),
    )

    def take(self, obs: Any, params: Sequence[float], scratch: list[int]) -> bool:
        return memo_take(obs, read_params(params, self.FIELDS)["min_gain"], scratch)

    @staticmethod
    def danger(obs: Any, card: int) -> int:
        opponents = [o for o in range(obs.players) if o != obs.seat]
        if card >= 52:
            return 3 * len(opponents)
        rank, suit = card % 13, card // 13
        near = near_ranks(obs.rules, rank)
        score = 0
        for o in opponents:
            taken = cards_of(obs.taken[o])
            thrown = cards_of(obs.discarded[o])
            if any(c < 52 and c % 13 == rank for c in taken):
                score += 3
            if any(c < 52 and c // 13 == suit and c % 13 in near for c in taken):
                score += 3
            if any(c < 52 and c % 13 == rank for c in thrown):
                score -= 2
            if any(c < 52 and c // 13 == suit and c % 13 in near for c in thrown):
                score -= 1
        return score

    def discard(self, obs: Any, params: Sequence[float], scratch: list[int]) -> int:
        slack = read_params(params, self.FIELDS)["slack"]
        forbidden = forbidden_discard(obs)
        legal = [card for card in cards_of(obs.hand) if card != forbidden]
        left = {card: min_deadwood(without(obs.hand, card), obs) for card in legal}
        _, least = memo_best_discard(obs, scratch, int(obs.hand), forbidden)
        near_best = [card for card in legal if left[card] <= least + slack]
        choice = min(
            near_best,
            key=lambda card: (self.danger(obs, card), left[card], -value_of(card, obs), -card),
        )
        learn_min_deadwood(scratch, without(obs.hand, choice), left[choice])
        return choice

    def alarmed(self, obs: Any, p: dict[str, Any]) -> bool:
        if int(obs.turn) >= p["alarm_turn"]:
            return True
        return any(
            len(cards_of(obs.taken[o])) >= p["alarm_taken"]
            for o in range(obs.players)
            if o != obs.seat
        )

    def knock(self, obs: Any, params: Sequence[float], scratch: list[int], discard: int) -> int:
        p = read_params(params, self.FIELDS)
        if p["knock_at"] >= 0:
            threshold = p["knock_at"]
        else:
            threshold = max(0, rule_threshold(obs) - p["alarm"])
        if self.alarmed(obs, p):
            threshold += p["alarm"]
        return memo_knock_decision(obs, discard, threshold, scratch)


class AdviceRef:
    """``strategies/advice.py``: greedy with the rule books' tips as knobs."""

    FIELDS = (
        ("knock_at", int),
        ("min_gain", int),
        ("take_if", int),
        ("throw_low", int),
        ("knock_from", int),
        ("avoid_middle", int),
        ("keep_partials", int),
        ("late_turn", int),
    )
    OWN_TURNS = 7  # scratch word: the seat's turns so far (counted by the discard)
    MATCHED = 1000

    @staticmethod
    def partial(hand: int, card: int) -> bool:
        """A pair or a two-card run (one rank apart in the suit, no wrap) with the hand."""
        if card >= 52:
            return False
        rank, suit = card % 13, card // 13
        others = [c for c in cards_of(hand) if c != card and c < 52]
        return any(c % 13 == rank or (c // 13 == suit and abs(c % 13 - rank) == 1) for c in others)

    def take(self, obs: Any, params: Sequence[float], scratch: list[int]) -> bool:
        p = read_params(params, self.FIELDS)
        if p["take_if"] == 0:
            return memo_take(obs, p["min_gain"], scratch)
        if SimpleRef().take(obs, params, scratch):  # completes a meld
            return True
        pile = pile_of(obs)
        if p["take_if"] != 2 or not pile:
            return False
        return self.partial(int(obs.hand) | (1 << pile[-1]), pile[-1])

    def discard(self, obs: Any, params: Sequence[float], scratch: list[int]) -> int:
        p = read_params(params, self.FIELDS)
        scratch[self.OWN_TURNS] += 1
        if p["throw_low"] == 0 and p["avoid_middle"] == 0 and p["keep_partials"] == 0:
            return memo_discard(obs, scratch)
        early = int(obs.turn) < p["late_turn"]
        whole = min_deadwood(obs.hand, obs)
        forbidden = forbidden_discard(obs)
        scored = []
        for card in cards_of(obs.hand):
            if card == forbidden:
                continue
            left = min_deadwood(without(obs.hand, card), obs)
            value = value_of(card, obs)
            score = left
            if p["throw_low"]:
                score = value if left + value == whole else self.MATCHED + left
            if early and self.partial(int(obs.hand), card):
                score += p["keep_partials"]
            if not early and card < 52 and 4 <= card % 13 <= 8:
                score += p["avoid_middle"]
            scored.append((score, -value, -card, card, left))
        *_, card, left = min(scored)
        learn_min_deadwood(scratch, without(obs.hand, card), left)
        return card

    def knock(self, obs: Any, params: Sequence[float], scratch: list[int], discard: int) -> int:
        p = read_params(params, self.FIELDS)
        threshold = knock_threshold(obs, p["knock_at"])
        if scratch[self.OWN_TURNS] < p["knock_from"]:
            threshold = min(threshold, 0)
        return memo_knock_decision(obs, discard, threshold, scratch)


_CHART_CARD = (
    *((f"k{t}", int) for t in range(1, 21)),
    *((f"t{t}", int) for t in range(1, 21)),
    ("safety", int),
    ("lookahead", int),
    ("gin_chance", int),
)
# Then a card for each number of players a pool may have left, 2 to 5, where ``layers``
# has bit n - 2.
_CHART_FIELDS = (
    *_CHART_CARD,
    ("layers", int),
    *((f"n{n}_{name}", kind) for n in (2, 3, 4, 5) for name, kind in _CHART_CARD),
)


class ChartRef:
    """``strategies/chart.py``: knock and take masks per own turn, a safety order, a
    lookahead weight and a gin chance weight."""

    TURNS, OWN_TURNS = 20, 7
    CARD = _CHART_CARD
    FIELDS = _CHART_FIELDS

    def card(self, obs: Any, params: Sequence[float]) -> dict[str, Any]:
        """The card this hand is played by: the layer for the players at the table where
        the chart has one, else its own fields."""
        p = read_params(params, self.FIELDS)
        n = int(obs.players)
        if 2 <= n <= 5 and p["layers"] >> (n - 2) & 1:
            return {name: p[f"n{n}_{name}"] for name, _ in self.CARD}
        return p

    def row(self, turns: int) -> int:
        return min(max(turns, 1), self.TURNS)

    @staticmethod
    def knocks_with(mask: int, deadwood: int) -> bool:
        """Bits 0-29: that deadwood; bit 30: 30 or more, but for the deadwood d (30 to
        50) whose bit d + 1 is set: those do the opposite."""
        if deadwood < 30:
            return bool(mask >> deadwood & 1)
        reversed_ = {d for d in range(30, 51) if mask >> (d + 1) & 1}
        return bool(mask >> 30 & 1) != (deadwood in reversed_)

    def take(self, obs: Any, params: Sequence[float], scratch: list[int]) -> bool:
        from tests.reference.draw_class_ref import draw_class_ref  # it imports this module

        p = self.card(obs, params)
        pile = pile_of(obs)
        if not pile:
            return False
        mask = p[f"t{self.row(scratch[self.OWN_TURNS] + 1)}"]
        if mask >> 7 & 1 and memo_take(obs, 1, scratch):
            return True
        column = draw_class_ref(obs, int(obs.hand), pile[-1])
        # Past its shortcuts (no class, or a meld only) the kernel asks for the lowering
        # through the seat's memo, which its words then show.
        if mask & ((1 << 7) - 1) not in (0, 1) and column >= DRAW_LOWER_1:
            forbidden = pile[-1] if obs.rules[R_DISCARD_TAKEN_CARD] == 0 else None
            memo_best_discard(obs, scratch, int(obs.hand) | (1 << pile[-1]), forbidden)
            memo_min_deadwood(obs, scratch, int(obs.hand))
        return bool(mask >> column & 1)

    def place(self, safety: int, card: int) -> int:
        if card >= 52:
            return 14
        order = [(safety >> (4 * i)) & 15 for i in range(13)]
        return order.index(card % 13) if card % 13 in order else 13

    def discard(self, obs: Any, params: Sequence[float], scratch: list[int]) -> int:
        p = self.card(obs, params)
        safety = p["safety"]
        scratch[self.OWN_TURNS] += 1
        forbidden = forbidden_discard(obs)
        hand = cards_of(obs.hand)
        left = {card: min_deadwood(without(obs.hand, card), obs) for card in hand}
        least = min(left.values())
        mask = p[f"k{self.row(scratch[self.OWN_TURNS])}"]
        knocks = self.knocks_with(mask, least) and knock_legal(obs, least)
        weights = p["lookahead"], p["gin_chance"]
        if max(weights) > 0 and not (knocks or big_gin_ready(obs)):
            legal = [card for card in hand if card != forbidden]
            scores = {card: self.lookahead_score(obs, *weights, card, left[card])
                      for card in legal}  # fmt: skip
            card = min(legal, key=lambda c: (scores[c], self.place(safety, c),
                                             -value_of(c, obs), -c))  # fmt: skip
            learn_min_deadwood(scratch, without(obs.hand, card), left[card])
            return card
        legal = [card for card in hand if left[card] == least and card != forbidden]
        if safety == 0 or not legal:
            return memo_discard(obs, scratch)
        card = min(legal, key=lambda c: (self.place(safety, c), -value_of(c, obs), -c))
        learn_min_deadwood(scratch, without(obs.hand, card), least)
        return card

    def lookahead_score(
        self, obs: Any, weight: int, gin_weight: int, card: int, deadwood: int
    ) -> Fraction:
        """Deadwood left by throwing ``card``, less weight/10 x the next draw's mean
        saving and gin_weight x its chance of gin: over the hidden cards, what drawing
        one that melds with the cards kept (and throwing the best card) takes off that
        deadwood, and whether it leaves none."""
        from tests.reference.mc_ref import hidden_cards, melds_with  # it imports this module

        kept = without(obs.hand, card)
        hidden = hidden_cards(obs)
        after = [best_discard(obs, kept | 1 << u, None)[1] for u in hidden
                 if melds_with(obs, kept, u)]  # fmt: skip
        saving = sum(max(deadwood - a, 0) for a in after)
        gins = sum(a == 0 for a in after)
        n = max(len(hidden), 1)
        return deadwood - Fraction(weight * saving, 10 * n) - Fraction(gin_weight * gins, n)

    def knock(self, obs: Any, params: Sequence[float], scratch: list[int], discard: int) -> int:
        p = self.card(obs, params)
        deadwood = memo_min_deadwood(obs, scratch, without(obs.hand, discard))
        mask = p[f"k{self.row(scratch[self.OWN_TURNS])}"]
        wanted = self.knocks_with(mask, deadwood)
        return memo_knock_decision(obs, discard, deadwood if wanted else -1, scratch)


def loose_count(obs: Any, hand: int) -> int:
    """Natural cards of ``hand`` in no possible meld of it (0 with a joker)."""
    held = cards_of(int(hand))
    if any(deadwood_ref.is_joker(c) for c in held):
        return 0
    melded = {c for meld in deadwood_ref.melds_in(held, rules_namespace(obs.rules)) for c in meld}
    return sum(1 for c in held if c not in melded)


class RolloutRef:
    """Twin of ``kernels/rollout.py``'s hooks, the ``rollout`` strategy: greedy, and
    throwing for gin (``gin_drop``) with ``gin_drops`` 1, or -1 while the game memory
    counts no opponent's knock with deadwood."""

    FIELDS = (("knock_at", int), ("min_gain", int), ("gin_drops", int))

    def take(self, obs: Any, params: Sequence[float], scratch: list[int]) -> bool:
        return memo_take(obs, read_params(params, self.FIELDS)["min_gain"], scratch)

    def discard(self, obs: Any, params: Sequence[float], scratch: list[int]) -> int:
        from tests.reference.mc_ref import gin_drop

        gin = read_params(params, self.FIELDS)["gin_drops"]
        if gin == 0 or (gin < 0 and scratch[GAME_OPP_KNOCKS] != 0):
            return memo_discard(obs, scratch)
        forbidden = forbidden_discard(obs)
        if loose_count(obs, obs.hand) < 2:  # else no discard leaves gin: no solve
            card, deadwood = memo_best_discard(obs, scratch, int(obs.hand), forbidden)
            if deadwood == 0:
                return card
        return gin_drop(obs, int(obs.hand), forbidden)

    def knock(self, obs: Any, params: Sequence[float], scratch: list[int], discard: int) -> int:
        from tests.reference.mc_ref import rollout_knock_at

        knock_at = read_params(params, self.FIELDS)["knock_at"]
        if knock_at == -2:  # the threshold mc chooses for the rules
            knock_at = rollout_knock_at(obs, -1)
        threshold = knock_threshold(obs, knock_at)
        if threshold == 0 and loose_count(obs, without(obs.hand, discard)) > 0:
            return BIG_GIN if big_gin_ready(obs) else CONTINUE
        return memo_knock_decision(obs, discard, threshold, scratch)


class _McRef:
    """``mc``'s twin lives in ``mc_ref`` (it needs the showdown oracle, which imports
    this module); it is imported on first use."""

    def __getattr__(self, name: str) -> Any:
        from tests.reference.mc_ref import McRef

        return getattr(McRef(), name)


REF_STRATEGIES: dict[str, Any] = {
    "random": RandomRef(),
    "greedy": GreedyRef(),
    "simple": SimpleRef(),
    "schedule": ScheduleRef(),
    "defensive": DefensiveRef(),
    "mc": _McRef(),
    "advice": AdviceRef(),
    "chart": ChartRef(),
    "rollout": RolloutRef(),
}
