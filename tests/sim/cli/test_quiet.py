"""``rummy --quiet``: standard output holds only results, standard error only errors.

Each command runs for real (a few hundred deals, in this process) with and without
``-q``: the loud run shows what quiet must drop (the seed line, the progress, what it
plays), so the checks cannot pass by both runs printing nothing.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from sim.cli import app
from tests.support.cli import one_line

cli = CliRunner()

COMMANDS = {
    "run": ["run", "--rules", "gin", "--seats", "greedy/simple", "--deals", "300"],
    "compare": [
        "compare",
        "--seats",
        "greedy:knock_at=7/simple",
        "--vs-seats",
        "greedy/simple",
        "--deals",
        "300",
    ],  # fmt: skip
    "sweep": [
        "sweep",
        "--seats",
        "greedy:knock_at={k}/simple",
        "--grid",
        "k=2,10",
        "--deals",
        "300",
    ],  # fmt: skip
}
RESULT = {"run": "points/hand", "compare": "A - B", "sweep": "k=10"}


@pytest.mark.parametrize("name", sorted(COMMANDS))
def test_quiet_prints_results_and_nothing_else(name: str, tmp_path: Path) -> None:
    args = [*COMMANDS[name], "--seed", "11", "--out", str(tmp_path)]
    loud = cli.invoke(app, args)
    assert loud.exit_code == 0, loud.output
    assert "seed 11" in loud.stdout and RESULT[name] in loud.stdout
    quiet = cli.invoke(app, ["-q", *args])
    assert quiet.exit_code == 0, quiet.output
    assert quiet.stderr == ""
    assert RESULT[name] in quiet.stdout
    assert "seed 11" not in quiet.stdout and "played in" not in quiet.stdout
    dropped = set(loud.stdout.splitlines()) - set(quiet.stdout.splitlines())
    assert any(line.startswith("seed 11") for line in dropped)
    assert set(quiet.stdout.splitlines()) <= set(loud.stdout.splitlines())  # nothing new


def test_quiet_json_is_the_json_alone(tmp_path: Path) -> None:
    args = [*COMMANDS["run"], "--seed", "11", "--json", "--out"]
    loud = cli.invoke(app, [*args, str(tmp_path / "loud")])
    assert loud.exit_code == 0 and "seed 11" in loud.stderr
    quiet = cli.invoke(app, ["--quiet", *args, str(tmp_path / "quiet")])
    assert quiet.exit_code == 0 and quiet.stderr == ""
    record, loud_record = json.loads(quiet.stdout), json.loads(loud.stdout)
    assert record["summary"] == loud_record["summary"] and record["seats"] == loud_record["seats"]


def test_quiet_still_says_what_went_wrong(tmp_path: Path) -> None:
    one_line(cli.invoke(app, ["-q", "run", "--seats", "nosuch/simple", "--deals", "300"]), 1,
             "nosuch")  # fmt: skip
    one_line(cli.invoke(app, ["-q", "run", "--deals", "0"]), 2, "--deals")


def test_quiet_does_not_outlive_its_command(tmp_path: Path) -> None:
    args = [*COMMANDS["run"], "--seed", "12", "--out", str(tmp_path)]
    assert cli.invoke(app, ["-q", *args]).exit_code == 0
    after = cli.invoke(app, args)
    assert "seed 12" in after.stdout


@pytest.mark.parametrize("flag", ["-q", "--quiet"])
def test_quiet_after_the_command_is_the_same(flag: str, tmp_path: Path) -> None:
    args = [*COMMANDS["run"], "--seed", "13"]
    before = cli.invoke(app, [flag, *args, "--out", str(tmp_path / "before")])
    after = cli.invoke(app, [*args, flag, "--out", str(tmp_path / "after")])
    assert before.exit_code == after.exit_code == 0, after.output
    assert after.stderr == "" and "seed 13" not in after.stdout
    assert after.stdout.replace(str(tmp_path / "after"), str(tmp_path / "before")) == before.stdout
    # a group's command takes it too
    shown = cli.invoke(app, ["rules", "show", "gin", flag])
    assert shown.exit_code == 0 and "knock_limit" in shown.stdout
