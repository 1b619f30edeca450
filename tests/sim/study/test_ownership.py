"""A study owns only what it wrote (issue 39, item 1).

``--force`` replaces another study in the named folder: it deletes exactly that study's
own entries (its record, tables, charts folder of charts, report, and the run folders
whose manifests name them) and refuses, in one line and with every byte unchanged, a
folder holding anything else: a user's files beside an earlier sweep (the reported
``myproject/`` with ``src/main.py`` and a README), a foreign file in its charts, a link
(even one named like a run, which would have led the removal out of the folder). A
study is never written into a folder of someone else's files, ``--force`` or not. A
results root that is a study's folder, or inside one, is refused for every study kind
(``--out STUDY`` nested a new study inside another).

Hypothesis adds random foreign entries (files, folders, links, hidden names, names a
study writes but of the wrong kind) to a finished study's folder: ``--force`` is refused
every time, nothing changed; a derandomized slice runs in the default suite, many more
examples under ``-m slow``.
"""

from __future__ import annotations

import hashlib
import json
import os
import shutil
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from typer.testing import CliRunner

from sim.cli import app
from tests.support.cli import one_line

SWEEP = ["sweep", "--rules", "gin", "--seats", "greedy:knock_at={k}/simple", "--deals", "300",
         "--seed", "3", "-w", "1"]  # fmt: skip
FIRST = [*SWEEP, "--grid", "k=5..6"]
OTHER = [*SWEEP, "--grid", "k=7..8"]


def cli(*args: str) -> Any:
    return CliRunner().invoke(app, list(args))


def snapshot(folder: Path) -> dict[str, str]:
    """Every entry under ``folder`` (links not followed, hidden ones too) and what it is:
    a file's sha256, a link's target, or "folder"."""
    found = {}
    for path in sorted(folder.rglob("*")):
        key = str(path.relative_to(folder))
        if path.is_symlink():
            found[key] = "-> " + os.readlink(path)
        elif path.is_dir():
            found[key] = "folder"
        else:
            found[key] = hashlib.sha256(path.read_bytes()).hexdigest()
    return found


@pytest.fixture(scope="module")
def finished(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A finished sweep's folder (``<root>/myproject``), to copy."""
    root = tmp_path_factory.mktemp("finished")
    done = cli(*FIRST, "--out", str(root), "--name", "myproject")
    assert done.exit_code == 0, done.output
    return root / "myproject"


@pytest.fixture
def project(finished: Path, tmp_path: Path) -> Path:
    """A copy of the finished sweep's folder at ``tmp_path/scratch/myproject``."""
    folder = tmp_path / "scratch" / "myproject"
    shutil.copytree(finished, folder, symlinks=True)
    return folder


def force_other(folder: Path) -> Any:
    return cli(*OTHER, "--out", str(folder.parent), "--name", folder.name, "--force")


REFUSED = "no study wrote there; rummy writes a study only into a folder of its own"


def test_force_beside_a_users_files_is_refused_and_deletes_nothing(project: Path) -> None:
    """The reported case: before, exit 0 and ``src/`` and the README were gone."""
    (project / "src").mkdir()
    (project / "src" / "main.py").write_text("print('mine')\n")
    (project / "README").write_text("my project\n")
    before = snapshot(project)
    one_line(force_other(project), 1, f"{project} holds README, a file that", REFUSED)
    assert snapshot(project) == before


def test_force_replaces_exactly_the_other_studys_own_entries(project: Path) -> None:
    """Its runs, tables, charts and report go; this study's are there instead."""
    old_runs = {p.parent.name for p in project.glob("*/manifest.json")}
    done = force_other(project)
    assert done.exit_code == 0, done.output
    record = json.loads((project / "experiment.json").read_text())
    assert record["experiment"]["grid"] == {"k": [7, 8]}
    runs = {p.parent.name for p in project.glob("*/manifest.json")}
    assert len(runs) == 2 and not runs & old_runs
    names = {p.name for p in project.iterdir()}
    assert {"charts", "report.html", "summary.parquet", ".lock"} <= names
    assert not list(project.rglob("*.tmp"))


@pytest.mark.parametrize("where", ["run", "charts", "charts/outcome_mix.png", "report.html"])
def test_a_link_is_never_followed_out_of_the_folder(project: Path, tmp_path: Path,
                                                    where: str) -> None:  # fmt: skip
    """A link named like a run (or the charts folder, a chart, the report) to a folder
    of the user's: refused, the link and what it leads to untouched."""
    victim = tmp_path / "victim"
    victim.mkdir()
    (victim / "precious.txt").write_text("keep me\n")
    if where == "run":
        name = "abcdef012345"  # a run id's form
    else:
        name = where
        target = project / name
        shutil.rmtree(target) if target.is_dir() else target.unlink()
    (project / name).symlink_to(victim, target_is_directory=True)
    before, kept = snapshot(project), snapshot(victim)
    shown = name.split("/")[0]
    kind = "folder" if "/" in name else "link"
    one_line(force_other(project), 1, f"holds {shown}, a {kind} that", REFUSED)
    assert snapshot(project) == before and snapshot(victim) == kept


def test_a_foreign_file_among_the_charts_is_refused(project: Path) -> None:
    (project / "charts" / "my_notes.txt").write_text("mine\n")
    before = snapshot(project)
    one_line(force_other(project), 1, "holds charts, a folder that", REFUSED)
    assert snapshot(project) == before


def test_a_study_is_never_written_into_a_folder_of_other_files(tmp_path: Path) -> None:
    """No record there, a user's file: refused with --force or without, and nothing
    written (not even the study's lock)."""
    folder = tmp_path / "scratch" / "myproject"
    folder.mkdir(parents=True)
    (folder / "notes.txt").write_text("mine\n")
    for force in ([], ["--force"]):
        result = cli(*OTHER, "--out", str(folder.parent), "--name", "myproject", *force)
        one_line(result, 1, "holds notes.txt, a file that", REFUSED)
        assert [p.name for p in folder.iterdir()] == ["notes.txt"]


def test_a_damaged_record_is_replaced_with_force_only(project: Path) -> None:
    """Its own entries are known by their names and manifests even when its record is
    not readable: refused without --force (nothing changed), and with it while a file of
    the user's is there (before: deleted), replaced once it is not."""
    record = project / "experiment.json"
    record.write_text(record.read_text().replace('"k"', '"K"', 1))
    before = snapshot(project)
    one_line(cli(*OTHER, "--out", str(project.parent), "--name", "myproject"), 1,
             "holds another study (its record is damaged)", "--force to replace it")  # fmt: skip
    assert snapshot(project) == before
    (project / "notes.txt").write_text("mine\n")
    one_line(force_other(project), 1, "holds notes.txt, a file that", REFUSED)
    (project / "notes.txt").unlink()
    assert snapshot(project) == before
    done = force_other(project)
    assert done.exit_code == 0, done.output


def test_a_linked_study_folder_is_replaced_inside_it(project: Path, tmp_path: Path) -> None:
    """The folder itself may be a link (a study kept on another disk): --force works
    inside it by the same rules, and the link stays."""
    root = tmp_path / "links"
    root.mkdir()
    (root / "myproject").symlink_to(project, target_is_directory=True)
    (project / "README").write_text("mine\n")
    one_line(force_other(root / "myproject"), 1, "holds README, a file that")
    (project / "README").unlink()
    done = force_other(root / "myproject")
    assert done.exit_code == 0, done.output
    assert (root / "myproject").is_symlink()
    assert json.loads((project / "experiment.json").read_text())["experiment"]["grid"] == {
        "k": [7, 8]
    }


@pytest.mark.parametrize(
    ("name", "kind"),
    [("report.html", "folder"), ("summary.parquet", "folder"), ("charts", "file"),
     ("experiment.json", "folder"), ("charts", "link")],
)  # fmt: skip
def test_an_own_name_of_another_kind_is_refused(project: Path, tmp_path: Path, name: str,
                                                kind: str) -> None:  # fmt: skip
    """A study's own name holding something it never writes there is not its own."""
    path = project / name
    shutil.rmtree(path) if path.is_dir() else path.unlink()
    if kind == "folder":
        path.mkdir()
    elif kind == "file":
        path.write_text("mine\n")
    else:
        path.symlink_to(tmp_path, target_is_directory=True)
    before = snapshot(project)
    result = force_other(project)
    if name == "experiment.json":  # no record: another study's files, then the folder
        one_line(result, 1, "holds experiment.json, a folder that", REFUSED)
    else:
        one_line(result, 1, f"holds {name}, a {kind} that", REFUSED)
    assert snapshot(project) == before


# --- a results root inside a study ------------------------------------------------------------

ROOTED = {
    "run": ["run", "--seats", "greedy/simple", "--deals", "20"],
    "run-experiment": ["run", "--seats", "greedy/simple", "--deals", "20", "--duplicate"],
    "sweep": ["sweep", "--seats", "greedy:knock_at={k}/simple", "--grid", "k=1,2", "--deals", "20"],
    "compare": ["compare", "--seats", "greedy/simple", "--vs-seats", "simple/greedy",
                "--deals", "20"],
    "tournament": ["tournament", "--strategies", "greedy,simple", "--deals", "20"],
    "tune": ["tune", "greedy", "--param", "knock_at=0..3", "--against", "simple", "--deals", "20"],
    "strategy-chart": ["strategy-chart", "knock", "--seats", "greedy:knock_at=0", "--deals", "20"],
    "solve": ["strategy-chart", "solve", "--seats", "greedy:knock_at=0", "--deals", "20"],
}  # fmt: skip


@pytest.mark.parametrize("kind", sorted(ROOTED))
@pytest.mark.parametrize("inside", ["", "charts", "deeper/still"])
def test_a_results_root_in_a_study_is_refused(finished: Path, kind: str, inside: str) -> None:
    """``--out STUDY`` (or a folder inside it) nested a new study in another's folder."""
    before = snapshot(finished)
    out = finished / inside if inside else finished
    result = cli(*ROOTED[kind], "--out", str(out))
    where = "is a study's folder" if not inside else "is inside the study folder"
    one_line(result, 1, where, "a results root holds studies, not the other way round")
    assert snapshot(finished) == before


# --- hypothesis: foreign entries of every kind -------------------------------------------------

NAMES = st.one_of(
    st.sampled_from(["README", "src", ".git", ".hidden", "notes.txt", "abcdef012345",
                     "000000000000", "charts", "report.html", "summary.parquet",
                     "experiment.json.bak", "data.parquet", "x.tmp", "manifest.json"]),
    st.text(alphabet="abcdefXYZ0189._- é", min_size=1, max_size=12),
)  # fmt: skip
KINDS = st.sampled_from(["file", "folder", "folder with a file", "link to a folder",
                         "link to a file", "dangling link"])  # fmt: skip


def _add(folder: Path, name: str, kind: str, outside: Path) -> bool:
    """Put a foreign entry ``name`` of ``kind`` in ``folder``; False when the name is
    taken (the study's own: :func:`test_an_own_name_of_another_kind_is_refused`)."""
    path = folder / name
    if name in (".", "..") or path.exists() or path.is_symlink():
        return False
    if kind == "file":
        path.write_text("mine\n")
    elif kind == "folder":
        path.mkdir()
    elif kind == "folder with a file":
        path.mkdir()
        (path / "mine.txt").write_text("mine\n")
    elif kind == "link to a folder":
        path.symlink_to(outside, target_is_directory=True)
    elif kind == "link to a file":
        path.symlink_to(outside / "precious.txt")
    else:
        path.symlink_to(outside / "nothing-here")
    return True


def _fuzz(finished: Path, tmp: Path, examples: int, derandomize: bool) -> None:
    counter = iter(range(10**9))

    @settings(max_examples=examples, deadline=None, derandomize=derandomize, database=None,
              suppress_health_check=list(HealthCheck))  # fmt: skip
    @given(st.lists(st.tuples(NAMES, KINDS, st.booleans()), min_size=1, max_size=3))
    def one(entries: list[tuple[str, str, bool]]) -> None:
        case = tmp / f"case-{next(counter)}"
        folder = case / "myproject"
        shutil.copytree(finished, folder, symlinks=True)
        outside = case / "outside"
        outside.mkdir()
        (outside / "precious.txt").write_text("keep me\n")
        added = [
            _add(folder / "charts" if in_charts else folder, name, kind, outside)
            for name, kind, in_charts in entries
        ]
        if not any(added):
            shutil.rmtree(case)
            return
        before, kept = snapshot(folder), snapshot(outside)
        result = force_other(folder)
        if result.exit_code == 0:  # only leftovers were added: hidden temporaries, kept
            added_names = {name for name, _, _ in entries}
            assert all(n.startswith(".") and n.endswith(".tmp") for n in added_names), entries
            after = snapshot(folder)
            assert all(after[k] == v for k, v in before.items() if k.endswith(".tmp")), entries
        else:
            one_line(result, 1, REFUSED)
            assert snapshot(folder) == before
        assert snapshot(outside) == kept
        shutil.rmtree(case)

    one()


def test_foreign_entries_fast_slice(finished: Path, tmp_path: Path) -> None:
    _fuzz(finished, tmp_path, examples=12, derandomize=True)


@pytest.mark.slow
def test_foreign_entries_many(finished: Path, tmp_path: Path) -> None:
    _fuzz(finished, tmp_path, examples=300, derandomize=False)
