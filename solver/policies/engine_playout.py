"""The play-out hooks (solver/sim/hooks.py) that the games on their own engines
(han_solo, sarlaccs_pit) play their tables with, written once: the table's bank, what a
policy says of its key, and the decisions' stream keyed by the seating. Each game's hooks
module (solver/han_solo/playout.py, solver/sarlaccs_pit/playout.py) calls these with its
own table, scratch size and stream purpose. Its `policy_probs` stays its own: written
once here with the game's table lookup and heuristics passed as arguments, the kernels
that call it are not cached (numba: "uses dynamic globals"), and each run compiled the
tournament anew (about 40 s).
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
