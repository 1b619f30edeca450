"""The focal seat's values per unit (``sim/study/units.py``) against plain recounts of
the rows: every study compares these series, so they are checked here on their own."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import polars as pl
import pytest

from sim.study.execute import Executor, run
from sim.study.rundir import load_games, load_hands
from sim.study.runs import RunConfig
from sim.study.units import Units, focal_series, load_units, position

SEED = 20261207


def _run(tmp: Path, mode: str, lineup: tuple[str, ...], count: int, chunk: int) -> Path:
    cfg = RunConfig(
        experiment="units", rules="gin" if len(lineup) == 2 else "knock-rummy",
        lineup=lineup, count=count, seed=SEED, chunk_size=chunk, out=tmp, mode=mode,
        command="pytest",
    )  # fmt: skip
    return Path(str(run(cfg, Executor(workers=1)).run_dir))


@pytest.fixture(scope="module")
def deals_run(tmp_path_factory: pytest.TempPathFactory) -> Path:
    # several chunks, so that the parts' order is what puts the rows in key order
    return _run(tmp_path_factory.mktemp("units"), "deals", ("greedy", "simple"), 700, 150)


def _recount(frame: pl.DataFrame, keys: list[str], points: list[str]) -> tuple:
    """Keys, points and winner of the rows sorted by ``keys``, as plain lists."""
    rows = frame.sort(keys)
    key_rows = [tuple(r) for r in rows.select(keys).iter_rows()]
    return key_rows, [list(r) for r in rows.select(points).iter_rows()], rows["winner"].to_list()


def test_deal_units_are_the_rows_in_key_order(deals_run: Path) -> None:
    units = load_units(deals_run, "deals", 2)
    frame = load_hands(deals_run).collect()
    keys, points, winner = _recount(frame, ["game", "deal"], ["points_0", "points_1"])
    assert [tuple(k) for k in units.keys.tolist()] == keys
    assert units.points.tolist() == points
    assert units.winner.tolist() == winner
    assert len(keys) == 700


def test_game_units_are_the_rows_in_key_order(tmp_path: Path) -> None:
    run_dir = _run(tmp_path, "games", ("greedy", "simple"), 9, 4)
    units = load_units(run_dir, "games", 2)
    keys, points, winner = _recount(load_games(run_dir).collect(), ["game"], ["score_0", "score_1"])
    assert units.keys[:, 0].tolist() == [k[0] for k in keys]
    assert units.keys[:, 1].tolist() == [0] * 9
    assert units.points.tolist() == points
    assert units.winner.tolist() == winner


def test_rows_out_of_order_are_sorted(deals_run: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Rows read in another order (not what a finished run's parts give) come back in
    key order all the same."""
    import sim.study.units as U

    shuffled = np.random.default_rng(1).permutation(700)
    real = U.load_hands
    monkeypatch.setattr(U, "load_hands", lambda d: real(d).collect()[shuffled].lazy())
    assert not U._in_key_order(np.asarray(shuffled), np.zeros(700, np.int64))
    units = load_units(deals_run, "deals", 2)
    monkeypatch.undo()
    ordered = load_units(deals_run, "deals", 2)
    assert np.array_equal(units.keys, ordered.keys)
    assert np.array_equal(units.points, ordered.points)
    assert np.array_equal(units.winner, ordered.winner)


@pytest.mark.parametrize(
    ("game", "deal", "ordered"),
    [
        ([0, 0, 1, 2], [0, 1, 0, 0], True),
        ([0, 0, 1], [1, 0, 0], False),  # a deal before the one above it, in one game
        ([1, 0], [0, 0], False),
        ([5], [3], True),
        ([], [], True),
    ],
)
def test_key_order(game: list[int], deal: list[int], ordered: bool) -> None:
    from sim.study.units import _in_key_order

    assert _in_key_order(np.array(game, np.int64), np.array(deal, np.int64)) is ordered


def test_sorted_orders_by_game_then_deal() -> None:
    keys = np.array([[1, 0], [0, 1], [2, 0], [0, 0]], np.int64)
    units = Units(keys, np.arange(8, dtype=np.float64).reshape(4, 2), np.arange(4)).sorted()
    assert units.keys.tolist() == [[0, 0], [0, 1], [1, 0], [2, 0]]
    assert units.points.tolist() == [[6, 7], [2, 3], [0, 1], [4, 5]]  # each row kept whole
    assert units.winner.tolist() == [3, 1, 0, 2]


def _plain_net(points: list[float], seat: int) -> float:
    others = [p for k, p in enumerate(points) if k != seat]
    return points[seat] - sum(others) / len(others) if others else points[seat]


@pytest.mark.parametrize("players", [1, 2, 3, 6])
def test_net_is_own_points_less_the_others_mean(players: int) -> None:
    rng = np.random.default_rng(players)
    points = rng.integers(-200, 200, size=(50, players)) / 60  # engine units as points
    units = Units(np.zeros((50, 2), np.int64), points, np.zeros(50, np.int64))
    for seat in range(players):
        plain = [_plain_net(row, seat) for row in points.tolist()]
        assert units.net(seat).tolist() == pytest.approx(plain, abs=1e-12)


def test_focal_series_is_the_mean_over_seatings(tmp_path: Path) -> None:
    """Two seatings of the same deals, the focal strategy in seat 0 then seat 1."""
    runs = [
        _run(tmp_path / str(r), "deals", lineup, 300, 100)
        for r, lineup in enumerate((("greedy", "simple"), ("simple", "greedy")))
    ]
    units = [load_units(d, "deals", 2) for d in runs]
    positions = [position(0, r, 2) for r in range(2)]
    series = focal_series(units, positions, "setting")
    frames = [load_hands(d).collect().sort(["game", "deal"]) for d in runs]
    net, own, won = [], [], []
    for i in range(300):
        rows = [f.row(i, named=True) for f in frames]
        seat_net = [
            r[f"points_{p}"] - r[f"points_{1 - p}"] for r, p in zip(rows, positions, strict=True)
        ]
        net.append(sum(seat_net) / 2)
        own.append(sum(r[f"points_{p}"] for r, p in zip(rows, positions, strict=True)) / 2)
        won.append(sum(r["winner"] == p for r, p in zip(rows, positions, strict=True)) / 2)
    assert series.net.tolist() == pytest.approx(net, abs=1e-12)
    assert series.points.tolist() == pytest.approx(own, abs=1e-12)
    assert series.won.tolist() == won
    assert series.wins == int(sum(won) * 2)
    assert series.seatings == 2
