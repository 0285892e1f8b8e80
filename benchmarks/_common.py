"""Shared helpers for the benchmark scripts: loading games, timing, tables, JSON output
(with the provenance header of solver/provenance.py)."""

from __future__ import annotations

import argparse
import json
import os
import platform
import statistics
import sys
import time
from pathlib import Path

# Measure this checkout, not whatever tree an editable install points at. Every script
# imports this module (directly or through _tree) before the project's packages.
sys.path.insert(1, str(Path(__file__).resolve().parent.parent))


import spiel_game  # noqa: E402  (registers the games)
from solver import provenance  # noqa: E402
from solver.reports import markdown  # noqa: E402
from solver.sim import playout  # noqa: E402
from spiel_game.cards import AGENDAS  # noqa: E402,F401 (the benchmarks' agenda list)

_STARTED = time.perf_counter()  # this run's wall time goes into the JSON's header
_GAMES: list[dict] = []  # the parameters of every game `load_game` made, for the header


def run_playouts(initial, num_rounds: int, seed: int):
    """Random rounds (solver/sim/playout.py run_playouts) -> (decisions, chance events,
    token sums per seat)."""
    return playout.run_playouts(initial, num_rounds, seed)


def load_game(game: str = spiel_game.GAMES[0], players: int = 2, agenda: str | None = None,
              deck: str = "full"):
    """The engine game with these parameters (spiel_game.load), recorded for the header."""
    loaded = spiel_game.load(game, players=players, agenda=agenda, deck=deck)
    _GAMES.append(dict(loaded.get_parameters()))
    return loaded


def load_jabba(players: int = 2, agenda: str = "exalted_one", deck: str = "full"):
    """The `jabbas_palace` game with these parameters."""
    return load_game("jabbas_palace", players, agenda, deck)


def policy_bank(game, agenda: str, players: int, names: list[str]):
    """A bank of the named full-deck policies ('table', heuristics; the evaluation's
    names: solver/evaluation/report.py) for this game."""
    from solver.evaluation.report import resolve_policies
    from solver.policies.compiled import build_bank

    labels, specs = resolve_policies(names, "full", agenda, players)
    return build_bank(specs, game, labels)


def add_output_args(parser: argparse.ArgumentParser, default_seed: int = 1) -> None:
    parser.add_argument("--seed", type=int, default=default_seed,
                        help="seed for every random choice (default %(default)s)")
    parser.add_argument("--out", metavar="FILE",
                        help="also write the results as JSON to FILE (atomically)")
    add_allow_dirty(parser)


class _AllowDirty(argparse.Action):
    def __call__(self, parser, namespace, values, option_string=None):
        provenance.allow_dirty()
        setattr(namespace, self.dest, True)


def add_allow_dirty(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--allow-dirty", action=_AllowDirty, nargs=0, default=False,
                        help="write into results/ from code with uncommitted changes (the "
                        "record carries the diff's hash)")


def guard_outputs(parser: argparse.ArgumentParser, *paths) -> None:
    """Refuse, before any work, outputs in results/ of a checkout with uncommitted code
    (provenance.check_results_write)."""
    for path in paths:
        if path is not None:
            try:
                provenance.check_results_write(path)
            except provenance.DirtyCodeError as err:
                parser.error(str(err))


def median(values) -> float:
    return float(statistics.median(values))


class Stopwatch:
    """Seconds since creation (time.perf_counter)."""

    def __init__(self):
        self.start = time.perf_counter()

    def elapsed(self) -> float:
        return time.perf_counter() - self.start


def fmt_number(x: float, digits: int = 3) -> str:
    """A number with `digits` significant digits and thousands separators when large."""
    if x is None:
        return "-"
    if isinstance(x, int) or (isinstance(x, float) and x.is_integer() and abs(x) < 1e9):
        return f"{int(x):,}"
    if x == 0:
        return "0"
    if abs(x) >= 1e9 or abs(x) < 1e-3:
        return f"{x:.{digits - 1}e}"
    if abs(x) >= 10 ** (digits - 1):
        return f"{x:,.0f}"
    return f"{x:.{digits}g}"


def markdown_table(headers: list[str], rows: list[list]) -> str:
    """A Markdown table; cells are formatted with `fmt_number` unless already strings."""
    return "\n".join(markdown.table(headers, [
        [c if isinstance(c, str) else fmt_number(c) for c in row] for row in rows]))


def machine_info() -> dict:
    return {"python": platform.python_version(), "machine": platform.machine(),
            "cpus": os.cpu_count(), "open_spiel": _version("open_spiel"),
            "numba": _version("numba"), "numpy": _version("numpy")}


def _version(module: str) -> str:
    from importlib.metadata import PackageNotFoundError, version
    try:
        return version(module.replace("_", "-"))
    except PackageNotFoundError:
        return "?"


def games_played() -> dict:
    """The parameters of the games this run loaded: one value, or the list of them."""
    values: dict[str, list] = {}
    for params in _GAMES:
        for key, value in params.items():
            if value not in values.setdefault(key, []):
                values[key].append(value)
    return {key: seen[0] if len(seen) == 1 else seen for key, seen in sorted(values.items())}


def _portable(value):
    """`value` with every absolute path in it made portable (provenance.portable_path)."""
    if isinstance(value, dict):
        return {k: _portable(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [_portable(v) for v in value]
    if isinstance(value, str) and os.path.isabs(value):
        return provenance.portable_path(value)
    return value


def write_json_atomic(path: str, data: dict) -> None:
    """Write `data` after the provenance header (the games loaded, this run's command
    and wall time), as JSON naming no machine path, atomically."""
    record = {**provenance.header(games_played(), seconds=time.perf_counter() - _STARTED),
              **data}
    provenance.write_atomic(path, (json.dumps(_portable(record), indent=2) + "\n").encode())
