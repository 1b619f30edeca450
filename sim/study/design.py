"""Experiments: a study declared in a TOML file, played on common deals, analysed, charted.

An experiment is a rule set, a line-up and a grid of settings, played so that every
setting sees the same deals (common random numbers: one seed for all), then analysed
with confidence intervals, paired comparisons and a Holm-adjusted verdict, drawn as
charts and written up as a self-contained HTML report.

>>> from sim.study.experiment_file import load_experiment
>>> from sim.study.experiment import run_experiment
>>> from sim.study.execute import Executor
>>> exp = load_experiment("experiments/gin_knock_threshold.toml")
>>> result = run_experiment(exp, Executor(workers=2), out="results")
>>> result.data.summary.select("setting", "estimate", "low", "high", "best")

The file format (every key but ``seats`` and one of ``deals``/``games`` is optional)::

    name = "gin_knock_threshold"        # folder under the results root (default: file stem)
    description = "Which knock threshold should greedy use against simple?"
    seed = 20240607                      # master seed; drawn, printed and stored when absent
    deals = 200_000                      # single hands per setting (or: games = 2_000)
    seats = "greedy:knock_at={knock_at}/simple"   # line-up; {name} takes a grid value
    duplicate = true                     # replay every deal with the seats rotated
    headline = "net_points"              # the metric compared (see HEADLINES)
    charts = ["knock_curve", "heatmap", "outcome_mix", "hand_length"]   # default: all that fit
    rows = "hands"                       # keep per-hand rows ("none": summaries only)
    precision = 0.05                     # optional: add deals until the CI half-width <= 0.05
    max_count = 2_000_000                # cap per setting for `precision` (default 10 x deals)

    [rules]                              # or: rules = "gin"
    preset = "gin"
    knock_limit = 10                     # any rule parameter (see `rummy rules show`)

    [variants.gin]                       # optional: named rule sets compared side by side
    preset = "gin"
    [variants.gin-classic]
    preset = "gin-classic"               # a variant may also just override parameters

    [grid]                               # every combination is one setting
    knock_at = [0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10]   # or the range "0..10" ("0..10:2": step 2)
    rule.undercut_bonus = [10, 25]       # rule parameters too (a key "rule.<param>")

    [[claims]]                           # optional: hypotheses tested on the results
    says = "Knocking at 7 beats knocking at 10."     # see sim/study/claims.py
    source = "the text the advice comes from"
    treatment = { knock_at = 7 }
    control = { knock_at = 10 }
    expect = "higher"

A setting's rule set is the variant's preset (else the base preset), then the base
overrides, the variant's overrides and the setting's ``rule.*`` grid values, in that
order. The line-up template is filled with the setting's grid values and parsed by
``strategies.parse_lineup``; rule sets by ``sim.rules``, so their one-line errors name
the bad key and what is allowed.

Runs and results
----------------
Each setting is one run (``sim.study.runs``) per seat rotation (``duplicate``: rotation r
seats template seat ``(k + r) % players`` at position k, so template seat 0 plays
every position's cards on every deal), all with the same seed, under
``<out>/<name>/<run_id>/``; rerunning skips chunks already done. ``--precision``
adds blocks of further deals (block b > 0 uses the seed ``block_seed(seed, b)``, the
same for every setting, so pairing still holds) until the widest headline interval
is narrow enough or ``max_count`` is reached. The analysis writes to ``<out>/<name>/``:

``summary.parquet``
    One row per setting: ``setting``, ``group`` (settings compared with each other),
    ``variant``, one column per grid key, ``rules``, ``lineup``, ``mode``, ``units``
    (deals or games per rotation), ``hands`` (all rotations), ``rotations``;
    ``headline``, ``estimate``, ``low``, ``high``, ``half_width``, ``method`` (the
    headline metric of template seat 0 with its 95% interval); ``points``/``net``
    per hand with ``_low``/``_high`` (t), ``win_rate``/``win_low``/``win_high``
    (Wilson), ``knock_rate``, ``gin_rate``, ``undercut_rate``, ``mean_turns``; in
    games mode also ``net_score``, ``game_win_rate`` (and CIs), ``hands_per_game``;
    ``best``, ``diff_vs_best``, ``diff_low``, ``diff_high``, ``p_value``,
    ``holm_p``, ``compare_method``; ``run_ids``.
``seats.parquet``
    Per setting and template seat: ``strategy``, ``hands``, ``points``, ``net``,
    ``win_rate`` (with CIs), ``knock_rate``.
``outcomes.parquet``, ``turns.parquet``
    How hands ended (``outcome``, ``count``, ``share`` with Wilson CI) and how long
    they lasted (``turns``, ``count``), per setting.
``comparisons.parquet``
    Per group (the settings under the same rules): the best setting against every other
    one on common deals (paired t; Holm-adjusted over the group).
``claims.parquet``
    Only with claims: one row per claim and cell, its effect, interval, n and verdict.
``house_rules.parquet``
    Only where settings differ in their rules (single deals, hand rows kept): each rule
    setting against the first on the same deals (``sim/study/house_rules.py``).
``experiment.json``, ``charts/*.png|svg``, ``report.html``
    The resolved experiment (seed included), the runs, the verdicts and provenance;
    the charts; the report.
"""

from __future__ import annotations

import dataclasses
import math
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Literal

from sim.rules import DEFAULT_PRESET, PARAMETERS, RuleError, parse_overrides
from sim.sizes import DEFAULT_DEALS
from sim.study.kinds import EXPERIMENT

__all__ = [
    "ALPHA",
    "CHART_KINDS",
    "EXPERIMENT_JSON",
    "HEADLINES",
    "MAX_SETTINGS",
    "TABLE_FILES",
    "Experiment",
    "ExperimentError",
    "Variant",
    "applicable_charts",
    "default_charts",
    "fail",
    "headline_unit",
    "knock_at_problem",
    "rule_value",
    "why_not",
]


class ExperimentError(ValueError):
    """An experiment that cannot be read, expanded or run (one-line message)."""


# name -> (mode it needs, short label, what it measures)
HEADLINES: dict[str, tuple[str, str, str]] = {
    "net_points": (
        "deals",
        "net points per hand",
        "seat 0's points minus the mean of the other seats' points, per hand",
    ),
    "points": ("deals", "points per hand", "seat 0's points per hand"),
    "win_rate": ("deals", "hands won", "share of hands seat 0 wins"),
    "net_score": (
        "games",
        "net score per game",
        "seat 0's final game score minus the mean of the other seats' scores, per game",
    ),
    "game_win_rate": ("games", "games won", "share of games seat 0 wins"),
}
DEFAULT_HEADLINE = {"deals": "net_points", "games": "net_score"}
RATE_HEADLINES = frozenset({"win_rate", "game_win_rate"})


def headline_unit(headline: str) -> str:
    """A headline metric's unit as printed (rates are stored as fractions of 1)."""
    if headline in RATE_HEADLINES:
        return "%"
    return "points per game" if HEADLINES[headline][0] == "games" else "points per hand"


CHART_KINDS = ("knock_curve", "curve", "heatmap", "outcome_mix", "hand_length")
"""``knock_curve``: headline and win rate against the knock threshold; ``curve``: the
same against another numeric grid key (one line per seat when every seat plays the
same strategy); ``heatmap``: the headline over threshold x variant; ``outcome_mix``:
how hands end, per setting; ``hand_length``: the distribution of turns per hand."""

KEYS = (
    "name",
    "description",
    "seed",
    "deals",
    "games",
    "rules",
    "variants",
    "seats",
    "grid",
    "duplicate",
    "headline",
    "charts",
    "threshold",
    "rows",
    "chunk_size",
    "precision",
    "max_count",
    "claims",
)
"""Every top-level key of an experiment file."""

MAX_SETTINGS = 2_000  # a grid beyond this is almost surely a typo ("0..10000")
PRECISION_CAP = 10  # `precision` stops at max_count, by default 10 x the planned count
MIN_EXTENSION = 1_000  # smallest block `precision` adds (re-planning is not free)
ALPHA = 0.05
EXPERIMENT_JSON = EXPERIMENT.records[0]
TABLE_FILES = {
    "summary": "summary.parquet",
    "seats": "seats.parquet",
    "outcomes": "outcomes.parquet",
    "turns": "turns.parquet",
    "comparisons": "comparisons.parquet",
}
PLACEHOLDER = re.compile(r"\{([^{}]*)\}")
IDENT = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*$")
_THRESHOLD_NAMES = ("knock_at", "rule.knock_limit")


# --- the declaration -----------------------------------------------------------------


@dataclass(frozen=True)
class Variant:
    """A named rule set of an experiment: a preset (None: the base preset) and overrides."""

    name: str
    preset: str | None = None
    overrides: tuple[tuple[str, Any], ...] = ()


@dataclass(frozen=True, kw_only=True)
class Experiment:
    """One study: rules, variants, a line-up template, a grid, a size and a seed.

    Build one with :func:`load_experiment` (a TOML file) or :meth:`from_dict` (the
    same keys as a dict); both check every key and every setting. ``source`` names
    the file in error messages.
    """

    name: str
    seats: tuple[str, ...]
    description: str = ""
    seed: int | None = None
    mode: Literal["deals", "games"] = "deals"
    count: int = DEFAULT_DEALS["sweep"]
    rules: str = DEFAULT_PRESET
    rule: tuple[tuple[str, Any], ...] = ()
    variants: tuple[Variant, ...] = ()
    grid: tuple[tuple[str, tuple[Any, ...]], ...] = ()
    duplicate: bool = False
    headline: str = ""
    charts: tuple[str, ...] | None = None
    threshold: str | None = None
    rows: Literal["hands", "none"] = "hands"
    chunk_size: int | None = None
    precision: float | None = None
    max_count: int | None = None
    claims: tuple[Any, ...] = ()  # sim.study.claims.Claim, tested after the analysis
    source: str = dataclasses.field(default="experiment", compare=False)

    def __post_init__(self) -> None:
        where = self.source
        if not self.headline:
            object.__setattr__(self, "headline", DEFAULT_HEADLINE[self.mode])
        if self.headline not in HEADLINES:
            raise ExperimentError(
                f"{where}: headline = {self.headline!r} is not allowed; choose one of: "
                f"{', '.join(HEADLINES)}"
            )
        needs = HEADLINES[self.headline][0]
        if needs != self.mode:
            allowed = ", ".join(k for k, v in HEADLINES.items() if v[0] == self.mode)
            raise ExperimentError(
                f"{where}: headline = {self.headline!r} needs {needs}; with {self.mode} "
                f"choose one of: {allowed}"
            )
        if self.threshold is None:
            object.__setattr__(self, "threshold", _detect_threshold(self))
        elif self.threshold not in self.grid_keys:
            raise ExperimentError(
                f"{where}: threshold = {self.threshold!r} is not a grid key; the grid has: "
                f"{', '.join(self.grid_keys) or '(none)'}"
            )
        if self.charts is not None:
            fit = applicable_charts(self.meta())
            for kind in self.charts:
                if kind not in CHART_KINDS:
                    raise ExperimentError(
                        f"{where}: charts: {kind!r} is not a chart; choose from: "
                        f"{', '.join(CHART_KINDS)}"
                    )
                if kind not in fit:
                    raise ExperimentError(f"{where}: charts: {why_not(kind)}")
        if self.claims and self.rows != "hands":
            raise ExperimentError(
                f"{where}: claims need the per-hand rows (paired deals, rates among hands); "
                f"rows = {self.rows!r} keeps none: use rows = 'hands'"
            )
        precision = self.precision  # as the file's (replace_checked skips the reader)
        if precision is not None and (
            isinstance(precision, bool)
            or not isinstance(precision, int | float)
            or not 0 < precision < math.inf
        ):
            raise ExperimentError(
                f"{where}: precision = {precision!r} is not allowed; give a finite number > 0"
            )
        if self.max_count is not None and self.max_count < self.count:
            raise ExperimentError(
                f"{where}: max_count = {self.max_count} is below the planned "
                f"{self.mode} = {self.count}"
            )

    # --- views ---------------------------------------------------------------------

    @property
    def grid_keys(self) -> tuple[str, ...]:
        return tuple(k for k, _ in self.grid)

    @property
    def grid_dict(self) -> dict[str, tuple[Any, ...]]:
        return dict(self.grid)

    @property
    def template(self) -> str:
        """The line-up template, seats joined by "/"."""
        return "/".join(self.seats)

    @property
    def n_settings(self) -> int:
        return max(1, len(self.variants)) * math.prod(len(v) for _, v in self.grid)

    def meta(self) -> dict[str, Any]:
        """What charts need to know about the design (see :func:`applicable_charts`)."""
        return {
            "grid_keys": list(self.grid_keys),
            "numeric_keys": [k for k, v in self.grid if _numeric(v)],
            "threshold": self.threshold,
            "variants": [v.name for v in self.variants],
            "symmetric": _symmetric_template(self.template),
        }

    def to_dict(self) -> dict[str, Any]:
        """The experiment in the file's keys (``from_dict(to_dict())`` rebuilds it)."""
        out: dict[str, Any] = {"name": self.name}
        if self.description:
            out["description"] = self.description
        if self.seed is not None:
            out["seed"] = self.seed
        out[self.mode] = self.count
        out["rules"] = {"preset": self.rules, **dict(self.rule)}
        if self.variants:
            out["variants"] = {
                v.name: {**({"preset": v.preset} if v.preset else {}), **dict(v.overrides)}
                for v in self.variants
            }
        out["seats"] = list(self.seats) if len(self.seats) > 1 else self.seats[0]
        if self.grid:
            out["grid"] = {k: list(v) for k, v in self.grid}
        out["duplicate"] = self.duplicate
        out["headline"] = self.headline
        if self.charts is not None:
            out["charts"] = list(self.charts)
        if self.threshold is not None:
            out["threshold"] = self.threshold
        out["rows"] = self.rows
        for key in ("chunk_size", "precision", "max_count"):
            if getattr(self, key) is not None:
                out[key] = getattr(self, key)
        if self.claims:
            out["claims"] = [claim.to_dict() for claim in self.claims]
        return out


def why_not(kind: str) -> str:
    """Why a chart kind does not fit an experiment, in words."""
    return {
        "knock_curve": "'knock_curve' needs a knock threshold in the grid (knock_at, "
        "rule.knock_limit, or a key used as knock_at={key} in seats)",
        "curve": "'curve' needs a numeric grid key",
        "heatmap": "'heatmap' needs two or more variants, or a grid of two or more keys",
        "outcome_mix": "'outcome_mix' is always available",
        "hand_length": "'hand_length' is always available",
    }[kind]


def applicable_charts(meta: Mapping[str, Any]) -> tuple[str, ...]:
    """The chart kinds that fit an experiment's design (``Experiment.meta()``)."""
    kinds = []
    if meta.get("threshold"):
        kinds.append("knock_curve")
    if meta.get("numeric_keys"):
        kinds.append("curve")
    if meta.get("grid_keys") and (
        len(meta.get("variants") or []) >= 2 or len(meta["grid_keys"]) >= 2
    ):
        kinds.append("heatmap")
    kinds += ["outcome_mix", "hand_length"]
    return tuple(kinds)


def default_charts(meta: Mapping[str, Any]) -> tuple[str, ...]:
    """Charts drawn when an experiment names none: all that fit, ``curve`` only when
    there is no knock threshold."""
    kinds = applicable_charts(meta)
    if "knock_curve" in kinds:
        kinds = tuple(k for k in kinds if k != "curve")
    return kinds


def _numeric(values: Sequence[Any]) -> bool:
    return bool(values) and all(
        isinstance(v, (int, float)) and not isinstance(v, bool) for v in values
    )


def _symmetric_template(template: str) -> bool:
    seats = template.split("/")
    return len({s.strip() for s in seats}) == 1


def _detect_threshold(experiment: Experiment) -> str | None:
    for key, values in experiment.grid:
        if not _numeric(values) or not all(float(v).is_integer() for v in values):
            continue
        if key in _THRESHOLD_NAMES:
            return key
        if re.search(r"knock_at\s*=\s*\{" + re.escape(key) + r"\}", experiment.template):
            return key
    return None


def knock_at_problem(rules: Any, knock_at: float) -> str | None:
    """Why a grid or tune should not play ``knock_at`` under ``rules``, or None.

    A knock is legal only within the rules' knock limit, so every threshold above it
    plays as the limit itself: a range ``0..99`` under gin would play 89 copies of
    ``knock_at=10`` and report them as settings. The ceiling is the limit (a number),
    10 under ``upcard`` (the most an upcard can set); without a limit there is none."""
    limit = rules.knock_limit
    ceiling = 10 if limit == "upcard" else limit
    if ceiling is None or knock_at <= ceiling:
        return None
    return (
        f"knock_at={knock_at:g} is above the knock limit of {rules.name} ({ceiling}), so it "
        f"plays as knock_at={ceiling}; give knock_at -1..{ceiling} (-1: the limit)"
    )


def fail(where: str, message: str) -> ExperimentError:
    """An error about an experiment, prefixed with where it came from."""
    return ExperimentError(f"{where}: {message}")


def rule_value(where: str, param: str, value: Any) -> Any:
    """A rule value from the file (native TOML types) or the command line (text)."""
    if param not in PARAMETERS:
        raise fail(where, f"unknown rule parameter {param!r}; choose from: {', '.join(PARAMETERS)}")
    if isinstance(value, str):
        try:
            return parse_overrides([f"{param}={value}"])[param]
        except RuleError as error:
            raise fail(where, str(error)) from None
    if isinstance(value, (bool, int)):
        return value
    if isinstance(value, float) and value.is_integer():
        return int(value)
    raise fail(where, f"rule {param} = {value!r} is not allowed; give a number, text or boolean")
