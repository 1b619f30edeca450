"""What each figure of a study is measured in: one unit name per quantity.

The notebook's estimates (``rummy.results``), the house-rule table and every study's
``--json`` (its ``units``: a figure's name, the bounds ``_low``/``_high`` in the same
unit) name units from here, so that one quantity never has two names. Points are game
points; a share is a fraction of 1 (the terminal and the report print it in %). With
single deals a study's unit is the hand (under duplicate play a deal's hands averaged
over its seatings); with whole games, the game (final scores).
"""

from __future__ import annotations

__all__ = [
    "POINTS_PER_GAME",
    "POINTS_PER_HAND",
    "SHARE_OF_GAMES",
    "SHARE_OF_HANDS",
    "TURNS_PER_HAND",
    "chart_units",
    "comparison_units",
    "experiment_units",
    "headline_quantity",
    "points_unit",
    "share_unit",
    "tournament_units",
]

POINTS_PER_HAND = "points per hand"
POINTS_PER_GAME = "points per game"
SHARE_OF_HANDS = "share of hands"
SHARE_OF_GAMES = "share of games"
TURNS_PER_HAND = "turns per hand"

RATES = frozenset({"win_rate", "game_win_rate"})  # the headlines that are shares


def points_unit(mode: str) -> str:
    """The unit of a study's points: per hand (single deals) or per game (final scores)."""
    return POINTS_PER_HAND if mode == "deals" else POINTS_PER_GAME


def share_unit(mode: str) -> str:
    """The unit of what a study counts as won: hands (single deals) or games."""
    return SHARE_OF_HANDS if mode == "deals" else SHARE_OF_GAMES


def headline_quantity(headline: str) -> str:
    """The unit of an experiment's headline (``sim.study.design.HEADLINES``)."""
    if headline in RATES:
        return SHARE_OF_HANDS if headline == "win_rate" else SHARE_OF_GAMES
    return POINTS_PER_GAME if headline == "net_score" else POINTS_PER_HAND


def experiment_units(headline: str) -> dict[str, str]:
    """The units of a run's or an experiment's tables (summary, seats, outcomes): hand
    figures per hand, game figures per game, the headline (``estimate``, the difference
    from the best) in its own."""
    own = headline_quantity(headline)
    return {
        "estimate": own,
        "diff_vs_best": own,
        "points": POINTS_PER_HAND,
        "net": POINTS_PER_HAND,
        "win_rate": SHARE_OF_HANDS,
        "knock_rate": SHARE_OF_HANDS,
        "gin_rate": SHARE_OF_HANDS,
        "undercut_rate": SHARE_OF_HANDS,
        "share": SHARE_OF_HANDS,  # of the outcomes
        "mean_turns": TURNS_PER_HAND,
        "net_score": POINTS_PER_GAME,
        "game_win_rate": SHARE_OF_GAMES,
        "hands_per_game": "hands per game",
    }


def comparison_units(mode: str) -> dict[str, str]:
    """The units of a comparison: each side's net points and wins, and A - B of each."""
    points, share = points_unit(mode), share_unit(mode)
    return {"net": points, "difference": points, "win_rate": share, "win_difference": share}


def tournament_units(mode: str) -> dict[str, str]:
    """The units of a round robin's cells (per pairing: net, won, won by nobody)."""
    share = share_unit(mode)
    return {"net": points_unit(mode), "win_rate": share, "no_winner_rate": share}


def chart_units(chart: str) -> dict[str, str]:
    """The units of a strategy chart's cells: the knock and draw charts' gain of the first
    action and the hands won after each action; the discard chart's share taken and the
    deadwood a taken card saved the next seat (per taken card, and per discard: its
    cost)."""
    if chart == "discard":
        return {"taken_rate": "share of discards", "saved": "deadwood per taken card",
                "cost": "deadwood per discard"}  # fmt: skip
    first, second = ("knock", "play") if chart == "knock" else ("take", "draw")
    return {
        "gain": POINTS_PER_HAND,
        f"{first}_win": SHARE_OF_HANDS,
        f"{second}_win": SHARE_OF_HANDS,
    }
