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

With --first OPTIONS and --second OPTIONS (the hint's request options, `name=value`
comma-separated, e.g. `seconds=0.25` and `seconds=1.0`): those two hints instead, the
difference second - first (e.g. what a longer rollout budget adds).
"""

from __future__ import annotations

import argparse
import dataclasses
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
    parser.add_argument("--first", type=_options, metavar="OPTIONS",
                        help="the first hint's request options, e.g. seconds=0.25")
    parser.add_argument("--second", type=_options, metavar="OPTIONS",
                        help="the second hint's request options, e.g. seconds=1.0")
    args = parser.parse_args(argv)
    if (args.first is None) != (args.second is None):
        parser.error("--first and --second go together")
    if not 2 <= args.players <= 6:
        parser.error(f"--players {args.players}: allowed are 2 to 6")
    game = load_jabba(players=args.players, agenda=args.agenda)
    policies = load_policies(game)
    bank = policy_bank(game, args.agenda, args.players, [args.opponent])
    margins = {}
    variants = ((("hint", {"search_max_players": args.players - 1}),
                 ("hint, searching", {"search_max_players": args.players}))
                if args.first is None else
                ((_label(args.first), args.first), (_label(args.second), args.second)))
    for name, options in variants:
        seat = HintSeat(game, policies, seed=args.seed, **options)
        start = time.perf_counter()
        result = play_advice(game, seat, bank, 0, args.deals, 0, args.seed)
        margins[name] = np.array(result.deal_margins)
        m = result.margin
        print(f"{name}: {m.mean:+.3f} ({m.low:+.3f} .. {m.high:+.3f}), answered by "
              f"{seat.sources}, {time.perf_counter() - start:.0f} s", flush=True)
    (first, _), (second, _) = variants
    d = estimate(list(margins[second] - margins[first]))
    print(f"paired difference ({second} - {first}), {args.deals} deals: {d.mean:+.3f} "
          f"({d.low:+.3f} .. {d.high:+.3f})")


def _options(text: str) -> dict:
    """'seconds=1.0,rollouts=256' as request options (numbers and true/false read)."""
    from solver.hint.request import HintRequest

    fields = {f.name for f in dataclasses.fields(HintRequest)}
    options = {}
    for item in filter(None, (t.strip() for t in text.split(","))):
        name, eq, value = item.partition("=")
        if not eq or name not in fields:
            raise argparse.ArgumentTypeError(
                f"{item!r}: give name=value, a name among {', '.join(sorted(fields))}")
        low = value.lower()
        try:
            options[name] = (low == "true" if low in ("true", "false") else
                             int(value) if value.lstrip("-").isdigit() else float(value))
        except ValueError:
            raise argparse.ArgumentTypeError(f"{item!r}: the value is not a number, true "
                                             "or false") from None
    return options


def _label(options: dict) -> str:
    return "hint " + ",".join(f"{k}={v}" for k, v in options.items())


if __name__ == "__main__":
    main()
