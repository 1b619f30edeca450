"""``borrow(array)``: the same array without a reference count, for hot loops.

Every time numba stores an array in a tuple, reads it back or passes it through a
call it may not inline, it calls ``NRT_incref`` / ``NRT_decref`` on the array's
reference-count record (atomic instructions when the record exists; a call even when
it is null). The round loop builds an observation tuple of six arrays for every hook
call, so that bookkeeping took more time than the game itself. ``borrow`` returns a
view typed :class:`BorrowedArray`, a type numba does not count at all: no calls, no
atomics, no cache line bounced between threads on the arrays every thread shares
(the solver tables, the rules). Measured with ``rummy bench engine``: Gin greedy
about 1.5x, 4-player Knock Rummy about 1.75x.

``borrow_row(array, i)`` is ``borrow(array[i])`` without the counted row in between.

``stack_empty(rows, cols)`` is the allocation-free counterpart for small working
arrays of a known size: room on the stack frame instead of the heap.

Use ``borrow`` only on arrays kept alive by an owner that outlives every use of the view
(the caller's argument, or a working array held in a local variable): the view never
frees anything and never keeps anything alive. Slices and copies of a borrowed view
are ordinary (counted) arrays again, so nothing newly allocated is ever left uncounted.
"""

from llvmlite import ir
from numba import types
from numba.core import cgutils
from numba.core.datamodel.models import ArrayModel
from numba.extending import NativeValue, intrinsic, lower_cast, register_model, unbox
from numba.np.arrayobj import populate_array


class BorrowedArray(types.Array):
    """The type of a borrowed view: an array numba never reference-counts.

    Its values are laid out like any array (every array operation applies), but its
    data model lists no members to count, so numba emits no ``NRT_incref`` /
    ``NRT_decref`` calls for it at all (a null meminfo would make them no-ops, but
    each is still a call: a third of the round loop's time). Views taken of it
    (slices, rows) are ordinary arrays again.
    """

    def __init__(self, dtype, ndim, layout, readonly=False, aligned=True):
        name = f"borrowed({dtype}, {ndim}d, {layout}{', readonly' if readonly else ''})"
        super().__init__(dtype, ndim, layout, readonly=readonly, name=name, aligned=aligned)


@register_model(BorrowedArray)
class _BorrowedArrayModel(ArrayModel):
    def traverse(self, builder):
        return []  # nothing to reference-count


@lower_cast(BorrowedArray, types.Array)
def _borrowed_to_array(context, builder, fromty, toty, val):
    """Where a borrowed view meets an ordinary array (``x = view if c else np.empty(n)``)
    numba unifies both as an ordinary array: same layout in memory, and the view's
    null meminfo makes its counting a no-op."""
    return val


@unbox(BorrowedArray)
def _unbox_borrowed(typ, obj, c):
    """A Python array passed as a borrowed view: the caller holds the array for the
    whole call (a piece called from Python, ``kernels/link.py``), so no reference is
    taken and none is released (numba's non-counting array adaptor)."""
    view = c.context.make_array(typ)(c.context, c.builder)
    pointer = c.builder.bitcast(view._getpointer(), c.pyapi.voidptr)
    adapt_type = ir.FunctionType(ir.IntType(32), [c.pyapi.pyobj, c.pyapi.voidptr])
    adapt = c.pyapi._get_function(adapt_type, name="numba_adapt_ndarray")
    failed = cgutils.is_not_null(c.builder, c.builder.call(adapt, (obj, pointer)))
    with c.builder.if_then(failed, likely=False):
        c.pyapi.err_set_string("PyExc_TypeError", "can't pass this object as an array")
    return NativeValue(c.builder.load(view._getpointer()), is_error=failed)


@intrinsic
def borrow(typingctx, array):
    """A view of ``array`` (same data, shape, strides) with no reference counting."""
    if not isinstance(array, types.Array):
        return None
    borrowed = BorrowedArray(
        array.dtype, array.ndim, array.layout, readonly=not array.mutable, aligned=array.aligned
    )

    def codegen(context, builder, signature, args):
        source = context.make_array(signature.args[0])(context, builder, value=args[0])
        view = context.make_array(signature.return_type)(context, builder)
        for field in ("parent", "nitems", "itemsize", "data", "shape", "strides"):
            setattr(view, field, getattr(source, field))
        view.meminfo = cgutils.get_null_value(view.meminfo.type)
        return view._getvalue()

    return borrowed(array), codegen


@intrinsic
def borrow_row(typingctx, array, i):
    """Row ``i`` of a C-contiguous array of 2 or more dimensions as a borrowed view
    (``array[i]`` would be an ordinary, counted array). ``i`` must be in range: no
    check, no negative indexing. For the rows the round loop hands to every hook
    call (a seat's parameters and scratch)."""
    if not isinstance(array, types.Array) or array.ndim < 2 or array.layout != "C":
        return None
    if not isinstance(i, types.Integer):
        return None
    row = BorrowedArray(
        array.dtype, array.ndim - 1, "C", readonly=not array.mutable, aligned=array.aligned
    )

    def codegen(context, builder, signature, args):
        source = context.make_array(signature.args[0])(context, builder, value=args[0])
        index = context.cast(builder, args[1], signature.args[1], types.intp)
        shape = cgutils.unpack_tuple(builder, source.shape)
        strides = cgutils.unpack_tuple(builder, source.strides)
        view = context.make_array(signature.return_type)(context, builder)
        populate_array(
            view,
            data=cgutils.pointer_add(builder, source.data, builder.mul(index, strides[0])),
            shape=cgutils.pack_array(builder, shape[1:]),
            strides=cgutils.pack_array(builder, strides[1:]),
            itemsize=source.itemsize,
            meminfo=None,
            parent=source.parent,
        )
        return view._getvalue()

    return row(array, i), codegen


@intrinsic
def stack_empty(typingctx, rows, cols):
    """An uninitialised int64 array of ``rows`` x ``cols`` (2-D) on the stack frame.

    ``rows`` and ``cols`` must be compile-time constants (module-level ints); use
    ``cols = 0`` for a 1-D array of ``rows`` items. Like a borrowed view it has no
    reference count, and it lives until the function that holds it returns (numba
    inlining moves it to the caller's frame): never return it or store it in
    anything that outlives the call. For the showdown's small working arrays, where
    a heap allocation costs more than the work done with them.
    """
    if not isinstance(rows, types.IntegerLiteral) or not isinstance(cols, types.IntegerLiteral):
        return None
    n_rows, n_cols = rows.literal_value, cols.literal_value
    ndim = 1 if n_cols == 0 else 2
    array_type = types.Array(types.int64, ndim, "C")

    def codegen(context, builder, signature, args):
        count = n_rows * max(n_cols, 1)
        item = context.get_data_type(types.int64)
        data = cgutils.alloca_once(builder, item, size=context.get_constant(types.intp, count))
        view = context.make_array(array_type)(context, builder)
        intp = context.get_value_type(types.intp)
        if ndim == 1:
            shape = [intp(n_rows)]
            strides = [intp(8)]
        else:
            shape = [intp(n_rows), intp(n_cols)]
            strides = [intp(8 * n_cols), intp(8)]
        populate_array(
            view,
            data=data,
            shape=cgutils.pack_array(builder, shape),
            strides=cgutils.pack_array(builder, strides),
            itemsize=intp(8),
            meminfo=None,
        )
        return view._getvalue()

    return array_type(rows, cols), codegen
