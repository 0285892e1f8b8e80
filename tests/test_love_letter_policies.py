"""Policies on classic Love Letter (`love_letter`): the heuristics and their compiled twins
(solver/policies/), the card counting and abstraction keys behind them
(solver/abstraction/keys.py), policy files of the wrong game.

As tests/test_heuristics.py, tests/test_tournament.py and tests/test_abstraction.py do
for Jabba's Palace: compiled and Python heuristics agree at every decision of random
rounds; nothing depends on hidden cards; scripted situations for the classic rules.
"""

from __future__ import annotations

import random
from collections import defaultdict

import numpy as np
import pyspiel
import pytest

from conftest import random_action, tree_decision_states
from scripting import act, chance, target, turn
from solver.abstraction import keys as A
from solver.policies.compiled import build_bank, probabilities
from solver.policies.heuristics import (HEURISTICS, CardCounter, ClassicExpert, KeepHigher,
                                        heuristics_for)
from solver.policies.knowledge import knowledge
from spiel_game import layout as L
from spiel_game.cards import (BARON, COUNTESS, GUARD, HANDMAID, KING, PRIEST, PRINCE,
                              PRINCESS, SPY)
from test_abstraction import _check_path_keys, _keys, _scramble_hidden
from test_love_letter import deck_of, load, name, setup

LEVELS = list(A.LEVELS.values())


def decision_states(game, rounds: int, rng: random.Random):
    for _ in range(rounds):
        state = game.new_initial_state()
        while not state.is_terminal():
            if not state.is_chance_node():
                yield state.clone(), state.current_player()
            state.apply_action(random_action(state, rng))


def chosen(policy_class, state) -> set[int]:
    probs = policy_class(state.get_game()).action_probabilities(state)
    return {a for a, p in probs.items() if p > 0}


# Heuristics --------------------------------------------------------------------------------

def test_the_classic_heuristics_and_jabbas_are_listed_per_game():
    assert list(heuristics_for(load())) == ["uniform", "keep_higher", "keep_lower",
                                            "card_counter", "classic_expert"]
    jabba = pyspiel.load_game("jabbas_palace")
    assert list(heuristics_for(jabba)) == ["uniform", "keep_higher", "keep_lower",
                                           "card_counter", "agenda_expert"]


@pytest.mark.parametrize("players,deck", [(2, "full"), (3, "full"), (4, "full"),
                                          (2, "small"), (3, "medium")])
def test_compiled_heuristics_give_the_python_probabilities(players, deck):
    game = load(players=players, deck=deck)
    bank = build_bank(list(HEURISTICS), game)
    policies = [HEURISTICS[n](game) for n in bank.names]
    rng = random.Random(players * 13 + len(deck))
    checked = 0
    for state, p in decision_states(game, 12 if deck == "full" else 40, rng):
        for index, policy in enumerate(policies):
            expected = policy.action_probabilities(state)
            legal, probs, _ = probabilities(bank, index, state._s, p)
            assert legal.tolist() == state.legal_actions()
            assert probs.tolist() == pytest.approx(
                [expected[a] for a in legal.tolist()], abs=1e-12), (bank.names[index],
                                                                    str(state))
            checked += 1
    assert checked > 300


def test_heuristics_are_constant_on_information_sets_of_the_small_tree():
    game = load(deck="small")
    policies = {n: cls(game) for n, cls in HEURISTICS.items()}
    seen = defaultdict(set)
    for state, p in tree_decision_states(game):
        key = state.information_state_string(p)
        for n, policy in policies.items():
            seen[n, key].add(tuple(sorted(policy.action_probabilities(state).items())))
    assert len(seen) > 500 and all(len(v) == 1 for v in seen.values())


def test_card_counting_never_plays_the_princess():
    state = setup(deck_of(PRINCESS, GUARD, BARON, SPY, PRIEST), (PRINCESS, GUARD))
    chance(state, BARON, receiver=0)
    assert chosen(KeepHigher, state) == {BARON}
    for drawn in (GUARD, KING):  # the Princess is the higher card, never the one played
        state = setup(deck_of(PRINCESS, GUARD, GUARD, KING, BARON, SPY), (PRINCESS, GUARD))
        chance(state, drawn, receiver=0)
        for policy in (CardCounter, ClassicExpert):
            assert chosen(policy, state) == {drawn}


def test_the_prince_goes_to_the_likeliest_princess_never_to_oneself():
    """p0 saw p2's Princess with the Priest: the Prince makes p2 discard her."""
    from scripting import setup as jabba_setup

    state = jabba_setup(deck_of(PRIEST, PRINCE, PRINCESS, GUARD, BARON, SPY, KING,
                                HANDMAID), (PRIEST, BARON, PRINCESS), game="love_letter")
    turn(state, 0, PRINCE, PRIEST, target(2))
    turn(state, 1, SPY, SPY)
    turn(state, 2, GUARD, GUARD, target(1), name(KING))
    chance(state, KING, receiver=0)
    act(state, 0, PRINCE)
    for policy in (CardCounter, ClassicExpert):
        assert chosen(policy, state) == {target(2)}


def test_the_guard_names_the_likeliest_card_it_may_name():
    """Of the 7 cards p0 has not seen, 3 are Guards and 2 Barons: the Guard may not name
    the Guard, so it names the Baron."""
    state = setup(deck_of(GUARD, GUARD, GUARD, GUARD, GUARD, BARON, BARON, PRINCE, SPY),
                  (GUARD, PRINCE))
    chance(state, GUARD, receiver=0)  # two Guards: played, and the target is p1
    assert name(GUARD) not in state.legal_actions()
    for policy in (CardCounter, ClassicExpert):
        assert chosen(policy, state) == {name(BARON)}


def test_classic_expert_reads_a_countess_as_a_king_prince_or_princess():
    """p1 had to play the Countess (with the King): of the cards p0 has not seen, 2 are
    Barons, 2 Priests and 1 the King. card_counter names a Baron or a Priest; the classic
    player reads the Countess and names the King."""
    state = setup(deck_of(GUARD, GUARD, COUNTESS, KING, BARON, BARON, PRIEST, PRIEST, SPY),
                  (GUARD, COUNTESS))
    turn(state, 0, SPY, SPY)
    chance(state, KING, receiver=1)  # the Countess is forced
    chance(state, GUARD, receiver=0)  # two Guards: played, and the target is p1
    assert chosen(CardCounter, state) == {name(PRIEST), name(BARON)}
    assert chosen(ClassicExpert, state) == {name(KING)}


def test_classic_expert_values_the_king_by_what_it_gets():
    """p0 holds the King and the Prince; p1's card is known to be the Princess: the King
    takes her (worth 9), where keeping the King is worth 7."""
    state = setup(deck_of(PRIEST, KING, PRINCE, PRINCESS, GUARD, BARON, SPY, HANDMAID),
                  (PRIEST, PRINCESS))
    turn(state, 0, SPY, PRIEST)  # sees the Princess, keeps the Spy
    turn(state, 1, GUARD, GUARD, name(BARON))
    chance(state, KING, receiver=0)
    assert chosen(ClassicExpert, state) == {KING}
    assert chosen(CardCounter, state) == {SPY}  # keeps the King


# Card counting and keys --------------------------------------------------------------------

@pytest.mark.parametrize("players,deck", [(2, "full"), (3, "full"), (2, "medium")])
def test_card_counting_matches_the_reference(players, deck):
    game = load(players=players, deck=deck)
    rng = random.Random(7 + players)
    t = np.empty(A.T_SIZE, dtype=np.int32)
    discards = 0
    for state, _ in decision_states(game, 80, rng):
        discards += any(e.kind == L.E_DISCARD for e in state.events())
        for p in range(players):
            k = knowledge(state, p)
            A.track(state._s, p, t)
            unseen = tuple(t[A.T_UNSEEN:A.T_UNSEEN + L.MAX_CHARS])
            assert unseen == k.unseen_counts + (0,) * (L.MAX_CHARS - len(k.unseen_counts))
            known = {q: int(t[A.T_KNOWN + q]) for q in range(players)
                     if t[A.T_KNOWN + q] >= 0}
            assert known == k.known_hands
            for q, card in known.items():
                assert state.hand(q) == (card,)
            assert tuple(t[A.T_HAND:A.T_HAND + t[A.T_HAND_N]]) == k.hand == state.hand(p)
    assert discards > 20


@pytest.mark.parametrize("players", [2, 3])
def test_one_key_one_set_of_legal_actions(players):
    legal = [defaultdict(set) for _ in LEVELS]
    rng = random.Random(players)
    for state, p in decision_states(load(players=players), 300, rng):
        for i, key in enumerate(_keys(state._s, p)):
            legal[i][key].add(tuple(state.legal_actions()))
    for state, p in tree_decision_states(load(deck="small")):
        for i, key in enumerate(_keys(state._s, p)):
            legal[i]["small", key].add(tuple(state.legal_actions()))
    assert all(len(sets) == 1 for by_key in legal for sets in by_key.values())


def test_keys_see_only_the_players_information():
    game = load(players=3)
    rng = random.Random(11)
    for state, p in decision_states(game, 60, rng):
        for viewer in (p, rng.randrange(3)):
            scrambled = _scramble_hidden(state._s, viewer, rng)
            # (a classic card id is below 10: keep scrambled cards in range)
            assert _keys(scrambled, viewer) == _keys(state._s, viewer)
    small = defaultdict(set)
    for state, p in tree_decision_states(load(deck="small")):
        small[state.information_state_string(p)].add(_keys(state._s, p))
    assert all(len(keys) == 1 for keys in small.values())


def test_path_keys_are_the_abstract_keys():
    game = load(players=3)
    rng = random.Random(2)
    work = np.zeros(A.KEY_WORK_SIZE, dtype=np.int32)
    counts = [0] * len(LEVELS)
    for _ in range(40):
        s = game.initial_array.copy()
        rows = np.zeros((len(LEVELS), 3, A.PATH_SIZE), dtype=np.int32)
        for level in LEVELS:
            for q in range(3):
                A.path_start(rows[level, q], q, level)
        _check_path_keys(s, rows, work, rng, [4], counts)
    assert min(counts) > 500


# Policy files --------------------------------------------------------------------------------

def test_a_policy_file_of_the_other_game_is_refused(tmp_path):
    from solver.mccfr.solver import MCCFRSolver
    from solver.policies.table import export_policy, load_policy

    game = load(deck="tiny")
    solver = MCCFRSolver(game, level=A.LEVELS["identity"], seed=1, threads=1)
    solver.run(200, batch=100)
    path = tmp_path / "classic.npz"
    header = export_policy(solver, path)
    assert header["game"]["name"] == "love_letter"
    assert load_policy(path).game.get_type().short_name == "love_letter"
    jabba = pyspiel.load_game("jabbas_palace", {"deck": "tiny"})
    with pytest.raises(ValueError, match="policy is for the game love_letter, not "
                                         "jabbas_palace"):
        load_policy(path, jabba)
    with pytest.raises(ValueError, match="policy is for the game love_letter"):
        build_bank([str(path)], jabba)
