"""Abstract information-state keys for han_solo's MCCFR tables (compiled).

Levels:
- `exact`: the player's whole redacted event log (a card dealt, drawn or redealt to
  another player hidden, H2/H3): perfect recall, the same partition as OpenSpiel's
  information-state strings. For reduced decks and checks.
- `fine`: the hand exactly (sorted card kinds), the discard pile's top card, the other
  players' hand sizes, turns left, the dice.
- `coarse`: the hand's total (clipped to +-15), its card count, whether it holds a blue
  zero and whether it holds the Best pattern (a green n and a red n beside a blue 0, H4),
  the discard top's value, turns left, the dice.

Every key also mixes the phase, the seat and the set of legal actions, so a key's block
always has as many entries as its decision has legal actions (and in a discard decision
the set of card kinds held is part of the key at every level: which card to put down is
the decision).
"""

from __future__ import annotations

import numpy as np
from numba import njit

from spiel_game.han_solo import engine
from spiel_game.han_solo.layout import (E_DEAL, E_DRAW, E_REDEAL, EVENT_SIZE, GREEN, HIDDEN,
                                        MAX_HAND, NUM_ACTIONS, RED, S_CUR, S_DICE,
                                        S_DISCARD, S_DISCARD_N, S_EVENT_N, S_EVENTS, S_HAND,
                                        S_HAND_N, S_NUM_PLAYERS, S_PHASE, S_PILE_N)

from solver.abstraction.hashing import FNV_OFFSET, finish, mix
from solver.han_solo.features import turns_left

_JIT = dict(cache=True, nogil=True)
EXACT, FINE, COARSE = range(3)
LEVELS = ("exact", "fine", "coarse")
VERSION = 1  # bump when a key changes: policy files name the version they were made with
TOTAL_CLIP = 15


def level_id(name: str) -> int:
    if name not in LEVELS:
        raise ValueError(f"abstraction level {name!r}: known are {', '.join(LEVELS)}")
    return LEVELS.index(name)


@njit(**_JIT)
def holds_best_pattern(s, p):
    """H4: a blue 0 and, for some n, a green n and a red n in p's hand."""
    base = S_HAND + p * MAX_HAND
    k = s[S_HAND_N + p]
    blue = False
    for i in range(k):
        if s[base + i] == 0:
            blue = True
    if not blue:
        return False
    for i in range(k):
        c = s[base + i]
        if GREEN <= c < RED:
            for j in range(k):
                if s[base + j] == c - GREEN + RED:
                    return True
    return False


@njit(**_JIT)
def info_key(s, acts, n, level):
    """The abstract key of the decision in s (legal actions acts[:n]) for its player."""
    p = s[S_CUR]
    h = mix(FNV_OFFSET, level)
    h = mix(h, s[S_PHASE])
    h = mix(h, p)
    mask = 0
    for i in range(n):
        mask |= 1 << acts[i]
    h = mix(h, mask)
    if level == EXACT:
        for e in range(s[S_EVENT_N]):
            at = S_EVENTS + e * EVENT_SIZE
            kind = s[at]
            who = s[at + 1]
            value = s[at + 2]
            if (kind == E_DEAL or kind == E_DRAW or kind == E_REDEAL) and who != p:
                value = HIDDEN  # H2/H3: another player's card is not seen
            h = mix(h, kind)
            h = mix(h, who)
            h = mix(h, value)
        return finish(h)
    h = mix(h, turns_left(s))
    h = mix(h, s[S_DICE])
    top = -1
    if s[S_DISCARD_N] > 0:
        top = s[S_DISCARD + s[S_DISCARD_N] - 1]
    base = S_HAND + p * MAX_HAND
    k = s[S_HAND_N + p]
    if level == FINE:
        cards = np.empty(MAX_HAND, dtype=np.int32)
        for i in range(k):
            cards[i] = s[base + i]
        cards[:k].sort()
        h = mix(h, k)
        for i in range(k):
            h = mix(h, cards[i])
        h = mix(h, top)
        for q in range(s[S_NUM_PLAYERS]):
            if q != p:
                h = mix(h, s[S_HAND_N + q])
        h = mix(h, 1 if s[S_PILE_N] > 0 else 0)
        return finish(h)
    total = 0
    blue = 0
    for i in range(k):
        total += engine.value_of(s[base + i])
        if s[base + i] == 0:
            blue = 1
    h = mix(h, max(-TOTAL_CLIP, min(TOTAL_CLIP, total)))
    h = mix(h, k)
    h = mix(h, blue)
    h = mix(h, 1 if holds_best_pattern(s, p) else 0)
    h = mix(h, 100 if top < 0 else engine.value_of(top))
    return finish(h)


def state_key(state, level: str) -> int:
    """The abstract key of a pyspiel han_solo state's decision (for tests and policies)."""
    s = state._s
    acts = np.empty(NUM_ACTIONS, dtype=np.int32)
    n = engine.legal_actions(s, acts)
    return int(info_key(s, acts, n, level_id(level)))
