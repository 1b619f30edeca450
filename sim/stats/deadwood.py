"""The distribution of the least deadwood of a random hand, exact or by Monte Carlo.

>>> from sim.stats.deadwood import deadwood_distribution
>>> d = deadwood_distribution(3, exact=True)
>>> d.n, d.counts[0]                      # C(52, 3) hands; 3-card melds
(22100, 96)

Exact enumeration counts every one of the C(52, N) hands of natural cards, one suit
permutation class at a time (``kernels/enumerate.py``); N = 10 takes about 2.5 s and N = 11
(60 billion hands) about 12 s on 2 cores. Monte Carlo draws ``samples`` hands from a
counter-based stream keyed by the seed, so a seed gives the same result on any number
of threads, and works with jokers too. Both honour the rule set's ``ace`` mode and
``ace_high_value`` (and ``joker_value``); nothing else in a rule set changes deadwood.
"""

from __future__ import annotations

import math
import warnings
from dataclasses import dataclass, field

import numpy as np

from kernels.enumerate import (
    MAX_ENUMERATED_CARDS,
    N_CHUNKS,
    enumeration_items_nb,
    exact_histogram_nb,
    monte_carlo_histogram_nb,
    pattern_tables,
)
from kernels.layout import N_NATURAL
from kernels.tables import table_views
from sim.limits import MAX_SEED
from sim.rules import DEFAULT_PRESET, RuleSet
from sim.sizes import DEADWOOD_SAMPLES
from sim.solver import resolve_rules, tables_for
from sim.warm import LAST, warm_entry

__all__ = ["QUANTILES", "DeadwoodDistribution", "deadwood_distribution", "histogram_size"]

MIN_CARDS = 1
MAX_CARDS = 11  # a Gin hand after the draw; the kernels' tested range
QUANTILES = (5, 25, 50, 75, 95)
# Exact enumeration of this many cards takes long enough to deserve a warning.
SLOW_EXACT_CARDS = 11
METHOD_EXACT = "exact"
METHOD_MONTE_CARLO = "monte carlo"
MAX_SAMPLES = 10**12  # hands counted in int64 bins; about 3 hours on 2 cores
# Work per kernel call. Python sees Ctrl-C only between calls, so a count of any size
# is cut into calls whose counts add up to exactly those of one call. Measured on 2
# cores with 11 cards (the slowest): a Monte Carlo batch 0.2 s; an exact batch under a
# second, but for the first (the items with void suits, about 2 s), with 6% more time
# in all than one call.
MONTE_CARLO_BATCH = 1 << 22  # hands
EXACT_BATCH = 1024  # enumeration items (of 99,360 for 11 cards)


@dataclass(frozen=True)
class DeadwoodDistribution:
    """How the least deadwood of a random hand is distributed.

    Attributes
    ----------
    cards : int
        Hand size.
    method : {"exact", "monte carlo"}
    n : int
        Hands counted: ``C(52, cards)`` (exact) or the number of samples.
    seed : int or None
        The Monte Carlo seed (drawn and reported when none was given); None if exact.
    rules : str
        Name of the rule set.
    counts : dict of int to int
        Hands per deadwood value, ascending, non-zero counts only.
    probabilities : dict of int to float
        ``counts[v] / n``.
    mean, std : float
        Of the deadwood (std: the distribution's, dividing by ``n``).
    quantiles : dict of int to int
        Percent -> the least value ``v`` with ``P(deadwood <= v) >= percent / 100``,
        for 5, 25, 50, 75 and 95.
    sem : float or None
        Monte Carlo standard error of the mean (sample std / sqrt(n)); None if exact.
    """

    cards: int
    method: str
    n: int
    seed: int | None
    rules: str
    counts: dict[int, int]
    probabilities: dict[int, float] = field(repr=False)
    mean: float
    std: float
    quantiles: dict[int, int]
    sem: float | None

    def to_dict(self) -> dict[str, object]:
        """Every field, JSON-ready (dictionary keys become strings in JSON)."""
        return {
            "cards": self.cards,
            "method": self.method,
            "rules": self.rules,
            "n": self.n,
            "seed": self.seed,
            "mean": self.mean,
            "std": self.std,
            "sem": self.sem,
            "quantiles": dict(self.quantiles),
            "counts": dict(self.counts),
            "probabilities": dict(self.probabilities),
        }


def histogram_size(rules: RuleSet, cards: int, deck_size: int = N_NATURAL) -> int:
    """Histogram length that holds every deadwood of a ``cards``-card hand.

    The largest deadwood is at most the sum of the ``cards`` highest card values of the
    deck (52 naturals, or 54 with jokers).
    """
    values = np.sort(table_views(tables_for(rules)).card_value[:deck_size].astype(np.int64))
    return int(values[-cards:].sum()) + 1


def _check_int(name: str, value: object) -> int:
    if isinstance(value, bool) or not isinstance(value, (int, np.integer)):
        raise ValueError(f"{name}={value!r} is not allowed; {name} must be a whole number")
    return int(value)


def _exact_counts(rules: RuleSet, cards: int) -> np.ndarray:
    tab = tables_for(rules)
    patterns, offsets, start_index = pattern_tables()
    items = enumeration_items_nb(cards, offsets, start_index)
    hist = np.zeros((N_CHUNKS, histogram_size(rules, cards)), np.int64)
    for start in range(0, len(items), EXACT_BATCH):
        batch = items[start : start + EXACT_BATCH]
        exact_histogram_nb(cards, patterns, offsets, start_index, batch, tab, hist)
    counts: np.ndarray = hist.sum(axis=0)
    total = int(counts.sum())
    # Every hand is counted once: the class weights add up to the number of hands.
    assert total == math.comb(N_NATURAL, cards), (total, math.comb(N_NATURAL, cards))
    return counts


def _monte_carlo_counts(rules: RuleSet, cards: int, samples: int, seed: int) -> np.ndarray:
    key = np.random.SeedSequence(seed).generate_state(1, np.uint64)[0]
    deck_size = N_NATURAL + rules.jokers
    hist = np.zeros((min(N_CHUNKS, samples), histogram_size(rules, cards, deck_size)), np.int64)
    tab = tables_for(rules)
    for first in range(0, samples, MONTE_CARLO_BATCH):
        n = min(MONTE_CARLO_BATCH, samples - first)
        monte_carlo_histogram_nb(key, first, n, cards, deck_size, tab, hist)
    counts: np.ndarray = hist.sum(axis=0)
    assert int(counts.sum()) == samples
    return counts


def _summarise(
    counts: np.ndarray, *, cards: int, method: str, seed: int | None, rules: RuleSet
) -> DeadwoodDistribution:
    values = [int(v) for v in np.flatnonzero(counts)]
    count_of = {v: int(counts[v]) for v in values}
    n = sum(count_of.values())
    # Exact integer sums, so an exact mean and std carry no rounding beyond the last step.
    total = sum(v * c for v, c in count_of.items())
    squares = sum(v * v * c for v, c in count_of.items())
    mean = total / n
    variance = (squares * n - total * total) / (n * n)
    quantiles: dict[int, int] = {}
    cumulative = 0
    pending = list(QUANTILES)
    for v in values:
        cumulative += count_of[v]
        while pending and cumulative * 100 >= pending[0] * n:
            quantiles[pending.pop(0)] = v
    sem = None
    if method == METHOD_MONTE_CARLO:
        sample_variance = (squares * n - total * total) / (n * (n - 1)) if n > 1 else 0.0
        sem = math.sqrt(sample_variance / n)
    return DeadwoodDistribution(
        cards=cards,
        method=method,
        n=n,
        seed=seed,
        rules=rules.name,
        counts=count_of,
        probabilities={v: c / n for v, c in count_of.items()},
        mean=mean,
        std=math.sqrt(variance),
        quantiles=quantiles,
        sem=sem,
    )


def deadwood_distribution(
    cards: int,
    *,
    rules: str | RuleSet = DEFAULT_PRESET,
    exact: bool = False,
    samples: int = DEADWOOD_SAMPLES,
    seed: int | None = None,
) -> DeadwoodDistribution:
    """The distribution of the least deadwood of a random ``cards``-card hand.

    Parameters
    ----------
    cards : int
        Hand size, 1..11.
    rules : str or RuleSet, default "gin"
        Preset name or rule set: its ``ace`` mode, ``ace_high_value``, ``jokers`` and
        ``joker_value`` matter. With jokers, hands come from the 54-card deck.
    exact : bool, default False
        Count every hand of natural cards (no jokers) instead of sampling;
        ``samples`` and ``seed`` are then unused. 11 cards takes a while (a
        ``RuntimeWarning`` says so).
    samples : int, default 1_000_000
        Monte Carlo hands, >= 1.
    seed : int or None
        Monte Carlo seed (>= 0); None draws one (``SeedSequence().entropy``), reported
        in the result. The kernel key is ``SeedSequence(seed).generate_state(1)``.

    Returns
    -------
    DeadwoodDistribution

    Raises
    ------
    ValueError
        For ``cards`` outside 1..11, ``samples < 1``, a negative seed, or ``exact``
        with a rule set that has jokers; ``RuleError`` (a ValueError) for an unknown
        preset.
    """
    r = resolve_rules(rules)
    cards = _check_int("cards", cards)
    if not MIN_CARDS <= cards <= MAX_CARDS:
        raise ValueError(f"cards={cards} is not allowed; choose {MIN_CARDS}..{MAX_CARDS}")
    if exact:
        if r.jokers:
            raise ValueError(
                f"exact enumeration covers natural cards only, but rule set {r.name!r} "
                f"has jokers={r.jokers}; use Monte Carlo (exact=False) with jokers"
            )
        if cards > MAX_ENUMERATED_CARDS:  # pragma: no cover - equal to MAX_CARDS today
            raise ValueError(
                f"cards={cards} is too many to enumerate; choose 1..{MAX_ENUMERATED_CARDS}"
            )
        if cards >= SLOW_EXACT_CARDS:
            warnings.warn(
                f"exact enumeration of {math.comb(N_NATURAL, cards):,} hands of {cards} "
                "cards takes about 4 times as long as 10 cards (about 12 s on 2 cores)",
                RuntimeWarning,
                stacklevel=2,
            )
        counts = _exact_counts(r, cards)
        return _summarise(counts, cards=cards, method=METHOD_EXACT, seed=None, rules=r)
    samples = _check_int("samples", samples)
    if not 1 <= samples <= MAX_SAMPLES:
        raise ValueError(
            f"samples={samples} is not allowed; choose a whole number 1..{MAX_SAMPLES}"
        )
    if seed is None:
        entropy = np.random.SeedSequence().entropy  # a fresh 128-bit int
        assert isinstance(entropy, int)
        seed = entropy
    else:
        seed = _check_int("seed", seed)
        if not 0 <= seed <= MAX_SEED:
            raise ValueError(f"seed={seed} is not allowed; choose a whole number 0..{MAX_SEED}")
    counts = _monte_carlo_counts(r, cards, samples, seed)
    return _summarise(counts, cards=cards, method=METHOD_MONTE_CARLO, seed=seed, rules=r)


@warm_entry("stats: deadwood counts", LAST)
def _warm_counts() -> None:
    """Compile (or load) the counting kernels (``rummy warm``): one sampled hand and
    the exact count of one card. Last: they call the solver's pieces, compiled first."""
    deadwood_distribution(2, samples=1, seed=0)
    deadwood_distribution(1, exact=True)
