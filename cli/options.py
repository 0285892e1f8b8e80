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

from solver import games
from spiel_game.cards import AGENDA_GAMES, AGENDAS, GAMES

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


def _games_parser(allowed: tuple[str, ...]):
    """A --game parser allowing `allowed`; a game the command does not take is refused
    saying which commands take it."""
    def parse(value) -> str:
        if value not in allowed:
            game = games.find(value)
            commands = game.capabilities.commands if game is not None else None
            why = f"; {value}'s commands are {', '.join(commands)}" if commands else ""
            raise typer.BadParameter(f"{value!r}: allowed are {', '.join(allowed)}{why}")
        return value
    return parse


def _game_option_kind(allowed: tuple[str, ...]) -> dict:
    """typer.Option keyword arguments of a --game taking `allowed`."""
    titles = [games.adapter(name).title for name in allowed]
    return dict(parser=_games_parser(allowed), metavar="GAME",
                help=f"The game: {', '.join(titles[:-1])} or {titles[-1]}.")


# --game of the commands that take the Love Letter engine's games only (GAMES); a command
# that takes more says so to game_option (solver/games/, capability `commands`).
GAME = _game_option_kind(GAMES)
AGENDA_HELP = f"Agenda ({', '.join(AGENDA_GAMES)})."
AGENDA_LIST = f"{', '.join(AGENDAS[:-1])} or {AGENDAS[-1]}"  # for help texts
DECK_HELP = "full, a reduced preset or a spec."


# The game's options, the same for every command (a command's help may say more; `jabba
# hint` defaults them to None, so that its situation file's fields stand).
def game_option(default: str | None = GAMES[0], command: str | None = None):
    """--game; `command`: the games whose adapters take that command (solver/games/),
    else the Love Letter engine's."""
    kind = GAME if command is None else _game_option_kind(games.taking(command))
    return typer.Option(default, "--game", **kind)


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
    """The game the options describe (its adapter's `load`); a refusal names what was
    wrong. `agenda` (None: the default) is for a game with agendas; for one without, an
    agenda the user gave (ctx: option `agenda_option`) is refused, and the default
    ignored."""
    import pyspiel

    adapter = games.adapter(_games_parser(games.NAMES)(game))
    if not adapter.capabilities.agendas:
        if ctx is not None:
            refuse_agendas(ctx, game, agenda_option)
        agenda = None
    try:
        return adapter.load(players, deck, utility, agenda)
    except games.OptionError as err:
        raise typer.BadParameter(str(err), param_hint=f"--{err.option}") from None
    except (ValueError, pyspiel.SpielError) as err:
        raise typer.BadParameter(str(err)) from None


def own_commands(game: str):
    """The command line's module of the game's own commands (its adapter's `cli_module`,
    e.g. cli/han_solo.py), or None: its commands are the Love Letter engine's."""
    import importlib

    module = games.adapter(game).cli_module
    return None if module is None else importlib.import_module(module)


def refuse_lacking(ctx: typer.Context, game: str, *needs: tuple[str, str]) -> None:
    """Refuse each option of `needs` ((option, capability) pairs, in order) given for a
    game without that capability, naming the games with it."""
    for name, capability in needs:
        if not getattr(games.adapter(game).capabilities, capability):
            applies_only(ctx, (name,), f"to --game {' or '.join(games.having(capability))}"
                         f", not {game}")


def refuse_agendas(ctx: typer.Context, game: str, *names: str) -> None:
    """Refuse these options (an agenda, agendas) given for a game without agendas."""
    adapter = games.adapter(game)
    if not adapter.capabilities.agendas:
        applies_only(ctx, names, f"to --game {' or '.join(games.having('agendas'))}: "
                     f"{game} {adapter.no_agendas}")


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
