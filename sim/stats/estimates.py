"""Estimates with their intervals: proportions (Wilson), means (t, normal).

Every estimate comes back as a small frozen dataclass that names its method, so that a
table or chart can always say how an interval was made:

>>> from sim.stats import wilson, mean_ci
>>> str(wilson(81, 263))
'0.3080 [0.2553, 0.3662] (95% Wilson)'
>>> mean_ci([1.0, 2.0, 3.0, 4.0]).method
't'

- Proportions: the Wilson score interval (good coverage even near 0 and 1).
- Means: Student's t interval on ``n - 1`` degrees of freedom (``method="t"``) or the
  normal interval (``method="normal"``). Means can be computed from raw values or from
  streamed :class:`Moments` (count, mean and sum of squared deviations), which merge
  exactly with Chan et al.'s parallel formula, so per-chunk summaries combine to the
  one-pass answer.
"""

from __future__ import annotations

import math
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

import numpy as np
import numpy.typing as npt

from sim.stats.distributions import normal_quantile, t_quantile

__all__ = [
    "DEFAULT_CONFIDENCE",
    "Interval",
    "Moments",
    "PLAN_LIMIT",
    "as_moments",
    "check_confidence",
    "half_width",
    "mean_ci",
    "needed_for_half_width",
    "wilson",
]

DEFAULT_CONFIDENCE = 0.95


def check_confidence(confidence: float) -> float:
    """``confidence`` as a float strictly between 0 and 1 (ValueError otherwise)."""
    if not 0.0 < confidence < 1.0:
        raise ValueError(f"confidence must be strictly between 0 and 1, got {confidence}")
    return float(confidence)


# --- intervals ---------------------------------------------------------------------------


@dataclass(frozen=True)
class Interval:
    """An estimate with a two-sided confidence interval ``[low, high]``.

    ``method`` names how it was made ("Wilson", "t", "normal").
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

    def to_json(self) -> dict[str, Any]:
        """The interval as every study's JSON output writes it."""
        return {
            "estimate": self.estimate,
            "low": self.low,
            "high": self.high,
            "confidence": self.confidence,
            "method": self.method,
            "n": self.n,
        }

    def format(self, digits: int = 4) -> str:
        return f"{self.estimate:.{digits}f} [{self.low:.{digits}f}, {self.high:.{digits}f}]"

    def __str__(self) -> str:
        return f"{self.format()} ({self.confidence * 100:g}% {self.method})"


def wilson(successes: int, n: int, confidence: float = DEFAULT_CONFIDENCE) -> Interval:
    """The Wilson score interval for a proportion ``successes / n``.

    With no trials the estimate is NaN and the interval is [0, 1].
    """
    confidence = check_confidence(confidence)
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


def as_moments(values: MeanInput) -> Moments:
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
    confidence = check_confidence(confidence)
    if method not in ("t", "normal"):
        raise ValueError(f"method must be 't' or 'normal', got {method!r}")
    m = as_moments(values)
    if m.n < 2:
        est = m.mean if m.n else math.nan
        return Interval(est, math.nan, math.nan, method, confidence, m.n)
    half = half_width(m, confidence, method)
    return Interval(m.mean, m.mean - half, m.mean + half, method, confidence, m.n)


def half_width(m: MeanInput, confidence: float = DEFAULT_CONFIDENCE, method: str = "t") -> float:
    """Half-width of the mean's confidence interval (NaN below two values)."""
    m = as_moments(m)
    if m.n < 2:
        return math.nan
    q = 0.5 + confidence / 2.0
    crit = t_quantile(q, m.n - 1) if method == "t" else normal_quantile(q)
    return crit * m.sem


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
    m = as_moments(m)
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
