"""Time the deadwood solver against the naive baseline, without the CLI.

Runs the same function as ``rummy bench deadwood`` and prints the same table::

    python benchmarks/bench_deadwood.py --hands 200000 --repeat 7 --threads 1
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

# Run from anywhere in the source tree: the repository root holds sim/ and benchmarks/.
sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from sim.bench.deadwood import bench_deadwood, print_bench  # noqa: E402


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--hands", type=int, default=100_000, help="hands per timed call")
    parser.add_argument("--repeat", type=int, default=5, help="timed calls per row")
    parser.add_argument("--threads", type=int, default=1, help="numba threads")
    parser.add_argument("--rules", default="gin", help="rule preset of the natural rows")
    parser.add_argument("--json", action="store_true", help="print JSON instead of a table")
    args = parser.parse_args(argv)
    try:
        report = bench_deadwood(
            hands=args.hands, repeat=args.repeat, threads=args.threads, rules=args.rules
        )
    except ValueError as error:
        parser.exit(1, f"error: {error}\n")
    if args.json:
        print(json.dumps(report.to_dict(), indent=2))
    else:
        print_bench(report)


if __name__ == "__main__":
    main()
