"""The README's polars example computes the main job's headline: run on a small copy of
the main job (its experiment file with fewer deals), its frame holds the estimate of
every setting of the experiment's summary (computed from the runs in numpy)."""

from __future__ import annotations

import re
from pathlib import Path

import polars as pl
import pytest

from sim.study.execute import Executor
from sim.study.experiment import run_experiment
from sim.study.experiment_file import load_experiment, replace_checked
from tests.support import ROOT

SECTION = re.compile(r"## Reading the results with polars\n.*?```python\n(.*?)```", re.DOTALL)


def test_the_readme_example_gives_the_headline(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    code = SECTION.search((ROOT / "README.md").read_text()).group(1)  # type: ignore[union-attr]
    small = replace_checked(
        load_experiment(ROOT / "experiments" / "gin_knock_threshold.toml"), count=300
    )
    monkeypatch.chdir(tmp_path)
    result = run_experiment(small, Executor(workers=1), out="results")
    namespace: dict[str, object] = {}
    exec(compile(code, "README.md polars example", "exec"), namespace)
    headline = namespace["headline"]
    assert isinstance(headline, pl.DataFrame) and headline.height == 22
    summary = result.data.summary
    for row in summary.iter_rows(named=True):
        mine = headline.filter(
            (pl.col("variant").cast(pl.String) == row["variant"])
            & (pl.col("knock_at") == row["knock_at"])
        )
        assert mine["net_points"].item() == pytest.approx(row["estimate"], abs=1e-9), row
