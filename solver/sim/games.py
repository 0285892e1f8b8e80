"""The games the play-out loop and the tournament serve (solver/sim/playout.py,
solver/evaluation/tournament.py): each game's engine interface (spiel_game/interface.py)
paired with its play-out hooks (solver/sim/hooks.py), and what the Python side needs of
it. A third engine plugs in here (docs/design.md "The engine interface"): its `ENGINE`,
its play-out hooks, and a `PlayoutGame` under each of its game names.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable

import numpy as np

from spiel_game import engine as love_letter_engine
from spiel_game import layout as L
from spiel_game.han_solo import engine as han_solo_engine
from spiel_game.interface import FunctionSet

from solver.han_solo import playout as han_solo_playout
from solver.sim import deal
from solver.sim.hooks import LOVE_LETTER_PLAYOUT


TOKEN_GOAL = {2: 6, 3: 5, 4: 4, 5: 3, 6: 3}  # R14: the Love Letter engine's matches


@dataclasses.dataclass(frozen=True)
class PlayoutGame:
    """One game as the play-out loop and the tournament see it."""

    engine: FunctionSet  # the engine interface
    hooks: FunctionSet  # its policies' choices, deals, streams and scores
    deck: Callable[[np.ndarray], np.ndarray]  # a round's cards, in the hooks' order
    root: Callable[[object], np.ndarray]  # the state every round starts from
    scores: tuple[str, ...]  # the names of the hooks' round scores
    points_dtype: type  # the type of score 0 (the points a round gives)
    # Matches to a token goal (R14) by players, or None: this game's tournament plays
    # single rounds only.
    token_goal: dict[int, int] | None = None


def _logged_root(game) -> np.ndarray:
    root = game.initial_array.copy()
    root[L.S_LOGGING] = 1  # keys and card counting read the event log
    return root


_LOVE_LETTER = PlayoutGame(love_letter_engine.ENGINE, LOVE_LETTER_PLAYOUT, deal.deck_cards,
                           _logged_root, ("tokens",), np.int32, TOKEN_GOAL)
_HAN_SOLO = PlayoutGame(han_solo_engine.ENGINE, han_solo_playout.HAN_SOLO_PLAYOUT,
                        han_solo_playout.deck_cards, lambda game: game.initial_array.copy(),
                        ("credits", "returns"), np.float64)
GAMES = {"jabbas_palace": _LOVE_LETTER, "love_letter": _LOVE_LETTER, "han_solo": _HAN_SOLO}


def playout_game(game) -> PlayoutGame:
    """The `PlayoutGame` of a loaded game; ValueError for a game it does not know."""
    name = game.get_type().short_name
    if name not in GAMES:
        raise ValueError(f"the tournament does not know the game {name!r}; it knows "
                         f"{', '.join(GAMES)}")
    return GAMES[name]
