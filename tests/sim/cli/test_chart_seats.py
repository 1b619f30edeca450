"""A ``chart`` seat by name (``chart:gin``) or by file (``chart:file=PATH``) through the
command line, end to end: it plays exactly the hands of its spec spelt out, every
table, record and loader shows its name (never its 400 characters), and a bad name,
file or rule set is one line with nothing written (docs/CHARTS.md, "Chart files")."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import polars as pl
import pytest
from typer.testing import CliRunner

import rummy
from sim.cli import app
from sim.rules import get_rules
from sim.study import load_hands
from strategies import format_seat, parse_seat, split_specs
from strategies.chart_files import chart_file_text, shipped_chart
from tests.support.cli import one_line

cli = CliRunner()
GIN = shipped_chart("gin-plain").spec  # spelt out; the plain chart plays fast
SEED = ["--seed", "5", "-w", "1"]


def invoke(*args: str) -> Any:
    return cli.invoke(app, list(args))


def run_dir(result: Any) -> Path:
    assert result.exit_code == 0, result.output
    return Path(json.loads(result.stdout)["run_dir"])


def files(folder: Path) -> list[Path]:
    return sorted(folder.rglob("*")) if folder.exists() else []


@pytest.fixture(scope="module")
def named_and_spelt(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path]:
    """The same deals played by ``chart:gin-plain`` and by its spec spelt out."""
    out = tmp_path_factory.mktemp("runs")
    common = ["--rules", "gin", "--deals", "300", *SEED, "--out", str(out), "--json"]
    named = run_dir(invoke("run", "--seats", "chart:gin-plain/simple", *common))
    spelt = run_dir(invoke("run", "--seats", f"{GIN}/simple", *common))
    return named, spelt


def test_a_name_plays_the_hands_of_its_spec(named_and_spelt: tuple[Path, Path]) -> None:
    named, spelt = named_and_spelt
    a, b = load_hands(named).collect(), load_hands(spelt).collect()
    assert a.height == b.height == 300
    assert a.equals(b)  # every column: the spec (strategy_0), the points, how hands ended
    assert a["strategy_0"][0] == format_seat(*parse_seat(GIN))


def test_the_run_identity(named_and_spelt: tuple[Path, Path]) -> None:
    """Both runs hold the parameters; the named one holds its names too (another run of
    the same hands, that shows them)."""
    named, spelt = named_and_spelt
    assert named != spelt
    a = json.loads((named / "manifest.json").read_text())["config"]
    b = json.loads((spelt / "manifest.json").read_text())["config"]
    assert a["lineup"] == b["lineup"]
    assert a["names"] == ["chart:gin-plain", "simple"] and "names" not in b
    resumed = invoke("run", "--resume", str(named), "--json")
    assert resumed.exit_code == 0, resumed.output
    assert json.loads(resumed.stdout)["chunks_run"] == 0


def test_the_name_is_shown_everywhere(named_and_spelt: tuple[Path, Path]) -> None:
    named, spelt = named_and_spelt
    table = invoke("report", str(named))
    assert table.exit_code == 0, table.output
    html = (named / "report.html").read_text()
    assert "chart:gin-plain" in html
    loaded = rummy.load(named)
    assert loaded.lineup == ("chart:gin-plain", "simple")
    assert [s.strategy for s in loaded.seats] == ["chart:gin-plain", "simple"]
    assert rummy.load(spelt).lineup == ("chart#c43a4a97", "simple")


def test_the_run_table_shows_the_name(tmp_path: Path) -> None:
    result = invoke(
        "run", "--rules", "gin", "--seats", "chart:gin-plain/simple", "--deals", "200", *SEED,
        "--out", str(tmp_path),
    )  # fmt: skip
    assert result.exit_code == 0, result.output
    assert "chart:gin-plain/simple" in result.stdout  # the line-up above the bar
    rows = [line.split() for line in result.stdout.splitlines()]
    assert ["0", "chart:gin-plain"] in [row[:2] for row in rows]
    assert "k1=" not in result.stdout


def test_an_experiment_shows_the_name(tmp_path: Path) -> None:
    """``seat 0 = chart:gin-plain``, and the seats and summary tables' labels."""
    result = invoke(
        "run", "--rules", "eaai", "--seats", "chart:gin-plain,lookahead=5/simple", "--deals",
        "100", "--duplicate", *SEED, "--out", str(tmp_path), "--name", "exp",
    )  # fmt: skip
    assert result.exit_code == 0, result.output
    assert "seat 0 = chart:gin-plain,lookahead=5;" in result.stdout
    seats = pl.read_parquet(tmp_path / "exp" / "seats.parquet")
    assert seats["strategy"].to_list() == ["chart:gin-plain,lookahead=5", "simple"]
    summary = pl.read_parquet(tmp_path / "exp" / "summary.parquet")
    assert summary["lineup"].to_list() == ["chart:gin-plain,lookahead=5/simple"]
    assert "k1=" not in result.stdout


def test_a_spelt_out_chart_is_shown_short(tmp_path: Path) -> None:
    result = invoke(
        "run", "--rules", "gin", "--seats", f"{GIN}/simple", "--deals", "100", "--duplicate",
        *SEED, "--out", str(tmp_path), "--name", "exp",
    )  # fmt: skip
    assert result.exit_code == 0, result.output
    assert "seat 0 = chart#c43a4a97;" in result.stdout and "k1=" not in result.stdout


def test_compare_and_tournament_show_the_names(tmp_path: Path) -> None:
    compared = invoke(
        "compare", "--rules", "gin", "--seats", "chart:gin-plain/simple", "--vs-seats",
        f"{GIN}/greedy", "--deals", "100", *SEED, "--out", str(tmp_path),
    )  # fmt: skip
    assert compared.exit_code == 0, compared.output
    assert "seats chart:gin-plain/simple)" in compared.stdout
    assert "Focal seat 0 (chart:gin-plain / chart#c43a4a97)" in compared.stdout
    assert "k1=" not in compared.stdout
    played = invoke(
        "tournament", "--rules", "gin", "-s", "chart:gin-plain,simple", "--deals", "60",
        *SEED, "--out", str(tmp_path), "--no-chart", "--json",
    )  # fmt: skip
    assert played.exit_code == 0, played.output
    record = json.loads(played.stdout)
    assert record["names"] == ["chart:gin-plain", "simple"]
    assert {r["player"] for r in record["matrix"]} == {"chart:gin-plain", "simple"}


def test_a_file_seats_and_is_shown_by_its_name(tmp_path: Path) -> None:
    path = tmp_path / "mine.chart"
    path.write_text(chart_file_text(GIN, get_rules("gin")))
    result = invoke(
        "run", "--rules", "eaai", "--seats", f"chart:file={path}/simple", "--deals", "60",
        *SEED, "--out", str(tmp_path / "out"), "--json",
    )  # fmt: skip
    data = json.loads(result.stdout) if result.exit_code == 0 else None
    assert data is not None, result.output
    assert [s["strategy"] for s in data["seats"]] == ["chart:file=mine.chart", "simple"]


@pytest.mark.parametrize(
    ("seats", "rules", "expected"),
    [
        ("chart:nosuch/simple", "gin", "unknown chart 'nosuch'; the shipped charts: gin, "),
        ("chart:file=missing.chart/simple", "gin", "chart:file=missing.chart: no such file"),
        ("chart:file=NOTCHART/simple", "gin", "is not a chart file"),
        ("chart:gin/simple", "oklahoma-gin", "chart:gin was made for gin (2 players"),
        ("chart:gin/simple", "knock-rummy", "its scoring and knock limit differ"),
        ("chart:knock-rummy-4p", "knock-rummy", "its player count differs"),
    ],
)
def test_bad_charts_are_one_line_and_write_nothing(
    tmp_path: Path, seats: str, rules: str, expected: str
) -> None:
    other = tmp_path / "notes.chart"
    other.write_text("not a chart\n")
    seats = seats.replace("NOTCHART", str(other))
    players = ["-r", "players=2"] if rules == "knock-rummy" else []
    out = tmp_path / "out"
    for command in (
        ["run", "--seats", seats],
        ["run", "--seats", seats, "--duplicate"],
        ["compare", "--seats", seats, "--vs-seats", "greedy"],
        ["tournament", "-s", f"{split_specs(seats)[0]},greedy"],
    ):
        result = invoke(
            *command, "--rules", rules, *players, "--deals", "50", *SEED, "--out", str(out)
        )
        one_line(result, 1, expected)
        assert files(out) == [], command


def test_a_bad_chart_is_refused_by_the_python_api(tmp_path: Path) -> None:
    with pytest.raises(ValueError, match="chart:gin was made for gin"):
        rummy.play("chart:gin/simple", rules="oklahoma-gin", deals=10, out=tmp_path)
    assert files(tmp_path) == []


def test_export_writes_the_rules_and_solve_starts_by_name(tmp_path: Path) -> None:
    """An exported chart seats by file under its rules, not under others."""
    base = ["--deals", "200", "--samples", "2", *SEED, "--min-positions", "5"]
    made = invoke(
        "strategy-chart", "knock", "--rules", "gin", "--seats", "chart:gin-plain", *base,
        "--out", str(tmp_path), "--json",
    )  # fmt: skip
    assert made.exit_code == 0, made.output
    target = tmp_path / "k.chart"
    exported = invoke("strategy-chart", "export", json.loads(made.stdout)["run_dir"],
                      "--out", str(target))  # fmt: skip
    assert exported.exit_code == 0, exported.output
    assert target.read_text().startswith("# rummy-sim strategy chart")
    assert "# players: 2\n# scoring: gin\n# knock_limit: 10\nchart:k1=" in target.read_text()
    refused = invoke("run", "--rules", "oklahoma-gin", "--seats", f"chart:file={target}/simple",
                     "--deals", "50", "--out", str(tmp_path / "x"))  # fmt: skip
    one_line(refused, 1, "chart:file=k.chart was made for gin (2 players, Gin scoring")


def test_a_sweep_over_a_named_charts_parameter(tmp_path: Path) -> None:
    """The template's name stays in the title; each setting's seat shows its override."""
    result = invoke(
        "sweep", "--rules", "gin", "--seats", "chart:gin-plain,lookahead={w}/simple", "--grid",
        "w=0,10", "--deals", "60", *SEED, "--out", str(tmp_path), "--name", "sw",
    )  # fmt: skip
    assert result.exit_code == 0, result.output
    assert "seat 0 = chart:gin-plain, w varied;" in result.stdout
    seats = pl.read_parquet(tmp_path / "sw" / "seats.parquet").filter(pl.col("seat") == 0)
    assert seats["strategy"].to_list() == ["chart:gin-plain", "chart:gin-plain,lookahead=10"]
