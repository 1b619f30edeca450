"""``sim.study.experiment``: one tiny real experiment (2 settings x 200 deals, in this
process) with its summary, charts and report (drawn by ``sim.present.experiment``);
resumes, precision blocks, summaries only, whole games, an unwritable folder."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import polars as pl
import pytest

from sim.present.experiment import chart_figures
from sim.stats import net_points
from sim.store import StorageError
from sim.study.analysis import data_from_run
from sim.study.design import ExperimentError
from sim.study.execute import Executor
from sim.study.experiment import ExperimentResult, run_experiment
from sim.study.experiment_file import (
    experiment_from_dict,
    replace_checked,
)
from sim.study.experiment_store import load_results
from sim.study.provenance import read_provenance
from sim.study.rundir import load_hands
from sim.study.settings import Setting, block_seed

ONE = Executor(workers=1)  # one worker thread


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
    assert "data:image/png;base64," in html and "vs best" in html and "Holm p" in html
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
    assert phases == {"engine", "run", "analyse"}  # the command line draws the rest
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
    again = run_experiment(tiny.experiment, ONE, out=tiny.directory.parent)
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
    result = run_experiment(exp, ONE, out=tmp_path)
    row = result.data.summary.row(0, named=True)
    assert result.blocks >= 2 and row["units"] > 200
    assert result.precision_reached is (row["half_width"] <= 1.0)
    assert row["units"] <= 2_500
    # the API writes tables and the record, no charts or report (sim.present.experiment)
    assert not (result.directory / "charts").exists()
    assert not (result.directory / "report.html").exists()
    seeds = result.data.runs["seed"].to_list()
    assert seeds[0] == 3 and seeds[1] == block_seed(3, 1)
    # the same call again finds every block done and plays nothing
    again = run_experiment(exp, ONE, out=tmp_path)
    assert again.hands_played == 0 and again.blocks == result.blocks
    # a target no run can reach (it once overflowed planning the size) stops at max_count
    tiny = replace_checked(exp, name="tiny", precision=1e-300, max_count=600)
    capped = run_experiment(tiny, ONE, out=tmp_path)
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
    result = run_experiment(exp, ONE, out=tmp_path)
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
    result = run_experiment(exp, ONE, out=tmp_path)
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
        run_experiment(exp, ONE, out=blocker / "sub")
