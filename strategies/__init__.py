"""Strategies: one module per idea, and the registry that names them.

A strategy is three ``@njit`` hooks with the signatures of ``kernels/obs.py``
(``take(obs, params, scratch) -> bool``, ``discard(obs, params, scratch) -> int``,
``knock(obs, params, scratch, discard) -> int``), a ``Params`` NamedTuple of numbers
(its defaults; at most ``kernels.obs.N_PARAMS`` fields) and a plain-words description.
The hooks never see the NamedTuple: the engine hands them ``params_vector(params)``,
a float64 vector holding the fields in declaration order. They read each field at its
named slot, never at a position written as a number: the module writes
``SLOT = param_slots(Params)`` once (an instance of ``Params`` whose every field holds
its own position, ``kernels/slots.py``), and a hook reads ``params[SLOT.knock_at]``
(an int field arrives as a whole float: ``np.int64(params[SLOT.knock_at])``). A plugin
module, in full::

    from typing import NamedTuple

    import numpy as np
    from numba import njit

    from kernels.greedy import memo_discard, memo_knock_decision, memo_take
    from strategies import Strategy, param_slots

    class Params(NamedTuple):
        min_gain: int = 1  # take the pile card when it lowers the deadwood this much
        knock_at: int = 5  # knock at this deadwood or less

    SLOT = param_slots(Params)

    @njit(cache=True)
    def take_nb(obs, params, scratch):
        return memo_take(obs, np.int64(params[SLOT.min_gain]), scratch)

    @njit(cache=True)
    def discard_nb(obs, params, scratch):
        return memo_discard(obs, scratch)

    @njit(cache=True)
    def knock_nb(obs, params, scratch, discard):
        threshold = np.int64(params[SLOT.knock_at])
        return memo_knock_decision(obs, discard, threshold, scratch)

    STRATEGY = Strategy(name="mine", description="Greedy that knocks at 5.", params=Params,
                        take_nb=take_nb, discard_nb=discard_nb, knock_nb=knock_nb,
                        module=__name__)

The engine imports each hook by name, from the module that defines it or from
``module``: a hook must be a module-level function of one of them (another
strategy's hook may be seated as it is: ``take_nb=greedy.take_nb``). A plugin whose
hook is not is refused as it loads.

``scratch`` is the seat's memory: a hand's words, zeroed each deal, and a game's, kept
across the hands of a game with the engine's count of how they ended
(``kernels/obs.py``, docs/ENGINE.md "Game memory").

Names
-----
* ``BUILTINS``: the eight built-in strategies, in this order: ``random``, ``greedy``,
  ``simple``, ``schedule``, ``defensive``, ``mc``, ``advice``, ``chart``.
* Plugins: ``load_plugin("mypkg.mystrategy")`` imports a module whose ``STRATEGY``
  attribute is a :class:`Strategy`; ``discover()`` loads every entry point of the
  group ``rummy_sim.strategies`` (its value a module, or ``module:ATTR`` naming a
  Strategy). ``registry()`` is the built-ins plus the plugins loaded so far; a name
  used twice is an error. A plugin whose hooks are pieces (``kernels.link.piece`` with
  the signatures of ``kernels/obs.py``: ``TAKE_HOOK``, ``DISCARD_HOOK``, ``KNOCK_HOOK``)
  plays in the engine every line-up shares and compiles only its hooks, in seconds; one
  of plain ``@njit`` hooks, the faster for small hooks, compiles an engine of its own
  (docs/ENGINE.md, "How the engine is compiled").

Seat specifications (command line)
----------------------------------
``greedy`` or ``greedy:knock_at=7,min_gain=2``: a strategy name, then optional
``key=value`` pairs separated by commas. Since commas separate parameters, a line-up
of several seats in one string separates the seats with ``/``:
``greedy:knock_at=7/simple``. A single spec fills every seat. A seat played by a
Python object or another program is ``python:package.module:Class`` or
``external:cmd=COMMAND`` (``strategies/agent.py``, docs/AGENTS.md); quotes keep a
command's ``/`` and ``,`` from splitting the line-up. A ``chart`` seat may name a
shipped chart or a chart file first (``chart:gin``, ``chart:file=PATH``, then
overrides: ``strategies/chart_files.py``); it is read as the parameters it names.

Labels
------
``seat_label(spec)`` is how every table, report and record shows a seat: the canonical
spec (``format_seat``), except that a chart seated by name or file shows that name
(``chart:gin``, ``chart:file=final.chart``) and a long chart spec spelt out shows as
``chart#`` and 8 hex digits of its parameters. The spec itself, never the label, is
what a run's identity and rows hold.
"""

from __future__ import annotations

import hashlib
import importlib
import importlib.util
import math
import sys
from collections.abc import Iterable
from importlib.metadata import entry_points
from pathlib import Path
from types import ModuleType
from typing import Any, NamedTuple

import numpy as np
import numpy.typing as npt

from kernels import HASHED_PACKAGES
from kernels.obs import N_PARAMS
from strategies.base import (  # noqa: F401  (re-exported: the package is the API)
    PARAM_LIMIT,
    Bounds,
    Strategy,
    StrategyError,
    choose,
    param_bounds,
    param_slots,
)

ENTRY_POINT_GROUP = "rummy_sim.strategies"

# --- parameters ----------------------------------------------------------------------


def _check_value(strategy: Strategy, name: str, value: float) -> None:
    low, high = param_bounds(strategy, name)
    if not low <= value <= high:
        shown = [int(x) if float(x).is_integer() else x for x in (low, high)]
        raise StrategyError(
            f"bad value for {strategy.name} parameter {name!r}: {value} "
            f"(must be between {shown[0]} and {shown[1]})"
        )


def _parse_spec_value(strategy: Strategy, name: str, text: str, rules: Any = None) -> str:
    """A spec parameter's value (``Strategy.specs``): empty, one of its words, or a
    seat spec of a compiled strategy (quotes around it dropped). A chart named by name
    or file is written out as its parameters: the value (and so a run's identity)
    never depends on a file read again later."""
    text = _agent.unquoted(text).strip()
    words = strategy.specs[name]
    if text == "" or text in words:
        return text
    if _agent.is_agent_spec(text):  # refused before it is imported or started
        raise StrategyError(
            f"bad value for {strategy.name} parameter {name!r}: {text!r} is an agent; "
            "rollouts play compiled strategies only (docs/AGENTS.md)"
        )
    try:
        seated = parse_seat(text, rules=rules)
    except StrategyError as exc:
        also = f" (or one of the words: {choose(words)})" if words else ""
        raise StrategyError(
            f"bad value for {strategy.name} parameter {name!r}: {exc}{also}"
        ) from None
    if _chart_files.seat_reference(text) is not None:
        return format_seat(*seated)
    return text


def _parse_value(strategy: Strategy, name: str, text: str, rules: Any = None) -> int | float | str:
    if name in strategy.specs:
        return _parse_spec_value(strategy, name, text, rules)
    default = strategy.params._field_defaults[name]
    text = text.strip()
    value: int | float
    if isinstance(default, int):
        try:
            value = int(text)
        except ValueError:
            raise StrategyError(
                f"bad value for {strategy.name} parameter {name!r}: {text!r} is not a whole number"
            ) from None
    else:
        try:
            value = float(text)
        except ValueError:
            raise StrategyError(
                f"bad value for {strategy.name} parameter {name!r}: {text!r} is not a number"
            ) from None
        if not math.isfinite(value):
            raise StrategyError(
                f"bad value for {strategy.name} parameter {name!r}: {text!r} is not finite"
            )
    _check_value(strategy, name, value)
    return value


def make_params(strategy: Strategy, **values: Any) -> NamedTuple:
    """The strategy's defaults with some fields replaced (checked like a parsed seat)."""
    fields = strategy.params._fields
    checked: dict[str, int | float | str] = {}
    for name, value in values.items():
        if name not in fields:
            raise StrategyError(
                f"unknown parameter {name!r} for strategy {strategy.name}; "
                f"its parameters: {choose(fields) or '(none)'}"
            )
        checked[name] = _parse_value(strategy, name, str(value))
    return strategy.defaults()._replace(**checked)


UNBOUND = -1.0
"""A spec parameter's word in the row until a study binds it (``Strategy.specs``)."""


def params_vector(params: NamedTuple) -> npt.NDArray[np.float64]:
    """The float64[N_PARAMS] vector the hooks read: the fields in order, then zeros. A
    spec parameter (text) reads 0 when empty, else ``UNBOUND`` until bound."""
    values = tuple(params)
    if len(values) > N_PARAMS:
        raise StrategyError(f"{len(values)} parameters, at most {N_PARAMS} are allowed")
    out = np.zeros(N_PARAMS, np.float64)
    for i, value in enumerate(values):
        if isinstance(value, str):
            out[i] = UNBOUND if value else 0.0
            continue
        if isinstance(value, bool) or not isinstance(value, (int, float, np.integer, np.floating)):
            raise StrategyError(f"parameter {i} is not a number: {value!r}")
        out[i] = float(value)
        if not math.isfinite(out[i]):
            raise StrategyError(f"parameter {i} is not finite: {value!r}")
    return out


# --- the sources behind a strategy ----------------------------------------------------


def _package_files(top: str) -> list[Path]:
    """Every source file of the importable package (or module) ``top``."""
    spec = importlib.util.find_spec(top)
    if spec is None:
        return []
    if spec.submodule_search_locations:
        roots = spec.submodule_search_locations
        return sorted(path for root in roots for path in Path(root).rglob("*.py"))
    return [Path(spec.origin)] if spec.origin else []


HOOKS = ("take_nb", "discard_nb", "knock_nb")


def hook_home(strategy: Strategy, attr: str) -> tuple[str, str]:
    """Where the engine imports hook ``attr`` from, as (module, name): the module that
    defines it (a plugin may seat a built-in's hook), else the strategy's own module.
    A hook that is no module-level name of either is refused."""
    hook = getattr(strategy, attr)
    function = getattr(hook, "py_func", hook)
    name = getattr(function, "__name__", None)
    homes = [m for m in (getattr(function, "__module__", None), strategy.module) if m]
    for module in homes:
        if name is not None and getattr(sys.modules.get(module), name, None) is hook:
            return module, name
    raise StrategyError(
        f"strategy {strategy.name!r}: {attr} must be a module-level function, of the "
        f"module that defines it or of {strategy.module} (the engine imports it by name)"
    )


def plugin_digests(strategies: Iterable[Strategy]) -> dict[str, str]:
    """A hash of every source file of each plugin's top-level package, by package.

    A plugin's hooks are compiled into the engine, and a helper module beside them can
    change what they do, so the whole package counts (the module alone when it has no
    package), and so do the packages its hooks come from. Built-in strategies are left
    out: ``kernels.source_digest`` covers them.
    """
    modules = {s.module for s in strategies}
    modules |= {hook_home(s, attr)[0] for s in strategies for attr in HOOKS}
    out = {}
    for top in sorted({m.split(".")[0] for m in modules} - set(HASHED_PACKAGES)):
        digest = hashlib.sha256()
        for path in _package_files(top):
            digest.update(path.name.encode())
            digest.update(path.read_bytes())
        out[top] = digest.hexdigest()[:16]
    return out


# --- the registry --------------------------------------------------------------------

_PLUGINS: dict[str, Strategy] = {}
_discovered = False


def _register(strategy: Strategy, source: str) -> Strategy:
    if strategy.name in BUILTINS and BUILTINS[strategy.name] is not strategy:
        raise StrategyError(
            f"strategy plugin {source} is named {strategy.name!r}, "
            "the name of a built-in strategy; rename it"
        )
    known = _PLUGINS.get(strategy.name)
    if known is not None and known != strategy:
        raise StrategyError(
            f"two strategy plugins are named {strategy.name!r}: "
            f"{known.module} and {strategy.module} ({source}); rename one"
        )
    if strategy.name not in BUILTINS:
        _PLUGINS[strategy.name] = strategy
    return strategy


def _strategy_of(obj: object, source: str) -> Strategy:
    if isinstance(obj, ModuleType):
        obj = getattr(obj, "STRATEGY", None)
        if obj is None:
            raise StrategyError(f"strategy plugin {source} has no STRATEGY attribute")
    if not isinstance(obj, Strategy):
        raise StrategyError(
            f"strategy plugin {source}: STRATEGY must be a strategies.Strategy, "
            f"got {type(obj).__name__}"
        )
    for attr in HOOKS:  # before any run is set up: the engine must be able to import them
        hook_home(obj, attr)
    return obj


def load_plugin(ref: str) -> Strategy:
    """Import a module path (``mypkg.mystrategy``) and register its ``STRATEGY``."""
    if not all(part.isidentifier() for part in ref.split(".")):
        raise StrategyError(
            f"unknown strategy {ref!r}: not a strategy name nor a module path (mypkg.mystrategy)"
        )
    try:
        module = importlib.import_module(ref)
    except ImportError as exc:
        raise StrategyError(f"cannot import strategy plugin {ref!r}: {exc}") from None
    except Exception as exc:  # a broken plugin module: say which one, in one line
        raise StrategyError(f"strategy plugin {ref!r} failed to load: {exc}") from None
    return _register(_strategy_of(module, repr(ref)), repr(ref))


def discover() -> list[Strategy]:
    """Load every entry point of group ``rummy_sim.strategies``; return their strategies."""
    global _discovered
    _discovered = True
    found = []
    for ep in entry_points(group=ENTRY_POINT_GROUP):
        source = f"entry point {ep.name!r} ({ep.value})"
        try:
            obj = ep.load()
        except Exception as exc:  # a broken third-party plugin: say which one
            raise StrategyError(f"strategy plugin {source} failed to load: {exc}") from None
        found.append(_register(_strategy_of(obj, source), source))
    return found


def registry() -> dict[str, Strategy]:
    """Built-in strategies, then the plugins loaded so far, by name."""
    return {**BUILTINS, **_PLUGINS}


def get_strategy(name: str) -> Strategy:
    """The strategy of this name (a plugin module path such as ``mypkg.mod`` is loaded).

    Plugins not yet discovered are looked for once (``discover``) before giving up.
    """
    known = registry()
    if name in known:
        return known[name]
    if "." in name:
        return load_plugin(name)
    if not _discovered:
        discover()
        known = registry()
        if name in known:
            return known[name]
    raise StrategyError(f"unknown strategy {name!r}; choose one of: {choose(known)}")


def _chart_params(chart: _chart_files.ChartFile) -> NamedTuple:
    """The parameters a chart file spells out (a bad value: it is not a chart file)."""
    try:
        return parse_seat(chart.spec)[1]
    except StrategyError as error:
        raise StrategyError(f"{chart.where} is not a chart file: {error}") from None


def parse_seat(spec: str, *, rules: Any = None) -> tuple[Strategy, NamedTuple]:
    """Read a seat: ``greedy`` or ``greedy:knock_at=7,min_gain=2``; a chart by name or
    file (``chart:gin,lookahead=0``, ``chart:file=PATH``) as the parameters it names.

    ``rules`` (a ``sim.rules.RuleSet``; None: not known here): a chart named by name or
    file whose header names another player count, scoring or knock limit is refused.

    Raises
    ------
    StrategyError
        For an unknown strategy (listing the known ones), an unknown parameter
        (listing the strategy's parameters), a parameter given twice, an item
        without ``=``, a bad value (naming the parameter), an unknown chart (listing
        the shipped ones), a chart file that is missing or is not one, or a chart
        made for other rules.
    """
    if not isinstance(spec, str) or not spec.strip():
        raise StrategyError("empty strategy spec; write e.g. greedy or greedy:knock_at=7")
    if _agent.is_agent_spec(spec):
        return _agent.agent_seat(spec)
    name, sep, rest = spec.strip().partition(":")
    strategy = get_strategy(name.strip())
    fields = strategy.params._fields
    values: dict[str, int | float | str] = {}
    base = strategy.defaults()
    items = _agent.split_outside_quotes(rest, ",") if sep and rest.strip() else []
    named = _chart_files.seat_reference(spec) if strategy is _chart.STRATEGY else None
    if named is not None:
        chart, shown = named
        if rules is not None:
            _chart_files.check_rules(chart, shown, rules)
        base, items = _chart_params(chart), items[1:]
    if items:
        for item in items:
            key, eq, text = item.partition("=")
            key = key.strip().replace("-", "_")
            if not eq or not key or not text.strip():
                raise StrategyError(
                    f"bad parameter {item.strip()!r} in {spec!r}: write key=value, "
                    f"e.g. {strategy.name}:{fields[0] if fields else 'key'}=1"
                )
            if key not in fields:
                raise StrategyError(
                    f"unknown parameter {key!r} for strategy {strategy.name}; "
                    f"its parameters: {choose(fields) or '(none)'}"
                )
            if key in values:
                raise StrategyError(f"parameter {key!r} is given twice in {spec!r}")
            values[key] = _parse_value(strategy, key, text, rules)
    return strategy, base._replace(**values)


def _path_open(group: str) -> bool:
    """Whether ``group`` (text between ``/``) ends inside an unquoted chart file path:
    its last item is ``file=PATH`` (``chart:file=PATH``) and PATH does not end in
    ``.chart`` yet (``chart:file=results/solve/ID/final.chart`` holds ``/``)."""
    last = _agent.split_outside_quotes(group, ",")[-1]
    key, eq, value = last.rpartition(":")[2].partition("=")
    value = value.strip()
    return (
        bool(eq)
        and key.strip() == _chart_files.FILE_KEY
        and value[:1] not in ("'", '"')
        and not value.endswith(_chart_files.SUFFIX)
    )


def _groups(text: str) -> list[str]:
    """``text`` split at ``/`` outside quotes, a chart file's path kept whole up to its
    ``.chart`` (:func:`_path_open`)."""
    groups: list[str] = []
    for group in _agent.split_outside_quotes(text, "/"):
        if groups and _path_open(groups[-1]):
            groups[-1] += "/" + group
        else:
            groups.append(group)
    return groups


def split_specs(text: str) -> list[str]:
    """Strategy specs written in one string, separated by ``/`` or ``,``.

    A comma also separates a strategy's parameters (``greedy:knock_at=7,min_gain=2``):
    an item holding ``=`` but no ``:`` before it is one more parameter of the spec
    before it, so ``simple,greedy:knock_at=5,min_gain=2`` is two specs (and
    ``mc:samples=50,rollout=greedy:knock_at=0`` one). A chart file's path reads on
    over ``/`` to its ``.chart``: ``chart:file=results/x/final.chart/simple`` is two.
    """
    specs: list[str] = []
    for group in _groups(text):
        pieces: list[str] = []
        for item in _agent.split_outside_quotes(group, ","):
            item = item.strip()
            if not item:
                raise StrategyError(f"an empty seat in {text!r}")
            if "=" in item and ":" not in item.partition("=")[0]:
                if not pieces:
                    raise StrategyError(f"parameter {item!r} comes before any strategy in {text!r}")
                pieces[-1] += "," + item
            else:
                pieces.append(item)
        specs += pieces
    return specs


def _seat_specs(text: str | Iterable[str], players: int) -> list[str]:
    """The line-up's specs as written: one (for every seat) or one per seat (see
    :func:`parse_lineup`)."""
    pieces = [text] if isinstance(text, str) else list(text)
    specs: list[str] = []
    for piece in pieces:
        if not isinstance(piece, str):
            raise StrategyError(f"a strategy spec must be text, got {piece!r}")
        specs += split_specs(piece)
    if not specs:
        raise StrategyError("no strategy given")
    if len(specs) != 1 and len(specs) != players:
        raise StrategyError(
            f"{len(specs)} seats given ({'/'.join(specs)}) for {players} players; "
            "give one spec for every seat or a single spec for all"
        )
    return specs


def parse_lineup(
    text: str | Iterable[str], players: int, *, rules: Any = None
) -> list[tuple[Strategy, NamedTuple]]:
    """One ``(strategy, params)`` per seat.

    ``text`` is one string with seats separated by ``/`` or ``,`` (``simple,greedy:knock_at=7``,
    ``greedy:knock_at=7,min_gain=2/simple``; see :func:`split_specs`) or a list of such
    strings. One spec fills every seat; otherwise there must be exactly ``players`` specs.
    ``rules``: the study's rules, that a chart seated by name or file must be made for
    (:func:`parse_seat`).
    """
    specs = _seat_specs(text, players)
    if len(specs) == 1:
        return [parse_seat(specs[0], rules=rules)] * players
    return [parse_seat(spec, rules=rules) for spec in specs]


def lineup_labels(text: str | Iterable[str], players: int) -> list[str]:
    """How each seat of a line-up is shown (:func:`seat_label`), the line-up read as
    :func:`parse_lineup` reads it."""
    specs = _seat_specs(text, players)
    if len(specs) == 1:
        return [seat_label(specs[0])] * players
    return [seat_label(spec) for spec in specs]


def seat_label(spec: str) -> str:
    """How a seat is shown wherever a table, report or record names it: its canonical
    spec (:func:`format_seat`), except a ``chart`` seat by name or file (its name with
    the overrides that change a value: ``chart:gin,lookahead=0``,
    ``chart:file=final.chart``) and a long ``chart`` spec spelt out
    (``chart#<8 hex of its parameters>``; ``strategies/chart_files.py``); a spec
    parameter whose value is a chart seat (``mc``'s ``rollout``) shows it so too.

    Only for showing: a run's identity and rows hold the spec.
    """
    strategy, params = parse_seat(spec)
    canonical = format_seat(strategy, params)
    if strategy is _chart.STRATEGY:
        named = _chart_files.seat_reference(spec)
        base = None if named is None else (named[1], _chart_params(named[0]))
        return _chart_files.chart_label(params, canonical, base)
    shown = []
    for name, value in zip(strategy.params._fields, params, strict=True):
        words = strategy.specs.get(name, ())
        if not isinstance(value, str) or not value or value in words:
            continue
        if parse_seat(value)[0] is _chart.STRATEGY:
            shown.append((name, seat_label(value)))
    if not shown:
        return canonical
    return format_seat(strategy, params._replace(**dict(shown)))


def format_seat(strategy: Strategy, params: NamedTuple) -> str:
    """The spec that ``parse_seat`` reads back: the name and every non-default value."""
    if isinstance(strategy, _agent.AgentStrategy):
        return strategy.format(params)
    changed = [
        f"{name}={_agent.quoted(value) if isinstance(value, str) else value}"
        for name, value, default in zip(
            strategy.params._fields, params, strategy.defaults(), strict=True
        )
        if value != default
    ]
    return strategy.name + (":" + ",".join(changed) if changed else "")


# The built-ins import Strategy from this module, so they come after its definition.
from strategies import advice as _advice  # noqa: E402
from strategies import agent as _agent  # noqa: E402
from strategies import chart as _chart  # noqa: E402
from strategies import chart_files as _chart_files  # noqa: E402
from strategies import defensive as _defensive  # noqa: E402
from strategies import greedy as _greedy  # noqa: E402
from strategies import mc as _mc  # noqa: E402
from strategies import random as _random  # noqa: E402
from strategies import rollout as _rollout  # noqa: E402
from strategies import schedule as _schedule  # noqa: E402
from strategies import simple as _simple  # noqa: E402

BUILTINS: dict[str, Strategy] = {
    s.name: s
    for s in (
        _random.STRATEGY,
        _greedy.STRATEGY,
        _simple.STRATEGY,
        _schedule.STRATEGY,
        _defensive.STRATEGY,
        _mc.STRATEGY,
        _advice.STRATEGY,
        _chart.STRATEGY,
        _rollout.STRATEGY,
    )
}
"""The built-in strategies, in a fixed order."""

__all__ = [
    "BUILTINS",
    "ENTRY_POINT_GROUP",
    "Strategy",
    "StrategyError",
    "discover",
    "format_seat",
    "get_strategy",
    "hook_home",
    "lineup_labels",
    "load_plugin",
    "make_params",
    "param_slots",
    "params_vector",
    "parse_lineup",
    "parse_seat",
    "registry",
    "seat_label",
]
