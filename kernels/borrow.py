"""``borrow(array)``: the same array without a reference count, for hot loops.

Every time numba stores an array in a tuple or passes it through a call it may not
inline, it increments and decrements the array's reference count with atomic
instructions. In the round loop that happens several times per hook call, and on
arrays every thread shares (the solver tables, the rules) the atomics also bounce a
cache line between cores. A borrowed view has no reference-count record (a null
``meminfo``, which numba's runtime skips), so all of that disappears.

Use it only on arrays kept alive by an owner that outlives every use of the view
(the caller's argument, or a working array held in a local variable): the view never
frees anything and never keeps anything alive.
"""

from numba import types
from numba.core import cgutils
from numba.extending import intrinsic


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
