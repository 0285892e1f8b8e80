"""The Love Letter engine's play-out hooks (solver/sim/hooks.py): what the shared play-out
loop and tournament (solver/sim/playout.py, solver/evaluation/tournament.py) ask of its
games (jabbas_palace, love_letter): its policies' choices (the compiled bank,
solver/policies/compiled.py), its deals (solver/sim/deal.py) and their streams, its
scores; and `LOVE_LETTER_ENGINE`, its `PlayoutGame`, which its adapter's hook `playout`
returns. They sit beside the bank they choose by, as Han Solo's beside its policies
(solver/han_solo/playout.py): the loop, a layer below, takes them as an argument.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from spiel_game import engine
from spiel_game import layout as L

from solver.policies.compiled import TABLE_MISS, policy_probs
from solver.sim import deal
from solver.sim.deal import dealt_card, shuffled
from solver.sim.games import TOKEN_GOAL, PlayoutGame
from solver.sim.hooks import playout_hooks
from solver.sim.rng import STREAM_DEAL, STREAM_DECISIONS, stream_seed
from solver.sim.sampler import chance_card

# The loop and the tournament take these as arguments: their caches hold this code
# (spiel_game/jit_cache.py clears them when it changes).
COMPILED_INTO = ("solver.sim.playout", "solver.evaluation.tournament")

_JIT = {"cache": True, "nogil": True}


@njit(**_JIT)
def _max_actions():
    return L.NUM_ACTIONS


@njit(**_JIT)
def _missed():
    return TABLE_MISS


@njit(**_JIT)
def _deal_size():
    return 0


@njit(**_JIT)
def _start_deal(cards, seed, deal, order, state):
    shuffled(cards, seed, STREAM_DEAL, deal, order)


@njit(**_JIT)
def _deal_card(s, order, state, outcomes, probs):
    """Every chance node takes the deal's next card (solver/sim/deal.py `dealt_card`)."""
    return dealt_card(s, order)


@njit(**_JIT)
def _chance_action(s, rng, outcomes, probs):
    return chance_card(s, rng)


@njit(**_JIT)
def _decision_stream(seed, deal, rotation, seat_chain):
    return stream_seed(seed, STREAM_DECISIONS, deal * len(seat_chain) + rotation)


@njit(**_JIT)
def _num_scores():
    return 1


@njit(**_JIT)
def _round_scores(s, out):
    """The tokens each seat won."""
    for p in range(s[L.S_NUM_PLAYERS]):
        out[p, 0] = s[L.S_TOKENS + p]


@njit(**_JIT)
def _winners(s):
    """As the engine recorded them (R11, R12, C8): not counting tokens from cards."""
    return s[L.S_WINNERS]


LOVE_LETTER_PLAYOUT = playout_hooks(
    "solver.policies.playout", max_actions=_max_actions, policy_probs=policy_probs, missed=_missed,
    deal_size=_deal_size, start_deal=_start_deal, deal_card=_deal_card,
    chance_action=_chance_action, decision_stream=_decision_stream, num_scores=_num_scores,
    round_scores=_round_scores, winners=_winners)


def _logged_root(game) -> np.ndarray:
    root = game.initial_array.copy()
    root[L.S_LOGGING] = 1  # keys and card counting read the event log
    return root


LOVE_LETTER_ENGINE = PlayoutGame(engine.ENGINE, LOVE_LETTER_PLAYOUT, deal.deck_cards,
                                 _logged_root, ("tokens",), np.int32, TOKEN_GOAL)
