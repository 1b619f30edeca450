"""``rummy strategy-chart export``: tiny finished charts become a ``chart`` seat whose
masks and safety order say what the cells say; a chart of all "knock" up to k plays
greedy:knock_at=k; one-line errors for charts that do not fit."""

from __future__ import annotations

import dataclasses
import json
from pathlib import Path
from typing import Any

import polars as pl
import pytest
from typer.testing import CliRunner

from sim.cli import app
from sim.engine import play_deals
from sim.rules import get_rules
from sim.study.chart import load_chart
from sim.study.chart_seat import chart_params
from strategies import BUILTINS, format_seat, parse_seat
from strategies.chart import KNOCK_COLUMNS, knock_wanted
from strategies.chart_files import load_chart_file, made_for
from tests.sim.cli.test_chart_cmd import one_line_error
from tests.strategies.test_chart_strategy import hand_table

cli = CliRunner()
WEIGHTED = "chart:k1=1,lookahead=30,gin_chance=150"  # a chart policy with both weights
BASE = ["--deals", "200", "--samples", "2", "--seed", "3", "-w", "1", "--min-positions", "5"]


def make(out: Path, kind: str, *args: str) -> str:
    result = cli.invoke(app, ["strategy-chart", kind, *args, *BASE, "--out", str(out), "--json"])
    assert result.exit_code == 0, result.output
    return json.loads(result.stdout)["run_dir"]


@pytest.fixture(scope="module")
def runs(tmp_path_factory: pytest.TempPathFactory) -> dict[str, str]:
    out = tmp_path_factory.mktemp("charts")
    gin = ["--rules", "gin", "--seats", "greedy:knock_at=0"]
    return {
        "knock": make(out, "knock", *gin),
        "draw": make(out, "draw", *gin),
        "discard": make(out, "discard", *gin),
        "took": make(out, "discard", *gin, "--took"),
        "other_play": make(out, "draw", "--rules", "gin", "--seats", "greedy"),
        "rummy_draw": make(out, "draw", "--rules", "knock-rummy", "--players", "3"),
        "rummy_knock": make(out, "knock", "--rules", "knock-rummy", "-s", "greedy:knock_at=40"),
        "weighted": make(out, "knock", "--rules", "gin", "--seats", WEIGHTED),
    }


def export(*args: str) -> Any:
    return cli.invoke(app, ["strategy-chart", "export", *args])


def test_export_round_trips(runs: dict[str, str], tmp_path: Path) -> None:
    target = tmp_path / "gin.chart"
    result = export(runs["knock"], "--draw", runs["draw"], "--discard", runs["discard"],
                    "--out", str(target), "--json")  # fmt: skip
    assert result.exit_code == 0, result.output
    data = json.loads(result.stdout)
    written = load_chart_file(target)  # a chart file: the rules' header, then the spec
    assert dict(written.header) == made_for(get_rules("gin"))
    strategy, params = parse_seat(written.spec)
    assert strategy is BUILTINS["chart"] and data["spec"] == written.spec
    assert params._asdict() == data["params"]
    assert parse_seat(f"chart:file={target}", rules=get_rules("eaai")) == (strategy, params)

    knock = load_chart(runs["knock"])
    met = kept = 0
    for cell in knock.cells.iter_rows(named=True):
        bit = params[cell["turn"] - 1] >> cell["deadwood"] & 1
        if cell["verdict"] in ("knock", "play on"):
            met += 1
            assert bit == (cell["verdict"] == "knock"), cell
        elif cell["positions"]:  # no verdict: what the policy did (knock only with gin)
            kept += 1
            assert bit == (cell["knock_chosen"] >= 0.5) == (cell["deadwood"] == 0), cell
    draw = load_chart(runs["draw"])
    for cell in draw.cells.iter_rows(named=True):
        bit = params[20 + cell["turn"] - 1] >> cell["card"] & 1
        if cell["verdict"] in ("take", "draw"):
            met += 1
            assert bit == (cell["verdict"] == "take"), cell
        elif cell["positions"]:
            kept += 1
            assert bit == (cell["take_chosen"] >= 0.5), cell
    # Cells never met follow the policy's rule: greedy:knock_at=0 knocks only with gin.
    assert all(params[t] & 1 for t in range(20)) and not any(params[t] >> 10 & 1 for t in range(5))
    assert met > 0 and kept > 0  # both kinds of cell met, so the comparisons mean something

    order = [params.safety >> (4 * i) & 15 for i in range(13)]
    assert sorted(order) == list(range(13))
    cells = load_chart(runs["discard"]).cells.filter(pl.col("rank") < 13)
    pooled = cells.group_by("rank").agg(
        pl.col("discards").sum(), (pl.col("taken_rate") * pl.col("discards")).sum().alias("t")
    )
    rate = {r["rank"]: r["t"] / r["discards"] for r in pooled.iter_rows(named=True)}
    listed = [rate[r] for r in order if r in rate]
    assert listed == sorted(listed) and len(set(listed)) > 1

    # No draw or discard chart: the policy's own takes and discards (greedy: its pile test,
    # take bit 7, and its discard, safety 0).
    plain = export(runs["knock"])
    _, alone = parse_seat(plain.stdout.strip())
    assert alone[20:40] == (128,) * 20 and alone.safety == 0 and alone[:20] == params[:20]


def test_export_keeps_a_chart_policys_weights(runs: dict[str, str]) -> None:
    """No chart measures the discard's weights: a chart policy's own travel to its
    export, and any other policy's export has them off."""
    _, own = parse_seat(export(runs["weighted"]).stdout.strip())
    assert (own.lookahead, own.gin_chance) == (30, 150)
    _, other = parse_seat(export(runs["knock"]).stdout.strip())
    assert (other.lookahead, other.gin_chance) == (0, 0)


@pytest.mark.slow  # heavy; the default suite covers this path more cheaply
def test_a_chart_of_knocks_up_to_k_plays_greedy(runs: dict[str, str]) -> None:
    """Every cell "knock" at deadwood <= 6 and "play on" above: the knock masks are
    bits 0-6 on every turn, and with greedy's take and discard (t = 128, safety = 0)
    the seat plays every deal as greedy:knock_at=6."""
    chart = load_chart(runs["knock"])
    cells = pl.DataFrame(
        [
            # knock_chosen: the policy's own share of knocks there, here what the verdict says
            {
                "turn": t,
                "deadwood": d,
                "took": 0,
                "verdict": "knock" if d <= 6 else "play on",
                "knock_chosen": 1.0 if d <= 6 else 0.0,
            }
            for t in range(1, 21)
            for d in range(11)
        ]
    )
    params = chart_params(dataclasses.replace(chart, cells=cells))
    assert set(params[:20]) == {(1 << 7) - 1}
    seat = params._replace(**{f"t{t}": 128 for t in range(1, 21)}, safety=0)
    spec = format_seat(BUILTINS["chart"], seat)

    def table(lineup: str) -> list[tuple[int, ...]]:
        return hand_table(play_deals("gin", lineup, deals=2000, seed=5))

    assert table(spec + "/greedy") == table("greedy:knock_at=6/greedy")
    assert table(spec + "/greedy") != table("greedy:knock_at=5/greedy")


def test_knock_rummy_masks_tell_every_deadwood_to_51_apart(runs: dict[str, str]) -> None:
    """Without a knock limit the knock chart has a column for each deadwood 0 .. 50 and
    one for "51 or more"; the export knocks exactly where the cells say, high deadwood
    included, the last column for every deadwood from 51 up, and a cell never met as
    the policy (greedy:knock_at=40) does."""
    chart = load_chart(runs["rummy_knock"])
    assert chart.spec.deadwood == KNOCK_COLUMNS == 52

    def says(turn: int, d: int) -> bool:  # a threshold per turn, a hole at 33, 51+: knock
        return d <= 45 - 2 * turn and d != 33 or d == 51

    cells = pl.DataFrame(
        [
            {"turn": t, "deadwood": d, "took": 0, "knock_chosen": 1.0 * says(t, d),
             "verdict": "knock" if says(t, d) else "play on"}
            for t in range(1, 21) for d in range(52) if (t, d) != (3, 20)
        ]
    )  # fmt: skip
    params = chart_params(dataclasses.replace(chart, cells=cells))
    for t in range(1, 21):
        for d in range(99):
            want = (d <= 40) if (t, d) == (3, 20) else says(t, min(d, 51))
            assert knock_wanted(params[t - 1], d) == want, (t, d)


def test_charts_that_do_not_fit_are_refused_in_one_line(
    runs: dict[str, str], tmp_path: Path
) -> None:
    target = tmp_path / "x.chart"
    for args, expected in (
        ([runs["draw"]], "is a draw chart, not a knock chart"),
        ([runs["knock"], "--draw", runs["discard"]], "not a draw chart"),
        ([runs["knock"], "--discard", runs["took"]], "export reads charts made without --took"),
        ([runs["knock"], "--draw", runs["rummy_draw"]], "other rules"),
        ([runs["knock"], "--draw", runs["other_play"]], "another play than the knock chart"),
        ([str(tmp_path / "nothing")], "not a run directory"),
    ):
        one_line_error(export(*args, "--out", str(target)), expected)
        assert not target.exists()
    one_line_error(export(runs["knock"], "--out", str(tmp_path / "no" / "x.chart")), "--out")
    assert not (tmp_path / "no").exists()


def test_familywise_export_changes_the_policy_only_on_strong_evidence(runs: dict[str, str]) -> None:
    """As ``solve`` exports: a cell whose verdict differs from what the policy did keeps
    the policy's action unless the gain is beyond the Bonferroni bound over the chart's
    cells; cells that agree, and strong ones, are as the plain export says."""
    from sim.study.chart_seat import _familywise_z

    knock = load_chart(runs["knock"])
    plain = chart_params(knock)
    strict = chart_params(knock, familywise=True)
    z = _familywise_z(knock)
    assert z >= 1.959  # one cell with a verdict: 95% alone; more cells, a wider bound
    for cell in knock.cells.iter_rows(named=True):
        if cell["verdict"] not in ("knock", "play on") or cell["turn"] > 20:
            continue
        bit = 1 << cell["deadwood"]
        says, own = cell["verdict"] == "knock", cell["knock_chosen"] >= 0.5
        se = (cell["gain_high"] - cell["gain_low"]) / (2 * 1.96)
        strong = abs(cell["gain"]) > z * se
        want = says if (says == own or strong) else own
        assert bool(strict[cell["turn"] - 1] & bit) == want, cell
        assert bool(plain[cell["turn"] - 1] & bit) == says, cell
