"""Public solver API: least deadwood, best discard and arrangements, vectorised.

Hands are 64-bit masks (``sim.cards``): a numpy ``uint64`` array (or anything
``np.asarray`` turns into one) for the batch functions, an int or card text for one
hand. All work happens in the numba kernels; Python is called once per batch.

>>> import numpy as np, sim
>>> from sim.cards import parse_cards
>>> hands = np.array([parse_cards("AS 2S 3S 7C 7D 7H 9C TC JD QH")], np.uint64)
>>> sim.min_deadwood(hands, rules="gin").tolist()
[39]
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np
import numpy.typing as npt

from kernels import layout as L
from kernels.deadwood import (
    MAX_CARDS,
    best_discard_batch,
    best_discard_by_search,
    min_deadwood_batch,
    min_deadwood_piece,
)
from kernels.melds import MAX_MELDS_PER_ARRANGEMENT, canonical_arrangement
from kernels.tables import build_tables
from sim.cards import CardError, cards_of, format_cards, parse_cards
from sim.rules import DEFAULT_PRESET, RuleSet, get_rules
from sim.warm import ensure, warm_entry

__all__ = ["Arrangement", "arrangement", "best_discard", "min_deadwood", "tables_for"]

_ACE_CODES = {"low": L.ACE_LOW, "high_or_low": L.ACE_HIGH_OR_LOW, "around": L.ACE_AROUND}
# Up to this many hands the one-hand kernels answer (pieces the engine and every command
# share, quick to compile); larger batches run the parallel batch kernels, whose compile
# (seconds) pays off only over many hands. Both give the same answers.
SMALL_BATCH = 64


def resolve_rules(rules: str | RuleSet) -> RuleSet:
    """A preset name or a rule set, as a rule set."""
    return rules if isinstance(rules, RuleSet) else get_rules(rules)


def tables_for(rules: str | RuleSet) -> npt.NDArray[np.uint16]:
    """The flat solver table array of a rule set (cached per ace mode and card values)."""
    r = resolve_rules(rules)
    return build_tables(_ACE_CODES[r.ace], r.ace_high_value, r.joker_value)


def hand_mask(hand: int | str, rules: RuleSet) -> int:
    """One hand as a mask, from a mask or card text, checked against the rules."""
    mask = parse_cards(hand, jokers=rules.jokers) if isinstance(hand, str) else int(hand)
    if not 0 <= mask < 1 << 64:
        raise ValueError(f"a hand mask must be a non-negative 64-bit integer, got {mask}")
    _check_masks(np.array([mask], np.uint64), rules)
    return mask


def _as_masks(masks: Any) -> npt.NDArray[np.uint64]:
    array = np.asarray(masks)
    if array.size == 0:
        return np.zeros(0, np.uint64)
    if array.ndim != 1:
        raise ValueError(f"hand masks must be a 1-D array, got shape {array.shape}")
    if array.dtype != np.uint64:
        if array.dtype.kind not in "iu":
            raise ValueError(f"hand masks must be integers, got dtype {array.dtype}")
        if (array < 0).any():
            raise ValueError("hand masks must be non-negative")
        array = array.astype(np.uint64)
    return np.ascontiguousarray(array)


def _check_masks(masks: npt.NDArray[np.uint64], rules: RuleSet) -> None:
    """Raise the error that names what is wrong with the hands (the batch kernels test
    them in their own pass; this runs for one hand, or once a batch found a bad one)."""
    if masks.size == 0:
        return
    if (masks >> np.uint64(54)).any():
        raise CardError("hand masks may only use bits 0..53 (52 cards and 2 jokers)")
    if rules.jokers == 0 and (masks >> np.uint64(52)).any():
        raise CardError(f"hand holds a joker but rule set {rules.name!r} has jokers=0")
    counts = np.bitwise_count(masks)
    if counts.max() > MAX_CARDS:
        raise ValueError(f"hands may hold at most {MAX_CARDS} cards, got {int(counts.max())}")


def min_deadwood(masks: Any, rules: str | RuleSet = DEFAULT_PRESET) -> npt.NDArray[np.int64]:
    """Exact least deadwood of every hand.

    Parameters
    ----------
    masks : array_like of uint64, shape (n,)
        Hands as masks (1 to 13 cards; jokers at bits 52 and 53).
    rules : str or RuleSet
        Preset name or rule set (its ``ace`` mode and card values matter).

    Returns
    -------
    int64[n]
    """
    r = resolve_rules(rules)
    array = _as_masks(masks)
    if array.shape[0] <= SMALL_BATCH:
        _check_masks(array, r)
        tab = tables_for(r)
        return np.array([min_deadwood_piece(m, tab) for m in array.astype(np.int64)], np.int64)
    out = np.empty(array.shape[0], np.int64)
    args = (array, tables_for(r), r.jokers > 0, out)
    ensure(min_deadwood_batch, args)
    if min_deadwood_batch(*args):
        _check_masks(array, r)
    return out


def _forbidden_error(forbidden: Any) -> ValueError:
    return ValueError(
        f"forbidden must be a card index 0..53 or -1 (one, or one per hand), got {forbidden!r}"
    )


def best_discard(
    masks: Any, rules: str | RuleSet = DEFAULT_PRESET, forbidden: Any = None
) -> tuple[npt.NDArray[np.int64], npt.NDArray[np.int64]]:
    """The best discard of every hand and the deadwood it leaves.

    The best discard leaves the least deadwood; ties go to the card of highest
    deadwood value, then the highest card index. ``forbidden`` (a card index per hand,
    -1 for none, or one index for all) is never chosen: it is the card just taken from
    the discard pile.

    Returns
    -------
    cards : int64[n]
        Card index to discard (-1 if the hand has no card that may be discarded).
    deadwood : int64[n]
        Least deadwood of the hand after that discard.
    """
    r = resolve_rules(rules)
    array = _as_masks(masks)
    n = array.shape[0]
    given = np.asarray(-1 if forbidden is None else forbidden)
    if given.dtype.kind not in "iu" or given.ndim > 1 or given.size not in (1, n):
        raise _forbidden_error(forbidden)
    forbid = np.array(given.reshape(-1), np.int64)  # writable: a read-only array compiles anew
    if n <= SMALL_BATCH:
        _check_masks(array, r)
        if ((forbid < -1) | (forbid > 53)).any():
            raise _forbidden_error(forbidden)
        tab = tables_for(r)
        each = np.broadcast_to(forbid, (n,))
        hands = array.astype(np.int64)
        pairs = [best_discard_by_search(m, f, tab) for m, f in zip(hands, each, strict=True)]
        return np.array([c for c, _ in pairs], np.int64), np.array([d for _, d in pairs], np.int64)
    cards = np.empty(n, np.int64)
    deadwood = np.empty(n, np.int64)
    args = (array, forbid, tables_for(r), r.jokers > 0, cards, deadwood)
    ensure(best_discard_batch, args)
    if best_discard_batch(*args):
        _check_masks(array, r)
        raise _forbidden_error(forbidden)
    return cards, deadwood


@warm_entry("solver: batches")
def _warm_batches() -> None:
    """Compile (or load) the batch kernels (``rummy warm``): a batch of hands without a
    card calls no piece."""
    empty_hands = np.zeros(SMALL_BATCH + 1, np.uint64)
    min_deadwood(empty_hands)
    best_discard(empty_hands)


@dataclass(frozen=True)
class Arrangement:
    """How one hand is laid down: melds (each a list of card indices, ``sim.cards``) and
    the rest; ``meld_cards``, ``unmatched_cards`` and ``text`` say the same in card text."""

    melds: list[list[int]]
    unmatched: list[int]
    deadwood: int

    @property
    def meld_cards(self) -> list[str]:
        """Each meld as card text: ``["7C 7D 7H", "AS 2S 3S"]``."""
        return [format_cards(meld) for meld in self.melds]

    @property
    def unmatched_cards(self) -> str:
        """The unmatched cards as text: ``"9C TC JD QH"``."""
        return format_cards(self.unmatched)

    @property
    def text(self) -> str:
        """``7C 7D 7H | AS 2S 3S | unmatched 9C TC JD QH | deadwood 39``."""
        return " | ".join(
            [*self.meld_cards, f"unmatched {self.unmatched_cards or '-'}",
             f"deadwood {self.deadwood}"]
        )  # fmt: skip


def arrangement(hand: int | str, rules: str | RuleSet = DEFAULT_PRESET) -> Arrangement:
    """The least-deadwood arrangement of one hand, first in RULES.md's canonical order."""
    r = resolve_rules(rules)
    mask = hand_mask(hand, r)
    out = np.empty(MAX_MELDS_PER_ARRANGEMENT, np.int64)
    n, deadwood = canonical_arrangement(np.int64(mask), tables_for(r), out)
    melds = [cards_of(int(m)) for m in out[:n]]
    melded = {card for meld in melds for card in meld}
    return Arrangement(
        melds=melds,
        unmatched=[c for c in cards_of(mask) if c not in melded],
        deadwood=int(deadwood),
    )
