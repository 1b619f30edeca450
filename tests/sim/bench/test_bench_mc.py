"""``benchmarks/bench_mc.py`` runs as documented (tiny sizes, in this process so it
reuses the mc kernels the suite compiles): one line per setting and their ratio. The
speed itself is measured by running the script by hand."""

from __future__ import annotations

import importlib.util
import sys

import pytest

from tests.support import ROOT

_SPEC = importlib.util.spec_from_file_location("bench_mc", ROOT / "benchmarks" / "bench_mc.py")
assert _SPEC is not None and _SPEC.loader is not None
bench_mc = importlib.util.module_from_spec(_SPEC)
_SPEC.loader.exec_module(bench_mc)


@pytest.mark.parametrize("rules", ["eaai", "knock-rummy"])
def test_bench_mc_times_two_settings(
    rules: str, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    argv = ["bench_mc.py", "--rules", rules, "--positions", "2", "--mc", "samples=4",
            "--vs", "samples=4,candidates=0,screen=2,gin_drop=1"]  # fmt: skip
    monkeypatch.setattr(sys, "argv", argv)
    bench_mc.main()
    out = capsys.readouterr().out
    assert "mc:samples=4: draw decision" in out
    assert "mc:samples=4,candidates=0,screen=2,gin_drop=1: draw decision" in out
    assert "decisions/s" in out and "ratio" in out
