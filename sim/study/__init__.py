"""Studies: runs, sweeps, experiments, comparisons, tournaments and tuning on one pipeline.

A study is a set of configurations (rules, line-up, seatings) played on one seed:

    driver (experiment | sweep | compare | tournament | tune | chart)
      -> runs (``runs.RunConfig``: one rule set and line-up on deal numbers 0..n-1)
      -> ``execute``: every chunk of every run through one queue (this thread,
         threads, or a Ray cluster: ``cluster``), each chunk written as checksummed
         Parquet parts
      -> ``units``: the focal seat's per-deal values, averaged over seatings
      -> ``analysis``: intervals, paired differences, multiple testing
      -> ``records``: one record format per study directory, one loader

A driver takes what to study and an ``execute.Executor`` (how to play: threads here
or a Ray cluster) and returns data: it never draws or prints (``sim.present`` draws,
the command line parses, calls, draws and prints); the executor never analyses. The
names below load their module on first use, so that ``import sim.study`` stays cheap.
"""

from __future__ import annotations

import importlib
from typing import Any

_EXPORTS = {
    "RunConfig": "runs",
    "RunError": "runs",
    "RunResult": "runs",
    "new_seed": "runs",
    "Executor": "execute",
    "LOCAL": "execute",
    "Progress": "execute",
    "execute": "execute",
    "run": "execute",
    "resume": "execute",
    "load_hands": "rundir",
    "load_games": "rundir",
    "load_summary": "rundir",
    "load_manifest": "rundir",
    "scan_hands": "experiment_store",
    "scan_games": "experiment_store",
    "scan_players": "experiment_store",
    "load_results": "experiment_store",
    "run_experiment": "experiment",
    "load_experiment": "experiment_file",
}
# compare, tournament and tune share their module's name: import them from it
# (``from sim.study.compare import compare``); the knock chart: ``sim.study.chart``.

__all__ = sorted(_EXPORTS)


def __getattr__(name: str) -> Any:
    module = _EXPORTS.get(name)
    if module is None:
        raise AttributeError(f"module 'sim.study' has no attribute {name!r}")
    return getattr(importlib.import_module(f"sim.study.{module}"), name)
