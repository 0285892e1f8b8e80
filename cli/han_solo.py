"""The `jabba` commands with `--game han_solo` (docs/han-solo.md "Commands"): each
command's own module parses and validates as for every game, then calls here where
han_solo's engine, policies and solvers differ (solver/han_solo/). Options a command has
for the Love Letter games only are refused, naming them (docs/bad-input.md)."""

from __future__ import annotations

import time
from pathlib import Path

import typer

from cli import options
from cli.engine_mccfr import MCCFRRun, train_table

HAN_SOLO = "han_solo"  # this module's game: its files' names


def _players(names: list[str], game) -> list:
    from solver.han_solo.players import resolve

    try:
        return [resolve(name, game) for name in names]
    except ValueError as err:
        raise typer.BadParameter(str(err), param_hint="--policies") from None


def _two_players(game, what: str) -> None:
    if game.num_players() != 2:
        raise typer.BadParameter(f"{game.num_players()}: han_solo's {what} is for 2 "
                                 "players", param_hint="--players")


def tournament(game, policies: str | None, deals: int, seed: int, diagonal: bool,
               out: Path | None) -> None:
    """Duplicate deals of han_solo policies (the shipped table and the heuristics by
    default), 2 players: margins and game-win rates with 95% intervals."""
    from rich.console import Console
    from rich.table import Table

    from solver import provenance
    from solver.han_solo.commands import cross_table, tournament_csv
    from solver.han_solo.features import HEURISTIC_NAMES
    from solver.han_solo.players import TABLE_NAME, shipped_table

    _two_players(game, "tournament (duplicate deals)")
    if deals == 0:
        raise typer.BadParameter("0: han_solo plays duplicate deals only (no matches); "
                                 "give at least 1", param_hint="--deals")
    if policies is None:
        try:
            table = shipped_table(game)
        except ValueError as err:  # a shipped file this code cannot read: said, not used
            typer.echo(f"warning: the shipped table is not played: {err}", err=True)
            table = None
        names = ([TABLE_NAME] if table is not None else []) + list(HEURISTIC_NAMES)
    else:
        names = [p.strip() for p in policies.split(",") if p.strip()]
    if not names:
        raise typer.BadParameter("give at least one policy", param_hint="--policies")
    players = _players(names, game)
    start = time.perf_counter()
    with options.progress_bars() as progress:
        update = options.tracker(progress)
        try:
            rows = cross_table(game, players, deals, seed, diagonal,
                               on_pairing=lambda done, total: update("pairings", done,
                                                                     total))
        except ValueError as err:
            raise typer.BadParameter(str(err), param_hint="--policies") from None
    seconds = time.perf_counter() - start
    table = Table(title=f"han_solo, 2 players, {deals:,} duplicate deals: the row's margin "
                  "(thousands of credits a round) and game-win rate against the column")
    for column in ("policy", "opponent", "margin [95%]", "win rate [95%]"):
        table.add_column(column, justify="left" if column in ("policy", "opponent")
                         else "right")
    for r in rows:
        m, w = r["margin"], r["win_rate"]
        table.add_row(r["policy"], r["opponent"],
                      f"{m['mean']:+.3f} [{m['low']:+.3f}, {m['high']:+.3f}]",
                      f"{w['mean']:.3f} [{w['low']:.3f}, {w['high']:.3f}]")
    Console().print(table)
    typer.echo(f"{sum(r['rounds'] for r in rows):,} rounds in {seconds:.1f} s")
    decisions = sum(r["table_decisions"] for r in rows)
    for p in players:
        if p.table is not None and decisions:
            misses = sum(r["table_misses"] for r in rows)
            typer.echo(f"{p.name} ({p.describe()}): {100 * misses / decisions:.2f}% of its "
                       "decisions missing from the table")
    if out:
        command = (f"jabba tournament --game han_solo --players 2 --policies "
                   f"{','.join(names)} --deals {deals} --seed {seed}"
                   + ("" if diagonal else " --no-diagonal"))
        record = {**provenance.header(game, seconds=seconds, command=command),
                  "what": "tournament (duplicate deals), han_solo: margin = the policy's "
                          "credits less its opponent's (thousands a round), both seatings "
                          "of a deal; win rate: its token worth more (ties half)",
                  "policies": {p.name: p.describe() for p in players},
                  "deals": deals, "seed": seed, "rows": rows}
        provenance.write_json(out.with_suffix(".json"), record)
        provenance.write_atomic(out.with_suffix(".csv"), tournament_csv(rows).encode())
        typer.echo(f"wrote {out.with_suffix('.json')}, .csv")


def export_policy(game, policy: Path | None):
    """What `jabba export` writes of a han_solo table (the shipped one, or --policy):
    (the player whose self-play finds the keys, its table, the file, the rows' function).
    ValueError if there is no such table."""
    from solver.han_solo.commands import export_rows
    from solver.han_solo.players import TABLE_NAME, resolve

    player = resolve(str(policy) if policy else TABLE_NAME, game)
    return player, player.table, Path(player.source), export_rows


DEFAULT_LEVEL = "compact"  # MCCFR's level where no table ships for the player count


def training_utility(level: str) -> str:
    """What an MCCFR leaf is worth: at `compact` and `many` the `pot_mean` utility (the
    pot replaced by its expectation: the same expected utility and regrets, without the
    pot's variance, solver/han_solo/mccfr.py); at the other levels, which read the pot,
    the game's returns."""
    return "pot_mean" if level in ("compact", "many") else "returns"


def solve(game, deck: str, algorithm: str, iterations: int, seconds: float | None,
          target: float | None, level: str | None, max_keys: int | None, seed: int,
          out: Path | None, ship: bool, mccfr_run: MCCFRRun | None = None) -> None:
    """han_solo solved: exactly (cfr, cfr+, dcfr on a reduced deck: exploitability and
    game value) or by MCCFR (the shared solver/mccfr/ with Han Solo's hooks; a table
    file)."""
    from solver import provenance

    if algorithm == "mccfr":
        _solve_mccfr(game, deck, iterations, seconds, level, max_keys, seed, out, ship,
                     mccfr_run or MCCFRRun())
        return
    from solver.exact.best_response import profile_values
    from solver.exact.solve import solve as solve_tree
    from solver.exact.tree import build_tree
    from solver.han_solo.exact import exploitability_of

    if deck == "full":
        raise typer.BadParameter("the exact algorithms need a reduced deck (tiny, "
                                 "tiny_dice, small): the full game's tree is far too large; "
                                 "or use --algorithm mccfr", param_hint="--deck")
    tree = build_tree(game)
    outcome = solve_tree(tree, algorithm, iterations=iterations or None, seconds=seconds,
                         target=None if target is None else target / 2)
    figures = exploitability_of(tree, outcome.strategy)
    value = profile_values(tree, outcome.strategy).tolist()
    typer.echo(f"{algorithm} on han_solo {deck}: {tree.num_nodes:,} histories, "
               f"{tree.num_infosets:,} information sets; {outcome.iterations} iterations "
               f"in {outcome.seconds:.1f} s; NashConv {figures['nash_conv']:.6g}; game "
               f"value {', '.join(f'{v:+.4f}' for v in value)} (thousands of credits)")
    if out is not None or ship:
        if ship:
            out = options.ship_folder(out, "--out") / (
                f"solve_{deck}_{HAN_SOLO}_{game.num_players()}p_{algorithm}.json")
        record = {**provenance.header(game, seconds=outcome.seconds),
                  "what": f"{algorithm} on a reduced han_solo deck", "deck": deck,
                  "algorithm": algorithm, "iterations": outcome.iterations,
                  "stopped_by": outcome.stopped_by, **figures, "game_value": value,
                  "curve": [[m.iteration, 2 * m.value] for m in outcome.curve]}
        provenance.write_json(out, record)
        typer.echo(f"wrote {out}")


def _solve_mccfr(game, deck: str, iterations: int, seconds: float | None, level: str | None,
                 max_keys: int | None, seed: int, out: Path | None, ship: bool,
                 run: MCCFRRun) -> None:
    """MCCFR on the shared driver (cli/engine_mccfr.py); a table file. The level, where
    not given or resumed: the shipped table's, or compact."""
    from solver.han_solo.abstraction import LEVELS, level_id
    from solver.han_solo.table_policy import export_table

    def default_level() -> str:
        from solver.han_solo.players import shipped_table

        try:
            table = shipped_table(game)
        except ValueError:
            table = None
        return DEFAULT_LEVEL if table is None else table.header["abstraction"]["level"]

    outcome, out, level = train_table(game, HAN_SOLO, deck, iterations, seconds, level, seed,
                                      out, ship, run, LEVELS, level_id, default_level,
                                      training_utility)
    solver = outcome.solver
    header = export_table(solver.current() if run.strategy == "current" else solver, out,
                          max_keys=max_keys, stopped_by=outcome.stopped_by,
                          strategy=run.strategy, utility=solver.utility,
                          curve=solver.curve)
    typer.echo(f"MCCFR ({level}, {solver.utility} utility, {run.strategy} strategy): "
               f"{solver.iterations:,} iterations, "
               f"{solver.num_keys:,} keys in {solver.seconds:.1f} s (stopped by "
               f"{outcome.stopped_by}); wrote {out} ({header['keys']:,} keys)")
    if outcome.message:
        typer.echo(outcome.message)


def exploit(deck: str, players: int, iterations: int, out_dir: Path) -> None:
    """The exploitability study of a reduced han_solo deck (solver/han_solo/study.py)."""
    from solver.han_solo.exact import DECKS
    from solver.han_solo.study import study
    from solver.reports.files import write_exploitability

    if deck not in DECKS:
        raise typer.BadParameter(f"{deck!r}: han_solo's reduced decks are "
                                 f"{', '.join(DECKS)}", param_hint="--deck")
    if players != 2:
        raise typer.BadParameter(f"{players}: han_solo's exploitability study is for 2 "
                                 "players", param_hint="--players")
    record = study(deck, iterations=iterations, log=typer.echo,
                   command=f"jabba exploit --game han_solo --deck {deck} "
                           f"--iterations {iterations}")
    for path in write_exploitability(record, out_dir):
        typer.echo(f"wrote {path}")
    typer.echo(f"NashConv in thousands of credits per round ({record['seconds']:.0f} s "
               "in all)")


def lbr(game, policy: str, deals: int, rollouts: int, particles: int, seed: int,
        out: Path | None, print_bound) -> None:
    """A local best response against a han_solo policy (solver/evaluation/lbr.py), 2
    players: a lower bound on its exploitability, printed by `print_bound` (the
    command's)."""
    from solver import provenance
    from solver.evaluation.lbr import run_lbr
    from solver.han_solo.playout import HanSoloBank
    from solver.han_solo.players import resolve

    _two_players(game, "LBR")
    try:
        player = resolve(policy, game)
    except ValueError as err:
        raise typer.BadParameter(str(err), param_hint="--policy") from None
    with options.progress_bars() as progress:
        update = options.tracker(progress)
        result = run_lbr(game, HanSoloBank(player.table), player.kind, deals, seed, rollouts,
                         max_particles=particles,
                         on_progress=lambda done, total: update("LBR deals", done, total))
    print_bound(result, player.describe(), 2, "thousand credits")
    if out:
        record = {**provenance.header(game, seconds=result.seconds),
                  "what": f"local best response lower bound on {result.metric}",
                  "policy": player.name, "spec": player.describe(), "deals": result.deals,
                  "rollouts": rollouts, "max_particles": particles, "seed": seed,
                  result.metric: result.lower_bound().to_dict(),
                  "per_seat": [e.to_dict() for e in result.per_seat()],
                  "belief": result.belief_stats, "interrupted": result.interrupted}
        provenance.write_json(out, record)
        typer.echo(f"wrote {out}")


# What `jabba hint` and `jabba play` show ----------------------------------------------

def render_hint(answer: dict, console) -> None:
    """`jabba hint`'s answer as text (cli/hint.py _render): each option's EV, the discard
    after a take, each opponent's hand total."""
    from rich.table import Table
    from rich.text import Text

    from cli.hint import _first_items, _fits, _joined, _print_pieces, _room

    sit, rec = answer["situation"], answer["recommendation"]
    pot = ", ".join(sit["pot"]) if sit["pot"] else "unknown"
    _print_pieces(console, [
        Text.from_markup(f"[bold]{sit['players']} players, han_solo, you are seat "
                         f"{sit['seat']}[/bold]: "),
        *_joined([f"hand {', '.join(sit['hand'])} (total {sit['hand_total']:+d})",
                  f"turn {sit['turn']} of {sit['turns']}, {sit['decision']}",
                  f"discard top {sit['discard_top'] or '-'}", f"pot {pot}",
                  f"draw pile {sit['deck']}"], "; ")])
    console.print(f"[bold green]Recommended: {rec['action']}[/bold green]"
                  + ("" if rec["chosen_by"] == "value" else f" ({rec['chosen_by']})"))
    for merged in (False, True):  # narrower: the option and its discard in one column
        table = Table(title="Your options (EV: token margin, thousands of credits)")
        table.add_column("option")
        if not merged:
            table.add_column("then")
        for name in ("table", "EV", "vs best"):
            table.add_column(name, justify="right", no_wrap=True)
        for p in answer["plays"]:
            prob = "-" if p["probability"] is None else f"{p['probability']:.0%}"
            names = ([p["full_action"]] if merged else
                     [p["action"], p["full_action"].partition(", ")[2]])
            table.add_row(*names, prob, f"{p['ev']:+.3f} ± {p['ev_ci95']:.3f}",
                          f"{p['vs_best']:+.3f} ± {p['vs_best_ci95']:.3f}")
        if _fits(table, console):
            break
    console.print(table)
    for play in answer["plays"]:
        for step in play["steps"]:
            shown = [f"{o['action']} {o['ev']:+.2f}" for o in sorted(
                step["options"], key=lambda o: -o["ev"])]
            _print_pieces(console, [f"  after '{play['action']}': ", *_joined(shown, ", ")])
    beliefs = Table(title="What the others hold (posterior)")
    beliefs.add_column("seat", no_wrap=True)
    beliefs.add_column("cards", no_wrap=True)
    beliefs.add_column("hand total (likeliest)", no_wrap=True)
    beliefs.add_column("P(zero)", justify="right", no_wrap=True)
    rows = []
    for o in answer["opponents"]:
        zero = sum(x["probability"] for x in o["total"] if x["total"] == 0)
        cards = ", ".join(f"{c['cards']}" + ("" if c["probability"] > 0.999 else
                                              f" {c['probability']:.0%}") for c in o["cards"])
        totals = [f"{x['total']:+d} {x['probability']:.0%}"
                  for x in sorted(o["total"], key=lambda x: -x["probability"])]
        rows.append((f"p{o['seat']}", cards, totals, f"{zero:.1%}"))
    widths = [max(len(r[0]) for r in rows + [("seat",)]),
              max(len(r[1]) for r in rows + [("", "cards")]), len("P(zero)")]
    room = max(len("hand total (likeliest)"), _room(console.width, widths))
    for seat, cards, totals, zero in rows:
        beliefs.add_row(seat, cards, _first_items(totals, room, most=5), zero)
    console.print(beliefs)
    post, roll = answer["posterior"], answer["rollouts"]
    console.print(f"policy: {answer['policy']['detail']}; posterior: {post['basis']}, "
                  f"{post['worlds']:,} worlds (effective "
                  f"{post['effective_sample_size']:,.0f}); values from "
                  f"{roll['count']:,} rollouts ({roll['from_table']:.1%} of their decisions "
                  f"from the table); {answer['seconds']:.2f} s")


def play_table(v: dict) -> list[str]:
    """What the seat knows at a decision of `jabba play` (cli/play.py _table)."""
    from cli.play import _cards

    top = v["discard"][-1] if v["discard"] else "-"
    lines = [f"turn {v['turn']} of {v['turns']}; discard top {top} ({len(v['discard'])} "
             f"cards); draw pile {v['pile']}; pot {_cards(v['pot'])}"]
    for s in v["seats"]:
        if s["you"]:
            continue
        if s["hand"] is None:
            lines.append(f"  p{s['seat']:<8} holds {s['cards']} cards")
        else:  # shown at the round's end, before the tokens are taken (H6)
            lines.append(f"  p{s['seat']:<8} shows {_cards(s['hand'])} (total "
                         f"{s['total']:+d})")
    lines.append(f"your hand: {_cards(v['hand'])} (total {v['hand_total']:+d})")
    return lines


def round_end(v: dict) -> list[str]:
    """The round's end in `jabba play` (cli/play.py _round_end)."""
    from cli.play import _cards

    r = v["result"]
    lines = ["--- round over ---"]
    for s in v["seats"]:
        who = f"p{s['seat']}" + (" (you)" if s["you"] else "")
        lines.append(f"  {who:<9} hand: {_cards(s['hand'])} (total {s['total']:+d}); "
                     f"token {r['tokens_taken'][s['seat']] or '-'} "
                     f"(+{r['tokens'][s['seat']]} thousand credits)")
    best = ", ".join("you" if p == v["seat"] else f"p{p}" for p in r["winners"])
    lines.append(f"best hand: {best}")
    return lines
