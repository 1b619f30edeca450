"""Writes go only to regular files and folders the command may own (issue 39, item 2).

Every ``--out`` of the command line: a file (``report --out``, ``strategy-chart export
--out``), a folder of charts (``chart --out``) and a results root (``run``, ``sweep``,
``compare``, ``tournament``, ``tune``, ``strategy-chart``). Before, a file ``--out`` wrote
through a temporary file and a rename: a FIFO or a character device at the path became a
regular file, exit 0 (as root, ``--out /dev/null`` replaced the machine's ``/dev/null``;
a write "to" ``/dev/full`` succeeded). Now each is refused in one line naming the path
and what is allowed, the node left as it was: a FIFO, a socket, a character device (a
null and a full device made with ``mknod`` in the test's folder: never the real ones),
a link to any of them (the real ``/dev/null`` behind a link is checked unchanged). A
file or a chart folder inside another study's folder is refused too, while the study's
own folder stays allowed. ``sim.store.write_bytes_atomic`` itself refuses to rename over
anything but a regular file (defence in depth, for writers the commands do not check).

Hypothesis draws the command, the kind of node and whether it is reached through a
link; a derandomized slice runs in the default suite, many more under ``-m slow``.
"""

from __future__ import annotations

import json
import os
import socket
import stat
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from typer.testing import CliRunner

from sim import store
from sim.cli import app
from tests.support.cli import one_line

SMALL = ["--deals", "200", "--seed", "3", "-w", "1"]
KNOCK = ["strategy-chart", "knock", "--rules", "gin", "--seats", "greedy:knock_at=0",
         "--samples", "2", "--min-positions", "5", *SMALL]  # fmt: skip
SWEEP = ["sweep", "--seats", "greedy:knock_at={k}/simple", "--grid", "k=3,9", *SMALL]
ALLOWED = "rummy writes only regular files and folders; give another path"


def cli(*args: str) -> Any:
    return CliRunner().invoke(app, list(args))


@pytest.fixture(scope="module")
def results(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    """A finished knock chart's run folder and two finished sweeps' study folders."""
    root = tmp_path_factory.mktemp("results")
    chart = cli(*KNOCK, "--out", str(root), "--json")
    assert chart.exit_code == 0, chart.output
    for name in ("sweep", "other"):
        done = cli(*SWEEP, "--out", str(root), "--name", name)
        assert done.exit_code == 0, done.output
    run = Path(json.loads(chart.stdout)["run_dir"])
    return {"root": root, "run": run, "study": root / "sweep", "other": root / "other"}


# --- nodes that are not regular files ----------------------------------------------------------


def _fifo(path: Path) -> None:
    os.mkfifo(path)


def _device(path: Path, minor: int, real: str) -> None:
    """A character device of its own (as root), else a link to the real one: refused
    before anything is written either way, and an unchanged link is an untouched one."""
    try:
        os.mknod(path, stat.S_IFCHR | 0o600, os.makedev(1, minor))
    except PermissionError:  # not root: no mknod
        os.symlink(real, path)


def _null(path: Path) -> None:
    _device(path, 3, "/dev/null")


def _full(path: Path) -> None:
    _device(path, 7, "/dev/full")


def _socket(path: Path) -> None:
    with socket.socket(socket.AF_UNIX) as listener:
        listener.bind(str(path))  # the socket file stays when the socket is closed


MAKERS: dict[str, tuple[Callable[[Path], None], str]] = {
    "fifo": (_fifo, "a FIFO (named pipe)"),
    "null device": (_null, "a character device"),
    "full device": (_full, "a character device"),
    "socket": (_socket, "a socket"),
}


def _kind(path: Path) -> tuple[int, int]:
    """What a node is (its type bits) and which device it is: unchanged means untouched."""
    found = os.lstat(path)
    return stat.S_IFMT(found.st_mode), found.st_rdev


def _commands(results: dict[str, Path]) -> dict[str, list[str]]:
    """Every command with an ``--out``, up to its value (which comes last)."""
    study, run = str(results["study"]), str(results["run"])
    return {
        "report": ["report", study, "--out"],
        "report of a chart": ["report", run, "--out"],
        "chart": ["chart", study, "--out"],
        "export": ["strategy-chart", "export", run, "--out"],
        "run": ["run", "--seats", "greedy/simple", "--deals", "20", "--out"],
        "sweep": ["sweep", "--seats", "greedy:knock_at={k}/simple", "--grid", "k=1,2",
                  "--deals", "20", "--out"],
        "compare": ["compare", "--seats", "greedy/simple", "--vs-seats", "simple/greedy",
                    "--deals", "20", "--out"],
        "tournament": ["tournament", "--strategies", "greedy,simple", "--deals", "20", "--out"],
        "tune": ["tune", "greedy", "--param", "knock_at=0..3", "--against", "simple",
                 "--deals", "20", "--out"],
        "strategy-chart": ["strategy-chart", "knock", "--seats", "greedy:knock_at=0",
                           "--deals", "20", "--out"],
    }  # fmt: skip


@pytest.fixture
def dev_null() -> Iterator[None]:
    """The machine's /dev/null: the same device, the same inode, after the test."""
    before = os.stat("/dev/null")
    yield
    after = os.stat("/dev/null")
    assert stat.S_ISCHR(after.st_mode) and after.st_rdev == before.st_rdev
    assert after.st_ino == before.st_ino


COMMAND_NAMES = [
    "report", "report of a chart", "chart", "export", "run", "sweep", "compare", "tournament",
    "tune", "strategy-chart",
]  # fmt: skip


@pytest.mark.parametrize("command", COMMAND_NAMES)
@pytest.mark.parametrize("node", sorted(MAKERS))
def test_an_out_that_is_no_regular_file_is_refused(
    results: dict[str, Path], tmp_path: Path, command: str, node: str
) -> None:
    make, what = MAKERS[node]
    target = tmp_path / "x"
    make(target)
    before = _kind(target)
    one_line(cli(*_commands(results)[command], str(target)), 1, f"{target} is {what}", ALLOWED)
    assert _kind(target) == before
    assert sorted(p.name for p in tmp_path.iterdir()) == ["x"]  # no temporary, nothing else


@pytest.mark.parametrize("command", ["report", "export", "chart", "run"])
def test_a_link_to_dev_null_leaves_it_alone(
    results: dict[str, Path], tmp_path: Path, command: str, dev_null: None
) -> None:
    """Before: the link was replaced (and ``--out /dev/null`` itself, as root, replaced
    the machine's device)."""
    link = tmp_path / "quiet"
    link.symlink_to("/dev/null")
    one_line(cli(*_commands(results)[command], str(link)), 1,
             f"{link} is a character device (a link to /dev/null)", ALLOWED)  # fmt: skip
    assert link.is_symlink() and os.readlink(link) == "/dev/null"
    assert [p.name for p in tmp_path.iterdir()] == ["quiet"]


def test_the_write_itself_refuses_anything_but_a_regular_file(tmp_path: Path) -> None:
    """Defence in depth: ``write_bytes_atomic`` renames over a regular file or nothing."""
    for node, (make, what) in MAKERS.items():
        target = tmp_path / node.replace(" ", "-")
        make(target)
        before = _kind(target)
        with pytest.raises(store.StorageError) as refused:
            store.write_bytes_atomic(target, b"data")
        assert str(refused.value) == (
            f"cannot write {target}: it is {what}; give the path of a regular file"
        )
        assert _kind(target) == before
    link = tmp_path / "link"
    link.symlink_to(tmp_path / "fifo")
    with pytest.raises(store.StorageError, match="it is a FIFO"):
        store.write_bytes_atomic(link, b"data")
    assert link.is_symlink()
    regular = tmp_path / "regular"
    store.write_bytes_atomic(regular, b"old")
    store.write_bytes_atomic(regular, b"new")
    assert regular.read_bytes() == b"new"
    assert not list(tmp_path.glob(".*.tmp"))


# --- into another study's folder ---------------------------------------------------------------


def test_an_out_inside_another_study_is_refused(results: dict[str, Path]) -> None:
    """The report or charts of one study never land in another's folder (its report
    replaced by another study's); into its own they still do."""
    study, other, run = results["study"], results["other"], results["run"]
    report = (other / "report.html").read_bytes()
    charts = sorted((other / "charts").iterdir())
    for args in (
        ["report", str(study), "--out", str(other / "report.html")],
        ["report", str(study), "--out", str(other / "mine.html")],
        ["chart", str(study), "--out", str(other / "charts")],
        ["strategy-chart", "export", str(run), "--out", str(other / "gin.chart")],
    ):
        one_line(cli(*args), 1, "is inside another study's folder",
                 "rummy never writes into another study's folder")  # fmt: skip
    assert (other / "report.html").read_bytes() == report
    assert sorted((other / "charts").iterdir()) == charts
    assert not (other / "mine.html").exists() and not (other / "gin.chart").exists()
    # its own folder stays allowed: the study's, or one of its runs'
    run = next(p.parent for p in study.glob("*/manifest.json"))
    for args in (
        ["report", str(study), "--out", str(study / "again.html")],
        ["report", str(run), "--out", str(study / "run.html")],  # a run of the study
        ["chart", str(study), "--out", str(study / "more-charts")],
    ):
        done = cli(*args)
        assert done.exit_code == 0, (args, done.output)


# --- hypothesis --------------------------------------------------------------------------------


def _fuzz(results: dict[str, Path], tmp: Path, examples: int, derandomize: bool) -> None:
    counter = iter(range(10**9))
    commands = _commands(results)

    @settings(max_examples=examples, deadline=None, derandomize=derandomize, database=None,
              suppress_health_check=list(HealthCheck))  # fmt: skip
    @given(
        st.sampled_from(sorted(commands)),
        st.sampled_from(sorted(MAKERS)),
        st.integers(min_value=0, max_value=2),  # links to follow to the node
        st.sampled_from(["", "./", "sub/../"]),
    )
    def one(command: str, node: str, links: int, prefix: str) -> None:
        case = tmp / f"case-{next(counter)}"
        (case / "sub").mkdir(parents=True)
        make, what = MAKERS[node]
        make(case / "node")
        kinds = {"node": _kind(case / "node")}
        target = case / "node"
        for i in range(links):
            (case / f"link{i}").symlink_to(target.name)
            target = case / f"link{i}"
            kinds[target.name] = _kind(target)
        given_path = str(case / prefix) + "/" + target.name if prefix else str(target)
        err = one_line(cli(*commands[command], given_path), 1, f"is {what}", ALLOWED)
        assert ("a link to" in err) == (links > 0), err
        assert {p.name: _kind(p) for p in case.iterdir() if p.name != "sub"} == kinds

    one()


def test_out_targets_fast_slice(results: dict[str, Path], tmp_path: Path, dev_null: None) -> None:
    _fuzz(results, tmp_path, examples=25, derandomize=True)


@pytest.mark.slow
def test_out_targets_many(results: dict[str, Path], tmp_path: Path, dev_null: None) -> None:
    _fuzz(results, tmp_path, examples=400, derandomize=False)
