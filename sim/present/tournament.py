"""The round robin's chart: the matrix of row-against-column edges, drawn from a result."""

from __future__ import annotations

from typing import Any

from sim.present import charts
from sim.rules import RuleSet
from sim.store import StorePath
from sim.study.tournament import TournamentResult

__all__ = ["CHART_STEM", "matrix_chart", "save_chart"]

CHART_STEM = "matrix"  # matrix.png and matrix.svg beside matrix.parquet


def matrix_chart(matrix: Any, rules: RuleSet, mode: str, confidence: float) -> Any:
    """The matrix of a round robin under ``rules``: row strategy against column."""
    field = "heads-up" if rules.players == 2 else f"one against a field of {rules.players - 1}"
    return charts.tournament_matrix(
        matrix,
        title=f"Round robin under {rules.name} ({field}): row against column, per {mode[:-1]}",
        confidence=confidence,
        players=rules.players,
        mode=mode,
    )


def save_chart(result: TournamentResult) -> tuple[StorePath, ...]:
    """Draw the matrix into the tournament's folder (PNG and SVG); their paths."""
    fig = matrix_chart(result.matrix, result.rules, result.mode, result.confidence)
    return tuple(charts.save(fig, result.directory / CHART_STEM))
