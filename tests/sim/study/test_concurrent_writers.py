"""Two processes writing the same folder at once: one plays, or both agree; never a mix.

Two real ``rummy`` processes start the same command into the same ``--out`` and
``--name`` together. Whatever the timing, each ends with exit 0 (it played the run, or
found it played) or exit 1 and one line saying the folder is in use; at least one
plays it; and afterwards the folder verifies and holds exactly the hands a single
process plays from the same seed.
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest
from typer.testing import CliRunner

from sim.cli import app
from sim.study import load_hands

RUMMY = [sys.executable, "-c", "from sim.cli import app; app()"]
RUN = ["--rules", "gin", "--seats", "greedy/simple", "--seed", "4", "--chunk-size", "500"]


def _run_folders(out: Path) -> list[Path]:
    return sorted(p.parent for p in out.rglob("manifest.json"))


def _alone(tmp_path: Path, args: list[str]) -> list[Path]:
    """The run folders one process writes, alone."""
    out = tmp_path / "alone"
    done = CliRunner().invoke(app, [*args, "--out", str(out), "--name", "same"])
    assert done.exit_code == 0, done.output
    return _run_folders(out)


def _together(tmp_path: Path, args: list[str]) -> list[subprocess.CompletedProcess[str]]:
    out = tmp_path / "together"
    procs = [
        subprocess.Popen([*RUMMY, *args, "--out", str(out), "--name", "same"], cwd=tmp_path,
                         stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
        for _ in range(2)
    ]  # fmt: skip
    ended = []
    for proc in procs:
        _, stderr = proc.communicate(timeout=300)
        ended.append(subprocess.CompletedProcess(proc.args, proc.returncode, "", stderr))
    return ended


@pytest.mark.parametrize(
    "command",
    [
        ["run", *RUN, "--deals", "6000", "-w", "2"],
        ["sweep", "--seats", "greedy:knock_at={k}/simple", "--grid", "k=2,8", "--rules", "gin",
         "--seed", "4", "--deals", "3000", "-w", "1", "--name", "sweep"],
    ],
    ids=["run", "sweep"],
)  # fmt: skip
def test_two_processes_writing_one_folder(tmp_path: Path, command: list[str]) -> None:
    ended = _together(tmp_path, command)
    for result in ended:
        lines = [line for line in result.stderr.splitlines() if line.startswith("error:")]
        assert "Traceback" not in result.stderr, result.stderr
        if result.returncode:
            assert result.returncode == 1 and len(lines) == 1, result.stderr
            assert "in use by another rummy process" in lines[0], result.stderr
    assert any(r.returncode == 0 for r in ended), [r.stderr for r in ended]
    alone = _alone(tmp_path, command)
    together = _run_folders(tmp_path / "together")
    assert [p.name for p in together] == [p.name for p in alone]
    for mine, theirs in zip(together, alone, strict=True):
        assert load_hands(mine).collect().equals(load_hands(theirs).collect()), mine
