"""``rummy strategy-chart knock|draw`` through typer's CliRunner: a tiny chart end to end
(card, JSON, Parquet cells, PNG and SVG), a resume that plays nothing, and one-line
errors for bad input."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pyarrow.parquet as pq
import pytest
from typer.testing import CliRunner

from sim.cli import app
from sim.study.chart_cells import DRAW_CLASSES
from sim.study.provenance import read_provenance

cli = CliRunner()
TINY = ["strategy-chart", "knock", "--rules", "gin", "--seats", "greedy:knock_at=0",
        "--deals", "60", "--samples", "2", "--seed", "3", "-w", "1"]  # fmt: skip


def invoke(*args: str) -> Any:
    return cli.invoke(app, list(args))


def one_line_error(result: Any, expected: str, status: int = 1) -> None:
    assert result.exit_code == status, result.output
    assert "Traceback" not in result.output
    err = result.stderr.strip()
    assert err.count("\n") == 0, err
    assert err.startswith("error: ") and expected in err, err


def test_tiny_chart_end_to_end(tmp_path: Path) -> None:
    result = invoke(*TINY, "--out", str(tmp_path), "--json")
    assert result.exit_code == 0, result.output
    data = json.loads(result.stdout)
    assert (
        data["seed"] == 3
        and data["deals"] == 60
        and data["lineup"] == "greedy:knock_at=0/greedy:knock_at=0"
    )
    assert data["positions"] == sum(c["positions"] for c in data["cells"]) > 0
    assert {c["verdict"] for c in data["cells"]} <= {"knock", "play on", "too close", "too few"}
    assert data["spec"]["chart_samples"] == 2 and data["spec"]["chart_round"] == 0
    check = data["check"]  # by default five cells, on as many fresh deals as the chart's
    assert check["deals"] == check["first"] == 60 and 0 < len(check["cells"]) <= 5
    verdicts = ("agrees", "MISSES", "not reached", "too rare")
    assert all(c["verdict"] in verdicts for c in check["cells"])
    assert all(0 <= c["knock_chosen"] <= 1 for c in data["cells"] if c["positions"])
    run_dir = Path(data["run_dir"])
    png, svg = (Path(p) for p in data["figures"])
    assert png.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n" and png.stat().st_size > 10_000
    assert svg.read_text().lstrip().startswith("<?xml")
    (part,) = sorted((run_dir / "cells").glob("part-*.parquet"))
    meta = read_provenance(part)
    assert meta["table"] == "cells" and meta["config"]["mode"] == "chart"
    assert pq.read_table(part).column("positions").to_pylist()

    again = invoke(*TINY, "--out", str(tmp_path))  # finished: plays nothing, prints the card
    assert again.exit_code == 0, again.output
    assert "knock now minus play on" in again.stdout and str(run_dir) in again.stdout
    assert "check: " in again.stdout
    # with verdicts in its cells, the card marks them with symbols as well as colour, so
    # that piped text tells knock from play on
    marked = invoke(*TINY, "--out", str(tmp_path / "marked"), "--min-positions", "2")
    assert marked.exit_code == 0, marked.output
    assert "■ knock  □ play on  ~ too close  · too few" in marked.stdout
    rows = [line for line in marked.stdout.splitlines() if line.strip()[:2].strip().isdigit()]
    assert any("~" in line or "■" in line or "□" in line for line in rows)

    # The HTML report: written with the chart, and again by ``rummy report``.
    page = Path(data["report"])
    assert page == run_dir / "report.html"
    html = page.read_text()
    assert "Knock chart" in html and "data:image/png;base64," in html and "verdict" in html
    other = tmp_path / "again.html"
    written = invoke("report", str(run_dir), "--out", str(other))
    assert written.exit_code == 0, written.output
    assert "Cells" in other.read_text()

    # ``rummy chart`` draws the chart's figures again, the same bytes as the SVG written.
    drawn = invoke("chart", str(run_dir), "--out", str(tmp_path / "figures"))
    assert drawn.exit_code == 0, drawn.output
    assert (tmp_path / "figures" / "knock_chart.svg").read_text() == svg.read_text()

    # ``rummy run --resume`` refuses a chart in one line, naming the way to read it.
    one_line_error(invoke("run", "--resume", str(run_dir)), "rummy strategy-chart knock")


def test_tiny_draw_chart(tmp_path: Path) -> None:
    args = ["strategy-chart", "draw", "--rules", "knock-rummy", "--players", "3", "--seats",
            "greedy", "--deals", "60", "--samples", "2", "--seed", "3", "-w", "1", "--out",
            str(tmp_path)]  # fmt: skip
    result = invoke(*args, "--json")
    assert result.exit_code == 0, result.output
    data = json.loads(result.stdout)
    assert data["spec"]["chart"] == "draw" and data["positions"] > 0
    assert {c["verdict"] for c in data["cells"]} <= {"take", "draw", "too close", "too few"}
    assert {c["does"] for c in data["cells"]} <= set(DRAW_CLASSES)
    assert all("take_win" in c and "draw_win" in c for c in data["cells"])
    assert sorted(Path(p).name for p in data["figures"]) == ["draw_chart.png", "draw_chart.svg"]
    assert "Draw chart" in Path(data["report"]).read_text()
    card = invoke(*args)  # finished: plays nothing, prints the card
    assert card.exit_code == 0, card.output
    assert "take minus draw" in card.stdout and "near run" in card.stdout
    one_line_error(invoke(*args, "--players", "9"), "--players", 2)


def test_tiny_discard_chart(tmp_path: Path) -> None:
    args = ["strategy-chart", "discard", "--rules", "gin", "--seats", "greedy", "--deals",
            "60", "--seed", "3", "-w", "1", "--took", "--out", str(tmp_path)]  # fmt: skip
    result = invoke(*args, "--json")
    assert result.exit_code == 0, result.output
    data = json.loads(result.stdout)
    assert data["spec"]["chart"] == "discard" and data["spec"]["chart_samples"] == 0
    assert data["positions"] == sum(c["discards"] for c in data["cells"]) > 0
    assert {c["interest"] for c in data["cells"]} <= {0, 1}
    assert all(0 <= c["taken_rate"] <= 1 for c in data["cells"])
    assert sorted(Path(p).name for p in data["figures"]) == sorted(
        f"discard_chart_interest{k}.{e}" for k in range(2) for e in ("png", "svg")
    )
    assert "Discard chart" in Path(data["report"]).read_text()
    card = invoke(*args)
    assert card.exit_code == 0, card.output
    assert "discards taken by the next seat" in card.stdout and "discards counted" in card.stdout


def test_took_layers_make_one_figure_each(tmp_path: Path) -> None:
    result = invoke(*TINY, "--took", "--out", str(tmp_path), "--json")
    assert result.exit_code == 0, result.output
    data = json.loads(result.stdout)
    names = sorted(Path(p).name for p in data["figures"])
    assert names == sorted(f"knock_chart_took{k}.{e}" for k in range(3) for e in ("png", "svg"))
    assert Path(data["report"]).read_text().count("data:image/png;base64,") == 3
    assert {c["took"] for c in data["cells"]} <= {0, 1, 2}


@pytest.mark.parametrize(
    "args, expected, status",
    [
        (["--players", "3"], "players", 1),
        (["--rules", "knock-rummy", "--players", "7"], "--players", 2),
        (["--seat", "2"], "--seat: 2 players sit at seats 0..1", 1),
        (["--model", "kept"], "--model", 2),
        (["--per-cell", "99999999999999999999"], "--per-cell", 2),
        (["--rules", "nosuch"], "nosuch", 1),
        (["--seats", "nosuch"], "nosuch", 1),
        (["--samples", "0"], "--samples", 2),
        (["--deals", "0"], "--deals", 2),
        (["--address", "127.0.0.1:1"], "--address needs --backend ray", 1),
        (["--backend", "cloud"], "--backend", 2),
    ],
)
def test_bad_input_is_one_line(tmp_path: Path, args: list[str], expected: str, status: int) -> None:
    result = invoke(*TINY, "--out", str(tmp_path), *args)
    one_line_error(result, expected, status)
    assert not any(tmp_path.iterdir())


@pytest.mark.parametrize(
    "args, expected, status",
    [
        (["--seats", "greedy/simple"], "one policy in every seat", 1),
        (["--rounds", "101"], "--rounds", 2),
        (["--seats", "nosuch"], "nosuch", 1),
        (["--rules", "gin", "--players", "3"], "players", 1),
    ],
)
def test_solve_bad_input_is_one_line(tmp_path: Path, args: list[str], expected: str,
                                     status: int) -> None:  # fmt: skip
    base = ["strategy-chart", "solve", "--deals", "100", "--seed", "1", "--out", str(tmp_path)]
    one_line_error(invoke(*base, *args), expected, status)
    assert not any(tmp_path.iterdir())


def test_a_damaged_check_is_refused_in_one_line(tmp_path: Path) -> None:
    result = invoke(*TINY, "--out", str(tmp_path), "--json")
    assert result.exit_code == 0, result.output
    run_dir = Path(json.loads(result.stdout)["run_dir"])
    check = run_dir / "check.json"
    check.write_text(check.read_text()[:40])  # cut short
    again = invoke(*TINY, "--out", str(tmp_path))  # the chart resumes (its progress), then:
    assert again.exit_code == 1 and "Traceback" not in again.output
    assert again.stderr.strip().splitlines()[-1].startswith("error: ")
    assert "check.json is damaged" in again.stderr
    one_line_error(invoke("report", str(run_dir), "--out", str(tmp_path / "r.html")),
                   "check.json is damaged")  # fmt: skip
    assert not (tmp_path / "r.html").exists()
