"""Named offsets into the Han Solo engine's flat int32 state, action ids, chance kinds and
event kinds (docs/han-solo.md). Module-level ints, so numba freezes them as constants.

Cards are *kinds* 0-20: 0 is a blue zero, 1-10 a green +1..+10, 11-20 a red -1..-10
(`card_value`). Tokens are kinds 0-4: green, gold, red, blue, Millennium Falcon.

Action ids (player decisions):

| ids   | meaning                                         | example                   |
|-------|-------------------------------------------------|---------------------------|
| 0     | take the top card of the draw pile              |                           |
| 1     | take the top card of the discard pile           |                           |
| 2     | stand                                           |                           |
| 3     | after taking a card: discard nothing            |                           |
| 4-24  | after taking a card: discard card kind c (4+c)  | 17 = "discard red -3"     |
| 25-29 | round end: take token kind k from the pot (25+k)| 29 = "take the Falcon"    |

Chance outcomes are card kinds (deal, flip, draw, redeal), a token kind (the pot), 0/1
(dice differ / match) or a seat (who wins a tie draw): `CH_*` says which.
"""

MAX_PLAYERS = 6  # H9
MAX_HAND = 5  # 2 dealt + one taken on each of 3 turns (H2)
NUM_CARD_KINDS = 21
NUM_TOKEN_KINDS = 5
MAX_DECK = 62
MAX_TURNS = 3
MAX_EVENTS = 322  # = Config.max_events at MAX_PLAYERS, MAX_TURNS (game.py checks)
EVENT_SIZE = 3  # kind, player, value

BLUE_ZERO = 0
GREEN = 1  # green n is kind GREEN - 1 + n
RED = 11  # red n is kind RED - 1 + n
TOKEN_GREEN, TOKEN_GOLD, TOKEN_RED, TOKEN_BLUE, TOKEN_FALCON = range(NUM_TOKEN_KINDS)
TOKEN_NAMES = ("green", "gold", "red", "blue", "falcon")

# Action ids -----------------------------------------------------------------------------
DRAW = 0
TAKE = 1
STAND = 2
KEEP = 3
DISCARD = 4  # + card kind
PICK = DISCARD + NUM_CARD_KINDS  # 25, + token kind
NUM_ACTIONS = PICK + NUM_TOKEN_KINDS  # 30

# Phases ---------------------------------------------------------------------------------
PH_CHANCE = 0
PH_TURN = 1  # draw, take or stand
PH_DISCARD = 2  # discard a card or keep
PH_PICK = 3  # take a token from the pot
PH_TERMINAL = 4
PHASE_NAMES = ("chance", "turn", "discard", "pick", "terminal")

# Chance kinds ---------------------------------------------------------------------------
CH_POT = 0  # a token from the stack to the pot
CH_DEAL = 1  # a card dealt at setup
CH_FLIP = 2  # a card turned up to start the discard pile
CH_DRAW = 3  # a card drawn from the draw pile by the turn player
CH_DICE = 4  # 0: symbols differ, 1: match
CH_REDEAL = 5  # a card dealt after a match
CH_TIE = 6  # the tied player who draws closest to zero
CHANCE_NAMES = ("pot", "deal", "flip", "draw", "dice", "redeal", "tie")

# Event kinds (the log that information states are built from) ---------------------------
# E_REVEAL is a hand put face up on the discard pile after a dice match (H3); E_SHOW a card
# of a hand shown at the round's end, before the tokens are taken (H6): it stays in hand.
E_POT, E_DEAL, E_FLIP, E_DRAW, E_TAKE, E_DISCARD, E_KEEP, E_STAND, E_RESHUFFLE, E_DICE, \
    E_REVEAL, E_REDEAL, E_TIE, E_PICK, E_SHOW = range(15)
NUM_EVENT_KINDS = 15
EVENT_NAMES = ("pot", "deal", "flip", "draw", "take", "discard", "keep", "stand",
               "reshuffle", "dice", "reveal", "redeal", "tie", "pick", "show")
PRIVATE_EVENTS = (E_DEAL, E_DRAW, E_REDEAL)  # the card is seen by its receiver only
HIDDEN = -2  # a redacted event value

# Utilities ------------------------------------------------------------------------------
UTIL_MARGIN = 0
UTIL_TOKENS = 1

# State offsets --------------------------------------------------------------------------
S_NUM_PLAYERS = 0
S_PHASE = 1
S_CUR = 2  # the player to act (a decision) or receiving (a chance card)
S_CHANCE_KIND = 3
S_CYCLE = 4  # full turns completed (= dice rolls made)
S_TURNS = 5  # turns per player (parameter, 3 by the rulebook)
S_DICE = 6  # symbols per die (0: no dice)
S_BEST = 7  # H4: -1 none, 0 any pair with a blue zero, n: only n
S_UTILITY = 8
S_POT_LEFT = 9  # tokens still to draw into the pot
S_DEAL_LEFT = 10  # setup cards still to deal
S_PILE_N = 11
S_DISCARD_N = 12
S_TOOK = 13  # the card kind taken this turn (for the log), -1 none
S_PICK_N = 14  # players who have taken their token
S_EVENT_N = 15
S_DECK_SIZE = 16
S_AFTER_FLIP = 17  # what a flip leads to: 0 the first turn (setup), 1 the turn's end
S_PILE = 20  # NUM_CARD_KINDS counts: the draw pile, order unknown to everyone (H8)
S_STACK = S_PILE + NUM_CARD_KINDS  # token stack counts per kind
S_POT = S_STACK + NUM_TOKEN_KINDS  # pot counts per kind
S_TOKEN_VALUE = S_POT + NUM_TOKEN_KINDS  # credits per token kind
S_HAND_N = S_TOKEN_VALUE + NUM_TOKEN_KINDS
S_HAND = S_HAND_N + MAX_PLAYERS  # MAX_HAND card kinds per player
S_NEED = S_HAND + MAX_PLAYERS * MAX_HAND  # redeal: cards each player is still owed
S_KEY = S_NEED + MAX_PLAYERS  # final hand rank keys (H5)
S_GOT = S_KEY + MAX_PLAYERS  # token kind each player took, -1 none
S_DISCARD = S_GOT + MAX_PLAYERS  # the discard pile, bottom first
S_EVENTS = S_DISCARD + MAX_DECK
STATE_SIZE = S_EVENTS + MAX_EVENTS * EVENT_SIZE


def card_value(kind: int) -> int:
    """The signed value of card kind `kind`: 0, +1..+10 (green), -1..-10 (red)."""
    if kind == BLUE_ZERO:
        return 0
    return kind if kind < RED else -(kind - RED + 1)


def card_name(kind: int) -> str:
    """'blue 0', 'green +7', 'red -3'."""
    if kind == BLUE_ZERO:
        return "blue 0"
    v = card_value(kind)
    return f"green +{v}" if v > 0 else f"red {v}"


def encode_discard(kind: int) -> int:
    """The action discarding card kind `kind`: encode_discard(RED - 1 + 3) == 17."""
    return DISCARD + kind


def encode_pick(token: int) -> int:
    """The action taking token kind `token`: encode_pick(TOKEN_FALCON) == 29."""
    return PICK + token


def decode(action: int) -> tuple[str, int]:
    """(what, argument): decode(17) == ("discard", 13), the red -3; decode(0) == ("draw", -1)."""
    if action == DRAW:
        return "draw", -1
    if action == TAKE:
        return "take", -1
    if action == STAND:
        return "stand", -1
    if action == KEEP:
        return "keep", -1
    if DISCARD <= action < PICK:
        return "discard", action - DISCARD
    if PICK <= action < NUM_ACTIONS:
        return "pick", action - PICK
    raise ValueError(f"action {action}: not a han_solo action id (0 to {NUM_ACTIONS - 1})")


def action_to_string(action: int) -> str:
    what, arg = decode(action)
    if what == "discard":
        return f"discard {card_name(arg)}"
    if what == "pick":
        return f"take the {TOKEN_NAMES[arg]} token"
    return {"draw": "draw from the pile", "take": "take the discard", "stand": "stand",
            "keep": "discard nothing"}[what]
