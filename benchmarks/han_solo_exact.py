"""Exact solving of a reduced han_solo deck with the project's solver (solver/exact, the
tree walked through pyspiel): tree size, CFR+ exploitability curve and the game value.

    python benchmarks/han_solo_exact.py [--params JSON] [--iterations 1000] [--out FILE]
    python benchmarks/han_solo_exact.py --study tiny [--mccfr-iterations N] [--results DIR]

--study DECK (solver/han_solo/exact.py DECKS) runs the exploitability study instead
(solver/han_solo/study.py): the heuristics' NashConv, CFR, CFR+ and DCFR to NashConv <
--target, MCCFR at each abstraction level, written as
results/exploitability_han_solo_<deck>_2p.{json,csv,md,png}.

The default deck is the smallest the tests solve (docs/han-solo.md) with dice of 2 symbols:
5 cards, one turn each, a roll that matches half the time.
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path

import pyspiel
from _common import Stopwatch, add_output_args, markdown_table, write_json_atomic

from solver.exact.best_response import profile_values
from solver.exact.solve import solve
from solver.exact.tree import build_tree
from solver.han_solo.study import study
from solver.reports.files import write_exploitability

DEFAULT_PARAMS = {"numbers": 1, "copies": 2, "blues": 1, "turns": 1, "dice": 2,
                  "bounties": "green:1x5000+red:1x1000"}


def main(argv: list[str] | None = None) -> dict:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--params", type=json.loads, default=DEFAULT_PARAMS,
                        help="han_solo parameters as JSON (default %(default)s)")
    parser.add_argument("--iterations", type=int, default=1000,
                        help="CFR+ iterations (default %(default)s)")
    parser.add_argument("--study", metavar="DECK",
                        help="run the exploitability study on this reduced deck")
    parser.add_argument("--target", type=float, default=1e-3,
                        help="--study: NashConv the CFR variants stop at (default %(default)s)")
    parser.add_argument("--mccfr-iterations", type=int, default=0,
                        help="--study: MCCFR iterations per abstraction level (0: none)")
    parser.add_argument("--results", metavar="DIR",
                        help="--study: write the record and its renderings into DIR")
    add_output_args(parser)
    args = parser.parse_args(argv)
    if args.study:
        record = study(args.study, iterations=args.iterations, target=args.target,
                       mccfr_iterations=args.mccfr_iterations, seed=args.seed)
        if args.results:
            for path in write_exploitability(record, Path(args.results)):
                print(f"wrote {path}")
        return record
    wall = Stopwatch()
    game = pyspiel.load_game("han_solo", args.params)
    clock = Stopwatch()
    tree = build_tree(game)
    build_seconds = clock.elapsed()
    outcome = solve(tree, "cfr+", iterations=args.iterations)
    values = profile_values(tree, outcome.strategy).tolist()
    print(f"han_solo {json.dumps(args.params)}: {tree.num_nodes:,} nodes, "
          f"{tree.num_infosets:,} information sets, built in {build_seconds:.1f} s\n")
    print(markdown_table(["CFR+ iterations", "seconds", "exploitability (thousand credits)"],
                         [[str(m.iteration), f"{m.seconds:.2f}", f"{m.value:.6f}"]
                          for m in outcome.curve if m.iteration in (1, 10, 100, 1000)
                          or m is outcome.curve[-1]]))
    print(f"\ngame value (thousands of credits, margin per seat): "
          f"{', '.join(f'{v:+.4f}' for v in values)}")
    print(f"wall time {wall.elapsed():.1f} s")
    result = {"args": vars(args), "nodes": tree.num_nodes, "infosets": tree.num_infosets,
              "build_seconds": build_seconds, "values": values,
              "curve": [vars(m) for m in outcome.curve], "wall_seconds": wall.elapsed()}
    if args.out:
        write_json_atomic(args.out, result)
    return result


if __name__ == "__main__":
    main()
