"""``rummy rules list`` and ``rummy rules show``, through typer's CliRunner."""

from __future__ import annotations

import json

import pytest
import typer
from typer.testing import CliRunner

from sim.cli.rules_cmd import app as rules_app
from sim.rules import PRESET_DESCRIPTIONS, PRESETS, RuleSet

# A wide terminal, so rich does not fold table cells in the assertions below.
ENV = {"COLUMNS": "200", "NO_COLOR": "1"}


def _main() -> typer.Typer:
    """A stand-in for the main app, wired as the lead wires it: ``rummy rules``."""
    main = typer.Typer()

    @main.callback()
    def root() -> None:
        """Root command (a callback keeps `rules` a sub-command)."""

    main.add_typer(rules_app, name="rules")
    return main


runner = CliRunner()


def invoke(*args: str) -> tuple[int, str, str]:
    result = runner.invoke(_main(), ["rules", *args], env=ENV)
    return result.exit_code, result.stdout, result.stderr


def test_list_shows_every_preset() -> None:
    code, out, err = invoke("list")
    assert code == 0, err
    for header in ("name", "description", "players", "knock", "layoff", "scoring", "stock"):
        assert header in out
    for name in PRESETS:
        assert name in out
    assert "pool:100" in out and "hollywood:100" in out and "upcard" in out
    assert "on, greedy" in out  # eaai
    assert PRESET_DESCRIPTIONS["gin"] in out


def test_list_fits_80_columns_without_cutting_a_name() -> None:
    result = runner.invoke(_main(), ["rules", "list"], env={**ENV, "COLUMNS": "80"})
    assert result.exit_code == 0, result.stderr
    lines = result.stdout.splitlines()
    assert max(len(line.rstrip()) for line in lines) <= 80
    for name in PRESETS:  # every name whole, at the start of a row of each table
        assert sum(line.split(" ")[0] == name for line in lines) == 2, name
    assert "…" not in result.stdout


def test_list_json() -> None:
    code, out, _ = invoke("list", "--json")
    assert code == 0
    data = json.loads(out)
    assert list(data) == list(PRESETS)
    assert data["gin"]["description"] == PRESET_DESCRIPTIONS["gin"]
    assert data["eaai"]["layoff_play"] == "greedy"


def test_show_table() -> None:
    code, out, err = invoke("show", "gin")
    assert code == 0, err
    for line in ("knock_limit", "big_gin_bonus", "dead_hand", "gin:100"):
        assert line in out
    assert "auto, by players" in out


def test_show_json_is_every_parameter() -> None:
    code, out, _ = invoke("show", "oklahoma-gin", "--json")
    assert code == 0
    data = json.loads(out)
    assert data == PRESETS["oklahoma-gin"].to_dict()
    assert RuleSet.from_dict(data) == PRESETS["oklahoma-gin"]


def test_show_with_overrides() -> None:
    code, out, _ = invoke(
        "show", "knock-rummy", "--rule", "players=2", "-r", "knock_limit=10", "--json"
    )
    assert code == 0
    data = json.loads(out)
    assert (data["players"], data["hand_size"], data["knock_limit"]) == (2, 10, 10)
    code, out, _ = invoke("show", "gin", "--rule", "knock_limit=7")
    assert code == 0
    assert "--rule" in out and "knock_limit=7" in out


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (("show", "gin-rummy"), "error: unknown preset 'gin-rummy'; choose one of: knock-rummy"),
        (("show", "gin", "--rule", "players=4"), "error: scoring='gin' needs players=2"),
        (("show", "gin", "--rule", "colour=red"), "error: bad rule 'colour=red': unknown"),
        (("show", "gin", "--rule", "knock_limit"), "error: bad rule 'knock_limit': write key"),
        (("show", "gin", "-r", "ace=middle"), "error: ace='middle' is not allowed; choose one"),
        (("show", "gin", "-r", "layoff=maybe"), "error: bad rule 'layoff=maybe'"),
    ],
)
def test_user_errors_are_one_line_on_stderr(args: tuple[str, ...], message: str) -> None:
    code, out, err = invoke(*args)
    assert code == 1
    assert out == ""
    assert err.startswith(message)
    assert err.count("\n") == 1
    assert "Traceback" not in err


def test_help() -> None:
    code, out, _ = invoke("show", "--help")
    assert code == 0
    assert "--rule" in out and "--json" in out
    code, out, _ = invoke("-h")
    assert code == 0
    assert "list" in out and "show" in out
