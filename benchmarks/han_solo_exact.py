"""Exact solving of a reduced han_solo deck with the project's solver (solver/exact, the
tree walked through pyspiel): tree size, CFR+ exploitability curve and the game value.

    python benchmarks/han_solo_exact.py [--params JSON] [--iterations 1000] [--out FILE]

The default deck is the smallest the tests solve (docs/han-solo.md) with dice of 2 symbols:
5 cards, one turn each, a roll that matches half the time.
"""

from __future__ import annotations

import argparse
import json

import pyspiel
from _common import Stopwatch, add_output_args, markdown_table, write_json_atomic

from solver.exact.best_response import profile_values
from solver.exact.solve import solve
from solver.exact.tree import build_tree

DEFAULT_PARAMS = {"numbers": 1, "copies": 2, "blues": 1, "turns": 1, "dice": 2,
                  "bounties": "green:1x5000+red:1x1000"}


def main(argv: list[str] | None = None) -> dict:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--params", type=json.loads, default=DEFAULT_PARAMS,
                        help="han_solo parameters as JSON (default %(default)s)")
    parser.add_argument("--iterations", type=int, default=1000,
                        help="CFR+ iterations (default %(default)s)")
    add_output_args(parser)
    args = parser.parse_args(argv)
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
