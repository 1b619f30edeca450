"""How well the opponent models' sampled hands match the true ones, by turn.

    python benchmarks/bench_inference.py [--rules gin] [--players N] [--deals 300]
        [--seed 0] [--samples 50] [--seats greedy] [--at both] [--known]

Plays ``--deals`` seeded single deals of the line-up ``--seats`` (default ``greedy``
in every seat: opponents that play as the models assume; ``greedy/simple`` puts
``simple`` in seat 1) with the event log on (``sim.engine.replay_hand``), and replays
each hand's log. At every decision of seat 0 (``--at both``, the default: its draw
decision, the first turn's upcard option included, and its discard decision; ``draw``
or ``discard``: only those) it rebuilds seat 0's observation as the engine hands it
to the seat (``kernels/obs.py``: hand, pile, cards taken and discarded, stock size,
rebuilds, turn, phase, drawn card) and every opponent's true hand, and checks the
two against each other (``kernels.mc.hidden_count_consistent``; each true hand holds
the cards seen taken and the rest are hidden; at the hand's end, the replayed hands
are the engine's). It then draws ``--samples`` determinizations under each opponent
model (``kernels.mc.MODELS``: 0 uniform, the baseline, 1 kept, 2 inferred, 3 shown,
4 played, 5 history),
the same sample keys for every model, as ``mc`` does (``kernels.mc.deal_sample`` on
``hidden_cards`` and ``new_work``; seat 0 keeps its notes of the opponent's turns as
``mc`` keeps them, ``kernels/history.py``, for the history model), and measures per
opponent and sample:

* ``|err|``: |least deadwood of the sampled hand - least deadwood of the true hand|;
* ``bias``: least deadwood of the sampled hand minus the true one's;
* ``shared``: cards of the sampled hand that are in the true hand, the opponent's
  known cards (pile cards it took and still holds, always shared) left out;
* ``dw``: the sampled hand's least deadwood;
* ``ready%``: of opponents that have discarded this hand, sampled hands whose least
  deadwood is at or below the threshold a greedy player knocks at (the rule's limit,
  or greedy's tuned threshold for the player count where any deadwood may knock;
  ``kernels.mc.shown_floor``, the shown model's test): hands such an opponent would
  have knocked with, had it played greedy;
* ``miss%``: samples that fit nothing the opponent showed and kept their last deal
  (under the history model: were dealt by the rules' model where no hand fit its
  notes), as ``mc`` counts them (``work.misses``) and a study's note reports them; with
  more than one opponent, the misses of a sample's every opponent.

The table is by the opponent's discards so far this hand (0-1, 2-3, 4-5, 6-7, 8+)
and model, each a mean over (position, opponent) pairs of the pair's mean over its
samples; ``n`` counts the pairs. The ``true`` rows give the true hands' ``dw`` and
``ready%``. Positions after a real stock rebuild are left out (every model samples
them alike there: ``determinize``), and counted. Where seat 0 plays ``greedy``, its
own decisions (``kernels.greedy``) on each rebuilt ``Obs`` must be those the log
shows: a check that the view is the one the engine gave it.

The played and history models replay an opponent's turns by the rollout policy (what
``mc`` assumes by default where it does not know its opponents); ``--known`` replays
each by its own strategy in ``--seats``, as ``mc:opponents=known`` does in a study, and
prints the time the history model took to make its hands per decision.
"""

from __future__ import annotations

import argparse
import time
from collections.abc import Iterator
from typing import Any

import numpy as np
from numba import njit

from kernels import engine as E
from kernels import layout as L
from kernels import mc as K
from kernels.bits import popcount
from kernels.deadwood import min_deadwood_one
from kernels.greedy import memo_discard, memo_take
from kernels.history import H_COUNT, copy_notes, note_opponent_turn, note_own_discard
from kernels.obs import (
    PHASE_DISCARD,
    PHASE_DRAW,
    PHASE_UPCARD_OPTION,
    SCRATCH_HAND,
    SCRATCH_SIZE,
)
from kernels.probe import resume_probe
from kernels.rng import random64
from sim.advise import make_obs
from sim.engine import Lineup, engine_of, key_of, parse_seat, replay_hand
from sim.rollouts import turn_words
from sim.rules import get_rules
from sim.solver import tables_for

BUCKETS = ("0-1", "2-3", "4-5", "6-7", "8+")  # the opponent's discards so far
DRAWS = (E.EV_PASS, E.EV_DRAW_PILE, E.EV_DRAW_STOCK, E.EV_REBUILD, E.EV_EXHAUSTED)
# Per (position, opponent), sums over the samples of: |err|, bias, shared, ready, the
# sampled hand's least deadwood, misses.
SUMS = 6


@njit(cache=True)
def measure(obs, model, key, samples, truth, threshold, scratch, out):
    """Add, per opponent seat ``s``, the sums over ``samples`` determinizations under
    ``model`` to ``out[s]`` (``SUMS`` columns); ``truth[s]`` is the true hand's least
    deadwood and ``truth[obs.players + s]`` the true hand itself. ``scratch``: seat 0's
    notes of the opponent's turns (the history model's, ``kernels/history.py``)."""
    hidden = K.hidden_cards(obs)
    work = K.new_work(obs.players)
    engine = K.new_engine(obs.players, obs.seat, -1, 1)  # mc's rollouts, as its defaults
    copy_notes(scratch, work.inference[K.INF_NOTES :])
    K.prepare_samples(obs, hidden, key, model, work, engine)
    for j in range(samples):
        before = work.misses[0]
        K.deal_sample(obs, hidden, random64(key, j), model, work, engine)
        add_sample(obs, work.base, truth, threshold, work.misses[0] - before, out)


@njit(cache=True)
def add_sample(obs, hands, truth, threshold, missed, out):
    """Add one sample's opponent ``hands`` and its ``missed`` count to ``out``
    (``measure``'s sums)."""
    for s in range(obs.players):
        if s == obs.seat:
            continue
        hand = hands[s]
        d = min_deadwood_one(hand, obs.tab)
        diff = d - truth[s]
        out[s, 0] += abs(diff)
        out[s, 1] += diff
        out[s, 2] += popcount(hand & truth[obs.players + s] & ~obs.taken[s])
        out[s, 3] += 1 if d <= threshold else 0
        out[s, 4] += d
        out[s, 5] += missed


def measure_known(module, engine, obs, model, key, samples, truth, threshold, scratch, out):
    """``measure`` with the opponents replayed by their own strategies: ``module`` is
    the engine of the line-up's strategies (its copy of ``prepare_samples`` and
    ``deal_sample``, ``sim/engine_build.py``), ``engine`` its rollouts' arrays. Returns
    the seconds ``prepare_samples`` took (the history model's hands)."""
    hidden = K.hidden_cards(obs)
    work = K.new_work(obs.players)
    copy_notes(scratch, work.inference[K.INF_NOTES :])
    start = time.perf_counter()
    module.prepare_samples(obs, hidden, key, model, work, engine)
    seconds = time.perf_counter() - start
    for j in range(samples):
        before = work.misses[0]
        module.deal_sample(obs, hidden, np.uint64(random64(key, j)), model, work, engine)
        add_sample(obs, work.base, truth, threshold, work.misses[0] - before, out)
    return seconds


def known_engine(rules: Any, seats: str) -> tuple[Any, Any]:
    """The engine of the line-up's strategies and its rollouts' arrays, as
    ``rollout_values`` makes them for seat 0 (``mc:opponents=known``)."""
    lineup = Lineup(tuple(parse_seat(s) for s in seats.split("/")))
    module, sids, params = engine_of(lineup, rules)
    players = rules.players
    engine = K.Engine(
        module.new_state_nb(players), module.one_row(players), resume_probe(players), sids,
        params, True, turn_words(lineup.seats), np.zeros(SCRATCH_SIZE - SCRATCH_HAND, np.int64),
    )  # fmt: skip
    return module, engine


class Table:
    """Per (row, bucket): the sum over (position, opponent) pairs of each pair's means
    over its samples; the row is a model's number, or ``TRUE`` (the true hands)."""

    TRUE = -1

    def __init__(self) -> None:
        self.sums: dict[tuple[int, int], np.ndarray] = {}
        self.n = [0] * len(BUCKETS)  # (position, opponent) pairs
        self.discarded = [0] * len(BUCKETS)  # ... of an opponent that has discarded

    def add(self, row: int, bucket: int, means: np.ndarray, discarded: bool) -> None:
        sums = self.sums.setdefault((row, bucket), np.zeros(SUMS))
        sums += means * np.array([1, 1, 1, discarded, 1, 1])

    def print(self, rows: dict[int, str]) -> None:
        print(f"{'discards':>8} {'model':>9} {'|err|':>6} {'bias':>6} {'shared':>6} "
              f"{'dw':>6} {'ready%':>6} {'miss%':>6} {'n':>6}")  # fmt: skip
        groups = [(label, [b]) for b, label in enumerate(BUCKETS)]
        for label, buckets in groups + [("all", list(range(len(BUCKETS))))]:
            n = sum(self.n[b] for b in buckets)
            discarded = sum(self.discarded[b] for b in buckets)
            if n == 0:
                continue
            for row, name in rows.items():
                s = sum((self.sums[(row, b)] for b in buckets if (row, b) in self.sums),
                        np.zeros(SUMS))  # fmt: skip
                ready = f"{100 * s[3] / discarded:6.1f}" if discarded else f"{'-':>6}"
                if row == self.TRUE:
                    errors, missed = f"{'-':>6} {'-':>6} {'-':>6}", f"{'-':>6}"
                else:
                    errors = f"{s[0] / n:6.2f} {s[1] / n:+6.2f} {s[2] / n:6.2f}"
                    missed = f"{100 * s[5] / n:6.1f}"
                print(f"{label:>8} {name:>9} {errors} {s[4] / n:6.2f} {ready} {missed} {n:6d}")


def bucket_of(discards: int) -> int:
    """The row of ``BUCKETS`` for an opponent's discards so far."""
    return min(discards // 2, len(BUCKETS) - 1)


class View:
    """Seat 0's view and the true hands, replayed event by event."""

    def __init__(self, rules: Any) -> None:
        self.rules = rules
        self.players = rules.players
        self.n_cards = 52 + rules.jokers
        self.hands = [0] * self.players
        self.pile: list[int] = []
        self.taken = [0] * self.players
        self.discarded = [0] * self.players
        self.discards = [0] * self.players  # discard events (a card thrown twice: twice)
        self.stock_n = self.n_cards - self.players * rules.cards_per_hand - 1
        self.rebuilds = 0
        self.rebuilt = 0
        self.turn = 0
        self.upcard = -1
        self.dealer = self.players - 1  # single deals: the last seat deals
        self.mover = -1
        self.asking = 0  # upcard option questions left
        self.stock_next = False  # both passed: the next draw is from the stock, no choice
        self.to_draw = False  # ``mover`` has not drawn yet (nor passed this question)
        self.drawn = -1
        self.from_pile = False

    def apply(self, event: tuple[int, int, int, int]) -> None:
        code, seat, card, extra = event
        bit = 1 << card if card >= 0 else 0
        if code == E.EV_DEAL:
            self.hands[seat] = extra
        elif code == E.EV_UPCARD:
            self.pile = [card]
            self.upcard = card
            self.mover = (self.dealer + 1) % self.players
            self.asking = 2 if self.rules.upcard_option else 0
            self.to_draw = True
        elif code == E.EV_PASS:
            self.asking -= 1
            if self.asking == 1:
                self.mover = self.dealer
            else:
                self.mover = (self.dealer + 1) % self.players
                self.stock_next = True
            self.to_draw = True  # the next question, or the non-dealer's forced draw
        elif code == E.EV_REBUILD:
            self.to_draw = False
            self.rebuilt = sum(1 << c for c in self.pile[:-1])
            self.stock_n = len(self.pile) - 1
            self.pile = self.pile[-1:]
            self.rebuilds = extra
        elif code in (E.EV_DRAW_PILE, E.EV_DRAW_STOCK):
            if code == E.EV_DRAW_PILE:
                assert self.pile.pop() == card
                self.taken[seat] |= bit
            else:
                self.stock_n -= 1
            self.hands[seat] |= bit
            self.turn += 1
            self.to_draw = False
            self.asking = 0
            self.stock_next = False
            self.drawn, self.from_pile = card, code == E.EV_DRAW_PILE
        elif code == E.EV_DISCARD:
            self.hands[seat] &= ~bit
            self.pile.append(card)
            self.discarded[seat] |= bit
            self.discards[seat] += 1
            self.taken[seat] &= ~bit
            self.mover = (seat + 1) % self.players
            self.drawn, self.from_pile = -1, False
            self.to_draw = True
        elif code == E.EV_KNOCK:
            self.hands[seat] &= ~bit
        elif code == E.EV_EXHAUSTED:
            self.to_draw = False

    def draw_decision(self, nxt: tuple[int, int, int, int]) -> bool:
        """Whether seat 0 chose between the pile and the stock (or took or passed the
        upcard) before event ``nxt``: the engine asks only with a pile to take from,
        and not for the draw after both passed the upcard."""
        return (
            self.to_draw and self.mover == 0 and not self.stock_next and bool(self.pile)
            and nxt[0] in DRAWS
        )  # fmt: skip

    def obs(self, phase: int, compiled: Any, tab: Any) -> Any:
        pile = np.zeros(L.DECK_CAPACITY, np.int64)
        pile[: len(self.pile)] = self.pile
        discard = phase == PHASE_DISCARD
        return make_obs(
            0, self.players, self.hands[0], pile, len(self.pile),
            np.array(self.taken, np.int64), np.array(self.discarded, np.int64), self.stock_n,
            self.rebuilds, self.rebuilt, self.turn, phase, self.upcard,
            self.drawn if discard else -1, self.from_pile and discard, self.dealer, compiled,
            np.zeros(self.players, np.int64), tab, 0,
        )  # fmt: skip

    def check(self, obs: Any) -> None:
        """The view is one the engine could give: the card counts add up, and every
        opponent's true hand is its known cards and hidden ones."""
        hs = self.rules.cards_per_hand
        assert K.hidden_count_consistent(obs)
        hidden = int(K.hidden_cards(obs))
        held = sum(popcount(h) for h in self.hands)
        assert held + len(self.pile) + self.stock_n == self.n_cards
        assert popcount(self.hands[0]) == hs + (1 if obs.phase == PHASE_DISCARD else 0)
        for s in range(1, self.players):
            assert popcount(self.hands[s]) == hs
            assert self.taken[s] & ~self.hands[s] == 0
            assert self.hands[s] & ~(hidden | self.taken[s]) == 0


def decisions(replay: Any, at: str) -> Iterator[tuple[int, View, Any]]:
    """Seat 0's decisions in a hand's replay (``at``: both, draw or discard): the
    event index the decision comes before, the replayed view and seat 0's ``Obs``.
    At the hand's end the replayed hands must be the engine's."""
    rules = replay.rules
    compiled, tab = rules.compile(), tables_for(rules)
    view = View(rules)
    events = replay.events
    for i, event in enumerate(events):
        view.apply(event)
        if i + 1 == len(events):
            break
        if view.draw_decision(events[i + 1]):
            phase = PHASE_UPCARD_OPTION if view.asking > 0 else PHASE_DRAW
        elif event[0] in (E.EV_DRAW_PILE, E.EV_DRAW_STOCK) and event[1] == 0:
            phase = PHASE_DISCARD  # seat 0 has drawn: its discard (and knock) decision
        else:
            continue
        if at == "both" or (at == "discard") == (phase == PHASE_DISCARD):
            obs = view.obs(phase, compiled, tab)
            view.check(obs)
            yield i + 1, view, obs
    assert view.hands == replay.final_hands, (replay.deal, view.hands, replay.final_hands)


def check_greedy(replay: Any, at: int, obs: Any) -> None:
    """Where seat 0 plays greedy, its own decision on the replayed ``Obs`` is the one
    the log shows (taken or not; the card thrown): the view is the engine's."""
    strategy, params = replay.lineup.seats[0]
    if strategy.name != "greedy":
        return
    code, seat, card, _ = replay.events[at]
    scratch = np.zeros(SCRATCH_SIZE, np.int64)  # no memo: decided afresh
    if obs.phase == PHASE_DISCARD:
        if code in (E.EV_DISCARD, E.EV_KNOCK):
            assert memo_discard(obs, scratch) == card, (replay.deal, at)
    else:
        took = code == E.EV_DRAW_PILE and seat == 0
        assert memo_take(obs, np.int64(params.min_gain), scratch) == took, (replay.deal, at)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rules", default="gin")
    parser.add_argument("--players", type=int, default=None)
    parser.add_argument("--deals", type=int, default=300)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--samples", type=int, default=50, help="per position and model")
    parser.add_argument("--seats", default="greedy", help="the line-up (seat 0 first)")
    parser.add_argument("--at", choices=("both", "draw", "discard"), default="both")
    parser.add_argument(
        "--known",
        action="store_true",
        help="the played and history models replay each opponent by its own strategy "
        "(as mc:opponents=known does), not the rollout policy",
    )
    args = parser.parse_args()
    overrides = {} if args.players is None else {"players": args.players}
    rules = get_rules(args.rules, **overrides)
    players, tab = rules.players, tables_for(rules)
    rows = {number: name for name, number in sorted(K.MODELS.items(), key=lambda x: x[1])}
    table = Table()
    base_key = np.uint64(key_of(args.seed))
    positions = skipped = made = 0
    making = 0.0  # seconds the history model spent making its hands
    known = known_engine(rules, args.seats) if args.known else None
    start = time.perf_counter()
    for deal in range(args.deals):
        replay = replay_hand(rules, args.seats, seed=args.seed, deal=deal)
        scratch = np.zeros(SCRATCH_SIZE, np.int64)  # seat 0's notes, as mc keeps them
        for at, view, obs in decisions(replay, "both"):
            check_greedy(replay, at, obs)
            note_opponent_turn(obs, scratch)
            if obs.phase == PHASE_DISCARD:
                note_own_discard(obs, scratch, np.int64(replay.events[at][2]))
            if args.at != "both" and (args.at == "discard") != (obs.phase == PHASE_DISCARD):
                continue
            if view.rebuilds > 0:
                skipped += 1
                continue
            positions += 1
            threshold = int(K.shown_floor(obs.rules, view.upcard))
            truth = np.zeros(2 * players, np.int64)
            for s in range(1, players):
                truth[s] = min_deadwood_one(view.hands[s], tab)
                truth[players + s] = view.hands[s]
            key = np.uint64(random64(base_key, np.int64(deal * 4096 + at)))  # one per position
            sums = {}
            for m in rows:
                sums[m] = np.zeros((players, SUMS))
                if known is None:
                    measure(obs, m, key, args.samples, truth, threshold, scratch, sums[m])
                    continue
                seconds = measure_known(*known, obs, m, key, args.samples, truth, threshold,
                                        scratch, sums[m])  # fmt: skip
                if m == K.MODEL_HISTORY and scratch[H_COUNT] > 0:
                    made += 1
                    making += seconds
            for s in range(1, players):
                b, discarded = bucket_of(view.discards[s]), view.discards[s] > 0
                table.n[b] += 1
                table.discarded[b] += discarded
                for m in rows:
                    table.add(m, b, sums[m][s] / args.samples, discarded)
                dw = truth[s]
                table.add(Table.TRUE, b, np.array([0, 0, 0, dw <= threshold, dw, 0]), discarded)
    seconds = time.perf_counter() - start
    print(
        f"rules {rules.name}, players {players}, seats {args.seats}, seed {args.seed}, "
        f"{args.deals} deals, decisions of seat 0: {args.at}; {positions} positions "
        f"({skipped} after a stock rebuild left out), {args.samples} samples per model, "
        f"{seconds:.0f} s"
    )
    table.print(rows | {Table.TRUE: "true"})
    if made:
        print(f"history model: {1000 * making / made:.1f} ms a decision to make its hands "
              f"({made} decisions with notes)")  # fmt: skip


if __name__ == "__main__":
    main()
