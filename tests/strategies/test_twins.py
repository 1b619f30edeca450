"""Every built-in strategy against its Python twin (``tests/reference/strategies_ref.py``).

Thousands of random observations under several rule vectors: each numba hook gives
the twin's answer, random draws and scratch included, and every answer is legal. The
twins' constants and parameter fields match the kernels and the registry.
"""

from __future__ import annotations

import random
from typing import Any

import numpy as np
import pytest

import strategies as S
from kernels import obs as kobs
from kernels.deadwood import min_deadwood_one
from kernels.layout import (
    R_ACE,
    R_BIG_GIN_BONUS,
    R_DISCARD_TAKEN_CARD,
    R_HAND_SIZE,
    R_JOKERS,
    R_PLAYERS,
    R_UPCARD_OPTION,
)
from kernels.obs import (
    BIG_GIN,
    CONTINUE,
    GAME_HANDS,
    GAME_OPP_KNOCKS,
    KNOCK,
    PHASE_DISCARD,
    PHASE_DRAW,
    PHASE_UPCARD_OPTION,
    Obs,
)
from kernels.showdown import knock_limit_of
from strategies import params_vector
from strategies.simple import PAIRS
from tests.conftest import random_meld
from tests.reference import mc_ref
from tests.reference import strategies_ref as ref
from tests.reference.cardtext import names
from tests.support.positions import position, rules_of, scratch
from tests.support.twins import fast_solver

ACE_NAMES = {0: "low", 1: "high_or_low", 2: "around"}


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


def random_card(rng: random.Random, lookahead_share: float) -> dict[str, int]:
    """A chart card's fields: masks of every shape, an order or none (greedy's discard)."""
    masks = {f"k{t}": rng.choice((0, 1, 2047, rng.getrandbits(31))) for t in range(1, 21)}
    masks |= {f"t{t}": rng.choice((0, 1, 128, rng.getrandbits(8))) for t in range(1, 21)}
    order = list(range(13))
    rng.shuffle(order)
    packed = sum(r << (4 * i) for i, r in enumerate(order))
    safety = rng.choice((0, packed, rng.getrandbits(52)))
    # The lookahead's twin solves hundreds of hands a discard: a few of them here.
    weight = rng.choice((5, 30, rng.randint(1, 1000)))
    lookahead, gin_chance = 0, 0
    if rng.random() < lookahead_share:  # either weight, or both
        lookahead, gin_chance = rng.choice(
            ((weight, 0), (0, rng.choice((1, 150, 1000))), (weight, rng.randint(1, 1000)))
        )
    return {**masks, "safety": safety, "lookahead": lookahead, "gin_chance": gin_chance}


def random_params(rng: random.Random, name: str, lookahead_share: float = 0.03) -> Any:
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
            model=rng.randint(0, 3),
            game_weight=rng.choice((0.0, 20.0)),
            gin_drop=rng.randint(-1, 1),
            screen=rng.randint(-1, 2),  # below samples: a first round, then the finalists
            finalists=rng.randint(0, 3),
            gin_candidates=rng.choice((0, 0, 1, 2, 11)),
            waiters=rng.randint(-1, 1),
            stop=rng.choice((0.0, 0.0, 0.5, 2.0)),  # rounds of one or two samples
            step=rng.randint(1, 2),
        )
    if name == "advice":
        return strategy.params(
            knock_at=rng.randint(-1, 12),
            min_gain=rng.randint(-2, 5),
            take_if=rng.randint(0, 2),
            throw_low=rng.randint(0, 1),
            knock_from=rng.choice((0, 0, 1, 2, 3)),
            avoid_middle=rng.choice((0, 0, 1, 3, 8)),
            keep_partials=rng.choice((0, 0, 1, 3, 8)),
            late_turn=rng.choice((0, 0, 10, 20, 40)),
        )
    if name == "chart":  # a card, and sometimes a layer for some players left
        card = random_card(rng, lookahead_share)
        if rng.random() < 0.5:
            return strategy.params(**card)
        layers = rng.getrandbits(4)  # bit n - 2: a layer for n players (the suite: 2 and 4)
        for n in (2, 3, 4, 5):
            if layers >> (n - 2) & 1:
                card |= {f"n{n}_{k}": v for k, v in random_card(rng, lookahead_share).items()}
        return strategy.params(**card, layers=layers)
    if name == "rollout":  # knocking only with gin, where throwing for gin matters most
        return strategy.params(
            knock_at=rng.choice((-2, -1, 0, 0, 5, 10)),
            min_gain=rng.randint(-1, 3),
            gin_drops=rng.randint(-1, 1),
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
    first_turn = common
    if upcard_option and draw_pile:  # the upcard alone on the pile, as in a real first turn
        draw_pile = draw_pile[:1]
        first_turn = {**common, "upcard": draw_pile[0], "turn": 0}
    before = position(
        rules, sum(1 << c for c in hand if c != drawn), draw_pile, phase=phase, **first_turn
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


def random_scratch(rng: random.Random, name: str, hand: int, drawn: int,
                   pile: list[int]) -> np.ndarray:  # fmt: skip
    sc = scratch()
    sc[0] = rng.randrange(0, 1000)
    if name == "chart":  # its own turns so far: every mask row, and past the last
        sc[7] = rng.randrange(0, 25)
    if name in ("mc", "rollout"):  # the game memory: hands over, a knock in one, or not
        sc[GAME_OPP_KNOCKS] = rng.choice((0, 0, 1, 3))
        sc[GAME_HANDS] = sc[GAME_OPP_KNOCKS] + rng.choice((0, 0, 1, 2))
    if name == "mc" and pile and rng.random() < 0.6:  # its notes (kernels/history.py)
        # waiting for the opponent's turn after a discard of its own that the pile shows
        # passed (under one card), taken (one card where it lay), or neither; some notes
        # already kept, up to the most (the oldest is then dropped)
        mine = rng.choice((len(pile) - 1, len(pile), len(pile) + 1))
        sc[mc_ref.H_MINE] = max(mine, 1) + 1
        sc[mc_ref.H_CARD] = pile[max(mine, 1) - 1] if mine < len(pile) else rng.randrange(52)
        sc[mc_ref.H_STATE] = mc_ref.WAITING
        sc[mc_ref.H_COUNT] = rng.choice((0, 2, mc_ref.MAX_NOTES))
        for w in range(mc_ref.H_NOTES, mc_ref.H_NOTES + 2 * sc[mc_ref.H_COUNT]):
            sc[w] = rng.randrange(1 << 43)
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


def compare_on_random(
    rules: np.ndarray, n: int, seed: str, lookahead_share: float = 0.03
) -> dict[str, int]:
    """Every hook of every strategy, numba vs twin, on ``n`` random observations
    (``lookahead_share`` of the chart seats with a lookahead)."""
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
            values = params_vector(random_params(rng, name, lookahead_share))
            listed = [float(v) for v in values]
            ctx = (name, listed, i, seed, drawn, ref_after)
            sc = random_scratch(rng, name, int(before.hand), drawn, ref.pile_of(ref_before))
            sc_ref = [int(x) for x in sc]
            got = bool(strategy.take_nb(before, values, sc))
            assert got == twin.take(ref_before, listed, sc_ref), f"take: {describe(*ctx)}"
            assert list(sc) == sc_ref, f"take scratch: {describe(*ctx)}"
            assert before.pile_n > 0 or not got
            counts["take"] += got
            sc = random_scratch(rng, name, int(after.hand), drawn, ref.pile_of(ref_after))
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
    ("gin", {}, 400),
    ("knock-rummy", {}, 400),
    pytest.param("gin", {}, 3000, marks=pytest.mark.slow),
    pytest.param("knock-rummy", {}, 3000, marks=pytest.mark.slow),
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


@pytest.mark.slow
@pytest.mark.parametrize(("preset", "overrides"), [("gin", {}), ("joker-knock", {})])
def test_chart_lookahead_equals_twin_on_many_observations(
    preset: str, overrides: dict[str, Any], monkeypatch: pytest.MonkeyPatch
) -> None:
    """The chart seat's lookahead discard on every observation (the default suite
    draws it on a few)."""
    monkeypatch.setattr(ref, "SOLVER", fast_solver)
    compare_on_random(rules_of(preset, **overrides), 300, f"lookahead/{preset}", 1.0)


@pytest.mark.parametrize("preset", ["gin", "knock-rummy"])
def test_twins_with_the_reference_solver(preset: str) -> None:
    """The twins with their own ``deadwood_ref`` solver (no kernel inside), fewer hands."""
    assert ref.SOLVER is ref._reference_solver
    compare_on_random(rules_of(preset), 120, f"ref/{preset}")


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
