"""Long MCCFR runs: budgets, a memory limit, periodic atomic checkpoints, resume, and the
exact convergence curve when the game is a reduced deck whose tree fits in memory (kept in
checkpoints and in the policy file's header; solver/reports/ renders it as CSV and PNG)."""

from __future__ import annotations

import dataclasses
import math
import os
import re
import time
from collections.abc import Callable
from pathlib import Path

from solver.exact.best_response import exploitability, nash_conv
from solver.exact.tree import GameTree
from solver.mccfr.checkpoint import read_checkpoint_header
from solver.mccfr.solver import MCCFRSolver, MemoryLimitReached, memory_size
from solver.mccfr.table import kill_as_interrupt
from solver.provenance import temporary_files

# Share of the machine's memory the tables may take by default: the rest is for the
# checkpoint and policy writers (each holds up to about one more copy of the values) and
# for everything else running.
DEFAULT_MEMORY_SHARE = 0.5
_UNITS = {"": 1, "K": 2**10, "M": 2**20, "G": 2**30, "T": 2**40}


@dataclasses.dataclass
class TrainOutcome:
    solver: MCCFRSolver
    stopped_by: str  # "iterations", "seconds", "interrupted" or "memory"
    curve: list[dict]  # iteration, seconds, keys, and the exact metric on reduced decks
    message: str | None = None  # why the run stopped early and what to do, if it did


def default_level(game, resume_from: Path | None = None) -> str:
    """The abstraction level `train` should use by default: a resumed run's own (that of
    the checkpoint `resume_from`); on a reduced deck `identity` (perfect recall; its
    tables stay small); on the full deck the level of the game's shipped policy
    (solver/policies/shipped.py: the finest shipped file), else `coarse` (the level that
    saturates with 3+ players)."""
    from solver.policies.shipped import policy_files
    from spiel_game.game import variant

    if resume_from is not None and Path(resume_from).exists():
        return checkpoint_level(game, resume_from)
    params = dict(game.get_parameters())
    if params["deck"] != "full":
        return "identity"
    files = policy_files("full", variant(game), params["players"])
    return files[0].stem.rsplit("_", 1)[1] if files else "coarse"


def checkpoint_level(game, checkpoint: Path) -> str:
    """The abstraction level (its name in `game`) of a run's checkpoint."""
    from solver.mccfr.games import mccfr_game

    return mccfr_game(game).level_name(read_checkpoint_header(checkpoint)["level"])


def machine_memory() -> int:
    """Bytes of memory this process may use: the physical RAM (os.sysconf), or the
    cgroup's limit when lower."""
    total = os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES")
    for limit_file in ("/sys/fs/cgroup/memory.max",
                       "/sys/fs/cgroup/memory/memory.limit_in_bytes"):
        try:
            text = Path(limit_file).read_text().strip()
        except OSError:
            continue
        if text.isdigit():
            total = min(total, int(text))
    return total


def default_max_memory() -> int:
    """The tables' default memory limit: DEFAULT_MEMORY_SHARE of `machine_memory`."""
    return int(DEFAULT_MEMORY_SHARE * machine_memory())


def parse_memory(text: str) -> int:
    """Bytes from a size such as '8G', '1.5GiB', '512M' or '1000000' (K, M, G, T: powers
    of 1024)."""
    match = re.fullmatch(r"\s*(\d+(?:\.\d*)?|\.\d+)\s*([KMGT]?)(?:I?B)?\s*", text.upper())
    if not match:
        raise ValueError(f"{text!r} is not a size: give bytes or a number with K, M, G or "
                         "T (powers of 1024), e.g. 8G or 512M")
    size = int(float(match.group(1)) * _UNITS[match.group(2)])
    if size <= 0:
        raise ValueError(f"{text!r}: the size must be positive")
    return size


def _next_measure(iteration: int) -> int:
    """The next log-spaced iteration count (1, 2, 5 per decade) after `iteration`."""
    decade = 10 ** int(math.log10(max(iteration, 1)))
    for step in (1, 2, 5, 10):
        if step * decade > iteration:
            return step * decade
    return 10 * decade


def _check_budgets(iterations, seconds, checkpoint_every) -> None:
    if iterations is None and seconds is None:
        raise ValueError("give an iteration budget, a time budget, or both")
    if iterations is not None and (isinstance(iterations, bool) or not isinstance(
            iterations, int) or iterations < 1):
        raise ValueError(f"iterations: the budget must be a positive whole number, got "
                         f"{iterations!r}")
    for name, value in (("seconds", seconds), ("checkpoint_every", checkpoint_every)):
        if value is not None and not (isinstance(value, (int, float))
                                      and math.isfinite(value) and value > 0):
            raise ValueError(f"{name}: must be a positive finite number of seconds, got "
                             f"{value!r}")


def remove_orphans(checkpoint: Path) -> list[Path]:
    """Delete the temporary files a killed checkpoint write left beside `checkpoint`
    (solver/provenance.py `temporary_files`); returns them."""
    orphans = temporary_files(checkpoint)
    for orphan in orphans:
        orphan.unlink(missing_ok=True)
    return orphans



def resumed(game, level, checkpoint: Path | None, resume: bool, max_memory: int | None,
            log: Callable[[str], None]) -> MCCFRSolver | None:
    """The run to resume from `checkpoint` (its level checked), or None for a new run;
    removes what a killed checkpoint write left behind first."""
    if checkpoint is not None:
        for orphan in remove_orphans(Path(checkpoint)):
            log(f"removed {orphan}: left by a checkpoint write that did not finish")
    if not resume:
        return None
    if checkpoint is None or not Path(checkpoint).exists():
        raise ValueError(f"--resume needs an existing checkpoint, got {checkpoint}")
    solver = MCCFRSolver.from_checkpoint(game, checkpoint, max_memory=max_memory)
    if solver.level != level:
        raise ValueError(f"{checkpoint}: checkpoint uses abstraction level "
                         f"{solver.level}, not {level}")
    return solver


def curve_point(solver, tree) -> dict:
    """A point of the training curve, appended to `solver.curve`: iterations, time, keys
    and, on a reduced deck's `tree`, the exact exploitability (NashConv with 3+
    players) of the average strategy and the information states it never visited."""
    from solver.mccfr.solver import strategy_on_tree

    point = {"iteration": solver.iterations, "seconds": round(solver.seconds, 2),
             "keys": solver.tables.num_keys}
    if tree is not None:
        strategy, missing = strategy_on_tree(solver, tree)
        metric = exploitability if tree.num_players == 2 else nash_conv
        point[metric.__name__] = metric(tree, strategy)
        point["unvisited_infosets"] = missing
    solver.curve.append(point)
    return point


def budget_spent(solver, iterations: int | None, seconds: float | None,
                 started: float) -> str | None:
    """The budget a run has used up ("iterations": the total, counting a resumed run's;
    "seconds": this session's, from `started`), or None."""
    if iterations is not None and solver.iterations >= iterations:
        return "iterations"
    if seconds is not None and time.perf_counter() - started >= seconds:
        return "seconds"
    return None


def train(game, level: int, iterations: int | None, seconds: float | None, *,
          threads: int = 2, seed: int = 1, checkpoint: Path | None = None,
          checkpoint_every: float = 600.0, resume: bool = False,
          tree: GameTree | None = None, max_memory: int | None = None,
          on_progress: Callable[[MCCFRSolver, dict | None], None] | None = None,
          log: Callable[[str], None] = lambda message: None, linear: bool = False,
          utility: str = "returns", warm_start: Path | None = None) -> TrainOutcome:
    """Run MCCFR until `iterations` (total, counting a resumed run's) or `seconds` (this
    session) is reached, Ctrl-C, or the tables would grow past `max_memory` bytes
    (default `default_max_memory()`); checkpoints every `checkpoint_every` seconds and at
    the end. With `tree`, measures exact exploitability (NashConv for 3+) as it goes; the
    curve is kept in the checkpoint and continued on resume. `log` receives notices
    (orphans removed, a memory projection over the limit). `linear`, `utility`: of a new
    run (MCCFRSolver's); a resumed run keeps its checkpoint's. `warm_start`: a new run
    starting from another run's checkpoint (`MCCFRSolver.warm_started`: its tables, its
    linear and utility; a count-free level may come from another player count)."""
    _check_budgets(iterations, seconds, checkpoint_every)
    max_memory = default_max_memory() if max_memory is None else max_memory
    solver = resumed(game, level, checkpoint, resume, max_memory, log)
    if warm_start is not None:
        if solver is not None:
            raise ValueError("--warm-start starts a new run; --resume continues one: give "
                             "one of them")
        if not Path(warm_start).exists():
            raise ValueError(f"--warm-start {warm_start}: no such checkpoint")
        solver = MCCFRSolver.warm_started(game, warm_start, level, seed=seed,
                                          threads=threads, max_memory=max_memory)
    if solver is None:
        solver = MCCFRSolver(game, level=level, seed=seed, threads=threads,
                             max_memory=max_memory, linear=linear, utility=utility)
    if solver.tables.nbytes > max_memory:
        raise ValueError(f"the tables already take {memory_size(solver.tables.nbytes)}, over the "
                         f"memory limit of {memory_size(max_memory)}: raise --max-memory")
    started = time.perf_counter()
    last_checkpoint = started
    next_measure = _next_measure(solver.iterations)
    stopped_by, message = "iterations", None
    warned = False

    def measure() -> dict:
        return curve_point(solver, tree)

    def projection() -> tuple[int, int] | None:
        """(iterations, bytes): the budget's end and the tables' size then, at the key
        growth between the last two curve points."""
        if len(solver.curve) < 2:
            return None
        a, b = solver.curve[-2], solver.curve[-1]
        per_iteration = (b["keys"] - a["keys"]) / max(b["iteration"] - a["iteration"], 1)
        end = iterations
        if seconds is not None:
            rate = solver.iterations / max(solver.seconds, 1e-9)
            in_time = solver.iterations + int(rate * (seconds - (time.perf_counter()
                                                                 - started)))
            end = in_time if end is None else min(end, in_time)
        keys = solver.tables.num_keys + per_iteration * max(end - solver.iterations, 0)
        return end, solver.tables.nbytes_for_keys(int(keys))

    with kill_as_interrupt():  # `kill` saves the run as Ctrl-C does
        try:
            while True:
                spent = budget_spent(solver, iterations, seconds, started)
                if spent is not None:
                    stopped_by = spent
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
                    projected = projection()
                    if not warned and projected and projected[1] > max_memory:
                        warned = True
                        log(f"at the key growth so far the tables would need about "
                            f"{memory_size(projected[1])} by iteration {projected[0]:,}, over the "
                            f"memory limit of {memory_size(max_memory)}: the run will stop, saved, "
                            "when it reaches the limit")
                if checkpoint and time.perf_counter() - last_checkpoint >= checkpoint_every:
                    solver.save_checkpoint(checkpoint)
                    last_checkpoint = time.perf_counter()
                if on_progress:
                    on_progress(solver, point)
        except KeyboardInterrupt:
            stopped_by = "interrupted"
        except MemoryLimitReached as limit:
            stopped_by = "memory"
            go_on = (f"resume it from the checkpoint {checkpoint} with --resume and a larger "
                     "--max-memory" if checkpoint else "run again with a larger --max-memory "
                     "(and --checkpoint, to be able to resume)")
            message = (f"stopped at iteration {solver.iterations:,}: {limit}. The policy so "
                       f"far is saved. To go on, {go_on}; or use a coarser --abstraction, "
                       "whose tables stay smaller.")
    if solver.iterations == 0:
        raise ValueError("no MCCFR iteration finished, so there is no policy to save "
                         f"(stopped by {stopped_by}{': ' + message if message else ''})")
    if not solver.curve or solver.curve[-1]["iteration"] != solver.iterations:
        measure()
    if checkpoint:
        solver.save_checkpoint(checkpoint)
    return TrainOutcome(solver, stopped_by, solver.curve, message)
