"""``sim.study.experiment_store``: an experiment's tables read back (checked), foreign and
corrupted files refused, and its hands as one dataset (``scan_hands``)."""

from __future__ import annotations

import shutil
from pathlib import Path

import polars as pl
import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from sim.study.design import ExperimentError
from sim.study.execute import Executor
from sim.study.experiment import ExperimentResult, run_experiment
from sim.study.experiment_file import experiment_from_dict
from sim.study.experiment_store import load_results, scan_hands, scan_players
from sim.study.rundir import load_hands
from sim.study.tables import ResultsError


def test_foreign_and_corrupted_parquet(tmp_path: Path) -> None:
    foreign = tmp_path / "foreign.parquet"
    pq.write_table(pa.table({"x": [1, 2]}), foreign)
    with pytest.raises(ResultsError, match="not a rummy-sim result"):
        load_results(foreign)
    broken = tmp_path / "broken.parquet"
    broken.write_bytes(b"PAR1 this is not parquet")
    with pytest.raises(ResultsError, match="not a readable Parquet file"):
        load_results(broken)
    with pytest.raises(ExperimentError, match="not a results directory"):
        load_results(tmp_path)


def test_corrupted_table_in_an_experiment_directory(tiny: ExperimentResult, tmp_path: Path) -> None:
    import shutil

    copy = tmp_path / "copy"
    copy.mkdir()
    for file in tiny.directory.iterdir():
        if file.is_file():
            shutil.copy(file, copy / file.name)
    (copy / "seats.parquet").write_bytes(b"garbage")
    with pytest.raises(ResultsError, match="seats.parquet: corrupted .*--resume"):
        load_results(copy)


# --- one dataset: scan_hands ---------------------------------------------------------------------


def test_scan_hands_is_every_listed_run_with_its_labels(tiny: ExperimentResult) -> None:
    hands = scan_hands(tiny.directory).collect()
    runs = [d for s in tiny.settings for d in s.dirs]
    assert hands.height == sum(load_hands(d).collect().height for d in runs) == 800
    by_label = hands.group_by("setting", "k", "seating").len()
    by_label = by_label.with_columns(pl.col("setting").cast(pl.String)).sort("k", "seating")
    assert by_label.rows() == [
        ("k=3", 3, 0, 200), ("k=3", 3, 1, 200), ("k=10", 10, 0, 200), ("k=10", 10, 1, 200),
    ]  # fmt: skip
    first = tiny.settings[0]
    own = hands.filter((pl.col("setting") == first.label) & (pl.col("seating") == 0))
    assert own.drop("variant", "lineup", "setting", "seating", "k").equals(
        load_hands(first.dirs[0]).collect().drop("variant", "lineup", "setting", "seating", "k")
    )
    assert scan_hands(first.dirs[0]).collect().height == 200  # one run directory


def test_scan_hands_reads_only_the_runs_of_the_record(
    tiny: ExperimentResult, tmp_path: Path
) -> None:
    copy = tmp_path / "tiny"
    shutil.copytree(tiny.directory, copy)
    stale = copy / "000000000000"  # a run of an earlier version of the experiment
    shutil.copytree(tiny.settings[0].dirs[0], stale)
    assert scan_hands(copy).collect().height == 800
    part = next((copy / tiny.settings[1].dirs[0].name / "hands").glob("part-*.parquet"))
    part.write_bytes(part.read_bytes()[:-20])  # a truncated copy
    with pytest.raises(ResultsError, match="part-000000.parquet"):
        scan_hands(copy)


def test_scan_hands_of_runs_with_different_seat_counts(tmp_path: Path) -> None:
    exp = experiment_from_dict(
        {"name": "mixed", "seed": 3, "deals": 50, "seats": "greedy",
         "rules": {"preset": "knock-rummy"}, "grid": {"rule.players": [2, 3]}},
        source="mixed.toml",
    )  # fmt: skip
    result = run_experiment(exp, Executor(workers=1), out=tmp_path)
    hands = scan_hands(result.directory).collect()
    assert hands.height == 100
    two = hands.filter(pl.col("rule.players") == 2)
    assert two.height == 50 and two["points_2"].is_null().all()
    assert hands.filter(pl.col("rule.players") == 3)["points_2"].is_not_null().all()


def test_scan_hands_refuses_what_is_not_a_finished_experiment(tmp_path: Path) -> None:
    with pytest.raises(ValueError, match="no study record or run in it; give a run directory"):
        scan_hands(tmp_path)


# --- who played: strategy_k and player_k in every row, and the long view per player ---------


def test_rows_say_who_sat_where(tiny: ExperimentResult) -> None:
    """Seat k's spec is the run's line-up's k-th; in seating r seat k holds player
    (k + r) % 2 of the template greedy:knock_at={k}/simple."""
    template = ["greedy", "simple"]  # the players' strategies, without parameters
    for setting in tiny.settings:
        for run_dir, r in zip(setting.dirs, setting.rotations, strict=True):
            hands = load_hands(run_dir).collect()
            for k in range(2):
                assert hands[f"player_{k}"].unique().to_list() == [(k + r) % 2]
                [spec] = hands[f"strategy_{k}"].cast(pl.String).unique().to_list()
                assert spec.split(":")[0] == template[(k + r) % 2]
                assert spec == hands["lineup"].cast(pl.String)[0].split("/")[k]


def test_scan_players_recounts_the_headline(tiny: ExperimentResult) -> None:
    """The README's one-liner: player 0's mean net points per setting, from the long rows,
    equals the experiment's headline (computed from the runs' units, in numpy)."""
    players = scan_players(tiny.directory)
    mean = (
        players.filter(pl.col("player") == 0)
        .group_by("setting")
        .agg(pl.col("net_points").mean())
        .collect()
    )
    got = dict(zip(mean["setting"].cast(pl.String), mean["net_points"], strict=True))
    summary = tiny.data.summary
    want = dict(zip(summary["setting"], summary["estimate"], strict=True))
    assert got.keys() == want.keys()
    for label, value in want.items():
        assert got[label] == pytest.approx(value, abs=1e-9)
    rows = players.collect()
    assert rows.height == 2 * 800 and set(rows["strategy"].unique()) == {
        "greedy:knock_at=3", "greedy:knock_at=10", "simple",
    }  # fmt: skip
    assert (rows["won"] == (rows["winner"] == rows["seat"])).all()


def test_scan_players_with_different_seat_counts_is_zero_sum(tmp_path: Path) -> None:
    exp = experiment_from_dict(
        {"name": "mixed", "seed": 3, "deals": 50, "seats": "greedy/simple/greedy",
         "rules": {"preset": "knock-rummy", "players": 3}},
        source="mixed.toml",
    )  # fmt: skip
    result = run_experiment(exp, Executor(workers=1), out=tmp_path)
    rows = scan_players(result.directory).collect()
    assert rows.height == 150 and sorted(rows["seat"].unique()) == [0, 1, 2]
    net = rows.group_by("game", "deal").agg(pl.col("net_points").sum())
    assert net["net_points"].abs().max() < 1e-9  # each seat's edge over the others' mean
    hands = scan_hands(result.directory).collect()
    seat1 = rows.filter(pl.col("seat") == 1).sort("game")
    assert seat1["points"].to_list() == hands.sort("game")["points_1"].to_list()
    with pytest.raises(ValueError, match="table='cells' is not allowed"):
        scan_players(result.directory, table="cells")
