"""The files rendered from a record, by name, and writing them atomically next to it.

Each `*_files` function renders from the record alone, so a committed rendering can be
checked against (or remade from) its committed record.
"""

from __future__ import annotations

from pathlib import Path

from solver import provenance
from solver.reports import csv, markdown, plots

EVALUATION = "evaluation"  # results/evaluation_<part>.{json,csv,md}, figures, the report


def game_infix(game: str) -> str:
    """What a game adds to its result files' names: nothing for the first game, whose
    files were named before there were others (provenance.GAME_NAME), '_<game>' else."""
    # A name branch kept (tests/test_game_adapter.py): file names, not a capability.
    return "" if game == provenance.GAME_NAME else f"_{game}"


def evaluation_prefix(game: str) -> str:
    """The stem of a game's evaluation files: evaluation (jabbas_palace),
    evaluation_love_letter."""
    return f"{EVALUATION}{game_infix(game)}"


def write(out_dir: Path, files: dict[str, bytes]) -> list[Path]:
    paths = []
    for name, data in files.items():
        paths.append(out_dir / name)
        provenance.write_atomic(paths[-1], data)
    return paths


def evaluation_part_files(record: dict, figures: bool = True) -> dict[str, bytes]:
    """<prefix>_<part>.csv, .md and the part's figures (`evaluation_prefix` of the
    record's game)."""
    part = record["part"]
    prefix = evaluation_prefix(provenance.game_name(record))
    files = {f"{prefix}_{part}.csv": getattr(csv, part)(record["rows"]).encode(),
             f"{prefix}_{part}.md": markdown.EVALUATION_PARTS[part](record).encode()}
    if figures:
        files.update({f"{prefix}_{name}.png": png
                      for name, png in plots.EVALUATION_PARTS[part](record).items()})
    return files


def write_evaluation_part(record: dict, out_dir: Path, prefix: str = EVALUATION
                          ) -> list[Path]:
    """The part's record (<prefix>_<part>.json) and its renderings."""
    path = out_dir / f"{prefix}_{record['part']}.json"
    provenance.write_json(path, record)
    return [path, *write(out_dir, evaluation_part_files(record))]


def read_evaluation_part(part: str, out_dir: Path, prefix: str = EVALUATION) -> dict | None:
    path = out_dir / f"{prefix}_{part}.json"
    return provenance.read_json(path) if path.exists() else None


def evaluation_report_files(out_dir: Path, prefix: str = EVALUATION) -> dict[str, bytes]:
    """<prefix>_report.md from the parts' records in out_dir and the figures there."""
    records = {part: read_evaluation_part(part, out_dir, prefix)
               for part, _, _ in markdown.EVALUATION_SECTIONS}
    figures = {p.stem[len(prefix) + 1:] for p in out_dir.glob(f"{prefix}_*.png")}
    return {f"{prefix}_report.md":
            markdown.evaluation_report(records, figures, prefix).encode()}


def write_evaluation_report(out_dir: Path, prefix: str = EVALUATION) -> Path:
    return write(out_dir, evaluation_report_files(out_dir, prefix))[0]


def exploitability_stem(record: dict) -> str:
    """exploitability_<deck>_<n>p, with the game's name for a game other than
    jabbas_palace: exploitability_love_letter_small_2p."""
    game = record["game"]["parameters"]
    infix = game_infix(provenance.game_name(record))
    return f"exploitability{infix}_{game['deck']}_{game['players']}p"


def exploitability_files(record: dict, figures: bool = True) -> dict[str, bytes]:
    """exploitability_<deck>_<n>p.csv, .md and .png."""
    stem = exploitability_stem(record)
    files = {f"{stem}.csv": csv.exploitability(record).encode(),
             f"{stem}.md": markdown.exploitability(record).encode()}
    if figures:
        files[f"{stem}.png"] = plots.exploitability(record)
    return files


def write_exploitability(record: dict, out_dir: Path) -> list[Path]:
    """The study's record (exploitability_<deck>_<n>p.json) and its renderings."""
    files = exploitability_files(record)
    path = out_dir / f"{exploitability_stem(record)}.json"
    provenance.write_json(path, record)
    return [*write(out_dir, files), path]


def training_curve_files(header: dict, stem: str, figures: bool = True
                         ) -> dict[str, bytes]:
    """<stem>.csv and .png: the exact convergence curve in an MCCFR policy file's header
    (the file <stem>.npz); nothing if the curve has no exact metric."""
    text = csv.training_curve(header)
    if text is None:
        return {}
    files = {f"{stem}.csv": text.encode()}
    if figures:
        files[f"{stem}.png"] = plots.training_curve(header)
    return files


def write_table(out: Path, record: dict) -> None:
    """A record whose `columns` and `rows` are a table: out's .json (the record) and out
    itself (the CSV rendered from it by `table_files`), both atomically."""
    out = Path(out)
    provenance.write_json(out.with_suffix(".json"), record)
    provenance.write_atomic(out, table_files(record, out.stem)[f"{out.stem}.csv"])


def table_files(record: dict, stem: str) -> dict[str, bytes]:
    """<stem>.csv of a record whose `columns` and `rows` are the table (the search's
    results/search_exact and search_full)."""
    def cell(x):
        return csv.number(x) if isinstance(x, float) else ("" if x is None else x)

    columns = record["columns"]
    return {f"{stem}.csv": csv.table(columns, [[cell(r.get(c)) for c in columns]
                                               for r in record["rows"]]).encode()}
