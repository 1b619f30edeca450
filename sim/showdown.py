"""Score one showdown as RULES.md says: how a table settles an argument.

:func:`score_showdown` checks the hands against the rule set (sizes, repeated cards,
the knock limit, big gin), runs the showdown kernel and returns every seat's
arrangement, lay-offs, deadwood and points (exact fractions) with the outcome label.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from fractions import Fraction

import numpy as np

from kernels import layout as L
from kernels.deadwood import min_deadwood_piece
from kernels.melds import MAX_MELDS_PER_ARRANGEMENT
from kernels.showdown import knock_limit_of, showdown
from sim.cards import PositionReader, card_name, cards_of, format_cards, parse_card
from sim.rules import RuleSet
from sim.solver import arrangement, hand_mask, resolve_rules, tables_for
from sim.warm import ensure

__all__ = ["SeatResult", "ShowdownError", "ShowdownResult", "score_showdown"]


class ShowdownError(ValueError):
    """Hands that cannot be a showdown under the rules (wrong sizes, illegal knock)."""


@dataclass(frozen=True)
class SeatResult:
    """One seat at the showdown."""

    seat: int
    cards: list[int]
    melds: list[list[int]]
    unmatched: list[int]
    laid_off: list[int]
    deadwood: int
    points: Fraction


@dataclass(frozen=True)
class ShowdownResult:
    """The outcome label of RULES.md and every seat's result."""

    outcome: str
    knocker: int | None
    knock_limit: int | None
    seats: list[SeatResult]

    def to_dict(self) -> dict[str, object]:
        """JSON-ready form: cards as text, points as numbers (exact fractions as text)."""

        def number(p: Fraction) -> int | float | str:
            return int(p) if p.denominator == 1 else str(p)

        return {
            "outcome": self.outcome,
            "knocker": self.knocker,
            "knock_limit": self.knock_limit,
            "points": [number(s.points) for s in self.seats],
            "seats": [
                {
                    "seat": s.seat,
                    "cards": format_cards(s.cards),
                    "melds": [format_cards(m) for m in s.melds],
                    "unmatched": format_cards(s.unmatched),
                    "laid_off": format_cards(s.laid_off),
                    "deadwood": s.deadwood,
                    "points": number(s.points),
                }
                for s in self.seats
            ],
        }


def read_hands(hands: Sequence[str | int], *, jokers: int) -> list[int]:
    """Every seat's mask; a ``JK`` in each of two hands is the two jokers.

    Masks given as integers keep their jokers; text jokers take the ones left.
    """
    reader = PositionReader(jokers=jokers)
    masks: list[int | None] = [None if isinstance(h, str) else reader.mask(h) for h in hands]
    return [reader.mask(h) if m is None else m for h, m in zip(hands, masks, strict=True)]


def _check_hands(rules: RuleSet, masks: list[int], knocker: int | None) -> None:
    if len(masks) != rules.players:
        raise ShowdownError(f"got {len(masks)} hands but rules have players={rules.players}")
    seen = 0
    for seat, mask in enumerate(masks):
        if seen & mask:
            raise ShowdownError(
                f"card {card_name(cards_of(seen & mask)[0])} is in more than one hand (seat {seat})"
            )
        seen |= mask
    size = rules.cards_per_hand
    for seat, mask in enumerate(masks):
        n = bin(mask).count("1")
        if seat == knocker and n == size + 1:
            continue  # big gin: checked by the caller
        if n != size:
            expected = f"{size} or {size + 1} (big gin)" if seat == knocker else f"{size}"
            raise ShowdownError(f"seat {seat} holds {n} cards; hand_size needs {expected}")


def score_showdown(
    rules: str | RuleSet,
    hands: list[str] | list[int],
    knocker: int | None,
    upcard: str | int | None = None,
    dealer: int | None = None,
) -> ShowdownResult:
    """Score a showdown.

    Parameters
    ----------
    rules : preset name or RuleSet
    hands : one hand per seat, in seat order (card text or masks); the knocker's hand
        after it laid its card away, or all its cards for big gin.
    knocker : the knocking seat, or None for the showdown after the stock ran out.
    upcard : the first upcard (needed by ``knock_limit = "upcard"`` and the spade double).
    dealer : the dealer's seat (ties at an exhausted showdown count from its left);
        default: the last seat.
    """
    r = resolve_rules(rules)
    masks = read_hands(hands, jokers=r.jokers)
    if knocker is not None and not 0 <= knocker < len(masks):
        raise ShowdownError(f"knocker={knocker} is not a seat; seats are 0..{len(masks) - 1}")
    _check_hands(r, masks, knocker)
    up = -1
    if upcard is not None:
        up = parse_card(upcard) if isinstance(upcard, str) else int(upcard)
        if up >= 52:
            raise ShowdownError("the first upcard cannot be a joker here: name a natural card")
        # The first upcard may legally be in a hand: a player may have taken it.
    needs_upcard = r.knock_limit == "upcard" or (r.spade_double and r.scoring == "gin")
    if needs_upcard and up < 0:
        raise ShowdownError("this rule set needs the first upcard: give --upcard CARD")
    ensure(showdown)  # and every piece it calls: compiled in parallel when cold
    compiled = r.compile()
    limit = int(knock_limit_of(compiled, up)) if knocker is not None else None
    if knocker is not None:
        kmask = masks[knocker]
        own = int(min_deadwood_piece(np.int64(hand_mask(kmask, r)), tables_for(r)))
        if bin(kmask).count("1") == r.cards_per_hand + 1:
            if r.big_gin_bonus == 0:
                raise ShowdownError(
                    f"seat {knocker} shows {r.cards_per_hand + 1} cards, but big gin is not "
                    "allowed (big_gin_bonus=0); give the hand after its card was laid away"
                )
            if own != 0:
                raise ShowdownError(
                    f"seat {knocker} shows {r.cards_per_hand + 1} cards but they are not all "
                    f"melded (deadwood {own}): big gin needs every card in melds"
                )
        elif limit is not None and limit >= 0 and own > limit:
            if r.knock_limit == "upcard":
                why = f"knock_limit='upcard' with upcard {card_name(up)}"
            else:
                why = f"knock_limit={limit}"
            raise ShowdownError(
                f"seat {knocker} may not knock: deadwood {own} is above the limit {limit} ({why})"
            )
    n = len(masks)
    deadwood = np.zeros(n, np.int64)
    laid = np.zeros(n, np.int64)
    points = np.zeros(n, np.int64)
    knocker_melds = np.zeros(MAX_MELDS_PER_ARRANGEMENT, np.int64)
    outcome, n_melds = showdown(
        compiled,
        np.array(masks, np.int64),
        -1 if knocker is None else knocker,
        -1,
        up,
        n - 1 if dealer is None else dealer,
        tables_for(r),
        deadwood,
        laid,
        points,
        knocker_melds,
    )
    seats = []
    for seat, mask in enumerate(masks):
        laid_cards = cards_of(int(laid[seat]))
        if seat == knocker and n_melds >= 0:  # the arrangement lay-offs were made on
            melds = [cards_of(int(m)) for m in knocker_melds[:n_melds]]
            melded = {c for m in melds for c in m}
            unmatched = [c for c in cards_of(mask) if c not in melded]
        else:
            kept = arrangement(mask & ~int(laid[seat]), r)
            melds, unmatched = kept.melds, kept.unmatched
        seats.append(
            SeatResult(
                seat=seat,
                cards=cards_of(mask),
                melds=melds,
                unmatched=unmatched,
                laid_off=laid_cards,
                deadwood=int(deadwood[seat]),
                points=Fraction(int(points[seat]), L.POINT_SCALE),
            )
        )
    return ShowdownResult(
        outcome=L.OUTCOME_LABELS[outcome],
        knocker=knocker,
        knock_limit=None if limit is None or limit < 0 else limit,
        seats=seats,
    )
