"""The `many` level (solver/abstraction/keys.py), the abstraction for 4-6 players.

Key stability (one information state, one key), that keys use nothing hidden, that one
key has one set of legal actions, the path keys and the saturation bookkeeping on `tiny`
are tested for every level, `many` included, in tests/test_abstraction.py and
tests/test_abstraction_counting.py (which also checks that the older levels' keys are
unchanged). Here: a play decision's key is exactly the documented features (the
opponents as counts: which seat is out, protected or known is not keyed), and it
saturates where `coarse` does not.
"""

from __future__ import annotations

import random

import numpy as np
import pytest
from conftest import load, random_action

from solver.abstraction import keys as A
from spiel_game import layout as L
from spiel_game.cards import COL_NUMBER, COL_SIDE, Side
from spiel_game.engine import AG_JABBAS_COURT, AG_RESCUE_MISSION, CARD_TABLES


def _bucket(value, edges) -> int:
    return sum(value >= e for e in edges)


def play_features(s, p) -> tuple:
    """What `many_key`'s docstring says a play decision is keyed by, computed here from
    `track`'s output: own hand; opponents in (1 / 2 / 3+), not protected (0 / 1 / 2+),
    whether one of those has a card known for sure; the unseen cards' Rebel share (<25%,
    <45%, more) and mean number (<3.5, more); deck 0 / 1-2 / 3-6 / 7+; the agenda
    aggregate against the opponents still in."""
    t = np.empty(A.KEY_WORK_SIZE, dtype=np.int32)
    A.track(s, p, t)
    n = int(s[L.S_NUM_PLAYERS])
    rules = int(s[L.S_RULES])
    others = [q for q in range(n) if q != p and s[L.S_IN_ROUND + q]]
    open_ = [q for q in others if not s[L.S_PROTECTED + q]]
    unseen = t[A.T_UNSEEN:A.T_UNSEEN + L.MAX_CHARS]
    total = max(int(unseen.sum()), 1)
    rebels = sum(int(unseen[c]) for c in range(L.MAX_CHARS)
                 if CARD_TABLES[rules, c, COL_SIDE] == int(Side.REBEL))
    numbers = sum(int(unseen[c]) * int(CARD_TABLES[rules, c, COL_NUMBER])
                  for c in range(L.MAX_CHARS))
    agenda = int(s[L.S_AGENDA])
    aggregate = None
    if agenda in (AG_JABBAS_COURT, AG_RESCUE_MISSION) and others:
        field = A.T_PALACE_SUM if agenda == AG_JABBAS_COURT else A.T_REBEL_COUNT
        diff = int(t[field + p]) - max(int(t[field + q]) for q in others)
        aggregate = (_bucket(diff, (-4, 0, 1, 5)) if agenda == AG_JABBAS_COURT
                     else min(max(diff, -2), 2))
    deck = int(s[L.S_UNKNOWN_DECK] + s[L.S_QUEUE_LEN])
    return (tuple(t[A.T_HAND:A.T_HAND + t[A.T_HAND_N]]), min(len(others), 3),
            min(len(open_), 2), any(t[A.T_KNOWN + q] >= 0 for q in open_),
            _bucket(100 * rebels // total, (25, 45)), _bucket(10 * numbers // total, (35,)),
            _bucket(deck, (1, 3, 7)), aggregate)


def _play_states(players, agenda, rounds, seed):
    game = load(players=players, agenda=agenda)
    rng = random.Random(seed)
    for _ in range(rounds):
        state = game.new_initial_state()
        while not state.is_terminal():
            if not state.is_chance_node() and state._s[L.S_PHASE] == L.PH_PLAY:
                yield state._s.copy(), state.current_player()
            state.apply_action(random_action(state, rng))


@pytest.mark.parametrize("players,agenda", [(4, "jabbas_court"), (5, "exalted_one"),
                                            (6, "rescue_mission")])
def test_a_play_key_is_exactly_the_documented_features(players, agenda):
    """Same features, same key, and same key, same features (no collision): the key of a
    play decision holds these features and nothing else, whatever the seats."""
    key_of, features_of = {}, {}
    for s, p in _play_states(players, agenda, 150, players):
        key = int(A.abstract_key(s, p, A.MANY))
        features = play_features(s, p)
        assert key_of.setdefault(features, key) == key
        assert features_of.setdefault(key, features) == features
    assert len(key_of) > 200


@pytest.mark.slow
def test_many_saturates_where_coarse_does_not():
    """4 players, MCCFR from one seed: `many` adds few keys from its 400th to its 800th
    iteration, `coarse` keeps adding keys several times as fast."""
    from solver.mccfr.solver import MCCFRSolver

    game = load(players=4, agenda="exalted_one")
    growth = {}
    for level in (A.MANY, A.COARSE):
        solver = MCCFRSolver(game, level=level, seed=3)
        solver.run(400)
        before = solver.tables.num_keys
        solver.run(400)
        growth[level] = (solver.tables.num_keys - before) / before
    assert growth[A.MANY] < 0.25
    assert growth[A.COARSE] > 2 * growth[A.MANY]
