"""``rummy bench``: how fast the solver, the engine and whole runs are (``sim/bench/``).

Examples: ``rummy bench deadwood --hands 200000 --repeat 7`` (one thread by default),
``rummy bench engine``, ``rummy bench run --deals 2_000_000 --repeat 3`` (``rummy run``
against the bare kernel, side by side: ``sim/bench/run.py`` says what is measured),
``rummy bench cold`` (each command from an empty cache).
"""

from __future__ import annotations

import os
import statistics
import sys
from dataclasses import asdict
from typing import TYPE_CHECKING, Annotated

import typer
from rich.console import Console

from sim.bench import DEADWOOD_HANDS, DEADWOOD_REPEAT, DEADWOOD_THREADS, REPEAT, RUN_DEALS
from sim.bench.deadwood import bench_deadwood, print_bench
from sim.cli.options import (
    MAX_WORKERS,
    AddressOption,
    Backend,
    BackendOption,
    ChunkOption,
    rules_of,
)
from sim.cli.output import compact_table, fail, print_json
from sim.rules import DEFAULT_PRESET, RuleError

if TYPE_CHECKING:  # sim.bench.run loads with the command that needs it
    from sim.bench.run import MemoryReport, RunBenchReport

__all__ = ["app"]

# Fixed caps, far above any useful benchmark, so that a typo is refused before any
# work: the engine's timed runs hold every hand's row at once (about 220 bytes a deal
# at two seats: 20 million deals is some 4 GiB); the solver's hands are 8 bytes each.
MAX_BENCH_DEALS = 20_000_000  # 100 x bench engine's default, 10 x bench run's
MAX_BENCH_HANDS = 10_000_000  # 100 x bench deadwood's default
MAX_REPEAT = 1_000
# A --memory-deals run plays in chunks (--rows none): its memory stays flat, so only
# the run time grows; 10^10 deals is about a day on 16 cores.
MAX_MEMORY_DEALS = 10**10

app = typer.Typer(
    help="Benchmarks: deadwood solver ns per hand, engine and end-to-end run hands per second.",
    no_args_is_help=True,
    context_settings={"help_option_names": ["-h", "--help"]},
)


@app.command("deadwood", short_help="Nanoseconds per deadwood call, against a naive search.")
def deadwood(
    hands: Annotated[
        int,
        typer.Option(
            "--hands",
            min=1,
            max=MAX_BENCH_HANDS,
            help="Random hands per timed call (joker rows: a tenth).",
        ),
    ] = DEADWOOD_HANDS,
    repeat: Annotated[
        int,
        typer.Option(
            "--repeat", min=1, max=MAX_REPEAT, help="Timed calls per row: median, min and max."
        ),
    ] = DEADWOOD_REPEAT,
    threads: Annotated[
        int, typer.Option("--threads", min=1, help="Numba threads to run on (at most its pool's).")
    ] = DEADWOOD_THREADS,
    rules: Annotated[
        str, typer.Option("--rules", help="Rule preset of the natural rows (ace mode, values).")
    ] = DEFAULT_PRESET,
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
    deals: Annotated[
        int, typer.Option("--deals", min=1, max=MAX_BENCH_DEALS, help="Hands per timed run.")
    ] = 200_000,
    repeat: Annotated[
        int,
        typer.Option(
            "--repeat", min=1, max=MAX_REPEAT, help="Timed runs per row (median, min, max)."
        ),
    ] = REPEAT,
    threads: Annotated[
        list[int] | None,
        typer.Option(
            "--threads", min=1, max=MAX_WORKERS, help="Thread counts to measure (repeatable)."
        ),
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
    from sim.bench.engine import bench_engine, start_times

    counts = threads or [1, os.cpu_count() or 1]
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
    table = compact_table(
        f"Round engine: hands per second, median of {repeat} runs of {deals:,} hands"
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


@app.command("cold", short_help="Seconds of each command from an empty cache, and warm.")
def cold(
    repeat: Annotated[
        int,
        typer.Option("--repeat", min=1, max=MAX_REPEAT, help="Fresh processes per case (median)."),
    ] = REPEAT,
    case: Annotated[
        list[str] | None,
        typer.Option("--case", help="Only the cases whose name holds this text (repeatable)."),
    ] = None,
    as_json: Annotated[bool, typer.Option("--json", help="Print the figures as JSON.")] = False,
) -> None:
    """Seconds of each command from an empty cache (a fresh process and cache folder
    each time) and warm, against the goals of issue 17 (sim/bench/cold.py)."""
    from sim.bench.cold import CASES, bench_cold, cases_named, print_cold

    cases = cases_named(case or [])
    if not cases:
        names = "; ".join(c.name for c in CASES)
        fail(f"--case {', '.join(case or [])} matches no case; the cases are: {names}")
    try:
        rows = bench_cold(cases, repeat, on_step=None if as_json else Console(stderr=True).print)
    except RuntimeError as error:
        fail(str(error))
    if as_json:
        print_json([asdict(row) for row in rows])
    else:
        print_cold(rows, repeat)


_RUN_LABELS = {  # short: the tables fit 80 columns
    "kernel": "kernel",
    "hands": "run, rows hands",
    "none": "run, rows none",
    "ray": "ray, workers write",
    "ray-driver": "ray, driver writes",
}


def _mb(value: float | None) -> str:
    return "-" if value is None else f"{value:,.0f}"


def _ms(value: float | None) -> str:
    return "-" if value is None else f"{value:,.1f}"


@app.command("run", short_help="Hands per second of rummy run against the bare kernel.")
def run(
    rules: Annotated[str, typer.Option("--rules", help="Rule preset.")] = DEFAULT_PRESET,
    rule: Annotated[
        list[str] | None,
        typer.Option("--rule", "-r", help="Override one rule parameter, key=value (repeatable)."),
    ] = None,
    seats: Annotated[
        str, typer.Option("--seats", "-s", help="Line-up: seat specs joined by '/' or ','.")
    ] = "greedy/greedy",
    deals: Annotated[
        int,
        typer.Option("--deals", "-n", min=1, max=MAX_BENCH_DEALS, help="Deals per timed call."),
    ] = RUN_DEALS,
    workers: Annotated[
        int | None,
        typer.Option(
            "--workers",
            "-w",
            min=1,
            max=MAX_WORKERS,
            help="Kernel threads and run worker threads (default: CPU cores).",
            show_default=False,
        ),
    ] = None,
    repeat: Annotated[
        int,
        typer.Option(
            "--repeat", min=1, max=MAX_REPEAT, help="Rounds of kernel, hands, none (medians)."
        ),
    ] = REPEAT,
    chunk_size: ChunkOption = None,
    memory_deals: Annotated[
        list[int] | None,
        typer.Option(
            "--memory-deals",
            min=1,
            max=MAX_MEMORY_DEALS,
            help="Also play one --rows none run of N deals in a fresh process and report its "
            "peak memory (repeatable, e.g. 2_000_000 and 20_000_000 for the trend).",
            show_default=False,
        ),
    ] = None,
    backend: BackendOption = Backend.local,
    address: AddressOption = None,
    as_json: Annotated[bool, typer.Option("--json", help="Print the figures as JSON.")] = False,
) -> None:
    """Hands per second of `rummy run` (with and without per-hand rows) against the bare
    kernel on the same deals and worker count, measured side by side; overheads and
    peak memory of the process tree. With --backend ray also the run on Ray (a private
    instance of --workers CPUs here, or the cluster at --address), workers or driver
    writing the parts, and the driver's CPU per chunk."""
    from sim.bench.run import bench_run, measure_memory
    from sim.cli.runner import executor_of
    from sim.study.runs import RunError
    from strategies import StrategyError

    executor = executor_of(workers, backend, address)
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
            executor=executor,
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
    _print_run_bench(report, memory)


def _print_run_bench(report: RunBenchReport, memory: list[MemoryReport]) -> None:
    """The modes side by side in tables that fit 80 columns (rates; cost: CPU and memory;
    on Ray the chunks' milliseconds), what the figures mean under them, then the memory
    runs."""
    console = Console(highlight=False, width=None if sys.stdout.isatty() else 160)
    console.print(
        f"{report.rules}, {report.lineup}: {report.deals:,} deals, {report.workers} workers "
        f"({report.cpus} CPUs), chunks of {report.chunk_size:,}; median of {report.repeat}",
        markup=False,
    )
    kernel_rate = report.modes["kernel"].hands_per_second
    rates = compact_table("Hands per second")
    for column in ("mode", "hands/s", "min", "max", "vs kernel", "overhead"):
        rates.add_column(column, justify="left" if column == "mode" else "right", no_wrap=True)
    cost = compact_table("Cost")
    for column in ("mode", "CPU µs/hand", "CPU overhead", "summary s", "peak RSS MB",
                   "peak PSS MB"):  # fmt: skip
        cost.add_column(column, justify="left" if column == "mode" else "right", no_wrap=True)
    chunks = compact_table("Ray: milliseconds per chunk")
    for column in ("mode", "driver", "worker"):
        chunks.add_column(column, justify="left" if column == "mode" else "right", no_wrap=True)
    for mode, timing in report.modes.items():
        rates.add_row(
            _RUN_LABELS[mode],
            f"{timing.hands_per_second:,.0f}",
            f"{timing.low:,.0f}",
            f"{timing.high:,.0f}",
            f"{timing.hands_per_second / kernel_rate:.2f}x" if kernel_rate > 0 else "-",
            "-" if timing.overhead is None else f"{timing.overhead * 100:+.1f}%",
        )
        cost.add_row(
            _RUN_LABELS[mode],
            f"{timing.cpu_us_per_hand:.2f}",
            "-" if timing.cpu_overhead is None else f"{timing.cpu_overhead * 100:+.1f}%",
            f"{statistics.median(timing.summary_seconds):.2f}" if timing.summary_seconds else "-",
            _mb(timing.peak_rss_mb),
            _mb(timing.peak_pss_mb),
        )
        chunks.add_row(
            _RUN_LABELS[mode], _ms(timing.driver_ms_per_chunk), _ms(timing.worker_ms_per_chunk)
        )
    console.print(rates)
    console.print(cost)
    if report.backend == "ray":
        console.print(chunks)
    on_ray = "; ray: rummy run --backend ray, the workers or the driver writing the parts"
    console.print(
        "kernel: play_deals on threads; run: rummy run with --rows hands or none"
        f"{on_ray if report.backend == 'ray' else ''}. overhead = kernel rate / rate - 1 "
        "(wall time); CPU = user + system time of the process tree, median per hand; "
        "summary = the analysis rummy run prints afterwards (median s, not in the rates); "
        "peak memory: largest sampled sum over this process and its workers (RSS counts "
        "shared pages per process, PSS splits them)",
        markup=False,
    )
    if memory:
        mem = compact_table("Memory of one --rows none run (a fresh process, warm-up included)")
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
