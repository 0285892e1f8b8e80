"""External-sampling MCCFR on any game of solver/mccfr/games.py (jabbas_palace,
love_letter, han_solo): the solver that ties the compiled traversal
(solver/mccfr/kernel.py), its tables (solver/mccfr/table.py), the threads and the
checkpoints (solver/mccfr/checkpoint.py) together.

Threads share the tables; one thread is deterministic for a seed, and a checkpoint
resumes a run bit for bit. Each thread draws from its own random stream of
solver/sim/rng.py, (seed, the game's stream purpose, thread).
"""

from __future__ import annotations

import threading
import time
from pathlib import Path

import numpy as np

from solver import provenance
from solver.abstraction.keys import abstract_key
from solver.mccfr.checkpoint import read_checkpoint, read_checkpoint_header, write_checkpoint
from solver.mccfr.games import LOVE_LETTER_ENGINE, mccfr_game
from solver.mccfr.kernel import run_iterations
from solver.mccfr.table import MAX_LOAD, META_FULL, META_KEYS, Tables, find_slot
from solver.sim.rng import check_seed, stream_seed


def memory_size(size: int) -> str:
    """A size in bytes as MiB or GiB."""
    return f"{size / 2**30:.2f} GiB" if size >= 2**30 else f"{size / 2**20:.1f} MiB"


class MemoryLimitReached(Exception):
    """The tables would grow past the solver's `max_memory`; nothing was grown and every
    finished iteration stands."""

    def __init__(self, needed: int, limit: int, keys: int):
        self.needed, self.limit, self.keys = needed, limit, keys
        super().__init__(f"the MCCFR tables would grow to {memory_size(needed)} at "
                         f"{keys:,} keys, over the memory limit of {memory_size(limit)}")


class MCCFRSolver:
    """External-sampling MCCFR on a game of solver/mccfr/games.py; tables grow as needed,
    up to `max_memory` bytes (None: no limit), when `run` raises MemoryLimitReached.

    `level`: the game's abstraction level id. `linear`: linear averaging (iteration t adds
    t x the strategy to the average). `utility`: one of the game's utilities (han_solo:
    `returns` or `rank`, solver/han_solo/mccfr.py)."""

    def __init__(self, game, level: int = 0, seed: int = 1, threads: int = 1,
                 tables: Tables | None = None, max_memory: int | None = None,
                 linear: bool = False, utility: str = "returns"):
        if isinstance(threads, bool) or not isinstance(threads, (int, np.integer)) \
                or threads < 1:
            raise ValueError(f"threads must be at least 1, got {threads!r}")
        self.game = game
        self.spec = mccfr_game(game)
        self.level = self.spec.check_level(level)
        if utility not in self.spec.utilities:
            raise ValueError(f"utility {utility!r}: {game.get_type().short_name} has "
                             f"{', '.join(self.spec.utilities)}")
        if self.spec.check_options:
            self.spec.check_options(game, self.level_name, utility)
        self.utility = utility
        self.linear = bool(linear)
        self.root = self.spec.root(game)
        self.seed = check_seed(seed)
        self.tables = tables or Tables.empty()
        # Per thread: [random stream, nodes touched].
        self.rngs = np.array([[stream_seed(self.seed, self.spec.stream, k), 0]
                              for k in range(threads)], dtype=np.uint64)
        self.iterations = 0
        self.seconds = 0.0
        self.max_memory = max_memory
        self.warm_start: dict | None = None  # what a warm-started run started from
        # The training curve (solver/mccfr/train.py), kept in checkpoints.
        self.curve: list[dict] = []

    @property
    def level_name(self) -> str:
        return self.spec.level_name(self.level)

    @property
    def num_keys(self) -> int:
        return int(self.tables.meta[META_KEYS])

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
        if isinstance(iterations, bool) or not isinstance(iterations, (int, np.integer)) \
                or iterations < 1:
            raise ValueError(f"iterations must be a positive whole number, got {iterations!r}")
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
            needed = self.tables.nbytes_after_grow(grow_keys, grow_values)
            if self.max_memory is not None and needed > self.max_memory:
                raise MemoryLimitReached(needed, self.max_memory, self.tables.num_keys)
            self.tables.grow(keys=grow_keys, values=grow_values)
        self.tables.meta[META_FULL] = 0
        capacity_keys = int(MAX_LOAD * self.tables.capacity) - margin_keys
        capacity_values = len(self.tables.regret) - 16 * margin_keys
        shares = [iterations // self.threads + (k < iterations % self.threads)
                  for k in range(self.threads)]
        done = [0] * self.threads
        start = time.perf_counter()

        spec = self.spec
        utility = spec.utilities.index(self.utility)

        def work(k: int) -> None:
            done[k] = run_iterations(spec.engine, spec.hooks, self.root, self.level, utility,
                                     shares[k], self.iterations, self.linear,
                                     *self.tables.args(), self.rngs[k], capacity_keys,
                                     capacity_values, self.threads > 1)

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

    def current(self) -> CurrentStrategy:
        """The current strategy (regret matching) in the shape `average_strategy_rows`
        reads (solver/policies/table.py), for export and exact evaluation."""
        return CurrentStrategy(self)

    def average_strategy(self, s, player: int, n: int) -> np.ndarray | None:
        """The normalised average strategy at engine state s, or None if never visited
        (the Love Letter engine's games)."""
        if self.spec is not LOVE_LETTER_ENGINE:
            raise ValueError("average_strategy reads the Love Letter engine's keys; "
                             f"{self.game.get_type().short_name} has its own "
                             "(e.g. solver/han_solo/exact.py table_strategy)")
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
        """The checkpoint's header: the provenance header, then the run's state; its
        `seconds` is rounded, `training_seconds` exact (a resumed run counts on from it)."""
        return provenance.header(self.game, seconds=self.seconds, level=self.level,
                                 seed=self.seed, threads=self.threads,
                                 linear=self.linear, utility=self.utility,
                                 iterations=self.iterations, training_seconds=self.seconds,
                                 keys=self.tables.num_keys, curve=self.curve,
                                 **({} if self.warm_start is None else
                                    {"warm_start": self.warm_start}))

    def save_checkpoint(self, path: str | Path) -> None:
        """Everything needed to resume (solver/mccfr/checkpoint.py), written atomically."""
        write_checkpoint(path, self._describe(), self.tables, self.rngs)

    @classmethod
    def from_checkpoint(cls, game, path: str | Path, max_memory: int | None = None
                        ) -> MCCFRSolver:
        """Resume from `save_checkpoint`; refuses a file for another game or version."""
        header, tables, rngs = read_checkpoint(path, game)
        solver = cls(game, level=header["level"], seed=header["seed"],
                     threads=header["threads"], tables=tables, max_memory=max_memory,
                     linear=header.get("linear", False),  # format 3 before han_solo
                     utility=header.get("utility", "returns"))
        solver.rngs = rngs
        solver.iterations = header["iterations"]
        solver.seconds = header.get("training_seconds", header["seconds"])  # format 2
        solver.curve = header.get("curve", [])
        solver.warm_start = header.get("warm_start")
        return solver

    @classmethod
    def warm_started(cls, game, path: str | Path, level: int, seed: int = 1,
                     threads: int = 1, max_memory: int | None = None) -> MCCFRSolver:
        """A new run (its own seed, iterations from 0) whose tables start as another
        run's checkpoint's: the same game, parameters and level; another player count
        only at a level whose keys read none (MCCFRGame.count_free_levels). The header's
        `warm_start` says what it started from."""
        spec = mccfr_game(game)
        name = spec.level_name(spec.check_level(level))
        header = read_checkpoint_header(path)  # refused before the tables are read
        if header.get("level") != level:
            raise ValueError(f"{path}: checkpoint uses abstraction level "
                             f"{spec.level_name(header['level'])}, not {name}")
        theirs = provenance.game_parameters(header).get("players")
        if name not in spec.count_free_levels and theirs != game.num_players():
            raise ValueError(
                f"{path}: a {theirs}-player run's tables; the keys of level {name} read the "
                f"player count, so a {game.num_players()}-player run starts only from a "
                f"{game.num_players()}-player one (levels that read none: "
                f"{', '.join(spec.count_free_levels) or 'none in this game'})")
        header, tables, _ = read_checkpoint(path, game, any_players=True)
        solver = cls(game, level=level, seed=seed, threads=threads, tables=tables,
                     max_memory=max_memory, linear=header.get("linear", False),
                     utility=header.get("utility", "returns"))
        params = provenance.game_parameters(header)
        solver.warm_start = {"players": params.get("players"), "level": name,
                             "iterations": header["iterations"],
                             "seconds": round(header.get("training_seconds",
                                                         header["seconds"]), 2),
                             "code_version": header.get("code_version"),
                             "command": header.get("command"),
                             **({} if header.get("warm_start") is None else
                                {"warm_start": header["warm_start"]})}
        return solver


class CurrentStrategy:
    """A run's current strategy: its positive regrets as the strategy sums (a key
    without a positive regret plays uniformly, as regret matching does)."""

    def __init__(self, solver: MCCFRSolver):
        t = solver.tables
        self.tables = Tables(t.slots, t.regret, np.maximum(t.regret, 0), t.meta)
        for name in ("game", "level", "level_name", "seed", "iterations", "seconds",
                     "threads", "linear", "utility", "warm_start"):
            setattr(self, name, getattr(solver, name))


def strategy_on_tree(solver: MCCFRSolver, tree) -> tuple[np.ndarray, int]:
    """The solver's average strategy on every infoset of a GameTree (uniform where the
    table has no entry); also returns how many infosets were missing."""
    from solver.exact.tree import infoset_states

    offsets = tree.action_offsets()
    strategy = np.zeros(int(offsets[-1]))
    missing = 0
    for index, state in infoset_states(tree):
        n = len(tree.infoset_actions[index])
        probs = solver.average_strategy(state.array, int(tree.infoset_player[index]), n)
        if probs is None:
            missing += 1
            probs = np.full(n, 1.0 / n)
        strategy[offsets[index]:offsets[index + 1]] = probs
    return strategy, missing
