"""Tests of the reference engine (``tests/reference/engine_ref.py``).

Invariants over seeded hands for every preset and for small-stock variants that force
stock rebuilds, checked against an independent replay of each hand's event log (deal
order, stock order, rebuilds from ``rng_ref``); then scenarios built by hand: the upcard
option, a reshuffle, a turn-over, the dead hand at the wall, illegal answers, a pool
elimination, Hollywood columns closing, Gin game bonuses.

The strategies are tiny and live here (the real twins are in ``strategies_ref.py``):
``Stock`` always draws from the stock, discards its highest card and knocks once its
deadwood is within ``params[0]``; ``Randomly`` takes, discards and knocks at random
from its seat's stream through ``scratch[0]``.
"""

from __future__ import annotations

import dataclasses
from collections import Counter
from functools import cache
from typing import Any

import pytest

from kernels.layout import KNOCK_ANY, OUTCOME_LABELS, POINT_SCALE, R_KNOCK_LIMIT
from kernels.obs import (
    BIG_GIN,
    CONTINUE,
    KNOCK,
    N_PARAMS,
    PHASE_DISCARD,
    PHASE_DRAW,
    PHASE_UPCARD_OPTION,
    SCRATCH_SIZE,
)
from sim.rules import PRESETS, RuleSet, get_rules
from strategies import BUILTINS, params_vector
from tests.reference import rng_ref
from tests.reference import strategies_ref as twins
from tests.reference.deadwood_ref import card_value, min_deadwood_ref
from tests.reference.engine_ref import (
    MAX_TURNS,
    HollywoodRef,
    IllegalDecision,
    RefObs,
    cards_of,
    first_dealer_ref,
    forbidden_discard_ref,
    gin_final_scores,
    play_game_ref,
    play_hand_ref,
    scoring_rules,
    strategy_below_ref,
)
from tests.reference.scoring_ref import knock_limit_ref, score_showdown_ref
from tests.support.twins import fast_solver

KEY = 0x5EED_0F_C0FFEE
U = POINT_SCALE


# --- tiny strategies -------------------------------------------------------------------


@cache
def _ns(rules: RuleSet) -> Any:
    return scoring_rules(rules)


@cache
def _min_dw(hand: frozenset[int], rules: RuleSet) -> int:
    return min_deadwood_ref(hand, _ns(rules))


def _legal_knock(obs: RefObs, kept: frozenset[int]) -> tuple[bool, int]:
    deadwood = _min_dw(kept, obs.ruleset)
    limit = knock_limit_ref(_ns(obs.ruleset), obs.upcard)
    return limit is None or deadwood <= limit, deadwood


class Stock:
    """Never takes; discards its highest card (ties: highest index); big gin when it can;
    knocks when legal and its deadwood is at most ``params[0]`` (negative: never)."""

    name = "stock"

    def take(self, obs: RefObs, params: list[float], scratch: list[int]) -> bool:
        return False

    def discard(self, obs: RefObs, params: list[float], scratch: list[int]) -> int:
        forbidden = forbidden_discard_ref(obs)
        ns = _ns(obs.ruleset)
        cards = [c for c in cards_of(obs.hand) if c != forbidden]
        return max(cards, key=lambda c: (card_value(c, ns), c))

    def knock(self, obs: RefObs, params: list[float], scratch: list[int], discard: int) -> int:
        if params[0] < 0:
            return CONTINUE
        hand = frozenset(cards_of(obs.hand))
        if obs.rules.big_gin_bonus and _min_dw(hand, obs.ruleset) == 0:
            return BIG_GIN
        legal, deadwood = _legal_knock(obs, hand - {discard})
        return KNOCK if legal and deadwood <= params[0] else CONTINUE


class Randomly:
    """Takes the upcard or the pile top with chance 1/2 or 1/3, discards a random allowed
    card, knocks when legal with chance ``params[0]`` percent, big gin when it can."""

    name = "randomly"

    def take(self, obs: RefObs, params: list[float], scratch: list[int]) -> bool:
        if obs.phase == PHASE_UPCARD_OPTION:
            return strategy_below_ref(obs, scratch, 2) == 0
        return obs.pile_n > 0 and strategy_below_ref(obs, scratch, 3) == 0

    def discard(self, obs: RefObs, params: list[float], scratch: list[int]) -> int:
        forbidden = forbidden_discard_ref(obs)
        cards = [c for c in cards_of(obs.hand) if c != forbidden]
        return cards[strategy_below_ref(obs, scratch, len(cards))]

    def knock(self, obs: RefObs, params: list[float], scratch: list[int], discard: int) -> int:
        hand = frozenset(cards_of(obs.hand))
        if obs.rules.big_gin_bonus and _min_dw(hand, obs.ruleset) == 0:
            return BIG_GIN
        if strategy_below_ref(obs, scratch, 100) >= params[0]:
            return CONTINUE
        legal, _ = _legal_knock(obs, hand - {discard})
        return KNOCK if legal else CONTINUE


class Scripted(Stock):
    """``Stock`` with answers overridden per call: ``takes`` maps (phase, turn) to a take
    answer, ``discards``/``knocks`` map the turn to an answer; every call is recorded."""

    name = "scripted"

    def __init__(self, takes=None, discards=None, knocks=None):
        self.takes = takes or {}
        self.discards = discards or {}
        self.knocks = knocks or {}
        self.calls: list[tuple[str, int, int, int, int, bool]] = []

    def _note(self, what: str, obs: RefObs) -> None:
        self.calls.append((what, obs.seat, obs.phase, obs.turn, obs.drawn, obs.from_pile))

    def take(self, obs, params, scratch):
        self._note("take", obs)
        return self.takes.get((obs.phase, obs.turn), False)

    def discard(self, obs, params, scratch):
        self._note("discard", obs)
        if obs.turn in self.discards:
            answer = self.discards[obs.turn]
            return answer(obs) if callable(answer) else answer
        return super().discard(obs, params, scratch)

    def knock(self, obs, params, scratch, discard):
        self._note("knock", obs)
        return self.knocks.get(obs.turn, CONTINUE)


def params_of(*first: float) -> list[float]:
    return [float(x) for x in first] + [0.0] * (N_PARAMS - len(first))


NEVER = params_of(-1)


def lineup(rules: RuleSet, number: int) -> tuple[list[Any], list[list[float]]]:
    """Three line-ups in turn: all Stock, all Randomly, and mixed seats."""
    kind = number % 3
    strategies: list[Any] = []
    params: list[list[float]] = []
    for seat in range(rules.players):
        if kind == 0 or (kind == 2 and seat % 2 == 0):
            strategies.append(Stock())
            params.append(params_of(10 + 5 * (number % 2)))
        else:
            strategies.append(Randomly())
            params.append(params_of(8))
    return strategies, params


# --- an independent replay of a hand's events -------------------------------------------


def deck_of(rules: RuleSet, key: int, number: int, hand_index: int) -> list[int]:
    deck = list(range(52 + rules.jokers))
    skey = rng_ref.stream_key(key, number, rng_ref.make_stream(rng_ref.PURPOSE_DEAL, hand_index, 0))
    rng_ref.shuffle(deck, skey)
    return deck


def replay(rules: RuleSet, key: int, rec: dict[str, Any]) -> None:
    """Rebuild the hand from its events and the rules alone, and compare the record."""
    players, size = rules.players, rules.cards_per_hand
    deck = deck_of(rules, key, rec["number"], rec["hand_index"])
    hands: list[set[int]] = [set() for _ in range(players)]
    for k in range(players * size):  # RULES.md: card k to seat dealer + 1 + k
        hands[(rec["dealer"] + 1 + k) % players].add(deck[k])
    upcard = deck[players * size]
    pile, stock = [upcard], deck[players * size + 1 :]
    events = rec["events"]
    assert events[0] == ("deal", tuple(tuple(sorted(h)) for h in hands), upcard)
    assert rec["upcard"] == upcard
    rebuilds, draws, laid = 0, [], -1
    ended = None
    for event in events[1:]:
        assert ended is None or event[0] == "showdown", f"{event} after {ended}"
        kind = event[0]
        if kind == "draw":
            _, seat, card, source = event
            if source == "stock":
                assert stock and stock.pop(0) == card
            else:
                assert pile and pile.pop() == card
            hands[seat].add(card)
            draws.append(seat)
        elif kind == "rebuild":
            assert not stock and event[1] == rules.stock_exhaustion
            rebuilds += 1
            cards = pile[:-1]
            if rules.stock_exhaustion == "reshuffle":
                stream = rng_ref.make_stream(rng_ref.PURPOSE_RESHUFFLE, rec["hand_index"], rebuilds)
                rng_ref.shuffle(cards, rng_ref.stream_key(key, rec["number"], stream))
            assert event[2] == cards
            stock, pile = cards, pile[-1:]
        elif kind == "discard":
            _, seat, card = event
            hands[seat].remove(card)
            pile.append(card)
        elif kind == "knock":
            _, seat, card = event
            hands[seat].remove(card)
            laid = card
            ended = kind
        elif kind in ("big_gin", "dead_hand", "exhausted"):
            ended = kind
        elif kind in ("take_upcard", "pass"):
            assert rules.upcard_option and len(draws) == 0
        elif kind == "showdown":
            assert ended in ("knock", "big_gin", "exhausted")
        else:
            raise AssertionError(f"unknown event {event}")
    assert ended is not None or len(draws) == MAX_TURNS
    # Seats draw in turn from the dealer's left, except when the dealer takes the upcard.
    first = (rec["dealer"] + 1) % players
    if ("take_upcard", rec["dealer"]) in events:
        first = rec["dealer"]
    assert draws == [(first + i) % players for i in range(len(draws))]
    assert rec["turns"] == len(draws)
    assert rec["rebuilds"] == rebuilds
    assert rec["hands"] == [sorted(h) for h in hands]
    assert rec["pile"] == pile and rec["stock"] == stock and rec["laid_away"] == laid


# --- invariants of one hand ----------------------------------------------------------------


def check_hand(rules: RuleSet, key: int, rec: dict[str, Any]) -> None:
    ns = _ns(rules)
    players, size = rules.players, rules.cards_per_hand
    outcome, knocker = rec["outcome"], rec["knocker"]
    assert outcome in OUTCOME_LABELS
    # Every card in exactly one place.
    places = [c for h in rec["hands"] for c in h] + rec["pile"] + rec["stock"]
    if rec["laid_away"] >= 0:
        places.append(rec["laid_away"])
    assert sorted(places) == list(range(52 + rules.jokers))
    assert rec["stock_left"] == len(rec["stock"])
    # The hand ended within bounds.
    assert 0 < rec["turns"] <= MAX_TURNS
    if rules.stock_exhaustion == "dead_hand":
        assert rec["rebuilds"] == 0 and rec["stock_left"] >= rules.wall
    else:
        assert rec["rebuilds"] <= rules.max_rebuilds
    sizes = [len(h) for h in rec["hands"]]
    if knocker >= 0:
        assert outcome in ("knock_win", "undercut", "rummy", "gin", "big_gin", "tie")
        big = rec["laid_away"] < 0
        assert big == (outcome == "big_gin" or sizes[knocker] == size + 1)
        assert sizes[knocker] == size + (1 if big else 0)
        assert all(sizes[s] == size for s in range(players) if s != knocker)
        knocker_dw = min_deadwood_ref(rec["hands"][knocker], ns)
        assert rec["deadwood"][knocker] == knocker_dw
        limit = knock_limit_ref(ns, rec["upcard"])
        assert big or limit is None or knocker_dw <= limit
    else:
        assert outcome in ("dead_hand", "exhausted") and rec["laid_away"] < 0
        assert sizes == [size] * players
    if outcome == "dead_hand":
        assert rec["stock_left"] == rules.wall
        assert rec["points"] == [0] * players and rec["deadwood"] == [0] * players
        assert rec["winner"] == -1
    else:
        expected = score_showdown_ref(
            ns, rec["hands"], None if knocker < 0 else knocker, rec["upcard"], rec["dealer"]
        )
        assert rec["outcome"] == expected["outcome"]
        assert rec["deadwood"] == expected["deadwood"]
        assert rec["laid_off"] == expected["laid_off"]
        assert rec["points"] == [int(p * U) for p in expected["points"]]
        for seat in range(players):
            own = min_deadwood_ref(rec["hands"][seat], ns)
            assert rec["deadwood"][seat] <= own
            if not rules.layoff or seat == knocker:
                assert rec["deadwood"][seat] == own and rec["laid_off"][seat] == []
            assert set(rec["laid_off"][seat]) <= set(rec["hands"][seat])
    if rules.scoring == "knock":
        assert sum(rec["points"]) == 0
    else:
        assert all(p >= 0 for p in rec["points"]) and sum(p != 0 for p in rec["points"]) <= 1
        winner = rec["winner"]
        assert all(p == 0 for s, p in enumerate(rec["points"]) if s != winner)
    replay(rules, key, rec)


# --- rule sets under test ----------------------------------------------------------------

SMALL_STOCK = {"players": 6, "hand_size": 7}  # 52 - 42 - 1 = 9 cards of stock

CONFIGS: dict[str, RuleSet] = {
    **PRESETS,
    **{f"knock-rummy-{p}p": get_rules("knock-rummy", players=p) for p in (2, 3, 5, 6)},
    **{
        f"{kind}-small-stock-max{m}": get_rules(
            "knock-rummy", stock_exhaustion=kind, max_rebuilds=m, **SMALL_STOCK
        )
        for kind in ("reshuffle", "turn_over")
        for m in (0, 3)
    },
    "gin-reshuffle": get_rules("gin", stock_exhaustion="reshuffle", max_rebuilds=1),
    "knock-split-each-lower": get_rules(
        "knock-rummy", players=5, tied_winners="split", penalty_to="each_lower"
    ),
    "knock-neutral-big-gin": get_rules(
        "threshold-knock",
        players=3,
        knocker_tie="neutral",
        big_gin_bonus=31,
        discard_taken_card=True,
    ),
    "gin-wall-0": get_rules("gin", wall=0),
    # Tiny hands: gin, big gin (all hand_size + 1 cards melded) and undercuts are common.
    "gin-hand-3-no-tie-undercut": get_rules("gin", hand_size=3, undercut_on_tie=False),
    "knock-hand-2-jokers-big-gin": get_rules(
        "knock-rummy", hand_size=2, big_gin_bonus=31, jokers=2
    ),
}

FAST_HANDS = 20


def run_hands(name: str, count: int) -> Counter[str]:
    rules = CONFIGS[name]
    outcomes: Counter[str] = Counter()
    for number in range(count):
        strategies, params = lineup(rules, number)
        rec = play_hand_ref(rules, KEY, number, strategies, params, log=True)
        assert rec["number"] == number and rec["hand_index"] == 0
        assert rec["dealer"] == rules.players - 1
        check_hand(rules, KEY, rec)
        outcomes[rec["outcome"]] += 1
    return outcomes


@pytest.mark.parametrize("name", list(CONFIGS))
def test_hand_invariants(name):
    """Cards conserved, zero-sum Knock points, every hand ends, records match the
    showdown oracle and an independent replay of the events."""
    run_hands(name, FAST_HANDS)


@pytest.mark.slow
@pytest.mark.parametrize("name", list(CONFIGS))
def test_hand_invariants_many(name):
    outcomes = run_hands(name, 300)
    rules = CONFIGS[name]
    if rules.stock_exhaustion != "dead_hand" and "small-stock" in name:
        assert outcomes["exhausted"] > 0


def test_outcomes_seen():
    """The fast configurations between them reach the interesting endings."""
    seen: Counter[str] = Counter()
    for name in ("knock-rummy", "small-stock", "gin"):
        for n in [k for k in CONFIGS if name in k][:3]:
            seen += run_hands(n, 9)
    for outcome in ("knock_win", "undercut", "exhausted", "dead_hand"):
        assert seen[outcome] > 0, seen


def test_rebuilds_happen_in_small_stock():
    recs = [
        play_hand_ref(CONFIGS["reshuffle-small-stock-max3"], KEY, n, [Stock()] * 6, [NEVER] * 6)
        for n in range(3)
    ]
    assert all(r["rebuilds"] == 3 and r["outcome"] == "exhausted" for r in recs)


def test_deal_depends_only_on_key_number_hand_index():
    """Different strategies see the same deal; hand_index and number change it."""
    rules = PRESETS["gin"]
    for number in range(6):
        a = play_hand_ref(rules, KEY, number, [Stock()] * 2, [NEVER] * 2, log=True)
        b = play_hand_ref(rules, KEY, number, [Randomly()] * 2, [params_of(50)] * 2, log=True)
        assert a["events"][0] == b["events"][0]
        c = play_hand_ref(rules, KEY, number, [Stock()] * 2, [NEVER] * 2, hand_index=1, log=True)
        assert c["events"][0] != a["events"][0]
        d = play_hand_ref(rules, KEY, number + 100, [Stock()] * 2, [NEVER] * 2, log=True)
        assert d["events"][0] != a["events"][0]
    # The dealer only rotates who gets which card.
    rules = get_rules("knock-rummy")
    base = play_hand_ref(rules, KEY, 5, [Stock()] * 4, [NEVER] * 4, dealer=3, log=True)
    moved = play_hand_ref(rules, KEY, 5, [Stock()] * 4, [NEVER] * 4, dealer=1, log=True)
    assert base["events"][0][1] == moved["events"][0][1][2:] + moved["events"][0][1][:2]


def test_observation_contents():
    """A hook sees its own hand, public facts, its own stream and fresh copies."""
    seen: list[RefObs] = []

    class Watch(Stock):
        def discard(self, obs, params, scratch):
            seen.append(obs)
            assert len(scratch) == SCRATCH_SIZE
            obs.pile.append(99)  # a copy: the engine must not care
            obs.taken[0] = -1
            return super().discard(obs, params, scratch)

    rules = get_rules("knock-rummy", players=3)
    rec = play_hand_ref(rules, KEY, 9, [Watch()] * 3, [NEVER] * 3, scores=[60, -60, 0], log=True)
    check_hand(rules, KEY, rec)
    first = seen[0]
    assert first.seat == 0 and first.players == 3 and first.dealer == 2
    assert first.phase == PHASE_DISCARD and first.turn == 1 and not first.from_pile
    assert first.scores == [60, -60, 0] and first.ruleset is rules
    assert first.rules_vector == tuple(int(v) for v in rules.compile()) == first.rules
    assert first.rules[R_KNOCK_LIMIT] == KNOCK_ANY and first.rules.knock_limit is None
    assert first.rules.cards_per_hand == 7
    deck = deck_of(rules, KEY, 9, 0)
    assert first.drawn == deck[3 * 7 + 1] and first.stock_n == 52 - 21 - 2
    assert first.hand == sum(1 << c for c in rec["events"][0][1][0]) | (1 << first.drawn)
    for obs in seen:
        skey = rng_ref.stream_key(
            KEY, 9, rng_ref.make_stream(rng_ref.PURPOSE_STRATEGY, 0, obs.seat)
        )
        assert obs.rng_key == skey


# --- the upcard option ---------------------------------------------------------------------


def test_upcard_option_both_pass():
    """Both pass: no take call for the non-dealer's forced stock draw; dealer next."""
    rules = PRESETS["gin"]
    a, b = Scripted(), Scripted()
    rec = play_hand_ref(rules, KEY, 3, [a, b], [NEVER] * 2, log=True)
    deck = deck_of(rules, KEY, 3, 0)
    ev = rec["events"]
    assert ev[1:5] == [("pass", 0), ("pass", 1), ("draw", 0, deck[21], "stock"), ev[4]]
    assert ev[4][0] == "discard" and ev[4][1] == 0
    assert a.calls[0] == ("take", 0, PHASE_UPCARD_OPTION, 0, -1, False)
    assert b.calls[0] == ("take", 1, PHASE_UPCARD_OPTION, 0, -1, False)
    assert a.calls[1] == ("discard", 0, PHASE_DISCARD, 1, deck[21], False)
    assert b.calls[1] == ("take", 1, PHASE_DRAW, 1, -1, False)
    assert ev[5] == ("draw", 1, deck[22], "stock")
    check_hand(rules, KEY, rec)


def test_upcard_option_non_dealer_takes():
    rules = PRESETS["gin"]
    a, b = Scripted(takes={(PHASE_UPCARD_OPTION, 0): True}), Scripted()
    rec = play_hand_ref(rules, KEY, 4, [a, b], [NEVER] * 2, log=True)
    up = rec["upcard"]
    assert rec["events"][1:3] == [("take_upcard", 0), ("draw", 0, up, "pile")]
    assert rec["events"][4][:2] == ("draw", 1)
    assert a.calls[1] == ("discard", 0, PHASE_DISCARD, 1, up, True)
    assert b.calls[0] == ("take", 1, PHASE_DRAW, 1, -1, False)  # never asked the upcard
    check_hand(rules, KEY, rec)


def test_upcard_option_dealer_takes_then_non_dealer_plays():
    rules = PRESETS["gin"]
    a, b = Scripted(), Scripted(takes={(PHASE_UPCARD_OPTION, 0): True})
    rec = play_hand_ref(rules, KEY, 4, [a, b], [NEVER] * 2, log=True)
    up = rec["upcard"]
    ev = rec["events"]
    assert ev[1:4] == [("pass", 0), ("take_upcard", 1), ("draw", 1, up, "pile")]
    assert ev[4][:2] == ("discard", 1) and ev[5][:2] == ("draw", 0)
    assert a.calls[1] == ("take", 0, PHASE_DRAW, 1, -1, False)
    check_hand(rules, KEY, rec)


def test_taken_card_is_forbidden_unless_allowed():
    take = {(PHASE_UPCARD_OPTION, 0): True}
    rules = PRESETS["gin"]
    with pytest.raises(IllegalDecision, match=r"seat 0 .*turn=1"):
        play_hand_ref(rules, KEY, 4, [Scripted(take, {1: lambda o: o.drawn}), Stock()], [NEVER] * 2)
    loose = get_rules("gin", discard_taken_card=True)
    rec = play_hand_ref(
        loose, KEY, 4, [Scripted(take, {1: lambda o: o.drawn}), Stock()], [NEVER] * 2, log=True
    )
    assert rec["events"][3] == ("discard", 0, rec["upcard"])
    check_hand(loose, KEY, rec)


# --- illegal answers -------------------------------------------------------------------------


def _not_held(obs: RefObs) -> int:
    return next(c for c in range(52) if not (obs.hand >> c) & 1)


@pytest.mark.parametrize(
    ("rules", "strategy", "message"),
    [
        (PRESETS["gin"], Scripted(discards={3: _not_held}), r"seat 0 .*discard \d+ is not in"),
        (PRESETS["gin"], Scripted(discards={1: 99}), r"discard 99 is not in"),
        (PRESETS["gin"], Scripted(discards={1: "AS"}), r"discard returned 'AS'"),
        (PRESETS["gin"], Scripted(knocks={1: KNOCK}), r"above the knock limit 10"),
        (PRESETS["gin-classic"], Scripted(knocks={1: BIG_GIN}), r"big_gin_bonus=0"),
        (PRESETS["gin"], Scripted(knocks={1: BIG_GIN}), r"big gin .* with deadwood \d+"),
        (PRESETS["gin"], Scripted(knocks={1: 7}), r"knock returned 7"),
        (PRESETS["gin"], Scripted(takes={(PHASE_UPCARD_OPTION, 0): "yes"}), r"take returned"),
    ],
)
def test_illegal_decisions(rules, strategy, message):
    """Each illegal answer names the seat, the turn and the bad value."""
    with pytest.raises(IllegalDecision, match=message) as info:
        play_hand_ref(rules, KEY, 1, [strategy, Stock()], [NEVER] * 2)
    assert "seat 0 (scripted)" in str(info.value) and "turn=" in str(info.value)
    assert isinstance(info.value, ValueError)


def test_knock_within_limit_is_legal_any_deadwood_under_none():
    rules = get_rules("knock-rummy", players=2)
    rec = play_hand_ref(rules, KEY, 1, [Scripted(knocks={1: KNOCK}), Stock()], [NEVER] * 2)
    assert rec["knocker"] == 0 and rec["turns"] == 1 and rec["laid_away"] >= 0
    assert rec["outcome"] in ("knock_win", "undercut", "rummy")


# --- stock rebuilds and the dead hand -------------------------------------------------------


def _pile_before_first_rebuild(rec: dict[str, Any]) -> list[int]:
    pile = [rec["upcard"]]
    for event in rec["events"]:
        if event[0] == "rebuild":
            return pile
        if event[0] == "discard":
            pile.append(event[2])
    raise AssertionError("no rebuild")


def test_reshuffle_rebuilds_then_exhausted():
    """6 players x 7 cards leave 9 cards of stock; nobody knocks; each rebuild shuffles
    the 9 discards under the top with the reshuffle stream (sub = rebuild index), and
    the fourth empty stock ends the hand exhausted (max_rebuilds 3)."""
    rules = CONFIGS["reshuffle-small-stock-max3"]
    rec = play_hand_ref(rules, KEY, 2, [Stock()] * 6, [NEVER] * 6, log=True)
    ev = rec["events"]
    rebuilds = [i for i, e in enumerate(ev) if e[0] == "rebuild"]
    assert len(rebuilds) == 3 and rec["rebuilds"] == 3
    pile = _pile_before_first_rebuild(rec)
    assert len(pile) == 10
    expected = pile[:-1]
    stream = rng_ref.make_stream(rng_ref.PURPOSE_RESHUFFLE, 0, 1)
    rng_ref.shuffle(expected, rng_ref.stream_key(KEY, 2, stream))
    assert expected != pile[:-1] and sorted(expected) == sorted(pile[:-1])
    assert ev[rebuilds[0]] == ("rebuild", "reshuffle", expected)
    draws = [e for e in ev[rebuilds[0] :] if e[0] == "draw"][:9]
    assert [e[2] for e in draws] == expected  # drawn in array order, index 0 first
    assert [e[1] for e in draws] == [(9 + i) % 6 for i in range(9)]
    assert rec["outcome"] == "exhausted" and rec["turns"] == 36
    assert ev[-2] == ("exhausted",) and rec["stock_left"] == 0 and len(rec["pile"]) == 10
    check_hand(rules, KEY, rec)


def test_turn_over_keeps_the_order():
    """turn_over: the pile but its top becomes the stock as it lies; the oldest discard
    (the first upcard, never taken here) is drawn first."""
    rules = CONFIGS["turn_over-small-stock-max3"]
    rec = play_hand_ref(rules, KEY, 2, [Stock()] * 6, [NEVER] * 6, log=True)
    ev = rec["events"]
    at = next(i for i, e in enumerate(ev) if e[0] == "rebuild")
    pile = _pile_before_first_rebuild(rec)
    assert ev[at] == ("rebuild", "turn_over", pile[:-1])
    assert ev[at + 1] == ("draw", 9 % 6, rec["upcard"], "stock")
    assert rec["rebuilds"] == 3 and rec["outcome"] == "exhausted"
    check_hand(rules, KEY, rec)


def test_no_rebuild_at_max_rebuilds_zero():
    for kind in ("reshuffle", "turn_over"):
        rules = CONFIGS[f"{kind}-small-stock-max0"]
        rec = play_hand_ref(rules, KEY, 7, [Stock()] * 6, [NEVER] * 6, log=True)
        assert rec["outcome"] == "exhausted" and rec["turns"] == 9 and rec["rebuilds"] == 0
        assert not any(e[0] == "rebuild" for e in rec["events"])
        check_hand(rules, KEY, rec)


def test_exhausted_showdown_pays_the_lowest():
    rules = CONFIGS["reshuffle-small-stock-max0"]
    rec = play_hand_ref(rules, KEY, 7, [Stock()] * 6, [NEVER] * 6)
    dw = rec["deadwood"]
    order = [(rec["dealer"] + 1 + i) % 6 for i in range(6)]
    winner = next(s for s in order if dw[s] == min(dw))
    assert rec["winner"] == winner
    assert rec["points"][winner] == U * sum(d - min(dw) for d in dw)


def test_dead_hand_at_the_wall():
    """Gin: a 31-card stock with a wall of 2; nobody knocks; the discard that leaves
    2 cards in the stock ends the hand: 29 draws, no score."""
    for wall, turns in ((2, 29), (0, 31), (5, 26)):
        rules = get_rules("gin", wall=wall)
        rec = play_hand_ref(rules, KEY, 11, [Stock()] * 2, [NEVER] * 2, log=True)
        assert rec["outcome"] == "dead_hand" and rec["turns"] == turns
        assert rec["stock_left"] == wall and rec["points"] == [0, 0]
        assert rec["events"][-1] == ("dead_hand",)
        assert rec["events"][-2][0] == "discard"
        check_hand(rules, KEY, rec)


def test_knock_on_the_last_draw_before_the_wall_is_scored():
    """The draw that leaves ``wall`` cards may still end in a knock (turn 29 is seat
    0's: both passed the upcard and seat 0 drew first)."""
    rules = get_rules("gin", knock_limit=None)
    strategies = [Scripted(knocks={29: KNOCK}), Scripted(knocks={29: KNOCK})]
    rec = play_hand_ref(rules, KEY, 11, strategies, [NEVER] * 2, log=True)
    assert rec["turns"] == 29 and rec["knocker"] == 0 and rec["stock_left"] == 2
    assert rec["outcome"] != "dead_hand"
    check_hand(rules, KEY, rec)


# --- games -----------------------------------------------------------------------------------


def _check_game_records(rules: RuleSet, game: dict[str, Any], key: int = KEY) -> None:
    records = game["records"]
    assert [r["hand_index"] for r in records] == list(range(len(records)))
    assert game["hands_dealt"] == len(records)
    assert game["hands"] == sum(r["outcome"] != "dead_hand" for r in records)
    for r in records:
        dealt = len(r["seats"])
        check_hand(
            rules if dealt == rules.players else dataclasses.replace(rules, players=dealt), key, r
        )
    first = first_dealer_ref(key, game["number"], rules.players)
    assert records[0]["seats"][records[0]["dealer"]] == first
    # A dead hand is redealt by the same dealer.
    for a, b in zip(records, records[1:], strict=False):
        if a["outcome"] == "dead_hand" or a["winner"] < 0:
            assert a["seats"][a["dealer"]] == b["seats"][b["dealer"]]


def test_pool_elimination():
    """pool:40 with four seats: seats drop out at -40 points; later hands are dealt
    to the seats still in, with the automatic hand size of the smaller table."""
    rules = get_rules("knock-rummy", game="pool:40")
    strategies = [Stock(), Stock(), Randomly(), Stock()]
    params = [params_of(12), params_of(20), params_of(30), params_of(8)]
    game = play_game_ref(rules, KEY, 1, strategies, params, log=True)
    _check_game_records(rules, game)
    out = game["out"]
    assert len(out) == 3 and game["winner"] not in out
    assert sorted([*out, game["winner"]]) == [0, 1, 2, 3]
    totals = [0] * 4
    for r in game["records"]:
        for i, s in enumerate(r["seats"]):
            totals[s] += r["points"][i]
        for s in out:
            if s not in r["seats"]:
                assert totals[s] <= -40 * U  # out only once the loss reached 40
        assert len(r["hands"][0]) == {4: 7, 3: 7, 2: 10}[len(r["seats"])]
    assert totals == game["scores"] and sum(totals) == 0
    assert all(totals[s] <= -40 * U for s in out) and totals[game["winner"]] > -40 * U
    assert any(len(r["seats"]) == 2 for r in game["records"])
    # Rotation: the deal passes to the next seat still in.
    for a, b in zip(game["records"], game["records"][1:], strict=False):
        dealer, nxt = a["seats"][a["dealer"]], b["seats"][b["dealer"]]
        expected = next((dealer + i) % 4 for i in range(1, 5) if (dealer + i) % 4 in b["seats"])
        assert nxt == expected


def test_hollywood_columns_by_hand():
    """Wins (seat, points): a seat's first win goes in column 1, its second in columns
    1-2, later ones in every open column; a closed column takes nothing more.

    T = 100: (0, 30) (0, 40) (1, 20) (0, 50) (0, 10) (1, 100) (1, 100)
    column 1: s0 30+40+50 = 120 closes at the 4th hand; s1 20.
    column 2: s0 40+50+10 = 100 closes at the 5th hand; s1 nothing (its 2nd win, 100,
    comes after the close).
    column 3: s0 50+10 = 60; s1's 2nd win is not entered (columns 1-2 only, both
    closed); its 3rd win, 100, closes it.
    """
    rules = PRESETS["hollywood-gin"]
    h = HollywoodRef(rules, 100)
    wins = [(0, 30), (0, 40), (1, 20), (0, 50), (0, 10), (1, 100), (1, 100)]
    for i, (seat, points) in enumerate(wins):
        assert not h.closed
        h.enter(seat, points * U)
        if i == 3:
            assert h.winner == [0, -1, -1]
        if i == 4:
            assert h.winner == [0, 0, -1]
    assert h.closed and h.winner == [0, 0, 1]
    assert h.points == [[120 * U, 20 * U], [100 * U, 0], [60 * U, 100 * U]]
    assert h.boxes == [[3, 1], [3, 0], [2, 1]]
    finals = h.finals()
    # Column 1: s0 120 + 3 boxes + game 100; s1 20 + 1 box (no shutout).
    assert finals[0] == [(120 + 75 + 100) * U, (20 + 25) * U]
    # Column 2: s1 won no hand there: shutout "double" doubles s0's whole total.
    assert finals[1] == [2 * (100 + 75 + 100) * U, 0]
    # Column 3: s1 wins 100 + 1 box + 100; s0 60 + 2 boxes.
    assert finals[2] == [(60 + 50) * U, (100 + 25 + 100) * U]


def test_hollywood_game():
    rules = PRESETS["hollywood-gin"]
    game = play_game_ref(
        rules, KEY, 3, [Stock(), Randomly()], [params_of(10), params_of(40)], log=True
    )
    _check_game_records(rules, game)
    cols = game["columns"]
    assert all(c["winner"] >= 0 for c in cols)
    for c in cols:
        assert c["points"][c["winner"]] >= 100 * U
        assert sum(c["boxes"]) <= sum(game["boxes"])
    # Every win goes into column 1 unless it was closed.
    assert sum(cols[0]["boxes"]) <= sum(game["boxes"])
    assert game["totals"] == [sum(f[s] for f in game["scores"]) for s in range(2)]
    # The game ended at the hand that closed the last column.
    last = game["records"][-1]
    assert last["winner"] >= 0
    if game["winner"] >= 0:
        assert game["totals"][game["winner"]] > game["totals"][1 - game["winner"]]


def test_gin_final_scores_box_and_shutout():
    """gin:T: hand points + box per hand won; game bonus to the winner; shutout."""
    base = {"box_bonus": 25, "game_bonus": 100}
    pts, boxes = [110 * U, 30 * U], [4, 1]
    plain = get_rules("gin", **base)
    assert gin_final_scores(plain, pts, boxes, 0) == [(110 + 100 + 100) * U, (30 + 25) * U]
    shut = [110 * U, 0]
    assert gin_final_scores(plain, shut, [4, 0], 0) == [2 * (110 + 100 + 100) * U, 0]
    bonus = get_rules("gin", shutout="bonus", **base)
    assert gin_final_scores(bonus, shut, [4, 0], 0) == [(110 + 100 + 200) * U, 0]
    none = get_rules("gin", shutout="none", **base)
    assert gin_final_scores(none, shut, [4, 0], 0) == [(110 + 100 + 100) * U, 0]
    assert gin_final_scores(none, pts, boxes, 1) == [(110 + 100) * U, (30 + 25 + 100) * U]


def _gin_box_winner(rec: dict[str, Any]) -> int:
    """RULES.md: the knocker's box for a knock win, gin or big gin, the defender's for
    an undercut, nobody's for a tie (or a dead hand); the lowest for an exhausted hand."""
    k = rec["knocker"]
    if rec["outcome"] in ("knock_win", "gin", "big_gin"):
        return k
    if rec["outcome"] == "undercut":
        return 1 - k
    if rec["outcome"] == "exhausted" and rec["deadwood"][0] != rec["deadwood"][1]:
        return 0 if rec["deadwood"][0] < rec["deadwood"][1] else 1
    return -1


@pytest.mark.parametrize("preset", ["gin", "gin-classic"])
def test_gin_game(preset):
    rules = PRESETS[preset]
    game = play_game_ref(
        rules, KEY, 5, [Stock(), Randomly()], [params_of(10), params_of(25)], log=True
    )
    _check_game_records(rules, game)
    boxes = [0, 0]
    running = [0, 0]
    for r in game["records"]:
        assert max(running) < 100 * U  # no earlier hand ended the game
        w = _gin_box_winner(r)
        assert w == r["winner"]
        if w >= 0:
            boxes[w] += 1
        running = [running[s] + r["points"][s] for s in range(2)]
    assert boxes == game["boxes"] and running == game["points"]
    winner = game["winner"]
    assert running[winner] >= 100 * U
    assert game["scores"] == gin_final_scores(rules, running, boxes, winner)


def test_gin_game_shutout_from_records():
    """Find a game whose loser won no hand and check the doubled total."""
    rules = PRESETS["gin"]
    for number in range(40):
        game = play_game_ref(
            rules, KEY, number, [Stock(), Stock()], [params_of(10), NEVER], log=True
        )
        if game["boxes"][1 - game["winner"]] == 0:
            w = game["winner"]
            expect = 2 * (game["points"][w] + (25 * game["boxes"][w] + 100) * U)
            assert game["scores"][w] == expect and game["scores"][1 - w] == game["points"][1 - w]
            return
    pytest.fail("no shutout in 40 games")


@pytest.mark.parametrize("dealer_rule", ["rotate", "winner", "loser", "alternate_scored"])
def test_hands_mode_and_dealer_rules(dealer_rule):
    rules = get_rules("knock-rummy", players=3, game="hands:3", dealer=dealer_rule)
    strategies = [Stock(), Randomly(), Stock()]
    params = [params_of(10), params_of(30), params_of(15)]
    game = play_game_ref(rules, KEY, 2, strategies, params, log=True)
    _check_game_records(rules, game)
    assert game["hands"] >= 3
    top = max(game["scores"])
    assert game["scores"].count(top) == 1 and game["winner"] == game["scores"].index(top)
    for a, b in zip(game["records"], game["records"][1:], strict=False):
        d, nxt = a["dealer"], b["dealer"]
        if a["winner"] < 0:
            expected = d
        elif dealer_rule in ("rotate", "alternate_scored"):
            expected = (d + 1) % 3
        elif dealer_rule == "winner":
            expected = a["winner"]
        else:
            order = [(d + 1 + i) % 3 for i in range(3)]
            expected = min(order, key=lambda s: a["points"][s])  # first of the least
        assert nxt == expected


def test_match_mode():
    rules = get_rules("knock-rummy", players=2, game="match:30")
    game = play_game_ref(
        rules, KEY, 4, [Stock(), Randomly()], [params_of(10), params_of(30)], log=True
    )
    _check_game_records(rules, game)
    w = game["winner"]
    assert game["scores"][w] >= 30 * U and game["scores"][1 - w] < game["scores"][w]
    running = [0, 0]
    for r in game["records"][:-1]:
        running = [running[s] + r["points"][s] for s in range(2)]
        assert max(running) < 30 * U or running[0] == running[1]


def test_hand_mode_redeals_dead_hands():
    rules = get_rules("gin", game="hand")
    for number in range(6):
        game = play_game_ref(rules, KEY, number, [Stock(), Stock()], [params_of(10)] * 2, log=True)
        _check_game_records(rules, game)
        assert game["hands"] == 1
        assert all(r["outcome"] == "dead_hand" for r in game["records"][:-1])
        assert game["winner"] == game["records"][-1]["winner"]


def test_game_scores_reach_the_strategies():
    seen: list[list[int]] = []

    class Watch(Stock):
        def take(self, obs, params, scratch):
            seen.append(list(obs.scores))
            return False

    rules = get_rules("knock-rummy", players=2, game="hands:2")
    game = play_game_ref(rules, KEY, 0, [Watch(), Watch()], [params_of(12)] * 2, log=True)
    after_first = game["records"][0]["points"]
    assert seen[0] == [0, 0] and after_first in seen


# --- the strategy twins through the engine ---------------------------------------------------

# Parameters where a twin does not play its strategy's defaults (mc: a single sample and
# candidate, as its twin plays every rollout in Python).
TWIN_PARAMS = {
    "random": params_of(0.3),
    "greedy": params_of(10, 1),
    "mc": [float(v) for v in params_vector(BUILTINS["mc"].params(samples=1, candidates=1))],
}


@pytest.mark.parametrize("preset", ["gin", "knock-rummy", "oklahoma-gin"])
@pytest.mark.parametrize("name", list(BUILTINS))
def test_strategy_twins_play_legally(preset, name, monkeypatch):
    """Every built-in strategy's pure-Python twin (strategies_ref.py) plays whole hands
    through the reference engine without an illegal answer. The names come from the
    registry: a built-in without a twin fails here, it is never skipped. The twins use
    the numba solver (checked against deadwood_ref in tests/kernels/test_deadwood.py);
    the engine and ``check_hand`` keep their own."""
    assert set(TWIN_PARAMS) <= set(BUILTINS), "TWIN_PARAMS names a strategy not built in"
    assert name in twins.REF_STRATEGIES, f"built-in strategy {name!r} has no twin"
    monkeypatch.setattr(twins, "SOLVER", fast_solver)
    strategy = twins.REF_STRATEGIES[name]
    chosen = TWIN_PARAMS.get(name)
    if chosen is None:
        chosen = [float(v) for v in params_vector(BUILTINS[name].params())]
    rules = PRESETS[preset]
    for number in range(4):
        strategies = [strategy] * rules.players
        params = [chosen] * rules.players
        rec = play_hand_ref(rules, KEY, number, strategies, params, log=True)
        check_hand(rules, KEY, rec)
