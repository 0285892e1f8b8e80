"""Named offsets into the engine's flat int32 state, action ids and event kinds.

Module-level ints, so numba freezes them as compile-time constants. One layout serves
every rule set (cards.RULESETS): sizes are the largest any of them needs.

Action ids (player decisions; chance outcomes are character ids, see cards.py):

| ids     | meaning                                    | example                       |
|---------|--------------------------------------------|-------------------------------|
| 0-13    | play character c                           | 13 = "play Jabba the Hutt"    |
| 14-19   | choose player t                            | 15 = "choose player 1"        |
| 20      | choose the face-down set-aside (R2-D2)     |                               |
| 21-29   | name number n, 0 to 8 (Guard, C-3PO...)    | 26 = "name 5"                 |
| 30-43   | Leia, Chancellor: keep character c         | 30 = "keep Han Solo"          |
| 44-57   | Leia, Chancellor: return c above the other | 45 = "return Guard on top"    |
| 58      | Lando: keep own hand                       |                               |
| 59      | Lando: trade hands                         |                               |
| 60      | name number 9 (classic's Princess)         |                               |

Jabba's Palace uses ids 0-59 (its numbers stop at 8); classic Love Letter's Princess, 9,
is named with id 60, after the others, so that Jabba's Palace's ids stay as they were.

`encode_*`/`decode_*` helpers live in actions.py.
"""

# The character table's size and top number come from the table itself (cards.py imports
# only numpy, so this is no import cycle and loads no numba).
from .cards import MAX_CHARACTERS, MAX_NUMBER

MAX_PLAYERS = 6
MAX_CHARS = MAX_CHARACTERS
MAX_HAND = 3
MAX_AREA = 20
MAX_QUEUE = 8
MAX_FACEUP = 3
MAX_EVENTS = 160
EVENT_SIZE = 5
NUM_NUMBERS = MAX_NUMBER + 1  # 0-9
NAMES_IN_FIRST_BLOCK = 9  # numbers 0-8 have ids NAME + n; higher ones NAME_HIGH + n - 9

# Action ids -----------------------------------------------------------------------------
PLAY = 0
TARGET = PLAY + MAX_CHARS  # 14
TARGET_SET_ASIDE = TARGET + MAX_PLAYERS  # 20
NAME = TARGET_SET_ASIDE + 1  # 21
KEEP = NAME + NAMES_IN_FIRST_BLOCK  # 30
ORDER = KEEP + MAX_CHARS  # 44
NO_TRADE = ORDER + MAX_CHARS  # 58
TRADE = NO_TRADE + 1  # 59
NAME_HIGH = TRADE + 1  # 60: name number 9
NUM_ACTIONS = NAME_HIGH + NUM_NUMBERS - NAMES_IN_FIRST_BLOCK  # 61, over all rule sets

# Phases ---------------------------------------------------------------------------------
PH_CHANCE = 0  # a card is drawn from the undetermined pool; what for: S_CHANCE_KIND
PH_PLAY = 1
PH_TARGET = 2
PH_NAME = 3
PH_COUNTER = 4  # C-3PO miss: the chosen player names a number (R6)
PH_KEEP = 5
PH_ORDER = 6
PH_TRADE = 7
PH_TERMINAL = 8
PHASE_NAMES = ("chance", "play", "target", "name", "counter", "keep", "order", "trade",
               "terminal")

# What a pending chance draw is for.
CH_FACE_UP = 0
CH_DEAL = 1
CH_TURN_DRAW = 2
CH_LEIA_DRAW = 3
CH_REDRAW = 4  # a new hand after losing one: Boba Fett's victim (R8), classic Prince (C5)
CH_SET_ASIDE_LOOK = 5

# Where a received card came from (event E_DRAW, field EXTRA).
SRC_DEAL = 0
SRC_DECK = 1
SRC_BOTTOM = 2  # a card Leia returned (R9)
SRC_SET_ASIDE = 3  # Boba Fett or a classic Prince with an empty deck (R8, C5)
SOURCE_NAMES = ("deal", "deck", "bottom", "set-aside")

# Round end kinds.
END_NONE = 0
END_LAST_PLAYER = 1
END_DECK = 2
END_NOBODY = 3  # Rancor left nobody in the round (R7)

# Utilities.
UTIL_MARGIN = 0
UTIL_TOKENS = 1

# Event kinds. Fields: KIND, ACTOR, OTHER, CARD, EXTRA (-1 when unused).
E_FACE_UP = 0  # CARD
E_DRAW = 1  # ACTOR receives CARD from source EXTRA; CARD seen by ACTOR only
E_PLAY = 2  # ACTOR plays CARD
E_TARGET = 3  # ACTOR chooses OTHER
E_TARGET_SET_ASIDE = 4  # ACTOR chooses the set-aside card (R2-D2)
E_NAME = 5  # ACTOR names number EXTRA
E_MISS = 6  # ACTOR (the one at risk) stays in
E_OUT = 7  # ACTOR is out, discarding CARD face up (R3)
E_SEE = 8  # ACTOR sees OTHER's CARD; CARD seen by ACTOR only
E_SEE_SET_ASIDE = 9  # ACTOR sees the set-aside CARD; seen by ACTOR only
E_TIE = 10  # Mercenary tie between ACTOR and OTHER (R10)
E_TRADE = 11  # ACTOR gives CARD to OTHER and gets EXTRA; cards seen by both
E_NO_TRADE = 12  # ACTOR keeps own hand after looking at OTHER
E_STEAL = 13  # ACTOR takes OTHER's CARD face up into own play area (R8)
E_KEEP = 14  # Leia: ACTOR keeps CARD; seen by ACTOR only
E_RETURN = 15  # Leia: ACTOR returns OTHER cards, CARD above EXTRA; cards ACTOR only
E_NO_EFFECT = 16  # ACTOR's card has no effect (no one to choose, empty deck, all hold 0)
E_ROUND_END = 17  # EXTRA = end kind
E_DISCARD = 18  # ACTOR discards CARD face up into own play area, by OTHER's Prince (C5)
NUM_EVENT_KINDS = 19
JABBA_EVENT_KINDS = 18  # the kinds Jabba's Palace logs (E_FACE_UP to E_ROUND_END)

# State layout ---------------------------------------------------------------------------
_offset = 0


def _field(size=1):
    global _offset
    start = _offset
    _offset += size
    return start


S_NUM_PLAYERS = _field()
S_RULES = _field()  # the rule set (cards.RULESETS): which card table the engine reads
S_AGENDA = _field()
S_UTILITY = _field()
S_LOGGING = _field()  # 1: record events (needed for information states)
S_DECK_COUNTS = _field(MAX_CHARS)  # composition of this game's deck
S_NAMEABLE = _field()  # bit n set: some card of this deck has number n (R5)
S_PHASE = _field()
S_TURN_PLAYER = _field()
S_ACTOR = _field()  # player to decide now, -1 at chance and terminal
S_CHANCE_KIND = _field()
S_CHANCE_FOR = _field()  # who receives the pending chance card
S_PENDING_CARD = _field()  # card being resolved
S_PENDING_TARGET = _field()
S_DRAWS_LEFT = _field()  # Leia draws still to make
S_FACE_UP_LEFT = _field()
S_DEAL_NEXT = _field()
S_POOL = _field(MAX_CHARS)  # undetermined cards: unknown deck part + set-aside if unrevealed
S_POOL_SIZE = _field()
S_UNKNOWN_DECK = _field()  # cards in the shuffled (unknown) part of the deck
S_SET_ASIDE = _field()  # face-down set-aside character, -1 while undetermined
S_SET_ASIDE_GONE = _field()  # taken by a Boba Fett victim (R8)
S_QUEUE_LEN = _field()
S_QUEUE = _field(MAX_QUEUE)  # cards Leia returned, next to be drawn first (R9)
S_RETURN_N = _field()
S_RETURN = _field(2)
S_FACE_UP_N = _field()
S_FACE_UP = _field(MAX_FACEUP)
S_HAND_N = _field(MAX_PLAYERS)
S_HAND = _field(MAX_PLAYERS * MAX_HAND)
S_IN_ROUND = _field(MAX_PLAYERS)
S_PROTECTED = _field(MAX_PLAYERS)
S_AREA_N = _field(MAX_PLAYERS)
S_AREA = _field(MAX_PLAYERS * MAX_AREA)
S_TOKENS = _field(MAX_PLAYERS)
S_WINNERS = _field()  # bit p: p won the round (R11, R12; tokens from cards not counted)
S_END_KIND = _field()
S_TURNS = _field()
S_EVENT_N = _field()
S_EVENTS = _field(MAX_EVENTS * EVENT_SIZE)
STATE_SIZE = _offset

EV_KIND, EV_ACTOR, EV_OTHER, EV_CARD, EV_EXTRA = range(EVENT_SIZE)
