"""Statistics: distributions, estimates with intervals, comparisons, frame summaries.

One module per idea, all re-exported here (``from sim.stats import wilson``):

* ``distributions``: normal and Student t functions and the incomplete beta (no SciPy);
* ``estimates``: :class:`Interval`, :class:`Moments`, Wilson and t intervals, planning
  a sample size;
* ``comparisons``: paired tests, Holm-Bonferroni, the verdict of a sweep, McNemar;
* ``frames``: per-seat and per-outcome summaries of polars hand frames;
* ``deadwood``: the distribution of the least deadwood of random hands
  (``rummy stats deadwood``), imported on its own (it loads the solver).
"""

from typing import TYPE_CHECKING, Any

from sim.stats.comparisons import (
    Comparison,
    SweepVerdict,
    VarianceReduction,
    best_vs_runner_up,
    decimals_for,
    difference_test,
    format_estimate,
    format_p,
    holm,
    mcnemar_exact,
    p_clause,
    paired_difference,
    variance_reduction,
)
from sim.stats.distributions import (
    normal_cdf,
    normal_quantile,
    regularized_beta,
    t_quantile,
    t_sf,
)
from sim.stats.estimates import (
    DEFAULT_CONFIDENCE,
    PLAN_LIMIT,
    Interval,
    Moments,
    as_moments,
    check_confidence,
    half_width,
    mean_ci,
    needed_for_half_width,
    wilson,
)

if TYPE_CHECKING:
    from sim.stats.frames import net_points, outcome_mix, players_of, seat_summary

# ``frames`` loads polars (a quarter of a second at every start): its names load at
# their first use, so a command that shows no frame (``rummy deadwood``, ``rummy
# score``) never imports it.
_FRAMES = ("net_points", "outcome_mix", "players_of", "seat_summary")


def __getattr__(name: str) -> Any:
    if name in _FRAMES:
        from sim.stats import frames

        return getattr(frames, name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


__all__ = [
    "DEFAULT_CONFIDENCE",
    "PLAN_LIMIT",
    "Comparison",
    "Interval",
    "Moments",
    "SweepVerdict",
    "VarianceReduction",
    "as_moments",
    "best_vs_runner_up",
    "check_confidence",
    "decimals_for",
    "difference_test",
    "format_estimate",
    "format_p",
    "half_width",
    "holm",
    "mcnemar_exact",
    "mean_ci",
    "needed_for_half_width",
    "net_points",
    "normal_cdf",
    "normal_quantile",
    "outcome_mix",
    "p_clause",
    "paired_difference",
    "players_of",
    "regularized_beta",
    "seat_summary",
    "t_quantile",
    "t_sf",
    "variance_reduction",
    "wilson",
]
