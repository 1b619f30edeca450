"""Options every command shares: the same flag for the same thing, everywhere.

The options of a study's session (``--workers``/``-w``, ``--out``/``-o``, ``--backend``,
``--address``, ``--json``), which every study command takes after its front's
parameters (``sim.front.command``), and the front's parameters that the commands not
made from a front take too (``--rules``, ``--rule``, ``--chunk-size``): declared once,
so that a command cannot spell one differently (``rummy compare -w 4`` works as ``rummy
run -w 4``). Ranges are checked by the parser (exit status 2, one line); values that
depend on each other are checked by the library (exit status 1).
"""

from __future__ import annotations

import os
from enum import StrEnum
from pathlib import Path
from typing import Annotated, Any

import typer

from sim.front import params
from sim.front.params import at_most, overrides, uri_or_path
from sim.limits import MAX_WORKERS
from sim.rules import RuleSet, get_rules, parse_overrides

__all__ = [
    "AddressOption",
    "Backend",
    "BackendOption",
    "ChunkOption",
    "JsonOption",
    "at_most",
    "OutOption",
    "RuleOverrides",
    "RulesOption",
    "WorkersOption",
    "file_text",
    "out_check",
    "path_text",
    "rules_of",
]


class Backend(StrEnum):
    local = "local"
    ray = "ray"


def rules_of(preset: str, overrides: list[str] | None, **defaults: object) -> RuleSet:
    """The rule set of ``--rules`` and its ``--rule key=value`` overrides; ``defaults``
    fill what the overrides leave unset (``players`` from the hands given, say)."""
    return get_rules(preset, **{**defaults, **parse_overrides(overrides or [])})


def path_text(value: str | Path) -> Path | Any:
    """Parse a path option: a folder or file, or an object store's URI
    (``sim.front.params.uri_or_path``); a refusal is a usage error naming the value."""
    try:
        return uri_or_path(value)
    except ValueError as error:
        raise typer.BadParameter(str(error)) from None


def file_text(value: str | Path) -> Path:
    """:func:`path_text` of a file to write (``rummy report --out``, ``rummy strategy-chart
    export --out``): text ending in a slash names a folder, and is refused in one line."""
    if isinstance(value, str) and value.endswith(("/", os.sep)):
        raise typer.BadParameter(f"{value!r} names a folder; give the file to write")
    return path_text(value)


def out_check(value: Path | None) -> Path | None:
    """Every ``--out`` that names a file or a folder of files calls this (as its typer
    callback): nothing is written over a run's or a study's own files
    (``sim.store.refuse_record_path``; a refusal exits 1, in one line)."""
    from sim import store

    if value is not None:
        store.refuse_record_path(value)
    return value


def out_root_check(value: Path) -> Path:
    """:func:`out_check` of a results root (``--out`` of the studies, under which each makes
    its folders): nor may it be a run folder or lie inside one."""
    from sim import store

    store.refuse_record_path(value, root=True)
    return value


RulesOption = params.preset("rules").option
RuleOverrides = overrides("rule", short="-r").option
JsonOption = Annotated[bool, typer.Option("--json", help="Print the result as JSON.")]
WorkersOption = Annotated[
    int | None,
    typer.Option(
        "--workers",
        "-w",
        min=1,
        max=MAX_WORKERS,
        help="Worker threads (or Ray tasks) (default: CPU cores).",
        show_default=False,
    ),
]
OutOption = Annotated[
    Path,
    typer.Option(
        "--out",
        "-o",
        parser=path_text,
        callback=out_root_check,
        help="Results root: a folder, or an object store's URI (s3://BUCKET/PREFIX).",
    ),
]
BackendOption = Annotated[Backend, typer.Option("--backend", help="Where chunks run.")]
AddressOption = Annotated[
    str | None,
    typer.Option("--address", help="Ray cluster address (with --backend ray).", show_default=False),
]
# the options a command not made from a front shares with the fronts (sim.front.params)
ChunkOption = params.chunk_size().option
