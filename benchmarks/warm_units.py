"""What each unit of ``rummy warm`` costs to compile, one after another on one core.

    NUMBA_CACHE_DIR=$(mktemp -d) RUMMY_PARALLEL_COMPILE=0 python benchmarks/warm_units.py

Compiles every piece (heaviest first, as ``warm`` queues them) and then every entry (in
``warm``'s order) in this one process, and prints the wall seconds of each. A unit
reuses what the units before it compiled, so a figure is what that unit adds after
them, and the total is all of ``rummy warm``'s work on one core (``rummy warm`` spreads
it over every core). Run it on an empty cache, as above: a cached unit only loads.
"""

from __future__ import annotations

import time


def main() -> None:
    start = time.time()
    from sim.warm import ENTRIES, _compile_unit, queue

    first, pieces, last = queue()
    print(f"import {time.time() - start:.1f}", flush=True)
    for name in [*pieces, *first, *last]:
        began = time.time()
        _compile_unit(name)
        kind = "entry" if name in ENTRIES else "piece"
        print(f"{time.time() - began:6.1f} {kind} {name}", flush=True)
    print(f"total {time.time() - start:.1f}")


if __name__ == "__main__":
    main()
