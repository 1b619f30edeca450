"""Confidence intervals, paired comparisons and multiple-comparison verdicts.

Every estimate comes back as a small frozen dataclass that names its method, so that a
table or chart can always say how an interval was made:

>>> from sim.stats import wilson, mean_ci
>>> str(wilson(81, 263))
'0.3080 [0.2553, 0.3662] (95% Wilson)'
>>> mean_ci([1.0, 2.0, 3.0, 4.0]).method
't'

Methods
-------
- Proportions: the Wilson score interval (good coverage even near 0 and 1).
- Means: Student's t interval on ``n - 1`` degrees of freedom (``method="t"``), the
  normal interval (``method="normal"``), or a percentile bootstrap
  (:func:`bootstrap_mean_ci`). Means can be computed from raw values or from streamed
  :class:`Moments` (count, mean and sum of squared deviations), which merge exactly with
  Chan et al.'s parallel formula, so per-chunk summaries combine to the one-pass answer.
- Paired differences (two variants or strategies on identical deals): the paired t test,
  two-sided p-value.
- Sweeps: the best setting against every other one, each a paired t test, with the
  Holm-Bonferroni step-down adjustment over those ``k - 1`` comparisons.

The normal and Student t distributions are implemented here (no SciPy): the normal
quantile by Acklam's rational approximation refined by one Halley step on ``erfc``
(|error| < 1e-14), the t CDF through the regularized incomplete beta function
(Lentz's continued fraction), and the t quantile by safeguarded Newton iteration on
that CDF.

Hand frames
-----------
:func:`seat_summary`, :func:`outcome_mix`, :func:`group_means` and :func:`group_rates`
read hand records with the column names of ``sim/results.py``: per-seat
``points_0 .. points_{P-1}`` (float, points), ``winner`` and ``knocker`` (seat, -1 for
none), ``outcome`` (a label of ``kernels.layout.OUTCOME_LABELS`` or its integer code),
``turns`` and grouping columns such as ``variant`` and ``lineup``. They take a polars
``DataFrame`` or ``LazyFrame``.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
import numpy.typing as npt
import polars as pl

from kernels.layout import OUTCOME_LABELS

__all__ = [
    "Comparison",
    "Interval",
    "Moments",
    "SweepVerdict",
    "VarianceReduction",
    "best_vs_runner_up",
    "bootstrap_mean_ci",
    "combine_moments",
    "difference_test",
    "group_means",
    "group_rates",
    "half_width",
    "holm",
    "mean_ci",
    "needed_for_half_width",
    "net_points",
    "normal_cdf",
    "normal_quantile",
    "outcome_mix",
    "paired_difference",
    "players_of",
    "regularized_beta",
    "seat_summary",
    "t_cdf",
    "t_quantile",
    "t_sf",
    "variance_reduction",
    "wilson",
]

DEFAULT_CONFIDENCE = 0.95


def _check_confidence(confidence: float) -> float:
    if not 0.0 < confidence < 1.0:
        raise ValueError(f"confidence must be strictly between 0 and 1, got {confidence}")
    return float(confidence)


# --- distributions ---------------------------------------------------------------------


def normal_cdf(x: float) -> float:
    """P(Z <= x) for a standard normal Z."""
    return 0.5 * math.erfc(-x / math.sqrt(2.0))


# Acklam's coefficients (rational approximations of the normal quantile, |rel err| < 1.2e-9).
_A = (-3.969683028665376e01, 2.209460984245205e02, -2.759285104469687e02,
      1.383577518672690e02, -3.066479806614716e01, 2.506628277459239e00)  # fmt: skip
_B = (-5.447609879822406e01, 1.615858368580409e02, -1.556989798598866e02,
      6.680131188771972e01, -1.328068155288572e01)  # fmt: skip
_C = (-7.784894002430293e-03, -3.223964580411365e-01, -2.400758277161838e00,
      -2.549732539343734e00, 4.374664141464968e00, 2.938163982698783e00)  # fmt: skip
_D = (7.784695709041462e-03, 3.224671290700398e-01, 2.445134137142996e00, 3.754408661907416e00)


def normal_quantile(p: float) -> float:
    """The ``p`` quantile of the standard normal (``normal_quantile(0.975) = 1.95996...``)."""
    if not 0.0 < p < 1.0:
        if p == 0.0:
            return -math.inf
        if p == 1.0:
            return math.inf
        raise ValueError(f"p must be in [0, 1], got {p}")
    p_low = 0.02425
    if p < p_low:
        q = math.sqrt(-2.0 * math.log(p))
        x = (((((_C[0] * q + _C[1]) * q + _C[2]) * q + _C[3]) * q + _C[4]) * q + _C[5]) / (
            (((_D[0] * q + _D[1]) * q + _D[2]) * q + _D[3]) * q + 1.0
        )
    elif p <= 1.0 - p_low:
        q = p - 0.5
        r = q * q
        x = (
            (((((_A[0] * r + _A[1]) * r + _A[2]) * r + _A[3]) * r + _A[4]) * r + _A[5])
            * q
            / (((((_B[0] * r + _B[1]) * r + _B[2]) * r + _B[3]) * r + _B[4]) * r + 1.0)
        )
    else:
        q = math.sqrt(-2.0 * math.log1p(-p))
        x = -(((((_C[0] * q + _C[1]) * q + _C[2]) * q + _C[3]) * q + _C[4]) * q + _C[5]) / (
            (((_D[0] * q + _D[1]) * q + _D[2]) * q + _D[3]) * q + 1.0
        )
    # One Halley step on the exact CDF (erfc) brings the error to machine precision.
    e = (
        (0.5 * math.erfc(-x / math.sqrt(2.0)) - p)
        if p < 0.5
        else -(0.5 * math.erfc(x / math.sqrt(2.0)) - (1.0 - p))
    )
    u = e * math.sqrt(2.0 * math.pi) * math.exp(x * x / 2.0)
    return x - u / (1.0 + x * u / 2.0)


def regularized_beta(x: float, a: float, b: float) -> float:
    """The regularized incomplete beta function ``I_x(a, b)`` for ``a, b > 0``.

    Lentz's continued fraction (Numerical Recipes ``betacf``), on the side of the
    symmetry ``I_x(a, b) = 1 - I_{1-x}(b, a)`` where it converges fast.
    """
    if a <= 0.0 or b <= 0.0:
        raise ValueError(f"a and b must be positive, got a={a}, b={b}")
    if x <= 0.0:
        return 0.0
    if x >= 1.0:
        return 1.0
    log_front = (
        math.lgamma(a + b) - math.lgamma(a) - math.lgamma(b) + a * math.log(x) + b * math.log1p(-x)
    )
    if x < (a + 1.0) / (a + b + 2.0):
        return math.exp(log_front) * _beta_fraction(x, a, b) / a
    return 1.0 - math.exp(log_front) * _beta_fraction(1.0 - x, b, a) / b


def _beta_fraction(x: float, a: float, b: float) -> float:
    tiny, eps = 1e-300, 1e-15
    qab, qap, qam = a + b, a + 1.0, a - 1.0
    c, d = 1.0, 1.0 - qab * x / qap
    d = 1.0 / (d if abs(d) > tiny else tiny)
    h = d
    max_iter = 10_000 + int(20 * math.sqrt(max(a, b)))
    for m in range(1, max_iter + 1):
        m2 = 2 * m
        aa = m * (b - m) * x / ((qam + m2) * (a + m2))
        d = 1.0 + aa * d
        d = 1.0 / (d if abs(d) > tiny else tiny)
        c = 1.0 + aa / c
        c = c if abs(c) > tiny else tiny
        h *= d * c
        aa = -(a + m) * (qab + m) * x / ((a + m2) * (qap + m2))
        d = 1.0 + aa * d
        d = 1.0 / (d if abs(d) > tiny else tiny)
        c = 1.0 + aa / c
        c = c if abs(c) > tiny else tiny
        delta = d * c
        h *= delta
        if abs(delta - 1.0) < eps:
            return h
    return h  # pragma: no cover - converged to double precision long before this


# Above this many degrees of freedom the t tail is taken from Hill's normalizing
# transformation (ACM Algorithm 395), accurate to ~1e-9 there, instead of a continued
# fraction whose length grows like sqrt(df).
_LARGE_DF = 2_000.0


def t_sf(t: float, df: float) -> float:
    """P(T > t) for Student's t with ``df`` (> 0, may be fractional or inf) degrees of freedom."""
    if df <= 0 or math.isnan(df):
        raise ValueError(f"degrees of freedom must be positive, got {df}")
    if math.isnan(t):
        return math.nan
    if math.isinf(t):
        return 0.0 if t > 0 else 1.0
    if math.isinf(df):
        return normal_cdf(-t)
    if df > _LARGE_DF:
        tail = _hill_tail(abs(t), df)
        return tail if t >= 0 else 1.0 - tail
    tail = 0.5 * regularized_beta(df / (df + t * t), df / 2.0, 0.5)  # P(T > |t|)
    return tail if t >= 0 else 1.0 - tail


def _hill_tail(t: float, df: float) -> float:
    """P(T > t), t >= 0, large df: Hill (1970), CACM 13(10) Algorithm 395."""
    a = df - 0.5
    b = 48.0 * a * a
    y = a * math.log1p(t * t / df)
    y = (
        ((((-0.4 * y - 3.3) * y - 24.0) * y - 85.5) / (0.8 * y * y + 100.0 + b) + y + 3.0) / b + 1.0
    ) * math.sqrt(y)
    return normal_cdf(-y)


def t_cdf(t: float, df: float) -> float:
    """P(T <= t) for Student's t with ``df`` degrees of freedom."""
    return 1.0 - t_sf(t, df) if t >= 0 else t_sf(-t, df)


def _t_pdf(t: float, df: float) -> float:
    return math.exp(
        math.lgamma((df + 1.0) / 2.0)
        - math.lgamma(df / 2.0)
        - 0.5 * math.log(df * math.pi)
        - (df + 1.0) / 2.0 * math.log1p(t * t / df)
    )


def t_quantile(p: float, df: float) -> float:
    """The ``p`` quantile of Student's t with ``df`` degrees of freedom.

    ``t_quantile(0.975, 10) = 2.228138...``; exact closed forms for df = 1 and 2, else
    Newton's method on :func:`t_sf` from a Cornish-Fisher start, kept inside a bracket.
    The smaller tail probability is used as given (``1 - p`` is exact for p >= 0.5,
    while ``1 - p`` of a tiny p would lose its digits).
    """
    if df <= 0 or math.isnan(df):
        raise ValueError(f"degrees of freedom must be positive, got {df}")
    if not 0.0 < p < 1.0:
        if p in (0.0, 1.0):
            return -math.inf if p == 0.0 else math.inf
        raise ValueError(f"p must be in [0, 1], got {p}")
    if p == 0.5:
        return 0.0
    return _t_upper(1.0 - p, df) if p > 0.5 else -_t_upper(p, df)


def _t_upper(q: float, df: float) -> float:
    """The ``x > 0`` with ``P(T > x) = q``, for ``0 < q < 0.5``."""
    if math.isinf(df):
        return -normal_quantile(q)
    if df == 1.0:
        return 1.0 / math.tan(math.pi * q)
    if df == 2.0:
        return (1.0 - 2.0 * q) / math.sqrt(2.0 * q * (1.0 - q))
    z = -normal_quantile(q)
    g1 = (z**3 + z) / 4.0
    g2 = (5 * z**5 + 16 * z**3 + 3 * z) / 96.0
    g3 = (3 * z**7 + 19 * z**5 + 17 * z**3 - 15 * z) / 384.0
    x = z + g1 / df + g2 / df**2 + g3 / df**3
    lo, hi = 0.0, math.inf
    for _ in range(200):
        if not lo < x < hi or not math.isfinite(x):
            x = 2.0 * lo + 1.0 if math.isinf(hi) else 0.5 * (lo + hi)
        err = t_sf(x, df) - q  # decreasing in x
        if err > 0:
            lo = x
        else:
            hi = x
        step = err / _t_pdf(x, df)
        x_new = x + step
        if abs(step) <= 1e-13 * max(1.0, abs(x)):
            return x_new
        x = x_new
    return x  # pragma: no cover


# --- intervals ---------------------------------------------------------------------------


@dataclass(frozen=True)
class Interval:
    """An estimate with a two-sided confidence interval ``[low, high]``.

    ``method`` names how it was made ("Wilson", "t", "normal", "bootstrap percentile").
    """

    estimate: float
    low: float
    high: float
    method: str
    confidence: float = DEFAULT_CONFIDENCE
    n: int = 0

    @property
    def half_width(self) -> float:
        """Half the interval's width (for asymmetric intervals, half of high - low)."""
        return (self.high - self.low) / 2.0

    def contains(self, value: float) -> bool:
        return self.low <= value <= self.high

    def scaled(self, factor: float) -> Interval:
        """The same interval in other units (e.g. ``100`` for percent)."""
        lo, hi = sorted((self.low * factor, self.high * factor))
        return Interval(self.estimate * factor, lo, hi, self.method, self.confidence, self.n)

    def as_dict(self, name: str = "estimate") -> dict[str, Any]:
        """``{name: estimate, name_low, name_high, name_method}`` (a table row's cells)."""
        return {
            name: self.estimate,
            f"{name}_low": self.low,
            f"{name}_high": self.high,
            f"{name}_method": self.method,
        }

    def format(self, digits: int = 4) -> str:
        return f"{self.estimate:.{digits}f} [{self.low:.{digits}f}, {self.high:.{digits}f}]"

    def __str__(self) -> str:
        return f"{self.format()} ({self.confidence * 100:g}% {self.method})"


def wilson(successes: int, n: int, confidence: float = DEFAULT_CONFIDENCE) -> Interval:
    """The Wilson score interval for a proportion ``successes / n``.

    With no trials the estimate is NaN and the interval is [0, 1].
    """
    confidence = _check_confidence(confidence)
    successes, n = int(successes), int(n)
    if n < 0 or not 0 <= successes <= max(n, 0):
        raise ValueError(f"need 0 <= successes <= n, got successes={successes}, n={n}")
    if n == 0:
        return Interval(math.nan, 0.0, 1.0, "Wilson", confidence, 0)
    z = normal_quantile(0.5 + confidence / 2.0)
    z2 = z * z
    p = successes / n
    denom = 1.0 + z2 / n
    center = (p + z2 / (2.0 * n)) / denom
    half = z / denom * math.sqrt(p * (1.0 - p) / n + z2 / (4.0 * n * n))
    low = 0.0 if successes == 0 else max(0.0, center - half)
    high = 1.0 if successes == n else min(1.0, center + half)
    return Interval(p, low, high, "Wilson", confidence, n)


# --- streamed moments --------------------------------------------------------------------


@dataclass(frozen=True)
class Moments:
    """Count, mean and sum of squared deviations (``m2``) of a stream of values.

    Merge with ``+`` (Chan, Golub & LeVeque's parallel update): merging chunk moments
    gives the one-pass result up to rounding, in any order.
    """

    n: int = 0
    mean: float = 0.0
    m2: float = 0.0

    @classmethod
    def of(cls, values: npt.ArrayLike) -> Moments:
        """Moments of an array (NaNs are an error: they would poison every total)."""
        x = np.asarray(values, dtype=np.float64).ravel()
        if x.size == 0:
            return cls()
        if np.isnan(x).any():
            raise ValueError("values contain NaN")
        mean = float(x.mean())
        return cls(int(x.size), mean, float(np.square(x - mean).sum()))

    @classmethod
    def from_sums(cls, n: int, total: float, total_sq: float) -> Moments:
        """From a count, sum and sum of squares. Integer sums (such as the chunk
        summaries' sums in engine units) are combined exactly; float sums can lose
        precision to cancellation when the mean is large next to the spread."""
        n = int(n)
        if n <= 0:
            return cls()
        if all(isinstance(v, (int, np.integer)) for v in (total, total_sq)):
            # integer sums (the engine's 1/60 units): m2 = (n ss - s^2) / n exactly
            s, ss = int(total), int(total_sq)
            return cls(n, s / n, (n * ss - s * s) / n)
        mean = total / n
        return cls(n, mean, max(0.0, total_sq - total * mean))

    @classmethod
    def combine(cls, parts: Iterable[Moments]) -> Moments:
        out = cls()
        for part in parts:
            out = out + part
        return out

    def __add__(self, other: Moments) -> Moments:
        if not isinstance(other, Moments):
            return NotImplemented
        if other.n == 0:
            return self
        if self.n == 0:
            return other
        n = self.n + other.n
        delta = other.mean - self.mean
        mean = self.mean + delta * other.n / n
        m2 = self.m2 + other.m2 + delta * delta * self.n * other.n / n
        return Moments(n, mean, m2)

    def scaled(self, factor: float) -> Moments:
        """The moments of the values times ``factor`` (e.g. ``1 / 60``: engine units
        to points)."""
        return Moments(self.n, self.mean * factor, self.m2 * factor * factor)

    def add(self, values: npt.ArrayLike) -> Moments:
        """These moments with more raw values merged in."""
        return self + Moments.of(values)

    @property
    def variance(self) -> float:
        """Sample variance (``ddof = 1``); NaN below two values."""
        return self.m2 / (self.n - 1) if self.n > 1 else math.nan

    @property
    def sd(self) -> float:
        return math.sqrt(self.variance) if self.n > 1 else math.nan

    @property
    def sem(self) -> float:
        """Standard error of the mean."""
        return self.sd / math.sqrt(self.n) if self.n > 1 else math.nan

    @property
    def total(self) -> float:
        return self.mean * self.n

    @property
    def total_sq(self) -> float:
        return self.m2 + self.n * self.mean * self.mean


MeanInput = Moments | tuple[int, float, float] | npt.ArrayLike


def _as_moments(values: MeanInput) -> Moments:
    if isinstance(values, Moments):
        return values
    if (
        isinstance(values, tuple)
        and len(values) == 3
        and not isinstance(values[0], (list, tuple, np.ndarray))
    ):
        return Moments.from_sums(*values)
    return Moments.of(values)


def mean_ci(
    values: MeanInput, confidence: float = DEFAULT_CONFIDENCE, method: str = "t"
) -> Interval:
    """A confidence interval for a mean.

    Parameters
    ----------
    values : array-like, Moments, or (n, sum, sum_sq)
        Raw values (a list or array), streamed moments, or streamed sums. A plain
        ``tuple`` of three numbers is read as ``(n, sum, sum_sq)``, never as data.
    method : {"t", "normal"}
        Student's t on ``n - 1`` degrees of freedom, or the normal approximation.
        With fewer than two values (or ``n`` unknown) the interval is NaN.
    """
    confidence = _check_confidence(confidence)
    if method not in ("t", "normal"):
        raise ValueError(f"method must be 't' or 'normal', got {method!r}")
    m = _as_moments(values)
    if m.n < 2:
        est = m.mean if m.n else math.nan
        return Interval(est, math.nan, math.nan, method, confidence, m.n)
    half = half_width(m, confidence, method)
    return Interval(m.mean, m.mean - half, m.mean + half, method, confidence, m.n)


def half_width(m: MeanInput, confidence: float = DEFAULT_CONFIDENCE, method: str = "t") -> float:
    """Half-width of the mean's confidence interval (NaN below two values)."""
    m = _as_moments(m)
    if m.n < 2:
        return math.nan
    q = 0.5 + confidence / 2.0
    crit = t_quantile(q, m.n - 1) if method == "t" else normal_quantile(q)
    return crit * m.sem


def bootstrap_mean_ci(
    values: npt.ArrayLike,
    confidence: float = DEFAULT_CONFIDENCE,
    resamples: int = 2000,
    seed: int = 0,
) -> Interval:
    """Percentile bootstrap interval for a mean (``resamples`` resamples, seeded)."""
    confidence = _check_confidence(confidence)
    x = np.asarray(values, dtype=np.float64).ravel()
    method = f"bootstrap percentile (B={resamples})"
    if x.size < 2:
        return Interval(
            float(x.mean()) if x.size else math.nan, math.nan, math.nan, method, confidence, x.size
        )
    rng = np.random.default_rng(seed)
    means = np.empty(resamples)
    batch = max(1, 4_000_000 // x.size)
    for start in range(0, resamples, batch):
        stop = min(resamples, start + batch)
        idx = rng.integers(0, x.size, size=(stop - start, x.size))
        means[start:stop] = x[idx].mean(axis=1)
    alpha = 1.0 - confidence
    low, high = np.quantile(means, [alpha / 2.0, 1.0 - alpha / 2.0])
    return Interval(float(x.mean()), float(low), float(high), method, confidence, int(x.size))


PLAN_LIMIT = 2**62  # sample sizes planned beyond this are reported as this
"""Above any count a run can play (deal numbers are int64)."""


def needed_for_half_width(
    m: MeanInput, target: float, confidence: float = DEFAULT_CONFIDENCE, method: str = "t"
) -> int:
    """Total sample size at which the mean's CI half-width should fall to ``target``.

    Uses the current standard deviation as the planning value:
    ``n = (crit * sd / target)^2`` with the t critical value on ``n - 1`` degrees of
    freedom (iterated). Returns at least the current ``n``; ``--precision`` keeps
    adding chunks until :func:`half_width` is below the target, re-planning each time.
    With fewer than two values, returns 2 (nothing to plan from yet). A target so
    small that the plan passes ``PLAN_LIMIT`` values returns ``PLAN_LIMIT``.
    """
    if not target > 0 or not math.isfinite(target):
        raise ValueError(f"target half-width must be a positive number, got {target}")
    m = _as_moments(m)
    if m.n < 2:
        return 2
    sd = m.sd
    if sd == 0.0:
        return m.n

    def planned(crit: float) -> int:
        root = crit * sd / target  # may be inf for a tiny target; squared it would overflow
        return PLAN_LIMIT if root >= math.sqrt(PLAN_LIMIT) else max(2, math.ceil(root * root))

    z = normal_quantile(0.5 + confidence / 2.0)
    n = planned(z)
    if method == "t":
        for _ in range(50):
            crit = t_quantile(0.5 + confidence / 2.0, n - 1)
            n_new = planned(crit)
            if n_new == n:
                break
            n = n_new
    return max(n, m.n)


def combine_moments(
    frame: pl.DataFrame | pl.LazyFrame,
    by: Sequence[str] = (),
    n: str = "n",
    mean: str = "mean",
    m2: str = "m2",
) -> pl.DataFrame:
    """Merge rows of moments (one per chunk, say) within groups ``by``.

    The k-way form of Chan's formula: ``N = sum n``, ``mean = sum(n mean) / N``,
    ``M2 = sum(m2) + sum(n (mean_i - mean)^2)`` (exact, order-free).
    """
    lf = frame.lazy()
    total = pl.col(n).sum()
    grand = (pl.col(n) * pl.col(mean)).sum() / total
    aggs = [
        total.alias(n),
        grand.alias(mean),
        (pl.col(m2).sum() + (pl.col(n) * (pl.col(mean) - grand) ** 2).sum()).alias(m2),
    ]
    if by:
        return lf.group_by(list(by), maintain_order=True).agg(aggs).collect()
    return lf.select(aggs).collect()


# --- paired comparisons ------------------------------------------------------------------


@dataclass(frozen=True)
class Comparison:
    """A paired difference ``a - b`` on identical deals.

    ``ci`` is the interval of the mean difference; ``p_value`` the two-sided paired t
    test of "no difference"; ``sd`` the standard deviation of the per-deal differences.
    """

    mean_diff: float
    ci: Interval
    p_value: float
    n: int
    sd: float
    method: str = "paired t"
    t: float = math.nan
    label_a: str = "a"
    label_b: str = "b"

    def significant(self, alpha: float = 0.05) -> bool:
        return bool(self.p_value < alpha)

    def __str__(self) -> str:
        return (
            f"{self.label_a} - {self.label_b}: {self.ci.format()} "
            f"({self.ci.confidence * 100:g}% {self.method}), p = {self.p_value:.3g}, n = {self.n}"
        )


def difference_test(
    diffs: Moments | npt.ArrayLike,
    confidence: float = DEFAULT_CONFIDENCE,
    label_a: str = "a",
    label_b: str = "b",
) -> Comparison:
    """Paired t test and interval from the per-deal differences (raw or as Moments)."""
    m = _as_moments(diffs)
    ci = mean_ci(m, confidence, "t")
    if m.n < 2:
        return Comparison(
            ci.estimate, ci, math.nan, m.n, math.nan, "paired t", math.nan, label_a, label_b
        )
    sd = m.sd
    if sd == 0.0 or m.sem == 0.0:
        t = 0.0 if m.mean == 0 else math.copysign(math.inf, m.mean)
        p = 1.0 if m.mean == 0 else 0.0
    else:
        t = m.mean / m.sem
        p = min(1.0, 2.0 * t_sf(abs(t), m.n - 1))
    return Comparison(m.mean, ci, p, m.n, sd, "paired t", t, label_a, label_b)


def paired_difference(
    a: npt.ArrayLike,
    b: npt.ArrayLike,
    confidence: float = DEFAULT_CONFIDENCE,
    label_a: str = "a",
    label_b: str = "b",
) -> Comparison:
    """The mean of ``a - b`` over paired observations (same deals), its CI and p-value."""
    x = np.asarray(a, dtype=np.float64).ravel()
    y = np.asarray(b, dtype=np.float64).ravel()
    if x.shape != y.shape:
        raise ValueError(f"paired samples differ in length: {x.size} and {y.size}")
    return difference_test(x - y, confidence, label_a, label_b)


@dataclass(frozen=True)
class VarianceReduction:
    """How much duplicate play (seats rotated) cut the variance of the difference.

    ``ratio = var(duplicate) / var(plain)``; ``factor = 1 / ratio``: one duplicate unit
    is worth ``factor`` plain ones. A duplicate unit plays ``cost`` times the hands of a
    plain one (the number of seat rotations), so ``efficiency = factor / cost`` is the
    gain per hand played (> 1: duplicate is worth its extra hands).
    """

    plain_variance: float
    duplicate_variance: float
    ratio: float
    factor: float
    cost: float
    efficiency: float
    reduction: float  # 1 - ratio: the share of the variance removed
    method: str = "ratio of sample variances"

    def __str__(self) -> str:
        return (
            f"variance x{self.ratio:.3f} ({self.reduction * 100:.1f}% less); "
            f"each duplicate deal is worth {self.factor:.2f} plain deals, "
            f"{self.efficiency:.2f} per hand played"
        )


def variance_reduction(
    plain_diffs: Moments | npt.ArrayLike,
    duplicate_diffs: Moments | npt.ArrayLike,
    cost: float = 1.0,
) -> VarianceReduction:
    """Compare per-deal difference variances without and with seat rotation.

    ``plain_diffs``: per-deal differences from one seating; ``duplicate_diffs``: per-deal
    differences averaged over the rotated replays of the same deals; ``cost``: hands
    per duplicate deal over hands per plain deal (the number of rotations).
    """
    p, d = _as_moments(plain_diffs), _as_moments(duplicate_diffs)
    vp, vd = p.variance, d.variance
    ratio = vd / vp if vp > 0 else math.nan
    factor = (vp / vd if vd > 0 else math.inf) if vp > 0 else math.nan
    return VarianceReduction(vp, vd, ratio, factor, float(cost), factor / cost, 1.0 - ratio)


def holm(p_values: npt.ArrayLike) -> npt.NDArray[np.float64]:
    """Holm-Bonferroni adjusted p-values (step-down, monotone, capped at 1), input order.

    Reject hypothesis ``i`` at family-wise level alpha when ``adjusted[i] < alpha``.
    NaN p-values stay NaN and do not count towards the number of hypotheses.
    """
    p = np.asarray(p_values, dtype=np.float64).ravel()
    out = np.full(p.shape, np.nan)
    ok = np.flatnonzero(~np.isnan(p))
    m = ok.size
    if m == 0:
        return out
    order = ok[np.argsort(p[ok], kind="stable")]
    scaled = p[order] * (m - np.arange(m))
    out[order] = np.minimum(1.0, np.maximum.accumulate(scaled))
    return out


@dataclass(frozen=True)
class SweepVerdict:
    """The best setting of a sweep, and whether it beats the others significantly.

    ``comparisons`` are best minus each other setting (paired t on common deals), in
    order of the other setting's mean (runner-up first); ``adjusted_p`` the Holm
    adjustment over all of them. ``significant``: best beats the runner-up at family
    level ``alpha`` (so, by Holm's monotonicity, it beats every setting).
    """

    best: str
    runner_up: str | None
    means: dict[str, Interval]
    comparisons: tuple[Comparison, ...]
    adjusted_p: tuple[float, ...]
    significant: bool
    alpha: float
    higher_is_better: bool
    method: str

    @property
    def beaten(self) -> tuple[str, ...]:
        """The settings the best beats significantly after adjustment."""
        return tuple(
            c.label_b
            for c, p in zip(self.comparisons, self.adjusted_p, strict=True)
            if p < self.alpha and (c.mean_diff > 0) == self.higher_is_better
        )

    def summary(self) -> str:
        if self.runner_up is None:
            return f"{self.best} is the only setting"
        comp, p = self.comparisons[0], self.adjusted_p[0]
        verdict = "significantly" if self.significant else "not significantly"
        return (
            f"best: {self.best}; {verdict} better than the runner-up {self.runner_up} "
            f"(difference {comp.ci.format()}, Holm-adjusted p = {p:.3g} over "
            f"{len(self.comparisons)} comparisons, alpha = {self.alpha:g})"
        )

    def table(self) -> pl.DataFrame:
        """One row per setting: mean and CI, and the comparison with the best."""
        rows = []
        by_other = {
            c.label_b: (c, p) for c, p in zip(self.comparisons, self.adjusted_p, strict=True)
        }
        for name, iv in self.means.items():
            c, p = by_other.get(name, (None, math.nan))
            rows.append(
                {
                    "setting": name,
                    "mean": iv.estimate,
                    "low": iv.low,
                    "high": iv.high,
                    "best": name == self.best,
                    "diff_vs_best": -c.mean_diff if c else (0.0 if name == self.best else math.nan),
                    "p_value": c.p_value if c else math.nan,
                    "holm_p": p,
                }
            )
        return pl.DataFrame(rows)


def best_vs_runner_up(
    values: Mapping[str, Moments | npt.ArrayLike],
    differences: Mapping[tuple[str, str], Moments | npt.ArrayLike] | None = None,
    *,
    higher_is_better: bool = True,
    alpha: float = 0.05,
    confidence: float = DEFAULT_CONFIDENCE,
) -> SweepVerdict:
    """Pick the best setting of a sweep and test it against every other one.

    Parameters
    ----------
    values : mapping name -> per-deal values (array) or Moments
        The headline metric per setting. When every entry is an array of the same
        length (aligned by deal) and ``differences`` is None, the per-deal paired
        differences are computed here.
    differences : mapping (a, b) -> differences a - b (array or Moments), optional
        For streamed runs: paired difference moments for pairs of settings; the pair
        may be given either way round ((b, a) is negated).
    higher_is_better : bool
        False for metrics to minimise.

    The best is the setting with the highest (lowest) mean; each other setting is
    compared with it by a paired t test, and the ``k - 1`` p-values are Holm-adjusted.
    Note the best is chosen on the same data, so its margin is optimistic; the test
    still guards against calling a noise winner significant over the runner-up.
    """
    if not values:
        raise ValueError("no settings to compare")
    names = list(values)
    moments = {k: _as_moments(v) for k, v in values.items()}
    means = {k: mean_ci(m, confidence) for k, m in moments.items()}
    sign = 1.0 if higher_is_better else -1.0
    ranked = sorted(names, key=lambda k: (-sign * moments[k].mean, names.index(k)))
    best = ranked[0]
    others = ranked[1:]
    comparisons: list[Comparison] = []
    for other in others:
        if differences is None:
            if isinstance(values[best], (Moments, tuple)) or isinstance(
                values[other], (Moments, tuple)
            ):
                raise ValueError("paired differences are needed when values are Moments")
            a = np.asarray(values[best], dtype=np.float64)
            b = np.asarray(values[other], dtype=np.float64)
            comp = paired_difference(a, b, confidence, best, other)
        else:
            comp = _lookup_difference(differences, best, other, confidence)
        comparisons.append(comp)
    adjusted = holm([c.p_value for c in comparisons]) if comparisons else np.array([])

    def wins(c: Comparison, p: float) -> bool:
        return bool(p < alpha and (c.mean_diff > 0) == higher_is_better and c.mean_diff != 0)

    significant = bool(comparisons) and wins(comparisons[0], float(adjusted[0]))
    return SweepVerdict(
        best=best,
        runner_up=others[0] if others else None,
        means=means,
        comparisons=tuple(comparisons),
        adjusted_p=tuple(float(p) for p in adjusted),
        significant=significant,
        alpha=alpha,
        higher_is_better=higher_is_better,
        method=f"paired t, best vs each of {len(comparisons)} others, Holm-Bonferroni",
    )


def _lookup_difference(
    differences: Mapping[tuple[str, str], Moments | npt.ArrayLike],
    a: str,
    b: str,
    confidence: float,
) -> Comparison:
    if (a, b) in differences:
        return difference_test(differences[(a, b)], confidence, a, b)
    if (b, a) in differences:
        d = differences[(b, a)]
        if isinstance(d, Moments):
            neg = Moments(d.n, -d.mean, d.m2)
        elif isinstance(d, tuple) and len(d) == 3:
            neg = Moments.from_sums(d[0], -d[1], d[2])
        else:
            neg = Moments.of(-np.asarray(d, dtype=np.float64))
        return difference_test(neg, confidence, a, b)
    raise KeyError(f"no paired differences for settings {a!r} and {b!r}")


# --- hand frames -------------------------------------------------------------------------

Frame = pl.DataFrame | pl.LazyFrame


def _collect(df: Frame) -> pl.DataFrame:
    return df.collect() if isinstance(df, pl.LazyFrame) else df


def players_of(df: Frame) -> int:
    """The number of seats, from the ``points_k`` columns."""
    names = df.collect_schema().names() if isinstance(df, pl.LazyFrame) else df.columns
    k = 0
    while f"points_{k}" in names:
        k += 1
    if k == 0:
        raise ValueError("the frame has no points_0 column")
    return k


def net_points(seat: int, players: int) -> pl.Expr:
    """Seat ``seat``'s points minus the mean of the other seats' points, per hand.

    Hand winners score and the others score 0, so this is the seat's zero-sum edge (for
    two players, its points minus the opponent's).
    """
    others = [pl.col(f"points_{k}") for k in range(players) if k != seat]
    own = pl.col(f"points_{seat}").cast(pl.Float64)
    if not others:
        return own
    return own - pl.sum_horizontal(others).cast(pl.Float64) / len(others)


def _outcome_label_expr(schema: Mapping[str, Any]) -> pl.Expr:
    dtype = schema["outcome"]
    if dtype.is_integer():
        return pl.col("outcome").replace_strict(
            list(range(len(OUTCOME_LABELS))), list(OUTCOME_LABELS), return_dtype=pl.String
        )
    return pl.col("outcome").cast(pl.String)


def group_means(
    df: Frame,
    value: str | pl.Expr,
    by: Sequence[str] = (),
    confidence: float = DEFAULT_CONFIDENCE,
    method: str = "t",
) -> pl.DataFrame:
    """Per group: ``n``, ``mean``, ``sd``, ``low``, ``high``, ``half_width``, ``method``."""
    expr = pl.col(value) if isinstance(value, str) else value
    expr = expr.cast(pl.Float64)
    aggs = [pl.len().alias("n"), expr.mean().alias("mean"), expr.var(ddof=1).alias("var")]
    lf = df.lazy()
    out = (
        lf.group_by(list(by), maintain_order=True).agg(aggs) if by else lf.select(aggs)
    ).collect()
    rows = []
    for n, mean, var in zip(out["n"], out["mean"], out["var"], strict=True):
        m = Moments(
            int(n),
            float(mean) if mean is not None else 0.0,
            (float(var) * (n - 1)) if var is not None else 0.0,
        )
        iv = mean_ci(m, confidence, method)
        rows.append((m.sd, iv.low, iv.high, iv.half_width))
    sd, low, high, hw = (list(c) for c in zip(*rows, strict=True)) if rows else ([], [], [], [])
    return out.drop("var").with_columns(
        pl.Series("sd", sd, pl.Float64),
        pl.Series("low", low, pl.Float64),
        pl.Series("high", high, pl.Float64),
        pl.Series("half_width", hw, pl.Float64),
        pl.lit(method).alias("method"),
    )


def group_rates(
    df: Frame,
    success: str | pl.Expr,
    by: Sequence[str] = (),
    confidence: float = DEFAULT_CONFIDENCE,
) -> pl.DataFrame:
    """Per group: ``n``, ``successes``, ``rate``, Wilson ``low``/``high``, ``method``."""
    expr = pl.col(success) if isinstance(success, str) else success
    aggs = [pl.len().alias("n"), expr.cast(pl.Int64).sum().alias("successes")]
    lf = df.lazy()
    out = (
        lf.group_by(list(by), maintain_order=True).agg(aggs) if by else lf.select(aggs)
    ).collect()
    ivs = [wilson(s, n, confidence) for s, n in zip(out["successes"], out["n"], strict=True)]
    return out.with_columns(
        pl.Series("rate", [iv.estimate for iv in ivs], pl.Float64),
        pl.Series("low", [iv.low for iv in ivs], pl.Float64),
        pl.Series("high", [iv.high for iv in ivs], pl.Float64),
        pl.lit("Wilson").alias("method"),
    )


def outcome_mix(
    df: Frame, by: Sequence[str] = (), confidence: float = DEFAULT_CONFIDENCE
) -> pl.DataFrame:
    """Share of hands per outcome, Wilson CIs; long format, every label present.

    Columns: ``by...``, ``outcome`` (label, in ``OUTCOME_LABELS`` order), ``count``,
    ``hands``, ``share``, ``low``, ``high``, ``method``.
    """
    lf = df.lazy()
    schema = lf.collect_schema()
    by = list(by)
    counts = (
        lf.select([*by, _outcome_label_expr(schema).alias("outcome")])
        .group_by([*by, "outcome"])
        .agg(pl.len().alias("count"))
        .collect()
    )
    if by:
        groups = lf.select(by).unique(maintain_order=True).collect()
    else:
        groups = pl.DataFrame({"_": [0]})
    labels = pl.DataFrame(
        {"outcome": list(OUTCOME_LABELS), "_order": list(range(len(OUTCOME_LABELS)))}
    )
    extra = sorted(set(counts["outcome"].to_list()) - set(OUTCOME_LABELS))
    if extra:
        labels = pl.concat(
            [
                labels,
                pl.DataFrame(
                    {
                        "outcome": extra,
                        "_order": list(
                            range(len(OUTCOME_LABELS), len(OUTCOME_LABELS) + len(extra))
                        ),
                    }
                ),
            ]
        )
    grid = groups.join(labels, how="cross")
    if not by:
        grid = grid.drop("_")
    full = grid.join(counts, on=[*by, "outcome"], how="left", nulls_equal=True).with_columns(
        pl.col("count").fill_null(0).cast(pl.Int64)
    )
    full = full.with_columns(
        (pl.col("count").sum().over(by) if by else pl.col("count").sum()).alias("hands")
    )
    group_index = {tuple(r): i for i, r in enumerate(groups.select(by).iter_rows())} if by else None
    if by:
        full = (
            full.with_columns(
                pl.Series("_g", [group_index[tuple(r)] for r in full.select(by).iter_rows()])
            )
            .sort(["_g", "_order"])
            .drop("_g")
        )
    else:
        full = full.sort("_order")
    ivs = [wilson(c, n, confidence) for c, n in zip(full["count"], full["hands"], strict=True)]
    return full.drop("_order").with_columns(
        pl.Series("share", [iv.estimate for iv in ivs], pl.Float64),
        pl.Series("low", [iv.low for iv in ivs], pl.Float64),
        pl.Series("high", [iv.high for iv in ivs], pl.Float64),
        pl.lit("Wilson").alias("method"),
    )


def seat_summary(
    df: Frame,
    players: int | None = None,
    by: Sequence[str] = (),
    confidence: float = DEFAULT_CONFIDENCE,
) -> pl.DataFrame:
    """Per seat (and group ``by``): hands, points, win rate and how its hands ended.

    Columns
    -------
    ``by...``, ``seat``, ``hands``;
    ``points``, ``points_low``, ``points_high``: points won per hand (t interval);
    ``net``, ``net_low``, ``net_high``: points minus the other seats' mean (see
    :func:`net_points`; the zero-sum edge), t interval;
    ``win_rate``, ``win_low``, ``win_high``: hands with ``winner == seat`` (Wilson);
    ``knock_rate`` (the seat ended the hand: ``knocker == seat``), ``gin_rate`` (won
    with gin or big gin), ``undercut_rate`` (the seat knocked and was undercut), and
    ``points_method`` / ``rate_method`` naming the intervals.
    """
    lf = df.lazy()
    players = players_of(lf) if players is None else players
    schema = lf.collect_schema()
    outcome = _outcome_label_expr(schema)
    by = list(by)
    parts = []
    for seat in range(players):
        pts = pl.col(f"points_{seat}").cast(pl.Float64)
        net = net_points(seat, players)
        won = pl.col("winner") == seat
        knocked = pl.col("knocker") == seat
        aggs = [
            pl.len().alias("hands"),
            pts.mean().alias("_pm"),
            pts.var(ddof=1).alias("_pv"),
            net.mean().alias("_nm"),
            net.var(ddof=1).alias("_nv"),
            won.sum().alias("_wins"),
            knocked.sum().alias("_knocks"),
            (won & outcome.is_in(["gin", "big_gin"])).sum().alias("_gins"),
            (knocked & (outcome == "undercut")).sum().alias("_undercut"),
        ]
        grouped = lf.group_by(by, maintain_order=True).agg(aggs) if by else lf.select(aggs)
        parts.append(grouped.with_columns(pl.lit(seat, pl.Int64).alias("seat")).collect())
    raw = pl.concat(parts)
    rows = []
    for r in raw.iter_rows(named=True):
        n = int(r["hands"])
        p_iv = mean_ci(_moments_from(n, r["_pm"], r["_pv"]), confidence)
        n_iv = mean_ci(_moments_from(n, r["_nm"], r["_nv"]), confidence)
        w_iv = wilson(r["_wins"], n, confidence)
        rows.append(
            {
                **{k: r[k] for k in by},
                "seat": r["seat"],
                "hands": n,
                "points": p_iv.estimate,
                "points_low": p_iv.low,
                "points_high": p_iv.high,
                "net": n_iv.estimate,
                "net_low": n_iv.low,
                "net_high": n_iv.high,
                "win_rate": w_iv.estimate,
                "win_low": w_iv.low,
                "win_high": w_iv.high,
                "knock_rate": r["_knocks"] / n if n else math.nan,
                "gin_rate": r["_gins"] / n if n else math.nan,
                "undercut_rate": r["_undercut"] / n if n else math.nan,
                "points_method": p_iv.method,
                "rate_method": w_iv.method,
            }
        )
    out = pl.DataFrame(rows)
    return out.sort([*by, "seat"], maintain_order=True) if not by else _sort_groups(out, raw, by)


def _moments_from(n: int, mean: float | None, var: float | None) -> Moments:
    """Moments from a count, mean and sample variance (polars gives None for n < 2)."""
    return Moments(n, mean or 0.0, (var or 0.0) * (n - 1) if n > 1 else 0.0)


def _sort_groups(out: pl.DataFrame, raw: pl.DataFrame, by: list[str]) -> pl.DataFrame:
    """Keep groups in first-seen order, seats ascending within each."""
    order: dict[tuple[Any, ...], int] = {}
    for key in raw.select(by).iter_rows():
        order.setdefault(tuple(key), len(order))
    idx = [order[tuple(k)] for k in out.select(by).iter_rows()]
    return out.with_columns(pl.Series("_g", idx)).sort(["_g", "seat"]).drop("_g")
