"""The compiled external-sampling MCCFR traversal, one kernel for every engine
(solver/mccfr/solver.py ties it to the tables and threads).

The kernel takes two function sets (spiel_game/interface.py): the engine's interface
(`engine`: terminal, chance, player, legal actions, apply, returns) and the game's MCCFR
hooks (`hooks`, solver/mccfr/hooks.py: keys, the table's choices, chance sampling, the
utility). numba compiles and caches it once per pair; solver/mccfr/games.py pairs them.

Algorithm (Lanctot et al. 2009, "Monte Carlo Sampling for Regret Minimization in
Extensive Games"), one iteration per traverser p:
1. Walk down from the root. At chance nodes sample one outcome with its true odds; at an
   opponent's node sample one action from the current strategy (regret matching) and add
   that strategy to the opponent's average-strategy sum; at p's node try every action.
2. At p's node I with sampled values v(a): v = sum_a sigma(a) v(a); R(I, a) += v(a) - v.
   (The sampling weights cancel the counterfactual reach in expectation.)
The average strategy (normalised sums) converges to equilibrium in 2-player zero-sum games.
A game too long for that (sarlaccs_pit: some 27 decisions a player, and an expanded
traverser multiplies the traversal by each one's choices) has hooks whose
`expand_probability` is below 1: each traverser decision is expanded with that chance,
else sampled from the current strategy (no regret or average update there). The values
are then still unbiased for the current strategy, but a decision's regret is weighted by
the chance that the traverser's own sampling reached it: a heuristic, no longer the
convergence guarantee (docs/sarlaccs-pit.md).

Random numbers: the stream in rng[0] (solver/sim/rng.py), drawn by solver/sim/sampler.py
(`sample`, inlined; chance by the hooks' `chance_action`); rng[1] counts the nodes touched.

Threads run traversals (the kernel releases the GIL) that share the tables
(solver/mccfr/table.py: keys and blocks are claimed atomically); regret and strategy-sum
additions are not atomic ("Hogwild"), so a rare concurrent update of the same value can
be lost. One thread is deterministic for a seed.

Speed (README "Full-game solver"): the traversal is a loop over an explicit stack, not a
recursion; it allocates nothing per node; it carries each player's key state down the
path (the hooks' rows: abstraction.path_key for the Love Letter engine), so a decision
reads only the events logged since that player's last key; it works on arrays without
numba's reference counting (`unmanaged`); one thread writes the table with plain stores.
Where the hooks say a level has perfect recall, a traverser node looks its block up after
its children, so that lookup's cache miss overlaps them.
"""

from __future__ import annotations

import collections

import numpy as np
from numba import njit

# The function sets the kernel is compiled for: the Love Letter engine's, imported so that
# spiel_game/jit_cache.py clears the kernel's cache when an engine or hooks module changes
# (the cache holds their code, but numba checks it against this file only); another
# game's hooks module, a layer above, names this one in its COMPILED_INTO instead.
from solver.mccfr import games  # noqa: F401
from solver.mccfr.intrinsics import unmanaged
from solver.mccfr.table import (META_FULL, META_KEYS, META_SLOTS_USED, claim_block,
                                prefetch_slot)
from solver.sim.rng import next_float
from solver.sim.sampler import sample

_JIT = {"cache": True, "nogil": True}
# The traversal kernel is cached like the rest: numba checks a cached function against
# its own file only, but spiel_game/jit_cache.py deletes it when solver/abstraction/keys.py
# (or anything else it compiles in) changes.
_JIT_KERNEL = _JIT
_ONE = np.uint64(1)


@njit(inline="always", **_JIT)
def _regret_matching(regret, offset, n, out):
    total = 0.0
    for i in range(n):
        if regret[offset + i] > 0:
            total += regret[offset + i]
    for i in range(n):
        if total > 0:
            out[i] = max(regret[offset + i], 0.0) / total
        else:
            out[i] = 1.0 / n


_MAX_DEPTH = 256  # traverser nodes on one path (fewer than the events of a round)
# Per traverser node on the stack (rows of Workspace.frames): its number of choices, the
# next child to visit, its table offset, its key (identity: looked up after its children).
F_OPTIONS, F_NEXT, F_OFFSET, F_KEY = 0, 1, 2, 3

# The table's arrays and the traversal's work space, as passed to the compiled kernel.
TableArrays = collections.namedtuple("TableArrays", "slots regret strategy_sum meta")
Workspace = collections.namedtuple(
    "Workspace", "returns states rows actions sigmas values frames key_work")


@njit(inline="always", **_JIT)
def _copy_prefix(source, target, size):
    """target[:size] = source[:size], as a plain loop: numba's slice assignment checks
    for overlap and was measured at 7x the time of this loop for a state."""
    for k in range(size):
        target[k] = source[k]


@njit(inline="always", **_JIT_KERNEL)
def _descend(engine, hooks, depth, p, level, utility, weight, shared, table, work, rng):
    """Walk down from work.states[depth] in place through chance and opponent nodes
    (sampling them) to a terminal node or one of p's nodes; counts nodes in rng[1].

    At p's node returns (True, 0.0) with the node's frame, choices (work.actions[depth])
    and strategy (work.sigmas[depth]) set; where the hooks look a key up after its
    children (perfect recall) the frame holds the key instead, and `_close_node` looks
    the block up. Else returns (False, value): the terminal value for p, or 0.0 when the
    table is full (the traversal is abandoned and the caller grows the table).
    A decision with one choice (the hooks' key 0) is played without a key.
    """
    s = work.states[depth]
    while True:
        rng[1] += _ONE
        if engine.is_terminal(s):
            return False, hooks.terminal_value(s, p, utility, work.returns)
        if engine.is_chance(s):
            engine.apply_action(s, hooks.chance_action(s, rng, work.actions[depth],
                                                       work.sigmas[depth]))
            continue
        actor = engine.current_player(s)
        row = work.rows[depth, actor]
        key = hooks.key(s, actor, level, row, work.key_work)
        prefetch_slot(table.slots, key)
        choices = work.actions[depth]
        n = hooks.choices(s, level, row, work.key_work, choices)
        if key == 0:
            engine.apply_action(s, choices[0])
            continue
        # A traverser's decision is expanded (every choice tried), or, with the hooks'
        # expand_probability below 1 (long games: expanding each one costs the product of
        # their choices), and always on the stack's last row, sampled as an opponent's.
        expand = actor == p and depth < _MAX_DEPTH - 1 and (
            hooks.expand_probability(level) >= 1.0
            or next_float(rng) < hooks.expand_probability(level))
        if expand:
            work.frames[F_OPTIONS, depth] = n
            work.frames[F_NEXT, depth] = 0
            if hooks.lookup_after_children(level):
                # Perfect recall: this key cannot recur below this node, so its regrets
                # are the same after its children, and its lookup's cache miss can
                # overlap them.
                work.frames[F_KEY, depth] = key
                return True, 0.0
        offset = claim_block(table.slots, table.regret, table.meta, key, n, shared)
        if offset < 0:
            return False, 0.0
        sigma = work.sigmas[depth]
        _regret_matching(table.regret, offset, n, sigma)
        if expand:
            work.frames[F_OFFSET, depth] = offset
            return True, 0.0
        if actor != p:  # the average strategy sums the opponents' decisions only
            for i in range(n):
                table.strategy_sum[offset + i] += weight * sigma[i]
        engine.apply_action(s, choices[sample(sigma, n, rng)])


@njit(**_JIT_KERNEL)
def _close_node(hooks, depth, level, shared, table, work):
    """p's node at `depth` after all its children: its value v = sum_a sigma(a) v(a), and
    the regret update R(I, a) += v(a) - v (none if a subtree was abandoned: its values
    are incomplete)."""
    if table.meta[META_FULL]:
        return 0.0
    n = work.frames[F_OPTIONS, depth]
    sigma = work.sigmas[depth]
    if hooks.lookup_after_children(level):
        offset = claim_block(table.slots, table.regret, table.meta, work.frames[F_KEY, depth],
                             n, shared)
        if offset < 0:
            return 0.0
        _regret_matching(table.regret, offset, n, sigma)
    else:
        offset = work.frames[F_OFFSET, depth]
    value = 0.0
    for i in range(n):
        value += sigma[i] * work.values[depth, i]
    for i in range(n):
        table.regret[offset + i] += work.values[depth, i] - value
    return value


@njit(**_JIT_KERNEL)
def _traverse(engine, hooks, p, level, utility, weight, shared, table, work, rng):
    """One traversal for traverser p from work.states[0] / work.rows[0]; returns p's
    sampled value.

    Depth-first with an explicit stack of p's nodes (no recursion, no allocation): the
    node at depth d keeps its state, path rows, choices, strategy, child values and
    frame in row d of the work arrays, and builds each child in row d + 1 in turn.
    """
    num_players = engine.num_players(work.states[0])
    width = hooks.row_width(level)
    frames = work.frames
    depth = 0
    while True:
        at_node, value = _descend(engine, hooks, depth, p, level, utility, weight, shared,
                                  table, work, rng)
        if not at_node:
            # Hand the value up: to the node above, and on up through every node whose
            # children are all done.
            while True:
                if depth == 0:
                    return value
                depth -= 1
                i = frames[F_NEXT, depth]
                work.values[depth, i] = value
                frames[F_NEXT, depth] = i + 1
                if i + 1 < frames[F_OPTIONS, depth]:
                    break
                value = _close_node(hooks, depth, level, shared, table, work)
        # Build the next child of the node at `depth` one row down.
        parent, child = work.states[depth], work.states[depth + 1]
        _copy_prefix(parent, child, engine.used_size(parent))
        for q in range(num_players):
            _copy_prefix(work.rows[depth, q], work.rows[depth + 1, q], width)
        engine.apply_action(child, work.actions[depth, frames[F_NEXT, depth]])
        depth += 1


@njit(**_JIT)
def _keep_alive(owners):
    """A use of `owners`: numba frees a variable after its last use, and the unmanaged
    views of these arrays must not outlive them."""
    return len(owners)


@njit(**_JIT_KERNEL)
def run_iterations(engine, hooks, root, level, utility, iterations, done_before, linear,
                   slots, regret, strategy_sum, meta, rng, max_keys, max_values, shared):
    """Up to `iterations` iterations (one traversal per player each) of the game of
    `engine` and `hooks` from `root`; stops early, before an iteration, once the table
    passes max_keys or max_values. Returns iterations done. `level`, `utility`: the
    hooks' key level and utility. `linear`: iteration t (counting `done_before` earlier
    ones) adds t x the strategy to the average (linear averaging, Brown and Sandholm
    2019), so the uniform play of a key's first visits fades; else 1 x. `shared`: other
    threads use the same tables (claim keys atomically). `rng`: uint64, [random stream
    (solver/sim/rng.py), nodes touched].

    Every array is used through an unmanaged view (no reference counting): the caller
    owns the table, root and rng; the work space is allocated here (measured ~10% faster on
    the small deck than a work space passed in) and kept alive to the end.
    """
    num_players = engine.num_players(root)
    owners = (np.zeros(num_players, dtype=np.float64),
              np.zeros((_MAX_DEPTH, len(root)), dtype=root.dtype),
              np.zeros((_MAX_DEPTH, num_players, hooks.row_size()), dtype=np.int32),
              np.zeros((_MAX_DEPTH, hooks.max_actions()), dtype=np.int32),
              np.zeros((_MAX_DEPTH, hooks.max_choices()), dtype=np.float64),
              np.zeros((_MAX_DEPTH, hooks.max_choices()), dtype=np.float64),
              np.zeros((4, _MAX_DEPTH), dtype=np.int64),
              np.zeros(hooks.work_size(), dtype=np.int32))
    work = Workspace(unmanaged(owners[0]), unmanaged(owners[1]), unmanaged(owners[2]),
                     unmanaged(owners[3]), unmanaged(owners[4]), unmanaged(owners[5]),
                     unmanaged(owners[6]), unmanaged(owners[7]))
    table = TableArrays(unmanaged(slots), unmanaged(regret), unmanaged(strategy_sum),
                        unmanaged(meta))
    root, rng = unmanaged(root), unmanaged(rng)
    root_size = engine.used_size(root)
    done = iterations
    for t in range(iterations):
        if (table.meta[META_FULL] or table.meta[META_KEYS] > max_keys
                or table.meta[META_SLOTS_USED] > max_values):
            done = t
            break
        weight = float(done_before + t + 1) if linear else 1.0
        for p in range(num_players):
            _copy_prefix(root, work.states[0], root_size)
            for q in range(num_players):
                hooks.row_start(work.rows[0, q], q, level)
            _traverse(engine, hooks, p, level, utility, weight, shared, table, work, rng)
    _keep_alive(owners)  # the single exit: the work space outlives its views
    return done
