"""Helpers every CLI command shares: one-line errors, JSON output, option parsing."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any, NoReturn

import typer

from sim.store import dumps


def fail(message: str) -> NoReturn:
    """Print a one-line error on stderr and exit with status 1 (never a traceback)."""
    typer.echo(f"error: {message}", err=True)
    raise typer.Exit(code=1)


def path_text(value: str | Path) -> Path:
    """Parse a path option: empty text is refused (``Path("")`` would mean ".")."""
    if isinstance(value, Path):  # a default
        return value
    if not value.strip():
        raise typer.BadParameter("empty text; give a path")
    return Path(value)


def print_json(value: Any) -> None:
    """Print ``value`` as indented, strict JSON on stdout (NaN and infinity as null)."""
    sys.stdout.write(dumps(value, sort_keys=False) + "\n")
