"""What the notebook API returns: estimates with their intervals and units, per study.

Every number a study reports comes back as an :class:`Estimate` (its value, the 95%
interval, the unit it is in and how the interval was made); points are game points
(the engine's integer unit, 1/60 point, never reaches this layer), rates are shares
of 1 (printed in %). Each result keeps the driver's own result
(``raw``) and its folder, for the full tables.
"""

from __future__ import annotations

import html
import math
import textwrap
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

import polars as pl

from sim.stats import Interval, format_estimate, format_p, p_clause
from sim.store import StorePath
from sim.study.quantities import (
    POINTS_PER_GAME,
    POINTS_PER_HAND,
    SHARE_OF_GAMES,
    SHARE_OF_HANDS,
    chart_units,
    headline_quantity,
    points_unit,
    share_unit,
)

__all__ = [
    "POINTS_PER_GAME",  # the unit names (sim.study.quantities), for comparisons
    "POINTS_PER_HAND",
    "SHARE_OF_GAMES",
    "SHARE_OF_HANDS",
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


class Shown:
    """A result shown as a table: ``repr()`` in a terminal or a notebook's text cell,
    ``_repr_html_`` in a notebook. Each result says what it shows in ``_view``: a
    title, the column names, the rows (text, as ``str(Estimate)`` writes each number)
    and notes; the full tables stay in ``raw`` and the result's folder (``directory``)."""

    def _view(self) -> tuple[str, list[str], list[list[str]], list[str]]:
        raise NotImplementedError

    def __repr__(self) -> str:
        title, header, rows, notes = self._view()
        widths = [max(len(r[i]) for r in [header, *rows]) for i in range(len(header))]
        lines = [title] if title else []
        for row in [header, *rows]:
            lines.append("  ".join(c.ljust(w) for c, w in zip(row, widths, strict=True)).rstrip())
        return "\n".join([*lines, *(textwrap.fill(n, 80) for n in notes)])

    def _repr_html_(self) -> str:
        title, header, rows, notes = self._view()
        cells = "".join(f"<th>{html.escape(c)}</th>" for c in header)
        body = "".join(
            "<tr>" + "".join(f"<td>{html.escape(c)}</td>" for c in row) + "</tr>" for row in rows
        )
        caption = f"<caption>{html.escape(title)}</caption>" if title else ""
        after = "".join(f"<p>{html.escape(n)}</p>" for n in notes)
        table = f"<thead><tr>{cells}</tr></thead><tbody>{body}</tbody>"
        return f"<table>{caption}{table}</table>{after}"


def _cell(estimate: Estimate | None) -> str:
    """An estimate in a table cell: its unit is in the column's name."""
    if estimate is None:
        return ""
    share = estimate.unit.startswith("share of")
    text = format_estimate(
        estimate.value, estimate.low, estimate.high, percent=share, sign=estimate.difference
    )
    return text.replace("%", "", 1) if share else text  # the column's name says %


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
    def of_json(cls, interval: Mapping[str, Any], unit: str, difference: bool = False) -> Estimate:
        """An interval as a study's record holds it (``estimate``, ``low``, ``high``,
        ``method``, ``confidence``, ``n``: ``sim.stats`` ``to_json``) in ``unit``."""
        return cls(
            float(interval["estimate"]),
            float(interval["low"]),
            float(interval["high"]),
            unit,
            str(interval["method"]),
            float(interval["confidence"]),
            int(interval["n"]),
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
        n: int = 0,
    ) -> Estimate:
        """An estimate from a result table's row: its value and bound columns; ``n`` the
        hands (games, deals) it is estimated from."""

        def number(key: str) -> float:
            cell = row.get(key)
            return math.nan if cell is None else float(cell)

        return cls(
            number(value), number(low), number(high), unit, method, n=n, difference=difference
        )

    @property
    def excludes_zero(self) -> bool:
        """The interval lies on one side of 0 (a difference that is significant)."""
        return self.low > 0 or self.high < 0

    def __str__(self) -> str:
        share = self.unit.startswith("share of")
        return format_estimate(
            self.value, self.low, self.high, unit=self.unit, percent=share, sign=self.difference
        )

    def __repr__(self) -> str:
        counted = f", n={self.n:,}" if self.n else ""
        return f"Estimate({self}, {self.method or 'no interval method'}{counted})"


@dataclass(frozen=True, repr=False)
class SeatResult(Shown):
    """One seat of a run: its strategy, points and net points per hand (t), its share
    of hands won (Wilson) and of hands it knocked; where whole games were played, its
    share of games won (Wilson) and its net final score per game (t: its final score
    minus the mean of the others')."""

    seat: int
    strategy: str
    points: Estimate
    net: Estimate
    win_rate: Estimate
    knock_rate: float
    games_won: Estimate | None = None
    net_score: Estimate | None = None

    def _view(self) -> tuple[str, list[str], list[list[str]], list[str]]:
        return _seats_view("", [self])


def _seats_view(
    title: str, seats: list[SeatResult]
) -> tuple[str, list[str], list[list[str]], list[str]]:
    games = seats[0].games_won is not None
    header = ["seat", "strategy"]
    # games: the game figures, and of the hands only how many were won (net per hand
    # stays in the fields, ``.net``)
    header += ["games won %", "net score/game", "hands won %"] if games else [
        "hands won %", "net points/hand"
    ]  # fmt: skip
    header += ["knock %"]
    rows = []
    for s in seats:
        row = [str(s.seat), s.strategy]
        row += [_cell(s.games_won), _cell(s.net_score), _cell(s.win_rate)] if games else [
            _cell(s.win_rate), _cell(s.net)
        ]  # fmt: skip
        row += [f"{s.knock_rate * 100:.1f}"]
        rows.append(row)
    return title, header, rows, []


@dataclass(frozen=True, repr=False)
class PlayResult(Shown):
    """One run (``rummy.play``, ``rummy run --seats``): per seat, how hands ended, and
    with ``games=`` how the games ended."""

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
    notes: tuple[str, ...] = ()  # what playing it said (as the command's ``note:`` lines)

    def _view(self) -> tuple[str, list[str], list[list[str]], list[str]]:
        played = f"{self.count:,} {self.mode}" + (
            f" ({self.hands:,} hands)" if self.mode == "games" else ""
        )
        title = f"{self.rules}: {' / '.join(self.lineup)}, {played}, seed {self.seed}"
        _, header, rows, _ = _seats_view(title, list(self.seats))
        ends = ", ".join(
            f"{k} {v.value * 100:.1f}%" for k, v in self.outcomes.items() if v.value > 0
        )
        notes = [f"hands end: {ends}; {self.mean_turns:.1f} turns per hand", *self.notes]
        return title, header, rows, notes

    @classmethod
    def of_data(cls, data: Any, directory: StorePath, notes: tuple[str, ...] = ()) -> PlayResult:
        """A run as the notebook shows it, from its data (``sim.study.analysis``'s, read
        back from the run's folder)."""
        row = data.summary.row(0, named=True)
        games = data.mode == "games"
        units, hands = int(row["units"]), int(row["hands"])
        seats = tuple(
            SeatResult(
                seat=int(r["seat"]),
                strategy=r["strategy"],
                points=Estimate.of_row(
                    r, "points", "points_low", "points_high", POINTS_PER_HAND, "t", n=hands
                ),
                net=Estimate.of_row(r, "net", "net_low", "net_high", POINTS_PER_HAND, "t", n=hands),
                win_rate=Estimate.of_row(
                    r, "win_rate", "win_low", "win_high", SHARE_OF_HANDS, "Wilson", n=hands
                ),
                knock_rate=float(r["knock_rate"]),
                games_won=games_won_of(r, units) if games else None,
                net_score=Estimate.of_row(
                    r, "net_score", "net_score_low", "net_score_high", POINTS_PER_GAME, "t", n=units
                )
                if games
                else None,
            )  # fmt: skip
            for r in data.seats.iter_rows(named=True)
        )
        outcomes = {
            r["outcome"]: Estimate.of_row(
                r, "share", "low", "high", SHARE_OF_HANDS, "Wilson", n=hands
            )
            for r in data.outcomes.iter_rows(named=True)
        }
        return cls(
            directory=directory,
            seed=int(data.record["seed"]),
            rules=row["rules"],
            lineup=tuple(s.strategy for s in seats),
            mode=data.mode,
            count=units,
            hands=hands,
            seats=seats,
            outcomes=outcomes,
            mean_turns=float(row["mean_turns"]),
            raw=data,
            notes=notes,
        )

    def hand_rows(self) -> pl.LazyFrame:
        """Every hand played: ``sim.study.load_hands`` of the run (checked parts)."""
        from sim.study import load_hands

        return load_hands(self.directory)


@dataclass(frozen=True, repr=False)
class Comparison(Shown):
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
    win_difference: Estimate  # seat 0's win rate, A - B (share of hands, or of games)
    raw: Any  # sim.study.compare.CompareResult (rummy.load: its record, a dict)

    def _view(self) -> tuple[str, list[str], list[list[str]], list[str]]:
        won = "games won" if self.win_difference.unit == SHARE_OF_GAMES else "hands won"
        rows = [
            ["A", self.a, _cell(self.a_net)],
            ["B", self.b, _cell(self.b_net)],
            ["A - B", "", f"{_cell(self.difference)} ({p_clause(self.p_value)})"],
        ]
        title = f"seat 0's net {self.a_net.unit}, on the same deals (seed {self.seed})"
        notes = [f"{won}, A - B: {self.win_difference}"]
        return title, ["side", "line-up", f"net {self.a_net.unit}"], rows, notes

    @classmethod
    def of_record(cls, record: Mapping[str, Any], directory: StorePath, raw: Any) -> Comparison:
        """A comparison from its record (``CompareResult.to_dict``: the same whether it
        was just played or is loaded from its folder)."""
        unit, mode = points_unit(record["mode"]), record["mode"]
        difference = record["difference"]
        # the win rates' difference is over the same paired units as the points'
        wins = {**record["win_difference"], "n": difference["n"]}
        return cls(
            directory=directory,
            seed=int(record["seed"]),
            a=record["a"]["label"],
            b=record["b"]["label"],
            a_net=Estimate.of_json(record["a"]["net"], unit),
            b_net=Estimate.of_json(record["b"]["net"], unit),
            difference=Estimate.of_json(difference, unit, difference=True),
            p_value=float(difference["p_value"]),
            win_difference=Estimate.of_json(wins, share_unit(mode), difference=True),
            raw=raw,
        )


def _finite(value: Any) -> float | None:
    """A table's number, or None where it has none (null, NaN)."""
    return None if value is None or value != value else float(value)


def games_won_of(row: dict[str, Any], games: int) -> Estimate:
    """A table row's share of games won (Wilson), over ``games``."""
    return Estimate.of_row(
        row, "game_win_rate", "game_win_low", "game_win_high", SHARE_OF_GAMES, "Wilson", n=games
    )


@dataclass(frozen=True, repr=False)
class SettingResult(Shown):
    """One setting of an experiment or sweep: its headline, seat 0's share of hands won
    (and of games, where games were played), and how it stands against the best of its
    group (paired, Holm-adjusted over the group; None for the best itself)."""

    setting: str
    group: str
    headline: Estimate
    win_rate: Estimate
    best: bool
    vs_best: Estimate | None  # this setting minus the best (None for the best)
    holm_p: float | None
    games_won: Estimate | None = None

    def _view(self) -> tuple[str, list[str], list[list[str]], list[str]]:
        return _settings_view("", [self])


def _settings_view(
    title: str, settings: list[SettingResult]
) -> tuple[str, list[str], list[list[str]], list[str]]:
    games = settings[0].games_won is not None
    groups = len({s.group for s in settings}) > 1
    unit = settings[0].headline.unit if settings else ""
    header = ["", *(["group"] if groups else []), "setting", f"headline ({unit})"]
    header += ["games won %"] if games else []
    header += ["hands won %", "vs best", "Holm p"]
    rows = []
    for s in settings:
        row = ["*" if s.best else "", *([s.group] if groups else []), s.setting, _cell(s.headline)]
        row += [_cell(s.games_won)] if games else []
        hold = "" if s.holm_p is None else format_p(s.holm_p)
        row += [_cell(s.win_rate), _cell(s.vs_best), hold]
        rows.append(row)
    return title, header, rows, []


@dataclass(frozen=True, repr=False)
class StudyResult(Shown):
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
    notes: tuple[str, ...] = ()  # what playing it said (as the command's ``note:`` lines)

    @classmethod
    def of_data(cls, data: Any, directory: StorePath, notes: tuple[str, ...] = ()) -> StudyResult:
        """An experiment's or a sweep's result from its data (``ExperimentData``: the same
        whether it was just played or is loaded from its folder)."""
        unit = headline_quantity(data.headline)
        games = data.mode == "games"
        settings = []
        for r in data.summary.iter_rows(named=True):
            best = bool(r.get("best"))
            units, hands = int(r["units"]), int(r["hands"])
            settings.append(
                SettingResult(
                    setting=r["setting"],
                    group=r["group"],
                    headline=Estimate.of_row(
                        r, "estimate", "low", "high", unit, r["method"], n=units
                    ),
                    win_rate=Estimate.of_row(
                        r, "win_rate", "win_low", "win_high", SHARE_OF_HANDS, "Wilson", n=hands
                    ),
                    best=best,
                    vs_best=None
                    if best or _finite(r.get("diff_vs_best")) is None
                    else Estimate.of_row(
                        r,
                        "diff_vs_best",
                        "diff_low",
                        "diff_high",
                        unit,
                        "paired t",
                        difference=True,
                        n=units,
                    ),
                    holm_p=None if best else _finite(r.get("holm_p")),
                    games_won=games_won_of(r, units) if games else None,
                )  # fmt: skip
            )
        verdicts = tuple(
            (v["summary"] if v["group"] == "all" else f"{v['group']}: {v['summary']}")
            for v in data.verdicts
        )
        return cls(
            directory=directory,
            name=data.name,
            seed=int(data.record["seed"]),
            headline=data.headline,
            settings=tuple(settings),
            verdicts=verdicts,
            summary=data.summary,
            raw=data,
            notes=notes,
        )

    @property
    def groups(self) -> tuple[str, ...]:
        """The groups compared apart (one per rule variant of a split study), in order."""
        return tuple(dict.fromkeys(s.group for s in self.settings))

    def best(self, group: str | None = None) -> SettingResult:
        """The best setting of ``group`` (of the only group when None)."""
        groups = list(self.groups)
        if group is None and len(groups) == 1:
            group = groups[0]
        for s in self.settings:
            if s.best and s.group == group:
                return s
        raise ValueError(f"group {group!r} is not one of this study's: {', '.join(groups)}")

    def _view(self) -> tuple[str, list[str], list[list[str]], list[str]]:
        unit = self.settings[0].headline.unit if self.settings else ""
        title = f"{self.name}: {self.headline} ({unit}), seed {self.seed}" + (
            "; * the best" if any(s.best for s in self.settings) else ""
        )
        _, header, rows, _ = _settings_view(title, list(self.settings))
        return title, header, rows, [*self.verdicts, *self.notes]


@dataclass(frozen=True, repr=False)
class Pairing(Shown):
    """One cell of a round robin: the row strategy against the column strategy, every
    seating of every deal (net points per hand, or net final score per game: t; share
    of hands won, or of games: Wilson)."""

    player: str
    opponent: str
    net: Estimate
    win_rate: Estimate
    p_value: float  # two-sided t test of net = 0

    def _view(self) -> tuple[str, list[str], list[list[str]], list[str]]:
        return _pairings_view("", [self])


def _pairings_view(
    title: str, pairings: list[Pairing]
) -> tuple[str, list[str], list[list[str]], list[str]]:
    won = "games won %" if pairings and pairings[0].win_rate.unit == SHARE_OF_GAMES else (
        "hands won %"
    )  # fmt: skip
    net = f"net {pairings[0].net.unit}" if pairings else "net"
    rows = [
        [p.player, p.opponent, _cell(p.net), format_p(p.p_value), _cell(p.win_rate)]
        for p in pairings
    ]
    return title, ["player", "opponent", net, "p", won], rows, []


@dataclass(frozen=True, repr=False)
class TournamentResult(Shown):
    """A round robin (``rummy.tournament``): every ordered pair of strategies."""

    directory: StorePath
    seed: int
    pairings: tuple[Pairing, ...]
    matrix: pl.DataFrame  # the same, one row per pair, with every column the CLI prints
    raw: Any  # sim.study.tournament.TournamentResult (rummy.load: its record)

    @classmethod
    def of_matrix(
        cls, matrix: pl.DataFrame, mode: str, seed: int, directory: StorePath, raw: Any
    ) -> TournamentResult:
        """A round robin from its matrix (``matrix.parquet``: the same whether it was
        just played or is loaded from its folder)."""
        unit = points_unit(mode)
        pairings = tuple(
            Pairing(
                player=r["player"],
                opponent=r["opponent"],
                net=Estimate.of_row(r, "net", "net_low", "net_high", unit, "t", n=int(r["units"])),
                win_rate=Estimate.of_row(
                    r,
                    "win_rate",
                    "win_low",
                    "win_high",
                    share_unit(mode),
                    "Wilson",
                    n=int(r["hands"]),
                ),  # fmt: skip
                p_value=float(r["p_value"]),
            )
            for r in matrix.iter_rows(named=True)
        )
        return cls(directory, int(seed), pairings, matrix, raw)

    def pairing(self, player: str, opponent: str) -> Pairing:
        for p in self.pairings:
            if (p.player, p.opponent) == (player, opponent):
                return p
        raise ValueError(f"no pairing {player!r} against {opponent!r} in this tournament")

    def _view(self) -> tuple[str, list[str], list[list[str]], list[str]]:
        title = f"round robin, seed {self.seed}: each player against each opponent"
        _, header, rows, _ = _pairings_view(title, list(self.pairings))
        return title, header, rows, []


@dataclass(frozen=True, repr=False)
class TuneResult(Shown):
    """A strategy's best parameters (``rummy.tune``): the best setting's metric, its
    paired gain over the default parameters, and every setting played."""

    directory: StorePath
    seed: int
    best: dict[str, Any]  # parameter -> value
    best_value: Estimate
    vs_default: Estimate  # best minus default on the same deals (optimistic: picked there)
    settings: pl.DataFrame
    raw: Any  # sim.study.tune.TuneResult (rummy.load: its record, a dict)

    @classmethod
    def of(
        cls, record: Mapping[str, Any], settings: pl.DataFrame, directory: StorePath, raw: Any
    ) -> TuneResult:
        """A tune as the notebook shows it, from its record (``sim.study.tune.TuneResult.
        to_dict``, or its ``tune.json``) and its settings (``settings.parquet``)."""
        unit = points_unit(record["mode"])
        return cls(
            directory=directory,
            seed=int(record["seed"]),
            best=dict(record["best"]["params"]),
            best_value=Estimate.of_json(record["best"], unit),
            vs_default=Estimate.of_json(record["vs_default"], unit, difference=True),
            settings=settings,
            raw=raw,
        )

    def _view(self) -> tuple[str, list[str], list[list[str]], list[str]]:
        best = ", ".join(f"{k}={v}" for k, v in self.best.items())
        rows = [
            ["best", best, _cell(self.best_value)],
            ["best - default", "", _cell(self.vs_default)],
        ]
        notes = [f"{self.settings.height} settings played (.settings)"]
        header = ["", "parameters", self.best_value.unit]
        return f"tuned, seed {self.seed}", header, rows, notes


@dataclass(frozen=True, repr=False)
class ChartResult(Shown):
    """A strategy chart (``rummy.strategy_chart``): ``cells``, one row per cell (own turn
    by deadwood, by what the pile card does, or by rank), holds the mean gain of the
    first action in points per hand with its 95% interval and a verdict (the discard
    chart: the share of discards the next seat took); ``check`` the cells with the
    largest predicted effect played as single-cell deviations on fresh deals
    (``sim.study.chart_check.ChartCheck``, None where none was asked for);
    ``figures`` and ``report`` the card drawn and the HTML report in its run folder."""

    kind: str  # knock, draw or discard
    directory: StorePath  # the chart's run folder
    seed: int
    positions: int  # positions scored (discards counted)
    cells: pl.DataFrame
    units: dict[str, str]  # a cell figure's unit (its _low and _high bounds: the same)
    check: Any
    figures: tuple[StorePath, ...]
    report: StorePath
    raw: Any  # sim.study.chart.StrategyChart

    @classmethod
    def of(
        cls, chart: Any, check: Any, figures: tuple[StorePath, ...], report: StorePath
    ) -> ChartResult:
        """The notebook's chart from the driver's (``sim.study.chart.StrategyChart``)."""
        return cls(chart.spec.chart, chart.run_dir, chart.config.seed, chart.positions,
                   chart.cells, chart_units(chart.spec.chart), check, figures, report,
                   chart)  # fmt: skip

    def _view(self) -> tuple[str, list[str], list[list[str]], list[str]]:
        config = self.raw.config
        title = (
            f"{self.kind} chart of {config.lineup_label} under {config.rule_set.name}, seat "
            f"{self.raw.spec.focal}, seed {self.seed}"
        )
        counts = self.cells.group_by("verdict").len().sort("len", descending=True)
        rows = [[str(r["verdict"]), f"{r['len']:,}"] for r in counts.iter_rows(named=True)]
        what = "discards counted" if self.kind == "discard" else "positions scored"
        notes = [f"{self.positions:,} {what}; one row per cell in .cells"]
        if self.check is not None:
            notes.append(self.check.summary())
        notes.append(f"report: {self.report}")
        return title, ["verdict", "cells"], rows, notes


@dataclass(frozen=True, repr=False)
class SolveResult(Shown):
    """A solved chart (``rummy.solve``): per round, the exported seat's strength against
    the seat it answered and against the start (net points per hand on duplicate deals,
    95% paired t intervals), how the rounds ended, and the final seat's largest
    single-cell deviation; ``final_seat`` is a ``chart`` seat spec (and
    ``directory / "final.chart"`` its chart file)."""

    directory: StorePath
    seed: int
    rounds: tuple[dict[str, Any], ...]  # round, bits changed, vs previous, vs start, ...
    fixed: bool
    cycle: int
    final_seat: str
    ending: str  # how the rounds ended, in a sentence
    deviation: str  # the largest single-cell deviation, in a sentence
    raw: Any  # sim.study.solve.SolveResult

    @classmethod
    def of(cls, done: Any, seed: int, ending: str, deviation: str) -> SolveResult:
        """The notebook's solve from the driver's (``sim.study.solve.SolveResult``)."""
        rounds = tuple(
            {"round": r.index, "bits changed": r.bits_changed,
             "vs previous": Estimate.of(r.vs_previous, POINTS_PER_HAND, difference=True),
             "vs start": Estimate.of(r.vs_start, POINTS_PER_HAND, difference=True),
             "vs against": None if r.vs_against is None
             else Estimate.of(r.vs_against, POINTS_PER_HAND, difference=True)}
            for r in done.rounds
        )  # fmt: skip
        return cls(done.folder, seed, rounds, done.fixed, done.cycle, done.final_seat, ending,
                   deviation, done)  # fmt: skip

    def _view(self) -> tuple[str, list[str], list[list[str]], list[str]]:
        against = any(r["vs against"] is not None for r in self.rounds)
        header = ["round", "bits changed", "vs previous", "vs start"]
        header += ["vs against"] if against else []
        rows = [
            [str(r["round"]), "-" if r["bits changed"] is None else str(r["bits changed"]),
             _cell(r["vs previous"]), _cell(r["vs start"]),
             *([_cell(r["vs against"])] if against else [])]
            for r in self.rounds
        ]  # fmt: skip
        title = f"solve, seed {self.seed}: net {POINTS_PER_HAND} on duplicate deals"
        notes = [self.ending, self.deviation, f"final seat: {self.directory / 'final.chart'}"]
        return title, header, rows, notes


@dataclass(frozen=True, repr=False)
class Action(Shown):
    """One legal action of a position (``rummy.advise``), best first."""

    label: str
    kind: str  # take, draw, pass, discard, knock, big_gin
    card: str | None
    points: Estimate  # expected net points for the hand
    win: Estimate  # probability of winning the hand
    vs_best: Estimate  # paired difference from the best action
    p_value: float

    def _view(self) -> tuple[str, list[str], list[list[str]], list[str]]:
        return _actions_view("", [self])


def _actions_view(
    title: str, actions: list[Action], best: Action | None = None
) -> tuple[str, list[str], list[list[str]], list[str]]:
    header = ["action", "net points/hand", "hand won %", "vs best", "p"]
    rows = [
        [a.label, _cell(a.points), _cell(a.win), *(
            ["best", ""] if a is best else [_cell(a.vs_best), format_p(a.p_value)]
        )]
        for a in actions
    ]  # fmt: skip
    return title, header, rows, []


@dataclass(frozen=True, repr=False)
class Advice(Shown):
    """Every legal action of a position scored by Monte Carlo (``rummy.advise``)."""

    actions: tuple[Action, ...]
    samples: int
    seed: int
    raw: Any  # sim.advise.Advice

    @classmethod
    def of(cls, done: Any) -> Advice:
        """The notebook's advice from the driver's (``sim.advise.Advice``)."""
        actions = tuple(
            Action(
                label=a.label,
                kind=a.kind,
                card=a.card,
                points=Estimate.of(a.points, POINTS_PER_HAND),
                win=Estimate.of(a.win, SHARE_OF_HANDS),
                vs_best=Estimate.of(a.vs_best, POINTS_PER_HAND, difference=True),
                p_value=a.p_value,
            )
            for a in done.actions
        )
        return cls(actions, done.samples, done.seed, done)

    @property
    def best(self) -> Action:
        return self.actions[0]

    def _view(self) -> tuple[str, list[str], list[list[str]], list[str]]:
        from strategies.mc import misses_note

        title = f"every legal action, best first ({self.samples:,} samples, seed {self.seed})"
        title, header, rows, notes = _actions_view(title, list(self.actions), self.best)
        if self.raw.inference_misses:
            notes.append(misses_note(self.raw.inference_misses))
        return title, header, rows, notes
