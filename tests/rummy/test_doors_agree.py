"""The command's ``--json`` and the notebook's result of the same study hold the same
figures in the same units: each study kind played once through each door, same seed;
and ``rummy.load`` of the study's folder gives back the notebook's result."""

from __future__ import annotations

import dataclasses
import json
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

import rummy
from rummy.results import Estimate
from sim.cli import app
from sim.front.chart import finite

SEATS = "greedy:knock_at=7/simple"


def _json(args: list[str], out: Path) -> dict[str, Any]:
    result = CliRunner().invoke(app, [*args, "--out", str(out), "--json"])
    assert result.exit_code == 0, result.output
    record: dict[str, Any] = json.loads(result.stdout)
    return record


def _same(estimate: Estimate, figure: float, unit: str) -> None:
    assert estimate.value == pytest.approx(figure) and estimate.unit == unit


def _loads_back(result: Any) -> None:
    """``rummy.load`` of the result's folder holds every figure of the result (all but
    ``raw``: the driver's result there, the record or the data read back here), and
    loading writes nothing."""
    files = sorted((p, p.stat().st_mtime_ns) for p in Path(result.directory).rglob("*"))
    loaded = rummy.load(result.directory)
    assert type(loaded) is type(result)
    for field in dataclasses.fields(result):
        if field.name in ("raw", "notes"):
            continue
        mine, theirs = getattr(result, field.name), getattr(loaded, field.name)
        if hasattr(mine, "equals"):  # a polars frame
            assert mine.equals(theirs), field.name
        elif hasattr(mine, "to_dict"):  # a chart's check: what its record keeps
            assert mine.to_dict() == theirs.to_dict(), field.name
        else:
            assert mine == theirs, field.name
    assert sorted((p, p.stat().st_mtime_ns) for p in Path(result.directory).rglob("*")) == files


@pytest.mark.parametrize("mode", ["deals", "games"])
def test_run(tmp_path: Path, mode: str) -> None:
    size = {"deals": 300} if mode == "deals" else {"games": 12}
    record = _json(["run", "--rules", "eaai", "--seats", SEATS, f"--{mode}", str(*size.values()),
                    "--seed", "3"], tmp_path / "cli")  # fmt: skip
    result = rummy.play(SEATS, rules="eaai", seed=3, out=tmp_path / "api", progress=False, **size)
    units = record["units"]
    for seat, row in zip(result.seats, record["seats"], strict=True):
        _same(seat.net, row["net"], units["net"])
        _same(seat.points, row["points"], units["points"])
        _same(seat.win_rate, row["win_rate"], units["win_rate"])
        if mode == "games":
            assert seat.games_won is not None and seat.net_score is not None
            _same(seat.games_won, row["game_win_rate"], units["game_win_rate"])
            _same(seat.net_score, row["net_score"], units["net_score"])
    for row in record["outcomes"]:
        _same(result.outcomes[row["outcome"]], row["share"], units["share"])
    _loads_back(result)


@pytest.mark.parametrize("mode", ["deals", "games"])
def test_sweep(tmp_path: Path, mode: str) -> None:
    size = {"deals": 300} if mode == "deals" else {"games": 8}
    record = _json(["sweep", "--rules", "eaai", "--seats", "greedy:knock_at={k}/simple", "--grid",
                    "k=0,9", f"--{mode}", str(*size.values()), "--seed", "4", "--name", "s"],
                   tmp_path / "cli")  # fmt: skip
    study = rummy.sweep("greedy:knock_at={k}/simple", {"k": [0, 9]}, rules="eaai", seed=4,
                        name="s", out=tmp_path / "api", progress=False, **size)  # type: ignore[arg-type]  # fmt: skip
    units = record["units"]
    for setting, row in zip(study.settings, record["summary"], strict=True):
        _same(setting.headline, row["estimate"], units["estimate"])
        _same(setting.win_rate, row["win_rate"], units["win_rate"])
        if setting.vs_best is not None:
            _same(setting.vs_best, row["diff_vs_best"], units["diff_vs_best"])
        if mode == "games":
            assert setting.games_won is not None
            _same(setting.games_won, row["game_win_rate"], units["game_win_rate"])
    _loads_back(study)
    # one front: the folder each door wrote holds the same files, charts and report too
    cli_files = sorted(
        p.relative_to(tmp_path / "cli" / "s") for p in (tmp_path / "cli" / "s").rglob("*")
    )
    api_files = sorted(
        p.relative_to(tmp_path / "api" / "s") for p in (tmp_path / "api" / "s").rglob("*")
    )
    assert Path("report.html") in api_files and cli_files == api_files


@pytest.mark.parametrize("mode", ["deals", "games"])
def test_compare(tmp_path: Path, mode: str) -> None:
    size = {"deals": 300} if mode == "deals" else {"games": 8}
    record = _json(["compare", "--rules", "eaai", "--seats", SEATS, "--vs-seats", "simple/simple",
                    f"--{mode}", str(*size.values()), "--seed", "5"], tmp_path / "cli")  # fmt: skip
    c = rummy.compare(SEATS, "simple/simple", rules="eaai", seed=5, out=tmp_path / "api",
                      progress=False, **size)  # type: ignore[arg-type]  # fmt: skip
    units = record["units"]
    _same(c.a_net, record["a"]["net"]["estimate"], units["net"])
    _same(c.b_net, record["b"]["net"]["estimate"], units["net"])
    _same(c.difference, record["difference"]["estimate"], units["difference"])
    _same(c.win_difference, record["win_difference"]["estimate"], units["win_difference"])
    _loads_back(c)


@pytest.mark.parametrize("mode", ["deals", "games"])
def test_tournament(tmp_path: Path, mode: str) -> None:
    size = {"deals": 200} if mode == "deals" else {"games": 6}
    record = _json(["tournament", "--rules", "eaai", "--strategies", "greedy,simple",
                    f"--{mode}", str(*size.values()), "--seed", "6"], tmp_path / "cli")  # fmt: skip
    t = rummy.tournament("greedy,simple", rules="eaai", seed=6, out=tmp_path / "api",
                         progress=False, **size)  # type: ignore[arg-type]  # fmt: skip
    units = record["units"]
    for row in record["matrix"]:
        pair = t.pairing(row["player"], row["opponent"])
        _same(pair.net, row["net"], units["net"])
        _same(pair.win_rate, row["win_rate"], units["win_rate"])
    _loads_back(t)


def test_tune(tmp_path: Path) -> None:
    record = _json(["tune", "greedy", "--param", "knock_at=0..8:8", "--against", "simple",
                    "--deals", "300", "--seed", "7"], tmp_path / "cli")  # fmt: skip
    tuned = rummy.tune("greedy", ["knock_at=0..8:8"], against="simple", deals=300, seed=7,
                       out=tmp_path / "api", progress=False)  # fmt: skip
    units = record["units"]
    assert tuned.best == record["best"]["params"]
    _same(tuned.best_value, record["best"]["estimate"], units["best"])
    _same(tuned.vs_default, record["vs_default"]["estimate"], units["vs_default"])
    _loads_back(tuned)


def _files(folder: Path) -> list[Path]:
    return sorted(p.relative_to(folder) for p in folder.rglob("*") if p.is_file())


def test_strategy_chart(tmp_path: Path) -> None:
    tiny = {"deals": 400, "samples": 2, "per_cell": 0, "turns": 4, "pilot": 400, "seed": 8,
            "check": 1, "check_deals": 100}  # fmt: skip
    args = [f"--{k.replace('_', '-')}={v}" for k, v in tiny.items()]
    record = _json(["strategy-chart", "knock", "--seats", "greedy:knock_at=0", *args],
                   tmp_path / "cli")  # fmt: skip
    chart = rummy.strategy_chart("greedy:knock_at=0", out=tmp_path / "api", progress=False,
                                 **tiny)  # type: ignore[arg-type]  # fmt: skip
    assert record["units"] == chart.units and set(chart.units) <= set(chart.cells.columns)
    as_json = lambda value: json.loads(json.dumps(finite(value)))  # noqa: E731
    assert record["cells"] == as_json(chart.cells.to_dicts())
    assert chart.check is not None and record["check"] == as_json(chart.check.to_dict())
    # one front: each door's run folder holds the same files, figures and report too
    cli_run, api_run = Path(record["run_dir"]), Path(chart.directory)
    assert cli_run.name == api_run.name and _files(cli_run) == _files(api_run)
    assert Path("report.html") in _files(api_run)
    _loads_back(chart)


def test_solve(tmp_path: Path) -> None:
    tiny = {"rounds": 1, "deals": 1500, "samples": 2, "per_cell": 100, "strength_deals": 300,
            "check": 1, "check_deals": 200, "seed": 9}  # fmt: skip
    args = [f"--{k.replace('_', '-')}={v}" for k, v in tiny.items()]
    record = _json(["strategy-chart", "solve", "--seats", "greedy:knock_at=0", *args],
                   tmp_path / "cli")  # fmt: skip
    solved = rummy.solve("greedy:knock_at=0", out=tmp_path / "api", progress=False,
                         **tiny)  # type: ignore[arg-type]  # fmt: skip
    units = record["units"]
    assert solved.final_seat == record["final_seat"] and solved.fixed == record["fixed"]
    for mine, theirs in zip(solved.rounds, record["rounds"], strict=True):
        _same(mine["vs previous"], theirs["vs_previous"]["estimate"], units["vs_previous"])
        _same(mine["vs start"], theirs["vs_start"]["estimate"], units["vs_start"])
    _loads_back(solved)
