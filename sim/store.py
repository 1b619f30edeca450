"""Files on disk: atomic writes, content digests, output folders.

Every file the project writes goes through :func:`write_bytes_atomic` (or the JSON
and text forms on top of it): the bytes go to a hidden temporary file beside the
target (``.NAME.<pid>.<host>-<hex>.tmp``; dataset readers skip names starting with a
dot), are flushed to disk, then renamed into place with ``os.replace``. A reader
therefore sees the old file or the complete new one, never a torn one, even after
``kill -9``. Only regular files are written: a rename never replaces a device, a FIFO or
a socket (``--out /dev/null`` as root would replace the machine's ``/dev/null``), and a
temporary file is removed by another writer only when it is provably stale (the process
that made it, on this host, has ended): two processes writing one file each finish
their own write.

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
:func:`refuse_record_path` before anything is written (nor on a device, a FIFO or a
socket, nor inside another study's folder), and a write onto a folder is refused before
its temporary file is made.

A study writes in its folder only while it holds the folder's lock (:func:`study_folder`,
``DIR/.lock``, as a run holds its own): a second process writing the same study is told
in one line that it is in use, before it writes anything.
"""

from __future__ import annotations

import contextlib
import errno
import hashlib
import json
import os
import re
import secrets
import shutil
import socket
import stat
import sys
import threading
from collections.abc import Iterator, Mapping
from pathlib import Path
from typing import TYPE_CHECKING, Any, TypeAlias

import numpy as np

from sim.study import kinds

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
    "json_text",
    "location",
    "make_dir",
    "one_line",
    "os_reason",
    "read_toml",
    "refuse_record_path",
    "special_file",
    "strict_json",
    "study_record_in",
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


def special_file(path: Any) -> str | None:
    """What ``path`` is, in words, when it is neither a regular file nor a folder
    (links followed): "a character device", "a FIFO (named pipe)"...; None otherwise,
    or when nothing is there (an object store holds only files)."""
    if not isinstance(path, Path):
        return None
    try:
        mode = os.stat(path).st_mode
    except OSError:  # absent, a dangling link, a folder not searchable: no device there
        return None
    for test, what in (
        (stat.S_ISCHR, "a character device"),
        (stat.S_ISBLK, "a block device"),
        (stat.S_ISFIFO, "a FIFO (named pipe)"),
        (stat.S_ISSOCK, "a socket"),
    ):
        if test(mode):
            return what
    return None


# This host in a temporary file's name, so that a writer removes only the temporaries
# that it can prove stale: those of an ended process of this host.
_HOST = hashlib.sha256(socket.gethostname().encode()).hexdigest()[:8]
# ``.NAME.<pid>.<host>-<hex>.tmp`` (older versions: ``.NAME.<pid>-<hex>.tmp``, this host)
_TEMPORARY = re.compile(r"\.(\d+)(?:\.([0-9a-f]{8}))?-[^.]+\.tmp$")


def _alive(pid: int) -> bool:
    """Whether process ``pid`` of this host is running (another user's counts)."""
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except (PermissionError, OverflowError, ValueError):
        return True  # another user's, or not a pid: never called stale
    return True


def _stale(name: str) -> bool:
    """Whether the temporary file ``name`` was left by a writer that has ended: made by
    this host's process whose pid it bears, and that process is gone."""
    found = _TEMPORARY.search(name)
    if found is None:
        return False
    pid, host = int(found[1]), found[2]
    return host in (None, _HOST) and pid != os.getpid() and not _alive(pid)


class LocalPath(_ConcretePath):
    """A file or folder on this machine: a ``pathlib.Path`` with the storage interface
    that ``sim.remote.RemotePath`` offers for an object store (paths made from it with
    ``/``, ``parent`` or ``with_name`` are LocalPaths too)."""

    def write_atomic(self, data: bytes | memoryview | Any) -> None:
        """Write ``data`` to a hidden temporary file beside this one, flush it to disk and
        rename it into place; on any failure the temporary file is gone too. Only a
        regular file (or nothing) is replaced: never a device, a FIFO or a socket."""
        if self.is_dir():
            raise IsADirectoryError(errno.EISDIR, "it is a folder; give a file's name")
        special = special_file(self)
        if special is not None:
            raise OSError(errno.EPERM, f"it is {special}; give the path of a regular file")
        tmp = self.with_name(f".{self.name}.{os.getpid()}.{_HOST}-{secrets.token_hex(4)}.tmp")
        try:
            with open(tmp, "wb") as handle:
                handle.write(data)
                handle.flush()
                os.fsync(handle.fileno())
            os.replace(tmp, self)
        except BaseException:
            tmp.unlink(missing_ok=True)
            raise
        # Temporaries of writers killed mid-write; another live writer's is its own (it
        # renames it in a moment: deleting it would fail that write).
        for stale in self.parent.glob(f".{self.name}.*.tmp"):
            if _stale(stale.name):
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
                if not _is_file_at(handle, self):  # its holder removed it as it let go
                    raise BlockingIOError()
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


def _is_file_at(handle: Any, path: Path) -> bool:
    """Whether the open file ``handle`` is still the file at ``path`` (a lock file
    removed, or removed and made again, since it was opened is not)."""
    try:
        found, held = os.stat(path), os.fstat(handle.fileno())
    except OSError:
        return False
    return (found.st_dev, found.st_ino) == (held.st_dev, held.st_ino)


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
# sim/study/records.py, a solve's: sim/study/solve.py), as each study kind declares it.
RUN_MANIFEST = kinds.RUN.records[0]
RECORD_NAMES = tuple(dict.fromkeys(name for kind in kinds.KINDS for name in kind.records))
STUDY_RECORDS = tuple(name for name in RECORD_NAMES if name != RUN_MANIFEST)
# Such a folder's own files besides: a run's chunk records, table parts and lock, a
# solve's final seat; and every record (.json) and table (.parquet) in it.
OWN_NAMES = frozenset({"chunks", "hands", "games", "summary", "cells", ".lock", "final.chart"})
_OWN_SUFFIXES = (".json", ".parquet")
_SEAL = "sha256"  # the key of a sealed record's own digest (sim.study.records.SEAL)


def _names_in(folder: Any) -> set[str]:
    """The names in ``folder`` (none when it is not a folder)."""
    try:
        return {child.name for child in folder.glob("*")}
    except (NotADirectoryError, FileNotFoundError):
        return set()


def study_record_in(folder: Any) -> str | None:
    """The name of the study record ``folder`` holds (``experiment.json``, ...), or None:
    a file of such a name that is a sealed JSON record (``records.write_sealed``), so
    that a ``request.json`` of the user's own is no study."""
    for name in STUDY_RECORDS:
        path = folder / name
        try:
            if path.is_file():
                value = json.loads(path.read_bytes())
                if isinstance(value, dict) and _SEAL in value:
                    return name
        except (OSError, ValueError):  # unreadable, not JSON: not a record we wrote
            continue
    return None


def _within(path: Any, folder: Any) -> bool:
    return path == folder or folder in path.parents


def refuse_record_path(
    path: PathInput, *, root: bool = False, owner: PathInput | None = None
) -> None:
    """Refuse to write at ``path`` when it is, or is inside, one of the own files of a run
    or a study folder (its manifest, chunk records, parts, records, tables), or when it
    is a device, a FIFO or a socket (or a link to one): every ``--out`` goes through here
    before anything is written. Other files in such a folder stay allowed (``rummy report
    RUN`` writes RUN/report.html, ``rummy chart RUN`` RUN/charts).

    ``root``: ``path`` is a results root, under which a study makes its own folders; it
    may not be a run's or a study's folder nor lie inside one either.

    ``owner``: the results the command reads (``rummy report PATH``); ``path`` may lie in
    a study's folder only when ``owner`` is that study or lies inside it (the report of
    one study is never written into another's folder).

    Raises
    ------
    StorageError
        One line naming the path and why it is refused.
    """
    given = location(path)
    target = given.resolve()  # "..", links: where the files would really go
    special = special_file(target)
    if special is not None:
        link = "" if str(target) == os.path.abspath(str(given)) else f" (a link to {target})"
        raise StorageError(
            f"{given} is {special}{link}: rummy writes only regular files and folders; "
            "give another path"
        )
    mine = None if owner is None else location(owner).resolve()
    try:
        if root and RUN_MANIFEST in _names_in(target):
            raise StorageError(
                f"{target} is a run folder: a results root holds runs, not the other way "
                "round; give another folder"
            )
        if root and (record := study_record_in(target)):
            raise StorageError(
                f"{target} is a study's folder (it holds {record}): a results "
                "root holds studies, not the other way round; give another folder"
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
            if (root or owner is not None) and names.intersection(STUDY_RECORDS):
                record = study_record_in(folder)
                if record and root:
                    raise StorageError(
                        f"{target} is inside the study folder {folder} (it holds {record}): "
                        "a results root holds studies, not the other way round; give "
                        "another folder"
                    )
                if record and mine is not None and not _within(mine, folder):
                    raise StorageError(
                        f"{target} is inside another study's folder ({folder}, not where "
                        f"{mine} is): rummy never writes into another study's folder; give "
                        "another path"
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
    return json_text(strict_json(value), indent=indent, sort_keys=sort_keys)


def json_text(value: Any, *, indent: int | None = 2, sort_keys: bool = True) -> str:
    """:func:`dumps` of a value :func:`strict_json` has already cleaned (cleaned once
    where one value is written twice: a record and its seal)."""
    return json.dumps(
        value,
        indent=indent,
        sort_keys=sort_keys,
        allow_nan=False,
        default=_json_default,
        ensure_ascii=False,
    )


def write_json_atomic(path: PathInput, value: Any) -> None:
    """Write ``value`` as strict, indented JSON (see :func:`dumps`), atomically."""
    write_text_atomic(path, dumps(value) + "\n")


# The study folders whose lock each thread of this process holds (see study_folder).
_HELD: set[tuple[str, int]] = set()
LOCK_NAME = ".lock"


@contextlib.contextmanager
def study_folder(path: StorePath) -> Iterator[bool]:
    """Make a study's folder (:func:`make_dir`), hold its lock (``PATH/.lock``) until
    the study's last write, and yield whether the folder is new.

    A second process writing the same folder is refused in one line before it writes
    anything. Within one thread the lock is taken once: a command that draws a study's
    charts holds it around the study and its charts (the study's own ``study_folder``
    then only yields). When the study fails, what this made is removed again, while the
    lock is still held (the lock file it made; the folder, when it is new and empty), so
    that a refused study leaves nothing behind.

    Raises
    ------
    StorageError
        ``PATH is in use by another rummy process``, or the folder cannot be made, written
        or locked (one line).
    """
    key = (str(path.resolve()), threading.get_ident())
    if key in _HELD:
        yield False
        return
    created = make_dir(path)
    lock = path / LOCK_NAME
    made_lock = created or not lock.exists()
    holding = False
    try:
        with lock.hold_lock():
            holding = True
            _HELD.add(key)
            try:
                yield created
            except BaseException:
                with contextlib.suppress(OSError):
                    if made_lock:
                        lock.unlink(missing_ok=True)
                    if created:
                        path.rmdir()  # only when nothing else is in it
                raise
            finally:
                _HELD.discard(key)
    except BlockingIOError as holder:
        if holding:
            raise
        whose = f" ({holder})" if str(holder) else ""  # an object store's lock says whose
        raise StorageError(f"{path} is in use by another rummy process{whose}") from None
    except OSError as error:
        if holding:
            raise
        raise failure(path, error, "cannot lock") from None


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
