"""Repair advice that works when followed: damage a record, read it, do what the error says.

Every refusal of a damaged or unfinished study ends with how to repair it. Each case here
plays a small study with the ``rummy`` command (once per study: each case damages a
copy), damages one of its files, runs the command
that reads it (``rummy report``), takes the advice from the error's one line, follows it
to the letter (a command is run as written; "again with --force" is the first command
with ``--force``; "delete DIR and ..." deletes DIR first), and asserts that the repair
exits 0 and that the reading command then succeeds. Issue 39 found two that looped: a
damaged ``experiment.json`` said "run the command again", which then refused without
``--force``; a strategy chart's run said "rummy run --resume", which refuses charts.
"""

from __future__ import annotations

import re
import shlex
import shutil
import sys
from collections.abc import Callable
from pathlib import Path

import pytest
from click.testing import Result
from typer.testing import CliRunner

from sim.cli import app

SWEEP = ["sweep", "--rules", "gin", "--seats", "greedy:knock_at={k}/simple", "--grid", "k=5..6",
         "--deals", "200", "--seed", "3", "--out", "res", "--name", "sw", "-w", "1"]  # fmt: skip
RUN = ["run", "--seats", "greedy/simple", "--deals", "200", "--seed", "1", "--out", "res",
       "--name", "one", "-w", "1"]  # fmt: skip
CHART = ["strategy-chart", "knock", "--seats", "greedy/simple", "--deals", "300", "--samples",
         "2", "--per-cell", "5", "--turns", "3", "--seed", "1", "--out", "res", "--check", "0",
         "-w", "1"]  # fmt: skip


def _rummy(args: list[str], cwd: Path) -> Result:
    """The ``rummy`` command (in this process: a fresh one each time costs seconds), run
    in ``cwd`` as a shell runs it: ``sys.argv`` holds its words, which a study stores as
    the command that made it (a strategy chart's repair advice names that command)."""
    with pytest.MonkeyPatch.context() as patch:
        patch.chdir(cwd)
        patch.setattr(sys, "argv", ["rummy", "-q", *args])
        return CliRunner().invoke(app, ["-q", *args])


def _edit(path: Path) -> None:
    """A hand edit the digest catches: one value changed, still JSON."""
    text = path.read_text()
    path.write_text(text.replace('"seed": ', '"seed": 1', 1))


def _flip(path: Path) -> None:
    """One byte of the file flipped (a damaged disk, a bad copy)."""
    data = bytearray(path.read_bytes())
    data[len(data) // 2] ^= 0xFF
    path.write_bytes(bytes(data))


def _one(pattern: str, cwd: Path) -> Path:
    [found] = cwd.glob(pattern)
    return found


def _follow(advice: str, first: list[str], cwd: Path) -> Result:
    """Do what the advice says, to the letter."""
    if advice.startswith("run the command that made it again with --force"):
        return _rummy([*first, "--force"], cwd)
    if deleted := re.match(r"delete (\S+) and play the run again with the command that made it",
                           advice):  # fmt: skip
        shutil.rmtree(cwd / deleted.group(1))
        return _rummy(first, cwd)
    command = shlex.split(advice.split("with: ", 1)[1])
    assert Path(command[0]).name == "rummy", advice  # a command to type, as written
    words = [w for w in command[1:] if w != "-q"]
    return _rummy(words, cwd)


CASES: dict[str, tuple[list[str], str, Callable[[Path], None]]] = {
    # name: (the command that made it, the folder read, the damage)
    "experiment record edited": (SWEEP, "res/sw", lambda d: _edit(d / "experiment.json")),
    "experiment table flipped": (SWEEP, "res/sw", lambda d: _flip(d / "summary.parquet")),
    "run part flipped": (RUN, "res/one/*", lambda d: _flip(d / "hands/part-000000.parquet")),
    "run chunk record flipped": (RUN, "res/one/*", lambda d: _flip(d / "chunks/chunk-000000.json")),
    "run manifest edited": (RUN, "res/one/*", lambda d: _edit(d / "manifest.json")),
    "chart part flipped": (CHART, "res/chart/*", lambda d: _flip(d / "cells/part-000000.parquet")),
    "chart chunk record gone": (CHART, "res/chart/*",
                                lambda d: (d / "chunks/chunk-000000.json").unlink()),
    "chart manifest edited": (CHART, "res/chart/*", lambda d: _edit(d / "manifest.json")),
}  # fmt: skip


@pytest.fixture(scope="module")
def played(tmp_path_factory: pytest.TempPathFactory) -> Callable[[list[str], Path], None]:
    """Put the results of ``first`` into a folder: each study is played once, then
    copied for every case that damages it."""
    made: dict[tuple[str, ...], Path] = {}

    def into(first: list[str], cwd: Path) -> None:
        key = tuple(first)
        if key not in made:
            made[key] = tmp_path_factory.mktemp("made")
            done = _rummy(first, made[key])
            assert done.exit_code == 0, done.stderr
        shutil.copytree(made[key] / "res", cwd / "res")

    return into


@pytest.mark.parametrize("case", sorted(CASES))
def test_the_advice_repairs_what_it_names(case: str, tmp_path: Path, played) -> None:
    first, folder, damage = CASES[case]
    played(first, tmp_path)
    directory = _one(folder, tmp_path)
    damage(directory)
    read = ["report", str(directory.relative_to(tmp_path))]
    refused = _rummy(read, tmp_path)
    lines = refused.stderr.strip().splitlines()
    assert refused.exit_code == 1 and len(lines) == 1, refused.stderr
    advice = lines[0].rsplit("; ", 1)[1]
    followed = _follow(advice, first, tmp_path)
    assert followed.exit_code == 0, f"{advice!r} -> {followed.stderr}"
    again = _rummy(read, tmp_path)
    assert again.exit_code == 0, f"after {advice!r}: {again.stderr}"
