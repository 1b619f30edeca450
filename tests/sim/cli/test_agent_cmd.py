"""``rummy agent SPEC --rules R``: a strategy served over stdin and stdout (docs/AGENTS.md).

A real exchange with the command in its own process (hello, take, discard, melds, bad
lines, bye), its answers those of ``rummy.player``; a bad SPEC or rule set refused in
one line before anything is read; the end of input, ``bye`` and a table that stops
reading all end it with status 0.
"""

from __future__ import annotations

import json
import subprocess
import sys
from typing import Any

import pytest
from typer.testing import CliRunner

from sim import __version__
from sim.agents.player import player
from sim.cli import app
from tests.sim.agents.test_player import gin_view
from tests.support.cli import one_line

runner = CliRunner()
AGENT = [sys.executable, "-m", "rummy", "agent"]


def line(message: Any) -> str:
    return json.dumps(message) + "\n"


def eaai_views() -> tuple[dict[str, Any], dict[str, Any]]:
    """Seat 1's first draw and its discard after drawing from the stock, under eaai."""
    take = gin_view(seat=1, pile=[5, 44], turn=1, stock=30, discarded=[[44], []])
    hand = [*take["hand"], 30]
    return take, {**take, "hand": hand, "phase": "discard", "drawn": 30, "stock": 29, "turn": 2}


def test_a_real_exchange_answers_as_the_player_does() -> None:
    take, discard = eaai_views()
    me = player("greedy:knock_at=5", rules="eaai", seat=1)
    card = me.discard(discard)
    expected = [
        {"type": "hello", "name": "greedy:knock_at=5", "version": __version__},
        {"take": me.take(take)},
        {"error": "not a JSON line: 'not json'"},
        {"discard": card, "knock": me.knock(discard, card)},
        {"melds": [[0, 1, 2], [13, 14, 15]], "deadwood": [30], "points": 5},
        {"error": "unknown request type 'deal'; the requests: hello, take, discard, melds, bye"},
    ]
    requests = [
        line({"type": "hello", "protocol": 1, "seat": 1, "players": 2, "rules": "eaai"}),
        line({"type": "take", "view": take}),
        "not json\n",
        line({"type": "discard", "view": discard}),
        line({"type": "melds", "cards": [0, 1, 2, 13, 14, 15, 30]}),
        line({"type": "deal"}),
        line({"type": "bye"}),
        line({"type": "take", "view": take}),  # after bye: never read
    ]
    with subprocess.Popen(
        [*AGENT, "greedy:knock_at=5", "--rules", "eaai"], stdin=subprocess.PIPE,
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, bufsize=1,
    ) as process:  # fmt: skip
        assert process.stdin is not None and process.stdout is not None
        answers = []
        for request in requests[:6]:  # one at a time: each answer comes before the next ask
            process.stdin.write(request)
            process.stdin.flush()
            answers.append(json.loads(process.stdout.readline()))
        process.stdin.write("".join(requests[6:]))
        process.stdin.close()
        assert process.wait(timeout=60) == 0
        assert process.stdout.read() == "" and process.stderr is not None
        assert process.stderr.read() == ""
    assert answers == expected


def test_the_end_of_input_or_a_table_that_stops_reading_ends_it_quietly() -> None:
    take, _ = eaai_views()
    ended = subprocess.run([*AGENT, "greedy", "--rules", "eaai"], input=line({"type": "take",
                           "view": take}), capture_output=True, text=True, timeout=60)  # fmt: skip
    assert (ended.returncode, ended.stdout, ended.stderr) == (0, '{"take":false}\n', "")
    with subprocess.Popen(
        [*AGENT, "greedy", "--rules", "eaai"], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
    ) as process:  # fmt: skip
        assert process.stdin is not None and process.stdout is not None
        process.stdout.close()  # the table is gone: the answer meets a closed pipe
        process.stdin.write(line({"type": "take", "view": take}).encode() * 3)
        process.stdin.close()
        assert process.wait(timeout=60) == 0
        assert process.stderr is not None and process.stderr.read() == b""


def test_in_process_through_the_app() -> None:
    result = runner.invoke(
        app, ["agent", "greedy"], input=line({"type": "take", "view": gin_view()})
    )
    assert (result.exit_code, result.stdout) == (0, '{"take":false}\n')


@pytest.mark.parametrize(
    ("args", "status", "words"),
    [
        (["nosuch"], 1, "unknown strategy 'nosuch'; choose one of: random, greedy"),
        (["greedy:knock_at=x"], 1, "knock_at"),
        (["greedy", "--rules", "nope"], 1, "unknown preset 'nope'"),
        (["greedy", "--rule", "hand_size=30"], 1, "hand_size=30 is not allowed"),
        (["python:json:JSONDecoder"], 1, "is an agent seat, not a compiled strategy"),
        (["external:cmd=cat"], 1, "is an agent seat, not a compiled strategy"),
        ([], 2, "Missing argument 'spec'"),
        (["greedy", "--nope"], 2, "No such option"),
    ],
)
def test_a_bad_spec_or_rule_set_is_one_line_before_anything_is_read(
    args: list[str], status: int, words: str
) -> None:
    result = runner.invoke(app, ["agent", *args], input="garbage\n")
    one_line(result, status, words)
    assert result.stdout == ""  # no request was read: nothing answered
