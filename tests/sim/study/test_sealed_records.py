"""Every JSON record carries its own digest, and every reader checks it.

Small real studies are played through the command line (a run, a sweep, a comparison,
a tournament, a tune, a strategy chart with its check); then each record is damaged
the way a hand or a disk can: an edit that keeps the JSON valid (a number changed) and
single bytes flipped at several offsets. Every reader (``rummy report``, the loaders,
``rummy run --resume``) must refuse the damaged record with exit 1 and one line naming
it, and leave everything on disk as it was. A record written without a digest (by an
older version) is refused the same way, and a sealed record reads back equal to what
was written.
"""

from __future__ import annotations

import json
import shutil
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from typer.testing import CliRunner

from sim import store
from sim.cli import app
from sim.study import records, rundir, runs, solve
from sim.study.chart import load_chart
from sim.study.compare import COMPARISON_FILE, COMPARISON_KIND, load_comparison
from sim.study.execute import Executor
from sim.study.experiment_store import EXPERIMENT_KIND, load_results, scan_hands
from sim.study.records import RecordError, read_sealed, write_sealed
from sim.study.runs import RunError
from sim.study.session import Session
from sim.study.tables import ResultsError
from sim.study.tournament import TOURNAMENT_FILE, TOURNAMENT_KIND
from sim.study.tune import REQUEST_FILE, TUNE_FILE, load_tune
from sim.study.tune import resume as resume_tune

REFUSALS = (RecordError, RunError, ResultsError)


def cli(*args: str) -> Any:
    return CliRunner().invoke(app, list(args))


def ok(*args: str) -> dict[str, Any]:
    result = cli(*args, "--json")
    assert result.exit_code == 0, result.output
    return json.loads(result.stdout)  # type: ignore[no-any-return]


def one_line(result: Any, *expected: str) -> None:
    """Exit 1 and one line on stderr, naming what is expected; no traceback."""
    assert result.exit_code == 1, result.output
    assert "Traceback" not in result.output
    err = result.stderr.strip()
    assert err.count("\n") == 0 and err.startswith("error: "), err
    for text in expected:
        assert text in err, err


def snapshot(folder: Path) -> dict[str, bytes]:
    """Every file under ``folder`` (hidden lock files aside), by its path."""
    return {
        str(p.relative_to(folder)): p.read_bytes()
        for p in sorted(folder.rglob("*"))
        if p.is_file() and not p.name.startswith(".")
    }


def edited(path: Path, old: str, new: str) -> None:
    """Replace the first ``old`` in a record by ``new``: valid JSON, another value."""
    text = path.read_text()
    assert old in text, old
    path.write_text(text.replace(old, new, 1))


def flips(path: Path, n: int = 6) -> Iterator[int]:
    """Flip the low bit of ``n`` non-blank bytes spread over the file, one at a time
    (yielding each offset while the file is damaged), then restore it."""
    clean = path.read_bytes()
    offsets = [i for i, b in enumerate(clean) if not chr(b).isspace()]
    for offset in offsets[:: max(1, len(offsets) // n)][:n]:
        damaged = bytearray(clean)
        damaged[offset] ^= 0x01
        path.write_bytes(bytes(damaged))
        yield offset
    path.write_bytes(clean)


def refused_everywhere(
    path: Path, readers: dict[str, Callable[[], Any]], commands: list[list[str]], root: Path
) -> None:
    """Each reader raises one line naming ``path``; each command exits 1 with one line
    naming it; nothing under ``root`` changes."""
    before = snapshot(root)
    for name, read in readers.items():
        with pytest.raises(REFUSALS) as caught:
            read()
        message = str(caught.value)
        assert "\n" not in message and str(path) in message, (name, message)
    for command in commands:
        one_line(cli(*command), str(path))
    assert snapshot(root) == before


# --- the seal itself ------------------------------------------------------------------------

JSON_VALUES = st.recursive(
    st.none()
    | st.booleans()
    | st.integers(min_value=-(2**70), max_value=2**70)
    | st.floats(allow_nan=False, allow_infinity=False)
    | st.text(),
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(), inner, max_size=4),
    max_leaves=20,
)


@settings(max_examples=150, deadline=None)
@given(value=st.dictionaries(st.text().filter(lambda k: k != records.SEAL), JSON_VALUES))
def test_a_sealed_record_reads_back_equal(tmp_path_factory, value) -> None:
    # The reader recomputes the digest from the values it parsed: that text must be the
    # text the writer hashed, floats included (json writes each float's shortest repr).
    text = store.dumps(value, indent=None)
    assert store.dumps(json.loads(text), indent=None) == text
    path = tmp_path_factory.mktemp("seal") / "record.json"
    write_sealed(path, value)
    assert read_sealed(path, "rebuild it") == value


def test_the_seal_is_a_digest_of_the_content(tmp_path) -> None:
    path = tmp_path / "r.json"
    value = {"deals": 4000, "nan": float("nan"), "x": [0.1, 1e-300, -0.0]}
    write_sealed(path, value)
    stored = json.loads(path.read_text())
    assert stored[records.SEAL] == records.seal_of(stored) == records.seal_of(value)
    assert read_sealed(path, "") == {"deals": 4000, "nan": None, "x": [0.1, 1e-300, -0.0]}
    assert records.SEAL not in value  # the caller's dict is left alone
    edited(path, '"deals": 4000', '"deals": 5000')
    with pytest.raises(RecordError, match=r"r.json: its digest does not match its content"):
        read_sealed(path, "play it again")


def test_a_record_without_a_digest_is_refused(tmp_path) -> None:
    """A record written by an older version (no digest) is refused, and says so."""
    path = tmp_path / "old.json"
    store.write_json_atomic(path, {"kind": "rummy-tune", "format_version": 1})
    with pytest.raises(RecordError, match=r"old.json has no digest \(written by an older"):
        records.load_record(path, "rummy-tune")
    with pytest.raises(RecordError, match=r"old.json has no digest.*; run the command"):
        read_sealed(path, "run the command that made it again")


def test_the_identity_keys_are_all_of_a_configs_identity(tmp_path) -> None:
    config = runs.RunConfig(rules="gin", lineup=("greedy", "simple"), count=10, seed=1,
                            out=tmp_path, labels={"k": 5})  # fmt: skip
    assert set(runs.IDENTITY_KEYS) == set(config.identity())
    stored = json.loads(store.dumps(config.to_dict()))  # as a manifest holds it
    assert runs.stored_hash(stored) == config.config_hash
    stored["seed"] = 2
    assert runs.stored_hash(stored) != config.config_hash


def test_the_solve_record_is_sealed(tmp_path) -> None:
    solve._write(tmp_path, {"rounds": 2}, [], None)
    assert read_sealed(tmp_path / solve.SOLVE_FILE, "") == {"rounds": [], "settings": {"rounds": 2}}


# --- a run: its manifest and chunk records --------------------------------------------------


@pytest.fixture(scope="module")
def played_run(tmp_path_factory) -> Path:
    out = tmp_path_factory.mktemp("run")
    done = ok("run", "--rules", "gin", "--seats", "greedy/simple", "--deals", "400", "--seed",
              "3", "--chunk-size", "200", "--out", str(out), "-w", "1")  # fmt: skip
    return Path(done["run_dir"])


@pytest.fixture
def run_dir(played_run, tmp_path) -> Path:
    """A copy of the played run, to damage."""
    copy = tmp_path / "out" / played_run.parent.name / played_run.name
    shutil.copytree(played_run, copy)
    return copy


def run_readers(run_dir: Path) -> dict[str, Callable[[], Any]]:
    return {
        "load_hands": lambda: rundir.load_hands(run_dir),
        "load_summary": lambda: rundir.load_summary(run_dir),
        "load_manifest": lambda: rundir.load_manifest(run_dir),
        "load_results": lambda: load_results(run_dir),
        "scan_hands": lambda: scan_hands(run_dir),
    }


def run_commands(run_dir: Path) -> list[list[str]]:
    return [["report", str(run_dir), "--out", str(run_dir.parent / "r.html")],
            ["run", "--resume", str(run_dir), "-w", "1"]]  # fmt: skip


def test_an_edited_manifest_is_refused(run_dir) -> None:
    manifest = run_dir / rundir.MANIFEST
    edited(manifest, '"gin_bonus": 25', '"gin_bonus": 35')
    refused_everywhere(manifest, run_readers(run_dir), run_commands(run_dir), run_dir.parent)
    one_line(cli("report", str(run_dir)), "its digest does not match its content",
             f"delete {run_dir} and play the run again")  # fmt: skip


def test_a_manifest_with_a_flipped_byte_is_refused(run_dir) -> None:
    manifest = run_dir / rundir.MANIFEST
    for _ in flips(manifest):
        refused_everywhere(manifest, run_readers(run_dir), run_commands(run_dir), run_dir.parent)
    assert rundir.load_hands(run_dir).collect().height == 400  # restored: read again


def test_a_resealed_manifest_must_match_its_config_hash(run_dir) -> None:
    """Sealed again after an edit, the manifest's config no longer has its config hash."""
    manifest = run_dir / rundir.MANIFEST
    data = read_sealed(manifest, "")
    data["config"]["seed"] = 4
    write_sealed(manifest, data)
    refused_everywhere(manifest, run_readers(run_dir), run_commands(run_dir), run_dir.parent)
    one_line(cli("report", str(run_dir)), "does not match its own config hash")


def test_an_unsealed_manifest_is_refused(run_dir) -> None:
    manifest = run_dir / rundir.MANIFEST
    store.write_json_atomic(manifest, read_sealed(manifest, ""))  # as an older version wrote
    refused_everywhere(manifest, run_readers(run_dir), run_commands(run_dir), run_dir.parent)
    one_line(cli("report", str(run_dir)), "has no digest (written by an older rummy-sim")


def test_a_damaged_chunk_record_is_named_then_played_again(run_dir) -> None:
    record = run_dir / "chunks" / "chunk-000001.json"
    readers = {k: v for k, v in run_readers(run_dir).items() if k != "load_manifest"}
    report = [["report", str(run_dir), "--out", str(run_dir.parent / "r.html")]]
    clean = rundir.load_hands(run_dir).collect()
    text = record.read_text()
    edited(record, '"hands": 200', '"hands": 201')
    refused_everywhere(record, readers, report, run_dir.parent)
    record.write_text(text)
    for _ in flips(record):
        refused_everywhere(record, readers, report, run_dir.parent)
    edited(record, '"hands": 200', '"hands": 199')
    one_line(cli(*report[0]), "its digest does not match", f"rummy run --resume {run_dir}")
    again = cli("run", "--resume", str(run_dir), "-w", "1", "--json")
    assert again.exit_code == 0, again.output
    assert json.loads(again.stdout)["chunks_run"] == 1
    assert rundir.load_hands(run_dir).collect().equals(clean)


# --- a sweep: experiment.json, and resume ---------------------------------------------------


@pytest.fixture(scope="module")
def played_sweep(tmp_path_factory) -> Path:
    out = tmp_path_factory.mktemp("sweep")
    ok("sweep", "--seats", "greedy:knock_at={k}/simple", "--grid", "k=5,8", "--deals", "300",
       "--seed", "3", "--out", str(out), "-w", "1", "--name", "sweep")  # fmt: skip
    return out / "sweep"


@pytest.fixture
def sweep_dir(played_sweep, tmp_path) -> Path:
    copy = tmp_path / "out" / played_sweep.name
    shutil.copytree(played_sweep, copy)
    return copy


def sweep_readers(directory: Path) -> dict[str, Callable[[], Any]]:
    return {
        "load_results": lambda: load_results(directory),
        "load_results (a table)": lambda: load_results(directory / "summary.parquet"),
        "scan_hands": lambda: scan_hands(directory),
        "load_record": lambda: records.load_record(
            directory / "experiment.json", EXPERIMENT_KIND, finished=False
        ),
    }


def sweep_commands(directory: Path) -> list[list[str]]:
    return [["report", str(directory), "--out", str(directory.parent / "r.html")],
            ["run", "--resume", str(directory), "-w", "1"]]  # fmt: skip


def test_resume_never_plays_an_edited_experiment(sweep_dir) -> None:
    """``"deals": 300`` made 400: resume would play another experiment; it is refused."""
    record = sweep_dir / "experiment.json"
    edited(record, '"deals": 300', '"deals": 400')
    refused_everywhere(record, sweep_readers(sweep_dir), sweep_commands(sweep_dir),
                       sweep_dir.parent)  # fmt: skip
    one_line(cli("run", "--resume", str(sweep_dir)), "its digest does not match its content",
             "run the command that made it again")  # fmt: skip


def test_an_experiment_record_with_a_flipped_byte_is_refused(sweep_dir) -> None:
    record = sweep_dir / "experiment.json"
    for _ in flips(record, n=8):
        refused_everywhere(record, sweep_readers(sweep_dir), sweep_commands(sweep_dir),
                           sweep_dir.parent)  # fmt: skip
    assert load_results(sweep_dir).summary.height > 0  # restored: read again


def test_resume_checks_every_runs_manifest_before_it_writes(sweep_dir) -> None:
    manifest = sorted(sweep_dir.glob(f"*/{rundir.MANIFEST}"))[1]
    edited(manifest, '"seed": 3', '"seed": 4')
    # (the report reads the experiment's own tables, checked by experiment.json)
    refused_everywhere(manifest, {"scan_hands": lambda: scan_hands(sweep_dir)},
                       [["run", "--resume", str(sweep_dir), "-w", "1"]],
                       sweep_dir.parent)  # fmt: skip


# --- comparison, tournament, tune, and a chart's check ------------------------------------


@pytest.fixture(scope="module")
def studies(tmp_path_factory) -> Path:
    out = tmp_path_factory.mktemp("studies")
    common = ["--deals", "200", "--out", str(out), "-w", "1"]
    ok("compare", "--rules", "gin", "--seats", "greedy/simple", "--vs-seats", "simple/simple",
       "--seed", "5", *common)  # fmt: skip
    ok("tournament", "-s", "greedy,simple", "--rules", "gin", "--seed", "2", *common)
    ok("tune", "greedy", "--param", "knock_at=5..6", "--against", "simple", "--confirm", "200",
       "--seed", "4", *common)  # fmt: skip
    return out


@pytest.fixture
def study_copy(studies, tmp_path) -> Path:
    copy = tmp_path / "out"
    shutil.copytree(studies, copy)
    return copy


def test_comparison_and_tournament_records_are_checked(study_copy) -> None:
    (compare,) = study_copy.glob(f"compare/*/{COMPARISON_FILE}")
    (tournament,) = study_copy.glob(f"tournament/*/{TOURNAMENT_FILE}")
    assert load_comparison(compare.parent)["kind"] == COMPARISON_KIND
    readers = {
        compare: lambda: load_comparison(compare.parent),
        tournament: lambda: records.load_record(tournament, TOURNAMENT_KIND),
    }
    for path, read in readers.items():
        text = path.read_text()
        edited(path, '"seed": ', '"seed": 1')  # 5 -> 15, 2 -> 12
        refused_everywhere(path, {"load": read}, [], study_copy)
        path.write_text(text)
        for _ in flips(path):
            refused_everywhere(path, {"load": read}, [], study_copy)
        assert records.SEAL not in read()  # the digest stays in the file


def test_tune_records_are_checked(study_copy) -> None:
    (tune,) = study_copy.glob(f"tune/*/{TUNE_FILE}")
    request = tune.parent / REQUEST_FILE
    edited(tune, '"seed": 4', '"seed": 5')
    refused_everywhere(tune, {"load_tune": lambda: load_tune(tune.parent)}, [], study_copy)
    for _ in flips(request):
        refused_everywhere(
            request, {"resume": lambda: resume_tune(tune.parent, Session(Executor(workers=1)))},
            [["tune", "--resume", str(tune.parent), "-w", "1"]], study_copy,
        )  # fmt: skip


def test_json_outputs_carry_no_seal(study_copy) -> None:
    """The digest is in the files only, never in what a command prints."""
    (tune,) = study_copy.glob(f"tune/*/{TUNE_FILE}")
    printed = ok("tune", "--resume", str(tune.parent), "-w", "1")
    assert records.SEAL not in printed and printed["kind"] == "rummy-tune"
    assert records.SEAL not in load_tune(tune.parent)


def test_a_charts_check_is_checked(tmp_path) -> None:
    done = ok("strategy-chart", "knock", "--rules", "gin", "--seats", "greedy:knock_at=0",
              "--deals", "60", "--samples", "2", "--seed", "3", "-w", "1", "--out",
              str(tmp_path))  # fmt: skip
    run_dir = Path(done["run_dir"])
    check = run_dir / "check.json"
    assert records.SEAL in json.loads(check.read_text())
    text = check.read_text()
    edited(check, '"deals": ', '"deals": 1')
    report = ["report", str(run_dir), "--out", str(tmp_path / "r.html")]
    one_line(cli(*report), str(check), "its digest does not match its content")
    assert not (tmp_path / "r.html").exists()
    check.write_text(text)
    # The chart's own manifest: the report, the chart loader and the export refuse it.
    manifest = run_dir / rundir.MANIFEST
    edited(manifest, '"seed": 3', '"seed": 4')
    refused_everywhere(manifest, {"load_chart": lambda: load_chart(run_dir)},
                       [report, ["strategy-chart", "export", str(run_dir)]],
                       tmp_path)  # fmt: skip
