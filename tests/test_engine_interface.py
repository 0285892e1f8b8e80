"""The engine interface (spiel_game/interface.py): each engine's set of numba functions,
and kernels compiled once per set and loaded from numba's disk cache."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pyspiel
import pytest
from numba import njit

import spiel_game  # noqa: F401  (registers the games)
from spiel_game import engine as love_letter_engine
from spiel_game.han_solo import engine as han_solo_engine
from spiel_game.interface import ENGINE_FUNCTIONS, FunctionSet, engine_interface

ROOT = Path(__file__).resolve().parent.parent


@njit
def _one(s):
    return 1


@njit
def _walk(engine, s, actions):
    """A random-free walk through a round: the first legal action, the first chance
    outcome; how many steps."""
    probs = np.empty(len(actions))
    steps = 0
    while not engine.is_terminal(s):
        if engine.is_chance(s):
            engine.chance_outcomes(s, actions, probs)
        else:
            engine.legal_actions(s, actions)
        engine.apply_action(s, actions[0])
        steps += 1
    return steps


@pytest.mark.parametrize("name", ["jabbas_palace", "han_solo"])
def test_one_kernel_walks_every_engine_as_pyspiel_does(name):
    engines = {"jabbas_palace": love_letter_engine.ENGINE, "han_solo": han_solo_engine.ENGINE}
    game = pyspiel.load_game(name)
    state = game.new_initial_state()
    steps = 0
    while not state.is_terminal():
        state.apply_action(state.legal_actions()[0])
        steps += 1
    s = game.new_initial_state()._s.copy()
    assert _walk(engines[name], s, np.zeros(64, dtype=np.int32)) == steps
    assert np.array_equal(s[:len(state._s)], state._s)
    returns = np.zeros(game.num_players())
    engines[name].returns(s, returns)
    assert returns.tolist() == state.returns()


def test_an_engine_must_provide_the_whole_interface():
    with pytest.raises(ValueError, match="lacks is_chance, current_player"):
        engine_interface("test.partial", **{f: _one for f in ENGINE_FUNCTIONS
                                            if f not in ("is_chance", "current_player")})
    with pytest.raises(TypeError, match="is_terminal is not a numba function"):
        FunctionSet("test.python", is_terminal=lambda s: True)
    with pytest.raises(ValueError, match="a different function set is already named"):
        FunctionSet("spiel_game.engine", is_terminal=_one)
    with pytest.raises(AttributeError, match="has no 'deal'"):
        love_letter_engine.ENGINE.deal  # noqa: B018


_CACHED_TWICE = """
import pyspiel, spiel_game
from solver.han_solo.abstraction import level_id
from solver.mccfr.kernel import run_iterations
from solver.mccfr.solver import MCCFRSolver
MCCFRSolver(pyspiel.load_game("jabbas_palace", {"deck": "tiny"})).run(5)
MCCFRSolver(pyspiel.load_game("han_solo"), level_id("compact")).run(5)
print(len(run_iterations.stats.cache_hits), len(run_iterations.stats.cache_misses))
"""


@pytest.mark.slow  # two processes loading (the first maybe compiling) the MCCFR kernel
def test_the_mccfr_kernel_loads_from_the_disk_cache_once_per_engine():
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    for _ in range(2):
        run = subprocess.run([sys.executable, "-c", _CACHED_TWICE], env=env, cwd=ROOT,
                             capture_output=True, text=True, timeout=1800)
        assert run.returncode == 0, run.stderr
    assert run.stdout.split() == ["2", "0"]  # the second process: 2 hits, no compile


_PLAYED_TWICE = """
import pyspiel, spiel_game
from solver.evaluation.tournament import _run_lineup, play_lineup
from solver.han_solo.commands import duplicate_match
from solver.policies.compiled import build_bank
game = pyspiel.load_game("jabbas_palace")
play_lineup(game, build_bank(["uniform", "card_counter"], game), [0, 1], deals=2)
duplicate_match(pyspiel.load_game("han_solo"), 1, 2, 2, seed=1)
print(len(_run_lineup.stats.cache_hits), len(_run_lineup.stats.cache_misses))
"""


@pytest.mark.slow  # two processes loading (the first maybe compiling) the tournament
def test_the_tournament_kernel_loads_from_the_disk_cache_once_per_engine():
    """One tournament kernel (solver/evaluation/tournament.py, the play-out loop compiled
    in) for both engines, each with its play-out hooks: a later process loads both."""
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    for _ in range(2):
        run = subprocess.run([sys.executable, "-c", _PLAYED_TWICE], env=env, cwd=ROOT,
                             capture_output=True, text=True, timeout=1800)
        assert run.returncode == 0, run.stderr
    assert run.stdout.split() == ["2", "0"]  # the second process: 2 hits, no compile
