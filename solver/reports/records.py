"""Records made in parts: the rows of a run merged into those of an earlier record at the
same path, with the runs behind them (`jabba search-exact`, `search-duel`, `match-duel`,
benchmarks/abstraction_study.py)."""

from __future__ import annotations

from pathlib import Path

from solver import provenance
from solver.reports.files import write_table


def merged_rows(path: Path, rows: list[dict], row_id, part: dict
                ) -> tuple[list[dict], list[dict]]:
    """A table made in parts: the rows of the earlier record at `path` whose `row_id`
    is not among `rows`', then `rows`; and the runs behind them, the earlier record's
    `parts` (or its own header, for a record made in one run) then `part`. A row names
    its part by the part's "started" (none: the earlier record's own run); parts left
    without rows, such as this run's earlier write, are dropped."""
    path = Path(path)
    old = provenance.read_json(path) if path.exists() else {"rows": []}
    new_ids = {row_id(r) for r in rows}
    merged = [r for r in old["rows"] if row_id(r) not in new_ids] + rows
    parts = old.get("parts") or [{k: v for k, v in old.items()
                                  if k in ("command", "code_version", "seconds", "created")
                                  or k.endswith("_command")}]
    named = {r.get("run") for r in merged}
    parts = [q for q in parts if q.get("started") in named
             and q.get("started") != part.get("started")]
    return merged, parts + [part]


def write_merged(out: Path, columns: list[str], rows: list[dict], record: dict, row_id,
                 started: str, params: dict, game: str) -> None:
    """This run's rows merged into an earlier file's (`merged_rows`), written as a table
    (files.write_table): the earlier rows for other `row_id`s stay, with the run behind
    each in `parts`; the header's parameters of `game` cover every row."""
    from spiel_game.cards import ruleset

    part = {k: record[k] for k in ("command", "code_version", "seconds")}
    merged, parts = merged_rows(Path(out).with_suffix(".json"),
                                [{**r, "run": started} for r in rows], row_id,
                                {**part, "started": started})
    params = {**params, "players": sorted({r["players"] for r in merged})}
    if "deck" in merged[0]:  # the exact study's rows: their decks, in order
        params["deck"] = list(dict.fromkeys(r["deck"] for r in merged))
    rules = ruleset(game)
    if rules.has_agendas:  # without agendas a row's "agenda" is the game's one variant
        params["agenda"] = [a for a in rules.agendas if a in {r["agenda"] for r in merged}]
    record["game"]["parameters"] = params
    write_table(out, {**record, "parts": parts, "columns": columns, "rows": merged})


def merged_runs(path: Path, rows: list[dict], run: dict, key, what: str, command: str
                ) -> tuple[list, list]:
    """(rows, runs): the rows of an earlier record at path that these rows do not replace
    (the same values of `key`), then these; the runs that made the rows kept, then this
    one, numbered. ValueError for a record there that another command made (its "what"
    does not begin with `what`, as `jabba COMMAND`'s do)."""
    path = Path(path)
    old_rows, old_runs = [], []
    if path.exists():
        record = provenance.read_json(path)
        if not str(record.get("what", "")).startswith(what):
            raise ValueError(f"{path} is not a jabba {command} record; give another --out")
        new_keys = {tuple(r[k] for k in key) for r in rows}
        old_rows = [r for r in record["rows"] if tuple(r[k] for k in key) not in new_keys]
        kept = {r["run"] for r in old_rows}
        old_runs = [r for r in record.get("runs", []) if r["run"] in kept]
    number = max([r["run"] for r in old_runs], default=0) + 1
    run = {**run, "run": number}
    return old_rows + [{**r, "run": number} for r in rows], old_runs + [run]
