"""``sim.study.experiment_file`` (and ``design``): experiment files, their checks and errors,
the grid's value grammar, and every shipped experiment."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from sim.study.design import ExperimentError, Variant, default_charts
from sim.study.experiment_file import (
    experiment_from_dict,
    load_experiment,
    parse_grid_values,
)
from sim.study.settings import expand
from sim.study.tune_request import is_tune_file
from tests.support import ROOT
from tests.support.experiments import GIN_SWEEP, load, write

# --- parsing -----------------------------------------------------------------------------


def test_parse_every_part(tmp_path: Path) -> None:
    exp = load(tmp_path, GIN_SWEEP)
    assert exp.name == "t" and exp.description == "a test" and exp.seed == 11
    assert (exp.mode, exp.count, exp.duplicate) == ("deals", 200, True)
    assert exp.rules == "gin" and dict(exp.rule) == {"knock_limit": 10}
    assert [v.name for v in exp.variants] == ["gin", "classic"]
    assert exp.variants[1] == Variant("classic", "gin-classic", (("big_gin_bonus", 0),))
    assert exp.grid == (("knock_at", (0, 5, 10)), ("rule.undercut_bonus", (10, 25)))
    assert exp.headline == "net_points"  # the deals default
    assert exp.threshold == "knock_at"  # detected from the grid key's name
    assert exp.charts is None
    assert default_charts(exp.meta()) == ("knock_curve", "heatmap", "outcome_mix", "hand_length")
    assert exp.n_settings == 2 * 3 * 2


def test_round_trip_through_to_dict(tmp_path: Path) -> None:
    exp = load(tmp_path, GIN_SWEEP)
    again = experiment_from_dict(json.loads(json.dumps(exp.to_dict())), source="json")
    assert again == exp


def test_defaults_name_from_file_and_games_headline(tmp_path: Path) -> None:
    exp = load_experiment(write(tmp_path, 'games = 10\nseats = "greedy/simple"\n', "my_study.toml"))
    assert exp.name == "my_study" and exp.mode == "games" and exp.headline == "net_score"
    assert exp.rules == "gin" and exp.grid == () and exp.threshold is None


def test_threshold_detected_from_the_template(tmp_path: Path) -> None:
    exp = load(
        tmp_path,
        'name = "a"\ndeals = 5\nseats = "greedy:knock_at={k}/simple"\n[grid]\nk = [1, 2]\n',
    )
    assert exp.threshold == "k"


def test_grid_value_text() -> None:
    assert parse_grid_values("0..3") == [0, 1, 2, 3]
    assert parse_grid_values("0..10:5") == [0, 5, 10]
    assert parse_grid_values("10, 25") == [10, 25]
    assert parse_grid_values("0.5,none") == [0.5, "none"]
    for bad in ("5..1", "1..x", "1,,2"):
        with pytest.raises(ValueError):
            parse_grid_values(bad)


# --- every validation error: one line, naming the file, the key and what is allowed --------

BASE = 'name = "a"\ndeals = 100\nseats = "greedy:knock_at={k}/simple"\n[grid]\nk = [1, 2]\n'

BAD = [
    (
        'name = "a"\ndeals = 1\nseats = "greedy"\ncolour = 1\n',
        "unknown key 'colour'; allowed: name,",
    ),
    ('name = "a"\ndeals = 1\n', "seats is missing"),
    ('name = "a"\nseats = "greedy"\n', "give exactly one size"),
    ('name = "a"\ndeals = 1\ngames = 1\nseats = "greedy"\n', "give exactly one size"),
    (
        'name = "a"\ndeals = 0\nseats = "greedy"\n',
        "deals = 0 is not allowed; give a whole number 1..9223372036854775807",
    ),
    ('name = "a"\ndeals = "many"\nseats = "greedy"\n', "deals = 'many' is not allowed"),
    ('name = "a/b"\ndeals = 1\nseats = "greedy"\n', "name='a/b' is not allowed; use letters"),
    ('name = "a"\nseed = -1\ndeals = 1\nseats = "greedy"\n', "seed = -1 is not allowed"),
    (
        'name = "a"\ndeals = 1\nseats = "greedy"\nrules = "nope"\n',
        "unknown preset 'nope'; choose one of: knock-rummy",
    ),
    (
        'name = "a"\ndeals = 1\nseats = "greedy"\n[rules]\npreset = "gin"\nknock_limt = 5\n',
        "unknown rule parameter 'knock_limt'; choose from: name, players",
    ),
    (
        'name = "a"\ndeals = 1\nseats = "greedy"\n[rules]\npreset = "gin"\nknock_limit = "soon"\n',
        "knock_limit takes none, upcard or a whole number",
    ),
    (
        'name = "a"\ndeals = 1\nseats = "greedy"\n[rules]\nknock_limit = 5\n',
        "rules.preset is missing",
    ),
    (
        'name = "a"\ndeals = 1\nseats = "greedy"\n[rules]\npreset = "gin"\nplayers = 3\n',
        "needs players=2",
    ),
    (
        'name = "a"\ndeals = 1\nseats = "greedee"\n',
        "unknown strategy 'greedee'; choose one of: random, greedy",
    ),
    (
        'name = "a"\ndeals = 1\nseats = "greedy:knock_when=3"\n',
        "unknown parameter 'knock_when' for strategy greedy; its parameters: knock_at, min_gain",
    ),
    (
        'name = "a"\ndeals = 1\nseats = "greedy:knock_at=-5"\n',
        "bad value for greedy parameter 'knock_at': -5",
    ),
    ('name = "a"\ndeals = 1\nseats = "greedy/simple/simple"\n', "3 seats given"),
    ('name = "a"\ndeals = 1\nseats = 7\n', "seats must be a line-up text"),
    (BASE.replace("k = [1, 2]", "k = []"), "grid.k is empty; give at least one value"),
    (BASE.replace("k = [1, 2]", "k = [1, 1]"), "grid.k lists 1 twice"),
    (BASE.replace("k = [1, 2]", "k = 3"), "grid.k must be a list of values or a range"),
    (BASE.replace("k = [1, 2]", 'k = "9..1"'), "grid.k: the range '9..1' is empty"),
    (BASE.replace("k = [1, 2]", 'k = "1..x"'), "grid.k: bad range '1..x'"),
    (
        BASE.replace("k = [1, 2]", "k = [1, 2]\nj = [3]"),
        "grid key 'j' is not used: put {j} in seats",
    ),
    (BASE.replace("k = [1, 2]", "m = [1, 2]"), "seats uses {k} but the grid has no key 'k'"),
    (BASE.replace("[grid]\nk = [1, 2]\n", "grid = {}\n"), "grid is empty"),
    (
        BASE.replace("k = [1, 2]", "k = [1, 2]\nrule.colour = [1]"),
        "unknown rule parameter 'colour'",
    ),
    (
        BASE.replace("k = [1, 2]", "k = [1, 2]\nrule.players = [2, 3]"),
        "setting 'k=1, players=3': scoring='gin' needs players=2",
    ),
    (
        BASE.replace("k = [1, 2]", 'k = [1, "x"]'),
        "setting 'k=x': bad value for greedy parameter 'knock_at': 'x' is not a whole number",
    ),
    (
        'name = "a"\ndeals = 1\nseats = "greedy"\nheadline = "glory"\n',
        "headline = 'glory' is not allowed; choose one of: net_points",
    ),
    (
        'name = "a"\ngames = 1\nseats = "greedy"\nheadline = "net_points"\n',
        "headline = 'net_points' needs deals; with games choose one of: net_score, game_win_rate",
    ),
    (
        'name = "a"\ndeals = 1\nseats = "greedy"\ncharts = ["pie"]\n',
        "charts: 'pie' is not a chart; choose from: knock_curve",
    ),
    (
        'name = "a"\ndeals = 1\nseats = "greedy"\ncharts = ["knock_curve"]\n',
        "'knock_curve' needs a knock threshold in the grid",
    ),
    (
        'name = "a"\ndeals = 1\nseats = "greedy"\ncharts = ["heatmap"]\n',
        "'heatmap' needs two or more variants",
    ),
    (
        'name = "a"\ndeals = 1\nseats = "greedy"\nthreshold = "k"\n',
        "threshold = 'k' is not a grid key",
    ),
    (
        'name = "a"\ndeals = 1\nseats = "greedy"\nduplicate = "yes"\n',
        "duplicate = 'yes' is not allowed; give true or false",
    ),
    (
        'name = "a"\ndeals = 1\nseats = "greedy"\nrows = "all"\n',
        "rows = 'all' is not allowed; choose 'hands' or 'none'",
    ),
    (
        'name = "a"\ndeals = 1\nseats = "greedy"\nprecision = 0\n',
        "precision = 0 is not allowed; give a finite number > 0",
    ),
    (
        'name = "a"\ndeals = 1\nseats = "greedy"\nprecision = inf\n',
        "precision = inf is not allowed; give a finite number > 0",
    ),
    (
        'name = "a"\ndeals = 10\nseats = "greedy"\nmax_count = 5\n',
        "max_count = 5 is below the planned deals = 10",
    ),
    (
        'name = "a"\ndeals = 1\nseats = "greedy"\nvariants = 3\n',
        "variants must be a table of named rule sets",
    ),
    (
        'name = "a"\ndeals = 1\nseats = "greedy"\n[variants.x]\npreset = "nope"\n',
        "variants.x.preset: unknown preset 'nope'",
    ),
    (
        'name = "a"\ndeals = 1\nseats = "greedy"\n[variants."b c"]\n',
        "variant name='b c' is not allowed",
    ),
]


@pytest.mark.parametrize(("text", "expected"), BAD)
def test_validation_errors_are_one_line(tmp_path: Path, text: str, expected: str) -> None:
    path = write(tmp_path, text)
    with pytest.raises(ExperimentError) as info:
        load_experiment(path)
    message = str(info.value)
    assert "\n" not in message
    assert message.startswith(f"{path}: ")
    assert expected in message, message


def test_too_many_settings(tmp_path: Path) -> None:
    text = BASE.replace("k = [1, 2]", 'k = "0..3000"')
    too_many = "'0..3000' has 3,001 values; at most 2,000 are allowed"
    with pytest.raises(ExperimentError, match=too_many):
        load(tmp_path, text)
    product = BASE.replace("k = [1, 2]", 'k = "0..44"\nj = "0..44"').replace(
        "{k}", "{k},min_gain={j}"
    )
    with pytest.raises(ExperimentError, match="the grid makes 2025 settings; at most 2000"):
        load(tmp_path, product)
    huge = BASE.replace("k = [1, 2]", f"k = {list(range(10**5))}")  # refused before any check
    with pytest.raises(ExperimentError, match="grid.k has 100,000 values"):
        load(tmp_path, huge)


def test_missing_malformed_and_directory(tmp_path: Path) -> None:
    with pytest.raises(ExperimentError, match="no such experiment file"):
        load_experiment(tmp_path / "absent.toml")
    with pytest.raises(ExperimentError, match=r"not valid TOML \(.*line 2"):
        load_experiment(write(tmp_path, 'name = "a"\ndeals = = 3\n'))
    with pytest.raises(ExperimentError, match="is a directory"):
        load_experiment(tmp_path)
    (tmp_path / "bin.toml").write_bytes(b"\xff\xfe\x00")
    with pytest.raises(ExperimentError, match="not a text file"):
        load_experiment(tmp_path / "bin.toml")


def test_shipped_experiments_load() -> None:
    root = ROOT / "experiments"
    names = sorted(p.stem for p in root.glob("*.toml"))
    assert {
        "gin_knock_threshold",
        "knock_rummy_threshold",
        "knock_rummy_house_rules",
        "first_player_advantage",
    } <= set(names)
    for name in names:
        text = (root / f"{name}.toml").read_text()
        assert text.startswith("# Question:"), name  # a header saying what it answers
        if is_tune_file(root / f"{name}.toml"):  # `rummy tune` files: test_tune.py
            continue
        exp = load_experiment(root / f"{name}.toml")
        assert exp.seed is not None and exp.name == name
    gin = load_experiment(root / "gin_knock_threshold.toml")
    assert [v.name for v in gin.variants] == ["gin", "gin-classic"]
    assert gin.grid == (("knock_at", tuple(range(11))),) and gin.duplicate
    first = load_experiment(root / "first_player_advantage.toml")
    assert first.grid == (("rule.players", (2, 3, 4, 5, 6)),)
    assert {s.players for s in expand(first)} == {2, 3, 4, 5, 6}
    four = load_experiment(root / "knock_rummy_threshold.toml")
    assert all(s.players == 4 for s in expand(four))
