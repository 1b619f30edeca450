"""Named parameter slots (``kernels/slots.py``): no hook reads a parameter at a position
written as a number, every slot is its field's place in ``Params``, and the plugin module
that ``strategies``' docs show plays as it says."""

from __future__ import annotations

import ast
import importlib
import textwrap
from collections.abc import Iterator
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest

import strategies as S
from kernels import mc as K
from kernels import rollout
from kernels.obs import CONTINUE, KNOCK, PHASE_DRAW
from sim import advise
from strategies import chart, param_bounds, params_vector
from tests.support import ROOT
from tests.support.plugins import plugin_folder
from tests.support.positions import BASE_10, GIN, card, mask, position, rules_of, scratch

CHECKED = ("strategies", "kernels")  # every module that holds hooks


def holds_a_number(index: ast.AST) -> bool:
    """True when an int literal is part of the index itself: alone, in a tuple, or in
    arithmetic; not inside a call's arguments or another subscript."""
    if isinstance(index, ast.Constant):
        return isinstance(index.value, int)
    if isinstance(index, (ast.Call, ast.Subscript, ast.Attribute)):
        return False
    return any(holds_a_number(child) for child in ast.iter_child_nodes(index))


def numbered_reads(source: str) -> list[str]:
    """Every ``params[...]`` read at a position written as a number (``params[1]``,
    ``params[seat, 2]``, ``params[T0 + 1]``), as ``ast.unparse`` writes it."""
    return [
        ast.unparse(node)
        for node in ast.walk(ast.parse(source))
        if isinstance(node, ast.Subscript)
        and isinstance(node.value, ast.Name)
        and node.value.id == "params"
        and holds_a_number(node.slice)
    ]


def test_the_check_finds_numbered_reads() -> None:
    source = "def f(params, T0):\n    return params[1], params[0, 2], params[T0 + 1], params[-1]\n"
    assert numbered_reads(source) == ["params[1]", "params[0, 2]", "params[T0 + 1]", "params[-1]"]
    named = "def f(params, SLOT, g):\n    return params[SLOT.knock_at], params[SLOT.t1 + g(1)]\n"
    assert numbered_reads(named) == []


def test_no_hook_reads_a_parameter_by_number() -> None:
    bad = {
        str(path.relative_to(ROOT)): reads
        for package in CHECKED
        for path in sorted((ROOT / package).rglob("*.py"))
        if (reads := numbered_reads(path.read_text()))
    }
    assert bad == {}, "read params[SLOT.<field>] (kernels/slots.py), not a position"


def modules_with_params() -> Iterator[ModuleType]:
    """Every built-in strategy's module, and the rollout policy's."""
    for strategy in S.BUILTINS.values():
        yield importlib.import_module(strategy.module)
    yield rollout


@pytest.mark.parametrize("module", list(modules_with_params()), ids=lambda m: m.__name__)
def test_slots_are_the_field_order(module: ModuleType) -> None:
    """``SLOT`` is generated from ``Params``: each field holds its position."""
    slot = module.SLOT
    assert type(slot) is module.Params
    assert list(slot) == list(range(len(module.Params._fields)))


@pytest.mark.parametrize("name", list(S.BUILTINS))
def test_each_slot_reads_its_field_in_the_hooks_row(name: str) -> None:
    """The row the engine hands the hooks (``params_vector``) holds field f at SLOT.f."""
    strategy = S.BUILTINS[name]
    slot = importlib.import_module(strategy.module).SLOT
    values = strategy.params._make(range(100, 100 + len(strategy.params._fields)))
    row = params_vector(values)
    for field in strategy.params._fields:
        assert row[getattr(slot, field)] == getattr(values, field), field


def test_chart_rows_are_consecutive_slots() -> None:
    """The chart hooks read own turn r's masks at K0 + r and T0 + r."""
    turns = range(1, chart.TURNS + 1)
    assert [getattr(chart.SLOT, f"k{t}") for t in turns] == [chart.K0 + t - 1 for t in turns]
    assert [getattr(chart.SLOT, f"t{t}") for t in turns] == [chart.T0 + t - 1 for t in turns]


def test_rollout_rows_hold_their_fields() -> None:
    """This seat throws for gin and knocks only with gin; the other knocks at the limit."""
    rows = K.rollout_params(2, 0, K.ROLLOUT_GIN_DROPS, 3)
    assert list(rows[0, : len(rollout.SLOT)]) == [0, 3, 1]
    assert list(rows[1, : len(rollout.SLOT)]) == [-1, 3, 0]
    assert rows[0, rollout.SLOT.gin_drops] == 1 and rows[1, rollout.SLOT.knock_at] == -1


def test_one_table_of_opponent_models() -> None:
    """``kernels.mc.MODELS`` is the table; ``rummy advise`` offers all but the history
    model (a position holds no notes of the opponent's turns)."""
    assert sorted(K.MODELS.values()) == [
        K.MODEL_UNIFORM,
        K.MODEL_KEPT,
        K.MODEL_INFERRED,
        K.MODEL_SHOWN,
        K.MODEL_PLAYED,
        K.MODEL_HISTORY,
    ]
    assert advise.MODELS == {n: m for n, m in K.MODELS.items() if m != K.MODEL_HISTORY}
    mc = S.BUILTINS["mc"]
    assert mc.defaults().model == K.MODEL_FROM_RULES  # type: ignore[attr-defined]
    assert K.MODEL_FROM_RULES not in K.MODELS.values()
    assert param_bounds(mc, "model") == (K.MODEL_FROM_RULES, max(K.MODELS.values()))


def documented_plugin() -> str:
    """The plugin module shown in ``strategies``' docs (the block after "in full::")."""
    doc = S.__doc__ or ""
    block = doc.split("in full::\n", 1)[1]
    lines = []
    for line in block.splitlines()[1:]:
        if line and not line.startswith("    "):
            break
        lines.append(line)
    return textwrap.dedent("\n".join(lines))


def test_the_documented_plugin_plays_as_it_says(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Greedy that knocks at 5: the same answers as ``greedy:knock_at=5``'s hooks."""
    with plugin_folder(tmp_path, monkeypatch) as write:
        plugin = S.load_plugin(write("h5_doc_plugin", None, documented_plugin()))
        greedy, greedy_params = S.parse_seat("greedy:knock_at=5")
        ours, theirs = params_vector(plugin.defaults()), params_vector(greedy_params)
        rules = rules_of(GIN)

        def both(hook: str, obs: Any, *extra: int) -> tuple[int, int]:
            got = getattr(plugin, hook)(obs, ours, scratch(), *extra)
            want = getattr(greedy, hook)(obs, theirs, scratch(), *extra)
            return int(got), int(want)

        draw, _ = position(rules, mask(BASE_10), [card("2C"), card("4S")], phase=PHASE_DRAW)
        assert both("take_nb", draw) == (1, 1)  # 4S extends AS-3S
        # Throwing QH (KD ties, the higher index goes) leaves 20 deadwood: play on;
        # throwing 3D leaves 2 (2D): knock at 5.
        cases = [
            (BASE_10 + " 4S", "QH", CONTINUE),
            ("AS 2S 3S 9C TC JC 5H 5D 5C 2D 3D", "3D", KNOCK),
        ]
        for hand, thrown, decision in cases:
            obs, _ = position(rules, mask(hand), [0])
            assert both("discard_nb", obs) == (card(thrown), card(thrown))
            assert both("knock_nb", obs, card(thrown)) == (decision, decision)
