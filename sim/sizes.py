"""How much a study plays when its size is not given: one default per study kind.

The one place each default is stated: a command's option and help, and the notebook
function of the same study, read it here, so the two cannot disagree. Plain Python:
importing it loads neither numba nor polars.
"""

from __future__ import annotations

__all__ = ["DEFAULT_DEALS", "DEFAULT_SAMPLES", "study_count"]

DEFAULT_DEALS = {
    "run": 100_000,  # single deals of a run (rummy run --seats, rummy.play)
    "sweep": 100_000,  # per setting
    "compare": 100_000,  # per side: about 1 s of one core for two greedy seats
    "tournament": 20_000,  # per seating run: a 4-strategy Gin round robin is 12 runs
    "tune": 50_000,  # per setting (and per seating with duplicate play)
    "chart": 100_000,  # deals the policy plays for a strategy chart
}
"""Single deals a study plays when given neither deals nor games, by study kind."""

DEFAULT_SAMPLES = 2000  # sampled deals of ``rummy advise`` (``rummy.advise``) per position


def study_count(kind: str, deals: int | None, games: int | None) -> tuple[int, str]:
    """A study's count and mode: ``games`` whole games, else ``deals`` single deals, else
    the kind's default deals. The caller refuses both given, in its own words."""
    if games is not None:
        return games, "games"
    return (DEFAULT_DEALS[kind] if deals is None else deals), "deals"
