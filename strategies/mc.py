"""MC: determinized Monte Carlo; plays every action out on sampled deals.

In plain words:

* At each decision (take the pile card or draw; which card to discard; knock
  or not) it deals the cards it cannot see ``samples`` times at random, each
  time consistently with what it has seen (its hand, the discard pile, the
  cards each opponent took from the pile and still holds, every hand's size
  and the stock's), plays each possible action on each of those deals to the
  end of the hand with a fast greedy policy in every seat, and picks the
  action with the best mean result in points (its points minus the mean of
  the others'). A knock is scored at once against the sampled hands,
  lay-offs included. With ``stop`` > 0 (the default, 2) the samples come in
  rounds of ``step``, and an action clearly worse than the best so far (its
  paired difference below zero by more than ``stop`` standard errors) is dropped:
  a clear decision ends after a round or two, a close one plays all ``samples``.
* Opponents' unseen cards (``model``): 1 "kept", an opponent that has thrown D
  cards holds a hand improved by D greedy turns; 2 "inferred", kept and never
  melding with a card it threw or passed; 3 "shown", inferred and, having
  discarded, holding more deadwood than a greedy knock (the rule's limit, or
  greedy's tuned threshold for the player count where any deadwood may knock:
  it did not knock); 4 "played", the default's and, with each sample dealt
  again while it does not fit, the seat before this one would have played its
  last turn as it did by its strategy in the rollouts (the card thrown, playing
  on, and with two players the pile card taken or passed); 5 "history", with two
  players, a hand that would have played every turn of the opponent this seat
  saw this hand as it was played, by its strategy in the rollouts; 0 uniform. The
  default, -1, is chosen from the rules (``model_for``): shown where any
  deadwood may knock (Knock Rummy), kept elsewhere.
* A discard decision tries the ``candidates`` best discards by the deadwood
  they leave (every card when 0), and where the rollouts throw for gin (below)
  also the ``gin_candidates`` first natural cards in ``gin_drop``'s order (fewest
  meld partners); each is followed by playing on and, when the knock is legal,
  by knocking. Big gin is taken whenever the rules allow it. With ``screen`` > 0
  and more than ``finalists`` actions, a first round of ``screen`` samples each
  keeps the ``finalists`` best for the other samples (-1, the default: 50 where
  the rollouts throw for gin, which pays for the gin candidates; else none).
* In whole games with a target (``gin:T``, ``match:T``) a sampled hand that
  takes it to the target first counts ``game_weight`` points more, one that
  takes an opponent there ``game_weight`` points less.
* The rollout policy is greedy with ``min_gain`` (see ``greedy``); this seat
  knocks in rollouts at ``knock_at`` or less, modelled opponents at the rule's limit
  (or 10). The default, -1, is chosen from the rules (``rollout_knock_at``) as
  greedy's tuned threshold there: play for gin (0) under Gin scoring with gin
  and undercut bonuses of 25 or more outside Hollywood games (gin, eaai,
  oklahoma-gin); greedy's tuned threshold for the player count where any
  deadwood may knock (Knock Rummy: 26 with 4 players); elsewhere the rule's
  limit (gin-classic, hollywood-gin, round-the-corner-gin). Rollouts that play
  for gin also throw for gin (``gin_drop``): the card with the fewest meld
  partners in the hand, not the least-deadwood one, which throws high pairs and
  near runs. That is stronger against a player who waits for gin and weaker
  against one who knocks early (docs/MC.md), so by default (-1) they do it
  until an opponent has knocked with deadwood in this game (the engine's count
  in the seat's game memory), and never after; 1 always, 0 never. While they
  throw for gin, ``waiters`` models the opponents as players who wait for gin
  too: their rollouts knock only at 5 or less, not at the limit. By default
  (-1) from the game's second hand on, when no opponent has knocked with
  deadwood in the first hands; 1 always, 0 never (the knocks at the limit that
  such an opponent does not make had this seat knock too often, late in the
  hand, and be undercut: docs/MC.md). ``budget``
  caps the rollouts of one decision (0: no cap; else ``samples`` is cut so that
  actions x samples <= budget).
* Who plays the rollouts: ``opponents`` ``known`` (the default) rolls each
  opponent out with its own strategy in the study (one that is itself an ``mc``:
  its ``rollout``, else under Gin scoring the solved chart of the rules, else its
  rollout strategy, ``sim/rollouts.py``; elsewhere, as in ``rummy.player`` or against
  an agent, the model below), a spec every opponent with that strategy, ``policy`` with the
  rollout policy's model (greedy at the rule's limit, or waiters, below);
  ``rollout`` (a seat spec) plays this seat's own part with that strategy. Either way
  but ``policy``, the rollouts run on the engine of every strategy
  (``sim/rollouts.py`` binds the seat's line-up; this seat, where ``rollout`` is
  empty, plays its own policy as the ``rollout`` strategy).
* Every sample comes from this seat's seeded strategy stream, so runs are
  reproducible; it sees only its own observation. Memory: the action chosen with
  the discard (scratch words 1-2), and its notes of the opponent's turns this
  hand, what the history model replays (words 3-63, ``kernels/history.py``).
  Details and measured strength: docs/MC.md.
"""

from __future__ import annotations

import importlib
import threading
import time
from typing import NamedTuple

import numpy as np
from numba import njit, objmode

from kernels.history import copy_notes, note_opponent_turn, note_own_discard
from kernels.link import piece
from kernels.mc import (
    ACT_BIG_GIN,
    ACT_DRAW,
    ACT_KNOCK,
    ACT_TAKE,
    INF_NOTES,
    INFER_TRIES,
    MODEL_FROM_RULES,
    MODELS,
    PLAYED_TRIES,
    discard_actions,
    evaluate,
    new_inference,
    rollout_policy,
    throws_for_gin,
)
from kernels.obs import (
    BIG_GIN,
    CONTINUE,
    DISCARD_HOOK,
    GAME_HANDS,
    GAME_OPP_KNOCKS,
    KNOCK,
    KNOCK_HOOK,
    SCRATCH_FREE,
    SCRATCH_RNG,
    TAKE_HOOK,
    forbidden_discard,
)
from kernels.rng import random64
from kernels.view import pack
from strategies.base import Strategy, param_slots

CHOSEN_KIND = SCRATCH_FREE  # scratch: the action chosen at the discard decision
CHOSEN_CARD = SCRATCH_FREE + 1
# screen=-1: the first round's samples per action where the rollouts throw for gin (and
# the gin candidates add discards to try); elsewhere no first round.
GIN_SCREEN = 50


class Params(NamedTuple):
    """MC's parameters."""

    samples: int = 1200  # sampled deals per decision (at most: ``stop`` ends many sooner)
    candidates: int = 3  # discards tried per decision (0: every card)
    knock_at: int = (
        -1
    )  # rollout policy of this seat: knock at this deadwood or less (-1: from the rules)
    min_gain: int = 1  # rollout policy: take the pile card when it saves this much deadwood
    budget: int = 0  # most rollouts per decision (0: no cap)
    model: int = MODEL_FROM_RULES  # opponents' unseen cards: kernels.mc.MODELS, -1 from the rules
    game_weight: float = 30.0  # points added (taken) when a hand ends the game won (lost)
    gin_drop: int = -1  # rollouts that play for gin throw for gin: 1, 0, -1 until a knock
    screen: int = -1  # first round's samples per action (-1: GIN_SCREEN when throwing for gin)
    finalists: int = 3  # actions the first round keeps for the remaining samples
    gin_candidates: int = 4  # where rollouts throw for gin, discards also tried (gin_drop)
    waiters: int = -1  # throwing for gin, opponents knock at 5 or less: 1, 0, -1 from hand 2
    stop: float = 2.0  # z: rounds of ``step`` samples drop clearly worse actions (0: off)
    step: int = 50  # samples per round where ``stop`` or ``time`` > 0
    time: float = 0.0  # seconds a decision may take at most, checked per round (default: none)
    rollout: str = ""  # this seat's rollout strategy, a seat spec ("": the rollout policy)
    opponents: str = "known"  # the opponents' in the rollouts: a spec, "known" or "policy"


SLOT = param_slots(Params)  # where each field sits in the row the hooks read


@njit(cache=True)
def _decision_key(obs, scratch):
    """A fresh key for this decision from the seat's stream (one counter step each)."""
    key = random64(obs.rng_key, scratch[SCRATCH_RNG])
    scratch[SCRATCH_RNG] += 1
    return key


@njit(cache=True)
def _samples(params, n_actions):
    samples = max(1, np.int64(params[SLOT.samples]))
    budget = np.int64(params[SLOT.budget])
    if budget > 0:
        samples = max(1, min(samples, budget // n_actions))
    return samples


@njit(cache=True, inline="always")
def _bound(params):
    """Whether the rollouts play strategies of a bound line-up: ``sim/rollouts.py``
    writes the handle into ``rollout``'s word where ``rollout`` or ``opponents`` asks
    for strategies. A ``rollout`` spec not bound reads -1 there, and the rollouts stop
    with an error; ``opponents`` alone, not bound (hooks called by hand, outside any
    engine), plays the rollout policy's model, as ``opponents=policy``."""
    return params[SLOT.rollout] != 0


@njit(cache=True)
def _policy(obs, params, scratch):
    """The rollouts' policy for ``evaluate`` (``rollout_policy``). With ``gin_drop``
    -1 they throw for gin until an opponent has knocked with deadwood in this game
    (the engine's count in the seat's game memory): from then on the opponents are
    known to knock early, and the least-deadwood discards play better. With
    ``waiters`` -1, once a hand of the game is over with no such knock the opponents
    are taken to wait for gin: their rollouts knock only at ``WAITERS_KNOCK_AT`` or
    less (the first hand shows a player who knocks early: against one, assuming this
    from the first hand on cost about 2 points of games won, docs/MC.md)."""
    throw_for_gin = np.int64(params[SLOT.gin_drop])
    no_knocks = scratch[GAME_OPP_KNOCKS] == 0
    if throw_for_gin < 0:
        throw_for_gin = np.int64(no_knocks)
    opponents_wait = np.int64(params[SLOT.waiters])
    if opponents_wait < 0:
        opponents_wait = np.int64(no_knocks and scratch[GAME_HANDS] > 0)
    knock_at = np.int64(params[SLOT.knock_at])
    return rollout_policy(obs.rules, knock_at, throw_for_gin, opponents_wait)


def _strategy_rollouts(handle, view, rules, kinds, cards, key, first, model, net, won, ends,
                       inference):  # fmt: skip
    """The bound line-up's rollouts (called in object mode). ``sim.rollouts`` bound the
    seat, so it is imported by then (looked up, not imported here: no import cycle)."""
    rollouts = importlib.import_module("sim.rollouts")
    return rollouts.values(
        handle, view, rules, kinds, cards, key, first, model, net, won, ends, inference
    )


_misses = threading.local()  # per thread: a chunk plays on one thread, its count with it


def _count_misses(n: int) -> None:
    _misses.count = getattr(_misses, "count", 0) + n


@njit(cache=True)
def _note_misses(misses):
    """``_count_misses`` from jitted code. A function of its own: numba pickles the
    object-mode block's function to cache its caller, and ``_play``'s globals (the
    ``evaluate`` piece) do not pickle."""
    with objmode():
        _count_misses(misses)


def inference_misses() -> int:
    """Sampled opponent hands dealt on this thread since the last call (which this one
    resets) that fit nothing their opponent showed in ``INFER_TRIES`` deals and kept
    the last deal (``model`` inferred, shown or played), or that the rules' model dealt
    because no hand fit the noted turns (history; ``kernels.mc.deal_sample``): a chunk
    counts its own, and a study says so once (``sim.study.execute``)."""
    n = getattr(_misses, "count", 0)
    _misses.count = 0
    return int(n)


def misses_note(misses: int) -> str:
    """What a study or ``rummy advise`` says once when some of its samples missed."""
    return (
        f"{misses:,} sampled opponent hands fit nothing the opponent showed in "
        f"{INFER_TRIES} deals ({PLAYED_TRIES} under the played model) and kept the last deal, "
        "or under the history model were dealt by the rules' model "
        "(mc's inferred, shown, played or history model, "
        "the shown one its default in Knock Rummy: docs/MC.md)"
    )


@njit(cache=True)
def _play_bound(obs, params, scratch, kinds, cards, key, first, net, won, ends, inference):
    """``evaluate``'s samples played by the line-up bound to this seat: the compiled
    engine of strategies, reached through Python once per decision round."""
    view = pack(obs, scratch)
    rules = obs.rules.copy()
    handle = np.int64(params[SLOT.rollout]) - 1
    model = np.int64(params[SLOT.model])
    with objmode(misses="int64"):
        misses = _strategy_rollouts(
            handle, view, rules, kinds, cards, key, first, model, net, won, ends, inference
        )
    return misses


@njit(cache=True)
def _play(obs, params, scratch, policy, kinds, cards, key, first, net, ends, inference):
    """Samples ``first``.. of every action into ``net`` and ``ends``; the sampled
    opponent hands that fit nothing shown are counted (``inference_misses``).
    ``inference``: the decision's (``_inference``), the same for each of its rounds."""
    won = np.empty(net.shape, np.int8)
    if _bound(params):
        misses = _play_bound(obs, params, scratch, kinds, cards, key, first, net, won, ends,
                             inference)  # fmt: skip
    else:
        model = np.int64(params[SLOT.model])
        min_gain = np.int64(params[SLOT.min_gain])
        misses = evaluate(obs, kinds, cards, key, first, model, policy, min_gain, net, won,
                          ends, inference)  # fmt: skip
    if misses > 0:
        _note_misses(misses)


@njit(cache=True)
def _best_of(net, ends, game_weight):
    """Row with the highest mean utility (first on ties), and the means."""
    n = net.shape[0]
    means = np.empty(n)
    best = 0
    for a in range(n):
        means[a] = net[a].mean() + game_weight * ends[a].mean()
        if means[a] > means[best]:
            best = a
    return best, means


def _clock():
    return time.perf_counter()


@njit(cache=True)
def _now():
    with objmode(t="float64"):
        t = _clock()
    return t


@njit(cache=True)
def _race(obs, params, scratch, policy, kinds, cards, key, samples, game_weight, inference):
    """Index of the best action by successive elimination: rounds of ``step`` samples
    (the same samples, by index, for every action still in), after each of which an
    action is dropped when its paired difference from the best so far is below zero
    by more than ``stop`` standard errors (a difference that is exactly constant:
    when it is not above zero; ``stop`` 0: none is dropped). It ends when one action
    is left, ``samples`` are played or ``time`` seconds have passed; the best is the
    highest mean among those left, all on the same samples (first on ties)."""
    n = kinds.shape[0]
    z = params[SLOT.stop]
    limit = params[SLOT.time]
    start = _now() if limit > 0 else 0.0
    step = max(np.int64(1), np.int64(params[SLOT.step]))
    util = np.empty((n, samples))
    alive = np.ones(n, np.bool_)
    done = np.int64(0)
    best = np.int64(0)
    while True:
        keep = np.nonzero(alive)[0]
        m = min(step, samples - done)
        net = np.empty((keep.shape[0], m), np.float64)
        ends = np.empty((keep.shape[0], m), np.int8)
        _play(obs, params, scratch, policy, kinds[keep], cards[keep], key, done, net, ends,
              inference)  # fmt: skip
        for i in range(keep.shape[0]):
            for j in range(m):
                util[keep[i], done + j] = net[i, j] + game_weight * ends[i, j]
        done += m
        best = keep[0]
        best_mean = util[best, :done].mean()
        for a in keep:
            mean = util[a, :done].mean()
            if mean > best_mean:
                best, best_mean = a, mean
        if done >= samples or (limit > 0 and _now() - start >= limit):
            return best
        if z <= 0:
            continue
        left = 0
        for a in keep:
            d = util[best, :done] - util[a, :done]
            lead = d.mean()
            spread = d.std() * np.sqrt(done / max(done - 1, 1))
            if a != best and (lead > z * spread / np.sqrt(done) or (spread == 0 and lead >= 0)):
                alive[a] = False
            else:
                left += 1
        if left <= 1:
            return best


@njit(cache=True)
def best_action(obs, params, scratch, policy, kinds, cards):
    """Index of the action with the highest mean utility (first on ties), the actions
    played out with ``policy`` (``_policy``'s).

    With ``screen`` > 0 (-1: ``GIN_SCREEN`` where the rollouts throw for gin, else 0)
    and more than ``finalists`` actions, a first round plays ``screen`` samples of
    each (fewer than ``samples``), and only the ``finalists`` best (first on ties)
    play the remaining samples: the same samples (by index) a single round would
    play, so the finalists are compared on all of them, at a fraction of the
    rollouts for the others. With ``stop`` or ``time`` > 0, rounds of ``step``
    samples and successive elimination (``_race``) instead."""
    n = kinds.shape[0]
    samples = _samples(params, n)
    screen = np.int64(params[SLOT.screen])
    if screen < 0:  # screened where the gin candidates add actions
        screen = np.int64(GIN_SCREEN) if throws_for_gin(policy) else np.int64(0)
    finalists = np.int64(params[SLOT.finalists])
    key = _decision_key(obs, scratch)
    game_weight = params[SLOT.game_weight]
    inference = _inference(scratch)
    if params[SLOT.stop] > 0 or params[SLOT.time] > 0:
        return _race(
            obs, params, scratch, policy, kinds, cards, key, samples, game_weight, inference
        )
    if screen <= 0 or finalists <= 0 or n <= finalists or screen >= samples:
        net = np.empty((n, samples), np.float64)
        ends = np.empty((n, samples), np.int8)
        _play(obs, params, scratch, policy, kinds, cards, key, 0, net, ends, inference)
        return _best_of(net, ends, game_weight)[0]
    net = np.empty((n, screen), np.float64)
    ends = np.empty((n, screen), np.int8)
    _play(obs, params, scratch, policy, kinds, cards, key, 0, net, ends, inference)
    _, means = _best_of(net, ends, game_weight)
    chosen = np.zeros(n, np.bool_)
    for _ in range(finalists):  # the best remaining, first on ties
        pick = -1
        for a in range(n):
            if not chosen[a] and (pick < 0 or means[a] > means[pick]):
                pick = a
        chosen[pick] = True
    keep = np.nonzero(chosen)[0]
    rest_net = np.empty((finalists, samples - screen), np.float64)
    rest_ends = np.empty((finalists, samples - screen), np.int8)
    _play(obs, params, scratch, policy, kinds[keep], cards[keep], key, screen, rest_net,
          rest_ends, inference)  # fmt: skip
    all_net = np.concatenate((net[keep], rest_net), axis=1)
    all_ends = np.concatenate((ends[keep], rest_ends), axis=1)
    return keep[_best_of(all_net, all_ends, game_weight)[0]]


@njit(cache=True)
def _inference(scratch):
    """The decision's words for the history model: the seat's notes of the opponent's
    turns (``kernels/history.py``), no hands made yet."""
    inference = new_inference()
    copy_notes(scratch, inference[INF_NOTES:])
    return inference


@njit(cache=True)
def mc_take(obs, params, scratch):
    note_opponent_turn(obs, scratch)
    if obs.pile_n <= 0:
        return False
    kinds = np.array([ACT_TAKE, ACT_DRAW], np.int64)
    cards = np.full(2, -1, np.int64)
    return best_action(obs, params, scratch, _policy(obs, params, scratch), kinds, cards) == 0


@njit(cache=True)
def mc_discard(obs, params, scratch):
    note_opponent_turn(obs, scratch)
    policy = _policy(obs, params, scratch)
    gin_count = np.int64(0)  # the gin candidates: only where the rollouts throw for gin
    if throws_for_gin(policy):
        gin_count = np.int64(params[SLOT.gin_candidates])
    candidates = np.int64(params[SLOT.candidates])
    kinds, cards = discard_actions(obs, forbidden_discard(obs), candidates, gin_count)
    a = 0
    if kinds.shape[0] > 1:
        a = best_action(obs, params, scratch, policy, kinds, cards)
    scratch[CHOSEN_KIND] = kinds[a]
    scratch[CHOSEN_CARD] = cards[a]
    note_own_discard(obs, scratch, cards[a])
    return cards[a]


# The hooks are pieces (kernels/link.py): the engine calls them through a slot, so
# their code (the whole Monte Carlo search) compiles on its own, once, when an mc seat
# first plays, and never into the engine.


@piece(TAKE_HOOK)
def take_nb(obs, params, scratch):
    """Take the pile card when that plays out better on the sampled deals."""
    return mc_take(obs, params, scratch)


@piece(DISCARD_HOOK)
def discard_nb(obs, params, scratch):
    """The discard (and, remembered for the knock hook, the knock) that plays best."""
    return mc_discard(obs, params, scratch)


@piece(KNOCK_HOOK)
def knock_nb(obs, params, scratch, discard):
    """The knock decision made together with the discard."""
    if scratch[CHOSEN_CARD] == discard:
        if scratch[CHOSEN_KIND] == ACT_KNOCK:
            return KNOCK
        if scratch[CHOSEN_KIND] == ACT_BIG_GIN:
            return BIG_GIN
    return CONTINUE


STRATEGY: Strategy = Strategy(
    name="mc",
    description=__doc__,
    params=Params,
    take_nb=take_nb,
    discard_nb=discard_nb,
    knock_nb=knock_nb,
    module=__name__,
    decides_slowly=True,
    bounds={
        "samples": (1, 100_000),
        "candidates": (0, 12),
        "knock_at": (-1, None),
        "min_gain": (0, None),
        "budget": (0, None),
        "model": (MODEL_FROM_RULES, max(MODELS.values())),
        "game_weight": (0, None),
        "gin_drop": (-1, 1),
        "screen": (-1, 100_000),
        "finalists": (0, 64),
        "gin_candidates": (0, 12),
        "waiters": (-1, 1),
        "stop": (0, 10),
        "step": (1, 100_000),
        "time": (0.001, 3600),  # the default, 0, is no limit; time=0 is no budget at all
    },
    specs={"rollout": (), "opponents": ("known", "policy")},
)
