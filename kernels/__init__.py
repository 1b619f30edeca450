"""Numba kernels only: tables, deadwood solver, melds and lay-offs, showdown, engine.

Numba's on-disk cache (``cache=True``) checks only the source file of the function it
loads, not the modules that function calls into: after an edit to ``deadwood.py`` a
cached ``engine.py`` kernel would still run the old solver. So the cache directory is
keyed by a hash of every kernel and strategy source file (and the numba and numpy
versions): any change to any of them starts a fresh cache, and a stale one can never
be loaded. ``NUMBA_CACHE_DIR``, when set, is the parent of these keyed folders.
"""

from __future__ import annotations

import functools
import hashlib
import os
import sys
from pathlib import Path

_PACKAGE_ROOT = Path(__file__).resolve().parent.parent
HASHED_PACKAGES = ("kernels", "strategies")


@functools.cache
def source_digest() -> str:
    """Short hash of every kernel and strategy source file and the library versions.

    Computed once per process, when this package is imported (it keys the numba cache
    folder below): the sources of the code the process runs, which every run it plays
    is labelled with, however the files change after."""
    from importlib.metadata import version

    h = hashlib.sha256()
    for package in HASHED_PACKAGES:
        for path in sorted((_PACKAGE_ROOT / package).rglob("*.py")):
            h.update(str(path.relative_to(_PACKAGE_ROOT)).encode())
            h.update(path.read_bytes())
    for lib in ("numba", "numpy", "llvmlite"):
        h.update(f"{lib}={version(lib)}".encode())
    return h.hexdigest()[:16]


def _keyed_cache_dir() -> Path:
    base = os.environ.get("RUMMY_NUMBA_CACHE_BASE") or os.environ.get("NUMBA_CACHE_DIR")
    if not base:
        base = str(Path(os.environ.get("XDG_CACHE_HOME", Path.home() / ".cache")) / "rummy-sim")
    return Path(base) / f"numba-{source_digest()}"


def _configure_numba_cache() -> None:
    cache_dir = _keyed_cache_dir()
    # Remember the parent so that a later import (e.g. in a worker) keys it the same way
    # (an empty value counts as unset, as above: kept, a worker would key the keyed folder).
    if not os.environ.get("RUMMY_NUMBA_CACHE_BASE"):
        os.environ["RUMMY_NUMBA_CACHE_BASE"] = str(cache_dir.parent)
    os.environ["NUMBA_CACHE_DIR"] = str(cache_dir)
    if "numba" in sys.modules:  # already imported: make it read the new folder
        from numba.core import config

        config.reload_config()


_configure_numba_cache()
