"""A finished study's folder read back as it was written, nothing played or written.

Which kind of study a folder holds is told by its sealed record (``sim.store.
study_record_in``), as :mod:`sim.study.kinds` declares each kind's records. A
comparison, a round robin or a tune is read here, each as its record and its table;
a run or an experiment is read by ``experiment_store.load_results`` (its rows are the
data). The notebook's ``rummy.load`` and the ``rummy report`` and ``rummy chart``
commands open a study's folder through :func:`open_study`, so each door reads the same
figures from the same files.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import polars as pl

from sim import store
from sim.store import PathInput, StorePath
from sim.study import kinds, records
from sim.study import tables as T
from sim.study.compare import COMPARISON_KIND
from sim.study.kinds import StudyKind
from sim.study.tournament import MATRIX_FILE, TOURNAMENT_KIND
from sim.study.tune import SETTINGS_FILE, TUNE_KIND

__all__ = ["StudyFolder", "StudyFolderError", "open_study"]


class StudyFolderError(ValueError):
    """A folder that holds no study this module reads, or one not finished (one line)."""


@dataclass(frozen=True)
class StudyFolder:
    """A finished comparison, round robin or tune: its record (``comparison.json``, ...,
    checked against its own digest and its table's) and its table (a round robin's
    matrix, a tune's settings; a comparison has none)."""

    kind: StudyKind
    directory: StorePath
    record: dict[str, Any]
    table: pl.DataFrame | None


# kind -> (the record's kind string, its table's file or None)
_READ: dict[StudyKind, tuple[str, str | None]] = {
    kinds.COMPARE: (COMPARISON_KIND, None),
    kinds.TOURNAMENT: (TOURNAMENT_KIND, MATRIX_FILE),
    kinds.TUNE: (TUNE_KIND, SETTINGS_FILE),
}


def open_study(path: PathInput) -> StudyFolder | None:
    """The study in ``path`` when it is a comparison's, a round robin's or a tune's
    folder; None when it is none of those (a run's or an experiment's folder, or
    nothing: ``load_results`` says which).

    Raises
    ------
    StudyFolderError
        A study of another kind (a solve's) or one that has not finished (a tune with
        only its request), in one line naming the folder.
    RecordError, sim.study.tables.ResultsError
        A record or table that was edited or damaged.
    """
    directory = store.location(path)
    name = store.study_record_in(directory) if directory.is_dir() else None
    kind = None if name is None else kinds.of_record(name)
    if kind is None or kind in (kinds.RUN, kinds.EXPERIMENT):
        return None
    if name != kind.records[0]:  # a tune's request, written first
        raise StudyFolderError(
            f"{directory} is an unfinished {kind.noun} (it holds {name}, not yet "
            f"{kind.records[0]}); finish it first: rummy {kind.name} --resume {directory}"
        )
    if kind not in _READ:
        raise StudyFolderError(
            f"{directory} is a {kind.noun}'s folder ({name}); give a run's (a strategy "
            "chart's too), an experiment's, a sweep's, a comparison's, a round robin's or a "
            "tune's folder"
        )
    record_kind, table_file = _READ[kind]
    record = records.load_record(directory / name, record_kind)  # its tables' digests too
    table = None if table_file is None else T.read_parquet_checked(directory / table_file)
    return StudyFolder(kind, directory, record, table)
