"""How large the search's subgame is at each depth rung early in a round: why it falls
back to my own turn (docs/search.md, issue 26's early-round goal).

At random early play decisions (9+ cards in the deck) of 2-player full-deck rounds, the
searcher's roots as `search` makes them (1-KLSS: order-1 and order-2 roots, the heaviest
`max_roots`), then the node count of each rung of `resolve.DEPTHS` (plays below the root,
cut at chance or not) with all roots and with the order-1 roots alone (no opponent view:
no gadget), by counting builds (no rollouts). A count over `--cap` nodes is shown as
"> cap". The timed search's budget is NODES_PER_SECOND (50,000) nodes a second.

    python benchmarks/search_depth_sizes.py [--situations 6] [--agenda exalted_one]
        [--cap 2000000] [--out figures.json]
"""

from __future__ import annotations

import argparse
import random

import numpy as np
from _common import add_output_args, load_jabba, machine_info, markdown_table, \
    write_json_atomic

from solver.policies.chain import load_policies
from solver.search.resolve import (DEFAULT_LIMITS, DEPTHS, NODES_PER_SECOND, TREMBLE,
                                   _heaviest, _order1, my_posterior)
from solver.search.subgame import SubgameTooLarge, build, roots
from solver.sim.random_round import play_decisions
from spiel_game import engine

EARLY_DECK = 9


def rung_name(depth: int, cut_chance: bool) -> str:
    return "end of round" if depth < 0 else f"{depth} play{'s' * (depth > 1)}" + (
        ", cut at chance" if cut_chance else "")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--situations", type=int, default=6)
    parser.add_argument("--agenda", default="exalted_one")
    parser.add_argument("--cap", type=int, default=2_000_000,
                        help="node count past which a build stops")
    add_output_args(parser)
    args = parser.parse_args()
    if args.situations <= 0 or args.cap <= 0:
        parser.error("--situations and --cap must be positive")
    rng = random.Random(args.seed)
    game = load_jabba(2, args.agenda)
    policies = load_policies(game)
    situations = []
    while len(situations) < args.situations:
        early = [s.clone() for s in play_decisions(game, rng)
                 if engine.deck_size(s._s) >= EARLY_DECK]
        if early:
            situations.append(rng.choice(early))
    rows, figures = [], []
    for state in situations:
        me = state.current_player()
        post = my_posterior(game, state._s, me, policies)
        found = roots(game, np.stack(post.states), post.weights, me, policies.bank,
                      policies.chain, TREMBLE, DEFAULT_LIMITS.max_particles)
        found = _heaviest(found, DEFAULT_LIMITS.max_roots)
        counts = {}
        for depth, cut_chance in DEPTHS:
            for label, chosen in (("all roots", found), ("order-1 roots", _order1(found))):
                try:
                    nodes, _ = build(chosen, me, policies.bank, policies.chain, args.cap,
                                     depth, 0, 1, count_only=True, cut_chance=cut_chance,
                                     top="unsafe" if label == "order-1 roots" else
                                     "max-margin")
                except SubgameTooLarge:
                    nodes = None
                counts[f"{rung_name(depth, cut_chance)}, {label}"] = nodes
        figures.append({"deck": int(engine.deck_size(state._s)), "roots": len(found.weights),
                        "nodes": counts})
        rows.append([str(int(engine.deck_size(state._s))), str(len(found.weights))] + [
            f"> {args.cap:,}" if n is None else f"{n:,}" for n in counts.values()])
    headers = ["deck", "roots"] + list(figures[0]["nodes"])
    print(f"{args.agenda}: subgame nodes by depth rung (budget {NODES_PER_SECOND:,} a "
          f"second)")
    print(markdown_table(headers, rows))
    if args.out:
        write_json_atomic(args.out, {"machine": machine_info(), "agenda": args.agenda,
                                     "cap": args.cap, "situations": figures})


if __name__ == "__main__":
    main()
