"""What every study command shares: one executor, one shape from seed line to printout.

A study command parses its flags, makes its executor (:func:`executor_of`) and hands a
call of its driver to :func:`run_study`, which prints the seed, shows one progress bar,
then prints what the driver returned (or the same as strict JSON with ``--json``).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, TypeVar

from sim.cli.options import Backend
from sim.cli.output import fail, print_json, study_progress
from sim.study.execute import Executor

__all__ = ["executor_of", "run_study"]

R = TypeVar("R")


def executor_of(workers: int | None, backend: Backend, address: str | None) -> Executor:
    """The command's one executor, from --workers, --backend and --address, checked
    before anything is written (exit 1, one line)."""
    if address is not None and backend != Backend.ray:
        fail("--address needs --backend ray")
    executor = Executor(workers, backend.value, address)
    executor.check()
    return executor


def run_study(
    label: str,
    seed: int,
    drawn: bool,
    as_json: bool,
    play: Callable[[Callable[[Any], None]], R],
    *,
    record: Callable[[R], dict[str, Any]],
    show: Callable[[R], None],
    told: Callable[[R], None] | None = None,
) -> R:
    """The shape of a study command: ``play(progress)`` calls the driver (the seed line
    and a progress bar appear with its first progress, so after every check of its
    input); once the bar is gone ``told`` says what playing it said; then it prints its
    ``record`` as strict JSON, or passes it to ``show``."""
    with study_progress(label, seed, drawn, as_json) as progress:
        result = play(progress)
    if told is not None:
        told(result)
    if as_json:
        print_json(record(result))
    else:
        show(result)
    return result
