"""sarlaccs_pit's duplicate-deal tournament on the shared one (solver/evaluation/
tournament.py `play_chains`, dealt and scored by solver/sarlaccs_pit/playout.py), and its
records written (the command line's and benchmarks/sarlaccs_pit.py's)."""

from __future__ import annotations

import itertools
import time
from pathlib import Path


from solver.evaluation.tournament import duplicate_match as shared_duplicate_match
from solver.reports.files import write_table
from solver.sarlaccs_pit.features import HEURISTIC_NAMES
from solver.sarlaccs_pit.playout import TABLE, table_bank


def duplicate_match(game, a: int, b: int, deals: int, seed: int, table=None,
                    fallback: int = 0) -> dict:
    """Policy ids a and b (HEURISTIC_NAMES index, or TABLE with `table` a loaded
    SarlaccTablePolicy, `fallback` where it has no key) on `deals` duplicate deals: a in
    one seat and b in the others, each deal played in every rotation
    (solver/evaluation/tournament.py `duplicate_match`). a's margin (its return: Jedi
    points less the others' mean, S13) per deal averaged over the rotations, its points,
    and its game-win rate (the share of the others it beats; a tie half)."""
    return shared_duplicate_match(game, table_bank(table), TABLE, a, b, deals, seed,
                                  fallback, "points", "games")


def cross_table(game, names: list[str], deals: int, seed: int, table=None,
                fallback: str = "save_force", diagonal: bool = False,
                first_only: bool = False) -> list[dict]:
    """Every pairing of the named policies (HEURISTIC_NAMES, or "table" for `table`), a
    before b in `names` (`first_only`: the first against each other one): a's
    duplicate_match against b."""
    kinds = []
    for name in names:
        if name == "table":
            if table is None:
                raise ValueError("policy 'table': no table given")
            kinds.append(TABLE)
        elif name in HEURISTIC_NAMES:
            kinds.append(HEURISTIC_NAMES.index(name))
        else:
            raise ValueError(f"policy {name!r}: known are table, "
                             f"{', '.join(HEURISTIC_NAMES)}")
    pairs = ([(0, j) for j in range(1, len(names))] if first_only else
             list(itertools.combinations(range(len(names)), 2)))
    if diagonal:
        pairs = [(i, i) for i in range(len(names))] + pairs
    rows = []
    for i, j in pairs:
        clock = time.perf_counter()
        r = duplicate_match(game, kinds[i], kinds[j], deals, seed, table,
                            HEURISTIC_NAMES.index(fallback))
        rows.append({"policy": names[i], "opponent": names[j], **r,
                     "seconds": round(time.perf_counter() - clock, 2)})
    return rows


def write_record(path: Path, record: dict) -> list[Path]:
    """The record, its rows flattened (an interval as its mean, _low and _high; lists
    left out) with their `columns`, as JSON at path's .json and its CSV at path's .csv
    (solver/reports/files.py `write_table`, which the provenance test remakes); the paths
    written."""
    rows = []
    for r in record["rows"]:
        flat = {}
        for k, v in r.items():
            if isinstance(v, dict) and "mean" in v:
                flat.update({k: v["mean"], f"{k}_low": v["low"], f"{k}_high": v["high"]})
            elif not isinstance(v, list):
                flat[k] = v
        rows.append(flat)
    columns = list(dict.fromkeys(k for r in rows for k in r))
    out = Path(path).with_suffix(".csv")
    write_table(out, {**record, "columns": columns, "rows": rows})
    return [out.with_suffix(".json"), out]
