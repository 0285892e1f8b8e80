"""`jabba tournament`, `jabba lbr`, `jabba evaluate`: evidence of strength on the full game.

Thin: parse and validate, call solver.tournament / solver.lbr / solver.evaluation, render.
"""

from __future__ import annotations

import math
from pathlib import Path

import typer

from cli import options

DEFAULT_POLICIES = "table,agenda_expert,card_counter,keep_higher,keep_lower,uniform"


def register(app: typer.Typer) -> None:
    """Add the evaluation commands to the `jabba` app."""
    app.command()(tournament)
    app.command()(lbr)
    app.command()(evaluate)


def _bank(policies: list[str], game, deck: str, agenda: str, players: int):
    from solver.policies.compiled import build_bank
    from solver.evaluation.report import resolve_policies

    try:
        labels, specs = resolve_policies(policies, deck, agenda, players)
        return build_bank(specs, game, labels)
    except ValueError as err:
        raise typer.BadParameter(str(err)) from None


def tournament(
    ctx: typer.Context,
    game_name: str = options.game_option(command="tournament"),
    players: int = options.players_option("Number of players, 2 to 6."),
    agenda: str = options.agenda_option(),
    deck: str = options.deck_option(),
    policies: str = typer.Option(DEFAULT_POLICIES, show_default=False,
                                 help="Comma-separated: 'table' (the "
                                 "shipped table policy of this game), heuristics, or "
                                 "policy files (.npz). Default: 'table' if shipped and "
                                 "the game's heuristics (love_letter: classic_expert "
                                 "for agenda_expert)."),
    deals: int = typer.Option(20_000, **options.COUNT, help="Duplicate deals per cell "
                              "(each played once per seating)."),
    matches: int = typer.Option(1_000, **options.COUNT, help="Matches to the token goal "
                                "per cell (each played once per seating)."),
    seed: int = typer.Option(1, **options.SEED, help="Seed of the deals and of every "
                             "random choice."),
    diagonal: bool = typer.Option(True, help="Also play each policy against itself."),
    out: Path | None = typer.Option(None, **options.OUTPUT_FILE, help="Write OUT.json, "
                                    "OUT.csv and OUT.md (atomically)."),
) -> None:
    """Play policies against each other: duplicate deals, margins and match-win rates
    with 95% intervals."""
    from solver import games, provenance
    from solver.evaluation import report as evaluation
    from solver.evaluation.tournament import play_cross_table
    from solver.reports import csv as report_csv
    from solver.reports import markdown as report_markdown
    from spiel_game.game import variant

    if deals + matches == 0:
        raise typer.BadParameter("--deals and --matches are both 0; give at least one "
                                 "of them above 0", param_hint="--deals")
    game = options.load_game(game_name, players, deck, "margin", agenda, ctx)
    own = options.own_commands(game_name)
    if own is not None:  # the game's own players and tournament (e.g. cli/han_solo.py)
        options.refuse_lacking(ctx, game_name, ("matches", "match"))
        own.tournament(game, None if policies == DEFAULT_POLICIES else policies,
                       deals, seed, diagonal, out)
        return
    agenda = variant(game)  # what names its shipped table and its rows
    names = [p.strip() for p in policies.split(",") if p.strip()]
    if policies == DEFAULT_POLICIES:
        names = [evaluation.TABLE, *games.adapter(game_name).heuristics()]
        if evaluation.shipped_table(deck, agenda, players) is None:
            names.remove(evaluation.TABLE)
    if len(names) < 1:
        raise typer.BadParameter("give at least one policy")
    bank = _bank(names, game, deck, agenda, players)
    with options.progress_bars() as progress:
        table = play_cross_table(game, bank, deals, matches, seed, diagonal,
                                 on_progress=options.tracker(progress))
    rows = evaluation.crosstable_rows(table, bank, agenda)
    _print_crosstable(rows, players, agenda)
    rounds = sum(r.rounds for r in table.cells.values())
    seconds = sum(r.seconds for r in table.cells.values())
    typer.echo(f"{rounds:,} rounds and {sum(len(r.wins) for r in table.cells.values()):,} "
               f"matches in {seconds:.1f} s" + (" (interrupted)" if table.interrupted else ""))
    for name, spec in zip(bank.names, bank.specs):
        miss = table.miss_rate(name)
        if not math.isnan(miss):  # a table policy
            typer.echo(f"{name} ({spec}): {100 * miss:.2f}% of its decisions missing from "
                       "the table (played uniformly)")
    if out:
        which = " ".join(provenance.game_flags(game_name, agenda))
        command = (f"jabba tournament --players {players} {which} --deck {deck} "
                   f"--policies {policies} --deals {deals} --matches {matches} --seed {seed}")
        record = {**provenance.header(game, seconds=seconds, command=command),
                  "what": "tournament (duplicate deals)",
                  "policies": {name: evaluation.recorded_spec(spec)
                               for name, spec in zip(bank.names, bank.specs)},
                  "deals": deals, "matches": matches, "seed": seed,
                  "interrupted": table.interrupted, "rows": rows}
        provenance.write_json(out.with_suffix(".json"), record)
        provenance.write_atomic(out.with_suffix(".csv"), report_csv.crosstable(rows).encode())
        provenance.write_atomic(out.with_suffix(".md"),
                                report_markdown.crosstable(record).encode())
        typer.echo(f"wrote {out.with_suffix('.json')}, .csv, .md")


def _print_crosstable(rows: list[dict], players: int, agenda: str) -> None:
    from rich.console import Console
    from rich.table import Table

    from solver.reports.markdown import crosstable_cells, format_ci

    policies, cells = crosstable_cells(rows, players, agenda)
    for what, percent, title in (("margin", False, "mean margin per round (row v column)"),
                                 ("win_rate", True, "match-win rate (row v column)")):
        if all(cell[what] is None for cell in cells.values()):
            continue  # no matches played
        table = Table(title=f"{agenda}, {players} players: {title}")
        table.add_column("")
        for name in policies:
            table.add_column(name, justify="right")
        for a in policies:
            table.add_row(a, *[format_ci(cells[(a, b)][what], percent=percent)
                               if (a, b) in cells else "—" for b in policies])
        Console().print(table)


def lbr(
    ctx: typer.Context,
    policy: str = typer.Option(..., help="'table' (the shipped table policy of this game), "
                               "a heuristic, or a policy file (.npz)."),
    game_name: str = options.game_option(command="lbr"),
    players: int = options.players_option(),
    agenda: str = options.agenda_option(),
    deck: str = options.deck_option(),
    deals: int = typer.Option(2_000, **options.POSITIVE, help="Duplicate deals (LBR plays "
                              "each in every seat)."),
    rollouts: int = typer.Option(64, **options.POSITIVE, help="Rollouts per action at each "
                                 "LBR decision."),
    continuation: str | None = typer.Option(None, help="Policy everybody follows in "
                                               "the rollouts (default: the policy)."),
    max_particles: int = typer.Option(4096, **options.POSITIVE, help="Cap on the belief's "
                                      "particles."),
    seed: int = typer.Option(1, **options.SEED, help="Seed of the deals and of every "
                             "random choice."),
    exact: bool = typer.Option(False, help="Reduced decks: also compute LBR's value and "
                               "the exploitability exactly on the whole tree."),
    out: Path | None = typer.Option(None, **options.OUTPUT_FILE, help="Write the result as "
                                    "JSON (atomically)."),
) -> None:
    """A lower bound on a policy's exploitability: a local best response plays it."""
    from solver import provenance
    from solver.evaluation.lbr import exact_lbr_value, run_lbr
    from solver.evaluation.report import recorded_spec
    from spiel_game.game import variant

    if exact and deck == "full":
        raise typer.BadParameter("--exact needs a reduced deck: the full game's tree is far "
                                 "too large")
    game = options.load_game(game_name, players, deck, "margin", agenda, ctx)
    own = options.own_commands(game_name)
    if own is not None:  # the game's own players and LBR (e.g. cli/han_solo.py)
        options.refuse_lacking(ctx, game_name, ("continuation", "policy_bank"),
                               ("exact", "policy_bank"))
        own.lbr(game, policy, deals, rollouts, max_particles, seed, out, print_bound)
        return
    agenda = variant(game)
    names = [policy] + ([continuation] if continuation and continuation != policy else [])
    bank = _bank(names, game, deck, agenda, players)
    cont = 1 if len(names) > 1 else 0  # the continuation's index in the bank
    with options.progress_bars() as progress:
        update = options.tracker(progress)
        result = run_lbr(game, bank, 0, deals, seed, rollouts, cont, max_particles,
                         on_progress=lambda done, total: update("LBR deals", done, total))
    bound = result.lower_bound()
    metric = result.metric
    print_bound(result, f"{bank.names[0]} ({bank.specs[0]})", players, "tokens")
    b = result.belief_stats
    typer.echo(f"belief: {b['decisions']:,} decisions, up to {b['most_particles']:,} "
               f"particles, cap reached {b['truncated']:,} times, lost {b['lost']}")
    record = {**provenance.header(game, seconds=result.seconds),
              "what": f"local best response lower bound on {metric}",
              "policy": bank.names[0], "spec": recorded_spec(bank.specs[0]),
              "deals": result.deals, "rollouts": rollouts,
              "continuation": result.continuation, "max_particles": max_particles,
              "seed": seed, metric: bound.to_dict(),
              "per_seat": [e.to_dict() for e in result.per_seat()], "belief": b,
              "interrupted": result.interrupted}
    if exact:
        from solver.exact.tree import build_tree

        try:
            tree = build_tree(game, max_nodes=3_000_000)
        except ValueError as err:
            raise typer.BadParameter(str(err)) from None
        comparison = exact_lbr_value(tree, bank, 0, seed, rollouts, cont, max_particles)
        typer.echo(f"exact on the tree: {metric} {comparison.exact:.4f}; LBR's exact value "
                   f"{comparison.lbr:.4f} ({comparison.tightness:.0%} of it)")
        record["exact"] = {metric: comparison.exact, "lbr": comparison.lbr,
                           "tightness": comparison.tightness}
    if out:
        provenance.write_json(out, record)
        typer.echo(f"wrote {out}")


def print_bound(result, against: str, players: int, unit: str) -> None:
    """An LBR run's lower bound (solver.evaluation.lbr.LBRResult), seat by seat."""
    bound = result.lower_bound()
    typer.echo(f"LBR against {against}, {result.deals:,} deals x {players} seats in "
               f"{result.seconds:.1f} s" + (" (interrupted)" if result.interrupted else ""))
    for seat, e in enumerate(result.per_seat()):
        typer.echo(f"  LBR in seat {seat}: margin {e} {unit} per round")
    typer.echo(f"{result.metric} >= {bound.mean:.4f} {unit} per round (95% interval "
               f"{bound.low:.4f} to {bound.high:.4f})")


def evaluate(
    ctx: typer.Context,
    game_name: str = options.game_option(),
    parts: str = typer.Option("all", help="Comma-separated: crosstable, lbr, validation, "
                              "or 'all'."),
    agendas: str = typer.Option("all", help="Comma-separated agendas, or 'all' "
                                "(jabbas_palace)."),
    players: str = typer.Option("2,3", help="Player counts: 2 and/or 3."),
    scale: float = typer.Option(1.0, **options.POSITIVE_REAL, help="Multiply every sample "
                                "size (e.g. 0.05 for a quick look)."),
    seed: int = typer.Option(1, **options.SEED, help="Seed of every part."),
    validation_decks: str = typer.Option("small,medium", help="Reduced decks of the "
                                         "validation (the first also with 3 players)."),
    out_dir: Path | None = typer.Option(None, **options.OUTPUT_FOLDER,
                                        help="Folder for the evaluation_* files "
                                        "(evaluation_love_letter_* for love_letter). "
                                        "Default: the working directory."),
    ship: bool = typer.Option(False, "--ship", help="Write into results/ of the source "
                              "checkout (not in an installed package)."),
) -> None:
    """The evaluation report: cross-tables, LBR lower bounds on the full game, and their
    validation on reduced decks (results/evaluation_report.md)."""
    import shlex

    from solver.evaluation import report as evaluation
    from solver.reports import files as report_files

    chosen = list(evaluation.PARTS) if parts == "all" else [p.strip() for p in
                                                            parts.split(",")]
    unknown = [p for p in chosen if p not in evaluation.PARTS]
    if unknown:
        raise typer.BadParameter(f"unknown part(s) {unknown}; allowed: "
                                 f"{', '.join(evaluation.PARTS)} or 'all'")
    decks = tuple(d.strip() for d in validation_decks.split(",") if d.strip())
    if not decks or "full" in decks:
        raise typer.BadParameter("validation decks must be reduced decks, e.g. small,medium")
    options.refuse_agendas(ctx, game_name, "agendas")
    try:
        settings = evaluation.parse_settings(agendas, players, game=game_name, seed=seed,
                                             validation_decks=decks)
        for deck in decks:
            evaluation.load_game(2, settings.agendas[0], deck, game_name)
    except ValueError as err:
        raise typer.BadParameter(str(err)) from None
    if scale != 1:
        settings = settings.scaled(scale)
    flags = [f"--{name} {shlex.quote(str(value))}" for name, value, default in (
        ("game", game_name, options.GAMES[0]),
        ("agendas", agendas, "all"), ("players", players, "2,3"), ("scale", scale, 1.0),
        ("seed", seed, 1), ("validation-decks", validation_decks, "small,medium"),
        ("out-dir", out_dir, None)) if value != default] + (["--ship"] if ship else [])
    out_dir = options.ship_folder(out_dir, "--out-dir") if ship else out_dir or Path(".")
    for part in chosen:
        command = " ".join(["jabba evaluate --parts", part, *flags])
        with options.progress_bars() as progress:
            paths = evaluation.run_part(part, settings, out_dir, command,
                                        log=progress.console.print,
                                        progress=options.tracker(progress))
        for path in paths:
            typer.echo(f"wrote {path}")
    typer.echo(f"wrote {report_files.write_evaluation_report(out_dir, settings.prefix)}")
