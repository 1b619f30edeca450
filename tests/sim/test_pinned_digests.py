"""Pinned results: every number the engine, the solver and the table commands give
for a fixed set of seeded inputs, as sha256 digests recorded before the compile
redesign of issue 17 (commit 34c09c8).

A refactor of how the kernels are compiled, linked or dispatched must not change a
single deal, hand, game or answer; these digests say so byte for byte. They reuse
kernels the rest of the suite compiles anyway (the engine with and without ``mc``,
the batch solver, the showdown), so they add seconds, not compiles.

To re-pin after an intended change of results: ``python tests/sim/test_pinned_digests.py``
prints the digests of the current code.
"""

from __future__ import annotations

import hashlib
import json
import sys
from typing import Any

import numpy as np
import pytest

# (rules, overrides, line-up, deals, seed): single hands, every column.
DEALS = {
    "gin greedy/greedy": ("gin", {}, "greedy/greedy", 3000, 1),
    "gin simple/simple": ("gin", {}, "simple/simple", 3000, 2),
    "gin-classic greedy:knock_at=5/simple": (
        "gin-classic", {}, "greedy:knock_at=5/simple", 3000, 3,
    ),
    "knock-rummy 4 greedy": ("knock-rummy", {"players": 4}, "greedy", 3000, 4),
    "oklahoma-gin defensive/simple": ("oklahoma-gin", {}, "defensive/simple", 3000, 5),
    "joker-knock greedy/random/schedule": (
        "joker-knock", {"players": 3}, "greedy/random/schedule", 3000, 6,
    ),
    "eaai schedule/greedy": ("eaai", {}, "schedule/greedy", 3000, 7),
    "round-the-corner-gin greedy/defensive": (
        "round-the-corner-gin", {}, "greedy/defensive", 2000, 8,
    ),
    # mc's defaults before December 2026, spelt out (knock_at=-1 then meant the rule's
    # limit; it is chosen from the rules now)
    "gin mc (old defaults)/greedy": (
        "gin", {}, "mc:samples=20,knock_at=10,candidates=3,screen=0,stop=0,opponents=policy/greedy",
        300, 9,
    ),
}  # fmt: skip
# (rules, line-up, games, seed): whole games, game rows and hand rows.
GAMES = {
    "hollywood-gin greedy/simple": ("hollywood-gin", "greedy/simple", 200, 11),
    "knock-rummy pool greedy": ("knock-rummy", "greedy", 100, 12),
    # mc's defaults before 5 December 2026 (rollouts that throw for gin, gin candidates,
    # the screening round), fewer samples; simple knocks: the game memory's switch too
    "eaai mc:samples=60/simple": ("eaai", "mc:samples=60,stop=0,opponents=policy/simple", 12, 13),
    # against a player who waits for gin: from a game's second hand on the rollouts
    # take the opponent for one (mc's waiters=-1, added 2 December 2026)
    "eaai mc:samples=60/simple:knock_at=0": (
        "eaai",
        "mc:samples=60,stop=0,opponents=policy/simple:knock_at=0",
        8,
        14,
    ),
    # the rollouts by the study's strategies (opponents=known, mc's default since
    # 5 December 2026): its own seat by the rollout strategy, the other by simple
    "eaai mc:samples=30,opponents=known/simple": (
        "eaai",
        "mc:samples=30,stop=0,opponents=known/simple",
        6,
        15,
    ),
    # the defaults since 5 December 2026 (later that day: rounds of 50 samples that drop
    # clearly worse actions, stop=2), fewer samples
    "eaai mc:samples=150/simple": ("eaai", "mc:samples=150/simple", 4, 16),
}
# (rules, cards, jokers): random hands for the public solver API.
SOLVER = {
    "gin 10 cards": ("gin", 10, 0),
    "gin 11 cards": ("gin", 11, 0),
    "round-the-corner-gin 10 cards": ("round-the-corner-gin", 10, 0),
    "knock-rummy 7 cards": ("knock-rummy", 7, 0),
    "joker-knock 8 cards": ("joker-knock", 8, 2),
}
SOLVER_HANDS = 100_000
# rummy deadwood / rummy score arguments (JSON output).
_GIN_HANDS = ["--hand", "AC 2C 3C 4D 5D 6D 9H 9S 9C 2S", "--hand", "TD JD QD KD 5S 6S 7S 8H 2H 3H"]
_KNOCK_HANDS = ["--hand", "AC 2C 3C 4D 5D 6D 9H", "--hand", "TD JD QD 5S 6S 7S 2H",
                "--hand", "AS 2S 3S 8H 8C KD KC"]  # fmt: skip
COMMANDS = {
    "deadwood 11": ["deadwood", *"5C 6C 7C 7D 7H 7S KD 2S 9H TH JH".split(), "--json"],
    "deadwood joker": ["deadwood", *"JK 5C 6C 8D 8H 2S KS QS".split(), "--rules", "joker-knock",
                       "--json"],
    "score gin": ["score", "--rules", "gin", "--knocker", "0", "--json", *_GIN_HANDS],
    "score knock 3": ["score", "--rules", "knock-rummy", "--knocker", "1", "--json", *_KNOCK_HANDS],
}  # fmt: skip

EXPECTED: dict[str, str] = {
    "deals: gin greedy/greedy": (
        "60a668ef0cc5eef701f52586797d4fe3524bc85e53c099fb6eded7c4e8618267"
    ),
    "deals: gin simple/simple": (
        "011f7b2bf7ad27c44963b5020cdb6fc37aefda2b5ec3e719486ad42d6411b7ba"
    ),
    "deals: gin-classic greedy:knock_at=5/simple": (
        "9bc52ec41f5c1f6d0c7d3fcdc6974a0bc21ed8e48513e35f9796a5102c8974a9"
    ),
    "deals: knock-rummy 4 greedy": (
        "f53885c610090be054a2da85bb1e168eb81f7089f2e618a569e082465d8347e1"
    ),
    "deals: oklahoma-gin defensive/simple": (
        "9728c72b0103d9d060ebdb4fc3759ea162c00ccc48cc8e012a0b6b2992d14fb2"
    ),
    "deals: joker-knock greedy/random/schedule": (
        "97afccf4e0a18397356af613b6f7d3580374856a1cd0211fea101b6ec32545f5"
    ),
    "deals: eaai schedule/greedy": (
        "3aee38645e5c35573b0349fdcaf942b4ca0990614d4eb4bbf2d636d8042a16f1"
    ),
    "deals: round-the-corner-gin greedy/defensive": (
        "4499130290cdfc1fa1f91aaaca8de1bed77dbb6be386bae090e056280d7308d2"
    ),
    "deals: gin mc (old defaults)/greedy": (
        "19ef894027132f38fac5108c3b29f90a7bf00f152e0872bd6e1b12d8488b113a"
    ),
    "games: hollywood-gin greedy/simple": (
        "7114b2966406366106becdb22b4387aa221d7a2370932fb58537a3677e2f90ee"
    ),
    "games: knock-rummy pool greedy": (
        "8fe4ee852d7953455c63c7a0e6968434059e86fffafd9bba3322640249d5a4ce"
    ),
    "games: eaai mc:samples=60/simple": (
        "779420218bcc11f00d1ddcc8fa70e93135ca644368bc8eab5e2b292d95674873"
    ),
    "games: eaai mc:samples=60/simple:knock_at=0": (
        "cb63f01ec6960f9ad13ca2e7d655d50012f306dac8e344a8aeac79ad79076ff0"
    ),
    "games: eaai mc:samples=30,opponents=known/simple": (
        "81bb52d79d1e308a51b5ecb5dd843cda0516e5881d15548adeb879cfc64918e2"
    ),
    "games: eaai mc:samples=150/simple": (
        "cd27e9e40314f67215beaf78b542b950deb09c5a901024d928253052e9a6810e"
    ),
    "solver: gin 10 cards": "5346cef8fdc204e21d7e8324d47683e8ef9641c6529b2d76efb7201628b7585c",
    "solver: gin 11 cards": "c049dc0fbfa9a3d0e5abfc0d76bb43ddc6912758794cca6c7ff6d58f8196fdf5",
    "solver: round-the-corner-gin 10 cards": (
        "e3eb227b20cf18de71647cf42ee3760bcd531b6da86957f347931895dad8a373"
    ),
    "solver: knock-rummy 7 cards": (
        "111edb268bda9d07a1d04b38a9526378935ebb15695deff66d8c2f9fd0b6e674"
    ),
    "solver: joker-knock 8 cards": (
        "26801650b182af0c321739957d6b28ae5b24484b6f9cf71c9e71971fd5669c53"
    ),
    "command: deadwood 11": "5f7369db975986c7806eae7c66f1aa922aa61af11a69065473e5de792041e928",
    "command: deadwood joker": "fb0d67e9a2984b9f49afb40aa963de382bda103d1ef84898f70bff60c65e7ea5",
    "command: score gin": "817bb4050e6dab19e494305268e37c5c0a1ff68a6202bfaf7f3b197a5039b1e0",
    "command: score knock 3": "3cfa82ef8b433aa25d4a02c3ada9eb9c14d23331dfa9564ad8690333651f10ae",
}


def _digest(*arrays: Any) -> str:
    h = hashlib.sha256()
    for array in arrays:
        a = np.ascontiguousarray(array)
        h.update(f"{a.dtype.str}{a.shape}".encode())
        h.update(a.tobytes())
    return h.hexdigest()


def deal_digest(name: str) -> str:
    from sim.engine import play_deals
    from sim.rules import get_rules

    rules, overrides, lineup, deals, seed = DEALS[name]
    cols = play_deals(get_rules(rules, **overrides), lineup, deals=deals, seed=seed, threads=2)
    return _digest(*cols)


def game_digest(name: str) -> str:
    from sim.engine import play_games

    rules, lineup, games, seed = GAMES[name]
    game_cols, hand_cols = play_games(rules, lineup, games=games, seed=seed, threads=2)
    return _digest(*game_cols, *hand_cols)


def solver_digest(name: str) -> str:
    import sim

    rules, cards, jokers = SOLVER[name]
    rng = np.random.default_rng(cards * 100 + jokers)
    keys = rng.random((SOLVER_HANDS, 52)).argsort(axis=1)[:, : cards - jokers]
    masks = (np.uint64(1) << keys.astype(np.uint64)).sum(axis=1, dtype=np.uint64)
    if jokers:
        masks |= np.uint64(3 << 52)
    least = sim.min_deadwood(masks, rules=rules)
    forbidden = keys[:, 0].astype(np.int64)
    cards_out, left = sim.best_discard(masks, rules=rules)
    f_cards, f_left = sim.best_discard(masks, rules=rules, forbidden=forbidden)
    return _digest(least, cards_out, left, f_cards, f_left)


def command_digest(name: str) -> str:
    from typer.testing import CliRunner

    from sim.cli import app

    result = CliRunner().invoke(app, COMMANDS[name])
    assert result.exit_code == 0, result.output
    text = json.dumps(json.loads(result.output), sort_keys=True)
    return hashlib.sha256(text.encode()).hexdigest()


def all_digests() -> dict[str, str]:
    out = {f"deals: {n}": deal_digest(n) for n in DEALS}
    out |= {f"games: {n}": game_digest(n) for n in GAMES}
    out |= {f"solver: {n}": solver_digest(n) for n in SOLVER}
    out |= {f"command: {n}": command_digest(n) for n in COMMANDS}
    return out


@pytest.mark.parametrize("name", list(DEALS))
def test_deals_are_pinned(name: str) -> None:
    assert deal_digest(name) == EXPECTED[f"deals: {name}"]


@pytest.mark.parametrize("name", list(GAMES))
def test_games_are_pinned(name: str) -> None:
    assert game_digest(name) == EXPECTED[f"games: {name}"]


@pytest.mark.parametrize("name", list(SOLVER))
def test_solver_answers_are_pinned(name: str) -> None:
    assert solver_digest(name) == EXPECTED[f"solver: {name}"]


@pytest.mark.parametrize("name", list(COMMANDS))
def test_command_outputs_are_pinned(name: str) -> None:
    assert command_digest(name) == EXPECTED[f"command: {name}"]


if __name__ == "__main__":
    json.dump(all_digests(), sys.stdout, indent=4)
    print()
