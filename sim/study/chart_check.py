"""A chart checks itself: its predictions against single-cell deviations played on fresh deals.

>>> from sim.study.chart import load_chart
>>> check = check_chart(load_chart("results/chart/RUN"), cells=5, deals=200_000)
>>> check.misses                       # the checked cells whose prediction missed

A chart says, cell by cell, what the other action is worth where the policy meets that
cell. The policy meets a cell at most once a hand (the cell names an own turn), and the
other action ends the hand or changes it from there on, so a seat that plays the policy
but takes the other action in one cell ``c`` gains, per hand played,

    reach(c) x gain(c),

``reach`` the share of deals that meet ``c`` (its positions counted in every deal, scored
or not, over the chart's deals) and ``gain`` the mean over the cell's positions of what
the other action gained there (a position where the policy itself already took that
action gains nothing). That is the *prediction*, with a 95% interval by the delta method
(the gain's t interval over positions and the reach's binomial error).

The *measurement* plays that seat against the line-up on fresh deals (numbers after the
chart's, the same seed): the engine's probe forces the other action in the one cell
(``kernels/probe.py``), and every deal is played again by the unchanged line-up; the
per-deal difference of the seat's net points (its points less the mean of the others')
gives the measured gain per hand with its paired t interval. Deals that never meet the
cell play the same both ways and add 0.

A prediction *agrees* when it and the measurement differ by less than z times their
combined standard error, z the normal quantile that makes the test hold at 95% over all
the checked cells together (Bonferroni: 1.96 for one cell, 2.58 for five), so that a
chart is said to miss when its predictions are off, not when one of several cells is
2 standard errors out by chance. A cell that no fresh deal's play changed (a rare cell
the fresh deals never met) measures exactly 0 with no spread: it is *not reached*. A
cell met by fewer than ``MIN_MET`` fresh deals is *too rare*: its measurement rests on
those few deals, too few for a t interval to hold its 95%. Neither kind agrees nor
misses, nor counts in z. The cells checked are those with the largest predicted effect.
"""

from __future__ import annotations

import math
import threading
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from dataclasses import asdict, dataclass
from typing import Any

import numpy as np
import numpy.typing as npt
import polars as pl

from kernels.chart import cell_of
from kernels.probe import FORCE_FIRST, FORCE_NONE, FORCE_SECOND
from sim.engine import play_deals
from sim.sizes import CHECK_CELLS, CHECK_DEALS
from sim.stats import Interval, Moments, mean_ci, normal_quantile
from sim.study.chart import StrategyChart, cell_totals
from sim.study.chart_cells import gain_units, score_deals
from sim.study.records import read_sealed, write_sealed
from sim.study.runs import RunError

__all__ = [
    "CellCheck", "ChartCheck", "check_chart", "check_of", "checked", "load_check", "predictions",
    "save_check",
]  # fmt: skip

Z = 1.959963984540054  # the normal 97.5% quantile: 95% intervals
TOLERANCE = 1e-9  # points per hand: float rounding of sums that are exactly equal
CHECK_FILE = "check.json"
# Fresh deals of a check by default: as many as the chart's (a check of N deals measures
# about as precisely as an unthinned chart of N deals predicts), at most this many.
DEFAULT_CHECK_DEALS = 1_000_000
# Fresh deals that must meet a cell for its measurement to be judged: as many as a
# chart's cell needs positions for a verdict (``--min-positions``' default).
MIN_MET = 30
# How ``check_chart`` picks the cells it plays: the largest of each.
RANKS = {
    "effect": pl.col("predicted").abs(),
    "gain": pl.col("predicted"),
    "upper": pl.col("predicted_high"),
}


@dataclass(frozen=True)
class CellCheck:
    """One cell's prediction and measurement (points per hand)."""

    turn: int
    column: int
    took: int
    action: str  # the action played instead of the policy's own ("knock", "play on", ...)
    reach: float  # share of deals meeting the cell
    positions: int  # the chart's scored positions in the cell
    met: int  # fresh deals that met the cell
    gain: float  # mean gain of ``action`` over the policy's own choice per position
    predicted: Interval  # reach x gain
    measured: Interval  # paired difference per fresh deal

    @property
    def reached(self) -> bool:
        """Some fresh deal's play changed (else the measurement is 0 with no spread)."""
        m = self.measured
        return not (m.estimate == 0.0 and m.low == 0.0 and m.high == 0.0)

    @property
    def judged(self) -> bool:
        """Reached, by enough fresh deals for its measured interval to hold."""
        return self.reached and self.met >= MIN_MET

    def agrees(self, z: float = Z) -> bool:
        """The two differ by less than ``z`` combined standard errors."""
        se = math.hypot(_se(self.predicted), _se(self.measured))
        # (TOLERANCE: float rounding of sums that are exactly equal.)
        return abs(self.predicted.estimate - self.measured.estimate) <= z * se + TOLERANCE

    def to_dict(self) -> dict[str, Any]:
        out = {k: v for k, v in asdict(self).items() if k not in ("predicted", "measured")}
        for name in ("predicted", "measured"):
            interval = getattr(self, name)
            out |= {name: interval.estimate, f"{name}_low": interval.low,
                    f"{name}_high": interval.high}  # fmt: skip
        return out


@dataclass(frozen=True)
class ChartCheck:
    """The checked cells of one chart, and the fresh deals they were played on."""

    first: int  # the first fresh deal number
    deals: int  # fresh deals played per cell (and once by the unchanged line-up)
    cells: tuple[CellCheck, ...]

    @property
    def z(self) -> float:
        """The agreement test's quantile: 95% over the judged cells together."""
        judged = max(1, sum(c.judged for c in self.cells))
        return normal_quantile(1 - 0.025 / judged)

    def verdict(self, cell: CellCheck) -> str:
        """'agrees', 'MISSES', 'not reached' or 'too rare'."""
        if not cell.reached:
            return "not reached"
        if not cell.judged:
            return "too rare"
        return "agrees" if cell.agrees(self.z) else "MISSES"

    @property
    def misses(self) -> list[CellCheck]:
        return [c for c in self.cells if self.verdict(c) == "MISSES"]

    @property
    def unjudged(self) -> list[CellCheck]:
        """The cells not reached, or too rare."""
        return [c for c in self.cells if not c.judged]

    def summary(self) -> str:
        """One line: do the predictions agree with play?"""
        if not self.cells:
            return "check: no cell had enough positions to check"
        judged = len(self.cells) - len(self.unjudged)
        unreached = sum(not c.reached for c in self.cells)
        rare = len(self.unjudged) - unreached
        aside = ""
        if unreached:
            aside += f"; {unreached} cell(s) not reached in the {self.deals:,} fresh deals"
        if rare:
            aside += f"; {rare} cell(s) too rare to judge (met by fewer than {MIN_MET} fresh deals)"
        if self.misses:
            return (
                f"check: {len(self.misses)} of {judged} predictions MISS the measured "
                f"gain{aside}: this chart's numbers are not to be trusted"
            )
        if not judged:
            return f"check: no prediction could be judged{aside}"
        if judged == 1:
            return (f"check: the one prediction judged agrees with the gain measured on "
                    f"{self.deals:,} fresh deals (at 95%){aside}")  # fmt: skip
        return (
            f"check: all {judged} predictions agree with the gains measured on "
            f"{self.deals:,} fresh deals (at 95% over the {judged} cells){aside}"
        )

    def _rows(self) -> list[dict[str, Any]]:
        return [c.to_dict() | {"verdict": self.verdict(c)} for c in self.cells]

    def frame(self) -> pl.DataFrame:
        return pl.DataFrame(self._rows())

    def to_dict(self) -> dict[str, Any]:
        return {"first": self.first, "deals": self.deals, "z": self.z, "cells": self._rows()}


def _se(interval: Interval) -> float:
    """The standard error behind a normal or t interval (0 when it has none)."""
    half = (interval.high - interval.low) / 2
    return half / Z if math.isfinite(half) else 0.0


def predictions(chart: StrategyChart) -> pl.DataFrame:
    """Every scored cell's predicted single-cell deviation: the action the policy takes
    less often there (``action``), its reach, its mean gain per position and the
    predicted gain per hand with its 95% interval (normal, delta method). The last row
    of own turns ("that turn or later") is left out: a hand may meet it several times,
    so what one deviation there is worth is not its gain times its reach."""
    spec = chart.spec
    if spec.chart == "discard":
        raise RunError("a discard chart counts what happened: it predicts no deviation")
    first, second = spec.actions
    scale = spec.samples * gain_units(chart.config.players)
    rows = []
    for (turn, column, took), acc in sorted(cell_totals(chart).items()):
        eligible, n, total, square, _, _, own_first, own_sum, own_square = acc
        if n < 2 or turn == spec.turns:
            continue  # the last row is "that turn or later": met more than once a hand
        # The policy's less frequent choice is the deviation; a position where the
        # policy already took it gains 0 (gains are first - second).
        if own_first * 2 <= n:
            action, v_sum, v_square = first, total - own_sum, square - own_square
        else:
            action, v_sum, v_square = second, -own_sum, own_square
        m = Moments.from_sums(n, v_sum, v_square)
        gain = m.mean / scale
        se_gain = m.sem / scale
        reach = eligible / chart.deals
        se_reach = math.sqrt(max(reach * (1 - reach), 0.0) / chart.deals)
        estimate = reach * gain
        se = math.hypot(reach * se_gain, gain * se_reach)
        rows.append({"turn": turn, spec.column_name: column, spec.layer_name: took,
                     "action": action, "reach": reach, "positions": n, "gain": gain,
                     "predicted": estimate, "predicted_low": estimate - Z * se,
                     "predicted_high": estimate + Z * se})  # fmt: skip
    return pl.DataFrame(rows)


def _nets(points: npt.NDArray[np.int64], seat: int) -> npt.NDArray[np.float64]:
    """Per deal, ``seat``'s points less the mean of the others' (points)."""
    players = points.shape[1]
    others = (points.sum(axis=1) - points[:, seat]) / (players - 1)
    return (points[:, seat] - others) / 60.0


def check_chart(
    chart: StrategyChart, *, cells: int = CHECK_CELLS, deals: int = CHECK_DEALS,
    rank: str = "effect", at: list[tuple[int, int]] | None = None, threads: int = 1,
    progress: Callable[[int, int], None] | None = None,
) -> ChartCheck:  # fmt: skip
    """Play the ``cells`` cells with the largest predicted effect (``rank="effect"``:
    the largest magnitude; ``"gain"``: the largest gain; ``"upper"``: the largest upper
    end of the gain's interval, the cells that could be the chart's most exploitable,
    rare cells whose few positions say little ranking low), and the cells ``at`` (own
    turn, column; every layer), as single-cell deviations on ``deals`` fresh deals, and
    compare. ``progress(done, total)`` hears
    of each play (the chart's own play of the fresh deals, then each cell's)."""
    if cells < 0 or deals < 2:
        raise RunError(f"a check needs cells >= 0 and deals >= 2, got {cells} and {deals}")
    if rank not in RANKS:
        raise RunError(f"rank={rank!r} is not allowed; choose one of: {', '.join(RANKS)}")
    spec, config = chart.spec, chart.config
    predicted = predictions(chart)
    if predicted.height == 0:
        return ChartCheck(chart.deals, deals, ())
    chosen = predicted.sort(RANKS[rank], descending=True).head(cells)
    if at:
        named = pl.concat_list("turn", spec.column_name).is_in([list(c) for c in at])
        missing = set(at) - {(r[0], r[1]) for r in predicted.filter(named).iter_rows()}
        if missing:
            raise RunError(f"cells {sorted(missing)} have too few scored positions to check "
                           "(or are the last row, 'that turn or later')")  # fmt: skip
        chosen = pl.concat([predicted.filter(named), chosen]).unique(
            ["turn", spec.column_name, spec.layer_name], keep="first", maintain_order=True
        )
    rules, lineup, seed = config.rule_set, config.lineup, config.seed
    assert seed is not None  # a built config has drawn its seed
    first = chart.deals  # fresh: the deal numbers after the chart's
    plays, done, lock = chosen.height + 1, [0], threading.Lock()

    def played() -> None:
        with lock:
            done[0] += 1
            if progress is not None:
                progress(done[0], plays)

    if progress is not None:
        progress(0, plays)
    base = play_deals(rules, lineup, deals=deals, seed=seed, first=first, threads=threads)
    played()
    base_nets = _nets(base.points, spec.focal)
    first_action = spec.actions[0]

    def measure(row: dict[str, Any]) -> CellCheck:
        force = np.full(spec.n_cells, FORCE_NONE, np.int64)
        column = row[spec.column_name]
        cell = cell_of(row["turn"], column, row[spec.layer_name], spec.turns, spec.n_columns,
                       spec.took)  # fmt: skip
        force[cell] = FORCE_FIRST if row["action"] == first_action else FORCE_SECOND
        no_scoring = np.zeros(spec.n_cells)
        met, _, cols = score_deals(rules, lineup, seed, first, deals, spec, no_scoring, force)
        measured = mean_ci(_nets(cols.points, spec.focal) - base_nets)
        se = (row["predicted_high"] - row["predicted"]) / Z
        predicted = Interval(row["predicted"], row["predicted"] - Z * se,
                             row["predicted"] + Z * se, "normal (delta)")  # fmt: skip
        played()
        return CellCheck(
            row["turn"], column, row[spec.layer_name], row["action"], row["reach"],
            row["positions"], int(met[cell]), row["gain"], predicted, measured,
        )  # fmt: skip

    with ThreadPoolExecutor(max_workers=max(1, threads)) as pool:
        checked = list(pool.map(measure, chosen.iter_rows(named=True)))
    return ChartCheck(first, deals, tuple(checked))


def checked(
    chart: StrategyChart, *, cells: int = 5, deals: int | None = None, rank: str = "effect",
    at: list[tuple[int, int]] | None = None, threads: int = 1,
    progress: Callable[[int, int], None] | None = None,
) -> ChartCheck:  # fmt: skip
    """The chart's check with these settings (``deals``: by default as many as the
    chart's, at most ``DEFAULT_CHECK_DEALS``): the saved one, or played and saved
    (``progress`` as :func:`check_chart`'s)."""
    if deals is None:
        deals = max(2, min(chart.deals, DEFAULT_CHECK_DEALS))
    settings = {"cells": cells, "deals": deals, "rank": rank, "min_met": MIN_MET,
                "at": sorted(list(c) for c in at or [])}  # fmt: skip
    found = load_check(chart, settings)
    if found is not None:
        return found
    check = check_chart(
        chart, cells=cells, deals=deals, rank=rank, at=at, threads=threads, progress=progress
    )
    save_check(chart, check, settings)
    return check


def save_check(chart: StrategyChart, check: ChartCheck, settings: dict[str, Any]) -> Any:
    """Write the check beside the chart (``check.json``, whole or not at all, sealed with
    its own digest: ``records.write_sealed``)."""
    path = chart.run_dir / CHECK_FILE  # a local folder or an object store's (sim/store.py)
    write_sealed(path, {"settings": settings, **check.to_dict()})
    return path


def load_check(chart: StrategyChart, settings: dict[str, Any] | None = None) -> ChartCheck | None:
    """The chart's saved check (None when there is none, one of other ``settings``, or
    one saved before checks counted the fresh deals that met each cell: the chart
    command plays it again).

    Raises
    ------
    RunError
        The check is unreadable, edited or damaged (one line naming it).
    """
    path = chart.run_dir / CHECK_FILE
    again = "delete it and run the chart command again to play the check again"
    try:
        data = read_sealed(path, again, error=RunError)
    except FileNotFoundError:
        return None
    try:
        saved = data.get("settings") or {}
        if "min_met" not in saved or (settings is not None and saved != settings):
            return None
        return check_of(data)
    except (ValueError, KeyError, TypeError, AttributeError) as exc:
        raise RunError(f"{path} is damaged ({type(exc).__name__}: {exc}); {again}") from None


def check_of(data: dict[str, Any]) -> ChartCheck:
    """A check from its record (:meth:`ChartCheck.to_dict`, as ``check.json`` and a
    solve's record keep it; its intervals' sample sizes are not kept: 0)."""
    cells = [_cell_of(c) for c in data["cells"]]
    return ChartCheck(int(data["first"]), int(data["deals"]), tuple(cells))


def _cell_of(c: dict[str, Any]) -> CellCheck:
    def number(key: str) -> float:
        return math.nan if c[key] is None else float(c[key])

    intervals = {
        name: Interval(number(name), number(f"{name}_low"), number(f"{name}_high"), method)
        for name, method in (("predicted", "normal (delta)"), ("measured", "t"))
    }
    return CellCheck(
        int(c["turn"]), int(c["column"]), int(c["took"]), str(c["action"]), float(c["reach"]),
        int(c["positions"]), int(c["met"]), float(c["gain"]), **intervals,
    )  # fmt: skip
