"""The strategy charts: the engine's probe against a pure-Python twin, and a chart as a study.

The twin (``tests/reference/chart_ref.py``) plays each deal with the reference engine,
finds the positions from its log with the reference solver and scores each one by
playing the deal again from the start with the focal seat's action forced at the
position (and, for samples after the first, the unseen stock shuffled there): every
position the probe scores must be the twin's, with the same gain in exact units, the
same hand wins and the same choice of the seat itself.
"""

from __future__ import annotations

import shutil

import numpy as np
import polars as pl
import pytest

from kernels import chart as K
from kernels.layout import POINT_SCALE
from sim.rules import get_rules
from sim.stats import mean_ci
from sim.study.chart import knock_chart, load_chart, summarize_cells
from sim.study.chart_cells import ChartSpec, cell_sums, score_deals
from sim.study.execute import Executor
from sim.study.rundir import load_cells
from sim.study.runs import RunError
from tests.reference import strategies_ref as S
from tests.reference.chart_ref import positions_ref
from tests.support.twins import fast_solver


@pytest.mark.parametrize(
    "preset, overrides, spec, deals",
    [
        ("gin", {}, "greedy:knock_at=0/simple", 6),
        ("knock-rummy", {"players": 3}, "greedy:knock_at=12", 5),
        ("oklahoma-gin", {}, "greedy:knock_at=0", 4),
        # Stocks rebuilt face up: after a rebuild the stock's order is public, not resampled.
        (
            "knock-rummy",
            {"players": 4, "stock_exhaustion": "turn_over", "max_rebuilds": 2},
            "greedy:knock_at=1",
            2,
        ),
    ],
)
def test_kernel_matches_twin(preset, overrides, spec, deals, monkeypatch):
    monkeypatch.setattr(S, "SOLVER", fast_solver)
    rules = get_rules(preset, **overrides)
    chart = ChartSpec(samples=3, deadwood=31)
    rows = kernel_rows(rules, spec, deals, chart)
    want = positions_ref(rules, spec, 11, deals, chart)
    assert len(want) >= 3, "too few positions to compare: pick other deals"
    assert rows == want


def kernel_rows(rules, spec: str, deals: int, chart: ChartSpec) -> list[tuple]:
    _, rows, _ = score_deals(rules, spec, 11, 0, deals, chart, np.ones(chart.n_cells))
    return [
        tuple(int(v) for v in row[[K.P_DEAL, K.P_TURN, K.P_COLUMN, K.P_TOOK, K.P_GAIN,
                                   K.P_FIRST_WON, K.P_SECOND_WON, K.P_CARD, K.P_POLICY]])
        for row in rows
    ]  # fmt: skip


DRAW_CASES = [
    ("gin", {}, "greedy/simple", 3),  # the upcard option: the first draw is not charted
    ("knock-rummy", {"players": 4, "max_rebuilds": 1}, "greedy:knock_at=5", 3),
    ("gin", {"ace": "around", "discard_taken_card": True}, "greedy:knock_at=0", 2),
    ("joker-knock", {}, "greedy", 8),
]


def test_draw_chart_kernel_matches_twin(monkeypatch):
    """Draw positions, their card classes and take-vs-draw gains are exactly the
    twin's, in every case; between them the cases meet every card class."""
    monkeypatch.setattr(S, "SOLVER", fast_solver)
    chart = ChartSpec(chart="draw", samples=2, deadwood=0)
    met = set()
    for preset, overrides, spec, deals in DRAW_CASES:
        rules = get_rules(preset, **overrides)
        rows = kernel_rows(rules, spec, deals, chart)
        assert rows == positions_ref(rules, spec, 11, deals, chart), (preset, overrides)
        assert len(rows) >= 10, (preset, overrides)
        met.update(row[2] for row in rows)
    assert met == set(range(K.N_DRAW_CLASSES))


def test_discard_chart_kernel_matches_twin(monkeypatch):
    """Every discard of the focal seat the next seat meets, with its rank, the next
    seat's interest, whether it was taken and what it saved, exactly the twin's."""
    monkeypatch.setattr(S, "SOLVER", fast_solver)
    chart = ChartSpec(chart="discard", samples=0, per_cell=0, deadwood=0, took=2)
    taken = interest = 0
    for preset, overrides, spec, deals in DRAW_CASES:
        rules = get_rules(preset, **overrides)
        rows = kernel_rows(rules, spec, deals, chart)
        assert rows == positions_ref(rules, spec, 11, deals, chart), (preset, overrides)
        taken += sum(row[5] for row in rows)
        interest += sum(row[3] for row in rows)
    assert taken >= 5 and interest >= 3


def test_cells_and_counting_only():
    """A zero rate counts a cell's positions without scoring them; a rate of 1 scores
    every one; cells cap turns and deadwood into their last row and column."""
    rules = get_rules("gin")
    chart = ChartSpec(samples=2, turns=5, deadwood=6)
    counted, none, _ = score_deals(
        rules, "greedy:knock_at=0", 2, 0, 40, chart, np.zeros(chart.n_cells)
    )
    scored, rows, _ = score_deals(
        rules, "greedy:knock_at=0", 2, 0, 40, chart, np.ones(chart.n_cells)
    )
    assert len(none) == 0 and counted.sum() == scored.sum() == len(rows) > 0
    assert rows[:, K.P_TURN].max() > 5 and rows[:, K.P_COLUMN].max() > 5
    turn = np.minimum(rows[:, K.P_TURN], 5) - 1
    deadwood = np.minimum(rows[:, K.P_COLUMN], 5)
    assert (rows[:, K.P_CELL] == turn * 6 + deadwood).all()


def test_summary_is_exact_statistics_of_positions():
    """The cell statistics from integer sums equal plain statistics of the per-position
    mean gains (points per hand)."""
    rules = get_rules("gin")
    chart = ChartSpec(samples=4)
    eligible, rows, _ = score_deals(
        rules, "greedy:knock_at=0", 5, 0, 300, chart, np.ones(chart.n_cells)
    )
    sums = cell_sums(eligible, rows, chart)
    index = np.arange(chart.n_cells)
    raw = pl.DataFrame(
        {"turn": index // 11 + 1, "deadwood": index % 11, "took": 0 * index, **sums}
    ).filter(pl.col("eligible") > 0)
    cells = summarize_cells(raw, chart, 2, min_positions=5)
    assert cells["positions"].sum() == len(rows)
    busiest = cells.sort("positions", descending=True).row(0, named=True)
    mask = (rows[:, K.P_TURN] == busiest["turn"]) & (rows[:, K.P_COLUMN] == busiest["deadwood"])
    values = rows[mask, K.P_GAIN] / (4 * POINT_SCALE)
    plain = mean_ci(values)
    assert busiest["gain"] == pytest.approx(plain.estimate, abs=1e-12)
    assert busiest["gain_low"] == pytest.approx(plain.low, abs=1e-9)
    assert busiest["knock_win"] == rows[mask, K.P_FIRST_WON].sum() / (4 * mask.sum())
    for row in cells.iter_rows(named=True):
        if row["positions"] < 5:
            assert row["verdict"] == "too few"
        elif row["gain_low"] > 0:
            assert row["verdict"] == "knock"
        elif row["gain_high"] < 0:
            assert row["verdict"] == "play on"
        else:
            assert row["verdict"] == "too close"


# --- the study ----------------------------------------------------------------------


SMALL = {"deals": 240, "seed": 4, "samples": 2, "per_cell": 1, "pilot": 240}
ONE = Executor(workers=1)  # one worker thread


def _raw(run_dir) -> pl.DataFrame:
    keys = ["turn", "deadwood", "took"]
    return (
        load_cells(run_dir)
        .group_by(keys)
        .agg(pl.col("eligible", "positions", "gain_sum", "gain_sq", "knock_won", "play_won").sum())
        .sort(keys)
    )


def test_same_sums_for_any_chunking_and_workers(tmp_path):
    """Thinned cells (per_cell 1), chunks of 240, 50 or 37 deals, one or two workers:
    the same per-cell sums and the same chart."""
    charts = [
        knock_chart(
            "gin",
            "greedy:knock_at=0",
            out=tmp_path / name,
            chunk_size=size,
            executor=Executor(workers=workers),
            **SMALL,
        )  # fmt: skip
        for name, size, workers in (("a", 240, 1), ("b", 50, 2), ("c", 37, 1))
    ]
    first = _raw(charts[0].run_dir)
    assert first["positions"].sum() < first["eligible"].sum()  # thinning happened
    for chart in charts[1:]:
        assert _raw(chart.run_dir).equals(first)
        assert chart.cells.equals(charts[0].cells)


def test_resume_plays_only_missing_chunks(tmp_path):
    options = {"out": tmp_path, "chunk_size": 60, "executor": ONE, **SMALL}
    chart = knock_chart("gin", "greedy:knock_at=0", **options)
    assert chart.result.chunks_run == 4
    (chart.run_dir / "chunks" / "chunk-000002.json").unlink()
    shutil.rmtree(chart.run_dir / "cells")
    again = knock_chart("gin", "greedy:knock_at=0", **options)
    assert again.run_dir == chart.run_dir
    assert again.result.chunks_run == 4  # the parts were gone: every chunk played again
    (again.run_dir / "chunks" / "chunk-000001.json").unlink()
    last = knock_chart("gin", "greedy:knock_at=0", **options)
    assert last.result.chunks_run == 1
    assert last.cells.equals(chart.cells)
    assert load_chart(chart.run_dir).cells.equals(chart.cells)


def test_deadwood_columns_follow_the_knock_limit():
    from sim.study.chart import chart_spec

    assert chart_spec(get_rules("knock-rummy")).deadwood == 52  # 0 .. 50, "51 or more"
    assert chart_spec(get_rules("gin")).deadwood == 11
    assert chart_spec(get_rules("oklahoma-gin")).deadwood == 11


@pytest.mark.parametrize(
    "kwargs, message",
    [
        ({"deals": 0}, "deals=0"),
        ({"focal": 2}, "focal=2"),
        ({"samples": 0}, "samples=0"),
        ({"turns": 0}, "turns=0"),
        ({"round": -1}, "round=-1"),
    ],
)
def test_bad_values_are_one_line_errors(tmp_path, kwargs, message):
    args = {"deals": 10, "seed": 1, "out": tmp_path, **kwargs}
    with pytest.raises(RunError, match=message):
        knock_chart("gin", "greedy", **args)
    assert not any(tmp_path.iterdir())  # refused before anything was written


@pytest.mark.parametrize(
    "chart, preset, overrides, spec",
    [("knock", "gin", {}, "greedy:knock_at=0/simple"),
     ("draw", "knock-rummy", {"players": 4, "max_rebuilds": 1}, "greedy:knock_at=5"),
     ("discard", "gin", {}, "greedy")],
)  # fmt: skip
def test_the_probe_leaves_the_real_play_unchanged(chart, preset, overrides, spec):
    """Counting, scoring (branches played and the state restored) or counting discards:
    every hand's row is the one a plain run plays."""
    from sim.engine import play_deals

    rules = get_rules(preset, **overrides)
    settings = ChartSpec(chart=chart, samples=0 if chart == "discard" else 3, deadwood=31)
    _, rows, cols = score_deals(rules, spec, 4, 0, 150, settings, np.ones(settings.n_cells))
    plain = play_deals(rules, spec, deals=150, seed=4, threads=1)
    assert len(rows) > 20
    for field in cols._fields:
        assert np.array_equal(getattr(cols, field), getattr(plain, field)), field
