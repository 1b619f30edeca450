"""End-to-end run speed: ``rummy run`` against the bare kernel, side by side.

``rummy bench run`` measures, in one process and on the same machine load, three ways
of playing the same deals (same rules, line-up, seed and worker count):

``kernel``
    ``sim.engine.play_deals(..., threads=workers)`` in this process, after a warm-up:
    the round engine alone, its columns kept in memory and thrown away.
``hands``
    ``sim.study.run`` with ``rows="hands"`` into a temporary directory (removed
    afterwards): what ``rummy run --rows hands`` does between the engine warm-up and
    the summary: chunks played on ``workers`` threads (``sim.study.execute``), exact
    summaries, Arrow conversion and zstd Parquet parts written atomically.
``none``
    the same with ``rows="none"`` (only the summary parts are written).
``ray``, ``ray-driver`` (``backend="ray"``)
    ``hands`` on Ray (``sim.study.cluster``) with as many workers: a private instance
    of ``workers`` CPUs on this machine (the same cores), or the cluster at
    ``address``. In ``ray`` the workers write the parts (they see the folder); in
    ``ray-driver`` every chunk's tables travel back and the driver writes them, as for
    a cluster without shared storage. ``driver_ms_per_chunk``: the driver process's
    own CPU time (``RUSAGE_SELF``: the runner, Ray's client threads, the writes; not
    the memory sampler's thread, which reads every Ray process's ``/proc``) per
    chunk; a worker's time per chunk over it is how many workers one driver can feed.

Each repeat times the three back to back (the order rotates from repeat to repeat), so
all three see the same load; the report gives the median, min and max hands per second over repeats
and the overhead of each run mode against the kernel (``kernel_rate / rate - 1``: 0.20
means the run takes 20% longer than the bare kernel). Not in the rates: the driver's engine
warm-up (``rummy run`` does it once before the progress bar; the kernel is warm too),
a one-off first run, and the summary ``rummy run`` prints afterwards (reading the
parts back), which is timed on its own (``summary_seconds``).

Memory
------
While each mode runs, a sampler thread reads, every ``SAMPLE_S`` seconds, the
resident (``VmRSS``) and proportional (``Pss``, shared pages split between the
processes that map them) set sizes of this process and all its descendants from
``/proc`` and keeps the largest sum: ``peak_rss_mb`` and ``peak_pss_mb``. A numba
process maps the same LLVM and library pages as its siblings, so the RSS sum counts
them once per process (an over-estimate of the memory used) and the PSS sum counts
them once (what the tree really takes). Sampling can miss a peak shorter than the
interval. Where ``/proc`` is absent (not Linux) the figures are None. The three modes
share this process, so each mode's figure also holds what the ones before it left
resident (the kernel's full columns, memory the allocator keeps): an upper bound.

:func:`measure_memory` plays one ``rows="none"`` run of N deals in a fresh process and
reports the same sampled peaks plus that process's ``getrusage`` high-water mark
(``RUSAGE_SELF``: the driver and all its threads; local runs play their chunks on
threads, so this is the whole run), so a run's memory can be checked at several sizes
(``rummy bench run --memory-deals N``, ``benchmarks/bench_run_memory.py``).
"""

from __future__ import annotations

import contextlib
import json
import os
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from sim.bench import REPEAT, RUN_DEALS
from sim.rules import DEFAULT_PRESET

if TYPE_CHECKING:  # the study layer loads on first use (bench engine does not need it)
    from sim.store import StorePath
    from sim.study.execute import Executor

__all__ = [
    "MemoryReport",
    "ModeTiming",
    "RunBenchReport",
    "TreeSampler",
    "bench_run",
    "measure_memory",
]

MODES = ("kernel", "hands", "none")
RAY_MODES = ("ray", "ray-driver")
SAMPLE_S = 0.05  # memory sampling interval: a peak shorter than this can be missed
SEED = 20240607  # every repeat plays the same deals, so repeats differ only in load
WARM_DEALS = 2_000  # the untimed first round: loads the engine in this process and workers
_PAGE_KB = os.sysconf("SC_PAGE_SIZE") // 1024 if hasattr(os, "sysconf") else 4


# --- memory of the process tree ---------------------------------------------------------


def _children(pid: int) -> list[int]:
    """Direct children of ``pid`` (every thread's list: a child's parent is a thread)."""
    out: list[int] = []
    try:
        for task in os.listdir(f"/proc/{pid}/task"):
            with open(f"/proc/{pid}/task/{task}/children") as handle:
                out += [int(x) for x in handle.read().split()]
    except OSError:
        pass
    return out


def _tree(pid: int) -> list[int]:
    seen, todo = [], [pid]
    while todo:
        p = todo.pop()
        seen.append(p)
        todo += _children(p)
    return seen


def _rss_pss_kb(pid: int) -> tuple[int, int]:
    """VmRSS and Pss of one process in KiB (0, 0 when it is gone)."""
    try:
        with open(f"/proc/{pid}/smaps_rollup") as handle:
            rss = pss = 0
            for line in handle:
                if line.startswith("Rss:"):
                    rss = int(line.split()[1])
                elif line.startswith("Pss:"):
                    pss = int(line.split()[1])
            return rss, pss
    except OSError:
        pass
    try:  # kernels before 4.14 have no smaps_rollup: RSS only
        with open(f"/proc/{pid}/statm") as handle:
            rss = int(handle.read().split()[1]) * _PAGE_KB
        return rss, rss
    except OSError:
        return 0, 0


def proc_available() -> bool:
    return os.path.isdir(f"/proc/{os.getpid()}/task")


class TreeSampler:
    """Largest summed RSS and PSS of this process and its descendants while active."""

    def __init__(self, interval: float = SAMPLE_S, pid: int | None = None):
        self.interval = interval
        self.pid = os.getpid() if pid is None else pid
        self.peak_rss_kb = 0
        self.peak_pss_kb = 0
        self.peak_processes = 0
        self.cpu_seconds = 0.0  # the sampler thread's own CPU: not the measured work's
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None

    def sample(self) -> None:
        pids = _tree(self.pid)
        sizes = [_rss_pss_kb(p) for p in pids]
        self.peak_rss_kb = max(self.peak_rss_kb, sum(s[0] for s in sizes))
        self.peak_pss_kb = max(self.peak_pss_kb, sum(s[1] for s in sizes))
        self.peak_processes = max(self.peak_processes, sum(1 for s in sizes if s[0]))

    def _loop(self) -> None:
        while not self._stop.wait(self.interval):
            self.sample()
        self.cpu_seconds = time.thread_time()  # this thread's, since it started

    def __enter__(self) -> TreeSampler:
        if proc_available():
            self.sample()
            self._thread = threading.Thread(target=self._loop, daemon=True)
            self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        if self._thread is not None:
            self._stop.set()
            self._thread.join()
            self.sample()

    @property
    def peak_rss_mb(self) -> float | None:
        return self.peak_rss_kb / 1024 if self._thread is not None else None

    @property
    def peak_pss_mb(self) -> float | None:
        return self.peak_pss_kb / 1024 if self._thread is not None else None


def _cpu_seconds() -> float:
    """User + system CPU seconds of this process (all threads) and its reaped children."""
    own, children = (
        resource.getrusage(resource.RUSAGE_SELF),
        resource.getrusage(resource.RUSAGE_CHILDREN),
    )
    return own.ru_utime + own.ru_stime + children.ru_utime + children.ru_stime


def _maxrss_mb(who: int) -> float:
    """``getrusage(who).ru_maxrss`` in MiB (KiB on Linux, bytes on macOS)."""
    value = resource.getrusage(who).ru_maxrss
    return value / (1024 * 1024) if sys.platform == "darwin" else value / 1024


# --- timing ------------------------------------------------------------------------------


@dataclass(frozen=True)
class ModeTiming:
    """One way of playing the deals: hands per second over repeats, peak memory.

    ``overhead`` is ``kernel median / this median - 1`` (None for the kernel itself):
    the extra wall time of this mode per hand, relative to the kernel.
    ``cpu_seconds``: user + system CPU time of this process and its children per
    repeat; ``cpu_us_per_hand`` their median per hand and ``cpu_overhead`` its ratio
    to the kernel's minus 1. CPU time moves much less than wall time when other jobs
    share the cores, so it shows the overhead even on a busy machine.
    ``summary_seconds``: per repeat, the analysis ``rummy run`` prints after the run
    (``sim.study.analysis.data_from_run``: seats, outcomes, hand lengths read back from the
    parts), timed apart and not in the rate; empty for the kernel.
    ``peak_rss_mb`` / ``peak_pss_mb``: the largest sampled sum over this process and its
    descendants while this mode ran, over all repeats (None without ``/proc``).
    """

    mode: str
    rates: list[float]
    seconds: list[float]
    hands_per_second: float
    low: float
    high: float
    overhead: float | None
    cpu_seconds: list[float]
    summary_seconds: list[float]
    cpu_us_per_hand: float
    cpu_overhead: float | None
    peak_rss_mb: float | None
    peak_pss_mb: float | None
    peak_processes: int
    driver_ms_per_chunk: float | None = None  # Ray modes: the driver's CPU per chunk
    worker_ms_per_chunk: float | None = None  # Ray modes: wall x workers per chunk


@dataclass(frozen=True)
class RunBenchReport:
    """A whole ``rummy bench run``: the settings and one timing per mode."""

    rules: str
    lineup: str
    deals: int
    workers: int
    chunk_size: int
    repeat: int
    seed: int
    cpus: int
    modes: dict[str, ModeTiming]
    maxrss_self_mb: float
    maxrss_children_mb: float
    backend: str = "local"

    @property
    def ratios(self) -> dict[str, float]:
        """Rate of each run mode over the kernel's (1.0: as fast as the kernel)."""
        kernel = self.modes["kernel"].hands_per_second
        return {
            m: t.hands_per_second / kernel
            for m, t in self.modes.items()
            if m != "kernel" and kernel > 0
        }

    def to_dict(self) -> dict[str, Any]:
        out = asdict(self)
        out["ratios"] = self.ratios
        return out


@contextmanager
def _temporary_root() -> Iterator[Path]:
    root = Path(tempfile.mkdtemp(prefix="rummy-bench-run-"))
    try:
        yield root
    finally:
        shutil.rmtree(root, ignore_errors=True)


def bench_run(
    *,
    rules: Any = DEFAULT_PRESET,
    lineup: str | tuple[str, ...] = "greedy/greedy",
    deals: int = RUN_DEALS,
    executor: Executor | None = None,
    repeat: int = REPEAT,
    chunk_size: int | None = None,
    on_step: Callable[[str, int, float], None] | None = None,
) -> RunBenchReport:
    """Time the kernel, ``run`` with rows and ``run`` without rows, side by side.

    Parameters
    ----------
    rules : str or RuleSet
    lineup : str or tuple of str
        Seat specs (``greedy/greedy``).
    deals : int
        Deals per timed call (each repeat plays the same deals in every mode).
    executor : Executor or None
        Its workers: threads of the kernel and worker threads of the runs (None: the CPU
        count); backend ``"ray"`` adds the Ray modes (a private instance of that many
        CPUs, or the cluster at its address). None: threads, one per CPU.
    repeat : int
        Rounds of (kernel, hands, none); the report gives medians.
    chunk_size : int or None
        The runs' chunk size (None: the runner's default).
    on_step : callable or None
        Called after each timed step with (mode, repeat index, hands per second).

    Raises
    ------
    ValueError
        Deals, workers or repeat below 1; unknown rules or strategies (RuleError,
        StrategyError, RunError are ValueErrors).
    """
    from sim.engine import play_deals
    from sim.study import execute as runner
    from sim.study.analysis import data_from_run
    from sim.study.execute import Executor
    from sim.study.runs import RunConfig

    if deals < 1 or repeat < 1:
        raise ValueError("deals and repeat must be at least 1")
    executor = executor or Executor()
    n_workers = executor.local_workers
    backend, address = executor.backend, executor.address
    modes = MODES + (RAY_MODES if backend == "ray" else ())
    on_threads = Executor(n_workers)
    on_cluster = Executor(n_workers, "ray")  # attached by _ray_session before it plays

    def config(rows: str, count: int, out: Path, name: str, size: int | None = None) -> RunConfig:
        return RunConfig(
            rules=rules,
            lineup=lineup,
            count=count,
            experiment=name,
            seed=SEED,
            chunk_size=size or chunk_size,
            rows=rows,  # type: ignore[arg-type]
            out=out,
            command="rummy bench run",
        )

    probe = config("hands", deals, Path("."), "probe")  # validates rules and line-up
    ruleset, seats = probe.rules, probe.lineup

    rates: dict[str, list[float]] = {m: [] for m in modes}
    seconds: dict[str, list[float]] = {m: [] for m in modes}
    cpu: dict[str, list[float]] = {m: [] for m in modes}
    driver: dict[str, list[float]] = {m: [] for m in modes}
    summary: dict[str, list[float]] = {m: [] for m in modes}
    peaks: dict[str, list[TreeSampler]] = {m: [] for m in modes}
    with _temporary_root() as root, _ray_session(backend, address, n_workers):
        # Untimed: load the engine here and fill the OS file cache the workers read.
        play_deals(ruleset, seats, deals=WARM_DEALS, seed=SEED, threads=n_workers)
        runner.run(config("none", WARM_DEALS, root, "warm"), on_threads)
        if backend == "ray":  # compile on every node, start every worker process
            warm = config("hands", 4 * WARM_DEALS * n_workers, root, "warm-ray", WARM_DEALS)
            runner.run(warm, on_cluster)

        def kernel() -> None:
            play_deals(ruleset, seats, deals=deals, seed=SEED, threads=n_workers)

        run_dirs: dict[str, StorePath] = {}

        def run_rows(mode: str, index: int) -> Callable[[], None]:
            rows = "none" if mode == "none" else "hands"
            on = on_cluster if mode in RAY_MODES else on_threads
            run_config = config(rows, deals, root, f"{mode}-{index}")
            run_dirs[mode] = run_config.run_dir

            def call() -> None:
                with _driver_writes(mode == "ray-driver"):
                    runner.run(run_config, on)

            return call

        for index in range(repeat):
            steps = [("kernel", kernel), *((m, run_rows(m, index)) for m in modes[1:])]
            shift = index % len(steps)  # rotate the order: no mode always runs first
            for mode, call in steps[shift:] + steps[:shift]:
                with TreeSampler() as sampler:
                    cpu_start, start = _cpu_seconds(), time.perf_counter()
                    own = resource.getrusage(resource.RUSAGE_SELF)
                    call()
                    elapsed = time.perf_counter() - start
                    cpu[mode].append(_cpu_seconds() - cpu_start)
                    after = resource.getrusage(resource.RUSAGE_SELF)
                    busy = after.ru_utime + after.ru_stime - own.ru_utime - own.ru_stime
                driver[mode].append(busy - sampler.cpu_seconds)
                seconds[mode].append(elapsed)
                rates[mode].append(deals / elapsed)
                peaks[mode].append(sampler)
                if on_step is not None:
                    on_step(mode, index, deals / elapsed)
                if mode != "kernel":  # the summary `rummy run` prints, timed apart
                    start = time.perf_counter()
                    data_from_run(run_dirs[mode])
                    summary[mode].append(time.perf_counter() - start)
            for mode in modes[1:]:  # keep the disk use of one repeat at most
                shutil.rmtree(root / f"{mode}-{index}", ignore_errors=True)

    kernel_median = statistics.median(rates["kernel"])
    kernel_cpu = statistics.median(cpu["kernel"])
    n_chunks = probe.n_chunks
    timings = {}
    for mode in modes:
        median = statistics.median(rates[mode])
        on_ray = mode in RAY_MODES
        rss = [s.peak_rss_mb for s in peaks[mode] if s.peak_rss_mb is not None]
        pss = [s.peak_pss_mb for s in peaks[mode] if s.peak_pss_mb is not None]
        timings[mode] = ModeTiming(
            mode=mode,
            rates=rates[mode],
            seconds=seconds[mode],
            hands_per_second=median,
            low=min(rates[mode]),
            high=max(rates[mode]),
            overhead=None if mode == "kernel" else kernel_median / median - 1,
            cpu_seconds=cpu[mode],
            summary_seconds=summary[mode],
            cpu_us_per_hand=statistics.median(cpu[mode]) / deals * 1e6,
            cpu_overhead=(
                None
                if mode == "kernel" or kernel_cpu <= 0
                else statistics.median(cpu[mode]) / kernel_cpu - 1
            ),
            peak_rss_mb=max(rss) if rss else None,
            peak_pss_mb=max(pss) if pss else None,
            peak_processes=max(s.peak_processes for s in peaks[mode]),
            driver_ms_per_chunk=(
                statistics.median(driver[mode]) / n_chunks * 1e3 if on_ray else None
            ),
            worker_ms_per_chunk=(
                statistics.median(seconds[mode]) * n_workers / n_chunks * 1e3 if on_ray else None
            ),
        )
    return RunBenchReport(
        rules=ruleset.name,  # type: ignore[union-attr]
        lineup="/".join(seats),
        deals=deals,
        workers=n_workers,
        chunk_size=probe.chunk_size,  # type: ignore[arg-type]
        repeat=repeat,
        seed=SEED,
        cpus=os.cpu_count() or 1,
        modes=timings,
        maxrss_self_mb=_maxrss_mb(resource.RUSAGE_SELF),
        maxrss_children_mb=_maxrss_mb(resource.RUSAGE_CHILDREN),
        backend=backend,
    )


def _ray_session(backend: str, address: str | None, workers: int) -> Any:
    """One Ray connection for every timed Ray run (not a start and stop per run)."""
    if backend != "ray":
        return contextlib.nullcontext()
    from sim.study.cluster import connected

    return connected(address, workers)


@contextmanager
def _driver_writes(on: bool) -> Iterator[None]:
    """The ``ray-driver`` mode: the workers return their tables (``sim.study.cluster``)."""
    if not on:
        yield
        return
    from sim.study.cluster import WRITE_ENV

    before = os.environ.get(WRITE_ENV)
    os.environ[WRITE_ENV] = "0"
    try:
        yield
    finally:
        if before is None:
            del os.environ[WRITE_ENV]
        else:
            os.environ[WRITE_ENV] = before


# --- memory of one large run --------------------------------------------------------------


@dataclass(frozen=True)
class MemoryReport:
    """One ``rows="none"`` run of ``deals`` deals in a fresh process.

    ``peak_rss_mb`` / ``peak_pss_mb``: largest sampled sum over the driver and its
    any child processes; ``maxrss_driver_mb``: the driver's high-water mark
    (``RUSAGE_SELF``, engine warm-up included, as in ``rummy run``);
    ``maxrss_children_mb``: the largest child's (``RUSAGE_CHILDREN``). Local workers are
    threads, so the only child is ``git rev-parse`` (provenance), which Linux charges
    with the driver's resident pages at the fork: not extra memory.
    """

    rules: str
    lineup: str
    deals: int
    workers: int
    chunk_size: int
    seconds: float
    hands_per_second: float
    peak_rss_mb: float | None
    peak_pss_mb: float | None
    peak_processes: int
    maxrss_driver_mb: float
    maxrss_children_mb: float


def _memory_child(spec: dict[str, Any]) -> dict[str, Any]:
    """The body of :func:`measure_memory`'s fresh process (as ``rummy run`` does it:
    engine warm-up in the driver, then the run)."""
    from sim.engine import play_deals
    from sim.rules import RuleSet
    from sim.study import execute as runner
    from sim.study.runs import RunConfig

    with _temporary_root() as root:
        config = RunConfig(
            rules=RuleSet.from_dict(spec["rules"]),
            lineup=spec["lineup"],
            count=spec["deals"],
            experiment="memory",
            seed=SEED,
            chunk_size=spec["chunk_size"],
            rows="none",
            out=root,
            command="rummy bench run --memory-deals",
        )
        with TreeSampler() as sampler:
            play_deals(config.rules, config.lineup, deals=1, seed=0, threads=1)  # compile first
            start = time.perf_counter()
            runner.run(config, runner.Executor(spec["workers"]))
            elapsed = time.perf_counter() - start
    return asdict(
        MemoryReport(
            rules=config.rule_set.name,
            lineup=config.lineup_label,
            deals=config.count,
            workers=spec["workers"],
            chunk_size=config.chunk_size,  # type: ignore[arg-type]
            seconds=elapsed,
            hands_per_second=config.count / elapsed,
            peak_rss_mb=sampler.peak_rss_mb,
            peak_pss_mb=sampler.peak_pss_mb,
            peak_processes=sampler.peak_processes,
            maxrss_driver_mb=_maxrss_mb(resource.RUSAGE_SELF),
            maxrss_children_mb=_maxrss_mb(resource.RUSAGE_CHILDREN),
        )
    )


_CHILD = (
    "import json, sys\n"
    "from sim.bench.run import _memory_child\n"
    "if __name__ == '__main__':\n"
    "    print(json.dumps(_memory_child(json.loads(sys.argv[1]))))\n"
)


def measure_memory(
    *,
    deals: int,
    rules: Any = DEFAULT_PRESET,
    lineup: str | tuple[str, ...] = "greedy/greedy",
    workers: int | None = None,
    chunk_size: int | None = None,
) -> MemoryReport:
    """Play one ``rows="none"`` run of ``deals`` in a fresh Python process (so its
    high-water marks are this run's alone) and report its memory and speed.

    ``rules`` is a preset name or a RuleSet (it travels to the child as a dict).
    """
    from sim.rules import RuleSet, get_rules

    if deals < 1:
        raise ValueError("deals must be at least 1")
    ruleset = rules if isinstance(rules, RuleSet) else get_rules(rules)
    spec = {
        "rules": ruleset.to_dict(),
        "lineup": lineup if isinstance(lineup, str) else list(lineup),
        "deals": deals,
        "workers": workers or os.cpu_count() or 1,
        "chunk_size": chunk_size,
    }
    root = Path(__file__).resolve().parent.parent
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join(filter(None, [str(root), env.get("PYTHONPATH")]))
    done = subprocess.run(
        [sys.executable, "-c", _CHILD, json.dumps(spec)],
        capture_output=True,
        text=True,
        env=env,
        check=False,
    )
    if done.returncode != 0:
        last = (done.stderr.strip().splitlines() or ["no output"])[-1]
        raise RuntimeError(f"the memory run failed (exit {done.returncode}): {last}")
    return MemoryReport(**json.loads(done.stdout.strip().splitlines()[-1]))
