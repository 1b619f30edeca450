"""Every report kind as a browser shows it: headless Chromium at 1,280 and 390 px wide.

The report kinds are those ``write_report`` writes: an experiment (a sweep over a rule
parameter, so compared per rule setting, with its house-rule table and a best claim),
one run read as an experiment, a strategy chart, and a comparison's, a round robin's
and a tune's (``rummy report`` of their folders). Each page is laid out by Chromium with a script
added to a copy of it that measures the page (it writes its measures into an attribute
of the page's body, which shows nothing); screenshots of that copy are kept next to each
report (``screens/``) to be looked at. Skipped only where Chromium is not installed.
"""

from __future__ import annotations

import json
import re
import shutil
import subprocess
import tomllib
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from sim.cli import app
from sim.present.experiment import save_charts, write_experiment_report
from sim.study.analysis import data_from_run
from sim.study.execute import Executor
from sim.study.experiment import run_experiment
from sim.study.experiment_file import experiment_from_dict
from strategies.chart_files import shipped_chart

CHROMIUM = shutil.which("chromium")
pytestmark = pytest.mark.skipif(
    CHROMIUM is None, reason="chromium is not installed (apt-get install chromium)"
)

SWEEP = """
name = "screens"
description = "Which knock threshold is best for greedy against simple, under each undercut bonus?"
seed = 4
deals = 400
duplicate = true
seats = "greedy:knock_at={knock_at}/simple"
[grid]
knock_at = [0, 4, 10]
rule.undercut_bonus = [10, 25]
[[claims]]
says = "Under every undercut bonus, knock only with gin."
source = "a test"
best = { knock_at = 0 }
"""

# Run in the page: what the test checks, written where --dump-dom shows it.
MEASURE = """<script>
const wraps = [...document.querySelectorAll('.table-wrap')];
const fig = document.querySelector('figure');
document.body.setAttribute('data-measure', JSON.stringify({
  page: document.documentElement.scrollWidth,
  view: document.documentElement.clientWidth,
  overflowing_tables: wraps.filter(w => w.scrollWidth > w.clientWidth + 1).length,
  tables: wraps.length,
  first_figure_top: fig ? fig.getBoundingClientRect().top + window.scrollY : null,
  first_heading: document.querySelector('h2').textContent,
}));
</script>"""


def _chromium(*args: str) -> str:
    done = subprocess.run(
        [CHROMIUM or "chromium", "--headless", "--no-sandbox", "--disable-gpu",
         "--hide-scrollbars", *args],
        capture_output=True, text=True, timeout=120, check=True,
    )  # fmt: skip
    return done.stdout


def measure(page: Path, script: str, size: str, shot: Path) -> dict[str, Any]:
    """Lay ``page`` out in a window of ``size`` ("width,height" px), with ``script`` added
    to a copy of it: its screenshot in ``shot`` and the measures the script wrote. One
    Chromium run does both (``--screenshot`` with ``--dump-dom``)."""
    probe = page.parent / f".{page.stem}-probe.html"
    probe.write_text(page.read_text().replace("</body>", script + "</body>"))
    dom = _chromium(f"--screenshot={shot}", "--dump-dom", f"--window-size={size}", probe.as_uri())
    assert shot.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    found = re.search(r'data-measure="([^"]*)"', dom)
    assert found, "the page did not run its measuring script"
    return dict(json.loads(found.group(1).replace("&quot;", '"')))


def look(report: Path, width: int) -> dict[str, Any]:
    """Lay ``report`` out at ``width`` px: a screenshot next to it, and the measures."""
    screens = report.parent / "screens"
    screens.mkdir(exist_ok=True)
    return measure(report, MEASURE, f"{width},2200", screens / f"{report.stem}-{width}.png")


def check_layout(report: Path, answer: str) -> None:
    wide = look(report, 1280)
    assert wide["first_heading"] == answer  # the page opens with its answer
    assert wide["page"] <= wide["view"], "the page is wider than 1,280 px"
    assert wide["overflowing_tables"] == 0, "a table is wider than a 1,280 px page"
    if wide["first_figure_top"] is not None:
        assert wide["first_figure_top"] < 1200, "the first chart is far down the page"
    narrow = look(report, 390)
    assert narrow["page"] <= narrow["view"], "the page is wider than a 390 px phone"


@pytest.fixture(scope="module")
def sweep(tmp_path_factory: pytest.TempPathFactory) -> Any:
    exp = experiment_from_dict(tomllib.loads(SWEEP), source="screens.toml")
    out = tmp_path_factory.mktemp("screens")
    result = run_experiment(exp, Executor(workers=1), out=out, command="pytest")
    save_charts(result.data, result.directory / "charts")
    write_experiment_report(result.data, result.directory / "report.html")
    return result


def test_experiment_report_answers_first_and_fits(sweep: Any) -> None:
    report = sweep.directory / "report.html"
    html = report.read_text()
    # one answer per rule setting, with its effect, interval and unit, before any table
    answer = html[: html.index("<table")]
    for group in ("undercut_bonus=10", "undercut_bonus=25"):
        assert f"Under {group}, " in answer
    assert answer.count("points per hand") >= 2 and "[" in answer
    assert "{knock_at}" not in html[: html.index("Configuration</h2>")]  # no raw template
    assert "Provenance" in html[html.index("What the rules change") :]  # at the end
    check_layout(report, "Answer")


def test_run_report_fits(sweep: Any) -> None:
    run_dir = sweep.settings[0].dirs[0]
    report = write_experiment_report(data_from_run(run_dir), run_dir / "report.html")
    assert "net points per hand" in report.read_text()
    check_layout(Path(str(report)), "Answer")


def test_strategy_chart_report_fits(tmp_path: Path) -> None:
    """Of a chart seat spelt out: its spec, a line of some 400 characters without a space
    (in the configuration), wraps."""
    seat = shipped_chart("gin-plain").spec
    args = ["strategy-chart", "knock", "--rules", "gin", "--seats", seat,
            "--deals", "60", "--samples", "2", "--seed", "3", "-w", "1",
            "--out", str(tmp_path), "--json"]  # fmt: skip
    result = CliRunner().invoke(app, args)
    assert result.exit_code == 0, result.output
    report = Path(json.loads(result.stdout)["run_dir"]) / "report.html"
    check_layout(report, "Answer")


STUDIES = {
    "compare": ["compare", "--seats", "greedy:knock_at=3/simple", "--vs-seats",
                "simple/simple", "--deals", "300", "--seed", "5", "--duplicate"],
    "tournament": ["tournament", "--strategies", "greedy,simple,defensive", "--deals", "200",
                   "--seed", "6", "--no-chart"],
    "tune": ["tune", "greedy", "--param", "knock_at=0..8:2", "--param", "min_gain=1..3",
             "--against", "simple", "--deals", "300", "--seed", "7", "--no-chart"],
}  # fmt: skip


@pytest.mark.parametrize(
    "kind", [k if k == "tune" else pytest.param(k, marks=pytest.mark.slow) for k in STUDIES]
)
def test_a_study_folders_report_fits(tmp_path: Path, kind: str) -> None:
    """``rummy report`` of a comparison's, a round robin's and a tune's folder (a tune of
    two parameters: its chart is a heatmap)."""
    played = CliRunner().invoke(app, [*STUDIES[kind], "--out", str(tmp_path), "-q"])
    assert played.exit_code == 0, played.output
    [folder] = (tmp_path / kind).iterdir()
    result = CliRunner().invoke(app, ["report", str(folder)])
    assert result.exit_code == 0, result.output
    check_layout(folder / "report.html", "Answer")


CARD_MEASURE = """<script>
const items = [...document.querySelectorAll('li')];
document.body.setAttribute('data-measure', JSON.stringify({
  page: document.documentElement.scrollWidth,
  view: document.documentElement.clientWidth,
  smallest_px: Math.min(...items.map(li => parseFloat(getComputedStyle(li).fontSize))),
  rules: items.length,
  first_heading: document.querySelector('h2').textContent,
}));
</script>"""


@pytest.mark.parametrize("width", [390, pytest.param(1280, marks=pytest.mark.slow)])
def test_a_chart_card_reads_on_a_phone_and_a_desktop(tmp_path: Path, width: int) -> None:
    """``strategy-chart card --out``'s card.html at 390 and 1,280 px: no sideways scroll,
    every rule at 16 px or more, every sentence of the text card on the page."""
    result = CliRunner().invoke(
        app, ["strategy-chart", "card", "chart:gin", "--out", str(tmp_path), "--json"]
    )
    assert result.exit_code == 0, result.output
    card = json.loads(result.stdout)
    page = tmp_path / "card.html"
    seen = measure(page, CARD_MEASURE, f"{width},1800", tmp_path / f"card-{width}.png")
    assert seen["page"] <= seen["view"], f"the card is wider than {width} px"
    assert seen["smallest_px"] >= 16 and seen["first_heading"] == "Knock"
    assert seen["rules"] == len(card["knock"]) + len(card["take"]) + len(card["discard"])
