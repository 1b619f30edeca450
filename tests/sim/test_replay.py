"""Replays: ``replay_hand``, ``replay_game`` and ``rummy replay``.

A replayed game must be the game ``play_games`` plays, and move for move the game the
pure-Python reference engine plays (``tests/reference/engine_ref.py``): the deal, every
draw, discard and knock of every hand, the seats dealt in (a pool's eliminations) and
the points.
"""

from __future__ import annotations

import json

import numpy as np
import pytest
from typer.testing import CliRunner

import sim.engine as api
from kernels import engine as E
from kernels import layout as L
from sim.cli import app
from sim.engine import key_of, play_deals, play_games, replay_game, replay_hand
from sim.rules import get_rules
from tests.reference.engine_ref import play_game_ref
from tests.support.twins import ref_lineup

runner = CliRunner()


def _cards(mask: int) -> tuple[int, ...]:
    return tuple(c for c in range(64) if (mask >> c) & 1)


def _moves(events: list[tuple[int, int, int, int]]) -> list[tuple[object, ...]]:
    """The kernel's event log in the reference engine's words (deal, draws, discards,
    knocks)."""
    hands = [_cards(extra) for code, _, _, extra in events if code == E.EV_DEAL]
    upcard = next(card for code, _, card, _ in events if code == E.EV_UPCARD)
    moves: list[tuple[object, ...]] = [("deal", tuple(hands), upcard)]
    for code, seat, card, _ in events:
        if code in (E.EV_DRAW_PILE, E.EV_DRAW_STOCK):
            moves.append(("draw", seat, card, "pile" if code == E.EV_DRAW_PILE else "stock"))
        elif code == E.EV_DISCARD:
            moves.append(("discard", seat, card))
        elif code == E.EV_KNOCK:
            moves.append(("knock", seat, card))
        elif code == E.EV_BIG_GIN:
            moves.append(("big_gin", seat))
    return moves


def _ref_moves(events: list[tuple[object, ...]]) -> list[tuple[object, ...]]:
    return [e for e in events if e[0] in ("deal", "draw", "discard", "knock", "big_gin")]


GAMES = [
    ("gin", {}, "greedy/simple", 1),
    ("hollywood-gin", {"game": "hollywood:40"}, "greedy/defensive", 0),
    (
        "knock-rummy",
        {"players": 3, "game": "pool:30", "dealer": "loser"},
        "greedy/simple/random",
        1,
    ),  # noqa: E501
]


@pytest.mark.parametrize(("preset", "overrides", "spec", "game"), GAMES, ids=lambda v: str(v))
def test_replayed_game_is_the_reference_game_move_by_move(preset, overrides, spec, game):
    rules = get_rules(preset, **overrides)
    replay = replay_game(rules, spec, seed=5, game=game)
    strategies, params = ref_lineup(rules, spec)
    ref = play_game_ref(rules, int(key_of(5)), game, strategies, params, log=True)
    assert len(replay.hands) == len(ref["records"]) > 1
    for hand, record in zip(replay.hands, ref["records"], strict=True):
        assert hand.seats == record["seats"]
        assert _moves(hand.replay.events) == _ref_moves(record["events"])
        assert hand.replay.record["points"] == record["points"]
        assert hand.replay.record["outcome_label"] == record["outcome"]
    assert replay.record["winner"] == ref["winner"]
    assert replay.record["hands_dealt"] == ref["hands_dealt"]
    if rules.game.startswith("pool"):
        assert any(len(hand.seats) < rules.players for hand in replay.hands), "no elimination"


def test_replayed_game_is_the_played_game():
    """The hands and the game's row are those of ``play_games``, dead hands included."""
    rules = get_rules("gin")
    spec = "simple/simple"
    games, hands = play_games(rules, spec, games=300, seed=2)
    dead = np.flatnonzero(hands.outcome == L.DEAD_HAND)
    assert dead.size, "no dead hand in these games"
    game = int(hands.number[dead[0]])
    replay = replay_game(rules, spec, seed=2, game=game)
    rows = np.flatnonzero(hands.number == game)
    assert [h.replay.hand_index for h in replay.hands] == hands.hand_index[rows].tolist()
    assert [h.replay.record["outcome"] for h in replay.hands] == hands.outcome[rows].tolist()
    assert [h.replay.record["points"] for h in replay.hands] == hands.points[rows].tolist()
    assert replay.record["scores"] == games.scores[game].tolist()
    # A game of one hand replays that hand as the deal of the same number does not: the
    # game draws its first dealer.
    first = replay.hands[0].replay
    assert first.record["dealer"] == games.first_dealer[game]


def test_single_deal_replay_is_the_played_deal():
    cols = play_deals("knock-rummy", "greedy/simple/random/defensive", deals=5, seed=9)
    replay = replay_hand("knock-rummy", "greedy/simple/random/defensive", seed=9, deal=4)
    assert replay.record["points"] == cols.points[4].tolist()
    assert replay.hand_index == 0 and replay.deal == 4


def test_a_hand_that_replays_differently_stops_the_game_replay(monkeypatch):
    """The check that each hand played alone gives the game's row can fail."""
    real = api._replay

    def off_by_one(*args, **kwargs):
        replay = real(*args, **kwargs)
        replay.record["turns"] += 1
        return replay

    monkeypatch.setattr(api, "_replay", off_by_one)
    with pytest.raises(RuntimeError, match="differs from the game"):
        replay_game("gin", "greedy/simple", seed=5, game=0)


def test_cli_replays_a_deal():
    seats = "simple,greedy:knock_at=5"
    args = ["replay", "--rules", "gin", "--seats", seats, "--seed", "7", "--deal", "12"]
    result = runner.invoke(app, args)
    assert result.exit_code == 0, result.output
    lines = result.output.splitlines()
    assert lines[0] == "rules gin, seed 7, deal 12; dealer seat 1"
    assert lines[1].startswith("  deal      seat 0 (simple): ")
    replay = replay_hand("gin", "simple,greedy:knock_at=5", seed=7, deal=12)
    record = replay.record
    assert f"outcome: {record['outcome_label']} after {record['turns']} turns" in lines
    data = json.loads(runner.invoke(app, [*args, "--json"]).output)
    assert data["seats"] == ["simple", "greedy:knock_at=5"] and data["deal"] == 12
    assert len(data["moves"]) == len(replay.events) and data["record"] == replay.record


def test_cli_replays_a_game():
    rules = ["-r", "players=3", "-r", "game=pool:30", "-r", "dealer=loser"]
    args = ["replay", "--rules", "knock-rummy", *rules, "--seats", "greedy/simple/random",
            "--seed", "5", "--game", "1"]  # fmt: skip
    result = runner.invoke(app, args)
    assert result.exit_code == 0, result.output
    replay = replay_game(get_rules("knock-rummy", players=3, game="pool:30", dealer="loser"),
                         "greedy/simple/random", seed=5, game=1)  # fmt: skip
    lines = result.output.splitlines()
    assert lines[0].startswith("rules knock-rummy (game pool:30), seed 5, game 1; first dealer")
    headers = [line for line in lines if line.startswith("hand ")]
    assert len(headers) == len(replay.hands)
    assert any("out of the pool: seat" in line for line in headers)
    winner = replay.record["winner"]
    assert lines[-1].startswith(f"game over after {len(replay.hands)} hands")
    assert f"winner seat {winner} ({replay.lineup.names[winner]})" in lines[-1]
    data = json.loads(runner.invoke(app, [*args, "--json"]).output)
    assert [h["dealt_in"] for h in data["hands"]] == [h.seats for h in replay.hands]
    assert data["final_scores"] == [s / L.POINT_SCALE for s in replay.record["scores"]]


ONE_OF = "give exactly one of --deal N (one hand) and --game N (one game)"


@pytest.mark.parametrize(
    ("extra", "message"),
    [
        ([], ONE_OF),
        (["--deal", "1", "--game", "1"], ONE_OF),
    ],
)
def test_cli_replay_errors(extra, message):
    result = runner.invoke(app, ["replay", "--seats", "greedy", "--seed", "1", *extra])
    assert result.exit_code == 1
    assert result.output.strip() == f"error: {message}"


@pytest.mark.parametrize(
    ("extra", "message"),
    [
        (["--game", "-2"], "'--game': '-2' (input should be greater than or equal to 0)"),
        (["--deal", "-1"], "'--deal': '-1' (input should be greater than or equal to 0)"),
        (
            ["--game", str(2**64)],
            f"'--game': '{2**64}' (input should be less than or equal to {2**63 - 1})",
        ),
        (
            ["--deal", str(2**63)],
            f"'--deal': '{2**63}' (input should be less than or equal to {2**63 - 1})",
        ),
    ],
)
def test_cli_replay_numbers_out_of_range_are_usage_errors(extra, message):
    """Deal and game numbers are the engine's int64: the parser refuses others (status 2)."""
    result = runner.invoke(app, ["replay", "--seats", "greedy", "--seed", "1", *extra])
    assert result.exit_code == 2
    assert message in result.output
    assert len(result.output.strip().splitlines()) == 1
