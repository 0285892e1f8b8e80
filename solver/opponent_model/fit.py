"""Fit an opponent model to play logs: the Bayesian mixture over candidate policies.

Each logged decision of the seat is replayed (solver/play/log.py `replay`, through the
session, so an illegal or out-of-place line is refused with its line number) to the
engine state where it was made; candidate k's likelihood of the logs is the product over
those decisions of

    p_k(a) = (1 - tremble) * pi_k(a | s) + tremble / (number of legal actions),

pi_k the candidate's probability (solver/opponent_model/model.py, the policy bank). With
a uniform prior the posterior weight of k is proportional to that likelihood; the
evidence is the log marginal likelihood, log( mean_k likelihood_k ).

The tremble (TREMBLE = 0.01): the heuristics are deterministic up to ties, so one
off-policy action (a misclick, a rule the heuristic does not have) would give a
candidate likelihood 0 for good. With 1% of decisions taken as slips, an off-policy
action costs a candidate log(0.01 / legal) ≈ -5.3 nats against an on-policy one at 2
legal actions: a single slip is outweighed by a few decisions where the candidates
differ, while a candidate off its support again and again loses all weight.

A log that no candidate explains is reported, not fitted: `status` is `unexplained`
when every candidate has more than half of the decisions off its support (probability
0: the fit would be decided by the tremble alone), naming the first such lines; `empty`
when the seat made no decision.
"""

from __future__ import annotations

import dataclasses
import math
import tempfile
from collections.abc import Sequence
from pathlib import Path

import numpy as np

from solver.opponent_model.model import (TABLE, ModelError, OpponentModel, candidate_probabilities,
                                         game_identity, mixture)
from solver.opponent_model.sample import write_log
from solver.play.log import LogError, load_game, read_header, read_lines, replay
from solver.policies.heuristics import GAME_HEURISTICS

TREMBLE = 0.01
MAX_OFF_SUPPORT = 0.5  # above this share of decisions off every candidate: unexplained
OK, UNEXPLAINED, EMPTY = "ok", "unexplained", "empty"


@dataclasses.dataclass(frozen=True)
class Decision:
    """A decision of the fitted seat: where (log, line), the round (counted over all the
    logs, from 1), the engine state and seat, the action taken."""

    log: str
    line: int
    round: int
    state: np.ndarray
    player: int
    action: int


@dataclasses.dataclass
class FitResult:
    """The fit: the posterior weights, each candidate's log-likelihood and decisions off
    its support, the evidence, the number of decisions, a status (OK, UNEXPLAINED,
    EMPTY) and why."""

    seat: int
    candidates: list[str]
    weights: list[float]
    log_likelihoods: list[float]
    off_support: list[int]
    evidence: float
    decisions: int
    rounds: int
    tremble: float
    status: str
    reason: str
    logs: list[str]

    def model(self, game) -> OpponentModel:
        """The fitted mixture (ModelError when the logs were not explained)."""
        if self.status != OK:
            raise ModelError(f"no model: {self.reason}")
        return mixture(self.candidates, self.weights, game, "fit",
                       {"evidence": self.evidence, "decisions": self.decisions})


def default_candidates(game) -> list[str]:
    """The game's heuristics (solver/policies/heuristics.py GAME_HEURISTICS), then
    `table` if the game ships one."""
    from solver.policies.shipped import policy_files

    from spiel_game.game import variant

    params = game.get_parameters()
    names = list(GAME_HEURISTICS[game.get_type().short_name])
    if policy_files(params["deck"], variant(game), params["players"]):
        names.append(TABLE)
    return names


def _as_file(log, folder: Path, index: int) -> tuple[Path, str]:
    """A log given as a path, or as its lines (sample.py), as a file to replay."""
    if isinstance(log, (str, Path)):
        return Path(log), str(log)
    path = folder / f"log-{index}.jsonl"
    write_log(list(log), path)
    return path, f"sampled log {index + 1}"


def log_game(log) -> object:
    """The game a log file's header names (LogError for a file that is not a log)."""
    path = Path(log)
    lines = read_lines(path)
    return load_game(read_header(path, lines))


def decisions(logs: Sequence, seat: int, game) -> tuple[list[Decision], int]:
    """Every decision of table seat `seat` in the logs, replayed, and the number of
    rounds; LogError naming the log (and line) that does not fit or is of another
    game."""
    out: list[Decision] = []
    rounds = 0
    wanted = game_identity(game)
    if not 0 <= seat < game.num_players():
        raise ModelError(f"seat {seat}: allowed is a table seat from 0 to "
                         f"{game.num_players() - 1}")
    with tempfile.TemporaryDirectory(prefix="jabba-model-") as folder:
        for index, log in enumerate(logs):
            path, name = _as_file(log, Path(folder), index)
            own = game_identity(log_game(path))
            if own != wanted:
                raise LogError(f"{name}: a log of {own}, not of the game fitted {wanted}")
            before: list[np.ndarray] = []
            numbers = iter(number for number, _ in read_lines(path))
            next(numbers)  # the header

            def step(session, line, verdict, name=name, numbers=numbers, before=before,
                     offset=rounds):
                number = next(numbers)
                if "action" in line and line["player"] >= 0 and \
                        session.table_of(line["player"]) == seat:
                    out.append(Decision(name, number, offset + session.round, before[0],
                                        int(line["player"]), int(line["action"])))
                before[:] = [session.state.array.copy()]  # the state the next line acts on

            try:
                session = replay(path, on_step=step)
            except LogError as err:
                raise LogError(str(err).replace(str(path), name)) from None
            rounds += len(session.rounds)
    return out, rounds


def likelihoods(model: OpponentModel, game, found: list[Decision]) -> np.ndarray:
    """P[d, k]: candidate k's probability (without tremble) of decision d's action, and
    the legal count in the last column."""
    bank = model.bank(game)
    out = np.empty((len(found), len(model.candidates) + 1))
    for d, decision in enumerate(found):
        legal, probs = candidate_probabilities(model, bank, decision.state, decision.player)
        hit = np.flatnonzero(legal == decision.action)
        if len(hit) == 0:  # replay checked legality; the engine's legal order agrees
            raise LogError(f"{decision.log}, line {decision.line}: action {decision.action} "
                           "is not legal where it stands")
        out[d, :-1] = probs[:, hit[0]]
        out[d, -1] = len(legal)
    return out


def posterior(table: np.ndarray, tremble: float) -> tuple[np.ndarray, np.ndarray, float]:
    """(weights, log-likelihoods, evidence) of a likelihoods() table, uniform prior."""
    probs, legal = table[:, :-1], table[:, -1:]
    ll = np.log((1 - tremble) * probs + tremble / legal).sum(axis=0)
    top = ll.max()
    shifted = np.exp(ll - top)
    evidence = float(top + math.log(shifted.sum()) - math.log(len(ll)))
    return shifted / shifted.sum(), ll, evidence


def fit(logs: Sequence, seat: int, candidates: Sequence[str] | None, game,
        tremble: float = TREMBLE) -> FitResult:
    """The mixture over `candidates` (default: `default_candidates(game)`) fitted to
    table seat `seat`'s decisions in `logs` (paths of play logs, or the lines of
    sampled ones). LogError for a log that does not replay (naming the line) or is of
    another game; ModelError for a bad candidate or seat."""
    if not isinstance(tremble, float) or not 0 < tremble < 1:
        raise ModelError(f"tremble {tremble!r}: allowed is a number between 0 and 1")
    if isinstance(seat, bool) or not isinstance(seat, int):
        raise ModelError(f"seat {seat!r}: allowed is a whole number")
    names = list(candidates) if candidates else default_candidates(game)
    uniform = [1.0 / len(names)] * len(names)
    model = mixture(names, uniform, game, "candidates")
    found, rounds = decisions(logs, seat, game)
    labels = [str(log) if isinstance(log, (str, Path)) else f"sampled log {i + 1}"
              for i, log in enumerate(logs)]
    if not found:
        return FitResult(seat, names, uniform, [0.0] * len(names), [0] * len(names), 0.0,
                         0, rounds, tremble, EMPTY,
                         f"table seat {seat} made no decision in the logs", labels)
    table = likelihoods(model, game, found)
    weights, ll, evidence = posterior(table, tremble)
    off = (table[:, :-1] <= 0).sum(axis=0)
    status, reason = OK, ""
    if (off > MAX_OFF_SUPPORT * len(found)).all():
        never = [d for d, row in zip(found, table) if (row[:-1] <= 0).all()]
        where = ", ".join(f"{d.log} line {d.line}" for d in never[:5])
        status = UNEXPLAINED
        reason = (f"no candidate explains the logs: each of {', '.join(names)} gives "
                  f"probability 0 to more than half of table seat {seat}'s "
                  f"{len(found)} decisions (fewest off support: {int(off.min())})"
                  + (f"; none plays e.g. {where}" if where else ""))
    return FitResult(seat, names, [float(w) for w in weights], [float(x) for x in ll],
                     [int(x) for x in off], evidence, len(found), rounds, tremble, status,
                     reason, labels)


def fit_record(result: FitResult, game, *, seconds: float, command: str | None = None
               ) -> dict:
    """The model file's JSON (model.py `model_record`) with the fit's figures."""
    from solver import provenance
    from solver.opponent_model.model import MODEL_FORMAT, MODEL_FORMAT_VERSION

    return {"format": MODEL_FORMAT, "format_version": MODEL_FORMAT_VERSION,
            **provenance.header(game, seconds=seconds, command=command),
            "identity": game_identity(game), "seat": result.seat,
            "candidates": [{"name": c, "weight": w, "log_likelihood": ll,
                            "off_support": off}
                           for c, w, ll, off in zip(result.candidates, result.weights,
                                                    result.log_likelihoods,
                                                    result.off_support)],
            "evidence": result.evidence, "decisions": result.decisions,
            "rounds": result.rounds, "tremble": result.tremble, "prior": "uniform",
            "status": result.status,
            "logs": [provenance.portable_path(p) for p in result.logs]}
