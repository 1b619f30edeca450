"""The deadwood each discard leaves: one pass against a solve per card, one thread.

    python benchmarks/bench_discard_deadwoods.py [--hands 200000] [--repeat 5]

Strategies that weigh every discard (``mc``, ``advice``, ``defensive``, ``chart``)
read ``kernels.deadwood.discard_deadwoods``: the least deadwood each card's discard
leaves, from one pass over the hand's set choices. This times it against the obvious
way, ``min_deadwood_one`` of the hand without each card, on the same seeded hands in
the same run (random Gin hands of 11 cards and Knock Rummy hands of 8, and 11-card
hands mostly in melds, as a knock finds them: ``melded_hands``), checks that the two
agree card for card, and prints nanoseconds per hand (median, min and max of
``--repeat`` timed calls) and their ratio.
"""

from __future__ import annotations

import argparse
import statistics
import time

import numpy as np
from numba import njit

from kernels.bits import lowest_bit
from kernels.deadwood import discard_deadwoods, min_deadwood_one
from kernels.enumerate import random_hands_nb
from kernels.layout import DECK_CAPACITY, N_NATURAL
from sim.rules import get_rules
from sim.solver import tables_for

SEED = 20261205


@njit  # no cache: the suite loads this file under another module name
def one_pass(masks, tab, out):
    """``discard_deadwoods`` of each hand into ``out[i, card]``."""
    for i in range(masks.shape[0]):
        discard_deadwoods(masks[i], tab, out[i])


@njit  # no cache: the suite loads this file under another module name
def per_card(masks, tab, out):
    """``min_deadwood_one`` of each hand without each of its cards."""
    for i in range(masks.shape[0]):
        rest = masks[i]
        while rest:
            card = lowest_bit(rest)
            rest &= rest - 1
            out[i, card] = min_deadwood_one(masks[i] ^ (np.int64(1) << card), tab)


def melded_hands(n: int, seed: int) -> np.ndarray:
    """Hands of 11 cards as a knock finds them: runs and sets of 3 or 4 that hold
    about seven to ten cards, the rest random."""
    rng = np.random.default_rng(seed)
    out = np.empty(n, np.int64)
    for i in range(n):
        hand = 0
        while bin(hand).count("1") < 7:
            if rng.random() < 0.6:  # a run of 3 or 4
                suit, low = rng.integers(4), rng.integers(11)
                length = min(int(rng.integers(3, 5)), 13 - low)
                hand |= sum(1 << (13 * int(suit) + int(low) + k) for k in range(length))
            else:  # a set of 3 or 4
                rank = int(rng.integers(13))
                suits = rng.permutation(4)[: int(rng.integers(3, 5))]
                hand |= sum(1 << (13 * int(s) + rank) for s in suits)
        while bin(hand).count("1") < 11:
            hand |= 1 << int(rng.integers(N_NATURAL))
        while bin(hand).count("1") > 11:
            cards = [c for c in range(N_NATURAL) if hand >> c & 1]
            hand &= ~(1 << int(rng.choice(cards)))
        out[i] = hand
    return out


def random_hands(cards: int, n: int, seed: int) -> np.ndarray:
    out = np.empty(n, np.int64)
    random_hands_nb(np.uint64(seed), 0, cards, N_NATURAL, out)
    return out


def _median_ns(kernel, masks, tab, out, repeat: int) -> tuple[float, float, float]:
    """Nanoseconds per hand of ``kernel(masks, tab, out)``: median, min, max."""
    times = []
    for _ in range(repeat):
        start = time.perf_counter()
        kernel(masks, tab, out)
        times.append((time.perf_counter() - start) * 1e9 / masks.shape[0])
    return statistics.median(times), min(times), max(times)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--hands", type=int, default=200_000, help="hands per timed call")
    parser.add_argument("--repeat", type=int, default=5, help="timed calls per row")
    args = parser.parse_args()
    tab = tables_for(get_rules("gin"))
    cases = (
        ("random, 11 cards", random_hands(11, args.hands, SEED)),
        ("random, 8 cards", random_hands(8, args.hands, SEED + 1)),
        ("melded, 11 cards", melded_hands(min(args.hands, 50_000), SEED + 2)),
    )
    for name, masks in cases:
        fast = np.zeros((masks.shape[0], DECK_CAPACITY), np.int64)
        slow = np.zeros((masks.shape[0], DECK_CAPACITY), np.int64)
        one_pass(masks[:10], tab, fast)  # compiles or loads both
        per_card(masks[:10], tab, slow)
        one_pass(masks, tab, fast)
        per_card(masks, tab, slow)
        if not np.array_equal(fast, slow):
            raise SystemExit(f"{name}: discard_deadwoods and a solve per card disagree")
        a = _median_ns(one_pass, masks, tab, fast, args.repeat)
        b = _median_ns(per_card, masks, tab, slow, args.repeat)
        print(
            f"{name:17} one pass {a[0]:6.1f} ns/hand (min {a[1]:.1f}, max {a[2]:.1f})  "
            f"a solve per card {b[0]:6.1f} (min {b[1]:.1f}, max {b[2]:.1f})  "
            f"ratio {b[0] / a[0]:.2f}",
            flush=True,
        )


if __name__ == "__main__":
    main()
