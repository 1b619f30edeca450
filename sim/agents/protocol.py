"""The JSON-lines protocol between a table and an agent (docs/AGENTS.md "Protocol").

One JSON object per line, UTF-8, in both directions. The table asks (``hello``,
``take``, ``discard``; ``melds`` only of ``rummy agent``; ``bye`` ends the talk) and
the agent answers every request but ``bye`` with exactly one line. This module holds
the words both sides use, so the table's side (``sim.agents.seats``) and the
agent's side (``sim.agents.serve``) cannot drift apart.
"""

from __future__ import annotations

import json
import os
import selectors
import time
from typing import IO, Any

from kernels.obs import BIG_GIN, CONTINUE, KNOCK

__all__ = [
    "KNOCK_WORDS",
    "LineReader",
    "PROTOCOL",
    "REQUESTS",
    "ProtocolError",
    "decode",
    "encode",
    "knock_code",
]

PROTOCOL = 1
REQUESTS = ("hello", "take", "discard", "melds", "bye")
KNOCK_WORDS = {CONTINUE: "continue", KNOCK: "knock", BIG_GIN: "big_gin"}
_KNOCK_CODES = {word: code for code, word in KNOCK_WORDS.items()}


class ProtocolError(ValueError):
    """A line that is not what the protocol allows (the message says what was)."""


def encode(message: dict[str, Any]) -> bytes:
    """One line: compact JSON and a newline."""
    return (json.dumps(message, separators=(",", ":")) + "\n").encode()


def shown(line: bytes | str, width: int = 80) -> str:
    """A line as an error message quotes it: decoded, stripped, cut at ``width``."""
    text = line.decode(errors="replace") if isinstance(line, bytes) else line
    text = text.strip()
    return repr(text if len(text) <= width else text[: width - 3] + "...")


def decode(line: bytes | str) -> dict[str, Any]:
    """The JSON object on one line."""
    try:
        message = json.loads(line)
    except (ValueError, UnicodeDecodeError):
        raise ProtocolError(f"not a JSON line: {shown(line)}") from None
    if not isinstance(message, dict):
        raise ProtocolError(f"not a JSON object: {shown(line)}")
    return message


SPIN = 0.0002  # seconds a reader polls for the next line before it sleeps


class LineReader:
    """Lines from a pipe, each waited for by polling for :data:`SPIN` seconds first,
    then asleep. Both sides of a talk answer in tens of microseconds; a process woken
    from sleep by one on another core waits about 35 us more (a JSON round trip between
    two processes, measured here: 48 us asleep, 13 polling), and a hand is a few dozen
    round trips."""

    def __init__(self, stream: IO[bytes]) -> None:
        self.fd = stream.fileno()
        os.set_blocking(self.fd, False)
        self.selector = selectors.DefaultSelector()
        self.selector.register(self.fd, selectors.EVENT_READ)
        self.buffer = b""

    def line(self, timeout: float | None = None, longest: int = 1 << 20) -> bytes | None:
        """The next line without its newline; None at the end of input (what is left
        without a newline is dropped). ``TimeoutError`` past ``timeout`` seconds;
        ``ProtocolError`` for a line longer than ``longest`` bytes (skipped)."""
        deadline = None if timeout is None else time.monotonic() + timeout
        spin_until = time.perf_counter() + SPIN
        while b"\n" not in self.buffer:
            if len(self.buffer) > longest:
                start = shown(self.buffer, 40)
                self._skip_line()
                raise ProtocolError(f"a line longer than {longest} bytes: {start}")
            try:
                chunk = os.read(self.fd, 65536)
            except BlockingIOError:
                if time.perf_counter() < spin_until:
                    continue
                left = None if deadline is None else deadline - time.monotonic()
                if (left is not None and left <= 0) or not self.selector.select(left):
                    raise TimeoutError from None
                continue
            if not chunk:
                return None
            self.buffer += chunk
        line, _, self.buffer = self.buffer.partition(b"\n")
        return line

    def _skip_line(self) -> None:
        """Drop the rest of an overlong line: read, not kept."""
        while b"\n" not in self.buffer:
            self.buffer = b""
            self.selector.select()
            try:
                chunk = os.read(self.fd, 65536)
            except BlockingIOError:
                continue
            if not chunk:
                return
            self.buffer = chunk
        self.buffer = self.buffer.partition(b"\n")[2]

    def close(self) -> None:
        self.selector.close()


def knock_code(answer: Any) -> int:
    """The engine's knock code for an answer: ``"continue"``, ``"knock"``,
    ``"big_gin"``, or a bool (True: knock)."""
    if isinstance(answer, bool):
        return KNOCK if answer else CONTINUE
    if isinstance(answer, str) and answer in _KNOCK_CODES:
        return _KNOCK_CODES[answer]
    raise ProtocolError(
        f"knock must be one of {', '.join(map(repr, _KNOCK_CODES))} or true/false, got {answer!r}"
    )
