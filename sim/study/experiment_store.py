"""An experiment's results on disk: its tables and record, written and read back.

``<out>/<name>/``: ``summary.parquet``, ``seats.parquet``, ``outcomes.parquet``,
``turns.parquet``, ``comparisons.parquet`` (see ``sim/study/design.py``), ``claims.parquet``
when the experiment states claims (``sim/study/claims.py``) and
``experiment.json``, the study's record (``sim/study/records.py``): the resolved
experiment, the runs, the verdicts, the provenance and each table's digest.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

import polars as pl

from sim import store
from sim.study import provenance as P
from sim.study import records, rundir
from sim.study import tables as T
from sim.study.analysis import ExperimentData, data_from_run
from sim.study.design import EXPERIMENT_JSON, TABLE_FILES, ExperimentError

__all__ = [
    "EXPERIMENT_KIND",
    "load_experiment_data",
    "load_results",
    "record_of",
    "scan_games",
    "scan_hands",
    "write_tables",
]


EXPERIMENT_KIND = "rummy-sim experiment"
CLAIMS_FILE = "claims.parquet"  # only for experiments with claims: older ones have none


def write_tables(data: ExperimentData, directory: Path) -> dict[str, dict[str, Any]]:
    """Write the frames as Parquet with provenance (each file atomically).

    Returns each file's digest by file name: the record lists them, so that
    :func:`load_experiment_data` checks the files before it trusts them.
    """
    digests = {}
    tables = dict(TABLE_FILES)
    if data.claims is not None:
        tables["claims"] = CLAIMS_FILE
    for table, filename in tables.items():
        frame: pl.DataFrame = getattr(data, table)
        meta = P.provenance({"experiment": data.record.get("name"), **data.config})
        meta.update(table=f"experiment_{table}", rows=frame.height)
        arrow = P.with_provenance(frame.to_arrow(), meta)
        digests[filename] = T.write_parquet_atomic(arrow, directory / filename)
    return digests


def load_experiment_data(directory: str | os.PathLike[str]) -> ExperimentData:
    """Read an experiment directory's tables back (checked: ours, complete, intact)."""
    directory = store.location(directory)
    record = records.load_record(directory / EXPERIMENT_JSON, EXPERIMENT_KIND)
    if "analysis" not in record:
        raise ExperimentError(f"{directory / EXPERIMENT_JSON}: no analysis in the record")
    frames = {}
    tables = dict(TABLE_FILES)
    if CLAIMS_FILE in (record.get("tables") or {}):
        tables["claims"] = CLAIMS_FILE
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


def load_results(path: str | os.PathLike[str]) -> ExperimentData:
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


def scan_hands(path: str | os.PathLike[str]) -> pl.LazyFrame:
    """Every hand of an experiment (or of one run) as one polars LazyFrame.

    Each row carries its run's labels (``variant``, ``lineup``, ``setting``,
    ``seating`` and one column per grid key), so the whole study is one dataset to
    filter and group. Only the runs the experiment's record lists are read (a folder
    may also hold runs of an earlier version of the experiment), and every part is
    checked against its digest first. Runs with fewer seats lack the columns of the
    missing seats (``deadwood_3``, ...): those are null in their rows.

    Raises
    ------
    sim.study.records.RecordError, sim.study.runs.RunError, sim.study.tables.ResultsError
        Not a finished experiment or run; a run kept no hand rows; a damaged part.
    """
    return _scan(store.location(path), rundir.load_hands)


def scan_games(path: str | os.PathLike[str]) -> pl.LazyFrame:
    """Every game of an experiment (or of one run) of whole games, as :func:`scan_hands`."""
    return _scan(store.location(path), rundir.load_games)


def _scan(path: Path, load: Any) -> pl.LazyFrame:
    if (path / rundir.MANIFEST).exists():
        return load(path)
    record = records.load_record(path / EXPERIMENT_JSON, EXPERIMENT_KIND)
    runs = (record.get("analysis") or {}).get("runs") or []
    run_ids = list(dict.fromkeys(str(r["run_id"]) for r in runs))
    if not run_ids:
        raise ExperimentError(f"{path / EXPERIMENT_JSON}: the record lists no runs")
    return pl.concat([load(path / run_id) for run_id in run_ids], how="diagonal_relaxed")


def record_of(data: ExperimentData) -> dict[str, Any]:
    """The analysis record stored in ``experiment.json``: with the runs and provenance."""
    runs = data.runs.to_dicts() if data.runs.height else []
    return {**data.record, "runs": runs, "provenance": data.provenance}
