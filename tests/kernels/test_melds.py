"""The numba meld, arrangement and lay-off kernels agree with the pure-Python oracle.

Compared with ``tests/reference/deadwood_ref.py`` (RULES.md "Melds and deadwood",
"Showdown"):

- ``canonical_arrangement``: the canonical-first least-deadwood arrangement, meld for
  meld, on random, dense and four-of-a-kind hands (0-2 jokers, every ace mode);
- ``hand_melds``: the list of every meld in the hand, in canonical order, equal to
  ``melds_in``;
- ``layoff_optimal``: the same deadwood as ``layoff_optimal_ref`` and a legal laid set
  (one ``reachable_layoffs`` knows, whose removal leaves exactly that deadwood; the
  kernel may break ties between laid sets differently);
- ``layoff_greedy``: deadwood and laid cards exactly (greedy is deterministic);
- ``layoff_fits``: card by card against the oracle;
- ``could_lay_off``: True whenever some defender card fits some meld of the knocker's
  hand (any arrangement), as the oracle's ``melds_in`` and ``layoff_fits`` find, and
  under ``ace = low`` only then;
- ``knocker_arrangement``: the knocker's melds exactly, with and without lay-offs,
  optimal and greedy, one to three defenders.

Plus facts that pin the meld model (counts of melds per suit and rank, no K-A-2 under
``low``, the King of clubs and Ace of diamonds never in one run) and hand-drawn cases.
"""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from kernels.melds import (
    MAX_MELDS,
    MAX_MELDS_PER_ARRANGEMENT,
    canonical_arrangement,
    could_lay_off,
    hand_melds,
    knocker_arrangement,
    layoff_fits,
    layoff_greedy,
    layoff_optimal,
    may_lay_off,
    meld_less,
    meld_partners,
    melds_with,
    sole_arrangement,
)
from tests.conftest import (
    ACE_MODES,
    assert_same,
    cards_of,
    dense_hand,
    kmask,
    knocker_deal,
    layoff_deal,
    mask_of,
    melds_of,
    quad_hand,
    random_hand,
    random_meld,
    ref_rules,
    seeded,
    show,
    show_melds,
    tables_for_ref,
)
from tests.reference import deadwood_ref as R
from tests.reference.cardtext import parse, t

N_FAST_ARRANGEMENT = {0: 30, 1: 10, 2: 10}  # per (ace mode, size), by jokers
N_FAST_ARRANGEMENT_DENSE = {0: 6, 1: 3, 2: 3}
N_FAST_MELDS = {0: 15, 1: 6, 2: 6}
N_FAST_LAYOFF = 100  # per ace mode
N_FAST_KNOCKER = 20  # per (ace mode, layoff_play)
N_SLOW_LAYOFF = 5000  # pytest -m slow: 12-20 s per ace mode
N_SLOW_KNOCKER = 1000  # pytest -m slow: 6-27 s per (ace mode, layoff_play)
SIZES = tuple(range(1, 14))


def _arrangement(hand, tab) -> tuple[list[tuple[int, ...]], int]:
    out = np.empty(MAX_MELDS_PER_ARRANGEMENT, np.int64)
    n, deadwood = canonical_arrangement(kmask(hand), tab, out)
    return melds_of(out, n), int(deadwood)


def _hand_melds(hand, tab) -> list[tuple[int, ...]]:
    out = np.empty(MAX_MELDS, np.int64)
    n = hand_melds(kmask(hand), tab, out)
    return melds_of(out, n)


def _check_arrangements(hands, ace: str) -> None:
    rules = ref_rules(ace)
    tab = tables_for_ref(rules)
    for hand in hands:
        melds, _, deadwood = R.canonical_arrangement_ref(hand, rules)
        got_melds, got_deadwood = _arrangement(hand, tab)
        assert_same(
            "canonical arrangement", hand, ace, (got_melds, got_deadwood), (melds, deadwood)
        )


def _jokers_for(size: int) -> tuple[int, ...]:
    return tuple(j for j in (0, 1, 2) if j <= size)


# --- canonical arrangement -----------------------------------------------------------


@pytest.mark.parametrize("size", SIZES)
@pytest.mark.parametrize("ace", ACE_MODES)
def test_canonical_arrangement_random_hands(ace: str, size: int) -> None:
    hands = []
    for jokers in _jokers_for(size):
        rng = seeded("arrangement", ace, size, jokers)
        hands += [random_hand(rng, size, jokers) for _ in range(N_FAST_ARRANGEMENT[jokers])]
    _check_arrangements(hands, ace)


@pytest.mark.parametrize("size", (4, 7, 10, 11, 13))
def test_sole_arrangement_is_the_only_least_one(size: int) -> None:
    """Where the shortcut answers (natural hands, ace low, no set rank a run could use,
    no block of six), the exhaustive oracle finds exactly that one least-deadwood
    arrangement; with jokers or another ace mode it never answers."""
    rules = ref_rules("low")
    tab = tables_for_ref(rules)
    rng = seeded("sole", size)
    hands = [random_hand(rng, size, 0) for _ in range(25)]
    hands += [dense_hand(rng, size, 0) for _ in range(15)]
    answered = 0
    for hand in hands:
        out = np.empty(MAX_MELDS_PER_ARRANGEMENT, np.int64)
        n = sole_arrangement(kmask(hand), tab, out)
        if n < 0:
            continue
        answered += 1
        _, least = R.min_deadwood_arrangements(hand, rules)
        assert len(least) == 1, f"[{show(hand)}]: {len(least)} least arrangements"
        assert_same("sole arrangement", hand, "low", melds_of(out, n), list(least[0]))
    assert answered >= 10
    out = np.empty(MAX_MELDS_PER_ARRANGEMENT, np.int64)
    assert sole_arrangement(kmask(parse("AC 2C 3C JK")), tab, out) == -1
    for ace in ("high_or_low", "around"):
        assert sole_arrangement(kmask(parse("AC 2C 3C")), tables_for_ref(ref_rules(ace)), out) == -1


def test_sole_arrangement_cases() -> None:
    tab = tables_for_ref(ref_rules("low"))
    out = np.empty(MAX_MELDS_PER_ARRANGEMENT, np.int64)
    cases = {
        "AC 2C 3C 4C 5C": ["AC 2C 3C 4C 5C"],  # a block of five: one run
        "AC 2C 3C 4C 5C 6C": None,  # six: one run or two
        "KC AD 2D 3D": ["AD 2D 3D"],  # a block never crosses suits
        "9C TC JC QC KC AD": ["9C TC JC QC KC"],
        "7C 7D 7H 2S 3S 4S 9S": ["7C 7D 7H", "2S 3S 4S"],  # by lowest card
        "5C 5D 5H 5S 9H": ["5C 5D 5H 5S"],
        "5C 5D 5H 6H 7H": None,  # 5H: the set or the run
    }
    for text, want in cases.items():
        n = sole_arrangement(kmask(parse(text)), tab, out)
        if want is None:
            assert n == -1, text
        else:
            assert melds_of(out, n) == [tuple(sorted(parse(m))) for m in want], text


@pytest.mark.parametrize("size", range(3, 14))
@pytest.mark.parametrize("ace", ACE_MODES)
def test_canonical_arrangement_dense_hands(ace: str, size: int) -> None:
    """Dense and four-of-a-kind hands: many least-deadwood arrangements tie, so the
    canonical order decides."""
    hands = []
    for jokers in _jokers_for(size):
        rng = seeded("arrangement-dense", ace, size, jokers)
        hands += [dense_hand(rng, size, jokers) for _ in range(N_FAST_ARRANGEMENT_DENSE[jokers])]
        if size - jokers >= 4:
            hands += [quad_hand(rng, size, jokers) for _ in range(2)]
    _check_arrangements(hands, ace)


# (hand, ace mode, canonical melds as text, deadwood)
ARRANGEMENT_CASES = [
    # AC 2C 3C 4C 5C 6C: the run of six is laid as two runs of three, since
    # [(AC 2C 3C), (4C 5C 6C)] < [(AC 2C 3C 4C 5C 6C)] (tuple prefix comes first).
    ("AC 2C 3C 4C 5C 6C", "low", ["AC 2C 3C", "4C 5C 6C"], 0),
    # AC .. 7C: a run of seven: (AC 2C 3C) then (4C .. 7C) is the first split.
    ("AC 2C 3C 4C 5C 6C 7C", "low", ["AC 2C 3C", "4C 5C 6C 7C"], 0),
    # 5C 6C 7C | 7D 7H 7S | KD: set versus run for the 7C; the run takes it.
    ("5C 6C 7C 7D 7H 7S KD", "low", ["5C 6C 7C", "7D 7H 7S"], 10),
    # 7C 7D 7H 7S | 8S 9S: four of a kind split as 7C 7D 7H plus 7S 8S 9S.
    ("7C 7D 7H 7S 8S 9S", "low", ["7C 7D 7H", "7S 8S 9S"], 0),
    # 7C 7D 7H 7S alone: the set of four, not a set of three and a loose 7.
    ("7C 7D 7H 7S", "low", ["7C 7D 7H 7S"], 0),
    # AC AD AH | 2C 3C under low: A-2-3 wins (deadwood AD AH = 2).
    ("AC AD AH 2C 3C", "low", ["AC 2C 3C"], 2),
    # ... and with aces worth 15 the set of aces wins (deadwood 2C 3C = 5).
    ("AC AD AH 2C 3C", "high_or_low", ["AC AD AH"], 5),
    # 6C 6D 6H 6S JK: 6C 6D 6H JK, the joker standing for the held 6S (deadwood 6).
    ("6C 6D 6H 6S JK", "low", ["6C 6D 6H JK"], 6),
    # 6C 6D 6H 6S JK JK: deadwood 0 in many ways (6C 6D JK | 6H 6S JK, ...); the
    # canonical first is 6C 6D 6H | 6S JK JK, since (6C 6D 6H) < (6C 6D JK).
    ("6C 6D 6H 6S JK JK", "low", ["6C 6D 6H", "6S JK JK"], 0),
    # 5C JK JK: one meld, listed once.
    ("5C JK JK", "low", ["5C JK JK"], 0),
    # JK JK: no natural card, no meld.
    ("JK JK", "low", [], 30),
    # QC KC AC: Q-K-A under high_or_low; none under low.
    ("QC KC AC", "high_or_low", ["AC QC KC"], 0),
    ("QC KC AC", "low", [], 21),
    # KC AC 2C: only round the corner.
    ("KC AC 2C", "around", ["AC 2C KC"], 0),
    # A 13-card hand: the whole suit of hearts is one meld in every mode.
    (
        "AH 2H 3H 4H 5H 6H 7H 8H 9H TH JH QH KH",
        "around",
        ["AH 2H 3H", "4H 5H 6H", "7H 8H 9H", "TH JH QH KH"],
        0,
    ),
    ("", "low", [], 0),
]


@pytest.mark.parametrize(("text", "ace", "melds", "deadwood"), ARRANGEMENT_CASES)
def test_arrangement_edge_cases(text: str, ace: str, melds: list[str], deadwood: int) -> None:
    """Hand-drawn arrangements: kernel, oracle and the worked answer all agree."""
    hand = tuple(parse(text))
    rules = ref_rules(ace)
    want = ([t(m) for m in melds], deadwood)
    ref_melds, _, ref_deadwood = R.canonical_arrangement_ref(hand, rules)
    assert (ref_melds, ref_deadwood) == want, "the oracle disagrees with the worked answer"
    assert _arrangement(hand, tables_for_ref(rules)) == want


@settings(deadline=None, max_examples=150, derandomize=True)
@given(
    hand=st.sets(st.integers(0, 53), min_size=0, max_size=13),
    ace=st.sampled_from(ACE_MODES),
)
def test_arrangement_is_consistent(hand: set[int], ace: str) -> None:
    """Kernel alone: the melds are disjoint melds of the hand (by the oracle's
    ``is_meld``), in canonical order, and leave exactly the least deadwood."""
    rules = ref_rules(ace)
    tab = tables_for_ref(rules)
    melds, deadwood = _arrangement(sorted(hand), tab)
    used: set[int] = set()
    for meld in melds:
        assert R.is_meld(meld, rules), f"not a meld: {show(meld)}"
        assert set(meld) <= hand and not used & set(meld)
        used |= set(meld)
    assert melds == sorted(melds)
    assert deadwood == R.hand_value(hand - used, rules)


# --- hand_melds ----------------------------------------------------------------------


@pytest.mark.parametrize("ace", ACE_MODES)
def test_hand_melds_natural_hands(ace: str) -> None:
    """Without jokers the kernel's meld list is the oracle's ``melds_in`` exactly."""
    rules = ref_rules(ace)
    tab = tables_for_ref(rules)
    for size in SIZES:
        rng = seeded("hand-melds", ace, size)
        hands = [random_hand(rng, size) for _ in range(N_FAST_MELDS[0])]
        hands += [dense_hand(rng, size) for _ in range(N_FAST_MELDS[0]) if size >= 3]
        hands += [quad_hand(rng, size) for _ in range(3) if size >= 4]
        for hand in hands:
            assert_same("hand_melds", hand, ace, _hand_melds(hand, tab), R.melds_in(hand, rules))


@pytest.mark.parametrize("ace", ACE_MODES)
def test_hand_melds_joker_hands_same_melds(ace: str) -> None:
    """With jokers the kernel finds exactly the oracle's melds, in canonical order
    (compared as a set here; whether each is listed once is the next test)."""
    rules = ref_rules(ace)
    tab = tables_for_ref(rules)
    for size in SIZES:
        for jokers in _jokers_for(size)[1:]:
            rng = seeded("hand-melds-jokers", ace, size, jokers)
            hands = [random_hand(rng, size, jokers) for _ in range(N_FAST_MELDS[jokers])]
            hands += [dense_hand(rng, size, jokers) for _ in range(N_FAST_MELDS[jokers])]
            for hand in hands:
                got = _hand_melds(hand, tab)
                assert got == sorted(got), f"not in canonical order: [{show(hand)}]"
                assert_same(
                    "hand_melds (as a set)", hand, ace, sorted(set(got)), R.melds_in(hand, rules)
                )


def test_hand_melds_lists_each_joker_meld_once() -> None:
    """``hand_melds`` lists every meld once, as ``melds_in`` does (deadwood_ref:
    "5C 6C JK is one meld (deduplicated)"; "5C JK JK ... is listed once").

    5C 6C JK: one meld, whether the joker is 4C or 7C (windows 4-5-6 and 5-6-7).
    5C JK JK: one meld, whether a set or one of the runs 3-4-5, 4-5-6, 5-6-7.
    """
    failures = []
    for ace in ACE_MODES:
        rules = ref_rules(ace)
        tab = tables_for_ref(rules)
        for text in ("5C 6C JK", "5C JK JK", "5C 6C 7C JK", "KC JK JK"):
            hand = tuple(parse(text))
            got, want = _hand_melds(hand, tab), R.melds_in(hand, rules)
            if got != want:
                failures.append(
                    f"[{text}] ace={ace}: kernel {show_melds(got)}; oracle {show_melds(want)}"
                )
    assert not failures, "hand_melds lists a meld more than once:\n" + "\n".join(failures)


SUIT_MELDS = {"low": 66, "high_or_low": 76, "around": 131}
NATURAL_MELDS_3_TO_5 = {"low": 185, "high_or_low": 197, "around": 221}


@pytest.mark.parametrize("ace", ACE_MODES)
def test_meld_counts(ace: str) -> None:
    """Counts that pin the meld model, from ``hand_melds`` of whole suits and ranks.

    - A whole suit (13 cards) holds sum over lengths 3..13 of the run windows:
      low 11+10+...+1 = 66; high_or_low one more window per length below 13 = 76;
      around 13 per length 3..12 plus the whole circle = 131.
    - Four cards of a rank hold 4 sets of three and 1 set of four.
    - Melds of 3 to 5 cards in the 52-card deck: 185 under low (OpenSpiel's count:
      65 sets + 4 x 30 runs), 197 with the ace high too, 221 round the corner.
    - The deck's distinct melds are those of its suits and ranks, as the oracle's
      ``melds_in`` of all 52 cards lists them.
    """
    rules = ref_rules(ace)
    tab = tables_for_ref(rules)
    deck: set[tuple[int, ...]] = set()
    for suit in range(4):
        melds = _hand_melds(range(13 * suit, 13 * suit + 13), tab)
        assert len(melds) == SUIT_MELDS[ace] == len(set(melds))
        deck |= set(melds)
    for rank in range(13):
        melds = _hand_melds([s * 13 + rank for s in range(4)], tab)
        assert len(melds) == 5
        deck |= set(melds)
    assert len(deck) == 4 * SUIT_MELDS[ace] + 65
    assert sum(3 <= len(m) <= 5 for m in deck) == NATURAL_MELDS_3_TO_5[ace]
    assert sorted(deck) == R.melds_in(range(52), rules)


@pytest.mark.parametrize(
    ("text", "low", "high_or_low", "around"),
    [
        # K-A-2 of clubs (cards 12, 0, 1): a run only round the corner.
        ("KC AC 2C", 13, 27, 0),
        # Q-K-A of clubs: a run with the ace high (high_or_low, around).
        ("QC KC AC", 21, 0, 0),
        # A-2-3: a run in every mode.
        ("AC 2C 3C", 0, 0, 0),
        # K of clubs is card 12 and A of diamonds card 13: adjacent bits, no run.
        ("QC KC AD", 21, 35, 35),
        ("KC AD 2D", 13, 27, 27),
        ("QC KC AD 2D", 23, 37, 37),
        # OpenSpiel's trap: JS QS KS AC (cards 49, 50, 51, 0) is J-Q-K plus a loose ace.
        ("JS QS KS AC", 1, 15, 15),
        # K-A-2-3 round the corner; under high_or_low the ace cannot be at both ends.
        ("KC AC 2C 3C", 10, 10, 0),
        ("QC KC AC 2C 3C", 20, 5, 0),
    ],
)
def test_run_shapes_by_ace_mode(text: str, low: int, high_or_low: int, around: int) -> None:
    """Which runs exist in each ace mode (deadwood, kernel and oracle alike)."""
    hand = tuple(parse(text))
    for ace, want in (("low", low), ("high_or_low", high_or_low), ("around", around)):
        rules = ref_rules(ace)
        assert R.min_deadwood_ref(hand, rules) == want, ace
        assert _arrangement(hand, tables_for_ref(rules))[1] == want, ace


# --- lay-offs ------------------------------------------------------------------------


@pytest.mark.parametrize("ace", ACE_MODES)
def test_layoff_fits_matches_oracle(ace: str) -> None:
    """Every card not in the meld, against random natural melds (runs up to 6, sets of
    3 and 4) plus long runs and the whole-suit-but-one."""
    rules = ref_rules(ace)
    tab = tables_for_ref(rules)
    rng = seeded("fits", ace)
    melds = [random_meld(rng, ace, set(range(52))) for _ in range(60)]
    melds += [tuple(range(1, 13)), tuple(range(0, 12)), tuple(range(13, 26)), t("JC QC KC")]
    melds += [t("2H 3H 4H 5H 6H 7H 8H 9H TH JH QH KH")]
    for meld in melds:
        assert meld is not None
        for card in range(52):
            if card in meld:
                continue
            got = bool(layoff_fits(card, kmask(meld), tab))
            assert got == R.layoff_fits(card, meld, rules), (
                f"layoff_fits({show([card])}, [{show(meld)}]) ace={ace}: kernel {got}"
            )


@pytest.mark.parametrize(
    ("card", "meld", "ace", "fits"),
    [
        ("KC", "AC 2C 3C", "around", True),
        ("KC", "AC 2C 3C", "high_or_low", False),
        ("KC", "AC 2C 3C", "low", False),
        ("AC", "JC QC KC", "high_or_low", True),
        ("AC", "JC QC KC", "low", False),
        ("AD", "JC QC KC", "around", False),  # card 13 next to card 12: another suit
        ("4C", "AC 2C 3C", "low", True),
        ("7S", "7C 7D 7H", "low", True),
        ("8S", "7C 7D 7H", "low", False),
        ("AC", "2C 3C 4C 5C 6C 7C 8C 9C TC JC QC KC", "high_or_low", True),
        ("AC", "2C 3C 4C 5C 6C 7C 8C 9C TC JC QC KC", "low", True),
    ],
)
def test_layoff_fits_cases(card: str, meld: str, ace: str, fits: bool) -> None:
    rules = ref_rules(ace)
    c = parse(card)[0]
    assert R.layoff_fits(c, t(meld), rules) == fits
    assert bool(layoff_fits(c, kmask(t(meld)), tables_for_ref(rules))) == fits


def _own(hand, rules) -> int:
    """A defender's least deadwood laying nothing off (``layoff_optimal`` is given it)."""
    return R.min_deadwood_ref(hand, rules)


def _check_layoff(melds, hand, ace: str) -> None:
    """Optimal: same deadwood as the oracle and a legal laid set; greedy: exact."""
    rules = ref_rules(ace)
    tab = tables_for_ref(rules)
    km = np.array([mask_of(m) for m in melds] or [0], np.int64)
    where = f"knocker [{show_melds(melds)}] defender [{show(hand)}] ace={ace}"

    deadwood, laid = layoff_optimal(km, len(melds), kmask(hand), _own(hand, rules), tab)
    ref_deadwood, _, _ = R.layoff_optimal_ref(melds, hand, rules)
    assert deadwood == ref_deadwood, (
        f"optimal deadwood: kernel {deadwood} oracle {ref_deadwood}; {where}"
    )
    laid_cards = frozenset(cards_of(laid))
    assert laid_cards <= set(hand), where
    assert laid_cards in R.reachable_layoffs(melds, hand, rules), (
        f"kernel laid [{show(laid_cards)}], not a legal lay-off; {where}"
    )
    assert R.min_deadwood_ref(set(hand) - laid_cards, rules) == deadwood, where
    # may_lay_off: exactly when some lay-off is legal (then the arrangements are built)
    some = any(laid_set for laid_set in R.reachable_layoffs(melds, hand, rules))
    assert bool(may_lay_off(km, len(melds), kmask(hand), tab)) == some, where

    g_deadwood, g_laid = layoff_greedy(km, len(melds), kmask(hand), tab)
    ref_g_deadwood, ref_g_laid, _ = R.layoff_greedy_ref(melds, hand, rules)
    got = (int(g_deadwood), show(cards_of(g_laid)))
    want = (ref_g_deadwood, show(c for c, _ in ref_g_laid))
    assert got == want, f"greedy (deadwood, laid): kernel {got} oracle {want}; {where}"
    assert deadwood <= g_deadwood, where


@pytest.mark.parametrize("ace", ACE_MODES)
def test_layoffs_random_deals(ace: str) -> None:
    """Knocker melds (1-3 random natural melds) against defender hands of 7 and 10
    cards drawn half near the melds' ranks."""
    for i in range(N_FAST_LAYOFF):
        rng = seeded("layoff", ace, i)
        melds, hand = layoff_deal(rng, ace, hand_size=10 if i % 2 else 7)
        _check_layoff(melds, hand, ace)


# (knocker melds, defender hand, ace, optimal deadwood, greedy deadwood, greedy laid)
LAYOFF_CASES = [
    # Knocker AS 2S 3S 4S. Defender 5C 5D 5H 5S 6S | 2D 4D QD 2H KH:
    # greedy keeps its set of four fives, and 6S cannot reach the spades run without
    # 5S: 2+4+10+2+10 + 6 = 34. Optimal keeps 5C 5D 5H and lays 5S 6S on the run: 28.
    (["AS 2S 3S 4S"], "5C 2D 4D 5D QD 2H 5H KH 5S 6S", "low", 28, 34, ""),
    # A chain: 5H then 6H on 2H 3H 4H leaves only KS (10); greedy does it too.
    (["2H 3H 4H"], "5H 6H KS", "low", 10, 10, "5H 6H"),
    # 5H 6H 7H is the defender's own run: greedy keeps it and lays nothing (10); the
    # optimal defender may lay it off or keep it, 10 either way.
    (["2H 3H 4H"], "5H 6H 7H KS", "low", 10, 10, ""),
    # Both ends of one run, and the fourth card of a set.
    (["5C 6C 7C", "9D 9H 9S"], "4C 8C 9C KD", "low", 10, 10, "4C 8C 9C"),
    # 8C fits the run and the set of eights; greedy lays it on the first meld it fits
    # (the run, listed first) and then 9C follows it: deadwood 0.
    (["5C 6C 7C", "8D 8H 8S"], "8C 9C", "low", 0, 0, "8C 9C"),
    # A set of four takes nothing; round the corner KC goes on AC 2C 3C, then QC on
    # KC AC 2C 3C (greedy scans QC first, finds no home, lays KC, then rescans).
    (["7C 7D 7H 7S", "AC 2C 3C"], "QC KC 9D", "around", 9, 9, "QC KC"),
]


@pytest.mark.parametrize(("melds", "hand", "ace", "optimal", "greedy", "laid"), LAYOFF_CASES)
def test_layoff_cases(melds, hand, ace, optimal, greedy, laid) -> None:
    """Hand-drawn lay-offs (drawn in the comments of ``LAYOFF_CASES``)."""
    melds = [t(m) for m in melds]
    hand = t(hand)
    rules = ref_rules(ace)
    tab = tables_for_ref(rules)
    assert R.layoff_optimal_ref(melds, hand, rules)[0] == optimal
    assert R.layoff_greedy_ref(melds, hand, rules)[0] == greedy
    km = np.array([mask_of(m) for m in melds], np.int64)
    assert layoff_optimal(km, len(melds), kmask(hand), _own(hand, rules), tab)[0] == optimal
    g_deadwood, g_laid = layoff_greedy(km, len(melds), kmask(hand), tab)
    assert (g_deadwood, show(cards_of(g_laid))) == (greedy, show(t(laid)))
    _check_layoff(melds, hand, ace)


def test_layoff_around_the_corner_chain() -> None:
    """Round the corner: KC then QC chain down from AC 2C 3C, leaving 9D (9); no
    home for them in the other modes (10 + 10 + 9)."""
    melds = [t("AC 2C 3C")]
    hand = t("QC KC 9D")
    for ace, want in (("around", 9), ("high_or_low", 29), ("low", 29)):
        rules = ref_rules(ace)
        tab = tables_for_ref(rules)
        assert R.layoff_optimal_ref(melds, hand, rules)[0] == want
        km = np.array([mask_of(m) for m in melds], np.int64)
        assert layoff_optimal(km, 1, kmask(hand), _own(hand, rules), tab)[0] == want
        assert layoff_greedy(km, 1, kmask(hand), tab)[0] == want
        _check_layoff(melds, hand, ace)


def test_no_knocker_melds() -> None:
    """A knocker with no melds: the defender keeps its own least deadwood."""
    rules = ref_rules("low")
    tab = tables_for_ref(rules)
    hand = t("AC 2C 3C 9D KS")
    km = np.zeros(1, np.int64)
    assert layoff_optimal(km, 0, kmask(hand), _own(hand, rules), tab) == (19, 0)
    assert layoff_greedy(km, 0, kmask(hand), tab) == (19, 0)
    assert R.layoff_optimal_ref([], hand, rules)[0] == 19


# --- the knocker's arrangement -------------------------------------------------------


def _check_knocker(knocker, defenders, ace: str, layoff: bool, play: str) -> None:
    rules = ref_rules(ace, layoff=layoff, layoff_play=play)
    tab = tables_for_ref(rules)
    out = np.empty(MAX_MELDS_PER_ARRANGEMENT, np.int64)
    defs = np.array([mask_of(d) for d in defenders], np.int64)
    target = R.min_deadwood_ref(knocker, rules)
    owns = np.array([R.min_deadwood_ref(d, rules) for d in defenders], np.int64)
    n = knocker_arrangement(
        kmask(knocker), target, defs, owns, len(defenders), layoff, play == "greedy", tab, out
    )
    want = R.knocker_arrangement_ref(knocker, defenders, rules)
    where = f"knocker [{show(knocker)}] defenders {[show(d) for d in defenders]} ace={ace} {play}"
    assert melds_of(out, n) == want, (
        f"knocker melds: kernel {show_melds(melds_of(out, n))} oracle {show_melds(want)}; {where}"
    )


@pytest.mark.parametrize("play", ("optimal", "greedy"))
@pytest.mark.parametrize("ace", ACE_MODES)
def test_knocker_arrangement_random_deals(ace: str, play: str) -> None:
    """Dense knocker hands with several least-deadwood arrangements against one to
    three defenders: the one leaving the least lay-off relief, then canonical first."""
    for i in range(N_FAST_KNOCKER):
        rng = seeded("knocker", ace, play, i)
        knocker, defenders = knocker_deal(rng, ace, 10 if i % 2 else 7, 1 + i % 3)
        _check_knocker(knocker, defenders, ace, True, play)


N_FAST_REACH = 150  # knocker and defender pairs per ace mode


@pytest.mark.parametrize("ace", ACE_MODES)
def test_could_lay_off_matches_oracle(ace: str) -> None:
    """``could_lay_off`` (the showdown's test before it builds any arrangement) is
    True whenever some defender card fits some meld the knocker holds, and under
    ``ace = low`` only then (where the ace may follow the King it may also answer True
    for a 2 next to an ace of Q-K-A), on random, dense and four-of-a-kind knocker
    hands against one to three defenders drawn near them; any joker in the knocker's
    hand answers True (the arrangements decide)."""
    rules = ref_rules(ace)
    tab = tables_for_ref(rules)
    answers = set()
    for i in range(N_FAST_REACH):
        rng = seeded("could-lay-off", ace, i)
        size = 7 if i % 2 else 10
        if i % 3 == 0:
            knocker, defenders = knocker_deal(rng, ace, size, 1 + i % 3)
        else:
            knocker = (dense_hand if i % 3 == 1 else quad_hand)(rng, size)
            defenders = [random_hand(rng, size, exclude=knocker)]
        union = frozenset(c for d in defenders for c in d)
        melds = R.melds_in(knocker, rules)
        want = any(R.layoff_fits(c, m, rules) for m in melds for c in union)
        got = bool(could_lay_off(kmask(knocker), kmask(union), tab))
        where = f"knocker [{show(knocker)}] defenders [{show(union)}] ace={ace}"
        assert got == want if ace == "low" else got >= want, where
        answers.add(got)
    assert answers == {True, False}  # both answers were put to the test
    joker_hand = t("AC 2C 3C JK")
    assert could_lay_off(kmask(joker_hand), kmask(t("KS")), tab)


@pytest.mark.slow
@pytest.mark.parametrize("ace", ACE_MODES)
def test_layoffs_at_scale(ace: str) -> None:
    """``N_SLOW_LAYOFF`` lay-off deals per ace mode (run by hand: ``pytest -m slow``,
    about 50 s in all on one core)."""
    for i in range(N_SLOW_LAYOFF):
        rng = seeded("layoff-slow", ace, i)
        melds, hand = layoff_deal(rng, ace, hand_size=(7, 10, 13)[i % 3])
        _check_layoff(melds, hand, ace)


@pytest.mark.slow
@pytest.mark.parametrize("play", ("optimal", "greedy"))
@pytest.mark.parametrize("ace", ACE_MODES)
def test_knocker_arrangement_at_scale(ace: str, play: str) -> None:
    """``N_SLOW_KNOCKER`` knocker deals per (ace mode, layoff_play), one to three
    defenders (run by hand: ``pytest -m slow``, about 95 s in all on one core)."""
    for i in range(N_SLOW_KNOCKER):
        rng = seeded("knocker-slow", ace, play, i)
        knocker, defenders = knocker_deal(rng, ace, (7, 10)[i % 2], 1 + i % 3)
        _check_knocker(knocker, defenders, ace, True, play)


@pytest.mark.parametrize("ace", ACE_MODES)
def test_knocker_arrangement_without_layoffs(ace: str) -> None:
    """Without lay-offs the knocker lays its canonical arrangement."""
    for i in range(10):
        rng = seeded("knocker-no-layoff", ace, i)
        knocker, defenders = knocker_deal(rng, ace, 10, 1)
        _check_knocker(knocker, defenders, ace, False, "optimal")


def test_knocker_avoids_giving_layoffs() -> None:
    """JC QC KC | KD KH: the run J-Q-K of clubs or the set of kings leave the same 20
    (KD KH or JC QC). The defender holds TC and 9C: the run would take both (19 less),
    so the knocker lays the set of kings (the defender holds no fourth king).
    Canonical order alone would pick the run (JC QC KC sorts before KC KD KH)."""
    knocker = t("JC QC KC KD KH 2S")
    defender = t("9C TC 5D 6H 8S 3S")
    rules = ref_rules("low", layoff=True)
    assert R.canonical_arrangement_ref(knocker, rules)[0] == [t("JC QC KC")]
    assert R.knocker_arrangement_ref(knocker, [defender], rules) == [t("KC KD KH")]
    for play in ("optimal", "greedy"):
        _check_knocker(knocker, [defender], "low", True, play)


def _cards_of(mask: int) -> list[int]:
    return [i for i in range(54) if mask >> i & 1]


@settings(max_examples=400, deadline=None)
@given(st.integers(0, (1 << 54) - 1), st.integers(0, (1 << 54) - 1), st.integers(0, 53))
def test_meld_less_is_the_order_of_ascending_card_tuples(a, other, cut):
    # b shares a's cards below ``cut`` (common prefixes are the interesting cases)
    below = (1 << cut) - 1
    b = (a & below) | (other & ~below)
    for x, y in ((a, b), (b, a), (a, a), (a, a & below), (a & below, a)):
        assert meld_less(np.int64(x), np.int64(y)) == (_cards_of(x) < _cards_of(y)), (x, y)


@pytest.mark.parametrize("ace", ACE_MODES)
def test_melds_with_matches_oracle(ace: str) -> None:
    """``melds_with(hand, card)`` is True exactly when some possible meld of hand + card
    (the oracle's list) holds the card: random and dense hands of 2 to 12 cards with
    0, 1 or 2 jokers, the card natural or a joker."""
    rules = ref_rules(ace, jokers=2)
    tab = tables_for_ref(rules)
    rng = seeded("melds with", ace)
    seen = set()
    for i in range(600):
        size, jokers = 2 + i % 11, (0, 0, 1, 2)[i % 4]
        hand = (dense_hand if i % 3 == 0 else random_hand)(rng, size, min(jokers, 1))
        card = rng.choice([c for c in range(52 + jokers) if c not in hand])
        want = any(card in meld for meld in R.melds_in((*hand, card), rules))
        got = bool(melds_with(kmask(hand), card, tab))
        assert got == want, f"card {card} with [{show(hand)}] ({ace})"
        seen.add(got)
    assert seen == {True, False}


@pytest.mark.parametrize("ace", ACE_MODES)
def test_meld_partners_matches_oracle(ace: str) -> None:
    """``meld_partners(hand, cards)`` is exactly the cards of ``cards`` that some possible
    meld of hand + card (the oracle's list) holds: every card outside random and dense
    hands of 0 to 12 cards with 0, 1 or 2 jokers (the bit-parallel path without a joker
    in the hand, card by card with one), asked for all of them and for a random part."""
    rules = ref_rules(ace, jokers=2)
    tab = tables_for_ref(rules)
    rng = seeded("meld partners", ace)
    sizes = set()
    for i in range(130):
        size, jokers = i % 13, (0, 0, 1, 2)[i % 4]
        make = dense_hand if i % 3 == 0 and size >= 3 else random_hand
        hand = make(rng, size, min(jokers, size))
        outside = [c for c in range(54) if c not in hand]
        want = {c for c in outside if any(c in m for m in R.melds_in((*hand, c), rules))}
        everything = kmask(outside)
        assert cards_of(meld_partners(kmask(hand), everything, tab)) == tuple(sorted(want)), (
            f"[{show(hand)}] ({ace})"
        )
        part = rng.sample(outside, rng.randint(0, len(outside)))
        got = cards_of(meld_partners(kmask(hand), kmask(part), tab))
        assert got == tuple(sorted(want & set(part))), f"[{show(hand)}] part ({ace})"
        sizes.add(len(want) > 0)
    assert sizes == {True, False}


@pytest.mark.parametrize(
    ("hand", "low", "high_or_low", "around"),
    [
        ("AC 2C", "3C", "3C", "3C KC"),  # the King before the ace: round the corner only
        ("QC KC", "JC", "JC AC", "JC AC"),  # the ace after the King
        ("KD 2D", "", "", "AD"),  # the ace between them
        ("AH KH", "", "QH", "QH 2H"),
        ("5S 5H 9S JS", "5C 5D 10S", "5C 5D 10S", "5C 5D 10S"),
    ],
)
def test_meld_partners_cases(hand: str, low: str, high_or_low: str, around: str) -> None:
    """Hand-drawn: the natural cards that meld with a hand, in each ace mode."""
    for ace, want in (("low", low), ("high_or_low", high_or_low), ("around", around)):
        tab = tables_for_ref(ref_rules(ace))
        held = kmask(parse(hand))
        got = meld_partners(held, np.int64((1 << 52) - 1) & ~held, tab)
        assert cards_of(got) == tuple(sorted(parse(want))), (
            f"[{hand}] ({ace}): {show(cards_of(got))}"
        )
