"""Pure-Python twin of ``kernels/mc.py``: determinized samples and greedy rollouts.

Written the plain way (lists of cards, the reference solver of ``strategies_ref``, the
showdown oracle of ``scoring_ref``) so the tests can compare the kernel's values with
it sample by sample, and so that small positions can be solved by brute force
(``exact_values``: every ordering of the hidden cards, equally likely).

``obs`` is a ``strategies_ref.RefObs`` (or any object with its fields; the rule vector in
``obs.rules``). ``McRef`` is the twin of the ``mc`` strategy's hooks.
"""

from __future__ import annotations

import itertools
import math
from fractions import Fraction
from typing import Any

import numpy as np

from kernels import layout as L
from kernels.layout import (
    EXHAUST_DEAD_HAND,
    EXHAUST_RESHUFFLE,
    GAME_GIN,
    GAME_MATCH,
    POINT_SCALE,
    R_BIG_GIN_BONUS,
    R_DISCARD_TAKEN_CARD,
    R_GAME,
    R_GAME_TARGET,
    R_HAND_SIZE,
    R_JOKERS,
    R_MAX_REBUILDS,
    R_STOCK_EXHAUSTION,
    R_WALL,
)
from kernels.obs import GAME_HANDS, GAME_OPP_KNOCKS
from tests.reference import deadwood_ref, rng_ref
from tests.reference import strategies_ref as S
from tests.reference.engine_ref import MAX_TURNS, mask_of
from tests.reference.rules_ns import make_rules
from tests.reference.scoring_ref import score_showdown_ref

ACT_TAKE, ACT_DRAW, ACT_DISCARD, ACT_KNOCK, ACT_BIG_GIN = range(5)
MODEL_UNIFORM, MODEL_KEPT, MODEL_INFERRED, MODEL_SHOWN, MODEL_PLAYED = 0, 1, 2, 3, 4
MODEL_FROM_RULES = -1
INFER_TRIES = 16
PLAYED_TRIES = 32
PLAYED_SALT = 0x91A7ED00
RETRY_SALT = 0xBEEF00
RESHUFFLE_SALT = 0xC0FFEE
REBUILT_SALT = 0xDEC0DE


def hidden_cards(obs: Any) -> list[int]:
    """Cards the seat cannot see, ascending."""
    seen = set(S.cards_of(obs.hand)) | set(S.pile_of(obs))
    for seat in range(obs.players):
        if seat != obs.seat:
            seen |= set(S.cards_of(obs.taken[seat]))
    n_cards = 52 + int(obs.rules[R_JOKERS])
    return [card for card in range(n_cards) if card not in seen]


def greedy_drop(obs: Any, hand: int, known: int) -> int:
    """The best discard of ``hand`` among the cards not in ``known``."""
    card, _ = S.best_discard(obs, hand, None)
    if not (known >> card) & 1:
        return card
    options = [(S.min_deadwood(S.without(hand, c), obs), -c, c) for c in S.cards_of(hand & ~known)]
    return min(options)[2]


def avoided_cards(obs: Any, seat: int) -> set[int]:
    """Natural cards ``seat`` discarded, and covered pile cards the seat before it
    discarded (it passed them)."""
    before = (seat - 1) % obs.players
    pile = S.pile_of(obs)
    avoid = set(S.cards_of(obs.discarded[seat]))
    avoid |= {card for card in pile[:-1] if (obs.discarded[before] >> card) & 1}
    return {card for card in avoid if card < 52}


def melds_with(obs: Any, hand: int, card: int) -> bool:
    """Some meld of ``hand + card`` holds ``card``."""
    melds = deadwood_ref.melds_in(S.cards_of(hand) + [card], S.rules_namespace(obs.rules))
    return any(card in meld for meld in melds)


def _deal_opponent(obs: Any, deck: list[int], k: int, known: int, need: int, extra: int):
    hand = known | mask_of(deck[k : k + need])
    k += need
    dropped = []
    for card in deck[k : k + extra]:
        hand |= 1 << card
        drop = greedy_drop(obs, hand, known)
        hand &= ~(1 << drop)
        dropped.append(drop)
    return hand, k + extra, dropped


def determinize_rebuilt(obs: Any, skey: int) -> tuple[list[int], list[int]]:
    """After a real rebuild: the stock from the hidden cards the rebuild put there, the
    opponents' unseen cards from every other hidden card (twin of
    ``_determinize_rebuilt``)."""
    hidden = hidden_cards(obs)
    candidates = [c for c in hidden if (obs.rebuilt >> c) & 1]
    rng_ref.shuffle(candidates, skey)
    stock = candidates[: obs.stock_n]
    others = [c for c in hidden if c not in stock]
    rng_ref.shuffle(others, rng_ref.random64(skey, REBUILT_SALT))
    hands = [0] * obs.players
    for seat in range(obs.players):
        if seat == obs.seat:
            hands[seat] = obs.hand
            continue
        need = int(obs.rules[R_HAND_SIZE]) - bin(obs.taken[seat]).count("1")
        hands[seat] = obs.taken[seat] | mask_of(others[:need])
        others = others[need:]
    return hands, stock


def determinize(obs: Any, skey: int, model: int) -> tuple[list[int], list[int], int]:
    """One sample: every seat's hand (masks), the stock (top first) and how many
    opponents got the last of ``INFER_TRIES`` deals because none fit what they showed."""
    rebuilt_hidden = [c for c in hidden_cards(obs) if (obs.rebuilt >> c) & 1]
    if obs.rebuilt and len(rebuilt_hidden) >= obs.stock_n:
        return (*determinize_rebuilt(obs, skey), 0)
    if model in (MODEL_FROM_RULES, MODEL_PLAYED):  # shown where any deadwood may knock, else kept
        model = MODEL_SHOWN if int(obs.rules[L.R_KNOCK_LIMIT]) == L.KNOCK_ANY else MODEL_KEPT
    deck = hidden_cards(obs)
    rng_ref.shuffle(deck, skey)
    hand_size = int(obs.rules[R_HAND_SIZE])
    needs = {
        seat: hand_size - bin(obs.taken[seat]).count("1")
        for seat in range(obs.players)
        if seat != obs.seat
    }
    hands = [0] * obs.players
    returned: list[int] = []
    misses = 0
    k = 0
    for seat in range(obs.players):
        if seat == obs.seat:
            hands[seat] = obs.hand
            continue
        known = obs.taken[seat]
        later = sum(n for s, n in needs.items() if s > seat)
        extra = 0
        if model != MODEL_UNIFORM:
            extra = max(
                0, min(bin(obs.discarded[seat]).count("1"), len(deck) - k - needs[seat] - later)
            )
        infer = model in (MODEL_INFERRED, MODEL_SHOWN)
        avoid = avoided_cards(obs, seat) if infer else set()
        # shown: an opponent that has discarded did not knock: deadwood above its threshold
        floor = shown_floor(obs) if model == MODEL_SHOWN and obs.discarded[seat] else None
        start = k
        for attempt in range(INFER_TRIES if infer else 1):
            if attempt > 0:
                tail = deck[start:]
                rng_ref.shuffle(tail, rng_ref.random64(skey, RETRY_SALT + 8 * attempt + seat))
                deck[start:] = tail
            hand, k, dropped = _deal_opponent(obs, deck, start, known, needs[seat], extra)
            melds = any(melds_with(obs, hand, c) for c in avoid if not (hand >> c) & 1)
            fits = not melds and (floor is None or S.min_deadwood(hand, obs) > floor)
            if fits:
                break
        misses += infer and not fits
        returned += dropped
        hands[seat] = hand
    stock = deck[k:]
    if returned:
        stock += sorted(returned)
        rng_ref.shuffle(stock, rng_ref.random64(skey, RESHUFFLE_SALT))
    return hands, stock, misses


def _score(obs: Any, hands: list[int], knocker: int | None) -> tuple[Fraction, int, int]:
    result = score_showdown_ref(
        scoring_namespace(obs.rules),
        [S.cards_of(h) for h in hands],
        knocker,
        obs.upcard,
        obs.dealer,
    )
    points = [Fraction(p) for p in result["points"]]
    me = obs.seat
    others = [points[s] for s in range(obs.players) if s != me]
    net = points[me] - sum(others) / len(others)
    deadwood = result["deadwood"]
    outcome = result["outcome"]
    if outcome in ("knock_win", "rummy", "gin", "big_gin"):
        winner = knocker
    elif outcome == "undercut":
        order = [(knocker + 1 + i) % obs.players for i in range(obs.players - 1)]
        least = min(deadwood[s] for s in order)
        winner = next(s for s in order if deadwood[s] == least)
    elif outcome == "exhausted":
        order = [(obs.dealer + 1 + i) % obs.players for i in range(obs.players)]
        least = min(deadwood)
        winner = (
            -1
            if all(d == least for d in deadwood)
            else next(s for s in order if deadwood[s] == least)
        )
    else:
        winner = -1
    return net, int(winner == me), game_end(obs, points)


def game_end(obs: Any, points: list[Fraction]) -> int:
    """+1 / -1 when the hand takes this seat / another seat to the game's target first
    (the highest total at or over it; ties to the lower seat), else 0."""
    if int(obs.rules[R_GAME]) not in (GAME_GIN, GAME_MATCH):
        return 0
    scores = list(obs.scores) or [0] * obs.players
    target = int(obs.rules[R_GAME_TARGET]) * POINT_SCALE
    finals = [scores[s] + points[s] * POINT_SCALE for s in range(obs.players)]
    over = [(-f, s) for s, f in enumerate(finals) if f >= target]
    if not over:
        return 0
    return 1 if min(over)[1] == obs.seat else -1


def scoring_namespace(rules: Any) -> Any:
    """The showdown oracle's rules namespace, decoded from a compiled rule vector."""
    v = [int(x) for x in rules]
    limit = v[L.R_KNOCK_LIMIT]
    return make_rules(
        players=v[L.R_PLAYERS],
        hand_size=v[R_HAND_SIZE],
        jokers=v[R_JOKERS],
        joker_value=v[L.R_JOKER_VALUE],
        ace=S.ACE_NAMES[v[L.R_ACE]],
        ace_high_value=v[L.R_ACE_HIGH_VALUE],
        knock_limit=None
        if limit == L.KNOCK_ANY
        else ("upcard" if limit == L.KNOCK_UPCARD else limit),
        big_gin_bonus=v[R_BIG_GIN_BONUS],
        layoff=bool(v[L.R_LAYOFF]),
        layoff_play="greedy" if v[L.R_LAYOFF_PLAY] == L.LAYOFF_GREEDY else "optimal",
        scoring="gin" if v[L.R_SCORING] == L.SCORING_GIN else "knock",
        rummy_bonus=v[L.R_RUMMY_BONUS],
        undercut_penalty=v[L.R_UNDERCUT_PENALTY],
        tied_winners="split" if v[L.R_TIED_WINNERS] == L.TIED_SPLIT else "nearest_left",
        knocker_tie="neutral" if v[L.R_KNOCKER_TIE] == L.KNOCKER_TIE_NEUTRAL else "undercut",
        penalty_to="each_lower" if v[L.R_PENALTY_TO] == L.PENALTY_TO_EACH_LOWER else "winner",
        gin_bonus=v[L.R_GIN_BONUS],
        undercut_bonus=v[L.R_UNDERCUT_BONUS],
        undercut_on_tie=bool(v[L.R_UNDERCUT_ON_TIE]),
        spade_double=bool(v[L.R_SPADE_DOUBLE]),
    )


ROLLOUT_GIN_DROPS = -2  # play for gin, throwing gin_drop's card (kernels.mc)
ROLLOUT_GIN_VS_WAITERS = -3  # the same, the opponents knocking at WAITERS_KNOCK_AT or less
WAITERS_KNOCK_AT = 5
GIN_SCREEN = 50  # mc's screen=-1 where the rollouts throw for gin (strategies/mc.py)


def throws_for_gin(knock_at: int) -> bool:
    return knock_at in (ROLLOUT_GIN_DROPS, ROLLOUT_GIN_VS_WAITERS)


def _threshold(obs: Any, knock_at: int) -> int:
    if throws_for_gin(knock_at):
        return 0
    return knock_at if knock_at >= 0 else S.rule_threshold(obs)


def _their_threshold(obs: Any, knock_at: int) -> int:
    """The opponents' rollout threshold under this seat's policy ``knock_at``."""
    if knock_at == ROLLOUT_GIN_VS_WAITERS:
        return min(S.rule_threshold(obs), WAITERS_KNOCK_AT)
    return S.rule_threshold(obs)


def gin_key(obs: Any, hand: int, card: int) -> tuple[int, int]:
    """Twin of ``kernels.rollout.gin_key``: the card's partners (other cards of its rank,
    cards of its suit within two ranks), then the highest value."""
    rank, suit = card % 13, card // 13
    partners = sum(1 for s in range(4) if s != suit and (hand >> (13 * s + rank)) & 1)
    partners += sum(
        1 for r in (rank - 2, rank - 1, rank + 1, rank + 2)
        if 0 <= r < 13 and (hand >> (13 * suit + r)) & 1
    )  # fmt: skip
    return partners, -S.value_of(card, obs)


def gin_drop(obs: Any, hand: int, forbidden: int | None) -> int:
    """Twin of ``kernels.rollout.gin_drop``: the natural card first by ``gin_key``, then
    the lowest index."""
    return min((gin_key(obs, hand, c), c) for c in range(52) if (hand >> c) & 1 and c != forbidden)[
        1
    ]


def play_out(obs, hands, stock, pile, skey, seat, first, knock_at, min_gain):
    """Greedy play in every seat to the end of the hand: the twin of the engine playing
    a rollout (``kernels.mc.play_action``, the rollout policy of ``kernels/rollout.py``).

    An empty stock is rebuilt from the pile as the engine does, shuffled under
    ``reshuffle`` as the engine shuffles with the sample key ``skey`` as its key
    (``None`` for ``exact_values``, which cannot enumerate reshuffles: it refuses
    them); the engine's guard ends the hand after ``MAX_TURNS`` draws, the real ones
    (``obs.turn``) counted."""
    rules = obs.rules
    rebuilds = obs.rebuilds
    forbid_taken = int(rules[R_DISCARD_TAKEN_CARD]) == 0
    dead_mode = int(rules[R_STOCK_EXHAUSTION]) == EXHAUST_DEAD_HAND
    wall = int(rules[R_WALL])
    limit = S.knock_limit(obs)
    hands = list(hands)
    pile = list(pile)
    stock = list(stock)
    turns = obs.turn
    while True:
        hand = hands[seat]
        if first == 1:
            from_pile = True
        elif first == 2 or not pile:
            from_pile = False
        else:
            top = pile[-1]
            _, after = S.best_discard(obs, hand | (1 << top), top if forbid_taken else None)
            from_pile = S.min_deadwood(hand, obs) - after >= min_gain
        first = 0
        forbidden = None
        if from_pile:
            card = pile.pop()
            if forbid_taken:
                forbidden = card
        else:
            if not stock:
                if rebuilds >= int(rules[R_MAX_REBUILDS]) or len(pile) <= 1 or dead_mode:
                    break
                rebuilds += 1
                stock, pile = pile[:-1], pile[-1:]  # the oldest discard on top
                if int(rules[R_STOCK_EXHAUSTION]) == EXHAUST_RESHUFFLE:
                    if skey is None:
                        raise ValueError("exact values cannot enumerate a reshuffle")
                    # The engine's reshuffle, keyed on the sample (deal 0, hand 0).
                    stream = rng_ref.make_stream(rng_ref.PURPOSE_RESHUFFLE, 0, rebuilds)
                    rng_ref.shuffle(stock, rng_ref.stream_key(skey, 0, stream))
            card = stock.pop(0)
        hand |= 1 << card
        turns += 1
        discard, d = S.best_discard(obs, hand, forbidden)
        if d == 0 and int(rules[R_BIG_GIN_BONUS]) > 0 and S.min_deadwood(hand, obs) == 0:
            hands[seat] = hand
            return _score(obs, hands, seat)
        if throws_for_gin(knock_at) and seat == obs.seat and d > 0:
            discard = gin_drop(obs, hand, forbidden)
            d = S.min_deadwood(S.without(hand, discard), obs)
        hands[seat] = S.without(hand, discard)
        if seat == obs.seat:
            threshold = _threshold(obs, knock_at)
        else:
            threshold = _their_threshold(obs, knock_at)
        if d <= threshold and (limit < 0 or d <= limit):
            return _score(obs, hands, seat)
        pile.append(discard)
        if dead_mode and len(stock) <= wall:
            return Fraction(0), 0, 0
        if turns >= MAX_TURNS:
            break  # the engine's guard: the exhausted showdown
        seat = (seat + 1) % obs.players
    return _score(obs, hands, None)


def play_action(obs, kind, card, hands, stock, skey, knock_at, min_gain):
    """Apply one action to a sample and play on (twin of ``play_action``)."""
    me = obs.seat
    pile = S.pile_of(obs)
    hands = list(hands)
    if kind == ACT_BIG_GIN:
        return _score(obs, hands, me)
    if kind == ACT_KNOCK:
        hands[me] = S.without(obs.hand, card)
        return _score(obs, hands, me)
    if kind == ACT_DISCARD:
        hands[me] = S.without(obs.hand, card)
        if int(obs.rules[R_STOCK_EXHAUSTION]) == EXHAUST_DEAD_HAND and len(stock) <= int(
            obs.rules[R_WALL]
        ):
            return Fraction(0), 0, 0
        return play_out(
            obs, hands, stock, pile + [card], skey, (me + 1) % obs.players, 0, knock_at, min_gain
        )
    if kind == ACT_TAKE:
        return play_out(obs, hands, stock, pile, skey, me, 1, knock_at, min_gain)
    if obs.phase == S.PHASE_UPCARD_OPTION:
        if me != obs.dealer:
            dealer = obs.dealer
            top = obs.upcard
            _, after = S.best_discard(
                obs,
                hands[dealer] | (1 << top),
                top if int(obs.rules[R_DISCARD_TAKEN_CARD]) == 0 else None,
            )
            if S.min_deadwood(hands[dealer], obs) - after >= min_gain:
                return play_out(obs, hands, stock, pile, skey, dealer, 1, knock_at, min_gain)
            return play_out(obs, hands, stock, pile, skey, me, 2, knock_at, min_gain)
        return play_out(
            obs, hands, stock, pile, skey, (obs.dealer + 1) % obs.players, 2, knock_at, min_gain
        )
    return play_out(obs, hands, stock, pile, skey, me, 2, knock_at, min_gain)


def last_turn_fits(obs: Any, hand: int, key: int, knock_at: int, min_gain: int) -> bool:
    """Twin of ``kernels.mc.last_turn_fits`` where every seat plays the rollout policy
    (``play_out``'s rules): would the seat before this one, holding ``hand``, have
    played its last turn as the pile shows?"""
    players, me = obs.players, obs.seat
    before = (me - 1) % players
    theirs, mine = int(obs.discarded[before]), int(obs.discarded[me])
    if obs.phase == S.PHASE_UPCARD_OPTION or theirs == 0:
        return True
    pile = S.pile_of(obs)
    my_taken = int(obs.taken[me])
    if obs.phase == S.PHASE_DISCARD and obs.from_pile:  # this seat's draw undone
        pile.append(int(obs.drawn))
        my_taken = S.without(my_taken, int(obs.drawn))
    if not pile or not (theirs >> pile[-1]) & 1:
        return True
    thrown = pile.pop()
    held = int(hand) | 1 << thrown
    took = passed = None
    if players == 2 and pile and obs.rebuilds == 0:
        under = pile[-1]
        if (theirs >> under) & 1 and not (mine >> under) & 1:
            mine_held = S.cards_of(int(obs.taken[before]) & mine)
            if len(mine_held) == 1:
                took = mine_held[0]
        elif (mine >> under) & 1 and not (theirs >> under) & 1 and not my_taken & theirs:
            passed = under
    forbid = int(obs.rules[R_DISCARD_TAKEN_CARD]) == 0
    drawn = took
    if passed is not None:
        free = S.cards_of(held & ~int(obs.taken[before]))
        drawn = free[rng_ref.random64(key, PLAYED_SALT) % len(free)]
    if drawn is not None:
        offered = took if took is not None else passed
        earlier = S.without(held, drawn)
        _, after = S.best_discard(obs, earlier | 1 << offered, offered if forbid else None)
        if (S.min_deadwood(earlier, obs) - after >= min_gain) != (took is not None):
            return False
    choice, left = S.best_discard(obs, held, took if forbid else None)
    if choice != thrown and drawn is None and forbid and (int(obs.taken[before]) >> choice) & 1:
        choice, left = S.best_discard(obs, held, choice)  # it may have just taken it
    if choice != thrown:
        return False
    if left == 0 and int(obs.rules[R_BIG_GIN_BONUS]) > 0 and S.min_deadwood(held, obs) == 0:
        return False  # it would have gone out with every card
    limit = S.knock_limit(obs)
    return not (left <= _their_threshold(obs, knock_at) and (limit < 0 or left <= limit))


def deal_sample(obs: Any, skey: int, model: int, knock_at: int, min_gain: int):
    """Twin of ``kernels.mc.deal_sample``: ``determinize``, and under ``MODEL_PLAYED``
    dealt again until the seat before fits its last turn (``PLAYED_TRIES`` deals)."""
    hands, stock, misses = determinize(obs, skey, model)
    if model != MODEL_PLAYED:
        return hands, stock, misses
    before = (obs.seat - 1) % obs.players
    key = skey
    for attempt in range(1, PLAYED_TRIES + 1):
        if last_turn_fits(obs, hands[before], key, knock_at, min_gain):
            return hands, stock, misses
        if attempt < PLAYED_TRIES:
            key = rng_ref.random64(skey, PLAYED_SALT + attempt)
            hands, stock, misses = determinize(obs, key, model)
    return hands, stock, misses + 1


def evaluate(obs, actions, decision_key, first_sample, samples, model, knock_at, min_gain):
    """``(net, won, ends, misses)``: per action a list of per-sample values, and the
    opponent hands that fit nothing shown (twin of ``evaluate``)."""
    net = [[] for _ in actions]
    won = [[] for _ in actions]
    ends = [[] for _ in actions]
    misses = 0
    for j in range(first_sample, first_sample + samples):
        skey = rng_ref.random64(decision_key, j)
        hands, stock, missed = deal_sample(obs, skey, model, knock_at, min_gain)
        misses += missed
        for a, (kind, card) in enumerate(actions):
            v, w, e = play_action(obs, kind, card, hands, stock, skey, knock_at, min_gain)
            net[a].append(v)
            won[a].append(w)
            ends[a].append(e)
    return net, won, ends, misses


def discard_actions(
    obs: Any, forbidden: int | None, limit_count: int, gin_count: int = 0
) -> list[tuple[int, int]]:
    """Twin of ``discard_actions``: big gin when ready, else the best ``limit_count``
    discards and the first ``gin_count`` natural cards by ``gin_key`` (in the
    best-discard order), each followed by its knock when legal."""
    order = sorted(
        (S.discard_order(obs, card), card) for card in S.cards_of(obs.hand) if card != forbidden
    )
    if 0 < limit_count < len(order):
        by_gin = sorted((gin_key(obs, obs.hand, c), c) for _, c in order if c < 52)
        gin_cards = {c for _, c in by_gin[:gin_count]}
        order = [o for i, o in enumerate(order) if i < limit_count or o[1] in gin_cards]
    if int(obs.rules[R_BIG_GIN_BONUS]) > 0 and S.min_deadwood(obs.hand, obs) == 0:
        return [(ACT_BIG_GIN, order[0][1])]
    actions = []
    for (d, _, _), card in order:
        actions.append((ACT_DISCARD, card))
        if S.knock_legal(obs, d):
            actions.append((ACT_KNOCK, card))
    return actions


def exact_values(obs, actions, knock_at, min_gain) -> list[Fraction]:
    """Each action's expected net points over every equally likely ordering of the
    hidden cards (``MODEL_UNIFORM``), by brute force: only for tiny positions."""
    hidden = hidden_cards(obs)
    hand_size = int(obs.rules[R_HAND_SIZE])
    totals = [Fraction(0)] * len(actions)
    count = 0
    for order in itertools.permutations(hidden):
        hands = [0] * obs.players
        k = 0
        for seat in range(obs.players):
            if seat == obs.seat:
                hands[seat] = obs.hand
                continue
            need = hand_size - bin(obs.taken[seat]).count("1")
            hands[seat] = obs.taken[seat] | mask_of(order[k : k + need])
            k += need
        stock = list(order[k:])
        for a, (kind, card) in enumerate(actions):
            v, _, _ = play_action(obs, kind, card, hands, stock, None, knock_at, min_gain)
            totals[a] += v
        count += 1
    return [t / count for t in totals]


# --- the strategy's hooks ------------------------------------------------------------


# Twin of kernels.mc.TUNED_KNOCK_RUMMY_AT, written out: player count -> threshold.
TUNED_KNOCK_RUMMY_AT = {2: 33, 3: 27, 4: 26, 5: 26, 6: 27}


def shown_floor(obs: Any) -> int:
    """Twin of ``kernels.mc.shown_floor``: the rule's knock limit, else the tuned
    threshold for the player count."""
    limit = S.knock_limit(obs)
    return limit if limit >= 0 else TUNED_KNOCK_RUMMY_AT[int(obs.rules[L.R_PLAYERS])]


def rollout_knock_at(obs: Any, knock_at: int) -> int:
    """Twin of ``kernels.mc.rollout_knock_at``: -1 means 0 under Gin scoring with gin
    and undercut bonuses of 25 or more outside Hollywood games, the tuned threshold
    where any deadwood may knock, else -1 (the rule's limit)."""
    v = [int(x) for x in obs.rules]
    if knock_at >= 0:
        return knock_at
    gin_first = v[L.R_GIN_BONUS] >= 25 and v[L.R_UNDERCUT_BONUS] >= 25
    if v[L.R_SCORING] == L.SCORING_GIN and gin_first and v[L.R_GAME] != L.GAME_HOLLYWOOD:
        return 0
    if v[L.R_KNOCK_LIMIT] == L.KNOCK_ANY:
        return TUNED_KNOCK_RUMMY_AT[v[L.R_PLAYERS]]
    return -1


def rollout_policy(obs: Any, knock_at: int, throw_for_gin: int, opponents_wait: int) -> int:
    """Twin of ``kernels.mc.rollout_policy``."""
    threshold = rollout_knock_at(obs, knock_at)
    if threshold == 0 and throw_for_gin:
        return ROLLOUT_GIN_VS_WAITERS if opponents_wait else ROLLOUT_GIN_DROPS
    return threshold


class McRef:
    """Twin of ``strategies/mc.py``: the same actions, samples and choice."""

    FIELDS = (
        ("samples", int), ("candidates", int), ("knock_at", int), ("min_gain", int),
        ("budget", int), ("model", int), ("game_weight", float), ("gin_drop", int),
        ("screen", int), ("finalists", int), ("gin_candidates", int), ("waiters", int),
        ("stop", float), ("step", int), ("time", float),
        # spec parameters: the twin plays the rollout policy only (they are empty); a
        # bound line-up plays as the policy does (tests/sim/test_rollouts.py)
        ("rollout", str), ("opponents", str),
    )  # fmt: skip
    CHOSEN_KIND, CHOSEN_CARD = 1, 2  # scratch words

    def policy(self, obs: Any, p: dict[str, Any], scratch: list[int]) -> int:
        """The rollouts' policy: ``gin_drop`` -1 throws for gin while the game memory
        counts no opponent's knock with deadwood; ``waiters`` -1: the opponents wait
        once a hand of the game is over without one."""
        no_knocks = scratch[GAME_OPP_KNOCKS] == 0
        throw_for_gin = p["gin_drop"]
        if throw_for_gin < 0:
            throw_for_gin = int(no_knocks)
        opponents_wait = p["waiters"]
        if opponents_wait < 0:
            opponents_wait = int(no_knocks and scratch[GAME_HANDS] > 0)
        return rollout_policy(obs, p["knock_at"], throw_for_gin, opponents_wait)

    def _best(self, obs: Any, p: dict[str, Any], scratch: list[int], actions: list) -> int:
        key = rng_ref.random64(int(obs.rng_key), scratch[0])
        scratch[0] += 1
        samples = max(1, p["samples"])
        if p["budget"] > 0:
            samples = max(1, min(samples, p["budget"] // len(actions)))
        knock_at = self.policy(obs, p, scratch)

        def play(acts: list, first: int, count: int) -> tuple[list, list]:
            net, _, ends, _ = evaluate(
                obs, acts, key, first, count, p["model"], knock_at, p["min_gain"]
            )
            return net, ends

        def best_of(net: list, ends: list) -> tuple[int, list[float]]:
            # The kernel's float arithmetic, so that near-ties break the same way.
            values = [
                np.mean(np.array([float(v) for v in n]))
                + p["game_weight"] * np.mean(np.array(e, float))
                for n, e in zip(net, ends, strict=True)
            ]
            return max(range(len(values)), key=lambda a: (values[a], -a)), values

        if p["stop"] > 0 or p["time"] > 0:
            return self._race(p, actions, play, samples)
        n, screen, finalists = len(actions), p["screen"], p["finalists"]
        if screen < 0:
            screen = GIN_SCREEN if throws_for_gin(knock_at) else 0
        if screen <= 0 or finalists <= 0 or n <= finalists or screen >= samples:
            return best_of(*play(actions, 0, samples))[0]
        net, ends = play(actions, 0, screen)  # the first round, every action
        _, values = best_of(net, ends)
        keep = sorted(sorted(range(n), key=lambda a: (-values[a], a))[:finalists])
        rest_net, rest_ends = play([actions[a] for a in keep], screen, samples - screen)
        both_net = [net[a] + rest_net[i] for i, a in enumerate(keep)]
        both_ends = [ends[a] + rest_ends[i] for i, a in enumerate(keep)]
        return keep[best_of(both_net, both_ends)[0]]

    @staticmethod
    def _race(p: dict[str, Any], actions: list, play: Any, samples: int) -> int:
        """Successive elimination: rounds of ``step`` samples for the actions still in;
        drop one whose paired difference from the best is below zero by more than
        ``stop`` standard errors (or, never varying, not above zero)."""
        step = max(1, p["step"])
        util: dict[int, list[float]] = {a: [] for a in range(len(actions))}
        alive, done = list(range(len(actions))), 0
        while True:
            m = min(step, samples - done)
            net, ends = play([actions[a] for a in alive], done, m)
            for i, a in enumerate(alive):
                util[a] += [
                    float(v) + p["game_weight"] * e for v, e in zip(net[i], ends[i], strict=True)
                ]
            done += m
            means = {a: np.mean(np.array(util[a])) for a in alive}
            best = max(alive, key=lambda a: (means[a], -a))
            if done >= samples:
                return best
            if p["stop"] <= 0:  # rounds for a time limit only (the twin has no clock)
                continue
            left = []
            for a in alive:
                d = np.array(util[best]) - np.array(util[a])
                lead, spread = d.mean(), (d.std(ddof=1) if done > 1 else 0.0)
                if a != best and (
                    lead > p["stop"] * spread / math.sqrt(done) or (spread == 0 and lead >= 0)
                ):
                    continue
                left.append(a)
            alive = left
            if len(alive) <= 1:
                return best

    def take(self, obs: Any, params: Any, scratch: list[int]) -> bool:
        note_opponent_turn(obs, scratch)
        if not S.pile_of(obs):
            return False
        p = S.read_params(params, self.FIELDS)
        return self._best(obs, p, scratch, [(ACT_TAKE, -1), (ACT_DRAW, -1)]) == 0

    def discard(self, obs: Any, params: Any, scratch: list[int]) -> int:
        note_opponent_turn(obs, scratch)
        p = S.read_params(params, self.FIELDS)
        gin_count = p["gin_candidates"] if throws_for_gin(self.policy(obs, p, scratch)) else 0
        actions = discard_actions(obs, S.forbidden_discard(obs), p["candidates"], gin_count)
        a = self._best(obs, p, scratch, actions) if len(actions) > 1 else 0
        scratch[self.CHOSEN_KIND], scratch[self.CHOSEN_CARD] = actions[a]
        note_own_discard(obs, scratch, actions[a][1])
        return actions[a][1]

    def knock(self, obs: Any, params: Any, scratch: list[int], discard: int) -> int:
        if scratch[self.CHOSEN_CARD] == discard:
            if scratch[self.CHOSEN_KIND] == ACT_KNOCK:
                return S.KNOCK
            if scratch[self.CHOSEN_KIND] == ACT_BIG_GIN:
                return S.BIG_GIN
        return S.CONTINUE


# --- the history model: the seat's notes of the opponent's turns ------------------------

H_MINE, H_CARD, H_MY_TAKEN, H_STOCK, H_TURN, H_REBUILDS, H_STATE, H_COUNT, H_NOTES = range(3, 12)
# Where a note's fields lie in its word (offered, took, thrown, own_turn, pile_n, stock_n,
# turn): 7 bits each, ``took`` 1.
NOTE_SHIFTS = (0, 7, 8, 15, 22, 29, 36)
MAX_NOTES = (64 - H_NOTES) // 2  # two words a note, in the hand's memory (64 words)
IDLE, WAITING, BROKEN = 0, 1, 2


def note_opponent_turn(obs: Any, scratch: list[int]) -> None:
    """Twin of ``kernels.history.note_opponent_turn``: read the opponent's turn since
    this seat's last discard from the pile, once."""
    if obs.players != 2 or scratch[H_STATE] != WAITING:
        return
    if obs.rebuilds != scratch[H_REBUILDS]:
        scratch[H_STATE] = BROKEN
        return
    pile = S.pile_of(obs)
    if obs.phase == S.PHASE_DISCARD and obs.from_pile:
        pile.append(int(obs.drawn))  # the pile before this seat's draw
    mine, offered = scratch[H_MINE] - 1, scratch[H_CARD]
    if len(pile) == mine + 1 and pile[mine - 1] == offered:
        took, thrown = 0, pile[mine]
    elif len(pile) == mine:
        took, thrown = 1, pile[mine - 1]
    else:
        scratch[H_STATE] = BROKEN
        return
    other = 1 - obs.seat
    if not (int(obs.discarded[other]) >> thrown) & 1:
        scratch[H_STATE] = BROKEN
        return
    notes = [scratch[H_NOTES + 2 * i : H_NOTES + 2 * i + 2] for i in range(scratch[H_COUNT])]
    own_turn = bin(int(obs.discarded[other])).count("1") - 1
    fields = (offered, took, thrown, own_turn, mine, scratch[H_STOCK], scratch[H_TURN])
    word = sum(v << shift for v, shift in zip(fields, NOTE_SHIFTS, strict=True))
    notes = (notes + [[word, scratch[H_MY_TAKEN]]])[-MAX_NOTES:]
    for i, (packed, taken) in enumerate(notes):
        scratch[H_NOTES + 2 * i], scratch[H_NOTES + 2 * i + 1] = packed, taken
    scratch[H_COUNT] = len(notes)
    scratch[H_STATE] = IDLE


def note_own_discard(obs: Any, scratch: list[int], card: int) -> None:
    """Twin of ``kernels.history.note_own_discard``."""
    if obs.players != 2 or scratch[H_STATE] == BROKEN or card < 0:
        return
    scratch[H_MINE] = len(S.pile_of(obs)) + 2
    scratch[H_CARD] = card
    scratch[H_MY_TAKEN] = S.without(int(obs.taken[obs.seat]), card)
    scratch[H_STOCK], scratch[H_TURN], scratch[H_REBUILDS] = obs.stock_n, obs.turn, obs.rebuilds
    scratch[H_STATE] = WAITING


# --- the history model: hands that play every noted turn of the opponent ----------------

MODEL_HISTORY = 5
MISFIT = 1e-4
HISTORY_SALT = 0x4157_0000
DRAW_SALT = HISTORY_SALT + 0x1_0000
RESAMPLE_SALT = HISTORY_SALT + 0x10_0000


def unpack_note(word: int) -> tuple[int, ...]:
    """(offered, took, thrown, own_turn, pile_n, stock_n, turn): ``NOTE_SHIFTS``."""
    offered, took = word & 127, (word >> 7) & 1
    rest = [(word >> shift) & 127 for shift in NOTE_SHIFTS[2:]]
    return (offered, took, *rest)


def policy_turn_fits(obs: Any, hand: set[int], offered: int, took: bool, drawn: int,
                      thrown: int, knock_at: int, min_gain: int) -> tuple[bool, bool]:  # fmt: skip
    """Whether the rollout policy holding ``hand`` (before its draw) takes ``offered``
    as it did, and then, holding ``hand`` and ``drawn``, throws ``thrown`` and plays on."""
    forbid = int(obs.rules[R_DISCARD_TAKEN_CARD]) == 0
    before = mask_of(hand)
    _, after = S.best_discard(obs, before | 1 << offered, offered if forbid else None)
    takes = S.min_deadwood(before, obs) - after >= min_gain
    held = before | 1 << drawn
    choice, left = S.best_discard(obs, held, drawn if took and forbid else None)
    plays_on = choice == thrown
    if plays_on and left == 0 and int(obs.rules[R_BIG_GIN_BONUS]) > 0:
        plays_on = S.min_deadwood(held, obs) != 0  # else it would go out with every card
    limit = S.knock_limit(obs)
    if plays_on and left <= _their_threshold(obs, knock_at) and (limit < 0 or left <= limit):
        plays_on = False  # it would have knocked
    return takes == took, plays_on


def history_hands(obs: Any, notes: list[int], key: int, knock_at: int, min_gain: int,
                  n: int) -> list[int] | int:  # fmt: skip
    """Twin of ``kernels.mc.history_particles`` where the opponent plays the rollout
    policy: ``n`` hands (masks), or 0 (nothing to replay) or -1 (none fit)."""
    count = notes[0]
    if obs.players != 2 or count <= 0 or obs.rebuilds != 0:
        return 0
    o = 1 - obs.seat
    turns = [unpack_note(notes[1 + 2 * i]) for i in range(count)]
    took_all = {t[0] for t in turns if t[1]}
    thrown_all = {t[2] for t in turns}
    forced = set(S.cards_of(int(obs.taken[o]))) - took_all
    pool = sorted((set(hidden_cards(obs)) | (thrown_all - took_all)) - forced)
    need = int(obs.rules[R_HAND_SIZE]) - len(forced)
    if need < 0 or need > len(pool):
        return 0
    held_before = {t[2] for t in turns if t[1]} & set(pool)  # thrown just after a take
    if len(held_before) > need:
        held_before = set()
    hands, stocks, weights = [], [], [1.0] * n
    for p in range(n):
        deck = [c for c in pool if c not in held_before]
        rng_ref.shuffle(deck, rng_ref.random64(key, HISTORY_SALT + p))
        hands.append(forced | held_before | set(deck[: need - len(held_before)]))
        stocks.append(set(pool) - hands[-1])
    for i, (offered, took, thrown, *_) in enumerate(turns):
        for p in range(n):
            if weights[p] == 0.0:
                continue
            hand, stock = hands[p], stocks[p]
            if took and thrown in hand | {offered}:
                drawn = offered
            elif took:
                weights[p] = 0.0  # it threw a card this hand does not hold
                continue
            elif thrown in hand:
                free = sorted(stock)
                drawn = free[rng_ref.random64(key, DRAW_SALT + i * n + p) % len(free)]
            elif thrown in stock:
                drawn = thrown
            else:
                weights[p] = 0.0
                continue
            take_fits, discard_fits = policy_turn_fits(
                obs, hand, offered, bool(took), drawn, thrown, knock_at, min_gain
            )
            fit = 1.0 if take_fits else MISFIT
            if not took and thrown not in hand:
                fit /= len(stock)
            if not took:
                stock.discard(drawn)
            if not discard_fits:
                fit *= MISFIT
            weights[p] *= fit
            hands[p] = (hand | {drawn}) - {thrown}
        total = squares = 0.0
        for w in weights:
            total += w
            squares += w * w
        if total <= 0.0:
            return -1
        if i < count - 1 and total * total >= 0.5 * n * squares:
            weights = [w * (n / total) for w in weights]
            continue
        step = total / n
        at = (rng_ref.random64(key, RESAMPLE_SALT + i) >> 11) * 2.0**-53 * step
        cum, j, picks = weights[0], 0, []
        for _ in range(n):
            while at >= cum and j < n - 1:
                j += 1
                cum += weights[j]
            picks.append(j)
            at += step
        hands = [set(hands[j]) for j in picks]
        stocks = [set(stocks[j]) for j in picks]
        weights = [1.0] * n
    return [mask_of(h) for h in hands]
