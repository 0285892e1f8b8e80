"""Abstract information-state keys, compiled: what MCCFR's tables are indexed by.

Level `identity` (perfect recall): a 64-bit hash of the acting player's redacted event log
(spiel_game.events.redact), i.e. of OpenSpiel's information-state string. Two states
get the same key exactly when that player cannot tell them apart (up to 64-bit hash
collisions: about n^2 / 2^65 expected among n keys, ~3e-4 at 10^8 keys).

Coarser levels (for the full game) are to come with their measured loss.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from spiel_game import layout as L
from spiel_game.events import _PRIVATE_TO_ACTOR, _PRIVATE_TO_BOTH, _TWO_CARD_KINDS

IDENTITY = 0
LEVELS = {"identity": IDENTITY}

_FNV_OFFSET = np.uint64(0xCBF29CE484222325)
_FNV_PRIME = np.uint64(0x100000001B3)
_HIDDEN = -2

# numba freezes global arrays as constants: one visibility table for numpy and compiled code.
_ACTOR_ONLY = _PRIVATE_TO_ACTOR.astype(np.int8)
_BOTH = _PRIVATE_TO_BOTH.astype(np.int8)
_TWO_CARDS = _TWO_CARD_KINDS.astype(np.int8)


@njit(cache=True, inline="always")
def _mix(h, value):
    return (h ^ np.uint64(value + 3)) * _FNV_PRIME  # value >= -2


@njit(cache=True)
def identity_key(s, player):
    """Hash of (player, the log as `player` sees it); never 0 (0 marks an empty slot)."""
    h = _mix(_FNV_OFFSET, player)
    for i in range(s[L.S_EVENT_N]):
        base = L.S_EVENTS + i * L.EVENT_SIZE
        kind = s[base + L.EV_KIND]
        actor = s[base + L.EV_ACTOR]
        other = s[base + L.EV_OTHER]
        card = s[base + L.EV_CARD]
        extra = s[base + L.EV_EXTRA]
        unseen = ((_ACTOR_ONLY[kind] == 1 and actor != player)
                  or (_BOTH[kind] == 1 and actor != player and other != player))
        if unseen:
            if card >= 0:
                card = _HIDDEN
            if _TWO_CARDS[kind] == 1 and extra >= 0:
                extra = _HIDDEN
        h = _mix(h, kind)
        h = _mix(h, actor)
        h = _mix(h, other)
        h = _mix(h, card)
        h = _mix(h, extra)
    key = np.int64(h >> np.uint64(1))  # non-negative int64
    return key if key != 0 else np.int64(1)


@njit(cache=True)
def abstract_key(s, player, level):
    """The key of the acting player's information state at `level`."""
    return identity_key(s, player)
