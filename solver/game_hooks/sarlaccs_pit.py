"""The hooks of Battle at Sarlacc's Pit, sarlaccs_pit (its own engine,
spiel_game/sarlacc/; solver/games/__init__.py names them and says what each hook is). It
has no session or opponents yet: those hooks refuse, saying so."""

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
    raise ValueError(f"sarlaccs_pit has no {what} yet (jabba play does not take it)")


def hint_situation(name: str, data: dict, policy_files, policies_of):
    """(situation, game, player): its player an EnginePlayer (the shipped table with
    save_force, or save_force); the web app's shared tables are the Love Letter
    engine's, not its."""
    from solver.sarlaccs_pit.hint import load as load_hint

    return load_hint(data, policy_files)


def hint_answer(request):
    from solver.sarlaccs_pit.hint import answer

    return answer(request)


def first_run_note(name: str) -> str | None:
    return None  # the note names the Love Letter engine's kernels


def advice_description(name: str) -> dict:
    """The advice page's form "board" (cli/web/static/app.js): the default board's
    spaces, adjacency, lines, posts and where each is drawn (board.py `Board.drawing`),
    the cards, the player counts."""
    from spiel_game.sarlacc import layout as L
    from spiel_game.sarlacc.board import load_board

    from solver.sarlaccs_pit.situation import SHORT_NAMES

    board = load_board("default")
    return {"form": "board", "title": "Battle at Sarlacc's Pit",
            "players": list(range(2, L.MAX_PLAYERS + 1)),
            "cards": list(SHORT_NAMES), "card_titles": list(L.CARD_NAMES),
            "heroes": list(L.HEROES), "hand_size": L.HAND_SIZE,
            "board": {"names": list(board.names), "rows": list(board.rows),
                      "neighbours": [list(n) for n in board.neighbours],
                      "drawing": [list(xy) for xy in board.drawing()],
                      "entry": board.entry, "jabba_start": board.jabba_start,
                      "top_deck": sorted(board.top_deck),
                      "lines": [list(x) for x in board.lines], "greys": list(board.greys),
                      "posts": [{"space": s, "guard": L.GUARD_NAMES[g]}
                                for s, g in board.posts]}}


def session(name: str):
    _not_yet("play session")


def opponent(name: str, against: str, game, seed: int, search_iterations: int):
    _not_yet("opponents for jabba play")
