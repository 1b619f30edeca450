"""The server of ``rummy agent`` (``sim.agents.serve``): the protocol's answers.

Its decisions are a Player's (``test_player.py`` shows those are the engine's): here,
a real exchange with a ``rummy agent`` process over positions of seeded deals gets the
Player's answers; then every refusal, in one line, with the talk going on after it.
"""

from __future__ import annotations

import io
import json
import subprocess
import sys
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from sim import __version__
from sim.agents.player import player
from sim.agents.serve import MAX_LINE, Server, serve
from sim.agents.view import View
from sim.engine import replay_hand
from sim.rules import get_rules
from tests.sim.agents.test_player import Checked, ask_every_decision, gin_view
from tests.support.agents import Recorder

SPEC = "mc:samples=20"


def positions(spec: str, rules: str, deals: int) -> list[tuple[dict[str, Any], dict[str, Any]]]:
    """Seat 0's requests of ``spec/greedy`` deals, in the order of play, and a Player's
    answers (which are the engine's: the walk checks them)."""
    me = Recorder(player(spec, rules=rules, seat=0))
    checked = Checked()
    for deal in range(deals):
        replay = replay_hand(rules, f"{spec}/greedy", seed=3, deal=deal)
        ask_every_decision(replay, [me, player("greedy", rules=rules)], checked)  # type: ignore[list-item]
    assert checked.wrong == []
    return me.asked


def line(message: Any) -> bytes:
    return (json.dumps(message) + "\n").encode()


def test_a_rummy_agent_process_answers_as_the_player_does() -> None:
    asked = positions(SPEC, "gin", 3)
    assert {r["type"] for r, _ in asked} == {"take", "discard"} and len(asked) > 20
    melds = {"type": "melds", "cards": [0, 1, 2, 13, 14, 15, 30]}
    bad = [b"garbage\n", line({"type": "take"}), line({"type": "deal"})]
    hello = {"type": "hello", "protocol": 1, "seat": 0, "players": 2,
             "rules": get_rules("gin").to_dict()}  # fmt: skip
    requests = [line(hello), *bad, line(melds)] + [line(r) for r, _ in asked]
    # The agent may compile what this process did not (an empty cache, or another one:
    # on a busy machine, over two minutes once): the limit only stops a hang.
    process = subprocess.run(
        [sys.executable, "-m", "rummy", "agent", SPEC, "--rules", "gin"],
        input=b"".join(requests) + line({"type": "bye"}) + line({"type": "take"}),
        capture_output=True, timeout=600,
    )  # fmt: skip
    assert process.returncode == 0 and process.stderr == b""
    answers = [json.loads(x) for x in process.stdout.splitlines()]
    assert len(answers) == len(requests)  # one line each; none after bye
    assert answers[0] == {"type": "hello", "name": SPEC, "version": __version__}
    assert [a.keys() for a in answers[1:4]] == [{"error"}] * 3
    assert answers[4] == {"melds": [[0, 1, 2], [13, 14, 15]], "deadwood": [30], "points": 5}
    assert answers[5:] == [answer for _, answer in asked]


# --- refusals: one line, and the talk goes on ----------------------------------------------


@pytest.fixture(scope="module")
def server() -> Server:
    return Server(player("greedy", rules="gin"))


@pytest.mark.parametrize(
    ("request_line", "words"),
    [
        (b"garbage", "not a JSON line: 'garbage'"),
        (b"", "not a JSON line: ''"),
        (b"[1, 2]", "not a JSON object: '[1, 2]'"),
        (b"\xff\xfe", "not a JSON line"),
        (line({"view": {}}), "unknown request type None; the requests: hello, take, discard"),
        (line({"type": ["take"]}), "unknown request type ['take']"),
        (line({"type": "take", "veiw": {}}), "unknown field 'veiw' in a take request; its fields"),
        (line({"type": "take"}), "a take request needs its view"),
        (line({"type": "take", "view": [1]}), "a view must be a JSON object, got list"),
        (line({"type": "take", "view": {"seat": 0}}), "the view lacks players, hand, pile"),
        (line({"type": "take", "view": gin_view(pile=5)}), "pile must be a list of cards"),
        (line({"type": "take", "view": gin_view(taken=3)}), "taken must be a list with one entry"),
        (line({"type": "take", "view": gin_view(phase=["draw"])}), "phase must be one of"),
        (line({"type": "take", "view": gin_view(from_pile="no")}), "from_pile must be true or"),
        (line({"type": "take", "view": gin_view(stock=7)}), "stock=7 does not add up"),
        (line({"type": "discard", "view": gin_view()}), "discard: the view's phase must be"),
        (line({"type": "melds", "cards": [0, True]}), "melds: cards must be a list of card"),
        (line({"type": "melds", "cards": "AC 2C"}), "melds: cards must be a list of card"),
        (line({"type": "melds", "cards": [0, 0]}), "given twice"),
        (line({"type": "melds", "cards": [52]}), "joker"),
        (line({"type": "hello", "protocol": 2}), "hello: protocol 2; this agent speaks protocol 1"),
        (line({"type": "hello", "protocol": True}), "hello: protocol True"),
        (line({"type": "hello", "players": 3}), "hello: players 3; this agent plays the rules"),
        (line({"type": "hello", "rules": "nope"}), "hello: rules: unknown preset 'nope'"),
        (line({"type": "hello", "rules": "oklahoma-gin"}), "the table's rules have knock_limit="),
        (line({"type": "hello", "rules": {"gin_bonus": 20}}), "have "),
        (line({"type": "hello", "rules": {"players": [2]}}), "hello: rules: players=[2] is not"),
        (line({"type": "hello", "rules": 7}), "rules must be a preset name or a rule set object"),
        (line({"type": "hello", "seat": 2}), "hello: seat must be 0..1, got 2"),
    ],
)
def test_a_bad_request_gets_one_error_line(server: Server, request_line: bytes, words: str) -> None:
    answer = server.answer(request_line)
    assert answer is not None and list(answer) == ["error"], answer
    assert words in answer["error"] and "\n" not in answer["error"], answer


def test_hello_takes_the_agents_own_rules_and_fixes_the_seat() -> None:
    served = Server(player("greedy", rules="eaai"))
    named = get_rules("eaai").to_dict() | {"name": "the challenge's"}
    for rules in ("eaai", named):
        answer = served.answer(line({"type": "hello", "seat": 1, "players": 2, "rules": rules}))
        assert answer == {"type": "hello", "name": "greedy", "version": __version__}
    assert served.player.seat == 1
    refused = served.answer(line({"type": "take", "view": gin_view()}))
    assert refused == {"error": "take: the view is seat 0's; this player is seat 1's"}
    assert "take" in (served.answer(line({"type": "take", "view": gin_view(seat=1)})) or {})


JSON = st.recursive(
    st.none() | st.booleans() | st.integers(-(2**70), 2**70) | st.floats() | st.text(max_size=4),
    lambda inner: (
        st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=4), inner, max_size=3)
    ),
    max_leaves=8,
)


@settings(max_examples=300, derandomize=True, deadline=None,
          suppress_health_check=[HealthCheck.function_scoped_fixture])  # fmt: skip
@given(field=st.sampled_from(View.FIELDS), value=JSON, kind=st.sampled_from(["take", "discard"]))
def test_any_json_in_a_view_field_is_answered_never_raised(
    server: Server, field: str, value: Any, kind: str
) -> None:
    view = gin_view() if kind == "take" else gin_view(
        hand=[0, 1, 2, 13, 14, 15, 26, 27, 40, 41, 30], phase="discard", drawn=30, stock=30
    )  # fmt: skip
    view[field] = value
    answer = server.answer(line({"type": kind, "view": view}))
    assert answer is not None and (set(answer) in ({"error"}, {"take"}, {"discard", "knock"}))


# --- the stream ----------------------------------------------------------------------------


def talk(text: bytes) -> list[Any]:
    out = io.BytesIO()
    serve(player("greedy", rules="gin"), io.BytesIO(text), out)
    return [json.loads(x) for x in out.getvalue().splitlines()]


def test_the_talk_ends_at_bye_or_at_the_end_of_input() -> None:
    take = line({"type": "take", "view": gin_view()})
    assert talk(take + take) == [{"take": False}] * 2
    assert talk(take + line({"type": "bye"}) + take + b"garbage\n") == [{"take": False}]
    assert talk(b"") == []


def test_a_line_too_long_is_refused_and_the_talk_goes_on() -> None:
    take = line({"type": "take", "view": gin_view()})
    answers = talk(b'{"type": "' + b"x" * (2 * MAX_LINE) + b'"}\n' + take)
    assert answers[0]["error"].startswith(f"a line longer than {MAX_LINE} bytes: ")
    assert answers[1:] == [{"take": False}]


def test_every_answer_is_flushed_as_it_is_made() -> None:
    """A table waits for each answer before it writes the next request."""

    class Flushes(io.BytesIO):
        lines: list[bytes] = []

        def flush(self) -> None:
            self.lines.append(self.getvalue())

    out = Flushes()
    take = line({"type": "take", "view": gin_view()})
    serve(player("greedy", rules="gin"), io.BytesIO(take + b"x\n"), out)
    assert [x.count(b"\n") for x in out.lines] == [1, 2]
