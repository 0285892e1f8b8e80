"""Abstraction keys (solver/abstraction/keys.py): they see only the acting player's information,
fix the legal actions, nest from fine to coarse, and the card counting behind them is
right.

"Only the player's information" is tested three ways: states that share OpenSpiel's
information-state string get one key (random full-deck rounds, every node of the small
tree, and rounds where a card hidden from the player was swapped); and scrambling every
hidden field of a state (other hands, the pool, the bottom queue, the set-aside card,
the hidden card fields of the log) changes no key.
"""

from __future__ import annotations

import random
from collections import defaultdict

import numpy as np
import pytest
from conftest import load, random_action, replay, tree_decision_states

from solver.abstraction import keys as A
from solver.policies.knowledge import knowledge
from spiel_game import events as ev
from spiel_game import layout as L

LEVELS = list(A.LEVELS.values())  # finest first: identity (0), counting, fine, coarse
HAND_DRAWS = (L.CH_DEAL, L.CH_TURN_DRAW, L.CH_LEIA_DRAW, L.CH_REDRAW)


def _decision_states(game, rounds, rng):
    """(state, acting player) at every decision of `rounds` random rounds."""
    for _ in range(rounds):
        state = game.new_initial_state()
        while not state.is_terminal():
            if not state.is_chance_node():
                yield state.clone(), state.current_player()
            state.apply_action(random_action(state, rng))




def _keys(s, player):
    return tuple(int(A.abstract_key(s, player, level)) for level in LEVELS)


@pytest.fixture(scope="module")
def small_nodes():
    """Every decision node of the small tree: (infostring, keys per level, legal)."""
    game = load(deck="small")
    return [(state.information_state_string(p), _keys(state._s, p),
             tuple(state.legal_actions())) for state, p in tree_decision_states(game)]


def test_levels_are_named_and_identity_is_level_0():
    assert A.LEVELS["identity"] == 0 and {"counting", "fine", "coarse"} <= set(A.LEVELS)
    assert sorted(A.LEVELS.values()) == list(range(len(A.LEVELS)))


def test_same_information_state_same_key_on_the_small_tree(small_nodes):
    by_string = {}
    for string, keys, _ in small_nodes:
        assert by_string.setdefault(string, keys) == keys, string


def test_identity_is_the_information_state_partition(small_nodes):
    strings_by_key = defaultdict(set)
    for string, keys, _ in small_nodes:
        strings_by_key[keys[0]].add(string)
    assert all(len(strings) == 1 for strings in strings_by_key.values())
    assert len(strings_by_key) == 1687  # the small deck's information states (docs/performance.md)


def test_coarser_levels_have_fewer_keys(small_nodes):
    """identity, counting, fine, coarse: each coarser than the one before. (`many` sums
    the opponents up instead of keying each: a 2-player deck is not what it is for, see
    tests/test_abstraction_many.py.)"""
    ordered = [i for i, level in enumerate(LEVELS) if level != A.MANY]
    counts = [len({keys[i] for _, keys, _ in small_nodes}) for i in ordered]
    assert counts == sorted(counts, reverse=True), counts
    assert counts[-1] < counts[0] / 4  # the coarse level really is coarse


@pytest.mark.parametrize("players,deck", [(2, "medium"), (3, "full")])
def test_same_information_state_same_key_in_random_rounds(players, deck):
    """Wherever two random rounds reach one information state (early in the round,
    mostly), the keys agree at every level. (Two players on the full deck rarely meet:
    three face-up cards and a hand make thousands of first information states.)"""
    game = load(players=players, deck=deck)
    rng = random.Random(11 + players)
    by_string = {}
    shared = 0
    for state, p in _decision_states(game, 300, rng):
        string = state.information_state_string(p)
        keys = _keys(state._s, p)
        if string in by_string:
            assert by_string[string] == keys, string
            shared += 1
        by_string[string] = keys
    assert shared > 20


def test_swapping_a_hidden_card_changes_no_key():
    """Swap a card dealt or drawn to one player; the others' keys stay the same as long
    as their information-state strings do."""
    game = load(players=3)
    rng = random.Random(5)
    compared = 0
    for _ in range(40):
        history = game.new_initial_state()
        actions = []
        while not history.is_terminal():
            action = random_action(history, rng)
            actions.append(action)
            history.apply_action(action)
        draws = [k for k in range(len(actions)) if _is_hand_draw(replay(game, actions[:k]))]
        k = rng.choice(draws)
        state = replay(game, actions[:k])
        others = [a for a in state.legal_actions() if a != actions[k]]
        if not others:
            continue
        changed = actions[:k] + [rng.choice(others)]
        a, b = replay(game, actions[:k + 1]), replay(game, changed)
        for action in actions[k + 1:]:
            if a.is_terminal() or action not in b.legal_actions():
                break
            if not a.is_chance_node():
                p = a.current_player()
                if a.information_state_string(p) == b.information_state_string(p):
                    assert _keys(a._s, p) == _keys(b._s, p)
                    compared += 1
            a.apply_action(action)
            b.apply_action(action)
    assert compared > 50


def _is_hand_draw(state) -> bool:
    return state.is_chance_node() and state._s[L.S_CHANCE_KIND] in HAND_DRAWS


def _scramble_hidden(s, player, rng):
    """A copy of s with every field `player` cannot see replaced by random cards."""
    out = s.copy()
    n = int(s[L.S_NUM_PLAYERS])
    for q in range(n):
        if q != player:
            for i in range(L.MAX_HAND):
                out[L.S_HAND + q * L.MAX_HAND + i] = rng.randrange(L.MAX_CHARS)
    for c in range(L.MAX_CHARS):
        out[L.S_POOL + c] = rng.randrange(3)
    out[L.S_SET_ASIDE] = rng.randrange(L.MAX_CHARS)
    for i in range(L.MAX_QUEUE):
        out[L.S_QUEUE + i] = rng.randrange(L.MAX_CHARS)
    if int(s[L.S_ACTOR]) != player or s[L.S_PHASE] != L.PH_ORDER:
        out[L.S_RETURN:L.S_RETURN + 2] = [rng.randrange(L.MAX_CHARS) for _ in range(2)]
    log = ev.log_array(s)
    hidden = ev.redact(log, player) == ev.HIDDEN
    for i, j in zip(*np.nonzero(hidden)):
        out[L.S_EVENTS + i * L.EVENT_SIZE + j] = rng.randrange(L.MAX_CHARS)
    return out


@pytest.mark.parametrize("players,deck", [(2, "full"), (3, "full"), (4, "full"),
                                          (2, "medium")])
def test_scrambling_hidden_fields_changes_no_key(players, deck):
    game = load(players=players, deck=deck)
    rng = random.Random(players)
    scrambled_events = 0
    for state, p in _decision_states(game, 120, rng):
        # Also the keys of players other than the actor (solver tools ask for them).
        for viewer in (p, rng.randrange(players)):
            t = _scramble_hidden(state._s, viewer, rng)
            scrambled_events += int((t[L.S_EVENTS:] != state._s[L.S_EVENTS:]).any())
            assert _keys(t, viewer) == _keys(state._s, viewer)
    assert scrambled_events > 100


@pytest.mark.parametrize("players", [2, 3, 4])
def test_legal_actions_are_identical_within_a_key(players, small_nodes):
    """The solver stores one block of n values per key: one key, one legal-action set."""
    legal = [defaultdict(set) for _ in LEVELS]
    game = load(players=players)
    rng = random.Random(17 * players)
    for state, p in _decision_states(game, 400, rng):
        actions = tuple(state.legal_actions())
        for i, key in enumerate(_keys(state._s, p)):
            legal[i][key].add(actions)
    if players == 2:
        for _, keys, actions in small_nodes:
            for i, key in enumerate(keys):
                legal[i][("small", key)].add(actions)
    for by_key in legal:
        assert all(len(sets) == 1 for sets in by_key.values())


@pytest.mark.parametrize("players,deck", [(2, "full"), (3, "full"), (2, "medium")])
def test_card_counting_matches_the_reference_and_the_truth(players, deck):
    """`track` agrees with solver/policies/knowledge.py (unseen counts, known hands, own hand), and
    is right: a known card is the real one, an unknown one is among the unseen cards and
    among the characters its constraints (misses) allow; a player who 'knows my card'
    knows the card I really hold."""
    game = load(players=players, deck=deck)
    rng = random.Random(23 + players)
    t = np.empty(A.T_SIZE, dtype=np.int32)
    constrained = 0
    for state, _actor in _decision_states(game, 150, rng):
        for p in range(players):
            k = knowledge(state, p)
            A.track(state._s, p, t)
            assert tuple(t[A.T_UNSEEN:A.T_UNSEEN + L.MAX_CHARS]) == k.unseen_counts
            known = {q: int(t[A.T_KNOWN + q]) for q in range(players) if t[A.T_KNOWN + q] >= 0}
            assert known == k.known_hands
            assert tuple(t[A.T_HAND:A.T_HAND + t[A.T_HAND_N]]) == k.hand == state.hand(p)
            for q in range(players):
                hand = state.hand(q)
                if q == p or len(hand) != 1 or not k.in_round[q]:
                    continue
                card = hand[0]
                if q in known:
                    assert known[q] == card
                else:
                    assert t[A.T_UNSEEN + card] > 0
                    assert (t[A.T_ALLOWED + q] >> card) & 1
                    constrained += t[A.T_ALLOWED + q] != (1 << L.MAX_CHARS) - 1
                if t[A.T_KNOWS_MINE + q] >= 0:
                    assert t[A.T_KNOWS_MINE + q] in state.hand(p)
    assert constrained > 0


def test_misses_narrow_the_hand_down():
    """Scripted: p0 plays Jabba at p1, who holds Guard (Palace): a miss. Every player's
    key-side count for p1 then allows only Palace characters."""
    from scripting import GUARD, HAN, JABBA, LUKE, MERC

    game = load(players=2, deck="small")
    # Deal p0 Jabba, p1 Guard; p0 draws Han and plays Jabba (p1 is the only target):
    # a miss; p1 draws Mercenary.
    state = replay(game, [JABBA, GUARD, HAN, JABBA, MERC])
    assert state.current_player() == 1
    t = np.empty(A.T_SIZE, dtype=np.int32)
    A.track(state._s, 0, t)
    allowed = int(t[A.T_ALLOWED + 1])
    assert not (allowed >> HAN) & 1 and not (allowed >> LUKE) & 1  # no Rebel card
    assert (allowed >> GUARD) & 1 and (allowed >> MERC) & 1
    # p1 plays Mercenary, a card the constraint allows: maybe the old card, forgotten.
    state.apply_action(MERC)
    A.track(state._s, 0, t)
    assert t[A.T_ALLOWED + 1] == (1 << L.MAX_CHARS) - 1


def test_compiled_solver_uses_the_current_keys():
    """numba caches solver/mccfr/solver.py by its own source only: after an edit of
    abstraction.py a stale cache would keep old keys. Every key the solver stores on the
    tiny deck must be a current key of some decision node there."""
    from solver.mccfr.solver import MCCFRSolver

    game = load(deck="tiny")
    nodes = list(tree_decision_states(game))
    for level in LEVELS:
        expected = {int(A.abstract_key(state._s, p, level)) for state, p in nodes}
        solver = MCCFRSolver(game, level=level, seed=1)
        solver.run(200)
        stored = set(solver.tables.keys[solver.tables.keys != 0].tolist())
        assert stored and stored <= expected, (
            "stale numba cache: delete solver/__pycache__/mccfr.* and rerun")


def _check_path_keys(s, rows, work, rng, branches, counts):
    """Play s to the end (random decisions, true chance), checking at every decision that
    each player's path row gives `abstract_key` at every level; at up to `branches`
    decisions, fork like the solver: copy the state and the rows, go on in each copy."""
    from spiel_game import engine

    actions = np.empty(L.NUM_ACTIONS, dtype=np.int32)
    players = int(s[L.S_NUM_PLAYERS])
    while not engine.is_terminal(s):
        if engine.is_chance(s):
            engine.apply_action(s, engine.sample_chance(s, rng.randrange(s[L.S_POOL_SIZE])))
            continue
        # The actor always (as the solver asks), another player now and then (a row may
        # also lag several decisions behind).
        actor = int(engine.current_actor(s))
        viewers = {actor, rng.randrange(players)}
        for viewer in viewers:
            for level in LEVELS:
                assert (A.path_key(s, viewer, level, rows[level, viewer], work)
                        == A.abstract_key(s, viewer, level))
                counts[level] += 1
        n = engine.legal_actions(s, actions)
        if branches[0] > 0 and n > 1 and rng.random() < 0.3:
            branches[0] -= 1
            for a in rng.sample(list(actions[:n]), 2):
                child, child_rows = s.copy(), rows.copy()
                engine.apply_action(child, a)
                _check_path_keys(child, child_rows, work, rng, branches, counts)
            return
        engine.apply_action(s, actions[rng.randrange(n)])


@pytest.mark.parametrize("players,agenda", [(2, "exalted_one"), (2, "jabbas_court"),
                                            (3, "rescue_mission"), (4, "my_kind_of_scum")])
def test_path_keys_are_the_abstract_keys(players, agenda):
    """The solver's incremental keys (`path_key`: a row per player carried down the path,
    reading only the events logged since it last read) are `abstract_key`'s bit for bit,
    at every level, along random rounds that branch as the solver's traversal does."""
    game = load(players=players, agenda=agenda)
    rng = random.Random(31 + players)
    work = np.zeros(A.KEY_WORK_SIZE, dtype=np.int32)
    counts = [0] * len(LEVELS)
    for _ in range(60):
        s = game.initial_array.copy()
        s[L.S_LOGGING] = 1
        rows = np.zeros((len(LEVELS), players, A.PATH_SIZE), dtype=np.int32)
        for level in LEVELS:
            for q in range(players):
                A.path_start(rows[level, q], q, level)
        _check_path_keys(s, rows, work, rng, [4], counts)
    assert min(counts) > 1000


def test_key_is_never_zero_and_depends_on_the_level():
    game = load()
    rng = random.Random(3)
    for state, p in _decision_states(game, 20, rng):
        keys = _keys(state._s, p)
        assert all(k > 0 for k in keys)
        assert len(set(keys)) == len(keys)
