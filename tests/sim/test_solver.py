"""The public solver API (``sim.min_deadwood``, ``sim.best_discard``, ``sim.arrangement``).

Shapes and dtypes of the vectorised calls, list input, ``forbidden`` as one card or one
per hand, rule sets by preset name or ``sim.get_rules``, agreement with the reference
oracle through the API, and clear ``ValueError``s for bad input (RULES.md "Cards": a
hand is a mask of bits 0..53; jokers only where the rules deal them; at most 13 cards
in the solver's range).
"""

from __future__ import annotations

import numpy as np
import pytest

import sim
from sim.cards import parse_cards
from sim.solver import SMALL_BATCH
from tests.conftest import mask_of, random_hand, ref_rules, seeded, show
from tests.reference import deadwood_ref as R
from tests.reference.cardtext import parse

# Preset (or rule set) -> the matching reference rules namespace.
RULE_CASES = [
    ("gin", ref_rules("low")),
    ("knock-rummy", ref_rules("low")),
    ("round-the-corner-gin", ref_rules("around")),
    ("joker-knock", ref_rules("low")),
    (sim.get_rules("gin", ace="high_or_low"), ref_rules("high_or_low")),
    (
        sim.get_rules("round-the-corner-gin", ace_high_value=11),
        ref_rules("around", ace_high_value=11),
    ),
    (
        sim.get_rules("joker-knock", joker_value=25, ace="high_or_low"),
        ref_rules("high_or_low", joker_value=25),
    ),
]


def _hands(rules, n: int, seed: str) -> list[tuple[int, ...]]:
    rng = seeded("api", seed)
    jokers = sim.solver.resolve_rules(rules).jokers
    return [random_hand(rng, 1 + i % 13, min(i % 3, jokers, 1 + i % 13)) for i in range(n)]


@pytest.mark.parametrize(("rules", "ref"), RULE_CASES, ids=lambda r: getattr(r, "name", None))
def test_api_matches_oracle(rules, ref, memo_oracle) -> None:
    """Deadwood, best discard (with and without forbidden cards) and the arrangement,
    through the public API, equal the oracle's."""
    hands = _hands(rules, 39, str(rules))
    masks = np.array([mask_of(h) for h in hands], np.uint64)
    deadwood = sim.min_deadwood(masks, rules=rules)
    assert deadwood.tolist() == [R.min_deadwood_ref(h, ref) for h in hands]
    cards, left = sim.best_discard(masks, rules=rules)
    assert list(zip(cards.tolist(), left.tolist(), strict=True)) == [
        R.best_discard_ref(h, ref) for h in hands
    ]
    forbidden = np.array([h[-1] if len(h) > 1 else -1 for h in hands], np.int64)
    cards, left = sim.best_discard(masks, rules=rules, forbidden=forbidden)
    for h, f, c, d in zip(hands, forbidden, cards, left, strict=True):
        assert (c, d) == R.best_discard_ref(h, ref, forbidden=None if f < 0 else int(f)), show(h)
    for h in hands[:20]:
        arrangement = sim.arrangement(mask_of(h), rules=rules)
        melds, unmatched, dw = R.canonical_arrangement_ref(h, ref)
        assert [tuple(m) for m in arrangement.melds] == melds
        assert tuple(arrangement.unmatched) == unmatched
        assert arrangement.deadwood == dw


def test_shapes_and_dtypes() -> None:
    """n hands in, int64[n] out, from a uint64 array, a Python list or other int dtypes."""
    hands = ["AS 2S 3S 7C 7D 7H 9C TC JD QH", "KC AC 2C", "5D"]
    masks = np.array([parse_cards(h, jokers=0) for h in hands], np.uint64)
    deadwood = sim.min_deadwood(masks, rules="gin")
    assert deadwood.dtype == np.int64 and deadwood.shape == (3,)
    assert deadwood.tolist() == [39, 13, 5]
    assert sim.min_deadwood(masks.tolist(), rules="gin").tolist() == [39, 13, 5]
    assert sim.min_deadwood(masks.astype(np.int64), rules="gin").tolist() == [39, 13, 5]
    # Round the corner: K-A-2 melds; the ace of spades is melded, so its value is moot.
    assert sim.min_deadwood(masks, rules="round-the-corner-gin").tolist() == [39, 0, 5]
    cards, left = sim.best_discard(masks, rules="gin")
    assert cards.dtype == np.int64 and left.dtype == np.int64
    assert cards.shape == left.shape == (3,)
    assert cards.tolist() == [parse("QH")[0], parse("KC")[0], parse("5D")[0]]
    assert left.tolist() == [29, 3, 0]
    empty = sim.min_deadwood(np.zeros(0, np.uint64), rules="gin")
    assert empty.shape == (0,) and empty.dtype == np.int64


def test_empty_list_is_an_empty_batch() -> None:
    """An empty Python list is an empty batch (numpy reads ``[]`` as float64, which must
    not be taken for a float mask)."""
    assert sim.min_deadwood([], rules="gin").shape == (0,)
    cards, left = sim.best_discard([], rules="gin")
    assert cards.shape == left.shape == (0,)


def test_forbidden_scalar_and_per_hand() -> None:
    """``forbidden``: one card for every hand, or one per hand (-1: none)."""
    hand = "AS 2S 3S 7C 7D 7H 9C TC JD QH"  # best discard QH (29 left)
    masks = [parse_cards(hand, jokers=0)] * 3
    qh, jd = parse("QH JD")
    cards, left = sim.best_discard(masks, rules="gin", forbidden=qh)
    assert cards.tolist() == [jd] * 3 and left.tolist() == [29] * 3
    cards, left = sim.best_discard(masks, rules="gin", forbidden=[-1, qh, jd])
    assert cards.tolist() == [qh, jd, qh] and left.tolist() == [29, 29, 29]
    # A 1-card hand whose only card is forbidden has nothing to discard: -1.
    cards, _ = sim.best_discard([1 << qh], rules="gin", forbidden=qh)
    assert cards.tolist() == [-1]
    with pytest.raises(ValueError):
        sim.best_discard(masks, rules="gin", forbidden=[1, 2])  # wrong length


@pytest.mark.parametrize(
    ("masks", "rules", "match"),
    [
        ([1 << 54], "gin", "bits 0..53"),
        (np.array([1 << 63], np.uint64), "gin", "bits 0..53"),
        ([1 << 52], "gin", "joker"),
        ([1 << 53 | 1], "knock-rummy", "joker"),
        ([(1 << 14) - 1], "gin", "13 cards"),
        ([(1 << 14) - 1 | 1 << 52], "joker-knock", "13 cards"),
        (np.array([7.0]), "gin", "integers"),
        (np.array([True]), "gin", "integers"),
        ([-1], "gin", "non-negative"),
    ],
)
def test_bad_masks_raise_value_errors(masks, rules, match) -> None:
    """Bad hands are ``ValueError``s whose message says what is wrong."""
    with pytest.raises(ValueError, match=match):
        sim.min_deadwood(masks, rules=rules)
    with pytest.raises(ValueError, match=match):
        sim.best_discard(masks, rules=rules)


@pytest.mark.parametrize(
    ("bad", "rules", "match"),
    [
        (1 << 54, "gin", "bits 0..53"),
        (1 << 63, "gin", "bits 0..53"),
        (1 << 52 | 7, "gin", "joker"),
        ((1 << 14) - 1, "gin", "13 cards"),
        ((1 << 14) - 1 | 1 << 52, "joker-knock", "13 cards"),
    ],
)
def test_a_bad_hand_in_a_large_batch_is_found_by_the_kernel(
    bad: int, rules: str, match: str
) -> None:
    """Past ``SMALL_BATCH`` hands the batch kernels test every hand in their own pass:
    one bad hand anywhere raises the same error as the numpy checks."""
    masks = np.full(SMALL_BATCH + 10, 0b111 | 1 << 20, np.uint64)
    masks[SMALL_BATCH + 5] = np.uint64(bad)
    with pytest.raises(ValueError, match=match):
        sim.min_deadwood(masks, rules=rules)
    with pytest.raises(ValueError, match=match):
        sim.best_discard(masks, rules=rules)
    with pytest.raises(ValueError, match="forbidden"):
        sim.best_discard(masks[: SMALL_BATCH + 1], rules=rules, forbidden=54)


def test_small_and_large_batches_agree() -> None:
    """The one-hand pieces (small batches) and the batch kernels give the same answers."""
    rng = np.random.default_rng(17)
    keys = rng.random((SMALL_BATCH + 1, 52)).argsort(axis=1)[:, :11]
    masks = (np.uint64(1) << keys.astype(np.uint64)).sum(axis=1, dtype=np.uint64)
    large = sim.min_deadwood(masks), *sim.best_discard(masks, forbidden=keys[:, 0])
    small = [
        (sim.min_deadwood(one), *sim.best_discard(one, forbidden=keys[i, 0]))
        for i, one in enumerate(masks[:, None])
    ]
    for k, column in enumerate(large):
        assert column.tolist() == [int(row[k][0]) for row in small]


def test_bad_rules_raise_value_errors() -> None:
    with pytest.raises(ValueError, match="unknown preset"):
        sim.min_deadwood([7], rules="no-such-preset")


def test_arrangement_from_card_text() -> None:
    """``sim.arrangement`` reads card text and returns melds, unmatched cards, deadwood."""
    a = sim.arrangement("AS 2S 3S 7C 7D 7H 9C TC JD QH", rules="gin")
    assert a.melds == [parse("7C 7D 7H"), parse("AS 2S 3S")]
    assert a.unmatched == sorted(parse("9C TC JD QH"))
    assert a.deadwood == 39
    # Round the corner: K-A-2 is a run; the 5D (5) is left.
    a = sim.arrangement("kc ac 2c 5d", rules="round-the-corner-gin")
    assert (a.melds, a.unmatched, a.deadwood) == ([sorted(parse("AC 2C KC"))], parse("5D"), 5)
    # Two jokers and one natural card: one meld.
    a = sim.arrangement("AS JK JK", rules="joker-knock")
    assert (a.melds, a.unmatched, a.deadwood) == ([[39, 52, 53]], [], 0)
    # A mask works as well as text; an empty hand has nothing to lay.
    assert sim.arrangement(0b111, rules="gin").melds == [[0, 1, 2]]
    assert sim.arrangement("", rules="gin") == sim.Arrangement([], [], 0)
    # The canonical split of a run of six (RULES.md "Showdown").
    a = sim.arrangement("AC 2C 3C 4C 5C 6C", rules="gin")
    assert a.melds == [[0, 1, 2], [3, 4, 5]]


@pytest.mark.parametrize(
    ("hand", "rules", "match"),
    [
        ("AS 1X", "gin", "1X"),
        ("AS AS", "gin", "twice"),
        ("AS JK", "gin", "JK"),
        ("AS JK JK JK", "joker-knock", "JK"),
        ("AC 2C 3C 4C 5C 6C 7C 8C 9C TC JC QC KC AD", "gin", "13 cards"),
        (1 << 54, "gin", "bits 0..53"),
        (1 << 52, "gin", "joker"),
        (-1, "gin", None),
    ],
)
def test_arrangement_bad_input(hand, rules, match) -> None:
    """Bad hands are ``ValueError``s (``CardError`` is one) naming the problem."""
    with pytest.raises(ValueError, match=match):
        sim.arrangement(hand, rules=rules)
