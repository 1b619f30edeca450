"""Twin of the strategy charts' positions and their true-state scores, in plain Python.

The fast side is the engine's probe (``kernels/probe.py``): positions found in real play
and each scored by playing the hand on from its true state. The twin does the same the
slow, obvious way:

* each deal is played once by the reference engine (``engine_ref``) with its log on;
  walking the log with the focal seat's view gives the positions (knock chart: a
  discard decision where a knock is legal, not big gin; draw chart: a draw with a card
  on the pile, not the upcard option; discard chart: a focal discard the next seat
  then meets), their cells and the seat's own choice there;
* each branch (sample j, action a) of a position is the same deal played again from
  the start, the focal seat's strategy wrapped so that at the position's decision it
  shuffles the unseen stock for sample j > 0 (and sets the sample's reshuffle key) and
  takes action a instead of its own choice. Up to that decision everything is as in the
  first play, so the branch starts from the true state.

``positions_ref`` returns the rows the probe writes (``kernels.chart.P_*`` columns but
the cell index), every position scored.
"""

from __future__ import annotations

from typing import Any

from kernels import chart as K
from kernels.layout import R_DISCARD_TAKEN_CARD
from kernels.obs import CONTINUE, KNOCK, PHASE_DISCARD, PHASE_DRAW
from kernels.probe import REBUILD_SALT
from sim.engine import key_of
from tests.reference import rng_ref
from tests.reference import strategies_ref as S
from tests.reference.draw_class_ref import draw_class_ref
from tests.reference.engine_ref import MAX_TURNS, _Hand
from tests.support.twins import ref_lineup

M64 = (1 << 64) - 1


def position_key_ref(seed: int, number: int, own_turn: int, kind: int) -> int:
    ckey = rng_ref.random64(int(key_of(seed)), K.CHART_SALT + kind)
    return rng_ref.mix64((rng_ref.mix64(ckey ^ ((number * rng_ref.GOLDEN) & M64)) + own_turn) & M64)


def interested_ref(rule_row: list[int], taken: int, card: int) -> bool:
    """The next seat took (and holds) a card of ``card``'s rank or of its suit in one
    3-card run shape with it (any taken card, for a joker)."""
    held = S.cards_of(taken)
    if card >= 52:
        return bool(held)
    rank, suit = card % 13, card // 13
    near = S.near_ranks(rule_row, rank)
    return any(c < 52 and (c % 13 == rank or (c // 13 == suit and c % 13 in near)) for c in held)


class _Forcing:
    """The focal seat's strategy, except at the decision made with ``at_turn`` draws
    (``phase``): there the unseen stock is shuffled for ``sample`` > 0, the sample's
    reshuffle key set, and ``action`` taken (0: knock with ``best`` / take; 1: the
    strategy's own discard and play on / draw from the stock)."""

    def __init__(self, inner: Any, phase: int, at_turn: int, action: int, best: int,
                 sample: int, pkey: int, public_stock: bool) -> None:  # fmt: skip
        self.inner, self.phase, self.at_turn, self.action = inner, phase, at_turn, action
        self.best, self.sample, self.pkey, self.public_stock = best, sample, pkey, public_stock
        self.hand: Any = None  # the reference hand, set before it plays

    def _at_position(self, obs: Any, phase: int) -> bool:
        if obs.phase != phase or obs.turn != self.at_turn:
            return False
        if self.sample > 0:
            if not (self.public_stock and self.hand.rebuilds > 0):
                rng_ref.shuffle(self.hand.stock, rng_ref.random64(self.pkey, self.sample))
            self.hand.key = rng_ref.random64(self.pkey, REBUILD_SALT + self.sample)
        return True

    def take(self, obs: Any, params: Any, scratch: list[int]) -> bool:
        forced = self.phase == PHASE_DRAW and self._at_position(obs, PHASE_DRAW)
        own = self.inner.take(obs, params, scratch)  # asked all the same, as the engine does
        return self.action == 0 if forced else own

    def discard(self, obs: Any, params: Any, scratch: list[int]) -> int:
        if self.phase == PHASE_DISCARD and self._at_position(obs, PHASE_DISCARD):
            if self.action == 0:
                return self.best  # the forced knock asks no hook
        return self.inner.discard(obs, params, scratch)

    def knock(self, obs: Any, params: Any, scratch: list[int], discard: int) -> int:
        if self.phase == PHASE_DISCARD and obs.turn == self.at_turn:
            if self.action == 0:
                return KNOCK
            self.inner.knock(obs, params, scratch, discard)
            return CONTINUE
        return self.inner.knock(obs, params, scratch, discard)


def _branch(rules: Any, seed: int, number: int, strategies: list[Any], params: list[Any],
            focal: int, forcing: _Forcing) -> tuple[int, int]:  # fmt: skip
    """The focal seat's net points (gain units) and hand win in one branch."""
    forcing.inner = strategies[focal]
    seats = list(strategies)
    seats[focal] = forcing
    players = rules.players
    hand = _Hand(rules, int(key_of(seed)), number, seats, params, 0, players - 1,
                 [0] * players, False, None)  # fmt: skip
    forcing.hand = hand
    record = hand.play()
    points = record["points"]
    net = players * points[focal] - sum(points)
    return net, int(record["winner"] == focal)


def positions_ref(rules: Any, spec: str, seed: int, deals: int, chart: Any) -> list[tuple]:
    """Every position of deals 0 .. deals-1, scored: (deal, own turn, column, took,
    gain in units, first action's wins, second's wins, card, the seat's own choice)."""
    strategies, params = ref_lineup(rules, spec)
    players = rules.players
    rule_row = [int(v) for v in rules.compile()]
    focal = chart.focal
    public_stock = rules.stock_exhaustion == "turn_over"
    out = []

    def score(number: int, own_turn: int, phase: int, at_turn: int, best: int) -> tuple:
        kind = K.CHART_KNOCK if phase == PHASE_DISCARD else K.CHART_DRAW
        pkey = position_key_ref(seed, number, own_turn, kind)
        firsts, seconds = [], []
        for sample in range(chart.samples):
            for action in (0, 1):
                if kind == K.CHART_KNOCK and action == 0 and sample > 0:
                    firsts.append(firsts[0])  # the knock's showdown is the same in every sample
                    continue
                forcing = _Forcing(None, phase, at_turn, action, best, sample, pkey, public_stock)
                result = _branch(rules, seed, number, strategies, params, focal, forcing)
                (firsts if action == 0 else seconds).append(result)
        gain = sum(f[0] - s[0] for f, s in zip(firsts, seconds, strict=True))
        return gain, sum(f[1] for f in firsts), sum(s[1] for s in seconds)

    for number in range(deals):
        record = _Hand(rules, int(key_of(seed)), number, strategies, params, 0, players - 1,
                       [0] * players, True, None).play()  # fmt: skip
        events = record["events"]
        hands: list[set[int]] = [set() for _ in range(players)]
        taken = [0] * players
        pile: list[int] = []
        turn = own_turn = took = 0
        upcard = -1
        last_discarder = -1
        pending = None  # discard chart: (card, own turn, interest) until the next seat draws
        for i, event in enumerate(events):
            kind = event[0]
            if kind == "deal":
                hands = [set(h) for h in event[1]]
                upcard = event[2]
                pile = [upcard]
            elif kind == "rebuild":
                pile = pile[-1:]
            elif kind == "exhausted" and chart.chart == "draw" and turn < MAX_TURNS:
                # The next seat was asked and drew from a stock that could not be rebuilt:
                # a draw decision all the same (take the pile's card, or end the hand).
                seat = (last_discarder + 1) % players
                if seat == focal:
                    obs = _view(rule_row, players, seat, upcard)
                    column = draw_class_ref(obs, sum(1 << c for c in hands[seat]), pile[-1])
                    gain, first_won, second_won = score(number, own_turn + 1, PHASE_DRAW, turn, -1)
                    out.append((number, own_turn + 1, column, took, gain, first_won, second_won,
                                pile[-1], 0))  # fmt: skip
            elif kind == "discard":
                _, seat, card = event
                last_discarder = seat
                hands[seat].discard(card)
                taken[seat] &= ~(1 << card)
                pile.append(card)
                if chart.chart == "discard" and seat == focal:
                    nxt = (seat + 1) % players
                    pending = (card, own_turn, int(interested_ref(rule_row, taken[nxt], card)))
            elif kind == "draw":
                _, seat, card, where = event
                if pending is not None and seat == (focal + 1) % players:
                    thrown, at_turn, interest = pending
                    took_it = where == "pile" and card == thrown
                    saved = 0
                    if took_it:  # the next seat's saving: the solver reads only the rules
                        view = _view(rule_row, players, seat, upcard)
                        hand = sum(1 << c for c in hands[seat])
                        forbidden = card if rule_row[R_DISCARD_TAKEN_CARD] == 0 else None
                        _, after = S.best_discard(view, hand | (1 << card), forbidden)
                        saved = S.min_deadwood(hand, view) - after
                    column = 13 if thrown >= 52 else thrown % 13
                    out.append((number, at_turn, column, interest, saved, int(took_it),
                                int(not took_it), thrown, int(took_it)))  # fmt: skip
                    pending = None
                option_turn = rules.upcard_option and turn == 0
                if chart.chart == "draw" and seat == focal and pile and not option_turn:
                    obs = _view(rule_row, players, seat, upcard)
                    column = draw_class_ref(obs, sum(1 << c for c in hands[seat]), pile[-1])
                    gain, first_won, second_won = score(number, own_turn + 1, PHASE_DRAW, turn, -1)
                    out.append((number, own_turn + 1, column, took, gain, first_won, second_won,
                                pile[-1], int(where == "pile")))  # fmt: skip
                from_pile = where == "pile"
                if from_pile:
                    pile.pop()
                    taken[seat] |= 1 << card
                    took += seat != focal
                hands[seat].add(card)
                turn += 1
                if seat == focal:
                    own_turn += 1
                if chart.chart != "knock" or seat != focal:
                    continue
                obs = _view(rule_row, players, seat, upcard, drawn=card, from_pile=from_pile)
                hand = sum(1 << c for c in hands[seat])
                best, d = S.best_discard(obs, hand, S.forbidden_discard(obs))
                obs.hand = hand
                if not S.knock_legal(obs, d) or (d == 0 and S.big_gin_ready(obs)):
                    continue
                gain, first_won, second_won = score(number, own_turn, PHASE_DISCARD, turn, best)
                knocked = events[i + 1][0] == "knock"
                out.append((number, own_turn, d, took, gain, first_won, second_won, best,
                            int(knocked)))  # fmt: skip
    return out


def _view(rule_row: list[int], players: int, seat: int, upcard: int, drawn: int = -1,
          from_pile: bool = False) -> Any:  # fmt: skip
    """A seat's view holding what the twin's solver questions read (the rules, the
    upcard, the card just drawn); the hand is passed to each question."""
    return S.RefObs(
        seat=seat, players=players, hand=0, pile=[], taken=[0] * players,
        discarded=[0] * players, stock_n=0, rebuilds=0, rebuilt=0, turn=0,
        phase=PHASE_DISCARD if drawn >= 0 else PHASE_DRAW, upcard=upcard, drawn=drawn,
        from_pile=from_pile, dealer=players - 1, rules=rule_row, scores=[0] * players,
    )  # fmt: skip
