"""Self-tests of the reference oracles on cases worked out by hand.

Each case's hand is drawn in card names in its docstring. Card indices: suit * 13 + rank
(C D H S = 0..3; A = rank 0 ... K = rank 12); jokers 52, 53 (written JK).
"""

from __future__ import annotations

from fractions import Fraction
from functools import cache
from itertools import combinations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from tests.reference.cardtext import c, names, t
from tests.reference.deadwood_ref import (
    arrangements,
    best_discard_ref,
    canonical_arrangement_ref,
    card_value,
    is_meld,
    knocker_arrangement_ref,
    layoff_fits,
    layoff_greedy_ref,
    layoff_optimal_ref,
    melds_in,
    min_deadwood_ref,
    reachable_layoffs,
)
from tests.reference.rules_ns import gin_rules, make_rules
from tests.reference.scoring_ref import score_showdown_ref

LOW = make_rules()
HIGH = make_rules(ace="high_or_low")
AROUND = make_rules(ace="around")
JOKERS = make_rules(jokers=2)
FAST = settings(max_examples=60, deadline=None, database=None, derandomize=True)


def F(x: int | str) -> Fraction:
    return Fraction(x)


# --- card values --------------------------------------------------------------------


def test_card_values():
    """A = 1 under "low", ace_high_value (15) otherwise; 2..10 face; J Q K 10; joker 15."""
    values = [1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 10, 10, 10]
    assert [card_value(card, LOW) for card in range(13)] == values
    assert card_value(t("AS")[0], HIGH) == 15
    assert card_value(t("AD")[0], AROUND) == 15
    assert card_value(t("AD")[0], make_rules(ace="around", ace_high_value=11)) == 11
    assert card_value(52, JOKERS) == 15 and card_value(53, make_rules(joker_value=20)) == 20


# --- meld counts and facts -------------------------------------------------------------


def _rank_count(meld):
    return len({card % 13 for card in meld})


@pytest.mark.parametrize(
    ("ace", "short", "every"),
    [("low", 185, 329), ("high_or_low", 197, 369), ("around", 221, 589)],
)
def test_natural_meld_counts(ace, short, every):
    """Melds in the 52-card deck.

    Sets: 13 ranks x (C(4,3) + C(4,4)) = 65 under every mode.
    low: runs of 3..5 = 4 x (11 + 10 + 9) = 120, so 185 (OpenSpiel's figure: sets of 3/4 and
    runs of 3-5 only); runs of 3..13 = 4 x (11 + 10 + ... + 1) = 264, so 329 in all.
    high_or_low: 14 places A..K A, so one more window per length except 13 (the whole suit is
    one card set): runs 3..5 = 4 x 33 = 132 -> 197; 3..13 = 4 x (12 + ... + 3 + 1) = 304 -> 369.
    around: 13 windows per length 3..12, the whole suit once: 3..5 = 4 x 39 = 156 -> 221;
    3..13 = 4 x (10 x 13 + 1) = 524 -> 589.
    """
    melds = melds_in(range(52), make_rules(ace=ace))
    sets = [m for m in melds if _rank_count(m) == 1]
    assert len(sets) == 65
    assert len([m for m in melds if len(m) <= 5]) == short
    assert len(melds) == every
    assert len(set(melds)) == len(melds)


def test_no_k_a_2_under_low():
    """KC AC 2C: a run only "around". QC KC AC: a run under "high_or_low" and "around"."""
    kac = t("KC AC 2C")
    qka = t("QC KC AC")
    assert not is_meld(kac, LOW) and not is_meld(kac, HIGH) and is_meld(kac, AROUND)
    assert not is_meld(qka, LOW) and is_meld(qka, HIGH) and is_meld(qka, AROUND)
    assert is_meld(t("AC 2C 3C"), LOW) and is_meld(t("AC 2C 3C"), HIGH)
    # high_or_low: the ace at one end only; the whole suit is one 13-card run.
    assert not is_meld(t("JC QC KC AC 2C"), HIGH) and is_meld(t("JC QC KC AC 2C"), AROUND)
    assert is_meld(t("TC JC QC KC AC"), HIGH) and not is_meld(t("TC JC QC KC AC"), LOW)
    suit = tuple(range(13))
    assert all(is_meld(suit, r) for r in (LOW, HIGH, AROUND))


def test_king_of_clubs_and_ace_of_diamonds_not_adjacent():
    """KC is card 12 and AD card 13: consecutive indices, different suits, never a run.

    QC KC AD / JC QC KC AD: no meld in any mode. Hand JC QC KC AD 2D (low): JC QC KC melded,
    AD 2D deadwood 3.
    """
    assert t("KC AD") == (12, 13)
    for rules in (LOW, HIGH, AROUND):
        assert not is_meld(t("QC KC AD"), rules)
        assert not is_meld(t("KC AD 2D"), rules)
        assert not is_meld(t("JC QC KC AD"), rules)
    assert melds_in(c("QC KC AD 2D"), AROUND) == []
    assert canonical_arrangement_ref(c("JC QC KC AD 2D"), LOW) == ([t("JC QC KC")], t("AD 2D"), 3)


def test_sets_and_runs_shapes():
    """Sets of 3 and 4 only; runs need one suit and consecutive ranks; duplicates never."""
    assert is_meld(t("7C 7D 7H"), LOW) and is_meld(t("7C 7D 7H 7S"), LOW)
    assert not is_meld(t("7C 7D"), LOW)
    assert not is_meld(t("5C 6C 7D"), LOW)
    assert not is_meld(t("5C 6C 8C"), LOW)
    assert is_meld(t("5C 6C 7C 8C 9C TC JC QC KC"), LOW)
    assert not is_meld((4, 4, 5), LOW)


# --- jokers -------------------------------------------------------------------------


def test_joker_melds():
    """Jokers fill any gap of a run or set; never a 5-card set; at least one natural.

    7C 7D JK set; 5C JK 7C run (JK = 6C); 5C JK JK both; 5C 8C JK no (two gaps);
    5C 8C JK JK run of 4; 7C 7D 7H 7S JK no (a set of 5); JK JK no; JK JK + nothing no.
    """
    r = JOKERS
    assert is_meld(t("7C 7D JK"), r)
    assert is_meld(t("5C 7C JK"), r)
    assert is_meld(t("5C JK JK"), r)
    assert not is_meld(t("5C 8C JK"), r)
    assert is_meld(t("5C 8C JK JK"), r)
    assert not is_meld(t("7C 7D 7H 7S JK"), r)
    assert is_meld(t("7C 7D 7H JK"), r)
    assert not is_meld((52, 53), r)
    assert not is_meld(t("7C 8D JK"), r)
    assert not is_meld(t("KC AC JK"), r)  # low: no window holds K and A
    assert is_meld(t("KC AC JK"), make_rules(jokers=2, ace="around"))
    assert is_meld(t("QC AC JK"), make_rules(jokers=2, ace="high_or_low"))


def test_joker_stands_for_a_held_card():
    """5C 6C 7C JK: the joker may stand for 6C although the hand holds 6C.

    Melds: 5C 6C 7C, 5C 6C JK, 5C 7C JK, 6C 7C JK, 5C 6C 7C JK (5 in all; one joker is
    too few for a set with one natural).
    """
    melds = melds_in(c("5C 6C 7C JK"), JOKERS)
    assert melds == sorted(
        [t("5C 6C 7C"), t("5C 6C JK"), t("5C 7C JK"), t("6C 7C JK"), t("5C 6C 7C JK")]
    )


def test_jokers_go_where_they_save_most():
    """5C 6C | KD KH | 9D 9H | 2S 4S | JK JK (jokers worth 15).

    Each pair needs one joker; the two jokers go with KD KH (20) and 9D 9H (18):
    deadwood = 5C 6C 2S 4S = 17. Canonical: [9D 9H JK(52)], [KD KH JK(53)] (the other
    joker assignment sorts later).
    """
    hand = c("5C 6C KD KH 9D 9H 2S 4S JK JK")
    melds, unmatched, deadwood = canonical_arrangement_ref(hand, JOKERS)
    assert deadwood == 17 == min_deadwood_ref(hand, JOKERS)
    assert melds == [(t("9D")[0], t("9H")[0], 52), (t("KD")[0], t("KH")[0], 53)]
    assert unmatched == t("5C 6C 2S 4S")


def test_loose_joker_is_deadwood_and_discarded_first():
    """AC 3D 5H 7S 9C JD KH 2S 4C JK: no meld (a joker needs two naturals that fit).

    Deadwood 1+3+5+7+9+10+10+2+4+15 = 66; best discard the joker (15): 51 left.
    """
    hand = c("AC 3D 5H 7S 9C JD KH 2S 4C JK")
    assert melds_in(hand, JOKERS) == []
    assert min_deadwood_ref(hand, JOKERS) == 66
    assert best_discard_ref(hand, JOKERS) == (52, 51)


# --- deadwood and canonical arrangements ----------------------------------------------


def test_simple_deadwood():
    """5C 6C 7C | 7D 7H 7S | KD: deadwood 10."""
    assert min_deadwood_ref(c("5C 6C 7C 7D 7H 7S KD"), LOW) == 10


def test_overlapping_run_and_set():
    """5C 6C 7C 8C 7D 7H 2S 3S 4S KD.

    Run 5C-8C leaves 7D 7H KD = 24; set 7C 7D 7H leaves 5C 6C 8C KD = 29: deadwood 24.
    """
    hand = c("5C 6C 7C 8C 7D 7H 2S 3S 4S KD")
    assert canonical_arrangement_ref(hand, LOW) == (
        [t("5C 6C 7C 8C"), t("2S 3S 4S")],
        t("7D 7H KD"),
        24,
    )


def test_run_of_six_split_canonically():
    """AC 2C 3C 4C 5C 6C | 9D 9H 9S | KS: deadwood 10 (KS).

    The run of 6 is one meld or two runs of 3; canonical order compares (0,1,2) < (0..5)
    (a prefix sorts first), so the split [AC 2C 3C], [4C 5C 6C], [9D 9H 9S] is canonical.
    """
    hand = c("AC 2C 3C 4C 5C 6C 9D 9H 9S KS")
    whole = [t("AC 2C 3C 4C 5C 6C"), t("9D 9H 9S")]
    split = [t("AC 2C 3C"), t("4C 5C 6C"), t("9D 9H 9S")]
    total = sum(card_value(x, LOW) for x in hand)
    zero_tens = [
        arr
        for arr in arrangements(hand, LOW)
        if total - sum(card_value(x, LOW) for m in arr for x in m) == 10
    ]
    assert sorted(zero_tens) == sorted([whole, split])
    assert split < whole
    assert canonical_arrangement_ref(hand, LOW) == (split, t("KS"), 10)


def test_aces_high_value():
    """AC 2C 3C AD under high_or_low: the melded ace counts nothing, AD is 15."""
    assert min_deadwood_ref(c("AC 2C 3C AD"), HIGH) == 15
    assert min_deadwood_ref(c("AC 2C 3C AD"), LOW) == 1
    assert min_deadwood_ref(c("QH KH AH 5S"), HIGH) == 5
    assert min_deadwood_ref(c("QH KH AH 5S"), LOW) == 26
    assert min_deadwood_ref(c("KH AH 2H 5S"), AROUND) == 5
    assert min_deadwood_ref(c("KH AH 2H 5S"), HIGH) == 32


def test_arrangements_include_empty_and_are_sorted():
    """7C 7D 7H 7S 8S 9S: arrangements are [], every single meld, and disjoint pairs."""
    hand = c("7C 7D 7H 7S 8S 9S")
    arrs = list(arrangements(hand, LOW))
    assert [] in arrs
    assert all(arr == sorted(arr) for arr in arrs)
    assert len({tuple(a) for a in arrs}) == len(arrs)
    # melds: 4 sets of 3, 1 set of 4, run 7S 8S 9S. Pairs: run + set 7C 7D 7H only.
    assert len(arrs) == 1 + 6 + 1
    assert canonical_arrangement_ref(hand, LOW) == ([t("7C 7D 7H"), t("7S 8S 9S")], (), 0)


# --- best discard -----------------------------------------------------------------------


def test_best_discard_tie_by_index():
    """AC 2C 3C | 5D 5H 5S | 8D 8H 8S | KC KS: dropping either King leaves 10; both are worth
    10, so the higher index KS (51) goes."""
    assert best_discard_ref(c("AC 2C 3C 5D 5H 5S 8D 8H 8S KC KS"), LOW) == (51, 10)


def test_best_discard_tie_by_value_then_forbidden():
    """AC 2C 3C 4C | 5D 5H 5S | 8C 8D 8H 8S: dropping AC, 4C or any 8 leaves 0.

    Highest value first: an 8; of the 8s the highest index 8S (46). With 8S forbidden (say
    just taken from the pile): 8H (33).
    """
    hand = c("AC 2C 3C 4C 5D 5H 5S 8C 8D 8H 8S")
    assert best_discard_ref(hand, LOW) == (46, 0)
    assert best_discard_ref(hand, LOW, forbidden=46) == (33, 0)


# --- lay-offs ---------------------------------------------------------------------------


def test_layoff_fits():
    """Run 5H 6H 7H takes 4H and 8H; set 7C 7D 7H takes 7S; a set of 4 takes nothing;
    J Q K takes A only where Q-K-A is a run; A 2 3 takes K only "around"; a 13-card run
    takes nothing."""
    run = t("5H 6H 7H")
    assert layoff_fits(t("4H")[0], run, LOW) and layoff_fits(t("8H")[0], run, LOW)
    assert not layoff_fits(t("9H")[0], run, LOW) and not layoff_fits(t("5S")[0], run, LOW)
    assert layoff_fits(t("7S")[0], t("7C 7D 7H"), LOW)
    assert not layoff_fits(t("7S")[0], t("7C 7D 7H 7S"), LOW)
    four = t("7C 7D 7H 7S")
    assert not any(layoff_fits(x, four, LOW) for x in range(52) if x not in four)
    jqk = t("JH QH KH")
    assert not layoff_fits(t("AH")[0], jqk, LOW)
    assert layoff_fits(t("AH")[0], jqk, HIGH) and layoff_fits(t("AH")[0], jqk, AROUND)
    a23 = t("AH 2H 3H")
    assert not layoff_fits(t("KH")[0], a23, HIGH) and layoff_fits(t("KH")[0], a23, AROUND)
    suit = tuple(range(13))
    assert not any(layoff_fits(x, suit, r) for x in range(13, 52) for r in (LOW, AROUND))
    with pytest.raises(ValueError):
        layoff_fits(52, run, JOKERS)


def test_layoff_chain_both_ends():
    """Knocker: 5H 6H 7H. Defender: 3H 4H 8H 9H | 2C 3C 4C | JD JH JS.

    Own deadwood 3+4+8+9 = 24; 4H then 3H on the low end, 8H then 9H on the high end: 0.
    Greedy gets there too (scan 3H no, 4H yes; restart 3H yes; 8H yes; 9H yes).
    """
    knocker = [t("5H 6H 7H")]
    defender = c("3H 4H 8H 9H 2C 3C 4C JD JH JS")
    assert min_deadwood_ref(defender, LOW) == 24
    deadwood, laid, melds = layoff_optimal_ref(knocker, defender, LOW)
    assert deadwood == 0 and sorted(x for x, _ in laid) == sorted(t("3H 4H 8H 9H"))
    assert melds == [t("2C 3C 4C"), t("JD JH JS")]
    deadwood, laid, melds = layoff_greedy_ref(knocker, defender, LOW)
    assert deadwood == 0
    assert laid == [(t("4H")[0], 0), (t("3H")[0], 0), (t("8H")[0], 0), (t("9H")[0], 0)]
    # a chain needs its order: 9H alone is never a lay-off
    reach = reachable_layoffs(knocker, c("9H"), LOW)
    assert list(reach) == [frozenset()]


def test_greedy_first_meld_blocks_chain():
    """Knocker: [7C 7D 7H], [4S 5S 6S] (canonical order: the set first).
    Defender: 7S 8S | 2C 3C 4C | JD JH JS | KC KD: own deadwood 7+8+10+10 = 35.

    Greedy lays 7S on the first meld it fits, the set; then 8S fits nothing: 28.
    Optimal lays 7S then 8S on the run: 20.
    """
    knocker = [t("7C 7D 7H"), t("4S 5S 6S")]
    defender = c("7S 8S 2C 3C 4C JD JH JS KC KD")
    assert layoff_greedy_ref(knocker, defender, LOW) == (
        28,
        [(t("7S")[0], 0)],
        [t("2C 3C 4C"), t("JD JH JS")],
    )
    assert layoff_optimal_ref(knocker, defender, LOW) == (
        20,
        [(t("7S")[0], 1), (t("8S")[0], 1)],
        [t("2C 3C 4C"), t("JD JH JS")],
    )


def test_optimal_chooses_own_melds_and_layoffs_jointly():
    """Knocker: [9C 9D 9H], [4S 5S 6S]. Defender: 7S 8S 9S 7C 7D | 2H 3H 4H | KC KD.

    Own best: run 7S 8S 9S, leaving 7C 7D KC KD = 34 (the set 7C 7D 7S leaves 8S 9S: 37).
    Greedy keeps the run; 7C 7D fit nothing: 34.
    Optimal: set 7C 7D 7S, 9S on the 9s, 8S left: 8 + 20 = 28 (laying the whole run
    7S 8S 9S on 4S-6S leaves 7C 7D KC KD = 34).
    """
    knocker = [t("9C 9D 9H"), t("4S 5S 6S")]
    defender = c("7S 8S 9S 7C 7D 2H 3H 4H KC KD")
    assert min_deadwood_ref(defender, LOW) == 34
    assert layoff_greedy_ref(knocker, defender, LOW) == (34, [], [t("2H 3H 4H"), t("7S 8S 9S")])
    deadwood, laid, melds = layoff_optimal_ref(knocker, defender, LOW)
    assert (deadwood, laid) == (28, [(t("9S")[0], 0)])
    assert melds == [t("7C 7D 7S"), t("2H 3H 4H")]


def test_knocker_arrangement_least_layoffs():
    """Knocker: 2C 3C 4C 3D 3H | 8S 9S TS JS QS (deadwood 6 either way):
    A = [2C 3C 4C], [8S..QS] leaves 3D 3H; B = [3C 3D 3H], [8S..QS] leaves 2C 4C.
    A is canonical first, but the defender 5C 7C 7D 7H JD QD KD AH 2H 4D lays 5C on A
    (own 12 -> 7) and nothing on B. The knocker takes B.
    """
    knocker = c("2C 3C 4C 3D 3H 8S 9S TS JS QS")
    defender = c("5C 7C 7D 7H JD QD KD AH 2H 4D")
    a = [t("2C 3C 4C"), t("8S 9S TS JS QS")]
    b = [t("3C 3D 3H"), t("8S 9S TS JS QS")]
    assert canonical_arrangement_ref(knocker, LOW)[0] == a
    rules = gin_rules()
    assert knocker_arrangement_ref(knocker, [defender], rules) == b
    assert knocker_arrangement_ref(knocker, [defender], make_rules(layoff=False)) == a
    assert layoff_optimal_ref(a, defender, rules)[0] == 7
    assert layoff_optimal_ref(b, defender, rules)[0] == 12
    result = score_showdown_ref(rules, [knocker, defender], knocker=0)
    assert result["outcome"] == "knock_win"
    assert result["melds"][0] == b and result["deadwood"] == [6, 12]
    assert result["points"] == [F(6), F(0)] and result["laid_off"] == [[], []]


# --- Knock scoring ---------------------------------------------------------------------
# Three or four players, hand_size 7. Each seat holds two 3-card melds and one loose card
# whose value is its deadwood (the loose card extends nothing it holds):
#   seat 0: AC 2C 3C | 4D 5D 6D     seat 1: 7C 8C 9C | TD JD QD
#   seat 2: 4H 5H 6H | 7S 8S 9S     seat 3: JH QH KH | 2S 3S 4S

BASE = ["AC 2C 3C 4D 5D 6D", "7C 8C 9C TD JD QD", "4H 5H 6H 7S 8S 9S", "JH QH KH 2S 3S 4S"]


def knock_rules(players=3, **kw):
    return make_rules(players=players, hand_size=7, **kw)


def deal(*loose):
    """Hands of seats 0.. with their loose cards."""
    return [c(f"{BASE[seat]} {card}") for seat, card in enumerate(loose)]


def test_knock_win():
    """Deadwood 2 (2H, knocker) | 5 (5S) | 10 (KC): seat 1 pays 3, seat 2 pays 8."""
    result = score_showdown_ref(knock_rules(), deal("2H", "5S", "KC"), knocker=0)
    assert result["outcome"] == "knock_win"
    assert result["deadwood"] == [2, 5, 10]
    assert result["points"] == [F(11), F(-3), F(-8)]
    assert result["melds"][0] == [t("AC 2C 3C"), t("4D 5D 6D")]
    assert result["laid_off"] == [[], [], []]


def test_undercut_nearest_left():
    """Knocker 8 (8H) | 3 (3H) | 3 (3D): seats 1 and 2 tie at 3; nearest the knocker's left
    is seat 1: the knocker pays 5 + 10. Seat 2 pays nothing."""
    result = score_showdown_ref(knock_rules(), deal("8H", "3H", "3D"), knocker=0)
    assert result["outcome"] == "undercut"
    assert result["deadwood"] == [8, 3, 3]
    assert result["points"] == [F(-15), F(15), F(0)]


def test_undercut_nearest_left_wraps_round():
    """Seat 0: 3 (3H) | seat 1 knocks with 8 (8H) | seat 2: 3 (3D). From seat 1's left the
    order is 2, 0: seat 2 wins the 15."""
    result = score_showdown_ref(knock_rules(), deal("3H", "8H", "3D"), knocker=1)
    assert result["deadwood"] == [3, 8, 3]
    assert result["points"] == [F(0), F(-15), F(15)]


def test_undercut_split():
    """As test_undercut_nearest_left with split: seats 1 and 2 share 15: 15/2 each."""
    rules = knock_rules(tied_winners="split")
    result = score_showdown_ref(rules, deal("8H", "3H", "3D"), knocker=0)
    assert result["outcome"] == "undercut"
    assert result["points"] == [F(-15), F("15/2"), F("15/2")]


def test_undercut_four_players_pot():
    """Knocker 6 (6C) | 2 (2H) | 9 (9D) | 2 (2D). m = 2, tied seats 1, 3.

    nearest_left: seat 1 collects 7 from seat 2 and 4 + 10 from the knocker: 21.
    split: seats 1 and 3 share 21: 21/2 each.
    """
    hands = deal("6C", "2H", "9D", "2D")
    result = score_showdown_ref(knock_rules(players=4), hands, knocker=0)
    assert result["deadwood"] == [6, 2, 9, 2]
    assert result["points"] == [F(-14), F(21), F(-7), F(0)]
    result = score_showdown_ref(knock_rules(players=4, tied_winners="split"), hands, knocker=0)
    assert result["points"] == [F(-14), F("21/2"), F(-7), F("21/2")]


def test_penalty_each_lower():
    """Knocker 6 (6C) | 2 (2H) | 9 (9D) | 2 (2D), penalty_to each_lower.

    Seats 1 and 3 are <= 6: 10 each straight from the knocker; the difference 4 goes to
    the winner. nearest_left: seat 1 gets 4 + 7 (seat 2) + 10 = 21, seat 3 10;
    knocker -24. split: the pot 4 + 7 = 11 is shared, 11/2 + 10 = 31/2 each.
    """
    hands = deal("6C", "2H", "9D", "2D")
    result = score_showdown_ref(knock_rules(players=4, penalty_to="each_lower"), hands, knocker=0)
    assert result["points"] == [F(-24), F(21), F(-7), F(10)]
    rules = knock_rules(players=4, penalty_to="each_lower", tied_winners="split")
    result = score_showdown_ref(rules, hands, knocker=0)
    assert result["points"] == [F(-24), F("31/2"), F(-7), F("31/2")]


def test_penalty_each_lower_equal_and_non_winner():
    """Knocker 6 (6S) | 2 (2H) | 6 (6C) | 9 (9D), each_lower.

    Penalty to seat 1 (2 <= 6) and seat 2 (6 <= 6, not the winner). Seat 1 gets the
    knocker's difference 4, seat 2's 4, seat 3's 7 and a penalty: 25. Seat 2: -4 + 10 = 6.
    Knocker: -4 - 20 = -24. Seat 3: -7.
    """
    hands = deal("6S", "2H", "6C", "9D")
    result = score_showdown_ref(knock_rules(players=4, penalty_to="each_lower"), hands, knocker=0)
    assert result["deadwood"] == [6, 2, 6, 9]
    assert result["points"] == [F(-24), F(25), F(6), F(-7)]


def test_neutral_tie():
    """Knocker 3 (3H) | 3 (3D) | 8 (8H), knocker_tie neutral: the knocker neither pays nor
    collects; seat 1 collects 5 from seat 2. Same under each_lower (no penalty)."""
    for penalty_to in ("winner", "each_lower"):
        rules = knock_rules(knocker_tie="neutral", penalty_to=penalty_to)
        result = score_showdown_ref(rules, deal("3H", "3D", "8H"), knocker=0)
        assert result["outcome"] == "undercut"
        assert result["points"] == [F(0), F(5), F(-5)]
    # knocker_tie undercut (the default): the tie costs the knocker the penalty
    result = score_showdown_ref(knock_rules(), deal("3H", "3D", "8H"), knocker=0)
    assert result["points"] == [F(-10), F(15), F(-5)]


def test_neutral_tie_split():
    """Knocker 1 (AH) | 1 (AD) | 1 (AS) | 8 (8D), neutral + split: seats 1 and 2 share seat
    3's 7; the knocker scores 0."""
    rules = knock_rules(players=4, knocker_tie="neutral", tied_winners="split")
    result = score_showdown_ref(rules, deal("AH", "AD", "AS", "8D"), knocker=0)
    assert result["deadwood"] == [1, 1, 1, 8]
    assert result["points"] == [F(0), F("7/2"), F("7/2"), F(-7)]


def test_neutral_tie_does_not_shield_a_higher_knocker():
    """Knocker 8 (8H) | 3 (3H) | 3 (3D) under neutral: not a tie, plain undercut."""
    rules = knock_rules(knocker_tie="neutral")
    result = score_showdown_ref(rules, deal("8H", "3H", "3D"), knocker=0)
    assert result["points"] == [F(-15), F(15), F(0)]


def test_rummy():
    """Knocker AC 2C 3C | 4D 5D 6D 7D (0) | 5 (5S) | 10 (KC): rummy; each pays its
    deadwood + 25."""
    hands = [c("AC 2C 3C 4D 5D 6D 7D"), c(f"{BASE[1]} 5S"), c(f"{BASE[2]} KC")]
    result = score_showdown_ref(knock_rules(), hands, knocker=0)
    assert result["outcome"] == "rummy"
    assert result["deadwood"] == [0, 5, 10]
    assert result["points"] == [F(65), F(-30), F(-35)]


def test_rummy_tied_at_zero():
    """Knocker AC 2C 3C | 4D 5D 6D 7D (0) | 7C 8C 9C | TD JD QD KD (0) | 10 (KC).

    Not rummy: knocker_tie undercut: seat 1 wins, the knocker pays 0 + 10, seat 2 pays 10.
    neutral: the knocker scores 0, seat 1 collects 10.
    """
    hands = [c("AC 2C 3C 4D 5D 6D 7D"), c("7C 8C 9C TD JD QD KD"), c(f"{BASE[2]} KC")]
    result = score_showdown_ref(knock_rules(), hands, knocker=0)
    assert result["outcome"] == "undercut"
    assert result["points"] == [F(-10), F(20), F(-10)]
    result = score_showdown_ref(knock_rules(knocker_tie="neutral"), hands, knocker=0)
    assert result["outcome"] == "undercut"
    assert result["points"] == [F(0), F(10), F(-10)]


def test_big_gin_knock_scoring():
    """Knocker 8 cards AC 2C 3C | 4D 5D 6D 7D 8D, big_gin_bonus 31 | 5 (5S) | 10 (KC):
    each pays its deadwood + 31."""
    hands = [c("AC 2C 3C 4D 5D 6D 7D 8D"), c(f"{BASE[1]} 5S"), c(f"{BASE[2]} KC")]
    result = score_showdown_ref(knock_rules(big_gin_bonus=31), hands, knocker=0)
    assert result["outcome"] == "big_gin"
    assert result["points"] == [F(77), F(-36), F(-41)]


def test_big_gin_tied_is_not_big_gin():
    """Knocker AC 2C 3C | 4D 5D 6D 7D 8D (8 cards, 0) | 7C 8C 9C | TD JD QD KD (0) | KC 10.

    Not big gin: knocker_tie (undercut) applies, no bonus: [-10, 20, -10].
    """
    hands = [c("AC 2C 3C 4D 5D 6D 7D 8D"), c("7C 8C 9C TD JD QD KD"), c(f"{BASE[2]} KC")]
    result = score_showdown_ref(knock_rules(big_gin_bonus=31), hands, knocker=0)
    assert result["outcome"] == "undercut"
    assert result["points"] == [F(-10), F(20), F(-10)]


def test_knock_scoring_layoffs_are_independent():
    """Lay-offs on. Knocker 5H 6H 7H | AC 2C 3C | KS (10).
    Seat 1: 7C 8C 9C | TD JD QD | 8H: lays 8H -> 0.
    Seat 2: 2S 3S 4S | 4D 5D 6D | 9H: 9H would need seat 1's 8H on the run: stays 9.
    Seat 1 wins: seat 2 pays 9, the knocker 10 + 10.
    """
    hands = [c("5H 6H 7H AC 2C 3C KS"), c("7C 8C 9C TD JD QD 8H"), c("2S 3S 4S 4D 5D 6D 9H")]
    result = score_showdown_ref(knock_rules(layoff=True), hands, knocker=0)
    assert result["outcome"] == "undercut"
    assert result["deadwood"] == [10, 0, 9]
    assert result["laid_off"] == [[], [t("8H")[0]], []]
    assert result["points"] == [F(-20), F(29), F(-9)]


def test_exhausted_knock_scoring():
    """No knocker: 8 (8H) | 3 (3H) | 3 (3D). Ties from the dealer's left.

    dealer 2 (the default, last seat): order 0, 1, 2 -> seat 1 collects 5 from seat 0.
    dealer 1: order 2, 0, 1 -> seat 2 collects. split: 5/2 each. No penalty, no bonus.
    """
    hands = deal("8H", "3H", "3D")
    result = score_showdown_ref(knock_rules(), hands, knocker=None)
    assert result["outcome"] == "exhausted"
    assert result["points"] == [F(-5), F(5), F(0)]
    result = score_showdown_ref(knock_rules(), hands, knocker=None, dealer=1)
    assert result["points"] == [F(-5), F(0), F(5)]
    result = score_showdown_ref(knock_rules(tied_winners="split"), hands, knocker=None, dealer=0)
    assert result["points"] == [F(-5), F("5/2"), F("5/2")]


def test_exhausted_ignores_layoffs_and_zero():
    """No knocker, lay-offs on: seat 0 AC 2C 3C 4D 5D 6D 7D (0) | seat 1 5S (5) | seat 2 KC
    (10): no bonus; seat 0 collects 5 + 10."""
    hands = [c("AC 2C 3C 4D 5D 6D 7D"), c(f"{BASE[1]} 5S"), c(f"{BASE[2]} KC")]
    result = score_showdown_ref(knock_rules(layoff=True), hands, knocker=None)
    assert result["points"] == [F(15), F(-5), F(-10)]
    assert result["laid_off"] == [[], [], []]


# --- Gin scoring -----------------------------------------------------------------------
# Knocker: AC 2C 3C | 4D 5D 6D | 7H 8H 9H | loose (the melds take 4C, 3D, 7D, 6H, TH).
# Defender: 5S 6S 7S | JC QC KC | 9C 9D 9S | loose.

KNOCKER = "AC 2C 3C 4D 5D 6D 7H 8H 9H"
DEFENDER = "5S 6S 7S JC QC KC 9C 9D 9S"


def gin_hands(knocker_loose, defender_loose):
    return [c(f"{KNOCKER} {knocker_loose}"), c(f"{DEFENDER} {defender_loose}")]


def test_gin_knock_win():
    """Knocker 2 (2H), defender 10 (KH): the knocker scores 8."""
    result = score_showdown_ref(gin_rules(), gin_hands("2H", "KH"), knocker=0)
    assert result["outcome"] == "knock_win"
    assert result["deadwood"] == [2, 10]
    assert result["points"] == [F(8), F(0)]


def test_gin_undercut():
    """Knocker 5 (5H), defender 3 (3S): the defender scores 2 + 25."""
    result = score_showdown_ref(gin_rules(), gin_hands("5H", "3S"), knocker=0)
    assert result["outcome"] == "undercut"
    assert result["points"] == [F(0), F(27)]


def test_gin_undercut_through_layoff():
    """Knocker 2 (2H); defender's TH (10) goes on 7H 8H 9H: 0. Undercut: 2 + 25."""
    result = score_showdown_ref(gin_rules(), gin_hands("2H", "TH"), knocker=0)
    assert result["outcome"] == "undercut"
    assert result["deadwood"] == [2, 0]
    assert result["laid_off"] == [[], [t("TH")[0]]]
    assert result["points"] == [F(0), F(27)]


def test_gin_tie():
    """Knocker 5 (5H), defender 5 (5C). undercut_on_tie true: defender 0 + 25;
    false: tie, nobody scores."""
    result = score_showdown_ref(gin_rules(), gin_hands("5H", "5C"), knocker=0)
    assert (result["outcome"], result["points"]) == ("undercut", [F(0), F(25)])
    result = score_showdown_ref(gin_rules(undercut_on_tie=False), gin_hands("5H", "5C"), knocker=0)
    assert (result["outcome"], result["points"]) == ("tie", [F(0), F(0)])


def test_gin_no_layoffs():
    """Knocker AC 2C 3C | 4D 5D 6D | 7H 8H 9H TH (gin). The defender's JH would fit the
    run but gin takes no lay-offs: 25 + 10."""
    hands = [c(f"{KNOCKER} TH"), c(f"{DEFENDER} JH")]
    result = score_showdown_ref(gin_rules(), hands, knocker=0)
    assert result["outcome"] == "gin"
    assert result["deadwood"] == [0, 10] and result["laid_off"] == [[], []]
    assert result["points"] == [F(35), F(0)]


def test_gin_against_zero_defender():
    """Gin cannot be undercut: defender 5S 6S 7S 8S | JC QC KC | 9C 9D 9S also 0: 25."""
    hands = [c(f"{KNOCKER} TH"), c(f"{DEFENDER} 8S")]
    result = score_showdown_ref(gin_rules(), hands, knocker=0)
    assert (result["outcome"], result["points"]) == ("gin", [F(25), F(0)])


def test_big_gin_gin_scoring():
    """Knocker 11 cards AC 2C 3C | 4D 5D 6D | 7H 8H 9H TH JH; defender QH (10, would fit):
    31 + 10. Against a zero defender (8S): still big gin, 31."""
    hands = [c(f"{KNOCKER} TH JH"), c(f"{DEFENDER} QH")]
    result = score_showdown_ref(gin_rules(), hands, knocker=0)
    assert (result["outcome"], result["points"]) == ("big_gin", [F(41), F(0)])
    hands = [c(f"{KNOCKER} TH JH"), c(f"{DEFENDER} 8S")]
    result = score_showdown_ref(gin_rules(), hands, knocker=0)
    assert (result["outcome"], result["points"]) == ("big_gin", [F(31), F(0)])


def test_spade_double():
    """Oklahoma: a spade upcard doubles every outcome; another suit does not."""
    rules = gin_rules(spade_double=True)
    hands = gin_hands("2H", "KH")
    assert score_showdown_ref(rules, hands, knocker=0, upcard=t("KS")[0])["points"] == [F(16), F(0)]
    assert score_showdown_ref(rules, hands, knocker=0, upcard=t("KH")[0])["points"] == [F(8), F(0)]
    undercut = score_showdown_ref(rules, gin_hands("5H", "3S"), knocker=0, upcard=t("2S")[0])
    assert undercut["points"] == [F(0), F(54)]
    gin = score_showdown_ref(
        rules, [c(f"{KNOCKER} TH"), c(f"{DEFENDER} JH")], knocker=0, upcard=t("AS")[0]
    )
    assert gin["points"] == [F(70), F(0)]
    exhausted = score_showdown_ref(rules, gin_hands("2H", "KH"), knocker=None, upcard=t("3S")[0])
    assert exhausted["points"] == [F(16), F(0)]
    with pytest.raises(ValueError, match="upcard"):
        score_showdown_ref(rules, hands, knocker=0)


def test_exhausted_gin_scoring():
    """No knocker: 8 (8C) | 3 (3S): seat 1 scores 5. A tie (5H | 5C) scores nothing."""
    result = score_showdown_ref(gin_rules(), gin_hands("8C", "3S"), knocker=None)
    assert (result["outcome"], result["points"]) == ("exhausted", [F(0), F(5)])
    result = score_showdown_ref(gin_rules(), gin_hands("5H", "5C"), knocker=None)
    assert result["points"] == [F(0), F(0)]


# --- illegal knocks and bad input -------------------------------------------------------


def test_knock_limit():
    """Knocker loose KH (10): legal under limit 10, not under 9."""
    hands = gin_hands("KH", "3S")
    assert score_showdown_ref(gin_rules(), hands, knocker=0)["deadwood"] == [10, 3]
    with pytest.raises(ValueError, match="knock_limit"):
        score_showdown_ref(gin_rules(knock_limit=9), hands, knocker=0)
    with pytest.raises(ValueError, match="knock_limit"):
        score_showdown_ref(gin_rules(knock_limit=0), gin_hands("AS", "3S"), knocker=0)


def test_knock_limit_upcard():
    """Oklahoma: knocker 8 (8C). Upcard 7S: limit 7, illegal; 8S: 8, legal; QD: 10, legal;
    an Ace upcard allows only zero deadwood in every ace mode (AS: illegal; gin: legal)."""
    rules = gin_rules(knock_limit="upcard")
    hands = gin_hands("8C", "KH")
    with pytest.raises(ValueError, match="knock_limit"):
        score_showdown_ref(rules, hands, knocker=0, upcard=t("7S")[0])
    assert score_showdown_ref(rules, hands, knocker=0, upcard=t("8D")[0])["outcome"] == "knock_win"
    assert score_showdown_ref(rules, hands, knocker=0, upcard=t("QD")[0])["outcome"] == "knock_win"
    for ace in ("low", "high_or_low", "around"):
        r = gin_rules(knock_limit="upcard", ace=ace)
        with pytest.raises(ValueError, match="knock_limit"):
            score_showdown_ref(r, gin_hands("2H", "KH"), knocker=0, upcard=t("AS")[0])
    gin = score_showdown_ref(
        rules, [c(f"{KNOCKER} TH"), c(f"{DEFENDER} JH")], knocker=0, upcard=t("AS")[0]
    )
    assert gin["outcome"] == "gin"
    with pytest.raises(ValueError, match="upcard"):
        score_showdown_ref(rules, hands, knocker=0)


def test_illegal_big_gin():
    """11 knocker cards: big_gin_bonus 0 rejects it; 11 cards not all melded are rejected."""
    with pytest.raises(ValueError, match="big_gin_bonus"):
        score_showdown_ref(
            gin_rules(big_gin_bonus=0), [c(f"{KNOCKER} TH JH"), c(f"{DEFENDER} QH")], knocker=0
        )
    with pytest.raises(ValueError, match="big gin"):
        score_showdown_ref(gin_rules(), [c(f"{KNOCKER} TH KH"), c(f"{DEFENDER} QH")], knocker=0)


def test_bad_hands():
    """Wrong hand sizes, a card in two hands, wrong number of hands, jokers not allowed."""
    with pytest.raises(ValueError, match="cards"):
        score_showdown_ref(gin_rules(), [c(f"{KNOCKER}"), c(f"{DEFENDER} QH")], knocker=0)
    with pytest.raises(ValueError, match="hand_size"):
        score_showdown_ref(gin_rules(), [c(f"{KNOCKER} 2H"), c(f"{DEFENDER}")], knocker=0)
    with pytest.raises(ValueError, match="more than one hand"):
        score_showdown_ref(gin_rules(), [c(f"{KNOCKER} 2H"), c(f"{DEFENDER} 2H")], knocker=0)
    with pytest.raises(ValueError, match="hands"):
        score_showdown_ref(gin_rules(), [c(f"{KNOCKER} 2H")], knocker=0)
    with pytest.raises(ValueError, match="jokers"):
        score_showdown_ref(make_rules(), [c(f"{KNOCKER} JK"), c(f"{DEFENDER} 2H")], knocker=0)
    with pytest.raises(ValueError, match="exhausted"):
        score_showdown_ref(gin_rules(), [c(f"{KNOCKER} TH JH"), c(f"{DEFENDER} QH")], knocker=None)
    with pytest.raises(ValueError, match="jokers"):
        score_showdown_ref(gin_rules(jokers=2), gin_hands("2H", "KH"), knocker=0)


# --- cross-checks on random hands ---------------------------------------------------------

ACE_RULES = [LOW, HIGH, AROUND, make_rules(jokers=2), make_rules(jokers=2, ace="around")]


@FAST
@given(st.sets(st.integers(0, 53), min_size=5, max_size=9), st.sampled_from(ACE_RULES))
def test_melds_in_is_every_meld_subset(hand, rules):
    """melds_in == every subset the hand holds that is_meld accepts."""
    if rules.jokers == 0:
        hand = {x for x in hand if x < 52}
    brute = sorted(
        combo
        for size in range(3, len(hand) + 1)
        for combo in combinations(sorted(hand), size)
        if is_meld(combo, rules)
    )
    assert melds_in(hand, rules) == brute


def _dp_min_deadwood(hand, rules):
    """Independent check: the lowest card is either deadwood or in a meld of the rest."""
    melds = melds_in(hand, rules)

    @cache
    def best(cards: frozenset) -> int:
        if not cards:
            return 0
        low = min(cards)
        value = card_value(low, rules) + best(cards - {low})
        for meld in melds:
            if low in meld and cards.issuperset(meld):
                value = min(value, best(cards - set(meld)))
        return value

    return best(frozenset(hand))


@FAST
@given(st.sets(st.integers(0, 53), min_size=10, max_size=11), st.sampled_from(ACE_RULES))
def test_min_deadwood_matches_dp(hand, rules):
    if rules.jokers == 0:
        hand = {x for x in hand if x < 52}
    melds, unmatched, deadwood = canonical_arrangement_ref(hand, rules)
    assert deadwood == _dp_min_deadwood(hand, rules) == min_deadwood_ref(hand, rules)
    assert sum(card_value(x, rules) for x in unmatched) == deadwood
    assert sorted(unmatched + tuple(x for m in melds for x in m)) == sorted(hand)


@FAST
@given(
    st.permutations(range(52)),
    st.integers(2, 4),
    st.booleans(),
    st.sampled_from(["optimal", "greedy"]),
    st.sampled_from(["nearest_left", "split"]),
    st.sampled_from(["undercut", "neutral"]),
    st.sampled_from(["winner", "each_lower"]),
)
def test_knock_scoring_sums_to_zero(deck, players, layoff, play, tied, tie, penalty):
    """Every Knock-scoring hand is a set of transfers; lay-offs never raise deadwood and
    optimal lay-offs never do worse than greedy."""
    size = 10 if players == 2 else 7
    hands = [frozenset(deck[i * size : (i + 1) * size]) for i in range(players)]
    rules = make_rules(
        players=players,
        hand_size=size,
        layoff=layoff,
        layoff_play=play,
        tied_winners=tied,
        knocker_tie=tie,
        penalty_to=penalty,
    )
    result = score_showdown_ref(rules, hands, knocker=0)
    assert sum(result["points"]) == 0
    own = [min_deadwood_ref(h, rules) for h in hands]
    assert result["deadwood"][0] == own[0]
    for seat in range(1, players):
        assert result["deadwood"][seat] <= own[seat]
        if layoff and own[0] > 0:
            melds = result["melds"][0]
            assert (
                layoff_optimal_ref(melds, hands[seat], rules)[0]
                <= layoff_greedy_ref(melds, hands[seat], rules)[0]
            )


def test_names_helper_round_trip():
    """cardtext: AS 2S 3S round-trips; JK JK are 52 and 53."""
    assert names(c("3S AS 2S")) == "AS 2S 3S"
    assert c("JK JK 10H") == frozenset({52, 53, t("TH")[0]})
