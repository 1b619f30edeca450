"""Tiny card-text helpers for the reference tests (independent of ``sim/cards.py``).

Card index = suit * 13 + rank (RULES.md "Cards"); rank letters ``A23456789TJQK``
(``10`` accepted for T), suits ``CDHS``; jokers are written ``JK`` (the first ``JK``
is card 52, the second card 53).
"""

from __future__ import annotations

from collections.abc import Iterable

RANK_LETTERS = "A23456789TJQK"
SUIT_LETTERS = "CDHS"
JOKER_TEXT = "JK"


def card_name(card: int) -> str:
    """``0 -> "AC"``, ``51 -> "KS"``, ``52``/``53`` -> ``"JK"``."""
    if card in (52, 53):
        return JOKER_TEXT
    if not 0 <= card < 52:
        raise ValueError(f"not a card index: {card!r}")
    return RANK_LETTERS[card % 13] + SUIT_LETTERS[card // 13]


def names(cards: Iterable[int]) -> str:
    """Cards in ascending index order as text, e.g. ``"AC 2C 3C"``."""
    return " ".join(card_name(card) for card in sorted(cards))


def parse(text: str) -> list[int]:
    """Card indices in the order written; a card given twice is an error."""
    out: list[int] = []
    jokers = 0
    for token in text.upper().split():
        if token == JOKER_TEXT:
            if jokers == 2:
                raise ValueError(f"more than two jokers at {token!r}")
            out.append(52 + jokers)
            jokers += 1
            continue
        rank_text, suit_text = token[:-1], token[-1:]
        if rank_text == "10":
            rank_text = "T"
        if len(rank_text) != 1 or rank_text not in RANK_LETTERS or suit_text not in SUIT_LETTERS:
            raise ValueError(f"bad card {token!r}")
        card = SUIT_LETTERS.index(suit_text) * 13 + RANK_LETTERS.index(rank_text)
        if card in out:
            raise ValueError(f"card given twice: {token!r}")
        out.append(card)
    return out


def c(text: str) -> frozenset[int]:
    """``c("AS 2S 3S") -> frozenset({39, 40, 41})``."""
    return frozenset(parse(text))


def t(text: str) -> tuple[int, ...]:
    """The cards as an ascending tuple (the form of a meld): ``t("3S AS 2S") == (39, 40, 41)``."""
    return tuple(sorted(parse(text)))
