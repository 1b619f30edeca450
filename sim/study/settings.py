"""Settings: every point of an experiment's design, as the runs that play it.

A setting is a variant and a grid point, played as one run per seating (one run
without ``duplicate``); every run of every setting has the same seed, so all settings
play identical deals (common random numbers).
"""

from __future__ import annotations

import itertools
import shlex
import sys
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Literal

import numpy as np

from sim import store
from sim.rules import RuleError, RuleSet, get_rules
from sim.store import PathInput, StorePath
from sim.study.design import (
    PLACEHOLDER,
    Experiment,
    Variant,
    fail,
    knock_at_problem,
    rule_value,
)
from sim.study.kinds import RESULTS_ROOT
from sim.study.runs import RunConfig, RunError, new_seed
from sim.study.units import position, rotate, seatings
from strategies import StrategyError, format_seat, lineup_labels, parse_lineup, seat_label

__all__ = ["Setting", "block_seed", "expand", "format_value", "short_key"]


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
    configs: tuple[RunConfig, ...]
    rotations: tuple[int, ...]
    run_dirs: tuple[StorePath, ...] = ()
    names: tuple[str, ...] = ()  # how each seat of ``lineup`` is shown; () as the specs

    @property
    def shown(self) -> tuple[str, ...]:
        """How each seat of ``lineup`` is shown (``strategies.seat_label``)."""
        return self.names or tuple(seat_label(spec) for spec in self.lineup)

    @property
    def dirs(self) -> tuple[StorePath, ...]:
        """Each config's run directory (``run_dirs`` when given: a run read in place)."""
        return self.run_dirs or tuple(c.run_dir for c in self.configs)

    @property
    def players(self) -> int:
        return self.rules.players

    def position(self, seat: int, rotation: int) -> int:
        """Where template seat ``seat`` sits in the run of ``rotation``."""
        return position(seat, rotation, self.players)


def block_seed(seed: int, block: int) -> int:
    """The seed of extension block ``block`` (0: the seed itself); the same for every
    setting, so settings still share deals. SeedSequence's spawn key keeps blocks
    independent of each other and of other seeds."""
    if block == 0:
        return int(seed)
    words = np.random.SeedSequence(int(seed), spawn_key=(int(block),)).generate_state(2, np.uint32)
    return (int(words[0]) << 32) | int(words[1])


def _fill(template: str, params: Mapping[str, Any]) -> str:
    return PLACEHOLDER.sub(lambda m: str(params[m.group(1)]), template)


def short_key(key: str, keys: Sequence[str]) -> str:
    """``rule.players`` reads as ``players`` in labels, unless that is a grid key too."""
    if key.startswith("rule.") and key[5:] not in keys:
        return key[5:]
    return key


def format_value(value: Any) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    return str(value)


def expand(
    experiment: Experiment,
    *,
    out: PathInput = RESULTS_ROOT,
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
        seed = new_seed()
    run_seed = block_seed(seed, block)
    variants = experiment.variants or (Variant(experiment.rules),)
    many = len(experiment.variants) > 1
    keys = experiment.grid_keys
    grids = [v for _, v in experiment.grid]
    settings = []
    # A knock threshold past the knock limit plays as the limit: a grid point of the
    # strategy's that is past it under every rule setting only copies another (a range
    # 0..99 under gin), and is refused; a cross with the limit itself (k x knock_limit)
    # keeps the points that some rule setting plays as they say.
    past: dict[tuple[tuple[str, Any], ...], str] = {}
    within: set[tuple[tuple[str, Any], ...]] = set()
    for variant in variants:
        for point in itertools.product(*grids) if grids else [()]:
            params = dict(zip(keys, point, strict=True))
            parts = ([variant.name] if many or not keys else []) + [
                f"{short_key(k, keys)}={format_value(v)}" for k, v in params.items()
            ]
            label = ", ".join(parts)
            overrides = dict(experiment.rule)
            overrides.update(dict(variant.overrides))
            rule_parts = []
            for k, v in params.items():
                if k.startswith("rule."):
                    overrides[k[5:]] = rule_value(where, k[5:], v)
                    rule_parts.append(f"{k[5:]}={format_value(v)}")
            preset = variant.preset or experiment.rules
            try:
                rules = get_rules(preset, **overrides)
            except RuleError as error:
                raise fail(where, f"setting {label!r}: {error}") from None
            text = _fill(experiment.template, params)
            try:
                seats = parse_lineup(text, rules.players, rules=rules)
                names = tuple(lineup_labels(text, rules.players))
            except StrategyError as error:
                raise fail(where, f"setting {label!r}: {error}") from None
            strategy_point = tuple((k, v) for k, v in params.items() if not k.startswith("rule."))
            why = next(filter(None, (_past_limit(seat, rules) for _, seat in seats)), None)
            if why is None:
                within.add(strategy_point)
            else:
                past.setdefault(strategy_point, f"setting {label!r}: {why}")
            lineup = tuple(format_seat(s, p) for s, p in seats)
            seated = seatings(lineup, experiment.duplicate)
            run_label = ", ".join([variant.name, *rule_parts])
            try:
                configs = tuple(
                    RunConfig(
                        rules=rules,
                        lineup=rotated,
                        count=experiment.count if count is None else count,
                        mode=experiment.mode,
                        experiment=experiment.name,
                        variant=run_label,
                        seed=run_seed,
                        chunk_size=experiment.chunk_size,
                        rows=rows or experiment.rows,
                        labels=(("setting", label), ("seating", r), *params.items()),
                        out=store.location(out),
                        command=command if command is not None else shlex.join(sys.argv),
                        names=rotate(names, r),
                    )
                    for r, rotated in seated
                )
            except (RunError, RuleError, StrategyError) as error:
                raise fail(where, f"setting {label!r}: {error}") from None
            settings.append(
                Setting(
                    label=label,
                    variant=variant.name,
                    params=tuple(params.items()),
                    rules=rules,
                    lineup=lineup,
                    configs=configs,
                    rotations=tuple(r for r, _ in seated),
                    names=names,
                )
            )
    refused = next((why for point, why in past.items() if point not in within), None)
    if refused is not None:
        raise fail(where, refused)
    labels = [s.label for s in settings]
    if len(set(labels)) != len(labels):  # e.g. 1 and 1.0 in one grid list
        dup = next(x for x in labels if labels.count(x) > 1)
        raise fail(where, f"two settings are both {dup!r}; make the grid values distinct")
    return settings


def _past_limit(seat: Any, rules: RuleSet) -> str | None:
    """Why ``seat``'s knock threshold plays as the knock limit (``knock_at_problem``),
    or None (within it, or a strategy without one)."""
    knock_at = getattr(seat, "knock_at", None)
    if isinstance(knock_at, int | float) and not isinstance(knock_at, bool):
        return knock_at_problem(rules, knock_at)
    return None
