"""Reference oracle for scoring one hand's showdown (RULES.md "Scoring a hand").

``score_showdown_ref(rules, hands, knocker, upcard=None, dealer=None)`` returns a dict:

- ``outcome``: ``knock_win``, ``undercut``, ``rummy``, ``gin``, ``big_gin``, ``tie`` or
  ``exhausted``;
- ``deadwood``: per seat; defenders after their lay-offs when lay-offs apply, otherwise
  each hand's own minimum;
- ``laid_off``: per seat, the cards it laid off, ascending (the knocker's is always empty);
- ``melds``: per seat, its arrangement (the knocker's from ``knocker_arrangement_ref``;
  a defender's from its lay-off oracle when lay-offs apply, else canonical);
- ``points``: per seat, ``Fraction``s.

Interpretations (the fast kernels follow the same ones)
-------------------------------------------------------
Input checks (``ValueError`` with a message):
- ``len(hands) == rules.players``; every card in 0..51, or 52..53 when ``rules.jokers``
  allows; no card in two hands; every non-knocker holds ``hand_size`` cards; the
  knocker ``hand_size`` (after laying a card away) or ``hand_size + 1`` (big gin);
  ``knocker=None``: every hand ``hand_size`` cards.
- A ``hand_size + 1`` knocker hand needs ``big_gin_bonus > 0`` and all its cards melded.
- A ``hand_size`` knocker hand needs min deadwood <= the knock limit: ``None`` = any;
  an int; ``"upcard"`` = value of ``upcard`` with face cards 10 and an Ace (any ace
  mode) 0; ``upcard`` is then required and must not be a joker. The limit is not
  checked for a big gin (its deadwood is 0 anyway) nor at an exhausted showdown.
- ``rules.layoff`` together with jokers, and ``knock_limit="upcard"`` together with
  jokers, are rejected (RULES.md rejects such rule sets). Gin scoring needs 2 players.
- Gin scoring with ``spade_double`` needs ``upcard`` (the first upcard). The upcard may
  lie in a hand (it can be taken), so it is not checked against the hands.

Lay-offs: only when ``rules.layoff`` and the knocker's deadwood > 0 (so never after
rummy, gin, big gin, a knocker tied at zero, nor at an exhausted showdown). Each
defender lays off on its own, onto the knocker's arrangement from
``knocker_arrangement_ref``, by ``rules.layoff_play``.

Knock scoring (every amount is a transfer; each hand sums to zero):
- Knocker strictly below every other player (after lay-offs): ``knock_win`` when its
  deadwood > 0: each other pays (its deadwood - knocker's). Deadwood 0 with
  ``hand_size`` cards: ``rummy``, each other pays its whole deadwood + ``rummy_bonus``.
  ``hand_size + 1`` cards: ``big_gin``, each other pays its deadwood + ``big_gin_bonus``.
- Otherwise ``undercut`` (also for a knocker tied at zero after rummy or big gin: no
  bonus, ``knocker_tie`` applies). m = least non-knocker deadwood; the tied candidates
  at m in order from the knocker's left (seat knocker+1, knocker+2, ...).
  ``nearest_left``: the first candidate is the sole winner; ``split``: every candidate
  is a winner and the pot is shared equally (exact ``Fraction``).
  Each non-knocker that is not a winner pays (its deadwood - m) into the pot (0 for a
  tied candidate that did not win under ``nearest_left``).
  * ``knocker_tie="neutral"`` and knocker deadwood == m: the knocker pays and collects
    nothing (no penalty, whatever ``penalty_to``); the pot is just the others'
    differences.
  * else, ``penalty_to="winner"``: the knocker pays (its deadwood - m) +
    ``undercut_penalty`` into the pot.
  * else, ``penalty_to="each_lower"``: the knocker pays (its deadwood - m) into the pot,
    and ``undercut_penalty`` directly to every non-knocker whose deadwood <= its own
    (each such player receives the penalty once, whether or not it is a winner; never
    pooled).
- ``spade_double`` has no effect under Knock scoring (RULES.md: Gin scoring only).

Gin scoring (2 players; the hand winner scores, the other seat scores 0):
- Big gin (``hand_size + 1`` cards all melded): ``big_gin``, ``big_gin_bonus`` + the
  defender's own min deadwood, no lay-offs, even when the defender is also at 0 (the
  Knock-scoring "not big gin if tied" clause is not applied: gin cannot be undercut).
- Knocker deadwood 0 with ``hand_size`` cards: ``gin``, ``gin_bonus`` + the defender's
  own min deadwood, no lay-offs, even when the defender is also at 0.
- Otherwise the defender lays off (if ``rules.layoff``); knocker strictly lower:
  ``knock_win``, the knocker scores the difference; equal and ``undercut_on_tie``
  false: ``tie``, nobody scores; otherwise ``undercut``, the defender scores
  (knocker's - defender's) + ``undercut_bonus``.
- ``spade_double`` and the upcard is a spade (suit 3, cards 39..51): the hand's points
  are doubled, every outcome including ``exhausted``.

Exhausted showdown (``knocker=None``): no lay-offs, own min deadwood each; m = least
deadwood, tied candidates ordered from the dealer's left (seat dealer+1, dealer+2, ...,
the dealer last); ``dealer=None`` means the last seat (players - 1), the dealer of a
single hand played alone (RULES.md "Seating"). Knock scoring: winners by
``tied_winners`` as above, each non-winner pays (its deadwood - m) into the pot, no
penalty and no bonus. Gin scoring: the winner (or, under ``split``, each of the tied
winners, sharing) scores the pot, that is the other's difference (0 on a tie); the
other seat scores 0; ``spade_double`` applies.
"""

from __future__ import annotations

from collections.abc import Iterable
from fractions import Fraction
from typing import Any

from tests.reference.deadwood_ref import (
    as_hand,
    canonical_arrangement_ref,
    is_joker,
    knocker_arrangement_ref,
    layoff_ref,
)

SPADES = 3


def knock_limit_ref(rules: Any, upcard: int | None) -> int | None:
    """The most deadwood a knocker may keep (None: any)."""
    limit = rules.knock_limit
    if limit is None:
        return None
    if limit == "upcard":
        if upcard is None:
            raise ValueError("knock_limit='upcard' needs the upcard")
        if is_joker(upcard) or not 0 <= upcard < 52:
            raise ValueError(f"knock_limit='upcard' needs a natural upcard, got {upcard!r}")
        rank = upcard % 13
        if rank == 0:  # an Ace upcard allows only zero deadwood, in every ace mode
            return 0
        return min(rank + 1, 10)
    if isinstance(limit, bool) or not isinstance(limit, int) or limit < 0:
        raise ValueError(f"knock_limit must be None, an int >= 0 or 'upcard', got {limit!r}")
    return limit


def _check_rules(rules: Any) -> None:
    if rules.scoring not in ("knock", "gin"):
        raise ValueError(f"scoring must be 'knock' or 'gin', got {rules.scoring!r}")
    if rules.scoring == "gin" and rules.players != 2:
        raise ValueError(f"scoring='gin' needs players=2, got players={rules.players}")
    if rules.jokers not in (0, 2):
        raise ValueError(f"jokers must be 0 or 2, got {rules.jokers!r}")
    if rules.jokers and rules.layoff:
        raise ValueError("lay-offs with jokers are not supported (layoff=True, jokers=2)")
    if rules.jokers and rules.knock_limit == "upcard":
        raise ValueError("knock_limit='upcard' is rejected together with jokers")
    if rules.tied_winners not in ("nearest_left", "split"):
        raise ValueError(
            f"tied_winners must be 'nearest_left' or 'split', got {rules.tied_winners!r}"
        )
    if rules.knocker_tie not in ("undercut", "neutral"):
        raise ValueError(f"knocker_tie must be 'undercut' or 'neutral', got {rules.knocker_tie!r}")
    if rules.penalty_to not in ("winner", "each_lower"):
        raise ValueError(f"penalty_to must be 'winner' or 'each_lower', got {rules.penalty_to!r}")


def _check_hands(rules: Any, hands: list[frozenset[int]]) -> None:
    if len(hands) != rules.players:
        raise ValueError(f"expected {rules.players} hands (players), got {len(hands)}")
    seen: set[int] = set()
    for seat, hand in enumerate(hands):
        for card in hand:
            if card >= 52 + rules.jokers:
                raise ValueError(
                    f"seat {seat} holds card {card}, not allowed with jokers={rules.jokers}"
                )
        if seen & hand:
            raise ValueError(f"card(s) {sorted(seen & hand)} in more than one hand")
        seen |= hand


def _order_from(seat: int, players: int) -> list[int]:
    """Seats from ``seat``'s left: seat+1, seat+2, ..., ``seat`` itself last."""
    return [(seat + 1 + i) % players for i in range(players)]


def _pot_to_winners(points: list[Fraction], winners: list[int], pot: Fraction) -> None:
    for seat in winners:
        points[seat] += pot / len(winners)


def _choose_winners(rules: Any, tied: list[int]) -> list[int]:
    return tied[:1] if rules.tied_winners == "nearest_left" else list(tied)


def _score_knock(
    rules: Any, deadwood: list[int], knocker: int, big: bool
) -> tuple[str, list[Fraction]]:
    n = len(deadwood)
    points = [Fraction(0)] * n
    others = [s for s in _order_from(knocker, n) if s != knocker]
    dk = deadwood[knocker]
    m = min(deadwood[s] for s in others)
    if dk < m:
        if dk == 0:
            outcome, bonus = (
                ("big_gin", rules.big_gin_bonus) if big else ("rummy", rules.rummy_bonus)
            )
        else:
            outcome, bonus = "knock_win", 0
        for s in others:
            pay = Fraction(deadwood[s] - dk + bonus)
            points[s] -= pay
            points[knocker] += pay
        return outcome, points

    tied = [s for s in others if deadwood[s] == m]
    winners = _choose_winners(rules, tied)
    pot = Fraction(0)
    for s in others:
        if s not in winners:
            pay = Fraction(deadwood[s] - m)
            points[s] -= pay
            pot += pay
    if rules.knocker_tie == "neutral" and dk == m:
        pass  # the knocker neither pays nor collects
    elif rules.penalty_to == "winner":
        pay = Fraction(dk - m + rules.undercut_penalty)
        points[knocker] -= pay
        pot += pay
    else:  # each_lower
        pay = Fraction(dk - m)
        points[knocker] -= pay
        pot += pay
        for s in others:
            if deadwood[s] <= dk:
                points[knocker] -= rules.undercut_penalty
                points[s] += rules.undercut_penalty
    _pot_to_winners(points, winners, pot)
    return "undercut", points


def _score_gin(
    rules: Any, deadwood: list[int], knocker: int, big: bool
) -> tuple[str, list[Fraction]]:
    defender = 1 - knocker
    dk, dd = deadwood[knocker], deadwood[defender]
    points = [Fraction(0), Fraction(0)]
    if big:
        outcome, winner, score = "big_gin", knocker, rules.big_gin_bonus + dd
    elif dk == 0:
        outcome, winner, score = "gin", knocker, rules.gin_bonus + dd
    elif dk < dd:
        outcome, winner, score = "knock_win", knocker, dd - dk
    elif dk == dd and not rules.undercut_on_tie:
        outcome, winner, score = "tie", knocker, 0
    else:
        outcome, winner, score = "undercut", defender, dk - dd + rules.undercut_bonus
    points[winner] = Fraction(score)
    return outcome, points


def _spade_factor(rules: Any, upcard: int | None) -> int:
    if rules.scoring != "gin" or not rules.spade_double:
        return 1
    if upcard is None:
        raise ValueError("spade_double needs the upcard")
    if is_joker(upcard) or not 0 <= upcard < 52:
        raise ValueError(f"spade_double needs a natural upcard, got {upcard!r}")
    return 2 if upcard // 13 == SPADES else 1


def score_showdown_ref(
    rules: Any,
    hands: list[Iterable[int]],
    knocker: int | None,
    upcard: int | None = None,
    dealer: int | None = None,
) -> dict[str, Any]:
    """Score one hand's showdown (see the module docstring for every interpretation)."""
    _check_rules(rules)
    hands = [as_hand(hand) for hand in hands]
    _check_hands(rules, hands)
    n = rules.players
    hs = rules.hand_size
    factor = _spade_factor(rules, upcard)
    own = [canonical_arrangement_ref(hand, rules) for hand in hands]
    melds = [list(o[0]) for o in own]
    deadwood = [o[2] for o in own]
    laid_off: list[list[int]] = [[] for _ in range(n)]

    if knocker is None:
        for seat, hand in enumerate(hands):
            if len(hand) != hs:
                raise ValueError(
                    f"exhausted showdown: seat {seat} holds {len(hand)} cards, not {hs}"
                )
        if dealer is None:
            dealer = n - 1
        if not 0 <= dealer < n:
            raise ValueError(f"dealer must be a seat 0..{n - 1}, got {dealer!r}")
        order = _order_from(dealer, n)
        m = min(deadwood)
        winners = _choose_winners(rules, [s for s in order if deadwood[s] == m])
        points = [Fraction(0)] * n
        pot = Fraction(0)
        for s in order:
            if s not in winners:
                pot += deadwood[s] - m
                if rules.scoring == "knock":
                    points[s] -= deadwood[s] - m
        _pot_to_winners(points, winners, pot)
        return {
            "outcome": "exhausted",
            "deadwood": deadwood,
            "laid_off": laid_off,
            "melds": melds,
            "points": [p * factor for p in points],
        }

    if isinstance(knocker, bool) or not isinstance(knocker, int) or not 0 <= knocker < n:
        raise ValueError(f"knocker must be None or a seat 0..{n - 1}, got {knocker!r}")
    for seat, hand in enumerate(hands):
        if seat != knocker and len(hand) != hs:
            raise ValueError(f"seat {seat} holds {len(hand)} cards, not hand_size={hs}")
    size = len(hands[knocker])
    dk = deadwood[knocker]
    if size == hs + 1:
        big = True
        if rules.big_gin_bonus == 0:
            raise ValueError(f"illegal knock: {size} cards (big gin) with big_gin_bonus=0")
        if dk != 0:
            raise ValueError(
                f"illegal knock: big gin with {size} cards needs all melded, deadwood {dk}"
            )
    elif size == hs:
        big = False
        limit = knock_limit_ref(rules, upcard)
        if limit is not None and dk > limit:
            raise ValueError(f"illegal knock: deadwood {dk} above knock_limit {limit}")
    else:
        raise ValueError(f"knocker holds {size} cards; expected {hs} or {hs + 1} (big gin)")

    if rules.layoff and dk > 0:
        defenders = [s for s in range(n) if s != knocker]
        knocker_melds = knocker_arrangement_ref(
            hands[knocker], [hands[s] for s in defenders], rules
        )
        melds[knocker] = list(knocker_melds)
        for s in defenders:
            dw, laid, own_melds = layoff_ref(knocker_melds, hands[s], rules)
            deadwood[s] = dw
            laid_off[s] = sorted(card for card, _ in laid)
            melds[s] = list(own_melds)

    if rules.scoring == "knock":
        outcome, points = _score_knock(rules, deadwood, knocker, big)
    else:
        outcome, points = _score_gin(rules, deadwood, knocker, big)
    return {
        "outcome": outcome,
        "deadwood": deadwood,
        "laid_off": laid_off,
        "melds": melds,
        "points": [p * factor for p in points],
    }
