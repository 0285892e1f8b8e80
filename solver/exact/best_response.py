"""Exact best responses, exploitability and NashConv on a whole game tree.

A best response of player p to a fixed profile picks, in each p-infoset I, the action
maximising sum_{h in I} pi_-p(h) * v_p(h.a), where v_p below h already uses p's best
responses further down. With perfect recall all histories of I share p's decision depth
(how many p-decisions precede them), so infosets are fixed level by level, deepest first:
each level is one backward sweep in which deeper levels are already fixed.

exploitability = NashConv / players, NashConv = sum_p (BR_p - v_p(profile)), as in
OpenSpiel (`pyspiel.exploitability`, `pyspiel.nash_conv`).
"""

from __future__ import annotations

import numpy as np
from numba import njit

from solver.exact.cfr import TreeArrays, reach_sweep, value_sweep
from solver.exact.tree import CHANCE, DECISION, TERMINAL, GameTree

_JIT = dict(cache=True, nogil=True)


@njit(**_JIT)
def _own_depth(kind, player, child_start, num_children, edge_child, p, depth):
    """depth[node]: number of p's decisions strictly above node."""
    depth[0] = 0
    for node in range(len(kind)):
        if kind[node] == TERMINAL:
            continue
        step = 1 if kind[node] == DECISION and player[node] == p else 0
        start = child_start[node]
        for i in range(num_children[node]):
            depth[edge_child[start + i]] = depth[node] + step


@njit(**_JIT)
def _best_response_sweep(kind, player, infoset, child_start, num_children, edge_child,
                         edge_prob, utility, offsets, strategy, p, opponent_reach, depth,
                         level, best, q_values, value):
    """One backward sweep: values with p's fixed best actions; q for infosets at `level`."""
    for node in range(len(kind) - 1, -1, -1):
        if kind[node] == TERMINAL:
            value[node] = utility[node, p]
            continue
        start = child_start[node]
        if kind[node] == CHANCE:
            v = 0.0
            for i in range(num_children[node]):
                v += edge_prob[start + i] * value[edge_child[start + i]]
            value[node] = v
        elif player[node] != p:
            lo = offsets[infoset[node]]
            v = 0.0
            for i in range(num_children[node]):
                v += strategy[lo + i] * value[edge_child[start + i]]
            value[node] = v
        else:
            info = infoset[node]
            if best[info] >= 0:
                value[node] = value[edge_child[start + best[info]]]
            else:
                value[node] = 0.0  # not needed at this level
                if depth[node] == level:
                    lo = offsets[info]
                    for i in range(num_children[node]):
                        q_values[lo + i] += opponent_reach[node] * value[edge_child[start + i]]


def best_response(tree: GameTree, strategy: np.ndarray, p: int,
                  arrays: TreeArrays | None = None) -> tuple[float, np.ndarray]:
    """(value of p's best response to `strategy`, best action index per infoset or -1)."""
    a = arrays or TreeArrays(tree)
    reach = np.zeros((tree.num_nodes, tree.num_players + 1))
    reach_sweep(a.kind, a.player, a.infoset, a.child_start, a.num_children, a.edge_child,
                a.edge_prob, a.offsets, strategy, a.num_players, reach)
    opponent_reach = reach[:, a.num_players].copy()
    for q in range(a.num_players):
        if q != p:
            opponent_reach *= reach[:, q]
    depth = np.zeros(tree.num_nodes, dtype=np.int32)
    _own_depth(a.kind, a.player, a.child_start, a.num_children, a.edge_child, p, depth)
    best = np.full(tree.num_infosets, -1, dtype=np.int32)
    value = np.zeros(tree.num_nodes)
    q_values = np.zeros(int(a.offsets[-1]))
    own = (a.kind == DECISION) & (a.player == p)
    max_level = int(depth[own].max()) if own.any() else -1
    for level in range(max_level, -1, -1):
        _best_response_sweep(*a.args(), strategy, p, opponent_reach, depth, level, best,
                             q_values, value)
        for info in np.flatnonzero(a.infoset_player == p):
            if depth[tree.infoset_node[info]] == level:
                lo, hi = a.offsets[info], a.offsets[info + 1]
                best[info] = int(np.argmax(q_values[lo:hi]))
    _best_response_sweep(*a.args(), strategy, p, opponent_reach, depth, -1, best,
                         q_values, value)
    return float(value[0]), best


def with_best_response(tree: GameTree, strategy: np.ndarray, p: int,
                       arrays: TreeArrays | None = None) -> tuple[float, np.ndarray]:
    """(value of p's best response, `strategy` with p's rows replaced by it: the first
    best action of each infoset it reaches; the rows of the others and of p's unreached
    infosets as they were)."""
    value, best = best_response(tree, strategy, p, arrays)
    out = strategy.copy()
    offsets = tree.action_offsets()
    for info in np.flatnonzero((tree.infoset_player == p) & (best >= 0)):
        out[offsets[info]:offsets[info + 1]] = 0.0
        out[offsets[info] + best[info]] = 1.0
    return value, out


def profile_values(tree: GameTree, strategy: np.ndarray,
                   arrays: TreeArrays | None = None) -> np.ndarray:
    """Each player's expected utility when everybody follows `strategy`."""
    a = arrays or TreeArrays(tree)
    value = np.zeros((tree.num_nodes, tree.num_players))
    value_sweep(*a.args(), strategy, value)
    return value[0].copy()


def nash_conv(tree: GameTree, strategy: np.ndarray,
              arrays: TreeArrays | None = None) -> float:
    a = arrays or TreeArrays(tree)
    on_policy = profile_values(tree, strategy, a)
    return float(sum(best_response(tree, strategy, p, a)[0] - on_policy[p]
                     for p in range(tree.num_players)))


def exploitability(tree: GameTree, strategy: np.ndarray,
                   arrays: TreeArrays | None = None) -> float:
    """NashConv / players: in a 2-player zero-sum game, what a best responder wins on average."""
    return nash_conv(tree, strategy, arrays) / tree.num_players
