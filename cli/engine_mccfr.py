"""`jabba solve --algorithm mccfr` for the games on their own engines (cli/han_solo.py,
cli/sarlaccs_pit.py), written once: the run's options (MCCFRRun), the level and strategy
checked, the memory limit, the shipped name, and the run on the shared driver
(solver/mccfr/train.py) with its progress bar. Each game's module names its levels, its
default level and its training utility, and writes and reports its table."""

from __future__ import annotations

import dataclasses
from pathlib import Path
from collections.abc import Callable

import typer

from cli import options

STRATEGIES = ("average", "current")  # the table written: --strategy


@dataclasses.dataclass
class MCCFRRun:
    """How an MCCFR run goes (jabba solve's options, as for the Love Letter games)."""

    threads: int = 1
    max_memory: str | None = None  # a size (solver.mccfr.train.parse_memory)
    checkpoint: Path | None = None
    checkpoint_every: float = 600.0
    resume: bool = False
    strategy: str = "average"  # the table written: the average or the current strategy
    warm_start: Path | None = None  # a checkpoint a new run's tables start as


def train_table(game, name: str, deck: str, iterations: int, seconds: float | None,
                level: str | None, seed: int, out: Path | None, ship: bool, run: MCCFRRun,
                levels, level_id: Callable[[str], int], default_level: Callable[[], str],
                utility: Callable[[str], str] = lambda level: "returns"):
    """MCCFR on the shared driver (budgets, checkpoints and resume, the memory limit,
    Ctrl-C: the run so far is kept) for the game `name` (its files' names): `level` is
    a resumed run's own where None, else `default_level()`; it must be one of `levels`.
    `utility(level)`: what a leaf is worth. Returns (the train outcome, the table's path,
    the level); typer.BadParameter naming the option for a refused one."""
    from solver.mccfr.train import checkpoint_level, default_max_memory, parse_memory, train

    if level is None:
        resuming = run.resume and run.checkpoint and Path(run.checkpoint).exists()
        starting = run.warm_start is not None and Path(run.warm_start).exists()
        level = (checkpoint_level(game, run.checkpoint) if resuming else
                 checkpoint_level(game, run.warm_start) if starting else default_level())
    if level not in levels:
        raise typer.BadParameter(f"{level!r}: {name}'s levels are {', '.join(levels)}",
                                 param_hint="--abstraction")
    if run.strategy not in STRATEGIES:
        raise typer.BadParameter(f"{run.strategy!r}: allowed are {', '.join(STRATEGIES)}",
                                 param_hint="--strategy")
    try:
        limit = default_max_memory() if run.max_memory is None else parse_memory(
            run.max_memory)
    except ValueError as err:
        raise typer.BadParameter(str(err), param_hint="--max-memory") from None
    if ship:
        from solver.policies.shipped import policy_name

        folder = options.ship_folder(out, "--out")
        try:
            out = folder / policy_name(deck, name, game.num_players(), level, levels)
        except ValueError as err:
            raise typer.BadParameter(str(err), param_hint="--abstraction") from None
    out = out or Path(f"policy_{deck}_{name}_{game.num_players()}p_{level}.npz")
    with options.progress_bars() as progress:
        update = options.tracker(progress)
        try:
            outcome = train(game, level_id(level), iterations or None, seconds,
                            threads=run.threads, seed=seed, checkpoint=run.checkpoint,
                            checkpoint_every=run.checkpoint_every, resume=run.resume,
                            max_memory=limit, log=progress.console.print,
                            utility=utility(level), warm_start=run.warm_start,
                            on_progress=lambda s, point: update(
                                "MCCFR iterations", s.iterations, iterations or 0))
        except ValueError as err:
            raise typer.BadParameter(str(err)) from None
    return outcome, out, level
