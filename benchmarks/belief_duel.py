"""The hint as a policy with Bayes beliefs against the same hint with card counting.

Two players, duplicate deals: in each deal one seat plays the hint's recommendation from
its beliefs by Bayes (the shipped table weighing the opponent's choices, solver/belief),
the other the hint's recommendation from card counting (`prior_only`: the histories the
situation allows by the chance odds alone), then the seats swap on the same chance
stream. Each player's situation is given to the hint as the summary of what that player
knows (solver/hint/situation.py `player_summary`), as a person would tell it. Both hints
answer by the table's rollouts over their worlds (`--rollouts` each, seeded; no search,
so the beliefs are the only difference); decisions the hint's full action does not
cover are the table's. Reported: the Bayes seat's mean margin per deal (the two seatings
averaged) with its 95% interval, the seconds per deal and the time 500 deals would take.

    python benchmarks/belief_duel.py [--deals 500] [--agenda exalted_one] [--rollouts 64]
        [--seed 1] [--out figures.json]
"""

from __future__ import annotations

import argparse
import random
import sys
import time

import numpy as np
from _common import add_output_args, load_jabba, machine_info, write_json_atomic

from solver.hint import advice as H
from solver.hint.situation import SituationError, from_mapping, player_summary
from solver.policies.chain import chain_probabilities, load_policies
from spiel_game import layout as L


def hint_actions(state, game, policies, prior_only: bool, rollouts: int, seed: int):
    """The engine actions of the hint's recommended full action at `state`."""
    me = state.current_player()
    sit = from_mapping(player_summary(state, me))
    a = H.hint(sit, game, policies, seed=seed, rollouts=rollouts, search=False,
               prior_only=prior_only)
    words = a["recommendation"]["action"]
    return next(f["action_ids"] for f in a["full_actions"] if f["action"] == words)


def play(game, policies, bayes_seat: int, deal_seed: int, rollouts: int,
         failures: list) -> float:
    """One round: bayes_seat hints with Bayes beliefs, the other with card counting;
    chance from the deal's stream. Returns bayes_seat's return."""
    chance = random.Random(deal_seed)
    table = random.Random(deal_seed + 1)
    state, queued = game.new_initial_state(), []
    while not state.is_terminal():
        if state.is_chance_node():
            outcomes, probs = zip(*state.chance_outcomes())
            state.apply_action(chance.choices(outcomes, probs)[0])
            continue
        p = state.current_player()
        legal = state.legal_actions()
        if queued and queued[0] in legal:
            state.apply_action(queued.pop(0))
            continue
        queued = []
        if state._s[L.S_PHASE] == L.PH_PLAY:
            try:
                queued = list(hint_actions(state, game, policies, p != bayes_seat,
                                           rollouts, deal_seed))
            except SituationError as err:  # a summary that cannot say it: the table plays
                failures.append(str(err)[:120])
            if queued:
                state.apply_action(queued.pop(0))
                continue
        actions, probs, _ = chain_probabilities(policies.bank, policies.chain, state._s, p)
        state.apply_action(int(table.choices(actions, probs)[0]))
    return float(state.returns()[bayes_seat])


def main(argv=None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--deals", type=int, default=500)
    parser.add_argument("--agenda", default="exalted_one")
    parser.add_argument("--rollouts", type=int, default=64, help="per hint")
    add_output_args(parser)
    args = parser.parse_args(argv)
    game = load_jabba(2, args.agenda)
    policies = load_policies(game)
    margins, failures = [], []
    start = time.perf_counter()
    for deal in range(args.deals):
        seed = args.seed * 1_000_003 + 7919 * deal
        margins.append(np.mean([play(game, policies, seat, seed, args.rollouts, failures)
                                for seat in (0, 1)]))
        if (deal + 1) % 5 == 0:
            m = np.array(margins)
            print(f"{deal + 1} deals: {m.mean():+.4f} +- "
                  f"{1.96 * m.std(ddof=1) / np.sqrt(len(m)):.4f}, "
                  f"{(time.perf_counter() - start) / len(m):.1f} s/deal", file=sys.stderr,
                  flush=True)
    seconds = time.perf_counter() - start
    m = np.array(margins)
    ci = 1.96 * float(m.std(ddof=1) / np.sqrt(len(m))) if len(m) > 1 else None
    figures = {"machine": machine_info(), "agenda": args.agenda, "deals": len(m),
               "rollouts": args.rollouts, "policy": [p.name for p in policies.paths],
               "bayes_margin_mean": float(m.mean()), "ci95": ci,
               "seconds_per_deal": seconds / len(m),
               "projected_seconds_500_deals": 500 * seconds / len(m),
               "summaries_refused": len(failures)}
    print(figures)
    if args.out:
        write_json_atomic(args.out, figures)


if __name__ == "__main__":
    main()
