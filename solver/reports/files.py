"""The files rendered from a record, by name, and writing them atomically next to it.

Each `*_files` function renders from the record alone, so a committed rendering can be
checked against (or remade from) its committed record.
"""

from __future__ import annotations

from pathlib import Path

from solver import provenance
from solver.reports import csv, markdown, plots

EVALUATION = "evaluation"  # results/evaluation_<part>.{json,csv,md}, figures, the report


def write(out_dir: Path, files: dict[str, bytes]) -> list[Path]:
    paths = []
    for name, data in files.items():
        paths.append(out_dir / name)
        provenance.write_atomic(paths[-1], data)
    return paths


def evaluation_part_files(record: dict, figures: bool = True) -> dict[str, bytes]:
    """evaluation_<part>.csv, .md and the part's figures."""
    part = record["part"]
    files = {f"{EVALUATION}_{part}.csv": getattr(csv, part)(record["rows"]).encode(),
             f"{EVALUATION}_{part}.md": markdown.EVALUATION_PARTS[part](record).encode()}
    if figures:
        files.update({f"{EVALUATION}_{name}.png": png
                      for name, png in plots.EVALUATION_PARTS[part](record).items()})
    return files


def write_evaluation_part(record: dict, out_dir: Path) -> list[Path]:
    """The part's record (evaluation_<part>.json) and its renderings."""
    path = out_dir / f"{EVALUATION}_{record['part']}.json"
    provenance.write_json(path, record)
    return [path, *write(out_dir, evaluation_part_files(record))]


def read_evaluation_part(part: str, out_dir: Path) -> dict | None:
    path = out_dir / f"{EVALUATION}_{part}.json"
    return provenance.read_json(path) if path.exists() else None


def evaluation_report_files(out_dir: Path) -> dict[str, bytes]:
    """evaluation_report.md from the parts' records in out_dir and the figures there."""
    records = {part: read_evaluation_part(part, out_dir)
               for part, _, _ in markdown.EVALUATION_SECTIONS}
    figures = {p.stem[len(EVALUATION) + 1:] for p in out_dir.glob(f"{EVALUATION}_*.png")}
    return {f"{EVALUATION}_report.md":
            markdown.evaluation_report(records, figures, EVALUATION).encode()}


def write_evaluation_report(out_dir: Path) -> Path:
    return write(out_dir, evaluation_report_files(out_dir))[0]


def exploitability_stem(record: dict) -> str:
    game = record["game"]["parameters"]
    return f"exploitability_{game['deck']}_{game['players']}p"


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
