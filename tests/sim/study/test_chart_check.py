"""A chart checks itself: its predicted single-cell deviations against the same deviations
played on fresh deals; a chart whose numbers are off is caught; the engine's forced
action is what a strategy making that deviation plays."""

from __future__ import annotations

import numpy as np
import pytest

from kernels.chart import cell_of
from kernels.probe import FORCE_FIRST, FORCE_NONE
from sim.engine import play_deals
from sim.rules import get_rules
from sim.stats import Interval
from sim.study import chart_check
from sim.study.chart import knock_chart
from sim.study.chart_cells import ChartSpec, score_deals
from sim.study.chart_check import (
    CellCheck,
    ChartCheck,
    check_chart,
    checked,
    load_check,
    predictions,
)
from sim.study.execute import Executor
from sim.study.records import write_sealed
from sim.study.runs import RunError
from strategies import BUILTINS, format_seat
from tests.strategies.test_chart_strategy import hand_table

POLICY = "greedy:knock_at=0"


@pytest.fixture(scope="module")
def chart(tmp_path_factory: pytest.TempPathFactory):
    out = tmp_path_factory.mktemp("check")
    return knock_chart("gin", POLICY, deals=30_000, seed=7, samples=8, per_cell=300,
                       pilot=10_000, turns=12, out=out, executor=Executor(workers=1))  # fmt: skip


def test_predictions_agree_with_play(chart) -> None:
    """The four cells of largest predicted effect and one named cell (turn 6, deadwood
    6: knocking there pays against a player who waits for gin) agree with the gains
    measured on 30,000 fresh deals; the named one is positive both ways. Each counts
    the fresh deals that met it."""
    check = check_chart(chart, cells=4, deals=30_000, at=[(6, 6)], threads=2)
    assert len(check.cells) == 5 and not check.misses, check.frame()
    named = check.cells[0]
    assert (named.turn, named.column, named.action) == (6, 6, "knock")
    assert named.predicted.low > 0 and named.measured.low > 0
    assert check.first == 30_000  # fresh: after the chart's deals
    # met: the fresh deals that met the cell, about as often as the chart's deals did
    for c in check.cells:
        expected = c.reach * 30_000
        assert 0 < c.met and abs(c.met - expected) < 5 * np.sqrt(expected) + 5, c


def test_each_rank_plays_the_cells_it_names(chart) -> None:
    """``effect``: the largest predicted magnitudes; ``gain``: the largest predicted
    gains; ``upper``: the largest upper ends of the gains' intervals. A bad rank is one
    line naming the allowed ones."""
    predicted = predictions(chart)
    for rank, order in (("effect", predicted["predicted"].abs()), ("gain", predicted["predicted"]),
                        ("upper", predicted["predicted_high"])):  # fmt: skip
        check = check_chart(chart, cells=2, deals=200, rank=rank)
        top = sorted(order.to_list(), reverse=True)[:2]
        chosen = [
            order[next(i for i, r in enumerate(predicted.iter_rows(named=True))
                       if (r["turn"], r["deadwood"]) == (c.turn, c.column))]
            for c in check.cells
        ]  # fmt: skip
        assert chosen == top, rank
    allowed = "rank='most' is not allowed; choose one of: effect, gain, upper"
    with pytest.raises(RunError, match=allowed):
        check_chart(chart, cells=2, deals=200, rank="most")


def test_a_chart_with_wrong_gains_is_caught(chart, monkeypatch: pytest.MonkeyPatch) -> None:
    """Gains three times too large: the predictions miss, and the check says so."""
    totals = chart_check.cell_totals(chart)

    def tripled(_chart):
        out = {}
        for key, (e, n, g, g2, w1, w2, f, fs, fq) in totals.items():
            out[key] = [e, n, 3 * g, 9 * g2, w1, w2, f, 3 * fs, 9 * fq]
        return out

    monkeypatch.setattr(chart_check, "cell_totals", tripled)
    check = check_chart(chart, cells=3, deals=30_000, threads=2)
    assert len(check.misses) == 3


def test_agreement_holds_over_the_judged_cells_and_unjudged_cells_do_not_count() -> None:
    """Two standard errors out is a miss for one cell, not among five (95% over the
    judged cells together); a cell no fresh deal met (0 with no spread) is not reached,
    and one met by fewer than MIN_MET fresh deals is too rare: neither is a miss nor an
    agreement, nor counts in z, however far out its measurement lies."""

    def cell(predicted: float, measured: Interval, met: int = 500) -> CellCheck:
        se = 0.01
        p = Interval(predicted, predicted - 1.96 * se, predicted + 1.96 * se, "normal")
        return CellCheck(2, 5, 0, "knock", 0.01, 100, met, 1.0, p, measured)

    # prediction and measurement 2.2 combined standard errors apart
    near_miss = cell(0.0, Interval(0.0311, 0.0311 - 0.0196, 0.0311 + 0.0196, "t"))
    agreeing = cell(0.01, Interval(0.01, 0.0, 0.02, "t"))
    unreached = cell(0.00002, Interval(0.0, 0.0, 0.0, "t"), met=0)
    rare = cell(0.5, Interval(0.0, -0.001, 0.001, "t"), met=chart_check.MIN_MET - 1)
    alone = ChartCheck(0, 1000, (near_miss,))
    assert alone.misses == [near_miss] and "MISS" in alone.summary()
    family = ChartCheck(0, 1000, (near_miss,) + (agreeing,) * 4 + (unreached, rare))
    assert family.misses == [] and family.unjudged == [unreached, rare]
    assert family.verdict(unreached) == "not reached" and family.verdict(near_miss) == "agrees"
    assert family.verdict(rare) == "too rare"
    assert family.z == pytest.approx(2.5758, abs=1e-4)  # five judged cells
    summary = family.summary()
    assert "all 5 predictions agree" in summary and "1 cell(s) not reached" in summary
    assert "1 cell(s) too rare to judge (met by fewer than 30 fresh deals)" in summary
    assert "the one prediction judged agrees" in ChartCheck(0, 1000, (agreeing, rare)).summary()
    met_enough = cell(0.5, Interval(0.0, -0.001, 0.001, "t"), met=chart_check.MIN_MET)
    assert ChartCheck(0, 1000, (met_enough,)).misses == [met_enough]


def test_the_check_is_saved_and_read_back(chart) -> None:
    first = checked(chart, cells=2, deals=2_000, threads=1)
    settings = {"cells": 2, "deals": 2_000, "rank": "effect", "min_met": 30, "at": []}
    again = load_check(chart, settings)
    assert again is not None and again.to_dict() == first.to_dict()
    assert load_check(chart, {**settings, "cells": 3}) is None
    # A check saved before cells counted their fresh deals (no "met", no "min_met"): not
    # read (the report shows none), and the chart command's check plays it again.
    old = first.to_dict()
    old["cells"] = [{k: v for k, v in c.items() if k != "met"} for c in old["cells"]]
    old_settings = {k: v for k, v in settings.items() if k != "min_met"}
    write_sealed(chart.run_dir / "check.json", {"settings": old_settings, **old})
    assert load_check(chart) is None and load_check(chart, old_settings) is None
    assert checked(chart, cells=2, deals=2_000, threads=1).to_dict() == first.to_dict()
    assert load_check(chart) is not None  # played again and saved


def test_no_prediction_for_the_last_row_or_a_discard_chart(chart) -> None:
    """The last row is "that turn or later": a hand meets it more than once."""
    assert predictions(chart)["turn"].max() < chart.spec.turns


def test_a_forced_knock_plays_as_a_strategy_that_knocks_there() -> None:
    """Greedy waiting for gin, but knocking at deadwood 6 on its own turn 6: the engine's
    forced action and a chart seat with that one extra knock bit play identical hands."""
    spec = ChartSpec(samples=1, turns=20, deadwood=11)
    force = np.full(spec.n_cells, FORCE_NONE, np.int64)
    force[cell_of(6, 6, 0, spec.turns, spec.n_columns, spec.took)] = FORCE_FIRST
    _, _, forced = score_deals(
        get_rules("gin"), (POLICY, POLICY), 3, 0, 3000, spec, np.zeros(spec.n_cells), force
    )
    knocks = {f"k{t}": 1 | (1 << 6 if t == 6 else 0) for t in range(1, 21)}
    takes = {f"t{t}": 128 for t in range(1, 21)}  # greedy's pile test
    chart_params = BUILTINS["chart"].defaults()._replace(**knocks, **takes, safety=0)
    seat = format_seat(BUILTINS["chart"], chart_params)
    played = play_deals("gin", f"{seat}/{POLICY}", deals=3000, seed=3)
    plain = play_deals("gin", f"{POLICY}/{POLICY}", deals=3000, seed=3)
    assert hand_table(forced) == hand_table(played) != hand_table(plain)
