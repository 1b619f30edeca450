"""How every CLI error must look (one ``error:`` line on stderr, no traceback), and the
command tree the CLI tests walk."""

from __future__ import annotations

import functools
from typing import Any


def one_line(result: Any, status: int, *expected: str) -> str:
    """``result`` (CliRunner's) ended with ``status`` and one ``error:`` line holding each
    of ``expected``; that line."""
    assert result.exit_code == status, result.output
    assert "Traceback" not in result.output
    err: str = result.stderr.strip()
    assert err.count("\n") == 0 and err.startswith("error: "), err
    for text in expected:
        assert text in err, err
    return err


# The drivers that bind ``execute`` by name when first imported. A test that replaces it
# imports them first: one first imported inside such a test (``rummy chart`` loads the
# chart driver) would otherwise keep the fake for every later test of the worker.
DRIVERS = ("sim.study.chart", "sim.study.compare", "sim.study.experiment",
           "sim.study.tournament", "sim.study.tune")  # fmt: skip


def replace_execute(monkeypatch: Any, fake: Any) -> None:
    """Make ``fake`` the study executor of ``rummy run`` and of experiments and sweeps
    for one test, every driver still bound to the real one."""
    import importlib

    from sim.study import execute, experiment

    for name in DRIVERS:
        importlib.import_module(name)
    monkeypatch.setattr(execute, "execute", fake)  # rummy run (through execute.run)
    monkeypatch.setattr(experiment, "execute", fake)  # experiments and sweeps


@functools.cache
def command_paths() -> tuple[tuple[str, ...], ...]:
    """Every command of ``rummy``'s registry and every subcommand of its groups, as typed
    after ``rummy`` (a group's subcommands sorted). Built once: typer builds the whole
    command tree again at every call (a fifth of a second)."""
    import typer

    from sim.cli import COMMANDS, app

    group = typer.main.get_command(app)
    paths: list[tuple[str, ...]] = []
    for name, spec in COMMANDS.items():
        command = group.get_command(group.context_class(group), name)  # type: ignore[attr-defined]
        subs = sorted(command.commands) if spec.group else []
        paths += [(name, sub) for sub in subs] if subs else [(name,)]
    return tuple(paths)
