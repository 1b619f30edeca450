"""A killed study leaves no process behind, and the same command finishes it exactly.

Local workers are threads, so a driver killed with SIGKILL or SIGTERM takes every
worker with it; these tests check that nothing outlives it anyway (a future backend
with helper processes must keep that promise), then run the same command again: it
skips the finished chunks and writes tables byte-identical to an uninterrupted run.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from tests.support.procs import descendants, needs_proc, wait_until_gone

pytestmark = needs_proc

RUMMY = [sys.executable, "-c", "from sim.cli import app; app()"]
EXPERIMENT = """
name = "killed"
seed = 1
deals = 10_000
chunk_size = 250
seats = "greedy:knock_at={k}/simple"
[rules]
preset = "gin"
[grid]
k = [1, 2, 3, 4]
"""
SWEEP = ["sweep", "--seats", "greedy:knock_at={k}/simple", "--grid", "k=1,2,3,4"]
SWEEP += ["--deals", "10000", "--chunk-size", "250", "--seed", "1", "--name", "sweep"]


def command(how: str, folder: Path, out: Path) -> list[str]:
    if how == "sweep":
        return [*RUMMY, *SWEEP, "-w", "2", "--out", str(out)]
    (folder / "killed.toml").write_text(EXPERIMENT)
    return [*RUMMY, "run", str(folder / "killed.toml"), "-w", "2", "--out", str(out)]


def finished_chunks(out: Path) -> int:
    return len(list(out.glob("*/*/chunks/chunk-*.json")))


def study_tables(out: Path) -> dict:
    (record,) = out.glob("*/experiment.json")
    data = json.loads(record.read_text())
    assert data["status"] == "done"
    return data["tables"]


@pytest.mark.parametrize(
    "how, sig",
    [
        ("sweep", signal.SIGKILL),
        pytest.param("sweep", signal.SIGTERM, marks=pytest.mark.slow),
        pytest.param("experiment", signal.SIGKILL, marks=pytest.mark.slow),  # the same queue
    ],
)
def test_killed_study_leaves_no_process_and_finishes_exactly(tmp_path, how, sig) -> None:
    out = tmp_path / "out"
    args = command(how, tmp_path, out)
    proc = subprocess.Popen(
        args, cwd=tmp_path, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True
    )
    deadline = time.monotonic() + 300  # a cold numba cache compiles first
    try:
        while finished_chunks(out) < 3 and proc.poll() is None and time.monotonic() < deadline:
            time.sleep(0.01)
        children = descendants(proc.pid)
        os.kill(proc.pid, sig)
    finally:
        proc.wait(timeout=30)
        stderr = proc.stderr.read()
        proc.stderr.close()
    assert proc.returncode == (143 if sig == signal.SIGTERM else -sig), stderr
    assert wait_until_gone(children) == [], "a process outlived its driver"
    done = finished_chunks(out)
    assert 3 <= done < 160, "the study should have been killed mid-way"
    assert (
        not list(out.glob("*/experiment.json"))
        or json.loads(next(out.glob("*/experiment.json")).read_text())["status"] != "done"
    )

    again = subprocess.run(args, cwd=tmp_path, capture_output=True, text=True)
    assert again.returncode == 0, again.stderr
    clean = subprocess.run(
        command(how, tmp_path, tmp_path / "clean"), cwd=tmp_path, capture_output=True, text=True
    )
    assert clean.returncode == 0, clean.stderr
    assert study_tables(out) == study_tables(tmp_path / "clean")
