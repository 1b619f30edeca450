"""sim/engine_build.py: the generated engine's text carries a hash of every plugin
package's sources, so an edited plugin never runs from a stale engine."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

import strategies as S
from sim.engine_build import engine_source
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
