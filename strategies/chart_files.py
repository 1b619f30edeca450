"""Chart files: a ``chart`` seat by name (``chart:gin``) or by file (``chart:file=PATH``),
the rules a chart was made for, and how such a seat is shown.

In plain words (``docs/CHARTS.md``, "Chart files"):

* A chart file is text: one line holding the seat spec (``chart:k1=...``, every
  parameter spelt out), and ``#`` comment lines. Comments of the form ``# key: value``
  with a key of :data:`HEADER` say what rules the chart was made for: the rule set's
  name, its player count, its scoring (``gin``: Gin; ``knock``: Knock Rummy), its
  knock limit (a number, ``upcard`` or ``none``) and, where the rules differ from the
  preset of that name in more than the player count, those house rules
  (``undercut_penalty=0``). ``rummy strategy-chart export`` and ``solve`` write them
  (:func:`chart_file_text`); a file of the spec alone (as they wrote before) is read
  as made for rules unknown. ``solve`` also writes ``reached: T`` where, with every
  seat playing the final chart, no hand of its last chart run reached own turn T + 1:
  the rules of later turns were measured in earlier rounds, against other play (the
  card says so).
* The shipped charts, the solved seats of docs/CHARTS.md ("Shipped charts"), are such
  files inside this package (``strategies/charts/NAME.chart``), so that a plain
  ``pip install`` carries them: ``chart:NAME`` seats one.
* ``chart:NAME`` and ``chart:file=PATH`` take the chart's parameters; ``key=value``
  items after them override some (``chart:gin,lookahead=0``). A path that holds ``/``
  reads on to its ``.chart`` (``chart:file=results/solve/ID/final.chart/simple`` is
  two seats: ``strategies.split_specs``); write any other path with ``/`` or ``,`` in
  quotes.
* Seated where the study's rules are known (``strategies.parse_seat``'s ``rules``), a
  chart is refused in one line when its header names another player count, scoring or
  knock limit (its masks are per own turn and deadwood column of those rules), or house
  rules that the study's rules set otherwise (it answers those rules). Other
  differences pass (the Gin charts play under ``eaai``, which differs from ``gin`` in
  bonuses, lay-off play and game rules, not in players, scoring or knock limit). A file
  without a header is not checked, nor is a chart spelt out in full.
* How such a seat is shown (:func:`chart_label`): by its name or its file's name, with
  the overrides that change a value (``chart:gin,lookahead=0``,
  ``chart:file=final.chart``); a chart spelt out in full by ``chart#`` and 8 hex digits
  of its parameters, unless its spec is short (``chart:lookahead=30``).

The seat spec is always the parameters themselves (``strategies.format_seat``): a run's
identity, its rows and its resume never depend on a file found again later.
"""

from __future__ import annotations

import functools
import hashlib
from collections.abc import Mapping
from dataclasses import dataclass, field
from importlib import resources
from pathlib import Path
from typing import Any, NamedTuple, Protocol

from strategies.base import StrategyError, choose

__all__ = [
    "HEADER",
    "ChartFile",
    "chart_file_text",
    "chart_label",
    "describe_rules",
    "check_layer",
    "check_rules",
    "header_file_text",
    "layer_header",
    "load_chart_file",
    "made_for",
    "named_text",
    "read_chart_text",
    "reference",
    "searcher_model",
    "seat_reference",
    "shipped_chart",
    "shipped_names",
]

STRATEGY_NAME = "chart"
HEADER = ("rules", "players", "scoring", "knock_limit", "house", "reached")
"""The header's keys, in the order a chart file writes them (``house`` only where the
rules differ from their preset; ``reached`` only from a solve whose final play ends
every hand before the chart's last own turn)."""
CHECKED = ("players", "scoring", "knock_limit")
"""The keys a seat's rules must match (``rules`` is the rule set's name: shown, not checked)."""
FILE_KEY = "file"
SUFFIX = ".chart"
SHORT = 40  # a spelt-out chart spec longer than this is shown as chart#<digest>
MAX_BYTES = 64 * 1024  # a chart file is one line of some 400 characters and a header
SCORING_WORDS = {"gin": "Gin", "knock": "Knock Rummy"}
CHECKED_WORDS = {"players": "player count", "scoring": "scoring", "knock_limit": "knock limit"}


class RulesLike(Protocol):
    """What a chart's check reads of a rule set (``sim.rules.RuleSet``)."""

    @property
    def name(self) -> str: ...
    @property
    def players(self) -> int: ...
    @property
    def scoring(self) -> str: ...
    @property
    def knock_limit(self) -> Any: ...


@dataclass(frozen=True)
class ChartFile:
    """A chart file read: its seat spec and what its header says (text by key of
    :data:`HEADER`, only the keys it gives); ``where`` names it in messages. The spec's
    values are read where seats are (``strategies.parse_seat``: a bad one is "not a
    chart file" there); this module imports no registry."""

    spec: str
    header: Mapping[str, str] = field(default_factory=dict)
    where: str = ""


# --- the rules a chart was made for ------------------------------------------------------


def _limit_text(limit: Any) -> str:
    return "none" if limit is None else str(limit)


def made_for(rules: RulesLike) -> dict[str, str]:
    """A rule set as a chart file's header writes it."""
    return {
        "rules": rules.name,
        "players": str(rules.players),
        "scoring": rules.scoring,
        "knock_limit": _limit_text(rules.knock_limit),
    }


def describe_rules(header: Mapping[str, str]) -> str:
    """``gin (2 players, Gin scoring, knock limit 10)``: what a header says, in words."""
    parts = []
    if "players" in header:
        parts.append(f"{header['players']} players")
    if "scoring" in header:
        parts.append(f"{SCORING_WORDS.get(header['scoring'], header['scoring'])} scoring")
    if "knock_limit" in header:
        parts.append(f"knock limit {header['knock_limit']}")
    name = header.get("rules", "rules")
    if "house" in header:
        name += f" with {header['house']}"
    return f"{name} ({', '.join(parts)})" if parts else name


def _house_items(header: Mapping[str, str]) -> dict[str, str]:
    """The header's house rules, ``{"undercut_penalty": "0"}``."""
    items = (item.partition("=") for item in header.get("house", "").split(", ") if item)
    return {key: value for key, _, value in items}


def _differing(header: Mapping[str, str], rules: RulesLike) -> list[str]:
    """The checked keys (:data:`CHECKED`) where ``header`` names other rules than
    ``rules``, then the house rules it names that ``rules`` set otherwise; a key the
    header does not give passes."""
    theirs = made_for(rules)
    differ = [key for key in CHECKED if key in header and header[key] != theirs[key]]
    return differ + [
        key
        for key, value in _house_items(header).items()
        if _limit_text(getattr(rules, key, value)) != value
    ]


def check_rules(chart: ChartFile, shown: str, rules: RulesLike) -> None:
    """Refuse ``chart`` (shown as ``shown``) under ``rules`` when its header names another
    player count, scoring or knock limit, or house rules that ``rules`` set otherwise
    (one line); anything else passes."""
    differ = _differing(chart.header, rules)
    if differ:
        theirs = made_for(rules)
        words = " and ".join(CHECKED_WORDS.get(key, key) for key in differ)
        raise StrategyError(
            f"{shown} was made for {describe_rules(chart.header)}, not for the study's rules "
            f"{describe_rules(theirs)}: its {words} differ{'s' if len(differ) == 1 else ''}"
        )


def chart_file_text(
    spec: str, rules: RulesLike, house: Mapping[str, Any] | None = None, reached: int | None = None
) -> str:
    """A chart file: the header of ``rules`` (the rules the chart was made for; ``house``:
    where they differ from their preset, ``sim.rules.house_rules``; ``reached``: the last
    own turn its solve's final play reached), then the seat spec."""
    header = made_for(rules)
    if house:
        header["house"] = ", ".join(f"{key}={_limit_text(value)}" for key, value in house.items())
    if reached is not None:
        header["reached"] = str(reached)
    return header_file_text(header, spec)


def header_file_text(header: Mapping[str, str], spec: str) -> str:
    """A chart file of ``header`` (its keys of :data:`HEADER`) and ``spec``."""
    lines = ['# rummy-sim strategy chart: a "chart" seat (docs/CHARTS.md, "Chart files")']
    lines += [f"# {key}: {header[key]}" for key in HEADER if key in header]
    return "\n".join([*lines, spec.strip()]) + "\n"


def layer_header(header: Mapping[str, str], players: int) -> dict[str, str | None]:
    """What the header of a card for ``players`` left of a chart made for ``header``
    says: the same rules (None: a key ``header`` does not give), that player count."""
    want = {key: header.get(key) for key in ("rules", "scoring", "knock_limit", "house")}
    return {**want, "players": str(players)}


def check_layer(layer: ChartFile, shown: str, header: Mapping[str, str], players: int) -> None:
    """Refuse ``layer`` (shown as ``shown``) as the card for ``players`` left of a chart
    made for the rules of ``header``: its header must name those rules with that player
    count (one line); a chart without a header passes, as it does when seated."""
    if not layer.header:
        return
    want = layer_header(header, players)
    differ = [key for key, value in want.items() if layer.header.get(key) != value]
    if differ:
        asked = {key: value for key, value in want.items() if value is not None}
        raise StrategyError(
            f"{shown} was made for {describe_rules(layer.header)}, not for "
            f"{describe_rules(asked)}: the card for {players} players left plays those rules"
        )


# --- reading ----------------------------------------------------------------------------


def _header_value(key: str, value: str, where: str) -> str:
    """A header value checked: ``players`` 2-6, ``scoring`` gin or knock, ``knock_limit``
    a whole number, upcard or none, ``reached`` an own turn (1 or more)."""
    ok = {
        "rules": bool(value),
        "house": bool(value),
        "players": value.isdigit() and 2 <= int(value) <= 6,
        "scoring": value in SCORING_WORDS,
        "knock_limit": value.isdigit() or value in ("upcard", "none"),
        "reached": value.isdigit() and int(value) >= 1,
    }[key]
    if not ok:
        allowed = {
            "rules": "a rule set's name",
            "house": "the rules that differ from the preset",
            "players": "2 to 6",
            "scoring": "gin or knock",
            "knock_limit": "a whole number, upcard or none",
            "reached": "an own turn, 1 or more",
        }[key]
        raise StrategyError(
            f"{where} is not a chart file: its header's {key} is {value!r} ({allowed})"
        )
    return str(int(value)) if value.isdigit() else value


def read_chart_text(text: str, where: str) -> ChartFile:
    """A chart file's text read and its form checked (``where`` names it in the one-line
    error): one spec line, of the chart strategy, spelt out; a header of known values."""
    header: dict[str, str] = {}
    specs = []
    for raw in text.splitlines():
        line = raw.strip()
        if line.startswith("#"):
            key, colon, value = line[1:].partition(":")
            if colon and key.strip() in HEADER:
                header[key.strip()] = _header_value(key.strip(), value.strip(), where)
        elif line:
            specs.append(line)
    if len(specs) != 1:
        raise StrategyError(
            f"{where} is not a chart file: it holds {len(specs)} lines that are not "
            "comments; a chart file holds one chart seat spec (chart:k1=...)"
        )
    spec = specs[0]
    name, _, rest = spec.partition(":")
    if name.strip() != STRATEGY_NAME:
        raise StrategyError(
            f"{where} is not a chart file: its line {_clip(spec)!r} is not a chart seat "
            "spec (chart:k1=...)"
        )
    if reference(rest) is not None:
        raise StrategyError(
            f"{where} is not a chart file: its spec names another chart ({_clip(spec)!r}); "
            "a chart file spells out the parameters"
        )
    return ChartFile(spec, header, where)


def _clip(text: str) -> str:
    return text if len(text) <= 40 else text[:37] + "..."


def load_chart_file(path: str | Path) -> ChartFile:
    """The chart file at ``path`` (StrategyError, one line, when it is missing, not
    readable or not a chart file)."""
    where = f"{STRATEGY_NAME}:{FILE_KEY}={path}"
    target = Path(path).expanduser()
    try:
        if target.is_dir():
            raise StrategyError(f"{where} is a folder, not a chart file")
        if target.stat().st_size > MAX_BYTES:
            raise StrategyError(f"{where} is not a chart file: over {MAX_BYTES // 1024} KiB")
        text = target.read_text(encoding="utf-8")
    except (FileNotFoundError, NotADirectoryError):
        hint = (
            f" (a path not ending in {SUFFIX} reads on over '/' in a line-up: quote it)"
            if "/" in str(path) and not str(path).endswith(SUFFIX)
            else ""
        )
        raise StrategyError(f"{where}: no such file{hint}") from None
    except UnicodeDecodeError:
        raise StrategyError(f"{where} is not a chart file: not text") from None
    except OSError as error:
        raise StrategyError(f"{where}: cannot read it ({error.strerror or error})") from None
    return read_chart_text(text, where)


def _shipped_folder() -> Any:
    return resources.files(__package__ or "strategies") / "charts"


@functools.cache
def shipped_names() -> tuple[str, ...]:
    """The shipped charts' names, sorted (``strategies/charts/NAME.chart``)."""
    folder = _shipped_folder()
    return tuple(
        sorted(p.name[: -len(SUFFIX)] for p in folder.iterdir() if p.name.endswith(SUFFIX))
    )


@functools.cache
def shipped_chart(name: str) -> ChartFile:
    """The shipped chart ``name`` (StrategyError naming the shipped ones otherwise)."""
    if name not in shipped_names():
        raise StrategyError(
            f"unknown chart {name!r}; the shipped charts: {choose(shipped_names())} "
            "(or chart:file=PATH for a chart file; parameters are key=value)"
        )
    text = (_shipped_folder() / f"{name}{SUFFIX}").read_text(encoding="utf-8")
    return read_chart_text(text, f"{STRATEGY_NAME}:{name}")


def searcher_model(rules: RulesLike) -> str | None:
    """The shipped chart that stands for a searching opponent (an ``mc`` seat) in
    another search's rollouts under Gin scoring: the chart made for these rules by name,
    else ``chart:gin``, where its player count and knock limit fit (None elsewhere, and
    under Knock Rummy scoring, where none was measured to pay: docs/MC.md)."""
    if rules.scoring != "gin":
        return None
    for name in (rules.name, "gin"):
        if name in shipped_names() and not _differing(shipped_chart(name).header, rules):
            return f"{STRATEGY_NAME}:{name}"
    return None


# --- seats --------------------------------------------------------------------------------


def _first_item(rest: str) -> str:
    from strategies.agent import split_outside_quotes

    return split_outside_quotes(rest, ",")[0].strip() if rest.strip() else ""


def _named(rest: str) -> tuple[str, str, str] | None:
    """``(kind, value, shown)`` of the chart that ``rest`` (a chart seat's text after
    ``chart:``) names by its first item: ``("name", "gin", "chart:gin")`` or
    ``("file", PATH, "chart:file=final.chart")``; None when it names none (every item
    ``key=value``, the key not ``file``). Text only: nothing is read."""
    from strategies.agent import unquoted

    first = _first_item(rest)
    key, eq, value = first.partition("=")
    if first and not eq:
        return "name", first, f"{STRATEGY_NAME}:{first}"
    if not first or key.strip() != FILE_KEY:
        return None
    path = unquoted(value)
    return FILE_KEY, path, f"{STRATEGY_NAME}:{FILE_KEY}={Path(path).name}"


def named_text(spec: str) -> str | None:
    """How the chart a seat spec names is shown (``chart:gin``, ``chart:file=x.chart``),
    from its text alone (a template's placeholders may follow); None for any other."""
    name, sep, rest = spec.strip().partition(":")
    named = _named(rest) if sep and name.strip() == STRATEGY_NAME else None
    return None if named is None else named[2]


def reference(rest: str) -> tuple[ChartFile, str] | None:
    """The chart a chart seat's parameters (``rest``, the text after ``chart:``) name by
    their first item, read, and how it is shown (``chart:gin``,
    ``chart:file=final.chart``); None when they name none (:func:`_named`)."""
    named = _named(rest)
    if named is None:
        return None
    kind, value, shown = named
    if kind == "name":
        return shipped_chart(value), shown
    if not value:
        raise StrategyError(f"{_first_item(rest)!r}: write {FILE_KEY}=PATH, a chart file's path")
    return load_chart_file(value), shown


def seat_reference(spec: str) -> tuple[ChartFile, str] | None:
    """The chart a seat spec names by name or file (:func:`reference`), and how it is
    shown; None for any other spec, a chart's spelt out or another strategy's."""
    name, sep, rest = spec.strip().partition(":")
    if name.strip() != STRATEGY_NAME or not sep:
        return None
    return reference(rest)


def _digest(params: NamedTuple) -> str:
    """8 hex digits of every parameter's value that plays (defaults too: a label that
    does not move when a default does; no layer the chart does not have)."""
    from strategies.chart import layer_fields

    text = ",".join(f"{k}={v}" for k, v in layer_fields(params))
    return hashlib.sha256(text.encode()).hexdigest()[:8]


def chart_label(params: NamedTuple, spec: str, named: tuple[str, NamedTuple] | None = None) -> str:
    """How a chart seat is shown: by the name it was seated by (``named``: how that is
    shown and the chart's own parameters) with the overrides that change a value
    (``chart:gin,lookahead=0``); else its canonical ``spec`` when short, else
    ``chart#<8 hex of its parameters>``."""
    if named is None:
        return spec if len(spec) <= SHORT else f"{STRATEGY_NAME}#{_digest(params)}"
    shown, base = named
    changed = [
        f"{name}={value}"
        for name, value, own in zip(params._fields, params, base, strict=True)
        if value != own
    ]
    return shown + ("," + ",".join(changed) if changed else "")
