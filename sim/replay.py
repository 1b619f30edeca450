"""Replays in words and as data: the engine's event codes decoded, a hand's showdown,
and the JSON ``rummy replay --json`` prints (``sim.engine.replay_hand`` and
``replay_game`` play them).

An event is ``(code, seat, card, extra)`` with the codes of ``kernels/engine.py``
(``EV_DEAL`` ... ``EV_EXHAUSTED``); ``who[seat]`` names a hand's seats.
"""

from __future__ import annotations

from fractions import Fraction
from typing import Any

from kernels import engine as E
from kernels import layout as L
from sim.cards import card_name, format_cards
from sim.engine import GameReplay, Replay
from sim.showdown import score_showdown

__all__ = ["describe_event", "game_to_json", "hand_to_json", "points_of", "showdown_of"]


def describe_event(event: tuple[int, int, int, int], who: list[str]) -> str:
    """One event in words; ``who[seat]`` names the hand's seats."""
    code, seat, card, extra = event
    player = who[seat] if seat >= 0 else ""
    text = {
        E.EV_DEAL: lambda: f"deal      {player}: {format_cards(extra)}",
        E.EV_UPCARD: lambda: f"upcard    {card_name(card)}",
        E.EV_PASS: lambda: f"pass      {player} passes the upcard {card_name(card)}",
        E.EV_DRAW_PILE: lambda: f"draw      {player} takes {card_name(card)} from the pile",
        E.EV_DRAW_STOCK: lambda: f"draw      {player} draws {card_name(card)} from the stock",
        E.EV_REBUILD: lambda: f"rebuild   the stock is rebuilt from the pile (rebuild {extra})",
        E.EV_DISCARD: lambda: f"discard   {player} discards {card_name(card)}",
        E.EV_KNOCK: lambda: f"knock     {player} knocks, laying {card_name(card)} away",
        E.EV_BIG_GIN: lambda: f"big gin   {player} goes out with every card",
        E.EV_DEAD_HAND: lambda: "dead hand the stock is down to the wall: no score",
        E.EV_EXHAUSTED: lambda: "exhausted the stock ran out once too often: showdown, no knocker",
    }[code]
    return text()


def showdown_of(replay: Replay) -> dict[str, Any] | None:
    """The hand's showdown as ``rummy score`` gives it (None after a dead hand)."""
    if replay.record["outcome_label"] == "dead_hand":
        return None
    knocker = replay.record["knocker"]
    return score_showdown(
        replay.rules,
        replay.final_hands,
        None if knocker < 0 else knocker,
        upcard=replay.record["upcard"],
        dealer=replay.record["dealer"],
    ).to_dict()


def hand_to_json(replay: Replay, who: list[str]) -> dict[str, Any]:
    """A hand's replay for tools (seat numbers are the hand's own)."""
    return {
        "events": [
            {
                "code": code,
                "seat": seat,
                "card": card_name(card) if card >= 0 else None,
                "extra": extra,
            }
            for code, seat, card, extra in replay.events
        ],  # fmt: skip
        "moves": [describe_event(e, who) for e in replay.events],
        "record": replay.record,
        "showdown": showdown_of(replay),
    }


def points_of(units: int) -> int | float:
    """Engine units (1/POINT_SCALE point) as points: whole where they are whole."""
    value = Fraction(int(units), L.POINT_SCALE)
    return int(value) if value.denominator == 1 else float(value)


def game_to_json(gr: GameReplay) -> dict[str, Any]:
    """A game's replay for tools: every hand (with the game seats dealt in), the record."""
    names = gr.lineup.labels  # how each seat is shown: chart:gin, never a chart's spec
    return {
        "rules": gr.rules.to_dict(),
        "seats": gr.lineup.names,
        "seed": gr.seed,
        "game": gr.game,
        "hands": [
            {
                "hand_index": h.replay.hand_index,
                "dealt_in": h.seats,  # the game seat of each of the hand's seats
                **hand_to_json(h.replay, [f"seat {s} ({names[s]})" for s in h.seats]),
            }
            for h in gr.hands
        ],
        "record": gr.record,
        "final_scores": [points_of(v) for v in gr.record["scores"]],
    }
