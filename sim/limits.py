"""The limits of every count: what the engine can represent and the machine can hold.

One home for the bounds that the command line declares on its options (so that the
parser refuses a value past them, exit status 2, before anything loads) and that the
library checks where a value comes another way (an experiment file, the Python API).
Plain Python: importing it loads neither numba nor polars.
"""

from __future__ import annotations

import os

__all__ = [
    "CHUNK_BYTES",
    "MAX_CHART_SAMPLES",
    "MAX_CHART_TURNS",
    "MAX_CHECK_CELLS",
    "MAX_COUNT",
    "MAX_DEADWOOD_COLUMNS",
    "MAX_SEED",
    "MAX_WORKERS",
    "chunk_size_limit",
    "chunk_size_problem",
    "memory_limit",
]

MAX_COUNT = 2**63 - 1  # deal and game numbers are the engine's int64: 0 .. 2**63 - 2
MAX_SEED = 2**128 - 1  # numpy's SeedSequence takes any size; 128 bits is all its entropy
# Local workers are threads, two chunks in flight each; on Ray the cluster's CPUs cap
# them. A fixed cap far above any machine's cores keeps a typo from starting millions.
MAX_WORKERS = 4096
# Peak memory per deal or game of a chunk, measured with /usr/bin/time on `rummy run
# --workers 1 --chunk-size N` at two sizes (gin, two greedy seats): about 220 bytes a
# deal, 490 a Gin game and 900 a Hollywood game (more hands). The largest, rounded up,
# bounds every mode.
CHUNK_BYTES = 1_000
# A strategy chart's shape (sim.study.chart): plays of each action per position, rows
# (own turns 1..N) and the knock chart's deadwood columns.
MAX_CHART_SAMPLES = 4096
MAX_CHART_TURNS = 60
MAX_DEADWOOD_COLUMNS = 100
MAX_CHECK_CELLS = 1000  # a solve's final check: cells played as single-cell deviations


CGROUP_LIMITS = (
    "/sys/fs/cgroup/memory.max",  # cgroup v2: bytes, or "max" for none
    "/sys/fs/cgroup/memory/memory.limit_in_bytes",  # v1: bytes; "none" is a huge number
)


def _cgroup_limit(path: str) -> int | None:
    """The memory limit a cgroup file states, or None (no file, "max", unreadable)."""
    try:
        with open(path, encoding="ascii") as file:
            text = file.read().strip()
    except (OSError, UnicodeDecodeError):
        return None
    return int(text) if text.isdigit() else None


def memory_limit() -> int:
    """The memory this process may use, in bytes: the least of the machine's RAM, its
    address-space and data rlimits (``ulimit -v``, ``ulimit -d``) and its cgroup's limit
    (a container's). Each that is not set (or cannot be read) does not count."""
    limits = [os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES")]
    try:
        import resource

        for which in (resource.RLIMIT_AS, resource.RLIMIT_DATA):
            soft = resource.getrlimit(which)[0]
            if soft != resource.RLIM_INFINITY and soft > 0:
                limits.append(soft)
    except (ImportError, OSError, ValueError):  # pragma: no cover - not POSIX
        pass
    limits += [limit for path in CGROUP_LIMITS if (limit := _cgroup_limit(path))]
    return min(limits)


def chunk_size_limit() -> int:
    """The largest chunk size whose estimate (``CHUNK_BYTES`` per deal or game) fits in
    half of the memory this process may use (:func:`memory_limit`)."""
    return memory_limit() // 2 // CHUNK_BYTES


def chunk_size_problem(value: int) -> str | None:
    """Why a chunk of ``value`` deals or games cannot be played here (it would not fit in
    memory), in words that name the value and the limit; None when it can."""
    limit = chunk_size_limit()
    if value <= limit:
        return None
    return (
        f"{value:,} needs about {value * CHUNK_BYTES / 2**30:,.1f} GiB ({CHUNK_BYTES:,} bytes "
        f"a deal or game), more than half of the memory this process may use "
        f"({limit * CHUNK_BYTES / 2**30:,.1f} GiB: RAM, ulimit or cgroup); give at most "
        f"{limit:,}"
    )
