"""sim/stats/comparisons.py: paired tests against known p-values, variance reduction,
Holm's adjustment worked by hand, and the verdict of a sweep (best vs runner-up)."""

from __future__ import annotations

import math

import numpy as np
import pytest

from sim import stats
from sim.stats import (
    Moments,
    best_vs_runner_up,
    holm,
    paired_difference,
    variance_reduction,
)
from tests.support.numeric import t_sf_numeric

# --- paired comparisons -----------------------------------------------------------------


def test_paired_difference_known_p_value():
    a = np.array([3.0, 5.0, 7.0, 9.0, 11.0])
    b = np.array([2.0, 3.0, 4.0, 5.0, 6.0])  # differences 1..5
    c = paired_difference(a, b, label_a="A", label_b="B")
    assert c.method == "paired t" and c.n == 5
    assert c.mean_diff == pytest.approx(3.0) and c.sd == pytest.approx(math.sqrt(2.5))
    assert c.t == pytest.approx(3.0 / math.sqrt(0.5))
    assert c.p_value == pytest.approx(2 * t_sf_numeric(c.t, 4.0), rel=1e-6)
    assert c.p_value == pytest.approx(0.013236, abs=1e-6)
    assert "A - B" in str(c) and c.significant(0.05) and not c.significant(0.01)


def test_paired_difference_at_table_critical_value_gives_p_005():
    z = np.array([-1.5, -1.0, -0.5, -0.2, 0.0, 0.1, 0.3, 0.6, 1.0, 1.2])
    z = (z - z.mean()) / z.std(ddof=1)  # mean 0, sd 1
    diffs = z + 2.262157163 / math.sqrt(10)  # t = t_{0.975, 9}
    c = stats.difference_test(diffs)
    assert c.p_value == pytest.approx(0.05, abs=1e-7)
    assert c.ci.low == pytest.approx(0.0, abs=1e-7)  # the CI just touches 0
    # the same from streamed moments
    assert stats.difference_test(Moments.of(diffs)).p_value == pytest.approx(c.p_value, rel=1e-12)


def test_paired_difference_degenerate():
    same = paired_difference([1, 2, 3], [1, 2, 3])
    assert same.p_value == 1.0 and same.mean_diff == 0.0
    shifted = paired_difference([2, 3, 4], [1, 2, 3])
    assert shifted.p_value == 0.0
    with pytest.raises(ValueError):
        paired_difference([1, 2], [1, 2, 3])


def test_variance_reduction():
    rng = np.random.default_rng(3)
    plain = rng.normal(0.5, 2.0, size=1000)
    vr = variance_reduction(plain, plain / 2.0, cost=2.0)
    assert vr.ratio == pytest.approx(0.25) and vr.factor == pytest.approx(4.0)
    assert vr.efficiency == pytest.approx(2.0) and vr.reduction == pytest.approx(0.75)
    assert "75.0% less" in str(vr)
    assert variance_reduction(Moments.of(plain), Moments.of(plain)).factor == pytest.approx(1.0)


# --- multiple comparisons ----------------------------------------------------------------


def test_holm_hand_worked():
    # sorted: .005*4=.02, .01*3=.03, .03*2=.06, .04*1=.04 -> monotone .06
    assert holm([0.01, 0.04, 0.03, 0.005]) == pytest.approx([0.03, 0.06, 0.06, 0.02])
    assert holm([0.5, 0.9]) == pytest.approx([1.0, 1.0])  # 2 x 0.5 caps at 1; monotone
    assert holm([0.2, 0.01, 0.04]) == pytest.approx([0.2, 0.03, 0.08])
    out = holm([0.01, math.nan, 0.02])
    assert out[0] == pytest.approx(0.02) and math.isnan(out[1]) and out[2] == pytest.approx(0.02)
    assert holm([]).size == 0


def test_best_vs_runner_up_arrays():
    rng = np.random.default_rng(4)
    deal_luck = rng.normal(0.0, 5.0, size=3000)  # common deals: shared noise cancels
    values = {
        "k=4": deal_luck + 1.00 + rng.normal(0, 1, 3000),
        "k=5": deal_luck + 0.98 + rng.normal(0, 1, 3000),  # a hair worse: a tie
        "k=9": deal_luck + 0.00 + rng.normal(0, 1, 3000),
    }
    v = best_vs_runner_up(values)
    assert {v.best, v.runner_up} == {"k=4", "k=5"}
    assert not v.significant and "not significantly" in v.summary()
    assert "k=9" in v.beaten and len(v.comparisons) == 2 and "Holm" in v.method
    assert v.table().height == 3
    values["k=5"] = deal_luck + 0.5 + rng.normal(0, 1, 3000)
    v2 = best_vs_runner_up(values)
    assert v2.best == "k=4" and v2.runner_up == "k=5" and v2.significant
    assert v2.adjusted_p[0] >= v2.comparisons[0].p_value
    low = best_vs_runner_up(values, higher_is_better=False)
    assert low.best == "k=9"


def test_best_vs_runner_up_streamed_differences():
    values = {"a": Moments(1000, 2.0, 4.0 * 999), "b": Moments(1000, 1.0, 4.0 * 999)}
    diffs = {("b", "a"): Moments(1000, -1.0, 1.0 * 999)}  # given the other way round
    v = best_vs_runner_up(values, diffs)
    assert v.best == "a" and v.comparisons[0].mean_diff == pytest.approx(1.0) and v.significant
    with pytest.raises(ValueError):
        best_vs_runner_up(values)  # moments alone cannot be paired
    single = best_vs_runner_up({"only": [1.0, 2.0]})
    assert single.runner_up is None and not single.significant
