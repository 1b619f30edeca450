"""Peak memory of ``rummy run --rows none`` against the number of deals.

Plays one ``rows="none"`` run per size, each in a fresh process (engine warm-up in
the driver first, as ``rummy run`` does), and prints the sampled peak RSS and PSS of
the driver plus its workers (``sim.bench.run.measure_memory``), then the growth per
million deals between the smallest and the largest size, and what a straight line
through those two gives for 100 million deals::

    python benchmarks/bench_run_memory.py --deals 2_000_000 --deals 20_000_000
"""

from __future__ import annotations

import argparse
import json
import sys
from dataclasses import asdict
from pathlib import Path

# Run from anywhere in the source tree: the repository root holds sim/ and benchmarks/.
sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from sim.bench.run import measure_memory  # noqa: E402

TARGET_DEALS = 100_000_000  # the claim: 100 million hands under 1 GB


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument(
        "--deals", type=lambda s: int(s.replace("_", "")), action="append",
        help="deals of one run (repeatable; default 1M, 5M, 20M)",
    )  # fmt: skip
    parser.add_argument("--rules", default="gin", help="rule preset")
    parser.add_argument("--seats", default="greedy/greedy", help="line-up")
    parser.add_argument("--workers", type=int, default=None, help="worker processes")
    parser.add_argument("--json", action="store_true", help="print JSON instead of a table")
    args = parser.parse_args(argv)
    sizes = sorted(set(args.deals or [1_000_000, 5_000_000, 20_000_000]))
    reports = []
    for deals in sizes:
        report = measure_memory(deals=deals, rules=args.rules, lineup=args.seats,
                                workers=args.workers)  # fmt: skip
        reports.append(report)
        if not args.json:
            print(
                f"{deals:>12,} deals: {report.hands_per_second:>11,.0f} hands/s, peak RSS "
                f"{report.peak_rss_mb or 0:7.1f} MB, peak PSS {report.peak_pss_mb or 0:7.1f} MB "
                f"({report.peak_processes} processes); driver maxrss "
                f"{report.maxrss_driver_mb:.1f} MB",
                flush=True,
            )
    trend = None
    first, last = reports[0], reports[-1]
    if len(reports) > 1 and first.peak_rss_mb is not None and last.peak_rss_mb is not None:
        span = (last.deals - first.deals) / 1e6
        per_million = (last.peak_rss_mb - first.peak_rss_mb) / span
        pss = (last.peak_pss_mb or 0) - (first.peak_pss_mb or 0)
        trend = {
            "rss_mb_per_million_deals": per_million,
            "pss_mb_per_million_deals": pss / span,
            "rss_mb_at_100m": last.peak_rss_mb + per_million * (TARGET_DEALS - last.deals) / 1e6,
        }
    if args.json:
        json.dump({"runs": [asdict(r) for r in reports], "trend": trend}, sys.stdout, indent=2)
        sys.stdout.write("\n")
    elif trend is not None:
        print(
            f"growth: {trend['rss_mb_per_million_deals']:+.2f} MB RSS "
            f"({trend['pss_mb_per_million_deals']:+.2f} MB PSS) per million deals; a straight "
            f"line gives {trend['rss_mb_at_100m']:.0f} MB RSS at {TARGET_DEALS:,} deals"
        )


if __name__ == "__main__":
    main()
