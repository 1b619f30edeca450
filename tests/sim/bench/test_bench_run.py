"""``rummy bench run``: the report's structure (never its timings), errors, the sampler."""

from __future__ import annotations

import json
import tempfile
from pathlib import Path

import pytest
from typer.testing import CliRunner

from sim.bench.run import MODES, TreeSampler, proc_available
from sim.cli import app

cli = CliRunner()


@pytest.mark.slow  # heavy; the default suite covers this path more cheaply
def test_bench_run_json_structure(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(tempfile, "tempdir", str(tmp_path))  # where the runs go
    result = cli.invoke(
        app,
        ["bench", "run", "--deals", "2000", "--repeat", "1", "--workers", "2",
         "--chunk-size", "1000", "--memory-deals", "1500", "--json"],
    )  # fmt: skip
    assert result.exit_code == 0, result.output
    report = json.loads(result.stdout)
    assert (report["rules"], report["lineup"], report["deals"]) == ("gin", "greedy/greedy", 2000)
    assert (report["workers"], report["chunk_size"], report["repeat"]) == (2, 1000, 1)
    assert set(report["modes"]) == set(MODES)
    for mode, timing in report["modes"].items():
        assert timing["mode"] == mode
        assert len(timing["rates"]) == len(timing["seconds"]) == 1
        assert timing["hands_per_second"] == timing["rates"][0] > 0
        assert timing["low"] <= timing["hands_per_second"] <= timing["high"]
        assert (timing["overhead"] is None) == (mode == "kernel")
        assert (timing["cpu_overhead"] is None) == (mode == "kernel")
        assert len(timing["cpu_seconds"]) == 1 and timing["cpu_us_per_hand"] >= 0
        assert len(timing["summary_seconds"]) == (0 if mode == "kernel" else 1)
        if proc_available():
            assert timing["peak_rss_mb"] > 0 and timing["peak_pss_mb"] > 0
            assert timing["peak_processes"] >= 1
    assert set(report["ratios"]) == {"hands", "none"}
    kernel = report["modes"]["kernel"]["hands_per_second"]
    for mode in ("hands", "none"):
        rate = report["modes"][mode]["hands_per_second"]
        assert report["ratios"][mode] == pytest.approx(rate / kernel)
        assert report["modes"][mode]["overhead"] == pytest.approx(kernel / rate - 1)
    assert report["maxrss_self_mb"] > 0
    (memory,) = report["memory"]
    assert (memory["deals"], memory["workers"], memory["lineup"]) == (1500, 2, "greedy/greedy")
    assert memory["hands_per_second"] > 0 and memory["maxrss_driver_mb"] > 0
    assert not list(tmp_path.iterdir()), "the temporary runs are removed"


def test_bench_run_table_and_rule_override() -> None:
    result = cli.invoke(
        app,
        ["bench", "run", "--deals", "300", "--repeat", "1", "--workers", "1",
         "--rules", "gin", "--rule", "knock_limit=7", "--seats", "greedy/simple"],
    )  # fmt: skip
    assert result.exit_code == 0, result.output
    assert "greedy/simple" in result.stdout and "run, rows none" in result.stdout
    assert "repeat 1/1" in result.stderr


@pytest.mark.parametrize(
    ("args", "expected", "status"),
    [
        (["--deals", "0"], "Invalid value for '--deals'", 2),
        (["--seats", "nope/greedy"], "nope", 1),
        (["--rules", "nope"], "unknown preset 'nope'", 1),
        (["--memory-deals", "0"], "Invalid value for '--memory-deals'", 2),
    ],
)
def test_bench_run_errors_are_one_line(args: list[str], expected: str, status: int) -> None:
    result = cli.invoke(app, ["bench", "run", "--deals", "100", "--repeat", "1", *args])
    assert result.exit_code == status, result.output
    err = result.stderr.strip()
    assert err.startswith("error: ") and "\n" not in err and expected in err, err


def test_tree_sampler_sees_this_process() -> None:
    with TreeSampler(interval=0.01) as sampler:
        block = bytearray(32 * 1024 * 1024)  # touch 32 MiB
        block[::4096] = b"x" * len(block[::4096])
    if not proc_available():
        assert sampler.peak_rss_mb is None
        return
    assert sampler.peak_rss_mb is not None and sampler.peak_rss_mb >= 32
    assert sampler.peak_pss_mb is not None and sampler.peak_pss_mb > 0
    assert sampler.peak_processes >= 1
