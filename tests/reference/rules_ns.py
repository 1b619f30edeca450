"""``make_rules(**kw)``: a plain namespace with the RULES.md rule parameters the oracles read.

Defaults are those of RULES.md (Knock Rummy style, two players). Only the parameters that
the showdown oracles read are here; an unknown keyword is an error so that a typo cannot
silently test the default.
"""

from __future__ import annotations

from types import SimpleNamespace
from typing import Any

DEFAULTS: dict[str, Any] = {
    "players": 2,
    "hand_size": 10,
    "jokers": 0,
    "joker_value": 15,
    "ace": "low",
    "ace_high_value": 15,
    "knock_limit": None,
    "big_gin_bonus": 0,
    "layoff": False,
    "layoff_play": "optimal",
    "scoring": "knock",
    "rummy_bonus": 25,
    "undercut_penalty": 10,
    "tied_winners": "nearest_left",
    "knocker_tie": "undercut",
    "penalty_to": "winner",
    "gin_bonus": 25,
    "undercut_bonus": 25,
    "undercut_on_tie": True,
    "spade_double": False,
}


def make_rules(**kw: Any) -> SimpleNamespace:
    """A rules namespace: RULES.md defaults overridden by ``kw`` (unknown names rejected)."""
    unknown = sorted(set(kw) - set(DEFAULTS))
    if unknown:
        raise TypeError(f"unknown rule parameter(s): {', '.join(unknown)}")
    return SimpleNamespace(**{**DEFAULTS, **kw})


def gin_rules(**kw: Any) -> SimpleNamespace:
    """The `gin` preset's showdown parameters (knock_limit 10, lay-offs, big gin 31)."""
    base: dict[str, Any] = {
        "scoring": "gin",
        "knock_limit": 10,
        "layoff": True,
        "big_gin_bonus": 31,
    }
    return make_rules(**{**base, **kw})
