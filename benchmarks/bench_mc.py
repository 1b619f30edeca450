"""Speed of the ``mc`` strategy's decisions (``kernels/mc.py``), one thread.

    python benchmarks/bench_mc.py [--rules gin] [--samples 200] [--candidates 3] [--positions 200]
        [--knock-at -1]

Positions: seat 0 of random mid-hand deals (pile of 3 to 15 cards, cards split at
random between the players' discards, up to two pile cards held by each opponent).
For each, one draw decision (take or draw: 2 actions) and one discard decision (the
``candidates`` best discards and their legal knocks) are timed exactly as the
strategy makes them. Prints the median time per decision, decisions per second and
rollouts (actions x samples) per second, for each opponent model.
"""

from __future__ import annotations

import argparse
import random
import statistics
import time

import numpy as np

from kernels import mc as K
from kernels.obs import PHASE_DISCARD, PHASE_DRAW
from sim.advise import make_obs
from sim.rules import get_rules
from sim.solver import tables_for


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
        0,
        players,
        hand,
        pile_arr,
        len(pile),
        taken,
        discarded,
        len(rest) - len(pile),
        0,
        0,
        len(pile),
        phase,
        pile[0],
        -1,
        False,
        players - 1,
        rules.compile(),
        np.zeros(players, np.int64),
        tables_for(rules),
        key,
    )


def time_decision(  # type: ignore[no-untyped-def]
    obs, kinds, cards, samples: int, model: int, knock_at: int
) -> float:
    n = kinds.shape[0]
    net = np.empty((n, samples))
    won = np.empty((n, samples), np.int8)
    ends = np.empty((n, samples), np.int8)
    start = time.perf_counter()
    K.evaluate(obs, kinds, cards, np.uint64(7), 0, model, knock_at, 1, net, won, ends)
    return time.perf_counter() - start


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rules", default="gin")
    parser.add_argument("--players", type=int, default=None)
    parser.add_argument("--samples", type=int, default=200)
    parser.add_argument("--candidates", type=int, default=3)
    parser.add_argument("--positions", type=int, default=200)
    parser.add_argument(
        "--knock-at", type=int, default=-1, help="mc's knock_at (-1: its default for the rules)"
    )
    args = parser.parse_args()
    rules = get_rules(args.rules, **({"players": args.players} if args.players else {}))
    knock_at = int(K.rollout_knock_at(rules.compile(), args.knock_at))
    rng = random.Random(1)
    draw_kinds = np.array([K.ACT_TAKE, K.ACT_DRAW], np.int64)
    draw_cards = np.full(2, -1, np.int64)
    warm = position(rng, rules, PHASE_DISCARD, 1)
    for model in (K.MODEL_UNIFORM, K.MODEL_KEPT, K.MODEL_INFERRED):  # compile
        kinds, cards = K.discard_actions(warm, -1, args.candidates)
        time_decision(warm, kinds, cards, 2, model, knock_at)
    print(
        f"{rules.name}, {rules.players} players, {args.samples} samples, "
        f"{args.candidates} candidate discards, rollouts knock at {knock_at} (-1: the rule's "
        f"limit), {args.positions} positions, 1 thread"
    )
    for name, model in (
        ("uniform", K.MODEL_UNIFORM),
        ("kept", K.MODEL_KEPT),
        ("inferred", K.MODEL_INFERRED),
    ):
        rng = random.Random(2)
        draw_t, discard_t, rollouts, total = [], [], 0, 0.0
        for i in range(args.positions):
            obs = position(rng, rules, PHASE_DRAW, i)
            t = time_decision(obs, draw_kinds, draw_cards, args.samples, model, knock_at)
            draw_t.append(t)
            obs = position(rng, rules, PHASE_DISCARD, i)
            kinds, cards = K.discard_actions(obs, -1, args.candidates)
            u = time_decision(obs, kinds, cards, args.samples, model, knock_at)
            discard_t.append(u)
            rollouts += (2 + kinds.shape[0]) * args.samples
            total += t + u
        print(
            f"  {name:9s} draw decision {1e3 * statistics.median(draw_t):7.2f} ms, "
            f"discard decision {1e3 * statistics.median(discard_t):7.2f} ms (medians); "
            f"{2 * args.positions / total:7.0f} decisions/s, "
            f"{rollouts / total / 1e3:6.0f}k rollouts/s"
        )


if __name__ == "__main__":
    main()
