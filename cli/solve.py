"""`jabba solve` and `jabba exploit`: a game solved (exact CFR on a reduced deck, or
MCCFR), and the exact exploitability of the heuristics and of CFR-solved policies."""

from __future__ import annotations

from pathlib import Path

import typer

from cli import options


def register(app: typer.Typer) -> None:
    from typer.core import TyperCommand

    class SolveCommand(TyperCommand):
        """`--ray` alone (no ADDRESS after it) means a local cluster: click options take
        no optional value, so it is rewritten `--ray=local` before parsing."""

        def parse_args(self, ctx, args):
            args = [f"--ray={LOCAL}" if arg == "--ray" and (i + 1 == len(args)
                                                             or args[i + 1].startswith("-"))
                    else arg for i, arg in enumerate(args)]
            return super().parse_args(ctx, args)

    app.command(cls=SolveCommand)(solve)
    app.command()(exploit)


LOCAL = "local"  # --ray alone: a local Ray cluster


def _default_result_path(game, deck: str, method: str, iterations: int,
                         suffix: str) -> Path:
    """Where `jabba solve` writes without --out or --ship: the working directory, e.g.
    jabbas_palace_full_exalted_one_2p_mccfr_coarse_120000it.npz or
    love_letter_full_2p_mccfr_fine_1000000it.npz (a deck spec reads 'custom')."""
    from spiel_game.game import variant

    name = game.get_type().short_name
    safe_deck = deck if deck.isidentifier() else "custom"
    parts = [name, safe_deck] + ([variant(game)] if variant(game) != name else [])
    return Path("_".join(parts) + f"_{game.num_players()}p_{method}_{iterations}it{suffix}")


def _shipped_result_path(deck: str, agenda: str, players: int, algorithm: str,
                         abstraction: str, out: Path | None) -> Path:
    """results/ of the checkout, under the name its readers look for
    (solver/policies/shipped.py; `agenda`: the game's variant, love_letter for it)."""
    from solver.policies.shipped import policy_name

    if not deck.isidentifier():
        raise typer.BadParameter(f"--ship: deck {deck!r} is a spec; only a named deck "
                                 "(full, tiny, small, medium) ships")
    folder = options.ship_folder(out, "--out")
    if algorithm != "mccfr":
        return folder / f"solve_{deck}_{agenda}_{players}p_{algorithm}.json.gz"
    try:
        return folder / policy_name(deck, agenda, players, abstraction)
    except ValueError as err:
        raise typer.BadParameter(str(err)) from None


def solve(
    ctx: typer.Context,
    game_name: str = options.game_option(command="solve"),
    deck: str | None = options.deck_option(None, "full, a reduced preset or a spec (see "
                                           "docs/game.md). Default: the game's smallest "
                                           "reduced deck (tiny; sarlaccs_pit: tiny1)."),
    players: int = options.players_option(),
    agenda: str = options.agenda_option(),
    utility: str = typer.Option("margin", help="margin (zero-sum) or tokens."),
    algorithm: str = typer.Option("cfr+", help="cfr, cfr+, dcfr (exact, whole tree of a "
                                  "reduced deck) or mccfr (sampled, any deck)."),
    iterations: int = typer.Option(1000, **options.COUNT, help="Iteration budget (0: "
                                   "none; then give --seconds or --target)."),
    seconds: float | None = typer.Option(None, **options.SECONDS, help="Time budget."),
    target: float | None = typer.Option(None, **options.POSITIVE_REAL,
                                        help="Exact algorithms: stop at this "
                                        "exploitability (2 players) or NashConv (3+)."),
    lp: bool = typer.Option(True, help="Exact, 2 players: also solve OpenSpiel's "
                            "sequence-form LP and compare the game value (small trees)."),
    abstraction: str | None = typer.Option(
        None, help="mccfr: information abstraction level, identity, counting, fine, "
        "coarse or many (finest first; many: for 4-6 players; docs/solving.md). "
        "Default: identity on a reduced deck; on the full deck the level of the game's "
        "shipped policy, else coarse."),
    max_keys: int | None = typer.Option(
        None, "--max-keys", **options.POSITIVE, help="mccfr: write at most this many keys "
        "to the policy, those visited most in training (the rest play uniformly), to keep "
        "the file small; the header records the share of visits kept. Default: all."),
    max_memory: str | None = typer.Option(
        None, "--max-memory", help="mccfr: memory limit of the tables, e.g. 8G or 512M; "
        "the run stops, saved, before growing past it. Default: half the machine's RAM."),
    threads: int = typer.Option(2, **options.THREADS, help="mccfr: worker threads "
                                "sharing the tables."),
    ray: str | None = typer.Option(
        None, "--ray", metavar="[ADDRESS]", help="mccfr: run on Ray workers "
        "(docs/solving.md, 'MCCFR on Ray'). Alone: a local cluster (--ray-workers CPUs); "
        "auto: the cluster `ray start` runs on this machine; HOST:PORT: that head node's. "
        "--max-memory then holds per worker."),
    ray_workers: int | None = typer.Option(None, "--ray-workers", **options.THREADS,
                                           help="--ray: workers. Default: every core (a "
                                           "local cluster), every CPU of a joined one, "
                                           "the checkpoint's count on --resume."),
    ray_round: int = typer.Option(1000, "--ray-round", **options.POSITIVE,
                                  help="--ray: iterations per worker between merges."),
    seed: int = typer.Option(1, **options.SEED, help="mccfr: random seed."),
    checkpoint: Path | None = typer.Option(None, **options.OUTPUT_FILE,
                                           help="mccfr: checkpoint file (.npz), "
                                           "written atomically."),
    checkpoint_every: float = typer.Option(600.0, **options.SECONDS, help="mccfr: "
                                           "seconds between checkpoints."),
    resume: bool = typer.Option(False, help="mccfr: continue from --checkpoint."),
    warm_start: Path | None = typer.Option(
        None, "--warm-start", **options.INPUT_FILE, help="mccfr: a new run whose tables "
        "start as this checkpoint's (the same game and level; another player count only "
        "at a level whose keys read none, han_solo's many). Not with --resume or --ray."),
    strategy: str = typer.Option("average", help="mccfr, a game with its own solvers "
                                 "(han_solo): the strategy the table holds, average "
                                 "(MCCFR's average) or current (regret matching on the "
                                 "last regrets; docs/han-solo.md)."),
    out: Path | None = typer.Option(None, **options.OUTPUT_FILE,
                                    help="Result file. Default: in the working "
                                    "directory, named by game, deck, agenda, players, "
                                    "algorithm and iterations."),
    ship: bool = typer.Option(False, "--ship", help="Write into results/ of the source "
                              "checkout under the shipped name, where the hint and the "
                              "evaluation look (not in an installed package)."),
) -> None:
    """Solve a game: exactly (CFR, CFR+, DCFR on a reduced deck) or by MCCFR."""
    from solver import games
    from solver.exact.cfr import ALGORITHMS

    deck = deck or games.adapter(game_name).solve_deck

    if algorithm not in (*ALGORITHMS, "mccfr"):
        raise typer.BadParameter(f"algorithm {algorithm!r}: allowed are "
                                 f"{', '.join(ALGORITHMS)}, mccfr")
    own = options.own_commands(game_name)
    if own is not None:  # the game's own solvers (e.g. cli/han_solo.py)
        options.refuse_lacking(ctx, game_name, ("lp", "exact_lp"), ("ray", "ray"),
                               ("ray_workers", "ray"), ("ray_round", "ray"))
        if algorithm == "mccfr":
            options.applies_only(ctx, ("target",), "to the exact algorithms (cfr, cfr+, "
                                 "dcfr)")
        else:
            options.applies_only(ctx, ("abstraction", "max_keys", "seed", "max_memory",
                                       "threads", "checkpoint", "checkpoint_every",
                                       "resume", "strategy", "warm_start"),
                                 "to --algorithm mccfr")
        if iterations == 0 and seconds is None and target is None:
            raise typer.BadParameter("0 (no iteration budget) needs --seconds or --target",
                                     param_hint="--iterations")
        if resume and checkpoint is None:
            raise typer.BadParameter("needs --checkpoint, the file to continue from",
                                     param_hint="--resume")
        game = options.load_game(game_name, players, deck, utility, agenda, ctx)
        own.solve(game, deck, algorithm, iterations, seconds, target, abstraction,
                  max_keys, seed, out, ship,
                  mccfr_run=own.MCCFRRun(threads, max_memory, checkpoint,
                                         checkpoint_every, resume, strategy, warm_start))
        return
    options.applies_only(ctx, ("strategy",), "to --game " + " or ".join(
        name for name in games.NAMES if games.adapter(name).cli_module is not None))
    if algorithm == "mccfr":
        options.applies_only(ctx, ("target", "lp"), "to the exact algorithms (cfr, cfr+, "
                             "dcfr)")
    else:
        if ray is not None:
            raise typer.BadParameter(f"Ray runs only --algorithm mccfr (sampled); "
                                     f"{algorithm} is exact and runs in one process: "
                                     "drop --ray, or use --algorithm mccfr",
                                     param_hint="--ray")
        options.applies_only(ctx, ("abstraction", "max_memory", "max_keys", "threads", "seed",
                                   "checkpoint", "checkpoint_every", "resume", "ray_workers",
                                   "ray_round", "warm_start"),
                             "to --algorithm mccfr")
    if ray is None:
        options.applies_only(ctx, ("ray_workers", "ray_round"), "with --ray")
    else:
        options.applies_only(ctx, ("threads",), "without --ray (each Ray worker runs one "
                             "thread; choose their number with --ray-workers)")
        options.applies_only(ctx, ("warm_start",), "without --ray")
    if resume and checkpoint is None:
        raise typer.BadParameter("needs --checkpoint, the file to continue from",
                                 param_hint="--resume")
    if iterations == 0 and seconds is None and target is None:
        raise typer.BadParameter("0 (no iteration budget) needs --seconds or --target: "
                                 "give at least one budget", param_hint="--iterations")
    game = options.load_game(game_name, players, deck, utility, agenda, ctx)
    from spiel_game.game import variant

    agenda = variant(game)  # what names the files: the game's name without agendas
    if algorithm == "mccfr" and abstraction is None:
        from solver.mccfr.train import default_level

        try:
            abstraction = default_level(game, checkpoint if resume else None)
        except ValueError as err:
            raise typer.BadParameter(str(err)) from None
        typer.echo(f"abstraction: {abstraction} (the default "
                   f"{'of the checkpoint' if resume else f'for deck {deck!r}'}; choose with "
                   "--abstraction)")
    if ship:
        out = _shipped_result_path(deck, agenda, players, algorithm, abstraction, out)
    if algorithm == "mccfr":
        _solve_mccfr(game, deck, agenda, players, iterations or None, seconds, abstraction,
                     threads, seed, checkpoint, checkpoint_every, resume, out, max_memory,
                     max_keys, (ray, ray_workers, ray_round), warm_start)
        return
    if deck == "full":
        raise typer.BadParameter("the full deck's tree is far too large for exact CFR; "
                                 "use --algorithm mccfr")
    _solve_exact(game, deck, agenda, players, utility, algorithm, iterations or None,
                 seconds, target, lp, out)


def _solve_exact(game, deck, agenda, players, utility, algorithm, iterations, seconds,
                 target, lp, out) -> None:
    from solver.exact import solve as exact
    from solver import provenance as results
    from solver.exact.tree import build_tree

    with _status(f"building the game tree of deck {deck!r}"):
        try:
            tree = build_tree(game, max_nodes=30_000_000)
        except ValueError as err:
            raise typer.BadParameter(f"{err}") from None
    typer.echo(f"tree: {tree.num_nodes:,} histories, {tree.num_infosets:,} information "
               f"states ({tree.build_seconds:.1f} s)")
    metric = exact.metric_name(players)
    progress, task = _progress(f"{algorithm}", total=iterations)
    with progress:
        outcome = exact.solve(
            tree, algorithm, iterations=iterations, seconds=seconds, target=target,
            on_iteration=lambda i: progress.update(task, completed=i),
            on_measure=lambda m: (
                progress.update(task, description=f"{algorithm} {metric} {m.value:.2e}"),
                progress.console.print(f"iteration {m.iteration:>7}: {metric} "
                                       f"{m.value:.3e} ({m.seconds:.1f} s)")))
    typer.echo(f"{outcome.iterations} iterations in {outcome.seconds:.1f} s "
               f"(stopped by {outcome.stopped_by}); {metric} {outcome.value:.3e} "
               "tokens per round")
    lp_value = None
    if lp and players == 2 and utility == "margin":
        lp_value = _lp_value(game, tree)
        if lp_value is not None:
            from solver.exact.best_response import profile_values
            cfr_value = profile_values(tree, outcome.strategy)[0]
            typer.echo(f"sequence-form LP game value for player 0: {lp_value:+.6f}; "
                       f"CFR average strategy: {cfr_value:+.6f} "
                       f"(|diff| {abs(lp_value - cfr_value):.1e}, bounded by "
                       f"exploitability x 2 = {2 * outcome.value:.1e})")
    path = out or _default_result_path(game, deck, algorithm, outcome.iterations,
                                       ".json.gz")
    results.write_json(path, exact.policy_record(
        tree, outcome, deck_spec=game.config.deck.to_spec(), lp_value=lp_value))
    typer.echo(f"wrote {path}")


EXACT_CURVE_MAX_NODES = 3_000_000


def _solve_mccfr(game, deck, agenda, players, iterations, seconds, abstraction, threads,
                 seed, checkpoint, checkpoint_every, resume, out, max_memory,
                 max_keys, ray_options=(None, None, 1000), warm_start=None) -> None:
    from solver.abstraction import keys as abstraction_module
    from solver.policies.table import export_policy
    from solver.mccfr.train import default_max_memory, parse_memory, train
    from solver.exact.tree import build_tree

    if abstraction not in abstraction_module.LEVELS:
        raise typer.BadParameter(f"abstraction {abstraction!r}: allowed are "
                                 f"{', '.join(abstraction_module.LEVELS)}")
    ray, ray_workers, ray_round = ray_options
    try:
        limit = default_max_memory() if max_memory is None else parse_memory(max_memory)
        if ray is not None and max_memory is None:
            import os

            # The driver's merged tables and the local workers' share this machine.
            limit //= 1 + ((ray_workers or os.cpu_count() or 1) if ray == LOCAL else 1)
    except ValueError as err:
        raise typer.BadParameter(str(err), param_hint="--max-memory") from None
    tree = None
    if deck != "full":
        try:
            tree = build_tree(game, max_nodes=EXACT_CURVE_MAX_NODES)
            typer.echo(f"reduced deck: exploitability measured exactly on its "
                       f"{tree.num_nodes:,}-history tree")
        except ValueError:
            typer.echo("tree too large for exact measurements; training without them")
    progress, task = _progress("mccfr", total=iterations)

    def report(solver, point) -> None:
        progress.update(task, completed=solver.iterations,
                        description=f"mccfr {solver.tables.num_keys:,} keys")
        if point:
            extra = "".join(f", {k} {v:.3e}" for k, v in point.items()
                            if k in ("exploitability", "nash_conv"))
            progress.console.print(f"iteration {point['iteration']:>10,}: "
                                   f"{point['keys']:,} keys{extra} ({point['seconds']:.0f} s)")

    try:
        with progress:
            if ray is None:
                outcome = train(game, abstraction_module.LEVELS[abstraction], iterations,
                                seconds, threads=threads, seed=seed, checkpoint=checkpoint,
                                checkpoint_every=checkpoint_every, resume=resume, tree=tree,
                                max_memory=limit, on_progress=report,
                                log=progress.console.print, warm_start=warm_start)
            else:
                from solver.mccfr.distributed import RayUnavailable, train_ray

                try:
                    outcome = train_ray(
                        game, abstraction_module.LEVELS[abstraction], iterations, seconds,
                        address=None if ray == LOCAL else ray, workers=ray_workers,
                        seed=seed, round_iterations=ray_round, checkpoint=checkpoint,
                        checkpoint_every=checkpoint_every, resume=resume, tree=tree,
                        max_memory=limit, on_progress=report, log=progress.console.print)
                except RayUnavailable as err:
                    raise typer.BadParameter(str(err), param_hint="--ray") from None
    except ValueError as err:
        raise typer.BadParameter(str(err)) from None
    solver = outcome.solver
    ray_info = getattr(solver, "ray_info", None)
    typer.echo(f"{solver.iterations:,} iterations in {solver.seconds:.0f} s (stopped by "
               f"{outcome.stopped_by}); {solver.tables.num_keys:,} keys; "
               f"{solver.nodes_touched / max(solver.seconds, 1e-9):,.0f} nodes/s")
    if outcome.message:
        typer.echo(outcome.message)
    path = out or _default_result_path(game, deck, f"mccfr_{abstraction}",
                                       solver.iterations, ".npz")
    header = export_policy(solver, path, max_keys=max_keys, stopped_by=outcome.stopped_by,
                           curve=outcome.curve, **({"ray": ray_info} if ray_info else {}))
    typer.echo(f"wrote {path} ({path.stat().st_size / 1e6:.1f} MB)")
    if "pruned" in header:
        kept = header["pruned"]
        typer.echo(f"kept the {kept['kept_keys']:,} most visited of {kept['trained_keys']:,} "
                   f"keys ({kept['visit_share_kept']:.2%} of the visits)")
    from solver.reports import files as report_files
    for written in report_files.write(path.parent, report_files.training_curve_files(
            header, path.stem)):
        typer.echo(f"wrote {written}")


LP_MAX_INFOSETS = 5_000


def _lp_value(game, tree) -> float | None:
    """Player 0's game value from OpenSpiel's sequence-form LP, if the tree is small."""
    if tree.num_infosets > LP_MAX_INFOSETS:
        typer.echo(f"sequence-form LP skipped: {tree.num_infosets:,} information states "
                   f"(limit {LP_MAX_INFOSETS:,})")
        return None
    from open_spiel.python.algorithms import sequence_form_lp

    with _status("solving the sequence-form LP"):
        value, _, _, _ = sequence_form_lp.solve_zero_sum_game(game)
    return float(value)


def _status(message: str):
    from rich.console import Console

    return Console(stderr=True).status(message)


def _progress(description: str, total: int | None):
    progress = options.progress_bars()
    return progress, progress.add_task(description, total=total)


def exploit(
    ctx: typer.Context,
    game_name: str = options.game_option(command="exploit"),
    deck: str | None = options.deck_option(None, "A reduced deck: preset or spec. "
                                           "Default: small (sarlaccs_pit: tiny1)."),
    players: int = options.players_option("Number of players (2: exploitability, 3+: "
                                          "NashConv)."),
    agendas: str = typer.Option("all", help="Comma-separated agendas, or 'all' "
                                "(jabbas_palace)."),
    iterations: int = typer.Option(1000, **options.POSITIVE, help="CFR iterations per "
                                   "algorithm."),
    out_dir: Path | None = typer.Option(None, **options.OUTPUT_FOLDER,
                                        help="Folder for the CSV, Markdown, PNG "
                                        "and JSON files. Default: the working directory."),
    ship: bool = typer.Option(False, "--ship", help="Write into results/ of the source "
                              "checkout (not in an installed package)."),
) -> None:
    """Exact exploitability of every heuristic and of CFR-solved policies, per agenda."""
    from spiel_game.cards import AGENDA_NAMES
    from solver import games
    from solver.studies.exploitability import run_study, write_study

    deck = deck or games.adapter(game_name).exploit_deck

    chosen = list(AGENDA_NAMES) if agendas == "all" else [a.strip() for a in
                                                          agendas.split(",")]
    unknown = [a for a in chosen if a not in AGENDA_NAMES]
    if unknown:
        raise typer.BadParameter(f"unknown agenda(s) {unknown}; allowed: "
                                 f"{', '.join(AGENDA_NAMES)} or 'all'")
    out_dir = options.ship_folder(out_dir, "--out-dir") if ship else out_dir or Path(".")
    own = options.own_commands(game_name)
    if own is not None:  # the game's own study (e.g. cli/han_solo.py)
        options.refuse_agendas(ctx, game_name, "agendas")
        own.exploit(deck, players, iterations, out_dir)
        return
    # Validates game, deck and players (and refuses --agendas for a game without agendas).
    loaded = options.load_game(game_name, players, deck, "margin", chosen[0], ctx, "agendas")
    if not loaded.rules.has_agendas:
        chosen = list(loaded.rules.variants)
    study = run_study(deck, players, chosen, iterations, log=typer.echo, game=game_name)
    for path in write_study(study, out_dir):
        typer.echo(f"wrote {path}")
    typer.echo(f"{study.metric} in tokens per round: what best-responding opponents gain "
               f"per round against each policy ({study.seconds:.0f} s in all)")


