"""`jabba match-table`: the match values V(standings, starter) of a game; `jabba
match-duel`: the match-aware policy against the margin one, exactly on a reduced deck or
sampled on the full deck (docs/match.md)."""

from __future__ import annotations

import time
from pathlib import Path

import typer

from cli import options
from spiel_game.cards import AGENDA_GAMES, AGENDAS


def register(app: typer.Typer) -> None:
    app.command("match-table")(match_table)
    app.command("match-duel")(match_duel)


def _grid(values, starter: int) -> str:
    """Seat 0's match-win probability (%) for 2 players: seat 0's tokens down, seat 1's
    across, `starter` to start the next round."""
    goal = values.goal
    lines = ["me \\ opp " + "".join(f"{b:>7}" for b in range(goal))]
    for a in range(goal):
        lines.append(f"{a:>9} " + "".join(f"{100 * values.win[a, b, starter, 0]:>6.1f}%"
                                         for b in range(goal)))
    return "\n".join(lines)


def match_table(
    ctx: typer.Context,
    game_name: str = options.game_option(),
    players: int = options.players_option("Number of players, 2 to 6."),
    agenda: str = options.agenda_option(),
    deck: str = options.deck_option(),
    goal: int | None = typer.Option(None, **options.POSITIVE, help="Token goal of the "
                                    "match. Default: R14's, 6/5/4/3/3 for 2/3/4/5/6 "
                                    "players."),
    rounds: int = typer.Option(50_000, **options.POSITIVE, help="Rounds counted per "
                               "starter for the outcome distribution."),
    draws: int = typer.Option(200, **options.COUNT, help="Posterior draws of the outcome "
                              "distribution for the 95% intervals (0: none)."),
    seed: int = typer.Option(1, **options.SEED, help="Seed of the rounds and the draws."),
    policy: str = typer.Option("table", help="The policy at every seat: 'table' (the "
                               "game's shipped table), a heuristic or a policy file "
                               "(.npz); or a comma list, one per seat."),
    out: Path | None = typer.Option(None, **options.OUTPUT_FILE, help="Write OUT (CSV: a "
                                    "row per standings and starter) and its .json record "
                                    "(provenance, outcome counts, intervals), atomically."),
) -> None:
    """Match values: each player's probability of winning the match from the standings,
    by dynamic programming over the policy's round outcomes (docs/match.md)."""
    from solver import provenance
    from solver.match.outcomes import round_outcomes
    from solver.match.standings import default_goal
    from solver.match.value import solve_match_values
    from solver.reports.files import write_table
    from spiel_game.game import variant

    game = options.load_game(game_name, players, deck, "margin", agenda, ctx)
    goal = default_goal(players) if goal is None else goal
    names = [p.strip() for p in policy.split(",") if p.strip()]
    if len(names) not in (1, players):
        raise typer.BadParameter(f"{len(names)} policies for {players} players: give one "
                                 "for every seat, or one per seat", param_hint="--policy")
    start = time.perf_counter()
    try:
        outcomes = round_outcomes(game, names, rounds, seed)
    except ValueError as err:
        raise typer.BadParameter(str(err), param_hint="--policy") from None
    if outcomes.interrupted:
        typer.echo(f"interrupted: {outcomes.rounds:,} rounds counted", err=True)
    values = solve_match_values(outcomes, goal, draws, seed)
    seconds = time.perf_counter() - start
    typer.echo(f"{players} players, {variant(game)}, "
               f"goal {goal}: {outcomes.rounds:,} rounds of {', '.join(outcomes.lineup)} "
               f"({seconds:.1f} s)")
    if players == 2:
        for s, who in ((0, "I start"), (1, "the opponent starts")):
            typer.echo(f"\nmy match-win probability, {who} the next round:")
            typer.echo(_grid(values, s))
    start_values = values.match_start()
    typer.echo("\nfrom 0 tokens each, the first starter random: "
               + ", ".join(f"seat {i} {100 * w:.1f}%" for i, w in enumerate(start_values)))
    if draws:
        width = float((values.high - values.low).max()) / 2
        typer.echo(f"95% intervals ({draws} posterior draws): at most ± {100 * width:.1f} "
                   "points wide (in the JSON and CSV)")
    if out is None:
        return
    which = " ".join(provenance.game_flags(game_name, agenda))
    command = (f"jabba match-table --players {players} {which} --deck {deck} --goal {goal} "
               f"--rounds {rounds} --draws {draws} --seed {seed} --policy {policy} "
               f"--out {provenance.portable_path(out)}")
    record = {**provenance.header(game, seconds=seconds, command=command),
              "what": "match values V(standings, starter): each player's probability of "
                      "winning the match (docs/match.md)",
              "algorithm": "dynamic programming over rounds (R14), self-loops solved "
                           "exactly; 95% intervals from Dirichlet posterior draws of the "
                           "outcome distribution",
              "goal": goal, "policies": outcomes.lineup, "rounds_per_starter": rounds,
              "draws": draws, "seed": seed,
              "match_start": [float(w) for w in start_values],
              "outcomes": outcomes.to_dict(),
              "columns": values.columns(), "rows": values.rows()}
    write_table(out, record)
    typer.echo(f"wrote {out} and {out.with_suffix('.json')}")


DUEL_COLUMNS = ["players", "agenda", "policy", "opponent", "matches", "match_win_rate",
                "low", "high", "deck", "method", "win_rate_shared_as_win",
                "exploitability"]
POSITION_COLUMNS = ["agenda", "deck", "starter_tokens", "other_tokens", "changed_infosets",
                    "reach_share", "example_player", "example_information_state",
                    "example_actions", "example_gain"]
_ROW_KEY = ("players", "agenda", "deck", "policy", "opponent")


def _merged(path: Path, rows: list[dict], run: dict, key=_ROW_KEY) -> tuple[list, list]:
    """records.merged_runs for a `jabba match-duel` record at path (another kind of
    record there is refused)."""
    from solver.reports.records import merged_runs

    try:
        return merged_runs(path, rows, run, key, "match duel", "match-duel")
    except ValueError as err:
        raise typer.BadParameter(str(err), param_hint="--out") from None


def _write_duel(out: Path, game_params: dict, rows: list[dict], positions: list[dict],
                details: dict, seconds: float, command: str) -> None:
    """results/match_aware.{csv,json} and, with positions, match_aware_positions.*: each
    a record with the provenance header, rows merged with the file's earlier ones."""
    from solver import provenance
    from solver.reports.files import write_table

    header = provenance.header(game_params, seconds=seconds, command=command)
    run = {k: header[k] for k in ("command", "code_version", "seconds", "created")}
    what = ("match duel: the match-aware policy's expected match score against the "
            "margin policy (docs/match.md \"Match-aware play, measured\")")
    path = out.with_suffix(".json")
    earlier = provenance.read_json(path).get("details", {}) if path.exists() else {}
    merged, runs = _merged(path, rows, run)
    kept = {f"{r['deck']} {r['agenda']}" for r in merged}
    details = {**{k: v for k, v in earlier.items() if k in kept}, **details}
    # the header covers every row's deck and agenda (a list value: each of them)
    header["game"]["parameters"].update(
        deck=sorted({r["deck"] for r in merged}),
        agenda=list(dict.fromkeys(r["agenda"] for r in merged)))
    record = {**header, "what": what, "columns": DUEL_COLUMNS + ["run"], "rows": merged,
              "runs": runs, "details": details,
              "notes": "match_win_rate: the expected match score, a match won by both "
                       "players counting 1/2 (duel.py score; equal play scores 50%); "
                       "win_rate_shared_as_win counts it 1. method exact: no matches "
                       "are sampled (matches 0, low = high), the only error DCFR's "
                       "convergence, the largest exploitability of the solves in "
                       "`exploitability` (tokens for the margin solve, match utility "
                       "for the match-aware ones, each per round); method sampled: "
                       "duplicate matches with seat rotation, low/high the 95% interval."}
    write_table(out, record)
    if positions:
        pos = out.with_name(f"{out.stem}_positions.csv")
        merged, runs = _merged(pos.with_suffix(".json"), positions, run,
                               ("agenda", "deck", "starter_tokens", "other_tokens"))
        header["game"] = {**header["game"], "parameters": {
            **header["game"]["parameters"], "deck": sorted({r["deck"] for r in merged}),
            "agenda": list(dict.fromkeys(r["agenda"] for r in merged))}}
        record = {**header, "what": "match duel positions: where the match-aware policy's "
                  "advice differs from the margin policy's (docs/match.md)",
                  "columns": POSITION_COLUMNS + ["run"], "rows": merged, "runs": runs,
                  "notes": "per standings of the round in turn order (the starter's "
                           "tokens, the other's): information states reached by the "
                           "margin self-play where the match-aware policy's most likely "
                           "action differs, some action's probability moved by more than "
                           "0.2 and, by the match utility under the match-aware profile, "
                           "the new choice is worth at least 0.001 more (example_gain: "
                           "that difference at the example, in match-win probability "
                           "less the opponent's); reach_share: their share of the "
                           "round's decisions, reach-weighted under the margin self-play; "
                           "the example is the most reached of them"}
        write_table(pos, record)


def _position_rows(agenda: str, deck: str, positions: list[dict]) -> list[dict]:
    rows = []
    for p in positions:
        ex = p.get("example")
        row = {"agenda": agenda, "deck": deck, **{k: p[k] for k in
               ("starter_tokens", "other_tokens", "changed_infosets", "reach_share")}}
        if ex is not None:
            row.update(example_player=ex["player"],
                       example_information_state=ex["information_state"],
                       example_actions="; ".join(
                           f"{a['action']} {a['margin']:.2f} -> {a['match_aware']:.2f}"
                           for a in ex["actions"]),
                       example_gain=p["example_gain"])
        rows.append(row)
    return rows


def match_duel(
    ctx: typer.Context,
    deck: str = typer.Option("small", help="A reduced preset or spec: measured exactly "
                             "(DCFR on the whole round tree); full: sampled matches of "
                             "the search."),
    agendas: str = typer.Option(",".join(AGENDAS), show_default=False,
                                help="Comma list of agendas. Default: all four."),
    iterations: int = typer.Option(1000, **options.POSITIVE, help="DCFR iterations of "
                                   "each solve (reduced decks)."),
    goal: int | None = typer.Option(None, **options.POSITIVE, help="Token goal. Default: "
                                    "R14's for 2 players, 6."),
    matches: int = typer.Option(10_000, **options.POSITIVE, help="Most matches (full "
                                "deck), each played both ways."),
    seconds: float = typer.Option(900.0, **options.SECONDS, help="Time budget per agenda "
                                  "(full deck): no match begun after it."),
    search_iterations: int = typer.Option(16, **options.POSITIVE, help="DCFR iterations "
                                          "of each search (full deck)."),
    max_nodes: int = typer.Option(5_000, **options.POSITIVE, help="Subgame node budget "
                                  "of each search (full deck)."),
    seed: int = typer.Option(1, **options.SEED, help="Seed of the deals and decisions "
                             "(full deck)."),
    out: Path = typer.Option(Path("results/match_aware.csv"), **options.OUTPUT_FILE,
                             help="CSV of the match-win rates, with its .json record and "
                                  "its _positions.csv/.json twins (reduced decks); rows of "
                                  "other agendas, decks or policies already there are "
                                  "kept. Written atomically after every agenda."),
) -> None:
    """The match-aware policy (each round's terminal utility: the match-win chances of
    the standings it leaves, docs/match.md) against the margin policy, 2 players: its
    expected match score (a shared win split) from 0-0, with duplicate deals and seat
    rotation."""
    from solver import provenance
    from solver.match.standings import default_goal

    names = [a.strip() for a in agendas.split(",") if a.strip()]
    bad = [a for a in names if a not in AGENDAS]
    if bad or not names:
        raise typer.BadParameter(f"{', '.join(bad) or 'none given'}: allowed are "
                                 f"{', '.join(AGENDAS)}", param_hint="--agendas")
    full = deck == "full"
    if full:
        options.applies_only(ctx, ("iterations",), "on a reduced deck (not --deck full)")
    else:
        options.applies_only(ctx, ("matches", "seconds", "search_iterations", "max_nodes",
                                   "seed"), "with --deck full")
    goal = default_goal(2) if goal is None else goal
    _merged(out.with_suffix(".json"), [], {})  # another kind of record there: refused now
    command = (f"jabba match-duel --deck {deck} --agendas {','.join(names)} --goal {goal} "
               + (f"--matches {matches} --seconds {seconds:g} --search-iterations "
                  f"{search_iterations} --max-nodes {max_nodes} --seed {seed}" if full
                  else f"--iterations {iterations}")
               + f" --out {provenance.portable_path(out)}")
    rows, positions, details = [], [], {}
    start = time.perf_counter()
    for agenda in names:
        # The duel is per agenda (R12): of the game with agendas.
        game = options.load_game(AGENDA_GAMES[0], 2, deck, "margin", agenda)
        if full:
            row, detail = _sampled(game, agenda, goal, matches, seconds, search_iterations,
                                   max_nodes, seed)
            rows.append(row)
        else:
            new_rows, new_positions, detail = _exact(game, agenda, deck, goal, iterations)
            rows += new_rows
            positions += new_positions
        details[f"{deck} {agenda}"] = detail
        params = {"players": 2, "deck": deck, "agenda": names[:len(details)],
                  "utility": "margin"}
        _write_duel(out, params, rows, positions, details, time.perf_counter() - start,
                    command)
        typer.echo(f"wrote {out}" + ("" if full else
                   f" and {out.with_name(out.stem + '_positions.csv')}"))


def _exact(game, agenda: str, deck: str, goal: int, iterations: int):
    """The exact study of one agenda: (duel rows, position rows, details)."""
    from solver.exact.tree import build_tree
    from solver.match.exact import describe_examples, study

    try:
        tree = build_tree(game, max_nodes=2_000_000)
    except ValueError as err:
        raise typer.BadParameter(f"{err}: the exact match study walks the whole round",
                                 param_hint="--deck") from None
    result = study(tree, goal, iterations,
                   progress=lambda text: typer.echo(f"{agenda}: {text}", err=True))
    strategies = {t: s.strategy for t, s in result.aware.items()}
    describe_examples(tree, result.positions, result.margin.strategy, strategies)
    worst = max([result.margin.exploitability]
                + [s.exploitability for s in result.aware.values()])
    method = f"exact (DCFR {iterations} it. per solve)"
    common = {"players": 2, "agenda": agenda, "matches": 0, "deck": deck, "method": method,
              "exploitability": worst}
    rows = [{**common, "policy": "match_aware(dcfr)", "opponent": "margin(dcfr)",
             "match_win_rate": result.score, "low": result.score, "high": result.score,
             "win_rate_shared_as_win": result.win_rate},
            {**common, "policy": "margin(dcfr)", "opponent": "margin(dcfr)",
             "match_win_rate": result.margin_score, "low": result.margin_score,
             "high": result.margin_score, "win_rate_shared_as_win": None,
             "exploitability": result.margin.exploitability}]
    typer.echo(f"{agenda} ({deck}): match-aware v margin {100 * result.score:.3f}% "
               f"(by seat {', '.join(f'{100 * s:.3f}%' for s in result.score_by_seat)}); "
               f"margin v margin {100 * result.margin_score:.3f}%; largest exploitability "
               f"{worst:.1e}; {result.seconds:.0f} s")
    detail = {"nodes": tree.num_nodes, "infosets": tree.num_infosets,
              "iterations": iterations, "algorithm": "dcfr",
              "score_by_seat": result.score_by_seat,
              "margin_exploitability_tokens": result.margin.exploitability,
              "margin_match_start": [float(w) for w in result.margin_values.match_start()],
              "match_aware_exploitability": {f"{t[0]}-{t[1]}": s.exploitability
                                             for t, s in result.aware.items()},
              "seconds": result.seconds}
    return rows, _position_rows(agenda, deck, result.positions), detail


def _sampled(game, agenda: str, goal: int, matches: int, seconds: float,
             search_iterations: int, max_nodes: int, seed: int):
    """Sampled full-deck matches of the match-aware search against the margin search."""
    from solver import provenance
    from solver.policies.chain import load_policies
    from solver.match.duel import play_matches, search_policy
    from solver.match.value import read_match_values, shipped_match_values
    from solver.search.resolve import SearchLimits

    path = shipped_match_values(game)
    if path is None:
        raise typer.BadParameter(f"no shipped match values for {agenda}: make them with "
                                 "jabba match-table --out results/match_values_2p_"
                                 f"{agenda}.csv", param_hint="--agendas")
    values = read_match_values(path, game)
    if values.goal != goal:
        raise typer.BadParameter(f"the shipped match values are for goal {values.goal}",
                                 param_hint="--goal")
    policies = load_policies(game)
    limits = SearchLimits(iterations=search_iterations, max_nodes=max_nodes)
    result = play_matches(game, search_policy(game, policies, limits, seed, values),
                          search_policy(game, policies, limits, seed), matches, seed, goal,
                          labels=("match_aware(search)", "margin(search)"),
                          seconds=seconds)
    score, win = result.score(), result.win_rate()
    row = {"players": 2, "agenda": agenda, "policy": "match_aware(search)",
           "opponent": "margin(search)", "matches": result.matches,
           "match_win_rate": score.mean, "low": score.mean - score.half_width,
           "high": score.mean + score.half_width, "deck": "full",
           "method": f"sampled (duplicate matches, search {search_iterations} it., "
                     f"{max_nodes} nodes)",
           "win_rate_shared_as_win": win.mean, "exploitability": None}
    typer.echo(f"{agenda} (full): match-aware search v margin search "
               f"{100 * score.mean:.1f}% ± {100 * score.half_width:.1f} over "
               f"{result.matches} matches ({result.seconds:.0f} s)")
    detail = {"match_values": provenance.portable_path(path), "limits": dict(
        iterations=search_iterations, max_nodes=max_nodes), "seed": seed,
        "interrupted": result.interrupted, "shared_rate": result.shared_rate(),
        "seconds": result.seconds, "games_columns": ["a_won", "winners", "rounds"],
        "games": result.games.tolist()}
    return row, detail
