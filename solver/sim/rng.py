"""The one random generator: splitmix64 streams keyed by (seed, purpose, index).

A stream is one uint64 in a numpy array (rng[0]); `next_float` advances it by the golden
ratio increment and mixes it (Steele, Lea and Flood 2014, "Fast splittable pseudorandom
number generators"). `stream_seed(seed, purpose, index)` starts a stream by mixing the
three numbers in turn, so every purpose (below) and index has its own stream: a deal, a
game's decisions or a rollout is the same whatever else is played, and runs split in
chunks give the figures of one run.
"""

from __future__ import annotations

import numpy as np
from numba import njit

_JIT = dict(cache=True, nogil=True)
_GOLDEN = np.uint64(0x9E3779B97F4A7C15)
_MIX_1 = np.uint64(0xBF58476D1CE4E5B9)
_MIX_2 = np.uint64(0x94D049BB133111EB)
_TO_UNIT = 1.0 / 9007199254740992.0  # 2**-53
SEED_LIMIT = 1 << 63  # seeds are numba int64: 0 <= seed < 2**63

# Purposes of streams. The tournament's (1-6) and LBR's (11) keep their numbers, so
# seeded tournaments and LBR runs give the figures they gave before the streams moved here.
(STREAM_DEAL, STREAM_DECISIONS, STREAM_MATCH_START, STREAM_MATCH_DEAL,
 STREAM_MATCH_DECISIONS, STREAM_MATCH_TIES) = range(1, 7)
STREAM_LBR_ROLLOUT = 11
STREAM_HINT_ROLLOUT = 12
STREAM_MCCFR = 13  # index: the thread
STREAM_RANDOM_PLAYOUT = 14
STREAM_SEARCH_LEAF = 15  # index: the root * 2**16 + the rollout (common to its leaves)
STREAM_SINGLE_AGENT = 16  # index: 2 * the sample (+ 1 past my next decision)
STREAM_MODEL_SAMPLE = 21  # index: the match (solver/opponent_model/sample.py)
STREAM_HAN_SOLO_MCCFR = 31  # index: the thread (han_solo's MCCFR)


def check_seed(seed) -> int:
    """`seed` as an int, or ValueError naming the allowed range."""
    if isinstance(seed, (bool, np.bool_)) or not isinstance(seed, (int, np.integer)) \
            or not 0 <= seed < SEED_LIMIT:
        raise ValueError(f"seed must be an integer from 0 to 2**63 - 1, got {seed!r}")
    return int(seed)


@njit(inline="always", **_JIT)
def _splitmix(x):
    z = x + _GOLDEN
    z = (z ^ (z >> np.uint64(30))) * _MIX_1
    z = (z ^ (z >> np.uint64(27))) * _MIX_2
    return z ^ (z >> np.uint64(31))


@njit(**_JIT)
def stream_seed(seed, purpose, index):
    """The start of the stream for (seed, purpose, index), as a uint64."""
    z = _splitmix(np.uint64(seed))
    z = _splitmix(z ^ np.uint64(purpose))
    return _splitmix(z ^ np.uint64(index))


# Inlined (numba level) into the samplers and loops that call them, the MCCFR kernel
# included: no call and no reference-count pair for `rng` per number.
@njit(inline="always", **_JIT)
def next_float(rng):
    """A float in [0, 1), a multiple of 2**-53, from the stream in rng[0] (uint64)."""
    rng[0] += _GOLDEN
    return float(_splitmix(rng[0]) >> np.uint64(11)) * _TO_UNIT


@njit(inline="always", **_JIT)
def next_below(rng, n):
    """An integer in [0, n) (n >= 1), each with probability 1/n up to 2**-53."""
    return min(int(next_float(rng) * n), n - 1)
