"""Han Solo's hooks of the compiled particle filter (solver/belief/kernel.py): what one
han_solo seat believes the others hold, Bayes over the hidden cards.

The hidden cards of a round, for a seat, are the others' deals, draws and redeals (H2,
H3); everything else is public (the pot, the flips, takes, discards, stands, the dice, the
reveals after a match, the hands shown at the round's end, H6) or the seat's own. A
pattern is a log of engine events (kind, player, value), a value L.HIDDEN where the seat
does not see it (it fits any card). A particle's new events fit the pattern's next line
when kind and player are equal and the line's value is HIDDEN or equal; in OMIT_LOG mode
an event a log may leave out (`omissible`: the pot, another player's deal or redeal, and
what the engine writes by itself: reveals, reshuffles, shows) is skipped where the next
line is not of its kind and player. A chance node tries every outcome at its odds (card
counting), another player's decision every legal action at the probability their policy
chain gives it (`HAN_SOLO_PLAYOUT`'s policies: a heuristic or TABLE, a table's miss
uniform as in the play-out loop), the viewer's own every legal action at 1 (the log
decides). Particles that agree on the state apart from the log (hands as multisets, and
the card taken this turn, written for the log only) and on their progress are merged:
exact for policies that read the present (hand, discard pile, turn, pot), as the
heuristics and the tables' `fine` and `coarse` keys do.

`observe` is LBR's observation (solver/evaluation/lbr.py): the seat's log, but up to the
last dice match, or the hands shown at the round's end, with every card filled in (a
match puts every hand face up, H3, and the end shows every hand, H6: each card another
player drew or was dealt before it is then seen, and every filling consistent with what
the seat saw leaves the same worlds after it, with the same likelihood ratios for what
follows: the true one is used).
"""

from __future__ import annotations

import numpy as np
from numba import njit

from spiel_game.han_solo import engine
from spiel_game.han_solo import layout as L

from solver.abstraction.hashing import FNV_OFFSET, mix
from solver.belief.kernel import (B_FAIL_ACTOR, B_FAIL_CARD, B_FAIL_KIND, B_FURTHEST,
                                  decision_likelihoods, filter_hooks)
from solver.han_solo.playout import HAN_SOLO_PLAYOUT

_JIT = dict(cache=True, nogil=True)
# The filter kernel and LBR take HAN_SOLO_FILTER as an argument: their caches hold this
# module's code (spiel_game/jit_cache.py clears them when it changes).
COMPILED_INTO = ("solver.belief.kernel", "solver.evaluation.lbr")
OMIT_NONE = 0  # the pattern is the complete log (LBR)
OMIT_LOG = 1  # a log may leave out the events `omissible`
AT_LOG_END = -2  # done_phase: done where the log ends, at any node (a hint's log)

_OMISSIBLE = np.zeros(L.NUM_EVENT_KINDS, dtype=np.int8)
_OMISSIBLE[[L.E_POT, L.E_REVEAL, L.E_RESHUFFLE, L.E_SHOW]] = 1


@njit(**_JIT)
def omissible(kind, player, viewer):
    """Can a log leave this event out: the pot, another's hidden deal or redeal, and
    what the engine writes by itself."""
    return _OMISSIBLE[kind] == 1 or ((kind == L.E_DEAL or kind == L.E_REDEAL)
                                     and player != viewer)


@njit(**_JIT)
def _max_actions():
    return L.NUM_ACTIONS


@njit(**_JIT)
def _prepare(pattern, row_start, row_end, viewer, first, count, final):
    return np.zeros(1, dtype=np.int64)  # nothing: every step reads the pattern itself


@njit(**_JIT)
def _is_done(s, checked, ptr, n_pat, done_actor, done_phase):
    """Every event matched and the pattern used up, at done_actor's decision (in
    done_phase unless ANY_PHASE), or anywhere with done_phase AT_LOG_END."""
    if ptr != n_pat or checked != s[L.S_EVENT_N]:
        return False
    if done_phase == AT_LOG_END:
        return True
    phase = s[L.S_PHASE]
    return (phase != L.PH_CHANCE and phase != L.PH_TERMINAL and s[L.S_CUR] == done_actor
            and (done_phase < 0 or phase == done_phase))


@njit(**_JIT)
def _chance_children(s, ptr, pattern, start, n_pat, viewer, pre, legal, probs, stats):
    """Every outcome at its odds (the pattern's line decides which live)."""
    if ptr >= n_pat:
        return 0, 1.0  # the log ends here
    return engine.chance_outcomes(s, legal, probs), 1.0


@njit(**_JIT)
def _decision_children(s, checked, ptr, n_pat, viewer, bank, chain, floor, miss_unknown,
                       use_policy, legal, probs, stats):
    """Every legal action: the viewer's own at 1, another's at its chain's probability."""
    if ptr >= n_pat:
        return 0  # the log ends here
    n = engine.legal_actions(s, legal)
    decision_likelihoods(HAN_SOLO_PLAYOUT, s, s[L.S_CUR], viewer, bank, chain, floor,
                         miss_unknown, use_policy, legal, n, probs, stats)
    return n


@njit(**_JIT)
def _match(s, checked, ptr, pattern, n_pat, viewer, omit, pre, stats):
    """s's events from `checked` on against the pattern from `ptr`: (events, new ptr),
    ptr -1 if they do not fit (the furthest failure noted in stats)."""
    m = s[L.S_EVENT_N]
    for i in range(checked, m):
        at = L.S_EVENTS + i * L.EVENT_SIZE
        kind, player, value = s[at], s[at + 1], s[at + 2]
        same = ptr < n_pat and pattern[ptr, 0] == kind and pattern[ptr, 1] == player
        if same and (pattern[ptr, 2] == L.HIDDEN or pattern[ptr, 2] == value):
            ptr += 1
        elif omit == OMIT_LOG and not same and omissible(kind, player, viewer):
            continue
        else:
            if ptr >= stats[B_FURTHEST]:
                stats[B_FURTHEST] = ptr
                stats[B_FAIL_KIND] = kind
                stats[B_FAIL_ACTOR] = player
                stats[B_FAIL_CARD] = value
            return m, -1
    return m, ptr


@njit(**_JIT)
def _hash_scratch():
    return np.zeros(1, dtype=np.int32)


@njit(**_JIT)
def _particle_hash(s, checked, ptr, viewer, scratch, merge_logs):
    """The state apart from its log and the card taken this turn, hands as multisets;
    the progress."""
    h = FNV_OFFSET
    for i in range(L.S_HAND):
        h = mix(h, -1 if i == L.S_TOOK else s[i])
    hand = np.empty(L.MAX_HAND, dtype=np.int32)
    for p in range(L.MAX_PLAYERS):
        k = s[L.S_HAND_N + p]
        hand[:k] = np.sort(s[L.S_HAND + p * L.MAX_HAND:L.S_HAND + p * L.MAX_HAND + k])
        for i in range(k):
            h = mix(h, hand[i])
        h = mix(h, -7)
    for i in range(L.S_NEED, L.S_EVENTS):
        h = mix(h, s[i])
    return mix(mix(h, checked), ptr)


@njit(**_JIT)
def _logged_events(s):
    return s[L.S_EVENT_N]


@njit(**_JIT)
def _pattern_shape():
    return L.MAX_EVENTS, L.EVENT_SIZE


@njit(**_JIT)
def _no_final():
    return np.zeros(1, dtype=np.int64)


@njit(**_JIT)
def observe(s, viewer, observed):
    """observed[:n]: LBR's observation of s for viewer (module docstring); returns n."""
    n = s[L.S_EVENT_N]
    shown = -1  # the last dice match or hand shown: every card before it is seen
    for i in range(n):
        at = L.S_EVENTS + i * L.EVENT_SIZE
        if (s[at] == L.E_DICE and s[at + 2] == 1) or s[at] == L.E_SHOW:
            shown = i
    for i in range(n):
        at = L.S_EVENTS + i * L.EVENT_SIZE
        kind, player = s[at], s[at + 1]
        observed[i, 0] = kind
        observed[i, 1] = player
        private = kind == L.E_DEAL or kind == L.E_DRAW or kind == L.E_REDEAL
        observed[i, 2] = (L.HIDDEN if private and player != viewer and i > shown
                          else s[at + 2])
    return n


@njit(**_JIT)
def observed_key(observed, n, viewer):
    """A 64-bit hash of an observation (viewer and its rows)."""
    h = mix(FNV_OFFSET, viewer)
    for i in range(n):
        for f in range(L.EVENT_SIZE):
            h = mix(h, observed[i, f])
    return h


HAN_SOLO_FILTER = filter_hooks(
    "solver.han_solo.filter", max_actions=_max_actions, prepare=_prepare,
    is_done=_is_done, chance_children=_chance_children,
    decision_children=_decision_children, match=_match, hash_scratch=_hash_scratch,
    particle_hash=_particle_hash, logged_events=_logged_events,
    pattern_shape=_pattern_shape, no_final=_no_final, observe=observe,
    observed_key=observed_key)


def posterior_worlds(game, log, viewer: int, bank=None, chain=(), max_particles: int = 4096,
                     seed: int = 0, floor: float = 0.0) -> tuple[np.ndarray, np.ndarray, dict]:
    """The worlds (engine states where `log` ends) and their normalised weights that
    viewer's `log` (engine events (kind, player, value), another's private card
    L.HIDDEN; the events `omissible` may be left out) leaves, the others deciding by
    `chain` (policy ids of `bank`, a HanSoloBank; none: the chance odds alone); with the
    filter's statistics (`solver.belief.filter.stats_dict`'s names). No world: empty
    arrays (stats["furthest"]: the log line no history got past; stats["failed_event"]:
    what a history gave there instead, kind -1 if none got that far). Exact while the
    histories fit max_particles; past it a sample (stats["truncated"] > 0), seeded."""
    from solver.belief import kernel
    from solver.han_solo.playout import HanSoloBank

    if max_particles < 1:
        raise ValueError(f"max_particles={max_particles}: at least 1")
    rows = np.asarray(log, dtype=np.int32).reshape(-1, L.EVENT_SIZE)
    n = len(rows)
    pattern = np.full((n + 1, L.EVENT_SIZE), L.HIDDEN, dtype=np.int32)  # a spare row: the end
    pattern[:n] = rows
    row_start = np.zeros(n + 1, dtype=np.int64)
    row_end = np.full(n + 1, n, dtype=np.int64)
    initial = game.initial_array.copy()
    capacity = 2 * max_particles
    buffers = np.empty((2, capacity, len(initial)), dtype=initial.dtype)
    weights = np.empty((2, capacity))
    progress = np.zeros((2, capacity, 2), dtype=np.int32)
    buffers[0, 0] = initial
    weights[0, 0] = 1.0
    stats = np.zeros(kernel.NUM_BELIEF_STATS, dtype=np.int64)
    stats[B_FAIL_KIND] = -1
    bank = HanSoloBank() if bank is None else bank
    current, count = kernel.advance_patterns(
        engine.ENGINE, HAN_SOLO_FILTER, buffers, weights, progress, 0, 1, pattern,
        row_start, row_end, viewer, OMIT_LOG, AT_LOG_END, bank.arrays(),
        np.asarray(chain, dtype=np.int64), float(floor), False, False, max_particles, stats,
        np.zeros(1), _no_final(), -1, int(seed))
    counts = {"steps": int(stats[kernel.B_STEPS]),
              "most_particles": int(stats[kernel.B_MOST_PARTICLES]),
              "policy_ignored_steps": int(stats[kernel.B_POLICY_IGNORED]),
              "truncated": int(stats[kernel.B_TRUNCATED]),
              "furthest": int(stats[B_FURTHEST]),
              # at the furthest line, what a history gave instead (kind, player, value)
              "failed_event": (int(stats[B_FAIL_KIND]), int(stats[B_FAIL_ACTOR]),
                               int(stats[B_FAIL_CARD]))}
    return buffers[current, :count].copy(), weights[current, :count].copy(), counts
