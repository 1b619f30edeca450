"""mc's rollouts by strategies (``sim/rollouts.py``): the same loop as the rollout policy,
the line-ups it binds, and the specs it refuses."""

from __future__ import annotations

import numpy as np
import pytest

from kernels import mc as K
from kernels.greedy import OWN_TURNS
from kernels.obs import N_PARAMS, SCRATCH_HAND, SCRATCH_SIZE
from sim.agents.player import player
from sim.engine import lineup_of, play_deals, play_games
from sim.rollouts import lineup_for, strategies_in
from sim.rules import get_rules
from strategies import StrategyError, format_seat, parse_lineup, parse_seat
from tests.support.agents import gin_view
from tests.support.positions import card

FEW = "samples=6,gin_drop=0,waiters=0"  # no throwing for gin: the policy is greedy's


def _same(a, b) -> None:
    for name in a._fields:
        np.testing.assert_array_equal(getattr(a, name), getattr(b, name), err_msg=name)


@pytest.mark.parametrize(
    ("rules", "mc", "others"),
    [
        ("gin", FEW, "simple"),
        ("eaai", "samples=6,waiters=0", "simple"),  # throwing for gin until a knock
        ("knock-rummy", FEW, "greedy/simple"),
    ],
)
def test_the_policys_model_bound_plays_as_the_policy(rules: str, mc: str, others: str) -> None:
    """The rollout policy with its opponents at the rule's limit (no waiters) is the
    ``rollout`` strategy in this seat and greedy in the others: the same line-up bound
    as strategies (``opponents=greedy``) plays every hand exactly as the policy does."""
    r = get_rules(rules, players=3) if rules == "knock-rummy" else get_rules(rules)
    policy = play_deals(r, f"mc:{mc},opponents=policy/{others}", deals=12, seed=4)
    bound = play_deals(r, f"mc:{mc},opponents=greedy/{others}", deals=12, seed=4)
    _same(policy, bound)
    games = [
        play_games(r, f"mc:{mc},opponents={o}/{others}", games=2, seed=3)
        for o in ("policy", "greedy")
    ]
    for a, b in zip(*games, strict=True):
        _same(a, b)


def test_a_bound_seat_is_the_same_on_any_thread_count() -> None:
    seats = "mc:samples=6,rollout=simple,opponents=known/simple"
    one = play_deals("gin", seats, deals=8, seed=2, threads=1)
    two = play_deals("gin", seats, deals=8, seed=2, threads=2)
    _same(one, two)


def test_rollouts_by_another_strategy_change_the_play() -> None:
    """A rollout spec is really played: the chart-less ``random`` in every rollout seat
    makes another player than greedy rollouts."""
    greedy = play_deals("gin", f"mc:{FEW},opponents=greedy/simple", deals=12, seed=4)
    rand = play_deals("gin", f"mc:{FEW},rollout=random,opponents=random/simple", deals=12, seed=4)
    assert not np.array_equal(greedy.points, rand.points)


def test_games_play_bound_seats() -> None:
    seats = "mc:samples=4,rollout=greedy:knock_at=0/simple"
    one = play_games("eaai", seats, games=3, seed=1, threads=1)
    two = play_games("eaai", seats, games=3, seed=1, threads=2)
    for a, b in zip(one, two, strict=True):
        _same(a, b)


def test_the_line_up_of_each_place() -> None:
    gin = get_rules("gin")
    seats = parse_lineup("mc:knock_at=5,min_gain=2,opponents=known/simple", 2)
    assert lineup_for(seats, 0, gin) == ["rollout:knock_at=5,min_gain=2,gin_drops=0", "simple"]
    seats = parse_lineup("mc:rollout=simple/mc:rollout=greedy:knock_at=3,opponents=known", 2)
    # an mc opponent is rolled out by its rollout strategy, never by a second search
    assert lineup_for(seats, 1, gin) == ["simple", "greedy:knock_at=3"]
    seats = parse_lineup("greedy/mc:opponents=simple/greedy", 3)
    assert lineup_for(seats, 1, get_rules("knock-rummy", players=3)) == [
        "simple", "rollout:knock_at=-2,min_gain=1,gin_drops=0", "simple"]  # fmt: skip
    # where it plays for gin, throwing for gin as its gin_drop says
    seats = parse_lineup("mc:opponents=known/simple", 2)
    assert (
        lineup_for(seats, 0, get_rules("eaai"))[0] == "rollout:knock_at=-2,min_gain=1,gin_drops=-1"
    )
    assert lineup_for(parse_lineup("mc:rollout=simple/greedy", 2), 0, gin) == ["simple", "greedy"]
    # an mc opponent with no rollout of its own: under Gin scoring the solved chart of the
    # rules (by name, else chart:gin), under Knock Rummy its own rollout strategy
    searchers = parse_lineup("mc/mc:samples=200,opponents=policy", 2)
    for preset, model in (("gin", "chart:gin"), ("eaai", "chart:gin"),
                          ("gin-classic", "chart:gin-classic"),
                          ("oklahoma-gin", "chart:oklahoma-gin")):  # fmt: skip
        assert lineup_for(searchers, 0, get_rules(preset))[1] == model
    pool = get_rules("knock-rummy", players=2)
    assert lineup_for(searchers, 0, pool)[1] == "rollout:knock_at=-2,min_gain=1,gin_drops=0"


def test_specs_as_values_read_back() -> None:
    spec = "mc:samples=50,rollout='greedy:knock_at=0,min_gain=2',opponents=policy"
    strategy, params = parse_seat(spec)
    assert params.rollout == "greedy:knock_at=0,min_gain=2" and params.samples == 50
    assert format_seat(strategy, params) == spec
    assert parse_seat(format_seat(strategy, params)) == (strategy, params)
    # a parameter holding a colon is still a parameter of the spec before it
    seats = lineup_of("mc:samples=5,rollout=greedy:knock_at=0/simple", 2).seats
    assert seats[0][1].rollout == "greedy:knock_at=0" and seats[0][1].samples == 5


@pytest.mark.parametrize(
    ("spec", "says"),
    [
        ("mc:rollout=nosuch", "unknown strategy 'nosuch'"),
        ("mc:rollout='greedy:knock_at=x'", "is not a whole number"),
        ("mc:opponents=known2", "unknown strategy 'known2'"),
        ("mc:rollout=known", "unknown strategy 'known'"),
        ("mc:rollout='python:json:JSONDecoder'", "is an agent"),
        ("mc:opponents=nosuch", "or one of the words: known, policy"),
        ("mc:time=0", "between 0.001 and 3600"),
        ("mc:samples=0", "between 1 and 100000"),
    ],
)
def test_bad_rollout_specs_are_one_line(spec: str, says: str) -> None:
    with pytest.raises(StrategyError, match=says) as info:
        parse_seat(spec)
    assert "\n" not in str(info.value)
    assert spec.split(":")[1].split("=")[0] in str(info.value)  # names the parameter


def test_known_opponents_take_an_agent_for_greedy() -> None:
    """An agent cannot be rolled out: under ``known`` it is the policy's opponent."""
    seats = parse_lineup(["mc:opponents=known", "python:sim.agents.greedy:Greedy"], 2)
    assert lineup_for(seats, 0, get_rules("gin"))[1] == "greedy"


def test_a_player_takes_known_opponents_for_unknown() -> None:
    """``rummy.player`` does not know who it plays: ``opponents=known`` decides as the
    rollout policy's model does (unset)."""
    for key in ("00000000000000ff", "0000000000000abc", "00000000000fffff"):
        view = gin_view(key=key)
        known = player("mc:samples=8,opponents=known", rules="gin").take(view)
        assert known == player("mc:samples=8,opponents=policy", rules="gin").take(view)


def test_a_player_rolls_out_from_any_seat() -> None:
    """The rollout line-up of the view's seat: seat 1's differs from seat 0's."""
    p = player("mc:samples=8,rollout=simple", rules="gin")
    assert p.take(gin_view(seat=1, dealer=0)) in (True, False)


def test_a_rollout_starts_with_the_own_turn_count() -> None:
    """Strategies that count their own turns (the chart's knock rows) start a rollout
    in mid-hand at their discards so far, every other word of the hand zeroed, and
    the game's memory as the engine was given it (not as the last rollout left it)."""
    from kernels.engine import new_state_nb, one_row
    from kernels.probe import resume_probe
    from tests.support.positions import mask, position, rules_of

    hand = mask("AC 2C 3C 5D 6D 7D 9H 9S KC KD JH")
    obs, _ = position(rules_of("gin"), hand, [card("4S")], discarded=[mask("QS QH"), mask("8S")])
    work = K.new_work(2)
    work.base[0], work.base[1] = obs.hand, mask("2H 3H 4H 5H 6H 7H 8H TS JS QD")
    words = np.array([OWN_TURNS, -1], np.int64)
    memory = np.arange(SCRATCH_SIZE - SCRATCH_HAND)
    engine = K.Engine(new_state_nb(2), one_row(2), resume_probe(2), np.zeros(2, np.int64),
                      np.zeros((2, N_PARAMS)), True, words, memory)  # fmt: skip
    engine.state.scratch[:, :] = 77
    done, *_ = K.start_action(obs, K.ACT_DISCARD, card("KD"), 20, work, engine)
    assert not done
    assert engine.state.scratch[0, OWN_TURNS] == 3  # QS, QH, and KD now
    assert engine.state.scratch[1, OWN_TURNS] == 0  # its strategy keeps no count there
    assert not engine.state.scratch[:, 1:OWN_TURNS].any()
    assert (engine.state.scratch[:, SCRATCH_HAND:] == memory).all()  # the game's, as given


def test_a_runs_identity_holds_the_rollout_strategies() -> None:
    """A plugin named only inside a rollout spec is compiled and played: its sources are
    part of the run's identity like a seated one's (``plugin_digests``)."""
    seats = parse_lineup("mc:rollout='mc:rollout=simple',opponents=known/greedy", 2)
    assert [s.name for s in strategies_in(seats)] == ["mc", "mc", "simple", "greedy"]


def test_a_study_refuses_a_time_budget(tmp_path) -> None:
    """A clock would make a study's decisions depend on the machine: one line, before
    anything is written."""
    from sim.study.runs import RunConfig, RunError

    with pytest.raises(RunError, match="time= makes a decision depend on the machine"):
        RunConfig(rules="gin", lineup="mc:time=0.5/simple", count=2, seed=1, out=tmp_path)
    assert list(tmp_path.iterdir()) == []
