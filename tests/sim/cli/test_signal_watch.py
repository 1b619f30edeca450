"""A signal's interrupt that lands where Python swallows it is raised again just after.

In this process: SIGINT is raised inside each kind of place that swallows an exception
(a ctypes callback, a finalizer, C code that clears the error: a Cython module's init
does so), under ``Signals.handled``; the interrupt must come out before the next line
runs, as it would had it landed there. Without the watch, each of these loses it (the
first test shows it for a callback), and a command went on counting for minutes after
Ctrl-C (tests/sim/cli/test_signals.py stops real commands).
"""

from __future__ import annotations

import ctypes
import signal
import sys

import pytest

from sim.cli.signals import Signals

Callback = ctypes.CFUNCTYPE(None)


def _ctrl_c() -> None:
    signal.raise_signal(signal.SIGINT)  # the handler runs here, before this returns


def test_python_alone_loses_an_interrupt_raised_in_a_callback() -> None:
    def interrupt() -> None:
        raise KeyboardInterrupt

    hook, sys.unraisablehook = sys.unraisablehook, lambda unraisable: None
    try:
        Callback(interrupt)()  # nothing comes out
    finally:
        sys.unraisablehook = hook


class _SwallowedBy:
    """The places that swallow what is raised in them, each running ``_ctrl_c``."""

    @staticmethod
    def callback() -> None:
        Callback(_ctrl_c)()

    @staticmethod
    def finalizer() -> None:
        class Finalized:
            def __del__(self) -> None:
                _ctrl_c()

        Finalized()

    @staticmethod
    def c_code_that_clears_it() -> None:
        class Probe:
            def __getattr__(self, name: str) -> None:
                _ctrl_c()

        # PyObject_HasAttrString ignores every error of the lookup, as documented.
        ctypes.pythonapi.PyObject_HasAttrString(ctypes.py_object(Probe()), b"anything")


@pytest.mark.parametrize("place", ["callback", "finalizer", "c_code_that_clears_it"])
def test_a_swallowed_interrupt_comes_out_before_the_next_line(place: str) -> None:
    signals = Signals()
    lines_after = []
    with pytest.raises(KeyboardInterrupt), signals.handled():
        getattr(_SwallowedBy, place)()
        lines_after.append("ran")
    assert lines_after == []
    assert signals.received == [signal.SIGINT]


def test_once_stopped_an_interrupt_caught_is_not_raised_again() -> None:
    signals = Signals()
    with signals.handled():
        try:
            _ctrl_c()
        except KeyboardInterrupt:
            stopped = signals.stopped()
        lines_after = ["ran"]  # the interrupt, freed above, stays caught
    assert lines_after == ["ran"]
    assert stopped.status == 130 and stopped.line(True).startswith("interrupted: ")
    assert stopped.line(False) == "interrupted"  # a command that plays no study


def test_the_handlers_and_the_unraisable_hook_are_put_back() -> None:
    before = [signal.getsignal(signal.SIGINT), signal.getsignal(signal.SIGTERM)]
    hook = sys.unraisablehook
    signals = Signals()
    with pytest.raises(KeyboardInterrupt), signals.handled():
        signal.raise_signal(signal.SIGTERM)
    assert signals.received == [signal.SIGTERM]
    assert signals.stopped().status == 143
    assert [signal.getsignal(signal.SIGINT), signal.getsignal(signal.SIGTERM)] == before
    assert sys.unraisablehook is hook


def test_an_ignored_interrupt_stays_ignored() -> None:
    """Under ``nohup`` (SIGINT ignored from the start) Ctrl-C does not stop a command."""
    previous = signal.signal(signal.SIGINT, signal.SIG_IGN)
    try:
        signals = Signals()
        with signals.handled():
            _ctrl_c()
            lines_after = ["ran"]
        assert signal.getsignal(signal.SIGINT) is signal.SIG_IGN
    finally:
        signal.signal(signal.SIGINT, previous)
    assert lines_after == ["ran"] and signals.received == []
