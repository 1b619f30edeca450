"""Rule sets: every house-rule choice of ``docs/RULES.md`` as one frozen, validated value.

- ``ruleset``: :class:`RuleSet`, its checks and bounds, and the vector the kernels read;
- ``presets``: the named rule sets of RULES.md and :func:`get_rules`;
- ``overrides``: ``key=value`` text (``--rule``, experiment files) as typed values.
"""

from __future__ import annotations

from sim.rules.overrides import parse_overrides
from sim.rules.presets import DEFAULT_PRESET, PRESET_DESCRIPTIONS, PRESETS, get_rules, house_rules
from sim.rules.ruleset import (
    MAX_BONUS,
    MAX_HANDS_TARGET,
    MAX_KNOCK_LIMIT,
    MAX_TARGET,
    PARAMETERS,
    RuleError,
    RuleSet,
    allowed_values,
)

__all__ = [
    "DEFAULT_PRESET",
    "MAX_BONUS",
    "MAX_HANDS_TARGET",
    "MAX_KNOCK_LIMIT",
    "MAX_TARGET",
    "PARAMETERS",
    "PRESETS",
    "PRESET_DESCRIPTIONS",
    "RuleError",
    "RuleSet",
    "allowed_values",
    "get_rules",
    "house_rules",
    "parse_overrides",
]
