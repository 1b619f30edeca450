"""For the tests and benchmarks of agents and players: an agent that plays as a Player
and keeps the requests and answers of its decisions as the protocol writes them, and a
legal Gin view to ask about."""

from __future__ import annotations

from typing import Any

from sim.agents.player import Player
from sim.agents.view import View


class Recorder:
    """Plays as a Player and keeps each request and the answer as the protocol writes
    them (the walk of ``test_player`` asks it every decision of its seat)."""

    def __init__(self, me: Player) -> None:
        self.me = me
        self.asked: list[tuple[dict[str, Any], dict[str, Any]]] = []

    def take(self, view: View) -> bool:
        answer = self.me.take(view)
        self.asked.append(({"type": "take", "view": view.to_json()}, {"take": answer}))
        return answer

    def discard(self, view: View) -> int:
        return self.me.discard(view)

    def knock(self, view: View, discard: int) -> str:
        word = self.me.knock(view, discard)
        self.asked.append(
            ({"type": "discard", "view": view.to_json()}, {"discard": discard, "knock": word})
        )
        return word


def gin_view(**changes: Any) -> dict[str, Any]:
    """A legal Gin view at seat 0's first draw (as JSON), with ``changes``."""
    hand = [0, 1, 2, 13, 14, 15, 26, 27, 40, 41]
    fields: dict[str, Any] = {
        "seat": 0, "players": 2, "hand": hand, "pile": [5], "phase": "draw", "upcard": 5,
        "dealer": 1, "turn": 0, "stock": 31, "taken": [[], []], "discarded": [[], []],
        "key": "00000000000000ff",
    }  # fmt: skip
    fields.update(changes)
    return fields
