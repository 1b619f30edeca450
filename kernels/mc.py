"""Determinized Monte Carlo: what each action of one seat is worth, by sampling.

Used by the ``mc`` strategy (``strategies/mc.py``) and by ``rummy advise``
(``sim/advise.py``); ``tests/reference/mc_ref.py`` is the pure-Python twin.

A *sample* deals the cards the seat cannot see uniformly at random among the deals
consistent with what it has seen (``hidden_cards``): its own hand and the discard pile
are known, each opponent keeps the cards it took from the pile and still holds, and
the rest of each opponent's hand and the stock (in a random order) come from the
hidden cards. Each action is then applied to the sample: a knock is scored at once by
the showdown kernel; after any other action the engine (``kernels/engine.py``, the
template module, whose stand-in hooks are the rollout policy of ``kernels/rollout.py``)
plays the hand on from the sample's state to its end, every seat greedy: take the pile
card when it lowers the least deadwood by ``min_gain``, throw the best discard, knock
at a threshold or less, big gin when ready (``rollout_params`` sets who knocks where,
and whether this seat throws for gin). So rollouts follow the engine's own rules for
draws, stock rebuilds (the real ones so far, ``obs.rebuilds``, counted against
``max_rebuilds``), the dead-hand wall and the showdown. Every action is played on the
same samples (common random numbers), so the differences between actions carry far
less noise than the values themselves.

The opponents are modelled as greedy players, whatever they really are: a seat is not
told who it plays (``docs/MC.md``, "What it does not model"). How their unseen cards
are dealt is the opponent model (``MODELS``: uniform, kept, inferred, shown, played,
history; see ``determinize``, ``deal_sample`` and ``history_particles``). ``mc:rollout=SPEC`` and
``opponents=`` play the same loop (``play_samples``, ``kernels/engine.py``) on an
engine of strategies instead (``sim/rollouts.py``).

After a real rebuild the sample uses what the seat saw go into the stock
(``obs.rebuilt``): see ``determinize``.

Randomness: sample ``j`` of a decision is shuffled from ``random64(decision_key, j)``;
the engine keys a rollout's reshuffles on that sample key (so every action of one
sample meets the same reshuffle when it rebuilds the same pile). ``decision_key``
comes from the seat's seeded strategy stream, so a decision is a pure function of the
seed, the deal and the seat's history.
"""

from typing import Any, NamedTuple

import numpy as np
from numba import njit, types

from kernels import layout as L
from kernels import rollout
from kernels.bits import lowest_bit, popcount
from kernels.borrow import BorrowedArray, borrow, borrow_row, stack_empty
from kernels.deadwood import (
    best_discard_one,
    discard_deadwoods,
    discard_order_key,
    min_deadwood_one,
)
from kernels.engine import (
    MAX_PLAYERS,
    ask_discard,
    ask_knock,
    ask_take,
    borrowed_columns,
    borrowed_state,
    dead_at_wall,
    discard_card,
    hand_winner,
    new_state_nb,
    one_row,
    play_hands,
    take_pile_card,
    view_obs,
)
from kernels.greedy import DEFAULT_KNOCK_AT
from kernels.history import HISTORY_WORDS, NOTE_WORDS, unpack_note
from kernels.layout import DECK_CAPACITY
from kernels.link import piece
from kernels.melds import MAX_MELDS_PER_ARRANGEMENT, meld_partners
from kernels.obs import (
    CONTINUE,
    GAME_HANDS,
    GAME_OPP_GINS,
    GAME_OPP_KNOCKS,
    N_PARAMS,
    OBS,
    PHASE_DISCARD,
    PHASE_DRAW,
    PHASE_UPCARD_OPTION,
    SCRATCH_HAND,
    SCRATCH_SIZE,
    Obs,
    hidden_cards,
)
from kernels.probe import borrowed_probe, resume_at, resume_probe
from kernels.rng import random64, shuffle
from kernels.rollout import (  # noqa: F401  (the threshold's home; mc's callers import it here)
    TUNED_KNOCK_RUMMY_AT,
    gin_key,
    meld_partner_counts,
    rollout_knock_at,
)
from kernels.showdown import big_gin_ready, knock_limit_of, knock_within_limit, showdown
from kernels.tables import CARD_VALUE
from kernels.view import V_GAME_HANDS, V_OPP_GINS, V_OPP_KNOCKS

# Action kinds (``kinds[a]``; ``cards[a]`` is the card discarded or laid away).
ACT_TAKE = 0  # take the discard pile's top card (in the upcard option: the upcard)
ACT_DRAW = 1  # draw from the stock (in the upcard option: pass)
ACT_DISCARD = 2  # discard ``card`` and play on
ACT_KNOCK = 3  # lay ``card`` away and knock
ACT_BIG_GIN = 4  # go out with every card
ACTION_NAMES = ("take", "draw", "discard", "knock", "big_gin")


class Work(NamedTuple):
    """Scratch arrays of one decision's samples (allocated once per decision)."""

    deck: np.ndarray  # int64[64]: the hidden cards, shuffled per sample
    hands: np.ndarray  # int64[players]: the hands of a knock's showdown
    base: np.ndarray  # int64[players]: the sample before an action is applied
    stock: np.ndarray  # int64[64]: the sampled stock, top first
    deadwood: np.ndarray  # int64[players]: a knock's showdown outputs
    laid: np.ndarray
    points: np.ndarray
    melds: np.ndarray  # int64[MAX_MELDS_PER_ARRANGEMENT]
    scores: np.ndarray  # int64[players]: game scores before this hand (1/POINT_SCALE)
    misses: np.ndarray  # int64[1]: opponents dealt the last of INFER_TRIES deals (no fit)
    inference: np.ndarray  # int64[INFERENCE_SIZE]: MODEL_HISTORY's notes and hands


@njit(cache=True)
def new_work(players):
    return Work(
        np.zeros(64, np.int64),
        np.zeros(players, np.int64),
        np.zeros(players, np.int64),
        np.zeros(64, np.int64),
        np.zeros(players, np.int64),
        np.zeros(players, np.int64),
        np.zeros(players, np.int64),
        np.zeros(MAX_MELDS_PER_ARRANGEMENT, np.int64),
        np.zeros(players, np.int64),
        np.zeros(1, np.int64),
        np.zeros(INFERENCE_SIZE, np.int64),
    )


@njit(cache=True, inline="always")
def borrowed_work(owner):
    """``owner``'s arrays as borrowed views (kernels/borrow.py): the samples read and
    write them all the time, and counted arrays in a tuple cost an ``NRT_incref`` /
    ``NRT_decref`` pair at each read. ``owner`` must outlive the views."""
    return Work(
        borrow(owner.deck),
        borrow(owner.hands),
        borrow(owner.base),
        borrow(owner.stock),
        borrow(owner.deadwood),
        borrow(owner.laid),
        borrow(owner.points),
        borrow(owner.melds),
        borrow(owner.scores),
        borrow(owner.misses),
        borrow(owner.inference),
    )


@njit(cache=True)
def hidden_count_consistent(obs):
    """True when the hidden cards fill exactly the opponents' unknown cards and the
    stock (each opponent holds ``hand_size`` cards while this seat moves)."""
    need = obs.stock_n
    for seat in range(obs.players):
        if seat != obs.seat:
            need += obs.rules[L.R_HAND_SIZE] - popcount(obs.taken[seat])
    return need == popcount(hidden_cards(obs))


MODEL_UNIFORM = 0  # opponents' unseen cards: uniform among the hidden cards
MODEL_KEPT = 1  # ... improved by one greedy turn per card the opponent discarded
MODEL_INFERRED = 2  # ... kept, and nothing it threw or passed would meld with them
MODEL_SHOWN = 3  # ... inferred, and too much deadwood to knock once it has discarded
MODEL_PLAYED = 4  # the rules' choice, and the seat before played its last turn as modelled
MODEL_HISTORY = 5  # two players: hands that play every turn the seat noted as it was played
MODELS = {
    "uniform": MODEL_UNIFORM,
    "kept": MODEL_KEPT,
    "inferred": MODEL_INFERRED,
    "shown": MODEL_SHOWN,
    "played": MODEL_PLAYED,
    "history": MODEL_HISTORY,
}
"""The opponent models by name (``rummy advise --model``), each with its number (the
``mc`` strategy's ``model``)."""
MODEL_FROM_RULES = -1  # mc's default: model_for chooses one from the rules
INFER_TRIES = 16  # deals tried per opponent under MODEL_INFERRED, MODEL_SHOWN (then the last)
RETRY_SALT = 0xBEEF00  # counters of the retry shuffles: RETRY_SALT + 8 * attempt + seat
RESHUFFLE_SALT = 0xC0FFEE  # counter of the stock's reshuffle under the kept models
REBUILT_SALT = 0xDEC0DE  # counter of the opponents' shuffle after a real rebuild
PLAYED_TRIES = 32  # deals tried under MODEL_PLAYED (then the last)
PLAYED_SALT = 0x91A7ED00  # counters of MODEL_PLAYED's deals: PLAYED_SALT + attempt
HISTORY_PARTICLES = 2048  # opponent hands MODEL_HISTORY keeps per decision
MISFIT = 1e-4  # MODEL_HISTORY: a hand's weight times this for each answer unlike the turn's
HISTORY_SALT = 0x4157_0000  # counters of MODEL_HISTORY's draws (``history_particles``)
DRAW_SALT = HISTORY_SALT + 0x1_0000  # ... a stock draw: + note * hands made + hand
RESAMPLE_SALT = HISTORY_SALT + 0x10_0000  # ... the resampling after note i: + i

# One decision's words for MODEL_HISTORY (``new_inference``): the seat's notes of the
# opponent's turns (``kernels/history.py``) and the hands made from them, made at the
# decision's first round of samples and kept for its later rounds.
INF_STATE = 0  # one of the INF_* states below
INF_COUNT = 1  # hands made
INF_NOTES = 2  # ``kernels.history.copy_notes``'s words
INF_HANDS = INF_NOTES + HISTORY_WORDS
INFERENCE_SIZE = INF_HANDS + HISTORY_PARTICLES
INF_NOT_MADE = 0  # not made yet
INF_MADE = 1  # INF_COUNT hands
INF_NONE = -1  # nothing to replay (no notes, more than two players, a rebuild): the rules' model
INF_NO_FIT = -2  # no hand played every noted turn: the rules' model, each sample a miss


@njit(cache=True)
def _greedy_drop(hand, known, tab):
    """The card a greedy player throws from ``hand``: the best discard, but never one
    of the ``known`` cards (those the opponent is seen to hold)."""
    card, _ = best_discard_one(hand, -1, tab)
    if not (known >> card) & 1:
        return card
    best_card = np.int64(-1)
    best_d = np.int64(1) << 40
    lefts = stack_empty(DECK_CAPACITY, 0)
    discard_deadwoods(hand, tab, lefts)
    rest = hand & ~known
    while rest:
        c = lowest_bit(rest)
        rest &= rest - 1
        d = lefts[c]
        if d <= best_d:  # ties: the highest index
            best_d = d
            best_card = c
    return best_card


@njit(cache=True)
def avoided_cards(obs, seat):
    """Natural cards ``seat`` showed it did not want: every card it discarded this
    hand, and the covered pile cards discarded by the seat before it (offered to it,
    and passed)."""
    before = (seat - 1) % obs.players
    avoid = obs.discarded[seat]
    for i in range(obs.pile_n - 1):
        card = obs.pile[i]
        if (obs.discarded[before] >> card) & 1:
            avoid |= np.int64(1) << card
    return avoid & L.NATURAL_BITS


@njit(cache=True)
def _contradicts(hand, avoid, tab):
    """True when a card of ``avoid`` (not in ``hand``) would meld with ``hand``."""
    return meld_partners(hand, avoid & ~hand, tab) != 0


@njit(cache=True)
def _deal_opponent(deck, k, known, need, extra, tab):
    """``known`` plus ``need`` cards from ``deck[k:]``, then ``extra`` greedy turns
    (draw the next card, throw ``_greedy_drop``). Returns (hand, next k, dropped)."""
    h = known
    for _ in range(need):
        h |= np.int64(1) << deck[k]
        k += 1
    dropped = np.int64(0)
    for _ in range(extra):
        h |= np.int64(1) << deck[k]
        k += 1
        drop = _greedy_drop(h, known, tab)
        h &= ~(np.int64(1) << drop)
        dropped |= np.int64(1) << drop
    return h, k, dropped


@njit(cache=True)
def model_for(rules, model):
    """The model ``determinize`` deals by: ``model``, or for ``MODEL_FROM_RULES`` (and
    ``MODEL_PLAYED``, which deals so and then checks, and ``MODEL_HISTORY`` where it
    has no hands: ``deal_sample``) the model measured best under the rules: shown where
    any deadwood may knock (Knock Rummy, where an opponent that has not knocked yet
    holds far more deadwood than a kept hand, docs/MC.md), kept elsewhere."""
    if model != MODEL_FROM_RULES and model != MODEL_PLAYED and model != MODEL_HISTORY:
        return np.int64(model)
    if rules[L.R_KNOCK_LIMIT] == L.KNOCK_ANY:
        return np.int64(MODEL_SHOWN)
    return np.int64(MODEL_KEPT)


@njit(cache=True)
def determinize(obs, hidden, skey, model, work):
    """Deal one sample into ``work.base`` (hands) and ``work.stock`` (top first);
    returns the stock size.

    ``MODEL_UNIFORM``: each opponent's unseen cards are drawn uniformly from the
    hidden cards. ``MODEL_KEPT``: an opponent that has discarded ``D`` cards this hand
    is dealt its unseen cards, then plays ``D`` greedy turns on hidden cards (draw one,
    throw ``_greedy_drop``), so its hand looks like one a player improved for ``D``
    turns, not like a fresh deal. ``MODEL_INFERRED``: as kept, but a deal in which a
    card the opponent threw or passed (``avoided_cards``) would meld with its hand is
    dealt again from reshuffled hidden cards, up to ``INFER_TRIES`` deals in all (then
    the last one stands, and ``work.misses[0]`` counts it: the caller says so).
    ``MODEL_SHOWN``: as inferred, and an opponent that has discarded this hand (so it
    could have knocked, and did not) is also dealt again, within the same tries, when
    its hand's least deadwood is at or below the threshold a greedy player knocks at
    (``shown_floor``: the rule's limit, or where any deadwood may knock greedy's tuned
    threshold for the player count). The cards dropped in greedy turns
    go back to the stock, which is then shuffled again so that its order stays uniform.
    ``MODEL_FROM_RULES``: the one of these that ``model_for`` chooses for the rules;
    ``MODEL_PLAYED`` deals as that one here (its test of the last turn is
    ``deal_sample``'s, which knows the rollouts' policies).

    After a real rebuild (``obs.rebuilt``) the seat knows more than any model: the
    stock holds only cards the rebuild put there, and every other hidden card is in an
    opponent's hand (held since before the rebuild: real kept cards). So the stock is
    drawn from the rebuilt cards still hidden and the opponents get the rest,
    uniformly (``_determinize_rebuilt``); the models do not apply.
    """
    if obs.rebuilt != 0 and popcount(hidden & obs.rebuilt) >= obs.stock_n:
        return _determinize_rebuilt(obs, hidden, skey, work)
    model = model_for(obs.rules, model)
    n = 0
    rest = hidden
    while rest:
        work.deck[n] = lowest_bit(rest)
        rest &= rest - 1
        n += 1
    shuffle(work.deck, n, skey)
    k = 0
    hand_size = obs.rules[L.R_HAND_SIZE]
    returned = np.int64(0)
    later = 0  # unseen cards of the opponents not dealt yet
    for seat in range(obs.players):
        if seat != obs.seat:
            later += hand_size - popcount(obs.taken[seat])
    for seat in range(obs.players):
        if seat == obs.seat:
            work.base[seat] = obs.hand
            continue
        known = obs.taken[seat]
        need = hand_size - popcount(known)
        later -= need
        extra = 0
        if model != MODEL_UNIFORM:
            extra = max(0, min(popcount(obs.discarded[seat]), n - k - need - later))
        infer = model == MODEL_INFERRED or model == MODEL_SHOWN
        tries = INFER_TRIES if infer else 1
        avoid = avoided_cards(obs, seat) if infer else np.int64(0)
        # Under MODEL_SHOWN an opponent that has discarded did not knock after it: its
        # hand's least deadwood is above the threshold it would knock at (-1: no test).
        floor = np.int64(-1)
        if model == MODEL_SHOWN and obs.discarded[seat] != 0:
            floor = shown_floor(obs.rules, obs.upcard)
        start = k
        fits = False
        for attempt in range(tries):
            if attempt > 0:
                shuffle(
                    work.deck[start:n], n - start, random64(skey, RETRY_SALT + 8 * attempt + seat)
                )
            h, k, dropped = _deal_opponent(work.deck, start, known, need, extra, obs.tab)
            fits = (avoid == 0 or not _contradicts(h, avoid, obs.tab)) and (
                floor < 0 or min_deadwood_one(h, obs.tab) > floor
            )
            if fits:
                break
        if infer and not fits:
            work.misses[0] += 1
        returned |= dropped
        work.base[seat] = h
    m = 0
    for i in range(k, n):
        work.stock[m] = work.deck[i]
        m += 1
    if returned != 0:
        while returned:
            work.stock[m] = lowest_bit(returned)
            returned &= returned - 1
            m += 1
        shuffle(work.stock, m, random64(skey, RESHUFFLE_SALT))
    return m


@njit(cache=True)
def _determinize_rebuilt(obs, hidden, skey, work):
    """``determinize`` after a real rebuild: the stock, ``obs.stock_n`` cards in a
    random order, from the hidden cards of ``obs.rebuilt``; the opponents' unseen
    cards, uniformly, from every other hidden card. Returns the stock size."""
    n = 0
    rest = hidden & obs.rebuilt
    while rest:
        work.deck[n] = lowest_bit(rest)
        rest &= rest - 1
        n += 1
    shuffle(work.deck, n, skey)
    in_stock = np.int64(0)
    for i in range(obs.stock_n):
        work.stock[i] = work.deck[i]
        in_stock |= np.int64(1) << work.deck[i]
    n = 0
    rest = hidden & ~in_stock
    while rest:
        work.deck[n] = lowest_bit(rest)
        rest &= rest - 1
        n += 1
    shuffle(work.deck, n, random64(skey, REBUILT_SALT))
    k = 0
    hand_size = obs.rules[L.R_HAND_SIZE]
    for seat in range(obs.players):
        if seat == obs.seat:
            work.base[seat] = obs.hand
            continue
        h = obs.taken[seat]
        for _ in range(hand_size - popcount(obs.taken[seat])):
            h |= np.int64(1) << work.deck[k]
            k += 1
        work.base[seat] = h
    return obs.stock_n


@njit(cache=True)
def _result(rules, points, scores, outcome, knocker, dealer, deadwood, me):
    """(net points of ``me``, 1 if ``me`` won the hand, the game end) of a hand scored
    ``points``. The game end is +1 when the hand takes ``me`` to the game's target
    first, -1 when it takes another seat there, 0 otherwise (modes with a target:
    gin:T and match:T)."""
    players = points.shape[0]
    others = 0.0
    for seat in range(players):
        if seat != me:
            others += points[seat]
    net = (points[me] - others / (players - 1)) / L.POINT_SCALE
    won = 1 if hand_winner(outcome, knocker, dealer, deadwood) == me else 0
    end = 0
    mode = rules[L.R_GAME]
    if mode == L.GAME_GIN or mode == L.GAME_MATCH:
        target = rules[L.R_GAME_TARGET] * L.POINT_SCALE
        leader = -1
        best = np.int64(0)
        for seat in range(players):
            final = scores[seat] + points[seat]
            if final >= target and (leader < 0 or final > best):
                leader = seat
                best = final
        if leader >= 0:
            end = 1 if leader == me else -1
    return net, won, end


# ``evaluate``'s knock_at for "play for gin and throw for gin": the seat knocks only
# with gin, and its rollout discards are ``gin_drop``'s, not the least deadwood's.
ROLLOUT_GIN_DROPS = -2
# The same against opponents who have shown they wait: a hand of the game is over and
# none of them knocked with deadwood. Their rollouts then knock only at
# ``WAITERS_KNOCK_AT`` or less (docs/MC.md: the threat of a knock at the limit, which
# such an opponent does not make, made this seat knock too often, late, and be undercut).
ROLLOUT_GIN_VS_WAITERS = -3
WAITERS_KNOCK_AT = 5


@njit(cache=True, inline="always")
def throws_for_gin(knock_at):
    """Whether ``evaluate``'s knock_at has this seat's rollouts throw for gin."""
    return knock_at == ROLLOUT_GIN_DROPS or knock_at == ROLLOUT_GIN_VS_WAITERS


@njit(cache=True)
def rollout_threshold(rules, upcard, knock_at):
    """The rollout's knock threshold: ``knock_at`` if >= 0 (0 for
    ``ROLLOUT_GIN_DROPS`` and ``ROLLOUT_GIN_VS_WAITERS``), else the rule's limit, or
    ``DEFAULT_KNOCK_AT`` where the rules set none."""
    if knock_at >= 0:
        return np.int64(knock_at)
    if throws_for_gin(knock_at):
        return np.int64(0)
    limit = knock_limit_of(rules, upcard)
    return np.int64(DEFAULT_KNOCK_AT) if limit < 0 else np.int64(limit)


@njit(cache=True)
def shown_floor(rules, upcard):
    """The deadwood at or below which the shown model takes a greedy opponent to knock:
    the rule's limit, or where any deadwood may knock greedy's tuned threshold for the
    player count (``TUNED_KNOCK_RUMMY_AT``; survivors of a 4-player hand hold far more
    than the 10 a limit-less rule would otherwise default to, docs/MC.md)."""
    limit = knock_limit_of(rules, upcard)
    if limit >= 0:
        return np.int64(limit)
    return np.int64(TUNED_KNOCK_RUMMY_AT[rules[L.R_PLAYERS]])


@njit(cache=True)
def rollout_policy(rules, knock_at, throw_for_gin, opponents_wait):
    """``evaluate``'s knock_at for ``mc``'s ``knock_at`` and ``gin_drop`` parameters:
    ``rollout_knock_at``'s threshold, or, when that is 0 (the seat plays for gin) and
    ``throw_for_gin`` is set, ``ROLLOUT_GIN_VS_WAITERS`` if ``opponents_wait`` is set,
    else ``ROLLOUT_GIN_DROPS``."""
    threshold = rollout_knock_at(rules, knock_at)
    if threshold == 0 and throw_for_gin != 0:
        if opponents_wait != 0:
            return np.int64(ROLLOUT_GIN_VS_WAITERS)
        return np.int64(ROLLOUT_GIN_DROPS)
    return threshold


@njit(cache=True)
def rollout_params(players, me, knock_at, min_gain):
    """The rollout policy's parameter rows (``kernels/rollout.py``) for ``evaluate``'s
    ``knock_at``: this seat knocks at ``knock_at`` (>= 0; -1: the rule's limit, or 10),
    or with ``ROLLOUT_GIN_DROPS`` / ``ROLLOUT_GIN_VS_WAITERS`` only with gin, throwing
    for gin; the others knock at the rule's limit (or 10), and against waiters at
    ``WAITERS_KNOCK_AT`` or less. Everyone takes by greedy's test with ``min_gain``."""
    params = np.zeros((players, N_PARAMS), np.float64)
    gin = throws_for_gin(knock_at)
    for seat in range(players):
        params[seat, rollout.SLOT.min_gain] = min_gain
        params[seat, rollout.SLOT.knock_at] = -1
        if knock_at == ROLLOUT_GIN_VS_WAITERS and seat != me:
            params[seat, rollout.SLOT.knock_at] = WAITERS_KNOCK_AT
    params[me, rollout.SLOT.knock_at] = 0 if gin else knock_at
    params[me, rollout.SLOT.gin_drops] = 1 if gin else 0
    return params


# --- the samples' loop: written once, compiled once per engine module ----------------
#
# ``evaluate`` plays its samples on the engine template (``kernels/engine.py``, every
# seat the rollout policy). ``sim/engine_build.py`` copies these three functions into
# every engine it builds for strategies, where ``play_hands`` is that engine's:
# ``rollout_values`` there plays the samples with strategies in every seat
# (``mc:rollout=SPEC``, ``opponents=``: ``sim/rollouts.py``). So they may use only names
# that the engine's module has too, or ``sim/engine_build.py`` imports there
# (``ROLLOUT_IMPORTS``).


@njit(cache=True)
def play_action(obs, kind, card, stock_n, skey, work, engine):
    """Apply one action to the sample in ``work.base`` / ``work.stock`` (dealt from
    the sample key ``skey``) and play on: a knock is scored at once; any other action
    is followed by the rest of the hand played by ``play_hands`` (the template's here,
    an engine of strategies' where copied), every seat by ``engine.sids`` and
    ``engine.params``, from this sample's state. Returns (net
    points of this seat, 1 if it won the hand, the game end)."""
    done, net, won, end = start_action(obs, kind, card, stock_n, work, engine)
    if done:
        return net, won, end
    play_hands(obs.rules, obs.tab, skey, np.int64(0), np.int64(0), obs.dealer, engine.sids,
               engine.params, work.scores, engine.state, engine.cols, np.int64(0),
               np.int64(1), None, engine.probe)  # fmt: skip
    return action_result(obs, work, engine)


@njit(cache=True)
def play_samples(
    obs, kinds, cards, decision_key, first_sample, model, net, won, ends, owner, engine,
    inference,
):  # fmt: skip
    """``kernels.mc.evaluate``'s loop: every action on samples ``first_sample ..``, on
    the working arrays ``owner`` and ``engine`` (``kernels.mc.Work`` and ``Engine``,
    held by the caller for the whole call, so the loop may use them borrowed).
    ``inference`` holds the decision's words for ``MODEL_HISTORY`` (``new_inference``):
    its hands are made here at the decision's first call and kept there for the next.
    Returns the opponent hands dealt as the last of ``INFER_TRIES`` deals, none of
    which fit what the opponent showed (``determinize``; ``deal_sample``)."""
    work = borrowed_work(owner)
    engine = borrowed_engine(engine)
    work.misses[0] = 0
    for seat in range(obs.players):
        work.scores[seat] = obs.scores[seat]
    hidden = hidden_cards(obs)
    work.inference[:] = inference
    prepare_samples(obs, hidden, decision_key, model, work, engine)
    inference[:] = work.inference
    for j in range(net.shape[1]):
        skey = random64(decision_key, first_sample + j)
        stock_n = deal_sample(obs, hidden, skey, model, work, engine)
        for a in range(kinds.shape[0]):
            v, w, e = play_action(obs, kinds[a], cards[a], stock_n, skey, work, engine)
            net[a, j] = v
            won[a, j] = w
            ends[a, j] = e
    return work.misses[0]


@njit(cache=True, inline="always")
def seat_view(obs, seat, hand, pile, pile_n, taken, discarded, stock_n, turn, phase, drawn,
              from_pile):  # fmt: skip
    """The ``Obs`` ``seat`` had at an earlier point of this hand, as rebuilt from ``obs``:
    its hand, the pile, the cards taken and discarded then (``pile``, ``taken`` and
    ``discarded``: the caller's stack arrays, lent), the stock, the turn, the phase and
    its draw; the rest as now (``view_obs``'s way of lending arrays)."""
    return Obs(seat, obs.players, hand, borrow(pile), pile_n, borrow(taken),
               borrow(discarded), stock_n, obs.rebuilds, obs.rebuilt, turn, phase, obs.upcard,
               np.int64(drawn), from_pile, obs.dealer, obs.rules, obs.scores, obs.tab,
               obs.rng_key)  # fmt: skip


@njit(cache=True)
def prepare_samples(obs, hidden, decision_key, model, work, engine):
    """Under ``MODEL_HISTORY``, make the opponent hands of ``work.inference`` from its
    notes once per decision (``history_particles``, keyed on ``decision_key``)."""
    inference = work.inference
    if model != MODEL_HISTORY or inference[INF_STATE] != INF_NOT_MADE:
        return
    made = history_particles(obs, hidden, decision_key, work, engine, HISTORY_PARTICLES)
    inference[INF_COUNT] = max(made, 0)
    if made > 0:
        inference[INF_STATE] = INF_MADE
    elif made == 0:
        inference[INF_STATE] = INF_NONE
    else:
        inference[INF_STATE] = INF_NO_FIT


@njit(cache=True)
def deal_sample(obs, hidden, skey, model, work, engine):
    """``determinize`` for sample key ``skey``; under ``MODEL_PLAYED`` dealt again (from
    ``random64(skey, PLAYED_SALT + attempt)``) until the seat before this one, holding
    its sampled hand, would have played its last turn as it did by its policy in these
    rollouts (``last_turn_fits``), up to ``PLAYED_TRIES`` deals in all (then the last
    one stands, and ``work.misses[0]`` counts it, as it counts the misses of
    ``determinize``'s models in the deal that stands only). Under ``MODEL_HISTORY`` the
    opponent holds one of the hands ``prepare_samples`` made, picked by ``skey``, and
    the stock is the rest of the hidden cards, shuffled; where it made none, the rules'
    model deals (and where no hand fit the notes, each sample counts as a miss).
    Returns the stock size."""
    if model == MODEL_HISTORY:
        state = work.inference[INF_STATE]
        if state == INF_MADE:
            return deal_history(obs, hidden, skey, work)
        if state == INF_NO_FIT:
            work.misses[0] += 1
        return determinize(obs, hidden, skey, model, work)
    earlier_misses = work.misses[0]
    stock_n = determinize(obs, hidden, skey, model, work)
    if model != MODEL_PLAYED:
        return stock_n
    before = obs.seat - 1 if obs.seat > 0 else obs.players - 1
    key = skey
    for attempt in range(1, PLAYED_TRIES + 1):
        if last_turn_fits(obs, work.base[before], engine, key):
            return stock_n
        if attempt == PLAYED_TRIES:
            break
        key = random64(skey, PLAYED_SALT + attempt)
        work.misses[0] = earlier_misses
        stock_n = determinize(obs, hidden, key, model, work)
    work.misses[0] += 1
    return stock_n


@njit(cache=True)
def resample_particles(weight, hands, stocks, held, draw, always):
    """Systematic resampling of the particles in proportion to ``weight`` (from one
    uniform draw, ``draw``), when ``always`` or when their effective number,
    (sum w)^2 / sum w^2, is below half of them (resampling more often loses hands for
    nothing); afterwards every weight is 1. Otherwise the weights are scaled to a mean
    of 1. False when all are 0."""
    n = weight.shape[0]
    total = 0.0
    squares = 0.0
    for p in range(n):  # in order: the twin adds them so too
        total += weight[p]
        squares += weight[p] * weight[p]
    if total <= 0.0:
        return False
    if not always and total * total >= 0.5 * n * squares:
        for p in range(n):
            weight[p] *= n / total
        return True
    old_weight = weight.copy()
    old_hands, old_stocks, old_held = hands.copy(), stocks.copy(), held.copy()
    step = total / n
    at = (np.float64(draw >> np.uint64(11)) * 2.0**-53) * step
    cum = old_weight[0]
    j = 0
    for p in range(n):
        while at >= cum and j < n - 1:
            j += 1
            cum += old_weight[j]
        hands[p], stocks[p], held[p] = old_hands[j], old_stocks[j], old_held[j]
        weight[p] = 1.0
        at += step
    return True


@njit(cache=True)
def deal_history(obs, hidden, skey, work):
    """``deal_sample``'s deal from the hands ``history_particles`` made (two players)."""
    inference = work.inference
    pick = np.int64(random64(skey, HISTORY_SALT) % np.uint64(inference[INF_COUNT]))
    theirs = inference[INF_HANDS + pick]
    work.base[obs.seat] = obs.hand
    work.base[1 - obs.seat] = theirs
    rest = hidden & ~theirs
    m = 0
    while rest:
        work.stock[m] = lowest_bit(rest)
        rest &= rest - 1
        m += 1
    shuffle(work.stock, m, skey)
    return m


@njit(cache=True)
def last_turn_fits(obs, hand, engine, key):
    """Whether the seat before this one, holding ``hand`` now, would have played its
    last turn as this seat saw it played, by its policy in the rollouts (the strategy
    ``engine.sids`` gives it, with ``engine.params``, its hand memory fresh): thrown
    the card it threw, and played on; with two players also taken the pile card it
    took, or passed the one it passed, where the pile shows which. True where that
    turn cannot be rebuilt from what this seat saw (none yet, the upcard option, a
    rebuilt stock's cards).

    The turn is rebuilt from the pile: its discard ``d`` is the top card (or the card
    this seat just took). Below ``d`` lies this seat's own discard when the seat before
    passed it, and the seat before's own earlier discard when it took this seat's
    discard (it still holds that card: ``obs.taken``); a card both discarded, or a
    take of this seat's own last turn, leaves it open, and then only the discard is
    tested. A passed card was followed by a stock draw, one of the cards the seat
    holds that it did not take from the pile (or ``d``): ``key`` picks which,
    uniformly, so that over the deals the test weighs each as likely.
    """
    players = obs.players
    me = obs.seat
    o = me - 1 if me > 0 else players - 1
    theirs = obs.discarded[o]
    if obs.phase == PHASE_UPCARD_OPTION or theirs == 0:
        return True
    pile = stack_empty(DECK_CAPACITY, 0)
    seats = stack_empty(2, MAX_PLAYERS)
    taken, discarded = seats[0, :players], seats[1, :players]
    for s in range(players):
        taken[s] = obs.taken[s]
        discarded[s] = obs.discarded[s]
    n = obs.pile_n
    for i in range(n):
        pile[i] = obs.pile[i]
    stock_n, turn = obs.stock_n, obs.turn
    if obs.phase == PHASE_DISCARD:  # undo this seat's draw
        turn -= 1
        if obs.from_pile:
            n += 1
            pile[n - 1] = obs.drawn
            taken[me] &= ~(np.int64(1) << obs.drawn)
        else:
            stock_n += 1
    if n == 0:
        return True
    d = pile[n - 1]
    n -= 1
    if not (theirs >> d) & 1:
        return True  # not its discard on top: no turn to test
    held = hand | (np.int64(1) << d)
    took, passed = np.int64(-1), np.int64(-1)
    mine = obs.discarded[me]
    if players == 2 and n > 0 and obs.rebuilds == 0:
        below = pile[n - 1]
        if (theirs >> below) & 1 and not (mine >> below) & 1:
            mine_held = obs.taken[o] & mine  # it took my last discard: which one?
            if popcount(mine_held) == 1:
                took = lowest_bit(mine_held)
        elif (mine >> below) & 1 and not (theirs >> below) & 1 and taken[me] & theirs == 0:
            passed = below
    sid = engine.sids[o]
    params = borrow_row(engine.params, o)
    scratch = borrow_row(engine.state.scratch, o)
    scratch[:SCRATCH_HAND] = 0
    scratch[SCRATCH_HAND:] = engine.memory
    turns = popcount(theirs) - 1  # its own turns before this one (start_action's count)
    if engine.turn_words[o] >= 0:
        scratch[engine.turn_words[o]] = turns
    drawn = np.int64(-1)
    if took >= 0 or passed >= 0:
        if took >= 0:
            drawn = took
            pile[n] = took
        else:
            free = held & ~obs.taken[o]
            skip = np.int64(random64(key, PLAYED_SALT) % np.uint64(popcount(free)))
            for _ in range(skip):
                free &= free - 1
            drawn = lowest_bit(free)
        before_draw = held & ~(np.int64(1) << drawn)
        on_pile = 1 if took >= 0 else 0  # the card it took lay on the pile, else in the stock
        seen = seat_view(obs, o, before_draw, pile, n + on_pile, taken, discarded,
                         stock_n + 1 - on_pile, turn - 1, PHASE_DRAW, -1, False)  # fmt: skip
        if ask_take(sid, seen, params, scratch) != (took >= 0):
            return False
    seen = seat_view(
        obs, o, held, pile, n, taken, discarded, stock_n, turn, PHASE_DISCARD, drawn, took >= 0
    )
    choice = ask_discard(sid, seen, params, scratch)
    if choice != d and drawn < 0 and (obs.taken[o] >> choice) & 1:
        # It may have just taken ``choice`` (then it could not throw it): ask again so,
        # its count of own turns as before the first question (a discard hook counts).
        if engine.turn_words[o] >= 0:
            scratch[engine.turn_words[o]] = turns
        seen = seat_view(
            obs, o, held, pile, n, taken, discarded, stock_n, turn, PHASE_DISCARD, choice, True
        )
        choice = ask_discard(sid, seen, params, scratch)
    return choice == d and ask_knock(sid, seen, params, scratch, d) == CONTINUE


@njit(cache=True)
def history_particles(obs, hidden, key, work, engine, n):
    """``MODEL_HISTORY``'s opponent hands: ``n`` hands (at most ``HISTORY_PARTICLES``:
    ``prepare_samples`` makes so many) that would have played every turn of the
    opponent this seat noted (``work.inference``'s notes, ``kernels/history.py``) as it
    was played, by its policy in these rollouts (asked as ``last_turn_fits`` asks it,
    turn by turn). Written to ``work.inference`` from ``INF_HANDS`` on; returns how
    many (0: nothing to replay, -1: no hand fit).

    A sequential Monte Carlo (particle filter) over the noted turns, in their order.
    Each particle starts with the opponent's hand before its first noted turn: the pile
    cards it took before then and still holds, the cards it threw just after taking a
    pile card (it held them before that turn: taken to be dealt, not drawn at an earlier
    turn, which keeps the particles alive at a small bias), and the rest dealt from the
    cards it could have held then (the hidden ones, and those it threw since without
    having taken them from the pile). At each noted turn the particle's hand is asked,
    in the opponent's view of that turn (``seat_view``: the pile then, this seat's
    taken cards then, its own turns before), whether it takes the card offered; it
    draws from the stock where it passed: the card it then threw if its hand lacks it
    (weighted by the chance of that draw, one over the cards its stock could hold),
    else a card of that stock at random; and it must throw the card thrown and play
    on. A particle that answers otherwise keeps ``MISFIT`` of its weight, one that
    cannot have played the turn (it lacks the card thrown) none. After a turn the
    particles are drawn again in proportion to their weights where a few carry most of
    the weight, and after the last (``resample_particles``), so the hands that fit every
    turn so far carry on, each drawing its own stock cards after.
    """
    inference = work.inference
    count = inference[INF_NOTES]
    if obs.players != 2 or count <= 0 or obs.rebuilds != 0:
        return 0
    me = obs.seat
    o = 1 - me
    took_all = np.int64(0)
    thrown_all = np.int64(0)
    # A card thrown just after a pile take was held before that turn: dealt at the start
    # (or, in truth, perhaps drawn at an earlier turn), so that the hands do not die out.
    held_before = np.int64(0)
    for i in range(count):
        offered, took, thrown, _, _, _, _ = unpack_note(inference[INF_NOTES + 1 + NOTE_WORDS * i])
        if took:
            took_all |= np.int64(1) << offered
            held_before |= np.int64(1) << thrown
        thrown_all |= np.int64(1) << thrown
    forced = obs.taken[o] & ~took_all
    pool = (hidden | (thrown_all & ~took_all)) & ~forced
    need = obs.rules[L.R_HAND_SIZE] - popcount(forced)
    if need < 0 or need > popcount(pool):
        return 0
    held_before &= pool
    if popcount(held_before) > need:
        held_before = np.int64(0)
    hands = np.empty(n, np.int64)
    stocks = np.empty(n, np.int64)  # the cards each particle's stock may still hold
    held = np.empty(n, np.int64)  # the pile cards each holds
    weight = np.ones(n, np.float64)
    deck = stack_empty(DECK_CAPACITY, 0)
    for p in range(n):
        m = 0
        rest = pool & ~held_before
        while rest:
            deck[m] = lowest_bit(rest)
            rest &= rest - 1
            m += 1
        shuffle(deck, m, random64(key, HISTORY_SALT + p))
        h = forced | held_before
        for i in range(need - popcount(held_before)):
            h |= np.int64(1) << deck[i]
        hands[p] = h
        stocks[p] = pool & ~h
        held[p] = forced
    pile = stack_empty(DECK_CAPACITY, 0)
    seats = stack_empty(2, MAX_PLAYERS)
    taken, discarded = seats[0, :2], seats[1, :2]
    discarded[me] = obs.discarded[me]
    discarded[o] = obs.discarded[o] & ~thrown_all
    sid = engine.sids[o]
    params = borrow_row(engine.params, o)
    scratch = borrow_row(engine.state.scratch, o)
    word = engine.turn_words[o]
    for i in range(count):
        at = INF_NOTES + 1 + NOTE_WORDS * i
        offered, took, thrown, own_turn, pile_n, stock_n, turn = unpack_note(inference[at])
        taken[me] = inference[at + 1]
        for k in range(pile_n - 1):
            pile[k] = obs.pile[k]
        pile[pile_n - 1] = offered
        for p in range(n):
            if weight[p] == 0.0:
                continue
            h = hands[p]
            taken[o] = held[p]
            scratch[:SCRATCH_HAND] = 0
            scratch[SCRATCH_HAND:] = engine.memory
            if word >= 0:
                scratch[word] = own_turn
            seen = seat_view(obs, o, h, pile, pile_n, taken, discarded, stock_n, turn,
                             PHASE_DRAW, -1, False)  # fmt: skip
            fit = 1.0
            if ask_take(sid, seen, params, scratch) != (took == 1):
                fit = MISFIT
            if took:
                if not ((h | np.int64(1) << offered) >> thrown) & 1:
                    weight[p] = 0.0  # it threw a card this hand does not hold
                    continue
                drawn = offered
                taken[o] |= np.int64(1) << offered
                left_n, left_stock = pile_n - 1, stock_n
            else:
                free = stocks[p]
                if (h >> thrown) & 1:
                    skip = random64(key, DRAW_SALT + i * n + p) % np.uint64(popcount(free))
                    for _ in range(skip):
                        free &= free - 1
                    drawn = lowest_bit(free)
                elif (free >> thrown) & 1:
                    drawn = thrown
                    fit /= popcount(free)
                else:
                    weight[p] = 0.0
                    continue
                stocks[p] &= ~(np.int64(1) << drawn)
                left_n, left_stock = pile_n, stock_n - 1
            h |= np.int64(1) << drawn
            seen = seat_view(obs, o, h, pile, left_n, taken, discarded, left_stock, turn + 1,
                             PHASE_DISCARD, drawn, took == 1)  # fmt: skip
            if ask_discard(sid, seen, params, scratch) != thrown:
                fit *= MISFIT
            elif ask_knock(sid, seen, params, scratch, thrown) != CONTINUE:
                fit *= MISFIT
            weight[p] *= fit
            hands[p] = h & ~(np.int64(1) << thrown)
            held[p] = taken[o] & ~(np.int64(1) << thrown)
        discarded[o] |= np.int64(1) << thrown
        last = i == count - 1
        draw = random64(key, RESAMPLE_SALT + i)
        if not resample_particles(weight, hands, stocks, held, draw, last):
            scratch[:SCRATCH_HAND] = 0
            return -1
    scratch[:SCRATCH_HAND] = 0
    for p in range(n):
        inference[INF_HANDS + p] = hands[p]
    return n


@njit(cache=True, nogil=True)
def rollout_values(view, rules, tab, kinds, cards, decision_key, first_sample, model, sids,
                   params, turn_words, net, won, ends, inference):  # fmt: skip
    """``evaluate`` for the seat of ``view``, called on an engine of strategies (a copy,
    ``sim/engine_build.py``): seat ``s`` of the rollouts plays strategy ``sids[s]`` with
    ``params[s]``. Each
    rollout's strategies start with the hand's memory zeroed but for the own-turn
    count in ``turn_words[s]`` (``kernels.mc.start_action``), and the game's memory of
    the deciding seat (hands so far, knocks and gins seen: public facts, bar its own).
    ``inference``: as ``play_samples``'s. Returns its count of opponent hands that fit
    nothing shown."""
    pile = stack_empty(DECK_CAPACITY, 0)
    seats = stack_empty(3, MAX_PLAYERS)
    obs = view_obs(view, pile, seats, rules, tab)
    players = obs.players
    memory = np.zeros(SCRATCH_SIZE - SCRATCH_HAND, np.int64)
    memory[GAME_HANDS - SCRATCH_HAND] = view[V_GAME_HANDS]
    memory[GAME_OPP_KNOCKS - SCRATCH_HAND] = view[V_OPP_KNOCKS]
    memory[GAME_OPP_GINS - SCRATCH_HAND] = view[V_OPP_GINS]
    engine = Engine(new_state_nb(players), one_row(players), resume_probe(players), sids,
                    params, True, turn_words, memory)  # fmt: skip
    return play_samples(obs, kinds, cards, decision_key, first_sample, model, net, won,
                        ends, new_work(players), engine, inference)  # fmt: skip


@njit(cache=True)
def start_action(obs, kind, card, stock_n, work, engine):
    """Apply one action to the sample: a knock (or big gin) is scored at once, and so is a
    discard that ends a dead hand: ``(True, net, won, end)``. After any other action the
    sample's state is put into ``engine.state`` and the engine's probe says where the
    hand goes on: ``(False, 0, 0, 0)``; an engine's ``play_hands`` then plays it (with
    the sample's key: its reshuffles) and ``action_result`` reads the result."""
    rules, tab = obs.rules, obs.tab
    me, players, dealer = obs.seat, obs.players, obs.dealer
    if kind == ACT_BIG_GIN or kind == ACT_KNOCK:
        for seat in range(players):
            work.hands[seat] = work.base[seat]
        if kind == ACT_KNOCK:
            work.hands[me] = obs.hand & ~(np.int64(1) << card)
        outcome, _ = showdown(rules, work.hands, me, np.int64(-1), obs.upcard, dealer, tab,
                              work.deadwood, work.laid, work.points, work.melds)  # fmt: skip
        net, won, end = _result(rules, work.points, work.scores, outcome, me, dealer,
                                work.deadwood, me)  # fmt: skip
        return True, net, won, end
    state = engine.state
    c = state.counters
    for seat in range(players):
        state.hands[seat] = work.base[seat]
        state.taken[seat] = obs.taken[seat]
        state.discarded[seat] = obs.discarded[seat]
    for i in range(obs.pile_n):
        state.pile[i] = obs.pile[i]
    for i in range(stock_n):
        state.stock[i] = work.stock[i]
    c[L.C_PILE] = obs.pile_n
    c[L.C_STOCK_TOP] = 0
    c[L.C_STOCK_END] = stock_n
    c[L.C_TURNS] = obs.turn
    c[L.C_REBUILDS] = obs.rebuilds
    c[L.C_EVENTS] = 0
    c[L.C_DECK] = 52 + rules[L.R_JOKERS]
    c[L.C_REBUILT] = obs.rebuilt
    # Where the hand goes on: who moves, and how (the engine's own rules from there).
    seat, asking, stock_next, drawn, from_pile = me, 0, True, np.int64(-1), False
    if kind == ACT_DISCARD:
        discard_card(state, me, card)
        if dead_at_wall(rules, stock_n):
            return True, 0.0, 0, 0  # the discard ended a dead hand
        seat, stock_next = (me + 1) % players, False
    elif kind == ACT_TAKE:
        drawn = take_pile_card(state, me)
        state.hands[me] |= np.int64(1) << drawn
        c[L.C_TURNS] += 1
        from_pile, stock_next = True, False
    elif obs.phase == PHASE_UPCARD_OPTION and me != dealer:
        seat, asking, stock_next = dealer, 1, False  # a pass: the dealer is asked
    elif obs.phase == PHASE_UPCARD_OPTION:
        seat = (dealer + 1) % players  # both passed: the non-dealer draws from the stock
    resume_at(engine.probe, obs.upcard, seat, asking, stock_next, drawn, from_pile)
    if engine.fresh:  # strategies start the rollout with no memory of the hand ...
        for s in range(players):
            state.scratch[s, :SCRATCH_HAND] = 0
            # ... the game's as given (a rollout's end adds to it: not to the next one's)
            state.scratch[s, SCRATCH_HAND:] = engine.memory
            # ... but the count of their own turns where they keep one (the chart's,
            # advice's): their discards so far (a card one seat threw twice: once)
            if engine.turn_words[s] >= 0:
                state.scratch[s, engine.turn_words[s]] = popcount(state.discarded[s])
    return False, 0.0, 0, 0


@njit(cache=True)
def action_result(obs, work, engine):
    """(net points of this seat, 1 if it won the hand, the game end) of the hand the
    engine played on after ``start_action``."""
    cols = engine.cols
    if cols.outcome[0] == L.DEAD_HAND:
        return 0.0, 0, 0
    return _result(obs.rules, engine.state.points, work.scores, cols.outcome[0],
                   cols.knocker[0], obs.dealer, engine.state.deadwood, obs.seat)  # fmt: skip


class Engine(NamedTuple):
    """The engine's arrays for one decision's rollouts (``kernels/engine.py``)."""

    state: Any  # HandState
    cols: Any  # one row of HandColumns
    probe: Any  # a resume probe (``kernels.probe.resume_probe``)
    sids: np.ndarray  # int64[players]: each seat's strategy in the engine
    params: np.ndarray  # float64[players, N_PARAMS]: ``rollout_params``, or strategies'
    fresh: bool  # zero the seats' hand memory before each rollout (real strategies)
    turn_words: np.ndarray  # int64[players]: where each seat counts its own turns, -1 nowhere
    memory: np.ndarray  # int64[SCRATCH_SIZE - SCRATCH_HAND]: the game memory of each rollout


@njit(cache=True)
def new_engine(players, me, knock_at, min_gain):
    return Engine(
        new_state_nb(players),
        one_row(players),
        resume_probe(players),
        np.zeros(players, np.int64),
        rollout_params(players, me, knock_at, min_gain),
        False,
        np.full(players, -1, np.int64),
        np.zeros(SCRATCH_SIZE - SCRATCH_HAND, np.int64),
    )


@njit(cache=True)
def borrowed_engine(owner):
    """``owner``'s arrays as borrowed views: each rollout hands them to ``play_hands``,
    and counted arrays would cost an ``NRT_incref`` / ``NRT_decref`` pair each per call
    (a quarter of the rollouts' time). ``owner`` must outlive the views."""
    return Engine(
        borrowed_state(owner.state),
        borrowed_columns(owner.cols),
        borrowed_probe(owner.probe),
        borrow(owner.sids),
        borrow(owner.params),
        owner.fresh,
        borrow(owner.turn_words),
        borrow(owner.memory),
    )


_ACTIONS = BorrowedArray(types.int64, 1, "C")
_I = types.int64


@piece(
    types.int64(
        OBS, _ACTIONS, _ACTIONS, types.uint64, _I, _I, _I, _I,
        BorrowedArray(types.float64, 2, "C"), BorrowedArray(types.int8, 2, "C"),
        BorrowedArray(types.int8, 2, "C"), BorrowedArray(types.int64, 1, "C"),
    )
)  # fmt: skip
def evaluate(
    obs, kinds, cards, decision_key, first_sample, model, knock_at, min_gain, net, won, ends,
    inference,
):  # fmt: skip
    """Play every action on samples ``first_sample ..`` (one per column of ``net``).

    ``net[a, j]`` receives action ``a``'s net points for this seat on sample
    ``first_sample + j`` (its points minus the mean of the other seats' points),
    ``won[a, j]`` 1 when the seat won that hand and ``ends[a, j]`` +1 / -1 when the
    hand ends the game with this seat / another seat reaching the target first.
    Returns how many sampled opponent hands fit nothing the opponent showed within
    ``INFER_TRIES`` deals (``model`` inferred or shown; they keep the last deal), or
    fit no last turn in ``PLAYED_TRIES`` deals (``model`` played, ``deal_sample``).
    ``inference``: the decision's words for ``MODEL_HISTORY`` (``new_inference``; the
    same array for each of a decision's calls).
    """
    return play_samples(
        obs, kinds, cards, decision_key, first_sample, model, net, won, ends,
        new_work(obs.players), new_engine(obs.players, obs.seat, knock_at, min_gain),
        inference,
    )  # fmt: skip


@njit(cache=True)
def new_inference():
    """A decision's words for ``MODEL_HISTORY``: no notes, no hands made (the caller
    copies its notes in from ``INF_NOTES``: ``kernels.history.copy_notes``)."""
    return np.zeros(INFERENCE_SIZE, np.int64)


@njit(cache=True)
def discard_candidates(obs, forbidden, limit_count, gin_count):
    """Cards the seat may discard, best first by the best-discard order (least
    deadwood left, then highest value, then highest index): the first
    ``limit_count`` (all when 0) and the ``gin_count`` natural cards first in
    ``gin_drop``'s order (ties to the lowest index). Returns ``(cards, deadwood
    left)``."""
    n = popcount(obs.hand)
    keys = np.empty(n, np.int64)
    gin_keys = np.empty(n, np.int64)
    m = 0
    g = 0
    counts = meld_partner_counts(obs.hand)
    lefts = stack_empty(DECK_CAPACITY, 0)
    discard_deadwoods(obs.hand, obs.tab, lefts)
    rest = obs.hand
    while rest:
        card = lowest_bit(rest)
        rest &= rest - 1
        if card == forbidden:
            continue
        d = lefts[card]
        value = np.int64(obs.tab[CARD_VALUE + card])
        keys[m] = discard_order_key(d, value, card)
        m += 1
        if gin_count > 0 and (L.NATURAL_BITS >> card) & 1:
            gin_keys[g] = gin_key(counts, card, obs.tab) * 64 + card
            g += 1
    keys = np.sort(keys[:m])
    gin_keys = np.sort(gin_keys[:g])
    wanted = np.int64(0)  # the gin candidates' cards
    for i in range(min(gin_count, g)):
        wanted |= np.int64(1) << (gin_keys[i] & 63)
    out_cards = np.empty(m, np.int64)
    out_dw = np.empty(m, np.int64)
    kept = 0
    for i in range(m):
        card = 63 - (keys[i] & 0xFF)
        if limit_count <= 0 or i < limit_count or (wanted >> card) & 1:
            out_cards[kept] = card
            out_dw[kept] = keys[i] >> 16
            kept += 1
    return out_cards[:kept], out_dw[:kept]


@njit(cache=True)
def discard_actions(obs, forbidden, limit_count, gin_count):
    """The actions of a discard decision: big gin when allowed and ready; else for
    each candidate discard (``discard_candidates``), discarding it and (when the knock
    would be legal) knocking with it. Returns ``(kinds, cards)``."""
    cands, dws = discard_candidates(obs, forbidden, limit_count, gin_count)
    rules = obs.rules
    if big_gin_ready(rules, obs.hand, obs.tab):
        kinds = np.full(1, ACT_BIG_GIN, np.int64)
        return kinds, np.full(1, cands[0], np.int64)
    n = cands.shape[0]
    for i in range(cands.shape[0]):
        if knock_within_limit(rules, obs.upcard, dws[i]):
            n += 1
    kinds = np.empty(n, np.int64)
    cards = np.empty(n, np.int64)
    a = 0
    for i in range(cands.shape[0]):
        kinds[a] = ACT_DISCARD
        cards[a] = cands[i]
        a += 1
        if knock_within_limit(rules, obs.upcard, dws[i]):
            kinds[a] = ACT_KNOCK
            cards[a] = cands[i]
            a += 1
    return kinds, cards
