"""The exploitability study: heuristics and CFR-solved policies on a reduced deck, exactly.

For each agenda (classic Love Letter: its one rule set, named love_letter) it builds the
game tree once, measures every heuristic's exploitability
(2 players) or NashConv (3+), runs each CFR variant for the same iteration budget, and
writes a JSON record of the numbers and how they were made, rendered by solver/reports/
as a CSV table, a Markdown table and a convergence plot.
"""

from __future__ import annotations

import dataclasses
import time
from pathlib import Path
from collections.abc import Callable

import pyspiel

from solver import provenance
from solver.exact.best_response import profile_values
from solver.exact.solve import Measurement, measure, metric_name, solve
from solver.policies.heuristics import heuristics_for
from solver.exact.tree_policy import strategy_from_policy
from solver.exact.tree import build_tree
from solver.reports import files as report_files


@dataclasses.dataclass(frozen=True)
class Row:
    agenda: str
    policy: str
    kind: str  # "heuristic" or "solved"
    value: float  # exploitability or NashConv, tokens per round
    iterations: int  # 0 for heuristics
    seconds: float


@dataclasses.dataclass
class Study:
    deck: str
    players: int
    iterations: int
    rows: list[Row]
    curves: dict[tuple[str, str], list[Measurement]]
    tree_sizes: dict[str, tuple[int, int]]
    seconds: float
    game: str = "jabbas_palace"

    @property
    def metric(self) -> str:
        return metric_name(self.players)


def run_study(deck: str, players: int, agendas: list[str], iterations: int,
              algorithms=("cfr", "cfr+", "dcfr"),
              log: Callable[[str], None] = lambda text: None,
              game: str = "jabbas_palace") -> Study:
    """The study of the game `game` on `deck`; `agendas` are jabbas_palace's (for
    love_letter: ["love_letter"], its one variant)."""
    start = time.perf_counter()
    rows, curves, sizes = [], {}, {}
    name = game
    for agenda in agendas:
        params = {"deck": deck, "players": players}
        if name == "jabbas_palace":
            params["agenda"] = agenda
        game = pyspiel.load_game(name, params)
        tree = build_tree(game)
        sizes[agenda] = (tree.num_nodes, tree.num_infosets)
        log(f"{agenda}: {tree.num_nodes:,} histories, {tree.num_infosets:,} information states")
        for policy, heuristic in heuristics_for(game).items():
            t0 = time.perf_counter()
            value = measure(tree, strategy_from_policy(tree, heuristic(game)))
            rows.append(Row(agenda, policy, "heuristic", value, 0, time.perf_counter() - t0))
            log(f"  {policy:>14}: {value:.4f}")
        for algorithm in algorithms:
            outcome = solve(tree, algorithm, iterations=iterations)
            curves[(agenda, algorithm)] = outcome.curve
            rows.append(Row(agenda, algorithm, "solved", outcome.value, outcome.iterations,
                            outcome.seconds))
            log(f"  {algorithm:>14}: {outcome.value:.2e} after {outcome.iterations} "
                f"iterations ({outcome.seconds:.1f} s); value for player 0 "
                f"{profile_values(tree, outcome.strategy)[0]:+.4f}")
    return Study(deck, players, iterations, rows, curves, sizes, time.perf_counter() - start,
                 name)


def study_record(study: Study) -> dict:
    """The study's result record: the provenance header, tree sizes, rows and curves."""
    game = {"agenda": list(study.tree_sizes), "deck": study.deck, "players": study.players,
            "utility": "margin"}
    if study.game != "jabbas_palace":  # no agendas: the rows' "agenda" is the game's name
        del game["agenda"]
    return {
        **provenance.header(game, seconds=study.seconds, game_name=study.game),
        "what": f"{study.metric} of heuristics and CFR-solved policies, tokens per round",
        "metric": study.metric,
        "iterations": study.iterations,
        "tree_sizes": {a: {"histories": h, "information_states": i}
                       for a, (h, i) in study.tree_sizes.items()},
        "rows": [dataclasses.asdict(r) for r in study.rows],
        "curves": {f"{a}/{alg}": [[m.iteration, m.value] for m in curve]
                   for (a, alg), curve in study.curves.items()},
    }


def write_study(study: Study, out_dir: Path) -> list[Path]:
    """The record and its CSV, Markdown and PNG renderings (solver/reports/), named
    after the game (love_letter), the deck and the player count."""
    return report_files.write_exploitability(study_record(study), out_dir)
