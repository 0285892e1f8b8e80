"""`jabba`: the command line. Thin: parse, validate, call the library, render."""

from __future__ import annotations

import random

import typer

app = typer.Typer(
    help="Solver and hint engine for Star Wars: Jabba's Palace - A Love Letter Game.",
    no_args_is_help=True, add_completion=False)


def _load_game(players: int, agenda: str, deck: str, utility: str):
    import pyspiel

    import spiel_game  # noqa: F401  (registers the game)

    try:
        return pyspiel.load_game(spiel_game.game.SHORT_NAME, {
            "players": players, "agenda": agenda, "deck": deck, "utility": utility})
    except (ValueError, pyspiel.SpielError) as err:
        raise typer.BadParameter(str(err)) from None


@app.command()
def play(
    players: int = typer.Option(2, help="Number of players, 2 to 6."),
    agenda: str = typer.Option("exalted_one", help="exalted_one, my_kind_of_scum, "
                               "jabbas_court or rescue_mission."),
    deck: str = typer.Option("full", help="full, tiny, small or a spec such as "
                             "'guard:2+jabba+han+faceup:0'."),
    utility: str = typer.Option("margin", help="margin (zero-sum) or tokens."),
    seed: int = typer.Option(0, help="Seed for the random choices and shuffle."),
    viewer: int = typer.Option(-1, help="Also print this player's information state "
                               "at the end (-1: none)."),
) -> None:
    """Play one round with uniformly random decisions and print it move by move."""
    game = _load_game(players, agenda, deck, utility)
    if viewer >= players:
        raise typer.BadParameter(f"viewer must be -1 or 0 to {players - 1}")
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


@app.command()
def rules(card: str = typer.Argument(..., help="A card (e.g. 'c3po', 'boba') or an "
                                     "agenda (e.g. 'jabbas_court').")) -> None:
    """Print a card's or an agenda's ruling."""
    from spiel_game.cards import AGENDA_NAMES, AGENDA_TEXT, CHARACTERS, character_id

    key = card.strip().lower().replace(" ", "_").replace("'", "")
    if key in AGENDA_NAMES:
        typer.echo(f"{key}: {AGENDA_TEXT[AGENDA_NAMES[key]]}")
        return
    try:
        c = CHARACTERS[character_id(card)]
    except ValueError as err:
        raise typer.BadParameter(f"{err} Agendas: {', '.join(AGENDA_NAMES)}.") from None
    typer.echo(f"{c.name} ({c.number}, {c.side.name.title()}, {c.copies} "
               f"cop{'y' if c.copies == 1 else 'ies'}): {c.text}")


if __name__ == "__main__":
    app()
