"""A study kind declared by a front has one set of parameters at both doors: the
command's options and the notebook function's keywords are the front's, by the same
names (``vs_seats`` is ``--vs-seats``), with the same defaults and the same bounds; and a
refusal names the parameter in each door's words."""

from __future__ import annotations

import importlib
import inspect
from pathlib import Path
from typing import Any

import click
import pytest
import typer
from typer.testing import CliRunner

import rummy
from sim.cli import app
from sim.front import params
from sim.front.declare import REQUIRED, Front, ParamsError, flag_of, literal
from sim.study.kinds import KINDS

FRONTS = {kind.name: importlib.import_module(kind.front).FRONT for kind in KINDS if kind.front}
SESSION_CLI = ["workers", "out", "backend", "address", "as_json"]
SESSION_NOTEBOOK = ["out", "executor", "progress"]


def _click_command(front: Front[Any, Any]) -> click.Command:
    """The click command of the front's kind's first command line (strategy-chart knock)."""
    command: Any = typer.main.get_group(app)
    for word in front.kind.commands[0].split():
        command = command.get_command(click.Context(command), word)
        assert command is not None
    return command


def _on_the_command_line(front: Front[Any, Any]) -> list[str]:
    """The parameters the command takes: all but the one its name fixes (``kind``)."""
    return [p.name for p in front.params if p.name != front.subcommand]


@pytest.mark.parametrize("name", sorted(FRONTS))
def test_the_command_and_the_function_take_the_fronts_parameters(name: str) -> None:
    front = FRONTS[name]
    declared = [p.name for p in front.params]
    options = {p.name: p for p in _click_command(front).params if p.name not in ("quiet", "help")}
    on_the_line = _on_the_command_line(front)
    assert list(options) == on_the_line + (SESSION_CLI if front.session else ["as_json"])
    function = getattr(rummy, front.kind.function or "")
    keywords = inspect.signature(function).parameters
    assert list(keywords) == declared + (SESSION_NOTEBOOK if front.session else [])
    for param in front.params:
        if param.name not in on_the_line:  # the command's last word: strategy-chart knock
            assert front.kind.commands[0].split()[-1] == param.read(param.default)
            continue
        option = options[param.name]
        # the same name at both doors: the flag, or the argument's (STRATEGY)
        assert (param.name if param.argument else param.cli) in option.opts
        assert param.cli == (param.name.upper() if param.argument else flag_of(param.name))
        assert keywords[param.name].default == param.default
        if param.default is REQUIRED:
            assert option.required
            continue
        # the command's default is the notebook's (a flag's and a text's as given; an
        # option that may be repeated or left out: None, read as the front reads it)
        assert option.default == param.default or param.parse(option.default) == param.read(
            param.default
        ), param.name
        positional = list(keywords).index(param.name) < front.positional
        kind = keywords[param.name].kind
        assert (kind is inspect.Parameter.POSITIONAL_OR_KEYWORD) == positional


@pytest.mark.parametrize("name", sorted(FRONTS))
def test_a_sizes_bounds_are_the_same_at_both_doors(name: str, tmp_path: Path) -> None:
    """Each whole-number parameter's lowest value: the command's ``min`` and the
    notebook's refusal of one less."""
    front = FRONTS[name]
    command = _click_command(front)
    bounded = []
    for param in front.params:
        option = next((p for p in command.params if p.name == param.name), None)
        low = getattr(option, "min", None)
        if low is None:
            continue
        assert param.read(low) == low
        with pytest.raises(ValueError, match=f"give a whole number {low:,}"):
            param.read(low - 1)
        given = [*front.kind.commands[0].split(), flag_of(param.name), str(low - 1)]
        result = CliRunner().invoke(app, [*given, *(["--out", str(tmp_path)] * front.session)])
        assert result.exit_code == 2 and flag_of(param.name) in result.stderr
        bounded.append(param.name)
    assert "seed" in bounded


def test_a_refusal_names_parameters_in_each_doors_words() -> None:
    both = ParamsError("give {deals} or {games}, not both")  # no value: names spelled alone
    assert both.words(flag_of, None) == "give --deals or --games, not both"
    assert both.words(str, None) == "give deals or games, not both"
    one = ParamsError(literal("unknown strategy 'x{k}'"), "vs_seats", "x{k}")  # braces kept
    assert one.words(flag_of, None) == "--vs-seats: unknown strategy 'x{k}'"
    assert one.words(str, lambda k, v: f"{k}={v!r}") == "vs_seats='x{k}': unknown strategy 'x{k}'"
    two = ParamsError("bad card 'x'", ("hand", "pile"), ("AS", "x"))
    assert two.words(flag_of, None) == "--hand, --pile: bad card 'x'"
    assert two.words(str, lambda k, v: f"{k}={v!r}") == "hand='AS', pile='x': bad card 'x'"
    needs = ParamsError("needs {precision}", "max_count", 5)  # a value's words spelled too
    assert needs.words(flag_of, None) == "--max-count: needs --precision"
    assert needs.words(str, lambda k, v: f"{k}={v!r}") == "max_count=5: needs precision"


def test_rule_changes_read_the_same_at_both_doors() -> None:
    rule = params.overrides("rule", short="-r")
    assert rule.parse(["knock_limit=7", "gin_bonus=30"]) == rule.read(
        {"knock_limit": 7, "gin_bonus": 30}
    )
    assert rule.parse(None) == rule.read(None) == {}
    with pytest.raises(ValueError, match="give a dict"):
        rule.read(["knock_limit=7"])


def test_a_session_reads_its_folder_and_names_its_command(tmp_path: Path) -> None:
    from sim import store
    from sim.study.session import Session

    session = Session(out=tmp_path / "x")  # a path given: its StorePath
    assert session.out == store.location(tmp_path / "x")
    assert Session(command="rummy compare").provenance == "rummy compare"
    assert Session().provenance  # none given: this process's command line
