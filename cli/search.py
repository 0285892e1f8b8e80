"""`jabba search-exact` and `jabba search-duel`: the decision-time search measured,
exactly on reduced decks and head to head on the full deck (docs/search.md)."""

from __future__ import annotations

import datetime
import functools
import time
from pathlib import Path

import typer

from cli import options
from spiel_game.cards import RULESET_OF_GAME

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
    from solver.reports.files import write_table

    write_table(out, {**record, "columns": columns, "rows": rows})


def _started() -> str:
    """When this run started: the id that ties its rows to its part of the record (to
    the microsecond, so that two runs in one second stay apart)."""
    return datetime.datetime.now(datetime.timezone.utc).isoformat(timespec="microseconds")


def _exact_row_id(row: dict) -> tuple:
    return (row["deck"], row["players"], row["agenda"], row.get("search_top", "max-margin"),
            row.get("search_leaves") or "single", row.get("search_max_nodes", 100_000))


def _duel_row_id(row: dict) -> tuple:
    return row["players"], row["agenda"], row["policy"], row["opponent"]


def _lbr_opponent(opponent: str, game, bank, search_policy, seed: int, searches: int | None):
    """A fresh LBR player for `opponent` 'lbr' (belief and rollouts by `bank`'s table) or
    'search-lbr' (belief by a search made by `search_policy()`), else None."""
    from solver.search.evaluate import DEFAULT_LBR_SEARCHES, LBRPlayer, SearchAwareLBR

    if searches is None:
        searches = DEFAULT_LBR_SEARCHES
    if opponent == "lbr":
        return LBRPlayer(game, bank, seed=seed)
    if opponent == "search-lbr":
        return SearchAwareLBR(game, search_policy(), seed=seed, max_searches=searches)
    return None


def _variants(ctx: typer.Context, game_name: str, agendas: str) -> list[str]:
    """The study's variants: the game's agendas, or the game itself for one without
    agendas (an --agendas given then is refused)."""
    rules = RULESET_OF_GAME[game_name]
    if rules.has_agendas:
        return _names(agendas, rules.agendas, "--agendas")
    options.refuse_agendas(ctx, game_name, "agendas")
    return list(rules.variants)


def _params(game_name: str, deck: str, players: int, names: list[str]) -> dict:
    """The provenance header's game parameters of a study over `names`."""
    params = {"deck": deck, "players": players, "utility": "margin"}
    if RULESET_OF_GAME[game_name].has_agendas:
        params["agenda"] = names
    return params


def register(app: typer.Typer) -> None:
    @app.command("search-exact")
    def search_exact(
        ctx: typer.Context,
        game_name: str = options.game_option(),
        decks: str = typer.Option("small,medium", help="Reduced presets, comma list."),
        players: int = options.players_option("Players."),
        agendas: str = typer.Option("all", help="'all' or a comma list of agendas."),
        blueprint_iterations: int = typer.Option(400_000, **options.POSITIVE,
                                                 help="MCCFR iterations of each blueprint."),
        search_iterations: int = typer.Option(100, **options.POSITIVE,
                                              help="Search iterations per decision."),
        max_nodes: int = typer.Option(100_000, **options.POSITIVE,
                                      help="Subgame node budget per decision (smaller: "
                                      "depth-limited subgames, as early on the full deck)."),
        dcfr_iterations: int = typer.Option(1000, **options.POSITIVE,
                                            help="Exact DCFR iterations (reference)."),
        lbr_deals: int = typer.Option(0, min=0, help="With more than 0 (2 players): the "
                                      "search-aware LBR too, exactly and over this many "
                                      "duplicate deals (docs/search.md)."),
        seed: int = typer.Option(1, **options.SEED, help="Seed of blueprints and search."),
        top: str = typer.Option("max-margin", help="The subgame's top, or a comma list "
                                "(a row each): max-margin (the default, safe), resolve "
                                "(safe), unsafe, blend (unsafe and resolve side by side), "
                                "max-margin-refined or resolve-refined (the gadgets with "
                                "trembles; docs/search.md)."),
        leaves: str = typer.Option("single", help="Depth-limit leaves, or a comma list (a "
                                   "row each): single (blueprint rollouts), multi (the "
                                   "opponent picks among the blueprint and its biased "
                                   "versions) or multi-heuristic (among the blueprint and "
                                   "three heuristics)."),
        blueprint_level: str | None = typer.Option(
            None, "--blueprint-level", help="Abstraction of the blueprints (default: fine for "
            "Exalted One and My Kind of Scum, coarse for the others, the levels of the "
            "2-player tables when results/search_exact.csv was made)."),
        out: Path = typer.Option(Path("search_exact.csv"), "--out", **options.OUTPUT_FILE,
                                 help="CSV file (and a .json sidecar with provenance); "
                                 "an earlier one's rows for other decks, players or "
                                 "agendas are kept, with their commands."),
    ) -> None:
        """Exact exploitability of the search policy, its blueprint and DCFR on reduced
        decks: the search runs at every information state of the tree."""
        import pyspiel

        from solver.provenance import header
        from solver.reports.records import write_merged
        from solver.studies.search_exact import COLUMNS, reduced_game, run

        from solver.search.subgame import LEAVES, TOPS

        from solver.abstraction.keys import LEVELS

        names = _variants(ctx, game_name, agendas)
        tops = _names(top, TOPS, "--top")
        leaf_kinds = _names(leaves, LEAVES, "--leaves")
        if blueprint_level is not None:
            _names(blueprint_level, LEVELS, "--blueprint-level")
        start = time.perf_counter()
        started = _started()
        rows = []
        for deck in [d.strip() for d in decks.split(",")]:
            try:
                reduced_game(game_name, deck, players, names[0])
            except (ValueError, pyspiel.SpielError) as err:
                raise typer.BadParameter(str(err), param_hint="--decks") from None
            for agenda in names:
                done = list(rows)

                def write(new_rows, done=done):
                    """After every row: Ctrl-C keeps them."""
                    record = header(
                        _params(game_name, decks, players, names), game_name=game_name,
                        seconds=time.perf_counter() - start,
                        what="exact exploitability (NashConv with 3 players) of the "
                        "decision-time search, its blueprint and DCFR",
                        algorithm=f"1-KLSS search, {top} top with 2 players (unsafe with "
                        f"3), {leaves} leaves, DCFR",
                        blueprint="external-sampling MCCFR, study level "
                        "(solver/studies/search_exact.py)",
                        blueprint_iterations=blueprint_iterations,
                        search_iterations=search_iterations, search_max_nodes=max_nodes,
                        dcfr_iterations=dcfr_iterations, seed=seed, rows=done + new_rows)
                    write_merged(out, COLUMNS, done + new_rows, record, _exact_row_id,
                                 started, {"utility": "margin"}, game_name)

                rows += run([deck], players, [agenda], blueprint_iterations,
                            search_iterations, dcfr_iterations, seed, tuple(tops),
                            blueprint_level, log=typer.echo, game_name=game_name,
                            leaves=tuple(leaf_kinds), max_nodes=max_nodes,
                            lbr_deals=lbr_deals, on_row=write)
        typer.echo(f"wrote {out} ({time.perf_counter() - start:.0f} s)")

    @app.command("search-duel")
    def search_duel(
        ctx: typer.Context,
        game_name: str = options.game_option(),
        players: int = options.players_option("Players."),
        agendas: str = typer.Option("all", help="'all' or a comma list of agendas "
                                    "(--game jabbas_palace only)."),
        opponents: str | None = typer.Option(
            None, help="Comma list: 'table' (the shipped table), heuristic names, or "
            "'lbr' (a local best response built on the table: a lower bound on the "
            "search's exploitability; 2 players; the table meets the same LBR), or "
            "'search-lbr' (one whose belief models the search itself; 2 players) "
            "(default: the game's best heuristic, agenda_expert or classic_expert, and "
            "table)."),
        deals: int = typer.Option(200, **options.POSITIVE, help="Duplicate deals."),
        search_iterations: int = typer.Option(32, **options.POSITIVE,
                                              help="Search iterations per decision."),
        max_nodes: int = typer.Option(30_000, **options.POSITIVE,
                                      help="Subgame node budget per decision."),
        search_seconds: float | None = typer.Option(
            None, min=0.01, help="Time the search as the hint does: this many seconds per "
            "decision with the hint's limits (SearchLimits' defaults), instead of "
            "--search-iterations and --max-nodes (rows name the policy search@Ss)."),
        lbr_searches: int | None = typer.Option(
            None, min=1, help="search-lbr: the searcher's information states searched at "
            "each of its decisions (the heaviest of LBR's belief; the rest are weighed by "
            "the table) (default: 8, DEFAULT_LBR_SEARCHES in solver/search/evaluate.py)."),
        seed: int = typer.Option(3, **options.SEED, help="Seed of the deals."),
        search_seed: int = typer.Option(1, "--search-seed", **options.SEED,
                                        help="Seed of the search's leaf rollouts."),
        top: str = typer.Option("max-margin", help="The subgame's top, as search-exact's; "
                                "rows of another than max-margin name the policy "
                                "search-TOP."),
        leaves: str = typer.Option("single", help="Depth-limit leaves: single, multi or "
                                   "multi-heuristic, as search-exact's (rows with multi "
                                   "leaves name the policy search-TOP-LEAVES)."),
        out: Path = typer.Option(Path("search_full.csv"), "--out", **options.OUTPUT_FILE,
                                 help="CSV file (and a .json sidecar with provenance); "
                                 "an earlier one's rows for other players, agendas, "
                                 "policies or opponents are kept, with their commands."),
    ) -> None:
        """The search against the shipped table and heuristics on the full deck, over
        duplicate deals, with a reduced per-decision budget."""
        from solver.policies.chain import default_heuristic, load_policies
        from solver.policies.compiled import build_bank
        from solver.provenance import header
        from solver.reports.records import write_merged
        from solver.search.evaluate import BlueprintPolicy, SearchAwareLBR, play_deals
        from solver.search.policy import SearchPolicy
        from solver.search.resolve import SearchLimits


        from solver.search.subgame import TOPS

        from solver.search.subgame import LEAVES

        _names(top, TOPS, "--top")
        _names(leaves, LEAVES, "--leaves")
        searcher = "search" if top == "max-margin" else f"search-{top}"
        if leaves != "single":
            searcher = f"search-{top}-{leaves}"
        names = _variants(ctx, game_name, agendas)
        limits = dict(iterations=search_iterations, max_nodes=max_nodes,
                      rollout_budget=4000, max_roots=150)
        if search_seconds is not None:  # what the hint runs: its limits, timed
            options.exclusive(ctx, "search_seconds", "search_iterations")
            options.exclusive(ctx, "search_seconds", "max_nodes")
            if any(o.strip() == "search-lbr" for o in (opponents or "").split(",")):
                raise typer.BadParameter("search-lbr models a search of a fixed number of "
                                         "iterations (its bound needs the searcher's "
                                         "answers repeated); give --search-iterations",
                                         param_hint="--search-seconds")
            limits = dict(seconds=search_seconds)
            searcher = f"{searcher}@{search_seconds:g}s"
        start = time.perf_counter()
        started = _started()
        rows = []
        for agenda in names:
            game = options.load_game(game_name, players, "full",
                                     agenda=RULESET_OF_GAME[game_name].agenda_of(agenda))
            if opponents is None:
                opponents = f"{default_heuristic(game)},table"
            policies = load_policies(game)
            if not policies.paths:
                raise typer.BadParameter(f"no shipped table for {players} players, "
                                         f"{agenda}: the search needs a blueprint",
                                         param_hint="--agendas")
            for opponent in [o.strip() for o in opponents.split(",")]:
                search_policy = functools.partial(SearchPolicy, game, policies,
                                                  SearchLimits(**limits), search_seed, top,
                                                  leaves=leaves)
                try:
                    bank = build_bank([str(policies.paths[0])
                                       if opponent in ("table", "lbr", "search-lbr")
                                       else opponent], game)
                    player = _lbr_opponent(opponent, game, bank, search_policy, seed,
                                           lbr_searches)
                except ValueError as err:
                    raise typer.BadParameter(str(err), param_hint="--opponents") from None
                seated = {searcher: search_policy()}
                if opponent == "lbr":  # the table against the same LBR on the same deals
                    seated["table"] = BlueprintPolicy(policies)
                for name, policy in seated.items():
                    player = _lbr_opponent(opponent, game, bank, search_policy, seed,
                                           lbr_searches)
                    with options.progress_bars() as bars:
                        estimate, info = play_deals(
                            game, policy, bank, 0, deals, seed, player=player,
                            progress=functools.partial(options.tracker(bars),
                                                       f"{agenda}: {name} v {opponent}"))
                    row = {"players": players, "agenda": agenda, "policy": name,
                           "opponent": opponent, "margin": estimate.mean,
                           "low": estimate.low, "high": estimate.high,
                           "search_seconds": info["search_seconds"],
                           "blueprint": policies.paths[0].name, **info}
                    if player is not None:  # LBR's margin is the policy's loss
                        row.update(lbr_lower_bound=0.0 - estimate.mean,
                                   lbr_low=0.0 - estimate.high, lbr_high=0.0 - estimate.low,
                                   lbr_belief=player.belief,
                                   lbr="belief and rollouts by the shipped table, 64 "
                                   "rollouts per action")
                    if isinstance(player, SearchAwareLBR):
                        row.update(lbr=f"belief by the search (at most {player.max_searches} "
                                   "searched information states of the searcher's per "
                                   "decision, the rest by the shipped table), rollouts "
                                   "by the shipped table, 64 per action",
                                   lbr_model=player.report())
                    rows.append(row)
                    stopped = " (interrupted)" if info["interrupted"] else ""
                    typer.echo(f"{agenda}: {name} v {opponent} {estimate} per round "
                               f"({info['deals']} deals, {info['seconds']:.0f} s){stopped}")
                    if info["interrupted"]:
                        break
                record = header({}, game_name=game_name, seconds=time.perf_counter() - start,
                                what="the decision-time search head to head, duplicate deals",
                                algorithm=f"1-KLSS search, {top} top, {leaves} leaves, "
                                "DCFR",
                                search_limits=limits, seed=seed, search_seed=search_seed)
                write_merged(out, FULL_COLUMNS, rows, record, _duel_row_id, started,
                             {"deck": "full", "utility": "margin"}, game_name)
                if info["interrupted"]:
                    typer.echo(f"interrupted: wrote {out} with the deals finished")
                    raise typer.Exit(130)
        typer.echo(f"wrote {out} ({time.perf_counter() - start:.0f} s)")

    @app.command("exploit-known")
    def exploit_known(
        ctx: typer.Context,
        game_name: str = options.game_option(),
        deck: str = typer.Option("small", help="A reduced preset (exact values), or full "
                                 "(duplicate deals against the shipped table)."),
        agendas: str = typer.Option("exalted_one", help="'all' or a comma list of agendas."),
        opponents: str = typer.Option("all", help="'all' (keep_higher, keep_lower, "
                                      "card_counter and the game's expert) or a comma list "
                                      "of them: the known opponents."),
        confidence: float = typer.Option(0.5, min=0.0, max=1.0,
                                         help="The safe mode's weight on the model "
                                         "(restricted Nash response)."),
        blueprint_iterations: int = typer.Option(400_000, **options.POSITIVE,
                                                 help="MCCFR iterations of the blueprint."),
        search_iterations: int = typer.Option(100, **options.POSITIVE,
                                              help="DCFR iterations of the safe search."),
        seed: int = typer.Option(1, **options.SEED, help="Seed of blueprint and search "
                                 "(full deck: of the deals)."),
        deals: int = typer.Option(100, **options.POSITIVE, help="Full deck: duplicate "
                                  "deals per opponent and mode."),
        out: Path = typer.Option(Path("exploit_known.csv"), "--out", **options.OUTPUT_FILE,
                                 help="CSV file (and a .json sidecar with provenance)."),
    ) -> None:
        """Exploiting a known heuristic opponent, exactly on a reduced deck: the gain of
        the node-locked search (best response and safe) over the blueprint, and its
        exploitability."""
        import pyspiel

        from solver.provenance import header
        from solver.studies.exploit_known import COLUMNS, heuristics_of, run, run_full
        from solver.studies.search_exact import reduced_game

        names = _variants(ctx, game_name, agendas)
        known = _names(opponents, heuristics_of(game_name), "--opponents")
        if not 0.0 < confidence < 1.0:
            raise typer.BadParameter(f"{confidence}: the safe mode's weight is strictly "
                                     "between 0 and 1", param_hint="--confidence")
        try:
            reduced_game(game_name, deck, 2, names[0])
        except (ValueError, pyspiel.SpielError) as err:
            raise typer.BadParameter(str(err), param_hint="--deck") from None
        start = time.perf_counter()
        rows = []
        full_limits = dict(iterations=search_iterations, max_nodes=30_000,
                           rollout_budget=4000, max_roots=150)
        for agenda in names:
            if deck == "full":
                from solver.policies.chain import load_policies
                from solver.search.resolve import SearchLimits

                game = reduced_game(game_name, deck, 2, agenda)
                policies = load_policies(game)
                if not policies.paths:
                    raise typer.BadParameter(f"no shipped table for 2 players, {agenda}",
                                             param_hint="--agendas")
                rows += run_full(game, policies, known, confidence, deals, seed, 1,
                                 SearchLimits(**full_limits), log=typer.echo)
            else:
                rows += run(deck, agenda, known, confidence, blueprint_iterations,
                            search_iterations, seed, log=typer.echo, game_name=game_name)
            record = header(_params(game_name, deck, 2, names), game_name=game_name,
                            seconds=time.perf_counter() - start,
                            what="exploiting a known opponent: node-locked search, exact",
                            algorithm="1-KLSS search with the opponent locked to its model: "
                            "exact best response, or a restricted Nash response by DCFR",
                            blueprint="external-sampling MCCFR, study level "
                            "(solver/studies/search_exact.py)",
                            blueprint_iterations=blueprint_iterations,
                            search_iterations=search_iterations, confidence=confidence,
                            seed=seed, rows=rows,
                            **({"search_limits": full_limits, "deals": deals}
                               if deck == "full" else {}))
            _write(out, COLUMNS, rows, record)  # after every agenda: Ctrl-C keeps them
        typer.echo(f"wrote {out} ({time.perf_counter() - start:.0f} s)")
