"""``solve``: rounds of chart and export to a fixed point, their records, resume, the fixed
point's stop, the strength measurement, and one-line refusals."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from sim.rules import get_rules
from sim.study import solve as S
from sim.study.execute import Executor
from sim.study.runs import RunError
from sim.study.session import Session
from strategies import parse_seat
from strategies.chart_files import load_chart_file

TINY = {"deals": 3000, "samples": 2, "per_cell": 100, "strength_deals": 500,
        "check_cells": 2, "check_deals": 500, "seed": 3}  # fmt: skip


def tiny_solve(rules: Any, start: str, out: Path, **kwargs) -> S.SolveResult:
    """A solve of tiny charts (``TINY``, ``kwargs`` win), on one worker."""
    request = S.SolveRequest(rules, start, **{**TINY, **kwargs})
    return S.solve(request, Session(Executor(workers=1), out))


@pytest.fixture(scope="module")
def solved(tmp_path_factory: pytest.TempPathFactory):
    out = tmp_path_factory.mktemp("solve")
    return out, tiny_solve("gin", "greedy:knock_at=0", rounds=2, out=out)


def test_rounds_records_and_final_seat(solved) -> None:
    out, result = solved
    assert 1 <= len(result.rounds) <= 2
    first = result.rounds[0]
    assert first.seat == "greedy:knock_at=0" and first.bits_changed is None
    assert first.knock_changed is None and first.vs_previous == first.vs_start
    for a, b in zip(result.rounds, result.rounds[1:], strict=False):
        assert b.seat == a.next_seat and b.knock_changed is not None
    strategy, _ = parse_seat(result.final_seat)
    assert strategy.name == "chart"
    final = load_chart_file(result.folder / "final.chart")  # a chart file: header, spec
    assert final.spec == result.final_seat and final.header["rules"] == "gin"
    record = json.loads((result.folder / "solve.json").read_text())
    assert record["final_seat"] == result.final_seat and len(record["rounds"]) == len(result.rounds)
    assert set(record["exploit"]) == {"knock", "draw"}
    assert result.largest_deviation is not None
    # Every round's charts are runs of its own, labelled with the round.
    for rd in result.rounds:
        manifest = Path(rd.charts["draw"]) / "manifest.json"
        labels = json.loads(manifest.read_text())["config"]["labels"]
        assert labels["chart_round"] == rd.index


def test_the_final_chart_says_the_last_turn_its_play_reached(tmp_path: Path) -> None:
    """4-player Knock Rummy ends its hands within a few turns: the final chart file says
    the last own turn its charts met (``reached``), recounted here from the final
    seat's chart runs (the highest round's knock and draw cells), and the card says
    which rules come from earlier rounds."""
    from sim.present.chart_card import card_text, chart_card
    from sim.study.chart import load_chart

    rules = get_rules("knock-rummy", players=4)
    result = tiny_solve(rules, "greedy:knock_at=26", rounds=1, turns=8, out=tmp_path)
    final = load_chart_file(result.folder / "final.chart")
    charts = [load_chart(p) for p in (result.folder / "charts").iterdir()]
    last_round = max(c.spec.round for c in charts)
    turns = [int(c.cells["turn"].max()) for c in charts
             if c.spec.round == last_round and c.spec.chart in ("knock", "draw")]  # fmt: skip
    assert len(turns) == 2 and max(turns) < 8
    assert final.header["reached"] == str(max(turns))
    card = card_text(chart_card(parse_seat(final.spec)[1], "final", final.header))
    assert f"ended before your turn {max(turns) + 1};" in " ".join(card.split())


def test_the_same_command_plays_nothing_again(solved, monkeypatch: pytest.MonkeyPatch) -> None:
    out, result = solved
    played = []
    real = S.strategy_chart

    def spy(*args, **kwargs):
        chart = real(*args, **kwargs)
        played.append(chart.result.chunks_run if chart.result else 0)
        return chart

    monkeypatch.setattr(S, "strategy_chart", spy)
    again = tiny_solve("gin", "greedy:knock_at=0", rounds=2, out=out)
    assert again.final_seat == result.final_seat and sum(played) == 0


def test_a_seat_that_exports_itself_is_a_fixed_point(tmp_path, monkeypatch) -> None:
    """The export of the first round's charts is the seat that made them: stop there."""
    start = "chart"  # the chart strategy's defaults
    monkeypatch.setattr(S, "chart_seat", lambda *charts, familywise: start)
    result = tiny_solve("gin", start, rounds=3, out=tmp_path)
    assert result.fixed and len(result.rounds) == 1 and result.final_seat == start


def test_head_to_head_is_antisymmetric() -> None:
    """A seat against itself gains 0 (every chair's net points sum to 0); with two
    players A against B is minus B against A (the same duplicate deals)."""
    same = S.head_to_head(get_rules("knock-rummy", players=3), "greedy", "greedy", deals=300,
                          seed=1)  # fmt: skip
    assert np.isclose(same.estimate, 0)
    rules = get_rules("gin")
    ab = S.head_to_head(rules, "greedy:knock_at=5", "simple", deals=300, seed=1)
    ba = S.head_to_head(rules, "simple", "greedy:knock_at=5", deals=300, seed=1)
    assert not np.isclose(ab.estimate, 0) and np.isclose(ab.estimate, -ba.estimate)


@pytest.mark.parametrize(
    "kwargs, message",
    [({"rounds": -1}, "rounds=-1"), ({"strength_deals": 1}, "strength_deals=1"),
     ({"start": "greedy/simple"}, "one policy in every seat")],
)  # fmt: skip
def test_bad_values_are_one_line_errors(tmp_path, kwargs, message) -> None:
    start = kwargs.pop("start", "greedy")
    with pytest.raises(RunError, match=message):
        tiny_solve("gin", start, tmp_path, **kwargs)
    assert not any(tmp_path.iterdir())


def test_an_export_seen_before_closes_a_cycle(tmp_path, monkeypatch) -> None:
    """Two seats that export each other: the rounds stop at the second, a cycle of 2."""
    a, b = "chart", "chart:k1=1"
    exports = iter([a, b, a, b])
    monkeypatch.setattr(S, "chart_seat", lambda *charts, familywise: next(exports))
    result = tiny_solve("gin", "greedy", rounds=6, out=tmp_path)
    assert [r.seat for r in result.rounds] == ["greedy", a, b]
    assert not result.fixed and result.cycle == 2 and result.final_seat == b


def test_against_a_fixed_opponent(tmp_path) -> None:
    """Every other seat plays the opponent in every round's charts; each export is
    measured against it."""
    result = tiny_solve("gin", "greedy:knock_at=0", against="simple", rounds=1, out=tmp_path)
    first = result.rounds[0]
    manifest = Path(first.charts["knock"]) / "manifest.json"
    assert json.loads(manifest.read_text())["config"]["lineup"] == ["greedy:knock_at=0", "simple"]
    assert first.vs_against is not None and np.isfinite(first.vs_against.estimate)
    with pytest.raises(RunError, match="one policy for every other seat"):
        tiny_solve("knock-rummy", "greedy", against="greedy/simple/simple/simple", out=tmp_path)


def test_a_line_up_that_never_meets_a_discard_keeps_its_own(tmp_path: Path) -> None:
    """Four seats that knock on their first turn at any deadwood: the next seat never
    draws after a discard, so the discard chart has no rows; the export keeps the
    policy's own discard (greedy's: safety 0) instead of failing."""
    result = tiny_solve("knock-rummy", "greedy:knock_at=99", rounds=1, out=tmp_path)
    strategy, params = parse_seat(result.rounds[0].next_seat)
    assert strategy.name == "chart" and params.safety == 0


def test_average_answers_the_pooled_charts(tmp_path, monkeypatch) -> None:
    """Fictitious play: each round's export is the chart seat of every round's charts so
    far pooled (cell sums added); the option names another folder, and without it the
    settings are those of a solve asked before the option existed."""
    from sim.study.chart import load_chart
    from sim.study.chart_seat import chart_seat as real_seat

    pools: list[list[int]] = []

    def recording(knock, draw, discard, familywise):
        pools.append(sorted(knock.cells["positions"].to_list()))
        return real_seat(knock, draw, discard, familywise=familywise)

    monkeypatch.setattr(S, "chart_seat", recording)
    rules = get_rules("knock-rummy", players=3)
    result = tiny_solve(rules, "greedy:knock_at=26", rounds=2, average=True, out=tmp_path)
    assert len(pools) == len(result.rounds) >= 1
    for k in range(len(result.rounds)):  # round k answered the cells of rounds 0 .. k
        totals: dict[tuple[int, int], int] = {}
        for rd in result.rounds[: k + 1]:
            cells = load_chart(rd.charts["knock"]).cells.select("turn", "deadwood", "positions")
            for turn, d, n in cells.iter_rows():
                totals[(turn, d)] = totals.get((turn, d), 0) + n
        assert pools[k] == sorted(totals.values())
    plain = tiny_solve(rules, "greedy:knock_at=26", rounds=0, out=tmp_path)
    assert plain.folder != result.folder
    assert "average" not in json.loads((plain.folder / "solve.json").read_text())["settings"]
    assert json.loads((result.folder / "solve.json").read_text())["settings"]["average"]


def test_average_never_stops_at_a_cycle(tmp_path, monkeypatch) -> None:
    """Answers to the average may come back to an earlier seat: the rounds go on."""
    a, b = "chart", "chart:k1=1"
    exports = iter([a, b, a, b])
    monkeypatch.setattr(S, "chart_seat", lambda *charts, familywise: next(exports))
    result = tiny_solve("gin", "greedy", rounds=4, average=True, out=tmp_path)
    assert [r.seat for r in result.rounds] == ["greedy", a, b, a]
    assert not result.fixed and result.cycle == 0 and result.final_seat == b
