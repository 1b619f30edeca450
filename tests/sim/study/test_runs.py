"""Runs: chunked, resumable, identical tables for any chunk size, worker count, backend.

Most tests play on one worker thread (``Executor(workers=1)``); one uses 2 worker
threads and one a local Ray instance (skipped without Ray). The ``kill -9`` test runs a
real subprocess and kills it between chunks.
"""

from __future__ import annotations

import dataclasses
import json
import os
import re
import signal
import subprocess
import sys
import textwrap
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import polars as pl
import pyarrow as pa
import pyarrow.dataset as ds
import pytest

from sim import store
from sim.engine import play_deals, play_games
from sim.limits import MAX_WORKERS
from sim.study import execute as E
from sim.study import provenance as P
from sim.study import rundir, runs
from sim.study import tables as T
from sim.study.execute import LOCAL, Executor, Progress, resume, run
from sim.study.records import read_sealed, write_sealed
from sim.study.rundir import load_games, load_hands, load_summary
from sim.study.runs import RunConfig, RunError
from tests.support.procs import descendants, wait_until_gone

SEED = 20240607
ONE = Executor(workers=1)  # one worker thread


def config(tmp: Path, **overrides) -> RunConfig:
    values = {
        "experiment": "t",
        "rules": "gin",
        "lineup": ("greedy", "simple"),
        "count": 1_500,
        "seed": SEED,
        "chunk_size": 400,
        "out": tmp,
        "command": "pytest",
    }
    values.update(overrides)
    return RunConfig(**values)


def table(run_dir: Any, name: str) -> pa.Table:
    """A table read back with pyarrow.dataset, in (game, deal) order (from a folder, or an
    object store: ``tests/sim/study/test_object_store.py``)."""
    where, filesystem = store.arrow_source(run_dir / name)
    data = ds.dataset(where, filesystem=filesystem, format="parquet").to_table()
    keys = [("game", "ascending")] + ([("deal", "ascending")] if name == "hands" else [])
    return data.sort_by(keys)


def decoded(data: pa.Table) -> pa.Table:
    """Dictionary columns as their values (Parquet rebuilds dictionaries per part)."""
    return pa.Table.from_arrays(
        [c.cast(c.type.value_type) if pa.types.is_dictionary(c.type) else c for c in data.columns],
        names=data.column_names,
    ).combine_chunks()


def assert_same_tables(a: Any, b: Any, names=("hands",)) -> None:
    for name in names:
        ta, tb = table(a, name), table(b, name)
        assert decoded(ta).equals(decoded(tb)), name
        assert T.canonical_bytes(ta) == T.canonical_bytes(tb), name
    assert load_summary(a).equals(load_summary(b))


# --- config ---------------------------------------------------------------------------


def test_config_normalises_and_hashes_what_determines_results(tmp_path) -> None:
    c = config(tmp_path)
    assert c.lineup == ("greedy", "simple")
    assert config(tmp_path, lineup=("greedy:knock_at=-1/simple",)).lineup == c.lineup
    assert config(tmp_path, lineup="greedy:knock_at=7/simple").lineup == (
        "greedy:knock_at=7",
        "simple",
    )
    same = config(tmp_path / "else", chunk_size=77, command="x")
    assert same.config_hash == c.config_hash and len(c.run_id) == 12
    assert c.run_dir == tmp_path / "t" / c.run_id
    for change in ({"seed": SEED + 1}, {"count": 1_501}, {"rows": "none"}, {"variant": "v"}):
        assert config(tmp_path, **change).config_hash != c.config_hash, change
    assert config(tmp_path, rules="gin", lineup="greedy").lineup == ("greedy", "greedy")
    drawn = config(tmp_path, seed=None)
    assert isinstance(drawn.seed, int) and drawn.seed >= 0
    assert config(tmp_path, chunk_size=None).chunk_size == runs.CHUNK_DEALS
    assert config(tmp_path, chunk_size=None, mode="games").chunk_size == runs.CHUNK_GAMES
    # a searching seat decides in milliseconds: chunks that take seconds, not hours
    slow = config(tmp_path, chunk_size=None, mode="games", lineup=("mc", "simple"))
    assert slow.chunk_size == runs.CHUNK_SLOW_GAMES
    assert config(tmp_path, chunk_size=None, lineup=("greedy", "mc")).chunk_size == (
        runs.CHUNK_SLOW_DEALS
    )
    cut_as_fast = config(tmp_path, mode="games", lineup=("mc", "simple"), chunk_size=2_000)
    assert slow.config_hash == cut_as_fast.config_hash  # chunks are no part of its identity
    assert list(c.chunks()) == [(0, 0, 400), (1, 400, 400), (2, 800, 400), (3, 1200, 300)]
    full = c.to_dict()
    assert full["rules"] == c.rules.to_dict() and full["seed"] == SEED
    assert full["strategies"][1]["name"] == "simple" and full["strategies"][1]["params"]
    assert RunConfig.from_dict(full, out=tmp_path) == c


@pytest.mark.parametrize(
    "bad, match",
    [
        ({"count": 0}, "count"),
        ({"seed": -1}, "seed"),
        ({"chunk_size": 0}, "chunk_size"),
        ({"mode": "rounds"}, "mode"),
        ({"mode": "games", "rules": "threshold-knock", "lineup": ("greedy",)}, "game='hand'"),
        ({"rows": "some"}, "rows"),
        ({"experiment": "../up"}, "experiment"),
    ],
)
def test_config_rejects_bad_input(tmp_path, bad, match) -> None:
    with pytest.raises(RunError, match=match):
        config(tmp_path, **bad)


# --- a run and its files ----------------------------------------------------------------


def test_progress_moves_within_a_chunk(tmp_path, monkeypatch) -> None:
    """Local threads: a chunk's blocks are reported as they are played, before the
    chunk is done (an mc chunk takes minutes); each unit counted once. The chunk waits
    until the study has reported its first block: no race decides what is seen."""
    import threading

    reported = threading.Event()
    seen: list[Progress] = []
    real = E.run_chunk

    def chunk(payload, index, first, n, progress):
        progress(1)
        assert reported.wait(30), "the study never reported the block played"
        result = real(payload, index, first, n)
        progress(n - 1)
        return result

    def heard(p: Progress) -> None:
        seen.append(p)
        if p.chunks_done == 0 and p.units_done == 1:
            reported.set()

    monkeypatch.setattr(E, "run_chunk", chunk)
    result = run(config(tmp_path, count=400), ONE, progress=heard)
    assert result.chunks_run == 1 and reported.is_set()
    assert [p.units_done for p in seen] == [0, 1, 400]


def test_run_layout_provenance_and_readers(tmp_path) -> None:
    seen: list[Progress] = []
    result = run(config(tmp_path), ONE, progress=seen.append)
    run_dir = result.run_dir
    assert (result.chunks_total, result.chunks_run, result.chunks_skipped) == (4, 4, 0)
    assert result.hands == 1_500
    assert seen[0].chunks_done == 0 and seen[-1] == Progress(
        4, 4, 1_500, 1_500, 1_500, seen[-1].elapsed, 1_500, 1, 1
    )
    assert sorted(p.name for p in (run_dir / "hands").iterdir()) == [
        f"part-{i:06d}.parquet" for i in range(4)
    ]
    assert not (run_dir / "games").exists()
    manifest = json.loads((run_dir / "manifest.json").read_text())
    assert manifest["config"]["seed"] == SEED and manifest["config"]["run_id"] == result.run_id
    assert manifest["config"]["rules"]["knock_limit"] == 10

    meta = P.read_provenance(run_dir / "hands" / "part-000002.parquet")
    assert meta["chunk"] == {"index": 2, "first": 800, "count": 400, "size": 400, "n_chunks": 4}
    assert meta["table"] == "hands" and meta["config"]["config_hash"] == result.config.config_hash
    assert meta["config"]["lineup"] == ["greedy", "simple"] and meta["command"] == "pytest"
    assert meta["package"]["version"] and meta["libraries"]["pyarrow"] == pa.__version__
    # labelled with the sources its compiled code came from: the numba cache folder's key
    assert os.environ["NUMBA_CACHE_DIR"].endswith(f"numba-{meta['package']['source_digest']}")

    # polars (lazy, sorted), pyarrow.dataset and the engine itself agree
    frame = load_hands(run_dir).collect()
    assert frame["game"].to_list() == list(range(1_500)) and frame["game"].is_sorted()
    by_arrow = table(run_dir, "hands")
    assert frame.height == by_arrow.num_rows == 1_500
    assert frame["outcome"].cast(pl.String).to_list() == by_arrow["outcome"].to_pylist()
    direct = T.to_arrow(
        play_deals("gin", ["greedy", "simple"], deals=1_500, seed=SEED, threads=1),
        2,
        {"variant": "gin", "lineup": "greedy/simple", "strategy_0": "greedy",
         "strategy_1": "simple", "player_0": 0, "player_1": 1},
    )  # fmt: skip
    assert T.canonical_bytes(by_arrow) == T.canonical_bytes(direct)
    assert (
        pl.scan_parquet(str(run_dir / "hands" / "*.parquet")).select(pl.len()).collect().item()
        == 1_500
    )
    summary = load_summary(run_dir)
    assert summary.filter(pl.col("stat") == "hands")["value"].item() == 1_500
    with pytest.raises(RunError, match="no games table"):
        load_games(run_dir)

    # a run an older rummy-sim made (its manifest sealed, of schema 2) is refused by name
    older = tmp_path / "older"
    older.mkdir()
    stored = read_sealed(run_dir / "manifest.json", "")
    write_sealed(older / "manifest.json", {**stored, "schema_version": 2})
    with pytest.raises(
        RunError, match=r"made by an older rummy-sim \(schema_version 2; this one reads 3\)"
    ):
        load_hands(older)

    again = run(config(tmp_path, chunk_size=999), ONE)  # same identity: nothing to do
    assert (again.chunks_run, again.chunks_skipped, again.config.chunk_size) == (0, 4, 400)
    assert again.notes == (
        "chunk size 999 ignored: this run was started with chunks of 400 and keeps them",
    )


def test_tables_do_not_depend_on_chunk_size_or_workers(tmp_path) -> None:
    """One worker thread against two, with different chunk sizes."""
    a = run(config(tmp_path / "a", count=2_000, chunk_size=300), ONE)
    b = run(config(tmp_path / "b", count=2_000, chunk_size=1_000), Executor(workers=2))
    assert (a.chunks_total, b.chunks_total) == (7, 2)
    assert_same_tables(a.run_dir, b.run_dir)


def test_illegal_decision_on_a_worker_thread_stops_the_run(tmp_path, monkeypatch) -> None:
    """A strategy error in a chunk on a worker thread reaches the caller, as inline."""
    from sim.engine import StrategyDecisionError
    from tests.support.plugins import broken_and_remembering

    broken_and_remembering(monkeypatch)  # the test plugins loaded, dropped after the test
    cfg = config(tmp_path, lineup=("greedy", "tests.plugins.cheater"), count=600)
    with pytest.raises(StrategyDecisionError, match="discarded a card it does not hold"):
        run(cfg, Executor(workers=2))


def test_games_tables_do_not_depend_on_chunk_size(tmp_path) -> None:
    kw = {"mode": "games", "count": 24, "lineup": ("greedy",), "rules": "hollywood-gin"}
    a = run(config(tmp_path / "a", chunk_size=5, **kw), ONE)
    b = run(config(tmp_path / "b", chunk_size=24, **kw), ONE)
    assert_same_tables(a.run_dir, b.run_dir, names=("hands", "games"))
    games = load_games(a.run_dir).collect()
    assert games["game"].to_list() == list(range(24))
    assert "column2_score_1" in games.columns
    direct, hands = play_games("hollywood-gin", ["greedy"], games=24, seed=SEED, threads=1)
    assert games["hands_dealt"].sum() == len(hands.number) == load_hands(a.run_dir).collect().height
    assert games["score_0"].to_list() == (direct.scores[:, 0] / 60).tolist()


def test_rows_none_keeps_only_the_summary(tmp_path) -> None:
    full = run(config(tmp_path, count=900), ONE)
    lean = run(config(tmp_path, count=900, rows="none"), ONE)
    assert lean.run_dir != full.run_dir
    assert sorted(p.name for p in lean.run_dir.iterdir() if not p.name.startswith(".")) == [
        "chunks",
        "manifest.json",
        "summary",
    ]
    assert load_summary(lean.run_dir).equals(load_summary(full.run_dir))
    with pytest.raises(RunError, match="rows='none'"):
        load_hands(lean.run_dir)


def test_duckdb_reads_the_parts(tmp_path) -> None:
    duckdb = pytest.importorskip("duckdb")
    result = run(config(tmp_path, count=800), ONE)
    pattern = str(result.run_dir / "hands" / "*.parquet")
    query = f"SELECT count(*), count(DISTINCT outcome) FROM read_parquet('{pattern}')"
    ((rows, outcomes),) = duckdb.sql(query).fetchall()
    assert rows == 800 and outcomes >= 2


# --- interruption and resume -----------------------------------------------------------


class Stop(Exception):
    pass


def stop_after(chunks: int) -> Callable[[Progress], None]:
    """A progress callback that stops the run once ``chunks`` chunks are done."""

    def stop(p: Progress) -> None:
        if p.chunks_done == chunks:
            raise Stop

    return stop


def test_resume_after_interruption_damage_and_leftovers(tmp_path) -> None:
    reference = run(
        config(tmp_path / "ref", mode="games", count=30, chunk_size=4, lineup=("greedy",)), ONE
    )
    cfg = config(tmp_path / "cut", mode="games", count=30, chunk_size=4, lineup=("greedy",))

    def stop_after_five(p: Progress) -> None:
        if p.chunks_done == 5:
            raise Stop

    with pytest.raises(Stop):
        run(cfg, ONE, progress=stop_after_five)
    run_dir = cfg.run_dir
    with pytest.raises(RunError, match="incomplete"):
        load_hands(run_dir)
    # damage: a missing part, a truncated part, a foreign part, a leftover temporary file
    (run_dir / "hands" / "part-000000.parquet").unlink()
    truncated = run_dir / "summary" / "part-000001.parquet"
    truncated.write_bytes(truncated.read_bytes()[:100])
    foreign = run_dir / "games" / "part-000002.parquet"
    T.write_parquet_atomic(table(reference.run_dir, "games").slice(0, 3), foreign)
    leftover = run_dir / "hands" / ".part-000003.parquet.999-abcd.tmp"
    leftover.write_bytes(b"half a part")
    with pytest.raises(T.ResultsError):
        load_games(run_dir)

    seen: list[Progress] = []
    result = resume(run_dir, ONE, progress=seen.append)
    # chunks 0-2 were damaged, 3-4 are kept, 5-7 never ran
    assert (result.chunks_total, result.chunks_run, result.chunks_skipped) == (8, 6, 2)
    done = [p.chunks_done for p in seen]
    assert done == sorted(done) and (done[0], done[-1]) == (0, 8) and seen[-1].units_done == 30
    assert not leftover.exists()
    assert_same_tables(reference.run_dir, run_dir, names=("hands", "games"))
    assert resume(run_dir, ONE).chunks_run == 0


def test_resume_runs_only_missing_chunks(tmp_path) -> None:
    cfg = config(tmp_path)
    run(cfg, ONE)
    (cfg.run_dir / "hands" / "part-000003.parquet").unlink()
    stamp = (cfg.run_dir / "hands" / "part-000001.parquet").stat().st_mtime_ns
    result = resume(cfg.run_dir, ONE)
    assert (result.chunks_run, result.chunks_skipped) == (1, 3)
    assert (cfg.run_dir / "hands" / "part-000001.parquet").stat().st_mtime_ns == stamp
    assert load_hands(cfg.run_dir).collect().height == 1_500


KILL_SCRIPT = textwrap.dedent(
    """
    import sys, time
    from sim.study.execute import Executor, run
    from sim.study.runs import RunConfig

    if __name__ == "__main__":
        config = RunConfig(experiment="k", rules="gin", lineup=("greedy",), count=10_000,
                           seed=5, chunk_size=500, out=sys.argv[1], command="kill")
        print(config.run_dir, flush=True)
        # the sleep widens the window between chunks
        run(config, Executor(workers=2), progress=lambda p: time.sleep(0.25))
    """
)


def test_kill_9_mid_run_then_resume(tmp_path) -> None:
    """A 2-worker run killed with SIGKILL: nothing outlives it, resume finishes it exactly."""
    script = tmp_path / "job.py"
    script.write_text(KILL_SCRIPT)
    proc = subprocess.Popen(
        [sys.executable, str(script), str(tmp_path / "out")], stdout=subprocess.PIPE, text=True
    )
    run_dir = Path(proc.stdout.readline().strip())
    deadline = time.monotonic() + 300  # a cold numba cache compiles first
    try:
        while time.monotonic() < deadline:
            if len(list(run_dir.glob("chunks/chunk-*.json"))) >= 3 or proc.poll() is not None:
                break
            time.sleep(0.02)
        children = descendants(proc.pid)  # none: local workers are threads
        os.kill(proc.pid, signal.SIGKILL)
    finally:
        proc.wait(timeout=30)
        proc.stdout.close()
    assert wait_until_gone(children) == [], "a child process outlived its driver"
    assert proc.returncode == -signal.SIGKILL
    done = len(list(run_dir.glob("chunks/chunk-*.json")))  # a part is trusted once recorded
    assert 3 <= done < 20, "the run should have been killed mid-way"
    with pytest.raises(RunError, match="incomplete"):
        load_summary(run_dir)

    result = resume(run_dir, ONE)
    assert not list(run_dir.rglob(".*.tmp"))
    assert result.chunks_run == 20 - result.chunks_skipped and result.chunks_skipped >= 3
    assert result.hands == 10_000
    direct = T.to_arrow(
        play_deals("gin", ["greedy"], deals=10_000, seed=5, threads=1),
        2,
        result.config.row_labels,
    )
    assert T.canonical_bytes(table(run_dir, "hands")) == T.canonical_bytes(direct)
    summary = load_summary(run_dir)
    assert summary.filter(pl.col("stat") == "count")["value"].item() == 10_000


# --- refusals ---------------------------------------------------------------------------


def test_directory_with_another_config_is_refused(tmp_path) -> None:
    cfg = config(tmp_path)
    run(cfg, ONE)
    manifest_path = cfg.run_dir / "manifest.json"
    manifest = read_sealed(manifest_path, "")
    # Another run's manifest, whole and sealed, in this run's folder.
    manifest["config"]["seed"] = SEED + 1
    manifest["config"]["config_hash"] = runs.stored_hash(manifest["config"])
    write_sealed(manifest_path, manifest)
    before = sorted((p.name, p.stat().st_mtime_ns) for p in (cfg.run_dir / "hands").iterdir())
    with pytest.raises(RunError, match="different run.*seed") as caught:
        run(cfg, ONE)
    assert "\n" not in str(caught.value)
    assert (
        sorted((p.name, p.stat().st_mtime_ns) for p in (cfg.run_dir / "hands").iterdir()) == before
    )
    # Its config edited and sealed again, its config hash left as it was.
    manifest["config"]["config_hash"] = cfg.config_hash
    write_sealed(manifest_path, manifest)
    for attempt in (lambda: run(cfg, ONE), lambda: resume(cfg.run_dir, ONE)):
        with pytest.raises(RunError, match="manifest does not match its own config hash"):
            attempt()

    stranger = config(tmp_path, seed=1)
    stranger.run_dir.mkdir(parents=True)
    (stranger.run_dir / "notes.txt").write_text("mine")
    with pytest.raises(RunError, match="not empty"):
        run(stranger, ONE)
    assert sorted(p.name for p in stranger.run_dir.iterdir()) == [".lock", "notes.txt"]


def test_unwritable_output_is_a_one_line_error(tmp_path) -> None:
    blocker = tmp_path / "file"
    blocker.write_text("not a folder")
    with pytest.raises(RunError, match="cannot create run directory") as caught:
        run(config(blocker), ONE)
    assert "\n" not in str(caught.value)
    assert blocker.read_text() == "not a folder"
    if os.geteuid() != 0:  # root writes anywhere
        locked = tmp_path / "locked"
        locked.mkdir(mode=0o500)
        with pytest.raises(RunError):
            run(config(locked), ONE)
        assert list(locked.iterdir()) == []


def test_busy_run_directory_is_refused(tmp_path) -> None:
    import fcntl

    cfg = config(tmp_path)
    cfg.run_dir.mkdir(parents=True)
    with open(cfg.run_dir / ".lock", "a+b") as handle:
        fcntl.flock(handle.fileno(), fcntl.LOCK_EX)
        with pytest.raises(RunError, match="in use"):
            run(cfg, ONE)
    assert not (cfg.run_dir / "manifest.json").exists()


def test_not_a_run_directory(tmp_path) -> None:
    with pytest.raises(RunError, match=r"not a run directory \(no manifest.json\)$"):
        resume(tmp_path, ONE)
    # A --name folder: the error names the run folders inside it.
    (tmp_path / "abc123").mkdir()
    (tmp_path / "abc123" / "manifest.json").write_text("{}")
    with pytest.raises(RunError, match=f"runs inside it: {tmp_path / 'abc123'}$"):
        rundir.load_manifest(tmp_path)
    (tmp_path / "manifest.json").write_text("{broken")
    with pytest.raises(RunError, match=r"manifest.json is damaged \(not JSON"):
        load_hands(tmp_path)


# --- Ray --------------------------------------------------------------------------------


def test_ray_backend_gives_identical_tables(tmp_path) -> None:
    """``run`` starts a local Ray instance (2 CPUs) and shuts it down again."""
    ray = pytest.importorskip("ray")
    local = run(config(tmp_path / "local", count=1_200), ONE)
    remote = run(config(tmp_path / "ray", count=1_200, chunk_size=300), Executor(2, "ray"))
    assert not ray.is_initialized()
    assert remote.chunks_run == 4
    assert_same_tables(local.run_dir, remote.run_dir)


def test_missing_ray_is_a_one_line_error(tmp_path, monkeypatch) -> None:
    monkeypatch.setitem(sys.modules, "ray", None)  # import ray -> ImportError
    with pytest.raises(RunError, match=r"pip install 'rummy-sim\[ray\]'"):
        run(config(tmp_path), Executor(backend="ray"))


def test_replace_keeps_identity(tmp_path) -> None:
    c = config(tmp_path)
    assert dataclasses.replace(c, chunk_size=77, command="x").config_hash == c.config_hash


# --- the executor: how a run plays, stored for its resume ---------------------------


@pytest.mark.parametrize(
    "options, message",
    [
        ({"workers": 0}, "workers=0 is not allowed"),
        ({"workers": MAX_WORKERS + 1}, f"workers={MAX_WORKERS + 1} is not allowed"),
        ({"workers": True}, "workers=True is not allowed"),
        ({"workers": 2.0}, "workers=2.0 is not allowed"),
        ({"workers": "2"}, "workers='2' is not allowed"),
        ({"backend": "spark"}, "backend='spark' is not allowed"),
        ({"address": "auto"}, "address='auto' is not allowed with backend='local'"),
        ({"backend": "local", "address": "10.0.0.1:6379"}, "address='10.0.0.1:6379' is not"),
    ],
)
def test_executor_rejects_bad_input(options, message) -> None:
    with pytest.raises(RunError, match=re.escape(message)) as caught:
        Executor(**options)
    assert "\n" not in str(caught.value)


def test_executor_defaults_and_its_manifest_entry(tmp_path) -> None:
    cpus = os.cpu_count() or 1
    assert LOCAL == Executor() and LOCAL.local_workers == cpus
    assert LOCAL.to_dict() == {"workers": cpus, "backend": "local", "address": None}
    assert Executor(3).describe() == "3 workers" and Executor(3).local_workers == 3
    assert Executor(1).describe() == "1 worker"
    on_ray = Executor(backend="ray", address="auto")
    assert on_ray.to_dict() == {"workers": None, "backend": "ray", "address": "auto"}
    assert on_ray.describe() == "a worker per CPU of the Ray cluster"
    result = run(config(tmp_path, count=400), ONE)
    manifest = read_sealed(result.run_dir / "manifest.json", "")
    assert manifest["executor"] == {"workers": 1, "backend": "local", "address": None}
    assert not {"workers", "backend", "address"} & set(manifest["config"])


def test_resume_plays_on_the_stored_executor(tmp_path, monkeypatch) -> None:
    """Without an executor a resume plays on the manifest's (local workers capped at
    this machine's CPU count); one given plays instead."""
    cfg = config(tmp_path / "local")
    with pytest.raises(Stop):
        run(cfg, ONE, progress=stop_after(2))
    assert rundir.resume_config(cfg.run_dir)[1] == ONE.to_dict()
    threads: list[int] = []
    play = E._threads

    def spy(runs: Any, todo: Any, workers: int) -> Any:
        threads.append(workers)
        return play(runs, todo, workers)

    monkeypatch.setattr(E, "_threads", spy)
    result = resume(cfg.run_dir)
    assert threads == [1] and (result.chunks_run, result.chunks_skipped) == (2, 2)

    many = config(tmp_path / "many")
    many.run_dir.mkdir(parents=True)
    rundir.prepare(many, many.run_dir, Executor(MAX_WORKERS).to_dict())
    cpus = os.cpu_count() or 1
    assert rundir.resume_config(many.run_dir)[1] == Executor(min(MAX_WORKERS, cpus)).to_dict()

    on_ray = config(tmp_path / "ray")
    on_ray.run_dir.mkdir(parents=True)
    rundir.prepare(on_ray, on_ray.run_dir, Executor(3, "ray", "auto").to_dict())
    assert rundir.resume_config(on_ray.run_dir)[1] == {
        "workers": 3, "backend": "ray", "address": "auto",
    }  # fmt: skip
    monkeypatch.setitem(sys.modules, "ray", None)  # import ray -> ImportError
    with pytest.raises(RunError, match=r"pip install 'rummy-sim\[ray\]'"):
        resume(on_ray.run_dir)
    assert resume(on_ray.run_dir, ONE).chunks_run == 4


def test_a_manifest_from_before_the_executor_entry_still_resumes(tmp_path) -> None:
    """Runs made before the manifest had an "executor" kept workers, backend and
    address in their config: they resume, on that executor, to the same tables."""
    reference = run(config(tmp_path / "ref"), ONE)
    cfg = config(tmp_path / "old")
    with pytest.raises(Stop):
        run(cfg, ONE, progress=stop_after(2))
    path = cfg.run_dir / "manifest.json"
    manifest = read_sealed(path, "")
    del manifest["executor"]
    manifest["config"].update(workers=1, backend="local", address=None)
    write_sealed(path, manifest)
    stored, executor = rundir.resume_config(cfg.run_dir)
    assert stored.config_hash == cfg.config_hash and executor == ONE.to_dict()
    result = resume(cfg.run_dir)
    assert (result.chunks_run, result.chunks_skipped) == (2, 2)
    assert_same_tables(reference.run_dir, cfg.run_dir)
    assert "executor" not in read_sealed(path, "")  # a resume does not rewrite the manifest
    # One started on Ray (workers None: the cluster's CPUs) resumes there.
    manifest["config"].update(workers=None, backend="ray", address="auto")
    write_sealed(path, manifest)
    assert rundir.resume_config(cfg.run_dir)[1] == {
        "workers": None, "backend": "ray", "address": "auto",
    }  # fmt: skip


# --- identity: every source that can change a table --------------------------------


def test_table_sources_are_the_sim_modules_a_chunk_runs(tmp_path) -> None:
    script = textwrap.dedent(
        f"""
        import sys
        from pathlib import Path
        import sim
        from sim.study.chunks import payload_of, run_chunk
        from sim.study.provenance import provenance
        from sim.study.runs import RunConfig
        config = RunConfig(rules="gin", lineup="greedy/simple", count=5, seed=1,
                           out={str(tmp_path)!r}, command="t")
        run_chunk(payload_of(config, provenance(config)), 0, 0, 5)
        root = Path(sim.__file__).parent
        for name, module in sorted(sys.modules.items()):
            if name == "sim" or name.startswith("sim."):
                print(Path(module.__file__).relative_to(root).as_posix())
        """
    )
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    assert set(done.stdout.split()) == set(P.TABLE_SOURCES)


def test_resume_after_an_edit_to_table_code_is_refused(tmp_path, monkeypatch) -> None:
    cfg = config(tmp_path)
    cfg.run_dir.mkdir(parents=True)
    rundir.prepare(cfg, cfg.run_dir, ONE.to_dict())  # the manifest, as a run writes it first
    monkeypatch.setattr(P, "tables_digest", lambda: "edited")
    with pytest.raises(RunError, match="the sim modules that play and shape the tables changed"):
        rundir.resume_config(cfg.run_dir)
    assert dataclasses.replace(cfg).run_dir != cfg.run_dir  # the same command: a new run


def test_a_live_run_is_not_told_to_resume(tmp_path) -> None:
    """While another process plays a run (it holds the lock), a loader says so instead
    of suggesting a resume that would be refused."""
    import fcntl

    class Stop(Exception):
        pass

    def stop(p: Progress) -> None:
        if p.chunks_done == 2:
            raise Stop

    cfg = config(tmp_path)
    with pytest.raises(Stop):
        run(cfg, ONE, progress=stop)
    with pytest.raises(RunError, match="incomplete .*finish it with: rummy run --resume"):
        load_hands(cfg.run_dir)
    with open(cfg.run_dir / ".lock", "a+b") as handle:
        fcntl.flock(handle.fileno(), fcntl.LOCK_EX | fcntl.LOCK_NB)  # as a live run holds it
        with pytest.raises(RunError, match="still being played by another process"):
            load_hands(cfg.run_dir)
