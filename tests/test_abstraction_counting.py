"""The `counting` level (solver/abstraction/keys.py) and what adding it must not change.

`counting` refines `fine`: it also summarises an opponent's card without the number they
named since their last play (one does not name the card one holds). Key stability (one
information state, one key), that keys use nothing hidden and that one key has one set
of legal actions are tested for every level, `counting` included, in
tests/test_abstraction.py. The older levels' keys must stay
bit for bit (the shipped policy files are indexed by them): a digest of their keys along
seeded rounds is compared with the digest the code before `counting` gave.
"""

from __future__ import annotations

import hashlib
import random

import numpy as np
import pytest
from conftest import load, random_action, tree_decision_states

from solver.abstraction import keys as A
from solver.exact.tree import build_tree, infoset_paths, infoset_states

# keys_digest(OLDER_LEVELS) at fbbd4f5, the commit before `counting` (computed by this
# file's keys_digest run in `git worktree add <dir> fbbd4f5`).
OLDER_LEVELS = ("identity", "fine", "coarse")
OLDER_DIGEST = "69bea97b5bf11b8752e9ca919d914ae3a51c47e328aea6c27ebdaaefca9f2720"
DIGEST_GAMES = ((2, "exalted_one", "full"), (2, "jabbas_court", "full"),
                (2, "rescue_mission", "medium"), (3, "my_kind_of_scum", "full"),
                (4, "rescue_mission", "full"))
DIGEST_ROUNDS = 40


def keys_digest(levels) -> str:
    """sha256 of every player's key at `levels` at every decision of seeded random rounds."""
    h = hashlib.sha256()
    for players, agenda, deck in DIGEST_GAMES:
        game = load(players=players, agenda=agenda, deck=deck)
        rng = random.Random(7919 * players + len(agenda))
        for _ in range(DIGEST_ROUNDS):
            state = game.new_initial_state()
            while not state.is_terminal():
                if not state.is_chance_node():
                    for p in range(players):
                        for level in levels:
                            key = int(A.abstract_key(state._s, p, A.LEVELS[level]))
                            h.update(key.to_bytes(8, "little"))
                state.apply_action(random_action(state, rng))
    return h.hexdigest()


def test_older_levels_keys_are_unchanged():
    assert keys_digest(OLDER_LEVELS) == OLDER_DIGEST


@pytest.mark.parametrize("players,deck", [(2, "small"), (2, "full"), (3, "full")])
def test_counting_refines_fine(players, deck):
    """One counting key, one fine key (and so one coarse key): counting only adds."""
    game = load(players=players, deck=deck)
    rng = random.Random(41 + players)
    fine_of = {}
    decisions = 0
    if deck == "small":
        states = list(tree_decision_states(game))
    else:
        states = []
        for _ in range(200):
            state = game.new_initial_state()
            while not state.is_terminal():
                if not state.is_chance_node():
                    states.append((state.clone(), state.current_player()))
                state.apply_action(random_action(state, rng))
    for state, p in states:
        counting = int(A.abstract_key(state._s, p, A.COUNTING))
        fine = int(A.abstract_key(state._s, p, A.FINE))
        assert fine_of.setdefault(counting, fine) == fine
        decisions += 1
    assert len(set(fine_of.values())) < len(fine_of)  # and it does add
    assert decisions > 1000


@pytest.mark.parametrize("number,other_number", [(8, 7), (7, 8)])
def test_a_named_number_is_taken_out_of_the_namers_card(number, other_number):
    """Scripted on `small`: p0 holds Guard, draws Mercenary, plays the Guard at p1 (who
    holds Han Solo) naming 8 or 7, a miss either way; p1 draws Salacious Crumb. For p1,
    p0's card is one of Mercenary, Luke, Jabba (the unseen cards): `fine` keys that the
    same whatever p0 named. `counting` takes the named number out (one does not name the
    card one holds): Mercenary or Luke after naming Jabba's 8, Mercenary or Jabba after
    naming Luke's 7, so the Rebel share differs and so do p1's keys."""
    from scripting import CRUMB, GUARD, HAN, MERC, act, name, setup, turn

    keys = {}
    for named in (number, other_number):
        state = setup("small", (GUARD, HAN))
        turn(state, 0, MERC, GUARD)  # the only target is chosen by the engine
        act(state, 0, name(named))
        assert "p1 stays in" in state.information_state_string(1)
        turn(state, 1, CRUMB)
        t = np.empty(A.KEY_WORK_SIZE, dtype=np.int32)
        A.track(state._s, 1, t)
        assert t[A.T_LAST_NAMED] == named and t[A.T_LAST_NAMED + 1] == -1
        keys[named] = {level: int(A.abstract_key(state._s, 1, A.LEVELS[level]))
                       for level in ("counting", "fine")}
    assert keys[number]["fine"] == keys[other_number]["fine"]
    assert keys[number]["counting"] != keys[other_number]["counting"]


def test_a_name_is_forgotten_when_the_namer_plays_again():
    """The named number rules the namer's card out only until their next play (they may
    have played the card they held when naming)."""
    from scripting import CRUMB, GUARD, HAN, JABBA, LUKE, MERC, act, name, setup, turn

    state = setup("small", (GUARD, HAN))
    turn(state, 0, MERC, GUARD)
    act(state, 0, name(8))
    turn(state, 1, CRUMB, CRUMB)  # p1 looks at p0's Mercenary
    t = np.empty(A.KEY_WORK_SIZE, dtype=np.int32)
    A.track(state._s, 1, t)
    assert t[A.T_LAST_NAMED] == 8
    turn(state, 0, LUKE, MERC)  # p0 plays again: the name is forgotten
    A.track(state._s, 1, t)
    assert t[A.T_LAST_NAMED] == -1
    assert JABBA != LUKE  # (the remaining card is drawn by p1 when the round goes on)


@pytest.mark.parametrize("deck", ["tiny", "small"])
def test_replayed_keys_are_the_keys_of_the_tree_infosets(deck):
    """`replayed_keys` (compiled replays of infoset_paths) gives each infoset the key
    abstract_key gives a pyspiel state of it, at every level."""
    game = load(deck=deck)
    tree = build_tree(game)
    actions, offsets = infoset_paths(tree)
    players = tree.infoset_player.astype(np.int64)
    states = list(infoset_states(tree))
    for level in A.LEVELS.values():
        replayed = A.replayed_keys(game.initial_array, actions, offsets, players, level)
        expected = [int(A.abstract_key(state._s, int(tree.infoset_player[i]), level))
                    for i, state in states]
        assert replayed.tolist() == expected


def test_mccfr_tables_saturate_at_the_trees_keys():
    """Saturation bookkeeping on `tiny`: after enough iterations the MCCFR table holds
    exactly the level's keys of the tree's infosets (none invented, none missed), and
    its key count says so; more iterations add none."""
    from solver.mccfr.solver import MCCFRSolver

    game = load(deck="tiny")
    tree = build_tree(game)
    actions, offsets = infoset_paths(tree)
    players = tree.infoset_player.astype(np.int64)
    for name, level in A.LEVELS.items():
        expected = set(A.replayed_keys(game.initial_array, actions, offsets, players,
                                       level).tolist())
        solver = MCCFRSolver(game, level=level, seed=5)
        solver.run(3000)
        stored = solver.tables.keys[solver.tables.keys != 0]
        assert set(stored.tolist()) == expected, name
        assert solver.tables.num_keys == len(stored) == len(expected)
        solver.run(1000)
        assert solver.tables.num_keys == len(expected), name
