"""A command as a person sees it: run in a pseudo-terminal of a given width, its screen
read back as lines (what each line last showed, colours and cursor moves removed)."""

from __future__ import annotations

import fcntl
import os
import pty
import re
import select
import struct
import subprocess
import sys
import termios
import time
from pathlib import Path

MOVE = re.compile(r"\x1b\[[0-9;?]*[ABGHJK]")  # cursor moves and erasures
ESCAPE = re.compile(r"\x1b\[[0-9;?]*[A-Za-z]|\x1b\][^\x07]*\x07")


def screen_lines(text: str) -> list[str]:
    """Every line drawn: a carriage return, a cursor move or an erasure starts a new one
    (a progress bar redraws its line), so a bar's every state is a line of its own."""
    parts = re.split(r"\r\n|\n|\r", ESCAPE.sub("", MOVE.sub("\r", text)))
    return [p.rstrip() for p in parts if p.strip()]


def run_in_terminal(
    args: list[str], columns: int = 80, cwd: Path | None = None, timeout: float = 300.0
) -> tuple[int, list[str]]:
    """``python -m rummy ARGS`` in a pseudo-terminal ``columns`` wide: its exit status
    and the lines it drew (stdout and stderr both go to the terminal)."""
    leader, follower = pty.openpty()
    fcntl.ioctl(follower, termios.TIOCSWINSZ, struct.pack("HHHH", 50, columns, 0, 0))
    env = {k: v for k, v in os.environ.items() if k not in ("COLUMNS", "LINES", "NO_COLOR")}
    env["TERM"] = "xterm-256color"
    proc = subprocess.Popen(
        [sys.executable, "-m", "rummy", *args],
        stdin=follower, stdout=follower, stderr=follower, cwd=cwd, env=env, close_fds=True,
    )  # fmt: skip
    os.close(follower)
    chunks = []
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        ready, _, _ = select.select([leader], [], [], 0.2)
        if ready:
            try:
                data = os.read(leader, 65536)
            except OSError:  # the terminal closed: the command ended
                break
            if not data:
                break
            chunks.append(data)
        elif proc.poll() is not None:
            break
    else:
        proc.kill()
    os.close(leader)
    status = proc.wait(timeout=10)
    return status, screen_lines(b"".join(chunks).decode("utf-8", "replace"))
