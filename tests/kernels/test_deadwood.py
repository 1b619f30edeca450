"""The numba deadwood kernels agree with the pure-Python oracle (RULES.md "Melds and deadwood").

``kernels.deadwood.min_deadwood_one`` / ``min_deadwood_batch`` and ``best_discard_one`` /
``best_discard_batch`` are compared, answer for answer, with
``tests/reference/deadwood_ref.py`` (``min_deadwood_ref``, ``best_discard_ref``) on seeded
random hands of 1 to 13 cards, in every ace mode, with 0, 1 and 2 jokers; on dense hands
(3 to 5 neighbouring ranks in four suits, where sets and runs compete); on hands holding
four of a kind; and on hand-picked edge cases drawn in their docstrings.

The default run is sized for CI (seconds of oracle time on top of the numba compile).
``pytest -m slow`` runs the full counts: see ``test_kernels_match_oracle_at_scale``.
"""

from __future__ import annotations

import os
import random
import time
from collections.abc import Sequence
from concurrent.futures import ProcessPoolExecutor, as_completed
from multiprocessing import get_context

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from kernels.deadwood import (
    BIG,
    best_discard_batch,
    best_discard_one,
    discard_deadwoods,
    every_card_meldable,
    least_removals,
    loose_cards,
    min_deadwood_batch,
    min_deadwood_one,
    second_discard_deadwoods,
)
from kernels.melds import MAX_MELDS_PER_ARRANGEMENT, canonical_arrangement
from kernels.tables import (
    FACT_CAPABLE,
    FACT_DEADWOOD,
    KEY_OFFSET,
    N_PATTERNS,
    NO_REMOVAL,
    SUIT_FACTS,
    SUIT_STRIDE,
    table_views,
)
from tests.conftest import (
    ACE_MODES,
    assert_same,
    dense_hand,
    kmask,
    mask_of,
    melds_of,
    oracle_chunk,
    quad_hand,
    random_hand,
    ref_rules,
    seeded,
    show,
    slow_hands,
    tables_for_ref,
)
from tests.reference import deadwood_ref as R
from tests.reference.cardtext import parse

# Hands per (ace mode, size) in the default run, by number of jokers. The oracle costs
# about 0.3 ms (ace low) to 0.6 ms (around) per hand; best discard costs one oracle call
# per card of the hand.
N_FAST_DEADWOOD = {0: 60, 1: 20, 2: 20}
N_FAST_DENSE = {0: 12, 1: 6, 2: 5}
N_FAST_QUADS = 8
N_FAST_DISCARD = {0: 6, 1: 3, 2: 2}
N_FAST_DISCARD_DENSE = 4
SIZES = tuple(range(1, 14))

# The slow run (pytest -m slow): hands per (kind, size, ace mode) and how often the
# (much dearer) best-discard oracle is consulted. Override with the environment.
N_SLOW = int(os.environ.get("RUMMY_SLOW_HANDS", "100000"))
SLOW_DISCARD_EVERY = int(os.environ.get("RUMMY_SLOW_DISCARD_EVERY", "10"))
SLOW_WORKERS = int(os.environ.get("RUMMY_SLOW_WORKERS", str(os.cpu_count() or 1)))
SLOW_CHUNK = 1000


def _jokers_for(size: int) -> tuple[int, ...]:
    return tuple(j for j in (0, 1, 2) if j <= size)


def _check_min_deadwood(hands: list[tuple[int, ...]], ace: str) -> None:
    """Kernel (scalar and batch) against ``min_deadwood_ref`` on every hand."""
    rules = ref_rules(ace)
    tab = tables_for_ref(rules)
    masks = np.array([mask_of(h) for h in hands], np.uint64)
    batch = np.empty(len(hands), np.int64)
    assert min_deadwood_batch(masks, tab, True, batch) == 0
    for hand, b in zip(hands, batch, strict=True):
        one = min_deadwood_one(kmask(hand), tab)
        assert one == b, f"batch {b} != one {one} for [{show(hand)}]"
        assert_same("min deadwood", hand, ace, int(one), R.min_deadwood_ref(hand, rules))


def _check_best_discard(hands: list[tuple[int, ...]], ace: str) -> None:
    """Kernel best discard against ``best_discard_ref``: with no card forbidden, with the
    oracle's own choice forbidden (the hard case: the runner-up must be found) and with
    another card forbidden; batch and scalar kernels agree."""
    rules = ref_rules(ace)
    tab = tables_for_ref(rules)
    forbids = []
    for i, hand in enumerate(hands):
        want = R.best_discard_ref(hand, rules)
        assert_same("best discard", hand, ace, best_discard_one(kmask(hand), -1, tab), want)
        forbids.append(-1)
        if len(hand) >= 2:
            for forbidden in (want[0], hand[i % len(hand)]):
                got = best_discard_one(kmask(hand), forbidden, tab)
                exp = R.best_discard_ref(hand, rules, forbidden)
                assert_same(f"best discard (forbidden {show([forbidden])})", hand, ace, got, exp)
            forbids[-1] = want[0]
    masks = np.array([mask_of(h) for h in hands], np.uint64)
    forbidden_arr = np.array(forbids, np.int64)
    cards = np.empty(len(hands), np.int64)
    deadwood = np.empty(len(hands), np.int64)
    assert best_discard_batch(masks, forbidden_arr, tab, True, cards, deadwood) == 0
    for k, hand in enumerate(hands):
        one = best_discard_one(kmask(hand), forbids[k], tab)
        assert (cards[k], deadwood[k]) == one, f"batch != one for [{show(hand)}]"


def _check_least_removals(hands: list[tuple[int, ...]], ace: str) -> None:
    """``least_removals`` and ``discard_deadwoods`` against the oracle solving the hand
    without each card: the deadwood each discard leaves, the least of them and every
    card that leaves it."""
    rules = ref_rules(ace)
    tab = tables_for_ref(rules)
    for hand in hands:
        left = {c: R.min_deadwood_ref([x for x in hand if x != c], rules) for c in hand}
        out = np.full(64, -7, np.int64)
        least_of_all = discard_deadwoods(kmask(hand), tab, out)
        got = {c: int(out[c]) for c in hand}
        assert got == left, f"discard deadwoods of [{show(hand)}] ({ace}): {got}, want {left}"
        assert least_of_all == min(left.values()), f"[{show(hand)}] ({ace})"
        assert (out[[c for c in range(64) if c not in hand]] == -7).all(), "wrote past the hand"
        least = min(left.values())
        tied = sum(1 << c for c in hand if left[c] == least)
        least_got, tied_got = least_removals(kmask(hand), tab)
        assert (int(least_got), int(tied_got)) == (least, tied), (
            f"least removals of [{show(hand)}] ({ace}): got {least_got} by "
            f"[{show([c for c in hand if (int(tied_got) >> c) & 1])}], want {least} by "
            f"[{show([c for c in hand if (tied >> c) & 1])}]"
        )


# --- seeded random hands -------------------------------------------------------------


@pytest.mark.parametrize("size", SIZES)
@pytest.mark.parametrize("ace", ACE_MODES)
def test_min_deadwood_random_hands(ace: str, size: int) -> None:
    """Uniform random hands of every size, 0, 1 and 2 jokers."""
    hands = []
    for jokers in _jokers_for(size):
        rng = seeded("min-deadwood", ace, size, jokers)
        hands += [random_hand(rng, size, jokers) for _ in range(N_FAST_DEADWOOD[jokers])]
    _check_min_deadwood(hands, ace)


@pytest.mark.parametrize("size", range(3, 14))
@pytest.mark.parametrize("ace", ACE_MODES)
def test_min_deadwood_dense_hands(ace: str, size: int) -> None:
    """Dense hands (3-5 neighbouring ranks, all suits): sets and runs compete for cards."""
    hands = []
    for jokers in _jokers_for(size):
        rng = seeded("dense", ace, size, jokers)
        hands += [dense_hand(rng, size, jokers) for _ in range(N_FAST_DENSE[jokers])]
    _check_min_deadwood(hands, ace)


@pytest.mark.parametrize("ace", ACE_MODES)
def test_min_deadwood_four_of_a_kind(ace: str) -> None:
    """Hands with all four cards of a rank next to its neighbours: the four may be a set
    of four, or a set of three giving its fourth card to a run (or a joker meld)."""
    hands = []
    for size in range(4, 14):
        for jokers in _jokers_for(size - 4):
            rng = seeded("quads", ace, size, jokers)
            hands += [quad_hand(rng, size, jokers) for _ in range(N_FAST_QUADS)]
    _check_min_deadwood(hands, ace)


@pytest.mark.parametrize("size", SIZES)
@pytest.mark.parametrize("ace", ACE_MODES)
def test_best_discard_random_hands(ace: str, size: int, memo_oracle: object) -> None:
    """Best discard of random hands, with and without a forbidden card."""
    hands = []
    for jokers in _jokers_for(size):
        rng = seeded("discard", ace, size, jokers)
        hands += [random_hand(rng, size, jokers) for _ in range(N_FAST_DISCARD[jokers])]
    _check_best_discard(hands, ace)


@pytest.mark.parametrize("size", (8, 11))
@pytest.mark.parametrize("ace", ACE_MODES)
def test_best_discard_dense_hands(ace: str, size: int, memo_oracle: object) -> None:
    """Best discard of dense hands (many ties on deadwood: the tie rule decides)."""
    hands = []
    for jokers in (0, 1, 2):
        rng = seeded("discard-dense", ace, size, jokers)
        hands += [dense_hand(rng, size, jokers) for _ in range(N_FAST_DISCARD_DENSE)]
        hands += [quad_hand(rng, size, jokers) for _ in range(N_FAST_DISCARD_DENSE // 2)]
    _check_best_discard(hands, ace)


@pytest.mark.parametrize(("ace_high_value", "joker_value"), [(11, 25), (1, 0), (20, 10)])
@pytest.mark.parametrize("ace", ("high_or_low", "around"))
def test_other_card_values(ace: str, ace_high_value: int, joker_value: int) -> None:
    """``build_tables`` honours ``ace_high_value`` and ``joker_value`` (not only 15)."""
    rules = ref_rules(ace, ace_high_value=ace_high_value, joker_value=joker_value)
    tab = tables_for_ref(rules)
    for size in (5, 9, 11):
        rng = seeded("values", ace, ace_high_value, joker_value, size)
        for i in range(20):
            hand = (dense_hand if i % 2 else random_hand)(rng, size, i % 3)
            assert_same(
                "min deadwood",
                hand,
                ace,
                min_deadwood_one(kmask(hand), tab),
                R.min_deadwood_ref(hand, rules),
            )
            if i % 5 == 0:
                assert_same(
                    "best discard",
                    hand,
                    ace,
                    best_discard_one(kmask(hand), -1, tab),
                    R.best_discard_ref(hand, rules),
                )


# --- hand-picked edge cases ----------------------------------------------------------


# (hand, ace mode, least deadwood, best discard card or None, deadwood after it)
@pytest.mark.parametrize("ace", ACE_MODES)
def test_every_card_meldable_matches_oracle(ace: str) -> None:
    """``every_card_meldable`` and ``loose_cards`` on natural hands: True exactly when
    every card lies in one of the hand's possible melds (the oracle's list), and the
    count of cards that lie in none, on random and dense hands of 3 to 13 cards."""
    rules = ref_rules(ace)
    tab = tables_for_ref(rules)
    rng = seeded("every card meldable", ace)
    seen = set()
    for i in range(400):
        size = 3 + i % 11
        hand = (dense_hand if i % 2 else random_hand)(rng, size)
        in_melds = set().union(*(set(m) for m in R.melds_in(hand, rules)))
        every = bool(every_card_meldable(kmask(hand), tab))
        assert every == (set(hand) <= in_melds), f"[{show(hand)}] ({ace})"
        assert loose_cards(kmask(hand), tab) == len(set(hand) - in_melds), f"[{show(hand)}]"
        seen.add(every)
    assert seen == {True, False}


EDGE_CASES = [
    # 5C 6C 7C | 7D 7H 7S | KD: the 7C goes to the run, the other three 7s make a set.
    ("5C 6C 7C 7D 7H 7S KD", "low", 10, "KD", 0),
    # 7C 7D 7H 7S | 8S 9S: four of a kind as a set of three plus 7S-8S-9S. Best
    # discard 9S: the set of four stays and 8S is left (8); a 7 leaves 14, 8S leaves 9.
    ("7C 7D 7H 7S 8S 9S", "low", 0, "9S", 8),
    # 6C 7C 8C | 6S 7S 8S | 7D 7H: two runs through the 7s and 7D 7H left (14); the
    # set of four would leave 6C 8C 6S 8S (28). Discarding 8S or 8C (a tie at 6, the
    # higher index wins) frees a 7 for 7D 7H: 6C 7C 8C | 7D 7H 7S | 6S.
    ("6C 7C 8C 6S 7S 8S 7D 7H", "low", 14, "8S", 6),
    # AC AD AH | 2C 3C: ace low, A-2-3 plus two aces (2) beats the set (5); the best
    # discard is an ace (AD and AH tie: the higher index AH goes).
    ("AC AD AH 2C 3C", "low", 2, "AH", 1),
    # Same cards with aces worth 15: the set plus 2C 3C (5) beats A-2-3 plus 30.
    ("AC AD AH 2C 3C", "high_or_low", 5, "3C", 2),
    ("AC AD AH 2C 3C", "around", 5, "3C", 2),
    # AC 2C 3C 4C 5C 6C: a run of six (one meld or two of three: same deadwood 0).
    ("AC 2C 3C 4C 5C 6C", "low", 0, "6C", 0),
    # 5C 6C 7C JK: a joker extends the run (4C or 8C).
    ("5C 6C 7C JK", "low", 0, "JK", 0),
    # 6C 6D 6H 6S JK: the joker joins three sixes as the fourth six, although the hand
    # holds 6S itself (a meld is judged on its own cards): 6S is the deadwood (6), not
    # the joker (15). Discards tie at 0 (JK or 6S): the joker is worth more.
    ("6C 6D 6H 6S JK", "low", 6, "JK", 0),
    # 6C 6D 6H 6S JK JK: two sets of three, one joker each: 6C 6D JK | 6H 6S JK.
    ("6C 6D 6H 6S JK JK", "low", 0, "JK", 6),
    # 5C JK JK: two jokers complete a single natural card (run or set alike).
    ("5C JK JK", "low", 0, "JK", 20),
    # KC JK JK: J-Q-K (or a set of kings).
    ("KC JK JK", "low", 0, "JK", 25),
    # JK JK with no natural card: no meld (RULES.md: at least one natural card).
    ("JK JK", "low", 30, "JK", 15),
    # A single joker, a single card.
    ("JK", "low", 15, "JK", 0),
    ("KS", "low", 10, "KS", 0),
    ("AS", "around", 15, "AS", 0),
    # KC AC 2C: K-A-2 only goes round the corner.
    ("KC AC 2C", "low", 13, "KC", 3),
    ("KC AC 2C", "high_or_low", 27, "AC", 12),
    ("KC AC 2C", "around", 0, "AC", 12),
    # QC KC AC: Q-K-A needs the ace high.
    ("QC KC AC", "low", 21, "KC", 11),
    ("QC KC AC", "high_or_low", 0, "AC", 20),
    ("QC KC AC", "around", 0, "AC", 20),
    # QC KC AD / KC AD 2D: King of clubs (card 12) and Ace of diamonds (card 13) sit
    # next to each other as bits but never make a run.
    ("QC KC AD", "around", 35, "AD", 20),
    ("KC AD 2D", "around", 27, "AD", 12),
    ("KC AD 2D", "low", 13, "KC", 3),
    # 13 cards: AC..KC, the whole suit, is one run: 0 in every mode.
    ("AC 2C 3C 4C 5C 6C 7C 8C 9C TC JC QC KC", "low", 0, "KC", 0),
    ("AC 2C 3C 4C 5C 6C 7C 8C 9C TC JC QC KC", "around", 0, "AC", 0),
    # 13 cards: four sets of three and a lone King.
    ("2C 2D 2H 5C 5D 5H 8C 8D 8H JC JD JH KS", "low", 10, "KS", 0),
]


@pytest.mark.parametrize(("text", "ace", "deadwood", "discard", "after"), EDGE_CASES)
def test_edge_cases(text: str, ace: str, deadwood: int, discard: str, after: int) -> None:
    """Hand-picked hands (drawn in the comments of ``EDGE_CASES``): the kernel, the
    oracle and the value worked out by hand all agree."""
    hand = tuple(parse(text))
    rules = ref_rules(ace)
    tab = tables_for_ref(rules)
    assert R.min_deadwood_ref(hand, rules) == deadwood, "the oracle disagrees with the table"
    assert min_deadwood_one(kmask(hand), tab) == deadwood
    card, left = best_discard_one(kmask(hand), -1, tab)
    assert (card, left) == R.best_discard_ref(hand, rules)
    assert (card, left) == (parse(discard)[0] if discard != "JK" else max(c for c in hand), after)


def test_empty_and_fully_forbidden_hands() -> None:
    """An empty hand has deadwood 0 and nothing to discard; a 1-card hand whose card is
    forbidden has nothing to discard either: ``(-1, BIG)``."""
    tab = tables_for_ref(ref_rules("low"))
    assert min_deadwood_one(np.int64(0), tab) == 0
    assert R.min_deadwood_ref((), ref_rules("low")) == 0
    assert best_discard_one(np.int64(0), -1, tab) == (-1, BIG)
    assert best_discard_one(kmask([5]), 5, tab) == (-1, BIG)
    assert best_discard_one(kmask([52]), 52, tab) == (-1, BIG)
    assert best_discard_one(kmask([5, 52]), 52, tab) == (5, 15)
    with pytest.raises(ValueError):
        R.best_discard_ref([5], ref_rules("low"), forbidden=5)


# --- best discard by hand class -------------------------------------------------------
#
# The best-discard kernel takes a different path for each kind of natural hand
# (kernels/deadwood.py): no rank held in three suits (every card run-side, four table
# reads); only "easy" set ranks, none of whose cards a run could use (closed form);
# "contested" ranks held in three suits, where a set and a run compete for a card
# (every set choice enumerated once); and among those, a rank held in all four suits.

HAND_CLASSES = ("no set", "easy set", "contested 3", "contested 4")
N_CLASS_HANDS = 20
CLASS_SIZES = (8, 11, 13)


def hand_class(hand: Sequence[int], tab: np.ndarray) -> str | None:
    """Which best-discard path a natural hand takes (None for a hand with jokers)."""
    if any(c >= 52 for c in hand):
        return None
    patterns = [sum(1 << (c % 13) for c in hand if c // 13 == s) for s in range(4)]
    capable = table_views(tab).run_capable
    held = [sum((p >> r) & 1 for p in patterns) for r in range(13)]
    wanted = [any((int(capable[p]) >> r) & 1 for p in patterns) for r in range(13)]
    contested = [r for r in range(13) if held[r] >= 3 and wanted[r]]
    if any(held[r] == 4 for r in contested):
        return "contested 4"
    if contested:
        return "contested 3"
    return "easy set" if max(held) >= 3 else "no set"


def class_hands(kind: str, ace: str, size: int, n: int, tab: np.ndarray) -> list[tuple[int, ...]]:
    """``n`` seeded natural hands of ``size`` cards that take the ``kind`` path."""
    rng = seeded("discard-class", kind, ace, size)
    makers = [random_hand] if kind == "no set" else [random_hand, dense_hand, quad_hand]
    hands: list[tuple[int, ...]] = []
    for i in range(20_000):
        hand = makers[i % len(makers)](rng, size)
        if hand_class(hand, tab) == kind and hand not in hands:
            hands.append(hand)
            if len(hands) == n:
                return hands
    raise AssertionError(f"no {n} {kind!r} hands of {size} cards found")


@pytest.mark.parametrize("size", CLASS_SIZES)
@pytest.mark.parametrize("kind", HAND_CLASSES)
@pytest.mark.parametrize("ace", ACE_MODES)
def test_best_discard_by_hand_class(ace: str, kind: str, size: int, memo_oracle: object) -> None:
    """Each best-discard path against the oracle, with no card forbidden, with the
    oracle's choice forbidden and with another card forbidden (``_check_best_discard``)."""
    tab = tables_for_ref(ref_rules(ace))
    _check_best_discard(class_hands(kind, ace, size, N_CLASS_HANDS, tab), ace)


@pytest.mark.parametrize("kind", HAND_CLASSES)
@pytest.mark.parametrize("ace", ACE_MODES)
def test_least_removals_by_hand_class(ace: str, kind: str, memo_oracle: object) -> None:
    """Every least-deadwood discard at once, on each solver path (8- and 11-card hands),
    and on random and dense hands with jokers (solved once per card)."""
    tab = tables_for_ref(ref_rules(ace))
    hands = class_hands(kind, ace, 8, 6, tab) + class_hands(kind, ace, 11, 6, tab)
    for jokers in (1, 2):
        rng = seeded("least-removals", ace, kind, jokers)
        hands += [random_hand(rng, 8, jokers), dense_hand(rng, 8, jokers)]
    _check_least_removals(hands, ace)


def _check_second_discards(hands: list[tuple[int, ...]], ace: str, oracle: bool) -> None:
    """``second_discard_deadwoods``: for every card c, the least deadwood after c and then
    the best other card go, against the oracle's best discard of the hand less c (or,
    for many hands, against ``best_discard_one``, which the tests above hold to it)."""
    rules = ref_rules(ace)
    tab = tables_for_ref(rules)
    for hand in hands:
        rest = {c: [x for x in hand if x != c] for c in hand}
        if oracle:
            want = {c: R.best_discard_ref(rest[c], rules)[1] if rest[c] else BIG for c in hand}
        else:
            want = {c: int(best_discard_one(kmask(rest[c]), -1, tab)[1]) for c in hand}
        out = np.full(64, -7, np.int64)
        least = second_discard_deadwoods(kmask(hand), tab, out)
        got = {c: int(out[c]) for c in hand}
        assert got == want, f"second discards of [{show(hand)}] ({ace}): {got}, want {want}"
        assert least == min(want.values(), default=BIG), f"[{show(hand)}] ({ace})"
        assert (out[[c for c in range(64) if c not in hand]] == -7).all(), "wrote past the hand"


def _two_quads(rng: random.Random, size: int) -> tuple[int, ...]:
    """Two ranks in all four suits (two sets of 4, each able to lend a card to a run),
    filled from their neighbouring ranks."""
    r1, r2 = rng.sample(range(13), 2)
    quads = {s * 13 + r for s in range(4) for r in (r1, r2)}
    near = [c for c in range(52) if c not in quads and min(abs(c % 13 - r1), abs(c % 13 - r2)) <= 2]
    return tuple(sorted(quads | set(rng.sample(near, min(len(near), size - 8)))))


@pytest.mark.parametrize("kind", HAND_CLASSES)
@pytest.mark.parametrize("ace", ACE_MODES)
def test_second_discard_deadwoods_by_hand_class(ace: str, kind: str, memo_oracle: object) -> None:
    """Against the oracle on each solver path (9- and 12-card hands: a lookahead's hand
    with a card drawn), and on random and dense hands with jokers (solved per card)."""
    tab = tables_for_ref(ref_rules(ace))
    hands = class_hands(kind, ace, 9, 3, tab) + class_hands(kind, ace, 12, 3, tab)
    for jokers in (1, 2):
        rng = seeded("second-discards", ace, kind, jokers)
        hands += [random_hand(rng, 9, jokers), dense_hand(rng, 9, jokers)]
    _check_second_discards(hands, ace, oracle=True)


def _second_discard_hands(ace: str, n: int) -> list[tuple[int, ...]]:
    """``n`` seeded hands of 2 to 13 cards: random, dense, four of a kind, two fours of
    a kind (where a card out of one set of 4 may be followed by one out of the other),
    and with jokers."""
    rng = seeded("second-discards-many", ace, n)
    hands = []
    for i in range(n):
        size = 2 + i % 12
        kind = i % 5
        if kind == 0 or size < 4:
            hands.append(random_hand(rng, size, (0, 0, 1, 2)[i % 4] if size >= 2 else 0))
        elif kind == 1:
            hands.append(dense_hand(rng, size))
        elif kind == 2:
            hands.append(quad_hand(rng, size))
        elif kind == 3 and size >= 9:
            hands.append(_two_quads(rng, size))
        else:
            hands.append(dense_hand(rng, size, 0))
    return hands


@pytest.mark.parametrize("ace", ACE_MODES)
def test_second_discard_deadwoods_many_hands(ace: str) -> None:
    """Against ``best_discard_one`` card by card on 1,600 seeded hands
    (``_second_discard_hands``)."""
    _check_second_discards(_second_discard_hands(ace, 1600), ace, oracle=False)


@pytest.mark.slow
@pytest.mark.parametrize("ace", ACE_MODES)
def test_second_discard_deadwoods_at_scale(ace: str) -> None:
    """The same on 60,000 hands per ace mode."""
    _check_second_discards(_second_discard_hands(ace, 60_000), ace, oracle=False)


def test_second_discard_deadwoods_of_tiny_hands() -> None:
    """Hand-drawn: the best second card after each first."""
    tab = tables_for_ref(ref_rules("low"))
    out = np.zeros(64, np.int64)
    assert second_discard_deadwoods(np.int64(0), tab, out) == BIG
    assert not out.any()
    hand = parse("AC 2C 3C 4C KD")  # the King goes second unless it went first
    second_discard_deadwoods(kmask(hand), tab, out)
    assert [out[c] for c in hand] == [0, 1 + 3 + 4, 1 + 2 + 4, 0, 0]
    hand = parse("5C 5D 5H 5S 9H")  # one five, then the nine (or the nine, then a five)
    second_discard_deadwoods(kmask(hand), tab, out)
    assert [out[c] for c in hand] == [0, 0, 0, 0, 0]


def test_discard_deadwoods_of_tiny_hands() -> None:
    """The hand-drawn cases of ``least_removals`` below, card by card."""
    tab = tables_for_ref(ref_rules("low"))
    out = np.zeros(64, np.int64)
    assert discard_deadwoods(np.int64(0), tab, out) == BIG
    assert not out.any()  # no card, nothing written
    run = parse("AC 2C 3C 4C")  # the ends leave a run; 2C leaves 1 + 3 + 4, 3C 1 + 2 + 4
    discard_deadwoods(kmask(run), tab, out)
    assert [out[c] for c in run] == [0, 8, 7, 0]
    hand = parse("AC AD AH AS 5C 6C 7C")  # an ace leaves three; a club breaks the run
    discard_deadwoods(kmask(hand), tab, out)
    assert [out[c] for c in hand] == [0, 0, 0, 0, 6 + 7, 5 + 7, 5 + 6]


def test_least_removals_of_tiny_hands() -> None:
    tab = tables_for_ref(ref_rules("low"))
    assert least_removals(np.int64(0), tab) == (BIG, 0)
    assert least_removals(kmask([5]), tab) == (0, 1 << 5)
    assert least_removals(kmask([52]), tab) == (0, 1 << 52)
    # A 4-card run: either end leaves the 3-card run, the middle cards break it.
    run = parse("AC 2C 3C 4C")
    assert least_removals(kmask(run), tab) == (0, (1 << run[0]) | (1 << run[3]))
    # Sets no run could use: any of four aces leaves a set of three and the run...
    hand = parse("AC AD AH AS 5C 6C 7C")
    assert least_removals(kmask(hand), tab) == (0, kmask(hand[:4]))
    # ... and any card of a lone set of three leaves two kings.
    hand = parse("KC KD KH")
    assert least_removals(kmask(hand), tab) == (20, kmask(hand))


@pytest.mark.parametrize("kind", HAND_CLASSES)
@pytest.mark.parametrize("ace", ACE_MODES)
def test_best_discard_every_forbidden_card(ace: str, kind: str, memo_oracle: object) -> None:
    """One 11-card hand of each path with each of its cards forbidden in turn: the
    forbidden card may sit in a run, a contested set, an easy set or the deadwood."""
    rules = ref_rules(ace)
    tab = tables_for_ref(rules)
    (hand,) = class_hands(kind, ace, 11, 1, tab)
    for forbidden in hand:
        got = best_discard_one(kmask(hand), forbidden, tab)
        want = R.best_discard_ref(hand, rules, forbidden)
        assert_same(f"best discard (forbidden {show([forbidden])})", hand, ace, got, want)


# (hand, ace mode, forbidden card or "-", best discard, deadwood after it)
DISCARD_EDGE_CASES = [
    # Easy set of 4 (no run can use a King): one King out leaves a set of 3.
    # KC KD KH KS | 2D 3D 4D | 9S: 9S goes (0 left); with 9S forbidden, KS (9 left).
    ("KC KD KH KS 2D 3D 4D 9S", "low", "-", "9S", 0),
    ("KC KD KH KS 2D 3D 4D 9S", "low", "9S", "KS", 9),
    # Easy set of 3: a Queen out leaves the other two as deadwood (2 x 10 more).
    # QC QD QH | 2D 3D 4D | 9S with 9S forbidden: 4D leaves 2D 3D + 9S (14), a
    # Queen leaves 9S + 20 (29): 4D goes.
    ("QC QD QH 2D 3D 4D 9S", "low", "9S", "4D", 14),
    # Contested rank held in three suits: the Queens of JD QD KD and JS QS KS make
    # two runs, QH is left alone; discarding QH leaves 0 (the "no set" choice).
    ("JD QD KD QH JS QS KS", "low", "-", "QH", 0),
    # 8C 8D 8S set or 8D 9D TD + 7S 8S 9S runs; with 7S forbidden, 8C goes and
    # leaves both runs (0).
    ("8C 8D 9D TD 7S 8S 9S", "low", "7S", "8C", 0),
    # Four of a kind, one card wanted by a run: TC JC QC | KC KD KH KS. KS out
    # leaves TC JC QC | KC KD KH (0): a set of 4 less one card.
    ("TC JC QC KC KD KH KS", "low", "-", "KS", 0),
    # 8C 8D 8H 8S | 9S TS JS with JS forbidden: 8S out leaves 8C 8D 8H | 9S TS JS.
    ("8C 8D 8H 8S 9S TS JS", "low", "JS", "8S", 0),
    # Four aces, only AC wanted by a run (AC 2C 3C), and 3S 4S 5S. The whole hand is
    # best as AC 2C 3C | AD AH AS | 3S 4S 5S (0): solving it never tries "no set" at
    # the aces (only one ace is wanted by a run). With 3C forbidden the best discard
    # is an ace no run wants, and without it "no set" is what pays:
    #   AS out:  AC 2C 3C | 3S 4S 5S, AD AH left (2; AD and AH tie, AS is highest)
    #   (the set AC AD AH would leave 2C 3C: 5)
    ("AC 2C 3C AD AH AS 3S 4S 5S", "low", "3C", "AS", 2),
    # The same round the corner: only 2C is wanted by a run (KC AC 2C). With 3S
    # forbidden:
    #   2S out:  KC AC 2C, 2D 2H 3S left (7)
    #   (the set 2C 2D 2H would leave KC AC 3S: 10 + 15 + 3 = 28)
    ("AC 2C KC 2D 2H 2S 3S", "around", "3S", "2S", 7),
]


@pytest.mark.parametrize(("text", "ace", "forbidden", "discard", "after"), DISCARD_EDGE_CASES)
def test_discard_edge_cases(text: str, ace: str, forbidden: str, discard: str, after: int) -> None:
    """Hand-picked best discards (drawn in the comments of ``DISCARD_EDGE_CASES``), one
    per best-discard path: kernel, oracle and the value worked out by hand agree."""
    hand = tuple(parse(text))
    rules = ref_rules(ace)
    tab = tables_for_ref(rules)
    banned = parse(forbidden)[0] if forbidden != "-" else -1
    want = (parse(discard)[0], after)
    assert R.best_discard_ref(hand, rules, banned if banned >= 0 else None) == want
    assert best_discard_one(kmask(hand), banned, tab) == want


@pytest.mark.parametrize("ace", ACE_MODES)
def test_suit_tables(ace: str) -> None:
    """The best-discard block repeats the run tables, and its best removal of every
    suit pattern is the best single card by (deadwood change, -value, -rank)."""
    rules = ref_rules(ace)
    tab = tables_for_ref(rules)
    views = table_views(tab)
    facts = tab[SUIT_FACTS : SUIT_FACTS + SUIT_STRIDE * N_PATTERNS].reshape(N_PATTERNS, SUIT_STRIDE)
    assert np.array_equal(facts[:, FACT_DEADWOOD], views.run_deadwood)
    assert np.array_equal(facts[:, FACT_CAPABLE], views.run_capable)
    run = views.run_deadwood.astype(np.int64)
    values = [R.card_value(r, rules) for r in range(13)]
    assert views.best_removal[0] == NO_REMOVAL
    for p in range(1, N_PATTERNS):
        best = min(
            ((int(run[p ^ (1 << r)]) - int(run[p]) + KEY_OFFSET) << 16)
            | ((255 - values[r]) << 8)
            | (63 - r)
            for r in range(13)
            if (p >> r) & 1
        )
        assert views.best_removal[p] == best, f"pattern {p:013b}"
        after = {r: int(run[p ^ (1 << r)]) for r in range(13) if (p >> r) & 1}
        tied = sum(1 << r for r, d in after.items() if d == min(after.values()))
        assert views.best_removals[p] == tied, f"pattern {p:013b}"
    assert views.best_removals[0] == 0


@pytest.mark.parametrize("first", (3, 8, 9, 13))
def test_min_deadwood_batch_of_mixed_sizes(first: int) -> None:
    """``min_deadwood_batch`` picks one of two equally exact paths from its first hand's
    size; a batch of every size (jokers too) gives the scalar kernel's answers either way."""
    rng = seeded("mixed-batch", first)
    hands = [random_hand(rng, first)] + [
        random_hand(rng, size, jokers)
        for size in SIZES
        for jokers in _jokers_for(size)
        for _ in range(20)
    ]
    hands += [dense_hand(rng, size) for size in range(3, 14) for _ in range(20)]
    for ace in ACE_MODES:
        tab = tables_for_ref(ref_rules(ace))
        masks = np.array([mask_of(h) for h in hands], np.uint64)
        out = np.empty(len(hands), np.int64)
        assert min_deadwood_batch(masks, tab, True, out) == 0
        assert list(out) == [min_deadwood_one(kmask(h), tab) for h in hands]


# --- hypothesis ----------------------------------------------------------------------

natural_hands = st.sets(st.integers(0, 51), min_size=1, max_size=11)
joker_hands = st.builds(
    lambda nat, jok: tuple(sorted(nat | jok)),
    st.sets(st.integers(0, 51), min_size=0, max_size=10),
    st.sets(st.sampled_from((52, 53)), min_size=1, max_size=2),
)
aces = st.sampled_from(ACE_MODES)
fast = settings(deadline=None, max_examples=120, derandomize=True)


@fast
@given(hand=natural_hands, ace=aces)
def test_hypothesis_min_deadwood_natural(hand: set[int], ace: str) -> None:
    rules = ref_rules(ace)
    got = min_deadwood_one(kmask(hand), tables_for_ref(rules))
    assert_same("min deadwood", sorted(hand), ace, got, R.min_deadwood_ref(hand, rules))


@fast
@given(hand=joker_hands, ace=aces)
def test_hypothesis_min_deadwood_jokers(hand: tuple[int, ...], ace: str) -> None:
    """Jokers 52 and 53 in any combination (53 alone included)."""
    rules = ref_rules(ace)
    got = min_deadwood_one(kmask(hand), tables_for_ref(rules))
    assert_same("min deadwood", hand, ace, got, R.min_deadwood_ref(hand, rules))


@settings(deadline=None, max_examples=60, derandomize=True)
@given(hand=st.one_of(natural_hands.map(sorted), joker_hands), ace=aces)
def test_hypothesis_best_discard(hand: list[int], ace: str) -> None:
    rules = ref_rules(ace)
    got = best_discard_one(kmask(hand), -1, tables_for_ref(rules))
    assert_same("best discard", hand, ace, got, R.best_discard_ref(hand, rules))


@settings(deadline=None, max_examples=300, derandomize=True)
@given(
    hand=st.sets(st.integers(0, 53), min_size=1, max_size=13),
    ace=aces,
    forbid_index=st.integers(-1, 12),
)
def test_best_discard_is_the_best_single_removal(
    hand: set[int], ace: str, forbid_index: int
) -> None:
    """Kernel against itself: the best discard leaves min over single removals of the
    kernel's own min deadwood, and ties go to the highest value, then highest index."""
    cards = sorted(hand)
    forbidden = cards[forbid_index] if 0 <= forbid_index < len(cards) else -1
    rules = ref_rules(ace)
    tab = tables_for_ref(rules)
    m = kmask(cards)
    scored = [
        (min_deadwood_one(m ^ (np.int64(1) << c), tab), -R.card_value(c, rules), -c, c)
        for c in cards
        if c != forbidden
    ]
    card, left = best_discard_one(m, forbidden, tab)
    if not scored:
        assert (card, left) == (-1, BIG)
        return
    d, _, _, c = min(scored)
    assert (card, left) == (c, d)


@settings(deadline=None, max_examples=300, derandomize=True)
@given(
    hand=st.sets(st.integers(0, 51), min_size=0, max_size=12),
    extra=st.integers(0, 51),
    ace=aces,
    perm=st.permutations(range(4)),
)
def test_deadwood_properties(hand: set[int], extra: int, ace: str, perm: list[int]) -> None:
    """True properties of least deadwood, checked on the kernel alone.

    - 0 <= deadwood <= the hand's total value.
    - Adding a card costs at most its value: d(H + c) <= d(H) + value(c).
    - Adding a joker costs at most joker_value, and jokers 52 and 53 are interchangeable.
    - A joker is at least as good as any missing natural card c, less the value gap:
      d(H + JK) <= d(H + c) + max(0, joker_value - value(c)) (the joker can stand for c).
    - Renaming the suits changes nothing.
    - Around-the-corner runs are a superset of high_or_low runs at the same values:
      d_around(H) <= d_high_or_low(H).
    """
    rules = ref_rules(ace)
    tab = tables_for_ref(rules)
    value = [R.card_value(c, rules) for c in range(54)]
    m = kmask(hand)
    d = min_deadwood_one(m, tab)
    assert 0 <= d <= sum(value[c] for c in hand)
    if extra not in hand and len(hand) < 12:
        with_c = min_deadwood_one(m | (np.int64(1) << extra), tab)
        assert with_c <= d + value[extra]
        with_j = min_deadwood_one(m | (np.int64(1) << 52), tab)
        assert with_j == min_deadwood_one(m | (np.int64(1) << 53), tab)
        assert with_j <= d + value[52]
        assert with_j <= with_c + max(0, value[52] - value[extra])
    renamed = [perm[c // 13] * 13 + c % 13 for c in hand]
    assert min_deadwood_one(kmask(renamed), tab) == d
    if ace == "high_or_low":
        around = tables_for_ref(ref_rules("around"))
        assert min_deadwood_one(m, around) <= d


# --- the full count, by hand ---------------------------------------------------------

SLOW_CASES = [("random", size) for size in (6, 7, 8, 10, 11)] + [
    ("dense", size) for size in (8, 10, 11)
]


@pytest.fixture(scope="module")
def oracle_pool():
    """A ``spawn`` process pool for the oracle (pure Python; no numba in the workers)."""
    with ProcessPoolExecutor(max_workers=SLOW_WORKERS, mp_context=get_context("spawn")) as pool:
        yield pool


@pytest.mark.slow
@pytest.mark.parametrize("ace", ACE_MODES)
@pytest.mark.parametrize(("kind", "size"), SLOW_CASES)
def test_kernels_match_oracle_at_scale(kind: str, size: int, ace: str, oracle_pool) -> None:
    """``N_SLOW`` (default 100,000) seeded hands per (kind, size, ace mode): hand ``i``
    holds ``i % 3`` jokers. Least deadwood and the canonical arrangement are compared
    on every hand; the best discard, and the best with that card forbidden, on every
    ``SLOW_DISCARD_EVERY``-th (default 10th).

    Run by hand: ``pytest -m slow tests/kernels/test_deadwood.py``. The oracle costs
    about 0.5 ms per random hand (0.8 ms round the corner) and 1-3 ms per dense one,
    plus size x 0.5 ms for each best discard: 2.4 million hands, about 47 CPU-minutes
    in all, so some 27 minutes on 2 cores or 4 on 16 (``RUMMY_SLOW_WORKERS``, default
    all cores). Measured: ``RUMMY_SLOW_HANDS=20000`` took 5.5 minutes on 2 cores;
    ``RUMMY_SLOW_HANDS=2000`` (30 s) checks the machinery.
    """
    rules = ref_rules(ace)
    tab = tables_for_ref(rules)
    jobs = [
        (kind, size, ace, start, min(SLOW_CHUNK, N_SLOW - start), SLOW_DISCARD_EVERY)
        for start in range(0, N_SLOW, SLOW_CHUNK)
    ]
    out = np.empty(MAX_MELDS_PER_ARRANGEMENT, np.int64)
    mismatches: list[str] = []
    checked = discards = 0
    t0 = time.perf_counter()
    for future in as_completed([oracle_pool.submit(oracle_chunk, job) for job in jobs]):
        results = future.result()
        masks = np.array([mask_of(h) for h, _, _, _ in results], np.uint64)
        batch = np.empty(len(results), np.int64)
        assert min_deadwood_batch(masks, tab, True, batch) == 0
        for (hand, deadwood, melds, discard), got in zip(results, batch, strict=True):
            checked += 1
            m = kmask(hand)
            n, arr_deadwood = canonical_arrangement(m, tab, out)
            if got != deadwood or arr_deadwood != deadwood or melds_of(out, n) != melds:
                mismatches.append(
                    f"[{show(hand)}]: deadwood kernel {got}/{arr_deadwood} oracle {deadwood}; "
                    f"melds kernel {melds_of(out, n)} oracle {melds}"
                )
            if discard is not None:
                discards += 1
                card, left, forbidden, card2, left2 = discard
                kernel_discard = best_discard_one(m, -1, tab)
                if kernel_discard != (card, left):
                    mismatches.append(
                        f"[{show(hand)}]: best discard kernel {kernel_discard} "
                        f"oracle {(card, left)}"
                    )
                if len(hand) > 1:
                    kernel_second = best_discard_one(m, forbidden, tab)
                    if kernel_second != (card2, left2):
                        mismatches.append(
                            f"[{show(hand)}] forbidden {show([forbidden])}: best discard "
                            f"kernel {kernel_second} oracle {(card2, left2)}"
                        )
    elapsed = time.perf_counter() - t0
    print(f"{kind} size {size} ace {ace}: {checked} hands, {discards} discards, {elapsed:.0f}s")
    assert checked == N_SLOW
    assert not mismatches, f"{len(mismatches)} mismatches (ace={ace}):\n" + "\n".join(
        mismatches[:10]
    )


def test_slow_stream_is_deterministic_and_chunk_free() -> None:
    """The slow test's hands depend only on their number, not on the chunking."""
    whole = slow_hands("random", 7, "low", 0, 6)
    parts = slow_hands("random", 7, "low", 0, 3) + slow_hands("random", 7, "low", 3, 3)
    assert whole == parts
    assert [sum(c >= 52 for c in h) for h in whole] == [0, 1, 2, 0, 1, 2]
    assert all(len(h) == 7 for h in whole)
    results = oracle_chunk(("dense", 6, "around", 0, 3, 2))
    assert [r[3] is not None for r in results] == [True, False, True]
    hand, _, _, (card, left, forbidden, card2, left2) = results[0]
    rules = ref_rules("around")
    assert (card, left) == R.best_discard_ref(hand, rules)
    assert (card2, left2) == R.best_discard_ref(hand, rules, forbidden=forbidden)
    assert R.min_deadwood_ref is not None and R.min_deadwood_ref.__module__ == R.__name__
