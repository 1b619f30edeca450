"""A piece and its callers for the tests of ``kernels/link.py`` (small: quick to compile)."""

import numpy as np
from numba import njit
from numba.core.types import float64, int64

from kernels.borrow import BorrowedArray
from kernels.link import Piece, Socket, piece

VALUES = BorrowedArray(int64, 1, "C", readonly=True)


@piece(int64(int64, VALUES))
def weighted(x, values):
    """``x`` plus the sum of ``values``; raises for ``x == -1``."""
    if x == -1:
        raise ValueError("x must not be -1")
    total = x
    for i in range(values.shape[0]):
        total += values[i]
    return total


@njit(cache=True)
def twice(x, values):
    """Calls the piece through its slot, twice."""
    return weighted(x, values) + weighted(np.int64(1), values)


@njit(cache=True)
def _returns_a_float(x):
    return float(x)


# Declared to return an int: binding it must fail, not misread the float.
misdeclared = Piece(_returns_a_float, int64(float64))


@piece(int64(int64))
def plus_one(x):
    return x + 1


@piece(int64(int64))
def doubled(x):
    return 2 * x


@piece(int64(float64))
def other_signature(x):
    return int64(x)


# A socket that the tests plug either piece into, and one that stays empty.
number = Socket(__name__, "number", int64(int64))
empty = Socket(__name__, "empty", int64(int64))


@njit(cache=True)
def through_number(x):
    return number(x) + 100


@njit(cache=True)
def through_empty(x):
    return empty(x)
