"""Where ``--out`` may write: a folder, ``file://`` or ``s3://``, never a run's own files.

Through typer's CliRunner, as a user types them: another scheme (``gs://``, ``hdfs://``,
``ftp://``) is one line before anything starts; credentials in a URI are refused and
masked in the message; an S3 store that refuses the connection or does not answer is
named by its endpoint within seconds (a closed port and a silent listener on loopback:
nothing listens beyond it); an ``--out`` of any command onto a run's or a study's own
files (manifest, chunk records, parts, records, tables) is refused with every byte of
the folder unchanged and no temporary left; ``report --out /`` (``.``, ``''``, ``dir/``)
is one line, never a traceback.
"""

from __future__ import annotations

import hashlib
import json
import socket
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from sim import remote, store
from sim.cli import app
from strategies.chart_files import load_chart_file
from tests.support.cli import one_line
from tests.support.object_store import CREDENTIALS, s3_server

SMALL = ["--deals", "200", "--seed", "3", "-w", "1"]
KNOCK = ["strategy-chart", "knock", "--rules", "gin", "--seats", "greedy:knock_at=0",
         "--samples", "2", "--min-positions", "5", *SMALL]  # fmt: skip
SWEEP = ["sweep", "--seats", "greedy:knock_at={k}/simple", "--grid", "k=3,9", "--name", "sweep",
         *SMALL]  # fmt: skip


def cli(*args: str) -> Any:
    return CliRunner().invoke(app, list(args))


def digests(folder: Path) -> dict[str, str]:
    """Every file under ``folder`` (hidden ones too) and the sha256 of its bytes."""
    return {
        str(p.relative_to(folder)): hashlib.sha256(p.read_bytes()).hexdigest()
        for p in sorted(folder.rglob("*"))
        if p.is_file()
    }


@pytest.fixture(scope="module")
def results(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    """A finished knock chart's run folder and a finished sweep's study folder."""
    root = tmp_path_factory.mktemp("results")
    chart = cli(*KNOCK, "--out", str(root), "--json")
    assert chart.exit_code == 0, chart.output
    sweep = cli(*SWEEP, "--out", str(root), "--json")
    assert sweep.exit_code == 0, sweep.output
    return {"root": root, "run": Path(json.loads(chart.stdout)["run_dir"]), "study": root / "sweep"}


@pytest.fixture
def aws(monkeypatch: pytest.MonkeyPatch) -> None:
    """Fake credentials, as pyarrow reads them, and no wait for the EC2 metadata service."""
    for key, value in CREDENTIALS.items():
        monkeypatch.setenv(key, value)


# --- schemes and credentials -----------------------------------------------------------------


@pytest.mark.parametrize("uri", ["gs://bucket/x", "hdfs://namenode:8020/x", "ftp://host/x",
                                 "gcs://bucket/x", "://x"])  # fmt: skip
def test_another_scheme_is_one_line_before_anything(uri, tmp_path, monkeypatch) -> None:
    """pyarrow would look for GCS credentials (minutes) or a JVM: refused before it runs."""
    monkeypatch.chdir(tmp_path)
    start = time.monotonic()
    for args in (
        ["run", "--seats", "greedy/simple", "--deals", "20", "--out", uri],
        ["report", uri],
        ["chart", "results", "--out", uri],
        ["run", "--resume", uri],
    ):
        one_line(cli(*args), 2, f"{uri!r}: rummy cannot keep results in",
                 "give a folder, file:///ABSOLUTE/PATH, or s3://BUCKET/PREFIX")  # fmt: skip
    assert time.monotonic() - start < 10
    assert list(tmp_path.iterdir()) == []


@pytest.mark.parametrize(
    ("uri", "shown"),
    [
        ("s3://AKIAKEY:SEKRIT@bucket/x", "s3://***@bucket/x"),
        ("s3://bucket/x?secret_key=SEKRIT&access_key=AKIAKEY", "?secret_key=***&access_key=***"),
        ("s3://bucket/x?region=eu-west-1&session_token=SEKRIT", "&session_token=***"),
        ("ftp://user:SEKRIT@host/x", "ftp://***@host/x"),
        ("gs://bucket/x?password=SEKRIT", "?password=***"),
    ],
)
def test_credentials_in_a_uri_are_refused_and_masked(uri, shown, tmp_path, monkeypatch) -> None:
    """A URI is printed and stored in every manifest: one that carries credentials is
    refused, and no message shows them."""
    monkeypatch.chdir(tmp_path)
    result = cli("run", "--seats", "greedy/simple", "--deals", "20", "--out", uri)
    err = one_line(result, 2, shown)
    assert "SEKRIT" not in result.output and "AKIAKEY" not in result.output, err
    assert list(tmp_path.iterdir()) == []


def test_mask_hides_every_credential() -> None:
    assert remote.mask("s3://a:b@bucket/x?region=r&secret_key=s&SessionToken=t") == (
        "s3://***@bucket/x?region=r&secret_key=***&SessionToken=***"
    )
    assert remote.mask("s3://bucket/x?endpoint_override=h:9&scheme=http") == (
        "s3://bucket/x?endpoint_override=h:9&scheme=http"
    )


@pytest.mark.parametrize(
    ("query", "why"),
    [
        ("timeout=0", "timeout='0': give seconds, above 0, at most 3600"),
        ("timeout=nan", "timeout='nan': give seconds"),
        ("scheme=ftp", "scheme='ftp': give http or https"),
        ("region=a&region=b", "option 'region' given twice"),
        ("endpoint_override=", "option 'endpoint_override' has no value"),
    ],
)
def test_an_option_that_cannot_be_used_is_one_line(query, why, tmp_path, monkeypatch) -> None:
    monkeypatch.chdir(tmp_path)
    one_line(cli("run", "--seats", "greedy/simple", "--out", f"s3://b/x?{query}"), 2, why)
    assert list(tmp_path.iterdir()) == []


# --- a store that does not answer ------------------------------------------------------------


@pytest.fixture
def silent() -> Iterator[int]:
    """A port on loopback that accepts connections and never answers."""
    with socket.socket() as listener:
        listener.bind(("127.0.0.1", 0))
        listener.listen(64)
        yield listener.getsockname()[1]


def closed_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]  # type: ignore[no-any-return]


def test_a_store_nobody_listens_at_is_one_line_at_once(aws, tmp_path, monkeypatch) -> None:
    monkeypatch.chdir(tmp_path)
    port = closed_port()
    uri = f"s3://bucket/x?endpoint_override=127.0.0.1:{port}&scheme=http"
    start = time.monotonic()
    result = cli("run", "--seats", "greedy/simple", "--deals", "20", "--out", uri)
    assert time.monotonic() - start < 10
    one_line(result, 1, f"error: {uri}: the store is unreachable "
             f"(endpoint http://127.0.0.1:{port}): cannot connect")  # fmt: skip
    assert list(tmp_path.iterdir()) == []


def test_a_silent_store_is_named_within_its_timeout(aws, silent, tmp_path, monkeypatch) -> None:
    """Not "no bucket", not minutes: the endpoint and the time it had (one retry)."""
    monkeypatch.chdir(tmp_path)
    uri = f"s3://bucket/x?endpoint_override=127.0.0.1:{silent}&scheme=http&timeout=1"
    start = time.monotonic()
    result = cli("report", uri)
    assert time.monotonic() - start < 8
    one_line(result, 1, f"error: {uri}: the store did not answer within 1 s "
             f"(endpoint http://127.0.0.1:{silent})")  # fmt: skip
    start = time.monotonic()
    result = cli("run", "--seats", "greedy/simple", "--deals", "20", "--out", uri)
    assert time.monotonic() - start < 8
    one_line(result, 1, f"error: {uri}: the store did not answer within 1 s "
             f"(endpoint http://127.0.0.1:{silent})")  # fmt: skip
    assert list(tmp_path.iterdir()) == []


@pytest.mark.slow  # the default timeout, twice: about 11 s
def test_a_silent_store_by_default_fails_in_seconds(aws, silent, tmp_path, monkeypatch) -> None:
    monkeypatch.chdir(tmp_path)
    uri = f"s3://bucket/x?endpoint_override=127.0.0.1:{silent}&scheme=http"
    start = time.monotonic()
    result = cli("run", "--seats", "greedy/simple", "--deals", "20", "--out", uri)
    assert time.monotonic() - start < 4 * remote.TIMEOUT
    one_line(result, 1, f"the store did not answer within {remote.TIMEOUT:g} s")


# --- never over a run's or a study's own files -------------------------------------------------


def test_the_names_are_those_the_study_modules_write() -> None:
    """``sim.store`` keeps the names itself (importing the writers would load numba)."""
    from sim.study import compare, design, rundir, solve, tournament, tune

    assert set(store.RECORD_NAMES) == {
        rundir.MANIFEST, design.EXPERIMENT_JSON, compare.COMPARISON_FILE,
        tournament.TOURNAMENT_FILE, tune.TUNE_FILE, tune.REQUEST_FILE, solve.SOLVE_FILE,
    }  # fmt: skip
    assert store.RUN_MANIFEST == rundir.MANIFEST
    assert {rundir.CHUNKS, *rundir.TABLES, ".lock", solve.FINAL_FILE} == store.OWN_NAMES


REFUSED = [
    ("report", "{run}", "--out", "{run}/manifest.json"),
    ("report", "{run}", "--out", "{run}/chunks/chunk-000000.json"),
    ("report", "{run}", "--out", "{run}/cells/x.html"),
    ("report", "{run}", "--out", "{run}/check.json"),
    ("report", "{study}", "--out", "{study}/experiment.json"),
    ("report", "{study}", "--out", "{study}/summary.parquet"),
    ("report", "{study}", "--out", "{root}/sweep/../sweep/seats.parquet"),
    ("chart", "{run}", "--out", "{run}/chunks"),
    ("chart", "{study}", "--out", "{study}/summary.parquet"),
    ("strategy-chart", "export", "{run}", "--out", "{run}/manifest.json"),
    ("strategy-chart", "export", "{run}", "--out", "{run}/.lock"),
    ("run", "--seats", "greedy/simple", "--deals", "20", "--out", "{run}"),
    ("run", "--seats", "greedy/simple", "--deals", "20", "--out", "{run}/more"),
    ("sweep", "--seats", "greedy:knock_at={{k}}/simple", "--grid", "k=1,2", "--deals", "20",
     "--out", "{study}/experiment.json"),
    ("tournament", "--strategies", "greedy,simple", "--deals", "20", "--out", "{run}/x"),
]  # fmt: skip


@pytest.mark.parametrize("args", REFUSED, ids=lambda a: " ".join(a))
def test_an_out_onto_a_runs_own_files_is_refused(args, results) -> None:
    """One line naming the folder; every byte of the results unchanged, no temporary."""
    before = digests(results["root"])
    argv = [a.format(**{k: str(v) for k, v in results.items()}) for a in args]
    result = cli(*argv)
    err = one_line(result, 1)
    assert "rummy never writes over a run's or a study's own files" in err or (
        "a results root holds runs, not the other way round" in err
    ), err
    assert digests(results["root"]) == before
    assert not list(results["root"].rglob("*.tmp"))


def test_the_default_outputs_beside_the_records_stay_allowed(results, tmp_path) -> None:
    """``rummy report RUN`` (RUN/report.html), ``--out`` elsewhere in the folder, a root
    beside the runs."""
    run, study = results["run"], results["study"]
    assert cli("report", str(run)).exit_code == 0
    mine = cli("report", str(study), "--out", str(study / "mine.html"))
    assert mine.exit_code == 0, mine.output
    assert (study / "mine.html").read_bytes().startswith(b"<!DOCTYPE html>")
    spec = cli("strategy-chart", "export", str(run), "--out", str(tmp_path / "gin.chart"))
    assert spec.exit_code == 0, spec.output
    written = load_chart_file(tmp_path / "gin.chart")  # the rules' header, then the spec
    assert written.spec.startswith("chart:") and written.header["players"] == "2"


def test_export_into_a_folder_leaves_nothing(results, tmp_path) -> None:
    """The seat spec onto a folder: one line, and no ``DIR.tmp`` beside it."""
    folder = tmp_path / "specs"
    folder.mkdir()
    result = cli("strategy-chart", "export", str(results["run"]), "--out", str(folder))
    one_line(result, 1, f"--out: cannot write {folder}: it is a folder; give a file's name")
    assert [p.name for p in tmp_path.iterdir()] == ["specs"]
    assert list(folder.iterdir()) == []


# --- report --out / ------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("out", "status", "why"),
    [
        ("/", 2, "'/' names a folder; give the file to write"),
        ("some/dir/", 2, "'some/dir/' names a folder; give the file to write"),
        ("", 2, "empty text; give a path"),
        (".", 1, "cannot write .: it is a folder; give a file's name"),
        ("..", 1, "cannot write ..: it is a folder; give a file's name"),
    ],
)
def test_report_out_a_folder_is_one_line(out, status, why, results, tmp_path, monkeypatch) -> None:
    """Was a traceback (``PosixPath('/') has an empty name``, exit 3)."""
    monkeypatch.chdir(tmp_path)
    (tmp_path / "some" / "dir").mkdir(parents=True)
    one_line(cli("report", str(results["run"]), "--out", out), status, why)
    assert [p.name for p in tmp_path.rglob("*")] == ["some", "dir"]


def test_chart_out_empty_is_one_line(results) -> None:
    one_line(cli("chart", str(results["study"]), "--out", ""), 2, "empty text; give a path")


# --- in an object store ------------------------------------------------------------------------


def test_an_out_onto_a_runs_files_in_s3_is_refused() -> None:
    """The same check in the store: the run's manifest stays as it was."""
    with s3_server() as s3:
        done = cli("run", "--seats", "greedy/simple", *SMALL, "--out",
                   s3.uri(s3.bucket(), "r"), "--json")  # fmt: skip
        assert done.exit_code == 0, done.output
        run_dir = store.location(json.loads(done.stdout)["run_dir"])
        manifest = (run_dir / "manifest.json").read_bytes()
        one_line(cli("report", str(run_dir), "--out", str(run_dir / "manifest.json")), 1,
                 "is the run's own manifest.json")  # fmt: skip
        one_line(cli("run", "--seats", "greedy/simple", "--deals", "20", "--out",
                     str(run_dir / "chunks")), 1, "is inside the run folder")  # fmt: skip
        assert (run_dir / "manifest.json").read_bytes() == manifest
        assert cli("report", str(run_dir), "--out", str(run_dir / "r.html")).exit_code == 0
