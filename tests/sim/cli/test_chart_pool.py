"""``rummy strategy-chart pool``: a chart with a card for each number of players a pool
may have left, its file, its card, and its refusals."""

from __future__ import annotations

import json
from pathlib import Path

from typer.testing import CliRunner

from sim.cli import app
from strategies import parse_seat
from strategies.chart import CARD_FIELDS, layer_card
from strategies.chart_files import load_chart_file, shipped_chart
from tests.sim.cli.test_chart_cmd import one_line_error

cli = CliRunner()
FOUR = ["strategy-chart", "pool", "chart:knock-rummy-4p"]


def test_a_pool_chart_holds_each_card_and_the_first_charts_header(tmp_path: Path) -> None:
    out = tmp_path / "pool.chart"
    made = cli.invoke(app, [*FOUR, "--left", "2=chart:gin-free", "--out", str(out)])
    one_line_error(made, "--left '2=chart:gin-free': unknown chart 'gin-free'")  # nothing written
    assert not out.exists()
    left = ["--left", "3=chart:knock-rummy-3p", "--left", "2=chart:knock-rummy-2p"]
    made = cli.invoke(app, [*FOUR, *left, "--out", str(out), "--json"])
    assert made.exit_code == 0, made.output
    said = json.loads(made.stdout)
    assert said["left"] == {"2": "chart:knock-rummy-2p", "3": "chart:knock-rummy-3p"}
    written = load_chart_file(out)
    assert written.spec == said["spec"]
    assert written.header == shipped_chart("knock-rummy-4p").header
    params = parse_seat(f"chart:file={out}")[1]
    assert params == parse_seat(said["spec"])[1]
    own = parse_seat("chart:knock-rummy-4p")[1]
    for n, chart in ((2, "chart:knock-rummy-2p"), (3, "chart:knock-rummy-3p"), (4, None)):
        # each layer is that chart's own card; with 4 players the first chart's plays
        card, want = layer_card(params, n), parse_seat(chart)[1] if chart else own
        assert (card is None) == (chart is None)
        assert all(getattr(card or params, f) == getattr(want, f) for f, _ in CARD_FIELDS)


def test_the_card_of_a_pool_chart_names_the_shipped_cards(tmp_path: Path) -> None:
    """The shipped 6-player card plays the 5- to 2-player cards as players go out, and
    says so by name; a card for fewer players that is no shipped chart is written out."""
    shown = cli.invoke(app, ["strategy-chart", "card", "chart:knock-rummy-6p", "--json"])
    assert shown.exit_code == 0, shown.output
    assert json.loads(shown.stdout)["left"] == [
        f"With {n} players left: play the card chart:knock-rummy-{n}p." for n in (5, 4, 3, 2)
    ]
    out = tmp_path / "odd.chart"
    made = cli.invoke(app, [*FOUR, "--left", "2=chart:k1=3", "--out", str(out)])
    assert made.exit_code == 0, made.output
    shown = cli.invoke(app, ["strategy-chart", "card", f"chart:file={out}", "--json"])
    three, rule = json.loads(shown.stdout)["left"]  # the 4-player card's own layer for 3 stays
    assert three == "With 3 players left: play the card chart:knock-rummy-3p."
    assert rule.startswith("With 2 players left: Knock: Turn 1: knock with 1 or less. Turns 2 ")
    assert "Discard: Throw the card that leaves the least deadwood" in rule
    gin = cli.invoke(app, ["strategy-chart", "card", "chart:gin", "--json"])
    assert json.loads(gin.stdout)["left"] == []  # no layers: no section
    assert (
        "As players go out" not in cli.invoke(app, ["strategy-chart", "card", "chart:gin"]).stdout
    )


def test_refusals_are_one_line_and_write_nothing(tmp_path: Path) -> None:
    out = tmp_path / "pool.chart"
    cases = [
        (["--left", "4=chart:knock-rummy-3p"], "2 to 3 (fewer than the chart's 4)"),
        (["--left", "1=chart:knock-rummy-2p"], "write N=CHART with N players left, 2 to 3"),
        (["--left", "chart:knock-rummy-2p"], "write N=CHART"),
        (["--left", "3=chart:knock-rummy-2p"], "chart:knock-rummy-2p was made for knock-rummy "
         "(2 players, Knock Rummy scoring, knock limit none), not for knock-rummy (3 players"),
        (["--left", "2=chart:gin"], "the card for 2 players left plays those rules"),
        (["--left", "2=greedy"], "'greedy' is not a chart"),
        (["--left", "2=chart:knock-rummy-2p", "--left", "2=chart:knock-rummy-2p"],
         "2 players left is given twice"),
    ]  # fmt: skip
    for left, expected in cases:
        one_line_error(cli.invoke(app, [*FOUR, *left, "--out", str(out)]), expected)
    spelt = cli.invoke(app, ["strategy-chart", "pool", "chart:k1=3", "--left",
                             "2=chart:knock-rummy-2p", "--out", str(out)])  # fmt: skip
    one_line_error(spelt, "give chart:NAME or chart:file=PATH of a chart file with a header")
    assert not out.exists()
