"""Live agent seats: the Python objects and programs that play at a table's seats.

``strategies/agent.py`` seats an agent; this module keeps it alive while a study plays
(docs/AGENTS.md). Each agent seat of a line-up is bound, before the first hand, to a
live :class:`Seat` (``bind``: an object made, or a program started and greeted with
``hello``), whose number the engine carries in the seat's parameter row; the compiled
hooks call :func:`answer` with that number and the seat's view. A seat is kept for the
process's life, one per (agent, seat, rules), so a study's chunks all talk to the same
object or process; the programs are told ``bye`` when the process ends.

An agent that answers an illegal move, garbage or nothing within its time limit, or
whose program dies, fails: its program is stopped, :func:`answer` answers for it with
moves the engine refuses at once, and :func:`failure` gives the engine's error message
what the agent did (``sim.engine``).
"""

from __future__ import annotations

import atexit
import json
import shlex
import subprocess
import tempfile
import threading
import time
from collections.abc import Iterable
from typing import IO, Any

import numpy as np
import numpy.typing as npt

from sim.agents.protocol import (
    PROTOCOL,
    LineReader,
    ProtocolError,
    decode,
    encode,
    knock_code,
    shown,
)
from sim.agents.view import View
from sim.rules import RuleSet
from strategies import StrategyError
from strategies.agent import (
    ASK_DISCARD,
    ASK_TAKE,
    KNOCK_SHIFT,
    SLOT,
    AgentStrategy,
    Params,
    python_class,
    seated_object,
)

__all__ = ["Seat", "answer", "bind", "close_all", "failure", "identities", "seated"]

DECISIONS = {ASK_TAKE: "take", ASK_DISCARD: "discard"}
# Seconds a program has to answer ``hello`` (or its timeout, if longer): its start may
# compile (``rummy agent`` on a cold numba cache compiles its strategy first).
GREETING = 120.0


class AgentFailed(Exception):
    """What an agent did wrong at one decision (the message quotes what it said)."""


class AgentSilent(AgentFailed):
    """The agent answered nothing within its limit."""


class Seat:
    """One live agent at one seat: ``take(view)`` and ``discard(view)`` (the card and
    the knock decision), its ``identity`` (name and version), ``close()``."""

    def __init__(self, strategy: AgentStrategy, seat: int, timeout: float) -> None:
        self.spec = strategy.spec
        self.seat = seat
        self.timeout = timeout
        self.failure: str | None = None
        self.lock = threading.Lock()
        self.identity: dict[str, str] = {}

    def take(self, view: View) -> Any:
        raise NotImplementedError

    def discard(self, view: View) -> tuple[Any, Any]:
        raise NotImplementedError

    def close(self) -> None:
        """End the talk politely (the program is told ``bye``)."""

    def stop(self) -> None:
        """End it now (after a failure)."""
        self.close()


class PythonSeat(Seat):
    """A Python object with ``take``, ``discard`` and ``knock`` methods (and, if it
    wishes, ``hello(rules, seat)``, ``name`` and ``version``)."""

    def __init__(self, strategy: AgentStrategy, seat: int, timeout: float, rules: RuleSet) -> None:
        super().__init__(strategy, seat, timeout)
        cls = python_class(strategy.target)
        try:
            self.agent = seated_object(strategy.target) or cls()
            if callable(getattr(self.agent, "hello", None)):
                self.agent.hello(rules=rules, seat=seat)
        except Exception as exc:
            raise StrategyError(f"{self.spec}: the agent failed to start: {exc}") from None
        self.identity = {
            "name": str(getattr(self.agent, "name", f"{cls.__module__}.{cls.__qualname__}")),
            "version": str(getattr(self.agent, "version", "")),
        }

    def take(self, view: View) -> Any:
        return self.agent.take(view)

    def discard(self, view: View) -> tuple[Any, Any]:
        card = self.agent.discard(view)
        return card, self.agent.knock(view, card)


class ExternalSeat(Seat):
    """A program speaking the JSON-lines protocol on its stdin and stdout; what it
    writes on stderr goes to a file whose last line a failure quotes."""

    def __init__(self, strategy: AgentStrategy, seat: int, timeout: float, rules: RuleSet) -> None:
        super().__init__(strategy, seat, timeout)
        self.stderr: IO[bytes] = tempfile.TemporaryFile()
        try:
            self.process = subprocess.Popen(
                shlex.split(strategy.target), stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                stderr=self.stderr, bufsize=0,
            )  # fmt: skip
        except OSError as exc:
            self.stderr.close()
            raise StrategyError(f"{self.spec}: cannot start the program: {exc}") from None
        assert self.process.stdin is not None and self.process.stdout is not None
        self.stdin, self.stdout = self.process.stdin, self.process.stdout
        self.reader = LineReader(self.stdout)
        hello = {"type": "hello", "protocol": PROTOCOL, "seat": seat, "players": rules.players}
        try:
            reply = self._ask({**hello, "rules": rules.to_dict()}, max(timeout, GREETING))
        except AgentFailed as exc:
            self.stop()
            said = str(exc)
            if isinstance(exc, AgentSilent):  # perhaps still compiling
                said += " (a start that compiles: `rummy warm` first, or a longer timeout=SECONDS)"
            raise StrategyError(f"{self.spec}: no greeting: {said}") from None
        name = reply.get("name")
        if not isinstance(name, str) or not name:
            self.stop()
            raise StrategyError(f"{self.spec}: its hello answer names no agent: {reply}")
        self.identity = {"name": name, "version": str(reply.get("version", ""))}

    def _ask(self, message: dict[str, Any] | bytes, limit: float | None = None) -> dict[str, Any]:
        try:
            self.stdin.write(message if isinstance(message, bytes) else encode(message))
        except OSError:
            raise AgentFailed(f"its program has ended{self._last_words()}") from None
        line = self._line(limit or self.timeout)
        try:
            reply = decode(line)
        except ProtocolError as exc:
            raise AgentFailed(str(exc)) from None
        if "error" in reply:
            raise AgentFailed(f"it answered an error: {shown(str(reply['error']))}")
        return reply

    def _line(self, limit: float) -> bytes:
        try:
            line = self.reader.line(limit)
        except TimeoutError:
            raise AgentSilent(f"no answer within {limit:g} s") from None
        except ProtocolError as exc:
            raise AgentFailed(str(exc)) from None
        if line is None:
            raise AgentFailed(f"its program has ended{self._last_words()}")
        return line

    def _last_words(self) -> str:
        try:
            code: int | None = self.process.wait(timeout=1)  # it closed its output: ending
        except subprocess.TimeoutExpired:
            code = None
        self.stderr.seek(0)
        lines = self.stderr.read().decode(errors="replace").strip().splitlines()
        said = f" (exit status {code})" if code is not None else ""
        return said + (f"; its last words: {shown(lines[-1])}" if lines else "")

    def take(self, view: View) -> Any:
        reply = self._ask(_request("take", view))
        if "take" not in reply:
            raise AgentFailed(f'it answered {shown(json.dumps(reply))}, not {{"take": ...}}')
        return reply["take"]

    def discard(self, view: View) -> tuple[Any, Any]:
        reply = self._ask(_request("discard", view))
        if "discard" not in reply or "knock" not in reply:
            said = shown(json.dumps(reply))
            raise AgentFailed(f'it answered {said}, not {{"discard": CARD, "knock": ...}}')
        return reply["discard"], reply["knock"]

    def close(self) -> None:
        if self.process.poll() is None:
            try:
                self.stdin.write(encode({"type": "bye"}))
                self.stdin.close()
                self.process.wait(timeout=2)
            except (OSError, subprocess.TimeoutExpired):
                pass
        self.stop()

    def stop(self) -> None:
        if self.process.poll() is None:
            self.process.kill()
            self.process.wait()
        self.reader.close()
        for stream in (self.stdin, self.stdout, self.stderr):
            try:
                stream.close()
            except OSError:
                pass


def _request(kind: str, view: View) -> bytes:
    """A decision's request line (``encode`` of the same message, built faster)."""
    return f'{{"type":"{kind}","view":{view.json_text()}}}\n'.encode()


# --- the seats alive in this process ----------------------------------------------------

_live: list[Seat] = []  # by slot: the number in the seat's parameter row
_slots: dict[tuple[str, int, str], int] = {}  # (spec, seat, rules) -> its live slot
_registry_lock = threading.Lock()


def _open(strategy: AgentStrategy, params: Params, seat: int, rules: RuleSet) -> int:
    key = (f"{strategy.spec},timeout={params.timeout}", seat, json.dumps(rules.to_dict()))
    with _registry_lock:
        slot = _slots.get(key)
        if slot is not None and _live[slot].failure is None:
            return slot
        kind = PythonSeat if strategy.kind == "python" else ExternalSeat
        _live.append(kind(strategy, seat, params.timeout, rules))
        _slots[key] = len(_live) - 1
        return len(_live) - 1


def bind(seats: Iterable[tuple[Any, Any]], params: npt.NDArray[np.float64], rules: RuleSet) -> None:
    """Give every agent seat of a line-up its live agent (made or started now, or kept
    from earlier in this process): its slot goes to the seat's parameter row."""
    for i, (strategy, values) in enumerate(seats):
        if isinstance(strategy, AgentStrategy):
            params[i, SLOT] = _open(strategy, values, i, rules) + 1


def seated(seats: Iterable[tuple[Any, Any]]) -> bool:
    """Whether a line-up seats an agent."""
    return any(isinstance(strategy, AgentStrategy) for strategy, _ in seats)


def identities(seats: Iterable[tuple[Any, Any]], rules: RuleSet) -> list[dict[str, Any]]:
    """Who plays each agent seat (for a run's manifest): the seat, its spec and what the
    agent says it is (name, version); the agents are bound (started) here."""
    out = []
    for i, (strategy, values) in enumerate(seats):
        if isinstance(strategy, AgentStrategy):
            live = _live[_open(strategy, values, i, rules)]
            out.append({"seat": i, "spec": strategy.spec, **live.identity})
    return out


def answer(slot: int, what: int, vector: npt.NDArray[np.int64]) -> int:
    """The agent's answer to one decision, as the compiled hooks take it (called from
    object mode: never raises). A failed agent gets answers the engine refuses."""
    refused = 1 if what == ASK_TAKE else -1  # take the pile's card, then discard nothing
    if not 0 <= slot < len(_live):
        return refused  # an agent seat no line-up bound: sim.engine names the cause
    seat = _live[slot]
    with seat.lock:
        if seat.failure is not None:
            return refused
        view = View(vector)
        start = time.perf_counter()
        try:
            if what == ASK_TAKE:
                code = 1 if _take(seat.take(view)) else 0
            else:
                code = _discard(view, *seat.discard(view))
            spent = time.perf_counter() - start
            if spent > seat.timeout:
                raise AgentFailed(f"it took {spent:.3g} s, more than its {seat.timeout:g} s")
            return code
        except Exception as exc:  # whatever went wrong, the engine stops in this hand
            said = str(exc) if isinstance(exc, AgentFailed) else f"{type(exc).__name__}: {exc}"
            seat.failure = f"{DECISIONS[what]} decision: {said}"
            seat.stop()
            return refused


def _take(taken: Any) -> bool:
    if taken is not True and taken is not False and not isinstance(taken, np.bool_):
        raise AgentFailed(f"take must be true or false, it answered {taken!r}")
    return bool(taken)


def _discard(view: View, card: Any, knock: Any) -> int:
    if isinstance(card, bool) or not isinstance(card, (int, np.integer)) or not 0 <= card < 54:
        raise AgentFailed(f"discard must be a card 0..53, it answered {card!r}")
    if not view.hand >> int(card) & 1:
        raise AgentFailed(f"it discarded card {card}, which it does not hold")
    if view.forbidden == card:
        raise AgentFailed(f"it discarded card {card}, the card it just took from the pile")
    try:
        code = knock_code(knock)
    except ProtocolError as exc:
        raise AgentFailed(str(exc)) from None
    return int(card) | code << KNOCK_SHIFT


def failure(params: npt.NDArray[np.float64], seat: int) -> str | None:
    """What the agent at ``seat`` of a line-up (its parameter rows) did wrong, if it is
    an agent seat that failed or was never bound."""
    slot = int(params[seat, SLOT]) - 1
    if not 0 <= slot < len(_live):
        return "this command does not seat agents (docs/AGENTS.md says which do)"
    return _live[slot].failure


def close_all() -> None:
    """Say ``bye`` to every program still playing (at exit)."""
    with _registry_lock:
        for seat in _live:
            if seat.failure is None:
                seat.failure = "closed"
                seat.close()
        _slots.clear()


atexit.register(close_all)
