"""Long MCCFR runs: budgets, periodic atomic checkpoints, resume, and the exact
convergence curve when the game is a reduced deck whose tree fits in memory (kept in the
policy file's header; solver/reports/ renders it as CSV and PNG)."""

from __future__ import annotations

import dataclasses
import math
import time
from pathlib import Path
from collections.abc import Callable

from solver.exact.best_response import exploitability, nash_conv
from solver.mccfr.solver import MCCFRSolver
from solver.exact.tree import GameTree


@dataclasses.dataclass
class TrainOutcome:
    solver: MCCFRSolver
    stopped_by: str  # "iterations", "seconds" or "interrupted"
    curve: list[dict]  # iteration, seconds, keys, and the exact metric on reduced decks


def _next_measure(iteration: int) -> int:
    """The next log-spaced iteration count (1, 2, 5 per decade) after `iteration`."""
    decade = 10 ** int(math.log10(max(iteration, 1)))
    for step in (1, 2, 5, 10):
        if step * decade > iteration:
            return step * decade
    return 10 * decade


def train(game, level: int, iterations: int | None, seconds: float | None, *,
          threads: int = 2, seed: int = 1, checkpoint: Path | None = None,
          checkpoint_every: float = 600.0, resume: bool = False,
          tree: GameTree | None = None,
          on_progress: Callable[[MCCFRSolver, dict | None], None] | None = None
          ) -> TrainOutcome:
    """Run MCCFR until `iterations` (total, counting a resumed run's) or `seconds` (this
    session) is reached, or Ctrl-C; checkpoints every `checkpoint_every` seconds and at
    the end. With `tree`, measures exact exploitability (NashConv for 3+) as it goes."""
    if iterations is None and seconds is None:
        raise ValueError("give an iteration budget, a time budget, or both")
    if resume:
        if checkpoint is None or not Path(checkpoint).exists():
            raise ValueError(f"--resume needs an existing checkpoint, got {checkpoint}")
        solver = MCCFRSolver.from_checkpoint(game, checkpoint)
        if solver.level != level:
            raise ValueError(f"{checkpoint}: checkpoint uses abstraction level "
                             f"{solver.level}, not {level}")
    else:
        solver = MCCFRSolver(game, level=level, seed=seed, threads=threads)
    curve: list[dict] = []
    started = time.perf_counter()
    last_checkpoint = started
    next_measure = _next_measure(solver.iterations)
    stopped_by = "iterations"

    def measure() -> dict:
        from solver.mccfr.solver import strategy_on_tree
        point = {"iteration": solver.iterations, "seconds": round(solver.seconds, 2),
                 "keys": solver.tables.num_keys}
        if tree is not None:
            strategy, missing = strategy_on_tree(solver, tree)
            metric = exploitability if tree.num_players == 2 else nash_conv
            point[metric.__name__] = metric(tree, strategy)
            point["unvisited_infosets"] = missing
        curve.append(point)
        return point

    try:
        while True:
            if iterations is not None and solver.iterations >= iterations:
                break
            if seconds is not None and time.perf_counter() - started >= seconds:
                stopped_by = "seconds"
                break
            # Batches of about a second: budgets and Ctrl-C are checked between them.
            rate = solver.iterations / solver.seconds if solver.seconds > 0 else 100.0
            batch = max(1, min(int(rate), next_measure - solver.iterations))
            if iterations is not None:
                batch = min(batch, iterations - solver.iterations)
            solver.run(batch, batch=batch)
            point = None
            if solver.iterations >= next_measure:
                point = measure()
                next_measure = _next_measure(solver.iterations)
            if checkpoint and time.perf_counter() - last_checkpoint >= checkpoint_every:
                solver.save_checkpoint(checkpoint)
                last_checkpoint = time.perf_counter()
            if on_progress:
                on_progress(solver, point)
    except KeyboardInterrupt:
        stopped_by = "interrupted"
    if not curve or curve[-1]["iteration"] != solver.iterations:
        measure()
    if checkpoint:
        solver.save_checkpoint(checkpoint)
    return TrainOutcome(solver, stopped_by, curve)
