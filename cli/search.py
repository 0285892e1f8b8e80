"""`jabba search-exact` and `jabba search-duel`: the decision-time search measured,
exactly on reduced decks and head to head on the full deck (docs/search.md)."""

from __future__ import annotations

import time
from pathlib import Path

import typer

from cli import options

AGENDAS = ("exalted_one", "my_kind_of_scum", "jabbas_court", "rescue_mission")
FULL_COLUMNS = ["players", "agenda", "policy", "opponent", "margin", "low", "high", "deals",
                "search_seconds", "lbr_lower_bound", "lbr_low", "lbr_high"]


def _names(value: str, allowed, option: str) -> list[str]:
    names = list(allowed) if value == "all" else [v.strip() for v in value.split(",")]
    wrong = [n for n in names if n not in allowed]
    if wrong or not names:
        raise typer.BadParameter(f"{value!r}: allowed are 'all' or a comma list of "
                                 f"{', '.join(allowed)}", param_hint=option)
    return names


def _write(out: Path, columns: list[str], rows: list[dict], record: dict) -> None:
    """The record (.json) and the table rendered from it (.csv), both atomically."""
    from solver.provenance import write_atomic, write_json
    from solver.reports.files import table_files

    record = {**record, "columns": columns, "rows": rows}
    write_json(out.with_suffix(".json"), record)
    write_atomic(out, table_files(record, out.stem)[f"{out.stem}.csv"])


def register(app: typer.Typer) -> None:
    @app.command("search-exact")
    def search_exact(
        decks: str = typer.Option("small,medium", help="Reduced presets, comma list."),
        players: int = typer.Option(2, help="Players."),
        agendas: str = typer.Option("all", help="'all' or a comma list of agendas."),
        blueprint_iterations: int = typer.Option(400_000, **options.POSITIVE,
                                                 help="MCCFR iterations of each blueprint."),
        search_iterations: int = typer.Option(100, **options.POSITIVE,
                                              help="Search iterations per decision."),
        dcfr_iterations: int = typer.Option(1000, **options.POSITIVE,
                                            help="Exact DCFR iterations (reference)."),
        seed: int = typer.Option(1, **options.SEED, help="Seed of blueprints and search."),
        top: str = typer.Option("max-margin", help="The subgame's top: max-margin (the "
                                "default, safe), resolve (safe) or unsafe."),
        blueprint_level: str | None = typer.Option(
            None, "--blueprint-level", help="Abstraction of the blueprints (default: the "
            "shipped table's level of each agenda: fine or coarse)."),
        out: Path = typer.Option(Path("search_exact.csv"), "--out", **options.OUTPUT_FILE,
                                 help="CSV file (and a .json sidecar with provenance)."),
    ) -> None:
        """Exact exploitability of the search policy, its blueprint and DCFR on reduced
        decks: the search runs at every information state of the tree."""
        import pyspiel

        from solver.provenance import header
        from solver.search.study import COLUMNS, run

        from solver.search.subgame import TOPS

        from solver.abstraction.keys import LEVELS

        names = _names(agendas, AGENDAS, "--agendas")
        _names(top, TOPS, "--top")
        if blueprint_level is not None:
            _names(blueprint_level, LEVELS, "--blueprint-level")
        start = time.perf_counter()
        rows = []
        for deck in [d.strip() for d in decks.split(",")]:
            try:
                pyspiel.load_game("jabbas_palace", {"deck": deck, "players": players})
            except (ValueError, pyspiel.SpielError) as err:
                raise typer.BadParameter(str(err), param_hint="--decks") from None
            for agenda in names:
                rows += run([deck], players, [agenda], blueprint_iterations,
                            search_iterations, dcfr_iterations, seed, top, blueprint_level,
                            log=typer.echo)
                record = header({"deck": decks, "players": players, "agenda": names,
                                 "utility": "margin"},
                                seconds=time.perf_counter() - start,
                                what="exact exploitability of the decision-time search",
                                algorithm=f"1-KLSS search, {top} top, DCFR",
                                blueprint="external-sampling MCCFR at the shipped level",
                                blueprint_iterations=blueprint_iterations,
                                search_iterations=search_iterations,
                                dcfr_iterations=dcfr_iterations, seed=seed, rows=rows)
                _write(out, COLUMNS, rows, record)  # after every row: Ctrl-C keeps them
        typer.echo(f"wrote {out} ({time.perf_counter() - start:.0f} s)")

    @app.command("search-duel")
    def search_duel(
        players: int = typer.Option(2, help="Players."),
        agendas: str = typer.Option("all", help="'all' or a comma list of agendas."),
        opponents: str = typer.Option("agenda_expert,table", help="Comma list: 'table' "
                                      "(the shipped table) or heuristic names."),
        deals: int = typer.Option(200, **options.POSITIVE, help="Duplicate deals."),
        search_iterations: int = typer.Option(32, **options.POSITIVE,
                                              help="Search iterations per decision."),
        max_nodes: int = typer.Option(30_000, **options.POSITIVE,
                                      help="Subgame node budget per decision."),
        seed: int = typer.Option(3, **options.SEED, help="Seed of the deals."),
        search_seed: int = typer.Option(1, "--search-seed", **options.SEED,
                                        help="Seed of the search's leaf rollouts."),
        out: Path = typer.Option(Path("search_full.csv"), "--out", **options.OUTPUT_FILE,
                                 help="CSV file (and a .json sidecar with provenance)."),
    ) -> None:
        """The search against the shipped table and heuristics on the full deck, over
        duplicate deals, with a reduced per-decision budget."""
        import pyspiel

        from solver.hint.advice import load_policies
        from solver.policies.compiled import build_bank
        from solver.provenance import header
        from solver.search.evaluate import play_deals
        from solver.search.policy import SearchPolicy
        from solver.search.resolve import SearchLimits

        names = _names(agendas, AGENDAS, "--agendas")
        limits = dict(iterations=search_iterations, max_nodes=max_nodes,
                      rollout_budget=4000, max_roots=150)
        start = time.perf_counter()
        rows = []
        for agenda in names:
            game = pyspiel.load_game("jabbas_palace", {"players": players, "agenda": agenda})
            policies = load_policies(game)
            if not policies.paths:
                raise typer.BadParameter(f"no shipped table for {players} players, "
                                         f"{agenda}: the search needs a blueprint",
                                         param_hint="--agendas")
            for opponent in [o.strip() for o in opponents.split(",")]:
                try:
                    bank = build_bank([str(policies.paths[0]) if opponent == "table"
                                       else opponent], game)
                except ValueError as err:
                    raise typer.BadParameter(str(err), param_hint="--opponents") from None
                policy = SearchPolicy(game, policies, SearchLimits(**limits), search_seed)
                estimate, info = play_deals(game, policy, bank, 0, deals, seed)
                rows.append({"players": players, "agenda": agenda, "policy": "search",
                             "opponent": opponent, "margin": estimate.mean,
                             "low": estimate.low, "high": estimate.high, "deals": deals,
                             "search_seconds": info["search_seconds"], **info})
                typer.echo(f"{agenda}: search v {opponent} {estimate} per round "
                           f"({deals} deals, {info['seconds']:.0f} s)")
                record = header({"deck": "full", "players": players, "agenda": names,
                                 "utility": "margin"},
                                seconds=time.perf_counter() - start,
                                what="the decision-time search head to head, duplicate deals",
                                algorithm="1-KLSS search with a max-margin gadget, DCFR",
                                search_limits=limits, seed=seed, search_seed=search_seed,
                                rows=rows)
                _write(out, FULL_COLUMNS, rows, record)
        typer.echo(f"wrote {out} ({time.perf_counter() - start:.0f} s)")
