"""The search as a policy on a whole reduced game tree: its exact exploitability.

Every information state of the tree (both seats) gets its own search, from one of its
states, with the same limits and seed; the strategies assembled are the search policy,
whose exact exploitability (NashConv with 3+ players) solver/exact/best_response.py
computes. The blueprint's own strategy on the tree is assembled the same way, from the
same chain the search uses.
"""

from __future__ import annotations

import time

import numpy as np

from solver.exact.tree import GameTree, infoset_states
from solver.policies.chain import chain_probs
from solver.search.policy import SearchPolicy
from solver.search.resolve import SearchLimits


def _place(tree: GameTree, strategy, index: int, legal, probs) -> None:
    offsets = tree.action_offsets()
    actions = tree.infoset_actions[index].tolist()
    row = np.zeros(len(actions))
    for a, p in zip(legal.tolist(), probs.tolist()):
        row[actions.index(a)] = p
    strategy[offsets[index]:offsets[index + 1]] = row / row.sum()


def blueprint_strategy(tree: GameTree, policies) -> np.ndarray:
    """The blueprint chain's probabilities at every infoset (first policy with the key;
    a miss: uniform)."""
    strategy = np.zeros(int(tree.action_offsets()[-1]))
    bank = policies.bank.arrays()
    chain = np.asarray(policies.chain, dtype=np.int64)
    for index, state in infoset_states(tree):
        legal = tree.infoset_actions[index].astype(np.int32)
        probs = np.empty(len(legal))
        chain_probs(state.array, int(tree.infoset_player[index]), bank, chain, legal,
                    len(legal), probs)
        _place(tree, strategy, index, legal, probs)
    return strategy


def search_strategy(tree: GameTree, policies, limits: SearchLimits, seed: int = 0,
                    top: str = "max-margin", progress=None,
                    leaves: str = "single") -> tuple[np.ndarray, dict]:
    """The search policy (solver/search/policy.py) at every infoset of the tree, asked in
    the tree's order; also its timing and size figures."""
    strategy = np.zeros(int(tree.action_offsets()[-1]))
    policy = SearchPolicy(tree.game, policies, limits, seed, top, leaves=leaves)
    nodes = []
    start = time.perf_counter()
    for index, state in infoset_states(tree):
        before = policy.searches
        legal, probs = policy.probabilities(state.array, int(tree.infoset_player[index]))
        if policy.searches > before:
            nodes.append(policy.last.subgame.num_nodes)
        _place(tree, strategy, index, legal, probs)
        if progress is not None:
            progress(index + 1, tree.num_infosets)
    return strategy, {"infosets": tree.num_infosets, "searches": policy.searches,
                      "fallbacks_to_blueprint": policy.fallbacks,
                      "mean_search_seconds": policy.seconds / max(policy.searches, 1),
                      "median_subgame_nodes": float(np.median(nodes)) if nodes else 0.0,
                      "max_subgame_nodes": int(max(nodes)) if nodes else 0,
                      "seconds": time.perf_counter() - start}


class TreeBlueprint:
    """A blueprint from a strategy on a reduced tree (an identity-keyed table, 8-bit rows
    as in policy files), then `agenda_expert` for states the tree lacks: what the search
    takes as `policies` (bank, chain)."""

    def __init__(self, tree: GameTree, strategy: np.ndarray):
        from solver.abstraction.keys import identity_key
        from solver.policies.compiled import AGENDA_EXPERT, TABLE, PolicyBank

        offsets = tree.action_offsets()
        keys = np.empty(tree.num_infosets, dtype=np.int64)
        for index, state in infoset_states(tree):
            keys[index] = identity_key(state.array, int(tree.infoset_player[index]))
        order = np.argsort(keys)
        sizes = np.diff(offsets)[order]
        rows = [np.round(strategy[offsets[i]:offsets[i + 1]] * 255) for i in order]
        row_start = np.concatenate([[0], np.cumsum(sizes)[:-1]]).astype(np.int64)
        self.bank = PolicyBank(
            ["tree", "agenda_expert"], np.array([TABLE, AGENDA_EXPERT], np.int32),
            np.array([0, -1], np.int32), np.array([0, len(keys), len(keys)], np.int64),
            keys[order], row_start, sizes.astype(np.uint8),
            np.concatenate(rows).astype(np.uint8), [None, None], ["tree", "agenda_expert"])
        self.chain = np.arange(2, dtype=np.int64)


def search_aware_lbr(tree: GameTree, strategy: np.ndarray, deals: int, seed: int = 1,
                     rollouts: int = 64) -> dict:
    """A local best response whose opponent model is the search itself: the search
    policy's strategy at every information state of the tree (`search_strategy`), as an
    identity-keyed table (TreeBlueprint: 8-bit rows), is what LBR's belief weighs the
    searcher's past decisions by and what its rollouts continue with
    (solver/evaluation/lbr.py). Its value, exactly on the tree (LBR's choice at each of
    its information states; with the exact best response to the same 8-bit table) and
    sampled over `deals` duplicate deals with its 95% interval."""
    from solver.evaluation.lbr import exact_lbr_value, run_lbr

    table = TreeBlueprint(tree, strategy)
    exact = exact_lbr_value(tree, table.bank, 0, seed, rollouts)
    sampled = run_lbr(tree.game, table.bank, 0, deals, seed, rollouts)
    bound = sampled.lower_bound()
    return {"lbr_exact": exact.lbr, "lbr_best_response": exact.exact,
            "lbr": bound.mean, "lbr_low": bound.low, "lbr_high": bound.high,
            "lbr_deals": deals, "lbr_rollouts": rollouts,
            "lbr_seconds": exact.seconds + sampled.seconds}
