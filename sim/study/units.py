"""The focal seat's values per deal (or game): what every study compares.

Seatings
--------
Duplicate play deals every deal again with the line-up rotated. In rotation ``r`` seat
``j`` plays the strategy of template seat ``(j + r) % players`` (:func:`rotate`), so
template seat ``s`` sits at seat ``(s - r) % players`` (:func:`position`) and, over
all rotations, holds every seat's cards once: seat and card luck cancel.

Units
-----
A finished run's rows reduce to :class:`Units`, one per deal (single hands) or per game
(``mode="games"``): the keys, each seat's points (hand points, or final game scores)
and the winner. :func:`focal_series` turns the runs of one setting's seatings into
the focal strategy's values per unit, averaged over its seatings:

* ``net``: its points minus the mean of the other seats' points (for two players, its
  points minus the opponent's): its zero-sum edge;
* ``points``: its own points;
* ``won``: whether it won the hand (the game), as a share of its seatings.

Every study (experiments and sweeps, comparisons, tournaments, tuning) compares these
series, deal by deal, on common deals.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Literal

import numpy as np
import numpy.typing as npt

from sim.store import StorePath
from sim.study.rundir import load_games, load_hands
from sim.study.runs import RunError

__all__ = [
    "FocalSeries",
    "Units",
    "check_joined",
    "focal_series",
    "Mode",
    "load_units",
    "metric_name",
    "position",
    "rotate",
    "seatings",
]

Mode = Literal["deals", "games"]


def metric_name(mode: str) -> str:
    """What the focal series measures, in words."""
    return "net points per hand" if mode == "deals" else "net final score per game"


def rotate(lineup: Sequence[str], r: int) -> tuple[str, ...]:
    """The line-up of rotation ``r``: seat ``j`` plays template seat ``(j + r) % n``."""
    n = len(lineup)
    return tuple(lineup[(j + r) % n] for j in range(n))


def position(seat: int, rotation: int, players: int) -> int:
    """Where template seat ``seat`` sits in the run of ``rotation``."""
    return (seat - rotation) % players


def seatings(lineup: Sequence[str], duplicate: bool) -> list[tuple[int, tuple[str, ...]]]:
    """``(rotation, line-up)`` of every seating a setting plays: rotation 0 alone, or
    with ``duplicate`` every rotation whose line-up differs (a symmetric line-up
    rotates onto itself and is played once)."""
    out: list[tuple[int, tuple[str, ...]]] = []
    for r in range(len(lineup) if duplicate else 1):
        rotated = rotate(lineup, r)
        if rotated not in (seen for _, seen in out):
            out.append((r, rotated))
    return out


@dataclass(frozen=True)
class Units:
    """One run's rows, one per deal (or game), in key order: what a metric needs."""

    keys: npt.NDArray[np.int64]  # (n, 2): game, deal
    points: npt.NDArray[np.float64]  # (n, players): hand points, or final game scores
    winner: npt.NDArray[np.int64]  # (n,): winning seat, -1 none

    def net(self, seat: int) -> npt.NDArray[np.float64]:
        """Seat's points minus the mean of the other seats' points, per unit."""
        players = self.points.shape[1]
        own = self.points[:, seat]
        if players == 1:
            return own.copy()
        if players == 2:  # the other seat's column as it is: no copy of both
            return own - self.points[:, 1 - seat]
        others = np.delete(self.points, seat, axis=1)
        return own - others.sum(axis=1) / (players - 1)

    def won(self, seat: int) -> npt.NDArray[np.bool_]:
        return self.winner == seat

    def sorted(self) -> Units:
        """The same rows in (game, deal) order (a stable sort)."""
        order = np.lexsort((self.keys[:, 1], self.keys[:, 0]))
        return Units(self.keys[order], self.points[order], self.winner[order])


def load_units(run_dir: StorePath, mode: Mode, players: int) -> Units:
    """The rows of a finished run: hands for single deals, games for ``mode="games"``.

    Single deals are keyed by (game, deal) and carry the hand's points; games by game
    and carry the final scores (``score_k``). Every part is checked on the way in.
    """
    if mode == "deals":
        columns = ["game", "deal", *(f"points_{k}" for k in range(players)), "winner"]
        frame = load_hands(run_dir).select(columns).collect()
        deal = frame["deal"].to_numpy().astype(np.int64)
        points = [f"points_{k}" for k in range(players)]
    else:
        columns = ["game", *(f"score_{k}" for k in range(players)), "winner"]
        frame = load_games(run_dir).select(columns).collect()
        deal = np.zeros(frame.height, np.int64)
        points = [f"score_{k}" for k in range(players)]
    game = frame["game"].to_numpy().astype(np.int64)
    units = Units(
        keys=np.stack([game, deal], axis=1),
        points=frame.select(points).to_numpy().astype(np.float64),
        winner=frame["winner"].to_numpy().astype(np.int64),
    )
    return units if _in_key_order(game, deal) else units.sorted()


def _in_key_order(game: npt.NDArray[np.int64], deal: npt.NDArray[np.int64]) -> bool:
    """True when the rows are already in (game, deal) order, as ``load_hands`` and
    ``load_games`` read a finished run's parts; the check costs much less than a sort."""
    game_step, deal_step = np.diff(game), np.diff(deal)
    return bool(np.all((game_step > 0) | ((game_step == 0) & (deal_step >= 0))))


def check_joined(reference: Units, other: Units, what: str) -> None:
    """The join on (game, deal) keeps every row: both runs hold exactly the same keys."""
    if reference.keys.shape != other.keys.shape or not np.array_equal(reference.keys, other.keys):
        raise RunError(
            f"{what} does not hold the same (game, deal) keys as the first run; "
            "the runs cannot be paired"
        )


@dataclass(frozen=True)
class FocalSeries:
    """The focal strategy's values per unit, each the mean over its seatings."""

    keys: npt.NDArray[np.int64]
    net: npt.NDArray[np.float64]
    points: npt.NDArray[np.float64]
    won: npt.NDArray[np.float64]
    wins: int  # hands (games) it won over all its seatings
    seatings: int

    def __len__(self) -> int:
        return int(self.keys.shape[0])


def focal_series(units: Sequence[Units], positions: Sequence[int], what: str = "") -> FocalSeries:
    """The mean over seatings of the focal strategy's values, unit by unit.

    ``units[i]`` is the run of seating ``i`` and ``positions[i]`` the focal strategy's
    seat in it; every run must hold the same keys (common deals).
    """
    reference = units[0]
    for i, u in enumerate(units[1:], start=1):
        check_joined(reference, u, f"{what} seating {i}".strip())
    n = reference.keys.shape[0]
    net = np.zeros(n)
    points = np.zeros(n)
    won = np.zeros(n)
    wins = 0
    for u, seat in zip(units, positions, strict=True):
        net += u.net(seat)
        points += u.points[:, seat]
        hit = u.won(seat)
        won += hit
        wins += int(np.count_nonzero(hit))
    k = len(units)
    return FocalSeries(reference.keys, net / k, points / k, won / k, wins, k)
