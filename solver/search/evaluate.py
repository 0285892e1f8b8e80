"""The search in duplicate-deal games on the full deck, against a bank policy.

The deals and their seatings are the tournament's (solver/evaluation/tournament.py):
deal d is the seeded permutation of (seed, STREAM_DEAL, d), played once with the search
in each seat (2 players: the duplicate pair); the other seats follow one policy of a
PolicyBank through the compiled play-out loop, which stops at each decision of the
search's seat (solver/sim/playout.py `stop_seat`); the search's action is drawn from
its probabilities with the same decision stream. A deal's value is the search seat's
margin (its tokens minus the mean of the others'), averaged over its seatings.

The other seats can instead be a player object deciding by itself (`LBRPlayer`: local best
response, for a lower bound on the search's exploitability).
"""

from __future__ import annotations

import time
from collections.abc import Callable

import numpy as np

from spiel_game import engine
from spiel_game import layout as L

from solver.evaluation.tournament import Estimate, estimate
from solver.sim.playout import dealt_card, deck_cards, play_out, shuffled
from solver.sim.rng import STREAM_DEAL, STREAM_DECISIONS, check_seed, stream_seed
from solver.sim.sampler import sample


def play_deals(game, search_policy, bank, opponent: int, deals: int, seed: int = 1,
               progress: Callable[[int, int], None] | None = None,
               player=None) -> tuple[Estimate, dict]:
    """(margin of the search per deal, with its 95% interval; counts and timing). The
    other seats play policy `opponent` of `bank`, or, given `player`, its `action(s,
    seat)`."""
    seed = check_seed(seed)
    players = game.num_players()
    initial = game.initial_array.copy()
    initial[L.S_LOGGING] = 1
    cards = deck_cards(initial)
    order = np.empty(len(cards), dtype=np.int32)
    legal = np.empty(L.NUM_ACTIONS, dtype=np.int32)
    probs = np.empty(L.NUM_ACTIONS)
    seat_chain = np.full((players, 1), opponent, dtype=np.int32)
    seat_row = np.zeros(players, dtype=np.int32)
    counts = np.zeros((1, 2), dtype=np.int64)
    arrays = bank.arrays()
    rng = np.zeros(1, dtype=np.uint64)
    tokens = np.zeros(players)
    values, decisions = [], 0
    start = time.perf_counter()
    for d in range(deals):
        shuffled(cards, seed, STREAM_DEAL, d, order)
        margins = []
        for seat in range(players):
            s = initial.copy()
            rng[0] = stream_seed(seed, STREAM_DECISIONS, d * players + seat)
            while True:
                if player is None:
                    play_out(s, order, seat_chain, arrays, rng, legal, probs, counts,
                             seat_row, seat)
                else:
                    while engine.is_chance(s):
                        engine.apply_action(s, dealt_card(s, order))
                if engine.is_terminal(s):
                    break
                if engine.current_actor(s) != seat:  # only with a player
                    engine.apply_action(s, player.action(s, engine.current_actor(s)))
                    continue
                acts, p = search_policy.probabilities(s, seat)
                engine.apply_action(s, int(acts[sample(np.asarray(p, np.float64), len(acts),
                                                       rng)]))
                decisions += 1
            engine.tokens(s, tokens)
            margins.append(tokens[seat] - (tokens.sum() - tokens[seat]) / (players - 1))
        values.append(float(np.mean(margins)))
        if progress is not None:
            progress(d + 1, deals)
    return estimate(values), {"deals": deals, "values": values,
                              "search_decisions": decisions,
                              "searches": search_policy.searches,
                              "fallbacks_to_blueprint": search_policy.fallbacks,
                              "search_seconds": search_policy.seconds /
                              max(search_policy.searches, 1),
                              "seconds": time.perf_counter() - start}


class BlueprintPolicy:
    """The blueprint chain of `policies` as a policy `play_deals` can seat (no search):
    the baseline of paired comparisons on the same deals."""

    def __init__(self, policies):
        self.policies = policies
        self.searches, self.fallbacks, self.seconds = 0, 0, 0.0

    def probabilities(self, s, player: int):
        from solver.search.policy import blueprint_probabilities

        return blueprint_probabilities(self.policies, s, player)


class LBRPlayer:
    """Local best response (solver/evaluation/lbr.py `lbr_choice`) as the other seat of
    `play_deals`: its belief and its rollouts' continuation use policy `policy` of
    `bank` (the search's blueprint), not the search. It is still a fixed strategy of its
    own information, so its mean margin against the search is a lower bound on the
    search's exploitability; a looser one than an LBR that modelled the search, which
    would need a search in every world of its belief at every decision."""

    def __init__(self, game, bank, policy: int = 0, rollouts: int = 64, seed: int = 1):
        if game.num_players() != 2:
            raise ValueError(f"LBR against the search takes 2 players, not "
                             f"{game.num_players()}")
        self.game, self.bank, self.policy, self.rollouts = game, bank, policy, rollouts
        self.seed = check_seed(seed)
        self.decisions = 0
        self.belief: dict[str, int] = {}

    def action(self, s, seat: int) -> int:
        from solver.evaluation.lbr import lbr_choice

        self.decisions += 1
        # Its rollouts are seeded by its information state and the seed: a fixed strategy.
        action, _, stats = lbr_choice(self.game, s, seat, self.bank, self.policy,
                                      rollouts=self.rollouts, seed=self.seed)
        for name, count in stats.items():
            merge = max if name == "most_particles" else int.__add__
            self.belief[name] = merge(self.belief.get(name, 0), int(count))
        return action
