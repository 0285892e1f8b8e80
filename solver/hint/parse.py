"""Reading what a player types: card names, and a log given as text.

The first step of a hint's input, below everything else in solver/hint/: situation.py
builds a `Situation` with it, log.py reads the lines further for the belief engine. It
imports nothing that builds on a Situation, so the modules above it form no cycle.
"""

from __future__ import annotations

import dataclasses
import re
from spiel_game.cards import JABBAS_PALACE, RuleSet

class SituationError(ValueError):
    """A situation that cannot happen under the rules, or that cannot be read."""


def card(name, rules: RuleSet = JABBAS_PALACE) -> int:
    """Character id from a name in any usual form, in the rule set's cards;
    SituationError with suggestions (and the game a card of the other one is from)."""
    try:
        return rules.character_id(str(name))
    except ValueError as err:
        raise SituationError(str(err)) from None


# The prefix of an information-state string (spiel_game/game.py `string_from`, perfect
# recall): "p1 hand:[Jabba the Hutt,Guard] | " before the events; "?" when hands are
# not private.
_PASTED = re.compile(r"\s*p(?P<seat>\d+)\s+hand:\s*\[(?P<hand>[^\]]*)\]\s*\|", re.I)


@dataclasses.dataclass(frozen=True)
class LogText:
    """A log as given, read into event lines; `seat` and `hand` are what a pasted
    information-state string's prefix says (None without a prefix, or hand "?")."""

    lines: tuple[str, ...]
    seat: int | None = None
    hand: tuple[str, ...] | None = None

    def fill(self, data: dict) -> dict:
        """`data` (a situation mapping) with the log as lines, and the seat and hand
        the prefix names where `data` gives none."""
        out = {**data, "log": self.lines}
        if self.seat is not None:
            out.setdefault("seat", self.seat)
        if self.hand is not None:
            out.setdefault("hand", list(self.hand))
        return out

    def check(self, sit) -> None:
        """The seat and hand the Situation `sit` gives must be those the prefix names."""
        if self.seat is not None and sit.seat != self.seat:
            raise SituationError(f"seat is {sit.seat}, but the pasted information state is "
                                 f"p{self.seat}'s: give --seat {self.seat} or leave it out")
        if self.hand is not None and sorted(sit.hand) != sorted(card(c, sit.rules)
                                                                for c in self.hand):
            given = sit.names(sit.hand)
            raise SituationError(f"hand is {given}, but the pasted information state says "
                                 f"{', '.join(self.hand)}: leave the hand out or make them "
                                 "agree")


def read_log(value) -> LogText:
    """The event lines of a log given as text (events separated by ';' or new lines) or
    as a list of lines; a pasted information-state string, `pX hand:[...] | events`
    (as `jabba play --viewer X` and `information_state_string(X)` print it), may stand
    in place of the first line."""
    if isinstance(value, (list, tuple)) and all(isinstance(x, str) for x in value):
        value = "\n".join(value)
    if not isinstance(value, str):
        raise SituationError(f"log: expected text or a list of lines, got {value!r}")
    seat = hand = None
    m = _PASTED.match(value)
    if m:
        seat = int(m["seat"])
        names = [x.strip() for x in m["hand"].split(",") if x.strip()]
        hand = None if names == ["?"] else tuple(names)
        value = value[m.end():]
    lines = tuple(x.strip() for x in re.split(r"[;\n]", value) if x.strip())
    return LogText(lines, seat, hand)


def pasted_seat(value) -> int | None:
    """The seat a pasted information-state string names, or None (any other log)."""
    if isinstance(value, (list, tuple)) and value:
        value = value[0]
    m = _PASTED.match(value) if isinstance(value, str) else None
    return int(m["seat"]) if m else None
