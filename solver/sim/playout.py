"""The one play-out loop, with deals, shared by tournaments, hint rollouts and LBR.

`play_out(s, order, seat_chain, bank, rng, legal, probs, counts, seat_row, stop_seat)`
plays engine state s on, compiled:

- chance: the next card of a deal `order` (below), or, with `order` empty, a card drawn
  from the stream `rng` with the engine's odds (solver/sim/sampler.py `chance_card`);
- a decision of seat p: the first policy of p's chain, seat_chain[p] (PolicyBank indices,
  solver/policies/chain.py `chain_probs`), that has p's key decides, and its action is
  drawn from `rng` (solver/sim/sampler.py `sample`). A heuristic has every key, so a
  chain that ends in one never misses: that heuristic is the chain's fallback. When no
  policy of the chain has the key (a chain of tables only), p plays uniformly at random
  over the legal actions: a *miss*;
- counts[seat_row[p], k] += 1 when seat_chain[p, k] decided, counts[seat_row[p], K] += 1
  for a miss (K the chain length), so a row sums to the row's decisions;
- it stops at the end of the round, or before a decision of `stop_seat` (-1: none), for
  a caller that decides that seat itself (LBR).

What each caller counts as a miss:

- tournaments (solver/evaluation/tournament.py): every seat's chain is its one policy; a
  table policy's key absent from its table is a miss, played uniformly, and reported as
  the table's miss rate (misses / the table's decisions); heuristics never miss;
- hint rollouts (solver/hint/advice.py): every seat's chain is the game's tables, finest
  first, then `agenda_expert`; the answer reports the share of rollout decisions taken by
  the first table, by a coarser one, and by `agenda_expert`, the fallback (so never a
  miss);
- LBR (solver/evaluation/lbr.py): the policy's seats (in the real deals and in LBR's
  rollouts) and LBR's continuation policy in its rollouts have one-policy chains; a
  table's absent key is a miss, played uniformly, as in a tournament (LBR's result does
  not report these counts; with a heuristic policy there are none).

Deals. A deal is a seeded permutation of the deck (`shuffled`). Its first card is the
face-down set-aside card and the rest are drawn in order: every chance node of the engine
(face-up cards, the deal, draws) takes the next card, and a look at the set-aside card
(R2-D2) takes card 0 (`dealt_card`). The engine's pool is exactly the cards not yet
taken, so this is the engine's own chance distribution (the cards are exchangeable),
made repeatable: the same cards in the same order for every seating.

Random playouts (`random_playout`, `run_playouts`): uniform decisions and true chance,
for the engine's benchmarks and tests.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from spiel_game import engine
from spiel_game import layout as L

from solver.policies.chain import chain_probs
from solver.sim.rng import STREAM_RANDOM_PLAYOUT, next_below, stream_seed
from solver.sim.sampler import chance_card, sample

_JIT = dict(cache=True, nogil=True)


# Deals ------------------------------------------------------------------------------------

def deck_cards(initial: np.ndarray) -> np.ndarray:
    """The deck of a game as a sorted list of character ids (one entry per copy)."""
    counts = initial[L.S_DECK_COUNTS:L.S_DECK_COUNTS + L.MAX_CHARS]
    return np.repeat(np.arange(L.MAX_CHARS, dtype=np.int32), counts)


def padded_chains(chains, width: int | None = None) -> np.ndarray:
    """Policy chains as the rows of one int32 array (what `play_out`'s seat_chain rows
    are): each padded to `width` (default the longest) by repeating its last policy,
    which changes nothing (the earlier copy already decided or missed)."""
    width = max(len(c) for c in chains) if width is None else width
    if any(len(c) > width for c in chains):
        raise ValueError(f"a policy chain longer than {width} policies")
    return np.array([list(c) + [c[-1]] * (width - len(c)) for c in chains], dtype=np.int32)


@njit(**_JIT)
def shuffled(cards, seed, purpose, index, out):
    """out = a uniformly random permutation of cards (Fisher-Yates) for the stream key."""
    rng = np.empty(1, dtype=np.uint64)
    rng[0] = stream_seed(seed, purpose, index)
    out[:] = cards
    for i in range(len(out) - 1, 0, -1):
        j = next_below(rng, i + 1)
        out[i], out[j] = out[j], out[i]


@njit(**_JIT)
def dealt_card(s, order):
    """The card the pending chance node takes from the deal `order` (module docstring)."""
    if s[L.S_CHANCE_KIND] == L.CH_SET_ASIDE_LOOK:
        c = order[0]
    else:
        c = order[len(order) - s[L.S_UNKNOWN_DECK]]
    if s[L.S_POOL + c] <= 0:
        raise RuntimeError("deal order and engine pool disagree")
    return c


# Playing ------------------------------------------------------------------------------------

@njit(**_JIT)
def reset(s, initial):
    """s = a copy of `initial` (only the used part of the log)."""
    used = engine.used_size(initial)
    s[:used] = initial[:used]


def padded_paths(paths) -> np.ndarray:
    """Action paths as the rows of one int32 array, each padded with -1 (`replay_path`)."""
    rows = np.full((len(paths), max(len(p) for p in paths)), -1, dtype=np.int32)
    for i, path in enumerate(paths):
        rows[i, :len(path)] = path
    return rows


@njit(**_JIT)
def same_chain(chain, num_players):
    """`play_out`'s seat_chain when every seat plays `chain`."""
    seat_chain = np.empty((num_players, len(chain)), dtype=np.int32)
    for p in range(num_players):
        seat_chain[p, :] = chain
    return seat_chain


@njit(**_JIT)
def replay_path(s, world, path):
    """s = a copy of `world`, then the actions of `path` (padded with -1) applied."""
    reset(s, world)
    for k in range(len(path)):
        if path[k] < 0:
            break
        engine.apply_action(s, path[k])


@njit(**_JIT)
def play_out(s, order, seat_chain, bank, rng, legal, probs, counts, seat_row, stop_seat):
    """Play s on to the end of the round, or to a decision of `stop_seat` (-1: none):
    chance from the deal `order` (or from `rng` with order empty), seat p's decisions
    by its chain seat_chain[p] (module docstring), counted in counts[seat_row[p]]."""
    while not engine.is_terminal(s):
        if engine.is_chance(s):
            if len(order) > 0:
                engine.apply_action(s, dealt_card(s, order))
            else:
                engine.apply_action(s, chance_card(s, rng))
            continue
        p = engine.current_actor(s)
        if p == stop_seat:
            return
        n = engine.legal_actions(s, legal)
        # the chain position that decided, or the chain's length for a miss (uniform)
        counts[seat_row[p], chain_probs(s, p, bank, seat_chain[p], legal, n, probs)] += 1
        engine.apply_action(s, legal[sample(probs, n, rng)])


# Random playouts -------------------------------------------------------------------------

@njit(**_JIT)
def random_playout(s, rng):
    """Play s to the end with uniform decisions and true chance from the stream rng."""
    buf = np.empty(L.NUM_ACTIONS, dtype=np.int32)
    while s[L.S_PHASE] != L.PH_TERMINAL:
        if s[L.S_PHASE] == L.PH_CHANCE:
            engine.apply_action(s, chance_card(s, rng))
        else:
            n = engine.legal_actions(s, buf)
            engine.apply_action(s, buf[next_below(rng, n)])


@njit(**_JIT)
def run_playouts(initial, num_rounds, seed):
    """`num_rounds` random rounds from `initial` (uniform decisions, true chance), the
    stream of (seed, STREAM_RANDOM_PLAYOUT, 0); returns (decisions, chance events, token
    sums per seat)."""
    s = initial.copy()
    buf = np.empty(L.NUM_ACTIONS, dtype=np.int32)
    rng = np.empty(1, dtype=np.uint64)
    rng[0] = stream_seed(seed, STREAM_RANDOM_PLAYOUT, 0)
    decisions = 0
    chance_events = 0
    token_sum = np.zeros(L.MAX_PLAYERS, dtype=np.int64)
    for _ in range(num_rounds):
        s[:L.S_EVENTS] = initial[:L.S_EVENTS]  # the log past S_EVENT_N is never read
        while s[L.S_PHASE] != L.PH_TERMINAL:
            if s[L.S_PHASE] == L.PH_CHANCE:
                chance_events += 1
                engine.apply_action(s, chance_card(s, rng))
            else:
                decisions += 1
                n = engine.legal_actions(s, buf)
                engine.apply_action(s, buf[next_below(rng, n)])
        for p in range(s[L.S_NUM_PLAYERS]):
            token_sum[p] += s[L.S_TOKENS + p]
    return decisions, chance_events, token_sum
