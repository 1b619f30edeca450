"""``benchmarks/bench_lineups.py`` runs as documented (tiny sizes, in this process so it
reuses the engines the suite compiles): one line per line-up that ``--case`` picks, its
hands counted as they were played. The speed itself is measured by running the script
by hand."""

from __future__ import annotations

import importlib.util
import sys
from types import SimpleNamespace

import pytest

from sim.engine import play_games
from tests.support import ROOT

_SPEC = importlib.util.spec_from_file_location(
    "bench_lineups", ROOT / "benchmarks" / "bench_lineups.py"
)
assert _SPEC is not None and _SPEC.loader is not None
bench_lineups = importlib.util.module_from_spec(_SPEC)
_SPEC.loader.exec_module(bench_lineups)

TINY = (("gin", "random/random", "deals", 40), ("gin", "greedy/greedy", "games", 3))


def test_one_line_per_picked_lineup(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setattr(bench_lineups, "CASES", TINY)
    monkeypatch.setattr(sys, "argv", ["bench_lineups.py", "--repeat", "2", "--case", "greedy"])
    bench_lineups.main()
    [line] = capsys.readouterr().out.splitlines()
    assert line.split()[:3] == ["gin", "greedy/greedy", "games"] and "hands/s" in line


def test_a_games_rate_counts_every_hand_of_the_games(monkeypatch: pytest.MonkeyPatch) -> None:
    """Games are timed by their hands, not by the games: the rate times the seconds is
    the hands the same games hold."""
    clock = iter([0.0, 2.0])  # the script's clock alone: the engine keeps the real one
    monkeypatch.setattr(bench_lineups, "time", SimpleNamespace(perf_counter=lambda: next(clock)))
    rate = bench_lineups.hands_per_second("gin", "greedy/greedy", "games", 3, seed=4)
    _, rows = play_games("gin", "greedy/greedy", games=3, seed=4, threads=1)
    assert rate * 2.0 == len(rows.number) > 3
