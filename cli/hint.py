"""`jabba hint` and `jabba export`: advice for a described situation, strategy tables."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import typer

from cli import options
from solver import games


def _read_situation_file(path: Path) -> dict:
    """The situation file's fields: a UTF-8 TOML table or JSON object."""
    text = options.read_text(path, "--situation")
    kind = "JSON" if path.suffix.lower() == ".json" else "TOML"
    try:
        if kind == "JSON":
            data = json.loads(text)
        else:
            import tomllib
            data = tomllib.loads(text)
    except ValueError as err:  # json.JSONDecodeError and tomllib.TOMLDecodeError
        raise typer.BadParameter(f"{path}: not valid {kind}: {err}",
                                 param_hint="--situation") from None
    if not isinstance(data, dict):
        raise typer.BadParameter(f"{path}: a {kind} {type(data).__name__}; a situation is "
                                 "a table of fields (docs/hint.md), e.g. {\"seat\": 0, "
                                 "\"hand\": [\"jabba\", \"guard\"]}",
                                 param_hint="--situation") from None
    return data


def _merged(data: dict, field: str, pairs: dict, option: str) -> dict:
    """The file's [field] table with the flags' pairs over it."""
    table = data.get(field, {})
    if not isinstance(table, dict):
        raise typer.BadParameter(f"the situation file's {field!r} is a "
                                 f"{type(table).__name__}, not a table of SEAT = CARDS, "
                                 f"so {option} cannot add to it", param_hint=option)
    return {**{str(k): v for k, v in table.items()}, **pairs}


def register(app: typer.Typer) -> None:
    @app.command()
    def hint(
        ctx: typer.Context,
        situation: Path | None = typer.Option(
            None, "--situation", "-s", **options.INPUT_FILE, help="A TOML or JSON "
            "situation file (docs/hint.md); the flags below override its fields."),
        # No defaults here: a flag given overrides the situation file's field.
        game: str | None = options.game_option(None, command="hint"),
        players: int | None = options.players_option("Players in the round, 2 to 6 "
                                                     "(default: 2).", None),
        agenda: str | None = options.agenda_option(
            f"{options.AGENDA_LIST} (default: {options.AGENDAS[0]}; --game "
            f"{' or '.join(options.AGENDA_GAMES)} only).", None),
        seat: int | None = typer.Option(None, help="Your seat, in turn order from the "
                                        "round's first player, 0 (default: 0)."),
        hand: str | None = typer.Option(None, help="Your 2 cards, e.g. 'jabba,guard' "
                                        "(sarlaccs_pit: up to 4, e.g. '2,4,force')."),
        face_up: str | None = typer.Option(None, "--face-up", help="The 3 face-up "
                                              "set-aside cards (2 players)."),
        area: list[str] | None = typer.Option(
            None, help="A play area in the order played, SEAT=CARDS, e.g. "
            "'1=guard,boba,took:luke' (repeat per seat; 'took:' marks a card taken with "
            "Boba Fett; an out player's last card is the hand they discarded)."),
        out: str | None = typer.Option(None, help="Seats that are out, e.g. '2'."),
        protected: str | None = typer.Option(None, help="Seats protected by Bib "
                                                "Fortuna."),
        saw: list[str] | None = typer.Option(None, help="A card you know a player "
                                                "holds, SEAT=CARD (repeatable)."),
        seen_by: list[str] | None = typer.Option(
            None, "--seen-by", help="A player who knows one of your cards, SEAT=CARD."),
        set_aside: str | None = typer.Option(None, "--set-aside", help="The face-down "
                                                "set-aside card, if you saw it (R2-D2)."),
        bottom: str | None = typer.Option(None, help="Every card you put under the deck "
                                             "with Leia, the first drawn first, drawn "
                                             "since or not."),
        deck: int | None = typer.Option(None, help="Cards left in the deck, to check "
                                           "the situation against."),
        log: str | None = typer.Option(None, help="The round's events as you saw them, "
                                          "separated by ';', or a pasted information "
                                          "state 'pN hand:[...] | ...' (docs/hint.md: "
                                          "event log)."),
        log_file: Path | None = typer.Option(None, "--log-file", **options.INPUT_FILE,
                                             help="The events, one per line (UTF-8)."),
        policy: list[Path] | None = typer.Option(
            None, **options.INPUT_FILE, help="Policy file(s) to use instead of the "
            "shipped ones (repeatable)."),
        seconds: float = typer.Option(0.25, **options.SECONDS, help="Time for the "
                                      "rollouts behind the values."),
        resolve_seconds: float = typer.Option(2.0, "--resolve-seconds", **options.SECONDS,
                                              help="Time budget for re-solving a "
                                              "situation the table lacks."),
        search: bool = typer.Option(True, "--search/--no-search", help="Re-solve the rest "
                                    "of the round at this decision (decision-time search, "
                                    "docs/hint.md); --no-search: the table's answer."),
        search_seconds: float = typer.Option(1.0, "--search-seconds", **options.SECONDS,
                                             help="Time budget of the search."),
        search_iterations: int | None = typer.Option(
            None, "--search-iterations", **options.POSITIVE, help="Exactly this many "
            "search iterations instead of a time budget (repeatable answers)."),
        seed: int = typer.Option(0, **options.SEED, help="Seed for worlds, rollouts and "
                                 "the search."),
        score: str | None = typer.Option(None, "--score", help="The match's tokens by seat "
                                         "before this round, e.g. '3,5': play for the match, "
                                         "not the round (docs/match.md)."),
        match_goal: int | None = typer.Option(None, "--match-goal", **options.POSITIVE,
                                              help="Tokens that win the match (default: "
                                              "docs/RULES.md R14's for the players)."),
        match_values: Path | None = typer.Option(None, "--match-values",
                                                 **options.INPUT_FILE, help="A `jabba "
                                                 "match-table` record (default: the "
                                                 "shipped one of the game)."),
        rounds_played: int | None = typer.Option(None, "--rounds-played", min=0,
                                                 help="Rounds before this one (checks "
                                                 "--score)."),
        opponent: list[str] | None = typer.Option(
            None, "--opponent", help="SEAT=MODEL: exploit a model of that opponent (2 "
            "players): a heuristic, 'table', a policy file or a `jabba model fit` file "
            "(docs/opponents.md)."),
        exploit: str = typer.Option("safe", "--exploit", help="With --opponent: 'safe' (a "
                                    "restricted Nash response, --confidence on the model) "
                                    "or 'best-response'."),
        confidence: float = typer.Option(0.5, "--confidence", help="With --exploit safe: "
                                         "the weight on the model, strictly between 0 "
                                         "and 1."),
        prior_only: bool = typer.Option(False, "--prior-only", help="Beliefs from the "
                                        "chance odds alone: no inference from what the "
                                        "others chose to play (card counting over the "
                                        "histories the situation allows)."),
        pot: str | None = typer.Option(None, help="han_solo: the pot's tokens, one per "
                                       "player, e.g. 'green,gold' (if the log has no "
                                       "'pot' lines)."),
        turn: int | None = typer.Option(None, help="han_solo: your turn, 1 to 3, checked "
                                        "against the log; sarlaccs_pit: turns begun, yours "
                                        "included (default 1)."),
        board: str | None = typer.Option(None, help="sarlaccs_pit: 'default' or a board "
                                         "file (.toml, .json), checked (docs/RULES.md S1)."),
        positions: str | None = typer.Option(None, help="sarlaccs_pit: every hero's space "
                                             "by seat, e.g. 'c2,a3' ('detention' for the "
                                             "Detention Area; default: all there)."),
        jabba: str | None = typer.Option(None, help="sarlaccs_pit: Jabba's space (his "
                                         "start or a grey space)."),
        defeated: str | None = typer.Option(None, help="sarlaccs_pit: the posts whose "
                                            "guards are defeated, e.g. 'left1,right2'."),
        guards_left: str | None = typer.Option(None, "--guards-left", help="sarlaccs_pit: "
                                               "instead of --defeated, the posts whose "
                                               "guards stand."),
        points: str | None = typer.Option(None, help="sarlaccs_pit: every seat's Jedi "
                                          "points, e.g. '0,1'."),
        hand_sizes: str | None = typer.Option(None, "--hand-sizes", help="sarlaccs_pit: "
                                              "every seat's hand size (default 4 for the "
                                              "others)."),
        discard: str | None = typer.Option(None, help="sarlaccs_pit: the discard pile's "
                                           "cards, e.g. '3,5,jabba'."),
        decision: str | None = typer.Option(None, help="sarlaccs_pit: 'play' (your turn's "
                                            "start; default) or 'jabba_move' (you drew a "
                                            "Jabba card: where he goes)."),
        rollouts: int | None = typer.Option(None, **options.POSITIVE, help="Exactly this "
                                            "many rollouts (repeatable answers); han_solo: "
                                            "default 1000."),
        as_json: bool = typer.Option(False, "--json", help="Print the versioned JSON "
                                     "answer."),
    ) -> None:
        """Which card should I play? The policy's advice, each play's value, and beliefs."""
        from solver.hint.advice import answer as answer_hint
        from solver.hint.request import HintInputError, HintRequest
        from solver.hint.situation import SituationError

        options.exclusive(ctx, "log", "log_file")
        if score is None:
            options.applies_only(ctx, ("match_goal", "match_values", "rounds_played"),
                                 "with --score")
        if not opponent:
            options.applies_only(ctx, ("exploit", "confidence"), "with --opponent")
        data = _read_situation_file(situation) if situation else {}
        chosen = game or data.get("game") or options.GAMES[0]
        reader = games.hint_reader(chosen)  # an unknown game: refused with the request
        _refuse_other_games_options(ctx, reader)
        if agenda is not None and games.find(chosen) is not None:
            options.refuse_agendas(ctx, chosen, "agenda")
        flags = {"game": game, "players": players, "agenda": agenda, "seat": seat, "hand": hand,
                 "face_up": face_up, "out": out, "protected": protected,
                 "set_aside": set_aside, "bottom": bottom, "deck": deck, "pot": pot,
                 "turn": turn, "board": board, "positions": positions, "jabba": jabba,
                 "defeated": defeated, "guards_left": guards_left, "points": points,
                 "hand_sizes": hand_sizes, "discard": discard, "decision": decision}
        data.update({k: v for k, v in flags.items() if v is not None})
        for field, values, option in (("areas", area, "--area"), ("saw", saw, "--saw"),
                                      ("seen_by", seen_by, "--seen-by")):
            if values:
                data[field] = _merged(data, field, options.seat_pairs(values, option),
                                      option)
        if log is not None:
            data["log"] = log
        if log_file is not None:
            data["log"] = [x for x in options.read_text(log_file, "--log-file").splitlines()
                           if x.strip()]
        note = reader.first_run_note()
        if note is not None:
            print(note, file=sys.stderr)
        try:
            request = HintRequest.from_inputs(
                data, policy_files=policy, score=score, match_goal=match_goal,
                match_values=match_values, rounds_played=rounds_played, opponent=opponent,
                exploit=exploit, confidence=confidence, prior_only=prior_only, seconds=seconds,
                resolve_seconds=resolve_seconds, seed=seed, search=search,
                search_seconds=search_seconds, search_iterations=search_iterations,
                rollouts=rollouts)
            answer = answer_hint(request).to_json()
        except HintInputError as err:
            raise typer.BadParameter(str(err), param_hint="--" + err.option.replace("_", "-")
                                     ) from None
        except SituationError as err:
            typer.echo(f"Error: impossible situation: {err}", err=True)
            raise typer.Exit(2) from None
        except ValueError as err:  # a refused policy file
            typer.echo(f"Error: {err}", err=True)
            raise typer.Exit(2) from None
        if as_json:
            typer.echo(json.dumps(answer, indent=2))
        else:
            _render(answer)

    @app.command()
    def export(
        ctx: typer.Context,
        game_name: str = options.game_option(command="export"),
        players: int = options.players_option("Players, for the shipped policy."),
        agenda: str = options.agenda_option("Agenda, for the shipped policy (--game "
                                            f"{' or '.join(options.AGENDA_GAMES)} only)."),
        policy: Path | None = typer.Option(None, **options.INPUT_FILE, help="A policy "
                                           "file instead of the shipped one."),
        fmt: str = typer.Option("csv", "--format", help="csv (plain; the header in "
                                "OUT.json) or jsonl (the header on the first line)."),
        output: Path = typer.Option(..., "--out", "-o", **options.OUTPUT_FILE,
                                    help="File to write."),
        rounds: int = typer.Option(2000, **options.POSITIVE, help="Self-play rounds that "
                                   "find and describe the keys (and count visits)."),
        all_keys: bool = typer.Option(False, "--all-keys", help="Also keys the sample "
                                      "never met (no description, 0 visits)."),
        seed: int = typer.Option(0, **options.SEED, help="Seed for the self-play sample."),
    ) -> None:
        """Write a policy as a strategy table (CSV or JSON Lines; columns in docs/hint.md)."""
        import time

        from rich.progress import Progress

        from solver.hint.export import FORMATS, export_header, export_rows, write_rows
        from solver.policies.table import load_policy, shipped_policies

        if fmt not in FORMATS:
            raise typer.BadParameter(f"--format {fmt!r}: allowed are {', '.join(FORMATS)}")
        game = options.load_game(game_name, players, "full", agenda=agenda, ctx=ctx)
        try:
            own = options.own_commands(game_name)
            if own is not None:  # its table, its keys and its rows (e.g. cli/han_solo.py)
                player, table, source, rows_of = own.export_policy(game, policy)
            else:
                from spiel_game.game import variant

                paths = [policy] if policy else shipped_policies("full", variant(game),
                                                                 players)
                if not paths:
                    raise typer.BadParameter(f"no shipped policy for {players} players, "
                                             f"{variant(game)}; give --policy")
                player = table = load_policy(paths[0], game)
                source, rows_of = paths[0], export_rows
        except ValueError as err:
            typer.echo(f"Error: {err}", err=True)
            raise typer.Exit(2) from None
        start = time.perf_counter()
        with Progress(transient=True) as bar:
            task = bar.add_task("self-play", total=rounds)
            rows = rows_of(game, player, rounds, seed, all_keys,
                           progress=lambda r: bar.update(task, completed=r))
        header = export_header(game, table, source, rounds=rounds, seed=seed,
                               all_keys=all_keys, seconds=time.perf_counter() - start)
        written = write_rows(rows, output, fmt, header)
        keys = len({r["key"] for r in rows})
        typer.echo(f"wrote {output}: {len(rows)} rows, {keys} keys from {source}"
                   + "".join(f"; header in {p}" for p in written[1:]))


def _refuse_other_games_options(ctx: typer.Context, reader) -> None:
    """Refuse hint options of other games (solver/games/, `hint_options`): those of
    several games apply "to --game A or B, not C", one game's "with --game A"."""
    for name in dict.fromkeys(o for a in games.ADAPTERS.values() for o in a.hint_options):
        if name in reader.hint_options:
            continue
        takers = [a.name for a in games.ADAPTERS.values() if name in a.hint_options]
        options.applies_only(ctx, (name,), f"with --game {takers[0]}" if len(takers) == 1
                             else f"to --game {' or '.join(takers)}, not {reader.name}")


def _render(answer: dict, console=None) -> None:
    """The answer as text, laid out for the console's width (80 columns and up)."""
    from rich.console import Console
    from rich.table import Table
    from rich.text import Text

    console = console or Console()
    sit = answer["situation"]
    own = options.own_commands(sit["game"])
    if own is not None:  # the game's own answer (e.g. cli/han_solo.py)
        own.render_hint(answer, console)
        return
    variant = sit["agenda"] or sit["game"]  # love_letter has no agenda
    deck = [] if sit["deck"] is None else [f"deck {sit['deck']}"]
    _print_pieces(console, [Text.from_markup(f"[bold]{sit['players']} players, {variant}, "
                                             f"you are seat {sit['seat']}[/bold]: hand "),
                            *_joined([", ".join(sit["hand"]), *deck], "; ")])
    rec = answer["recommendation"]
    if rec["chosen_by"] == "rules":  # a forced play (docs/RULES.md C3): nothing to value
        console.print(f"[bold green]Play: {rec['action']}[/bold green] "
                      f"({answer['policy']['detail']})")
        return
    console.print(f"[bold green]Recommended: {rec['action']}[/bold green]")
    searched = answer["policy"]["search"]["used"]
    match = answer.get("match")
    table, left_out = _plays_table(answer, console)
    console.print(table)
    model = answer.get("opponent_model")
    if model:
        if model["used"]:
            console.print(f"  Exploiting p{model['seat']} as {model['model']} "
                          f"({model['mode']}, confidence {model['confidence']:g}): expected "
                          f"gain {model['expected_gain']:+.3f} over the unexploiting search "
                          f"here, risk {model['risk_if_wrong']:+.3f} if p{model['seat']} "
                          "plays the re-solved equilibrium instead")
        else:
            console.print(f"  Not exploiting p{model['seat']}: {model['reason']}")
    if match:
        now = match["match_win_now"][sit["seat"]]
        console.print(f"  Match: standings {'-'.join(map(str, match['standings']))} (goal "
                      f"{match['goal']}), your chance to win it now {now:.1%}; the advice "
                      "plays for the match" + (f", [bold]not for the round: the round's "
                      f"best EV is the {match['round_ev_play']}[/bold]"
                      if match["disagrees"] else ", and the round's best EV agrees"))
    if searched:
        console.print("  (search EV: under the re-solved play of everyone; EV: the table "
                      "plays on, by rollouts)")
    elif rec["chosen_by"] != "value":
        console.print(f"  (card chosen by the {rec['chosen_by']})")
    if left_out:
        console.print(f"  ({' and '.join(left_out)} left out at this width; --json has "
                      "all)")
    for step in ([] if searched else rec["steps"]):
        best_options = sorted(step["options"], key=lambda o: -o["ev"])[:5]
        shown = [f"{o['action']} {o['ev']:+.2f} ± {o['ev_ci95']:.2f}"
                 + ("" if o["probability"] is None else f" ({o['probability']:.0%})")
                 for o in best_options] + ([] if len(step["options"]) <= 5 else ["..."])
        by = "" if step["chosen_by"] == "value" else f" [{step['chosen_by']}]"
        _print_pieces(console, [f"  then {step['decision']}: {step['chosen']}{by}   (EV: ",
                                *_joined(shown, ", ", ")")])
    beliefs = Table(title="What the others hold")
    beliefs.add_column("seat", no_wrap=True)
    beliefs.add_column("hand (probability)", no_wrap=True)
    seats = [f"p{o['seat']}" + (" (protected)" if o["status"] == "protected" else "")
             for o in answer["opponents"]]
    room = _room(console.width, [max(map(len, ["seat", *seats]))])
    for o, seat in zip(answer["opponents"], seats):
        cards = [f"{c['card']} {c['probability']:.0%}" for c in o["hand"]]
        beliefs.add_row(seat, "out" if o["status"] == "out" else _first_items(cards, room))
    console.print(beliefs)
    explanations = answer["posterior"]["explanations"]
    if explanations:  # which play knocked out whom, where the summary leaves it open
        possible = sorted((e for e in explanations if e["probability"] > 0),
                          key=lambda e: -e["probability"])
        none = len(explanations) - len(possible)
        _print_pieces(console, [f"who went out to which play ({len(explanations)} "
                                "explanations" + (f", {none} that no history gives" if none
                                                  else "") + "): ",
                                *_joined([f"{e['knock_outs']} {e['probability']:.0%}"
                                          for e in possible], "; ")])
    pol, roll = answer["policy"], answer["rollouts"]
    if searched:
        for step in rec["steps"]:
            best = sorted(step["options"], key=lambda o: -o["search_probability"])[:5]
            shown = [f"{o['action']} {o['search_probability']:.0%}" for o in best]
            _print_pieces(console, [f"  then {step['decision']}: {step['chosen']}   "
                                    "(search: ", *_joined(shown, ", ", ")")])
    elif not pol["search"]["used"] and pol["search"]["reason"] != "not asked for (--no-search)":
        console.print(f"search not used: {pol['search']['reason']}")
    console.print(f"policy: {pol['detail']}; posterior: {answer['posterior']['basis']} "
                  f"({answer['posterior']['worlds']} worlds); values from {roll['count']:,} "
                  f"rollouts ({roll['from_table']:.1%} of their decisions from the table, "
                  f"{roll['from_coarser_table']:.1%} from a coarser one, "
                  f"{roll['from_default_policy']:.1%} from {roll['default_policy']}); "
                  f"{answer['seconds']:.2f} s")


def _plays_table(answer: dict, console):
    """The plays table in its fullest form that fits the console, and what it left out.
    Narrower, in turn: shorter headers (the EV's unit in the title) and no 'play ' in the
    cells; no interval on the EV (vs best keeps its paired one, the choice's comparison);
    no table column beside the search's. Figures never wrap; a play's name may."""
    from rich.table import Table

    searched = answer["policy"]["search"]["used"]
    match = answer.get("match")
    for level in range(4):
        compact, no_interval, no_table = level >= 1, level >= 2, level >= 3 and searched
        table = Table(title="Your plays (each card with its best target and number"
                      + ("; EV in token margin)" if compact else ")"))
        table.add_column("play")
        figure = {"justify": "right", "no_wrap": True}
        two_lines = "\n" if compact else " "
        if searched:
            table.add_column("search", **figure)
            table.add_column(f"search{two_lines}{'value' if match else 'EV'}", **figure)
        if not no_table:
            table.add_column("table", **figure)
        if match:
            table.add_column(f"match{two_lines}win", **figure)
        table.add_column("EV" if compact else "EV (token margin)", **figure)
        table.add_column("vs best", **figure)
        for p in answer["plays"]:
            name = p["full_action"].removeprefix("play " if compact else "")
            found = ([f"{p['search_probability']:.0%}", f"{p['search_value']:+.3f}"]
                     if searched else [])
            prob = [] if no_table else [
                "-" if p["probability"] is None else f"{p['probability']:.0%}"]
            wins = [] if not match else [
                f"{p.get('search_match_win', p['match_win']):.1%}"]
            ev = f"{p['ev']:+.3f}" + ("" if no_interval else f" ± {p['ev_ci95']:.3f}")
            table.add_row(name, *found, *prob, *wins, ev,
                          f"{p['vs_best']:+.3f} ± {p['vs_best_ci95']:.3f}")
        if _fits(table, console):
            break
    return table, (["EV intervals"] if no_interval else []) + (
        ["the table column"] if no_table else [])


def _fits(table, console) -> bool:
    """Whether `table` fits the console's width without wrapping a cell."""
    unbounded = console.options.update(max_width=10**4)
    return console.measure(table, options=unbounded).maximum <= console.width


def _room(width: int, others: list[int]) -> int:
    """Characters left for the last column of a rich table (default box and padding) of
    `width` whose other columns are `others` wide."""
    return width - 3 * (len(others) + 1) - 1 - sum(others)


def _first_items(items: list[str], room: int, most: int = 6) -> str:
    """The first items (at most `most`) joined by ', ' within `room` characters, and
    ', ...' when some are left out: a list cut between items, never inside one."""
    shown = items[:most]
    while True:
        text = ", ".join(shown) + (", ..." if len(shown) < len(items) else "")
        if len(text) <= room or len(shown) <= 1:
            return text
        shown = shown[:-1]


def _joined(items: list[str], separator: str, tail: str = "") -> list[str]:
    """The items with `separator` after each but the last, which gets `tail`."""
    return [item + (tail if i == len(items) - 1 else separator)
            for i, item in enumerate(items)]


def _print_pieces(console, pieces: list, indent: str = "      ") -> None:
    """Print `pieces` (strings, taken literally, or rich Texts) on lines of at most the
    console's width, broken between pieces only, later lines indented. Rich alone breaks
    at any space: '+0.50 ±' at the end of a line and '0.03' on the next."""
    from rich.text import Text

    lines, line = [], Text()
    for piece in pieces:
        piece = piece if isinstance(piece, Text) else Text(piece)
        if line.plain.strip() and line.cell_len + len(piece.plain.rstrip()) > console.width:
            line.rstrip()
            lines.append(line)
            line = Text(indent)
        line.append_text(piece)
    lines.append(line)
    for text in lines:
        console.print(console.highlighter(text))
