"""``rummy strategy-chart card CHART``: a chart's rules as sentences, from its parameters
alone (docs/CHARTS.md, "The card: a chart as rules"): 80 columns in the terminal, JSON,
a one-page PNG and PDF that fit A4 and Letter; a bad chart is one line, nothing written."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from sim.cli import app
from strategies.chart import TURNS
from strategies.chart_files import chart_file_text, shipped_chart, shipped_names
from tests.support.cli import one_line

cli = CliRunner()
A4 = (595, 842)
LETTER = (612, 792)


def invoke(*args: str) -> Any:
    return cli.invoke(app, ["strategy-chart", "card", *args])


@pytest.mark.parametrize("name", shipped_names())
def test_every_shipped_chart_prints_in_80_columns(name: str) -> None:
    result = invoke(f"chart:{name}")
    assert result.exit_code == 0, result.output
    lines = result.stdout.splitlines()
    assert lines[0] == f"chart:{name}"
    assert max(len(line) for line in lines) <= 80
    for heading in ("Knock", "Draw: take the pile card?", "Discard"):
        assert heading in lines
    assert "Traceback" not in result.output


def test_the_gin_card() -> None:
    result = invoke("chart:gin")
    assert result.exit_code == 0, result.output
    text = " ".join(result.stdout.split())
    assert "made for gin (2 players, Gin scoring, knock limit 10)." in text
    assert "Turns 8-19: knock only with gin." in text
    assert "Turn 20 and later: knock with 0, 3, 4, or 7." in text
    assert "Look ahead (lookahead 30):" in text
    assert "Gin chance (gin_chance 150):" in text


def test_a_greedy_like_chart_spelt_out() -> None:
    spec = "chart:" + ",".join(
        [f"k{t}={(1 << 8) - 1}" for t in range(1, TURNS + 1)]
        + [f"t{t}=128" for t in range(1, TURNS + 1)]
        + ["safety=0"]
    )
    result = invoke(spec, "--json")
    assert result.exit_code == 0, result.output
    card = json.loads(result.stdout)
    assert card["knock"] == ["Every turn: knock with 7 or less."]
    assert card["made_for"] == "made for rules unknown (no header)"
    assert card["chart"].startswith("chart#")  # a long spec is shown by its digest


def test_json_of_a_file_with_overrides(tmp_path: Path) -> None:
    path = tmp_path / "mine.chart"
    path.write_text(_gin_plain_file(), "utf-8")
    result = invoke(f"chart:file={path},k1=1", "--json")
    assert result.exit_code == 0, result.output
    card = json.loads(result.stdout)
    assert card["chart"] == "chart:file=mine.chart,k1=1"
    assert card["knock"][0] == "Turn 1: knock only with gin."
    assert set(card) == {"chart", "made_for", "note", "knock", "take", "discard", "left"}
    assert card["left"] == []  # no cards for fewer players


def _gin_plain_file() -> str:
    from sim.rules import get_rules

    return chart_file_text(shipped_chart("gin-plain").spec, get_rules("gin"))


def _media_box(pdf: bytes) -> tuple[float, float]:
    boxes = re.findall(rb"/MediaBox\s*\[\s*([-\d.]+)\s+([-\d.]+)\s+([-\d.]+)\s+([-\d.]+)\s*\]", pdf)
    assert len(boxes) == 1, boxes  # one page
    x0, y0, x1, y1 = (float(v) for v in boxes[0])
    return x1 - x0, y1 - y0


def test_out_writes_a_png_a_pdf_that_fit_a4_and_letter_and_a_page(tmp_path: Path) -> None:
    out = tmp_path / "cards" / "gin"
    result = invoke("chart:gin", "--out", str(out))
    assert result.exit_code == 0, result.output
    names = sorted(p.name for p in out.iterdir())
    assert names == ["card.html", "card.pdf", "card.png"]  # no temporaries
    assert (out / "card.png").read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    pdf = (out / "card.pdf").read_bytes()
    assert pdf.startswith(b"%PDF")
    width, height = _media_box(pdf)
    for page in (A4, LETTER):
        assert width <= page[0] and height <= page[1], (width, height, page)


@pytest.mark.parametrize(
    ("chart", "expected"),
    [
        ("greedy", "is not a chart"),
        ("greedy:knock_at=3", "is not a chart"),
        ("chart:nosuch", "unknown chart 'nosuch'"),
        ("chart:file=MISSING", "no such file"),
        ("chart:k1=-1", "k1"),
        ("nosuch", "nosuch"),
    ],
)
def test_bad_input_is_one_line_and_writes_nothing(
    tmp_path: Path, chart: str, expected: str
) -> None:
    chart = chart.replace("MISSING", str(tmp_path / "missing.chart"))
    out = tmp_path / "out"
    result = invoke(chart, "--out", str(out))
    one_line(result, 1, expected)
    assert result.stdout == ""
    assert not out.exists()
    assert sorted(tmp_path.iterdir()) == []


def test_the_docs_show_the_gin_card_as_printed() -> None:
    docs = (Path(__file__).parents[3] / "docs" / "CHARTS.md").read_text("utf-8")
    shown = docs.split("$ rummy strategy-chart card chart:gin\n", 1)[1].split("\n```", 1)[0]
    result = invoke("chart:gin")
    assert result.exit_code == 0, result.output
    assert result.stdout.rstrip("\n") == shown
