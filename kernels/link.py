"""Pieces: kernels compiled and cached on their own, called through a slot.

Numba links the code of every jitted callee into its caller and optimises the whole
chain again there, so the engine re-optimised the showdown, which re-optimised the
arrangements, the lay-offs and the solver (the cold start's longest chain), and every
command compiled its own copy of the solver. A *piece* is compiled once, for one
declared signature, into its own library and its own cache entry; jitted code calls
it through a *slot*, as a dynamic linker calls a shared library through its PLT:

* The slot is a pointer-sized global named by a symbol (``rummy.slot.<module>.
  <name>.<signature digest>``) that this module registers with LLVM when the piece is
  defined, before any caller can be loaded. Compiled callers refer to the name only,
  so no address is ever baked into a cached kernel: each process binds its own.
* A slot starts empty. The first call through it asks the resolver (a Python
  callback) to compile the piece or load it from the cache and to fill the slot
  (lazy binding): a piece compiles when something first calls it, so the joker
  solver compiles for the first joker hand and never for natural rules.
* The symbol names the piece's signature, and the cache folder is keyed by every
  kernel and strategy source (``kernels/__init__.py``): a cached caller never meets a
  piece of another version or another signature.

A call through a slot is a real call (a load, a test, an indirect call that the
branch predictor learns), never inlined: pieces are the big functions whose calls
cost much more than that (the best discard, the showdown and its parts, ``mc``). The
least deadwood, a few table reads on its natural path, stays compiled into its hot
callers (``kernels/deadwood.py`` says what a slot cost there).

From Python, ``piece(*args)`` runs the same compiled code when the arguments fit the
declared signature (arrays are passed as borrowed views: the caller holds them); other
arguments go to numba's dispatcher, which compiles for their types as for any
``@njit`` function.

A kernel whose ``prange`` loop calls a piece must be ``nogil``: the resolver needs
the GIL, which a kernel holding it keeps while its thread waits for the workers.
"""

from __future__ import annotations

import ctypes
import hashlib
import threading
import traceback
from collections.abc import Callable
from typing import Any

from llvmlite import binding as llvm
from llvmlite import ir
from numba import njit, typeof, types
from numba.core import caching, cgutils
from numba.core.compiler_lock import global_compiler_lock
from numba.core.imputils import lower_builtin
from numba.core.typing.templates import AbstractTemplate, infer_global
from numba.core.typing.typeof import Purpose

from kernels.borrow import BorrowedArray

try:
    import fcntl
except ImportError:  # not a Unix: sim/warm.py starts no helper there (no /proc/stat)
    fcntl = None  # type: ignore[assignment]  # None stands for the module there

__all__ = ["Piece", "Socket", "load_cached", "piece", "pieces"]

_VOIDPTR = ir.IntType(8).as_pointer()
_RESOLVER = "rummy.link.resolve"
_PIECES: dict[int, Piece] = {}  # by slot address
_SOCKETS: dict[int, Socket] = {}  # by slot address


class Piece:
    """A kernel compiled for one signature, reached from jitted code through a slot.

    ``lazy``: the piece lies on a path most runs never take (the joker solver under
    natural rules, the greedy lay-offs): compiles ahead of use (``sim/warm.py``) leave
    it to its first call; ``rummy warm`` compiles it all the same.
    """

    def __init__(self, func: Callable[..., Any], signature: Any, lazy: bool = False) -> None:
        # numba's Dispatcher, typed Any: numba's stubs lack what it compiles (CompileResult's
        # signature, fndesc, entry_point, library), which _fill reads.
        self.dispatcher: Any = func if hasattr(func, "py_func") else njit(cache=True)(func)
        self.signature = signature
        self.lazy = lazy
        self.name = f"{self.dispatcher.py_func.__module__}.{self.dispatcher.py_func.__qualname__}"
        digest = hashlib.sha256(str(signature).encode()).hexdigest()[:12]
        self.symbol = f"rummy.slot.{self.name}.{digest}"
        if any(p.name == self.name for p in _PIECES.values()):
            raise ValueError(f"{self.name} is a piece already (one signature per function)")
        self._slot = ctypes.c_void_p(0)
        self._lock = threading.Lock()
        _PIECES[ctypes.addressof(self._slot)] = self
        llvm.add_symbol(self.symbol, ctypes.addressof(self._slot))
        _register(self)

    def __call__(self, *args: Any) -> Any:
        """From Python: the piece's own compiled code when the arguments fit its
        signature (arrays as borrowed views), so no second compile; else numba's."""
        actual = [typeof(a, Purpose.argument) for a in args]
        if len(actual) == len(self.signature.args) and all(
            _accepts(a, f) for a, f in zip(actual, self.signature.args, strict=True)
        ):
            self.bind()
            return self._entry(*args)
        return self.dispatcher(*args)

    def __repr__(self) -> str:
        return f"<piece {self.name}{self.signature.args}>"

    def __deepcopy__(self, memo: dict[int, Any]) -> Piece:
        return self  # numba copies the IR of inlined functions: a piece stays itself

    @property
    def py_func(self) -> Callable[..., Any]:
        return self.dispatcher.py_func

    @property
    def bound(self) -> bool:
        return bool(self._slot.value)

    def load(self) -> bool:
        """Fill the slot from the disk cache, compiling nothing; False if not cached."""
        with self._lock:
            if not self._slot.value and load_cached(self.dispatcher, self.signature.args):
                self._fill()
            return self.bound

    def bind(self) -> int:
        """Compile the piece (or load it from the cache) and fill its slot; its address."""
        with self._lock:
            if not self._slot.value:
                self.dispatcher.compile(self.signature.args)
                self._fill()
            return int(self._slot.value or 0)

    def _fill(self) -> None:
        compiled = self.dispatcher.overloads[self.signature.args]
        if compiled.signature.return_type != self.signature.return_type:
            # Callers were compiled for the declared type: a call would misread it.
            raise TypeError(
                f"{self.name} returns {compiled.signature.return_type}, "
                f"not the declared {self.signature.return_type}"
            )
        name = compiled.fndesc.llvm_func_name
        self._entry = compiled.entry_point  # its CPython wrapper, for calls from Python
        self._slot.value = compiled.library.get_pointer_to_function(name)


class Socket:
    """A slot that compiled code calls as it calls a piece's, filled at run time with
    a piece that Python chooses (``plug``), not with one fixed piece.

    The hooks of a plugin strategy that are pieces are compiled into pieces of their own
    (``sim/engine_build.py``) and plugged into sockets of the engine of every strategy,
    so that engine, compiled once for every line-up, plays such plugins too: they
    compile their hooks, never a loop. A call through a socket nothing is plugged into
    raises in the compiled caller. ``module`` and ``name`` say where the socket is a
    module-level name (the generated engine imports it from there).
    """

    def __init__(self, module: str, name: str, signature: Any) -> None:
        self.signature = signature
        self.__module__ = module
        self.__name__ = name
        self.name = f"{module}.{name}"
        digest = hashlib.sha256(str(signature).encode()).hexdigest()[:12]
        self.symbol = f"rummy.socket.{self.name}.{digest}"
        self.plugged: Piece | None = None
        self._slot = ctypes.c_void_p(0)
        _SOCKETS[ctypes.addressof(self._slot)] = self
        llvm.add_symbol(self.symbol, ctypes.addressof(self._slot))
        _register(self)

    def __repr__(self) -> str:
        return f"<socket {self.name}{self.signature.args}>"

    def __deepcopy__(self, memo: dict[int, Any]) -> Socket:
        return self  # as a piece: numba copies the IR of inlined functions

    def plug(self, p: Piece) -> None:
        """Compile ``p`` (or load it from the cache) and make every call through this
        socket call it."""
        if p.signature != self.signature:
            raise TypeError(f"{p.name} is {p.signature}; socket {self.name} takes {self.signature}")
        address = p.bind()
        self.plugged = p
        self._slot.value = address

    def bind(self) -> int:
        """What the resolver asks of an empty socket: nothing to bind."""
        raise RuntimeError(f"nothing is plugged into socket {self.name}")


def load_cached(dispatcher: Any, args: tuple[Any, ...]) -> bool:
    """Give ``dispatcher`` its compiled code for ``args`` from the disk cache, compiling
    nothing (what ``Dispatcher.compile`` does before it compiles); False if the cache
    does not hold it."""
    with global_compiler_lock:
        if args in dispatcher.overloads:
            return True
        compiled = dispatcher._cache.load_overload(args, dispatcher.targetctx)
        if compiled is None:
            return False
        dispatcher.targetctx.insert_user_function(
            compiled.entry_point, compiled.fndesc, [compiled.library]
        )
        dispatcher.add_overload(compiled)
        return True


def piece(signature: Any, lazy: bool = False) -> Callable[[Callable[..., Any]], Piece]:
    """Decorator: ``@piece(int64(int64, TAB))`` over a plain function or an ``@njit`` one."""
    return lambda func: Piece(func, signature, lazy)


def pieces() -> list[Piece]:
    """Every piece defined so far (in the modules imported)."""
    return list(_PIECES.values())


@ctypes.CFUNCTYPE(ctypes.c_void_p, ctypes.c_void_p)
def _resolve(slot: int) -> int:
    """Called by compiled code on its first call through an empty slot. A failure is
    printed here (a callback cannot raise) and the compiled caller raises."""
    try:
        return (_PIECES.get(slot) or _SOCKETS[slot]).bind()
    except BaseException:  # noqa: BLE001
        traceback.print_exc()
        return 0


llvm.add_symbol(_RESOLVER, ctypes.cast(_resolve, ctypes.c_void_p).value)


def _lock_cache_saves() -> None:
    """Make numba's cache saves safe across processes that compile in parallel.

    Numba saves an entry by reading a function's index, picking the first free data
    file name and writing both back: two processes saving different signatures of
    one function at once (pieces compiled side by side share helpers) could pick the
    same data file, and one would then load the other's code. An exclusive lock on
    the index around the whole save makes each save see the previous one.
    """
    save = caching.IndexDataCacheFile.save

    def locked_save(self: Any, key: Any, data: Any) -> None:
        with open(self._index_path + ".lock", "a") as lock:
            fcntl.flock(lock, fcntl.LOCK_EX)
            save(self, key, data)

    caching.IndexDataCacheFile.save = locked_save  # type: ignore[method-assign]  # patched on purpose


if fcntl is not None:
    _lock_cache_saves()


# --- typing and lowering -------------------------------------------------------------


# Numba's two named tuple types (their base, BaseNamedTuple, declares neither the item
# types nor the Python class that both hold).
_NAMED_TUPLES = (types.NamedTuple, types.NamedUniTuple)


def _accepts(actual: Any, formal: Any) -> bool:
    """Whether a call may pass a value of type ``actual`` for a parameter ``formal``:
    the same type, an array as a borrowed view of it, a tuple field by field."""
    if isinstance(formal, BorrowedArray):
        return (
            isinstance(actual, types.Array)
            and actual.dtype == formal.dtype
            and actual.ndim == formal.ndim
            and (formal.layout == "A" or actual.layout == formal.layout)
            and (actual.mutable or not formal.mutable)
        )
    if isinstance(formal, _NAMED_TUPLES):
        return (
            isinstance(actual, _NAMED_TUPLES)
            and actual.instance_class is formal.instance_class
            and all(_accepts(a, f) for a, f in zip(actual, formal, strict=True))
        )
    return types.unliteral(actual) == formal


def _convert(context: Any, builder: Any, value: Any, actual: Any, formal: Any) -> Any:
    if actual == formal:
        return value
    if isinstance(formal, BorrowedArray):
        # The same array fields, without a reference count (see kernels/borrow.py).
        source = context.make_array(actual)(context, builder, value=value)
        view = context.make_array(formal)(context, builder)
        for field in ("parent", "nitems", "itemsize", "data", "shape", "strides"):
            setattr(view, field, getattr(source, field))
        view.meminfo = cgutils.get_null_value(view.meminfo.type)
        return view._getvalue()
    if isinstance(formal, _NAMED_TUPLES):
        items = [
            _convert(context, builder, builder.extract_value(value, i), a, f)
            for i, (a, f) in enumerate(zip(actual, formal, strict=True))
        ]
        return context.make_tuple(builder, formal, items)
    return context.cast(builder, value, actual, formal)


def _register(p: Piece | Socket) -> None:
    formal = p.signature

    class Template(AbstractTemplate):
        key = p

        def generic(self, args: tuple[Any, ...], kws: dict[str, Any]) -> Any:
            if kws or len(args) != len(formal.args):
                return None
            if all(_accepts(a, f) for a, f in zip(args, formal.args, strict=True)):
                return formal.return_type(*args)
            return None

    infer_global(p, types.Function(Template))

    @lower_builtin(p, types.VarArg(types.Any))
    def call(context: Any, builder: Any, sig: Any, args: Any) -> Any:
        values = [
            _convert(context, builder, v, a, f)
            for v, a, f in zip(args, sig.args, formal.args, strict=True)
        ]
        module = builder.module
        try:
            slot = module.get_global(p.symbol)
        except KeyError:
            slot = ir.GlobalVariable(module, _VOIDPTR, name=p.symbol)
            slot.linkage = "external"
        address = builder.load(slot)
        with cgutils.if_unlikely(builder, cgutils.is_null(builder, address)):
            resolver = cgutils.get_or_insert_function(
                module, ir.FunctionType(_VOIDPTR, [_VOIDPTR]), _RESOLVER
            )
            bound = builder.call(resolver, [builder.bitcast(slot, _VOIDPTR)])
            with cgutils.if_unlikely(builder, cgutils.is_null(builder, bound)):
                context.call_conv.return_user_exc(
                    builder, RuntimeError, (f"could not compile or load {p.name}",)
                )
        fnty = context.call_conv.get_function_type(formal.return_type, formal.args)
        callee = builder.bitcast(builder.load(slot), fnty.as_pointer())
        status, result = context.call_conv.call_function(
            builder, callee, formal.return_type, formal.args, values
        )
        with cgutils.if_unlikely(builder, status.is_error):
            context.call_conv.return_status_propagate(builder, status)
        return result
