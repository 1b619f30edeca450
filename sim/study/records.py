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
    sha256           the record's own digest (:func:`write_sealed`)

:func:`load_record` reads a record back and checks all of that: a record edited or
damaged since it was written, of another kind or version, an unfinished study, or a
table whose bytes no longer match its digest is one line naming the file, never a
number read from it. :func:`read_table` reads one of its tables, checked.

Every record the project keeps as JSON (these, a run's manifest and chunk records, a
chart's check, a solve's record) is sealed the same way: :func:`write_sealed` adds the
sha256 of the canonical JSON of its content, and :func:`read_sealed`, through which
every reader of those files goes, recomputes it and refuses a record whose content no
longer matches (or that has no digest: written by an older version).
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Mapping
from datetime import UTC, datetime
from typing import Any

import polars as pl

from sim import store
from sim.store import PathInput, StorePath
from sim.study.tables import ResultsError, read_verified

__all__ = [
    "EXPERIMENT_KIND",
    "RECORD_VERSION",
    "SEAL",
    "RecordError",
    "load_record",
    "now",
    "read_sealed",
    "read_table",
    "seal_of",
    "study_id",
    "write_record",
    "write_sealed",
]

RECORD_VERSION = 1
# The kind of an experiment's (and a sweep's) record: the one study whose folder is named
# by the user (claimed by its record, --force to replace it) and finished by
# ``rummy run --resume``, which the repair advice of :func:`load_record` says.
EXPERIMENT_KIND = "rummy-sim experiment"
SEAL = "sha256"  # the key of a record's own digest, beside its content


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


def seal_of(value: Mapping[str, Any]) -> str:
    """The digest of a record's content: the sha256 of its canonical JSON (sorted keys,
    no indent, as :func:`sim.store.dumps` writes it; the key :data:`SEAL` left out).

    Parsing the written file gives back the same values (Python's ``json`` writes every
    float as the shortest text that reads back as it), so the reader recomputes the
    same text from what it parsed."""
    return _digest(_content(value))


def _content(value: Mapping[str, Any]) -> Any:
    """A record's content as strict JSON values (``strict_json``), its seal left out."""
    return store.strict_json({k: v for k, v in value.items() if k != SEAL})


def _digest(content: Any) -> str:
    """:func:`seal_of` of a record's :func:`_content`."""
    return hashlib.sha256(store.json_text(content, indent=None).encode()).hexdigest()


def write_sealed(path: PathInput, value: Mapping[str, Any]) -> None:
    """Write a record as strict JSON, atomically, with its own digest under :data:`SEAL`
    (:func:`read_sealed` reads it back). ``value`` itself is not changed.

    Raises
    ------
    sim.store.StorageError
        The file cannot be written (one line).
    """
    content = _content(value)  # cleaned once, for the seal and the file
    store.write_text_atomic(path, store.json_text({**content, SEAL: _digest(content)}) + "\n")


def read_sealed(
    path: PathInput, rebuild: str, *, error: type[ValueError] = RecordError
) -> dict[str, Any]:
    """A record written by :func:`write_sealed`, checked against its digest; its content
    without the digest.

    Parameters
    ----------
    path : path
        The record (a local path or an object store's, ``sim.store.location``).
    rebuild : str
        How to make the record again, in words; every refusal ends with it
        ("play it again with: rummy run --resume DIR").
    error : type
        The error raised (the caller's own kind, so that its handlers still catch it).

    Raises
    ------
    FileNotFoundError
        No record there (each caller says what that means).
    error
        One line naming the file: unreadable, not JSON, no digest (written by an
        older version), or a digest that does not match the content (edited or damaged).
    """
    path = store.location(path)
    try:
        value = json.loads(path.read_text())
    except FileNotFoundError:
        raise
    except OSError as failure:
        raise error(f"{path}: unreadable ({store.os_reason(failure)}); {rebuild}") from None
    except (UnicodeDecodeError, json.JSONDecodeError) as failure:
        raise error(f"{path} is damaged (not JSON: {failure}); {rebuild}") from None
    if not isinstance(value, dict):
        raise error(f"{path} is damaged (not a JSON object); {rebuild}")
    if SEAL not in value:
        raise error(
            f"{path} has no digest (written by an older rummy-sim, or damaged), so it "
            f"cannot be trusted; {rebuild}"
        )
    if value.pop(SEAL) != seal_of(value):
        raise error(f"{path}: its digest does not match its content (edited or damaged); {rebuild}")
    return value


def write_record(
    path: StorePath, kind: str, body: Mapping[str, Any], *, status: str = "done"
) -> None:
    """Write the record of a study (strict JSON, atomically).

    ``body`` holds the study's own fields and may set ``created``, ``command`` and
    ``tables``; ``finished`` is set when ``status`` is "done".
    """
    record = {"kind": kind, "format_version": RECORD_VERSION, "status": status, **body}
    record.setdefault("created", now())
    if status == "done":
        record.setdefault("finished", now())
    write_sealed(path, record)


def load_record(path: PathInput, kind: str, *, finished: bool = True) -> dict[str, Any]:
    """A study's record, checked: its own digest, kind, version, status and tables'
    digests. Returned without its digest (:func:`read_sealed`).

    Raises
    ------
    RecordError
        No record there, unreadable, edited or damaged, another kind or version, or
        (``finished``) a study that has not finished; the message says how to write
        it again or finish it.
    sim.study.tables.ResultsError
        A table the record lists is missing or no longer matches its digest.
    """
    path = store.location(path)
    # An experiment's folder is claimed by its record, so a damaged one is "another
    # study" to the same command: --force lets it write the record anew (its runs kept).
    experiment = kind == EXPERIMENT_KIND
    again = "run the command that made it again" + (" with --force" if experiment else "")
    try:
        record = read_sealed(path, f"{again} to write it anew")
    except FileNotFoundError:
        study = kind.removeprefix("rummy-").removeprefix("sim ").split("-")[0]  # "tune", ...
        article = "an" if study[:1] in "aeiou" else "a"
        raise RecordError(
            f"{path.parent} is not {article} {study} directory (it holds no {path.name})"
        ) from None
    if record.get("kind") != kind:
        raise RecordError(f"{path}: not a {kind} record")
    if record.get("format_version") != RECORD_VERSION:
        raise RecordError(
            f"{path}: format_version {record.get('format_version')!r} is not supported "
            f"(this version reads {RECORD_VERSION})"
        )
    if finished and record.get("status") != "done":
        resume = f" (or rummy run --resume {path.parent})" if experiment else ""
        raise RecordError(
            f"{path.parent}: the study has not finished; run the same command again{resume} "
            "to finish it"
        )
    tables = record.get("tables", {})
    if not isinstance(tables, dict):
        raise RecordError(f"{path}: damaged record (tables)")
    return record


def read_table(directory: StorePath, record: Mapping[str, Any], name: str) -> pl.DataFrame:
    """Table ``name`` of a study, checked against the digest its record holds."""
    digest = (record.get("tables") or {}).get(name)
    if not isinstance(digest, dict):
        raise RecordError(f"{directory}: its record lists no table {name}")
    try:
        return read_verified(directory / name, digest)
    except store.StorageError as error:
        raise ResultsError(f"{error}; rebuild it with: rummy run --resume {directory}") from None
