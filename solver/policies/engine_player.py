"""The named players of the games on their own engines (han_solo, sarlaccs_pit), written
once: 'table' (the game's shipped MCCFR table, a heuristic playing where it lacks a key),
a heuristic, or a table file (.npz); as the policy chain of the shared play-out loop
(solver/sim/playout.py) and as an OpenSpiel policy. One resolver for every command that
names a player (hint, play, tournament, export, lbr).

A game says what is its own in a `PlayerKind`: its engine, play-out hooks and table id,
heuristics and fallback, table loader and levels (solver/han_solo/players.py,
solver/sarlaccs_pit/players.py). The shipped table is found by the rule of
solver/policies/shipped.py (results/policy_full_<game>_<n>p_<level>.npz, finest level
first) and read by the kind's loader, which refuses a file made for other parameters.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable
from pathlib import Path

import numpy as np
from open_spiel.python import policy as policy_lib

from solver.sim.playout import chain_decides

TABLE_NAME = "table"


@dataclasses.dataclass(frozen=True)
class PlayerKind:
    """What one own-engine game's players are made of."""

    game: str  # its name in the shipped files' names
    engine: object  # its engine module (legal_actions, NUM_ACTIONS via num_actions)
    num_actions: int
    cur: int  # the state offset of the player to act
    hooks: object  # its play-out hooks (policy_probs)
    table_id: int  # the policy id of its table in the hooks
    table_bank: Callable  # (table or None) -> the compiled play's bank
    heuristic_names: tuple[str, ...]
    fallback: int  # the heuristic where a table has no key, and where none ships
    levels: tuple[str, ...]  # its abstraction levels, for the shipped files
    load_table: Callable  # (path, game) -> a loaded table (ValueError for another game's)

    @property
    def names(self) -> tuple[str, ...]:
        return (TABLE_NAME, *self.heuristic_names)


class EnginePlayer(policy_lib.Policy):
    """A table with a heuristic where it has no key, or a heuristic alone: the policy
    chain (table, heuristic) or (heuristic,) of the shared play-out loop."""

    def __init__(self, game, kind: PlayerKind, name: str, table=None,
                 heuristic: int | None = None, source: str | None = None):
        super().__init__(game, list(range(game.num_players())))
        self.player_kind = kind
        self.name, self.table = name, table
        self.heuristic = kind.fallback if heuristic is None else heuristic
        self.source = source

    @property
    def kind(self) -> int:
        """The compiled kernels' policy id: a heuristic's index, or the table's."""
        return self.player_kind.table_id if self.table is not None else self.heuristic

    @property
    def chain(self) -> tuple[int, ...]:
        """The policy chain the compiled play follows: the table, then the heuristic."""
        return ((self.player_kind.table_id, self.heuristic) if self.table is not None
                else (self.heuristic,))

    def heuristic_name(self) -> str:
        return self.player_kind.heuristic_names[self.heuristic]

    def describe(self) -> str:
        if self.table is None:
            return f"heuristic {self.heuristic_name()}"
        h = self.table.header
        return (f"table {self.source} ({h['abstraction']['level']}, {h['iterations']:,} "
                f"MCCFR iterations; {self.heuristic_name()} where it has no key)")

    def bank(self) -> tuple:
        """The policy arrays of the compiled play: a new one per call, its scratch for
        one thread."""
        return self.player_kind.table_bank(self.table)

    def _probs(self, s) -> tuple[dict[int, float], bool]:
        k = self.player_kind
        acts = np.empty(k.num_actions, dtype=np.int32)
        n = k.engine.legal_actions(s, acts)
        out = np.zeros(k.num_actions)
        decided = chain_decides(k.hooks, s, int(s[k.cur]), self.bank(),
                                np.array(self.chain, dtype=np.int32), acts, n, out)
        return {int(acts[i]): float(out[i]) for i in range(n)}, decided == 0

    def table_row(self, s) -> dict[int, float] | None:
        """The table's probabilities at s, or None (no table, or no key)."""
        if self.table is None:
            return None
        row, found = self._probs(s)
        return row if found else None

    def action_probabilities(self, state, player_id=None) -> dict[int, float]:
        return self._probs(state._s)[0]


def shipped_tables(kind: PlayerKind, game) -> list[Path]:
    """The shipped table files of this game's player count, finest level first."""
    from solver.policies import shipped

    return shipped.policy_files("full", kind.game, game.num_players(), levels=kind.levels)


def shipped_table(kind: PlayerKind, game):
    """The first shipped table made for exactly this game's parameters and this code's
    abstraction version, or None; a damaged file is refused (ValueError)."""
    for path in shipped_tables(kind, game):
        try:
            return kind.load_table(path, game)
        except ValueError as err:  # other parameters or an older abstraction: not ours
            if "made for" not in str(err) and "abstraction version" not in str(err):
                raise
    return None


def resolve(kind: PlayerKind, spec: str, game, player_class=EnginePlayer) -> EnginePlayer:
    """'table', a heuristic name or a table file; ValueError saying what is allowed (no
    shipped table for these parameters, a file for another game)."""
    from solver.policies.chain import display_path

    if spec in kind.heuristic_names:
        return player_class(game, spec, heuristic=kind.heuristic_names.index(spec))
    if spec == TABLE_NAME:
        table = shipped_table(kind, game)
        if table is None:
            raise ValueError(f"no shipped {kind.game} table for {game.num_players()} players "
                             f"and these parameters; use a heuristic "
                             f"({', '.join(kind.heuristic_names)}) or a table file")
        return player_class(game, TABLE_NAME, table,
                            source=display_path(Path(shipped_tables(kind, game)[0])))
    if spec.endswith(".npz"):
        path = Path(spec)
        if not path.is_file():
            raise ValueError(f"{spec}: no such file")
        return player_class(game, path.name, kind.load_table(path, game),
                            source=display_path(path))
    raise ValueError(f"policy {spec!r}: allowed for {kind.game} are {', '.join(kind.names)} "
                     "or a table file (.npz)")


def hint_player(kind: PlayerKind, game, policy_files, player_class=EnginePlayer
                ) -> EnginePlayer:
    """The player of a hint: the one table file given, else the default player;
    ValueError for more than one file or a refused one."""
    if policy_files:
        if len(policy_files) > 1:
            raise ValueError(f"{kind.game} takes one policy file (a table)")
        return resolve(kind, str(policy_files[0]), game, player_class)
    return default_player(kind, game, player_class)


def default_player(kind: PlayerKind, game, player_class=EnginePlayer) -> EnginePlayer:
    """The shipped table where one ships for these parameters, else the fallback
    heuristic."""
    try:
        return resolve(kind, TABLE_NAME, game, player_class)
    except ValueError:
        return player_class(game, kind.heuristic_names[kind.fallback])
