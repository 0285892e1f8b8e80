"""Duplicate-deal tournaments of han_solo policies (compiled playouts).

A deal is a shuffled deck and its own random streams for the pot, the dice and the tie
draws; each deal is played twice, the two policies' seats swapped, so both face the same
cards in the same order. Cards: the k-th card taken from the draw pile is the deck order's
next card while the pile is what remains of it (a uniform pick, H8); after a reshuffle of
the discard pile (H8, rare with 2 players) a card is a uniform pick from the pile by the
deal's stream. Policies: the heuristics (features.HEURISTIC_NAMES) and an MCCFR table
(table_policy.py), each decision sampled from its own stream.
"""

from __future__ import annotations

import math

import numpy as np
from numba import njit

from spiel_game.han_solo import engine
from spiel_game.han_solo.layout import (CH_DICE, CH_POT, CH_TIE, NUM_ACTIONS,
                                        NUM_CARD_KINDS, PH_CHANCE, PH_TERMINAL,
                                        S_CHANCE_KIND, S_CUR, S_GOT, S_NUM_PLAYERS,
                                        S_PHASE, S_PILE, S_PILE_N, S_TOKEN_VALUE)

from solver.han_solo.abstraction import MAX_CHOICES, table_probs
from solver.han_solo.features import HEURISTIC_NAMES, heuristic_probs
from solver.sim.rng import next_below, stream_seed
from solver.sim.sampler import sample

_JIT = dict(cache=True, nogil=True)
TABLE = len(HEURISTIC_NAMES)  # the policy id of the table (after the heuristics)
STREAM_HS_DEAL, STREAM_HS_POT, STREAM_HS_DICE, STREAM_HS_TIE, STREAM_HS_DECISIONS = \
    range(32, 37)


@njit(**_JIT)
def policy_probs(s, policy, acts, n, level, keys, starts, num_actions, probs, fallback,
                 choices, out):
    """Policy `policy`'s probabilities over acts[:n] into out[:n]: a heuristic
    (HEURISTIC_NAMES index) or TABLE (the table's arrays; a key it lacks: heuristic
    `fallback`). False on a table miss."""
    if policy == TABLE:
        if table_probs(s, acts, n, level, keys, starts, num_actions, probs, choices, out):
            return True
        heuristic_probs(s, fallback, acts, n, out)
        return False
    heuristic_probs(s, policy, acts, n, out)
    return True


def table_arrays(table) -> tuple:
    """A loaded table (table_policy.HanSoloTablePolicy, or None) as the compiled
    functions' (level, keys, starts, num_actions, probs)."""
    if table is None:
        return (0, np.zeros(1, np.int64), np.zeros(1, np.int64), np.zeros(1, np.int64),
                np.zeros(1))
    return (table.level, table.keys, table.starts, table.num_actions, table.probs)


@njit(**_JIT)
def play_deals(initial, seats, first, count, seed, level, keys, starts, num_actions,
               probs, fallback, credits, margins, misses):
    """Play deals first..first+count-1 with policy seats[q] in seat q: each seat's
    credits (thousands) and utility into credits/margins[deal, seat]; table misses (a key
    not in the table: heuristic `fallback` plays, uniform by default) counted into
    misses[0], table decisions into misses[1]."""
    n = initial[S_NUM_PLAYERS]
    acts = np.empty(NUM_ACTIONS, dtype=np.int32)
    pr = np.empty(NUM_ACTIONS)
    choices = np.empty(MAX_CHOICES, dtype=np.int32)
    ret = np.empty(n)
    deck = np.empty(64, dtype=np.int32)
    for d in range(count):
        deal = first + d
        rng_deal = np.array([stream_seed(seed, STREAM_HS_DEAL, deal)], dtype=np.uint64)
        rng_pot = np.array([stream_seed(seed, STREAM_HS_POT, deal)], dtype=np.uint64)
        rng_dice = np.array([stream_seed(seed, STREAM_HS_DICE, deal)], dtype=np.uint64)
        rng_tie = np.array([stream_seed(seed, STREAM_HS_TIE, deal)], dtype=np.uint64)
        # The decisions' stream depends on the seating too: the policies differ.
        seating = 0
        for q in range(n):
            seating = seating * 16 + seats[q]
        rng_dec = np.array([stream_seed(seed, STREAM_HS_DECISIONS, deal * 65536 + seating)],
                           dtype=np.uint64)
        s = initial.copy()
        m = 0  # shuffle the deck (Fisher-Yates)
        for c in range(NUM_CARD_KINDS):
            for _ in range(s[S_PILE + c]):
                deck[m] = c
                m += 1
        for i in range(m - 1, 0, -1):
            j = next_below(rng_deal, i + 1)
            deck[i], deck[j] = deck[j], deck[i]
        taken = 0
        while s[S_PHASE] != PH_TERMINAL:
            if s[S_PHASE] == PH_CHANCE:
                kind = s[S_CHANCE_KIND]
                k = engine.chance_outcomes(s, acts, pr)
                if kind == CH_POT:
                    a = acts[sample(pr, k, rng_pot)]
                elif kind == CH_DICE:
                    a = acts[sample(pr, k, rng_dice)]
                elif kind == CH_TIE:
                    a = acts[sample(pr, k, rng_tie)]
                elif s[S_PILE_N] == m - taken:  # the pile is the rest of the deck order
                    a = deck[taken]
                    taken += 1
                else:  # after a reshuffle (H8)
                    a = acts[sample(pr, k, rng_deal)]
                engine.apply_action(s, a)
                continue
            p = s[S_CUR]
            k = engine.legal_actions(s, acts)
            if seats[p] == TABLE:
                misses[1] += 1
            if not policy_probs(s, seats[p], acts, k, level, keys, starts, num_actions,
                                probs, fallback, choices, pr):
                misses[0] += 1
            engine.apply_action(s, acts[sample(pr, k, rng_dec)])
        engine.returns(s, ret)
        for q in range(n):
            g = s[S_GOT + q]
            credits[d, q] = 0.0 if g < 0 else s[S_TOKEN_VALUE + g] / 1000.0
            margins[d, q] = ret[q]
    return count


def _interval(x: np.ndarray) -> dict:
    """Mean and its 95% normal interval."""
    mean = float(x.mean())
    half = 1.96 * float(x.std(ddof=1)) / math.sqrt(len(x)) if len(x) > 1 else float("nan")
    return {"mean": mean, "low": mean - half, "high": mean + half}


def duplicate_match(game, a: int, b: int, deals: int, seed: int, table=None,
                    fallback: int = 0) -> dict:
    """Policy ids a and b (HEURISTIC_NAMES index, or TABLE with `table` a loaded
    HanSoloTablePolicy) on `deals` duplicate deals, 2 players: a's margin (its credits
    less b's, thousands a round) per deal averaged over both seatings, a's credits a
    round, and a's game-win rate (its token worth more than b's; a tie counts half).
    `fallback`: the heuristic a table plays where it has no key (0: uniform)."""
    if game.num_players() != 2:
        raise ValueError("duplicate matches are for 2 players")
    arrays = table_arrays(table)
    misses = np.zeros(2, dtype=np.int64)
    credit = np.zeros((2, deals, 2))
    margin = np.zeros((2, deals, 2))
    for seating, seats in enumerate(((a, b), (b, a))):
        play_deals(game.initial_array, np.array(seats, np.int64), 0, deals, seed,
                   *arrays, fallback, credit[seating], margin[seating], misses)
    a_credit = np.stack([credit[0, :, 0], credit[1, :, 1]])  # (seating, deal)
    b_credit = np.stack([credit[0, :, 1], credit[1, :, 0]])
    a_margin = np.stack([margin[0, :, 0], margin[1, :, 1]])
    per_deal = a_margin.mean(axis=0)
    wins = (a_credit > b_credit) + 0.5 * (a_credit == b_credit)
    return {"deals": deals, "rounds": 2 * deals, "seed": seed,
            "margin": _interval(per_deal),
            "credits": _interval(a_credit.mean(axis=0)),
            "opponent_credits": _interval(b_credit.mean(axis=0)),
            "win_rate": _interval(wins.mean(axis=0)),
            "table_misses": int(misses[0]), "table_decisions": int(misses[1])}
