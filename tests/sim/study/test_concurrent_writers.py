"""Two processes writing the same folder at once: one plays, or both agree; never a mix.

Two real ``rummy`` processes start the same command into the same ``--out`` and
``--name`` together. Whatever the timing, each ends with exit 0 (it played the run, or
found it played) or exit 1 and one line saying the folder is in use; at least one
plays it; and afterwards the folder verifies and holds exactly the hands a single
process plays from the same seed.

The race of issue 39 (``cannot write .../experiment.json: No such file or directory``
once in 8 runs) is reproduced deterministically, its window held open: a writer that
has made its temporary file and not yet renamed it while another writer (a process, or
a thread of the same one) writes the same file whole; before, the second deleted the
first's temporary file. A study's folder is locked from its claim to its last write: a
second process is refused in one line before it writes anything. ``-m slow`` loops the
two-process case 50 times (``RUMMY_RACE_LOOPS``) with every core kept busy.
"""

from __future__ import annotations

import os
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from sim import store
from sim.cli import app
from sim.study import load_hands

RUMMY = [sys.executable, "-c", "from sim.cli import app; app()"]
RUN = ["--rules", "gin", "--seats", "greedy/simple", "--seed", "4", "--chunk-size", "500"]


def _run_folders(out: Path) -> list[Path]:
    return sorted(p.parent for p in out.rglob("manifest.json"))


def _alone(tmp_path: Path, args: list[str]) -> list[Path]:
    """The run folders one process writes, alone."""
    out = tmp_path / "alone"
    done = CliRunner().invoke(app, [*args, "--out", str(out)])
    assert done.exit_code == 0, done.output
    return _run_folders(out)


def _together(
    tmp_path: Path, args: list[str], out: Path | None = None
) -> list[subprocess.CompletedProcess[str]]:
    out = out or tmp_path / "together"
    procs = [
        subprocess.Popen([*RUMMY, *args, "--out", str(out)], cwd=tmp_path,
                         stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
        for _ in range(2)
    ]  # fmt: skip
    ended = []
    for proc in procs:
        _, stderr = proc.communicate(timeout=300)
        ended.append(subprocess.CompletedProcess(proc.args, proc.returncode, "", stderr))
    return ended


COMMANDS = {
    "run": ["run", *RUN, "--deals", "6000", "-w", "2", "--name", "same"],
    "sweep": ["sweep", "--seats", "greedy:knock_at={k}/simple", "--grid", "k=2,8", "--rules",
              "gin", "--seed", "4", "--deals", "3000", "-w", "1", "--name", "sweep"],
    "compare": ["compare", "--rules", "gin", "--seats", "greedy/simple", "--vs-seats",
                "simple/greedy", "--seed", "4", "--deals", "2000", "-w", "1"],
}  # fmt: skip


def _check_ended(ended: list[subprocess.CompletedProcess[str]]) -> None:
    """Each exit 0, or exit 1 with one line saying the folder is in use; one played."""
    for result in ended:
        lines = [line for line in result.stderr.splitlines() if line.startswith("error:")]
        assert "Traceback" not in result.stderr, result.stderr
        if result.returncode:
            assert result.returncode == 1 and len(lines) == 1, result.stderr
            assert "in use by another rummy process" in lines[0], result.stderr
    assert any(r.returncode == 0 for r in ended), [r.stderr for r in ended]


def _same_hands(together: list[Path], alone: list[Path]) -> None:
    assert [p.name for p in together] == [p.name for p in alone]
    for mine, theirs in zip(together, alone, strict=True):
        assert load_hands(mine).collect().equals(load_hands(theirs).collect()), mine


@pytest.mark.parametrize("kind", [pytest.param("run", marks=pytest.mark.slow), "sweep"])
def test_two_processes_writing_one_folder(tmp_path: Path, kind: str) -> None:
    command = COMMANDS[kind]
    ended = _together(tmp_path, command)
    _check_ended(ended)
    _same_hands(_run_folders(tmp_path / "together"), _alone(tmp_path, command))


# --- the window held open ------------------------------------------------------------------


WRITE_B = "import sys; from sim import store; store.write_bytes_atomic(sys.argv[1], b'B')"


@pytest.mark.parametrize("other", ["process", "thread"])
def test_a_writer_never_deletes_the_temporary_of_one_still_writing(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, other: str
) -> None:
    """Writer A has written its temporary file and not renamed it yet; writer B writes
    the same file whole in that window. A's rename must still find its file (before:
    B deleted every ``.experiment.json.*.tmp`` beside it and A failed with "cannot write
    ...: No such file or directory"); the last rename wins, and no temporary is left."""
    target = tmp_path / "experiment.json"
    rename = os.replace
    seen: list[list[str]] = []

    def b_writes_in_the_window(src: Any, dst: Any) -> None:
        monkeypatch.setattr(os, "replace", rename)  # B's own rename, and A's after it
        seen.append(sorted(p.name for p in tmp_path.iterdir()))  # A's temporary, waiting
        if other == "process":
            subprocess.run([sys.executable, "-c", WRITE_B, str(target)], check=True)
        else:
            writer = threading.Thread(target=store.write_bytes_atomic, args=(target, b"B"))
            writer.start()
            writer.join()
        assert target.read_bytes() == b"B"
        rename(src, dst)

    monkeypatch.setattr(os, "replace", b_writes_in_the_window)
    store.write_bytes_atomic(target, b"A")
    assert len(seen) == 1 and len(seen[0]) == 1 and seen[0][0].startswith(".experiment.json.")
    assert target.read_bytes() == b"A"
    assert [p.name for p in tmp_path.iterdir()] == ["experiment.json"]


def test_a_temporary_of_an_ended_writer_is_removed_a_live_ones_kept(tmp_path: Path) -> None:
    """Stale means provably stale: the pid it bears, on this host, has ended."""
    ended = subprocess.run([sys.executable, "-c", "import os; print(os.getpid())"],
                           capture_output=True, text=True, check=True)  # fmt: skip
    dead = int(ended.stdout)
    live = os.getppid()  # pytest's parent: alive throughout, and not this process
    names = {
        "dead": f".a.json.{dead}-0bad.tmp",  # written by an older version: this host
        "dead_here": f".a.json.{dead}.{store._HOST}-0bad.tmp",
        "live": f".a.json.{live}.{store._HOST}-0bad.tmp",
        "elsewhere": f".a.json.{dead}.0123abcd-0bad.tmp",  # another host's: never known dead
        "mine": f".a.json.{os.getpid()}.{store._HOST}-0bad.tmp",  # another thread's
    }
    for name in names.values():
        (tmp_path / name).write_bytes(b"half")
    store.write_bytes_atomic(tmp_path / "a.json", b"whole")
    left = {p.name for p in tmp_path.iterdir()}
    assert left == {"a.json", names["live"], names["elsewhere"], names["mine"]}


HOLD = """
import sys
from sim import store
with store.study_folder(store.location(sys.argv[1])):
    print("held", flush=True)
    sys.stdin.read()
"""


@pytest.fixture
def held(tmp_path: Path) -> Iterator[Path]:
    """A study folder whose lock another process holds until the test ends."""
    folder = tmp_path / "out" / "sweep"
    holder = subprocess.Popen([sys.executable, "-c", HOLD, str(folder)], stdin=subprocess.PIPE,
                              stdout=subprocess.PIPE, text=True)  # fmt: skip
    try:
        assert holder.stdout is not None and holder.stdout.readline() == "held\n"
        yield folder
    finally:
        holder.communicate("", timeout=30)


def test_a_study_in_use_is_refused_before_anything_is_written(held: Path) -> None:
    """The second process's one line, its folder untouched (before: no study lock, and
    the two wrote one record at once)."""
    before = sorted(p.name for p in held.iterdir())
    done = CliRunner().invoke(app, [*COMMANDS["sweep"], "--out", str(held.parent)])
    assert done.exit_code == 1, done.output
    err = done.stderr.strip()
    assert err == f"error: {held} is in use by another rummy process", err
    assert sorted(p.name for p in held.iterdir()) == before == [".lock"]


def test_a_study_lock_is_taken_once_per_thread_and_refused_to_another(tmp_path: Path) -> None:
    """The command holds it around the study and its charts; the study's own claim in
    the same thread only yields; another thread is refused; a refused or failed study
    leaves nothing it made (the lock file, a new folder)."""
    folder = store.location(tmp_path / "study")
    refused: list[str] = []

    def other() -> None:
        try:
            with store.study_folder(folder):
                pass
        except store.StorageError as error:
            refused.append(str(error))

    with store.study_folder(folder) as created, store.study_folder(folder) as again:
        assert created and not again
        thread = threading.Thread(target=other)
        thread.start()
        thread.join()
    assert refused == [f"{folder} is in use by another rummy process"]
    with pytest.raises(ZeroDivisionError), store.study_folder(folder / "new"):
        assert (folder / "new" / ".lock").exists()
        1 / 0  # noqa: B018
    assert sorted(p.name for p in folder.iterdir()) == [".lock"]


# --- the loop (slow) ---------------------------------------------------------------------------


@pytest.fixture
def busy_cores() -> Iterator[None]:
    """Another job loading every core: one busy-looping process per core."""
    spinners = [subprocess.Popen([sys.executable, "-c", "while True: pass"])
                for _ in range(os.cpu_count() or 2)]  # fmt: skip
    try:
        yield
    finally:
        for spinner in spinners:
            spinner.kill()
            spinner.wait()


@pytest.mark.slow
@pytest.mark.parametrize("kind", ["run", "sweep", "compare"])
def test_two_writers_loop_under_load(tmp_path: Path, kind: str, busy_cores: None) -> None:
    """The two-process case again and again, every core busy: never a third outcome."""
    command = COMMANDS[kind]
    alone = _alone(tmp_path, command)
    loops = int(os.environ.get("RUMMY_RACE_LOOPS", "50"))
    started = time.monotonic()
    for i in range(loops):
        out = tmp_path / f"together-{i}"
        _check_ended(_together(tmp_path, command, out))
        _same_hands(_run_folders(out), alone)
        assert not list(out.rglob("*.tmp")), i
    print(f"{kind}: {loops} loops in {time.monotonic() - started:.0f} s")
