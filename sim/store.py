"""Files on disk: atomic writes, content digests, output folders.

Every file the project writes goes through :func:`write_bytes_atomic` (or the JSON
and text forms on top of it): the bytes go to a hidden temporary file beside the
target (``.NAME.<pid>-<hex>.tmp``; dataset readers skip names starting with a dot),
are flushed to disk, then renamed into place with ``os.replace``. A reader therefore
sees the old file or the complete new one, never a torn one, even after ``kill -9``.

Files whose content later decides results (Parquet parts, analysis tables) are
recorded with their digest (:func:`digest_of`) when written and checked with
:func:`verify_file` before they are trusted: bit rot, a truncated copy or another
file put in the place of one is found, named, and never read as data.

Errors are one line and name the path and the reason in words: a full disk says
"No space left on device", a read-only mount "Read-only file system" (not
"permission denied").

A study's folder may also be in an object store (``--out s3://bucket/prefix``):
:func:`location` turns such text into a ``sim.remote.RemotePath``, which every function
here accepts in place of a ``Path``. Its writes are one upload of the whole file (an
object store has no rename; an object appears whole or not at all), and leave no
temporary file.

No write lands on a run's or a study's own files: every ``--out`` goes through
:func:`refuse_record_path` before anything is written, and a write onto a folder is
refused before its temporary file is made.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import os
import secrets
import sys
from collections.abc import Iterator, Mapping
from pathlib import Path
from typing import Any

import numpy as np

__all__ = [
    "StorageError",
    "arrow_source",
    "digest_of",
    "dumps",
    "file_digest",
    "is_remote",
    "location",
    "make_dir",
    "os_reason",
    "read_toml",
    "refuse_record_path",
    "remote_failure",
    "remove_stale_temporaries",
    "strict_json",
    "study_folder",
    "temporary_beside",
    "verify_file",
    "write_bytes_atomic",
    "write_json_atomic",
    "write_text_atomic",
]

_CHUNK = 1 << 20  # bytes read at a time when hashing a file


class StorageError(ValueError):
    """A file or folder that cannot be written or trusted (one line naming the path)."""


def location(value: str | os.PathLike[str] | Any) -> Path | Any:
    """Where a study's files go: a ``Path``, or a ``sim.remote.RemotePath`` for a URI
    (``s3://bucket/prefix?endpoint_override=...``; ``file:///abs`` is a ``Path``; any
    other scheme is refused without a request: ``sim.remote.parse``).

    Raises
    ------
    StorageError
        One line naming a URI that cannot be used (its credentials masked) and what is
        allowed.
    """
    if isinstance(value, Path) or is_remote(value):
        return value
    text = os.fspath(value)
    if "://" not in text:
        return Path(text)
    from sim import remote

    try:
        return remote.parse(text)
    except remote.URIError as error:
        raise StorageError(str(error)) from None


def is_remote(path: Any) -> bool:
    """Whether ``path`` is in an object store (a ``sim.remote.RemotePath``). Without
    importing ``sim.remote`` (and pyarrow's file systems): until something imported it,
    no such path exists."""
    remote = sys.modules.get("sim.remote")
    return remote is not None and isinstance(path, remote.RemotePath)


def arrow_source(path: str | os.PathLike[str] | Any) -> tuple[str, Any]:
    """``(path, filesystem)`` for pyarrow's readers (``pq.read_table(path,
    filesystem=...)``): the filesystem is None for a local file."""
    where = location(path)
    if isinstance(where, Path):
        return str(where), None
    return where.key, where.filesystem  # a sim.remote.RemotePath


def remote_failure(path: Any, error: Exception, what: str = "") -> StorageError:
    """An object store's failure about ``path`` as one line, ``WHAT PATH: REASON`` (a
    store that does not answer named by its endpoint: ``sim.remote.reason``)."""
    from sim import remote

    return StorageError(f"{what} {path}: {remote.reason(error, path)}".lstrip())


def os_reason(error: OSError) -> str:
    """Why an OS call failed, in words: ``No space left on device``."""
    if not error.strerror and "AWS Error" in str(error):
        from sim import remote  # pyarrow's long S3 messages: the store's own sentence

        return remote.reason(error)
    return error.strerror or str(error).strip().splitlines()[0] or type(error).__name__


def _why_not_writable(folder: Path) -> str:
    """The reason a folder that exists cannot be written: read-only mount or permissions."""
    with contextlib.suppress(OSError, AttributeError):
        if os.statvfs(folder).f_flag & os.ST_RDONLY:
            return "Read-only file system"
    return "Permission denied"


def make_dir(path: str | os.PathLike[str], what: str = "output directory") -> bool:
    """Create ``path`` (and its parents) and check that it can be written.

    Returns True when the folder did not exist before.

    Raises
    ------
    StorageError
        ``cannot create output directory PATH: REASON`` or ``cannot write to ...``.
    """
    if str(path) == "":
        raise StorageError(f"the {what} is empty text; give a folder, e.g. results")
    folder = location(path)
    if is_remote(folder):
        try:
            existed = folder.is_dir()
            folder.mkdir()  # fails on a missing bucket, no credentials, no permission
        except (OSError, ValueError) as error:  # pyarrow's errors are both
            raise remote_failure(folder, error, f"cannot create {what}") from None
        return not existed
    existed = folder.is_dir()
    try:
        folder.mkdir(parents=True, exist_ok=True)
    except OSError as error:
        raise StorageError(f"cannot create {what} {folder}: {os_reason(error)}") from None
    if not os.access(folder, os.W_OK):
        raise StorageError(f"cannot write to {what} {folder}: {_why_not_writable(folder)}")
    return not existed


# What makes a folder a run's (its manifest: sim/study/rundir.py) or a study's (its record:
# sim/study/records.py, a solve's: sim/study/solve.py). tests/sim/cli/test_out_paths.py checks
# these names against the modules that write them (importing those here would load numba).
RUN_MANIFEST = "manifest.json"
RECORD_NAMES = (
    RUN_MANIFEST,
    "experiment.json",
    "comparison.json",
    "tournament.json",
    "tune.json",
    "request.json",
    "solve.json",
)
# Such a folder's own files besides: a run's chunk records, table parts and lock, a
# solve's final seat; and every record (.json) and table (.parquet) in it.
OWN_NAMES = frozenset({"chunks", "hands", "games", "summary", "cells", ".lock", "final.chart"})
_OWN_SUFFIXES = (".json", ".parquet")


def _names_in(folder: Any) -> set[str]:
    """The names in ``folder`` (none when it is not a folder)."""
    try:
        return {child.name for child in folder.glob("*")}
    except (NotADirectoryError, FileNotFoundError):
        return set()


def _folders_above(path: Any) -> Iterator[Any]:
    """``path``'s parents, nearest first, up to the root (an object store: its bucket)."""
    if is_remote(path):
        while "/" in path.key:
            path = path.parent
            yield path
    else:
        yield from path.parents


def refuse_record_path(path: str | os.PathLike[str] | Any, *, root: bool = False) -> None:
    """Refuse to write at ``path`` when it is, or is inside, one of the own files of a run
    or a study folder (its manifest, chunk records, parts, records, tables): every
    ``--out`` goes through here before anything is written. Other files in such a folder
    stay allowed (``rummy report RUN`` writes RUN/report.html, ``rummy chart RUN`` RUN/charts).

    ``root``: ``path`` is a results root, under which a study makes its own folders; it
    may not be a run folder nor lie inside one either.

    Raises
    ------
    StorageError
        One line naming the path and the folder whose files it would overwrite.
    """
    target = location(path)
    if not is_remote(target):
        target = target.resolve()  # "..", links: where the files would really go
    try:
        if root and RUN_MANIFEST in _names_in(target):
            raise StorageError(
                f"{target} is a run folder: a results root holds runs, not the other way "
                "round; give another folder"
            )
        child = target
        for folder in _folders_above(target):
            names = _names_in(folder)
            if RUN_MANIFEST in names and root:
                raise StorageError(
                    f"{target} is inside the run folder {folder}: a results root holds "
                    "runs, not the other way round; give another folder"
                )
            own = child.name in OWN_NAMES or child.name.endswith(_OWN_SUFFIXES)
            if own and names.intersection(RECORD_NAMES):
                kind = "run" if RUN_MANIFEST in names else "study"
                where = "" if child == target else "inside "
                raise StorageError(
                    f"{target} is {where}the {kind}'s own {child.name} (in {folder}); rummy "
                    "never writes over a run's or a study's own files: give another path"
                )
            child = folder
    except OSError as error:  # an object store that does not answer, a folder unread
        if is_remote(target):
            raise remote_failure(target, error) from None
        raise StorageError(f"cannot check {target}: {os_reason(error)}") from None


def temporary_beside(path: Path) -> Path:
    """A hidden temporary name in ``path``'s folder, unique to this process and call."""
    return path.with_name(f".{path.name}.{os.getpid()}-{secrets.token_hex(4)}.tmp")


def remove_stale_temporaries(path: Path) -> None:
    """Remove temporaries of ``path`` left by writers that were killed mid-write.

    Call it only while no other process may be writing ``path`` (under the run's lock,
    or right after this process wrote ``path`` itself). An object store's writes leave
    no temporaries.
    """
    if is_remote(path):
        return
    for stale in path.parent.glob(f".{path.name}.*.tmp"):
        stale.unlink(missing_ok=True)


def write_bytes_atomic(path: str | os.PathLike[str], data: bytes | memoryview | Any) -> None:
    """Write ``data`` (bytes or a buffer) to ``path``: absent, old or complete, never torn;
    on any failure the temporary file is gone too.

    Raises
    ------
    StorageError
        ``cannot write PATH: REASON`` (a full disk, a read-only mount, a missing folder,
        a folder where the file should be).
    """
    target = location(path)
    if not target.name or (not is_remote(target) and target.is_dir()):
        raise StorageError(f"cannot write {target}: it is a folder; give a file's name")
    if is_remote(target):
        try:
            target.write_bytes(data)  # one upload: the object appears whole or not at all
        except (OSError, ValueError) as error:
            raise remote_failure(target, error, "cannot write") from None
        return
    tmp = temporary_beside(target)
    try:
        with open(tmp, "wb") as handle:
            handle.write(data)
            handle.flush()
            os.fsync(handle.fileno())
        os.replace(tmp, target)
    except BaseException as error:
        tmp.unlink(missing_ok=True)
        if isinstance(error, OSError):
            raise StorageError(f"cannot write {target}: {os_reason(error)}") from None
        raise
    remove_stale_temporaries(target)


def write_text_atomic(path: str | os.PathLike[str], text: str) -> None:
    """:func:`write_bytes_atomic` of UTF-8 text."""
    write_bytes_atomic(path, text.encode("utf-8"))


def _json_default(value: Any) -> Any:
    if isinstance(value, np.generic):
        return value.item()
    return str(value)  # paths, dates, fractions: their text


def strict_json(value: Any) -> Any:
    """``value`` with every non-finite float (NaN, inf) replaced by None.

    JSON has no NaN: Python's ``json`` writes a bare ``NaN`` that strict parsers
    refuse. Paths and numpy scalars are converted too.
    """
    if isinstance(value, float | np.floating):
        return float(value) if np.isfinite(value) else None
    if isinstance(value, Mapping):
        return {str(k): strict_json(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [strict_json(v) for v in value]
    if isinstance(value, np.generic):
        return strict_json(value.item())
    if isinstance(value, Path):
        return str(value)
    return value


def dumps(value: Any, *, indent: int | None = 2, sort_keys: bool = True) -> str:
    """Strict JSON text: no NaN or infinity (None instead), paths and numpy values
    converted; any parser reads it."""
    return json.dumps(
        strict_json(value),
        indent=indent,
        sort_keys=sort_keys,
        allow_nan=False,
        default=_json_default,
        ensure_ascii=False,
    )


def write_json_atomic(path: str | os.PathLike[str], value: Any) -> None:
    """Write ``value`` as strict, indented JSON (see :func:`dumps`), atomically."""
    write_text_atomic(path, dumps(value) + "\n")


@contextlib.contextmanager
def study_folder(path: Path) -> Iterator[bool]:
    """Make a study's folder (:func:`make_dir`) and yield whether it is new; when the
    study fails and the new folder is still empty, remove it again, so that a refused
    study leaves nothing behind."""
    created = make_dir(path)
    try:
        yield created
    except BaseException:
        if created:
            with contextlib.suppress(OSError):
                path.rmdir()
        raise


def read_toml(path: str | os.PathLike[str], what: str = "file") -> dict[str, Any]:
    """A TOML file's table (``what`` names the file in messages: "experiment file").

    Raises
    ------
    StorageError
        One line: missing, a directory, not UTF-8, unreadable, or not valid TOML (with
        the line and column of the mistake).
    """
    import tomllib

    where = str(path)
    p = Path(path)
    if not p.exists():
        raise StorageError(f"{where}: no such {what}")
    if p.is_dir():
        raise StorageError(f"{where}: is a directory, not a {what} (.toml)")
    try:
        text = p.read_bytes().decode("utf-8")
    except UnicodeDecodeError:
        raise StorageError(f"{where}: not a text file (TOML is UTF-8)") from None
    except OSError as error:
        raise StorageError(f"{where}: cannot read ({os_reason(error)})") from None
    try:
        return tomllib.loads(text)
    except tomllib.TOMLDecodeError as error:
        reason = str(error).strip().splitlines()[0]
        raise StorageError(f"{where}: not valid TOML ({reason})") from None


def digest_of(data: bytes | memoryview | Any) -> dict[str, Any]:
    """``{"bytes": size, "sha256": hex}`` of bytes about to be written."""
    view = memoryview(data)
    return {"bytes": view.nbytes, "sha256": hashlib.sha256(view).hexdigest()}


def file_digest(path: str | os.PathLike[str]) -> dict[str, Any]:
    """``{"bytes": size, "sha256": hex}`` of a file as it is on disk (or in the store) now."""
    h = hashlib.sha256()
    size = 0
    with location(path).open("rb") as handle:
        while block := handle.read(_CHUNK):
            h.update(block)
            size += len(block)
    return {"bytes": size, "sha256": h.hexdigest()}


def verify_file(path: str | os.PathLike[str], digest: Mapping[str, Any]) -> None:
    """Check a file against the digest recorded when it was written.

    Raises
    ------
    StorageError
        One line naming the file: missing, unreadable, or changed since it was
        written (bit rot, truncation, another file put in its place).
    """
    try:
        found = file_digest(path)
    except FileNotFoundError:
        raise StorageError(f"{path}: missing") from None
    except OSError as error:
        raise StorageError(f"{path}: unreadable ({os_reason(error)})") from None
    if found["bytes"] != digest.get("bytes") or found["sha256"] != digest.get("sha256"):
        raise StorageError(
            f"{path}: corrupted (its content no longer matches the digest recorded when "
            "it was written)"
        )
