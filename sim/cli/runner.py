"""A study command's one executor, from its shared options (``sim.front.command``
plays the rest: seed line, progress bar, printout)."""

from __future__ import annotations

from sim.cli.options import Backend
from sim.cli.output import fail
from sim.study.execute import Executor

__all__ = ["executor_of"]


def executor_of(workers: int | None, backend: Backend, address: str | None) -> Executor:
    """The command's one executor, from --workers, --backend and --address, checked
    before anything is written (exit 1, one line)."""
    if address is not None and backend != Backend.ray:
        fail("--address needs --backend ray")
    executor = Executor(workers, backend.value, address)
    executor.check()
    return executor
