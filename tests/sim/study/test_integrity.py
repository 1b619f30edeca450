"""Files on disk are checked before they are trusted: bit rot, truncation, swaps.

Every Parquet part of a run, and every table of an experiment, is recorded with its
size and sha256 when it is written. These tests damage finished results the way a
disk, a copy or a hand can (a flipped bit anywhere, a truncation, a zeroed block, a
part put in another's place, a damaged chunk record) and require that

* the loaders (and ``rummy report`` / ``rummy chart``) refuse the damaged result
  with one line that names the damaged file, never a number read from it;
* ``resume`` plays the damaged chunks again, and the final tables equal a clean run's.
"""

from __future__ import annotations

import random
from pathlib import Path

import pytest
from typer.testing import CliRunner

from sim import store
from sim.cli import app
from sim.store import StorageError
from sim.study import tables as T
from sim.study.execute import Executor, resume, run
from sim.study.records import read_sealed, write_sealed
from sim.study.rundir import load_hands, load_summary
from sim.study.runs import RunConfig

SEED = 77
CHUNK = 300
COUNT = 1_200  # 4 chunks
ONE = Executor(workers=1)  # one worker thread


def config(out: Path, **changes) -> RunConfig:
    values = {
        "experiment": "rot",
        "rules": "gin",
        "lineup": ("greedy", "simple"),
        "count": COUNT,
        "seed": SEED,
        "chunk_size": CHUNK,
        "out": out,
        "command": "pytest",
    }
    values.update(changes)
    return RunConfig(**values)


@pytest.fixture(scope="module")
def clean(tmp_path_factory) -> dict[str, bytes]:
    """Canonical bytes of a clean run's tables, and the run's config."""
    result = run(config(tmp_path_factory.mktemp("clean")), ONE)
    return tables_of(result.run_dir)


def tables_of(run_dir: Path) -> dict[str, bytes]:
    return {
        "hands": T.canonical_bytes(load_hands(run_dir).collect().to_arrow()),
        "summary": T.canonical_bytes(load_summary(run_dir).to_arrow()),
    }


def parts(run_dir: Path) -> list[Path]:
    return sorted(run_dir.glob("hands/part-*.parquet")) + sorted(
        run_dir.glob("summary/part-*.parquet")
    )


def damage(path: Path, rng: random.Random) -> str:
    """Change ``path`` the way a disk or a copy can; return what was done."""
    data = bytearray(path.read_bytes())
    kind = rng.choice(["flip", "truncate", "zero", "append"])
    if kind == "flip":
        at = rng.randrange(len(data))
        data[at] ^= 1 << rng.randrange(8)
        what = f"bit flipped at byte {at}"
    elif kind == "truncate":
        cut = rng.randrange(len(data))
        del data[cut:]
        what = f"truncated to {cut} bytes"
    elif kind == "zero":
        at = rng.randrange(len(data))
        width = min(rng.randrange(1, 64), len(data) - at)
        data[at : at + width] = bytes(width)
        what = f"{width} bytes zeroed at {at}"
        if data == path.read_bytes():  # the block was zero already: flip instead
            data[at] ^= 1
    else:
        data += b"\0"
        what = "one byte appended"
    path.write_bytes(bytes(data))
    return what


@pytest.mark.parametrize("case", range(12))
def test_every_damaged_part_is_refused_then_replayed(tmp_path, clean, case) -> None:
    rng = random.Random(f"rot-{case}")
    result = run(config(tmp_path), ONE)
    run_dir = result.run_dir
    victims = rng.sample(parts(run_dir), rng.choice([1, 1, 2]))
    how = [f"{v.relative_to(run_dir)}: {damage(v, rng)}" for v in victims]

    with pytest.raises(T.ResultsError) as caught:
        load_hands(run_dir).collect()
        load_summary(run_dir)
    message = str(caught.value)
    assert "\n" not in message and "corrupted" in message and "--resume" in message, how
    assert any(str(v) in message for v in victims), how

    again = resume(run_dir, ONE)
    assert again.chunks_run == len({v.name for v in victims}), how
    assert any("digest" in note for note in again.notes)
    assert tables_of(run_dir) == clean, how


def test_a_swapped_part_is_refused_and_replayed(tmp_path, clean) -> None:
    run_dir = run(config(tmp_path), ONE).run_dir
    first, second = sorted(run_dir.glob("hands/part-*.parquet"))[:2]
    first.write_bytes(second.read_bytes())  # a valid part, in the wrong place
    with pytest.raises(T.ResultsError, match="part-000000.parquet: corrupted"):
        load_hands(run_dir)
    assert resume(run_dir, ONE).chunks_run == 1
    assert tables_of(run_dir) == clean


def test_a_damaged_chunk_record_replays_its_chunk(tmp_path, clean) -> None:
    run_dir = run(config(tmp_path), ONE).run_dir
    record = sorted(run_dir.glob("chunks/chunk-*.json"))[2]
    data = read_sealed(record, "")
    data["parts"]["hands"]["sha256"] = "0" * 64
    write_sealed(record, data)  # a record that is whole, but wrong about its part
    with pytest.raises(T.ResultsError, match="part-000002.parquet: corrupted"):
        load_hands(run_dir)
    record.write_text("{ torn")
    with pytest.raises(T.ResultsError, match=r"chunk-000002.json is damaged \(not JSON"):
        load_hands(run_dir)
    again = resume(run_dir, ONE)
    assert again.chunks_run == 1 and any("digest" in note for note in again.notes)
    assert tables_of(run_dir) == clean


def test_cli_names_the_damaged_part(tmp_path) -> None:
    run_dir = run(config(tmp_path, rows="none"), ONE).run_dir
    victim = sorted(run_dir.glob("summary/part-*.parquet"))[1]
    damage(victim, random.Random(3))
    for command in (["report", str(run_dir)], ["chart", str(run_dir)]):
        result = CliRunner().invoke(app, command)
        assert result.exit_code == 1, result.output
        lines = result.output.strip().splitlines()
        assert len(lines) == 1 and str(victim) in lines[0] and "corrupted" in lines[0]


def test_verify_file_detects_any_change(tmp_path) -> None:
    path = tmp_path / "f.bin"
    store.write_bytes_atomic(path, b"rummy" * 100)
    digest = store.file_digest(path)
    store.verify_file(path, digest)
    for changed in (b"rummy" * 99 + b"rummx", b"rummy" * 99, b"rummy" * 100 + b"!"):
        path.write_bytes(changed)
        with pytest.raises(StorageError, match="f.bin: corrupted"):
            store.verify_file(path, digest)
    path.unlink()
    with pytest.raises(StorageError, match="f.bin: missing"):
        store.verify_file(path, digest)


@pytest.mark.parametrize("config_value", [{}, {"rules": {}}, None])
def test_a_damaged_manifest_is_one_line(tmp_path, config_value) -> None:
    run_dir = run(config(tmp_path, count=300), ONE).run_dir
    manifest = read_sealed(run_dir / "manifest.json", "")
    manifest["config"] = config_value
    write_sealed(run_dir / "manifest.json", manifest)  # whole and sealed, but incomplete
    for command in (
        ["report", str(run_dir)],
        ["chart", str(run_dir)],
        ["run", "--resume", str(run_dir)],
    ):
        result = CliRunner().invoke(app, command)
        assert result.exit_code == 1, result.output
        assert len(result.output.strip().splitlines()) == 1, result.output
        assert "manifest.json" in result.output
