"""The showdown kernel (via ``sim.showdown``) against the pure-Python scoring oracle.

Two kinds of checks:
* every scoring scenario of ``tests/reference/test_reference.py`` (one per clause of
  RULES.md "Scoring a hand", hands drawn in their docstrings) is replayed through the
  kernel by standing the kernel in for the oracle;
* seeded random showdowns of every preset and of the scoring knobs, compared seat by
  seat (outcome, deadwood after lay-offs, exact points).
"""

from __future__ import annotations

import dataclasses
import random
from fractions import Fraction

import pytest

from sim.rules import PRESETS, RuleSet, get_rules
from sim.showdown import ShowdownError, score_showdown
from tests.reference import test_reference as scenarios
from tests.reference.rules_ns import make_rules
from tests.reference.scoring_ref import score_showdown_ref

_NS_FIELDS = set(vars(make_rules()))


def _ruleset(ns) -> RuleSet:
    """A RuleSet with the namespace's parameters (spade_double needs gin scoring)."""
    values = {k: getattr(ns, k) for k in _NS_FIELDS}
    if values["scoring"] == "knock":
        values["spade_double"] = False
    return get_rules(RuleSet(name="test", players=values.pop("players")), **values)


def _kernel_as_oracle(rules, hands, knocker, upcard=None, dealer=None):
    result = score_showdown(
        _ruleset(rules),
        [sum(1 << c for c in h) for h in hands],
        knocker,
        upcard=upcard,
        dealer=dealer,
    )
    return {
        "outcome": result.outcome,
        "deadwood": [s.deadwood for s in result.seats],
        "laid_off": [s.laid_off for s in result.seats],
        "melds": [[tuple(m) for m in s.melds] for s in result.seats],
        "points": [s.points for s in result.seats],
    }


SCENARIOS = sorted(
    name
    for name in dir(scenarios)
    if name.startswith("test_")
    and "score_showdown_ref" in (getattr(scenarios, name).__code__.co_names)
    # error-message checks are the oracle's own; the kernel's are tested below
    and not any(word in name for word in ("bad", "illegal"))
)


@pytest.mark.parametrize("name", SCENARIOS)
def test_scoring_scenario_on_kernel(name, monkeypatch):
    """Each scoring clause's hand-drawn scenario holds for the kernel too."""
    monkeypatch.setattr(scenarios, "score_showdown_ref", _kernel_as_oracle)
    try:
        getattr(scenarios, name)()
    except ShowdownError as error:  # the kernel path raises its own error type
        pytest.fail(f"kernel refused a scenario the oracle accepts: {error}")


VARIANTS = [(name, {}) for name in PRESETS] + [
    ("knock-rummy", {"tied_winners": "split"}),
    ("knock-rummy", {"knocker_tie": "neutral"}),
    ("knock-rummy", {"penalty_to": "each_lower", "players": 5}),
    ("knock-rummy", {"tied_winners": "split", "penalty_to": "each_lower", "players": 6}),
    ("knock-rummy", {"layoff": True, "players": 3}),
    ("knock-rummy", {"layoff": True, "layoff_play": "greedy", "players": 3}),
    ("knock-rummy", {"big_gin_bonus": 31, "players": 2}),
    ("gin", {"undercut_on_tie": False}),
    ("gin", {"ace": "high_or_low"}),
    ("gin", {"layoff_play": "greedy", "ace": "around"}),
]


def _random_showdown(rules: RuleSet, rng: random.Random):
    size = rules.cards_per_hand
    deck = list(range(52)) + [52, 53][: rules.jokers]
    rng.shuffle(deck)
    knocker = rng.randrange(-1, rules.players)  # -1: the stock ran out
    if knocker >= 0 and rules.big_gin_bonus and rng.random() < 0.05:
        pass  # a big gin is rare in random cards; scenario tests cover it
    hands = [frozenset(deck[i * size : (i + 1) * size]) for i in range(rules.players)]
    upcard = deck[rules.players * size]
    while upcard >= 52:
        upcard -= 1 if upcard == 53 else 0
        upcard = deck[-1] if deck[-1] < 52 else 0
    return hands, (None if knocker < 0 else knocker), upcard, rng.randrange(rules.players)


@pytest.mark.parametrize("preset, overrides", VARIANTS, ids=lambda v: str(v))
def test_random_showdowns_match_oracle(preset, overrides):
    rules = get_rules(preset, **overrides)
    ns = make_rules(**{k: v for k, v in rules.to_dict().items() if k in _NS_FIELDS})
    rng = random.Random(f"{preset}{sorted(overrides.items())}")
    compared = 0
    for _ in range(60 if rules.players <= 2 else 25):
        hands, knocker, upcard, dealer = _random_showdown(rules, rng)
        if upcard in set().union(*hands):
            continue
        try:
            expected = score_showdown_ref(ns, hands, knocker, upcard=upcard, dealer=dealer)
        except ValueError:
            with pytest.raises(ShowdownError):
                _kernel_as_oracle(ns, hands, knocker, upcard, dealer)
            continue
        got = _kernel_as_oracle(ns, hands, knocker, upcard, dealer)
        for key in ("outcome", "deadwood", "points"):
            assert got[key] == expected[key], (key, hands, knocker, upcard, dealer)
        assert (
            got["melds"][knocker if knocker is not None else 0]
            == (expected["melds"][knocker if knocker is not None else 0])
            or knocker is None
        )
        if rules.scoring == "knock":
            assert sum(got["points"], Fraction(0)) == 0
        compared += 1
    assert compared > 0


def test_illegal_knock_is_refused_with_reason():
    rules = get_rules("gin")
    hands = ["AC 2C 3C 5D 7H 9S JC QD KH 4S", "AD 2D 3D 4D 5C 6C 7C 8H 9H TH"]
    with pytest.raises(ShowdownError, match="deadwood .* above the limit 10"):
        score_showdown(rules, hands, knocker=0)


def test_wrong_hand_count_and_size():
    with pytest.raises(ShowdownError, match="players=2"):
        score_showdown("gin", ["AC 2C 3C"], knocker=0)
    with pytest.raises(ShowdownError, match="holds 3 cards"):
        score_showdown("gin", ["AC 2C 3C", "AD 2D 3D 4D 5C 6C 7C 8H 9H TH"], knocker=1)


def test_ruleset_dataclass_is_frozen():
    with pytest.raises(dataclasses.FrozenInstanceError):
        PRESETS["gin"].players = 3  # type: ignore[misc]


# --- two jokers, as a position is written -------------------------------------------


def test_a_joker_in_each_of_two_hands() -> None:
    """Both jokers print as JK: a JK in each hand is the two jokers, not one card twice.

    Knocker: 2C-JK-2S set, 9C 9H 9S, 4D 5D 6D, AC left (1). Defender: TD-KD run,
    5S 6S JK run, 2H 3H 8H left (13). Knock Rummy, no lay-offs: 13 - 1 = 12.
    """
    rules = get_rules("joker-knock", players=2)
    hands = ["AC 2C JK 4D 5D 6D 9H 9S 9C 2S", "TD JD QD KD 5S 6S JK 8H 2H 3H"]
    result = score_showdown(rules, hands, knocker=0)
    assert result.outcome == "knock_win"
    assert [s.deadwood for s in result.seats] == [1, 13]
    assert [s.points for s in result.seats] == [12, -12]
    assert (52 in result.seats[0].cards, 53 in result.seats[1].cards) == (True, True)
    both = score_showdown(rules, [hands[0], "TD JD QD KD 5S 6S 7S 8H 2H 3H"], knocker=0)
    assert 52 in both.seats[0].cards  # one joker alone is the first
    with pytest.raises(ValueError, match="'JK' given 3 times in this position"):
        score_showdown(rules, ["AC 2C JK 4D 5D 6D 9H 9S 9C JK", hands[1]], knocker=0)
    with pytest.raises(ValueError, match="rules allow 0 jokers"):
        score_showdown("knock-rummy", [hands[0], hands[1], "AH", "AD"], knocker=0)


def test_masks_keep_their_jokers_and_text_takes_the_other() -> None:
    rules = get_rules("joker-knock", players=2)
    knocker = (1 << 53) | sum(1 << c for c in (0, 1, 16, 17, 18, 21, 34, 47, 8))
    result = score_showdown(rules, [knocker, "TD JD QD KD 5S 6S JK 8H 2H 3H"], knocker=0)
    assert 52 in result.seats[1].cards and 53 in result.seats[0].cards
    with pytest.raises(ValueError, match="joker card 53 is in more than one hand"):
        score_showdown(rules, [knocker, (1 << 53) | 7], knocker=0)
