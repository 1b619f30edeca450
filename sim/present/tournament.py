"""The round robin's chart: the matrix of row-against-column edges, drawn from a result."""

from __future__ import annotations

from sim.present import charts
from sim.store import StorePath
from sim.study.tournament import TournamentResult

__all__ = ["CHART_STEM", "save_chart"]

CHART_STEM = "matrix"  # matrix.png and matrix.svg beside matrix.parquet


def save_chart(result: TournamentResult) -> tuple[StorePath, ...]:
    """Draw the matrix into the tournament's folder (PNG and SVG); their paths."""
    rules = result.rules
    field = "heads-up" if rules.players == 2 else f"one against a field of {rules.players - 1}"
    fig = charts.tournament_matrix(
        result.matrix,
        title=f"Round robin under {rules.name} ({field}): row against column, "
        f"per {result.mode[:-1]}",
        confidence=result.confidence,
        players=rules.players,
        mode=result.mode,
    )
    return tuple(charts.save(fig, result.directory / CHART_STEM))
