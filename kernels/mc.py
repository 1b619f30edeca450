"""Determinized Monte Carlo: what each action of one seat is worth, by sampling.

Used by the ``mc`` strategy (``strategies/mc.py``) and by ``rummy advise``
(``sim/advise.py``); ``tests/reference/mc_ref.py`` is the pure-Python twin.

A *sample* deals the cards the seat cannot see uniformly at random among the deals
consistent with what it has seen (``hidden_cards``): its own hand and the discard pile
are known, each opponent keeps the cards it took from the pile and still holds, and
the rest of each opponent's hand and the stock (in a random order) come from the
hidden cards. Each action is then applied to the sample and the hand is played out by
the rollout policy, greedy for every seat (``play_out``: take the pile card when it
lowers the least deadwood by ``min_gain``, throw the best discard, knock at
``knock_at`` or less, big gin when ready); a knock is scored at once by the showdown
kernel. Every action is played on the same samples (common random numbers), so the
differences between actions carry far less noise than the values themselves.

When a rollout's stock runs out it is rebuilt as the engine rebuilds it (RULES.md
``stock_exhaustion``): every pile card but the top, turned over, and shuffled under
``reshuffle``, until the hand has had ``max_rebuilds`` rebuilds (the real ones so far,
``obs.rebuilds``, included); then the hand is scored as exhausted.

After a real rebuild the sample uses what the seat saw go into the stock
(``obs.rebuilt``): see ``determinize``.

Randomness: sample ``j`` of a decision is shuffled from ``random64(decision_key, j)``
(a rollout's reshuffles too, from the same sample key, so every action of one sample
meets the same reshuffle when it rebuilds the same pile), where ``decision_key``
comes from the seat's seeded strategy stream, so a decision is a pure function of the
seed, the deal and the seat's history.
"""

from typing import NamedTuple

import numpy as np
from numba import njit, types

from kernels import layout as L
from kernels.bits import lowest_bit, popcount
from kernels.borrow import BorrowedArray, borrow
from kernels.deadwood import (
    BIG,
    RANK_ACROSS_SUITS,
    best_discard_one,
    discard_order_key,
    loose_cards,
    min_deadwood_one,
)
from kernels.engine import hand_winner
from kernels.link import piece
from kernels.melds import MAX_MELDS_PER_ARRANGEMENT, melds_with
from kernels.obs import OBS, PHASE_UPCARD_OPTION
from kernels.rng import random64, shuffle
from kernels.showdown import knock_limit_of, showdown
from kernels.tables import CARD_VALUE

# Action kinds (``kinds[a]``; ``cards[a]`` is the card discarded or laid away).
ACT_TAKE = 0  # take the discard pile's top card (in the upcard option: the upcard)
ACT_DRAW = 1  # draw from the stock (in the upcard option: pass)
ACT_DISCARD = 2  # discard ``card`` and play on
ACT_KNOCK = 3  # lay ``card`` away and knock
ACT_BIG_GIN = 4  # go out with every card
ACTION_NAMES = ("take", "draw", "discard", "knock", "big_gin")

MAX_ROLLOUT_DRAWS = 400  # a rollout still running after this many draws is scored as exhausted
DEFAULT_KNOCK_AT = 10  # rollout threshold where the rules set no knock limit (as greedy)


class Work(NamedTuple):
    """Scratch arrays of one decision (allocated once per decision)."""

    deck: np.ndarray  # int64[64]: the hidden cards, shuffled per sample
    hands: np.ndarray  # int64[players]: the sampled hands
    base: np.ndarray  # int64[players]: the sample before an action is applied
    stock: np.ndarray  # int64[64]: the sampled stock, top first
    rebuilt: np.ndarray  # int64[64]: a rollout's rebuilt stock, top first
    pile: np.ndarray  # int64[128]: the rollout's discard pile
    dw: np.ndarray  # int64[players]: least deadwood per seat, -1 unknown
    deadwood: np.ndarray  # int64[players]: showdown outputs
    laid: np.ndarray
    points: np.ndarray
    melds: np.ndarray  # int64[MAX_MELDS_PER_ARRANGEMENT]
    scores: np.ndarray  # int64[players]: game scores before this hand (1/POINT_SCALE)


@njit(cache=True)
def new_work(players):
    return Work(
        np.zeros(64, np.int64),
        np.zeros(players, np.int64),
        np.zeros(players, np.int64),
        np.zeros(64, np.int64),
        np.zeros(64, np.int64),
        np.zeros(128, np.int64),
        np.zeros(players, np.int64),
        np.zeros(players, np.int64),
        np.zeros(players, np.int64),
        np.zeros(players, np.int64),
        np.zeros(MAX_MELDS_PER_ARRANGEMENT, np.int64),
        np.zeros(players, np.int64),
    )


@njit(cache=True, inline="always")
def _borrowed_work(owner):
    """``owner``'s arrays as borrowed views (kernels/borrow.py): the rollouts read and
    write them on every draw, and counted arrays in a tuple cost an ``NRT_incref`` /
    ``NRT_decref`` pair at each read. ``owner`` must outlive the views."""
    return Work(
        borrow(owner.deck), borrow(owner.hands), borrow(owner.base), borrow(owner.stock),
        borrow(owner.rebuilt), borrow(owner.pile), borrow(owner.dw), borrow(owner.deadwood),
        borrow(owner.laid), borrow(owner.points), borrow(owner.melds), borrow(owner.scores),
    )


@njit(cache=True)
def hidden_cards(obs):
    """Mask of the cards this seat cannot see: not in its hand, not in the pile, and
    not taken from the pile by an opponent that still holds them."""
    n_cards = 52 + obs.rules[L.R_JOKERS]
    hidden = ((np.int64(1) << n_cards) - 1) & ~obs.hand
    for i in range(obs.pile_n):
        hidden &= ~(np.int64(1) << obs.pile[i])
    for seat in range(obs.players):
        if seat != obs.seat:
            hidden &= ~obs.taken[seat]
    return hidden


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
INFER_TRIES = 16  # deals tried per opponent under MODEL_INFERRED (then the last one)
RETRY_SALT = 0xBEEF00  # counters of the retry shuffles: RETRY_SALT + 8 * attempt + seat
RESHUFFLE_SALT = 0xC0FFEE  # counter of the stock's reshuffle under the kept models
REBUILT_SALT = 0xDEC0DE  # counter of the opponents' shuffle after a real rebuild
REBUILD_SALT = 0xAB0000  # counters of a rollout's reshuffles: REBUILD_SALT + rebuild number


@njit(cache=True)
def _greedy_drop(hand, known, tab):
    """The card a greedy player throws from ``hand``: the best discard, but never one
    of the ``known`` cards (those the opponent is seen to hold)."""
    card, _ = best_discard_one(hand, -1, tab)
    if not (known >> card) & 1:
        return card
    best_card = np.int64(-1)
    best_d = np.int64(1) << 40
    rest = hand & ~known
    while rest:
        c = lowest_bit(rest)
        rest &= rest - 1
        d = min_deadwood_one(hand & ~(np.int64(1) << c), tab)
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
    rest = avoid & ~hand
    while rest:
        card = lowest_bit(rest)
        rest &= rest - 1
        if melds_with(hand, card, tab):
            return True
    return False


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
def determinize(obs, hidden, skey, model, work):
    """Deal one sample into ``work.base`` (hands) and ``work.stock`` (top first);
    returns the stock size.

    ``MODEL_UNIFORM``: each opponent's unseen cards are drawn uniformly from the
    hidden cards. ``MODEL_KEPT``: an opponent that has discarded ``D`` cards this hand
    is dealt its unseen cards, then plays ``D`` greedy turns on hidden cards (draw one,
    throw ``_greedy_drop``), so its hand looks like one a player improved for ``D``
    turns, not like a fresh deal. ``MODEL_INFERRED``: as kept, but a deal in which a
    card the opponent threw or passed (``avoided_cards``) would meld with its hand is
    dealt again from reshuffled hidden cards, up to ``INFER_TRIES`` times. The cards
    dropped in greedy turns go back to the stock, which is then shuffled again so
    that its order stays uniform.

    After a real rebuild (``obs.rebuilt``) the seat knows more than any model: the
    stock holds only cards the rebuild put there, and every other hidden card is in an
    opponent's hand (held since before the rebuild: real kept cards). So the stock is
    drawn from the rebuilt cards still hidden and the opponents get the rest,
    uniformly (``_determinize_rebuilt``); the models do not apply.
    """
    if obs.rebuilt != 0 and popcount(hidden & obs.rebuilt) >= obs.stock_n:
        return _determinize_rebuilt(obs, hidden, skey, work)
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
        tries = INFER_TRIES if model == MODEL_INFERRED else 1
        avoid = avoided_cards(obs, seat) if model == MODEL_INFERRED else np.int64(0)
        start = k
        for attempt in range(tries):
            if attempt > 0:
                shuffle(
                    work.deck[start:n], n - start, random64(skey, RETRY_SALT + 8 * attempt + seat)
                )
            h, k, dropped = _deal_opponent(work.deck, start, known, need, extra, obs.tab)
            if avoid == 0 or not _contradicts(h, avoid, obs.tab):
                break
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
def _game_end(rules, work, me):
    """+1 when this hand's points take ``me`` to the game's target first, -1 when they
    take another seat there, 0 otherwise (modes with a target: gin:T and match:T)."""
    mode = rules[L.R_GAME]
    if mode != L.GAME_GIN and mode != L.GAME_MATCH:
        return 0
    target = rules[L.R_GAME_TARGET] * L.POINT_SCALE
    leader = -1
    best = np.int64(0)
    for seat in range(work.hands.shape[0]):
        final = work.scores[seat] + work.points[seat]
        if final >= target and (leader < 0 or final > best):
            leader = seat
            best = final
    if leader < 0:
        return 0
    return 1 if leader == me else -1


@njit(cache=True)
def _score(rules, tab, work, knocker, knocker_deadwood, upcard, dealer, me):
    """Showdown of ``work.hands``: (net points of ``me``, 1 if ``me`` won the hand,
    the game end ``_game_end``). ``knocker_deadwood``: the knocker's least deadwood
    where the caller knows it, else -1 (the showdown solves it: a gin hand, all melds,
    is among the slowest to solve)."""
    outcome, _ = showdown(
        rules,
        work.hands,
        knocker,
        knocker_deadwood,
        upcard,
        dealer,
        tab,
        work.deadwood,
        work.laid,
        work.points,
        work.melds,
    )
    players = work.hands.shape[0]
    others = 0.0
    for seat in range(players):
        if seat != me:
            others += work.points[seat]
    net = (work.points[me] - others / (players - 1)) / L.POINT_SCALE
    won = 1 if hand_winner(outcome, knocker, dealer, work.deadwood) == me else 0
    return net, won, _game_end(rules, work, me)


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


# Greedy's best knock threshold against greedy in Knock Rummy (any deadwood may knock),
# by player count (index): `rummy tune greedy --param knock_at=0..40 --against greedy
# --rules knock-rummy -r players=N --deals 20000 --duplicate --seed 9` (4 players: the
# tune_knock_rummy_greedy experiment). Indices 0 and 1 are never read.
TUNED_KNOCK_RUMMY_AT = (33, 33, 33, 27, 26, 26, 27)


# Gin rules under which playing for gin (rollouts knocking at 0) was greedy's tuned
# threshold against simple: both bonuses at least this, and not Hollywood scoring.
GIN_FIRST_BONUS = 25


@njit(cache=True)
def rollout_knock_at(rules, knock_at):
    """The seat's rollout threshold that ``mc`` and ``rummy advise`` pass to
    ``evaluate``: ``knock_at`` when set (>= 0), else chosen from the rules as greedy's
    tuned threshold there (docs/MC.md, where ``mc`` measured the same way): 0 (play for
    gin) under Gin scoring with gin and undercut bonuses of 25 or more, except in
    Hollywood games (the `gin`, `eaai` and `oklahoma-gin` presets); the tuned threshold
    for the player count (``TUNED_KNOCK_RUMMY_AT``) where any deadwood may knock;
    elsewhere -1, the rule's limit (`gin-classic`, `hollywood-gin`,
    `round-the-corner-gin`)."""
    if knock_at >= 0:
        return knock_at
    if (
        rules[L.R_SCORING] == L.SCORING_GIN
        and rules[L.R_GIN_BONUS] >= GIN_FIRST_BONUS
        and rules[L.R_UNDERCUT_BONUS] >= GIN_FIRST_BONUS
        and rules[L.R_GAME] != L.GAME_HOLLYWOOD
    ):
        return np.int64(0)
    if rules[L.R_KNOCK_LIMIT] == L.KNOCK_ANY:
        return np.int64(TUNED_KNOCK_RUMMY_AT[rules[L.R_PLAYERS]])
    return np.int64(-1)


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


# Masks for ``meld_partner_counts``: the cards of each rank, in every suit.
_RANK = np.int64(RANK_ACROSS_SUITS)
_NOT_LOW1 = np.int64(L.NATURAL_BITS) & ~_RANK  # a card with a rank below it (not an ace)
_NOT_LOW2 = _NOT_LOW1 & ~(_RANK << 1)
_NOT_HIGH1 = np.int64(L.NATURAL_BITS) & ~(_RANK << 12)  # a card with a rank above it
_NOT_HIGH2 = _NOT_HIGH1 & ~(_RANK << 11)


@njit(cache=True, inline="always")
def _add3(x, y, z):
    """Bitwise full adder: (sum, carry) of three one-bit masks, position by position."""
    half = x ^ y
    return half ^ z, (x & y) | (z & half)


@njit(cache=True)
def meld_partner_counts(hand):
    """For every natural card position, how many meld partners ``hand`` holds for it
    (other cards of its rank; cards of its suit one or two ranks away), bit-sliced:
    ``(ones, twos, fours)``, so the count at card c is bit c of ones + 2 twos + 4 fours
    (0 to 7). Seven one-bit masks (each "the partner at this offset is held") summed
    by full adders, for every card at once, instead of a loop per card."""
    h = hand & L.NATURAL_BITS
    below1 = (h << 1) & _NOT_LOW1
    below2 = (h << 2) & _NOT_LOW2
    above1 = (h >> 1) & _NOT_HIGH1
    above2 = (h >> 2) & _NOT_HIGH2
    # The same rank in the other three suits: the 52 bits rotated by whole suits.
    suit1 = ((h << 13) | (h >> 39)) & L.NATURAL_BITS
    suit2 = ((h << 26) | (h >> 26)) & L.NATURAL_BITS
    suit3 = ((h << 39) | (h >> 13)) & L.NATURAL_BITS
    s1, c1 = _add3(below1, below2, above1)
    s2, c2 = _add3(above2, suit1, suit2)
    ones, c3 = _add3(s1, s2, suit3)
    twos, fours = _add3(c1, c2, c3)
    return ones, twos, fours


@njit(cache=True)
def gin_key(counts, card, tab):
    """``gin_drop``'s order, lowest thrown first: the card's meld partners in the hand
    (from ``meld_partner_counts``), then the highest deadwood value."""
    ones, twos, fours = counts
    partners = ((ones >> card) & 1) + 2 * ((twos >> card) & 1) + 4 * ((fours >> card) & 1)
    return partners * 64 - np.int64(tab[CARD_VALUE + card])


@njit(cache=True)
def gin_drop(hand, forbidden, tab):
    """The discard of a seat that plays for gin: the natural card with the fewest meld
    partners in the hand (``gin_key``), ties to the highest deadwood value, then the
    lowest index. A heuristic, not a solve: it keeps the pairs and near runs that the
    least-deadwood discard throws for being high, which is what a race to gin needs.
    Jokers are never thrown. (The cards with the fewest partners are found as one
    mask from the bit-sliced counts; only those few are compared by value.)"""
    ones, twos, fours = meld_partner_counts(hand)
    allowed = hand & L.NATURAL_BITS
    if forbidden >= 0:
        allowed &= ~(np.int64(1) << forbidden)
    fewest = np.int64(0)
    for count in range(8):  # the least count held by an allowed card
        fewest = allowed
        fewest &= ones if count & 1 else ~ones
        fewest &= twos if count & 2 else ~twos
        fewest &= fours if count & 4 else ~fours
        if fewest:
            break
    best = np.int64(-1)
    best_value = np.int64(-1)
    while fewest:
        c = lowest_bit(fewest)
        fewest &= fewest - 1
        value = np.int64(tab[CARD_VALUE + c])
        if value > best_value:  # ties: the lowest index, met first
            best_value = value
            best = c
    return best


@njit(cache=True)
def greedy_take_test(rules, tab, hand, current, top, min_gain):
    """Greedy's pile test: taking ``top`` lowers the least deadwood (``current``, or
    -1: not known yet) by at least ``min_gain``. Returns (take, the best discard after
    taking, the deadwood it leaves), so that a rollout that takes need not solve the
    same hand again; (False, -1, -1) when the answer needs no solve.

    The shortcut, exact: when ``top`` melds with no cards of the hand it is deadwood
    in every arrangement after taking it, and throwing card x then leaves at least
    ``current - value(x) + value(top)`` (x was at best deadwood). So if no card is
    worth ``min_gain`` more than ``top`` (and ``top`` may not go back, or keeping the
    same deadwood is no gain), the pile card cannot pass. In rollouts most pile cards
    are high cards just thrown, which this answers without solving the hand."""
    forbidden = top if rules[L.R_DISCARD_TAKEN_CARD] == 0 else -1
    if (forbidden >= 0 or min_gain > 0) and not melds_with(hand, top, tab):
        most = np.int64(0)
        rest = hand
        while rest:
            most = max(most, np.int64(tab[CARD_VALUE + lowest_bit(rest)]))
            rest &= rest - 1
        if most - np.int64(tab[CARD_VALUE + top]) < min_gain:
            return False, np.int64(-1), np.int64(-1)
    if current < 0:
        current = min_deadwood_one(hand, tab)
    discard, after = best_discard_one(hand | (np.int64(1) << top), forbidden, tab)
    return current - after >= min_gain, discard, after


@njit(cache=True)
def play_out(
    rules,
    tab,
    work,
    pile_n,
    stock_end,
    rebuilds,
    skey,
    seat,
    first,
    upcard,
    dealer,
    me,
    knock_at,
    min_gain,
):
    """Play the hand in ``work`` to its end with greedy play in every seat: ``me``
    knocks at ``knock_at`` or less, the others at the rule's threshold
    (``rollout_threshold``); with ``ROLLOUT_GIN_DROPS`` ``me`` knocks only with gin and
    throws ``gin_drop``'s card instead of the least-deadwood one, and with
    ``ROLLOUT_GIN_VS_WAITERS`` the others also knock only at ``WAITERS_KNOCK_AT`` or
    less.

    The stock is ``work.stock[:stock_end]``, top first; ``rebuilds`` is the number of
    rebuilds the hand has had, ``skey`` the sample's key (for reshuffles). ``seat``
    moves next; ``first`` is 0 for a free choice of draw, 1 when it takes the pile top
    (the upcard taken), 2 when it must draw from the stock. Returns ``_score``'s triple
    (a dead hand: zeros).
    """
    players = work.hands.shape[0]
    limit = knock_limit_of(rules, upcard)
    mine = rollout_threshold(rules, upcard, knock_at)
    gin_drops = throws_for_gin(knock_at)
    theirs = rollout_threshold(rules, upcard, -1)
    if knock_at == ROLLOUT_GIN_VS_WAITERS:
        theirs = min(theirs, np.int64(WAITERS_KNOCK_AT))
    forbid_taken = rules[L.R_DISCARD_TAKEN_CARD] == 0
    dead_mode = rules[L.R_STOCK_EXHAUSTION] == L.EXHAUST_DEAD_HAND
    wall = rules[L.R_WALL]
    big_gin_ok = rules[L.R_BIG_GIN_BONUS] > 0
    for s in range(players):
        work.dw[s] = -1
    stock = work.stock  # the sample's stock is kept for the next action: rebuild elsewhere
    stock_top = 0
    for _ in range(MAX_ROLLOUT_DRAWS):
        hand = work.hands[seat]
        solved = False  # the discard after the draw is known already
        discard, d = np.int64(-1), np.int64(0)
        if first == 1:
            from_pile = True
        elif first == 2 or pile_n == 0:
            from_pile = False
        else:
            from_pile, discard, d = greedy_take_test(
                rules, tab, hand, work.dw[seat], work.pile[pile_n - 1], min_gain
            )
            solved = from_pile
        first = 0
        forbidden = -1
        if from_pile:
            pile_n -= 1
            card = work.pile[pile_n]
            if forbid_taken:
                forbidden = card
        else:
            if stock_top == stock_end:
                # The stock is empty: rebuild it as the engine does, or end the hand.
                if rebuilds >= rules[L.R_MAX_REBUILDS] or pile_n <= 1 or dead_mode:
                    break  # the exhausted showdown
                rebuilds += 1
                stock_end = pile_n - 1
                for i in range(stock_end):
                    work.rebuilt[i] = work.pile[i]  # bottom (oldest) first: the new top
                work.pile[0] = work.pile[stock_end]
                pile_n = 1
                if rules[L.R_STOCK_EXHAUSTION] == L.EXHAUST_RESHUFFLE:
                    shuffle(work.rebuilt, stock_end, random64(skey, REBUILD_SALT + rebuilds))
                stock = work.rebuilt
                stock_top = 0
            card = stock[stock_top]
            stock_top += 1
        hand |= np.int64(1) << card
        throws_gin = gin_drops and seat == me
        if not solved:
            if throws_gin and loose_cards(hand, tab) >= 2:
                # Whatever it throws, a card in no meld stays: not gin, and gin_drop
                # chooses the discard (d is only "above 0").
                discard, d = np.int64(-1), np.int64(BIG)
            else:
                discard, d = best_discard_one(hand, forbidden, tab)
        known = True  # d is the deadwood the discard leaves (else a lower bound)
        if throws_gin and d > 0:  # not gin yet: keep what could make it
            discard = gin_drop(hand, forbidden, tab)
            known = False  # at least d, so no knock below; the pile test solves it if needed
        if d == 0 and big_gin_ok and min_deadwood_one(hand, tab) == 0:
            work.hands[seat] = hand
            return _score(rules, tab, work, seat, np.int64(0), upcard, dealer, me)
        kept = hand & ~(np.int64(1) << discard)
        work.hands[seat] = kept
        threshold = mine if seat == me else theirs
        if d <= threshold and (limit < 0 or d <= limit):  # d is exact here (see known)
            return _score(rules, tab, work, seat, d, upcard, dealer, me)
        work.dw[seat] = d if known else -1
        work.pile[pile_n] = discard
        pile_n += 1
        if dead_mode and stock_end - stock_top <= wall:
            return 0.0, 0, 0
        seat = (seat + 1) % players
    return _score(rules, tab, work, -1, np.int64(-1), upcard, dealer, me)


@njit(cache=True)
def play_action(obs, kind, card, stock_n, skey, work, knock_at, min_gain):
    """Apply one action to the sample in ``work.base`` / ``work.stock`` (dealt from
    the sample key ``skey``) and play on."""
    rules = obs.rules
    me = obs.seat
    players = obs.players
    for seat in range(players):
        work.hands[seat] = work.base[seat]
    for i in range(obs.pile_n):
        work.pile[i] = obs.pile[i]
    pile_n = obs.pile_n
    if kind == ACT_BIG_GIN or kind == ACT_KNOCK:
        if kind == ACT_KNOCK:
            work.hands[me] = obs.hand & ~(np.int64(1) << card)
        return _score(rules, obs.tab, work, me, np.int64(-1), obs.upcard, obs.dealer, me)
    # Who draws next, and how (``play_out``'s ``first``).
    mover, first = me, 2  # ACT_DRAW: this seat draws from the stock
    if kind == ACT_DISCARD:
        work.hands[me] = obs.hand & ~(np.int64(1) << card)
        work.pile[pile_n] = card
        pile_n += 1
        if rules[L.R_STOCK_EXHAUSTION] == L.EXHAUST_DEAD_HAND and stock_n <= rules[L.R_WALL]:
            return 0.0, 0, 0
        mover, first = (me + 1) % players, 0
    elif kind == ACT_TAKE:
        first = 1
    elif obs.phase == PHASE_UPCARD_OPTION:
        # A pass. The non-dealer passing hands the option to the dealer (greedy's pile
        # test): it takes, or the non-dealer must draw. The dealer passing after the
        # non-dealer did: the non-dealer draws from the stock.
        if me != obs.dealer:
            dealer = obs.dealer
            takes, _, _ = greedy_take_test(
                rules, obs.tab, work.hands[dealer], -1, obs.upcard, min_gain
            )
            if takes:
                mover, first = dealer, 1
        else:
            mover = (obs.dealer + 1) % players
    return play_out(
        rules, obs.tab, work, pile_n, stock_n, obs.rebuilds, skey, mover, first,
        obs.upcard, obs.dealer, me, knock_at, min_gain,
    )  # fmt: skip


_ACTIONS = BorrowedArray(types.int64, 1, "C")
_I = types.int64


@piece(
    types.none(
        OBS, _ACTIONS, _ACTIONS, types.uint64, _I, _I, _I, _I,
        BorrowedArray(types.float64, 2, "C"), BorrowedArray(types.int8, 2, "C"),
        BorrowedArray(types.int8, 2, "C"),
    )
)  # fmt: skip
def evaluate(
    obs, kinds, cards, decision_key, first_sample, model, knock_at, min_gain, net, won, ends
):
    """Play every action on samples ``first_sample ..`` (one per column of ``net``).

    ``net[a, j]`` receives action ``a``'s net points for this seat on sample
    ``first_sample + j`` (its points minus the mean of the other seats' points),
    ``won[a, j]`` 1 when the seat won that hand and ``ends[a, j]`` +1 / -1 when the
    hand ends the game with this seat / another seat reaching the target first.
    """
    _evaluate_with(
        obs, kinds, cards, decision_key, first_sample, model, knock_at, min_gain, net, won,
        ends, new_work(obs.players),
    )  # fmt: skip


@njit(cache=True)
def _evaluate_with(
    obs, kinds, cards, decision_key, first_sample, model, knock_at, min_gain, net, won, ends,
    owner,
):  # fmt: skip
    """``evaluate``'s loop on the working arrays ``owner`` (held by the caller for the
    whole call, so the loop may use them borrowed)."""
    work = _borrowed_work(owner)
    for seat in range(obs.players):
        work.scores[seat] = obs.scores[seat]
    hidden = hidden_cards(obs)
    for j in range(net.shape[1]):
        skey = random64(decision_key, first_sample + j)
        stock_n = determinize(obs, hidden, skey, model, work)
        for a in range(kinds.shape[0]):
            v, w, e = play_action(obs, kinds[a], cards[a], stock_n, skey, work, knock_at, min_gain)
            net[a, j] = v
            won[a, j] = w
            ends[a, j] = e


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
    rest = obs.hand
    while rest:
        card = lowest_bit(rest)
        rest &= rest - 1
        if card == forbidden:
            continue
        d = min_deadwood_one(obs.hand & ~(np.int64(1) << card), obs.tab)
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
    limit = knock_limit_of(rules, obs.upcard)
    if rules[L.R_BIG_GIN_BONUS] > 0 and min_deadwood_one(obs.hand, obs.tab) == 0:
        kinds = np.full(1, ACT_BIG_GIN, np.int64)
        return kinds, np.full(1, cands[0], np.int64)
    n = cands.shape[0]
    for i in range(cands.shape[0]):
        if limit < 0 or dws[i] <= limit:
            n += 1
    kinds = np.empty(n, np.int64)
    cards = np.empty(n, np.int64)
    a = 0
    for i in range(cands.shape[0]):
        kinds[a] = ACT_DISCARD
        cards[a] = cands[i]
        a += 1
        if limit < 0 or dws[i] <= limit:
            kinds[a] = ACT_KNOCK
            cards[a] = cands[i]
            a += 1
    return kinds, cards
