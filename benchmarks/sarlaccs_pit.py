"""Battle at Sarlacc's Pit (sarlaccs_pit) measured (docs/sarlaccs-pit.md):

    python benchmarks/sarlaccs_pit.py speed [--games 2000]
    python benchmarks/sarlaccs_pit.py exact --game tiny2 [--results DIR]
    python benchmarks/sarlaccs_pit.py tournament [--deals 20000] [--table FILE] [--results DIR]
    python benchmarks/sarlaccs_pit.py train --seconds 1080 --checkpoint CKPT --out FILE

speed: the game's size (turns, actions and decisions a game) and play-out speed, games
and turns a second through the shared play-out loop (each heuristic against itself, one
thread). exact: solver/sarlaccs_pit/exact.py's study of a reduced game, written as
sarlaccs_pit_exploitability_<game>_2p.{json,csv}. tournament: the heuristics' duplicate-
deal cross table on the full game, 2 players (with --table: that table against each
heuristic), written as sarlaccs_pit_tournament_[table_]2p.{json,csv}. train: an MCCFR
table on the shared driver (also `jabba solve --game sarlaccs_pit --algorithm mccfr`).
"""

from __future__ import annotations

import argparse
import time
from pathlib import Path

import numpy as np
import pyspiel

import spiel_game  # noqa: F401

from solver import provenance
from solver.sarlaccs_pit.commands import write_record


def _command(argv) -> str:
    return "python benchmarks/sarlaccs_pit.py " + " ".join(argv)


def speed(args, argv) -> dict:
    from spiel_game.sarlacc.layout import S_ACTIONS, S_TURN

    from solver.sarlaccs_pit.commands import duplicate_match
    from solver.sarlaccs_pit.features import HEURISTIC_NAMES, heuristic_probs
    from solver.sarlaccs_pit.playout import SARLACC_GAME

    game = pyspiel.load_game("sarlaccs_pit", {"players": args.players})
    wall = time.perf_counter()
    rows = []
    for kind, name in enumerate(HEURISTIC_NAMES):
        duplicate_match(game, kind, kind, 2, args.seed)  # compile outside the clock
        clock = time.perf_counter()
        r = duplicate_match(game, kind, kind, args.games // args.players, args.seed)
        seconds = time.perf_counter() - clock
        rows.append({"policy": name, "games": r["games"], "seconds": round(seconds, 2),
                     "games_per_second": round(r["games"] / seconds, 1)})
        print(rows[-1])
    # The game's size: turns and actions of games of each heuristic, played by the engine.
    from spiel_game.sarlacc import engine
    rng = np.random.default_rng(args.seed)
    sizes = {}
    buf = np.empty(200, np.int32)
    probs = np.empty(200)
    out = np.empty(200)
    for kind, name in enumerate(HEURISTIC_NAMES):
        turns, actions = [], []
        for _ in range(200):
            s = SARLACC_GAME.root(game)
            while not engine.is_terminal(s):
                if engine.is_chance(s):
                    m = engine.chance_outcomes(s, buf, probs)
                    a = buf[rng.choice(m, p=probs[:m] / probs[:m].sum())]
                else:
                    m = engine.legal_actions(s, buf)
                    heuristic_probs(s, kind, buf, m, out)
                    a = buf[rng.choice(m, p=out[:m] / out[:m].sum())]
                engine.apply_action(s, a)
            turns.append(int(s[S_TURN]))
            actions.append(int(s[S_ACTIONS]))
        sizes[name] = {"turns_mean": float(np.mean(turns)), "turns_max": max(turns),
                       "actions_mean": float(np.mean(actions))}
        rows[kind]["turns_per_game"] = sizes[name]["turns_mean"]
        rows[kind]["turns_per_second"] = round(rows[kind]["games_per_second"]
                                               * sizes[name]["turns_mean"], 1)
        print(name, sizes[name])
    return {**provenance.header(game, seconds=time.perf_counter() - wall,
                                command=_command(argv)),
            "what": "play-out speed through the shared loop (duplicate deals, each heuristic "
                    "against itself, one thread) and game size (200 games each)",
            "rows": rows, "sizes": sizes}


def exact(args, argv) -> dict:
    from solver.sarlaccs_pit.exact import study

    return study(args.game, iterations=tuple(args.iterations), command=_command(argv))


def tournament(args, argv) -> dict:
    from solver.sarlaccs_pit.commands import cross_table
    from solver.sarlaccs_pit.features import HEURISTIC_NAMES

    game = pyspiel.load_game("sarlaccs_pit", {"players": args.players})
    table = None
    if args.table:  # the table against each heuristic (save_force where it has no key)
        from solver.sarlaccs_pit.table_policy import load_table

        table = load_table(args.table, game)
    clock = time.perf_counter()
    names = (["table"] if table else []) + list(HEURISTIC_NAMES)
    rows = cross_table(game, names, args.deals, args.seed, table, first_only=bool(table))
    for r in rows:
        m = r["margin"]
        print(f"{r['policy']:18s} v {r['opponent']:18s} margin {m['mean']:+.3f} "
              f"[{m['low']:+.3f}, {m['high']:+.3f}] win {r['win_rate']['mean']:.3f}")
    return {**provenance.header(game, seconds=time.perf_counter() - clock,
                                command=_command(argv)),
            "what": "duplicate-deal tournament, sarlaccs_pit: margin = the policy's Jedi "
                    "points less its opponent's a game (both seatings of each deal), 95% "
                    "intervals; win rate: more points (a tie half)",
            "table": None if table is None else {
                "file": args.table.name, "iterations": table.header["iterations"],
                "level": table.header["abstraction"]["level"], "keys": len(table),
                "fallback": "save_force"},
            "deals": args.deals, "seed": args.seed, "rows": rows}


def train_table(args, argv) -> dict:
    """MCCFR on the shared driver (solver/mccfr/train.py: budget, checkpoints, resume,
    the memory limit, Ctrl-C), the table written to --out."""
    from solver.mccfr.train import train
    from solver.sarlaccs_pit.abstraction import level_id
    from solver.sarlaccs_pit.table_policy import export_table

    game = pyspiel.load_game("sarlaccs_pit", {"players": args.players})
    outcome = train(game, level_id(args.level), args.iterations_total, args.seconds,
                    threads=1, seed=args.seed, checkpoint=args.checkpoint,
                    checkpoint_every=args.checkpoint_every, resume=args.resume, log=print)
    solver = outcome.solver
    header = export_table(solver, args.out, command=_command(argv),
                          stopped_by=outcome.stopped_by)
    print(f"MCCFR ({args.level}): {solver.iterations:,} iterations, {solver.num_keys:,} "
          f"keys in {solver.seconds:.1f} s (stopped by {outcome.stopped_by}); wrote "
          f"{args.out} ({header['keys']:,} keys)")
    return header


def main(argv: list[str] | None = None) -> dict:
    import sys

    argv = sys.argv[1:] if argv is None else argv
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("what", choices=("speed", "exact", "tournament", "train"))
    parser.add_argument("--players", type=int, default=2)
    parser.add_argument("--games", type=int, default=2000)
    parser.add_argument("--deals", type=int, default=20_000)
    parser.add_argument("--game", default="tiny2")
    parser.add_argument("--iterations", type=int, nargs="+", default=[10, 100, 1000, 10000])
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--results", metavar="DIR", help="write the record into DIR")
    parser.add_argument("--level", default="compact", help="train: the abstraction level")
    parser.add_argument("--seconds", type=float, help="train: this session's budget")
    parser.add_argument("--iterations-total", type=int, help="train: the run's iterations")
    parser.add_argument("--checkpoint", type=Path, help="train: the checkpoint file")
    parser.add_argument("--checkpoint-every", type=float, default=120.0)
    parser.add_argument("--resume", action="store_true", help="train: from --checkpoint")
    parser.add_argument("--out", type=Path, help="train: the table file")
    parser.add_argument("--table", type=Path, help="tournament: a table file, played "
                        "against each heuristic")
    args = parser.parse_args(argv)
    if args.what == "train":
        return train_table(args, argv)
    record = {"speed": speed, "exact": exact, "tournament": tournament}[args.what](args, argv)
    if args.results:
        stem = {"speed": f"sarlaccs_pit_speed_{args.players}p",
                "exact": f"sarlaccs_pit_exploitability_{args.game}_2p",
                "tournament": f"sarlaccs_pit_tournament_{'table_' if args.table else ''}"
                              f"{args.players}p"}[args.what]
        for path in write_record(Path(args.results) / f"{stem}.json", record):
            print(f"wrote {path}")
    return record


if __name__ == "__main__":
    main()
