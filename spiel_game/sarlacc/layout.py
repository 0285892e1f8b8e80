"""Named offsets into the Sarlacc's Pit engine's flat int32 state, card kinds, action ids,
phases and event kinds (docs/RULES.md S1-S13). Module-level ints, so numba freezes them as
constants.

Card kinds (also the chance outcomes of every deal and draw):

| kind | card                            |
|------|---------------------------------|
| 0-5  | Number 1 to 6 (kind = value - 1)|
| 6    | The Force                       |
| 7    | Move To Any Empty Space         |
| 8    | Change Places With Any Player   |
| 9    | Take The Force From Any Player  |
| 10   | Jabba the Hutt                  |

Action ids (player decisions):

| ids     | meaning                                                   | example                |
|---------|-----------------------------------------------------------|------------------------|
| 0-9     | play card kind k (0+k); a move or a target follows        | 3 = "play a 4"         |
| 10-19   | S4: play card kind k without effect (nothing else legal)  |                        |
| 20      | S4: pass (an empty hand)                                  |                        |
| 21      | S9: blocked by Jabba: retreat one space, no card played   |                        |
| 22-85   | move the hero to space s (22+s)                           | 22 = "move to space 0" |
| 86-89   | choose player q (86+q): change places or take The Force   |                        |
| 90-153  | S6: challenge the guard on space s (90+s), of two or more |                        |
| 154-161 | S8: move Jabba to the grey space of line i (154+i)        |                        |
| 162     | S11: play The Force on Jabba                              |                        |
| 163     | S11: draw against Jabba                                   |                        |
"""

MAX_PLAYERS = 4
HAND_SIZE = 4  # "Always end your turn with 4 cards in your hand."
MAX_NUMBER = 6  # Number cards are 1 to 6 (S2)
FORCE_RANGE = 6  # "move your hero any number of spaces from 1 to 6"
MAX_SPACES = 64  # a board's spaces fit one int64 bitmask
MAX_DEGREE = 8
MAX_LINES = 8
MAX_POSTS = 32
EVENT_SIZE = 3  # kind, player, value
EVENTS_PER_ACTION = 6  # the most events one action can log (a draw: shown, result, jabba,
# reshuffle, end), with one to spare

# Card kinds -----------------------------------------------------------------------------
NUMBER = 0  # Number n is kind NUMBER + n - 1
FORCE = 6
ANY_SPACE = 7
CHANGE_PLACES = 8
TAKE_FORCE = 9
JABBA = 10
NUM_KINDS = 11
PLAYABLE_KINDS = 10  # every kind but Jabba, which never stays in a hand (S8)
DIRECTION_NAMES = ("any_space", "change_places", "take_force")  # kinds 7, 8, 9
CARD_NAMES = ("1", "2", "3", "4", "5", "6", "The Force", "Move To Any Empty Space",
              "Change Places With Any Player", "Take The Force From Any Player",
              "Jabba the Hutt")
MOVE_RETREAT = 11  # S_MOVE_CARD of a retreat (S9): not a card

# Guards and spaces ----------------------------------------------------------------------
GAMORREAN = 0
NIKTO = 1
BOBA_FETT = 2
GUARD_NAMES = ("gamorrean", "nikto", "boba_fett")
GUARD_POINTS = (1, 2, 2)
JABBA_POINTS = 4
SPACE_TAN = 0  # the entry and the Main Deck's hexagons
SPACE_POST = 1  # a guard's pentagon: a space once its guard is gone (S5)
SPACE_TOP = 2  # the Top Deck: grey spaces and Jabba's black hexagon
DETENTION = -1  # a hero's position in the Detention Area (not a space)
HEROES = ("Luke Skywalker", "Princess Leia Organa", "Han Solo", "Chewbacca")

# Action ids -----------------------------------------------------------------------------
PLAY = 0  # + card kind
DISCARD = PLAY + PLAYABLE_KINDS  # 10, + card kind
PASS = DISCARD + PLAYABLE_KINDS  # 20
RETREAT = PASS + 1  # 21
MOVE = RETREAT + 1  # 22, + space
TARGET = MOVE + MAX_SPACES  # 86, + seat
CHALLENGE = TARGET + MAX_PLAYERS  # 90, + space of a post
JABBA_TO = CHALLENGE + MAX_SPACES  # 154, + line
FORCE_ON_JABBA = JABBA_TO + MAX_LINES  # 162
DRAW_ON_JABBA = FORCE_ON_JABBA + 1  # 163
NUM_ACTIONS = DRAW_ON_JABBA + 1  # 164

# Phases ---------------------------------------------------------------------------------
PH_CHANCE = 0
PH_PLAY = 1  # play a card (or retreat, discard, pass)
PH_MOVE = 2  # where the hero moves
PH_TARGET = 3  # which player (Change Places, Take The Force)
PH_GUARD = 4  # which adjacent guard to challenge
PH_JABBA_MOVE = 5  # where a drawn Jabba card sends Jabba
PH_JABBA_FIGHT = 6  # play The Force on Jabba or draw
PH_TERMINAL = 7
PHASE_NAMES = ("chance", "play", "move", "target", "guard", "jabba_move", "jabba_fight",
               "terminal")

# Chance kinds ---------------------------------------------------------------------------
CH_DEAL = 0  # a card dealt at setup (Jabba cards are not yet in the pile)
CH_DRAW = 1  # a card drawn by the turn player
CHANCE_NAMES = ("deal", "draw")

# Challenges -----------------------------------------------------------------------------
NO_CHALLENGE = -1
JABBA_CHALLENGE = MAX_SPACES  # S_CHALLENGE when the draw is against Jabba (S11)

# Ends -----------------------------------------------------------------------------------
END_JABBA = 0  # Jabba defeated
END_TURNS = 1  # the turn limit (S11)
END_LOG = 2  # the log is full (S11): an engine limit, far past the turn limit in play

# Event kinds (the log that information states are built from) ---------------------------
E_DEAL, E_DRAW, E_PLAY, E_DISCARD, E_PASS, E_RETREAT, E_MOVE, E_SWAP, E_ASK, E_GIVE, \
    E_CHALLENGE, E_SHOWN, E_RESULT, E_JABBA, E_FIGHT, E_RESHUFFLE, E_END = range(17)
NUM_EVENT_KINDS = 17
EVENT_NAMES = ("deal", "draw", "play", "discard", "pass", "retreat", "move", "swap", "ask",
               "give", "challenge", "shown", "result", "jabba", "fight", "reshuffle", "end")
HIDDEN = -2  # a redacted event value
# S12: a dealt or drawn card is seen by its receiver only, except a Jabba card (face up).

# Utilities ------------------------------------------------------------------------------
UTIL_MARGIN = 0
UTIL_POINTS = 1

# State offsets --------------------------------------------------------------------------
S_NUM_PLAYERS = 0
S_PHASE = 1
S_CUR = 2  # the turn player (decisions and draws are theirs; -1 at a deal's start)
S_CHANCE_KIND = 3
S_TURN = 4  # turns begun
S_MAX_TURNS = 5
S_ACTIONS = 6  # actions and chance outcomes applied
S_UTILITY = 8
S_PILE_N = 9
S_EVENT_N = 10
S_EVENT_CAP = 11
S_MOVE_CARD = 12  # the card kind being moved with, or MOVE_RETREAT
S_CHALLENGE = 13  # the post challenged, JABBA_CHALLENGE, or NO_CHALLENGE
S_BLOCKED = 14  # S9: Jabba ends the turn player's line at the turn's start
S_JABBA = 15  # Jabba's space
S_GUARDS_LEFT = 16
S_GAMORREANS_LEFT = 17
S_DEAL_LEFT = 18
S_JABBA_CARDS = 19  # Jabba cards shuffled in after the deal (S3)
S_NUM_SPACES = 20
S_ENTRY = 21
S_NUM_LINES = 22
S_WINNER = 23  # who defeated Jabba, -1
S_END = 24  # END_* once terminal, -1 before
S_DEAL_TO = 25  # the seat the next dealt card goes to
S_PILE = 32  # NUM_KINDS counts: the draw pile, order unknown to everyone (S10)
S_DISCARD = S_PILE + NUM_KINDS  # NUM_KINDS counts: the discard pile
S_HAND = S_DISCARD + NUM_KINDS  # NUM_KINDS counts per player
S_HAND_N = S_HAND + MAX_PLAYERS * NUM_KINDS
S_POS = S_HAND_N + MAX_PLAYERS  # each hero's space or DETENTION
S_POINTS = S_POS + MAX_PLAYERS  # Jedi points won
S_ROW = S_POINTS + MAX_PLAYERS  # the board (S1): each space's row
S_LINE = S_ROW + MAX_SPACES  # each space's line or -1
S_KIND = S_LINE + MAX_SPACES  # SPACE_TAN, SPACE_POST, SPACE_TOP
S_GUARD = S_KIND + MAX_SPACES  # guard kind + 1 standing on the space, 0 none
S_DEGREE = S_GUARD + MAX_SPACES
S_NEIGHBOURS = S_DEGREE + MAX_SPACES  # MAX_DEGREE space ids per space
S_GREY = S_NEIGHBOURS + MAX_SPACES * MAX_DEGREE  # the grey space ending each line
S_BALL = S_GREY + MAX_LINES  # per space and radius 1-6, the spaces that near (an int64 as
# two int32, low half first): what a walk's rest from there can reach at most
S_EVENTS = S_BALL + MAX_SPACES * FORCE_RANGE * 2  # S_EVENT_CAP events of EVENT_SIZE


def card_name(kind: int) -> str:
    """'4', 'The Force', 'Jabba the Hutt'."""
    return CARD_NAMES[kind]


def encode_play(kind: int) -> int:
    """The action playing card kind `kind`: encode_play(NUMBER + 3) == 3, "play a 4"."""
    return PLAY + kind


def encode_move(space: int) -> int:
    """The action moving to space `space`: encode_move(5) == 27."""
    return MOVE + space


def encode_target(seat: int) -> int:
    """The action choosing player `seat`: encode_target(2) == 88."""
    return TARGET + seat


def encode_challenge(space: int) -> int:
    """The action challenging the guard on `space`: encode_challenge(33) == 123."""
    return CHALLENGE + space


def encode_jabba_to(line: int) -> int:
    """The action moving Jabba to the grey space of line `line`: encode_jabba_to(2) == 156."""
    return JABBA_TO + line


def decode(action: int) -> tuple[str, int]:
    """(what, argument): decode(3) == ("play", 3); decode(27) == ("move", 5)."""
    for what, start, count in (("play", PLAY, PLAYABLE_KINDS),
                               ("discard", DISCARD, PLAYABLE_KINDS),
                               ("move", MOVE, MAX_SPACES), ("target", TARGET, MAX_PLAYERS),
                               ("challenge", CHALLENGE, MAX_SPACES),
                               ("jabba_to", JABBA_TO, MAX_LINES)):
        if start <= action < start + count:
            return what, action - start
    named = {PASS: "pass", RETREAT: "retreat", FORCE_ON_JABBA: "force_on_jabba",
             DRAW_ON_JABBA: "draw_on_jabba"}
    if action in named:
        return named[action], -1
    raise ValueError(f"action {action}: not a sarlaccs_pit action id (0 to "
                     f"{NUM_ACTIONS - 1})")
