"""Hands per second of line-ups outside ``rummy bench engine``'s standard ones, one thread.

    python benchmarks/bench_lineups.py [--repeat 5] [--case TEXT ...]

``rummy bench engine`` times greedy and simple, which single deals play on the small
engine of those two (``sim.engine.CORE``). Every other line-up, and every game, plays
on the engine of every registered strategy, where a strategy's hooks are either
compiled into the loop or called through a slot (pieces: docs/ENGINE.md, "How the
engine is compiled"). This times one line-up per strategy there: the median, min and
max of ``--repeat`` timed calls after an untimed one (which compiles or loads the
engine), each on its own seed. Compare two versions side by side in one session, on a
machine nothing else loads.
"""

from __future__ import annotations

import argparse
import statistics
import time

from sim.engine import play_deals, play_games

# (rules, line-up, deals or games, how many per timed call)
CASES = (
    ("gin", "chart:gin/greedy", "deals", 20_000),
    ("gin", "defensive/greedy", "deals", 100_000),
    ("gin", "advice/greedy", "deals", 100_000),
    ("gin", "random/random", "deals", 200_000),
    ("gin", "schedule/greedy", "deals", 200_000),
    ("gin", "greedy/greedy", "games", 4_000),
    ("knock-rummy", "chart:knock-rummy-4p", "deals", 20_000),
)


def hands_per_second(rules: str, lineup: str, mode: str, n: int, seed: int) -> float:
    start = time.perf_counter()
    if mode == "deals":
        play_deals(rules, lineup, deals=n, seed=seed, threads=1)
        hands = n
    else:
        _, rows = play_games(rules, lineup, games=n, seed=seed, threads=1)
        hands = len(rows.number)
    return hands / (time.perf_counter() - start)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=5, help="timed calls per line-up")
    parser.add_argument("--case", action="append", default=[], help="line-ups holding TEXT")
    args = parser.parse_args()
    for rules, lineup, mode, n in CASES:
        if args.case and not any(text in lineup for text in args.case):
            continue
        hands_per_second(rules, lineup, mode, 10, seed=0)  # compiles or loads the engine
        rates = [hands_per_second(rules, lineup, mode, n, seed) for seed in range(args.repeat)]
        print(
            f"{rules:12} {lineup:22} {mode:5} {statistics.median(rates):>11,.0f} hands/s "
            f"(min {min(rates):,.0f}, max {max(rates):,.0f})",
            flush=True,
        )


if __name__ == "__main__":
    main()
