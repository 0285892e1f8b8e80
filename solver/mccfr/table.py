"""The MCCFR tables: an open-addressing hash from abstract key to a block of values.

An open-addressing hash (linear probing) from abstract key (solver/abstraction/keys.py)
to a block of float32 regrets and float32 strategy sums, one value per legal action,
allocated on first visit. A hash slot is 16 bytes: the key, then the block's offset and
size. The table doubles, in place, when it is half full.

Threads share the tables: a key is claimed with an atomic compare-and-swap and its block
with an atomic add, so threads never corrupt the table (solver/mccfr/kernel.py says what
is not atomic).
"""

from __future__ import annotations

import contextlib
import dataclasses
import signal
import threading

import numpy as np
from numba import njit

from solver.mccfr.intrinsics import compare_and_swap, fetch_add, prefetch

_JIT = {"cache": True, "nogil": True}
META_SLOTS_USED, META_KEYS, META_CAPACITY, META_FULL = 0, 1, 2, 3
MAX_LOAD = 0.5

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
        """Tables from per-slot keys, block offsets and action counts (format 2
        checkpoints)."""
        slots = np.zeros(2 * len(keys), np.int64)
        used = keys != 0
        slots[0::2] = keys
        slots[1::2][used] = ((offsets[used].astype(np.int64) << _ENTRY_SHIFT)
                             | num_actions[used].astype(np.int64))
        return cls(slots, regret, strategy_sum, meta)

    @classmethod
    def from_used_slots(cls, keys, entries, capacity: int, regret, strategy_sum,
                        meta) -> Tables:
        """Tables of `capacity` slots holding the used slots (keys, entries) that
        `used_slots` gave, each in the slot it had."""
        slots = np.zeros(2 * capacity, np.int64)
        _insert_in_order(slots, keys, entries)
        return cls(slots, regret, strategy_sum, meta)

    def used_slots(self) -> tuple[np.ndarray, np.ndarray]:
        """(keys, entries) of the used slots, in cyclic slot order from the slot after an
        empty one: inserted in that order into an empty table of the same capacity, each
        key lands in the slot it has here (`_double_in_place` says why). A checkpoint
        stores these, not every slot: 16 bytes per key, not per slot (2-4 times less)."""
        keys = self.keys
        empty = int(np.argmin(keys != 0))  # a table is never full: there is an empty slot
        order = np.concatenate([np.flatnonzero(keys[empty + 1:]) + empty + 1,
                                np.flatnonzero(keys[:empty])])
        return keys[order], self.slots[1::2][order]

    @property
    def nbytes(self) -> int:
        """Memory the tables hold: slots and both value arrays."""
        return self.slots.nbytes + self.regret.nbytes + self.strategy_sum.nbytes

    def nbytes_after_grow(self, keys: bool, values: bool) -> int:
        """`nbytes` once `grow(keys, values)` is done."""
        return (self.slots.nbytes * (2 if keys else 1)
                + (self.regret.nbytes + self.strategy_sum.nbytes) * (2 if values else 1))

    def nbytes_for_keys(self, keys: int) -> int:
        """`nbytes` once the tables have grown to hold `keys` keys, at this table's mean
        block size (the doublings `grow` makes; a projection for memory limits)."""
        capacity = self.capacity
        while keys > MAX_LOAD * capacity:
            capacity *= 2
        values = len(self.regret)
        per_key = int(self.meta[META_SLOTS_USED]) / max(self.num_keys, 1)
        while keys * per_key > values:
            values *= 2
        return 16 * capacity + 2 * 4 * values

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
        return self.num_keys + margin_keys > MAX_LOAD * self.capacity

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


# The signals that stop a run (Ctrl-C, and `kill`'s default): held while a table grows.
_STOPS = (signal.SIGINT, signal.SIGTERM)


@contextlib.contextmanager
def _deferred_interrupt():
    """Hold a Ctrl-C (SIGINT) or a kill (SIGTERM) until the block is done, then deliver
    it as it would have been. Only the main thread receives signals, so elsewhere there is
    nothing to hold."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return
    received = []
    previous = {s: signal.signal(s, lambda *args: received.append(args)) for s in _STOPS}
    try:
        yield
    finally:
        for s, handler in previous.items():
            signal.signal(s, handler)
    if received:
        signum = received[0][0]
        handler = previous[signum]
        if callable(handler):
            handler(*received[0])  # Python's own SIGINT handler raises KeyboardInterrupt
        elif signum == signal.SIGINT:
            raise KeyboardInterrupt
        elif handler == signal.SIG_DFL:
            signal.raise_signal(signum)


@contextlib.contextmanager
def kill_as_interrupt():
    """In the block, a kill (SIGTERM) stops the run as Ctrl-C does (KeyboardInterrupt): a
    training run then saves its tables and checkpoint. Main thread only, as signals."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return

    def interrupt(signum, frame):
        raise KeyboardInterrupt

    previous = signal.signal(signal.SIGTERM, interrupt)
    try:
        yield
    finally:
        signal.signal(signal.SIGTERM, previous)


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
def _insert_in_order(slots, keys, entries):
    """Insert keys with their entries, in the given order, into empty slots."""
    view = slots[0::2]
    for i in range(len(keys)):
        j = find_slot(view, keys[i])
        slots[2 * j] = keys[i]
        slots[2 * j + 1] = entries[i]


@njit(**_JIT)
def find_slot(keys, key):
    """Index of `key`'s slot, or of the empty slot where it would go."""
    mask = len(keys) - 1
    j = key & mask
    while keys[j] != 0 and keys[j] != key:
        j = (j + 1) & mask
    return j


# The table helpers below are inlined by numba into the traversal (solver/mccfr/kernel.py;
# no call, no reference counting of the arrays passed): +4% on the small deck.
@njit(inline="always", **_JIT)
def claim_block(slots, regret, meta, key, n, shared):
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
            current = compare_and_swap(slots, 2 * j, 0, key)
            if current == 0:  # this thread claimed the slot
                offset = fetch_add(meta, META_SLOTS_USED, n)
                fetch_add(meta, META_KEYS, 1)
                # Publish the block last.
                compare_and_swap(slots, 2 * j + 1, 0, (offset << _ENTRY_SHIFT) | n)
                return offset
        if current == key:
            if not shared:
                return slots[2 * j + 1] >> _ENTRY_SHIFT
            entry = compare_and_swap(slots, 2 * j + 1, 0, 0)  # an atomic read
            while entry == 0:  # another thread is publishing this key's block
                entry = compare_and_swap(slots, 2 * j + 1, 0, 0)
            return entry >> _ENTRY_SHIFT
        j = (j + 1) & mask


@njit(inline="always", **_JIT)
def prefetch_slot(slots, key):
    """Start fetching the home slot of `key`: a new key's slot is a cache miss (~150 ns
    here) that the work done before `claim_block` can overlap."""
    prefetch(slots, 2 * (key & (len(slots) // 2 - 1)))
