"""``sim.study.tournament`` and ``rummy tournament``: a round robin on common deals,
every seating; a field of more players; the spec parser; the command's options.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import polars as pl
import pytest
from typer.testing import CliRunner

from sim import store
from sim.cli import app
from sim.front import tournament as tournament_front
from sim.present.tournament import save_chart
from sim.rules import get_rules
from sim.study.execute import Executor
from sim.study.provenance import read_provenance
from sim.study.runs import RunError
from sim.study.session import Session
from sim.study.tournament import (
    TOURNAMENT_FILE,
    TournamentRequest,
    parse_strategies,
    tournament,
)
from strategies import StrategyError
from tests.support.recorder import Recorder

SEED = 20240611
ONE = Executor(workers=1)  # one worker thread
cli = CliRunner()


@pytest.fixture(scope="module")
def out(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return tmp_path_factory.mktemp("tournament")


@pytest.fixture(scope="module")
def round_robin(out: Path) -> Any:
    request = TournamentRequest("greedy,simple,defensive", 300, rules="gin", seed=SEED)
    return tournament(request, Session(ONE, out))


# --- tournament ----------------------------------------------------------------------------


def test_round_robin_matrix_is_consistent(round_robin) -> None:
    m = round_robin.matrix
    names = ["greedy", "simple", "defensive"]
    assert list(round_robin.strategies) == names and m.height == 6
    cells = {(r["player"], r["opponent"]): r for r in m.iter_rows(named=True)}
    assert set(cells) == {(i, j) for i in names for j in names if i != j}
    for (i, j), c in cells.items():
        back = cells[(j, i)]
        assert c["units"] == 300 and c["hands"] == 600
        assert c["win_rate"] + back["win_rate"] + c["no_winner_rate"] == pytest.approx(1, abs=1e-12)
        assert c["no_winner_rate"] == back["no_winner_rate"]
        assert c["net"] == -back["net"] and c["net_sd"] == back["net_sd"]
        assert c["win_low"] <= c["win_rate"] <= c["win_high"] and c["win_method"] == "Wilson"
        assert c["net_low"] <= c["net"] <= c["net_high"] and c["net_method"] == "t"
    run_dirs = [p for p in round_robin.directory.iterdir() if p.is_dir()]
    assert len(run_dirs) == 6  # 3 pairs x 2 seatings: cell (j, i) reuses (i, j)'s runs
    stored = pl.read_parquet(round_robin.directory / "matrix.parquet")
    assert stored.equals(m)
    assert read_provenance(round_robin.directory / "matrix.parquet")["table"] == "tournament_matrix"
    charts = save_chart(round_robin)
    assert sorted(p.name for p in charts) == ["matrix.png", "matrix.svg"]
    assert all(p.parent == round_robin.directory and p.stat().st_size > 0 for p in charts)
    record = json.loads((round_robin.directory / TOURNAMENT_FILE).read_text())
    assert (
        record["seed"] == SEED
        and len(record["runs"]) == 6
        and "Wilson" in record["methods"]["win_rate"]
    )


def test_more_players_play_one_against_a_field(tmp_path: Path) -> None:
    request = TournamentRequest(["greedy", "greedy:knock_at=5"], 60, "knock-rummy", seed=SEED)
    result = tournament(request, Session(ONE, tmp_path))
    assert result.players == 4 and "field of 3" in result.scheme
    assert result.matrix["hands"].to_list() == [240, 240]
    assert len([p for p in result.directory.iterdir() if p.is_dir()]) == 8  # 2 cells x 4 seats
    # the API draws no chart (sim.present.tournament.save_chart does)
    assert [p.name for p in result.directory.glob("matrix.*")] == ["matrix.parquet"]


def test_parse_strategies() -> None:
    assert parse_strategies("greedy:knock_at=7,min_gain=2,simple") == [
        "greedy:knock_at=7,min_gain=2",
        "simple",
    ]
    assert parse_strategies(["greedy,simple", "defensive/random"]) == [
        "greedy",
        "simple",
        "defensive",
        "random",
    ]
    assert parse_strategies("greedy:knock_at=-1,simple") == ["greedy", "simple"]  # default
    with pytest.raises(RunError, match="given twice"):
        parse_strategies("greedy,greedy:knock_at=-1")
    with pytest.raises(RunError, match="at least two"):
        parse_strategies("greedy")
    with pytest.raises(StrategyError, match="comes before any strategy"):
        parse_strategies("knock_at=5,greedy")
    with pytest.raises(StrategyError, match="unknown parameter"):
        parse_strategies("greedy:nope=1,simple")


def test_cli_tournament_passes_options_and_prints_cis(monkeypatch, round_robin) -> None:
    fake = Recorder(round_robin)
    monkeypatch.setattr(tournament_front, "tournament", fake)
    result = cli.invoke(
        app,
        ["tournament", "-s", "greedy,simple", "-s", "defensive", "--rules", "gin",
         "-r", "knock_limit=9", "--deals", "77", "--seed", "4", "--no-chart", "--workers", "1"],
    )  # fmt: skip
    assert result.exit_code == 0, result.output
    wanted = TournamentRequest(
        ["greedy,simple", "defensive"], 77, get_rules("gin", knock_limit=9), "deals", 4
    )
    request, session = fake.args
    assert request == wanted
    assert (session.executor, session.out) == (ONE, store.location("results"))
    out = result.stdout
    assert "chart:" not in out  # --no-chart: none drawn
    assert "Wilson CI" in out and "t CI" in out and "—" in out
    cell = round_robin.matrix.row(0, named=True)
    assert f"{cell['win_rate'] * 100:.1f}%" in out

    result = cli.invoke(app, ["tournament", "-s", "greedy,simple", "--json"])
    data = json.loads(result.stdout)
    assert len(data["matrix"]) == 6 and data["methods"]["win_rate"].startswith("95% Wilson")
    assert data["charts"] == [str(round_robin.directory / f"matrix.{x}") for x in ("png", "svg")]
