"""External-sampling Monte Carlo CFR, compiled over the rules engine (no Python per node).

Algorithm (Lanctot et al. 2009, "Monte Carlo Sampling for Regret Minimization in
Extensive Games"), one iteration per traverser p:
1. Walk down from the root. At chance nodes sample one outcome with its true odds; at an
   opponent's node sample one action from the current strategy (regret matching) and add
   that strategy to the opponent's average-strategy sum; at p's node try every action.
2. At p's node I with sampled values v(a): v = sum_a sigma(a) v(a); R(I, a) += v(a) - v.
   (The sampling weights cancel the counterfactual reach in expectation.)
The average strategy (normalised sums) converges to equilibrium in 2-player zero-sum games.

Tables: an open-addressing hash (linear probing) from abstract key (solver/abstraction.py)
to a block of float32 regrets and float32 strategy sums, one slot per legal action,
allocated on first visit. The table doubles when it is half full.
"""

from __future__ import annotations

import dataclasses

import numpy as np
from numba import njit

from spiel_game import engine
from spiel_game import layout as L

from .abstraction import abstract_key

_JIT = dict(cache=True, nogil=True)
META_SLOTS_USED, META_KEYS, META_CAPACITY = 0, 1, 2
_MAX_LOAD = 0.5


@dataclasses.dataclass
class Tables:
    """The hash table and its flat value arrays."""

    keys: np.ndarray  # int64 per slot, 0 = empty
    offsets: np.ndarray  # int64 per slot: start of the key's block in regret/strategy_sum
    num_actions: np.ndarray  # int8 per slot
    regret: np.ndarray  # float32
    strategy_sum: np.ndarray  # float32
    meta: np.ndarray  # int64: values used, keys stored, capacity

    @classmethod
    def empty(cls, capacity: int = 1 << 16, values: int = 1 << 18) -> Tables:
        if capacity & (capacity - 1):
            raise ValueError("capacity must be a power of two")
        meta = np.zeros(3, dtype=np.int64)
        meta[META_CAPACITY] = capacity
        return cls(np.zeros(capacity, np.int64), np.zeros(capacity, np.int64),
                   np.zeros(capacity, np.int8), np.zeros(values, np.float32),
                   np.zeros(values, np.float32), meta)

    @property
    def num_keys(self) -> int:
        return int(self.meta[META_KEYS])

    def needs_growth(self, margin_keys: int, margin_values: int) -> bool:
        return (self.num_keys + margin_keys > _MAX_LOAD * len(self.keys)
                or self.meta[META_SLOTS_USED] + margin_values > len(self.regret))

    def grown(self) -> Tables:
        """A copy with twice the key capacity and value space, every key rehashed."""
        bigger = Tables.empty(2 * len(self.keys), 2 * len(self.regret))
        used = int(self.meta[META_SLOTS_USED])
        bigger.regret[:used] = self.regret[:used]
        bigger.strategy_sum[:used] = self.strategy_sum[:used]
        _rehash(self.keys, self.offsets, self.num_actions, bigger.keys, bigger.offsets,
                bigger.num_actions)
        bigger.meta[:] = self.meta
        bigger.meta[META_CAPACITY] = len(bigger.keys)
        return bigger

    def args(self):
        return (self.keys, self.offsets, self.num_actions, self.regret, self.strategy_sum,
                self.meta)


@njit(**_JIT)
def _rehash(keys, offsets, num_actions, new_keys, new_offsets, new_num_actions):
    mask = len(new_keys) - 1
    for i in range(len(keys)):
        if keys[i] != 0:
            j = keys[i] & mask
            while new_keys[j] != 0:
                j = (j + 1) & mask
            new_keys[j] = keys[i]
            new_offsets[j] = offsets[i]
            new_num_actions[j] = num_actions[i]


@njit(**_JIT)
def find_slot(keys, key):
    """Index of `key`'s slot, or of the empty slot where it would go."""
    mask = len(keys) - 1
    j = key & mask
    while keys[j] != 0 and keys[j] != key:
        j = (j + 1) & mask
    return j


@njit(**_JIT)
def _block(keys, offsets, num_actions, meta, key, n):
    """Offset of key's block of n values, inserting it if new."""
    j = find_slot(keys, key)
    if keys[j] == 0:
        keys[j] = key
        offsets[j] = meta[META_SLOTS_USED]
        num_actions[j] = n
        meta[META_SLOTS_USED] += n
        meta[META_KEYS] += 1
    return offsets[j]


@njit(**_JIT)
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


@njit(**_JIT)
def _next(seed):
    return (seed * 48271) % 2147483647


@njit(**_JIT)
def _traverse(s, p, level, keys, offsets, num_actions, regret, strategy_sum, meta, rng,
              returns_buf):
    """Sampled value for traverser p below s (s is consumed); counts nodes in rng[1]."""
    rng[1] += 1
    if engine.is_terminal(s):
        engine.returns(s, returns_buf)
        return returns_buf[p]
    if engine.is_chance(s):
        rng[0] = _next(rng[0])
        engine.apply_action(s, engine.sample_chance(s, rng[0]))
        return _traverse(s, p, level, keys, offsets, num_actions, regret, strategy_sum, meta,
                         rng, returns_buf)
    actions = np.empty(L.NUM_ACTIONS, dtype=np.int32)
    n = engine.legal_actions(s, actions)
    actor = engine.current_actor(s)
    key = abstract_key(s, actor, level)
    offset = _block(keys, offsets, num_actions, meta, key, n)
    sigma = np.empty(n, dtype=np.float64)
    _regret_matching(regret, offset, n, sigma)
    if actor != p:
        for i in range(n):
            strategy_sum[offset + i] += sigma[i]
        rng[0] = _next(rng[0])
        u = (rng[0] - 1) / 2147483646.0
        i = 0
        while i < n - 1 and u >= sigma[i]:
            u -= sigma[i]
            i += 1
        engine.apply_action(s, actions[i])
        return _traverse(s, p, level, keys, offsets, num_actions, regret, strategy_sum, meta,
                         rng, returns_buf)
    values = np.empty(n, dtype=np.float64)
    value = 0.0
    for i in range(n):
        child = s.copy()
        engine.apply_action(child, actions[i])
        values[i] = _traverse(child, p, level, keys, offsets, num_actions, regret,
                              strategy_sum, meta, rng, returns_buf)
        value += sigma[i] * values[i]
    for i in range(n):
        regret[offset + i] += values[i] - value
    return value


@njit(**_JIT)
def run_iterations(root, level, iterations, keys, offsets, num_actions, regret,
                   strategy_sum, meta, rng, max_keys, max_values):
    """Up to `iterations` iterations (one traversal per player each); stops early, before
    an iteration, once the table passes max_keys or max_values. Returns iterations done."""
    num_players = root[L.S_NUM_PLAYERS]
    returns_buf = np.zeros(num_players, dtype=np.float64)
    for t in range(iterations):
        if meta[META_KEYS] > max_keys or meta[META_SLOTS_USED] > max_values:
            return t
        for p in range(num_players):
            s = root.copy()
            _traverse(s, p, level, keys, offsets, num_actions, regret, strategy_sum, meta,
                      rng, returns_buf)
    return iterations


class MCCFRSolver:
    """External-sampling MCCFR on a jabbas_palace game; tables grow as needed."""

    def __init__(self, game, level: int = 0, seed: int = 1, tables: Tables | None = None):
        self.game = game
        self.root = game.initial_array.copy()
        self.root[L.S_LOGGING] = 1  # the keys are built from the event log
        self.level = level
        self.tables = tables or Tables.empty()
        self.rng = np.array([max(1, seed % 2147483647), 0], dtype=np.int64)
        self.iterations = 0

    @property
    def nodes_touched(self) -> int:
        return int(self.rng[1])

    def run(self, iterations: int) -> None:
        done = 0
        while done < iterations:
            # Leave room for one more iteration's new keys before the next check.
            margin_keys = 4096
            if self.tables.needs_growth(margin_keys, 8 * margin_keys):
                self.tables = self.tables.grown()
            capacity_keys = int(_MAX_LOAD * len(self.tables.keys)) - margin_keys
            capacity_values = len(self.tables.regret) - 8 * margin_keys
            step = run_iterations(self.root, self.level, iterations - done,
                                  *self.tables.args(), self.rng, capacity_keys,
                                  capacity_values)
            done += step
            self.iterations += step

    def average_strategy(self, s, player: int, n: int) -> np.ndarray | None:
        """The normalised average strategy at engine state s, or None if never visited."""
        t = self.tables
        j = find_slot(t.keys, abstract_key(s, player, self.level))
        if t.keys[j] == 0:
            return None
        block = t.strategy_sum[t.offsets[j]:t.offsets[j] + n].astype(np.float64)
        total = block.sum()
        return block / total if total > 0 else np.full(n, 1.0 / n)


def strategy_on_tree(solver: MCCFRSolver, tree) -> tuple[np.ndarray, int]:
    """The solver's average strategy on every infoset of a GameTree (uniform where the
    table has no entry); also returns how many infosets were missing."""
    from .tree import infoset_states

    offsets = tree.action_offsets()
    strategy = np.zeros(int(offsets[-1]))
    missing = 0
    for index, state in infoset_states(tree):
        n = len(tree.infoset_actions[index])
        probs = solver.average_strategy(state._s, int(tree.infoset_player[index]), n)
        if probs is None:
            missing += 1
            probs = np.full(n, 1.0 / n)
        strategy[offsets[index]:offsets[index + 1]] = probs
    return strategy, missing
