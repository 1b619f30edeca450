"""Comparisons: paired differences, multiple testing and the verdict of a sweep.

- Paired differences (two variants or strategies on identical deals): the paired t
  test, two-sided p-value; the variance reduction that duplicate seating buys.
- Sweeps: the best setting against every other one, each a paired t test, with the
  Holm-Bonferroni step-down adjustment over those ``k - 1`` comparisons.
- Paired win rates: McNemar's exact test on the discordant deals.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import numpy as np
import numpy.typing as npt

from sim.stats.distributions import regularized_beta, t_sf
from sim.stats.estimates import (
    DEFAULT_CONFIDENCE,
    Interval,
    Moments,
    as_moments,
    mean_ci,
)

if TYPE_CHECKING:
    import polars as pl

__all__ = [
    "Comparison",
    "SweepVerdict",
    "VarianceReduction",
    "best_vs_runner_up",
    "difference_test",
    "decimals_for",
    "format_estimate",
    "format_p",
    "holm",
    "mcnemar_exact",
    "p_clause",
    "paired_difference",
    "variance_reduction",
]

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

    def to_json(self) -> dict[str, Any]:
        """The comparison as every study's JSON output writes it."""
        return {
            "estimate": self.mean_diff,
            "low": self.ci.low,
            "high": self.ci.high,
            "confidence": self.ci.confidence,
            "half_width": self.ci.half_width,
            "method": self.method,
            "p_value": self.p_value,
            "t": self.t,
            "sd": self.sd,
            "n": self.n,
        }

    def __str__(self) -> str:
        return (
            f"{self.label_a} - {self.label_b}: {self.ci.format()} "
            f"({self.ci.confidence * 100:g}% {self.method}), p = {self.p_value:.3g}, n = {self.n}"
        )


def format_p(p: float | None) -> str:
    """A p-value as every table prints it: two significant digits, "< 1e-300" when it
    underflows to 0, "" when there is none (the best setting against itself)."""
    if p is None or math.isnan(p):
        return ""
    return "< 1e-300" if p == 0 else f"{p:.2g}"


def p_clause(p: float) -> str:
    """``p = 0.012``, or ``p < 1e-300``: a p-value in a sentence."""
    return "p < 1e-300" if p == 0 else f"p = {p:.2g}"


def decimals_for(half_width: float, default: int = 2) -> int:
    """Decimals that show an interval's half-width with two significant digits
    (``default`` when it has none: NaN or 0); between 0 and 6."""
    if not math.isfinite(half_width) or half_width <= 0:
        return default
    return min(6, max(0, 1 - math.floor(math.log10(half_width))))


def _number(value: float, decimals: int, sign: bool) -> str:
    text = f"{value:+.{decimals}f}" if sign else f"{value:.{decimals}f}"
    if float(text) == 0.0:  # no "-0.00" for a tiny negative
        text = f"{0.0:+.{decimals}f}" if sign else f"{0.0:.{decimals}f}"
    return text.replace("-", "−") if False else text


def format_estimate(
    estimate: float | None,
    low: float | None = None,
    high: float | None = None,
    *,
    unit: str = "",
    percent: bool = False,
    sign: bool = False,
    decimals: int | None = None,
) -> str:
    """How every number with uncertainty is written: ``estimate [low, high]``.

    The decimals follow the interval's width (:func:`decimals_for`: the half-width to
    two significant digits) unless ``decimals`` is given; ``percent``: a rate stored as
    a fraction, written in % (``37.9% [36.6, 39.1]``); ``unit`` follows the interval
    (``1.8 [1.2, 2.4] points per hand``; a difference of rates, ``sign`` and
    ``percent``, is in percentage points); ``sign``: ``+`` on a positive estimate (a
    difference). "-" when there is no estimate; the estimate alone without an interval.
    """
    if estimate is None or not math.isfinite(estimate):
        return "-"
    scale = 100.0 if percent else 1.0
    ok = low is not None and high is not None and math.isfinite(low) and math.isfinite(high)
    if decimals is None:
        width = (high - low) * scale / 2 if ok else math.nan  # type: ignore[operator]
        decimals = decimals_for(width, 1 if percent else 2)
    points = percent and sign  # a difference of two rates: percentage points
    text = _number(estimate * scale, decimals, sign) + ("%" if percent and not sign else "")
    if ok:
        text += (
            f" [{_number(low * scale, decimals, False)}, "  # type: ignore[operator]
            f"{_number(high * scale, decimals, False)}]"  # type: ignore[operator]
        )
    if points and unit:
        return f"{text} percentage points"
    return f"{text} {unit}" if unit and not percent else text


def difference_test(
    diffs: Moments | npt.ArrayLike,
    confidence: float = DEFAULT_CONFIDENCE,
    label_a: str = "a",
    label_b: str = "b",
) -> Comparison:
    """Paired t test and interval from the per-deal differences (raw or as Moments)."""
    m = as_moments(diffs)
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
    p, d = as_moments(plain_diffs), as_moments(duplicate_diffs)
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

    def summary(self, unit: str = "", percent: bool = False) -> str:
        """The verdict in a sentence; the difference in ``unit`` (``percent``: a rate)."""
        if self.runner_up is None:
            return f"{self.best} is the only setting"
        comp, p = self.comparisons[0], self.adjusted_p[0]
        verdict = "significantly" if self.significant else "not significantly"
        diff = format_estimate(
            comp.mean_diff, comp.ci.low, comp.ci.high, unit=unit, percent=percent, sign=True
        )
        return (
            f"best: {self.best}; {verdict} better than the runner-up {self.runner_up} "
            f"(difference {diff}, Holm-adjusted {p_clause(p)} over "
            f"{len(self.comparisons)} comparisons, alpha = {self.alpha:g})"
        )

    def table(self) -> pl.DataFrame:
        """One row per setting: mean and CI, and the comparison with the best."""
        import polars as pl  # here: the terminal's figures import this module, not polars

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
    moments = {k: as_moments(v) for k, v in values.items()}
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


def mcnemar_exact(a_only: int, b_only: int) -> float:
    """Two-sided exact McNemar p-value from the discordant counts.

    Under "no difference" each discordant pair goes either way with probability 1/2:
    ``p = min(1, 2 P(X <= min(a_only, b_only)))``, ``X ~ Binomial(a_only + b_only, 1/2)``;
    ``P(X <= k) = I_{1/2}(d - k, k + 1)`` (the regularized incomplete beta).
    """
    d = int(a_only) + int(b_only)
    if d == 0:
        return 1.0
    k = min(int(a_only), int(b_only))
    if k == d:  # pragma: no cover - k is the smaller count, so k == d only when d == 0
        return 1.0
    return min(1.0, 2.0 * regularized_beta(0.5, d - k, k + 1))
