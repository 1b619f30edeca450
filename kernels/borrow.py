"""``borrow(array)``: the same array without a reference count, for hot loops.

Every time numba stores an array in a tuple or passes it through a call it may not
inline, it increments and decrements the array's reference count with atomic
instructions. In the round loop that happens several times per hook call, and on
arrays every thread shares (the solver tables, the rules) the atomics also bounce a
cache line between cores. A borrowed view has no reference-count record (a null
``meminfo``, which numba's runtime skips), so all of that disappears.

``stack_empty(rows, cols)`` is the allocation-free counterpart for small working
arrays of a known size: room on the stack frame instead of the heap.

Use ``borrow`` only on arrays kept alive by an owner that outlives every use of the view
(the caller's argument, or a working array held in a local variable): the view never
frees anything and never keeps anything alive.
"""

from numba import types
from numba.core import cgutils
from numba.extending import intrinsic
from numba.np.arrayobj import populate_array


@intrinsic
def borrow(typingctx, array):
    """A view of ``array`` (same data, shape, strides) with no reference counting."""
    if not isinstance(array, types.Array):
        return None

    def codegen(context, builder, signature, args):
        array_type = signature.args[0]
        source = context.make_array(array_type)(context, builder, value=args[0])
        view = context.make_array(array_type)(context, builder)
        for field in ("parent", "nitems", "itemsize", "data", "shape", "strides"):
            setattr(view, field, getattr(source, field))
        view.meminfo = cgutils.get_null_value(view.meminfo.type)
        return view._getvalue()

    return array(array), codegen


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
