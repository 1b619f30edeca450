"""Pure-Python twin of ``kernels/rng.py`` (plain ints, masked to 64 bits).

Written from the same definitions, not by calling the kernels: the tests compare the
two on many inputs.
"""

from __future__ import annotations

M64 = (1 << 64) - 1
GOLDEN = 0x9E3779B97F4A7C15
MIX_1 = 0xBF58476D1CE4E5B9
MIX_2 = 0x94D049BB133111EB

PURPOSE_DEAL = 1
PURPOSE_RESHUFFLE = 2
PURPOSE_FIRST_DEALER = 3
PURPOSE_STRATEGY = 4


def mix64(z: int) -> int:
    z &= M64
    z = ((z ^ (z >> 30)) * MIX_1) & M64
    z = ((z ^ (z >> 27)) * MIX_2) & M64
    return z ^ (z >> 31)


def make_stream(purpose: int, hand_index: int, sub: int) -> int:
    return ((purpose << 48) | (hand_index << 8) | sub) & M64


def stream_key(key: int, number: int, stream: int) -> int:
    h = mix64(key ^ ((number * GOLDEN) & M64))
    return mix64(h ^ ((stream * MIX_1 + GOLDEN) & M64))


def random64(skey: int, counter: int) -> int:
    return mix64((skey + (counter + 1) * GOLDEN) & M64)


def below(skey: int, counter: int, n: int) -> tuple[int, int]:
    """Unbiased integer in [0, n) and the next counter (Lemire with rejection)."""
    threshold = (1 << 32) % n
    while True:
        r = random64(skey, counter) >> 32
        counter += 1
        m = r * n
        if (m & 0xFFFFFFFF) >= threshold:
            return m >> 32, counter


def shuffle(deck: list[int], skey: int) -> int:
    """Fisher-Yates in place, i from len-1 down to 1; returns the next counter."""
    counter = 0
    for i in range(len(deck) - 1, 0, -1):
        j, counter = below(skey, counter, i + 1)
        deck[i], deck[j] = deck[j], deck[i]
    return counter
