"""First contact: how long each command takes from an empty cache, and warm.

``rummy bench cold`` runs every case as a user would, in a fresh process: cold from
an empty numba cache (a new folder for every repeat, so every repeat compiles all it
needs), warm after one untimed run has filled a cache. It reports the median, min and
max wall seconds of ``repeat`` runs, the compile part (cold minus warm) and the goal
of issue 17 for each case. Timings are never asserted in tests.

Measure in an environment installed as a user installs it (``pip install .``, no test
extras): with SciPy present, numba imports ``scipy.linalg`` at its first compile or
cache load, which adds about 0.2 s to every case.
"""

from __future__ import annotations

import os
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from dataclasses import dataclass

from rich.console import Console

from sim.bench import REPEAT
from sim.present.terminal import compact_table

# The command line as a user types it: ``rummy ARGS`` is this interpreter running the
# CLI (the same sources as this process).
_RUMMY = "import sys; from sim.cli import app; sys.argv[0] = 'rummy'; app()"
_ENGINE_START = (
    "from sim.engine import play_deals; play_deals('gin', 'greedy/greedy', deals=10, seed=1)"
)
_HAND = "5C 6C 7C 7D 7H 7S KD 2S 9H TH JH".split()
_SCORE = ["--rules", "gin", "--knocker", "0", "--hand", "AC 2C 3C 4D 5D 6D 9H 9S 9C 2S",
          "--hand", "TD JD QD KD 5S 6S 7S 8H 2H 3H"]  # fmt: skip


def _run(rules: str, seats: str, deals: int) -> list[str]:
    return ["run", "--rules", rules, "--seats", seats, "--deals", str(deals), "--seed", "1"]


@dataclass(frozen=True)
class Case:
    name: str
    argv: list[str]  # after ``python``; ``{out}`` stands for a fresh results folder
    cold_goal: float | None  # seconds of compile (cold minus warm), issue 17
    warm_goal: float | None  # seconds warm


def _rummy(*args: str) -> list[str]:
    return ["-c", _RUMMY, *args]


CASES = (
    Case("rummy run, gin, greedy:knock_at=5/simple",
         _rummy(*_run("gin", "greedy:knock_at=5/simple", 2000), "--out", "{out}"), 15, None),
    Case("rummy run, gin-classic, greedy:knock_at=5/simple",
         _rummy(*_run("gin-classic", "greedy:knock_at=5/simple", 2000), "--out", "{out}"), 15,
         None),
    Case("rummy deadwood (11 cards)", _rummy("deadwood", *_HAND), 5, 0.6),
    Case("rummy score", _rummy("score", *_SCORE), 5, 0.6),
    Case("rummy run, gin, mc:samples=20,opponents=policy/greedy",
         _rummy(*_run("gin", "mc:samples=20,opponents=policy/greedy", 20), "--out", "{out}"),
         30, None),
    Case("engine start (10 hands, Python API)", ["-c", _ENGINE_START], 15, 1.0),
    Case("rummy warm (everything, every core)", _rummy("warm"), 60, None),
    Case("rummy --help", _rummy("--help"), None, 0.3),
    Case("rummy --version", _rummy("--version"), None, 0.3),
)  # fmt: skip


@dataclass(frozen=True)
class Timing:
    median: float
    low: float
    high: float


@dataclass(frozen=True)
class ColdRow:
    name: str
    cold: Timing
    warm: Timing
    compile_s: float  # cold median minus warm median
    cold_goal: float | None
    warm_goal: float | None


def _time(argv: list[str], cache: str) -> float:
    """Wall seconds of ``python ARGV`` with numba's cache in ``cache``."""
    env = {**os.environ, "NUMBA_CACHE_DIR": cache}
    env.pop("RUMMY_NUMBA_CACHE_BASE", None)
    # As after ``pip install``, which compiles every module's bytecode: without it,
    # each process compiles numba's and our sources again (+0.4 s on every warm case).
    env.pop("PYTHONDONTWRITEBYTECODE", None)
    with tempfile.TemporaryDirectory(prefix="rummy-bench-out-") as out:
        args = [a.replace("{out}", out) for a in argv]
        start = time.perf_counter()
        done = subprocess.run(
            [sys.executable, *args], env=env, capture_output=True, text=True, check=False
        )
        seconds = time.perf_counter() - start
    if done.returncode != 0:
        tail = (done.stderr or done.stdout).strip().splitlines()[-1:] or ["no output"]
        raise RuntimeError(f"{' '.join(args[2:4])}... failed: {tail[0]}")
    return seconds


def _timing(values: list[float]) -> Timing:
    return Timing(statistics.median(values), min(values), max(values))


def bench_cold(
    cases: tuple[Case, ...] = CASES,
    repeat: int = REPEAT,
    on_step: Callable[[str], None] | None = None,
) -> list[ColdRow]:
    """Cold and warm wall seconds of every case, ``repeat`` fresh processes each."""
    rows = []
    for case in cases:
        cold = []
        for i in range(repeat):
            with tempfile.TemporaryDirectory(prefix="rummy-bench-cache-") as cache:
                cold.append(_time(case.argv, cache))
            if on_step:
                on_step(f"{case.name}: cold {i + 1}/{repeat}: {cold[-1]:.1f} s")
        with tempfile.TemporaryDirectory(prefix="rummy-bench-cache-") as cache:
            _time(case.argv, cache)  # fills the cache
            warm = [_time(case.argv, cache) for _ in range(repeat)]
        if on_step:
            on_step(f"{case.name}: warm {statistics.median(warm):.2f} s")
        rows.append(
            ColdRow(
                name=case.name,
                cold=_timing(cold),
                warm=_timing(warm),
                compile_s=statistics.median(cold) - statistics.median(warm),
                cold_goal=case.cold_goal,
                warm_goal=case.warm_goal,
            )
        )
    return rows


def cases_named(texts: list[str]) -> tuple[Case, ...]:
    """The cases whose name holds one of ``texts`` (every case for none)."""
    return tuple(c for c in CASES if not texts or any(t in c.name for t in texts))


def print_cold(rows: list[ColdRow], repeat: int) -> None:
    table = compact_table(f"First contact: wall seconds, median of {repeat} fresh processes")
    for column in ("case", "cold", "min", "max", "warm", "compile", "goal (compile / warm)"):
        table.add_column(column, justify="left" if column == "case" else "right")
    for row in rows:
        goals = " / ".join("-" if g is None else f"{g:g}" for g in (row.cold_goal, row.warm_goal))
        table.add_row(
            row.name,
            f"{row.cold.median:.1f}",
            f"{row.cold.low:.1f}",
            f"{row.cold.high:.1f}",
            f"{row.warm.median:.2f}",
            f"{row.compile_s:.1f}",
            goals,
        )
    Console().print(table)
