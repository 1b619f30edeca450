"""``rummy bench``: how fast the solver, the engine and whole runs are.

Examples: ``rummy bench deadwood --hands 200000 --repeat 7`` (one thread by default),
``rummy bench engine``, ``rummy bench run --deals 2_000_000 --repeat 3`` (``rummy run``
against the bare kernel, side by side: ``sim/bench_run.py`` says what is measured).

``rummy bench deadwood``:

Each row times one kernel on random hands (seeded, so every run times the same hands):
the median, min and max over ``--repeat`` timed calls, after a first call that
compiles the kernel or loads it from numba's cache (reported on its own) and an
untimed warm-up call on the full batch. The naive baseline
(``benchmarks/naive_solver.py``: list the melds, search over disjoint combinations)
is timed on the same hands in the same run, repeat by repeat, and its answers are
checked against the solver's. The kernels are timed directly (the batch
functions ``sim.min_deadwood`` and ``sim.best_discard`` call), without the API's input
checks, into output arrays made once per row (outside the timed calls).
``benchmarks/bench_deadwood.py`` runs the same benchmark without the CLI.
"""

from __future__ import annotations

import importlib
import importlib.util
import os
import statistics
import sys
import time
from collections.abc import Callable
from dataclasses import asdict, dataclass
from pathlib import Path
from types import ModuleType
from typing import Annotated, Any

import numba
import numpy as np
import typer
from rich.console import Console
from rich.table import Table

from kernels.deadwood import best_discard_batch, min_deadwood_batch
from kernels.enumerate import random_hands_nb
from kernels.layout import JOKER_BITS, N_NATURAL
from kernels.tables import table_views
from sim.cli.options import rules_of
from sim.cli.output import fail, print_json
from sim.rules import RuleError, RuleSet, get_rules
from sim.solver import tables_for

__all__ = ["BenchReport", "BenchRow", "app", "bench_deadwood", "print_bench"]

app = typer.Typer(
    help="Benchmarks: deadwood solver ns per hand, engine and end-to-end run hands per second.",
    no_args_is_help=True,
    context_settings={"help_option_names": ["-h", "--help"]},
)

BENCH_SEED = 20240607  # fixed, so every run times the same hands
JOKER_PRESET = "joker-knock"  # the joker rows' rules when --rules has no jokers
JOKER_HANDS_DIVISOR = 10  # joker hands are slower: time this many times fewer
FIRST_CALL_HANDS = 64  # the warm-up call: enough to run every code path once
# (cards, operation, jokers): 2-player Gin hands (10 dealt, 11 after the draw) and
# 4-player Knock Rummy hands (7 and 8), without and with both jokers.
SHAPES = (
    (10, "min deadwood", 0),
    (11, "best discard", 0),
    (7, "min deadwood", 0),
    (8, "best discard", 0),
    (10, "min deadwood", 2),
    (11, "best discard", 2),
    (7, "min deadwood", 2),
    (8, "best discard", 2),
)


@dataclass(frozen=True)
class BenchRow:
    """One timed kernel.

    ``*_ns`` are nanoseconds per hand; ``naive_*`` are None where the baseline does
    not apply (jokers) or is unavailable; ``ratio`` is naive median / solver median.
    """

    cards: int
    operation: str
    jokers: int
    rules: str
    hands: int
    median_ns: float
    min_ns: float
    max_ns: float
    first_call_s: float
    naive_median_ns: float | None
    naive_min_ns: float | None
    naive_max_ns: float | None
    naive_first_call_s: float | None
    ratio: float | None
    naive_agrees: bool | None


@dataclass(frozen=True)
class BenchReport:
    """A whole benchmark run."""

    threads: int
    hands: int
    repeat: int
    rules: str
    seed: int
    naive: str
    rows: list[BenchRow]

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)


def _naive_module() -> ModuleType | None:
    """``benchmarks/naive_solver.py``, by import or from the source tree; None if absent.

    ``benchmarks/`` is not an installed package; with an editable install (or from the
    repository root) it sits two levels above this file.
    """
    try:
        return importlib.import_module("benchmarks.naive_solver")
    except ImportError:
        pass
    path = Path(__file__).resolve().parents[2] / "benchmarks" / "naive_solver.py"
    if not path.is_file():
        return None
    name = "benchmarks.naive_solver"
    spec = importlib.util.spec_from_file_location(name, path)
    if spec is None or spec.loader is None:
        return None
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    spec.loader.exec_module(module)
    return module


def _hands(cards: int, jokers: int, n: int) -> np.ndarray:
    """``n`` random hands of ``cards`` cards, holding both jokers when ``jokers`` is 2."""
    out = np.empty(n, np.int64)
    random_hands_nb(
        np.uint64(BENCH_SEED + 1000 * cards + jokers), 0, cards - jokers, N_NATURAL, out
    )
    masks = out.astype(np.uint64)
    if jokers:
        masks |= np.uint64(JOKER_BITS)
    return masks


def _time(call: Callable[[np.ndarray], Any], masks: np.ndarray) -> float:
    """Nanoseconds per hand of one call."""
    start = time.perf_counter()
    call(masks)
    return float((time.perf_counter() - start) * 1e9 / masks.shape[0])


def _first_call(call: Callable[[np.ndarray], Any], masks: np.ndarray) -> float:
    start = time.perf_counter()
    call(masks[:FIRST_CALL_HANDS])
    return time.perf_counter() - start


class _Buffers:
    """Output arrays (and the ``forbidden`` input: -1 for all) of one batch size, made once.

    Timed calls reuse them: allocating ~1.6 MB arrays inside the timed call measured
    the allocator instead of the kernel (once glibc hands such arrays back to the
    system, every call page-faults them in again: 10 ns or more per 11-card hand).
    """

    def __init__(self) -> None:
        self._by_size: dict[int, tuple[np.ndarray, np.ndarray, np.ndarray]] = {}

    def get(self, n: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        if n not in self._by_size:
            self._by_size[n] = (
                np.full(1, -1, np.int64),  # no card forbidden, as sim.best_discard passes it
                np.zeros(n, np.int64),
                np.zeros(n, np.int64),
            )
        return self._by_size[n]


def _solver_call(operation: str, rules: RuleSet) -> Callable[[np.ndarray], Any]:
    """The kernel on a batch. Returns its output arrays themselves (``deadwood``, or
    ``(cards, deadwood)``), which the next call overwrites: nothing is copied."""
    tab = tables_for(rules)
    jokers = rules.jokers > 0
    buffers = _Buffers()

    def min_deadwood(masks: np.ndarray) -> np.ndarray:
        _, out, _ = buffers.get(masks.shape[0])
        min_deadwood_batch(masks, tab, jokers, out)
        return out

    def best_discard(masks: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        forbidden, cards, deadwood = buffers.get(masks.shape[0])
        best_discard_batch(masks, forbidden, tab, jokers, cards, deadwood)
        return cards, deadwood

    return min_deadwood if operation == "min deadwood" else best_discard


def _naive_call(naive: ModuleType, operation: str, rules: RuleSet) -> Callable[[np.ndarray], Any]:
    """The naive baseline, timed like ``_solver_call`` (buffers made once)."""
    views = table_views(tables_for(rules))
    windows = views.windows.astype(np.int32)
    card_value = views.card_value.astype(np.int32)
    buffers = _Buffers()

    def min_deadwood(masks: np.ndarray) -> np.ndarray:
        _, out, _ = buffers.get(masks.shape[0])
        naive.min_deadwood_naive_batch(masks, windows, card_value, out)
        return out

    def best_discard(masks: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        _, cards, deadwood = buffers.get(masks.shape[0])
        naive.best_discard_naive_batch(masks, windows, card_value, cards, deadwood)
        return cards, deadwood

    return min_deadwood if operation == "min deadwood" else best_discard


def _bench_row(
    cards: int,
    operation: str,
    jokers: int,
    rules: RuleSet,
    hands: int,
    repeat: int,
    naive: ModuleType | None,
) -> BenchRow:
    masks = _hands(cards, jokers, hands)
    solver = _solver_call(operation, rules)
    baseline = _naive_call(naive, operation, rules) if naive is not None and not jokers else None
    first = _first_call(solver, masks)
    naive_first = _first_call(baseline, masks) if baseline else None
    # One untimed full-size call each: the first large batch pays one-off costs
    # (thread pool start-up, page faults of the reused buffers) that are not the solver's.
    solver(masks)
    if baseline:
        baseline(masks)
    times: list[float] = []
    naive_times: list[float] = []
    for _ in range(repeat):  # interleaved, so both see the same machine load
        times.append(_time(solver, masks))
        if baseline:
            naive_times.append(_time(baseline, masks))
    agrees = bool(np.array_equal(solver(masks), baseline(masks))) if baseline else None
    median = statistics.median(times)
    naive_median = statistics.median(naive_times) if naive_times else None
    return BenchRow(
        cards=cards,
        operation=operation,
        jokers=jokers,
        rules=rules.name,
        hands=hands,
        median_ns=median,
        min_ns=min(times),
        max_ns=max(times),
        first_call_s=first,
        naive_median_ns=naive_median,
        naive_min_ns=min(naive_times) if naive_times else None,
        naive_max_ns=max(naive_times) if naive_times else None,
        naive_first_call_s=naive_first,
        ratio=naive_median / median if naive_median is not None and median > 0 else None,
        naive_agrees=agrees,
    )


def bench_deadwood(
    *,
    hands: int = 100_000,
    repeat: int = 5,
    threads: int = 1,
    rules: str | RuleSet = "gin",
    naive: bool = True,
) -> BenchReport:
    """Time the solver kernels (and the naive baseline) on random hands.

    Parameters
    ----------
    hands : int
        Hands per timed call (joker rows use ``hands // 10``, at least 1).
    repeat : int
        Timed calls per row; the report gives their median, min and max.
    threads : int
        Numba threads during the benchmark (restored afterwards).
    rules : str or RuleSet
        Rules of the natural rows; the joker rows use them if they have jokers, else
        the ``joker-knock`` preset.
    naive : bool
        Also time ``benchmarks/naive_solver.py`` (if present) on the natural rows.

    Raises
    ------
    ValueError
        For hands, repeat or threads out of range, or unknown rules.
    """
    if hands < 1:
        raise ValueError(f"hands={hands} is not allowed; choose a whole number >= 1")
    if repeat < 1:
        raise ValueError(f"repeat={repeat} is not allowed; choose a whole number >= 1")
    most = int(numba.config.NUMBA_NUM_THREADS)  # type: ignore[attr-defined]
    if not 1 <= threads <= most:
        raise ValueError(f"threads={threads} is not allowed; choose 1..{most}")
    natural_rules = rules if isinstance(rules, RuleSet) else get_rules(rules)
    joker_rules = natural_rules if natural_rules.jokers else get_rules(JOKER_PRESET)
    module = _naive_module() if naive else None
    before = numba.get_num_threads()
    numba.set_num_threads(threads)
    try:
        rows = [
            _bench_row(
                cards,
                operation,
                jokers,
                joker_rules if jokers else natural_rules,
                max(1, hands // JOKER_HANDS_DIVISOR) if jokers else hands,
                repeat,
                module,
            )
            for cards, operation, jokers in SHAPES
        ]
    finally:
        numba.set_num_threads(before)
    return BenchReport(
        threads=threads,
        hands=hands,
        repeat=repeat,
        rules=natural_rules.name,
        seed=BENCH_SEED,
        naive="benchmarks/naive_solver.py" if module is not None else "unavailable",
        rows=rows,
    )


def _ns(value: float | None) -> str:
    return "-" if value is None else f"{value:,.1f}"


def print_bench(report: BenchReport, console: Console | None = None) -> None:
    """Print a report as a rich table with a one-line header."""
    console = console or Console()
    table = Table(
        title=(
            f"Deadwood solver, ns per hand: {report.threads} thread(s), median of "
            f"{report.repeat}, rules {report.rules}"
        ),
        caption=(
            f"hands seeded with {report.seed}; naive baseline: {report.naive}; "
            "first call = compile or cache load"
        ),
    )
    for header in ("hand", "rules", "hands", "median", "min", "max", "first call"):
        table.add_column(header, no_wrap=True, justify="left" if header == "hand" else "right")
    for header in ("naive median", "naive / solver", "agree"):
        table.add_column(header, no_wrap=True, justify="right")
    for row in report.rows:
        jokers = " (2 jokers)" if row.jokers else ""
        hand = f"{row.cards} cards{jokers}, {row.operation}"
        table.add_row(
            hand,
            row.rules,
            f"{row.hands:,}",
            _ns(row.median_ns),
            _ns(row.min_ns),
            _ns(row.max_ns),
            f"{row.first_call_s:.3f} s",
            _ns(row.naive_median_ns),
            "-" if row.ratio is None else f"{row.ratio:.1f}x",
            "-" if row.naive_agrees is None else ("yes" if row.naive_agrees else "NO"),
        )
    console.print(table)


@app.command("deadwood")
def deadwood(
    hands: Annotated[
        int, typer.Option("--hands", help="Random hands per timed call (joker rows: a tenth).")
    ] = 100_000,
    repeat: Annotated[
        int, typer.Option("--repeat", help="Timed calls per row: median, min and max.")
    ] = 5,
    threads: Annotated[int, typer.Option("--threads", help="Numba threads to run on.")] = 1,
    rules: Annotated[
        str, typer.Option("--rules", help="Rule preset of the natural rows (ace mode, values).")
    ] = "gin",
    as_json: Annotated[
        bool, typer.Option("--json", help="Print the report as JSON instead of a table.")
    ] = False,
) -> None:
    """Nanoseconds per min-deadwood and best-discard call, against a naive search."""
    try:
        report = bench_deadwood(hands=hands, repeat=repeat, threads=threads, rules=rules)
    except (RuleError, ValueError) as error:
        fail(str(error))
    if as_json:
        print_json(report.to_dict())
        return
    print_bench(report)
    if any(row.naive_agrees is False for row in report.rows):
        fail("the naive baseline disagrees with the solver on some hands")


@app.command("engine")
def engine(
    deals: Annotated[int, typer.Option("--deals", help="Hands per timed run.")] = 200_000,
    repeat: Annotated[
        int, typer.Option("--repeat", help="Timed runs per row (median, min, max).")
    ] = 3,
    threads: Annotated[
        list[int] | None, typer.Option("--threads", help="Thread counts to measure (repeatable).")
    ] = None,
    cold: Annotated[
        bool,
        typer.Option(
            "--cold/--no-cold",
            help="Also time a fresh process compiling everything (empty cache), then a warm one.",
        ),
    ] = False,
    as_json: Annotated[bool, typer.Option("--json", help="Print the figures as JSON.")] = False,
) -> None:
    """Hands per second of the round engine for the standard line-ups."""
    from sim.bench_engine import bench_engine, start_times

    counts = threads or [1, os.cpu_count() or 1]
    if deals < 1 or repeat < 1 or any(t < 1 for t in counts):
        fail("--deals, --repeat and --threads must be at least 1")
    rows = bench_engine(deals=deals, repeat=repeat, threads=sorted(set(counts)))
    starts = start_times() if cold else None
    if as_json:
        print_json(
            {
                "rows": [asdict(row) for row in rows],
                "cold_start_s": starts[0] if starts else None,
                "warm_start_s": starts[1] if starts else None,
            }
        )
        return
    table = Table(
        title=f"Round engine: hands per second, median of {repeat} runs of {deals:,} hands"
    )
    for column in ("case", "threads", "hands/s", "min", "max", "turns per hand"):
        table.add_column(column, justify="left" if column == "case" else "right")
    for row in rows:
        table.add_row(
            row.label,
            str(row.threads),
            f"{row.hands_per_second:,.0f}",
            f"{row.low:,.0f}",
            f"{row.high:,.0f}",
            f"{row.mean_turns:.1f}",
        )
    console = Console()
    console.print(table)
    if starts:
        console.print(
            f"cold start (compiles everything): {starts[0]:.1f} s; warm start: {starts[1]:.1f} s"
        )


@app.command("cold")
def cold(
    repeat: Annotated[int, typer.Option("--repeat", help="Fresh processes per case (median).")] = 3,
    case: Annotated[
        list[str] | None,
        typer.Option("--case", help="Only the cases whose name holds this text (repeatable)."),
    ] = None,
    as_json: Annotated[bool, typer.Option("--json", help="Print the figures as JSON.")] = False,
) -> None:
    """Seconds of each command from an empty cache (a fresh process and cache folder
    each time) and warm, against the goals of issue 17 (sim/bench_cold.py)."""
    from sim.bench_cold import bench_cold, cases_named, print_cold

    cases = cases_named(case or [])
    if repeat < 1 or not cases:
        fail("--repeat must be at least 1 and --case must match a case")
    try:
        rows = bench_cold(cases, repeat, on_step=None if as_json else Console(stderr=True).print)
    except RuntimeError as error:
        fail(str(error))
    if as_json:
        print_json([asdict(row) for row in rows])
    else:
        print_cold(rows, repeat)


_RUN_LABELS = {
    "kernel": "kernel (play_deals, threads)",
    "hands": "rummy run --rows hands",
    "none": "rummy run --rows none",
}


def _mb(value: float | None) -> str:
    return "-" if value is None else f"{value:,.0f}"


@app.command("run")
def run(
    rules: Annotated[str, typer.Option("--rules", help="Rule preset.")] = "gin",
    rule: Annotated[
        list[str] | None,
        typer.Option("--rule", "-r", help="Override one rule parameter, key=value (repeatable)."),
    ] = None,
    seats: Annotated[
        str, typer.Option("--seats", "-s", help="Line-up: seat specs joined by '/' or ','.")
    ] = "greedy/greedy",
    deals: Annotated[int, typer.Option("--deals", "-n", help="Deals per timed call.")] = 2_000_000,
    workers: Annotated[
        int | None,
        typer.Option(
            "--workers",
            "-w",
            help="Kernel threads and run worker threads (default: CPU cores).",
            show_default=False,
        ),
    ] = None,
    repeat: Annotated[
        int, typer.Option("--repeat", help="Rounds of kernel, hands, none (medians).")
    ] = 3,
    chunk_size: Annotated[
        int | None,
        typer.Option(
            "--chunk-size", help="Deals per run chunk (default: the runner's).", show_default=False
        ),
    ] = None,
    memory_deals: Annotated[
        list[int] | None,
        typer.Option(
            "--memory-deals",
            help="Also play one --rows none run of N deals in a fresh process and report its "
            "peak memory (repeatable, e.g. 2_000_000 and 20_000_000 for the trend).",
            show_default=False,
        ),
    ] = None,
    as_json: Annotated[bool, typer.Option("--json", help="Print the figures as JSON.")] = False,
) -> None:
    """Hands per second of `rummy run` (with and without per-hand rows) against the bare
    kernel on the same deals and worker count, measured side by side; overheads and
    peak memory of the process tree."""
    from sim.bench_run import bench_run, measure_memory
    from sim.study.runs import RunError
    from strategies import StrategyError

    if deals < 1 or repeat < 1 or (workers is not None and workers < 1):
        fail("--deals, --repeat and --workers must be at least 1")
    if chunk_size is not None and chunk_size < 1:
        fail("--chunk-size must be at least 1")
    if any(n < 1 for n in memory_deals or []):
        fail("--memory-deals must be at least 1")
    ruleset = rules_of(rules, rule)
    err = Console(stderr=True, highlight=False)

    def step(mode: str, index: int, rate: float) -> None:
        if not as_json:
            err.print(f"repeat {index + 1}/{repeat}: {_RUN_LABELS[mode]}: {rate:,.0f} hands/s")

    try:
        report = bench_run(
            rules=ruleset,
            lineup=seats,
            deals=deals,
            workers=workers,
            repeat=repeat,
            chunk_size=chunk_size,
            on_step=step,
        )
        memory = [
            measure_memory(
                deals=n,
                rules=ruleset,
                lineup=seats,
                workers=report.workers,
                chunk_size=chunk_size,
            )
            for n in sorted(set(memory_deals or []))
        ]
    except (RuleError, StrategyError, RunError, ValueError, RuntimeError) as error:
        fail(str(error).strip().splitlines()[0] if str(error).strip() else type(error).__name__)
    if as_json:
        print_json({**report.to_dict(), "memory": [asdict(m) for m in memory]})
        return
    console = Console(highlight=False, width=None if sys.stdout.isatty() else 160)
    table = Table(
        title=(
            f"{report.rules}, {report.lineup}: {report.deals:,} deals, {report.workers} "
            f"workers ({report.cpus} CPUs), chunks of {report.chunk_size:,}; median of "
            f"{report.repeat}"
        ),
        caption=(
            "overhead = kernel rate / rate - 1 (wall time); CPU = user + system time of the "
            "process tree, median per hand; summary = the analysis rummy run prints afterwards "
            "(median s, not in the rates); peak memory: largest sampled sum over this "
            "process and its workers (RSS counts shared pages per process, PSS splits them)"
        ),
    )
    for column in ("mode", "hands/s", "min", "max", "vs kernel", "overhead",
                   "CPU µs/hand", "CPU overhead", "summary s", "peak RSS MB",
                   "peak PSS MB"):  # fmt: skip
        table.add_column(column, justify="left" if column == "mode" else "right", no_wrap=True)
    kernel_rate = report.modes["kernel"].hands_per_second
    for mode, timing in report.modes.items():
        table.add_row(
            _RUN_LABELS[mode],
            f"{timing.hands_per_second:,.0f}",
            f"{timing.low:,.0f}",
            f"{timing.high:,.0f}",
            f"{timing.hands_per_second / kernel_rate:.2f}x" if kernel_rate > 0 else "-",
            "-" if timing.overhead is None else f"{timing.overhead * 100:+.1f}%",
            f"{timing.cpu_us_per_hand:.2f}",
            "-" if timing.cpu_overhead is None else f"{timing.cpu_overhead * 100:+.1f}%",
            f"{statistics.median(timing.summary_seconds):.2f}" if timing.summary_seconds else "-",
            _mb(timing.peak_rss_mb),
            _mb(timing.peak_pss_mb),
        )
    console.print(table)
    if memory:
        mem = Table(title="Memory of one --rows none run (fresh process, engine warm-up included)")
        for column in ("deals", "hands/s", "peak RSS MB", "peak PSS MB", "processes",
                       "driver maxrss MB"):  # fmt: skip
            mem.add_column(column, justify="right", no_wrap=True)
        for m in memory:
            mem.add_row(
                f"{m.deals:,}",
                f"{m.hands_per_second:,.0f}",
                _mb(m.peak_rss_mb),
                _mb(m.peak_pss_mb),
                str(m.peak_processes),
                _mb(m.maxrss_driver_mb),
            )
        console.print(mem)
