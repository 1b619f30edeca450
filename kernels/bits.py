"""Bit tricks on 64-bit hand masks (bit ``suit * 13 + rank``; jokers at bits 52 and 53).

``popcount`` and ``lowest_bit`` lower to single LLVM intrinsics (``ctpop``, ``cttz``):
they are called in the solver's innermost loops.
"""

from numba import njit, types
from numba.cpython.unsafe.numbers import trailing_zeros
from numba.extending import intrinsic


@intrinsic
def _ctpop(typingctx, x):
    """LLVM ``ctpop`` on an integer of any width."""
    if not isinstance(x, types.Integer):
        return None
    sig = x(x)

    def codegen(context, builder, signature, args):
        [value] = args
        return builder.ctpop(value)

    return sig, codegen


@njit(cache=True, inline="always")
def popcount(x):
    """Number of set bits of a non-negative integer."""
    return _ctpop(x)


@njit(cache=True, inline="always")
def lowest_bit(x):
    """Index of the lowest set bit of ``x`` (``x`` must be non-zero)."""
    return trailing_zeros(x)


@njit(cache=True, inline="always")
def suit_patterns(mask):
    """The four 13-bit rank patterns (clubs, diamonds, hearts, spades) of a hand mask."""
    p0 = mask & 0x1FFF
    p1 = (mask >> 13) & 0x1FFF
    p2 = (mask >> 26) & 0x1FFF
    p3 = (mask >> 39) & 0x1FFF
    return p0, p1, p2, p3


@njit(cache=True, inline="always")
def at_least_three(p0, p1, p2, p3):
    """13-bit mask of the ranks held in at least three suits (where a set is possible)."""
    return (p0 & p1 & (p2 | p3)) | ((p0 | p1) & p2 & p3)
