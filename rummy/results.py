"""What the notebook API returns: estimates with their intervals and units, per study.

Every number a study reports comes back as an :class:`Estimate` (its value, the 95%
interval, the unit it is in and how the interval was made); points are game points
(the engine's integer unit, 1/60 point, never reaches this layer), rates are shares
of 1 (printed in %). Each result keeps the driver's own result
(``raw``) and its folder, for the full tables.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

import polars as pl

from sim.stats import Interval, format_estimate
from sim.store import StorePath

__all__ = [
    "Action",
    "Advice",
    "Comparison",
    "Estimate",
    "Pairing",
    "PlayResult",
    "SeatResult",
    "SettingResult",
    "StudyResult",
    "TournamentResult",
    "TuneResult",
]

POINTS_PER_HAND = "points per hand"
SHARE_OF_HANDS = "share of hands"


@dataclass(frozen=True)
class Estimate:
    """An estimate with its two-sided interval, in ``unit``.

    ``method`` names the interval ("t", "Wilson", "paired t"); ``n`` what it counts
    (0 when not known); ``difference``: the estimate is a difference of two (of shares:
    in percentage points). ``str()`` writes it as every output of rummy-sim does
    (``sim.stats.format_estimate``): ``value [low, high] unit``, the decimals from the
    interval's width, a share in %.
    """

    value: float
    low: float
    high: float
    unit: str
    method: str = ""
    confidence: float = 0.95
    n: int = 0
    difference: bool = False

    @classmethod
    def of(cls, interval: Interval, unit: str, difference: bool = False) -> Estimate:
        """An interval of ``sim.stats`` (value, bounds, method, confidence, n) in ``unit``."""
        return cls(
            interval.estimate,
            interval.low,
            interval.high,
            unit,
            interval.method,
            interval.confidence,
            interval.n,
            difference,
        )

    @classmethod
    def of_row(
        cls,
        row: dict[str, Any],
        value: str,
        low: str,
        high: str,
        unit: str,
        method: str = "",
        difference: bool = False,
    ) -> Estimate:
        """An estimate from a result table's row: its value and bound columns."""

        def number(key: str) -> float:
            cell = row.get(key)
            return math.nan if cell is None else float(cell)

        return cls(number(value), number(low), number(high), unit, method, difference=difference)

    @property
    def excludes_zero(self) -> bool:
        """The interval lies on one side of 0 (a difference that is significant)."""
        return self.low > 0 or self.high < 0

    def __str__(self) -> str:
        share = self.unit == SHARE_OF_HANDS
        return format_estimate(
            self.value, self.low, self.high, unit=self.unit, percent=share, sign=self.difference
        )


@dataclass(frozen=True)
class SeatResult:
    """One seat of a run: its strategy, points and net points per hand (t), its share
    of hands won (Wilson) and of hands it knocked."""

    seat: int
    strategy: str
    points: Estimate
    net: Estimate
    win_rate: Estimate
    knock_rate: float


@dataclass(frozen=True)
class PlayResult:
    """One run (``rummy.play``, ``rummy run --seats``): per seat, how hands ended."""

    directory: StorePath
    seed: int
    rules: str
    lineup: tuple[str, ...]
    mode: str  # deals or games
    count: int
    hands: int
    seats: tuple[SeatResult, ...]
    outcomes: dict[str, Estimate]  # outcome -> share of hands (Wilson)
    mean_turns: float
    raw: Any  # sim.study.analysis.ExperimentData: every table of the run

    def hand_rows(self) -> pl.LazyFrame:
        """Every hand played: ``sim.study.load_hands`` of the run (checked parts)."""
        from sim.study import load_hands

        return load_hands(self.directory)


@dataclass(frozen=True)
class Comparison:
    """Two line-ups or rule sets on the same deals (``rummy.compare``): seat 0's net
    points per deal (or game) on each side, and the paired difference A - B."""

    directory: StorePath
    seed: int
    a: str
    b: str
    a_net: Estimate
    b_net: Estimate
    difference: Estimate
    p_value: float
    win_difference: Estimate  # seat 0's win rate, A - B (share of hands)
    raw: Any  # sim.study.compare.CompareResult


@dataclass(frozen=True)
class SettingResult:
    """One setting of an experiment or sweep: its headline and how it stands against the
    best of its group (paired, Holm-adjusted over the group)."""

    setting: str
    group: str
    headline: Estimate
    win_rate: Estimate
    best: bool
    vs_best: Estimate | None  # this setting minus the best (None for the best)
    holm_p: float | None


@dataclass(frozen=True)
class StudyResult:
    """An experiment or sweep (``rummy.experiment``, ``rummy.sweep``): every setting,
    the verdicts per group, and the tables (``summary``: one row per setting)."""

    directory: StorePath
    name: str
    seed: int
    headline: str  # what ``SettingResult.headline`` measures (net_points, win_rate, ...)
    settings: tuple[SettingResult, ...]
    verdicts: tuple[str, ...]
    summary: pl.DataFrame
    raw: Any  # sim.study.analysis.ExperimentData

    def best(self, group: str | None = None) -> SettingResult:
        """The best setting of ``group`` (of the only group when None)."""
        groups = list(dict.fromkeys(s.group for s in self.settings))
        if group is None and len(groups) == 1:
            group = groups[0]
        for s in self.settings:
            if s.best and s.group == group:
                return s
        raise ValueError(f"group {group!r} is not one of this study's: {', '.join(groups)}")


@dataclass(frozen=True)
class Pairing:
    """One cell of a round robin: the row strategy against the column strategy, every
    seating of every deal (net points per deal: t; share of hands won: Wilson)."""

    player: str
    opponent: str
    net: Estimate
    win_rate: Estimate
    p_value: float  # two-sided t test of net = 0


@dataclass(frozen=True)
class TournamentResult:
    """A round robin (``rummy.tournament``): every ordered pair of strategies."""

    directory: StorePath
    seed: int
    pairings: tuple[Pairing, ...]
    matrix: pl.DataFrame  # the same, one row per pair, with every column the CLI prints
    raw: Any  # sim.study.tournament.TournamentResult

    def pairing(self, player: str, opponent: str) -> Pairing:
        for p in self.pairings:
            if (p.player, p.opponent) == (player, opponent):
                return p
        raise ValueError(f"no pairing {player!r} against {opponent!r} in this tournament")


@dataclass(frozen=True)
class TuneResult:
    """A strategy's best parameters (``rummy.tune``): the best setting's metric, its
    paired gain over the default parameters, and every setting played."""

    directory: StorePath
    seed: int
    best: dict[str, Any]  # parameter -> value
    best_value: Estimate
    vs_default: Estimate  # best minus default on the same deals (optimistic: picked there)
    settings: pl.DataFrame
    raw: Any  # sim.study.tune.TuneResult


@dataclass(frozen=True)
class Action:
    """One legal action of a position (``rummy.advise``), best first."""

    label: str
    kind: str  # take, draw, pass, discard, knock, big_gin
    card: str | None
    points: Estimate  # expected net points for the hand
    win: Estimate  # probability of winning the hand
    vs_best: Estimate  # paired difference from the best action
    p_value: float


@dataclass(frozen=True)
class Advice:
    """Every legal action of a position scored by Monte Carlo (``rummy.advise``)."""

    actions: tuple[Action, ...]
    samples: int
    seed: int
    raw: Any  # sim.advise.Advice

    @property
    def best(self) -> Action:
        return self.actions[0]
