"""Deals of the Love Letter engine: a seeded permutation of the deck, and the card its
pending chance node takes (solver/sim/playout.py's docstring: "Deals")."""

from __future__ import annotations

import numpy as np
from numba import njit

from spiel_game import layout as L

from solver.sim.rng import next_below, stream_seed

_JIT = dict(cache=True, nogil=True)


def deck_cards(initial: np.ndarray) -> np.ndarray:
    """The deck of a game as a sorted list of character ids (one entry per copy)."""
    counts = initial[L.S_DECK_COUNTS:L.S_DECK_COUNTS + L.MAX_CHARS]
    return np.repeat(np.arange(L.MAX_CHARS, dtype=np.int32), counts)


@njit(**_JIT)
def shuffle(cards, rng, out):
    """out = a uniformly random permutation of cards (Fisher-Yates) from the stream rng
    (advanced in place)."""
    out[:] = cards
    for i in range(len(out) - 1, 0, -1):
        j = next_below(rng, i + 1)
        out[i], out[j] = out[j], out[i]


@njit(**_JIT)
def shuffled(cards, seed, purpose, index, out):
    """out = a uniformly random permutation of cards (Fisher-Yates) for the stream key."""
    rng = np.empty(1, dtype=np.uint64)
    rng[0] = stream_seed(seed, purpose, index)
    shuffle(cards, rng, out)


# Inlined (numba level) into the play-out hooks' chance: a call more per card cost
# tournaments about 2% of their rounds/s.
@njit(inline="always", **_JIT)
def dealt_card(s, order):
    """The card the pending chance node takes from the deal `order` (solver/sim/playout.py's
    docstring)."""
    if s[L.S_CHANCE_KIND] == L.CH_SET_ASIDE_LOOK:
        c = order[0]
    else:
        c = order[len(order) - s[L.S_UNKNOWN_DECK]]
    if s[L.S_POOL + c] <= 0:
        raise RuntimeError("deal order and engine pool disagree")
    return c
