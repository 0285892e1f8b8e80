"""Shared helpers: loading the game and random rounds driven by a seeded Python RNG."""

from __future__ import annotations

import random

import pyspiel
import pytest

import spiel_game  # noqa: F401  (registers the game)
from spiel_game import layout as L

from spiel_game.cards import AGENDAS  # noqa: F401 (the tests' agenda list)


def load(**params) -> pyspiel.Game:
    return pyspiel.load_game("jabbas_palace", params)


def random_action(state: pyspiel.State, rng: random.Random) -> int:
    """A chance outcome with its true probability, or a uniform legal decision."""
    if state.is_chance_node():
        outcomes, probs = zip(*state.chance_outcomes())
        return rng.choices(outcomes, probs)[0]
    return rng.choice(state.legal_actions())


def random_play_stop(game: pyspiel.Game, rng: random.Random, seat: int | None = None):
    """A random round stopped at a random play decision (of `seat`, or of anybody): the
    state there, or None if the round gave none."""
    state, stops = game.new_initial_state(), []
    while not state.is_terminal():
        p = state.current_player()
        if p >= 0 and (seat is None or p == seat) and state._s[L.S_PHASE] == L.PH_PLAY:
            stops.append(state.clone())
        state.apply_action(random_action(state, rng))
    return rng.choice(stops) if stops else None


def random_history(game: pyspiel.Game, rng: random.Random) -> list[int]:
    """The recorded actions of one random round."""
    state = game.new_initial_state()
    while not state.is_terminal():
        state.apply_action(random_action(state, rng))
    return state.history()


def replay(game: pyspiel.Game, actions) -> pyspiel.State:
    state = game.new_initial_state()
    for action in actions:
        state.apply_action(action)
    return state


def tree_decision_states(game: pyspiel.Game):
    """(state, acting player) at every decision node of the whole tree: small games only."""
    stack = [game.new_initial_state()]
    while stack:
        state = stack.pop()
        if state.is_terminal():
            continue
        if not state.is_chance_node():
            yield state, state.current_player()
        stack.extend(state.child(a) for a in state.legal_actions())


@pytest.fixture
def rng() -> random.Random:
    return random.Random(20261129)


def tables_digest(tables) -> str:
    """sha256 of MCCFR tables (solver/mccfr/table.py) key by key, in key order: each key
    and its block of regrets and strategy sums, bit for bit, whatever the slots or
    capacity."""
    import hashlib

    import numpy as np

    keys, entries = tables.used_slots()
    digest = hashlib.sha256()
    for i in np.argsort(keys):
        offset, n = int(entries[i]) >> 8, int(entries[i]) & 0xFF
        digest.update(np.int64(keys[i]).tobytes() + tables.regret[offset:offset + n].tobytes()
                      + tables.strategy_sum[offset:offset + n].tobytes())
    return digest.hexdigest()
