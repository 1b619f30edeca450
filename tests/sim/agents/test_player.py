"""``rummy.player`` makes the engine's choices, decision by decision.

Whole seeded hands (``sim.engine.replay_hand``) and games (``replay_game``) are played
by the engine with its event log on; :func:`ask_every_decision` walks each log as the
table saw it (docs/ENGINE.md "A hand"), rebuilds each seat's view at each of its
decisions from the log alone (the pile in order, what every seat took and discarded,
the stock's count, rebuilds, the turn, the phase with the upcard option's questions,
the card drawn, the scores before the hand, the seat's key and its game memory), asks
that seat's :class:`~sim.agents.player.Player` and compares its answer with what the
log says the seat did. Every built-in strategy is asked, ``chart`` with its defaults
and with the shipped Gin chart (``chart:gin``, spelt out), ``mc`` with few samples and its seed,
under Gin, Oklahoma Gin and 3- and 4-player Knock Rummy. A view with one field wrong
is caught (the comparison can fail), and so is a Player that forgets its memory.
"""

from __future__ import annotations

import dataclasses
from collections import Counter
from collections.abc import Callable
from typing import Any

import numpy as np
import pytest

from kernels import engine as E
from kernels import layout as L
from kernels.rng import PURPOSE_STRATEGY, make_stream, stream_key
from kernels.showdown import knock_limit_of
from sim.agents import player as player_module
from sim.agents.player import Player, PlayerError, player
from sim.agents.view import View, ViewError
from sim.engine import Replay, key_of, play_deals, play_games, replay_game, replay_hand
from sim.rules import RuleSet, get_rules
from strategies import format_seat
from strategies.agent import seat_object
from strategies.chart_files import shipped_chart
from tests.support.agents import gin_view

# Spelt out: a chart spelt out is not checked against the rules (chart:gin is).
GIN_CHART = shipped_chart("gin").spec
# Few samples: the same code paths, fast. A player does not know who it plays, so the
# rollouts take the opponents for the policy's (as opponents=known falls back to).
MC = "mc:samples=6,opponents=policy"
WENT_OUT = (L.GIN, L.BIG_GIN, L.RUMMY)
Tamper = Callable[[dict[str, Any]], None]


class Checked:
    """What a walk asked, and every answer that differed from the engine's."""

    def __init__(self) -> None:
        self.asked: Counter[str] = Counter()
        self.wrong: list[str] = []


def ask_every_decision(
    replay: Replay,
    players: list[Player],
    checked: Checked,
    *,
    scores: list[float] | None = None,
    memory: list[list[int]] | None = None,
    tamper: Tamper | None = None,
) -> None:
    """Walk one hand's log; ask ``players[seat]`` every decision the seat made.

    ``scores``: game points per seat before the hand; ``memory``: per seat, the game
    memory before it (hands dealt, opponents' knocks, opponents' gins). ``tamper``
    may change a view's fields before it is built (to show that a wrong one is caught).
    """
    rules = replay.rules
    n = rules.players
    size = rules.cards_per_hand
    events = replay.events
    dealer = replay.record["dealer"]
    hands = [0] * n
    for code, seat, _, mask in events[:n]:
        assert code == E.EV_DEAL
        hands[seat] = mask
    code, _, upcard, _ = events[n]
    assert code == E.EV_UPCARD
    pile = [upcard]
    stock = 52 + rules.jokers - n * size - 1
    taken, discarded = [0] * n, [0] * n
    turn, rebuilds, rebuilt = 0, 0, 0
    limit = int(knock_limit_of(rules.compile(), upcard))
    seed_key = key_of(replay.seed)
    where = (
        f"{rules.name} {replay.lineup.names} seed {replay.seed} deal {replay.deal} "
        f"hand {replay.hand_index}"
    )

    def view(seat: int, phase: str, drawn: int | None = None, from_pile: bool = False) -> View:
        stream = make_stream(PURPOSE_STRATEGY, replay.hand_index, seat)
        game = memory[seat] if memory else [0, 0, 0]
        fields: dict[str, Any] = {
            "seat": seat, "players": n, "hand": hands[seat], "pile": list(pile),
            "phase": phase, "upcard": upcard, "dealer": dealer, "turn": turn, "stock": stock,
            "taken": list(taken), "discarded": list(discarded), "drawn": drawn,
            "from_pile": from_pile, "rebuilds": rebuilds, "rebuilt": rebuilt,
            "scores": scores or [0] * n, "knock_limit": None if limit < 0 else limit,
            "key": int(stream_key(seed_key, replay.deal, stream)), "game_hands": game[0],
            "opp_knocks": game[1], "opp_gins": game[2],
            "discard_taken_card": rules.discard_taken_card,
        }  # fmt: skip
        if tamper is not None:
            tamper(fields)
        return View.of(**fields)

    def check(seat: int, asked: str, got: Any, expected: Any) -> None:
        checked.asked[asked] += 1
        if got != expected:
            checked.wrong.append(
                f"{where}, seat {seat} ({replay.lineup.names[seat]}), turn {turn}: {asked} "
                f"answered {got!r}, the engine {expected!r}"
            )

    asking = 2 if rules.upcard_option else 0  # the upcard option's questions left
    stock_next = False  # both passed: the non-dealer draws without a question
    seat = (dealer + 1) % n
    i = n + 1
    while i < len(events):
        code, who, card, _ = events[i]
        i += 1
        if code == E.EV_PASS:
            assert who == seat and asking > 0
            check(seat, "take (upcard, passed)", players[seat].take(view(seat, "upcard")), False)
            asking -= 1
            seat = dealer if asking == 1 else (dealer + 1) % n
            stock_next = asking == 0
            continue
        if code == E.EV_DRAW_PILE:
            assert who == seat
            phase = "upcard" if asking > 0 else "draw"
            check(seat, f"take ({phase}, took)", players[seat].take(view(seat, phase)), True)
            asking = 0
            assert pile.pop() == card
            taken[seat] |= 1 << card
            from_pile = True
        elif code in (E.EV_DRAW_STOCK, E.EV_REBUILD, E.EV_EXHAUSTED):
            if not stock_next and pile:  # asked first, then the stock is looked at
                assert asking == 0
                check(seat, "take (draw, drew)", players[seat].take(view(seat, "draw")), False)
            stock_next = False
            if code == E.EV_EXHAUSTED:
                break
            if code == E.EV_REBUILD:
                checked.asked["(a rebuild)"] += 1
                rebuilt = sum(1 << c for c in pile[:-1])
                stock, pile, rebuilds = len(pile) - 1, pile[-1:], rebuilds + 1
                code, who, card, _ = events[i]
                i += 1
                assert code == E.EV_DRAW_STOCK
            assert who == seat
            stock -= 1
            from_pile = False
        else:
            raise AssertionError(f"{where}: event {code} where a draw was due")
        hands[seat] |= 1 << card
        turn += 1
        # The discard and the knock decision on it.
        code, who, thrown, _ = events[i]
        i += 1
        assert who == seat
        seen = view(seat, "discard", card, from_pile)
        mine = players[seat].discard(seen)
        if code != E.EV_BIG_GIN:  # a big gin's log does not say which card the hook named
            check(seat, "discard", mine, thrown)
        else:
            thrown = mine
        expected = {E.EV_DISCARD: "continue", E.EV_KNOCK: "knock", E.EV_BIG_GIN: "big_gin"}[code]
        check(seat, f"knock ({expected})", players[seat].knock(seen, thrown), expected)
        if code != E.EV_DISCARD:
            break
        hands[seat] &= ~(1 << thrown)
        pile.append(thrown)
        discarded[seat] |= 1 << thrown
        taken[seat] &= ~(1 << thrown)
        if i < len(events) and events[i][0] == E.EV_DEAD_HAND:
            break
        seat = (seat + 1) % n
    assert i == len(events) or events[i][0] in (E.EV_DEAD_HAND, E.EV_EXHAUSTED), where


def check_deals(
    rules: RuleSet,
    lineup: str,
    seed: int,
    deals: range,
    checked: Checked,
    tamper: Tamper | None = None,
) -> None:
    """Single deals: one Player per seat, for the whole run of deals."""
    players: list[Player] | None = None
    for deal in deals:
        replay = replay_hand(rules, lineup, seed=seed, deal=deal)
        if players is None:
            players = [
                player(name, rules=rules, seat=s) for s, name in enumerate(replay.lineup.names)
            ]
        ask_every_decision(replay, players, checked, tamper=tamper)


def check_game(rules: RuleSet, lineup: str, seed: int, game: int, checked: Checked) -> int:
    """One game: each game seat keeps its Player from hand to hand (in a pool's later
    hands, with fewer seats, numbered anew); scores and game memory as the table saw
    them. Returns the game's hands."""
    played = replay_game(rules, lineup, seed=seed, game=game)
    n = rules.players
    scores = [0.0] * n
    memory = [[0, 0, 0] for _ in range(n)]  # per game seat: hands, opponents' knocks, gins
    names = played.lineup.names
    players = [player(name, rules=rules, seat=s) for s, name in enumerate(names)]
    for hand in played.hands:
        replay, seats = hand.replay, hand.seats
        ask_every_decision(
            replay, [players[s] for s in seats], checked,
            scores=[scores[s] for s in seats], memory=[list(memory[s]) for s in seats],
        )  # fmt: skip
        record = replay.record
        knocker = record["knocker"]
        for i, s in enumerate(seats):
            scores[s] += record["points"][i] / L.POINT_SCALE
            memory[s][0] += 1
            if knocker >= 0 and knocker != i:
                memory[s][2 if record["outcome"] in WENT_OUT else 1] += 1
    return len(played.hands)


KNOCK3 = dataclasses.replace(get_rules("knock-rummy"), players=3)
KNOCK4 = get_rules("knock-rummy")
WAITERS = "greedy:knock_at=0/greedy:knock_at=0/random:p=0/simple"  # long hands: rebuilds
# Every built-in strategy under every rule set asked for (chart twice: its defaults and
# the shipped Gin chart), a few deals each; the seeds give upcard passes and takes,
# pile takes, knocks and (Knock Rummy, greedy waiting for rummy) stock rebuilds.
DEALS = [
    ("gin", "random/greedy"),
    ("gin", "simple/schedule"),
    ("gin", "defensive/advice"),
    ("gin", f"chart/{GIN_CHART}"),
    ("gin", f"{MC}/greedy"),
    ("oklahoma-gin", "random/simple"),
    ("oklahoma-gin", "schedule/defensive"),
    ("oklahoma-gin", f"advice/{MC}"),
    ("oklahoma-gin", f"{GIN_CHART}/chart"),
    (KNOCK3, "random/greedy/simple"),
    (KNOCK3, f"schedule/defensive/{MC}"),
    (KNOCK3, "advice/chart/greedy:knock_at=0"),
    (KNOCK4, "random/greedy/simple/schedule"),
    (KNOCK4, f"defensive/advice/chart/{MC}"),
    (KNOCK4, WAITERS),
]


def _label(rules: str | RuleSet) -> str:
    return rules if isinstance(rules, str) else f"{rules.name}-{rules.players}p"


@pytest.mark.parametrize(
    ("rules", "lineup"),
    DEALS,
    ids=[f"{_label(r)}:{'/'.join(s.split(':')[0] for s in x.split('/'))}" for r, x in DEALS],
)
def test_every_decision_of_seeded_deals_is_the_engines(rules: str | RuleSet, lineup: str) -> None:
    r = get_rules(rules) if isinstance(rules, str) else rules
    checked = Checked()
    check_deals(r, lineup, 7, range(12), checked)
    assert checked.wrong == []
    assert checked.asked["discard"] >= 24 and checked.asked["take (draw, drew)"] >= 4, checked.asked


def test_the_walks_reach_every_kind_of_decision() -> None:
    """The deals above hold each kind of decision the walk rebuilds (a walk that never
    met a rebuild or an upcard take would prove nothing about them)."""
    checked = Checked()
    check_deals(get_rules("gin"), "simple/greedy", 7, range(12), checked)
    check_deals(KNOCK4, WAITERS, 7, range(4), checked)
    for kind in ["take (upcard, passed)", "take (upcard, took)", "take (draw, took)",
                 "take (draw, drew)", "discard", "knock (continue)", "knock (knock)",
                 "(a rebuild)"]:  # fmt: skip
        assert checked.asked[kind] > 0, (kind, checked.asked)
    assert checked.wrong == []


@pytest.mark.parametrize(
    ("rules", "lineup", "seed", "games"),
    [(KNOCK3, f"{MC}/greedy/{GIN_CHART}", 3, 2), (get_rules("gin"), f"{MC}/simple", 5, 1)],
    ids=["knock-rummy-3p", "gin"],
)
def test_every_decision_of_seeded_games_is_the_engines(
    rules: RuleSet, lineup: str, seed: int, games: int
) -> None:
    """Scores and game memory matter: ``mc`` reads both."""
    checked = Checked()
    hands = sum(check_game(rules, lineup, seed, g, checked) for g in range(games))
    assert hands >= 2 * games
    assert checked.wrong == []


@pytest.mark.parametrize(
    ("rules", "spec", "others"),
    [
        (get_rules("gin"), MC, ["greedy"]),
        (get_rules("oklahoma-gin"), GIN_CHART, ["simple"]),
        (KNOCK3, MC, ["simple", "defensive"]),
    ],
    ids=["gin", "oklahoma-gin", "knock-rummy-3p"],
)
def test_a_player_seated_as_an_agent_plays_the_compiled_strategys_hands(
    rules: RuleSet, spec: str, others: list[str]
) -> None:
    """The same from the views the engine packs itself (docs/AGENTS.md): a Player has
    an agent's three methods, so it sits at a table as one; whole games too (a pool's
    later hands with fewer seats)."""
    seated = [seat_object(player(spec, rules=rules)), *others]
    compiled = [spec, *others]
    deals = [play_deals(rules, x, deals=60, seed=5) for x in (seated, compiled)]
    assert all(np.array_equal(a, b) for a, b in zip(*deals, strict=True))
    games = [play_games(rules, x, games=2, seed=5)[1] for x in (seated, compiled)]
    assert all(np.array_equal(a, b) for a, b in zip(*games, strict=True))


@pytest.mark.parametrize(
    ("lineup", "tamper"),
    [
        (f"{MC}/random", lambda f: f.update(key=f["key"] ^ 1)),
        ("schedule/schedule", lambda f: f.update(turn=f["turn"] + 6)),
        (
            f"{MC}/{MC}",
            lambda f: (
                f.update(pile=f["pile"][1:], stock=f["stock"] + 1) if len(f["pile"]) > 1 else None
            ),
        ),
    ],
    ids=["key", "turn", "pile"],
)
def test_a_wrong_view_field_is_caught(lineup: str, tamper: Tamper) -> None:
    checked = Checked()
    check_deals(get_rules("gin"), lineup, 7, range(4), checked, tamper=tamper)
    assert checked.wrong


def test_a_player_that_forgets_its_memory_is_caught(monkeypatch: pytest.MonkeyPatch) -> None:
    """``mc`` draws each decision's samples from its stream's next counter: a Player
    that started every decision from a fresh scratch would repeat the first ones."""
    decide = Player._decide

    def forgetful(self: Player, what: int, view: View, discard: int) -> int:
        self._hand = None
        return decide(self, what, view, discard)

    monkeypatch.setattr(player_module.Player, "_decide", forgetful)
    checked = Checked()
    check_deals(get_rules("gin"), f"{MC}/{MC}", 7, range(3), checked)
    assert checked.wrong


@pytest.mark.slow
@pytest.mark.parametrize(("rules", "lineup"), DEALS)
def test_many_more_deals(rules: str | RuleSet, lineup: str) -> None:
    r = get_rules(rules) if isinstance(rules, str) else rules
    checked = Checked()
    check_deals(r, lineup.replace(MC, "mc:samples=30,opponents=policy"), 11, range(500), checked)
    assert checked.wrong == []


@pytest.mark.slow
@pytest.mark.parametrize(
    ("rules", "lineup"),
    [
        (KNOCK3, f"mc:samples=30,opponents=policy/defensive/{GIN_CHART}"),
        (KNOCK4, "random/schedule/advice/mc:samples=30,opponents=policy"),
        (get_rules("gin"), "mc:samples=30,opponents=policy/greedy"),
        (get_rules("oklahoma-gin"), "mc:samples=30,opponents=policy/chart"),
        (get_rules("eaai"), "mc:samples=200,opponents=policy/simple"),  # the old defaults
    ],
)
def test_many_more_games(rules: RuleSet, lineup: str) -> None:
    checked = Checked()
    for game in range(10):
        check_game(rules, lineup, 13, game, checked)
    assert checked.wrong == []


# --- refusals ---------------------------------------------------------------------------


@pytest.fixture(scope="module")
def greedy() -> Player:
    return player("greedy", rules="gin", seat=0)


def test_a_player_answers_a_view_or_its_json(greedy: Player) -> None:
    json_view = gin_view()
    assert greedy.take(json_view) == greedy.take(View.from_json(json_view))
    drawn = gin_view(hand=[*json_view["hand"], 30], phase="discard", drawn=30, stock=30)
    card = greedy.discard(drawn)
    assert card in drawn["hand"]
    assert greedy.knock(drawn, card) in ("continue", "knock", "big_gin")
    best = greedy.melds([0, 1, 2, 13, 14, 15, 30])
    assert best.melds == [[0, 1, 2], [13, 14, 15]] and best.unmatched == [30]
    assert best.deadwood == 5
    assert repr(greedy) == "Player('greedy', rules='gin', seat=0)"


@pytest.mark.parametrize(
    ("spec", "words"),
    [
        ("nosuch", "unknown strategy 'nosuch'; choose one of: random, greedy"),
        ("greedy:nosuch=1", "unknown parameter 'nosuch' for strategy greedy"),
        ("python:json:JSONDecoder", "is an agent seat, not a compiled strategy"),
        ("external:cmd=cat", "is an agent seat, not a compiled strategy"),
        (3, "a compiled strategy's spec such as 'greedy'"),
    ],
)
def test_a_spec_that_is_not_a_compiled_strategy_is_refused(spec: Any, words: str) -> None:
    with pytest.raises(ValueError, match="^[^\n]*$") as error:
        player(spec)
    assert words in str(error.value)


def test_fewer_seats_are_a_pool_games_later_hands_only() -> None:
    pool, single = player("greedy", rules=KNOCK3), player("greedy", rules="threshold-knock")
    two = gin_view(taken=[[], []], discarded=[[], []])  # 2 seats of 10 cards, as in a pool
    assert pool.take(two) in (True, False)
    with pytest.raises(PlayerError, match="players=2 but the rules 'threshold-knock' have "):
        single.take(two)
    with pytest.raises(PlayerError, match=r"players=4 but the rules 'knock-rummy' have players=3 "
                       r"\(2..3 in a pool game\)"):  # fmt: skip
        pool.take(gin_view(players=4, taken=[[]] * 4, discarded=[[]] * 4))


def test_a_seat_outside_the_table_is_refused() -> None:
    with pytest.raises(PlayerError, match=r"seat must be a seat of the rules' table, 0..1, got 2"):
        player("greedy", rules="gin", seat=2)


@pytest.mark.parametrize(
    ("decision", "changes", "words"),
    [
        (
            "take",
            {"players": 3, "taken": [[]] * 3, "discarded": [[]] * 3},
            "players=3 but the rules 'gin' have players=2",
        ),
        ("take", {"seat": 1}, "the view is seat 1's; this player is seat 0's"),
        ("take", {"phase": "discard", "drawn": 5}, "take: the view's phase must be upcard or draw"),
        ("discard", {}, "discard: the view's phase must be discard, got 'draw'"),
        ("take", {"hand": [0, 1, 2]}, "the hand holds 3 cards; in phase 'draw' it holds 10"),
        ("take", {"stock": 20}, "stock=20 does not add up"),
        ("take", {"pile": [], "stock": 32}, "the pile is empty"),
        ("take", {"pile": [52]}, "holds JK, a card the rules 'gin' do not deal"),
        (
            "discard",
            {
                "phase": "discard",
                "hand": [0, 1, 2, 13, 14, 15, 26, 27, 40, 41, 30],
                "stock": 30,
                "drawn": 31,
            },
            "drawn=31 must be a card of the hand",
        ),
        ("take", {"pile": [5, 5]}, "pile"),
        ("take", {"pile": [0]}, "card 0 is both in the hand and on the pile"),
        ("take", {"scores": [float("nan"), 0]}, "scores[0] must be a number of game points"),
        ("take", {"key": "xyz"}, "key must be hexadecimal digits"),
        ("take", "a view", "give a rummy.View (or its JSON), got 'a view'"),
    ],  # fmt: skip
)
def test_a_view_that_cannot_be_is_refused_in_one_line(
    greedy: Player, decision: str, changes: Any, words: str
) -> None:
    view = gin_view(**changes) if isinstance(changes, dict) else changes
    with pytest.raises((PlayerError, ViewError)) as error:
        getattr(greedy, decision)(view)
    assert words in str(error.value) and "\n" not in str(error.value)


def test_an_illegal_discard_handed_to_knock_is_refused(greedy: Player) -> None:
    hand = [0, 1, 2, 13, 14, 15, 26, 27, 40, 41, 5]
    drawn = gin_view(hand=hand, pile=[], phase="discard", drawn=5, from_pile=True, stock=31)
    with pytest.raises(PlayerError, match="knock: discard 9 is not a card of the hand; give"):
        greedy.knock(drawn, 9)
    with pytest.raises(PlayerError, match=r"knock: discard 6C \(5\) was just taken from the pile"):
        greedy.knock(drawn, 5)
    with pytest.raises(PlayerError, match="knock: discard True is not a card"):
        greedy.knock(drawn, True)  # type: ignore[arg-type]


def test_a_player_is_named_as_format_seat_writes_its_spec() -> None:
    me = player("greedy:knock_at=7", rules=KNOCK3)
    assert me.name == format_seat(me.strategy, me.params) == "greedy:knock_at=7"
    assert me.rules.players == 3 and me.seat is None
