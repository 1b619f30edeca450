"""Monte Carlo strategy simulator for Knock Rummy and Gin Rummy: the public Python API.

>>> import sim
>>> sim.min_deadwood(hands, rules="gin")                  # the solver (numba)
>>> sim.get_rules("gin", undercut_bonus=10)               # rule sets
>>> from sim.study import run, load_hands, scan_hands     # runs and studies

The names below load their module on first use, so that ``import sim`` (and the
``rummy`` command's ``--help``) stays fast. For notebooks, ``import rummy`` runs the
common studies over this API and returns estimates with units (docs/PYTHON.md).
"""

from __future__ import annotations

import importlib
from importlib.metadata import PackageNotFoundError, version
from typing import Any

try:
    __version__ = version("rummy-sim")
except PackageNotFoundError:  # running from a source tree that is not installed
    __version__ = "0.0.0+unknown"

_EXPORTS = {
    "PRESETS": "sim.rules",
    "RuleError": "sim.rules",
    "RuleSet": "sim.rules",
    "get_rules": "sim.rules",
    "Arrangement": "sim.solver",
    "arrangement": "sim.solver",
    "best_discard": "sim.solver",
    "min_deadwood": "sim.solver",
}

__all__ = ["__version__", *sorted(_EXPORTS)]


def __getattr__(name: str) -> Any:
    module = _EXPORTS.get(name)
    if module is None:
        raise AttributeError(f"module 'sim' has no attribute {name!r}")
    return getattr(importlib.import_module(module), name)
