"""Help text: paragraphs wrap at any terminal width and no text is eaten as markup."""

from __future__ import annotations

import inspect
import re
from collections.abc import Iterator
from typing import Any

import pytest
import typer
from typer.testing import CliRunner

from sim.cli import app, unwrap_help
from tests.support.cli import command_paths

cli = CliRunner()
# What rich would read as a markup tag ("[bold]", "[/]", "[tune]"); "\[" escapes it.
MARKUP = re.compile(r"(?<!\\)\[[A-Za-z#/@][^\[\]]*\]")


def _commands(command: Any, name: str = "rummy") -> Iterator[tuple[str, Any]]:
    yield name, command
    for sub_name, sub in (getattr(command, "commands", None) or {}).items():
        yield from _commands(sub, f"{name} {sub_name}")


COMMANDS = dict(_commands(typer.main.get_command(app)))


def test_unwrap_help_joins_paragraph_lines_only() -> None:
    text = """First line
    goes on.

    Second paragraph, wrapped
    mid-sentence.

    Examples::

        rummy run --deals 10
        rummy run --deals 20
    """
    assert unwrap_help(text) == (
        "First line goes on.\n\nSecond paragraph, wrapped mid-sentence.\n\nExamples::\n\n"
        "    rummy run --deals 10\n    rummy run --deals 20"
    )


@pytest.mark.parametrize("name", sorted(COMMANDS))
def test_help_paragraphs_are_single_lines_and_lose_nothing(name: str) -> None:
    command = COMMANDS[name]
    callback = getattr(command, "callback", None)
    doc = inspect.getdoc(callback) if callback is not None else None
    help_text = command.help or ""
    for paragraph in help_text.split("\n\n"):
        lines = paragraph.splitlines()
        assert len(lines) <= 1 or any(line[:1].isspace() for line in lines), (name, paragraph)
    if doc and name != "rummy":
        assert help_text.split() == doc.split(), name


@pytest.mark.parametrize("name", sorted(COMMANDS))
def test_no_help_text_is_read_as_markup(name: str) -> None:
    command = COMMANDS[name]
    texts = [command.help or "", getattr(command, "epilog", None) or ""]
    texts += [getattr(p, "help", None) or "" for p in command.params]
    assert not [m for t in texts for m in MARKUP.findall(t)], name


@pytest.mark.parametrize(
    ("args", "line"),
    [
        (["run", "--help"], "where the results are."),
        (["tune", "--help"], "TOML with a tune table"),
        (["stats", "deadwood", "--help"], "Monte Carlo hands (default: 1,000,000; at most"),
    ],
)
def test_rendered_help(args: list[str], line: str) -> None:
    result = cli.invoke(app, args, env={"COLUMNS": "120", "TERMINAL_WIDTH": "120"})
    assert result.exit_code == 0, result.output
    assert line in " ".join(result.output.split())  # wrapped to the terminal's width


@pytest.mark.parametrize("path", command_paths(), ids=" ".join)
def test_help_fits_80_columns_with_room_for_the_descriptions(path: tuple[str, ...]) -> None:
    """At 80 columns no line of a command's help runs over, and every option's
    description starts within the first 40 columns (rich's panels left it 20 of 80)."""
    name = " ".join(path)
    result = cli.invoke(app, [*path, "--help"], env={"COLUMNS": "80"})
    assert result.exit_code == 0, result.output
    lines = result.output.splitlines()
    assert max(len(line) for line in lines) <= 80, name
    described = [re.match(r"  -\S.*?\s{2,}(\S)", line) for line in lines]
    starts = [m.start(1) for m in described if m]
    assert starts and max(starts) <= 40, name


def test_rummy_alone_prints_the_help_and_exits_2() -> None:
    result = cli.invoke(app, [], env={"COLUMNS": "120"})
    assert result.exit_code == 2, result.output
    assert result.stdout.startswith("Usage: rummy [OPTIONS] COMMAND [ARGS]...")
    assert "Commands:\n" in result.stdout and "  warm " in result.stdout  # not squeezed
    assert result.stderr == ""


@pytest.mark.parametrize(("group", "command"), [("rules", "show"), ("stats", "deadwood")])
def test_a_group_alone_prints_its_help_and_exits_2(group: str, command: str) -> None:
    result = cli.invoke(app, [group], env={"COLUMNS": "120"})
    assert result.exit_code == 2, result.output
    assert f"Usage: rummy {group} [OPTIONS] COMMAND [ARGS]..." in result.stdout
    assert command in result.stdout
    assert "error" not in result.stderr
