"""Compiled han_solo rollouts: a state played to the round's end, every seat by one
policy (a table with a heuristic where it has no key, or a heuristic), chance by the
engine's odds, every draw from a seeded stream (solver/sim/rng.py)."""

from __future__ import annotations

import numpy as np
from numba import njit

from spiel_game.han_solo import engine
from spiel_game.han_solo.layout import MAX_PLAYERS, NUM_ACTIONS, PH_CHANCE, PH_TERMINAL, S_PHASE

from solver.han_solo.abstraction import MAX_CHOICES
from solver.han_solo.tournament import TABLE, policy_probs
from solver.sim.rng import stream_seed
from solver.sim.sampler import sample

_JIT = dict(cache=True, nogil=True)
STREAM_HS_HINT = 40  # a han_solo hint's rollouts (index: the rollout)


@njit(**_JIT)
def play_out(s, kind, level, keys, starts, num_actions, probs, fallback, rng, counts):
    """Play s to the end in place: policy `kind` (a heuristic id, or TABLE with the
    table's arrays and `fallback` where it has no key) for every seat. counts[0]: table
    decisions, counts[1]: of them misses (played by the fallback)."""
    acts = np.empty(NUM_ACTIONS, dtype=np.int32)
    pr = np.empty(NUM_ACTIONS)
    choices = np.empty(MAX_CHOICES, dtype=np.int32)
    while s[S_PHASE] != PH_TERMINAL:
        if s[S_PHASE] == PH_CHANCE:
            k = engine.chance_outcomes(s, acts, pr)
        else:
            k = engine.legal_actions(s, acts)
            counts[0] += kind == TABLE
            if not policy_probs(s, kind, acts, k, level, keys, starts, num_actions, probs,
                                fallback, choices, pr):
                counts[1] += 1
        engine.apply_action(s, acts[sample(pr, k, rng)])


@njit(**_JIT)
def rollout_values(worlds, picks, paths, me, seed, kind, level, keys, starts, num_actions,
                   probs, fallback, counts):
    """values[a, r]: my return after the action path paths[a] (padded with -1) in world
    picks[r], then everybody playing the policy to the end; rollout r uses stream r of
    the seed for every path (common random numbers)."""
    values = np.zeros((len(paths), len(picks)))
    out = np.zeros(MAX_PLAYERS)
    rng = np.zeros(1, dtype=np.uint64)
    for r in range(len(picks)):
        for a in range(len(paths)):
            s = worlds[picks[r]].copy()
            for k in range(paths.shape[1]):
                if paths[a, k] < 0:
                    break
                engine.apply_action(s, paths[a, k])
            rng[0] = stream_seed(seed, STREAM_HS_HINT, r)
            play_out(s, kind, level, keys, starts, num_actions, probs, fallback, rng, counts)
            engine.returns(s, out)
            values[a, r] = out[me]
    return values


def values(worlds: list[np.ndarray], weights: np.ndarray, paths: list[tuple[int, ...]],
           me: int, player, rollouts: int, seed: int):
    """(values[path, rollout], counts): `rollouts` rollouts, each from a world drawn by
    weight (seeded), every path from the same world and stream."""
    rng = np.random.default_rng(seed)
    picks = rng.choice(len(worlds), size=rollouts, p=weights / weights.sum())
    width = max(len(p) for p in paths)
    acts = np.full((len(paths), width), -1, dtype=np.int32)
    for i, path in enumerate(paths):
        acts[i, :len(path)] = path
    counts = np.zeros(2, dtype=np.int64)
    stacked = np.ascontiguousarray(np.stack(worlds))
    out = rollout_values(stacked, picks.astype(np.int64), acts, me, seed, player.kind,
                         *player.arrays(), player.heuristic, counts)
    return out, picks, counts
