"""``sim.study.analysis``: a grid over a rule parameter is compared per rule setting (a
best under each rule, never across), the house-rule table answers what the rules
change (its paired differences recounted here from the hand rows), and a best claim is
judged per rule setting."""

from __future__ import annotations

import math
import tomllib
from pathlib import Path

import numpy as np
import polars as pl
import pytest

from sim.stats import t_quantile
from sim.study.design import ExperimentError
from sim.study.execute import Executor
from sim.study.experiment import ExperimentResult, run_experiment
from sim.study.experiment_file import experiment_from_dict
from sim.study.experiment_store import load_results
from sim.study.rundir import load_hands

GROUPED = """
name = "grouped"
seed = 11
deals = 300
duplicate = true
seats = "greedy:knock_at={k}/simple"
[grid]
k = [0, 4, 10]
rule.knock_limit = [10, 7]
[[claims]]
name = "wait for gin"
says = "Under every knock limit, knock only with gin."
source = "a test"
best = { k = 0 }
"""


@pytest.fixture(scope="module")
def grouped(tmp_path_factory: pytest.TempPathFactory) -> ExperimentResult:
    exp = experiment_from_dict(tomllib.loads(GROUPED), source="grouped.toml")
    root = tmp_path_factory.mktemp("grouped")
    return run_experiment(exp, Executor(workers=1), out=root, command="pytest")


def test_a_best_per_rule_setting_never_across(grouped: ExperimentResult) -> None:
    data = grouped.data
    assert data.groups == {
        "knock_limit=10": ["k=0, knock_limit=10", "k=4, knock_limit=10", "k=10, knock_limit=10"],
        "knock_limit=7": ["k=0, knock_limit=7", "k=4, knock_limit=7", "k=10, knock_limit=7"],
    }
    group_of = {label: g for g, labels in data.groups.items() for label in labels}
    summary = data.summary
    assert summary.group_by("group").agg(pl.col("best").sum())["best"].to_list() == [1, 1]
    for verdict in data.verdicts:
        assert group_of[verdict["best"]] == group_of[verdict["runner_up"]] == verdict["group"]
    for row in data.comparisons.iter_rows(named=True):
        assert group_of[row["best"]] == group_of[row["setting"]] == row["group"]
    # per group, the best is the highest estimate among its own settings only
    for group, labels in data.groups.items():
        rows = summary.filter(pl.col("setting").is_in(labels))
        top = rows.sort("estimate", descending=True)["setting"][0]
        assert rows.filter(pl.col("best"))["setting"][0] == top
        assert rows.filter(pl.col("best"))["group"][0] == group
    # two comparisons per group of three: the Holm correction is per group
    assert data.comparisons.height == 4
    assert all(" over 2 comparisons" in v["summary"] for v in data.verdicts)


def test_one_rule_setting_is_one_group(tiny: ExperimentResult) -> None:
    data = tiny.data
    assert list(data.groups) == ["all"]
    assert data.summary["group"].unique().to_list() == ["all"]
    assert [v["group"] for v in data.verdicts] == ["all"]
    assert data.house_rules is None


def _t_interval(x: np.ndarray) -> tuple[float, float, float]:
    n = x.size
    mean = float(x.mean())
    h = t_quantile(0.975, n - 1) * float(x.std(ddof=1)) / math.sqrt(n)
    return mean, mean - h, mean + h


def _recount(grouped: ExperimentResult) -> dict[tuple[str, str, str], np.ndarray]:
    """Per deal, from the hand rows alone: each rule setting's measures (mean over its
    settings and seatings) and each setting's seat-0 net points (mean over seatings)."""
    per: dict[tuple[str, str, str], list[np.ndarray]] = {}
    for setting in grouped.settings:
        rule = dict(setting.params)["rule.knock_limit"]
        k = dict(setting.params)["k"]
        group = f"knock_limit={rule}"
        for run_dir, r in zip(setting.dirs, setting.rotations, strict=True):
            hands = (
                load_hands(run_dir)
                .with_columns(
                    first=(pl.col("dealer").cast(pl.Int64) + 1) % 2,
                    outcome=pl.col("outcome").cast(pl.String),
                )
                .sort("game", "deal")
                .collect()
            )
            first = hands["first"].to_numpy()
            pts = hands.select("points_0", "points_1").to_numpy()
            edge = pts[np.arange(len(first)), first] - pts[np.arange(len(first)), 1 - first]
            seat0 = (0 - r) % 2  # where template seat 0 sat in this seating
            values = {
                "turns": hands["turns"].to_numpy().astype(float),
                "gin_rate": hands["outcome"]
                .is_in(["gin", "big_gin", "rummy"])
                .to_numpy()
                .astype(float),
                "undercut_rate": (hands["outcome"] == "undercut").to_numpy().astype(float),
                "first_edge": edge,
            }
            for name, v in values.items():
                per.setdefault((group, name, ""), []).append(v)
            per.setdefault((group, "headline", f"k={k}"), []).append(
                pts[:, seat0] - pts[:, 1 - seat0]
            )
    return {key: np.mean(v, axis=0) for key, v in per.items()}


def test_house_rule_differences_equal_a_recount_from_the_hands(
    grouped: ExperimentResult,
) -> None:
    table = grouped.data.house_rules
    assert table is not None
    assert set(table["group"]) == {"knock_limit=7"}
    assert set(table["reference"]) == {"knock_limit=10"}
    assert table["measure"].to_list() == [
        "turns", "gin_rate", "undercut_rate", "first_edge", "headline", "headline", "headline",
    ]  # fmt: skip
    per_deal = _recount(grouped)
    for row in table.iter_rows(named=True):
        a = per_deal[("knock_limit=7", row["measure"], row["strategy"])]
        b = per_deal[("knock_limit=10", row["measure"], row["strategy"])]
        assert row["n"] == a.size == 300
        mean, low, high = _t_interval(a - b)
        assert row["difference"] == pytest.approx(mean, abs=1e-12)
        assert row["low"] == pytest.approx(low, abs=1e-9)
        assert row["high"] == pytest.approx(high, abs=1e-9)
        assert row["value"] == pytest.approx(a.mean(), abs=1e-12)
        assert row["reference_value"] == pytest.approx(b.mean(), abs=1e-12)
    # the limit changes play: hands under the stricter limit differ somewhere
    turns = table.filter(pl.col("measure") == "turns").row(0, named=True)
    assert turns["low"] < turns["high"]
    # written and read back with the experiment's other tables
    loaded = load_results(grouped.directory)
    assert loaded.house_rules is not None and loaded.house_rules.equals(table)


def test_best_claim_is_judged_per_rule_setting(grouped: ExperimentResult) -> None:
    claims = grouped.data.claims
    assert claims is not None
    assert claims["cell"].to_list() == ["knock_limit=10", "knock_limit=7"]
    summary = grouped.data.summary
    for row in claims.iter_rows(named=True):
        rows = summary.filter(pl.col("group") == row["cell"])
        named = rows.filter(pl.col("k") == 0).row(0, named=True)
        if named["best"]:
            runner = rows.filter(~pl.col("best")).sort("diff_vs_best", descending=True)
            assert row["estimate"] == pytest.approx(-runner["diff_vs_best"][0])
            expected = "supported" if runner["holm_p"][0] < 0.05 else "too close to call"
        else:
            assert row["estimate"] == pytest.approx(named["diff_vs_best"])
            expected = "refuted" if named["holm_p"] < 0.05 else "too close to call"
        assert row["verdict"] == expected
        assert row["low"] <= row["estimate"] <= row["high"]


@pytest.mark.parametrize(
    ("extra", "expected"),
    [
        ('best = { k = 0 }\nexpect = "higher"', "do not fit a best claim"),
        ("best = { k = 5 }", "k = 5 is not in the grid"),
    ],
)
def test_bad_best_claims(tmp_path: Path, extra: str, expected: str) -> None:
    text = GROUPED.split("[[claims]]")[0] + f'[[claims]]\nsays = "x"\nsource = "y"\n{extra}\n'
    with pytest.raises(ExperimentError, match=expected):
        experiment_from_dict(tomllib.loads(text), source="bad.toml")
