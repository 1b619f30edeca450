"""strategies/__init__.py: the built-in registry, seat and line-up parsing, parameter
vectors, a strategy's checks of its definition, and plugins (by module, by entry
point, their errors, and their sources in a run's identity)."""

from __future__ import annotations

from collections import namedtuple
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import numpy as np
import pytest

import strategies as S
from kernels.obs import N_PARAMS
from strategies import StrategyError, params_vector, parse_lineup, parse_seat
from tests.support.plugins import HOOKED_PLUGIN_SOURCE, PluginWriter, plugin_folder


@pytest.fixture
def plugin_dir(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[PluginWriter]:
    """A fresh plugin registry and a temp directory on sys.path for plugin modules."""
    with plugin_folder(tmp_path, monkeypatch) as write:
        yield write


def test_builtins_in_order_and_well_formed() -> None:
    assert list(S.BUILTINS) == [
        "random",
        "greedy",
        "simple",
        "schedule",
        "defensive",
        "mc",
        "advice",
        "chart",
        "rollout",
    ]
    for name, strategy in S.BUILTINS.items():
        assert strategy.name == name
        assert strategy.module == f"strategies.{name}"
        assert len(strategy.params._fields) <= N_PARAMS
        assert strategy.summary and strategy.description.strip()
        for value in strategy.params():
            if isinstance(value, str):  # a spec parameter (Strategy.specs): empty or a word
                assert any(value in ("", *words) for words in strategy.specs.values())
                continue
            assert isinstance(value, (int, float)) and not isinstance(value, bool)
    assert S.registry()["greedy"] is S.BUILTINS["greedy"]


def test_get_strategy_unknown_lists_the_known() -> None:
    with pytest.raises(StrategyError) as info:
        S.get_strategy("nope")
    for name in S.BUILTINS:
        assert name in str(info.value)


def test_parse_seat() -> None:
    strategy, params = parse_seat("greedy:knock_at=7,min_gain=2")
    assert strategy is S.BUILTINS["greedy"]
    assert tuple(params) == (7, 2)
    strategy, params = parse_seat("simple")
    assert strategy.name == "simple" and params == strategy.params()
    _, params = parse_seat(" schedule: a=12, b=1 ")
    assert (params.a, params.b, params.lo) == (12.0, 1.0, 0.0)
    assert isinstance(params.a, float)
    _, params = parse_seat("defensive:alarm-turn=3")
    assert params.alarm_turn == 3
    assert S.format_seat(*parse_seat("greedy:knock_at=7")) == "greedy:knock_at=7"
    assert S.format_seat(*parse_seat("greedy")) == "greedy"


@pytest.mark.parametrize(
    ("spec", "words"),
    [
        ("nope:knock_at=1", ["unknown strategy", "greedy", "defensive"]),
        ("greedy:foo=1", ["unknown parameter 'foo'", "knock_at, min_gain"]),
        ("greedy:knock_at=x", ["knock_at", "'x'", "whole number"]),
        ("greedy:knock_at=7.5", ["knock_at", "whole number"]),
        ("greedy:knock_at", ["key=value"]),
        ("greedy:knock_at=1,knock_at=2", ["twice"]),
        ("random:p=1.5", ["'p'", "between 0 and 1"]),
        ("schedule:a=inf", ["'a'", "finite"]),
        ("schedule:b=abc", ["'b'", "not a number"]),
        ("greedy:knock_at=-2", ["knock_at", "between -1 and 1000000"]),
        ("", ["empty"]),
    ],
)
def test_parse_seat_errors(spec: str, words: list[str]) -> None:
    with pytest.raises(StrategyError) as info:
        parse_seat(spec)
    for word in words:
        assert word in str(info.value), str(info.value)


def test_parse_lineup() -> None:
    seats = parse_lineup("greedy:knock_at=7/simple", 2)
    assert [s.name for s, _ in seats] == ["greedy", "simple"]
    assert seats[0][1].knock_at == 7
    seats = parse_lineup("greedy", 4)
    assert len(seats) == 4 and all(s.name == "greedy" for s, _ in seats)
    seats = parse_lineup(["random:p=0.2", "defensive"], 2)
    assert seats[0][1].p == 0.2 and seats[1][0].name == "defensive"
    with pytest.raises(StrategyError, match="3 seats given"):
        parse_lineup("greedy/simple/random", 2)
    with pytest.raises(StrategyError, match="empty seat"):
        parse_lineup("greedy//simple", 3)
    with pytest.raises(StrategyError, match="unknown parameter"):
        parse_lineup("greedy/simple:x=1", 2)
    # Commas separate seats too; an item with '=' and no ':' is a parameter of the seat
    # before it.
    seats = parse_lineup("simple,greedy:knock_at=5,min_gain=2", 2)
    assert [s.name for s, _ in seats] == ["simple", "greedy"]
    assert (seats[1][1].knock_at, seats[1][1].min_gain) == (5, 2)
    seats = parse_lineup("greedy:knock_at=7,min_gain=2", 4)  # one seat spec, every seat
    assert len(seats) == 4 and seats[3][1].min_gain == 2
    with pytest.raises(StrategyError, match="empty seat"):
        parse_lineup("greedy,,simple", 3)
    with pytest.raises(StrategyError, match="comes before any strategy"):
        parse_lineup("knock_at=5,greedy", 2)


def test_params_vector() -> None:
    v = params_vector(S.BUILTINS["schedule"].params(a=12.0, min_gain=3))
    assert v.dtype == np.float64 and v.shape == (N_PARAMS,)
    assert list(v[:4]) == [12.0, 0.5, 0.0, 3.0] and not v[4:].any()


def test_strategy_checks_its_definition() -> None:
    from typing import NamedTuple

    from strategies import greedy

    hooks = {
        "take_nb": greedy.take_nb,
        "discard_nb": greedy.discard_nb,
        "knock_nb": greedy.knock_nb,
    }

    Many = namedtuple("Many", [f"p{i}" for i in range(N_PARAMS + 1)], defaults=[0] * (N_PARAMS + 1))

    class Flag(NamedTuple):
        on: bool = True

    class NoDefault(NamedTuple):
        x: int

    for params, words in ((Many, "at most"), (Flag, "int or a float"), (NoDefault, "no default")):
        with pytest.raises(StrategyError, match=words):
            S.Strategy("x", "X.", params, module="t", **hooks)
    with pytest.raises(StrategyError, match="@njit"):
        S.Strategy(
            "x",
            "X.",
            greedy.Params,
            greedy.take_nb.py_func,
            greedy.discard_nb,
            greedy.knock_nb,
            "t",
        )
    with pytest.raises(StrategyError, match="name"):
        S.Strategy("a:b", "X.", greedy.Params, module="t", **hooks)


def test_load_plugin(plugin_dir: Any) -> None:
    module = plugin_dir("h5_plugin_one", "h5one")
    strategy = S.load_plugin(module)
    assert strategy.name == "h5one" and strategy.module == module
    assert S.registry()["h5one"] is strategy
    assert list(S.registry())[: len(S.BUILTINS)] == list(S.BUILTINS)
    assert S.load_plugin(module) is strategy  # loading again is harmless
    seat, params = parse_seat("h5one:knock_at=3")
    assert seat is strategy and params.knock_at == 3


def test_plugin_by_module_path_in_a_seat(plugin_dir: Any) -> None:
    module = plugin_dir("h5_pkg_two.mod", "h5two")
    seat, params = parse_seat(f"{module}:min_gain=4")
    assert seat.name == "h5two" and params.min_gain == 4
    assert S.get_strategy("h5two") is seat


def test_plugin_errors(plugin_dir: Any) -> None:
    with pytest.raises(StrategyError, match="built-in"):
        S.load_plugin(plugin_dir("h5_plugin_clash", "greedy"))
    S.load_plugin(plugin_dir("h5_plugin_a", "h5same"))
    with pytest.raises(StrategyError, match="two strategy plugins are named 'h5same'"):
        S.load_plugin(plugin_dir("h5_plugin_b", "h5same"))
    with pytest.raises(StrategyError, match="no STRATEGY"):
        S.load_plugin(plugin_dir("h5_plugin_empty", None, "X = 1\n"))
    with pytest.raises(StrategyError, match="must be a strategies.Strategy"):
        S.load_plugin(plugin_dir("h5_plugin_wrong", None, "STRATEGY = 3\n"))
    with pytest.raises(StrategyError, match="cannot import"):
        S.load_plugin("h5_no_such_module_anywhere")


class FakeEntryPoint:
    def __init__(self, name: str, value: str, load: Any) -> None:
        self.name = name
        self.value = value
        self._load = load

    def load(self) -> Any:
        return self._load()


def test_discover_entry_points(plugin_dir: Any, monkeypatch: pytest.MonkeyPatch) -> None:
    import importlib

    module = plugin_dir("h5_plugin_ep", "h5ep")
    points = [FakeEntryPoint("h5ep", module, lambda: importlib.import_module(module))]
    monkeypatch.setattr(
        S, "entry_points", lambda group: points if group == S.ENTRY_POINT_GROUP else []
    )
    found = S.discover()
    assert [s.name for s in found] == ["h5ep"]
    assert "h5ep" in S.registry()

    def broken() -> Any:
        raise RuntimeError("boom")

    points.append(FakeEntryPoint("bad", "bad.module", broken))
    with pytest.raises(StrategyError, match="'bad'.*boom"):
        S.discover()


def test_get_strategy_discovers_lazily(plugin_dir: Any, monkeypatch: pytest.MonkeyPatch) -> None:
    import importlib

    module = plugin_dir("h5_plugin_lazy", "h5lazy")
    points = [FakeEntryPoint("h5lazy", module, lambda: importlib.import_module(module))]
    monkeypatch.setattr(S, "entry_points", lambda group: points)
    monkeypatch.setattr(S, "_discovered", False)
    assert S.get_strategy("h5lazy").name == "h5lazy"


def test_run_identity_follows_every_plugin_source(plugin_dir: Any, tmp_path: Any) -> None:
    """A run seating a plugin is tied to its package's sources: after an edit (a helper
    module too) a resume is refused with a line that says so, never a mixed run."""
    from sim.study import rundir
    from sim.study.execute import LOCAL
    from sim.study.runs import RunConfig, RunError

    module = plugin_dir("h5_pkg_id.strat", None, HOOKED_PLUGIN_SOURCE.format(name="h5id"))
    helper = tmp_path / "h5_pkg_id" / "helper.py"
    helper.write_text("LIMIT = 1\n")
    config = RunConfig(
        rules="gin", lineup=f"{module}/greedy", count=10, seed=1, out=tmp_path / "out",
        command="t",
    )  # fmt: skip
    assert config.identity()["plugin_digests"].keys() == {"h5_pkg_id"}
    config.run_dir.mkdir(parents=True)
    rundir.prepare(config, config.run_dir, LOCAL.to_dict())
    resumed, _ = rundir.resume_config(config.run_dir)
    assert resumed.config_hash == config.config_hash
    helper.write_text("LIMIT = 2\n")
    with pytest.raises(RunError, match="sources of a plugin strategy's package changed"):
        rundir.resume_config(config.run_dir)


def test_mask_parameters_reach_52_bits_and_no_further() -> None:
    """A mask field (``Strategy.masks``) may exceed PARAM_LIMIT up to MASK_LIMIT, exact
    in the float64 vector; a field that is not a mask stays within PARAM_LIMIT; a mask
    naming no parameter is refused."""
    from strategies.base import MASK_LIMIT, PARAM_LIMIT, Strategy, param_bounds

    chart = S.BUILTINS["chart"]
    assert param_bounds(chart, "safety") == (0, MASK_LIMIT) and MASK_LIMIT > PARAM_LIMIT
    _, params = parse_seat(f"chart:safety={MASK_LIMIT}")
    assert int(params_vector(params)[40]) == MASK_LIMIT
    assert param_bounds(S.BUILTINS["greedy"], "knock_at") == (-1, PARAM_LIMIT)
    greedy = S.BUILTINS["greedy"]
    with pytest.raises(StrategyError, match="unknown parameter 'nope'"):
        Strategy(name="x", description="x", params=greedy.params, take_nb=greedy.take_nb,
                 discard_nb=greedy.discard_nb, knock_nb=greedy.knock_nb, module="x",
                 masks=frozenset({"nope"}))  # fmt: skip
