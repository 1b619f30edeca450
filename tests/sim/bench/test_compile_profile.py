"""``benchmarks/compile_profile.py``: the longest compile chain and the ideal schedule,
on small call graphs worked out by hand (the compile measurement itself takes half a
minute: run the script by hand)."""

from __future__ import annotations

import importlib.util

import pytest

from tests.support import ROOT

_PATH = ROOT / "benchmarks" / "compile_profile.py"
_SPEC = importlib.util.spec_from_file_location("compile_profile", _PATH)
assert _SPEC is not None and _SPEC.loader is not None
compile_profile = importlib.util.module_from_spec(_SPEC)
_SPEC.loader.exec_module(compile_profile)

# top (5 s) calls left (1 s) and right (2 s); both call leaf (3 s); lone (4 s) is apart.
OWN = {0: 5.0, 1: 1.0, 2: 2.0, 3: 3.0, 4: 4.0}
CALLEES = {0: [1, 2], 1: [3], 2: [3], 3: [], 4: []}


def test_chain_is_own_time_plus_the_longest_callee_chain() -> None:
    assert compile_profile.chain(OWN, CALLEES) == {3: 3.0, 1: 4.0, 2: 5.0, 0: 10.0, 4: 4.0}


def test_chain_ignores_callees_compiled_elsewhere() -> None:
    # A callee with no compile of its own (loaded, or numba's) adds nothing.
    assert compile_profile.chain({0: 1.0}, {0: [99]}) == {0: 1.0}


@pytest.mark.parametrize(
    ("workers", "expected"),
    [
        (1, 15.0),  # one process: the total
        # Two: leaf and lone from 0; right (the longer chain) from 3, left from 4,
        # top from 5.
        (2, 10.0),
        (3, 10.0),  # the longest chain bounds every schedule
    ],
)
def test_makespan(workers: int, expected: float) -> None:
    assert compile_profile.makespan(OWN, CALLEES, workers) == pytest.approx(expected)


def test_makespan_waits_for_callees() -> None:
    # A chain cannot be split, however many processes.
    own = {0: 1.0, 1: 1.0, 2: 1.0}
    callees = {0: [1], 1: [2], 2: []}
    assert compile_profile.makespan(own, callees, 8) == pytest.approx(3.0)
