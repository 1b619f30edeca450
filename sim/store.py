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

Where the files are is decided once, by :func:`location`: a folder on this machine is a
:class:`LocalPath`, a folder in an object store (``--out s3://bucket/prefix``) a
``sim.remote.RemotePath``. Both are ``pathlib.Path``-like and carry what differs between
the two as methods of one interface (:data:`StorePath`): an atomic write
(``write_atomic``: a temporary file and a rename here; one upload there, since an object
store has no rename and an object appears whole or not at all), a folder's creation, the
run lock, pyarrow's view of a file, and the reason of a failure in words. Code below
:func:`location` calls those methods and never asks which store it is in.

No write lands on a run's or a study's own files: every ``--out`` goes through
:func:`refuse_record_path` before anything is written, and a write onto a folder is
refused before its temporary file is made.
"""

from __future__ import annotations

import contextlib
import errno
import hashlib
import json
import os
import secrets
import shutil
import sys
from collections.abc import Iterator, Mapping
from pathlib import Path
from typing import TYPE_CHECKING, Any, TypeAlias

import numpy as np

if TYPE_CHECKING:
    from sim.remote import RemotePath

__all__ = [
    "LocalPath",
    "PathInput",
    "StorePath",
    "StorageError",
    "arrow_source",
    "digest_of",
    "dumps",
    "failure",
    "file_digest",
    "location",
    "make_dir",
    "one_line",
    "os_reason",
    "read_toml",
    "refuse_record_path",
    "strict_json",
    "study_folder",
    "verify_file",
    "write_bytes_atomic",
    "write_json_atomic",
    "write_text_atomic",
]

_CHUNK = 1 << 20  # bytes read at a time when hashing a file


class StorageError(ValueError):
    """A file or folder that cannot be written or trusted (one line naming the path)."""


def one_line(error: BaseException | str) -> str:
    """An error's message as one line: its first (its type's name when it has none)."""
    text = str(error).strip()
    return text.splitlines()[0] if text else type(error).__name__


def os_reason(error: BaseException) -> str:
    """Why an OS call failed, in words: ``No space left on device``."""
    if isinstance(error, OSError):
        if not error.strerror and "AWS Error" in str(error):
            from sim import remote  # pyarrow's long S3 messages: the store's own sentence

            return remote.reason(error)
        if error.strerror:
            return error.strerror
    return one_line(error)


# Path's concrete class on this system (PosixPath or WindowsPath): the one a subclass extends.
if TYPE_CHECKING:
    _ConcretePath = Path
else:
    _ConcretePath = type(Path())


class LocalPath(_ConcretePath):
    """A file or folder on this machine: a ``pathlib.Path`` with the storage interface
    that ``sim.remote.RemotePath`` offers for an object store (paths made from it with
    ``/``, ``parent`` or ``with_name`` are LocalPaths too)."""

    def write_atomic(self, data: bytes | memoryview | Any) -> None:
        """Write ``data`` to a hidden temporary file beside this one, flush it to disk and
        rename it into place; on any failure the temporary file is gone too."""
        if self.is_dir():
            raise IsADirectoryError(errno.EISDIR, "it is a folder; give a file's name")
        tmp = self.with_name(f".{self.name}.{os.getpid()}-{secrets.token_hex(4)}.tmp")
        try:
            with open(tmp, "wb") as handle:
                handle.write(data)
                handle.flush()
                os.fsync(handle.fileno())
            os.replace(tmp, self)
        except BaseException:
            tmp.unlink(missing_ok=True)
            raise
        # Temporaries of writers killed mid-write: this process just wrote the file, so
        # no other writer of it is running (a run's files are written under its lock).
        for stale in self.parent.glob(f".{self.name}.*.tmp"):
            stale.unlink(missing_ok=True)

    def make_folder(self) -> bool:
        """Create this folder and its parents; True when it did not exist before."""
        existed = self.is_dir()
        self.mkdir(parents=True, exist_ok=True)
        return not existed

    def unwritable(self) -> str | None:
        """Why this existing folder cannot be written (read-only mount, permissions), or
        None when it can."""
        if os.access(self, os.W_OK):
            return None
        with contextlib.suppress(OSError, AttributeError):
            if os.statvfs(self).f_flag & os.ST_RDONLY:
                return "Read-only file system"
        return "Permission denied"

    def remove_tree(self) -> None:
        """Delete this folder and everything in it."""
        shutil.rmtree(self)

    def arrow_source(self) -> tuple[str, Any]:
        """``(path, filesystem)`` for pyarrow's readers: no filesystem, a local file."""
        return str(self), None

    def reason(self, error: BaseException) -> str:
        """Why an operation on this path failed, in words."""
        return os_reason(error)

    @contextlib.contextmanager
    def hold_lock(self) -> Iterator[None]:
        """Hold this lock file (released by the OS even on ``kill -9``).

        Raises
        ------
        BlockingIOError
            Another process holds it.
        """
        try:
            import fcntl
        except ImportError:  # pragma: no cover - Windows: no lock
            yield
            return
        with open(self, "a+b") as handle:
            try:
                fcntl.flock(handle.fileno(), fcntl.LOCK_EX | fcntl.LOCK_NB)
            except BlockingIOError:
                raise BlockingIOError() from None  # the OS frees it when its holder dies
            try:
                yield
            finally:
                fcntl.flock(handle.fileno(), fcntl.LOCK_UN)

    def lock_is_held(self) -> bool:
        """Whether a process holds this lock file now."""
        try:
            import fcntl
        except ImportError:  # pragma: no cover - Windows: no lock
            return False
        try:
            with open(self, "rb") as handle:
                try:
                    fcntl.flock(handle.fileno(), fcntl.LOCK_SH | fcntl.LOCK_NB)
                except BlockingIOError:
                    return True
                fcntl.flock(handle.fileno(), fcntl.LOCK_UN)
        except OSError:
            return False
        return False

    @property
    def folder_text(self) -> str:
        """The folder as a person types it: ``results/run/``."""
        return f"{self}/"


# A path in either store: what :func:`location` returns and the code below it passes on.
StorePath: TypeAlias = "LocalPath | RemotePath"
# What a caller may give for one: a path, its text (a folder or a URI), or a StorePath.
PathInput: TypeAlias = "str | os.PathLike[str] | RemotePath"


def location(value: PathInput) -> StorePath:
    """Where a study's files go, decided once: a :class:`LocalPath`, or a
    ``sim.remote.RemotePath`` for a URI (``s3://bucket/prefix?endpoint_override=...``;
    ``file:///abs`` is local; any other scheme is refused without a request:
    ``sim.remote.parse``). A path that is either already is returned as it is.

    Raises
    ------
    StorageError
        One line naming a URI that cannot be used (its credentials masked) and what is
        allowed.
    """
    if isinstance(value, LocalPath) or _is_remote(value):
        return value  # type: ignore[return-value]  # _is_remote: a RemotePath
    text = os.fspath(value)  # type: ignore[arg-type]  # not a RemotePath: _is_remote
    if "://" not in text:
        return LocalPath(text)
    from sim import remote

    try:
        where = remote.parse(text)
    except remote.URIError as error:
        raise StorageError(str(error)) from None
    return LocalPath(where) if isinstance(where, Path) else where  # file:///abs: local


def _is_remote(path: Any) -> bool:
    """Whether ``path`` is in an object store (a ``sim.remote.RemotePath``). Without
    importing ``sim.remote`` (and pyarrow's file systems): until something imported it,
    no such path exists."""
    remote = sys.modules.get("sim.remote")
    return remote is not None and isinstance(path, remote.RemotePath)


def arrow_source(path: PathInput) -> tuple[str, Any]:
    """``(path, filesystem)`` for pyarrow's readers (``pq.read_table(path,
    filesystem=...)``): the filesystem is None for a local file."""
    return location(path).arrow_source()


def failure(path: PathInput, error: BaseException, what: str = "") -> StorageError:
    """A failure about ``path`` as one line, ``WHAT PATH: REASON`` (an object store that
    does not answer named by its endpoint: ``sim.remote.reason``)."""
    where = location(path)
    return StorageError(f"{what} {where}: {where.reason(error)}".lstrip())


def make_dir(path: PathInput, what: str = "output directory") -> bool:
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
    try:
        # An object store checks its bucket, credentials and permission here.
        created = folder.make_folder()
    except (OSError, ValueError) as error:  # pyarrow's errors are both
        raise failure(folder, error, f"cannot create {what}") from None
    why = folder.unwritable()
    if why is not None:
        raise StorageError(f"cannot write to {what} {folder}: {why}")
    return created


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


def refuse_record_path(path: PathInput, *, root: bool = False) -> None:
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
    target = location(path).resolve()  # "..", links: where the files would really go
    try:
        if root and RUN_MANIFEST in _names_in(target):
            raise StorageError(
                f"{target} is a run folder: a results root holds runs, not the other way "
                "round; give another folder"
            )
        child = target
        for folder in target.parents:  # nearest first, up to the root (or the bucket)
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
        raise failure(target, error) from None


def write_bytes_atomic(path: PathInput, data: bytes | memoryview | Any) -> None:
    """Write ``data`` (bytes or a buffer) to ``path``: absent, old or complete, never torn;
    on any failure no temporary file is left.

    Raises
    ------
    StorageError
        ``cannot write PATH: REASON`` (a full disk, a read-only mount, a missing folder,
        a folder where the file should be).
    """
    target = location(path)
    if not target.name:
        raise StorageError(f"cannot write {target}: it is a folder; give a file's name")
    try:
        target.write_atomic(data)
    except (OSError, ValueError) as error:  # pyarrow's errors are both
        raise failure(target, error, "cannot write") from None


def write_text_atomic(path: PathInput, text: str) -> None:
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


def write_json_atomic(path: PathInput, value: Any) -> None:
    """Write ``value`` as strict, indented JSON (see :func:`dumps`), atomically."""
    write_text_atomic(path, dumps(value) + "\n")


@contextlib.contextmanager
def study_folder(path: StorePath) -> Iterator[bool]:
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
    p = Path(path)  # a file the user gives on this machine
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


def file_digest(path: PathInput) -> dict[str, Any]:
    """``{"bytes": size, "sha256": hex}`` of a file as it is on disk (or in the store) now."""
    h = hashlib.sha256()
    size = 0
    with location(path).open("rb") as handle:
        while block := handle.read(_CHUNK):
            h.update(block)
            size += len(block)
    return {"bytes": size, "sha256": h.hexdigest()}


def verify_file(path: PathInput, digest: Mapping[str, Any]) -> None:
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
