"""The determinized Monte Carlo kernels (``kernels/mc.py``) and the ``mc`` strategy.

* The kernel equals its pure-Python twin (``tests/reference/mc_ref.py``) sample by
  sample on random positions of several rule sets, for every opponent model.
* Samples are consistent with the observation, and never favour the cards the
  opponent really holds (the sampler cannot see them).
* In tiny positions the Monte Carlo means agree with a brute-force expectation over
  every ordering of the hidden cards.
* ``mc`` plays whole hands in the engine, reproducibly on any number of threads.
"""

from __future__ import annotations

import importlib.util
import random
from fractions import Fraction
from typing import Any

import numpy as np
import pytest

from kernels import mc as K
from kernels import rollout
from kernels.layout import R_GAME_TARGET
from kernels.obs import PHASE_DISCARD, PHASE_DRAW, SCRATCH_HAND, SCRATCH_SIZE
from kernels.probe import resume_probe
from sim.advise import make_obs
from sim.cards import card_name, parse_cards
from sim.engine import Lineup, engine_of, parse_seat, play_deals, replay_hand
from sim.rollouts import turn_words
from sim.rules import PRESETS, get_rules
from sim.solver import tables_for
from tests.reference import mc_ref as R
from tests.reference import strategies_ref as S
from tests.support import ROOT
from tests.support.twins import fast_solver


def random_position(
    rng: random.Random,
    preset: str,
    phase: int,
    *,
    pile_n: int | None = None,
    stock_n: int | None = None,
    taken: int = 2,
    rebuilds: int = 0,
    rebuilt_in_hands: int | None = None,
    **overrides: Any,
) -> dict[str, Any]:
    """A consistent mid-hand position of seat 0: the true hands, stock and the view.
    With ``rebuilt_in_hands`` the hand had a rebuild: the rebuilt cards are the stock
    and that many of the opponents' cards (drawn from it since)."""
    rules = get_rules(preset, **overrides)
    players, hs = rules.players, rules.cards_per_hand
    deck = list(range(52 + rules.jokers))
    rng.shuffle(deck)
    mine = hs + (1 if phase == PHASE_DISCARD else 0)
    hands = [deck[:mine]]
    k = mine
    for _ in range(1, players):
        hands.append(deck[k : k + hs])
        k += hs
    rest = deck[k:]
    if stock_n is None:
        stock_n = rng.randint(rules.wall + 2, len(rest) - 2)
    pile = rest[: len(rest) - stock_n] if pile_n is None else rest[:pile_n]
    stock = rest[len(pile) :]
    seat_taken = [0] * players
    discarded = [0] * players
    for seat in range(1, players):
        for card in rng.sample(hands[seat], rng.randint(0, taken)):
            seat_taken[seat] |= 1 << card
    for card in pile[1:]:
        discarded[rng.randrange(players)] |= 1 << card
    drawn = rng.choice(hands[0]) if phase == PHASE_DISCARD else -1
    rebuilt = 0
    if rebuilt_in_hands is not None:
        theirs = [c for h in hands[1:] for c in h]
        rebuilt = R.mask_of(stock) | R.mask_of(rng.sample(theirs, rebuilt_in_hands))
    target = max(int(rules.compile()[R_GAME_TARGET]), 41)
    ref_obs = S.RefObs(
        seat=0,
        players=players,
        hand=R.mask_of(hands[0]),
        pile=list(pile),
        taken=seat_taken,
        discarded=discarded,
        stock_n=len(stock),
        rebuilds=rebuilds if rebuilt_in_hands is None else max(rebuilds, 1),
        rebuilt=rebuilt,
        turn=rng.randint(1, 20),
        phase=phase,
        upcard=pile[0],
        drawn=drawn,
        from_pile=False,
        dealer=players - 1,
        rules=[int(v) for v in rules.compile()],
        rng_key=rng.getrandbits(64),
        scores=[rng.randint(target - 40, target - 1) * 60 for _ in range(players)]
        if rng.random() < 0.5
        else [0] * players,
    )
    return {
        "rules": rules,
        "hands": hands,
        "stock": stock,
        "ref": ref_obs,
        "obs": kernel_obs(ref_obs, rules),
    }


def kernel_obs(o: S.RefObs, rules: Any) -> Any:
    pile = np.zeros(128, np.int64)
    pile[: len(o.pile)] = o.pile
    return make_obs(
        o.seat,
        o.players,
        o.hand,
        pile,
        len(o.pile),
        np.array(o.taken, np.int64),
        np.array(o.discarded, np.int64),
        o.stock_n,
        o.rebuilds,
        o.rebuilt,
        o.turn,
        o.phase,
        o.upcard,
        o.drawn,
        o.from_pile,
        o.dealer,
        rules.compile(),
        np.array(o.scores, np.int64),
        tables_for(rules),
        np.uint64(o.rng_key),
    )


def kernel_values(
    obs: Any,
    actions: list[tuple[int, int]],
    key: int,
    samples: int,
    model: int,
    knock_at: int = -1,
    min_gain: int = 1,
    first: int = 0,
) -> tuple[np.ndarray, ...]:
    kinds = np.array([a[0] for a in actions], np.int64)
    cards = np.array([a[1] for a in actions], np.int64)
    net = np.zeros((len(actions), samples))
    won = np.zeros((len(actions), samples), np.int8)
    ends = np.zeros((len(actions), samples), np.int8)
    misses = K.evaluate(
        obs, kinds, cards, np.uint64(key), first, model, knock_at, min_gain, net, won, ends,
        K.new_inference(),
    )  # fmt: skip
    return net, won, ends, misses


CASES = [
    ("gin", {}),
    ("gin-classic", {}),
    ("knock-rummy", {"players": 4}),
    ("oklahoma-gin", {}),
    ("knock-rummy", {"players": 3, "stock_exhaustion": "turn_over"}),
]


ALL_MODELS = [K.MODEL_UNIFORM, K.MODEL_KEPT, K.MODEL_INFERRED, K.MODEL_SHOWN, K.MODEL_PLAYED,
              K.MODEL_FROM_RULES]  # fmt: skip


@pytest.mark.parametrize(
    ("preset", "players", "chosen"),
    [("gin", 2, K.MODEL_KEPT), ("eaai", 2, K.MODEL_KEPT), ("oklahoma-gin", 2, K.MODEL_KEPT),
     ("knock-rummy", 2, K.MODEL_SHOWN), ("knock-rummy", 6, K.MODEL_SHOWN)],
)  # fmt: skip
def test_the_default_model_is_chosen_from_the_rules(preset: str, players: int, chosen: int) -> None:
    """mc's default: shown where any deadwood may knock, kept under a knock limit; a
    model asked for is played as asked, the played one dealt as the default."""
    rules = get_rules(preset, players=players).compile()
    assert K.model_for(rules, K.MODEL_FROM_RULES) == chosen
    assert K.model_for(rules, K.MODEL_PLAYED) == chosen
    for model in ALL_MODELS[:4]:
        assert K.model_for(rules, model) == model


@pytest.mark.parametrize(("preset", "overrides"), CASES)
@pytest.mark.parametrize("model", ALL_MODELS)
def test_kernel_equals_twin_sample_by_sample(
    preset: str, overrides: dict[str, Any], model: int, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(S, "SOLVER", fast_solver)
    rng = random.Random(f"{preset}{overrides}{model}")
    game_ends = 0
    for i in range(6):
        phase = PHASE_DISCARD if i % 2 == 0 else PHASE_DRAW
        pos = random_position(rng, preset, phase, **overrides)
        obs, ref = pos["obs"], pos["ref"]
        if phase == PHASE_DISCARD:
            actions = R.discard_actions(ref, None, 0)
            kinds, cards = K.discard_actions(obs, -1, 0, 0)
            assert list(zip(kinds.tolist(), cards.tolist(), strict=True)) == actions
        else:
            actions = [(K.ACT_TAKE, -1), (K.ACT_DRAW, -1)]
        key = rng.getrandbits(64)
        # The rule's limit, playing for gin, playing and throwing for gin, and that
        # against opponents who wait.
        knock_at = (-1, 0, K.ROLLOUT_GIN_DROPS, K.ROLLOUT_GIN_VS_WAITERS)[i % 4]
        net, won, ends, misses = kernel_values(
            obs, actions, key, 3, model, first=5, knock_at=knock_at
        )
        ref_net, ref_won, ref_ends, ref_misses = R.evaluate(
            ref, actions, key, 5, 3, model, knock_at, 1
        )
        assert misses == ref_misses
        assert np.allclose(net, np.array(ref_net, float), rtol=0, atol=1e-9), (preset, i)
        assert won.tolist() == ref_won
        assert ends.tolist() == ref_ends
        game_ends += int(np.abs(ends).sum())
    # whole games to a target: the game-end path is exercised (from the rules, Gin plays
    # the kept model's samples, whose case exercises it)
    if "gin" in preset and model not in (K.MODEL_FROM_RULES, K.MODEL_PLAYED):
        assert game_ends > 0


@pytest.mark.parametrize("exhaustion", ["reshuffle", "turn_over"])
def test_rollouts_rebuild_the_stock_as_the_engine_does(
    exhaustion: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Near the end of the stock (a long pile, 0-2 cards left) the rollouts rebuild it
    from the pile until the hand has had ``max_rebuilds``: the kernel equals its twin
    sample by sample, with no rebuild left, one left and several, and the rebuilds
    change the values (against the same positions with ``max_rebuilds = 0``)."""
    monkeypatch.setattr(S, "SOLVER", fast_solver)
    rng = random.Random(exhaustion)
    changed = 0
    for i in range(6):
        phase = PHASE_DISCARD if i % 2 == 0 else PHASE_DRAW
        done = i % 3  # rebuilds the hand already had: 0, 1, 2 of max_rebuilds = 2
        state = rng.getstate()
        values = []
        for most in (2, 0):
            rng.setstate(state)  # the same position under both limits
            pos = random_position(
                rng, "knock-rummy", phase, stock_n=rng.randint(0, 2), rebuilds=min(done, most),
                players=3, stock_exhaustion=exhaustion, max_rebuilds=most,
            )  # fmt: skip
            obs, ref = pos["obs"], pos["ref"]
            if phase == PHASE_DISCARD:
                actions = R.discard_actions(ref, None, 0)
            else:
                actions = [(K.ACT_TAKE, -1), (K.ACT_DRAW, -1)]
            key = rng.getrandbits(64)
            net, won, ends, _ = kernel_values(obs, actions, key, 4, K.MODEL_KEPT)
            ref_net, ref_won, _, _ = R.evaluate(ref, actions, key, 0, 4, K.MODEL_KEPT, -1, 1)
            assert np.allclose(net, np.array(ref_net, float), rtol=0, atol=1e-9), (i, most)
            assert won.tolist() == ref_won
            values.append(net)
        changed += int(done < 2 and not np.array_equal(values[0], values[1]))
    assert changed >= 2


@pytest.mark.parametrize("model", ALL_MODELS)
def test_after_a_rebuild_samples_use_the_rebuilt_cards(
    model: int, monkeypatch: pytest.MonkeyPatch
) -> None:
    """After a real rebuild the sampled stock holds only rebuilt cards and every other
    hidden card is in an opponent's hand; the kernel equals its twin sample by sample."""
    monkeypatch.setattr(S, "SOLVER", fast_solver)
    rng = random.Random(model)
    for i in range(4):
        phase = PHASE_DISCARD if i % 2 == 0 else PHASE_DRAW
        pos = random_position(
            rng, "knock-rummy", phase, stock_n=rng.randint(1, 12), taken=1,
            rebuilt_in_hands=rng.randint(0, 4), players=3,
        )  # fmt: skip
        obs, ref = pos["obs"], pos["ref"]
        hidden = K.hidden_cards(obs)
        work = K.new_work(3)
        for j in range(50):
            m = K.determinize(obs, hidden, np.uint64(j), model, work)
            assert m == obs.stock_n
            stock = R.mask_of(work.stock[:m].tolist())
            assert stock & ~ref.rebuilt == 0
            held = int(work.base[1]) | int(work.base[2])
            assert int(hidden) & ~ref.rebuilt & ~held == 0
            assert (
                held & stock == 0
                and (held | stock) & ~int(hidden) & ~(ref.taken[1] | ref.taken[2]) == 0
            )
        actions = R.discard_actions(ref, None, 0) if phase == PHASE_DISCARD else [
            (K.ACT_TAKE, -1), (K.ACT_DRAW, -1)]  # fmt: skip
        key = rng.getrandbits(64)
        net, won, _, _ = kernel_values(obs, actions, key, 3, model)
        ref_net, ref_won, _, _ = R.evaluate(ref, actions, key, 0, 3, model, -1, 1)
        assert np.allclose(net, np.array(ref_net, float), rtol=0, atol=1e-9), i
        assert won.tolist() == ref_won


@pytest.mark.parametrize("model", ALL_MODELS)
@pytest.mark.parametrize(("preset", "overrides"), CASES[:3])
def test_samples_are_consistent_with_the_view(
    preset: str, overrides: dict[str, Any], model: int
) -> None:
    rng = random.Random(7)
    pos = random_position(rng, preset, PHASE_DISCARD, taken=4, **overrides)
    obs, rules = pos["obs"], pos["rules"]
    assert K.hidden_count_consistent(obs)
    hidden = K.hidden_cards(obs)
    work = K.new_work(rules.players)
    pile = R.mask_of(pos["ref"].pile)
    for j in range(200):
        m = K.determinize(obs, hidden, np.uint64(j), model, work)
        assert m == obs.stock_n
        stock = R.mask_of(work.stock[:m].tolist())
        seen = pile | stock
        assert bin(stock).count("1") == m
        assert work.base[0] == obs.hand
        for seat in range(1, rules.players):
            h = int(work.base[seat])
            assert bin(h).count("1") == rules.cards_per_hand
            assert h & pos["ref"].taken[seat] == pos["ref"].taken[seat]
            assert h & seen == 0
            seen |= h
        assert seen | obs.hand == (1 << (52 + rules.jokers)) - 1


def test_inferred_model_avoids_cards_the_opponent_refused() -> None:
    """Under the inferred model a sampled opponent hand rarely melds with a card the
    opponent threw or passed; under the kept model it often does."""
    rng = random.Random(3)
    pos = random_position(rng, "gin", PHASE_DRAW, taken=1, pile_n=9)
    obs = pos["obs"]
    avoid = K.avoided_cards(obs, 1)
    assert bin(int(avoid)).count("1") >= 4
    hidden = K.hidden_cards(obs)
    work = K.new_work(2)
    rates = {}
    for model in (K.MODEL_KEPT, K.MODEL_INFERRED):
        bad = 0
        for j in range(400):
            K.determinize(obs, hidden, np.uint64(j), model, work)
            bad += bool(K._contradicts(work.base[1], avoid, obs.tab))
        rates[model] = bad / 400
    assert rates[K.MODEL_KEPT] > 0.3
    assert rates[K.MODEL_INFERRED] < rates[K.MODEL_KEPT] / 3


def knock_ready_samples(obs: Any, model: int, samples: int = 400) -> tuple[int, int]:
    """(sampled hands of seat 1 whose least deadwood is at or below the threshold it
    would knock at, those in which a card it threw or passed would meld) of
    ``samples`` determinizations under ``model``."""
    from kernels.deadwood import min_deadwood_one

    threshold = K.shown_floor(obs.rules, obs.upcard)
    avoid = K.avoided_cards(obs, 1)
    hidden = K.hidden_cards(obs)
    work = K.new_work(obs.players)
    low = melds = 0
    for j in range(samples):
        K.determinize(obs, hidden, np.uint64(j), model, work)
        low += int(min_deadwood_one(work.base[1], obs.tab) <= threshold)
        melds += int(K._contradicts(work.base[1], avoid, obs.tab))
    return low, melds


def test_shown_model_never_deals_a_hand_the_opponent_would_have_knocked() -> None:
    """An opponent that has discarded (5 cards here) and not knocked holds more than
    the threshold it knocks at (the gin limit, 10). The inferred model deals it such a
    hand in about one sample of six; the shown model never does, and still avoids the
    cards it threw or passed. An opponent that has not discarded yet showed nothing:
    the shown model then deals exactly the inferred model's samples."""
    rng = random.Random(4)
    pos = random_position(rng, "gin", PHASE_DRAW, taken=1, pile_n=9)
    obs, ref = pos["obs"], pos["ref"]
    assert bin(ref.discarded[1]).count("1") == 5
    assert K.shown_floor(obs.rules, obs.upcard) == 10
    low_inferred, _ = knock_ready_samples(obs, K.MODEL_INFERRED)
    low_shown, melds_shown = knock_ready_samples(obs, K.MODEL_SHOWN)
    assert low_inferred >= 40  # rare but possible: 10% or more of 400
    assert low_shown == 0
    assert melds_shown <= 4
    ref.discarded[1] = 0
    silent = kernel_obs(ref, pos["rules"])
    hidden = K.hidden_cards(silent)
    work = K.new_work(2)
    for j in range(100):
        m = K.determinize(silent, hidden, np.uint64(j), K.MODEL_INFERRED, work)
        inferred = (work.base.tolist(), work.stock[:m].tolist())
        m = K.determinize(silent, hidden, np.uint64(j), K.MODEL_SHOWN, work)
        assert (work.base.tolist(), work.stock[:m].tolist()) == inferred


def test_shown_model_equals_twin_where_it_deals_again(monkeypatch: pytest.MonkeyPatch) -> None:
    """Where the shown model's test of the deadwood deals hands again (the position of
    the test above), the kernel's samples are the twin's, hands and stock in order."""
    monkeypatch.setattr(S, "SOLVER", fast_solver)
    pos = random_position(random.Random(4), "gin", PHASE_DRAW, taken=1, pile_n=9)
    obs, ref = pos["obs"], pos["ref"]
    hidden = K.hidden_cards(obs)
    work = K.new_work(2)
    dealt_again = 0
    for j in range(150):
        m = K.determinize(obs, hidden, np.uint64(j), K.MODEL_INFERRED, work)
        inferred = work.base.tolist()
        m = K.determinize(obs, hidden, np.uint64(j), K.MODEL_SHOWN, work)
        hands, stock, _ = R.determinize(ref, j, K.MODEL_SHOWN)
        assert (work.base.tolist(), work.stock[:m].tolist()) == (hands, stock), j
        dealt_again += work.base.tolist() != inferred
    assert dealt_again >= 10  # 19: the deadwood test does deal hands again


def test_shown_model_takes_the_tuned_threshold_where_any_deadwood_may_knock(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """In 4-player Knock Rummy an opponent that has discarded and not knocked is taken
    to hold more than greedy's tuned threshold for four players (26), not the 10 that
    the rollouts default to where the rules set no limit: the shown model never deals
    it 26 or less, the inferred model often does, and the kernel's samples are the
    twin's, hands and stock in order."""
    monkeypatch.setattr(S, "SOLVER", fast_solver)
    pos = random_position(random.Random(9), "knock-rummy", PHASE_DRAW, taken=1, pile_n=9, players=4)
    obs, ref = pos["obs"], pos["ref"]
    assert bin(ref.discarded[1]).count("1") >= 2
    assert K.shown_floor(obs.rules, obs.upcard) == 26
    assert K.rollout_threshold(obs.rules, obs.upcard, -1) == 10
    low_inferred, _ = knock_ready_samples(obs, K.MODEL_INFERRED, samples=150)
    low_shown, _ = knock_ready_samples(obs, K.MODEL_SHOWN, samples=150)
    assert low_inferred >= 30
    assert low_shown <= 3  # only where 16 deals found none above it
    hidden = K.hidden_cards(obs)
    work = K.new_work(obs.players)
    for j in range(60):
        m = K.determinize(obs, hidden, np.uint64(j), K.MODEL_SHOWN, work)
        hands, stock, _ = R.determinize(ref, j, K.MODEL_SHOWN)
        assert (work.base.tolist(), work.stock[:m].tolist()) == (hands, stock), j


def test_sampler_never_favours_the_real_hidden_cards() -> None:
    """Under the uniform model every hidden card lands in the opponent's sampled hand
    equally often, the cards it really holds included: the sampler cannot see them."""
    rng = random.Random(11)
    pos = random_position(rng, "gin", PHASE_DRAW, taken=0, stock_n=20)
    obs = pos["obs"]
    hidden = K.hidden_cards(obs)
    n_hidden = bin(hidden).count("1")
    work = K.new_work(2)
    counts = np.zeros(54)
    n = 20_000
    for j in range(n):
        K.determinize(obs, hidden, np.uint64(j), K.MODEL_UNIFORM, work)
        for card in S.cards_of(int(work.base[1])):
            counts[card] += 1
    p = 10 / n_hidden
    sd = np.sqrt(n * p * (1 - p))
    real = pos["hands"][1]
    others = [c for c in S.cards_of(hidden) if c not in real]
    assert abs(counts[real].mean() - n * p) < 5 * sd / np.sqrt(len(real))
    assert abs(counts[others].mean() - n * p) < 5 * sd / np.sqrt(len(others))
    assert counts[S.cards_of(~int(hidden) & ((1 << 52) - 1))].sum() == 0


def tiny_position(seed: int) -> dict[str, Any]:
    """Late in a Gin hand: the opponent holds 7 known cards (taken from the pile), so
    the hidden cards are its 3 others and a 3-card stock: 720 orderings."""
    rng = random.Random(seed)
    while True:
        pos = random_position(rng, "gin", PHASE_DISCARD, stock_n=3, taken=0)
        ref = pos["ref"]
        opp = pos["hands"][1]
        ref.taken[1] = R.mask_of(opp[:7])
        pos["obs"] = kernel_obs(ref, pos["rules"])
        actions = R.discard_actions(ref, None, 3)
        if any(kind == K.ACT_KNOCK for kind, _ in actions) or seed % 2:
            return pos | {"actions": actions}


@pytest.mark.parametrize("seed", [1, 2, 3])
def test_monte_carlo_agrees_with_brute_force(seed: int, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(S, "SOLVER", fast_solver)
    pos = tiny_position(seed)
    actions = pos["actions"]
    exact = R.exact_values(pos["ref"], actions, -1, 1)
    net, _, _, _ = kernel_values(pos["obs"], actions, 99, 6000, K.MODEL_UNIFORM)
    for a in range(len(actions)):
        se = net[a].std() / np.sqrt(net.shape[1])
        assert abs(net[a].mean() - float(exact[a])) <= 4.5 * se + 1e-9, (actions[a], exact[a])
    # The choice is the brute-force best whenever the best is clear.
    order = sorted(range(len(actions)), key=lambda a: -exact[a])
    if len(order) > 1 and exact[order[0]] - exact[order[1]] > Fraction(2):
        assert int(np.argmax(net.mean(axis=1))) == order[0]


def test_knock_value_is_the_exact_showdown(monkeypatch: pytest.MonkeyPatch) -> None:
    """A knock needs no rollout: every sample's value is the showdown against it."""
    monkeypatch.setattr(S, "SOLVER", fast_solver)
    pos = tiny_position(2)
    knocks = [a for a in pos["actions"] if a[0] == K.ACT_KNOCK]
    assert knocks
    net, won, _, _ = kernel_values(pos["obs"], knocks, 3, 50, K.MODEL_UNIFORM)
    ref_net, ref_won, _, _ = R.evaluate(pos["ref"], knocks, 3, 0, 50, K.MODEL_UNIFORM, -1, 1)
    assert net.tolist() == [[float(v) for v in row] for row in ref_net]
    assert won.tolist() == ref_won


@pytest.mark.parametrize(
    ("preset", "players"), [("gin", 2), ("knock-rummy", 4), ("oklahoma-gin", 2)]
)
def test_mc_plays_whole_hands_reproducibly(preset: str, players: int) -> None:
    lineup = "mc:samples=4/greedy" if players == 2 else "mc:samples=4/greedy/simple/defensive"
    rules = get_rules(preset, players=players) if preset.startswith("knock") else preset
    one = play_deals(rules, lineup, deals=24, seed=5, threads=1)
    two = play_deals(rules, lineup, deals=24, seed=5, threads=2)
    for name in one._fields:
        assert np.array_equal(getattr(one, name), getattr(two, name)), name
    assert (one.knocker == 0).any()  # mc does knock
    other = play_deals(rules, lineup.replace("samples=4", "samples=5"), deals=24, seed=5, threads=1)
    assert not np.array_equal(one.points, other.points) or not np.array_equal(
        one.turns, other.turns
    )


# mc's default rollout threshold (knock_at=-1) by rule set, greedy's tuned threshold
# there (docs/MC.md): 0 where it plays for gin; the tuned value where any deadwood may
# knock (4 players unless set); -1 (the rule's limit) elsewhere.
DEFAULT_ROLLOUT_AT = {
    ("gin", ()): 0, ("gin-classic", ()): -1, ("eaai", ()): 0, ("oklahoma-gin", ()): 0,
    ("straight-gin", ()): 0, ("hollywood-gin", ()): -1, ("round-the-corner-gin", ()): -1,
    ("knock-rummy", ()): 26, ("knock-rummy-turnover", ()): 26, ("joker-knock", ()): 26,
    ("threshold-knock", ()): -1, ("no-knock", ()): -1,
    ("gin", (("undercut_bonus", 20),)): -1, ("gin", (("gin_bonus", 20),)): -1,
    ("gin-classic", (("gin_bonus", 25), ("undercut_bonus", 25))): 0,
    ("knock-rummy", (("players", 2),)): 33, ("knock-rummy", (("players", 3),)): 27,
    ("knock-rummy", (("players", 5),)): 26, ("knock-rummy", (("players", 6),)): 27,
}  # fmt: skip


def test_every_preset_has_a_default_rollout_threshold_listed() -> None:
    assert {preset for preset, extra in DEFAULT_ROLLOUT_AT if not extra} == set(PRESETS)


@pytest.mark.parametrize(("preset", "overrides"), sorted(DEFAULT_ROLLOUT_AT))
def test_mc_default_rollout_threshold_is_chosen_from_the_rules(
    preset: str, overrides: tuple[tuple[str, int], ...]
) -> None:
    """-1 is chosen from the rules (``DEFAULT_ROLLOUT_AT``); a set ``knock_at`` is used
    as given. Kernel and twin agree."""
    from types import SimpleNamespace

    rules = get_rules(preset, **dict(overrides)).compile()
    expected = DEFAULT_ROLLOUT_AT[(preset, overrides)]
    assert K.rollout_knock_at(rules, -1) == expected
    assert R.rollout_knock_at(SimpleNamespace(rules=rules), -1) == expected
    for knock_at in (0, 7, 12):
        assert K.rollout_knock_at(rules, knock_at) == knock_at
        assert R.rollout_knock_at(SimpleNamespace(rules=rules), knock_at) == knock_at


@pytest.mark.parametrize(
    ("preset", "knock_at", "min_gain"),
    [("gin", 0, 1), ("gin", 7, 2), ("knock-rummy", -1, 1), ("oklahoma-gin", -1, 0),
     ("joker-knock", 4, 1)],
)  # fmt: skip
def test_rollout_policy_plays_exactly_greedy(preset: str, knock_at: int, min_gain: int) -> None:
    """The template engine, every seat playing the rollout policy without gin drops,
    plays every deal exactly as the engine of strategies plays greedy with the same
    knock_at and min_gain (the rollout hooks are greedy's decisions)."""
    from kernels import engine as E
    from kernels.obs import N_PARAMS
    from sim.engine import key_of

    rules = get_rules(preset)
    players, deals = rules.players, 400
    params = np.zeros((players, N_PARAMS))
    params[:, rollout.SLOT.knock_at], params[:, rollout.SLOT.min_gain] = knock_at, min_gain
    cols = E.new_columns(deals, players)
    state = E.new_state(players)
    err = E.play_hands(
        rules.compile(), tables_for(rules), key_of(5), 0, 0, players - 1,
        np.zeros(players, np.int64), params, np.zeros(players, np.int64), state, cols, 0,
        deals, None, None,
    )  # fmt: skip
    assert err == 0
    greedy = play_deals(rules, f"greedy:knock_at={knock_at},min_gain={min_gain}", deals=deals,
                        seed=5, threads=1)  # fmt: skip
    for field in cols._fields:
        assert np.array_equal(getattr(cols, field), getattr(greedy, field)), field


@pytest.mark.parametrize("preset", ["gin", "joker-knock", "round-the-corner-gin"])
def test_rollout_knock_shortcut_equals_the_solved_decision(preset: str) -> None:
    """Knocking only with gin, the rollout's knock hook answers without a solve when a
    card in no possible meld stays; on random hands (thrown cards of every kind) it
    answers as greedy's solved decision, and the shortcut is taken often."""
    from kernels.deadwood import loose_cards
    from kernels.greedy import memo_knock_decision
    from kernels.obs import N_PARAMS, SCRATCH_SIZE

    rng = random.Random(preset)
    params = np.zeros(N_PARAMS)  # knock at 0, greedy's pile test, no gin drops
    short = 0
    for _ in range(600):
        pos = random_position(rng, preset, PHASE_DISCARD)
        obs = pos["obs"]
        for card in [c for c in range(64) if (int(obs.hand) >> c) & 1]:
            got = rollout.knock(obs, params, np.zeros(SCRATCH_SIZE, np.int64), card)
            want = memo_knock_decision(obs, card, 0, np.zeros(SCRATCH_SIZE, np.int64))
            assert got == want, (hex(int(obs.hand)), card)
            short += loose_cards(int(obs.hand) & ~(1 << card), obs.tab) > 0
    assert short > 1000


def test_meld_partner_counts_equal_twin() -> None:
    """The bit-sliced partner counts, at every natural card (held or not), equal the
    twin's count: random hands of every size, jokers held, and the edge cases (a
    whole rank, a whole suit, aces and kings only, the empty hand)."""
    from types import SimpleNamespace

    ref = SimpleNamespace(rules=[int(v) for v in get_rules("gin").compile()])
    rng = random.Random(7)
    hands = [0, (1 << 52) - 1, 0x1FFF, 0x1FFF << 39, sum(1 << (13 * s) for s in range(4))]
    hands += [sum(1 << (13 * s + 12) for s in range(4)) | (3 << 52)]
    hands += [sum(1 << c for c in rng.sample(range(54), rng.randint(1, 20))) for _ in range(3000)]
    for hand in hands:
        ones, twos, fours = (int(x) for x in rollout.meld_partner_counts(np.int64(hand)))
        for card in range(52):
            count = ((ones >> card) & 1) + 2 * ((twos >> card) & 1) + 4 * ((fours >> card) & 1)
            assert count == R.gin_key(ref, hand, card)[0], (hex(hand), card)


@pytest.mark.parametrize("preset", ["gin", "joker-knock", "round-the-corner-gin"])
def test_gin_drop_equals_twin(preset: str) -> None:
    """The discard of rollouts that throw for gin, kernel and twin, on random hands
    (jokers held, the card just taken forbidden)."""
    from types import SimpleNamespace

    rules = get_rules(preset)
    vector, tab = rules.compile(), tables_for(rules)
    ref = SimpleNamespace(rules=[int(v) for v in vector])
    rng = random.Random(preset)
    deck = list(range(52 + rules.jokers))
    for _ in range(2000):
        cards = rng.sample(deck, rules.cards_per_hand + 1)
        hand = sum(1 << c for c in cards)
        forbidden = rng.choice([c for c in cards if c < 52] + [-1])
        got = rollout.gin_drop(hand, forbidden, tab)
        assert got == R.gin_drop(ref, hand, None if forbidden < 0 else forbidden)
        assert got != forbidden and got < 52 and (hand >> got) & 1


@pytest.mark.parametrize("preset", ["gin", "joker-knock", "knock-rummy"])
def test_discard_actions_equal_twin_with_gin_candidates(preset: str) -> None:
    """The discard decision's actions, kernel and twin, for every pair of counts
    (least-deadwood candidates, gin candidates) on random positions; the gin
    candidates add exactly the cards first in gin_drop's order."""
    rng = random.Random(preset)
    added = 0
    for _ in range(40):
        pos = random_position(rng, preset, PHASE_DISCARD)
        obs, ref = pos["obs"], pos["ref"]
        for limit in (0, 1, 3):
            for gin in (0, 1, 2, 11):
                kinds, cards = K.discard_actions(obs, -1, limit, gin)
                got = list(zip(kinds.tolist(), cards.tolist(), strict=True))
                assert got == R.discard_actions(ref, None, limit, gin)
                plain = set(K.discard_actions(obs, -1, limit, 0)[1].tolist())
                if limit and kinds[0] != K.ACT_BIG_GIN:
                    first = rollout.gin_drop(int(obs.hand), -1, obs.tab)
                    assert gin == 0 or first in set(cards.tolist())
                    added += len(set(cards.tolist()) - plain)
    assert added > 50  # the gin candidates do add discards


def test_gin_drop_keeps_pairs_and_near_runs() -> None:
    """AS 2S 3S | 9H 9D | JC QC QH | 2H | 4D 6C: the least-deadwood discard throws a
    10-point J or Q, each with a partner; throwing for gin throws a card with none, 4D
    or 6C, the higher: 6C."""
    from kernels.deadwood import best_discard_one

    tab = tables_for(get_rules("gin"))
    hand = parse_cards("AS 2S 3S 9H 9D JC QC QH 2H 4D 6C")
    assert card_name(rollout.gin_drop(hand, -1, tab)) == "6C"
    assert card_name(best_discard_one(hand, -1, tab)[0]) in {"JC", "QC", "QH"}


# --- the played model: the seat before fits its last turn -------------------------------

_SPEC = importlib.util.spec_from_file_location(
    "bench_inference_replay", ROOT / "benchmarks" / "bench_inference.py"
)
assert _SPEC is not None and _SPEC.loader is not None
bench_inference = importlib.util.module_from_spec(_SPEC)
_SPEC.loader.exec_module(bench_inference)  # its replay of a hand's log (no kernel compiled)

REPLAYED = [("gin", 2, 40), ("eaai", 2, 40), ("knock-rummy", 3, 15)]


def replayed_positions(preset: str, players: int, deals: int) -> Any:
    """Seat 0's decisions in hands of greedy seats (the rollouts' model of an opponent
    with mc's defaults: the rule's limit, ``min_gain`` 1), replayed from the engine's
    log (``benchmarks/bench_inference.py``), before any rebuild of the stock: the view,
    seat 0's ``Obs`` and its plain twin."""
    rules = get_rules(preset, players=players)
    compiled = [int(v) for v in rules.compile()]
    for deal in range(deals):
        replay = replay_hand(rules, "/".join(["greedy"] * players), seed=5, deal=deal)
        for _, view, obs in bench_inference.decisions(replay, "both"):
            if view.rebuilds > 0:
                continue
            ref = S.RefObs(
                seat=0, players=players, hand=int(obs.hand), pile=list(view.pile),
                taken=list(view.taken), discarded=list(view.discarded), stock_n=view.stock_n,
                rebuilds=0, rebuilt=0, turn=view.turn, phase=int(obs.phase),
                upcard=view.upcard, drawn=int(obs.drawn), from_pile=bool(obs.from_pile),
                dealer=view.dealer, rules=compiled, scores=[0] * players,
            )  # fmt: skip
            yield view, obs, ref


@pytest.mark.parametrize(("preset", "players", "deals"), REPLAYED)
def test_the_true_hand_fits_the_turn_it_played(
    preset: str, players: int, deals: int, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Against opponents that play as the rollouts model them, the seat before, holding
    its true hand, fits the last turn it played for some pick of its stock draw (the
    key); hands the kept model deals often do not; and the kernel equals its twin on the
    true hand and on a kept one, for several keys."""
    monkeypatch.setattr(S, "SOLVER", fast_solver)
    engine = K.new_engine(players, 0, -1, 1)
    work = K.new_work(players)
    before = players - 1
    positions = misfits = 0
    for view, obs, ref in replayed_positions(preset, players, deals):
        positions += 1
        true_hand = np.int64(view.hands[before])
        assert any(K.last_turn_fits(obs, true_hand, engine, np.uint64(k)) for k in range(256)), (
            preset,
            positions,
        )
        K.determinize(obs, K.hidden_cards(obs), np.uint64(positions), K.MODEL_KEPT, work)
        kept = np.int64(work.base[before])
        misfits += not K.last_turn_fits(obs, kept, engine, np.uint64(0))
        for hand in (true_hand, kept):
            for k in range(3):
                fits = K.last_turn_fits(obs, hand, engine, np.uint64(k))
                assert fits == R.last_turn_fits(ref, int(hand), k, -1, 1), (positions, k)
    assert positions > 100
    assert misfits > positions // 10  # the test tells hands apart


def test_played_samples_fit_the_last_turn() -> None:
    """Every sample the played model deals, but those it counts as misses, fits the
    seat before's last turn for the key that dealt it; a miss is counted once."""
    engine = K.new_engine(2, 0, -1, 1)
    work = K.new_work(2)
    dealt = misses = 0
    for _, obs, _ in replayed_positions("gin", 2, 10):
        hidden = K.hidden_cards(obs)
        for j in range(20):
            work.misses[0] = 0
            K.deal_sample(obs, hidden, np.uint64(j), K.MODEL_PLAYED, work, engine)
            dealt += 1
            if work.misses[0]:
                misses += 1
                continue
            assert any(  # the key of the deal that stood: the sample's, or a retry's
                K.last_turn_fits(obs, work.base[1], engine, np.uint64(key))
                for key in [j] + [K.random64(np.uint64(j), K.PLAYED_SALT + a) for a in range(1, 32)]
            )
    assert misses < dealt // 10


# The solved chart, and one that never knocks on its first four turns and knocks with 10
# or less on the next four: its count of its own turns decides its knocks.
LATE_KNOCKER = "chart:gin,k1=0,k2=0,k3=0,k4=0,k5=2047,k6=2047,k7=2047,k8=2047"


def chart_rollouts(chart: str, rules: Any) -> tuple[Any, Any]:
    """The engine of strategies and the rollouts' arrays (as ``rollout_values`` makes
    them) for ``greedy`` in seat 0 and ``chart`` in seat 1."""
    seats = Lineup((parse_seat("greedy"), parse_seat(chart)))
    module, sids, params = engine_of(seats, rules)
    engine = K.Engine(
        module.new_state_nb(2), module.one_row(2), resume_probe(2), sids, params, True,
        turn_words(seats.seats), np.zeros(SCRATCH_SIZE - SCRATCH_HAND, np.int64),
    )  # fmt: skip
    return module, engine


@pytest.mark.slow
@pytest.mark.parametrize("chart", ["chart:gin", LATE_KNOCKER])
def test_a_chart_opponent_fits_its_last_turn_by_its_own_strategy(chart: str) -> None:
    """Rolled out by its own strategy (``opponents=known``; here a chart, which counts
    its own turns and weighs the cards it cannot see), a chart's true hand fits the last
    turn it played, on the engine of strategies' copy of the test."""
    rules = get_rules("eaai")
    module, engine = chart_rollouts(chart, rules)
    positions = 0
    for deal in range(40):
        replay = replay_hand(rules, ["greedy", chart], seed=5, deal=deal)
        for _, view, obs in bench_inference.decisions(replay, "both"):
            if view.rebuilds > 0:
                continue
            positions += 1
            hand = np.int64(view.hands[1])
            assert any(
                module.last_turn_fits(obs, hand, engine, np.uint64(k)) for k in range(256)
            ), (deal, positions)
    assert positions > 100


@pytest.mark.slow
def test_a_discard_asked_again_keeps_the_charts_turn_count() -> None:
    """Where the pile cannot say how the seat before drew and its chart's first choice
    is a card it took (so it may have been barred from throwing it), the discard is
    asked again as if it had just taken that card; the chart counts its own turns at
    each discard, and the count must be as before the first question: here a chart that
    never knocks on its fourth turn and knocks with 10 or less on its fifth would
    otherwise be taken to have knocked."""
    rules = get_rules("eaai")
    chart = LATE_KNOCKER + ",lookahead=0,gin_chance=0,safety=0"  # least-deadwood discards
    module, engine = chart_rollouts(chart, rules)
    # Its hand: three melds, and two tens of which it throws one first.
    tens = S.cards_of(parse_cards("Kc Jd"))
    held = parse_cards("3h 4h 5h 7c 7d 7s 9s Ts Js Kc Jd")
    tab, compiled = tables_for(rules), rules.compile()
    scratch = np.zeros(SCRATCH_SIZE, np.int64)
    pile = np.zeros(128, np.int64)
    none = np.zeros(2, np.int64)
    asked = make_obs(1, 2, held, pile, 0, none, none, 20, 0, 0, 8, PHASE_DISCARD, 0, -1, False,
                     0, compiled, none, tab, np.uint64(0))  # fmt: skip
    first = int(module.hook_discard(engine.sids[1], asked, engine.params[1], scratch))
    assert first in tens
    thrown = next(c for c in tens if c != first)
    # It took ``first`` and ``5h`` from my discards (which, the pile cannot say), then
    # threw ``thrown``, its fourth discard; its earlier discard lies below it.
    taken = np.array([0, (1 << first) | parse_cards("5h")], np.int64)
    its_earlier = S.cards_of(parse_cards("2d 8c Qd"))
    discarded = np.array(
        [(1 << first) | parse_cards("5h 2s"), R.mask_of([*its_earlier, thrown])], np.int64
    )
    pile_cards = [*S.cards_of(parse_cards("2s")), *its_earlier, thrown]
    pile[: len(pile_cards)] = pile_cards
    mine = [c for c in range(52) if not (held >> c) & 1 and c not in pile_cards][:10]
    obs = make_obs(0, 2, R.mask_of(mine), pile, len(pile_cards), taken, discarded, 20, 0, 0,
                   9, PHASE_DRAW, pile_cards[0], -1, False, 0, compiled, none, tab,
                   np.uint64(0))  # fmt: skip
    hand = np.int64(held & ~(1 << thrown))
    assert module.last_turn_fits(obs, hand, engine, np.uint64(0))
