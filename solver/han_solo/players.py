"""The han_solo policies the `jabba` commands name: 'table' (the shipped MCCFR table of
the game, a heuristic playing where it lacks a key), a heuristic
(features.HEURISTIC_NAMES), or a table file (.npz). One resolver for the hint, play,
tournament, export and lbr: the own-engine games' (solver/policies/engine_player.py),
with han_solo's `PLAYERS`.

The shipped table is found by the rule of solver/policies/shipped.py (results/
policy_full_han_solo_<n>p_<level>.npz, in the order of han_solo's abstraction levels) and
read by table_policy.load_table, which refuses a file made for other parameters.
"""

from __future__ import annotations

from pathlib import Path

from spiel_game.han_solo import engine
from spiel_game.han_solo.layout import NUM_ACTIONS, S_CUR

from solver.han_solo.abstraction import LEVELS
from solver.han_solo.features import CLOSEST_TO_ZERO, HEURISTIC_NAMES
from solver.han_solo.playout import HAN_SOLO_PLAYOUT, TABLE, table_bank
from solver.han_solo.table_policy import load_table
from solver.policies import engine_player
from solver.policies.engine_player import TABLE_NAME  # noqa: F401 (the commands' name)

GAME = "han_solo"
# Where a table has no key, and where no table ships: the best heuristic of the shipped
# tournament (docs/han-solo.md "Duplicate-deal tournament").
FALLBACK = CLOSEST_TO_ZERO
PLAYERS = engine_player.PlayerKind(
    game=GAME, engine=engine, num_actions=NUM_ACTIONS, cur=S_CUR, hooks=HAN_SOLO_PLAYOUT,
    table_id=TABLE, table_bank=table_bank, heuristic_names=HEURISTIC_NAMES,
    fallback=FALLBACK, levels=LEVELS, load_table=load_table)
NAMES = PLAYERS.names


class HanSoloPlayer(engine_player.EnginePlayer):
    """A han_solo player: the table then a heuristic, or a heuristic alone."""

    def __init__(self, game, name: str, table=None, heuristic: int = FALLBACK,
                 source: str | None = None):
        super().__init__(game, PLAYERS, name, table, heuristic, source)


def shipped_tables(game) -> list[Path]:
    """The shipped table files of this game's player count, finest level first."""
    return engine_player.shipped_tables(PLAYERS, game)


def shipped_table(game):
    """The first shipped table made for exactly this game's parameters, or None."""
    return engine_player.shipped_table(PLAYERS, game)


def resolve(spec: str, game) -> HanSoloPlayer:
    """'table', a heuristic name or a table file; ValueError saying what is allowed."""
    return engine_player.resolve(PLAYERS, spec, game, HanSoloPlayer)


def default_player(game) -> HanSoloPlayer:
    """The shipped table where one ships for these parameters, else the fallback."""
    return engine_player.default_player(PLAYERS, game, HanSoloPlayer)
