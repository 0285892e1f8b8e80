"""What a sarlaccs_pit player sees, as compiled functions over the engine's state, and the
heuristics' choices (compiled, so the play-out loop and the OpenSpiel policies share one
code).

Every function reads only public facts (the board, the heroes, the guards, Jabba, the
points, the discard pile) and the deciding player's own hand (docs/RULES.md S12).

A space's worth to the mover (`space_value`): its row (S9's rows: larger nearer the Top
Deck), plus CHALLENGE_BONUS where a challengeable guard touches it (S6), plus
CHALLENGE_BONUS where Jabba touches it once every guard is gone and the mover will still
hold The Force (S11), less BLOCK_PENALTY on a line Jabba blocks (S9).

Heuristics (ids below; each deterministic, the first best action on a tie, but `uniform`):
- `uniform`: every legal action alike.
- `always_challenge`: plays the card whose best end is worth the most, so it challenges
  whenever a card can take it next to a guard; sends Jabba to the first line that is not
  its own; plays The Force on Jabba.
- `save_force`: as always_challenge, but plays The Force for a move only when no other
  card has an effect: it keeps it for Jabba (S11: only The Force defeats him).
- `block_leader`: as always_challenge, but sends Jabba to the grey space of the line of
  the opponent with the most Jedi points (ties: the one nearest the Top Deck), blocking
  them (S9).
"""

from __future__ import annotations

import numpy as np
from numba import njit

from spiel_game.sarlacc import engine
from spiel_game.sarlacc.layout import (ANY_SPACE, CHALLENGE, CHANGE_PLACES, DETENTION,
                                       DISCARD, DRAW_ON_JABBA, FORCE, FORCE_ON_JABBA,
                                       FORCE_RANGE, JABBA_TO, MAX_DEGREE, MOVE, MOVE_RETREAT,
                                       NUM_KINDS, PASS, PH_GUARD, PH_JABBA_FIGHT,
                                       PH_JABBA_MOVE, PH_MOVE, PH_PLAY, PH_TARGET, PLAY,
                                       RETREAT, S_CUR, S_GREY, S_GUARD, S_GUARDS_LEFT,
                                       S_HAND, S_JABBA, S_LINE, S_MOVE_CARD, S_NEIGHBOURS,
                                       S_NUM_PLAYERS, S_NUM_SPACES, S_PHASE, S_POINTS, S_POS,
                                       S_DEGREE, S_ROW, TAKE_FORCE, TARGET)

_JIT = dict(cache=True, nogil=True)

UNIFORM, ALWAYS_CHALLENGE, SAVE_FORCE, BLOCK_LEADER = range(4)
HEURISTIC_NAMES = ("uniform", "always_challenge", "save_force", "block_leader")
CHALLENGE_BONUS = 100.0
BLOCK_PENALTY = 3.0
SAVE_FORCE_COST = 1000.0  # below every other play: The Force moves only as a last resort
DETENTION_VALUE = -1.0  # below the entry (row 0)


@njit(**_JIT)
def _bit(space):
    return np.int64(1) << np.int64(space)


@njit(**_JIT)
def holds(s, p, kind):
    return s[S_HAND + p * NUM_KINDS + kind]


@njit(**_JIT)
def next_to_challenge(s, space, with_force):
    """Whether a hero ending its move on `space` challenges (S6, S11): a challengeable
    guard touches it, or, every guard gone, Jabba does and the hero holds The Force."""
    if s[S_GUARDS_LEFT] == 0:
        return with_force and engine.adjacent(s, space, s[S_JABBA])
    for i in range(s[S_DEGREE + space]):
        if engine.challengeable(s, s[S_NEIGHBOURS + space * MAX_DEGREE + i]):
            return True
    return False


@njit(**_JIT)
def on_blocked_line(s, space):
    """S9: `space` is on a line whose grey space holds Jabba."""
    line = s[S_LINE + space]
    return line >= 0 and s[S_GREY + line] == s[S_JABBA]


@njit(**_JIT)
def space_value(s, space, challenge, with_force):
    """The heuristics' worth of ending a move on `space` (the module's docstring)."""
    if space == DETENTION:
        return DETENTION_VALUE
    v = float(s[S_ROW + space])
    if challenge and next_to_challenge(s, space, with_force):
        v += CHALLENGE_BONUS
    if on_blocked_line(s, space):
        v -= BLOCK_PENALTY
    return v


@njit(**_JIT)
def best_end(s, mask, challenge, with_force):
    """(the space of `mask` worth the most, its value); (-1, -inf) for an empty mask."""
    best, value = -1, -np.inf
    for space in range(s[S_NUM_SPACES]):
        if (mask & _bit(space)) != 0:
            v = space_value(s, space, challenge, with_force)
            if v > value:
                best, value = space, v
    return best, value


@njit(**_JIT)
def card_mask(s, p, kind, masks):
    """The ends of a move with card `kind` (masks: walk_masks of p, filled)."""
    if kind == ANY_SPACE:
        return engine.empty_mask(s)
    if kind == FORCE:
        mask = np.int64(0)
        for k in range(1, FORCE_RANGE + 1):
            mask |= masks[k]
        return mask
    return masks[kind + 1]


@njit(**_JIT)
def leader(s, p):
    """The opponent of p with the most Jedi points (ties: the one on the highest row)."""
    best, points, row = -1, -1, -2
    for q in range(s[S_NUM_PLAYERS]):
        if q == p:
            continue
        pos = s[S_POS + q]
        r = -1 if pos == DETENTION else s[S_ROW + pos]
        if s[S_POINTS + q] > points or (s[S_POINTS + q] == points and r > row):
            best, points, row = q, s[S_POINTS + q], r
    return best


@njit(**_JIT)
def play_value(s, p, action, kind_of_heuristic, masks):
    """The heuristics' worth of a play-phase action (S4, S7, S9)."""
    pos = s[S_POS + p]
    here = space_value(s, pos, False, False)
    if action == PASS or action >= DISCARD and action < PASS:
        return here
    if action == RETREAT:
        _, v = best_end(s, engine.retreat_mask(s, p), False, False)
        return v
    kind = action - PLAY
    force_after = holds(s, p, FORCE) - (1 if kind == FORCE else 0) > 0
    if kind == CHANGE_PLACES:
        best = here
        for q in range(s[S_NUM_PLAYERS]):
            if q != p:
                best = max(best, space_value(s, s[S_POS + q], False, False))
        return best
    if kind == TAKE_FORCE:  # Take The Force: stay, and hold The Force for Jabba
        return here + (0.5 if holds(s, p, FORCE) == 0 else -0.5)
    _, v = best_end(s, card_mask(s, p, kind, masks), True, force_after)
    if kind == FORCE and kind_of_heuristic == SAVE_FORCE:
        v -= SAVE_FORCE_COST
    return v


@njit(**_JIT)
def heuristic_action(s, kind, legal, n):
    """The index into legal[:n] of heuristic `kind`'s action (not `uniform`)."""
    ph = s[S_PHASE]
    p = s[S_CUR]
    best, value = 0, -np.inf
    if ph == PH_PLAY:
        masks = np.zeros(FORCE_RANGE + 1, dtype=np.int64)
        engine.walk_masks(s, p, masks)
        for i in range(n):
            v = play_value(s, p, legal[i], kind, masks)
            if v > value:
                best, value = i, v
        return best
    if ph == PH_MOVE:
        card = s[S_MOVE_CARD]
        force_after = holds(s, p, FORCE) > 0
        for i in range(n):
            v = space_value(s, legal[i] - MOVE, card != MOVE_RETREAT, force_after)
            if v > value:
                best, value = i, v
        return best
    if ph == PH_TARGET:
        if s[S_MOVE_CARD] != CHANGE_PLACES:  # Take The Force: ask the leader
            q = leader(s, p)
            for i in range(n):
                if legal[i] == TARGET + q:
                    return i
            return 0
        for i in range(n):
            v = space_value(s, s[S_POS + legal[i] - TARGET], False, False)
            if v > value:
                best, value = i, v
        return best
    if ph == PH_GUARD:  # the guard worth the most points (S6), the first on a tie
        for i in range(n):
            v = float(s[S_GUARD + legal[i] - CHALLENGE])
            if v > value:
                best, value = i, v
        return best
    if ph == PH_JABBA_MOVE:
        own = -1 if s[S_POS + p] == DETENTION else s[S_LINE + s[S_POS + p]]
        if kind == BLOCK_LEADER:
            q = leader(s, p)
            pos = s[S_POS + q]
            target = -1 if pos == DETENTION else s[S_LINE + pos]
            if target >= 0 and target != own:
                for i in range(n):
                    if legal[i] == JABBA_TO + target:
                        return i
        for i in range(n):
            if legal[i] - JABBA_TO != own:
                return i
        return 0
    if ph == PH_JABBA_FIGHT:
        for i in range(n):
            if legal[i] == FORCE_ON_JABBA:
                return i
        for i in range(n):
            if legal[i] == DRAW_ON_JABBA:
                return i
    return 0


@njit(**_JIT)
def heuristic_probs(s, kind, legal, n, out):
    """Heuristic `kind`'s probabilities over legal[:n], into out[:n]."""
    if kind == UNIFORM:
        for i in range(n):
            out[i] = 1.0 / n
        return
    for i in range(n):
        out[i] = 0.0
    out[heuristic_action(s, kind, legal, n)] = 1.0
