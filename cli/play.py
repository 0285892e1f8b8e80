"""`jabba play`: a game against the solver in the terminal (one seat yours, a numbered
menu of your legal actions, the coach), its replay, or one random round printed move by
move (without --seat or --replay)."""

from __future__ import annotations

import dataclasses
import datetime
import random
import signal
import sys
from pathlib import Path

import typer

from cli import options
from solver.play import COACH_SEARCH_ITERATIONS, OPPONENT_SEARCH_ITERATIONS

# The flags that describe a new game: a replay takes them from the log's header.
GAME_OPTIONS = ("seat", "against", "opponent_search_iterations", "game_name", "players",
                "agenda", "deck", "utility", "seed", "match")
COACH_OPTIONS = ("coach_threshold", "coach_seconds", "coach_search",
                 "coach_search_iterations")
INTERACTIVE_OPTIONS = ("against", "opponent_search_iterations", "match", "coach",
                       *COACH_OPTIONS, "log")
EXIT_INTERRUPTED = 130  # 128 + SIGINT, as a shell reports Ctrl-C


def register(app: typer.Typer) -> None:
    @app.command()
    def play(
        ctx: typer.Context,
        seat: int | None = typer.Option(
            None, help="Your seat: play it, the others follow --against (a single round: "
            "your seat in turn order; a match: your place at the table). Without --seat "
            "or --replay: one random round printed move by move."),
        against: str = typer.Option("table", help="The other seats: table (the game's "
                                    "shipped tables), search (decision-time search over "
                                    "them), a heuristic (agenda_expert, card_counter, "
                                    "keep_higher, keep_lower, uniform; classic_expert "
                                    "with --game love_letter) or a policy file (.npz)."),
        opponent_search_iterations: int = typer.Option(
            OPPONENT_SEARCH_ITERATIONS, "--opponent-search-iterations", **options.POSITIVE,
            help="--against search: its iterations per decision (repeatable games)."),
        game_name: str = options.game_option(command="play"),
        players: int = options.players_option("Number of players, 2 to 6."),
        agenda: str = options.agenda_option(f"{options.AGENDA_LIST}."),
        deck: str = options.deck_option("full", "full, tiny, small, medium or a spec such "
                                        "as 'guard:2+jabba+han+faceup:0'."),
        utility: str = typer.Option("margin", help="margin (zero-sum) or tokens."),
        seed: int = typer.Option(0, **options.SEED, help="Seed for the deals and the "
                                 "other seats' choices."),
        match: bool = typer.Option(False, "--match", help="A match: rounds until a player "
                                   "has the token goal (docs/RULES.md R14)."),
        coach: bool = typer.Option(False, "--coach", help="After each of your plays: the "
                                   "hint's probabilities (the search's and the table's), "
                                   "each play's EV, and what your choice cost."),
        coach_threshold: float = typer.Option(0.05, "--coach-threshold",
                                              **options.POSITIVE_REAL,
                                              help="Say so when a play cost more than "
                                              "this (tokens of margin per round)."),
        coach_seconds: float = typer.Option(0.25, "--coach-seconds", **options.SECONDS,
                                            help="Rollout time of each coached play."),
        coach_search: bool = typer.Option(True, "--coach-search/--coach-no-search",
                                          help="The coach's hint searches (docs/hint.md); "
                                          "--coach-no-search: the table's answer."),
        coach_search_iterations: int = typer.Option(
            COACH_SEARCH_ITERATIONS, "--coach-search-iterations", **options.POSITIVE,
            help="The coach's search iterations per play (the same verdict every run)."),
        log: Path | None = typer.Option(None, "--log", **options.OUTPUT_FILE,
                                        help="The game's log (JSON lines). Default: "
                                        "jabba-play-SEED-TIME.jsonl here; with --replay: "
                                        "none (give one to write the replayed log)."),
        replay: Path | None = typer.Option(None, "--replay", **options.INPUT_FILE,
                                           help="Replay a log written by jabba play "
                                           "(or the web app), checking every action."),
        viewer: int = typer.Option(-1, help="The random round only: also print this "
                                   "player's information state at the end (-1: none)."),
    ) -> None:
        """Play against the solver (--seat), replay a game (--replay), or watch a random
        round."""
        if seat is None and replay is None:
            options.applies_only(ctx, INTERACTIVE_OPTIONS, "with --seat (or --replay)")
            _random_round(options.load_game(game_name, players, deck, utility, agenda, ctx),
                          utility, seed, viewer)
            return
        judge = _coach_settings(ctx, coach, coach_threshold, coach_seconds, coach_search,
                                coach_search_iterations)
        if replay is not None:
            options.applies_only(ctx, (*GAME_OPTIONS, "viewer"),
                                 "without --replay: the log's header gives the game")
            _replay(replay, log, judge)
            return
        options.applies_only(ctx, ("viewer",), "to the random round (without --seat)")
        options.refuse_lacking(ctx, game_name, ("match", "match"), ("coach", "coach"),
                               ("opponent_search_iterations", "search"),
                               *((name, "coach") for name in COACH_OPTIONS))
        if against != "search":
            options.applies_only(ctx, ("opponent_search_iterations",), "with --against search")
        game = options.load_game(game_name, players, deck, utility, agenda, ctx)
        _interactive(game, seat, against, opponent_search_iterations, seed, match, judge, log)


# The random round ------------------------------------------------------------------------

def _random_round(game, utility: str, seed: int, viewer: int) -> None:
    players = game.num_players()
    if not -1 <= viewer < players:
        raise typer.BadParameter(f"{viewer}: allowed is -1 (none) or a seat from 0 to "
                                 f"{players - 1}", param_hint="--viewer")
    rng = random.Random(seed)
    state = game.new_initial_state()
    while not state.is_terminal():
        player = state.current_player()
        if state.is_chance_node():
            outcomes, probs = zip(*state.chance_outcomes())
            action = rng.choices(outcomes, probs)[0]
            who = "chance"
        else:
            action = rng.choice(state.legal_actions())
            who = f"player {player}"
        typer.echo(f"{who:>9}: {state.action_to_string(player, action)}")
        state.apply_action(action)
    typer.echo(str(state))
    typer.echo(f"returns ({utility}): {state.returns()}")
    if viewer >= 0:
        typer.echo(f"information state of player {viewer}:\n"
                   f"{state.information_state_string(viewer)}")


# Playing -------------------------------------------------------------------------------

@dataclasses.dataclass(frozen=True)
class CoachSettings:
    threshold: float
    seconds: float
    search: bool
    search_iterations: int


def _coach_settings(ctx, coach, threshold, seconds, search, iterations) -> CoachSettings | None:
    """The coach's settings, or None without --coach; a coach option given where it does
    not apply is refused (never ignored)."""
    if not coach:
        options.applies_only(ctx, COACH_OPTIONS, "with --coach")
        return None
    if not search:
        options.applies_only(ctx, ("coach_search_iterations",), "with the coach's search "
                             "(not with --coach-no-search)")
    return CoachSettings(threshold, seconds, search, iterations)


def _make_coach(game, settings: CoachSettings, seed: int):
    from solver.hint.coach import Coach

    try:
        return Coach(game, threshold=settings.threshold, seconds=settings.seconds, seed=seed,
                     search=settings.search, search_iterations=settings.search_iterations)
    except ValueError as err:
        raise typer.BadParameter(str(err), param_hint="--coach") from None


def _open_log(path: Path | None, seed: int):
    if path is None:
        stamp = datetime.datetime.now().strftime("%Y%m%d-%H%M%S")
        path = Path(f"jabba-play-{seed}-{stamp}.jsonl")
    try:
        return path, path.open("w", encoding="utf-8")
    except OSError as err:
        raise typer.BadParameter(f"{path}: {err.strerror}", param_hint="--log") from None


def _interactive(game, seat, against, search_iterations, seed, match,
                 coach: CoachSettings | None, log_path) -> None:
    from solver import games
    from solver.play.log import LogWriter, opponent_fields

    n = game.num_players()
    if not 0 <= seat < n:
        raise typer.BadParameter(f"{seat}: allowed is a seat from 0 to {n - 1}",
                                 param_hint="--seat")
    adapter = games.of(game)
    try:
        opponent = adapter.opponent(against, game, seed, search_iterations)
    except ValueError as err:
        raise typer.BadParameter(str(err), param_hint="--against") from None
    judge = _make_coach(game, coach, seed) if coach else None
    # Ctrl-C must stop the game even when the parent left SIGINT ignored (a background
    # job, some test runners): an ignored signal is inherited through exec, and Python
    # then installs no KeyboardInterrupt handler of its own.
    signal.signal(signal.SIGINT, signal.default_int_handler)
    log_path, stream = _open_log(log_path, seed)
    with stream:
        writer = LogWriter(stream)
        writer.header(game, seat=seat, against=against, seed=seed, match=match,
                      **opponent_fields(against, search_iterations))
        typer.echo(f"log: {log_path} (replay: jabba play --replay {log_path})")
        if judge is not None:
            how = (f"its search in {judge.search_iterations} iterations" if judge.search
                   else "the table, without its search")
            typer.echo(f"coach: the hint judges each of your plays ({how}; the first may "
                       "compile the kernels, about 30 s once)")
        try:
            session = adapter.session_class()(game, seat, opponent, seed=seed, match=match,
                                              record=writer.write, coach=judge)
            session.advance()
            finished = _play_loop(session)
        except KeyboardInterrupt:
            typer.echo(f"\nstopped (Ctrl-C); the moves so far are in {log_path}")
            raise typer.Exit(EXIT_INTERRUPTED) from None
    if not finished:
        typer.echo(f"stopped before the end; the moves so far are in {log_path}")
        raise typer.Exit(1)


def _play_loop(session) -> bool:
    """Menus until the game ends (True) or the player leaves (False)."""
    header_shown = None
    while True:
        if header_shown != session.round:
            typer.echo(_round_title(session))
            header_shown = session.round
        for line in session.new_events():
            typer.echo(f"  . {line}")
        if session.round_over:
            typer.echo("\n".join(_round_end(session.view(), session.coach)))
            if session.over:
                return True
            session.next_round()
            session.advance()
            continue
        view = session.view()
        typer.echo("\n".join(_table(view)))
        choice = _ask(view["legal"], session)
        if choice is None:
            return False
        verdict = session.act(choice)
        if verdict is not None:
            typer.echo("\n".join(render_verdict(verdict)))


def _ask(legal: list[dict], session) -> int | None:
    for i, item in enumerate(legal, start=1):
        typer.echo(f"  {i}. {item['text']}")
    while True:
        typer.echo(f"your choice (1-{len(legal)}; l: what you have seen; q: quit): ",
                   nl=False)
        sys.stdout.flush()
        try:
            text = input().strip().lower()
        except EOFError:
            typer.echo("\n(input ended)")
            return None
        if text in ("q", "quit"):
            return None
        if text in ("l", "log"):
            for line in session.events():
                typer.echo(f"  . {line}")
            continue
        if text.isdigit() and 1 <= int(text) <= len(legal):
            return legal[int(text) - 1]["action"]
        typer.echo(f"{text!r}: choose a number from 1 to {len(legal)}")


def _round_title(session) -> str:
    v = session.view()
    where = (f"you are p{v['seat']} (table seat {v['table_seat']}); table seat "
             f"{session.starter} starts" if session.match else f"you are p{v['seat']}")
    goal = (f"; tokens {_totals(v)}, goal {v['goal']}" if session.match else "")
    variant = v["agenda"] or v["game"]  # love_letter has no agenda
    return f"\n=== round {v['round']}: {v['players']} players, {variant}; {where}{goal} ==="


def _totals(view: dict) -> str:
    return ", ".join(f"{'you' if t == view['table_seat'] else f'seat {t}'} {k}"
                     for t, k in enumerate(view["totals"]))


def _cards(cards) -> str:
    return ", ".join(cards) if cards else "-"


def _table(v: dict) -> list[str]:
    """What the seat knows, at a decision."""
    own = options.own_commands(v["game"])
    if own is not None:  # the game's own view (e.g. cli/han_solo.py)
        return own.play_table(v)
    lines = [f"deck {v['deck']}" + (f"; face-up: {_cards(v['face_up'])}" if v["face_up"]
                                    else "")]
    for s in v["seats"]:
        who = f"p{s['seat']}" + (" (you)" if s["you"] else "")
        lines.append(f"  {who:<9} {s['status']:<9} area: {_cards(s['area'])}")
    lines.append(f"your hand: {_cards(v['hand'])}")
    if v["resolving"]:
        lines.append(f"resolving your {v['resolving']}: {v['phase']}")
    return lines


def _round_end(v: dict, coach) -> list[str]:
    own = options.own_commands(v["game"])
    if own is not None:
        return own.round_end(v)
    r = v["result"]
    you = v["table_seat"]
    lines = [f"--- round {v['round']} over ({r['end']}) ---"]
    for s in v["seats"]:
        who = f"p{s['seat']}" + (" (you)" if s["you"] else "")
        lines.append(f"  {who:<9} {s['status']:<9} hand: {_cards(s['hand'])}; area: "
                     f"{_cards(s['area'])}; tokens +{r['tokens'][s['table_seat']]}")
    if r.get("set_aside"):
        lines.append(f"  set-aside card: {r['set_aside']}")
    winners = ", ".join("you" if t == you else f"table seat {t}" for t in r["winners"])
    lines.append(f"round won by: {winners or 'nobody'}")
    if v["match"]:
        lines.append(f"tokens: {_totals(v)} (goal {v['goal']})")
        if v["match_over"]:
            won = ", ".join("you" if t == you else f"table seat {t}"
                            for t in r["match_winners"])
            lines.append(f"=== match over: won by {won} ===")
    if coach is not None and v["match_over"]:
        s = coach.summary()
        lines.append(f"coach: {s['coached']} plays coached, {s['flagged']} cost more than "
                     f"{coach.threshold:g}; total cost {s['cost']:.2f} tokens")
    return lines


def render_verdict(v: dict) -> list[str]:
    """The coach's verdict on one choice, as text."""
    if not v["coached"]:
        return [f"  coach: {v['decision']} not coached ({v['why']})"]
    if v["cost"] > v["threshold"]:
        head = (f"  coach: COSTLY: {v['chosen']} is worth {v['chosen_ev']:+.3f}; best "
                f"{v['best']} {v['best_ev']:+.3f}: it cost {v['cost']:.3f} ± "
                f"{v['cost_ci95']:.3f} tokens (more than {v['threshold']:g})")
    else:
        head = (f"  coach: fine: {v['chosen']} {v['chosen_ev']:+.3f}, within "
                f"{v['threshold']:g} of the best ({v['best']} {v['best_ev']:+.3f})")
    searched = v["search"]["used"]
    lines = [head]
    if searched:
        lines.append(f"    the search recommends {v['recommendation']} "
                     f"({v['search']['iterations']} iterations; depth: {v['search']['depth']})")
    elif v["search"]["reason"] != "not asked for (--no-search)":
        lines.append(f"    search not used: {v['search']['reason']}")
    lines.append(f"    {'play (best target and number)':<40} "
                 + ("search  search EV  " if searched else "") + "table  EV")
    for p in v["plays"]:
        prob = "    -" if p["probability"] is None else f"{p['probability']:5.0%}"
        found = (f"{p['search_probability']:6.0%}  {p['search_value']:+9.3f}  "
                 if searched else "")
        lines.append(f"    {p['play']:<40} {found}{prob}  {p['ev']:+.3f} ± {p['ev_ci95']:.3f}")
    return lines


# Replay --------------------------------------------------------------------------------

def _replay(path: Path, log_path: Path | None, settings: CoachSettings | None) -> None:
    from solver.play.log import LogError, LogWriter, replay

    def show(session, line, verdict) -> None:
        if "starter" in line:
            typer.echo(_round_title(session))
        if line.get("by") == "you":
            typer.echo(f"  you: {line['text']}")
        for event in session.new_events():
            typer.echo(f"  . {event}")
        if verdict is not None:
            typer.echo("\n".join(render_verdict(verdict)))
        if "round_end" in line:
            typer.echo("\n".join(_round_end(session.view(), session.coach)))

    def factory(game):
        return _make_coach(game, settings, 0) if settings else None

    stream = None
    if log_path is not None:
        log_path, stream = _open_log(log_path, 0)
    try:
        record = LogWriter(stream).write if stream is not None else None
        session = replay(path, record=record, coach_factory=factory, on_step=show)
    except LogError as err:
        typer.echo(f"Error: {err}", err=True)
        raise typer.Exit(2) from None
    finally:
        if stream is not None:
            stream.close()
    if not session.over:
        typer.echo(f"the log stops before the end (round {session.round}"
                   f"{', in play' if not session.round_over else ''})")

