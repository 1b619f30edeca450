"""A tune's request: what to tune, against whom, on how many deals; from flags or a file.

A tune file (TOML) holds ``name``, ``description``, ``seed``, ``deals`` or ``games``,
``duplicate``, ``rules`` (a preset name or a table) and a ``[tune]`` table with the
``strategy``, the ``against`` line-up, the ``params`` (``{knock_at = "0..10"}``) and
the search settings; :func:`load_tune_file` reads it, and flags given on the command
line win over it. Every value is checked before anything runs (``TuneError``).
"""

from __future__ import annotations

import os
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal, NamedTuple

import numpy as np

from sim import store
from sim.limits import MAX_COUNT, MAX_SEED
from sim.rules import DEFAULT_PRESET, RuleError, RuleSet, get_rules
from sim.study.design import ExperimentError, knock_at_problem
from sim.study.experiment_file import read_rules
from sim.study.runs import new_seed
from sim.study.search import (
    DEFAULT_MAX_EVALS,
    DEFAULT_MAX_ROUNDS,
    MAX_GRID,
    SEARCHES,
    ParamRange,
    Point,
    TuneError,
    parse_param,
    space_size,
)

__all__ = ["TuneRequest", "is_tune_file", "load_tune_file", "make_request", "whole"]

FILE_KEYS = ("name", "description", "seed", "deals", "games", "duplicate", "rules", "tune")
TUNE_KEYS = ("strategy", "against", "params", "max_evals", "search", "confirm", "max_rounds")


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
        return space_size(self.space)

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

    def shown(self) -> tuple[str, tuple[str, ...]]:
        """How the tuned strategy and the other seats are shown (``strategies.seat_label``:
        a chart as ``chart#<digest>``, never its parameters)."""
        from strategies import seat_label

        return seat_label(self.strategy), tuple(seat_label(spec) for spec in self.against)

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


AGENT_NOT_TUNED = (
    "{strategy!r} is an agent: its decisions are its own, not parameters to search; tune a "
    "compiled strategy (agents may sit among the other seats)"
)


def whole(name: str, value: Any, low: int, high: int = MAX_COUNT) -> int:
    if isinstance(value, bool) or not isinstance(value, int | np.integer):
        raise TuneError(f"{name}={value!r} is not allowed; give a whole number {low}..{high:,}")
    if not low <= value <= high:
        raise TuneError(f"{name}={value!r} is not allowed; give a whole number {low}..{high:,}")
    return int(value)


def make_request(
    strategy: str,
    params: Sequence[str | ParamRange],
    *,
    against: str | Sequence[str],
    rules: RuleSet | str = DEFAULT_PRESET,
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
    from strategies.agent import AgentStrategy

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
    base, base_params = parse_seat(strategy, rules=rule_set)
    if isinstance(base, AgentStrategy):
        raise TuneError(AGENT_NOT_TUNED.format(strategy=strategy))
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
        for value in r.values if r.name == "knock_at" else ():  # as a sweep's grid
            if why := knock_at_problem(rule_set, value):
                raise TuneError(why)
        space.append(r)
    size = space_size(space)
    if mode not in ("deals", "games"):
        raise TuneError(f"mode={mode!r} is not allowed; choose 'deals' or 'games'")
    if mode == "games" and rule_set.game_mode[0] == "hand":
        raise TuneError(
            f"rules {rule_set.name!r} have game='hand': play single deals, or set a game mode"
        )
    count = whole("games" if mode == "games" else "deals", count, 2)
    seed = new_seed() if seed is None else whole("seed", seed, 0, MAX_SEED)
    max_evals = whole("max_evals", max_evals, 1)
    max_rounds = whole("max_rounds", max_rounds, 1)
    confirm = whole("confirm", confirm, 0)
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
        seats = parse_lineup(pieces, others, rules=rule_set)
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


# --- tune files ---------------------------------------------------------------------------------


def is_tune_file(path: str | os.PathLike[str]) -> bool:
    """Whether ``path`` is a readable TOML file with a ``[tune]`` table."""
    try:
        data = store.read_toml(path)
    except store.StorageError:
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
    where = str(path)
    try:
        data = store.read_toml(path, "tune file")
    except store.StorageError as error:
        raise TuneError(str(error)) from None

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
    try:
        preset, rule_overrides = read_rules(where, data.get("rules", DEFAULT_PRESET))
    except ExperimentError as error:
        raise TuneError(str(error)) from None
    try:
        rule_set = get_rules(preset, **dict(rule_overrides))
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
    name = data.get("name", Path(path).stem)
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
    given = {k: v for k, v in overrides.items() if v is not None}
    if given.get("count") is not None and "confirm" not in given and values["confirm"]:
        given["confirm"] = given["count"]  # another size asked for: confirm on as many
    values.update(given)
    try:
        return make_request(table["strategy"], params, **values)
    except ValueError as error:
        raise fail(str(error)) from None
