"""What each discard leaves, for every card at once: one pass against a solve per card.

    python benchmarks/bench_discard_deadwoods.py [--hands 200000] [--repeat 5]

Two kernels of ``kernels/deadwood.py`` answer for every card of a hand from one pass
over its set choices, one thread each:

* ``discard_deadwoods``, the least deadwood each card's discard leaves (read by ``mc``,
  ``advice``, ``defensive`` and ``chart`` at every discard), against the obvious way,
  ``min_deadwood_one`` of the hand without each card: on random Gin hands of 11 cards
  and Knock Rummy hands of 8, and 11-card hands mostly in melds, as a knock finds them
  (``melded_hands``);
* ``second_discard_deadwoods``, the least deadwood after each card and then the best
  other one go (the chart's lookahead asks it of its hand with each card it might
  draw), against ``best_discard_one`` of the hand without each card: on random and
  melded hands of 12 cards.

Each row checks that the two ways agree card for card on the same seeded hands, then
prints nanoseconds per hand (median, min and max of ``--repeat`` timed calls) and their
ratio.
"""

from __future__ import annotations

import argparse
import statistics
import time

import numpy as np
from numba import njit

from kernels.bits import lowest_bit
from kernels.deadwood import (
    best_discard_one,
    discard_deadwoods,
    min_deadwood_one,
    second_discard_deadwoods,
)
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


@njit  # no cache: the suite loads this file under another module name
def second_one_pass(masks, tab, out):
    """``second_discard_deadwoods`` of each hand into ``out[i, card]``."""
    for i in range(masks.shape[0]):
        second_discard_deadwoods(masks[i], tab, out[i])


@njit  # no cache: the suite loads this file under another module name
def second_per_card(masks, tab, out):
    """``best_discard_one``'s deadwood of each hand without each of its cards."""
    for i in range(masks.shape[0]):
        rest = masks[i]
        while rest:
            card = lowest_bit(rest)
            rest &= rest - 1
            out[i, card] = best_discard_one(masks[i] ^ (np.int64(1) << card), -1, tab)[1]


# (the kernel timed, its one pass over many hands, the solve per card it replaces)
KERNELS = (
    ("discard_deadwoods", one_pass, per_card),
    ("second_discard_deadwoods", second_one_pass, second_per_card),
)


def melded_hands(n: int, seed: int, cards: int = 11) -> np.ndarray:
    """Hands of ``cards`` cards as a knock finds them: runs and sets of 3 or 4 that
    hold about seven to ten cards, the rest random."""
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
        while bin(hand).count("1") < cards:
            hand |= 1 << int(rng.integers(N_NATURAL))
        while bin(hand).count("1") > cards:
            held = [c for c in range(N_NATURAL) if hand >> c & 1]
            hand &= ~(1 << int(rng.choice(held)))
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
        ("random, 11 cards", KERNELS[0], random_hands(11, args.hands, SEED)),
        ("random, 8 cards", KERNELS[0], random_hands(8, args.hands, SEED + 1)),
        ("melded, 11 cards", KERNELS[0], melded_hands(min(args.hands, 50_000), SEED + 2)),
        ("random, 12 cards", KERNELS[1], random_hands(12, args.hands, SEED + 3)),
        ("melded, 12 cards", KERNELS[1], melded_hands(min(args.hands, 50_000), SEED + 4, 12)),
    )
    for name, (kernel, fast_way, slow_way), masks in cases:
        fast = np.zeros((masks.shape[0], DECK_CAPACITY), np.int64)
        slow = np.zeros((masks.shape[0], DECK_CAPACITY), np.int64)
        fast_way(masks[:10], tab, fast)  # compiles or loads both
        slow_way(masks[:10], tab, slow)
        fast_way(masks, tab, fast)
        slow_way(masks, tab, slow)
        if not np.array_equal(fast, slow):
            raise SystemExit(f"{name}: {kernel} and a solve per card disagree")
        a = _median_ns(fast_way, masks, tab, fast, args.repeat)
        b = _median_ns(slow_way, masks, tab, slow, args.repeat)
        print(
            f"{name:17} {kernel}: one pass {a[0]:6.1f} ns/hand (min {a[1]:.1f}, max "
            f"{a[2]:.1f})  a solve per card {b[0]:6.1f} (min {b[1]:.1f}, max {b[2]:.1f})  "
            f"ratio {b[0] / a[0]:.2f}",
            flush=True,
        )


if __name__ == "__main__":
    main()
