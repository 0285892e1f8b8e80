"""MCCFR checkpoints: everything needed to resume a run bit for bit, as .npz (no pickles)."""

from __future__ import annotations

import io
import json
import zipfile
from pathlib import Path

import numpy as np

from solver.mccfr.table import META_SLOTS_USED, Tables
from solver.provenance import code_version, write_atomic

CHECKPOINT_FORMAT = "jabbas-palace-mccfr-checkpoint"
# 2: the random streams are solver/sim/rng.py's (uint64); version 1 held Park-Miller seeds.
CHECKPOINT_VERSION = 2


def write_checkpoint(path: str | Path, header: dict, tables: Tables, rngs: np.ndarray
                     ) -> None:
    """The tables and per-thread random states under `header` (the run's description),
    written atomically."""
    t = tables
    used = int(t.meta[META_SLOTS_USED])
    header = {"format": CHECKPOINT_FORMAT, "format_version": CHECKPOINT_VERSION, **header,
              "code_version": code_version()}
    buffer = io.BytesIO()
    np.savez(buffer, header=np.array(json.dumps(header)), keys=t.keys, offsets=t.offsets,
             num_actions=t.num_actions, regret=t.regret[:used],
             strategy_sum=t.strategy_sum[:used], values_capacity=np.int64(len(t.regret)),
             meta=t.meta, rngs=rngs)
    write_atomic(path, buffer.getvalue())


def read_checkpoint(path: str | Path, game) -> tuple[dict, Tables, np.ndarray]:
    """(header, tables, per-thread random states) of a `write_checkpoint` file; refuses a
    file for another game or format version."""
    try:
        with np.load(path, allow_pickle=False) as data:
            arrays = {name: data[name] for name in data.files}
        header = json.loads(str(arrays["header"]))
    except (OSError, ValueError, KeyError, EOFError, zipfile.BadZipFile) as err:
        raise ValueError(f"{path}: not a readable MCCFR checkpoint ({err}); it may be "
                         "truncated or corrupt") from None
    if header.get("format") != CHECKPOINT_FORMAT or \
            header.get("format_version") != CHECKPOINT_VERSION:
        raise ValueError(f"{path}: format {header.get('format')!r} version "
                         f"{header.get('format_version')!r}; expected "
                         f"{CHECKPOINT_FORMAT!r} version {CHECKPOINT_VERSION}")
    params = {k: v for k, v in game.get_parameters().items()}
    if header["game"] != params:
        raise ValueError(f"{path}: checkpoint is for game {header['game']}, not {params}")
    values = int(arrays["values_capacity"])
    used = len(arrays["regret"])
    tables = Tables.from_arrays(arrays["keys"], arrays["offsets"], arrays["num_actions"],
                                np.zeros(values, np.float32),
                                np.zeros(values, np.float32), arrays["meta"])
    tables.regret[:used] = arrays["regret"]
    tables.strategy_sum[:used] = arrays["strategy_sum"]
    return header, tables, arrays["rngs"].copy()
