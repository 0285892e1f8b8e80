"""The loss of han_solo's abstraction levels on a reduced deck: MCCFR at each level (and
at perfect recall, `exact`) measured exactly as it trains (solver/han_solo/exact.py),
beside CFR+ on the unabstracted tree.

    python benchmarks/han_solo_abstraction.py --deck small --checkpoints 10000,100000,1000000 \
        --seed 1 --results results

Writes han_solo_abstraction_loss.{json,csv}: per level and checkpoint the NashConv
(thousands of credits per round) of the average and of the current strategy.

    python benchmarks/han_solo_abstraction.py --count-keys 300000 --seed 1

counts instead the distinct keys each level gives the decisions of that many random
rounds on the full deck, 2 players, by decision (turn, discard, pick), with and without
the set of legal actions in the key (decisions with one choice have no key).
"""

from __future__ import annotations

import argparse
import time
from pathlib import Path

import numpy as np
import pyspiel
from _common import add_output_args
from numba import njit
from spiel_game.han_solo import engine
from spiel_game.han_solo.layout import NUM_ACTIONS, PH_CHANCE, PH_TERMINAL, PHASE_NAMES, S_PHASE

from solver import provenance
from solver.exact.solve import solve
from solver.han_solo import exact
from solver.han_solo.abstraction import LEVELS, MAX_CHOICES, info_key, level_id, table_actions
from solver.mccfr.solver import MCCFRSolver
from solver.reports.files import table_files
from solver.sim.rng import stream_seed
from solver.sim.sampler import sample


@njit(cache=True)
def _random_keys(initial, rounds, seed, level, phases, keys, unmasked):
    """The keys of every decision with a choice in `rounds` uniformly random rounds."""
    rng = np.array([stream_seed(seed, 41, 0)], dtype=np.uint64)
    acts = np.empty(NUM_ACTIONS, np.int32)
    pr = np.empty(NUM_ACTIONS)
    out = np.empty(MAX_CHOICES, np.int32)
    m = 0
    for _ in range(rounds):
        s = initial.copy()
        while s[S_PHASE] != PH_TERMINAL:
            if s[S_PHASE] == PH_CHANCE:
                k = engine.chance_outcomes(s, acts, pr)
            else:
                k = engine.legal_actions(s, acts)
                if table_actions(s, acts, k, level, out) > 1 and m < len(keys):
                    phases[m] = s[S_PHASE]
                    keys[m] = info_key(s, acts, k, level)
                    unmasked[m] = info_key(s, acts, 0, level)  # no legal actions mixed in
                    m += 1
                for i in range(k):
                    pr[i] = 1.0 / k
            engine.apply_action(s, acts[sample(pr, k, rng)])
    return m


def count_keys(rounds: int, seed: int) -> list[dict]:
    game = pyspiel.load_game("han_solo", {"players": 2})
    size = rounds * 16  # decisions a round: at most 3 x (turn + discard) x 2 + a pick
    phases, keys, unmasked = (np.zeros(size, np.int64) for _ in range(3))
    rows = []
    for level in LEVELS[1:]:
        m = _random_keys(game.initial_array, rounds, seed, level_id(level), phases, keys,
                         unmasked)
        for phase in sorted(set(phases[:m].tolist())):
            sel = phases[:m] == phase
            rows.append({"level": level, "decision": PHASE_NAMES[phase],
                         "decisions": int(sel.sum()),
                         "keys": len(set(keys[:m][sel].tolist())),
                         "keys_without_legal_actions": len(set(unmasked[:m][sel].tolist()))})
            print("  ".join(f"{k} {v}" for k, v in rows[-1].items()), flush=True)
    return rows


def main(argv: list[str] | None = None) -> dict:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--deck", default="small", choices=sorted(exact.DECKS))
    parser.add_argument("--checkpoints", default="10000,100000,1000000",
                        help="MCCFR iterations at which to measure (default %(default)s)")
    parser.add_argument("--linear", action="store_true", help="linear averaging")
    parser.add_argument("--cfr-iterations", type=int, default=200,
                        help="CFR+ iterations on the whole tree (default %(default)s)")
    parser.add_argument("--count-keys", type=int, metavar="ROUNDS",
                        help="count the keys of this many random full-deck rounds instead")
    parser.add_argument("--results", metavar="DIR",
                        help="write han_solo_abstraction_loss.{json,csv} into DIR")
    add_output_args(parser)
    args = parser.parse_args(argv)
    wall = time.perf_counter()
    if args.count_keys:
        rows = count_keys(args.count_keys, args.seed)
        print(f"{time.perf_counter() - wall:.0f} s")
        return {"rows": rows}
    checkpoints = sorted(int(x) for x in args.checkpoints.split(","))
    tree = exact.build(args.deck)
    cfr = solve(tree, "cfr+", iterations=args.cfr_iterations)
    reference = exact.exploitability_of(tree, cfr.strategy)["nash_conv"]
    print(f"{args.deck}: CFR+ {cfr.iterations} iterations: NashConv {reference:.6g}")
    rows = []
    for level in LEVELS:
        keys = exact.infoset_keys(tree, level)
        solver = MCCFRSolver(tree.game, level_id(level), seed=args.seed,
                             linear=args.linear)
        for goal in checkpoints:
            solver.run(goal - solver.iterations)
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
              "algorithm": "external-sampling MCCFR (solver/mccfr/, han_solo's hooks)",
              "linear_averaging": args.linear, "seed": args.seed,
              "tree": {"histories": tree.num_nodes, "information_states": tree.num_infosets},
              "reference": {"algorithm": "cfr+", "iterations": cfr.iterations,
                            "nash_conv": reference},
              "columns": ["level", "iterations", "seconds", "keys", "distinct_keys_in_tree",
                          "nash_conv_average", "nash_conv_current"],
              "rows": rows}
    if args.results:
        out = Path(args.results)
        provenance.write_json(out / "han_solo_abstraction_loss.json", record)
        for name, data in table_files(record, "han_solo_abstraction_loss").items():
            provenance.write_atomic(out / name, data)
    if args.out:
        provenance.write_json(args.out, record)
    return record


if __name__ == "__main__":
    main()
