"""Solver speed: the deadwood kernels on random hands, against a naive meld search.

Each row times one kernel on random hands (seeded, so every run times the same hands):
the median, min and max over ``repeat`` timed calls, after a first call that compiles
the kernel or loads it from numba's cache (reported on its own) and an untimed warm-up
call on the full batch. The naive baseline (``sim/bench/naive.py``: list the melds,
search over disjoint combinations) is timed on the same hands in the same run, repeat
by repeat, and its answers are checked against the solver's. The kernels are timed
directly (the batch functions ``sim.min_deadwood`` and ``sim.best_discard`` call),
without the API's input checks, into output arrays made once per row (outside the
timed calls). ``rummy bench deadwood`` and ``benchmarks/bench_deadwood.py`` run it.
"""

from __future__ import annotations

import statistics
import time
from collections.abc import Callable
from dataclasses import asdict, dataclass
from types import ModuleType
from typing import Any

import numba
import numpy as np
from rich.console import Console

from kernels.deadwood import best_discard_batch, min_deadwood_batch
from kernels.enumerate import random_hands_nb
from kernels.layout import JOKER_BITS, N_NATURAL
from kernels.tables import table_views
from sim.bench import DEADWOOD_HANDS, DEADWOOD_REPEAT, DEADWOOD_THREADS
from sim.present.terminal import compact_table
from sim.rules import DEFAULT_PRESET, RuleSet, get_rules
from sim.solver import tables_for


def naive_module() -> ModuleType:
    """The naive baseline (imported when first timed: it compiles on its own)."""
    from sim.bench import naive

    return naive


BENCH_SEED = 20240607  # fixed, so every run times the same hands
JOKER_PRESET = "joker-knock"  # the joker rows' rules when --rules has no jokers
JOKER_HANDS_DIVISOR = 10  # joker hands are slower: time this many times fewer
FIRST_CALL_HANDS = 64  # the warm-up call: enough to run every code path once
# (cards, operation, jokers): 2-player Gin hands (10 dealt, 11 after the draw) and
# 4-player Knock Rummy hands (7 and 8), without and with both jokers.
SHAPES = (
    (10, "min deadwood", 0),
    (11, "best discard", 0),
    (7, "min deadwood", 0),
    (8, "best discard", 0),
    (10, "min deadwood", 2),
    (11, "best discard", 2),
    (7, "min deadwood", 2),
    (8, "best discard", 2),
)


@dataclass(frozen=True)
class BenchRow:
    """One timed kernel.

    ``*_ns`` are nanoseconds per hand; ``naive_*`` are None where the baseline does
    not apply (jokers) or is unavailable; ``ratio`` is naive median / solver median.
    """

    cards: int
    operation: str
    jokers: int
    rules: str
    hands: int
    median_ns: float
    min_ns: float
    max_ns: float
    first_call_s: float
    naive_median_ns: float | None
    naive_min_ns: float | None
    naive_max_ns: float | None
    naive_first_call_s: float | None
    ratio: float | None
    naive_agrees: bool | None


@dataclass(frozen=True)
class BenchReport:
    """A whole benchmark run."""

    threads: int
    hands: int
    repeat: int
    rules: str
    seed: int
    naive: str
    rows: list[BenchRow]

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)


def _hands(cards: int, jokers: int, n: int) -> np.ndarray:
    """``n`` random hands of ``cards`` cards, holding both jokers when ``jokers`` is 2."""
    out = np.empty(n, np.int64)
    random_hands_nb(
        np.uint64(BENCH_SEED + 1000 * cards + jokers), 0, cards - jokers, N_NATURAL, out
    )
    masks = out.astype(np.uint64)
    if jokers:
        masks |= np.uint64(JOKER_BITS)
    return masks


def _time(call: Callable[[np.ndarray], Any], masks: np.ndarray) -> float:
    """Nanoseconds per hand of one call."""
    start = time.perf_counter()
    call(masks)
    return float((time.perf_counter() - start) * 1e9 / masks.shape[0])


def _first_call(call: Callable[[np.ndarray], Any], masks: np.ndarray) -> float:
    start = time.perf_counter()
    call(masks[:FIRST_CALL_HANDS])
    return time.perf_counter() - start


class _Buffers:
    """Output arrays (and the ``forbidden`` input: -1 for all) of one batch size, made once.

    Timed calls reuse them: allocating ~1.6 MB arrays inside the timed call measured
    the allocator instead of the kernel (once glibc hands such arrays back to the
    system, every call page-faults them in again: 10 ns or more per 11-card hand).
    """

    def __init__(self) -> None:
        self._by_size: dict[int, tuple[np.ndarray, np.ndarray, np.ndarray]] = {}

    def get(self, n: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        if n not in self._by_size:
            self._by_size[n] = (
                np.full(1, -1, np.int64),  # no card forbidden, as sim.best_discard passes it
                np.zeros(n, np.int64),
                np.zeros(n, np.int64),
            )
        return self._by_size[n]


def _solver_call(operation: str, rules: RuleSet) -> Callable[[np.ndarray], Any]:
    """The kernel on a batch. Returns its output arrays themselves (``deadwood``, or
    ``(cards, deadwood)``), which the next call overwrites: nothing is copied."""
    tab = tables_for(rules)
    jokers = rules.jokers > 0
    buffers = _Buffers()

    def min_deadwood(masks: np.ndarray) -> np.ndarray:
        _, out, _ = buffers.get(masks.shape[0])
        min_deadwood_batch(masks, tab, jokers, out)
        return out

    def best_discard(masks: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        forbidden, cards, deadwood = buffers.get(masks.shape[0])
        best_discard_batch(masks, forbidden, tab, jokers, cards, deadwood)
        return cards, deadwood

    return min_deadwood if operation == "min deadwood" else best_discard


def _naive_call(naive: ModuleType, operation: str, rules: RuleSet) -> Callable[[np.ndarray], Any]:
    """The naive baseline, timed like ``_solver_call`` (buffers made once)."""
    views = table_views(tables_for(rules))
    windows = views.windows.astype(np.int32)
    card_value = views.card_value.astype(np.int32)
    buffers = _Buffers()

    def min_deadwood(masks: np.ndarray) -> np.ndarray:
        _, out, _ = buffers.get(masks.shape[0])
        naive.min_deadwood_naive_batch(masks, windows, card_value, out)
        return out

    def best_discard(masks: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        _, cards, deadwood = buffers.get(masks.shape[0])
        naive.best_discard_naive_batch(masks, windows, card_value, cards, deadwood)
        return cards, deadwood

    return min_deadwood if operation == "min deadwood" else best_discard


def _bench_row(
    cards: int,
    operation: str,
    jokers: int,
    rules: RuleSet,
    hands: int,
    repeat: int,
    naive: ModuleType | None,
) -> BenchRow:
    masks = _hands(cards, jokers, hands)
    solver = _solver_call(operation, rules)
    baseline = _naive_call(naive, operation, rules) if naive is not None and not jokers else None
    first = _first_call(solver, masks)
    naive_first = _first_call(baseline, masks) if baseline else None
    # One untimed full-size call each: the first large batch pays one-off costs
    # (thread pool start-up, page faults of the reused buffers) that are not the solver's.
    solver(masks)
    if baseline:
        baseline(masks)
    times: list[float] = []
    naive_times: list[float] = []
    for _ in range(repeat):  # interleaved, so both see the same machine load
        times.append(_time(solver, masks))
        if baseline:
            naive_times.append(_time(baseline, masks))
    agrees = bool(np.array_equal(solver(masks), baseline(masks))) if baseline else None
    median = statistics.median(times)
    naive_median = statistics.median(naive_times) if naive_times else None
    return BenchRow(
        cards=cards,
        operation=operation,
        jokers=jokers,
        rules=rules.name,
        hands=hands,
        median_ns=median,
        min_ns=min(times),
        max_ns=max(times),
        first_call_s=first,
        naive_median_ns=naive_median,
        naive_min_ns=min(naive_times) if naive_times else None,
        naive_max_ns=max(naive_times) if naive_times else None,
        naive_first_call_s=naive_first,
        ratio=naive_median / median if naive_median is not None and median > 0 else None,
        naive_agrees=agrees,
    )


def bench_deadwood(
    *,
    hands: int = DEADWOOD_HANDS,
    repeat: int = DEADWOOD_REPEAT,
    threads: int = DEADWOOD_THREADS,
    rules: str | RuleSet = DEFAULT_PRESET,
    naive: bool = True,
) -> BenchReport:
    """Time the solver kernels (and the naive baseline) on random hands.

    Parameters
    ----------
    hands : int
        Hands per timed call (joker rows use ``hands // 10``, at least 1).
    repeat : int
        Timed calls per row; the report gives their median, min and max.
    threads : int
        Numba threads during the benchmark (restored afterwards).
    rules : str or RuleSet
        Rules of the natural rows; the joker rows use them if they have jokers, else
        the ``joker-knock`` preset.
    naive : bool
        Also time the naive baseline (``sim/bench/naive.py``) on the natural rows.

    Raises
    ------
    ValueError
        For hands, repeat or threads out of range, or unknown rules.
    """
    if hands < 1:
        raise ValueError(f"hands={hands} is not allowed; choose a whole number >= 1")
    if repeat < 1:
        raise ValueError(f"repeat={repeat} is not allowed; choose a whole number >= 1")
    most = int(numba.config.NUMBA_NUM_THREADS)  # type: ignore[attr-defined]
    if not 1 <= threads <= most:
        raise ValueError(f"threads={threads} is not allowed; choose 1..{most}")
    natural_rules = rules if isinstance(rules, RuleSet) else get_rules(rules)
    joker_rules = natural_rules if natural_rules.jokers else get_rules(JOKER_PRESET)
    module = naive_module() if naive else None
    before = numba.get_num_threads()
    numba.set_num_threads(threads)
    try:
        rows = [
            _bench_row(
                cards,
                operation,
                jokers,
                joker_rules if jokers else natural_rules,
                max(1, hands // JOKER_HANDS_DIVISOR) if jokers else hands,
                repeat,
                module,
            )
            for cards, operation, jokers in SHAPES
        ]
    finally:
        numba.set_num_threads(before)
    return BenchReport(
        threads=threads,
        hands=hands,
        repeat=repeat,
        rules=natural_rules.name,
        seed=BENCH_SEED,
        naive="sim/bench/naive.py" if module is not None else "not timed",
        rows=rows,
    )


def _ns(value: float | None) -> str:
    return "-" if value is None else f"{value:,.1f}"


def print_bench(report: BenchReport, console: Console | None = None) -> None:
    """Print a report as two compact tables that fit 80 columns: the solver's times,
    then the naive search's against it; the seed and the baseline under them."""
    console = console or Console()
    times = compact_table(
        f"Deadwood solver, ns per hand: {report.threads} thread(s), median of {report.repeat}"
    )
    for header in ("hand", "hands", "median", "min", "max", "first s"):
        times.add_column(header, no_wrap=True, justify="left" if header == "hand" else "right")
    naive = compact_table("Against the naive search, ns per hand")
    for header in ("hand", "naive median", "naive / solver", "agree"):
        naive.add_column(header, no_wrap=True, justify="left" if header == "hand" else "right")
    for row in report.rows:
        jokers = " (2 jokers)" if row.jokers else ""
        hand = f"{row.cards} cards{jokers}, {row.operation}"
        times.add_row(
            hand,
            f"{row.hands:,}",
            _ns(row.median_ns),
            _ns(row.min_ns),
            _ns(row.max_ns),
            f"{row.first_call_s:.3f}",
        )
        naive.add_row(
            hand,
            _ns(row.naive_median_ns),
            "-" if row.ratio is None else f"{row.ratio:.1f}x",
            "-" if row.naive_agrees is None else ("yes" if row.naive_agrees else "NO"),
        )
    console.print(times)
    console.print(naive)
    joker_rules = sorted({row.rules for row in report.rows if row.jokers})
    console.print(
        f"rules {report.rules}"
        + (f" (with jokers: {', '.join(joker_rules)})" if joker_rules else "")
        + f"; hands seeded with {report.seed}; naive baseline: {report.naive}; first s: "
        "the first call's seconds (compile or cache load)",
        markup=False,
    )
