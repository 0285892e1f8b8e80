"""The games the MCCFR solver trains: `MCCFRGame`, a game's engine interface
(spiel_game/interface.py) paired with its MCCFR hooks (solver/mccfr/hooks.py) and what the
Python side needs of it; the Love Letter engine's (`LOVE_LETTER_ENGINE`).

Another engine plugs in beside its own hooks (docs/design.md "The engine interface"): an
`MCCFRGame` that its games' adapters return (solver/games/, hook `mccfr`), in a module
that names the kernel in `COMPILED_INTO` (as solver/han_solo/mccfr.py does).
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable

import numpy as np

from spiel_game import engine as love_letter_engine
from spiel_game import layout as L
from spiel_game.interface import FunctionSet

from solver import games
from solver.abstraction import keys as love_letter_keys
from solver.mccfr.hooks import LOVE_LETTER_HOOKS
from solver.sim.rng import STREAM_MCCFR


@dataclasses.dataclass(frozen=True)
class MCCFRGame:
    """One game as the MCCFR solver sees it."""

    engine: FunctionSet  # the engine interface
    hooks: FunctionSet  # its keys, choices, chance and utility
    levels: tuple[str, ...]  # the abstraction levels, by id
    utilities: tuple[str, ...]  # the hooks' utilities, by id (0: the engine's returns)
    stream: int  # the purpose of the solver's random streams (solver/sim/rng.py)
    root: Callable[[object], np.ndarray]  # the root state the traversals start from
    # (game, level name, utility name) -> None, or ValueError for a pair that is refused
    check_options: Callable[[object, str, str], None] | None = None
    # The levels whose keys read no player count: one table's strategy is a strategy at
    # every count, so a run may start from another count's (train's `warm_start`).
    count_free_levels: tuple[str, ...] = ()

    def level_name(self, level: int) -> str:
        return self.levels[level]

    def check_level(self, level: int) -> int:
        if isinstance(level, bool) or not isinstance(level, (int, np.integer)) \
                or not 0 <= level < len(self.levels):
            raise ValueError(f"abstraction level {level!r}: this game's are "
                             + ", ".join(f"{i} ({name})" for i, name in
                                         enumerate(self.levels)))
        return int(level)


def _logged_root(game) -> np.ndarray:
    root = game.initial_array.copy()
    root[L.S_LOGGING] = 1  # the keys are built from the event log
    return root


# jabbas_palace and love_letter: one engine, one set of hooks.
LOVE_LETTER_ENGINE = MCCFRGame(love_letter_engine.ENGINE, LOVE_LETTER_HOOKS,
                               tuple(sorted(love_letter_keys.LEVELS,
                                            key=love_letter_keys.LEVELS.get)),
                               ("returns",), STREAM_MCCFR, _logged_root)


def mccfr_game(game) -> MCCFRGame:
    """The `MCCFRGame` of a loaded game (its adapter's, solver/games/); ValueError for a
    game MCCFR does not know."""
    found = games.find(game.get_type().short_name)
    if found is None:
        raise ValueError(f"MCCFR does not know the game {game.get_type().short_name!r}; "
                         f"it knows {', '.join(games.NAMES)}")
    return found.mccfr()
