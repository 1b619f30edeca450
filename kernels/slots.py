"""Named parameter slots: where each field of a ``Params`` NamedTuple sits in the
parameter row that hooks read.

The engine hands a hook its seat's parameters as a float64 row of ``kernels.obs.N_PARAMS``
numbers, the ``Params`` fields in declaration order (``strategies.params_vector``). A
module that declares ``Params`` writes ``SLOT = param_slots(Params)`` once, and its hooks
read ``params[SLOT.knock_at]``: the field order of ``Params`` is the one home of every
slot number, and no hook counts positions by hand.

numba takes a global tuple of ints such as ``SLOT`` as a compile-time constant, so
``params[SLOT.knock_at]`` compiles to the same machine code as ``params[0]``.
"""

from __future__ import annotations

from typing import Any, TypeVar

T = TypeVar("T")

__all__ = ["param_slots"]


def param_slots(params: type[T]) -> T:
    """An instance of the NamedTuple class ``params`` whose every field holds its own
    slot, its position in the row: ``param_slots(Params).min_gain == 1`` when
    ``min_gain`` is the second field."""
    named: Any = params  # typed as a plain class: NamedTuple classes have no common type
    return named._make(range(len(named._fields)))
