"""``benchmarks/bench_mc.py`` runs as documented (tiny sizes, in this process so it
reuses the mc kernels the suite compiles) and prints a line per opponent model. The
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


@pytest.mark.parametrize(("rules", "rollouts"), [("eaai", 0), ("knock-rummy", 26)])
def test_bench_mc_times_each_model(
    rules: str, rollouts: int, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    argv = ["bench_mc.py", "--rules", rules, "--samples", "2", "--positions", "2"]
    monkeypatch.setattr(sys, "argv", argv)
    bench_mc.main()
    out = capsys.readouterr().out
    assert f"rollouts knock at {rollouts} " in out  # mc's default for the rules
    for model in ("uniform", "kept", "inferred"):
        line = next(line for line in out.splitlines() if line.strip().startswith(model))
        assert "decisions/s" in line and "rollouts/s" in line
