"""Chunks on a Ray cluster: connect, ship and check the code, compile once per node, one queue.

``sim.study.execute`` hands :func:`play` the chunks of every run of a study when
``backend="ray"``; it yields each chunk's result as it comes back, as the thread pool
does, and the driver writes what the workers did not.

Connecting
    With an address (``--address ADDR`` or ``auto``) or ``RAY_ADDRESS`` set (a head
    started with ``ray start``, a job of ``ray job submit``) this process attaches to
    that cluster and passes it no resources (Ray refuses them when attaching); without
    either it starts a private instance of ``workers`` CPUs on this machine and stops it
    afterwards (a new one, even where a head of ``ray start`` runs on this machine). A
    caller that called ``ray.init`` itself keeps its connection. Chunks in flight: twice
    ``workers``, by default twice the cluster's CPUs. The workers' output stays on their
    nodes (Ray's log folder) unless ``RUMMY_RAY_LOGS=1``.

Tokens
    Ray (2.60 here) guards a cluster with a token when its head has one: ``RAY_AUTH_TOKEN``,
    the file named by ``RAY_AUTH_TOKEN_PATH``, or ``~/.ray/auth_token``. Ray sends it
    only when ``RAY_AUTH_MODE=token``, and, attaching to an address, never turns that on
    by itself: rummy does, for its connection, when ``RAY_AUTH_MODE`` is unset and the
    head refuses a call without a token (not otherwise: a driver in token mode requires
    the token of the workers that call it back, which an open head does not give them).
    A head that refuses the token, or its absence, is one line, at once: one call to the
    head with the token, before ``ray.init`` (which tries 20 times, a second apart). A
    private instance without a token on this machine gets one of its own, in the
    environment of its processes only, where Ray would write one into ``~/.ray`` (which
    would then turn token authentication on for every later ``ray start --head`` of
    this user).

Orphans
    Ray stops a private instance's processes when this process dies, but not all of them
    (its dashboard and runtime-env agents hang on after a ``kill -9``). On Linux a
    watchdog process, in a session of its own (a Ctrl-C is not for it), waits for this
    one to end and then kills every process that still holds a file of the instance's
    session folder open. Once a private instance has stopped, what its workers were
    writing (``.*.tmp`` in the run directories) is removed. On a connection of rummy's
    the tasks in flight are not cancelled when the study stops: ending the connection
    ends the job and them (Ray 2.60's driver may abort on a task cancelled as it ends).

Signals
    ``ray.init`` sets Ray's own SIGTERM handlers: in Python, ``sys.exit(15)`` (not set
    here), and in its C++ core a failure handler that prints a stack dump (``*** SIGTERM
    received ***``); ``ray.shutdown`` resets SIGTERM to the default. This process's own
    handler (the command's: one line, exit 143) is put back after each, and what Ray
    prints while it connects is held back, so that a signal meanwhile says nothing but
    the command's line; a start that a signal stops is shut down.

Code
    Every task carries the driver's source digests (``provenance.code_digests``): a
    worker whose own differ refuses to play, in one line naming its node, so that no
    node stamps other numbers with this run's label. When this process attaches to a
    cluster the code travels with its job (``ray.init(runtime_env=...)``: Ray takes a
    job's code when it connects, and refuses local paths in a task's own
    ``runtime_env``): the ``sim``, ``kernels`` and ``strategies`` packages and the
    package of every plugin seated, copied side by side into one folder shipped as the
    job's ``working_dir``. Side by side, because the digests hash each package's files
    by their path from the folder that holds ``kernels`` (``py_modules`` would unpack
    each package in a folder of its own); a copy of the packages alone, because a
    working directory ships whatever the folder holds (results, data). A private
    instance runs on this machine and its workers import the files this process
    imported; a connection the caller made with its own ``ray.init`` ships nothing.
    ``RUMMY_RAY_CODE=ship`` always ships, ``installed`` never (nodes with rummy-sim
    installed, e.g. from a container image). Inside ``ray job submit`` the job's own
    ``--working-dir`` would conflict: rummy ships its code, give none.

Compiling
    Before a chunk is dispatched, one task per node (pinned there) checks the code and
    loads every engine the study needs, compiling it into the node's numba cache (the
    folder of ``kernels/__init__.py``: ``NUMBA_CACHE_DIR`` of the node's Ray processes,
    by default ``.cache/rummy-sim`` in the home folder, one for all the workers of a
    node). The node's other workers then load the engine from that cache instead of all
    compiling it at once.
    The slowest node's time is reported as a note of each run.

Results
    The driver leaves a hidden marker in each run directory; a worker that finds it
    sees the directory (this machine, a file system every node mounts, or the object
    store of ``--out s3://...``, reached through the same URI with the worker's own
    credentials) and writes the chunk's Parquet parts there itself, returning only their
    digests, and the driver writes the chunk's record. A worker that does not find it returns the
    tables, which the driver writes. The bytes are the same either way.
    ``RUMMY_RAY_WORKERS_WRITE=0`` makes the driver write everything.

Faults
    Ray retries a task whose worker or node died (``max_retries``); a chunk that still
    fails (a lost object, a worker killed for memory) is played once more by this
    runner; after that, or on any other failure of Ray itself, the study stops with one
    line naming the command that finishes it. Every chunk written so far is kept.
"""

from __future__ import annotations

import contextlib
import importlib
import json
import os
import secrets
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import threading
import time
import warnings
from collections.abc import Callable, Generator, Iterable, Iterator, Sequence
from pathlib import Path
from typing import Any, NamedTuple

from sim import store
from sim.store import StorePath, one_line
from sim.study import provenance as P
from sim.study.chunks import load_engine, run_chunk, write_parts
from sim.study.rundir import Layout, remove_temporaries
from sim.study.runs import Chunk, RunError

__all__ = [
    "CODE_ENV",
    "LOGS_ENV",
    "MISSING_RAY",
    "WRITE_ENV",
    "Job",
    "code_mode",
    "connected",
    "play",
]

CODE_ENV = "RUMMY_RAY_CODE"  # auto | ship | installed
WRITE_ENV = "RUMMY_RAY_WORKERS_WRITE"  # 0: the driver writes every part
LOGS_ENV = "RUMMY_RAY_LOGS"  # 1: the workers' output and logs on this terminal
MISSING_RAY = "backend 'ray' needs Ray: pip install 'rummy-sim[ray]'"
SHIPPED = ("sim", "kernels", "strategies")
_IN_FLIGHT_PER_CPU = 2  # keeps every worker busy while its last result travels back
_TASK_RETRIES = 2  # Ray's own retries of a task whose worker or node died
# Each ray.wait lists every task in flight: past this many, one listing collects every
# finished task, not just one (tens of thousands in flight on a large cluster).
_BATCH_FROM = 256
_REACH_TIMEOUT = 10.0  # seconds to wait for a cluster's address to answer
_MARKER = ".shared-{token}.tmp"  # ".tmp": a run's next start removes a stray one
# Ray's token authentication (Rays without it ignore these variables)
AUTH_MODE_ENV, TOKEN_ENV, TOKEN_PATH_ENV = "RAY_AUTH_MODE", "RAY_AUTH_TOKEN", "RAY_AUTH_TOKEN_PATH"
_REFUSED = ("InvalidAuthToken", "Unauthenticated")  # what Ray's core logs for a refused token
# Run by the watchdog's own interpreter: waits for the driver's end (EOF on its stdin, which
# only the driver holds), then kills what is left of the sessions the driver named.
_WATCHDOG = """
import os, signal, sys
driver = os.getppid()  # alive when it ends normally, still holding its Ray log
sessions = [line.strip() + "/" for line in sys.stdin if line.strip()]
for pid in (p for p in os.listdir("/proc") if p.isdigit() and int(p) not in (os.getpid(), driver)):
    try:
        fds = os.listdir(f"/proc/{pid}/fd")
        if any(os.readlink(f"/proc/{pid}/fd/{fd}").startswith(tuple(sessions)) for fd in fds):
            os.kill(int(pid), signal.SIGKILL)
    except OSError:  # gone meanwhile, or not ours to see
        pass
"""
_CODE_WORDS = {
    "source_digest": "the kernel or strategy sources, or numba/numpy/llvmlite",
    "tables_digest": "the sim modules that play and shape the tables",
    "plugin_digests": "a plugin strategy's package",
}


class Job(NamedTuple):
    """One run as the cluster sees it: what its chunks need and where they go."""

    payload: dict[str, Any]
    run_dir: StorePath  # absolute (a worker's current folder is not the driver's), or a URI
    layout: Layout


def _ray() -> Any:
    try:
        import ray
    except ImportError:
        raise RunError(MISSING_RAY) from None
    return ray


def worker_logs() -> bool:
    """``RUMMY_RAY_LOGS=1``: show what the workers print and log here (Ray's
    ``log_to_driver``; off by default: a study's progress bar is the driver's)."""
    value = os.environ.get(LOGS_ENV, "0") or "0"
    if value not in ("0", "1"):
        raise RunError(f"{LOGS_ENV}={value!r} is not allowed; choose 0 or 1")
    return value == "1"


def code_mode() -> str:
    """``RUMMY_RAY_CODE``: how the code reaches the workers (RunError when not valid)."""
    mode = os.environ.get(CODE_ENV, "auto") or "auto"
    if mode not in ("auto", "ship", "installed"):
        raise RunError(f"{CODE_ENV}={mode!r} is not allowed; choose auto, ship or installed")
    return mode


# --- on the workers ------------------------------------------------------------------------

_checked: set[str] = set()  # code digests this worker process already matched
_seen: dict[str, bool] = {}  # marker path -> whether this worker sees it


def _node() -> str:
    """This worker's node, in words: its address and the start of its Ray node id."""
    import ray

    node_id = ray.get_runtime_context().get_node_id()
    return f"{ray.util.get_node_ip_address()} (Ray node {node_id[:12]})"


def _check_code(payload: dict[str, Any]) -> None:
    """Refuse (RunError, one line naming the node) to play with code other than the
    driver's: the digests of every source that can change a table."""
    from strategies import parse_lineup

    expected = payload["code"]
    lineup = payload["config"]["lineup"]
    key = json.dumps([expected, lineup], sort_keys=True)
    if key in _checked:
        return
    seated = [strategy for strategy, _ in parse_lineup(lineup, len(lineup))]
    mine = P.code_digests(seated)
    for name in P.CODE_KEYS:
        if mine[name] != expected[name]:
            raise RunError(
                f"the Ray worker on {_node()} runs other code than this driver "
                f"({_CODE_WORDS[name]} differ: {mine[name]} there, {expected[name]} here); "
                f"install this version there, or ship it with {CODE_ENV}=ship"
            )
    _checked.add(key)


def _sees(marker: str | None) -> bool:
    """Whether this worker reaches the run directory: a folder it mounts, or the object
    store of an ``s3://`` ``--out`` (with credentials in its environment)."""
    if marker is None:
        return False
    if marker not in _seen:
        try:
            _seen[marker] = store.location(marker).exists()
        except (OSError, ValueError):  # no such store here, no credentials: the driver writes
            _seen[marker] = False
    return _seen[marker]


def _play_chunk(
    payload: dict[str, Any],
    index: int,
    first: int,
    n: int,
    run_dir: StorePath,
    layout: Layout,
    marker: str | None,
) -> dict[str, Any]:
    """A Ray task: check the code, play the chunk; write its parts when the run
    directory is visible here (then return only their digests)."""
    _check_code(payload)
    result = run_chunk(payload, index, first, n)
    if not _sees(marker):
        return result
    parts = write_parts(run_dir, layout, index, result["tables"])
    return {"chunk": index, "hands": result["hands"], "misses": result["misses"], "parts": parts}


def _warm_node(payloads: list[dict[str, Any]], markers: list[str]) -> dict[str, Any]:
    """A Ray task pinned to one node: check the code, load (or compile) the engines
    into the node's cache, say whether the node sees the run directories."""
    started = time.perf_counter()
    for payload in payloads:
        _check_code(payload)
    for payload in payloads:
        load_engine(payload)
    return {
        "node": _node(),
        "seconds": time.perf_counter() - started,
        "sees": sum(_sees(m) for m in markers),
    }


# --- on the driver --------------------------------------------------------------------------


_ours = False  # the connection held now was made by connected()


@contextlib.contextmanager
def connected(
    address: str | None = None, workers: int | None = None, plugins: Iterable[str] = ()
) -> Iterator[bool]:
    """Connect to Ray for the ``with`` block, shipping the code when attaching (see the
    module docstring), or keep the connection this process already has. Yields whether
    it started a private instance (stopped, every worker with it, at the block's end).

    ``plugins``: the top-level packages of plugin strategies to ship too. A connection
    made by the caller's own ``ray.init`` ships nothing (Ray takes a job's code when it
    connects): its workers must have the code, which every task checks.

    Raises RunError (one line) when Ray is missing, the cluster cannot be reached or
    refuses this machine's auth token (or its absence), or ``RUMMY_RAY_CODE=ship`` asks
    to ship through a connection made elsewhere.
    """
    global _ours
    ray = _ray()
    mode = code_mode()
    if ray.is_initialized():
        if mode == "ship" and not _ours:
            raise RunError(
                f"{CODE_ENV}=ship: Ray was connected before rummy could ship the code; "
                "do not call ray.init first, or ship the packages in its runtime_env"
            )
        yield False
        return
    where = address or os.environ.get("RAY_ADDRESS")
    options: dict[str, Any] = {
        "include_dashboard": False,
        "log_to_driver": worker_logs(),
        "logging_level": "warning",
    }
    if where is None:  # a private instance: its size is ours to give
        options["num_cpus"] = workers or os.cpu_count() or 1
    if where is not None:
        _check_reachable(where)
    ship = mode == "ship" or (mode == "auto" and where is not None)
    with contextlib.ExitStack() as stack:
        stack.enter_context(_auth_env(where))
        put_back_sigterm = stack.enter_context(_sigterm_kept(ray))  # last: after shutdown
        if ship:  # uploaded by ray.init: the copy is not needed afterwards (made only
            # here: a folder in /tmp is left behind by a kill -9, which nothing unwinds)
            staging = stack.enter_context(tempfile.TemporaryDirectory(prefix="rummy-ray-code-"))
            options["runtime_env"] = {"working_dir": _stage_code(Path(staging), plugins)}
        _init(ray, address, where, options, put_back_sigterm)
        if where is None:
            stack.enter_context(_watchdog(ray))
        stack.callback(put_back_sigterm)  # ray.shutdown resets it to the default
        stack.callback(ray.shutdown)  # first on the way out: then the watchdog, the token
        _ours = True
        try:
            yield where is None
        finally:
            _ours = False


def _init(
    ray: Any,
    address: str | None,
    where: str | None,
    options: dict[str, Any],
    put_back_sigterm: Callable[[], None],
) -> None:
    """``ray.init``, failures in one line. What Ray's core prints meanwhile is held
    back: shown once connected, read for a refused token if not, dropped if a signal
    stops it (its stack dump for a SIGTERM: its handler's, until ``put_back_sigterm``
    puts back the process's own, here). Stopped half-way, what it started is stopped."""
    failed: BaseException | None = None
    with _held_stderr() as said:
        try:
            with warnings.catch_warnings():  # rummy uses no accelerators: Ray's tip on them
                warnings.filterwarnings("ignore", "Tip: In future versions of Ray", FutureWarning)
                # "local": without it Ray attaches to the latest `ray start` head here
                ray.init(address="local" if where is None else address, **options)
            put_back_sigterm()
        except (ConnectionError, RuntimeError, TimeoutError, ValueError, OSError) as error:
            failed = error
        except ray.exceptions.RayError as error:  # AuthenticationError: no token at all
            failed = error
        except BaseException:  # an interrupt: no instance, no connection left behind
            with contextlib.suppress(Exception):
                ray.shutdown()
            raise
    text = "".join(said)
    if failed is None:
        sys.stderr.write(text)
        return
    if where is None:
        raise RunError(f"cannot start Ray here: {one_line(failed)}") from None
    no_token = getattr(ray.exceptions, "AuthenticationError", ())  # Rays without tokens: none
    if any(word in text for word in _REFUSED) or isinstance(failed, no_token):
        raise RunError(f"the Ray cluster at {where} refused the connection: {_token_words()}")
    raise RunError(f"cannot connect to the Ray cluster at {where}: {one_line(failed)}")


@contextlib.contextmanager
def _sigterm_kept(ray: Any) -> Iterator[Callable[[], None]]:
    """This process's SIGTERM handler (a command's: one line, exit 143) kept while it is
    connected to Ray, which sets its own: ``ray.init`` in Python, first thing
    (``sys.exit(15)``: the command ended with status 15, no line), here not set; its
    C++ core once connected (abseil's failure handler: a stack dump on stderr, ``***
    SIGTERM received ***``, then the handler before), replaced by what this yields
    (call it after ``ray.init``); ``ray.shutdown`` resets it to the default (the process
    dies at once, nothing unwinds), put back on the way out. Outside the main thread
    Ray sets none."""
    ours = signal.getsignal(signal.SIGTERM)
    if threading.current_thread() is not threading.main_thread() or ours is None:
        yield lambda: None  # None: a handler not set from Python, not ours to put back
        return
    utils = ray._private.utils
    setter = getattr(utils, "set_sigterm_handler", None)  # how Ray 2.x sets its own
    if setter is not None:
        utils.set_sigterm_handler = lambda handler: None

    def put_back() -> None:
        signal.signal(signal.SIGTERM, ours)

    try:
        yield put_back
    finally:
        if setter is not None:
            utils.set_sigterm_handler = setter
        signal.signal(signal.SIGTERM, ours)


@contextlib.contextmanager
def _held_stderr() -> Iterator[list[str]]:
    """What this process (Ray's core too) writes on stderr in the block, held back and
    appended to the list: Ray's core logs a refused token there."""
    said: list[str] = []
    with tempfile.TemporaryFile() as held:
        sys.stderr.flush()
        kept = os.dup(2)
        os.dup2(held.fileno(), 2)
        try:
            yield said
        finally:
            sys.stderr.flush()
            os.dup2(kept, 2)
            os.close(kept)
            held.seek(0)
            said.append(held.read().decode(errors="replace"))


def _refuses(where: str) -> bool:
    """Whether the head at ``where`` refuses this process's calls, with Ray's token
    settings as they stand (no token sent unless ``RAY_AUTH_MODE=token``): one call,
    which it answers at once (False when this Ray cannot ask). ``ray.init`` tries its
    own 20 times, a second apart (``RAY_NUM_REDIS_GET_RETRIES``), refused or not."""
    try:
        from ray._raylet import GcsClient  # type: ignore[attr-defined]  # no stubs: Ray's C core
        from ray.exceptions import AuthenticationError
    except ImportError:  # a Ray without token authentication
        return False
    with _held_stderr():
        try:
            GcsClient(address=where).internal_kv_get(b"rummy", None, timeout=_REACH_TIMEOUT)
        except AuthenticationError:
            return True
        except Exception:  # noqa: BLE001 - anything else is for ray.init to report
            return False
    return False


def _token_source() -> str | None:
    """Where Ray takes this machine's token from (its own order), or None: no token."""
    if os.environ.get(TOKEN_ENV):
        return TOKEN_ENV
    path = os.environ.get(TOKEN_PATH_ENV)
    if path:
        return f"{TOKEN_PATH_ENV}={path}"
    if (Path.home() / ".ray" / "auth_token").is_file():
        return "~/.ray/auth_token"
    return None


def _token_words() -> str:
    source = _token_source()
    if source is None:
        return (
            f"it requires an auth token (set {TOKEN_ENV} or {TOKEN_PATH_ENV}, or put it in "
            "~/.ray/auth_token; `ray get-auth-token` on the head prints it)"
        )
    return (
        f"it does not accept the auth token of {source}; use the head's "
        "(`ray get-auth-token` there prints it)"
    )


@contextlib.contextmanager
def _auth_env(where: str | None) -> Iterator[None]:
    """Ray's token settings for one connection (see the module docstring), restored
    afterwards, as is Ray's view of them (``ray.init`` of a private instance sets
    ``RAY_AUTH_MODE`` in this process for good). ``RAY_AUTH_MODE`` set by the user wins."""
    path = os.environ.get(TOKEN_PATH_ENV)
    if path and not Path(path).is_file():
        raise RunError(f"{TOKEN_PATH_ENV}={path} is not a file; name the file of the auth token")
    before = {name: os.environ.get(name) for name in (AUTH_MODE_ENV, TOKEN_ENV)}
    source = _token_source()
    if AUTH_MODE_ENV not in os.environ:
        # Only when the head requires it: a driver in token mode requires the token of
        # the workers that call it back, which a head without tokens gives them none of.
        if where is not None and _refuses(where):
            if source is None:
                raise RunError(f"the Ray cluster at {where} refused the connection: "
                               f"{_token_words()}")  # fmt: skip
            os.environ[AUTH_MODE_ENV] = "token"
        elif where is None:
            os.environ[AUTH_MODE_ENV] = "token"  # set, Ray does not warn that it turned it on
            if source is None:  # a token for this instance's processes alone
                os.environ[TOKEN_ENV] = secrets.token_hex(32)
    _reload_auth()
    try:
        if where is not None and os.environ.get(AUTH_MODE_ENV) == "token" and _refuses(where):
            raise RunError(f"the Ray cluster at {where} refused the connection: {_token_words()}")
        yield
    finally:
        for name, value in before.items():
            if value is None:
                os.environ.pop(name, None)
            else:
                os.environ[name] = value
        _reload_auth()


def _reload_auth() -> None:
    """Make Ray read the token settings again (it keeps what it read first); Rays
    without token authentication have nothing to reload."""
    with contextlib.suppress(ImportError, AttributeError):
        from ray._raylet import (  # type: ignore[attr-defined]  # no stubs: Ray's C core
            AuthenticationTokenLoader,
            Config,
        )

        Config.initialize("")
        AuthenticationTokenLoader.instance().reset_cache()


@contextlib.contextmanager
def _watchdog(ray: Any) -> Iterator[None]:
    """The watchdog of a private instance (Linux; see the module docstring): told the
    instance's session folder, it acts when this process ends, however it ends."""
    node = getattr(ray._private.worker, "_global_node", None)
    if not os.path.isdir("/proc") or node is None:
        yield
        return
    guard = subprocess.Popen(
        [sys.executable, "-c", _WATCHDOG], stdin=subprocess.PIPE, stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL, start_new_session=True,
    )  # fmt: skip
    try:
        assert guard.stdin is not None
        guard.stdin.write(f"{node.get_session_dir_path()}\n".encode())
        guard.stdin.flush()
        yield
    finally:
        guard.stdin.close()  # type: ignore[union-attr]
        with contextlib.suppress(subprocess.TimeoutExpired):
            guard.wait(timeout=_REACH_TIMEOUT)


def _check_reachable(where: str) -> None:
    """A ``host:port`` address that nothing answers on: one line now, where Ray would
    retry for minutes (``auto`` and ``ray://`` addresses are left to Ray)."""
    host, _, port = where.rpartition(":")
    if "://" in where or not host or not port.isdigit():
        return
    try:
        socket.create_connection((host.strip("[]"), int(port)), timeout=_REACH_TIMEOUT).close()
    except OSError as error:
        raise RunError(
            f"cannot reach the Ray cluster at {where} ({store.os_reason(error)}); start it "
            "with `ray start --head`, or check --address and RAY_ADDRESS"
        ) from None


def _stage_code(staging: Path, plugins: Iterable[str]) -> str:
    """Copy the source files of rummy-sim's packages and the plugins' side by side into
    ``staging``; its path (Ray zips it, by content: the same code, the same folder on a
    node, so the node's numba cache serves later studies too)."""
    for top in sorted({*SHIPPED, *plugins}):
        origin = Path(importlib.import_module(top).__file__ or "")
        if origin.name != "__init__.py":  # a one-file plugin module
            shutil.copy2(origin, staging / origin.name)
            continue
        for path in origin.parent.rglob("*.py"):
            target = staging / top / path.relative_to(origin.parent)
            target.parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(path, target)
    return str(staging)


def _cluster_cpus(ray: Any) -> int:
    cpus = int(ray.cluster_resources().get("CPU", 0))
    if cpus < 1:
        raise RunError("the Ray cluster has no CPUs to play chunks on")
    return cpus


def _engines(jobs: Sequence[Job]) -> list[dict[str, Any]]:
    """One payload per engine the study loads: the runs of a study differ mostly in
    parameters (data to the engine), not in rules, strategies or mode."""
    distinct: dict[str, dict[str, Any]] = {}
    for job in jobs:
        cfg = job.payload["config"]
        names = [seat.split(":")[0] for seat in cfg["lineup"]]
        key = json.dumps([cfg["mode"], cfg["rules"], names], sort_keys=True)
        distinct.setdefault(key, job.payload)
    return list(distinct.values())


def _failure(error: BaseException) -> BaseException | None:
    """The exception a chunk raised itself (re-raised as if played here), or None when
    Ray failed (a worker or node died, an object was lost, memory ran out)."""
    cause = getattr(error, "cause", None)
    if isinstance(cause, ImportError):  # the worker lacks the code (or a plugin)
        return RunError(
            f"a Ray worker on {getattr(error, 'ip', None) or 'a node'} cannot import "
            f"{cause.name or 'a module'} ({one_line(cause)}); install rummy-sim there, or "
            f"ship it with {CODE_ENV}=ship"
        )
    if isinstance(cause, Exception) and not isinstance(cause, MemoryError | OSError):
        return cause
    return None


def _warm(
    ray: Any, remote: Any, jobs: Sequence[Job], markers: list[str | None], notes: list[str]
) -> None:
    """One warm-up task per node with CPUs, pinned there; waits for all of them."""
    from ray.util.scheduling_strategies import NodeAffinitySchedulingStrategy

    nodes = [
        n["NodeID"]
        for n in ray.nodes()
        if n.get("Alive") and n.get("Resources", {}).get("CPU", 0) >= 1
    ]
    started = time.perf_counter()
    payloads = _engines(jobs)
    shown = [m for m in markers if m is not None]
    refs = []
    for node in nodes:
        pinned = NodeAffinitySchedulingStrategy(node, soft=False)
        refs.append(remote.options(scheduling_strategy=pinned).remote(payloads, shown))
    ready, lost, sees, why = [], 0, 0, ""
    for ref in refs:
        try:
            answer = ray.get(ref)
        except ray.exceptions.RayError as error:
            cause = _failure(error)
            if cause is not None:
                raise cause from None
            lost += 1  # the node died or left: the chunks go to the others
            why = one_line(error)
            continue
        ready.append(answer["seconds"])
        sees += answer["sees"] == len(shown) and bool(shown)
    if not ready:
        raise RunError(f"no node of the Ray cluster could load the engine: {why or 'no node'}")
    where = f"{sees} of {len(ready)}" if shown else "no"
    notes.append(
        f"Ray: engine ready on {len(ready)} node(s) in {time.perf_counter() - started:.1f} s "
        f"(slowest node {max(ready):.1f} s, compiled once per node); {where} node(s) "
        "write their parts themselves"
        + (f"; {lost} node(s) failed and were left out" if lost else "")
    )


def play(
    jobs: Sequence[Job],
    todo: Iterator[tuple[int, Chunk]],
    *,
    workers: int | None,
    address: str | None,
    resume_hint: str,
    notes: list[str],
) -> Generator[tuple[int, dict[str, Any]]]:
    """Play the chunks of ``todo`` (job index, chunk) on Ray; yield (job index, result).

    A result is :func:`sim.study.chunks.run_chunk`'s, or ``{"chunk", "hands",
    "parts"}`` when the worker wrote the parts itself. ``notes`` receives what the user
    should know (the compile time). Raises RunError (one line) when Ray cannot be
    reached or fails, ``resume_hint`` saying how to finish.
    """
    ray = _ray()
    plugins = {top for job in jobs for top in job.payload["code"]["plugin_digests"]}
    private = False
    try:
        with connected(address, workers, plugins) as private:
            yield from _play(ray, jobs, todo, workers, resume_hint, notes)
    finally:
        if private:  # its workers were stopped with it, some of them mid-write
            for job in jobs:
                remove_temporaries(job.run_dir)


def _play(
    ray: Any,
    jobs: Sequence[Job],
    todo: Iterator[tuple[int, Chunk]],
    workers: int | None,
    resume_hint: str,
    notes: list[str],
) -> Generator[tuple[int, dict[str, Any]]]:
    """:func:`play`, connected."""
    limit = (workers or _cluster_cpus(ray)) * _IN_FLIGHT_PER_CPU
    options: dict[str, Any] = {"num_cpus": 1, "max_retries": _TASK_RETRIES}
    token = secrets.token_hex(8)
    markers: list[str | None] = [None] * len(jobs)
    pending: dict[Any, tuple[int, Chunk, int]] = {}
    try:
        if os.environ.get(WRITE_ENV, "1") != "0":
            for i, job in enumerate(jobs):  # noted first: an interrupt may come mid-write
                marker = markers[i] = str(job.run_dir / _MARKER.format(token=token))
                store.write_text_atomic(marker, token)
        _warm(ray, ray.remote(**options)(_warm_node), jobs, markers, notes)
        task = ray.remote(**options)(_play_chunk)
        payloads: dict[int, Any] = {}

        def submit(i: int, chunk: Chunk, attempt: int) -> None:
            if i not in payloads:
                payloads[i] = ray.put(jobs[i].payload)
            job = jobs[i]
            ref = task.remote(payloads[i], *chunk, job.run_dir, job.layout, markers[i])
            pending[ref] = (i, chunk, attempt)

        while True:
            for i, chunk in todo:
                submit(i, chunk, 0)
                if len(pending) >= limit:
                    break
            if not pending:
                break
            refs = list(pending)
            ready, _ = ray.wait(refs, num_returns=1)
            if len(refs) >= _BATCH_FROM:  # every finished one for one listing
                ready, _ = ray.wait(refs, num_returns=len(refs), timeout=0)
            for ref in ready:
                i, chunk, attempt = pending.pop(ref)
                try:
                    result = ray.get(ref)
                except ray.exceptions.RayError as error:
                    cause = _failure(error)
                    if cause is not None:  # the chunk's own error, as when played here
                        raise cause from None
                    if attempt == 0:  # Ray gave up on it: this runner tries once more
                        submit(i, chunk, 1)
                        continue
                    raise RunError(
                        f"Ray failed twice on chunk {chunk[0]} of {jobs[i].run_dir} "
                        f"({one_line(error)}); the chunks written are kept: {resume_hint}"
                    ) from None
                yield i, result
    except (ray.exceptions.RayError, ConnectionError) as error:
        raise RunError(
            f"Ray failed ({one_line(error)}); the chunks written are kept: {resume_hint}"
        ) from None
    finally:
        # A stopped study leaves no work behind on the cluster: on a connection of
        # rummy's, ending it ends the job and its tasks (cancelling them first, Ray
        # 2.60's driver may abort: "Tried to complete task that was not pending").
        for ref in pending if not _ours else ():
            with contextlib.suppress(Exception):
                ray.cancel(ref)
        for written in markers:
            if written is not None:
                with contextlib.suppress(OSError):
                    store.location(written).unlink(missing_ok=True)
