"""MCCFR on Ray against one process, at equal iterations, side by side in one run.

Configurations, interleaved within each repeat (machine noise hits them alike), each from
empty tables with the same seed and the same number of iterations:
- `single`: the default path, MCCFRSolver with one thread (`jabba solve --threads 1`);
- `threads2`: MCCFRSolver with two threads sharing the tables (`--threads 2`);
- `ray1`, `ray2`: solver/mccfr/distributed.py with 1 and 2 workers on one local cluster
  (started once, workers started and compiled once, untimed).
Rates are iterations / training seconds (for Ray: the rounds' wall time, broadcast and
merge included; not the cluster's start nor the workers' compile), medians over the
repeats with min - max. Ratios: ray2 / ray1 (the goal: at least 1.7), ray2 / single,
threads2 / single. Memory per worker: the worker's tables and its peak RSS.

    python benchmarks/ray_speed.py --deck full --abstraction counting --iterations 2000
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from benchmarks import _common  # noqa: E402
from solver.abstraction.keys import LEVELS  # noqa: E402
from solver.mccfr.solver import MCCFRSolver, memory_size  # noqa: E402


def _run_local(game, level: int, iterations: int, threads: int, seed: int) -> dict:
    solver = MCCFRSolver(game, level=level, seed=seed, threads=threads)
    solver.run(iterations, batch=iterations)
    return {"rate": solver.iterations / solver.seconds, "keys": solver.tables.num_keys,
            "table_bytes": solver.tables.nbytes}


def _run_ray(game, level: int, iterations: int, pool, seed: int, round_iterations: int
             ) -> dict:
    from solver.mccfr.distributed import train_ray

    outcome = train_ray(game, level, iterations, None, workers=len(pool.actors), seed=seed,
                        round_iterations=round_iterations, pool=pool)
    solver = outcome.solver
    return {"rate": solver.iterations / solver.seconds, "keys": solver.tables.num_keys,
            "table_bytes": solver.tables.nbytes,
            "worker_table_bytes": solver.ray_info["worker_bytes"],
            "worker_rss": solver.ray_info["worker_rss"], "seconds": solver.seconds,
            **{k: solver.ray_info[k] for k in ("kernel_seconds", "worker_seconds",
                                                 "merge_seconds")}}


def main(argv=None) -> dict:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--deck", default="full")
    parser.add_argument("--abstraction", default="counting", choices=list(LEVELS))
    parser.add_argument("--iterations", type=int, default=2000,
                        help="iterations per configuration and repeat (default %(default)s)")
    parser.add_argument("--round", type=int, default=250, dest="round_iterations",
                        help="Ray: iterations per worker between merges (default "
                        "%(default)s)")
    parser.add_argument("--repeats", type=int, default=3)
    _common.add_output_args(parser)
    args = parser.parse_args(argv)
    _common.guard_outputs(parser, args.out)
    import ray

    from solver.mccfr.distributed import Pool, connect

    game = _common.load_jabba(deck=args.deck)
    level = LEVELS[args.abstraction]
    clock = _common.Stopwatch()
    MCCFRSolver(game, level=level, seed=args.seed).run(1, batch=1)  # compile, untimed
    connect(None, 3)  # logical CPUs: the 1- and 2-worker pools run in turn, never at once
    try:
        pools = {k: Pool(game, level, args.seed, k, None, print) for k in (1, 2)}
        print(f"warm-up (cluster start, workers' compile): {clock.elapsed():.0f} s")
        runs: dict[str, list[dict]] = {name: [] for name in
                                       ("single", "threads2", "ray1", "ray2")}
        for repeat in range(args.repeats):
            seed = args.seed + repeat
            runs["single"].append(_run_local(game, level, args.iterations, 1, seed))
            runs["threads2"].append(_run_local(game, level, args.iterations, 2, seed))
            for k in (1, 2):
                runs[f"ray{k}"].append(_run_ray(game, level, args.iterations, pools[k], seed,
                                                args.round_iterations))
            print(f"repeat {repeat + 1}: " + ", ".join(
                f"{name} {r[-1]['rate']:,.0f} it/s" for name, r in runs.items()))
    finally:
        ray.shutdown()
    medians = {name: _common.median([r["rate"] for r in rs]) for name, rs in runs.items()}
    rows = [[name, medians[name], min(r["rate"] for r in rs), max(r["rate"] for r in rs),
             medians[name] / medians["single"], rs[-1]["keys"],
             memory_size(rs[-1].get("worker_table_bytes", rs[-1]["table_bytes"])),
             memory_size(rs[-1]["worker_rss"]) if "worker_rss" in rs[-1] else "-"]
            for name, rs in runs.items()]
    print(_common.markdown_table(
        ["configuration", "iterations/s (median)", "min", "max", "x single", "keys",
         "tables per worker", "peak RSS per worker"], rows))
    for k in (1, 2):
        last = runs[f"ray{k}"][-1]
        print(f"ray{k}, last repeat: {last['seconds']:.2f} s of rounds = kernel (slowest "
              f"worker) {last['kernel_seconds']:.2f} s + worker copy and deltas "
              f"{last['worker_seconds'] - last['kernel_seconds']:.2f} s + merge "
              f"{last['merge_seconds']:.2f} s + Ray (broadcast, transfers) "
              f"{last['seconds'] - last['worker_seconds'] - last['merge_seconds']:.2f} s")
    ratios = {"ray2_over_ray1": medians["ray2"] / medians["ray1"],
              "ray2_over_single": medians["ray2"] / medians["single"],
              "threads2_over_single": medians["threads2"] / medians["single"]}
    print("ratios: " + ", ".join(f"{k} {v:.2f}" for k, v in ratios.items()))
    print(f"{clock.elapsed():.0f} s in all")
    result = {"deck": args.deck, "abstraction": args.abstraction,
              "iterations": args.iterations, "round_iterations": args.round_iterations,
              "repeats": args.repeats, "seed": args.seed, "median_rates": medians,
              "ratios": ratios, "runs": runs, "machine": _common.machine_info(),
              "seconds": round(clock.elapsed(), 1), "at": time.strftime("%Y-%m-%dT%H:%MZ",
                                                                         time.gmtime())}
    if args.out:
        _common.write_json_atomic(args.out, result)
    return result


if __name__ == "__main__":
    main()
