"""``rummy run`` end to end against OpenSpiel's C++ Gin Rummy bots, on one core.

    pip install open_spiel    # the yardstick only: not a dependency of this project
    python benchmarks/bench_openspiel.py [--deals 5000000] [--episodes 2000] [--repeat 3]
        [--no-layoff]

Both sides play two-player Gin, each seat a "simple" player (OpenSpiel's
``SimpleGinRummyBot``; ours is ``strategies/simple.py``, written in its style), pinned to
one core (``--core``; this process's affinity, which the commands it starts inherit).
Each repeat times, one right after the other:

``rummy``
    ``rummy run --rules gin --seats simple/simple --deals N --seed S -w 1`` in a fresh
    process, from its start to its exit: Python's start-up and imports, the engine
    loaded from numba's disk cache, the hands played, every hand's row written as
    Parquet (``--rows hands``, the default), the summary read back and printed. One
    untimed run first fills the cache, so that no timed run compiles.
``openspiel``
    ``pyspiel.evaluate_bots`` on ``gin_rummy`` (its defaults: knock at 10, gin 25,
    undercut 25) for E hands in this process, each a C++ call that plays one hand
    between two bots (a game of one hand: OpenSpiel has no game to 100).

The report gives each side's hands per second, median (min, max) over the repeats, and
the ratio of the medians: how many times as many hands ``rummy run`` plays in the same
time. The seed changes from repeat to repeat on both sides. As a check that both play
much the same game, it also gives the points a hand awards on each side (the winner's,
averaged over every timed hand, with a 95% t interval). OpenSpiel's simple bot never
lays off a card when the other knocks, where our engine lays off every card it can for
the defender, so its knockers score more; ``--no-layoff`` plays our side without
lay-offs (``-r layoff=false``), nearer OpenSpiel's game (which has no big gin either:
ours keeps it, about 4 hands in 10,000 of simple against simple).
"""

from __future__ import annotations

import argparse
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import polars as pl

from sim.stats.estimates import Moments, mean_ci
from sim.study.rundir import load_hands


def rummy_run_seconds(deals: int, seed: int, out: Path, layoff: bool = True) -> float:
    """Wall seconds of one ``rummy run`` of ``deals`` Gin hands in a fresh process
    (without lay-offs unless ``layoff``)."""
    command = [
        sys.executable, "-m", "rummy", "run", "--rules", "gin", "--seats", "simple/simple",
        "--deals", str(deals), "--seed", str(seed), "-w", "1", "--out", str(out), "-q",
    ]  # fmt: skip
    if not layoff:
        command += ["-r", "layoff=false"]
    start = time.perf_counter()
    subprocess.run(command, check=True, stdout=subprocess.DEVNULL)
    return time.perf_counter() - start


def hand_points(out: Path) -> Moments:
    """The points each hand awarded (both seats' summed: only its winner scores) in the
    hand rows of the run written to ``out`` (its one run folder, read as studies read it)."""
    [run_dir] = out.glob("*/*/manifest.json")
    points = pl.col("points_0") + pl.col("points_1")
    return Moments.of(load_hands(run_dir.parent).select(points).collect().to_series())


def openspiel_seconds(episodes: int, seed: int) -> tuple[float, Moments]:
    """Wall seconds of ``episodes`` hands of OpenSpiel's ``gin_rummy``, two simple bots,
    and the points each hand awarded."""
    import pyspiel  # imported here: the rest of this script runs without it

    game = pyspiel.load_game("gin_rummy")
    params = game.get_parameters()
    bots = [pyspiel.make_simple_gin_rummy_bot(params, player) for player in range(2)]
    points: list[float] = []
    start = time.perf_counter()
    for episode in range(episodes):
        returns = pyspiel.evaluate_bots(game.new_initial_state(), bots, seed * 1_000_003 + episode)
        points.append(abs(returns[0]))  # zero-sum: the winner's points
    return time.perf_counter() - start, Moments.of(points)


def _summary(rates: list[float]) -> str:
    median = statistics.median(rates)
    return f"{median:>13,.0f} hands/s (min {min(rates):,.0f}, max {max(rates):,.0f})"


def _interval(points: Moments) -> str:
    iv = mean_ci(points)
    return f"{iv.estimate:.3f} [{iv.low:.3f}, {iv.high:.3f}]"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--deals", type=int, default=5_000_000, help="hands per rummy run")
    parser.add_argument("--episodes", type=int, default=2_000, help="hands per OpenSpiel run")
    parser.add_argument("--repeat", type=int, default=3, help="timed runs of each")
    parser.add_argument("--core", type=int, default=0, help="the one core both run on")
    parser.add_argument("--no-layoff", action="store_true", help="our side without lay-offs")
    args = parser.parse_args()
    for name in ("deals", "episodes", "repeat"):
        if getattr(args, name) < 1:
            parser.error(f"--{name} {getattr(args, name)}: must be 1 or more")
    cores = sorted(os.sched_getaffinity(0))
    if args.core not in cores:
        parser.error(f"--core {args.core}: this process may run on cores {cores}")
    try:
        import pyspiel  # noqa: F401
    except ImportError:
        sys.exit("bench_openspiel.py: OpenSpiel is not installed (pip install open_spiel)")
    os.sched_setaffinity(0, {args.core})
    folder = Path(tempfile.mkdtemp(prefix="bench_openspiel_"))
    try:
        layoff = not args.no_layoff
        rummy_run_seconds(1_000, 0, folder / "untimed", layoff)  # fills numba's cache
        ours, theirs, our_points, their_points = [], [], Moments(), Moments()
        for repeat in range(args.repeat):
            seed = repeat + 1
            out = folder / f"run{seed}"
            ours.append(args.deals / rummy_run_seconds(args.deals, seed, out, layoff))
            our_points += hand_points(out)
            shutil.rmtree(out)  # counted: the next run needs no more room
            seconds, points = openspiel_seconds(args.episodes, seed)
            theirs.append(args.episodes / seconds)
            their_points += points
    finally:
        shutil.rmtree(folder, ignore_errors=True)
    print(f"rummy run  {_summary(ours)}", flush=True)
    print(f"OpenSpiel  {_summary(theirs)}", flush=True)
    print(f"ratio      {statistics.median(ours) / statistics.median(theirs):>13,.0f}x")
    print(f"points a hand{' (ours without lay-offs)' if args.no_layoff else ''}, 95% t intervals:")
    print(f"  rummy run  {_interval(our_points)}")
    print(f"  OpenSpiel  {_interval(their_points)} (its simple bot never lays off)")


if __name__ == "__main__":
    main()
