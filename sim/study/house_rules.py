"""The house-rule question: how each rule setting changes the game, on common deals.

An experiment whose settings differ in their rules (variants, ``rule.*`` grid keys)
is compared per rule setting (``Analysis.groups``): a best is named only among
settings under the same rules. What the rules themselves change is answered here,
each rule setting against the first one (the *reference*), deal by deal:

* ``turns``: turns per hand;
* ``gin_rate``: the share of hands that end in gin, big gin or rummy;
* ``undercut_rate``: the share of hands that end in an undercut;
* ``first_edge``: the points of the player who moves first (the dealer's left) minus
  the mean of the other players' points, per hand: the first player's edge;
* ``headline``: for every strategy setting (the grid values that are not rules), seat
  0's headline metric: what the rules do to the value of that strategy.

Every run of an experiment has the same seed and a deal's shuffle is a function of the
seed and the deal number alone (``kernels/rng.py``: ``stream_key(key, number, stream)``),
so deal ``i`` is the same shuffle under every rule setting (rules that change the
number of players or cards deal different hands from it). A measure's per-deal value
is its mean over the setting's seatings (and, for the first four, over the group's
strategy settings); each rule setting's difference from the reference is the paired t
interval of those per-deal differences. Deals mode with per-hand rows only.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

import numpy as np
import numpy.typing as npt
import polars as pl

from sim.stats import Moments, difference_test, mean_ci
from sim.store import StorePath
from sim.study.quantities import SHARE_OF_HANDS
from sim.study.rundir import load_hands
from sim.study.runs import RunError

__all__ = ["MEASURES", "HOUSE_RULE_SCHEMA", "SHARE", "hand_measures", "house_rule_table"]

SHARE = SHARE_OF_HANDS  # the unit of a rate: a fraction of every hand (printed in %)
# measure -> (what it is, its unit, whether it is a rate)
MEASURES: dict[str, tuple[str, str, bool]] = {
    "turns": ("hand length", "turns per hand", False),
    "gin_rate": ("gin rate (gin, big gin, rummy)", SHARE, True),
    "undercut_rate": ("undercut rate", SHARE, True),
    "first_edge": ("first player's edge", "points per hand", False),
}
_GIN_OUTCOMES = ("gin", "big_gin", "rummy")

HOUSE_RULE_SCHEMA = {
    "group": pl.String,
    "reference": pl.String,
    "measure": pl.String,
    "strategy": pl.String,
    "unit": pl.String,
    "value": pl.Float64,
    "value_low": pl.Float64,
    "value_high": pl.Float64,
    "reference_value": pl.Float64,
    "difference": pl.Float64,
    "low": pl.Float64,
    "high": pl.Float64,
    "p_value": pl.Float64,
    "n": pl.Int64,
    "method": pl.String,
}
"""One row per rule setting other than the reference and measure (and, for
``headline``, strategy setting): the value under the rule setting with its 95% t
interval, the reference's value, the paired difference (rule setting minus reference)
with its 95% t interval, two-sided p and the number of deals."""


Floats = npt.NDArray[np.float64]
Keys = npt.NDArray[np.int64]


def hand_measures(run_dir: StorePath, players: int) -> tuple[Keys, dict[str, Floats]]:
    """One run's (game, deal) keys and the per-hand values of every ``MEASURES`` entry."""
    points = [f"points_{k}" for k in range(players)]
    frame = (
        load_hands(run_dir)
        .select("game", "deal", "dealer", "outcome", "turns", *points)
        .collect()
        .sort(["game", "deal"])
    )
    keys = np.stack(
        [frame["game"].to_numpy().astype(np.int64), frame["deal"].to_numpy().astype(np.int64)],
        axis=1,
    )
    outcome = frame["outcome"].cast(pl.String)
    table = frame.select(points).to_numpy().astype(np.float64)
    first = (frame["dealer"].to_numpy().astype(np.int64) + 1) % players
    own = table[np.arange(table.shape[0]), first]
    others = (table.sum(axis=1) - own) / max(players - 1, 1)
    return keys, {
        "turns": frame["turns"].to_numpy().astype(np.float64),
        "gin_rate": outcome.is_in(_GIN_OUTCOMES).to_numpy().astype(np.float64),
        "undercut_rate": (outcome == "undercut").to_numpy().astype(np.float64),
        "first_edge": own - others if players > 1 else own,
    }


def setting_measures(
    dirs: Sequence[StorePath], players: int, what: str
) -> tuple[Keys, dict[str, Floats]]:
    """A setting's per-deal measures: each the mean over its seatings' runs."""
    keys: npt.NDArray[np.int64] | None = None
    total: dict[str, npt.NDArray[np.float64]] = {}
    for d in dirs:
        k, values = hand_measures(d, players)
        if keys is None:
            keys = k
        elif k.shape != keys.shape or not np.array_equal(k, keys):
            raise RunError(f"{what}: its seatings do not hold the same deals; cannot pair them")
        for name, v in values.items():
            total[name] = total[name] + v if name in total else v
    assert keys is not None
    return keys, {name: v / len(dirs) for name, v in total.items()}


def house_rule_table(
    groups: Mapping[str, Sequence[int]],
    measures: Sequence[Mapping[str, npt.NDArray[np.float64]]],
    headline: Sequence[npt.NDArray[np.float64]],
    strategies: Sequence[str],
    headline_unit: str,
    headline_rate: bool,
) -> pl.DataFrame:
    """The house-rule table (``HOUSE_RULE_SCHEMA``): every rule group against the first.

    ``measures[i]`` / ``headline[i]``: setting i's per-deal values (common deals, in
    deal order); ``strategies[i]``: its strategy setting (the grid values that are not
    rules), which pairs the ``headline`` rows across groups.
    """
    names = list(groups)
    rows: list[dict[str, object]] = []
    if len(names) < 2:
        return pl.DataFrame(rows, schema=HOUSE_RULE_SCHEMA)
    reference = names[0]

    def pooled(group: str, name: str) -> npt.NDArray[np.float64]:
        members = groups[group]
        return np.mean([measures[i][name] for i in members], axis=0)

    def row(group: str, measure: str, strategy: str, unit: str, a: npt.NDArray[np.float64],
            b: npt.NDArray[np.float64]) -> dict[str, object]:  # fmt: skip
        if a.shape != b.shape:
            raise RunError(
                f"rule settings {group!r} and {reference!r} hold different numbers of deals "
                f"({a.size} and {b.size}); they cannot be paired"
            )
        value = mean_ci(Moments.of(a))
        comp = difference_test(a - b)
        return {
            "group": group,
            "reference": reference,
            "measure": measure,
            "strategy": strategy,
            "unit": unit,
            "value": value.estimate,
            "value_low": value.low,
            "value_high": value.high,
            "reference_value": float(np.mean(b)) if b.size else float("nan"),
            "difference": comp.mean_diff,
            "low": comp.ci.low,
            "high": comp.ci.high,
            "p_value": comp.p_value,
            "n": comp.n,
            "method": "paired t over common deals (rule setting minus reference)",
        }

    ref_by_strategy = {strategies[i]: i for i in groups[reference]}
    for group in names[1:]:
        for measure, (_, unit, _) in MEASURES.items():
            rows.append(
                row(group, measure, "", unit, pooled(group, measure), pooled(reference, measure))
            )
        for i in groups[group]:
            j = ref_by_strategy.get(strategies[i])
            if j is None:
                continue
            unit = SHARE if headline_rate else headline_unit
            rows.append(row(group, "headline", strategies[i], unit, headline[i], headline[j]))
    return pl.DataFrame(rows, schema=HOUSE_RULE_SCHEMA)
