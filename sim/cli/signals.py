"""How a command stops on SIGINT (Ctrl-C) and SIGTERM: at once, in one line, tidily.

While a command runs, either signal raises KeyboardInterrupt in the main thread, so the
command unwinds as from any error (compile helpers stopped, run directories unlocked,
finished chunks kept); the top of the command turns it into :class:`Stopped` (one line,
exit 130 or 143: "interrupted" or "terminated", and for a command that plays a study the
same command resumes, that its finished chunks are kept) and :func:`leave` ends the
process. Ray's core sets a SIGTERM handler of its own while it is connected:
``sim.study.cluster`` keeps this one instead.

The interrupt lands wherever Python is, and some places swallow it: llvmlite's callback
while numba loads a kernel and a finalizer (neither can raise: Python reports the error
to ``sys.unraisablehook``), the init of a Cython module being imported (it clears the
error). Left there, the command would go on (a count of minutes, a run of hours) as if
no signal had come. So each interrupt is watched, by a weak reference, until the
command has stopped: one freed before was swallowed, and is raised again at the next
call or return Python makes (a profile function's exception propagates there), until
one gets through.
"""

from __future__ import annotations

import atexit
import os
import signal
import sys
import threading
import weakref
from collections.abc import Iterator
from contextlib import contextmanager
from types import FrameType
from typing import Any, NoReturn

__all__ = ["Signals", "Stopped", "leave"]


class Stopped(BaseException):
    """A command stopped by a signal, carried past typer, which would turn a
    KeyboardInterrupt into a bare exit 130 (SIGTERM's included) without a word.
    Not an Exception, so that nothing on the way catches it."""

    def __init__(self, signum: int) -> None:
        super().__init__()
        self.status = 128 + signum  # as shells report a command a signal ended: 130, 143
        self.what = "terminated" if signum == signal.SIGTERM else "interrupted"

    def line(self, resumes: bool) -> str:
        """The one line to say; ``resumes``: the command plays a study that the same
        command resumes (``sim.study.kinds.StudyKind.resumes``), its finished chunks kept."""
        if resumes:
            return f"{self.what}: finished chunks are kept; the same command resumes"
        return self.what


class _Interrupt(KeyboardInterrupt):
    """The KeyboardInterrupt a signal raises (a class of its own, to be weakly referenced)."""


def _say_nothing(unraisable: Any) -> None:
    """After a signal, what fails unseen (a swallowed interrupt; objects a compile stopped
    half-way leaves behind, as they are collected) is the signal's doing: not a word."""


class Signals:
    """The signals a command received (``received``, in order) and the interrupts they
    raised, watched until ``stopped`` says the command has stopped, or ``handled`` ends."""

    def __init__(self) -> None:
        self.received: list[int] = []
        self._stopped = False
        self._watched: set[weakref.ref[_Interrupt]] = set()

    def stopped(self) -> Stopped:
        """The command has stopped (an interrupt reached its top): what to say and exit
        with. Interrupts freed from now on were caught, not swallowed."""
        self._stopped = True
        return Stopped(self.received[0])

    def _interrupt(self) -> NoReturn:
        error = _Interrupt()
        self._watched.add(weakref.ref(error, self._lost))
        try:
            raise error
        finally:
            del error  # no cycle through this frame: it is freed where it is dropped

    def _lost(self, ref: weakref.ref[_Interrupt]) -> None:
        """An interrupt was freed before the command stopped: raise it again just after
        this callback (in the main thread: the only one an interrupt is raised in)."""
        self._watched.discard(ref)
        if self._stopped or threading.current_thread() is not threading.main_thread():
            return
        previous = sys.getprofile()

        def raise_again(frame: FrameType, event: str, arg: Any) -> None:
            if frame.f_code is Signals._lost.__code__:
                return  # this callback returning
            sys.setprofile(previous)
            self._interrupt()

        sys.setprofile(raise_again)

    def _on_signal(self, signum: int, frame: FrameType | None) -> None:
        self.received.append(signum)
        sys.unraisablehook = _say_nothing
        self._interrupt()

    @contextmanager
    def handled(self) -> Iterator[None]:
        """While inside, SIGINT and SIGTERM raise KeyboardInterrupt in the main thread and
        are noted. The handlers before (and ``sys.unraisablehook``) are put back after (a
        test's CliRunner runs commands inside pytest's process); an ignored signal
        (SIGINT under ``nohup``) stays ignored; outside the main thread (which alone may
        set handlers and receives signals) nothing changes."""
        if threading.current_thread() is not threading.main_thread():
            yield
            return
        unraisable_hook = sys.unraisablehook
        previous = {
            signum: signal.signal(signum, self._on_signal)
            for signum in (signal.SIGINT, signal.SIGTERM)
            if signal.getsignal(signum) is not signal.SIG_IGN
        }
        try:
            yield
        finally:
            self._stopped = True  # the command is over, however it ended
            for signum, handler in previous.items():
                signal.signal(signum, signal.SIG_DFL if handler is None else handler)
            sys.unraisablehook = unraisable_hook


def leave(status: int) -> NoReturn:
    """Exit with ``status`` once a signal stopped the command: everything that unwinds
    has unwound (helpers stopped, files closed), so end the process at once, without
    Python's own exit. That would wait for a thread still running, in a kernel that
    cannot be stopped (a chunk in flight: minutes with a slow strategy), whose result
    nobody takes; and its teardown of native libraries may crash (Ray's core, half made
    by a stop during ``ray.init``, ends the process with SIGSEGV or SIGABRT there: 139
    or 134 instead of 130 or 143). The exit handlers (``atexit``) run first, unless a
    thread still runs (some join their threads: ``concurrent.futures``)."""
    if not any(t.is_alive() and not t.daemon for t in threading.enumerate()
               if t is not threading.main_thread()):  # fmt: skip
        atexit._run_exitfuncs()
    for stream in (sys.stdout, sys.stderr):
        try:
            stream.flush()
        except (OSError, ValueError):  # a closed pipe or stream: nothing to keep
            pass
    os._exit(status)
