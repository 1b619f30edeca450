"""A command as a person sees it: run in a pseudo-terminal of a given width, its screen
read back as lines (what each line last showed, colours and cursor moves removed); or
many commands, one after another in one process."""

from __future__ import annotations

import fcntl
import json
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
    status, text = _in_terminal([sys.executable, "-m", "rummy", *args], columns, cwd, timeout)
    return status, screen_lines(text)


# One process runs the commands in turn, as ``rummy`` runs each (``sim.cli.app``, whose
# exit is a SystemExit), and after each writes a line that says which ended and how.
_SERIES = """
import json, os, sys
from sim.cli import app
for number, (args, cwd) in enumerate(json.loads(sys.argv[1])):
    os.chdir(cwd)
    try:
        app(args=args, prog_name="rummy")
        status = 0
    except SystemExit as end:
        status = end.code if isinstance(end.code, int) else int(end.code is not None)
    sys.stderr.flush()
    print(f"\\n@@ command {number} ended: {status} @@", flush=True)
"""
_ENDED = re.compile(r"@@ command (\d+) ended: (-?\d+) @@")


def run_commands_in_terminal(
    commands: list[tuple[list[str], Path]], columns: int = 80, timeout: float = 600.0
) -> list[tuple[int | None, list[str]]]:
    """Each ``rummy ARGS`` of ``commands`` (its arguments, the folder it runs in), one
    after another in one Python process in a pseudo-terminal ``columns`` wide: each
    one's exit status and the lines it drew. What ``run_in_terminal`` sees of each, at
    the start of one process (Python, numba, the compiled code's loading) instead of
    one each. A command the process never finished gets status None."""
    cases = json.dumps([[args, str(cwd)] for args, cwd in commands])
    _, text = _in_terminal([sys.executable, "-c", _SERIES, cases], columns, None, timeout)
    results: list[tuple[int | None, list[str]]] = []
    lines: list[str] = []
    for line in screen_lines(text):
        ended = _ENDED.fullmatch(line)
        if ended is None:
            lines.append(line)
            continue
        assert int(ended[1]) == len(results), f"command {ended[1]} ended out of turn"
        results.append((int(ended[2]), lines))
        lines = []
    if len(results) < len(commands):  # the process ended (or was killed) mid-command
        results.append((None, lines))
    return results + [(None, [])] * (len(commands) - len(results))


def _in_terminal(
    argv: list[str], columns: int, cwd: Path | None, timeout: float
) -> tuple[int, str]:
    """Run ``argv`` in a pseudo-terminal ``columns`` wide: its exit status and all it
    wrote there (stdout and stderr both)."""
    leader, follower = pty.openpty()
    fcntl.ioctl(follower, termios.TIOCSWINSZ, struct.pack("HHHH", 50, columns, 0, 0))
    env = {k: v for k, v in os.environ.items() if k not in ("COLUMNS", "LINES", "NO_COLOR")}
    env["TERM"] = "xterm-256color"
    proc = subprocess.Popen(
        argv, stdin=follower, stdout=follower, stderr=follower, cwd=cwd, env=env, close_fds=True
    )
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
    return status, b"".join(chunks).decode("utf-8", "replace")
