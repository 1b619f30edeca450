"""rummy-sim for notebooks and scripts: the common studies as functions, typed results.

>>> import rummy
>>> result = rummy.play("greedy:knock_at=7/simple", deals=20_000, seed=7)
>>> print(result.seats[0].net)          # 0.41 [0.09, 0.73] points per hand
>>> rummy.arrangement("AS 2S 3S 7C 7D 7H 9C TC JD QH").text

docs/PYTHON.md shows every function; a call that cannot be made raises ``rummy.UsageError``
(a ``ValueError``: one line naming the parameter). ``python -m rummy`` is the ``rummy`` command. The
names below load their module on first use, so that ``python -m rummy --help`` stays
fast (no numba, no polars).
"""

from __future__ import annotations

import importlib
from typing import Any

from sim.study.kinds import KINDS

_EXPORTS = {
    **{kind.function: "rummy.api" for kind in KINDS if kind.function},  # one per study kind
    "load": "rummy.api",
    "UsageError": "rummy.api",
    "Estimate": "rummy.results",
    "Executor": "sim.study.execute",
    "arrangement": "sim.solver",
    "player": "sim.agents.player",
    "View": "sim.agents.view",
    "get_rules": "sim.rules",
}

__all__ = sorted(_EXPORTS)


def __getattr__(name: str) -> Any:
    module = _EXPORTS.get(name)
    if module is None:
        raise AttributeError(f"module 'rummy' has no attribute {name!r}")
    return getattr(importlib.import_module(module), name)


def __dir__() -> list[str]:
    return sorted([*globals(), *_EXPORTS])
