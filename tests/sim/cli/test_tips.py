"""The rule books' tips (``experiments/tips_*.toml``): every file loads with its claims
named after a source, and one runs end to end at a tiny size through ``rummy run``:
the verdicts in the terminal, in ``--json``, in ``claims.parquet`` and in the report."""

from __future__ import annotations

import json
from pathlib import Path

import polars as pl
import pytest
from typer.testing import CliRunner

from sim.cli import app
from sim.study.claims import VERDICTS
from sim.study.experiment_file import load_experiment
from sim.study.experiment_store import load_experiment_data

ROOT = Path(__file__).resolve().parents[3]
TIPS = sorted((ROOT / "experiments").glob("tips_*.toml"))
SOURCES = {
    "Knock Rummy: Tips and Strategy",
    "Gin Rummy Rules: Basic strategy",
    "Gin Rummy Rules: Questions that come up mid-hand",
}


def test_there_is_a_file_per_tip() -> None:
    assert len(TIPS) == 7


@pytest.mark.parametrize("path", TIPS, ids=lambda p: p.stem)
def test_tips_files_load_with_claims(path: Path) -> None:
    experiment = load_experiment(path)
    assert experiment.claims, path.name
    for claim in experiment.claims:
        assert claim.source in SOURCES, claim.source
    header = path.read_text().split("\nname = ")[0]
    for part in ("Question:", "Source:", "How it is tested:", "Design:", "Size:"):
        assert part in header, f"{path.name}: no {part!r} in its header"


def test_a_tips_file_end_to_end(tmp_path: Path) -> None:
    """tips_take_discard at 300 deals: a verdict per claim everywhere it is shown."""
    path = ROOT / "experiments" / "tips_take_discard.toml"
    args = ["run", str(path), "--deals", "300", "--seed", "3", "--out", str(tmp_path)]
    result = CliRunner().invoke(app, [*args, "--workers", "1"])
    assert result.exit_code == 0, result.output
    assert "Claims" in result.output
    assert "meld-only beats lower-deadwood" in result.output
    directory = tmp_path / "tips_take_discard"
    data = load_experiment_data(directory)
    claims = data.claims
    assert isinstance(claims, pl.DataFrame) and claims.height == 2
    assert set(claims["n"]) == {300}
    known = set(VERDICTS[:3])
    assert set(claims["verdict"]) <= known
    for row in claims.iter_rows(named=True):
        assert row["low"] <= row["estimate"] <= row["high"]
        assert row["verdict"] in result.output
    record = json.loads((directory / "experiment.json").read_text())
    assert [c["name"] for c in record["analysis"]["claims"]] == list(claims["claim"])
    report = (directory / "report.html").read_text()
    assert "<h2>Claims</h2>" in report or ">Claims<" in report
    assert "Knock Rummy: Tips and Strategy" in report
    again = CliRunner().invoke(app, [*args, "--workers", "1", "--json"])
    assert again.exit_code == 0, again.output
    printed = json.loads(again.stdout)
    assert [c["verdict"] for c in printed["claims"]] == list(claims["verdict"])
