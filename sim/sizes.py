"""How much a study plays when its size is not given, and how a run is cut into chunks.

A command's option and help and the notebook function of the same study read each
default here, so the two cannot disagree; each kind's deals are declared with the kind
(``sim.study.kinds``). Plain Python: importing it loads neither numba nor polars.
"""

from __future__ import annotations

from sim.study.kinds import KINDS

__all__ = [
    "ADVISE_SEED",
    "CHART_MIN_POSITIONS",
    "CHART_PER_CELL",
    "CHART_PILOT",
    "CHART_SAMPLES",
    "CHART_TURNS",
    "CHECK_CELLS",
    "CHECK_DEALS",
    "CHUNK_CHART",
    "CHUNK_DEALS",
    "CHUNK_GAMES",
    "CHUNK_SLOW_DEALS",
    "CHUNK_SLOW_GAMES",
    "DEADWOOD_SAMPLES",
    "DEFAULT_DEALS",
    "DEFAULT_SAMPLES",
    "SOLVE_DEALS",
    "SOLVE_ROUNDS",
    "SOLVE_STRENGTH_DEALS",
    "study_count",
]

DEFAULT_DEALS = {k.name: k.default_deals for k in KINDS if k.default_deals is not None}
"""Single deals a study plays when given neither deals nor games, by study kind (as
``sim.study.kinds`` declares each)."""

DEFAULT_SAMPLES = 2000  # sampled deals of ``rummy advise`` (``rummy.advise``) per position
ADVISE_SEED = 0  # ... and their seed: the same position, the same advice
DEADWOOD_SAMPLES = 1_000_000  # random hands of ``rummy stats deadwood`` (Monte Carlo)

# A strategy chart (``rummy strategy-chart``, ``rummy.strategy_chart``, a solve's rounds):
CHART_SAMPLES = 32  # plays of each action per position
CHART_PER_CELL = 2000  # positions a cell should get (common cells are thinned)
CHART_PILOT = 100_000  # deals of the pilot that finds how common each cell is
CHART_TURNS = 20  # rows: own turns 1..N
CHART_MIN_POSITIONS = 30  # fewer positions in a cell: no verdict is guessed
CHECK_CELLS = 5  # cells with the largest predicted effect played as deviations
CHECK_DEALS = 200_000  # fresh deals per checked cell
# A solve (``rummy strategy-chart solve``): rounds of chart and export, each round's deals,
# and the duplicate deals of each strength figure.
SOLVE_ROUNDS = 6
SOLVE_DEALS = 2_000_000
SOLVE_STRENGTH_DEALS = 200_000

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
