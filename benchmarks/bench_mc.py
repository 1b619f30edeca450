"""Speed of the ``mc`` strategy's decisions, one thread: its hooks timed as the
engine calls them (``strategies/mc.py``: the actions, the screening round, the
rollouts of ``kernels/mc.py``).

    python benchmarks/bench_mc.py [--rules eaai] [--positions 200] [--mc SETTINGS]
        [--vs SETTINGS] [--hands-over N]

``--mc`` (default: mc's defaults) and ``--vs`` are mc parameter settings
(``candidates=3,knock_at=10``, ``opponents=simple``: a rollout line-up is bound as a
study binds it). With ``--vs`` both are timed on the same positions,
alternating which goes first, in one process: the ratio is what to quote on a noisy
machine, where identical runs vary by a quarter from one process to the next.

Positions: seat 0 of random mid-hand deals (pile of 3 to 15 cards, cards split at
random between the players' discards, up to two pile cards held by each opponent).
For each, one draw decision (take or draw) and one discard decision (discard and
knock). ``--hands-over N`` sets the seat's game memory as after N hands of a game in
which no opponent knocked with deadwood (default 0, a game's first hand: mc's play
differs from the second hand on, docs/MC.md). Prints, per setting, the median time of
each kind and decisions per second (CPU time of this process, so other jobs on the
machine count less).
"""

from __future__ import annotations

import argparse
import random
import statistics
import time

import numpy as np

from kernels.obs import GAME_HANDS, PHASE_DISCARD, PHASE_DRAW, SCRATCH_SIZE
from sim import rollouts
from sim.advise import make_obs
from sim.engine import rollout_engine
from sim.rules import RuleSet, get_rules
from sim.solver import tables_for
from strategies import mc as M
from strategies import params_vector, parse_seat


def position(rng: random.Random, rules, phase: int, key: int):  # type: ignore[no-untyped-def]
    players, hs = rules.players, rules.cards_per_hand
    deck = list(range(52 + rules.jokers))
    rng.shuffle(deck)
    mine = hs + (1 if phase == PHASE_DISCARD else 0)
    hand = sum(1 << c for c in deck[:mine])
    opponents = [deck[mine + hs * i : mine + hs * (i + 1)] for i in range(players - 1)]
    rest = deck[mine + hs * (players - 1) :]
    pile = rest[: rng.randint(3, 15)]
    taken = np.zeros(players, np.int64)
    discarded = np.zeros(players, np.int64)
    for i, cards in enumerate(opponents):
        for c in rng.sample(cards, rng.randint(0, 2)):
            taken[i + 1] |= 1 << c
    for c in pile[1:]:
        discarded[rng.randrange(players)] |= 1 << c
    pile_arr = np.zeros(128, np.int64)
    pile_arr[: len(pile)] = pile
    return make_obs(
        0, players, hand, pile_arr, len(pile), taken, discarded, len(rest) - len(pile), 0, 0,
        len(pile), phase, pile[0], -1, False, players - 1, rules.compile(),
        np.zeros(players, np.int64), tables_for(rules), key,
    )  # fmt: skip


def settings(text: str, rules: RuleSet) -> np.ndarray:
    """mc's parameter vector for ``k=v,...`` (empty: the defaults), its rollout line-up
    bound as a study binds it where ``rollout`` or ``opponents`` is set."""
    strategy, params = parse_seat("mc" + (":" + text if text else ""))
    rows = np.stack([params_vector(params)] * rules.players)
    rollouts.bind([(strategy, params)] * rules.players, rows, rules, True, rollout_engine)
    return rows[0]


def timed(hook, obs, params, hands_over: int = 0) -> float:  # type: ignore[no-untyped-def]
    scratch = np.zeros(SCRATCH_SIZE, np.int64)
    scratch[GAME_HANDS] = hands_over
    start = time.process_time()
    hook(obs, params, scratch)
    return time.process_time() - start


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rules", default="eaai")
    parser.add_argument("--players", type=int, default=None)
    parser.add_argument("--positions", type=int, default=200)
    parser.add_argument("--mc", default="", help="mc settings, k=v,... (default: its defaults)")
    parser.add_argument("--vs", default=None, help="a second setting timed alongside")
    parser.add_argument(
        "--hands-over", type=int, default=0, help="hands of the game over, none knocked"
    )
    args = parser.parse_args()
    try:
        rules = get_rules(args.rules, **({"players": args.players} if args.players else {}))
        runs = {args.mc or "defaults": settings(args.mc, rules)}
        if args.vs is not None:
            runs[args.vs or "defaults"] = settings(args.vs, rules)
    except ValueError as error:  # a bad preset or setting: one line, no traceback
        parser.error(str(error))
    warm = position(random.Random(0), rules, PHASE_DISCARD, 1)
    for params in runs.values():  # compile
        timed(M.take_nb, warm, params, args.hands_over)
        timed(M.discard_nb, warm, params, args.hands_over)
    print(
        f"{rules.name}, {rules.players} players, {args.positions} positions, "
        f"{args.hands_over} hands of the game over, 1 thread"
    )
    draw: dict[str, list[float]] = {name: [] for name in runs}
    discard: dict[str, list[float]] = {name: [] for name in runs}
    rng = random.Random(2)
    for i in range(args.positions):
        before = position(rng, rules, PHASE_DRAW, i)
        after = position(rng, rules, PHASE_DISCARD, i)
        order = list(runs) if i % 2 == 0 else list(reversed(runs))
        for name in order:
            draw[name].append(timed(M.take_nb, before, runs[name], args.hands_over))
            discard[name].append(timed(M.discard_nb, after, runs[name], args.hands_over))
    rates = {}
    for name in runs:
        total = sum(draw[name]) + sum(discard[name])
        rates[name] = 2 * args.positions / total
        print(
            f"  mc:{name}: draw decision {1e3 * statistics.median(draw[name]):.2f} ms, "
            f"discard decision {1e3 * statistics.median(discard[name]):.2f} ms (medians); "
            f"{rates[name]:.0f} decisions/s"
        )
    if len(runs) == 2:
        first, second = rates.values()
        print(f"  ratio {first / second:.3f} (first / second)")


if __name__ == "__main__":
    main()
