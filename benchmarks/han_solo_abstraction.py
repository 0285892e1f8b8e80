"""The loss of han_solo's abstraction levels on a reduced deck: MCCFR at each level (and
at perfect recall, `exact`) measured exactly as it trains (solver/han_solo/exact.py),
beside CFR+ on the unabstracted tree.

    python benchmarks/han_solo_abstraction.py --deck small --checkpoints 10000,100000,1000000 \
        --seed 1 --results results

Writes han_solo_abstraction_loss.{json,csv}: per level and checkpoint the NashConv
(thousands of credits per round) of the average and of the current strategy.
"""

from __future__ import annotations

import argparse
import time
from pathlib import Path

from _common import add_output_args

from solver import provenance
from solver.exact.solve import solve
from solver.han_solo import exact
from solver.han_solo.abstraction import LEVELS
from solver.han_solo.mccfr import HanSoloMCCFR
from solver.reports import csv


def main(argv: list[str] | None = None) -> dict:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--deck", default="small", choices=sorted(exact.DECKS))
    parser.add_argument("--checkpoints", default="10000,100000,1000000",
                        help="MCCFR iterations at which to measure (default %(default)s)")
    parser.add_argument("--linear", action="store_true", help="linear averaging")
    parser.add_argument("--cfr-iterations", type=int, default=200,
                        help="CFR+ iterations on the whole tree (default %(default)s)")
    parser.add_argument("--results", metavar="DIR",
                        help="write han_solo_abstraction_loss.{json,csv} into DIR")
    add_output_args(parser)
    args = parser.parse_args(argv)
    wall = time.perf_counter()
    checkpoints = sorted(int(x) for x in args.checkpoints.split(","))
    tree = exact.build(args.deck)
    cfr = solve(tree, "cfr+", iterations=args.cfr_iterations)
    reference = exact.exploitability_of(tree, cfr.strategy)["nash_conv"]
    print(f"{args.deck}: CFR+ {cfr.iterations} iterations: NashConv {reference:.6g}")
    rows = []
    for level in LEVELS:
        keys = exact.infoset_keys(tree, level)
        solver = HanSoloMCCFR(tree.game, level, seed=args.seed, linear=args.linear)
        for goal in checkpoints:
            solver.train(iterations=goal - solver.iterations)
            average = exact.exploitability_of(tree, exact.table_strategy(tree, solver))
            current = exact.exploitability_of(
                tree, exact.table_strategy(tree, solver.current()))
            rows.append({"level": level, "iterations": solver.iterations,
                         "seconds": round(solver.seconds, 2), "keys": solver.num_keys,
                         "distinct_keys_in_tree": len(set(keys.tolist())),
                         "nash_conv_average": average["nash_conv"],
                         "nash_conv_current": current["nash_conv"]})
            print(f"  {level:7s} {solver.iterations:>9,} iterations {solver.seconds:6.1f} s "
                  f"{solver.num_keys:>6,} keys: NashConv average {average['nash_conv']:.6g}"
                  f", current {current['nash_conv']:.6g}", flush=True)
    params = {"deck": args.deck, "players": 2, **exact.DECKS[args.deck]}
    record = {**provenance.header(params, seconds=time.perf_counter() - wall,
                                  game_name="han_solo"),
              "what": "NashConv of external-sampling MCCFR per abstraction level, measured "
                      "exactly on the reduced deck's tree, thousands of credits per round",
              "algorithm": "external-sampling MCCFR (solver/han_solo/mccfr.py)",
              "linear_averaging": args.linear, "seed": args.seed,
              "tree": {"histories": tree.num_nodes, "information_states": tree.num_infosets},
              "reference": {"algorithm": "cfr+", "iterations": cfr.iterations,
                            "nash_conv": reference},
              "rows": rows}
    if args.results:
        out = Path(args.results)
        provenance.write_json(out / "han_solo_abstraction_loss.json", record)
        columns = ["level", "iterations", "seconds", "keys", "distinct_keys_in_tree",
                   "nash_conv_average", "nash_conv_current"]
        provenance.write_atomic(out / "han_solo_abstraction_loss.csv", csv.table(
            columns, [[r[c] for c in columns] for r in rows]).encode())
    if args.out:
        provenance.write_json(args.out, record)
    return record


if __name__ == "__main__":
    main()
