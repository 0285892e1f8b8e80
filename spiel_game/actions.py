"""Encoding and decoding of action ids (table in layout.py and docs/game.md); words come
from a rule set's characters (cards.py), Jabba's Palace's by default.

Worked example, a 3-player turn: player 0 plays Guard (id 1), chooses player 2 and
names 5:

    >>> [encode_play(1), encode_target(2), encode_name(5)]
    [1, 16, 26]
    >>> decode(26)
    ('name', 5)
"""

from __future__ import annotations

from . import layout as L
from .cards import CHARACTERS

# (kind, first id, count, first argument)
_KINDS = (
    ("play", L.PLAY, L.MAX_CHARS, 0),
    ("target", L.TARGET, L.MAX_PLAYERS, 0),
    ("target_set_aside", L.TARGET_SET_ASIDE, 1, 0),
    ("name", L.NAME, L.NAMES_IN_FIRST_BLOCK, 0),
    ("keep", L.KEEP, L.MAX_CHARS, 0),
    ("order", L.ORDER, L.MAX_CHARS, 0),
    ("no_trade", L.NO_TRADE, 1, 0),
    ("trade", L.TRADE, 1, 0),
    ("name", L.NAME_HIGH, L.NUM_NUMBERS - L.NAMES_IN_FIRST_BLOCK, L.NAMES_IN_FIRST_BLOCK),
)


def num_actions(max_number: int) -> int:
    """The distinct action ids of a rule set whose numbers go up to `max_number`: Jabba's
    Palace (8) needs ids 0-59, classic Love Letter (9) also 60."""
    return L.NAME_HIGH + max(0, max_number + 1 - L.NAMES_IN_FIRST_BLOCK)


def encode_play(character: int) -> int:
    return L.PLAY + character


def encode_target(player: int) -> int:
    return L.TARGET + player


def encode_name(number: int) -> int:
    if number < L.NAMES_IN_FIRST_BLOCK:
        return L.NAME + number
    return L.NAME_HIGH + number - L.NAMES_IN_FIRST_BLOCK


def encode_keep(character: int) -> int:
    return L.KEEP + character


def encode_order(character_on_top: int) -> int:
    return L.ORDER + character_on_top


def decode(action: int) -> tuple[str, int]:
    """(kind, argument) of a decision action id; ValueError for an id out of range."""
    for kind, offset, count, first in _KINDS:
        if offset <= action < offset + count:
            return kind, first + action - offset
    raise ValueError(f"action id {action} is not a decision id (0 to {L.NUM_ACTIONS - 1})")


def decision_to_string(action: int, characters=CHARACTERS) -> str:
    """How a decision reads at the table, e.g. 'play Guard', 'choose player 1', 'name 5'."""
    kind, arg = decode(action)
    if kind == "play":
        return f"play {characters[arg].name}"
    if kind == "target":
        return f"choose player {arg}"
    if kind == "target_set_aside":
        return "look at the set-aside card"
    if kind == "name":
        return f"name {arg}"
    if kind == "keep":
        return f"keep {characters[arg].name}"
    if kind == "order":
        return f"return {characters[arg].name} on top (drawn first)"
    if kind == "no_trade":
        return "keep own hand"
    return "trade hands"


def chance_to_string(chance_kind: int, receiver: int, character: int,
                     characters=CHARACTERS) -> str:
    """A chance outcome in words, given what the pending draw is for."""
    name = characters[character].name
    if chance_kind == L.CH_FACE_UP:
        return f"set aside face up: {name}"
    if chance_kind == L.CH_DEAL:
        return f"deal {name} to player {receiver}"
    if chance_kind == L.CH_SET_ASIDE_LOOK:
        return f"the set-aside card is {name}"
    return f"player {receiver} draws {name}"
