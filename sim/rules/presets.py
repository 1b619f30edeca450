"""The presets of RULES.md ("Presets") and :func:`get_rules`, a preset with overrides."""

from __future__ import annotations

import dataclasses
from typing import Any

from sim.rules.ruleset import PARAMETERS, RuleError, RuleSet, choose

__all__ = ["DEFAULT_PRESET", "PRESETS", "PRESET_DESCRIPTIONS", "get_rules", "house_rules"]

# --- presets (RULES.md "Presets") --------------------------------------------------
# Where the table is silent a parameter keeps its default; Knock Rummy presets take
# the default 4 players (the table allows 2-6).

_GIN_BASE: dict[str, Any] = {
    "players": 2,
    "knock_limit": 10,
    "layoff": True,
    "scoring": "gin",
    "stock_exhaustion": "dead_hand",
    "upcard_option": True,
}

_PRESET_TABLE: dict[str, tuple[str, dict[str, Any]]] = {
    "knock-rummy": (
        "Knock Rummy: knock at any deadwood, no lay-offs, reshuffle, pool to 100",
        {"knock_limit": None, "stock_exhaustion": "reshuffle", "game": "pool:100"},
    ),
    "knock-rummy-turnover": (
        "Knock Rummy with the discard pile turned over, unshuffled, as the new stock",
        {"knock_limit": None, "stock_exhaustion": "turn_over"},
    ),
    "threshold-knock": (
        "Knock Rummy that allows a knock only at 10 deadwood or less",
        {"knock_limit": 10},
    ),
    "no-knock": (
        "Knock Rummy where only rummy (zero deadwood) ends a hand",
        {"knock_limit": 0},
    ),
    "joker-knock": (
        "Knock Rummy with two jokers worth 15 when unmelded",
        {"knock_limit": None, "jokers": 2, "joker_value": 15},
    ),
    "gin": (
        "Modern Gin: knock at 10, gin 25, undercut 25, big gin 31, game to 100",
        {
            **_GIN_BASE,
            "gin_bonus": 25,
            "undercut_bonus": 25,
            "big_gin_bonus": 31,
            "game": "gin:100",
            "box_bonus": 25,
        },
    ),
    "gin-classic": (
        "Classic Gin: gin 20, undercut 10, box 20, only the game bonus doubles on a shutout",
        {
            **_GIN_BASE,
            "gin_bonus": 20,
            "undercut_bonus": 10,
            "game": "gin:100",
            "box_bonus": 20,
            "shutout": "bonus",
        },
    ),
    "eaai": (
        "EAAI competition Gin: greedy lay-offs, no box or game bonus, deal after scored hands",
        {
            **_GIN_BASE,
            "layoff_play": "greedy",
            "gin_bonus": 25,
            "undercut_bonus": 25,
            "game": "gin:100",
            "box_bonus": 0,
            "game_bonus": 0,
            "shutout": "none",
            "dealer": "alternate_scored",
        },
    ),
    "oklahoma-gin": (
        "Oklahoma Gin: the first upcard sets the knock limit, spade hands score double",
        {
            **_GIN_BASE,
            "knock_limit": "upcard",
            "gin_bonus": 25,
            "undercut_bonus": 25,
            "spade_double": True,
            "game": "gin:150",
        },
    ),
    "straight-gin": (
        "Straight Gin: no knocking, only gin ends a hand",
        {**_GIN_BASE, "knock_limit": 0, "gin_bonus": 25, "game": "gin:100"},
    ),
    "hollywood-gin": (
        "Hollywood Gin: three games to 100 scored at once",
        {**_GIN_BASE, "gin_bonus": 25, "undercut_bonus": 25, "game": "hollywood:100"},
    ),
    "round-the-corner-gin": (
        "Round-the-corner Gin: runs wrap K-A-2, an unmelded ace is 15, game to 125",
        {
            **_GIN_BASE,
            "gin_bonus": 20,
            "undercut_bonus": 20,
            "ace": "around",
            "ace_high_value": 15,
            "box_bonus": 20,
            "game": "gin:125",
        },
    ),
}

PRESETS: dict[str, RuleSet] = {
    name: RuleSet(name=name, **params) for name, (_, params) in _PRESET_TABLE.items()
}
"""The named rule sets of RULES.md "Presets", by their contract names."""

PRESET_DESCRIPTIONS: dict[str, str] = {
    name: description for name, (description, _) in _PRESET_TABLE.items()
}
"""One line per preset, for ``rummy rules list``."""


DEFAULT_PRESET = "gin"
"""The rules of every command and function that is given none (``--rules``, ``rules=``)."""


def get_rules(rules: str | RuleSet = DEFAULT_PRESET, **overrides: Any) -> RuleSet:
    """Return a preset (or a given rule set) with some parameters replaced.

    Parameters
    ----------
    rules : str or RuleSet, default "gin"
        A name of :data:`PRESETS`, or a rule set to start from.
    **overrides
        Parameters to replace, e.g. ``knock_limit=7``. A rule set whose
        ``hand_size`` is None (every preset) keeps following the player count, so
        ``get_rules("knock-rummy", players=2)`` deals 10 cards.

    Returns
    -------
    RuleSet
        The validated result; its ``name`` stays that of the starting rule set
        unless ``name`` is overridden.

    Raises
    ------
    RuleError
        For an unknown preset or parameter, or a combination RULES.md rejects.
    """
    if isinstance(rules, RuleSet):
        base = rules
    elif isinstance(rules, str) and rules in PRESETS:
        base = PRESETS[rules]
    else:
        raise RuleError(f"unknown preset {rules!r}; choose one of: {choose(PRESETS)}")
    for key in overrides:
        if key not in PARAMETERS:
            raise RuleError(f"unknown rule parameter {key!r}; choose from: {choose(PARAMETERS)}")
    return dataclasses.replace(base, **overrides) if overrides else base


def house_rules(rules: RuleSet) -> dict[str, Any]:
    """The parameters where ``rules`` differs from the preset it is named after, but for
    its player count (which a preset leaves open): ``{}`` for the preset itself and for
    rules named after no preset."""
    preset = PRESETS.get(rules.name)
    if preset is None:
        return {}
    base = dataclasses.replace(preset, players=rules.players)
    return {
        f.name: getattr(rules, f.name)
        for f in dataclasses.fields(rules)
        if getattr(rules, f.name) != getattr(base, f.name)
    }
