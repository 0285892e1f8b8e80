"""han_solo MCCFR policies as files: the layout of solver/policies/table.py (numpy .npz,
no pickles: `header` JSON with the provenance header, `key_gaps` byte planes of the sorted
keys' differences, `num_actions` uint8 per key, `probs` uint8 probability x 255 with each
row renormalised on load), format "han-solo-table-policy", with this game's keys
(solver/han_solo/abstraction.py, its level and VERSION in the header); written and read by
the policies layer's functions for games on their own engines."""

from __future__ import annotations

from pathlib import Path

from spiel_game.han_solo import engine
from spiel_game.han_solo.layout import NUM_ACTIONS

from solver.han_solo import abstraction
from solver.policies.table import EngineTablePolicy, export_engine_table, load_engine_table

FORMAT = "han-solo-table-policy"
FORMAT_VERSION = 1


def export_table(solver, path: str | Path, max_keys: int | None = None,
                 command: str | None = None, **extra) -> dict:
    """Write an MCCFR run's average strategy (at most `max_keys` keys, the most visited),
    quantised to 8 bits; returns the header."""
    return export_engine_table(solver, path, FORMAT, FORMAT_VERSION, abstraction.VERSION,
                               "external-sampling MCCFR (solver/mccfr/, han_solo's hooks)",
                               max_keys, command, **extra)


class HanSoloTablePolicy(EngineTablePolicy):
    """A loaded table as an OpenSpiel policy; a key not in the table plays uniformly over
    the level's choices (abstraction.table_probs)."""

    engine, abstraction, max_actions = engine, abstraction, NUM_ACTIONS


def load_table(path: str | Path, game) -> HanSoloTablePolicy:
    """Read a table, checking its format, checksum, game and abstraction version."""
    return load_engine_table(path, game, HanSoloTablePolicy, FORMAT, FORMAT_VERSION)
