"""strategies/defensive.py on hand-drawn positions (the hand in each docstring): it
avoids throwing what an opponent can use (ace-aware), and knocks earlier under alarm."""

from __future__ import annotations

from typing import Any

from kernels.obs import CONTINUE, KNOCK
from strategies.defensive import danger
from tests.support.positions import BASE_10, GIN, card, discard, knock, mask, position, rules_of


def test_defensive_avoids_feeding_an_opponent() -> None:
    """Hand  AS 2S 3S 4S | 9C TC JC | 5H 5D QH KD, 4S drawn; the opponent is seat 1.

    Nothing known: QH (greedy's choice). Opponent took QC (same rank as QH, +3): KD.
    It took QC and KC: both +3, QH again. It took QC and discarded KS (-2 for KD): KD.
    slack=5 and it discarded 5C: 5H and 5D (25 left) come in at -2: 5H.
    It took JD (run-near KD and QH? only KD's suit): KD +3 -> QH.
    """
    rules = rules_of(GIN)
    hand = mask(BASE_10 + " 4S")

    def choose(taken: str = "", thrown: str = "", **values: Any) -> int:
        obs, _ = position(
            rules,
            hand,
            [0],
            drawn=card("4S"),
            taken=[0, mask(taken)],
            discarded=[0, mask(thrown)],
        )
        return discard("defensive", obs, **values)

    assert choose() == card("QH")
    assert choose(taken="QC") == card("KD")
    assert choose(taken="QC KC") == card("QH")
    assert choose(taken="QC KC", thrown="KS") == card("KD")
    assert choose(thrown="5C", slack=5) == card("5H")
    assert choose(thrown="5C") == card("QH")
    assert choose(taken="JD") == card("QH")


def test_defensive_danger_is_ace_aware() -> None:
    """An opponent holding a taken AD: KD shares a 3-card run shape with it only where
    runs wrap (``around``) or the ace plays high (Q-K-A). QD: Q-K-A under both."""
    for preset, expected_kd in (("gin", 0), ("round-the-corner-gin", 3)):
        rules = rules_of(preset)
        obs, _ = position(rules, mask(BASE_10 + " 4S"), [0], taken=[0, mask("AD")])
        assert danger(obs, card("KD")) == expected_kd, preset
        assert danger(obs, card("KS")) == 0
    high = rules_of("gin", ace="high_or_low")
    obs, _ = position(high, mask(BASE_10 + " 4S"), [0], taken=[0, mask("AD")])
    assert danger(obs, card("KD")) == 3
    assert danger(obs, card("QD")) == 3
    assert danger(obs, card("JD")) == 0


def test_defensive_knocks_earlier_under_alarm() -> None:
    """Gin: AS 2S 3S 4S | 9C TC JC | 4H 3D 2D + KD: 9 after KD.

    Calm threshold 10 - 2 = 8: play on. The opponent holds two taken cards, or the
    turn reaches 16: threshold 10: knock. knock_at=9 knocks while calm.
    """
    rules = rules_of(GIN)
    hand = mask("AS 2S 3S 4S 9C TC JC 4H 3D 2D KD")
    obs, _ = position(rules, hand, [0], turn=5, taken=[0, mask("7C")])
    assert knock("defensive", obs, card("KD")) == CONTINUE
    assert knock("defensive", obs, card("KD"), knock_at=9) == KNOCK
    obs, _ = position(rules, hand, [0], turn=5, taken=[0, mask("7C 8H")])
    assert knock("defensive", obs, card("KD")) == KNOCK
    assert knock("defensive", obs, card("KD"), alarm_taken=3) == CONTINUE
    obs, _ = position(rules, hand, [0], turn=16)
    assert knock("defensive", obs, card("KD")) == KNOCK
