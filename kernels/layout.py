"""Integer codes shared by every kernel: the compiled rule vector and outcome labels.

Kernels never see strings. A `RuleSet` (``sim/rules.py``) compiles to an ``int64``
vector ``rules[N_RULE_FIELDS]``; the ``R_*`` constants below are the positions in it
and the other constants are the codes stored there. Outcome codes are stored as
``int8`` in result records and turned into the RULES.md words only in ``sim``.

These are plain module-level ints: Numba freezes them into compiled code, so they must
never change at run time (a change here invalidates every cached kernel; bump
``KERNEL_CACHE_VERSION`` when you edit a value).
"""

KERNEL_CACHE_VERSION = 1

# --- cards ---------------------------------------------------------------------------
N_RANKS = 13
N_SUITS = 4
N_NATURAL = 52  # card index = suit * 13 + rank
JOKER_BITS = (1 << 52) | (1 << 53)
DECK_CAPACITY = 54  # card indices a hand mask can hold: 52 naturals and 2 jokers
NATURAL_BITS = (1 << 52) - 1
SUIT_BITS = (1 << 13) - 1
SPADES = 3  # suit index: card // N_RANKS == SPADES (jokers, 52 and 53, are no suit)

# --- the engine's counters (one hand's state: int64[8] in kernels/engine.py) --------
C_PILE = 0  # cards in the discard pile (its top is pile[C_PILE - 1])
C_STOCK_TOP = 1  # next card to draw: stock[C_STOCK_TOP]
C_STOCK_END = 2  # one past the last stock card: C_STOCK_END - C_STOCK_TOP cards left
C_TURNS = 3  # draws so far
C_REBUILDS = 4  # stock rebuilds so far
C_EVENTS = 5  # entries in the replay log
C_DECK = 6  # cards in this deck (52 plus jokers)
C_REBUILT = 7  # mask of the cards the last rebuild put into the stock (public; 0: none)

# --- positions in the compiled rule vector ----------------------------------------
R_PLAYERS = 0
R_HAND_SIZE = 1
R_JOKERS = 2
R_JOKER_VALUE = 3
R_ACE = 4  # ACE_* below
R_ACE_HIGH_VALUE = 5
R_DISCARD_TAKEN_CARD = 6  # 0/1
R_UPCARD_OPTION = 7  # 0/1
R_KNOCK_LIMIT = 8  # >= 0 a number, KNOCK_ANY or KNOCK_UPCARD
R_BIG_GIN_BONUS = 9  # 0: big gin not allowed
R_LAYOFF = 10  # 0/1
R_LAYOFF_PLAY = 11  # LAYOFF_*
R_SCORING = 12  # SCORING_*
R_RUMMY_BONUS = 13
R_UNDERCUT_PENALTY = 14
R_TIED_WINNERS = 15  # TIED_*
R_KNOCKER_TIE = 16  # KNOCKER_TIE_*
R_PENALTY_TO = 17  # PENALTY_TO_*
R_GIN_BONUS = 18
R_UNDERCUT_BONUS = 19
R_UNDERCUT_ON_TIE = 20  # 0/1
R_SPADE_DOUBLE = 21  # 0/1
R_STOCK_EXHAUSTION = 22  # EXHAUST_*
R_WALL = 23
R_MAX_REBUILDS = 24
R_GAME = 25  # GAME_*
R_GAME_TARGET = 26  # N, T or L of the game mode; 0 for GAME_HAND
R_DEALER = 27  # DEALER_*
R_GAME_BONUS = 28
R_BOX_BONUS = 29
R_SHUTOUT = 30  # SHUTOUT_*
N_RULE_FIELDS = 31

# --- codes stored in the rule vector -------------------------------------------------
ACE_LOW = 0
ACE_HIGH_OR_LOW = 1
ACE_AROUND = 2

KNOCK_ANY = -1  # knock_limit = none (Knock Rummy)
KNOCK_UPCARD = -2  # knock_limit = "upcard" (Oklahoma)

LAYOFF_OPTIMAL = 0
LAYOFF_GREEDY = 1

SCORING_KNOCK = 0
SCORING_GIN = 1

TIED_NEAREST_LEFT = 0
TIED_SPLIT = 1

KNOCKER_TIE_UNDERCUT = 0
KNOCKER_TIE_NEUTRAL = 1

PENALTY_TO_WINNER = 0
PENALTY_TO_EACH_LOWER = 1

EXHAUST_RESHUFFLE = 0
EXHAUST_TURN_OVER = 1
EXHAUST_DEAD_HAND = 2

GAME_HAND = 0
GAME_HANDS = 1
GAME_MATCH = 2
GAME_POOL = 3
GAME_GIN = 4
GAME_HOLLYWOOD = 5

DEALER_ROTATE = 0
DEALER_WINNER = 1
DEALER_LOSER = 2
DEALER_ALTERNATE_SCORED = 3

SHUTOUT_DOUBLE = 0
SHUTOUT_BONUS = 1
SHUTOUT_NONE = 2

# --- hand outcomes (the labels of RULES.md, in this order in sim/results.py) ----------
KNOCK_WIN = 0
UNDERCUT = 1
RUMMY = 2
GIN = 3
BIG_GIN = 4
TIE = 5
DEAD_HAND = 6
EXHAUSTED = 7
OUTCOME_LABELS = (
    "knock_win",
    "undercut",
    "rummy",
    "gin",
    "big_gin",
    "tie",
    "dead_hand",
    "exhausted",
)

# Points are kept in integer units of 1/POINT_SCALE so that a pot split between up to
# five tied winners (RULES.md `tied_winners = "split"`) stays exact: 60 = lcm(1..5).
POINT_SCALE = 60
