"""contrib/eaai/RummySimPlayer.java: a rummy-sim strategy seated in the EAAI Java engine.

The adapter is compiled with our own stub of the EAAI framework's documented player
interface (``stub/ginrummy``: ``GinRummyPlayer``, ``Card`` with the framework's suit order
C H S D, the rules' constants) and a driver of our own, ``ScriptedTable``, that plays
seeded games the way that engine does against a simple scripted opponent and checks every
answer of the adapter (a held discard, never the face-up card just taken; valid melds within
10 deadwood when it knocks; valid melds of its hand when the opponent knocked). The driver
also writes what the adapter's seat truly holds and sees before each decision; the test
compares that with every view the adapter sent (``RUMMY_AGENT_LOG``): the same hand, pile
and stock, and of the opponent's cards only those it took from the pile. The agent is the
real ``rummy agent greedy --rules eaai``. Skipped, saying why, without a JDK.
"""

from __future__ import annotations

import json
import os
import shlex
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from sim.agents.view import View
from sim.cards import parse_card
from tests.support import ROOT

JAVAC = shutil.which("javac")
JAVA = shutil.which("java")
pytestmark = pytest.mark.skipif(
    JAVAC is None or JAVA is None,
    reason="javac/java are not installed (apt-get install default-jdk-headless)",
)

HERE = Path(__file__).resolve().parent
ADAPTER = ROOT / "contrib" / "eaai" / "RummySimPlayer.java"
SOURCES = [*sorted((HERE / "stub" / "ginrummy").glob("*.java")), ADAPTER]
AGENT = shlex.join([sys.executable, "-m", "rummy", "agent", "greedy", "--rules", "eaai"])


@pytest.fixture(scope="module")
def classes(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The stub, the driver and the adapter, compiled (warnings are errors)."""
    out = tmp_path_factory.mktemp("eaai-classes")
    subprocess.run(
        [JAVAC, "-Xlint:all", "-Werror", "-d", str(out), *map(str, SOURCES)],
        check=True,
        capture_output=True,
        text=True,
    )
    return out


def play(
    classes: Path,
    tmp_path: Path,
    agent: str,
    *,
    seed: int = 11,
    games: int = 3,
    env: dict[str, str] | None = None,
) -> tuple[subprocess.CompletedProcess[str], Path, Path]:
    """Run the driver; returns its process, the adapter's log and the driver's truth."""
    log, truth = tmp_path / "agent.log", tmp_path / "truth.jsonl"
    done = subprocess.run(
        [JAVA, "-cp", str(classes), "ginrummy.ScriptedTable", str(seed), str(games), str(truth)],
        env={**os.environ, "RUMMY_AGENT": agent, "RUMMY_AGENT_LOG": str(log), **(env or {})},
        capture_output=True,
        text=True,
        timeout=300,
    )
    return done, log, truth


def requests(log: Path) -> list[dict[str, Any]]:
    return [json.loads(line[2:]) for line in log.read_text().splitlines() if line.startswith("> ")]


def ours(names: list[str]) -> list[int]:
    return [parse_card(name) for name in names]


def test_adapter_plays_legally_and_shows_only_what_its_seat_saw(
    classes: Path, tmp_path: Path
) -> None:
    done, log, truth = play(classes, tmp_path, AGENT)
    assert done.returncode == 0, done.stdout + done.stderr
    summary = done.stdout.strip().splitlines()[-1]
    assert summary.startswith("SUMMARY ")
    counts = dict(item.split("=") for item in summary[9:-1].split(", "))
    # The seed covers the paths: the upcard and the pile taken, stock draws, a card taken
    # from the pile thrown later, a card thrown twice (taken back between), the adapter
    # knocking and knocked against (laying off on the knocker's melds), the opponent's gin,
    # in both seats, and one player kept from one game to the next (seats 0, 1, then 0).
    paths = ("upcard_takes", "pile_takes", "stock_draws", "taken_thrown", "thrown_again")
    for path in (*paths, "adapter_knocks", "opponent_knocks", "opponent_gins", "adapter_layoffs"):
        assert int(counts.get(path, 0)) > 0, (path, summary)

    sent = requests(log)
    # One agent all along, greeted again with its new seat at each game, and let go at the end.
    assert [r["seat"] for r in sent if r["type"] == "hello"] == [0, 1, 0]
    assert sent[-1] == {"type": "bye"} and [r["type"] for r in sent].count("bye") == 1
    views = [r for r in sent if r["type"] in ("take", "discard")]
    facts = [json.loads(line) for line in truth.read_text().splitlines()]
    assert len(views) == len(facts) > 50
    keys: dict[str, int] = {}
    for request, fact in zip(views, facts, strict=True):
        view = request["view"]
        View.from_json(view)  # every field there, of its kind (the server's own reader)
        assert request["type"] == fact["call"]
        seat = fact["seat"]
        hand, pile, opponent = ours(fact["hand"]), ours(fact["pile"]), ours(fact["opp_hand"])
        for name in ("seat", "dealer", "scores", "game_hands", "opp_knocks", "opp_gins"):
            assert view[name] == fact[name], name
        assert view["upcard"] == parse_card(fact["upcard"])
        assert sorted(view["hand"]) == sorted(hand)
        assert view["pile"] == pile
        assert view["stock"] == fact["stock"]
        assert len(view["hand"]) + len(pile) + len(opponent) + view["stock"] == 52
        # Of the opponent's cards, the view holds only those it took from the pile.
        assert set(view["taken"][1 - seat]) <= set(opponent)
        for s in (0, 1):
            assert sorted(view["taken"][s]) == sorted(ours(fact["taken"][s]))
            assert sorted(view["discarded"][s]) == sorted(set(ours(fact["discarded"][s])))
        if request["type"] == "take":
            assert view["phase"] == ("upcard" if view["turn"] == 0 else "draw")
            assert view["drawn"] is None and view["forbidden"] is None
        else:
            assert view["phase"] == "discard" and view["drawn"] in hand
            assert view["forbidden"] == (view["drawn"] if view["from_pile"] else None)
        # One key per hand: a hand keeps its key, and no two hands share one.
        keys.setdefault(view["key"], view["game_hands"])
        assert keys[view["key"]] == view["game_hands"]
    assert len(set(keys)) >= int(counts["hands"]) - 2


# Agents that fail, as tiny shell scripts: the game stops with one error naming the request.
HELLO = """echo '{"type":"hello","name":"sh","version":"1"}'"""
FAILING = {
    "an error answer": (
        f"""read l; {HELLO}; read l; echo '{{"error":"no strategy here"}}'""",
        "answered the 'take' request with the error 'no strategy here'",
    ),
    "death": (
        "read l; exit 3",
        "ended without answering the 'hello' request (it exited with status 3)",
    ),
    "garbage": (f"read l; {HELLO}; read l; echo nonsense", "with 'nonsense', which is not JSON"),
    "silence": (
        f"read l; {HELLO}; read l; exec sleep 30",
        "did not answer the 'take' request within 0.5 s (RUMMY_AGENT_TIMEOUT)",
    ),
    "a card not held": (
        f"""read l; {HELLO}
while read l; do
  case "$l" in
    *'"take"'*) echo '{{"take":false}}' ;;
    *) echo '{{"discard":99,"knock":"continue"}}' ;;
  esac
done""",
        "answered the 'discard' request with {discard=99, knock=continue}: \"discard\" must be",
    ),
}


@pytest.mark.parametrize("failure", [*FAILING, "a missing command"])
def test_a_failing_agent_stops_the_game_naming_the_request(
    classes: Path, tmp_path: Path, failure: str
) -> None:
    if failure in FAILING:
        script, message = FAILING[failure]
        (tmp_path / "agent.sh").write_text(script + "\n")
        agent = shlex.join(["sh", str(tmp_path / "agent.sh")])
    else:
        agent, message = "/no/such/agent --rules eaai", "could not start the agent [/no/such/agent"
    limit = {"RUMMY_AGENT_TIMEOUT": "0.5"} if failure == "silence" else None
    done, _, _ = play(classes, tmp_path, agent, games=1, env=limit)
    assert done.returncode != 0
    assert "RummySimPlayer$AgentError" in done.stderr
    assert message in done.stderr, done.stderr
