"""A hint's options and their choice, for every game: the full actions chosen now
(`full_actions`), and each decision along them valued and chosen by the one rule
(`decide`, solver/hint/choice.py `choose`), step by step.

What is a game's own is its `OptionTree`: its legal actions, how one applies, which
decisions are chosen now (the rest are left to the rollouts' policy), the policy's
probabilities at a decision (the rule's tie-break), and how an action and a decision read.
The Love Letter engine's is in solver/hint/advice.py (`option_tree`), han_solo's in
solver/han_solo/hint.py.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable

import numpy as np

from solver.hint.choice import choose


@dataclasses.dataclass(frozen=True)
class OptionTree:
    """One game's decisions at a hint, as functions of its engine state."""

    legal: Callable  # (state) -> list of action ids
    apply: Callable  # (state, action) -> the next state (a new one)
    chosen_now: Callable  # (state after prefix, prefix) -> whether that decision is part
    #                       of the full action chosen now (else the rollouts choose it)
    probabilities: Callable  # (state, legal) -> the policy's probability of each, or None
    words: Callable  # (action) -> how it reads
    decision: Callable  # (state) -> the decision's name (a phase)

    def full_words(self, ids) -> str:
        """A full action as it reads: its actions, separated by ', '."""
        return ", ".join(self.words(a) for a in ids)


def full_actions(tree: OptionTree, s0) -> list[tuple[int, ...]]:
    """Every full action from s0: each legal action, followed by every decision of the
    tree's that is chosen now."""
    out = []

    def walk(s, prefix):
        if prefix and not tree.chosen_now(s, prefix):
            out.append(prefix)
            return
        for a in tree.legal(s):
            walk(tree.apply(s, a), prefix + (a,))

    walk(s0, ())
    return out


def decide(tree: OptionTree, s, prefix: tuple, index_of: dict, values: np.ndarray,
           clusters: np.ndarray, follow=None):
    """The decision after `prefix` (state s): each option valued by the rule applied
    below it. Returns (the value row of the chosen line, its steps, its action ids).
    index_of: each full action's row of `values`; follow: a full action whose steps to
    take instead of the rule's (by value)."""
    if prefix in index_of:
        return values[index_of[prefix]], [], []
    legal = tree.legal(s)
    lines = [decide(tree, tree.apply(s, a), prefix + (a,), index_of, values, clusters, follow)
             for a in legal]
    probs = tree.probabilities(s, legal)
    chosen, stats, how = choose(np.stack([row for row, _, _ in lines]), clusters, probs)
    if follow is not None:
        chosen, how = legal.index(follow[len(prefix)]), "value"
    options = [{"action": tree.words(a), "action_id": a,
                "probability": None if probs is None else float(probs[i]),
                "full_action": tree.full_words([a] + lines[i][2]), **stats[i]}
               for i, a in enumerate(legal)]
    step = {"decision": tree.decision(s), "chosen": tree.words(legal[chosen]),
            "chosen_by": how, "options": options}
    row, steps, ids = lines[chosen]
    return row, [step] + steps, [legal[chosen]] + ids


def play_lines(tree: OptionTree, s0, index_of: dict, values: np.ndarray,
               clusters: np.ndarray) -> tuple[list[int], list]:
    """(the legal actions at s0, each one's `decide` line below it)."""
    legal = tree.legal(s0)
    return legal, [decide(tree, tree.apply(s0, a), (a,), index_of, values, clusters)
                   for a in legal]
