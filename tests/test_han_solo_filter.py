"""Han Solo on the shared compiled particle filter (solver/belief/kernel.py with
solver/han_solo/filter.py's hooks): its posterior against the Python Bayes replay
(tests/han_solo_replay.py, exact while the worlds fit), along random rounds."""

from __future__ import annotations

import numpy as np
import pyspiel
import pytest

import spiel_game  # noqa: F401  (registers han_solo)
from spiel_game.han_solo import layout as L

import han_solo_replay as belief
from solver.han_solo.features import HEURISTIC_NAMES
from solver.han_solo.filter import posterior_worlds
from solver.han_solo.heuristics import HanSoloHeuristic
from solver.han_solo.playout import HanSoloBank


def _distribution(worlds, weights) -> dict:
    """Weight per world as the Python replay merges them (`_canonical`)."""
    out: dict = {}
    for s, w in zip(worlds, weights):
        key = belief._canonical(s)
        out[key] = out.get(key, 0.0) + float(w)
    return out


def _random_decision(game, rng, policy: str = "uniform"):
    """A random round stopped at a random decision (every seat playing the heuristic
    `policy`, true chance)."""
    heuristic = HanSoloHeuristic(game, policy)
    state = game.new_initial_state()
    stops = []
    while not state.is_terminal():
        if state.is_chance_node():
            outcomes, probs = zip(*state.chance_outcomes())
            state.apply_action(int(rng.choice(outcomes, p=probs)))
        else:
            stops.append(state.clone())
            probs = heuristic.action_probabilities(state)
            actions = list(probs)
            p = np.array([probs[a] for a in actions])
            state.apply_action(int(actions[rng.choice(len(actions), p=p / p.sum())]))
    return stops[int(rng.integers(len(stops)))]


@pytest.mark.parametrize("players", [2])
def test_compiled_posterior_is_the_bayes_replay(players):
    game = pyspiel.load_game("han_solo", {"players": players})
    rng = np.random.default_rng(players)
    name = "closest_to_zero"
    compared = 0
    for _ in range(5):
        state = _random_decision(game, rng, name)
        viewer = state.current_player()
        log = state.events(viewer)
        for policy in (None, name):
            heuristic = None if policy is None else HanSoloHeuristic(game, policy)
            want = belief.replay(game, log, viewer, heuristic, particles=1 << 14)
            chain = () if policy is None else (HEURISTIC_NAMES.index(policy),)
            worlds, weights, stats = posterior_worlds(game, log, viewer, HanSoloBank(),
                                                      chain, max_particles=1 << 14)
            if not want.exact or stats["truncated"]:
                continue  # a sample: not the same worlds
            a, b = _distribution(want.worlds, want.weights), _distribution(worlds, weights)
            assert belief._canonical(state._s) in b  # the true world is among them
            assert set(a) == set(b)
            assert max(abs(a[k] - b[k]) for k in a) < 1e-9
            compared += 1
    assert compared >= 4

def test_a_log_without_the_pot_and_the_others_deals_is_read():
    game = pyspiel.load_game("han_solo", {"players": 2})
    state = _random_decision(game, np.random.default_rng(7))
    viewer = state.current_player()
    full = state.events(viewer)
    short = [e for e in full if not (e[0] == L.E_POT or e[0] == L.E_DEAL and e[1] != viewer)]
    worlds, weights, stats = posterior_worlds(game, short, viewer, max_particles=1 << 16)
    assert stats["truncated"] == 0
    a = _distribution(*posterior_worlds(game, full, viewer)[:2])
    b = _distribution(worlds, weights)
    # Left out, the pot is unknown too: every world of the full log, and others with
    # another pot.
    assert set(a) <= set(b)
    assert belief._canonical(state._s) in b


def test_a_log_that_cannot_happen_keeps_no_world():
    game = pyspiel.load_game("han_solo", {"players": 2})
    state = _random_decision(game, np.random.default_rng(11))
    viewer = state.current_player()
    log = state.events(viewer)
    flip = next(i for i, e in enumerate(log) if e[0] == L.E_FLIP)
    kind, who, card = log[flip]
    # every copy of the flipped card seen twice more at once: no deck has that many
    bad = [*log[:flip + 1], *([(L.E_FLIP, who, card)] * 8)]
    worlds, _, stats = posterior_worlds(game, bad, viewer)
    assert len(worlds) == 0
    assert stats["furthest"] > flip
