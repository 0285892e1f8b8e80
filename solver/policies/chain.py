"""The policy chain: policies of one compiled bank tried in order, the first that has the
player's key deciding. The one mechanism behind the search's blueprint, the belief
engine's weights, the play-outs, the opponent models, the played opponents and the hint.

- `chain_probs` (compiled, for numba callers; `chain_probabilities` from Python): the
  first policy of the chain with the key fills the probabilities and its position in
  the chain is returned. A heuristic has every key, so a chain that ends in one never
  misses. When no policy has the key (a chain of tables only, or an empty chain) it is
  a *miss*: the answer is len(chain) and the probabilities are uniform over the legal
  actions (what a table plays for a key it lacks, solver/policies/compiled.py). What a
  miss means is the caller's to say (uniform play, a count, "no information"...).
- `default_heuristic(game)`: the heuristic that ends a game's chain of tables: the
  first, the strongest, of solver/policies/heuristics.py GAME_HEURISTICS.
- `shipped_tables(game)`, `shipped_files(game)`: the game's shipped tables, finest first
  (solver/policies/shipped.py); the second refuses a game none ships for.
- `PolicySet` and `load_policies`: the game's tables and its default heuristic in one
  bank, the chain the hint, the search and `jabba play --against table` play.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
from numba import njit

from spiel_game import layout as L

from solver.policies.compiled import HEURISTIC_KINDS, TABLE_MISS, build_bank, policy_probs
from solver.policies.heuristics import GAME_HEURISTICS

_JIT = dict(cache=True, nogil=True)


@njit(**_JIT)
def chain_probs(s, player, bank, chain, legal, n, out):
    """Fill out[:n] with the probabilities of legal[:n] at s, for `player`, from the
    first policy of `chain` (indices into `bank`, `PolicyBank.arrays()`) that has the
    key; returns its position in chain, or len(chain) on a miss (out then uniform)."""
    for k in range(len(chain)):
        if policy_probs(s, player, chain[k], bank, legal, n, out) != TABLE_MISS:
            return k
    for i in range(n):
        out[i] = 1.0 / n
    return len(chain)


def chain_probabilities(bank, chain, s: np.ndarray, player: int
                        ) -> tuple[np.ndarray, np.ndarray, int]:
    """(legal actions, probabilities, position that decided or len(chain)) of `chain`
    at engine state s, the legal actions in the engine's order: `chain_probs` for Python
    callers. `bank` is a PolicyBank."""
    from spiel_game import engine

    legal = np.empty(L.NUM_ACTIONS, dtype=np.int32)
    n = engine.legal_actions(s, legal)
    out = np.empty(n)
    chain = np.asarray(chain, dtype=np.int64)
    decided = chain_probs(s, player, bank.arrays(), chain, legal[:n], n, out)
    return legal[:n].copy(), out, int(decided)


# The game's chain of tables ---------------------------------------------------------------

def default_heuristic(game) -> str:
    """The heuristic behind a game's tables, deciding where none has the key: the game's
    strongest (GAME_HEURISTICS' first: agenda_expert, classic_expert in love_letter).
    `game`: a pyspiel game or its short name."""
    name = game if isinstance(game, str) else game.get_type().short_name
    if name not in GAME_HEURISTICS:
        raise ValueError(f"game {name!r} has no default heuristic; known games: "
                         f"{', '.join(GAME_HEURISTICS)}")
    return GAME_HEURISTICS[name][0]


def shipped_tables(game) -> list[Path]:
    """The game's shipped tables, finest first (maybe none; solver/policies/shipped.py)."""
    from spiel_game.game import variant

    from solver.policies.shipped import policy_files

    params = game.get_parameters()
    return policy_files(params["deck"], variant(game), params["players"])


def shipped_files(game, needed_by: str = "") -> list[Path]:
    """`shipped_tables`, refusing a game none ships for (ValueError saying what
    `needed_by` them and what to choose instead)."""
    from spiel_game.game import variant

    files = shipped_tables(game)
    if not files:
        params = game.get_parameters()
        raise ValueError(f"no shipped table for {params['players']} players, "
                         f"{variant(game)}, deck {params['deck']!r} (docs/solving.md "
                         f"lists the shipped ones){needed_by}; choose a heuristic "
                         f"({', '.join(HEURISTIC_KINDS)}) or a policy file")
    return files


class PolicySet:
    """The table(s) for one game, finest level first (maybe none), in one compiled bank
    with the game's default heuristic (`default_heuristic`) after them: `chain`, the
    order rollouts, beliefs and the search's blueprint try them in."""

    def __init__(self, game, paths: list[Path], extra: tuple = ()):
        self.paths = list(paths)
        self.default = default_heuristic(game)
        self.characters = game.characters  # the game's cards, to name actions with
        self.bank = build_bank([str(p) for p in self.paths] + [self.default] + list(extra),
                               game)
        self.chain = np.arange(len(self.paths) + 1, dtype=np.int64)

    def with_model(self, game, model) -> tuple[PolicySet, tuple]:
        """These tables with an opponent model's policies after them in the bank
        (solver/opponent_model), and the model's chains as indices of that bank."""
        both = PolicySet(game, self.paths, model.bank_specs)
        offset = len(self.paths) + 1
        return both, tuple(tuple(offset + j for j in chain) for chain in model.chains)

    @property
    def levels(self) -> list[str]:
        return [self.bank.headers[i]["abstraction"]["level"] for i in range(len(self.paths))]

    def lookup(self, s, player: int, n: int):
        """(probabilities, level name) from the finest table that has the key, or None
        (the chain without its default heuristic: a miss)."""
        tables = self.chain[:len(self.paths)]
        _, probs, decided = chain_probabilities(self.bank, tables, s, player)
        if decided == len(tables):
            return None
        return probs[:n], self.levels[decided]

    def describe(self) -> list[dict]:
        return [{"file": display_path(path), "level": level,
                 "iterations": self.bank.headers[i]["iterations"],
                 "keys": self.bank.headers[i]["keys"]}
                for i, (path, level) in enumerate(zip(self.paths, self.levels))]


def display_path(path: Path) -> str:
    """A path as the answer shows it: relative to the working directory when inside it."""
    try:
        return str(path.resolve().relative_to(Path.cwd()))
    except ValueError:
        return str(path)


def load_policies(game, paths: list[Path] | None = None) -> PolicySet:
    """The tables to use (the shipped ones by default), checked against the game."""
    if paths is None:
        paths = shipped_tables(game)
    return PolicySet(game, [Path(p) for p in paths])
