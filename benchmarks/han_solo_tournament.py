"""Duplicate-deal tournament of a han_solo MCCFR table against each heuristic, and of the
heuristics against each other (the shared tournament, solver/evaluation/tournament.py,
dealt and scored by solver/han_solo/playout.py), 2 to 6 players.

    python benchmarks/han_solo_tournament.py --deals 20000 --seed 1 \
        --table results/policy_full_han_solo_2p_compact.npz --results results
    python benchmarks/han_solo_tournament.py --players 4 --deals 20000 --seed 1 \
        --table results/policy_full_han_solo_4p_compact.npz --results results

Writes han_solo_tournament.{json,csv} into --results (with --players n > 2,
han_solo_tournament_<n>p.{json,csv}): per pairing, the first policy's margin (its credits
less the other's, thousands per round, averaged over the two seatings of a deal) with its
95% interval, its credits per round and its game-win rate (its token worth more; a tie
counts half).

With n players a pairing seats the first policy once and the second in the other n - 1
seats, and plays each deal n times, the first policy in each seat in turn (the same cards,
pot, dice and tie draws each time: the shared tournament's rotations). Its margin is its
credits less the mean of the others' (the game's `margin` utility), averaged over the n
seatings of a deal; its win rate the share of the others whose token it beats (a tie
half): solver/han_solo/commands.py `duplicate_match`.
"""

from __future__ import annotations

import argparse
import itertools
import time
from pathlib import Path

import pyspiel
from _common import add_output_args

from solver import provenance
from solver.han_solo.features import HEURISTIC_NAMES
from solver.han_solo.table_policy import load_table
from solver.han_solo.commands import duplicate_match
from solver.han_solo.playout import TABLE
from solver.reports.files import table_files

COLUMNS = ["policy", "opponent", "deals", "margin", "margin_low", "margin_high", "credits",
           "credits_low", "credits_high", "opponent_credits", "win_rate", "win_rate_low",
           "win_rate_high", "table_miss_rate", "seconds"]


def flat_row(policy: str, opponent: str, r: dict, seconds: float) -> dict:
    """One table row (COLUMNS) of a duplicate match's result."""
    row = {"policy": policy, "opponent": opponent, "deals": r["deals"], "rounds": r["rounds"],
           "table_misses": r["table_misses"], "table_decisions": r["table_decisions"]}
    for name in ("margin", "credits", "win_rate"):
        row.update({name: r[name]["mean"], f"{name}_low": r[name]["low"],
                    f"{name}_high": r[name]["high"]})
    row["opponent_credits"] = r["opponent_credits"]["mean"]
    row["table_miss_rate"] = (r["table_misses"] / r["table_decisions"]
                              if r["table_decisions"] else None)
    row["seconds"] = seconds
    return row


def main(argv: list[str] | None = None) -> dict:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--players", type=int, default=2, choices=range(2, 7),
                        help="players at the table (default %(default)s)")
    parser.add_argument("--deals", type=int, default=20_000,
                        help="duplicate deals per pairing (default %(default)s)")
    parser.add_argument("--table", metavar="NPZ", action="append", default=[],
                        help="an MCCFR table (table_policy.py); may be repeated")
    parser.add_argument("--fallback", default="uniform", choices=HEURISTIC_NAMES,
                        help="what the table plays where it has no key (default "
                             "%(default)s)")
    parser.add_argument("--tables-only", action="store_true",
                        help="only the tables against each heuristic (not the heuristics "
                             "against each other)")
    parser.add_argument("--results", metavar="DIR",
                        help="write han_solo_tournament.{json,csv} into DIR")
    add_output_args(parser)
    args = parser.parse_args(argv)
    wall = time.perf_counter()
    game = pyspiel.load_game("han_solo", {"players": args.players})
    tables = [load_table(path, game) for path in args.table]
    fallback = HEURISTIC_NAMES.index(args.fallback)
    suffix = f"+{args.fallback}" if fallback else ""
    table_names = [Path(path).stem.removeprefix(f"policy_full_han_solo_{args.players}p_")
                   + suffix for path in args.table]
    pairings = [(TABLE, h, i) for i in range(len(tables))
                for h in range(len(HEURISTIC_NAMES))]
    # With 2 players b against a is a against b negated; with more it is another match.
    pairs = itertools.combinations if args.players == 2 else itertools.permutations
    if not args.tables_only:
        pairings += [(a, b, None) for a, b in pairs(range(len(HEURISTIC_NAMES)), 2)]
    rows = []
    for a, b, i in pairings:
        table = None if i is None else tables[i]
        names = [*HEURISTIC_NAMES, None if i is None else f"table:{table_names[i]}"]
        clock = time.perf_counter()
        r = duplicate_match(game, a, b, args.deals, args.seed, table, fallback)
        row = flat_row(names[a], names[b], r, round(time.perf_counter() - clock, 2))
        rows.append(row)
        m, w = r["margin"], r["win_rate"]
        print(f"{names[a]:22s} vs {names[b]:16s} margin {m['mean']:+.3f} "
              f"[{m['low']:+.3f}, {m['high']:+.3f}] win rate {w['mean']:.3f} "
              f"[{w['low']:.3f}, {w['high']:.3f}] ({row['seconds']:.1f} s)", flush=True)
    record = {**provenance.header(game, seconds=time.perf_counter() - wall),
              "what": f"duplicate-deal tournament, {args.players} players: margin = the "
                      "policy's credits less its opponent's (with n players: the mean of "
                      "the others', each a copy of the opponent; thousands per round), "
                      "mean over deals of its n seatings, 95% normal interval; win rate: "
                      "its token worth more (with n players: the share of the others it "
                      "beats; ties half)",
              "players": args.players,
              "fallback": args.fallback,
              "deals": args.deals, "seed": args.seed,
              "tables": [{
                  "name": f"table:{name}", "file": provenance.portable_path(path),
                  "code_version": table.header["code_version"],
                  "abstraction": table.header["abstraction"],
                  "strategy": table.header.get("strategy", "average"),
                  "linear_averaging": table.header.get("linear_averaging", False),
                  "iterations": table.header["iterations"], "keys": table.header["keys"],
                  "training_seconds": table.header["seconds"]}
                  for name, path, table in zip(table_names, args.table, tables)],
              "columns": COLUMNS, "rows": rows}
    if args.results:
        out = Path(args.results)
        stem = "han_solo_tournament" + ("" if args.players == 2 else f"_{args.players}p")
        provenance.write_json(out / f"{stem}.json", record)
        for name, data in table_files(record, stem).items():
            provenance.write_atomic(out / name, data)
        print(f"wrote {out / stem}.json and .csv")
    if args.out:
        provenance.write_json(args.out, record)
    return record


if __name__ == "__main__":
    main()
