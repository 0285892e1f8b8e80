"""The compiled tree builder (solver/exact/tree.py `_compiled_walk`) against its reference,
the engine walked from Python: the same nodes in the same order, the same edges,
utilities and infoset numbering, on decks that exercise every event kind, and through
every growth of its arrays."""

from __future__ import annotations

import numpy as np
import pytest
from conftest import load

from solver.exact import tree as T

ARRAYS = ("kind", "player", "infoset", "child_start", "num_children", "edge_child",
          "edge_action", "edge_prob", "utility", "infoset_player", "infoset_node")


def _assert_same_tree(a: T.GameTree, b: T.GameTree) -> None:
    for name in ARRAYS:
        x, y = getattr(a, name), getattr(b, name)
        assert x.dtype == y.dtype and np.array_equal(x, y), name
    assert len(a.infoset_actions) == len(b.infoset_actions)
    for x, y in zip(a.infoset_actions, b.infoset_actions):
        assert x.dtype == y.dtype and np.array_equal(x, y)
    assert list(a.infoset_strings) == list(b.infoset_strings)


@pytest.mark.parametrize("params", [
    {"deck": "tiny"},
    {"deck": "small", "agenda": "jabbas_court"},
    {"deck": "han+guard+r2+lando+leia+boba+faceup:1"},  # trades, Leia's returns, face up
    {"deck": "han+guard+c3po+bib+rancor+faceup:0", "agenda": "rescue_mission"},  # C-3PO, Rancor
    {"deck": "han+guard+mercenary+luke+jabba+bib", "players": 3},
])
def test_compiled_tree_is_the_python_walks_tree(params, monkeypatch):
    """Tiny first arrays (8 nodes) make every array grow many times during the walk."""
    game = load(**params)
    reference = T.build_tree(game, python_walk=True)
    monkeypatch.setattr(T, "_FIRST_SIZE", 8)
    compiled = T.build_tree(game)
    assert compiled.num_nodes == reference.num_nodes > 1000
    _assert_same_tree(compiled, reference)


def test_strings_are_made_on_first_use_and_are_openspiels():
    game = load(deck="small")
    tree = T.build_tree(game)
    assert isinstance(tree.infoset_strings, T.InfosetStrings)
    assert tree.infoset_strings._strings is None  # not made yet
    generic = T.build_tree(game, through_pyspiel=True)  # strings from pyspiel itself
    assert tree.infoset_strings == generic.infoset_strings
    assert len(tree.infoset_strings) == tree.num_infosets == 1687


def test_infoset_paths_reach_their_nodes():
    """Replaying an infoset's path gives a state of that infoset, at its node's depth."""
    game = load(deck="small")
    tree = T.build_tree(game)
    actions, offsets = T.infoset_paths(tree)
    assert len(offsets) == tree.num_infosets + 1
    for index, state in T.infoset_states(tree):
        assert state.current_player() == tree.infoset_player[index]
        assert state.legal_actions() == tree.infoset_actions[index].tolist()
        assert len(state.history()) >= offsets[index + 1] - offsets[index]


def test_too_large_a_tree_is_refused():
    with pytest.raises(ValueError, match="more than 1,000 nodes; use a smaller deck"):
        T.build_tree(load(deck="small"), max_nodes=1000)
    with pytest.raises(ValueError, match="more than 1,000 nodes"):
        T.build_tree(load(deck="small"), max_nodes=1000, python_walk=True)
