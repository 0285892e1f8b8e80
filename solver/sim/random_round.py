"""One random round played in Python: chance by its odds, every decision uniform (the
situations the studies and benchmarks stop at)."""

from __future__ import annotations

import random

from spiel_game import layout as L


def play_decisions(game, rng: random.Random):
    """Yield the state of one random round at each play decision, before its move (the
    live state: clone what you keep)."""
    state = game.new_initial_state()
    while not state.is_terminal():
        if state.current_player() >= 0 and state.array[L.S_PHASE] == L.PH_PLAY:
            yield state
        if state.is_chance_node():
            outcomes, probs = zip(*state.chance_outcomes())
            state.apply_action(rng.choices(outcomes, probs)[0])
        else:
            state.apply_action(rng.choice(state.legal_actions()))
