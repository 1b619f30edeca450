"""sim/stats/estimates.py: Wilson intervals against textbook values and their formula,
t intervals of means, streamed moments against one pass, the bootstrap, planning n."""

from __future__ import annotations

import math

import numpy as np
import pytest
import scipy.stats as scipy_stats
from hypothesis import given, settings
from hypothesis import strategies as st

from sim import stats
from sim.stats import Moments, mean_ci, wilson
from tests.support.numeric import close

# --- Wilson ------------------------------------------------------------------------------


# Newcombe (1998), Statistics in Medicine 17:857-872, Table I, method 3 (score).
@pytest.mark.parametrize(
    ("x", "n", "low", "high"),
    [
        (81, 263, 0.2553, 0.3662),
        (15, 148, 0.0624, 0.1605),
        (0, 20, 0.0, 0.1611),
        (1, 29, 0.0061, 0.1718),
    ],
)
def test_wilson_textbook_values(x, n, low, high):
    iv = wilson(x, n)
    assert iv.method == "Wilson"
    assert iv.estimate == pytest.approx(x / n)
    assert iv.low == pytest.approx(low, abs=5e-5)
    assert iv.high == pytest.approx(high, abs=5e-5)
    assert "95% Wilson" in str(iv)


def test_wilson_edges():
    assert (
        wilson(0, 0).low == 0.0 and wilson(0, 0).high == 1.0 and math.isnan(wilson(0, 0).estimate)
    )
    assert wilson(10, 10).high == 1.0 and wilson(10, 10).low < 1.0
    wide = wilson(50, 100, 0.99)
    assert wide.low < wilson(50, 100).low and wide.confidence == 0.99
    with pytest.raises(ValueError):
        wilson(5, 3)
    with pytest.raises(ValueError):
        wilson(1, 3, confidence=1.0)


# --- means and moments ---------------------------------------------------------------------


def test_mean_ci_known_value_and_three_inputs():
    x = np.array([1.0, 2.0, 3.0, 4.0, 5.0])
    iv = mean_ci(x)
    assert iv.method == "t" and iv.n == 5
    half = 2.776445105 * math.sqrt(2.5 / 5)
    assert (iv.low, iv.high) == pytest.approx((3 - half, 3 + half), abs=1e-8)
    assert mean_ci(Moments.of(x)) == iv
    from_sums = mean_ci((5, x.sum(), (x * x).sum()))
    assert (from_sums.low, from_sums.high) == pytest.approx((iv.low, iv.high), abs=1e-12)
    normal = mean_ci(x, method="normal")
    assert normal.method == "normal" and normal.half_width < iv.half_width
    assert math.isnan(mean_ci([3.0]).low) and mean_ci([3.0]).estimate == 3.0


@settings(max_examples=80, deadline=None, derandomize=True)
@given(
    values=st.lists(st.floats(-1e4, 1e4, allow_nan=False), min_size=1, max_size=200),
    cuts=st.lists(st.integers(0, 200), max_size=6),
)
def test_moments_merge_equals_one_pass(values, cuts):
    x = np.array(values)
    edges = sorted({0, len(x), *(min(c, len(x)) for c in cuts)})
    parts = [Moments.of(x[a:b]) for a, b in zip(edges[:-1], edges[1:], strict=True)]
    merged = Moments.combine(parts)
    reversed_merge = Moments.combine(reversed(parts))
    assert merged.n == len(x)
    scale = max(1.0, float(np.abs(x).max()))
    assert merged.mean == pytest.approx(x.mean(), abs=1e-12 * scale)
    m2 = float(((x - x.mean()) ** 2).sum())
    assert merged.m2 == pytest.approx(m2, rel=1e-9, abs=1e-9 * scale * scale)
    assert reversed_merge.m2 == pytest.approx(m2, rel=1e-9, abs=1e-9 * scale * scale)


def test_moments_properties():
    x = np.arange(10.0)
    m = Moments.of(x)
    assert m.variance == pytest.approx(np.var(x, ddof=1)) and m.total == pytest.approx(45.0)
    assert m.total_sq == pytest.approx(float((x * x).sum()))
    assert (Moments() + m) == m and m.add([]) == m
    with pytest.raises(ValueError):
        Moments.of([1.0, math.nan])
    # integer sums (chunk summaries in 1/60 units) are exact even with a large mean
    units = np.array([6_000_000_001, 6_000_000_003, 6_000_000_008], dtype=np.int64)
    exact = Moments.from_sums(3, int(units.sum()), sum(int(u) ** 2 for u in units))
    assert exact.mean == pytest.approx(6_000_000_004.0) and exact.m2 == pytest.approx(26.0)
    assert exact.scaled(1 / 60).variance == pytest.approx(13.0 / 3600)


def test_needed_for_half_width():
    rng = np.random.default_rng(2)
    m = Moments.of(rng.normal(0.0, 4.0, size=50))
    target = 0.5
    n = stats.needed_for_half_width(m, target)
    planned = Moments(n, m.mean, m.variance * (n - 1))
    fewer = Moments(n - 1, m.mean, m.variance * (n - 2))
    assert stats.half_width(planned) <= target < stats.half_width(fewer)
    assert stats.needed_for_half_width(m, 100.0) == 50  # already precise enough: current n
    assert stats.needed_for_half_width(Moments.of([1.0]), 0.1) == 2
    with pytest.raises(ValueError):
        stats.needed_for_half_width(m, 0.0)


# SciPy, a test-only reference, gives the normal quantile in the textbook formula.
@pytest.mark.parametrize("x, n", [(0, 10), (1, 10), (5, 10), (10, 10), (37, 1000), (999, 1000),
                                  (123456, 1_000_000)])  # fmt: skip
def test_wilson_against_its_formula_with_scipy_quantile(x, n) -> None:
    z = scipy_stats.norm.ppf(0.975)
    p = x / n
    centre = (p + z * z / (2 * n)) / (1 + z * z / n)
    half = z / (1 + z * z / n) * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n))
    iv = stats.wilson(x, n)
    assert close(iv.low, max(0.0, centre - half), rel=1e-12, abs_=1e-15)
    assert close(iv.high, min(1.0, centre + half), rel=1e-12, abs_=1e-15)
