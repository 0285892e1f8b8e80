"""Han Solo's play-out hooks (solver/sim/hooks.py): what the shared play-out loop and
tournament (solver/sim/playout.py, solver/evaluation/tournament.py) play han_solo with.

Policies: a heuristic (features.HEURISTIC_NAMES index) or TABLE, an MCCFR table
(table_policy.py; its arrays and the lookup's scratch are the bank, `table_bank`); a
player is a chain (players.py): the table, then the heuristic where it has no key.

Deals: a shuffled deck and its own random streams for the pot, the dice and the tie
draws, so every rotation of a duplicate deal sees the same cards, pot, dice and ties.
Cards: the k-th card taken from the draw pile is the deck order's next card while the pile
is what remains of it (a uniform pick, H8); after a reshuffle of the discard pile (H8, rare
with 2 players) a card is a uniform pick from the pile by the deal's stream. The
decisions' stream is keyed by the seating (the policy first in each seat's chain), so a
deal played twice with the same seating plays the same decisions. (The streams and their
purposes are those of the former solver/han_solo/tournament.py: seeded results are
unchanged.)

Scores of a seat: its credits (its token's worth, thousands) and its return (the
engine's utility). Winners: the seats whose token is worth the most.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from spiel_game.han_solo import engine
from spiel_game.han_solo.layout import (CH_DICE, CH_POT, CH_TIE, MAX_PLAYERS, NUM_ACTIONS,
                                        NUM_CARD_KINDS, S_CHANCE_KIND, S_GOT,
                                        S_NUM_PLAYERS, S_PILE, S_PILE_N, S_TOKEN_VALUE)

from solver.han_solo.abstraction import MAX_CHOICES, table_probs
from solver.han_solo.features import HEURISTIC_NAMES, heuristic_probs
from solver.sim.deal import shuffle
from solver.policies.engine_playout import FOUND, MISSED, engine_table_bank, seating_stream
from solver.sim.games import PlayoutGame
from solver.sim.hooks import playout_hooks
from solver.sim.rng import stream_seed
from solver.sim.sampler import sample

_JIT = dict(cache=True, nogil=True)
# The play-out loop and the tournament take HAN_SOLO_PLAYOUT as an argument, so their
# caches hold this module's code: spiel_game/jit_cache.py clears them when this module (or
# one it imports) changes. (Their modules, layers below, do not import this one.)
COMPILED_INTO = ("solver.sim.playout", "solver.evaluation.tournament")
TABLE = len(HEURISTIC_NAMES)  # the policy id of the table (after the heuristics)
STREAM_HS_DEAL, STREAM_HS_POT, STREAM_HS_DICE, STREAM_HS_TIE, STREAM_HS_DECISIONS = \
    range(32, 37)
STREAM_HS_HINT = 40  # a han_solo hint's rollouts (index: the rollout)
# A deal's state: its streams (the deck's shuffle, then reshuffled picks; the pot; the
# dice; the ties) and the cards taken from its order.
_DEAL, _POT, _DICE, _TIE, _TAKEN = range(5)


def deck_cards(initial: np.ndarray) -> np.ndarray:
    """The draw pile of a round's start as a sorted list of card kinds."""
    counts = initial[S_PILE:S_PILE + NUM_CARD_KINDS]
    return np.repeat(np.arange(NUM_CARD_KINDS, dtype=np.int32), counts)


def table_bank(table) -> tuple:
    """A loaded table (table_policy.py, or None) as the bank of the compiled play
    (solver/policies/engine_playout.py)."""
    return engine_table_bank(table, MAX_CHOICES)


class HanSoloBank:
    """Han Solo's policies as compiled code takes them (the bank of `table_bank`), by id:
    the heuristics (features.HEURISTIC_NAMES), then TABLE, the table given (or None)."""

    names = (*HEURISTIC_NAMES, "table")

    def __init__(self, table=None):
        self.table = table
        self._arrays = table_bank(table)

    def arrays(self) -> tuple:
        return self._arrays


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
    return 5


@njit(**_JIT)
def _start_deal(cards, seed, deal, order, state):
    state[_DEAL] = stream_seed(seed, STREAM_HS_DEAL, deal)
    state[_POT] = stream_seed(seed, STREAM_HS_POT, deal)
    state[_DICE] = stream_seed(seed, STREAM_HS_DICE, deal)
    state[_TIE] = stream_seed(seed, STREAM_HS_TIE, deal)
    state[_TAKEN] = 0
    shuffle(cards, state[_DEAL:_DEAL + 1], order)


@njit(**_JIT)
def _deal_card(s, order, state, outcomes, probs):
    k = engine.chance_outcomes(s, outcomes, probs)
    kind = s[S_CHANCE_KIND]
    if kind == CH_POT:
        return outcomes[sample(probs, k, state[_POT:_POT + 1])]
    if kind == CH_DICE:
        return outcomes[sample(probs, k, state[_DICE:_DICE + 1])]
    if kind == CH_TIE:
        return outcomes[sample(probs, k, state[_TIE:_TIE + 1])]
    taken = np.int64(state[_TAKEN])
    if s[S_PILE_N] == len(order) - taken:  # the pile is the rest of the deck order
        state[_TAKEN] = taken + 1
        return order[taken]
    return outcomes[sample(probs, k, state[_DEAL:_DEAL + 1])]  # after a reshuffle (H8)


@njit(**_JIT)
def _chance_action(s, rng, outcomes, probs):
    return outcomes[sample(probs, engine.chance_outcomes(s, outcomes, probs), rng)]


@njit(**_JIT)
def _decision_stream(seed, deal, rotation, seat_chain):
    return seating_stream(seed, STREAM_HS_DECISIONS, deal, seat_chain)


@njit(**_JIT)
def _num_scores():
    return 2


@njit(**_JIT)
def _round_scores(s, out):
    """Each seat's credits (thousands) and return."""
    n = s[S_NUM_PLAYERS]
    ret = np.empty(MAX_PLAYERS)
    engine.returns(s, ret)
    for q in range(n):
        g = s[S_GOT + q]
        out[q, 0] = 0.0 if g < 0 else s[S_TOKEN_VALUE + g] / 1000.0
        out[q, 1] = ret[q]


@njit(**_JIT)
def _winners(s):
    best = 0
    for q in range(s[S_NUM_PLAYERS]):
        best = max(best, engine.credits(s, q))
    mask = 0
    for q in range(s[S_NUM_PLAYERS]):
        if best > 0 and engine.credits(s, q) == best:
            mask |= 1 << q
    return mask


HAN_SOLO_PLAYOUT = playout_hooks(
    "solver.han_solo.playout", max_actions=_max_actions, policy_probs=_policy_probs,
    missed=_missed, deal_size=_deal_size, start_deal=_start_deal, deal_card=_deal_card,
    chance_action=_chance_action, decision_stream=_decision_stream, num_scores=_num_scores,
    round_scores=_round_scores, winners=_winners)
HAN_SOLO_GAME = PlayoutGame(engine.ENGINE, HAN_SOLO_PLAYOUT, deck_cards,
                            lambda game: game.initial_array.copy(), ("credits", "returns"),
                            np.float64)
