"""Options every command shares: the same flag for the same thing, everywhere.

``--rules``/``-r``-style overrides, ``--seats``/``-s``, ``--deals``/``-n``, ``--games``,
``--seed``, ``--workers``/``-w``, ``--out``/``-o``, ``--backend``, ``--address``,
``--duplicate``, ``--precision``, ``--json``: declared once here, so that a command
cannot spell one differently (``rummy compare -w 4`` works as ``rummy run -w 4``).
Ranges are checked by the parser (exit status 2, one line); values that depend on
each other are checked by the library (exit status 1).
"""

from __future__ import annotations

import os
from enum import StrEnum
from pathlib import Path
from typing import Annotated, Any

import typer

from sim.front import params
from sim.front.params import Headline, Rows, at_most, overrides
from sim.front.params import seed as seed_param
from sim.limits import MAX_COUNT, MAX_WORKERS
from sim.rules import RuleSet, get_rules, parse_overrides
from sim.sizes import (
    DEFAULT_DEALS,
)

__all__ = [
    "AddressOption",
    "Backend",
    "BackendOption",
    "ChunkOption",
    "DealsOption",
    "DuplicateOption",
    "GamesOption",
    "Headline",
    "HeadlineOption",
    "JsonOption",
    "MaxCountOption",
    "NameOption",
    "ForceOption",
    "at_most",
    "OutOption",
    "PrecisionOption",
    "RuleOverrides",
    "Rows",
    "RowsOption",
    "RulesOption",
    "SeatsOption",
    "SeedOption",
    "WorkersOption",
    "file_text",
    "out_check",
    "out_root_check",
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
    """Parse a path option: a folder or file, or an object store's URI (``s3://bucket/
    prefix``: ``sim.store.location``). Empty text is refused (``Path("")`` would mean
    "."), and so is a URI pyarrow cannot use, in one line naming it."""
    from sim import store

    if isinstance(value, str) and not value.strip():
        raise typer.BadParameter("empty text; give a path")
    try:
        return store.location(value)
    except store.StorageError as error:
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
SeatsOption = Annotated[
    list[str] | None,
    typer.Option(
        "--seats",
        "-s",
        help="Line-up: seat specs separated by '/' or ',' (greedy:knock_at=7/simple), or the "
        "option once per seat; one spec fills every seat.",
        show_default=False,
    ),
]
DealsOption = Annotated[
    int | None,
    typer.Option(
        "--deals",
        "-n",
        min=1,
        callback=at_most(MAX_COUNT),
        help=f"Single hands to play (per run or setting; default: {DEFAULT_DEALS['run']:,}).",
        show_default=False,
    ),
]
GamesOption = Annotated[
    int | None,
    typer.Option(
        "--games",
        min=1,
        callback=at_most(MAX_COUNT),
        help="Whole games of the rule set's game mode (instead of --deals); the metric is "
        "then the net final score per game.",
        show_default=False,
    ),
]
SeedOption = seed_param().option
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
DuplicateOption = Annotated[
    bool | None,
    typer.Option(
        "--duplicate/--no-duplicate",
        help="Also play every deal with the seats rotated, so seat luck cancels.",
        show_default=False,
    ),
]

# the options a command not yet made from a front shares with the fronts (sim.front.params)
RowsOption = params.rows().option
PrecisionOption = params.precision().option
MaxCountOption = params.max_count().option
HeadlineOption = params.headline().option
NameOption = params.folder_name().option
ForceOption = params.force().option
ChunkOption = params.chunk_size().option
