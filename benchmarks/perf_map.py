"""Run a benchmark so that Linux ``perf`` can name the numba kernels it samples.

    perf record -o /tmp/mc.data python benchmarks/perf_map.py benchmarks/bench_mc.py \
        --positions 20000 --hands-over 1
    perf report -i /tmp/mc.data --no-children --sort symbol

(``perf`` is Debian's ``linux-perf`` package.)

``perf`` sees jitted code as bare addresses. This runs the given script (with its
arguments) and, as the process exits, writes ``/tmp/perf-<pid>.map``: the address,
size and name of every function numba compiled in it, the file ``perf report`` reads
to put names on those addresses. Functions that LLVM inlined count in their caller, so
the report is self time per function as compiled, not per source function.

Only functions compiled in this process are listed, so the script runs on an empty
numba cache of its own (a fresh temporary folder), every piece compiled here rather
than by helper processes: compile time then shows in the report too, so give the
benchmark a few seconds of work. Uses numba internals (the
code libraries' LLVM modules and execution engine): a tool for developers, no part
of the product.
"""

from __future__ import annotations

import atexit
import gc
import os
import runpy
import struct
import sys
import tempfile


def elf_functions(image: bytes) -> list[tuple[str, int, int, int]]:
    """``(name, section index, offset, size)`` of every function symbol of an ELF64
    object (little-endian, as numba's object code is on x86-64 and arm64)."""
    (shoff,) = struct.unpack_from("<Q", image, 0x28)
    shentsize, shnum = struct.unpack_from("<HH", image, 0x3A)
    sections = [struct.unpack_from("<IIQQQQIIQQ", image, shoff + i * shentsize)
                for i in range(shnum)]  # fmt: skip
    out = []
    for _, kind, _, _, offset, size, link, _, _, entsize in sections:
        if kind != 2:  # SHT_SYMTAB
            continue
        strings = sections[link][4]
        for at in range(offset, offset + size, entsize):
            name_at, info, _, shndx, value, length = struct.unpack_from("<IBBHQQ", image, at)
            if info & 0xF != 2 or shndx == 0:  # STT_FUNC, defined here
                continue
            end = image.index(b"\0", strings + name_at)
            out.append((image[strings + name_at : end].decode(), shndx, value, length))
    return out


def write_perf_map() -> int:
    """Write ``/tmp/perf-<pid>.map`` for every compiled numba function; returns how many.

    The execution engine gives the address of a function other code may call; the
    functions LLVM made internal (most of a big kernel's helpers) have none. Numba keeps
    each library's object code (cache=True): its symbol table places every function at
    an offset in its section, and one named function fixes where the section was loaded.
    """
    from numba.core.codegen import CPUCodeLibrary

    found: dict[int, tuple[str, int]] = {}
    for library in gc.get_objects():
        if not isinstance(library, CPUCodeLibrary) or not library._finalized:
            continue
        engine = library._codegen._engine
        image = getattr(library, "_compiled_object", None)
        symbols = elf_functions(image) if isinstance(image, bytes) else []
        bases: dict[int, int] = {}
        for name, section, offset, _ in symbols:
            address = engine.get_function_address(name)
            if address:
                bases.setdefault(section, address - offset)
        for name, section, offset, size in symbols:
            if section in bases:
                found.setdefault(bases[section] + offset, (name, size))
        for function in library._final_module.functions:
            if function.is_declaration:
                continue
            address = engine.get_function_address(function.name)
            if address:
                found.setdefault(address, (function.name, 0))
    addresses = sorted(found)
    with open(f"/tmp/perf-{os.getpid()}.map", "w") as out:
        for i, address in enumerate(addresses):
            name, size = found[address]
            if not size:  # not in a symbol table: it ends where the next one starts
                gap = addresses[i + 1] - address if i + 1 < len(addresses) else 4096
                size = gap if gap < 1 << 20 else 4096
            out.write(f"{address:x} {size:x} {name}\n")
    return len(addresses)


def main() -> None:
    if len(sys.argv) < 2:
        sys.exit("usage: python benchmarks/perf_map.py SCRIPT [ARGS...]")
    script = sys.argv[1]
    os.environ["NUMBA_CACHE_DIR"] = tempfile.mkdtemp(prefix="perf-map-numba-")
    # Every piece compiled here, on its first call (kernels/link.py), not by helper
    # processes (sim/warm.py): a library loaded from the cache keeps no object code and
    # no functions to name, so the pieces (the best discard, the showdown, the lay-offs)
    # would show as bare addresses.
    os.environ["RUMMY_PARALLEL_COMPILE"] = "0"
    atexit.register(lambda: print(f"perf map: {write_perf_map()} functions", file=sys.stderr))
    sys.argv = sys.argv[1:]
    sys.path.insert(0, os.path.dirname(os.path.abspath(script)))
    runpy.run_path(script, run_name="__main__")


if __name__ == "__main__":
    main()
