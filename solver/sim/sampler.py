"""The one sampler: an index by its probabilities, and a chance card by the engine's odds."""

from __future__ import annotations

from numba import njit

from spiel_game import engine
from spiel_game import layout as L

from solver.sim.rng import next_below, next_float

_JIT = dict(cache=True, nogil=True)


@njit(inline="always", **_JIT)
def sample(probs, n, rng):
    """An index in [0, n) drawn with probabilities probs[:n] (summing to 1) from the
    stream rng; never one of probability 0, even when rounding leaves the uniform number
    above the sum (then the last index of positive probability)."""
    u = next_float(rng)
    last = 0
    for i in range(n):
        if probs[i] > 0:
            u -= probs[i]
            last = i
            if u < 0:
                return i
    return last


@njit(inline="always", **_JIT)
def chance_card(s, rng):
    """The card the pending chance node of s draws, with the engine's odds (a uniform
    pick from the pool)."""
    return engine.sample_chance(s, next_below(rng, s[L.S_POOL_SIZE]))
