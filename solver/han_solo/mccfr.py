"""Han Solo's MCCFR hooks (solver/mccfr/hooks.py): its keys and the table's choices at a
decision (abstraction.info_key, table_actions), its chance, and its rank utility; and its
`MCCFRGame`, which its adapter's hook `mccfr` returns. The shared MCCFR solver
(solver/mccfr/) trains it: `MCCFRSolver(game, level=level_id(...))`.

A decision with one choice at the level (a pick at `compact`) is played without a key.

Utilities (`MCCFRSolver(utility=...)`): `returns`, the engine's (credits or margin);
`rank`, 2 players at `compact`, the sign of the hands' comparison; `pot_mean`, any player
count at `compact` or `many`, each player's utility with the pot replaced by its
expectation: the hands' ranks (H5, ties by H7's fair draw) give each player the mean,
over the places of its tied group, of the expected k-th most valuable token of a pot
drawn from the stack (H10), and the margin is taken from those (H12). At these levels
nothing reads the pot (their keys do not, and a pick takes the top token), so the pot,
drawn before any card, is independent of every choice and of the hands: the expected
utility of every history is unchanged and so are the expected regrets, without the pot's
variance (a Falcon's spread is 20 to 24 thousand credits). With 2 players it is `rank`
times the pot's expected spread, a constant: the same strategies.
"""

from __future__ import annotations

import math

import numpy as np
from numba import njit

from spiel_game.han_solo import engine
from spiel_game.han_solo.layout import (NUM_ACTIONS, NUM_TOKEN_KINDS, S_GOT, S_KEY,
                                        S_NUM_PLAYERS, S_POT, S_STACK, S_TOKEN_VALUE,
                                        S_UTILITY, UTIL_MARGIN)

from solver.han_solo.abstraction import LEVELS, info_key, table_actions
from solver.mccfr.games import MCCFRGame
from solver.mccfr.hooks import (expand_every_decision, lookup_before_children, mccfr_hooks,
                                no_row_width, no_row_start)
from solver.sim.rng import STREAM_HAN_SOLO_MCCFR
from solver.sim.sampler import sample

_JIT = {"cache": True, "nogil": True}
# The MCCFR kernel takes HAN_SOLO_HOOKS as an argument, so its cache holds this module's
# code: spiel_game/jit_cache.py clears that cache when this module (or one it imports)
# changes. (The kernel's module, a layer below, does not import this one.)
COMPILED_INTO = ("solver.mccfr.kernel",)
# Utilities (the kernel's `utility`): the engine's returns (credits or margin), or `rank`.
UTILITIES = ("returns", "rank", "pot_mean")
RANK = UTILITIES.index("rank")
POT_MEAN = UTILITIES.index("pot_mean")


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
    if utility == "pot_mean" and level not in ("compact", "many"):
        raise ValueError("the pot_mean utility is for levels compact and many (their keys "
                         f"ignore the pot and a pick takes the top token), not {level!r}")


@njit(**_JIT)
def _log_choose(a, b):
    return math.lgamma(a + 1) - math.lgamma(b + 1) - math.lgamma(a - b + 1)


@njit(**_JIT)
def expected_places(s, out):
    """out[k] (k = 0..n-1): the expected value, thousands of credits, of the k-th most
    valuable token of a pot of n drawn from the stack the round began with (H10: each a
    uniform pick from the tokens left). E[k-th] = sum over the distinct values u_1 > u_2 >
    ... of (u_j - u_(j+1)) P(at least k+1 tokens worth u_j or more), a hypergeometric
    tail."""
    n = s[S_NUM_PLAYERS]
    counts = np.zeros(NUM_TOKEN_KINDS, dtype=np.int64)
    total = 0
    for k in range(NUM_TOKEN_KINDS):
        counts[k] = s[S_STACK + k] + s[S_POT + k]
    for q in range(n):
        if s[S_GOT + q] >= 0:
            counts[s[S_GOT + q]] += 1
    for k in range(NUM_TOKEN_KINDS):
        total += counts[k]
    for k in range(n):
        out[k] = 0.0
    log_all = _log_choose(total, n)
    for j in range(NUM_TOKEN_KINDS):
        if counts[j] == 0:
            continue
        value = s[S_TOKEN_VALUE + j]
        above = 0  # tokens worth `value` or more, and the next lower value
        lower = 0
        for k in range(NUM_TOKEN_KINDS):
            v = s[S_TOKEN_VALUE + k]
            if counts[k] > 0 and v >= value:
                above += counts[k]
            elif counts[k] > 0 and v > lower:
                lower = v
        # Kinds of equal value are counted once: at the first of them.
        first = True
        for k in range(j):
            if counts[k] > 0 and s[S_TOKEN_VALUE + k] == value:
                first = False
        if not first:
            continue
        tail = 0.0  # P(at least i of the pot's n tokens worth `value` or more), i = n..1
        for i in range(n, 0, -1):
            if i <= above and n - i <= total - above:
                tail += math.exp(_log_choose(above, i) + _log_choose(total - above, n - i)
                                 - log_all)
            out[i - 1] += (value - lower) / 1000.0 * tail


@njit(**_JIT)
def pot_mean_value(s, p, places):
    """Player p's `pot_mean` utility at a terminal state: the mean of places[a..a+t-1],
    a the players whose hands rank above p's and t p's tied group (itself included), as
    a token's value or, with utility=margin, less the mean of the others' (H12)."""
    n = s[S_NUM_PLAYERS]
    mine = s[S_KEY + p]
    above = 0
    tied = 0
    total = 0.0
    for q in range(n):
        total += places[q]
        if s[S_KEY + q] > mine:
            above += 1
        elif s[S_KEY + q] == mine:
            tied += 1
    own = 0.0
    for i in range(above, above + tied):
        own += places[i]
    own /= tied
    if s[S_UTILITY] == UTIL_MARGIN:
        return own - (total - own) / (n - 1)
    return own


# The key's scratch, filled by `_key` for `_choices`: the legal actions in the row (not
# copied down the path: a key is read from the state), the level's choices (indices into
# them) at the start of the work space and their number after them. (Whole arrays, not
# slices of one: measured faster.)
_W_COUNT = NUM_ACTIONS


@njit(**_JIT)
def _row_size():
    return NUM_ACTIONS


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
def _chance_action(s, rng, outcomes, probs):
    m = engine.chance_outcomes(s, outcomes, probs)
    return outcomes[sample(probs, m, rng)]


@njit(**_JIT)
def _terminal_value(s, p, utility, returns):
    if utility == RANK:  # 2 players: +1 a better hand, -1 a worse, 0 a tie (H7: a fair draw)
        mine, theirs = s[S_KEY + p], s[S_KEY + 1 - p]
        return 1.0 if mine > theirs else (-1.0 if mine < theirs else 0.0)
    if utility == POT_MEAN:  # `returns` as scratch for the places' expected values
        expected_places(s, returns)
        return pot_mean_value(s, p, returns)
    engine.returns(s, returns)
    return returns[p]


@njit(**_JIT)
def _max_actions():
    return NUM_ACTIONS


@njit(**_JIT)
def _work_size():
    return NUM_ACTIONS + 1


# lookup_before_children: `exact` has perfect recall, but its blocks are claimed in
# visiting order, as before the shared kernel, so that a seed gives the same tables.
HAN_SOLO_HOOKS = mccfr_hooks(
    "solver.han_solo.mccfr", row_size=_row_size, row_width=no_row_width,
    row_start=no_row_start, key=_key, choices=_choices,
    lookup_after_children=lookup_before_children,
    chance_action=_chance_action, terminal_value=_terminal_value, max_actions=_max_actions,
    max_choices=_max_actions, work_size=_work_size, expand_probability=expand_every_decision)

HAN_SOLO = MCCFRGame(engine.ENGINE, HAN_SOLO_HOOKS, LEVELS, UTILITIES, STREAM_HAN_SOLO_MCCFR,
                     lambda game: game.initial_array.copy(), check_options,
                     count_free_levels=("many",))  # no seat, the others counted and capped
