"""sim/store.py: atomic writes, strict JSON, digests, and errors that name the path."""

from __future__ import annotations

import errno
import json
import math
import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from sim import store
from sim.store import StorageError


def test_write_is_atomic_and_cleans_up(tmp_path) -> None:
    target = tmp_path / "a.json"
    store.write_json_atomic(target, {"b": 1, "a": [1.5, math.nan, math.inf], "p": Path("x")})
    assert json.loads(target.read_text()) == {"a": [1.5, None, None], "b": 1, "p": "x"}
    assert sorted(p.name for p in tmp_path.iterdir()) == ["a.json"]
    ended = subprocess.run([sys.executable, "-c", "import os; print(os.getpid())"],
                           capture_output=True, text=True, check=True)  # fmt: skip
    stale = tmp_path / f".a.json.{int(ended.stdout)}-dead.tmp"  # its writer was killed
    stale.write_text("half")
    store.write_text_atomic(target, "new")
    assert target.read_text() == "new" and not stale.exists()


def test_a_full_disk_names_the_file(tmp_path, monkeypatch) -> None:
    def no_space(fd: int) -> None:
        raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))

    monkeypatch.setattr(os, "fsync", no_space)
    target = tmp_path / "part.parquet"
    with pytest.raises(StorageError) as caught:
        store.write_bytes_atomic(target, b"data")
    assert str(caught.value) == f"cannot write {target}: No space left on device"
    assert list(tmp_path.iterdir()) == []  # nothing half-written


def test_a_read_only_folder_is_called_so(tmp_path, monkeypatch) -> None:
    class ReadOnly:
        f_flag = os.ST_RDONLY

    monkeypatch.setattr(os, "access", lambda path, mode: False)
    monkeypatch.setattr(os, "statvfs", lambda path: ReadOnly())
    with pytest.raises(StorageError, match="cannot write to output directory .*: Read-only file"):
        store.make_dir(tmp_path)
    monkeypatch.setattr(os, "statvfs", lambda path: type("Writable", (), {"f_flag": 0})())
    with pytest.raises(StorageError, match=": Permission denied$"):
        store.make_dir(tmp_path)


def test_make_dir_refuses_empty_text_and_says_what_it_made(tmp_path) -> None:
    with pytest.raises(StorageError, match="empty text"):
        store.make_dir("")
    assert store.make_dir(tmp_path / "new") is True
    assert store.make_dir(tmp_path / "new") is False
    (tmp_path / "file").write_text("x")
    with pytest.raises(StorageError, match="cannot create output directory .*Not a directory"):
        store.make_dir(tmp_path / "file" / "sub")


def test_strict_json_has_no_nan() -> None:
    text = store.dumps({"x": np.float64("nan"), "y": [np.int64(3), -math.inf], "z": 0.25})

    def refuse(constant: str) -> None:
        raise ValueError(constant)

    assert json.loads(text, parse_constant=refuse) == {"x": None, "y": [3, None], "z": 0.25}


# The storage interface: what differs between a local folder and an object store, as methods
# both kinds of path carry (sim.store calls them and never asks which kind it holds).
INTERFACE = ("write_atomic", "make_folder", "unwritable", "remove_tree", "arrow_source", "reason",
             "hold_lock", "lock_is_held", "folder_text", "parents", "resolve")  # fmt: skip


def test_location_decides_once_and_paths_keep_their_kind(tmp_path) -> None:
    from sim.remote import RemotePath

    local = store.location(str(tmp_path))
    assert type(local) is store.LocalPath and store.location(local) is local
    assert type(local / "a" / "b") is store.LocalPath and type(local.parent) is store.LocalPath
    assert type(store.location(f"file://{tmp_path}")) is store.LocalPath
    remote = store.location("s3://bucket/prefix?endpoint_override=127.0.0.1:9&scheme=http")
    assert type(remote) is RemotePath and store.location(remote) is remote
    assert [str(p) for p in (remote / "x").parents] == [
        "s3://bucket/prefix?endpoint_override=127.0.0.1:9&scheme=http",
        "s3://bucket?endpoint_override=127.0.0.1:9&scheme=http",
    ]
    for kind in (store.LocalPath, RemotePath):
        assert [name for name in INTERFACE if not hasattr(kind, name)] == [], kind


def test_a_local_lock_is_held_once(tmp_path) -> None:
    lock = store.location(tmp_path) / ".lock"
    assert not lock.lock_is_held()
    with lock.hold_lock():
        assert lock.lock_is_held()
        with pytest.raises(BlockingIOError), lock.hold_lock():
            pass
    assert not lock.lock_is_held()
