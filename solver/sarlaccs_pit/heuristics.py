"""The sarlaccs_pit heuristics as OpenSpiel policies; the choices are the compiled ones of
features.py (its docstring says what each does), so a play-out and a policy agree."""

from __future__ import annotations

import numpy as np
from open_spiel.python import policy as policy_lib

from spiel_game.sarlacc import engine
from spiel_game.sarlacc.layout import NUM_ACTIONS

from solver.sarlaccs_pit.features import HEURISTIC_NAMES, heuristic_probs


class SarlaccHeuristic(policy_lib.Policy):
    """One of features.HEURISTIC_NAMES as an OpenSpiel policy (every player)."""

    def __init__(self, game, name: str):
        if name not in HEURISTIC_NAMES:
            raise ValueError(f"heuristic {name!r}: known are {', '.join(HEURISTIC_NAMES)}")
        super().__init__(game, list(range(game.num_players())))
        self.name = name
        self.kind = HEURISTIC_NAMES.index(name)

    def action_probabilities(self, state, player_id=None) -> dict[int, float]:
        s = state.array
        acts = np.empty(NUM_ACTIONS, dtype=np.int32)
        n = engine.legal_actions(s, acts)
        out = np.zeros(NUM_ACTIONS)
        heuristic_probs(s, self.kind, acts, n, out)
        return {int(acts[i]): float(out[i]) for i in range(n)}
