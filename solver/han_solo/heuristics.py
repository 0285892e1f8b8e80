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

from spiel_game.han_solo import engine
from spiel_game.han_solo.layout import NUM_ACTIONS

from solver.han_solo import features
from solver.han_solo.features import HEURISTIC_NAMES
from solver.policies.heuristics import EngineHeuristic


class HanSoloHeuristic(EngineHeuristic):
    """One of features.HEURISTIC_NAMES as an OpenSpiel policy (every player)."""

    engine, features, max_actions = engine, features, NUM_ACTIONS


def heuristics(game) -> dict[str, HanSoloHeuristic]:
    """Every heuristic for `game`, by name."""
    return {name: HanSoloHeuristic(game, name) for name in HEURISTIC_NAMES}
