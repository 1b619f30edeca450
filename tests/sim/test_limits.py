"""The memory guard of ``--chunk-size`` by the process's real limits, and out of memory in
one line.

``sim.limits.memory_limit`` is the least of RAM, the address-space and data rlimits and
the cgroup's limit; a chunk that would not fit in half of it is refused before anything
is played. The command-line cases run in a subprocess under ``setrlimit`` (3 GiB, far
below this machine's RAM): before issue 39 the guard read RAM alone, so the refused chunk
was played and the process died with an allocator's dump, and a ``MemoryError`` printed
a traceback.
"""

from __future__ import annotations

import os
import resource
import subprocess
import sys
from pathlib import Path

import pytest

from sim import limits

CAP = 3 * 2**30  # well below any machine that runs the suite


def _capped() -> None:
    resource.setrlimit(resource.RLIMIT_AS, (CAP, CAP))


def _rummy_capped(
    args: list[str], cwd: Path, code: str | None = None
) -> subprocess.CompletedProcess[str]:
    command = (
        [sys.executable, "-c", code, *args] if code else [sys.executable, "-m", "rummy", *args]
    )
    return subprocess.run(
        command, cwd=cwd, capture_output=True, text=True, timeout=300, preexec_fn=_capped,
        env={**os.environ, "PYTHONPATH": str(Path(__file__).parents[2])},
    )  # fmt: skip


def test_the_limit_is_the_least_of_ram_rlimits_and_cgroups(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    ram = os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES")
    v2, v1 = tmp_path / "memory.max", tmp_path / "memory.limit_in_bytes"
    monkeypatch.setattr(limits, "CGROUP_LIMITS", (str(v2), str(v1)))
    monkeypatch.setattr(resource, "getrlimit", lambda which: (resource.RLIM_INFINITY,) * 2)
    assert limits.memory_limit() == ram  # no files, no rlimits
    v2.write_text("max\n")  # v2's "no limit"
    assert limits.memory_limit() == ram
    v1.write_text(f"{2**30}\n")
    assert limits.memory_limit() == min(ram, 2**30)
    v2.write_text(f"{2**29}\n")
    assert limits.memory_limit() == min(ram, 2**29)
    monkeypatch.setattr(resource, "getrlimit", lambda which: (2**28, resource.RLIM_INFINITY))
    assert limits.memory_limit() == 2**28
    assert limits.chunk_size_limit() == 2**28 // 2 // limits.CHUNK_BYTES


def test_a_chunk_past_the_ulimit_is_refused_in_one_line(tmp_path: Path) -> None:
    """Under a 3 GiB address-space limit a chunk of 10 million deals (about 9.3 GiB) is
    refused by the parser (status 2, like any option past its range): nothing is played."""
    done = _rummy_capped(
        ["run", "--seats", "greedy/simple", "--deals", "10000000", "--chunk-size",
         "10000000", "--seed", "1", "--out", "res", "-w", "1"], tmp_path,
    )  # fmt: skip
    lines = done.stderr.strip().splitlines()
    assert done.returncode == 2 and len(lines) == 1, done.stderr[-2000:]
    assert "more than half of the memory this process may use" in lines[0]
    most = int(lines[0].split("give at most ")[1].split()[0].replace(",", ""))
    assert most <= CAP // 2 // 1_000  # the ulimit's, not the RAM's
    assert not (tmp_path / "res").exists()


def test_out_of_memory_is_one_line(tmp_path: Path) -> None:
    """A ``MemoryError`` (numpy's, past what the guard foresaw): status 1, one line."""
    code = (
        "import sys, numpy as np, sim.cli.table_cmds as t\n"
        "t.arrangement = lambda *a, **k: np.ones(2**38)\n"  # 2 TiB
        "from sim.cli import app\n"
        "sys.argv[0] = 'rummy'\n"
        "app()\n"
    )
    done = _rummy_capped(["deadwood", "AS 2S 3S 7C 7D 7H 9C TC JD QH"], tmp_path, code)
    lines = done.stderr.strip().splitlines()
    assert done.returncode == 1 and len(lines) == 1, done.stderr[-2000:]
    assert lines[0].startswith("error: out of memory")
