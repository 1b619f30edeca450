"""Agent seats: a Python object or another program at a seat, played through the
compiled engine (docs/AGENTS.md).

The agents here are ``sim.agents.greedy.Greedy`` (greedy written in Python: it must
play exactly the compiled ``greedy``'s hands) and ``external_agent.py`` (the same over
the JSON-lines protocol, or a program that misbehaves on purpose).
"""

from __future__ import annotations

import dataclasses
import json
import shlex
import sys
from pathlib import Path

import numpy as np
import pytest
from typer.testing import CliRunner

from sim.agents import seats as S
from sim.agents.view import View
from sim.cli import app
from sim.engine import StrategyDecisionError, play_deals, play_games
from sim.rules import get_rules
from sim.study import load_hands
from sim.study.execute import Executor, run
from sim.study.runs import RunConfig, RunError
from strategies import StrategyError, format_seat, parse_lineup, parse_seat

AGENT = Path(__file__).with_name("external_agent.py")
PY_GREEDY = "python:sim.agents.greedy:Greedy"


def external(mode: str, at: int | None = None, options: str = "") -> str:
    words = [sys.executable, str(AGENT), mode, *([] if at is None else [str(at)])]
    return f"external:cmd='{shlex.join(words)}'" + options


def same_hands(a, b) -> bool:
    return all(np.array_equal(x, y) for x, y in zip(a, b, strict=True))


# --- the same hands as the compiled strategy ---------------------------------------------


@pytest.mark.parametrize(
    ("rules", "agent_seats", "others"),
    [
        ("gin", "{a}/simple", "greedy/simple"),
        ("oklahoma-gin", "simple/{a}", "simple/greedy"),
        ("knock-rummy", "{a}/simple/greedy/{a}", "greedy/simple/greedy/greedy"),
    ],
)
def test_a_python_greedy_plays_the_compiled_greedys_hands(rules, agent_seats, others) -> None:
    lineup = agent_seats.format(a=PY_GREEDY)
    assert same_hands(
        play_deals(rules, lineup, deals=400, seed=11), play_deals(rules, others, deals=400, seed=11)
    )


def test_a_python_greedy_plays_the_compiled_greedys_games() -> None:
    three = dataclasses.replace(get_rules("knock-rummy"), players=3)  # a pool to 100
    for rules, agents, compiled in (
        ("gin", f"{PY_GREEDY}/simple", "greedy/simple"),
        (three, f"simple/{PY_GREEDY}/greedy", "simple/greedy/greedy"),
    ):
        games_a, hands_a = play_games(rules, agents, games=15, seed=4)
        games_b, hands_b = play_games(rules, compiled, games=15, seed=4)
        assert same_hands(games_a, games_b) and same_hands(hands_a, hands_b)


def test_an_external_greedy_plays_the_compiled_greedys_hands() -> None:
    lineup = f"{external('greedy')}/simple"
    assert same_hands(
        play_deals("gin", lineup, deals=150, seed=3),
        play_deals("gin", "greedy/simple", deals=150, seed=3),
    )


def test_the_python_greedy_compiles_its_solver_in_hello(monkeypatch) -> None:
    """From an empty cache its solver compiles for 10 s or more, its decisions' limit:
    ``hello`` calls each solver function once, with the types its decisions pass, so
    that the compile falls in the greeting's time."""
    from sim.agents import greedy

    called = []

    def recording(name, real):
        def call(*args):
            called.append((name, [type(a) for a in args]))
            return real(*args)

        return call

    for name in ("min_deadwood_one", "best_discard"):
        monkeypatch.setattr(greedy, name, recording(name, getattr(greedy, name)))
    greedy.Greedy().hello(rules=get_rules("gin"), seat=0)
    assert called == [("min_deadwood_one", [int, np.ndarray]),
                      ("best_discard", [int, int, np.ndarray])]  # fmt: skip


def test_a_different_agent_plays_different_hands() -> None:
    """The comparison above can fail: an agent that plays otherwise changes the hands."""
    lineup = f"{external('fine')}/simple"
    assert not same_hands(
        play_deals("gin", lineup, deals=50, seed=3),
        play_deals("gin", "greedy/simple", deals=50, seed=3),
    )


# --- what an agent sees ------------------------------------------------------------------


class Recorder:
    """Greedy that keeps every view it was shown."""

    views: list[View] = []

    def __init__(self) -> None:
        from sim.agents.greedy import Greedy

        self.greedy = Greedy()

    def hello(self, rules, seat) -> None:
        self.greedy.hello(rules, seat)

    def take(self, view):
        Recorder.views.append(view)
        return self.greedy.take(view)

    def discard(self, view):
        Recorder.views.append(view)
        return self.greedy.discard(view)

    def knock(self, view, card):
        return self.greedy.knock(view, card)


def test_an_agent_never_sees_the_cards_the_opponent_keeps_hidden() -> None:
    """The cards the opponent ends with that it never showed (dealt, or drawn from the
    stock, and kept) are in no field of any view the agent was shown."""
    from sim.engine import replay_hand

    spec = "python:tests.sim.agents.test_seats:Recorder"
    for deal in range(6):
        Recorder.views.clear()
        replay = replay_hand("gin", f"{spec}/greedy", seed=8, deal=deal)
        shown = sum(1 << card for code, seat, card, _ in replay.events if seat == 1 and code == 3)
        secret = replay.final_hands[1] & ~shown
        assert secret and Recorder.views
        for view in Recorder.views:
            seen = view.hand | view.rebuilt
            for mask in (*view.taken, *view.discarded, *(1 << c for c in view.pile)):
                seen |= mask
            assert seen & secret == 0, (deal, view)


def test_the_json_view_round_trips() -> None:
    Recorder.views.clear()
    play_deals(
        "knock-rummy",
        "python:tests.sim.agents.test_seats:Recorder/greedy/simple/greedy",
        deals=20,
        seed=5,
    )
    for view in Recorder.views[:200]:
        again = View.from_json(json.loads(json.dumps(view.to_json())))
        assert again == view


# --- specs ------------------------------------------------------------------------------


def test_agent_specs_read_back_and_split_at_quotes() -> None:
    seats = parse_lineup(f"{external('fine', options=',timeout=2.5')}/greedy:knock_at=3", 2)
    assert [format_seat(s, p) for s, p in seats][1] == "greedy:knock_at=3"
    again = parse_seat(format_seat(*seats[0]))
    assert again == seats[0] and again[1].timeout == 2.5
    assert format_seat(*parse_seat(PY_GREEDY)) == PY_GREEDY


@pytest.mark.parametrize(
    ("spec", "says"),
    [
        ("python:no.such.module:X", "cannot import no.such.module"),
        ("python:json:Nope", "json has no class Nope"),
        ("python:json", "write python:package.module:Class"),
        ("python:sim.agents.view:ViewError", "has no take, discard, knock method"),
        ("external:cmd=no-such-program-here", "no program 'no-such-program-here' to run"),
        ("external:prog=x", "write external:cmd=COMMAND"),
        ("external:cmd='python3 x',timeout=0", "timeout='0'"),
        ("external:cmd='python3 x',speed=2", "unknown agent option 'speed=2'"),
        ("external:cmd='python3 x", "an unclosed quote"),
    ],
)
def test_a_bad_agent_spec_is_one_line_before_anything_plays(spec: str, says: str) -> None:
    with pytest.raises(StrategyError, match=None) as error:
        parse_lineup(f"{spec}/greedy", 2)
    assert says in str(error.value) and "\n" not in str(error.value)


def test_a_program_that_does_not_greet_is_one_line_before_anything_plays() -> None:
    with pytest.raises(
        StrategyError,
        match="no greeting: its program has ended .exit status 3.; its last words: 'no hello",
    ):
        play_deals("gin", f"{external('nohello')}/greedy", deals=5, seed=1)


def test_a_program_silent_past_the_greeting_time_is_told_why_it_may_be(monkeypatch) -> None:
    """A start that compiles (``rummy agent`` on an empty cache, a busy machine) can
    outlast the greeting's time: the line says what to do."""
    monkeypatch.setattr(S, "GREETING", 0.5)
    with pytest.raises(StrategyError) as error:
        play_deals("gin", "external:cmd='sleep 30',timeout=0.2/greedy", deals=5, seed=1)
    assert str(error.value) == (
        "external:cmd=sleep 30: no greeting: no answer within 0.5 s "
        "(a start that compiles: `rummy warm` first, or a longer timeout=SECONDS)"
    )


# --- an agent that fails ----------------------------------------------------------------


@pytest.mark.parametrize(
    ("mode", "at", "options", "decision", "said"),
    [
        ("garbage", 5, "", "take", "not a JSON line: 'this is not json'"),
        ("illegal", 4, "", "discard", "it discarded card 0, which it does not hold"),
        (
            "die",
            3,
            "",
            "take",
            "its program has ended (exit status 5); its last words: 'I give up'",
        ),
        ("error", 2, "", "discard", "it answered an error: 'confused'"),
        ("silent", 2, ",timeout=0.5", "discard", "no answer within 0.5 s"),
    ],
)
def test_a_failing_agent_stops_the_run_in_one_line(mode, at, options, decision, said) -> None:
    spec = external(mode, at, options)
    with pytest.raises(StrategyDecisionError) as error:
        play_deals("gin", f"{spec}/greedy", deals=40, seed=1)
    message = str(error.value)
    assert "\n" not in message
    assert message.startswith(
        f"the agent at seat 0 ({spec}) failed at its {decision} decision: {said}"
    )
    assert "; seed 1, deal 0, hand 0, turn " in message
    stopped = [
        s
        for s in S._live
        if isinstance(s, S.ExternalSeat) and s.spec == spec.partition(",timeout")[0]
    ]
    assert stopped and all(s.process.poll() is not None for s in stopped)


class Raises:
    def take(self, view):
        return False

    def discard(self, view):
        raise RuntimeError("no idea")

    def knock(self, view, card):
        return "continue"


class Knocks:
    def take(self, view):
        return "yes"

    def discard(self, view):
        return 0

    def knock(self, view, card):
        return "continue"


def test_a_python_agent_that_raises_or_answers_garbage_stops_the_run() -> None:
    with pytest.raises(
        StrategyDecisionError,
        match=r"failed at its discard decision: RuntimeError: no idea; seed 2, deal 0",
    ):
        play_deals("gin", "python:tests.sim.agents.test_seats:Raises/greedy", deals=5, seed=2)
    with pytest.raises(
        StrategyDecisionError,
        match=r"failed at its take decision: take must be true or false, it answered 'yes'",
    ):
        play_deals("gin", "python:tests.sim.agents.test_seats:Knocks/greedy", deals=5, seed=2)


def test_agent_seats_are_refused_where_they_cannot_play() -> None:
    cfg = RunConfig(
        experiment="a", rules="gin", lineup=(PY_GREEDY, "greedy"), count=10, seed=1, out="unused"
    )
    from sim.study.execute import execute

    with pytest.raises(
        RunError, match="agent seats .* play on this machine only: drop --backend ray"
    ):
        execute([cfg], Executor(backend="ray"))


# --- studies ------------------------------------------------------------------------------


def test_a_study_with_an_agent_resumes_and_is_reproducible(tmp_path: Path, monkeypatch) -> None:
    lineup = (external("greedy"), "simple")
    cfg = RunConfig(experiment="a", rules="gin", lineup=lineup, count=900, seed=6, chunk_size=300,
                    out=tmp_path, command="pytest")  # fmt: skip
    done = run(cfg, Executor(workers=2))
    whole = load_hands(done.run_dir).sort("deal").collect()
    manifest = json.loads((done.run_dir / "manifest.json").read_text())
    assert manifest["agents"] == [
        {"seat": 0, "spec": lineup[0], "name": "test agent (greedy)", "version": "7"}
    ]
    assert manifest["config"]["agents"][0]["spec"] == lineup[0]
    (done.run_dir / "chunks" / "chunk-000001.json").unlink()
    again = run(cfg, Executor(workers=2))
    assert again.chunks_run == 1
    assert load_hands(again.run_dir).sort("deal").collect().equals(whole)
    compiled = dataclasses.replace(cfg, experiment="b", lineup=("greedy", "simple"))
    theirs = load_hands(run(compiled, Executor(workers=1)).run_dir).sort("deal").collect()
    names = ("lineup", "strategy_0", "player_0")  # the seat's name; the hands are the same
    assert whole.drop(names).equals(theirs.drop(names))
    # Another version of the agent does not resume this run.
    S.close_all()
    monkeypatch.setenv("AGENT_VERSION", "8")
    (done.run_dir / "chunks" / "chunk-000002.json").unlink()
    with pytest.raises(
        RunError,
        match="played by other agents .seat 0: test agent .greedy. 7., not seat 0: test agent .gre",
    ):
        run(cfg, Executor(workers=1))


def test_the_cli_says_an_agents_failure_in_one_line_and_keeps_finished_chunks(
    tmp_path: Path,
) -> None:
    spec = external("garbage", 1500)  # fails in the second chunk of 50 deals
    result = CliRunner().invoke(
        app,
        ["run", "--rules", "gin", "--seats", f"{spec}/greedy", "--deals", "300", "--seed", "3",
         "--chunk-size", "50", "--out", str(tmp_path)],
    )  # fmt: skip
    assert result.exit_code == 1
    last = result.output.strip().splitlines()[-1]
    assert last.startswith(f"error: the agent at seat 0 ({spec}) failed at its ")
    assert "not a JSON line: 'this is not json'; seed 3, deal " in last
    (run_dir,) = (tmp_path / "default").iterdir()
    assert len(list((run_dir / "chunks").glob("chunk-*.json"))) >= 1
    assert not list(run_dir.rglob("*.tmp"))


def test_views_tell_the_knock_limit_and_the_forbidden_card() -> None:
    Recorder.views.clear()
    play_deals(
        "oklahoma-gin", "python:tests.sim.agents.test_seats:Recorder/greedy", deals=30, seed=9
    )
    limits = {view.knock_limit for view in Recorder.views}
    assert limits - {None} and all(0 <= x <= 10 for x in limits)
    forbidden = [v for v in Recorder.views if v.phase == "discard" and v.from_pile]
    assert forbidden and all(v.forbidden == v.drawn for v in forbidden)


def test_tune_and_advise_refuse_an_agent_where_only_compiled_strategies_play() -> None:
    from sim.study.tune_request import TuneError, make_request

    with pytest.raises(TuneError, match="is an agent: its decisions are its own"):
        make_request(PY_GREEDY, ["timeout=1,2"], against="simple", rules="gin", count=10)
    cli = CliRunner()
    result = cli.invoke(app, ["tune", PY_GREEDY, "-p", "timeout=1,2", "--deals", "10"])
    assert result.exit_code == 1 and "is an agent: its decisions are its own" in result.output
    result = cli.invoke(
        app,
        ["advise", "--rules", "gin", "--hand", "9C 9D 9H JS QS KS AD 4D 2H 3S JC",
         "--pile", "5S KC 7D 8H 2C", "--opponents", PY_GREEDY],
    )  # fmt: skip
    assert result.exit_code == 1
    assert "--opponents: 'python:sim.agents.greedy:Greedy' is an agent" in result.output
