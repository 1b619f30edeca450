"""Ours, anywhere: one compiled strategy served over the JSON-lines protocol (``rummy agent``).

A table anywhere (another engine, the EAAI challenge's Java framework through
``contrib/eaai/RummySimPlayer.java``, a script) starts ``rummy agent SPEC --rules R``
and talks to it on its stdin and stdout, one JSON object per line (docs/AGENTS.md
"Protocol"): it greets it (``hello``), asks each decision with the seat's view
(``take``; ``discard``, answered with the card and the knock decision on it), may ask
for a hand's least-deadwood ``melds``, and says ``bye``. Each decision is one call of a
:class:`~sim.agents.player.Player`, so the answers are those the strategy makes in our
engine from the same view, and the Player keeps the seat's memory as the engine does.

The server answers every request but ``bye`` with exactly one line and flushes it. A
request it cannot answer (not JSON, an unknown type or field, a view no deal can
produce, a hello of other rules) gets ``{"error": "one line"}`` and the talk goes on;
a line longer than :data:`MAX_LINE` is refused without being read into memory whole.
It ends at ``bye`` or at the end of its input. The work per request is a JSON parse,
the view's checks and the kernel call: ``benchmarks/bench_agent_serve.py`` times it.
"""

from __future__ import annotations

import io
import os
import stat
from collections.abc import Callable, Iterator
from typing import IO, Any

from sim import __version__
from sim.agents.player import Player
from sim.agents.protocol import (
    PROTOCOL,
    REQUESTS,
    LineReader,
    ProtocolError,
    decode,
    encode,
    shown,
)
from sim.agents.view import View
from sim.engine import StrategyDecisionError
from sim.rules import PARAMETERS, RuleSet, get_rules

__all__ = ["MAX_LINE", "Server", "serve"]

MAX_LINE = 1 << 20  # bytes: a view is well under 2 KiB
# The fields each request may hold ("type" included): a misspelt one is refused, never
# ignored (a table that sent "veiw" would otherwise wait for an answer to nothing).
FIELDS = {
    "hello": ("type", "protocol", "seat", "players", "rules"),
    "take": ("type", "view"),
    "discard": ("type", "view"),
    "melds": ("type", "cards"),
    "bye": ("type",),
}


class Server:
    """The answers of one :class:`Player` to the protocol's requests."""

    def __init__(self, player: Player) -> None:
        self.player = player
        self._answer: dict[str, Callable[[dict[str, Any]], dict[str, Any]]] = {
            "hello": self.hello,
            "take": self.take,
            "discard": self.discard,
            "melds": self.melds,
        }

    def answer(self, line: bytes | str) -> dict[str, Any] | None:
        """The answer to one request line (None: ``bye``, the talk ends)."""
        try:
            message = decode(line)
            kind = message.get("type")
            if not isinstance(kind, str) or kind not in FIELDS:
                raise ProtocolError(
                    f"unknown request type {kind!r}; the requests: {', '.join(REQUESTS)}"
                )
            unknown = sorted(set(message) - set(FIELDS[kind]))
            if unknown:
                raise ProtocolError(
                    f"unknown field {unknown[0]!r} in a {kind} request; its fields: "
                    f"{', '.join(FIELDS[kind])}"
                )
            if kind == "bye":
                return None
            return self._answer[kind](message)
        except (ValueError, StrategyDecisionError) as error:
            text = str(error).strip()
            return {"error": text.splitlines()[0] if text else type(error).__name__}

    # --- the requests -------------------------------------------------------------------

    def hello(self, message: dict[str, Any]) -> dict[str, Any]:
        """The agent's name and version; the table's protocol, players and rules must
        be this agent's, and its seat becomes the only one it answers for."""
        mine = self.player.rules
        protocol = message.get("protocol", PROTOCOL)
        if type(protocol) is not int or protocol != PROTOCOL:
            raise ProtocolError(
                f"hello: protocol {protocol!r}; this agent speaks protocol {PROTOCOL}"
            )
        players = message.get("players", mine.players)
        if type(players) is not int or players != mine.players:
            raise ProtocolError(
                f"hello: players {players!r}; this agent plays the rules {mine.name!r} "
                f"with players={mine.players}"
            )
        if "rules" in message:
            _same_rules(_rules_of(message["rules"]), mine)
        if "seat" in message:
            seat = message["seat"]
            if type(seat) is not int or not 0 <= seat < mine.players:
                raise ProtocolError(f"hello: seat must be 0..{mine.players - 1}, got {seat!r}")
            self.player.seat = seat
        return {"type": "hello", "name": self.player.name, "version": __version__}

    def take(self, message: dict[str, Any]) -> dict[str, Any]:
        return {"take": self.player.take(self._view(message))}

    def discard(self, message: dict[str, Any]) -> dict[str, Any]:
        """The card and the knock decision on it: what the engine asks, in its order."""
        view = self._view(message)
        card = self.player.discard(view)
        return {"discard": card, "knock": self.player.knock(view, card)}

    def melds(self, message: dict[str, Any]) -> dict[str, Any]:
        cards = message.get("cards")
        if not isinstance(cards, list) or any(type(c) is not int for c in cards):
            raise ProtocolError(f"melds: cards must be a list of card indices, got {cards!r}")
        best = self.player.melds(cards)
        return {"melds": best.melds, "deadwood": best.unmatched, "points": best.deadwood}

    def _view(self, message: dict[str, Any]) -> View:
        if "view" not in message:
            raise ProtocolError(f"a {message['type']} request needs its view")
        discard_taken_card = self.player.rules.discard_taken_card
        return View.from_json(message["view"], discard_taken_card=discard_taken_card)


def _rules_of(value: Any) -> RuleSet:
    """A hello's rules: a preset name or ``RuleSet.to_dict()``'s object."""
    if not isinstance(value, (str, dict)):
        raise ProtocolError(
            f"hello: rules must be a preset name or a rule set object, got {value!r}"
        )
    try:
        return get_rules(value) if isinstance(value, str) else RuleSet.from_dict(value)
    except ValueError as error:  # RuleError: names the parameter and what it allows
        raise ProtocolError(f"hello: rules: {error}") from None
    except TypeError:  # a value of a type no parameter takes
        raise ProtocolError(f"hello: rules: not a rule set: {shown(str(value))}") from None


def _same_rules(theirs: RuleSet, mine: RuleSet) -> None:
    """Refuse a table whose rules differ from the agent's (the name aside), naming the
    first parameter that differs."""
    a, b = theirs.to_dict(), mine.to_dict()
    for name in PARAMETERS:
        if name != "name" and a[name] != b[name]:
            raise ProtocolError(
                f"hello: the table's rules have {name}={a[name]!r}; this agent plays "
                f"{mine.name!r} with {name}={b[name]!r} (start it with those rules)"
            )


def serve(player: Player, stdin: IO[bytes], stdout: IO[bytes]) -> None:
    """Answer requests from ``stdin`` on ``stdout`` until ``bye`` or the end of input."""
    server = Server(player)
    for line in _lines(stdin):
        if isinstance(line, ProtocolError):
            answer: dict[str, Any] | None = {"error": str(line)}
        else:
            answer = server.answer(line)
        if answer is None:
            return
        stdout.write(encode(answer))
        stdout.flush()


def _is_pipe(stream: IO[bytes]) -> bool:
    """Whether ``stream`` reads a pipe or a socket: a reader polls only those (a
    terminal's file is shared with the shell, which must not find it non-blocking)."""
    try:
        mode = os.fstat(stream.fileno()).st_mode
    except (OSError, ValueError, io.UnsupportedOperation):  # no file descriptor
        return False
    return stat.S_ISFIFO(mode) or stat.S_ISSOCK(mode)


def _lines(stdin: IO[bytes]) -> Iterator[bytes | ProtocolError]:
    """The request lines (an overlong one as the error that answers it): from a pipe
    by ``LineReader`` (polling first: a table waits on every answer), from any other
    stream line by line."""
    reader = LineReader(stdin) if _is_pipe(stdin) else None
    while True:
        if reader is not None:
            try:
                line = reader.line(longest=MAX_LINE)
            except ProtocolError as error:
                yield error
                continue
            if line is None:
                return
            yield line
            continue
        line = stdin.readline(MAX_LINE + 1)
        if not line:
            return
        if len(line) > MAX_LINE:
            start = shown(line, 40)
            while line and not line.endswith(b"\n"):  # the rest of the line, unread
                line = stdin.readline(MAX_LINE)
            yield ProtocolError(f"a line longer than {MAX_LINE} bytes: {start}")
            continue
        yield line
