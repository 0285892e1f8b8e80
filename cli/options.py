"""Validation shared by every `jabba` command: typed option parsers (budgets, seeds,
counts), the game's options (`game_option`, `players_option`, `agenda_option`,
`deck_option`) and the one way to load it (`load_game`), input files, SEAT=CARDS pairs,
options that conflict, clean help, a quiet broken pipe.

Every refusal is a `typer.BadParameter` naming the option, the value given and what is
allowed; typer prints it without a traceback and exits with code 2 (docs/bad-input.md).
"""

from __future__ import annotations

import math
import os
import sys
from pathlib import Path

import typer
from typer.core import TyperGroup

from spiel_game import REGISTERED
from spiel_game.cards import AGENDA_GAMES, AGENDAS, GAMES, RULESET_OF_GAME, RULESETS

HELP_OPTION_NAMES = ["-h", "--help"]
MAX_SECONDS = 1e9  # about 31 years: finite, and every deadline computed from it stays finite
INT64_LIMIT = 1 << 63  # counts and seeds go to numba as int64
EXIT_BROKEN_PIPE = 141  # 128 + SIGPIPE, what a Unix tool killed by a closed pipe returns


def _integer(low: int, high: int, allowed: str):
    """A parser of integers low <= n < high; the refusal says `allowed`."""
    def parse(value) -> int:
        try:
            number = int(value) if not isinstance(value, float) else None
        except ValueError:
            number = None
        if number is None or not low <= number < high:
            raise typer.BadParameter(f"{value!r}: allowed is {allowed}")
        return number
    return parse


def _real(high: float, allowed: str):
    """A parser of finite reals 0 < x <= high; the refusal says `allowed`."""
    def parse(value) -> float:
        try:
            number = float(value)
        except ValueError:
            number = math.nan
        if not (math.isfinite(number) and 0 < number <= high):
            raise typer.BadParameter(f"{value!r}: allowed is {allowed}")
        return number
    return parse


# typer.Option keyword arguments, e.g. typer.Option(0.25, **SECONDS, help=...).
SECONDS = dict(parser=_real(MAX_SECONDS, "a number of seconds above 0 and at most 1e9"),
               metavar="SECONDS")
POSITIVE_REAL = dict(parser=_real(1e6, "a number above 0 and at most 1e6"),
                     metavar="NUMBER")
SEED = dict(parser=_integer(0, INT64_LIMIT, "an integer from 0 to 2**63 - 1"),
            metavar="SEED")
POSITIVE = dict(parser=_integer(1, INT64_LIMIT, "an integer from 1 to 2**63 - 1"),
                metavar="N")
COUNT = dict(parser=_integer(0, INT64_LIMIT, "an integer from 0 to 2**63 - 1"), metavar="N")
THREADS = dict(parser=_integer(1, 1025, "an integer from 1 to 1024"), metavar="N")
PORT = dict(parser=_integer(0, 65536, "an integer from 0 (any free port) to 65535"),
            metavar="PORT")


def _games_parser(games: tuple[str, ...]):
    """A --game parser allowing `games`; han_solo refused by a command that lacks it."""
    def parse(value) -> str:
        if value not in games:
            why = (f"; han_solo's commands are {', '.join(HAN_SOLO_COMMANDS)}"
                   if value == HAN_SOLO else "")
            raise typer.BadParameter(f"{value!r}: allowed are {', '.join(games)}{why}")
        return value
    return parse


_game = _games_parser(GAMES)


def _described(rules) -> str:
    return (f"{rules.game} ({rules.description}"
            f"{'' if rules.has_agendas else '; it has no agenda'})")


# The games of the commands: the Love Letter rule sets (spiel_game.cards.GAMES) and, for
# the commands of HAN_SOLO_COMMANDS, han_solo (its own engine: spiel_game/han_solo/).
HAN_SOLO = "han_solo"
HAN_SOLO_COMMANDS = ("hint", "play", "serve", "export", "tournament", "lbr", "solve",
                     "exploit")
ALL_GAMES = REGISTERED
_GAMES_TEXT = [_described(r) for r in RULESETS]
_HAN_SOLO_TEXT = "han_solo (Star Wars: Han Solo card game; docs/han-solo.md)"
GAME = dict(parser=_game, metavar="GAME",
            help=f"The game: {', '.join(_GAMES_TEXT[:-1])} or {_GAMES_TEXT[-1]}.")
GAME_OR_HAN_SOLO = dict(parser=_games_parser(ALL_GAMES), metavar="GAME",
                        help=f"The game: {', '.join(_GAMES_TEXT)} or {_HAN_SOLO_TEXT}.")
AGENDA_HELP = f"Agenda ({', '.join(AGENDA_GAMES)})."
AGENDA_LIST = f"{', '.join(AGENDAS[:-1])} or {AGENDAS[-1]}"  # for help texts
DECK_HELP = "full, a reduced preset or a spec."


# The game's options, the same for every command (a command's help may say more; `jabba
# hint` defaults them to None, so that its situation file's fields stand).
def game_option(default: str | None = GAMES[0], han_solo: bool = False):
    """--game; `han_solo`: the command takes han_solo too (HAN_SOLO_COMMANDS)."""
    return typer.Option(default, "--game", **(GAME_OR_HAN_SOLO if han_solo else GAME))


def players_option(help: str = "Number of players.", default: int | None = 2):
    return typer.Option(default, "--players", help=help)


def agenda_option(help: str = AGENDA_HELP, default: str | None = AGENDAS[0]):
    return typer.Option(default, "--agenda", help=help)


def deck_option(default: str = "full", help: str = DECK_HELP):
    return typer.Option(default, "--deck", help=help)


def results_guard(value: Path | None) -> Path | None:
    """An output path, refused before any work if it lies in results/ of a checkout with
    uncommitted code (provenance.check_results_write; `jabba --allow-dirty` lifts it)."""
    if value is not None:
        from solver import provenance

        try:
            provenance.check_results_write(value)
        except provenance.DirtyCodeError as err:
            raise typer.BadParameter(str(err)) from None
    return value


# Files: click checks existence and kind and names the option.
INPUT_FILE = dict(exists=True, dir_okay=False, metavar="FILE")
OUTPUT_FILE = dict(dir_okay=False, metavar="FILE", callback=results_guard)
OUTPUT_FOLDER = dict(file_okay=False, metavar="FOLDER", callback=results_guard)


def read_text(path: Path, option: str) -> str:
    """A text file's contents, read as UTF-8, or a refusal naming `option`."""
    try:
        return path.read_bytes().decode("utf-8")
    except UnicodeDecodeError as err:
        raise typer.BadParameter(f"{path}: not UTF-8 text (byte {err.start}); give a "
                                 "UTF-8 text file", param_hint=option) from None
    except OSError as err:
        raise typer.BadParameter(f"{path}: {err.strerror}", param_hint=option) from None


def int_list(text: str, option: str) -> list[int]:
    """'3,5' as [3, 5]; anything but comma-separated whole numbers is refused."""
    items = [x.strip() for x in text.split(",")]
    if not all(x.lstrip("-").isdigit() for x in items):
        raise typer.BadParameter(f"{text!r}: expected whole numbers separated by commas, "
                                 "one per seat, e.g. '3,5'", param_hint=option)
    return [int(x) for x in items]


def seat_pairs(values: list[str] | None, option: str) -> dict[str, str]:
    """'1=luke' or '1:luke,guard' items as {seat: text}; a seat given twice is refused."""
    out: dict[str, str] = {}
    for item in values or []:
        seat, sep, rest = item.partition("=")
        if not sep:
            seat, sep, rest = item.partition(":")
        if not sep:
            raise typer.BadParameter(f"{item!r}: expected SEAT=CARDS, e.g. '1=luke'",
                                     param_hint=option)
        seat = seat.strip()
        if seat in out:
            raise typer.BadParameter(f"seat {seat} given twice ({seat}={out[seat]} and "
                                     f"{item}); give each seat once, its cards "
                                     "comma-separated", param_hint=option)
        out[seat] = rest.strip()
    return out


def progress_bars():
    """A rich progress display on stderr: description, bar, done of total, time taken."""
    from rich.console import Console
    from rich.progress import (BarColumn, MofNCompleteColumn, Progress, TextColumn,
                               TimeElapsedColumn)

    return Progress(TextColumn("{task.description}"), BarColumn(), MofNCompleteColumn(),
                    TimeElapsedColumn(), console=Console(stderr=True))


def tracker(progress):
    """on_progress(label, done, total) updating one task of `progress` per label."""
    tasks = {}

    def update(label: str, done: int, total: int) -> None:
        if label not in tasks:
            tasks[label] = progress.add_task(label, total=total or None)
        progress.update(tasks[label], completed=done)
    return update


def given(ctx: typer.Context, name: str) -> bool:
    """Whether the user gave option `name` (the parameter's name) on the command line."""
    source = ctx.get_parameter_source(name)  # typer's own click: compared by name
    return source is not None and source.name not in ("DEFAULT", "DEFAULT_MAP")


def _flag(ctx: typer.Context, name: str) -> str:
    return next(p.opts[0] for p in ctx.command.params if p.name == name)


def exclusive(ctx: typer.Context, *names: str) -> None:
    """Refuse two or more of these options given together."""
    both = [_flag(ctx, n) for n in names if given(ctx, n)]
    if len(both) > 1:
        raise typer.BadParameter(f"{' and '.join(both)} both given; give one",
                                 param_hint=both[-1])


def load_game(game: str, players: int, deck: str, utility: str = "margin",
              agenda: str | None = None, ctx: typer.Context | None = None,
              agenda_option: str = "agenda"):
    """The game the options describe (spiel_game.load); a refusal names what was wrong.
    `agenda` (None: the default) is for a game with agendas; for one without, an agenda
    the user gave (ctx: option `agenda_option`) is refused, and the default ignored."""
    import pyspiel

    import spiel_game

    if game == HAN_SOLO:
        if ctx is not None:
            applies_only(ctx, (agenda_option,), f"to --game {' or '.join(AGENDA_GAMES)}: "
                         "han_solo has no agendas")
        return load_han_solo(players, deck, utility)
    if not RULESET_OF_GAME[_game(game)].has_agendas:
        if ctx is not None:
            refuse_agendas(ctx, game, agenda_option)
        agenda = None
    try:
        return spiel_game.load(game, players=players, agenda=agenda, deck=deck,
                               utility=utility)
    except (ValueError, pyspiel.SpielError) as err:
        raise typer.BadParameter(str(err)) from None


def load_han_solo(players: int, deck: str = "full", utility: str = "margin"):
    """han_solo with `players`; deck 'full' or a reduced deck of solver/han_solo/exact.py
    (DECKS: the exact tools' one-turn decks)."""
    import pyspiel

    from solver.han_solo.exact import DECKS

    if deck != "full" and deck not in DECKS:
        raise typer.BadParameter(f"{deck!r}: han_solo's decks are full, "
                                 f"{', '.join(DECKS)} (docs/han-solo.md)",
                                 param_hint="--deck")
    params = {} if deck == "full" else dict(DECKS[deck])
    try:
        return pyspiel.load_game(HAN_SOLO, {**params, "players": players,
                                            "utility": utility})
    except (ValueError, pyspiel.SpielError) as err:
        raise typer.BadParameter(str(err)) from None


def refuse_han_solo_options(ctx: typer.Context, game: str, *names: str) -> None:
    """Refuse options of the Love Letter games given with --game han_solo."""
    if game == HAN_SOLO:
        applies_only(ctx, names, f"to --game {' or '.join(GAMES)}, not han_solo")


def refuse_agendas(ctx: typer.Context, game: str, *names: str) -> None:
    """Refuse these options (an agenda, agendas) given for a game without agendas."""
    if game == HAN_SOLO:
        applies_only(ctx, names, f"to --game {' or '.join(AGENDA_GAMES)}: han_solo has no "
                     "agendas")
        return
    rules = RULESET_OF_GAME[game]
    if not rules.has_agendas:
        applies_only(ctx, names, f"to --game {' or '.join(AGENDA_GAMES)}: {game} has no "
                     f"agendas ({rules.deck_end_ruling})")


def ship_folder(out: Path | None, option: str) -> Path:
    """--ship's folder (solver.policies.shipped.ship_folder), or a refusal saying why
    not (`option`, where to write, given too; an installed package; uncommitted code)."""
    from solver.policies import shipped

    try:
        return shipped.ship_folder(out, option)
    except ValueError as err:
        raise typer.BadParameter(str(err)) from None


def applies_only(ctx: typer.Context, names: tuple[str, ...], condition: str) -> None:
    """Refuse any of these options given when they do not apply (`condition` says when
    they do)."""
    for name in names:
        if given(ctx, name):
            raise typer.BadParameter(f"applies only {condition}", param_hint=_flag(ctx, name))


_METAVARS = {"int": "INTEGER", "float": "NUMBER", "str": "TEXT", "file": "FILE",
             "path": "PATH", "directory": "FOLDER", "bool": "BOOLEAN"}


def _clean_help(command, ctx) -> None:
    """Click-style metavars (none on flags, INTEGER, TEXT... not typer's <bool>, <str>),
    and no default shown for a flag that is off by default."""
    help_option = command.get_help_option(ctx)
    for param in [*command.params, *([help_option] if help_option else [])]:
        if not hasattr(param, "display_type_rich"):
            continue  # not a typer parameter
        if getattr(param, "is_flag", False):
            label = ""
            if not param.default:
                param.show_default = False
        elif param.metavar is not None:
            label = param.metavar
        else:
            label = param.display_type(ctx).strip("<>")
            label = label.removeprefix("list[").removesuffix("]")
            label = _METAVARS.get(label.lower(), label.upper())
        param.display_type_rich = lambda ctx, label=label: label  # typer's type column


class Group(TyperGroup):
    """The `jabba` group: clean help for every command, and a reader that closes the pipe
    (`jabba play | head -1`) ends the command quietly with EXIT_BROKEN_PIPE."""

    def get_command(self, ctx, cmd_name):
        command = super().get_command(ctx, cmd_name)
        if command is not None:
            _clean_help(command, ctx)
        return command

    def format_help(self, ctx, formatter):
        _clean_help(self, ctx)
        return super().format_help(ctx, formatter)

    def invoke(self, ctx):
        try:
            result = super().invoke(ctx)
            sys.stdout.flush()  # inside the try: buffered output meets the closed pipe here
            return result
        except BrokenPipeError:
            # Python's recommended idiom: point stdout at devnull, so that the flush at
            # exit does not fail again and print "Exception ignored".
            devnull = os.open(os.devnull, os.O_WRONLY)
            os.dup2(devnull, sys.stdout.fileno())
            raise SystemExit(EXIT_BROKEN_PIPE) from None
