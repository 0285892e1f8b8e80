"""sarlaccs_pit MCCFR policies as files: the layout of solver/policies/table.py (numpy .npz,
no pickles: a `header` JSON with the provenance header, the sorted keys' gaps, uint8 rows
renormalised on load), format "sarlaccs-pit-table-policy", with this game's keys
(solver/sarlaccs_pit/abstraction.py, its level and VERSION in the header)."""

from __future__ import annotations

from pathlib import Path

import numpy as np
from open_spiel.python import policy as policy_lib

from spiel_game.sarlacc import engine
from spiel_game.sarlacc.layout import NUM_ACTIONS

from solver import provenance
from solver.policies.table import (average_strategy_rows, decode_keys, read_rows, row_offsets,
                                   write_rows)
from solver.sarlaccs_pit import abstraction

FORMAT = "sarlaccs-pit-table-policy"
FORMAT_VERSION = 1


def export_table(solver, path: str | Path, max_keys: int | None = None,
                 command: str | None = None, **extra) -> dict:
    """Write an MCCFR run's average strategy (at most `max_keys` keys, the most visited),
    quantised to 8 bits, with its exact curve (`curve`: empty unless measured on a tree);
    returns the header."""
    keys, num_actions, rows, pruned = average_strategy_rows(solver, max_keys)
    return write_rows(path, keys, num_actions, rows, {
        "format": FORMAT, "format_version": FORMAT_VERSION,
        **provenance.header(solver.game, seconds=solver.seconds, command=command),
        "algorithm": "external-sampling MCCFR (solver/mccfr/, sarlaccs_pit's hooks)",
        "abstraction": {"level": solver.level_name, "version": abstraction.VERSION},
        "iterations": solver.iterations, "seed": solver.seed, "threads": solver.threads,
    }, {**pruned, "curve": getattr(solver, "curve", []), **extra})


class SarlaccTablePolicy(policy_lib.Policy):
    """A loaded table as an OpenSpiel policy; a key not in the table plays uniformly over
    the level's choices (abstraction.table_probs)."""

    def __init__(self, game, header: dict, keys, num_actions, probs):
        super().__init__(game, list(range(game.num_players())))
        self.header = header
        self.level = abstraction.level_id(header["abstraction"]["level"])
        self.keys = keys
        self.num_actions = num_actions.astype(np.int64)
        self.starts = row_offsets(num_actions)
        self.probs = probs  # float64, rows renormalised

    def __len__(self) -> int:
        return len(self.keys)

    def action_probabilities(self, state, player_id=None) -> dict[int, float]:
        s = state.array
        acts = np.empty(NUM_ACTIONS, dtype=np.int32)
        n = engine.legal_actions(s, acts)
        row = np.empty(NUM_ACTIONS)
        abstraction.table_probs(s, acts, n, self.level, self.keys, self.starts,
                                self.num_actions, self.probs,
                                np.empty(abstraction.MAX_CHOICES, dtype=np.int32), row)
        return {int(acts[i]): float(row[i]) for i in range(n)}


def load_table(path: str | Path, game) -> SarlaccTablePolicy:
    """Read a table, checking its format, checksum, game, parameters and abstraction
    version; ValueError naming what differs."""
    header, arrays = read_rows(path, FORMAT, FORMAT_VERSION)
    if header["abstraction"]["version"] != abstraction.VERSION:
        raise ValueError(f"{path}: abstraction version {header['abstraction']['version']}, "
                         f"this code has {abstraction.VERSION}")
    params = provenance.game_parameters(header)
    ours = dict(game.get_parameters())
    name = game.get_type().short_name
    if provenance.game_name(header) != name or params != ours:
        raise ValueError(f"{path}: made for {provenance.game_name(header)} {params}, not "
                         f"{name} {ours}")
    num_actions = arrays["num_actions"]
    probs = arrays["probs"].astype(np.float64)
    sizes = num_actions.astype(np.int64)
    totals = np.add.reduceat(probs, row_offsets(num_actions)) if len(probs) else probs
    totals = np.where(totals > 0, totals, 1.0)
    return SarlaccTablePolicy(game, header, decode_keys(arrays["key_gaps"]), num_actions,
                              probs / np.repeat(totals, sizes))
