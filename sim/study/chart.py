"""Strategy charts: the knock chart, a study on the run pipeline.

>>> from sim.study.chart import knock_chart
>>> chart = knock_chart("gin", "greedy:knock_at=0", deals=200_000, seed=1)
>>> chart.cells.filter(pl.col("verdict") == "knock")

The policy line-up plays seeded single deals; at every discard decision of the focal
seat where a knock is legal, the position is scored two ways on the same determinized
deals (knock now, or discard and play on), and the gains are summed per cell (own
turn, deadwood, optionally the pile cards the opponents took). ``docs/CHARTS.md`` says
how and why; the run is a ``RunConfig(mode="chart")`` played by ``sim.study.execute``
(resumable, any worker count, identical sums), its chunks by ``sim/study/chart_cells.py``.
"""

from __future__ import annotations

import math
import os
from collections.abc import Callable
from dataclasses import dataclass
from fractions import Fraction
from pathlib import Path
from typing import Any

import polars as pl

from sim import store
from sim.engine import lineup_of
from sim.rules import RuleSet
from sim.solver import resolve_rules
from sim.stats import Moments, mean_ci, wilson
from sim.study.chart_cells import CELL_COLUMNS, ChartSpec, gain_units, rates_for
from sim.study.execute import Backend, Progress, execute
from sim.study.rundir import load_cells, load_manifest
from sim.study.runs import RunConfig, RunError, RunResult

__all__ = [
    "MODELS",
    "KnockChart",
    "is_chart_run",
    "knock_chart",
    "load_knock_chart",
    "summarize_cells",
]

MODELS = {"uniform": 0, "kept": 1, "inferred": 2}  # kernels.mc.MODEL_*
MAX_SAMPLES = 4096
MAX_TURNS = 60
MAX_DEADWOOD_COLUMNS = 100
DEFAULT_MIN_POSITIONS = 30  # below this a cell is "too few": no verdict is guessed
KNOCK_RUMMY_COLUMNS = 31  # deadwood 0 .. 29, then "30 or more" (no knock limit)


@dataclass(frozen=True)
class KnockChart:
    """A finished knock chart: its run and one row per cell met (:func:`summarize_cells`)."""

    config: RunConfig
    spec: ChartSpec
    run_dir: Path
    cells: pl.DataFrame
    deals: int
    result: RunResult | None = None  # None when loaded from disk

    @property
    def positions(self) -> int:
        return int(self.cells["positions"].sum()) if self.cells.height else 0


def _policy_default(
    lineup: tuple[str, ...], players: int, focal: int, name: str, fallback: int
) -> int:
    """The focal seat's own ``name`` parameter (greedy's family, mc) when it has one:
    playing on then continues as the policy would."""
    _, params = lineup_of(lineup, players).seats[focal]
    value = getattr(params, name, None)
    return int(value) if isinstance(value, int) else fallback


def chart_spec(
    rules: RuleSet, lineup: tuple[str, ...], *, focal: int = 0, samples: int = 32,
    model: str = "kept", knock_at: int | None = None, min_gain: int | None = None,
    turns: int = 20, deadwood: int | None = None, took: bool = False, per_cell: int = 2000,
    pilot: int = 100_000,
) -> ChartSpec:  # fmt: skip
    """A checked :class:`ChartSpec` (RunError, one line, for a bad value)."""

    def check(name: str, value: Any, low: int, high: int) -> int:
        ok = isinstance(value, int) and not isinstance(value, bool) and low <= value <= high
        if not ok:
            raise RunError(f"{name}={value!r} is not allowed; choose an integer {low}..{high}")
        return int(value)

    check("focal", focal, 0, rules.players - 1)

    def own(name: str, fallback: int) -> int:
        return _policy_default(lineup, rules.players, focal, name, fallback)

    if model not in MODELS:
        raise RunError(f"model={model!r} is not allowed; choose one of: {', '.join(MODELS)}")
    if deadwood is None:
        # Every legal deadwood: 0 .. the limit (11 columns under "upcard", whose limit
        # is at most 10); with no limit 0 .. 29 and "30 or more".
        limit = rules.knock_limit
        deadwood = KNOCK_RUMMY_COLUMNS if limit is None else 11 if limit == "upcard" else limit + 1
    return ChartSpec(
        focal=focal,
        samples=check("samples", samples, 1, MAX_SAMPLES),
        model=MODELS[model],
        knock_at=check("knock_at", own("knock_at", -1) if knock_at is None else knock_at, -1, 200),
        min_gain=check(
            "min_gain", own("min_gain", 1) if min_gain is None else min_gain, -200, 200
        ),
        turns=check("turns", turns, 1, MAX_TURNS),
        deadwood=check("deadwood", deadwood, 1, MAX_DEADWOOD_COLUMNS),
        took=3 if took else 1,
        per_cell=check("per_cell", per_cell, 0, 10**9),
        pilot=check("pilot", pilot, 1, 10**8),
    )  # fmt: skip


def knock_chart(
    rules: str | RuleSet,
    policy: str | tuple[str, ...],
    *,
    deals: int,
    seed: int | None = None,
    focal: int = 0,
    samples: int = 32,
    model: str = "kept",
    knock_at: int | None = None,
    min_gain: int | None = None,
    turns: int = 20,
    deadwood: int | None = None,
    took: bool = False,
    per_cell: int = 2000,
    pilot: int = 100_000,
    min_positions: int = DEFAULT_MIN_POSITIONS,
    experiment: str = "chart",
    out: str | os.PathLike[str] = "results",
    workers: int | None = None,
    chunk_size: int | None = None,
    backend: Backend = "local",
    address: str | None = None,
    progress: Callable[[Progress], None] | None = None,
) -> KnockChart:
    """Play (or resume) a knock chart and return its cells.

    ``policy`` is the line-up (one spec fills every seat); ``focal`` the seat whose
    decisions are charted. ``knock_at`` and ``min_gain`` (the play-on rollouts' knock
    threshold for the focal seat, and everyone's pile test) default to the focal
    seat's own parameters when its strategy has them, else -1 (the rule's limit) and
    1. Raises RunError (one line) for a bad value.
    """
    if isinstance(deals, bool) or not isinstance(deals, int) or deals < 1:
        raise RunError(f"deals={deals!r} is not allowed; give a positive number of deals")
    r = resolve_rules(rules)
    # The line-up normalised and the seed drawn once (when None) by a first config.
    base = RunConfig(rules=r, lineup=policy, count=deals, mode="chart", seed=seed)
    spec = chart_spec(
        r, base.lineup, focal=focal, samples=samples, model=model, knock_at=knock_at,  # type: ignore[arg-type]
        min_gain=min_gain, turns=turns, deadwood=deadwood, took=took, per_cell=per_cell,
        pilot=pilot,
    )  # fmt: skip
    config = RunConfig(
        rules=r, lineup=base.lineup, count=deals, mode="chart", seed=base.seed,
        experiment=experiment, chunk_size=chunk_size, workers=workers, backend=backend,
        address=address, labels=spec.labels(), out=store.location(out),
    )  # fmt: skip
    # The rates are the pilot's: count it once here, before the worker threads ask.
    rates_for(r, config.lineup, config.seed, deals, spec)  # type: ignore[arg-type]
    [result] = execute(
        [config], workers=config.workers, backend=backend, address=address, progress=progress
    )
    chart = load_knock_chart(result.run_dir, min_positions=min_positions)
    return KnockChart(config, spec, result.run_dir, chart.cells, deals, result)


def is_chart_run(path: str | os.PathLike[str]) -> bool:
    """True when ``path`` is a run folder holding a strategy chart."""
    try:
        return load_manifest(path)["config"].get("mode") == "chart"
    except (RunError, OSError, KeyError, TypeError, ValueError):
        return False


def load_knock_chart(
    run_dir: str | os.PathLike[str], *, min_positions: int = DEFAULT_MIN_POSITIONS
) -> KnockChart:
    """A finished chart run's cells (every part checked against its digest)."""
    manifest = load_manifest(run_dir)
    config = RunConfig.from_dict(manifest["config"])
    if config.mode != "chart":
        raise RunError(f"{run_dir} is not a chart run (mode {config.mode!r})")
    spec = ChartSpec.from_labels(dict(config.labels))
    raw = load_cells(run_dir)
    cells = summarize_cells(raw, spec, config.players, min_positions=min_positions)
    return KnockChart(config, spec, store.location(run_dir), cells, config.count)


def _verdict(low: float, high: float, positions: int, min_positions: int) -> str:
    if positions < min_positions or not (math.isfinite(low) and math.isfinite(high)):
        return "too few"
    if low > 0:
        return "knock"
    if high < 0:
        return "play on"
    return "too close"


def summarize_cells(
    raw: pl.DataFrame, spec: ChartSpec, players: int, *, min_positions: int = DEFAULT_MIN_POSITIONS
) -> pl.DataFrame:
    """One row per cell met: the chunks' integer sums added exactly, then per cell the
    mean gain of knocking over playing on (points per hand, 95% t CI over positions),
    the knock's and playing on's hand-win probabilities (Wilson, the positions as
    trials: a position's samples share its hand, so they are not counted as more) and
    the verdict: knock, play on, too close (the CI covers 0) or too few (fewer than
    ``min_positions`` positions: no verdict)."""
    keys = ["turn", "deadwood", "took"]
    if raw.height == 0:
        return pl.DataFrame(schema=dict.fromkeys(keys, pl.Int64))
    # Python integers: exact whatever the sizes (int64 sums of squares could overflow).
    sums: dict[tuple[int, int, int], list[int]] = {}
    for row in raw.select([*keys, *CELL_COLUMNS]).iter_rows():
        acc = sums.setdefault(row[:3], [0] * len(CELL_COLUMNS))
        for i, value in enumerate(row[3:]):
            acc[i] += int(value)
    scale = spec.samples * gain_units(players)
    out = []
    for (turn, deadwood, took), acc in sorted(sums.items()):
        eligible, n, g, g2, knock_won, play_won = acc
        # Exact moments of the per-position mean gains G / scale, then floats.
        mean = Fraction(g, n * scale) if n else Fraction(0)
        m2 = Fraction(g2 * n - g * g, n * scale * scale) if n else Fraction(0)
        gain = mean_ci(Moments(n, float(mean), float(m2)))
        knock = wilson(round(knock_won / spec.samples), n)
        play = wilson(round(play_won / spec.samples), n)
        out.append(
            {
                "turn": turn,
                "deadwood": deadwood,
                "took": took,
                "eligible": eligible,
                "positions": n,
                "gain": gain.estimate,
                "gain_low": gain.low,
                "gain_high": gain.high,
                "knock_win": knock_won / (n * spec.samples) if n else None,
                "knock_win_low": knock.low,
                "knock_win_high": knock.high,
                "play_win": play_won / (n * spec.samples) if n else None,
                "play_win_low": play.low,
                "play_win_high": play.high,
                "verdict": _verdict(gain.low, gain.high, n, min_positions),
            }  # fmt: skip
        )
    return pl.DataFrame(out).with_columns(pl.col(keys + ["eligible", "positions"]).cast(pl.Int64))
