"""strategies/simple.py on hand-drawn positions (the hand in each docstring): it takes
only a card that melds (jokers too), throws at random among the least-deadwood cards
while avoiding pairs made before, and knocks as soon as it may."""

from __future__ import annotations

import numpy as np

from kernels.melds import melds_with
from kernels.obs import CONTINUE, KNOCK, PHASE_DRAW, PHASE_UPCARD_OPTION, SCRATCH_SIZE
from strategies.simple import PAIRS
from tests.reference import strategies_ref as ref
from tests.support.positions import (
    BASE_10,
    GIN,
    card,
    discard,
    knock,
    mask,
    position,
    rules_of,
    scratch,
    tables_of,
    take,
    vec,
)


def test_simple_takes_only_a_card_that_melds_with_the_hand() -> None:
    """Hand  AS 2S 3S | 9C TC JC | 5H 5D QH KD

    4S extends AS-3S: take. 5C makes 5C 5D 5H: take. 8C makes 8C-9C-TC: take.
    8H and 2C meld with nothing: draw from the stock (or pass the upcard).
    """
    rules = rules_of(GIN)
    for phase in (PHASE_DRAW, PHASE_UPCARD_OPTION):
        cases = (("4S", True), ("5C", True), ("8C", True), ("8H", False), ("2C", False))
        for text, expected in cases:
            obs, _ = position(rules, mask(BASE_10), [card(text)], phase=phase)
            assert take("simple", obs) == expected, text


def test_simple_meld_test_with_jokers() -> None:
    """Joker Knock (7 cards):
    hand 5H 5D 9C 2S 7H KD QS, pile JK: 5H 5D JK is a set: take.
    hand 5H 9C 2S 7D KD JS 3C, pile JK: no two naturals fit one 3-card shape: no.
    hand JK 9C 2S 7H KD QS 4D, pile the second JK: JK JK 2S is a set: take.
    hand JK 8D 2S 5H KC QS AH, pile 9D: JK + 8D 9D is a run: take; pile 4C: no.
    """
    rules = rules_of("joker-knock")
    tab = tables_of(rules)
    assert melds_with(np.int64(mask("5H 5D 9C 2S 7H KD QS")), 52, tab)
    assert not melds_with(np.int64(mask("5H 9C 2S 7D KD JS 3C")), 52, tab)
    assert melds_with(np.int64(mask("JK 9C 2S 7H KD QS 4D")), 53, tab)
    assert melds_with(np.int64(mask("JK 8D 2S 5H KC QS AH")), card("9D"), tab)
    assert not melds_with(np.int64(mask("JK 8D 2S 5H KC QS AH")), card("4C"), tab)
    obs, twin = position(rules, mask("5H 5D 9C 2S 7H KD QS"), [53], phase=PHASE_DRAW)
    assert take("simple", obs)
    assert ref.REF_STRATEGIES["simple"].take(twin, vec("simple"), [0] * SCRATCH_SIZE)


def test_simple_discards_at_random_among_the_least_deadwood_cards() -> None:
    """Hand  AS 2S 3S 4S | 9C TC JC | 5H 5D QH KD, 4S drawn from the stock.

    QH and KD both leave 20: each is chosen for some keys, one number drawn.
    The pair is remembered: scratch[PAIRS + 4S] gets the card's bit.
    """
    rules = rules_of(GIN)
    hand = mask(BASE_10 + " 4S")
    seen = set()
    for key in range(64):
        obs, _ = position(rules, hand, [0], drawn=card("4S"), rng_key=key)
        sc = scratch()
        choice = discard("simple", obs, sc)
        seen.add(choice)
        assert sc[0] >= 1
        assert sc[PAIRS + card("4S")] == 1 << choice
    assert seen == {card("QH"), card("KD")}


def test_simple_exclusions_and_fallbacks() -> None:
    """Hand  AS 2S 3S 4S | 9C TC JC | 5H 5D QH KD, 4S drawn.

    (4S, QH) made before: KD. (4S, QH) and (4S, KD) made before: every least
    card is excluded, so the best allowed card in best-discard order: 5H (25 left,
    value 5, higher index than 5D), no number drawn. Every pair made before: the
    pair rule is dropped: QH. QH just taken from the pile, even where the rules allow
    throwing it back: KD.
    """
    rules = rules_of(GIN)
    hand = mask(BASE_10 + " 4S")
    obs, _ = position(rules, hand, [0], drawn=card("4S"))
    sc = scratch()
    sc[PAIRS + card("4S")] = 1 << card("QH")
    assert discard("simple", obs, sc) == card("KD")
    sc = scratch()
    sc[PAIRS + card("4S")] = (1 << card("QH")) | (1 << card("KD"))
    assert discard("simple", obs, sc) == card("5H")
    assert sc[0] == 0
    sc = scratch()
    sc[PAIRS + card("4S")] = hand
    assert discard("simple", obs, sc) == card("QH")
    allowed = rules_of(GIN, discard_taken_card=True)
    for key in range(20):
        obs, _ = position(allowed, hand, [0], drawn=card("QH"), from_pile=True, rng_key=key)
        assert discard("simple", obs) == card("KD")


def test_simple_knocks_as_soon_as_it_may() -> None:
    """Gin: AS 2S 3S 4S | 9C TC JC | 5H 2D 3H + KD: 10 after KD: knock; not at
    knock_at=9. Straight Gin (limit 0): only gin."""
    rules = rules_of(GIN)
    obs, _ = position(rules, mask("AS 2S 3S 4S 9C TC JC 5H 2D 3H KD"), [0])
    assert knock("simple", obs, card("KD")) == KNOCK
    assert knock("simple", obs, card("KD"), knock_at=9) == CONTINUE
    obs, _ = position(rules_of("straight-gin"), mask("AS 2S 3S 4S 9C TC JC 5H 5D 5C KD"), [0])
    assert knock("simple", obs, card("KD")) == KNOCK
    obs, _ = position(rules_of("straight-gin"), mask("AS 2S 3S 4S 9C TC JC 5H 5D 2C KD"), [0])
    assert knock("simple", obs, card("KD")) == CONTINUE
