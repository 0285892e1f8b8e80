"""The games the play-out loop and the tournament serve (solver/sim/playout.py,
solver/evaluation/tournament.py): `PlayoutGame`, a game's engine interface
(spiel_game/interface.py) paired with its play-out hooks (solver/sim/hooks.py) and what
the Python side needs of it. Each engine's lives beside its play-out hooks, a layer above
(solver/policies/playout.py: the Love Letter engine's `LOVE_LETTER_ENGINE`).

Another engine plugs in beside its own hooks (docs/design.md "The engine interface"): a
`PlayoutGame` that its games' adapters return (solver/games/, hook `playout`), in a module
that names the loop and the tournament in `COMPILED_INTO` (as solver/han_solo/playout.py
does).
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable

import numpy as np

from spiel_game.interface import FunctionSet

from solver import games


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


def playout_game(game) -> PlayoutGame:
    """The `PlayoutGame` of a loaded game (its adapter's, solver/games/); ValueError for a
    game the play-out loop does not know."""
    found = games.find(game.get_type().short_name)
    if found is None:
        raise ValueError(f"the tournament does not know the game "
                         f"{game.get_type().short_name!r}; it knows {', '.join(games.NAMES)}")
    return found.playout()
