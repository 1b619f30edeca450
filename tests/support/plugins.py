"""Strategy plugins for tests: sources to write, a folder to write them in, and the
project's test plugins loaded (`broken_and_remembering`)."""

from __future__ import annotations

import sys
import textwrap
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest

import strategies as S

PLUGIN_SOURCE = """
from strategies import Strategy, greedy

STRATEGY = Strategy(
    name={name!r},
    description="A test plugin: greedy under another name.",
    params=greedy.Params,
    take_nb=greedy.take_nb,
    discard_nb=greedy.discard_nb,
    knock_nb=greedy.knock_nb,
    module=__name__,
)
"""

HOOKED_PLUGIN_SOURCE = """
from numba import njit

from kernels.obs import CONTINUE
from strategies import Strategy, greedy


@njit(cache=True)
def take_nb(obs, params, scratch):
    return False


@njit(cache=True)
def discard_nb(obs, params, scratch):
    return greedy.memo_discard(obs, scratch)


@njit(cache=True)
def knock_nb(obs, params, scratch, discard):
    return CONTINUE


STRATEGY = Strategy(
    name={name!r},
    description="A test plugin with hooks of its own.",
    params=greedy.Params,
    take_nb=take_nb,
    discard_nb=discard_nb,
    knock_nb=knock_nb,
    module=__name__,
)
"""

# Greedy's hooks as pieces: a plugin that plays through a socket (sim/engine_build.py).
PIECE_PLUGIN_SOURCE = """
from kernels.link import piece
from kernels.obs import DISCARD_HOOK, KNOCK_HOOK, TAKE_HOOK
from strategies import Strategy, greedy


@piece(TAKE_HOOK)
def take_nb(obs, params, scratch):
    return greedy.take_nb(obs, params, scratch)


@piece(DISCARD_HOOK)
def discard_nb(obs, params, scratch):
    return greedy.discard_nb(obs, params, scratch)


@piece(KNOCK_HOOK)
def knock_nb(obs, params, scratch, discard):
    return greedy.knock_nb(obs, params, scratch, discard)


STRATEGY = Strategy(
    name={name!r},
    description="A test plugin: greedy's hooks as pieces.",
    params=greedy.Params,
    take_nb=take_nb,
    discard_nb=discard_nb,
    knock_nb=knock_nb,
    module=__name__,
)
"""

PluginWriter = Callable[..., str]


@contextmanager
def plugin_folder(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[PluginWriter]:
    """A fresh plugin registry and ``tmp_path`` on sys.path for plugin modules.

    Yields ``write(module, name, source=None) -> module``: it writes the module (and the
    ``__init__.py`` of its packages) from ``source``, or from ``PLUGIN_SOURCE`` naming
    the strategy ``name``. On leaving, the written modules are forgotten by Python."""
    monkeypatch.setattr(S, "_PLUGINS", {})
    monkeypatch.setattr(S, "_discovered", True)
    monkeypatch.syspath_prepend(str(tmp_path))
    made: list[str] = []

    def write(module: str, name: str | None, source: str | None = None) -> str:
        path = tmp_path.joinpath(*module.split("."))
        path.parent.mkdir(parents=True, exist_ok=True)
        for parent in list(path.parents)[: len(module.split(".")) - 1]:
            parent.joinpath("__init__.py").touch()
        text = source if source is not None else PLUGIN_SOURCE.format(name=name)
        path.with_suffix(".py").write_text(textwrap.dedent(text))
        made.append(module.split(".")[0])
        return module

    try:
        yield write
    finally:
        for module in list(sys.modules):
            if module.split(".")[0] in made:
                del sys.modules[module]


def broken_and_remembering(monkeypatch: pytest.MonkeyPatch) -> dict[str, S.Strategy]:
    """The test plugins ``tests.plugins.cheater`` and ``tests.plugins.game_memory``
    loaded (and dropped after the test), with ``greedy``, by name. They play in the
    engine of every strategy through its sockets (``strategies/sockets.py``): each
    compiles only its hooks."""
    monkeypatch.setattr(S, "_PLUGINS", dict(S._PLUGINS))
    return {
        "cheater": S.get_strategy("tests.plugins.cheater"),
        "game_memory": S.get_strategy("tests.plugins.game_memory"),
        "greedy": S.BUILTINS["greedy"],
    }
