"""sim/stats/distributions.py: normal and Student t functions and the incomplete beta,
against printed tables, closed forms, numeric integration and SciPy."""

from __future__ import annotations

import math

import pytest
import scipy.special as scipy_special
import scipy.stats as scipy_stats

from sim import stats
from sim.stats import normal_quantile, regularized_beta, t_quantile, t_sf
from tests.support.numeric import close, t_sf_numeric


@pytest.mark.parametrize(
    ("p", "expected"),
    [
        (0.975, 1.959963985),
        (0.995, 2.575829304),
        (0.5, 0.0),
        (0.9, 1.281551566),
        (1e-10, -6.361340902),
    ],
)
def test_normal_quantile(p, expected):
    assert normal_quantile(p) == pytest.approx(expected, abs=1e-8)
    assert stats.normal_cdf(normal_quantile(p)) == pytest.approx(p, rel=1e-12)


# Student t critical values from printed tables (e.g. Abramowitz & Stegun 26.10).
T_TABLE = [
    (0.975, 1, 12.7062),
    (0.975, 2, 4.3027),
    (0.975, 3, 3.1824),
    (0.975, 5, 2.5706),
    (0.975, 10, 2.2281),
    (0.975, 30, 2.0423),
    (0.975, 120, 1.9799),
    (0.95, 20, 1.7247),
    (0.95, 4, 2.1318),
    (0.99, 15, 2.6025),
    (0.995, 10, 3.1693),
    (0.9995, 3, 12.9240),
    (0.9, 60, 1.2958),
]


@pytest.mark.parametrize(("p", "df", "expected"), T_TABLE)
def test_t_quantile_matches_tables(p, df, expected):
    q = t_quantile(p, df)
    assert q == pytest.approx(expected, abs=5e-5)
    assert t_quantile(1 - p, df) == pytest.approx(-q, rel=1e-12)
    assert 1.0 - t_sf(q, df) == pytest.approx(p, abs=1e-12)


def test_t_quantile_limits_and_large_df():
    assert t_quantile(0.5, 7) == 0.0
    assert t_quantile(0.975, math.inf) == pytest.approx(1.959963985, abs=1e-9)
    # large df converges on the normal; both sides of the large-df switch agree
    assert t_quantile(0.975, 1e7) == pytest.approx(1.959964, abs=1e-6)
    assert t_sf(2.5, 1999.0) == pytest.approx(t_sf(2.5, 2001.0), rel=1e-4)


@pytest.mark.parametrize(
    ("t", "df"), [(0.3, 3.0), (2.0, 4.0), (4.2426, 4.0), (1.7, 2.5), (3.0, 30.0)]
)
def test_t_sf_against_numeric_integration(t, df):
    assert t_sf(t, df) == pytest.approx(t_sf_numeric(t, df), rel=1e-6)


def test_regularized_beta_closed_forms():
    for x in (0.01, 0.3, 0.5, 0.77, 0.99):
        assert regularized_beta(x, 1.0, 1.0) == pytest.approx(x, rel=1e-12)
        assert regularized_beta(x, 3.5, 1.0) == pytest.approx(x**3.5, rel=1e-12)
        assert regularized_beta(x, 1.0, 2.5) == pytest.approx(1 - (1 - x) ** 2.5, rel=1e-12)
    assert regularized_beta(0.5, 7.3, 7.3) == pytest.approx(0.5, abs=1e-14)
    assert regularized_beta(0.0, 2, 3) == 0.0
    assert regularized_beta(1.0, 2, 3) == 1.0


# --- against SciPy, a test-only reference --------------------------------------------
# The statistics are written by hand (no SciPy at run time); SciPy checks them here to
# about 1e-10 on grids that span the ranges the analyses use, tails included.

_PROBABILITIES = [1e-12, 1e-8, 1e-4, 0.001, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5]
_PROBABILITIES += [1 - p for p in _PROBABILITIES[:-1]]
_DEGREES = [1, 2, 3, 5, 10, 29, 30, 100, 999, 1_999, 2_001, 10**5, 10**7]


@pytest.mark.parametrize("p", _PROBABILITIES)
def test_normal_quantile_and_cdf_against_scipy(p) -> None:
    x = stats.normal_quantile(p)
    assert close(x, scipy_stats.norm.ppf(p))
    assert close(stats.normal_cdf(x), scipy_stats.norm.cdf(x), rel=1e-12)


@pytest.mark.parametrize("df", _DEGREES)
def test_t_functions_against_scipy(df) -> None:
    rel = 1e-9 if df > 2_000 else 1e-10  # above 2,000 df: Hill's transformation (~1e-9)
    for t in (0.0, 0.1, 0.5, 1.0, 1.96, 2.5, 4.0, 8.0, 30.0, -1.5, -6.0):
        assert close(stats.t_sf(t, df), scipy_stats.t.sf(t, df), rel=rel), t
    for p in _PROBABILITIES:
        # abs_: at p = 0.5 the answer is exactly 0.0; older SciPy gives ~7e-17 there.
        ours, theirs = stats.t_quantile(p, df), scipy_stats.t.ppf(p, df)
        assert close(ours, theirs, rel=1e-9, abs_=1e-15), p


@pytest.mark.parametrize("a, b", [(0.5, 0.5), (1, 1), (0.5, 20), (2.5, 7), (15, 0.5), (50, 60),
                                  (500, 2), (1e4, 1e4)])  # fmt: skip
def test_regularized_beta_against_scipy(a, b) -> None:
    for x in (0.0, 1e-9, 0.001, 0.1, 0.3, 0.5, 0.7, 0.9, 0.999, 1 - 1e-9, 1.0):
        assert close(stats.regularized_beta(x, a, b), scipy_special.betainc(a, b, x)), x
