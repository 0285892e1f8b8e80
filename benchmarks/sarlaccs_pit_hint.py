"""How fast the sarlaccs_pit hint answers (`jabba hint --game sarlaccs_pit`, default
rollouts), warm (in-process, the kernels loaded by one hint first), at 2, 3 and 4 players.

The positions are turn starts of seeded games played by save_force (the start of a
random turn of each game), described as their turn player describes them
(solver/sarlaccs_pit/situation.py `mapping_of`). Seconds p50 and max over the positions,
with the full actions valued and the rollouts each got; --out writes the figures.

    python benchmarks/sarlaccs_pit_hint.py [--players 2 3 4] [--positions 8] [--out FILE]
"""

from __future__ import annotations

import argparse
import time

import numpy as np

from _common import add_output_args, machine_info, markdown_table, median, write_json_atomic

import pyspiel

from solver.hint.advice import answer
from solver.hint.request import HintRequest
from solver.sarlaccs_pit.heuristics import SarlaccHeuristic
from solver.sarlaccs_pit.situation import hint_decisions, mapping_of
from spiel_game.sarlacc import layout as L


def positions(players: int, count: int, seed: int) -> list[dict]:
    """`count` turn starts, one of each seeded save_force game (a random turn of it)."""
    game = pyspiel.load_game("sarlaccs_pit", {"players": players})
    policy = SarlaccHeuristic(game, "save_force")
    rng = np.random.default_rng(seed)
    out = []
    while len(out) < count:
        starts = [s for s in hint_decisions(game, rng, policy) if s[L.S_PHASE] == L.PH_PLAY]
        if starts:
            out.append(mapping_of(starts[int(rng.integers(len(starts)))], game.config.board))
    return out


def measure(players: int, count: int, seed: int) -> dict:
    situations = positions(players, count, seed)
    answer(HintRequest.from_inputs(situations[0], seed=seed, rollouts=2))  # warm
    seconds, paths, rollouts = [], [], []
    for data in situations:
        start = time.perf_counter()
        out = answer(HintRequest.from_inputs(data, seed=seed)).to_json()
        seconds.append(time.perf_counter() - start)
        paths.append(len(out["full_actions"]))
        rollouts.append(out["rollouts"]["count"])
    return {"players": players, "positions": count, "seconds_p50": median(seconds),
            "seconds_max": max(seconds), "full_actions_p50": median(paths),
            "full_actions_max": max(paths), "rollouts_p50": median(rollouts)}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--players", type=int, nargs="+", default=[2, 3, 4])
    parser.add_argument("--positions", type=int, default=8)
    add_output_args(parser)
    args = parser.parse_args()
    start = time.perf_counter()
    rows = [measure(n, args.positions, args.seed) for n in args.players]
    print(markdown_table(["players", "positions", "seconds p50", "seconds max",
                          "full actions p50 (max)", "rollouts each p50"],
                         [[r["players"], r["positions"], f"{r['seconds_p50']:.2f}",
                           f"{r['seconds_max']:.2f}",
                           f"{r['full_actions_p50']:.0f} ({r['full_actions_max']})",
                           f"{r['rollouts_p50']:.0f}"] for r in rows]))
    wall = time.perf_counter() - start
    print(f"\n{wall:.0f} s")
    if args.out:
        write_json_atomic(args.out, {"what": "sarlaccs_pit hint latency, warm",
                                     "seed": args.seed, "machine": machine_info(),
                                     "seconds": wall, "rows": rows})


if __name__ == "__main__":
    main()
