"""Results in an S3 object store (``--out s3://bucket/prefix?endpoint_override=...``).

A real S3 server on loopback (moto's, ``tests/support/object_store.py``) and pyarrow's own
S3 client: a run written there has the local run's tables, value for value and part for
part; an interrupted run resumes from the store; the readers (``rummy chart``, ``rummy
report``, the Python loaders) read it; the other studies give their pinned output with
``--out`` in the store. ``file:///abs`` is the folder it names. A URI that cannot be used
is one line naming it, and leaves nothing behind. The Ray cluster's run into the store
(the workers write the parts) is in ``tests/sim/study/test_ray_cluster.py``.
"""

from __future__ import annotations

import json
import os
import pickle
import socket
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from sim import store
from sim.cli import app
from sim.remote import RemotePath
from sim.study import tables as T
from sim.study.chart import knock_chart
from sim.study.execute import Progress, run
from sim.study.experiment_store import load_results, scan_hands, scan_players
from sim.study.rundir import Layout, load_cells, load_hands, load_manifest
from sim.study.runs import RunError
from tests.sim.study import test_pinned_studies as pinned_studies
from tests.sim.study.test_runs import ONE, SEED, assert_same_tables, config
from tests.support.cli import one_line

RUN = ["run", "--rules", "gin", "--seats", "greedy/simple", "--deals", "1500", "--seed",
       str(SEED), "--chunk-size", "400", "-w", "1", "--json"]  # fmt: skip


def cli(*args: str) -> Any:
    return CliRunner().invoke(app, list(args))


def ok(result: Any) -> dict[str, Any]:
    assert result.exit_code == 0, result.output
    return json.loads(result.stdout)  # type: ignore[no-any-return]


def assert_same_parts(a: Any, b: Any) -> None:
    """Chunk for chunk, each part holds the same rows (their footers differ: each names
    its own ``--out``)."""
    layout = Layout.of_manifest(a, load_manifest(a))
    for index in range(layout.n_chunks):
        for table in layout.tables:
            pa_, pb = layout.part(a, table, index), layout.part(b, table, index)
            ta = T.read_parquet_checked(pa_).to_arrow()
            tb = T.read_parquet_checked(pb).to_arrow()
            assert T.canonical_bytes(ta) == T.canonical_bytes(tb), (table, index)


# --- a run -----------------------------------------------------------------------------------


def test_a_run_in_s3_is_the_local_run(s3, tmp_path) -> None:
    """``rummy run --out s3://...``: every file in the store, none here; the local tables."""
    local = ok(cli(*RUN, "--out", str(tmp_path / "local")))
    remote = ok(cli(*RUN, "--out", s3.uri(s3.bucket(), "results/x")))
    run_dir = store.location(remote["run_dir"])
    assert isinstance(run_dir, RemotePath) and remote["run_dir"].startswith("s3://results-")
    assert remote["run_dir"].endswith(f"/results/x/default/{Path(local['run_dir']).name}?"
                                      f"{s3.options}")  # fmt: skip
    assert pinned_studies.digest(remote) == pinned_studies.digest(local)  # the same output
    names = sorted(p.name for p in run_dir.iterdir())
    assert names == ["chunks", "hands", "manifest.json", "summary"]  # no lock, no marker
    assert len(list((run_dir / "hands").iterdir())) == 4
    assert_same_parts(Path(local["run_dir"]), run_dir)
    assert_same_tables(Path(local["run_dir"]), run_dir)
    loaded = [load_hands(d).collect().to_arrow() for d in (Path(local["run_dir"]), run_dir)]
    assert T.canonical_bytes(loaded[0]) == T.canonical_bytes(loaded[1])  # in the same order
    assert not Path("s3:").exists() and not (tmp_path / "s3:").exists()


class Stop(Exception):
    """The interruption of a run, after some chunks."""


def test_an_interrupted_run_resumes_from_s3(s3, tmp_path) -> None:
    """Stopped after 2 of 5 chunks; ``rummy run --resume URI`` plays the 3 others."""
    remote = config(s3.uri(s3.bucket()), count=1_500, chunk_size=300)

    def stop_after_two(p: Progress) -> None:
        if p.chunks_done >= 2:
            raise Stop

    with pytest.raises(Stop):
        run(remote, ONE, progress=stop_after_two)
    assert len(list((remote.run_dir / "chunks").iterdir())) == 2
    assert not (remote.run_dir / ".lock").exists()  # released by the stopped run
    done = cli("run", "--resume", str(remote.run_dir), "-w", "1")
    assert done.exit_code == 0, done.output
    assert "2 of 5 chunks were already done" in done.stdout and "3 chunks played" in done.stdout
    assert f"results: {remote.run_dir}\n" in done.stdout  # the URI as it is, no "/" after it
    clean = run(config(tmp_path, count=1_500, chunk_size=500), ONE)
    assert_same_tables(clean.run_dir, remote.run_dir)


@pytest.fixture(scope="module")
def finished(s3) -> Any:
    """A small finished run in the store."""
    return run(config(s3.uri(s3.bucket(), "read"), count=600, chunk_size=300), ONE).run_dir


def test_the_readers_read_a_run_in_s3(finished, tmp_path) -> None:
    """The loaders, ``rummy chart`` and ``rummy report`` take the run's URI."""
    hands = load_hands(finished).collect().height
    assert scan_hands(str(finished)).collect().height == hands == 600  # single deals
    assert load_results(str(finished)).summary.height == 1
    charts = cli("chart", str(finished), "--out", str(tmp_path / "charts"))
    assert charts.exit_code == 0, charts.output
    drawn = sorted(p.suffix for p in (tmp_path / "charts").iterdir())
    assert drawn == [".png", ".png", ".svg", ".svg"]
    report = cli("report", str(finished))  # by default beside the results: in the store
    assert report.exit_code == 0, report.output
    assert report.stdout.strip() == str(finished / "report.html")
    assert (finished / "report.html").read_bytes().startswith(b"<!DOCTYPE html>")


def test_a_file_uri_is_the_folder_it_names(tmp_path) -> None:
    done = ok(cli(*RUN, "--out", (tmp_path / "by uri").as_uri()))
    assert Path(done["run_dir"]).parent == tmp_path / "by uri" / "default"
    assert (Path(done["run_dir"]) / "manifest.json").is_file()


def test_a_store_path_is_its_uri_both_ways(s3) -> None:
    """The text of a path in the store is a URI that names the same object again (a Ray
    worker rebuilds it from the text, or from the pickled path)."""
    bucket = s3.bucket()
    uri = f"s3://{bucket}/with%20space/run?{s3.options}"
    path = store.location(uri)
    assert path.key == f"{bucket}/with space/run" and str(path) == uri
    assert store.location(str(path / "a.json")) == path / "a.json"
    assert pickle.loads(pickle.dumps(path)) == path
    store.write_json_atomic(path / "a.json", {"x": 1})
    assert json.loads(store.location(str(path / "a.json")).read_text()) == {"x": 1}
    assert [p.name for p in path.parent.iterdir()] == ["run"]


# --- what cannot be used -------------------------------------------------------------------


@pytest.mark.parametrize(
    ("uri", "why"),
    [
        ("gs2://bucket/x", "rummy cannot keep results in gs2://"),
        ("file://relative/x", "is not an absolute file URI"),
        ("s3://", "names no bucket"),
        ("s3://bucket/x?colour=blue", "unknown option 'colour' (the options: endpoint_override"),
    ],
)
def test_a_uri_that_cannot_be_used_is_one_line(uri, why, tmp_path, monkeypatch) -> None:
    monkeypatch.chdir(tmp_path)
    result = cli("run", "--seats", "greedy/simple", "--deals", "10", "--out", uri)
    one_line(result, 2, f"{uri!r}", why, "give a folder, file:///ABSOLUTE/PATH, or "
             "s3://BUCKET/PREFIX")  # fmt: skip
    assert list(tmp_path.iterdir()) == []


def test_a_missing_bucket_is_one_line_and_writes_nothing(s3, tmp_path, monkeypatch) -> None:
    monkeypatch.chdir(tmp_path)
    result = cli("run", "--seats", "greedy/simple", "--deals", "10",
                 "--out", s3.uri("no-such-bucket", "x"))  # fmt: skip
    one_line(
        result,
        1,
        "cannot create run directory s3://no-such-bucket/x/default/",
        f"no bucket 'no-such-bucket' at http://{s3.endpoint} (create it first: rummy makes "
        "no buckets)",
    )
    assert list(tmp_path.iterdir()) == []


def test_a_run_locked_by_another_host_is_refused(s3) -> None:
    """The lock object names its holder; a holder on another host is never overruled,
    one of this host whose process is gone is (it was killed)."""
    cfg = config(s3.uri(s3.bucket()), count=600, chunk_size=300)
    lock = cfg.run_dir / ".lock"
    lock.write_bytes(json.dumps({"host": "elsewhere", "pid": 1, "token": "x"}).encode())
    with pytest.raises(RunError) as caught:
        run(cfg, ONE)
    assert str(caught.value) == (
        f"{cfg.run_dir} is in use by another rummy process (host elsewhere pid 1; if none "
        f"is playing it any more, delete {lock} and run again)"
    )
    assert not (cfg.run_dir / "manifest.json").exists()
    gone = subprocess.run([sys.executable, "-c", "import os; print(os.getpid())"],
                          capture_output=True, text=True, check=True)  # fmt: skip
    dead = {"host": socket.gethostname(), "pid": int(gone.stdout), "token": "y"}
    lock.write_bytes(json.dumps(dead).encode())
    assert run(cfg, ONE).chunks_run == 2
    assert not lock.exists()


# --- the other studies ---------------------------------------------------------------------


def _into_store(cli_: Any, uri: str) -> Any:
    """The pinned command lines with ``--out`` in the object store."""

    def call(args: list[str]) -> dict[str, Any]:
        args = list(args)
        if "--out" in args:
            args[args.index("--out") + 1] = uri
        return cli_(args)  # type: ignore[no-any-return]

    return call


@pytest.mark.slow  # heavy; the default suite covers this path more cheaply
def test_a_sweep_into_s3_gives_the_pinned_output(s3, tmp_path, monkeypatch) -> None:
    """A sweep (an experiment: its runs, tables and record in the store): its ``--json``
    output is the pinned one, recorded with local folders; its tables read back."""
    uri = s3.uri(s3.bucket(), "studies")
    monkeypatch.setattr(pinned_studies, "cli", _into_store(pinned_studies.cli, uri))
    want = json.loads(pinned_studies.PINNED.read_text())["sweep"]
    assert pinned_studies.play("sweep", tmp_path, want)["json"] == want["json"]
    root = store.location(uri)
    assert [p.name for p in root.iterdir()] == ["sweep"]
    assert load_results(str(root / "sweep")).summary.height == 4
    report = cli("report", str(root / "sweep"))  # beside the experiment, in the store
    assert report.exit_code == 0, report.output
    assert (root / "sweep" / "report.html").read_bytes().startswith(b"<!DOCTYPE html>")
    again = cli("run", "--resume", str(root / "sweep"), "-w", "1", "--json")
    assert again.exit_code == 0, again.output
    resumed = json.loads(again.stdout)
    assert resumed["hands_played"] == 0  # finished: nothing left to play; the same results
    # the sweep command's record says its seed was not drawn; a resume's never draws one
    finished = {**resumed, "hands_played": 4_000, "seed_drawn": False}
    assert pinned_studies.digest(finished) == want["json"]


def test_a_study_in_s3_is_read_per_player_and_replaced_only_by_force(s3) -> None:
    """scan_players reads a study in the store; another study of the same name is
    refused there, and --force deletes the first one's objects."""
    uri = s3.uri(s3.bucket(), "named")
    sweep = ["sweep", "--seats", "greedy:knock_at={k}/simple", "--deals", "40", "--seed", "2",
             "--name", "mine", "--out", uri, "-w", "1"]  # fmt: skip
    ok(cli(*sweep, "--grid", "k=2,8", "--json"))
    folder = store.location(uri) / "mine"
    first = {p.name for p in folder.glob("*") if (p / "manifest.json").exists()}
    players = scan_players(str(folder)).collect()
    assert players.height == 2 * 2 * 40 and set(players["player"]) == {0, 1}
    one_line(cli(*sweep, "--grid", "k=3"), 1, "holds another study")
    ok(cli(*sweep, "--grid", "k=3", "--force", "--json"))
    now = {p.name for p in folder.glob("*") if (p / "manifest.json").exists()}
    assert len(now) == 1 and not now & first


def test_a_tune_into_s3_gives_the_pinned_output(s3) -> None:
    """The pinned tune's command line with ``--out`` in the store: its output."""
    uri = s3.uri(s3.bucket(), "studies")
    data = ok(cli("tune", "greedy", "--param", "knock_at=5..8", "--against", "simple",
                  "--deals", "400", "--confirm", "400", "--seed", "4", "--out", uri, "-w", "1",
                  "--json"))  # fmt: skip
    want = json.loads(pinned_studies.PINNED.read_text())["tune"]
    assert pinned_studies.digest(data) == want["json"]
    (tune_dir,) = (store.location(uri) / "tune").iterdir()
    assert (tune_dir / "settings.parquet").is_file()


@pytest.mark.parametrize(
    "name",
    [
        "experiment_games",
        "compare",
        pytest.param("tournament", marks=pytest.mark.slow),
        pytest.param("experiment", marks=pytest.mark.slow),
        pytest.param("compare_rules", marks=pytest.mark.slow),
    ],
)
def test_more_studies_into_s3_give_the_pinned_output(name, s3, tmp_path, monkeypatch) -> None:
    """An experiment file, a comparison, a tournament with ``--out`` in the store: their
    pinned ``--json`` output, and nothing outside the store."""
    uri = s3.uri(s3.bucket(), "studies")
    monkeypatch.setattr(pinned_studies, "cli", _into_store(pinned_studies.cli, uri))
    want = json.loads(pinned_studies.PINNED.read_text())[name]
    assert pinned_studies.play(name, tmp_path, want)["json"] == want["json"]
    assert list(store.location(uri).iterdir())  # written there
    assert not (tmp_path / "out").exists()  # not in the folder the pinned case names


def test_a_knock_chart_into_s3(s3, tmp_path) -> None:
    """``rummy strategy-chart knock --out s3://...``: the local chart's cells."""
    small = {"deals": 240, "seed": 4, "samples": 2, "per_cell": 1, "pilot": 240,
             "chunk_size": 120, "executor": ONE}  # fmt: skip
    local = knock_chart("gin", "greedy:knock_at=0", out=tmp_path, **small)
    remote = knock_chart("gin", "greedy:knock_at=0", out=s3.uri(s3.bucket()), **small)
    assert isinstance(remote.run_dir, RemotePath)
    assert remote.cells.equals(local.cells)
    assert load_cells(remote.run_dir).equals(load_cells(local.run_dir))
    report = cli("report", str(remote.run_dir))  # the chart's own report, in the store
    assert report.exit_code == 0, report.output
    assert (remote.run_dir / "report.html").read_bytes().startswith(b"<!DOCTYPE html>")


@pytest.mark.parametrize(
    ("credentials", "why"),
    [
        ({}, "internal failure"),  # moto's answer to a listing without a signature
        ({"AWS_ACCESS_KEY_ID": "wrong", "AWS_SECRET_ACCESS_KEY": "wrong"},
         "does not exist in our records. (check the credentials in this environment, e.g. "
         "AWS_ACCESS_KEY_ID)"),
    ],
    ids=["none", "wrong"],
)  # fmt: skip
def test_refused_credentials_are_one_line(credentials, why, tmp_path) -> None:
    """A store that checks who asks (moto with its IAM checks on, in a process of its
    own), and no credentials or wrong ones here: one line (from the first look into the
    store, ``--out``'s check), nothing written."""
    pytest.importorskip("moto.server")
    server = subprocess.Popen(
        [sys.executable, "-c", "import sys; from moto.server import ThreadedMotoServer as S; "
         "s = S(ip_address='127.0.0.1', port=0, verbose=False); s.start(); "
         "print('%s:%s' % s.get_host_and_port(), flush=True); sys.stdin.read()"],
        env={**os.environ, "INITIAL_NO_AUTH_ACTION_COUNT": "0"}, stdin=subprocess.PIPE,
        stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True,
    )  # fmt: skip
    try:
        endpoint = server.stdout.readline().strip()  # type: ignore[union-attr]
        env = {k: v for k, v in os.environ.items() if not k.startswith("AWS_")}
        env.update(AWS_EC2_METADATA_DISABLED="true", **credentials)
        done = subprocess.run(
            [sys.executable, "-c", "from sim.cli import app; app()", "run", "--seats",
             "greedy/simple", "--deals", "10", "--out",
             f"s3://bucket/x?endpoint_override={endpoint}&scheme=http&region=us-east-1"],
            env=env, capture_output=True, text=True, timeout=120, check=False, cwd=tmp_path,
        )  # fmt: skip
    finally:
        server.stdin.close()  # type: ignore[union-attr]
        server.wait(timeout=30)
        server.stdout.close()  # type: ignore[union-attr]
    assert done.returncode == 1, done.stderr
    err = done.stderr.strip()
    assert err.count("\n") == 0 and err.startswith("error: s3://bucket/x?endpoint_override="), err
    assert err.endswith(why), err
    assert list(tmp_path.iterdir()) == []
