"""What one seat may see at one decision: :class:`View`, and its JSON form.

A view holds exactly what a compiled strategy's ``Obs`` holds (``kernels/obs.py``)
and the engine's words of the seat's game memory: the seat's own hand, the pile, what
every seat took from the pile and still holds, what every seat discarded, the stock's
size, the turn, the scores. Never another seat's hidden cards. It is backed by the
flat vector of ``kernels/view.py``, so the engine hands one to an agent seat without
building Python objects it does not read, and ``rummy.player`` hands one back to the
compiled hooks unchanged.

Cards are indices ``suit * 13 + rank`` (suits C D H S; 52 and 53 the jokers); sets of
cards are masks here (bit ``c`` set: card ``c``), as in the kernels, and lists of
indices in JSON (docs/AGENTS.md "What an agent sees").
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np
import numpy.typing as npt

from kernels import view as V
from kernels.layout import POINT_SCALE
from kernels.obs import PHASE_DISCARD, PHASE_DRAW, PHASE_UPCARD_OPTION
from sim.cards import cards_of, mask_of

__all__ = ["PHASES", "View", "ViewError"]

PHASES = {PHASE_UPCARD_OPTION: "upcard", PHASE_DRAW: "draw", PHASE_DISCARD: "discard"}
_PHASE_CODES = {name: code for code, name in PHASES.items()}
_KEY_BITS = (1 << 64) - 1
_MAX_POINTS = 10**9  # scores: far beyond any game's, well within the int64 units


def _cards(mask: int) -> list[int]:
    """The cards of a mask, ascending (set bits only: a hand is a few of 54)."""
    out = []
    while mask:
        low = mask & -mask
        out.append(low.bit_length() - 1)
        mask ^= low
    return out


class ViewError(ValueError):
    """A view that cannot be: a bad field, named with what is allowed."""


def _mask(name: str, value: Any) -> int:
    """A set of cards given as a mask or as card indices."""
    if isinstance(value, (int, np.integer)) and not isinstance(value, bool):
        if not 0 <= value < 1 << 54:
            raise ViewError(f"{name}: bad mask {value}: only bits 0..53 are cards")
        return int(value)
    if isinstance(value, list):  # the JSON form: checked in one pass (every decision)
        mask = 0
        for card in value:
            if type(card) is not int or not 0 <= card < 54 or mask >> card & 1:
                break
            mask |= 1 << card
        else:
            return mask
    try:
        return mask_of(value)
    except (TypeError, ValueError) as exc:
        raise ViewError(f"{name}: {exc}") from None


def _listed(value: Any) -> bool:
    """Whether ``value`` is a list (a JSON array) or a like sequence of entries."""
    return isinstance(value, (list, tuple, np.ndarray))


def _whole(name: str, value: Any, low: int, high: int) -> int:
    if type(value) is int and low <= value <= high:
        return value
    if isinstance(value, bool) or not isinstance(value, (int, np.integer)):
        raise ViewError(f"{name} must be a whole number {low}..{high}, got {value!r}")
    if not low <= int(value) <= high:
        raise ViewError(f"{name} must be {low}..{high}, got {value}")
    return int(value)


def _units(name: str, points: Any) -> int:
    """Game points as the engine's units (1/POINT_SCALE of a point)."""
    ok = isinstance(points, (int, float, np.integer, np.floating)) and not isinstance(points, bool)
    if not ok or not abs(float(points)) <= _MAX_POINTS:  # NaN fails too
        raise ViewError(
            f"{name} must be a number of game points within ±{_MAX_POINTS}, got {points!r}"
        )
    return round(float(points) * POINT_SCALE)


class View:
    """One seat's view of the hand in progress (see the module docstring).

    Attributes (read-only): ``seat``, ``players``, ``hand`` (mask), ``pile`` (cards,
    bottom to top), ``taken`` and ``discarded`` (a mask per seat), ``stock`` (cards
    left), ``rebuilds``, ``rebuilt`` (mask), ``turn`` (draws so far), ``phase``
    (``"upcard"``, ``"draw"`` or ``"discard"``), ``upcard``, ``drawn`` (None before the
    seat's draw), ``from_pile``, ``dealer``, ``scores`` (game points per seat),
    ``knock_limit`` (None: any deadwood), ``forbidden`` (the card it may not discard
    now, or None), ``key`` (the seat's random key for this hand), ``game_hands``,
    ``opp_knocks``, ``opp_gins`` (its game so far: hands dealt before this one, and in
    how many another seat knocked or went out).
    """

    __slots__ = ("vector",)

    def __init__(self, vector: npt.NDArray[np.int64]) -> None:
        self.vector = vector

    # --- building one --------------------------------------------------------------

    @classmethod
    def of(
        cls,
        *,
        seat: int,
        players: int,
        hand: Any,
        pile: Sequence[int],
        phase: str,
        upcard: int,
        dealer: int,
        turn: int = 0,
        stock: int = 0,
        taken: Sequence[Any] | None = None,
        discarded: Sequence[Any] | None = None,
        drawn: int | None = None,
        from_pile: bool = False,
        rebuilds: int = 0,
        rebuilt: Any = 0,
        scores: Sequence[float] | None = None,
        knock_limit: int | None = None,
        key: int = 0,
        game_hands: int = 0,
        opp_knocks: int = 0,
        opp_gins: int = 0,
        discard_taken_card: bool = False,
    ) -> View:
        """A view from its fields (cards as indices or masks; scores in game points)."""
        players = _whole("players", players, 2, 6)
        seat = _whole("seat", seat, 0, players - 1)
        if not isinstance(phase, str) or phase not in _PHASE_CODES:
            raise ViewError(f"phase must be one of {', '.join(_PHASE_CODES)}, got {phase!r}")
        if not isinstance(from_pile, (bool, np.bool_)):
            raise ViewError(f"from_pile must be true or false, got {from_pile!r}")
        if not _listed(pile):
            raise ViewError(f"pile must be a list of cards, bottom to top, got {pile!r}")
        per_seat = {"taken": taken, "discarded": discarded, "scores": scores}
        for name, values in per_seat.items():
            if values is not None and not _listed(values):
                raise ViewError(f"{name} must be a list with one entry per seat, got {values!r}")
            if values is not None and len(values) != players:
                raise ViewError(f"{name} needs one entry per seat ({players}), got {len(values)}")
        pile = [_whole("pile card", c, 0, 53) for c in pile]
        # A card lies once in the pile and not in the hand too (the kernels size the pile
        # by the deck: more cards would write past it).
        pile_mask, hand_mask = _mask("pile", pile), _mask("hand", hand)
        if pile_mask & hand_mask:
            both = cards_of(pile_mask & hand_mask)[0]
            raise ViewError(f"card {both} is both in the hand and on the pile")
        key = _whole("key", key, 0, _KEY_BITS)
        drawn_card = -1 if drawn is None else _whole("drawn", drawn, 0, 53)
        forbidden = from_pile and drawn is not None and not discard_taken_card
        words = [0] * V.V_HEAD  # built as a list, turned into the vector once
        words[V.V_SEAT] = seat
        words[V.V_PLAYERS] = players
        words[V.V_HAND] = hand_mask
        words[V.V_PILE_N] = len(pile)
        words[V.V_STOCK] = _whole("stock", stock, 0, 54)
        words[V.V_REBUILDS] = _whole("rebuilds", rebuilds, 0, 1000)
        words[V.V_REBUILT] = _mask("rebuilt", rebuilt)
        words[V.V_TURN] = _whole("turn", turn, 0, 1000)
        words[V.V_PHASE] = _PHASE_CODES[phase]
        words[V.V_UPCARD] = _whole("upcard", upcard, 0, 53)
        words[V.V_DRAWN] = drawn_card
        words[V.V_FROM_PILE] = 1 if from_pile else 0
        words[V.V_DEALER] = _whole("dealer", dealer, 0, players - 1)
        words[V.V_KEY] = key - (1 << 64) if key >> 63 else key  # the int64 with its bits
        words[V.V_KNOCK_LIMIT] = (
            -1 if knock_limit is None else _whole("knock_limit", knock_limit, 0, 1000)
        )
        words[V.V_GAME_HANDS] = _whole("game_hands", game_hands, 0, 10**6)
        words[V.V_OPP_KNOCKS] = _whole("opp_knocks", opp_knocks, 0, 10**6)
        words[V.V_OPP_GINS] = _whole("opp_gins", opp_gins, 0, 10**6)
        words[V.V_FORBIDDEN] = drawn_card if forbidden else -1
        seats = range(players)
        words += [0] * players if taken is None else [_mask(f"taken[{s}]", taken[s]) for s in seats]
        words += (
            [0] * players
            if discarded is None
            else [_mask(f"discarded[{s}]", discarded[s]) for s in seats]
        )
        words += (
            [0] * players if scores is None else [_units(f"scores[{s}]", scores[s]) for s in seats]
        )
        out = np.array(words + pile, np.int64)
        return cls(out)

    # --- reading it ---------------------------------------------------------------

    def _at(self, word: int) -> int:
        return int(self.vector[word])

    @property
    def seat(self) -> int:
        return self._at(V.V_SEAT)

    @property
    def players(self) -> int:
        return self._at(V.V_PLAYERS)

    @property
    def hand(self) -> int:
        return self._at(V.V_HAND)

    @property
    def pile(self) -> list[int]:
        start = V.V_HEAD + 3 * self.players
        return self.vector[start : start + self._at(V.V_PILE_N)].tolist()

    @property
    def taken(self) -> list[int]:
        return self.vector[V.V_HEAD : V.V_HEAD + self.players].tolist()

    @property
    def discarded(self) -> list[int]:
        n = self.players
        return self.vector[V.V_HEAD + n : V.V_HEAD + 2 * n].tolist()

    @property
    def scores(self) -> list[float]:
        n = self.players
        units = self.vector[V.V_HEAD + 2 * n : V.V_HEAD + 3 * n]
        return [
            int(u) // POINT_SCALE if u % POINT_SCALE == 0 else int(u) / POINT_SCALE for u in units
        ]

    @property
    def stock(self) -> int:
        return self._at(V.V_STOCK)

    @property
    def rebuilds(self) -> int:
        return self._at(V.V_REBUILDS)

    @property
    def rebuilt(self) -> int:
        return self._at(V.V_REBUILT)

    @property
    def turn(self) -> int:
        return self._at(V.V_TURN)

    @property
    def phase(self) -> str:
        return PHASES[self._at(V.V_PHASE)]

    @property
    def upcard(self) -> int:
        return self._at(V.V_UPCARD)

    @property
    def drawn(self) -> int | None:
        card = self._at(V.V_DRAWN)
        return None if card < 0 else card

    @property
    def from_pile(self) -> bool:
        return self._at(V.V_FROM_PILE) != 0

    @property
    def dealer(self) -> int:
        return self._at(V.V_DEALER)

    @property
    def knock_limit(self) -> int | None:
        limit = self._at(V.V_KNOCK_LIMIT)
        return None if limit < 0 else limit

    @property
    def forbidden(self) -> int | None:
        """The card the seat may not discard now: the one it just took from the pile,
        unless the rules allow it (RULES.md ``discard_taken_card``)."""
        card = self._at(V.V_FORBIDDEN)
        return None if card < 0 else card

    @property
    def key(self) -> int:
        return int(self.vector[V.V_KEY : V.V_KEY + 1].view(np.uint64)[0])

    @property
    def game_hands(self) -> int:
        return self._at(V.V_GAME_HANDS)

    @property
    def opp_knocks(self) -> int:
        return self._at(V.V_OPP_KNOCKS)

    @property
    def opp_gins(self) -> int:
        return self._at(V.V_OPP_GINS)

    def cards(self) -> list[int]:
        """The seat's cards, ascending."""
        return cards_of(self.hand)

    # --- JSON ----------------------------------------------------------------------

    FIELDS = (
        "seat", "players", "hand", "pile", "taken", "discarded", "stock", "rebuilds",
        "rebuilt", "turn", "phase", "upcard", "drawn", "from_pile", "dealer", "scores",
        "knock_limit", "forbidden", "key", "game_hands", "opp_knocks", "opp_gins",
    )  # fmt: skip

    def to_json(self) -> dict[str, Any]:
        """The view as JSON data: sets of cards as lists of indices, the key as 16
        hexadecimal digits (docs/AGENTS.md); :meth:`json_text` read back."""
        return json.loads(self.json_text())

    def json_text(self) -> str:
        """The view as JSON text, written field by field (the table sends one per
        decision to an external agent: a third less time than ``json.dumps`` of a
        dict of the fields)."""
        v = self.vector.tolist()
        n, head = v[V.V_PLAYERS], V.V_HEAD
        drawn, limit, forbidden = v[V.V_DRAWN], v[V.V_KNOCK_LIMIT], v[V.V_FORBIDDEN]
        taken = [_cards(m) for m in v[head : head + n]]
        discarded = [_cards(m) for m in v[head + n : head + 2 * n]]
        return (
            f'{{"seat":{v[V.V_SEAT]},"players":{n},"hand":{_cards(v[V.V_HAND])},'
            f'"pile":{v[head + 3 * n :]},"taken":{taken},"discarded":{discarded},'
            f'"stock":{v[V.V_STOCK]},"rebuilds":{v[V.V_REBUILDS]},'
            f'"rebuilt":{_cards(v[V.V_REBUILT])},"turn":{v[V.V_TURN]},'
            f'"phase":"{PHASES[v[V.V_PHASE]]}","upcard":{v[V.V_UPCARD]},'
            f'"drawn":{"null" if drawn < 0 else drawn},'
            f'"from_pile":{"true" if v[V.V_FROM_PILE] else "false"},'
            f'"dealer":{v[V.V_DEALER]},"scores":{self.scores},'
            f'"knock_limit":{"null" if limit < 0 else limit},'
            f'"forbidden":{"null" if forbidden < 0 else forbidden},'
            f'"key":"{v[V.V_KEY] & _KEY_BITS:016x}","game_hands":{v[V.V_GAME_HANDS]},'
            f'"opp_knocks":{v[V.V_OPP_KNOCKS]},"opp_gins":{v[V.V_OPP_GINS]}}}'
        )

    @classmethod
    def from_json(cls, data: Mapping[str, Any], *, discard_taken_card: bool = False) -> View:
        """A view from :meth:`to_json`'s data (``forbidden`` is derived, not read)."""
        if not isinstance(data, Mapping):
            raise ViewError(f"a view must be a JSON object, got {type(data).__name__}")
        required = ("seat", "players", "hand", "pile", "phase", "upcard", "dealer")
        missing = [name for name in required if name not in data]
        if missing:
            raise ViewError(f"the view lacks {', '.join(missing)}")
        unknown = sorted(set(data) - set(cls.FIELDS))
        if unknown:
            raise ViewError(f"unknown view field {unknown[0]!r}; fields: {', '.join(cls.FIELDS)}")
        fields = {k: v for k, v in data.items() if k != "forbidden"}
        if "forbidden" in data:  # the table's rules said: none although taken from the pile
            discard_taken_card = data["forbidden"] is None
        key = fields.get("key", 0)
        if isinstance(key, str):
            try:
                fields["key"] = int(key, 16)
            except ValueError:
                raise ViewError(f"key must be hexadecimal digits, got {key!r}") from None
        return cls.of(**fields, discard_taken_card=discard_taken_card)

    def __repr__(self) -> str:
        return f"View({', '.join(f'{k}={v!r}' for k, v in self.to_json().items())})"

    def __eq__(self, other: object) -> bool:
        return isinstance(other, View) and np.array_equal(self.vector, other.vector)

    __hash__ = None  # type: ignore[assignment]
