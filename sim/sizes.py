"""How much a study plays when its size is not given: one default per study kind.

The one place each default is stated: a command's option and help, and the notebook
function of the same study, read it here, so the two cannot disagree. Plain Python:
importing it loads neither numba nor polars.
"""

from __future__ import annotations

__all__ = [
    "CHUNK_CHART",
    "CHUNK_DEALS",
    "CHUNK_GAMES",
    "CHUNK_SLOW_DEALS",
    "CHUNK_SLOW_GAMES",
    "DEFAULT_DEALS",
    "DEFAULT_SAMPLES",
    "study_count",
]

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

# How a run is cut into chunks when ``chunk_size`` is not given (``RunConfig``):
CHUNK_DEALS = 100_000  # ~1 s of one core for two greedy seats: progress and resume granularity
CHUNK_GAMES = 2_000  # ~20 hands a game: about as many hands as CHUNK_DEALS
CHUNK_CHART = 20_000  # chart deals per chunk: their positions take seconds to score
# A seat that decides in milliseconds, not nanoseconds (``Strategy.decides_slowly``: mc's
# search, an agent's other program): chunks of these sizes take seconds, so that progress,
# its ETA and resume come as often as with fast seats.
CHUNK_SLOW_DEALS = 1_000
CHUNK_SLOW_GAMES = 10


def study_count(kind: str, deals: int | None, games: int | None) -> tuple[int, str]:
    """A study's count and mode: ``games`` whole games, else ``deals`` single deals, else
    the kind's default deals. The caller refuses both given, in its own words."""
    if games is not None:
        return games, "games"
    return (DEFAULT_DEALS[kind] if deals is None else deals), "deals"
