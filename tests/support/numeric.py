"""Independent numeric checks for the statistics tests: a t tail by integration, and
closeness with a relative and an absolute tolerance."""

from __future__ import annotations

import math

import numpy as np
import pytest


def t_sf_numeric(t: float, df: float) -> float:
    """P(T > t) by the trapezoid rule on the density (an independent check), over
    ``x = t + s / (1 - s)``, s in [0, 1), so the whole heavy tail is included."""
    s = np.linspace(0.0, 1.0, 2_000_001)[:-1]
    x = t + s / (1.0 - s)
    log_c = math.lgamma((df + 1) / 2) - math.lgamma(df / 2) - 0.5 * math.log(df * math.pi)
    f = np.exp(log_c - (df + 1) / 2 * np.log1p(x * x / df)) / (1.0 - s) ** 2
    return float(np.sum((f[1:] + f[:-1]) / 2 * np.diff(s)))


def close(ours: float, theirs: float, rel: float = 1e-10, abs_: float = 1e-300) -> bool:
    """``ours`` within ``rel`` of ``theirs``, or within ``abs_`` of it."""
    return ours == pytest.approx(theirs, rel=rel, abs=abs_)
