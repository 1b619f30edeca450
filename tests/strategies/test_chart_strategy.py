"""strategies/chart.py on hand-drawn positions (the hand in each docstring), each answer
checked against its twin too, and in whole deals: greedy's masks play exactly greedy."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest

from kernels.obs import CONTINUE, KNOCK, PHASE_DRAW
from sim.engine import play_deals
from strategies import BUILTINS, StrategyError, format_seat, parse_seat
from strategies.chart import (
    HIGH_FIRST,
    KNOCK_COLUMNS,
    OWN_TURNS,
    STRATEGY,
    knock_mask,
    knock_set,
    knock_wanted,
    safety_of,
)
from tests.reference import strategies_ref as ref
from tests.support.positions import BASE_10, GIN, card, mask, position, rules_of, scratch, vec
from tests.support.twins import fast_solver

CHART = BUILTINS["chart"]
TWIN = ref.REF_STRATEGIES["chart"]


@pytest.fixture(autouse=True)
def _fast_twin(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(ref, "SOLVER", fast_solver)


def every_turn(prefix: str, value: int) -> dict[str, int]:
    return {f"{prefix}{t}": value for t in range(1, 21)}


def _sc(turns: int) -> np.ndarray:
    sc = scratch()
    sc[OWN_TURNS] = turns
    return sc


def _both_take(top: str, turns: int = 0, **values: Any) -> bool:
    obs, twin = position(rules_of(GIN), mask(BASE_10), [card("2C"), card(top)], phase=PHASE_DRAW)
    v = vec("chart", **values)
    got = bool(CHART.take_nb(obs, v, _sc(turns)))
    sc_ref = [int(x) for x in _sc(turns)]
    assert got == TWIN.take(twin, [float(x) for x in v], sc_ref)
    return got


def _both_discard(hand: str, **values: Any) -> int:
    obs, twin = position(rules_of(GIN), mask(hand), [0], drawn=card("4S"))
    v = vec("chart", **values)
    got = int(CHART.discard_nb(obs, v, scratch()))
    assert got == TWIN.discard(twin, [float(x) for x in v], [0] * 64)
    return got


def _both_knock(turns: int, **values: Any) -> int:
    """Gin, hand AS 2S 3S 4S | 9C TC JC | 5H 2D 3D + QH: throwing QH leaves 10."""
    obs, twin = position(rules_of(GIN), mask("AS 2S 3S 4S 9C TC JC 5H 2D 3D QH"), [0])
    v = vec("chart", **values)
    got = int(CHART.knock_nb(obs, v, _sc(turns), card("QH")))
    sc_ref = [int(x) for x in _sc(turns)]
    assert got == TWIN.knock(twin, [float(x) for x in v], sc_ref, card("QH"))
    return got


def test_take_masks_by_class_and_turn() -> None:
    """Hand AS 2S 3S | 9C TC JC | 5H 5D QH KD. 5C completes a set (class meld), AD pairs
    with AS (pair) and lowers the deadwood, 6H lies next to 5H (near run) and lowers it,
    KC pairs with KD and lowers nothing. The default takes only the meld; the pair bit
    takes AD and KC; bit 7 (greedy's test) takes what lowers the deadwood; own turn 3
    reads t3, and turns past 20 read t20."""
    assert [_both_take(top) for top in ("5C", "AD", "6H", "KC")] == [True, False, False, False]
    pair = every_turn("t", 1 << 1)
    assert [_both_take(top, **pair) for top in ("5C", "AD", "6H", "KC")] == [
        False, True, False, True,
    ]  # fmt: skip
    lowers = every_turn("t", 1 << 7)
    assert [_both_take(top, **lowers) for top in ("5C", "AD", "6H", "KC")] == [
        True, True, True, False,
    ]  # fmt: skip
    assert _both_take("6H", turns=2, t3=1 << 2) and not _both_take("6H", turns=3, t3=1 << 2)
    assert _both_take("KC", turns=30, t20=1 << 1) and not _both_take("KC", turns=30, t19=1 << 1)
    assert not _both_take("5C", t1=0)


def test_discard_by_the_safety_order() -> None:
    """Hand AS 2S 3S 4S | 9C TC JC | 5H 5D QH KD (4S drawn): QH and KD each leave 20, the
    least. safety = 0 throws greedy's card; an order with the queen safest throws QH,
    one with the king safest KD; a card that leaves more (a five) is never thrown."""
    hand = BASE_10 + " 4S"
    obs, _ = position(rules_of(GIN), mask(hand), [0], drawn=card("4S"))
    greedy = int(BUILTINS["greedy"].discard_nb(obs, vec("greedy"), scratch()))
    assert _both_discard(hand, safety=0) == greedy
    queen_first = safety_of([11, 12, *range(11)])
    king_first = safety_of([12, 11, *range(11)])
    assert _both_discard(hand, safety=queen_first) == card("QH")
    assert _both_discard(hand, safety=king_first) == card("KD")
    fives_first = safety_of([4, 11, 12, *range(4), *range(5, 11)])
    assert _both_discard(hand, safety=fives_first) == card("QH")
    assert HIGH_FIRST == safety_of(list(reversed(range(13))))


def test_lookahead_keeps_the_live_pair() -> None:
    """Hand 2C 3C 4C | 5H 5D 5S | KS KH 9D 6S 2D: a king leaves the least deadwood,
    27. With a lookahead the pair of kings stays (each of the two kings not seen would
    make a set and save 26) and the lone nine goes, leaving 28; a light one does not
    pay that one point."""
    hand = "2C 3C 4C 5H 5D 5S KS KH 9D 6S 2D"
    assert _both_discard(hand) == card("KS")
    assert _both_discard(hand, lookahead=30) == card("9D")
    assert _both_discard(hand, lookahead=1) == card("KS")


def test_lookahead_steps_aside_for_a_knock() -> None:
    """Hand 2C 3C 4C | 7S 8S 9S TS JS | AD 6D 7D: throwing 7D leaves 7, a knock where
    this turn's mask has bit 7, and then the lookahead keeps out of the way; without
    that bit the lookahead's card is another (6D)."""
    hand = "2C 3C 4C 7S 8S 9S TS JS AD 6D 7D"
    assert _both_discard(hand, lookahead=30) == card("7D")
    assert _both_discard(hand, k1=0, lookahead=30) == card("6D")


def test_gin_chance_keeps_the_pair_that_gins() -> None:
    """Hand 2C 3C 4C 5C | 7H 7D 7S 7C | KH KD 3D: a king leaves the least deadwood, 13,
    and no card that gives gin on the next draw; throwing 3D leaves 20, and two of the
    40 cards not seen (KS, KC) give gin. gin_chance 150 values that 2/40 chance at 7.5
    points of deadwood and throws 3D; 100 values it at 5 and throws a king."""
    hand = "2C 3C 4C 5C 7H 7D 7S 7C KH KD 3D"
    assert _both_discard(hand) in (card("KH"), card("KD"))
    assert _both_discard(hand, gin_chance=150) == card("3D")
    assert _both_discard(hand, gin_chance=100) in (card("KH"), card("KD"))


def test_knock_masks_by_turn() -> None:
    """Bit 10 of the turn's mask knocks with 10 left; bit 9 alone does not; own turn 2
    reads k2; turns past 20 read k20."""
    assert _both_knock(1) == KNOCK  # default: bits 0-10
    assert _both_knock(1, k1=1 << 9) == CONTINUE
    assert _both_knock(2, k1=0, k2=1 << 10) == KNOCK
    assert _both_knock(1, k1=0, k2=1 << 10) == CONTINUE
    assert _both_knock(33, k20=0) == CONTINUE and _both_knock(33, k19=0) == KNOCK


def test_knock_wanted_matches_its_twin() -> None:
    """Every deadwood 0-98 under random masks and the hand-picked ones: bit 30 alone
    ("30 or more", as masks read before bits 31-51 existed), each reversing bit, all bits."""
    rng = np.random.default_rng(3)
    masks = [0, 1 << 30, (1 << 31) - 1, (1 << 52) - 1, 1 << 31, 1 << 51, (1 << 30) | (1 << 41)]
    masks += [int(m) for m in rng.integers(0, 1 << 52, size=300, dtype=np.int64)]
    for m in masks:
        for d in range(99):
            assert knock_wanted(np.int64(m), np.int64(d)) == TWIN.knocks_with(m, d), (m, d)
    assert knock_set(1 << 30) == [False] * 30 + [True] * (KNOCK_COLUMNS - 30)


def test_knock_mask_round_trips() -> None:
    """``knock_mask`` writes the mask that knocks where asked (the last column: that
    deadwood and more), and ``knock_set`` reads it back; shorter lists never knock
    past their end."""
    rng = np.random.default_rng(4)
    for _ in range(300):
        knocks = [bool(b) for b in rng.integers(0, 2, size=KNOCK_COLUMNS)]
        mask = knock_mask(knocks)
        assert 0 <= mask < 1 << 52 and knock_set(mask) == knocks
        for d in range(KNOCK_COLUMNS, 99):  # past the last column: as the last
            assert TWIN.knocks_with(mask, d) == knocks[-1]
    assert knock_mask([True] * 11) == 2047
    assert knock_mask([True] * 41) == (1 << 30) - 1 | sum(1 << (d + 1) for d in range(30, 41))


def test_bad_values_are_refused_in_one_line() -> None:
    for spec, words in (
        ("chart:k1=-1", "between 0 and 4503599627370495"),
        ("chart:k1=4503599627370496", "between 0 and 4503599627370495"),
        ("chart:t3=256", "between 0 and 255"),
        ("chart:safety=4503599627370496", "between 0 and 4503599627370495"),
        ("chart:t1=1.5", "not a whole number"),
    ):
        with pytest.raises(StrategyError) as err:
            parse_seat(spec)
        assert "\n" not in str(err.value) and words in str(err.value)


# --- whole deals: greedy's masks play greedy --------------------------------------------------


def greedy_masks(knock_at: int) -> str:
    values = every_turn("k", (1 << (knock_at + 1)) - 1) | every_turn("t", 1 << 7)
    return "chart:" + ",".join(f"{k}={v}" for k, v in values.items()) + ",safety=0"


def hand_table(cols: Any) -> list[tuple[int, ...]]:
    """Each hand's knocker, winner, turns, deadwood and points, seat by seat."""
    return [
        (int(k), int(w), int(t), *map(int, d), *map(int, p))
        for k, w, t, d, p in zip(
            cols.knocker, cols.winner, cols.turns, cols.deadwood, cols.points, strict=True
        )
    ]


@pytest.mark.parametrize(("preset", "knock_at"), [("gin", 0), ("gin", 7), ("knock-rummy", 10)])
def test_greedy_masks_play_exactly_greedy(preset: str, knock_at: int) -> None:
    """Knock masks of deadwood 0..k on every turn, take bit 7 only and no safety order
    play every deal exactly as greedy:knock_at=k, against greedy; the default chart
    (meld-only takes, high cards first) does not, on the same deals, so the identity is
    not one of a strategy that ignores its parameters."""
    players = 2 if preset == "gin" else 4
    rest = "/greedy" * (players - 1)
    deals = {"deals": 3000, "seed": 11}
    chart = hand_table(play_deals(preset, greedy_masks(knock_at) + rest, **deals))
    greedy = hand_table(play_deals(preset, f"greedy:knock_at={knock_at}" + rest, **deals))
    assert chart == greedy
    assert hand_table(play_deals(preset, "chart" + rest, **deals)) != greedy


@pytest.mark.parametrize("players", [2, 3, 4])
def test_a_chart_plays_the_card_of_its_layer_for_the_players_at_the_table(players: int) -> None:
    """A chart with cards for fewer players (a pool's, ``layers``) plays at a table of n
    the card of its layer for n, deal for deal as that card seated alone, and its own
    card where it has no layer for n; the cards differ on these deals, so the check can
    tell them apart."""
    from sim.rules import get_rules
    from strategies.chart import layer_card, with_layers

    own, two, three = (parse_seat(spec)[1] for spec in
                       (greedy_masks(3), "chart", greedy_masks(12)))  # fmt: skip
    layered = with_layers(own, {2: two, 3: three})
    assert layer_card(layered, 2) == two and layer_card(layered, 4) is None
    rules = get_rules("knock-rummy", players=players)
    rest = "/greedy" * (players - 1)
    deals = {"deals": 2000, "seed": 5}
    table = {
        name: hand_table(play_deals(rules, format_seat(STRATEGY, card) + rest, **deals))
        for name, card in (("own", own), ("two", two), ("three", three))
    }
    plays = hand_table(play_deals(rules, format_seat(STRATEGY, layered) + rest, **deals))
    expected = {2: "two", 3: "three", 4: "own"}[players]
    assert plays == table[expected]
    assert all(table[name] != plays for name in table if name != expected)
