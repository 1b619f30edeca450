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
from sim.engine import engine_of, lineup_of
from sim.rules import get_rules
from sim.warm import ENTRY_MODULES, reachable_pieces

ROOT = Path(__file__).resolve().parents[2]


def _names(found: list) -> set[str]:
    return {p.name.rsplit(".", 1)[1] for p in found}


def test_the_engine_reaches_its_pieces_but_not_unseated_hooks() -> None:
    engine, _, _ = engine_of(lineup_of("greedy/simple", 2), get_rules("gin"))
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


def test_every_module_that_registers_an_entry_is_loaded() -> None:
    """``load_entries`` imports ``ENTRY_MODULES``: a module with a ``warm_entry`` missing
    there would go uncompiled by ``rummy warm``."""
    registering = {
        ".".join(path.relative_to(ROOT).with_suffix("").parts)
        for path in (ROOT / "sim").rglob("*.py")
        if "@warm_entry(" in path.read_text()
    }
    assert registering and registering <= set(ENTRY_MODULES)


def test_the_queue_does_not_depend_on_which_module_was_imported_first(monkeypatch) -> None:
    """A process that imported ``sim.stats.deadwood`` before the other entry modules (a
    test worker, say) registers its entry first; ``warm`` queues the units as any other
    process does all the same (``benchmarks/warm_units.py`` prints that order)."""
    import sim.warm as W

    W.load_entries()
    expected = W.queue()
    for module in ENTRY_MODULES:
        early = {n: e for n, e in W.ENTRIES.items() if e.module == module}
        reordered = {**early, **{n: e for n, e in W.ENTRIES.items() if n not in early}}
        monkeypatch.setattr(W, "ENTRIES", reordered)
        assert W.queue() == expected, module
    first, _, last = expected
    assert first[0] == "advise: rollouts of known opponents"  # the longest compile first
    assert [W.ENTRIES[n].order for n in first + last] == sorted(
        W.ENTRIES[n].order for n in first + last
    )


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


def test_a_helper_compiles_an_entry_its_module_registers(tmp_path: Path) -> None:
    """The helper imports the module that registered the entry (``warm_entry``) and
    compiles it there; were it not registered in the helper, this process would."""
    (tmp_path / "entry_sample.py").write_text(
        textwrap.dedent(
            """
            import os
            from pathlib import Path

            from sim.warm import warm_entry

            @warm_entry("sample: entry")
            def compile_sample() -> None:
                Path(__file__).with_name("ran_in").write_text(str(os.getpid()))
            """
        )
    )
    ran_in = tmp_path / "ran_in"
    out = _run(
        f"""
        import os, sys, time
        from pathlib import Path
        sys.path.insert(0, {str(tmp_path)!r})
        import entry_sample
        from sim.warm import compile_units

        def busy():  # until the helper has run the entry (or a minute has passed)
            deadline = time.monotonic() + 60
            while not Path({str(ran_in)!r}).exists() and time.monotonic() < deadline:
                time.sleep(0.1)

        compile_units(["sample: entry"], local=busy, processes=2)
        print(os.getpid())
        """,
        tmp_path / "cache",
    )
    assert ran_in.read_text() != out.stdout.strip()


def test_bench_cold_times_fresh_processes() -> None:
    case = Case("nothing", ["-c", "pass"], None, None)
    (row,) = bench_cold((case,), repeat=1)
    assert row.name == "nothing" and row.cold.median > 0 and row.warm.median > 0
    assert json.dumps(row.compile_s)  # a plain number
    assert [c.name for c in cases_named(["--version"])] == ["rummy --version"]
