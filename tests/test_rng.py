"""The counter-based generator: kernel == pure-Python twin, and it is uniform."""

from __future__ import annotations

import numpy as np
import pytest

from kernels import rng
from tests.reference import rng_ref


@pytest.mark.parametrize("key, number, purpose, hand_index, sub", [
    (0, 0, 1, 0, 0), (2**64 - 1, 123456, 2, 3, 1), (987654321, 2**40, 4, 17, 5),
])
def test_kernel_matches_twin(key, number, purpose, hand_index, sub):
    stream = rng.make_stream(purpose, hand_index, sub)
    assert int(stream) == rng_ref.make_stream(purpose, hand_index, sub)
    skey = rng.stream_key(np.uint64(key), number, stream)
    assert int(skey) == rng_ref.stream_key(key, number, int(stream))
    counter = 0
    ref_counter = 0
    for n in (1, 2, 3, 7, 52, 54, 1000, 2**31 + 11):
        value, counter = rng.below(skey, counter, n)
        ref_value, ref_counter = rng_ref.below(int(skey), ref_counter, n)
        assert (value, counter) == (ref_value, ref_counter)
    deck = np.arange(54, dtype=np.int64)
    rng.shuffle(deck, 54, skey)
    ref_deck = list(range(54))
    rng_ref.shuffle(ref_deck, int(skey))
    assert deck.tolist() == ref_deck


def test_streams_differ():
    a = rng.stream_key(np.uint64(1), 5, rng.make_stream(1, 0, 0))
    b = rng.stream_key(np.uint64(1), 5, rng.make_stream(2, 0, 0))
    c = rng.stream_key(np.uint64(1), 6, rng.make_stream(1, 0, 0))
    assert len({int(a), int(b), int(c)}) == 3


def test_below_is_uniform():
    """Chi-square over 6 buckets for 60,000 draws (p > 1e-6 for a fair generator)."""
    skey = rng.stream_key(np.uint64(42), 0, rng.make_stream(1, 0, 0))
    counts = np.zeros(6, np.int64)
    counter = 0
    for _ in range(60_000):
        value, counter = rng.below(skey, counter, 6)
        counts[value] += 1
    chi2 = float(((counts - 10_000) ** 2 / 10_000).sum())
    assert chi2 < 35.9  # 5 degrees of freedom, p = 1e-6


def test_rejections_match_twin():
    """Large n, where about a third to a half of the draws are rejected: every value and
    counter still agrees with the twin (the division-free acceptance path included)."""
    skey = rng.stream_key(np.uint64(5), 77, rng.make_stream(1, 0, 0))
    counter = 0
    ref_counter = 0
    for i in range(3000):
        n = (2**31 + 11, 3 * 2**30 + 1, 5, 2**32 - 1)[i % 4]
        value, counter = rng.below(skey, counter, n)
        ref_value, ref_counter = rng_ref.below(int(skey), ref_counter, n)
        assert (value, counter) == (ref_value, ref_counter)
    assert counter > 3000 + 500  # rejections happened
