"""Where a cold start's compile time goes, and how much parallel compiling could save.

Plays a few hands in a fresh process with an empty numba cache, every unit compiled
in that one process (``RUMMY_PARALLEL_COMPILE=0``: the pieces of ``kernels/link.py``
at their first call), records numba's ``numba:compile`` events and prints, per
compiled function, its own compile time (its callees' compiles taken out), then the
total, the longest chain of compiles that must follow one another (a function
compiles after every function whose code numba links into it; a piece is called
through a slot, so its callers do not wait for it) and what an ideal schedule on N
processes would take (each compile as long as here, its callees done first, handing
over through the cache for free)::

    python benchmarks/compile_profile.py --rules gin --seats greedy/greedy --top 20

A cold start on N cores cannot beat the longest chain, nor the total divided by N.
"""

from __future__ import annotations

import argparse
import heapq
import json
import os
import subprocess
import sys
import tempfile
from collections import defaultdict
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]

# Runs in the fresh process: compile, then report (name, own seconds, callees) per
# compiled function as JSON on the last line of its output.
_CHILD = """
import gc, json, sys, time
from collections import Counter
from numba.core import event
from numba.core.dispatcher import Dispatcher
from sim.engine import play_deals
start = time.perf_counter()
with event.install_recorder("numba:compile") as recorder:
    play_deals(sys.argv[1], sys.argv[2], deals=10, seed=1, threads=1)
wall = time.perf_counter() - start
own, stack = Counter(), []
for ts, ev in recorder.buffer:
    d = ev.data["dispatcher"]
    if ev.is_start:
        stack.append([d, ts, 0.0])
    else:
        d, began, children = stack.pop()
        own[id(d)] += ts - began - children
        if stack:
            stack[-1][2] += ts - began
dispatchers = [o for o in gc.get_objects() if isinstance(o, Dispatcher) and o.overloads]
owner = {id(c.library): id(d) for d in dispatchers for c in d.overloads.values()}
rows = []
for d in dispatchers:
    if id(d) not in own:
        continue
    callees = {owner[id(lib)] for c in d.overloads.values() for lib in c.library._linking_libraries
               if id(lib) in owner and owner[id(lib)] != id(d)}
    rows.append([id(d), d.py_func.__module__.split(".")[-1] + "." + d.py_func.__qualname__,
                 own[id(d)], sorted(callees)])
print(json.dumps({"wall": wall, "rows": rows}))
"""


def profile(rules: str, seats: str) -> dict:
    """Compile times of a cold start, measured in a fresh process and an empty cache."""
    with tempfile.TemporaryDirectory(prefix="rummy-compile-") as cache:
        env = {
            **os.environ, "NUMBA_CACHE_DIR": cache, "PYTHONPATH": str(ROOT),
            "RUMMY_PARALLEL_COMPILE": "0",
        }  # fmt: skip
        env.pop("RUMMY_NUMBA_CACHE_BASE", None)
        out = subprocess.run(
            [sys.executable, "-c", _CHILD, rules, seats],
            env=env, check=True, capture_output=True, text=True,
        )  # fmt: skip
    return json.loads(out.stdout.strip().splitlines()[-1])


def chain(own: dict[int, float], callees: dict[int, list[int]]) -> dict[int, float]:
    """Per function: its own time plus its longest chain of callee compiles."""
    longest: dict[int, float] = {}

    def visit(node: int) -> float:
        if node not in longest:
            below = [visit(c) for c in callees[node] if c in own]
            longest[node] = own[node] + max(below, default=0.0)
        return longest[node]

    for node in own:
        visit(node)
    return longest


def makespan(own: dict[int, float], callees: dict[int, list[int]], workers: int) -> float:
    """Ideal list schedule on ``workers`` processes: a compile starts once its callees
    are done, the longest remaining chain first."""
    longest = chain(own, callees)
    waiting = {n: {c for c in callees[n] if c in own} for n in own}
    users = defaultdict(list)
    for n, deps in waiting.items():
        for c in deps:
            users[c].append(n)
    ready = [(-longest[n], n) for n, deps in waiting.items() if not deps]
    heapq.heapify(ready)
    running: list[tuple[float, int]] = []
    now = 0.0
    while ready or running:
        while ready and len(running) < workers:
            _, n = heapq.heappop(ready)
            heapq.heappush(running, (now + own[n], n))
        now, done = heapq.heappop(running)
        for n in users[done]:
            waiting[n].discard(done)
            if not waiting[n]:
                heapq.heappush(ready, (-longest[n], n))
    return now


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rules", default="gin", help="rule preset")
    parser.add_argument("--seats", default="greedy/greedy", help="line-up")
    parser.add_argument("--top", type=int, default=15, help="functions listed")
    args = parser.parse_args(argv)
    result = profile(args.rules, args.seats)
    rows = result["rows"]
    own = {r[0]: r[2] for r in rows}
    name = {r[0]: r[1] for r in rows}
    callees = {r[0]: r[3] for r in rows}
    print(f"cold start: {result['wall']:.1f} s to play the first hands, "
          f"{len(rows)} functions compiled, {sum(own.values()):.1f} s of compiling")  # fmt: skip
    print(f"\n{'own s':>7}  function")
    for node in sorted(own, key=own.get, reverse=True)[: args.top]:
        print(f"{own[node]:7.2f}  {name[node]}")
    longest = chain(own, callees)
    node = max(longest, key=longest.get)
    print(f"\nlongest chain: {longest[node]:.1f} s")
    while True:
        print(f"{own[node]:7.2f}  {name[node]}")
        below = [c for c in callees[node] if c in own]
        if not below:
            break
        node = max(below, key=longest.get)
    ideal = [f"{w} process{'es' if w > 1 else ''} {makespan(own, callees, w):.1f} s"
             for w in (1, 2, 4, 16)]  # fmt: skip
    print("\nideal schedule:", ", ".join(ideal))


if __name__ == "__main__":
    main()
