"""Cards, effects and agendas as data (docs/RULES.md "The deck", R12, "Classic Love Letter").

Every character is one row of a rule set's table: its number, side, copies, effect and
the flags of the rules that concern it. The engine dispatches on the effect kind, its two
parameters and the flags, never on a character's name or number, so another rule set is
another table. Two rule sets (`RULESETS`): Jabba's Palace (`CHARACTERS`, the game
`jabbas_palace`) and classic Love Letter, 2019 edition (`CLASSIC_CHARACTERS`, the game
`love_letter`); the engine reads the table of the rule set its state names.

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
import functools
import re

import numpy as np


class Side(enum.IntEnum):
    PALACE = 0
    REBEL = 1
    NONE = 2  # classic Love Letter's cards have no side


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
    DISCARD_REDRAW = 12  # choose any player, oneself too: they discard and draw (Prince)
    TRADE_HANDS = 13  # choose another player and trade hands (classic King)


# Effects that "choose another player" (R4).
TARGETED_EFFECTS = frozenset({
    Effect.GUESS, Effect.GUESS_COUNTER, Effect.PEEK, Effect.PEEK_OR_SET_ASIDE,
    Effect.COMPARE, Effect.ELIMINATE_IF_SIDE, Effect.LOOK_MAY_TRADE, Effect.STEAL_HAND,
    Effect.DISCARD_REDRAW, Effect.TRADE_HANDS,
})
# Effects whose player may choose themself too (classic Prince).
SELF_TARGET_EFFECTS = frozenset({Effect.DISCARD_REDRAW})


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
    # Classic Love Letter (docs/RULES.md C-rulings):
    names_barred: tuple[int, ...] = ()  # numbers it may not name (classic Guard: 1)
    forced_by: tuple[int, ...] = ()  # ids that force playing it when held (Countess)
    out_if_discarded: bool = False  # playing or discarding it puts its holder out (Princess)
    token_if_alone: bool = False  # +1 token to the only player still in the round with
    #                               one in their play area at the round's end (Spy)


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

# Classic Love Letter, 2019 edition (docs/RULES.md "Classic Love Letter"): ids are numbers.
(SPY, GUARD, PRIEST, BARON, HANDMAID, PRINCE, CHANCELLOR, KING, COUNTESS,
 PRINCESS) = range(10)
CLASSIC_CHARACTERS: tuple[Character, ...] = (
    Character(SPY, "Spy", 0, Side.NONE, 2, Effect.NONE,
              "No effect when played; at the round's end +1 token if you are the only "
              "player still in the round who played or discarded a Spy.",
              ("spy",), token_if_alone=True),
    Character(GUARD, "Guard", 1, Side.NONE, 6, Effect.GUESS,
              "Choose another player and name a number other than 1 (not the Guard); "
              "they are out if their card has it.",
              ("guard",), names_barred=(1,)),
    Character(PRIEST, "Priest", 2, Side.NONE, 2, Effect.PEEK,
              "Choose another player and secretly look at their hand.", ("priest",)),
    Character(BARON, "Baron", 3, Side.NONE, 2, Effect.COMPARE,
              "Choose another player and secretly compare hands; the lower number is "
              "out; on a tie nobody is.", ("baron",)),
    Character(HANDMAID, "Handmaid", 4, Side.NONE, 2, Effect.PROTECT,
              "Other players cannot choose you until the start of your next turn.",
              ("handmaid", "maid")),
    Character(PRINCE, "Prince", 5, Side.NONE, 2, Effect.DISCARD_REDRAW,
              "Choose any player, yourself included: they discard their hand face up "
              "and draw a new card (the set-aside card if the deck is empty).",
              ("prince",)),
    Character(CHANCELLOR, "Chancellor", 6, Side.NONE, 2, Effect.DRAW_KEEP_RETURN,
              "Draw 2, keep 1 of the 3, put the other 2 on the bottom of the deck in "
              "an order you choose.", ("chancellor",), param_a=2),
    Character(KING, "King", 7, Side.NONE, 1, Effect.TRADE_HANDS,
              "Choose another player and trade hands with them.", ("king",)),
    Character(COUNTESS, "Countess", 8, Side.NONE, 1, Effect.NONE,
              "No effect when played; must be played when held with the King or a "
              "Prince.", ("countess",), forced_by=(KING, PRINCE)),
    Character(PRINCESS, "Princess", 9, Side.NONE, 1, Effect.NONE,
              "Playing or discarding her, for any reason, puts you out of the round.",
              ("princess",), out_if_discarded=True),
)

# What the engine's fixed-size arrays and action ids must hold, over every rule set.
MAX_CHARACTERS = max(len(CHARACTERS), len(CLASSIC_CHARACTERS))
MAX_NUMBER = max(c.number for c in (*CHARACTERS, *CLASSIC_CHARACTERS))


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
AGENDAS = tuple(AGENDA_NAMES)  # their names in rulebook order, for listings and tables
AGENDA_TEXT = {
    Agenda.EXALTED_ONE: "Deck end: the highest-numbered hand card wins; ties all win.",
    Agenda.MY_KIND_OF_SCUM: "Deck end: the highest Rebel card in hand wins and the highest "
                            "Palace card in hand wins (Han Solo counts as Rebel 0); ties all win.",
    Agenda.JABBAS_COURT: "Deck end: the highest sum of numbers of Palace cards in one's own "
                         "play area wins; ties all win.",
    Agenda.RESCUE_MISSION: "Deck end: the most Rebel cards in one's own play area wins; "
                           "ties all win.",
}

# Columns of the engine's card tables (`card_tables()`), one row per character id.
(COL_NUMBER, COL_SIDE, COL_EFFECT, COL_PARAM_A, COL_PARAM_B, COL_TOKEN_IF_HELD,
 COL_NAMES_BARRED, COL_FORCED_BY, COL_OUT_IF_DISCARDED, COL_TOKEN_IF_ALONE) = range(10)
NUM_COLS = 10


def _row(c: Character) -> tuple[int, ...]:
    return (c.number, c.side, c.effect, c.param_a, c.param_b, c.token_if_held,
            sum(1 << n for n in c.names_barred), sum(1 << k for k in c.forced_by),
            c.out_if_discarded, c.token_if_alone)


def _fold(name: str) -> str:
    return re.sub(r"[\s_\-'.]", "", name.lower())


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
    "large": "han+guard:2+r2+mercenary+boba+rancor+luke+jabba+faceup:1",  # ours, 44 M nodes
}

# Classic Love Letter's presets (sizes in docs/love-letter.md), about the sizes of Jabba's
# Palace's: tiny and small fit OpenSpiel's own exact tools, medium ours. Each holds the
# Spy, a Guard, a Prince, the Countess (forced by the Prince) and the Princess.
CLASSIC_DECK_PRESETS: dict[str, str] = {
    "full": "+".join(f"{c.aliases[0]}:{c.copies}" for c in CLASSIC_CHARACTERS),
    "tiny": "spy+guard+prince+countess+princess+faceup:0",
    "small": "spy+guard+baron+prince+countess+princess+faceup:0",
    "medium": "spy+guard+priest+prince+king+countess+princess+faceup:0",
}


@dataclasses.dataclass(frozen=True, eq=False)
class RuleSet:
    """A rule set: its cards (ids 0..n-1), deck presets, game name and variants; `id` is
    what the engine's state holds (layout.S_RULES) to pick its card table.

    A game's variants are what its files and result rows are named by besides deck and
    players: its agendas (R12) if it has them, else its own name (policy_full_love_letter_2p_
    fine.npz). Callers ask `has_agendas` and `variants`, never the game's name."""

    id: int
    game: str  # the OpenSpiel game's short name
    title: str
    characters: tuple[Character, ...]
    presets: dict[str, str]
    example: str  # a deck spec, for messages
    long_name: str  # OpenSpiel's long name of the game (one round)
    description: str  # what the game is, for help texts
    agendas: tuple[str, ...] = ()  # its agendas' names (AGENDA_NAMES), the default first
    # Without agendas: who wins at the deck end, where the rules say so, and the engine's
    # scoring of it (an Agenda: classic Love Letter's highest card is Exalted One's rule).
    deck_end: str = ""
    deck_end_ruling: str = ""
    deck_end_scoring: Agenda = Agenda.EXALTED_ONE

    @property
    def has_agendas(self) -> bool:
        return bool(self.agendas)

    @property
    def default_agenda(self) -> str | None:
        return self.agendas[0] if self.agendas else None

    @property
    def variants(self) -> tuple[str, ...]:
        """Its agendas, or its one variant, the game's name."""
        return self.agendas or (self.game,)

    def variant(self, agenda: str | None) -> str:
        """The variant a game of this rule set with `agenda` is (None: the default)."""
        return (agenda or self.default_agenda) if self.has_agendas else self.game

    def agenda_of(self, variant: str) -> str | None:
        """The agenda a variant names: the variant itself in a game with agendas, None in
        one without (ValueError for a variant it does not have)."""
        if variant not in self.variants:
            raise ValueError(f"{variant!r}: {self.game}'s variants are "
                             f"{', '.join(self.variants)}")
        return variant if self.has_agendas else None

    @property
    def no_agendas(self) -> str:
        """Why an agenda is refused for this game ('' if it has agendas)."""
        return "" if self.has_agendas else (
            f"{self.game} has no agendas ({self.deck_end}, {self.deck_end_ruling})")

    @functools.cached_property
    def _aliases(self) -> dict[str, int]:
        return {_fold(alias): c.id for c in self.characters
                for alias in (c.name, *c.aliases)}

    def character_id(self, name: str) -> int:
        """Character id for a name in any usual form ("c3po", "Threepio", "boba").

        Raises ValueError naming the closest valid names when nothing matches.
        """
        folded = _fold(name)
        if folded in self._aliases:
            return self._aliases[folded]
        close = difflib.get_close_matches(folded, list(self._aliases), n=3, cutoff=0.5)
        suggestions = sorted({self.characters[self._aliases[c]].name for c in close})
        hint = f" Did you mean {', '.join(suggestions)}?" if suggestions else ""
        elsewhere = [r for r in RULESETS if r is not self and folded in r._aliases]
        if elsewhere:
            card = elsewhere[0].characters[elsewhere[0]._aliases[folded]].name
            hint = f" {card} is a card of {elsewhere[0].title}, not of {self.title}."
        raise ValueError(
            f"unknown card {name!r}.{hint} Known cards ({self.title}): "
            + ", ".join(c.name for c in self.characters))

    def card_table(self) -> np.ndarray:
        """The int32 table the compiled engine reads: MAX_CHARACTERS rows, one per id
        (rows past this rule set's cards are zero and never read)."""
        table = np.zeros((MAX_CHARACTERS, NUM_COLS), dtype=np.int32)
        for c in self.characters:
            table[c.id] = _row(c)
        return table

    def parse_deck(self, spec: str) -> DeckSpec:
        return parse_deck(spec, self)


JABBAS_PALACE = RuleSet(
    0, "jabbas_palace", "Jabba's Palace", CHARACTERS, DECK_PRESETS, "guard:2+jabba+han",
    long_name="Star Wars: Jabba's Palace - A Love Letter Game (one round)",
    description="Star Wars: Jabba's Palace", agendas=AGENDAS)
CLASSIC = RuleSet(
    1, "love_letter", "classic Love Letter", CLASSIC_CHARACTERS, CLASSIC_DECK_PRESETS,
    "guard:2+prince+princess", long_name="Love Letter, 2019 edition (one round)",
    description="classic Love Letter, 2019 edition",
    deck_end="the highest card wins at the deck's end", deck_end_ruling="docs/RULES.md C8")
RULESETS: tuple[RuleSet, ...] = (JABBAS_PALACE, CLASSIC)  # by id
# The one list of the games, by their OpenSpiel short names; the first is the default.
GAMES: tuple[str, ...] = tuple(r.game for r in RULESETS)
RULESET_OF_GAME = {r.game: r for r in RULESETS}
AGENDA_GAMES = tuple(r.game for r in RULESETS if r.has_agendas)  # the games with agendas


def ruleset(game: str) -> RuleSet:
    """The rule set of a game by its short name; ValueError naming the games there are."""
    if game not in RULESET_OF_GAME:
        raise ValueError(f"game={game!r}: allowed are {', '.join(GAMES)}")
    return RULESET_OF_GAME[game]


def card_tables() -> np.ndarray:
    """Every rule set's card table, indexed [rule set id, character id, column]."""
    return np.stack([r.card_table() for r in RULESETS])


def card_table() -> np.ndarray:
    """Jabba's Palace's card table (`card_tables()[0]`, its first NUM_CHARACTERS rows)."""
    return JABBAS_PALACE.card_table()[:NUM_CHARACTERS]


def character_id(name: str) -> int:
    """A Jabba's Palace character id (RuleSet.character_id)."""
    return JABBAS_PALACE.character_id(name)


@dataclasses.dataclass(frozen=True)
class DeckSpec:
    """A deck: copies per character id of its rule set and the 2-player face-up count."""

    counts: tuple[int, ...]
    face_up_2p: int = RULES_FACE_UP_2P
    rules: int = 0  # the rule set's id (RULESETS)

    @property
    def ruleset(self) -> RuleSet:
        return RULESETS[self.rules]

    @property
    def size(self) -> int:
        return sum(self.counts)

    def face_up(self, num_players: int) -> int:
        return self.face_up_2p if num_players == 2 else 0

    def engine_counts(self) -> np.ndarray:
        """The counts as the engine takes them: MAX_CHARACTERS entries."""
        counts = np.zeros(MAX_CHARACTERS, dtype=np.int32)
        counts[:len(self.counts)] = self.counts
        return counts

    def to_spec(self) -> str:
        characters = self.ruleset.characters
        items = [f"{characters[i].aliases[0]}:{n}" for i, n in enumerate(self.counts) if n]
        if self.face_up_2p != RULES_FACE_UP_2P:
            items.append(f"faceup:{self.face_up_2p}")
        return "+".join(items)

    def check_playable(self, num_players: int) -> None:
        """Raise ValueError if a round cannot be dealt with this deck (R1), or a card of
        it could name no number (a classic Guard in a deck of Guards only, C2)."""
        needed = 1 + self.face_up(num_players) + num_players + 1
        if self.size < needed:
            raise ValueError(
                f"deck of {self.size} cards is too small for {num_players} players: a round "
                f"needs 1 set-aside + {self.face_up(num_players)} face-up + {num_players} "
                f"dealt + at least 1 to draw = {needed}")
        characters = self.ruleset.characters
        numbers = {characters[i].number for i, n in enumerate(self.counts) if n}
        for i, n in enumerate(self.counts):
            c = characters[i]
            if n and c.effect in (Effect.GUESS, Effect.GUESS_COUNTER) and \
                    not numbers - set(c.names_barred):
                raise ValueError(
                    f"deck {self.to_spec()!r}: the {c.name} could name no number (it may "
                    f"not name {', '.join(map(str, c.names_barred))}); add a card of "
                    "another number")


def parse_deck(spec: str, rules: RuleSet = JABBAS_PALACE) -> DeckSpec:
    """Parse a preset name or a deck spec string of a rule set; raise ValueError on
    anything unknown."""
    text = spec.strip()
    if text in rules.presets:
        text = rules.presets[text]
    if not text:
        raise ValueError(
            f"empty deck spec; use a preset ({', '.join(rules.presets)}) or items "
            f"like {rules.example!r}")
    characters = rules.characters
    counts = [0] * len(characters)
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
            cid = rules.character_id(name)
        except ValueError as err:
            raise ValueError(f"deck item {item!r}: {err} Presets: "
                             f"{', '.join(rules.presets)}.") from None
        if count < 0:
            raise ValueError(f"deck item {item!r}: count must not be negative")
        counts[cid] += count
        if counts[cid] > characters[cid].copies:
            raise ValueError(
                f"deck item {item!r}: {characters[cid].name} has {characters[cid].copies} "
                f"cop{'y' if characters[cid].copies == 1 else 'ies'} in the game; a deck "
                "may only reduce it")
    if sum(counts) == 0:
        raise ValueError("deck spec has no cards")
    return DeckSpec(tuple(counts), face_up, rules.id)
