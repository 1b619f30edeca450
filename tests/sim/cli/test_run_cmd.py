"""``rummy run``, ``rummy sweep``, ``rummy chart``, ``rummy report`` through typer's CliRunner.

Most tests patch ``sim.study.execute.execute`` and assert the exact ``RunConfig`` the flags build
(as fastapi-cli's tests patch ``uvicorn.run``); a tiny end-to-end run of 300 deals,
its ``--resume``, charts and report, and a tiny sweep run for real, in this process.
"""

from __future__ import annotations

import base64
import json
import re
import sys
from pathlib import Path
from typing import Any

import pyarrow as pa
import pyarrow.parquet as pq
import pytest
from typer.testing import CliRunner

from sim.cli import app
from sim.rules import get_rules
from sim.study import load_hands
from sim.study import runs as R
from sim.study.execute import LOCAL, Executor
from sim.study.experiment_file import load_experiment, replace_checked
from sim.study.settings import expand
from tests.support.cli import replace_execute

cli = CliRunner()


class Stop(Exception):
    """Raised by the fake ``run`` once it has seen the config."""


class Captured(list[R.RunConfig]):
    """The first run the study executor was given; ``executors``: how it was to play."""

    def __init__(self) -> None:
        super().__init__()
        self.executors: list[Executor] = []


@pytest.fixture
def captured(monkeypatch: pytest.MonkeyPatch) -> Captured:
    """Replace the study executor by a recorder of the first run it is given, that stops."""
    seen = Captured()

    def fake_execute(
        configs: list[R.RunConfig], executor: Executor = LOCAL, **options: Any
    ) -> list[R.RunResult]:
        seen.append(configs[0])
        seen.executors.append(executor)
        raise R.RunError("stopped by the test")

    replace_execute(monkeypatch, fake_execute)
    return seen


def invoke(*args: str) -> Any:
    return cli.invoke(app, list(args))


def one_line_error(result: Any, expected: str) -> None:
    assert result.exit_code == 1, result.output
    assert "Traceback" not in result.output
    err = result.stderr.strip()
    assert err.count("\n") == 0, err
    assert err.startswith("error: ") and expected in err, err


# --- the RunConfig built from flags ----------------------------------------------------------


def test_run_flags_build_the_exact_config(captured: Captured, tmp_path: Path) -> None:
    result = invoke(
        "run",
        "--rules", "gin",
        "--rule", "knock_limit=7",
        "--rule", "undercut_bonus=20",
        "--seats", "greedy:knock_at=7/simple",
        "--deals", "5000",
        "--seed", "7",
        "--workers", "3",
        "--out", str(tmp_path),
        "--name", "mine",
        "--rows", "none",
        "--chunk-size", "1000",
    )  # fmt: skip
    one_line_error(result, "stopped by the test")
    assert captured == [
        R.RunConfig(
            rules=get_rules("gin", knock_limit=7, undercut_bonus=20),
            lineup=("greedy:knock_at=7", "simple"),
            count=5000,
            mode="deals",
            experiment="mine",
            seed=7,
            chunk_size=1000,
            rows="none",
            out=tmp_path,
        )
    ]
    assert captured.executors == [Executor(workers=3)]


def test_run_defaults_games_and_one_spec_per_seat(captured: Captured, tmp_path: Path) -> None:
    result = invoke(
        "run", "--rules", "knock-rummy", "--seats", "greedy", "--seats", "simple",
        "--seats", "greedy", "--seats", "simple", "--games", "40", "--out", str(tmp_path),
    )  # fmt: skip
    one_line_error(result, "stopped by the test")
    (config,) = captured
    assert config.mode == "games" and config.count == 40 and config.players == 4
    assert config.lineup == ("greedy", "simple", "greedy", "simple")
    assert config.experiment == "default" and config.rows == "hands"
    assert captured.executors == [LOCAL] and config.chunk_size == R.CHUNK_GAMES
    # no --seed: a fresh one is drawn and used (the seed line comes with the first
    # progress, which this fake executor never gives: sim.cli.output.study_progress)
    assert config.seed is not None and config.seed > 2**64  # 128 bits: below once in 2**64


def test_run_experiment_file_with_flag_overrides(captured: Captured, tmp_path: Path) -> None:
    toml = tmp_path / "e.toml"
    toml.write_text(
        'name = "e"\nseed = 3\ndeals = 100\nseats = "greedy:knock_at={k}/simple"\n'
        "duplicate = true\n[grid]\nk = [2, 8]\n"
    )
    result = invoke(
        "run", str(toml), "--deals", "250", "--seed", "9", "--workers", "1",
        "--out", str(tmp_path / "out"), "--rows", "none",
    )  # fmt: skip
    one_line_error(result, "stopped by the test")
    (config,) = captured  # the first run of the first setting
    expected = expand(
        replace_checked(load_experiment(toml), count=250, seed=9, rows="none"),
        out=tmp_path / "out",
    )[0].configs[0]
    assert config == expected and captured.executors == [Executor(workers=1)]
    assert (config.seed, config.count, config.rows, config.lineup) == (
        9, 250, "none", ("greedy:knock_at=2", "simple"),
    )  # fmt: skip
    assert "e: 2 settings, 4 runs of 250 deals (duplicate), 1 worker" in result.stdout


def test_sweep_builds_the_grid(captured: list[R.RunConfig], tmp_path: Path) -> None:
    result = invoke(
        "sweep", "--rules", "gin", "--seats", "greedy:knock_at={k}/simple",
        "--grid", "k=0..10", "--grid", "rule.undercut_bonus=10,25", "--deals", "100",
        "--seed", "1", "--workers", "1", "--out", str(tmp_path),
    )  # fmt: skip
    one_line_error(result, "stopped by the test")
    (config,) = captured
    assert re.fullmatch("sweep-[0-9a-f]{12}", config.experiment)  # a folder of its own
    assert config.seed == 1 and config.count == 100
    assert config.lineup == ("greedy:knock_at=0", "simple")
    assert config.rules.undercut_bonus == 10  # type: ignore[union-attr]
    assert f"{config.experiment}: 22 settings, 22 runs of 100 deals" in result.stdout


def test_sweep_with_two_presets_makes_variants(captured: list[R.RunConfig], tmp_path: Path) -> None:
    result = invoke(
        "sweep", "--rules", "gin", "--rules", "gin-classic", "--seats",
        "greedy:knock_at={k}/simple", "--grid", "k=3,9", "--deals", "10", "--seed", "2",
        "--workers", "1", "--out", str(tmp_path), "--duplicate",
    )  # fmt: skip
    one_line_error(result, "stopped by the test")
    assert captured[0].variant == "gin" and "4 settings, 8 runs" in result.stdout


# --- errors: one line on stderr, exit 1, nothing written ------------------------------------


@pytest.mark.parametrize(
    ("args", "expected"),
    [
        (["run", "--rules", "nope", "--seats", "greedy"], "unknown preset 'nope'; choose one of:"),
        (["run", "--rule", "colour=red", "--seats", "greedy"], "unknown parameter 'colour'"),
        (["run", "--seats", "greedee"], "unknown strategy 'greedee'; choose one of:"),
        (
            ["run", "--seats", "greedy:knock_when=3"],
            "unknown parameter 'knock_when' for strategy greedy",
        ),
        (["run", "--deals", "5"], "--seats, FILE: none given; give a line-up"),
        (
            ["run", "--seats", "greedy", "--deals", "5", "--games", "5"],
            "--deals, --games: give one, not both",
        ),
        (["run", "--seats", "greedy", "--address", "x:1"], "--address needs --backend ray"),
        (
            ["run", "--rules", "gin", "--seats", "greedy", "--games", "3", "--rule", "game=hand"],
            "have game='hand'",
        ),
        (["run", "missing.toml"], "missing.toml: no such experiment file"),
        (["run", "--seats", "greedy", "--backend", "ray"], "backend 'ray' needs Ray: pip install"),
        (["run", "--resume", "nowhere"], "nowhere: nothing to resume"),
        (
            ["sweep", "--seats", "greedy:knock_at={k}/simple", "--grid", "k"],
            "bad --grid 'k': write key=values",
        ),
        (
            ["sweep", "--seats", "greedy:knock_at={k}/simple", "--grid", "k=5..1"],
            "range '5..1' is empty",
        ),
        (
            ["sweep", "--seats", "greedy:knock_at={k}/simple", "--grid", "j=1,2"],
            "seats uses {k} but the grid has no key 'k'",
        ),
        (
            [
                "sweep",
                "--seats",
                "greedy:knock_at={k}/simple",
                "--grid",
                "k=1,2",
                "--grid",
                "rule.players=2,3",
            ],
            "needs players=2",
        ),
        (["sweep", "--seats", "greedy/simple"], "--grid: give at least one placeholder"),
        (["chart", "nowhere"], "nowhere: no such directory or file"),
        (["report", "nowhere"], "nowhere: no such directory or file"),
    ],
)
def test_errors_are_one_line(
    args: list[str],
    expected: str,
    captured: list[R.RunConfig],
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.chdir(tmp_path)
    monkeypatch.setitem(sys.modules, "ray", None)  # as if Ray were not installed
    result = invoke(*args)
    one_line_error(result, expected)
    assert captured == []  # nothing ran
    assert not (tmp_path / "results").exists()  # nothing written


def test_experiment_file_errors(tmp_path: Path, captured: list[R.RunConfig]) -> None:
    bad = tmp_path / "bad.toml"
    bad.write_text('name = "a"\ndeals = = 1\n')
    one_line_error(invoke("run", str(bad)), "bad.toml: not valid TOML (")
    bad.write_text('name = "a"\ndeals = 1\nseats = "greedy"\nspeed = 11\n')
    one_line_error(invoke("run", str(bad)), "bad.toml: unknown key 'speed'; allowed: name,")
    good = tmp_path / "good.toml"
    good.write_text('name = "a"\ndeals = 1\nseats = "greedy"\n')
    one_line_error(
        invoke("run", str(good), "--rules", "gin"),
        "--rules cannot be combined with an experiment file",
    )
    one_line_error(invoke("run", "--resume", str(tmp_path), "--seed", "3"), "drop --seed")
    # A falsy value is given all the same (--seed 0 used to slip through to the resume).
    one_line_error(invoke("run", "--resume", str(tmp_path), "--seed", "0"), "drop --seed")
    one_line_error(invoke("run", "--resume", str(tmp_path), "--max-count", "5"), "drop --max-count")
    assert captured == []


def test_unwritable_out(tmp_path: Path) -> None:
    """Refused before anything plays (the executor makes the folders first)."""
    blocker = tmp_path / "file"
    blocker.write_text("not a folder")
    out = str(blocker / "results")
    one_line_error(invoke("run", "--seats", "greedy", "--out", out), "cannot create run directory")
    good = tmp_path / "good.toml"
    good.write_text('name = "a"\ndeals = 1\nseats = "greedy"\n')
    one_line_error(invoke("run", str(good), "--out", out), "cannot create output directory")
    assert blocker.read_text() == "not a folder"


def test_foreign_and_corrupted_parquet_to_chart_and_report(tmp_path: Path) -> None:
    foreign = tmp_path / "foreign.parquet"
    pq.write_table(pa.table({"x": [1, 2, 3]}), foreign)
    broken = tmp_path / "broken.parquet"
    broken.write_bytes(b"PAR1 garbage")
    for command in ("chart", "report"):
        one_line_error(
            invoke(command, str(foreign)), "not a rummy-sim result (no rummy_sim metadata)"
        )
        one_line_error(invoke(command, str(broken)), "not a readable Parquet file")
        one_line_error(invoke(command, str(tmp_path)), "not a results directory")
    assert sorted(p.name for p in tmp_path.iterdir()) == ["broken.parquet", "foreign.parquet"]


# --- end to end: a real run of a few hundred deals ------------------------------------------


def test_run_end_to_end_resume_chart_report(tmp_path: Path) -> None:
    out = tmp_path / "results"
    args = ["run", "--rules", "gin", "--seats", "greedy:knock_at=5/simple", "--deals", "300"]
    args += ["--seed", "5", "--workers", "1", "--out", str(out), "--chunk-size", "100"]
    result = invoke(*args)
    assert result.exit_code == 0, result.output
    assert "seed 5\n" in result.stdout
    (run_dir,) = (out / "default").iterdir()
    assert f"results: {run_dir}/" in result.stdout
    for text in ("points/hand", "won %", "Wilson for %", "greedy:knock_at=5", "outcomes:"):
        assert text in result.stdout, text
    assert "hands/s" in result.stderr  # the progress bar
    hands = load_hands(run_dir).collect()
    assert hands.height == 300

    # the same command again, and --resume, find every chunk done
    again = invoke(*args)
    assert again.exit_code == 0 and "3 of 3 chunks were already done" in again.stdout
    as_json = json.loads(invoke(*args, "--json").stdout)  # stdout holds only the JSON
    assert (as_json["kind"], as_json["seed"], as_json["chunks_skipped"]) == ("run", 5, 3)
    assert [s["strategy"] for s in as_json["seats"]] == ["greedy:knock_at=5", "simple"]
    (run_dir / "hands" / "part-000001.parquet").unlink()
    resumed = invoke("run", "--resume", str(run_dir), "--workers", "1")
    assert resumed.exit_code == 0, resumed.output
    assert "2 of 3 chunks were already done" in resumed.stdout
    assert load_hands(run_dir).collect().equals(hands)

    charts = invoke("chart", str(run_dir))
    assert charts.exit_code == 0, charts.output
    assert (run_dir / "charts" / "outcome_mix.png").exists()
    assert (run_dir / "charts" / "hand_length.svg").exists()
    wrong = invoke("chart", str(run_dir), "--kind", "knock-curve")
    one_line_error(wrong, "'knock_curve' needs a knock threshold")
    report = invoke("report", str(run_dir))
    assert report.exit_code == 0, report.output
    html = (run_dir / "report.html").read_text()
    assert "data:image/png;base64," in html and "greedy:knock_at=5" in html


def _refuse(constant: str) -> None:
    raise ValueError(f"{constant} is not JSON")


def test_sweep_end_to_end(tmp_path: Path) -> None:
    result = invoke(
        "sweep", "--seats", "greedy:knock_at={k}/simple", "--grid", "k=2,10", "--deals", "200",
        "--seed", "4", "--duplicate", "--workers", "1", "--out", str(tmp_path),
    )  # fmt: skip
    assert result.exit_code == 0, result.output
    assert "★" in result.stdout and "best: k=" in result.stdout
    assert "Holm-adjusted p" in result.stdout
    [directory] = tmp_path.glob("sweep-*")  # named by its settings and seed
    assert f"results: {directory}/" in result.stdout
    for name in ("summary.parquet", "report.html", "charts/knock_curve.png"):
        assert (directory / name).exists(), name
    # the report shows the chart files themselves, not the charts drawn once more
    shown = re.findall(
        r'src="data:image/png;base64,([^"]+)"', (directory / "report.html").read_text()
    )
    files = sorted(p.read_bytes() for p in (directory / "charts").glob("*.png"))
    assert sorted(base64.b64decode(b) for b in shown) == files and len(files) == 3
    # an experiment directory resumes and re-charts too
    resumed = invoke("run", "--resume", str(directory), "--workers", "1", "--json")
    assert resumed.exit_code == 0, resumed.output
    data = json.loads(resumed.stdout, parse_constant=_refuse)  # strict JSON: no NaN
    assert data["hands_played"] == 0 and data["seed"] == 4
    assert [row["setting"] for row in data["summary"]] == ["k=2", "k=10"]
    best = next(row for row in data["summary"] if row["best"])
    assert best["p_value"] is None and best["holm_p"] is None  # compared with nothing
    assert "0 hands played" in resumed.stderr
    charts = invoke("chart", str(directory), "--kind", "outcome-mix", "--out", str(tmp_path / "c"))
    assert charts.exit_code == 0 and (tmp_path / "c" / "outcome_mix.svg").exists()


def test_an_experiment_made_by_other_code(tmp_path: Path, monkeypatch) -> None:
    """After an edit to the code that plays runs (their ids change), ``--resume`` of an
    experiment whose runs would all be dropped is refused in one line saying what changed
    and the command that made it, nothing written; the same command plays it again and
    says that the old runs are kept, not read."""
    from sim.study import provenance as P

    sweep = ["sweep", "--seats", "greedy:knock_at={k}/simple", "--grid", "k=2,8", "--deals",
             "60", "--seed", "4", "--workers", "1", "--out", str(tmp_path),
             "--name", "s"]  # fmt: skip
    assert invoke(*sweep).exit_code == 0
    directory = tmp_path / "s"
    record = (directory / "experiment.json").read_bytes()
    old = {p.parent.name for p in directory.glob("*/manifest.json")}
    assert len(old) == 2
    monkeypatch.setattr(P, "tables_digest", lambda: "edited")
    refused = invoke("run", "--resume", str(directory), "--workers", "1")
    changed = "the sim modules that play and shape the tables changed since it was made"
    one_line_error(refused, f"cannot resume {directory}: its runs were made by other code "
                   f"({changed})")  # fmt: skip
    made = json.loads(record)["command"]
    assert refused.stderr.rstrip().endswith(f"play it again with the command that made it: {made}")
    assert (directory / "experiment.json").read_bytes() == record
    assert {p.parent.name for p in directory.glob("*/manifest.json")} == old
    again = invoke(*sweep)
    assert again.exit_code == 0, again.output
    said = " ".join(again.stderr.split())  # the note as wrapped at 80 columns
    assert f"note: 2 runs in {directory} were made by other code (the sim modules" in said
    assert "they are kept there, not read; their settings played again" in said
    new = {p.parent.name for p in directory.glob("*/manifest.json")}
    assert len(new) == 4 and old < new  # kept beside the new ones
    resumed = invoke("run", "--resume", str(directory), "--workers", "1")
    assert resumed.exit_code == 0, resumed.output  # its own runs are there now
    assert "were made by other code" in " ".join(resumed.stderr.split())


def test_a_study_never_replaces_another(tmp_path: Path) -> None:
    """Unnamed sweeps get folders of their own; a named folder holding another study is
    refused in one line, nothing changed, unless --force replaces it."""
    sweep = ["sweep", "--seats", "greedy:knock_at={k}/simple", "--deals", "60", "--seed", "4",
             "--workers", "1", "--out", str(tmp_path)]  # fmt: skip
    for grid in ("k=2,8", "k=3,9"):
        assert invoke(*sweep, "--grid", grid).exit_code == 0
    assert len(list(tmp_path.glob("sweep-*/experiment.json"))) == 2
    named = [*sweep, "--name", "mine"]
    assert invoke(*named, "--grid", "k=2,8").exit_code == 0
    record = (tmp_path / "mine" / "experiment.json").read_bytes()
    refused = invoke(*named, "--grid", "k=3,9")
    one_line_error(refused, "holds another study (grid is {'k': [2, 8]} there, {'k': [3, 9]} here)")
    assert "--force" in refused.stderr
    assert (tmp_path / "mine" / "experiment.json").read_bytes() == record
    runs = {p.parent.name for p in (tmp_path / "mine").glob("*/manifest.json")}
    replaced = invoke(*named, "--grid", "k=3,9", "--force")
    assert replaced.exit_code == 0, replaced.output
    kept = {p.parent.name for p in (tmp_path / "mine").glob("*/manifest.json")}
    assert len(kept) == 2 and not kept & runs  # only the new study's runs are left
    assert invoke(*named, "--grid", "k=3,9").exit_code == 0  # the same study: no refusal
