"""An experiment's results on disk: its tables and record, written and read back.

``<out>/<name>/``: ``summary.parquet``, ``seats.parquet``, ``outcomes.parquet``,
``turns.parquet``, ``comparisons.parquet`` (see ``sim/study/design.py``), ``claims.parquet``
when the experiment states claims (``sim/study/claims.py``), ``house_rules.parquet`` when its
settings differ in their rules (``sim/study/house_rules.py``) and
``experiment.json``, the study's record (``sim/study/records.py``): the resolved
experiment, the runs, the verdicts, the provenance and each table's digest.
"""

from __future__ import annotations

from typing import Any

import polars as pl

from sim import store
from sim.store import PathInput, StorePath
from sim.study import provenance as P
from sim.study import records, rundir
from sim.study import tables as T
from sim.study.analysis import ExperimentData, data_from_run
from sim.study.design import EXPERIMENT_JSON, TABLE_FILES, ExperimentError
from sim.study.records import EXPERIMENT_KIND

__all__ = [
    "EXPERIMENT_KIND",
    "load_experiment_data",
    "load_results",
    "record_of",
    "scan_games",
    "scan_hands",
    "scan_players",
    "study_runs",
    "write_tables",
]


CLAIMS_FILE = "claims.parquet"  # only for experiments with claims: older ones have none
HOUSE_RULES_FILE = "house_rules.parquet"  # only where settings differ in their rules


def write_tables(data: ExperimentData, directory: StorePath) -> dict[str, dict[str, Any]]:
    """Write the frames as Parquet with provenance (each file atomically).

    Returns each file's digest by file name: the record lists them, so that
    :func:`load_experiment_data` checks the files before it trusts them.
    """
    digests = {}
    tables = dict(TABLE_FILES)
    if data.claims is not None:
        tables["claims"] = CLAIMS_FILE
    if data.house_rules is not None:
        tables["house_rules"] = HOUSE_RULES_FILE
    for table, filename in tables.items():
        frame: pl.DataFrame = getattr(data, table)
        meta = P.provenance({"experiment": data.record.get("name"), **data.config})
        meta.update(table=f"experiment_{table}", rows=frame.height)
        arrow = P.with_provenance(frame.to_arrow(), meta)
        digests[filename] = T.write_parquet_atomic(arrow, directory / filename)
    return digests


def load_experiment_data(directory: PathInput) -> ExperimentData:
    """Read an experiment directory's tables back (checked: ours, complete, intact).

    Its runs are not read (every number is in the tables, each checked against the
    digest its record holds), so the tables load without them; :func:`scan_hands`
    reads the runs, checked against the record (:func:`study_runs`)."""
    directory = store.location(directory)
    record = records.load_record(directory / EXPERIMENT_JSON, EXPERIMENT_KIND)
    if "analysis" not in record:
        raise ExperimentError(f"{directory / EXPERIMENT_JSON}: no analysis in the record")
    frames = {}
    tables = dict(TABLE_FILES)
    for table, filename in (("claims", CLAIMS_FILE), ("house_rules", HOUSE_RULES_FILE)):
        if filename in (record.get("tables") or {}):
            tables[table] = filename
    for table, filename in tables.items():
        frames[table] = records.read_table(directory, record, filename)
        meta, _ = P.read_footer(directory / filename)
        if meta.get("table") != f"experiment_{table}":
            raise T.ResultsError(f"{directory / filename}: not an experiment {table} table")
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


def load_results(path: PathInput) -> ExperimentData:
    """An experiment directory, a run directory, or one of their Parquet files.

    Raises
    ------
    ExperimentError, sim.study.runs.RunError, sim.study.tables.ResultsError
        One line naming the problem: not ours, corrupted, incomplete.
    """
    p = store.location(path)
    if not p.exists():
        raise ExperimentError(f"{p}: no such directory or file")
    if p.is_file():
        meta, _ = P.read_footer(p)  # foreign or corrupted Parquet fails here
        table = str(meta.get("table", ""))
        if table.startswith("experiment_"):
            return load_experiment_data(p.parent)
        if table in rundir.TABLES:
            return data_from_run(p.parent.parent)
        raise T.ResultsError(f"{p}: a rummy-sim file of unknown table {table!r}")
    if (p / EXPERIMENT_JSON).exists():
        return load_experiment_data(p)
    if (p / rundir.MANIFEST).exists():
        return data_from_run(p)
    raise ExperimentError(
        f"{p}: not a results directory (no {EXPERIMENT_JSON} or {rundir.MANIFEST}); give an "
        "experiment directory (results/NAME) or a run directory (results/NAME/RUN_ID)"
    )


def scan_hands(path: PathInput) -> pl.LazyFrame:
    """Every hand of a study as one polars LazyFrame: an experiment (or sweep), a
    comparison, a tournament, a tune, or one run.

    Each row carries its run's labels (``variant``, ``lineup``, who sat where:
    ``strategy_k`` and ``player_k``, and a study's ``setting``, ``seating`` and grid
    values), so the whole study is one dataset to filter and group. Only the runs the
    study's record lists are read, each checked to be the run the record names
    (:func:`study_runs`): a listed run folder that is missing, holds no run or another
    run is refused in one line naming it, and so is a run in a comparison's,
    tournament's or tune's folder that its record does not list (an experiment's folder
    may also hold runs of an earlier version of the experiment: they are not read).
    Every part is checked against its digest first. Runs with fewer seats lack the
    columns of the missing seats (``deadwood_3``, ...): those are null in their rows.
    :func:`scan_players` reads the same rows once per seat.

    Raises
    ------
    sim.study.records.RecordError, sim.study.runs.RunError, sim.study.tables.ResultsError
        Not a finished study or run; a missing, foreign or swapped run folder; a run
        kept no hand rows; a damaged part.
    """
    return _scan(store.location(path), rundir.load_hands)


def scan_games(path: PathInput) -> pl.LazyFrame:
    """Every game of a study (or of one run) of whole games, as :func:`scan_hands`."""
    return _scan(store.location(path), rundir.load_games)


def scan_players(path: PathInput, table: str = "hands") -> pl.LazyFrame:
    """The rows of :func:`scan_hands` (``table="games"``: :func:`scan_games`) once per
    seat: a long table that is read per player, right under duplicate play.

    Each row is one seat of one hand (game): the hand's own columns and labels, then
    ``seat``, ``player`` (its index in the study's line-up: the same strategy of a
    template in every seating), ``strategy`` (the spec that sat there), the seat's
    values without the ``_k`` suffix (``points``, ``deadwood``, ``laid_off``; for games
    ``points``, ``score``, ``boxes``), its net (``net_points``, for games ``net_score``:
    its value minus the mean of the other seats', the zero-sum edge every study
    compares) and ``won`` (it won the hand, or the game).

    >>> players = scan_players("results/gin_knock_threshold")
    >>> players.filter(pl.col("player") == 0).group_by("variant", "knock_at").agg(
    ...     pl.col("net_points").mean())  # the experiment's headline, per setting
    """
    if table not in ("hands", "games"):
        raise ValueError(f"table={table!r} is not allowed; choose 'hands' or 'games'")
    frame = scan_hands(path) if table == "hands" else scan_games(path)
    fields = T.HAND_SEAT_FIELDS if table == "hands" else T.GAME_SEAT_FIELDS
    values = [name for name, _ in fields.values()]
    net = "points" if table == "hands" else "score"
    names = frame.collect_schema().names()
    seats = sum(1 for name in names if name.startswith("strategy_"))
    per_seat = {f"{name}_{k}" for name in (*values, *T.SEAT_LABELS) for k in range(seats)}
    shared = [name for name in names if name not in per_seat and not name.startswith("column")]
    # Runs with fewer seats leave the last seats' columns null: they are not seats there.
    present = pl.sum_horizontal(pl.col(f"strategy_{k}").is_not_null() for k in range(seats))
    total = pl.sum_horizontal(pl.col(f"{net}_{k}") for k in range(seats))
    long = [
        frame.filter(pl.col(f"strategy_{k}").is_not_null()).select(
            *shared,
            pl.lit(k, pl.Int8).alias("seat"),
            pl.col(f"player_{k}").alias("player"),
            pl.col(f"strategy_{k}").cast(pl.String).alias("strategy"),
            *(pl.col(f"{name}_{k}").alias(name) for name in values),
            (pl.col(f"{net}_{k}") - (total - pl.col(f"{net}_{k}")) / (present - 1)).alias(
                f"net_{net}"
            ),
            (pl.col("winner") == k).alias("won"),
        )
        for k in range(seats)
    ]
    return pl.concat(long, how="vertical_relaxed")


def _scan(path: StorePath, load: Any) -> pl.LazyFrame:
    return pl.concat([load(run_dir) for run_dir in study_runs(path)], how="diagonal_relaxed")


def study_runs(path: PathInput) -> list[StorePath]:
    """The run folders of a run (itself) or of a finished study: the runs its record
    lists, each checked to be the run it names (``rundir.listed_runs``), never the
    folders that happen to be there.

    Raises
    ------
    sim.study.records.RecordError, sim.study.runs.RunError
        Not a run or a finished study; a listed run folder missing, holding no run or
        another run; a run in a comparison's, tournament's or tune's folder that its
        record does not list (an experiment's folder may keep runs of its earlier
        versions: they are not read).
    """
    # Here, not at the top: `rummy report` and `rummy chart` import this module and need
    # none of the studies that play runs (each brings the executor along).
    from sim.study.compare import COMPARISON_FILE, comparison_runs
    from sim.study.tournament import TOURNAMENT_FILE, tournament_runs
    from sim.study.tune import TUNE_FILE, tune_runs

    path = store.location(path)
    if (path / rundir.MANIFEST).exists():
        return [path]
    if (path / EXPERIMENT_JSON).exists():
        return _experiment_runs(path, records.load_record(path / EXPERIMENT_JSON, EXPERIMENT_KIND))
    for name, runs_of in (
        (COMPARISON_FILE, comparison_runs),
        (TOURNAMENT_FILE, tournament_runs),
        (TUNE_FILE, tune_runs),
    ):
        if (path / name).exists():
            return runs_of(path)
    raise ExperimentError(
        f"{path}: no study record or run in it; give a run directory or a study's folder "
        "(an experiment, sweep, comparison, tournament or tune)"
    )


def _experiment_runs(path: StorePath, record: dict[str, Any]) -> list[StorePath]:
    """An experiment's runs, checked; runs of its earlier versions beside them are kept
    but not read (a code edit changes run ids: the same command then plays new runs)."""
    listed = (record.get("analysis") or {}).get("runs")
    again = f"play it again with: rummy run --resume {path}"
    return rundir.listed_runs(path / EXPERIMENT_JSON, listed, again, unlisted_allowed=True)


def record_of(data: ExperimentData) -> dict[str, Any]:
    """The analysis record stored in ``experiment.json``: with the runs and provenance."""
    runs = data.runs.to_dicts() if data.runs.height else []
    return {**data.record, "runs": runs, "provenance": data.provenance}
