"""A hint request, read and checked once: what `jabba hint` and the web API's /api/hint both
build from their inputs and hand to `solver.hint.advice.answer`.

`HintRequest.from_inputs(data, ...)` takes a situation mapping (the fields of a situation
file, docs/hint.md) and the request's options, fills the defaults (2 players; seat 0
unless a pasted information state names one), reads the situation, loads the game and
its tables, and checks the match and opponent options. What is wrong is refused once,
here: `SituationError` for a situation that cannot happen, `HintInputError` (naming the
option) for an option's value, ValueError for a refused policy file.
"""

from __future__ import annotations

import dataclasses
from pathlib import Path

import numpy as np

from solver.hint.parse import SituationError, pasted_seat
from solver.hint.situation import Situation
from solver import games, provenance
from solver.match.outcomes import RoundOutcomes
from solver.match.standings import check_standings, default_goal
from solver.match.value import (read_match_values, round_utility_table, round_win_table,
                                shipped_match_values, solve_match_values)
from solver.opponent_model.model import parse_opponents
from solver.policies.chain import PolicySet, display_path
from solver.search.resolve import Exploit


class HintInputError(ValueError):
    """An option of a hint request with a value that is not allowed: `option` names it
    (the command line's flag without its dashes, the web API's query parameter)."""

    def __init__(self, option: str, message: str):
        super().__init__(message)
        self.option = option


@dataclasses.dataclass(frozen=True)
class MatchContext:
    """The match this round is part of (docs/match.md): the token standings by seat
    (seat 0 started the round) and the match values V they are read from."""

    values: object  # solver.match.value.MatchValues
    standings: tuple
    source: str  # where V came from (a results file)

    def tables(self) -> np.ndarray:
        """(2, codes, players): the match utility (solved for) and each player's chance
        to win the match, after each round outcome (solver/sim/utility.py codes)."""
        return np.stack([round_utility_table(self.values, self.standings, 0),
                         round_win_table(self.values, self.standings, 0)])

    def now(self) -> np.ndarray:
        """Each seat's chance to win the match before this round is played."""
        return self.values.at(self.standings, 0)


@dataclasses.dataclass(frozen=True)
class OpponentModelUse:
    """An opponent model to exploit (solver/opponent_model): its seat, and how:
    `best-response` or `safe` (a restricted Nash response giving the model weight
    `confidence`)."""

    seat: int
    model: object  # solver.opponent_model.model.OpponentModel
    mode: str = "safe"
    confidence: float = 0.5

    MODES = ("safe", "best-response")

    def __post_init__(self):
        if self.mode not in self.MODES:
            raise HintInputError("exploit", f"exploitation mode {self.mode!r}: allowed are "
                                 f"{', '.join(self.MODES)}")
        if self.mode == "safe" and not 0.0 < self.confidence < 1.0:
            raise HintInputError("confidence", f"confidence {self.confidence!r}: the safe "
                                 "mode's weight on the model is strictly between 0 and 1")

    def exploit(self, game, policies: PolicySet):
        """(the tables with the model's policies in the bank, the search's Exploit)."""
        both, chains = policies.with_model(game, self.model)
        weight = 1.0 if self.mode == "best-response" else self.confidence
        return both, Exploit(self.seat, chains, tuple(self.model.weights), weight)

    def answer(self, result, plain, paths: list, note) -> dict:
        """The answer's `opponent_model` part: what exploiting expects to gain against the
        model at this decision (the full action: card, target, number), and what it gives
        up if the opponent is not the model (against the unexploiting search's values)."""
        out = {"seat": self.seat, "model": self.model.describe(), "source": self.model.source,
               "mode": self.mode,
               "confidence": 1.0 if self.mode == "best-response" else self.confidence}
        if result is None or plain is None:
            return {**out, "used": False, "reason": note or "the search did not run"}
        ex, v_model = np.array([result.line(path) for path in paths]).T
        un, v_plain = np.array([plain.line(path) for path in paths]).T
        return {**out, "used": True,
                "types": {str(k): float(w) for k, w in (result.model_mass or {}).items()},
                "expected_gain": float((ex - un) @ v_model),
                "risk_if_wrong": float((un - ex) @ v_plain)}


def check_game(sit: Situation):
    """The OpenSpiel game for a situation; SituationError for bad parameters."""
    import pyspiel

    import spiel_game  # noqa: F401

    try:
        return pyspiel.load_game(sit.game, sit.game_params())
    except (ValueError, pyspiel.SpielError) as err:
        raise SituationError(str(err)) from None


def match_context(game, scores, goal: int | None = None, values_path: Path | None = None,
                  rounds_played: int | None = None) -> MatchContext:
    """The match of `scores` (tokens by seat, seat 0 the round's starter): V from
    `values_path` (a `jabba match-table` record) or the game's shipped record,
    re-solved from its round outcomes when `goal` is not the record's. ValueError with
    what was wrong: standings that cannot be, no values for this game."""
    players = game.num_players()
    goal = default_goal(players) if goal is None else goal
    standings = tuple(check_standings(scores, players, goal, rounds_played=rounds_played))
    path = values_path or shipped_match_values(game)
    if path is None:
        raise ValueError(f"no shipped match values for this game ({players} players, "
                         f"{game.get_parameters().get('agenda', game.get_type().short_name)}"
                         "): make them with `jabba match-table --out FILE` and give "
                         "--match-values FILE")
    values = read_match_values(path, game)
    source = display_path(Path(path))
    if values.goal != goal:
        record = provenance.read_json(path)
        values = solve_match_values(RoundOutcomes.from_dict(record["outcomes"]), goal,
                                    draws=0)
        source += f" (its round outcomes, re-solved for goal {goal})"
    return MatchContext(values, standings, source)


def situation_fields(data: dict) -> dict:
    """The situation mapping with the request's defaults: 2 players, and seat 0 unless a
    pasted information state names its own seat."""
    data = {"players": 2, **data}
    if "seat" not in data and pasted_seat(data.get("log")) is None:
        data["seat"] = 0
    return data


def _scores(score) -> list[int]:
    """The standings as whole numbers: a list, or text '3,5'."""
    items = score.split(",") if isinstance(score, str) else score
    if isinstance(items, (list, tuple)):
        items = [x.strip() if isinstance(x, str) else x for x in items]
        if all(isinstance(x, int) or (isinstance(x, str) and x.lstrip("-").isdigit())
               for x in items) and items:
            return [int(x) for x in items]
    raise HintInputError("score", f"{score!r}: expected whole numbers separated by commas, "
                         "one per seat, e.g. '3,5'")


def _opponent(specs, game, me: int, mode: str, confidence: float) -> OpponentModelUse | None:
    """The model of the one opponent to exploit (2 players), or None without specs."""
    if not specs:
        return None
    if game.num_players() != 2:
        raise HintInputError("opponent", f"opponent models take 2 players, not "
                             f"{game.num_players()}: the belief engine weighs every other "
                             "player by one policy")
    if mode not in OpponentModelUse.MODES:
        raise HintInputError("exploit", f"{mode!r}: allowed are "
                             f"{', '.join(OpponentModelUse.MODES)}")
    if mode == "safe" and not 0.0 < confidence < 1.0:
        raise HintInputError("confidence", f"{confidence}: the safe mode's weight on the "
                             "model is strictly between 0 and 1")
    try:
        models = parse_opponents(list(specs), game, me)
    except ValueError as err:
        raise HintInputError("opponent", str(err)) from None
    if len(models) != 1:
        raise HintInputError("opponent", "one opponent model at a time (2 players)")
    (seat, model), = models.items()
    return OpponentModelUse(seat, model, mode, confidence)

# The most players the decision-time search answers for by default. Past it the table (the
# blueprint) answers by rollouts: with 3+ players the search is unsafe (docs/search.md),
# and paired with the table's answer over the same deals it measured no gain (3 players,
# 120 deals per agenda: -0.014 / +0.013 / -0.069 / -0.061 at 9-10x the time; 4 players, 40
# deals: +0.000 at 3-4x; docs/solving.md "Shipped policies", the search at 3 and 4 players).
SEARCH_MAX_PLAYERS = 2


@dataclasses.dataclass(frozen=True)
class HintRequest:
    """Everything one hint answers from, checked. `rollouts`: exactly that many rollouts
    instead of the `seconds` budget (repeatable); `prior_only`: beliefs from the chance
    odds alone, no inference from what the others chose; `search*`: the decision-time
    search's budget (exactly `search_iterations`, or `search_limits`, a SearchLimits;
    at 3-6 players exactly `search_samples` worlds per full action) and top;
    `search_max_players`: the largest table the search answers at (beyond it
    the table does; a measurement's option); `match`: play for the match
    (docs/match.md); `opponent`: exploit a model (docs/opponents.md)."""

    situation: Situation
    game: object  # the pyspiel game
    policies: PolicySet
    seconds: float = 0.25
    resolve_seconds: float = 2.0
    seed: int = 0
    rollouts: int | None = None
    prior_only: bool = False
    search: bool = True
    search_seconds: float = 1.0
    search_iterations: int | None = None
    search_top: str = "max-margin"
    search_leaves: str = "single"
    search_limits: object = None
    search_samples: int | None = None
    search_max_players: int = SEARCH_MAX_PLAYERS
    match: MatchContext | None = None
    opponent: OpponentModelUse | None = None

    @classmethod
    def from_inputs(cls, data: dict, *, policy_files: list[Path] | None = None,
                    policies_of=None, score=None,
                    match_goal: int | None = None, match_values: Path | None = None,
                    rounds_played: int | None = None, opponent: list[str] | None = None,
                    exploit: str = "safe", confidence: float = 0.5,
                    **options) -> HintRequest:
        """The request for the situation mapping `data` and the options as the command
        line and the web API name them. The tables: `policies_of(game)` (e.g. the web
        app's, loaded once and shared), else `policy_files`, else the shipped ones."""
        if score is None:
            for option, value in (("match_goal", match_goal), ("match_values", match_values),
                                  ("rounds_played", rounds_played)):
                if value is not None:
                    raise HintInputError(option, "applies only with score (the match's "
                                         "tokens by seat)")
        if not opponent:
            if exploit != "safe":
                raise HintInputError("exploit", "applies only with opponent")
            if confidence != 0.5:
                raise HintInputError("confidence", "applies only with opponent")
        name = data.get("game", games.DEFAULT)
        if isinstance(name, str) and name not in games.taking("hint"):
            raise SituationError(f"game={name!r}: allowed are {', '.join(games.taking('hint'))}"
                                 + (" (it has no hint yet)" if games.find(name) else ""))
        reader = games.hint_reader(name)
        for option, value, capability in (("score", score, "match"),
                                          ("opponent", opponent, "opponent_models")):
            if value and not getattr(reader.capabilities, capability):
                raise HintInputError(option, f"applies only to "
                                     f"{' or '.join(games.having(capability))}: "
                                     f"{reader.name} has no match values or opponent "
                                     "models")
        sit, game, policies = reader.hint_situation(data, policy_files, policies_of)
        match = None
        if score is not None and reader.capabilities.match:
            try:
                match = match_context(game, _scores(score), match_goal, match_values,
                                      rounds_played)
            except HintInputError:
                raise
            except ValueError as err:
                raise HintInputError("score", str(err)) from None
        return cls(sit, game, policies, match=match,
                   opponent=_opponent(opponent, game, sit.seat, exploit, confidence),
                   **options)
