"""Round robin of strategies on identical deals, every seating played (duplicate).

>>> from sim.study.tournament import TournamentRequest, tournament
>>> result = tournament(TournamentRequest(["greedy", "simple", "defensive", "random"],
...                                       rules="gin", count=20_000, seed=7))
>>> result.matrix          # one row per (player, opponent), with CIs

``sim.present.tournament.save_chart(result)`` draws the matrix (``matrix.png``/``.svg``).

Scheme
------
Cell (row ``i``, column ``j``) is strategy ``i`` sitting alone against strategy ``j``
in every other seat. It is played as ``players`` runs (``sim.study.execute``) with
the same seed (so on identical deals): in run ``r`` strategy ``i`` holds seat ``r``,
so it holds every seat's cards once (duplicate deals; seat and card luck cancel).

- Two players (Gin, two-player Knock Rummy): the cell is the heads-up match, the runs
  ``i/j`` and ``j/i``; cell ``(j, i)`` is made of the same two runs, so row ``i``'s win
  rate plus row ``j``'s plus the share of hands nobody won (ties, dead hands) is 1,
  and the two net points are exact opposites.
- More players (Knock Rummy's default four): the cell is "``i`` against a field of
  ``j``": ``i`` in one seat, ``j`` in the ``players - 1`` others, ``i`` rotated through
  every seat. Cells ``(i, j)`` and ``(j, i)`` are different tables, so the matrix is
  not symmetric; an even win rate is ``1 / players``.

Statistics (per cell; the unit is a deal, or a game with ``mode="games"``)
    ``win_rate``: hands (games) won by ``i`` over all hands of all its seatings, with
    the Wilson interval. It treats the seatings of one deal as independent hands;
    they are negatively correlated (the better cards tend to win whoever holds
    them: -0.3 to -0.6 for the built-in strategies under gin), so the interval is
    conservative. ``no_winner_rate``: hands nobody won, Wilson interval too.
    ``net``: ``i``'s points minus the mean of the other seats' points (games: final
    scores), averaged over ``i``'s seatings of each deal, then over deals, with the
    Student t interval over deals; ``p_value``: the t test of "no edge" (net = 0).

Storage
-------
``<out>/tournament/<tournament_id>/``: one runner directory per distinct line-up
(``<run_id>/``: manifest and Parquet parts), then ``matrix.parquet`` (the cells) and
``tournament.json`` last (config, runs, methods, the matrix's digest), each written
atomically.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

import numpy as np
import polars as pl

from sim import store
from sim.rules import DEFAULT_PRESET, RuleSet, get_rules
from sim.stats import DEFAULT_CONFIDENCE, difference_test, wilson
from sim.store import PathInput, StorePath, study_folder
from sim.study import records, rundir
from sim.study import tables as T
from sim.study.execute import execute
from sim.study.kinds import TOURNAMENT
from sim.study.provenance import with_provenance
from sim.study.quantities import tournament_units
from sim.study.records import study_id
from sim.study.runs import RunConfig, RunError, check_count, new_seed
from sim.study.session import DEFAULT_SESSION, Session
from sim.study.units import Mode, Units, check_joined, focal_series, load_units, metric_name

__all__ = [
    "TOURNAMENT_FILE",
    "TournamentRequest",
    "TournamentResult",
    "load_tournament",
    "parse_strategies",
    "seatings",
    "strategy_names",
    "tournament",
    "tournament_runs",
]

TOURNAMENT_FILE = TOURNAMENT.records[0]
TOURNAMENT_KIND = "rummy-tournament"
MATRIX_FILE = "matrix.parquet"
WIN_METHOD = "Wilson"
NET_METHOD = "t"


def _written(items: str | Iterable[str]) -> list[str]:
    from strategies import split_specs

    texts = [items] if isinstance(items, str) else list(items)
    return [spec for text in texts for spec in split_specs(text)]


def parse_strategies(items: str | Iterable[str], rules: RuleSet | None = None) -> list[str]:
    """Strategy specs from ``greedy:knock_at=7,min_gain=2,simple`` (or several such
    strings; commas and ``/`` as :func:`strategies.split_specs` reads them), each in
    canonical form (``strategies.format_seat``; a chart by name or file as its
    parameters, checked to be made for ``rules`` when given)."""
    from strategies import format_seat, parse_seat, seat_label

    specs = _written(items)
    canonical = [format_seat(*parse_seat(spec, rules=rules)) for spec in specs]
    seen: set[str] = set()
    for spec in canonical:
        if spec in seen:
            raise RunError(
                f"strategy {seat_label(spec)!r} is given twice; a round robin needs distinct ones"
            )
        seen.add(spec)
    if len(canonical) < 2:
        raise RunError(
            f"a round robin needs at least two strategies, got {len(canonical)}"
            + (f" ({canonical[0]})" if canonical else "")
        )
    return canonical


def strategy_names(items: str | Iterable[str]) -> list[str]:
    """How each strategy of :func:`parse_strategies` is shown (``strategies.seat_label``:
    ``chart:gin`` as written), each name once (RunError otherwise: the matrix's rows and
    columns are named by them)."""
    from strategies import seat_label

    specs = _written(items)
    names = [seat_label(spec) for spec in specs]
    for name in names:
        if names.count(name) > 1:
            raise RunError(
                f"two strategies are both shown as {name!r}; a round robin names its rows "
                "by them: give distinct ones (a chart file under another file name)"
            )
    return names


def seatings(player: str, opponent: str, players: int) -> list[tuple[str, ...]]:
    """The line-ups of one cell: ``player`` at seat r, ``opponent`` everywhere else."""
    return [tuple(player if k == r else opponent for k in range(players)) for r in range(players)]


@dataclass(frozen=True)
class TournamentResult:
    """The matrix of a round robin and where it is stored."""

    tournament_id: str
    directory: StorePath
    seed: int
    mode: str
    count: int
    rules: RuleSet
    strategies: tuple[str, ...]  # canonical specs (what plays)
    matrix: pl.DataFrame  # ``player`` and ``opponent``: the strategies as shown (``names``)
    confidence: float = DEFAULT_CONFIDENCE
    names: tuple[str, ...] = ()  # how each strategy is shown (strategies.seat_label)

    @property
    def shown(self) -> tuple[str, ...]:
        """How each strategy is shown: ``names``, or made from the specs."""
        from strategies import seat_label

        return self.names or tuple(seat_label(spec) for spec in self.strategies)

    @property
    def players(self) -> int:
        return self.rules.players

    @property
    def scheme(self) -> str:
        if self.players == 2:
            return "heads-up, both seatings of every deal (duplicate)"
        return (
            f"one against a field of {self.players - 1}: the row strategy in one seat, the "
            "column strategy in the others, rotated through every seat (duplicate)"
        )

    @property
    def metric(self) -> str:
        return metric_name(self.mode)

    def methods(self) -> dict[str, str]:
        level = f"{self.confidence * 100:g}%"
        unit = "deal" if self.mode == "deals" else "game"
        return {
            "win_rate": f"{level} {WIN_METHOD} interval over all hands of all seatings",
            "net": f"{level} Student t interval over {unit}s (seatings of a {unit} averaged)",
            "p_value": "two-sided t test of net = 0",
        }

    def to_dict(self) -> dict[str, Any]:
        return {
            "tournament_id": self.tournament_id,
            "directory": str(self.directory),
            "seed": self.seed,
            "mode": self.mode,
            "count": self.count,
            "rules": self.rules.to_dict(),
            "players": self.players,
            "strategies": list(self.strategies),
            # how they are shown, where that is not the specs (a chart: chart:gin)
            **({"names": list(self.shown)} if self.shown != self.strategies else {}),
            "scheme": self.scheme,
            "metric": self.metric,
            "units": tournament_units(self.mode),
            "confidence": self.confidence,
            "methods": self.methods(),
            "matrix": self.matrix.to_dicts(),
        }


def _cell(runs: list[Units], players: int, confidence: float) -> dict[str, Any]:
    """One cell from its seatings' rows: seating r has the row strategy at seat r."""
    series = focal_series(runs, list(range(players)))
    n, net, wins = len(series), series.net, series.wins
    no_winner = sum(int(np.count_nonzero(u.winner < 0)) for u in runs)
    hands = n * players
    win = wilson(wins, hands, confidence)
    none = wilson(no_winner, hands, confidence)
    edge = difference_test(net, confidence)
    return {
        "units": n,
        "hands": hands,
        "wins": wins,
        "no_winner": no_winner,
        "win_rate": win.estimate,
        "win_low": win.low,
        "win_high": win.high,
        "win_method": WIN_METHOD,
        "no_winner_rate": none.estimate,
        "no_winner_low": none.low,
        "no_winner_high": none.high,
        "net": edge.mean_diff,
        "net_low": edge.ci.low,
        "net_high": edge.ci.high,
        "net_sd": edge.sd,
        "net_method": NET_METHOD,
        "p_value": edge.p_value,
    }


@dataclass(frozen=True)
class TournamentRequest:
    """What a round robin studies: ``strategies`` (at least two distinct specs,
    ``"greedy,simple"``; see :func:`parse_strategies`) under ``rules``, ``count`` deals
    (or games, ``mode="games"``) per seating run, at least 2, all on the deals of
    ``seed`` (None draws one). :func:`tournament` checks every value before any deal is
    played."""

    strategies: str | Iterable[str]
    count: int
    rules: RuleSet | str = DEFAULT_PRESET
    mode: Mode = "deals"
    seed: int | None = None


def tournament(
    request: TournamentRequest,
    session: Session = DEFAULT_SESSION,
    *,
    chunk_size: int | None = None,
    confidence: float = DEFAULT_CONFIDENCE,
) -> TournamentResult:
    """Play the round robin ``request`` asks for (see the module docstring).

    Parameters
    ----------
    request : TournamentRequest
        The strategies, the rules, the deals or games per seating and the seed.
    session : Session
        Where it plays (its executor), the results root (the round robin goes to
        ``<out>/tournament/<tournament_id>/``), who hears its progress and the command
        stored.

    Raises
    ------
    RuleError, StrategyError, CompareError, RunError
        One-line messages (all ``ValueError``), before any deal is played.
    """
    mode, rules = request.mode, request.rules
    count = check_count(request.count, mode)
    seed = new_seed() if request.seed is None else request.seed
    rule_set = rules if isinstance(rules, RuleSet) else get_rules(rules)
    names = tuple(parse_strategies(request.strategies, rule_set))
    shown = dict(zip(names, strategy_names(request.strategies), strict=True))
    players = rule_set.players
    root = session.out / TOURNAMENT.folder
    cells = [(i, j) for i in names for j in names if i != j]
    lineups = {(i, j): seatings(i, j, players) for i, j in cells}
    draft = {
        lineup: RunConfig(
            rules=rule_set,
            lineup=lineup,
            names=tuple(shown[spec] for spec in lineup),
            count=count,
            mode=mode,
            experiment="tournament",
            seed=seed,
            chunk_size=chunk_size,
            out=root,
            command=session.command,
        )
        for cell in cells
        for lineup in lineups[cell]
    }
    tournament_id = study_id(
        {
            "kind": "tournament",
            "strategies": list(names),
            "runs": sorted(c.config_hash for c in draft.values()),
        }
    )
    configs = {k: dataclasses.replace(c, experiment=tournament_id) for k, c in draft.items()}
    directory = root / tournament_id
    with study_folder(directory):  # its lock held from the first run to the record
        execute(list(configs.values()), session.executor, progress=session.progress)

        units = {
            lineup: load_units(config.run_dir, mode, players) for lineup, config in configs.items()
        }
        reference = next(iter(units.values()))
        for lineup, u in units.items():
            check_joined(reference, u, f"the run of {'/'.join(lineup)}")
        rows = [
            {
                "player": shown[i],
                "opponent": shown[j],
                **_cell([units[s] for s in lineups[(i, j)]], players, confidence),
            }
            for i, j in cells
        ]
        matrix = pl.DataFrame(rows)

        record: dict[str, Any] = {
            "command": session.provenance,
            "runs": [
                {
                    "lineup": list(lineup),
                    **({"names": list(c.seat_names)} if c.seat_names != c.seats else {}),
                    "run_id": c.run_id,
                    "config_hash": c.config_hash,
                }
                for lineup, c in configs.items()
            ],
        }
        digest = _write_matrix(matrix, directory / MATRIX_FILE, record, tournament_id)
        result = TournamentResult(
            tournament_id=tournament_id,
            directory=directory,
            seed=seed,
            mode=mode,
            count=count,
            rules=rule_set,
            strategies=names,
            matrix=matrix,
            confidence=confidence,
            names=tuple(shown.values()),
        )
        record.update(result.to_dict())
        record["tables"] = {MATRIX_FILE: digest}
        records.write_record(directory / TOURNAMENT_FILE, TOURNAMENT_KIND, record)
    return result


def load_tournament(directory: PathInput) -> dict[str, Any]:
    """The ``tournament.json`` of a finished round robin, checked (``load_record``); its
    runs are not read (:func:`tournament_runs` checks them)."""
    return records.load_record(store.location(directory) / TOURNAMENT_FILE, TOURNAMENT_KIND)


def tournament_runs(directory: PathInput) -> list[StorePath]:
    """The run folders a finished tournament's record lists, each checked to be the run
    it names, with no other run beside them (``rundir.replayed_runs``)."""
    return rundir.replayed_runs(store.location(directory) / TOURNAMENT_FILE, TOURNAMENT_KIND)


def _write_matrix(
    matrix: pl.DataFrame, path: StorePath, record: dict[str, Any], tournament_id: str
) -> dict[str, Any]:
    """The cells as Parquet, with the tournament's identity under ``b"rummy_sim"``."""
    meta = {
        "schema_version": T.SCHEMA_VERSION,
        "table": "tournament_matrix",
        "tournament_id": tournament_id,
        "runs": record["runs"],
    }
    table = matrix.to_arrow()
    return T.write_parquet_atomic(with_provenance(table, meta), path)
