"""External-sampling MCCFR for han_solo, compiled with numba over the game's engine, on the
project's shared hash tables (solver/mccfr/table.py).

One iteration per traverser p (Lanctot et al. 2009): walk down from the root; at a chance
node sample an outcome with the engine's odds; at another player's decision sample an
action from the current strategy (regret matching) and add that strategy to the
average-strategy sum; at p's decision try every action on a copy of the state and update
R(I, a) += v(a) - sum_b sigma(b) v(b). Keys are abstraction.info_key at a chosen level,
and a key's actions are the level's choices (abstraction.table_actions: the legal
actions, or at `compact` fewer at a discard).

The traversal recurses only at p's decisions (chance and the others' decisions are
applied in place), so the state stack is as deep as p's decisions on one path (about 8).
A child copies only the state's used prefix (up to the event log's end, as
solver/mccfr/kernel.py does), not the whole state (1,072 ints when measured: 14% less CPU
time for 1,500 `coarse` iterations).
A key that finds the table too full (claim_block returns -1) plays uniformly and is not
updated; the trainer grows the table between batches, so that only happens within the
batch that filled it. One thread: deterministic for a seed.
"""

from __future__ import annotations

import threading
import time

import numpy as np
from numba import njit

from spiel_game.han_solo import engine
from spiel_game.han_solo.layout import (EVENT_SIZE, NUM_ACTIONS, PH_CHANCE, PH_TERMINAL,
                                        S_CUR, S_EVENT_N, S_EVENTS, S_KEY, S_NUM_PLAYERS, S_PHASE,
                                        STATE_SIZE)

from solver.han_solo.abstraction import MAX_CHOICES, info_key, level_id, table_actions
from solver.mccfr.table import META_FULL, META_KEYS, META_SLOTS_USED, Tables, claim_block
from solver.sim.rng import stream_seed
from solver.sim.sampler import sample

STREAM_HAN_SOLO_MCCFR = 31  # solver/sim/rng.py's purposes end at 21
MAX_DEPTH = 24  # traverser decisions on one path: 3 turns x 2, a pick, with room to spare
# Not cached: numba's cache of this recursive kernel segfaults on load (measured here, as
# the engine's _next_pick notes for mutual recursion); it compiles in ~10 s a process.
_JIT_KERNEL = {"cache": False, "nogil": True}


@njit(**_JIT_KERNEL)
def _regret_matching(regret, off, n, out):
    total = 0.0
    for i in range(n):
        if off >= 0 and regret[off + i] > 0:
            total += regret[off + i]
    for i in range(n):
        if total > 0:
            out[i] = regret[off + i] / total if regret[off + i] > 0 else 0.0
        else:
            out[i] = 1.0 / n


@njit(**_JIT_KERNEL)
def _traverse(stack, d, p, level, slots, regret, ssum, meta, acts, choices, sigma, vals,
              probs, ret, rng, weight, shared, rank):
    """The sampled counterfactual value for p of the state stack[d]."""
    s = stack[d]
    while True:
        ph = s[S_PHASE]
        if ph == PH_TERMINAL:
            if rank:  # 2 players: +1 a better hand, -1 a worse, 0 a tie (H7: a fair draw)
                mine, theirs = s[S_KEY + p], s[S_KEY + 1 - p]
                return 1.0 if mine > theirs else (-1.0 if mine < theirs else 0.0)
            engine.returns(s, ret)
            return ret[p]
        if ph == PH_CHANCE:
            m = engine.chance_outcomes(s, acts[d], probs[d])
            engine.apply_action(s, acts[d][sample(probs[d], m, rng)])
            continue
        player = s[S_CUR]
        n = engine.legal_actions(s, acts[d])
        m = table_actions(s, acts[d], n, level, choices[d])
        if m == 1:
            engine.apply_action(s, acts[d][choices[d][0]])
            continue
        key = info_key(s, acts[d], n, level)
        off = claim_block(slots, regret, meta, key, m, shared)
        _regret_matching(regret, off, m, sigma[d])
        if player != p:
            if off >= 0:
                for i in range(m):
                    ssum[off + i] += weight * sigma[d][i]
            engine.apply_action(s, acts[d][choices[d][sample(sigma[d], m, rng)]])
            continue
        ev = 0.0
        used = S_EVENTS + s[S_EVENT_N] * EVENT_SIZE  # the log's tail is never read
        for i in range(m):
            child = stack[d + 1]
            for j in range(used):
                child[j] = s[j]
            engine.apply_action(child, acts[d][choices[d][i]])
            vals[d][i] = _traverse(stack, d + 1, p, level, slots, regret, ssum, meta, acts,
                                   choices, sigma, vals, probs, ret, rng, weight, shared,
                                   rank)
            ev += sigma[d][i] * vals[d][i]
        if off >= 0:
            for i in range(m):
                regret[off + i] += vals[d][i] - ev
        return ev


@njit(**_JIT_KERNEL)
def run_iterations(initial, iterations, level, slots, regret, ssum, meta, rng, done=0,
                   linear=False, shared=False, rank=False):
    """`iterations` iterations (each player traverses once) after `done` ones; the number
    completed (fewer if the table filled up: meta[META_FULL] is then set). `linear`:
    iteration t adds t x the strategy to the average (linear averaging, Brown and
    Sandholm 2019), so the uniform play of a key's first visits fades. `shared`: other
    threads use the tables (keys claimed atomically, solver/mccfr/table.py). `rank`: a
    round is worth the sign of the hands' comparison (HanSoloMCCFR's `rank_utility`)."""
    n = initial[S_NUM_PLAYERS]
    stack = np.empty((MAX_DEPTH, STATE_SIZE), dtype=np.int32)
    acts = np.empty((MAX_DEPTH, NUM_ACTIONS), dtype=np.int32)
    choices = np.empty((MAX_DEPTH, MAX_CHOICES), dtype=np.int32)
    sigma = np.empty((MAX_DEPTH, NUM_ACTIONS))
    vals = np.empty((MAX_DEPTH, NUM_ACTIONS))
    probs = np.empty((MAX_DEPTH, NUM_ACTIONS))
    ret = np.empty(n)
    for it in range(iterations):
        weight = float(done + it + 1) if linear else 1.0
        for p in range(n):
            stack[0][:] = initial
            _traverse(stack, 0, p, level, slots, regret, ssum, meta, acts, choices, sigma,
                      vals, probs, ret, rng, weight, shared, rank)
        if meta[META_FULL]:
            return it + 1
    return iterations


class HanSoloMCCFR:
    """A han_solo MCCFR run: tables, seed, iterations and training time so far."""

    def __init__(self, game, level: str = "fine", seed: int = 0,
                 capacity: int = 1 << 16, values: int = 1 << 18, linear: bool = False,
                 threads: int = 1, rank_utility: bool = False):
        """`rank_utility`: train on the sign of the final hands' comparison (+1, -1, 0 on
        a tie) instead of the credits. With 2 players the pot holds 2 tokens, the better
        hand takes the one worth more (at `compact` a pick is no decision) and a tie is a
        fair draw (H6, H7), so a round's margin is that sign times the pot's spread, drawn
        before any card and independent of play: a strategy that does not read the pot
        (the `compact` key) has the same regrets up to that factor, without the variance
        of the pots (a Falcon's spread is 20 to 24 thousand, two greens' 0)."""
        if threads < 1:
            raise ValueError(f"threads must be at least 1, got {threads}")
        if rank_utility and (level != "compact" or game.num_players() != 2):
            raise ValueError("rank_utility is for 2 players at level compact (its key "
                             "ignores the pot), not "
                             f"{game.num_players()} players at {level!r}")
        self.rank_utility = rank_utility
        self.game = game
        self.level_name = level
        self.level = level_id(level)
        self.seed = seed
        self.tables = Tables.empty(capacity, values)
        self.iterations = 0
        self.seconds = 0.0
        self.threads = threads
        self.linear = linear
        # One random stream per thread; one thread is deterministic for a seed, more share
        # the tables without locks (as solver/mccfr/solver.py: a rare concurrent update
        # of one value can be lost).
        self.rngs = [np.array([stream_seed(seed, STREAM_HAN_SOLO_MCCFR, k)], dtype=np.uint64)
                     for k in range(threads)]
        self.curve: list[dict] = []

    def _make_room(self, batch: int) -> None:
        t = self.tables
        t.meta[META_FULL] = 0
        # Room for the batch's new keys: about as many as a batch has ever added so far.
        per_iteration = t.num_keys / max(self.iterations, 1)
        margin_keys = int(min(per_iteration * batch, 1 << 22)) + 4096
        while t.keys_full(margin_keys):
            t.grow(keys=True, values=False)
        per_key = int(t.meta[META_SLOTS_USED]) / max(t.num_keys, 1) or 8
        while t.values_full(int(margin_keys * per_key) + 4096):
            t.grow(keys=False, values=True)

    def train(self, iterations: int | None = None, seconds: float | None = None,
              batch: int = 100, on_batch=None) -> None:
        """Train until `iterations` more iterations or `seconds` more seconds."""
        if iterations is None and seconds is None:
            raise ValueError("give iterations or seconds")
        # Compile first (the kernel is not cached): training time is traversal time.
        # (On scratch tables: the compiler keeps references to its first arguments, and
        # numpy will not resize an array referenced elsewhere, Tables.grow.)
        run_iterations(self.game.initial_array, 0, self.level, *Tables.empty(16, 64).args(),
                       self.rngs[0].copy(), 0, self.linear, self.threads > 1,
                       self.rank_utility)
        start = time.perf_counter()
        goal = None if iterations is None else self.iterations + iterations
        while True:
            left = batch if goal is None else min(batch, goal - self.iterations)
            if left <= 0:
                break
            self._make_room(left)
            t0 = time.perf_counter()
            done = self._batch(left)
            self.iterations += done
            took = time.perf_counter() - t0
            self.seconds += took
            if on_batch:
                on_batch(self)
            if seconds is not None and time.perf_counter() - start >= seconds:
                break
            if took < 0.5 and done == left:  # batches of about a second
                batch *= 2

    def _batch(self, iterations: int) -> int:
        """`iterations` iterations shared out over the threads; the number done."""
        args = self.tables.args()
        if self.threads == 1:
            return run_iterations(self.game.initial_array, iterations, self.level, *args,
                                  self.rngs[0], self.iterations, self.linear, False,
                                  self.rank_utility)
        shares = [iterations // self.threads + (k < iterations % self.threads)
                  for k in range(self.threads)]
        done = [0] * self.threads

        def work(k: int) -> None:
            done[k] = run_iterations(self.game.initial_array, shares[k], self.level, *args,
                                     self.rngs[k], self.iterations, self.linear, True,
                                     self.rank_utility)

        workers = [threading.Thread(target=work, args=(k,)) for k in range(self.threads)]
        for w in workers:
            w.start()
        for w in workers:
            w.join()
        return sum(done)

    @property
    def num_keys(self) -> int:
        return int(self.tables.meta[META_KEYS])

    def current(self) -> CurrentStrategy:
        """The current strategy (regret matching) in the shape `average_strategy_rows`
        reads, for export_table and exact.table_strategy."""
        return CurrentStrategy(self)


class CurrentStrategy:
    """A run's current strategy: its positive regrets as the strategy sums (a key
    without a positive regret plays uniformly, as regret matching does)."""

    def __init__(self, solver: HanSoloMCCFR):
        t = solver.tables
        self.tables = Tables(t.slots, t.regret, np.maximum(t.regret, 0), t.meta)
        for name in ("game", "level_name", "seed", "iterations", "seconds", "threads",
                     "linear", "rank_utility"):
            setattr(self, name, getattr(solver, name))
