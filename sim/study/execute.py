"""Playing runs: every chunk of every run of a study through one queue.

A study (one run, a sweep, a comparison, a tournament, a tune) is a list of runs.
:func:`execute` opens each run's directory (locked for the study's duration, its
manifest written or checked), lists each run's chunks lazily, skips the chunks already
done (their records and digests check out) and feeds the rest, whichever run they
belong to, to one pool of workers. How they play is one object, an :class:`Executor`
(workers, backend, address), made once by the command line or a notebook and handed
to every driver; it never changes a result:

* ``backend="local"``: threads of this process. The engine kernels release the GIL,
  so chunks play in parallel as on a process pool, without a process start and an
  engine load per worker (about a second each) and without pickling every chunk's
  tables back. Side by side on 2 million Gin deals on 2 busy cores, writing the hands
  table took 53% more CPU time than the bare kernel with a process pool and 8% more
  with threads (``rummy bench run`` measures it). No child process exists, so none
  can outlive the driver. One worker is a thread too: this one only waits, so it sees
  Ctrl-C at once (a kernel cannot be stopped, and returns to Python only when its
  chunk is done); a study stopped does not wait for the chunks in flight;
* ``backend="ray"``: remote tasks on a Ray cluster (``address``), one queue for all
  (``sim.study.cluster``: attaching, the code on the workers, one compile per node,
  faults); by default as many workers as the cluster has CPUs.

At most two chunks per worker are in flight, and chunks are listed as the workers ask
for them, so memory stays flat however large the study. This process writes every
chunk's parts and record as it comes back (``sim.study.chunks.write_chunk``), except
the parts a Ray worker wrote itself into a run directory it sees (then only the
record); a chunk is a pure function of its run's config and its numbers, so the
tables are identical for any worker count, chunk size or backend.
"""

from __future__ import annotations

import contextlib
import itertools
import os
import time
from collections.abc import Callable, Generator, Iterator, Sequence
from concurrent.futures import FIRST_COMPLETED, Future, ThreadPoolExecutor, wait
from dataclasses import dataclass, field
from typing import Any, Literal, NamedTuple

from sim import store
from sim.limits import MAX_WORKERS
from sim.store import PathInput, StorePath
from sim.study import rundir as D
from sim.study.chunks import load_engine, payload_of, run_chunk, write_chunk, write_record
from sim.study.runs import Chunk, RunConfig, RunError, RunResult

__all__ = ["LOCAL", "Backend", "Executor", "Progress", "execute", "resume", "run"]

Backend = Literal["local", "ray"]
_IN_FLIGHT_PER_WORKER = 2  # chunks queued per worker: keeps workers busy, memory flat
# How often this thread wakes while it waits for chunks: a signal may be delivered to a
# worker thread (deep in a kernel), and then only wakes this one when it next runs
# Python, which would be when a chunk ends (minutes with a slow strategy).
_POLL_SECONDS = 0.1


class Progress(NamedTuple):
    """What a ``progress`` callback receives after each chunk (and once at the start).

    ``chunks_done`` and ``units_done`` (deals or games) count chunks finished before
    this call too (found done as the study goes through its chunks); ``hands_done``
    counts every hand of the finished chunks, ``hands_played`` only those this call
    played; ``runs_done`` the runs whose every chunk is done; ``elapsed`` is seconds
    since this call started.
    """

    chunks_done: int
    chunks_total: int
    units_done: int  # and those played so far of the chunks in flight on local threads
    units_total: int
    hands_done: int
    elapsed: float
    hands_played: int = 0
    runs_done: int = 0
    runs_total: int = 1


@dataclass
class _Run:
    """One run's bookkeeping while the study plays."""

    config: RunConfig
    run_dir: StorePath
    layout: D.Layout
    payload: dict[str, Any]
    notes: list[str]
    chunks_done: int = 0
    units_done: int = 0
    hands_done: int = 0
    hands_played: int = 0
    played: int = 0
    corrupted: int = 0
    misses: int = 0  # mc's sampled opponent hands that fit nothing shown, in chunks played
    in_flight: dict[int, Chunk] = field(default_factory=dict)
    # Local threads: the units of each chunk in flight as its blocks are played (the
    # chunk's thread appends, the study's reads), so progress moves within a chunk.
    playing: dict[int, list[int]] = field(default_factory=dict)

    @property
    def units_playing(self) -> int:
        return sum(sum(told) for told in self.playing.values())

    @property
    def finished(self) -> bool:
        return self.chunks_done == self.config.n_chunks

    def result(self, elapsed: float) -> RunResult:
        notes = list(self.notes)
        if self.corrupted:
            notes.append(
                f"{self.corrupted} finished chunk(s) failed their digest check "
                "(a part or its record changed on disk) and were played again"
            )
        return RunResult(
            config=self.config,
            run_dir=self.run_dir,
            chunks_total=self.config.n_chunks,
            chunks_run=self.played,
            chunks_skipped=self.config.n_chunks - self.played,
            hands=self.hands_done,
            elapsed=elapsed,
            notes=tuple(notes),
            hands_played=self.hands_played,
        )


@dataclass(frozen=True)
class Executor:
    """How a study plays its chunks: never what it plays, so never its results.

    Attributes
    ----------
    workers : int or None
        Threads (local) or Ray workers (chunks in flight: twice as many); None: this
        machine's CPU count (local), the cluster's (Ray, known once it plays).
    backend : {"local", "ray"}
    address : str or None
        Ray cluster address (``ray.init(address=...)``, ``"auto"``); None attaches to
        ``RAY_ADDRESS`` when set, else starts a private instance (``sim.study.cluster``).
    """

    workers: int | None = None
    backend: Backend = "local"
    address: str | None = None

    def __post_init__(self) -> None:
        if self.backend not in ("local", "ray"):
            raise RunError(f"backend={self.backend!r} is not allowed; choose 'local' or 'ray'")
        workers = self.workers
        if workers is not None:
            ok = isinstance(workers, int) and not isinstance(workers, bool)
            if not ok or not 1 <= workers <= MAX_WORKERS:
                raise RunError(
                    f"workers={workers!r} is not allowed; choose an integer 1..{MAX_WORKERS}"
                )
        if self.address is not None and self.backend != "ray":
            raise RunError(
                f"address={self.address!r} is not allowed with backend='local'; an address "
                "needs backend='ray'"
            )

    @property
    def local_workers(self) -> int:
        """Threads a local study plays on: ``workers``, or this machine's CPU count."""
        return self.workers or os.cpu_count() or 1

    def describe(self, agents: bool = False) -> str:
        """``4 workers`` (``1 worker``); on Ray without workers, the cluster's CPUs (known
        once it plays); with ``agents`` seated, the one worker they play on."""
        if agents:
            return "1 worker (agent seats play one chunk at a time)"
        if self.workers is None and self.backend == "ray":
            return "a worker per CPU of the Ray cluster"
        n = self.local_workers
        return f"{n} worker" if n == 1 else f"{n} workers"

    def to_dict(self) -> dict[str, Any]:
        """As stored in a run's manifest (a resume plays on it unless told otherwise)."""
        workers = self.local_workers if self.backend == "local" else self.workers
        return {"workers": workers, "backend": self.backend, "address": self.address}

    def check(self) -> None:
        """Fail before anything is written when this backend cannot run here."""
        if self.backend == "ray":
            from sim.study.cluster import MISSING_RAY, code_mode, worker_logs

            try:
                import ray  # noqa: F401
            except ImportError:
                raise RunError(MISSING_RAY) from None
            code_mode()  # a bad RUMMY_RAY_CODE (or RUMMY_RAY_LOGS) is one line before
            worker_logs()  # anything is written


LOCAL = Executor()  # threads of this process, one per CPU


# --- backends: each takes the queue of (run, chunk) and yields results in any order ----

Task = tuple[int, Chunk]  # (run index, chunk)
Result = tuple[int, dict[str, Any]]
TICK = None  # what ``_threads`` yields when no chunk is done yet: progress may have moved


def _threads(runs: list[_Run], todo: Iterator[Task], workers: int) -> Generator[Result | None]:
    pool = ThreadPoolExecutor(max_workers=workers, thread_name_prefix="rummy-chunk")
    pending: dict[Future[dict[str, Any]], int] = {}
    limit = workers * _IN_FLIGHT_PER_WORKER
    try:
        while True:
            while len(pending) < limit and (task := next(todo, None)) is not None:
                i, (index, first, n) = task
                told = runs[i].playing.setdefault(index, [])
                pending[pool.submit(run_chunk, runs[i].payload, index, first, n, told.append)] = i
            if not pending:
                break
            done, _ = wait(pending, timeout=_POLL_SECONDS, return_when=FIRST_COMPLETED)
            if not done:
                yield TICK
            for future in done:
                yield pending.pop(future), future.result()  # a chunk's error stops the study
    except BaseException:
        # Stopped (Ctrl-C, SIGTERM, a failed chunk or write): the chunks in flight are
        # thrown away, so do not wait for them (a kernel cannot be stopped, and a chunk
        # of a slow strategy takes minutes); the queued ones are cancelled.
        pool.shutdown(wait=False, cancel_futures=True)
        raise
    pool.shutdown(wait=True)


def _ray(
    runs: list[_Run], todo: Iterator[Task], workers: int | None, address: str | None
) -> Generator[Result]:
    """Chunks on Ray (``sim.study.cluster``); what the workers wrote is not written again."""
    from sim.study import cluster

    first = next(todo, None)
    if first is None:  # every chunk is done: no need to reach the cluster
        return
    todo = itertools.chain([first], todo)
    jobs = [cluster.Job(r.payload, r.run_dir.resolve(), r.layout) for r in runs]
    notes: list[str] = []
    results = cluster.play(
        jobs, todo, workers=workers, address=address, resume_hint=_resume_hint(runs),
        notes=notes,
    )  # fmt: skip
    with contextlib.closing(results):
        for i, result in results:
            if notes:  # the compile time, once it is known: every run reports it
                for run in runs:
                    run.notes.extend(notes)
                notes.clear()
            yield i, result


def _resume_hint(runs: list[_Run]) -> str:
    """How to finish a study that Ray could not: the same command (it skips what is
    done), or for a lone run ``--resume`` (which keeps its backend and address)."""
    command = runs[0].config.command if runs else None
    resume = f"rummy run --resume {runs[0].run_dir}" if len(runs) == 1 else None
    if command and resume:
        return f"run the same command again to finish ({command}), or: {resume}"
    if command:
        return f"run the same command again to finish: {command}"
    return f"finish it with: {resume}" if resume else "run the same command again to finish"


# --- the study ---------------------------------------------------------------------------


def execute(
    configs: Sequence[RunConfig],
    executor: Executor = LOCAL,
    *,
    progress: Callable[[Progress], None] | None = None,
    run_dirs: Sequence[PathInput] | None = None,
) -> list[RunResult]:
    """Play every chunk of every run not yet done; one result per config, in order.

    Parameters
    ----------
    configs : sequence of RunConfig
        The study's runs; a run listed twice (the same directory) is played once.
    executor : Executor
        How to play them (default: threads of this process, one per CPU).
    run_dirs : sequence of StorePath, optional
        Where each run lives when not at ``config.run_dir`` (a resumed run read in
        place after its folder was moved).
    progress : callable, optional
        Called with :class:`Progress` once at the start and after every chunk.

    Raises
    ------
    RunError
        A run directory cannot be made or written, holds another run, or is in use; a
        chunk could not be written; Ray is missing or failed.
    """
    started = time.perf_counter()
    executor.check()
    dirs = (
        [c.run_dir for c in configs] if run_dirs is None else [store.location(d) for d in run_dirs]
    )
    index_of: dict[StorePath, int] = {}
    for d in dirs:
        index_of.setdefault(d, len(index_of))
    unique = [(configs[dirs.index(d)], d) for d in index_of]
    agents = any(config.seats_agents for config, _ in unique)
    if agents and executor.backend == "ray":
        raise RunError(
            "agent seats (python:..., external:...) play on this machine only: "
            "drop --backend ray (docs/AGENTS.md)"
        )
    with contextlib.ExitStack() as stack:
        runs: list[_Run] = []
        for config, run_dir in unique:
            D.make_run_dir(run_dir)
            stack.enter_context(D.locked(run_dir))
            config, record, notes = D.prepare(config, run_dir, executor.to_dict())
            for folder in (*config.tables, D.CHUNKS):
                (run_dir / folder).mkdir(exist_ok=True)
            runs.append(
                _Run(config, run_dir, D.Layout.of_config(config), payload_of(config, record), notes)
            )
        totals = (
            sum(r.config.n_chunks for r in runs),
            sum(r.config.count for r in runs),
        )

        def report() -> None:
            if progress is not None:
                progress(
                    Progress(
                        sum(r.chunks_done for r in runs),
                        totals[0],
                        sum(r.units_done + r.units_playing for r in runs),
                        totals[1],
                        sum(r.hands_done for r in runs),
                        time.perf_counter() - started,
                        sum(r.hands_played for r in runs),
                        sum(r.finished for r in runs),
                        len(runs),
                    )
                )

        def finished(run: _Run, chunk: Chunk, hands: int) -> None:
            run.chunks_done += 1
            run.units_done += chunk[2]
            run.hands_done += hands

        def todo() -> Iterator[Task]:
            """The chunks left to play, checked one by one as the workers ask for them."""
            for i, run in enumerate(runs):
                for chunk in run.config.chunks():
                    hands, corrupted = D.check_chunk(run.run_dir, run.layout, chunk)
                    run.corrupted += corrupted
                    if hands is None:
                        run.in_flight[chunk[0]] = chunk
                        yield i, chunk
                    else:
                        finished(run, chunk, hands)
                        report()

        report()
        workers = executor.workers
        results: Generator[Result | None]
        if executor.backend == "ray":  # workers None: as many as the cluster has CPUs
            results = _ray(runs, todo(), workers and min(workers, totals[0]), executor.address)
        else:
            for run in runs:
                load_engine(run.payload)
            # An agent talks to one table at a time: its chunks play one after another.
            workers = 1 if agents else min(executor.local_workers, totals[0]) or 1
            results = _threads(runs, todo(), workers)
        with contextlib.closing(results):
            told = 0
            for item in results:
                if item is TICK:  # no chunk done: say so if one of them has played on
                    if (playing := sum(r.units_playing for r in runs)) != told:
                        told = playing
                        report()
                    continue
                i, result = item
                run = runs[i]
                chunk = run.in_flight.pop(result["chunk"])
                run.playing.pop(chunk[0], None)
                if "parts" in result:  # a Ray worker wrote them: only the record is left
                    D.write_or_fail(
                        write_record, run.run_dir, run.layout, chunk, result["hands"],
                        result["parts"],
                    )  # fmt: skip
                else:
                    D.write_or_fail(write_chunk, run.run_dir, run.layout, chunk, result)
                finished(run, chunk, result["hands"])
                run.played += 1
                run.hands_played += result["hands"]
                run.misses += result["misses"]
                del result
                report()
    misses = sum(r.misses for r in runs)
    if misses:
        from strategies.mc import misses_note

        # the same line in every run: said once per study
        for run in runs:
            run.notes.append(misses_note(misses))
    elapsed = time.perf_counter() - started
    by_dir = {r.run_dir: r.result(elapsed) for r in runs}
    return [by_dir[d] for d in dirs]


def run(
    config: RunConfig,
    executor: Executor = LOCAL,
    progress: Callable[[Progress], None] | None = None,
) -> RunResult:
    """Play a run into ``config.run_dir`` (chunks already done there are kept).

    Raises
    ------
    RunError
        The run directory cannot be made or written, holds another run, or is in use.
    """
    return execute([config], executor, progress=progress)[0]


def resume(
    run_dir: PathInput,
    executor: Executor | None = None,
    *,
    command: str | None = None,
    progress: Callable[[Progress], None] | None = None,
) -> RunResult:
    """Finish the run in ``run_dir`` from its manifest: plays only the missing chunks.

    ``executor`` may differ from the first call's (it does not change results); by
    default the stored one, local workers capped at this machine's CPU count. A run
    made by other code (any source in its identity) is refused with a line that says
    what changed.
    """
    config, stored = D.resume_config(run_dir, command=command)
    if executor is None:
        executor = Executor(**stored)
    return execute([config], executor, progress=progress, run_dirs=[store.location(run_dir)])[0]
