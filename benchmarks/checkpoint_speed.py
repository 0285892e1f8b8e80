"""MCCFR checkpoint writing: seconds per GB, the earlier method and the current one side
by side, on the same tables.

The tables are synthetic, sized like a full-deck `identity` run (the issue's: 1.5 GB
checkpoints at 18 M keys): --keys keys at the table's load (a quarter to a half of the
slots), blocks of --actions values each, random contents. Each repeat writes them with
(1) the earlier method: every slot's key, offset and action count derived as arrays,
    np.savez into an in-memory buffer, then the buffer through write_atomic (one more
    copy of the whole file in memory), and
(2) the current one, solver/mccfr/checkpoint.py `write_checkpoint`: only the used slots,
    np.savez straight into the atomic writer's temporary file;
both flushed to disk (fsync) and renamed, in alternating order. Reported: the median
seconds, the file size, seconds per GB of file and of table, and the speed-up. Reading
the current file back (`read_checkpoint`) is timed too.

    python benchmarks/checkpoint_speed.py [--keys 18000000] [--actions 3] [--repeats 3]
        [--folder DIR] [--seed 1] [--out FILE]
"""

from __future__ import annotations

import argparse
import io
import json
import os
import tempfile
import time

import numpy as np
from _common import add_output_args, load_jabba, markdown_table, median, write_json_atomic

from solver.mccfr.checkpoint import read_checkpoint, write_checkpoint
from solver.mccfr.table import META_CAPACITY, META_KEYS, META_SLOTS_USED, Tables
from solver.provenance import header, write_atomic


def synthetic_tables(keys: int, actions: int, seed: int) -> Tables:
    """`keys` random keys in a table that doubles when half full, `actions` values each."""
    capacity = 1 << 16
    while keys > 0.5 * capacity:
        capacity *= 2
    values = 1 << 18
    while keys * actions > values:
        values *= 2
    rng = np.random.default_rng(seed)
    tables = Tables.empty(capacity, 1)
    slots = rng.choice(capacity, keys, replace=False)
    tables.slots[2 * slots] = rng.integers(1, 1 << 62, keys)
    tables.slots[2 * slots + 1] = (np.arange(keys, dtype=np.int64) * actions << 8) | actions
    tables.regret = rng.random(values, dtype=np.float32)
    tables.strategy_sum = rng.random(values, dtype=np.float32)
    tables.meta[META_SLOTS_USED], tables.meta[META_KEYS] = keys * actions, keys
    tables.meta[META_CAPACITY] = capacity
    return tables


def write_earlier(path, run_header: dict, tables: Tables, rngs: np.ndarray) -> None:
    """The checkpoint writer before this benchmark (format 2), verbatim in effect."""
    t = tables
    used = int(t.meta[META_SLOTS_USED])
    buffer = io.BytesIO()
    np.savez(buffer, header=np.array(json.dumps(run_header)), keys=t.keys,
             offsets=t.offsets, num_actions=t.num_actions, regret=t.regret[:used],
             strategy_sum=t.strategy_sum[:used], values_capacity=np.int64(len(t.regret)),
             meta=t.meta, rngs=rngs)
    write_atomic(path, buffer.getvalue())


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--keys", type=int, default=18_000_000)
    parser.add_argument("--actions", type=int, default=3, help="values per key")
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--folder", default=None, help="where to write (default: a "
                        "temporary folder on the disk of the working directory)")
    add_output_args(parser)
    args = parser.parse_args()
    game = load_jabba(deck="full")
    tables = synthetic_tables(args.keys, args.actions, args.seed)
    rngs = np.zeros((1, 2), np.uint64)
    run_header = header(game, seconds=0.0, level=0, seed=args.seed, threads=1,
                        iterations=0, training_seconds=0.0, keys=args.keys, curve=[])
    table_gb = tables.nbytes / 1e9
    print(f"tables: {args.keys:,} keys in {tables.capacity:,} slots, "
          f"{len(tables.regret):,} values: {table_gb:.2f} GB")
    methods = {"earlier (in-memory buffer, every slot)": write_earlier,
               "current (streamed, used slots)": write_checkpoint}
    seconds = {name: [] for name in methods}
    sizes = {}
    reads = []
    with tempfile.TemporaryDirectory(dir=args.folder or ".") as folder:
        for repeat in range(args.repeats):
            names = list(methods) if repeat % 2 == 0 else list(reversed(methods))
            for name in names:
                path = os.path.join(folder, f"{names.index(name)}.npz")
                start = time.perf_counter()
                methods[name](path, run_header, tables, rngs)
                seconds[name].append(time.perf_counter() - start)
                sizes[name] = os.path.getsize(path)
                if name.startswith("current"):
                    start = time.perf_counter()
                    read_checkpoint(path, game)
                    reads.append(time.perf_counter() - start)
                os.unlink(path)
    rows, record = [], {}
    for name in methods:
        s = median(seconds[name])
        rows.append([name, s, sizes[name] / 1e9, s / (sizes[name] / 1e9), s / table_gb])
        record[name] = {"seconds": seconds[name], "bytes": sizes[name]}
    earlier, current = (median(seconds[name]) for name in methods)
    print(markdown_table(["method", "median s", "file GB", "s per GB of file",
                          "s per GB of table"], rows))
    print(f"\nspeed-up {earlier / current:.1f}x; reading the current file back: "
          f"{median(reads):.2f} s (median of {len(reads)})")
    if args.out:
        write_json_atomic(args.out, {"keys": args.keys, "actions": args.actions,
                                     "table_bytes": tables.nbytes, "methods": record,
                                     "read_seconds": reads})


if __name__ == "__main__":
    main()
