"""Chart: play from strategy charts (knock, draw, discard) carried as parameters.

In plain words (``docs/CHARTS.md``, "The chart strategy"; ``rummy strategy-chart
export`` writes the parameters from finished charts):

* Own turn: the seat's draws this hand, the one in progress included (1 = its first
  draw; the Gin upcard option counts as turn 1); turns past 20 read the turn-20 row.
* Draw: ``t1`` .. ``t20``, one take mask per own turn. Bit c (0-6) set: take the
  pile's top card when it is of draw class c (``kernels.chart.draw_class``: 0 meld,
  1 pair, 2 near run, 3 lowers the least deadwood by 1-3, 4 by 4-6, 5 by 7 or more,
  6 nothing), as the draw chart's columns. Bit 7 set: also take it when it lowers the
  least deadwood at all (greedy's test). Otherwise draw from the stock (pass the
  upcard). Default: 1, take a card only for a meld.
* Discard: among the legal cards whose discard leaves the least deadwood, the one
  whose rank is safest by ``safety``; cards of one rank (or none legal: greedy's best
  allowed card) as greedy breaks ties: highest value, then highest index. ``safety``
  packs an order of the 13 ranks, 4 bits each from the lowest: the first nibble is
  the safest rank (0 = ace .. 12 = king). A rank listed twice counts at its first
  place; ranks not listed, and jokers, come after all listed ones. Default: K Q J 10
  9 .. 2 A (high cards first, as greedy mostly throws). ``safety = 0``: no order,
  exactly greedy's discard.
* Lookahead (``lookahead`` w > 0): the discard also weighs the next draw. For each
  legal card, the deadwood its discard leaves, d, less w/10 times what the next card
  drawn saves on average: over the cards this seat has not seen, each that would sit
  in a meld with the cards kept saves d less the least deadwood after drawing it and
  throwing the best card (when that is lower), every other card nothing. The card
  with the least such score is thrown (ties: ``safety``, value, index as above). A
  person plays it as "keep the combinations with the most live cards, unless another
  card costs much more deadwood". Not when the least deadwood would knock this turn
  (its mask's bit is set and the knock is legal) or big gin is ready: then the
  discard above, so that the knock is the one the mask asks for. Default 0: off.
* Gin chance (``gin_chance`` g > 0): the same discard (with the same exceptions)
  also weighs the next draw's chance of gin, at g points of deadwood for a certain
  gin: g times the share of the cards not seen that would sit in a meld with the
  cards kept and, drawn, leave no deadwood after the best discard, off each card's
  score. At the table: "prefer the discard that leaves the most cards that would give
  me gin". With ``lookahead = 0`` it weighs the gin chance alone. Default 0: off.
* Knock: ``k1`` .. ``k20``, one knock mask per own turn: knock when the knock is legal
  and the turn's mask says so for d, the deadwood the discard leaves
  (``knock_wanted``): bit d for d below 30; bit 30 for every d from 30 up, except
  that bit d + 1 set reverses it for d from 30 to 50 (without those bits, bit 30
  alone reads "30 or more", as masks did before they existed). Default: 2047 (bits
  0-10), greedy's knock at the rule's limit (10 where the rules set none).
* Big gin: when the rules allow it and every card is melded.
* Pool games (``layers``): a pool plays on with fewer players as players go out. Bit
  n - 2 of ``layers`` set: the chart has a card for n players (2 to 5), its fields again
  as ``n{n}_k1`` .. ``n{n}_gin_chance``, and a hand dealt to n players plays that card
  instead of its own. Default 0: its own card at any table.

So ``t = 128``, ``safety = 0`` and ``k = 2^(k+1) - 1`` on every turn play exactly as
``greedy:knock_at=k`` (``tests/strategies/test_chart_strategy.py`` checks it).

Memory: greedy's solver memo (scratch words 1-6) and word 7, this seat's turns so far
(counted by the discard, which every turn asks once), as ``advice`` keeps it.
"""

from __future__ import annotations

from collections import namedtuple
from typing import Any

import numpy as np
from numba import njit

from kernels.bits import lowest_bit, popcount
from kernels.borrow import stack_empty
from kernels.chart import N_DRAW_CLASSES, draw_shape, lowering_class, taken_forbidden
from kernels.deadwood import (
    discard_deadwoods,
    discard_order_key,
    least_removals,
    second_discard_deadwoods,
)
from kernels.greedy import (
    OWN_TURNS,
    big_gin_ready,
    decide_knock,
    knock_legal,
    learn_min_deadwood,
    memo_best_discard,
    memo_discard,
    memo_min_deadwood,
    memo_take,
)
from kernels.layout import DECK_CAPACITY
from kernels.link import piece
from kernels.melds import meld_partners, melds_with
from kernels.obs import DISCARD_HOOK, KNOCK_HOOK, TAKE_HOOK, forbidden_discard, hidden_cards
from kernels.tables import CARD_VALUE
from strategies.base import Strategy, param_slots

TURNS = 20  # rows of masks: own turns 1 .. 20 (20: 20 or later)
KNOCK_TOP = 30  # the knock mask's bit for deadwood 30 or more
LAST_EXCEPTION = 50  # bits 31 .. 51 reverse bit 30 for deadwood 30 .. 50 (52 mask bits)
KNOCK_COLUMNS = LAST_EXCEPTION + 2  # deadwood 0 .. 50 told apart, then "51 or more"
TAKE_LOWERS = 1 << N_DRAW_CLASSES  # take bit 7: the card lowers the least deadwood
TAKE_CLASSES = TAKE_LOWERS - 1  # bits 0-6: the draw chart's columns
RANKS = 13
UNLISTED = RANKS  # the place of a rank not in the order (jokers: one after)
NO_KEY = np.int64(1) << 62  # above every lookahead discard key

MAX_LOOKAHEAD = 1000  # 100 points of deadwood per point of the next draw's mean saving
MAX_GIN_CHANCE = 1000  # points of deadwood for a gin certain on the next draw
WEIGHTS = ("lookahead", "gin_chance")  # the fields that are weights, not bit masks
DEFAULT_KNOCK = (1 << 11) - 1  # deadwood 0-10: greedy at the rule's limit
DEFAULT_TAKE = 1 << 0  # meld only
HIGH_FIRST = sum((RANKS - 1 - i) << (4 * i) for i in range(RANKS))  # K Q J .. A


def safety_of(ranks: list[int]) -> int:
    """The ``safety`` number of an order of ranks (0 = ace .. 12 = king), safest first."""
    return sum(rank << (4 * i) for i, rank in enumerate(ranks))


# One card's fields: what a seat plays by with one number of players at the table.
CARD_FIELDS = (
    [(f"k{t}", DEFAULT_KNOCK) for t in range(1, TURNS + 1)]
    + [(f"t{t}", DEFAULT_TAKE) for t in range(1, TURNS + 1)]
    + [("safety", HIGH_FIRST), ("lookahead", 0), ("gin_chance", 0)]
)
# A pool plays on with fewer players as players go out: a layer is the card for n left.
LAYER_PLAYERS = (2, 3, 4, 5)  # ``layers`` bit n - 2: the chart has a layer for n players
FIELDS = (
    CARD_FIELDS
    + [("layers", 0)]
    + [(f"n{n}_{name}", default) for n in LAYER_PLAYERS for name, default in CARD_FIELDS]
)
# 216 fields made in a loop: mypy types only a namedtuple of literal fields.
Params = namedtuple("Params", [name for name, _ in FIELDS], defaults=[v for _, v in FIELDS])  # type: ignore[misc]
Params.__doc__ = (
    "Chart's parameters: knock masks k1-k20, take masks t1-t20, safety, lookahead, gin_chance; "
    "layers, and those fields again for each layer (n2_k1 .. n5_gin_chance)."
)
# Where each field sits in the row the hooks read (fields made at run time: untyped).
SLOT: Any = param_slots(Params)
K0, T0 = SLOT.k1, SLOT.t1  # own turn row r (from 0) reads slots K0 + r and T0 + r
CARD_SIZE = len(CARD_FIELDS)  # a layer's fields, in the card's order: card slot + offset
LAYER0 = SLOT.n2_k1  # the first layer's first slot


def card_field(name: str) -> str:
    """The card's field a field is, or is the layer's copy of (``n2_k1`` -> ``k1``)."""
    layered = name[:1] == "n" and name[1:2].isdigit() and name[2:3] == "_"
    return name[3:] if layered else name


def layer_fields(params: Any) -> list[tuple[str, Any]]:
    """``(name, value)`` of the fields that play: the card's, then where it has layers,
    ``layers`` and the fields of each layer it sets (the others are never read)."""
    layers = int(params.layers)
    live = [(name, getattr(params, name)) for name, _ in CARD_FIELDS]
    live += [("layers", params.layers)] if layers else []
    for i, n in enumerate(LAYER_PLAYERS):
        if layers >> i & 1:
            live += [(f"n{n}_{name}", getattr(params, f"n{n}_{name}")) for name, _ in CARD_FIELDS]
    return live


def with_layers(params: Any, cards: dict[int, Any]) -> Any:
    """``params`` with the card of ``cards[n]`` (a chart's parameters: its own card, not
    its layers) as its layer for ``n`` players left, for each n of ``LAYER_PLAYERS``."""
    values = params._asdict()
    layers = int(params.layers)
    for n, card in cards.items():
        if n not in LAYER_PLAYERS:
            raise ValueError(f"{n} players left has no layer; give {LAYER_PLAYERS[0]} to "
                             f"{LAYER_PLAYERS[-1]}")  # fmt: skip
        layers |= 1 << (n - LAYER_PLAYERS[0])
        values |= {f"n{n}_{name}": getattr(card, name) for name, _ in CARD_FIELDS}
    return Params(**{**values, "layers": layers})


def layer_card(params: Any, n: int) -> Any | None:
    """The card ``params`` plays with ``n`` players left, as a chart of its own (no
    layers), or None where it has no layer for them (then its own card plays)."""
    if n not in LAYER_PLAYERS or not int(params.layers) >> (n - LAYER_PLAYERS[0]) & 1:
        return None
    return Params(**{name: getattr(params, f"n{n}_{name}") for name, _ in CARD_FIELDS})


@njit(cache=True, inline="always")
def knock_wanted(mask, deadwood):
    """Whether knock mask ``mask`` knocks with ``deadwood`` (see the module notes)."""
    if deadwood < KNOCK_TOP:
        return (mask >> deadwood) & 1 == 1
    wanted = (mask >> KNOCK_TOP) & 1
    if deadwood <= LAST_EXCEPTION:
        wanted ^= (mask >> (deadwood + 1)) & 1
    return wanted == 1


def knock_mask(knocks: list[bool]) -> int:
    """The knock mask that knocks with deadwood d where ``knocks[d]`` (d up to
    ``KNOCK_COLUMNS - 1``, the last standing for it and more; missing: no knock)."""
    knocks = list(knocks[:KNOCK_COLUMNS]) + [False] * (KNOCK_COLUMNS - len(knocks))
    high = knocks[-1]  # bit 30: what deadwood 51 or more does; 30 .. 50 reverse it
    mask = sum(1 << d for d in range(KNOCK_TOP) if knocks[d]) | high << KNOCK_TOP
    reversed_ = range(KNOCK_TOP, LAST_EXCEPTION + 1)
    return mask | sum(1 << (d + 1) for d in reversed_ if knocks[d] != high)


def knock_set(mask: int) -> list[bool]:
    """Whether ``mask`` knocks with each deadwood 0 .. ``KNOCK_COLUMNS - 1`` (the last:
    that or more): ``knock_mask``'s inverse."""
    return [bool(knock_wanted(np.int64(mask), np.int64(d))) for d in range(KNOCK_COLUMNS)]


@njit(cache=True, inline="always")
def own_turn(turns):
    """The mask row of own turn ``turns`` (1 .. TURNS; earlier reads row 1)."""
    return min(max(turns, np.int64(1)), np.int64(TURNS)) - 1


@njit(cache=True, inline="always")
def card_at(obs, params):
    """Where the fields this hand plays by start: the layer for ``obs.players`` players
    where the chart has one (a pool playing on after players went out), else the card's
    own (slot 0)."""
    layer = obs.players - LAYER_PLAYERS[0]
    if 0 <= layer < len(LAYER_PLAYERS) and (np.int64(params[SLOT.layers]) >> layer) & 1:
        return np.int64(LAYER0 + layer * CARD_SIZE)
    return np.int64(0)


@piece(TAKE_HOOK)
def take_nb(obs, params, scratch):
    """Take the pile top when the take mask of this own turn has its class's bit."""
    if obs.pile_n <= 0:
        return False
    at = card_at(obs, params)
    mask = np.int64(params[at + T0 + own_turn(scratch[OWN_TURNS] + 1)])
    if mask & TAKE_LOWERS and memo_take(obs, np.int64(1), scratch):
        return True
    if mask & TAKE_CLASSES == 0:
        return False
    top = obs.pile[obs.pile_n - 1]
    if mask & TAKE_CLASSES == 1:  # meld only: the class test's first, cheapest question
        return melds_with(obs.hand, top, obs.tab)
    return (mask >> memo_draw_class(obs, top, scratch)) & 1 == 1


@njit(cache=True, inline="always")
def memo_draw_class(obs, top, scratch):
    """``draw_class`` through the seat's memo: the hand's least deadwood is known from
    its last discard, and the best discard after the take is the one ``memo_take``
    asked for already, or the one a plain discard (``safety`` 0) asks for next."""
    shape = draw_shape(obs.tab, obs.hand, top)
    if shape >= 0:
        return shape
    held = obs.hand | (np.int64(1) << top)
    _, after = memo_best_discard(held, taken_forbidden(obs.rules, top), scratch, obs.tab)
    return lowering_class(memo_min_deadwood(obs.hand, scratch, obs.tab) - after)


@njit(cache=True, inline="always")
def rank_place(safety, card):
    """Where ``card``'s rank stands in the ``safety`` order (0 safest)."""
    if card >= 52:
        return np.int64(UNLISTED + 1)
    rank = card % RANKS
    for i in range(RANKS):
        if (safety >> (4 * i)) & 15 == rank:
            return np.int64(i)
    return np.int64(UNLISTED)


@njit(cache=True)
def lookahead_discard(obs, weight, gin_weight, safety, scratch):
    """The legal card of least ``10 d - weight x mean saving - gin_weight x gin chance``
    (see the module notes), as ``10 n d - weight x summed saving - 10 gin_weight x
    gins`` over the ``n`` hidden cards: integers.

    What the next draw does is asked card by card drawn, not card by card thrown: for
    each hidden card that sits in a meld with the cards some discard keeps, one call
    (``second_discard_deadwoods`` of the hand with it) gives the least deadwood after
    keeping it and throwing the best other card, for every card thrown now. Each
    discard counts the drawn cards that meld with what it keeps: the saving (its
    deadwood less that least, when lower) and how many of them leave none (gin)."""
    hand = obs.hand
    hidden = hidden_cards(obs)
    n_hidden = popcount(hidden)
    forbidden = forbidden_discard(obs)
    legal = hand & ~(np.int64(1) << forbidden) if forbidden >= 0 else hand
    lefts = stack_empty(DECK_CAPACITY, 0)
    discard_deadwoods(hand, obs.tab, lefts)
    partners = stack_empty(DECK_CAPACITY, 0)  # per card thrown: the draws that meld
    savings = stack_empty(DECK_CAPACITY, 0)  # ... their summed saving
    gins = stack_empty(DECK_CAPACITY, 0)  # ... how many of them leave no deadwood
    afters = stack_empty(DECK_CAPACITY, 0)
    drawn = np.int64(0)
    cards = legal
    while cards:
        card = lowest_bit(cards)
        cards &= cards - 1
        partners[card] = meld_partners(hand & ~(np.int64(1) << card), hidden, obs.tab)
        drawn |= partners[card]
        savings[card] = 0
        gins[card] = 0
    while drawn:
        x = lowest_bit(drawn)
        drawn &= drawn - 1
        second_discard_deadwoods(hand | (np.int64(1) << x), obs.tab, afters)
        cards = legal
        while cards:
            card = lowest_bit(cards)
            cards &= cards - 1
            if (partners[card] >> x) & 1:
                after = afters[card]
                savings[card] += max(lefts[card] - after, np.int64(0))
                gins[card] += after == 0
    best = NO_KEY
    best_deadwood = np.int64(0)
    cards = legal
    while cards:
        card = lowest_bit(cards)
        cards &= cards - 1
        deadwood = lefts[card]
        score = 10 * n_hidden * deadwood - weight * savings[card] - 10 * gin_weight * gins[card]
        value = np.int64(obs.tab[CARD_VALUE + card])
        # The score above the tie-break's 20 bits (place < 16, value < 256, card < 64).
        key = (score << 20) | discard_order_key(rank_place(safety, card), value, card)
        if key < best:
            best, best_deadwood = key, deadwood
    choice = 63 - (best & 0xFF)
    learn_min_deadwood(hand & ~(np.int64(1) << choice), best_deadwood, scratch)
    return choice


@njit(cache=True, inline="always")
def knocks_at_least(obs, params, scratch):
    """Whether the least deadwood a discard leaves would knock this turn (its mask's
    bit set and the knock legal), or big gin is ready."""
    least, _ = least_removals(obs.hand, obs.tab)
    mask = np.int64(params[card_at(obs, params) + K0 + own_turn(scratch[OWN_TURNS])])
    return (knock_wanted(mask, least) and knock_legal(obs, least)) or big_gin_ready(obs)


@piece(DISCARD_HOOK)
def discard_nb(obs, params, scratch):
    """The safest least-deadwood legal card (greedy's discard for ``safety = 0``), or
    with ``lookahead`` or ``gin_chance`` the card that also weighs the next draw."""
    scratch[OWN_TURNS] += 1
    at = card_at(obs, params)
    safety = np.int64(params[at + SLOT.safety])
    weight = np.int64(params[at + SLOT.lookahead])
    gin_weight = np.int64(params[at + SLOT.gin_chance])
    if (weight > 0 or gin_weight > 0) and not knocks_at_least(obs, params, scratch):
        return lookahead_discard(obs, weight, gin_weight, safety, scratch)
    if safety == 0:
        return memo_discard(obs, scratch)
    least, cards = least_removals(obs.hand, obs.tab)
    forbidden = forbidden_discard(obs)
    if forbidden >= 0:
        cards &= ~(np.int64(1) << forbidden)
    if cards == 0:  # only the forbidden card leaves the least: greedy's best allowed
        return memo_discard(obs, scratch)
    best = np.int64(1) << 62
    while cards:
        card = lowest_bit(cards)
        cards &= cards - 1
        value = np.int64(obs.tab[CARD_VALUE + card])
        key = discard_order_key(rank_place(safety, card), value, card)
        best = min(best, key)
    choice = 63 - (best & 0xFF)
    learn_min_deadwood(obs.hand & ~(np.int64(1) << choice), least, scratch)
    return choice


@piece(KNOCK_HOOK)
def knock_nb(obs, params, scratch, discard):
    """Big gin when ready, else knock when legal and this turn's mask has the bit."""
    deadwood = memo_min_deadwood(obs.hand & ~(np.int64(1) << discard), scratch, obs.tab)
    mask = np.int64(params[card_at(obs, params) + K0 + own_turn(scratch[OWN_TURNS])])
    wanted = knock_wanted(mask, deadwood)
    return decide_knock(obs, deadwood, deadwood if wanted else np.int64(-1))


_CARD_BOUNDS = {
    **{f"k{t}": (0, (1 << (LAST_EXCEPTION + 2)) - 1) for t in range(1, TURNS + 1)},
    **{f"t{t}": (0, (1 << (N_DRAW_CLASSES + 1)) - 1) for t in range(1, TURNS + 1)},
    "safety": (0, (1 << (4 * RANKS)) - 1),
    "lookahead": (0, MAX_LOOKAHEAD),
    "gin_chance": (0, MAX_GIN_CHANCE),
}

STRATEGY: Strategy = Strategy(
    name="chart",
    description=__doc__,
    params=Params,
    take_nb=take_nb,
    discard_nb=discard_nb,
    knock_nb=knock_nb,
    module=__name__,
    turn_word=OWN_TURNS,
    bounds={
        **{
            f"{prefix}{name}": bound
            for prefix in ("", *(f"n{n}_" for n in LAYER_PLAYERS))
            for name, bound in _CARD_BOUNDS.items()
        },
        "layers": (0, (1 << len(LAYER_PLAYERS)) - 1),
    },  # fmt: skip
    masks=frozenset(name for name, _ in FIELDS if card_field(name) not in WEIGHTS),
)
