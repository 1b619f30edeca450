"""Speed of a strategy chart's two stages (``sim/study/chart_cells.py``), one thread.

    python benchmarks/bench_chart.py [--chart knock|draw] [--rules gin] [--players N]
                                     [--policy greedy:knock_at=0] [--deals 20000] [--samples 32]

1. Deals played by the compiled engine with its event log on (``sim.engine.logged_deals``):
   deals per second.
2. Every eligible position of those deals scored (rates 1: no thinning) by
   ``kernels.chart.chart_positions``: positions scored per second, and rollouts per
   second (2 actions x samples per position; the knock's "rollout" is one showdown,
   playing on, taking and drawing play the hand out).

Both are timed after a warm-up call (compiles or loads the kernels).
"""

from __future__ import annotations

import argparse
import time

import numpy as np

from sim.engine import logged_deals
from sim.rules import get_rules
from sim.study.chart import chart_spec
from sim.study.chart_cells import score_deals


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--chart", default="knock", choices=["knock", "draw"])
    parser.add_argument("--rules", default="gin")
    parser.add_argument("--players", type=int, default=None)
    parser.add_argument("--policy", default="greedy:knock_at=0")
    parser.add_argument("--deals", type=int, default=20_000)
    parser.add_argument("--samples", type=int, default=32)
    args = parser.parse_args()
    rules = get_rules(args.rules, **({} if args.players is None else {"players": args.players}))
    lineup = (args.policy,) * rules.players
    spec = chart_spec(rules, lineup, chart=args.chart, samples=args.samples, per_cell=0)
    ones = np.ones(spec.n_cells)
    score_deals(rules, lineup, 1, 0, 50, spec, ones)  # warm-up: compile or load

    start = time.perf_counter()
    logged_deals(rules, lineup, deals=args.deals, seed=2)
    logged = time.perf_counter() - start

    start = time.perf_counter()
    eligible, rows = score_deals(rules, lineup, 2, 0, args.deals, spec, ones)
    total = time.perf_counter() - start
    scoring = max(total - logged, 1e-9)
    positions = len(rows)
    rollouts = positions * 2 * args.samples
    print(
        f"{args.chart} chart, {args.rules} ({rules.players} players), policy {args.policy}, "
        f"{args.deals:,} deals, "
        f"{args.samples} samples per position"
    )
    print(f"  logged deals: {args.deals / logged:,.0f} deals/s ({logged:.2f} s)")
    print(
        f"  scoring: {positions:,} positions ({int(eligible.sum()):,} eligible) "
        f"in {scoring:.2f} s: "
        f"{positions / scoring:,.0f} positions/s, {rollouts / scoring:,.0f} rollouts/s"
    )


if __name__ == "__main__":
    main()
