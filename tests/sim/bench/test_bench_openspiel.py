"""``benchmarks/bench_openspiel.py`` runs what it says (tiny sizes): the timed ``rummy run``
is a real run whose every hand's row is written, its points a hand a plain recount of
them, and without OpenSpiel the script stops with one line before it times anything.
The speed itself is measured by running the script by hand."""

from __future__ import annotations

import importlib.util
import json
import sys
from pathlib import Path

import polars as pl
import pytest

from tests.support import ROOT

_SPEC = importlib.util.spec_from_file_location(
    "bench_openspiel", ROOT / "benchmarks" / "bench_openspiel.py"
)
assert _SPEC is not None and _SPEC.loader is not None
bench_openspiel = importlib.util.module_from_spec(_SPEC)
_SPEC.loader.exec_module(bench_openspiel)


def test_the_timed_run_writes_every_hand(tmp_path: Path) -> None:
    seconds = bench_openspiel.rummy_run_seconds(40, 3, tmp_path / "run")
    [hands] = (tmp_path / "run").glob("*/*/hands")
    rows = pl.read_parquet(hands / "*.parquet")
    assert seconds > 0 and rows.height == 40
    assert set(rows["strategy_0"]) == set(rows["strategy_1"]) == {"simple"}
    # only a hand's winner scores: the two seats' points summed are what it awarded
    assert rows.filter((pl.col("points_0") != 0) & (pl.col("points_1") != 0)).height == 0
    awarded = (rows["points_0"] + rows["points_1"]).to_list()
    points = bench_openspiel.hand_points(tmp_path / "run")
    assert points.n == 40 and points.mean == sum(awarded) / 40 > 0


def test_without_layoffs_the_run_plays_the_rule_without_them(tmp_path: Path) -> None:
    bench_openspiel.rummy_run_seconds(40, 3, tmp_path / "plain", layoff=False)
    bench_openspiel.rummy_run_seconds(40, 3, tmp_path / "usual")
    rules = {}
    for name in ("plain", "usual"):
        [manifest] = (tmp_path / name).glob("*/*/manifest.json")
        rules[name] = json.loads(manifest.read_text())["config"]["rules"]["layoff"]
    assert rules == {"plain": False, "usual": True}


def test_without_openspiel_one_line_and_nothing_timed(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    monkeypatch.setitem(sys.modules, "pyspiel", None)  # import pyspiel raises ImportError
    monkeypatch.setattr(sys, "argv", ["bench_openspiel.py"])
    monkeypatch.setattr(bench_openspiel, "rummy_run_seconds", pytest.fail)
    with pytest.raises(SystemExit, match=r"^bench_openspiel.py: OpenSpiel is not installed"):
        bench_openspiel.main()


def test_openspiel_plays_its_hands() -> None:
    pytest.importorskip("pyspiel", reason="OpenSpiel is not installed (pip install open_spiel)")
    seconds, points = bench_openspiel.openspiel_seconds(3, 1)
    assert seconds > 0 and points.n == 3 and points.mean > 0


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["--deals", "0"], "--deals 0: must be 1 or more"),
        (["--episodes", "-3"], "--episodes -3: must be 1 or more"),
        (["--core", "4096"], "--core 4096: this process may run on cores"),
    ],
)
def test_bad_sizes_are_one_line(
    argv: list[str],
    message: str,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    monkeypatch.setattr(sys, "argv", ["bench_openspiel.py", *argv])
    monkeypatch.setattr(bench_openspiel, "rummy_run_seconds", pytest.fail)
    with pytest.raises(SystemExit) as stopped:
        bench_openspiel.main()
    assert stopped.value.code == 2 and message in capsys.readouterr().err
