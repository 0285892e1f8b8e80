"""Exact figures on reduced han_solo decks (solver/exact walks them through pyspiel): the
heuristics' exploitability, CFR variants' convergence, and an MCCFR table's exploitability
(the abstraction's loss)."""

from __future__ import annotations

import time

import numpy as np
import pyspiel

import spiel_game  # noqa: F401  (registers han_solo)
from spiel_game.han_solo import engine
from spiel_game.han_solo.layout import NUM_ACTIONS

from solver.exact.best_response import exploitability, nash_conv
from solver.exact.tree import GameTree, build_tree, infoset_states
from solver.exact.tree_policy import strategy_from_policy
from solver.han_solo.abstraction import MAX_CHOICES, info_key, level_id, table_probs
from solver.han_solo.heuristics import HanSoloHeuristic
from solver.policies.table import average_strategy_rows, row_offsets

_BOUNTIES = "green:1x5000+red:1x1000"
# The reduced decks the exact tools take (docs/han-solo.md "Solving"): one turn each.
DECKS = {
    # 5 cards (green 1 x2, red 1 x2, a blue 0), no dice: 3,971 histories
    "tiny": {"numbers": 1, "copies": 2, "blues": 1, "turns": 1, "dice": 0,
             "bounties": _BOUNTIES},
    # the same with 2-symbol dice (a match half the time): 61,211 histories
    "tiny_dice": {"numbers": 1, "copies": 2, "blues": 1, "turns": 1, "dice": 2,
                  "bounties": _BOUNTIES},
    # 5 cards (green 1, 2, red 1, 2, a blue 0), 2-symbol dice: 672,735 histories
    "small": {"numbers": 2, "copies": 1, "blues": 1, "turns": 1, "dice": 2,
              "bounties": _BOUNTIES},
}


def load(deck: str, players: int = 2) -> pyspiel.Game:
    if deck not in DECKS:
        raise ValueError(f"deck {deck!r}: known are {', '.join(DECKS)}")
    return pyspiel.load_game("han_solo", {**DECKS[deck], "players": players})


def heuristic_strategy(tree: GameTree, name: str) -> np.ndarray:
    """The flat tree strategy of a heuristic (asked once per information set)."""
    return strategy_from_policy(tree, HanSoloHeuristic(tree.game, name))


def infoset_keys(tree: GameTree, level: str) -> np.ndarray:
    """The abstract key of each of the tree's information sets."""
    lid = level_id(level)
    acts = np.empty(NUM_ACTIONS, dtype=np.int32)
    keys = np.zeros(tree.num_infosets, dtype=np.int64)
    for index, state in infoset_states(tree):
        n = engine.legal_actions(state.array, acts)
        keys[index] = info_key(state.array, acts, n, lid)
    return keys


def table_strategy(tree: GameTree, solver) -> np.ndarray:
    """The flat tree strategy of an MCCFR run's average strategy (or current, see
    MCCFRSolver.current), read as the table policy reads it (abstraction.table_probs:
    a key it never saw plays uniformly over the level's choices)."""
    table_keys, num_actions, rows, _ = average_strategy_rows(solver)
    starts = row_offsets(num_actions).astype(np.int64)
    num_actions = num_actions.astype(np.int64)
    lid = level_id(solver.level_name)
    offsets = tree.action_offsets()
    strategy = np.zeros(int(offsets[-1]))
    acts = np.empty(NUM_ACTIONS, dtype=np.int32)
    choices = np.empty(MAX_CHOICES, dtype=np.int32)
    out = np.empty(NUM_ACTIONS)
    for i, state in infoset_states(tree):
        n = engine.legal_actions(state.array, acts)
        if n != offsets[i + 1] - offsets[i]:
            raise ValueError(f"infoset {i}: the engine has {n} legal actions, the tree "
                             f"{offsets[i + 1] - offsets[i]}")
        table_probs(state.array, acts, n, lid, table_keys, starts, num_actions, rows, choices,
                    out)
        strategy[offsets[i]:offsets[i + 1]] = out[:n]
    return strategy


def exploitability_of(tree: GameTree, strategy: np.ndarray) -> dict:
    """Exploitability and NashConv (tokens per round, thousands of credits)."""
    conv = float(nash_conv(tree, strategy))
    return {"nash_conv": conv, "exploitability": float(exploitability(tree, strategy))
            if tree.num_players == 2 else None}


def build(deck: str, players: int = 2) -> GameTree:
    start = time.perf_counter()
    tree = build_tree(load(deck, players))
    del start
    return tree
