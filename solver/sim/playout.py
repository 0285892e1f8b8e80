"""The one play-out loop, with deals, shared by tournaments, hint rollouts and LBR, for
every engine.

`play_out(engine, hooks, s, order, deal_state, seat_chain, bank, rng, legal, probs, counts,
seat_row, stop_seat)` plays engine state s on, compiled, over any engine's interface
(`engine`, spiel_game/interface.py) with its game's play-out hooks (`hooks`,
solver/sim/hooks.py; solver/sim/games.py pairs them, `playout_game`): numba compiles and
caches it once per pair, as the MCCFR kernel.

- chance: the game's `hooks.deal_card`: the next card of a deal `order` (below; the
  deal's own streams and counters in `deal_state`), or, with `order` empty,
  `hooks.chance_action`: an outcome drawn from the stream `rng` with the engine's odds;
- a decision of seat p: the first policy of p's chain, seat_chain[p] (indices of the
  game's `bank` of policy arrays; `chain_decides`), that has p's key decides
  (`hooks.policy_probs`), and its action is drawn from `rng` (solver/sim/sampler.py
  `sample`). A heuristic has every key, so a chain that ends in one never misses: that
  heuristic is the chain's fallback. When no policy of the chain has the key (a chain of
  tables only), p plays uniformly at random over the legal actions: a *miss*;
- counts[seat_row[p], k] += 1 when seat_chain[p, k] decided, counts[seat_row[p], K] += 1
  for a miss (K the chain length), so a row sums to the row's decisions;
- it stops at the end of the round, or before a decision of `stop_seat` (-1: none), for
  a caller that decides that seat itself (LBR).

What each caller counts as a miss:

- tournaments (solver/evaluation/tournament.py): every seat's chain is its one policy; a
  table policy's key absent from its table is a miss, played uniformly, and reported as
  the table's miss rate (misses / the table's decisions); heuristics never miss. A
  han_solo player is a table with its heuristic behind it (solver/han_solo/players.py):
  the heuristic's decisions are the table's misses;
- hint rollouts (solver/hint/advice.py): every seat's chain is the game's tables, finest
  first, then `agenda_expert`; the answer reports the share of rollout decisions taken by
  the first table, by a coarser one, and by `agenda_expert`, the fallback (so never a
  miss); han_solo's (`path_values`, solver/han_solo/hint.py): its player's chain;
- LBR (solver/evaluation/lbr.py, every engine): the policy's seats (in the
  real deals and in LBR's rollouts) and LBR's continuation policy in its rollouts have
  one-policy chains; a table's absent key is a miss, played uniformly, as in a
  tournament (LBR's result does not report these counts; with a heuristic policy there
  are none).

Deals (the Love Letter engine's; solver/sim/deal.py). A deal is a seeded permutation of
the deck (`shuffled`). Its first card is the face-down set-aside card and the rest are
drawn in order: every chance node of the engine (face-up cards, the deal, draws) takes the
next card, and a look at the set-aside card (R2-D2) takes card 0 (`dealt_card`). The
engine's pool is exactly the cards not yet taken, so this is the engine's own chance
distribution (the cards are exchangeable), made repeatable: the same cards in the same
order for every seating. Han Solo's deals (solver/han_solo/playout.py) add their own
streams for the pot, the dice and the ties.

Random playouts (`random_playout`, `run_playouts`): uniform decisions and true chance,
for the Love Letter engine's benchmarks and tests.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from spiel_game import engine
from spiel_game import layout as L

# The loop is compiled for the function sets it is given: each game's hooks module, a
# layer above, names it in COMPILED_INTO, so spiel_game/jit_cache.py clears its caches (and
# those of the kernels importing it) when an engine or hooks module changes.
from solver.sim.deal import dealt_card, deck_cards, shuffled  # noqa: F401  (re-exported)
from solver.sim.rng import STREAM_RANDOM_PLAYOUT, next_below, stream_seed
from solver.sim.sampler import chance_card, sample

_JIT = dict(cache=True, nogil=True)


# Deals ------------------------------------------------------------------------------------

def padded_chains(chains, width: int | None = None) -> np.ndarray:
    """Policy chains as the rows of one int32 array (what `play_out`'s seat_chain rows
    are): each padded to `width` (default the longest) by repeating its last policy,
    which changes nothing (the earlier copy already decided or missed)."""
    width = max(len(c) for c in chains) if width is None else width
    if any(len(c) > width for c in chains):
        raise ValueError(f"a policy chain longer than {width} policies")
    return np.array([list(c) + [c[-1]] * (width - len(c)) for c in chains], dtype=np.int32)


# Playing ------------------------------------------------------------------------------------

@njit(**_JIT)
def reset(engine, s, initial):
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
def replay_path(engine, s, world, path):
    """s = a copy of `world`, then the actions of `path` (padded with -1) applied."""
    reset(engine, s, world)
    for k in range(len(path)):
        if path[k] < 0:
            break
        engine.apply_action(s, path[k])


@njit(**_JIT)
def chain_decides(hooks, s, player, bank, chain, legal, n, out):
    """Fill out[:n] with the probabilities of legal[:n] at s, for `player`, from the
    first policy of `chain` (indices into `bank`) that has the key
    (`hooks.policy_probs`);
    returns its position in chain, or len(chain) on a miss (out then uniform)."""
    for k in range(len(chain)):
        if hooks.policy_probs(s, player, chain[k], bank, legal, n, out) != hooks.missed():
            return k
    for i in range(n):
        out[i] = 1.0 / n
    return len(chain)


@njit(**_JIT)
def play_out(engine, hooks, s, order, deal_state, seat_chain, bank, rng, legal, probs,
             counts, seat_row, stop_seat):
    """Play s on to the end of the round, or to a decision of `stop_seat` (-1: none):
    chance from the deal (order, deal_state) (or from `rng` with order empty), seat p's
    decisions by its chain seat_chain[p] (module docstring), counted in
    counts[seat_row[p]]."""
    while not engine.is_terminal(s):
        if engine.is_chance(s):
            if len(order) > 0:
                engine.apply_action(s, hooks.deal_card(s, order, deal_state, legal, probs))
            else:
                engine.apply_action(s, hooks.chance_action(s, rng, legal, probs))
            continue
        p = engine.current_player(s)
        if p == stop_seat:
            return
        n = engine.legal_actions(s, legal)
        # the chain position that decided, or the chain's length for a miss (uniform)
        counts[seat_row[p], chain_decides(hooks, s, p, bank, seat_chain[p], legal, n,
                                          probs)] += 1
        engine.apply_action(s, legal[sample(probs, n, rng)])


@njit(**_JIT)
def path_values(engine, hooks, worlds, picks, paths, me, seed, purpose, first, bank, chain,
                counts):
    """values[a, r]: my return after the action path paths[a] (padded with -1) in world
    picks[r], then every seat playing `chain` to the end, chance drawn at random; rollout
    r uses the stream (seed, purpose, first + r) for every path (common random numbers).
    counts[0]: the chain's decisions by position (`play_out`)."""
    num_players = engine.num_players(worlds[0])
    values = np.zeros((len(paths), len(picks)))
    out = np.zeros(num_players)
    legal = np.empty(hooks.max_actions(), dtype=np.int32)
    probs = np.empty(hooks.max_actions())
    rng = np.zeros(1, dtype=np.uint64)
    s = np.empty_like(worlds[0])
    no_order = np.empty(0, dtype=np.int32)
    no_state = np.empty(0, dtype=np.uint64)
    seat_chain = same_chain(chain, num_players)
    seat_row = np.zeros(num_players, dtype=np.int32)
    for r in range(len(picks)):
        for a in range(len(paths)):
            replay_path(engine, s, worlds[picks[r]], paths[a])
            rng[0] = stream_seed(seed, purpose, first + r)
            play_out(engine, hooks, s, no_order, no_state, seat_chain, bank, rng, legal,
                     probs, counts, seat_row, -1)
            engine.returns(s, out)
            values[a, r] = out[me]
    return values


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
