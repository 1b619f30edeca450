"""Experiments: a study declared in a TOML file, played on common deals, analysed, charted.

An experiment is a rule set, a line-up and a grid of settings, played so that every
setting sees the same deals (common random numbers: one seed for all), then analysed
with confidence intervals, paired comparisons and a Holm-adjusted verdict, drawn as
charts and written up as a self-contained HTML report.

>>> from sim.experiment import load_experiment, run_experiment
>>> exp = load_experiment("experiments/gin_knock_threshold.toml")
>>> result = run_experiment(exp, workers=2, out="results")
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

A setting's rule set is the variant's preset (else the base preset), then the base
overrides, the variant's overrides and the setting's ``rule.*`` grid values, in that
order. The line-up template is filled with the setting's grid values and parsed by
``strategies.parse_lineup``; rule sets by ``sim.rules``, so their one-line errors name
the bad key and what is allowed.

Runs and results
----------------
Each setting is one ``sim.runner`` run per seat rotation (``duplicate``: rotation r
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
    Per group: the best setting against every other one on common deals (paired t;
    Holm-adjusted over the group).
``experiment.json``, ``charts/*.png|svg``, ``report.html``
    The resolved experiment (seed included), the runs, the verdicts and provenance;
    the charts; the report.
"""

from __future__ import annotations

import dataclasses
import functools
import itertools
import json
import math
import multiprocessing
import os
import queue as queue_module
import re
import shlex
import sys
import time
from collections.abc import Callable, Iterable, Mapping, Sequence
from concurrent.futures import FIRST_COMPLETED, Future, wait
from concurrent.futures.process import BrokenProcessPool
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Any, Literal, NamedTuple

import numpy as np
import polars as pl

from kernels import layout as L
from sim import results as R
from sim import runner, store
from sim.rules import PARAMETERS, PRESETS, RuleError, RuleSet, get_rules, parse_overrides
from sim.stats import Interval, Moments, best_vs_runner_up, mean_ci, needed_for_half_width, wilson
from sim.workers import process_pool
from strategies import StrategyError, format_seat, parse_lineup

__all__ = [
    "CHART_KINDS",
    "HEADLINES",
    "Experiment",
    "ExperimentData",
    "ExperimentError",
    "ExperimentProgress",
    "ExperimentResult",
    "Setting",
    "Variant",
    "analyse",
    "applicable_charts",
    "block_seed",
    "chart_figures",
    "data_from_run",
    "expand",
    "load_experiment",
    "load_experiment_data",
    "load_results",
    "parse_grid_values",
    "run_experiment",
    "save_charts",
    "write_experiment_report",
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
)
"""Every top-level key of an experiment file."""

MAX_SETTINGS = 2_000  # a grid beyond this is almost surely a typo ("0..10000")
PRECISION_CAP = 10  # `precision` stops at max_count, by default 10 x the planned count
MIN_EXTENSION = 1_000  # smallest block `precision` adds (re-planning is not free)
ALPHA = 0.05
EXPERIMENT_JSON = "experiment.json"
TABLE_FILES = {
    "summary": "summary.parquet",
    "seats": "seats.parquet",
    "outcomes": "outcomes.parquet",
    "turns": "turns.parquet",
    "comparisons": "comparisons.parquet",
}
_PLACEHOLDER = re.compile(r"\{([^{}]*)\}")
_IDENT = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*$")
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
    count: int = 100_000
    rules: str = "gin"
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
                    raise ExperimentError(f"{where}: charts: {_why_not(kind)}")
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
        return out

    @classmethod
    def from_dict(
        cls, data: Mapping[str, Any], *, source: str = "experiment", name: str | None = None
    ) -> Experiment:
        """Read and check an experiment from the keys of its file (see the module doc).

        Every setting is expanded once (rules and line-ups parsed), so a bad preset,
        parameter, strategy or value fails here with a one-line :class:`ExperimentError`.
        """
        experiment = _from_dict(data, source, name)
        expand(experiment, seed=0)  # parse every setting's rules and line-up
        return experiment

    def replace(self, **changes: Any) -> Experiment:
        """A copy with some fields changed, checked again."""
        new = dataclasses.replace(self, **changes)
        expand(new, seed=0)
        return new


def _why_not(kind: str) -> str:
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


# --- reading the file ----------------------------------------------------------------


def load_experiment(path: str | os.PathLike[str]) -> Experiment:
    """Read an experiment TOML file (one-line :class:`ExperimentError` on any problem)."""
    import tomllib

    where = str(path)
    p = Path(path)
    if not p.exists():
        raise ExperimentError(f"{where}: no such experiment file")
    if p.is_dir():
        raise ExperimentError(f"{where}: is a directory, not an experiment file (.toml)")
    try:
        text = p.read_bytes().decode("utf-8")
    except UnicodeDecodeError:
        raise ExperimentError(f"{where}: not a text file (TOML is UTF-8)") from None
    except OSError as error:
        raise ExperimentError(f"{where}: cannot read ({error.strerror or error})") from None
    try:
        data = tomllib.loads(text)
    except tomllib.TOMLDecodeError as error:
        raise ExperimentError(f"{where}: not valid TOML ({R._one_line(error)})") from None
    return Experiment.from_dict(data, source=where, name=p.stem)


def _fail(where: str, message: str) -> ExperimentError:
    return ExperimentError(f"{where}: {message}")


def _want_int(where: str, key: str, value: Any, low: int, high: int = runner.MAX_COUNT) -> int:
    if isinstance(value, bool) or not isinstance(value, int) or not low <= value <= high:
        raise _fail(where, f"{key} = {value!r} is not allowed; give a whole number {low}..{high}")
    return value


def _want_str(where: str, key: str, value: Any) -> str:
    if not isinstance(value, str):
        raise _fail(where, f"{key} = {value!r} is not allowed; give a text in quotes")
    return value


def _check_label(where: str, key: str, value: str) -> str:
    try:
        return runner.check_name(value, key)
    except runner.RunError as error:
        raise _fail(where, str(error)) from None


def _rule_value(where: str, param: str, value: Any) -> Any:
    """A rule value from the file (native TOML types) or the command line (text)."""
    if param not in PARAMETERS:
        raise _fail(
            where, f"unknown rule parameter {param!r}; choose from: {', '.join(PARAMETERS)}"
        )
    if isinstance(value, str):
        try:
            return parse_overrides([f"{param}={value}"])[param]
        except RuleError as error:
            raise _fail(where, str(error)) from None
    if isinstance(value, (bool, int)):
        return value
    if isinstance(value, float) and value.is_integer():
        return int(value)
    raise _fail(where, f"rule {param} = {value!r} is not allowed; give a number, text or boolean")


def _rules_table(
    where: str, key: str, value: Any
) -> tuple[str | None, tuple[tuple[str, Any], ...]]:
    if isinstance(value, str):
        return value, ()
    if not isinstance(value, Mapping):
        raise _fail(where, f"{key} must be a preset name or a table of rule parameters")
    preset = value.get("preset")
    if preset is not None and not isinstance(preset, str):
        raise _fail(where, f"{key}.preset = {preset!r} is not allowed; give a preset name")
    if preset is not None and preset not in PRESETS:
        raise _fail(
            where, f"{key}.preset: unknown preset {preset!r}; choose one of: {', '.join(PRESETS)}"
        )
    overrides = tuple(
        (param, _rule_value(where, param, v)) for param, v in value.items() if param != "preset"
    )
    return preset, overrides


def parse_grid_values(text: str) -> list[Any]:
    """Grid values from text: ``"0..10"``, ``"0..10:2"`` (a step) or ``"10,25,x"``.

    Each comma-separated item becomes an int, else a float, else stays text. A range
    of more than ``MAX_SETTINGS`` values is refused before it is listed.
    """
    text = text.strip()
    match = re.fullmatch(r"(-?\d+)\s*\.\.\s*(-?\d+)(?:\s*:\s*(\d+))?", text)
    if match:
        low, high = int(match.group(1)), int(match.group(2))
        step = int(match.group(3) or 1)
        if step < 1 or high < low:
            raise ValueError(f"range {text!r} is empty; write low..high with low <= high")
        _check_size(text, (high - low) // step + 1)
        return list(range(low, high + 1, step))
    if ".." in text:
        raise ValueError(f"bad range {text!r}; write low..high or low..high:step (whole numbers)")
    _check_size(text, text.count(",") + 1)
    values: list[Any] = []
    for item in text.split(","):
        item = item.strip()
        if not item:
            raise ValueError(f"empty value in {text!r}; separate values with commas")
        for kind in (int, float):
            try:
                values.append(kind(item))
                break
            except ValueError:
                continue
        else:
            values.append(item)
    return values


def _check_size(text: str, n: int) -> None:
    if n > MAX_SETTINGS:
        raise ValueError(
            f"{text[:40]!r}{'...' if len(text) > 40 else ''} has {n:,} values; "
            f"a grid may hold at most {MAX_SETTINGS:,} settings"
        )


def _grid(where: str, value: Any) -> tuple[tuple[str, tuple[Any, ...]], ...]:
    if not isinstance(value, Mapping):
        raise _fail(where, "grid must be a table: key = [values]")
    flat: dict[str, Any] = {}
    for key, values in value.items():
        if key == "rule" and isinstance(values, Mapping):  # rule.x = [...] unquoted in TOML
            for param, v in values.items():
                flat[f"rule.{param}"] = v
        else:
            flat[key] = values
    if not flat:
        raise _fail(where, "grid is empty; give at least one key = [values], or leave it out")
    out = []
    for key, values in flat.items():
        if isinstance(values, str):
            try:
                values = parse_grid_values(values)
            except ValueError as error:
                raise _fail(where, f"grid.{key}: {error}") from None
        if not isinstance(values, list):
            raise _fail(where, f"grid.{key} must be a list of values or a range 'low..high'")
        if not values:
            raise _fail(where, f"grid.{key} is empty; give at least one value")
        if len(values) > MAX_SETTINGS:
            raise _fail(
                where,
                f"grid.{key} has {len(values):,} values; a grid may hold at most "
                f"{MAX_SETTINGS:,} settings",
            )
        seen: set[tuple[type, Any]] = set()
        for v in values:
            if isinstance(v, (dict, list)):
                raise _fail(where, f"grid.{key}: {v!r} is not a value; give numbers or text")
            if (type(v), v) in seen:
                raise _fail(where, f"grid.{key} lists {v!r} twice")
            seen.add((type(v), v))
        out.append((key, tuple(values)))
    return tuple(out)


def _from_dict(data: Mapping[str, Any], where: str, default_name: str | None) -> Experiment:
    if not isinstance(data, Mapping):
        raise _fail(where, "an experiment is a table of keys")
    for key in data:
        if key not in KEYS:
            raise _fail(where, f"unknown key {key!r}; allowed: {', '.join(KEYS)}")
    values: dict[str, Any] = {"source": where}
    name = data.get("name", default_name)
    if name is None:
        raise _fail(where, 'name is missing; give name = "..."')
    values["name"] = _check_label(where, "name", _want_str(where, "name", name))
    if "description" in data:
        values["description"] = _want_str(where, "description", data["description"])
    if "seed" in data:
        values["seed"] = _want_int(where, "seed", data["seed"], 0, runner.MAX_SEED)
    sizes = [k for k in ("deals", "games") if k in data]
    if len(sizes) != 1:
        raise _fail(
            where,
            "give exactly one size: deals = N (single hands) or games = N (whole games)",
        )
    values["mode"] = sizes[0]
    values["count"] = _want_int(where, sizes[0], data[sizes[0]], 1)
    preset, overrides = _rules_table(where, "rules", data.get("rules", "gin"))
    if preset is None:
        raise _fail(where, "rules.preset is missing; give a preset name (see `rummy rules list`)")
    if preset not in PRESETS:
        raise _fail(where, f"rules: unknown preset {preset!r}; choose one of: {', '.join(PRESETS)}")
    values["rules"], values["rule"] = preset, overrides
    if "variants" in data:
        table = data["variants"]
        if not isinstance(table, Mapping) or not table:
            raise _fail(where, "variants must be a table of named rule sets: [variants.NAME]")
        variants = []
        for vname, spec in table.items():
            _check_label(where, "variant name", vname)
            if not isinstance(spec, Mapping):
                raise _fail(where, f"variants.{vname} must be a table (preset and/or parameters)")
            vpreset, voverrides = _rules_table(where, f"variants.{vname}", spec)
            variants.append(Variant(vname, vpreset, voverrides))
        values["variants"] = tuple(variants)
    if "seats" not in data:
        raise _fail(where, 'seats is missing; give a line-up such as "greedy:knock_at={k}/simple"')
    seats = data["seats"]
    if isinstance(seats, str):
        seats = [seats]
    if not isinstance(seats, list) or not seats or not all(isinstance(s, str) for s in seats):
        raise _fail(where, "seats must be a line-up text or a list of seat specs")
    values["seats"] = tuple(seats)
    if "grid" in data:
        values["grid"] = _grid(where, data["grid"])
    if "duplicate" in data:
        if not isinstance(data["duplicate"], bool):
            raise _fail(
                where, f"duplicate = {data['duplicate']!r} is not allowed; give true or false"
            )
        values["duplicate"] = data["duplicate"]
    if "headline" in data:
        values["headline"] = _want_str(where, "headline", data["headline"])
    if "charts" in data:
        charts = data["charts"]
        if isinstance(charts, str):
            charts = [charts]
        if not isinstance(charts, list) or not all(isinstance(c, str) for c in charts):
            raise _fail(where, f"charts must be a list of: {', '.join(CHART_KINDS)}")
        values["charts"] = tuple(c.replace("-", "_") for c in charts)
    if "threshold" in data:
        values["threshold"] = _want_str(where, "threshold", data["threshold"])
    if "rows" in data:
        if data["rows"] not in ("hands", "none"):
            raise _fail(where, f"rows = {data['rows']!r} is not allowed; choose 'hands' or 'none'")
        values["rows"] = data["rows"]
    if "chunk_size" in data:
        values["chunk_size"] = _want_int(where, "chunk_size", data["chunk_size"], 1)
    if "precision" in data:
        p = data["precision"]
        if isinstance(p, bool) or not isinstance(p, (int, float)) or not p > 0:
            raise _fail(where, f"precision = {p!r} is not allowed; give a number > 0")
        values["precision"] = float(p)
    if "max_count" in data:
        values["max_count"] = _want_int(where, "max_count", data["max_count"], 1)
    _check_grid_use(where, values)
    return Experiment(**values)


def _check_grid_use(where: str, values: dict[str, Any]) -> None:
    grid = dict(values.get("grid", ()))
    template = "/".join(values["seats"])
    used = _PLACEHOLDER.findall(template)
    for name in used:
        if not _IDENT.match(name):
            raise _fail(
                where, f"seats: {{{name}}} is not a placeholder; write {{name}} with a grid key"
            )
        if name not in grid:
            raise _fail(
                where,
                f"seats uses {{{name}}} but the grid has no key {name!r}; "
                f"grid keys: {', '.join(grid) or '(none)'}",
            )
    for key in grid:
        if key.startswith("rule."):
            if key[5:] not in PARAMETERS:
                raise _fail(
                    where,
                    f"grid key {key!r}: unknown rule parameter {key[5:]!r}; choose from: "
                    f"{', '.join(PARAMETERS)}",
                )
            continue
        if not _IDENT.match(key):
            raise _fail(where, f"grid key {key!r} is not allowed; use a name, or rule.<parameter>")
        if key not in used:
            raise _fail(
                where,
                f"grid key {key!r} is not used: put {{{key}}} in seats, or name a rule "
                f"parameter as rule.{key}",
            )
    n = max(1, len(values.get("variants", ()))) * math.prod(len(v) for v in grid.values())
    if n > MAX_SETTINGS:
        raise _fail(where, f"the grid makes {n} settings; at most {MAX_SETTINGS} are allowed")


# --- settings ------------------------------------------------------------------------


@dataclass(frozen=True)
class Setting:
    """One point of the design: a variant and a grid point, played as one run per
    seat rotation (one run without ``duplicate``).

    ``rotations[i]`` is the rotation of ``configs[i]``: there, position ``j`` holds
    template seat ``(j + r) % players``, so template seat ``k`` sits at
    ``(k - r) % players``.
    """

    label: str
    variant: str
    params: tuple[tuple[str, Any], ...]
    rules: RuleSet
    lineup: tuple[str, ...]
    configs: tuple[runner.RunConfig, ...]
    rotations: tuple[int, ...]
    run_dirs: tuple[Path, ...] = ()

    @property
    def dirs(self) -> tuple[Path, ...]:
        """Each config's run directory (``run_dirs`` when given: a run read in place)."""
        return self.run_dirs or tuple(c.run_dir for c in self.configs)

    @property
    def players(self) -> int:
        return self.rules.players

    def position(self, seat: int, rotation: int) -> int:
        """Where template seat ``seat`` sits in the run of ``rotation``."""
        return (seat - rotation) % self.players


def block_seed(seed: int, block: int) -> int:
    """The seed of extension block ``block`` (0: the seed itself); the same for every
    setting, so settings still share deals. SeedSequence's spawn key keeps blocks
    independent of each other and of other seeds."""
    if block == 0:
        return int(seed)
    words = np.random.SeedSequence(int(seed), spawn_key=(int(block),)).generate_state(2, np.uint32)
    return (int(words[0]) << 32) | int(words[1])


def _fill(template: str, params: Mapping[str, Any]) -> str:
    return _PLACEHOLDER.sub(lambda m: str(params[m.group(1)]), template)


def _short_key(key: str, keys: Sequence[str]) -> str:
    """``rule.players`` reads as ``players`` in labels, unless that is a grid key too."""
    if key.startswith("rule.") and key[5:] not in keys:
        return key[5:]
    return key


def _format_value(value: Any) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    return str(value)


def expand(
    experiment: Experiment,
    *,
    out: str | os.PathLike[str] = "results",
    workers: int = 1,
    backend: Literal["local", "ray"] = "local",
    address: str | None = None,
    rows: Literal["hands", "none"] | None = None,
    block: int = 0,
    count: int | None = None,
    seed: int | None = None,
    command: str | None = None,
) -> list[Setting]:
    """Every setting of the experiment (variant x grid point), in declaration order.

    Every run of every setting gets the same seed (``block_seed(seed, block)``), so
    all settings play identical deals: common random numbers. ``count`` (default the
    experiment's) is the deals or games of this block per setting.
    """
    where = experiment.source
    seed = experiment.seed if seed is None else seed
    if seed is None:
        seed = runner.new_seed()
    run_seed = block_seed(seed, block)
    variants = experiment.variants or (Variant(experiment.rules),)
    many = len(experiment.variants) > 1
    keys = experiment.grid_keys
    grids = [v for _, v in experiment.grid]
    settings = []
    for variant in variants:
        for point in itertools.product(*grids) if grids else [()]:
            params = dict(zip(keys, point, strict=True))
            parts = ([variant.name] if many or not keys else []) + [
                f"{_short_key(k, keys)}={_format_value(v)}" for k, v in params.items()
            ]
            label = ", ".join(parts)
            overrides = dict(experiment.rule)
            overrides.update(dict(variant.overrides))
            rule_parts = []
            for k, v in params.items():
                if k.startswith("rule."):
                    overrides[k[5:]] = _rule_value(where, k[5:], v)
                    rule_parts.append(f"{k[5:]}={_format_value(v)}")
            preset = variant.preset or experiment.rules
            try:
                rules = get_rules(preset, **overrides)
            except RuleError as error:
                raise _fail(where, f"setting {label!r}: {error}") from None
            text = _fill(experiment.template, params)
            try:
                seats = parse_lineup(text, rules.players)
            except StrategyError as error:
                raise _fail(where, f"setting {label!r}: {error}") from None
            lineup = tuple(format_seat(s, p) for s, p in seats)
            rotations: list[int] = []
            lineups: list[tuple[str, ...]] = []
            for r in range(rules.players if experiment.duplicate else 1):
                rotated = tuple(lineup[(j + r) % rules.players] for j in range(rules.players))
                if rotated not in lineups:  # a symmetric line-up rotates onto itself
                    rotations.append(r)
                    lineups.append(rotated)
            run_label = ", ".join([variant.name, *rule_parts])
            try:
                configs = tuple(
                    runner.RunConfig(
                        rules=rules,
                        lineup=rotated,
                        count=experiment.count if count is None else count,
                        mode=experiment.mode,
                        experiment=experiment.name,
                        variant=run_label,
                        seed=run_seed,
                        chunk_size=experiment.chunk_size,
                        workers=workers,
                        backend=backend,
                        address=address,
                        rows=rows or experiment.rows,
                        out=Path(out),
                        command=command if command is not None else shlex.join(sys.argv),
                    )
                    for rotated in lineups
                )
            except (runner.RunError, RuleError, StrategyError) as error:
                raise _fail(where, f"setting {label!r}: {error}") from None
            settings.append(
                Setting(
                    label=label,
                    variant=variant.name,
                    params=tuple(params.items()),
                    rules=rules,
                    lineup=lineup,
                    configs=configs,
                    rotations=tuple(rotations),
                )
            )
    labels = [s.label for s in settings]
    if len(set(labels)) != len(labels):  # e.g. 1 and 1.0 in one grid list
        dup = next(x for x in labels if labels.count(x) > 1)
        raise _fail(where, f"two settings are both {dup!r}; make the grid values distinct")
    return settings


# --- running -------------------------------------------------------------------------


class ExperimentProgress(NamedTuple):
    """What a ``progress`` callback of :func:`run_experiment` receives.

    ``phase``: "engine" (loading or compiling the engine), "run", "analyse",
    "charts", "report". During "run": deals or games done of the total over every
    run of this block (chunks found done count as done), hands played by this call,
    seconds since the block started, runs finished, and the block (0: the planned
    size; 1, 2, ...: blocks added by ``precision``).
    """

    phase: str
    units_done: int = 0
    units_total: int = 0
    hands_done: int = 0
    elapsed: float = 0.0
    runs_done: int = 0
    runs_total: int = 0
    block: int = 0


ProgressCallback = Callable[[ExperimentProgress], None]

_QUEUE: Any = None


def _pool_init(progress_queue: Any) -> None:
    """Worker start: keep the progress queue, import the engine (loads its cache)."""
    global _QUEUE
    _QUEUE = progress_queue
    import sim.engine  # noqa: F401


def _pool_run(index: int, config: runner.RunConfig) -> runner.RunResult:
    """One whole run in a worker process (chunks in this process: workers=1)."""

    def report(p: runner.Progress) -> None:
        if _QUEUE is not None:
            _QUEUE.put((index, tuple(p)))

    return runner.run(config, progress=report)


class _Tracker:
    """Adds up the runs' progress reports into one :class:`ExperimentProgress`."""

    def __init__(
        self, configs: Sequence[runner.RunConfig], block: int, callback: ProgressCallback | None
    ):
        self.totals = [c.count for c in configs]
        self.units = [0] * len(configs)
        self.hands = [0] * len(configs)
        self.done = 0
        self.block = block
        self.callback = callback
        self.started = time.perf_counter()

    def update(self, index: int, p: Sequence[Any]) -> None:
        prog = runner.Progress(*p)
        self.units[index] = prog.units_done
        self.hands[index] = prog.hands_played
        self.emit()

    def finished(self) -> None:
        self.done += 1
        self.emit()

    def emit(self) -> None:
        if self.callback is not None:
            self.callback(
                ExperimentProgress(
                    "run",
                    sum(self.units),
                    sum(self.totals),
                    sum(self.hands),
                    time.perf_counter() - self.started,
                    self.done,
                    len(self.totals),
                    self.block,
                )
            )

    @property
    def hands_played(self) -> int:
        return sum(self.hands)


def _execute(
    configs: list[runner.RunConfig],
    *,
    workers: int,
    backend: str,
    address: str | None,
    tracker: _Tracker,
) -> list[runner.RunResult]:
    """Run every config through ``sim.runner.run``.

    Many small runs go to a pool of ``workers`` processes, one whole run each (a pool
    per run would cost a process start and an engine load per run); a few big ones
    run one after another, each with its chunks on the runner's own pool; Ray runs
    them one after another with chunks as tasks, on one Ray instance.
    """
    tracker.emit()
    if backend == "ray":
        return _execute_ray(configs, workers, address, tracker)
    if workers <= 1 or len(configs) < workers:
        out = []
        for i, config in enumerate(configs):
            config = dataclasses.replace(config, workers=max(1, workers))
            out.append(runner.run(config, progress=functools.partial(tracker.update, i)))
            tracker.finished()
        return out
    return _execute_pool(configs, workers, tracker)


def _execute_pool(
    configs: list[runner.RunConfig], workers: int, tracker: _Tracker
) -> list[runner.RunResult]:
    progress_queue = multiprocessing.get_context("spawn").Queue()
    pool = process_pool(min(workers, len(configs)), _pool_init, (progress_queue,))
    results: list[runner.RunResult | None] = [None] * len(configs)

    def drain() -> None:
        while True:
            try:
                index, p = progress_queue.get_nowait()
            except queue_module.Empty:
                return
            tracker.update(index, p)

    try:
        futures: dict[Future[runner.RunResult], int] = {
            pool.submit(_pool_run, i, dataclasses.replace(c, workers=1)): i
            for i, c in enumerate(configs)
        }
        pending = set(futures)
        while pending:
            done, pending = wait(pending, timeout=0.25, return_when=FIRST_COMPLETED)
            drain()
            for future in done:
                try:
                    results[futures[future]] = future.result()
                except BrokenProcessPool:
                    raise ExperimentError(
                        "a worker process died (out of memory or killed); finished chunks "
                        "are kept: run the same command again to resume"
                    ) from None
                tracker.finished()
        drain()
    finally:
        pool.shutdown(wait=True, cancel_futures=True)
        progress_queue.close()
        progress_queue.join_thread()
    return [r for r in results if r is not None]


def _execute_ray(
    configs: list[runner.RunConfig], workers: int, address: str | None, tracker: _Tracker
) -> list[runner.RunResult]:
    try:
        import ray
    except ImportError:
        raise ExperimentError("backend 'ray' needs Ray: pip install 'rummy-sim[ray]'") from None
    started = False
    if not ray.is_initialized():  # one instance for every run (the runner keeps it)
        options: dict[str, Any] = {"include_dashboard": False, "log_to_driver": False}
        if address is None:
            options["num_cpus"] = workers
        ray.init(address=address, **options)
        started = True
    try:
        out = []
        for i, config in enumerate(configs):
            out.append(runner.run(config, progress=functools.partial(tracker.update, i)))
            tracker.finished()
        return out
    finally:
        if started:
            ray.shutdown()


def check_backend(backend: str) -> None:
    """Fail before anything is written when the backend cannot run here."""
    if backend == "ray":
        try:
            import ray  # noqa: F401
        except ImportError:
            raise ExperimentError("backend 'ray' needs Ray: pip install 'rummy-sim[ray]'") from None
    elif backend != "local":
        raise ExperimentError(f"backend={backend!r} is not allowed; choose 'local' or 'ray'")


def prepare_engine(rules: RuleSet | str = "gin", lineup: str | Sequence[str] = "greedy") -> float:
    """Load the round engine in this process (the first use ever compiles it, about a
    minute; later ones read the disk cache in about a second). Returns the seconds."""
    from sim.engine import play_deals

    started = time.perf_counter()
    play_deals(rules, lineup, deals=1, seed=0, threads=1)
    return time.perf_counter() - started


@dataclass(frozen=True)
class ExperimentResult:
    """What :func:`run_experiment` did and found."""

    experiment: Experiment
    directory: Path
    settings: tuple[Setting, ...]
    data: ExperimentData
    runs: tuple[runner.RunResult, ...]
    charts: tuple[Path, ...]
    report: Path | None
    elapsed: float
    hands_played: int
    blocks: int
    precision_reached: bool | None


def run_experiment(
    experiment: Experiment,
    workers: int | None = None,
    out: str | os.PathLike[str] = "results",
    progress: ProgressCallback | None = None,
    *,
    backend: Literal["local", "ray"] = "local",
    address: str | None = None,
    rows: Literal["hands", "none"] | None = None,
    charts: bool = True,
    report: bool = True,
    command: str | None = None,
) -> ExperimentResult:
    """Play every setting (resumable), analyse, and write tables, charts and report.

    Parameters
    ----------
    experiment : Experiment
        Its seed, when None, is drawn here (read it back from ``result.experiment``).
    workers : int, optional
        Processes (default: the CPU count).
    out : path
        Results root; everything goes to ``<out>/<experiment.name>/``.
    progress : callable, optional
        Called with :class:`ExperimentProgress` as the work goes on.
    rows : {"hands", "none"}, optional
        Overrides the experiment's ``rows``.

    Raises
    ------
    ExperimentError, sim.runner.RunError
        One line: an unwritable output directory, a run directory holding another run
        or in use, a worker that died.
    """
    started = time.perf_counter()
    if experiment.seed is None:
        experiment = dataclasses.replace(experiment, seed=runner.new_seed())
    if rows is not None and rows != experiment.rows:
        experiment = dataclasses.replace(experiment, rows=rows)
    workers = workers or os.cpu_count() or 1
    command = command if command is not None else shlex.join(sys.argv)
    out = Path(out)
    directory = out / experiment.name
    options: dict[str, Any] = {
        "out": out,
        "workers": workers,
        "backend": backend,
        "address": address,
    }
    settings = expand(experiment, command=command, **options)
    check_backend(backend)
    store.make_dir(directory)
    record = {
        "schema_version": R.SCHEMA_VERSION,
        "kind": "rummy-sim experiment",
        "status": "running",
        "experiment": experiment.to_dict(),
        "started": datetime.now(UTC).isoformat(timespec="seconds"),
        "command": command,
    }
    store.write_json_atomic(directory / EXPERIMENT_JSON, record)

    def tell(phase: str) -> None:
        if progress is not None:
            progress(ExperimentProgress(phase))

    tell("engine")
    if backend == "local":
        prepare_engine(settings[0].rules, settings[0].lineup)
    blocks: list[list[Setting]] = [settings]
    all_runs: list[runner.RunResult] = []
    hands_played = 0

    def play(block_settings: list[Setting], block: int) -> None:
        nonlocal hands_played
        configs = [c for s in block_settings for c in s.configs]
        tracker = _Tracker(configs, block, progress)
        all_runs.extend(
            _execute(configs, workers=workers, backend=backend, address=address, tracker=tracker)
        )
        hands_played += tracker.hands_played

    play(settings, 0)
    tell("analyse")
    analysis = _Analysis(experiment, blocks)
    reached: bool | None = None
    if experiment.precision is not None:
        target = experiment.precision
        cap = experiment.max_count or PRECISION_CAP * experiment.count
        total = experiment.count
        while True:
            widest = analysis.widest_half_width()
            if widest <= target:
                reached = True
                break
            if total >= cap:
                reached = False
                break
            extra = min(cap - total, max(analysis.extra_units(target), MIN_EXTENSION))
            block = len(blocks)
            more = expand(experiment, block=block, count=extra, command=command, **options)
            blocks.append(more)
            play(more, block)
            total += extra
            tell("analyse")
            analysis = _Analysis(experiment, blocks)
    data = analysis.data(started=started, hands_played=hands_played, reached=reached)
    written = write_tables(data, directory)
    chart_paths: list[Path] = []
    if charts:
        tell("charts")
        chart_paths = save_charts(data, directory / "charts")
    report_path = None
    if report:
        tell("report")
        report_path = write_experiment_report(data, directory / "report.html")
    record.update(
        status="done",
        finished=datetime.now(UTC).isoformat(timespec="seconds"),
        analysis=record_of(data),
        files=list(written),
        digests=written,
    )
    store.write_json_atomic(directory / EXPERIMENT_JSON, record)
    return ExperimentResult(
        experiment=experiment,
        directory=directory,
        settings=tuple(settings),
        data=data,
        runs=tuple(all_runs),
        charts=tuple(chart_paths),
        report=report_path,
        elapsed=time.perf_counter() - started,
        hands_played=hands_played,
        blocks=len(blocks),
        precision_reached=reached,
    )


# --- analysis --------------------------------------------------------------------------

Sums = dict[tuple[str, int, int], int]


def _sums(run_dir: Path) -> Sums:
    frame = runner.load_summary(run_dir)
    out: Sums = {}
    for stat, seat, key, value in frame.select("stat", "seat", "key", "value").iter_rows():
        out[(stat, int(seat), int(key))] = out.get((stat, int(seat), int(key)), 0) + int(value)
    return out


def _add_sums(a: Sums, b: Sums) -> Sums:
    out = dict(a)
    for k, v in b.items():
        out[k] = out.get(k, 0) + v
    return out


def _cross(s: Sums, stat: str, i: int, j: int) -> int:
    a, b = (i, j) if i < j else (j, i)
    return s.get((stat, a, b), 0)


def _net_moments(s: Sums, prefix: str, n: int, seat: int, players: int) -> Moments:
    """Moments of ``x_seat - mean(x_others)`` from exact integer sums (engine units).

    With ``Q = players - 1`` and ``X = Q x_s - sum_{j != s} x_j`` (an integer per
    hand): ``sum X = Q S_s - sum S_j`` and ``sum X^2 = Q^2 SS_s - 2Q sum_j C_sj +
    sum_j SS_j + 2 sum_{j<k} C_jk`` (j, k != s); scaled by ``1 / (POINT_SCALE Q)``.
    """
    q = players - 1
    others = [j for j in range(players) if j != seat]
    total = q * s.get((f"{prefix}_sum", seat, -1), 0) - sum(
        s.get((f"{prefix}_sum", j, -1), 0) for j in others
    )
    square = q * q * s.get((f"{prefix}_sumsq", seat, -1), 0)
    square -= 2 * q * sum(_cross(s, f"{prefix}_cross", seat, j) for j in others)
    square += sum(s.get((f"{prefix}_sumsq", j, -1), 0) for j in others)
    square += 2 * sum(
        _cross(s, f"{prefix}_cross", j, k) for j, k in itertools.combinations(others, 2)
    )
    return Moments.from_sums(n, total, square).scaled(1.0 / (L.POINT_SCALE * q))


def _own_moments(s: Sums, prefix: str, n: int, seat: int) -> Moments:
    return Moments.from_sums(
        n, s.get((f"{prefix}_sum", seat, -1), 0), s.get((f"{prefix}_sumsq", seat, -1), 0)
    ).scaled(1.0 / L.POINT_SCALE)


def _knocks(s: Sums, seat: int, outcomes: Iterable[int] | None = None) -> int:
    keep = None if outcomes is None else set(outcomes)
    return sum(
        v
        for (stat, st, key), v in s.items()
        if stat == "knocker_outcome" and st == seat and (keep is None or key in keep)
    )


def _unit_frame(run_dir: Path, mode: str, pos: int, players: int) -> pl.DataFrame:
    """Per deal (or game) values of the seat at ``pos``: ``number`` and the metrics."""
    from sim.stats import net_points

    if mode == "deals":
        lf = runner.load_hands(run_dir)
        return lf.select(
            pl.col("game").alias("number"),
            net_points(pos, players).alias("net_points"),
            pl.col(f"points_{pos}").cast(pl.Float64).alias("points"),
            (pl.col("winner") == pos).cast(pl.Float64).alias("win_rate"),
        ).collect()
    lf = runner.load_games(run_dir)
    others = [pl.col(f"score_{k}") for k in range(players) if k != pos]
    return lf.select(
        pl.col("game").alias("number"),
        (pl.col(f"score_{pos}") - pl.sum_horizontal(others) / len(others)).alias("net_score"),
        (pl.col("winner") == pos).cast(pl.Float64).alias("game_win_rate"),
    ).collect()


def _interval_row(prefix: str, iv: Interval) -> dict[str, float]:
    return {prefix: iv.estimate, f"{prefix}_low": iv.low, f"{prefix}_high": iv.high}


def _unpaired(a: Moments, b: Moments) -> Moments:
    """Moments whose paired-t test equals Welch's unpaired test at equal n (rows='none':
    no per-deal pairing; ignoring the positive correlation of common deals is
    conservative)."""
    n = min(a.n, b.n)
    var = (a.variance if a.n > 1 else 0.0) * n / max(a.n, 1) + (
        b.variance if b.n > 1 else 0.0
    ) * n / max(b.n, 1)
    return Moments(n, a.mean - b.mean, var * (n - 1))


class _Analysis:
    """Statistics of every setting over all blocks (see :func:`analyse`)."""

    def __init__(self, experiment: Experiment, blocks: Sequence[Sequence[Setting]]):
        self.experiment = experiment
        self.blocks = blocks
        self.settings = list(blocks[0])
        self.rows_kept = experiment.rows == "hands"
        self.mode = experiment.mode
        self.headline = experiment.headline
        n = len(self.settings)
        # per setting: per rotation index, summary sums over blocks
        self.sums: list[list[Sums]] = [[{} for _ in s.configs] for s in self.settings]
        self.units = [0] * n
        self.values: list[dict[str, np.ndarray]] = [{} for _ in range(n)]
        for block in blocks:
            for i, setting in enumerate(block):
                self.units[i] += setting.configs[0].count
                for r, run_dir in enumerate(setting.dirs):
                    self.sums[i][r] = _add_sums(self.sums[i][r], _sums(run_dir))
                if self.rows_kept:
                    self._add_values(i, setting)
        self.headline_iv: list[Interval] = []
        self.headline_m: list[Moments] = []
        for i in range(n):
            iv, m = self._headline(i)
            self.headline_iv.append(iv)
            self.headline_m.append(m)

    # per-unit values: template seat 0, averaged over rotations, concatenated over blocks
    def _add_values(self, i: int, setting: Setting) -> None:
        frames = [
            _unit_frame(d, self.mode, setting.position(0, r), setting.players)
            for d, r in zip(setting.dirs, setting.rotations, strict=True)
        ]
        expected = np.arange(setting.configs[0].count)
        for frame in frames:
            got = frame["number"].to_numpy()
            if got.shape != expected.shape or not np.array_equal(got, expected):
                raise ExperimentError(
                    f"{setting.dirs[0]}: rows do not cover numbers 0..{len(expected) - 1}"
                )
        for column in frames[0].columns:
            if column == "number":
                continue
            mean = np.mean([f[column].to_numpy() for f in frames], axis=0)
            old = self.values[i].get(column)
            self.values[i][column] = mean if old is None else np.concatenate([old, mean])

    def pooled(self, i: int, seat: int = 0) -> dict[str, Any]:
        """Seat ``seat`` of setting ``i`` over every rotation (hands pooled)."""
        setting = self.settings[i]
        P = setting.players
        hands = games = wins = knocks = gins = undercuts = game_wins = 0
        points = net = net_score = Moments()
        special = {L.OUTCOME_LABELS.index(x) for x in ("gin", "big_gin", "rummy")}
        undercut = L.OUTCOME_LABELS.index("undercut")
        for r, s in zip(setting.rotations, self.sums[i], strict=True):
            pos = setting.position(seat, r)
            h = s.get(("hands", -1, -1), 0)
            hands += h
            points += _own_moments(s, "points", h, pos)
            net += _net_moments(s, "points", h, pos, P)
            wins += s.get(("wins", pos, -1), 0)
            knocks += _knocks(s, pos)
            gins += _knocks(s, pos, special)
            undercuts += _knocks(s, pos, [undercut])
            if self.mode == "games":
                g = s.get(("count", -1, -1), 0)
                games += g
                net_score += _net_moments(s, "score", g, pos, P)
                game_wins += s.get(("game_wins", pos, -1), 0)
        return {
            "hands": hands,
            "games": games,
            "points": points,
            "net": net,
            "wins": wins,
            "knocks": knocks,
            "gins": gins,
            "undercuts": undercuts,
            "net_score": net_score,
            "game_wins": game_wins,
        }

    def _headline(self, i: int) -> tuple[Interval, Moments]:
        rotations = len(self.settings[i].configs)
        if self.rows_kept:
            m = Moments.of(self.values[i][self.headline])
            iv = mean_ci(m)
            method = "t" + (
                f" over duplicate {self.mode} ({rotations} seatings)" if rotations > 1 else ""
            )
            return dataclasses.replace(iv, method=method), m
        p = self.pooled(i)
        if self.headline in ("win_rate", "game_win_rate"):
            n, k = (
                (p["hands"], p["wins"])
                if self.headline == "win_rate"
                else (p["games"], p["game_wins"])
            )
            return wilson(k, n), Moments.from_sums(n, k, k)
        m = {"net_points": p["net"], "points": p["points"], "net_score": p["net_score"]}[
            self.headline
        ]
        iv = mean_ci(m)
        method = "t" + (" (seatings pooled)" if rotations > 1 else "")
        return dataclasses.replace(iv, method=method), m

    def widest_half_width(self) -> float:
        return max(iv.half_width for iv in self.headline_iv)

    def extra_units(self, target: float) -> int:
        """Deals (games) to add to every setting so the widest interval should fit."""
        extra = 0
        for i, m in enumerate(self.headline_m):
            need = needed_for_half_width(m, target)
            per_unit = m.n / max(self.units[i], 1)  # values per deal: seatings when pooled
            extra = max(extra, math.ceil((need - m.n) / max(per_unit, 1e-9)))
        return extra

    def groups(self) -> dict[str, list[int]]:
        """Settings compared with each other: per variant when a grid runs within
        several variants (scores of different rule sets are not one scale), else all."""
        exp = self.experiment
        if exp.grid and len(exp.variants) > 1:
            out: dict[str, list[int]] = {}
            for i, s in enumerate(self.settings):
                out.setdefault(s.variant, []).append(i)
            return out
        return {"all": list(range(len(self.settings)))}

    def compare(
        self,
    ) -> tuple[list[dict[str, Any]], list[dict[str, Any]], dict[int, dict[str, Any]]]:
        verdicts: list[dict[str, Any]] = []
        rows: list[dict[str, Any]] = []
        per_setting: dict[int, dict[str, Any]] = {}
        for group, members in self.groups().items():
            if len(members) < 2:
                continue
            labels = [self.settings[i].label for i in members]
            if self.rows_kept:
                values: dict[str, Any] = {
                    self.settings[i].label: self.values[i][self.headline] for i in members
                }
                verdict = best_vs_runner_up(values)
                method = verdict.method
            else:
                moments = {self.settings[i].label: self.headline_m[i] for i in members}
                diffs = {
                    (a, b): _unpaired(moments[a], moments[b])
                    for a, b in itertools.permutations(labels, 2)
                }
                verdict = best_vs_runner_up(moments, diffs)
                method = (
                    f"unpaired t (rows='none' keeps no per-deal values), best vs each of "
                    f"{len(labels) - 1} others, Holm-Bonferroni"
                )
            by_label = {self.settings[i].label: i for i in members}
            per_setting[by_label[verdict.best]] = {
                "best": True,
                "diff_vs_best": 0.0,
                "diff_low": 0.0,
                "diff_high": 0.0,
                "p_value": math.nan,
                "holm_p": math.nan,
                "compare_method": method,
            }
            for comp, p in zip(verdict.comparisons, verdict.adjusted_p, strict=True):
                per_setting[by_label[comp.label_b]] = {
                    "best": False,
                    "diff_vs_best": -comp.mean_diff,
                    "diff_low": -comp.ci.high,
                    "diff_high": -comp.ci.low,
                    "p_value": comp.p_value,
                    "holm_p": p,
                    "compare_method": method,
                }
                rows.append(
                    {
                        "group": group,
                        "best": verdict.best,
                        "setting": comp.label_b,
                        "difference": comp.mean_diff,
                        "low": comp.ci.low,
                        "high": comp.ci.high,
                        "p_value": comp.p_value,
                        "holm_p": p,
                        "significant": bool(p < ALPHA and comp.mean_diff > 0),
                        "n": comp.n,
                        "method": method,
                    }
                )
            text = verdict.summary()
            if verdict.adjusted_p and verdict.adjusted_p[0] == 0.0:  # below float range
                text = text.replace("p = 0 over", "p < 1e-300 over")
            if not self.rows_kept:
                text = text.replace("Holm-adjusted", "unpaired, Holm-adjusted")
            verdicts.append(
                {
                    "group": group,
                    "best": verdict.best,
                    "runner_up": verdict.runner_up,
                    "significant": verdict.significant,
                    "summary": text,
                    "method": method,
                    "alpha": ALPHA,
                }
            )
        return verdicts, rows, per_setting

    def data(self, *, started: float, hands_played: int, reached: bool | None) -> ExperimentData:
        exp = self.experiment
        verdicts, comparisons, per_setting = self.compare()
        summary_rows, seat_rows, outcome_rows, turn_rows, run_rows = [], [], [], [], []
        for i, setting in enumerate(self.settings):
            params = dict(setting.params)
            p = self.pooled(i)
            iv = self.headline_iv[i]
            row: dict[str, Any] = {
                "setting": setting.label,
                "group": next(g for g, m in self.groups().items() if i in m),
                "variant": setting.variant,
                **params,
                "rules": setting.rules.name,
                "lineup": "/".join(setting.lineup),
                "mode": exp.mode,
                "units": self.units[i],
                "hands": p["hands"],
                "rotations": len(setting.configs),
                "headline": exp.headline,
                "estimate": iv.estimate,
                "low": iv.low,
                "high": iv.high,
                "half_width": iv.half_width,
                "method": iv.method,
            }
            row.update(_interval_row("points", mean_ci(p["points"])))
            if self.rows_kept and self.mode == "deals":
                net_iv = mean_ci(Moments.of(self.values[i]["net_points"]))
                net_method = "t" + (" over duplicate deals" if len(setting.configs) > 1 else "")
            else:
                net_iv = mean_ci(p["net"])
                net_method = "t over hands" + (
                    " (seatings pooled)" if len(setting.configs) > 1 else ""
                )
            row.update(_interval_row("net", net_iv))
            row["net_method"] = net_method
            w = wilson(p["wins"], p["hands"])
            row.update(win_rate=w.estimate, win_low=w.low, win_high=w.high, win_method="Wilson")
            h = max(p["hands"], 1)
            row.update(
                knock_rate=p["knocks"] / h,
                gin_rate=p["gins"] / h,
                undercut_rate=p["undercuts"] / h,
            )
            turns: dict[int, int] = {}
            outcomes: dict[int, int] = {}
            for s in self.sums[i]:
                for (stat, _, key), v in s.items():
                    if stat == "turns":
                        turns[key] = turns.get(key, 0) + v
                    elif stat == "outcome":
                        outcomes[key] = outcomes.get(key, 0) + v
            n_turns = sum(turns.values())
            row["mean_turns"] = (
                sum(k * v for k, v in turns.items()) / n_turns if n_turns else math.nan
            )
            if self.mode == "games":
                if self.rows_kept:
                    ns = mean_ci(Moments.of(self.values[i]["net_score"]))
                else:
                    ns = mean_ci(p["net_score"])
                row.update(_interval_row("net_score", ns))
                gw = wilson(p["game_wins"], p["games"])
                row.update(game_win_rate=gw.estimate, game_win_low=gw.low, game_win_high=gw.high)
                row["hands_per_game"] = p["hands"] / max(p["games"], 1)
            row.update(
                per_setting.get(
                    i,
                    {
                        "best": False,
                        "diff_vs_best": math.nan,
                        "diff_low": math.nan,
                        "diff_high": math.nan,
                        "p_value": math.nan,
                        "holm_p": math.nan,
                        "compare_method": "",
                    },
                )
            )
            row["run_ids"] = " ".join(c.run_id for b in self.blocks for c in b[i].configs)
            summary_rows.append(row)
            for seat in range(setting.players):
                q = self.pooled(i, seat)
                pts, net = mean_ci(q["points"]), mean_ci(q["net"])
                sw = wilson(q["wins"], q["hands"])
                seat_row = {
                    "setting": setting.label,
                    "variant": setting.variant,
                    **params,
                    "seat": seat,
                    "strategy": setting.lineup[seat],
                    "hands": q["hands"],
                    **_interval_row("points", pts),
                    **_interval_row("net", net),
                    "win_rate": sw.estimate,
                    "win_low": sw.low,
                    "win_high": sw.high,
                    "knock_rate": q["knocks"] / max(q["hands"], 1),
                    "points_method": "t over hands",
                    "rate_method": "Wilson",
                }
                if self.mode == "games":
                    gw = wilson(q["game_wins"], q["games"])
                    seat_row.update(_interval_row("net_score", mean_ci(q["net_score"])))
                    seat_row.update(
                        game_win_rate=gw.estimate, game_win_low=gw.low, game_win_high=gw.high
                    )
                seat_rows.append(seat_row)
            n_hands = sum(outcomes.values())
            for code, label in enumerate(L.OUTCOME_LABELS):
                c = outcomes.get(code, 0)
                ow = wilson(c, n_hands)
                outcome_rows.append(
                    {
                        "setting": setting.label,
                        "outcome": label,
                        "count": c,
                        "hands": n_hands,
                        "share": ow.estimate,
                        "low": ow.low,
                        "high": ow.high,
                        "method": "Wilson",
                    }
                )
            turn_rows += [
                {"setting": setting.label, "turns": k, "count": v} for k, v in sorted(turns.items())
            ]
            for b, block in enumerate(self.blocks):
                for cfg, r, d in zip(
                    block[i].configs, block[i].rotations, block[i].dirs, strict=True
                ):
                    run_rows.append(
                        {
                            "setting": setting.label,
                            "block": b,
                            "rotation": r,
                            "run_id": cfg.run_id,
                            "run_dir": str(d),
                            "seed": cfg.seed,
                            "count": cfg.count,
                            "lineup": cfg.lineup_label,
                        }
                    )
        keys = exp.grid_keys
        record = {
            "name": exp.name,
            "description": exp.description,
            "mode": exp.mode,
            "headline": exp.headline,
            "seed": exp.seed,
            "grid_keys": list(keys),
            "meta": exp.meta(),
            "charts": list(exp.charts) if exp.charts is not None else None,
            "verdicts": verdicts,
            "elapsed": time.perf_counter() - started,
            "hands_played": hands_played,
            "blocks": len(self.blocks),
            "precision": exp.precision,
            "precision_reached": reached,
        }
        first_manifest = runner.load_manifest(self.settings[0].dirs[0])
        return ExperimentData(
            kind="experiment",
            name=exp.name,
            record=_jsonable(record),
            summary=_frame(summary_rows, keys),
            seats=_frame(seat_rows, keys),
            outcomes=pl.DataFrame(outcome_rows),
            turns=pl.DataFrame(
                turn_rows, schema={"setting": pl.String, "turns": pl.Int64, "count": pl.Int64}
            ),
            comparisons=pl.DataFrame(
                comparisons,
                schema={
                    "group": pl.String,
                    "best": pl.String,
                    "setting": pl.String,
                    "difference": pl.Float64,
                    "low": pl.Float64,
                    "high": pl.Float64,
                    "p_value": pl.Float64,
                    "holm_p": pl.Float64,
                    "significant": pl.Boolean,
                    "n": pl.Int64,
                    "method": pl.String,
                },
            ),
            runs=pl.DataFrame(run_rows),
            config=exp.to_dict(),
            provenance=_provenance_of(first_manifest, exp.seed, record["hands_played"]),
        )


def _jsonable(value: Any) -> Any:
    return json.loads(json.dumps(value, default=str, allow_nan=True))


def _provenance_of(manifest: Mapping[str, Any], seed: Any, hands: Any) -> dict[str, Any]:
    keep = ("package", "rng", "point_scale", "libraries", "command", "created")
    out = {k: manifest.get(k) for k in keep if k in manifest}
    out["seed"] = seed
    out["hands_played_by_this_call"] = hands
    return out


def _frame(rows: list[dict[str, Any]], grid_keys: Sequence[str]) -> pl.DataFrame:
    """A frame whose grid columns have one type each (text when a list mixes types)."""
    for key in grid_keys:
        values = [r.get(key) for r in rows]
        kinds = {type(v) for v in values}
        if len(kinds) > 1:
            if kinds <= {int, float}:
                for r in rows:
                    r[key] = float(r[key])
            else:
                for r in rows:
                    r[key] = _format_value(r[key])
    return pl.DataFrame(rows, infer_schema_length=None)


def analyse(experiment: Experiment, blocks: Sequence[Sequence[Setting]]) -> ExperimentData:
    """The analysis of finished runs: ``blocks[0]`` are the planned settings
    (``expand(experiment)``), further blocks those ``precision`` added.

    Per setting: the headline metric of template seat 0 with its t interval (per deal,
    averaged over the seatings with ``duplicate``), points and net points per hand,
    win rate (Wilson), outcome mix, hand lengths; per group of settings the best one
    against every other on common deals (paired t on the per-deal values, joined by
    deal number; Holm-adjusted).
    """
    return _Analysis(experiment, blocks).data(
        started=time.perf_counter(), hands_played=0, reached=None
    )


# --- results on disk ---------------------------------------------------------------------


@dataclass(frozen=True)
class ExperimentData:
    """The analysed results of an experiment (or of one run directory): frames and a
    JSON record; what charts and the report are drawn from."""

    kind: Literal["experiment", "run"]
    name: str
    record: dict[str, Any]
    summary: pl.DataFrame
    seats: pl.DataFrame
    outcomes: pl.DataFrame
    turns: pl.DataFrame
    comparisons: pl.DataFrame
    runs: pl.DataFrame
    config: dict[str, Any]
    provenance: dict[str, Any]

    @property
    def headline(self) -> str:
        return str(self.record["headline"])

    @property
    def mode(self) -> str:
        return str(self.record["mode"])

    @property
    def meta(self) -> dict[str, Any]:
        return dict(self.record.get("meta") or {})

    @property
    def verdicts(self) -> list[dict[str, Any]]:
        return list(self.record.get("verdicts") or [])

    def charts(self) -> tuple[str, ...]:
        """The chart kinds to draw: those the experiment named, else all that fit."""
        named = self.record.get("charts")
        return tuple(named) if named else default_charts(self.meta)


def write_tables(data: ExperimentData, directory: Path) -> dict[str, dict[str, Any]]:
    """Write the frames as Parquet with provenance (each file atomically).

    Returns each file's digest by file name: record them, so that
    :func:`load_experiment_data` can check the files before it trusts them.
    """
    digests = {}
    for table, filename in TABLE_FILES.items():
        frame: pl.DataFrame = getattr(data, table)
        meta = R.provenance({"experiment": data.record.get("name"), **data.config})
        meta.update(table=f"experiment_{table}", rows=frame.height)
        arrow = R.with_provenance(frame.to_arrow(), meta)
        digests[filename] = R.write_parquet_atomic(arrow, directory / filename)
    return digests


def load_experiment_data(directory: str | os.PathLike[str]) -> ExperimentData:
    """Read an experiment directory's tables back (checked: ours, complete, readable)."""
    directory = Path(directory)
    path = directory / EXPERIMENT_JSON
    try:
        record = json.loads(path.read_text())
    except FileNotFoundError:
        raise ExperimentError(
            f"{directory} is not an experiment directory (no {EXPERIMENT_JSON})"
        ) from None
    except (OSError, UnicodeDecodeError, json.JSONDecodeError) as error:
        raise ExperimentError(f"{path}: unreadable ({R._one_line(error)})") from None
    if not isinstance(record, dict) or record.get("kind") != "rummy-sim experiment":
        raise ExperimentError(f"{path}: not a rummy-sim experiment record")
    if record.get("status") != "done" or "analysis" not in record:
        raise ExperimentError(
            f"{directory}: the experiment has not finished; finish it with: "
            f"rummy run --resume {directory}"
        )
    digests = record.get("digests")
    if not isinstance(digests, dict):
        raise ExperimentError(f"{path}: no digests of its tables; run the experiment again")
    frames = {}
    for table, filename in TABLE_FILES.items():
        file = directory / filename
        try:
            frames[table] = R.read_verified(file, digests.get(filename) or {})
        except store.StorageError as error:
            raise R.ResultsError(
                f"{error}; rebuild it with: rummy run --resume {directory}"
            ) from None
        meta, _ = R.read_footer(file)
        if meta.get("table") != f"experiment_{table}":
            raise R.ResultsError(f"{file}: not an experiment {table} table")
    analysis = record["analysis"]
    runs = pl.DataFrame(analysis.pop("runs", []) or [])
    return ExperimentData(
        kind="experiment",
        name=str(analysis.get("name", directory.name)),
        record=analysis,
        runs=runs,
        config=record.get("experiment", {}),
        provenance=analysis.get("provenance", {}),
        **frames,
    )


def data_from_run(run_dir: str | os.PathLike[str]) -> ExperimentData:
    """Analyse one run directory (``rummy run`` without an experiment) as a
    one-setting experiment: its seats, outcome mix and hand lengths."""
    run_dir = Path(run_dir)
    manifest = runner.load_manifest(run_dir)
    cfg = manifest["config"]
    rules = RuleSet.from_dict(cfg["rules"])
    mode = cfg["mode"]
    try:
        config = runner.RunConfig.from_dict(cfg, out=run_dir.parent.parent)
    except (KeyError, TypeError, ValueError) as error:
        raise ExperimentError(f"{run_dir}: incomplete manifest ({R._one_line(error)})") from None
    experiment = Experiment(
        name=cfg["experiment"],
        seats=tuple(cfg["lineup"]),
        seed=cfg["seed"],
        mode=mode,
        count=cfg["count"],
        rules=rules.name if rules.name in PRESETS else "gin",
        rows=cfg["rows"],
        source=str(run_dir),
    )
    setting = Setting(
        label=cfg.get("variant") or rules.name,
        variant=cfg.get("variant") or rules.name,
        params=(),
        rules=rules,
        lineup=tuple(cfg["lineup"]),
        configs=(config,),
        rotations=(0,),
        run_dirs=(run_dir,),  # read in place, wherever the directory is now
    )
    analysis = _Analysis(experiment, [[setting]])
    data = analysis.data(started=time.perf_counter(), hands_played=0, reached=None)
    record = dict(data.record)
    record.update(name=f"{cfg['experiment']}/{run_dir.name}", meta=_run_meta(cfg), charts=None)
    return dataclasses.replace(
        data,
        kind="run",
        name=record["name"],
        record=record,
        config=cfg,
        provenance={k: v for k, v in manifest.items() if k != "config"},
    )


def _run_meta(cfg: Mapping[str, Any]) -> dict[str, Any]:
    seats = cfg.get("lineup") or []
    return {
        "grid_keys": [],
        "numeric_keys": [],
        "threshold": None,
        "variants": [],
        "symmetric": len(set(seats)) <= 1,
    }


def load_results(path: str | os.PathLike[str]) -> ExperimentData:
    """An experiment directory, a run directory, or one of their Parquet files.

    Raises
    ------
    ExperimentError, sim.runner.RunError, sim.results.ResultsError
        One line naming the problem: not ours, corrupted, incomplete.
    """
    p = Path(path)
    if not p.exists():
        raise ExperimentError(f"{p}: no such directory or file")
    if p.is_file():
        meta, _ = R.read_footer(p)  # foreign or corrupted Parquet fails here
        table = str(meta.get("table", ""))
        if table.startswith("experiment_"):
            return load_experiment_data(p.parent)
        if table in runner.TABLES:
            return data_from_run(p.parent.parent)
        raise R.ResultsError(f"{p}: a rummy-sim file of unknown table {table!r}")
    if (p / EXPERIMENT_JSON).exists():
        return load_experiment_data(p)
    if (p / runner.MANIFEST).exists():
        return data_from_run(p)
    raise ExperimentError(
        f"{p}: not a results directory (no {EXPERIMENT_JSON} or {runner.MANIFEST}); give an "
        "experiment directory (results/NAME) or a run directory (results/NAME/RUN_ID)"
    )


# --- charts ----------------------------------------------------------------------------


def _headline_label(data: ExperimentData) -> str:
    label = HEADLINES[data.headline][1]
    return label + (" (%)" if data.headline in RATE_HEADLINES else " (points)")


def _curve_columns(data: ExperimentData) -> tuple[tuple[str, str, str], tuple[str, str, str], str]:
    if data.mode == "games":
        return (
            ("net_score", "net_score_low", "net_score_high"),
            ("game_win_rate", "game_win_low", "game_win_high"),
            "net score per game (points)",
        )
    return (
        ("net", "net_low", "net_high"),
        ("win_rate", "win_low", "win_high"),
        "net points per hand (points)",
    )


def chart_figures(
    data: ExperimentData, kinds: Sequence[str] | None = None
) -> list[tuple[str, Any]]:
    """``(kind, Figure)`` for every requested chart kind (default: ``data.charts()``).

    Raises
    ------
    ExperimentError
        A kind that does not fit the design (``knock_curve`` without a threshold...).
    """
    from sim.present import charts

    meta = data.meta
    fit = applicable_charts(meta)
    kinds = list(kinds) if kinds else list(data.charts())
    figures = []
    summary = data.summary
    grid = list(meta.get("grid_keys") or [])
    variants = list(meta.get("variants") or [])
    points, win, points_label = _curve_columns(data)
    title = data.record.get("name", data.name)
    for kind in kinds:
        kind = kind.replace("-", "_")
        if kind not in CHART_KINDS:
            raise ExperimentError(
                f"unknown chart kind {kind!r}; choose from: {', '.join(CHART_KINDS)}"
            )
        if kind not in fit:
            raise ExperimentError(f"{data.name}: {_why_not(kind)}")
        if kind == "knock_curve":
            x = meta["threshold"]
            lines = (["variant"] if len(variants) > 1 else []) + [k for k in grid if k != x]
            fig = charts.knock_curve(
                summary,
                x=x,
                line=lines or None,
                points=points,
                win=win,
                points_label=points_label,
                subtitle=f"{title}: seat 0 = {_seat0(data)}; mean and 95% CI per setting",
            )
        elif kind == "curve":
            x = meta["numeric_keys"][0]
            name = _short_key(x, grid)
            others = (["variant"] if len(variants) > 1 else []) + [k for k in grid if k != x]
            if meta.get("symmetric"):
                frame = data.seats.with_columns(
                    pl.format("seat {}", pl.col("seat"))
                    .str.replace(r"^seat 0$", "seat 0 (plays first)")
                    .alias("seat ")
                )
                lines = ["seat ", *others]
                pts = ("net", "net_low", "net_high")
                wn = ("win_rate", "win_low", "win_high")
                label = "net points per hand (points)"
                heading = f"Each seat's edge by {name} (the same strategy in every seat)"
            else:
                frame = summary
                lines = others
                pts, wn, label = points, win, points_label
                heading = f"Seat 0 by {name}"
            fig = charts.knock_curve(
                frame,
                x=x,
                line=lines or None,
                points=pts,
                win=wn,
                points_label=label,
                x_label=name,
                title=heading,
                subtitle=f"{title}: mean and 95% CI per setting",
            )
            _without_best_marks(fig)
        elif kind == "heatmap":
            x = meta.get("threshold") or (meta.get("numeric_keys") or grid)[0]
            ys = (["variant"] if len(variants) > 1 else []) + [k for k in grid if k != x]
            percent = data.headline in RATE_HEADLINES
            fig = charts.heatmap(
                summary,
                x=x,
                y=ys,
                value="estimate",
                low="low",
                high="high",
                value_label=_headline_label(data),
                x_label=x if x != meta.get("threshold") else "knock threshold (deadwood)",
                y_label=" · ".join(ys),
                title=f"{HEADLINES[data.headline][1].capitalize()} of seat 0 by {x} and "
                f"{' and '.join(ys)}",
                percent=percent,
            )
        elif kind == "outcome_mix":
            fig = charts.outcome_mix(
                data.outcomes, setting="setting", title=f"How hands end ({title})"
            )
        else:
            subset, merged = _length_subset(data)
            note = "\n(settings that play identical hands are drawn once)" if merged else ""
            fig = charts.hand_length(
                subset,
                by="setting",
                turns="turns",
                count="count",
                title=f"How long hands last ({title}){note}",
                max_series=8,
            )
        figures.append((kind, fig))
    return figures


def _without_best_marks(fig: Any) -> None:
    """Drop ``knock_curve``'s "best threshold" stars (a curve over players or another
    grid value has no best to mark) and its legend entry."""
    for ax in fig.axes:
        for line in list(ax.lines):
            if line.get_marker() == "*":
                line.remove()
    for legend in list(fig.legends):
        handles = [
            h
            for h, t in zip(legend.legend_handles, legend.get_texts(), strict=True)
            if t.get_text() != "best threshold"
        ]
        labels = [t.get_text() for t in legend.get_texts() if t.get_text() != "best threshold"]
        legend.remove()
        fig.legend(
            handles, labels, loc="outside lower center", ncol=min(len(handles), 5), frameon=False
        )


def _seat0(data: ExperimentData) -> str:
    """Seat 0's spec in the line-up template (placeholders kept: ``greedy:knock_at={k}``)."""
    return _seat0_template(data)


def _seat0_template(data: ExperimentData) -> str:
    seats = data.config.get("seats") or data.config.get("lineup") or ["?"]
    first = seats if isinstance(seats, str) else seats[0]
    return str(first).split("/")[0].strip()


def _length_subset(data: ExperimentData, limit: int = 6) -> tuple[pl.DataFrame, bool]:
    """At most ``limit`` settings for the hand-length chart: evenly spaced over the
    first grid key (its lowest, highest and middle values), for the first variant
    when the others would not fit."""
    labels = data.summary["setting"].to_list()
    if len(labels) <= limit:
        return data.turns, False
    meta = data.meta
    grid = list(meta.get("grid_keys") or [])
    chosen: list[str] = []
    if grid:
        key = meta.get("threshold") or grid[0]
        values = data.summary[key].unique(maintain_order=True).to_list()
        groups = data.summary["variant"].unique(maintain_order=True).to_list()
        per = min(len(values), max(2, limit // max(1, len(groups))))
        picks = [values[round(j * (len(values) - 1) / (per - 1))] for j in range(per)]
        for group in groups:
            sub = data.summary.filter(pl.col("variant") == group)
            for v in dict.fromkeys(picks):
                hit = sub.filter(pl.col(key) == v)["setting"].to_list()
                if hit and len(chosen) < limit:
                    chosen.append(hit[0])
    if not chosen:
        step = (len(labels) - 1) / (limit - 1)
        chosen = [labels[round(j * step)] for j in range(limit)]
    # settings that differ only in scoring play identical hands: draw such a line once
    seen: list[list[tuple[int, int]]] = []
    unique = []
    for label in chosen:
        hist = data.turns.filter(pl.col("setting") == label).select("turns", "count").rows()
        if hist not in seen:
            seen.append(hist)
            unique.append(label)
    merged = len(unique) < len(chosen)
    chosen = unique
    order = {label: j for j, label in enumerate(chosen)}
    frame = (
        data.turns.filter(pl.col("setting").is_in(chosen))
        .with_columns(pl.col("setting").replace_strict(order, return_dtype=pl.Int64).alias("_o"))
        .sort(["_o", "turns"])
        .drop("_o")
    )
    return frame, merged


def save_charts(
    data: ExperimentData, directory: str | os.PathLike[str], kinds: Sequence[str] | None = None
) -> list[Path]:
    """Draw the charts and write each as PNG and SVG under ``directory``."""
    from sim.present import charts

    written: list[Path] = []
    directory = Path(directory)
    for kind, fig in chart_figures(data, kinds):
        try:
            written += charts.save(fig, directory / kind)
        except OSError as error:
            raise ExperimentError(
                f"cannot write charts to {directory}: {error.strerror or error}"
            ) from None
    return written


# --- the report ------------------------------------------------------------------------


_SUMMARY_COLUMNS = (
    "setting",
    "units",
    "hands",
    "estimate",
    "low",
    "high",
    "method",
    "win_rate",
    "win_low",
    "win_high",
    "knock_rate",
    "gin_rate",
    "undercut_rate",
    "mean_turns",
    "best",
    "diff_vs_best",
    "p_value",
    "holm_p",
)


def write_experiment_report(
    data: ExperimentData,
    path: str | os.PathLike[str],
    figures: Sequence[tuple[str, Any]] | None = None,
) -> Path:
    """The self-contained HTML report: verdicts, tables, charts, config, provenance."""
    from sim.present.report import Section, write_report

    figs = dict(figures) if figures is not None else dict(chart_figures(data))
    headline = data.headline
    what = HEADLINES[headline][2]
    summary = data.summary
    sections = []
    description = str(data.record.get("description") or "")
    intro = [description] if description else []
    units = "deals" if data.mode == "deals" else "games"
    if data.kind == "run":
        intro.append(
            f"One run of {int(summary['units'][0]):,} {units} with the line-up "
            f"{summary['lineup'][0]} (seat 0 plays first); headline metric: {headline} — "
            f"{what}."
        )
    else:
        intro.append(
            f"Headline metric: {headline} — {what}; seat 0 is the first seat of the line-up "
            f"({_seat0(data)}). Every setting played the same {units} (one seed: common "
            "random numbers)."
        )
    if summary.height and int(summary["rotations"].max() or 1) > 1:  # type: ignore[arg-type]
        intro.append(
            "Duplicate: every deal was also played with the seats rotated, and the "
            "headline averages each deal over the seatings, so the luck of the cards cancels."
        )
    notes = [v["summary"] for v in data.verdicts]
    if data.record.get("precision") is not None:
        reached = data.record.get("precision_reached")
        notes.append(
            f"precision target ±{data.record['precision']:g}: "
            + ("reached" if reached else "not reached (stopped at max_count)")
            + f" after {data.record.get('blocks', 1)} block(s)"
        )
    notes.append(
        "Intervals are 95%: t for means, Wilson for rates; comparisons are paired on common "
        "deals and Holm-adjusted within each group."
    )
    cols = [c for c in _SUMMARY_COLUMNS if c in summary.columns]
    sections.append(
        Section(
            "Summary",
            text="\n\n".join(intro),
            notes=notes,
            tables=[("Per setting (seat 0)", summary.select(cols))],
        )
    )
    curve_figs = [(k, figs[k]) for k in ("knock_curve", "curve", "heatmap") if k in figs]
    if curve_figs:
        sections.append(
            Section(
                "Settings compared",
                text="Mean and 95% confidence interval per setting; a star or an outline "
                "marks the best.",
                figures=[(_caption(k), f) for k, f in curve_figs],
            )
        )
    if data.comparisons.height:
        sections.append(
            Section(
                "Paired comparisons",
                text="The best setting of each group against every other, on the same deals: "
                "difference = best minus the other (a positive difference favours the best).",
                tables=[("Best vs each setting", data.comparisons)],
            )
        )
    sections.append(
        Section(
            "Seats",
            text="Every seat of every setting (seatings pooled under duplicate).",
            tables=[("Per seat", data.seats)],
        )
    )
    wide = data.outcomes.with_columns((pl.col("share") * 100).round(2).alias("percent")).pivot(
        on="outcome", index="setting", values="percent"
    )
    sections.append(
        Section(
            "How hands end",
            figures=[(_caption("outcome_mix"), figs["outcome_mix"])]
            if "outcome_mix" in figs
            else [],
            tables=[("Share of hands (%) per outcome", wide)],
        )
    )
    if "hand_length" in figs:
        sections.append(
            Section(
                "Hand length",
                figures=[(_caption("hand_length"), figs["hand_length"])],
                tables=[("Mean turns per hand", summary.select("setting", "mean_turns"))],
            )
        )
    if data.runs.height:
        sections.append(
            Section(
                "Runs",
                text="One run directory per setting, seating and block; each holds its "
                "Parquet tables and manifest.json.",
                tables=[("Run directories", data.runs)],
            )
        )
    title = f"rummy-sim: {data.name}"
    subtitle = (
        f"{'experiment' if data.kind == 'experiment' else 'run'}; seed {data.record.get('seed')}"
    )
    try:
        return write_report(title, sections, data.config, data.provenance, path, subtitle=subtitle)
    except OSError as error:
        raise ExperimentError(f"cannot write {path}: {error.strerror or error}") from None


def _caption(kind: str) -> str:
    return {
        "knock_curve": "Knock threshold: seat 0's points per hand and win rate",
        "curve": "Seat results against the grid value",
        "heatmap": "Headline by threshold and variant",
        "outcome_mix": "How hands end, per setting",
        "hand_length": "Distribution of hand length (turns)",
    }[kind]


def record_of(data: ExperimentData) -> dict[str, Any]:
    """The analysis record stored in ``experiment.json``: with the runs and provenance."""
    runs = data.runs.to_dicts() if data.runs.height else []
    return {**data.record, "runs": runs, "provenance": data.provenance}
