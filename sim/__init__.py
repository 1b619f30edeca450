"""Monte Carlo strategy simulator for Knock Rummy and Gin Rummy: the public Python API."""

from importlib.metadata import PackageNotFoundError, version

from sim.rules import PRESETS, RuleError, RuleSet, get_rules
from sim.solver import Arrangement, arrangement, best_discard, min_deadwood

try:
    __version__ = version("rummy-sim")
except PackageNotFoundError:  # running from a source tree that is not installed
    __version__ = "0.0.0+unknown"

__all__ = [
    "PRESETS",
    "Arrangement",
    "RuleError",
    "RuleSet",
    "__version__",
    "arrangement",
    "best_discard",
    "get_rules",
    "min_deadwood",
]
