"""sarlaccs_pit's MCCFR hooks (solver/mccfr/hooks.py): its keys and the table's choices at
a decision (abstraction.info_key, table_actions), its chance, the engine's utility; and
its `MCCFRGame`, which its adapter's hook `mccfr` returns. The shared MCCFR solver
(solver/mccfr/) trains it: `MCCFRSolver(game, level=level_id(...))`.

A decision with one choice at the level (at `compact`, a move, a target, a guard, The
Force on Jabba) is played without a key. A game is long (some 24 turns with the
heuristics), so at `compact` a traverser's decision is expanded with chance
EXPAND_COMPACT only, else sampled (solver/mccfr/kernel.py, hook expand_probability).
"""

from __future__ import annotations

from numba import njit

from spiel_game.sarlacc import engine
from spiel_game.sarlacc.layout import NUM_ACTIONS

from solver.mccfr.games import MCCFRGame
from solver.mccfr.hooks import lookup_before_children, mccfr_hooks, no_row_start, no_row_width
from solver.sarlaccs_pit.abstraction import EXACT, LEVELS, info_key, table_actions
from solver.sim.sampler import sample

_JIT = {"cache": True, "nogil": True}
# The MCCFR kernel takes SARLACC_HOOKS as an argument, so its cache holds this module's
# code: spiel_game/jit_cache.py clears that cache when this module (or one it imports)
# changes. (The kernel's module, a layer below, does not import this one.)
COMPILED_INTO = ("solver.mccfr.kernel",)
UTILITIES = ("returns",)  # the engine's: the Jedi points margin (S13)
# The purpose of the solver's random streams (solver/sim/rng.py; index: the thread); 51
# and up are sarlaccs_pit's (playout.py).
STREAM_SARLACC_MCCFR = 51
# The key's scratch, filled by `_key` for `_choices`: the level's choices (indices into the
# legal actions), their number, then the legal actions.
_W_COUNT = NUM_ACTIONS
EXPAND_COMPACT = 0.2  # the chance a traverser's `compact` decision is expanded


@njit(**_JIT)
def _row_size():
    return 1


@njit(**_JIT)
def _key(s, actor, level, row, work):
    acts = work[_W_COUNT + 1:]
    n = engine.legal_actions(s, acts)
    m = table_actions(s, acts, n, level, work)
    work[_W_COUNT] = m
    return 0 if m == 1 else info_key(s, acts, n, level)


@njit(**_JIT)
def _choices(s, level, row, work, out):
    m = work[_W_COUNT]
    for i in range(m):
        out[i] = work[_W_COUNT + 1 + work[i]]
    return m


@njit(**_JIT)
def _chance_action(s, rng, outcomes, probs):
    m = engine.chance_outcomes(s, outcomes, probs)
    return outcomes[sample(probs, m, rng)]


@njit(**_JIT)
def _terminal_value(s, p, utility, returns):
    engine.returns(s, returns)
    return returns[p]


@njit(**_JIT)
def _max_actions():
    return NUM_ACTIONS


@njit(**_JIT)
def _work_size():
    return 2 * NUM_ACTIONS + 1


@njit(**_JIT)
def _expand_probability(level):
    """`exact` (the reduced games): external sampling. `compact` (the full game, some 12
    table decisions a player): each expanded with chance EXPAND_COMPACT
    (solver/mccfr/kernel.py)."""
    return 1.0 if level == EXACT else EXPAND_COMPACT


SARLACC_HOOKS = mccfr_hooks(
    "solver.sarlaccs_pit.mccfr", row_size=_row_size, row_width=no_row_width,
    row_start=no_row_start, key=_key, choices=_choices,
    lookup_after_children=lookup_before_children, chance_action=_chance_action,
    terminal_value=_terminal_value, max_actions=_max_actions, max_choices=_max_actions,
    work_size=_work_size, expand_probability=_expand_probability)

SARLACCS_PIT = MCCFRGame(engine.ENGINE, SARLACC_HOOKS, LEVELS, UTILITIES,
                         STREAM_SARLACC_MCCFR, lambda game: game.initial_array.copy())
