"""A study is what its record says: every loader of a study's runs reads the runs its
record lists, each checked to be the run it names (``sim.study.rundir.listed_runs``).

One small study of every kind with run folders (an experiment of whole games, a sweep, a
comparison, a tournament, a tune, a run and a strategy chart's run) is made once for
the module. Hypothesis then damages a copy of one of them as a user, a sync tool or a
bad copy could: a listed run folder deleted, emptied or replaced by a file, two listed
folders renamed into each other's names, another study's intact run copied in under a
listed name, or a foreign intact run added beside them; and reads it with every loader
of its runs (``scan_hands``, ``scan_players``, ``scan_games``, ``study_runs`` and the
study's own ``*_runs``). Each damage is refused in one line naming the folder, never
read as fewer or more rows; the one exception is by design: an experiment's folder may
keep runs of its earlier versions (made before a code edit changed their ids), so a
run its record does not list is left unread there, and the rows are the clean ones.
The repair each refusal gives is followed, and the study then reads as before.

The default suite plays a derandomized slice; ``-m slow`` many more examples.
"""

from __future__ import annotations

import json
import shlex
import shutil
import sys
import tempfile
from collections.abc import Callable
from pathlib import Path
from typing import Any
from unittest import mock

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from typer.testing import CliRunner

from sim.cli import app
from sim.study.compare import comparison_runs
from sim.study.experiment_store import (
    load_results,
    scan_games,
    scan_hands,
    scan_players,
    study_runs,
)
from sim.study.tournament import tournament_runs
from sim.study.tune import tune_runs

GAMES_EXPERIMENT = """
name = "games_exp"
seed = 4
games = 3
seats = "greedy:knock_at={k}/simple"
[rules]
preset = "gin"
[grid]
k = [5, 9]
"""
RECORDS = {
    "experiment.json": lambda r: r["analysis"]["runs"],
    "comparison.json": lambda r: r["runs"],
    "tournament.json": lambda r: r["runs"],
    "tune.json": lambda r: r["runs"],
}
STUDIES = ("experiment", "sweep", "compare", "tournament", "tune")


def cli(*args: str) -> dict[str, Any]:
    """A command, recorded as typed (its record keeps ``sys.argv``: the repairs replay it)."""
    typed = [*args, "-w", "1", "--json"]
    with mock.patch.object(sys, "argv", ["rummy", *typed]):
        done = CliRunner().invoke(app, typed)
    assert done.exit_code == 0, (args, done.output)
    return json.loads(done.stdout)


@pytest.fixture(scope="module")
def made(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    """One finished study of every kind (its folder), a run and a strategy chart's run."""
    root = tmp_path_factory.mktemp("studies")
    out = str(root / "results")
    file = root / "games_exp.toml"
    file.write_text(GAMES_EXPERIMENT)
    cli("run", str(file), "--chunk-size", "2", "--out", out)
    cli("sweep", "--rules", "gin", "--seats", "greedy:knock_at={k}/simple", "--grid",
        "k=5,6", "--deals", "200", "--seed", "3", "--chunk-size", "100", "--out", out,
        "--name", "sw")  # fmt: skip
    cli("compare", "--rules", "gin", "--seats", "greedy/simple", "--vs-seats", "simple/simple",
        "--deals", "200", "--seed", "3", "--out", out)  # fmt: skip
    cli("tournament", "-s", "greedy,simple", "--rules", "gin", "--deals", "100", "--seed", "3",
        "--out", out)  # fmt: skip
    cli("tune", "greedy", "--param", "knock_at=5,6", "--against", "simple", "--rules", "gin",
        "--deals", "100", "--seed", "3", "--out", out)  # fmt: skip
    run = cli("run", "--rules", "gin", "--seats", "greedy/simple", "--deals", "150", "--seed",
              "4", "--chunk-size", "50", "--out", out, "--name", "one")  # fmt: skip
    chart = cli("strategy-chart", "knock", "--rules", "gin", "--seats", "greedy", "--deals",
                "40", "--samples", "2", "--seed", "3", "--out", out, "--name", "knock")  # fmt: skip
    results = Path(out)
    return {
        "experiment": results / "games_exp",
        "sweep": results / "sw",
        "compare": next((results / "compare").iterdir()),
        "tournament": next((results / "tournament").iterdir()),
        "tune": next((results / "tune").iterdir()),
        "run": Path(run["run_dir"]),
        "chart": Path(chart["run_dir"]),
    }


def listed(folder: Path) -> list[str]:
    """The run ids the study's record lists, in its order (read as plain JSON here)."""
    for name, runs_of in RECORDS.items():
        if (folder / name).exists():
            runs = runs_of(json.loads((folder / name).read_text()))
            return list(dict.fromkeys(r["run_id"] for r in runs))
    raise AssertionError(f"{folder}: no record")


def loaders(kind: str) -> dict[str, Callable[[Path], Any]]:
    """Every loader that reads the runs of a study of ``kind``, as what it returns."""
    out: dict[str, Callable[[Path], Any]] = {
        "scan_hands": lambda f: scan_hands(f).collect(),
        "scan_players": lambda f: scan_players(f).collect(),
        "study_runs": lambda f: [p.name for p in study_runs(f)],
    }
    if kind == "experiment":  # whole games
        out["scan_games"] = lambda f: scan_games(f).collect()
        out["scan_players games"] = lambda f: scan_players(f, "games").collect()
    own = {"compare": comparison_runs, "tournament": tournament_runs, "tune": tune_runs}
    if kind in own:
        out[f"{kind}_runs"] = lambda f: [p.name for p in own[kind](f)]
    return out


def copy_of(folder: Path, where: Path) -> Path:
    """A copy of a study laid out as made (``ROOT/compare/ID``), to damage."""
    kind = folder.parent.name  # compare, tournament, tune; else the results root
    copy = where / "results" / (f"{kind}/{folder.name}" if kind in STUDIES else folder.name)
    shutil.copytree(folder, copy)
    return copy


def one_line_naming(error: BaseException, *folders: Path) -> None:
    text = str(error)
    assert "\n" not in text and "Traceback" not in text, text
    assert any(str(f) in text for f in folders), f"names none of {folders}: {text}"


def damage(kind: str, copy: Path, donor: Path, how: str, i: int, j: int) -> list[Path]:
    """Damage the copy ``how``; the folders a refusal may name (empty: nothing to refuse)."""
    runs = [copy / run_id for run_id in listed(copy)]
    one, other = runs[i % len(runs)], runs[j % len(runs)]
    if how == "deleted":
        shutil.rmtree(one)
    elif how == "emptied":
        shutil.rmtree(one)
        one.mkdir()
    elif how == "a file":
        shutil.rmtree(one)
        one.write_text("not a run\n")
    elif how == "copied in":  # another study's intact run under a listed name
        shutil.rmtree(one)
        shutil.copytree(donor, one)
    elif how == "swapped":  # two listed folders renamed into each other's names
        if one == other:
            other = runs[(runs.index(one) + 1) % len(runs)]
        one.rename(copy / "swap")
        other.rename(one)
        (copy / "swap").rename(other)
        return [one, other]
    elif how.startswith("added"):  # a foreign intact run beside the listed ones
        name = {"added": donor.name, "added renamed": "0123456789ab"}[how]
        shutil.copytree(donor, copy / name)
        return [] if kind in ("experiment", "sweep") else [copy / name]
    return [one]


DAMAGES = ("deleted", "emptied", "a file", "copied in", "swapped", "added", "added renamed")


def _fuzz(examples: int, derandomize: bool, made: dict[str, Path]) -> None:
    clean = {kind: {n: load(made[kind]) for n, load in loaders(kind).items()} for kind in STUDIES}

    @settings(max_examples=examples, deadline=None, derandomize=derandomize, database=None,
              suppress_health_check=list(HealthCheck))  # fmt: skip
    @given(
        st.sampled_from(STUDIES),
        st.sampled_from(DAMAGES),
        st.sampled_from(["run", "chart", *STUDIES]),
        st.integers(0, 7),
        st.integers(0, 7),
        st.data(),
    )
    def damaged(kind: str, how: str, donor_kind: str, i: int, j: int, data: st.DataObject) -> None:
        reads = loaders(kind)
        name = data.draw(st.sampled_from(sorted(reads)), label="loader")
        if donor_kind == kind:
            donor_kind = "run"
        source = made[donor_kind]
        donor = source if (source / "manifest.json").exists() else source / listed(source)[0]
        with tempfile.TemporaryDirectory() as tmp:
            copy = copy_of(made[kind], Path(tmp))
            named = damage(kind, copy, donor, how, i, j)
            where = f"{kind}, {how}, donor {donor_kind}, {name}"
            if not named:  # a run an experiment's record does not list: not read
                got = reads[name](copy)
                want = clean[kind][name]
                assert got.equals(want) if hasattr(got, "equals") else got == want, where
                return
            with pytest.raises(ValueError) as refused:
                reads[name](copy)
            one_line_naming(refused.value, *named)

    damaged()


def test_damaged_run_folders_fast_slice(made: dict[str, Path]) -> None:
    _fuzz(30, True, made)


@pytest.mark.slow
def test_damaged_run_folders_many(made: dict[str, Path]) -> None:
    _fuzz(400, False, made)


@pytest.mark.parametrize("kind", STUDIES)
def test_every_loader_of_an_intact_study_reads_exactly_its_listed_runs(
    made: dict[str, Path], kind: str
) -> None:
    folder = made[kind]
    ids = listed(folder)
    assert [p.name for p in study_runs(folder)] == ids
    hands = scan_hands(folder).collect()
    per_run = {run_id: scan_hands(folder / run_id).collect().height for run_id in ids}
    assert hands.height == sum(per_run.values()) > 0


@pytest.mark.parametrize("how", ["deleted", "swapped", "copied in"])
@pytest.mark.parametrize("kind", STUDIES)
def test_every_refusal_names_a_repair_that_works(
    made: dict[str, Path], tmp_path: Path, kind: str, how: str
) -> None:
    """Follow the refusal's own words (delete the folder named, play it again with the
    command given, from another folder): the study then reads exactly as before."""
    before = scan_hands(made[kind]).collect()
    copy = copy_of(made[kind], tmp_path / "elsewhere")
    damage(kind, copy, made["run"], how, 0, 1)
    with pytest.raises(ValueError) as refused:
        scan_hands(copy)
    text = str(refused.value)
    assert "play it again with: rummy " in text, text
    if "; delete " in text:  # the folder named, and the others the line says are wrong
        first, rest = text.split(" ", 1)[0], text.partition("(also wrong: ")[2]
        others = rest.partition(")")[0].split(", ") if rest else []
        for folder in [Path(first), *(copy / name for name in others)]:
            assert folder.parent == copy, text
            if folder.exists():
                shutil.rmtree(folder)
    command = shlex.split(text.split("play it again with: ", 1)[1])
    assert command[0] == "rummy", text
    done = CliRunner().invoke(app, command[1:])
    assert done.exit_code == 0, (command, done.output)
    assert scan_hands(copy).collect().equals(before)


@pytest.mark.parametrize("kind", ["compare", "tournament", "tune"])
def test_a_foreign_run_is_refused_until_it_is_moved_out(
    made: dict[str, Path], tmp_path: Path, kind: str
) -> None:
    copy = copy_of(made[kind], tmp_path)
    shutil.copytree(made["run"], copy / made["run"].name)
    with pytest.raises(ValueError, match="does not list") as refused:
        scan_hands(copy)
    text = str(refused.value)
    assert text.startswith(f"{copy / made['run'].name} is a run") and text.endswith(
        f"move it out of {copy}"
    ), text
    shutil.move(copy / made["run"].name, tmp_path / "moved")
    assert scan_hands(copy).collect().equals(scan_hands(made[kind]).collect())


def test_an_experiment_keeps_runs_it_does_not_list_unread(
    made: dict[str, Path], tmp_path: Path
) -> None:
    """An experiment's folder may hold runs of an earlier version of it (same name, older
    code): they are never read, and the folder reads as its record says."""
    copy = copy_of(made["sweep"], tmp_path)
    stale = copy / "000000000000"
    shutil.copytree(copy / listed(copy)[0], stale)
    assert scan_hands(copy).collect().equals(scan_hands(made["sweep"]).collect())
    assert "000000000000" not in [p.name for p in study_runs(copy)]


def test_the_tables_of_a_study_load_without_its_runs(made: dict[str, Path], tmp_path: Path) -> None:
    """``load_results`` (``rummy.load``, ``rummy report``) reads an experiment's tables,
    each checked against its record, not its runs: its numbers hold without them."""
    copy = copy_of(made["sweep"], tmp_path)
    for run_id in listed(copy):
        shutil.rmtree(copy / run_id)
    assert load_results(copy).summary.equals(load_results(made["sweep"]).summary)
    with pytest.raises(ValueError, match="is missing, but experiment.json lists run"):
        scan_hands(copy)


@pytest.mark.parametrize("kind", ["run", "chart"])
def test_a_deleted_run_folder_is_one_line(made: dict[str, Path], tmp_path: Path, kind: str) -> None:
    """A run (or a chart's run) is its own record: a deleted one is one line naming it."""
    gone = tmp_path / made[kind].name
    with pytest.raises(ValueError) as refused:
        scan_hands(gone)
    one_line_naming(refused.value, gone)
    result = CliRunner().invoke(app, ["report", str(gone)])
    assert result.exit_code == 1, result.output
    lines = [line for line in result.stderr.splitlines() if line.strip()]
    assert len(lines) == 1 and str(gone) in lines[0], result.stderr


def test_a_tune_record_lists_every_run_it_played(made: dict[str, Path]) -> None:
    """Settings, the default as a reference, and the confirmation's fresh deals."""
    folder = made["tune"]
    record = json.loads((folder / "tune.json").read_text())
    played = sorted(p.parent.name for p in folder.glob("*/manifest.json"))
    assert sorted(r["run_id"] for r in record["runs"]) == played
    default = record["default"]["setting"]  # not in the space: played as a reference
    assert {r["setting"] for r in record["runs"]} == {"knock_at=5", "knock_at=6", default}
    assert len({r["seed"] for r in record["runs"]}) == 2  # the search's and the confirmation's


def test_a_study_in_an_object_store_is_what_its_record_says(s3: Any) -> None:
    """A tournament in S3 reads its listed runs; one of them deleted is one line naming it."""
    from sim import store

    uri = s3.uri(s3.bucket(), "listed")
    cli("tournament", "-s", "greedy,simple", "--rules", "gin", "--deals", "60", "--seed", "3",
        "--out", uri)  # fmt: skip
    (folder,) = (store.location(uri) / "tournament").iterdir()
    runs = study_runs(folder)
    assert len(runs) == 2 and scan_hands(folder).collect().height == 120
    runs[1].remove_tree()
    with pytest.raises(ValueError) as refused:
        scan_hands(folder)
    one_line_naming(refused.value, runs[1])
    assert "is missing, but tournament.json lists run" in str(refused.value)
