"""What every command prints the same way: errors, JSON, numbers, progress.

* :func:`fail`: one line on stderr and exit status 1 (the command line's own mistakes,
  found by the parser, exit 2; ``sim.cli`` turns every user error a library raises
  into the same one line, so commands need no try/except of their own).
* :func:`print_json`: strict JSON (null, never NaN).
* Numbers: ``ci`` for an estimate with its interval, ``pct``, and p-values
  through ``sim.stats.format_p`` (one rule everywhere).
* Consoles (``chatter``: where a command says what it does), compact tables, ``pct``,
  ``folder``, the progress bar and the quiet switch are presenting's
  (``sim.present.terminal``); they are imported here for the commands.
"""

from __future__ import annotations

import contextlib
import shlex
import sys
from collections.abc import Callable, Iterator
from typing import Any, NoReturn

import typer

from sim.present.terminal import (
    ProgressView,
    chatter,
    ci,
    compact_table,
    console,
    err_console,
    folder,
    pct,
    set_quiet,
)
from sim.store import dumps

__all__ = [
    "folder",
    "study_progress",
    "chatter",
    "ci",
    "command_line",
    "compact_table",
    "console",
    "err_console",
    "fail",
    "pct",
    "print_json",
    "set_quiet",
]


def fail(message: str) -> NoReturn:
    """Print a one-line error on stderr and exit with status 1 (never a traceback)."""
    typer.echo(f"error: {message}", err=True)
    raise typer.Exit(code=1)


def print_json(value: Any) -> None:
    """Print ``value`` as indented, strict JSON on stdout (NaN and infinity as null)."""
    sys.stdout.write(dumps(value, sort_keys=False) + "\n")


def command_line() -> str:
    """This command as typed (stored as provenance)."""
    return shlex.join(["rummy", *sys.argv[1:]]) if sys.argv else "rummy"


@contextlib.contextmanager
def study_progress(label: str, first_line: str, as_json: bool) -> Iterator[Callable[[Any], None]]:
    """Yield the progress callback to give a study. Its first call (the study's first
    progress, so after every check of its input) prints ``first_line`` (the study's
    seed; see :func:`chatter`) and starts a progress bar; a study that reports no
    progress prints the line when it ends. A refused study prints only its error."""
    view: ProgressView | None = None

    def print_first_line() -> None:
        chatter(as_json).print(first_line, markup=False)

    def progress(p: Any) -> None:
        nonlocal view
        if view is None:
            print_first_line()
            view = ProgressView(label).__enter__()
        view.progress(p)

    try:
        yield progress
    except BaseException as error:
        if view is not None:
            view.__exit__(type(error), error, None)
        raise
    else:
        if view is None:  # a study with nothing left to play still names its seed
            print_first_line()
        else:
            view.__exit__(None, None, None)
