"""RuleSet: defaults, presets, validation, overrides and the compiled vector (RULES.md)."""

from __future__ import annotations

import dataclasses
import json
from typing import Any

import numpy as np
import pytest

from kernels import layout as L
from sim.rules import (
    PARAMETERS,
    PRESET_DESCRIPTIONS,
    PRESETS,
    RuleError,
    RuleSet,
    get_rules,
    parse_overrides,
)

# Every parameter with its RULES.md default, written out by hand (hand_size None =
# by player count). The order is the order of the dataclass fields.
DEFAULTS: dict[str, Any] = {
    "name": "custom",
    "players": 4,
    "hand_size": None,
    "jokers": 0,
    "joker_value": 15,
    "ace": "low",
    "ace_high_value": 15,
    "discard_taken_card": False,
    "upcard_option": False,
    "knock_limit": None,
    "big_gin_bonus": 0,
    "layoff": False,
    "layoff_play": "optimal",
    "scoring": "knock",
    "rummy_bonus": 25,
    "undercut_penalty": 10,
    "tied_winners": "nearest_left",
    "knocker_tie": "undercut",
    "penalty_to": "winner",
    "gin_bonus": 25,
    "undercut_bonus": 25,
    "undercut_on_tie": True,
    "spade_double": False,
    "stock_exhaustion": "reshuffle",
    "wall": 2,
    "max_rebuilds": 3,
    "game": "hand",
    "dealer": "rotate",
    "game_bonus": 100,
    "box_bonus": 25,
    "shutout": "double",
}

# The RULES.md "Presets" table, row by row: the columns players, knock_limit, layoff,
# scoring, stock_exhaustion, then the "other" column. Anything not listed is a default.
_GIN = {"players": 2, "layoff": True, "scoring": "gin", "stock_exhaustion": "dead_hand"}
EXPECTED_PRESETS: dict[str, dict[str, Any]] = {
    "knock-rummy": {
        "players": 4, "knock_limit": None, "layoff": False, "scoring": "knock",
        "stock_exhaustion": "reshuffle", "game": "pool:100",
    },
    "knock-rummy-turnover": {
        "players": 4, "knock_limit": None, "layoff": False, "scoring": "knock",
        "stock_exhaustion": "turn_over",
    },
    "threshold-knock": {
        "players": 4, "knock_limit": 10, "layoff": False, "scoring": "knock",
        "stock_exhaustion": "reshuffle",
    },
    "no-knock": {
        "players": 4, "knock_limit": 0, "layoff": False, "scoring": "knock",
        "stock_exhaustion": "reshuffle",
    },
    "joker-knock": {
        "players": 4, "knock_limit": None, "layoff": False, "scoring": "knock",
        "stock_exhaustion": "reshuffle", "jokers": 2, "joker_value": 15,
    },
    "gin": {
        **_GIN, "knock_limit": 10, "gin_bonus": 25, "undercut_bonus": 25,
        "upcard_option": True, "big_gin_bonus": 31, "game": "gin:100", "box_bonus": 25,
    },
    "gin-classic": {
        **_GIN, "knock_limit": 10, "gin_bonus": 20, "undercut_bonus": 10,
        "upcard_option": True, "game": "gin:100", "box_bonus": 20, "shutout": "bonus",
    },
    "eaai": {
        **_GIN, "knock_limit": 10, "layoff_play": "greedy", "gin_bonus": 25,
        "undercut_bonus": 25, "upcard_option": True, "game": "gin:100", "box_bonus": 0,
        "game_bonus": 0, "shutout": "none", "dealer": "alternate_scored",
    },
    "oklahoma-gin": {
        **_GIN, "knock_limit": "upcard", "gin_bonus": 25, "undercut_bonus": 25,
        "upcard_option": True, "spade_double": True, "game": "gin:150",
    },
    "straight-gin": {
        **_GIN, "knock_limit": 0, "gin_bonus": 25, "upcard_option": True, "game": "gin:100",
    },
    "hollywood-gin": {
        **_GIN, "knock_limit": 10, "gin_bonus": 25, "undercut_bonus": 25,
        "upcard_option": True, "game": "hollywood:100",
    },
    "round-the-corner-gin": {
        **_GIN, "knock_limit": 10, "gin_bonus": 20, "undercut_bonus": 20,
        "upcard_option": True, "ace": "around", "ace_high_value": 15, "box_bonus": 20,
        "game": "gin:125",
    },
}  # fmt: skip


def test_fields_and_defaults() -> None:
    assert PARAMETERS == tuple(DEFAULTS)
    rules = RuleSet()
    assert {name: getattr(rules, name) for name in PARAMETERS} == DEFAULTS
    assert rules.cards_per_hand == 7


@pytest.mark.parametrize(("players", "cards"), [(2, 10), (3, 7), (4, 7), (5, 6), (6, 6)])
def test_hand_size_by_player_count(players: int, cards: int) -> None:
    """RULES.md: 2 -> 10, 3-4 -> 7, 5-6 -> 6 unless set."""
    assert RuleSet(players=players).cards_per_hand == cards
    assert RuleSet(players=players, hand_size=5).cards_per_hand == 5


def test_frozen_and_hashable() -> None:
    rules = RuleSet()
    with pytest.raises(dataclasses.FrozenInstanceError):
        rules.players = 3  # type: ignore[misc]
    assert hash(rules) == hash(RuleSet())
    assert len({PRESETS["gin"], get_rules("gin")}) == 1


def test_preset_names() -> None:
    assert list(PRESETS) == list(EXPECTED_PRESETS)
    assert set(PRESET_DESCRIPTIONS) == set(PRESETS)
    for name, description in PRESET_DESCRIPTIONS.items():
        assert description and "\n" not in description, name


@pytest.mark.parametrize("name", list(EXPECTED_PRESETS))
def test_preset_matches_table(name: str) -> None:
    expected = {**DEFAULTS, "name": name, **EXPECTED_PRESETS[name]}
    rules = PRESETS[name]
    assert {field: getattr(rules, field) for field in PARAMETERS} == expected


def test_numeric_types_are_normalised() -> None:
    rules = RuleSet(players=np.int64(3), knock_limit=np.int32(7))  # type: ignore[arg-type]
    assert type(rules.players) is int and type(rules.knock_limit) is int
    assert rules == RuleSet(players=3, knock_limit=7)


@pytest.mark.parametrize(
    ("game", "normalised"),
    [
        ("hand", "hand"),
        ("hands:10", "hands:10"),
        ("match:200", "match:200"),
        ("pool", "pool:100"),
        ("pool:50", "pool:50"),
        ("POOL", "pool:100"),
    ],
)
def test_game_normalised_knock(game: str, normalised: str) -> None:
    assert RuleSet(game=game).game == normalised


@pytest.mark.parametrize(
    ("game", "normalised", "mode"),
    [
        ("gin", "gin:100", ("gin", 100)),
        ("gin:125", "gin:125", ("gin", 125)),
        ("hollywood", "hollywood:100", ("hollywood", 100)),
        ("hands:3", "hands:3", ("hands", 3)),
    ],
)
def test_game_normalised_gin(game: str, normalised: str, mode: tuple[str, int]) -> None:
    rules = get_rules("gin", game=game)
    assert rules.game == normalised
    assert rules.game_mode == mode


# --- rejections: RULES.md's last paragraph, then the bounds of each parameter ----------

REJECTED: list[tuple[dict[str, Any], str]] = [
    # an unknown value
    ({"ace": "middle"}, "ace='middle' is not allowed; choose one of: low, high_or_low, around"),
    ({"scoring": "bridge"}, "scoring='bridge' is not allowed; choose one of: knock, gin"),
    ({"layoff_play": "lazy"}, "layoff_play='lazy' is not allowed; choose one of: optimal, greedy"),
    ({"tied_winners": "x"}, "tied_winners='x' is not allowed; choose one of: nearest_left, split"),
    ({"knocker_tie": "x"}, "knocker_tie='x' is not allowed; choose one of: undercut, neutral"),
    ({"penalty_to": "x"}, "penalty_to='x' is not allowed; choose one of: winner, each_lower"),
    (
        {"stock_exhaustion": "x"},
        "stock_exhaustion='x' is not allowed; choose one of: reshuffle, turn_over, dead_hand",
    ),
    (
        {"dealer": "x"},
        "dealer='x' is not allowed; choose one of: rotate, winner, loser, alternate_scored",
    ),
    ({"shutout": "x"}, "shutout='x' is not allowed; choose one of: double, bonus, none"),
    ({"game": "chess"}, "game='chess' is not allowed; choose one of: hand, hands:N, match:T"),
    ({"game": "hands"}, "game='hands' needs a number"),
    ({"game": "match:0"}, "game='match:0' is not allowed"),
    ({"game": "pool:x"}, "game='pool:x' is not allowed"),
    ({"game": "hand:3"}, "game='hand:3' is not allowed"),
    # players outside 2..6
    ({"players": 1}, "players=1 is not allowed; choose an integer 2..6"),
    ({"players": 7}, "players=7 is not allowed; choose an integer 2..6"),
    ({"players": True}, "players=True is not allowed"),
    ({"players": "4"}, "players='4' is not allowed"),
    # too few cards to deal
    ({"players": 6, "hand_size": 9}, "hand_size=9 is too large for players=6"),
    ({"players": 6, "hand_size": 10, "jokers": 2}, "hand_size=10 is too large for players=6"),
    # a stock not above the wall
    (
        {"players": 2, "stock_exhaustion": "dead_hand", "wall": 31},
        "wall=31 is too large: stock_exhaustion='dead_hand' needs a stock above the wall",
    ),
    (  # 5 x 10 + 1 upcard leave a stock of 1, not above the default wall of 2
        {"players": 5, "hand_size": 10, "stock_exhaustion": "dead_hand"},
        "wall=2 is too large: stock_exhaustion='dead_hand' needs a stock above the wall, "
        "and players=5 with hand_size=10 leave a stock of 1; choose wall <= 0",
    ),
    # Gin scoring or the upcard option with more than two players
    ({"scoring": "gin", "players": 4}, "scoring='gin' needs players=2, got players=4"),
    ({"upcard_option": True, "players": 3}, "upcard_option=True needs players=2, got players=3"),
    # lay-offs with jokers; knock_limit "upcard" with jokers
    ({"jokers": 2, "layoff": True}, "layoff=True is not supported with jokers=2"),
    (
        {"jokers": 2, "knock_limit": "upcard"},
        "knock_limit='upcard' is not supported with jokers=2",
    ),
    # jokers not 0 or 2
    ({"jokers": 1}, "jokers=1 is not allowed; choose one of: 0, 2"),
    ({"jokers": 4}, "jokers=4 is not allowed; choose one of: 0, 2"),
    # hand_size outside 1..10
    ({"hand_size": 0}, "hand_size=0 is not allowed; choose an integer 1..10"),
    ({"hand_size": 11, "players": 2}, "hand_size=11 is not allowed; choose an integer 1..10"),
    # knock_limit
    (
        {"knock_limit": -1},
        "knock_limit=-1 is not allowed; choose none, upcard or an integer 0..1000",
    ),
    ({"knock_limit": "none"}, "knock_limit='none' is not allowed"),
    ({"knock_limit": 1.5}, "knock_limit=1.5 is not allowed"),
    # negative bonuses and values, bounds
    ({"rummy_bonus": -1}, "rummy_bonus=-1 is not allowed; choose an integer 0..1000"),
    ({"undercut_penalty": -1}, "undercut_penalty=-1 is not allowed"),
    ({"big_gin_bonus": -31}, "big_gin_bonus=-31 is not allowed"),
    ({"gin_bonus": -1}, "gin_bonus=-1 is not allowed"),
    ({"undercut_bonus": -1}, "undercut_bonus=-1 is not allowed"),
    ({"game_bonus": -1}, "game_bonus=-1 is not allowed"),
    ({"box_bonus": -1}, "box_bonus=-1 is not allowed"),
    ({"joker_value": -1}, "joker_value=-1 is not allowed; choose an integer 0..100"),
    ({"joker_value": 101}, "joker_value=101 is not allowed; choose an integer 0..100"),
    ({"ace_high_value": 101}, "ace_high_value=101 is not allowed; choose an integer 0..100"),
    ({"wall": -1}, "wall=-1 is not allowed; choose an integer 0..52"),
    ({"max_rebuilds": -1}, "max_rebuilds=-1 is not allowed; choose an integer 0..100"),
    # upper bounds: every sum the engine makes stays exact (the values once wrapped around)
    (
        {"gin_bonus": 2**62},
        "gin_bonus=4611686018427387904 is not allowed; choose an integer 0..1000",
    ),
    ({"undercut_bonus": 2**63 - 1}, "undercut_bonus=9223372036854775807 is not allowed"),
    ({"big_gin_bonus": 1001}, "big_gin_bonus=1001 is not allowed; choose an integer 0..1000"),
    ({"box_bonus": 10**20}, "box_bonus=100000000000000000000 is not allowed"),
    ({"knock_limit": 1001}, "knock_limit=1001 is not allowed; choose none, upcard or an integer"),
    ({"wall": 53}, "wall=53 is not allowed; choose an integer 0..52"),
    ({"max_rebuilds": 101}, "max_rebuilds=101 is not allowed; choose an integer 0..100"),
    (
        {"game": "pool:1000001"},
        "game='pool:1000001' is not allowed; pool:N needs a whole number N 1..1000000",
    ),
    (
        {"game": "hands:1001"},
        "game='hands:1001' is not allowed; hands:N needs a whole number N 1..1000",
    ),
    ({"layoff": 1}, "layoff=1 is not allowed; choose true or false"),
    ({"name": 3}, "name=3 is not allowed"),
    # Gin scoring only / game modes that need a scoring
    ({"spade_double": True}, "spade_double=True needs scoring='gin', got scoring='knock'"),
    ({"game": "gin:100"}, "game='gin:100' needs scoring='gin', got scoring='knock'"),
    ({"game": "hollywood"}, "game='hollywood:100' needs scoring='gin'"),
]


@pytest.mark.parametrize(("params", "message"), REJECTED, ids=[m for _, m in REJECTED])
def test_rejected(params: dict[str, Any], message: str) -> None:
    with pytest.raises(RuleError) as info:
        RuleSet(**params)
    assert str(info.value).startswith(message)
    assert "\n" not in str(info.value)


def test_pool_needs_knock_scoring() -> None:
    with pytest.raises(RuleError, match="game='pool:100' needs scoring='knock'"):
        get_rules("gin", game="pool")


def test_rule_error_is_value_error() -> None:
    assert issubclass(RuleError, ValueError)


def test_deal_limits_accepted() -> None:
    """players*hand_size + 1 upcard must leave >= 1 stock card (> wall under dead_hand)."""
    assert RuleSet(players=6, hand_size=8).cards_per_hand == 8  # 48 + 1, stock 3
    assert RuleSet(players=2, stock_exhaustion="dead_hand", wall=30).wall == 30  # stock 31
    assert RuleSet(players=5, hand_size=10, jokers=0, stock_exhaustion="turn_over").players == 5
    assert RuleSet(players=2, hand_size=1, knock_limit=0).cards_per_hand == 1


def test_oklahoma_and_jokers_combinations_allowed_without_conflict() -> None:
    assert RuleSet(jokers=2, knock_limit=10).jokers == 2
    assert RuleSet(players=2, knock_limit="upcard").knock_limit == "upcard"


# --- get_rules ---------------------------------------------------------------------


def test_get_rules_presets_and_overrides() -> None:
    assert get_rules() is PRESETS["gin"]
    assert get_rules("eaai") is PRESETS["eaai"]
    rules = get_rules("gin", knock_limit=7, gin_bonus=20)
    assert (rules.knock_limit, rules.gin_bonus, rules.name) == (7, 20, "gin")
    assert get_rules(rules, knock_limit=5).gin_bonus == 20
    assert get_rules("gin", name="house").name == "house"


def test_get_rules_hand_size_follows_players() -> None:
    assert get_rules("knock-rummy", players=2).cards_per_hand == 10
    assert get_rules("knock-rummy", players=6).cards_per_hand == 6
    fixed = get_rules("knock-rummy", hand_size=7)
    assert get_rules(fixed, players=2).cards_per_hand == 7


def test_get_rules_unknown_preset_lists_presets() -> None:
    with pytest.raises(RuleError) as info:
        get_rules("gin-rummy")
    message = str(info.value)
    assert message.startswith("unknown preset 'gin-rummy'; choose one of: knock-rummy,")
    assert all(name in message for name in PRESETS)


def test_get_rules_unknown_parameter_lists_parameters() -> None:
    with pytest.raises(RuleError) as info:
        get_rules("gin", knock_limt=7)
    message = str(info.value)
    assert message.startswith("unknown rule parameter 'knock_limt'; choose from: name, players,")
    assert all(name in message for name in PARAMETERS)


def test_get_rules_validates_the_result() -> None:
    with pytest.raises(RuleError, match="scoring='gin' needs players=2, got players=3"):
        get_rules("gin", players=3)


# --- compile ---------------------------------------------------------------------------


def test_compile_gin() -> None:
    vector = PRESETS["gin"].compile()
    assert vector.dtype == np.int64 and vector.shape == (L.N_RULE_FIELDS,)
    expected = {
        L.R_PLAYERS: 2, L.R_HAND_SIZE: 10, L.R_JOKERS: 0, L.R_JOKER_VALUE: 15,
        L.R_ACE: L.ACE_LOW, L.R_ACE_HIGH_VALUE: 15, L.R_DISCARD_TAKEN_CARD: 0,
        L.R_UPCARD_OPTION: 1, L.R_KNOCK_LIMIT: 10, L.R_BIG_GIN_BONUS: 31, L.R_LAYOFF: 1,
        L.R_LAYOFF_PLAY: L.LAYOFF_OPTIMAL, L.R_SCORING: L.SCORING_GIN, L.R_RUMMY_BONUS: 25,
        L.R_UNDERCUT_PENALTY: 10, L.R_TIED_WINNERS: L.TIED_NEAREST_LEFT,
        L.R_KNOCKER_TIE: L.KNOCKER_TIE_UNDERCUT, L.R_PENALTY_TO: L.PENALTY_TO_WINNER,
        L.R_GIN_BONUS: 25, L.R_UNDERCUT_BONUS: 25, L.R_UNDERCUT_ON_TIE: 1,
        L.R_SPADE_DOUBLE: 0, L.R_STOCK_EXHAUSTION: L.EXHAUST_DEAD_HAND, L.R_WALL: 2,
        L.R_MAX_REBUILDS: 3, L.R_GAME: L.GAME_GIN, L.R_GAME_TARGET: 100,
        L.R_DEALER: L.DEALER_ROTATE, L.R_GAME_BONUS: 100, L.R_BOX_BONUS: 25,
        L.R_SHUTOUT: L.SHUTOUT_DOUBLE,
    }  # fmt: skip
    assert len(expected) == L.N_RULE_FIELDS
    assert {position: int(vector[position]) for position in expected} == expected


def test_compile_knock_rummy_and_codes() -> None:
    vector = PRESETS["knock-rummy"].compile()
    assert vector[L.R_KNOCK_LIMIT] == L.KNOCK_ANY
    assert vector[L.R_HAND_SIZE] == 7
    assert vector[L.R_SCORING] == L.SCORING_KNOCK
    assert vector[L.R_STOCK_EXHAUSTION] == L.EXHAUST_RESHUFFLE
    assert (vector[L.R_GAME], vector[L.R_GAME_TARGET]) == (L.GAME_POOL, 100)
    assert PRESETS["knock-rummy-turnover"].compile()[L.R_STOCK_EXHAUSTION] == L.EXHAUST_TURN_OVER
    assert PRESETS["knock-rummy-turnover"].compile()[L.R_GAME] == L.GAME_HAND
    assert PRESETS["knock-rummy-turnover"].compile()[L.R_GAME_TARGET] == 0
    assert PRESETS["joker-knock"].compile()[L.R_JOKERS] == 2
    assert PRESETS["oklahoma-gin"].compile()[L.R_KNOCK_LIMIT] == L.KNOCK_UPCARD
    assert PRESETS["oklahoma-gin"].compile()[L.R_SPADE_DOUBLE] == 1
    assert PRESETS["oklahoma-gin"].compile()[L.R_GAME_TARGET] == 150
    assert PRESETS["straight-gin"].compile()[L.R_KNOCK_LIMIT] == 0
    assert PRESETS["round-the-corner-gin"].compile()[L.R_ACE] == L.ACE_AROUND
    assert PRESETS["hollywood-gin"].compile()[L.R_GAME] == L.GAME_HOLLYWOOD
    eaai = PRESETS["eaai"].compile()
    assert eaai[L.R_LAYOFF_PLAY] == L.LAYOFF_GREEDY
    assert eaai[L.R_DEALER] == L.DEALER_ALTERNATE_SCORED
    assert eaai[L.R_SHUTOUT] == L.SHUTOUT_NONE
    assert PRESETS["gin-classic"].compile()[L.R_SHUTOUT] == L.SHUTOUT_BONUS


@pytest.mark.parametrize(
    ("params", "position", "code"),
    [
        ({"ace": "high_or_low"}, L.R_ACE, L.ACE_HIGH_OR_LOW),
        ({"tied_winners": "split"}, L.R_TIED_WINNERS, L.TIED_SPLIT),
        ({"knocker_tie": "neutral"}, L.R_KNOCKER_TIE, L.KNOCKER_TIE_NEUTRAL),
        ({"penalty_to": "each_lower"}, L.R_PENALTY_TO, L.PENALTY_TO_EACH_LOWER),
        ({"dealer": "winner"}, L.R_DEALER, L.DEALER_WINNER),
        ({"dealer": "loser"}, L.R_DEALER, L.DEALER_LOSER),
        ({"discard_taken_card": True}, L.R_DISCARD_TAKEN_CARD, 1),
        ({"undercut_on_tie": False}, L.R_UNDERCUT_ON_TIE, 0),
        ({"game": "hands:20"}, L.R_GAME, L.GAME_HANDS),
        ({"game": "hands:20"}, L.R_GAME_TARGET, 20),
        ({"game": "match:200"}, L.R_GAME, L.GAME_MATCH),
        ({"game": "match:200"}, L.R_GAME_TARGET, 200),
        ({"players": 6}, L.R_HAND_SIZE, 6),
        ({"players": 6}, L.R_PLAYERS, 6),
        ({"max_rebuilds": 0}, L.R_MAX_REBUILDS, 0),
    ],
)
def test_compile_codes(params: dict[str, Any], position: int, code: int) -> None:
    assert RuleSet(**params).compile()[position] == code


def test_compile_returns_a_fresh_array() -> None:
    rules = PRESETS["gin"]
    vector = rules.compile()
    vector[:] = -99
    assert rules.compile()[L.R_PLAYERS] == 2


# --- to_dict / from_dict -------------------------------------------------------------


@pytest.mark.parametrize("name", list(PRESETS))
def test_dict_round_trip(name: str) -> None:
    rules = PRESETS[name]
    data = rules.to_dict()
    assert list(data) == list(PARAMETERS)
    assert data["hand_size"] == rules.cards_per_hand
    assert json.loads(json.dumps(data)) == data
    assert RuleSet.from_dict(data) == rules
    assert RuleSet.from_dict(json.loads(json.dumps(data))) == rules


def test_from_dict_details() -> None:
    assert RuleSet.from_dict({"knock_limit": "none"}).knock_limit is None
    assert RuleSet.from_dict({"hand_size": "auto", "players": 2}).cards_per_hand == 10
    # A hand size equal to the automatic one (default players=4 -> 7) is stored as None.
    assert RuleSet.from_dict({"hand_size": 7}) == RuleSet()
    assert RuleSet.from_dict({"hand_size": 7, "players": 2}).hand_size == 7
    explicit = RuleSet.from_dict({"hand_size": 5})
    assert explicit.hand_size == 5
    assert RuleSet.from_dict(explicit.to_dict()) == explicit
    with pytest.raises(RuleError, match="unknown rule parameter 'colour'"):
        RuleSet.from_dict({"colour": "red"})


# --- parse_overrides -------------------------------------------------------------------


def test_parse_overrides_types() -> None:
    items = [
        "knock_limit=7",
        "layoff=on",
        "upcard_option=No",
        "discard_taken_card=1",
        "spade_double=FALSE",
        "undercut_on_tie=yes",
        "players=3",
        "hand_size=auto",
        "ace=around",
        "game=gin:150",
        "name=house rules",
        "gin_bonus = 20",
    ]
    assert parse_overrides(items) == {
        "knock_limit": 7,
        "layoff": True,
        "upcard_option": False,
        "discard_taken_card": True,
        "spade_double": False,
        "undercut_on_tie": True,
        "players": 3,
        "hand_size": None,
        "ace": "around",
        "game": "gin:150",
        "name": "house rules",
        "gin_bonus": 20,
    }
    assert parse_overrides([]) == {}


@pytest.mark.parametrize(
    ("item", "value"),
    [
        ("knock_limit=none", None),
        ("knock_limit=NONE", None),
        ("knock_limit=upcard", "upcard"),
        ("knock_limit=0", 0),
        ("knock-limit=5", 5),
        ("hand_size=6", 6),
    ],
)
def test_parse_overrides_special_values(item: str, value: object) -> None:
    (parsed,) = parse_overrides([item]).values()
    assert parsed == value


@pytest.mark.parametrize(
    ("item", "message"),
    [
        ("knock_limit", "bad rule 'knock_limit': write key=value"),
        ("=7", "bad rule '=7': write key=value"),
        ("players=", "bad rule 'players=': write key=value"),
        ("colour=red", "bad rule 'colour=red': unknown parameter 'colour'; choose from: name,"),
        ("players=four", "bad rule 'players=four': 'four' is not a whole number"),
        ("layoff=maybe", "bad rule 'layoff=maybe': layoff takes one of: true, yes, on, 1, false"),
        ("knock_limit=ten", "bad rule 'knock_limit=ten': knock_limit takes none, upcard or"),
        ("hand_size=big", "bad rule 'hand_size=big': 'big' is not a whole number"),
        ("gin_bonus=2.5", "bad rule 'gin_bonus=2.5': '2.5' is not a whole number"),
    ],
)
def test_parse_overrides_errors(item: str, message: str) -> None:
    with pytest.raises(RuleError) as info:
        parse_overrides([item])
    assert str(info.value).startswith(message)


def test_parse_overrides_repeated_key() -> None:
    with pytest.raises(RuleError, match="bad rule 'knock_limit=5': knock_limit is given more"):
        parse_overrides(["knock_limit=7", "knock_limit=5"])


def test_overrides_feed_get_rules() -> None:
    rules = get_rules("knock-rummy", **parse_overrides(["players=2", "knock_limit=10"]))
    assert (rules.players, rules.cards_per_hand, rules.knock_limit) == (2, 10, 10)
    with pytest.raises(RuleError, match="ace='middle' is not allowed"):
        get_rules("gin", **parse_overrides(["ace=middle"]))
