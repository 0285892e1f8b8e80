"""The exploitability study: heuristics and CFR-solved policies on a reduced deck, exactly.

For each agenda it builds the game tree once, measures every heuristic's exploitability
(2 players) or NashConv (3+), runs each CFR variant for the same iteration budget, and
writes a CSV table, a Markdown table, a convergence plot and a JSON record of how the
numbers were made.
"""

from __future__ import annotations

import csv
import dataclasses
import datetime
import io
import time
from pathlib import Path
from typing import Callable

import pyspiel

from solver import provenance as results
from solver.exact.best_response import profile_values
from solver.exact.solve import Measurement, measure, metric_name, solve
from solver.policies.heuristics import HEURISTICS
from solver.exact.tree_policy import strategy_from_policy
from solver.exact.tree import build_tree


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

    @property
    def metric(self) -> str:
        return metric_name(self.players)


def run_study(deck: str, players: int, agendas: list[str], iterations: int,
              algorithms=("cfr", "cfr+", "dcfr"),
              log: Callable[[str], None] = lambda text: None) -> Study:
    start = time.perf_counter()
    rows, curves, sizes = [], {}, {}
    for agenda in agendas:
        game = pyspiel.load_game("jabbas_palace", {"deck": deck, "players": players,
                                                   "agenda": agenda})
        tree = build_tree(game)
        sizes[agenda] = (tree.num_nodes, tree.num_infosets)
        log(f"{agenda}: {tree.num_nodes:,} histories, {tree.num_infosets:,} information states")
        for name, heuristic in HEURISTICS.items():
            t0 = time.perf_counter()
            value = measure(tree, strategy_from_policy(tree, heuristic(game)))
            rows.append(Row(agenda, name, "heuristic", value, 0, time.perf_counter() - t0))
            log(f"  {name:>14}: {value:.4f}")
        for algorithm in algorithms:
            outcome = solve(tree, algorithm, iterations=iterations)
            curves[(agenda, algorithm)] = outcome.curve
            rows.append(Row(agenda, algorithm, "solved", outcome.value, outcome.iterations,
                            outcome.seconds))
            log(f"  {algorithm:>14}: {outcome.value:.2e} after {outcome.iterations} "
                f"iterations ({outcome.seconds:.1f} s); value for player 0 "
                f"{profile_values(tree, outcome.strategy)[0]:+.4f}")
    return Study(deck, players, iterations, rows, curves, sizes, time.perf_counter() - start)


def write_study(study: Study, out_dir: Path) -> list[Path]:
    """CSV, Markdown, PNG and JSON files named after the deck and player count."""
    stem = out_dir / f"exploitability_{study.deck}_{study.players}p"
    paths = [stem.with_suffix(".csv"), stem.with_suffix(".md"), stem.with_suffix(".png"),
             stem.with_suffix(".json")]
    results.write_atomic(paths[0], _csv(study).encode())
    results.write_atomic(paths[1], _markdown(study).encode())
    results.write_atomic(paths[2], _plot_png(study))
    results.write_json(paths[3], {
        "what": f"{study.metric} of heuristics and CFR-solved policies, tokens per round",
        "game": {"name": "jabbas_palace", "deck": study.deck, "players": study.players,
                 "utility": "margin"},
        "iterations": study.iterations,
        "tree_sizes": {a: {"histories": h, "information_states": i}
                       for a, (h, i) in study.tree_sizes.items()},
        "rows": [dataclasses.asdict(r) for r in study.rows],
        "curves": {f"{a}/{alg}": [[m.iteration, m.value] for m in curve]
                   for (a, alg), curve in study.curves.items()},
        "seconds": round(study.seconds, 1),
        "code_version": results.code_version(),
        "created": datetime.datetime.now(datetime.timezone.utc).isoformat(timespec="seconds"),
    })
    return paths


def _agendas(study: Study) -> list[str]:
    return list(dict.fromkeys(r.agenda for r in study.rows))


def _policies(study: Study) -> list[str]:
    return list(dict.fromkeys(r.policy for r in study.rows))


def _csv(study: Study) -> str:
    out = io.StringIO()
    writer = csv.writer(out)
    writer.writerow(["deck", "players", "agenda", "policy", "kind", study.metric,
                     "iterations", "seconds"])
    for r in study.rows:
        writer.writerow([study.deck, study.players, r.agenda, r.policy, r.kind,
                         f"{r.value:.6g}", r.iterations, f"{r.seconds:.2f}"])
    return out.getvalue()


def _markdown(study: Study) -> str:
    agendas = _agendas(study)
    value = {(r.agenda, r.policy): r.value for r in study.rows}
    lines = [f"| policy | {' | '.join(agendas)} |", "|---|" + "---|" * len(agendas)]
    for policy in _policies(study):
        cells = [f"{value[(a, policy)]:.4f}" if value[(a, policy)] >= 1e-3
                 else f"{value[(a, policy)]:.1e}" for a in agendas]
        lines.append(f"| {policy} | {' | '.join(cells)} |")
    return "\n".join(lines) + "\n"


def _plot_png(study: Study) -> bytes:
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    agendas = _agendas(study)
    columns = min(2, len(agendas))
    rows = -(-len(agendas) // columns)
    fig, axes = plt.subplots(rows, columns, figsize=(4.6 * columns, 3.4 * rows),
                             sharey=True, squeeze=False)
    for ax in axes.flat[len(agendas):]:
        ax.set_visible(False)
    for ax, agenda in zip(axes.flat, agendas):
        for (a, algorithm), curve in study.curves.items():
            if a == agenda:
                ax.loglog([m.iteration for m in curve], [m.value for m in curve],
                          label=algorithm)
        for r in study.rows:
            if r.agenda == agenda and r.kind == "heuristic":
                ax.axhline(r.value, color="grey", lw=0.6, ls=":")
        ax.set_title(agenda)
        ax.set_xlabel("iterations")
        ax.grid(True, which="major", alpha=0.3)
    for ax in axes[:, 0]:
        ax.set_ylabel(f"{study.metric} (tokens / round)")
    axes[0][0].legend()
    fig.suptitle(f"deck {study.deck}, {study.players} players (dotted: heuristics)")
    fig.tight_layout()
    buffer = io.BytesIO()
    fig.savefig(buffer, format="png", dpi=110)
    plt.close(fig)
    return buffer.getvalue()
