"""Hands per second with an agent seat (docs/AGENTS.md "Speed"), one thread.

    python benchmarks/bench_agent_seats.py [--rules gin] [--deals 5000] [--repeat 5]

The same deals, side by side in one process, by four line-ups that play the same
hands: the compiled ``greedy`` at seat 0, the Python agent ``sim.agents.greedy.Greedy``
there, and two external programs speaking JSON lines, ``external_agent.py greedy``
(the same Python agent behind the protocol, in this repository's tests) and
``rummy agent greedy`` (rummy-sim serving its compiled greedy); and, marked ``*``,
what the table sustains with a program that answers at once (``external_agent.py
fine``: it draws from the stock and throws its highest card, so its hands are other,
longer ones: about 15 decisions a hand). Seat 1 is the compiled
``simple`` in every line-up. Each line-up is warmed once (compile, program start),
then timed ``--repeat`` times; the table gives the median and the range of hands per
second, and the mean decisions asked of seat 0 per hand.
"""

from __future__ import annotations

import argparse
import shlex
import statistics
import sys
import time
from pathlib import Path

from sim.agents.greedy import Greedy
from sim.engine import play_deals
from strategies.agent import seat_object

AGENT = Path(__file__).resolve().parent.parent / "tests" / "sim" / "agents" / "external_agent.py"


class Counting(Greedy):
    """The Python greedy, counting its decisions."""

    asked = 0

    def take(self, view):  # type: ignore[no-untyped-def]
        self.asked += 1
        return super().take(view)

    def discard(self, view):  # type: ignore[no-untyped-def]
        self.asked += 1
        return super().discard(view)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rules", default="gin")
    parser.add_argument("--deals", type=int, default=5_000)
    parser.add_argument("--repeat", type=int, default=5)
    args = parser.parse_args()
    python = shlex.join([sys.executable])
    lineups = {
        "compiled greedy": "greedy/simple",
        "Python agent": "python:sim.agents.greedy:Greedy/simple",
        "external: external_agent.py": (f"external:cmd='{python} {AGENT} greedy'/simple"),
        "external: rummy agent greedy": (
            f"external:cmd='{python} -m rummy agent greedy --rules {args.rules}'/simple"
        ),
        # What the table itself sustains: a program that answers at once (it draws from
        # the stock and throws its highest card: other, longer hands).
        "external: answers at once *": f"external:cmd='{python} {AGENT} fine'/simple",
    }
    counting = Counting()
    play_deals(args.rules, [seat_object(counting), "simple"], deals=args.deals, seed=1)
    per_hand = counting.asked / args.deals
    print(f"{args.rules}, seat 1 simple, {args.deals:,} deals per repeat, {args.repeat} repeats, "
          f"one thread; {per_hand:.1f} decisions of seat 0 per hand")  # fmt: skip
    print(f"{'seat 0':32} {'median hands/s':>15} {'min':>10} {'max':>10}")
    for name, lineup in lineups.items():
        play_deals(args.rules, lineup, deals=50, seed=0, threads=1)  # compile, start
        rates = []
        for r in range(args.repeat):
            start = time.perf_counter()
            play_deals(args.rules, lineup, deals=args.deals, seed=1 + r, threads=1)
            rates.append(args.deals / (time.perf_counter() - start))
        median, low, high = statistics.median(rates), min(rates), max(rates)
        print(f"{name:32} {median:>15,.0f} {low:>10,.0f} {high:>10,.0f}")


if __name__ == "__main__":
    main()
