"""Play one line-up's hands on one thread for a profiler: where a hand's time goes.

    perf record -F 999 -g -o /tmp/engine.data python benchmarks/perf_map.py \
        benchmarks/profile_engine.py --deals 3000000
    perf report -i /tmp/engine.data --no-children --sort symbol

A first call of 1,000 deals compiles the engine (its time is in the profile, so the
deals after it should take many times longer); the rest are played in one call of
``sim.engine.play_deals`` on one thread, without rows written: the hand loop alone, as
``rummy bench engine`` times it. docs/ENGINE.md ("Where a hand's time goes") shows the
table this gives for Gin, greedy against greedy.
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
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args()
    play_deals(args.rules, args.seats, deals=1_000, seed=args.seed, threads=1)  # compile
    start = time.perf_counter()
    play_deals(args.rules, args.seats, deals=args.deals, seed=args.seed, first=1_000, threads=1)
    seconds = time.perf_counter() - start
    print(f"{args.deals:,} hands in {seconds:.2f} s: {args.deals / seconds:,.0f} hands/s")


if __name__ == "__main__":
    main()
