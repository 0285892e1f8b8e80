"""Exact solving of reduced decks: CFR variants on the whole tree until a stop criterion.

`solve` runs until an iteration budget, a time budget or a target exploitability (2
players; NashConv for 3 or more) is met, or until interrupted (Ctrl-C keeps what was
computed). It measures the average strategy exactly at log-spaced iterations, which is
also the convergence curve.
"""

from __future__ import annotations

import dataclasses
import math
import time
from collections.abc import Callable

import numpy as np

from solver import provenance
from solver.exact.best_response import exploitability, nash_conv
from solver.exact.cfr import CFRSolver, TreeArrays
from solver.exact.tree import GameTree

# The result file of an exact solve (written with provenance.write_json).
FORMAT = "jabbas-palace-policy"
FORMAT_VERSION = 1


@dataclasses.dataclass(frozen=True)
class Measurement:
    iteration: int
    seconds: float
    value: float  # exploitability (2 players) or NashConv (more), tokens per round


@dataclasses.dataclass
class SolveOutcome:
    algorithm: str
    iterations: int
    seconds: float
    strategy: np.ndarray  # average strategy, flat in tree infoset order
    metric: str  # "exploitability" or "nash_conv"
    value: float
    curve: list[Measurement]
    stopped_by: str  # "iterations", "seconds", "target" or "interrupted"


def metric_name(num_players: int) -> str:
    return "exploitability" if num_players == 2 else "nash_conv"


def measure(tree: GameTree, strategy: np.ndarray, arrays: TreeArrays | None = None) -> float:
    """Exploitability with 2 players, NashConv with more (tokens per round)."""
    if tree.num_players == 2:
        return exploitability(tree, strategy, arrays)
    return nash_conv(tree, strategy, arrays)


def _is_checkpoint(iteration: int) -> bool:
    """Log-spaced: about ten measurements per decade of iterations."""
    if iteration <= 10:
        return True
    return iteration % 10 ** int(math.log10(iteration)) == 0


def solve(tree: GameTree, algorithm: str = "cfr+", iterations: int | None = 1000,
          seconds: float | None = None, target: float | None = None,
          on_measure: Callable[[Measurement], None] | None = None,
          on_iteration: Callable[[int], None] | None = None) -> SolveOutcome:
    """Run `algorithm` on `tree` until the first of the budgets or the target is met."""
    if iterations is None and seconds is None and target is None:
        raise ValueError("give at least one stop criterion: iterations, seconds or target")
    for name, value in (("iterations", iterations), ("seconds", seconds),
                        ("target", target)):
        if value is not None and value <= 0:
            raise ValueError(f"{name} must be positive, got {value}")
    solver = CFRSolver(tree, algorithm)
    curve: list[Measurement] = []
    start = time.perf_counter()
    stopped_by = "iterations"

    def record() -> float:
        value = measure(tree, solver.average_strategy(), solver.arrays)
        point = Measurement(solver.iterations, time.perf_counter() - start, value)
        curve.append(point)
        if on_measure:
            on_measure(point)
        return value

    try:
        while True:
            solver.iteration()
            if on_iteration:
                on_iteration(solver.iterations)
            elapsed = time.perf_counter() - start
            done_iterations = iterations is not None and solver.iterations >= iterations
            done_seconds = seconds is not None and elapsed >= seconds
            if _is_checkpoint(solver.iterations) or done_iterations or done_seconds:
                value = record()
                if target is not None and value <= target:
                    stopped_by = "target"
                    break
            if done_iterations:
                break
            if done_seconds:
                stopped_by = "seconds"
                break
    except KeyboardInterrupt:
        stopped_by = "interrupted"
        if solver.iterations and (not curve or curve[-1].iteration != solver.iterations):
            record()
    strategy = solver.average_strategy()
    return SolveOutcome(
        algorithm=algorithm, iterations=solver.iterations,
        seconds=time.perf_counter() - start, strategy=strategy,
        metric=metric_name(tree.num_players),
        value=curve[-1].value if curve else measure(tree, strategy, solver.arrays),
        curve=curve, stopped_by=stopped_by)


def policy_record(tree: GameTree, outcome: SolveOutcome, *, deck_spec: str,
                  lp_value: float | None = None, command: str | None = None) -> dict:
    """The result of an exact solve, with its whole policy table."""
    offsets = tree.action_offsets()
    params = dict(tree.game.get_parameters())
    return {
        "format": FORMAT,
        "format_version": FORMAT_VERSION,
        **provenance.header(params, seconds=outcome.seconds, command=command,
                 game_name=tree.game.get_type().short_name),
        "deck_spec": deck_spec,
        "algorithm": outcome.algorithm,
        "abstraction": "none (exact game tree, perfect recall)",
        "iterations": outcome.iterations,
        "stopped_by": outcome.stopped_by,
        outcome.metric: outcome.value,
        "metric_units": "tokens per round (margin utility)" if params.get(
            "utility") == "margin" else "tokens per round",
        "lp_game_value_player0": lp_value,
        "tree": {"histories": tree.num_nodes, "information_states": tree.num_infosets},
        "curve": [{"iteration": m.iteration, "seconds": round(m.seconds, 4),
                   outcome.metric: m.value} for m in outcome.curve],
        "policy": {
            "columns": ["information_state", "actions", "probabilities"],
            "rows": [[tree.infoset_strings[i], tree.infoset_actions[i].tolist(),
                      outcome.strategy[offsets[i]:offsets[i + 1]].round(6).tolist()]
                     for i in range(tree.num_infosets)],
        },
    }
