"""Cards as text and as bits, exactly as ``docs/RULES.md`` ("Cards") defines them.

Conventions
-----------
- A card is an index ``suit * 13 + rank``: rank 0 = Ace, 1 = Two, ... 9 = Ten,
  10 = Jack, 11 = Queen, 12 = King; suits Clubs, Diamonds, Hearts, Spades = 0..3.
  The two jokers are cards 52 and 53.
- A hand is a 64-bit mask (a Python ``int`` here, ``uint64`` in the kernels):
  bit ``i`` set means card ``i`` is held.
- Text form: rank ``A 2 3 4 5 6 7 8 9 T J Q K`` then suit ``C D H S``, e.g. ``AS``,
  ``TD``; both jokers are written ``JK``. On input ``10`` is also a Ten, the suit
  may be a symbol (♣ ♦ ♥ ♠, or the white variants ♧ ♢ ♡ ♤), and case is ignored.

Because both jokers print as ``JK``, the first ``JK`` read is always card 52 and the
second card 53: a mask holding joker 53 without joker 52 does not round-trip through
text (no deal produces one that matters, since the two jokers are interchangeable).
A position of several hands (a showdown, a pile and the cards an opponent took) is
read with one :class:`PositionReader`, so that a ``JK`` in one hand and a ``JK`` in
another are the two jokers, not the same card twice.

Every error is a :class:`CardError` (a ``ValueError``) with a one-line message that
names the offending token and says what is allowed.
"""

from __future__ import annotations

import operator
import re
from collections.abc import Iterable
from typing import SupportsIndex

from kernels.layout import N_NATURAL, N_RANKS

__all__ = [
    "ACE_MODES",
    "JOKER",
    "JOKERS",
    "N_CARDS",
    "RANKS",
    "SUITS",
    "CardError",
    "PositionReader",
    "card_name",
    "card_rank",
    "card_suit",
    "card_value",
    "cards_of",
    "format_cards",
    "mask_of",
    "parse_card",
    "parse_card_list",
    "parse_cards",
]

RANKS = "A23456789TJQK"
"""Rank letters in rank order (index = rank)."""
SUITS = "CDHS"
"""Suit letters in suit order (index = suit)."""
JOKER = N_NATURAL
"""The first joker (card 52); ``parse_card("JK")`` returns it."""
JOKERS = (N_NATURAL, N_NATURAL + 1)
"""Both jokers, in the order ``JK`` tokens are assigned to them."""
N_CARDS = N_NATURAL + len(JOKERS)
"""Number of distinct card indices (52 naturals + 2 jokers)."""
ACE_MODES = ("low", "high_or_low", "around")
"""Values of the ``ace`` rule parameter (RULES.md "Melds and deadwood")."""

_JOKER_TEXT = "JK"
_ALL_BITS = (1 << N_CARDS) - 1

_RANK_OF: dict[str, int] = {letter: rank for rank, letter in enumerate(RANKS)}
_RANK_OF["10"] = RANKS.index("T")
_SUIT_OF: dict[str, int] = {letter: suit for suit, letter in enumerate(SUITS)}
# Black and white suit symbols, in suit order C D H S.
for _suit, _symbols in enumerate(("♣♧", "♦♢", "♥♡", "♠♤")):
    for _symbol in _symbols:
        _SUIT_OF[_symbol] = _suit

# Emoji variation selectors often follow a pasted suit symbol ("♠️"); they carry no
# meaning here, so they are dropped before a token is read.
_VARIATION_SELECTORS = str.maketrans("", "", "\ufe0e\ufe0f")
_SEPARATORS = re.compile(r"[\s,]+")

_ALLOWED = (
    "rank must be one of A 2 3 4 5 6 7 8 9 T J Q K (or 10), "
    "suit one of C D H S (or ♣ ♦ ♥ ♠), or JK for a joker"
)


class CardError(ValueError):
    """A card, card text or mask that breaks the RULES.md card conventions."""


def parse_card(token: str) -> int:
    """Read one card.

    Parameters
    ----------
    token : str
        Rank then suit (``"AS"``, ``"10h"``, ``"Q♦"``) or ``"JK"``; case-insensitive,
        surrounding whitespace ignored.

    Returns
    -------
    int
        The card index ``suit * 13 + rank``; ``JK`` gives 52 (the first joker).

    Raises
    ------
    CardError
        If the token is not a card.
    """
    if not isinstance(token, str):
        raise CardError(f"bad card {token!r}: expected text such as 'AS'; {_ALLOWED}")
    text = token.strip().translate(_VARIATION_SELECTORS).upper()
    if text == _JOKER_TEXT:
        return JOKER
    # The suit is always the last character; the rank is what precedes it ("10" is
    # the only two-character rank).
    rank = _RANK_OF.get(text[:-1])
    suit = _SUIT_OF.get(text[-1:])
    if rank is None or suit is None:
        raise CardError(f"bad card {token.strip()!r}: {_ALLOWED}")
    return suit * N_RANKS + rank


def _tokens(text: str | Iterable[str]) -> list[str]:
    """Split card text (or several pieces of it) at whitespace and commas."""
    pieces = [text] if isinstance(text, str) else list(text)
    tokens: list[str] = []
    for piece in pieces:
        if not isinstance(piece, str):
            raise CardError(f"bad card {piece!r}: expected text such as 'AS'; {_ALLOWED}")
        tokens.extend(token for token in _SEPARATORS.split(piece) if token)
    return tokens


def _times(count: int) -> str:
    return {1: "once", 2: "twice"}.get(count, f"{count} times")


def parse_card_list(text: str | Iterable[str], *, jokers: int = 2) -> list[int]:
    """Read cards in the order given (e.g. a discard pile, oldest first).

    Parameters
    ----------
    text : str or iterable of str
        Tokens separated by whitespace and/or commas; an iterable's items are
        joined (each item may itself hold several tokens).
    jokers : int, default 2
        How many jokers the rules allow (0..2). The first ``JK`` is card 52, the
        second card 53.

    Returns
    -------
    list of int
        Card indices in input order.

    Raises
    ------
    CardError
        For a token that is not a card, a card given twice, or more ``JK`` than
        ``jokers``. Tokens are read left to right and the first problem is reported.
    """
    if not 0 <= jokers <= len(JOKERS):
        raise ValueError(f"jokers={jokers} is not allowed; choose 0, 1 or 2")
    tokens = _tokens(text)
    cards: list[int] = []
    seen: set[int] = set()
    n_jokers = 0
    for token in tokens:
        card = parse_card(token)
        if card == JOKER:
            # Jokers all read as JK, so they are counted, not checked for repeats.
            if n_jokers < len(JOKERS):
                cards.append(JOKERS[n_jokers])
            n_jokers += 1
            continue
        if card in seen:
            name = card_name(card)
            shown = repr(name) if token.upper() == name else f"{token!r} ({name})"
            raise CardError(f"card {shown} given twice")
        seen.add(card)
        cards.append(card)
    if n_jokers > jokers:
        plural = "joker" if jokers == 1 else "jokers"
        raise CardError(
            f"{_JOKER_TEXT!r} given {_times(n_jokers)} but the rules allow {jokers} {plural}"
        )
    return cards


def parse_cards(text: str | Iterable[str], *, jokers: int = 2) -> int:
    """Read a hand as a 64-bit mask.

    Parameters
    ----------
    text : str or iterable of str
        As for :func:`parse_card_list`, e.g. ``"AS 2S 3S, TD JK"``.
    jokers : int, default 2
        How many jokers the rules allow.

    Returns
    -------
    int
        The hand mask (bit ``i`` = card ``i``); 0 for empty text.

    Raises
    ------
    CardError
        As :func:`parse_card_list`.
    """
    return mask_of(parse_card_list(text, jokers=jokers))


class PositionReader:
    """Reads the card lists of one position, sharing the jokers between them.

    Each ``JK`` takes the lowest joker not yet placed (card 52, then 53), in the
    order the lists are read, so two hands may each hold a ``JK``; a joker given as
    a card index (a mask) is placed as it is. More ``JK`` than the rules allow, or a
    joker placed twice, is a :class:`CardError`. Natural cards are not checked
    across lists: callers say where a repeated card was found.

    >>> reader = PositionReader(jokers=2)
    >>> reader.mask("AS JK"), reader.mask("JK 2C")
    (4504149383184384, 9007199254740994)
    """

    def __init__(self, *, jokers: int) -> None:
        if not 0 <= jokers <= len(JOKERS):
            raise ValueError(f"jokers={jokers} is not allowed; choose 0, 1 or 2")
        self.jokers = jokers
        self._placed: set[int] = set()
        self._read = 0  # JK tokens read so far, for the message

    def _next_joker(self) -> int:
        self._read += 1
        free = [j for j in JOKERS[: self.jokers] if j not in self._placed]
        if not free:
            plural = "joker" if self.jokers == 1 else "jokers"
            raise CardError(
                f"{_JOKER_TEXT!r} given {_times(self._read)} in this position but the "
                f"rules allow {self.jokers} {plural}"
            )
        self._placed.add(free[0])
        return free[0]

    def cards(self, text: str | Iterable[str]) -> list[int]:
        """One card list, in input order (as :func:`parse_card_list`)."""
        listed = parse_card_list(text, jokers=self.jokers)  # bad tokens, repeats in the list
        return [self._next_joker() if card in JOKERS else card for card in listed]

    def mask(self, text: str | Iterable[str] | SupportsIndex) -> int:
        """One hand as a mask; an integer mask is taken as it is (its jokers placed)."""
        if isinstance(text, str) or isinstance(text, Iterable):
            return mask_of(self.cards(text))
        mask = operator.index(text)
        for joker in JOKERS:
            if mask >> joker & 1:
                if joker >= N_NATURAL + self.jokers:
                    raise CardError(f"card {joker} is a joker but the rules allow {self.jokers}")
                if joker in self._placed:
                    raise CardError(f"joker card {joker} is in more than one hand")
                self._placed.add(joker)
        return mask

    def card(self, token: str, *, among: int = 0) -> int:
        """One card that names a card already placed (e.g. the card just taken).

        ``JK`` is the first joker held in ``among`` (a mask), else the first joker.
        """
        card = parse_card(token)
        if card == JOKER:
            held = [j for j in JOKERS if among >> j & 1]
            return held[0] if held else JOKER
        return card


def _check_card(card: SupportsIndex) -> int:
    try:
        index = operator.index(card)
    except TypeError:
        raise CardError(f"bad card index {card!r}: expected an integer 0..{N_CARDS - 1}") from None
    if not 0 <= index < N_CARDS:
        raise CardError(f"bad card index {index}: expected an integer 0..{N_CARDS - 1}")
    return index


def card_name(card: SupportsIndex) -> str:
    """Text of one card: ``'AS'``, ``'TD'``, ``'JK'`` (both jokers)."""
    index = _check_card(card)
    if index >= N_NATURAL:
        return _JOKER_TEXT
    return RANKS[index % N_RANKS] + SUITS[index // N_RANKS]


def card_rank(card: SupportsIndex) -> int:
    """Rank 0..12 (Ace..King) of a natural card; jokers have no rank (CardError)."""
    index = _check_card(card)
    if index >= N_NATURAL:
        raise CardError(f"card {index} is a joker and has no rank")
    return index % N_RANKS


def card_suit(card: SupportsIndex) -> int:
    """Suit 0..3 (C D H S) of a natural card; jokers have no suit (CardError)."""
    index = _check_card(card)
    if index >= N_NATURAL:
        raise CardError(f"card {index} is a joker and has no suit")
    return index // N_RANKS


def cards_of(mask: SupportsIndex) -> list[int]:
    """Card indices held in ``mask``, ascending.

    Raises
    ------
    CardError
        If ``mask`` is negative or has bits above 53.
    """
    try:
        bits = operator.index(mask)
    except TypeError:
        raise CardError(f"bad hand mask {mask!r}: expected an integer") from None
    if bits < 0 or bits & ~_ALL_BITS:
        raise CardError(f"bad hand mask {bits:#x}: only bits 0..{N_CARDS - 1} are cards")
    return [card for card in range(N_CARDS) if bits >> card & 1]


def mask_of(cards: Iterable[SupportsIndex]) -> int:
    """Hand mask of the given card indices.

    Raises
    ------
    CardError
        For an index outside 0..53 or a card given twice (a hand never holds a
        card twice, so a repeat is a bug upstream).
    """
    mask = 0
    for card in cards:
        index = _check_card(card)
        if mask >> index & 1:
            raise CardError(f"card {card_name(index)!r} (index {index}) given twice")
        mask |= 1 << index
    return mask


def format_cards(
    mask_or_iterable: SupportsIndex | Iterable[SupportsIndex], *, sort: bool = True
) -> str:
    """Text of a hand: names separated by single spaces.

    Parameters
    ----------
    mask_or_iterable : int or iterable of int
        A hand mask (Python or numpy integer), or card indices.
    sort : bool, default True
        Order by ascending index; with False an iterable keeps its order (a mask
        is always ascending).

    Returns
    -------
    str
        E.g. ``"AC 2C 3C TD JK"``; ``""`` for an empty hand.
    """
    if isinstance(mask_or_iterable, Iterable):
        cards = [_check_card(card) for card in mask_or_iterable]
        if sort:
            cards.sort()
    else:
        cards = cards_of(mask_or_iterable)
    return " ".join(card_name(card) for card in cards)


def card_value(
    card: SupportsIndex, *, ace: str = "low", ace_high_value: int = 15, joker_value: int = 15
) -> int:
    """Deadwood value of one unmelded card (RULES.md "Cards", "Melds and deadwood").

    Parameters
    ----------
    card : int
        Card index 0..53.
    ace : {"low", "high_or_low", "around"}, default "low"
        The ``ace`` rule: under ``"low"`` an ace is worth 1, otherwise
        ``ace_high_value``.
    ace_high_value : int, default 15
        Value of an unmelded ace when aces may be high.
    joker_value : int, default 15
        Value of an unmelded joker.

    Returns
    -------
    int
        A = 1 (or ``ace_high_value``), 2..10 face value, J/Q/K = 10, joker =
        ``joker_value``.
    """
    if ace not in ACE_MODES:
        raise ValueError(f"ace={ace!r} is not allowed; choose one of: {', '.join(ACE_MODES)}")
    index = _check_card(card)
    if index >= N_NATURAL:
        return joker_value
    rank = index % N_RANKS
    if rank == 0:
        return 1 if ace == "low" else ace_high_value
    return min(rank + 1, 10)
