"""The card's sentences from a chart's parameters (``sim.present.chart_card``): knock
masks as deadwood ranges grouped by runs of turns, take masks as what the pile card
does, the discard from ``safety``, ``lookahead`` and ``gin_chance``."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from sim.present.chart_card import (
    card_text,
    chart_card,
    discard_rules,
    knock_rules,
    knock_words,
    page_fits,
    take_rules,
    take_words,
    turn_runs,
)
from strategies.chart import HIGH_FIRST, TURNS, Params, safety_of


def greedy_like(k: int) -> Any:
    """The chart that plays as ``greedy:knock_at=k``."""
    values: dict[str, int] = {f"k{t}": (1 << (k + 1)) - 1 for t in range(1, TURNS + 1)}
    values |= {f"t{t}": 128 for t in range(1, TURNS + 1)}
    return Params(**values | {"safety": 0})


@pytest.mark.parametrize("k", [1, 5, 10, 26, 29])
def test_greedy_knock_at_k_reads_k_or_less_on_every_turn(k: int) -> None:
    card = chart_card(greedy_like(k))
    assert card.knock == [f"Every turn: knock with {k} or less."]
    assert card.take == [
        "Every turn: take the pile card whenever it lowers your deadwood; else draw from the stock."
    ]
    assert card.discard == [
        "Throw the card that leaves the least deadwood; among equals, the highest card."
    ]


def test_greedy_knock_at_0_and_30() -> None:
    assert chart_card(greedy_like(0)).knock == ["Every turn: knock only with gin."]
    assert chart_card(greedy_like(30)).knock == ["Every turn: knock with any deadwood."]
    assert knock_words(1, gin=False) == "knock only with no deadwood"


def test_knock_words() -> None:
    assert knock_words(0) == "never knock"
    assert knock_words(0b11111111001) == "knock with 0, or 3 to 10"  # 2041: non-contiguous
    assert knock_words(0b10011001) == "knock with 0, 3, 4, or 7"  # a pair of bits: 3, 4
    assert knock_words(1 << 30) == "knock with 30 or more"
    assert knock_words((1 << 31) - (1 << 25)) == "knock with 25 or more"
    assert knock_words(1 | (1 << 5) | (1 << 30)) == "knock with 0, 5, or 30 or more"
    assert knock_words(0b11111000) == "knock with 3 to 7"


def test_knock_rules_group_runs_of_turns() -> None:
    masks = [127] * 6 + [1] * 13 + [(1 << 31) - 1]
    assert knock_rules(masks) == [
        "Turns 1-6: knock with 6 or less.",
        "Turns 7-19: knock only with gin.",
        "Turn 20 and later: knock with any deadwood.",
    ]
    masks = [2041] + [1 << 30] * 7 + [1] * 12
    assert knock_rules(masks) == [
        "Turn 1: knock with 0, or 3 to 10.",
        "Turns 2-8: knock with 30 or more.",
        "Turns 9 and later: knock only with gin.",
    ]
    assert turn_runs([1, 1, 2, 1]) == [(1, 2, 1), (3, 3, 2), (4, 4, 1)]


def test_take_words() -> None:
    assert take_words(33) == (
        "take the pile card when it completes a meld or lowers your deadwood by 7 or "
        "more; else draw from the stock"
    )
    assert take_words(1) == "take the pile card when it completes a meld; else draw from the stock"
    assert take_words(0) == "always draw from the stock"
    assert take_words(127) == "always take the pile card"
    assert take_words(56) == (
        "take the pile card when it lowers your deadwood by 1 or more; else draw from the stock"
    )
    assert take_words(0b1011011) == (  # classes 0, 1, 3, 4, 6
        "take the pile card when it completes a meld, makes a pair, lowers your deadwood "
        "by 1 to 6, or does nothing for your hand; else draw from the stock"
    )
    assert take_words(0b10100) == (  # classes 2, 4
        "take the pile card when it makes a near run or lowers your deadwood by 4 to 6; "
        "else draw from the stock"
    )
    assert take_words(129) == (
        "take the pile card when it completes a meld, or whenever it lowers your "
        "deadwood; else draw from the stock"
    )


def test_take_rules_explain_the_classes_only_when_used() -> None:
    assert take_rules([1] * TURNS) == [
        "Every turn: take the pile card when it completes a meld; else draw from the stock."
    ]
    rules = take_rules([33] * 2 + [1] * 18)
    assert rules[:2] == [
        "Turns 1-2: take the pile card when it completes a meld or lowers your deadwood "
        "by 7 or more; else draw from the stock.",
        "Turns 3 and later: take the pile card when it completes a meld; else draw from the stock.",
    ]
    assert rules[2].startswith("A pile card counts as the first of these that holds")


def test_discard_rules() -> None:
    assert discard_rules(HIGH_FIRST) == [
        "Throw the card that leaves the least deadwood; among equals, the safest rank "
        "first: K Q J 10 9 8 7 6 5 4 3 2 A."
    ]
    # K, then Q twice (its first place counts); the nibbles left are 0, the ace
    partial = discard_rules(safety_of([12, 11, 11]))
    assert partial[0].endswith("first: K Q A, then any other rank.")
    rules = discard_rules(0, lookahead=30, gin_chance=150)
    assert rules[1].startswith("Look ahead (lookahead 30):")
    assert "worth 3 points of deadwood now" in rules[1]
    assert rules[2].startswith("Gin chance (gin_chance 150):")
    assert "worth 1.5 points of deadwood" in rules[2]
    assert len(rules) == 4  # and when neither applies
    assert len(discard_rules(0, lookahead=10)) == 3
    assert "worth 1 point of deadwood now" in discard_rules(0, lookahead=10)[1]


def test_text_fits_and_never_cuts_a_number() -> None:
    card = chart_card(greedy_like(7), label="chart:x", header={"rules": "gin", "players": "2"})
    text = card_text(card, width=40)
    assert all(len(line) <= 40 for line in text.splitlines())
    assert "made for gin (2 players)." in text.replace("\n", " ")
    words = " ".join(text.split())
    assert "knock with 7 or less." in words


def test_the_shipped_charts_fit_one_page_and_a_pathological_one_is_said_not_to() -> None:
    from strategies import parse_seat
    from strategies.chart_files import shipped_chart, shipped_names

    for name in shipped_names():  # as `rummy strategy-chart card` draws them: with the header
        made = chart_card(parse_seat(f"chart:{name}")[1], header=shipped_chart(name).header)
        assert page_fits(made), name
    values = {f"k{t}": (1 << t) | 1 | (1 << 30) for t in range(1, TURNS + 1)}
    values |= {f"t{t}": t * 5 % 255 | 2 for t in range(1, TURNS + 1)}
    assert not page_fits(chart_card(Params(**values)))


def test_a_chart_reports_answer_states_its_rule_first(tmp_path: Path) -> None:
    """The knock chart's report opens with the rule its exported seat plays: the card's
    own sentences for the knock masks export makes (one reading of a chart, two doors);
    a turn the rule lets knock with some deadwood has a knock verdict there, or keeps the
    policy's own play (greedy:knock_at=0 knocks only with gin)."""
    from sim.present.chart_figure import chart_answer
    from sim.study.chart import knock_chart
    from sim.study.chart_seat import chart_params, knock_masks
    from sim.study.execute import Executor

    chart = knock_chart("gin", "greedy:knock_at=0", deals=3_000, seed=3, out=tmp_path,
                        samples=8, per_cell=200, executor=Executor(workers=1))  # fmt: skip
    params = chart_params(chart)
    masks = [getattr(params, f"k{t}") for t in range(1, TURNS + 1)]
    assert masks == knock_masks(chart)
    answer = chart_answer(chart)
    assert answer[0] == "Knock: " + " ".join(knock_rules(masks, gin=True))
    verdicts = {(r["turn"], r["deadwood"]): r["verdict"] for r in chart.cells.iter_rows(named=True)}
    for turn, mask in enumerate(masks, start=1):
        for deadwood in range(1, 11):
            if mask >> deadwood & 1:  # greedy:knock_at=0 never knocks with deadwood itself
                assert verdicts.get((min(turn, chart.spec.turns), deadwood)) == "knock"
