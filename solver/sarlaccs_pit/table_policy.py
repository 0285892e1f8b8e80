"""sarlaccs_pit MCCFR policies as files: the layout of solver/policies/table.py (numpy .npz,
no pickles: a `header` JSON with the provenance header, the sorted keys' gaps, uint8 rows
renormalised on load), format "sarlaccs-pit-table-policy", with this game's keys
(solver/sarlaccs_pit/abstraction.py, its level and VERSION in the header); written and
read by the policies layer's functions for games on their own engines."""

from __future__ import annotations

from pathlib import Path

from spiel_game.sarlacc import engine
from spiel_game.sarlacc.layout import NUM_ACTIONS

from solver.policies.table import EngineTablePolicy, export_engine_table, load_engine_table
from solver.sarlaccs_pit import abstraction

FORMAT = "sarlaccs-pit-table-policy"
FORMAT_VERSION = 1


def export_table(solver, path: str | Path, max_keys: int | None = None,
                 command: str | None = None, **extra) -> dict:
    """Write an MCCFR run's average strategy (at most `max_keys` keys, the most visited),
    quantised to 8 bits, with its exact curve (`curve`: empty unless measured on a tree);
    returns the header."""
    return export_engine_table(
        solver, path, FORMAT, FORMAT_VERSION, abstraction.VERSION,
        "external-sampling MCCFR (solver/mccfr/, sarlaccs_pit's hooks)", max_keys, command,
        **{"curve": getattr(solver, "curve", []), **extra})


class SarlaccTablePolicy(EngineTablePolicy):
    """A loaded table as an OpenSpiel policy; a key not in the table plays uniformly over
    the level's choices (abstraction.table_probs)."""

    engine, abstraction, max_actions = engine, abstraction, NUM_ACTIONS


def load_table(path: str | Path, game) -> SarlaccTablePolicy:
    """Read a table, checking its format, checksum, game, parameters and abstraction
    version; ValueError naming what differs."""
    return load_engine_table(path, game, SarlaccTablePolicy, FORMAT, FORMAT_VERSION)
