"""Rollouts by strategies: the line-up an ``mc`` seat's samples are played with.

``mc`` plays each action on sampled deals to the end of the hand. By default its
rollouts are the rollout policy of ``kernels/rollout.py`` (greedy, compiled into the
engine template). ``mc:rollout=SPEC`` plays this seat's rollouts with any compiled
strategy, and ``opponents=SPEC`` or ``opponents=known`` the opponents' (docs/MC.md).

``mc``'s hooks are compiled once, before any line-up exists, so they cannot call an
engine of strategies directly. When a line-up seats such an ``mc``, ``bind`` builds
the line-up its rollouts play, finds the engine that plays it (the engine of every
strategy, ``sim.engine``) and writes a handle into the seat's parameter row (the
``rollout`` field's word). At each decision the hook packs its view
(``kernels/view.py``) and calls ``values`` in object mode; that runs the engine's
``rollout_values`` (``kernels/engine.py``), the same sample loop as the rollout
policy's, compiled with every strategy's hooks and without the GIL. So the hand's
rules keep one home, and a decision stays a pure function of the seat's view and
its decision key: the same on any number of threads, workers or chunks.

The rollout line-up of the seat's strategy, for seat ``me`` of a study's line-up:

* seat ``me``: ``rollout``, or, where it is empty, ``mc``'s own rollout policy as the
  ``rollout`` strategy: its ``knock_at``, or where that is -1 the threshold chosen for
  each hand's rules (``kernels.rollout.rollout_knock_at``: a pool game's later hands
  have fewer players), and where that is 0 throwing for gin as its ``gin_drop`` says
  (the built-in policy's play, bar the waiters model of the others);
* every other seat: ``opponents``, where it is a spec; the seat's own strategy in the
  study where it is ``known`` (an agent seat, which cannot be rolled out, as greedy; an
  ``mc`` seat, so that rollouts do not nest searches, by its ``rollout`` where it names
  one, else under Gin scoring by the solved chart of its rules,
  ``strategies.chart_files.searcher_model``: a search plays more like the chart than
  like its own rollout policy, docs/MC.md; else by its own rollout strategy, as above);
  greedy at the rule's limit where it is ``policy`` or empty.

A strategy in a rollout starts with no memory of the hand but its own-turn count
(``Strategy.turn_word``) and with the deciding seat's memory of the game.
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from dataclasses import dataclass
from types import ModuleType
from typing import Any

import numpy as np
import numpy.typing as npt

from kernels.rollout import FROM_RULES, rollout_knock_at
from kernels.view import V_SEAT
from sim.rules import RuleSet
from sim.solver import tables_for
from strategies import format_seat, parse_seat
from strategies.agent import AgentStrategy
from strategies.chart_files import searcher_model

__all__ = ["bind", "lineup_for", "strategies_in", "turn_words", "values"]

KNOWN = "known"  # opponents=known: the study's own seats
POLICY = "policy"  # opponents=policy: the rollout policy's model (greedy at the limit, waiters)


@dataclass(frozen=True)
class _Bound:
    """A searching seat's rollout line-ups, ready for the engine: one for each seat
    the search may sit in (a study's seat is fixed; ``rummy.player`` sits anywhere)."""

    engine: ModuleType
    sids: tuple[npt.NDArray[np.int64], ...]  # by the deciding seat
    params: tuple[npt.NDArray[np.float64], ...]
    turn_words: tuple[npt.NDArray[np.int64], ...]
    tab: npt.NDArray[Any]


_bound: list[_Bound] = []
_handles: dict[tuple[Any, ...], int] = {}
_lock = threading.RLock()  # a rollout line-up's own mc seats bind inside


def turn_words(seats: Any) -> npt.NDArray[np.int64]:
    """Where each seat's strategy counts its own turns (``Strategy.turn_word``)."""
    return np.array([strategy.turn_word for strategy, _ in seats], np.int64)


def _own_rollout(strategy: Any, values: Any, rules: RuleSet) -> str:
    """The spec a searching seat's rollouts play it with: its ``rollout``, else its
    built-in rollout policy as the ``rollout`` strategy (its threshold, and where that
    is 0, throwing for gin as its ``gin_drop`` says)."""
    if not strategy.specs:  # not a search: itself
        return format_seat(strategy, values)
    if values.rollout:
        return str(values.rollout)
    knock_at = int(values.knock_at) if values.knock_at >= 0 else FROM_RULES  # per hand
    plays_for_gin = rollout_knock_at(rules.compile(), np.int64(values.knock_at)) == 0
    gin_drops = int(values.gin_drop) if plays_for_gin else 0
    return f"rollout:knock_at={knock_at},min_gain={int(values.min_gain)},gin_drops={gin_drops}"


def _known(strategy: Any, values: Any, rules: RuleSet) -> str:
    """A study's seat in another seat's rollouts under ``opponents=known`` (module
    docstring): an agent (it cannot be rolled out) as the policy's opponent, greedy; a
    search without a ``rollout`` of its own by the solved chart where one stands for it;
    any other seat as itself, or by its own rollout strategy."""
    if isinstance(strategy, AgentStrategy):
        return "greedy"
    if strategy.specs and not values.rollout:
        model = searcher_model(rules)
        if model is not None:
            return model
    return _own_rollout(strategy, values, rules)


def lineup_for(seats: Any, me: int, rules: RuleSet) -> list[str]:
    """The specs of the line-up that plays seat ``me``'s rollouts (module docstring)."""
    _, mine = seats[me]
    out = []
    for seat, (strategy, values) in enumerate(seats):
        if seat == me:
            out.append(_own_rollout(strategy, values, rules))
        elif mine.opponents == KNOWN:
            out.append(_known(strategy, values, rules))
        else:
            out.append(mine.opponents or "greedy")
    return out


def strategies_in(seats: Any) -> list[Any]:
    """Every strategy a line-up plays, the rollout strategies its searching seats name
    included (their sources are part of a run's identity)."""
    out = []
    for strategy, values in seats:
        out.append(strategy)
        for name in strategy.specs:
            spec = getattr(values, name)
            if spec and spec not in strategy.specs[name]:
                out += strategies_in([parse_seat(spec)])
    return out


EngineOf = Callable[[Any, RuleSet], tuple[ModuleType, Any, Any, Any]]
"""``sim.engine``'s: specs and rules -> (engine, strategy ids, bound rows, seats)."""


def bind(
    seats: Any, params: npt.NDArray[np.float64], rules: RuleSet, known: bool, engine_of: EngineOf
) -> None:
    """Give every seat whose rollouts play strategies (a spec parameter set) its
    rollout line-ups: a handle (plus one) in the row's word of the ``rollout`` field.
    The line-ups are made for the seat in every place (``lineup_for``, its own seat
    swapped with that place's), so a view from any seat finds its own.

    ``opponents=policy`` (and ``known`` where ``known`` is False: the seats are not a
    study's but stand-ins, ``rummy.player``) is the rollout policy's model: with no
    ``rollout`` either, nothing is bound and the built-in policy plays."""
    for me, (strategy, values) in enumerate(seats):
        if not strategy.specs:
            continue
        if values.opponents == POLICY or (values.opponents == KNOWN and not known):
            values = values._replace(opponents="")  # the rollout policy's model
            params[me, strategy.params._fields.index("opponents")] = 0
        if not (values.rollout or values.opponents):
            continue
        table = [*seats[:me], (strategy, values), *seats[me + 1 :]]
        lineups = []
        for place in range(len(table)):
            moved = list(table)
            moved[me], moved[place] = moved[place], moved[me]
            lineups.append(tuple(lineup_for(moved, place, rules)))
        key = (tuple(lineups), rules.compile().tobytes())
        with _lock:
            handle = _handles.get(key)
            if handle is None:
                handle = len(_bound)
                _bound.append(_make(lineups, rules, engine_of))
                _handles[key] = handle
        params[me, strategy.params._fields.index("rollout")] = handle + 1


def _make(lineups: list[tuple[str, ...]], rules: RuleSet, engine_of: EngineOf) -> _Bound:
    engine, sids, params, words = None, [], [], []
    for specs in lineups:
        engine, ids, rows, seats = engine_of(specs, rules)
        sids.append(ids)
        params.append(rows)
        words.append(turn_words(seats))
    assert engine is not None
    return _Bound(engine, tuple(sids), tuple(params), tuple(words), tables_for(rules))


def values(handle: int, view: npt.NDArray[np.int64], rules: npt.NDArray[np.int64],
           kinds: npt.NDArray[np.int64], cards: npt.NDArray[np.int64], key: int, first: int,
           model: int, net: npt.NDArray[np.float64], won: npt.NDArray[np.int8],
           ends: npt.NDArray[np.int8],
           inference: npt.NDArray[np.int64]) -> int:  # fmt: skip
    """One round of a bound seat's samples (``kernels.engine.rollout_values``); called
    by ``mc``'s hook in object mode (``inference``: the decision's, ``kernels.mc``).
    Returns the sampled opponent hands that fit nothing their opponent showed
    (``kernels.mc.play_samples``)."""
    if not 0 <= handle < len(_bound):
        raise RuntimeError(
            "an mc seat with rollout= or opponents= was not bound to its rollout line-up "
            "(sim.rollouts.bind); please report it"
        )
    b = _bound[handle]
    me = int(view[V_SEAT])
    return int(b.engine.rollout_values(view, rules, b.tab, kinds, cards, np.uint64(key),
                                       first, model, b.sids[me], b.params[me],
                                       b.turn_words[me], net, won, ends,
                                       inference))  # fmt: skip
