"""One belief engine: the posterior over hidden cards given what a player observed.

Input: the game's initial state, the viewer (seat), an observation pattern (the
viewer's redacted events, solver/belief/filter.py; fields may be ANY, and in OMIT_LOG
mode the events `filter.omissible` may be missing), and optionally a policy (bank
indices tried in order, with a likelihood floor for the hint's trembling opponents).
Output (`Posterior`): weighted particles, full engine states consistent with the
observations, weights = chance odds x policy probabilities, normalised, and the
marginals (each player's hand). The same compiled kernel serves LBR (the complete log,
advanced decision by decision, solver/evaluation/lbr.py), the hint (a log with `?` and
omitted lines, solver/hint/log.py) and the search.

Exact (`Posterior.exact`) while the histories fit the particle budget; beyond it the
filter samples (resampling, solver/belief/filter.py `resample`: unbiased weights,
seeded), and the posterior carries its effective sample size (`ess`). A sampled
posterior whose ESS is below `min_ess` has collapsed:
the budget grows 4x up to `sample_grow_to`, and if it still collapses `collapsed` says
so.
"""

from __future__ import annotations

import dataclasses

import numpy as np

from spiel_game import layout as L

from solver.abstraction.keys import IDENTITY
from solver.belief.filter import (ANY, ANY_PHASE, B_FAIL_ACTOR, B_FAIL_CARD, B_FAIL_EXTRA,
                                  B_FAIL_KIND, B_FAIL_OTHER, B_FURTHEST, B_LOST,
                                  B_MOST_PARTICLES, B_POLICY_IGNORED, B_POLICY_MISSES,
                                  B_RESAMPLES, B_STEPS, B_TRUNCATED, NO_COPY, NO_FAILURE,
                                  NUM_BELIEF_STATS, OMIT_LOG, OMIT_NONE, _match,
                                  advance_patterns, hand_marginals, no_final, observe,
                                  observed_key, omissible)

__all__ = ["ANY", "ANY_PHASE", "MIN_ESS", "NO_COPY", "NO_FAILURE", "NUM_BELIEF_STATS",
           "HEURISTIC_TREMBLE", "OMIT_LOG", "OMIT_NONE", "Posterior", "TREMBLE", "collapsed",
           "complete_pattern",
           "effective_sample_size", "hand_probabilities", "hidden_state", "history_fits",
           "observe", "observed_key", "omissible", "posterior", "posterior_of_state"]

DEFAULT_MAX_PARTICLES = 4096
MIN_ESS = 32.0  # a sampled posterior with fewer effective particles has collapsed
# The hints' floor on the likelihood of an opponent's decision (`posterior`'s `floor`):
# people stray from any policy, and a log is read, not refused, for a stray choice.
TREMBLE = 1e-3  # where a table weighs the choices
# The same where no table ships and a heuristic weighs them: people stray from a
# heuristic more; at 1e-3 the Jabba hint fuzz's samples (rounds of random play) lost every
# history in 2 of its first 72 situations (0 at 0.1), and the refusals took up to 30 s each.
HEURISTIC_TREMBLE = 0.1


def effective_sample_size(weights) -> float:
    """(sum w)^2 / sum w^2: how many equally weighted particles the weights are worth."""
    w = np.asarray(weights, dtype=np.float64)
    square = float(np.dot(w, w))
    return float(w.sum()) ** 2 / square if square > 0 else 0.0


def collapsed(ess: float, min_ess: float = MIN_ESS) -> bool:
    """A sample whose weight sits on a handful of particles (ESS below min_ess): its
    answer rests on too few histories to trust, even where the posterior itself is
    that concentrated (a sample cannot tell)."""
    return ess < min_ess


@dataclasses.dataclass
class Posterior:
    """Weighted particles (full engine states) and how the filter fared."""

    states: np.ndarray  # (count, STATE_SIZE)
    weights: np.ndarray  # normalised
    stats: dict
    max_particles: int
    # log P(what the viewer saw) under chance and the chain's policies, up to a constant
    # the same for every chain (filter.advance's log_mass)
    log_evidence: float = 0.0
    # which of `posterior`'s patterns each state fits (0 for one pattern)
    pattern_index: np.ndarray | None = None

    @property
    def complete(self) -> bool:
        """Every history that fits is represented (the filter never resampled)."""
        return self.stats["truncated"] == 0

    @property
    def exact(self) -> bool:
        """The exact posterior (= complete); else a sample."""
        return self.complete

    @property
    def ess(self) -> float:
        """Effective sample size of the weights (len(states) when exact: every particle
        is a set of histories, not a sample)."""
        return float(len(self.weights)) if self.exact else effective_sample_size(self.weights)

    @property
    def collapsed(self) -> bool:
        return not self.exact and collapsed(self.ess)

    def hands(self) -> np.ndarray:
        """(MAX_PLAYERS, MAX_CHARS): probability that each player holds each card."""
        return hand_probabilities(self.states, self.weights)


def hand_probabilities(states: np.ndarray, weights) -> np.ndarray:
    """(MAX_PLAYERS, MAX_CHARS): the weighted share of states in which each player holds
    each card (a hand of 2 copies counts once per copy)."""
    out = np.zeros((L.MAX_PLAYERS, L.MAX_CHARS))
    if len(states):
        states = np.ascontiguousarray(states)
        weights = np.asarray(weights, dtype=np.float64)
        hand_marginals(states[None], weights[None], 0, len(states), out)
    return out


def hidden_state(s: np.ndarray) -> bytes:
    """The state apart from its event log, hands sorted: what a posterior is over
    (histories that differ only in their logs or in the order of a hand are one world)."""
    s = s[:L.S_EVENTS].copy()
    for p in range(L.MAX_PLAYERS):
        base = L.S_HAND + p * L.MAX_HAND
        s[base:base + s[L.S_HAND_N + p]].sort()
    if s[L.S_RETURN_N] == 0:
        s[L.S_RETURN:L.S_RETURN + 2] = 0
    return s.tobytes()


def stats_dict(stats: np.ndarray) -> dict:
    return {"steps": int(stats[B_STEPS]), "most_particles": int(stats[B_MOST_PARTICLES]),
            "policy_ignored_steps": int(stats[B_POLICY_IGNORED]),
            "lost": int(stats[B_LOST]), "truncated": int(stats[B_TRUNCATED]),
            "resamples": int(stats[B_RESAMPLES]),
            "policy_misses": int(stats[B_POLICY_MISSES]),
            "furthest_line": int(stats[B_FURTHEST]),
            "failed_event": tuple(int(stats[i]) for i in (B_FAIL_KIND, B_FAIL_ACTOR,
                                                          B_FAIL_OTHER, B_FAIL_CARD,
                                                          B_FAIL_EXTRA))}


def complete_pattern(state_array: np.ndarray, viewer: int) -> tuple[np.ndarray, int]:
    """The complete observation of a state for viewer: (pattern rows, count)."""
    observed = np.empty((L.MAX_EVENTS, L.EVENT_SIZE), dtype=np.int32)
    return observed, int(observe(state_array, viewer, observed))


def history_fits(state_array: np.ndarray, viewer: int, pattern: np.ndarray,
                 omissions: bool = True) -> bool:
    """Does this history show viewer exactly `pattern`, by the filter's own matching
    (`omissions`: as a hint log, OMIT_LOG)? One history's test of what `posterior` keeps."""
    pattern = np.ascontiguousarray(pattern, dtype=np.int32).reshape(-1, L.EVENT_SIZE)
    stats = np.zeros(NUM_BELIEF_STATS, dtype=np.int64)
    upto, ptr = _match(state_array, 0, 0, pattern, len(pattern), viewer,
                       OMIT_LOG if omissions else OMIT_NONE, stats)
    return ptr == len(pattern) and upto == state_array[L.S_EVENT_N]


def capacity(max_particles: int) -> int:
    """Buffer rows for a budget: room for a step's children before resampling."""
    return max_particles + min(max_particles, 8192)


def posterior(game, viewer: int, pattern: np.ndarray, bank=None, chain=(),
              floor: float = 0.0, miss_unknown: bool = False, omissions: bool = False,
              done_phase: int = ANY_PHASE, merge_logs: bool | None = None,
              max_particles: int = DEFAULT_MAX_PARTICLES,
              grow_to: int | None = None, at_decision_of: int | None = None,
              seed: int = 0, min_ess: float = MIN_ESS,
              sample_grow_to: int | None = None, final=None) -> Posterior:
    """The posterior at viewer's decision after `pattern` (rows kind, actor, other, card,
    extra; ANY fits anything), from the start of the round; with `at_decision_of`, at
    that seat's decision instead (what viewer believes while another player acts).
    `pattern` may be a list of (2-d) patterns whose histories are disjoint (a summary's
    explanations): the posterior over their union, in one run (filter.advance_patterns),
    `pattern_index` saying which each state fits.

    bank: a PolicyBank, chain: its policies tried in order for the other players'
    decisions (none: chance odds only); floor: least likelihood of any of their actions;
    miss_unknown: a decision no policy of chain has counts as uninformative (1 for every
    action) rather than the policy's uniform fallback. merge_logs (default: if a chain
    policy reads the whole log, an `identity` table) merges particles only when every
    other player's log agrees too, which keeps such policies exact. If the histories do
    not fit max_particles, the run is repeated with 4 times as many, up to grow_to; past
    that the filter samples at grow_to particles (seed), and a sample that collapsed
    (`collapsed`) or lost every history is redrawn with 4 times as many, up to
    sample_grow_to (default grow_to). final: {seat: cards it may hold at the pattern's
    end} (a summary's hand; a card the viewer knows a seat holds), which the filter
    deals toward (a prune: histories that end elsewhere are left out, as a caller
    selecting on those hands would)."""
    from solver.policies.compiled import build_bank

    # A writable copy: a read-only pattern (np.frombuffer's) would be another type to
    # numba, and compile the filter a second time (48 s of a first hint).
    several = isinstance(pattern, (list, tuple)) and len(pattern) and np.ndim(pattern[0]) == 2
    patterns = list(pattern) if several else [pattern]
    patterns = [np.asarray(p, dtype=np.int32).reshape(-1, L.EVENT_SIZE) for p in patterns]
    # one after another, each followed by a spare row (its end: row_end)
    starts = np.cumsum([0] + [len(p) + 1 for p in patterns])[:-1]
    ends = starts + np.array([len(p) for p in patterns])
    pattern = np.full((int(ends[-1]) + 1, L.EVENT_SIZE), ANY, dtype=np.int32)
    row_start = np.empty(len(pattern), dtype=np.int64)
    row_end = np.empty(len(pattern), dtype=np.int64)
    for p, a, b in zip(patterns, starts, ends):
        pattern[a:b] = p
        row_start[a:b + 1] = a
        row_end[a:b + 1] = b
    if bank is None:
        bank, chain = build_bank(["uniform"], game), ()
    chain = np.asarray(chain, dtype=np.int64)
    if merge_logs is None:
        merge_logs = bool(len(chain)) and bool(np.any(bank.levels[chain] == IDENTITY))
    arrays = bank.arrays()
    grow_to = max_particles if grow_to is None else max(grow_to, max_particles)
    sample_grow_to = grow_to if sample_grow_to is None else max(sample_grow_to, grow_to)
    initial = game.initial_array.copy()
    initial[L.S_LOGGING] = 1
    final_masks = no_final()
    for seat, cards in (final or {}).items():
        final_masks[seat] = sum(1 << int(c) for c in set(cards))
    while True:
        rows = max(capacity(max_particles), len(patterns))
        buffers = np.empty((2, rows, len(initial)), dtype=initial.dtype)
        weights = np.empty((2, rows))
        progress = np.zeros((2, rows, 2), dtype=np.int32)
        buffers[0, :len(patterns)] = initial
        weights[0, :len(patterns)] = 1.0
        progress[0, :len(patterns), 1] = starts
        stats = np.zeros(NUM_BELIEF_STATS, dtype=np.int64)
        stats[B_FAIL_KIND] = NO_FAILURE
        log_mass = np.zeros(1)
        current, count = advance_patterns(
            buffers, weights, progress, 0, len(patterns), pattern, row_start, row_end,
            viewer, OMIT_LOG if omissions else OMIT_NONE, done_phase, arrays, chain,
            float(floor), miss_unknown, merge_logs, max_particles, stats, log_mass,
            final_masks, viewer if at_decision_of is None else at_decision_of, int(seed))
        if stats[B_TRUNCATED] == 0:
            break
        if max_particles < grow_to:
            max_particles = min(4 * max_particles, grow_to)
            continue
        w = weights[current, :count]
        if (count and not collapsed(effective_sample_size(w), min_ess)
                or max_particles >= sample_grow_to):
            break
        max_particles = min(4 * max_particles, sample_grow_to)
    index = np.searchsorted(ends, progress[current, :count, 1])
    return Posterior(buffers[current, :count].copy(), weights[current, :count].copy(),
                     stats_dict(stats), max_particles, float(log_mass[0]), index)


def posterior_of_state(game, state_array: np.ndarray, viewer: int, **kw) -> Posterior:
    """The posterior at a real state's decision of viewer, from its complete log."""
    observed, n = complete_pattern(state_array, viewer)
    return posterior(game, viewer, observed[:n], **kw)
