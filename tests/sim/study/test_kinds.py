"""Each study kind's declaration (``sim.study.kinds``) is true of the program: its
commands exist, its notebook function is ``rummy``'s, and what is derived from the
declarations (the store's record names, the default sizes, which commands resume) says
the same."""

from __future__ import annotations

from typing import Any

import click
import typer.main

import rummy
from sim import sizes, store
from sim.cli import _resumes, app
from sim.study.kinds import KINDS


def _command(words: list[str]) -> Any:
    """The click command of ``words`` (``["strategy-chart", "knock"]``), or None."""
    command: Any = typer.main.get_command(app)
    for word in words:  # groups load their commands when asked (sim.cli)
        command = command.get_command(click.Context(command), word)
    return command


def test_every_kind_is_played_by_its_commands_and_its_function() -> None:
    for kind in KINDS:
        for line in kind.commands:
            assert _command(line.split()) is not None, line
            assert _resumes(line.split()) == kind.resumes, line
        if kind.function is not None:
            assert kind.function in rummy.__all__ and callable(getattr(rummy, kind.function))


def test_what_is_derived_from_the_kinds() -> None:
    assert set(store.RECORD_NAMES) == {name for kind in KINDS for name in kind.records}
    assert store.RUN_MANIFEST not in store.STUDY_RECORDS
    assert sizes.DEFAULT_DEALS == {
        "run": 100_000, "sweep": 100_000, "compare": 100_000, "tournament": 20_000,
        "tune": 50_000, "chart": 100_000,
    }  # fmt: skip
    assert not _resumes(["strategy-chart", "export"]) and not _resumes(["rules", "list"])
