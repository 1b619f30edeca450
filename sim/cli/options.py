"""Options every command shares: the same flag for the same thing, everywhere.

``--rules``/``-r``-style overrides, ``--seats``/``-s``, ``--deals``/``-n``, ``--games``,
``--seed``, ``--workers``/``-w``, ``--out``/``-o``, ``--backend``, ``--address``,
``--duplicate``, ``--precision``, ``--json``: declared once here, so that a command
cannot spell one differently (``rummy compare -w 4`` works as ``rummy run -w 4``).
Ranges are checked by the parser (exit status 2, one line); values that depend on
each other are checked by the library (exit status 1).
"""

from __future__ import annotations

from enum import StrEnum
from pathlib import Path
from typing import Annotated

import typer

from sim.rules import RuleSet, get_rules, parse_overrides

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
    "OutOption",
    "PrecisionOption",
    "RuleOverrides",
    "Rows",
    "RowsOption",
    "RulesOption",
    "SeatsOption",
    "SeedOption",
    "WorkersOption",
    "path_text",
    "rules_of",
]


class Backend(StrEnum):
    local = "local"
    ray = "ray"


class Rows(StrEnum):
    hands = "hands"
    none = "none"


class Headline(StrEnum):
    net_points = "net_points"
    points = "points"
    win_rate = "win_rate"
    net_score = "net_score"
    game_win_rate = "game_win_rate"


def rules_of(preset: str, overrides: list[str] | None, **defaults: object) -> RuleSet:
    """The rule set of ``--rules`` and its ``--rule key=value`` overrides; ``defaults``
    fill what the overrides leave unset (``players`` from the hands given, say)."""
    return get_rules(preset, **{**defaults, **parse_overrides(overrides or [])})


def path_text(value: str | Path) -> Path:
    """Parse a path option: a folder or file, or an object store's URI (``s3://bucket/
    prefix``: ``sim.store.location``). Empty text is refused (``Path("")`` would mean
    "."), and so is a URI pyarrow cannot use, in one line naming it."""
    from sim import store

    if isinstance(value, Path) or store.is_remote(value):  # a default, or parsed already
        return value
    if not value.strip():
        raise typer.BadParameter("empty text; give a path")
    try:
        return store.location(value)  # type: ignore[no-any-return]
    except store.StorageError as error:
        raise typer.BadParameter(str(error)) from None


RulesOption = Annotated[str, typer.Option("--rules", help="Rule preset (see `rummy rules list`).")]
RuleOverrides = Annotated[
    list[str] | None,
    typer.Option("--rule", "-r", help="Override one rule parameter, as key=value (repeatable)."),
]
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
        "--deals", "-n", min=1, help="Single hands to play (per run).", show_default=False
    ),
]
GamesOption = Annotated[
    int | None,
    typer.Option(
        "--games",
        min=1,
        help="Whole games of the rule set's game mode (instead of --deals); the metric is "
        "then the net final score per game.",
        show_default=False,
    ),
]
SeedOption = Annotated[
    int | None,
    typer.Option(
        "--seed",
        min=0,
        help="Master seed: every run plays the same deals. Drawn and printed when omitted.",
        show_default=False,
    ),
]
WorkersOption = Annotated[
    int | None,
    typer.Option(
        "--workers",
        "-w",
        min=1,
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
        help="Results root: a folder, or an object store's URI (s3://BUCKET/PREFIX).",
    ),
]
BackendOption = Annotated[Backend, typer.Option("--backend", help="Where chunks run.")]
AddressOption = Annotated[
    str | None,
    typer.Option("--address", help="Ray cluster address (with --backend ray).", show_default=False),
]
RowsOption = Annotated[
    Rows | None,
    typer.Option(
        "--rows",
        help="Keep per-hand rows ('hands'), or only exact summaries ('none': far less disk; "
        "comparisons are then unpaired) (default: hands).",
        show_default=False,
    ),
]
PrecisionOption = Annotated[
    float | None,
    typer.Option(
        "--precision",
        help="Keep adding deals until the headline's 95% CI half-width is below this.",
        show_default=False,
    ),
]
MaxCountOption = Annotated[
    int | None,
    typer.Option(
        "--max-count",
        min=1,
        help="Cap per setting for --precision (default: 10 x the size).",
        show_default=False,
    ),
]
DuplicateOption = Annotated[
    bool | None,
    typer.Option(
        "--duplicate/--no-duplicate",
        help="Also play every deal with the seats rotated, so seat luck cancels.",
        show_default=False,
    ),
]
HeadlineOption = Annotated[
    Headline | None,
    typer.Option(
        "--headline",
        help="Metric compared: seat 0's net_points, points or win_rate per hand (deals), "
        "net_score or game_win_rate per game (games).",
        show_default=False,
    ),
]
NameOption = Annotated[
    str | None,
    typer.Option("--name", help="Folder under --out for the results.", show_default=False),
]
ChunkOption = Annotated[
    int | None,
    typer.Option(
        "--chunk-size",
        min=1,
        help="Deals or games per chunk (resume granularity).",
        show_default=False,
    ),
]
