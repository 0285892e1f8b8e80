"""External-sampling MCCFR on Ray workers (PyPI `ray`, the optional extra `ray`).

Scheme (docs/solving.md, "MCCFR on Ray"): synchronous rounds. The driver holds the merged
tables (an MCCFRSolver with one random stream per worker). Each round it puts the merged
tables in Ray's object store once; every worker copies them, runs the compiled kernel
(solver/mccfr/kernel.py, one thread) for `round_iterations` iterations from its own stream
(seed, STREAM_MCCFR, worker), and sends back its deltas: the changed values of the keys the
driver already had (sparse), and the blocks of the keys it added. The driver adds them
worker by worker, in worker order, so a run is deterministic for a seed, a worker count and
a round size, and a worker restarted from the last merged tables and its stream's state at
that merge redoes its round exactly: a killed worker costs time, never iterations or
determinism.
"""

from __future__ import annotations

import hashlib
import os
import socket
import time
from collections.abc import Callable
from pathlib import Path

import numpy as np
from numba import njit

from solver.mccfr.checkpoint import write_checkpoint
from solver.mccfr.solver import MCCFRSolver, MemoryLimitReached, memory_size
from solver.mccfr.table import (META_SLOTS_USED, MAX_LOAD, Tables, claim_block,
                                kill_as_interrupt)
from solver.mccfr.train import (TrainOutcome, _check_budgets, _next_measure, budget_spent,
                                curve_point, resumed)

# A connection to a cluster that does not answer is refused within this (the brief: 30 s).
CONNECT_TIMEOUT = 10.0
# Restarts of one worker slot before the run stops (checkpointed) instead.
MAX_RESTARTS = 3
# A round that takes this many times the slowest round so far (and at least
# MIN_ROUND_TIMEOUT s) is taken for a hung worker: it is killed and restarted.
ROUND_TIMEOUT_FACTOR, MIN_ROUND_TIMEOUT = 20.0, 300.0
# A worker must start (import, compile the kernel) within this; else the cluster lacks
# a free CPU for it, or the node is unusable, and the run says so instead of waiting.
START_TIMEOUT = 180.0
_ROOT = Path(__file__).resolve().parent.parent.parent


class RayUnavailable(ValueError):
    """Ray is not installed, or the cluster cannot be reached or used."""


def code_fingerprint() -> str:
    """A hash of the sources a worker runs (the kernel, its tables, the abstraction's
    keys and this module): a worker on a node with other code is refused."""
    digest = hashlib.sha256()
    for name in ("mccfr/kernel.py", "mccfr/table.py", "mccfr/solver.py",
                 "mccfr/distributed.py", "abstraction/keys.py"):
        digest.update((_ROOT / "solver" / name).read_bytes())
    return digest.hexdigest()[:16]


# The merge, compiled -----------------------------------------------------------------------

@njit(cache=True, nogil=True)
def _merge(slots, regret, strategy_sum, meta, index, d_regret, d_strategy, new_keys,
           new_counts, new_regret, new_strategy):
    """Add a worker's deltas: changed values of existing keys, then new keys' blocks (a
    key another worker added first this round gets its values added to that block)."""
    for i in range(len(index)):
        regret[index[i]] += d_regret[i]
        strategy_sum[index[i]] += d_strategy[i]
    position = 0
    for i in range(len(new_keys)):
        n = new_counts[i]
        offset = claim_block(slots, regret, meta, new_keys[i], n, False)
        if offset < 0:
            return False
        for a in range(n):
            regret[offset + a] += new_regret[position + a]
            strategy_sum[offset + a] += new_strategy[position + a]
        position += n
    return True


def worker_deltas(base: Tables, tables: Tables) -> dict:
    """What a round added to `tables`, which started as a copy of `base`: the changed values
    below base's used values (indices and differences) and the blocks of the new keys,
    in the order they were created."""
    used = int(base.meta[META_SLOTS_USED])
    d_regret = tables.regret[:used] - base.regret[:used]
    d_strategy = tables.strategy_sum[:used] - base.strategy_sum[:used]
    index = np.flatnonzero((d_regret != 0) | (d_strategy != 0))
    keys, entries = tables.used_slots()
    offsets = entries >> 8
    new = offsets >= used
    order = np.argsort(offsets[new], kind="stable")
    end = int(tables.meta[META_SLOTS_USED])
    return {"index": index.astype(np.int64), "d_regret": d_regret[index],
            "d_strategy": d_strategy[index], "new_keys": keys[new][order],
            "new_counts": (entries[new][order] & 0xFF).astype(np.int64),
            # Blocks are allocated one after another: the new ones are this slice.
            "new_regret": tables.regret[used:end].copy(),
            "new_strategy": tables.strategy_sum[used:end].copy()}


def merge_deltas(tables: Tables, deltas: list[dict], max_memory: int | None) -> None:
    """Add the workers' deltas to `tables` in the order given, growing it first as needed
    (MemoryLimitReached if that would pass `max_memory`)."""
    new_keys = sum(len(d["new_keys"]) for d in deltas)
    new_values = sum(len(d["new_regret"]) for d in deltas)
    while True:
        grow_keys = tables.num_keys + new_keys + 1 > MAX_LOAD * tables.capacity
        grow_values = (int(tables.meta[META_SLOTS_USED]) + new_values + 64
                       > len(tables.regret))
        if not (grow_keys or grow_values):
            break
        needed = tables.nbytes_after_grow(grow_keys, grow_values)
        if max_memory is not None and needed > max_memory:
            raise MemoryLimitReached(needed, max_memory, tables.num_keys)
        tables.grow(keys=grow_keys, values=grow_values)
    for d in deltas:
        merged = _merge(*tables.args(), d["index"], d["d_regret"], d["d_strategy"],
                        d["new_keys"], d["new_counts"], d["new_regret"], d["new_strategy"])
        assert merged, "the tables were grown to hold every new key"


# The worker --------------------------------------------------------------------------------

class Worker:
    """A Ray actor: rounds of the compiled kernel on a copy of the merged tables."""

    def __init__(self, game_name: str, params: dict, level: int, seed: int,
                 max_memory: int | None):
        from spiel_game.game import load_parameters

        self.game = load_parameters(game_name, params)
        self.level, self.seed, self.max_memory = level, seed, max_memory
        # Compile the kernel now (each process compiles it), not in the first round.
        MCCFRSolver(self.game, level=level, seed=seed).run(1, batch=1)

    def describe(self) -> dict:
        import ray

        return {"pid": os.getpid(), "node": ray.util.get_node_ip_address(),
                "code": code_fingerprint()}

    def run_round(self, arrays: tuple, rng: np.ndarray, iterations: int) -> dict:
        """`iterations` iterations from the merged tables `arrays` (slots, regret,
        strategy_sum, meta; read-only in the object store) and the stream state `rng`."""
        start = time.perf_counter()
        base = Tables(*arrays)
        tables = Tables(*(np.array(a) for a in arrays))
        solver = MCCFRSolver(self.game, level=self.level, seed=self.seed, threads=1,
                             tables=tables, max_memory=self.max_memory)
        solver.rngs[0] = rng
        try:
            solver.run(iterations, batch=iterations)
        except MemoryLimitReached as limit:
            return {"memory": str(limit), "nbytes": tables.nbytes}
        deltas = worker_deltas(base, solver.tables)
        return {**deltas, "rng": solver.rngs[0].copy(), "iterations": solver.iterations,
                "seconds": solver.seconds, "worker_seconds": time.perf_counter() - start,
                "nbytes": solver.tables.nbytes, "rss": _rss()}


def _rss() -> int:
    """This process's peak resident memory in bytes (Linux)."""
    import resource

    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024


# Connecting --------------------------------------------------------------------------------

def _check_reachable(address: str, given: str | None = None) -> None:
    """Refuse, within CONNECT_TIMEOUT, a host:port that does not accept connections
    (ray.init would wait far longer); `given`: what the user wrote, if not that."""
    target = address.split("://", 1)[-1]
    host, _, port = target.rpartition(":")
    if not host or not port.isdigit():
        raise RayUnavailable(f"--ray {address!r}: give auto, or the head node's HOST:PORT "
                             "(e.g. 10.0.0.1:6379, as `ray start --head` printed)")
    try:
        with socket.create_connection((host, int(port)), timeout=CONNECT_TIMEOUT):
            pass
    except OSError as err:
        raise RayUnavailable(f"--ray {given or address}: no Ray cluster answers at {address} "
                             f"({err}); start "
                             "one with `ray start --head` on that machine, or give "
                             "--ray alone for a local cluster") from None


def _resolve_auto(address: str) -> str:
    """The HOST:PORT `auto` stands for; RayUnavailable if no cluster was started here."""
    try:
        from ray._private.services import canonicalize_bootstrap_address
        resolved = canonicalize_bootstrap_address(address)
    except (ImportError, ConnectionError, ValueError):  # Ray's own lookup moved or refused
        resolved = None
    if not resolved:
        raise RayUnavailable("--ray auto: cannot join the Ray cluster (none was started "
                             "on this machine: run `ray start --head`, or give --ray "
                             "HOST:PORT, or --ray alone for a local cluster)")
    return resolved


def connect(address: str | None, workers: int | None) -> tuple[int, str]:
    """Start a local cluster (address None: `workers` CPUs, default all cores) or join
    one (`auto`: the one `ray start` runs on this machine; or HOST:PORT). Returns (the
    number of workers, a description of the cluster)."""
    try:
        import ray
    except ImportError:
        raise RayUnavailable("--ray needs Ray: pip install 'jabbas-palace-solver[ray]' "
                             "(or pip install 'ray>=2.9')") from None
    # Workers import this checkout's code, not another copy installed on the machine.
    path = os.pathsep.join([str(_ROOT), os.environ.get("PYTHONPATH", "")]).rstrip(os.pathsep)
    runtime_env = {"env_vars": {"PYTHONPATH": path}}
    settings = {"runtime_env": runtime_env, "include_dashboard": False,
                "log_to_driver": False, "logging_level": "error"}
    if address is None:
        cores = os.cpu_count() or 1
        workers = workers or cores
        # "local": a new cluster, even if a `ray start` cluster runs (or its address file
        # was left behind by one killed) on this machine.
        ray.init(address="local", num_cpus=workers, **settings)
        return workers, f"a local Ray cluster of {workers} CPUs"
    # `auto` is the address a `ray start` on this machine recorded (or RAY_ADDRESS): a
    # stale one, its cluster killed, made ray.init wait for minutes, so it is checked too.
    _check_reachable(_resolve_auto(address) if address == "auto" else address, address)
    try:
        ray.init(address=address, **settings)
    except (ConnectionError, RuntimeError, ValueError) as err:
        raise RayUnavailable(f"--ray {address}: cannot join the Ray cluster ({err})") from None
    cpus = int(ray.cluster_resources().get("CPU", 0))
    if cpus < 1:
        ray.shutdown()
        raise RayUnavailable(f"--ray {address}: the cluster has no CPUs")
    nodes = len([n for n in ray.nodes() if n.get("Alive")])
    return workers or cpus, f"the Ray cluster at {address} ({nodes} nodes, {cpus} CPUs)"


# The driver --------------------------------------------------------------------------------

class Pool:
    """The worker actors, each named by its index (its random stream)."""

    def __init__(self, game, level: int, seed: int, workers: int,
                 max_memory: int | None, log: Callable[[str], None]):
        import ray

        self.ray, self.log = ray, log
        self.args = (game.get_type().short_name, dict(game.get_parameters()), level, seed,
                     max_memory)
        self.remote = ray.remote(num_cpus=1, max_restarts=0)(Worker)
        self.actors = [self.remote.remote(*self.args) for _ in range(workers)]
        self.restarts = [0] * workers
        self.info = [self._describe(k) for k in range(workers)]

    def _describe(self, k: int) -> dict:
        from ray.exceptions import GetTimeoutError, RayActorError

        try:
            info = self.ray.get(self.actors[k].describe.remote(), timeout=START_TIMEOUT)
        except GetTimeoutError:
            free = self.ray.available_resources().get("CPU", 0)
            raise RayUnavailable(f"worker {k} did not start within {START_TIMEOUT:.0f} s "
                                 f"({free:g} CPUs free in the cluster): give fewer "
                                 "--ray-workers, or free the cluster's CPUs") from None
        except RayActorError as err:
            raise RayUnavailable(f"worker {k} could not start: {err}") from None
        if info["code"] != code_fingerprint():
            raise RayUnavailable(f"worker {k} on {info['node']} runs other code (fingerprint "
                                 f"{info['code']}, this checkout {code_fingerprint()}): "
                                 "install the same commit on every node")
        return info

    def name(self, k: int) -> str:
        return f"worker {k} (pid {self.info[k]['pid']} on {self.info[k]['node']})"

    def restart(self, k: int, why: str, iteration: int) -> None:
        """Replace worker k after its death (`why`); RuntimeError past MAX_RESTARTS."""
        self.restarts[k] += 1
        if self.restarts[k] > MAX_RESTARTS:
            raise RuntimeError(f"{self.name(k)} {why}; it failed {self.restarts[k]} times, "
                               "so the run stops")
        self.log(f"{self.name(k)} {why}; restarting it from the merged tables of iteration "
                 f"{iteration:,} (restart {self.restarts[k]} of {MAX_RESTARTS})")
        self.ray.kill(self.actors[k], no_restart=True)
        self.actors[k] = self.remote.remote(*self.args)
        self.info[k] = self._describe(k)
        self.log(f"{self.name(k)} started")

    def run_round(self, tables: Tables, rngs: np.ndarray, shares: list[int],
                  timeout: float, iteration: int) -> list[dict]:
        """Every worker's deltas for one round, in worker order; a worker that dies (or
        exceeds `timeout`) is restarted and redoes its share from the same state."""
        from ray.exceptions import RayActorError, WorkerCrashedError, ObjectLostError

        arrays = self.ray.put(tables.args())
        results: list[dict | None] = [None] * len(shares)
        pending = {self.actors[k].run_round.remote(arrays, rngs[k], shares[k]): k
                   for k in range(len(shares)) if shares[k]}
        started = {ref: time.perf_counter() for ref in pending}
        while pending:
            ready, _ = self.ray.wait(list(pending), num_returns=1, timeout=1.0)
            for ref in ready:
                k = pending.pop(ref)
                try:
                    results[k] = self.ray.get(ref)
                except (RayActorError, WorkerCrashedError, ObjectLostError) as err:
                    self.restart(k, f"died ({type(err).__name__})", iteration)
                    new = self.actors[k].run_round.remote(arrays, rngs[k], shares[k])
                    pending[new], started[new] = k, time.perf_counter()
            now = time.perf_counter()
            for ref, k in list(pending.items()):
                if now - started[ref] > timeout:
                    del pending[ref]
                    self.restart(k, f"did not answer in {timeout:.0f} s", iteration)
                    new = self.actors[k].run_round.remote(arrays, rngs[k], shares[k])
                    pending[new], started[new] = k, time.perf_counter()
        return results


def train_ray(game, level: int, iterations: int | None, seconds: float | None, *,
              address: str | None = None, workers: int | None = None, seed: int = 1,
              round_iterations: int = 1000, checkpoint: Path | None = None,
              checkpoint_every: float = 600.0, resume: bool = False, tree=None,
              max_memory: int | None = None, pool: Pool | None = None,
              on_progress: Callable[[MCCFRSolver, dict | None], None] | None = None,
              log: Callable[[str], None] = lambda message: None) -> TrainOutcome:
    """`solver.mccfr.train.train` on Ray workers: rounds of `round_iterations` iterations
    per worker, merged in worker order. `address`: None for a local cluster of `workers`
    CPUs, `auto` or HOST:PORT to join one. `max_memory` bounds each worker's tables and
    the driver's merged ones. A resumed run keeps its checkpoint's number of streams
    (workers). The outcome's solver holds the merged tables; `ray_info` is set on it.
    `pool`: workers already started (on the connected cluster; benchmarks reuse them)."""
    import ray

    _check_budgets(iterations, seconds, checkpoint_every)
    if not isinstance(round_iterations, int) or round_iterations < 1:
        raise ValueError(f"round_iterations must be a positive whole number, got "
                         f"{round_iterations!r}")
    solver = resumed(game, level, checkpoint, resume, max_memory, log)
    if solver is not None:
        if workers is not None and workers != solver.threads:
            raise ValueError(f"{checkpoint}: the run has {solver.threads} random streams "
                             f"(workers or threads); resume it with --ray-workers "
                             f"{solver.threads} (or without --ray-workers)")
        workers = solver.threads
    started_ray = not ray.is_initialized()
    count, cluster = connect(address, workers) if started_ray else (
        workers or int(ray.cluster_resources().get("CPU", 1)), "the connected Ray cluster")
    try:
        if solver is None:
            solver = MCCFRSolver(game, level=level, seed=seed, threads=count,
                                 max_memory=max_memory)
        if max_memory is not None and solver.tables.nbytes > max_memory:
            raise ValueError(f"the tables already take {memory_size(solver.tables.nbytes)}, "
                             f"over the memory limit of {memory_size(max_memory)}: raise "
                             "--max-memory")
        log(f"ray: {count} workers on {cluster}; rounds of {round_iterations:,} iterations "
            "per worker")
        cpus = int(ray.cluster_resources().get("CPU", 0))
        if pool is None and count > cpus:
            raise RayUnavailable(f"{count} workers need {count} CPUs; {cluster} has {cpus}: "
                                 f"give --ray-workers {cpus} or fewer")
        if pool is None:
            pool = Pool(game, level, solver.seed, count, max_memory, log)
        elif len(pool.actors) != count:
            raise ValueError(f"the pool has {len(pool.actors)} workers, the run {count}")
        log("ray: " + ", ".join(pool.name(k) for k in range(count)))
        return _rounds(solver, pool, iterations, seconds, round_iterations, checkpoint,
                       checkpoint_every, tree, max_memory, on_progress, log, cluster)
    finally:
        if started_ray:
            ray.shutdown()


def _rounds(solver, pool, iterations, seconds, round_iterations, checkpoint,
            checkpoint_every, tree, max_memory, on_progress, log, cluster) -> TrainOutcome:
    count = solver.threads
    solver.ray_info = {"workers": count, "cluster": cluster,
                       "round_iterations": round_iterations, "restarts": 0,
                       "worker_bytes": 0, "worker_rss": 0,
                       # Where a round's time goes: the slowest worker's kernel, its copy
                       # of the tables and deltas, the driver's merge; the rest is Ray
                       # (the broadcast, the transfers, the scheduling).
                       "kernel_seconds": 0.0, "worker_seconds": 0.0, "merge_seconds": 0.0}
    started = time.perf_counter()
    last_checkpoint = started
    next_measure = _next_measure(solver.iterations)
    stopped_by, message = "iterations", None
    slowest = 0.0

    def measure() -> dict:
        return curve_point(solver, tree)

    def save() -> None:
        header = {**solver._describe(), "ray": dict(solver.ray_info)}
        write_checkpoint(checkpoint, header, solver.tables, solver.rngs)

    with kill_as_interrupt():  # `kill` saves the run as Ctrl-C does
        try:
            while True:
                spent = budget_spent(solver, iterations, seconds, started)
                if spent is not None:
                    stopped_by = spent
                    break
                total = count * round_iterations
                if iterations is not None:
                    total = min(total, iterations - solver.iterations)
                shares = [total // count + (k < total % count) for k in range(count)]
                round_start = time.perf_counter()
                timeout = max(MIN_ROUND_TIMEOUT, ROUND_TIMEOUT_FACTOR * slowest)
                results = pool.run_round(solver.tables, solver.rngs, shares, timeout,
                                         solver.iterations)
                over = [r for r in results if r is not None and "memory" in r]
                if over:
                    raise MemoryLimitReached(max_memory or 0, max_memory or 0,
                                             solver.tables.num_keys) from RuntimeError(
                                                 over[0]["memory"])
                done = [r for r in results if r is not None]
                merge_start = time.perf_counter()
                merge_deltas(solver.tables, done, max_memory)
                info = solver.ray_info
                info["merge_seconds"] += time.perf_counter() - merge_start
                info["kernel_seconds"] += max(r["seconds"] for r in done)
                info["worker_seconds"] += max(r["worker_seconds"] for r in done)
                for k, r in enumerate(results):
                    if r is not None:
                        solver.rngs[k] = r["rng"]
                solver.iterations += sum(r["iterations"] for r in done)
                elapsed = time.perf_counter() - round_start
                slowest = max(slowest, elapsed)
                solver.seconds += elapsed
                info["restarts"] = sum(pool.restarts)
                info["worker_bytes"] = max([info["worker_bytes"]] + [r["nbytes"] for r in done])
                info["worker_rss"] = max([info["worker_rss"]] + [r["rss"] for r in done])
                point = None
                if solver.iterations >= next_measure:
                    point = measure()
                    next_measure = _next_measure(solver.iterations)
                if checkpoint and time.perf_counter() - last_checkpoint >= checkpoint_every:
                    save()
                    last_checkpoint = time.perf_counter()
                if on_progress:
                    on_progress(solver, point)
        except KeyboardInterrupt:
            stopped_by = "interrupted"  # the round in flight is dropped; merged ones stand
        except MemoryLimitReached as limit:
            stopped_by = "memory"
            detail = str(limit.__cause__) if limit.__cause__ else str(limit)
            go_on = (f"resume it from the checkpoint {checkpoint} with --resume and a larger "
                     "--max-memory" if checkpoint else "run again with a larger --max-memory "
                     "(and --checkpoint, to be able to resume)")
            where = "in a worker" if limit.__cause__ else "in the driver's merged tables"
            message = (f"stopped at iteration {solver.iterations:,}: {where}, {detail} (the "
                       f"limit holds per worker). The policy so far is saved. To go on, "
                       f"{go_on}; or use a coarser --abstraction.")
        except RuntimeError as err:  # a worker that keeps failing
            stopped_by = "worker failure"
            message = (f"stopped at iteration {solver.iterations:,}: {err}. The merged "
                       "tables are saved" + (f"; resume from {checkpoint} with --resume"
                                             if checkpoint else ""))
    if solver.iterations == 0:
        raise ValueError("no MCCFR iteration finished, so there is no policy to save "
                         f"(stopped by {stopped_by}{': ' + message if message else ''})")
    if not solver.curve or solver.curve[-1]["iteration"] != solver.iterations:
        measure()
    if checkpoint:
        save()
    return TrainOutcome(solver, stopped_by, solver.curve, message)

