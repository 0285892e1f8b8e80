"""The part of the hint (solver/hint/pipeline.py, the one hint of every game) that the
games on their own engines (han_solo, sarlaccs_pit) share, written once: a fixed number of
rollouts over the player's policy chain (solver/sim/playout.py `path_values`, common
random numbers), the answer's policy and rollouts records, no forced play, search or
match.

What is a game's own is its `EngineHintGame`: its engine and play-out hooks, the
rollouts' stream and default count, how a request becomes a posterior (its worlds,
weights and present state), its option tree, and its answer's situation, posterior and
per-opponent records (solver/han_solo/hint.py, solver/sarlaccs_pit/hint.py).

A posterior is any object with `present` (the state at the decision), `worlds` (engine
states, the hidden cards filled in: a list, or any sequence that makes a world when
indexed), `weights` (one per world) and `exact` and `ess`.
The player is a solver/policies/engine_player.py `EnginePlayer`.
"""

from __future__ import annotations

import dataclasses
import time
from collections.abc import Callable

import numpy as np

from solver.hint import options as hint_options
from solver.hint.answer import HintAnswer
from solver.hint import pipeline
from solver.hint.pipeline import NoSearch, Rolled, TableAdvice
from solver.sim.playout import padded_paths, path_values
from solver.sim.rng import check_seed


@dataclasses.dataclass(frozen=True)
class EngineHintGame:
    """One own-engine game's part of the hint."""

    name: str
    engine: object  # its FunctionSet (spiel_game/interface.py)
    hooks: object  # its play-out hooks (solver/sim/hooks.py)
    stream: int  # the rollouts' stream purpose (index: the rollout)
    rollouts: Callable  # (request, paths) -> the rollout count when none is asked for
    posterior: Callable  # (request) -> the posterior (module docstring)
    option_tree: Callable  # (player, seat) -> its solver.hint.options.OptionTree
    situation: Callable  # (request, posterior) -> the answer's `situation`
    posterior_record: Callable  # (request, posterior) -> the answer's `posterior`
    opponent: Callable  # (request, posterior, seat) -> one of the answer's `opponents`


class OwnEngineHint:
    """An own-engine game's part of the hint (solver/hint/pipeline.py `HintPart`), from
    its `EngineHintGame`: no forced play, no search, no match; a fixed rollout count."""

    def __init__(self, hint: EngineHintGame):
        self.hint = hint

    def prepare(self, request):
        pass

    def forced(self, request, start):
        return None

    def posterior(self, request):
        return self.hint.posterior(request)

    def option_tree(self, request):
        return self.hint.option_tree(request.policies, request.situation.seat)

    def table(self, request, post, tree, legal):
        player = request.policies
        probs = tree.probabilities(post.present, legal)
        return TableAdvice(
            probs, "table" if probs is not None else "heuristic",
            f"{player.describe()}: " + (
                "its probabilities beside the values" if probs is not None else
                "no table for these parameters (or none this code reads); chosen by the "
                "rollout values" if player.table is None else
                "no table key here; chosen by the rollout values"),
            player.table.header["abstraction"]["level"]
            if player.table is not None and probs is not None else None,
            [] if player.source is None else [player.source])

    def card(self, action):
        return None

    def search(self, request, post, paths, start):
        return NoSearch(f"{self.hint.name} has no decision-time search: the values are "
                        "the rollouts'")

    def rollouts(self, request, post, paths, legal, table):
        player = request.policies
        count = request.rollouts or self.hint.rollouts(request, paths)
        start = time.perf_counter()
        values, picks, counts = rollout_values(self.hint, post.worlds, post.weights, paths,
                                               request.situation.seat, player, count,
                                               check_seed(request.seed))
        seconds = time.perf_counter() - start
        decisions = int(counts.sum())  # the player's chain: its table's, then its heuristic's
        misses = int(counts[0, 1:].sum()) if player.table is not None else 0
        record = {"count": count, "seconds": round(seconds, 3),
                  "worlds": int(len(np.unique(picks))), "decisions": decisions,
                  "from_table": (decisions - misses) / max(decisions, 1)
                  if player.table is not None else 0.0,
                  "from_coarser_table": 0.0,
                  "default_policy": player.describe() if player.table is None
                  else f"heuristic {player.heuristic_name()}",
                  "from_default_policy": (misses / max(decisions, 1)
                                          if player.table is not None else 1.0)}
        return Rolled(values, values, None, np.arange(count), record)

    def situation(self, request, post):
        return self.hint.situation(request, post)

    def posterior_record(self, request, post):
        return self.hint.posterior_record(request, post)

    def opponents(self, request, post):
        return [self.hint.opponent(request, post, q)
                for q in range(request.situation.players) if q != request.situation.seat]

    def match_record(self, request, plays, recommendation):
        return None

    def opponent_record(self, request, result, plain, paths, note):
        return None


def answer(hint: EngineHintGame, request) -> HintAnswer:
    """The HintAnswer for a HintRequest of `hint`'s game (its `policies` an
    EnginePlayer): the one hint (solver/hint/pipeline.py) with its `OwnEngineHint`."""
    return pipeline.answer(OwnEngineHint(hint), request)


def player_option_tree(player, chosen_now, words, decision) -> hint_options.OptionTree:
    """An own-engine game's OptionTree: its engine's legal actions and moves (the
    player's PlayerKind says which engine), the player's table breaking the rule's ties;
    `chosen_now`, `words`, `decision` the game's (solver/hint/options.py)."""
    kind = player.player_kind

    def legal(s) -> list[int]:
        acts = np.empty(kind.num_actions, dtype=np.int32)
        return acts[:kind.engine.legal_actions(s, acts)].tolist()

    def applied(s, a):
        t = s.copy()
        kind.engine.apply_action(t, a)
        return t

    def probabilities(s, acts):
        row = player.table_row(s)
        return None if row is None else [row.get(a, 0.0) for a in acts]

    return hint_options.OptionTree(legal=legal, apply=applied, chosen_now=chosen_now,
                                   probabilities=probabilities, words=words,
                                   decision=decision)


def rollout_values(hint: EngineHintGame, worlds: list[np.ndarray], weights: np.ndarray,
                   paths: list[tuple[int, ...]], me: int, player, rollouts: int, seed: int):
    """(values[path, rollout], picks, counts): `rollouts` rollouts, each from a world drawn
    by weight (seeded), every path from the same world and stream, everybody then playing
    the player's chain (solver/sim/playout.py `path_values`); counts[0, k]: the decisions
    its k-th policy took."""
    rng = np.random.default_rng(seed)
    picks = rng.choice(len(worlds), size=rollouts, p=weights / weights.sum())
    chain = np.array(player.chain, dtype=np.int32)
    counts = np.zeros((1, len(chain) + 1), dtype=np.int64)
    drawn, which = np.unique(picks, return_inverse=True)  # only the worlds drawn: a
    # state holds its whole event log, and a sampled posterior may hold thousands
    stacked = np.ascontiguousarray(np.stack([worlds[int(i)] for i in drawn]))
    out = path_values(hint.engine, hint.hooks, stacked, which.astype(np.int64),
                      padded_paths(paths), me, seed, hint.stream, 0, player.bank(), chain,
                      counts)
    return out, picks, counts
