"""The parameters studies share, each stated once for both doors.

Each builder returns a :class:`sim.front.declare.Param`: the command's typer option and
the notebook's reading of the same parameter, with its bounds written once (``count``'s
``low`` is the option's ``min`` and the notebook's refusal of a smaller number). A
notebook reader takes what a caller may pass (``seats`` as text or a list, ``rules`` as
a preset's name or a ``RuleSet``, ``rule`` as a dict) and raises ``ValueError`` saying
what is allowed; the notebook puts ``name=value:`` before it.
"""

from __future__ import annotations

import contextlib
import math
import os
from collections.abc import Callable, Iterator, Mapping
from enum import StrEnum
from pathlib import Path
from typing import Annotated, Any

import typer

from sim.front.declare import REQUIRED, Param, ParamsError, flag_of, literal, spelled
from sim.limits import MAX_COUNT, MAX_SEED, chunk_size_problem
from sim.rules import DEFAULT_PRESET, RuleSet, get_rules, parse_overrides
from sim.sizes import (
    CHUNK_DEALS,
    CHUNK_GAMES,
    CHUNK_SLOW_DEALS,
    CHUNK_SLOW_GAMES,
    study_count,
)

__all__ = [
    "RULES_HELP",
    "Headline",
    "Rows",
    "at_most",
    "chunk_size",
    "count",
    "duplicate",
    "flag",
    "folder_name",
    "force",
    "games",
    "headline",
    "label",
    "maybe",
    "path",
    "lineup",
    "lineup_template",
    "max_count",
    "number",
    "overrides",
    "precision",
    "preset",
    "preset_or_rules",
    "refused",
    "rows",
    "rule_changes",
    "rule_set",
    "seat_cards",
    "seated",
    "resumed_alone",
    "seated_rules",
    "seed_in_file",
    "seats_text",
    "seconds",
    "seed",
    "size",
    "specs",
    "text",
    "texts",
    "truth",
    "uri_or_path",
    "usage",
    "whole",
    "whole_numbers",
    "words",
]


def at_most(limit: int, then: Callable[[Any], Any] | None = None) -> Callable[[Any], Any]:
    """An option's callback that refuses a value above ``limit`` (a usage error, as a
    declared ``max`` is), then runs ``then``. For caps far beyond any real use (a count's
    int64, a seed's 128 bits): a declared ``max`` would print them in ``--help`` and
    squeeze every description; ``.maximum`` says what is allowed, for the tests."""

    def check(value: Any) -> Any:
        if value is not None and value > limit:
            # typer's own words for a declared max: sim.cli adds the value given to them
            raise typer.BadParameter(f"Input should be less than or equal to {limit}")
        return value if then is None else then(value)

    check.maximum = limit  # type: ignore[attr-defined]
    return check


# --- the notebook's readings ---------------------------------------------------------


def whole(value: Any, low: int, high: int = MAX_COUNT) -> int:
    """A whole number in ``low..high`` (not a bool, not a float: ``2e3`` is refused)."""
    if isinstance(value, bool) or not isinstance(value, int) or not low <= value <= high:
        raise ValueError(f"give a whole number {low:,}..{high:,}")
    return int(value)


def text(value: Any, example: str) -> str:
    if not isinstance(value, str) or not value.strip():
        raise ValueError(f"give text, e.g. {example}")
    return value


def truth(value: Any) -> bool:
    if not isinstance(value, bool):
        raise ValueError("give True or False")
    return value


def texts(value: Any, example: str) -> str | tuple[str, ...]:
    """Text, or a list or tuple of texts (one per seat, strategy or parameter)."""
    if isinstance(value, str):
        return text(value, example)
    if isinstance(value, list | tuple) and value and all(isinstance(v, str) for v in value):
        return tuple(value)
    raise ValueError(f"give text or a list of texts, e.g. {example!r}")


def seats_text(value: Any) -> str | tuple[str, ...]:
    """A line-up: text, or one spec (or agent object, docs/AGENTS.md) per seat."""
    if isinstance(value, list | tuple) and not all(isinstance(v, str) for v in value):
        from strategies.agent import seat_object

        value = [v if isinstance(v, str) else seat_object(v) for v in value]
    return texts(value, "greedy:knock_at=7/simple")


def preset_or_rules(value: Any) -> str | RuleSet:
    if not isinstance(value, str | RuleSet):
        raise ValueError("give a preset's name (gin, knock-rummy, ...) or a RuleSet")
    return value


def rule_changes(value: Any) -> dict[str, Any]:
    if not isinstance(value, Mapping) or not all(isinstance(k, str) for k in value):
        raise ValueError('give a dict of rule parameters, e.g. {"knock_limit": 7}')
    return dict(value)


def _flags(name: str, short: str | None) -> tuple[str, ...]:
    """A parameter's flag, and its short form where it has one (``--deals``, ``-n``)."""
    return (flag_of(name), short) if short else (flag_of(name),)


def _optional(read: Callable[[Any], Any]) -> Callable[[Any], Any]:
    return lambda value: None if value is None else read(value)


def usage(check: Callable[[Any], Any]) -> Callable[[Any], Any]:
    """A notebook reading as the command's option callback: a refusal is a usage error."""

    def callback(value: Any) -> Any:
        try:
            return None if value is None else check(value)
        except ValueError as error:
            raise typer.BadParameter(str(error)) from None

    return callback


# --- the parameters --------------------------------------------------------------------


def count(name: str, low: int, help: str, short: str | None = None) -> Param:
    """A size (``deals``, ``games``): a whole number ``low..MAX_COUNT``, or None (not
    given: the study's default)."""
    return number(name, help, None, low, short=short)


def number(
    name: str, help: str, default: int | None, low: int, high: int | None = None,
    short: str | None = None,
) -> Param:  # fmt: skip
    """A whole number ``low..high`` (no ``high``: up to ``MAX_COUNT``, left out of the
    help), or None where that is the default."""
    top = MAX_COUNT if high is None else high
    bounds: dict[str, Any] = {"min": low} | ({"max": high} if high is not None else {})
    help_text, shown = spelled(help, flag_of), default is not None
    option = typer.Option(*_flags(name, short), **bounds, callback=at_most(top), help=help_text,
                          show_default=shown)  # fmt: skip
    read = lambda v: whole(v, low, top)  # noqa: E731
    if default is None:
        return Param(name, help, Annotated[int | None, option], _optional(read), "int | None")
    return Param(name, help, Annotated[int, option], read, "int", default=default)


def _positive(value: Any) -> bool:
    """A finite number above 0 (``inf`` would never stop adding deals short of the cap,
    ``nan`` never start; not a bool)."""
    ok = isinstance(value, int | float) and not isinstance(value, bool)
    return ok and 0 < value < math.inf


def _positive_seconds(value: Any) -> float:
    if not _positive(value):
        raise ValueError(f"{value!r} is not a positive number of seconds")
    return float(value)


def seconds(name: str, help: str) -> Param:
    """A time in seconds: a finite number above 0, or None (no limit)."""
    option = typer.Option(flag_of(name), callback=usage(_positive_seconds),
                          help=spelled(help, flag_of), show_default=False)  # fmt: skip
    return Param(name, help, Annotated[float | None, option], _optional(_positive_seconds),
                 "float | None")  # fmt: skip


def words(name: str, help: str, default: Any, example: str, short: str | None = None) -> Param:
    """Text: a hand's cards, a model's name, a strategy spec (``default`` None: optional;
    :data:`REQUIRED`: needed; "" allowed where it is the default)."""
    flags = _flags(name, short)
    shown = default is not None and default is not REQUIRED and default != ""
    option = typer.Option(*flags, help=spelled(help, flag_of), show_default=shown)

    def read(value: Any) -> str:
        if value == "" and default == "":
            return value
        return text(value, example)

    if default is None:
        return Param(name, help, Annotated[str | None, option], _optional(read), "str | None")
    return Param(name, help, Annotated[str, option], read, "str", default=default)


def seat_cards(name: str, help: str) -> Param:
    """Cards by seat: ``--took 1:7H,7D`` (repeatable) at the command line, ``{1: "7H
    7D"}`` in the notebook; both read as a dict seat -> card text, or None (not given)."""

    def parse(items: list[str] | None) -> dict[int, str] | None:
        if not items:
            return None
        cards: dict[int, str] = {}
        for item in items:
            seat, sep, text = item.partition(":")
            if not sep or not seat.strip().isdigit():
                given = literal(repr(item))
                raise ParamsError(f"{{{name}}} {given}: write SEAT:CARDS, e.g. {{{name}}} 1:7H,7D")
            cards[int(seat)] = cards.get(int(seat), "") + " " + text.replace(",", " ")
        return cards

    def read(value: Any) -> dict[int, str]:
        if not isinstance(value, Mapping) or not all(
            isinstance(s, int) and not isinstance(s, bool) and isinstance(c, str)
            for s, c in value.items()
        ):
            raise ValueError('give a dict seat -> cards, e.g. {1: "7H 7D"}')
        return dict(value)

    cli = spelled(help + " Repeatable.", flag_of)
    option = typer.Option(flag_of(name), help=cli, show_default=False)
    return Param(name, help, Annotated[list[str] | None, option], _optional(read),
                 "Mapping[int, str] | None", parse=parse)  # fmt: skip


def whole_numbers(name: str, help: str, example: str) -> Param:
    """Whole numbers, one per seat: ``--scores 40,25`` at the command line, a list in the
    notebook; or None (not given)."""

    def parse(value: str | None) -> list[int] | None:
        if value is None:
            return None
        try:
            return [int(x) for x in value.replace(",", " ").split()]
        except ValueError:
            raise ParamsError(
                f"{{{name}}} {literal(repr(value))}: give one whole number per seat, e.g. {example}"
            ) from None

    def read(value: Any) -> list[int]:
        if not isinstance(value, list | tuple) or not all(
            isinstance(v, int) and not isinstance(v, bool) for v in value
        ):
            raise ValueError(f"give one whole number per seat, e.g. [{example}]")
        return list(value)

    option = typer.Option(flag_of(name), help=spelled(help, flag_of), show_default=False)
    return Param(name, help, Annotated[str | None, option], _optional(read),
                 "Sequence[int] | None", parse=parse)  # fmt: skip


class Rows(StrEnum):
    hands = "hands"
    none = "none"


class Headline(StrEnum):
    net_points = "net_points"
    points = "points"
    win_rate = "win_rate"
    net_score = "net_score"
    game_win_rate = "game_win_rate"


def _chosen(kind: type[StrEnum]) -> Callable[[Any], str]:
    def read(value: Any) -> str:
        if not isinstance(value, str) or value not in {k.value for k in kind}:
            raise ValueError(f"choose one of: {', '.join(k.value for k in kind)}")
        return value

    return read


def _value(choice: StrEnum | None) -> str | None:
    return None if choice is None else choice.value


def rows() -> Param:
    help = (
        "Keep per-hand rows ('hands'), or only exact summaries ('none': far less disk; "
        "comparisons are then unpaired) (default: hands)."
    )
    option = typer.Option("--rows", help=help, show_default=False)
    return Param("rows", help, Annotated[Rows | None, option], _optional(_chosen(Rows)),
                 "str | None", parse=_value)  # fmt: skip


def headline() -> Param:
    help = (
        "Metric compared: seat 0's net_points, points or win_rate per hand (deals), "
        "net_score or game_win_rate per game (games)."
    )
    option = typer.Option("--headline", help=help, show_default=False)
    return Param("headline", help, Annotated[Headline | None, option],
                 _optional(_chosen(Headline)), "str | None", parse=_value)  # fmt: skip


def _target(value: Any) -> float:
    """A target such as ``precision`` (as an experiment file's)."""
    if not _positive(value):
        raise ValueError(f"{value} is not allowed; give a finite number > 0")
    return float(value)


def precision() -> Param:
    help = "Keep adding deals until the headline's 95% CI half-width is below this."
    option = typer.Option("--precision", callback=usage(_target), help=help, show_default=False)
    return Param("precision", help, Annotated[float | None, option], _optional(_target),
                 "float | None")  # fmt: skip


def max_count() -> Param:
    return count("max_count", 1, "Cap per setting for {precision} (default: 10 x the size).")


def _chunk(value: Any) -> int:
    """A chunk that fits in memory (refused before anything is played)."""
    size = whole(value, 1)
    problem = chunk_size_problem(size)
    if problem:
        raise ValueError(problem)
    return size


def chunk_size() -> Param:
    help = (
        f"Deals or games per chunk (resume granularity; default {CHUNK_DEALS:,} deals or "
        f"{CHUNK_GAMES:,} games, {CHUNK_SLOW_DEALS:,} or {CHUNK_SLOW_GAMES} with an mc or agent "
        "seat; at most what half of the memory this process may use holds: RAM, ulimit or "
        "cgroup)."
    )
    option = typer.Option("--chunk-size", min=1, callback=usage(_chunk), help=help,
                          show_default=False)  # fmt: skip
    return Param("chunk_size", help, Annotated[int | None, option], _optional(_chunk),
                 "int | None")  # fmt: skip


def folder_name() -> Param:
    return words("name", "Folder under {out} for the results (default: named by the study's "
                 "settings and seed).", None, "'knock-study'")  # fmt: skip


def force() -> Param:
    return flag("force", "Replace another study in the same folder (it is deleted); without "
                "it, that is refused.")  # fmt: skip


def games(low: int, per: str) -> Param:
    """Whole games per run (per seating, per setting) instead of single deals."""
    return count("games", low, f"Whole games per {per} (instead of {{deals}}); the metric is "
                 "then the net final score per game.")  # fmt: skip


def seed() -> Param:
    help = "Master seed: every run plays the same deals. Drawn when omitted, and shown."
    option = typer.Option("--seed", min=0, callback=at_most(MAX_SEED), help=spelled(help, flag_of),
                          show_default=False)  # fmt: skip
    return Param("seed", help, Annotated[int | None, option],
                 _optional(lambda v: whole(v, 0, MAX_SEED)), "int | None")  # fmt: skip


def flag(name: str, help: str, default: bool = False) -> Param:
    """A yes or no: ``--name/--no-name`` at the command line, True or False in the notebook."""
    option = typer.Option(f"{flag_of(name)}/--no-{flag_of(name)[2:]}", help=spelled(help, flag_of))
    return Param(name, help, Annotated[bool, option], truth, "bool", default=default)


def duplicate(help: str) -> Param:
    return flag("duplicate", help)


def maybe(name: str, help: str) -> Param:
    """A yes or no that may be left out, None (a file's own value then stands):
    ``--name/--no-name`` at the command line, True, False or None in the notebook."""
    option = typer.Option(f"{flag_of(name)}/--no-{flag_of(name)[2:]}", help=help,
                          show_default=False)  # fmt: skip
    return Param(name, help, Annotated[bool | None, option], _optional(truth), "bool | None")


def uri_or_path(value: str | os.PathLike[str]) -> Any:
    """A folder or file, or an object store's URI (``s3://bucket/prefix``:
    ``sim.store.location``). Empty text is refused (``Path("")`` would mean "."), and so
    is a URI pyarrow cannot use, in one line naming it (``ValueError``)."""
    from sim import store

    if isinstance(value, str) and not value.strip():
        raise ValueError("empty text; give a path")
    try:
        return store.location(value)
    except store.StorageError as error:
        raise ValueError(str(error)) from None


def path(name: str, help: str, uri: bool = False, argument: bool = False) -> Param:
    """A file (``Path``), or with ``uri`` a folder that may be an object store's URI
    (``s3://...``); None: not given. ``argument``: the command takes it by position."""
    parser = usage(uri_or_path) if uri else None
    option = (
        typer.Argument(help=help, metavar=name.upper(), show_default=False, parser=parser)
        if argument
        else typer.Option(flag_of(name), help=help, show_default=False, parser=parser)
    )

    def read(value: Any) -> Any:
        if not isinstance(value, str | os.PathLike) or not str(value).strip():
            raise ValueError("give a path")
        return uri_or_path(value) if uri else Path(value)

    return Param(name, help, Annotated[Path | None, option], _optional(read),
                 "str | os.PathLike[str] | None", argument=argument)  # fmt: skip


def specs(name: str, help: str, example: str, short: str | None = None) -> Param:
    """Specs a study needs (strategies): the option once or more at the command line
    (each may hold several, comma-separated), text or a list of texts in the notebook."""
    flags = _flags(name, short)
    option = typer.Option(*flags, help=spelled(help + " Repeatable.", flag_of), show_default=False)
    return Param(name, help + " A list works too.", Annotated[list[str], option],
                 lambda v: texts(v, example), "str | Sequence[str]", default=REQUIRED)  # fmt: skip


def lineup_template(name: str, help: str, example: str, short: str | None = None) -> Param:
    """A line-up template (``greedy:knock_at={k}/simple``): the option once, or once per
    seat, at the command line; text or a list in the notebook; None: not given."""
    flags = _flags(name, short)
    cli = spelled(help, flag_of) + " Or the option once per seat."
    option = typer.Option(*flags, help=cli, show_default=False)
    return Param(name, help + " Or a list, one per seat.", Annotated[list[str] | None, option],
                 _optional(lambda v: texts(v, example)), "str | Sequence[str] | None",
                 parse=lambda v: (v[0] if len(v) == 1 else tuple(v)) if v else None)  # fmt: skip


def lineup(name: str, help: str, default: str | None, short: str | None = None) -> Param:
    """A line-up: ``--seats greedy/simple`` at the command line; text or a list (one spec
    or agent object per seat) in the notebook."""
    flags = _flags(name, short)
    option = typer.Option(*flags, help=spelled(help, flag_of), show_default=default is not None)
    read = seats_text if default is not None else _optional(seats_text)
    kind = "str | Sequence[str]" + ("" if default is not None else " | None")
    return Param(name, help, Annotated[str if default else str | None, option], read, kind,
                 default=default)  # fmt: skip


RULES_HELP = "Rule preset (see `rummy rules list`)."


def preset(name: str, help: str = RULES_HELP, default: str | None = DEFAULT_PRESET) -> Param:
    """A rule preset's name (``--rules gin``); the notebook takes a ``RuleSet`` too."""
    option = typer.Option(
        flag_of(name), help=spelled(help, flag_of), show_default=default is not None
    )
    read = preset_or_rules if default is not None else _optional(preset_or_rules)
    kind = "str | RuleSet" + ("" if default is not None else " | None")
    return Param(name, help, Annotated[str if default else str | None, option], read, kind,
                 default=default)  # fmt: skip


def overrides(
    name: str, whose: str = "", short: str | None = None, wins_over: str | None = None
) -> Param:
    """Rule parameters changed: ``--rule knock_limit=7`` (repeatable) at the command
    line, ``rule={"knock_limit": 7}`` in the notebook; both read as a dict (empty: none).
    ``whose`` narrows them (" for side B only"); ``wins_over`` names the parameter whose
    changes they override."""
    flags = _flags(name, short)
    wins = "" if wins_over is None else f"; wins over {{{wins_over}}}"
    cli = "Override one rule parameter" + whose + ", as key=value (repeatable" + wins + ")."
    notebook = (
        "Rule parameters to change" + whose + ", as a dict ({{'knock_limit': 7}}" + wins + ")."
    )
    option = typer.Option(*flags, help=spelled(cli, flag_of))
    return Param(name, notebook, Annotated[list[str] | None, option],
                 lambda v: {} if v is None else rule_changes(v), "Mapping[str, Any] | None",
                 parse=lambda v: parse_overrides(v or []))  # fmt: skip


def label(name: str, help: str) -> Param:
    """A name shown for something in the output (None: chosen from what differs)."""
    option = typer.Option(flag_of(name), help=spelled(help, flag_of), show_default=False)
    return Param(name, help, Annotated[str | None, option],
                 _optional(lambda v: text(v, "'knock at 5'")), "str | None")  # fmt: skip


# --- a request made of them --------------------------------------------------------------


@contextlib.contextmanager
def refused(name: str | tuple[str, ...], value: Any) -> Iterator[None]:
    """What the code below refuses (a ``ValueError`` in its own words) as a refusal of
    parameter ``name`` given ``value`` (or of the parameters and values of two tuples)."""
    try:
        yield
    except ParamsError:
        raise
    except ValueError as error:
        raise ParamsError(literal(" ".join(str(error).split())), name, value) from None


def size(kind: str, deals: int | None, games: int | None) -> tuple[int, str]:
    """The study's count and mode: ``games`` whole games, else ``deals`` single deals,
    else the kind's default deals (``sim.sizes``); not both."""
    if deals is not None and games is not None:
        raise ParamsError("give one, not both", ("deals", "games"), (deals, games))
    return study_count(kind, deals, games)


def rule_set(
    values: Mapping[str, Any], preset: str, changes: str, base: Mapping[str, Any] | None = None
) -> RuleSet:
    """The rule set of parameter ``preset`` with parameter ``changes``'s rule parameters
    (over ``base``'s, which they win), each refused by its own name."""
    with refused(preset, values[preset]):
        rules = get_rules(values[preset])
    with refused(changes, values[changes]):
        return get_rules(rules, **{**(base or {}), **values[changes]})


def resumed_alone(values: Mapping[str, Any], given: str | None) -> None:
    """A resume plays the settings stored in its folder: refuse ``given``, a setting
    given beside ``resume`` (None: none was)."""
    if given is not None:
        raise ParamsError(f"{{resume}} plays the settings stored in its folder; drop "
                          f"{{{given}}}", ("resume", given),
                          (values["resume"], values[given]))  # fmt: skip


def seed_in_file(path: Any) -> int | None:
    """The seed a study's TOML file (an experiment's, a tune's) names, or None: it names
    none, or it cannot be read (its own reading refuses it, in its words)."""
    from sim.store import StorageError, read_toml

    try:
        seed = read_toml(path).get("seed")
    except StorageError:
        return None
    return seed if isinstance(seed, int) and not isinstance(seed, bool) else None


def seated_rules(values: Mapping[str, Any]) -> RuleSet:
    """The rule set of ``rules`` and ``rule`` with ``players`` seats where given (a
    ``rule`` players=N that says otherwise is refused)."""
    players = values["players"]
    rules = rule_set(values, "rules", "rule", None if players is None else {"players": players})
    if players is not None and rules.players != players:
        raise ParamsError(f"conflicts with {{rule}} players={rules.players}", "players", players)
    return rules


def seated(name: str, seats: str | tuple[str, ...], rules: RuleSet) -> None:
    """Refuse a line-up (parameter ``name``) that cannot seat ``rules``' players."""
    from strategies import parse_lineup

    with refused(name, seats):
        parse_lineup(seats, rules.players, rules=rules)
