"""The han_solo policies the `jabba` commands name: 'table' (the shipped MCCFR table of
the game, a heuristic playing where it lacks a key), a heuristic
(features.HEURISTIC_NAMES), or a table file (.npz). One resolver for the hint, play,
tournament, export and lbr.

The shipped table is found by the rule of solver/policies/shipped.py (results/
policy_full_han_solo_<n>p_<level>.npz, in the order of han_solo's abstraction levels) and
read by
table_policy.load_table, which refuses a file made for other parameters.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
from open_spiel.python import policy as policy_lib

from spiel_game.han_solo import engine
from spiel_game.han_solo.layout import NUM_ACTIONS, S_CUR

from solver.han_solo.features import CLOSEST_TO_ZERO, HEURISTIC_NAMES
from solver.han_solo.playout import HAN_SOLO_PLAYOUT, TABLE, table_bank
from solver.han_solo.table_policy import HanSoloTablePolicy, load_table
from solver.sim.playout import chain_decides

GAME = "han_solo"
TABLE_NAME = "table"
# Where a table has no key, and where no table ships: the best heuristic of the shipped
# tournament (docs/han-solo.md "Duplicate-deal tournament").
FALLBACK = CLOSEST_TO_ZERO
NAMES = (TABLE_NAME, *HEURISTIC_NAMES)


def shipped_tables(game) -> list[Path]:
    """The shipped table files of this game's player count, finest level first."""
    from solver.han_solo.abstraction import LEVELS
    from solver.policies import shipped

    return shipped.policy_files("full", GAME, game.num_players(), levels=LEVELS)


def shipped_table(game) -> HanSoloTablePolicy | None:
    """The first shipped table made for exactly this game's parameters and this code's
    abstraction version, or None; a damaged file is refused (ValueError)."""
    for path in shipped_tables(game):
        try:
            return load_table(path, game)
        except ValueError as err:  # other parameters or an older abstraction: not ours
            if "made for" not in str(err) and "abstraction version" not in str(err):
                raise
    return None


class HanSoloPlayer(policy_lib.Policy):
    """A table with a heuristic where it has no key, or a heuristic alone: the policy
    chain (TABLE, heuristic) or (heuristic,) of the shared play-out loop
    (solver/sim/playout.py; policy ids: solver/han_solo/playout.py)."""

    def __init__(self, game, name: str, table: HanSoloTablePolicy | None = None,
                 heuristic: int = FALLBACK, source: str | None = None):
        super().__init__(game, list(range(game.num_players())))
        self.name, self.table, self.heuristic = name, table, heuristic
        self.source = source

    @property
    def kind(self) -> int:
        """The compiled kernels' policy id: a heuristic's index, or playout.TABLE."""
        return TABLE if self.table is not None else self.heuristic

    @property
    def chain(self) -> tuple[int, ...]:
        """The policy chain the compiled play follows: the table, then the heuristic."""
        return (TABLE, self.heuristic) if self.table is not None else (self.heuristic,)

    def describe(self) -> str:
        if self.table is None:
            return f"heuristic {HEURISTIC_NAMES[self.heuristic]}"
        h = self.table.header
        return (f"table {self.source} ({h['abstraction']['level']}, {h['iterations']:,} "
                f"MCCFR iterations; {HEURISTIC_NAMES[self.heuristic]} where it has no key)")

    def bank(self) -> tuple:
        """The policy arrays of the compiled play (playout.table_bank): a new one per
        call, its scratch for one thread."""
        return table_bank(self.table)

    def _probs(self, s) -> tuple[dict[int, float], bool]:
        acts = np.empty(NUM_ACTIONS, dtype=np.int32)
        n = engine.legal_actions(s, acts)
        out = np.zeros(NUM_ACTIONS)
        decided = chain_decides(HAN_SOLO_PLAYOUT, s, int(s[S_CUR]), self.bank(),
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


def resolve(spec: str, game) -> HanSoloPlayer:
    """'table', a heuristic name or a table file; ValueError saying what is allowed (no
    shipped table for these parameters, a file for another game)."""
    from solver.policies.chain import display_path

    if spec in HEURISTIC_NAMES:
        return HanSoloPlayer(game, spec, heuristic=HEURISTIC_NAMES.index(spec))
    if spec == TABLE_NAME:
        table = shipped_table(game)
        if table is None:
            raise ValueError(f"no shipped han_solo table for {game.num_players()} players "
                             f"and these parameters; use a heuristic "
                             f"({', '.join(HEURISTIC_NAMES)}) or a table file")
        return HanSoloPlayer(game, TABLE_NAME, table,
                             source=display_path(Path(shipped_tables(game)[0])))
    if spec.endswith(".npz"):
        path = Path(spec)
        if not path.is_file():
            raise ValueError(f"{spec}: no such file")
        return HanSoloPlayer(game, path.name, load_table(path, game),
                             source=display_path(path))
    raise ValueError(f"policy {spec!r}: allowed for han_solo are {', '.join(NAMES)} or a "
                     "table file (.npz)")


def default_player(game) -> HanSoloPlayer:
    """The shipped table where one ships for these parameters, else the fallback
    heuristic."""
    try:
        return resolve(TABLE_NAME, game)
    except ValueError:
        return HanSoloPlayer(game, HEURISTIC_NAMES[FALLBACK], heuristic=FALLBACK)
