"""sim/stats/frames.py: per-seat summaries, the outcome mix and group means and rates,
on a small made-up frame and on hands the engine played."""

from __future__ import annotations

import numpy as np
import polars as pl
import pytest

from kernels.layout import OUTCOME_LABELS, POINT_SCALE
from sim import stats
from sim.stats import paired_difference, wilson
from tests.support.twins import hands_frame


@pytest.fixture(scope="module")
def engine_hands():
    from sim.engine import play_deals

    cols = play_deals("gin", ["greedy", "simple"], deals=400, seed=3, threads=1)
    return cols, hands_frame(cols)


def _synthetic() -> pl.DataFrame:
    return pl.DataFrame(
        {
            "variant": ["v1"] * 4 + ["v2"] * 2,
            "winner": [0, 1, 0, -1, 1, 1],
            "knocker": [0, 0, 1, -1, 1, 0],
            "outcome": ["knock_win", "undercut", "undercut", "dead_hand", "gin", "knock_win"],
            "turns": [10, 12, 8, 30, 5, 7],
            "points_0": [10.0, 0.0, 25.0, 0.0, 0.0, 0.0],
            "points_1": [0.0, 30.0, 0.0, 0.0, 45.0, 12.0],
        }
    )


def test_seat_summary_synthetic():
    s = stats.seat_summary(_synthetic())
    assert s["seat"].to_list() == [0, 1] and s["hands"].to_list() == [6, 6]
    seat0 = s.row(0, named=True)
    assert seat0["win_rate"] == pytest.approx(2 / 6)
    assert seat0["points"] == pytest.approx(35 / 6)
    assert seat0["net"] == pytest.approx((35 - 87) / 6)
    assert seat0["knock_rate"] == pytest.approx(3 / 6)
    assert seat0["undercut_rate"] == pytest.approx(1 / 6)
    assert s.row(1, named=True)["gin_rate"] == pytest.approx(1 / 6)
    assert seat0["rate_method"] == "Wilson" and seat0["points_method"] == "t"
    iv = wilson(2, 6)
    assert (seat0["win_low"], seat0["win_high"]) == pytest.approx((iv.low, iv.high))
    grouped = stats.seat_summary(_synthetic().lazy(), by=["variant"])
    assert grouped.select("variant", "seat").rows() == [("v1", 0), ("v1", 1), ("v2", 0), ("v2", 1)]
    assert grouped.filter((pl.col("variant") == "v2") & (pl.col("seat") == 1))["win_rate"][0] == 1.0


def test_outcome_mix_synthetic():
    mix = stats.outcome_mix(_synthetic(), by=["variant"])
    assert mix.height == 2 * len(OUTCOME_LABELS)
    assert mix.filter(pl.col("variant") == "v1")["outcome"].to_list() == list(OUTCOME_LABELS)
    sums = mix.group_by("variant").agg(pl.col("share").sum())
    assert sums["share"].to_list() == pytest.approx([1.0, 1.0])
    v1_under = mix.filter((pl.col("variant") == "v1") & (pl.col("outcome") == "undercut")).row(
        0, named=True
    )
    assert v1_under["count"] == 2 and v1_under["hands"] == 4 and v1_under["method"] == "Wilson"
    # integer outcome codes are read as labels too
    codes = _synthetic().with_columns(
        pl.col("outcome").replace_strict(list(OUTCOME_LABELS), list(range(8)), return_dtype=pl.Int8)
    )
    assert (
        stats.outcome_mix(codes)["count"].to_list()
        == stats.outcome_mix(_synthetic())["count"].to_list()
    )


def test_summaries_on_engine_hands(engine_hands):
    cols, df = engine_hands
    s = stats.seat_summary(df)
    assert stats.players_of(df) == 2
    for seat in (0, 1):
        row = s.row(seat, named=True)
        assert row["hands"] == len(cols.outcome)
        assert row["win_rate"] == pytest.approx(float(np.mean(cols.winner == seat)))
        assert row["points"] == pytest.approx(cols.points[:, seat].mean() / POINT_SCALE)
        assert row["points_low"] <= row["points"] <= row["points_high"]
    # two seats: the nets are opposite
    assert s["net"][0] == pytest.approx(-s["net"][1])
    mix = stats.outcome_mix(df)
    assert (
        mix["count"].to_list() == np.bincount(cols.outcome, minlength=len(OUTCOME_LABELS)).tolist()
    )
    # a paired comparison of the two seats' points on the same deals
    c = paired_difference(df["points_0"].to_numpy(), df["points_1"].to_numpy())
    assert c.mean_diff == pytest.approx(s["net"][0])
