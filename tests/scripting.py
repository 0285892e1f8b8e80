"""A tiny scripting language for scenario tests of the `jabbas_palace` engine.

Every chance outcome is chosen by the script (a character id), never by a seed. Every
step asserts that the action is legal and, for decisions, who is deciding, so a script
fails loudly as soon as the engine leaves the scenario the test had in mind.

Remember: a node with exactly one legal option is resolved by the engine itself and must
not be scripted (e.g. the only target in a 2-player game, the last card in the pool).
"""

from __future__ import annotations

from collections import Counter

import pyspiel

import spiel_game  # noqa: F401  (registers "jabbas_palace")
from spiel_game import actions
from spiel_game.cards import CHARACTERS

# Character ids (cards.py), also the chance outcomes.
(HAN, GUARD, C3PO, CRUMB, R2D2, MERC, CHEWIE, BIB, LANDO, BOBA, LEIA, RANCOR, LUKE,
 JABBA) = range(14)

SET_ASIDE = 20  # R2-D2 chooses the face-down set-aside card
NO_TRADE, TRADE = 58, 59  # Lando's decision after the look
CHANCE = pyspiel.PlayerId.CHANCE


def target(player: int) -> int:
    return actions.encode_target(player)


def name(number: int) -> int:
    return actions.encode_name(number)


def keep(card: int) -> int:
    return actions.encode_keep(card)


def on_top(card: int) -> int:
    """Leia: `card` is returned above the other one, so it is drawn first (R9)."""
    return actions.encode_order(card)


def new_round(deck: str, players: int = 2, agenda: str = "exalted_one",
              utility: str = "margin", game: str = "jabbas_palace"):
    params = {"players": players, "utility": utility, "deck": deck}
    if game == "jabbas_palace":  # love_letter has no agendas
        params["agenda"] = agenda
    return pyspiel.load_game(game, params).new_initial_state()


def apply(state, action: int) -> None:
    legal = state.legal_actions()
    assert action in legal, (
        f"action {action} ({state.action_to_string(state.current_player(), action)}) "
        f"is not legal; legal: {legal}\n{state}")
    state.apply_action(action)


def chance(state, *cards: int, receiver: int | None = None) -> None:
    """Choose the next chance outcomes; with `receiver`, check who gets the card."""
    for card in cards:
        assert state.is_chance_node(), f"expected a chance node\n{state}"
        if receiver is not None:
            text = state.action_to_string(CHANCE, card)
            assert f"player {receiver}" in text, text
        apply(state, card)


def act(state, player: int, *decisions: int) -> None:
    """`player` takes the given decisions (each must be legal and theirs to take)."""
    for decision in decisions:
        assert state.current_player() == player, (
            f"expected player {player} to decide, got {state.current_player()}\n{state}")
        apply(state, decision)


def turn(state, player: int, draw: int | None, *decisions: int) -> None:
    """A turn: `player` draws `draw` (None: the draw is forced, no chance node), then
    takes the decisions (the card to play first)."""
    if draw is not None:
        chance(state, draw, receiver=player)
    act(state, player, *decisions)


def setup(deck: str, hands, face_up=(), agenda: str = "exalted_one",
          utility: str = "margin", game: str = "jabbas_palace"):
    """A round after R1's setup: the face-up cards, then one card dealt to each seat."""
    state = new_round(deck, len(hands), agenda, utility, game)
    chance(state, *face_up)
    for seat, card in enumerate(hands):
        assert state.action_to_string(CHANCE, card).endswith(f"to player {seat}")
        chance(state, card)
    return state


def info(state, player: int) -> str:
    return state.information_state_string(player)


def tokens(state) -> tuple[int, ...]:
    assert state.is_terminal(), f"the round is not over\n{state}"
    return state.view().tokens


def out(state) -> set[int]:
    """Seats that are out of the round."""
    return {p for p, inside in enumerate(state.view().in_round) if not inside}


def deck_of(*cards: int, face_up: int = 0) -> str:
    """A deck spec holding exactly `cards` (repeat a card for several copies)."""
    counts = Counter(cards)
    items = [f"{CHARACTERS[c].aliases[0]}:{n}" for c, n in sorted(counts.items())]
    return "+".join(items + [f"faceup:{face_up}"])
