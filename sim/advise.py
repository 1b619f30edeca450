"""Advice for one position: every legal action scored by determinized Monte Carlo.

>>> from sim.advise import Position, advise
>>> pos = Position.parse("gin", hand="9C 9D 9H JS QS KS AD 4D 2H 3S JC", pile="5S KC")
>>> result = advise(pos, samples=2000, seed=1)
>>> result.actions[0].label, result.actions[0].points   # the best action first

The position is this seat's view (seat 0 unless ``seat`` says otherwise): its hand,
the discard pile bottom to top, the cards each opponent took from the pile and still
holds, and optionally the cards each opponent discarded (by default the pile's cards
are attributed to the players in turn order, backwards from the top), the stock
size, the turn and the game scores. With ``hand_size`` cards the decision is the draw
(take the pile's
top card, or draw from the stock; ``upcard_option`` makes it the first turn's take or
pass); with one card more it is the discard: every legal discard, each followed by
playing on and (when legal) by knocking, and big gin when ready.

Each action is played on the same sampled deals by ``kernels.mc.evaluate`` (the
engine's ``mc`` strategy uses the same kernel): its expected net points (its points
minus the mean of the others', per hand) with a Student t interval, its win
probability with a Wilson interval, and its paired difference from the best action.
Samples are taken in rounds of ``ROUND`` from one seeded stream: the same seed and
sample count always give the same answer; a time limit only decides after how many
rounds to stop (the count used is reported).
"""

from __future__ import annotations

import math
import time
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from kernels import mc as K
from kernels.engine import MAX_TURNS
from kernels.layout import POINT_SCALE
from kernels.obs import (
    PHASE_DISCARD,
    PHASE_DRAW,
    PHASE_UPCARD_OPTION,
    SCRATCH_SIZE,
    Obs,
)
from kernels.view import pack
from sim.cards import (
    JOKERS,
    N_NATURAL,
    PositionReader,
    card_name,
    format_cards,
    mask_of,
    parse_card_list,
)
from sim.engine import key_of
from sim.limits import MAX_SEED
from sim.rules import MAX_KNOCK_LIMIT, RuleSet, get_rules
from sim.sizes import ADVISE_SEED, DEFAULT_SAMPLES
from sim.solver import min_deadwood, tables_for
from sim.stats import Interval, mean_ci, paired_difference, wilson
from sim.warm import FIRST, ensure, warm_entry

ROUND = 250  # samples per round (the unit a time limit stops on)
MAX_SAMPLES = 1_000_000  # every sample's value is kept (paired tests): 8 bytes per action
MAX_SCORE = 10**9  # game scores a position may name: far above any game's, inside int64
# The opponent models by name (their one home: kernels/mc.py), but the history model:
# it replays the opponent's turns as a seat notes them in play, and a position has none.
MODELS = {name: number for name, number in K.MODELS.items() if number != K.MODEL_HISTORY}
MODEL_NAMES = {n: name for name, n in MODELS.items()}


def model_refused(model: str) -> str:
    """Why ``rummy advise`` does not sample by ``model``, and what it offers."""
    why = "unknown"
    if model in K.MODELS:  # the history model: mc's, in play
        why = "mc's in play only (it replays the opponent's turns mc notes; a position has none)"
    return f"model {model!r} is {why}; choose one of: {', '.join(MODELS)}"


class AdviseError(ValueError):
    """A position that cannot arise (sizes, repeated cards, a bad seat)."""


@dataclass(frozen=True)
class Position:
    """One seat's view of a hand in progress (masks of card indices)."""

    rules: RuleSet
    hand: int
    pile: tuple[int, ...]  # bottom to top
    took: tuple[int, ...]  # per seat: cards taken from the pile and still held
    discarded: tuple[int, ...]  # per seat: cards discarded this hand
    stock: int
    seat: int = 0
    dealer: int = -1  # -1: the seat before ``seat`` (so ``seat`` moved first)
    turn: int = 0
    upcard: int = -1  # the first upcard; -1: the bottom of the pile
    just_took: int = -1  # card just taken from the pile (may not be discarded)
    upcard_option: bool = False
    scores: tuple[int, ...] = field(default=())
    rebuilds: int = 0  # times the stock was rebuilt from the pile this hand

    @classmethod
    def parse(
        cls,
        rules: RuleSet | str,
        *,
        hand: str,
        pile: str = "",
        took: dict[int, str] | None = None,
        discarded: dict[int, str] | None = None,
        stock: int | None = None,
        seat: int = 0,
        dealer: int | None = None,
        turn: int = 0,
        upcard: str | None = None,
        just_took: str | None = None,
        upcard_option: bool = False,
        scores: list[int] | None = None,
        rebuilds: int = 0,
    ) -> Position:
        """A position from card text; checks that it can arise (``AdviseError``)."""
        r = get_rules(rules) if isinstance(rules, str) else rules
        players, hs = r.players, r.cards_per_hand
        if not 0 <= seat < players:
            raise AdviseError(
                f"seat {seat} is not a seat of a {players}-player game (0..{players - 1})"
            )
        # One reader for the whole position: a JK in the hand and one in the pile (or
        # an opponent's cards) are the two jokers.
        reader = PositionReader(jokers=r.jokers)
        hand_mask = reader.mask(hand)
        pile_cards = tuple(reader.cards(pile)) if pile.strip() else ()
        n_hand = bin(hand_mask).count("1")
        if n_hand not in (hs, hs + 1):
            raise AdviseError(
                f"the hand holds {n_hand} cards; {r.name} needs {hs} (draw decision) "
                f"or {hs + 1} (discard decision)"
            )
        seen = hand_mask
        for card in pile_cards:
            if (seen >> card) & 1:
                raise AdviseError(
                    f"card {card_name(card)} is both in the hand and in the pile, "
                    "or twice in the pile"
                )
            seen |= 1 << card
        took_masks = [0] * players
        disc_masks = [0] * players
        for name, source, target in (
            ("--took", took, took_masks),
            ("--discarded", discarded, disc_masks),
        ):
            for s, text in (source or {}).items():
                if not 0 <= s < players or s == seat:
                    raise AdviseError(
                        f"{name} seat {s} must be an opponent's seat (0..{players - 1}, not {seat})"
                    )
                if name == "--took":
                    target[s] = reader.mask(text)
                else:  # thrown cards lie in the pile: a JK there is the pile's joker
                    pile_jokers = [c for c in pile_cards if c in JOKERS]
                    cards = parse_card_list(text, jokers=r.jokers)
                    target[s] = mask_of(
                        pile_jokers.pop(0) if c in JOKERS and pile_jokers else c for c in cards
                    )
        if discarded is None:
            # Attribute the pile's discards to the players in turn order, backwards from
            # the top (the seat before this one threw it): right when nobody took a card.
            for i, card in enumerate(reversed(pile_cards[1:])):
                disc_masks[(seat - 1 - i) % players] |= 1 << card
            disc_masks[seat] = 0
        for s in range(players):
            if took_masks[s] & seen:
                raise AdviseError(
                    f"--took {s}: {format_cards(took_masks[s] & seen)} already placed elsewhere"
                )
            if bin(took_masks[s]).count("1") > hs:
                raise AdviseError(f"--took {s}: an opponent holds only {hs} cards")
            seen |= took_masks[s]
        n_cards = 52 + r.jokers
        unseen = n_cards - bin(seen).count("1")
        hidden_in_hands = sum(
            hs - bin(took_masks[s]).count("1") for s in range(players) if s != seat
        )
        if stock is None:
            stock = unseen - hidden_in_hands
        if stock < 0 or stock != unseen - hidden_in_hands:
            raise AdviseError(
                f"stock {stock} does not fit the position: {unseen} unseen cards minus "
                f"{hidden_in_hands} unseen cards in the opponents' hands "
                f"leaves {unseen - hidden_in_hands}"
            )
        if not pile_cards and n_hand == hs:
            raise AdviseError(
                "a draw decision needs a discard pile (--pile); "
                "with none, the stock is the only draw"
            )

        def named(option: str, token: str, among: int) -> int:
            """A card named on its own; ``JK`` only where the rules deal jokers (the
            reader names one even then: it points at a card already placed)."""
            card = reader.card(token, among=among)
            if card >= N_NATURAL and not r.jokers:
                raise AdviseError(f"{option} {token}: {r.name} has no jokers (jokers = 0)")
            return card

        jt = -1
        if just_took is not None:
            jt = named("--just-took", just_took, hand_mask)
            if n_hand != hs + 1 or not (hand_mask >> jt) & 1:
                raise AdviseError(
                    f"--just-took {just_took}: must be a card of a hand of {hs + 1} cards"
                )
        up = -1
        if upcard is not None:
            up = named("--upcard", upcard, sum(1 << c for c in pile_cards[:1]))
        elif pile_cards:
            up = pile_cards[0]
        if up < 0:
            raise AdviseError(
                "the first upcard is unknown: give --upcard "
                "(the knock limit or spade double may need it)"
            )
        if upcard_option and (n_hand != hs or players != 2 or len(pile_cards) != 1):
            raise AdviseError(
                "--upcard-option is the first turn of a 2-player hand: "
                "the hand and the upcard alone"
            )
        dealer_seat = (seat - 1) % players if dealer is None else dealer
        if not 0 <= dealer_seat < players:
            raise AdviseError(f"dealer {dealer_seat} is not a seat (0..{players - 1})")
        sc = tuple(scores or [0] * players)
        if len(sc) != players:
            raise AdviseError(f"--scores needs {players} numbers, one per seat, got {len(sc)}")
        if any(abs(x) > MAX_SCORE for x in sc):
            raise AdviseError(f"--scores must lie within -{MAX_SCORE:,}..{MAX_SCORE:,} points")
        most = 0 if r.stock_exhaustion == "dead_hand" else r.max_rebuilds
        if not 0 <= rebuilds <= most:
            raise AdviseError(
                f"--rebuilds {rebuilds}: {r.name} allows 0..{most} stock rebuilds "
                f"(stock_exhaustion = {r.stock_exhaustion}, max_rebuilds = {r.max_rebuilds})"
            )
        if not 0 <= turn < MAX_TURNS:
            raise AdviseError(f"--turn must be 0..{MAX_TURNS - 1} (draws made so far), got {turn}")
        return cls(
            r,
            hand_mask,
            pile_cards,
            tuple(took_masks),
            tuple(disc_masks),
            stock,
            seat,
            dealer_seat,
            turn,
            up,
            jt,
            upcard_option,
            sc,
            rebuilds,
        )

    @property
    def phase(self) -> int:
        if bin(self.hand).count("1") == self.rules.cards_per_hand + 1:
            return PHASE_DISCARD
        return PHASE_UPCARD_OPTION if self.upcard_option else PHASE_DRAW

    def obs(self, key: np.uint64) -> Any:
        """The kernel's observation of this position."""
        r = self.rules
        pile = np.zeros(128, np.int64)
        pile[: len(self.pile)] = self.pile
        scores = np.array(self.scores, np.int64) * POINT_SCALE
        return make_obs(
            self.seat,
            r.players,
            self.hand,
            pile,
            len(self.pile),
            np.array(self.took, np.int64),
            np.array(self.discarded, np.int64),
            self.stock,
            self.rebuilds,
            0,  # which cards the last rebuild put into the stock: not asked (all hidden)
            self.turn,
            self.phase,
            self.upcard,
            self.just_took,
            self.just_took >= 0,
            self.dealer,
            r.compile(),
            scores,
            tables_for(r),
            key,
        )


def make_obs(
    seat: int,
    players: int,
    hand: int,
    pile: np.ndarray,
    pile_n: int,
    taken: np.ndarray,
    discarded: np.ndarray,
    stock_n: int,
    rebuilds: int,
    rebuilt: int,
    turn: int,
    phase: int,
    upcard: int,
    drawn: int,
    from_pile: bool,
    dealer: int,
    rules: np.ndarray,
    scores: np.ndarray,
    tab: np.ndarray,
    rng_key: int | np.uint64,
) -> Obs:
    """A kernel :class:`Obs` from plain values, typed as the engine types it: numba
    types each Python int as int64, and the key is a uint64 (a key above 2**63 must
    stay unsigned)."""
    return Obs(
        int(seat),
        int(players),
        int(hand),
        pile,
        int(pile_n),
        taken,
        discarded,
        int(stock_n),
        int(rebuilds),
        int(rebuilt),
        int(turn),
        int(phase),
        int(upcard),
        int(drawn),
        bool(from_pile),
        int(dealer),
        rules,
        scores,
        tab,
        np.uint64(rng_key),
    )


@dataclass(frozen=True)
class ActionAdvice:
    label: str
    kind: str  # take, draw, pass, discard, knock, big_gin
    card: str | None
    points: Interval  # expected net points per hand
    win: Interval  # probability of winning the hand
    vs_best: Interval  # paired difference from the best action (0 for the best)
    p_value: float  # of the paired difference from the best


@dataclass(frozen=True)
class Advice:
    actions: list[ActionAdvice]  # best first
    samples: int
    seconds: float
    seed: int
    model: str
    deadwood: int
    rollout_knock_at: int  # your rollouts knock at this deadwood or less
    rollout_throws_for_gin: bool  # ... and throw the card with the fewest meld partners
    rollout_opponents: str | None = None  # the opponents' strategy in the rollouts (None: greedy)
    inference_misses: int = 0  # sampled opponent hands that fit nothing shown (models 2-4)

    def as_dict(self) -> dict[str, Any]:
        return {
            "samples": self.samples,
            "seconds": round(self.seconds, 3),
            "seed": self.seed,
            "model": self.model,
            "deadwood": self.deadwood,
            "rollout_knock_at": self.rollout_knock_at,
            "rollout_throws_for_gin": self.rollout_throws_for_gin,
            "inference_misses": self.inference_misses,
            # (only when given: the key is new, and advice without it reads as before)
            **(
                {}
                if self.rollout_opponents is None
                else {"rollout_opponents": self.rollout_opponents}
            ),  # fmt: skip
            "actions": [
                {
                    "action": a.label,
                    "kind": a.kind,
                    "card": a.card,
                    **a.points.as_dict("points"),
                    **a.win.as_dict("win"),
                    **a.vs_best.as_dict("vs_best"),
                    "p_value": a.p_value,
                }
                for a in self.actions
            ],
        }


def actions_of(pos: Position, key: np.uint64) -> tuple[np.ndarray, np.ndarray]:
    """Every legal action of the position (kinds and cards)."""
    if pos.phase == PHASE_DISCARD:
        return K.discard_actions(pos.obs(key), pos.just_took, 0, 0)
    return np.array([K.ACT_TAKE, K.ACT_DRAW], np.int64), np.full(2, -1, np.int64)


def _label(pos: Position, kind: int, card: int) -> tuple[str, str]:
    if kind == K.ACT_TAKE:
        return f"take {card_name(pos.pile[-1])}", "take"
    if kind == K.ACT_DRAW:
        if pos.phase == PHASE_UPCARD_OPTION:
            return "pass", "pass"
        return "draw", "draw"
    if kind == K.ACT_KNOCK:
        return f"knock {card_name(card)}", "knock"
    if kind == K.ACT_BIG_GIN:
        return "big gin", "big_gin"
    return f"discard {card_name(card)}", "discard"


def _known_opponents(pos: Position, obs: Any, rollout_at: int, min_gain: int,
                     opponents: str) -> tuple[Any, ...]:  # fmt: skip
    """``rollout_values`` of the engine of strategies, and a function that gives its
    arguments for a round of samples (``advise``'s calls, ``warm``'s compile): your
    view, the line-up's ids, rows and turn words (your seat greedy at the rollout's
    threshold, every other the ``opponents`` spec) around the samples' arrays."""
    from sim import rollouts
    from sim.engine import Lineup, engine_of
    from strategies import StrategyError, parse_seat
    from strategies.agent import AgentStrategy

    try:
        theirs = parse_seat(opponents, rules=pos.rules)
    except StrategyError as exc:
        raise AdviseError(f"--opponents: {exc}") from None
    if isinstance(theirs[0], AgentStrategy):  # rollouts replay one position many times
        raise AdviseError(
            f"--opponents: {opponents!r} is an agent; the rollouts play compiled "
            "strategies only (docs/AGENTS.md)"
        )
    threshold = int(K.rollout_threshold(obs.rules, obs.upcard, rollout_at))
    yours = parse_seat(f"greedy:knock_at={threshold},min_gain={min_gain}")
    players = int(obs.players)
    seats = Lineup(tuple(yours if s == pos.seat else theirs for s in range(players)))
    engine, sids, params = engine_of(seats, pos.rules)
    view = pack(obs, np.zeros(SCRATCH_SIZE, np.int64))
    words = rollouts.turn_words(seats.seats)

    def args(kinds: Any, cards: Any, key: Any, first: int, model: Any, net: Any, won: Any,
             ends: Any, inference: Any) -> tuple[Any, ...]:  # fmt: skip
        return (view, obs.rules, obs.tab, kinds, cards, key, first, model, sids, params, words,
                net, won, ends, inference)  # fmt: skip

    return engine.rollout_values, args


def advise(
    pos: Position,
    *,
    samples: int = DEFAULT_SAMPLES,
    seed: int = ADVISE_SEED,
    time_limit: float | None = None,
    model: str | None = None,
    knock_at: int = -1,
    min_gain: int = 1,
    throw_for_gin: bool = True,
    opponents: str | None = None,
) -> Advice:
    """Score every legal action of ``pos`` on ``samples`` sampled deals (in rounds of
    ``ROUND``; with ``time_limit`` seconds, stop after the round that reaches it).
    Your rollouts play as ``mc``'s with its defaults where no opponent has knocked with
    deadwood yet in the game: they throw for gin where they play for gin
    (``kernels.mc.rollout_policy``), unless ``throw_for_gin`` is False.

    ``opponents`` (a seat spec, e.g. ``greedy:knock_at=0``): the opponents you know,
    played by their own strategy in every rollout (from the position on, with no memory
    of the hand before it); your rollouts then play ``greedy`` at the rollout's knock
    threshold (never throwing for gin). Without it every opponent is rolled out as
    greedy knocking at the rule's limit.

    ``model`` (a name of ``MODELS``) samples the opponents' unseen cards; None, as
    ``mc`` by default: the model ``kernels.mc.model_for`` chooses for the rules."""
    if not 2 <= samples <= MAX_SAMPLES:
        raise AdviseError(f"samples must be 2..{MAX_SAMPLES:,}, got {samples}")
    if time_limit is not None and not (math.isfinite(time_limit) and time_limit > 0):
        raise AdviseError(f"the time limit must be a positive number of seconds, got {time_limit}")
    if not -1 <= knock_at <= MAX_KNOCK_LIMIT:
        raise AdviseError(f"knock_at must be -1..{MAX_KNOCK_LIMIT}, got {knock_at}")
    if not -MAX_KNOCK_LIMIT <= min_gain <= MAX_KNOCK_LIMIT:
        raise AdviseError(f"min_gain must be {-MAX_KNOCK_LIMIT}..{MAX_KNOCK_LIMIT}, got {min_gain}")
    if not 0 <= seed <= MAX_SEED:
        raise AdviseError(f"the seed must be 0..{MAX_SEED}, got {seed}")
    if model is not None and model not in MODELS:
        raise AdviseError(model_refused(model))
    key = key_of(seed)
    obs = pos.obs(key)
    number = K.model_for(
        obs.rules, np.int64(K.MODEL_FROM_RULES if model is None else MODELS[model])
    )
    kinds, cards = actions_of(pos, key)
    # As mc in a game's first hand: the opponents' rollouts knock at the limit.
    rollout_at = K.rollout_policy(
        obs.rules, np.int64(knock_at), np.int64(throw_for_gin and opponents is None), np.int64(0)
    )
    play = None
    if opponents is not None:
        play = _known_opponents(pos, obs, rollout_at, min_gain, opponents)
    n = kinds.shape[0]
    net = np.zeros((n, samples))
    won = np.zeros((n, samples), np.int8)
    start = time.perf_counter()
    done = misses = 0
    inference = K.new_inference()  # no notes of the opponent's turns: a position has none
    while done < samples:
        m = min(ROUND, samples - done)
        part_net = np.zeros((n, m))
        part_won = np.zeros((n, m), np.int8)
        part_ends = np.zeros((n, m), np.int8)
        if play is None:
            misses += K.evaluate(obs, kinds, cards, key, done, number, rollout_at,
                                 min_gain, part_net, part_won, part_ends,
                                 inference)  # fmt: skip
        else:  # the engine of strategies plays the same samples
            values, args = play
            misses += values(*args(kinds, cards, key, done, number, part_net, part_won,
                                   part_ends, inference))  # fmt: skip
        net[:, done : done + m] = part_net
        won[:, done : done + m] = part_won
        done += m
        if time_limit is not None and time.perf_counter() - start >= time_limit and done >= 2:
            break
    seconds = time.perf_counter() - start
    net, won = net[:, :done], won[:, :done]
    means = net.mean(axis=1)
    best = int(np.argmax(means))
    out = []
    for a in range(n):
        label, kind = _label(pos, int(kinds[a]), int(cards[a]))
        diff = paired_difference(net[a], net[best])
        out.append(
            ActionAdvice(
                label,
                kind,
                card_name(int(cards[a])) if cards[a] >= 0 else None,
                mean_ci(net[a]),
                wilson(int(won[a].sum()), done),
                diff.ci,
                1.0 if a == best else diff.p_value,
            )
        )
    order = sorted(range(n), key=lambda a: (-means[a], a))
    hand = pos.hand
    deadwood = int(min_deadwood(np.array([hand], np.uint64), pos.rules)[0])
    threshold = int(K.rollout_threshold(obs.rules, obs.upcard, rollout_at))
    throws = bool(K.throws_for_gin(rollout_at))
    model = MODEL_NAMES[int(number)]
    return Advice([out[a] for a in order], done, seconds, seed, model, deadwood, threshold, throws,
                  opponents, int(misses))  # fmt: skip


@warm_entry("advise: rollouts of known opponents", FIRST)
def _warm_known_opponents() -> None:
    """Compile (or load) the rollout steps ``rummy advise --opponents`` calls from
    Python around the engine of strategies: ``warm``'s longest compile (the engine's
    rollout path; docs/ENGINE.md, "Compile time"), queued first, so that it runs beside
    the other units rather than after them. The rollouts compile before they run; only
    then do two samples of one position play, and by then the pieces they call
    (compiled by the other units meanwhile) load from the cache rather than compile
    here a second time."""
    pos = Position.parse("gin", hand="9C 9D 9H JS QS KS AD 4D 2H 3S JC", pile="5S KC 7D 8H 2C")
    key = key_of(ADVISE_SEED)
    obs = pos.obs(key)
    values, args = _known_opponents(pos, obs, 0, 0, "greedy")
    actions, points, flags = np.zeros(1, np.int64), np.zeros((1, 2)), np.zeros((1, 2), np.int8)
    model = K.model_for(obs.rules, np.int64(K.MODEL_FROM_RULES))
    # the same types as advise's calls: one compiled overload
    ensure(values, args(actions, actions, key, 0, model, points, flags, flags, K.new_inference()))
    advise(pos, samples=2, opponents="greedy")


__all__ = ["ActionAdvice", "Advice", "AdviseError", "Position", "advise"]
