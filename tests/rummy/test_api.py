"""The notebook API: its numbers are the study tables' numbers, in the units it names.

Every study plays a few hundred deals for real, in this process; each check compares
the API's answer with what the same folder's hand rows, or the engine itself, say.
"""

from __future__ import annotations

import math
from pathlib import Path

import numpy as np
import polars as pl
import pytest

import rummy
from rummy.results import Estimate
from sim.engine import game_points, play_deals
from sim.study import load_hands
from sim.study.records import write_sealed

SEATS = "greedy:knock_at=7/simple"


def test_an_estimate_prints_the_digits_its_interval_supports() -> None:
    assert str(Estimate(0.4123, 0.0912, 0.7334, "points per hand")) == (
        "0.41 [0.09, 0.73] points per hand"
    )
    assert str(Estimate(31.7, 12.2, 51.9, "points per game")) == "32 [12, 52] points per game"
    assert str(Estimate(0.30801, 0.2553, 0.3662, "share of hands")) == "30.8% [25.5, 36.6]"
    assert str(Estimate(0.5, 0.25, 0.75, "points per deal", difference=True)) == (
        "+0.50 [0.25, 0.75] points per deal"
    )
    assert str(Estimate(math.nan, math.nan, math.nan, "points per hand")) == "-"
    assert Estimate(1.0, 0.2, 1.8, "x").excludes_zero
    assert not Estimate(1.0, -0.2, 1.8, "x").excludes_zero


@pytest.fixture(scope="module")
def played(tmp_path_factory: pytest.TempPathFactory) -> rummy.results.PlayResult:
    out = tmp_path_factory.mktemp("api")
    return rummy.play(SEATS, deals=600, seed=7, out=out, progress=False)


def test_play_reports_the_hand_rows_in_game_points(played: rummy.results.PlayResult) -> None:
    hands = load_hands(played.directory).collect()
    assert played.hands == hands.height == 600 and played.seed == 7
    for seat in played.seats:
        mean = hands[f"points_{seat.seat}"].mean()
        assert seat.points.value == pytest.approx(mean)
        assert seat.points.low < seat.points.value < seat.points.high
        assert seat.points.unit == "points per hand"
    assert [s.strategy for s in played.seats] == ["greedy:knock_at=7", "simple"]
    assert sum(e.value for e in played.outcomes.values()) == pytest.approx(1.0)
    assert played.hand_rows().collect().equals(hands)


def test_game_points_turn_the_engines_units_into_the_tables_points(
    played: rummy.results.PlayResult,
) -> None:
    """The engine's columns (1/60 point) for the same rules, line-up, seed and deals."""
    cols = play_deals("gin", SEATS, deals=600, seed=7)
    hands = load_hands(played.directory).collect().sort("deal")
    for seat in (0, 1):
        raw = cols.points[:, seat]
        assert np.array_equal(game_points(raw), hands[f"points_{seat}"].to_numpy())
        assert not np.array_equal(raw.astype(np.float64), hands[f"points_{seat}"].to_numpy())


def test_load_reads_a_run_back_as_play_returned_it(played: rummy.results.PlayResult) -> None:
    loaded = rummy.load(played.directory)
    assert isinstance(loaded, rummy.results.PlayResult)
    assert loaded.seats == played.seats and loaded.outcomes == played.outcomes


def test_load_refuses_what_it_cannot_read_in_one_line(tmp_path: Path) -> None:
    """A folder that holds no study, a damaged record (a solve's) and an unfinished
    study (a tune with only its request, a solve between rounds): one line naming the
    folder or the record."""
    tuned = rummy.tune("greedy", ["knock_at=8..9"], against="simple", deals=200, seed=2,
                       out=tmp_path, progress=False)  # fmt: skip
    (tuned.directory / "tune.json").unlink()  # as if stopped before its analysis
    with pytest.raises(ValueError, match=r"^path=.*request\.json") as unfinished:
        rummy.load(tuned.directory)
    (tmp_path / "solve").mkdir()
    (tmp_path / "solve" / "solve.json").write_text('{"sha256": "x"}')  # sealed, as solve's
    with pytest.raises(ValueError, match=r"^path=.*solve\.json: its digest does not match"):
        rummy.load(tmp_path / "solve")
    write_sealed(tmp_path / "solve" / "solve.json", {"settings": {}, "rounds": []})
    with pytest.raises(ValueError, match=r"^path=.*is an unfinished solve"):
        rummy.load(tmp_path / "solve")
    with pytest.raises(ValueError, match=r"^path=.*not a results directory"):
        rummy.load(tmp_path)
    assert "\n" not in str(unfinished.value)


def test_compare_difference_is_the_sides_difference(tmp_path: Path) -> None:
    c = rummy.compare(SEATS, "greedy/simple", deals=400, seed=5, out=tmp_path, progress=False)
    assert c.difference.value == pytest.approx(c.a_net.value - c.b_net.value)
    assert c.difference.unit == c.a_net.unit == "points per hand"
    assert c.difference.low < c.difference.value < c.difference.high
    assert 0.0 <= c.p_value <= 1.0 and c.directory.is_dir()


def test_sweep_marks_one_best_with_the_summarys_numbers(tmp_path: Path) -> None:
    s = rummy.sweep("greedy:knock_at={k}/simple", {"k": [2, 10]}, deals=300, seed=3,
                    out=tmp_path, progress=False)  # fmt: skip
    best = s.best()
    row = s.summary.filter(pl.col("best")).row(0, named=True)
    assert (best.setting, best.headline.value) == (row["setting"], row["estimate"])
    other = next(x for x in s.settings if not x.best)
    assert other.vs_best is not None and other.vs_best.value < 0  # net points: higher wins
    assert s.directory.is_relative_to(tmp_path) and s.directory.is_dir() and s.verdicts


def test_arrangement_speaks_card_text() -> None:
    a = rummy.arrangement("AS 2S 3S 7C 7D 7H 9C TC JD QH")
    assert a.meld_cards == ["7C 7D 7H", "AS 2S 3S"]
    assert a.unmatched_cards == "9C TC JD QH"
    assert a.text == "7C 7D 7H | AS 2S 3S | unmatched 9C TC JD QH | deadwood 39"
    assert a.melds[1] == [39, 40, 41]  # the indices (bit suit * 13 + rank) stay


def test_progress_is_shown_unless_asked_not_to(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    rummy.play(SEATS, deals=300, seed=9, out=tmp_path, progress=False)
    assert capsys.readouterr().err == ""
    rummy.play(SEATS, deals=300, seed=10, out=tmp_path)
    assert "default" in capsys.readouterr().err  # the bar, labelled by the study


def test_bad_input_is_one_line_before_anything_is_written(tmp_path: Path) -> None:
    out = tmp_path / "never"
    with pytest.raises(ValueError, match="deals=10, games=10: give one, not both"):
        rummy.play(SEATS, deals=10, games=10, out=out, progress=False)
    with pytest.raises(ValueError, match="nosuch"):
        rummy.play("nosuch/simple", deals=10, out=out, progress=False)
    with pytest.raises(ValueError, match="unknown preset"):
        rummy.compare(SEATS, "simple", rules="no-such-rules", deals=10, out=out, progress=False)
    assert not out.exists()
