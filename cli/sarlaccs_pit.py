"""The `jabba` commands with `--game sarlaccs_pit` (docs/sarlaccs-pit.md "Commands"):
solve (exact CFR on a reduced game, or MCCFR on the shared driver), tournament (duplicate
deals on the shared tournament) and exploit (the exact study of a reduced game). Each
command parses and validates as for every game, then calls here, over
solver/sarlaccs_pit/; the hint's answer is rendered here (`render_hint`). The game has no
play, LBR or export yet: those refuse."""

from __future__ import annotations

import time
from pathlib import Path

import typer

from cli.engine_mccfr import MCCFRRun, train_table

SARLACCS_PIT = "sarlaccs_pit"  # this module's game: its files' names
DEFAULT_LEVEL = "compact"


def _not_yet(what: str):
    raise typer.BadParameter(f"sarlaccs_pit has no {what} yet (docs/sarlaccs-pit.md)",
                             param_hint="--game")


def solve(game, deck: str, algorithm: str, iterations: int, seconds: float | None,
          target: float | None, level: str | None, max_keys: int | None, seed: int,
          out: Path | None, ship: bool, mccfr_run: MCCFRRun | None = None) -> None:
    """Exactly (cfr, cfr+, dcfr on a reduced game: its exploitability) or by MCCFR (the
    shared solver/mccfr/ with sarlaccs_pit's hooks; a table file)."""
    if algorithm == "mccfr":
        _solve_mccfr(game, deck, iterations, seconds, level, max_keys, seed, out, ship,
                     mccfr_run or MCCFRRun())
        return
    from solver import provenance
    from solver.exact.solve import solve as solve_tree
    from solver.exact.tree import build_tree
    from solver.sarlaccs_pit.exact import figures

    if deck == "full":
        raise typer.BadParameter("the exact algorithms need a reduced game (tiny1, tiny2): "
                                 "the full game's tree is far too large; or use "
                                 "--algorithm mccfr", param_hint="--deck")
    tree = build_tree(game)
    outcome = solve_tree(tree, algorithm, iterations=iterations or None, seconds=seconds,
                         target=None if target is None else target / 2)
    found = figures(tree, outcome.strategy)
    typer.echo(f"{algorithm} on sarlaccs_pit {deck}: {tree.num_nodes:,} histories, "
               f"{tree.num_infosets:,} information states; {outcome.iterations} iterations "
               f"in {outcome.seconds:.1f} s; NashConv {found['nash_conv']:.6g} (Jedi points)")
    if out is not None:
        provenance.write_json(out, {**provenance.header(game, seconds=outcome.seconds),
                                    "what": f"{algorithm} on a reduced sarlaccs_pit game",
                                    "deck": deck, "algorithm": algorithm,
                                    "iterations": outcome.iterations, **found})
        typer.echo(f"wrote {out}")


def _solve_mccfr(game, deck: str, iterations: int, seconds: float | None, level: str | None,
                 max_keys: int | None, seed: int, out: Path | None, ship: bool,
                 run: MCCFRRun) -> None:
    """MCCFR on the shared driver (cli/engine_mccfr.py); a table file. The level, where
    not given or resumed: compact on the full game, exact on a reduced one."""
    from solver.sarlaccs_pit.abstraction import LEVELS, level_id
    from solver.sarlaccs_pit.table_policy import export_table

    outcome, out, level = train_table(
        game, SARLACCS_PIT, deck, iterations, seconds, level, seed, out, ship, run, LEVELS,
        level_id, lambda: DEFAULT_LEVEL if deck == "full" else "exact")
    solver = outcome.solver
    header = export_table(solver.current() if run.strategy == "current" else solver, out,
                          max_keys=max_keys, stopped_by=outcome.stopped_by,
                          strategy=run.strategy)
    typer.echo(f"MCCFR ({level}, {run.strategy} strategy): {solver.iterations:,} "
               f"iterations, {solver.num_keys:,} keys in {solver.seconds:.1f} s (stopped by "
               f"{outcome.stopped_by}); wrote {out} ({header['keys']:,} keys)")
    if outcome.message:
        typer.echo(outcome.message)


def tournament(game, policies: str | None, deals: int, seed: int, diagonal: bool,
               out: Path | None) -> None:
    """Duplicate deals of sarlaccs_pit policies (the heuristics, and `table`: the shipped
    table, save_force where it has no key), each pairing in both seatings: margins (Jedi
    points) and game-win rates with 95% intervals."""
    from rich.console import Console
    from rich.table import Table

    from solver import provenance
    from solver.sarlaccs_pit.commands import cross_table, write_record
    from solver.sarlaccs_pit.features import HEURISTIC_NAMES

    if deals == 0:
        raise typer.BadParameter("0: sarlaccs_pit plays duplicate deals only (no "
                                 "matches); give at least 1", param_hint="--deals")
    table = _shipped_table(game)
    names = ([p.strip() for p in policies.split(",") if p.strip()] if policies else
             (["table"] if table is not None else []) + list(HEURISTIC_NAMES))
    if not names:
        raise typer.BadParameter("give at least one policy", param_hint="--policies")
    start = time.perf_counter()
    try:
        rows = cross_table(game, names, deals, seed, table, diagonal=diagonal)
    except ValueError as err:
        raise typer.BadParameter(str(err), param_hint="--policies") from None
    seconds = time.perf_counter() - start
    shown = Table(title=f"sarlaccs_pit, {game.num_players()} players, {deals:,} duplicate "
                  "deals: the row's margin (Jedi points a game) and win rate v the column")
    for column in ("policy", "opponent", "margin [95%]", "win rate [95%]"):
        shown.add_column(column)
    for r in rows:
        m, w = r["margin"], r["win_rate"]
        shown.add_row(r["policy"], r["opponent"],
                      f"{m['mean']:+.3f} [{m['low']:+.3f}, {m['high']:+.3f}]",
                      f"{w['mean']:.3f} [{w['low']:.3f}, {w['high']:.3f}]")
    Console().print(shown)
    typer.echo(f"{sum(r['games'] for r in rows):,} games in {seconds:.1f} s")
    if out:
        command = (f"jabba tournament --game sarlaccs_pit --players {game.num_players()} "
                   f"--policies {','.join(names)} --deals {deals} --seed {seed}"
                   + (" --diagonal" if diagonal else ""))
        record = {**provenance.header(game, seconds=seconds, command=command),
                  "what": "duplicate-deal tournament, sarlaccs_pit: margin = the policy's "
                          "Jedi points less its opponents' mean a game (every seating of "
                          "each deal), 95% intervals; win rate: more points (a tie half)",
                  "table": None if table is None else {
                      "level": table.header["abstraction"]["level"], "keys": len(table),
                      "iterations": table.header["iterations"],
                      "code_version": table.header["code_version"],
                      "fallback": "save_force"},
                  "deals": deals, "seed": seed, "rows": rows}
        for path in write_record(out.with_suffix(".json"), record):
            typer.echo(f"wrote {path}")


def _shipped_table(game):
    """The shipped table of this game's parameters, or None."""
    from solver.policies.shipped import policy_files
    from solver.sarlaccs_pit.abstraction import LEVELS
    from solver.sarlaccs_pit.table_policy import load_table

    for path in policy_files("full", SARLACCS_PIT, game.num_players(), levels=LEVELS):
        try:
            return load_table(path, game)
        except ValueError as err:  # another game's parameters: said, not used
            typer.echo(f"note: {path.name} is not played: {err}", err=True)
    return None


def exploit(deck: str, players: int, iterations: int, out_dir: Path) -> None:
    """The exact study of a reduced sarlaccs_pit game (solver/sarlaccs_pit/exact.py)."""
    from solver.sarlaccs_pit.commands import write_record
    from solver.sarlaccs_pit.exact import REDUCED, study

    if deck not in REDUCED:
        raise typer.BadParameter(f"{deck!r}: sarlaccs_pit's reduced games are "
                                 f"{', '.join(REDUCED)}", param_hint="--deck")
    if players != 2:
        raise typer.BadParameter(f"{players}: the exact study is for 2 players",
                                 param_hint="--players")
    counts = sorted({1, 10, 100, iterations})
    record = study(deck, iterations=tuple(counts), log=typer.echo,
                   command=f"jabba exploit --game sarlaccs_pit --deck {deck} "
                           f"--iterations {iterations}")
    for path in write_record(out_dir / f"sarlaccs_pit_exploitability_{deck}_2p.json",
                             record):
        typer.echo(f"wrote {path}")


def lbr(game, policy, deals, rollouts, particles, seed, out, print_bound) -> None:
    _not_yet("local best response")


def export_policy(game, policy):
    raise ValueError("sarlaccs_pit has no export yet (docs/sarlaccs-pit.md)")


def render_hint(answer: dict, console) -> None:
    """`jabba hint`'s answer as text (cli/hint.py _render): the position, the
    recommendation, each card's best full action with its EV, each opponent's likely
    cards."""
    from rich.table import Table
    from rich.text import Text

    from cli.hint import _first_items, _joined, _print_pieces, _room

    sit, rec = answer["situation"], answer["recommendation"]
    heroes = ", ".join(f"p{q} {where}" for q, where in enumerate(sit["positions"]))
    _print_pieces(console, [
        Text.from_markup(f"[bold]{sit['players']} players, sarlaccs_pit, you are seat "
                         f"{sit['seat']}[/bold]: "),
        *_joined([f"hand {', '.join(sit['hand'])}", f"heroes {heroes}",
                  f"Jabba {sit['jabba']}", f"guards left {len(sit['guards_left'])}",
                  f"points {'-'.join(map(str, sit['points']))}",
                  f"draw pile {sit['deck']}"] + (["blocked by Jabba (S9)"]
                                                 if sit["blocked"] else []), "; ")])
    console.print(f"[bold green]Recommended: {rec['action']}[/bold green]"
                  + ("" if rec["chosen_by"] == "value" else f" ({rec['chosen_by']})"))
    table = Table(title="Your plays (each with its best follow-up; EV in Jedi points "
                  "margin)")
    table.add_column("play")
    for name in ("table", "EV", "vs best"):
        table.add_column(name, justify="right", no_wrap=True)
    for p in answer["plays"]:
        prob = "-" if p["probability"] is None else f"{p['probability']:.0%}"
        table.add_row(p["full_action"], prob, f"{p['ev']:+.3f} ± {p['ev_ci95']:.3f}",
                      f"{p['vs_best']:+.3f} ± {p['vs_best_ci95']:.3f}")
    console.print(table)
    for step in rec["steps"]:
        shown = [f"{o['action']} {o['ev']:+.2f}" for o in sorted(
            step["options"], key=lambda o: -o["ev"])[:6]]
        _print_pieces(console, [f"  then {step['decision']}: ", *_joined(shown, ", ")])
    beliefs = Table(title="What the others hold (posterior)")
    beliefs.add_column("seat", no_wrap=True)
    beliefs.add_column("cards (chance of one or more)", no_wrap=True)
    room = _room(console.width, [4])
    for o in answer["opponents"]:
        cards = [f"{c['card']} {c['probability']:.0%}" for c in o["hand"]]
        beliefs.add_row(f"p{o['seat']}", _first_items(cards, room, most=8))
    console.print(beliefs)
    post, roll = answer["posterior"], answer["rollouts"]
    console.print(f"policy: {answer['policy']['detail']}; posterior: {post['basis']}, "
                  f"{post['worlds']:,} worlds; values from {roll['count']:,} rollouts per "
                  f"full action ({roll['from_table']:.1%} of their decisions from the "
                  f"table); {answer['seconds']:.2f} s")


def play_table(v: dict) -> list[str]:
    _not_yet("play")


def round_end(v: dict) -> list[str]:
    _not_yet("play")
