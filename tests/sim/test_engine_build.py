"""sim/engine_build.py: the generated engine's text carries a hash of every plugin
package's sources, so an edited plugin never runs from a stale engine; it imports each
hook from where it is defined, and a hook it could not import is refused early."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

import strategies as S
from sim.cli import app
from sim.engine_build import engine_source
from strategies import greedy
from tests.support.cli import one_line
from tests.support.plugins import HOOKED_PLUGIN_SOURCE, PluginWriter, plugin_folder


@pytest.fixture
def plugin_dir(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[PluginWriter]:
    """A fresh plugin registry and a temp directory on sys.path for plugin modules."""
    with plugin_folder(tmp_path, monkeypatch) as write:
        yield write


def test_engine_text_follows_every_plugin_source(plugin_dir: Any, tmp_path: Any) -> None:
    """A plugin's hooks compile into the engine, whose numba cache is found by the
    engine's text: the text carries a hash of the plugin package's sources, so an
    edit to any of them (a helper module too) builds a fresh engine, never a stale one."""
    module = plugin_dir("h5_pkg_src.strat", None, HOOKED_PLUGIN_SOURCE.format(name="h5src"))
    helper = tmp_path / "h5_pkg_src" / "helper.py"
    helper.write_text("LIMIT = 1\n")
    lineup = [S.BUILTINS["greedy"], S.load_plugin(module)]
    before = engine_source(lineup)
    assert "# sources of h5_pkg_src: " in before
    assert "# sources of" not in engine_source([S.BUILTINS["greedy"]])
    assert engine_source(lineup) == before
    helper.write_text("LIMIT = 2\n")
    assert engine_source(lineup) != before


def test_a_plugin_may_reuse_another_modules_hooks(plugin_dir: Any) -> None:
    """A hook is imported from the module that defines it: a plugin that seats greedy's
    own hooks (``greedy.take_nb``, no name of the plugin's module) builds an engine
    whose dispatchers import greedy's, from greedy's module."""
    plugin = S.load_plugin(plugin_dir("h5_reuse.strat", "h5reuse"))
    source = engine_source([plugin])
    for hook in ("take_nb", "discard_nb", "knock_nb"):
        assert f"from strategies.greedy import {hook} as " in source
        assert getattr(plugin, hook) is getattr(greedy, hook)


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
