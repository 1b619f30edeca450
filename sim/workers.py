"""Worker processes that never outlive the process that started them.

A process pool's workers are children of the driver. If the driver dies without
shutting the pool down (``kill -9``, SIGTERM, a crash), ordinary workers and
multiprocessing's resource tracker would run on under PID 1, holding memory and
CPU. Here every worker asks the kernel to kill it when its parent dies
(``PR_SET_PDEATHSIG`` on Linux) and, everywhere, watches its parent's PID from a
daemon thread; the resource tracker then exits by itself, since it ends when the
last process holding its pipe is gone.

Workers are started with the ``spawn`` method: the driver runs threads (progress,
the runner's chunk threads), and ``fork`` of a threaded process can deadlock.
"""

from __future__ import annotations

import ctypes
import ctypes.util
import multiprocessing
import os
import signal
import sys
import threading
import time
from collections.abc import Callable
from concurrent.futures import ProcessPoolExecutor
from typing import Any

__all__ = ["die_with_parent", "process_pool"]

_PR_SET_PDEATHSIG = 1  # prctl option (linux/prctl.h)
_WATCH_SECONDS = 0.5  # how often the fallback watchdog looks at the parent's PID


def die_with_parent(parent: int) -> None:
    """End this process as soon as process ``parent`` (its parent) ends.

    Call it first thing in a worker. On Linux the kernel sends SIGKILL at the
    parent's death; a daemon thread also polls ``os.getppid()`` (for other systems,
    and for a parent that died before this call).
    """
    if sys.platform.startswith("linux"):
        libc = ctypes.CDLL(ctypes.util.find_library("c") or "libc.so.6", use_errno=True)
        libc.prctl(_PR_SET_PDEATHSIG, signal.SIGKILL, 0, 0, 0)
    if os.getppid() != parent:  # the parent is already gone
        os._exit(1)

    def watch() -> None:
        while os.getppid() == parent:
            time.sleep(_WATCH_SECONDS)
        os._exit(1)

    threading.Thread(target=watch, name="rummy-parent-watch", daemon=True).start()


def _start(parent: int, initializer: Callable[..., None] | None, initargs: tuple[Any, ...]) -> None:
    die_with_parent(parent)
    if initializer is not None:
        initializer(*initargs)


def process_pool(
    workers: int,
    initializer: Callable[..., None] | None = None,
    initargs: tuple[Any, ...] = (),
) -> ProcessPoolExecutor:
    """A spawn process pool of ``workers`` processes that die with this process.

    ``initializer(*initargs)`` runs in each worker after it is tied to its parent.
    """
    return ProcessPoolExecutor(
        max_workers=workers,
        mp_context=multiprocessing.get_context("spawn"),
        initializer=_start,
        initargs=(os.getpid(), initializer, initargs),
    )
