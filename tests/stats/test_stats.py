"""sim/stats.py: intervals against textbook values, distributions against tables,
streamed moments against one pass, paired tests, Holm, sweep verdicts, hand frames."""

from __future__ import annotations

import math

import numpy as np
import polars as pl
import pytest
import scipy.special as scipy_special
import scipy.stats as scipy_stats
from hypothesis import given, settings
from hypothesis import strategies as st

from kernels.layout import OUTCOME_LABELS, POINT_SCALE
from sim import stats
from sim.stats import (
    Moments,
    best_vs_runner_up,
    holm,
    mean_ci,
    normal_quantile,
    paired_difference,
    regularized_beta,
    t_cdf,
    t_quantile,
    t_sf,
    variance_reduction,
    wilson,
)
from tests.support.twins import hands_frame


@pytest.fixture(scope="module")
def engine_hands():
    from sim.engine import play_deals

    cols = play_deals("gin", ["greedy", "simple"], deals=400, seed=3, threads=1)
    return cols, hands_frame(cols)


# --- distributions ---------------------------------------------------------------------


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
    assert t_cdf(q, df) == pytest.approx(p, abs=1e-12)


def test_t_quantile_limits_and_large_df():
    assert t_quantile(0.5, 7) == 0.0
    assert t_quantile(0.975, math.inf) == pytest.approx(1.959963985, abs=1e-9)
    # large df converges on the normal; both sides of the large-df switch agree
    assert t_quantile(0.975, 1e7) == pytest.approx(1.959964, abs=1e-6)
    assert t_sf(2.5, 1999.0) == pytest.approx(t_sf(2.5, 2001.0), rel=1e-4)


def _t_sf_numeric(t: float, df: float) -> float:
    """P(T > t) by the trapezoid rule on the density (an independent check), over
    ``x = t + s / (1 - s)``, s in [0, 1), so the whole heavy tail is included."""
    s = np.linspace(0.0, 1.0, 2_000_001)[:-1]
    x = t + s / (1.0 - s)
    log_c = math.lgamma((df + 1) / 2) - math.lgamma(df / 2) - 0.5 * math.log(df * math.pi)
    f = np.exp(log_c - (df + 1) / 2 * np.log1p(x * x / df)) / (1.0 - s) ** 2
    return float(np.sum((f[1:] + f[:-1]) / 2 * np.diff(s)))


@pytest.mark.parametrize(
    ("t", "df"), [(0.3, 3.0), (2.0, 4.0), (4.2426, 4.0), (1.7, 2.5), (3.0, 30.0)]
)
def test_t_sf_against_numeric_integration(t, df):
    assert t_sf(t, df) == pytest.approx(_t_sf_numeric(t, df), rel=1e-6)
    assert t_cdf(-t, df) == pytest.approx(t_sf(t, df), rel=1e-12)


def test_regularized_beta_closed_forms():
    for x in (0.01, 0.3, 0.5, 0.77, 0.99):
        assert regularized_beta(x, 1.0, 1.0) == pytest.approx(x, rel=1e-12)
        assert regularized_beta(x, 3.5, 1.0) == pytest.approx(x**3.5, rel=1e-12)
        assert regularized_beta(x, 1.0, 2.5) == pytest.approx(1 - (1 - x) ** 2.5, rel=1e-12)
    assert regularized_beta(0.5, 7.3, 7.3) == pytest.approx(0.5, abs=1e-14)
    assert regularized_beta(0.0, 2, 3) == 0.0
    assert regularized_beta(1.0, 2, 3) == 1.0


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
    # the frame version (k-way) agrees
    frame = pl.DataFrame(
        {"n": [p.n for p in parts], "mean": [p.mean for p in parts], "m2": [p.m2 for p in parts]}
    )
    row = stats.combine_moments(frame.filter(pl.col("n") > 0)).row(0, named=True)
    assert row["n"] == len(x)
    assert row["m2"] == pytest.approx(m2, rel=1e-9, abs=1e-9 * scale * scale)


def test_moments_properties_and_grouped_combine():
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
    chunks = pl.DataFrame(
        {
            "setting": ["a", "b", "a", "b"],
            "n": [3, 2, 2, 4],
            "mean": [Moments.of([1, 2, 3]).mean, 5.0, 10.0, 0.0],
            "m2": [Moments.of([1, 2, 3]).m2, 0.0, Moments.of([9, 11]).m2, 0.0],
        }
    )
    out = stats.combine_moments(chunks, by=["setting"])
    a = out.filter(pl.col("setting") == "a").row(0, named=True)
    ref = Moments.of([1, 2, 3, 9, 11])
    assert a["n"] == 5 and a["mean"] == pytest.approx(ref.mean) and a["m2"] == pytest.approx(ref.m2)


def test_bootstrap_close_to_t_and_seeded():
    rng = np.random.default_rng(1)
    x = rng.normal(3.0, 2.0, size=2000)
    boot = stats.bootstrap_mean_ci(x, resamples=1000, seed=5)
    t = mean_ci(x)
    assert boot.method.startswith("bootstrap percentile")
    assert boot.low == pytest.approx(t.low, abs=0.03) and boot.high == pytest.approx(
        t.high, abs=0.03
    )
    assert stats.bootstrap_mean_ci(x, resamples=1000, seed=5) == boot


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


# --- paired comparisons -----------------------------------------------------------------


def test_paired_difference_known_p_value():
    a = np.array([3.0, 5.0, 7.0, 9.0, 11.0])
    b = np.array([2.0, 3.0, 4.0, 5.0, 6.0])  # differences 1..5
    c = paired_difference(a, b, label_a="A", label_b="B")
    assert c.method == "paired t" and c.n == 5
    assert c.mean_diff == pytest.approx(3.0) and c.sd == pytest.approx(math.sqrt(2.5))
    assert c.t == pytest.approx(3.0 / math.sqrt(0.5))
    assert c.p_value == pytest.approx(2 * _t_sf_numeric(c.t, 4.0), rel=1e-6)
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


# --- hand frames ---------------------------------------------------------------------------


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


def test_group_means_and_rates():
    df = _synthetic()
    m = stats.group_means(df, "turns", by=["variant"])
    v1 = m.row(0, named=True)
    assert v1["n"] == 4 and v1["mean"] == pytest.approx(15.0) and v1["method"] == "t"
    ref = mean_ci([10, 12, 8, 30])
    assert (v1["low"], v1["high"]) == pytest.approx((ref.low, ref.high))
    r = stats.group_rates(df, pl.col("winner") == 1, by=["variant"])
    assert r["successes"].to_list() == [1, 2] and r["method"][0] == "Wilson"


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


# --- against SciPy, a test-only reference --------------------------------------------
# The statistics are written by hand (no SciPy at run time); SciPy checks them here to
# about 1e-10 on grids that span the ranges the analyses use, tails included.

_PROBABILITIES = [1e-12, 1e-8, 1e-4, 0.001, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5]
_PROBABILITIES += [1 - p for p in _PROBABILITIES[:-1]]
_DEGREES = [1, 2, 3, 5, 10, 29, 30, 100, 999, 1_999, 2_001, 10**5, 10**7]


def _close(ours: float, theirs: float, rel: float = 1e-10, abs_: float = 1e-300) -> bool:
    return ours == pytest.approx(theirs, rel=rel, abs=abs_)


@pytest.mark.parametrize("p", _PROBABILITIES)
def test_normal_quantile_and_cdf_against_scipy(p) -> None:
    x = stats.normal_quantile(p)
    assert _close(x, scipy_stats.norm.ppf(p))
    assert _close(stats.normal_cdf(x), scipy_stats.norm.cdf(x), rel=1e-12)


@pytest.mark.parametrize("df", _DEGREES)
def test_t_functions_against_scipy(df) -> None:
    rel = 1e-9 if df > 2_000 else 1e-10  # above 2,000 df: Hill's transformation (~1e-9)
    for t in (0.0, 0.1, 0.5, 1.0, 1.96, 2.5, 4.0, 8.0, 30.0, -1.5, -6.0):
        assert _close(stats.t_sf(t, df), scipy_stats.t.sf(t, df), rel=rel), t
        assert _close(stats.t_cdf(t, df), scipy_stats.t.cdf(t, df), rel=rel), t
    for p in _PROBABILITIES:
        assert _close(stats.t_quantile(p, df), scipy_stats.t.ppf(p, df), rel=1e-9), p


@pytest.mark.parametrize("a, b", [(0.5, 0.5), (1, 1), (0.5, 20), (2.5, 7), (15, 0.5), (50, 60),
                                  (500, 2), (1e4, 1e4)])  # fmt: skip
def test_regularized_beta_against_scipy(a, b) -> None:
    for x in (0.0, 1e-9, 0.001, 0.1, 0.3, 0.5, 0.7, 0.9, 0.999, 1 - 1e-9, 1.0):
        assert _close(stats.regularized_beta(x, a, b), scipy_special.betainc(a, b, x)), x


@pytest.mark.parametrize("x, n", [(0, 10), (1, 10), (5, 10), (10, 10), (37, 1000), (999, 1000),
                                  (123456, 1_000_000)])  # fmt: skip
def test_wilson_against_its_formula_with_scipy_quantile(x, n) -> None:
    z = scipy_stats.norm.ppf(0.975)
    p = x / n
    centre = (p + z * z / (2 * n)) / (1 + z * z / n)
    half = z / (1 + z * z / n) * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n))
    iv = stats.wilson(x, n)
    assert _close(iv.low, max(0.0, centre - half), rel=1e-12, abs_=1e-15)
    assert _close(iv.high, min(1.0, centre + half), rel=1e-12, abs_=1e-15)
