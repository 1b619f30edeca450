"""``kernels.borrow``: views that numba never reference-counts, and stack arrays."""

import gc
from typing import NamedTuple

import numpy as np
from llvmlite import ir
from numba import njit, types
from numba.core.runtime.context import NRTContext

from kernels.borrow import BorrowedArray, borrow, borrow_row, stack_empty


class Pair(NamedTuple):
    left: np.ndarray
    right: np.ndarray


def _counted_meminfos(numba_type) -> int:
    """How many reference counts numba would update to copy or drop a value of this type."""
    context = _pair_sum.targetctx
    module = ir.Module()
    signature = ir.FunctionType(ir.VoidType(), [context.get_value_type(numba_type)])
    fn = ir.Function(module, signature, "f")
    builder = ir.IRBuilder(fn.append_basic_block())
    return len(NRTContext(context, True).get_meminfos(builder, numba_type, fn.args[0]))


@njit
def _pair_sum(a, b):
    pair = Pair(borrow(a), borrow(b))
    return pair.left.sum() + pair.right.sum()


def test_borrowed_views_are_never_reference_counted():
    a = np.arange(5, dtype=np.int64)
    b = np.arange(3, dtype=np.int64)
    assert _pair_sum(a, b) == 13
    compiled = _pair_sum.overloads[_pair_sum.signatures[0]]
    pair_type = compiled.type_annotation.typemap["pair"]
    view_type = pair_type[0]
    assert isinstance(view_type, BorrowedArray)
    assert _counted_meminfos(view_type) == 0
    assert _counted_meminfos(pair_type) == 0  # a tuple of views: nothing either
    assert _counted_meminfos(types.Array(types.int64, 1, "C")) == 1  # an ordinary array: one
    assert _counted_meminfos(types.Tuple([types.Array(types.int64, 1, "C")] * 2)) == 2


@njit
def _write_through(a):
    v = borrow(a)
    v[1] = 7
    return v.shape[0]


def test_borrowed_view_shares_the_owner_data():
    a = np.zeros(4, np.int64)
    assert _write_through(a) == 4
    assert a.tolist() == [0, 7, 0, 0]


@njit
def _pick(a, use_view):
    x = borrow(a) if use_view else np.full(3, 5, np.int64)
    return x.sum()


@njit
def _pick_stack(a, use_stack):
    s = stack_empty(4, 0)
    for i in range(4):
        s[i] = i
    x = s if use_stack else a
    return x.sum()


def test_borrowed_and_ordinary_arrays_unify():
    a = np.arange(3, dtype=np.int64)
    assert _pick(a, True) == 3
    assert _pick(a, False) == 15
    assert _pick_stack(np.ones(2, np.int64), True) == 6
    assert _pick_stack(np.ones(2, np.int64), False) == 2


@njit
def _tail_copy(a):
    return borrow(a)[1:].copy()


def test_copies_of_a_view_are_ordinary_owned_arrays():
    a = np.arange(6, dtype=np.int64)
    tail = _tail_copy(a)
    del a
    gc.collect()
    assert tail.tolist() == [1, 2, 3, 4, 5]
    tail[0] = 9  # owned and writable: the copy outlives its source
    assert tail.tolist() == [9, 2, 3, 4, 5]


@njit
def _stack_grid():
    g = stack_empty(2, 3)
    for i in range(2):
        for j in range(3):
            g[i, j] = 10 * i + j
    return g[1, 2] + g[0, 1], g.shape[0], g.shape[1]


def test_stack_empty_two_dimensional():
    assert _stack_grid() == (13, 2, 3)


@njit
def _rows(a, i):
    row = borrow_row(a, i)
    row[0] += 100  # writes through to the owner
    return row, row.sum(), row.shape[0]


def test_borrow_row_is_an_uncounted_view_of_one_row():
    a = np.arange(12, dtype=np.int64).reshape(3, 4)
    for i in range(3):
        expected = a[i].tolist()
        expected[0] += 100
        view, total, n = _rows(a, i)
        assert (total, n) == (sum(expected), 4)
        assert view.tolist() == expected
    assert a[:, 0].tolist() == [100, 104, 108]
    row_type = _rows.overloads[_rows.signatures[0]].type_annotation.typemap["row"]
    assert isinstance(row_type, BorrowedArray) and row_type.ndim == 1
    assert _counted_meminfos(row_type) == 0
    cube = np.arange(24, dtype=np.float64).reshape(2, 3, 4)
    before = cube[1].sum()
    view, total, n = _rows(cube, 1)  # a 3 x 4 view; its first row gains 100 each
    assert n == 3 and total == before + 400 == cube[1].sum()
    assert view.shape == (3, 4) and cube[0].sum() == np.arange(12).sum()
