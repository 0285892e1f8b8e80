"""Who sees what of each logged event (RULES.md R2, R10), and how it reads.

The engine logs every event with full detail. `visible_event` redacts it for one
viewer; information-state strings and tensors are both built from that one function,
so they agree by construction.
"""

from __future__ import annotations

from typing import NamedTuple

from . import layout as L
from .cards import CHARACTERS

HIDDEN = -2  # a field that exists but the viewer does not see

# Event kinds whose card fields only their ACTOR sees (the OTHER too for a trade).
_PRIVATE_TO_ACTOR = frozenset({L.E_DRAW, L.E_SEE, L.E_SEE_SET_ASIDE, L.E_KEEP,
                               L.E_RETURN})
_PRIVATE_TO_BOTH = frozenset({L.E_TRADE})
_CARD_FIELDS = {L.E_RETURN: (L.EV_CARD, L.EV_EXTRA), L.E_TRADE: (L.EV_CARD, L.EV_EXTRA)}


class Event(NamedTuple):
    kind: int
    actor: int
    other: int
    card: int
    extra: int


def events(state_array) -> list[Event]:
    n = int(state_array[L.S_EVENT_N])
    flat = state_array[L.S_EVENTS:L.S_EVENTS + n * L.EVENT_SIZE].reshape(n, L.EVENT_SIZE)
    return [Event(*map(int, row)) for row in flat]


def visible_event(event: Event, viewer: int) -> Event:
    """The event as `viewer` sees it: private card fields become HIDDEN."""
    if event.kind in _PRIVATE_TO_ACTOR:
        sees = viewer == event.actor
    elif event.kind in _PRIVATE_TO_BOTH:
        sees = viewer in (event.actor, event.other)
    else:
        return event
    if sees:
        return event
    fields = list(event)
    for index in _CARD_FIELDS.get(event.kind, (L.EV_CARD,)):
        if fields[index] >= 0:
            fields[index] = HIDDEN
    return Event(*fields)


def card_name(c: int) -> str:
    return "?" if c == HIDDEN else CHARACTERS[c].name


def describe(event: Event) -> str:
    """One event, already redacted, in words."""
    k, a, o, c, x = event
    name = card_name
    if k == L.E_FACE_UP:
        return f"face-up {name(c)}"
    if k == L.E_DRAW:
        return f"p{a} gets {name(c)} ({L.SOURCE_NAMES[x]})"
    if k == L.E_PLAY:
        return f"p{a} plays {name(c)}"
    if k == L.E_TARGET:
        return f"p{a} chooses p{o}"
    if k == L.E_TARGET_SET_ASIDE:
        return f"p{a} chooses the set-aside card"
    if k == L.E_NAME:
        return f"p{a} names {x}"
    if k == L.E_MISS:
        return f"p{a} stays in"
    if k == L.E_OUT:
        return f"p{a} is out with {name(c)}"
    if k == L.E_SEE:
        return f"p{a} sees p{o}'s {name(c)}" if c != HIDDEN else f"p{a} sees p{o}'s hand"
    if k == L.E_SEE_SET_ASIDE:
        return f"p{a} sees set-aside {name(c)}"
    if k == L.E_TIE:
        return f"p{a} and p{o} tie"
    if k == L.E_TRADE:
        if c == HIDDEN:
            return f"p{a} trades hands with p{o}"
        return f"p{a} trades {name(c)} to p{o} for {name(x)}"
    if k == L.E_NO_TRADE:
        return f"p{a} does not trade with p{o}"
    if k == L.E_STEAL:
        return f"p{a} takes p{o}'s {name(c)}"
    if k == L.E_KEEP:
        return f"p{a} keeps {name(c)}"
    if k == L.E_RETURN:
        if o == 1:
            return f"p{a} returns {name(c)} to the bottom"
        if c == HIDDEN:
            return f"p{a} returns 2 cards to the bottom"
        return f"p{a} returns {name(c)} above {name(x)} to the bottom"
    if k == L.E_NO_EFFECT:
        return f"p{a}'s {name(c)} has no effect"
    if k == L.E_ROUND_END:
        return ("round ends: " + ("", "last player", "deck empty", "nobody left")[x])
    raise ValueError(f"unknown event kind {k}")
