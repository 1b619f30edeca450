"""sim/experiment.py: experiment files, their checks, grid expansion, common deals, and
one tiny real experiment (2 settings x 200 deals, in this process) with its summary,
charts and report.
"""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import polars as pl
import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from sim.present.experiment import chart_figures
from sim.rules import get_rules
from sim.stats import net_points
from sim.store import StorageError
from sim.study.analysis import data_from_run
from sim.study.design import Experiment, ExperimentError, Variant, default_charts
from sim.study.experiment import ExperimentProgress, ExperimentResult, run_experiment
from sim.study.experiment_file import (
    experiment_from_dict,
    load_experiment,
    parse_grid_values,
    replace_checked,
)
from sim.study.experiment_store import load_results
from sim.study.provenance import read_provenance
from sim.study.rundir import load_hands
from sim.study.settings import Setting, block_seed, expand
from sim.study.tables import ResultsError
from sim.study.tune_request import is_tune_file
from tests.support import ROOT

GIN_SWEEP = """
name = "t"
description = "a test"
seed = 11
deals = 200
duplicate = true
seats = "greedy:knock_at={knock_at}/simple"

[rules]
preset = "gin"
knock_limit = 10

[variants.gin]
preset = "gin"
[variants.classic]
preset = "gin-classic"
big_gin_bonus = 0

[grid]
knock_at = "0..10:5"
rule.undercut_bonus = [10, 25]
"""


def write(tmp_path: Path, text: str, name: str = "exp.toml") -> Path:
    path = tmp_path / name
    path.write_text(text)
    return path


def load(tmp_path: Path, text: str) -> Experiment:
    return load_experiment(write(tmp_path, text))


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
        "precision = 0 is not allowed; give a number > 0",
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
    huge = BASE.replace("k = [1, 2]", f"k = {list(range(10**6))}")  # refused before any check
    with pytest.raises(ExperimentError, match="grid.k has 1,000,000 values"):
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


# --- expansion -------------------------------------------------------------------------------


def test_expand_grid_rules_rotations_and_one_seed(tmp_path: Path) -> None:
    exp = load(tmp_path, GIN_SWEEP)
    settings = expand(exp, out=tmp_path)
    assert len(settings) == 12
    first = settings[0]
    assert first.label == "gin, knock_at=0, undercut_bonus=10"
    assert first.variant == "gin" and dict(first.params) == {
        "knock_at": 0,
        "rule.undercut_bonus": 10,
    }
    assert first.rules.undercut_bonus == 10 and first.rules.knock_limit == 10
    assert first.lineup == ("greedy:knock_at=0", "simple")
    classic = [s for s in settings if s.variant == "classic"][0]
    assert classic.rules.name == "gin-classic" and classic.rules.big_gin_bonus == 0
    # duplicate: both seatings, template seat 0 at position 0 then 1
    assert [c.lineup for c in first.configs] == [
        ("greedy:knock_at=0", "simple"),
        ("simple", "greedy:knock_at=0"),
    ]
    assert [first.position(0, r) for r in first.rotations] == [0, 1]
    # common random numbers: every run of every setting has the experiment's seed
    assert {c.seed for s in settings for c in s.configs} == {11}
    assert {c.experiment for s in settings for c in s.configs} == {"t"}
    assert len({c.run_id for s in settings for c in s.configs}) == 24
    assert first.configs[0].run_dir == tmp_path / "t" / first.configs[0].run_id
    # a block added by `precision`: another seed, the same for every setting
    more = expand(exp, out=tmp_path, block=1, count=50)
    seeds = {c.seed for s in more for c in s.configs}
    assert seeds == {block_seed(11, 1)} and block_seed(11, 1) != 11
    assert {c.count for s in more for c in s.configs} == {50}


def test_symmetric_lineup_is_not_rotated(tmp_path: Path) -> None:
    exp = load(
        tmp_path,
        'name = "a"\ndeals = 10\nseats = "greedy"\nduplicate = true\nrules = "knock-rummy"\n',
    )
    (setting,) = expand(exp)
    assert len(setting.configs) == 1 and setting.label == "knock-rummy"


# --- a tiny real experiment --------------------------------------------------------------------

TINY = """
name = "tiny"
seed = 5
deals = 200
duplicate = true
seats = "greedy:knock_at={k}/simple"
[grid]
k = [3, 10]
"""


@pytest.fixture(scope="module")
def tiny(tmp_path_factory: pytest.TempPathFactory) -> ExperimentResult:
    root = tmp_path_factory.mktemp("exp")
    exp = experiment_from_dict(__import__("tomllib").loads(TINY), source="tiny.toml")
    seen: list[ExperimentProgress] = []
    result = run_experiment(exp, workers=1, out=root, progress=seen.append, command="pytest")
    result.__dict__["seen"] = seen  # frozen dataclass: stash the progress reports
    return result


def test_tiny_experiment_writes_summary_charts_report(tiny: ExperimentResult) -> None:
    d = tiny.directory
    for name in ("summary", "seats", "outcomes", "turns", "comparisons"):
        meta = read_provenance(d / f"{name}.parquet")
        assert meta["table"] == f"experiment_{name}"
    for kind in ("knock_curve", "outcome_mix", "hand_length"):
        assert (d / "charts" / f"{kind}.png").read_bytes()[:4] == b"\x89PNG"
        assert "<svg" in (d / "charts" / f"{kind}.svg").read_text()
    assert not (d / "charts" / "heatmap.png").exists()  # one variant, one grid key
    html = (d / "report.html").read_text()
    assert "data:image/png;base64," in html and "Paired comparisons" in html
    assert "seed 5" in html and "&quot;seed&quot;: 5" in html  # subtitle, config
    record = json.loads((d / "experiment.json").read_text())
    assert record["status"] == "done" and record["experiment"]["seed"] == 5
    summary = pl.read_parquet(d / "summary.parquet")
    assert summary["setting"].to_list() == ["k=3", "k=10"]
    assert summary["units"].to_list() == [200, 200]
    assert summary["hands"].to_list() == [400, 400]  # two seatings each
    assert summary["best"].sum() == 1
    for row in summary.iter_rows(named=True):
        assert row["low"] <= row["estimate"] <= row["high"]
        assert row["win_low"] <= row["win_rate"] <= row["win_high"]
        assert row["method"].startswith("t over duplicate deals")
    phases = {p.phase for p in tiny.__dict__["seen"]}
    assert {"engine", "run", "analyse", "charts", "report"} <= phases
    last = [p for p in tiny.__dict__["seen"] if p.phase == "run"][-1]
    assert (last.units_done, last.units_total, last.runs_done, last.runs_total) == (800, 800, 4, 4)
    assert tiny.hands_played == 800


def test_common_deals_and_paired_differences(tiny: ExperimentResult) -> None:
    """Every setting plays the same deals: the first upcard of deal d is the same in all
    runs, and the paired difference is computed per deal, averaged over seatings."""
    a, b = tiny.settings
    hands = {
        (s.label, r): load_hands(d).collect()
        for s in (a, b)
        for d, r in zip(s.dirs, s.rotations, strict=True)
    }
    upcards = {key: frame["upcard"].to_list() for key, frame in hands.items()}
    assert len({tuple(u) for u in upcards.values()}) == 1
    assert len(set(upcards[(a.label, 0)])) > 20  # and they are not all one card

    def per_deal(setting: Setting) -> np.ndarray:
        cols = []
        for _dir, r in zip(setting.dirs, setting.rotations, strict=True):
            frame = hands[(setting.label, r)]
            pos = setting.position(0, r)
            cols.append(frame.select(net_points(pos, 2))[:, 0].to_numpy())
        return np.mean(cols, axis=0)

    diff = per_deal(a) - per_deal(b)
    summary = tiny.data.summary
    comp = tiny.data.comparisons.row(0, named=True)
    best = summary.filter(pl.col("best"))["setting"][0]
    sign = 1.0 if best == a.label else -1.0
    assert comp["difference"] == pytest.approx(sign * diff.mean())
    assert comp["n"] == 200
    estimates = dict(zip(summary["setting"], summary["estimate"], strict=True))
    assert estimates[a.label] == pytest.approx(per_deal(a).mean())
    verdict = tiny.data.verdicts[0]
    assert verdict["best"] == best and "Holm-adjusted p" in verdict["summary"]


def test_rerun_skips_done_chunks_and_loads_back(tiny: ExperimentResult) -> None:
    again = run_experiment(
        tiny.experiment, workers=1, out=tiny.directory.parent, charts=False, report=False
    )
    assert again.hands_played == 0
    assert again.data.summary.equals(tiny.data.summary)
    loaded = load_results(tiny.directory)
    assert loaded.summary.equals(pl.read_parquet(tiny.directory / "summary.parquet"))
    assert loaded.verdicts == tiny.data.verdicts
    assert load_results(tiny.directory / "summary.parquet").name == "tiny"
    figures = dict(chart_figures(loaded, ["outcome_mix"]))
    assert set(figures) == {"outcome_mix"}
    with pytest.raises(ExperimentError, match="needs two or more variants"):
        chart_figures(loaded, ["heatmap"])


def test_single_run_directory_as_data(tiny: ExperimentResult) -> None:
    run_dir = tiny.settings[0].dirs[0]
    data = data_from_run(run_dir)
    assert data.kind == "run" and data.seats.height == 2
    assert data.summary["units"][0] == 200
    assert data.outcomes["count"].sum() == 200
    assert load_results(run_dir / "hands" / "part-000000.parquet").kind == "run"


def test_precision_adds_blocks_until_narrow(tmp_path: Path) -> None:
    exp = experiment_from_dict(
        {
            "name": "prec",
            "seed": 3,
            "deals": 200,
            "seats": "greedy/simple",
            "precision": 1.0,
            "max_count": 2_500,
        },
        source="prec",
    )
    result = run_experiment(exp, workers=1, out=tmp_path, charts=False, report=False)
    row = result.data.summary.row(0, named=True)
    assert result.blocks >= 2 and row["units"] > 200
    assert result.precision_reached is (row["half_width"] <= 1.0)
    assert row["units"] <= 2_500
    seeds = result.data.runs["seed"].to_list()
    assert seeds[0] == 3 and seeds[1] == block_seed(3, 1)
    # the same call again finds every block done and plays nothing
    again = run_experiment(exp, workers=1, out=tmp_path, charts=False, report=False)
    assert again.hands_played == 0 and again.blocks == result.blocks
    # a target no run can reach (it once overflowed planning the size) stops at max_count
    tiny = replace_checked(exp, name="tiny", precision=1e-300, max_count=600)
    capped = run_experiment(tiny, workers=1, out=tmp_path, charts=False, report=False)
    assert capped.precision_reached is False
    assert capped.data.summary.row(0, named=True)["units"] == 600


def test_rows_none_uses_summaries(tmp_path: Path) -> None:
    exp = experiment_from_dict(
        {
            "name": "lean",
            "seed": 4,
            "deals": 150,
            "seats": "greedy:knock_at={k}/simple",
            "grid": {"k": [2, 9]},
            "rows": "none",
        },
        source="lean",
    )
    result = run_experiment(exp, workers=1, out=tmp_path, charts=False, report=False)
    s = result.data.summary
    assert s["hands"].to_list() == [150, 150]
    assert all("unpaired" in m for m in s["compare_method"].to_list())
    assert not any((tmp_path / "lean" / rid / "hands").exists() for rid in s["run_ids"])


def test_games_mode(tmp_path: Path) -> None:
    exp = experiment_from_dict(
        {"name": "g", "seed": 2, "games": 12, "seats": "greedy:knock_at={k}/simple",
         "grid": {"k": [5, 10]}, "duplicate": True},
        source="g",
    )  # fmt: skip
    assert exp.headline == "net_score"
    result = run_experiment(exp, workers=1, out=tmp_path, charts=False, report=False)
    s = result.data.summary
    assert s["units"].to_list() == [12, 12]
    assert s["method"][0] == "t over duplicate games (2 seatings)"
    assert s["estimate"].to_list() == s["net_score"].to_list()
    assert all(0.0 <= w <= 1.0 for w in s["game_win_rate"].to_list())
    assert all(h >= 1.0 for h in s["hands_per_game"].to_list())


def test_unwritable_output_directory(tmp_path: Path) -> None:
    blocker = tmp_path / "file"
    blocker.write_text("x")
    exp = experiment_from_dict({"name": "w", "deals": 10, "seats": "greedy"}, source="w")
    with pytest.raises(StorageError, match="cannot create output directory .*Not a directory"):
        run_experiment(exp, workers=1, out=blocker / "sub")


def test_foreign_and_corrupted_parquet(tmp_path: Path) -> None:
    foreign = tmp_path / "foreign.parquet"
    pq.write_table(pa.table({"x": [1, 2]}), foreign)
    with pytest.raises(ResultsError, match="not a rummy-sim result"):
        load_results(foreign)
    broken = tmp_path / "broken.parquet"
    broken.write_bytes(b"PAR1 this is not parquet")
    with pytest.raises(ResultsError, match="not a readable Parquet file"):
        load_results(broken)
    with pytest.raises(ExperimentError, match="not a results directory"):
        load_results(tmp_path)


def test_corrupted_table_in_an_experiment_directory(tiny: ExperimentResult, tmp_path: Path) -> None:
    import shutil

    copy = tmp_path / "copy"
    copy.mkdir()
    for file in tiny.directory.iterdir():
        if file.is_file():
            shutil.copy(file, copy / file.name)
    (copy / "seats.parquet").write_bytes(b"garbage")
    with pytest.raises(ResultsError, match="seats.parquet: corrupted .*--resume"):
        load_results(copy)


def test_setting_position_math() -> None:
    s = Setting("x", "v", (), get_rules("knock-rummy"), ("a",) * 4, (), (0, 1, 2, 3))
    assert [s.position(0, r) for r in range(4)] == [0, 3, 2, 1]
    assert [s.position(2, r) for r in range(4)] == [2, 1, 0, 3]
