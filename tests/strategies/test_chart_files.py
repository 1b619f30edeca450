"""A ``chart`` seat by name or by file (``strategies/chart_files.py``): the grammar, the
file format and its header, the check against the study's rules, and how such a seat
is shown (``strategies.seat_label``). No deal is played here (tests/sim/cli/
test_chart_seats.py plays them)."""

from __future__ import annotations

from pathlib import Path

import pytest

from sim.rules import get_rules, house_rules
from strategies import (
    StrategyError,
    format_seat,
    lineup_labels,
    parse_lineup,
    parse_seat,
    seat_label,
    split_specs,
)
from strategies.chart_files import (
    chart_file_text,
    check_rules,
    describe_rules,
    load_chart_file,
    made_for,
    named_text,
    read_chart_text,
    shipped_chart,
    shipped_names,
)

GIN = shipped_chart("gin").spec  # spelt out


def write(path: Path, text: str) -> str:
    path.write_text(text)
    return str(path)


# --- seats by name and by file --------------------------------------------------------------


def test_a_name_seats_the_shipped_parameters() -> None:
    assert parse_seat("chart:gin") == parse_seat(GIN)
    assert format_seat(*parse_seat("chart:gin")) == format_seat(*parse_seat(GIN))


def test_items_after_the_name_override_its_values() -> None:
    _, params = parse_seat("chart:gin,lookahead=0,t1=1")
    _, own = parse_seat("chart:gin")
    assert params == own._replace(lookahead=0, t1=1)
    assert params.lookahead == 0 and own.lookahead == 30  # the gin chart's own weight
    with pytest.raises(StrategyError, match="given twice"):
        parse_seat("chart:gin,lookahead=0,lookahead=1")
    with pytest.raises(StrategyError, match="unknown parameter 'nope'"):
        parse_seat("chart:gin,nope=1")


def test_a_file_seats_its_parameters(tmp_path: Path) -> None:
    headed = write(tmp_path / "mine.chart", chart_file_text(GIN, get_rules("gin")))
    bare = write(tmp_path / "old.chart", GIN + "\n")  # a file written before headers
    assert parse_seat(f"chart:file={headed}") == parse_seat(GIN)
    assert parse_seat(f"chart:file={bare}") == parse_seat(GIN)
    assert load_chart_file(bare).header == {}
    assert dict(load_chart_file(headed).header) == made_for(get_rules("gin"))
    _, params = parse_seat(f"chart:file={headed},gin_chance=0")
    assert params.gin_chance == 0


def test_a_path_reads_on_over_slashes_to_its_chart_suffix(tmp_path: Path) -> None:
    assert split_specs("chart:file=results/solve/x/final.chart/simple") == [
        "chart:file=results/solve/x/final.chart",
        "simple",
    ]
    assert split_specs("chart:file=a/b.chart,lookahead=0/simple,greedy:knock_at=5") == [
        "chart:file=a/b.chart,lookahead=0",
        "simple",
        "greedy:knock_at=5",
    ]
    assert split_specs("chart:file='my charts/gin'/simple") == [
        "chart:file='my charts/gin'",
        "simple",
    ]
    assert split_specs("chart:gin/simple") == ["chart:gin", "simple"]
    path = write(tmp_path / "deep.chart", GIN)
    seats = parse_lineup(f"chart:file={path}/simple", 2)
    assert seats[0] == parse_seat(GIN) and seats[1][0].name == "simple"


def test_a_spec_parameter_holds_the_charts_parameters() -> None:
    """``mc:rollout=chart:gin``: the value is the spec spelt out (a run's identity must not
    depend on a file read again later), shown by its label."""
    strategy, params = parse_seat("mc:rollout=chart:gin")
    assert parse_seat(params.rollout) == parse_seat(GIN)
    canonical = format_seat(*parse_seat(GIN))
    assert format_seat(strategy, params) == f"mc:rollout='{canonical}'"
    assert seat_label("mc:rollout=chart:gin") == "mc:rollout=chart#9ed9305e"


# --- the file format ------------------------------------------------------------------------


def test_every_shipped_chart_has_a_full_header() -> None:
    assert shipped_names()[:4] == ("gin", "gin-classic", "gin-lookahead", "gin-plain")
    assert shipped_names()[-1] == "oklahoma-gin"
    for name in shipped_names():
        keys = {"rules", "players", "scoring", "knock_limit"}
        house = {"house"} if name.count("-") > 2 else set()  # knock-rummy-4p-undercut-0
        header = shipped_chart(name).header
        # reached: where the solve's final play met no later turn (Knock Rummy's cards)
        assert set(header) - {"reached"} == keys | house, name


def test_house_rules_are_written_and_shown() -> None:
    """Rules that differ from their preset (but for the player count) say so in a
    ``house`` line, shown in the chart's description; a chart is refused under rules
    that set those otherwise."""
    rules = get_rules("knock-rummy", players=3, undercut_penalty=0, rummy_bonus=50)
    assert house_rules(rules) == {"undercut_penalty": 0, "rummy_bonus": 50}
    assert house_rules(get_rules("knock-rummy", players=3)) == {}
    text = chart_file_text(GIN, rules, house_rules(rules))
    chart = read_chart_text(text, "x")
    assert chart.header["house"] == "rummy_bonus=50, undercut_penalty=0"  # the rules' order
    assert describe_rules(chart.header) == (
        "knock-rummy with rummy_bonus=50, undercut_penalty=0 (3 players, Knock Rummy "
        "scoring, knock limit none)"
    )
    check_rules(chart, "x", rules)
    check_rules(chart, "x", get_rules("knock-rummy", players=3, **house_rules(rules), wall=4))
    with pytest.raises(StrategyError) as err:
        check_rules(chart, "x", get_rules("knock-rummy", players=3, rummy_bonus=50))
    assert str(err.value) == (
        "x was made for knock-rummy with rummy_bonus=50, undercut_penalty=0 (3 players, Knock "
        "Rummy scoring, knock limit none), not for the study's rules knock-rummy (3 players, "
        "Knock Rummy scoring, knock limit none): its undercut_penalty differs"
    )


def test_the_turn_a_solve_reached_is_written_read_and_checked() -> None:
    """``reached`` (a solve's final play met no turn after it) round-trips; a value that
    is no own turn is refused in one line naming it."""
    rules = get_rules("knock-rummy", players=4)
    chart = read_chart_text(chart_file_text(GIN, rules, reached=4), "x")
    assert chart.header["reached"] == "4" and "reached" not in describe_rules(chart.header)
    assert "reached" not in read_chart_text(chart_file_text(GIN, rules), "x").header
    for bad in ("0", "four", "-1"):
        with pytest.raises(StrategyError) as err:
            read_chart_text(f"# reached: {bad}\n{GIN}\n", "x")
        assert str(err.value) == (
            f"x is not a chart file: its header's reached is {bad!r} (an own turn, 1 or more)"
        )


def test_the_header_round_trips() -> None:
    for preset, players in (("gin", 2), ("oklahoma-gin", 2), ("knock-rummy", 4)):
        rules = get_rules(preset, players=players)
        text = chart_file_text(GIN, rules)
        assert text.endswith(GIN + "\n") and text.count("\n") == 6
        chart = read_chart_text(text, "x")
        assert chart.spec == GIN and dict(chart.header) == made_for(rules)
    assert made_for(get_rules("oklahoma-gin"))["knock_limit"] == "upcard"
    assert made_for(get_rules("knock-rummy"))["knock_limit"] == "none"


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("", "holds 0 lines that are not comments"),
        ("# rules: gin\n", "holds 0 lines"),
        (f"{GIN}\n{GIN}\n", "holds 2 lines"),
        ("greedy:knock_at=0\n", "is not a chart seat spec"),
        ("hello\n", "is not a chart seat spec"),
        ("chart:gin\n", "names another chart"),
        (f"# players: two\n{GIN}\n", "its header's players is 'two' (2 to 6)"),
        (f"# scoring: poker\n{GIN}\n", "its header's scoring is 'poker' (gin or knock)"),
        (f"# knock_limit: ten\n{GIN}\n", "knock_limit is 'ten'"),
    ],
)
def test_not_a_chart_file(text: str, expected: str) -> None:
    with pytest.raises(StrategyError, match="is not a chart file") as caught:
        read_chart_text(text, "chart:file=x.chart")
    assert expected in str(caught.value) and "\n" not in str(caught.value)


def test_other_comments_are_comments() -> None:
    chart = read_chart_text(f"# made by hand\n#players: 2\n\n# note: kept\n{GIN}\n", "x")
    assert chart.header == {"players": "2"} and chart.spec == GIN


# --- bad seats: one line each ---------------------------------------------------------------


def test_bad_seats_are_one_line(tmp_path: Path) -> None:
    other = write(tmp_path / "notes.chart", "some notes\n")
    bad = write(tmp_path / "bad.chart", "chart:k1=-1\n")
    binary = tmp_path / "binary.chart"
    binary.write_bytes(b"\xff\xfe\x00chart")
    cases = {
        "chart:nosuch": "unknown chart 'nosuch'; the shipped charts: gin, gin-classic,",
        "chart:file=missing.chart": "chart:file=missing.chart: no such file",
        f"chart:file={tmp_path}": "is a folder, not a chart file",
        f"chart:file={other}": "is not a chart file: its line 'some notes'",
        f"chart:file={binary}": "is not a chart file: not text",
        f"chart:file={bad}": "is not a chart file: bad value for chart parameter 'k1'",
        "chart:file=": "write file=PATH",
    }
    for spec, expected in cases.items():
        with pytest.raises(StrategyError) as caught:
            parse_seat(spec)
        assert expected in str(caught.value) and "\n" not in str(caught.value), spec


# --- made for the study's rules -------------------------------------------------------------


def test_a_chart_under_rules_it_was_made_for() -> None:
    """Another preset of the same players, scoring and knock limit passes: the Gin chart
    under ``eaai`` (the EAAI challenge's rules, other bonuses and game rules)."""
    for preset in ("gin", "eaai", "gin-classic", "hollywood-gin"):
        parse_lineup("chart:gin/simple", 2, rules=get_rules(preset))
    parse_lineup("chart:knock-rummy-4p", 4, rules=get_rules("knock-rummy", players=4))
    parse_lineup("chart:knock-rummy-4p", 4, rules=get_rules("knock-rummy-turnover", players=4))


@pytest.mark.parametrize(
    ("spec", "preset", "players", "differs"),
    [
        ("chart:gin", "oklahoma-gin", 2, "its knock limit differs"),
        ("chart:gin", "straight-gin", 2, "its knock limit differs"),
        ("chart:gin", "knock-rummy", 2, "its scoring and knock limit differ"),
        ("chart:knock-rummy-2p", "knock-rummy", 4, "its player count differs"),
        ("chart:knock-rummy-4p", "threshold-knock", 4, "its knock limit differs"),
        ("chart:oklahoma-gin", "gin", 2, "its knock limit differs"),
    ],
)
def test_a_chart_under_other_rules_is_refused(
    spec: str, preset: str, players: int, differs: str
) -> None:
    rules = get_rules(preset, players=players)
    with pytest.raises(StrategyError) as caught:
        parse_lineup(spec, players, rules=rules)
    message = str(caught.value)
    assert message.startswith(f"{spec} was made for ") and "\n" not in message
    assert f"not for the study's rules {preset} ({players} players" in message
    assert message.endswith(differs)


def test_a_file_is_checked_by_its_header_and_shown_by_its_name(tmp_path: Path) -> None:
    knock = write(tmp_path / "k.chart", chart_file_text(GIN, get_rules("knock-rummy", players=2)))
    bare = write(tmp_path / "bare.chart", GIN)
    with pytest.raises(StrategyError, match=r"^chart:file=k\.chart was made for knock-rummy"):
        parse_seat(f"chart:file={knock}", rules=get_rules("gin"))
    parse_seat(f"chart:file={bare}", rules=get_rules("knock-rummy", players=2))  # no header
    parse_seat(GIN, rules=get_rules("oklahoma-gin"))  # spelt out: not checked


# --- labels ---------------------------------------------------------------------------------


def test_labels() -> None:
    assert seat_label("chart:gin") == "chart:gin"
    assert seat_label("chart:gin,lookahead=0") == "chart:gin,lookahead=0"
    assert seat_label("chart:gin,lookahead=30") == "chart:gin"  # its own value: no change
    assert seat_label(GIN) == "chart#9ed9305e"  # spelt out: 8 hex of the values that play
    assert seat_label(format_seat(*parse_seat("chart:gin"))) == "chart#9ed9305e"
    assert seat_label("chart:lookahead=30") == "chart:lookahead=30"  # short: itself
    assert seat_label("chart") == "chart"
    assert seat_label("greedy:knock_at=7,min_gain=1") == "greedy:knock_at=7"  # canonical
    assert lineup_labels("chart:gin/simple", 2) == ["chart:gin", "simple"]
    assert lineup_labels("chart:gin-plain", 3) == ["chart:gin-plain"] * 3


def test_a_file_is_shown_by_its_file_name(tmp_path: Path) -> None:
    path = write(tmp_path / "final.chart", GIN)
    assert seat_label(f"chart:file={path}") == "chart:file=final.chart"
    assert seat_label(f"chart:file={path},gin_chance=0") == "chart:file=final.chart,gin_chance=0"
    assert named_text(f"chart:file={path},lookahead={{w}}") == "chart:file=final.chart"
    assert named_text("chart:gin,lookahead={w}") == "chart:gin"
    assert named_text(GIN) is None and named_text("greedy") is None
