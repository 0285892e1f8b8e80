"""External-sampling Monte Carlo CFR, compiled over the rules engine (no Python per node).

Algorithm (Lanctot et al. 2009, "Monte Carlo Sampling for Regret Minimization in
Extensive Games"), one iteration per traverser p:
1. Walk down from the root. At chance nodes sample one outcome with its true odds; at an
   opponent's node sample one action from the current strategy (regret matching) and add
   that strategy to the opponent's average-strategy sum; at p's node try every action.
2. At p's node I with sampled values v(a): v = sum_a sigma(a) v(a); R(I, a) += v(a) - v.
   (The sampling weights cancel the counterfactual reach in expectation.)
The average strategy (normalised sums) converges to equilibrium in 2-player zero-sum games.

Tables: an open-addressing hash (linear probing) from abstract key (solver/abstraction/keys.py)
to a block of float32 regrets and float32 strategy sums, one value per legal action,
allocated on first visit. A hash slot is 16 bytes: the key, then the block's offset and
size. The table doubles, in place, when it is half full.

Both cores: traversals run in threads (the kernels release the GIL) that share the tables.
A key is claimed with an atomic compare-and-swap and its block with an atomic add, so
threads never corrupt the table; regret and strategy-sum additions are not atomic
("Hogwild"), so a rare concurrent update of the same value can be lost. One thread is
deterministic for a seed; checkpoints resume bit for bit.

Speed (README "Full-game solver"): the traversal is a loop over an explicit stack, not a
recursion; it allocates nothing per node; it carries each player's key state down the
path (abstraction.path_key), so a decision reads only the events logged since that
player's last key; it works on arrays without numba's reference counting (`_unmanaged`);
one thread writes the table with plain stores. At identity (perfect recall) a traverser
node looks its block up after its children, so that lookup's cache miss overlaps them.
"""

from __future__ import annotations

import collections
import contextlib
import dataclasses
import io
import json
import signal
import threading
import time
import zipfile
from pathlib import Path

import numpy as np
from llvmlite import ir
from numba import njit, types
from numba.core import cgutils
from numba.extending import intrinsic

from spiel_game import engine
from spiel_game import layout as L

from solver.abstraction.keys import (
    IDENTITY,
    KEY_WORK_SIZE,
    PATH_SIZE,
    abstract_key,
    path_key,
    path_start,
    path_width,
)

_JIT = {"cache": True, "nogil": True}
# The traversal kernel is compiled in each process, not cached: numba checks a cached
# function against its own file only, so a cached kernel would keep stale copies of the
# abstraction's keys after an edit of solver/abstraction/keys.py.
_JIT_KERNEL = {"cache": False, "nogil": True}
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


@intrinsic
def _unmanaged(typingctx, array):
    """The same array without reference counting (its meminfo is null): numba increfs and
    decrefs an array, atomically, at every view and every call it is passed to, and the
    traversal spent about half its time doing that. The caller keeps the owner alive."""
    if not isinstance(array, types.Array):
        return None

    def codegen(context, builder, sig, args):
        source = context.make_array(sig.args[0])(context, builder, args[0])
        view = context.make_array(sig.return_type)(context, builder)
        for field in ("nitems", "itemsize", "data", "shape", "strides"):
            setattr(view, field, getattr(source, field))
        view.meminfo = cgutils.get_null_value(view.meminfo.type)
        view.parent = cgutils.get_null_value(view.parent.type)
        return view._getvalue()

    return array(array), codegen


# A slot is two int64: the key (0: empty) and its entry, offset << 8 | number of actions
# (0 while another thread is publishing it). A new key then writes one cache line, not one
# in each of three arrays (key, offset, count): measured ~14% faster at identity.
_ENTRY_SHIFT = 8
_COUNT_MASK = (1 << _ENTRY_SHIFT) - 1


@dataclasses.dataclass
class Tables:
    """The hash table (slots) and its flat value arrays."""

    slots: np.ndarray  # int64, 2 per slot: key, entry (offset << 8 | number of actions)
    regret: np.ndarray  # float32
    strategy_sum: np.ndarray  # float32
    meta: np.ndarray  # int64: values used, keys stored, capacity, full flag

    @classmethod
    def empty(cls, capacity: int = 1 << 16, values: int = 1 << 18) -> Tables:
        if capacity & (capacity - 1):
            raise ValueError("capacity must be a power of two")
        meta = np.zeros(4, dtype=np.int64)
        meta[META_CAPACITY] = capacity
        return cls(np.zeros(2 * capacity, np.int64), np.zeros(values, np.float32),
                   np.zeros(values, np.float32), meta)

    @classmethod
    def from_arrays(cls, keys, offsets, num_actions, regret, strategy_sum,
                    meta) -> Tables:
        """Tables from per-slot keys, block offsets and action counts (checkpoints)."""
        slots = np.zeros(2 * len(keys), np.int64)
        used = keys != 0
        slots[0::2] = keys
        slots[1::2][used] = ((offsets[used].astype(np.int64) << _ENTRY_SHIFT)
                             | num_actions[used].astype(np.int64))
        return cls(slots, regret, strategy_sum, meta)

    @property
    def capacity(self) -> int:
        return len(self.slots) // 2

    @property
    def keys(self) -> np.ndarray:
        """Key per slot, 0 = empty (a view)."""
        return self.slots[0::2]

    @property
    def offsets(self) -> np.ndarray:
        """Start of each slot's block in regret / strategy_sum, -1 for an empty slot."""
        return np.where(self.keys != 0, self.slots[1::2] >> _ENTRY_SHIFT, -1)

    @property
    def num_actions(self) -> np.ndarray:
        """Actions (block size) per slot, int8, 0 for an empty slot."""
        return (self.slots[1::2] & _COUNT_MASK).astype(np.int8)

    @property
    def num_keys(self) -> int:
        return int(self.meta[META_KEYS])

    def block(self, slot: int) -> tuple[int, int]:
        """(offset, number of actions) of a used slot."""
        entry = int(self.slots[2 * slot + 1])
        return entry >> _ENTRY_SHIFT, entry & _COUNT_MASK

    def keys_full(self, margin_keys: int) -> bool:
        return self.num_keys + margin_keys > _MAX_LOAD * self.capacity

    def values_full(self, margin_values: int) -> bool:
        return self.meta[META_SLOTS_USED] + margin_values > len(self.regret)

    def grow(self, keys: bool = True, values: bool = True) -> None:
        """Double the key capacity (keys rehashed in place) and/or the value space, in
        place: numpy's resize reallocates, which for arrays this large remaps their pages
        (no copy), so only the added half is new memory. A fresh table twice the size, as
        before, touched three times the memory and took a third of an identity run here
        (first touches of memory are slow on these virtual machines). Views of the arrays
        taken before a grow must not be kept: numpy refuses to resize while they exist.
        Ctrl-C waits for the end of a grow (a half-grown table is inconsistent)."""
        with _deferred_interrupt():
            if keys:
                capacity = self.capacity
                self.slots.resize(4 * capacity)  # zero-filled
                _double_in_place(self.slots, capacity)
                self.meta[META_CAPACITY] = 2 * capacity
            if values:
                size = 2 * len(self.regret)
                # len(regret) is the value capacity: if the second resize is refused (a
                # view exists), strategy_sum is merely longer than needed.
                self.strategy_sum.resize(size)
                self.regret.resize(size)

    def args(self):
        return (self.slots, self.regret, self.strategy_sum, self.meta)


@contextlib.contextmanager
def _deferred_interrupt():
    """Hold a Ctrl-C (SIGINT) until the block is done, then raise it. Only the main
    thread receives signals, so elsewhere there is nothing to hold."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return
    received = []
    previous = signal.signal(signal.SIGINT, lambda *args: received.append(args))
    try:
        yield
    finally:
        signal.signal(signal.SIGINT, previous)
    if received:
        if callable(previous):
            previous(*received[0])  # Python's own handler raises KeyboardInterrupt
        else:
            raise KeyboardInterrupt


@njit(**_JIT)
def _double_in_place(slots, capacity):
    """Rehash the keys in the first `capacity` slots for twice the capacity (the upper
    half is empty), in the same array.

    Each key is taken out and put back with the new mask, in slot order starting after
    an empty slot e; the keys before e (a cluster that may have wrapped around from the
    end) are held aside and put back last. Why no lookup breaks: a key taken out of slot
    i has its home in (e, i], or in the upper half; probing from there passes only slots
    already redone (each holds its final key) and stops at the latest at slot i, which it
    just emptied; so no key is ever placed behind a key that will still move.
    """
    keys = slots[0::2]  # all 2 * capacity slots: find_slot probes with the new mask
    e = 0
    while slots[2 * e] != 0:
        e += 1
    held = slots[:2 * e].copy()
    slots[:2 * e] = 0
    for i in range(e + 1, capacity):
        key = slots[2 * i]
        if key != 0:
            entry = slots[2 * i + 1]
            slots[2 * i] = 0
            slots[2 * i + 1] = 0
            j = find_slot(keys, key)
            slots[2 * j] = key
            slots[2 * j + 1] = entry
    for i in range(e):
        j = find_slot(keys, held[2 * i])
        slots[2 * j] = held[2 * i]
        slots[2 * j + 1] = held[2 * i + 1]


@njit(**_JIT)
def find_slot(keys, key):
    """Index of `key`'s slot, or of the empty slot where it would go."""
    mask = len(keys) - 1
    j = key & mask
    while keys[j] != 0 and keys[j] != key:
        j = (j + 1) & mask
    return j


# The table helpers below are inlined by numba into the traversal (no call, no reference
# counting of the arrays passed): +4% on the small deck.
@njit(inline="always", **_JIT)
def _block(slots, regret, meta, key, n, shared):
    """Offset of key's block of n values, inserting it if new; -1 when the table is too
    full to insert (it sets the full flag instead). `shared`: other threads use the table,
    so a new key is claimed atomically (without it, plain stores: locked instructions
    would wait for every cache miss before them)."""
    mask = len(slots) // 2 - 1
    j = key & mask
    while True:
        current = slots[2 * j]
        if current == 0:
            if (meta[META_KEYS] >= 0.9 * (mask + 1)
                    or meta[META_SLOTS_USED] + n + 32 > len(regret)):
                meta[META_FULL] = 1
                return -1
            if not shared:
                offset = meta[META_SLOTS_USED]
                meta[META_SLOTS_USED] = offset + n
                meta[META_KEYS] += 1
                slots[2 * j] = key
                slots[2 * j + 1] = (offset << _ENTRY_SHIFT) | n
                return offset
            current = _compare_and_swap(slots, 2 * j, 0, key)
            if current == 0:  # this thread claimed the slot
                offset = _fetch_add(meta, META_SLOTS_USED, n)
                _fetch_add(meta, META_KEYS, 1)
                # Publish the block last.
                _compare_and_swap(slots, 2 * j + 1, 0, (offset << _ENTRY_SHIFT) | n)
                return offset
        if current == key:
            if not shared:
                return slots[2 * j + 1] >> _ENTRY_SHIFT
            entry = _compare_and_swap(slots, 2 * j + 1, 0, 0)  # an atomic read
            while entry == 0:  # another thread is publishing this key's block
                entry = _compare_and_swap(slots, 2 * j + 1, 0, 0)
            return entry >> _ENTRY_SHIFT
        j = (j + 1) & mask


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


_MAX_DEPTH = 256  # traverser nodes on one path (fewer than the events of a round)
_MAX_OPTIONS = 16
# Per traverser node on the stack (rows of Workspace.frames): its number of actions, the
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


@intrinsic
def _prefetch(typingctx, array, index):
    """Hint that array[index] is about to be read and written (llvm.prefetch)."""
    signature = types.void(array, types.intp)

    def codegen(context, builder, sig, args):
        view = context.make_array(sig.args[0])(context, builder, args[0])
        pointer = cgutils.get_item_pointer(context, builder, sig.args[0], view, [args[1]])
        byte_pointer = ir.IntType(8).as_pointer()
        i32 = ir.IntType(32)
        prefetch = cgutils.get_or_insert_function(
            builder.module, ir.FunctionType(ir.VoidType(), [byte_pointer, i32, i32, i32]),
            "llvm.prefetch.p0")
        # write access, high temporal locality, data cache
        builder.call(prefetch, [builder.bitcast(pointer, byte_pointer), i32(1), i32(3),
                                i32(1)])
        return context.get_dummy_value()

    return signature, codegen


@njit(inline="always", **_JIT)
def _prefetch_slot(table, key):
    """Start fetching the home slot of `key`: a new key's slot is a cache miss (~150 ns
    here) that the work done before `_block` can overlap."""
    _prefetch(table.slots, 2 * (key & (len(table.slots) // 2 - 1)))


@njit(inline="always", **_JIT_KERNEL)
def _descend(depth, p, level, shared, table, work, rng):
    """Walk down from work.states[depth] in place through chance and opponent nodes
    (sampling them) to a terminal node or one of p's nodes; counts nodes in rng[1].

    At p's node returns (True, 0.0) with the node's frame, legal actions
    (work.actions[depth]) and strategy (work.sigmas[depth]) set; at identity the frame
    holds the key instead, and `_close_node` looks the block up. Else returns (False,
    value): the terminal value for p, or 0.0 when the table is full (the traversal is
    abandoned and the caller grows the table).
    """
    s = work.states[depth]
    while True:
        rng[1] += 1
        if engine.is_terminal(s):
            engine.returns(s, work.returns)
            return False, work.returns[p]
        if engine.is_chance(s):
            rng[0] = engine.next_random(rng[0])
            engine.apply_action(s, engine.sample_chance(s, rng[0]))
            continue
        actor = engine.current_actor(s)
        key = path_key(s, actor, level, work.rows[depth, actor], work.key_work)
        _prefetch_slot(table, key)
        legal = work.actions[depth]
        n = engine.legal_actions(s, legal)
        if actor == p:
            work.frames[F_OPTIONS, depth] = n
            work.frames[F_NEXT, depth] = 0
            if level == IDENTITY:
                # Perfect recall: this key cannot recur below this node, so its regrets
                # are the same after its children, and its lookup's cache miss can
                # overlap them.
                work.frames[F_KEY, depth] = key
                return True, 0.0
        offset = _block(table.slots, table.regret, table.meta, key, n, shared)
        if offset < 0:
            return False, 0.0
        sigma = work.sigmas[depth]
        _regret_matching(table.regret, offset, n, sigma)
        if actor == p:
            work.frames[F_OFFSET, depth] = offset
            return True, 0.0
        for i in range(n):
            table.strategy_sum[offset + i] += sigma[i]
        engine.apply_action(s, legal[sample_index(sigma, n, rng)])


@njit(**_JIT_KERNEL)
def _close_node(depth, level, shared, table, work):
    """p's node at `depth` after all its children: its value v = sum_a sigma(a) v(a), and
    the regret update R(I, a) += v(a) - v (none if a subtree was abandoned: its values
    are incomplete)."""
    if table.meta[META_FULL]:
        return 0.0
    n = work.frames[F_OPTIONS, depth]
    sigma = work.sigmas[depth]
    if level == IDENTITY:
        offset = _block(table.slots, table.regret, table.meta, work.frames[F_KEY, depth], n,
                        shared)
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
def _traverse(p, level, shared, table, work, rng):
    """One traversal for traverser p from work.states[0] / work.rows[0]; returns p's
    sampled value.

    Depth-first with an explicit stack of p's nodes (no recursion, no allocation): the
    node at depth d keeps its state, path rows, legal actions, strategy, child values and
    frame in row d of the work arrays, and builds each child in row d + 1 in turn.
    """
    num_players = work.states[0, L.S_NUM_PLAYERS]
    width = path_width(level)
    frames = work.frames
    depth = 0
    while True:
        at_node, value = _descend(depth, p, level, shared, table, work, rng)
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
                value = _close_node(depth, level, shared, table, work)
        # Build the next child of the node at `depth` one row down.
        parent, child = work.states[depth], work.states[depth + 1]
        _copy_prefix(parent, child, L.S_EVENTS + parent[L.S_EVENT_N] * L.EVENT_SIZE)
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
def run_iterations(root, level, iterations, slots, regret, strategy_sum, meta, rng,
                   max_keys, max_values, shared):
    """Up to `iterations` iterations (one traversal per player each); stops early, before
    an iteration, once the table passes max_keys or max_values. Returns iterations done.
    `shared`: other threads use the same tables (claim keys atomically).

    Every array is used through an unmanaged view (no reference counting): the caller
    owns the table, root and rng; the work space is allocated here (measured ~10% faster on
    the small deck than a work space passed in) and kept alive to the end.
    """
    num_players = root[L.S_NUM_PLAYERS]
    owners = (np.zeros(num_players, dtype=np.float64),
              np.zeros((_MAX_DEPTH, len(root)), dtype=root.dtype),
              np.zeros((_MAX_DEPTH, num_players, PATH_SIZE), dtype=np.int32),
              np.zeros((_MAX_DEPTH, L.NUM_ACTIONS), dtype=np.int32),
              np.zeros((_MAX_DEPTH, _MAX_OPTIONS), dtype=np.float64),
              np.zeros((_MAX_DEPTH, _MAX_OPTIONS), dtype=np.float64),
              np.zeros((4, _MAX_DEPTH), dtype=np.int64),
              np.zeros(KEY_WORK_SIZE, dtype=np.int32))
    work = Workspace(_unmanaged(owners[0]), _unmanaged(owners[1]), _unmanaged(owners[2]),
                     _unmanaged(owners[3]), _unmanaged(owners[4]), _unmanaged(owners[5]),
                     _unmanaged(owners[6]), _unmanaged(owners[7]))
    table = TableArrays(_unmanaged(slots), _unmanaged(regret), _unmanaged(strategy_sum),
                        _unmanaged(meta))
    root, rng = _unmanaged(root), _unmanaged(rng)
    root_size = L.S_EVENTS + root[L.S_EVENT_N] * L.EVENT_SIZE  # the log's tail is unread
    done = iterations
    for t in range(iterations):
        if (table.meta[META_FULL] or table.meta[META_KEYS] > max_keys
                or table.meta[META_SLOTS_USED] > max_values):
            done = t
            break
        for p in range(num_players):
            _copy_prefix(root, work.states[0], root_size)
            for q in range(num_players):
                path_start(work.rows[0, q], q, level)
            _traverse(p, level, shared, table, work, rng)
    _keep_alive(owners)  # the single exit: the work space outlives its views
    return done


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
            full and self.tables.num_keys >= 0.45 * self.tables.capacity)
        grow_values = self.tables.values_full(16 * margin_keys) or (full and not grow_keys)
        if grow_keys or grow_values:
            self.tables.grow(keys=grow_keys, values=grow_values)
        self.tables.meta[META_FULL] = 0
        capacity_keys = int(_MAX_LOAD * self.tables.capacity) - margin_keys
        capacity_values = len(self.tables.regret) - 16 * margin_keys
        shares = [iterations // self.threads + (k < iterations % self.threads)
                  for k in range(self.threads)]
        done = [0] * self.threads
        start = time.perf_counter()

        def work(k: int) -> None:
            done[k] = run_iterations(self.root, self.level, shares[k], *self.tables.args(),
                                     self.rngs[k], capacity_keys, capacity_values,
                                     self.threads > 1)

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
        offset, _ = t.block(j)
        block = t.strategy_sum[offset:offset + n].astype(np.float64)
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
        from solver.provenance import code_version, write_atomic

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
        tables = Tables.from_arrays(arrays["keys"], arrays["offsets"], arrays["num_actions"],
                                    np.zeros(values, np.float32),
                                    np.zeros(values, np.float32), arrays["meta"])
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
    from solver.exact.tree import infoset_states

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
