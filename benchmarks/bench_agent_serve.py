"""The cost of one decision served by ``rummy agent SPEC`` (docs/AGENTS.md "Speed").

    python benchmarks/bench_agent_serve.py [--requests 400] [--seed 1]

Real positions: seat 0 of ``SPEC/simple`` deals, as our engine hands them to a seat
(a Python agent seat that asks a ``rummy.player`` of SPEC and keeps each request it
was asked, so the positions are those SPEC reaches in play). Then one ``rummy agent
SPEC --rules R`` process is started and greeted, and every kept request is sent in
the order of play, one at a time: the time from writing the request line to reading
its answer line is the cost of one decision as a table elsewhere sees it (the pipe,
the JSON both ways, the view's checks and the strategy's own work). Each answer is
checked against the decision recorded in play. The table gives the median and the
90th percentile in ms per request, the requests sent, and the seconds from starting
the process to its hello answer (imports, the compiled kernel loaded from the cache).
"""

from __future__ import annotations

import argparse
import json
import statistics
import subprocess
import sys
import time
from pathlib import Path

from sim.agents.player import player
from sim.engine import play_deals
from strategies.agent import seat_object

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))  # the repository's tests
from tests.support.agents import Recorder  # noqa: E402

CASES = [("gin", "greedy"), ("gin", "mc"), ("eaai", "greedy"), ("eaai", "mc")]


def positions(rules: str, spec: str, requests: int, seed: int) -> list[tuple[dict, dict]]:
    recorder = Recorder(player(spec, rules=rules, seat=0))
    deal = 0
    while len(recorder.asked) < requests:
        play_deals(rules, [seat_object(recorder), "simple"], deals=10, seed=seed, first=deal)
        deal += 10
    return recorder.asked[:requests]


def served(rules: str, spec: str, asked: list[tuple[dict, dict]]) -> tuple[list[float], float]:
    """Milliseconds per request, and seconds to the hello answer."""
    command = [sys.executable, "-m", "rummy", "agent", spec, "--rules", rules]
    start = time.perf_counter()
    process = subprocess.Popen(command, stdin=subprocess.PIPE, stdout=subprocess.PIPE, bufsize=0)
    assert process.stdin is not None and process.stdout is not None
    hello = {"type": "hello", "protocol": 1, "seat": 0, "players": 2, "rules": rules}
    process.stdin.write((json.dumps(hello) + "\n").encode())
    assert json.loads(process.stdout.readline())["type"] == "hello"
    ready = time.perf_counter() - start
    times = []
    for request, expected in asked:
        line = (json.dumps(request, separators=(",", ":")) + "\n").encode()
        t0 = time.perf_counter()
        process.stdin.write(line)
        answer = process.stdout.readline()
        times.append((time.perf_counter() - t0) * 1000)
        if json.loads(answer) != expected:
            raise SystemExit(
                f"{spec} under {rules}: {request} answered {answer!r}, in play {expected}"
            )
    process.stdin.write(b'{"type":"bye"}\n')
    process.wait(timeout=10)
    return times, ready


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--requests", type=int, default=400)
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args()
    print(f"rummy agent SPEC --rules R: {args.requests} requests each (seat 0 of SPEC/simple, "
          f"seed {args.seed}), one at a time")  # fmt: skip
    print(f"{'command':34} {'median ms':>10} {'p90 ms':>8} {'take ms':>8} {'discard ms':>11} "
          f"{'start s':>8}")  # fmt: skip
    for rules, spec in CASES:
        asked = positions(rules, spec, args.requests, args.seed)
        times, ready = served(rules, spec, asked)
        takes = [t for t, (r, _) in zip(times, asked, strict=True) if r["type"] == "take"]
        discards = [t for t, (r, _) in zip(times, asked, strict=True) if r["type"] == "discard"]
        p90 = statistics.quantiles(times, n=10)[-1]
        print(f"{f'rummy agent {spec} --rules {rules}':34} {statistics.median(times):>10.2f} "
              f"{p90:>8.2f} {statistics.median(takes):>8.2f} {statistics.median(discards):>11.2f} "
              f"{ready:>8.2f}")  # fmt: skip


if __name__ == "__main__":
    main()
