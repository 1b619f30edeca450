"""The opponent's turns as a seat saw them this hand (two players): notes kept in its memory.

An ``Obs`` shows the pile and what each seat discarded, not the order of the turns:
which of this seat's discards the opponent took, when, and what it threw after. A seat
that looks at the pile at each of its own turns sees it exactly: between its last
discard and now the opponent played one turn, and the pile tells that turn (the
opponent passed this seat's discard ``m`` when ``m`` lies under one new card; it took
``m`` when one card lies where ``m`` lay). ``mc`` notes each such turn in its hand
memory (``note_opponent_turn`` at the start of both its hooks, ``note_own_discard`` at
the end of its discard hook), and its history model replays them (``kernels.mc``,
``history_particles``). The opponent's turns before this seat's first discard (the
upcard option) are not noted: the notes start after them.

A note keeps what the opponent's own view held at that turn, as far as a replay needs
it: the card offered (this seat's discard), whether it was taken, the card thrown, the
opponent's own turns before it, the pile's size and the stock's at its draw, the draws
made so far this hand, and this seat's taken cards then. The pile below the offered
card is the pile's bottom now (cards leave the pile only from the top, and only the
card just thrown can be taken), so it is not noted.

Words of the seat's scratch, all in the hand's memory (``SCRATCH_HAND``: zeroed at each
deal, so 0 reads "nothing noted"). After a stock rebuild the pile's order no longer
tells the turns: the notes stop (``H_STATE`` broken) and the history model deals as the
rules' model does. Where more turns than ``MAX_NOTES`` were noted, the oldest are
dropped: the notes always run up to the opponent's latest turn.
"""

import numpy as np
from numba import njit

from kernels.bits import popcount
from kernels.obs import PHASE_DISCARD, SCRATCH_HAND

H_MINE = 3  # 1 + the pile's size just after this seat's last discard (0: none yet)
H_CARD = 4  # that discard
H_MY_TAKEN = 5  # this seat's taken cards then
H_STOCK = 6  # the stock's size then
H_TURN = 7  # draws made this hand then
H_REBUILDS = 8  # rebuilds then
H_STATE = 9  # IDLE, WAITING (for the opponent's turn) or BROKEN
H_COUNT = 10  # turns noted
H_NOTES = 11  # NOTE_WORDS words per turn noted, oldest first
NOTE_WORDS = 2  # the packed fields (``pack_note``), then this seat's taken cards
MAX_NOTES = (SCRATCH_HAND - H_NOTES) // NOTE_WORDS
HISTORY_WORDS = 1 + NOTE_WORDS * MAX_NOTES  # count, then the notes (``copy_notes``)

IDLE = 0
WAITING = 1
BROKEN = 2


@njit(cache=True, inline="always")
def pack_note(offered, took, thrown, own_turn, pile_n, stock_n, turn):
    """One turn's fields in one word, 7 bits each (``took`` one)."""
    return (
        offered
        | (took << 7)
        | (thrown << 8)
        | (own_turn << 15)
        | (pile_n << 22)
        | (stock_n << 29)
        | (turn << 36)
    )


@njit(cache=True, inline="always")
def unpack_note(word):
    """(offered, took, thrown, own_turn, pile_n, stock_n, turn) of ``pack_note``'s word:
    ``pile_n`` counts the offered card, on top; ``stock_n`` and ``turn`` are before the
    opponent's draw; ``own_turn`` counts its turns before this one."""
    return (
        word & 127,
        (word >> 7) & 1,
        (word >> 8) & 127,
        (word >> 15) & 127,
        (word >> 22) & 127,
        (word >> 29) & 127,
        (word >> 36) & 127,
    )


@njit(cache=True, inline="always")
def _pile_card(obs, i):
    """The pile's card ``i`` before this seat's draw (the card it took is the top)."""
    if i == obs.pile_n:
        return obs.drawn
    return obs.pile[i]


@njit(cache=True)
def note_opponent_turn(obs, scratch):
    """Note the opponent's turn since this seat's last discard, once (two players)."""
    if obs.players != 2 or scratch[H_STATE] != WAITING:
        return
    if obs.rebuilds != scratch[H_REBUILDS]:
        scratch[H_STATE] = BROKEN
        return
    n = obs.pile_n  # the pile before this seat's draw: the card it took back on top
    if obs.phase == PHASE_DISCARD and obs.from_pile:
        n += 1
    mine = scratch[H_MINE] - 1
    offered = scratch[H_CARD]
    if n == mine + 1 and _pile_card(obs, mine - 1) == offered:
        took, thrown = 0, _pile_card(obs, mine)
    elif n == mine:
        took, thrown = 1, _pile_card(obs, mine - 1)
    else:
        scratch[H_STATE] = BROKEN
        return
    o = 1 - obs.seat
    if not (obs.discarded[o] >> thrown) & 1:
        scratch[H_STATE] = BROKEN
        return
    count = scratch[H_COUNT]
    if count == MAX_NOTES:  # drop the oldest
        for w in range(H_NOTES, H_NOTES + NOTE_WORDS * (MAX_NOTES - 1)):
            scratch[w] = scratch[w + NOTE_WORDS]
        count -= 1
    at = H_NOTES + NOTE_WORDS * count
    own_turn = popcount(obs.discarded[o]) - 1
    scratch[at] = pack_note(
        offered, took, thrown, own_turn, mine, scratch[H_STOCK], scratch[H_TURN]
    )
    scratch[at + 1] = scratch[H_MY_TAKEN]
    scratch[H_COUNT] = count + 1
    scratch[H_STATE] = IDLE


@njit(cache=True)
def note_own_discard(obs, scratch, card):
    """Remember this seat's discard ``card`` (the discard hook's answer), to read the
    opponent's next turn against it."""
    if obs.players != 2 or scratch[H_STATE] == BROKEN or card < 0:
        return
    scratch[H_MINE] = obs.pile_n + 2
    scratch[H_CARD] = card
    scratch[H_MY_TAKEN] = obs.taken[obs.seat] & ~(np.int64(1) << card)
    scratch[H_STOCK] = obs.stock_n
    scratch[H_TURN] = obs.turn
    scratch[H_REBUILDS] = obs.rebuilds
    scratch[H_STATE] = WAITING


@njit(cache=True)
def copy_notes(scratch, out):
    """The notes (count, then ``NOTE_WORDS`` words each) into ``out[:HISTORY_WORDS]``;
    none after a rebuild."""
    out[0] = 0 if scratch[H_STATE] == BROKEN else scratch[H_COUNT]
    for w in range(NOTE_WORDS * MAX_NOTES):
        out[1 + w] = scratch[H_NOTES + w]
