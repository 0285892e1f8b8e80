"""`jabba rules`: a card's or an agenda's rulings from docs/RULES.md."""

from __future__ import annotations

import typer

from cli import options


def register(app: typer.Typer) -> None:
    app.command()(rules)


def rules(card: str = typer.Argument(..., help="A card (e.g. 'c3po', 'boba', with --game "
                                     "love_letter 'countess') or an agenda (e.g. "
                                     "'jabbas_court')."),
          game_name: str = options.game_option()) -> None:
    """Print a card's or an agenda's rulings from docs/RULES.md."""
    from spiel_game import rulebook
    from spiel_game.cards import RULESET_OF_GAME

    rules = RULESET_OF_GAME[game_name]
    agendas = rules.agendas
    key = card.strip().lower().replace(" ", "_").replace("'", "")
    card_id = None
    if key not in agendas:
        try:
            card_id = rules.character_id(card)
        except ValueError as err:
            more = f" Agendas: {', '.join(agendas)}." if agendas else ""
            raise typer.BadParameter(f"{err}{more}") from None
    try:
        typer.echo(rulebook.agenda_ruling(key) if card_id is None
                   else rulebook.ruling_for(card_id, rules))
    except (FileNotFoundError, ValueError) as err:  # the document is missing or malformed
        typer.echo(f"Error: {err}", err=True)
        raise typer.Exit(1) from None


