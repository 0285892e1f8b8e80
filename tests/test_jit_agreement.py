"""The compiled engine and the same code un-jitted (NUMBA_DISABLE_JIT=1) agree."""

from __future__ import annotations

import hashlib
import json
import os
import subprocess
import sys

import numpy as np

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
        seed = 12345 + players
        for _ in range(rounds):
            state = initial.copy()
            seed = engine.random_playout(state, seed)
            h.update(state.tobytes())
        digests[f"{players}-{agenda}"] = h.hexdigest()
    return digests


def test_compiled_and_interpreted_engines_agree():
    assert type(engine.random_playout).__name__ == "CPUDispatcher"
    compiled = playout_digests()
    env = {**os.environ, "NUMBA_DISABLE_JIT": "1"}
    code = ("import json, test_jit_agreement as t; "
            "assert type(t.engine.random_playout).__name__ == 'function', 'still compiled'; "
            "print(json.dumps(t.playout_digests()))")
    result = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True,
                            text=True, cwd=os.path.dirname(__file__), timeout=300)
    assert result.returncode == 0, result.stderr
    interpreted = json.loads(result.stdout.strip().splitlines()[-1])
    assert interpreted == compiled
