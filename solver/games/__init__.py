"""The games, one adapter each: the one place that reads a game's name.

`adapter(name)` gives a game's `GameAdapter` (ValueError listing the games for an unknown
name); `of(game)` that of a loaded pyspiel game. Everything else asks an adapter's
`capabilities` or calls its hooks, never compares names (tests/test_game_adapter.py counts
the comparisons left). The hooks live in solver/game_hooks/ (`love_letter_engine.py`:
jabbas_palace and love_letter, one engine; `han_solo.py`), named here and imported on
first use: the registry sits at the bottom of solver/'s layers, its hooks at the top
(docs/design.md "Layers of solver/"), and reading it (the command line's help) loads no
engine.

A new game plugs in as docs/design.md "How a new game plugs in" says.
"""

from __future__ import annotations

import dataclasses
import importlib

from spiel_game.cards import RULESETS


class UnknownGame(ValueError):
    """A game name that no adapter has."""


class OptionError(ValueError):
    """A refusal of one option's value (`option`: its name, e.g. deck)."""

    def __init__(self, option: str, message: str):
        super().__init__(message)
        self.option = option


@dataclasses.dataclass(frozen=True)
class Capabilities:
    """What a game offers beyond rounds, tables and rollouts (every game has those)."""

    agendas: bool  # variants by agenda (R12); without, its name is its one variant
    match: bool  # match values: hint --score, tournament --matches, play --match
    opponent_models: bool  # hint --opponent (docs/opponents.md)
    search: bool  # the decision-time search: the hint's, play --against search
    coach: bool  # play --coach (the hint's verdict on each play)
    policy_bank: bool  # solver/policies' compiled bank: lbr --continuation and --exact
    exact_lp: bool  # solve --lp: OpenSpiel's sequence-form LP beside exact CFR
    ray: bool  # solve --ray (solver/mccfr/distributed.py)
    compiled_tree: bool  # solver/exact/tree.py walks its whole tree compiled
    play_page: bool  # the web app's /play (the pages read its cards)
    # The jabba commands with --game that take it; None: every one.
    commands: tuple[str, ...] | None = None


# A hook is named "module:attribute" and imported on first use (module_hook).
Hook = str


@dataclasses.dataclass(frozen=True)
class GameAdapter:
    """One game: what is truly its own, as data and hooks."""

    name: str  # the OpenSpiel short name
    title: str  # how --game's help describes it
    capabilities: Capabilities
    no_agendas: str | None  # without agendas: why an agenda is refused, after the name
    hint_options: tuple[str, ...]  # jabba hint's game-specific options it takes
    # Hooks: load(name, players, deck, utility, agenda); load_parameters(name, params);
    # levels(name) (abstraction levels, by id); heuristics(name); mccfr(name)
    # (its solver.mccfr.games.MCCFRGame); playout(name) (its solver.sim.games.PlayoutGame);
    # belief_filter(name) (its filter hooks, solver/belief/kernel.py);
    # hint_situation(name, data, policy_files, policies_of) -> (situation, game, policies);
    # hint_answer(request); first_run_note(name) (a note before a hint compiles, or
    # None); session(name) (the solver/play Session class); opponent(name, against, game,
    # seed, search_iterations); advice_description(name) (what the web advice page builds
    # its form from: its `form`, cards and player counts).
    hooks: Hook  # the module holding them
    # The web app (cli/web/app.py): one advice page for every game (static/index.html, at
    # /?game=NAME, and at / for the game `jabba serve --game` names), built from
    # `advice()`; a former route of its own that now redirects there (None: none); the
    # page's label; the warm-up's situation (also the page's example). A game without the
    # hint (not in `taking("hint")`) has no advice page: None.
    example_situation: dict | None = None
    advice_route: str | None = None
    advice_label: str = "advice"
    # The command line's module for its commands where they differ from the Love Letter
    # engine's (named, not imported: solver imports nothing from cli); None: none.
    cli_module: str | None = None
    # The reduced decks `jabba solve` and `jabba exploit` take by default (exact CFR).
    solve_deck: str = "tiny"
    exploit_deck: str = "small"

    def hook(self, name: str):
        """The hook `name` of this game's hook module."""
        return getattr(importlib.import_module(self.hooks), name)

    def load(self, players: int, deck: str = "full", utility: str = "margin",
             agenda: str | None = None):
        """The game; ValueError (OptionError naming the option) for refused parameters."""
        return self.hook("load")(self.name, players, deck, utility, agenda)

    def load_parameters(self, params: dict):
        """The game from recorded parameters (a log's or a file's header)."""
        return self.hook("load_parameters")(self.name, params)

    def levels(self) -> tuple[str, ...]:
        """Its abstraction levels, by id."""
        return self.hook("levels")(self.name)

    def heuristics(self) -> tuple[str, ...]:
        """Its heuristics' names, in its reports' order."""
        return self.hook("heuristics")(self.name)

    def mccfr(self):
        """Its `solver.mccfr.games.MCCFRGame`."""
        return self.hook("mccfr")(self.name)

    def playout(self):
        """Its `solver.sim.games.PlayoutGame` (the play-out loop's and tournament's)."""
        return self.hook("playout")(self.name)

    def belief_filter(self):
        """Its filter hooks (solver/belief/kernel.py; LBR's belief)."""
        return self.hook("belief_filter")(self.name)

    def hint_situation(self, data: dict, policy_files=None, policies_of=None):
        """(situation, game, policies) of a hint's situation mapping."""
        return self.hook("hint_situation")(self.name, data, policy_files, policies_of)

    def hint_answer(self, request):
        return self.hook("hint_answer")(request)

    def first_run_note(self) -> str | None:
        return self.hook("first_run_note")(self.name)

    def session_class(self):
        return self.hook("session")(self.name)

    def opponent(self, against: str, game, seed: int, search_iterations: int):
        return self.hook("opponent")(self.name, against, game, seed, search_iterations)

    def advice(self) -> dict:
        """What the web advice page builds its form from: the game, its label, its
        example situation, the hint options it takes, and its engine's description (the
        `form` to build, its cards, player counts; hook `advice_description`)."""
        if self.name not in taking("hint"):
            raise UnknownGame(f"{self.name} has no advice page: it has no hint yet; the games "
                              f"with one are {', '.join(taking('hint'))}")
        return {"game": self.name, "label": self.advice_label,
                "example": self.example_situation, "hint_options": list(self.hint_options),
                **self.hook("advice_description")(self.name)}


def _love_letter_engine_game(rules) -> GameAdapter:
    agendas = rules.has_agendas
    return GameAdapter(
        name=rules.game,
        title=(f"{rules.game} ({rules.description}"
               f"{'' if agendas else '; it has no agenda'})"),
        capabilities=Capabilities(agendas=agendas, match=True, opponent_models=True,
                                  search=True, coach=True, policy_bank=True, exact_lp=True,
                                  ray=True, compiled_tree=True, play_page=agendas),
        no_agendas=None if agendas else f"has no agendas ({rules.deck_end_ruling})",
        hint_options=("agenda", "face_up", "area", "out", "protected", "saw", "seen_by",
                      "set_aside", "bottom", "deck", "score", "match_goal", "match_values",
                      "rounds_played", "opponent", "exploit", "confidence",
                      "resolve_seconds", "search_seconds", "search_iterations", "seconds"),
        hooks="solver.game_hooks.love_letter_engine",
        advice_label=f"{rules.title} advice",
        example_situation=_EXAMPLES[rules.game])


# Each Love Letter engine game's example situation: the README's worked hints.
_EXAMPLES = {
    "jabbas_palace": {"players": 2, "seat": 1, "hand": ["jabba", "guard"],
                      "face_up": ["crumb", "bib", "merc"], "areas": {"0": ["han"]}},
    "love_letter": {"game": "love_letter", "players": 2, "seat": 1,
                    "hand": ["guard", "baron"], "face_up": ["guard", "guard", "handmaid"],
                    "areas": {"0": ["spy", "guard@1:5", "priest@1"],
                              "1": ["guard@0:7", "guard@0:3"]},
                    "seen_by": {"0": "baron"}}}


HAN_SOLO = GameAdapter(
    name="han_solo",
    title="han_solo (Star Wars: Han Solo card game; docs/han-solo.md)",
    capabilities=Capabilities(agendas=False, match=False, opponent_models=False,
                              search=False, coach=False, policy_bank=False, exact_lp=False,
                              ray=False, compiled_tree=False, play_page=False,
                              commands=("hint", "play", "serve", "export", "tournament",
                                        "lbr", "solve", "exploit")),
    no_agendas="has no agendas",
    hint_options=("pot", "turn"),
    hooks="solver.game_hooks.han_solo",
    advice_route="han-solo", advice_label="Han Solo advice",
    example_situation={"game": "han_solo", "seat": 1, "hand": ["green +4", "red -2"],
                       "pot": ["green", "gold"],
                       "log": "flip green +9; p0 draw; p0 discard red -2"},
    cli_module="cli.han_solo")

SARLACCS_PIT = GameAdapter(
    name="sarlaccs_pit",
    title="sarlaccs_pit (Star Wars: Return of the Jedi - Battle at Sarlacc's Pit; "
          "docs/sarlaccs-pit.md)",
    capabilities=Capabilities(agendas=False, match=False, opponent_models=False,
                              search=False, coach=False, policy_bank=False, exact_lp=False,
                              ray=False, compiled_tree=False, play_page=False,
                              commands=("hint", "serve", "solve", "tournament", "exploit")),
    no_agendas="has no agendas",
    hint_options=("board", "positions", "jabba", "defeated", "guards_left", "points",
                  "hand_sizes", "discard", "turn", "decision"),
    hooks="solver.game_hooks.sarlaccs_pit",
    advice_route=None, advice_label="Sarlacc's Pit advice",
    # Seat 0 of 2 on the Main Deck, a Gamorrean down: docs/sarlaccs-pit.md "Hints".
    example_situation={"game": "sarlaccs_pit", "players": 2, "seat": 0,
                       "positions": ["c2", "a3"], "defeated": ["left2"], "points": [0, 1],
                       "hand": ["2", "4", "force", "change_places"],
                       "discard": ["3", "5"]},
    cli_module="cli.sarlaccs_pit", solve_deck="tiny1", exploit_deck="tiny1")

# The registry, in the order the help and the refusals list the games: the Love Letter
# rule sets (spiel_game.cards.RULESETS, the default first), then han_solo, sarlaccs_pit.
ADAPTERS: dict[str, GameAdapter] = {
    a.name: a for a in (*map(_love_letter_engine_game, RULESETS), HAN_SOLO, SARLACCS_PIT)}
NAMES: tuple[str, ...] = tuple(ADAPTERS)
DEFAULT: str = NAMES[0]  # --game's default


def adapter(name: str) -> GameAdapter:
    """The adapter of the game `name`; UnknownGame (a ValueError) lists the games."""
    found = ADAPTERS.get(name)
    if found is None:
        raise UnknownGame(f"unknown game {name!r}: the games are {', '.join(NAMES)}")
    return found


def find(name) -> GameAdapter | None:
    """The adapter of `name`, or None for a name no game has."""
    return ADAPTERS.get(name) if isinstance(name, str) else None


def of(game) -> GameAdapter:
    """The adapter of a loaded pyspiel game."""
    return adapter(game.get_type().short_name)


def having(capability: str) -> tuple[str, ...]:
    """The games with `capability` (a Capabilities field), in registry order."""
    return tuple(n for n, a in ADAPTERS.items() if getattr(a.capabilities, capability))


def taking(command: str) -> tuple[str, ...]:
    """The games a jabba command with --game takes."""
    return tuple(n for n, a in ADAPTERS.items()
                 if a.capabilities.commands is None or command in a.capabilities.commands)


def hint_reader(name) -> GameAdapter:
    """The adapter that reads a hint situation of game `name`: its own; for a name no
    game has, the default game's, whose situation reader refuses it with what is allowed."""
    return find(name) or ADAPTERS[DEFAULT]
