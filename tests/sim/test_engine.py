"""The numba round engine against the pure-Python reference engine, hand by hand.

``tests/reference/engine_ref.py`` plays the same rules, seeds and strategies (their
Python twins, ``tests/reference/strategies_ref.py``) the plain way. Every hand's
record must agree field by field (outcome, knocker, winner, turns, stock left,
rebuilds, per-seat deadwood, cards laid off and exact points), and every game's
(hands, winner, scores, boxes, Hollywood columns).

The default run covers every preset and the scoring knobs on a few dozen deals each;
``pytest -m slow`` runs thousands per preset and the large invariant sweeps.
"""

from __future__ import annotations

import dataclasses
from typing import Any

import numpy as np
import pytest
from numba import njit

from kernels import layout as L
from kernels.obs import Obs
from sim.engine import (
    PROGRESS_BLOCKS,
    StrategyDecisionError,
    key_of,
    play_deals,
    play_games,
    replay_hand,
)
from sim.rules import PRESETS, get_rules
from sim.solver import min_deadwood
from tests.reference import strategies_ref as S
from tests.reference.engine_ref import play_game_ref, play_hand_ref
from tests.support.plugins import broken_and_remembering
from tests.support.twins import fast_solver, ref_lineup

LINEUPS = {
    2: ["greedy/simple", "random/greedy", "defensive/schedule"],
    4: ["greedy/simple/random/defensive"],
}

HAND_VARIANTS = [(name, {}) for name in PRESETS] + [
    ("knock-rummy", {"players": 2}),
    ("knock-rummy", {"players": 3, "tied_winners": "split", "knocker_tie": "neutral"}),
    ("knock-rummy", {"players": 6, "penalty_to": "each_lower", "max_rebuilds": 1}),
    ("knock-rummy-turnover", {"players": 6, "max_rebuilds": 2}),
    ("knock-rummy", {"players": 3, "layoff": True, "layoff_play": "greedy"}),
    ("threshold-knock", {"players": 5, "discard_taken_card": True}),
    ("gin", {"stock_exhaustion": "reshuffle", "ace": "high_or_low"}),
    ("gin", {"wall": 0, "undercut_on_tie": False}),
]


def _lineup_for(rules, salt):
    options = LINEUPS.get(rules.players) or ["greedy/" + "/".join(["simple"] * (rules.players - 1))]
    return options[salt % len(options)]


def _compare_hand(cols, i, ref, players):
    got = {
        "dealer": int(cols.dealer[i]),
        "upcard": int(cols.upcard[i]),
        "knocker": int(cols.knocker[i]),
        "winner": int(cols.winner[i]),
        "outcome": L.OUTCOME_LABELS[cols.outcome[i]],
        "turns": int(cols.turns[i]),
        "stock_left": int(cols.stock_left[i]),
        "rebuilds": int(cols.rebuilds[i]),
        "deadwood": [int(x) for x in cols.deadwood[i, :players]],
        "laid_off": [int(x) for x in cols.laid_off[i, :players]],
        "points": [int(x) for x in cols.points[i, :players]],
    }
    expected = {key: ref[key] for key in got}
    expected["laid_off"] = [len(cards) for cards in ref["laid_off"]]
    assert got == expected


@pytest.mark.parametrize("preset, overrides", HAND_VARIANTS, ids=lambda v: str(v))
def test_hands_match_reference(preset, overrides):
    rules = get_rules(preset, **overrides)
    spec = _lineup_for(rules, len(preset))
    seed = 11
    n = 12 if rules.players > 2 else 20
    cols = play_deals(rules, spec, deals=n, seed=seed, first=100)
    strategies, params = ref_lineup(rules, spec)
    key = int(key_of(seed))
    for i in range(n):
        ref = play_hand_ref(rules, key, 100 + i, strategies, params)
        _compare_hand(cols, i, ref, rules.players)


GAME_VARIANTS = [
    ("gin", {}, "greedy/simple"),
    ("gin-classic", {"dealer": "winner"}, "simple/greedy"),
    ("eaai", {}, "simple/simple"),
    ("hollywood-gin", {"game": "hollywood:40"}, "greedy/defensive"),
    ("oklahoma-gin", {"game": "gin:60"}, "greedy/simple"),
    ("knock-rummy", {"players": 3, "game": "pool:30", "dealer": "loser"}, "greedy/simple/random"),
    ("knock-rummy", {"players": 4, "game": "hands:3"}, "greedy/simple/random/defensive"),
    (
        "threshold-knock",
        {"players": 3, "game": "match:40", "dealer": "winner"},
        "greedy/schedule/simple",
    ),
]


@pytest.mark.parametrize("preset, overrides, spec", GAME_VARIANTS, ids=lambda v: str(v))
def test_games_match_reference(preset, overrides, spec):
    _games_match_reference(get_rules(preset, **overrides), spec, seed=5, n=2)


def test_a_pools_seats_keep_their_parameters_as_seats_before_them_go_out(monkeypatch):
    """One strategy with other parameters in every seat: when a seat goes out of a pool,
    those after it move up a place and each plays on by its own parameters, game by
    game as the reference plays them; some seat here moves up. (The twins' discards ask
    the numba solver: what is checked here is who sits where.)"""
    monkeypatch.setattr(S, "SOLVER", fast_solver)
    rules = get_rules("knock-rummy", players=4, game="pool:30")
    spec = "greedy:knock_at=0/greedy:knock_at=12/greedy:knock_at=30/greedy:knock_at=5"
    records = _games_match_reference(rules, spec, seed=3, n=6)
    assert any(seat != place for r in records for place, seat in enumerate(r["seats"]))


def _games_match_reference(rules: Any, spec: str, seed: int, n: int) -> list[dict[str, Any]]:
    """Play ``n`` games in the kernel and the reference; every game's and hand's figures
    equal. The reference's hand records."""
    games, hands = play_games(rules, spec, games=n, seed=seed)
    strategies, params = ref_lineup(rules, spec)
    key = int(key_of(seed))
    row = 0
    records = []
    for g in range(n):
        ref = play_game_ref(rules, key, g, strategies, params)
        records += ref["records"]
        assert int(games.hands[g]) == ref["hands"]
        assert int(games.hands_dealt[g]) == ref["hands_dealt"]
        assert int(games.winner[g]) == ref["winner"]
        assert games.points[g].tolist() == ref["points"]
        if rules.game_mode[0] == "hollywood":
            assert games.columns[g].tolist() == ref["scores"]
            assert games.scores[g].tolist() == ref["totals"]
        else:
            assert games.scores[g].tolist() == ref["scores"]
        for record in ref["records"]:
            seats = record["seats"]
            assert int(hands.hand_index[row]) == record["hand_index"]
            assert int(hands.outcome[row]) == L.OUTCOME_LABELS.index(record["outcome"])
            assert int(hands.dealer[row]) == seats[record["dealer"]]
            assert int(hands.turns[row]) == record["turns"]
            got_points = [int(hands.points[row, s]) for s in seats]
            assert got_points == record["points"]
            row += 1
    assert row == len(hands.number)
    return records


def test_same_results_for_any_threads_and_chunks():
    """A hand is a pure function of (rules, line-up, seed, deal number)."""
    whole = play_deals("gin", "greedy/simple", deals=400, seed=3, threads=1)
    parallel = play_deals("gin", "greedy/simple", deals=400, seed=3, threads=2)
    tail = play_deals("gin", "greedy/simple", deals=150, seed=3, first=250)
    for field in whole._fields:
        assert np.array_equal(getattr(whole, field), getattr(parallel, field)), field
        assert np.array_equal(getattr(whole, field)[250:], getattr(tail, field)), field


@pytest.mark.parametrize("threads", [1, 2])
def test_progress_is_told_each_block_and_changes_nothing(threads: int) -> None:
    """``progress`` hears of every deal (game) once, in about ``PROGRESS_BLOCKS``
    blocks (one per game in a chunk of ten, as ``mc``'s), and the columns are those
    played without it."""
    told: list[int] = []
    deals = play_deals("gin", "greedy/simple", deals=400, seed=3, threads=threads,
                       progress=told.append)  # fmt: skip
    assert sum(told) == 400 and len(told) == PROGRESS_BLOCKS
    plain = play_deals("gin", "greedy/simple", deals=400, seed=3, threads=threads)
    for field in plain._fields:
        assert np.array_equal(getattr(deals, field), getattr(plain, field)), field
    told.clear()
    games = play_games("eaai", "greedy/simple", games=30, seed=3, threads=threads,
                       progress=told.append)  # fmt: skip
    assert told == [2] * 15
    plain_games = play_games("eaai", "greedy/simple", games=30, seed=3, threads=threads)
    for got, want in zip(games, plain_games, strict=True):
        for field in want._fields:
            assert np.array_equal(getattr(got, field), getattr(want, field)), field
    told.clear()
    play_games("eaai", "greedy/simple", games=10, seed=3, threads=threads, progress=told.append)
    assert told == [1] * 10


def test_replay_is_the_same_hand():
    cols = play_deals("knock-rummy", "greedy/simple/random/defensive", deals=30, seed=9)
    for deal in (0, 17, 29):
        replay = replay_hand("knock-rummy", "greedy/simple/random/defensive", seed=9, deal=deal)
        assert replay.record["points"] == cols.points[deal].tolist()
        assert replay.record["turns"] == int(cols.turns[deal])
        kinds = [event[0] for event in replay.events]
        assert kinds.count(4) + kinds.count(3) == replay.record["turns"]  # every draw logged


@pytest.mark.parametrize("preset", ["gin", "knock-rummy", "knock-rummy-turnover", "joker-knock"])
def test_invariants_random_play(preset):
    """Knock scoring sums to zero; every hand ends; deadwood is the solver's."""
    rules = get_rules(preset)
    cols = play_deals(rules, "random", deals=2000, seed=1)
    assert (cols.turns > 0).all() and (cols.turns <= 1000).all()
    if rules.scoring == "knock":
        assert (cols.points.sum(axis=1) == 0).all()
    else:
        assert ((cols.points > 0).sum(axis=1) <= 1).all()
    assert set(np.unique(cols.outcome)) <= set(range(len(L.OUTCOME_LABELS)))
    for deal in range(0, 2000, 400):
        replay = replay_hand(rules, "random", seed=1, deal=deal)
        if replay.record["outcome_label"] in ("dead_hand",) or rules.layoff:
            continue
        hands = np.array(replay.final_hands, np.uint64)
        assert min_deadwood(hands, rules).tolist() == replay.record["deadwood"]


def test_a_seat_sees_only_its_own_hidden_cards():
    """The observation is built from the seat's own hand and public facts only: two
    states that differ only in an opponent's hidden cards give identical observations."""
    import sim.engine as api

    engine, _ = api._engine(api.lineup_of("random", 4))
    rules = get_rules("knock-rummy")
    compiled, tab = rules.compile(), api.tables_for(rules)
    scores = np.zeros(4, np.int64)
    observations = []
    for opponent_hand in (0b111 << 20, 0b111 << 30):
        state = engine.new_state(4)
        state.hands[:] = [0b111, opponent_hand, 0b111 << 40, 0b1 << 50]
        state.pile[0] = 7
        state.counters[L.C_PILE] = 1
        state.counters[L.C_STOCK_END] = 20
        state.seat_keys[:] = 1
        obs = engine._observe(state, 0, 1, 7, -1, False, 3, compiled, scores, tab)
        observations.append(obs)
    assert set(Obs._fields) == {
        "seat",
        "players",
        "hand",
        "pile",
        "pile_n",
        "taken",
        "discarded",
        "stock_n",
        "rebuilds",
        "rebuilt",
        "turn",
        "phase",
        "upcard",
        "drawn",
        "from_pile",
        "dealer",
        "rules",
        "scores",
        "tab",
        "rng_key",
    }
    a, b = observations
    for field in Obs._fields:
        va, vb = getattr(a, field), getattr(b, field)
        assert np.array_equal(np.asarray(va), np.asarray(vb)), field
    assert not tab.flags.writeable  # strategies cannot alter the shared tables


def test_bad_lineup_and_seed_errors():
    with pytest.raises(ValueError, match="seed"):
        play_deals("gin", "greedy", deals=1, seed=-1)
    with pytest.raises(ValueError):
        play_deals("gin", "greedy/simple/random", deals=1, seed=1)
    with pytest.raises(ValueError):
        play_deals("gin", "nosuch", deals=1, seed=1)


def test_dead_hand_and_rebuild_outcomes_occur():
    gin = play_deals("gin", "simple/simple", deals=2000, seed=2)
    assert (gin.outcome == L.DEAD_HAND).any()
    assert (gin.stock_left[gin.outcome == L.DEAD_HAND] == 2).all()  # the wall
    never_knocks = "random:p=0"
    six = play_deals(get_rules("knock-rummy", players=6), never_knocks, deals=200, seed=2)
    assert (six.rebuilds == 3).all() and (six.outcome == L.EXHAUSTED).all()
    once = play_deals(
        get_rules("knock-rummy-turnover", max_rebuilds=1), never_knocks, deals=50, seed=2
    )
    assert (once.rebuilds == 1).all() and (once.outcome == L.EXHAUSTED).all()


@pytest.mark.slow
@pytest.mark.parametrize("preset, overrides", HAND_VARIANTS, ids=lambda v: str(v))
def test_hands_match_reference_many(preset, overrides):
    """Thousands of deals per preset (about 10 minutes in all on 2 cores)."""
    rules = get_rules(preset, **overrides)
    strategies_spec = _lineup_for(rules, 1)
    n = 1500
    cols = play_deals(rules, strategies_spec, deals=n, seed=77)
    strategies, params = ref_lineup(rules, strategies_spec)
    key = int(key_of(77))
    for i in range(n):
        _compare_hand(cols, i, play_hand_ref(rules, key, i, strategies, params), rules.players)


@njit
def _play_keeping_final_hands(play_hands, rules, tab, key, sids, params, state, cols, final):
    """``play_deals`` one hand at a time, keeping each hand's final hands (``play_hands``
    is the generated engine's, passed in). Returns the engine's error code."""
    players = final.shape[1]
    scores = np.zeros(players, np.int64)
    zero, dealer = np.int64(0), np.int64(players - 1)
    for row in range(final.shape[0]):
        err = play_hands(
            rules, tab, key, zero, zero, dealer, sids, params, scores, state, cols, row, row + 1,
            None, None,
        )  # fmt: skip
        if err != 0:
            return err
        for seat in range(players):
            final[row, seat] = state.hands[seat]
    return 0


@pytest.mark.slow
@pytest.mark.parametrize("preset", sorted(PRESETS))
def test_invariants_million_random_hands(preset):
    """A million random-strategy hands per preset: zero-sum under Knock scoring, one
    scorer under Gin scoring, every hand ends within the guard, and every recorded
    deadwood is the solver's on the final hand (defenders: at most that, and the same
    when they laid nothing off). Every card in exactly one place: the engine checks
    it at the end of every hand and stops the run otherwise."""
    import sim.engine as api

    rules = get_rules(preset)
    players = rules.players
    seats = api.lineup_of("random", players)
    engine, ids = api._engine(seats)
    sids, params = seats.arrays(ids)
    compiled, tab, key = rules.compile(), api.tables_for(rules), key_of(4)
    state = engine.new_state(players)
    n = 1_000_000
    cols = engine.new_columns(n, players)
    final = np.zeros((n, players), np.int64)
    err = _play_keeping_final_hands(
        engine.play_hands, compiled, tab, key, sids, params, state, cols, final
    )
    assert err == 0, engine.ERROR_NAMES[err]
    assert (cols.turns > 0).all() and (cols.turns <= 1000).all()
    if rules.scoring == "knock":
        assert (cols.points.sum(axis=1) == 0).all()
    else:
        assert ((cols.points > 0).sum(axis=1) <= 1).all()
    solved = min_deadwood(final.reshape(-1).astype(np.uint64), rules).reshape(n, players)
    shown = cols.outcome != L.DEAD_HAND
    recorded = cols.deadwood.astype(np.int64)
    seat = np.arange(players)
    knocker = seat[None, :] == cols.knocker[:, None]
    exact = knocker | (cols.laid_off == 0)
    same, lower = shown[:, None] & exact, shown[:, None] & ~exact
    assert (recorded[same] == solved[same]).all()
    assert (recorded[lower] <= solved[lower]).all()
    assert (recorded[~shown] == 0).all()


def test_ruleset_replace_keeps_players_consistent():
    rules = dataclasses.replace(get_rules("knock-rummy"), players=3)
    assert rules.cards_per_hand == 7


MEMORY_GAMES = [
    ("gin", {}, "game_memory/greedy"),
    ("eaai", {}, "greedy/game_memory"),
    ("knock-rummy", {"players": 3, "game": "pool:30"}, "game_memory/greedy/game_memory"),
    ("hollywood-gin", {"game": "hollywood:40"}, "game_memory/game_memory"),
]


@pytest.mark.parametrize("preset, overrides, spec", MEMORY_GAMES, ids=lambda v: str(v))
def test_game_memory_is_kept_across_hands(monkeypatch, preset, overrides, spec):
    """A seat whose knocks depend on its game memory (the engine's counts of how the
    game's hands ended, and a word of its own): the engine plays the same games as its
    twin, and a replay of each game plays every hand alone from the memory it had. In a
    pool the seats that stay in keep their memory when others go out."""
    from sim.engine import replay_game
    from strategies import params_vector
    from tests.plugins.game_memory import MemoryRef
    from tests.reference.strategies_ref import REF_STRATEGIES

    known = broken_and_remembering(monkeypatch)
    rules = get_rules(preset, **overrides)
    seats = spec.split("/")
    twins = [MemoryRef() if s == "game_memory" else REF_STRATEGIES[s] for s in seats]
    params = [list(params_vector(known[s].params())) for s in seats]
    games, hands = play_games(rules, spec, games=4, seed=9)
    key = int(key_of(9))
    row = later_hands = 0
    for g in range(4):
        ref = play_game_ref(rules, key, g, twins, params)
        assert games.scores[g].tolist() == ref.get("totals", ref["scores"])
        for record in ref["records"]:
            got = [int(hands.points[row, s]) for s in record["seats"]]
            assert (int(hands.turns[row]), got) == (record["turns"], record["points"])
            later_hands += record["hand_index"] > 0
            row += 1
        replay_game(rules, spec, seed=9, game=g)  # raises if a hand played alone differs
    assert row == len(hands.number) and later_hands >= 8


@pytest.mark.parametrize(
    ("how", "what"),
    [
        (0, "discarded a card it does not hold"),
        (1, "discarded the card it just took from the pile"),
        (2, "knocked with deadwood above the knock limit"),
        (3, "claimed big gin illegally"),
        (4, "returned an unknown knock decision"),
    ],
)
def test_illegal_decision_stops_the_run_with_a_clear_error(monkeypatch, how, what):
    """A plugin loaded by module path that breaks a rule: the run stops with an error
    naming the strategy, what it did, the seed, the deal and the turn."""
    assert broken_and_remembering(monkeypatch)["cheater"].name == "cheater"
    seat = "cheater" if how == 0 else f"cheater:how={how}"
    with pytest.raises(StrategyDecisionError) as error:
        play_deals("gin", f"greedy/{seat}", deals=20, seed=3)
    message = str(error.value)
    assert f"'{seat}' (seat 1) {what}" in message
    assert "seed 3, deal 0" in message
    if how == 0:
        assert "turn 2" in message  # the greedy dealer's non-dealer draws first


def _deals_where(rules, spec, seed, condition, n=3000, want=3):
    cols = play_deals(rules, spec, deals=n, seed=seed)
    picked = [int(i) for i in np.flatnonzero(condition(cols))[:want]]
    assert picked, "the scenario never happened in the searched deals"
    return cols, picked


SCENARIOS = {
    "dead hand at the wall": ("gin", {}, "simple/simple", lambda c: c.outcome == L.DEAD_HAND),
    "reshuffle": ("knock-rummy", {"players": 6}, "random:p=0.02", lambda c: c.rebuilds > 0),
    "turn over": (
        "knock-rummy-turnover",
        {"players": 6},
        "random:p=0.02",
        lambda c: c.rebuilds > 0,
    ),
    "exhausted after max rebuilds": (
        "knock-rummy",
        {"players": 6, "max_rebuilds": 1},
        "random:p=0.01",
        lambda c: c.outcome == L.EXHAUSTED,
    ),
    "undercut through lay-offs": (
        "gin",
        {},
        "greedy:knock_at=10/simple",
        lambda c: (c.outcome == L.UNDERCUT) & (c.laid_off.sum(axis=1) > 0),
    ),
    "big gin": ("gin", {"hand_size": 5}, "greedy/greedy", lambda c: c.outcome == L.BIG_GIN),
    "Oklahoma ace upcard": ("oklahoma-gin", {}, "greedy/simple", lambda c: c.upcard % 13 == 0),
    "upcard option: non-dealer takes": ("gin", {}, "greedy/greedy", lambda c: c.turns == 1),
}


@pytest.mark.parametrize("name", sorted(SCENARIOS))
def test_scenarios_match_reference(name):
    """Tricky rules, each found in real deals, then replayed by the reference engine."""
    preset, overrides, spec, condition = SCENARIOS[name]
    rules = get_rules(preset, **overrides)
    seed = 21
    cols, picked = _deals_where(rules, spec, seed, condition)
    strategies, params = ref_lineup(rules, spec)
    for deal in picked:
        ref = play_hand_ref(rules, int(key_of(seed)), deal, strategies, params)
        _compare_hand(cols, deal, ref, rules.players)


def test_upcard_option_both_pass_matches_reference():
    rules = get_rules("gin")
    spec = "simple/simple"
    for deal in range(60):
        replay = replay_hand(rules, spec, seed=4, deal=deal)
        passes = [event for event in replay.events if event[0] == 2]  # EV_PASS
        if len(passes) == 2:
            break
    else:
        pytest.fail("no deal where both players pass the upcard")
    strategies, params = ref_lineup(rules, spec)
    ref = play_hand_ref(rules, int(key_of(4)), deal, strategies, params, log=True)
    assert [e[0] for e in ref["events"]][:4] == ["deal", "pass", "pass", "draw"]
    cols = play_deals(rules, spec, deals=deal + 1, seed=4)
    _compare_hand(cols, deal, ref, 2)


@pytest.mark.slow
@pytest.mark.parametrize("preset, overrides, spec", GAME_VARIANTS, ids=lambda v: str(v))
def test_games_match_reference_many(preset, overrides, spec):
    """Forty games per game mode against the reference (a few minutes)."""
    rules = get_rules(preset, **overrides)
    games, _ = play_games(rules, spec, games=40, seed=8)
    strategies, params = ref_lineup(rules, spec)
    for g in range(40):
        ref = play_game_ref(rules, int(key_of(8)), g, strategies, params)
        assert (int(games.winner[g]), int(games.hands[g])) == (ref["winner"], ref["hands"])
        assert games.points[g].tolist() == ref["points"]
