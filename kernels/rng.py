"""Counter-based random numbers: every draw is a pure function of its coordinates.

``random64(stream_key(key, number, stream), counter)`` depends only on the run's key
(from the user's seed), the game or deal ``number``, the ``stream`` (what the draw is
for: the deal, a reshuffle, a seat's strategy...) and a counter within the stream.
Results therefore do not depend on batch size, thread count, process or machine, and
a strategy's coin flips never shift the deck.

The mix is SplitMix64's finaliser (Steele, Lea, Flood 2014); stream ``s`` of a key is
the SplitMix64 sequence starting at ``stream_key``. Bounded integers use Lemire's
multiply-shift with rejection (unbiased). All arithmetic is on uint64 and wraps.

Stream ids: ``make_stream(purpose, hand_index, sub)``; purposes below.
"""

import numpy as np
from numba import njit

from kernels.borrow import stack_empty

GOLDEN = np.uint64(0x9E3779B97F4A7C15)  # 2^64 / golden ratio (odd)
MIX_1 = np.uint64(0xBF58476D1CE4E5B9)
MIX_2 = np.uint64(0x94D049BB133111EB)
LOW_32 = np.uint64(0xFFFFFFFF)

# Purposes of random streams (the top bits of a stream id).
PURPOSE_DEAL = 1  # the shuffle of one hand's deck
PURPOSE_RESHUFFLE = 2  # sub = rebuild index within the hand
PURPOSE_FIRST_DEALER = 3  # a game's first dealer
PURPOSE_STRATEGY = 4  # sub = seat: that seat's strategy randomness in one hand


@njit(cache=True)
def mix64(z):
    """SplitMix64 finaliser: a bijection of uint64 with good avalanche."""
    z = np.uint64(z)
    z = (z ^ (z >> np.uint64(30))) * MIX_1
    z = (z ^ (z >> np.uint64(27))) * MIX_2
    return z ^ (z >> np.uint64(31))


@njit(cache=True)
def make_stream(purpose, hand_index, sub):
    """Stream id: purpose (8 bits), hand index within a game (32 bits), sub (8 bits)."""
    return (
        (np.uint64(purpose) << np.uint64(48))
        | (np.uint64(hand_index) << np.uint64(8))
        | np.uint64(sub)
    )


@njit(cache=True)
def stream_key(key, number, stream):
    """Starting state of one stream of one game or deal."""
    h = mix64(np.uint64(key) ^ (np.uint64(number) * GOLDEN))
    return mix64(h ^ (np.uint64(stream) * MIX_1 + GOLDEN))


@njit(cache=True)
def random64(skey, counter):
    """The ``counter``-th 64-bit value of a stream."""
    return mix64(np.uint64(skey) + (np.uint64(counter) + np.uint64(1)) * GOLDEN)


@njit(cache=True)
def below(skey, counter, n):
    """Unbiased integer in ``[0, n)`` (n >= 1, n < 2**32) from a stream.

    Returns ``(value, next_counter)``: a rejected draw consumes a counter value, so
    the caller must carry the counter forward.
    """
    return _bounded(random64(skey, counter) >> np.uint64(32), np.uint64(n), skey, counter + 1)


@njit(cache=True)
def _bounded(r, n64, skey, counter):
    """``below``'s value from its first 32-bit draw ``r``; ``counter`` is the next one."""
    m = r * n64
    # A draw is kept when its low half is at least 2**32 mod n (the biased tail);
    # that threshold is below n, so the division is needed only when low < n
    # (Lemire's nearly divisionless form: the same draws, the same counters).
    if (m & LOW_32) < n64:
        threshold = (np.uint64(1) << np.uint64(32)) % n64
        while (m & LOW_32) < threshold:
            r = random64(skey, counter) >> np.uint64(32)
            counter += 1
            m = r * n64
    return np.int64(m >> np.uint64(32)), counter


SHUFFLE_CAPACITY = 64  # cards one shuffle can take (a deck is at most 54)


@njit(cache=True)
def shuffle(deck, n, skey):
    """Fisher-Yates shuffle of ``deck[:n]`` in place from one stream (counter from 0).

    For i from n-1 down to 1, swap ``deck[i]`` with ``deck[j]``, j uniform in [0, i]
    (``below``, draw for draw). Returns the next unused counter.
    """
    # Without a rejection, the draws use counters 0, 1, ..., n-2 and each j is known
    # before any swap: all are computed first, in one loop the compiler vectorizes, and
    # the swaps then wait on no multiply chain (measured 96 -> 82 ns a deck against
    # drawing the 32 bits ahead and bounding each j as the swaps go). A draw that might
    # be rejected (its low half below the bound: p < 2**-26) sends the whole shuffle,
    # before any swap, to the draws as they come (``_shuffle_drawing``), which settle
    # it exactly.
    if n - 1 > SHUFFLE_CAPACITY:
        return _shuffle_drawing(deck, n, skey)
    picks = stack_empty(SHUFFLE_CAPACITY, 0)
    clean = True
    for k in range(n - 1):
        bound = np.uint64(n - k)
        m = (random64(skey, k) >> np.uint64(32)) * bound
        picks[k] = np.int64(m >> np.uint64(32))
        clean &= (m & LOW_32) >= bound
    if not clean:
        return _shuffle_drawing(deck, n, skey)
    for k in range(n - 1):
        i = n - 1 - k
        j = picks[k]
        t = deck[i]
        deck[i] = deck[j]
        deck[j] = t
    return max(n - 1, 0)


@njit(cache=True)
def _shuffle_drawing(deck, n, skey):
    """``shuffle`` drawing each j as the swaps reach it, rejections and all."""
    counter = 0
    for i in range(n - 1, 0, -1):
        r = random64(skey, counter) >> np.uint64(32)
        j, counter = _bounded(r, np.uint64(i + 1), skey, counter + 1)  # ``below``
        t = deck[i]
        deck[i] = deck[j]
        deck[j] = t
    return counter
