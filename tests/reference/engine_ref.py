"""Reference engine: plays hands and whole games exactly as ``docs/ENGINE.md`` says.

Slow, plain Python and obviously correct; the Numba engine (``kernels/engine.py``) is
compared to it draw by draw. Randomness comes only from ``tests/reference/rng_ref.py``,
deadwood from ``deadwood_ref.py`` and every showdown from ``scoring_ref.py``.

API
---
- :class:`RefObs`: one seat's view (the fields of ``kernels.obs.Obs``). ``rules`` is a
  :class:`RulesView`: the compiled rule vector (a tuple of ints, ``obs.rules[R_...]``
  as in the kernels) that also answers the ``sim.rules.RuleSet``'s attributes
  (``obs.rules.knock_limit``); ``rules_vector`` is the same vector as a plain tuple,
  ``ruleset`` the ``RuleSet`` itself; ``tab`` is None. Lists in it are fresh copies: a
  strategy cannot change the game.
- Strategies are objects with ``take(obs, params, scratch) -> bool``,
  ``discard(obs, params, scratch) -> int`` and ``knock(obs, params, scratch, discard)
  -> int`` (``CONTINUE``/``KNOCK``/``BIG_GIN`` of ``kernels.obs``). ``scratch`` is a list
  of ``SCRATCH_SIZE`` ints: the first ``SCRATCH_HAND`` zeroed at each deal, the rest (the
  game's memory) at a game's first hand and kept across its hands, with the hand counts
  ``GAME_HANDS``, ``GAME_OPP_KNOCKS`` and ``GAME_OPP_GINS`` added at each hand's end;
  ``scratch[0]`` is the seat's random counter (:func:`strategy_below_ref` draws from
  ``obs.rng_key`` with it).
- :func:`play_hand_ref` plays one hand and returns its record; :func:`play_game_ref`
  plays one game. An illegal answer raises :class:`IllegalDecision` (a ``ValueError``).

Hand record (dict)
------------------
``number, hand_index, dealer, upcard, knocker`` (-1 none), ``outcome`` (RULES.md label),
``turns`` (draws), ``stock_left``, ``rebuilds``, ``deadwood`` (per seat), ``laid_off``
(per seat, ascending cards), ``points`` (per seat, ints in 1/POINT_SCALE = 1/60 units,
exactly ``Fraction * 60``), ``winner`` (the hand winner, see below; -1 none), and for
checking invariants: ``hands`` (final hands, ascending lists; the knocker's without the
laid-away card, a big-gin knocker's with all ``hand_size + 1`` cards), ``pile`` (bottom
to top), ``stock`` (top first), ``laid_away`` (-1 none). With ``log`` truthy, ``events``:

- ``("deal", hands, upcard)``: hands as ascending tuples per seat;
- ``("take_upcard", seat)`` / ``("pass", seat)``: the upcard option's answers (a take is
  followed by its ``draw`` event);
- ``("draw", seat, card, "stock" | "pile")``;
- ``("rebuild", "reshuffle" | "turn_over", new_stock)``: the new stock top first;
- ``("discard", seat, card)``, ``("knock", seat, laid_away_card)``, ``("big_gin", seat)``;
- ``("dead_hand",)``, ``("exhausted",)`` (logged before the showdown of an exhausted hand);
- ``("showdown", result)``: ``score_showdown_ref``'s dict (not logged for a dead hand).

Interpretations (ENGINE.md and RULES.md leave these open; the fast engine follows them)
---------------------------------------------------------------------------------------
The deal and the stock
- The stock is an array read from index 0 upward: after the deal it is
  ``deck[players*hand_size + 1:]``. A rebuild makes a new array of the pile's cards but
  the top, taken bottom..top-1; ``reshuffle`` shuffles that array in place with
  ``rng_ref.shuffle`` on the stream (PURPOSE_RESHUFFLE, hand_index, sub = rebuild index,
  1 for the first rebuild; counter from 0); ``turn_over`` leaves it as it lies. Either
  way the new stock is read from index 0, so after ``turn_over`` the oldest discard is
  drawn first. The pile keeps only its top card.
- Rebuild indexes above 255 would overlap the hand-index bits of the stream id; both
  engines compute ``make_stream`` the same way, so they still agree.

Turns and hooks
- Every hook gets a fresh :class:`RefObs`. In ``PHASE_UPCARD_OPTION`` and ``PHASE_DRAW``
  ``drawn`` is -1 and ``from_pile`` False; in ``PHASE_DISCARD`` ``turn`` already counts
  the draw just made. ``knock`` gets its own fresh obs of the same state as ``discard``.
- Upcard option (two players, ``upcard_option``): the non-dealer is asked (turn 0); if
  it takes, the draw is turn 1 and play goes on with the dealer. Otherwise the dealer is
  asked (still turn 0); if it takes, it plays its turn and the non-dealer plays next
  (with a normal ``take`` call). If both pass, the non-dealer draws from the stock
  without a ``take`` call, then discards or knocks; the dealer plays next.
- ``take`` must answer a bool (Python or NumPy) or the ints 0/1; ``discard`` an integer
  card; ``knock`` one of 0, 1, 2. Anything else is an :class:`IllegalDecision`, as is
  taking from an empty pile (which cannot arise: the pile holds a card at every draw).
- The discard answer is checked (held, not the forbidden card) before ``knock`` is
  called, also when the answer is ``BIG_GIN`` (its card is then unused). ``KNOCK`` is
  legal when ``min_deadwood_ref(hand - card) <= knock_limit_ref(rules, upcard)`` (no
  limit under ``knock_limit = none``). ``BIG_GIN`` is legal when ``big_gin_bonus > 0``
  and the whole ``hand_size + 1`` card hand has min deadwood 0. Knocking with a hand
  that has zero deadwood is ``KNOCK`` (gin or rummy), not ``BIG_GIN``.
- ``MAX_TURNS`` (1,000): once ``MAX_TURNS`` draws have been made, the ``CONTINUE``
  discard that completes that turn (if it did not end a dead hand) ends the hand as
  ``exhausted``: the exhausted showdown, every hand at ``hand_size`` cards, before the
  next seat is asked anything. (Coded as a check before each normal draw's ``take``
  call; no hook runs in between, so the two are the same.)
- Dead hand: after every ``CONTINUE`` discard (the upcard option's turns included), under
  ``dead_hand``, a stock of exactly ``wall`` cards ends the hand. There is no
  showdown: its record has ``points`` and ``deadwood`` all 0 and no lay-offs.

The hand winner (used by game dealer rules and Gin boxes)
- ``knock_win``, ``rummy``, ``gin``, ``big_gin``: the knocker.
- ``undercut``: under Knock scoring the first seat from the knocker's left (knocker+1,
  ...) holding the least non-knocker deadwood (the sole winner under ``nearest_left``,
  the first winner under ``split``; the tying player under ``knocker_tie=neutral``);
  under Gin scoring the defender.
- ``exhausted``: the first seat from the dealer's left holding the least deadwood;
  nobody when every seat holds that least deadwood (nobody pays; a Gin tie).
- ``tie`` and ``dead_hand``: nobody.

Games (``play_game_ref``)
- First dealer: ``below(stream_key(key, number, make_stream(PURPOSE_FIRST_DEALER, 0,
  0)), 0, players)``. ``hand_index`` counts every hand dealt (dead hands included).
- ``scores`` (what ``RefObs.scores`` shows, per seat, 1/60 units): the cumulative hand
  points of every scored hand, in every mode (net transfers under Knock scoring, the
  hand winner's points under Gin scoring). Box, game and shutout bonuses are only added
  to the final result, and Hollywood columns are not shown to strategies.
- Scored hand = every hand but a dead hand (``exhausted`` and ``tie`` count).
- Next dealer after a scored hand: the same dealer when the hand has no winner;
  otherwise ``rotate`` and ``alternate_scored``: the next seat to the dealer's left
  (the two rules coincide, because RULES.md keeps the dealer after any hand without a
  winner and after a dead hand); ``winner``: the hand winner; ``loser``: with two
  players the seat that is not the winner, with more the seat with the least points
  that hand, ties to the first from the dealer's left (dealer+1, ..., dealer last).
  After a dead hand the same dealer deals again.
- ``hand``: one scored hand (dead hands redealt by the same dealer); the winner is that
  hand's winner (-1 none).
- ``hands:N``: after N scored hands, the unique highest cumulative score wins; a tie for
  highest plays one more scored hand, and again, until one seat leads alone.
- ``match:T``: after each scored hand, among seats whose cumulative score reaches T
  points (``scores >= T * 60``), the unique highest wins; a tie for highest plays on.
- ``pool:L``: a seat is out once its cumulative net is ``<= -L`` points (``scores <=
  -L * 60``), checked after each scored hand; out seats stay out; the last seat left
  wins (a zero-sum hand always leaves someone in). A hand is dealt only to the seats
  still in: it is played as a hand of ``k`` players (``dataclasses.replace(rules,
  players=k)``, so an automatic ``hand_size`` follows the new count, 3 left -> 7, 2
  left -> 10) in which dealt seat ``i`` is game seat ``seats[i]`` (the remaining seats
  in ascending order). Everything inside that hand (``obs.seat``, ``obs.players``,
  ``obs.scores``, ``obs.dealer``, strategy streams sub = dealt seat, the record's
  per-seat lists, ``knocker``, ``winner``, ``dealer``) is in dealt-seat numbers; the
  game's hand records carry ``seats`` to map them back. When the next dealer chosen by
  the dealer rule is out, the deal goes to the next seat still in on its left.
- ``gin:T`` (two players): the game ends after the first hand where a seat's
  cumulative hand points reach T (``>= T * 60``); that seat wins. Boxes: one per hand
  won (the hand winner above, so also the winner of an exhausted hand). Final score of
  a seat = hand points + ``box_bonus`` * boxes, and the winner adds ``game_bonus``.
  Shutout when the loser won no hand (0 boxes): ``double`` doubles the winner's whole
  final score (hand points, boxes and game bonus), ``bonus`` doubles only the game
  bonus, ``none`` nothing. ``spade_double`` doubles hand points only.
- ``hollywood:T``: a seat's k-th hand win (k = 1, 2, 3, ...) is entered in columns
  ``0 .. min(k, 3) - 1`` that are still open: its points go into that column and it
  counts one box there. A column closes, as ``gin:T``, when a seat's points in it reach
  T; a win meant for a closed column is lost for that column (no moving right). The
  game ends when all three columns are closed. Column final scores as ``gin:T`` (boxes
  and shutout counted per column). The game winner is the seat with the larger sum of
  the three column final scores (-1 on equal sums).
- ``MAX_GAME_HANDS`` (1,000) hands dealt without the game ending stops it with winner
  -1 (a guard for strategies that never score, e.g. endless dead hands).
"""

from __future__ import annotations

import dataclasses
import numbers
from dataclasses import dataclass, field
from fractions import Fraction
from typing import Any

import numpy as np

from kernels.layout import OUTCOME_LABELS, POINT_SCALE
from kernels.obs import (
    BIG_GIN,
    CONTINUE,
    GAME_HANDS,
    GAME_OPP_GINS,
    GAME_OPP_KNOCKS,
    KNOCK,
    PHASE_DISCARD,
    PHASE_DRAW,
    PHASE_UPCARD_OPTION,
    SCRATCH_HAND,
    SCRATCH_RNG,
    SCRATCH_SIZE,
)
from sim.rules import RuleSet
from tests.reference import rng_ref
from tests.reference.deadwood_ref import min_deadwood_ref
from tests.reference.rules_ns import make_rules
from tests.reference.scoring_ref import knock_limit_ref, score_showdown_ref

MAX_TURNS = 1000  # draws in one hand before the guard ends it as exhausted
MAX_GAME_HANDS = 1000  # hands dealt in one game before the guard stops it
N_COLUMNS = 3  # Hollywood: three games scored at once

assert set(OUTCOME_LABELS) >= {"knock_win", "undercut", "dead_hand", "exhausted"}


class IllegalDecision(ValueError):
    """A strategy answered something the rules do not allow."""


class RulesView(tuple):
    """The compiled rule vector (a tuple of ints, indexed by ``kernels.layout.R_*``) that
    also answers every attribute of its ``RuleSet`` (``view.knock_limit``, ...)."""

    ruleset: RuleSet

    def __new__(cls, rules: RuleSet) -> RulesView:
        view = super().__new__(cls, (int(v) for v in rules.compile()))
        view.ruleset = rules
        return view

    def __getattr__(self, name: str) -> Any:
        if name == "ruleset":  # not set yet (copying): no recursion
            raise AttributeError(name)
        return getattr(self.ruleset, name)


@dataclass
class RefObs:
    """One seat's view of the hand (the fields of ``kernels.obs.Obs``, plus
    ``rules_vector`` and ``ruleset``)."""

    seat: int
    players: int
    hand: int  # mask
    pile: list[int]  # bottom to top
    pile_n: int
    taken: list[int]  # masks per seat
    discarded: list[int]  # masks per seat
    stock_n: int
    rebuilds: int  # stock rebuilds so far this hand
    rebuilt: int  # mask of the cards the last rebuild put into the stock (0: none)
    turn: int
    phase: int
    upcard: int
    drawn: int
    from_pile: bool
    dealer: int
    rules: RulesView  # indexable like the kernel's rule vector, attributes of the RuleSet
    rules_vector: tuple[int, ...]  # the compiled vector as a plain tuple
    scores: list[int]
    rng_key: int
    ruleset: RuleSet
    tab: Any = field(default=None)


# --- helpers for strategies ----------------------------------------------------------


def strategy_below_ref(obs: RefObs, scratch: list[int], n: int) -> int:
    """Uniform integer in [0, n) from the seat's stream (twin of ``strategy_below``)."""
    value, scratch[SCRATCH_RNG] = rng_ref.below(obs.rng_key, scratch[SCRATCH_RNG], n)
    return value


def forbidden_discard_ref(obs: RefObs) -> int:
    """The card the seat may not discard now (-1 none): twin of ``forbidden_discard``."""
    if obs.from_pile and not obs.rules.discard_taken_card:
        return obs.drawn
    return -1


def cards_of(mask: int) -> list[int]:
    """Ascending cards of a mask."""
    return [card for card in range(64) if (mask >> card) & 1]


def mask_of(cards: Any) -> int:
    mask = 0
    for card in cards:
        mask |= 1 << card
    return mask


def scoring_rules(rules: RuleSet) -> Any:
    """The ``rules_ns`` namespace the showdown oracle reads, from a ``RuleSet``."""
    names = (
        "players", "jokers", "joker_value", "ace", "ace_high_value", "knock_limit",
        "big_gin_bonus", "layoff", "layoff_play", "scoring", "rummy_bonus",
        "undercut_penalty", "tied_winners", "knocker_tie", "penalty_to", "gin_bonus",
        "undercut_bonus", "undercut_on_tie", "spade_double",
    )  # fmt: skip
    values = {name: getattr(rules, name) for name in names}
    return make_rules(hand_size=rules.cards_per_hand, **values)


def _scaled(points: list[Fraction]) -> list[int]:
    out = []
    for p in points:
        scaled = Fraction(p) * POINT_SCALE
        assert scaled.denominator == 1, f"points {p} not a multiple of 1/{POINT_SCALE}"
        out.append(int(scaled))
    return out


def _strategy_name(strategy: Any) -> str:
    return str(getattr(strategy, "name", type(strategy).__name__))


# --- one hand ------------------------------------------------------------------------


class _Hand:
    """The state of one hand in play (ENGINE.md "A hand")."""

    def __init__(
        self,
        rules: RuleSet,
        key: int,
        number: int,
        strategies: list[Any],
        params: list[Any],
        hand_index: int,
        dealer: int,
        scores: list[int],
        log: bool,
        memory: list[list[int]] | None,
    ) -> None:
        self.rules = rules
        self.ns = scoring_rules(rules)
        self.view = RulesView(rules)
        self.vector = tuple(self.view)
        self.key, self.number, self.hand_index = int(key), int(number), int(hand_index)
        self.players = rules.players
        self.hand_size = rules.cards_per_hand
        if len(strategies) != self.players or len(params) != self.players:
            raise ValueError(
                f"need {self.players} strategies and params, got "
                f"{len(strategies)} and {len(params)}"
            )
        if not 0 <= dealer < self.players:
            raise ValueError(f"dealer must be a seat 0..{self.players - 1}, got {dealer!r}")
        self.strategies, self.params = strategies, params
        self.dealer = dealer
        self.scores = list(scores)
        self.events: list[tuple[Any, ...]] | None = [] if log else None
        if memory is None:
            memory = [[0] * (SCRATCH_SIZE - SCRATCH_HAND) for _ in range(self.players)]
        if hand_index == 0:  # a game's first hand, or a single deal: a fresh memory
            for words in memory:
                words[:] = [0] * len(words)
        self.memory = memory  # each seat's game memory, written back at the hand's end
        self.scratch = [[0] * SCRATCH_HAND + list(memory[seat]) for seat in range(self.players)]
        self.rng_keys = [
            rng_ref.stream_key(
                self.key,
                self.number,
                rng_ref.make_stream(rng_ref.PURPOSE_STRATEGY, hand_index, seat),
            )
            for seat in range(self.players)
        ]
        self.turn = 0
        self.rebuilds = 0
        self.rebuilt = 0
        self.taken = [0] * self.players
        self.discarded = [0] * self.players
        self.laid_away = -1
        self.record: dict[str, Any] | None = None
        self._deal()

    # -- bookkeeping

    def _log(self, *event: Any) -> None:
        if self.events is not None:
            self.events.append(tuple(event))

    def _deal(self) -> None:
        deck = list(range(52 + self.rules.jokers))
        skey = rng_ref.stream_key(
            self.key,
            self.number,
            rng_ref.make_stream(rng_ref.PURPOSE_DEAL, self.hand_index, 0),
        )
        rng_ref.shuffle(deck, skey)
        dealt = self.players * self.hand_size
        self.hands: list[set[int]] = [set() for _ in range(self.players)]
        for k in range(dealt):
            self.hands[(self.dealer + 1 + k) % self.players].add(deck[k])
        self.upcard = deck[dealt]
        self.pile = [self.upcard]
        self.stock = deck[dealt + 1 :]  # stock[0] is the top
        self._log("deal", tuple(tuple(sorted(h)) for h in self.hands), self.upcard)

    def _obs(self, seat: int, phase: int, drawn: int = -1, from_pile: bool = False) -> RefObs:
        return RefObs(
            seat=seat,
            players=self.players,
            hand=mask_of(self.hands[seat]),
            pile=list(self.pile),
            pile_n=len(self.pile),
            taken=list(self.taken),
            discarded=list(self.discarded),
            stock_n=len(self.stock),
            rebuilds=self.rebuilds,
            rebuilt=self.rebuilt,
            turn=self.turn,
            phase=phase,
            upcard=self.upcard,
            drawn=drawn,
            from_pile=from_pile,
            dealer=self.dealer,
            rules=self.view,
            rules_vector=self.vector,
            scores=list(self.scores),
            rng_key=self.rng_keys[seat],
            ruleset=self.rules,
        )

    def _illegal(self, seat: int, what: str) -> IllegalDecision:
        return IllegalDecision(
            f"illegal decision by seat {seat} ({_strategy_name(self.strategies[seat])}): "
            f"{what}; key={self.key} number={self.number} hand_index={self.hand_index} "
            f"turn={self.turn}"
        )

    # -- hooks

    def _ask_take(self, seat: int, phase: int) -> bool:
        obs = self._obs(seat, phase)
        answer = self.strategies[seat].take(obs, self.params[seat], self.scratch[seat])
        if isinstance(answer, bool | np.bool_):
            return bool(answer)
        if isinstance(answer, numbers.Integral) and int(answer) in (0, 1):
            return bool(answer)
        raise self._illegal(seat, f"take returned {answer!r}, not a bool")

    def _forbidden(self, drawn: int, from_pile: bool) -> int:
        return drawn if from_pile and not self.rules.discard_taken_card else -1

    # -- a turn: one draw, then a discard or a knock; True when the hand ended

    def _draw_and_play(self, seat: int, from_pile: bool) -> bool:
        if from_pile:
            if not self.pile:
                raise self._illegal(seat, "take returned True with an empty discard pile")
            card = self.pile.pop()
            self.taken[seat] |= 1 << card
        else:
            card = self.stock.pop(0)
        self.hands[seat].add(card)
        self.turn += 1
        self._log("draw", seat, card, "pile" if from_pile else "stock")

        strategy, params, scratch = self.strategies[seat], self.params[seat], self.scratch[seat]
        obs = self._obs(seat, PHASE_DISCARD, card, from_pile)
        choice = strategy.discard(obs, params, scratch)
        if isinstance(choice, bool | np.bool_) or not isinstance(choice, numbers.Integral):
            raise self._illegal(seat, f"discard returned {choice!r}, not a card")
        choice = int(choice)
        if choice not in self.hands[seat]:
            raise self._illegal(seat, f"discard {choice} is not in its hand")
        if choice == self._forbidden(card, from_pile):
            raise self._illegal(
                seat, f"discard {choice} is the card just taken from the discard pile"
            )
        obs = self._obs(seat, PHASE_DISCARD, card, from_pile)
        decision = strategy.knock(obs, params, scratch, choice)
        if isinstance(decision, bool | np.bool_) or not isinstance(decision, numbers.Integral):
            raise self._illegal(seat, f"knock returned {decision!r}, not 0, 1 or 2")
        decision = int(decision)

        if decision == KNOCK:
            kept = self.hands[seat] - {choice}
            limit = knock_limit_ref(self.ns, self.upcard)
            deadwood = min_deadwood_ref(kept, self.ns)
            if limit is not None and deadwood > limit:
                raise self._illegal(
                    seat,
                    f"knock laying away {choice} keeps deadwood {deadwood} above the "
                    f"knock limit {limit}",
                )
            self.hands[seat] = kept
            self.laid_away = choice
            self._log("knock", seat, choice)
            self._showdown(seat)
            return True
        if decision == BIG_GIN:
            if self.rules.big_gin_bonus <= 0:
                raise self._illegal(seat, "big gin (knock returned 2) with big_gin_bonus=0")
            deadwood = min_deadwood_ref(self.hands[seat], self.ns)
            if deadwood != 0:
                raise self._illegal(
                    seat, f"big gin (knock returned 2) with deadwood {deadwood}, not 0"
                )
            self._log("big_gin", seat)
            self._showdown(seat)
            return True
        if decision != CONTINUE:
            raise self._illegal(seat, f"knock returned {decision!r}, not 0, 1 or 2")

        self.hands[seat].remove(choice)
        self.pile.append(choice)
        self.discarded[seat] |= 1 << choice
        self.taken[seat] &= ~(1 << choice)
        self._log("discard", seat, choice)
        if self.rules.stock_exhaustion == "dead_hand" and len(self.stock) == self.rules.wall:
            self._log("dead_hand")
            self._dead_hand()
            return True
        return False

    def _rebuild(self) -> None:
        self.rebuilds += 1
        cards = self.pile[:-1]
        self.rebuilt = mask_of(cards)
        kind = self.rules.stock_exhaustion
        if kind == "reshuffle":
            skey = rng_ref.stream_key(
                self.key,
                self.number,
                rng_ref.make_stream(rng_ref.PURPOSE_RESHUFFLE, self.hand_index, self.rebuilds),
            )
            rng_ref.shuffle(cards, skey)
        self.stock = cards
        self.pile = self.pile[-1:]
        self._log("rebuild", kind, list(cards))

    # -- the hand

    def play(self) -> dict[str, Any]:
        nondealer = (self.dealer + 1) % self.players
        seat = nondealer
        if self.rules.upcard_option:
            if self._ask_take(nondealer, PHASE_UPCARD_OPTION):
                self._log("take_upcard", nondealer)
                if self._draw_and_play(nondealer, True):
                    return self._finish()
                seat = self.dealer
            else:
                self._log("pass", nondealer)
                if self._ask_take(self.dealer, PHASE_UPCARD_OPTION):
                    self._log("take_upcard", self.dealer)
                    if self._draw_and_play(self.dealer, True):
                        return self._finish()
                    seat = nondealer
                else:
                    self._log("pass", self.dealer)
                    if self._draw_and_play(nondealer, False):
                        return self._finish()
                    seat = self.dealer
        while True:
            if self.turn >= MAX_TURNS:
                self._exhausted()
                return self._finish()
            from_pile = self._ask_take(seat, PHASE_DRAW)
            if not from_pile and not self.stock:
                # Only reshuffle / turn_over get here: under dead_hand the hand ends
                # with `wall` cards still in the stock.
                assert self.rules.stock_exhaustion in ("reshuffle", "turn_over")
                if self.rebuilds == self.rules.max_rebuilds or len(self.pile) <= 1:
                    self._exhausted()
                    return self._finish()
                self._rebuild()
            if self._draw_and_play(seat, from_pile):
                return self._finish()
            seat = (seat + 1) % self.players

    # -- endings

    def _exhausted(self) -> None:
        self._log("exhausted")
        result = score_showdown_ref(
            self.ns, [sorted(h) for h in self.hands], None, self.upcard, self.dealer
        )
        self._log("showdown", result)
        least = min(result["deadwood"])
        order = [(self.dealer + 1 + i) % self.players for i in range(self.players)]
        if all(d == least for d in result["deadwood"]):
            winner = -1
        else:
            winner = next(s for s in order if result["deadwood"][s] == least)
        self._set_record(-1, result, winner)

    def _showdown(self, knocker: int) -> None:
        result = score_showdown_ref(
            self.ns, [sorted(h) for h in self.hands], knocker, self.upcard, self.dealer
        )
        self._log("showdown", result)
        outcome = result["outcome"]
        if outcome in ("knock_win", "rummy", "gin", "big_gin"):
            winner = knocker
        elif outcome == "undercut":
            deadwood = result["deadwood"]
            others = [(knocker + 1 + i) % self.players for i in range(self.players - 1)]
            least = min(deadwood[s] for s in others)
            winner = next(s for s in others if deadwood[s] == least)
        else:  # "tie"
            winner = -1
        self._set_record(knocker, result, winner)

    def _dead_hand(self) -> None:
        result = {
            "outcome": "dead_hand",
            "deadwood": [0] * self.players,
            "laid_off": [[] for _ in range(self.players)],
            "points": [Fraction(0)] * self.players,
        }
        self._set_record(-1, result, -1)

    def _set_record(self, knocker: int, result: dict[str, Any], winner: int) -> None:
        assert result["outcome"] in OUTCOME_LABELS
        went_out = result["outcome"] in ("gin", "big_gin", "rummy")
        for seat in range(self.players):
            scratch = self.scratch[seat]
            scratch[GAME_HANDS] += 1
            if knocker >= 0 and knocker != seat:
                scratch[GAME_OPP_GINS if went_out else GAME_OPP_KNOCKS] += 1
            self.memory[seat][:] = scratch[SCRATCH_HAND:]
        self.record = {
            "number": self.number,
            "hand_index": self.hand_index,
            "dealer": self.dealer,
            "upcard": self.upcard,
            "knocker": knocker,
            "outcome": result["outcome"],
            "turns": self.turn,
            "stock_left": len(self.stock),
            "rebuilds": self.rebuilds,
            "deadwood": list(result["deadwood"]),
            "laid_off": [sorted(cards) for cards in result["laid_off"]],
            "points": _scaled(result["points"]),
            "winner": winner,
            "hands": [sorted(h) for h in self.hands],
            "pile": list(self.pile),
            "stock": list(self.stock),
            "laid_away": self.laid_away,
        }

    def _finish(self) -> dict[str, Any]:
        assert self.record is not None
        if self.events is not None:
            self.record["events"] = self.events
        return self.record


def play_hand_ref(
    rules: RuleSet,
    key: int,
    number: int,
    strategies: list[Any],
    params: list[Any],
    *,
    hand_index: int = 0,
    dealer: int | None = None,
    scores: list[int] | None = None,
    log: Any = None,
    memory: list[list[int]] | None = None,
) -> dict[str, Any]:
    """Play one hand per ENGINE.md and return its record (see the module docstring).

    ``dealer`` defaults to the last seat (a single hand played alone); ``scores`` (what
    ``RefObs.scores`` shows) to zeros; ``memory`` (per seat, the game words of its
    scratch; zeros at hand 0) is updated in place at the hand's end. Raises
    :class:`IllegalDecision` on an illegal strategy answer.
    """
    if dealer is None:
        dealer = rules.players - 1
    if scores is None:
        scores = [0] * rules.players
    if len(scores) != rules.players:
        raise ValueError(f"need {rules.players} scores, got {len(scores)}")
    hand = _Hand(
        rules, key, number, list(strategies), list(params), hand_index, dealer, scores,
        bool(log), memory,
    )  # fmt: skip
    return hand.play()


# --- a game --------------------------------------------------------------------------


def first_dealer_ref(key: int, number: int, players: int) -> int:
    skey = rng_ref.stream_key(key, number, rng_ref.make_stream(rng_ref.PURPOSE_FIRST_DEALER, 0, 0))
    return rng_ref.below(skey, 0, players)[0]


def _next_in(seat: int, active: list[int], players: int) -> int:
    """The first seat still in, starting at ``seat`` itself and going left."""
    for i in range(players):
        candidate = (seat + i) % players
        if candidate in active:
            return candidate
    raise AssertionError("no seat left")


def gin_final_scores(rules: RuleSet, points: list[int], boxes: list[int], winner: int) -> list[int]:
    """Final scores of a closed ``gin:T`` game (two seats), 1/60 units."""
    unit = POINT_SCALE
    final = [points[s] + rules.box_bonus * boxes[s] * unit for s in range(2)]
    loser = 1 - winner
    bonus = rules.game_bonus * unit
    shutout = boxes[loser] == 0
    if shutout and rules.shutout == "double":
        final[winner] = 2 * (final[winner] + bonus)
    elif shutout and rules.shutout == "bonus":
        final[winner] += 2 * bonus
    else:
        final[winner] += bonus
    return final


class HollywoodRef:
    """Hollywood bookkeeping: three ``gin:T`` columns fed by hand wins (module docstring).

    ``enter(winner, points)`` records one hand won by ``winner`` (a seat) scoring
    ``points`` (1/60 units); ``closed`` says whether all three columns are closed.
    """

    def __init__(self, rules: RuleSet, target: int) -> None:
        self.rules = rules
        self.target = target * POINT_SCALE
        self.wins = [0, 0]
        self.points = [[0, 0] for _ in range(N_COLUMNS)]
        self.boxes = [[0, 0] for _ in range(N_COLUMNS)]
        self.winner = [-1] * N_COLUMNS

    def enter(self, winner: int, points: int) -> None:
        self.wins[winner] += 1
        for col in range(min(self.wins[winner], N_COLUMNS)):
            if self.winner[col] >= 0:
                continue  # a closed column takes nothing more
            self.points[col][winner] += points
            self.boxes[col][winner] += 1
            if self.points[col][winner] >= self.target:
                self.winner[col] = winner

    @property
    def closed(self) -> bool:
        return all(w >= 0 for w in self.winner)

    def finals(self) -> list[list[int]]:
        """Per column final scores (``gin:T`` bonuses for closed columns)."""
        return [
            gin_final_scores(self.rules, self.points[c], self.boxes[c], self.winner[c])
            if self.winner[c] >= 0
            else list(self.points[c])
            for c in range(N_COLUMNS)
        ]


def play_game_ref(
    rules: RuleSet,
    key: int,
    number: int,
    strategies: list[Any],
    params: list[Any],
    *,
    log: Any = None,
) -> dict[str, Any]:
    """Play one game of ``rules.game`` (see the module docstring for every reading).

    Returns a dict: ``number``, ``hands`` (scored hands), ``hands_dealt``, ``winner``
    (game seat, -1 none), ``scores`` (final, per seat, 1/60 units; for Hollywood a list
    of three per-seat lists, one per column), ``points`` (cumulative hand points per
    seat), ``records`` (every hand record, dead hands included, each with ``seats``: the
    game seat of each dealt seat). Gin games add ``boxes`` (hands won per seat);
    Hollywood adds ``columns`` (per column: ``points``, ``boxes``, ``winner``) and
    ``totals`` (per seat sum of the column final scores); pool adds ``out`` (seats in
    the order they went out).
    """
    key, number = int(key), int(number)
    mode, target = rules.game_mode
    players = rules.players
    unit = POINT_SCALE
    dealer = first_dealer_ref(key, number, players)
    scores = [0] * players
    active = list(range(players))
    out: list[int] = []
    wins = [0] * players
    hollywood = HollywoodRef(rules, target) if mode == "hollywood" else None
    records: list[dict[str, Any]] = []
    memory = [[0] * (SCRATCH_SIZE - SCRATCH_HAND) for _ in range(players)]  # by game seat
    hand_index = 0
    scored = 0
    winner = -1

    while True:
        if hand_index >= MAX_GAME_HANDS:
            winner = -1
            break
        seats = list(active)
        hand_rules = (
            rules if len(seats) == players else dataclasses.replace(rules, players=len(seats))
        )
        record = play_hand_ref(
            hand_rules,
            key,
            number,
            [strategies[s] for s in seats],
            [params[s] for s in seats],
            hand_index=hand_index,
            dealer=seats.index(dealer),
            scores=[scores[s] for s in seats],
            log=log,
            memory=[memory[s] for s in seats],
        )
        record["seats"] = seats
        records.append(record)
        hand_index += 1
        if record["outcome"] == "dead_hand":
            continue  # the same dealer deals again
        scored += 1
        hand_points = [0] * players
        for i, s in enumerate(seats):
            hand_points[s] = record["points"][i]
            scores[s] += record["points"][i]
        hand_winner = seats[record["winner"]] if record["winner"] >= 0 else -1
        if hand_winner >= 0:
            wins[hand_winner] += 1

        # --- does the game end?
        done = False
        if mode == "hand":
            winner, done = hand_winner, True
        elif mode == "hands":
            if scored >= target:
                top = max(scores)
                leaders = [s for s in range(players) if scores[s] == top]
                if len(leaders) == 1:
                    winner, done = leaders[0], True
        elif mode == "match":
            reached = [s for s in range(players) if scores[s] >= target * unit]
            if reached:
                top = max(scores[s] for s in reached)
                leaders = [s for s in reached if scores[s] == top]
                if len(leaders) == 1:
                    winner, done = leaders[0], True
        elif mode == "pool":
            for s in seats:
                if scores[s] <= -target * unit:
                    active.remove(s)
                    out.append(s)
            assert active, "a zero-sum hand always leaves a seat in"
            if len(active) == 1:
                winner, done = active[0], True
        elif mode == "gin":
            reached = [s for s in range(players) if scores[s] >= target * unit]
            if reached:
                top = max(scores[s] for s in reached)
                winner = next(s for s in reached if scores[s] == top)
                done = True
        elif mode == "hollywood":
            assert hollywood is not None
            if hand_winner >= 0:
                hollywood.enter(hand_winner, hand_points[hand_winner])
            done = hollywood.closed
        else:  # pragma: no cover - RuleSet validates the mode
            raise ValueError(f"unknown game mode {mode!r}")
        if done:
            break

        # --- the next dealer
        if hand_winner < 0:
            nxt = dealer
        elif rules.dealer in ("rotate", "alternate_scored"):
            nxt = (dealer + 1) % players
        elif rules.dealer == "winner":
            nxt = hand_winner
        else:  # loser
            if len(seats) == 2:
                nxt = seats[0] if seats[1] == hand_winner else seats[1]
            else:
                order = [
                    seats[(seats.index(dealer) + 1 + i) % len(seats)] for i in range(len(seats))
                ]
                least = min(hand_points[s] for s in seats)
                nxt = next(s for s in order if hand_points[s] == least)
        dealer = _next_in(nxt, active, players)

    result: dict[str, Any] = {
        "number": number,
        "hands": scored,
        "hands_dealt": hand_index,
        "winner": winner,
        "points": list(scores),
        "records": records,
    }
    if mode == "gin":
        result["boxes"] = list(wins)
        result["scores"] = (
            gin_final_scores(rules, scores, wins, winner) if winner >= 0 else list(scores)
        )
    elif mode == "hollywood":
        assert hollywood is not None
        finals = hollywood.finals()
        totals = [sum(f[s] for f in finals) for s in range(players)]
        if hollywood.closed:
            top = max(totals)
            leaders = [s for s in range(players) if totals[s] == top]
            winner = leaders[0] if len(leaders) == 1 else -1
        result["winner"] = winner
        result["scores"] = finals
        result["totals"] = totals
        result["boxes"] = list(wins)
        result["columns"] = [
            {
                "points": hollywood.points[c],
                "boxes": hollywood.boxes[c],
                "winner": hollywood.winner[c],
            }
            for c in range(N_COLUMNS)
        ]
    else:
        result["scores"] = list(scores)
        if mode == "pool":
            result["out"] = out
    return result
