"""Hand-drawn positions for the strategy tests: one observation for a numba hook and
its Python twin, card text to masks, and calls of a built-in strategy's hooks."""

from __future__ import annotations

from functools import cache
from typing import Any

import numpy as np

import strategies as S
from kernels.layout import R_ACE, R_ACE_HIGH_VALUE, R_JOKER_VALUE, R_PLAYERS
from kernels.obs import PHASE_DISCARD, SCRATCH_SIZE, Obs
from kernels.tables import build_tables
from sim.rules import get_rules
from strategies import params_vector
from tests.reference import strategies_ref as ref
from tests.reference.cardtext import parse

PILE_CAPACITY = 64

GIN = "gin"
# An 11-card hand: runs AS-3S and 9C-JC, deadwood 5H 5D QH KD, plus the drawn 4S.
BASE_10 = "AS 2S 3S 9C TC JC 5H 5D QH KD"


@cache
def _rules(preset: str, **overrides: Any) -> np.ndarray:
    return get_rules(preset, **overrides).compile()


def rules_of(preset: str, **overrides: Any) -> np.ndarray:
    return _rules(preset, **overrides)


@cache
def _tables(ace: int, ace_high_value: int, joker_value: int) -> np.ndarray:
    return build_tables(ace, ace_high_value, joker_value)


def tables_of(rules: np.ndarray) -> np.ndarray:
    return _tables(int(rules[R_ACE]), int(rules[R_ACE_HIGH_VALUE]), int(rules[R_JOKER_VALUE]))


def mask(text: str) -> int:
    out = 0
    for card in parse(text):
        out |= 1 << card
    return out


def card(text: str) -> int:
    return parse(text)[0]


def position(
    rules: np.ndarray,
    hand: int,
    pile: list[int] | tuple[int, ...] = (),
    *,
    phase: int = PHASE_DISCARD,
    drawn: int = -1,
    from_pile: bool = False,
    seat: int = 0,
    taken: list[int] | None = None,
    discarded: list[int] | None = None,
    turn: int = 5,
    upcard: int | None = None,
    rng_key: int = 7,
) -> tuple[Obs, ref.RefObs]:
    """The same observation for the numba hooks (``Obs``) and the twins (``RefObs``)."""
    players = int(rules[R_PLAYERS])
    taken = list(taken) if taken is not None else [0] * players
    discarded = list(discarded) if discarded is not None else [0] * players
    pile_array = np.zeros(PILE_CAPACITY, np.int64)
    pile_array[: len(pile)] = pile
    if upcard is None:
        upcard = pile[0] if len(pile) else 0
    obs = Obs(
        seat=int(seat),
        players=players,
        hand=int(hand),
        pile=pile_array,
        pile_n=len(pile),
        taken=np.array(taken, np.int64),
        discarded=np.array(discarded, np.int64),
        stock_n=20,
        rebuilds=0,
        rebuilt=0,
        turn=int(turn),
        phase=int(phase),
        upcard=int(upcard),
        drawn=int(drawn),
        from_pile=bool(from_pile),
        dealer=players - 1,
        rules=rules,
        scores=np.zeros(players, np.int64),
        tab=tables_of(rules),
        rng_key=np.uint64(rng_key),
    )
    twin = ref.RefObs(
        seat=int(seat),
        players=players,
        hand=int(hand),
        pile=[int(c) for c in pile],
        taken=[int(m) for m in taken],
        discarded=[int(m) for m in discarded],
        stock_n=20,
        rebuilds=0,
        rebuilt=0,
        turn=int(turn),
        phase=int(phase),
        upcard=int(upcard),
        drawn=int(drawn),
        from_pile=bool(from_pile),
        dealer=players - 1,
        rules=[int(x) for x in rules],
        scores=[0] * players,
        rng_key=int(rng_key),
    )
    return obs, twin


def vec(name: str, **values: Any) -> np.ndarray:
    return params_vector(S.make_params(S.BUILTINS[name], **values))


def scratch() -> np.ndarray:
    return np.zeros(SCRATCH_SIZE, np.int64)


def take(name: str, obs: Obs, **values: Any) -> bool:
    return bool(S.BUILTINS[name].take_nb(obs, vec(name, **values), scratch()))


def discard(name: str, obs: Obs, sc: np.ndarray | None = None, **values: Any) -> int:
    sc = scratch() if sc is None else sc
    return int(S.BUILTINS[name].discard_nb(obs, vec(name, **values), sc))


def knock(name: str, obs: Obs, card_: int, sc: np.ndarray | None = None, **values: Any) -> int:
    sc = scratch() if sc is None else sc
    return int(S.BUILTINS[name].knock_nb(obs, vec(name, **values), sc, card_))
