"""``rummy strategies list`` and ``rummy strategies show``, through typer's CliRunner."""

from __future__ import annotations

import json

import pytest
import typer
from typer.testing import CliRunner

import strategies as S
from sim.cli.strategies_cmd import app as strategies_app

# A wide terminal, so rich does not fold table cells in the assertions below.
ENV = {"COLUMNS": "200", "NO_COLOR": "1"}


def _cli(*args: str) -> tuple[int, str, str]:
    main = typer.Typer()

    @main.callback()
    def root() -> None:
        """Root command (a callback keeps `strategies` a sub-command)."""

    main.add_typer(strategies_app, name="strategies")
    result = CliRunner().invoke(main, ["strategies", *args], env=ENV)
    return result.exit_code, result.stdout, result.stderr


@pytest.fixture
def no_plugins(monkeypatch: pytest.MonkeyPatch) -> None:
    """No plugins, found or discovered: the commands show the built-ins only."""
    monkeypatch.setattr(S, "_PLUGINS", {})
    monkeypatch.setattr(S, "entry_points", lambda group: [])


def test_cli_list(no_plugins: None) -> None:
    code, out, err = _cli("list")
    assert code == 0, err
    for name in S.BUILTINS:
        assert name in out
    assert "knock_at=-1" in out and "min_gain=1" in out
    code, out, err = _cli("list", "--json")
    assert code == 0, err
    data = json.loads(out)
    assert list(data) == list(S.BUILTINS)
    assert data["greedy"]["parameters"] == {"knock_at": -1, "min_gain": 1}
    assert data["schedule"]["parameters"]["b"] == 0.5


def test_cli_show(no_plugins: None) -> None:
    code, out, err = _cli("show", "defensive")
    assert code == 0, err
    assert "alarm_turn" in out and "danger" in out
    code, out, err = _cli("show", "simple", "--json")
    assert code == 0, err
    data = json.loads(out)
    assert data["name"] == "simple"
    assert data["parameters"]["knock_at"]["default"] == -1
    assert "Fallback" in data["description"]


def test_a_charts_cards_for_fewer_players_are_one_line(no_plugins: None) -> None:
    """``chart``'s 172 fields of its cards for 2 to 5 players are said in one line, not
    listed (the JSON lists every field)."""
    code, out, err = _cli("show", "chart")
    assert code == 0, err
    rows = [line.split()[0] for line in out.splitlines() if line.split()[1:2] == ["int"]]
    assert rows[0] == "k1" and rows[-1] == "layers" and len(rows) == 44
    assert "n2_k1 .. n5_gin_chance: the fields from k1 to gin_chance again" in out
    code, out, err = _cli("show", "chart", "--json")
    assert len(json.loads(out)["parameters"]) == 216


def test_cli_show_unknown(no_plugins: None) -> None:
    code, out, err = _cli("show", "nope")
    assert code == 1
    assert err.startswith("error: unknown strategy 'nope'")
    assert "greedy" in err
