"""The play-out hooks (solver/sim/hooks.py) that the games on their own engines
(han_solo, sarlaccs_pit) play their tables with, written once: the table's bank and its
row lookup (each game's `table_probs` finds the choices and the key, then calls
`only_choice` or `table_row_probs`), what a policy says of its key, and the decisions'
stream keyed by the seating. Each game's hooks module (solver/han_solo/playout.py,
solver/sarlaccs_pit/playout.py) calls these with its own table, scratch size and stream
purpose. Its `policy_probs` stays its own: written once here with the game's table
lookup and heuristics passed as arguments, the kernels that call it are not cached
(numba: "uses dynamic globals"), and each run compiled the tournament anew (about 40 s).
"""

from __future__ import annotations

import numpy as np
from numba import njit

from solver.sim.rng import stream_seed

_JIT = dict(cache=True, nogil=True)
FOUND, MISSED = 0, 1  # what a policy's probabilities say of its key (the hook `missed`)


def engine_table_bank(table, max_choices: int) -> tuple:
    """A loaded table (solver/policies/table.py EngineTablePolicy, or None) as the bank of
    the compiled play: (level, keys, starts, num_actions, probs, scratch). The scratch
    (max_choices int32s, the game's most choices at a key) is written by every lookup: one
    bank per thread."""
    if table is None:
        arrays = (0, np.zeros(1, np.int64), np.zeros(1, np.int64), np.zeros(1, np.int64),
                  np.zeros(1))
    else:
        arrays = (table.level, table.keys, table.starts, table.num_actions, table.probs)
    return (*arrays, np.empty(max_choices, dtype=np.int32))


@njit(**_JIT)
def seating_stream(seed, purpose, deal, seat_chain):
    """The hook `decision_stream` keyed by the seating (the policy first in each seat's
    chain, at most 16 policies), not the rotation: a deal played twice with the same
    seating plays the same decisions."""
    seating = 0
    for q in range(len(seat_chain)):
        seating = seating * 16 + seat_chain[q, 0]
    return stream_seed(seed, purpose, deal * 65536 + seating)


@njit(**_JIT)
def only_choice(n, choices, out):
    """A decision with one choice at the level (no key): out[:n] (over the legal actions)
    certain of choices[0]. True: nothing is missing."""
    for i in range(n):
        out[i] = 0.0
    out[choices[0]] = 1.0
    return True


@njit(**_JIT)
def table_row_probs(key, m, n, choices, keys, starts, num_actions, probs, out):
    """A table's probabilities of the decision keyed `key` with the m > 1 choices
    choices[:m] (indices into its n legal actions), into out[:n] (0 for an action the
    level does not offer); False, with out uniform over the choices, if the key is not in
    the table. keys sorted; the row of keys[j] is probs[starts[j]:starts[j] +
    num_actions[j]]."""
    for i in range(n):
        out[i] = 0.0
    j = np.searchsorted(keys, key)
    found = j < len(keys) and keys[j] == key and num_actions[j] == m
    for i in range(m):
        out[choices[i]] = probs[starts[j] + i] if found else 1.0 / m
    return found
