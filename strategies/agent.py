"""Agent seats: a strategy that is a Python object or another program, not compiled hooks.

In plain words: at an agent seat's decisions the compiled engine stops, hands the
seat's view (``kernels/view.py``: what a compiled hook's ``Obs`` holds, never another
seat's hidden cards) to Python, which asks the agent (``sim.agents.seats``: a Python
object's methods, or a JSON line to a program), and goes on with its answer. Every
study plays such seats through the same compiled loop as any other, so a hand's rules
keep one home.

Specs (``docs/AGENTS.md``): ``python:package.module:Class`` (a class with ``take``,
``discard`` and ``knock`` methods, made once per seat) and ``external:cmd=COMMAND``
(one process per seat, kept for the whole study; write COMMAND in quotes when it holds
``/`` or ``,``: ``external:cmd='python3 agents/mine.py'``), each with an optional
``timeout=SECONDS`` per decision (default 10).

The hooks call back into Python through numba's object mode: ``_ask`` packs the view,
``sim.agents.seats.answer`` returns the agent's answer as one integer (the take as
0/1; the discard's card with the knock decision above it). The discard hook keeps the
knock decision in the seat's scratch for the knock hook: one call into Python per
decision the engine asks of the program, not two. The take and discard hooks are
pieces (``kernels/link.py``): the engine of every strategy calls them through a slot,
so a line-up with an agent seat plays on that engine, compiled once for every line-up,
and not on an engine of its own. An agent that fails is answered for with moves the
engine refuses at once (taking the pile's card, then discarding nothing), so the engine
stops in the same hand with the deal, hand and turn it names, and the seat's record of
what went wrong completes the message.
"""

from __future__ import annotations

import functools
import hashlib
import importlib
import shlex
import shutil
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, NamedTuple

import numpy as np
from numba import njit, objmode

from kernels.link import piece
from kernels.obs import DISCARD_HOOK, SCRATCH_FREE, TAKE_HOOK
from kernels.view import pack
from strategies.base import Strategy, StrategyError

__all__ = [
    "AGENT",
    "KINDS",
    "SLOT",
    "AgentStrategy",
    "agent_seat",
    "is_agent_spec",
]

KINDS = ("python", "external")
ASK_TAKE = 0
ASK_DISCARD = 1
SLOT = 1  # the parameter word that holds the seat's live agent plus one (0: none bound)
KNOCK_SHIFT = 8  # a discard answer: card | knock decision << KNOCK_SHIFT; -1: failed


class Params(NamedTuple):
    timeout: float = 10.0  # seconds the agent may take for one decision


@functools.cache
def _registry() -> Any:
    return importlib.import_module("sim.agents.seats")  # on first use: no import cycle


def _answer(slot: int, what: int, view: Any) -> int:
    """The agent's answer (called in object mode)."""
    return int(_registry().answer(slot, what, view))


@njit(cache=True)
def _ask(what, obs, params, scratch):
    view = pack(obs, scratch)
    slot = np.int64(params[SLOT]) - 1
    with objmode(answer="int64"):
        answer = _answer(slot, what, view)
    return answer


@piece(TAKE_HOOK)
def take_nb(obs, params, scratch):
    return _ask(ASK_TAKE, obs, params, scratch) != 0


@piece(DISCARD_HOOK)
def discard_nb(obs, params, scratch):
    answer = _ask(ASK_DISCARD, obs, params, scratch)
    if answer < 0:
        return np.int64(-1)
    scratch[SCRATCH_FREE] = answer >> KNOCK_SHIFT
    return answer & ((np.int64(1) << KNOCK_SHIFT) - 1)


@njit(cache=True)
def knock_nb(obs, params, scratch, discard):
    return scratch[SCRATCH_FREE]


AGENT = Strategy(
    name="agent",
    description="A seat played by a Python object or another program (docs/AGENTS.md).",
    params=Params,
    take_nb=take_nb,
    discard_nb=discard_nb,
    knock_nb=knock_nb,
    module=__name__,
)
"""The hooks every agent seat shares: the engine's entry ``agent``."""


@dataclass(frozen=True)
class AgentStrategy(Strategy):
    """One agent seat's strategy: the shared hooks, and what plays (``kind``, ``target``).

    ``name`` is ``agent`` (the engine's entry); ``spec`` is what ``format_seat``
    writes and ``parse_seat`` reads back."""

    kind: str = "python"
    target: str = ""
    decides_slowly: bool = field(default=True, compare=False, hash=False)

    def __post_init__(self) -> None:  # the name is the engine's entry, not a spec
        if self.kind not in KINDS:
            raise StrategyError(f"agent kind {self.kind!r}; choose one of {', '.join(KINDS)}")

    def files_digest(self) -> str:
        """A digest of the command and of the files it names (its script, its jar): part
        of a run's identity, so an edited program never resumes another's run. (A
        Python agent's package counts as a plugin's does: ``plugin_digests``.)"""
        digest = hashlib.sha256(self.spec.encode())
        if self.kind == "external":
            for word in shlex.split(self.target):
                if Path(word).is_file():
                    digest.update(Path(word).read_bytes())
        return digest.hexdigest()[:16]

    def format(self, params: Any) -> str:
        """The seat's spec, its timeout too when it is not the default."""
        return self.spec if params == Params() else f"{self.spec},timeout={params.timeout:g}"

    @property
    def spec(self) -> str:
        if self.kind == "python":
            return f"python:{self.target}"
        return f"external:cmd={quoted(self.target)}"


def quoted(command: str) -> str:
    """A text value (an agent's command, a spec parameter) as a spec writes it: quoted
    when it holds a separator or a quote."""
    if command and not any(ch in command for ch in "/,'\"") and command.strip() == command:
        return command
    quote = "'" if "'" not in command else '"'
    if quote in command:
        raise StrategyError(f"command {command!r} holds both kinds of quotes; drop one kind")
    return f"{quote}{command}{quote}"


def unquoted(text: str) -> str:
    """A text value as ``quoted`` wrote it, its quotes dropped."""
    text = text.strip()
    if len(text) >= 2 and text[0] == text[-1] and text[0] in "'\"":
        return text[1:-1]
    return text


def is_agent_spec(spec: str) -> bool:
    """Whether a seat spec names an agent (``python:...`` or ``external:...``)."""
    return spec.strip().partition(":")[0].strip() in KINDS


def agent_seat(spec: str) -> tuple[AgentStrategy, Params]:
    """Read an agent seat spec (see the module docstring); the target is checked here,
    before anything plays: a class that cannot be imported, or a command that names
    no program, is one line."""
    kind, _, rest = spec.strip().partition(":")
    kind = kind.strip()
    items = split_outside_quotes(rest, ",") if rest.strip() else []
    if kind == "python":
        if not items or "=" in items[0].split(":")[0]:
            raise StrategyError(f"{spec!r}: write python:package.module:Class")
        target, options = items[0].strip(), items[1:]
        python_class(target)
    else:
        key, eq, value = items[0].partition("=") if items else ("", "", "")
        if key.strip() != "cmd" or not eq or not unquoted(value):
            raise StrategyError(f"{spec!r}: write external:cmd=COMMAND (quoted if it holds / or ,)")
        target, options = unquoted(value), items[1:]
        _program(target)
    values: dict[str, float] = {}
    for item in options:
        key, eq, value = item.partition("=")
        if key.strip() != "timeout" or not eq:
            raise StrategyError(
                f"unknown agent option {item.strip()!r} in {spec!r}; its options: timeout"
            )
        try:
            seconds = float(value)
        except ValueError:
            seconds = float("nan")
        if not 0 < seconds <= 3600:
            raise StrategyError(
                f"timeout={value.strip()!r} in {spec!r}: give seconds, above 0, at most 3600"
            )
        values["timeout"] = seconds
    strategy = AgentStrategy(
        name=AGENT.name, description=AGENT.description, params=Params, take_nb=take_nb,
        discard_nb=discard_nb, knock_nb=knock_nb, module=_module_of(kind, target), kind=kind,
        target=target,
    )  # fmt: skip
    return strategy, Params(**values)


def split_outside_quotes(text: str, separator: str) -> list[str]:
    """``text`` split at ``separator`` where it is not inside quotes (a command in a
    line-up: ``external:cmd='python3 agents/mine.py'/greedy``)."""
    parts, current, quote = [], "", ""
    for ch in text:
        if quote:
            quote = "" if ch == quote else quote
        elif ch in "'\"":
            quote = ch
        elif ch == separator:
            parts.append(current)
            current = ""
            continue
        current += ch
    if quote:
        raise StrategyError(f"an unclosed quote in {text!r}")
    return [*parts, current]


def _module_of(kind: str, target: str) -> str:
    if kind == "python" and target.partition(":")[0] != "__main__":  # its package's digest
        return target.partition(":")[0]
    return __name__


_OBJECTS: dict[str, Any] = {}  # the agent objects a notebook seated, by target


def seat_object(agent: Any) -> str:
    """The seat spec of an agent object (the notebook API seats objects): its class's
    ``python:module:Class``, then ``@N`` for the N-th object of that class seated in
    this process; the seat plays this very object."""
    cls = type(agent)
    missing = [m for m in ("take", "discard", "knock") if not callable(getattr(agent, m, None))]
    if missing:
        raise StrategyError(
            f"{cls.__qualname__} object: an agent needs take, discard and knock methods; "
            f"it has no {', '.join(missing)}"
        )
    base = f"{cls.__module__}:{cls.__qualname__}"
    for target, known in _OBJECTS.items():
        if known is agent:
            return f"python:{target}"
    target = f"{base}@{sum(t.partition('@')[0] == base for t in _OBJECTS) + 1}"
    _OBJECTS[target] = agent
    return f"python:{target}"


def seated_object(target: str) -> Any:
    """The object a notebook seated under ``target``, or None."""
    return _OBJECTS.get(target)


def python_class(target: str) -> type:
    if target in _OBJECTS:
        return type(_OBJECTS[target])
    module_name, colon, class_name = target.partition(":")
    if not colon or not all(p.isidentifier() for p in module_name.split(".")) or not class_name:
        raise StrategyError(f"python:{target}: write python:package.module:Class")
    try:
        module = importlib.import_module(module_name)
    except ImportError as exc:
        raise StrategyError(f"python:{target}: cannot import {module_name}: {exc}") from None
    except Exception as exc:  # a broken agent module: say which, in one line
        raise StrategyError(f"python:{target}: {module_name} failed to load: {exc}") from None
    cls = getattr(module, class_name, None)
    if not isinstance(cls, type):
        raise StrategyError(f"python:{target}: {module_name} has no class {class_name}")
    missing = [m for m in ("take", "discard", "knock") if not callable(getattr(cls, m, None))]
    if missing:
        raise StrategyError(f"python:{target}: the class has no {', '.join(missing)} method")
    return cls


def _program(command: str) -> None:
    try:
        argv = shlex.split(command)
    except ValueError as exc:
        raise StrategyError(f"external:cmd={command!r}: {exc}") from None
    if not argv or shutil.which(argv[0]) is None:
        program = argv[0] if argv else ""
        raise StrategyError(f"external:cmd={command!r}: no program {program!r} to run")
