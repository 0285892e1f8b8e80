"""The sarlaccs_pit heuristics as OpenSpiel policies; the choices are the compiled ones of
features.py (its docstring says what each does), so a play-out and a policy agree."""

from __future__ import annotations

from spiel_game.sarlacc import engine
from spiel_game.sarlacc.layout import NUM_ACTIONS

from solver.policies.heuristics import EngineHeuristic
from solver.sarlaccs_pit import features


class SarlaccHeuristic(EngineHeuristic):
    """One of features.HEURISTIC_NAMES as an OpenSpiel policy (every player)."""

    engine, features, max_actions = engine, features, NUM_ACTIONS
