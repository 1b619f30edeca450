"""strategies/advice.py on hand-drawn positions (the hand in each docstring), each answer
checked against its twin too: the take rules, the discard scores, the knock's turn."""

from __future__ import annotations

from typing import Any

import pytest

from kernels.obs import CONTINUE, KNOCK, PHASE_DRAW
from sim.engine import key_of, play_deals
from sim.rules import get_rules
from strategies.advice import OWN_TURNS, in_partial
from tests.reference import strategies_ref as ref
from tests.reference.engine_ref import play_hand_ref
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
    take,
    vec,
)
from tests.support.twins import fast_solver, ref_lineup

TWIN = ref.REF_STRATEGIES["advice"]


def _both_take(hand: str, top: str, **values: Any) -> bool:
    obs, twin = position(rules_of(GIN), mask(hand), [card("2C"), card(top)], phase=PHASE_DRAW)
    got = take("advice", obs, **values)
    assert got == TWIN.take(twin, list(vec("advice", **values)), [0] * 64)
    return got


def _both_discard(hand: str, turn: int = 5, **values: Any) -> int:
    obs, twin = position(rules_of(GIN), mask(hand), [0], drawn=card("4S"), turn=turn)
    got = discard("advice", obs, **values)
    assert got == TWIN.discard(twin, list(vec("advice", **values)), [0] * 64)
    return got


def test_take_rules() -> None:
    """Hand AS 2S 3S | 9C TC JC | 5H 5D QH KD (deadwood 30).

    5C completes a set of fives: every rule takes it. AD and 6H lower the deadwood
    (either replaces KD) but complete nothing: greedy's rule takes them, the meld rule
    does not, the partial rule does (AD pairs with AS, 6H runs with 5H). KC lowers
    nothing and completes nothing but pairs with KD: only the partial rule. An empty
    pile: no take.
    """
    hand = BASE_10
    for rule in (0, 1, 2):
        assert _both_take(hand, "5C", take_if=rule)
    for top in ("AD", "6H"):
        assert _both_take(hand, top, take_if=0)
        assert not _both_take(hand, top, take_if=1)
        assert _both_take(hand, top, take_if=2)
    assert not _both_take(hand, "KC", take_if=0)
    assert not _both_take(hand, "KC", take_if=1)
    assert _both_take(hand, "KC", take_if=2)
    for rule in (0, 1, 2):
        obs, twin = position(rules_of(GIN), mask(hand), [], phase=PHASE_DRAW)
        assert not take("advice", obs, take_if=rule)
        assert not TWIN.take(twin, list(vec("advice", take_if=rule)), [0] * 64)


def test_partials_do_not_wrap_around_the_ace() -> None:
    """KS and AS are not a two-card run (no wrap); 2S and AS are; 5H and 5D a pair."""
    assert not in_partial(mask("AS KS"), card("KS"))
    assert in_partial(mask("AS 2S"), card("AS"))
    assert in_partial(mask("5H 5D"), card("5D"))
    assert not in_partial(mask("5H 7H"), card("7H"))


def test_discard_scores() -> None:
    """Hand AS 2S 3S 4S | 9C TC JC | 5H 5D QH KD, 4S drawn (deadwood after a discard:
    QH or KD 20, 5H or 5D 25).

    Default: QH (greedy's choice: least deadwood, then highest value, highest index).
    throw_low: the lowest unmatched card, 5H or 5D (ties: the higher index, 5H).
    avoid_middle late (turn >= late_turn) does not move QH; with throw_low it moves the
    choice off the fives to QH. keep_partials early makes the fives (a pair) costlier.
    """
    hand = BASE_10 + " 4S"
    assert _both_discard(hand) == card("QH")
    assert _both_discard(hand, throw_low=1) == card("5H")
    assert _both_discard(hand, throw_low=1, avoid_middle=20) == card("QH")
    # early (turn 5 < 10): the middle penalty is off, so the fives go
    assert _both_discard(hand, throw_low=1, avoid_middle=20, late_turn=10) == card("5H")
    # early: the pair of fives is kept, late (turn 12) it is not
    assert _both_discard(hand, throw_low=1, keep_partials=20, late_turn=10) == card("QH")
    assert _both_discard(hand, 12, throw_low=1, keep_partials=20, late_turn=10) == card("5H")


def test_avoid_middle_trades_deadwood_for_an_end_card() -> None:
    """Hand AS 2S 3S 4S | 9C TC JC | JD QD KD | 7H: greedy throws 7H (gin left).

    Late, a middle card costs ``avoid_middle`` more: at 5, 7H still scores least (5);
    at 20 it scores 20, and 4S or AS (each leaves a run and 7H: 7 deadwood) score 7:
    the tie goes to the higher value, 4S.
    """
    hand = "AS 2S 3S 4S 9C TC JC JD QD KD 7H"
    assert _both_discard(hand) == card("7H")
    assert _both_discard(hand, avoid_middle=5) == card("7H")
    assert _both_discard(hand, avoid_middle=20) == card("4S")


def test_knock_waits_for_its_turn() -> None:
    """Gin, hand AS 2S 3S 4S | 9C TC JC | 5H 2D 3D + QH: QH leaves 10. Default knocks;
    knock_from=3 on the seat's second turn plays on, on its third knocks."""
    obs, twin = position(rules_of(GIN), mask("AS 2S 3S 4S 9C TC JC 5H 2D 3D QH"), [0])
    for turns, knock_from, expected in ((1, 0, KNOCK), (2, 3, CONTINUE), (3, 3, KNOCK)):
        sc = scratch()
        sc[OWN_TURNS] = turns
        values = {"knock_from": knock_from}
        assert knock("advice", obs, card("QH"), sc, **values) == expected
        sc_ref = [0] * 64
        sc_ref[OWN_TURNS] = turns
        assert TWIN.knock(twin, list(vec("advice", **values)), sc_ref, card("QH")) == expected


def test_discard_counts_the_seats_turns() -> None:
    """Every discard adds one to the turn counter, in both the greedy and scored paths."""
    obs, _ = position(rules_of(GIN), mask(BASE_10 + " 4S"), [0], drawn=card("4S"))
    sc = scratch()
    discard("advice", obs, sc)
    discard("advice", obs, sc, throw_low=1)
    assert sc[OWN_TURNS] == 2


# --- whole hands: the engine with advice's knobs against the reference engine ---------------

WHOLE_HANDS = [
    ("gin", {}, "advice:take_if=1,throw_low=1,knock_from=3/"
     "advice:take_if=2,avoid_middle=3,keep_partials=2,late_turn=10"),
    ("knock-rummy", {"players": 4}, "advice:knock_at=8,knock_from=4,take_if=1/greedy/"
     "advice:avoid_middle=2/advice:keep_partials=3,late_turn=12"),
]  # fmt: skip


@pytest.mark.parametrize(("preset", "overrides", "spec"), WHOLE_HANDS, ids=lambda v: str(v))
def test_whole_hands_match_the_reference_engine(
    preset: str, overrides: dict[str, Any], spec: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Every hand, field by field: the knobs' turn counter, take rules and discard scores
    act in the engine exactly as in the twin (a knock before its turn would show here)."""
    monkeypatch.setattr(ref, "SOLVER", fast_solver)
    rules = get_rules(preset, **overrides)
    n, seed = 16, 21
    cols = play_deals(rules, spec, deals=n, seed=seed, first=40)
    strategies, params = ref_lineup(rules, spec)
    key = int(key_of(seed))
    knocks = 0
    for i in range(n):
        hand = play_hand_ref(rules, key, 40 + i, strategies, params)
        got = (int(cols.knocker[i]), int(cols.winner[i]), int(cols.turns[i]),
               [int(x) for x in cols.deadwood[i, : rules.players]],
               [int(x) for x in cols.points[i, : rules.players]])  # fmt: skip
        assert got == (hand["knocker"], hand["winner"], hand["turns"], hand["deadwood"],
                       hand["points"]), f"hand {i}"  # fmt: skip
        knocks += hand["knocker"] >= 0
    assert knocks > 0
