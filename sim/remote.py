"""Results in an object store: a path in S3, used as a ``Path``.

``--out s3://bucket/prefix`` (with options in the query: ``s3://bucket/prefix?
endpoint_override=HOST:PORT&scheme=http&region=REGION&timeout=SECONDS``) puts a study's
whole folder in that store, through pyarrow's S3 client. :class:`RemotePath` offers the
part of ``pathlib.Path`` the study code uses (``/``, ``name``, ``parent``, ``exists``,
``iterdir``, ``glob``, ``read_bytes``, ``open``, ``unlink``, ...), so that the run
directory, the experiment store and the readers work on either without a branch of their
own; ``sim.store`` writes through it (:func:`sim.store.location` turns ``--out`` text into
a ``Path`` or a ``RemotePath``).

Only ``s3://`` and ``file://`` are accepted, and a URI is refused before pyarrow sees it:
pyarrow's other schemes (``gs://``, ``hdfs://``, ...) may look for credentials or a JVM on
the network for minutes before they fail. A store that does not answer within the
``timeout`` (:data:`TIMEOUT` seconds by default; one retry) is reported as such, naming
its endpoint: a study never waits minutes on an unreachable store.

Why the writes are still atomic: an object store has no rename, but an object becomes
visible only once its upload is complete. A write here makes the file in memory and
uploads it as one object (one PUT below the store's part size, a multipart upload that
appears whole on completion above it), so a reader sees the old object or the new one,
never a torn one, and a killed writer leaves nothing.

:class:`RemotePath` also carries the storage interface ``sim.store.LocalPath`` offers for
local files (``write_atomic``, ``make_folder``, ``unwritable``, ``remove_tree``,
``arrow_source``, ``reason``, ``hold_lock``, ``lock_is_held``, ``folder_text``):
``sim.store`` and the run directory call those and never ask which store a path is in.

The text of a path is its URI with the query (``str(path)``): a Ray worker rebuilds the
same path (and file system) from it, its credentials coming from its own environment as
pyarrow reads them (``AWS_ACCESS_KEY_ID``, ``.aws/credentials`` in the home folder, an
instance role). Credentials do not belong in the URI: the URI is printed and stored in
every manifest, so a URI that carries any (``user:secret@``, ``?secret_key=``) is refused,
and every message shows it masked (:func:`mask`).

``file:///abs/path`` is an ordinary local folder (:func:`parse` returns a ``Path``): local
files keep their temporary-file-and-rename writes and their OS lock.
"""

from __future__ import annotations

import contextlib
import fnmatch
import json
import os
import re
import secrets
import socket
import threading
from collections.abc import Iterator
from pathlib import Path, PurePosixPath
from typing import Any
from urllib.parse import parse_qsl, quote, unquote, urlsplit

import pyarrow as pa
import pyarrow.fs as pafs

__all__ = ["ALLOWED", "TIMEOUT", "RemotePath", "URIError", "mask", "parse", "reason"]

ALLOWED = (
    "a folder, file:///ABSOLUTE/PATH, or s3://BUCKET/PREFIX (options: "
    "?endpoint_override=HOST:PORT&scheme=http&region=REGION&timeout=SECONDS)"
)
TIMEOUT = 5.0  # seconds a store has to connect, and at most silent in a request
_ATTEMPTS = 2  # tries of each request: one retry rides out a blip, not a dead store
# The query options of an s3:// URI: pyarrow.fs.S3FileSystem's own names (and ``timeout``)
_OPTIONS = ("endpoint_override", "scheme", "region", "timeout", "allow_delayed_open",
            "tls_ca_file_path")  # fmt: skip
# Userinfo (``user:secret@``) and query values whose name says they are secret
_USERINFO = re.compile(r"(?<=://)[^/?#@]*@")
_SECRET_VALUE = re.compile(
    r"(?i)(?<=[?&;])([^=&#;]*(?:key|secret|token|password|passwd|credential|signature)"
    r"[^=&#;]*)=[^&#;]*"
)
_LOCK = threading.Lock()
# (bucket, query) -> the file system (made once per process: see _file_system)
_FILE_SYSTEMS: dict[tuple[str, str], Any] = {}


class URIError(ValueError):
    """A URI rummy cannot keep results at (one line: the URI masked, and why).
    :func:`sim.store.location` raises it as a ``sim.store.StorageError``."""


def mask(text: str) -> str:
    """``text`` with every credential a URI in it may carry replaced by ``***``:
    ``s3://***@bucket/x?secret_key=***``."""
    return _SECRET_VALUE.sub(r"\1=***", _USERINFO.sub("***@", text))


def _options(query: str, shown: str = "") -> dict[str, Any]:
    """An s3:// URI's query as ``pyarrow.fs.S3FileSystem`` keywords (and ``timeout``).

    Raises
    ------
    URIError
        One line naming the URI (``shown``, masked) and the option that cannot be used.
    """

    def refuse(why: str) -> URIError:
        return URIError(f"{shown!r}: {why}; give {ALLOWED}")

    found: dict[str, str] = {}
    for name, value in parse_qsl(query, keep_blank_values=True):
        if name not in _OPTIONS:
            raise refuse(f"unknown option {name!r} (the options: {', '.join(_OPTIONS)})")
        if name in found:
            raise refuse(f"option {name!r} given twice")
        if not value:
            raise refuse(f"option {name!r} has no value")
        found[name] = value
    options: dict[str, Any] = {**found, "allow_delayed_open": True, "timeout": TIMEOUT}
    if found.get("scheme", "https") not in ("http", "https"):
        raise refuse(f"scheme={found['scheme']!r}: give http or https")
    if "allow_delayed_open" in found:
        if found["allow_delayed_open"] not in ("true", "false"):
            raise refuse("allow_delayed_open: give true or false")
        options["allow_delayed_open"] = found["allow_delayed_open"] == "true"
    if "timeout" in found:
        try:
            options["timeout"] = float(found["timeout"])
        except ValueError:
            options["timeout"] = -1.0
        if not 0 < options["timeout"] <= 3600:
            raise refuse(f"timeout={found['timeout']!r}: give seconds, above 0, at most 3600")
    return options


def _file_system(bucket: str, query: str) -> Any:
    """The S3 file system of a bucket and a URI's options: made once per process (a
    client resolves its region and credentials when made; a study parses the same URI
    for every chunk).

    S3 starts a multipart upload when a file is opened, unless told to wait: with
    ``allow_delayed_open`` a file smaller than a part is one PutObject (one request
    instead of three, and no upload left behind by a killed writer). The timeouts and the
    short retry make a store that does not answer fail in seconds, not minutes.
    """
    with _LOCK:
        found = _FILE_SYSTEMS.get((bucket, query))
        if found is None:
            options = _options(query)
            timeout = options.pop("timeout")
            if "region" not in options and "endpoint_override" not in options:
                options["region"] = pafs.resolve_s3_region(bucket)  # as from_uri does
            found = _FILE_SYSTEMS[bucket, query] = pafs.S3FileSystem(
                **options,
                connect_timeout=timeout,
                request_timeout=timeout,  # on Linux: at most this long without a byte
                retry_strategy=pafs.AwsStandardS3RetryStrategy(max_attempts=_ATTEMPTS),
            )
    return found


def reason(error: BaseException, path: RemotePath | None = None) -> str:
    """Why a store call failed, in words: pyarrow's AWS messages carry the operation, the
    key and a request id; the sentence the store sent is what a user needs. With the
    ``path`` it was about, a store that did not answer is named by its endpoint."""
    text = str(error).strip().splitlines()[0] if str(error).strip() else type(error).__name__
    text = mask(text)
    endpoint = f" (endpoint {path.endpoint})" if path is not None else ""
    curl = re.search(r"curlCode: (\d+)", text)
    if curl and curl.group(1) == "28":  # curl's timeout: connecting, or a silent store
        within = f"within {path.timeout:g} s" if path is not None else "in time"
        return f"the store did not answer {within}{endpoint}"
    if curl and curl.group(1) in ("6", "7"):  # no such host; nothing listens, no route
        why = "its host name does not resolve" if curl.group(1) == "6" else "cannot connect"
        return f"the store is unreachable{endpoint}: {why}"
    bucket = re.search(r"Bucket '([^']*)' not found", text)
    if bucket:  # pyarrow's tip (allow_bucket_creation) would make one by mistake
        at = f"at {path.endpoint}" if path is not None else "there"
        return f"no bucket {bucket.group(1)!r} {at} (create it first: rummy makes no buckets)"
    found = re.search(
        r"AWS Error (\w+)(?: \(HTTP status (\d+)\))? during \w+ operation: ?([^(]*)", text
    )
    if found:
        code, status, words = found.group(1), found.group(2), found.group(3).strip()
        if not words or words.startswith("No response body"):  # a HEAD request's answer
            words = (
                f"the store answered HTTP {status} with no message"
                if status
                else code.replace("_", " ").lower()
            )
        if status in ("401", "403") or any(
            word in code for word in ("ACCESS_DENIED", "ACCESS_KEY", "SIGNATURE", "TOKEN")
        ):
            words += " (check the credentials in this environment, e.g. AWS_ACCESS_KEY_ID)"
        return words
    if isinstance(error, OSError) and not isinstance(error, pa.ArrowException) and error.strerror:
        return error.strerror
    return text


def parse(text: str) -> Path | RemotePath:
    """A URI as a path: ``file:///abs`` a local ``Path``, ``s3://bucket/prefix`` a
    :class:`RemotePath`. Nothing is asked of the store yet.

    Raises
    ------
    URIError
        One line naming the value (masked) and what is allowed: a relative ``file://``
        URI, another scheme, credentials in the URI, an option that cannot be used, a URI
        without a bucket.
    """
    parts = urlsplit(text)
    scheme = parts.scheme.lower()
    shown = mask(text)
    if scheme == "file":
        if parts.netloc not in ("", "localhost") or not parts.path.startswith("/"):
            raise URIError(f"{shown!r} is not an absolute file URI; give {ALLOWED}")
        return Path(unquote(parts.path))
    if scheme != "s3":  # refused before pyarrow, which may wait minutes on the network
        what = f"{scheme}://" if scheme else "a URI without a scheme"
        raise URIError(f"{shown!r}: rummy cannot keep results in {what}; give {ALLOWED}")
    if shown != text:
        raise URIError(
            f"{shown!r}: credentials do not belong in the URI (it is printed and stored in "
            "every manifest); give them in the environment (AWS_ACCESS_KEY_ID, "
            "AWS_SECRET_ACCESS_KEY, AWS_SESSION_TOKEN) or in .aws/credentials"
        )
    if not parts.netloc:
        raise URIError(f"{shown!r} names no bucket; give {ALLOWED}")
    _options(parts.query, shown)  # its mistakes now, in one line, before any request
    key = f"{parts.netloc}{unquote(parts.path)}"
    return RemotePath(scheme, parts.netloc, parts.query, key.rstrip("/"))


class RemotePath:
    """A file or folder in S3 (pyarrow's S3 file system), with ``pathlib.Path``'s manners.

    No ``__fspath__``: handing one to ``open`` or ``os`` by mistake fails at once
    instead of making a local folder named ``s3:``.
    """

    __slots__ = ("_key", "_netloc", "_query", "_scheme")

    def __init__(self, scheme: str, netloc: str, query: str, key: str) -> None:
        self._scheme, self._netloc, self._query, self._key = scheme, netloc, query, key

    # --- names -------------------------------------------------------------------------------

    @property
    def filesystem(self) -> Any:
        """The ``pyarrow.fs`` file system (for pyarrow readers: ``filesystem=``)."""
        return _file_system(self._netloc, self._query)

    @property
    def endpoint(self) -> str:
        """Where the store is, for messages: ``http://HOST:PORT``, or ``AWS S3``."""
        options = _options(self._query)
        where = options.get("endpoint_override")
        if where is None:
            return "AWS S3" + (f" {options['region']}" if "region" in options else "")
        return where if "://" in where else f"{options.get('scheme', 'https')}://{where}"

    @property
    def timeout(self) -> float:
        """Seconds the store has to answer (the URI's ``timeout``, or :data:`TIMEOUT`)."""
        return float(_options(self._query)["timeout"])

    @property
    def key(self) -> str:
        """The path inside :attr:`filesystem` (``bucket/prefix/...`` for S3)."""
        return self._key

    def __str__(self) -> str:
        key = quote(self._key, safe="/")  # parse() reads it back (pyarrow unquotes too)
        return f"{self._scheme}://{key}" + (f"?{self._query}" if self._query else "")

    def __repr__(self) -> str:
        return f"RemotePath({str(self)!r})"

    def __reduce__(self) -> tuple[Any, tuple[str, str, str, str]]:
        return RemotePath, (self._scheme, self._netloc, self._query, self._key)

    def __eq__(self, other: object) -> bool:
        return isinstance(other, RemotePath) and str(self) == str(other)

    def __hash__(self) -> int:
        return hash(str(self))

    def __truediv__(self, name: str | PurePosixPath) -> RemotePath:
        return self._at(f"{self._key}/{name}")

    def _at(self, key: str) -> RemotePath:
        return RemotePath(self._scheme, self._netloc, self._query, key)

    @property
    def name(self) -> str:
        return PurePosixPath(self._key).name

    @property
    def stem(self) -> str:
        return PurePosixPath(self._key).stem

    @property
    def suffix(self) -> str:
        return PurePosixPath(self._key).suffix

    @property
    def parent(self) -> RemotePath:
        return self._at(str(PurePosixPath(self._key).parent))

    @property
    def parents(self) -> list[RemotePath]:
        """The folders above, nearest first, up to the bucket."""
        above = []
        path = self
        while "/" in path.key:
            path = path.parent
            above.append(path)
        return above

    def with_name(self, name: str) -> RemotePath:
        return self.parent / name

    def resolve(self) -> RemotePath:
        return self  # already absolute: every process that rebuilds it finds the same object

    absolute = expanduser = resolve

    # --- queries -----------------------------------------------------------------------------

    def _type(self) -> Any:
        return self.filesystem.get_file_info(self._key).type

    def exists(self) -> bool:
        return bool(self._type() != pafs.FileType.NotFound)

    def is_dir(self) -> bool:
        """True when objects lie under it (an object store has no empty folders)."""
        return bool(self._type() == pafs.FileType.Directory)

    def is_file(self) -> bool:
        return bool(self._type() == pafs.FileType.File)

    def is_symlink(self) -> bool:
        """False: an object store has no links."""
        return False

    def iterdir(self) -> Iterator[RemotePath]:
        selector = pafs.FileSelector(self._key, allow_not_found=False, recursive=False)
        try:
            infos = self.filesystem.get_file_info(selector)
        except FileNotFoundError:
            raise FileNotFoundError(f"{self}: no such folder") from None
        for info in sorted(infos, key=lambda i: i.path):
            yield self._at(info.path)

    def glob(self, pattern: str) -> Iterator[RemotePath]:
        """The children whose name matches ``pattern`` (one level: what the runs use)."""
        if "/" in pattern:
            head, rest = pattern.split("/", 1)
            for child in self.glob(head):
                yield from child.glob(rest)
            return
        selector = pafs.FileSelector(self._key, allow_not_found=True, recursive=False)
        for info in sorted(self.filesystem.get_file_info(selector), key=lambda i: i.path):
            if fnmatch.fnmatchcase(PurePosixPath(info.path).name, pattern):
                yield self._at(info.path)

    # --- reading and writing -----------------------------------------------------------------

    def open(self, mode: str = "rb") -> Any:
        """A stream to read (``"rb"``); writes go through :meth:`write_bytes`, whole."""
        if mode != "rb":
            raise ValueError(f"{self}: open it to read ('rb'); write it with write_bytes")
        return self.filesystem.open_input_stream(self._key)

    def read_bytes(self) -> bytes:
        with self.open() as stream:
            return bytes(stream.read())

    def read_text(self, encoding: str = "utf-8") -> str:
        return self.read_bytes().decode(encoding)

    def write_bytes(self, data: bytes | memoryview | Any) -> None:
        """Upload ``data`` as one object: it appears whole, or not at all."""
        with self.filesystem.open_output_stream(self._key) as stream:
            stream.write(data)

    def write_text(self, text: str, encoding: str = "utf-8") -> None:
        self.write_bytes(text.encode(encoding))

    def mkdir(self, parents: bool = True, exist_ok: bool = True) -> None:
        """Check the bucket is there and writable (an object store needs no folders; the
        marker pyarrow leaves makes an empty run directory visible to ``is_dir``)."""
        del parents, exist_ok  # an object store makes every parent; nothing to refuse
        self.filesystem.create_dir(self._key, recursive=True)

    def unlink(self, missing_ok: bool = False) -> None:
        try:
            self.filesystem.delete_file(self._key)
        except FileNotFoundError:
            if not missing_ok:
                raise

    def rmdir(self) -> None:
        if any(True for _ in self.iterdir()):
            raise OSError(f"{self}: folder not empty")
        self.filesystem.delete_dir(self._key)

    # --- the storage interface (sim.store.LocalPath's) --------------------------------------

    write_atomic = write_bytes  # one upload: the object appears whole or not at all

    def make_folder(self) -> bool:
        """Check the bucket is there and writable; True when nothing lay under this
        folder before. Fails on a missing bucket, no credentials, no permission."""
        existed = self.is_dir()
        self.mkdir()
        return not existed

    def unwritable(self) -> str | None:
        """None: :meth:`make_folder` has checked the bucket can be written."""
        return None

    def remove_tree(self) -> None:
        """Delete this folder and every object under it."""
        self.filesystem.delete_dir(self._key)

    def arrow_source(self) -> tuple[str, Any]:
        """``(key, filesystem)`` for pyarrow's readers."""
        return self._key, self.filesystem

    def reason(self, error: BaseException) -> str:
        """Why an operation on this path failed, in words (:func:`reason`)."""
        return reason(error, self)

    @contextlib.contextmanager
    def hold_lock(self) -> Iterator[None]:
        """Hold this lock object (:func:`acquire`, exclusive only as far as it can be).

        Raises
        ------
        BlockingIOError
            Another live process holds it (its host and pid in the message, and what to
            do if that process is gone: a lock object outlives a killed holder).
        """
        try:
            mine = acquire(self)
        except BlockingIOError as holder:
            raise BlockingIOError(
                f"{holder}; if none is playing it any more, delete {self} and run again"
            ) from None
        try:
            yield
        finally:
            release(self, mine)

    def lock_is_held(self) -> bool:
        """Whether a live process holds this lock object now."""
        try:
            return lock_holder(self) is not None
        except OSError:
            return False

    @property
    def folder_text(self) -> str:
        """The folder as a person types it: its URI."""
        return str(self)


# --- the run lock ------------------------------------------------------------------------------
# An object store has no exclusive create and no lock that dies with its process: the lock
# object says who holds the run (host, pid, a random token), is read back after it is
# written (a writer that lost a race sees the other's token and stops), and is deleted
# only by its holder. Two writers that start within one round trip of each other can both
# win; a writer killed on another host leaves its lock until someone deletes it.


def _holder() -> dict[str, Any]:
    return {"host": socket.gethostname(), "pid": os.getpid(), "token": secrets.token_hex(8)}


def lock_holder(lock: RemotePath) -> dict[str, Any] | None:
    """Who holds ``lock`` now: None when it is absent, or its holder's process ended
    (a process of this host that no longer exists)."""
    try:
        holder = json.loads(lock.read_bytes())
    except FileNotFoundError:
        return None
    except (ValueError, UnicodeDecodeError):
        return {"host": "?", "pid": "?", "token": "?"}  # damaged: someone else's
    if not isinstance(holder, dict):
        return {"host": "?", "pid": "?", "token": "?"}
    if holder.get("host") == socket.gethostname() and isinstance(holder.get("pid"), int):
        try:
            os.kill(holder["pid"], 0)
        except ProcessLookupError:
            return None  # killed (even with kill -9): the lock is stale
        except PermissionError:
            pass  # alive, another user's
    return holder


def acquire(lock: RemotePath) -> dict[str, Any]:
    """Write this process's claim on ``lock``; the holder dict on success.

    Raises
    ------
    BlockingIOError
        Another live process holds it (its host and pid in the message).
    """
    holder = lock_holder(lock)
    if holder is not None:
        raise BlockingIOError(f"host {holder.get('host')} pid {holder.get('pid')}")
    mine = _holder()
    lock.write_bytes(json.dumps(mine).encode())
    found = lock_holder(lock) or {}
    if found.get("token") != mine["token"]:  # another writer's claim came after ours
        raise BlockingIOError(f"host {found.get('host')} pid {found.get('pid')}")
    return mine


def release(lock: RemotePath, mine: dict[str, Any]) -> None:
    """Delete ``lock`` if it still holds this process's claim."""
    try:
        if json.loads(lock.read_bytes()).get("token") == mine["token"]:
            lock.unlink(missing_ok=True)
    except (OSError, ValueError):
        pass  # gone or damaged: not ours to delete
