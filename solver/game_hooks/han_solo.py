"""The hooks of the Han Solo card game, han_solo (its own engine, spiel_game/han_solo/;
solver/games/__init__.py names them and says what each hook is)."""

from __future__ import annotations

from solver.game_hooks.own_engine import load_game, load_parameters  # noqa: F401 (hooks)


def load(name: str, players: int, deck: str, utility: str, agenda: str | None):
    """`deck`: full, or a reduced deck of solver/han_solo/exact.py (DECKS: the exact
    tools' one-turn decks); it has no agenda."""
    from solver.han_solo.exact import DECKS

    return load_game(name, players, deck, utility, DECKS, "docs/han-solo.md")


def levels(name: str) -> tuple[str, ...]:
    from solver.han_solo.abstraction import LEVELS

    return tuple(LEVELS)


def heuristics(name: str) -> tuple[str, ...]:
    from solver.han_solo.features import HEURISTIC_NAMES

    return tuple(HEURISTIC_NAMES)


def mccfr(name: str):
    from solver.han_solo.mccfr import HAN_SOLO

    return HAN_SOLO


def playout(name: str):
    from solver.han_solo.playout import HAN_SOLO_GAME

    return HAN_SOLO_GAME


def belief_filter(name: str):
    from solver.han_solo.filter import HAN_SOLO_FILTER

    return HAN_SOLO_FILTER


def hint_situation(name: str, data: dict, policy_files, policies_of):
    """(situation, game, player): its policy is a HanSoloPlayer; the web app's shared
    tables (`policies_of`) are the Love Letter engine's, not its."""
    from solver.han_solo.hint import load as load_hint

    return load_hint(data, policy_files)


def hint_answer(request):
    from solver.han_solo.hint import answer

    return answer(request)


def first_run_note(name: str) -> str | None:
    return None  # the note names the Love Letter engine's kernels


def session(name: str):
    from solver.han_solo.session import HanSoloSession

    return HanSoloSession


def opponent(name: str, against: str, game, seed: int, search_iterations: int):
    """Its named players; it has no search, so `search_iterations` is not used."""
    from solver.han_solo.session import resolve

    return resolve(against, game, seed)


def advice_description(name: str) -> dict:
    """The advice page's form "events" (cli/web/static/app.js): the hand, the pot, and
    the round so far as its events, by clicking (docs/han-solo.md "Hints")."""
    from spiel_game.han_solo import layout as L
    from spiel_game.han_solo.game import DEFAULTS

    return {"form": "events", "title": "Han Solo card game",
            "players": list(range(2, L.MAX_PLAYERS + 1)),
            "cards": [L.card_name(k) for k in range(L.NUM_CARD_KINDS)],
            "tokens": list(L.TOKEN_NAMES), "turns": DEFAULTS["turns"],
            "max_hand": L.MAX_HAND}
