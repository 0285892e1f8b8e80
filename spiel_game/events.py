"""Who sees what of each logged event (docs/RULES.md R2, R10), and how it reads.

The engine logs every event with full detail. `redact` hides what one viewer does not
see; information-state strings, tensors and solver keys are all built from it, so they
agree by construction.
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np

from . import layout as L
from .cards import CHARACTERS

HIDDEN = -2  # a field that exists but the viewer does not see

# Per event kind: are its card fields seen only by the ACTOR (the OTHER too for a trade),
# and does EXTRA hold a card too. Lookup tables indexed by kind, for speed.
_PRIVATE_TO_ACTOR = np.zeros(L.NUM_EVENT_KINDS, dtype=bool)
_PRIVATE_TO_ACTOR[[L.E_DRAW, L.E_SEE, L.E_SEE_SET_ASIDE, L.E_KEEP, L.E_RETURN]] = True
_PRIVATE_TO_BOTH = np.zeros(L.NUM_EVENT_KINDS, dtype=bool)
_PRIVATE_TO_BOTH[L.E_TRADE] = True
_TWO_CARD_KINDS = np.zeros(L.NUM_EVENT_KINDS, dtype=bool)
_TWO_CARD_KINDS[[L.E_RETURN, L.E_TRADE]] = True


class Event(NamedTuple):
    kind: int
    actor: int
    other: int
    card: int
    extra: int


def log_array(state_array: np.ndarray) -> np.ndarray:
    """The raw event log, shape (events, 5): KIND, ACTOR, OTHER, CARD, EXTRA."""
    n = int(state_array[L.S_EVENT_N])
    return state_array[L.S_EVENTS:L.S_EVENTS + n * L.EVENT_SIZE].reshape(n, L.EVENT_SIZE)


def redact(log: np.ndarray, viewer: int) -> np.ndarray:
    """A copy of the log as `viewer` sees it: unseen card fields become HIDDEN.

    The one place visibility is decided; strings, tensors and solver keys use it.
    viewer -1 sees no private field.
    """
    out = log.copy()
    kind, actor, other = log[:, L.EV_KIND], log[:, L.EV_ACTOR], log[:, L.EV_OTHER]
    unseen = (_PRIVATE_TO_ACTOR[kind] & (actor != viewer)) | (
        _PRIVATE_TO_BOTH[kind] & (actor != viewer) & (other != viewer))
    card = out[:, L.EV_CARD]
    card[unseen & (card >= 0)] = HIDDEN
    extra = out[:, L.EV_EXTRA]
    extra[unseen & _TWO_CARD_KINDS[kind] & (extra >= 0)] = HIDDEN
    return out


def events(state_array: np.ndarray, viewer: int | None = None) -> list[Event]:
    """The log as Event tuples, redacted for `viewer` (full detail when None)."""
    log = log_array(state_array)
    if viewer is not None:
        log = redact(log, viewer)
    return [Event(*row) for row in log.tolist()]


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
