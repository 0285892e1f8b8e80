"""Game-tree counting on the compiled engine: an exact walk and Knuth's random probes.

Both see the same tree as the pyspiel API: a node is a state where `legal_actions`
offers at least two options (the engine settles single-option nodes itself), a chance
node branches over its distinct outcomes (character ids), and a terminal is a leaf.
"""

import _common  # noqa: F401  (puts this checkout first on sys.path)
import numpy as np
from numba import njit

from spiel_game import engine
from spiel_game.layout import NUM_ACTIONS, PH_CHANCE, PH_TERMINAL, S_EVENTS, S_PHASE

# Columns of the per-probe / total counts.
TERMINAL, DECISION, CHANCE, ALL_NODES = range(4)
COUNT_NAMES = ("terminal", "decision", "chance", "all")

_legal = engine.legal_actions
_apply = engine.apply_action


@njit(cache=False)
def exact_counts(initial, max_depth):
    """Every history below `initial`, by kind (columns TERMINAL..ALL_NODES), in an
    iterative depth-first walk that copies the state once per edge."""
    counts = np.zeros(4, dtype=np.int64)
    states = np.empty((max_depth + 1, initial.size), dtype=np.int32)
    actions = np.empty((max_depth + 1, NUM_ACTIONS), dtype=np.int32)
    num_actions = np.zeros(max_depth + 1, dtype=np.int64)
    next_index = np.zeros(max_depth + 1, dtype=np.int64)
    states[0] = initial
    depth = 0
    while True:
        # Visit the node at `depth` (just entered).
        s = states[depth]
        counts[ALL_NODES] += 1
        if s[S_PHASE] == PH_TERMINAL:
            counts[TERMINAL] += 1
            num_actions[depth] = 0
        else:
            counts[CHANCE if s[S_PHASE] == PH_CHANCE else DECISION] += 1
            if depth == max_depth:
                raise RuntimeError("tree deeper than max_depth")
            num_actions[depth] = _legal(s, actions[depth])
        next_index[depth] = 0
        # Move to the next unvisited child, backing up as far as needed.
        while depth >= 0 and next_index[depth] == num_actions[depth]:
            depth -= 1
        if depth < 0:
            return counts
        action = actions[depth, next_index[depth]]
        next_index[depth] += 1
        states[depth + 1] = states[depth]
        _apply(states[depth + 1], action)
        depth += 1


@njit(cache=False)
def knuth_probes(initial, num_probes, seed):
    """Knuth's estimator along `num_probes` uniformly random root-to-leaf paths.

    Each step picks one of the n options (decisions or distinct chance outcomes)
    uniformly; the weight of a node is the product of the branching factors above it,
    i.e. 1 / P(path reaches it). Returns a (num_probes, 4) array: per probe, the weight of
    the leaf (unbiased for the number of terminal histories) and the summed weights of
    decision, chance and all nodes on the path (unbiased for those counts).
    """
    np.random.seed(seed)
    out = np.zeros((num_probes, 4), dtype=np.float64)
    s = initial.copy()
    buf = np.empty(NUM_ACTIONS, dtype=np.int32)
    for i in range(num_probes):
        s[:S_EVENTS] = initial[:S_EVENTS]  # the log past its length is never read
        weight = 1.0
        while s[S_PHASE] != PH_TERMINAL:
            out[i, ALL_NODES] += weight
            out[i, CHANCE if s[S_PHASE] == PH_CHANCE else DECISION] += weight
            n = _legal(s, buf)
            _apply(s, buf[np.random.randint(0, n)])
            weight *= n
        out[i, ALL_NODES] += weight
        out[i, TERMINAL] = weight
    return out
