"""Distributions without SciPy: the normal and Student t, and the incomplete beta.

The normal quantile by Acklam's rational approximation refined by one Halley step on
``erfc`` (|error| < 1e-14); the t tail (:func:`t_sf`) through the regularized incomplete
beta function (Lentz's continued fraction), or Hill's normalizing transformation for
large degrees of freedom; the t quantile by safeguarded Newton iteration on that tail.
SciPy checks all of them in the tests (``tests/sim/stats``), tails included.
"""

from __future__ import annotations

import math

__all__ = [
    "normal_cdf",
    "normal_quantile",
    "regularized_beta",
    "t_quantile",
    "t_sf",
]


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
