"""Compiling ahead (``sim/warm.py``): which pieces a kernel may call, helper processes
that compile into the shared cache, and the cold-start benchmark's machinery."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap
from pathlib import Path

from sim.bench.cold import Case, bench_cold, cases_named
from sim.engine import _engine, lineup_of
from sim.warm import reachable_pieces

ROOT = Path(__file__).resolve().parents[2]


def _names(found: list) -> set[str]:
    return {p.name.rsplit(".", 1)[1] for p in found}


def test_the_engine_reaches_its_pieces_but_not_unseated_hooks() -> None:
    engine, _ = _engine(lineup_of("greedy/simple", 2))
    dispatch = (engine.hook_take, engine.hook_discard, engine.hook_knock)
    loop = _names(reachable_pieces([engine.play_hands], skip=dispatch))
    assert {"showdown", "knocker_arrangement", "layoff_optimal", "canonical_arrangement",
            "min_deadwood_one"} <= loop  # fmt: skip
    assert "take_nb" not in loop and "evaluate" not in loop  # mc: only when seated
    from strategies import get_strategy

    mc = get_strategy("mc")
    seated = _names(reachable_pieces([mc.take_nb, mc.discard_nb, mc.knock_nb]))
    assert {"take_nb", "discard_nb", "knock_nb", "evaluate", "showdown"} <= seated


def _run(script: str, cache: Path) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "NUMBA_CACHE_DIR": str(cache), "PYTHONPATH": str(ROOT)}
    env.pop("RUMMY_NUMBA_CACHE_BASE", None)
    return subprocess.run(
        [sys.executable, "-c", textwrap.dedent(script)],
        env=env, capture_output=True, text=True, check=True,
    )  # fmt: skip


def test_a_helper_compiles_into_the_shared_cache(tmp_path: Path) -> None:
    """This process is busy (``local``): the helper takes the piece; this process then
    loads it from the cache, compiling nothing."""
    out = _run(
        """
        import time
        from sim.warm import compile_units
        from tests.support import link_sample as S
        compile_units([S.weighted.name], local=lambda: time.sleep(2), processes=2)
        print(S.weighted.load())
        """,
        tmp_path,
    )
    assert out.stdout.split() == ["True"]


def test_what_a_helper_cannot_compile_is_compiled_here(tmp_path: Path) -> None:
    """A unit the helper fails on is compiled again in this process, where its error
    shows (here: no such module)."""
    out = _run(
        """
        import time
        from sim.warm import compile_units
        try:
            compile_units(["no_such_module.piece"], local=lambda: time.sleep(2), processes=2)
        except ModuleNotFoundError as error:
            print("raised", error.name)
        """,
        tmp_path,
    )
    assert out.stdout.split() == ["raised", "no_such_module"]


def test_bench_cold_times_fresh_processes() -> None:
    case = Case("nothing", ["-c", "pass"], None, None)
    (row,) = bench_cold((case,), repeat=1)
    assert row.name == "nothing" and row.cold.median > 0 and row.warm.median > 0
    assert json.dumps(row.compile_s)  # a plain number
    assert [c.name for c in cases_named(["--version"])] == ["rummy --version"]
