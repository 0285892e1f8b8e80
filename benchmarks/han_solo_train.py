"""Train a han_solo table with external-sampling MCCFR (the shared solver/mccfr/ with Han
Solo's hooks) within a time budget and ship it as a policy file with its provenance header.

    python benchmarks/han_solo_train.py --level coarse --seconds 900 --seed 1 \
        --out results/policy_full_han_solo_2p_coarse.npz

Prints iterations, keys and the rate as it goes. --max-keys keeps the most visited keys
so the file stays small (a dropped key plays uniformly; the header says what share of
the visits the kept keys had).
"""

from __future__ import annotations

import argparse
import json
import os
import time

import pyspiel
from _common import add_output_args

from solver.han_solo.abstraction import LEVELS, level_id
from solver.han_solo.table_policy import export_table
from solver.mccfr.solver import MCCFRSolver
from solver.mccfr.train import train


def main(argv: list[str] | None = None) -> dict:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--params", type=json.loads, default={"players": 2},
                        help="han_solo parameters as JSON (default %(default)s: full deck)")
    parser.add_argument("--level", default="compact", choices=LEVELS)
    parser.add_argument("--seconds", type=float, default=900.0,
                        help="training time budget (default %(default)s)")
    parser.add_argument("--iterations", type=int, default=None,
                        help="stop after this many iterations instead")
    parser.add_argument("--threads", type=int, default=1,
                        help="threads sharing the tables (default %(default)s: deterministic)")
    parser.add_argument("--rank-utility", action="store_true",
                        help="train on the hands' comparison (2 players, compact: "
                             "MCCFRSolver's utility rank)")
    parser.add_argument("--utility", choices=("returns", "rank", "pot_mean"),
                        help="MCCFRSolver's utility (solver/han_solo/mccfr.py; default "
                             "returns, rank with --rank-utility)")
    parser.add_argument("--linear", action="store_true",
                        help="linear averaging (iteration t weighs t in the average)")
    parser.add_argument("--current-out", metavar="NPZ",
                        help="also write the current strategy (regret matching) here")
    parser.add_argument("--max-keys", type=int, default=4_000_000,
                        help="keys kept in the file (default %(default)s)")
    add_output_args(parser)
    args = parser.parse_args(argv)
    game = pyspiel.load_game("han_solo", args.params)
    wall = time.perf_counter()
    last = [0.0]
    curve = []

    def progress(s: MCCFRSolver, point) -> None:
        if s.seconds - last[0] >= 30 or s.iterations < 50:
            last[0] = s.seconds
            curve.append({"iteration": s.iterations, "seconds": round(s.seconds, 1),
                          "keys": s.num_keys})
            print(f"{s.iterations:,} iterations, {s.num_keys:,} keys, {s.seconds:.0f} s, "
                  f"{s.iterations / max(s.seconds, 1e-9):.0f} it/s", flush=True)

    solver = train(game, level_id(args.level), args.iterations,
                   None if args.iterations else args.seconds, threads=args.threads,
                   seed=args.seed, linear=args.linear, on_progress=progress,
                   utility=args.utility or ("rank" if args.rank_utility
                                            else "returns")).solver
    curve.append({"iteration": solver.iterations, "seconds": round(solver.seconds, 1),
                  "keys": solver.num_keys})
    print(f"trained: {solver.iterations:,} iterations, {solver.num_keys:,} keys, "
          f"{solver.seconds:.0f} s (wall {time.perf_counter() - wall:.0f} s)", flush=True)
    if args.out:
        extra = {"curve": curve, "linear_averaging": args.linear,
                 "rank_utility": args.rank_utility,
                 "training_wall_seconds": round(time.perf_counter() - wall, 1)}
        if args.current_out:
            current = export_table(solver.current(), args.current_out,
                                   max_keys=args.max_keys, strategy="current", **extra)
            print(f"wrote {args.current_out}: {current['keys']:,} keys", flush=True)
        header = export_table(solver, args.out, max_keys=args.max_keys, strategy="average",
                              **extra)
        print(f"wrote {args.out}: {header['keys']:,} keys, "
              f"{os.path.getsize(args.out) / 1e6:.1f} MB", flush=True)
        return header
    return {"iterations": solver.iterations, "keys": solver.num_keys}


if __name__ == "__main__":
    main()
