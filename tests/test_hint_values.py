"""Honest hint intervals: on a reduced deck, where the value of every full action is
computable exactly, the 95% intervals contain it at least 90% of the time over seeds."""

from __future__ import annotations

import numpy as np
import pyspiel
import pytest

import spiel_game  # noqa: F401
from solver.hint import advice as H
from solver.hint.log import log_worlds, prior_worlds, summary_log_worlds
from solver.hint.situation import from_mapping
from solver.policies.chain import PolicySet
from solver.policies.compiled import probabilities
from spiel_game import engine
from spiel_game import layout as L


def exact_value(s, me, bank, out=None) -> float:
    """My expected return from engine state s when everybody plays bank policy 0 (the
    rollouts' agenda_expert) and chance has the engine's odds: the rollouts' estimand."""
    if engine.is_terminal(s):
        out = np.zeros(s[L.S_NUM_PLAYERS])
        engine.returns(s, out)
        return float(out[me])
    if engine.is_chance(s):
        size = int(s[L.S_POOL_SIZE])
        cards = {}
        for i in range(size):
            c = int(engine.sample_chance(s, i))
            cards[c] = cards.get(c, 0) + 1
        total = 0.0
        for c, k in cards.items():
            t = s.copy()
            engine.apply_action(t, c)
            total += k / size * exact_value(t, me, bank)
        return total
    legal, probs, _ = probabilities(bank, 0, s, int(engine.current_actor(s)))
    total = 0.0
    for a, p in zip(legal, probs):
        if p > 0:
            t = s.copy()
            engine.apply_action(t, int(a))
            total += p * exact_value(t, me, bank)
    return total


def exact_full_action_values(worlds, path, me, bank) -> float:
    total = 0.0
    for s, w in worlds:
        t = s.copy()
        for a in path:
            engine.apply_action(t, a)
        total += w * exact_value(t, me, bank)
    return total


MEDIUM_SITUATIONS = [
    # seat 1's first turn, after seat 0's Han Solo: a summary
    {"players": 2, "seat": 1, "hand": ["guard", "luke"], "areas": {0: ["han"]}},
    # seat 0's second turn, as a log
    {"players": 2, "seat": 0, "log": ["p0 gets Jabba the Hutt (deal)", "p1 gets ? (deal)",
                                      "p0 gets Han Solo (deck)", "p0 plays Han Solo",
                                      "p1 gets ? (deck)", "p1 plays Guard",
                                      "p1 chooses p0", "p1 names 5",
                                      "p0 gets Boba Fett (deck)"]},
]


@pytest.mark.parametrize("data", MEDIUM_SITUATIONS)
def test_intervals_cover_the_exact_values_on_a_reduced_deck(data):
    """Rollouts drawing worlds from the exact posterior: each its own cluster."""
    _check_coverage(data, seeds=40, rollouts=96)


def test_intervals_count_the_sampling_of_worlds():
    """Worlds drawn from prior-only beliefs (the chance odds, not the values'
    own): the intervals still cover the exact values under those worlds."""
    _check_coverage(MEDIUM_SITUATIONS[0], seeds=30, rollouts=1000, prior_only=True)


def _check_coverage(data, seeds, rollouts, prior_only=False):
    game = pyspiel.load_game("jabbas_palace", {"players": 2, "deck": "medium"})
    sit = from_mapping(data)
    policies = PolicySet(game, [])  # agenda_expert plays every rollout decision
    # and, as in the hint, weighs the opponents' choices in the posterior
    worlds, _ = (log_worlds if sit.log is not None else summary_log_worlds)(sit, game,
                                                                           policies)
    if prior_only:
        worlds, _ = prior_worlds(sit, game)
    exact = {}
    inside = checked = 0
    for seed in range(seeds):
        a = H.hint(sit, game, policies, seed=seed, rollouts=rollouts,
                   prior_only=prior_only)
        for f in a["full_actions"]:
            path = tuple(f["action_ids"])
            if path not in exact:
                exact[path] = exact_full_action_values(worlds, path, sit.seat, policies.bank)
            inside += abs(f["ev"] - exact[path]) <= f["ev_ci95"]
            checked += 1
    assert len(exact) >= 2
    assert inside / checked >= 0.90, (inside, checked)
