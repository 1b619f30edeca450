"""Ctrl-C and SIGTERM to a real ``rummy`` on Ray: one line, the right status, nothing left.

A study on Ray is stopped as any other (tests/sim/cli/test_signals.py): 130 for Ctrl-C
(SIGINT to the process group, Ray's own processes of a private instance included, as
a terminal sends it), 143 for SIGTERM (to the command alone), one ``interrupted:`` or
``terminated:`` line on stderr and nothing else of note: not the stack dump Ray's C++
core prints for a SIGTERM (``*** SIGTERM received ***``), which, with Ray's own handler
(``sys.exit(15)``), used to end the command with status 15 and no line. Afterwards no
``.tmp`` file is left in the output folder (the driver's markers ``.shared-*.tmp``, the
temporaries of parts a worker was writing), and no process of the run is left: of a
private instance, every process of its Ray session; attached to a head of ``ray
start``, every worker that played the run's chunks (the head itself stays up).

Each case starts Ray (seconds of CPU) and plays until chunks are done: ``slow``. Both
signals always; which study, how many workers and how many chunks to wait for (none:
the signal lands while Ray starts; else while workers write their parts, or while the
driver writes the records) are drawn by hypothesis, a few examples each
(``RAY_SIGNAL_EXAMPLES`` asks for more)."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import pytest
from hypothesis import HealthCheck, Phase, given, settings
from hypothesis import strategies as st

pytest.importorskip("ray", reason="Ray is not installed: pip install 'rummy-sim[ray]'")

from tests.sim.study.test_ray_cluster import clean_env, head, loopback  # noqa: E402, F401
from tests.sim.study.test_ray_processes import alive_in, session_of  # noqa: E402
from tests.support.procs import alive, needs_proc  # noqa: E402

pytestmark = [
    needs_proc,
    pytest.mark.slow,
    pytest.mark.skipif(not Path("/proc/self/fd").is_dir(), reason="needs Linux's /proc"),
]

RUMMY = [sys.executable, "-c", "from sim.cli import app; app()"]
LINES = {signal.SIGINT: "interrupted:", signal.SIGTERM: "terminated:"}
STATUS = {signal.SIGINT: 130, signal.SIGTERM: 143}
# Studies of many short chunks (one run, or eleven: a marker in each run folder)
STUDIES = {
    "run": ["run", "--seats", "greedy/simple", "--deals", "3000000"],
    "sweep": ["sweep", "--seats", "greedy:knock_at={k}/simple", "--grid", "k=0..10"]
    + ["--deals", "300000"],
}
COMMON = ["--chunk-size", "300", "--seed", "5", "--backend", "ray", "--name", "sig"]
EXAMPLES = int(os.environ.get("RAY_SIGNAL_EXAMPLES", "4"))
WAIT = 300  # seconds for Ray to start and play the first chunks (a cold cache compiles)


def session(sid: int) -> list[int]:
    """The running processes of session ``sid``: the command, and Ray's processes it
    started (a private instance's, its workers included)."""
    found = []
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                fields = (entry / "stat").read_text().rsplit(") ", 1)[1].split()
            except OSError:
                continue
            if int(fields[3]) == sid and fields[0] != "Z":
                found.append(int(entry.name))
    return found


def playing(home: Path) -> list[int]:
    """Ray workers busy with a task of rummy's (Ray titles a worker by its task) started
    with ``home`` as their HOME: the head's, not those of another test's Ray (the other
    xdist worker may be playing one of its own meanwhile)."""
    found = []
    mine = f"HOME={home}".encode()
    for pid in (int(p) for p in os.listdir("/proc") if p.isdigit()):
        try:
            title = Path(f"/proc/{pid}/cmdline").read_bytes()
            environ = Path(f"/proc/{pid}/environ").read_bytes().split(b"\0")
        except OSError:
            continue
        if title.startswith((b"ray::_play_chunk", b"ray::_warm_node")) and mine in environ:
            found.append(pid)
    return found


def chunks_done(out: Path) -> int:
    return len(list(out.glob("sig/**/chunks/chunk-*.json")))


class Study:
    """``rummy STUDY`` on Ray, the leader of a session of its own, as a shell starts it."""

    def __init__(self, tmp: Path, study: str, *more: str, env: dict[str, str]) -> None:
        self.out = tmp / "out"
        self.err = tmp / "stderr.txt"
        args = [*RUMMY, *STUDIES[study], *COMMON, "--out", str(self.out), *more]
        with self.err.open("w") as err:
            self.proc = subprocess.Popen(args, env=env, cwd=tmp, stdout=subprocess.DEVNULL,
                                         stderr=err, start_new_session=True)  # fmt: skip
        self.ray_session: str | None = None

    def wait_for_chunks(self, n: int) -> None:
        """Until ``n`` chunks are done; 0: until Ray starts (its session folder is open)."""
        deadline = time.monotonic() + WAIT
        while chunks_done(self.out) < n or not (n or self.ray_session):
            self.ray_session = self.ray_session or session_of(self.proc.pid)
            assert self.proc.poll() is None, self.err.read_text()
            assert time.monotonic() < deadline, "no chunk was played"
            time.sleep(0.05)
        self.ray_session = self.ray_session or session_of(self.proc.pid)

    def stop(self, sig: signal.Signals) -> float:
        start = time.monotonic()
        if sig == signal.SIGINT:  # Ctrl-C: the terminal signals the whole process group
            os.killpg(self.proc.pid, sig)
        else:
            self.proc.send_signal(sig)
        self.proc.wait(timeout=60)
        return time.monotonic() - start

    def left(self, seconds: float) -> list[int]:
        deadline = time.monotonic() + seconds
        while session(self.proc.pid) and time.monotonic() < deadline:
            time.sleep(0.1)
        return session(self.proc.pid)

    def kill_all(self) -> None:
        for pid in session(self.proc.pid):
            if alive(pid):
                os.kill(pid, signal.SIGKILL)
        self.proc.kill()
        self.proc.wait()


@pytest.fixture
def started() -> Iterator[list[Study]]:
    studies: list[Study] = []
    yield studies
    for study in studies:
        study.kill_all()


def assert_stopped_cleanly(
    study: Study, sig: signal.Signals, seconds: float, written: bool = True
) -> None:
    """The command ended as a signal ends it: its status, its one last line, in time;
    and, where ``written`` (its own processes did all the writing), nothing half-written
    left. A head's tasks end after the command that submitted them: the caller looks
    for their temporaries once they have."""
    text = study.err.read_text()
    assert study.proc.returncode == STATUS[sig], text
    assert "SIGTERM received" not in text and "Traceback" not in text, text
    said = [line for line in text.splitlines() if line.strip() and "━" not in line]
    stops = [line for line in said if line.startswith(("interrupted:", "terminated:"))]
    assert stops == [f"{LINES[sig]} finished chunks are kept; the same command resumes"], text
    assert said[-1] == stops[0], text  # the last word
    assert seconds < 15, text
    if written:
        assert [p.name for p in study.out.rglob("*.tmp")] == []


_drawn = settings(  # no shrinking: each example starts Ray; the one that failed is shown
    max_examples=EXAMPLES, deadline=None, derandomize=True,
    phases=[Phase.explicit, Phase.generate],
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)  # fmt: skip
SIGNALS = pytest.mark.parametrize("sig", [signal.SIGTERM, signal.SIGINT], ids=["TERM", "INT"])


@SIGNALS
@_drawn
@given(
    study=st.sampled_from(sorted(STUDIES)),
    workers=st.sampled_from(["1", "2"]),
    chunks=st.integers(0, 12),
)
def test_a_signal_to_a_study_on_a_private_instance(
    tmp_path_factory: pytest.TempPathFactory, started: list[Study], sig: signal.Signals,
    study: str, workers: str, chunks: int,
) -> None:  # fmt: skip
    tmp = tmp_path_factory.mktemp("private")
    command = Study(tmp, study, "-w", workers, env=clean_env(tmp / "home"))
    started.append(command)
    command.wait_for_chunks(chunks)
    assert command.ray_session, "the command holds no Ray session's file"
    seconds = command.stop(sig)
    assert_stopped_cleanly(command, sig, seconds)
    assert command.left(5) == [], "processes of the run outlived it"
    for _ in range(20):  # the watchdog's doing: Ray's agents run in other sessions
        if not alive_in(command.ray_session):
            break
        time.sleep(0.5)
    assert alive_in(command.ray_session) == []


@pytest.fixture(scope="module")
def ray_head(
    tmp_path_factory: pytest.TempPathFactory, loopback: None,  # noqa: F811
) -> Iterator[tuple[str, Path]]:  # fmt: skip
    """``ray start --head`` on loopback, two CPUs, for the module's attached studies: its
    address and the HOME its processes run with."""
    home = tmp_path_factory.mktemp("head-home")
    with head(clean_env(home), cpus=2) as address:
        yield address, home


@SIGNALS
@_drawn
@given(chunks=st.integers(0, 12))
def test_a_signal_to_a_study_attached_to_a_head(
    tmp_path_factory: pytest.TempPathFactory, started: list[Study],
    ray_head: tuple[str, Path], sig: signal.Signals, chunks: int,
) -> None:  # fmt: skip
    address, head_home = ray_head
    tmp = tmp_path_factory.mktemp("attached")
    env = clean_env(tmp / "home", RUMMY_RAY_CODE="installed")  # the head imports this tree
    command = Study(tmp, "sweep", "--address", address, "-w", "2", env=env)
    started.append(command)
    command.wait_for_chunks(chunks)
    seconds = command.stop(sig)
    # the head's tasks may be writing a part as the command ends: their temporaries are
    # looked for once the head has stopped them, below
    assert_stopped_cleanly(command, sig, seconds, written=False)
    assert command.left(5) == []
    deadline = time.monotonic() + 10  # the head stops the tasks of a job whose driver ended
    while playing(head_home) and time.monotonic() < deadline:
        time.sleep(0.2)
    assert playing(head_home) == [], "a worker plays on for a command that ended"
    assert [p.name for p in command.out.rglob("*.tmp")] == []
