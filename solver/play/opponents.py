"""The other seats of a played game: one `decide(state, player) -> action` interface,
resolved from a name by `resolve`.

Names (`OPPONENTS`, then the heuristics, then a policy file):

- `table`: the shipped tables of the game (solver/policies/shipped.py), finest level
  first, then the game's default heuristic (`agenda_expert`, `classic_expert` in
  love_letter: solver/policies/chain.py `default_heuristic`) where none has the key: the
  chain the hint's rollouts play (solver/hint/advice.py), so the coach's values assume
  the opponents you meet;
- a heuristic (`agenda_expert`, `card_counter`, ...: solver/policies/compiled.py);
- a policy file (`.npz`, solver/policies/table.py), then the game's default heuristic
  where it lacks the key;
- `search`: decision-time search at every decision (solver/search/policy.py
  `SearchPolicy`: re-solves the rest of the round from the seat's beliefs, the shipped
  tables as blueprint; the blueprint answers where it cannot search), within a fixed
  number of iterations (OPPONENT_SEARCH_ITERATIONS, SEARCH_LIMITS), so a seed gives the
  same game on any machine.

A policy's action is drawn from its probabilities with the one sampler
(solver/sim/sampler.py) on a seeded stream, so a seed gives the same game for the same
choices of the human.
"""

from __future__ import annotations

import threading
from typing import Protocol

import numpy as np

from solver.play import OPPONENT_SEARCH_ITERATIONS
from solver.policies.chain import (chain_probabilities, default_heuristic, load_policies,
                                   shipped_files)
from solver.policies.compiled import HEURISTIC_KINDS, build_bank, is_policy_file
from solver.search.policy import SearchPolicy
from solver.search.resolve import SearchLimits
from solver.sim.rng import STREAM_MATCH_DECISIONS, check_seed, stream_seed
from solver.sim.sampler import sample

# The search opponent's subgames and leaf rollouts, kept small beside its iterations
# (OPPONENT_SEARCH_ITERATIONS): about 0.3 s a decision on one core (solver/search/resolve.py).
SEARCH_LIMITS = dict(max_nodes=30_000, rollout_budget=4000, max_roots=150)


class Opponent(Protocol):
    name: str

    def decide(self, state, player: int) -> int:
        """The action of `player` at the pyspiel `state` (a decision node)."""


def _decisions_stream(seed: int) -> np.ndarray:
    rng = np.zeros(1, dtype=np.uint64)
    rng[0] = stream_seed(check_seed(seed), STREAM_MATCH_DECISIONS, 0)
    return rng


class ChainOpponent:
    """Every policy of one compiled bank, in order, as a chain (solver/policies/chain.py):
    the first with the key decides, its action drawn from the seeded stream."""

    def __init__(self, name: str, bank, seed: int):
        self.name = name
        self.bank = bank
        self.chain = np.arange(len(bank.names), dtype=np.int64)
        self.rng = _decisions_stream(seed)

    def decide(self, state, player: int) -> int:
        # The chain ends in a heuristic, which has every key: never a miss.
        legal, probs, _ = chain_probabilities(self.bank, self.chain, state.array, player)
        return int(legal[sample(probs, len(legal), self.rng)])


class SearchOpponent:
    """A `SearchPolicy` (solver/search/policy.py): its probabilities at the decision,
    the action drawn from the seeded stream."""

    def __init__(self, policy, seed: int):
        self.name = "search"
        self.policy = policy
        self.rng = _decisions_stream(seed)

    def decide(self, state, player: int) -> int:
        legal, probs = self.policy.probabilities(state.array, player)
        return int(legal[sample(probs, len(legal), self.rng)])


_BANKS: dict[tuple, object] = {}
_BANKS_LOCK = threading.Lock()


def _bank(specs: tuple[str, ...], game):
    """The compiled bank of `specs` for a game, built once: a bank is read-only, so every
    session of the game shares it (the web app runs many)."""
    key = (specs, tuple(sorted(game.get_parameters().items())))
    with _BANKS_LOCK:
        if key not in _BANKS:
            _BANKS[key] = build_bank(list(specs), game)
        return _BANKS[key]


_POLICIES: dict[tuple, object] = {}
_POLICIES_LOCK = threading.Lock()


def hint_policies(game):
    """The hint's tables for `game` (solver/policies/chain.py `load_policies`), loaded
    once: read-only, so the coach and the search opponents of every session share them."""
    key = tuple(sorted(game.get_parameters().items()))
    with _POLICIES_LOCK:
        if key not in _POLICIES:
            _POLICIES[key] = load_policies(game)
        return _POLICIES[key]


def _table(game, seed: int, search_iterations: int) -> Opponent:
    specs = tuple(str(p) for p in shipped_files(game)) + (default_heuristic(game),)
    return ChainOpponent("table", _bank(specs, game), seed)


# The search as an opponent, a player's choice: it answers in about a second up to 3
# players (the hint's own default searches only with 2: solver/hint/request.py).
SEARCH_OPPONENT_MAX_PLAYERS = 3


def _search(game, seed: int, search_iterations: int) -> Opponent:
    if game.num_players() > SEARCH_OPPONENT_MAX_PLAYERS:
        raise ValueError(f"the search plays up to {SEARCH_OPPONENT_MAX_PLAYERS} players, not "
                         f"{game.num_players()}; choose table")
    shipped_files(game, ", which the search needs as its blueprint")
    limits = SearchLimits(iterations=search_iterations, **SEARCH_LIMITS)
    return SearchOpponent(SearchPolicy(game, hint_policies(game), limits, seed=seed), seed)


# Named opponents beyond the heuristics and policy files: adding one is one entry.
OPPONENTS = {
    "table": _table,
    "search": _search,
}


def allowed() -> list[str]:
    """The names `resolve` takes (and 'a policy file (.npz)')."""
    return [*OPPONENTS, *HEURISTIC_KINDS, "a policy file (.npz)"]


def resolve(name: str, game, seed: int,
            search_iterations: int = OPPONENT_SEARCH_ITERATIONS) -> Opponent:
    """The opponent called `name` for `game`, sampling with `seed` (`search`: with
    `search_iterations` per decision); ValueError naming what is allowed."""
    if isinstance(search_iterations, bool) or not isinstance(search_iterations, int) \
            or search_iterations < 1:
        raise ValueError(f"search iterations {search_iterations!r}: allowed is a whole "
                         "number from 1")
    if name in OPPONENTS:
        return OPPONENTS[name](game, seed, search_iterations)
    if name in HEURISTIC_KINDS:
        return ChainOpponent(name, _bank((name,), game), seed)
    if is_policy_file(name):
        return ChainOpponent(name, _bank((name, default_heuristic(game)), game), seed)
    raise ValueError(f"unknown opponent {name!r}; allowed: {', '.join(allowed())}")
