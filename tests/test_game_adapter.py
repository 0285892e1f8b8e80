"""The game adapters (solver/games/): every game loads and its hooks answer, its
capabilities agree with what the command line offers and refuses, an unknown name is
refused listing the games, and no comparison of a game's name creeps back outside
spiel_game/ and the registry.

`python tests/test_game_adapter.py [ROOT]` prints the name branches of a checkout (default:
this one) and their count: the number docs/design.md gives.
"""

from __future__ import annotations

import ast
import importlib
import re
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
GAME_NAMES = {"jabbas_palace", "love_letter", "han_solo", "sarlaccs_pit"}
# Names of game lists: a membership test in one reads a game's name too.
GAME_LISTS = {"GAMES", "AGENDA_GAMES", "ENGINE_GAMES", "ALL_GAMES", "REGISTERED"}
# The name branches allowed outside spiel_game/, solver/games/ and solver/game_hooks/,
# each for a reason said where it is: (file, the comparison as ast.unparse writes it).
ALLOWED_BRANCHES = {
    # A recorded command omits --game for the default game (--game's default).
    ("solver/provenance.py", "game == GAMES[0]"),
    # The first game's result files were named before there were others: no infix.
    ("solver/reports/files.py", "game == provenance.GAME_NAME"),
}


def _sources(root: Path) -> list[Path]:
    return [p for folder in ("solver", "cli") for p in sorted((root / folder).rglob("*.py"))
            if not p.relative_to(root).as_posix().startswith(
                ("solver/games/", "solver/game_hooks/"))]


def _name_constants(trees) -> set[str]:
    """Upper-case names assigned a game's name (HAN_SOLO = "han_solo")."""
    return {t.id for tree in trees for node in ast.walk(tree)
            if isinstance(node, ast.Assign) and isinstance(node.value, ast.Constant)
            and node.value.value in GAME_NAMES
            for t in node.targets if isinstance(t, ast.Name) and t.id.isupper()}


def _names_a_game(node, constants: set[str]) -> bool:
    if isinstance(node, ast.Constant):
        return node.value in GAME_NAMES
    if isinstance(node, (ast.Name, ast.Attribute)):
        name = node.id if isinstance(node, ast.Name) else node.attr
        return name in constants or name in GAME_LISTS
    if isinstance(node, ast.Subscript):
        return _names_a_game(node.value, constants) or _names_a_game(node.slice, constants)
    if isinstance(node, (ast.Tuple, ast.List, ast.Set)):
        return any(_names_a_game(e, constants) for e in node.elts)
    return False


def name_branches(root: Path = ROOT) -> list[tuple[str, int, str]]:
    """Every comparison (==, !=, in, is...) of something with a game's name, a constant
    holding one or a list of games, in solver/ and cli/ outside solver/games/ and
    solver/game_hooks/: (file, line, the comparison)."""
    files = _sources(root)
    trees = [ast.parse(p.read_text(encoding="utf-8")) for p in files]
    constants = _name_constants(trees)
    return [(p.relative_to(root).as_posix(), node.lineno, ast.unparse(node))
            for p, tree in zip(files, trees) for node in ast.walk(tree)
            if isinstance(node, ast.Compare)
            and any(_names_a_game(x, constants) for x in (node.left, *node.comparators))]


def test_no_name_branch_beyond_the_allowed_ones():
    found = {(path, text) for path, _, text in name_branches()}
    extra = sorted(found - ALLOWED_BRANCHES)
    assert not extra, ("compare a game's name only in solver/games/ (ask its adapter's "
                       f"capabilities or hooks instead): {extra}")
    assert len(ALLOWED_BRANCHES) <= 5


def test_the_counter_finds_a_name_branch(tmp_path):
    (tmp_path / "cli").mkdir()
    (tmp_path / "solver" / "games").mkdir(parents=True)
    (tmp_path / "cli" / "x.py").write_text('HS = "han_solo"\nok = g == HS\nx = g in GAMES\n'
                                           'y = g == "chess"\n')
    (tmp_path / "solver" / "games" / "y.py").write_text('z = g == "love_letter"\n')
    assert sorted(line for _, line, _ in name_branches(tmp_path)) == [2, 3]


# The registry ------------------------------------------------------------------------

def test_unknown_game_is_refused_listing_the_games():
    from solver import games

    with pytest.raises(ValueError, match="unknown game 'chess': the games are "
                       "jabbas_palace, love_letter, han_solo, sarlaccs_pit"):
        games.adapter("chess")
    assert games.find("chess") is None and games.find(None) is None
    assert games.hint_reader("chess") is games.adapter(games.DEFAULT)


def test_the_registry_holds_every_registered_game():
    import spiel_game
    from solver import games

    assert games.NAMES == spiel_game.REGISTERED
    assert games.DEFAULT == spiel_game.GAMES[0]


@pytest.mark.parametrize("name", ["jabbas_palace", "love_letter", "han_solo"])
def test_every_game_loads_and_its_hooks_answer(name):
    from solver import games
    from solver.play.session import Session

    adapter = games.adapter(name)
    game = adapter.load(2)
    assert game.get_type().short_name == name and games.of(game) is adapter
    again = adapter.load_parameters(dict(game.get_parameters()))
    assert again.get_parameters() == game.get_parameters()
    assert adapter.levels() and adapter.heuristics()
    mccfr = adapter.mccfr()
    assert mccfr.levels == adapter.levels()
    playing = adapter.playout()  # the play-out loop's and tournament's
    assert playing.engine is mccfr.engine
    assert playing.root(game).shape == game.initial_array.shape
    assert issubclass(adapter.session_class(), Session)
    note = adapter.first_run_note()
    assert note is None or isinstance(note, str)
    for hook in ("hint_situation", "hint_answer", "opponent", "advice_description"):
        assert callable(adapter.hook(hook))
    assert adapter.capabilities.agendas == ("agenda" in game.get_parameters())
    if not adapter.capabilities.agendas:
        assert adapter.no_agendas
    # Its web page's warm-up and example: a valid hint.
    sit, hinted, _ = adapter.hint_situation(dict(adapter.example_situation))
    assert hinted.get_type().short_name == name


def test_a_refused_deck_names_the_option():
    from solver import games

    with pytest.raises(games.OptionError, match="han_solo's decks are full") as err:
        games.adapter("han_solo").load(2, deck="medium")
    assert err.value.option == "deck"


# What the command line offers ----------------------------------------------------------

def _commands() -> dict:
    """The jabba commands by name; a group's (jabba model) under the group's name too."""
    import click
    import typer.main

    from cli.main import app

    out = {}
    for name, command in typer.main.get_command(app).commands.items():
        out[name] = command
        if isinstance(command, click.Group):
            out.update({f"{name} {sub}": c for sub, c in command.commands.items()})
    return out


def _game_choices(name: str, command) -> tuple[str, ...] | None:
    """The games a command's --game takes (None: it has no --game), parsed as typer
    would, leniently (no other option needed)."""
    param = next((p for p in command.params if "--game" in getattr(p, "opts", ())), None)
    if param is None:
        return None
    return tuple(game for game in ("jabbas_palace", "love_letter", "han_solo", "sarlaccs_pit")
                 if command.make_context(name, ["--game", game], resilient_parsing=True
                                         ).params.get(param.name) == game)


def test_each_command_takes_the_games_whose_adapters_name_it():
    from solver import games

    commands = _commands()
    checked = 0
    for name, command in commands.items():
        choices = _game_choices(name, command)
        if choices is not None:
            assert choices == games.taking(name.split()[0]), name
            checked += 1
    assert checked >= 10
    for adapter in games.ADAPTERS.values():
        for name in adapter.capabilities.commands or ():
            assert _game_choices(name, commands[name]) is not None, (adapter.name, name)


def test_own_commands_have_what_the_command_line_calls():
    from solver import games

    for adapter in games.ADAPTERS.values():
        if adapter.cli_module is None:
            continue
        module = importlib.import_module(adapter.cli_module)
        for function in ("solve", "MCCFRRun", "exploit", "tournament", "lbr",
                         "export_policy", "render_hint", "play_table", "round_end"):
            assert hasattr(module, function), (adapter.cli_module, function)


def test_hint_options_are_options_of_jabba_hint():
    from solver import games

    hint = _commands()["hint"]
    names = {p.name for p in hint.params}
    for adapter in games.ADAPTERS.values():
        assert set(adapter.hint_options) <= names, adapter.name


def test_pages_follow_the_web_capabilities():
    """Every game with the hint has the one advice page: its description names a form the
    page holds, with its cards and player counts; a game without the hint has none (its
    description is refused naming the games that have one); only a game with the play
    page may start a game."""
    from cli.web.app import STATIC, NewGame
    from solver import games

    page = (STATIC / "index.html").read_text()
    for adapter in games.ADAPTERS.values():
        refused = NewGame(game=adapter.name).misplaced()
        assert (refused is None) == adapter.capabilities.play_page, adapter.name
        if adapter.name not in games.taking("hint"):
            assert adapter.example_situation is None
            with pytest.raises(games.UnknownGame, match="has no advice page"):
                adapter.advice()
            continue
        described = adapter.advice()
        assert f'<template id="form-{described["form"]}">' in page, adapter.name
        assert described["game"] == adapter.name and described["cards"]
        assert described["players"][0] == 2 and described["title"]
        assert described["example"] == adapter.example_situation


# Each capability a game lacks: a command's option that needs it, refused naming the games
# that have it (the command line, before any work).
CAPABILITY_OPTIONS = [
    ("exact_lp", ["solve", "--lp", "--deck", "tiny"]),
    ("ray", ["solve", "--algorithm", "mccfr", "--ray", "--deck", "tiny"]),
    ("match", ["tournament", "--matches", "5", "--deals", "1"]),
    ("policy_bank", ["lbr", "--policy", "uniform", "--continuation", "uniform", "--deals",
                     "1"]),
    ("match", ["play", "--seat", "0", "--match"]),
    ("coach", ["play", "--seat", "0", "--coach"]),
    ("search", ["play", "--seat", "0", "--against", "search",
                "--opponent-search-iterations", "5"]),
]


@pytest.mark.parametrize("capability,argv", CAPABILITY_OPTIONS,
                         ids=[f"{c}-{a[0]}" for c, a in CAPABILITY_OPTIONS])
def test_an_option_needing_a_capability_is_refused_for_a_game_without(capability, argv):
    from typer.testing import CliRunner

    from cli.main import app
    from solver import games

    lacking = [n for n in games.taking(argv[0]) if n not in games.having(capability)]
    assert lacking, f"every game of {argv[0]} has {capability}: nothing to check"
    for name in lacking:
        result = CliRunner().invoke(app, [argv[0], "--game", name, *argv[1:]])
        said = " ".join(re.sub(r"[│╭╮╰╯─]", " ", result.output).split())
        assert result.exit_code == 2, (name, said)
        assert (f"applies only to --game {' or '.join(games.having(capability))}, not "
                f"{name}") in said


if __name__ == "__main__":
    where = Path(sys.argv[1]) if len(sys.argv) > 1 else ROOT
    branches = name_branches(where)
    for path, line, text in sorted(branches):
        print(f"{path}:{line}: {text}")
    print(f"{len(branches)} name branches in solver/ and cli/ outside solver/games/ and "
          "solver/game_hooks/")
