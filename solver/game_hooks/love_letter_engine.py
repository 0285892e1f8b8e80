"""The hooks of the Love Letter engine's games, jabbas_palace and love_letter
(solver/games/__init__.py names them and says what each hook is)."""

from __future__ import annotations


def load(name: str, players: int, deck: str, utility: str, agenda: str | None):
    import spiel_game

    return spiel_game.load(name, players=players, agenda=agenda, deck=deck,
                           utility=utility)


def load_parameters(name: str, params: dict):
    import spiel_game

    return spiel_game.load_parameters(name, params)


def levels(name: str) -> tuple[str, ...]:
    from solver.abstraction.keys import LEVELS

    return tuple(sorted(LEVELS, key=LEVELS.get))


def heuristics(name: str) -> tuple[str, ...]:
    from solver.policies.heuristics import GAME_HEURISTICS

    return GAME_HEURISTICS[name]


def mccfr(name: str):
    from solver.mccfr.games import LOVE_LETTER_ENGINE

    return LOVE_LETTER_ENGINE


def playout(name: str):
    from solver.policies.playout import LOVE_LETTER_ENGINE

    return LOVE_LETTER_ENGINE


def belief_filter(name: str):
    from solver.belief.filter import LOVE_LETTER_FILTER

    return LOVE_LETTER_FILTER


def hint_situation(name: str, data: dict, policy_files, policies_of):
    """The situation (defaults filled), the game and its tables: `policies_of(game)` (e.g.
    the web app's shared ones), else `policy_files`, else the shipped ones."""
    from solver.hint.request import check_game, situation_fields
    from solver.hint.situation import from_mapping
    from solver.policies.chain import load_policies

    sit = from_mapping(situation_fields(data))
    game = check_game(sit)
    policies = (policies_of(game) if policies_of is not None
                else load_policies(game, policy_files))
    return sit, game, policies


def hint_answer(request):
    from solver.hint.advice import engine_answer

    return engine_answer(request)


def first_run_note(name: str) -> str | None:
    """Said before a hint whose kernels are not compiled yet."""
    from solver.hint.advice import FIRST_RUN_NOTE, rollouts_compiled

    return None if rollouts_compiled() else FIRST_RUN_NOTE


def session(name: str):
    from solver.play.session import Session

    return Session


def opponent(name: str, against: str, game, seed: int, search_iterations: int):
    from solver.play.opponents import resolve

    return resolve(against, game, seed, search_iterations=search_iterations)


def advice_description(name: str) -> dict:
    """The advice page's form "cards" (cli/web/static/app.js): a situation by clicking
    this rule set's cards into the hand, the face-up cards (2 players), the play areas
    and what is known; the numbers a card may name; the agendas (none: no agenda)."""
    from spiel_game.cards import RULES_FACE_UP_2P, ruleset
    from spiel_game.layout import MAX_PLAYERS

    rules = ruleset(name)
    return {"form": "cards", "title": rules.title,
            "players": list(range(2, MAX_PLAYERS + 1)),
            "cards": [{"id": c.id, "name": c.name, "short": c.aliases[0],
                       "number": c.number, "side": c.side.name.lower(),
                       "copies": c.copies, "effect": c.effect.name.lower(), "text": c.text}
                      for c in rules.characters],
            "numbers": sorted({c.number for c in rules.characters}),
            "face_up_2p": RULES_FACE_UP_2P, "agendas": list(rules.agendas)}
