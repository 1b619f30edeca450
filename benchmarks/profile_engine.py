"""Play one line-up's hands on one thread for a profiler: where a hand's time goes.

    perf record -F 999 -g --delay 40000 -o /tmp/engine.data python benchmarks/perf_map.py \
        benchmarks/profile_engine.py --deals 30000000
    perf report -i /tmp/engine.data --no-children --sort symbol

A first call of 1,000 deals compiles the engine; then the deals are played on one
thread in calls of ``--chunk`` deals (as a run's chunks), without rows written: the hand
loop alone, as ``rummy bench engine`` times it. It prints when the compile ends, so that
``perf record --delay`` (milliseconds) can leave the compile out. docs/ENGINE.md
("Where a hand's time goes") shows the table this gives for Gin, greedy against greedy.
"""

from __future__ import annotations

import argparse
import time

from sim.engine import play_deals


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--rules", default="gin")
    parser.add_argument("--seats", default="greedy/greedy")
    parser.add_argument("--deals", type=int, default=3_000_000)
    parser.add_argument("--chunk", type=int, default=100_000)
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args()
    begun = time.perf_counter()
    play_deals(args.rules, args.seats, deals=1_000, seed=args.seed, threads=1)  # compile
    start = time.perf_counter()
    print(f"compiled in {start - begun:.1f} s", flush=True)
    for first in range(1_000, 1_000 + args.deals, args.chunk):
        size = min(args.chunk, 1_000 + args.deals - first)
        play_deals(args.rules, args.seats, deals=size, seed=args.seed, first=first, threads=1)
    seconds = time.perf_counter() - start
    print(f"{args.deals:,} hands in {seconds:.2f} s: {args.deals / seconds:,.0f} hands/s")


if __name__ == "__main__":
    main()
