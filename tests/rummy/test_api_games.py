"""The notebook API's game figures, tables and defaults: each against a plain recount
from the folder's rows, or against what the command plays for the same request."""

from __future__ import annotations

import re
from html.parser import HTMLParser
from pathlib import Path

import polars as pl
import pytest
from typer.testing import CliRunner

import rummy
from rummy.api import _size
from rummy.results import Estimate
from sim.cli import app
from sim.sizes import DEFAULT_DEALS
from sim.study import load_hands
from sim.study.rundir import load_games

SEATS = "greedy:knock_at=7/simple"


@pytest.fixture(scope="module")
def games(tmp_path_factory: pytest.TempPathFactory) -> rummy.results.PlayResult:
    out = tmp_path_factory.mktemp("games")
    return rummy.play(SEATS, rules="eaai", games=40, seed=3, out=out, progress=False)


def test_games_won_and_net_score_are_a_recount_of_the_game_rows(
    games: rummy.results.PlayResult,
) -> None:
    rows = load_games(games.directory).collect()
    assert games.count == rows.height == 40 and games.mode == "games"
    for seat in games.seats:
        assert seat.games_won is not None and seat.net_score is not None
        won = int((rows["winner"] == seat.seat).sum())
        assert seat.games_won.value == pytest.approx(won / 40)
        assert (seat.games_won.unit, seat.games_won.n) == ("share of games", 40)
        other = 1 - seat.seat
        margin = (rows[f"score_{seat.seat}"] - rows[f"score_{other}"]).mean()
        assert seat.net_score.value == pytest.approx(margin)
        assert (seat.net_score.unit, seat.net_score.n) == ("points per game", 40)
        assert seat.win_rate.n == seat.net.n == games.hands  # hands stay per hand


def test_deals_have_no_game_figures_and_count_their_hands(tmp_path: Path) -> None:
    r = rummy.play(SEATS, deals=300, seed=4, out=tmp_path, progress=False)
    assert all(s.games_won is None and s.net_score is None for s in r.seats)
    assert r.seats[0].net.n == r.seats[0].win_rate.n == 300
    assert "games won" not in repr(r)


class _Cells(HTMLParser):
    """The text of every table cell of an HTML fragment."""

    def __init__(self) -> None:
        super().__init__()
        self.cells: list[str] = []
        self._in = False

    def handle_starttag(self, tag: str, attrs: object) -> None:
        self._in = tag in ("td", "th")
        if self._in:
            self.cells.append("")

    def handle_endtag(self, tag: str) -> None:
        self._in = False

    def handle_data(self, data: str) -> None:
        if self._in:
            self.cells[-1] += data


def test_a_result_shows_as_the_same_table_in_text_and_html(
    games: rummy.results.PlayResult,
) -> None:
    text = repr(games)
    assert len(text) < 800 and str(games) == text  # a table, not the raw floats
    header = text.splitlines()[1].split("  ")
    assert [h.strip() for h in header if h.strip()][:4] == [
        "seat", "strategy", "games won %", "net score/game"
    ]  # fmt: skip
    cells = _Cells()
    cells.feed(games._repr_html_())
    won = f"{games.seats[0].games_won.value * 100:.0f}"
    assert "games won %" in cells.cells and any(c.startswith(won) for c in cells.cells)
    for cell in cells.cells:  # every cell of the HTML is in the text
        assert cell in text
    assert repr(games.seats[0].games_won).startswith("Estimate(") and "n=40" in repr(
        games.seats[0].games_won
    )


def test_a_tables_cells_say_their_unit_once_in_the_header() -> None:
    share = Estimate(0.4, 0.3, 0.5, "share of games", "Wilson", n=40)
    seat = rummy.results.SeatResult(
        0, "greedy", Estimate(1, 0, 2, "points per hand"), Estimate(1, 0, 2, "points per hand"),
        Estimate(0.5, 0.4, 0.6, "share of hands"), 0.3, share,
        Estimate(5, -1, 11, "points per game"),
    )  # fmt: skip
    lines = repr(seat).splitlines()
    assert "games won %" in lines[0] and "40 [30, 50]" in lines[1]
    assert "%" not in lines[1] and "points" not in lines[1]


def test_a_single_setting_study_has_no_best_and_no_p(tmp_path: Path) -> None:
    study = rummy.play(SEATS, rules="eaai", games=10, seed=5, duplicate=True, out=tmp_path,
                       progress=False)  # fmt: skip
    assert isinstance(study, rummy.results.StudyResult)
    [setting] = study.settings
    assert setting.vs_best is None and setting.holm_p is None
    assert setting.games_won is not None and setting.games_won.unit == "share of games"
    assert "* the best" not in repr(study)


def test_duplicate_play_is_rummy_run_duplicate(tmp_path: Path) -> None:
    """The same figures as the command's one-setting study on the same seed."""
    study = rummy.play(SEATS, rules="eaai", games=12, seed=6, duplicate=True,
                       out=tmp_path / "api", progress=False)  # fmt: skip
    result = CliRunner().invoke(app, [
        "run", "--rules", "eaai", "--seats", SEATS, "--games", "12", "--seed", "6",
        "--duplicate", "--out", str(tmp_path / "cli"), "--json",
    ])  # fmt: skip
    assert result.exit_code == 0, result.output
    [folder] = (tmp_path / "cli").iterdir()
    summary = pl.read_parquet(folder / "summary.parquet").row(0, named=True)
    [setting] = study.settings
    assert setting.headline.value == pytest.approx(summary["estimate"])
    assert setting.games_won.value == pytest.approx(summary["game_win_rate"])  # type: ignore[union-attr]


def test_rule_changes_a_parameter_as_a_rule_set_would(tmp_path: Path) -> None:
    by_rule = rummy.play(SEATS, rule={"knock_limit": 7}, deals=200, seed=8, out=tmp_path,
                         progress=False)  # fmt: skip
    by_set = rummy.play(SEATS, rules=rummy.get_rules("gin", knock_limit=7), deals=200, seed=8,
                        out=tmp_path, progress=False)  # fmt: skip
    assert by_rule.raw.config["rules"]["knock_limit"] == 7
    assert load_hands(by_rule.directory).collect().equals(load_hands(by_set.directory).collect())


@pytest.mark.parametrize(
    ("rule", "message"),
    [
        ({"knock_limt": 7}, r"^rule=\{'knock_limt': 7\}: unknown rule parameter 'knock_limt'"),
        (5, r"^rule=5: give a dict of rule parameters"),
    ],
)
def test_a_bad_rule_is_one_line_naming_it(tmp_path: Path, rule: object, message: str) -> None:
    with pytest.raises(ValueError, match=message):
        rummy.play(SEATS, rule=rule, deals=10, out=tmp_path / "x", progress=False)  # type: ignore[arg-type]
    assert not (tmp_path / "x").exists()


def test_every_default_size_is_stated_once_and_the_command_says_the_same() -> None:
    for kind, deals in DEFAULT_DEALS.items():
        assert _size(kind, None, None) == (deals, "deals")
    commands = {"run": "run", "compare": "compare", "tournament": "tournament", "tune": "tune"}
    for kind, command in commands.items():
        page = CliRunner().invoke(app, [command, "--help"], env={"COLUMNS": "200"}).output
        stated = {int(n.replace(",", "")) for n in re.findall(r"default: ([\d,]+)\)", page)}
        assert DEFAULT_DEALS[kind] in stated, (command, stated)


def _command_default(path: list[str], option: str) -> object:
    """The default of a command's ``--option`` as click holds it."""
    import click
    import typer.main

    command = typer.main.get_command(app)
    for name in path:  # the groups load their commands when asked (sim.cli)
        command = command.get_command(click.Context(command), name)  # type: ignore[attr-defined]
    [param] = [p for p in command.params if option in p.opts]
    return param.default


def test_a_default_the_command_and_the_notebook_share_is_one_value() -> None:
    import inspect

    from sim.sizes import DEFAULT_SAMPLES

    advise = inspect.signature(rummy.advise).parameters["samples"].default
    assert advise == _command_default(["advise"], "--samples") == DEFAULT_SAMPLES
    chart = inspect.signature(rummy.strategy_chart).parameters["deals"].default
    assert (
        chart == _command_default(["strategy-chart", "knock"], "--deals") == DEFAULT_DEALS["chart"]
    )
