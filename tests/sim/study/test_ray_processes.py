"""A private Ray instance (``--backend ray`` without an address) leaves nothing behind.

Each test runs ``rummy run`` in a process of its own, its ``HOME`` a folder of the test's:
Ray writes a token into ``~/.ray`` unless rummy gives the instance one of its own, and a
``kill -9`` of the driver must take every process of its Ray session with it (on Linux,
where the watchdog of ``sim/study/cluster.py`` and this test's ``/proc`` exist).
"""

from __future__ import annotations

import os
import signal
import subprocess
import time
from pathlib import Path

import pytest

ray = pytest.importorskip("ray", reason="Ray is not installed: pip install 'rummy-sim[ray]'")

from sim.study.cluster import connected  # noqa: E402
from sim.study.runs import RunError  # noqa: E402
from tests.sim.study.test_ray_cluster import RUMMY, clean_env  # noqa: E402


def rummy(out: Path, env: dict[str, str], deals: int) -> subprocess.Popen[str]:
    args = ["--seats", "greedy/simple", "--deals", str(deals), "--chunk-size", "300",
            "--backend", "ray", "-w", "1", "--out", str(out)]  # fmt: skip
    return subprocess.Popen([*RUMMY, *args], env=env, stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True)  # fmt: skip


def test_a_private_instance_writes_nothing_in_home(tmp_path) -> None:
    """Ray would write ``~/.ray/auth_token`` for a new local instance (and every later
    ``ray start --head`` of the user would require it): rummy's instance has a token of
    its own, in its processes' environment, and says nothing of it."""
    done = rummy(tmp_path / "out", clean_env(tmp_path / "home"), deals=600)
    out, err = done.communicate(timeout=600)
    assert done.returncode == 0, err
    assert list((tmp_path / "home").iterdir()) == []
    assert "Token authentication" not in err


def test_a_token_path_that_is_no_file_is_one_line(tmp_path, monkeypatch) -> None:
    """Ray would say that the file ``cannot be opened or is empty`` only once it has
    connected, and only in its log: rummy refuses it at once, Ray never started."""
    missing = tmp_path / "no-token"
    monkeypatch.setenv("RAY_AUTH_TOKEN_PATH", str(missing))
    with pytest.raises(RunError) as caught, connected(workers=1):
        pass
    assert str(caught.value) == (
        f"RAY_AUTH_TOKEN_PATH={missing} is not a file; name the file of the auth token"
    )
    assert not ray.is_initialized()


def test_a_private_instance_is_a_new_one(monkeypatch) -> None:
    """Without an address Ray attaches to the latest head that ``ray start`` started on
    this machine (and refuses the private instance's CPUs): rummy asks for a new one."""
    seen = []

    def init(address: str | None = None, **options: object) -> None:
        seen.append(address)
        raise ConnectionError("stopped here")

    monkeypatch.delenv("RAY_ADDRESS", raising=False)
    monkeypatch.setattr(ray, "init", init)
    with pytest.raises(RunError, match="^cannot start Ray here: stopped here$"):
        with connected(workers=1):
            pass
    assert seen == ["local"]


def session_of(pid: int) -> str | None:
    """The Ray session folder a process holds a file of, or None."""
    for link in open_files(pid):
        head, found, tail = link.partition("/session_")
        if found and "/" in tail:
            return f"{head}{found}{tail.split('/')[0]}"
    return None


def open_files(pid: int) -> list[str]:
    try:
        fds = os.listdir(f"/proc/{pid}/fd")
        return [os.readlink(f"/proc/{pid}/fd/{fd}") for fd in fds]
    except OSError:  # gone, or not ours to see
        return []


def alive_in(session: str) -> list[str]:
    """The processes (pid and name) that hold a file of ``session`` open."""
    found = []
    for pid in (int(p) for p in os.listdir("/proc") if p.isdigit()):
        if any(link.startswith(f"{session}/") for link in open_files(pid)):
            with open(f"/proc/{pid}/cmdline", "rb") as cmdline:
                found.append(f"{pid} {cmdline.read()[:60].decode(errors='replace')}")
    return found


@pytest.mark.slow
@pytest.mark.skipif(not Path("/proc/self/fd").is_dir(), reason="needs Linux's /proc")
def test_kill_9_of_the_driver_leaves_no_ray_process(tmp_path) -> None:
    """A long run, killed (``SIGKILL``) once Ray plays its chunks: within ten seconds no
    process of its Ray session is left (Ray's own would leave its agents running)."""
    driver = rummy(tmp_path / "out", clean_env(tmp_path / "home"), deals=5_000_000)
    session, deadline = None, time.monotonic() + 300
    try:
        while time.monotonic() < deadline and driver.poll() is None:
            session = session or session_of(driver.pid)
            if session and list((tmp_path / "out").glob("*/*/chunks/*.json")):
                break  # Ray is up, its agents too, and a chunk is done
            time.sleep(0.5)
        assert session and driver.poll() is None, driver.communicate()[1]
        assert any("Agent" in p for p in alive_in(session))  # what would be left
        driver.send_signal(signal.SIGKILL)
    finally:
        driver.kill()
        driver.communicate()
    for _ in range(20):
        left = alive_in(session)
        if not left:
            break
        time.sleep(0.5)
    assert left == [], left
