"""``sim.tune`` and ``rummy tune``: parameter spaces, the search on a synthetic objective,
and small real tunes (a few hundred deals, one worker) through the API and the CLI.
"""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import polars as pl
import pytest
from typer.testing import CliRunner

from sim.cli import app
from sim.present.tune import save_chart
from sim.rules import get_rules
from sim.study import tune as T
from sim.study.execute import Executor
from sim.study.records import RecordError
from sim.study.search import ParamRange, TuneError, grid_points, label_of, parse_param, search, snap
from sim.study.session import Session
from sim.study.tune_request import is_tune_file, load_tune_file, make_request
from tests.support import ROOT

SEED = 20240612
ONE = Executor(workers=1)  # one worker thread
cli = CliRunner()


# --- parsing --param ---------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("strategy", "text", "kind", "values"),
    [
        ("greedy", "knock_at=0..10", "int", tuple(range(11))),
        ("greedy", "knock_at=0..10:2", "int", (0, 2, 4, 6, 8, 10)),
        ("greedy", "knock_at=0..9:4", "int", (0, 4, 8)),
        ("greedy", "knock-at = 3", "int", (3,)),
        ("greedy", "knock_at=8,9,10", "int", (8, 9, 10)),
        ("greedy", "knock_at=-1..1", "int", (-1, 0, 1)),
        ("schedule", "b=0..1:0.1", "float", tuple(round(0.1 * i, 10) for i in range(11))),
        ("schedule", "b=0..0.5:0.125", "float", (0.0, 0.125, 0.25, 0.375, 0.5)),
        ("schedule", "a=8..10", "float", (8.0, 9.0, 10.0)),
        ("schedule", "a=8.5,9,1e1", "float", (8.5, 9.0, 10.0)),
        ("schedule", "lo=-1.5..-0.5:0.5", "float", (-1.5, -1.0, -0.5)),
    ],
)
def test_parse_param_good(strategy: str, text: str, kind: str, values: tuple) -> None:
    r = parse_param(strategy, text)
    assert r.kind == kind
    assert r.values == values
    assert all(type(v) is (int if kind == "int" else float) for v in r.values)


@pytest.mark.parametrize(
    ("strategy", "text", "message"),
    [
        ("greedy", "knock_at", "write name=values"),
        ("greedy", "=0..3", "write name=values"),
        ("greedy", "foo=1..3", "unknown parameter 'foo' for strategy greedy; its parameters: "),
        ("greedy", "knock_at=0..10:0.5", "'0.5' is not a whole number"),
        ("greedy", "knock_at=1.5", "'1.5' is not a whole number"),
        ("greedy", "knock_at=5..1", "the range '5..1' is empty"),
        ("greedy", "knock_at=0..3:0", "the step must be > 0"),
        ("greedy", "knock_at=0..3..5", "bad range"),
        ("greedy", "knock_at=-5..3", "-5 (must be between -1 and 1000000)"),
        ("greedy", "knock_at=1,,2", "empty value"),
        ("greedy", "knock_at=1,2,1", "1 is listed twice"),
        ("greedy", "knock_at=0..5000", "5,001 values; at most 1,000 are allowed"),
        ("schedule", "b=0..1:-0.1", "the step must be > 0"),
        ("schedule", "b=x", "'x' is not a number"),
        ("schedule", "a=0..2000:100", "must be between -1000 and 1000"),
        ("schedule", "a=nan", "not finite"),
    ],
)
def test_parse_param_bad(strategy: str, text: str, message: str) -> None:
    with pytest.raises(TuneError) as error:
        parse_param(strategy, text)
    assert message in str(error.value)
    assert "\n" not in str(error.value)
    assert text.strip() in str(error.value) or text.partition("=")[0] in str(error.value)


def test_grid_enumeration_first_parameter_slowest() -> None:
    space = [ParamRange("a", "int", (1, 2)), ParamRange("b", "float", (0.5, 1.0, 1.5))]
    assert grid_points(space) == [
        (1, 0.5), (1, 1.0), (1, 1.5), (2, 0.5), (2, 1.0), (2, 1.5),
    ]  # fmt: skip
    assert label_of(space, (2, 1.0)) == "a=2,b=1.0"
    assert snap(space, (10, 0.8)) == (2, 1.0)


def test_make_request_checks_everything() -> None:
    request = make_request(
        "schedule:min_gain=2", ["a=8..10"], against="simple", rules="gin", count=10, seed=1
    )
    assert request.strategy == "schedule:min_gain=2"
    assert request.against == ("simple",)
    assert request.default_point() == (10.0,)
    assert request.lineup((8.0,)) == ("schedule:a=8.0,min_gain=2", "simple")
    four = make_request(
        "greedy", ["knock_at=0..4"], against="greedy/simple/random",
        rules=get_rules("knock-rummy", players=4), count=10, seed=1,
    )  # fmt: skip
    assert four.against == ("greedy", "simple", "random") and four.rotations == 1
    for kwargs, message in [
        ({"params": []}, "nothing to tune"),
        ({"params": ["knock_at=0..2", "knock_at=3"]}, "tuned twice"),
        ({"strategy": "greedy:knock_at=3"}, "both fixed in 'greedy:knock_at=3' and tuned"),
        ({"strategy": "greedy/simple"}, "give one strategy to tune"),
        ({"strategy": "nope"}, "unknown strategy 'nope'"),
        ({"against": "simple/simple"}, "1 other seat"),
        ({"against": "nope"}, "unknown strategy 'nope'"),
        ({"against": "simple/"}, "an empty seat"),
        ({"count": 1}, "deals=1 is not allowed"),
        ({"seed": -1}, "seed=-1 is not allowed"),
        ({"max_evals": 0}, "max_evals=0 is not allowed"),
        ({"confirm": 1}, "confirm=1 is not allowed"),
        ({"confirm": 2**70}, "confirm=1180591620717411303424 is not allowed"),
        ({"strategy": "python:sim.agents.greedy:Greedy"}, "is an agent: its decisions are its own"),
        ({"search": "halving"}, "search='halving' is not allowed"),
        ({"mode": "rounds"}, "mode='rounds' is not allowed"),
    ]:
        args = {"strategy": "greedy", "params": ["knock_at=0..2"], "against": "simple",
                "rules": "gin", "count": 10, "seed": 1, **kwargs}  # fmt: skip
        with pytest.raises(ValueError, match=None) as error:
            make_request(args.pop("strategy"), args.pop("params"), **args)
        assert message in str(error.value), (kwargs, str(error.value))


# --- the search on a synthetic objective -------------------------------------------------------


def synthetic(optimum: tuple[float, ...], *, noise: float = 1.0, units: int = 400, seed: int = 3):
    """A smooth concave objective with common random numbers: every setting sees the same
    per-unit noise, so differences between settings are exact."""
    common = np.random.default_rng(seed).normal(0.0, noise, units)
    calls: list[int] = []
    o_ = optimum

    def evaluate(points):
        calls.append(len(points))
        return [
            common - sum((x - o) ** 2 * (k + 1) for k, (x, o) in enumerate(zip(p, o_, strict=True)))
            for p in points
        ]

    return evaluate, calls


def test_grid_search_finds_the_optimum_in_one_batch() -> None:
    space = [parse_param("greedy", "knock_at=0..10"), parse_param("greedy", "min_gain=0..4")]
    evaluate, calls = synthetic((7, 2))
    found = search(space, evaluate, max_evals=100)
    assert found.method == "grid" and calls == [55]
    assert found.best == (7, 2)
    assert found.points == grid_points(space)


def test_coordinate_descent_finds_the_optimum_with_few_evaluations() -> None:
    space = [
        parse_param("schedule", "a=0..20"),
        parse_param("schedule", "b=0..2:0.1"),
        parse_param("schedule", "lo=-5..5"),
    ]
    evaluate, calls = synthetic((13.0, 0.7, -2.0))
    found = search(space, evaluate, start=(10.0, 0.5, 0.0), max_evals=200)
    assert found.method == "coordinate"
    assert found.best == (13.0, 0.7, -2.0)
    assert found.converged and not found.budget_exhausted
    assert found.path[0] == (10.0, 0.5, 0.0) and found.path[-1] == found.best
    assert len(found.values) < 100 < 21 * 21 * 11  # far fewer than the grid
    assert sum(calls) == len(found.values)  # nothing played twice


def test_coordinate_descent_respects_the_budget() -> None:
    space = [parse_param("schedule", "a=0..20"), parse_param("schedule", "b=0..2:0.1")]
    evaluate, _ = synthetic((13.0, 0.7))
    found = search(space, evaluate, start=(10.0, 0.5), max_evals=12)
    assert len(found.values) == 12
    assert found.budget_exhausted and not found.converged
    # the values nearest the start were played first (the lower one on a tie)
    assert {p[0] for p in found.values} == set(np.arange(4.0, 16.0))


def test_search_is_deterministic_and_rejects_bad_options() -> None:
    space = [parse_param("schedule", "a=0..20"), parse_param("schedule", "b=0..2:0.25")]
    first = search(space, synthetic((3.0, 1.5))[0], start=(10.0, 0.5), max_evals=30)
    second = search(space, synthetic((3.0, 1.5))[0], start=(10.0, 0.5), max_evals=30)
    assert first.points == second.points and first.best == second.best
    for kwargs, message in [
        ({"method": "halving"}, "search='halving'"),
        ({"max_evals": 0}, "max_evals=0"),
        ({"max_rounds": 0}, "max_rounds=0"),
    ]:
        with pytest.raises(TuneError, match=message):
            search(space, synthetic((3.0, 1.5))[0], **kwargs)


# --- real tunes --------------------------------------------------------------------------------


@pytest.fixture(scope="module")
def out(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return tmp_path_factory.mktemp("tune")


@pytest.fixture(scope="module")
def small_tune(out: Path) -> T.TuneResult:
    request = make_request(
        "greedy",
        ["knock_at=0..10:5"],
        against="simple",
        rules="gin",
        count=300,
        seed=SEED,
        duplicate=True,
        confirm=200,
    )
    return T.tune(request, Session(ONE, out))


def test_small_tune_plays_every_setting_on_the_same_deals(small_tune: T.TuneResult) -> None:
    result = small_tune
    s = result.settings
    assert s["setting"].to_list() == ["knock_at=0", "knock_at=5", "knock_at=10", "knock_at=-1"]
    assert s.filter(pl.col("candidate"))["knock_at"].to_list() == [0, 5, 10]
    assert s.filter(pl.col("default"))["setting"].to_list() == ["knock_at=-1"]
    assert s["units"].unique().to_list() == [300]
    # knock_at=-1 means the rule's limit (10 under gin): the same play, deal by deal
    same = s.filter(pl.col("setting").is_in(["knock_at=10", "knock_at=-1"]))
    assert same["mean"][0] == same["mean"][1]
    best = s.filter(pl.col("best"))
    assert best["setting"].to_list() == [result.best_label]
    assert best["mean"][0] == s.filter(pl.col("candidate"))["mean"].max()
    assert result.vs_default.n == 300
    assert result.confirmation is not None and result.confirmation.n == 200
    assert result.confirm_seed not in (None, SEED)
    assert not (result.directory / "charts").exists()  # the API draws no chart
    charts = save_chart(result)
    assert charts == tuple(result.directory / "charts" / f"tune.{x}" for x in ("png", "svg"))
    names = ("tune.json", "request.json", "settings.parquet", "charts/tune.png", "charts/tune.svg")
    for name in names:
        assert (result.directory / name).is_file(), name
    record = T.load_tune(result.directory)
    assert record["best"]["setting"] == result.best_label
    assert record["search"]["method"] == "grid"
    runs = [p for p in result.directory.iterdir() if (p / "manifest.json").is_file()]
    assert len(runs) == 4 * 2 + 2 * 2  # settings x seatings, and the confirmation


def test_same_seed_same_result_and_resume(small_tune: T.TuneResult, out: Path) -> None:
    again = T.resume(small_tune.directory, Session(ONE))
    assert again.directory == small_tune.directory
    assert again.hands_played == 0  # every run was found complete
    assert again.settings.equals(small_tune.settings)
    # an interrupted tune: remove a run and its analysis; resuming plays that run only
    run_dir = next(p for p in small_tune.directory.iterdir() if (p / "manifest.json").is_file())
    import shutil

    shutil.rmtree(run_dir)
    (small_tune.directory / "tune.json").unlink()
    resumed = T.resume(small_tune.directory, Session(ONE))
    assert resumed.hands_played > 0 and resumed.settings.equals(small_tune.settings)
    assert (small_tune.directory / "tune.json").is_file()


def test_tune_writes_nothing_on_bad_input(tmp_path: Path) -> None:
    with pytest.raises(ValueError):
        T.tune(make_request("greedy", ["knock_at=0..99999"], against="simple", count=10),
               Session(out=tmp_path))  # fmt: skip
    with pytest.raises(TuneError, match="a tune needs a TuneRequest"):
        T.tune("greedy", Session(out=tmp_path))  # type: ignore[arg-type]
    request = make_request("greedy", ["knock_at=0..2"], against="simple", count=10)
    with pytest.raises(ValueError, match="chunk_size"):
        T.tune(request, Session(ONE, tmp_path), chunk_size=0)
    with pytest.raises(RecordError, match="is not a tune directory"):
        T.resume(tmp_path / "nowhere")
    assert list(tmp_path.iterdir()) == []


# --- the command line -----------------------------------------------------------------------------


def test_cli_tune_end_to_end_json(tmp_path: Path) -> None:
    args = ["tune", "schedule", "--param", "a=4..10:3", "--param", "b=0.25,0.5",
            "--against", "simple", "--rules", "gin", "--deals", "200", "--seed", "7",
            "--workers", "1", "--out", str(tmp_path)]  # fmt: skip
    result = cli.invoke(app, [*args, "--json"])
    assert result.exit_code == 0, result.output
    record = json.loads(result.stdout)
    assert record["search"]["method"] == "grid" and record["space_size"] == 6
    assert record["seed"] == 7 and record["count"] == 200 and not record["duplicate"]
    assert record["default"]["setting"] == "a=10.0,b=0.5"
    assert record["default"]["candidate"] is True
    assert len(record["settings"]) == 6
    assert record["confirmation"] is None or record["confirmation"]["count"] == 200
    assert Path(record["directory"], "charts", "tune.png").is_file()  # a heatmap (2 params)
    text = cli.invoke(app, args)  # the same again: resumed, nothing played, a table
    assert text.exit_code == 0, text.output
    assert "0 hands played" in text.stdout
    assert "best: " in text.stdout and "Holm-adjusted" in text.stdout
    assert record["best"]["setting"] in text.stdout


def test_cli_coordinate_descent_three_parameters(tmp_path: Path) -> None:
    result = cli.invoke(
        app,
        ["tune", "schedule", "-p", "a=6..10:2", "-p", "b=0.25..0.75:0.25", "-p", "lo=0,2",
         "--against", "simple", "--deals", "100", "--seed", "3", "--max-evals", "6",
         "--confirm", "0", "--workers", "1", "--out", str(tmp_path), "--json"],
    )  # fmt: skip
    assert result.exit_code == 0, result.output
    record = json.loads(result.stdout)
    assert record["search"]["method"] == "coordinate"
    assert record["search"]["evaluated"] <= 6
    assert record["search"]["start"] == "a=10.0,b=0.5,lo=0.0"
    assert record["confirmation"] is None


TUNE_FILE = """
name = "tiny"
seed = 5
deals = 100
duplicate = true
[rules]
preset = "knock-rummy"
players = 3
[tune]
strategy = "greedy"
against = "greedy"
confirm = 0
[tune.params]
knock_at = [5, 10]
"""


def test_cli_tune_file_through_run_and_config(tmp_path: Path) -> None:
    path = tmp_path / "tiny.toml"
    path.write_text(TUNE_FILE)
    out = tmp_path / "out"
    result = cli.invoke(app, ["run", str(path), "--workers", "1", "--out", str(out), "--json"])
    assert result.exit_code == 0, result.output
    record = json.loads(result.stdout)
    assert record["name"] == "tiny" and record["players"] == 3 and record["rotations"] == 3
    assert record["against"] == ["greedy", "greedy"]
    again = cli.invoke(
        app, ["tune", "--config", str(path), "--workers", "1", "--out", str(out), "--json"]
    )
    assert again.exit_code == 0, again.output
    assert json.loads(again.stdout)["directory"] == record["directory"]
    bigger = cli.invoke(
        app, ["tune", "--config", str(path), "--deals", "120", "--workers", "1",
              "--out", str(out), "--json"],
    )  # fmt: skip
    assert bigger.exit_code == 0, bigger.output
    assert json.loads(bigger.stdout)["count"] == 120


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["tune"], "give the strategy to tune"),
        (["tune", "greedy"], "--param: give at least one NAME=VALUES"),
        (["tune", "nope", "-p", "x=1"], "unknown strategy 'nope'"),
        (["tune", "greedy", "-p", "foo=1..3"], "unknown parameter 'foo'"),
        (["tune", "greedy", "-p", "knock_at=0..3:0.5"], "not a whole number"),
        (["tune", "greedy", "-p", "knock_at=-9..3"], "must be between -1 and 1000000"),
        (["tune", "greedy", "-p", "knock_at=0..3", "--against", "a/b/c"], "gives 3 seats"),
        (["tune", "greedy", "-p", "knock_at=0..3", "--rules", "nope"], "unknown preset 'nope'"),
        (["tune", "greedy", "-p", "knock_at=0..3", "--deals", "5", "--games", "5"], "not both"),
        (["tune", "greedy", "--config", "x.toml"], "STRATEGY cannot be combined with --config"),
        (["tune", "--config", "missing.toml"], "missing.toml: no such tune file"),
        (["tune", "--resume", "nowhere"], "is not a tune directory"),
        (["tune", "--resume", "nowhere", "--seed", "3"], "drop --seed"),
    ],
)
def test_cli_bad_input_is_one_line_and_writes_nothing(tmp_path: Path, args, message) -> None:
    out = tmp_path / "out"
    result = cli.invoke(app, [*args, "--out", str(out), "--workers", "1"])
    assert result.exit_code == 1, result.output
    assert result.exception is None or isinstance(result.exception, SystemExit)
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("error: ") and message in lines[0], lines
    assert not out.exists()


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("deals = 10\n[tune]\nstrategy='greedy'\nagainst='simple'\n", "tune.params is missing"),
        ("[tune]\nstrategy='greedy'\nagainst='simple'\n[tune.params]\nknock_at='0..2'\n",
         "give exactly one size"),
        ("deals = 10\nseats = 'x'\n[tune]\nstrategy='greedy'\nagainst='simple'\n"
         "[tune.params]\nknock_at='0..2'\n", "unknown key 'seats'"),
        ("deals = 10\n[tune]\nstrategy='greedy'\nagainst='simple'\nfoo=1\n"
         "[tune.params]\nknock_at='0..2'\n", "unknown key tune.foo"),
        ("deals = 10\n[tune]\nstrategy='greedy'\nagainst='simple'\n"
         "[tune.params]\nknock_at='0..2:0.5'\n", "not a whole number"),
        ("deals = 10\nrules = 'nope'\n[tune]\nstrategy='greedy'\nagainst='simple'\n"
         "[tune.params]\nknock_at='0..2'\n", "unknown preset"),
    ],
)  # fmt: skip
def test_bad_tune_files(tmp_path: Path, text: str, message: str) -> None:
    path = tmp_path / "bad.toml"
    path.write_text(text)
    with pytest.raises(TuneError) as error:
        load_tune_file(path)
    assert str(error.value).startswith(str(path)) and message in str(error.value)


def test_shipped_tune_files_load() -> None:
    root = ROOT / "experiments"
    files = sorted(root.glob("tune_*.toml"))
    assert {f.stem for f in files} >= {
        "tune_schedule_gin",
        "tune_schedule_gin_classic",
        "tune_knock_rummy_greedy",
    }
    for f in files:
        assert is_tune_file(f)
        request = load_tune_file(f)
        assert request.duplicate and request.seed is not None and request.confirm > 0
    classic = load_tune_file(root / "tune_schedule_gin_classic.toml")
    assert classic.rules.name == "gin-classic" and classic.method == "coordinate"
    knock = load_tune_file(root / "tune_knock_rummy_greedy.toml")
    assert knock.players == 4 and knock.against == ("greedy",) * 3 and knock.method == "grid"


def test_help_lists_tune() -> None:
    result = cli.invoke(app, ["tune", "--help"])
    assert result.exit_code == 0 and "--param" in result.stdout and "--against" in result.stdout
