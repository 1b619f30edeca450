"""Parameter search on common random numbers: which setting of a strategy plays best.

>>> from sim.tune import tune
>>> result = tune("greedy", ["knock_at=0..10"], against="simple", rules="gin",
...               count=50_000, seed=7, duplicate=True)
>>> result.best_label, result.vs_default          # knock_at=..., paired t vs the default

What is compared
----------------
The tuned strategy sits in seat 0; the other seats play the ``against`` line-up (one
spec fills them all, or one ``/``-separated spec per other seat). Every setting is
played through :func:`sim.runner.run` with the same seed, so setting ``x`` and setting
``y`` play identical deals (common random numbers) and are compared deal by deal. The
metric is seat 0's net points per deal (its points minus the mean of the other seats'),
or its net final score per game with ``mode="games"`` (``sim.compare``'s metric). With
``duplicate`` every deal is also played with the line-up rotated (``players`` runs per
setting) and a deal's value is the mean over the rotations, so seat luck cancels.

How settings are searched
-------------------------
A space is the product of the parameters' value lists (``knock_at=0..10``,
``b=0..1:0.1``, ``a=8,9,10``). When it has at most ``max_evals`` settings every one is
played (``grid``). A larger space is searched by **coordinate descent**: start at the
default parameters (each snapped to the nearest value of its list), play every value
of the first parameter with the others held, move to the best, then the next
parameter, and so on; rounds repeat until a whole round moves nothing, the budget of
``max_evals`` distinct settings is spent (values nearest the current point first) or
``max_rounds`` rounds have run. Settings already played are never played again.

Why coordinate descent rather than successive halving: successive halving (Jamieson
and Talwalkar 2016) must play every setting of the space at least once, so a product
space of thousands spends its budget on tiny samples whose noise decides the early
cuts, and the survivors end with different sample sizes. The parameters tuned here
are thresholds whose effect on expected points is smooth and, along one axis, close to
unimodal; coordinate descent plays ``sum(n_i)`` settings a round instead of
``prod(n_i)``, every setting gets the full deal count (so every interval in the table
means the same thing), and each move compares settings on the same deals. Its weakness
is interaction: two parameters that trade off along a ridge (``schedule``'s ``a`` and
``b``) can stop it at a point that is best along each axis but not overall. Grid the
two coupled parameters instead when they fit the budget; the verdicts below speak only
of the settings actually played.

What is reported
----------------
Every setting played, with its mean and 95% t interval. The best (highest mean), its
paired difference with the default parameters (paired t interval and p-value; the
default is played too when it lies outside the space, as a reference that is not a
candidate), and whether it beats the runner-up: paired t tests of the best against
every other candidate, Holm-adjusted (``sim.stats.best_vs_runner_up``, as
``rummy sweep``). The best is picked on the same deals it is measured on, so its
in-search margin is optimistic (the winner's curse); ``confirm = N`` plays the best
and the default again on ``N`` fresh deals (an independent seed) and reports that
difference, which is unbiased.

Storage
-------
``<out>/tune/<tune_id>/``: ``request.json`` (the resolved request, written first,
atomically), one runner directory per (setting, rotation) (``<run_id>/``), then
``settings.parquet`` (one row per setting played), ``charts/tune.png`` and
``charts/tune.svg``, and ``tune.json`` (request, search path and results), written
last and atomically. ``tune_id`` hashes the request and the engine's identity (the
default runs' config hashes). The same request again (or :func:`resume` on the
directory) plays only what is missing: finished runs are found by the runner, and the
search takes the same path because every evaluation is a pure function of the seed.
"""

from __future__ import annotations

import dataclasses
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
from concurrent.futures import FIRST_COMPLETED, ProcessPoolExecutor, wait
from concurrent.futures.process import BrokenProcessPool
from dataclasses import dataclass, field
from datetime import UTC, datetime
from functools import partial
from pathlib import Path
from typing import Any, Literal, NamedTuple

import numpy as np
import numpy.typing as npt
import polars as pl

from sim import results as R
from sim.compare import (
    check_joined,
    load_units,
    metric_name,
    remove_if_empty,
    rotate,
    short_hash,
)
from sim.rules import RuleSet, get_rules
from sim.runner import RunConfig, RunError, new_seed, run
from sim.stats import (
    DEFAULT_CONFIDENCE,
    Comparison,
    Interval,
    SweepVerdict,
    best_vs_runner_up,
    difference_test,
    mean_ci,
)
from sim.store import make_dir, strict_json, write_json_atomic
from sim.workers import process_pool

__all__ = [
    "DEFAULT_MAX_EVALS",
    "ParamRange",
    "SearchResult",
    "TuneError",
    "TuneRequest",
    "TuneResult",
    "grid_points",
    "load_tune",
    "load_tune_file",
    "parse_param",
    "resume",
    "search",
    "tune",
]

DEFAULT_MAX_EVALS = 60  # settings played before a grid gives way to coordinate descent
DEFAULT_MAX_ROUNDS = 10  # coordinate descent rounds (each visits every parameter once)
MAX_VALUES = 1_000  # values of one parameter: beyond this "0..100000" is surely a typo
MAX_GRID = 100_000  # settings a full grid may hold (it is enumerated)
REQUEST_FILE = "request.json"
TUNE_FILE = "tune.json"
SETTINGS_FILE = "settings.parquet"
CHART_STEM = "charts/tune"
FORMAT_VERSION = 1
CONFIRM_BLOCK = 1  # SeedSequence spawn key of the confirmation deals (independent of the seed's)
SEARCHES = ("auto", "grid", "coordinate")
FILE_KEYS = ("name", "description", "seed", "deals", "games", "duplicate", "rules", "tune")
TUNE_KEYS = ("strategy", "against", "params", "max_evals", "search", "confirm", "max_rounds")

Point = tuple[float, ...]  # one value per tuned parameter, in parameter order
Values = npt.NDArray[np.float64]  # per-unit metric, aligned by (game, deal) across settings
Evaluate = Callable[[Sequence[Point]], Sequence[Values]]


class TuneError(ValueError):
    """A tuning request that cannot run (one-line message)."""


# --- parameter spaces ------------------------------------------------------------------------

_NUMBER = r"[-+]?(?:\d+(?:\.\d*)?|\.\d+)(?:[eE][-+]?\d+)?"
_RANGE = re.compile(rf"^\s*({_NUMBER})\s*\.\.\s*({_NUMBER})\s*(?::\s*({_NUMBER})\s*)?$")


@dataclass(frozen=True)
class ParamRange:
    """One tuned parameter: its name, its type and the values to try (in order)."""

    name: str
    kind: Literal["int", "float"]
    values: tuple[float, ...]
    text: str = ""  # as written (``0..10:2``), for messages and the record

    def __len__(self) -> int:
        return len(self.values)

    def to_dict(self) -> dict[str, Any]:
        return {
            "name": self.name,
            "kind": self.kind,
            "values": list(self.values),
            "text": self.text,
        }


def _clean(value: float, kind: str) -> float:
    """An int parameter's value as an int; a float's rounded off its binary noise."""
    if kind == "int":
        return int(value)
    return float(round(value, 10)) + 0.0  # + 0.0: no "-0.0"


def _number(text: str, kind: str, what: str) -> float:
    text = text.strip()
    if kind == "int":
        try:
            return int(text)
        except ValueError:
            raise TuneError(f"{what}: {text!r} is not a whole number") from None
    try:
        value = float(text)
    except ValueError:
        raise TuneError(f"{what}: {text!r} is not a number") from None
    if not math.isfinite(value):
        raise TuneError(f"{what}: {text!r} is not finite")
    return value


def parse_param(strategy: Any, text: str) -> ParamRange:
    """Read ``--param NAME=VALUES`` for ``strategy`` (a Strategy or its name).

    ``VALUES`` is a range ``low..high`` (whole numbers, step 1), ``low..high:step``
    (for a float parameter the bounds and step may be fractions: ``0..1:0.1``), or a
    comma-separated list ``8,9,10``. Every value is checked against the parameter's
    type and bounds.

    Raises
    ------
    TuneError, StrategyError
        One line naming the value and what is allowed.
    """
    from strategies import StrategyError, get_strategy, make_params

    if isinstance(strategy, str):
        strategy = get_strategy(strategy)
    fields = strategy.params._fields
    if not isinstance(text, str):
        raise TuneError(f"--param {text!r}: write name=values, e.g. {fields[0]}=0..10")
    name, eq, spec = text.partition("=")
    name = name.strip().replace("-", "_")
    where = f"--param {text.strip()!r}"
    if not eq or not name or not spec.strip():
        example = fields[0] if fields else "name"
        raise TuneError(
            f"{where}: write name=values, e.g. {example}=0..10, "
            f"{example}=0..10:2 or {example}=1,3,7"
        )
    if name not in fields:
        raise TuneError(
            f"{where}: unknown parameter {name!r} for strategy {strategy.name}; "
            f"its parameters: {', '.join(fields) or '(none)'}"
        )
    kind: Literal["int", "float"] = (
        "int" if isinstance(strategy.params._field_defaults[name], int) else "float"
    )
    match = _RANGE.match(spec)
    values: list[float]
    if match:
        what = f"{where}" + (" (a whole-number parameter)" if kind == "int" else "")
        low = _number(match.group(1), kind, what)
        high = _number(match.group(2), kind, what)
        step = (
            _number(match.group(3), kind, what) if match.group(3) else (1 if kind == "int" else 1.0)
        )
        if not step > 0:
            raise TuneError(f"{where}: the step must be > 0, got {match.group(3).strip()}")
        if high < low:
            raise TuneError(f"{where}: the range is empty; write low..high with low <= high")
        count = math.floor((high - low) / step + 1e-9) + 1
        if count > MAX_VALUES:
            raise TuneError(f"{where}: {count:,} values; at most {MAX_VALUES:,} per parameter")
        values = [_clean(low + i * step, kind) for i in range(count)]
    elif ".." in spec:
        raise TuneError(
            f"{where}: bad range {spec.strip()!r}; write low..high or low..high:step"
            + (" (whole numbers)" if kind == "int" else " (e.g. 0..1:0.1)")
        )
    else:
        values = []
        for item in spec.split(","):
            if not item.strip():
                raise TuneError(f"{where}: empty value; separate values with commas")
            values.append(_clean(_number(item, kind, where), kind))
        if len(values) > MAX_VALUES:
            raise TuneError(
                f"{where}: {len(values):,} values; at most {MAX_VALUES:,} per parameter"
            )
        seen: set[float] = set()
        for v in values:
            if v in seen:
                raise TuneError(f"{where}: {v} is listed twice")
            seen.add(v)
    for v in values:
        try:
            make_params(strategy, **{name: v})
        except StrategyError as error:
            raise TuneError(f"{where}: {error}") from None
    return ParamRange(name, kind, tuple(values), spec.strip())


def grid_points(space: Sequence[ParamRange]) -> list[Point]:
    """Every setting of the space, first parameter slowest (``itertools.product``)."""
    return [tuple(p) for p in itertools.product(*(r.values for r in space))]


def _space_size(space: Sequence[ParamRange]) -> int:
    return math.prod(len(r) for r in space)


def label_of(space: Sequence[ParamRange], point: Point) -> str:
    """``knock_at=7`` or ``a=10.0,b=0.5``: a setting's name in tables."""
    return ",".join(f"{r.name}={v}" for r, v in zip(space, point, strict=True))


def snap(space: Sequence[ParamRange], point: Point) -> Point:
    """Each value replaced by the nearest value of its list (the first on a tie)."""
    out = []
    for r, x in zip(space, point, strict=True):
        distance = [abs(v - x) for v in r.values]
        out.append(r.values[distance.index(min(distance))])
    return tuple(out)


# --- the search (pure: any objective) ----------------------------------------------------------


@dataclass
class SearchResult:
    """What :func:`search` played and found.

    ``values[point]`` are the per-unit metric values of every setting played, in
    evaluation order; ``best`` has the highest mean (earliest on a tie); ``path`` the
    incumbents of coordinate descent (the start, then every move); ``converged``: a
    whole round moved nothing; ``budget_exhausted``: ``max_evals`` stopped it.
    """

    method: Literal["grid", "coordinate"]
    values: dict[Point, Values]
    best: Point
    start: Point | None = None
    path: list[Point] = field(default_factory=list)
    rounds: int = 0
    converged: bool = True
    budget_exhausted: bool = False

    @property
    def points(self) -> list[Point]:
        return list(self.values)

    def mean(self, point: Point) -> float:
        return float(np.mean(self.values[point]))


def _argmax(values: Mapping[Point, Values], among: Iterable[Point]) -> Point:
    """The point of highest mean; ties go to the earliest in ``among``."""
    best: Point | None = None
    best_mean = -math.inf
    for p in among:
        m = float(np.mean(values[p]))
        if best is None or m > best_mean:
            best, best_mean = p, m
    assert best is not None
    return best


def search(
    space: Sequence[ParamRange],
    evaluate: Evaluate,
    *,
    start: Point | None = None,
    max_evals: int = DEFAULT_MAX_EVALS,
    method: str = "auto",
    max_rounds: int = DEFAULT_MAX_ROUNDS,
    on_batch: Callable[[str, int], None] | None = None,
) -> SearchResult:
    """Search ``space`` for the setting of highest mean ``evaluate`` value.

    Parameters
    ----------
    space : sequence of ParamRange
    evaluate : callable
        ``evaluate(points) -> [values per point]``: each a float array of per-unit
        values (the same units, in the same order, for every point: common random
        numbers). Called with batches (a whole grid, or one line of coordinate
        descent) of points not played before.
    start : point, optional
        Coordinate descent's start (snapped onto the space); None: the first value of
        every parameter.
    max_evals : int
        ``method="auto"`` plays the full grid when it holds at most this many
        settings, else runs coordinate descent with at most this many settings.
    method : {"auto", "grid", "coordinate"}
    max_rounds : int
        Coordinate descent stops after this many rounds even if still moving.
    on_batch : callable, optional
        Called before each batch with a description and the number of new settings.
    """
    if method not in SEARCHES:
        raise TuneError(f"search={method!r} is not allowed; choose one of: {', '.join(SEARCHES)}")
    if not space:
        raise TuneError("nothing to tune: give at least one parameter")
    if isinstance(max_evals, bool) or not isinstance(max_evals, int) or max_evals < 1:
        raise TuneError(f"max_evals={max_evals!r} is not allowed; give a whole number >= 1")
    if isinstance(max_rounds, bool) or not isinstance(max_rounds, int) or max_rounds < 1:
        raise TuneError(f"max_rounds={max_rounds!r} is not allowed; give a whole number >= 1")
    size = _space_size(space)
    if method == "auto":
        method = "grid" if size <= max_evals else "coordinate"
    values: dict[Point, Values] = {}

    def play(points: Sequence[Point], what: str) -> None:
        new = [p for p in dict.fromkeys(points) if p not in values]
        if not new:
            return
        if on_batch is not None:
            on_batch(what, len(new))
        results = evaluate(new)
        if len(results) != len(new):
            raise TuneError(
                f"the objective returned {len(results)} results for {len(new)} settings"
            )
        for p, v in zip(new, results, strict=True):
            values[p] = np.asarray(v, dtype=np.float64)

    if method == "grid":
        if size > MAX_GRID:
            raise TuneError(
                f"the grid holds {size:,} settings, more than {MAX_GRID:,}; "
                "narrow the ranges or use coordinate descent"
            )
        play(grid_points(space), f"grid of {size:,} settings")
        return SearchResult("grid", values, _argmax(values, values))

    current = snap(space, start) if start is not None else tuple(r.values[0] for r in space)
    first = current
    play([current], "start")
    path = [current]
    rounds = 0
    converged = False
    exhausted = False
    while rounds < max_rounds and not exhausted:
        rounds += 1
        moved = False
        for i, r in enumerate(space):
            if len(r) == 1:
                continue
            line = [current[:i] + (v,) + current[i + 1 :] for v in r.values]
            new = [p for p in line if p not in values]
            room = max_evals - len(values)
            if len(new) > room:  # spend what is left on the values nearest the current one
                here = r.values.index(current[i])
                steps = {p: abs(r.values.index(p[i]) - here) for p in new}
                new = sorted(new, key=steps.__getitem__)[:room]  # stable: lower values first
                exhausted = True
            play(new, f"round {rounds}: {r.name} ({len(r)} values)")
            best = _argmax(values, [current] + [p for p in line if p in values])
            if best != current:
                current, moved = best, True
                path.append(current)
            if exhausted:
                break
        if not moved and not exhausted:
            converged = True
            break
    return SearchResult(
        "coordinate",
        values,
        _argmax(values, values),
        start=first,
        path=path,
        rounds=rounds,
        converged=converged,
        budget_exhausted=exhausted,
    )


_search = search  # tune()'s ``search`` argument hides the function's name


# --- the request ------------------------------------------------------------------------------


@dataclass(frozen=True)
class TuneRequest:
    """Everything a tune needs, validated (build with :func:`make_request`)."""

    strategy: str  # the base seat spec (canonical), e.g. "greedy" or "schedule:min_gain=2"
    space: tuple[ParamRange, ...]
    against: tuple[str, ...]  # canonical specs of seats 1 .. players-1
    rules: RuleSet
    count: int
    mode: Literal["deals", "games"] = "deals"
    seed: int = 0
    duplicate: bool = False
    max_evals: int = DEFAULT_MAX_EVALS
    search: str = "auto"
    max_rounds: int = DEFAULT_MAX_ROUNDS
    confirm: int = 0
    name: str | None = None
    description: str | None = None

    @property
    def players(self) -> int:
        return self.rules.players

    @property
    def rotations(self) -> int:
        return self.players if self.duplicate else 1

    @property
    def size(self) -> int:
        return _space_size(self.space)

    @property
    def method(self) -> str:
        if self.search != "auto":
            return self.search
        return "grid" if self.size <= self.max_evals else "coordinate"

    def base(self) -> tuple[Any, NamedTuple]:
        from strategies import parse_seat

        return parse_seat(self.strategy)

    def default_point(self) -> Point:
        _, params = self.base()
        return tuple(getattr(params, r.name) for r in self.space)

    def seat_spec(self, point: Point) -> str:
        from strategies import format_seat

        strategy, params = self.base()
        changed = {r.name: v for r, v in zip(self.space, point, strict=True)}
        return format_seat(strategy, params._replace(**changed))

    def lineup(self, point: Point) -> tuple[str, ...]:
        return (self.seat_spec(point), *self.against)

    def to_dict(self) -> dict[str, Any]:
        return {
            "strategy": self.strategy,
            "params": [r.to_dict() for r in self.space],
            "against": list(self.against),
            "rules": self.rules.to_dict(),
            "mode": self.mode,
            "count": self.count,
            "seed": self.seed,
            "duplicate": self.duplicate,
            "max_evals": self.max_evals,
            "search": self.search,
            "max_rounds": self.max_rounds,
            "confirm": self.confirm,
            "name": self.name,
            "description": self.description,
        }

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> TuneRequest:
        return make_request(
            data["strategy"],
            [
                ParamRange(p["name"], p["kind"], tuple(p["values"]), p.get("text", ""))
                for p in data["params"]
            ],
            against="/".join(data["against"]),
            rules=RuleSet.from_dict(data["rules"]),
            count=data["count"],
            mode=data["mode"],
            seed=data["seed"],
            duplicate=data["duplicate"],
            max_evals=data["max_evals"],
            search=data["search"],
            max_rounds=data.get("max_rounds", DEFAULT_MAX_ROUNDS),
            confirm=data.get("confirm", 0),
            name=data.get("name"),
            description=data.get("description"),
        )


def _whole(name: str, value: Any, low: int) -> int:
    if isinstance(value, bool) or not isinstance(value, int | np.integer) or value < low:
        raise TuneError(f"{name}={value!r} is not allowed; give a whole number >= {low}")
    return int(value)


def make_request(
    strategy: str,
    params: Sequence[str | ParamRange],
    *,
    against: str | Sequence[str],
    rules: RuleSet | str = "gin",
    count: int,
    mode: str = "deals",
    seed: int | None = None,
    duplicate: bool = False,
    max_evals: int = DEFAULT_MAX_EVALS,
    search: str = "auto",
    max_rounds: int = DEFAULT_MAX_ROUNDS,
    confirm: int = 0,
    name: str | None = None,
    description: str | None = None,
) -> TuneRequest:
    """Check every input (one-line errors, all ``ValueError``) and normalise it.

    ``strategy`` is a seat spec: a name, optionally with parameters held fixed
    (``schedule:min_gain=2``); ``params`` the tuned parameters (``"knock_at=0..10"``
    or ParamRange); ``against`` the other seats (one spec for all, or ``a/b/c``).
    """
    from strategies import StrategyError, format_seat, parse_lineup, parse_seat, split_specs

    rule_set = rules if isinstance(rules, RuleSet) else get_rules(rules)
    players = rule_set.players
    if players < 2:  # pragma: no cover - every rule set has 2+ players
        raise TuneError("tuning needs at least two players")
    if not isinstance(strategy, str) or not strategy.strip():
        raise TuneError("give the strategy to tune, e.g. greedy or schedule:min_gain=2")
    if "/" in strategy:
        raise TuneError(
            f"strategy {strategy!r} holds '/': give one strategy to tune (seat 0) "
            "and the other seats with against"
        )
    base, base_params = parse_seat(strategy)
    if not params:
        fields = base.params._fields
        raise TuneError(
            f"nothing to tune: give at least one parameter of {base.name}, "
            f"e.g. {fields[0] if fields else 'name'}=0..10 "
            f"(its parameters: {', '.join(fields) or '(none)'})"
        )
    space: list[ParamRange] = []
    for item in params:
        r = parse_param(base, item) if isinstance(item, str) else item
        if not isinstance(r, ParamRange) or r.name not in base.params._fields:
            raise TuneError(f"{item!r} is not a parameter of {base.name}")
        if any(s.name == r.name for s in space):
            raise TuneError(f"parameter {r.name!r} is tuned twice; give one range for it")
        if getattr(base_params, r.name) != base.params._field_defaults[r.name]:
            raise TuneError(
                f"parameter {r.name!r} is both fixed in {strategy!r} and tuned; drop one"
            )
        space.append(r)
    size = _space_size(space)
    if mode not in ("deals", "games"):
        raise TuneError(f"mode={mode!r} is not allowed; choose 'deals' or 'games'")
    if mode == "games" and rule_set.game_mode[0] == "hand":
        raise TuneError(
            f"rules {rule_set.name!r} have game='hand': play single deals, or set a game mode"
        )
    count = _whole("games" if mode == "games" else "deals", count, 2)
    seed = new_seed() if seed is None else _whole("seed", seed, 0)
    max_evals = _whole("max_evals", max_evals, 1)
    max_rounds = _whole("max_rounds", max_rounds, 1)
    confirm = _whole("confirm", confirm, 0)
    if confirm == 1:
        raise TuneError(
            "confirm=1 is not allowed; give 0 (no confirmation) or at least 2 (a CI needs two)"
        )
    if search not in SEARCHES:
        raise TuneError(f"search={search!r} is not allowed; choose one of: {', '.join(SEARCHES)}")
    if search == "grid" and size > MAX_GRID:
        raise TuneError(
            f"the grid holds {size:,} settings, more than {MAX_GRID:,}; narrow the ranges"
        )
    texts = [against] if isinstance(against, str) else [str(a) for a in against]
    example = "write e.g. simple or greedy/greedy/simple"
    try:
        pieces = [spec for text in texts for spec in split_specs(text)]
    except StrategyError as error:
        raise TuneError(f"against={against!r}: {error}; {example}") from None
    if not pieces:
        raise TuneError(f"against={against!r}: no seat; {example}")
    others = players - 1
    if len(pieces) not in (1, others):
        raise TuneError(
            f"against={'/'.join(pieces)!r} gives {len(pieces)} seats; the {players}-player rules "
            f"{rule_set.name!r} have {others} other seat{'s' if others > 1 else ''}: give one spec "
            "for all of them or one per seat"
        )
    try:
        seats = parse_lineup(pieces, others)
    except StrategyError as error:
        raise TuneError(f"against: {error}") from None
    return TuneRequest(
        strategy=format_seat(base, base_params),
        space=tuple(space),
        against=tuple(format_seat(s, p) for s, p in seats),
        rules=rule_set,
        count=count,
        mode=mode,  # type: ignore[arg-type]
        seed=seed,
        duplicate=bool(duplicate),
        max_evals=max_evals,
        search=search,
        max_rounds=max_rounds,
        confirm=confirm,
        name=name,
        description=description,
    )


# --- results ----------------------------------------------------------------------------------


@dataclass(frozen=True)
class TuneResult:
    """What :func:`tune` found. ``settings`` has one row per setting played."""

    tune_id: str
    directory: Path
    request: TuneRequest
    search: SearchResult
    settings: pl.DataFrame
    best: Point
    default: Point
    verdict: SweepVerdict
    vs_default: Comparison
    confirmation: Comparison | None
    confirm_seed: int | None
    chart_paths: tuple[Path, ...]
    hands_played: int
    elapsed: float

    @property
    def best_label(self) -> str:
        return label_of(self.request.space, self.best)

    @property
    def default_label(self) -> str:
        return label_of(self.request.space, self.default)

    @property
    def metric(self) -> str:
        return metric_name(self.request.mode)

    def on_edge(self) -> list[str]:
        """Parameters whose best value is the first or last of its range (of 3 or more
        values): the optimum may lie beyond the range."""
        return [
            r.name
            for r, v in zip(self.request.space, self.best, strict=True)
            if len(r) >= 3 and v in (r.values[0], r.values[-1])
        ]

    @property
    def best_interval(self) -> Interval:
        return self.verdict.means[self.best_label]

    def to_dict(self) -> dict[str, Any]:
        req = self.request
        verdict = self.verdict
        runner_up = None
        if verdict.runner_up is not None:
            c, p = verdict.comparisons[0], verdict.adjusted_p[0]
            runner_up = {
                "setting": verdict.runner_up,
                **_comparison_dict(c),
                "holm_p": p,
                "comparisons": len(verdict.comparisons),
            }
        s = self.search
        return {
            "tune_id": self.tune_id,
            "directory": str(self.directory),
            "name": req.name,
            "strategy": req.strategy,
            "against": list(req.against),
            "rules": req.rules.name,
            "players": req.players,
            "mode": req.mode,
            "count": req.count,
            "seed": req.seed,
            "duplicate": req.duplicate,
            "rotations": req.rotations,
            "metric": self.metric,
            "focal_seat": 0,
            "params": [r.to_dict() for r in req.space],
            "space_size": req.size,
            "search": {
                "method": s.method,
                "max_evals": req.max_evals,
                "evaluated": len(s.values),
                "rounds": s.rounds,
                "converged": s.converged,
                "budget_exhausted": s.budget_exhausted,
                "start": label_of(req.space, s.start) if s.start is not None else None,
                "path": [label_of(req.space, p) for p in s.path],
            },
            "best": {
                "setting": self.best_label,
                "params": dict(zip((r.name for r in req.space), self.best, strict=True)),
                "seat": req.seat_spec(self.best),
                **_interval_dict(self.best_interval),
            },
            "default": {
                "setting": self.default_label,
                "seat": req.seat_spec(self.default),
                "candidate": self.default in s.values,
            },
            "vs_default": _comparison_dict(self.vs_default),
            "confirmation": (
                {
                    **_comparison_dict(self.confirmation),
                    "seed": self.confirm_seed,
                    "count": req.confirm,
                }
                if self.confirmation is not None
                else None
            ),
            "runner_up": runner_up,
            "on_edge": self.on_edge(),
            "significant": verdict.significant,
            "alpha": verdict.alpha,
            "verdict": verdict.summary(),
            "settings": self.settings.to_dicts(),
            "charts": [str(p) for p in self.chart_paths],
            "hands_played": self.hands_played,
            "elapsed": self.elapsed,
        }


def _interval_dict(iv: Interval) -> dict[str, Any]:
    return {
        "estimate": iv.estimate,
        "low": iv.low,
        "high": iv.high,
        "confidence": iv.confidence,
        "method": iv.method,
        "n": iv.n,
    }


def _comparison_dict(c: Comparison) -> dict[str, Any]:
    return {
        "estimate": c.mean_diff,
        "low": c.ci.low,
        "high": c.ci.high,
        "confidence": c.ci.confidence,
        "method": c.method,
        "p_value": c.p_value,
        "n": c.n,
    }


# --- playing settings -------------------------------------------------------------------------


class _Engine:
    """Plays settings through the runner and returns seat 0's per-unit metric."""

    def __init__(
        self,
        request: TuneRequest,
        *,
        root: Path,
        tune_id: str,
        workers: int | None,
        chunk_size: int | None,
        command: str,
        progress: Callable[[Any], None] | None,
    ):
        self.request = request
        self.root = root
        self.tune_id = tune_id
        self.workers = workers if workers is not None else (os.cpu_count() or 1)
        self.chunk_size = chunk_size
        self.command = command
        self.progress = progress
        self.references: dict[tuple[int, int], Any] = {}  # (seed, count) -> first Units
        self.hands_played = 0
        self._pool: ProcessPoolExecutor | None = None
        self._queue: Any = None
        self._tasks = 0

    def configs(self, point: Point, *, seed: int, count: int) -> list[RunConfig]:
        req = self.request
        lineup = req.lineup(point)
        return [
            RunConfig(
                rules=req.rules,
                lineup=rotate(lineup, r),
                count=count,
                mode=req.mode,
                experiment=self.tune_id,
                seed=seed,
                chunk_size=self.chunk_size,
                workers=self.workers,
                out=self.root,
                command=self.command,
            )
            for r in range(req.rotations)
        ]

    def _run_all(self, configs: list[RunConfig]) -> None:
        """Every config through ``sim.runner.run``: in this process with one worker, else
        one whole run per task on a pool of ``workers`` processes that lives as long as
        the tune (a pool per batch would cost a process start and an engine load per
        batch: seconds, against a fraction of a second for a small run)."""
        from sim import experiment as X

        tracker = X._Tracker(configs, 0, self.progress)
        tracker.emit()
        if self.workers <= 1:
            for i, config in enumerate(configs):
                run(dataclasses.replace(config, workers=1), progress=partial(tracker.update, i))
                tracker.finished()
            self.hands_played += tracker.hands_played
            return
        if self._pool is None:
            self._queue = multiprocessing.get_context("spawn").Queue()
            self._pool = process_pool(self.workers, X._pool_init, (self._queue,))

        # Task numbers run on across batches: a late report of an earlier batch's run
        # (the queue is asynchronous) is then recognised and dropped.
        first = self._tasks
        self._tasks += len(configs)

        def drain() -> None:
            while True:
                try:
                    index, p = self._queue.get_nowait()
                except queue_module.Empty:
                    return
                if first <= index < first + len(configs):
                    tracker.update(index - first, p)

        futures = {
            self._pool.submit(X._pool_run, first + i, dataclasses.replace(c, workers=1)): i
            for i, c in enumerate(configs)
        }
        pending = set(futures)
        while pending:
            done, pending = wait(pending, timeout=0.25, return_when=FIRST_COMPLETED)
            drain()
            for future in done:
                try:
                    future.result()
                except BrokenProcessPool:
                    raise RunError(
                        "a worker process died (out of memory or killed); finished runs are "
                        "kept: run the same command again to resume"
                    ) from None
                tracker.finished()
        drain()
        self.hands_played += tracker.hands_played

    def close(self) -> None:
        if self._pool is not None:
            self._pool.shutdown(wait=True, cancel_futures=True)
            self._pool = None
        if self._queue is not None:
            self._queue.close()
            self._queue.join_thread()
            self._queue = None

    def play(self, points: Sequence[Point], *, seed: int, count: int) -> list[Values]:
        per_point = [self.configs(p, seed=seed, count=count) for p in points]
        self._run_all(list({c.run_dir: c for cs in per_point for c in cs}.values()))
        players = self.request.players
        out = []
        for point, configs in zip(points, per_point, strict=True):
            total: Values | None = None
            for r, config in enumerate(configs):
                units = load_units(config)
                reference = self.references.setdefault((seed, count), units)
                check_joined(reference, units, f"setting {label_of(self.request.space, point)}")
                net = units.net((players - r) % players)  # the tuned seat in rotation r
                total = net if total is None else total + net
            assert total is not None
            out.append(total / len(configs))
        return out


def _tune_id(request: TuneRequest, engine: _Engine) -> str:
    reference = engine.configs(request.default_point(), seed=request.seed, count=request.count)
    return short_hash(
        {
            "kind": "tune",
            "request": {
                k: v for k, v in request.to_dict().items() if k not in ("name", "description")
            },
            "reference_runs": [c.config_hash for c in reference],
        }
    )


def _settings_frame(
    request: TuneRequest,
    found: SearchResult,
    values: Mapping[Point, Values],
    default: Point,
    verdict: SweepVerdict,
    confidence: float,
) -> pl.DataFrame:
    space = request.space
    by_other = {
        c.label_b: (c, p) for c, p in zip(verdict.comparisons, verdict.adjusted_p, strict=True)
    }
    best = found.best
    rows = []
    for order, (point, v) in enumerate(values.items()):
        label = label_of(space, point)
        iv = mean_ci(v, confidence, "t")
        candidate = point in found.values
        vs_default = difference_test(v - values[default], confidence)
        c, holm_p = by_other.get(label, (None, math.nan))
        rows.append(
            {
                "setting": label,
                **{
                    r.name: (int(x) if r.kind == "int" else float(x))
                    for r, x in zip(space, point, strict=True)
                },
                "seat": request.seat_spec(point),
                "order": order,
                "candidate": candidate,
                "default": point == default,
                "best": point == best,
                "units": int(v.size),
                "mean": iv.estimate,
                "low": iv.low,
                "high": iv.high,
                "diff_vs_best": (-c.mean_diff if c else (0.0 if point == best else math.nan)),
                "diff_low": (-c.ci.high if c else math.nan),
                "diff_high": (-c.ci.low if c else math.nan),
                "p_value": c.p_value if c else math.nan,
                "holm_p": holm_p,
                "diff_vs_default": vs_default.mean_diff,
            }
        )
    return pl.DataFrame(rows)


def _write_settings(frame: pl.DataFrame, path: Path, tune_id: str) -> None:
    meta = {"schema_version": R.SCHEMA_VERSION, "table": "tune_settings", "tune_id": tune_id}
    R.write_parquet_atomic(R.with_provenance(frame.to_arrow(), meta), path)


def tune(
    strategy: str | TuneRequest,
    params: Sequence[str | ParamRange] = (),
    *,
    against: str | Sequence[str] = "",
    rules: RuleSet | str = "gin",
    count: int = 100_000,
    mode: str = "deals",
    seed: int | None = None,
    duplicate: bool = False,
    max_evals: int = DEFAULT_MAX_EVALS,
    search: str = "auto",
    max_rounds: int = DEFAULT_MAX_ROUNDS,
    confirm: int = 0,
    workers: int | None = None,
    out: Path | str = "results",
    chunk_size: int | None = None,
    chart: bool = True,
    confidence: float = DEFAULT_CONFIDENCE,
    command: str | None = None,
    progress: Callable[[Any], None] | None = None,
    on_batch: Callable[[str, int], None] | None = None,
    on_start: Callable[[TuneRequest, Path], None] | None = None,
) -> TuneResult:
    """Search the strategy's parameters on common deals; see the module docstring.

    ``strategy`` may be a ready :class:`TuneRequest` (the other request arguments are
    then ignored). Everything is checked before the first deal is played and before
    anything is written. ``progress`` receives ``sim.experiment.ExperimentProgress``
    during each batch of runs, ``on_batch`` a description before each batch and
    ``on_start`` the request and the directory once everything is checked.

    Raises
    ------
    TuneError, StrategyError, RuleError, RunError
        One-line messages (all ``ValueError``).
    """
    started = time.perf_counter()
    if isinstance(strategy, TuneRequest):
        request = strategy
    else:
        request = make_request(
            strategy,
            params,
            against=against,
            rules=rules,
            count=count,
            mode=mode,
            seed=seed,
            duplicate=duplicate,
            max_evals=max_evals,
            search=search,
            max_rounds=max_rounds,
            confirm=confirm,
        )
    command = command if command is not None else shlex.join(sys.argv)
    root = Path(out) / "tune"
    engine = _Engine(
        request,
        root=root,
        tune_id="pending",
        workers=workers,
        chunk_size=chunk_size,
        command=command,
        progress=progress,
    )
    tune_id = _tune_id(request, engine)
    engine.tune_id = tune_id
    directory = root / tune_id
    if workers is not None:
        _whole("workers", workers, 1)
    if chunk_size is not None:
        _whole("chunk_size", chunk_size, 1)
    if on_start is not None:
        on_start(request, directory)
    created = make_dir(directory)
    default = request.default_point()
    try:
        record = {
            "kind": "rummy-tune-request",
            "format_version": FORMAT_VERSION,
            **request.to_dict(),
        }
        write_json_atomic(directory / REQUEST_FILE, strict_json(record))

        def evaluate(points: Sequence[Point]) -> list[Values]:
            return engine.play(points, seed=request.seed, count=request.count)

        found = _search(
            request.space,
            evaluate,
            start=default,
            max_evals=request.max_evals,
            method=request.search,
            max_rounds=request.max_rounds,
            on_batch=on_batch,
        )
        values = dict(found.values)
        if default not in values:
            if on_batch is not None:
                on_batch("the default parameters (reference)", 1)
            values[default] = evaluate([default])[0]
        best = found.best
        confirmation = None
        confirm_seed = None
        if request.confirm and best != default:
            from sim.experiment import block_seed

            confirm_seed = block_seed(request.seed, CONFIRM_BLOCK)
            if on_batch is not None:
                on_batch(
                    f"confirmation: best and default on {request.confirm:,} fresh {request.mode}", 2
                )
            fresh = engine.play([best, default], seed=confirm_seed, count=request.confirm)
            confirmation = difference_test(
                fresh[0] - fresh[1],
                confidence,
                label_of(request.space, best),
                f"default ({label_of(request.space, default)})",
            )
    except BaseException:
        if created and not any(p.name != REQUEST_FILE for p in directory.iterdir()):
            (directory / REQUEST_FILE).unlink(missing_ok=True)
            remove_if_empty(directory)
        raise
    finally:
        engine.close()

    space = request.space
    labels = {p: label_of(space, p) for p in values}
    verdict = best_vs_runner_up(
        {labels[p]: found.values[p] for p in found.values}, confidence=confidence
    )
    assert labels[best] == verdict.best
    vs_default = difference_test(
        values[best] - values[default], confidence, labels[best], f"default ({labels[default]})"
    )
    settings = _settings_frame(request, found, values, default, verdict, confidence)
    try:
        _write_settings(settings, directory / SETTINGS_FILE, tune_id)
        chart_paths: tuple[Path, ...] = ()
        if chart:
            from sim.present import charts

            fig = tune_chart(settings, request, best=best, default=default, confidence=confidence)
            chart_paths = tuple(charts.save(fig, directory / CHART_STEM))
    except OSError as error:
        raise RunError(f"cannot write into {directory}: {error.strerror or error}") from None
    result = TuneResult(
        tune_id=tune_id,
        directory=directory,
        request=request,
        search=found,
        settings=settings,
        best=best,
        default=default,
        verdict=verdict,
        vs_default=vs_default,
        confirmation=confirmation,
        confirm_seed=confirm_seed,
        chart_paths=chart_paths,
        hands_played=engine.hands_played,
        elapsed=time.perf_counter() - started,
    )
    final = {
        "kind": "rummy-tune",
        "format_version": FORMAT_VERSION,
        "created": datetime.now(UTC).isoformat(timespec="seconds"),
        "command": command,
        "request": request.to_dict(),
        **result.to_dict(),
    }
    try:
        write_json_atomic(directory / TUNE_FILE, strict_json(final))
    except OSError as error:
        raise RunError(f"cannot write {directory / TUNE_FILE}: {error.strerror or error}") from None
    return result


def resume(directory: str | os.PathLike[str], **options: Any) -> TuneResult:
    """Finish (or redo the analysis of) the tune in ``directory`` from its request.

    ``options`` are :func:`tune`'s run options (``workers``, ``out`` is implied, ...).
    """
    directory = Path(directory)
    path = directory / REQUEST_FILE
    try:
        data = json.loads(path.read_text())
    except FileNotFoundError:
        raise TuneError(f"{directory} is not a tune directory (no {REQUEST_FILE})") from None
    except (OSError, ValueError) as error:
        raise TuneError(f"{path}: unreadable ({error})") from None
    if not isinstance(data, dict) or data.get("kind") != "rummy-tune-request":
        raise TuneError(f"{path}: not a rummy tune request")
    try:
        request = TuneRequest.from_dict(data)
    except (KeyError, TypeError) as error:
        raise TuneError(f"{path}: incomplete request ({error})") from None
    result = tune(request, out=directory.parent.parent, **options)
    if result.directory.resolve() != directory.resolve():
        raise TuneError(
            f"cannot resume {directory}: it was made by another version of the engine "
            f"(this one files it under {result.directory})"
        )
    return result


def load_tune(directory: str | os.PathLike[str]) -> dict[str, Any]:
    """The ``tune.json`` of a finished tune (TuneError when absent)."""
    path = Path(directory) / TUNE_FILE
    try:
        record = json.loads(path.read_text())
    except FileNotFoundError:
        raise TuneError(f"{directory} holds no finished tune (no {TUNE_FILE})") from None
    except (OSError, ValueError) as error:
        raise TuneError(f"{path}: unreadable ({error})") from None
    if not isinstance(record, dict) or record.get("kind") != "rummy-tune":
        raise TuneError(f"{path}: not a rummy tune")
    return record


# --- tune files ---------------------------------------------------------------------------------


def is_tune_file(path: str | os.PathLike[str]) -> bool:
    """Whether ``path`` is a readable TOML file with a ``[tune]`` table."""
    import tomllib

    try:
        data = tomllib.loads(Path(path).read_bytes().decode("utf-8"))
    except (OSError, UnicodeDecodeError, tomllib.TOMLDecodeError):
        return False
    return isinstance(data.get("tune"), dict)


def load_tune_file(path: str | os.PathLike[str], **overrides: Any) -> TuneRequest:
    """Read a tune file (TOML) into a request; ``overrides`` (not None) win over it.

    Layout (``experiments/tune_*.toml``)::

        name = "tune_schedule_gin"        # optional; default: the file's stem
        description = "..."               # optional
        seed = 20240612                   # optional; drawn when absent
        deals = 40_000                    # or games = N
        duplicate = true                  # optional (default false)
        [rules]                           # or rules = "gin"
        preset = "gin"                    # plus rule parameters, e.g. players = 4
        [tune]
        strategy = "schedule"             # seat 0's strategy, may fix parameters
        against = "simple"                # the other seats
        max_evals = 60                    # optional; search = "auto" | "grid" | "coordinate"
        confirm = 40_000                  # optional: fresh deals for best vs default
        [tune.params]                     # the space: ranges or lists
        a = "4..16"
        b = "0..1:0.1"                    # or b = [0.25, 0.5, 0.75]

    Raises
    ------
    TuneError
        One line starting with the file name.
    """
    import tomllib

    from sim.rules import PRESETS, RuleError

    where = str(path)
    p = Path(path)
    if not p.exists():
        raise TuneError(f"{where}: no such tune file")
    if p.is_dir():
        raise TuneError(f"{where}: is a directory, not a tune file (.toml)")
    try:
        data = tomllib.loads(p.read_bytes().decode("utf-8"))
    except UnicodeDecodeError:
        raise TuneError(f"{where}: not a text file (TOML is UTF-8)") from None
    except OSError as error:
        raise TuneError(f"{where}: cannot read ({error.strerror or error})") from None
    except tomllib.TOMLDecodeError as error:
        raise TuneError(f"{where}: not valid TOML ({R._one_line(error)})") from None

    def fail(message: str) -> TuneError:
        return TuneError(f"{where}: {message}")

    for key in data:
        if key not in FILE_KEYS:
            raise fail(f"unknown key {key!r}; a tune file allows: {', '.join(FILE_KEYS)}")
    table = data.get("tune")
    if not isinstance(table, dict):
        raise fail("no [tune] table; give strategy, against and [tune.params]")
    for key in table:
        if key not in TUNE_KEYS:
            raise fail(f"unknown key tune.{key}; allowed: {', '.join(TUNE_KEYS)}")
    for key in ("strategy", "against", "params"):
        if key not in table:
            raise fail(f"tune.{key} is missing")
    sizes = [k for k in ("deals", "games") if k in data]
    if len(sizes) != 1:
        raise fail("give exactly one size: deals = N (single hands) or games = N (whole games)")
    rules_value = data.get("rules", "gin")
    try:
        if isinstance(rules_value, str):
            rule_set = get_rules(rules_value)
        elif isinstance(rules_value, dict):
            preset = rules_value.get("preset")
            if not isinstance(preset, str):
                raise fail("rules.preset is missing; give a preset name (see `rummy rules list`)")
            if preset not in PRESETS:
                raise fail(f"rules: unknown preset {preset!r}; choose one of: {', '.join(PRESETS)}")
            rule_set = get_rules(preset, **{k: v for k, v in rules_value.items() if k != "preset"})
        else:
            raise fail("rules must be a preset name or a table (preset and parameters)")
    except RuleError as error:
        raise fail(f"rules: {error}") from None
    raw = table["params"]
    if not isinstance(raw, dict) or not raw:
        raise fail('tune.params must be a table of ranges or lists, e.g. knock_at = "0..10"')
    params = []
    for name, value in raw.items():
        if isinstance(value, list):
            text = ",".join(str(v) for v in value)
        elif isinstance(value, str | int | float) and not isinstance(value, bool):
            text = str(value)
        else:
            raise fail(f"tune.params.{name} = {value!r}: give a range text or a list of numbers")
        params.append(f"{name}={text}")
    name = data.get("name", p.stem)
    duplicate = data.get("duplicate", False)
    if not isinstance(duplicate, bool):
        raise fail(f"duplicate = {duplicate!r} is not allowed; give true or false")
    for key in ("strategy", "against"):
        if not isinstance(table[key], str):
            raise fail(f"tune.{key} = {table[key]!r}: give a text in quotes")
    values: dict[str, Any] = {
        "against": table["against"],
        "rules": rule_set,
        "count": data[sizes[0]],
        "mode": sizes[0],
        "seed": data.get("seed"),
        "duplicate": duplicate,
        "max_evals": table.get("max_evals", DEFAULT_MAX_EVALS),
        "search": table.get("search", "auto"),
        "max_rounds": table.get("max_rounds", DEFAULT_MAX_ROUNDS),
        "confirm": table.get("confirm", 0),
        "name": name if isinstance(name, str) else None,
        "description": data.get("description")
        if isinstance(data.get("description"), str)
        else None,
    }
    values.update({k: v for k, v in overrides.items() if v is not None})
    try:
        return make_request(table["strategy"], params, **values)
    except ValueError as error:
        raise fail(str(error)) from None


# --- the chart -----------------------------------------------------------------------------------


def tune_chart(
    settings: pl.DataFrame,
    request: TuneRequest,
    *,
    best: Point,
    default: Point,
    confidence: float = DEFAULT_CONFIDENCE,
) -> Any:
    """Setting against expected points with CI bands: a curve for one parameter, a
    heatmap (settings played) for two, one profile through the best per parameter for
    more. A star marks the best; a dashed line the default (when it lies in the range)."""
    from sim.present import charts

    space = request.space
    metric = metric_name(request.mode)
    per = "hand" if request.mode == "deals" else "game"
    who = f"{request.strategy} (seat 0) vs {'/'.join(request.against)}"
    title = f"Tuning {request.strategy} under {request.rules.name}: {metric}"
    seating = f", {request.rotations} seatings" if request.duplicate else ""
    subtitle = f"{who}; {request.count:,} {request.mode} per setting{seating}, same deals"
    candidates = settings.filter(pl.col("candidate"))
    points_label = f"net points per {per} (seat 0)"
    if len(space) == 1:
        name = space[0].name
        fig = charts.knock_curve(
            candidates.sort(name),
            x=name,
            line=None,
            points=("mean", "low", "high"),
            win=None,
            points_label=points_label,
            x_label=name,
            title=title,
            subtitle=subtitle,
            confidence=confidence,
        )
        ax = fig.axes[0]
        if default[0] not in space[0].values:  # e.g. greedy's -1, "the rule's limit"
            return fig
        ax.axvline(float(default[0]), color="0.35", linestyle="--", linewidth=1.0)
        ax.annotate(
            "default",
            (float(default[0]), 1.0),
            xycoords=("data", "axes fraction"),
            xytext=(3, -12),
            textcoords="offset points",
            fontsize=8,
            color="0.35",
        )
        return fig
    if len(space) == 2:
        x, y = space[0].name, space[1].name
        return charts.heatmap(
            candidates,
            x=x,
            y=y,
            value="mean",
            low="low",
            high="high",
            value_label=points_label,
            x_label=x,
            y_label=y,
            title=title + (" (settings played)" if len(candidates) < request.size else ""),
            mark_best="all",
        )
    return _profiles(
        candidates,
        request,
        best=best,
        default=default,
        title=title,
        subtitle=subtitle,
        points_label=points_label,
        confidence=confidence,
    )


def _profiles(
    frame: pl.DataFrame,
    request: TuneRequest,
    *,
    best: Point,
    default: Point,
    title: str,
    subtitle: str,
    points_label: str,
    confidence: float,
) -> Any:
    from sim.present import charts

    space = request.space
    n = len(space)
    with charts._style():
        fig = charts._new_figure(4.2 * min(n, 3), 3.4 * math.ceil(n / 3) + 0.8)
        axes = fig.subplots(math.ceil(n / 3), min(n, 3), squeeze=False).ravel()
        for i, r in enumerate(space):
            ax = axes[i]
            held = [pl.col(o.name) == best[j] for j, o in enumerate(space) if j != i]
            sub = frame.filter(*held).sort(r.name) if held else frame.sort(r.name)
            xs = sub[r.name].to_numpy().astype(float)
            mean, low, high = (sub[c].to_numpy().astype(float) for c in ("mean", "low", "high"))
            ax.fill_between(xs, low, high, color="C0", alpha=0.18, linewidth=0)
            ax.plot(xs, mean, "-o", color="C0", markersize=3.5)
            k = (
                int(np.flatnonzero(xs == float(best[i]))[0])
                if (xs == float(best[i])).any()
                else None
            )
            if k is not None:
                ax.plot(
                    xs[k],
                    mean[k],
                    marker="*",
                    markersize=13,
                    color="C0",
                    markeredgecolor="black",
                    markeredgewidth=0.6,
                    linestyle="none",
                    zorder=5,
                )
            if default[i] in r.values:
                ax.axvline(float(default[i]), color="0.35", linestyle="--", linewidth=1.0)
            ax.set_xlabel(r.name)
            others = ", ".join(f"{o.name}={best[j]}" for j, o in enumerate(space) if j != i)
            ax.set_title(
                f"{others} held at the best", fontsize=8.5, fontweight="normal", color="0.3"
            )
            if i % 3 == 0:
                ax.set_ylabel(points_label)
        for ax in axes[n:]:
            ax.set_visible(False)
        fig.suptitle(
            f"{title}\n{subtitle}; band: {confidence * 100:g}% CI, star: best, dashed: default",
            fontweight="bold",
            fontsize=10,
        )
    return fig
