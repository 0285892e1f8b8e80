"""Abstract information-state keys for sarlaccs_pit's MCCFR tables (compiled).

Levels:
- `exact`: the player's whole redacted event log (S12: a card dealt or drawn to another
  player hidden, a Jabba card shown) and the set of legal actions: perfect recall, the
  partition of OpenSpiel's information-state strings. Every legal action is a choice.
  For reduced games and checks.
- `compact`: position features, cards in hand and guards left. The table decides, at a
  play (S4), among at most three plays: the one `always_challenge` makes (the card whose
  best end is worth the most, a challenge first), the best without The Force (saving it
  for Jabba, S11) and the best that does not challenge (S6: a lost challenge sends the
  hero to the Detention Area), each where it differs from those before; and where a
  drawn Jabba card sends Jabba (S8), among the legal lines. The rest is played as the
  `save_force` heuristic plays it (features.py), one choice, no key: where to move with
  the card played (its best end), whom to change places with or ask for The Force, which
  of two guards to challenge, and The Force on Jabba (it defeats him at once, S11). Its
  key: the phase; which of the three plays there are and, for each, whether it
  challenges and whether it spends The Force; the Force cards held (0, 1, 2+, S12: the
  player's own hand); the Gamorreans left (0, 1-3, 4-7, 8+); whether Nikto and Boba
  Fett stand; whether the hero is blocked (S9); its row (quartered); how far ahead the
  opponent nearest the Top Deck is (halved, clipped to +-2); the points margin over the
  best opponent (clipped to +-2); at a Jabba move each hero's line and the legal lines.

Every key mixes the phase, the level and what its choices are (the legal actions, or
`compact`'s plays), so a key's block always has as many entries as its decision has
choices.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from spiel_game.sarlacc import engine
from spiel_game.sarlacc.layout import (BOBA_FETT, DETENTION, E_DEAL, E_DRAW,
                                       EVENT_SIZE, FORCE, FORCE_RANGE, HIDDEN, JABBA, NIKTO,
                                       NUM_ACTIONS, NUM_KINDS, PH_JABBA_MOVE, PH_PLAY,
                                       PLAY, S_BLOCKED, S_CUR, S_EVENT_N,
                                       S_EVENTS, S_GAMORREANS_LEFT, S_GUARD, S_HAND,
                                       S_LINE, S_NUM_PLAYERS, S_NUM_SPACES, S_PHASE,
                                       S_POINTS, S_POS, S_ROW)

from solver.abstraction.hashing import FNV_OFFSET, finish, mix
from solver.sarlaccs_pit.features import (ALWAYS_CHALLENGE, CHALLENGE_BONUS, SAVE_FORCE,
                                          heuristic_action, play_value)
from solver.policies.engine_playout import only_choice, table_row_probs

_JIT = dict(cache=True, nogil=True)
EXACT, COMPACT = range(2)
LEVELS = ("exact", "compact")
VERSION = 1  # bump when a key changes: policy files name the version they were made with
MAX_CHOICES = NUM_ACTIONS  # a decision's choices at any level (at most its legal actions)
BASE_HEURISTIC = SAVE_FORCE  # what `compact` plays where the table does not decide


def level_id(name: str) -> int:
    if name not in LEVELS:
        raise ValueError(f"abstraction level {name!r}: known are {', '.join(LEVELS)}")
    return LEVELS.index(name)


@njit(**_JIT)
def _play_macros(s, acts, n, out):
    """`compact`'s choices at a play (S4): indices into acts[:n], into out, of (1) the
    play `always_challenge` makes (features.py: the card whose best end is worth the
    most, a challenge first), (2) the best play without The Force, (3) the best play that
    does not challenge; each only where it differs from those before. Returns (their
    number, a code of which are there and what they are: the key's)."""
    p = s[S_CUR]
    masks = np.zeros(FORCE_RANGE + 1, dtype=np.int64)
    engine.walk_masks(s, p, masks)
    best = np.full(3, -1, dtype=np.int64)
    value = np.full(3, -np.inf)
    challenges = np.zeros(n, dtype=np.bool_)
    for i in range(n):
        v = play_value(s, p, acts[i], ALWAYS_CHALLENGE, masks)
        kind = acts[i] - PLAY
        challenges[i] = v >= CHALLENGE_BONUS / 2  # the bonus, less a penalty
        if v > value[0]:
            best[0], value[0] = i, v
        if kind != FORCE and v > value[1]:
            best[1], value[1] = i, v
        if not challenges[i] and v > value[2]:
            best[2], value[2] = i, v
    m = 0
    code = 0
    for j in range(3):
        i = best[j]
        fresh = i >= 0
        for k in range(m):
            if out[k] == i:
                fresh = False
        if fresh:
            out[m] = i
            m += 1
            kind = acts[i] - PLAY
            code = code * 8 + 1 + j + 3 * (1 if challenges[i] else 0) + (
                4 if kind == FORCE else 0)
    return m, code


@njit(**_JIT)
def table_actions(s, acts, n, level, out):
    """The table's choices at the decision in s as indices into its legal actions acts[:n],
    into out; their number. Every legal action, but at `compact` a play's `_play_macros`
    and, outside a play and a Jabba move, the base heuristic's one action."""
    ph = s[S_PHASE]
    if level == EXACT or ph == PH_JABBA_MOVE or n == 1:
        for i in range(n):
            out[i] = i
        return n
    if ph == PH_PLAY:
        m, _ = _play_macros(s, acts, n, out)
        return m
    out[0] = heuristic_action(s, BASE_HEURISTIC, acts, n)
    return 1


@njit(**_JIT)
def _row(s, q):
    pos = s[S_POS + q]
    return -1 if pos == DETENTION else s[S_ROW + pos]


@njit(**_JIT)
def _line(s, q):
    pos = s[S_POS + q]
    return -2 if pos == DETENTION else s[S_LINE + pos]


@njit(**_JIT)
def _guard_standing(s, kind):
    for space in range(s[S_NUM_SPACES]):
        if s[S_GUARD + space] == kind + 1:
            return 1
    return 0


@njit(**_JIT)
def info_key(s, acts, n, level):
    """The abstract key of the decision in s (legal actions acts[:n]) for its player."""
    p = s[S_CUR]
    ph = s[S_PHASE]
    h = mix(FNV_OFFSET, level + 1)
    h = mix(h, ph)
    if level == EXACT or ph == PH_JABBA_MOVE:  # the choices are the legal actions
        h = mix(h, n)
        for i in range(n):
            h = mix(h, acts[i])
    if level == EXACT:
        h = mix(h, p)
        for e in range(s[S_EVENT_N]):
            at = S_EVENTS + e * EVENT_SIZE
            kind, who, value = s[at], s[at + 1], s[at + 2]
            if who != p and (kind == E_DEAL or (kind == E_DRAW and value != JABBA)):
                value = HIDDEN  # S12: another player's card is not seen
            h = mix(h, kind)
            h = mix(h, who)
            h = mix(h, value)
        return finish(h)
    num = s[S_NUM_PLAYERS]
    best_row, best_points = -1, -1
    for q in range(num):
        if q != p:
            best_row = max(best_row, _row(s, q))
            best_points = max(best_points, s[S_POINTS + q])
    own_row = _row(s, p)
    gamorreans = s[S_GAMORREANS_LEFT]
    h = mix(h, 0 if gamorreans == 0 else (1 if gamorreans <= 3 else
                                          (2 if gamorreans <= 7 else 3)))
    h = mix(h, _guard_standing(s, NIKTO) * 2 + _guard_standing(s, BOBA_FETT))
    h = mix(h, max(-2, min(2, s[S_POINTS + p] - best_points)))
    h = mix(h, (own_row + 1) // 4)
    h = mix(h, max(-2, min(2, (best_row - own_row) // 2)))
    if ph == PH_JABBA_MOVE:
        for q in range(num):
            h = mix(h, _line(s, (p + q) % num))
        return finish(h)
    h = mix(h, s[S_BLOCKED])
    h = mix(h, min(s[S_HAND + p * NUM_KINDS + FORCE], 2))
    scratch = np.empty(3, dtype=np.int32)
    _, code = _play_macros(s, acts, n, scratch)
    return finish(mix(h, code))


@njit(**_JIT)
def table_probs(s, acts, n, level, keys, starts, num_actions, probs, choices, out):
    """A table's probabilities over the legal actions acts[:n] of the decision in s, into
    out[:n] (0 for an action the abstraction does not offer); False, with out uniform
    over the offered choices, if the key is not in the table. keys sorted; the row of
    keys[j] is probs[starts[j]:starts[j] + num_actions[j]]. choices: scratch, MAX_CHOICES
    ints."""
    m = table_actions(s, acts, n, level, choices)
    if m == 1:  # no choice: no key
        return only_choice(n, choices, out)
    return table_row_probs(info_key(s, acts, n, level), m, n, choices, keys, starts,
                           num_actions, probs, out)


def state_key(state, level: str) -> int:
    """The abstract key of a pyspiel sarlaccs_pit state's decision (tests, policies)."""
    s = state.array
    acts = np.empty(NUM_ACTIONS, dtype=np.int32)
    n = engine.legal_actions(s, acts)
    return int(info_key(s, acts, n, level_id(level)))

