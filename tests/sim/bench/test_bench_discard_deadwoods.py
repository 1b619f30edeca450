"""``benchmarks/bench_discard_deadwoods.py`` runs as documented (tiny sizes): one line
per kind of hand and kernel, after checking that its two ways agree card for card, and
its melded hands hold 11 cards with melds in them. The speed itself is measured by running
the script by hand."""

from __future__ import annotations

import importlib.util
import sys

import numpy as np
import pytest

from sim.rules import get_rules
from sim.solver import tables_for
from tests.support import ROOT

_SPEC = importlib.util.spec_from_file_location(
    "bench_discard_deadwoods", ROOT / "benchmarks" / "bench_discard_deadwoods.py"
)
assert _SPEC is not None and _SPEC.loader is not None
bench = importlib.util.module_from_spec(_SPEC)
_SPEC.loader.exec_module(bench)


def test_one_line_per_kind_of_hand(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setattr(sys, "argv", ["bench", "--hands", "300", "--repeat", "2"])
    bench.main()
    lines = capsys.readouterr().out.splitlines()
    assert [line[:17].strip() for line in lines] == [
        "random, 11 cards", "random, 8 cards", "melded, 11 cards", "random, 12 cards",
        "melded, 12 cards",
    ]  # fmt: skip
    kernels = ["discard_deadwoods"] * 3 + ["second_discard_deadwoods"] * 2
    assert [line[18:].split(":")[0] for line in lines] == kernels
    assert all("one pass" in line and "ratio" in line for line in lines)


def test_melded_hands_are_knock_time_hands() -> None:
    """11 cards each, and most of them melded: a solve leaves little deadwood."""
    hands = bench.melded_hands(200, seed=3)
    assert all(bin(int(h)).count("1") == 11 for h in hands)
    tab = tables_for(get_rules("gin"))
    out = np.zeros((len(hands), 54), np.int64)
    bench.one_pass(hands, tab, out)
    least = [min(out[i][[c for c in range(52) if int(h) >> c & 1]]) for i, h in enumerate(hands)]
    assert np.median(least) <= 20  # 10 here; 51 for random 11-card hands
