"""What a finished round is worth: the engine's margin, or a table over round outcomes.

A round ends with each player i holding t_i tokens (0, 1 or 2: docs/RULES.md R11) and a
set of round winners (the state's S_WINNERS bitmask, who starts the next round: R14).
The outcome's code is

    code = sum_i t_i * 3**i + 3**n * winners          (n players, 3**n * 2**n codes)

and a utility table is an array (3**n * 2**n, n): what each player gets for each code.
The match-aware advice (solver/match, docs/match.md) fills it with each player's chance
of winning the match from the standings that result. An empty table, shape (0, n),
means the engine's own utility (`engine.returns`: the margin, or the tokens), so the
search, its leaf rollouts and the hint's rollouts have one way to score a round.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from spiel_game import engine
from spiel_game import layout as L

_JIT = dict(cache=True, nogil=True)


def num_codes(players: int) -> int:
    """The number of outcome codes: 3**n token combinations times 2**n winner sets."""
    return 3 ** players * 2 ** players


def engine_utility(players: int) -> np.ndarray:
    """The empty table: score rounds by engine.returns."""
    return np.zeros((0, players), dtype=np.float64)


@njit(**_JIT)
def outcome_code(s) -> int:
    """The code of a finished round (module docstring)."""
    n = s[L.S_NUM_PLAYERS]
    code = 0
    scale = 1
    for p in range(n):
        code += min(s[L.S_TOKENS + p], 2) * scale
        scale *= 3
    return code + scale * s[L.S_WINNERS]


@njit(**_JIT)
def round_utility(s, table, out):
    """out[:n]: the players' utilities of the state s (zeros before the round ends):
    table[outcome_code(s)], or engine.returns with an empty table."""
    if table.shape[0] == 0 or s[L.S_PHASE] != L.PH_TERMINAL:
        engine.returns(s, out)
        return
    row = table[outcome_code(s)]
    for p in range(s[L.S_NUM_PLAYERS]):
        out[p] = row[p]


def check_table(table: np.ndarray, players: int) -> np.ndarray:
    """A utility table as the compiled code takes it; ValueError if its shape is wrong."""
    table = np.ascontiguousarray(table, dtype=np.float64)
    if table.ndim != 2 or table.shape[1] != players or table.shape[0] not in (
            0, num_codes(players)):
        raise ValueError(f"a round-utility table for {players} players has shape "
                         f"({num_codes(players)}, {players}) (or 0 rows: the engine's "
                         f"utility), got {table.shape}")
    if not np.all(np.isfinite(table)):
        raise ValueError("a round-utility table holds a value that is not finite")
    return table


def is_zero_sum(table: np.ndarray) -> bool:
    """Every outcome's utilities sum to 0 (the search's safe gadgets need it)."""
    return table.shape[0] == 0 or bool(np.all(np.abs(table.sum(axis=1)) < 1e-9))
