"""Shared helpers for the kernel-versus-oracle tests.

Conventions
-----------
- A card is an int ``suit * 13 + rank`` (RULES.md "Cards"); jokers are 52 and 53.
  Hands in the oracle tests are tuples of cards; kernels take ``np.int64`` masks.
- ``ref_rules(ace)`` is the reference rules namespace (``tests/reference/rules_ns``);
  ``tables_for_ref(rules)`` maps it to ``kernels.tables.build_tables(ace_code,
  ace_high_value, joker_value)``, so a test always runs kernel and oracle on the same
  rule set.
- Hand generators take a ``random.Random`` so that every test is seeded and
  repeatable; ``seeded(*parts)`` makes one from a readable string (string seeds are
  stable across runs and Python versions, unlike ``hash``).
- ``oracle_min_deadwood`` / ``memo_oracle``: the oracle's own ``min_deadwood_ref``
  behind a dictionary cache, so that ``best_discard_ref`` asked twice about one hand
  (with and without a forbidden card) solves each sub-hand once. The cache changes no
  answer: it is keyed on the hand and every rule value the oracle reads.
- ``oracle_chunk``: the worker of the ``-m slow`` tests (a module-level function so that
  a ``spawn`` process pool can import it).
"""

from __future__ import annotations

import random
import signal
from collections.abc import Iterable, Sequence
from typing import Any

import numpy as np
import pytest

from kernels.layout import ACE_AROUND, ACE_HIGH_OR_LOW, ACE_LOW
from kernels.tables import build_tables
from tests.reference import deadwood_ref
from tests.reference.cardtext import names
from tests.reference.rules_ns import make_rules

ACE_MODES = ("low", "high_or_low", "around")
ACE_CODES = {"low": ACE_LOW, "high_or_low": ACE_HIGH_OR_LOW, "around": ACE_AROUND}
JOKERS = (52, 53)
NATURALS = tuple(range(52))


# --- Ctrl-C as in a terminal -----------------------------------------------------------


def pytest_configure(config: pytest.Config) -> None:
    """Python's own SIGINT handler in every test process, however the suite was started:
    run in the background (``&`` without job control, ``nohup``) it inherits SIGINT
    ignored, which a command keeps (``sim/cli/signals.py``) and the commands tests start
    inherit, so the tests of Ctrl-C would find nothing to stop it."""
    if signal.getsignal(signal.SIGINT) is signal.SIG_IGN:
        signal.signal(signal.SIGINT, signal.default_int_handler)


# --- compile once, before the workers start ------------------------------------------


@pytest.hookimpl(optionalhook=True)
def pytest_xdist_setupnodes(config: pytest.Config, specs: list[Any]) -> None:
    """Before xdist starts its workers (the whole suite only): compile every kernel once,
    here, on every core, into the numba cache the workers then load from. Otherwise each
    worker compiles what its first tests need, the same kernels at the same time in
    both. A run of chosen files or tests compiles only what they need, as it goes."""
    if config.args_source is not pytest.Config.ArgsSource.TESTPATHS:
        return
    from sim.warm import warm

    warm()


# --- rules ---------------------------------------------------------------------------


def ref_rules(ace: str = "low", **kw: Any) -> Any:
    """The reference rules namespace for an ace mode (RULES.md defaults otherwise)."""
    return make_rules(ace=ace, **kw)


def tables_for_ref(rules: Any) -> Any:
    """Kernel tables for a reference rules namespace (ace mode, ace and joker values)."""
    return build_tables(ACE_CODES[rules.ace], rules.ace_high_value, rules.joker_value)


# --- masks and cards -----------------------------------------------------------------


def mask_of(cards: Iterable[int]) -> int:
    """Bit mask of a collection of card indices (a card twice is an error)."""
    mask = 0
    for card in cards:
        bit = 1 << int(card)
        assert not mask & bit, f"card {card} given twice"
        mask |= bit
    return mask


def cards_of(mask: int | np.integer) -> tuple[int, ...]:
    """Ascending card indices of a mask (works for int64 masks holding bit 53)."""
    m = int(mask) & ((1 << 64) - 1)
    return tuple(i for i in range(64) if (m >> i) & 1)


def kmask(cards: Iterable[int]) -> np.int64:
    """A hand as the ``np.int64`` mask the scalar kernels take."""
    return np.int64(mask_of(cards))


def melds_of(out: np.ndarray, n: int) -> list[tuple[int, ...]]:
    """The first ``n`` meld masks of a kernel ``out`` array as ascending card tuples."""
    return [cards_of(m) for m in out[:n]]


def show(cards: Iterable[int]) -> str:
    """Card text for failure messages, e.g. ``"AC 2C 3C JK"``."""
    return names(cards)


def show_melds(melds: Iterable[Iterable[int]]) -> str:
    return " | ".join(names(m) for m in melds) or "(none)"


# --- seeded hand generators ----------------------------------------------------------


def seeded(*parts: object) -> random.Random:
    """A ``random.Random`` seeded from readable parts, e.g. ``seeded("dw", 7, "low")``."""
    return random.Random("/".join(str(p) for p in parts))


def random_hand(
    rng: random.Random, size: int, jokers: int = 0, exclude: Iterable[int] = ()
) -> tuple[int, ...]:
    """``size`` cards: ``jokers`` jokers (52 first) and the rest natural, uniformly."""
    assert 0 <= jokers <= min(2, size)
    excluded = set(exclude)
    pool = [c for c in NATURALS if c not in excluded]
    return tuple(sorted(rng.sample(pool, size - jokers) + list(JOKERS[:jokers])))


def dense_hand(
    rng: random.Random, size: int, jokers: int = 0, exclude: Iterable[int] = ()
) -> tuple[int, ...]:
    """A hand where sets and runs compete: naturals drawn from 3 to 5 consecutive ranks
    (wrapping past the King, so K-A-2 shapes appear) in all four suits, plus a
    neighbouring rank on each side when more cards are needed."""
    excluded = set(exclude)
    n_nat = size - jokers
    span = rng.randint(3, 5)
    low = rng.randrange(13)
    ranks = [(low + i) % 13 for i in range(span)]
    pool = [s * 13 + r for s in range(4) for r in ranks if s * 13 + r not in excluded]
    step = 0
    while len(pool) < n_nat:  # widen by one neighbour at each side in turn
        step += 1
        r = (low - (step + 1) // 2) % 13 if step % 2 else (low + span - 1 + step // 2) % 13
        pool += [s * 13 + r for s in range(4) if s * 13 + r not in excluded]
    return tuple(sorted(rng.sample(pool, n_nat) + list(JOKERS[:jokers])))


def quad_hand(rng: random.Random, size: int, jokers: int = 0) -> tuple[int, ...]:
    """A hand holding all four cards of one rank, plus cards of that rank's neighbours
    (so the four of a kind may give one card to a run) and random fill."""
    assert size - jokers >= 4
    rank = rng.randrange(13)
    cards = {s * 13 + rank for s in range(4)}
    near = [s * 13 + (rank + d) % 13 for s in range(4) for d in (-2, -1, 1, 2)]
    rng.shuffle(near)
    want = size - jokers
    for card in near:
        if len(cards) >= want or len(cards) >= 4 + (want - 4) * 2 // 3:
            break
        cards.add(card)
    while len(cards) < want:
        cards.add(rng.randrange(52))
    return tuple(sorted(cards | set(JOKERS[:jokers])))


def random_meld(rng: random.Random, ace: str, avail: set[int]) -> tuple[int, ...] | None:
    """A random natural meld (run of 3..6 or set of 3..4) made only of ``avail`` cards."""
    for _ in range(50):
        if rng.random() < 0.55:
            length = rng.choice((3, 3, 3, 4, 4, 5, 6))
            windows = deadwood_ref.run_windows(length, ace)
            window = rng.choice(windows)
            suit = rng.randrange(4)
            meld = tuple(sorted(suit * 13 + r for r in window))
        else:
            rank = rng.randrange(13)
            suits = rng.sample(range(4), rng.choice((3, 3, 4)))
            meld = tuple(sorted(s * 13 + rank for s in suits))
        if all(c in avail for c in meld):
            return meld
    return None


def layoff_deal(
    rng: random.Random, ace: str, hand_size: int = 10, n_melds: int | None = None
) -> tuple[list[tuple[int, ...]], tuple[int, ...]]:
    """Knocker melds (1 to 3 random disjoint natural melds) and a defender hand of
    ``hand_size`` cards, half of them near the melds' ranks so that lay-offs, chains
    and competing own melds are common."""
    avail = set(NATURALS)
    melds: list[tuple[int, ...]] = []
    for _ in range(n_melds if n_melds is not None else rng.randint(1, 3)):
        meld = random_meld(rng, ace, avail)
        if meld is not None:
            melds.append(meld)
            avail -= set(meld)
    ranks = {c % 13 for m in melds for c in m}
    near = sorted(c for c in avail if any((c % 13 - r) % 13 in (0, 1, 2, 11, 12) for r in ranks))
    k = min(len(near), hand_size // 2 + rng.randint(0, hand_size // 2))
    hand = set(rng.sample(near, k))
    hand |= set(rng.sample(sorted(avail - hand), hand_size - k))
    return sorted(melds), tuple(sorted(hand))


def knocker_deal(
    rng: random.Random, ace: str, hand_size: int = 10, n_defenders: int = 1
) -> tuple[tuple[int, ...], list[tuple[int, ...]]]:
    """A dense knocker hand with deadwood above 0 and, where 30 tries find one, two or
    more least-deadwood arrangements (so the lay-off rule has a choice to make), and
    ``n_defenders`` defender hands drawn near its ranks (so lay-offs matter)."""
    rules = ref_rules(ace)
    for _ in range(30):
        knocker = dense_hand(rng, hand_size)
        least, candidates = deadwood_ref.min_deadwood_arrangements(knocker, rules)
        if least > 0 and len(candidates) >= 2:
            break
    used = set(knocker)
    ranks = {c % 13 for c in knocker}
    defenders = []
    for _ in range(n_defenders):
        near = sorted(
            c
            for c in NATURALS
            if c not in used and any((c % 13 - r) % 13 in (0, 1, 12) for r in ranks)
        )
        k = min(len(near), hand_size * 2 // 3)
        hand = set(rng.sample(near, k))
        hand |= set(rng.sample(sorted(set(NATURALS) - used - hand), hand_size - k))
        defenders.append(tuple(sorted(hand)))
        used |= hand
    return knocker, defenders


# --- a cached oracle -----------------------------------------------------------------

_MIN_DEADWOOD_CACHE: dict[tuple[Any, ...], int] = {}
_ORIGINAL_MIN_DEADWOOD_REF = deadwood_ref.min_deadwood_ref


def _rules_key(rules: Any) -> tuple[Any, ...]:
    return (rules.ace, rules.ace_high_value, rules.joker_value)


def oracle_min_deadwood(hand: Iterable[int], rules: Any) -> int:
    """``deadwood_ref.min_deadwood_ref`` with a cache (same answers, each hand once)."""
    hand = deadwood_ref.as_hand(hand)
    key = (hand, *_rules_key(rules))
    if key not in _MIN_DEADWOOD_CACHE:
        if len(_MIN_DEADWOOD_CACHE) > 200_000:
            _MIN_DEADWOOD_CACHE.clear()
        _MIN_DEADWOOD_CACHE[key] = _ORIGINAL_MIN_DEADWOOD_REF(hand, rules)
    return _MIN_DEADWOOD_CACHE[key]


@pytest.fixture
def memo_oracle(monkeypatch: pytest.MonkeyPatch) -> Any:
    """The ``deadwood_ref`` module with ``min_deadwood_ref`` cached for this test
    (``best_discard_ref`` looks it up at call time, so it uses the cache too)."""
    monkeypatch.setattr(deadwood_ref, "min_deadwood_ref", oracle_min_deadwood)
    return deadwood_ref


# --- the worker of the slow tests ----------------------------------------------------


def slow_hands(kind: str, size: int, ace: str, start: int, count: int) -> list[tuple[int, ...]]:
    """Hands ``start .. start + count - 1`` of one slow-test stream. Hand ``i`` has
    ``i % 3`` jokers and its own seed, so any chunking yields the same hands."""
    make = dense_hand if kind == "dense" else random_hand
    out = []
    for i in range(start, start + count):
        rng = seeded("slow", kind, size, ace, i)
        out.append(make(rng, size, min(i % 3, size)))
    return out


def oracle_chunk(
    args: tuple[str, int, str, int, int, int],
) -> list[tuple[tuple[int, ...], int, list[tuple[int, ...]], tuple[int, ...] | None]]:
    """Oracle answers for one chunk of a slow-test stream.

    Returns ``(hand, min deadwood, canonical melds, discards or None)`` per hand. For
    every ``discard_every``-th hand ``discards`` is ``(card, deadwood, forbidden,
    card', deadwood')``: the best discard, then the best with that card forbidden
    (``card'`` is -1 when nothing else may go). ``min_deadwood_ref`` is cached for the
    second call (see ``oracle_min_deadwood``).
    """
    kind, size, ace, start, count, discard_every = args
    rules = ref_rules(ace)
    results = []
    for offset, hand in enumerate(slow_hands(kind, size, ace, start, count)):
        melds, _, deadwood = deadwood_ref.canonical_arrangement_ref(hand, rules)
        discards = None
        if (start + offset) % discard_every == 0:
            saved = deadwood_ref.min_deadwood_ref
            deadwood_ref.min_deadwood_ref = oracle_min_deadwood
            try:
                card, left = deadwood_ref.best_discard_ref(hand, rules)
                second = (-1, -1)
                if len(hand) > 1:
                    second = deadwood_ref.best_discard_ref(hand, rules, forbidden=card)
            finally:
                deadwood_ref.min_deadwood_ref = saved
                _MIN_DEADWOOD_CACHE.clear()
            discards = (card, left, card, *second)
        results.append((hand, deadwood, melds, discards))
    return results


def assert_same(kind: str, hand: Sequence[int], ace: str, kernel: Any, oracle: Any) -> None:
    """Fail with the hand in card text, the ace mode and both answers."""
    assert kernel == oracle, (
        f"{kind} mismatch for [{show(hand)}] (ace={ace}): kernel {kernel!r}, oracle {oracle!r}"
    )
