"""Card text <-> index <-> mask, as RULES.md "Cards" defines them."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from sim.cards import (
    JOKER,
    JOKERS,
    CardError,
    card_name,
    card_rank,
    card_suit,
    card_value,
    cards_of,
    format_cards,
    mask_of,
    parse_card,
    parse_card_list,
    parse_cards,
)

RANKS = "A23456789TJQK"
SUITS = "CDHS"


def test_index_is_suit_times_13_plus_rank() -> None:
    """RULES.md: card index = suit * 13 + rank; rank 0 = Ace .. 12 = King; C D H S."""
    assert parse_card("AC") == 0
    assert parse_card("KC") == 12
    assert parse_card("AD") == 13  # the OpenSpiel trap: AD sits right after KC
    assert parse_card("TH") == 2 * 13 + 9
    assert parse_card("KS") == 51
    assert parse_card("JK") == JOKER == 52
    assert JOKERS == (52, 53)


@pytest.mark.parametrize("card", range(54))
def test_every_card_round_trips(card: int) -> None:
    name = card_name(card)
    expected = 52 if card >= 52 else card  # both jokers print as JK, which reads as 52
    assert parse_card(name) == expected
    assert parse_card(name.lower()) == expected
    if card < 52:
        assert name == RANKS[card % 13] + SUITS[card // 13]
        assert card_rank(card) == card % 13
        assert card_suit(card) == card // 13
    else:
        assert name == "JK"


@pytest.mark.parametrize(
    ("token", "card"),
    [
        ("A♣", 0),
        ("2♦", 14),
        ("3♥", 28),
        ("4♠", 42),
        ("A♧", 0),
        ("2♢", 14),
        ("3♡", 28),
        ("4♤", 42),
        ("K♠\ufe0f", 51),  # emoji presentation selector after a pasted symbol
        ("10S", 48),
        ("10♥", 35),
        ("tD", 22),
        ("qh", 37),
        ("Jk", 52),
        ("jK", 52),
        ("  as  ", 39),
    ],
)
def test_symbols_ten_and_case(token: str, card: int) -> None:
    assert parse_card(token) == card


def test_parse_cards_separators_and_iterables() -> None:
    expected = (1 << 39) | (1 << 40) | (1 << 41) | (1 << 22)
    assert parse_cards("AS 2S 3S TD") == expected
    assert parse_cards("AS,2S, 3S ,TD") == expected
    assert parse_cards("AS\t2S\n3S,,TD") == expected
    assert parse_cards(["AS", "2S 3S", "TD"]) == expected
    assert parse_cards(("as", "2♠", "3♤", "10d")) == expected
    assert parse_cards("") == 0
    assert parse_cards([]) == 0


def test_two_jokers_are_bits_52_and_53() -> None:
    assert parse_cards("JK") == 1 << 52
    assert parse_cards("JK JK") == (1 << 52) | (1 << 53)
    assert parse_card_list("AS JK 2S jk") == [39, 52, 40, 53]
    assert format_cards(parse_cards("JK jk AS")) == "AS JK JK"


def test_card_list_keeps_order() -> None:
    assert parse_card_list("KS AC 5D") == [51, 0, 17]
    assert format_cards([51, 0, 17], sort=False) == "KS AC 5D"
    assert format_cards([51, 0, 17]) == "AC 5D KS"


@pytest.mark.parametrize("token", ["XS", "AX", "1S", "11H", "A", "S", "ASS", "JKR", "A-S", "🂡"])
def test_bad_token_message_names_token_and_allowed(token: str) -> None:
    with pytest.raises(CardError) as info:
        parse_cards(f"2C {token} 3C")
    message = str(info.value)
    assert message.startswith(f"bad card {token!r}:")
    assert "A 2 3 4 5 6 7 8 9 T J Q K (or 10)" in message
    assert "C D H S" in message
    assert "JK" in message
    assert "\n" not in message


def test_bad_card_exact_message() -> None:
    with pytest.raises(CardError, match=r"^bad card 'XS': rank must be one of A 2 3 4 5 6 7 8 9 T"):
        parse_card("XS")


def test_duplicate_card() -> None:
    with pytest.raises(CardError, match=r"^card 'AS' given twice$"):
        parse_cards("AS 2S AS")
    with pytest.raises(CardError, match=r"^card 'AS' given twice$"):
        parse_cards("A♠ as")  # same text up to case: the canonical name says it all
    with pytest.raises(CardError, match=r"^card 'A♠' \(AS\) given twice$"):
        parse_cards("as A♠")
    with pytest.raises(CardError, match="given twice"):
        parse_card_list("10H TH")


def test_too_many_jokers() -> None:
    with pytest.raises(CardError, match=r"^'JK' given 3 times but the rules allow 2 jokers$"):
        parse_cards("JK JK JK")
    with pytest.raises(CardError, match=r"^'JK' given once but the rules allow 0 jokers$"):
        parse_cards("AS JK", jokers=0)
    with pytest.raises(CardError, match=r"^'JK' given twice but the rules allow 0 jokers$"):
        parse_card_list("JK JK", jokers=0)
    assert parse_cards("AS", jokers=0) == 1 << 39
    with pytest.raises(ValueError, match="jokers=3"):
        parse_cards("AS", jokers=3)


def test_non_text_tokens_are_rejected() -> None:
    with pytest.raises(CardError, match="bad card 5"):
        parse_cards([5])  # type: ignore[list-item]
    with pytest.raises(CardError, match="bad card"):
        parse_card(None)  # type: ignore[arg-type]


def test_masks_and_indices() -> None:
    assert cards_of(0) == []
    assert cards_of((1 << 53) | 1 | (1 << 51)) == [0, 51, 53]
    assert cards_of(np.uint64(6)) == [1, 2]
    assert mask_of([0, 51, 53]) == (1 << 53) | 1 | (1 << 51)
    assert mask_of(np.array([1, 2])) == 6
    assert format_cards(np.uint64(7)) == "AC 2C 3C"
    assert format_cards(0) == ""
    with pytest.raises(CardError, match="bits 0..53"):
        cards_of(1 << 54)
    with pytest.raises(CardError, match="bad hand mask"):
        cards_of(-1)
    with pytest.raises(CardError, match="bad card index 54"):
        mask_of([54])
    with pytest.raises(CardError, match="given twice"):
        mask_of([3, 3])
    with pytest.raises(CardError, match="bad card index -1"):
        card_name(-1)
    with pytest.raises(CardError, match="joker"):
        card_rank(52)
    with pytest.raises(CardError, match="joker"):
        card_suit(53)


def test_card_values() -> None:
    """RULES.md deadwood values: A = 1, 2..10 face, J/Q/K = 10, joker = joker_value."""
    assert [card_value(card) for card in range(13)] == [1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 10, 10, 10]
    assert card_value(parse_card("AS")) == 1
    assert card_value(parse_card("AS"), ace="high_or_low") == 15
    assert card_value(parse_card("AH"), ace="around", ace_high_value=11) == 11
    assert card_value(parse_card("2H"), ace="around") == 2
    assert card_value(JOKER) == 15
    assert card_value(53, joker_value=0) == 0
    with pytest.raises(ValueError, match="ace='middle'"):
        card_value(0, ace="middle")


# Jokers are filled from bit 52 up: a mask with joker 53 but not 52 is not canonical,
# since both are written JK (see sim/cards.py).
@st.composite
def canonical_masks(draw: st.DrawFn) -> int:
    naturals = draw(st.sets(st.integers(0, 51), max_size=52))
    n_jokers = draw(st.integers(0, 2))
    return mask_of(naturals) | sum(1 << joker for joker in JOKERS[:n_jokers])


@settings(max_examples=300, deadline=None)
@given(canonical_masks(), st.randoms(use_true_random=False))
def test_random_masks_round_trip(mask: int, random: object) -> None:
    text = format_cards(mask)
    assert parse_cards(text) == mask
    assert mask_of(cards_of(mask)) == mask
    # Any order, any case, either separator: the same hand.
    tokens = text.split()
    random.shuffle(tokens)  # type: ignore[attr-defined]
    assert parse_cards(", ".join(token.lower() for token in tokens)) == mask
