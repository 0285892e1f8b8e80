"""The search as a policy like any other: probabilities at any decision, from the state.

`SearchPolicy.probabilities(s, player)` searches at the decision of engine state s
(solver/search/resolve.py) and answers with the search's strategy there. One solve also
answers the rest of the same turn: the later decisions of the full action (target,
number), which the subgame already re-solved below the real information state, are kept
by information state and answered from it, so the policy is a function of the
information state whatever order it is asked in. Where the search cannot run (beliefs
lost, the subgame too large even one play deep, a timed search unfinished in its budget)
the blueprint answers, counted in
`fallbacks`. Also an OpenSpiel `policy.Policy` (tournaments, exact exploitability).
"""

from __future__ import annotations

import numpy as np
from open_spiel.python import policy as policy_lib

from spiel_game import engine

from solver.abstraction.keys import identity_key
from solver.exact.tree import DECISION
from solver.policies.chain import chain_probabilities
from solver.search.resolve import (DEFAULT_LIMITS, ModelCannotExplain, SearchLimits,
                                   SearchResult, SearchUnfinished, my_posterior, search)
from solver.search.subgame import SubgameTooLarge


def blueprint_probabilities(policies, s, player: int) -> tuple[np.ndarray, np.ndarray]:
    """(legal actions, probabilities) of the first policy of policies.chain that has the
    key at engine state s (a miss: uniform)."""
    legal, probs, _ = chain_probabilities(policies.bank, policies.chain, s, player)
    return legal, probs


class SearchPolicy(policy_lib.Policy):
    def __init__(self, game, policies, limits: SearchLimits = DEFAULT_LIMITS, seed: int = 0,
                 top: str = "max-margin", round_table=None, exploits=None,
                 leaves: str = "single"):
        """round_table: how rounds are scored (solver/sim/utility.py); exploits: the
        opponent model each searching seat exploits, {seat: resolve.Exploit}; leaves:
        single- or multi-valued leaves (resolve.search)."""
        super().__init__(game, list(range(game.num_players())))
        self.round_table = round_table
        self.exploits = dict(exploits or {})
        self.game = game
        self.policies = policies
        self.limits = limits
        self.seed = seed
        self.top = top
        self.leaves = leaves
        self._known: dict[tuple[int, int], tuple[np.ndarray, np.ndarray]] = {}
        self.searches = 0
        self.fallbacks = 0
        self.fallback_reasons: dict[str, int] = {}  # why the blueprint answered, counted
        self.seconds = 0.0
        self.last: SearchResult | None = None

    def answers(self) -> dict[tuple[int, int], tuple[np.ndarray, np.ndarray]]:
        """What it has answered: (player, identity key) -> (legal actions, probabilities)."""
        return self._known

    def forget(self) -> None:
        """Drop the answers kept (a new round: its information states are all new)."""
        self._known.clear()

    def blueprint(self, s, player: int) -> tuple[np.ndarray, np.ndarray]:
        return blueprint_probabilities(self.policies, s, player)

    def probabilities(self, s: np.ndarray, player: int) -> tuple[np.ndarray, np.ndarray]:
        """(legal actions, the search's probabilities) at engine state s."""
        key = (player, int(identity_key(s, player)))
        if key in self._known:
            return self._known[key]
        post = my_posterior(self.game, s, player, self.policies, self.limits.max_particles)
        if len(post.states) == 0:
            return self._fall_back(s, player, key, "beliefs lost")
        try:
            result = search(self.game, post.states, post.weights, player, self.policies,
                            self.limits, self.seed, self.top, self.round_table,
                            self.exploits.get(player), leaves=self.leaves)
        except (SubgameTooLarge, ModelCannotExplain, SearchUnfinished) as err:
            why = ("too few leaf rollouts" if "rollouts each" in str(err) else
                   "not converged" if isinstance(err, SearchUnfinished) else
                   type(err).__name__)
            return self._fall_back(s, player, key, why)
        self.searches += 1
        self.seconds += result.seconds
        self.last = result
        self._remember_turn(result, s, player)
        return self._known[key]

    def _fall_back(self, s, player: int, key, why: str) -> tuple[np.ndarray, np.ndarray]:
        """The blueprint answers (and keeps answering at this information state)."""
        self.fallbacks += 1
        self.fallback_reasons[why] = self.fallback_reasons.get(why, 0) + 1
        self._known[key] = self.blueprint(s, player)
        return self._known[key]

    def _remember_turn(self, result: SearchResult, s: np.ndarray, me: int) -> None:
        """The root and my later decisions of the same turn, from the subgame's strategy."""
        sub = result.subgame
        self._known[(me, int(identity_key(s, me)))] = (result.legal, result.probs)
        stack = [(int(sub.root_nodes()[0]), s.copy())]
        while stack:
            node, state = stack.pop()
            start = sub.child_start[node]
            for i in range(sub.num_children[node]):
                child = int(sub.edge_child[start + i])
                if sub.kind[child] != DECISION or sub.player[child] != me:
                    continue
                t = state.copy()
                engine.apply_action(t, int(sub.edge_action[start + i]))
                info = int(sub.infoset[child])
                lo, hi = sub.offsets[info], sub.offsets[info + 1]
                c0 = sub.child_start[child]
                legal = sub.edge_action[c0:c0 + (hi - lo)].copy()
                self._known[(me, int(identity_key(t, me)))] = (legal, result.strategy[lo:hi])
                stack.append((child, t))

    def action_probabilities(self, state, player_id=None) -> dict[int, float]:
        player = state.current_player()
        if player < 0:
            raise ValueError(f"no player decides at this state (current player {player})")
        legal, probs = self.probabilities(state.array, player)
        return dict(zip(legal.tolist(), probs.tolist()))
