"""``sim.study.compare`` and ``rummy compare`` (and the one-line errors of ``rummy tournament``).

The real runs are small (a few hundred to 2,000 deals, one worker) and shared by
module-scoped fixtures; the command-line tests patch the API the commands call, except
one tiny end-to-end run.
"""

from __future__ import annotations

import json
import math
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from sim import store
from sim.cli import app
from sim.front.compare import FRONT as COMPARE_FRONT
from sim.rules import get_rules
from sim.stats import mcnemar_exact
from sim.study.compare import COMPARISON_FILE, CompareError, CompareRequest, Side, compare
from sim.study.execute import Executor
from sim.study.rundir import load_hands
from sim.study.runs import RunError
from sim.study.session import Session
from sim.study.tournament import seatings
from sim.study.units import rotate
from strategies import StrategyError
from tests.support.recorder import Recorder

SEED = 20240611
ONE = Executor(workers=1)  # one worker thread
cli = CliRunner()


@pytest.fixture(scope="module")
def out(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return tmp_path_factory.mktemp("h10_compare")


@pytest.fixture(scope="module")
def self_comparison(out: Path) -> Any:
    """greedy/simple against itself under two names of the same rules: two runs."""
    request = CompareRequest(
        Side("gin", "greedy/simple"),
        Side(get_rules("gin", name="gin-copy"), "greedy/simple"),
        count=400,
        seed=SEED,
    )
    return compare(request, Session(ONE, out))


@pytest.fixture(scope="module")
def duplicate_comparison(out: Path) -> Any:
    request = CompareRequest(
        Side("gin", "greedy/simple"),
        Side("gin", "greedy:knock_at=5/simple"),
        count=2_000,
        seed=SEED,
        duplicate=True,
    )
    return compare(request, Session(ONE, out))


# --- comparisons ---------------------------------------------------------------------------


def test_a_strategy_against_itself_differs_by_exactly_zero(self_comparison) -> None:
    result = self_comparison
    a_dir, b_dir = result.a.run_dirs[0], result.b.run_dirs[0]
    assert a_dir != b_dir  # two runs (the variant label differs), one seed
    upcards = [load_hands(d).select("game", "upcard", "dealer").collect() for d in (a_dir, b_dir)]
    assert upcards[0].equals(upcards[1])  # identical deals
    d = result.difference
    assert (d.mean_diff, d.sd, d.ci.low, d.ci.high, d.p_value) == (0.0, 0.0, 0.0, 0.0, 1.0)
    assert d.n == 400 and d.method == "paired t"
    w = result.win_difference
    assert (w.estimate, w.a_only, w.b_only, w.p_value) == (0.0, 0, 0, 1.0)
    assert w.p_method == "McNemar exact"
    assert result.identical_deals and result.rotations == 1
    assert result.plain_difference is None and result.variance_reduction is None
    assert (result.a.label, result.b.label) == ("gin", "gin-copy")
    assert result.a.net == result.b.net and result.a.win.method == "Wilson"
    stored = json.loads((result.directory / COMPARISON_FILE).read_text())
    assert stored["kind"] == "rummy-compare" and stored["seed"] == SEED
    assert stored["difference"]["estimate"] == 0.0
    assert result.directory.parent == a_dir.parent.parent  # <out>/compare/<id>/<run_id>


def test_duplicate_rotates_seats_and_reduces_variance(duplicate_comparison, out: Path) -> None:
    result = duplicate_comparison
    assert result.rotations == 2 and len(result.a.run_dirs) == 2
    stored = json.loads((result.directory / COMPARISON_FILE).read_text())
    runs = {(r["side"], r["rotation"]): r for r in stored["runs"]}
    assert runs[("a", 1)]["lineup"] == ["simple", "greedy"] and runs[("a", 1)]["focal_seat"] == 1
    assert runs[("b", 1)]["lineup"] == ["simple", "greedy:knock_at=5"]
    vr = result.variance_reduction
    assert vr.cost == 2 and vr.factor > 1.2  # about 2 on this seed; seat luck cancels
    assert result.difference.ci.half_width < result.plain_difference.ci.half_width
    assert result.win_difference.p_method == "paired t"
    assert "rotations" in result.a.win.method and result.a.win.n == 4_000
    plain_request = CompareRequest(
        Side("gin", "greedy/simple"), Side("gin", "greedy:knock_at=5/simple"), 2_000, seed=SEED
    )
    plain = compare(plain_request, Session(ONE, out))
    # rotation 0 of the duplicate comparison is exactly the plain comparison
    assert plain.difference.mean_diff == pytest.approx(result.plain_difference.mean_diff, abs=1e-12)
    assert plain.difference.sd == pytest.approx(result.plain_difference.sd, rel=1e-12)
    assert plain.win_difference.method == "paired t on win indicators"
    assert plain.win_difference.a_only + plain.win_difference.b_only > 0


def test_compare_rejects_bad_input_before_playing(tmp_path: Path) -> None:
    out = tmp_path / "o"
    gin = Side("gin", "greedy/simple")

    def request(b: Side, count: int = 10) -> CompareRequest:
        return CompareRequest(gin, b, count, seed=1)

    with pytest.raises(CompareError, match="different player counts"):
        compare(request(Side("knock-rummy", "greedy")), Session(ONE, out))
    with pytest.raises(StrategyError, match="unknown strategy 'nope'"):
        compare(request(Side("gin", "nope/simple")), Session(ONE, out))
    # the same rules and line-up once parsed: +0.00 and p = 1, whatever the labels
    for same in (
        gin,
        Side(get_rules("gin"), ("greedy", "simple"), "B"),
        Side("gin", "greedy,simple"),
    ):
        with pytest.raises(CompareError, match="both sides are the same"):
            compare(request(same), Session(ONE, out))
    with pytest.raises(RunError, match=r"deals=1 is not allowed; give 2\.\..* \(a CI needs two\)"):
        compare(request(Side("gin", "simple"), count=1), Session(ONE, out))
    with pytest.raises(ValueError, match="unknown preset"):
        compare(request(Side("no-such-rules", "greedy")), Session(ONE, out))
    blocker = tmp_path / "file"
    blocker.write_text("x")
    with pytest.raises(ValueError, match="cannot create output directory"):
        compare(request(Side("gin", "greedy:knock_at=5/simple")), Session(ONE, blocker))
    assert not (tmp_path / "o").exists() and blocker.read_text() == "x"


def test_mcnemar_exact_is_the_binomial_test() -> None:
    assert mcnemar_exact(0, 0) == 1.0
    assert mcnemar_exact(10, 0) == pytest.approx(2 * 0.5**10, rel=1e-12)
    tail = sum(math.comb(10, k) for k in range(4)) / 2**10  # P(X <= 3), X ~ Bin(10, 1/2)
    assert mcnemar_exact(7, 3) == pytest.approx(2 * tail, rel=1e-12)
    assert mcnemar_exact(3, 7) == mcnemar_exact(7, 3)
    assert mcnemar_exact(5, 5) == 1.0


def test_rotations_and_seatings() -> None:
    assert rotate(("a", "b", "c"), 1) == ("b", "c", "a")
    assert seatings("x", "y", 2) == [("x", "y"), ("y", "x")]
    assert seatings("x", "y", 3)[2] == ("y", "y", "x")


# --- the command line ----------------------------------------------------------------------


def test_cli_compare_end_to_end(tmp_path: Path) -> None:
    result = cli.invoke(
        app,
        [
            "compare", "--rules", "gin", "--seats", "greedy/simple",
            "--vs-seats", "greedy:knock_at=5/simple", "--deals", "200", "--seed", "11",
            "--workers", "1", "--out", str(tmp_path),
        ],
    )  # fmt: skip
    assert result.exit_code == 0, result.output
    out = result.stdout
    assert out.startswith("seed 11\n")
    for text in ("paired t CI", "McNemar exact", "Wilson", "n = 200 deals", str(tmp_path)):
        assert text in out
    assert "run 2/2" in result.stderr
    assert len(list((tmp_path / "compare").glob("*/comparison.json"))) == 1


def test_cli_compare_builds_the_two_sides(monkeypatch, self_comparison) -> None:
    fake = Recorder(self_comparison)
    monkeypatch.setitem(vars(COMPARE_FRONT), "play", fake)  # the frozen front's driver
    result = cli.invoke(
        app,
        [
            "compare", "--rules", "gin", "-r", "knock_limit=8", "--vs-rules", "gin-classic",
            "--vs-rule", "gin_bonus=30", "--vs-rule", "knock_limit=5", "--seats", "greedy/simple",
            "--vs-seats", "simple/greedy", "--label", "mine", "--deals", "1234", "--duplicate",
            "--seed", "9", "--workers", "3", "--out", "somewhere",
        ],
    )  # fmt: skip
    assert result.exit_code == 0, result.output
    request, session = fake.args
    assert request == CompareRequest(
        Side(get_rules("gin", knock_limit=8), "greedy/simple", "mine"),
        Side(get_rules("gin-classic", knock_limit=5, gin_bonus=30), "simple/greedy", None),
        count=1234,
        mode="deals",
        seed=9,
        duplicate=True,
    )
    assert (session.executor, session.out) == (Executor(workers=3), store.location("somewhere"))
    assert result.stdout.startswith("seed 9\n")


def test_cli_compare_defaults_games_and_json(monkeypatch, self_comparison) -> None:
    fake = Recorder(self_comparison)
    monkeypatch.setitem(vars(COMPARE_FRONT), "play", fake)  # the frozen front's driver
    result = cli.invoke(
        app,
        ["compare", "--seats", "greedy/simple", "--vs-seats", "simple", "--games", "50", "--json"],
    )
    assert result.exit_code == 0, result.output
    request = fake.args[0]
    assert request.a == Side(get_rules("gin"), "greedy/simple", None)
    assert request.b == Side(get_rules("gin"), "simple", None)
    assert (request.count, request.mode, request.duplicate) == (50, "games", False)
    seed = request.seed
    assert isinstance(seed, int) and seed >= 0  # drawn
    data = json.loads(result.stdout)
    assert data["seed_drawn"] is True and data["difference"]["method"] == "paired t"
    assert data["a"]["win_rate"]["method"] == "Wilson"

    fake2 = Recorder(self_comparison)
    monkeypatch.setitem(vars(COMPARE_FRONT), "play", fake2)
    result = cli.invoke(app, ["compare", "--seats", "greedy/simple", "--vs-rule", "knock_limit=7"])
    assert result.exit_code == 0, result.output
    assert fake2.args[0].count == 100_000
    assert f"seed {fake2.args[0].seed} (drawn; pass --seed" in result.stdout


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["compare"], "--vs-seats, --vs-rules, --vs-rule: none given; give one"),
        (["compare", "--seats", "greedy/simple", "--rule", "knock_limit=7"], "none given"),
        (["compare", "--seats", "greedy/simple", "--vs-seats", "greedy,simple"], "are the same"),
        (["compare", "--vs-rules", "gin", "--vs-label", "B"], "both sides are the same"),
        (["compare", "--vs-rule", "knock_limit=10"], "both sides are the same"),
        (["compare", "--rules", "nope", "--vs-seats", "simple"], "unknown preset 'nope'"),
        (["compare", "--vs-rules", "nope"], "unknown preset 'nope'"),
        (["compare", "-r", "nope=1", "--vs-seats", "simple"], "unknown parameter 'nope'"),
        (["compare", "--vs-rule", "knock_limit=x"], "knock_limit takes"),
        (["compare", "--seats", "nope/simple", "--vs-seats", "simple"], "unknown strategy 'nope'"),
        (["compare", "--vs-seats", "greedy:nope=1/simple"], "unknown parameter 'nope'"),
        (["compare", "--seats", "greedy:knock_at=x", "--vs-seats", "simple"], "not a whole number"),
        (["compare", "--vs-seats", "simple", "--deals", "5", "--games", "5"], "not both"),
        (
            ["compare", "--rules", "threshold-knock", "--vs-seats", "simple", "--games", "5"],
            "game='hand'",
        ),
        (["tournament", "-s", "greedy"], "at least two strategies"),
        (["tournament", "-s", "greedy,greedy"], "given twice"),
        (["tournament", "-s", "greedy,nope"], "unknown strategy 'nope'"),
        (["tournament", "-s", "greedy,simple", "--rules", "nope"], "unknown preset"),
    ],
)
def test_cli_bad_input_is_one_line_and_writes_nothing(tmp_path: Path, args, message) -> None:
    out = tmp_path / "results"
    result = cli.invoke(app, [*args, "--out", str(out), "--workers", "1"])
    assert result.exit_code == 1
    assert result.stdout == ""
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("error: ") and message in lines[0], result.stderr
    assert not out.exists()


@pytest.mark.parametrize(
    "command", [["compare", "--vs-seats", "simple"], ["tournament", "-s", "greedy,simple"]]
)
def test_cli_unwritable_output_directory(tmp_path: Path, command) -> None:
    blocker = tmp_path / "not-a-dir"
    blocker.write_text("keep")
    result = cli.invoke(app, [*command, "--deals", "10", "--out", str(blocker), "--workers", "1"])
    assert result.exit_code == 1 and result.stdout == ""
    assert result.stderr.count("\n") == 1 and "cannot create output directory" in result.stderr
    assert blocker.read_text() == "keep"


def test_every_new_command_has_help() -> None:
    for command in ("compare", "tournament"):
        result = cli.invoke(app, [command, "--help"])
        assert result.exit_code == 0 and "--seed" in result.stdout and "--json" in result.stdout


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["compare", "--deals", "1"], "--deals"),
        (["compare", "--seed", "-3"], "--seed"),
        (["tournament", "-s", "greedy,simple", "--games", "0"], "--games"),
    ],
)
def test_cli_out_of_range_options_are_usage_errors(tmp_path: Path, args, message) -> None:
    result = cli.invoke(app, [*args, "--out", str(tmp_path / "results")])
    assert result.exit_code == 2 and result.stdout == ""
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1 and message in lines[0], result.stderr
