"""MCCFR checkpoints: everything needed to resume a run bit for bit, as .npz (no pickles).

Written straight into the atomic writer's temporary file (solver/provenance.py
`atomic_file`), uncompressed, holding only the used slots of the hash table: no copy of
the tables in memory, and about half the bytes of the earlier format
(benchmarks/checkpoint_speed.py measures both).
"""

from __future__ import annotations

import json
import zipfile
from pathlib import Path

import numpy as np

from solver.mccfr.table import META_SLOTS_USED, Tables
from solver.provenance import atomic_file, game_name, game_parameters

CHECKPOINT_FORMAT = "jabbas-palace-mccfr-checkpoint"
# 3: the used slots only (keys, entries), the provenance header, the training curve.
# 2: every slot (keys, offsets, action counts), a header of its own; still read.
# 1 held Park-Miller seeds (not solver/sim/rng.py's streams): refused.
CHECKPOINT_VERSION = 3
READABLE_VERSIONS = (2, 3)


def write_checkpoint(path: str | Path, header: dict, tables: Tables, rngs: np.ndarray
                     ) -> None:
    """The tables and per-thread random states under `header` (the run's provenance
    header, solver/provenance.py `header`), written atomically."""
    t = tables
    used = int(t.meta[META_SLOTS_USED])
    keys, entries = t.used_slots()
    header = {"format": CHECKPOINT_FORMAT, "format_version": CHECKPOINT_VERSION, **header}
    with atomic_file(path) as f:
        np.savez(f, header=np.array(json.dumps(header)), keys=keys, entries=entries,
                 capacity=np.int64(t.capacity), regret=t.regret[:used],
                 strategy_sum=t.strategy_sum[:used], values_capacity=np.int64(len(t.regret)),
                 meta=t.meta, rngs=rngs)


def read_checkpoint(path: str | Path, game, any_players: bool = False
                    ) -> tuple[dict, Tables, np.ndarray]:
    """(header, tables, per-thread random states) of a `write_checkpoint` file; refuses a
    file for another game or format version, or other parameters (`any_players`: but for
    the player count)."""
    try:
        data = np.load(path, allow_pickle=False)
        header = json.loads(str(data["header"]))
    except _UNREADABLE as err:
        raise _unreadable(path, err) from None
    with data:
        version = header.get("format_version")
        if header.get("format") != CHECKPOINT_FORMAT or version not in READABLE_VERSIONS:
            raise ValueError(f"{path}: format {header.get('format')!r} version {version!r}; "
                             f"expected {CHECKPOINT_FORMAT!r} version "
                             f"{' or '.join(map(str, READABLE_VERSIONS))}")
        params = dict(game.get_parameters())
        if game_name(header) != game.get_type().short_name:
            raise ValueError(f"{path}: checkpoint is for the game {game_name(header)}, not "
                             f"{game.get_type().short_name}")
        theirs = dict(game_parameters(header))
        if any_players:
            theirs["players"] = params.get("players")
        if theirs != params:
            raise ValueError(f"{path}: checkpoint is for game {game_parameters(header)}, "
                             f"not {params}")
        try:
            values = int(data["values_capacity"])
            regret = np.zeros(values, np.float32)
            strategy_sum = np.zeros(values, np.float32)
            # One member in memory at a time: a checkpoint may take most of the RAM.
            used = _read_into(regret, data["regret"])
            _read_into(strategy_sum, data["strategy_sum"])
            meta = data["meta"]
            if version == 2:
                tables = Tables.from_arrays(data["keys"], data["offsets"],
                                            data["num_actions"], regret, strategy_sum, meta)
            else:
                tables = Tables.from_used_slots(data["keys"], data["entries"],
                                                int(data["capacity"]), regret, strategy_sum,
                                                meta)
            rngs = data["rngs"].copy()
        except _UNREADABLE as err:
            raise _unreadable(path, err) from None
    if int(meta[META_SLOTS_USED]) != used:
        raise _unreadable(path, f"{used} values stored, {int(meta[META_SLOTS_USED])} used")
    return header, tables, rngs


def read_checkpoint_header(path: str | Path) -> dict:
    """The header of a `write_checkpoint` file, without reading its tables."""
    try:
        with np.load(path, allow_pickle=False) as data:
            return json.loads(str(data["header"]))
    except _UNREADABLE as err:
        raise _unreadable(path, err) from None


_UNREADABLE = (OSError, ValueError, KeyError, EOFError, zipfile.BadZipFile)


def _unreadable(path, reason) -> ValueError:
    return ValueError(f"{path}: not a readable MCCFR checkpoint ({reason}); it may be "
                      "truncated or corrupt")


def _read_into(target: np.ndarray, stored: np.ndarray) -> int:
    """Copy `stored` to the start of `target`; its length."""
    target[:len(stored)] = stored
    return len(stored)
