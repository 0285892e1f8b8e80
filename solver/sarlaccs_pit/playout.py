"""sarlaccs_pit's play-out hooks (solver/sim/hooks.py): what the shared play-out loop and
tournament (solver/sim/playout.py, solver/evaluation/tournament.py) play it with.

Policies: a heuristic (features.HEURISTIC_NAMES index) or TABLE, an MCCFR table
(table_policy.py; its arrays and the lookup's scratch are the bank, `table_bank`); a
player is a chain: the table, then a heuristic where it has no key.

Deals: every chance outcome (the deal, each draw, S3, S10) is a pick with the engine's
odds from the deal's own stream, so both seatings of a duplicate deal are dealt the same
hands and draw from the same random numbers. The decisions' stream is keyed by the
seating (the policy first in each seat's chain), as Han Solo's.

Scores of a seat: its Jedi points and its return (the engine's utility, S13). Winners: the
seats with the most Jedi points (S13: a tie is a shared win).
"""

from __future__ import annotations

import numpy as np
from numba import njit

from spiel_game.sarlacc import engine
from spiel_game.sarlacc.layout import (MAX_PLAYERS, NUM_ACTIONS, NUM_KINDS, S_NUM_PLAYERS,
                                       S_PILE, S_POINTS)

from solver.sarlaccs_pit.abstraction import MAX_CHOICES, table_probs
from solver.sarlaccs_pit.features import HEURISTIC_NAMES, heuristic_probs
from solver.policies.engine_playout import FOUND, MISSED, engine_table_bank, seating_stream
from solver.sim.games import PlayoutGame
from solver.sim.hooks import playout_hooks
from solver.sim.rng import stream_seed
from solver.sim.sampler import sample

_JIT = dict(cache=True, nogil=True)
# The play-out loop and the tournament take SARLACC_PLAYOUT as an argument, so their
# caches hold this module's code: spiel_game/jit_cache.py clears them when this module (or
# one it imports) changes. (Their modules, layers below, do not import this one.)
COMPILED_INTO = ("solver.sim.playout", "solver.evaluation.tournament")
TABLE = len(HEURISTIC_NAMES)  # the policy id of the table (after the heuristics)
STREAM_SP_DEAL, STREAM_SP_DECISIONS = 52, 53  # 51: MCCFR (mccfr.py)


def deck_cards(initial: np.ndarray) -> np.ndarray:
    """The cards dealt from at a game's start (the Jabba cards join after the deal, S3)."""
    counts = initial[S_PILE:S_PILE + NUM_KINDS]
    return np.repeat(np.arange(NUM_KINDS, dtype=np.int32), counts)


def table_bank(table) -> tuple:
    """A loaded table (table_policy.py, or None) as the bank of the compiled play
    (solver/policies/engine_playout.py)."""
    return engine_table_bank(table, MAX_CHOICES)


@njit(**_JIT)
def _max_actions():
    return NUM_ACTIONS


@njit(**_JIT)
def _policy_probs(s, player, policy, bank, legal, n, out):
    """TABLE: the table's row, or MISSED where it has no key; else the heuristic's."""
    if policy == TABLE:
        if table_probs(s, legal, n, bank[0], bank[1], bank[2], bank[3], bank[4], bank[5],
                       out):
            return FOUND
        return MISSED
    heuristic_probs(s, policy, legal, n, out)
    return FOUND


@njit(**_JIT)
def _missed():
    return MISSED


@njit(**_JIT)
def _deal_size():
    return 1


@njit(**_JIT)
def _start_deal(cards, seed, deal, order, state):
    state[0] = stream_seed(seed, STREAM_SP_DEAL, deal)
    for i in range(len(cards)):  # not read: every card is a pick from the deal's stream
        order[i] = cards[i]


@njit(**_JIT)
def _deal_card(s, order, state, outcomes, probs):
    k = engine.chance_outcomes(s, outcomes, probs)
    return outcomes[sample(probs, k, state[0:1])]


@njit(**_JIT)
def _chance_action(s, rng, outcomes, probs):
    return outcomes[sample(probs, engine.chance_outcomes(s, outcomes, probs), rng)]


@njit(**_JIT)
def _decision_stream(seed, deal, rotation, seat_chain):
    return seating_stream(seed, STREAM_SP_DECISIONS, deal, seat_chain)


@njit(**_JIT)
def _num_scores():
    return 2


@njit(**_JIT)
def _round_scores(s, out):
    """Each seat's Jedi points and return."""
    ret = np.empty(MAX_PLAYERS)
    engine.returns(s, ret)
    for q in range(s[S_NUM_PLAYERS]):
        out[q, 0] = s[S_POINTS + q]
        out[q, 1] = ret[q]


@njit(**_JIT)
def _winners(s):
    best = 0
    for q in range(s[S_NUM_PLAYERS]):
        best = max(best, s[S_POINTS + q])
    mask = 0
    for q in range(s[S_NUM_PLAYERS]):
        if s[S_POINTS + q] == best:
            mask |= 1 << q
    return mask


SARLACC_PLAYOUT = playout_hooks(
    "solver.sarlaccs_pit.playout", max_actions=_max_actions, policy_probs=_policy_probs,
    missed=_missed, deal_size=_deal_size, start_deal=_start_deal, deal_card=_deal_card,
    chance_action=_chance_action, decision_stream=_decision_stream, num_scores=_num_scores,
    round_scores=_round_scores, winners=_winners)
SARLACC_GAME = PlayoutGame(engine.ENGINE, SARLACC_PLAYOUT, deck_cards,
                           lambda game: game.initial_array.copy(), ("points", "returns"),
                           np.float64)
