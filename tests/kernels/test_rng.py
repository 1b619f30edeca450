"""The counter-based generator: kernel == pure-Python twin, and it is uniform."""

from __future__ import annotations

import numpy as np
import pytest

from kernels import rng
from tests.reference import rng_ref


@pytest.mark.parametrize(
    "key, number, purpose, hand_index, sub",
    [
        (0, 0, 1, 0, 0),
        (2**64 - 1, 123456, 2, 3, 1),
        (987654321, 2**40, 4, 17, 5),
    ],
)
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


# The published SplitMix64 sequence for seed 1234567 (Vigna's splitmix64.c; Rosetta Code
# "Pseudo-random numbers/Splitmix64"). A stream here is that sequence started at its
# stream key, so stream key 1234567 must give exactly these values.
SPLITMIX64_SEED_1234567 = (
    6457827717110365317,
    3203168211198807973,
    9817491932198370423,
    4593380528125082431,
    16408922859458223821,
)


def test_random64_is_the_published_splitmix64_sequence():
    drawn = [int(rng.random64(np.uint64(1234567), k)) for k in range(5)]
    assert drawn == list(SPLITMIX64_SEED_1234567)
    assert [rng_ref.random64(1234567, k) for k in range(5)] == list(SPLITMIX64_SEED_1234567)


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


def _unmix64(z: int) -> int:
    """The inverse of ``mix64`` (each step of the finaliser is a bijection)."""
    mask = 2**64 - 1

    def unshift(y: int, s: int) -> int:
        x = y
        for _ in range(64 // s + 1):
            x = y ^ (x >> s)
        return x

    z = unshift(z, 31)
    z = z * pow(int(rng.MIX_2), -1, 2**64) & mask
    z = unshift(z, 27)
    z = z * pow(int(rng.MIX_1), -1, 2**64) & mask
    return unshift(z, 30)


@pytest.mark.parametrize("n, at", [(52, 0), (52, 21), (52, 49), (54, 10), (54, 51), (3, 0)])
def test_shuffle_with_a_rejected_draw_matches_twin(n, at):
    """A stream whose draw ``at`` is 0, which ``below`` rejects for any n that is not a
    power of two (p < 2**-26 by chance): the kernel's shuffle, which computes the
    unrejected draws ahead, carries the counters on exactly like the twin."""
    z = 12345  # a draw with high half 0
    skey = (_unmix64(z) - (at + 1) * int(rng.GOLDEN)) % 2**64
    assert int(rng.random64(np.uint64(skey), at)) == z
    deck = np.arange(n, dtype=np.int64)
    counter = rng.shuffle(deck, n, np.uint64(skey))
    ref_deck = list(range(n))
    ref_counter = rng_ref.shuffle(ref_deck, skey)
    assert deck.tolist() == ref_deck
    assert counter == ref_counter == n  # n - 1 draws and the rejected one
