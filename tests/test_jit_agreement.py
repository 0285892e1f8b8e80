"""The compiled engine and the same code un-jitted (NUMBA_DISABLE_JIT=1) agree (random
playouts of solver/sim/playout.py drive it)."""

from __future__ import annotations

import hashlib
import json
import os
import subprocess
import sys

import numpy as np

from solver.sim import playout
from solver.sim.rng import STREAM_RANDOM_PLAYOUT, stream_seed
from spiel_game import engine
from spiel_game.cards import AGENDA_NAMES, parse_deck

CONFIGS = [(players, agenda) for players in (2, 3, 4, 6) for agenda in AGENDA_NAMES]
ROUNDS = 40


def playout_digests(rounds: int = ROUNDS) -> dict[str, str]:
    """SHA-256 of every final state array, per configuration, from fixed seeds."""
    deck = parse_deck("full")
    digests = {}
    for players, agenda in CONFIGS:
        initial = engine.new_state(players, AGENDA_NAMES[agenda], 0,
                                   np.array(deck.counts), deck.face_up(players))
        h = hashlib.sha256()
        rng = np.array([stream_seed(12345 + players, STREAM_RANDOM_PLAYOUT, 0)],
                       dtype=np.uint64)
        for _ in range(rounds):
            state = initial.copy()
            playout.random_playout(state, rng)
            h.update(state.tobytes())
        digests[f"{players}-{agenda}"] = h.hexdigest()
    return digests


def test_compiled_and_interpreted_engines_agree():
    assert type(engine.apply_action).__name__ == "CPUDispatcher"
    compiled = playout_digests()
    env = {**os.environ, "NUMBA_DISABLE_JIT": "1"}
    code = ("import json, test_jit_agreement as t; "
            "assert type(t.engine.apply_action).__name__ == 'function', 'still compiled'; "
            "print(json.dumps(t.playout_digests()))")
    result = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True,
                            text=True, cwd=os.path.dirname(__file__), timeout=300)
    assert result.returncode == 0, result.stderr
    interpreted = json.loads(result.stdout.strip().splitlines()[-1])
    assert interpreted == compiled
