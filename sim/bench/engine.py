"""Engine speed: hands per second for standard line-ups, and the cold and warm start.

Measured side by side in one run, medians of repeats, on 1 thread and on all cores;
``rummy bench engine`` prints them. Timings are never asserted in tests.
"""

from __future__ import annotations

import os
import statistics
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass

from sim.engine import play_deals

# (label, rules, line-up): the figures the engine issue asks for.
CASES = (
    ("Gin, greedy vs greedy", "gin", "greedy/greedy"),
    ("Knock Rummy 4 players, greedy", "knock-rummy", "greedy"),
    ("Gin, simple vs simple", "gin", "simple/simple"),
)

_START = "from sim.engine import play_deals; play_deals('gin', 'greedy/greedy', deals=10, seed=1)"


@dataclass(frozen=True)
class EngineRow:
    label: str
    rules: str
    lineup: str
    deals: int
    threads: int
    hands_per_second: float  # median over repeats
    low: float
    high: float
    mean_turns: float


def bench_case(
    rules: str, lineup: str, *, deals: int, threads: int, repeat: int
) -> tuple[list[float], float]:
    """Hands per second of each repeat (after a warm-up), and the mean hand length."""
    cols = play_deals(rules, lineup, deals=min(deals, 1000), seed=1, threads=threads)
    rates = []
    for r in range(repeat):
        start = time.perf_counter()
        cols = play_deals(rules, lineup, deals=deals, seed=r, threads=threads)
        rates.append(deals / (time.perf_counter() - start))
    return rates, float(cols.turns.mean())


def bench_engine(*, deals: int, repeat: int, threads: list[int]) -> list[EngineRow]:
    rows = []
    for label, rules, lineup in CASES:
        for n_threads in threads:
            rates, turns = bench_case(rules, lineup, deals=deals, threads=n_threads, repeat=repeat)
            rows.append(
                EngineRow(
                    label,
                    rules,
                    lineup,
                    deals,
                    n_threads,
                    statistics.median(rates),
                    min(rates),
                    max(rates),
                    turns,
                )
            )
    return rows


def start_times() -> tuple[float, float]:
    """Seconds for a fresh process to play 10 hands: with an empty numba cache (cold:
    compiles everything) and then again with that cache (warm)."""
    with tempfile.TemporaryDirectory(prefix="rummy-cold-") as cache:
        env = {**os.environ, "NUMBA_CACHE_DIR": cache}
        env.pop("RUMMY_NUMBA_CACHE_BASE", None)
        times = []
        for _ in range(2):
            start = time.perf_counter()
            subprocess.run([sys.executable, "-c", _START], env=env, check=True)
            times.append(time.perf_counter() - start)
    return times[0], times[1]
