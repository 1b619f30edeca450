"""strategies/greedy.py on hand-drawn positions (the hand in each docstring): what it
takes, what it throws, when it knocks or goes big gin; its take test without a solve."""

from __future__ import annotations

import random

import numpy as np
import pytest

from kernels.greedy import cannot_gain
from kernels.layout import R_ACE, R_JOKERS
from kernels.obs import BIG_GIN, CONTINUE, KNOCK, PHASE_DRAW, PHASE_UPCARD_OPTION
from tests.conftest import random_meld
from tests.reference import strategies_ref as ref
from tests.reference.cardtext import names
from tests.support.positions import (
    BASE_10,
    GIN,
    card,
    discard,
    knock,
    mask,
    position,
    rules_of,
    tables_of,
    take,
)


def test_greedy_takes_the_pile_card_that_lowers_deadwood() -> None:
    """Hand  AS 2S 3S | 9C TC JC | 5H 5D QH KD   (deadwood 30)

    Pile 4S: AS-4S, then throw a ten: deadwood 20 (gain 10): take.
    Pile 8H: keep 8H, throw a ten: deadwood 28 (gain 2): take unless min_gain > 2.
    Pile KC: throwing it back is forbidden, it replaces a ten (gain 0): no take.
    """
    rules = rules_of(GIN)
    for phase in (PHASE_DRAW, PHASE_UPCARD_OPTION):
        obs, _ = position(rules, mask(BASE_10), [card("4S")], phase=phase)
        assert take("greedy", obs)
        obs, _ = position(rules, mask(BASE_10), [card("2C"), card("8H")], phase=phase)
        assert take("greedy", obs)
        assert take("greedy", obs, min_gain=2)
        assert not take("greedy", obs, min_gain=3)
        obs, _ = position(rules, mask(BASE_10), [card("KC")], phase=phase)
        assert not take("greedy", obs)
        assert take("greedy", obs, min_gain=0)


@pytest.mark.parametrize(
    ("preset", "overrides"),
    [
        ("gin", {}),
        ("round-the-corner-gin", {}),
        ("knock-rummy", {"ace": "high_or_low"}),
        ("joker-knock", {}),
    ],
)
def test_greedy_refusal_without_a_solve_is_sound(preset: str, overrides: dict) -> None:
    """``cannot_gain`` (greedy's take test without a solve) agrees with its twin, and
    wherever it refuses, the plain solve finds no gain: taking the card and throwing
    the best allowed card leaves at least the hand's least deadwood. On 10-card hands
    of one or two random melds and random cards (least deadwood mostly 0 to 30, where
    low pile cards are refused or taken) and a random pile card. Both answers occur."""
    rules = rules_of(preset, **overrides)
    tab = tables_of(rules)
    ace = ref.ACE_NAMES[int(rules[R_ACE])]
    rng = random.Random(f"cannot_gain {preset}")
    seen = set()
    for i in range(1500):
        avail = set(range(52 + int(rules[R_JOKERS])))
        cards: list[int] = []
        for _ in range(1 + i % 2):
            meld = random_meld(rng, ace, avail) or ()
            cards += meld
            avail -= set(meld)
        cards = cards[:9]  # two long melds could fill the hand
        cards += rng.sample(sorted(avail - set(cards)), 11 - len(cards))
        hand, top = sum(1 << c for c in cards[:10]), cards[10]
        _, twin = position(rules, hand, [top], phase=PHASE_DRAW)
        deadwood = ref.min_deadwood(hand, twin)
        refused = bool(cannot_gain(np.int64(hand), deadwood, top, tab))
        assert refused == ref.cannot_gain(twin, deadwood, top), names(cards)
        if refused:
            assert not ref.greedy_take(twin, 1), names(cards)
        seen.add(refused)
    assert seen == {True, False}


def test_greedy_never_takes_from_an_empty_pile() -> None:
    """Hand  AS 2S 3S | 9C TC JC | 5H 5D QH KD, no pile: draw from the stock."""
    obs, _ = position(rules_of(GIN), mask(BASE_10), [], phase=PHASE_DRAW)
    assert not take("greedy", obs, min_gain=-100)


def test_greedy_discards_the_worst_card_but_not_the_taken_one() -> None:
    """Hand  AS 2S 3S 4S | 9C TC JC | 5H 5D QH KD

    QH and KD both leave 20; the tie goes to the higher index: QH. After taking QH
    from the pile it may not go back: KD.
    """
    rules = rules_of(GIN)
    hand = mask(BASE_10 + " 4S")
    obs, _ = position(rules, hand, [card("2C")], drawn=card("4S"))
    assert discard("greedy", obs) == card("QH")
    obs, _ = position(rules, hand, [card("2C")], drawn=card("QH"), from_pile=True)
    assert discard("greedy", obs) == card("KD")
    allowed = rules_of(GIN, discard_taken_card=True)
    obs, _ = position(allowed, hand, [card("2C")], drawn=card("QH"), from_pile=True)
    assert discard("greedy", obs) == card("QH")


def test_greedy_knocks_within_its_threshold_when_legal() -> None:
    """Gin (limit 10):
        AS 2S 3S 4S | 9C TC JC | 5H 5D 2D + KD   -> after KD: 12: play on
        AS 2S 3S 4S | 9C TC JC | 5H 2D 3H + KD   -> after KD: 10: knock (not at knock_at=9)
    Knock Rummy (no limit), 8 cards:
        AS 2S 3S | 7C 9C 5H 8H + KD              -> after KD: 29: knock only at knock_at>=29
    Threshold Knock (limit 10): the same hand may not knock at any knock_at.
    """
    rules = rules_of(GIN)
    obs, _ = position(rules, mask("AS 2S 3S 4S 9C TC JC 5H 5D 2D KD"), [0])
    assert knock("greedy", obs, card("KD")) == CONTINUE
    obs, _ = position(rules, mask("AS 2S 3S 4S 9C TC JC 5H 2D 3H KD"), [0])
    assert knock("greedy", obs, card("KD")) == KNOCK
    assert knock("greedy", obs, card("KD"), knock_at=9) == CONTINUE
    knock_rummy = rules_of("knock-rummy")
    hand = mask("AS 2S 3S 7C 9C 5H 8H KD")
    obs, _ = position(knock_rummy, hand, [0])
    assert knock("greedy", obs, card("KD")) == CONTINUE
    assert knock("greedy", obs, card("KD"), knock_at=28) == CONTINUE
    assert knock("greedy", obs, card("KD"), knock_at=29) == KNOCK
    obs, _ = position(rules_of("threshold-knock"), hand, [0])
    assert knock("greedy", obs, card("KD"), knock_at=40) == CONTINUE


def test_greedy_goes_big_gin_where_the_rules_allow_it() -> None:
    """AS 2S 3S 4S | 9C TC JC | 5C 5D 5H 5S: all 11 cards melded.

    The best discard is 5S (deadwood 0 left; highest value 5, then highest index).
    Gin (big gin 31): BIG_GIN. Gin Classic (no big gin): a plain knock at 0 (gin).
    """
    hand = mask("AS 2S 3S 4S 9C TC JC 5C 5D 5H 5S")
    obs, _ = position(rules_of(GIN), hand, [0])
    assert discard("greedy", obs) == card("5S")
    assert knock("greedy", obs, card("5S")) == BIG_GIN
    obs, _ = position(rules_of("gin-classic"), hand, [0])
    assert knock("greedy", obs, card("5S")) == KNOCK


def test_oklahoma_limit_follows_the_upcard() -> None:
    """Oklahoma: AS 2S 3S 4S | 9C TC JC | 5H 2D 3H + KD (10 after KD).

    Upcard 9H allows 9: play on; upcard TC allows 10: knock; an ace upcard: gin only.
    """
    rules = rules_of("oklahoma-gin")
    hand = mask("AS 2S 3S 4S 9C TC JC 5H 2D 3H KD")
    for upcard, expected in (("9H", CONTINUE), ("TD", KNOCK), ("AH", CONTINUE)):
        obs, _ = position(rules, hand, [card(upcard)])
        assert knock("greedy", obs, card("KD")) == expected, upcard
