"""strategies/random.py on hand-drawn positions (the hand in each docstring): a fair
coin for the pile, any legal discard, knocks only when legal, numbers drawn only
when a choice is made."""

from __future__ import annotations

import strategies as S
from kernels.obs import CONTINUE, KNOCK, PHASE_DRAW
from tests.reference.cardtext import parse
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
    vec,
)


def test_random_never_draws_from_an_empty_pile_and_uses_no_number() -> None:
    """Hand AS 2S 3S | 9C TC JC | 5H 5D QH KD, empty pile: stock, counter unchanged."""
    obs, _ = position(rules_of(GIN), mask(BASE_10), [], phase=PHASE_DRAW)
    sc = scratch()
    assert not S.BUILTINS["random"].take_nb(obs, vec("random"), sc)
    assert sc[0] == 0


def test_random_takes_about_half_the_time() -> None:
    """Hand AS 2S 3S | 9C TC JC | 5H 5D QH KD, pile 8H: a fair coin per key."""
    rules = rules_of(GIN)
    takes = 0
    for key in range(400):
        obs, _ = position(rules, mask(BASE_10), [card("8H")], phase=PHASE_DRAW, rng_key=key)
        sc = scratch()
        takes += bool(S.BUILTINS["random"].take_nb(obs, vec("random"), sc))
        assert sc[0] >= 1
    assert 150 < takes < 250


def test_random_discards_every_legal_card_and_never_the_taken_one() -> None:
    """Hand AS 2S 3S 4S | 9C TC JC | 5H 5D QH KD, QH just taken from the pile."""
    rules = rules_of(GIN)
    hand = mask(BASE_10 + " 4S")
    seen = set()
    for key in range(400):
        obs, _ = position(rules, hand, [0], drawn=card("QH"), from_pile=True, rng_key=key)
        seen.add(discard("random", obs))
    assert seen == set(parse(BASE_10 + " 4S")) - {card("QH")}


def test_random_knocks_only_when_legal() -> None:
    """Gin: AS 2S 3S 4S | 9C TC JC | 5H 2D 3H + KD knocks (10 after KD) with p=1, never
    with p=0; AS 2S 3S 4S | 9C TC JC | 5H 5D QH + KD (20 after KD) never knocks and
    draws no number."""
    rules = rules_of(GIN)
    obs, _ = position(rules, mask("AS 2S 3S 4S 9C TC JC 5H 2D 3H KD"), [0])
    assert knock("random", obs, card("KD"), p=1.0) == KNOCK
    assert knock("random", obs, card("KD"), p=0.0) == CONTINUE
    obs, _ = position(rules, mask("AS 2S 3S 4S 9C TC JC 5H 5D QH KD"), [0])
    sc = scratch()
    assert knock("random", obs, card("KD"), sc, p=1.0) == CONTINUE
    assert sc[0] == 0
