"""Local best response (solver/evaluation/lbr.py) against a han_solo policy, 2 players: a
lower bound on its exploitability with a 95% interval.

    python benchmarks/han_solo_lbr.py --policy table \
        --table results/policy_full_han_solo_2p_compact.npz --deals 400 --seed 1 \
        --results results

Writes han_solo_lbr.json (one record per policy measured, kept across runs) and
han_solo_lbr.csv into --results.
"""

from __future__ import annotations

import argparse
import json
import time
from pathlib import Path

import pyspiel
from _common import add_output_args

from solver import provenance
from solver.evaluation.lbr import DEFAULT_MAX_PARTICLES, DEFAULT_ROLLOUTS, run_lbr
from solver.han_solo import exact
from solver.han_solo.features import HEURISTIC_NAMES
from solver.han_solo.table_policy import load_table
from solver.han_solo.playout import TABLE, HanSoloBank
from solver.reports.files import table_files

COLUMNS = ["policy", "deck", "deals", "lower_bound", "low", "high", "seat0", "seat1",
           "rollouts", "particles", "seconds"]


def main(argv: list[str] | None = None) -> dict:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--policy", default="table", choices=[*HEURISTIC_NAMES, "table"])
    parser.add_argument("--table", metavar="NPZ", help="the table (with --policy table)")
    parser.add_argument("--deck", default="full", choices=["full", *sorted(exact.DECKS)],
                        help="the full deck or a reduced one (default %(default)s)")
    parser.add_argument("--deals", type=int, default=400,
                        help="deals, LBR in each seat (default %(default)s)")
    parser.add_argument("--rollouts", type=int, default=DEFAULT_ROLLOUTS)
    parser.add_argument("--particles", type=int, default=DEFAULT_MAX_PARTICLES)
    parser.add_argument("--results", metavar="DIR",
                        help="add the record to han_solo_lbr.{json,csv} in DIR")
    add_output_args(parser)
    args = parser.parse_args(argv)
    if (args.policy == "table") != bool(args.table):
        parser.error("--table NPZ goes with --policy table, and only with it")
    game = (pyspiel.load_game("han_solo", {"players": 2}) if args.deck == "full"
            else exact.load(args.deck))
    table = load_table(args.table, game) if args.table else None
    policy = TABLE if table is not None else HEURISTIC_NAMES.index(args.policy)
    wall = time.perf_counter()

    def progress(done: int, total: int) -> None:
        if done % 20 == 0 or done == total:
            print(f"{done}/{total} deals, {time.perf_counter() - wall:.0f} s", flush=True)

    result = run_lbr(game, HanSoloBank(table), policy, args.deals, args.seed, args.rollouts,
                     max_particles=args.particles, on_progress=progress)
    bound = result.lower_bound()
    seats = result.per_seat()
    name = f"table:{Path(args.table).stem.removeprefix('policy_full_han_solo_2p_')}" \
        if table is not None else args.policy
    row = {"policy": name, "deck": args.deck, "deals": result.deals,
           "lower_bound": bound.mean, "low": bound.low, "high": bound.high,
           "seat0": seats[0].mean, "seat1": seats[1].mean, "rollouts": args.rollouts,
           "particles": args.particles, "seconds": round(result.seconds, 1),
           "belief": result.belief_stats,
           **({"table": provenance.portable_path(args.table),
               "table_code_version": table.header["code_version"]} if table else {})}
    print(f"LBR against {name} ({args.deck}): exploitability >= {bound.mean:+.3f} "
          f"[{bound.low:+.3f}, {bound.high:+.3f}] thousand credits a round; seats "
          f"{seats[0].mean:+.3f}, {seats[1].mean:+.3f}; {result.seconds:.0f} s", flush=True)
    record = {**provenance.header(game, seconds=time.perf_counter() - wall),
              "what": "local best response against a policy, 2 players: LBR's mean margin "
                      "over its two seats (thousands of credits a round), a lower bound "
                      "on the policy's exploitability, 95% normal interval over deals",
              "algorithm": "LBR (solver/evaluation/lbr.py): Bayes belief over the "
                           "opponent's hidden cards (the compiled filter, "
                           "solver/belief/kernel.py with solver/han_solo/filter.py), each "
                           "action valued by rollouts of the policy",
              "seed": args.seed, "rows": [row]}
    if args.results:
        out = Path(args.results)
        path = out / "han_solo_lbr.json"
        rows = []
        if path.exists():  # one row per (policy, deck): a new run replaces its row
            rows = [r for r in json.loads(path.read_text())["rows"]
                    if (r["policy"], r["deck"]) != (name, args.deck)]
        record["columns"], record["rows"] = COLUMNS, [*rows, row]
        provenance.write_json(path, record)
        for name, data in table_files(record, "han_solo_lbr").items():
            provenance.write_atomic(out / name, data)
        print(f"wrote {path} and .csv", flush=True)
    if args.out:
        provenance.write_json(args.out, record)
    return record


if __name__ == "__main__":
    main()
