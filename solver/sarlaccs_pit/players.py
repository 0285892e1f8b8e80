"""The sarlaccs_pit policies the commands name: 'table' (the shipped MCCFR table,
save_force where it lacks a key: the chain of its tournament, docs/sarlaccs-pit.md), a
heuristic (features.HEURISTIC_NAMES), or a table file (.npz): the own-engine games'
players (solver/policies/engine_player.py) with sarlaccs_pit's `PLAYERS`."""

from __future__ import annotations

from spiel_game.sarlacc import engine
from spiel_game.sarlacc.layout import NUM_ACTIONS, S_CUR

from solver.policies import engine_player
from solver.sarlaccs_pit.abstraction import LEVELS
from solver.sarlaccs_pit.features import HEURISTIC_NAMES, SAVE_FORCE
from solver.sarlaccs_pit.playout import SARLACC_PLAYOUT, TABLE, table_bank
from solver.sarlaccs_pit.table_policy import load_table

PLAYERS = engine_player.PlayerKind(
    game="sarlaccs_pit", engine=engine, num_actions=NUM_ACTIONS, cur=S_CUR,
    hooks=SARLACC_PLAYOUT, table_id=TABLE, table_bank=table_bank,
    heuristic_names=HEURISTIC_NAMES, fallback=SAVE_FORCE, levels=LEVELS,
    load_table=load_table)


def resolve(spec: str, game) -> engine_player.EnginePlayer:
    """'table', a heuristic name or a table file; ValueError saying what is allowed."""
    return engine_player.resolve(PLAYERS, spec, game, make_player)


def default_player(game) -> engine_player.EnginePlayer:
    """The shipped table (save_force where it has no key) where one ships for these
    parameters (2 players), else save_force."""
    return engine_player.default_player(PLAYERS, game, make_player)


def make_player(game, name, table=None, heuristic=None, source=None):
    """A sarlaccs_pit EnginePlayer (the resolvers' player class)."""
    return engine_player.EnginePlayer(game, PLAYERS, name, table, heuristic, source)
