"""sim/study/claims.py: claims read from experiment files, their verdicts on hand-made
data (supported, refuted, too close to call, depends on), the derived hand columns, and
one-line errors for bad claims."""

from __future__ import annotations

import tomllib
from typing import Any

import numpy as np
import polars as pl
import pytest

from sim.study.claims import (
    Cell,
    Claim,
    claims_frame,
    compare_cell,
    derive_columns,
    display_rows,
    evaluate_claims,
    overall_verdict,
    rate_cell,
    verdict_of,
)
from sim.study.design import ExperimentError
from sim.study.experiment_file import experiment_from_dict

BASE = """
name = "c"
seed = 1
deals = 100
duplicate = true
seats = "advice:take_if={t}/greedy"
[grid]
t = [0, 1]
"""
COMPARE = """
[[claims]]
says = "meld only"
source = "Knock Rummy: Tips and Strategy"
treatment = { t = 1 }
control = { t = 0 }
expect = "higher"
"""


def _load(text: str) -> Any:
    return experiment_from_dict(tomllib.loads(text), source="c.toml")


# --- verdicts ----------------------------------------------------------------------------


def test_verdict_of_each_side() -> None:
    assert verdict_of(0.1, 0.5, "higher") == "supported"
    assert verdict_of(-0.5, -0.1, "higher") == "refuted"
    assert verdict_of(-0.1, 0.5, "higher") == "too close to call"
    assert verdict_of(-0.5, -0.1, "lower") == "supported"
    assert verdict_of(0.1, 0.5, "lower") == "refuted"
    # a rate against its level
    assert verdict_of(0.55, 0.6, "above", 0.5) == "supported"
    assert verdict_of(0.55, 0.6, "below", 0.5) == "refuted"
    assert verdict_of(0.45, 0.6, "above", 0.5) == "too close to call"
    assert verdict_of(float("nan"), 1.0, "above", 0.5) == "too close to call"


def test_compare_cells_on_hand_made_differences() -> None:
    """Differences of +1 +- 0.1 support "higher"; of -1 refute it; a symmetric spread
    around 0.05 is too close, with the deals such an effect needs."""
    rng = np.random.default_rng(3)
    up = compare_cell((), 1 + rng.normal(0, 0.1, 200), "higher", "deals")
    assert up.verdict == "supported" and up.low > 0 and up.n == 200
    down = compare_cell((), -1 + rng.normal(0, 0.1, 200), "higher", "deals")
    assert down.verdict == "refuted" and down.high < 0
    close = compare_cell((), np.array([1.05, -0.95] * 50), "higher", "deals")
    assert close.verdict == "too close to call"
    assert close.estimate == pytest.approx(0.05)
    assert "needs about" in close.note and "deals" in close.note


def test_rate_cells_against_a_level() -> None:
    assert rate_cell((), 80, 100, "above", 0.5).verdict == "supported"
    assert rate_cell((), 20, 100, "above", 0.5).verdict == "refuted"
    assert rate_cell((), 20, 100, "below", 0.5).verdict == "supported"
    close = rate_cell((), 52, 100, "above", 0.5)
    assert close.verdict == "too close to call" and "such hands" in close.note
    empty = rate_cell((), 0, 0, "above", 0.5)
    assert empty.verdict == "too close to call" and empty.note == "no hand meets the condition"


def test_overall_verdict_names_what_it_depends_on() -> None:
    def cell(players: int, rule: str, verdict: str) -> Cell:
        return Cell((("players", players), ("variant", rule)), 0.0, 0.0, 0.0, 1, verdict)

    same = [cell(2, "a", "supported"), cell(3, "a", "supported")]
    assert overall_verdict(same) == "supported"
    assert overall_verdict([cell(2, "a", "refuted")]) == "refuted"
    split = [cell(2, "a", "supported"), cell(3, "a", "too close to call")]
    assert overall_verdict(split) == "depends on players"
    both = [cell(2, "a", "supported"), cell(3, "b", "refuted")]
    assert overall_verdict(both) == "depends on players, variant"  # no pair tells them apart
    # a 2 x 2 design where only the variant matters: players is left out
    grid = [cell(2, "a", "supported"), cell(3, "a", "supported"),
            cell(2, "b", "refuted"), cell(3, "b", "refuted")]  # fmt: skip
    assert overall_verdict(grid) == "depends on variant"


# --- evaluation on hand-made settings -------------------------------------------------------


def test_evaluate_pairs_cells_and_takes_differences_in_differences() -> None:
    """Settings (variant x k): the treatment k=0 gains 1 over k=1 under "a" and 3 under
    "b", deal by deal. Plain: supported in both cells. Against baseline "a": +2."""
    points = [{"variant": v, "k": k} for v in ("a", "b") for k in (0, 1)]  # indices: a0, a1, b0, b1
    rng = np.random.default_rng(1)
    noise = rng.normal(0, 1, 500)
    per = {0: noise + 1, 1: noise, 2: noise + 3, 3: noise}

    def values(i: int, metric: str) -> np.ndarray:
        assert metric == "net_points"
        return per[i]

    plain = Claim("p", "s", "src", "higher", (("k", 0),), (("k", 1),))
    did = Claim("d", "s", "src", "higher", (("k", 0),), (("k", 1),), baseline=(("variant", "a"),))
    lower = Claim("l", "s", "src", "lower", (("k", 0),), (("k", 1),))
    results = evaluate_claims(
        [plain, did, lower], points, values, None, unit="deals", headline="net_points", where="x"
    )
    (_, cells, verdict), (_, dcells, dverdict), (_, _, lverdict) = results
    assert verdict == "supported"
    assert [c.label for c in cells] == ["variant=a", "variant=b"]
    assert [c.estimate for c in cells] == pytest.approx([1.0, 3.0])
    assert dverdict == "supported" and len(dcells) == 1
    assert dcells[0].label == "variant=b" and dcells[0].estimate == pytest.approx(2.0)
    assert lverdict == "refuted"
    frame = claims_frame(results, "net_points")
    assert frame.height == 5 and set(frame["metric"]) == {"net_points"}
    rows = display_rows(frame)
    assert rows[0]["verdict"] == "supported" and rows[1]["claim"] == "  variant=a"
    assert rows[1]["effect"] == "+1.00 points per hand (net_points)"


def test_evaluate_rates_per_setting_and_depends_on() -> None:
    """Two player counts: knocks at 6-8 win 9 of 10 at 2 players, 1 of 10 at 3."""

    def hands(i: int) -> pl.LazyFrame:
        won = [True] * 9 + [False] if i == 0 else [True] + [False] * 9
        return pl.LazyFrame({"knocker_deadwood": [7] * 10 + [20], "knocker_won": won + [True]})

    claim = Claim(
        "r", "s", "src", "above", among="knocker_deadwood BETWEEN 6 AND 8",
        event="knocker_won", level=0.5,
    )  # fmt: skip
    points = [{"rule.players": 2}, {"rule.players": 3}]
    ((_, cells, verdict),) = evaluate_claims(
        [claim], points, None, hands, unit="deals", headline="net_points", where="x"
    )
    assert [(c.successes, c.n) for c in cells] == [(9, 10), (1, 10)]
    assert [c.verdict for c in cells] == ["supported", "refuted"]
    assert verdict == "depends on players"  # rule. left out, as in setting labels
    assert [c.label for c in cells] == ["players=2", "players=3"]
    rows = display_rows(claims_frame([(claim, cells, verdict)], "net_points"))
    assert rows[1]["effect"] == "90% vs 50%" and rows[1]["n"] == "9 of 10 hands"


def test_derived_columns_of_a_hand() -> None:
    """Three players, dealer 2 (seat 0 plays first). Hand 1: seat 1 knocks on draw 8
    (its own third turn) with 6 against 6 and 9: a tie. Hand 2: no knock."""
    hands = pl.LazyFrame(
        {
            "dealer": [2, 2],
            "knocker": [1, -1],
            "winner": [0, -1],
            "turns": [8, 30],
            "deadwood_0": [6, 20],
            "deadwood_1": [6, 21],
            "deadwood_2": [9, 22],
            "points_0": [13.0, 0.0],
            "points_1": [-13.0, 0.0],
            "points_2": [0.0, 0.0],
        }
    )
    row, none = derive_columns(hands, 3).collect().iter_rows(named=True)
    assert row["knocker_deadwood"] == 6 and row["least_other_deadwood"] == 6
    assert row["knocker_turn"] == 3 and not row["knocker_won"]
    assert row["knocker_points"] == -13.0 and row["players"] == 3
    assert none["knocker_deadwood"] is None and none["knocker_turn"] is None
    assert not none["knocker_won"]


# --- the file -------------------------------------------------------------------------------


def test_claims_read_from_a_file_and_written_back() -> None:
    exp = _load(BASE + COMPARE)
    (claim,) = exp.claims
    assert claim.name == "claim 1" and claim.kind == "compare"
    assert claim.treatment == (("t", 1),) and claim.expect == "higher"
    assert exp.to_dict()["claims"][0]["control"] == {"t": 0}
    again = experiment_from_dict(exp.to_dict(), source="again")
    assert again.claims == exp.claims


@pytest.mark.parametrize(
    ("extra", "expected"),
    [
        (COMPARE.replace('expect = "higher"', 'expect = "up"'),
         "claims[1].expect = 'up' is not allowed; choose 'higher' or 'lower'"),
        (COMPARE.replace("{ t = 1 }", "{ t = 5 }"),
         "claims[1].treatment: t = 5 is not in the grid; choose from: 0, 1"),
        (COMPARE.replace("{ t = 1 }", "{ k = 1 }"),
         "claims[1].treatment: 'k' is not a grid key; choose from: t"),
        (COMPARE.replace("{ t = 1 }", "{ t = 0 }"),
         "claims[1]: treatment and control are the same settings"),
        (COMPARE.replace('says = "meld only"\n', ""), "claims[1]: says is missing"),
        (COMPARE + "colour = 1\n", "claims[1]: unknown key 'colour'"),
        (COMPARE.replace('expect = "higher"', 'expect = "higher"\nmetric = "score"'),
         "claims[1].metric = 'score' is not allowed; choose one of: net_points, points, win_rate"),
        (COMPARE.replace('expect = "higher"', 'expect = "higher"\nlevel = 0.5'),
         "level do not fit a comparison"),
        ('claims = "x"\n', "claims must be a list of tables"),
        ('[[claims]]\nsays = "s"\nsource = "r"\nevent = "knocker_won"\nexpect = "above"\n'
         'among = "deadwood_9 > 1"\n',
         "claims[1].among = 'deadwood_9 > 1' is not a condition on the hands"),
        ('[[claims]]\nsays = "s"\nsource = "r"\nevent = "knocker_won >> "\nexpect = "above"\n',
         "claims[1].event = 'knocker_won >>' is not a condition on the hands"),
        ('[[claims]]\nsays = "s"\nsource = "r"\nevent = "knocker_won"\nexpect = "above"\n'
         "level = 1.5\n", "claims[1].level = 1.5 is not allowed; give a share between 0 and 1"),
        ('[[claims]]\nname = "a"' + COMPARE[11:] + '[[claims]]\nname = "a"' + COMPARE[11:],
         "claims: the name 'a' is used twice"),
    ],
)  # fmt: skip
def test_bad_claims_are_one_line_errors(extra: str, expected: str) -> None:
    text = BASE + extra if not extra.startswith("claims =") else extra + BASE
    with pytest.raises(ExperimentError) as info:
        _load(text)
    message = str(info.value)
    assert "\n" not in message and message.startswith("c.toml: ")
    assert expected in message, message


def test_claims_need_hand_rows() -> None:
    with pytest.raises(ExperimentError, match="claims need the per-hand rows"):
        _load(BASE.replace("[grid]", 'rows = "none"\n[grid]') + COMPARE)
