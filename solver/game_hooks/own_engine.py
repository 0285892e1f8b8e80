"""The hooks `load` and `load_parameters` of the games on their own engines (han_solo,
sarlaccs_pit), written once: each game's hook module names its reduced decks."""

from __future__ import annotations

from solver.games import OptionError


def load_game(name: str, players: int, deck: str, utility: str, reduced: dict, doc: str):
    """The game `name` with `players` and `utility`: `deck` is full, or one of `reduced`
    (a reduced game's name -> its engine parameters); OptionError naming the decks (and
    `doc`, the game's manual) otherwise."""
    import pyspiel

    import spiel_game  # noqa: F401 (registers the games with pyspiel)

    if deck != "full" and deck not in reduced:
        raise OptionError("deck", f"{deck!r}: {name}'s decks are full, {', '.join(reduced)} "
                                  f"({doc})")
    params = {} if deck == "full" else dict(reduced[deck])
    return pyspiel.load_game(name, {**params, "players": players, "utility": utility})


def load_parameters(name: str, params: dict):
    """The game `name` from recorded parameters (a log's or a file's header)."""
    import pyspiel

    import spiel_game  # noqa: F401 (registers the games with pyspiel)

    return pyspiel.load_game(name, params)
