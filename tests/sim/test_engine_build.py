"""sim/engine_build.py and the sockets: plugins play in the engine of every strategy,
their hooks compiled as pieces of a module whose text carries a hash of every source
of the plugin's package, so an edited plugin never plays from a stale cache; each hook
is imported from where it is defined, and one that cannot be is refused early."""

from __future__ import annotations

import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from typer.testing import CliRunner

import strategies as S
from sim.cli import app
from sim.engine import engine_of, lineup_of, play_deals, play_games
from sim.engine_build import engine_with, hooks_source, socketed
from sim.rules import get_rules
from strategies.sockets import SOCKETED, SOCKETS
from tests.support.cli import one_line
from tests.support.plugins import (
    HOOKED_PLUGIN_SOURCE,
    PIECE_PLUGIN_SOURCE,
    PluginWriter,
    plugin_folder,
)


@pytest.fixture
def plugin_dir(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[PluginWriter]:
    """A fresh plugin registry and a temp directory on sys.path for plugin modules."""
    with plugin_folder(tmp_path, monkeypatch) as write:
        yield write


def assert_same_columns(got: Any, want: Any) -> None:
    for field in want._fields:
        assert np.array_equal(getattr(got, field), getattr(want, field)), field


def piece_plugin(plugin_dir: Any, module: str, name: str) -> str:
    return plugin_dir(module, None, PIECE_PLUGIN_SOURCE.format(name=name))


def test_plugins_of_pieces_play_in_the_engine_of_every_strategy(plugin_dir: Any) -> None:
    """A line-up with plugins whose hooks are pieces plays on the very engine of every
    strategy that built-in line-ups play on (compiled once for all, by ``rummy warm``),
    each plugin plugged into a socket of its own; plugins that play greedy's hooks
    under other names play greedy's very hands and games, one seat or both."""
    S.load_plugin(piece_plugin(plugin_dir, "h5_same_a", "h5samea"))
    S.load_plugin(piece_plugin(plugin_dir, "h5_same_b", "h5sameb"))
    rules = get_rules("gin")
    plain, _, _ = engine_of(lineup_of("greedy/simple", 2), rules)
    engine, ids, _ = engine_of(lineup_of("h5samea/h5sameb", 2), rules)
    assert engine is plain
    first = len(S.BUILTINS) + 1  # the built-ins, the agent seats, then the sockets
    assert all(first <= i < first + len(SOCKETED) for i in ids) and ids[0] != ids[1]
    for spec in ("h5samea/simple", "h5samea/h5sameb"):
        want = spec.replace("h5samea", "greedy").replace("h5sameb", "greedy")
        got, ref = (play_deals("gin", s, deals=300, seed=4) for s in (spec, want))
        assert_same_columns(got, ref)
    (games, hands), (ref_games, ref_hands) = (
        play_games("eaai", s, games=4, seed=4) for s in ("h5samea/simple", "greedy/simple")
    )
    assert_same_columns(games, ref_games)
    assert_same_columns(hands, ref_hands)


def test_a_plugin_of_plain_hooks_is_compiled_into_an_engine(plugin_dir: Any) -> None:
    """Small hooks play at full speed compiled into the loop (through a socket, greedy's
    hooks play at half speed): the engine of such a plugin's line-up holds its hooks,
    imported from where they are defined, and a hash of its package's sources."""
    plain = S.load_plugin(plugin_dir("h5_reuse.strat", "h5reuse"))
    assert not socketed(plain)
    assert socketed(S.load_plugin(piece_plugin(plugin_dir, "h5_piece", "h5piece")))
    engine, ids = engine_with([plain])
    source = Path(engine.__file__).read_text()
    for hook in ("take_nb", "discard_nb", "knock_nb"):
        assert f"from strategies.greedy import {hook} as _{hook[:-3]}_{ids['h5reuse']}" in source
    assert "# sources of h5_reuse: " in source
    assert engine is not engine_with([])[0]


# A plugin of pieces that compiles in a moment: it never takes the pile card, throws
# its lowest card and never knocks (legal, if weak).
PLAIN_PLUGIN_SOURCE = (
    PIECE_PLUGIN_SOURCE.replace(
        "from strategies import",
        "import numpy as np\nfrom kernels.bits import lowest_bit\n"
        "from kernels.obs import CONTINUE\nfrom strategies import",
    )
    # typed answers (the hooks' declared types), not the literals False and CONTINUE
    .replace("return greedy.take_nb(obs, params, scratch)", "return np.bool_(False)")
    .replace("return greedy.discard_nb(obs, params, scratch)", "return lowest_bit(obs.hand)")
    .replace("return greedy.knock_nb(obs, params, scratch, discard)", "return np.int64(CONTINUE)")
)


def test_a_seventh_plugin_in_one_process_is_refused_until_one_is_dropped(
    plugin_dir: Any,
) -> None:
    """Six plugins of pieces play in one process, each in a socket of its own; a seventh
    is refused in one line, and takes the socket of one dropped from the registry (the
    six throw their lowest card, the seventh plays greedy's hooks)."""
    names = [f"h5many{k}" for k in range(SOCKETS + 1)]
    for k, name in enumerate(names[:-1]):
        S.load_plugin(plugin_dir(f"h5_many.p{k}", None, PLAIN_PLUGIN_SOURCE.format(name=name)))
    S.load_plugin(piece_plugin(plugin_dir, f"h5_many.p{SOCKETS}", names[-1]))
    for name in names[:-1]:
        play_deals("gin", f"{name}/greedy", deals=2, seed=1)
    with pytest.raises(S.StrategyError, match="at most 6 plugin strategies can play in one"):
        play_deals("gin", f"{names[-1]}/greedy", deals=2, seed=1)
    del S._PLUGINS[names[0]]
    got = play_deals("gin", f"{names[-1]}/simple", deals=200, seed=1)
    assert_same_columns(got, play_deals("gin", "greedy/simple", deals=200, seed=1))


def test_hooks_text_follows_every_plugin_source(plugin_dir: Any, tmp_path: Any) -> None:
    """A plugin's hooks compile into pieces of a module found by its text, which carries
    a hash of the plugin package's sources: an edit to any of them (a helper module too)
    compiles the hooks afresh, never from a stale cache."""
    module = plugin_dir("h5_pkg_src.strat", None, PIECE_PLUGIN_SOURCE.format(name="h5src"))
    helper = tmp_path / "h5_pkg_src" / "helper.py"
    helper.write_text("LIMIT = 1\n")
    plugin = S.load_plugin(module)
    before = hooks_source(plugin)
    assert "# sources of h5_pkg_src: " in before
    assert "from h5_pkg_src.strat import take_nb as _take_piece" in before
    assert hooks_source(plugin) == before
    helper.write_text("LIMIT = 2\n")
    assert hooks_source(plugin) != before


# A plugin knocking at every question from a turn its helper module names, its hooks
# pieces (played through a socket) or plain (compiled into an engine).
STALE_PLUGIN_SOURCE = (
    PIECE_PLUGIN_SOURCE.format(name="h5stale")
    .replace(
        "from strategies import",
        "from kernels.obs import CONTINUE, KNOCK\nfrom h5_stale.helper import FIRST\n"
        "from strategies import",
    )
    .replace(
        "    return greedy.knock_nb(obs, params, scratch, discard)",
        "    return CONTINUE if obs.turn < FIRST else KNOCK",
    )
)
PLAIN_STALE_PLUGIN_SOURCE = (
    STALE_PLUGIN_SOURCE.replace("from kernels.link import piece", "from numba import njit")
    .replace("@piece(TAKE_HOOK)", "@njit(cache=True)")
    .replace("@piece(DISCARD_HOOK)", "@njit(cache=True)")
    .replace("@piece(KNOCK_HOOK)", "@njit(cache=True)")
)

PLAY = """
import sys
sys.path.insert(0, sys.argv[1])
import strategies
from sim.engine import play_deals
strategies.load_plugin("h5_stale.strat")
print(play_deals("gin", "h5stale/greedy", deals=300, seed=4).points.sum(axis=0).tolist())
"""


@pytest.mark.parametrize(
    "source",
    [STALE_PLUGIN_SOURCE, pytest.param(PLAIN_STALE_PLUGIN_SOURCE, marks=pytest.mark.slow)],
    ids=["pieces", "plain"],
)
def test_an_edit_to_a_plugins_helper_changes_its_play(
    plugin_dir: Any, tmp_path: Path, source: str
) -> None:
    """Numba caches a function by its own file: a hook cached before its helper module
    changed would play the old way. A plugin's hooks compile afresh after any edit to
    its package, in a new process on the same cache, as a user meets it: here the
    edit makes the plugin knock illegally, and the run must say so. (Plain hooks
    compile a whole engine three times: slow.)"""
    plugin_dir("h5_stale.strat", None, source)
    helper = tmp_path / "h5_stale" / "helper.py"

    def play(first: int) -> subprocess.CompletedProcess[str]:
        helper.write_text(f"FIRST = {first}\n")
        return subprocess.run([sys.executable, "-c", PLAY, str(tmp_path)], capture_output=True,
                              text=True, timeout=600)  # fmt: skip

    never = play(1000)  # never knocks: plays for gin, every decision legal
    assert never.returncode == 0, never.stderr
    early = play(0)  # knocks at its first question: above the limit
    assert early.returncode == 1 and "knocked with deadwood above the knock limit" in early.stderr
    assert play(1000).stdout == never.stdout


def test_a_hook_that_is_no_module_level_name_is_refused_when_loaded(
    plugin_dir: Any, tmp_path: Path
) -> None:
    """A hook the engine cannot import by name (made in a call) is refused as the plugin
    loads, before any run is set up: a StrategyError naming the strategy and the hook,
    which ``rummy run`` says in one line, with nothing written."""
    source = HOOKED_PLUGIN_SOURCE.format(name="h5local").replace(
        "take_nb=take_nb,", "take_nb=njit(lambda obs, params, scratch: False),"
    )
    module = plugin_dir("h5_local.strat", None, source)
    with pytest.raises(S.StrategyError, match="'h5local': take_nb must be a module-level"):
        S.load_plugin(module)
    out = tmp_path / "results"
    args = ["run", "--seats", f"{module}/greedy", "--deals", "10", "--seed", "1"]
    result = CliRunner().invoke(app, [*args, "--out", str(out)])
    one_line(result, 1, "'h5local': take_nb must be a module-level function")
    assert not out.exists()
