"""The han_solo hint as a user gets it, at 2 to 6 players: its answer time and its
refusals over logs of seeded rounds, each cut at a seat's decision and given as that
seat's log (what `jabba play --game han_solo` prints), through the web API's own call
(cli/web/app.py `compute_hint`, the command line's pipeline) at default options.

    python benchmarks/han_solo_hint.py --players 2,3,4,5,6 --situations 40 --seed 1

`--play random` (default) plays the rounds uniformly at random: the others' choices are
mostly ones the hint's policy never makes, the belief's hardest logs. `--play policy`:
every seat plays the shipped policy of its size (the hint's own). `--stray X` runs the
hint with another floor on the likelihood of the others' choices (solver/han_solo/hint.py
`stray`) for comparison. The first answer of each size compiles and is left out.
"""

from __future__ import annotations

import argparse
import random
import time

import numpy as np
import pyspiel
from _common import add_output_args, guard_outputs

import spiel_game  # noqa: F401  (registers han_solo)
from spiel_game.han_solo.game import describe

from solver import provenance


def situations(players: int, count: int, play: str, seed: int) -> list[dict]:
    """`count` seat logs at a decision with more than one legal action, seeded."""
    from solver.han_solo.players import default_player

    game = pyspiel.load_game("han_solo", {"players": players})
    policy = default_player(game) if play == "policy" else None
    out, k = [], 0
    while len(out) < count:
        rng = random.Random(seed * 1_000_003 + players * 10_007 + k)
        k += 1
        state = game.new_initial_state()
        stop = rng.randint(1, 3 * players)
        seen = 0
        while not state.is_terminal():
            if state.is_chance_node():
                outcomes, probs = zip(*state.chance_outcomes())
                state.apply_action(rng.choices(outcomes, probs)[0])
                continue
            legal = state.legal_actions()
            seen += 1
            if seen >= stop and len(legal) > 1:
                break
            if policy is None:
                state.apply_action(rng.choice(legal))
            else:
                acts, weights = zip(*policy.action_probabilities(state).items())
                state.apply_action(rng.choices(acts, weights)[0])
        if state.is_terminal():
            continue
        me = state.current_player()
        out.append({"game": "han_solo", "players": players, "seat": me,
                    "log": "; ".join(describe(e) for e in state.events(viewer=me))})
    return out


def main(argv=None) -> dict:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--players", default="2,3,4,5,6")
    parser.add_argument("--situations", type=int, default=40, help="per player count")
    parser.add_argument("--play", choices=("random", "policy"), default="random")
    parser.add_argument("--stray", type=float, default=None,
                        help="the floor on the others' choices (default: the hint's `stray`)")
    add_output_args(parser)
    args = parser.parse_args(argv)
    guard_outputs(parser, args.out)
    if args.situations < 1:
        parser.error(f"--situations {args.situations}: at least 1")
    if args.stray is not None and not 0 <= args.stray <= 1:
        parser.error(f"--stray {args.stray}: a likelihood, 0 to 1")
    from cli.web.app import BadRequest, compute_hint
    from solver.han_solo import hint

    floor = args.stray
    if floor is not None:
        hint.stray = lambda player: floor
    start = time.perf_counter()
    rows = []
    print("| players | answered | refused | p50 | p95 | max |\n|---|---|---|---|---|---|")
    for n in (int(p) for p in args.players.split(",")):
        cases = situations(n, args.situations, args.play, args.seed)
        try:  # the compile, left out
            compute_hint(dict(cases[0]), 0.25, 2.0, args.seed)
        except BadRequest:
            pass
        seconds, refusals = [], []
        for data in cases:
            t = time.perf_counter()
            try:
                compute_hint(dict(data), 0.25, 2.0, args.seed)
                seconds.append(time.perf_counter() - t)
            except BadRequest as err:
                refusals.append({"log": data["log"], "seat": data["seat"],
                                 "error": str(err)[:300]})
        row = {"players": n, "situations": len(cases), "answered": len(seconds),
               "refused": len(refusals), "refusals": refusals,
               "p50": float(np.median(seconds)) if seconds else None,
               "p95": float(np.percentile(seconds, 95)) if seconds else None,
               "max": max(seconds, default=None)}
        rows.append(row)
        fmt = lambda x: "-" if x is None else f"{x:.2f} s"  # noqa: E731
        print(f"| {n} | {row['answered']} | {row['refused']} | {fmt(row['p50'])} | "
              f"{fmt(row['p95'])} | {fmt(row['max'])} |", flush=True)
    record = provenance.header(
        pyspiel.load_game("han_solo"), seconds=time.perf_counter() - start,
        what="the han_solo hint at default options (compute_hint): seconds per answer, warm, "
             "and refusals, over seat logs of seeded rounds", play=args.play,
        stray="default" if floor is None else floor, seed=args.seed, rows=rows)
    if args.out:
        provenance.write_json(args.out, record)
    return record


if __name__ == "__main__":
    main()
