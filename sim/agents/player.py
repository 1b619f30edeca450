"""One decision at a time: a compiled strategy asked outside the engine (``rummy.player``).

>>> import rummy
>>> me = rummy.player("mc:samples=50", rules="gin", seat=0)
>>> me.take(view)              # a rummy.View: take the pile's top card (or the upcard)?
>>> card = me.discard(view)    # after the draw: the card to throw
>>> me.knock(view, card)       # "continue", "knock" or "big_gin"

A :class:`Player` answers with the very hooks the round loop calls: each decision is
one call of the engine's ``decide`` kernel (``kernels/engine.py``), which unpacks the
view (``kernels/view.py``) into the ``Obs`` the loop would have built and calls the
strategy's hook through the same dispatcher. Given the view the engine's seat saw, a
Player makes the engine's choice exactly (``tests/sim/agents/test_player.py`` replays
whole seeded hands and games decision by decision).

What the engine keeps for a seat besides the view is its memory, ``scratch``
(``kernels/obs.py``, docs/ENGINE.md "Game memory"): words a strategy writes during a
hand (``mc``'s random counter, ``greedy``'s cached solutions) and across a game. A
Player keeps one scratch and treats it as the engine does, told by the view alone:
a decision whose ``key`` or ``game_hands`` differs from the previous decision's, or
whose ``turn`` went back, starts a new hand (the hand's words zeroed; at
``game_hands == 0``, a new game, the whole scratch), and the engine's three game words
are copied from the view before each call. So one Player serves one seat, a hand after
another, in the order they are played; ``key`` is the seat's random stream for the
hand (give each hand its own: ``mc`` and ``random`` draw from it). In a pool game's
later hands, with seats gone out, a view holds fewer seats (numbered anew): it is
answered under the rules of that many seats, as the engine plays such a hand.

Every refusal is a ``ValueError`` in one line naming the bad value and what is allowed
(a :class:`PlayerError`; a bad spec's ``StrategyError``, a bad field's ``ViewError``):
a spec that is not a compiled strategy, a view of another table or seat or one no deal
can produce, a decision asked in the wrong phase, an illegal discard handed to
:meth:`Player.knock`. An answer the rules forbid from the
strategy itself (a plugin's bug) is a ``sim.engine.StrategyDecisionError``, as in a run.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Iterable, Mapping
from typing import Any, NamedTuple

import numpy as np
import numpy.typing as npt

from kernels import view as V
from kernels.obs import (
    BIG_GIN,
    CONTINUE,
    GAME_HANDS,
    GAME_OPP_GINS,
    GAME_OPP_KNOCKS,
    KNOCK,
    PHASE_DISCARD,
    PHASE_UPCARD_OPTION,
    SCRATCH_HAND,
    SCRATCH_SIZE,
)
from kernels.showdown import knock_limit_of
from sim.agents.protocol import KNOCK_WORDS
from sim.agents.view import View
from sim.cards import card_name, cards_of, mask_of
from sim.engine import Lineup, StrategyDecisionError, engine_of
from sim.rules import DEFAULT_PRESET, RuleSet
from sim.solver import Arrangement, arrangement, min_deadwood, resolve_rules, tables_for
from sim.warm import ensure, warm_entry
from strategies import HOOKS, Strategy, format_seat, parse_seat, seat_label
from strategies.agent import AgentStrategy, is_agent_spec

__all__ = ["Player", "PlayerError", "player"]

_TAKE, _DISCARD, _KNOCK = 0, 1, 2  # the kernel's ``what``


class PlayerError(ValueError):
    """A player or a decision that cannot be: the message names the value and what is allowed."""


class Player:
    """One seat's compiled strategy, asked one decision at a time (module docstring).

    Attributes: ``strategy`` and ``params`` (what ``parse_seat`` read), ``name`` (how the
    seat is shown: ``strategies.seat_label``, ``chart:gin`` for a chart by name),
    ``rules``, ``seat`` (None: any seat).
    """

    def __init__(
        self,
        strategy: Strategy,
        params: NamedTuple,
        rules: RuleSet,
        seat: int | None = None,
        name: str | None = None,
    ) -> None:
        self.strategy, self.params, self.rules = strategy, params, rules
        self.name = name or seat_label(format_seat(strategy, params))
        self.seat = seat
        # Every seat this strategy, stand-ins: an mc seat's rollouts are bound for each
        # place, opponents=known as unknown (sim/rollouts.py); the kernel decides with row 0.
        seats = Lineup(((strategy, params),) * rules.players)
        self._engine, self._sids, self._params = engine_of(seats, rules, known=False)
        self._scratch = np.zeros((1, SCRATCH_SIZE), np.int64)
        self._rules = rules.compile()
        # The rules of a hand by its seats: a pool game plays on with fewer once seats go
        # out, each hand under its own seat count (``sim.engine.rules_by_seats``).
        fewer = range(2, rules.players) if rules.game_mode[0] == "pool" else range(0)
        self._by_players = {rules.players: (rules, self._rules)} | {
            k: (hand, hand.compile())
            for k in fewer
            for hand in [dataclasses.replace(rules, players=k)]
        }
        self._tab = tables_for(rules)
        self._cards = 52 + rules.jokers
        self._deck = (1 << self._cards) - 1
        # The hand the scratch belongs to: (key, game_hands) and the turn of its last
        # decision; None before the first.
        self._hand: tuple[int, int] | None = None
        self._turn = 0
        # Load (or compile) the kernel and the pieces the strategy's hooks call (mc's), as
        # the engine readies a line-up, now and not at the first decision: a server
        # answers its first request as fast as the others.
        e = self._engine
        ensure(
            e.decide, self._args(_TAKE, _sample(rules), self._rules, 0),
            roots=[getattr(strategy, hook) for hook in HOOKS],
            skip=(e.hook_take, e.hook_discard, e.hook_knock),
        )  # fmt: skip

    def __repr__(self) -> str:
        seat = "" if self.seat is None else f", seat={self.seat}"
        return f"Player({self.name!r}, rules={self.rules.name!r}{seat})"

    # --- the three decisions ----------------------------------------------------------

    def take(self, view: View | Mapping[str, Any]) -> bool:
        """Take the pile's top card (True) or not: in phase ``"upcard"`` not taking is
        a pass, in ``"draw"`` a draw from the stock."""
        v = self._checked(view, "take")
        return bool(self._decide(_TAKE, v, 0))

    def discard(self, view: View | Mapping[str, Any]) -> int:
        """The card to discard (or to lay away when knocking), after the draw."""
        v = self._checked(view, "discard")
        card = int(self._decide(_DISCARD, v, 0))
        if not (0 <= card < self._cards and v.hand >> card & 1) or card == v.forbidden:
            raise StrategyDecisionError(
                f"strategy {self.name!r} (seat {v.seat}) discarded a card it may not: "
                f"value {card}; hand {cards_of(v.hand)}, turn {v.turn}"
            )
        return card

    def knock(self, view: View | Mapping[str, Any], discard: int) -> str:
        """After choosing ``discard``: ``"continue"`` (discard it and play on),
        ``"knock"`` (lay it away and knock) or ``"big_gin"`` (go out with every card)."""
        v = self._checked(view, "knock")
        held = isinstance(discard, (int, np.integer)) and not isinstance(discard, bool)
        if not held or not (0 <= discard < self._cards and v.hand >> int(discard) & 1):
            raise PlayerError(
                f"knock: discard {discard!r} is not a card of the hand; "
                f"give one of {cards_of(v.hand)}"
            )
        if discard == v.forbidden:
            raise PlayerError(
                f"knock: discard {card_name(int(discard))} ({discard}) was just taken from "
                "the pile and may not be discarded now (rules: discard_taken_card=false)"
            )
        code = int(self._decide(_KNOCK, v, int(discard)))
        if code not in KNOCK_WORDS or not self._legal(code, v.hand, int(discard), v.upcard):
            raise StrategyDecisionError(
                f"strategy {self.name!r} (seat {v.seat}) made a knock decision the rules "
                f"do not allow: value {code}; hand {cards_of(v.hand)}, discard {discard}"
            )
        return KNOCK_WORDS[code]

    def melds(self, hand: int | Iterable[int]) -> Arrangement:
        """The least-deadwood arrangement of ``hand`` (a mask or card indices) under the
        player's rules: ``melds`` (card lists), ``unmatched`` (the deadwood cards) and
        ``deadwood`` (their points); as ``rummy deadwood`` shows it."""
        try:
            mask = int(hand) if isinstance(hand, (int, np.integer)) else mask_of(hand)
        except TypeError:
            raise PlayerError(f"melds: give a hand as card indices, got {hand!r}") from None
        return arrangement(mask, self.rules)

    # --- inside -------------------------------------------------------------------------

    def _args(
        self, what: int, view: npt.NDArray[np.int64], rules: npt.NDArray[np.int64], discard: int
    ) -> tuple[Any, ...]:
        return (what, self._sids, self._params, self._scratch, view, rules, self._tab, discard)

    def _decide(self, what: int, view: View, discard: int) -> int:
        """One call of the kernel, with the seat's memory as the engine keeps it."""
        hand = (view.key, view.game_hands)
        if hand != self._hand or view.turn < self._turn:
            self._scratch[0, : SCRATCH_SIZE if view.game_hands == 0 else SCRATCH_HAND] = 0
            self._hand = hand
        self._turn = view.turn
        vector = view.vector
        self._scratch[0, GAME_HANDS] = vector[V.V_GAME_HANDS]
        self._scratch[0, GAME_OPP_KNOCKS] = vector[V.V_OPP_KNOCKS]
        self._scratch[0, GAME_OPP_GINS] = vector[V.V_OPP_GINS]
        rules = self._by_players[view.players][1]
        return int(self._engine.decide(*self._args(what, vector, rules, discard)))

    def _legal(self, code: int, hand: int, discard: int, upcard: int) -> bool:
        """Whether the rules allow knock decision ``code`` (as the engine checks it)."""
        if code == KNOCK:
            limit = knock_limit_of(self._rules, upcard)
            return limit < 0 or int(min_deadwood([hand & ~(1 << discard)], self.rules)[0]) <= limit
        if code == BIG_GIN:
            return self.rules.big_gin_bonus > 0 and int(min_deadwood([hand], self.rules)[0]) == 0
        return code == CONTINUE

    def _checked(self, view: View | Mapping[str, Any], decision: str) -> View:
        """``view`` as a View this player may answer for ``decision``, or the one line
        that says why not. A view no deal can produce is refused here, before the
        kernel reads it: the hooks trust the engine's counts."""
        if isinstance(view, Mapping):
            view = View.from_json(view, discard_taken_card=self.rules.discard_taken_card)
        elif not isinstance(view, View):
            raise PlayerError(f"{decision}: give a rummy.View (or its JSON), got {view!r}")
        r = self.rules
        if view.players not in self._by_players:
            fewer = f" (2..{r.players} in a pool game)" if len(self._by_players) > 1 else ""
            raise PlayerError(
                f"{decision}: the view has players={view.players} but the rules "
                f"{r.name!r} have players={r.players}{fewer}"
            )
        r = self._by_players[view.players][0]
        # (A pool's later hands number the seats still in play anew.)
        if self.seat is not None and view.seat != self.seat and view.players == self.rules.players:
            raise PlayerError(
                f"{decision}: the view is seat {view.seat}'s; this player is seat {self.seat}'s"
            )
        phase = view.vector[V.V_PHASE]
        if (phase == PHASE_DISCARD) != (decision != "take"):
            wanted = "discard" if decision != "take" else "upcard or draw"
            raise PlayerError(f"{decision}: the view's phase must be {wanted}, got {view.phase!r}")
        if phase == PHASE_UPCARD_OPTION and not r.upcard_option:
            raise PlayerError(
                f"{decision}: phase 'upcard' needs rules with the upcard option; "
                f"{r.name!r} has upcard_option=false"
            )
        seen = view.hand | view.rebuilt | 1 << view.upcard
        for mask in (*view.taken, *view.discarded):
            seen |= mask
        for card in view.pile:
            seen |= 1 << card
        if seen & ~self._deck:
            stranger = card_name((seen & ~self._deck).bit_length() - 1)
            raise PlayerError(
                f"{decision}: the view holds {stranger}, a card the rules {r.name!r} do not deal"
            )
        size = r.cards_per_hand + (phase == PHASE_DISCARD)
        held = view.hand.bit_count()
        if held != size:
            raise PlayerError(
                f"{decision}: the hand holds {held} cards; in phase {view.phase!r} it holds "
                f"{size} under the rules {r.name!r}"
            )
        # Every card is in a hand, the pile or the stock while a hand is played.
        unseen = self._cards - held - len(view.pile) - (r.players - 1) * r.cards_per_hand
        if view.stock != unseen:
            raise PlayerError(
                f"{decision}: stock={view.stock} does not add up: {self._cards} cards less "
                f"this hand, the pile and the other hands leave {unseen}"
            )
        if phase == PHASE_DISCARD:
            drawn = view.drawn
            if drawn is None or not view.hand >> drawn & 1:
                raise PlayerError(
                    f"{decision}: drawn={drawn} must be a card of the hand in phase 'discard'"
                )
        elif not view.pile:
            raise PlayerError(
                f"{decision}: the pile is empty: nothing to take (the seat draws from the stock)"
            )
        return view


def _sample(rules: RuleSet) -> npt.NDArray[np.int64]:
    """A view of the kernel's argument type (its content is never read)."""
    return np.zeros(V.view_size(rules.players, 1), np.int64)


def player(spec: str, *, rules: str | RuleSet = DEFAULT_PRESET, seat: int | None = None) -> Player:
    """A :class:`Player` of a compiled strategy's spec (``greedy``, ``mc:samples=50``,
    ``chart:gin``, ``chart:file=PATH``) under ``rules`` (a preset name or a RuleSet; a
    chart must be made for them), for ``seat`` (None: whichever seat each view is of)."""
    if not isinstance(spec, str):
        raise PlayerError(
            "a player is a compiled strategy's spec such as 'greedy' or 'mc:samples=50', "
            f"got {spec!r}"
        )
    # An agent seat (docs/AGENTS.md) is played through Python or another program, never
    # by the kernel: refused before its spec is read (reading it imports or finds it).
    if is_agent_spec(spec):
        raise PlayerError(
            f"{spec.strip()[:60]!r} is an agent seat, not a compiled strategy; a player asks "
            "a compiled strategy for its decisions: greedy, mc:samples=50, ... "
            "(rummy strategies list)"
        )
    r = resolve_rules(rules)
    strategy, params = parse_seat(spec, rules=r)
    if isinstance(strategy, AgentStrategy):  # cannot be, but the kernel must never see one
        raise PlayerError(f"{spec!r} is an agent seat, not a compiled strategy")
    if seat is not None and (
        isinstance(seat, bool) or not isinstance(seat, int) or not 0 <= seat < r.players
    ):
        raise PlayerError(
            f"seat must be a seat of the rules' table, 0..{r.players - 1}, got {seat!r}"
        )
    return Player(strategy, params, r, seat, seat_label(spec))


@warm_entry("engine: one decision (rummy.player, rummy agent)")
def _warm_decide() -> None:
    """Compile (or load) the ``decide`` kernel, deciding nothing (``rummy warm``)."""
    player("greedy")
