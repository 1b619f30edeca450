"""The built-in strategies, their Python twins, the registry and ``rummy strategies``.

* Hand-drawn positions (the hand in each docstring) check each strategy's decisions,
  calling the jitted hooks directly on an ``Obs`` built in Python.
* Thousands of random observations check numba hook == Python twin
  (``tests/reference/strategies_ref.py``), random draws and scratch included, and
  that every answer is legal, under several rule vectors.
* Registry, seat and line-up parsing, plugins, and the CLI sub-app.
"""

from __future__ import annotations

import json
import random
import sys
import textwrap
from functools import cache
from typing import Any

import numpy as np
import pytest
import typer
from typer.testing import CliRunner

import strategies as S
from kernels import obs as kobs
from kernels.deadwood import min_deadwood_one
from kernels.layout import (
    R_ACE,
    R_ACE_HIGH_VALUE,
    R_BIG_GIN_BONUS,
    R_DISCARD_TAKEN_CARD,
    R_HAND_SIZE,
    R_JOKER_VALUE,
    R_JOKERS,
    R_PLAYERS,
    R_UPCARD_OPTION,
)
from kernels.melds import melds_with
from kernels.obs import (
    BIG_GIN,
    CONTINUE,
    KNOCK,
    N_PARAMS,
    PHASE_DISCARD,
    PHASE_DRAW,
    PHASE_UPCARD_OPTION,
    SCRATCH_SIZE,
    Obs,
)
from kernels.showdown import knock_limit_of
from kernels.tables import build_tables
from sim.cli.strategies_cmd import app as strategies_app
from sim.rules import get_rules
from strategies import StrategyError, params_vector, parse_lineup, parse_seat
from strategies.defensive import danger
from strategies.schedule import threshold_at
from strategies.simple import PAIRS
from tests.conftest import random_meld
from tests.reference import strategies_ref as ref
from tests.reference.cardtext import names, parse
from tests.support.twins import fast_solver

PILE_CAPACITY = 64
ACE_NAMES = {0: "low", 1: "high_or_low", 2: "around"}


# --- building observations -----------------------------------------------------------


@cache
def _rules(preset: str, **overrides: Any) -> np.ndarray:
    return get_rules(preset, **overrides).compile()


def rules_of(preset: str, **overrides: Any) -> np.ndarray:
    return _rules(preset, **overrides)


@cache
def _tables(ace: int, ace_high_value: int, joker_value: int) -> np.ndarray:
    return build_tables(ace, ace_high_value, joker_value)


def tables_of(rules: np.ndarray) -> np.ndarray:
    return _tables(int(rules[R_ACE]), int(rules[R_ACE_HIGH_VALUE]), int(rules[R_JOKER_VALUE]))


def mask(text: str) -> int:
    out = 0
    for card in parse(text):
        out |= 1 << card
    return out


def card(text: str) -> int:
    return parse(text)[0]


def position(
    rules: np.ndarray,
    hand: int,
    pile: list[int] | tuple[int, ...] = (),
    *,
    phase: int = PHASE_DISCARD,
    drawn: int = -1,
    from_pile: bool = False,
    seat: int = 0,
    taken: list[int] | None = None,
    discarded: list[int] | None = None,
    turn: int = 5,
    upcard: int | None = None,
    rng_key: int = 7,
) -> tuple[Obs, ref.RefObs]:
    """The same observation for the numba hooks (``Obs``) and the twins (``RefObs``)."""
    players = int(rules[R_PLAYERS])
    taken = list(taken) if taken is not None else [0] * players
    discarded = list(discarded) if discarded is not None else [0] * players
    pile_array = np.zeros(PILE_CAPACITY, np.int64)
    pile_array[: len(pile)] = pile
    if upcard is None:
        upcard = pile[0] if len(pile) else 0
    obs = Obs(
        seat=int(seat),
        players=players,
        hand=int(hand),
        pile=pile_array,
        pile_n=len(pile),
        taken=np.array(taken, np.int64),
        discarded=np.array(discarded, np.int64),
        stock_n=20,
        turn=int(turn),
        phase=int(phase),
        upcard=int(upcard),
        drawn=int(drawn),
        from_pile=bool(from_pile),
        dealer=players - 1,
        rules=rules,
        scores=np.zeros(players, np.int64),
        tab=tables_of(rules),
        rng_key=np.uint64(rng_key),
    )
    twin = ref.RefObs(
        seat=int(seat),
        players=players,
        hand=int(hand),
        pile=[int(c) for c in pile],
        taken=[int(m) for m in taken],
        discarded=[int(m) for m in discarded],
        stock_n=20,
        turn=int(turn),
        phase=int(phase),
        upcard=int(upcard),
        drawn=int(drawn),
        from_pile=bool(from_pile),
        dealer=players - 1,
        rules=[int(x) for x in rules],
        scores=[0] * players,
        rng_key=int(rng_key),
    )
    return obs, twin


def vec(name: str, **values: Any) -> np.ndarray:
    return params_vector(S.make_params(S.BUILTINS[name], **values))


def scratch() -> np.ndarray:
    return np.zeros(SCRATCH_SIZE, np.int64)


def take(name: str, obs: Obs, **values: Any) -> bool:
    return bool(S.BUILTINS[name].take_nb(obs, vec(name, **values), scratch()))


def discard(name: str, obs: Obs, sc: np.ndarray | None = None, **values: Any) -> int:
    sc = scratch() if sc is None else sc
    return int(S.BUILTINS[name].discard_nb(obs, vec(name, **values), sc))


def knock(name: str, obs: Obs, card_: int, sc: np.ndarray | None = None, **values: Any) -> int:
    sc = scratch() if sc is None else sc
    return int(S.BUILTINS[name].knock_nb(obs, vec(name, **values), sc, card_))


GIN = "gin"
# An 11-card hand: runs AS-3S and 9C-JC, deadwood 5H 5D QH KD, plus the drawn 4S.
BASE_10 = "AS 2S 3S 9C TC JC 5H 5D QH KD"


# --- greedy ----------------------------------------------------------------------------


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
    from strategies.greedy import cannot_gain

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


# --- random ----------------------------------------------------------------------------


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


# --- simple ----------------------------------------------------------------------------


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


# --- schedule --------------------------------------------------------------------------


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


# --- defensive -------------------------------------------------------------------------


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


# --- numba == twin on random observations ----------------------------------------------


def _meldy_hand(rng: random.Random, size: int, ace: str, deck: list[int]) -> list[int]:
    """``size`` cards: often two or three melds plus fill, so knocks are in reach."""
    cards: set[int] = set()
    if rng.random() < 0.6:
        avail = {c for c in deck if c < 52}
        target = size - rng.randint(1, 4)
        for _ in range(6):
            meld = random_meld(rng, ace, avail)
            if meld is not None and len(cards) + len(meld) <= target:
                cards |= set(meld)
                avail -= set(meld)
    rest = [c for c in deck if c not in cards]
    cards |= set(rng.sample(rest, size - len(cards)))
    return sorted(cards)


def random_params(rng: random.Random, name: str) -> Any:
    strategy = S.BUILTINS[name]
    if rng.random() < 0.4 and name != "mc":
        return strategy.params()
    if name == "random":
        return strategy.params(p=rng.choice((0.0, 0.25, 0.5, 0.9, 1.0)))
    if name == "greedy":
        return strategy.params(knock_at=rng.randint(-1, 14), min_gain=rng.randint(-3, 6))
    if name == "simple":
        return strategy.params(knock_at=rng.randint(-1, 12))
    if name == "mc":  # few samples: its twin plays every rollout in Python
        return strategy.params(
            samples=rng.randint(1, 3),
            candidates=rng.randint(0, 3),
            knock_at=rng.randint(-1, 10),
            min_gain=rng.randint(0, 3),
            budget=rng.choice((0, 0, 4)),
            model=rng.randint(0, 2),
            game_weight=rng.choice((0.0, 20.0)),
        )
    if name == "schedule":
        return strategy.params(
            a=rng.uniform(0, 20),
            b=rng.uniform(0, 1.5),
            lo=rng.uniform(-2, 6),
            min_gain=rng.randint(-2, 5),
        )
    return strategy.params(
        knock_at=rng.randint(-1, 12),
        min_gain=rng.randint(-2, 5),
        slack=rng.randint(0, 8),
        alarm=rng.randint(0, 5),
        alarm_taken=rng.randint(1, 4),
        alarm_turn=rng.randint(0, 30),
    )


Pair = tuple[Obs, ref.RefObs]


def random_observations(rng: random.Random, rules: np.ndarray) -> tuple[Pair, Pair, int]:
    """A draw-phase and a discard-phase observation of one seat, and a key."""
    players = int(rules[R_PLAYERS])
    size = int(rules[R_HAND_SIZE]) + 1
    deck = list(range(52)) + ([52, 53] if int(rules[R_JOKERS]) else [])
    ace = ACE_NAMES[int(rules[R_ACE])]
    hand = _meldy_hand(rng, size, ace, deck)
    rest = [c for c in deck if c not in hand]
    rng.shuffle(rest)
    pile = rest[: rng.randint(0, 10)]
    outside = rest[len(pile) :]
    seat = rng.randrange(players)
    drawn = rng.choice(hand)
    from_pile = rng.random() < 0.4
    taken = []
    discarded = []
    for o in range(players):
        if o == seat:
            mine = [c for c in hand if c != drawn and rng.random() < 0.15]
            taken.append(sum(1 << c for c in mine) | ((1 << drawn) if from_pile else 0))
        else:
            taken.append(sum(1 << c for c in rng.sample(outside, rng.choice((0, 0, 1, 2, 3)))))
        discarded.append(sum(1 << c for c in rng.sample(rest, rng.randint(0, 6))))
    turn = rng.randrange(0, 40)
    upcard = rng.choice(deck)
    key = rng.getrandbits(63)
    common: dict[str, Any] = {
        "seat": seat,
        "taken": taken,
        "discarded": discarded,
        "turn": turn,
        "upcard": upcard,
        "rng_key": key,
    }
    upcard_option = int(rules[R_UPCARD_OPTION]) and rng.random() < 0.2
    phase = PHASE_UPCARD_OPTION if upcard_option else PHASE_DRAW
    draw_pile = pile if rng.random() > 0.05 else []
    before = position(
        rules, sum(1 << c for c in hand if c != drawn), draw_pile, phase=phase, **common
    )
    after = position(
        rules,
        sum(1 << c for c in hand),
        pile,
        phase=PHASE_DISCARD,
        drawn=drawn,
        from_pile=from_pile,
        **common,
    )
    return before, after, drawn


def random_scratch(rng: random.Random, name: str, hand: int, drawn: int) -> np.ndarray:
    sc = scratch()
    sc[0] = rng.randrange(0, 1000)
    if name == "simple":
        roll = rng.random()
        if roll < 0.3:
            held = [c for c in range(54) if (hand >> c) & 1]
            sc[PAIRS + drawn] = sum(1 << c for c in held if rng.random() < 0.3)
        elif roll < 0.45:
            drop = rng.choice([c for c in range(54) if (hand >> c) & 1])
            sc[PAIRS + drawn] = hand & ~(1 << drop)
        elif roll < 0.5:
            sc[PAIRS + drawn] = hand
    return sc


def check_legal(name: str, after: Obs, choice: int, decision: int) -> None:
    hand = int(after.hand)
    forbidden = -1
    if after.from_pile and not after.rules[R_DISCARD_TAKEN_CARD]:
        forbidden = int(after.drawn)
    assert (hand >> choice) & 1, f"{name} discarded {choice}, not held"
    assert choice != forbidden, f"{name} discarded the forbidden card {choice}"
    if name == "simple" and after.from_pile:
        assert choice != after.drawn
    assert decision in (CONTINUE, KNOCK, BIG_GIN)
    if decision == KNOCK:
        left = int(min_deadwood_one(np.int64(hand & ~(1 << choice)), after.tab))
        limit = int(knock_limit_of(after.rules, after.upcard))
        assert limit < 0 or left <= limit, f"{name} knocked with {left} over {limit}"
    if decision == BIG_GIN:
        assert after.rules[R_BIG_GIN_BONUS] > 0
        assert int(min_deadwood_one(np.int64(hand), after.tab)) == 0


def describe(
    name: str, listed: list[float], i: int, seed: str, drawn: int, twin: ref.RefObs
) -> str:
    """A failing observation in words (built only when an assertion fails)."""
    return (
        f"{name} params {listed} obs {i} ({seed}): hand [{names(ref.cards_of(twin.hand))}] "
        f"drawn {drawn} from_pile {twin.from_pile} pile {twin.pile} taken {twin.taken} "
        f"discarded {twin.discarded} turn {twin.turn} seat {twin.seat}"
    )


def _cards_apart(obs: ref.RefObs) -> bool:
    """Every card in one place: the seat's hand, the pile, or one opponent's taken cards."""
    seen = int(obs.hand)
    for card in ref.pile_of(obs):
        seen |= 1 << card
    for s, taken in enumerate(obs.taken):
        if s != obs.seat:
            if int(taken) & seen:
                return False
            seen |= int(taken)
    return True


def compare_on_random(rules: np.ndarray, n: int, seed: str) -> dict[str, int]:
    """Every hook of every strategy, numba vs twin, on ``n`` random observations."""
    rng = random.Random(seed)
    counts = {"take": 0, "knock": 0, "big_gin": 0, "mc": 0}
    for i in range(n):
        (before, ref_before), (after, ref_after), drawn = random_observations(rng, rules)
        for name, strategy in S.BUILTINS.items():
            if name == "mc" and (
                i % 10 or not _cards_apart(ref_before) or not _cards_apart(ref_after)
            ):
                continue  # its twin is slow, and samples need a consistent view (test_mc.py)
            twin = ref.REF_STRATEGIES[name]
            counts["mc"] += name == "mc"
            values = params_vector(random_params(rng, name))
            listed = [float(v) for v in values]
            ctx = (name, listed, i, seed, drawn, ref_after)
            sc = random_scratch(rng, name, int(before.hand), drawn)
            sc_ref = [int(x) for x in sc]
            got = bool(strategy.take_nb(before, values, sc))
            assert got == twin.take(ref_before, listed, sc_ref), f"take: {describe(*ctx)}"
            assert list(sc) == sc_ref, f"take scratch: {describe(*ctx)}"
            assert before.pile_n > 0 or not got
            counts["take"] += got
            sc = random_scratch(rng, name, int(after.hand), drawn)
            sc_ref = [int(x) for x in sc]
            choice = int(strategy.discard_nb(after, values, sc))
            assert choice == twin.discard(ref_after, listed, sc_ref), f"discard: {describe(*ctx)}"
            assert list(sc) == sc_ref, f"discard scratch: {describe(*ctx)}"
            decision = int(strategy.knock_nb(after, values, sc, choice))
            expected = twin.knock(ref_after, listed, sc_ref, choice)
            assert decision == expected, f"knock: {describe(*ctx)}"
            assert list(sc) == sc_ref, f"knock scratch: {describe(*ctx)}"
            check_legal(name, after, choice, decision)
            counts["knock"] += decision == KNOCK
            counts["big_gin"] += decision == BIG_GIN
    return counts


RANDOM_CASES = [
    ("gin", {}, 1000),
    ("knock-rummy", {}, 1000),
    ("gin", {"discard_taken_card": True}, 200),
    ("oklahoma-gin", {}, 200),
    ("round-the-corner-gin", {}, 200),
    ("gin", {"ace": "high_or_low"}, 150),
    ("knock-rummy", {"players": 2}, 200),
    ("joker-knock", {}, 200),
]


@pytest.mark.parametrize(("preset", "overrides", "n"), RANDOM_CASES)
def test_numba_hooks_equal_twins_on_random_observations(
    preset: str, overrides: dict[str, Any], n: int, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(ref, "SOLVER", fast_solver)
    counts = compare_on_random(rules_of(preset, **overrides), n, f"{preset}/{overrides}")
    # The samples reach every kind of answer, so the comparison means something.
    assert counts["take"] > 0
    assert counts["knock"] > 0
    assert counts["mc"] > 0
    if preset == "gin" and not overrides:
        assert counts["big_gin"] > 0


@pytest.mark.parametrize("preset", ["gin", "knock-rummy"])
def test_twins_with_the_reference_solver(preset: str) -> None:
    """The twins with their own ``deadwood_ref`` solver (no kernel inside), fewer hands."""
    assert ref.SOLVER is ref._reference_solver
    compare_on_random(rules_of(preset), 120, f"ref/{preset}")


# --- registry, seats, line-ups, plugins -------------------------------------------------


def test_twin_constants_match_the_kernels() -> None:
    assert (ref.CONTINUE, ref.KNOCK, ref.BIG_GIN) == (kobs.CONTINUE, kobs.KNOCK, kobs.BIG_GIN)
    assert (ref.PHASE_UPCARD_OPTION, ref.PHASE_DRAW, ref.PHASE_DISCARD) == (
        kobs.PHASE_UPCARD_OPTION,
        kobs.PHASE_DRAW,
        kobs.PHASE_DISCARD,
    )
    assert ref.SCRATCH_SIZE == kobs.SCRATCH_SIZE and ref.N_PARAMS == kobs.N_PARAMS
    assert set(ref.REF_STRATEGIES) == set(S.BUILTINS)
    for name, strategy in S.BUILTINS.items():
        fields = ref.REF_STRATEGIES[name].FIELDS
        assert tuple(f for f, _ in fields) == strategy.params._fields
        for field, kind in fields:
            assert type(strategy.params._field_defaults[field]) is kind


def test_builtins_in_order_and_well_formed() -> None:
    assert list(S.BUILTINS) == ["random", "greedy", "simple", "schedule", "defensive", "mc"]
    for name, strategy in S.BUILTINS.items():
        assert strategy.name == name
        assert strategy.module == f"strategies.{name}"
        assert len(strategy.params._fields) <= N_PARAMS
        assert strategy.summary and strategy.description.strip()
        for value in strategy.params():
            assert isinstance(value, (int, float)) and not isinstance(value, bool)
    assert S.registry()["greedy"] is S.BUILTINS["greedy"]


def test_get_strategy_unknown_lists_the_known() -> None:
    with pytest.raises(StrategyError) as info:
        S.get_strategy("nope")
    for name in S.BUILTINS:
        assert name in str(info.value)


def test_parse_seat() -> None:
    strategy, params = parse_seat("greedy:knock_at=7,min_gain=2")
    assert strategy is S.BUILTINS["greedy"]
    assert tuple(params) == (7, 2)
    strategy, params = parse_seat("simple")
    assert strategy.name == "simple" and params == strategy.params()
    _, params = parse_seat(" schedule: a=12, b=1 ")
    assert (params.a, params.b, params.lo) == (12.0, 1.0, 0.0)
    assert isinstance(params.a, float)
    _, params = parse_seat("defensive:alarm-turn=3")
    assert params.alarm_turn == 3
    assert S.format_seat(*parse_seat("greedy:knock_at=7")) == "greedy:knock_at=7"
    assert S.format_seat(*parse_seat("greedy")) == "greedy"


@pytest.mark.parametrize(
    ("spec", "words"),
    [
        ("nope:knock_at=1", ["unknown strategy", "greedy", "defensive"]),
        ("greedy:foo=1", ["unknown parameter 'foo'", "knock_at, min_gain"]),
        ("greedy:knock_at=x", ["knock_at", "'x'", "whole number"]),
        ("greedy:knock_at=7.5", ["knock_at", "whole number"]),
        ("greedy:knock_at", ["key=value"]),
        ("greedy:knock_at=1,knock_at=2", ["twice"]),
        ("random:p=1.5", ["'p'", "between 0 and 1"]),
        ("schedule:a=inf", ["'a'", "finite"]),
        ("schedule:b=abc", ["'b'", "not a number"]),
        ("greedy:knock_at=-2", ["knock_at", "between -1 and 1000000"]),
        ("", ["empty"]),
    ],
)
def test_parse_seat_errors(spec: str, words: list[str]) -> None:
    with pytest.raises(StrategyError) as info:
        parse_seat(spec)
    for word in words:
        assert word in str(info.value), str(info.value)


def test_parse_lineup() -> None:
    seats = parse_lineup("greedy:knock_at=7/simple", 2)
    assert [s.name for s, _ in seats] == ["greedy", "simple"]
    assert seats[0][1].knock_at == 7
    seats = parse_lineup("greedy", 4)
    assert len(seats) == 4 and all(s.name == "greedy" for s, _ in seats)
    seats = parse_lineup(["random:p=0.2", "defensive"], 2)
    assert seats[0][1].p == 0.2 and seats[1][0].name == "defensive"
    with pytest.raises(StrategyError, match="3 seats given"):
        parse_lineup("greedy/simple/random", 2)
    with pytest.raises(StrategyError, match="empty seat"):
        parse_lineup("greedy//simple", 3)
    with pytest.raises(StrategyError, match="unknown parameter"):
        parse_lineup("greedy/simple:x=1", 2)
    # Commas separate seats too; an item with '=' and no ':' is a parameter of the seat
    # before it.
    seats = parse_lineup("simple,greedy:knock_at=5,min_gain=2", 2)
    assert [s.name for s, _ in seats] == ["simple", "greedy"]
    assert (seats[1][1].knock_at, seats[1][1].min_gain) == (5, 2)
    seats = parse_lineup("greedy:knock_at=7,min_gain=2", 4)  # one seat spec, every seat
    assert len(seats) == 4 and seats[3][1].min_gain == 2
    with pytest.raises(StrategyError, match="empty seat"):
        parse_lineup("greedy,,simple", 3)
    with pytest.raises(StrategyError, match="comes before any strategy"):
        parse_lineup("knock_at=5,greedy", 2)


def test_params_vector() -> None:
    v = params_vector(S.BUILTINS["schedule"].params(a=12.0, min_gain=3))
    assert v.dtype == np.float64 and v.shape == (N_PARAMS,)
    assert list(v[:4]) == [12.0, 0.5, 0.0, 3.0] and not v[4:].any()


def test_strategy_checks_its_definition() -> None:
    from typing import NamedTuple

    from strategies import greedy

    hooks = {
        "take_nb": greedy.take_nb,
        "discard_nb": greedy.discard_nb,
        "knock_nb": greedy.knock_nb,
    }

    class Many(NamedTuple):
        a: int = 0
        b: int = 0
        c: int = 0
        d: int = 0
        e: int = 0
        f: int = 0
        g: int = 0
        h: int = 0
        i: int = 0

    class Flag(NamedTuple):
        on: bool = True

    class NoDefault(NamedTuple):
        x: int

    for params, words in ((Many, "at most"), (Flag, "int or a float"), (NoDefault, "no default")):
        with pytest.raises(StrategyError, match=words):
            S.Strategy("x", "X.", params, module="t", **hooks)
    with pytest.raises(StrategyError, match="@njit"):
        S.Strategy(
            "x",
            "X.",
            greedy.Params,
            greedy.take_nb.py_func,
            greedy.discard_nb,
            greedy.knock_nb,
            "t",
        )
    with pytest.raises(StrategyError, match="name"):
        S.Strategy("a:b", "X.", greedy.Params, module="t", **hooks)


PLUGIN_SOURCE = """
from strategies import Strategy, greedy

STRATEGY = Strategy(
    name={name!r},
    description="A test plugin: greedy under another name.",
    params=greedy.Params,
    take_nb=greedy.take_nb,
    discard_nb=greedy.discard_nb,
    knock_nb=greedy.knock_nb,
    module=__name__,
)
"""


@pytest.fixture
def plugin_dir(tmp_path: Any, monkeypatch: pytest.MonkeyPatch) -> Any:
    """A fresh plugin registry and a temp directory on sys.path for plugin modules."""
    monkeypatch.setattr(S, "_PLUGINS", {})
    monkeypatch.setattr(S, "_discovered", True)
    monkeypatch.syspath_prepend(str(tmp_path))
    made: list[str] = []

    def write(module: str, name: str | None, source: str | None = None) -> str:
        path = tmp_path.joinpath(*module.split("."))
        path.parent.mkdir(parents=True, exist_ok=True)
        for parent in list(path.parents)[: len(module.split(".")) - 1]:
            parent.joinpath("__init__.py").touch()
        text = source if source is not None else PLUGIN_SOURCE.format(name=name)
        path.with_suffix(".py").write_text(textwrap.dedent(text))
        made.append(module.split(".")[0])
        return module

    yield write
    for module in list(sys.modules):
        if module.split(".")[0] in made:
            del sys.modules[module]


def test_load_plugin(plugin_dir: Any) -> None:
    module = plugin_dir("h5_plugin_one", "h5one")
    strategy = S.load_plugin(module)
    assert strategy.name == "h5one" and strategy.module == module
    assert S.registry()["h5one"] is strategy
    assert list(S.registry())[: len(S.BUILTINS)] == list(S.BUILTINS)
    assert S.load_plugin(module) is strategy  # loading again is harmless
    seat, params = parse_seat("h5one:knock_at=3")
    assert seat is strategy and params.knock_at == 3


def test_plugin_by_module_path_in_a_seat(plugin_dir: Any) -> None:
    module = plugin_dir("h5_pkg_two.mod", "h5two")
    seat, params = parse_seat(f"{module}:min_gain=4")
    assert seat.name == "h5two" and params.min_gain == 4
    assert S.get_strategy("h5two") is seat


HOOKED_PLUGIN_SOURCE = """
from numba import njit

from kernels.obs import CONTINUE
from strategies import Strategy, greedy


@njit(cache=True)
def take_nb(obs, params, scratch):
    return False


@njit(cache=True)
def discard_nb(obs, params, scratch):
    return greedy.memo_discard(obs, scratch)


@njit(cache=True)
def knock_nb(obs, params, scratch, discard):
    return CONTINUE


STRATEGY = Strategy(
    name={name!r},
    description="A test plugin with hooks of its own.",
    params=greedy.Params,
    take_nb=take_nb,
    discard_nb=discard_nb,
    knock_nb=knock_nb,
    module=__name__,
)
"""


def test_engine_text_follows_every_plugin_source(plugin_dir: Any, tmp_path: Any) -> None:
    """A plugin's hooks compile into the engine, whose numba cache is found by the
    engine's text: the text carries a hash of the plugin package's sources, so an
    edit to any of them (a helper module too) builds a fresh engine, never a stale one."""
    from sim.engine_build import engine_source

    module = plugin_dir("h5_pkg_src.strat", None, HOOKED_PLUGIN_SOURCE.format(name="h5src"))
    helper = tmp_path / "h5_pkg_src" / "helper.py"
    helper.write_text("LIMIT = 1\n")
    lineup = [S.BUILTINS["greedy"], S.load_plugin(module)]
    before = engine_source(lineup)
    assert "# sources of h5_pkg_src: " in before
    assert "# sources of" not in engine_source([S.BUILTINS["greedy"]])
    assert engine_source(lineup) == before
    helper.write_text("LIMIT = 2\n")
    assert engine_source(lineup) != before


def test_plugin_errors(plugin_dir: Any) -> None:
    with pytest.raises(StrategyError, match="built-in"):
        S.load_plugin(plugin_dir("h5_plugin_clash", "greedy"))
    S.load_plugin(plugin_dir("h5_plugin_a", "h5same"))
    with pytest.raises(StrategyError, match="two strategy plugins are named 'h5same'"):
        S.load_plugin(plugin_dir("h5_plugin_b", "h5same"))
    with pytest.raises(StrategyError, match="no STRATEGY"):
        S.load_plugin(plugin_dir("h5_plugin_empty", None, "X = 1\n"))
    with pytest.raises(StrategyError, match="must be a strategies.Strategy"):
        S.load_plugin(plugin_dir("h5_plugin_wrong", None, "STRATEGY = 3\n"))
    with pytest.raises(StrategyError, match="cannot import"):
        S.load_plugin("h5_no_such_module_anywhere")


class FakeEntryPoint:
    def __init__(self, name: str, value: str, load: Any) -> None:
        self.name = name
        self.value = value
        self._load = load

    def load(self) -> Any:
        return self._load()


def test_discover_entry_points(plugin_dir: Any, monkeypatch: pytest.MonkeyPatch) -> None:
    import importlib

    module = plugin_dir("h5_plugin_ep", "h5ep")
    points = [FakeEntryPoint("h5ep", module, lambda: importlib.import_module(module))]
    monkeypatch.setattr(
        S, "entry_points", lambda group: points if group == S.ENTRY_POINT_GROUP else []
    )
    found = S.discover()
    assert [s.name for s in found] == ["h5ep"]
    assert "h5ep" in S.registry()

    def broken() -> Any:
        raise RuntimeError("boom")

    points.append(FakeEntryPoint("bad", "bad.module", broken))
    with pytest.raises(StrategyError, match="'bad'.*boom"):
        S.discover()


def test_get_strategy_discovers_lazily(plugin_dir: Any, monkeypatch: pytest.MonkeyPatch) -> None:
    import importlib

    module = plugin_dir("h5_plugin_lazy", "h5lazy")
    points = [FakeEntryPoint("h5lazy", module, lambda: importlib.import_module(module))]
    monkeypatch.setattr(S, "entry_points", lambda group: points)
    monkeypatch.setattr(S, "_discovered", False)
    assert S.get_strategy("h5lazy").name == "h5lazy"


# --- CLI -------------------------------------------------------------------------------

ENV = {"COLUMNS": "200", "NO_COLOR": "1"}


def _cli(*args: str) -> tuple[int, str, str]:
    main = typer.Typer()

    @main.callback()
    def root() -> None:
        """Root command (a callback keeps `strategies` a sub-command)."""

    main.add_typer(strategies_app, name="strategies")
    result = CliRunner().invoke(main, ["strategies", *args], env=ENV)
    return result.exit_code, result.stdout, result.stderr


@pytest.fixture
def no_plugins(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(S, "_PLUGINS", {})
    monkeypatch.setattr(S, "entry_points", lambda group: [])


def test_cli_list(no_plugins: None) -> None:
    code, out, err = _cli("list")
    assert code == 0, err
    for name in S.BUILTINS:
        assert name in out
    assert "knock_at=-1" in out and "min_gain=1" in out
    code, out, err = _cli("list", "--json")
    assert code == 0, err
    data = json.loads(out)
    assert list(data) == list(S.BUILTINS)
    assert data["greedy"]["parameters"] == {"knock_at": -1, "min_gain": 1}
    assert data["schedule"]["parameters"]["b"] == 0.5


def test_cli_show(no_plugins: None) -> None:
    code, out, err = _cli("show", "defensive")
    assert code == 0, err
    assert "alarm_turn" in out and "danger" in out
    code, out, err = _cli("show", "simple", "--json")
    assert code == 0, err
    data = json.loads(out)
    assert data["name"] == "simple"
    assert data["parameters"]["knock_at"]["default"] == -1
    assert "Fallback" in data["description"]


def test_cli_show_unknown(no_plugins: None) -> None:
    code, out, err = _cli("show", "nope")
    assert code == 1
    assert err.startswith("error: unknown strategy 'nope'")
    assert "greedy" in err


def test_run_identity_follows_every_plugin_source(plugin_dir: Any, tmp_path: Any) -> None:
    """A run seating a plugin is tied to its package's sources: after an edit (a helper
    module too) a resume is refused with a line that says so, never a mixed run."""
    from sim.study import rundir
    from sim.study.runs import RunConfig, RunError

    module = plugin_dir("h5_pkg_id.strat", None, HOOKED_PLUGIN_SOURCE.format(name="h5id"))
    helper = tmp_path / "h5_pkg_id" / "helper.py"
    helper.write_text("LIMIT = 1\n")
    config = RunConfig(
        rules="gin", lineup=f"{module}/greedy", count=10, seed=1, out=tmp_path / "out",
        command="t",
    )  # fmt: skip
    assert config.identity()["plugin_digests"].keys() == {"h5_pkg_id"}
    config.run_dir.mkdir(parents=True)
    rundir.prepare(config, config.run_dir)
    assert rundir.resume_config(config.run_dir).config_hash == config.config_hash
    helper.write_text("LIMIT = 2\n")
    with pytest.raises(RunError, match="sources of a plugin strategy's package changed"):
        rundir.resume_config(config.run_dir)
