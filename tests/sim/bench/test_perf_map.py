"""``benchmarks/perf_map.py`` lists the functions numba compiled in this process, in
the format ``perf report`` reads (``perf`` itself is run by hand)."""

from __future__ import annotations

import importlib.util
import os
import subprocess
import sys
from pathlib import Path

from numba import njit

from tests.support import ROOT

_SPEC = importlib.util.spec_from_file_location("perf_map", ROOT / "benchmarks" / "perf_map.py")
assert _SPEC is not None and _SPEC.loader is not None
perf_map = importlib.util.module_from_spec(_SPEC)
_SPEC.loader.exec_module(perf_map)


@njit(cache=False)
def _distinctly_named_kernel(x):
    return x * 3 + 1


def test_the_map_names_a_function_compiled_here() -> None:
    assert _distinctly_named_kernel(2) == 7
    path = Path(f"/tmp/perf-{os.getpid()}.map")
    try:
        count = perf_map.write_perf_map()
        rows = [line.split(" ", 2) for line in path.read_text().splitlines()]
    finally:
        path.unlink(missing_ok=True)
    assert len(rows) == count > 0
    addresses = [int(address, 16) for address, _, _ in rows]
    assert addresses == sorted(set(addresses))  # one row per address, in order
    assert all(int(size, 16) > 0 for _, size, _ in rows)
    # Each row ends where the next one starts (at most): the ranges never overlap.
    ends = [a + int(size, 16) for a, (_, size, _) in zip(addresses, rows, strict=True)]
    assert all(end <= start for end, start in zip(ends, addresses[1:], strict=False))
    assert any("_distinctly_named_kernel" in name for _, _, name in rows)


def test_no_script_is_a_usage_line() -> None:
    done = subprocess.run(
        [sys.executable, str(ROOT / "benchmarks" / "perf_map.py")],
        capture_output=True,
        text=True,
        check=False,
    )
    assert done.returncode != 0
    assert done.stderr.strip() == "usage: python benchmarks/perf_map.py SCRIPT [ARGS...]"
