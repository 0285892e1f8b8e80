"""The han_solo heuristics as OpenSpiel policies; the choices are the compiled ones of
features.py, so a playout and a policy agree exactly.

- `uniform`: every legal action alike.
- `stand_on_zero`: stand once the hand totals zero; else take the discard if that (with
  the best discard after it) brings the total closer to zero, else draw; discard the card
  that leaves the total closest to zero (keeping more cards on a tie).
- `closest_to_zero`: greedy on the hand's rank (H4/H5 on one scale, features.key_score):
  stand, take or draw by the value after the best discard (a draw's value averaged over
  the cards not seen); discard the card that leaves the best-ranked hand.
- `dice_aware`: as closest_to_zero, but a final hand is worth (1 - 1/dice) x its score +
  1/dice x the expected score of a fresh hand of as many cards (H3: a match puts every
  hand down and deals as many new cards), so with likely matches it keeps fewer cards and
  settles for a worse hand.

All but `uniform` take the highest-value token from the pot (H6).
"""

from __future__ import annotations

import numpy as np
from open_spiel.python import policy as policy_lib

from spiel_game.han_solo import engine
from spiel_game.han_solo.layout import NUM_ACTIONS

from solver.han_solo.features import HEURISTIC_NAMES, heuristic_probs


class HanSoloHeuristic(policy_lib.Policy):
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


def heuristics(game) -> dict[str, HanSoloHeuristic]:
    """Every heuristic for `game`, by name."""
    return {name: HanSoloHeuristic(game, name) for name in HEURISTIC_NAMES}
