"""Study records: one JSON format for every study directory, one loader.

Every study writes one record in its directory (``experiment.json``,
``comparison.json``, ``tournament.json``, ``tune.json``; a tune also keeps its
``request.json``), atomically, as strict JSON:

    kind             what made it ("rummy-sim experiment", "rummy-compare",
                     "rummy-tournament", "rummy-tune", "rummy-tune-request")
    format_version   RECORD_VERSION: the layout of records and of their tables
    status           "running" while the study plays, "done" once it finished
    created          when the study started; ``finished`` when it ended
    command          the command line
    tables           each Parquet table the study wrote: file name -> size and sha256
    ...              the study's own fields

:func:`load_record` reads a record back and checks all of that: a record of another
kind or version, an unfinished study, or a table whose bytes no longer match its
digest is one line naming the file, never a number read from it. :func:`read_table`
reads one of its tables, checked.
"""

from __future__ import annotations

import hashlib
import json
import os
from collections.abc import Mapping
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import polars as pl

from sim import store
from sim.study.tables import ResultsError, read_verified

__all__ = [
    "RECORD_VERSION",
    "RecordError",
    "load_record",
    "now",
    "read_table",
    "study_id",
    "write_record",
]

RECORD_VERSION = 1


class RecordError(ValueError):
    """A study record that is missing, unfinished, damaged or of another kind (one line)."""


def study_id(value: Any) -> str:
    """A study's folder name: the first 12 hex digits of the sha256 of ``value``'s
    canonical JSON (the study's kind and its runs' config hashes)."""
    text = json.dumps(value, sort_keys=True, separators=(",", ":"), ensure_ascii=True)
    return hashlib.sha256(text.encode()).hexdigest()[:12]


def now() -> str:
    """The time, as records store it (UTC, to the second)."""
    return datetime.now(UTC).isoformat(timespec="seconds")


def write_record(path: Path, kind: str, body: Mapping[str, Any], *, status: str = "done") -> None:
    """Write the record of a study (strict JSON, atomically).

    ``body`` holds the study's own fields and may set ``created``, ``command`` and
    ``tables``; ``finished`` is set when ``status`` is "done".
    """
    record = {"kind": kind, "format_version": RECORD_VERSION, "status": status, **body}
    record.setdefault("created", now())
    if status == "done":
        record.setdefault("finished", now())
    store.write_json_atomic(path, record)


def load_record(
    path: str | os.PathLike[str], kind: str, *, finished: bool = True
) -> dict[str, Any]:
    """A study's record, checked: its kind, version, status and tables' digests.

    Raises
    ------
    RecordError
        No record there, unreadable JSON, another kind or version, or (``finished``)
        a study that has not finished; the message says how to finish it.
    sim.study.tables.ResultsError
        A table the record lists is missing or no longer matches its digest.
    """
    path = store.location(path)
    try:
        record = json.loads(path.read_text())
    except FileNotFoundError:
        study = kind.removeprefix("rummy-").removeprefix("sim ").split("-")[0]  # "tune", ...
        article = "an" if study[:1] in "aeiou" else "a"
        raise RecordError(
            f"{path.parent} is not {article} {study} directory (it holds no {path.name})"
        ) from None
    except (OSError, UnicodeDecodeError, json.JSONDecodeError) as error:
        reason = store.os_reason(error) if isinstance(error, OSError) else error
        raise RecordError(f"{path}: unreadable ({reason})") from None
    if not isinstance(record, dict) or record.get("kind") != kind:
        raise RecordError(f"{path}: not a {kind} record")
    if record.get("format_version") != RECORD_VERSION:
        raise RecordError(
            f"{path}: format_version {record.get('format_version')!r} is not supported "
            f"(this version reads {RECORD_VERSION})"
        )
    if finished and record.get("status") != "done":
        raise RecordError(
            f"{path.parent}: the study has not finished; run the same command again "
            f"(or rummy run --resume {path.parent}) to finish it"
        )
    tables = record.get("tables", {})
    if not isinstance(tables, dict):
        raise RecordError(f"{path}: damaged record (tables)")
    return record


def read_table(directory: Path, record: Mapping[str, Any], name: str) -> pl.DataFrame:
    """Table ``name`` of a study, checked against the digest its record holds."""
    digest = (record.get("tables") or {}).get(name)
    if not isinstance(digest, dict):
        raise RecordError(f"{directory}: its record lists no table {name}")
    try:
        return read_verified(directory / name, digest)
    except store.StorageError as error:
        raise ResultsError(f"{error}; rebuild it with: rummy run --resume {directory}") from None
