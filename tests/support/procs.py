"""Processes as the tests see them (Linux ``/proc``): who descends from whom, who lives."""

from __future__ import annotations

import sys
import time
from pathlib import Path

import pytest

needs_proc = pytest.mark.skipif(
    not sys.platform.startswith("linux"), reason="reads the process table from /proc"
)


def _parent_of(pid: int) -> int | None:
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return None
    return int(stat.rsplit(") ", 1)[1].split()[1])  # the field after the state


def descendants(pid: int) -> list[int]:
    """Every living process below ``pid`` (children, their children, ...)."""
    parents = {}
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            parent = _parent_of(int(entry.name))
            if parent is not None:
                parents[int(entry.name)] = parent
    found, frontier = [], [pid]
    while frontier:
        here = frontier.pop()
        below = [child for child, parent in parents.items() if parent == here]
        found += below
        frontier += below
    return found


def alive(pid: int) -> bool:
    """Whether ``pid`` runs (a zombie waiting for its parent counts as ended)."""
    try:
        state = Path(f"/proc/{pid}/stat").read_text().rsplit(") ", 1)[1][0]
    except OSError:
        return False
    return state != "Z"


def wait_until_gone(pids: list[int], seconds: float = 10.0) -> list[int]:
    """The processes of ``pids`` still running after up to ``seconds``."""
    deadline = time.monotonic() + seconds
    while any(alive(p) for p in pids) and time.monotonic() < deadline:
        time.sleep(0.1)
    return [p for p in pids if alive(p)]
