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

Both cores: traversals run in threads (the kernels release the GIL) that share the tables.
A key is claimed with an atomic compare-and-swap and its block with an atomic add, so
threads never corrupt the table; regret and strategy-sum additions are not atomic
("Hogwild"), so a rare concurrent update of the same value can be lost. One thread is
deterministic for a seed; checkpoints resume bit for bit.
"""

from __future__ import annotations

import dataclasses
import io
import json
import threading
import time
import zipfile
from pathlib import Path

import numpy as np
from numba import njit, types
from numba.core import cgutils
from numba.extending import intrinsic

from spiel_game import engine
from spiel_game import layout as L

from .abstraction import abstract_key

_JIT = dict(cache=True, nogil=True)
# The recursive kernel is compiled in each process: cached copies of it were seen to load
# with an unresolved recursive call (a jump to address 0) in a later process.
_JIT_RECURSIVE = dict(cache=False, nogil=True)
META_SLOTS_USED, META_KEYS, META_CAPACITY, META_FULL = 0, 1, 2, 3
_MAX_LOAD = 0.5
CHECKPOINT_FORMAT = "jabbas-palace-mccfr-checkpoint"
CHECKPOINT_VERSION = 1


@intrinsic
def _compare_and_swap(typingctx, array, index, expected, new):
    """Atomically: old = array[index]; if old == expected: array[index] = new; return old."""
    signature = types.int64(array, types.intp, types.int64, types.int64)

    def codegen(context, builder, sig, args):
        array_value, index_value, expected_value, new_value = args
        view = context.make_array(sig.args[0])(context, builder, array_value)
        pointer = cgutils.get_item_pointer(context, builder, sig.args[0], view, [index_value])
        result = builder.cmpxchg(pointer, expected_value, new_value, "seq_cst", "seq_cst")
        return builder.extract_value(result, 0)

    return signature, codegen


@intrinsic
def _fetch_add(typingctx, array, index, value):
    """Atomically: old = array[index]; array[index] += value; return old."""
    signature = types.int64(array, types.intp, types.int64)

    def codegen(context, builder, sig, args):
        array_value, index_value, add_value = args
        view = context.make_array(sig.args[0])(context, builder, array_value)
        pointer = cgutils.get_item_pointer(context, builder, sig.args[0], view, [index_value])
        return builder.atomic_rmw("add", pointer, add_value, "seq_cst")

    return signature, codegen


@dataclasses.dataclass
class Tables:
    """The hash table and its flat value arrays."""

    keys: np.ndarray  # int64 per slot, 0 = empty
    offsets: np.ndarray  # int64 per slot: start of the key's block in regret/strategy_sum
    num_actions: np.ndarray  # int8 per slot
    regret: np.ndarray  # float32
    strategy_sum: np.ndarray  # float32
    meta: np.ndarray  # int64: values used, keys stored, capacity, full flag

    @classmethod
    def empty(cls, capacity: int = 1 << 16, values: int = 1 << 18) -> Tables:
        if capacity & (capacity - 1):
            raise ValueError("capacity must be a power of two")
        meta = np.zeros(4, dtype=np.int64)
        meta[META_CAPACITY] = capacity
        return cls(np.zeros(capacity, np.int64), np.full(capacity, -1, np.int64),
                   np.zeros(capacity, np.int8), np.zeros(values, np.float32),
                   np.zeros(values, np.float32), meta)

    @property
    def num_keys(self) -> int:
        return int(self.meta[META_KEYS])

    def keys_full(self, margin_keys: int) -> bool:
        return self.num_keys + margin_keys > _MAX_LOAD * len(self.keys)

    def values_full(self, margin_values: int) -> bool:
        return self.meta[META_SLOTS_USED] + margin_values > len(self.regret)

    def grown(self, keys: bool = True, values: bool = True) -> Tables:
        """Twice the key capacity (every key rehashed) and/or twice the value space; the
        part not grown is shared, not copied."""
        key_arrays = (self.keys, self.offsets, self.num_actions)
        if keys:
            size = 2 * len(self.keys)
            key_arrays = (np.zeros(size, np.int64), np.full(size, -1, np.int64),
                          np.zeros(size, np.int8))
            _rehash(self.keys, self.offsets, self.num_actions, *key_arrays)
        regret, strategy_sum = self.regret, self.strategy_sum
        if values:
            used = int(self.meta[META_SLOTS_USED])
            regret = np.zeros(2 * len(self.regret), np.float32)
            strategy_sum = np.zeros(2 * len(self.regret), np.float32)
            regret[:used] = self.regret[:used]
            strategy_sum[:used] = self.strategy_sum[:used]
        meta = self.meta.copy()
        meta[META_CAPACITY] = len(key_arrays[0])
        return Tables(*key_arrays, regret, strategy_sum, meta)

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
def _block(keys, offsets, num_actions, regret, meta, key, n):
    """Offset of key's block of n values, inserting it if new (safe across threads);
    -1 when the table is too full to insert (it sets the full flag instead)."""
    mask = len(keys) - 1
    j = key & mask
    while True:
        current = keys[j]
        if current == 0:
            if (meta[META_KEYS] >= 0.9 * len(keys)
                    or meta[META_SLOTS_USED] + n + 32 > len(regret)):
                meta[META_FULL] = 1
                return -1
            current = _compare_and_swap(keys, j, 0, key)
            if current == 0:  # this thread claimed the slot
                num_actions[j] = n
                offset = _fetch_add(meta, META_SLOTS_USED, n)
                _fetch_add(meta, META_KEYS, 1)
                _compare_and_swap(offsets, j, -1, offset)  # publish the block last
                return offset
        if current == key:
            offset = _compare_and_swap(offsets, j, -1, -1)  # an atomic read
            while offset < 0:  # another thread is publishing this key's block
                offset = _compare_and_swap(offsets, j, -1, -1)
            return offset
        j = (j + 1) & mask


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
def sample_index(sigma, n, rng):
    """An index in [0, n) drawn with probabilities sigma, advancing the seed in rng[0]."""
    rng[0] = engine.next_random(rng[0])
    u = (rng[0] - 1) / 2147483646.0
    i = 0
    while i < n - 1 and u >= sigma[i]:
        u -= sigma[i]
        i += 1
    return i


_MAX_DEPTH = 256  # nodes on one path; a round has at most ~120 (layout.MAX_EVENTS)
_MAX_OPTIONS = 16


@njit(**_JIT_RECURSIVE)
def _traverse(s, depth, p, level, keys, offsets, num_actions, regret, strategy_sum, meta,
              rng, returns_buf, states, actions, sigmas, values):
    """Sampled value for traverser p below s (s is consumed); counts nodes in rng[1].

    Work space per depth (states, actions, sigmas, values) is preallocated: no allocation
    per node. A traverser node at depth d builds each child in states[d + 1] in turn.
    """
    while True:  # chance and opponent nodes continue in place
        rng[1] += 1
        if engine.is_terminal(s):
            engine.returns(s, returns_buf)
            return returns_buf[p]
        if engine.is_chance(s):
            rng[0] = engine.next_random(rng[0])
            engine.apply_action(s, engine.sample_chance(s, rng[0]))
            continue
        legal = actions[depth]
        n = engine.legal_actions(s, legal)
        actor = engine.current_actor(s)
        offset = _block(keys, offsets, num_actions, regret, meta,
                        abstract_key(s, actor, level), n)
        if offset < 0:
            return 0.0  # table full: abandon this traversal (the caller grows the table)
        sigma = sigmas[depth]
        _regret_matching(regret, offset, n, sigma)
        if actor == p:
            break
        for i in range(n):
            strategy_sum[offset + i] += sigma[i]
        engine.apply_action(s, legal[sample_index(sigma, n, rng)])
    used = L.S_EVENTS + s[L.S_EVENT_N] * L.EVENT_SIZE  # the log's tail is never read
    child = states[depth + 1]
    value = 0.0
    for i in range(n):
        child[:used] = s[:used]
        engine.apply_action(child, legal[i])
        values[depth, i] = _traverse(child, depth + 1, p, level, keys, offsets, num_actions,
                                     regret, strategy_sum, meta, rng, returns_buf, states,
                                     actions, sigmas, values)
        value += sigma[i] * values[depth, i]
    if meta[META_FULL]:
        return 0.0  # a subtree was abandoned: no update from incomplete values
    for i in range(n):
        regret[offset + i] += values[depth, i] - value
    return value


@njit(**_JIT_RECURSIVE)
def run_iterations(root, level, iterations, keys, offsets, num_actions, regret,
                   strategy_sum, meta, rng, max_keys, max_values):
    """Up to `iterations` iterations (one traversal per player each); stops early, before
    an iteration, once the table passes max_keys or max_values. Returns iterations done."""
    num_players = root[L.S_NUM_PLAYERS]
    returns_buf = np.zeros(num_players, dtype=np.float64)
    states = np.zeros((_MAX_DEPTH, len(root)), dtype=root.dtype)
    actions = np.zeros((_MAX_DEPTH, L.NUM_ACTIONS), dtype=np.int32)
    sigmas = np.zeros((_MAX_DEPTH, _MAX_OPTIONS), dtype=np.float64)
    values = np.zeros((_MAX_DEPTH, _MAX_OPTIONS), dtype=np.float64)
    for t in range(iterations):
        if (meta[META_FULL] or meta[META_KEYS] > max_keys
                or meta[META_SLOTS_USED] > max_values):
            return t
        for p in range(num_players):
            states[0][:] = root
            _traverse(states[0], 0, p, level, keys, offsets, num_actions, regret,
                      strategy_sum, meta, rng, returns_buf, states, actions, sigmas, values)
    return iterations


class MCCFRSolver:
    """External-sampling MCCFR on a jabbas_palace game; tables grow as needed."""

    def __init__(self, game, level: int = 0, seed: int = 1, threads: int = 1,
                 tables: Tables | None = None):
        if threads < 1:
            raise ValueError(f"threads must be at least 1, got {threads}")
        self.game = game
        self.root = game.initial_array.copy()
        self.root[L.S_LOGGING] = 1  # the keys are built from the event log
        self.level = level
        self.seed = seed
        self.tables = tables or Tables.empty()
        # Per thread: [random state, nodes touched].
        self.rngs = np.array([[max(1, (seed + 7919 * k) % 2147483647), 0]
                              for k in range(threads)], dtype=np.int64)
        self.iterations = 0
        self.seconds = 0.0

    @property
    def threads(self) -> int:
        return len(self.rngs)

    @property
    def nodes_touched(self) -> int:
        return int(self.rngs[:, 1].sum())

    def run(self, iterations: int, batch: int = 2000,
            on_batch=None, stop: threading.Event | None = None) -> None:
        """Run `iterations` more iterations in batches; between batches the table grows
        if needed and `on_batch(solver)` is called (progress, checkpoints). Ctrl-C ends
        the run after the current batch, keeping every finished iteration."""
        target = self.iterations + iterations
        try:
            while self.iterations < target and not (stop and stop.is_set()):
                self._run_batch(min(batch, target - self.iterations))
                if on_batch:
                    on_batch(self)
        except KeyboardInterrupt:
            if on_batch:
                on_batch(self)
            raise

    def _run_batch(self, iterations: int) -> None:
        margin_keys = 4096 * self.threads  # new keys one iteration per thread may add
        # A traversal that met a full table was abandoned part-way (its completed subtrees'
        # updates stand); grow whatever is short and go on.
        full = bool(self.tables.meta[META_FULL])
        grow_keys = self.tables.keys_full(margin_keys) or (
            full and self.tables.num_keys >= 0.45 * len(self.tables.keys))
        grow_values = self.tables.values_full(16 * margin_keys) or (full and not grow_keys)
        if grow_keys or grow_values:
            self.tables = self.tables.grown(keys=grow_keys, values=grow_values)
        self.tables.meta[META_FULL] = 0
        capacity_keys = int(_MAX_LOAD * len(self.tables.keys)) - margin_keys
        capacity_values = len(self.tables.regret) - 16 * margin_keys
        shares = [iterations // self.threads + (k < iterations % self.threads)
                  for k in range(self.threads)]
        done = [0] * self.threads
        start = time.perf_counter()

        def work(k: int) -> None:
            done[k] = run_iterations(self.root, self.level, shares[k], *self.tables.args(),
                                     self.rngs[k], capacity_keys, capacity_values)

        interrupted = False
        if self.threads == 1:
            work(0)
        else:
            workers = [threading.Thread(target=work, args=(k,)) for k in range(self.threads)]
            for worker in workers:
                worker.start()
            for worker in workers:
                while worker.is_alive():
                    try:  # Ctrl-C: let the batch finish, so the tables stay consistent
                        worker.join()
                    except KeyboardInterrupt:
                        interrupted = True
        self.iterations += sum(done)
        self.seconds += time.perf_counter() - start
        if interrupted:
            raise KeyboardInterrupt

    def average_strategy(self, s, player: int, n: int) -> np.ndarray | None:
        """The normalised average strategy at engine state s, or None if never visited."""
        t = self.tables
        j = find_slot(t.keys, abstract_key(s, player, self.level))
        if t.keys[j] == 0:
            return None
        block = t.strategy_sum[t.offsets[j]:t.offsets[j] + n].astype(np.float64)
        total = block.sum()
        return block / total if total > 0 else np.full(n, 1.0 / n)

    # Checkpoints ------------------------------------------------------------------------

    def _describe(self) -> dict:
        return {"format": CHECKPOINT_FORMAT, "format_version": CHECKPOINT_VERSION,
                "game": {k: v for k, v in self.game.get_parameters().items()},
                "level": self.level, "seed": self.seed, "threads": self.threads,
                "iterations": self.iterations, "seconds": self.seconds,
                "keys": self.tables.num_keys}

    def save_checkpoint(self, path: str | Path) -> None:
        """Everything needed to resume, as .npz (no pickles), written atomically."""
        from .results import code_version, write_atomic

        t = self.tables
        used = int(t.meta[META_SLOTS_USED])
        header = {**self._describe(), "code_version": code_version()}
        buffer = io.BytesIO()
        np.savez(buffer, header=np.array(json.dumps(header)), keys=t.keys, offsets=t.offsets,
                 num_actions=t.num_actions, regret=t.regret[:used],
                 strategy_sum=t.strategy_sum[:used], values_capacity=np.int64(len(t.regret)),
                 meta=t.meta, rngs=self.rngs)
        write_atomic(path, buffer.getvalue())

    @classmethod
    def from_checkpoint(cls, game, path: str | Path) -> MCCFRSolver:
        """Resume from `save_checkpoint`; refuses a file for another game or version."""
        try:
            with np.load(path, allow_pickle=False) as data:
                arrays = {name: data[name] for name in data.files}
            header = json.loads(str(arrays["header"]))
        except (OSError, ValueError, KeyError, EOFError, zipfile.BadZipFile) as err:
            raise ValueError(f"{path}: not a readable MCCFR checkpoint ({err}); it may be "
                             "truncated or corrupt") from None
        if header.get("format") != CHECKPOINT_FORMAT or \
                header.get("format_version") != CHECKPOINT_VERSION:
            raise ValueError(f"{path}: format {header.get('format')!r} version "
                             f"{header.get('format_version')!r}; expected "
                             f"{CHECKPOINT_FORMAT!r} version {CHECKPOINT_VERSION}")
        params = {k: v for k, v in game.get_parameters().items()}
        if header["game"] != params:
            raise ValueError(f"{path}: checkpoint is for game {header['game']}, not {params}")
        values = int(arrays["values_capacity"])
        used = len(arrays["regret"])
        tables = Tables(arrays["keys"], arrays["offsets"], arrays["num_actions"],
                        np.zeros(values, np.float32), np.zeros(values, np.float32),
                        arrays["meta"])
        tables.regret[:used] = arrays["regret"]
        tables.strategy_sum[:used] = arrays["strategy_sum"]
        solver = cls(game, level=header["level"], seed=header["seed"],
                     threads=header["threads"], tables=tables)
        solver.rngs = arrays["rngs"].copy()
        solver.iterations = header["iterations"]
        solver.seconds = header["seconds"]
        return solver


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
