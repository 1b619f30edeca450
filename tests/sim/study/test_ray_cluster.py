"""Every study on a real Ray cluster of several nodes, on this machine's loopback address.

One cluster for the module (``ray.cluster_utils.Cluster``: a head and two more nodes of
one CPU each, each its own raylet and object store, bound to 127.0.0.1), this process
attached to it as a driver. Results are compared with the local backend's: the tables
of a run byte for byte (``tests/sim/study/test_runs.py`` does the same between worker
counts), and the pinned studies (``tests/sim/study/test_pinned_studies.py``, recorded on
the local backend) played again with ``--backend ray``, and a run whose ``--out`` is an
S3 store (moto's server on loopback, ``tests/support/object_store.py``: the workers
upload the parts themselves). Faults are real: a node removed mid-run (its raylet and
workers killed), a driver whose code digests differ from the workers'. The workers
import the files this process imported (``RUMMY_RAY_CODE=installed``: they share its
numba cache, so nothing compiles twice); the tests that ship the code through
``runtime_env`` compile it again under the shipped path and are ``slow``, as are the
studies beyond a run, and the heads of ``ray start`` (with and without token
authentication) that fresh ``rummy`` processes attach to, their ``HOME`` the test's.
"""

from __future__ import annotations

import contextlib
import json
import os
import secrets
import signal
import socket
import subprocess
import sys
import time
import warnings
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import polars as pl
import pytest

ray = pytest.importorskip("ray", reason="Ray is not installed: pip install 'rummy-sim[ray]'")

from ray.cluster_utils import Cluster  # noqa: E402

from sim.study import cluster as C  # noqa: E402
from sim.study import provenance as P  # noqa: E402
from sim.study.chart import knock_chart  # noqa: E402
from sim.study.execute import Executor, Progress, resume, run  # noqa: E402
from sim.study.records import read_sealed  # noqa: E402
from sim.study.rundir import load_cells, prepare, resume_config  # noqa: E402
from sim.study.runs import RunError  # noqa: E402
from tests.sim.study import test_pinned_studies as pinned_studies  # noqa: E402
from tests.sim.study.test_runs import ONE, assert_same_tables, config  # noqa: E402

LOOPBACK = "127.0.0.1"
NODES = 3  # CPUs too: one each
# A killed node is declared dead after about a second, not Ray's default half minute.
FAST_FAILURE_DETECTION = {
    "health_check_initial_delay_ms": 0,
    "health_check_period_ms": 500,
    "health_check_failure_threshold": 2,
}
RAY = Executor(backend="ray")  # a worker per CPU of the cluster
RAY_ONE = Executor(workers=1, backend="ray")
STUDIES = ["run_games", "sweep", "experiment", "experiment_games", "compare", "compare_rules",
           "tournament", "tune", "tune_descent"]  # fmt: skip


@pytest.fixture(scope="module", autouse=True)
def loopback() -> Any:
    """Every node and driver on 127.0.0.1. Ray turns a loopback address into this
    machine's network address (where nothing listens) unless it runs as on one machine,
    its setting on macOS and Windows: so here, and in every process it starts."""
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv("RAY_ENABLE_WINDOWS_OR_OSX_CLUSTER", "0")
        patch.setattr(ray._private.ray_constants, "ENABLE_RAY_CLUSTER", False)
        yield


@pytest.fixture(scope="module")
def cluster(loopback: None, s3: Any) -> Any:
    """A head and two nodes of one CPU each; this process is the driver. The S3 server's
    fake credentials are in the environment first: the nodes' workers inherit them, as
    a real cluster's nodes read theirs from their own environment."""
    nodes = Cluster(
        initialize_head=True,
        head_node_args={
            "num_cpus": 1,
            "node_ip_address": LOOPBACK,
            "include_dashboard": False,
            "_system_config": FAST_FAILURE_DETECTION,
        },
    )
    try:
        for _ in range(NODES - 1):
            nodes.add_node(num_cpus=1, node_ip_address=LOOPBACK)
        nodes.wait_for_nodes()
        connect(nodes)
        yield nodes
    finally:
        ray.shutdown()
        nodes.shutdown()


@pytest.fixture(autouse=True)
def installed(monkeypatch: pytest.MonkeyPatch) -> None:
    """Workers import this checkout (inherited environment), unless a test ships it."""
    monkeypatch.setenv(C.CODE_ENV, "installed")
    monkeypatch.delenv(C.WRITE_ENV, raising=False)


def engine_note(result: Any) -> str:
    (note,) = [n for n in result.notes if n.startswith("Ray: engine ready")]
    return note


# --- a run: the default suite -----------------------------------------------------------------


def test_run_on_the_cluster_is_identical_to_local(cluster, tmp_path, monkeypatch) -> None:
    """Byte-identical tables whether the workers write the parts or the driver does."""
    local = run(config(tmp_path / "local", count=2_400, chunk_size=600), ONE)
    remote = run(config(tmp_path / "ray", count=2_400, chunk_size=300), RAY)
    assert ray.is_initialized()  # the caller's connection is kept
    assert remote.chunks_run == 8
    manifest = read_sealed(remote.run_dir / "manifest.json", "")
    assert manifest["executor"] == {"workers": None, "backend": "ray", "address": None}
    assert_same_tables(local.run_dir, remote.run_dir)
    note = engine_note(remote)
    assert f"engine ready on {NODES} node(s)" in note
    assert f"{NODES} of {NODES} node(s) write their parts themselves" in note
    assert not list(remote.run_dir.glob(".shared-*"))  # the markers are removed

    monkeypatch.setenv(C.WRITE_ENV, "0")  # the driver writes every part
    monkeypatch.setattr(C, "_BATCH_FROM", 1)  # and collects every finished task at once
    driver = run(config(tmp_path / "driver", count=2_400, chunk_size=400), RAY_ONE)
    assert "no node(s) write their parts" in engine_note(driver)
    assert_same_tables(local.run_dir, driver.run_dir)


def test_a_run_into_s3_on_the_cluster(cluster, s3, tmp_path) -> None:
    """``--out s3://...`` on the cluster: the workers write the parts into the store
    themselves, the driver the records and manifest; the local tables. Then, chunks
    forgotten, it is finished locally from the store, and the reverse."""
    local = run(config(tmp_path / "local", count=2_400, chunk_size=600), ONE)
    remote = run(config(s3.uri(s3.bucket(), "ray"), count=2_400, chunk_size=300), RAY)
    assert remote.chunks_run == 8
    assert f"{NODES} of {NODES} node(s) write their parts themselves" in engine_note(remote)
    assert not list(remote.run_dir.glob(".shared-*")) and not (remote.run_dir / ".lock").exists()
    assert_same_tables(local.run_dir, remote.run_dir)
    for record in list((remote.run_dir / "chunks").iterdir())[::3]:
        record.unlink()  # as if interrupted: finish it on the other backend
    done = resume(str(remote.run_dir), ONE)
    assert (done.chunks_run, done.chunks_skipped) == (3, 5)
    assert_same_tables(local.run_dir, remote.run_dir)
    for record in list((remote.run_dir / "chunks").iterdir())[::2]:
        record.unlink()  # chunks 0, 2, 4, 6: two of them played locally
    done = resume(str(remote.run_dir), RAY)
    assert (done.chunks_run, done.chunks_skipped) == (4, 4)
    assert_same_tables(local.run_dir, remote.run_dir)


def test_resume_across_backends(cluster, tmp_path) -> None:
    """Start local, finish on Ray, and the reverse: the same tables as one clean run."""
    clean = run(config(tmp_path / "clean", count=1_800, chunk_size=300), ONE)
    starts = {"local": ONE, "ray": RAY_ONE}
    finishes = {"local": Executor(workers=2), "ray": RAY}
    for first, then in (("local", "ray"), ("ray", "local")):
        started = run(config(tmp_path / first, count=1_800, chunk_size=300), starts[first])
        for record in sorted((started.run_dir / "chunks").iterdir())[::2]:
            record.unlink()  # as if interrupted: these chunks were never finished
        done = resume(started.run_dir, finishes[then])
        assert (done.chunks_run, done.chunks_skipped) == (3, 3), (first, then)
        assert_same_tables(clean.run_dir, done.run_dir)


def test_a_worker_with_other_code_is_refused(cluster, tmp_path, monkeypatch) -> None:
    """The driver sends digests no worker has: one line naming a node, nothing played."""
    real = P.code_digests

    def other(strategies: Any) -> dict[str, Any]:
        return {**real(strategies), "source_digest": "0123456789abcdef"}

    monkeypatch.setattr(P, "code_digests", other)  # in this process only: not on the nodes
    with pytest.raises(RunError) as caught:
        run(config(tmp_path, count=600, chunk_size=300), RAY_ONE)
    message = str(caught.value)
    assert "\n" not in message
    assert f"the Ray worker on {LOOPBACK} (Ray node " in message
    assert "runs other code than this driver (the kernel or strategy sources" in message
    assert not list(tmp_path.glob("t/*/chunks/*.json"))


def test_bad_code_mode_is_one_line(tmp_path, monkeypatch) -> None:
    monkeypatch.setenv(C.CODE_ENV, "sometimes")
    with pytest.raises(RunError, match="RUMMY_RAY_CODE='sometimes' is not allowed"):
        run(config(tmp_path), RAY_ONE)
    assert not (tmp_path / "t").exists()


def test_bad_logs_switch_is_one_line(tmp_path, monkeypatch) -> None:
    monkeypatch.setenv(C.LOGS_ENV, "yes")
    with pytest.raises(RunError, match="RUMMY_RAY_LOGS='yes' is not allowed; choose 0 or 1"):
        run(config(tmp_path), RAY_ONE)
    assert not (tmp_path / "t").exists()


WORKER_SAYS = """
import select
import sys
import ray
from sim.study.cluster import connected

@ray.remote
def speak():
    print("a worker says hello", flush=True)

with connected(workers=1):
    ray.get(speak.remote())
    print("driver: task done", flush=True)
    select.select([sys.stdin], [], [], 300)  # until the test has seen the line (or gives up)
"""


@pytest.mark.slow
def test_worker_output_reaches_the_driver_with_the_logs_switch(tmp_path) -> None:
    """``RUMMY_RAY_LOGS=1``: what a worker prints shows on the driver (a private Ray
    instance in a process of its own; Ray forwards the line after the task returns)."""
    env = {k: v for k, v in os.environ.items() if not k.startswith(("RUMMY_RAY", "RAY_ADDRESS"))}
    driver = subprocess.Popen(
        [sys.executable, "-c", WORKER_SAYS], env={**env, C.LOGS_ENV: "1"}, cwd=tmp_path,
        stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
    )  # fmt: skip
    seen = []
    try:
        assert driver.stdout is not None
        for line in driver.stdout:  # ends if the driver exits (then the assertion fails)
            seen.append(line)
            if "a worker says hello" in line:
                break
    finally:
        driver.stdin.close()  # type: ignore[union-attr]
        driver.wait(timeout=120)
        driver.stdout.close()  # type: ignore[union-attr]
    assert any("a worker says hello" in line and "pid=" in line for line in seen), seen


# --- faults ---------------------------------------------------------------------------------


@pytest.mark.slow
@pytest.mark.parametrize("writes", ["workers", "driver"])
def test_a_node_killed_mid_run_changes_nothing(cluster, tmp_path, monkeypatch, writes) -> None:
    """A node joins, takes chunks, and is killed (raylet, workers, object store) after a
    few chunks are done: Ray retries its tasks elsewhere; the tables are the local ones."""
    if writes == "driver":
        monkeypatch.setenv(C.WRITE_ENV, "0")  # results in the object stores: lost with it
    extra = cluster.add_node(num_cpus=1, node_ip_address=LOOPBACK)
    cluster.wait_for_nodes()
    killed: list[int] = []

    def kill_after_some(p: Progress) -> None:
        if p.chunks_done >= 3 and not killed:
            killed.append(p.chunks_done)
            cluster.remove_node(extra, allow_graceful=False)

    local = run(config(tmp_path / "local", count=6_000, chunk_size=1_000), ONE)
    remote = run(config(tmp_path / "ray", count=6_000, chunk_size=200), RAY, kill_after_some)
    assert killed and remote.chunks_run == 30
    assert f"engine ready on {NODES + 1} node(s)" in engine_note(remote)
    assert_same_tables(local.run_dir, remote.run_dir)


def test_ray_failing_twice_is_one_line_naming_the_resume(cluster, tmp_path, monkeypatch) -> None:
    """A chunk whose worker dies every time: Ray's retries, the runner's one more try,
    then one line with the command that finishes the run; written chunks are kept."""
    from sim.study import chunks

    victim = config(tmp_path / "ray", count=1_500, chunk_size=300, command="rummy run X")
    real = chunks.run_chunk

    def dies_on_chunk_3(payload, index, first, n, run_dir, layout, marker):  # type: ignore[no-untyped-def]
        if index == 3:
            os._exit(1)  # the worker process dies: a system failure, not the chunk's error
        return real(payload, index, first, n)

    # Defined in a test, the task travels by value (cloudpickle), so the workers run it.
    monkeypatch.setattr(C, "_play_chunk", dies_on_chunk_3)
    monkeypatch.setattr(C, "_TASK_RETRIES", 0)
    with pytest.raises(RunError) as caught:
        run(victim, RAY_ONE)
    message = str(caught.value)
    assert "\n" not in message and "Ray failed twice on chunk 3" in message
    assert f"rummy run X), or: rummy run --resume {victim.run_dir}" in message
    kept = sorted(p.name for p in (victim.run_dir / "chunks").iterdir())
    assert "chunk-000003.json" not in kept
    done = resume(victim.run_dir, ONE)  # the chunks written are kept
    assert (done.chunks_run, done.chunks_skipped) == (5 - len(kept), len(kept))
    clean = run(config(tmp_path / "clean", count=1_500, chunk_size=300), ONE)
    assert_same_tables(clean.run_dir, done.run_dir)


# --- every study ----------------------------------------------------------------------------


def _on_ray(cli: Any) -> Any:
    """The pinned command lines with ``--backend ray`` and the cluster's CPUs as workers."""

    def call(args: list[str]) -> dict[str, Any]:
        kept, skip = [], False
        for arg in args:
            if skip:
                skip = False
            elif arg in ("-w", "--workers"):
                skip = True
            else:
                kept.append(arg)
        return cli([*kept, "--backend", "ray"])  # type: ignore[no-any-return]

    return call


def test_pinned_run_on_the_cluster(cluster, tmp_path, monkeypatch) -> None:
    """``rummy run --backend ray`` gives the pinned (local) output and tables."""
    monkeypatch.setattr(pinned_studies, "cli", _on_ray(pinned_studies.cli))
    want = json.loads(pinned_studies.PINNED.read_text())["run"]
    assert pinned_studies.play("run", tmp_path, want) == want


TUNE_FILE = """
name = "tiny_tune"
seed = 3
deals = 300
[rules]
preset = "gin"
[tune]
strategy = "greedy"
against = "simple"
confirm = 300
[tune.params]
knock_at = "5..7"
"""


@pytest.mark.slow
def test_a_tune_file_runs_on_the_cluster(cluster, tmp_path) -> None:
    """``rummy run FILE.toml --backend ray`` with a [tune] file: the local record."""
    path = tmp_path / "tune.toml"
    path.write_text(TUNE_FILE)
    args = ["run", str(path), "--json", "--out"]
    local = pinned_studies.cli([*args, str(tmp_path / "local"), "-w", "1"])
    remote = pinned_studies.cli([*args, str(tmp_path / "ray"), "--backend", "ray"])
    assert pinned_studies.digest(local) == pinned_studies.digest(remote)


@pytest.mark.slow
@pytest.mark.parametrize("name", STUDIES)
def test_pinned_studies_on_the_cluster(cluster, tmp_path, monkeypatch, name) -> None:
    """Experiment files, sweeps, compare, tournament, tune: their ``--json`` output and
    tables on the cluster are the pinned ones, recorded on the local backend."""
    monkeypatch.setattr(pinned_studies, "cli", _on_ray(pinned_studies.cli))
    want = json.loads(pinned_studies.PINNED.read_text())[name]
    got = pinned_studies.play(name, tmp_path, want)
    assert got["json"] == want["json"], f"{name}: the --json output differs on Ray"
    for table, expected in want["tables"].items():
        assert got["tables"][table]["digest"] == expected["digest"], f"{name}: {table}"


def test_knock_chart_on_the_cluster_is_identical_to_local(cluster, tmp_path) -> None:
    """A strategy chart's per-cell sums on Ray, workers writing, are the local ones."""
    small = {"deals": 240, "seed": 4, "samples": 2, "per_cell": 1, "pilot": 240}
    local = knock_chart("gin", "greedy:knock_at=0", out=tmp_path / "local", executor=ONE,
                        chunk_size=120, **small)  # fmt: skip
    remote = knock_chart("gin", "greedy:knock_at=0", out=tmp_path / "ray", executor=RAY,
                         chunk_size=60, **small)  # fmt: skip
    assert remote.result.chunks_run == 4
    assert remote.cells.equals(local.cells)
    cell, sums = ["turn", "deadwood", "took"], ["eligible", "positions", "gain_sum", "gain_sq"]
    local_sums, remote_sums = (
        load_cells(c.run_dir).group_by(cell).agg(pl.col(sums).sum()).sort(cell)
        for c in (local, remote)
    )
    assert remote_sums.equals(local_sums)  # the exact per-cell sums, whatever the chunks


# --- shipping the code, attaching to a cluster started by `ray start` ---------------------


def _free_port() -> int:
    with socket.socket() as s:
        s.bind((LOOPBACK, 0))
        return int(s.getsockname()[1])


def connect(cluster: Any) -> None:
    with warnings.catch_warnings():  # Ray's tip on accelerators, irrelevant here
        warnings.filterwarnings("ignore", "Tip: In future versions of Ray", FutureWarning)
        ray.init(address=cluster.address, log_to_driver=False, logging_level="warning")


@pytest.mark.slow
def test_shipped_code_on_the_cluster(cluster, tmp_path, monkeypatch) -> None:
    """Attaching by address ships the packages as the job's working directory (the
    workers import them from the Ray session's folder and compile there); same tables."""
    monkeypatch.setenv(C.CODE_ENV, "auto")
    local = run(config(tmp_path / "local", count=900, chunk_size=900), ONE)

    def imported_from() -> str:
        import sim

        return str(sim.__file__)

    ray.shutdown()  # rummy connects by itself, so that its job carries the code
    try:
        with C.connected(cluster.address):
            remote = run(config(tmp_path / "ray", count=900, chunk_size=300), RAY_ONE)
            where = ray.get(ray.remote(imported_from).remote())
    finally:
        connect(cluster)
    assert "runtime_resources/working_dir_files/" in where
    assert_same_tables(local.run_dir, remote.run_dir)


def test_shipping_through_a_callers_connection_is_refused(cluster, tmp_path, monkeypatch):
    monkeypatch.setenv(C.CODE_ENV, "ship")
    with pytest.raises(RunError, match="Ray was connected before rummy could ship the code"):
        run(config(tmp_path, count=600), RAY_ONE)


RUMMY = [sys.executable, "-c", "from sim.cli import app; app()", "run"]
SMALL_RUN = ["--rules", "gin", "--seats", "greedy/simple", "--deals", "900", "--seed",
             str(20240607), "--chunk-size", "300", "--json"]  # fmt: skip


def clean_env(home: Path, **extra: str) -> dict[str, str]:
    """This environment without rummy's and Ray's cluster settings, ``HOME`` (where Ray
    looks for ``.ray/auth_token``) a folder of the test's: the user's ``~/.ray`` is
    neither read nor written."""
    home.mkdir(exist_ok=True)
    drop = ("RUMMY_RAY", "RAY_ADDRESS", "RAY_AUTH")
    env = {k: v for k, v in os.environ.items() if not k.startswith(drop)}
    return {**env, "HOME": str(home), **extra}


@contextlib.contextmanager
def head(env: dict[str, str], cpus: int = 1) -> Iterator[str]:
    """``ray start --head`` on loopback in a process group of its own; its address, once
    it answers."""
    port = _free_port()
    started = subprocess.Popen(
        ["ray", "start", "--head", "--block", "--port", str(port), "--node-ip-address",
         LOOPBACK, "--num-cpus", str(cpus), "--include-dashboard", "false",
         "--disable-usage-stats"],
        env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, start_new_session=True,
    )  # fmt: skip
    try:
        deadline = time.monotonic() + 120
        while True:  # until its GCS listens (rummy would say at once that nothing does)
            try:
                socket.create_connection((LOOPBACK, port), timeout=1).close()
                break
            except OSError:
                assert started.poll() is None and time.monotonic() < deadline, "no head"
                time.sleep(0.5)
        yield f"{LOOPBACK}:{port}"
    finally:
        os.killpg(started.pid, signal.SIGTERM)  # the group `ray start` made: its own processes
        started.wait(timeout=60)


def rummy_run(out: Path, env: dict[str, str], *more: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([*RUMMY, *SMALL_RUN, "--out", str(out), *more], env=env,
                          capture_output=True, text=True, timeout=600, check=False)  # fmt: skip


@pytest.mark.slow
@pytest.mark.parametrize("token", [False, True], ids=["no-token", "token-in-home"])
def test_attach_to_a_head_started_with_ray_start(tmp_path, token) -> None:
    """``ray start --head`` then ``rummy run --backend ray --address`` (and ``RAY_ADDRESS``)
    in fresh processes, the code shipped as a user's would be: the local tables. With a
    token in ``~/.ray/auth_token`` the head turns token authentication on, and rummy
    sends the token (Ray itself does not, attaching to an address)."""
    env = clean_env(tmp_path / "home")
    if token:
        (tmp_path / "home" / ".ray").mkdir()
        (tmp_path / "home" / ".ray" / "auth_token").write_text(secrets.token_hex(32))
    with head(env) as address:
        local = rummy_run(tmp_path / "local", env)
        assert local.returncode == 0, local.stderr
        by_flag = rummy_run(tmp_path / "flag", env, "--backend", "ray", "--address", address)
        assert by_flag.returncode == 0, by_flag.stderr
        assert "engine ready on 1 node(s)" in by_flag.stderr
        by_env = rummy_run(tmp_path / "env", {**env, "RAY_ADDRESS": address}, "--backend", "ray")
        assert by_env.returncode == 0, by_env.stderr
    dirs = [Path(json.loads(p.stdout)["run_dir"]) for p in (local, by_flag, by_env)]
    for other in dirs[1:]:
        assert_same_tables(dirs[0], other)
    assert token == (tmp_path / "home" / ".ray").exists()  # nothing written there


@pytest.mark.slow
def test_a_head_with_token_auth_lets_in_its_token_only(tmp_path) -> None:
    """A head started with ``RAY_AUTH_MODE=token`` and a token file: rummy attaches with
    that token (``RAY_AUTH_TOKEN``); a wrong token (token mode set by rummy, or by the
    user) or none is one line, exit status 1, within seconds (``ray.init`` took 21 s to
    refuse a wrong token: it tries 20 times, a second apart)."""
    token = tmp_path / "token"
    token.write_text(secrets.token_hex(32))
    env = clean_env(tmp_path / "home")
    wrong_token = {**env, "RAY_AUTH_TOKEN": "0" * 64}
    refused = {
        "wrong": wrong_token, "wrong-mode-set": {**wrong_token, "RAY_AUTH_MODE": "token"},
        "missing": env,
    }  # fmt: skip
    with head({**env, "RAY_AUTH_MODE": "token", "RAY_AUTH_TOKEN_PATH": str(token)}) as address:
        ray_args = ("--backend", "ray", "--address", address)
        right = rummy_run(tmp_path / "right", {**env, "RAY_AUTH_TOKEN": token.read_text()},
                          *ray_args)  # fmt: skip
        assert right.returncode == 0, right.stderr
        assert "engine ready on 1 node(s)" in right.stderr
        seconds, done = {}, {}
        for name, name_env in refused.items():
            started = time.monotonic()
            done[name] = rummy_run(tmp_path / name, name_env, *ray_args)
            seconds[name] = time.monotonic() - started
    first = f"error: the Ray cluster at {address} refused the connection: "
    wrong = f"{first}it does not accept the auth token of RAY_AUTH_TOKEN; use the head's "
    wrong += "(`ray get-auth-token` there prints it)"
    wants = {
        "wrong": wrong, "wrong-mode-set": wrong,
        "missing": f"{first}it requires an auth token (set RAY_AUTH_TOKEN or "
        "RAY_AUTH_TOKEN_PATH, or put it in ~/.ray/auth_token; `ray get-auth-token` on the "
        "head prints it)",
    }  # fmt: skip
    for name, want in wants.items():
        lines = done[name].stderr.strip().splitlines()  # the study's heading, then the error
        assert (done[name].returncode, lines[-1]) == (1, want), done[name].stderr
        assert not [line for line in lines[:-1] if "rror" in line or "uth" in line], lines
        assert not list((tmp_path / name).glob("*/*/chunks/*.json"))  # nothing played
        assert seconds[name] < 10, (name, seconds[name])  # the start of Python, numba, Ray


def test_an_address_nobody_answers_is_one_line(tmp_path) -> None:
    """Ray would retry for minutes; rummy says so at once, in one line, exit status 1."""
    port = _free_port()  # closed again: nothing listens there
    done = subprocess.run(
        [sys.executable, "-c", "from sim.cli import app; app()", "run", "--seats",
         "greedy/simple", "--deals", "10", "--backend", "ray", "--address",
         f"{LOOPBACK}:{port}", "--out", str(tmp_path)],
        capture_output=True, text=True, timeout=120, check=False,
    )  # fmt: skip
    assert done.returncode == 1, done.stderr
    assert done.stderr.strip() == (
        f"error: cannot reach the Ray cluster at {LOOPBACK}:{port} (Connection refused); "
        "start it with `ray start --head`, or check --address and RAY_ADDRESS"
    )


def test_ray_workers_stay_unset(tmp_path) -> None:
    """On Ray without workers the run stores none (the cluster's CPUs, whatever its size
    when it resumes), and its identity is a local run's."""
    on_ray = config(tmp_path)
    on_ray.run_dir.mkdir(parents=True)
    prepare(on_ray, on_ray.run_dir, RAY.to_dict())
    resumed, executor = resume_config(on_ray.run_dir)
    assert executor == {"workers": None, "backend": "ray", "address": None}
    assert Executor(**executor) == RAY and resumed.config_hash == on_ray.config_hash
