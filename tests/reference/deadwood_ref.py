"""Slow, obviously correct reference oracles: melds, deadwood, discards and lay-offs.

Everything here enumerates (RULES.md "Melds and deadwood", "Showdown"); nothing is
clever and nothing is greedy except the greedy lay-off rule itself. The fast numba
kernels are tested against these functions.

Conventions
-----------
- A card is an int: ``suit * 13 + rank`` (rank 0 = Ace ... 12 = King; suits C D H S =
  0..3); jokers are 52 and 53. A hand is any iterable of distinct cards (a frozenset
  is used inside).
- ``rules`` is any object with the RULES.md parameter names as attributes; only
  ``ace``, ``ace_high_value``, ``joker_value``, ``layoff`` and ``layoff_play`` are read
  here.
- A meld is an ascending tuple of card indices. An arrangement is a list of pairwise
  disjoint melds, sorted. The canonical order (RULES.md "Showdown") is Python's own
  comparison of such lists of tuples.

Interpretations (where RULES.md leaves room)
--------------------------------------------
- Runs are judged on card *sets*: under ``"high_or_low"`` and ``"around"`` a 13-card
  run is the whole suit, one meld whatever rank it "starts" at.
- ``"high_or_low"``: ranks sit on a line A 2 ... K A; a run is any window of that
  line of 3..13 places, so Q-K-A and A-2-3 are runs and K-A-2 is not. ``"around"``: the
  13 ranks form a circle; any arc of 3..13 ranks is a run (K-A-2, Q-K-A-2-3 ...).
- A joker fills any missing place of a run window or of a set, even a card the hand
  holds elsewhere (a meld is judged on its own cards). Jokers at the ends of a run make
  no difference to which window it is: ``5C 6C JK`` is one meld (deduplicated).
  A meld of naturals plus jokers can be both a set and a run (``5C JK JK``); it is
  listed once.
- Canonical order uses plain tuple/list comparison, so a tuple that is a prefix of
  another comes first: for ``AC 2C 3C 4C 5C 6C`` the arrangement
  ``[(AC 2C 3C), (4C 5C 6C)]`` comes before ``[(AC .. 6C)]``, and a shorter list that is
  a prefix of a longer one comes first.
- ``best_discard_ref``: ties on deadwood left go to the highest card_value, then the
  highest card index (so a joker, worth ``joker_value``, goes before a King on a tie).
- Lay-offs with jokers are not supported (RULES.md): the lay-off functions raise
  ``ValueError`` when a joker is involved.
- ``layoff_fits(card, meld)``: True exactly when ``meld + card`` is a meld of naturals
  (that is: extends a run at an end within 13 cards under the ace mode, or makes a
  3-card set into 4).
- ``layoff_optimal_ref``: every set of defender cards reachable by a legal sequence of
  single lay-offs (each card onto one knocker meld, melds updated as cards land,
  any meld at both ends, chains allowed) is tried with the canonical min-deadwood
  arrangement of the defender's other cards. Ties: least deadwood, then canonical
  first defender arrangement, then the smallest ascending tuple of laid cards; the
  ``laid`` list returned is the first legal sequence for that set found by depth-first
  search trying cards in ascending index and knocker melds in list order.
- ``layoff_greedy_ref``: the defender's melds are its canonical min-deadwood
  arrangement of the whole hand (lay-offs come after and never change them).
- ``laid`` lists hold ``(card, meld_index)`` in the order laid; ``meld_index`` is the
  position in the ``knocker_melds`` list as given.
- ``knocker_arrangement_ref``: defenders' hands are hand_size cards each; the total
  reduction is summed over every defender; ties go to the canonical first arrangement.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from functools import cache, lru_cache
from itertools import combinations
from types import SimpleNamespace
from typing import Any

N_RANKS = 13
N_NATURAL = 52
JOKER_CARDS = (52, 53)
ACE_MODES = ("low", "high_or_low", "around")
MIN_MELD = 3
MAX_SET = 4
MAX_RUN = 13

Meld = tuple[int, ...]
Arrangement = list[Meld]
Laid = list[tuple[int, int]]


# --- cards -------------------------------------------------------------------------


def is_joker(card: int) -> bool:
    return card >= N_NATURAL


def _check_card(card: Any) -> int:
    if isinstance(card, bool) or not isinstance(card, int) or not 0 <= card <= 53:
        raise ValueError(f"not a card index (0..53): {card!r}")
    return card


def as_hand(hand: Iterable[int]) -> frozenset[int]:
    """The hand as a frozenset; a card twice or a bad index is a ValueError."""
    cards = [_check_card(card) for card in hand]
    result = frozenset(cards)
    if len(result) != len(cards):
        raise ValueError(f"a card is given twice in {sorted(cards)}")
    return result


def _check_ace(rules: Any) -> str:
    if rules.ace not in ACE_MODES:
        raise ValueError(f"ace must be one of {ACE_MODES}, got {rules.ace!r}")
    return rules.ace


def card_value(card: int, rules: Any) -> int:
    """Deadwood value: A = 1 ("low") or ace_high_value (other modes), 2..10 face, J/Q/K 10,
    joker = joker_value."""
    _check_card(card)
    if is_joker(card):
        return rules.joker_value
    rank = card % N_RANKS
    if rank == 0:
        return 1 if _check_ace(rules) == "low" else rules.ace_high_value
    if rank >= 10:
        return 10
    return rank + 1


def hand_value(cards: Iterable[int], rules: Any) -> int:
    return sum(card_value(card, rules) for card in cards)


# --- melds -------------------------------------------------------------------------


@cache
def run_windows(length: int, ace: str) -> tuple[frozenset[int], ...]:
    """Every set of ranks that a run of ``length`` consecutive ranks covers, per ace mode.

    low: A..K on a line. high_or_low: A 2 .. K A on a line of 14 places (the ace at
    place 0 or 13, never both since a run holds at most 13 cards). around: a circle.
    Duplicates (the whole suit reached from several starts) are listed once.
    """
    if not MIN_MELD <= length <= MAX_RUN:
        return ()
    if ace == "low":
        windows = [range(start, start + length) for start in range(N_RANKS - length + 1)]
    elif ace == "high_or_low":
        windows = [range(start, start + length) for start in range(N_RANKS + 1 - length + 1)]
    elif ace == "around":
        windows = [range(start, start + length) for start in range(N_RANKS)]
    else:
        raise ValueError(f"ace must be one of {ACE_MODES}, got {ace!r}")
    out: list[frozenset[int]] = []
    for window in windows:
        ranks = frozenset(place % N_RANKS for place in window)
        assert len(ranks) == length
        if ranks not in out:
            out.append(ranks)
    return tuple(out)


def is_meld(cards: Iterable[int], rules: Any) -> bool:
    """Is this exact group of cards a meld (RULES.md "Melds and deadwood")?

    Set: 3 or 4 cards, jokers included, all naturals of one rank. Run: 3..13 cards, all
    naturals of one suit, and some run window of that length (ace mode) holds every
    natural's rank; jokers fill the window's other places. At least one natural.
    """
    cards = tuple(cards)
    for card in cards:
        _check_card(card)
    if len(set(cards)) != len(cards):
        return False
    naturals = [card for card in cards if not is_joker(card)]
    if not naturals:
        return False
    size = len(cards)
    ranks = {card % N_RANKS for card in naturals}
    suits = {card // N_RANKS for card in naturals}
    if MIN_MELD <= size <= MAX_SET and len(ranks) == 1:
        return True
    if MIN_MELD <= size <= MAX_RUN and len(suits) == 1:
        return any(ranks <= window for window in run_windows(size, _check_ace(rules)))
    return False


def melds_in(hand: Iterable[int], rules: Any) -> list[Meld]:
    """Every meld contained in the hand, as ascending tuples, sorted, each once.

    Runs of every length (sub-runs included), sets of 3 and 4, and every choice of
    which jokers (and which naturals, when a joker stands in for one) go in.
    """
    return list(_melds_in(as_hand(hand), _check_ace(rules)))


@lru_cache(maxsize=1 << 16)
def _melds_in(hand: frozenset[int], ace: str) -> tuple[Meld, ...]:
    """``melds_in``, remembered: the rules matter through the ace mode only, and the
    strategy twins ask about the same hands again and again."""
    rules = SimpleNamespace(ace=ace)
    jokers = sorted(card for card in hand if is_joker(card))
    found: set[Meld] = set()

    # Sets: k naturals of one rank plus j jokers, k >= 1, k + j in {3, 4}.
    for rank in range(N_RANKS):
        naturals = [suit * N_RANKS + rank for suit in range(4) if suit * N_RANKS + rank in hand]
        for size in range(MIN_MELD, MAX_SET + 1):
            for k in range(1, min(size, len(naturals)) + 1):
                if size - k > len(jokers):
                    continue
                for nat in combinations(naturals, k):
                    for jok in combinations(jokers, size - k):
                        found.add(tuple(sorted(nat + jok)))

    # Runs: for each window, any nonempty subset of the naturals present in it, the
    # rest of its places filled by jokers.
    for suit in range(4):
        in_suit = {rank for rank in range(N_RANKS) if suit * N_RANKS + rank in hand}
        for length in range(MIN_MELD, MAX_RUN + 1):
            if len(in_suit) < max(1, length - len(jokers)):
                continue  # fewer naturals in the suit than any such run needs (below)
            for window in run_windows(length, ace):
                present = [suit * N_RANKS + rank for rank in sorted(window) if rank in in_suit]
                for k in range(max(1, length - len(jokers)), len(present) + 1):
                    for nat in combinations(present, k):
                        for jok in combinations(jokers, length - k):
                            found.add(tuple(sorted(nat + jok)))

    for meld in found:  # belt and braces: the two definitions agree
        assert is_meld(meld, rules), meld
    return tuple(sorted(found))


# --- arrangements and deadwood -----------------------------------------------------


def _mask(cards: Iterable[int]) -> int:
    mask = 0
    for card in cards:
        mask |= 1 << card
    return mask


def arrangements(hand: Iterable[int], rules: Any) -> Iterator[Arrangement]:
    """Every list of pairwise disjoint melds of the hand (the empty list included).

    Each list is sorted (melds are taken in ascending order), and each set of melds is
    produced exactly once.
    """
    melds = melds_in(hand, rules)
    masks = [_mask(meld) for meld in melds]

    def extend(start: int, used: int, chosen: list[Meld]) -> Iterator[Arrangement]:
        yield list(chosen)
        for i in range(start, len(melds)):
            if masks[i] & used == 0:
                chosen.append(melds[i])
                yield from extend(i + 1, used | masks[i], chosen)
                chosen.pop()

    yield from extend(0, 0, [])


def unmatched_of(hand: Iterable[int], melds: Iterable[Meld]) -> tuple[int, ...]:
    melded = {card for meld in melds for card in meld}
    return tuple(sorted(card for card in hand if card not in melded))


def deadwood_of(hand: Iterable[int], melds: Iterable[Meld], rules: Any) -> int:
    """Total card_value of the hand's cards outside the given melds."""
    return hand_value(unmatched_of(hand, melds), rules)


def min_deadwood_ref(hand: Iterable[int], rules: Any) -> int:
    """Least deadwood over every arrangement (exhaustive)."""
    hand = as_hand(hand)
    return min(deadwood_of(hand, arr, rules) for arr in arrangements(hand, rules))


def min_deadwood_arrangements(hand: Iterable[int], rules: Any) -> tuple[int, list[Arrangement]]:
    """The least deadwood and every arrangement that reaches it, in canonical order."""
    hand = as_hand(hand)
    scored = [(deadwood_of(hand, arr, rules), arr) for arr in arrangements(hand, rules)]
    least = min(dw for dw, _ in scored)
    return least, sorted(arr for dw, arr in scored if dw == least)


def canonical_arrangement_ref(
    hand: Iterable[int], rules: Any
) -> tuple[Arrangement, tuple[int, ...], int]:
    """(melds, unmatched cards ascending, deadwood) of the canonical-first min-deadwood
    arrangement."""
    hand = as_hand(hand)
    least, best = min_deadwood_arrangements(hand, rules)
    melds = best[0]
    return melds, unmatched_of(hand, melds), least


def best_discard_ref(
    hand: Iterable[int], rules: Any, forbidden: int | None = None
) -> tuple[int, int]:
    """(card, deadwood after): the discard leaving the least min deadwood; ties to the
    highest card_value, then the highest card index. ``forbidden`` is never chosen."""
    hand = as_hand(hand)
    candidates = sorted(card for card in hand if card != forbidden)
    if not candidates:
        raise ValueError("no card may be discarded")
    scored = [
        (min_deadwood_ref(hand - {card}, rules), -card_value(card, rules), -card, card)
        for card in candidates
    ]
    deadwood, _, _, card = min(scored)
    return card, deadwood


# --- lay-offs ----------------------------------------------------------------------


def _no_jokers(cards: Iterable[int]) -> None:
    if any(is_joker(card) for card in cards):
        raise ValueError("lay-offs with jokers are not supported (RULES.md Showdown)")


def layoff_fits(card: int, meld: Iterable[int], rules: Any) -> bool:
    """Can ``card`` be laid off on ``meld``: extend a run at either end (ace mode, at most
    13 cards) or make a 3-card set into 4 (a 4-card set takes nothing)."""
    meld = tuple(meld)
    _check_card(card)
    _no_jokers((card, *meld))
    if not is_meld(meld, rules):
        raise ValueError(f"not a meld: {sorted(meld)}")
    if card in meld:
        return False
    return is_meld(tuple(sorted((*meld, card))), rules)


def reachable_layoffs(
    knocker_melds: Iterable[Iterable[int]], cards: Iterable[int], rules: Any
) -> dict[frozenset[int], Laid]:
    """Every set of ``cards`` that can be laid off by some legal sequence, with one such
    sequence (the first found depth-first: cards ascending, melds in list order).

    The empty set (lay nothing) is included.
    """
    start = tuple(tuple(sorted(meld)) for meld in knocker_melds)
    cards = sorted(as_hand(cards))
    _no_jokers(cards)
    _no_jokers(card for meld in start for card in meld)
    found: dict[frozenset[int], Laid] = {frozenset(): []}
    seen = {start}

    def search(state: tuple[Meld, ...], laid: Laid, laid_set: frozenset[int]) -> None:
        for card in cards:
            if card in laid_set:
                continue
            for i, meld in enumerate(state):
                if not layoff_fits(card, meld, rules):
                    continue
                new_state = state[:i] + (tuple(sorted((*meld, card))),) + state[i + 1 :]
                if new_state in seen:  # the state alone decides what can follow
                    continue
                seen.add(new_state)
                laid.append((card, i))
                new_set = laid_set | {card}
                found.setdefault(new_set, list(laid))
                search(new_state, laid, new_set)
                laid.pop()

    search(start, [], frozenset())
    return found


def layoff_optimal_ref(
    knocker_melds: Iterable[Iterable[int]], defender_hand: Iterable[int], rules: Any
) -> tuple[int, Laid, Arrangement]:
    """(deadwood, laid, defender_melds) with the defender choosing its melds and its
    lay-offs jointly to minimise its deadwood (RULES.md layoff_play = "optimal")."""
    hand = as_hand(defender_hand)
    knocker_melds = [tuple(sorted(meld)) for meld in knocker_melds]
    best: tuple[int, Arrangement, tuple[int, ...], Laid] | None = None
    for laid_set, laid in reachable_layoffs(knocker_melds, hand, rules).items():
        melds, _, deadwood = canonical_arrangement_ref(hand - laid_set, rules)
        candidate = (deadwood, melds, tuple(sorted(laid_set)), laid)
        if best is None or candidate[:3] < best[:3]:
            best = candidate
    assert best is not None
    deadwood, melds, _, laid = best
    return deadwood, list(laid), melds


def layoff_greedy_ref(
    knocker_melds: Iterable[Iterable[int]], defender_hand: Iterable[int], rules: Any
) -> tuple[int, Laid, Arrangement]:
    """(deadwood, laid, defender_melds) under layoff_play = "greedy": the canonical
    min-deadwood arrangement first; then scan the unmatched cards in ascending index, lay
    the first that fits on the first knocker meld it fits (list order), update that meld,
    and restart the scan from the lowest card, until nothing fits."""
    hand = as_hand(defender_hand)
    state = [tuple(sorted(meld)) for meld in knocker_melds]
    _no_jokers(hand)
    _no_jokers(card for meld in state for card in meld)
    melds, unmatched, deadwood = canonical_arrangement_ref(hand, rules)
    remaining = list(unmatched)
    laid: Laid = []
    while True:
        move = None
        for card in remaining:
            for i, meld in enumerate(state):
                if layoff_fits(card, meld, rules):
                    move = (card, i)
                    break
            if move is not None:
                break
        if move is None:
            break
        card, i = move
        state[i] = tuple(sorted((*state[i], card)))
        remaining.remove(card)
        laid.append(move)
        deadwood -= card_value(card, rules)
    return deadwood, laid, melds


def layoff_ref(
    knocker_melds: Iterable[Iterable[int]], defender_hand: Iterable[int], rules: Any
) -> tuple[int, Laid, Arrangement]:
    """The lay-off oracle chosen by ``rules.layoff_play``."""
    if rules.layoff_play == "optimal":
        return layoff_optimal_ref(knocker_melds, defender_hand, rules)
    if rules.layoff_play == "greedy":
        return layoff_greedy_ref(knocker_melds, defender_hand, rules)
    raise ValueError(f"layoff_play must be 'optimal' or 'greedy', got {rules.layoff_play!r}")


def knocker_arrangement_ref(
    knocker_hand: Iterable[int], defender_hands: Iterable[Iterable[int]], rules: Any
) -> Arrangement:
    """The knocker's arrangement (RULES.md "Showdown"): least deadwood; among equals the one
    leaving the defenders the least total lay-off reduction (under rules.layoff_play);
    then canonical first. Without lay-offs (rules.layoff false or knocker deadwood 0)
    the canonical first min-deadwood arrangement."""
    hand = as_hand(knocker_hand)
    least, candidates = min_deadwood_arrangements(hand, rules)
    if not rules.layoff or least == 0:
        return candidates[0]
    defenders = [as_hand(d) for d in defender_hands]
    own = [min_deadwood_ref(d, rules) for d in defenders]

    def reduction(melds: Arrangement) -> int:
        return sum(o - layoff_ref(melds, d, rules)[0] for o, d in zip(own, defenders, strict=True))

    return min(candidates, key=lambda melds: (reduction(melds), melds))
