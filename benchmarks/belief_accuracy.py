"""The sampled belief filter against the exact posterior (solver/studies/belief_accuracy.py).

Per deck (tiny, small, medium: --states each; the full deck: --full-states, whose exact
runs are the slow part), 2 and 3 players, every agenda: random information states as
hint summaries, the exact posterior (the filter within 65,536 particles; states that need
more are counted as too_large), and per plan the largest total-variation distance of an
opponent's hand marginal from the exact one:

- hint@B: as the hint asks (solver/hint/log.py `_sampled`), budget B: exact within B,
  else sampled at B, a sample that kept no history redrawn with new seeds;
- filter@B, filter@1/k: one run of the filter at budget B, or at 1/k of the particles
  the exact run needed (forced to sample; not run below 8 particles).

Informativeness (--informative-states per player count and agenda, 2-6 players, the full
deck): rounds played by the shipped tables (agenda_expert where none ships) stopped at a
random play decision and told as summaries; the mean log-likelihood of the opponents'
true hands under the hint's posterior (budget --budget) against card counting (the
prior-only posterior), per hand, with the paired 95% interval of the gain.

The rows of both parts share one table (`part`; the other part's columns empty).

    python benchmarks/belief_accuracy.py [--states 500] [--full-states 150]
        [--informative-states 50] [--seed 1]
        [--csv results/belief_accuracy.csv] [--out results/belief_accuracy.json]
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

from _common import AGENDAS, add_output_args, guard_outputs, load_jabba, machine_info, \
    write_json_atomic

from solver import provenance
from solver.reports.files import table_files
from solver.studies.belief_accuracy import (COLUMNS, EXACT_BUDGET, INFORMATIVE_COLUMNS,
                                            informativeness, measure, summarise,
                                            summarise_informativeness)

BUDGET = 1024  # the hint's (solver/hint/advice.py SUMMARY_PARTICLES)
REDUCED_PLANS = [(f"hint@{BUDGET}", BUDGET, True), ("filter@1/2", "1/2", False),
                 ("filter@1/4", "1/4", False)]
FULL_PLANS = [(f"hint@{BUDGET}", BUDGET, True), (f"filter@{BUDGET}", BUDGET, False),
              ("hint@4096", 4096, True)]


def main(argv=None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--states", type=int, default=500,
                        help="information states per reduced deck, player count and agenda")
    parser.add_argument("--full-states", type=int, default=150,
                        help="information states per full-deck player count and agenda")
    parser.add_argument("--decks", default="tiny,small,medium,full")
    parser.add_argument("--players", default="2,3")
    parser.add_argument("--agendas", default=",".join(AGENDAS))
    parser.add_argument("--informative-states", type=int, default=50,
                        help="informativeness situations per player count (2-6) and agenda")
    parser.add_argument("--informative-players", default="2,3,4,5,6")
    parser.add_argument("--csv", metavar="FILE", help="write the rows as CSV to FILE")
    add_output_args(parser)
    args = parser.parse_args(argv)
    guard_outputs(parser, args.csv, args.out)
    rows = []
    for deck in args.decks.split(","):
        full = deck == "full"
        for players in (int(p) for p in args.players.split(",")):
            for agenda in args.agendas.split(","):
                game = load_jabba(players, agenda, deck)
                found = measure(game, args.full_states if full else args.states, args.seed,
                                FULL_PLANS if full else REDUCED_PLANS)
                for row in summarise(deck, players, agenda, found):
                    rows.append(row)
                    print(", ".join(f"{k}={row[k]}" for k in COLUMNS[:9]), file=sys.stderr,
                          flush=True)
    if args.informative_states:
        for players in (int(p) for p in args.informative_players.split(",")):
            for agenda in args.agendas.split(","):
                game = load_jabba(players, agenda)
                row = summarise_informativeness(players, agenda, BUDGET, informativeness(
                    game, args.informative_states, args.seed, BUDGET))
                rows.append(row)
                print(", ".join(f"{k}={row[k]}" for k in ["players", "agenda"]
                                + INFORMATIVE_COLUMNS), file=sys.stderr, flush=True)
    columns = ["part"] + COLUMNS + INFORMATIVE_COLUMNS
    record = {"machine": machine_info(), "seed": args.seed, "states": args.states,
              "full_states": args.full_states,
              "informative_states": args.informative_states, "budget": BUDGET,
              "exact_budget": EXACT_BUDGET, "columns": columns, "rows": rows}
    if args.out:
        write_json_atomic(args.out, record)
    if args.csv:  # rendered from the record as tests/test_provenance.py remakes it
        stem = Path(args.csv).stem
        provenance.write_atomic(args.csv, table_files(json.loads(json.dumps(record)),
                                                      stem)[f"{stem}.csv"])


if __name__ == "__main__":
    main()
