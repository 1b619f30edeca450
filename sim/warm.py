"""Compile ahead, in parallel: before a kernel first runs, and ``rummy warm``.

Numba compiles a kernel at its first call. With the pieces of ``kernels/link.py`` what
a command runs is a few units that compile independently of one another: its entry
kernel (the engine's loop, a batch solver) and the pieces that kernel may call (the
solver, the showdown and its parts, a strategy's hooks). ``ensure`` runs before an
entry kernel: it loads every unit it can from the disk cache and compiles the rest,
in parallel when there is more than one (the entry in this process, the pieces shared
with helper processes that write the same cache), then fills the slots. Each unit
compiles once, for every later command and process. ``warm`` compiles everything a
user may run on every core (``rummy warm``); the modules that run an entry kernel
register how to compile it (``warm_entry``), so that this module imports none of them.

Which pieces a kernel may call is read from its code: the globals it names, through
the jitted functions it calls, down to the pieces (and from each piece, its own). A
piece reached some other way is still compiled at its first call (a slot binds
itself): this decides only what compiles ahead, never what runs.

Helpers are plain Python processes (``serve``) that read unit names on stdin and
answer each when it is compiled. Not ``multiprocessing``: its children import the
parent's ``__main__`` again, which would rerun a user's unguarded script. The process
that started them decides when they stop: they run in a process group of their own and
ignore SIGINT (a terminal's Ctrl-C reaches the parent alone), the parent kills them
mid-compile when it is interrupted or fails, and one whose parent dies (even by SIGKILL)
exits within a fraction of a second, without a word.
"""

from __future__ import annotations

import importlib
import os
import signal
import subprocess
import sys
import threading
import time
from collections import deque
from collections.abc import Callable, Iterable
from types import CodeType
from typing import Any, NamedTuple

from numba.core.dispatcher import Dispatcher

from kernels.link import Piece, load_cached, pieces

__all__ = [
    "ANY",
    "ENTRIES",
    "FIRST",
    "LAST",
    "Entry",
    "all_pieces",
    "compile_units",
    "ensure",
    "load_entries",
    "queue",
    "reachable_pieces",
    "warm",
    "warm_entry",
]

Progress = Callable[[str], None]  # called with a unit's name when it is compiled

_ready: set[tuple[Any, ...]] = set()  # entries ensured in this process
_lock = threading.Lock()
# Compile the pieces an entry may call before it runs, with helpers. False in a helper
# (the process that started it compiles them) and with RUMMY_PARALLEL_COMPILE=0 (every
# unit then compiles in this process, the pieces at their first call: for profiling).
_compile_pieces_ahead = os.environ.get("RUMMY_PARALLEL_COMPILE", "1") != "0"


# --- entry kernels, registered by the modules that run them ------------------------------


# Where ``warm`` queues an entry: the longest compiles FIRST, beside everything else
# rather than after it; LAST after the other units (its kernel calls theirs, then cached).
FIRST, ANY, LAST = 0, 1, 2


class Entry(NamedTuple):
    """An entry kernel ``warm`` compiles: a function that compiles (or loads) it without
    running a hand, so that no piece is compiled twice."""

    compile: Callable[[], None]
    module: str  # the module that registers it, imported by a helper that compiles it
    order: int  # FIRST, ANY or LAST


# What ``rummy run`` (single hands, games), ``replay`` and the solver API call, in the
# order their modules register them (``warm_entry``).
ENTRIES: dict[str, Entry] = {}
# The modules that register entries, by name: ``load_entries`` imports them, this module
# none of them (they import it). A test checks that every ``warm_entry`` is in one.
ENTRY_MODULES = (
    "sim.advise", "sim.agents.player", "sim.engine", "sim.solver", "sim.stats.deadwood",
)  # fmt: skip


def warm_entry(name: str, order: int = ANY) -> Callable[[Callable[[], None]], Callable[[], None]]:
    """Register the decorated function (no arguments) as the entry ``name`` of ``warm``:
    it compiles (or loads) an entry kernel without running a hand. ``order``: where
    ``warm`` queues it (``FIRST``, ``ANY``, ``LAST``)."""

    def register(function: Callable[[], None]) -> Callable[[], None]:
        ENTRIES[name] = Entry(function, function.__module__, order)
        return function

    return register


def load_entries() -> dict[str, Entry]:
    """Every entry a user may run: ``ENTRY_MODULES`` imported (they register them)."""
    for module in ENTRY_MODULES:
        importlib.import_module(module)
    return ENTRIES


# --- which pieces a kernel may call --------------------------------------------------


def _names(code: CodeType) -> Iterable[str]:
    """Global names a function's code uses (its nested code objects' too)."""
    yield from code.co_names
    for const in code.co_consts:
        if isinstance(const, CodeType):
            yield from _names(const)


def _callees(function: Any) -> Iterable[Any]:
    py_func = function.py_func
    for name in _names(py_func.__code__):
        value = py_func.__globals__.get(name)
        if isinstance(value, (Dispatcher, Piece)):
            yield value


def reachable_pieces(roots: Iterable[Any], skip: Iterable[Any] = ()) -> list[Piece]:
    """The pieces the jitted functions ``roots`` may call, directly or through the
    functions and pieces they call (not through anything in ``skip``)."""
    seen = {id(f) for f in skip}
    found: list[Piece] = []
    stack = list(roots)
    while stack:
        function = stack.pop()
        if id(function) in seen:
            continue
        seen.add(id(function))
        if isinstance(function, Piece):
            found.append(function)
        stack.extend(_callees(function))
    return found


def _weight(p: Piece) -> int:
    """Roughly how long a piece takes to compile: the bytecode it compiles (its own
    and that of the jitted functions it links, not other pieces'). Only orders work."""
    seen: set[int] = set()
    stack: list[Any] = [p.dispatcher]
    total = 0
    while stack:
        function = stack.pop()
        if id(function) in seen or isinstance(function, Piece):
            continue
        seen.add(id(function))
        total += len(function.py_func.__code__.co_code)
        stack.extend(_callees(function))
    return total


# --- compiling units in parallel -----------------------------------------------------


def _piece_named(name: str) -> Piece:
    importlib.import_module(name.rsplit(".", 1)[0])
    return next(p for p in pieces() if p.name == name)


def _compile_unit(name: str) -> None:
    """Compile one unit here: an entry of ``ENTRIES`` or a piece (by its name)."""
    if name in ENTRIES:
        ENTRIES[name].compile()
    else:
        _piece_named(name).bind()


class _Helper:
    """A helper process: it compiles the units named on its stdin, answering each;
    it first imports ``modules`` (those that register the entries it may be given)."""

    def __init__(self, modules: list[str]) -> None:
        # The helper imports what this process imports: the same sources, the same cache.
        path = os.pathsep.join(p for p in sys.path if p)
        env = {**os.environ, "PYTHONPATH": path}
        code = f"from sim.warm import serve; serve(parent={os.getpid()}, modules={modules!r})"
        # A process group of its own: a terminal's Ctrl-C goes to this process, which
        # stops the helper, and not to the helper (whose Python may still be starting).
        self.process = subprocess.Popen(
            [sys.executable, "-c", code],
            stdin=subprocess.PIPE, stdout=subprocess.PIPE, env=env, text=True, process_group=0,
        )  # fmt: skip

    def compile(self, name: str) -> bool:
        """Have the helper compile ``name``; False if it could not."""
        assert self.process.stdin is not None and self.process.stdout is not None
        try:
            self.process.stdin.write(name + "\n")
            self.process.stdin.flush()
        except OSError:
            return False
        return self.process.stdout.readline().strip() == name

    def close(self) -> None:
        assert self.process.stdin is not None and self.process.stdout is not None
        try:
            self.process.stdin.close()  # the helper's loop ends
        except OSError:  # it was killed: nothing reads the pipe
            pass
        self.process.wait()
        self.process.stdout.close()

    def kill(self) -> None:
        """Stop the helper now, mid-compile too (a unit's cache files are replaced
        whole, so none is left half-written); a helper that ended already is left be."""
        self.process.kill()


def _exit_with(parent: int) -> None:
    """End this process as soon as ``parent`` is no longer its parent (it died, even by
    SIGKILL, and the helper was handed to another), from a daemon thread: the main one
    may be deep in a compile that takes a minute."""

    def watch() -> None:
        while os.getppid() == parent:
            time.sleep(0.2)
        os._exit(0)  # nothing to flush or report: nobody reads it

    threading.Thread(target=watch, name="sim.warm parent watch", daemon=True).start()


def serve(parent: int | None = None, modules: Iterable[str] = ()) -> None:
    """A helper's loop: compile each unit named on stdin, then write its name back (or
    nothing, on failure) on the original stdout; ends at stdin's end, or quietly when
    the process ``parent`` (the one that started it) is gone. ``modules`` are imported
    first: importing one registers its entries (``warm_entry``) here too."""
    global _compile_pieces_ahead
    _compile_pieces_ahead = False
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # the parent decides when helpers stop
    if parent is not None:
        _exit_with(parent)
    replies = os.fdopen(os.dup(1), "w")
    os.dup2(2, 1)  # anything printed while compiling goes to stderr
    for module in modules:
        importlib.import_module(module)
    for line in sys.stdin:
        name = line.strip()
        try:
            _compile_unit(name)
        except Exception as error:  # noqa: BLE001 - the parent compiles it again and shows it
            print(f"sim.warm helper: {name}: {error}", file=sys.stderr)
            name = ""
        try:
            print(name, file=replies, flush=True)
        except OSError:  # the parent is gone (a broken pipe): leave without a traceback
            os._exit(0)


def compile_units(
    names: list[str],
    local: Callable[[], object] | None = None,
    processes: int | None = None,
    progress: Progress | None = None,
) -> None:
    """Compile the units ``names`` (pieces by name, or entries of ``ENTRIES``), in this
    order, and run ``local`` (a compile only this process can do), on ``processes``
    processes (default: every core), this one included.

    Helpers take units from the front of the queue; this process runs ``local`` first,
    then takes units too. A unit a helper could not compile is compiled here, where its
    error shows. The units' code ends in the disk cache, not in this process.
    """
    queue = deque(names)
    failed: list[str] = []
    lock = threading.Lock()

    def take() -> str | None:
        with lock:
            return queue.popleft() if queue else None

    def work(helper: _Helper) -> None:
        while (name := take()) is not None:
            if not helper.compile(name):
                failed.append(name)
                break
            if progress:
                progress(name)
        helper.close()

    n_helpers = max(0, min(len(names), (processes or os.cpu_count() or 1) - 1))
    if len(names) + (local is not None) < 2:
        n_helpers = 0  # nothing to share
    modules = sorted({ENTRIES[name].module for name in names if name in ENTRIES})
    helpers: list[_Helper] = []
    threads: list[threading.Thread] = []
    try:
        for _ in range(n_helpers):
            helpers.append(_Helper(modules))
            threads.append(threading.Thread(target=work, args=(helpers[-1],)))
            threads[-1].start()
        if local is not None:
            local()
        while (name := take()) is not None:
            _compile_unit(name)
            if progress:
                progress(name)
        for thread in threads:
            while thread.is_alive():  # waking often: a signal delivered to another thread
                thread.join(0.1)  # runs its handler here only once this one runs Python
    finally:
        # Done, or interrupted (Ctrl-C, SIGTERM) or failed here: stop at once rather
        # than wait for the helpers' compiles (a minute) and the rest of the queue.
        with lock:
            queue.clear()
        for helper in helpers:
            helper.kill()
        for thread in threads:
            thread.join()
    for name in failed:
        _compile_unit(name)
        if progress:
            progress(name)


def _cpu_times() -> tuple[int, int]:
    """The machine's busy and idle time so far (``/proc/stat``, in clock ticks)."""
    with open("/proc/stat") as stat:
        ticks = [int(x) for x in stat.readline().split()[1:]]
    idle = ticks[3] + ticks[4]  # idle and waiting for I/O
    return sum(ticks) - idle, idle


def _idle_cores() -> int:
    """Cores no other process is busy on, over the next tenth of a second (this one
    sleeps meanwhile). Helpers pay off only there: on a busy machine they add their
    start-up and compile what they share twice (measured on 2 cores, one of them busy:
    a cold ``rummy score`` 11 s with a helper, 7.4 s without)."""
    cores = os.cpu_count() or 1
    try:
        busy, idle = _cpu_times()
        time.sleep(0.1)
        busy_after, idle_after = _cpu_times()
    except OSError:  # no /proc/stat (not Linux): no way to tell, compile here only
        return 1
    total = busy_after - busy + idle_after - idle
    return round(cores * (idle_after - idle) / total) if total else cores


def ensure(
    entry: Dispatcher | Piece,
    args: tuple[Any, ...] = (),
    roots: Iterable[Any] = (),
    skip: Iterable[Any] = (),
) -> None:
    """Before ``entry(*args)`` first runs in this process (a kernel, or a piece: then
    ``args`` do not matter): load it and every piece it (or ``roots``, not through
    ``skip``) may call from the cache; compile what is missing, in parallel when there
    is more than one unit to compile."""
    kernel = None if isinstance(entry, Piece) else entry
    signature = () if kernel is None else tuple(kernel.typeof_pyval(a) for a in args)
    key = (id(entry), signature)
    if key in _ready:
        return
    with _lock:
        if key in _ready:
            return
        ahead = reachable_pieces([entry, *roots], skip) if _compile_pieces_ahead else []
        if isinstance(entry, Piece) and entry not in ahead:
            ahead.append(entry)
        todo = sorted((p for p in ahead if not p.lazy and not p.load()), key=_weight, reverse=True)
        local = None
        if kernel is not None and not load_cached(kernel, signature):
            local = lambda: kernel.compile(signature)  # noqa: E731
        if todo or local is not None:
            compile_units([p.name for p in todo], local, processes=_idle_cores())
            for p in todo:
                p.bind()  # from the cache
        _ready.add(key)


# --- rummy warm ----------------------------------------------------------------------


def all_pieces() -> list[Piece]:
    """Every piece of the kernels and of the strategies (plugins found included)."""
    from strategies import discover

    importlib.import_module("kernels.mc")
    importlib.import_module("kernels.showdown")
    discover()
    return pieces()


def _place(name: str) -> tuple[int, int]:
    """Where entry ``name`` is queued: by its ``order``, then by its module's place in
    ``ENTRY_MODULES`` (other modules after them), then as its module registers it (the
    sort is stable). Not by when its module was imported: that differs from process to
    process (a process that imported ``sim.stats.deadwood`` first would queue its entry
    first), and the queue must not."""
    entry = ENTRIES[name]
    known = entry.module in ENTRY_MODULES
    return entry.order, ENTRY_MODULES.index(entry.module) if known else len(ENTRY_MODULES)


def queue() -> tuple[list[str], list[str], list[str]]:
    """``warm``'s units by name, in the order it queues them: the entries queued before
    the pieces (``FIRST``, then ``ANY``), every piece heaviest first, the entries queued
    ``LAST``. The entries are those of ``load_entries`` and any other registered so far."""
    load_entries()
    entries = sorted(ENTRIES, key=_place)
    first = [name for name in entries if ENTRIES[name].order != LAST]
    last = [name for name in entries if ENTRIES[name].order == LAST]
    return first, [p.name for p in sorted(all_pieces(), key=_weight, reverse=True)], last


def warm(processes: int | None = None, progress: Progress | None = None) -> list[str]:
    """Compile everything a user may run (every entry kernel and piece) on
    ``processes`` processes (default: every core); returns the units' names. The
    entries are those of ``load_entries`` and any other registered so far."""
    global _compile_pieces_ahead
    first, by_weight, last = queue()
    names = [*first, *by_weight, *last]
    ahead = _compile_pieces_ahead
    _compile_pieces_ahead = False  # every piece is a unit of its own here
    try:
        compile_units(names, processes=processes, progress=progress)
    finally:
        _compile_pieces_ahead = ahead
    return names
