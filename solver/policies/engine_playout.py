"""The play-out hooks (solver/sim/hooks.py) that the games on their own engines
(han_solo, sarlaccs_pit) play their tables with, written once: the table's bank, a table
policy that falls back on nothing (the chain's next policy does), and the decisions'
stream keyed by the seating. Each game's hooks module (solver/han_solo/playout.py,
solver/sarlaccs_pit/playout.py) calls these with its own table lookup, heuristics and
stream purpose; its hook functions stay its own, as numba caches a kernel compiled over
a function set but not a closure over jitted functions.
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
def table_or_heuristic_probs(s, policy, table_policy, bank, legal, n, out, table_probs,
                             heuristic_probs):
    """The hook `policy_probs` for policy ids that are heuristics (heuristic_probs's
    index) or `table_policy`, the bank's table: its row (table_probs: the game's
    lookup), or MISSED where it has no key; a heuristic always decides."""
    if policy == table_policy:
        if table_probs(s, legal, n, bank[0], bank[1], bank[2], bank[3], bank[4], bank[5],
                       out):
            return FOUND
        return MISSED
    heuristic_probs(s, policy, legal, n, out)
    return FOUND


@njit(**_JIT)
def seating_stream(seed, purpose, deal, seat_chain):
    """The hook `decision_stream` keyed by the seating (the policy first in each seat's
    chain, at most 16 policies), not the rotation: a deal played twice with the same
    seating plays the same decisions."""
    seating = 0
    for q in range(len(seat_chain)):
        seating = seating * 16 + seat_chain[q, 0]
    return stream_seed(seed, purpose, deal * 65536 + seating)
