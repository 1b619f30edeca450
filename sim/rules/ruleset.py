"""The rule set: every house-rule choice of ``docs/RULES.md`` as one frozen, validated value.

``docs/RULES.md`` is the rule book: each parameter below carries its name and default
(its "Presets" table is ``sim/rules/presets.py``). A :class:`RuleSet` is checked when it is built
(``__post_init__``), so a nonsense combination fails before anything runs, with a
one-line :class:`RuleError` that names the parameter, the bad value and what is allowed.
:meth:`RuleSet.compile` turns it into the ``int64`` vector the kernels read (positions
and codes in ``kernels/layout.py``): one compiled kernel serves every variant.

Published rule books disagree on many points, which is why every disputed point is a
parameter rather than a fixed choice.

Not modelled
------------
- Lay-offs with jokers, and ``knock_limit="upcard"`` with jokers: rejected, as
  RULES.md says.
- Gin-style games (``gin:T``, ``hollywood:T``) under Knock scoring, and pool games
  under Gin scoring: rejected here (boxes are won by a knocker or a defender, and Gin
  scoring records no losses for a pool to count).
- Re-entering a pool after dropping out ("pays to re-enter" in one source): a
  player out of a pool stays out.
- A house ban on knocking on the first turn: a knock is legal on any turn.
- Passing the deal after a dead hand (one Gin source): the same dealer redeals.
- Cutting the deck and choosing the first dealer "by any fair method": the first
  dealer is drawn from the game's seeded random stream.
- Misplays and their penalties (forgetting to knock, a knock card shown face up):
  players never err.
- Melds laid on the table during play and related games (Tunk/Tonk, Contract
  Rummy): only the showdown of RULES.md exists.
"""

from __future__ import annotations

import dataclasses
import numbers
from dataclasses import dataclass
from typing import Any, Literal

import numpy as np
import numpy.typing as npt

from kernels import layout as L

__all__ = ["PARAMETERS", "RuleError", "RuleSet", "allowed_values"]


class RuleError(ValueError):
    """A rule set, preset name or override that RULES.md does not allow."""


# Allowed values of every string parameter, in the order messages list them, with the
# kernel code each compiles to (kernels/layout.py).
_CHOICES: dict[str, dict[str, int]] = {
    "ace": {"low": L.ACE_LOW, "high_or_low": L.ACE_HIGH_OR_LOW, "around": L.ACE_AROUND},
    "layoff_play": {"optimal": L.LAYOFF_OPTIMAL, "greedy": L.LAYOFF_GREEDY},
    "scoring": {"knock": L.SCORING_KNOCK, "gin": L.SCORING_GIN},
    "tied_winners": {"nearest_left": L.TIED_NEAREST_LEFT, "split": L.TIED_SPLIT},
    "knocker_tie": {"undercut": L.KNOCKER_TIE_UNDERCUT, "neutral": L.KNOCKER_TIE_NEUTRAL},
    "penalty_to": {"winner": L.PENALTY_TO_WINNER, "each_lower": L.PENALTY_TO_EACH_LOWER},
    "stock_exhaustion": {
        "reshuffle": L.EXHAUST_RESHUFFLE,
        "turn_over": L.EXHAUST_TURN_OVER,
        "dead_hand": L.EXHAUST_DEAD_HAND,
    },
    "dealer": {
        "rotate": L.DEALER_ROTATE,
        "winner": L.DEALER_WINNER,
        "loser": L.DEALER_LOSER,
        "alternate_scored": L.DEALER_ALTERNATE_SCORED,
    },
    "shutout": {"double": L.SHUTOUT_DOUBLE, "bonus": L.SHUTOUT_BONUS, "none": L.SHUTOUT_NONE},
}

BOOL_FIELDS = (
    "discard_taken_card",
    "upcard_option",
    "layoff",
    "undercut_on_tie",
    "spade_double",
)

# Integer parameters with their inclusive bounds. Card values stay within 0-100; bonuses
# and penalties within 0-MAX_BONUS points, ten times the largest any rule book uses.
# The upper bounds keep every sum the engine makes far inside int64: a hand pays at
# most 5 x (8 cards x 100 + MAX_BONUS) points, in units of 1/60 point, and a game adds
# up at most MAX_GAME_HANDS hands plus its bonuses (about 2**31 units in all), so even
# squared per-game scores (the summaries' variances) stay below 2**63.
MAX_BONUS = 1_000
MAX_TARGET = 1_000_000  # match:T, pool:L, gin:T, hollywood:T
MAX_HANDS_TARGET = 1_000  # hands:N; the engine stops any game after 1,000 hands dealt
MAX_KNOCK_LIMIT = 1_000  # above the deadwood of any hand (10 cards x 100): "none"
INT_BOUNDS: dict[str, tuple[int, int]] = {
    "players": (2, 6),
    "joker_value": (0, 100),
    "ace_high_value": (0, 100),
    "big_gin_bonus": (0, MAX_BONUS),
    "rummy_bonus": (0, MAX_BONUS),
    "undercut_penalty": (0, MAX_BONUS),
    "gin_bonus": (0, MAX_BONUS),
    "undercut_bonus": (0, MAX_BONUS),
    "wall": (0, 52),
    "max_rebuilds": (0, 100),
    "game_bonus": (0, MAX_BONUS),
    "box_bonus": (0, MAX_BONUS),
}

_HAND_SIZE_BOUNDS = (1, 10)
_JOKER_COUNTS = (0, 2)

# Game modes (RULES.md "A game of many hands"): code, and the default target when the
# mode is written without one (None: a target is required).
_GAME_MODES: dict[str, tuple[int, int | None]] = {
    "hand": (L.GAME_HAND, None),
    "hands": (L.GAME_HANDS, None),
    "match": (L.GAME_MATCH, None),
    "pool": (L.GAME_POOL, 100),
    "gin": (L.GAME_GIN, 100),
    "hollywood": (L.GAME_HOLLYWOOD, 100),
}
_GAME_FORMS = (
    f"hand, hands:N, match:T, pool[:L], gin[:T], hollywood[:T] "
    f"(N 1..{MAX_HANDS_TARGET}; T, L 1..{MAX_TARGET})"
)
# Which scoring each game mode needs: Gin-style games count boxes won by a knocker or a
# defender (Gin terms), and a pool counts losses, which Gin scoring never records.
_GAME_SCORING = {"gin": "gin", "hollywood": "gin", "pool": "knock"}


def _auto_hand_size(players: int) -> int:
    """RULES.md "Seating, deal and turns": 2 -> 10, 3-4 -> 7, 5-6 -> 6."""
    if players == 2:
        return 10
    return 7 if players <= 4 else 6


def choose(values: Any) -> str:
    return ", ".join(str(value) for value in values)


def _parse_game(game: object) -> tuple[str, int]:
    """Split a ``game`` string into (mode, target); target 0 for ``hand``."""
    if not isinstance(game, str):
        raise RuleError(f"game={game!r} is not allowed; choose one of: {_GAME_FORMS}")
    mode, sep, target_text = game.strip().lower().partition(":")
    if mode not in _GAME_MODES:
        raise RuleError(f"game={game!r} is not allowed; choose one of: {_GAME_FORMS}")
    default = _GAME_MODES[mode][1]
    if mode == "hand":
        if sep:
            raise RuleError(f"game={game!r} is not allowed; 'hand' takes no number")
        return mode, 0
    if not sep:
        if default is None:
            raise RuleError(f"game={game!r} needs a number: write {mode}:N with N >= 1")
        return mode, default
    high = MAX_HANDS_TARGET if mode == "hands" else MAX_TARGET
    try:
        target = int(target_text)
    except ValueError:
        target = 0
    if not 1 <= target <= high:
        raise RuleError(f"game={game!r} is not allowed; {mode}:N needs a whole number N 1..{high}")
    return mode, target


@dataclass(frozen=True, kw_only=True, slots=True)
class RuleSet:
    """One complete set of rules; every field is a parameter of ``docs/RULES.md``.

    Build one with keyword arguments, from a preset with :func:`get_rules`, or with
    ``dataclasses.replace``; an invalid combination raises :class:`RuleError`.

    Attributes
    ----------
    name : str
        A label for reports ("custom" unless built from a preset).
    players : int
        Seats, 2..6 ("Seating, deal and turns").
    hand_size : int or None
        Cards dealt to each seat, 1..10; None: by player count (2 -> 10, 3-4 -> 7,
        5-6 -> 6), resolved by :attr:`cards_per_hand`.
    jokers : int
        0 or 2 jokers in the deck ("Cards").
    joker_value : int
        Deadwood value of an unmelded joker (default 15).
    ace : {"low", "high_or_low", "around"}
        Where an ace may sit in a run ("Melds and deadwood").
    ace_high_value : int
        Value of an unmelded ace under "high_or_low" and "around" (default 15).
    discard_taken_card : bool
        Whether the card just taken from the discard pile may be discarded (or laid
        away) the same turn.
    upcard_option : bool
        The first-turn upcard offer to non-dealer then dealer (two players only).
    knock_limit : int, "upcard" or None
        Most deadwood a knocker may keep: None = "none" (any), a number >= 0 (0 = only
        gin/rummy), or "upcard" = the first upcard's value (Oklahoma).
    big_gin_bonus : int
        Bonus for going out with all ``hand_size + 1`` cards melded; 0 = not allowed.
    layoff : bool
        Whether defenders lay off onto the knocker's melds ("Showdown").
    layoff_play : {"optimal", "greedy"}
        How a defender chooses its lay-offs.
    scoring : {"knock", "gin"}
        Knock Rummy transfers, or Gin scoring (two players only).
    rummy_bonus : int
        Knock scoring: bonus each player pays a rummy knocker (default 25).
    undercut_penalty : int
        Knock scoring: what an undercut knocker pays on top (default 10).
    tied_winners : {"nearest_left", "split"}
        Knock scoring: who wins among tied non-knockers.
    knocker_tie : {"undercut", "neutral"}
        Knock scoring: a knocker tied for lowest is undercut, or neither pays nor
        collects.
    penalty_to : {"winner", "each_lower"}
        Knock scoring: who receives the undercut penalty.
    gin_bonus : int
        Gin scoring: bonus for gin (default 25).
    undercut_bonus : int
        Gin scoring: bonus for an undercut (default 25).
    undercut_on_tie : bool
        Gin scoring: a tie is an undercut (True) or scores nothing (False).
    spade_double : bool
        Gin scoring: a hand whose first upcard is a spade scores double (Oklahoma).
    stock_exhaustion : {"reshuffle", "turn_over", "dead_hand"}
        What happens when the stock runs out.
    wall : int
        Under "dead_hand": cards left in the stock that are never drawn (default 2).
    max_rebuilds : int
        Under "reshuffle"/"turn_over": stock rebuilds before the hand ends in an
        ``exhausted`` showdown (default 3).
    game : str
        "hand", "hands:N", "match:T", "pool:L", "gin:T" or "hollywood:T" ("A game
        of many hands"); "pool", "gin" and "hollywood" alone mean target 100, and
        the stored value is always the explicit form.
    dealer : {"rotate", "winner", "loser", "alternate_scored"}
        Who deals the next hand of a game.
    game_bonus : int
        Gin games: bonus to the game's winner (default 100).
    box_bonus : int
        Gin games: bonus per hand won (default 25).
    shutout : {"double", "bonus", "none"}
        Gin games: what doubles when the loser won no hand.
    """

    name: str = "custom"
    players: int = 4
    hand_size: int | None = None
    jokers: int = 0
    joker_value: int = 15
    ace: Literal["low", "high_or_low", "around"] = "low"
    ace_high_value: int = 15
    discard_taken_card: bool = False
    upcard_option: bool = False
    knock_limit: int | Literal["upcard"] | None = None
    big_gin_bonus: int = 0
    layoff: bool = False
    layoff_play: Literal["optimal", "greedy"] = "optimal"
    scoring: Literal["knock", "gin"] = "knock"
    rummy_bonus: int = 25
    undercut_penalty: int = 10
    tied_winners: Literal["nearest_left", "split"] = "nearest_left"
    knocker_tie: Literal["undercut", "neutral"] = "undercut"
    penalty_to: Literal["winner", "each_lower"] = "winner"
    gin_bonus: int = 25
    undercut_bonus: int = 25
    undercut_on_tie: bool = True
    spade_double: bool = False
    stock_exhaustion: Literal["reshuffle", "turn_over", "dead_hand"] = "reshuffle"
    wall: int = 2
    max_rebuilds: int = 3
    game: str = "hand"
    dealer: Literal["rotate", "winner", "loser", "alternate_scored"] = "rotate"
    game_bonus: int = 100
    box_bonus: int = 25
    shutout: Literal["double", "bonus", "none"] = "double"

    # --- validation ----------------------------------------------------------------

    def _set(self, field: str, value: object) -> None:
        # Normalising a field of a frozen dataclass has to go around its __setattr__.
        object.__setattr__(self, field, value)

    def _check_int(self, field: str, low: int, high: int) -> int:
        value = getattr(self, field)
        # bool is an int subclass, but True as a player count is a mistake, not a 1.
        ok = isinstance(value, numbers.Integral) and not isinstance(value, bool | np.bool_)
        if not ok or not low <= value <= high:
            raise RuleError(f"{field}={value!r} is not allowed; choose an integer {low}..{high}")
        self._set(field, int(value))  # numpy integers become plain ints (hashing, JSON)
        return int(value)

    def __post_init__(self) -> None:
        """Check every parameter, then every combination RULES.md calls nonsense."""
        if not isinstance(self.name, str):
            raise RuleError(f"name={self.name!r} is not allowed; choose a string")
        for field, (low, high) in INT_BOUNDS.items():
            self._check_int(field, low, high)
        for field in BOOL_FIELDS:
            value = getattr(self, field)
            if not isinstance(value, bool | np.bool_):
                raise RuleError(f"{field}={value!r} is not allowed; choose true or false")
            self._set(field, bool(value))
        for field, codes in _CHOICES.items():
            value = getattr(self, field)
            if not isinstance(value, str) or value not in codes:
                raise RuleError(f"{field}={value!r} is not allowed; choose one of: {choose(codes)}")
        if self.hand_size is not None:
            self._check_int("hand_size", *_HAND_SIZE_BOUNDS)
        if self.jokers not in _JOKER_COUNTS or isinstance(self.jokers, bool):
            raise RuleError(
                f"jokers={self.jokers!r} is not allowed; choose one of: {choose(_JOKER_COUNTS)}"
            )
        self._set("jokers", int(self.jokers))
        if self.knock_limit is not None and self.knock_limit != "upcard":
            limit = self.knock_limit
            ok = isinstance(limit, numbers.Integral) and not isinstance(limit, bool)
            if not ok or not 0 <= limit <= MAX_KNOCK_LIMIT:
                raise RuleError(
                    f"knock_limit={limit!r} is not allowed; choose none, upcard or an integer "
                    f"0..{MAX_KNOCK_LIMIT}"
                )
            self._set("knock_limit", int(limit))
        mode, target = _parse_game(self.game)
        self._set("game", mode if mode == "hand" else f"{mode}:{target}")
        self._check_combinations(mode)

    def _check_combinations(self, game_mode: str) -> None:
        two_player_only = (
            ("scoring", self.scoring == "gin", "'gin'"),
            ("upcard_option", self.upcard_option, "True"),
        )
        for field, active, shown in two_player_only:
            if active and self.players != 2:
                raise RuleError(f"{field}={shown} needs players=2, got players={self.players}")
        if self.spade_double and self.scoring != "gin":
            raise RuleError(f"spade_double=True needs scoring='gin', got scoring={self.scoring!r}")
        if self.jokers:
            if self.layoff:
                raise RuleError(
                    f"layoff=True is not supported with jokers={self.jokers}; "
                    "choose layoff=False or jokers=0"
                )
            if self.knock_limit == "upcard":
                raise RuleError(
                    f"knock_limit='upcard' is not supported with jokers={self.jokers}; "
                    "choose another knock_limit or jokers=0"
                )
        needed = _GAME_SCORING.get(game_mode)
        if needed is not None and self.scoring != needed:
            raise RuleError(
                f"game={self.game!r} needs scoring={needed!r}, got scoring={self.scoring!r}"
            )
        # The deal: every hand, the first upcard, and a stock to draw from.
        deck = L.N_NATURAL + self.jokers
        stock = deck - self.players * self.cards_per_hand - 1
        if stock < 1:
            raise RuleError(
                f"hand_size={self.cards_per_hand} is too large for players={self.players}: "
                f"{self.players}x{self.cards_per_hand} cards + 1 upcard leave a stock of "
                f"{stock} from a deck of {deck}; choose hand_size <= "
                f"{(deck - 2) // self.players}"
            )
        if self.stock_exhaustion == "dead_hand" and stock <= self.wall:
            raise RuleError(
                f"wall={self.wall} is too large: stock_exhaustion='dead_hand' needs a stock "
                f"above the wall, and players={self.players} with hand_size="
                f"{self.cards_per_hand} leave a stock of {stock}; choose wall <= {stock - 1}"
            )

    # --- derived values ------------------------------------------------------------

    @property
    def cards_per_hand(self) -> int:
        """``hand_size``, or the RULES.md default for ``players`` when it is None."""
        return self.hand_size if self.hand_size is not None else _auto_hand_size(self.players)

    @property
    def game_mode(self) -> tuple[str, int]:
        """``game`` split into (mode, target), e.g. ``("gin", 100)``; target 0 for "hand"."""
        return _parse_game(self.game)

    def compile(self) -> npt.NDArray[np.int64]:
        """Compile to the rule vector the kernels read.

        Returns
        -------
        numpy.ndarray
            ``int64[N_RULE_FIELDS]``, a fresh array: position ``R_*`` of
            ``kernels/layout.py`` holds that parameter as a number or a code
            (``knock_limit`` None -> ``KNOCK_ANY``, "upcard" -> ``KNOCK_UPCARD``;
            ``hand_size`` resolved; booleans 0/1).
        """
        if self.knock_limit is None:
            knock_limit = L.KNOCK_ANY
        elif self.knock_limit == "upcard":
            knock_limit = L.KNOCK_UPCARD
        else:
            knock_limit = self.knock_limit
        game_mode, game_target = self.game_mode
        out = np.zeros(L.N_RULE_FIELDS, dtype=np.int64)
        out[L.R_PLAYERS] = self.players
        out[L.R_HAND_SIZE] = self.cards_per_hand
        out[L.R_JOKERS] = self.jokers
        out[L.R_JOKER_VALUE] = self.joker_value
        out[L.R_ACE] = _CHOICES["ace"][self.ace]
        out[L.R_ACE_HIGH_VALUE] = self.ace_high_value
        out[L.R_DISCARD_TAKEN_CARD] = self.discard_taken_card
        out[L.R_UPCARD_OPTION] = self.upcard_option
        out[L.R_KNOCK_LIMIT] = knock_limit
        out[L.R_BIG_GIN_BONUS] = self.big_gin_bonus
        out[L.R_LAYOFF] = self.layoff
        out[L.R_LAYOFF_PLAY] = _CHOICES["layoff_play"][self.layoff_play]
        out[L.R_SCORING] = _CHOICES["scoring"][self.scoring]
        out[L.R_RUMMY_BONUS] = self.rummy_bonus
        out[L.R_UNDERCUT_PENALTY] = self.undercut_penalty
        out[L.R_TIED_WINNERS] = _CHOICES["tied_winners"][self.tied_winners]
        out[L.R_KNOCKER_TIE] = _CHOICES["knocker_tie"][self.knocker_tie]
        out[L.R_PENALTY_TO] = _CHOICES["penalty_to"][self.penalty_to]
        out[L.R_GIN_BONUS] = self.gin_bonus
        out[L.R_UNDERCUT_BONUS] = self.undercut_bonus
        out[L.R_UNDERCUT_ON_TIE] = self.undercut_on_tie
        out[L.R_SPADE_DOUBLE] = self.spade_double
        out[L.R_STOCK_EXHAUSTION] = _CHOICES["stock_exhaustion"][self.stock_exhaustion]
        out[L.R_WALL] = self.wall
        out[L.R_MAX_REBUILDS] = self.max_rebuilds
        out[L.R_GAME] = _GAME_MODES[game_mode][0]
        out[L.R_GAME_TARGET] = game_target
        out[L.R_DEALER] = _CHOICES["dealer"][self.dealer]
        out[L.R_GAME_BONUS] = self.game_bonus
        out[L.R_BOX_BONUS] = self.box_bonus
        out[L.R_SHUTOUT] = _CHOICES["shutout"][self.shutout]
        return out

    # --- plain-data form -----------------------------------------------------------

    def to_dict(self) -> dict[str, Any]:
        """Return every parameter by name, JSON-ready.

        ``hand_size`` is resolved to a number; ``knock_limit`` None stays None (JSON
        null). :meth:`from_dict` reads it back.
        """
        data = {field.name: getattr(self, field.name) for field in dataclasses.fields(self)}
        data["hand_size"] = self.cards_per_hand
        return data

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> RuleSet:
        """Rebuild a rule set from :meth:`to_dict` output (or any subset of parameters).

        A ``hand_size`` equal to the automatic size for ``players`` (or None, or
        "auto") is stored as None, so that ``from_dict(r.to_dict()) == r`` for every
        preset and a later ``players`` override still moves the hand size with it.
        ``knock_limit`` may also be the text "none".
        """
        unknown = sorted(set(data) - set(PARAMETERS))
        if unknown:
            raise RuleError(
                f"unknown rule parameter {unknown[0]!r}; choose from: {choose(PARAMETERS)}"
            )
        values = dict(data)
        if values.get("knock_limit") == "none":
            values["knock_limit"] = None
        if values.get("hand_size") == "auto":
            values["hand_size"] = None
        players = values.get("players", _DEFAULTS["players"])
        if (
            isinstance(players, int)
            and 2 <= players <= 6
            and values.get("hand_size") == _auto_hand_size(players)
        ):
            values["hand_size"] = None
        return cls(**values)


PARAMETERS: tuple[str, ...] = tuple(field.name for field in dataclasses.fields(RuleSet))
"""Every rule parameter, in RULES.md order."""


def allowed_values(param: str) -> str:
    """What ``param`` accepts, in words (``rummy rules show``'s "allowed" column)."""
    if param in _CHOICES:
        return ", ".join(_CHOICES[param])
    if param in BOOL_FIELDS:
        return "true, false"
    if param in INT_BOUNDS:
        low, high = INT_BOUNDS[param]
        return f"{low}..{high}"
    return {
        "name": "any text",
        "hand_size": f"auto, {_HAND_SIZE_BOUNDS[0]}..{_HAND_SIZE_BOUNDS[1]}",
        "jokers": choose(_JOKER_COUNTS),
        "knock_limit": f"none, upcard, 0..{MAX_KNOCK_LIMIT}",
        "game": _GAME_FORMS,
    }[param]


_DEFAULTS: dict[str, Any] = {field.name: field.default for field in dataclasses.fields(RuleSet)}
