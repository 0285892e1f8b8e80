"""Conversions between flat per-infoset strategies (tree order) and OpenSpiel policies."""

from __future__ import annotations

import numpy as np
from open_spiel.python import policy as policy_lib

from solver.exact.tree import GameTree, infoset_states


def strategy_from_policy(tree: GameTree, policy: policy_lib.Policy) -> np.ndarray:
    """The flat strategy of any OpenSpiel policy, asked once per infoset of the tree."""
    offsets = tree.action_offsets()
    strategy = np.zeros(int(offsets[-1]))
    for index, state in infoset_states(tree):
        player = int(tree.infoset_player[index])
        probs = policy.action_probabilities(state, player)
        actions = tree.infoset_actions[index]
        row = np.array([probs.get(int(a), 0.0) for a in actions])
        extra = set(probs) - set(actions.tolist())
        if extra or not np.isclose(row.sum(), 1.0) or (row < 0).any():
            raise ValueError(f"policy gives an invalid distribution at "
                             f"{tree.infoset_strings[index]!r}: {probs} (legal: {actions})")
        strategy[offsets[index]:offsets[index + 1]] = row
    return strategy


def tabular_policy(tree: GameTree, strategy: np.ndarray) -> policy_lib.TabularPolicy:
    """An OpenSpiel TabularPolicy holding `strategy` (for OpenSpiel's own tools)."""
    table = policy_lib.TabularPolicy(tree.game)
    offsets = tree.action_offsets()
    for index, key in enumerate(tree.infoset_strings):
        row = np.zeros(tree.game.num_distinct_actions())
        row[tree.infoset_actions[index]] = strategy[offsets[index]:offsets[index + 1]]
        table.action_probability_array[table.state_lookup[key]] = row
    return table
