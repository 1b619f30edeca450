"""``benchmarks/warm_units.py`` runs as documented: a line for every piece, then for every
entry of ``rummy warm``, in ``warm``'s order, and the total. Marked slow: on a cache
``rummy warm`` has not filled it compiles everything (minutes); under ``-m slow`` the
whole run's warm-up has filled it, so every unit only loads."""

from __future__ import annotations

import os
import subprocess
import sys

import pytest

from tests.support import ROOT


@pytest.mark.slow
def test_every_unit_of_warm_has_a_line_in_warms_order() -> None:
    from sim.warm import _weight, all_pieces, queue

    first, _, last = queue()
    env = {**os.environ, "RUMMY_PARALLEL_COMPILE": "0"}
    out = subprocess.run(
        [sys.executable, str(ROOT / "benchmarks" / "warm_units.py")],
        capture_output=True, text=True, env=env, cwd=ROOT, timeout=1200, check=True,
    ).stdout.splitlines()  # fmt: skip
    assert out[0].startswith("import ") and out[-1].startswith("total ")
    units = [line.split(maxsplit=2)[1:] for line in out[1:-1]]
    kinds = [kind for kind, _ in units]
    assert kinds == sorted(kinds, key=["piece", "entry"].index)  # the pieces first
    listed = [name for kind, name in units if kind == "piece"]
    by_name = {p.name: p for p in all_pieces()}  # this process may hold test pieces too
    ours = {name for name in by_name if name.startswith(("kernels.", "strategies."))}
    assert set(listed) >= ours and len(listed) == len(set(listed))
    weights = [_weight(by_name[name]) for name in listed]
    assert weights == sorted(weights, reverse=True)  # heaviest first, as warm queues them
    assert [name for kind, name in units if kind == "entry"] == [*first, *last]
    seconds = [float(line.split()[0]) for line in out[1:-1]]
    assert all(s >= 0 for s in seconds) and sum(seconds) <= float(out[-1].split()[1])
