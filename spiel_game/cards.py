"""Cards, effects and agendas as data (docs/RULES.md "The deck", R12).

Every character is one row of `CHARACTERS`: its number, side, copies and effect. The
engine dispatches on the effect kind and its two parameters, never on a character's
name or number, so another rule set (classic Love Letter) is another table.

Character ids are stable and used everywhere: as chance outcomes, in action ids and in
files. They run by number, Palace before Rebel within a number:

| id | character        | # | side   | copies |
|----|------------------|---|--------|--------|
|  0 | Han Solo         | 0 | Rebel  | 1 |
|  1 | Guard            | 1 | Palace | 2 |
|  2 | C-3PO            | 1 | Rebel  | 1 |
|  3 | Salacious Crumb  | 2 | Palace | 2 |
|  4 | R2-D2            | 2 | Rebel  | 1 |
|  5 | Mercenary        | 3 | Palace | 2 |
|  6 | Chewbacca        | 3 | Rebel  | 1 |
|  7 | Bib Fortuna      | 4 | Palace | 2 |
|  8 | Lando Calrissian | 4 | Rebel  | 1 |
|  9 | Boba Fett        | 5 | Palace | 2 |
| 10 | Leia Organa      | 5 | Rebel  | 1 |
| 11 | Rancor           | 6 | Palace | 1 |
| 12 | Luke Skywalker   | 7 | Rebel  | 1 |
| 13 | Jabba the Hutt   | 8 | Palace | 1 |
"""

from __future__ import annotations

import dataclasses
import difflib
import enum
import re

import numpy as np


class Side(enum.IntEnum):
    PALACE = 0
    REBEL = 1


class Effect(enum.IntEnum):
    """What a played card does; parameters in `Character.param_a/param_b`."""

    NONE = 0  # no effect when played (Han Solo)
    GUESS = 1  # choose, name a number; out on a hit (Guard)
    GUESS_COUNTER = 2  # as GUESS; on a miss the target names a number back (C-3PO, R6)
    PEEK = 3  # choose, look at their hand (Salacious Crumb)
    PEEK_OR_SET_ASIDE = 4  # look at a hand or at the face-down set-aside card (R2-D2)
    COMPARE = 5  # choose, compare; lower number out; tie nobody (Mercenary)
    ELIMINATE_IF_SIDE = 6  # choose; out if hand is side param_a with number <= param_b
    PROTECT = 7  # cannot be chosen until own next turn (Bib Fortuna, R13)
    LOOK_MAY_TRADE = 8  # choose, look, then may trade hands (Lando, R10)
    STEAL_HAND = 9  # choose; their hand to my play area, they redraw (Boba Fett, R8)
    DRAW_KEEP_RETURN = 10  # draw param_a, keep 1, return the rest in order (Leia, R9)
    ELIMINATE_LOWEST = 11  # lowest non-0 hand in the round is out, ties all (Rancor, R7)


# Effects that "choose another player" (R4).
TARGETED_EFFECTS = frozenset({
    Effect.GUESS, Effect.GUESS_COUNTER, Effect.PEEK, Effect.PEEK_OR_SET_ASIDE,
    Effect.COMPARE, Effect.ELIMINATE_IF_SIDE, Effect.LOOK_MAY_TRADE, Effect.STEAL_HAND,
})


@dataclasses.dataclass(frozen=True)
class Character:
    id: int
    name: str
    number: int
    side: Side
    copies: int
    effect: Effect
    text: str
    aliases: tuple[str, ...] = ()
    param_a: int = 0
    param_b: int = 0
    token_if_held: bool = False  # +1 token if in hand at round end (Han Solo, R11)


CHARACTERS: tuple[Character, ...] = (
    Character(0, "Han Solo", 0, Side.REBEL, 1, Effect.NONE,
              "No effect when played; +1 token if in hand at round end.",
              ("han", "solo", "hansolo"), token_if_held=True),
    Character(1, "Guard", 1, Side.PALACE, 2, Effect.GUESS,
              "Choose another player and name a number 0-8; out if their card has it.",
              ("guard",)),
    Character(2, "C-3PO", 1, Side.REBEL, 1, Effect.GUESS_COUNTER,
              "As Guard; if wrong, the chosen player names a number and you are out "
              "if your card has it.",
              ("c3po", "c-3po", "threepio", "3po", "c3p0")),
    Character(3, "Salacious Crumb", 2, Side.PALACE, 2, Effect.PEEK,
              "Choose another player and secretly look at their hand.",
              ("crumb", "salacious", "salaciouscrumb")),
    Character(4, "R2-D2", 2, Side.REBEL, 1, Effect.PEEK_OR_SET_ASIDE,
              "Secretly look at another player's hand or at the face-down set-aside card.",
              ("r2", "r2d2", "r2-d2", "artoo")),
    Character(5, "Mercenary", 3, Side.PALACE, 2, Effect.COMPARE,
              "Choose another player and secretly compare hands; the lower number is "
              "out; on a tie nobody is.",
              ("mercenary", "merc")),
    Character(6, "Chewbacca", 3, Side.REBEL, 1, Effect.ELIMINATE_IF_SIDE,
              "Choose another player; out if they hold a Palace card numbered 4 or less.",
              ("chewbacca", "chewie", "chewy"), param_a=Side.PALACE, param_b=4),
    Character(7, "Bib Fortuna", 4, Side.PALACE, 2, Effect.PROTECT,
              "Other players cannot choose you until the start of your next turn.",
              ("bib", "fortuna", "bibfortuna")),
    Character(8, "Lando Calrissian", 4, Side.REBEL, 1, Effect.LOOK_MAY_TRADE,
              "Choose another player, secretly look at their hand, then you may trade "
              "hands with them.",
              ("lando", "calrissian", "landocalrissian")),
    Character(9, "Boba Fett", 5, Side.PALACE, 2, Effect.STEAL_HAND,
              "Choose another player; their hand goes face up into your play area and "
              "they draw a new hand (the set-aside card if the deck is empty).",
              ("boba", "fett", "bobafett")),
    Character(10, "Leia Organa", 5, Side.REBEL, 1, Effect.DRAW_KEEP_RETURN,
              "Draw 2, keep 1 of the 3, put the other 2 on the bottom of the deck in "
              "an order you choose.",
              ("leia", "organa", "leiaorgana"), param_a=2),
    Character(11, "Rancor", 6, Side.PALACE, 1, Effect.ELIMINATE_LOWEST,
              "The player(s) in the round with the lowest non-0 card are out, you "
              "included; if nobody is left the round has no winner.",
              ("rancor",)),
    Character(12, "Luke Skywalker", 7, Side.REBEL, 1, Effect.ELIMINATE_IF_SIDE,
              "Choose another player; out if they hold a Palace card.",
              ("luke", "skywalker", "lukeskywalker"), param_a=Side.PALACE, param_b=99),
    Character(13, "Jabba the Hutt", 8, Side.PALACE, 1, Effect.ELIMINATE_IF_SIDE,
              "Choose another player; out if they hold a Rebel card.",
              ("jabba", "hutt", "jabbathehutt"), param_a=Side.REBEL, param_b=99),
)

NUM_CHARACTERS = len(CHARACTERS)
FULL_DECK_COPIES = tuple(c.copies for c in CHARACTERS)
MAX_NUMBER = max(c.number for c in CHARACTERS)


class Agenda(enum.IntEnum):
    """Round-end scoring at the deck end (R12)."""

    EXALTED_ONE = 0
    MY_KIND_OF_SCUM = 1
    JABBAS_COURT = 2
    RESCUE_MISSION = 3


AGENDA_NAMES = {
    "exalted_one": Agenda.EXALTED_ONE,
    "my_kind_of_scum": Agenda.MY_KIND_OF_SCUM,
    "jabbas_court": Agenda.JABBAS_COURT,
    "rescue_mission": Agenda.RESCUE_MISSION,
}
AGENDA_TEXT = {
    Agenda.EXALTED_ONE: "Deck end: the highest-numbered hand card wins; ties all win.",
    Agenda.MY_KIND_OF_SCUM: "Deck end: the highest Rebel card in hand wins and the highest "
                            "Palace card in hand wins (Han Solo counts as Rebel 0); ties all win.",
    Agenda.JABBAS_COURT: "Deck end: the highest sum of numbers of Palace cards in one's own "
                         "play area wins; ties all win.",
    Agenda.RESCUE_MISSION: "Deck end: the most Rebel cards in one's own play area wins; "
                           "ties all win.",
}

# Columns of the engine's card table (`card_table()`), one row per character id.
COL_NUMBER, COL_SIDE, COL_EFFECT, COL_PARAM_A, COL_PARAM_B, COL_TOKEN_IF_HELD = range(6)
NUM_COLS = 6


def card_table() -> np.ndarray:
    """The int32 table the compiled engine reads: one row per character id."""
    table = np.zeros((NUM_CHARACTERS, NUM_COLS), dtype=np.int32)
    for c in CHARACTERS:
        table[c.id] = (c.number, c.side, c.effect, c.param_a, c.param_b, c.token_if_held)
    return table


def _fold(name: str) -> str:
    return re.sub(r"[\s_\-'.]", "", name.lower())


_ALIASES: dict[str, int] = {}
for _c in CHARACTERS:
    for _alias in (_c.name, *_c.aliases):
        _ALIASES[_fold(_alias)] = _c.id


def character_id(name: str) -> int:
    """Character id for a name in any usual form ("c3po", "Threepio", "boba", "13").

    Raises ValueError naming the closest valid names when nothing matches.
    """
    folded = _fold(name)
    if folded in _ALIASES:
        return _ALIASES[folded]
    close = difflib.get_close_matches(folded, list(_ALIASES), n=3, cutoff=0.5)
    suggestions = sorted({CHARACTERS[_ALIASES[c]].name for c in close})
    hint = f" Did you mean {', '.join(suggestions)}?" if suggestions else ""
    raise ValueError(
        f"unknown card {name!r}.{hint} Known cards: "
        + ", ".join(c.name for c in CHARACTERS))


# Deck specs -----------------------------------------------------------------------------
#
# A deck spec is a preset name or a '+'-separated list of items `NAME` or `NAME:COUNT`
# (count 1 when omitted), optionally with `faceup:N`, the number of cards set aside face
# up with 2 players (R1 says 3; reduced decks may lower it). Examples:
#   "full"
#   "jabba+luke+guard:2+han+faceup:0"
# Separators avoid ',' and '=' so a spec fits inside pyspiel.load_game("...(deck=...)").

RULES_FACE_UP_2P = 3

DECK_PRESETS: dict[str, str] = {
    "full": "+".join(f"{c.aliases[0]}:{c.copies}" for c in CHARACTERS),
    # Reduced decks for exact solving (sizes in docs/performance.md): tiny and small fit
    # OpenSpiel's own exact tools on this Python game; medium fits ours.
    "tiny": "han+guard+mercenary+luke+jabba+faceup:0",
    "small": "han+guard+crumb+mercenary+luke+jabba+faceup:0",
    "medium": "han+guard+r2+mercenary+boba+luke+jabba+faceup:0",
}


@dataclasses.dataclass(frozen=True)
class DeckSpec:
    """A deck: copies per character id and the 2-player face-up count."""

    counts: tuple[int, ...]
    face_up_2p: int = RULES_FACE_UP_2P

    @property
    def size(self) -> int:
        return sum(self.counts)

    def face_up(self, num_players: int) -> int:
        return self.face_up_2p if num_players == 2 else 0

    def to_spec(self) -> str:
        items = [f"{CHARACTERS[i].aliases[0]}:{n}" for i, n in enumerate(self.counts) if n]
        if self.face_up_2p != RULES_FACE_UP_2P:
            items.append(f"faceup:{self.face_up_2p}")
        return "+".join(items)

    def check_playable(self, num_players: int) -> None:
        """Raise ValueError if a round cannot be dealt with this deck (R1)."""
        needed = 1 + self.face_up(num_players) + num_players + 1
        if self.size < needed:
            raise ValueError(
                f"deck of {self.size} cards is too small for {num_players} players: a round "
                f"needs 1 set-aside + {self.face_up(num_players)} face-up + {num_players} "
                f"dealt + at least 1 to draw = {needed}")


def parse_deck(spec: str) -> DeckSpec:
    """Parse a preset name or a deck spec string; raise ValueError on anything unknown."""
    text = spec.strip()
    if text in DECK_PRESETS:
        text = DECK_PRESETS[text]
    if not text:
        raise ValueError(
            f"empty deck spec; use a preset ({', '.join(DECK_PRESETS)}) or items "
            "like 'guard:2+jabba+han'")
    counts = [0] * NUM_CHARACTERS
    face_up = RULES_FACE_UP_2P
    for item in text.split("+"):
        name, _, count_text = item.strip().partition(":")
        count_text = count_text.strip() or "1"
        try:
            count = int(count_text)
        except ValueError:
            raise ValueError(f"deck item {item!r}: count {count_text!r} is not a whole "
                             "number") from None
        if _fold(name) == "faceup":
            if not 0 <= count <= RULES_FACE_UP_2P:
                raise ValueError(f"deck item {item!r}: faceup must be 0 to "
                                 f"{RULES_FACE_UP_2P}")
            face_up = count
            continue
        try:
            cid = character_id(name)
        except ValueError as err:
            raise ValueError(f"deck item {item!r}: {err} Presets: "
                             f"{', '.join(DECK_PRESETS)}.") from None
        if count < 0:
            raise ValueError(f"deck item {item!r}: count must not be negative")
        counts[cid] += count
        if counts[cid] > CHARACTERS[cid].copies:
            raise ValueError(
                f"deck item {item!r}: {CHARACTERS[cid].name} has {CHARACTERS[cid].copies} "
                f"cop{'y' if CHARACTERS[cid].copies == 1 else 'ies'} in the game; a deck "
                "may only reduce it")
    if sum(counts) == 0:
        raise ValueError("deck spec has no cards")
    return DeckSpec(tuple(counts), face_up)
