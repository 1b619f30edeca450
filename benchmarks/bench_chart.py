"""Speed of a strategy chart's two stages (``sim/study/chart_cells.py``), one thread.

    python benchmarks/bench_chart.py [--chart knock|draw] [--rules gin] [--players N]
                                     [--policy greedy:knock_at=0] [--deals 20000] [--samples 32]

1. The deals played by the line-up with the engine's probe counting every position
   (rates 0: nothing scored): deals per second.
2. The same deals with every position scored (rates 1: no thinning): positions scored
   per second, and play-outs per second (the hand played on from a saved state: the
   knock chart plays its knock once and its play-on once per sample, the draw chart
   both actions per sample), the counting stage's time taken out.

Both are timed after a warm-up call (compiles or loads the engine with its probe).
"""

from __future__ import annotations

import argparse
import time

import numpy as np

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
    spec = chart_spec(rules, chart=args.chart, samples=args.samples, per_cell=0)
    ones, zeros = np.ones(spec.n_cells), np.zeros(spec.n_cells)
    score_deals(rules, lineup, 1, 0, 50, spec, ones)  # warm-up: compile or load

    start = time.perf_counter()
    score_deals(rules, lineup, 2, 0, args.deals, spec, zeros)
    counting = time.perf_counter() - start

    start = time.perf_counter()
    eligible, rows, _ = score_deals(rules, lineup, 2, 0, args.deals, spec, ones)
    scoring = max(time.perf_counter() - start - counting, 1e-9)
    positions = len(rows)
    plays = positions * (args.samples + 1 if args.chart == "knock" else 2 * args.samples)
    print(
        f"{args.chart} chart, {args.rules} ({rules.players} players), policy {args.policy}, "
        f"{args.deals:,} deals, {args.samples} samples per position"
    )
    print(f"  deals, positions counted: {args.deals / counting:,.0f} deals/s ({counting:.2f} s)")
    print(
        f"  scoring: {positions:,} positions ({int(eligible.sum()):,} eligible) "
        f"in {scoring:.2f} s: {positions / scoring:,.0f} positions/s, "
        f"{plays / scoring:,.0f} play-outs/s"
    )


if __name__ == "__main__":
    main()
