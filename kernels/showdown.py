"""The showdown: arrangements, lay-offs, outcome and points of one finished hand.

Conventions
-----------
* ``rules``: the int64 rule vector (``kernels.layout.R_*``).
* ``hands``: int64[players] masks as shown down; the knocker's hand after it laid its
  card away (``hand_size`` cards) or all ``hand_size + 1`` cards for big gin.
* ``knocker``: a seat, or -1 for the showdown after the stock ran out (``exhausted``).
* Outputs (caller-allocated, per seat): ``deadwood`` (defenders after lay-offs),
  ``laid`` (mask of cards laid off), ``points`` in units of 1/POINT_SCALE (exact
  fractions under a split pot). Returns the outcome code.

Scoring follows RULES.md "Scoring a hand" clause by clause; the comments cite them.
The legality of the knock is the caller's to check (the engine checks the deadwood
kept against ``knock_limit_of``).
"""

import numpy as np
from numba import njit
from numba.core.types import int64

from kernels import layout as L
from kernels.bits import popcount
from kernels.borrow import BorrowedArray, stack_empty
from kernels.deadwood import every_card_meldable, min_deadwood_one, min_deadwood_piece
from kernels.link import piece
from kernels.melds import (
    MASKS,
    MAX_PLAYERS,
    PAIR,
    could_lay_off,
    defender_after_layoffs,
    knocker_arrangement,
)
from kernels.tables import TAB

S = L.POINT_SCALE


@njit(cache=True)
def knock_limit_of(rules, upcard):
    """Most deadwood a knocker may keep: -1 for any, else a number (RULES.md)."""
    limit = rules[L.R_KNOCK_LIMIT]
    if limit != L.KNOCK_UPCARD:
        return limit
    rank = upcard % 13
    if rank == 0:
        return 0  # an Ace upcard allows only going out with zero deadwood, any ace mode
    return min(rank + 1, 10)


@njit(cache=True, inline="always")
def knock_within_limit(rules, upcard, deadwood):
    """True when a knock keeping ``deadwood`` is within the hand's knock limit (where
    the rules set one): the one test of the engine, greedy and ``mc``."""
    limit = knock_limit_of(rules, upcard)
    return limit < 0 or deadwood <= limit


@njit(cache=True, inline="always")
def big_gin_ready(rules, hand, tab):
    """True when the rules pay big gin and every card of ``hand`` (eleven, before a
    discard) is melded. The solver runs only for the rare hand whose every card lies in
    some possible meld (``every_card_meldable``: a few table reads), so it may be asked
    every turn."""
    return (
        rules[L.R_BIG_GIN_BONUS] > 0
        and every_card_meldable(hand, tab)
        and min_deadwood_one(hand, tab) == 0
    )


@njit(cache=True, inline="always")
def _union_but(hands, seat):
    """The cards of every hand but ``seat``'s."""
    cards = np.int64(0)
    for other in range(hands.shape[0]):
        if other != seat:
            cards |= hands[other]
    return cards


@njit(cache=True)
def _winners(deadwood, candidates, first, players, split):
    """Seats of lowest deadwood among ``candidates`` (a bit mask of seats), searched
    clockwise from seat ``first``; under ``split`` all of them, else the first.
    Returns a bit mask of seats, the count and the lowest deadwood."""
    low = np.int64(1) << 40
    for seat in range(players):
        if (candidates >> seat) & 1 and deadwood[seat] < low:
            low = deadwood[seat]
    chosen = np.int64(0)
    count = 0
    for step in range(players):
        seat = (first + step) % players
        if (candidates >> seat) & 1 and deadwood[seat] == low:
            chosen |= np.int64(1) << seat
            count += 1
            if not split:
                break
    return chosen, count, low


@njit(cache=True)
def _share(points, winners, n_winners, pot):
    """Pay ``pot`` (already in 1/S units) to the winners (a bit mask of seats) in
    equal parts."""
    part = pot // n_winners  # exact: S is divisible by every possible number of winners
    for seat in range(points.shape[0]):
        if (winners >> seat) & 1:
            points[seat] += part


RULES = BorrowedArray(int64, 1, "C", readonly=True)  # the rule vector, where a piece takes it


@piece(PAIR(RULES, MASKS, int64, int64, int64, int64, TAB, MASKS, MASKS, MASKS, MASKS))
def showdown(
    rules,
    hands,
    knocker,
    knocker_deadwood,
    upcard,
    dealer,
    tab,
    deadwood,
    laid,
    points,
    knocker_melds,
):
    """Score one hand. Writes per-seat outputs; returns ``(outcome, n_knocker_melds)``.

    ``knocker_deadwood`` is the knocker's least deadwood where the caller has it (the
    engine, which checked the knock), else -1.

    ``knocker_melds`` (int64[MAX_MELDS_PER_ARRANGEMENT]) receives the knocker's
    arrangement when lay-offs need it; ``n_knocker_melds`` is -1 when they do not (the
    arrangement is then the canonical one, ``kernels.melds.canonical_arrangement``).
    """
    players = hands.shape[0]
    gin_scoring = rules[L.R_SCORING] == L.SCORING_GIN
    split = rules[L.R_TIED_WINNERS] == L.TIED_SPLIT
    hand_size = rules[L.R_HAND_SIZE]
    for seat in range(players):
        laid[seat] = 0
        points[seat] = 0
        if seat == knocker and knocker_deadwood >= 0:
            deadwood[seat] = knocker_deadwood
        else:
            deadwood[seat] = min_deadwood_piece(hands[seat], tab)
    spade_upcard = upcard // L.N_RANKS == L.SPADES
    double = 2 if (gin_scoring and rules[L.R_SPADE_DOUBLE] and spade_upcard) else 1

    if knocker < 0:
        # Stock exhausted: every hand at hand_size, no lay-offs, lowest collects the
        # differences; ties by tied_winners counting from the dealer's left.
        everyone = (np.int64(1) << players) - 1
        winners, n_win, low = _winners(deadwood, everyone, dealer + 1, players, split)
        pot = np.int64(0)
        for seat in range(players):
            if not (winners >> seat) & 1:
                pot += (deadwood[seat] - low) * S
                if not gin_scoring:
                    points[seat] -= (deadwood[seat] - low) * S
        if gin_scoring:
            pot *= double
        _share(points, winners, n_win, pot)
        return L.EXHAUSTED, -1

    knocker_dw = deadwood[knocker]
    n_melds = -1  # the knocker's arrangement matters only to lay-offs
    # Lay-offs: only after a knock with deadwood (never after gin, rummy or big gin),
    # and only where some defender holds a card that could go on some knocker meld.
    defending = _union_but(hands, knocker) if rules[L.R_LAYOFF] == 1 and knocker_dw > 0 else 0
    if defending and could_lay_off(hands[knocker], defending, tab):
        greedy = rules[L.R_LAYOFF_PLAY] == L.LAYOFF_GREEDY
        defenders = stack_empty(MAX_PLAYERS, 0)
        owns = stack_empty(MAX_PLAYERS, 0)  # their least deadwood, laying nothing off
        n_defenders = np.int64(0)  # typed: a literal 0 would compile a second knocker_arrangement
        for seat in range(players):
            if seat != knocker:
                defenders[n_defenders] = hands[seat]
                owns[n_defenders] = deadwood[seat]
                n_defenders += 1
        n_melds = knocker_arrangement(
            hands[knocker],
            knocker_dw,
            defenders,
            owns,
            n_defenders,
            np.bool_(True),
            greedy,
            tab,
            knocker_melds,
        )
        for seat in range(players):
            if seat != knocker:
                d, cards = defender_after_layoffs(
                    knocker_melds, n_melds, hands[seat], deadwood[seat], greedy, tab
                )
                deadwood[seat] = d
                laid[seat] = cards
    is_big_gin = popcount(hands[knocker]) == hand_size + 1 and knocker_dw == 0
    if gin_scoring:
        defender = 1 - knocker
        if is_big_gin:
            points[knocker] = (rules[L.R_BIG_GIN_BONUS] + deadwood[defender]) * S * double
            return L.BIG_GIN, n_melds
        if knocker_dw == 0:
            points[knocker] = (rules[L.R_GIN_BONUS] + deadwood[defender]) * S * double
            return L.GIN, n_melds
        if knocker_dw < deadwood[defender]:
            points[knocker] = (deadwood[defender] - knocker_dw) * S * double
            return L.KNOCK_WIN, n_melds
        if knocker_dw == deadwood[defender] and rules[L.R_UNDERCUT_ON_TIE] == 0:
            return L.TIE, n_melds
        bonus = rules[L.R_UNDERCUT_BONUS]
        points[defender] = (knocker_dw - deadwood[defender] + bonus) * S * double
        return L.UNDERCUT, n_melds

    # Knock scoring: every payment is a transfer between players.
    others = ((np.int64(1) << players) - 1) & ~(np.int64(1) << knocker)
    low_other = np.int64(1) << 40
    for seat in range(players):
        if seat != knocker:
            low_other = min(low_other, deadwood[seat])
    if knocker_dw < low_other:
        if is_big_gin:
            bonus = rules[L.R_BIG_GIN_BONUS]
            outcome = L.BIG_GIN
        elif knocker_dw == 0:
            bonus = rules[L.R_RUMMY_BONUS]
            outcome = L.RUMMY
        else:
            bonus = 0
            outcome = L.KNOCK_WIN
        for seat in range(players):
            if seat != knocker:
                # Rummy and big gin: the full deadwood plus the bonus (knocker's is 0).
                pay = (deadwood[seat] - knocker_dw + bonus) * S
                points[seat] -= pay
                points[knocker] += pay
        return outcome, n_melds

    # Undercut (a tie with the knocker included; a tie at zero is no rummy).
    winners, n_win, low = _winners(deadwood, others, knocker + 1, players, split)
    neutral = rules[L.R_KNOCKER_TIE] == L.KNOCKER_TIE_NEUTRAL and knocker_dw == low
    pot = np.int64(0)
    for seat in range(players):
        if seat != knocker and not (winners >> seat) & 1:
            pay = (deadwood[seat] - low) * S
            points[seat] -= pay
            pot += pay
    if not neutral:
        penalty = rules[L.R_UNDERCUT_PENALTY] * S
        pay = (knocker_dw - low) * S
        if rules[L.R_PENALTY_TO] == L.PENALTY_TO_EACH_LOWER:
            # The penalty once to every non-knocker at or below the knocker's deadwood.
            for seat in range(players):
                if seat != knocker and deadwood[seat] <= knocker_dw:
                    points[seat] += penalty
                    points[knocker] -= penalty
        else:
            pay += penalty
        points[knocker] -= pay
        pot += pay
    _share(points, winners, n_win, pot)
    return L.UNDERCUT, n_melds
