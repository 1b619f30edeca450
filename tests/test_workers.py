"""Worker processes end with their driver, however the driver ends.

A driver killed with SIGKILL or SIGTERM cannot shut its pool down: its spawn workers
and multiprocessing's resource tracker must end by themselves. First the bare pool
(``sim.workers.process_pool``, no engine: quick), then ``rummy sweep`` and an
experiment file, the commands that use it, killed mid-run.
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import pytest

from tests.procs import descendants, needs_proc, wait_until_gone

pytestmark = needs_proc

POOL_SCRIPT = textwrap.dedent(
    """
    import time
    from sim.workers import process_pool

    if __name__ == "__main__":
        pool = process_pool(2)
        futures = [pool.submit(time.sleep, 600) for _ in range(2)]
        print("ready", flush=True)
        time.sleep(600)
    """
)


def start(args: list[str], cwd: Path) -> subprocess.Popen[str]:
    return subprocess.Popen(
        args, cwd=cwd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True
    )


def wait_for_children(proc: subprocess.Popen[str], count: int, seconds: float) -> list[int]:
    """The driver's descendants once it has at least ``count`` (a cold cache compiles)."""
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline and proc.poll() is None:
        found = descendants(proc.pid)
        if len(found) >= count:
            time.sleep(0.5)  # let the pool finish starting
            return descendants(proc.pid)
        time.sleep(0.1)
    output = proc.stdout.read() if proc.poll() is not None else ""
    raise AssertionError(f"the driver never started {count} workers:\n{output}")


def kill_and_check(proc: subprocess.Popen[str], sig: int, children: list[int]) -> None:
    os.kill(proc.pid, sig)
    proc.wait(timeout=30)
    proc.stdout.close()
    assert proc.returncode == -sig
    left = wait_until_gone(children)
    assert left == [], f"outlived their driver: {left}"


@pytest.mark.parametrize("sig", [signal.SIGKILL, signal.SIGTERM])
def test_pool_workers_and_tracker_die_with_the_driver(tmp_path, sig) -> None:
    script = tmp_path / "pool.py"
    script.write_text(POOL_SCRIPT)
    proc = start([sys.executable, str(script)], tmp_path)
    assert proc.stdout.readline().strip() == "ready"
    children = wait_for_children(proc, 3, 60)  # two workers and the resource tracker
    kill_and_check(proc, sig, children)


EXPERIMENT = """
name = "killed"
seed = 1
deals = 400_000
seats = "greedy:knock_at={k}/simple"
[rules]
preset = "gin"
[grid]
k = [1, 2, 3, 4]
"""


@pytest.mark.parametrize(
    "how, sig",
    [("sweep", signal.SIGKILL), ("sweep", signal.SIGTERM), ("experiment", signal.SIGKILL)],
)
def test_killed_study_leaves_no_process(tmp_path, how, sig) -> None:
    rummy = [sys.executable, "-c", "from sim.cli import app; app()"]
    if how == "sweep":
        args = ["sweep", "--seats", "greedy:knock_at={k}/simple", "--grid", "k=1,2,3,4"]
        args += ["--deals", "400000", "--seed", "1"]
    else:
        (tmp_path / "killed.toml").write_text(EXPERIMENT)
        args = ["run", "killed.toml"]
    proc = start([*rummy, *args, "-w", "2", "--out", str(tmp_path / "out")], tmp_path)
    children = wait_for_children(proc, 3, 300)
    kill_and_check(proc, sig, children)
