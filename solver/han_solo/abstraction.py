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
- `compact`: a key that saturates on the full deck, with fewer choices at a discard
  (`table_actions`): keep, or put down one of the two cards whose loss leaves the
  best-ranked hands (H4/H5, `features.key_score`). Its key: the hand's total (clipped to
  +-10), card count, blue 0 and Best pattern flags, turns left, the dice; at a turn also
  each other player's hand size and whether their last turn was a stand, and the discard
  top's value; at a discard the two candidate cards' values (and whether each leaves the
  Best hand). A pick is no decision at `compact`: the token worth the most.
- `many`: `compact` for 3 to 6 players, pooling the seats: the same choices, but no seat
  (only whether the player moves last in a cycle), and at a turn the others in two
  counts capped at 2, how many stood on their last turn and how many hold more than two
  cards, instead of each one's hand size and stand (at `compact` the seat and the others'
  combinations multiply the keys with every player added).

Every key also mixes the phase, the seat and the set of legal actions, so a key's block
always has as many entries as its decision has choices; at `exact`, `fine` and `coarse`
the choices are the legal actions (so in a discard decision the set of card kinds held
is part of the key: which card to put down is the decision), at `compact` the
`table_actions`. That set of kinds is what made `coarse` grow without bound on the full
deck: 360,000 distinct discard keys in 300,000 random rounds against 17,000 without it
(docs/han-solo.md "Abstraction and its loss").
"""

from __future__ import annotations

import numpy as np
from numba import njit

from spiel_game.han_solo import engine
from spiel_game.han_solo.engine import KEY_BEST
from spiel_game.han_solo.layout import (DISCARD, E_DEAL, E_DRAW, E_REDEAL, E_STAND, E_TAKE,
                                        EVENT_SIZE, GREEN, HIDDEN, KEEP, MAX_HAND,
                                        NUM_ACTIONS, NUM_CARD_KINDS, NUM_TOKEN_KINDS,
                                        PH_DISCARD, PH_PICK, PICK, RED, S_BEST, S_CUR, S_DICE,
                                        S_DISCARD, S_DISCARD_N, S_EVENT_N, S_EVENTS, S_HAND,
                                        S_HAND_N, S_NUM_PLAYERS, S_PHASE, S_PILE_N, S_POT,
                                        S_TOKEN_VALUE)

from solver.abstraction.hashing import FNV_OFFSET, finish, mix
from solver.han_solo.features import key_score, turns_left
from solver.policies.engine_playout import only_choice, table_row_probs

_JIT = dict(cache=True, nogil=True)
EXACT, FINE, COARSE, COMPACT, MANY = range(5)
LEVELS = ("exact", "fine", "coarse", "compact", "many")
VERSION = 2  # bump when a key changes: policy files name the version they were made with
TOTAL_CLIP = 15
COMPACT_CLIP = 10
MAX_CHOICES = NUM_ACTIONS  # a decision's choices at any level (at most its legal actions)


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
def stood_last(s, q):
    """Whether player q's last turn was a stand (1), a draw or a take (0), or q has not
    played a turn yet (-1): public, from the event log."""
    for e in range(s[S_EVENT_N] - 1, -1, -1):
        at = S_EVENTS + e * EVENT_SIZE
        if s[at + 1] == q:
            kind = s[at]
            if kind == E_STAND:
                return 1
            if kind == E_DRAW or kind == E_TAKE:
                return 0
    return -1


@njit(**_JIT)
def best_discards(s, p):
    """The two card kinds of p's hand whose discard leaves the best-ranked hands (H4/H5 on
    features.key_score's scale; ties: the lower kind), -1 where there is none; and whether
    each leaves the Best hand."""
    base = S_HAND + p * MAX_HAND
    k = s[S_HAND_N + p]
    best = s[S_BEST]
    tmp = np.empty(MAX_HAND, dtype=np.int32)
    first, second = -1, -1
    first_score, second_score = -1e18, -1e18
    first_best, second_best = False, False
    for c in range(NUM_CARD_KINDS):
        held = False
        for i in range(k):
            if s[base + i] == c:
                held = True
        if not held:
            continue
        m = 0
        skipped = False
        for i in range(k):
            if not skipped and s[base + i] == c:
                skipped = True
                continue
            tmp[m] = s[base + i]
            m += 1
        hk = engine.hand_key(tmp, m, best)
        score = key_score(hk)
        if score > first_score:
            second, second_score, second_best = first, first_score, first_best
            first, first_score, first_best = c, score, hk >= KEY_BEST
        elif score > second_score:
            second, second_score, second_best = c, score, hk >= KEY_BEST
    return first, second, first_best, second_best


@njit(**_JIT)
def table_actions(s, acts, n, level, out):
    """The table's choices at the decision in s as indices into its legal actions acts[:n],
    into out; their number. All legal actions, but at `compact` a discard offers keep and
    the two `best_discards` only, and a pick only the token worth the most (the lowest
    kind among equals): whatever the others then take, that maximises both utilities
    (H12: every player takes one token of the pot, so a margin rises with one's own).
    `many` offers `compact`'s choices."""
    ph = s[S_PHASE]
    if level < COMPACT or (ph != PH_DISCARD and ph != PH_PICK):
        for i in range(n):
            out[i] = i
        return n
    if ph == PH_PICK:
        top = 0
        for i in range(1, n):
            if s[S_TOKEN_VALUE + acts[i] - PICK] > s[S_TOKEN_VALUE + acts[top] - PICK]:
                top = i
        out[0] = top
        return 1
    first, second, _, _ = best_discards(s, s[S_CUR])
    m = 0
    for i in range(n):
        if acts[i] == KEEP:
            out[m] = i
            m += 1
    for c in (first, second):
        if c >= 0:
            for i in range(n):
                if acts[i] == DISCARD + c:
                    out[m] = i
                    m += 1
    return m


@njit(**_JIT)
def table_probs(s, acts, n, level, keys, starts, num_actions, probs, choices, out):
    """A table's probabilities over the legal actions acts[:n] of the decision in s, into
    out[:n] (0 for an action the abstraction does not offer); False, with out uniform
    over the offered choices, if the key is not in the table. keys sorted; the row of
    keys[j] is probs[starts[j]:starts[j] + num_actions[j]]. choices: scratch, NUM_ACTIONS
    ints."""
    m = table_actions(s, acts, n, level, choices)
    if m == 1:  # no choice: no key
        return only_choice(n, choices, out)
    return table_row_probs(info_key(s, acts, n, level), m, n, choices, keys, starts,
                           num_actions, probs, out)


@njit(**_JIT)
def info_key(s, acts, n, level):
    """The abstract key of the decision in s (legal actions acts[:n]) for its player."""
    p = s[S_CUR]
    ph = s[S_PHASE]
    h = mix(FNV_OFFSET, level)
    h = mix(h, ph)
    if level >= COMPACT:
        return _compact_key(s, h, p, ph, level)
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
    h = _mix_hand(h, s, p, TOTAL_CLIP)
    h = mix(h, 100 if top < 0 else engine.value_of(top))
    return finish(h)


@njit(**_JIT)
def _mix_hand(h, s, p, clip):
    """h extended by p's hand as `coarse` and `compact` see it: the total (clipped to
    +-clip), the card count, whether it holds a blue 0 and the Best pattern (H4)."""
    base = S_HAND + p * MAX_HAND
    k = s[S_HAND_N + p]
    total = 0
    blue = 0
    for i in range(k):
        total += engine.value_of(s[base + i])
        if s[base + i] == 0:
            blue = 1
    h = mix(h, max(-clip, min(clip, total)))
    h = mix(h, k)
    h = mix(h, blue)
    return mix(h, 1 if holds_best_pattern(s, p) else 0)


@njit(**_JIT)
def _compact_key(s, h, p, ph, level):
    if ph == PH_PICK:  # never a table entry (table_actions: one choice); for callers
        for k in range(NUM_TOKEN_KINDS):
            h = mix(h, s[S_POT + k])
        return finish(h)
    if level == COMPACT:
        h = mix(h, p)
    else:  # `many`: whether p moves last in a cycle
        h = mix(h, 1 if p == s[S_NUM_PLAYERS] - 1 else 0)
    h = mix(h, turns_left(s))
    h = mix(h, s[S_DICE])
    h = _mix_hand(h, s, p, COMPACT_CLIP)
    if ph == PH_DISCARD:
        first, second, first_best, second_best = best_discards(s, p)
        h = mix(h, 100 if first < 0 else engine.value_of(first))
        h = mix(h, 1 if first_best else 0)
        h = mix(h, 100 if second < 0 else engine.value_of(second))
        h = mix(h, 1 if second_best else 0)
        return finish(h)
    # A turn: the others' hands sizes and stands (at `many` counted), which of draw,
    # take and stand are legal, and what taking would take.
    stands = 0
    big = 0
    for q in range(s[S_NUM_PLAYERS]):
        if q != p:
            if level == COMPACT:
                h = mix(h, s[S_HAND_N + q])
                h = mix(h, stood_last(s, q))
            else:
                stands += 1 if stood_last(s, q) == 1 else 0
                big += 1 if s[S_HAND_N + q] > 2 else 0
    if level == MANY:
        h = mix(h, min(stands, 2))
        h = mix(h, min(big, 2))
    h = mix(h, 1 if s[S_PILE_N] > 0 or s[S_DISCARD_N] > 1 else 0)
    top = -1
    if s[S_DISCARD_N] > 0:
        top = s[S_DISCARD + s[S_DISCARD_N] - 1]
    h = mix(h, 100 if top < 0 else engine.value_of(top))
    return finish(h)


def state_key(state, level: str) -> int:
    """The abstract key of a pyspiel han_solo state's decision (for tests and policies)."""
    s = state.array
    acts = np.empty(NUM_ACTIONS, dtype=np.int32)
    n = engine.legal_actions(s, acts)
    return int(info_key(s, acts, n, level_id(level)))
