"""Parameter spaces and the search over them: pure, for any objective.

A space is the product of the tuned parameters' value lists (``knock_at=0..10``,
``b=0..1:0.1``, ``a=8,9,10``; the grammar of ``sim/study/grid.py``). :func:`search`
plays every setting of a small space (``grid``), and a larger one by coordinate
descent from the default parameters (``sim/study/tune.py`` says why), asking an
objective for per-unit values of a batch of settings at a time.
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Literal, cast

import numpy as np
import numpy.typing as npt

from sim.study.grid import GridError, parse_values

__all__ = [
    "DEFAULT_MAX_EVALS",
    "DEFAULT_MAX_ROUNDS",
    "MAX_GRID",
    "MAX_VALUES",
    "SEARCHES",
    "ParamRange",
    "Point",
    "SearchResult",
    "TuneError",
    "Values",
    "grid_points",
    "label_of",
    "parse_param",
    "search",
    "snap",
    "space_size",
]

DEFAULT_MAX_EVALS = 60  # settings played before a grid gives way to coordinate descent
DEFAULT_MAX_ROUNDS = 10  # coordinate descent rounds (each visits every parameter once)
MAX_VALUES = 1_000  # values of one parameter: beyond this "0..100000" is surely a typo
MAX_GRID = 100_000  # settings a full grid may hold (it is enumerated)
SEARCHES = ("auto", "grid", "coordinate")

Point = tuple[float, ...]  # one value per tuned parameter, in parameter order
Values = npt.NDArray[np.float64]  # per-unit metric, aligned by (game, deal) across settings
Evaluate = Callable[[Sequence[Point]], Sequence[Values]]


class TuneError(ValueError):
    """A tuning request that cannot run (one-line message)."""


# --- parameter spaces ------------------------------------------------------------------------


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


def parse_param(strategy: Any, text: str, where: str | None = None) -> ParamRange:
    """Read ``--param NAME=VALUES`` for ``strategy`` (a Strategy or its name).

    ``VALUES`` is a range ``low..high`` (whole numbers, step 1), ``low..high:step``
    (for a float parameter the bounds and step may be fractions: ``0..1:0.1``), or a
    comma-separated list ``8,9,10``. Every value is checked against the parameter's
    type and bounds. A refusal starts with ``where`` (default: ``--param 'TEXT'``; ""
    starts with the reason: the caller names the value its own way).

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
    where = f"--param {text.strip()!r}" if where is None else where

    def refusal(message: str) -> TuneError:  # "" names no parameter: the caller does
        return TuneError(f"{where}: {message}" if where else message)

    if not eq or not name or not spec.strip():
        example = fields[0] if fields else "name"
        raise refusal(
            f"write name=values, e.g. {example}=0..10, {example}=0..10:2 or {example}=1,3,7"
        )
    if name not in fields:
        raise refusal(
            f"unknown parameter {name!r} for strategy {strategy.name}; "
            f"its parameters: {', '.join(fields) or '(none)'}"
        )
    if name in strategy.specs:
        raise refusal(
            f"{name!r} is a spec parameter, not a number to tune; set it in the "
            f"seat (e.g. {strategy.name}:{name}=greedy) and tune the numbers"
        )
    kind: Literal["int", "float"] = (
        "int" if isinstance(strategy.params._field_defaults[name], int) else "float"
    )
    try:
        values = parse_values(spec, kind=kind, limit=MAX_VALUES)
    except GridError as error:
        raise refusal(str(error)) from None
    for v in values:
        try:
            make_params(strategy, **{name: v})
        except StrategyError as error:
            raise refusal(str(error)) from None
    numbers = cast(list[float], values)  # parse_values gives text only where no kind is given
    return ParamRange(name, kind, tuple(numbers), spec.strip())


def grid_points(space: Sequence[ParamRange]) -> list[Point]:
    """Every setting of the space, first parameter slowest (``itertools.product``)."""
    return [tuple(p) for p in itertools.product(*(r.values for r in space))]


def space_size(space: Sequence[ParamRange]) -> int:
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
    size = space_size(space)
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
