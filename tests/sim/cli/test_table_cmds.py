"""``rummy deadwood``, ``rummy score`` and the top-level app, through typer's CliRunner."""

from __future__ import annotations

import json

from typer.testing import CliRunner

from sim import __version__
from sim.cli import app

runner = CliRunner()

GIN_KNOCKER = "AC 2C 3C 4D 5D 6D 9H 9S 9C 2S"  # three melds + 2S: deadwood 2
GIN_DEFENDER = "TD JD QD KD 5S 6S 7S 8H 2H 3H"  # two melds + 8H 2H 3H: deadwood 13


def test_version():
    result = runner.invoke(app, ["--version"])
    assert result.exit_code == 0
    assert result.output.strip() == f"rummy {__version__}"


def test_every_command_has_help():
    for args in (["deadwood"], ["score"], ["rules"], ["stats"], ["bench"], ["stats", "deadwood"]):
        result = runner.invoke(app, [*args, "--help"])
        assert result.exit_code == 0, args
        assert "Usage" in result.output


def test_deadwood_json_with_best_discard():
    """5C 6C 7C | 7D 7H 7S | 9H TH JH | KD 2S: 11 cards under gin, discard KD -> 2."""
    result = runner.invoke(
        app,
        ["deadwood", "5C", "6C", "7C", "7D", "7H", "7S", "KD", "2S", "9H", "TH", "JH", "--json"],
    )
    assert result.exit_code == 0, result.output
    data = json.loads(result.output)
    assert data["deadwood"] == 12
    assert data["melds"] == ["5C 6C 7C", "7D 7H 7S", "9H TH JH"]  # canonical order
    assert data["best_discard"] == "KD"
    assert data["deadwood_after_discard"] == 2


def test_deadwood_table_output_and_rule_override():
    result = runner.invoke(app, ["deadwood", "KS", "AS", "2S", "--rule", "ace=around"])
    assert result.exit_code == 0, result.output
    assert "deadwood   0" in result.output


def test_deadwood_bad_card_is_one_line_error():
    result = runner.invoke(app, ["deadwood", "AS", "XS"])
    assert result.exit_code == 1
    assert "bad card 'XS'" in result.output
    assert "Traceback" not in result.output


def test_deadwood_joker_needs_joker_rules():
    result = runner.invoke(app, ["deadwood", "AS", "2S", "JK"])
    assert result.exit_code == 1
    assert "JK" in result.output


def test_score_gin_json():
    result = runner.invoke(
        app,
        [
            "score",
            "--rules",
            "gin",
            "--knocker",
            "0",
            "--hand",
            GIN_KNOCKER,
            "--hand",
            GIN_DEFENDER,
            "--json",
        ],
    )
    assert result.exit_code == 0, result.output
    data = json.loads(result.output)
    assert data["outcome"] == "knock_win"
    assert data["points"] == [11, 0]
    assert [s["deadwood"] for s in data["seats"]] == [2, 13]


def test_score_knock_rummy_three_players_from_hand_count():
    """Seat 1 knocks with 5 but seat 2 holds a perfect 7: undercut, penalty 10."""
    result = runner.invoke(
        app,
        [
            "score",
            "--rules",
            "knock-rummy",
            "--knocker",
            "1",
            "--json",
            "--hand",
            "AC 2C 3C 4D 5D 6D 9H",
            "--hand",
            "9S 9C 9D 2S 3S 4S 5H",
            "--hand",
            "TD JD QD KD 5S 6S 7S",
        ],
    )
    assert result.exit_code == 0, result.output
    data = json.loads(result.output)
    assert data["outcome"] == "undercut"
    assert data["points"] == [-9, -15, 24]


def test_score_illegal_knock_says_why():
    result = runner.invoke(
        app,
        [
            "score",
            "--rules",
            "gin",
            "--rule",
            "knock_limit=1",
            "--knocker",
            "0",
            "--hand",
            GIN_KNOCKER,
            "--hand",
            GIN_DEFENDER,
        ],
    )
    assert result.exit_code == 1
    assert "above the limit 1" in result.output


def test_score_bad_knocker_and_unknown_preset():
    result = runner.invoke(
        app, ["score", "--knocker", "x", "--hand", GIN_KNOCKER, "--hand", GIN_DEFENDER]
    )
    assert result.exit_code == 2 and "--knocker" in result.output
    result = runner.invoke(
        app, ["score", "--rules", "nope", "--knocker", "0", "--hand", GIN_KNOCKER]
    )
    assert result.exit_code == 1 and "nope" in result.output


def test_score_exhausted_showdown():
    result = runner.invoke(
        app,
        [
            "score",
            "--rules",
            "gin",
            "--knocker",
            "none",
            "--hand",
            GIN_KNOCKER,
            "--hand",
            GIN_DEFENDER,
            "--json",
        ],
    )
    assert result.exit_code == 0, result.output
    data = json.loads(result.output)
    assert data["outcome"] == "exhausted"
    assert data["points"] == [11, 0]
