"""Counterfactual regret minimisation on a whole game tree (solver/exact/tree.py), compiled.

Algorithms (Zinkevich et al. 2007, "Regret Minimization in Games with Incomplete
Information"; Tammelin 2014, CFR+; Brown & Sandholm 2019, "Solving Imperfect-Information
Games via Discounted Regret Minimization"):

1. Current strategy by regret matching: sigma(I, a) proportional to max(R(I, a), 0),
   uniform when no regret is positive.
2. For each player p in turn (alternating updates): a forward sweep computes every node's
   reach probability; a backward sweep computes node values; each p-node h of infoset I
   adds pi_-p(h) * (v_p(h.a) - v_p(h)) to R(I, a) and w_t * pi_p(h) * sigma(I, a) to the
   average-strategy sum S(I, a). Then p's strategy is recomputed.
3. Variants differ only in how R and S are discounted:
   - `cfr`: R += r, S += pi * sigma (vanilla; uniform averaging).
   - `cfr+`: R = max(R + r, 0), S += t * pi * sigma (linear averaging).
   - `dcfr` (alpha=1.5, beta=0, gamma=2): before iteration t's update, positive R are
     scaled by t^a/(t^a+1), negative R by t^b/(t^b+1), S by (t/(t+1))^g.
The average strategy S / sum(S) converges to a Nash equilibrium in 2-player zero-sum
games. Deviation: S sums over every history of an infoset rather than once per infoset;
with perfect recall pi_p is equal on all of them, so the normalised average is the same.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from solver.exact.tree import CHANCE, DECISION, TERMINAL, GameTree

ALGORITHMS = ("cfr", "cfr+", "dcfr")
DCFR_ALPHA, DCFR_BETA, DCFR_GAMMA = 1.5, 0.0, 2.0
_JIT = dict(cache=True, nogil=True)


class TreeArrays:
    """The tree arrays the kernels take, with per-node action offsets precomputed."""

    def __init__(self, tree: GameTree):
        self.kind = tree.kind
        self.player = tree.player
        self.infoset = tree.infoset
        self.child_start = tree.child_start
        self.num_children = tree.num_children
        self.edge_child = tree.edge_child
        self.edge_prob = tree.edge_prob
        self.utility = tree.utility
        self.offsets = tree.action_offsets()
        self.num_players = tree.num_players
        self.infoset_player = tree.infoset_player

    def args(self):
        return (self.kind, self.player, self.infoset, self.child_start, self.num_children,
                self.edge_child, self.edge_prob, self.utility, self.offsets)


@njit(**_JIT)
def regret_matching(regret, offsets, strategy, infoset_player, player):
    """sigma from positive regrets, for the infosets of `player` (-1: all)."""
    for info in range(len(offsets) - 1):
        if player >= 0 and infoset_player[info] != player:
            continue
        lo, hi = offsets[info], offsets[info + 1]
        total = 0.0
        for k in range(lo, hi):
            if regret[k] > 0:
                total += regret[k]
        for k in range(lo, hi):
            if total > 0:
                strategy[k] = regret[k] / total if regret[k] > 0 else 0.0
            else:
                strategy[k] = 1.0 / (hi - lo)


@njit(**_JIT)
def reach_sweep(kind, player, infoset, child_start, num_children, edge_child, edge_prob,
                offsets, strategy, num_players, reach):
    """reach[node, q]: q's own contribution (q = num_players: chance) to reaching node."""
    reach[0, :] = 1.0
    for node in range(len(kind)):
        if kind[node] == TERMINAL:
            continue
        start = child_start[node]
        for i in range(num_children[node]):
            child = edge_child[start + i]
            reach[child, :] = reach[node, :]
            if kind[node] == CHANCE:
                reach[child, num_players] *= edge_prob[start + i]
            else:
                reach[child, player[node]] *= strategy[offsets[infoset[node]] + i]


@njit(**_JIT)
def value_sweep(kind, player, infoset, child_start, num_children, edge_child, edge_prob,
                utility, offsets, strategy, value):
    """value[node, q]: q's expected utility below node when everybody plays `strategy`."""
    for node in range(len(kind) - 1, -1, -1):
        if kind[node] == TERMINAL:
            value[node, :] = utility[node, :]
            continue
        value[node, :] = 0.0
        start = child_start[node]
        for i in range(num_children[node]):
            if kind[node] == CHANCE:
                w = edge_prob[start + i]
            else:
                w = strategy[offsets[infoset[node]] + i]
            value[node, :] += w * value[edge_child[start + i], :]


@njit(**_JIT)
def _update_player(kind, player, infoset, child_start, num_children, edge_child, offsets,
                   strategy, reach, value, p, num_players, regret, strategy_sum,
                   average_weight, floor_regret):
    for node in range(len(kind)):
        if kind[node] != DECISION or player[node] != p:
            continue
        cf_reach = reach[node, num_players]
        for q in range(num_players):
            if q != p:
                cf_reach *= reach[node, q]
        own_reach = reach[node, p]
        lo = offsets[infoset[node]]
        start = child_start[node]
        for i in range(num_children[node]):
            regret[lo + i] += cf_reach * (value[edge_child[start + i], p] - value[node, p])
            strategy_sum[lo + i] += average_weight * own_reach * strategy[lo + i]
    if floor_regret:
        for k in range(len(regret)):
            if regret[k] < 0:
                regret[k] = 0.0


@njit(**_JIT)
def _discount(regret, strategy_sum, t, alpha, beta, gamma):
    positive = t ** alpha / (t ** alpha + 1.0)
    negative = t ** beta / (t ** beta + 1.0)
    for k in range(len(regret)):
        regret[k] *= positive if regret[k] > 0 else negative
    strategy_sum *= (t / (t + 1.0)) ** gamma


class CFRSolver:
    """Tabular CFR, CFR+ or DCFR over a GameTree; `average_strategy()` is the output.

    Node locking: `locked` (bool per infoset) fixes those infosets' strategy to
    `locked_strategy` (per (infoset, action), as the flat strategy arrays), so the others
    respond to it; the search locks the blueprint where it does not re-solve.

    Trembles: `floor` (per (infoset, action), 0 where none; each infoset's sum below 1)
    makes every action a of an infoset with a floor played with at least floor[a]: the
    strategy played and averaged is floor + (1 - sum of the infoset's floors) x the
    regret-matching one (a perturbed game, as in trembling-hand refinements: Farina &
    Gatti 2017; the search's refined gadgets, solver/search/subgame.py). No floor: the
    plain algorithm, unchanged."""

    def __init__(self, tree: GameTree, algorithm: str = "cfr",
                 locked: np.ndarray | None = None, locked_strategy: np.ndarray | None = None,
                 floor: np.ndarray | None = None):
        if algorithm not in ALGORITHMS:
            raise ValueError(f"algorithm {algorithm!r}: allowed are {', '.join(ALGORITHMS)}")
        self.tree = tree
        self.algorithm = algorithm
        self.arrays = TreeArrays(tree)
        size = int(self.arrays.offsets[-1])
        self.regret = np.zeros(size)
        self.strategy_sum = np.zeros(size)
        self.strategy = np.zeros(size)
        self._locked = None
        if locked is not None and locked.any():
            self._locked = np.repeat(locked, np.diff(self.arrays.offsets))
            self._locked_values = np.asarray(locked_strategy)[self._locked]
        self._trembling = None
        if floor is not None and np.any(floor > 0):
            floor = np.asarray(floor, dtype=np.float64)
            sizes = np.diff(self.arrays.offsets)
            per_infoset = np.add.reduceat(floor, self.arrays.offsets[:-1]) if size else floor
            if np.any(floor < 0) or np.any(per_infoset >= 1):
                raise ValueError("trembles are >= 0 and sum below 1 at each infoset")
            self._trembling = np.repeat(per_infoset > 0, sizes)
            self._floor = floor
            self._floor_scale = np.repeat(1.0 - per_infoset, sizes)
            self._entry_player = np.repeat(self.arrays.infoset_player, sizes)
        regret_matching(self.regret, self.arrays.offsets, self.strategy,
                        self.arrays.infoset_player, -1)
        self._lock()
        self.iterations = 0
        n = tree.num_nodes
        self._reach = np.zeros((n, tree.num_players + 1))
        self._value = np.zeros((n, tree.num_players))

    def iteration(self) -> None:
        a = self.arrays
        self.iterations += 1
        t = self.iterations
        if self.algorithm == "dcfr" and t > 1:  # discount what iterations 1..t-1 summed
            _discount(self.regret, self.strategy_sum, float(t - 1), DCFR_ALPHA, DCFR_BETA,
                      DCFR_GAMMA)
        weight = float(t) if self.algorithm == "cfr+" else 1.0
        for p in range(a.num_players):
            reach_sweep(a.kind, a.player, a.infoset, a.child_start, a.num_children,
                        a.edge_child, a.edge_prob, a.offsets, self.strategy, a.num_players,
                        self._reach)
            value_sweep(*a.args(), self.strategy, self._value)
            _update_player(a.kind, a.player, a.infoset, a.child_start, a.num_children,
                           a.edge_child, a.offsets, self.strategy, self._reach, self._value,
                           p, a.num_players, self.regret, self.strategy_sum, weight,
                           self.algorithm == "cfr+")
            regret_matching(self.regret, a.offsets, self.strategy, a.infoset_player, p)
            self._lock(p)

    def _lock(self, player: int = -1) -> None:
        """Locked infosets to their strategy; trembles on the infosets of `player` (-1:
        all), whose strategy regret matching has just recomputed."""
        if self._trembling is not None:
            at = self._trembling if player < 0 else (self._trembling
                                                     & (self._entry_player == player))
            self.strategy[at] = self._floor[at] + self._floor_scale[at] * self.strategy[at]
        if self._locked is not None:
            self.strategy[self._locked] = self._locked_values

    def average_strategy(self) -> np.ndarray:
        return normalise(self.strategy_sum, self.arrays.offsets)


def normalise(weights: np.ndarray, offsets: np.ndarray) -> np.ndarray:
    """Per-infoset normalisation; an infoset never reached gets the uniform strategy."""
    out = np.empty_like(weights)
    for info in range(len(offsets) - 1):
        lo, hi = offsets[info], offsets[info + 1]
        total = weights[lo:hi].sum()
        out[lo:hi] = weights[lo:hi] / total if total > 0 else 1.0 / (hi - lo)
    return out
