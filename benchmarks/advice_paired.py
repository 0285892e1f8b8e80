"""The hint with and without its search, deal by deal: what the search adds at a table size.

Both seats (solver/studies/advice_seat.py `HintSeat`: the hint answering from the table
and the same hint searching, its `search_max_players` below and at this size) play the
same duplicate deals and seatings against n - 1 seats of --opponent (`agenda_expert`, or
`table`: the shipped table of this size and agenda); printed: each one's margin (tokens
per round, 95% interval) and the paired difference, deal by deal. At 3-6 players the
searching hint is the single-agent search (solver/search/single_agent.py). Nothing is
written.

    python benchmarks/advice_paired.py --players 4 --agenda exalted_one --deals 40 --seed 1
        [--opponent agenda_expert]
"""

from __future__ import annotations

import argparse
import time

import numpy as np
from _common import AGENDAS, load_jabba, policy_bank

from solver.studies.advice_seat import HintSeat, play_advice
from solver.evaluation.tournament import estimate
from solver.policies.chain import load_policies


def main(argv=None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--players", type=int, default=4)
    parser.add_argument("--agenda", default="exalted_one", choices=AGENDAS)
    parser.add_argument("--deals", type=int, default=40)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--opponent", default="agenda_expert",
                        choices=["agenda_expert", "table"])
    args = parser.parse_args(argv)
    if not 2 <= args.players <= 6:
        parser.error(f"--players {args.players}: allowed are 2 to 6")
    game = load_jabba(players=args.players, agenda=args.agenda)
    policies = load_policies(game)
    bank = policy_bank(game, args.agenda, args.players, [args.opponent])
    margins = {}
    for name, options in (("hint", {"search_max_players": args.players - 1}),
                          ("hint, searching", {"search_max_players": args.players})):
        seat = HintSeat(game, policies, seed=args.seed, **options)
        start = time.perf_counter()
        result = play_advice(game, seat, bank, 0, args.deals, 0, args.seed)
        margins[name] = np.array(result.deal_margins)
        m = result.margin
        print(f"{name}: {m.mean:+.3f} ({m.low:+.3f} .. {m.high:+.3f}), answered by "
              f"{seat.sources}, {time.perf_counter() - start:.0f} s", flush=True)
    d = estimate(list(margins["hint, searching"] - margins["hint"]))
    print(f"paired difference (searching - hint), {args.deals} deals: {d.mean:+.3f} "
          f"({d.low:+.3f} .. {d.high:+.3f})")


if __name__ == "__main__":
    main()
