"""Han Solo's MCCFR hooks (solver/mccfr/hooks.py): its keys and the table's choices at a
decision (abstraction.info_key, table_actions), its chance, and its rank utility; and its
`MCCFRGame`, which its adapter's hook `mccfr` returns. The shared MCCFR solver
(solver/mccfr/) trains it: `MCCFRSolver(game, level=level_id(...))`.

A decision with one choice at the level (a pick at `compact`) is played without a key.
"""

from __future__ import annotations

from numba import njit

from spiel_game.han_solo import engine
from spiel_game.han_solo.layout import NUM_ACTIONS, S_KEY

from solver.han_solo.abstraction import LEVELS, info_key, table_actions
from solver.mccfr.games import MCCFRGame
from solver.mccfr.hooks import mccfr_hooks
from solver.sim.rng import STREAM_HAN_SOLO_MCCFR
from solver.sim.sampler import sample

_JIT = {"cache": True, "nogil": True}
# The MCCFR kernel takes HAN_SOLO_HOOKS as an argument, so its cache holds this module's
# code: spiel_game/jit_cache.py clears that cache when this module (or one it imports)
# changes. (The kernel's module, a layer below, does not import this one.)
COMPILED_INTO = ("solver.mccfr.kernel",)
# Utilities (the kernel's `utility`): the engine's returns (credits or margin), or `rank`.
UTILITIES = ("returns", "rank")
RANK = UTILITIES.index("rank")


def check_options(game, level: str, utility: str) -> None:
    """`rank` is for 2 players at `compact`. There the pot holds 2 tokens, the better hand
    takes the one worth more (a pick is no decision) and a tie is a fair draw (H6, H7), so
    a round's margin is the sign of the hands' comparison times the pot's spread, drawn
    before any card and independent of play: a strategy that does not read the pot (the
    `compact` key) has the same regrets up to that factor, without the variance of the
    pots (a Falcon's spread is 20 to 24 thousand, two greens' 0)."""
    if utility == "rank" and (level != "compact" or game.num_players() != 2):
        raise ValueError("the rank utility is for 2 players at level compact (its key "
                         f"ignores the pot), not {game.num_players()} players at {level!r}")


# The key's scratch, filled by `_key` for `_choices`: the legal actions in the row (not
# copied down the path: a key is read from the state), the level's choices (indices into
# them) at the start of the work space and their number after them. (Whole arrays, not
# slices of one: measured faster.)
_W_COUNT = NUM_ACTIONS


@njit(**_JIT)
def _row_size():
    return NUM_ACTIONS


@njit(**_JIT)
def _row_width(level):
    return 0


@njit(**_JIT)
def _row_start(row, player, level):
    pass


@njit(**_JIT)
def _key(s, actor, level, row, work):
    n = engine.legal_actions(s, row)
    m = table_actions(s, row, n, level, work)
    work[_W_COUNT] = m
    return 0 if m == 1 else info_key(s, row, n, level)


@njit(**_JIT)
def _choices(s, level, row, work, out):
    m = work[_W_COUNT]
    for i in range(m):
        out[i] = row[work[i]]
    return m


@njit(**_JIT)
def _lookup_after_children(level):
    # `exact` has perfect recall, but its blocks are claimed in visiting order, as
    # before the shared kernel, so that a seed gives the same tables.
    return False


@njit(**_JIT)
def _chance_action(s, rng, outcomes, probs):
    m = engine.chance_outcomes(s, outcomes, probs)
    return outcomes[sample(probs, m, rng)]


@njit(**_JIT)
def _terminal_value(s, p, utility, returns):
    if utility == RANK:  # 2 players: +1 a better hand, -1 a worse, 0 a tie (H7: a fair draw)
        mine, theirs = s[S_KEY + p], s[S_KEY + 1 - p]
        return 1.0 if mine > theirs else (-1.0 if mine < theirs else 0.0)
    engine.returns(s, returns)
    return returns[p]


@njit(**_JIT)
def _max_actions():
    return NUM_ACTIONS


@njit(**_JIT)
def _work_size():
    return NUM_ACTIONS + 1


HAN_SOLO_HOOKS = mccfr_hooks(
    "solver.han_solo.mccfr", row_size=_row_size, row_width=_row_width, row_start=_row_start,
    key=_key, choices=_choices, lookup_after_children=_lookup_after_children,
    chance_action=_chance_action, terminal_value=_terminal_value, max_actions=_max_actions,
    max_choices=_max_actions, work_size=_work_size)

HAN_SOLO = MCCFRGame(engine.ENGINE, HAN_SOLO_HOOKS, LEVELS, UTILITIES, STREAM_HAN_SOLO_MCCFR,
                     lambda game: game.initial_array.copy(), check_options)
