"""strategies/schedule.py: its knock threshold falls with the turn, and it knocks on
that schedule (the hand in the docstring)."""

from __future__ import annotations

from kernels.obs import CONTINUE, KNOCK
from strategies.schedule import threshold_at
from tests.support.positions import GIN, card, knock, mask, position, rules_of


def test_schedule_threshold_falls_with_the_turn() -> None:
    """floor(max(lo, a - b * turn)): defaults 10, 0.5, 0."""
    assert threshold_at(1, 10.0, 0.5, 0.0) == 9
    assert threshold_at(6, 10.0, 0.5, 0.0) == 7
    assert threshold_at(7, 10.0, 0.5, 0.0) == 6
    assert threshold_at(10, 10.0, 0.5, 0.0) == 5
    assert threshold_at(40, 10.0, 0.5, 0.0) == 0
    assert threshold_at(40, 10.0, 0.5, 3.5) == 3


def test_schedule_knocks_on_schedule() -> None:
    """Gin: AS 2S 3S 4S | 9C TC JC | 4H 2D AD + KD: 7 after KD.

    Turn 6: threshold 7: knock. Turn 7: 6: play on. Turn 20 with lo=7: knock.
    """
    rules = rules_of(GIN)
    hand = mask("AS 2S 3S 4S 9C TC JC 4H 2D AD KD")
    obs, _ = position(rules, hand, [0], turn=6)
    assert knock("schedule", obs, card("KD")) == KNOCK
    obs, _ = position(rules, hand, [0], turn=7)
    assert knock("schedule", obs, card("KD")) == CONTINUE
    obs, _ = position(rules, hand, [0], turn=20)
    assert knock("schedule", obs, card("KD")) == CONTINUE
    assert knock("schedule", obs, card("KD"), lo=7.0) == KNOCK
