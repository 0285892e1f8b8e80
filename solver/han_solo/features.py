"""What a han_solo player sees, as compiled functions over the engine's state, and the
heuristics' choices (compiled, so playouts and the OpenSpiel policies share one code).

Every function reads only the deciding player's information: their own hand, the discard
pile (public, H2/H3), the cycle, the game's parameters, the pot and the legal actions. The
cards nobody has shown (`unseen`) are the deck's composition (a public parameter) less the
player's hand and the discard pile, so they are constant on an information set too.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from spiel_game.han_solo import engine
from spiel_game.han_solo.engine import KEY_BEST, KEY_ZERO
from spiel_game.han_solo.layout import (DISCARD, DRAW, KEEP, MAX_HAND, NUM_CARD_KINDS,
                                        NUM_TOKEN_KINDS, PH_DISCARD, PH_PICK, PH_TURN, PICK,
                                        S_BEST, S_CUR, S_CYCLE, S_DICE, S_DISCARD,
                                        S_DISCARD_N, S_HAND, S_HAND_N, S_NUM_PLAYERS, S_PHASE,
                                        S_PILE, S_TOKEN_VALUE, S_TURNS, STAND, TAKE)

_JIT = dict(cache=True, nogil=True)

# Heuristic ids (compiled code dispatches on them).
UNIFORM, STAND_ON_ZERO, CLOSEST_TO_ZERO, DICE_AWARE = range(4)
HEURISTIC_NAMES = ("uniform", "stand_on_zero", "closest_to_zero", "dice_aware")
_TIE = 1e-9


@njit(**_JIT)
def hand_total(s, p):
    base = S_HAND + p * MAX_HAND
    t = 0
    for i in range(s[S_HAND_N + p]):
        t += engine.value_of(s[base + i])
    return t


@njit(**_JIT)
def key_score(key):
    """A hand's rank key (H4/H5) as a number on one scale, so expectations make sense:
    Best 30+, a zero 20+ (more cards, then higher numbers), else 10 - distance (+0.25 if
    positive, +0.01 a card): every zero above every non-zero, as in H5."""
    if key >= KEY_BEST:
        return 30.0 + (key - KEY_BEST) / 100.0
    if key >= KEY_ZERO:
        rest = key - KEY_ZERO
        return 20.0 + rest // 1000 + (rest % 1000) / 1000.0
    rest = key - 10_000_000
    dist = 100 - rest // 10_000
    rest = rest % 10_000
    return 10.0 - dist + 0.25 * (rest // 1000) + 0.01 * ((rest % 1000) // 100)


@njit(**_JIT)
def total_score(total, k):
    """key_score of a k-card hand known by its total only (no Best, absum ignored)."""
    if total == 0:
        return 20.0 + k
    return 10.0 - abs(total) + (0.25 if total > 0 else 0.0) + 0.01 * k


@njit(**_JIT)
def unseen_counts(s, p, out):
    """Cards by kind that p has not seen: the deck less p's hand and the discard pile."""
    n = s[S_NUM_PLAYERS]
    for c in range(NUM_CARD_KINDS):
        out[c] = s[S_PILE + c]
    for q in range(n):  # the deck's composition is public; only its sum is used
        base = S_HAND + q * MAX_HAND
        for i in range(s[S_HAND_N + q]):
            out[s[base + i]] += 1
    for i in range(s[S_DISCARD_N]):
        out[s[S_DISCARD + i]] += 1
    base = S_HAND + p * MAX_HAND
    for i in range(s[S_HAND_N + p]):
        out[s[base + i]] -= 1
    for i in range(s[S_DISCARD_N]):
        out[s[S_DISCARD + i]] -= 1
    total = 0
    for c in range(NUM_CARD_KINDS):
        total += out[c]
    return total


@njit(**_JIT)
def random_hand_scores(unseen, total, out):
    """out[k] = expected total_score of k cards drawn from `unseen` (with replacement:
    a close approximation for the draw pile's size), k = 0..MAX_HAND; what a hand of k
    cards is worth after a dice match (H3) puts it down and deals k new ones."""
    width = 2 * 10 * MAX_HAND + 1
    dist = np.zeros(width)
    dist[10 * MAX_HAND] = 1.0
    out[0] = total_score(0, 0)
    for k in range(1, MAX_HAND + 1):
        nxt = np.zeros(width)
        if total > 0:
            for c in range(NUM_CARD_KINDS):
                if unseen[c] > 0:
                    w = unseen[c] / total
                    v = engine.value_of(c)
                    for t in range(width):
                        if dist[t] > 0 and 0 <= t + v < width:
                            nxt[t + v] += w * dist[t]
        dist = nxt
        e = 0.0
        for t in range(width):
            if dist[t] > 0:
                e += dist[t] * total_score(t - 10 * MAX_HAND, k)
        out[k] = e


@njit(**_JIT)
def _hand_value(cards, k, best, q, random_scores):
    """What a final hand is worth to the heuristics: its score, or with a match likely
    (odds q, H3) the mix of its score and that of a fresh hand of as many cards."""
    sc = key_score(engine.hand_key(cards, k, best))
    if q > 0:
        return (1.0 - q) * sc + q * random_scores[k]
    return sc


@njit(inline="always", **_JIT)
def _kept_value(cards, m, best, q, random_scores, closeness):
    """The value of keeping the m cards: `_hand_value`, or with `closeness` -|total|
    only, more cards breaking ties (stand on zero)."""
    if closeness:
        t = 0
        for i in range(m):
            t += engine.value_of(cards[i])
        return -abs(t) + 0.001 * m
    return _hand_value(cards, m, best, q, random_scores)


@njit(**_JIT)
def _best_after(cards, k, best, q, random_scores, closeness):
    """The best value of a hand of k cards after discarding one card or none (H2);
    `closeness`: judge by -|total| only (stand on zero)."""
    tmp = np.empty(MAX_HAND, dtype=np.int32)
    top = -1e18
    for skip in range(-1, k):
        m = 0
        for i in range(k):
            if i != skip:
                tmp[m] = cards[i]
                m += 1
        v = _kept_value(tmp, m, best, q, random_scores, closeness)
        if v > top:
            top = v
    return top


@njit(**_JIT)
def _top_token(s, acts, n, out):
    """H6: take the token worth the most credits."""
    top = -1
    for i in range(n):
        v = s[S_TOKEN_VALUE + acts[i] - PICK]
        if v > top:
            top = v
    m = 0
    for i in range(n):
        if s[S_TOKEN_VALUE + acts[i] - PICK] == top:
            m += 1
    for i in range(n):  # equal values (red and blue, H10): either, alike
        out[i] = 1.0 / m if s[S_TOKEN_VALUE + acts[i] - PICK] == top else 0.0


@njit(**_JIT)
def _spread(vals, n, out):
    """Uniform over the actions of the highest value (ties within 1e-9)."""
    top = -1e18
    for i in range(n):
        if vals[i] > top:
            top = vals[i]
    m = 0
    for i in range(n):
        if vals[i] >= top - _TIE:
            m += 1
    for i in range(n):
        out[i] = 1.0 / m if vals[i] >= top - _TIE else 0.0


@njit(**_JIT)
def heuristic_probs(s, kind, acts, n, out):
    """Probabilities of heuristic `kind` over the legal actions acts[:n] of the player to
    move, into out[:n]."""
    if kind == UNIFORM:
        for i in range(n):
            out[i] = 1.0 / n
        return
    ph = s[S_PHASE]
    if ph == PH_PICK:
        _top_token(s, acts, n, out)
        return
    p = s[S_CUR]
    best = s[S_BEST]
    closeness = kind == STAND_ON_ZERO
    q = 0.0
    if kind == DICE_AWARE and s[S_DICE] > 0:
        q = 1.0 / s[S_DICE]  # H3: a roll follows every cycle of turns, the last one too
    unseen = np.zeros(NUM_CARD_KINDS, dtype=np.int64)
    total_unseen = unseen_counts(s, p, unseen)
    random_scores = np.zeros(MAX_HAND + 1)
    if q > 0:
        random_hand_scores(unseen, total_unseen, random_scores)
    k = s[S_HAND_N + p]
    cards = np.empty(MAX_HAND + 1, dtype=np.int32)
    base = S_HAND + p * MAX_HAND
    for i in range(k):
        cards[i] = s[base + i]
    vals = np.zeros(n)
    if ph == PH_DISCARD:
        tmp = np.empty(MAX_HAND, dtype=np.int32)
        for a in range(n):
            skip_kind = -1 if acts[a] == KEEP else acts[a] - DISCARD
            m = 0
            skipped = False
            for i in range(k):
                if not skipped and cards[i] == skip_kind:
                    skipped = True
                    continue
                tmp[m] = cards[i]
                m += 1
            vals[a] = _kept_value(tmp, m, best, q, random_scores, closeness)
        _spread(vals, n, out)
        return
    # PH_TURN: draw, take the discard, or stand (H2).
    total = 0
    for i in range(k):
        total += engine.value_of(cards[i])
    if closeness:
        now = -abs(total) + 0.001 * k
    else:
        now = _hand_value(cards, k, best, q, random_scores)
    take = -1e18
    if s[S_DISCARD_N] > 0:
        cards[k] = s[S_DISCARD + s[S_DISCARD_N] - 1]
        take = _best_after(cards, k + 1, best, q, random_scores, closeness)
    draw = -1e18
    if total_unseen > 0:
        draw = 0.0
        for c in range(NUM_CARD_KINDS):
            if unseen[c] > 0:
                cards[k] = c
                draw += unseen[c] / total_unseen * _best_after(cards, k + 1, best, q,
                                                               random_scores, closeness)
    for a in range(n):
        if acts[a] == STAND:
            vals[a] = now
        elif acts[a] == TAKE:
            vals[a] = take
        else:
            vals[a] = draw
    if kind == STAND_ON_ZERO:
        # Stand once the hand totals zero; else take the discard if it brings the total
        # closer to zero, else draw (stand only if nothing else is legal).
        for a in range(n):
            if total == 0:
                vals[a] = 1.0 if acts[a] == STAND else 0.0
            elif acts[a] == TAKE:
                vals[a] = 2.0 if take > now else 0.0
            elif acts[a] == DRAW:
                vals[a] = 1.0
            else:
                vals[a] = 0.5
    _spread(vals, n, out)


@njit(**_JIT)
def turns_left(s):
    """Turns still to come for the player to move, this one included (H9's `turns`)."""
    return s[S_TURNS] - s[S_CYCLE]


__all__ = ["HEURISTIC_NAMES", "UNIFORM", "STAND_ON_ZERO", "CLOSEST_TO_ZERO", "DICE_AWARE",
           "heuristic_probs", "hand_total", "key_score", "unseen_counts",
           "random_hand_scores", "turns_left", "PH_TURN", "NUM_TOKEN_KINDS"]
