"""The hooks of Battle at Sarlacc's Pit, sarlaccs_pit (its own engine,
spiel_game/sarlacc/; solver/games/__init__.py names them and says what each hook is). It
has no hint, session or opponents yet: those hooks refuse, saying so."""

from __future__ import annotations

from solver.game_hooks.own_engine import load_game, load_parameters  # noqa: F401 (hooks)


def load(name: str, players: int, deck: str, utility: str, agenda: str | None):
    """`deck`: full, or a reduced game of solver/sarlaccs_pit/exact.py (REDUCED: a small
    board, fewer cards, a turn limit); it has no agenda."""
    from solver.sarlaccs_pit.exact import REDUCED

    return load_game(name, players, deck, utility, REDUCED, "docs/sarlaccs-pit.md")


def levels(name: str) -> tuple[str, ...]:
    from solver.sarlaccs_pit.abstraction import LEVELS

    return tuple(LEVELS)


def heuristics(name: str) -> tuple[str, ...]:
    from solver.sarlaccs_pit.features import HEURISTIC_NAMES

    return tuple(HEURISTIC_NAMES)


def mccfr(name: str):
    from solver.sarlaccs_pit.mccfr import SARLACCS_PIT

    return SARLACCS_PIT


def playout(name: str):
    from solver.sarlaccs_pit.playout import SARLACC_GAME

    return SARLACC_GAME


def _not_yet(what: str):
    raise ValueError(f"sarlaccs_pit has no {what} yet (issue 39 item 5: the hint and play "
                     "come later)")


def hint_situation(name: str, data: dict, policy_files, policies_of):
    _not_yet("hint")


def hint_answer(request):
    _not_yet("hint")


def first_run_note(name: str) -> str | None:
    return None


def session(name: str):
    _not_yet("play session")


def opponent(name: str, against: str, game, seed: int, search_iterations: int):
    _not_yet("opponents for jabba play")
