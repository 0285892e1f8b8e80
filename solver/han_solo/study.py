"""The exploitability study of a reduced han_solo deck: each heuristic's NashConv, CFR,
CFR+ and DCFR run to a target NashConv, the game value, and optionally MCCFR tables at
each abstraction level (their exact NashConv: the abstraction's loss). The record is the
format of solver/reports (exploitability_<game>_<deck>_<n>p.{json,csv,md,png})."""

from __future__ import annotations

import time

from solver import provenance
from solver.exact.best_response import profile_values
from solver.exact.solve import solve
from solver.han_solo import exact
from solver.han_solo.features import HEURISTIC_NAMES
from solver.han_solo.abstraction import level_id
from solver.mccfr.solver import MCCFRSolver

ALGORITHMS = ("cfr", "cfr+", "dcfr")


def study(deck: str, *, iterations: int = 10_000, target: float = 1e-3,
          mccfr_iterations: int = 0, levels=("exact", "fine", "coarse"), seed: int = 0,
          command: str | None = None, log=print) -> dict:
    """The record: rows (policy, kind, NashConv, exploitability, iterations, seconds) and
    curves (algorithm -> [[iteration, NashConv], ...]). CFR variants stop at NashConv <
    `target` or after `iterations`; MCCFR runs `mccfr_iterations` per level (0: none)."""
    wall = time.perf_counter()
    game = exact.load(deck)
    clock = time.perf_counter()
    tree = exact.build(deck)
    build_seconds = time.perf_counter() - clock
    log(f"{deck}: {tree.num_nodes:,} histories, {tree.num_infosets:,} information sets, "
        f"built in {build_seconds:.1f} s")
    rows, curves, values = [], {}, {}
    label = "han_solo"  # the reports' `agenda` column: this game has none

    def row(policy, kind, figures, iterations, seconds, **extra):
        rows.append({"agenda": label, "policy": policy, "kind": kind,
                     "value": figures["nash_conv"], "exploitability": figures["exploitability"],
                     "iterations": iterations, "seconds": seconds, **extra})
        log(f"  {policy:24s} NashConv {figures['nash_conv']:.6g} "
            f"({iterations} iterations, {seconds:.1f} s)")

    for name in HEURISTIC_NAMES:
        clock = time.perf_counter()
        strategy = exact.heuristic_strategy(tree, name)
        row(name, "heuristic", exact.exploitability_of(tree, strategy), 0,
            time.perf_counter() - clock,
            values=profile_values(tree, strategy).tolist())
    for algorithm in ALGORITHMS:
        # 2 players: exploitability = NashConv / 2, the stop criterion of solve().
        outcome = solve(tree, algorithm, iterations=iterations, target=target / 2)
        curves[f"{label}/{algorithm}"] = [[m.iteration, 2 * m.value] for m in outcome.curve]
        values[algorithm] = profile_values(tree, outcome.strategy).tolist()
        row(algorithm, "cfr", exact.exploitability_of(tree, outcome.strategy),
            outcome.iterations, outcome.seconds, values=values[algorithm],
            stopped_by=outcome.stopped_by)
    if mccfr_iterations:
        for level in levels:
            keys = exact.infoset_keys(tree, level)
            solver = MCCFRSolver(game, level=level_id(level), seed=seed)
            solver.run(mccfr_iterations)
            row(f"mccfr_{level}", "mccfr", exact.exploitability_of(
                tree, exact.table_strategy(tree, solver)), solver.iterations,
                solver.seconds, keys=solver.num_keys,
                distinct_keys_in_tree=len(set(keys.tolist())), seed=seed)
    params = {"deck": deck, "players": tree.num_players, **exact.DECKS[deck]}
    return {**provenance.header(params, seconds=time.perf_counter() - wall, command=command,
                                game_name="han_solo"),
            "what": "NashConv of heuristics, CFR-solved and MCCFR (abstracted) policies, "
                    "thousands of credits per round (margin utility)",
            "metric": "nash_conv", "target": target, "iterations": iterations,
            "tree_sizes": {label: {"histories": tree.num_nodes,
                                   "information_states": tree.num_infosets,
                                   "build_seconds": round(build_seconds, 2)}},
            "game_value": values.get("cfr+"), "rows": rows, "curves": curves}
