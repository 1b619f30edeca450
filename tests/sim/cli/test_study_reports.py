"""``rummy report`` and ``rummy chart`` of a comparison's, a round robin's and a tune's
folder: the report states each figure as the notebook's ``rummy.load`` of the same
folder holds it, the charts land where the study's own command draws them, and
nothing about the study is played again."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

import rummy
from rummy.results import _cell
from sim.cli import app
from tests.support.cli import one_line

cli = CliRunner()
STUDIES = {
    "compare": ["compare", "--seats", "greedy:knock_at=3/simple", "--vs-seats",
                "simple/simple", "--deals", "300", "--seed", "5"],
    "tournament": ["tournament", "--strategies", "greedy,simple", "--deals", "200", "--seed",
                   "6", "--no-chart"],
    "tune": ["tune", "greedy", "--param", "knock_at=0..8:8", "--against", "simple", "--deals",
             "300", "--seed", "7", "--no-chart"],
}  # fmt: skip


@pytest.fixture(scope="module")
def folders(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    """Each study played once, small, into one results root: its folder by kind."""
    root = tmp_path_factory.mktemp("studies")
    for args in STUDIES.values():
        result = cli.invoke(app, [*args, "--out", str(root), "-q"])
        assert result.exit_code == 0, result.output
    return {kind: next((root / kind).iterdir()) for kind in STUDIES}


def _figures(loaded: Any) -> list[str]:
    """The notebook's figures of a study, as a table's cell writes each."""
    if isinstance(loaded, rummy.results.Comparison):
        return [_cell(e) for e in (loaded.a_net, loaded.b_net, loaded.difference)]
    if isinstance(loaded, rummy.results.TournamentResult):
        return [_cell(e) for p in loaded.pairings for e in (p.net, p.win_rate)]
    return [_cell(loaded.best_value), _cell(loaded.vs_default)]


@pytest.mark.parametrize("kind", list(STUDIES))
def test_the_report_states_the_notebooks_figures(folders: dict[str, Path], kind: str) -> None:
    folder = folders[kind]
    runs = sorted(p.name for p in folder.iterdir() if p.is_dir())
    result = cli.invoke(app, ["report", str(folder)])
    assert result.exit_code == 0, result.output
    page = (folder / "report.html").read_text()
    assert result.stdout.strip() == str(folder / "report.html")
    for figure in _figures(rummy.load(folder)):
        assert figure in page, figure
    assert "<img" in page  # its chart, drawn from the folder's record and table
    assert sorted(p.name for p in folder.iterdir() if p.is_dir()) == runs  # nothing played


def test_the_charts_land_where_the_command_draws_them(
    folders: dict[str, Path], tmp_path: Path
) -> None:
    matrix = cli.invoke(app, ["chart", str(folders["tournament"])])
    assert matrix.exit_code == 0, matrix.output
    assert matrix.stdout.split() == [str(folders["tournament"] / f"matrix.{x}") for x in
                                     ("png", "svg")]  # fmt: skip
    tune = cli.invoke(app, ["chart", str(folders["tune"]), "--out", str(tmp_path)])
    assert tune.exit_code == 0, tune.output
    assert (tmp_path / "tune.png").stat().st_size > 10_000
    sides = cli.invoke(app, ["chart", str(folders["compare"])])
    assert sides.exit_code == 0, sides.output
    assert (folders["compare"] / "comparison.png").stat().st_size > 10_000


def test_an_unfinished_tune_is_one_line(folders: dict[str, Path], tmp_path: Path) -> None:
    folder = tmp_path / "tune" / folders["tune"].name
    folder.mkdir(parents=True)
    (folder / "request.json").write_bytes((folders["tune"] / "request.json").read_bytes())
    for command in ("report", "chart"):
        result = cli.invoke(app, [command, str(folder)])
        one_line(result, 1, "an unfinished tune (it holds request.json", "--resume")
        assert not (folder / "report.html").exists()
