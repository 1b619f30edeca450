"""Ctrl-C, SIGTERM and SIGKILL at every stage: one line, the right status, nobody left.

Real ``rummy`` processes, each the leader of a session of its own, as a shell starts a
command: Ctrl-C is SIGINT to the whole process group (the terminal sends it so), SIGTERM
and SIGKILL go to the command alone. Each test waits for a stage (chunks on disk, a
compile helper started, the count under way), sends the signal and checks the exit
status, that stderr says one line and no traceback (``interrupted: finished chunks are
kept; ...`` for a command that plays a study, ``interrupted`` alone for one that keeps
no chunks: a count, a compile; ``terminated`` for SIGTERM), that no process of the
session (compile helpers included, which run in a process group of their own) is left
a second or two later, and that finished chunks are kept. The cold-compile tests start
from an empty numba cache and compile on every core for seconds before their signal:
they are ``slow``. The others reuse the suite's cache (where it is cold, their signal
stops a compile instead, as quickly). tests/sim/study/test_ray_signals.py does the same
on Ray.
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from tests.support.cli import command_paths
from tests.support.procs import alive, needs_proc

pytestmark = needs_proc

RUMMY = [sys.executable, "-c", "from sim.cli import app; app()"]
INTERRUPTED = "interrupted: finished chunks are kept; the same command resumes"
TERMINATED = "terminated: finished chunks are kept; the same command resumes"
NO_CHUNKS = {signal.SIGINT: "interrupted", signal.SIGTERM: "terminated"}  # nothing to keep
# A run of many short chunks: a few are done within seconds, the rest is left.
RUN = ["run", "--seats", "greedy", "--deals", "2000000", "--chunk-size", "20000"]
RUN += ["--seed", "1", "-w", "2", "--name", "sig"]
N_CHUNKS = 100
COLD_SECONDS = 300  # the longest wait for a stage: a cold cache compiles first


def session(sid: int) -> list[int]:
    """The running processes of session ``sid`` (zombies count as ended)."""
    found = []
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            fields = (entry / "stat").read_text().rsplit(") ", 1)[1].split()
        except OSError:  # it ended meanwhile
            continue
        if int(fields[3]) == sid and fields[0] != "Z":  # state ppid pgrp session
            found.append(int(entry.name))
    return found


def wait_for(condition: Callable[[], bool], proc: subprocess.Popen[bytes]) -> None:
    deadline = time.monotonic() + COLD_SECONDS
    while not condition():
        assert proc.poll() is None, "the command ended before the stage the test waits for"
        assert time.monotonic() < deadline, "the stage the test waits for never came"
        time.sleep(0.05)


class Command:
    """``rummy ARGS`` in ``folder``, the leader of a new session; its stderr in a file."""

    started: list[Command] = []  # killed at each test's end, if still running

    def __init__(self, folder: Path, args: list[str], cache: Path | None = None) -> None:
        env = dict(os.environ)
        if cache is not None:  # the parent of the keyed cache folders (kernels/__init__.py)
            env["NUMBA_CACHE_DIR"] = env["RUMMY_NUMBA_CACHE_BASE"] = str(cache)
        self.folder = folder
        self.stderr_path = folder / "stderr.txt"
        with self.stderr_path.open("w") as stderr:
            self.proc = subprocess.Popen(
                [*RUMMY, *args], cwd=folder, env=env, stdout=subprocess.DEVNULL,
                stderr=stderr, start_new_session=True,
            )  # fmt: skip
        Command.started.append(self)

    def stop(self, sig: signal.Signals, *, group: bool) -> float:
        """Send ``sig`` (to the process group, as a terminal does, or to the command
        alone), wait for the command to end; returns the seconds that took."""
        start = time.monotonic()
        (os.killpg if group else os.kill)(self.proc.pid, sig)
        self.proc.wait(timeout=60)
        return time.monotonic() - start

    def kill_all(self) -> None:
        """What a failed test left running: the session's every process."""
        for pid in session(self.proc.pid):
            if alive(pid):
                os.kill(pid, signal.SIGKILL)
        self.proc.wait()

    def left_after(self, seconds: float) -> list[int]:
        """The session's processes still running after up to ``seconds``."""
        deadline = time.monotonic() + seconds
        while session(self.proc.pid) and time.monotonic() < deadline:
            time.sleep(0.05)
        return session(self.proc.pid)

    def stderr_lines(self) -> list[str]:
        """stderr's lines that say something (rich's progress bar, not on a terminal,
        ends with a blank line)."""
        text = self.stderr_path.read_text()
        assert "Traceback" not in text, text
        return [line for line in text.splitlines() if line.strip()]


@pytest.fixture(autouse=True)
def _nothing_left_running() -> Iterator[None]:
    yield
    while Command.started:
        Command.started.pop().kill_all()


def chunks_done(folder: Path) -> int:
    return len(list(folder.glob("sig/*/chunks/chunk-*.json")))


def helpers_of(command: Command) -> list[int]:
    return [pid for pid in session(command.proc.pid) if pid != command.proc.pid]


# --- a warm cache: the default suite ------------------------------------------------------


@pytest.mark.parametrize(
    ("sig", "status", "line"),
    [
        (signal.SIGINT, 130, INTERRUPTED),
        # SIGTERM's line in the default suite: the deadwood count's test below.
        pytest.param(signal.SIGTERM, 143, TERMINATED, marks=pytest.mark.slow),
    ],
)
def test_a_signal_while_playing_says_one_line_and_keeps_the_chunks(
    tmp_path: Path, sig: signal.Signals, status: int, line: str
) -> None:
    command = Command(tmp_path, [*RUN, "--out", str(tmp_path)])
    wait_for(lambda: chunks_done(tmp_path) >= 3, command.proc)
    seconds = command.stop(sig, group=sig == signal.SIGINT)
    assert command.proc.returncode == status, command.stderr_path.read_text()
    assert command.stderr_lines() == [line]
    assert seconds < 10  # the chunks in flight finish; nothing else is started
    assert 3 <= chunks_done(tmp_path) < N_CHUNKS
    assert command.left_after(2) == []


@pytest.mark.parametrize("workers", [pytest.param("1", marks=pytest.mark.slow), "2"])
def test_ctrl_c_does_not_wait_for_the_chunks_in_flight(tmp_path: Path, workers: str) -> None:
    # Chunks of mc play for about 100 s each; their kernels cannot be stopped, and their
    # tables are thrown away, so the command ends without waiting for them.
    args = ["run", "--seats", "mc/greedy", "--deals", "10000", "--chunk-size", "5000"]
    args += ["--seed", "1", "-w", workers, "--out", str(tmp_path), "--name", "sig"]
    command = Command(tmp_path, args)
    wait_for(lambda: any(tmp_path.glob("sig/*/chunks")), command.proc)
    time.sleep(4)  # the engine loads (a cold cache compiles it: then that is stopped)
    seconds = command.stop(signal.SIGINT, group=True)
    assert command.proc.returncode == 130, command.stderr_path.read_text()
    assert command.stderr_lines() == [INTERRUPTED]
    assert seconds < 5
    assert chunks_done(tmp_path) == 0
    assert command.left_after(1) == []


# SIGINT's line in the default suite: a run's test above.
@pytest.mark.parametrize(
    "sig", [pytest.param(signal.SIGINT, marks=pytest.mark.slow), signal.SIGTERM]
)
def test_a_signal_stops_a_long_deadwood_count_at_once(tmp_path: Path, sig: signal.Signals) -> None:
    # 10^10 hands (the most it takes) take minutes: before they were counted in batches,
    # Ctrl-C waited for all. A count keeps nothing: its line says no more than that.
    args = ["stats", "deadwood", "--cards", "10", "--samples", str(10**10), "--seed", "1"]
    command = Command(tmp_path, args)
    time.sleep(4)  # the imports (and a compile, were the cache cold) come first
    seconds = command.stop(sig, group=sig == signal.SIGINT)
    assert command.proc.returncode == 128 + sig, command.stderr_path.read_text()
    assert command.stderr_lines() == [NO_CHUNKS[sig]]
    assert seconds < 5


def test_a_chart_subcommand_keeps_its_chunks_and_says_so(tmp_path: Path) -> None:
    # A subcommand of a group (strategy-chart knock) that plays a study: the chunks line.
    args = ["strategy-chart", "knock", "--seats", "greedy/simple", "--deals", "2000000"]
    args += ["--chunk-size", "2000", "--seed", "1", "-w", "2", "--out", str(tmp_path)]
    command = Command(tmp_path, [*args, "--name", "sig"])
    wait_for(lambda: chunks_done(tmp_path) >= 2, command.proc)
    command.stop(signal.SIGTERM, group=False)
    assert command.proc.returncode == 143, command.stderr_path.read_text()
    assert command.stderr_lines() == [TERMINATED]
    assert command.left_after(2) == []


# Every command and subcommand whose study the same command resumes (docs/CLI.md): the
# line of a signal says that its finished chunks are kept; no other command's does.
RESUMABLE = {"run", "sweep", "compare", "tournament", "tune", "strategy-chart knock",
             "strategy-chart draw", "strategy-chart discard", "strategy-chart solve"}  # fmt: skip


def _command_paths() -> list[str]:
    """Every command and subcommand as one string (``"strategy-chart knock"``)."""
    return [" ".join(path) for path in command_paths()]


@settings(max_examples=60, derandomize=True, deadline=None)
@given(data=st.data())
def test_the_line_says_chunks_are_kept_only_for_a_resumable_study(data: st.DataObject) -> None:
    from sim.cli import _resumes

    path = data.draw(st.sampled_from(_command_paths()))
    before = data.draw(st.lists(st.sampled_from(["-q", "--quiet"]), max_size=2))
    after = data.draw(st.lists(st.sampled_from(["--seed", "3", "--json", "-w", "x y", ""])))
    assert _resumes([*before, *path.split(), *after]) == (path in RESUMABLE), path
    assert RESUMABLE <= set(_command_paths())


def test_a_compile_helper_ignores_ctrl_c_and_ends_with_its_input(tmp_path: Path) -> None:
    # The parent decides when helpers stop: a Ctrl-C that reaches one changes nothing,
    # and the end of its input ends it quietly.
    code = f"from sim.warm import serve; serve(parent={os.getpid()})"
    with (tmp_path / "stderr.txt").open("w") as stderr:
        helper = subprocess.Popen(
            [sys.executable, "-c", code], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
            stderr=stderr,
        )  # fmt: skip
    assert helper.stdin is not None and helper.stdout is not None
    helper.stdin.write(b"\n")  # a unit with no name fails: the helper is ready once
    helper.stdin.flush()  # it answers, with an empty line
    assert helper.stdout.readline() == b"\n"
    helper.send_signal(signal.SIGINT)
    time.sleep(0.5)
    assert helper.poll() is None
    helper.stdin.close()
    assert helper.wait(timeout=10) == 0
    helper.stdout.close()
    assert "Traceback" not in (tmp_path / "stderr.txt").read_text()


def test_the_signal_handlers_are_put_back_after_a_command() -> None:
    from typer.testing import CliRunner

    from sim.cli import app

    before = [signal.getsignal(s) for s in (signal.SIGINT, signal.SIGTERM)]
    result = CliRunner().invoke(app, ["rules", "list"])
    assert result.exit_code == 0, result.output
    assert [signal.getsignal(s) for s in (signal.SIGINT, signal.SIGTERM)] == before


# --- an empty cache: compiles of 30-60 s ---------------------------------------------------


@pytest.mark.slow
def test_ctrl_c_while_warm_compiles_stops_its_helpers_at_once(tmp_path: Path) -> None:
    command = Command(tmp_path, ["warm", "--processes", "2"], cache=tmp_path / "cache")
    wait_for(lambda: bool(helpers_of(command)), command.proc)
    time.sleep(3)  # the helper is compiling
    seconds = command.stop(signal.SIGINT, group=True)
    assert command.proc.returncode == 130, command.stderr_path.read_text()
    assert command.stderr_lines() == ["interrupted"]
    assert seconds < 5  # not after the helper's compile, nor after the queue
    assert command.left_after(1) == []


@pytest.mark.slow
def test_sigint_to_warm_alone_stops_its_helpers(tmp_path: Path) -> None:
    # `kill -INT PID`: the helpers hear nothing; the command stops them.
    command = Command(tmp_path, ["warm", "--processes", "2"], cache=tmp_path / "cache")
    wait_for(lambda: bool(helpers_of(command)), command.proc)
    time.sleep(3)
    seconds = command.stop(signal.SIGINT, group=False)
    assert command.proc.returncode == 130, command.stderr_path.read_text()
    assert command.stderr_lines() == ["interrupted"]
    assert seconds < 5
    assert command.left_after(1) == []


@pytest.mark.slow
def test_helpers_of_a_killed_warm_exit_quietly(tmp_path: Path) -> None:
    command = Command(tmp_path, ["warm", "--processes", "2"], cache=tmp_path / "cache")
    wait_for(lambda: bool(helpers_of(command)), command.proc)
    time.sleep(3)
    command.stop(signal.SIGKILL, group=False)
    assert command.proc.returncode == -signal.SIGKILL
    assert command.left_after(2) == [], "a compile helper outlived its parent"
    assert command.stderr_lines() == []


@pytest.mark.slow
@pytest.mark.parametrize(
    ("sig", "status", "line"),
    [(signal.SIGINT, 130, INTERRUPTED), (signal.SIGTERM, 143, TERMINATED)],
)
def test_a_signal_during_the_first_compile_says_one_line(
    tmp_path: Path, sig: signal.Signals, status: int, line: str
) -> None:
    command = Command(tmp_path, [*RUN, "--out", str(tmp_path)], cache=tmp_path / "cache")
    # The run's folder is made, then the engine compiles (with helpers on idle cores).
    wait_for(lambda: any(tmp_path.glob("sig/*/chunks")), command.proc)
    time.sleep(5)
    seconds = command.stop(sig, group=sig == signal.SIGINT)
    assert command.proc.returncode == status, command.stderr_path.read_text()
    assert command.stderr_lines() == [line]
    assert seconds < 5
    assert chunks_done(tmp_path) == 0
    assert command.left_after(1) == []
