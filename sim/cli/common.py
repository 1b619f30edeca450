"""Helpers every CLI command shares: one-line errors, JSON output, option parsing."""

from __future__ import annotations

import json
import sys
from typing import Any, NoReturn

import typer


def fail(message: str) -> NoReturn:
    """Print a one-line error on stderr and exit with status 1 (never a traceback)."""
    typer.echo(f"error: {message}", err=True)
    raise typer.Exit(code=1)


def print_json(value: Any) -> None:
    """Print ``value`` as indented JSON on stdout."""
    json.dump(value, sys.stdout, indent=2, default=str)
    sys.stdout.write("\n")
