"""Exact figures on reduced sarlaccs_pit games (solver/exact/ walks them through pyspiel):
the heuristics' exploitability and CFR's, after a number of iterations.

The reduced games are game parameters: the board `tiny` (spiel_game/sarlacc/boards/
tiny.toml: one line of two spaces, one Gamorrean), the fewest cards the deal allows (one
1, one 2, one Move To Any Empty Space beside the six Force cards; the four Jabba cards
join after the deal, S3) and a turn limit (S11). See docs/sarlaccs-pit.md
"Exact solving on reduced games".
"""

from __future__ import annotations

import time

import numpy as np
import pyspiel

import spiel_game  # noqa: F401  (registers sarlaccs_pit)

from solver import provenance
from solver.exact.best_response import exploitability, nash_conv, profile_values
from solver.exact.solve import solve
from solver.exact.tree import GameTree, build_tree
from solver.exact.tree_policy import strategy_from_policy
from solver.sarlaccs_pit.features import HEURISTIC_NAMES
from solver.sarlaccs_pit.heuristics import SarlaccHeuristic

_TINY = {"board": "tiny", "numbers": "1:1+2:1", "directions": "any_space:1"}
REDUCED = {
    # one turn: the first player's (a move, maybe a challenge); 2 players
    "tiny1": {**_TINY, "max_turns": 1},
    # a turn each: 918,479 histories, 57,337 information states (2 players)
    "tiny2": {**_TINY, "max_turns": 2},
}


def load(name: str, players: int = 2) -> pyspiel.Game:
    if name not in REDUCED:
        raise ValueError(f"reduced game {name!r}: known are {', '.join(REDUCED)}")
    return pyspiel.load_game("sarlaccs_pit", {**REDUCED[name], "players": players})


def heuristic_strategy(tree: GameTree, name: str) -> np.ndarray:
    """The flat tree strategy of a heuristic (asked once per information set)."""
    return strategy_from_policy(tree, SarlaccHeuristic(tree.game, name))


def figures(tree: GameTree, strategy: np.ndarray) -> dict:
    """NashConv and (2 players) exploitability, Jedi points per game."""
    return {"nash_conv": float(nash_conv(tree, strategy)),
            "exploitability": float(exploitability(tree, strategy))
            if tree.num_players == 2 else None}


def study(name: str, *, iterations=(10, 100, 1000), algorithm: str = "cfr",
          command: str | None = None, log=print) -> dict:
    """The record: the tree's size; each heuristic's NashConv and exploitability; CFR's
    after each number of `iterations` (each run from scratch)."""
    wall = time.perf_counter()
    game = load(name)
    clock = time.perf_counter()
    tree = build_tree(game)
    build_seconds = time.perf_counter() - clock
    log(f"{name}: {tree.num_nodes:,} histories, {tree.num_infosets:,} information states, "
        f"built in {build_seconds:.1f} s")
    rows = []
    for heuristic in HEURISTIC_NAMES:
        clock = time.perf_counter()
        strategy = heuristic_strategy(tree, heuristic)
        rows.append({"policy": heuristic, "kind": "heuristic", "iterations": 0,
                     **figures(tree, strategy),
                     "values": profile_values(tree, strategy).tolist(),
                     "seconds": round(time.perf_counter() - clock, 2)})
        log(f"  {heuristic:18s} exploitability {rows[-1]['exploitability']:.5f}")
    for count in iterations:
        outcome = solve(tree, algorithm, iterations=count)
        rows.append({"policy": f"{algorithm}_{count}", "kind": algorithm,
                     "iterations": outcome.iterations, **figures(tree, outcome.strategy),
                     "values": profile_values(tree, outcome.strategy).tolist(),
                     "seconds": round(outcome.seconds, 2)})
        log(f"  {algorithm} x{count:<8d} exploitability {rows[-1]['exploitability']:.5f}")
    return {**provenance.header(game, seconds=time.perf_counter() - wall, command=command),
            "what": "exact exploitability (Jedi points a game, margin utility) of the "
                    "heuristics and of CFR after N iterations on a reduced sarlaccs_pit "
                    "game; exploitability = NashConv / 2",
            "reduced_game": name, "algorithm": algorithm,
            "tree": {"histories": tree.num_nodes, "information_states": tree.num_infosets,
                     "build_seconds": round(build_seconds, 2)},
            "rows": rows}
