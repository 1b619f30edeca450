"""``rummy advise`` and ``sim.advise``: positions, brute-force agreement, the CLI."""

from __future__ import annotations

import json
from fractions import Fraction

import numba
import numpy as np
import pytest
from typer.testing import CliRunner

from kernels import mc as K
from kernels.obs import SCRATCH_SIZE
from sim.advise import AdviseError, Position, actions_of, advise
from sim.cards import card_name, cards_of
from sim.cli import app
from sim.engine import key_of
from strategies import params_vector
from tests.reference import mc_ref as R
from tests.reference import strategies_ref as S
from tests.support.twins import fast_solver

runner = CliRunner()
HAND = "9C 9D 9H JS QS KS AD 4D 2H 3S"


def test_position_counts_and_default_stock() -> None:
    pos = Position.parse("gin", hand=HAND + " JC", pile="5S KC 7D 8H 2C")
    assert pos.stock == 52 - 11 - 5 - 10
    assert pos.phase == 2  # discard decision
    # The pile's discards go to the players in turn order, backwards from the top.
    assert {card_name(c) for c in cards_of(pos.discarded[1])} == {"7D", "2C"}
    assert pos.discarded[0] == 0
    obs = pos.obs(key_of(1))
    assert K.hidden_count_consistent(obs)


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        ({"hand": "9C 9D"}, "holds 2 cards"),
        ({"hand": HAND, "pile": "9C"}, "both in the hand and in the pile"),
        ({"hand": HAND, "pile": "5C", "stock": 3}, "stock 3 does not fit"),
        ({"hand": HAND, "pile": "5C", "took": {0: "7H"}}, "must be an opponent's seat"),
        ({"hand": HAND, "pile": "5C", "took": {1: "5C"}}, "already placed elsewhere"),
        ({"hand": HAND}, "needs a discard pile"),
        ({"hand": HAND, "pile": "5C", "seat": 4}, "seat 4"),
        ({"hand": HAND + " JC", "pile": "5C", "just_took": "7H"}, "--just-took 7H"),
        ({"hand": HAND, "pile": "5C", "scores": [1, 2, 3]}, "--scores needs 2"),
        ({"hand": HAND, "pile": "5C", "rebuilds": 1}, "gin allows 0..0 stock rebuilds"),
    ],
)
def test_impossible_positions_are_refused(kwargs: dict, message: str) -> None:
    with pytest.raises(AdviseError, match=message):
        Position.parse("gin", **kwargs)


def test_same_seed_same_answer_and_labels() -> None:
    pos = Position.parse("gin", hand=HAND + " JC", pile="5S KC 7D 8H 2C")
    one = advise(pos, samples=300, seed=4)
    two = advise(pos, samples=300, seed=4)
    other = advise(pos, samples=300, seed=5)
    assert [(a.label, a.points.estimate) for a in one.actions] == [
        (a.label, a.points.estimate) for a in two.actions
    ]
    assert [a.points.estimate for a in one.actions] != [a.points.estimate for a in other.actions]
    labels = {a.label for a in one.actions}
    assert {"discard JC", "knock JC"} <= labels  # 11 discards, knocks where legal
    assert len([a for a in one.actions if a.kind == "discard"]) == 11
    means = [a.points.estimate for a in one.actions]
    assert means == sorted(means, reverse=True)
    assert one.actions[0].vs_best.estimate == 0.0


def test_time_limit_stops_after_a_round() -> None:
    pos = Position.parse("gin", hand=HAND, pile="5S KC")
    result = advise(pos, samples=5000, seed=1, time_limit=1e-9)
    assert result.samples == 250
    full = advise(pos, samples=250, seed=1)
    assert [a.points.estimate for a in result.actions] == [a.points.estimate for a in full.actions]


def test_advise_agrees_with_brute_force(monkeypatch: pytest.MonkeyPatch) -> None:
    """Late in a hand (the opponent holds 7 cards it took from the pile; 3 hidden cards
    in its hand and 3 in the stock): every action's mean matches the exact expectation
    over all 720 orderings of the hidden cards."""
    monkeypatch.setattr(S, "SOLVER", fast_solver)
    pos = Position.parse(
        "gin",
        hand="AC 2C 3C 5D 6D 7D 9S 9H 9C 2H QS",
        pile="KD JH 8C 4S 4H TS TC 6S 3D KH 8D QD JS 4C 5C 6C QC 5H 8H TH 3H JC TD 6H 8S AD QH JD",
        took={1: "7C 7S 7H KS KC AH AS"},
        discarded={},
    )
    assert pos.stock == 3
    key = key_of(0)
    kinds, cards = actions_of(pos, key)
    actions = list(zip(kinds.tolist(), cards.tolist(), strict=True))
    ref_obs = S.RefObs(
        seat=0,
        players=2,
        hand=pos.hand,
        pile=list(pos.pile),
        taken=list(pos.took),
        discarded=list(pos.discarded),
        stock_n=pos.stock,
        rebuilds=pos.rebuilds,
        rebuilt=0,
        turn=0,
        phase=pos.phase,
        upcard=pos.upcard,
        drawn=-1,
        from_pile=False,
        dealer=1,
        rules=[int(v) for v in pos.rules.compile()],
    )
    exact = R.exact_values(ref_obs, actions, R.rollout_policy(ref_obs, -1, 1, 0), 1)
    result = advise(pos, samples=4000, seed=0, model="uniform")
    by_label = {a.label: a for a in result.actions}
    for (kind, card), value in zip(actions, exact, strict=True):
        label = f"knock {card_name(card)}" if kind == K.ACT_KNOCK else f"discard {card_name(card)}"
        a = by_label[label]
        slack = 1.5 * a.points.half_width + 1e-9  # ~3 standard errors
        assert abs(a.points.estimate - float(value)) <= slack, (label, float(value), a.points)
    best_exact = max(exact)
    if sorted(exact)[-2] < best_exact - Fraction(2):
        winner = actions[exact.index(best_exact)]
        assert result.actions[0].label.endswith(card_name(winner[1]))


def test_cli_table_and_json() -> None:
    args = [
        "advise",
        "--rules",
        "gin",
        "--hand",
        HAND,
        "--pile",
        "5S KC 7D 8H 2C",
        "--samples",
        "300",
    ]
    table = runner.invoke(app, args)
    assert table.exit_code == 0, table.output
    assert "take 2C" in table.output and "draw" in table.output
    out = runner.invoke(app, [*args, "--json"])
    assert out.exit_code == 0
    data = json.loads(out.output)
    assert data["samples"] == 300 and data["model"] == "kept"
    assert {a["kind"] for a in data["actions"]} == {"take", "draw"}
    again = json.loads(runner.invoke(app, [*args, "--json"]).output)
    assert [a["points"] for a in again["actions"]] == [a["points"] for a in data["actions"]]
    option = runner.invoke(
        app,
        ["advise", "--hand", HAND, "--pile", "5S", "--upcard-option", "--json", "--samples", "50"],
    )
    assert {a["kind"] for a in json.loads(option.output)["actions"]} == {"take", "pass"}


@pytest.mark.parametrize(
    ("extra", "message"),
    [
        (["--hand", "9C 9X"], "9X"),
        (["--hand", HAND, "--pile", "5S", "--took", "1-7H"], "SEAT:CARDS"),
        (["--hand", HAND, "--pile", "5S", "--model", "psychic"], "model 'psychic'"),
        (["--hand", HAND, "--pile", "5S", "--model", "history"], "mc's in play only"),
        (["--hand", HAND, "--pile", "5S", "--rules", "nope"], "nope"),
        (["--hand", HAND, "--pile", "5S", "--scores", "1e30 0"], "scores"),
        (["--hand", HAND, "--pile", "5S", "--scores", f"{10**10} 0"], "--scores must lie"),
        (["--hand", HAND, "--pile", "5S", "--upcard", "JK"], "--upcard JK: gin has no jokers"),
        (
            [
                "--hand",
                "AC 2C 3C 5D 6D 7D 9S",
                "--pile",
                "5S",
                "--rules",
                "knock-rummy",
                "--rebuilds",
                "4",
            ],
            "--rebuilds 4: knock-rummy allows 0..3 stock rebuilds",
        ),  # fmt: skip
    ],
)
def test_cli_errors_are_one_line(extra: list[str], message: str) -> None:
    result = runner.invoke(app, ["advise", *extra])
    assert result.exit_code == 1
    assert message in result.output
    assert "Traceback" not in result.output
    assert len(result.output.strip().splitlines()) == 1


@pytest.mark.parametrize(
    ("extra", "option"),
    [
        (["--samples", "1"], "--samples"),
        (["--samples", "2000000"], "--samples"),
        (["--knock-at", "99999999999999999999"], "--knock-at"),
        (["--time", "nan"], "--time"),
        (["--turn", "-5"], "--turn"),
        (["--turn", "1000"], "--turn"),
    ],
)
def test_cli_out_of_range_is_a_usage_error(extra: list[str], option: str) -> None:
    """A value outside the option's own range is a malformed command line (status 2)."""
    result = runner.invoke(app, ["advise", "--hand", HAND, "--pile", "5S", *extra])
    assert result.exit_code == 2
    assert f"Invalid value for '{option}'" in result.output
    assert len(result.output.strip().splitlines()) == 1


def test_mc_hook_decision_matches_advise_best() -> None:
    """The strategy and the advisor share one kernel: with the same key and samples
    the ``mc`` discard hook picks advise's best action."""
    from strategies import mc as M

    pos = Position.parse("gin", hand=HAND + " JC", pile="5S KC 7D 8H 2C")
    key = key_of(3)
    obs = pos.obs(key)
    scratch = np.zeros(SCRATCH_SIZE, np.int64)
    params = params_vector(M.Params(samples=300, candidates=0, game_weight=0.0, screen=0))
    card = M.discard_nb(obs, params, scratch)  # the hook as the engine calls it
    kinds, cards = actions_of(pos, key)
    net = np.zeros((len(kinds), 300))
    won = np.zeros((len(kinds), 300), np.int8)
    from kernels.rng import random64

    K.evaluate(
        obs,
        kinds,
        cards,
        np.uint64(random64(np.uint64(obs.rng_key), 0)),  # as advise passes it: the piece's types
        0,
        1,
        K.rollout_policy(obs.rules, -1, 1, 0),  # mc's default in a game's first hand
        1,
        net,
        won,
        np.zeros_like(won),
        K.new_inference(),
    )
    best = int(np.argmax(net.mean(axis=1)))
    assert card == cards[best] and scratch[M.CHOSEN_KIND] == kinds[best]


def test_a_joker_in_the_hand_and_one_in_the_pile() -> None:
    """Both jokers print as JK: the pile's JK is the other joker, not a repeat."""
    from sim.rules import get_rules

    rules = get_rules("joker-knock", players=2)
    pos = Position.parse(rules, hand="AC 2C JK 4D 5D 6D 9H 9S 9C 2S", pile="5H KC JK")
    assert pos.hand >> 52 & 1 and pos.pile[-1] == 53
    with pytest.raises(ValueError, match="'JK' given 3 times in this position"):
        Position.parse(rules, hand="AC 2C JK 4D 5D 6D 9H 9S 9C 2S", pile="JK KC JK")


@pytest.mark.parametrize(
    ("preset", "knock_at", "throw", "expected", "throws"),
    [
        ("eaai", -1, True, 0, True),
        ("eaai", -1, False, 0, False),
        ("gin-classic", -1, True, 10, False),
        ("knock-rummy", -1, True, 26, False),
        ("eaai", 7, True, 7, False),
    ],
)
def test_advice_reports_the_rollout_policy_it_used(
    preset: str, knock_at: int, throw: bool, expected: int, throws: bool
) -> None:
    """--knock-at -1 is mc's choice from the rules, resolved to a number in the result;
    the rollouts throw for gin only where they play for gin (threshold 0)."""
    hand = "9C 9D 9H JS QS KS AD 4D" if preset == "knock-rummy" else HAND + " JC"
    pos = Position.parse(preset, hand=hand, pile="5S KC 7D 8H 2C")
    result = advise(pos, samples=2, knock_at=knock_at, throw_for_gin=throw)
    assert (result.rollout_knock_at, result.rollout_throws_for_gin) == (expected, throws)
    assert result.as_dict()["rollout_knock_at"] == expected
    assert result.as_dict()["rollout_throws_for_gin"] == throws


@pytest.mark.parametrize(("preset", "chosen"), [("gin", "kept"), ("knock-rummy", "shown")])
def test_the_default_model_is_mcs_choice_from_the_rules(preset: str, chosen: str) -> None:
    """No model given: the one mc's default takes under the rules, named in the result,
    and the same answer as asking for it by name."""
    hand = "9C 9D 9H JS QS KS AD 4D" if preset == "knock-rummy" else HAND + " JC"
    pos = Position.parse(preset, hand=hand, pile="5S KC 7D 8H 2C")
    default = advise(pos, samples=40)
    named = advise(pos, samples=40, model=chosen)
    assert default.model == chosen and default.as_dict()["model"] == chosen
    assert [a.points for a in default.actions] == [a.points for a in named.actions]


def test_known_opponents_are_rolled_out_with_their_strategy() -> None:
    """``opponents``: the rollouts run in the engine of strategies, the opponents playing
    their own strategy. Told they are greedy (at the rule's limit, as the built-in model
    rolls them out), with your rollouts at a fixed threshold and no gin throws, the advice
    is the built-in model's number for number; told they wait for gin, it changes."""
    pos = Position.parse("gin", hand=HAND + " JC", pile="5S KC 7D 8H 2C")
    same = {"samples": 200, "seed": 3, "knock_at": 10, "throw_for_gin": False}
    built_in = advise(pos, **same).as_dict()
    told = advise(pos, **same, opponents="greedy").as_dict()
    assert told.pop("rollout_opponents") == "greedy"
    for key in ("seconds",):
        built_in.pop(key), told.pop(key)
    assert built_in == told  # every action's points, win rate and comparison
    waiting = advise(pos, **same, opponents="greedy:knock_at=0").as_dict()
    points = {a["action"]: a["points"] for a in waiting["actions"]}
    assert points != {a["action"]: a["points"] for a in built_in["actions"]}
    with pytest.raises(AdviseError, match="--opponents"):
        advise(pos, **same, opponents="nosuch")


def test_cli_known_opponents() -> None:
    args = ["advise", "--rules", "gin", "--hand", HAND, "--pile", "5S KC 7D 8H 2C",
            "--samples", "60", "--opponents", "greedy:knock_at=0"]  # fmt: skip
    table = runner.invoke(app, args)
    assert table.exit_code == 0, table.output
    assert "the others playing greedy:knock_at=0" in " ".join(table.output.split())
    data = json.loads(runner.invoke(app, [*args, "--json"]).output)
    assert data["rollout_opponents"] == "greedy:knock_at=0" and not data["rollout_throws_for_gin"]
    bad = runner.invoke(app, [*args[:-1], "nosuch"])
    assert bad.exit_code == 1 and "--opponents" in bad.stderr and "Traceback" not in bad.output


@pytest.mark.parametrize("opponents", [[], ["--opponents", "greedy"]])
def test_cli_says_when_inferred_hands_fit_nothing_shown(opponents: list[str]) -> None:
    """The opponent threw seven clubs and diamonds in a row: few hands of ten fit that
    under the inferred model, so most samples keep their last deal, and advice says
    how many (as a note, and in the JSON); the kept model never deals again."""
    args = ["advise", "--rules", "gin", "--hand", HAND, "--pile", "5S 2C 3C 4C 5C 6C 7C 8C 5D",
            "--discarded", "1:2C,3C,4C,5C,6C,7C,8C", "--samples", "40", *opponents]  # fmt: skip
    table = runner.invoke(app, [*args, "--model", "inferred"])
    assert table.exit_code == 0, table.output
    data = json.loads(runner.invoke(app, [*args, "--model", "inferred", "--json"]).output)
    n = data["inference_misses"]
    assert 0 < n <= 40
    assert " ".join(table.stderr.split()) == (
        f"note: {n} sampled opponent hands fit nothing the opponent showed in {K.INFER_TRIES} "
        f"deals ({K.PLAYED_TRIES} under the played model) and kept the last deal, or under "
        "the history model were dealt by the rules' model (mc's inferred, shown, played or "
        "history model, the shown one its default in Knock Rummy: docs/MC.md)"
    )
    kept = json.loads(runner.invoke(app, [*args, "--model", "kept", "--json"]).output)
    assert kept["inference_misses"] == 0


def test_warm_compiles_the_rollouts_for_the_types_advise_passes(monkeypatch) -> None:
    """``rummy warm``'s entry compiles the rollouts of known opponents before it plays
    (``_warm_known_opponents``): for the very argument types ``advise`` then calls them
    with, or a user's first ``advise --opponents`` would compile a second copy."""
    import sim.advise as A

    signatures: dict[str, tuple] = {}

    def typed(args: tuple) -> tuple:
        return tuple(numba.typeof(a) for a in args)

    def record_known(*args, **kw):
        values, *rest = known(*args, **kw)

        def called(*call_args):
            signatures["advise"] = typed(call_args)
            return values(*call_args)

        called.dispatcher = values
        return (called, *rest)

    def record_ensure(called, args):
        signatures["warm"] = typed(args)
        ensure(called.dispatcher, args)

    ensure, known = A.ensure, A._known_opponents
    monkeypatch.setattr(A, "ensure", record_ensure)
    monkeypatch.setattr(A, "_known_opponents", record_known)
    A._warm_known_opponents()
    assert signatures["warm"] == signatures["advise"]
