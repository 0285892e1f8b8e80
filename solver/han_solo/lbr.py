"""Local best response (LBR) against a han_solo policy: a lower bound on its exploitability
on the full deck.

The method and its report are solver/evaluation/lbr.py's (Lisy and Bowling 2017), for
Jabba's Palace; this is the same on han_solo's engine. The LBR player knows the policy it
plays against. At each of its decisions it

1. forms its belief over the other players' hidden cards (their deals, draws and
   redeals) from its own log, by Bayes' rule with the policy's own probabilities
   (solver/han_solo/belief.py `replay`: exact while at most `particles` worlds remain,
   resampled past that; from the last dice match or the hands shown on, `viewer_log`);
   should the policy give every kept world's history probability 0, the chance odds
   alone, and should no world be left, the policy's own likeliest action (both counted
   in the stats);
2. values each legal action by `rollouts` playouts from worlds drawn from the belief
   (systematic resampling, the same worlds and random streams for every action), every
   seat then following the policy (the continuation, as in solver/evaluation/lbr.py), and
   takes the best.

Its random numbers (the belief's resampling, the rollouts) are seeded by the seed and the
information state only, so LBR is one fixed strategy: `exact_lbr_value` computes its value
on a reduced deck's whole tree, which the sampled run must agree with.

LBR is a strategy that sees only its own information, so its mean margin against the
policy is at most a best response's: with 2 players the mean over its two seats is a
lower bound on the policy's exploitability (NashConv / 2), up to sampling noise (the 95%
interval of `LBRResult.lower_bound`). The round itself is dealt from a seeded stream per
deal, the same for both seats (duplicate deals).
"""

from __future__ import annotations

import time
from collections.abc import Callable

import numpy as np
from numba import njit

import spiel_game  # noqa: F401  (registers han_solo)
from spiel_game.han_solo import engine
from spiel_game.han_solo.layout import E_DICE, E_SHOW, NUM_ACTIONS, S_CUR

from solver.evaluation.lbr import (DEFAULT_ROLLOUTS, ExactComparison, LBRResult,
                                   mean_and_best, start_values, systematic_pick)
from solver.han_solo.abstraction import state_key
from solver.han_solo.belief import LogError, replay
from solver.han_solo.features import HEURISTIC_NAMES
from solver.han_solo.heuristics import HanSoloHeuristic
from solver.han_solo.playout import HAN_SOLO_PLAYOUT, TABLE, table_bank
from solver.sim.playout import play_out
from solver.sim.rng import stream_seed

_JIT = dict(cache=True, nogil=True)
STREAM_HS_LBR_ROLLOUT, STREAM_HS_LBR_DEAL, STREAM_HS_LBR_DECISIONS = range(37, 40)
DEFAULT_PARTICLES = 2048


@njit(**_JIT)
def rollout_values(worlds, weights, legal, n, viewer, policy, bank, rollouts, key, values):
    """values[:n]: the mean margin of `viewer` after each legal action, over `rollouts`
    playouts from worlds drawn from (worlds, weights) by systematic resampling, every seat
    then playing `policy` (playout.py's ids; a table miss plays uniformly: the shared
    play-out loop, solver/sim/playout.py). Every action sees the same worlds and random
    streams. Returns the best action's index."""
    count = len(weights)
    num_players = worlds[0][0]
    state = np.empty(worlds.shape[1], dtype=worlds.dtype)
    acts = np.empty(NUM_ACTIONS, dtype=np.int32)
    pr = np.empty(NUM_ACTIONS)
    ret = np.empty(num_players)
    no_order = np.empty(0, dtype=np.int32)
    no_state = np.empty(0, dtype=np.uint64)
    seat_chain = np.full((num_players, 1), policy, dtype=np.int32)
    seat_row = np.zeros(num_players, dtype=np.int32)
    counts = np.zeros((1, 2), dtype=np.int64)
    rng, offset = start_values(key, STREAM_HS_LBR_ROLLOUT, values, n)
    k = 0
    cumulative = weights[0]
    for r in range(rollouts):
        k, cumulative = systematic_pick(r, rollouts, offset, weights, count, k, cumulative)
        for i in range(n):
            state[:] = worlds[k]
            engine.apply_action(state, legal[i])
            rng[0] = stream_seed(key, STREAM_HS_LBR_ROLLOUT, r + 1)
            play_out(engine.ENGINE, HAN_SOLO_PLAYOUT, state, no_order, no_state, seat_chain,
                     bank, rng, acts, pr, counts, seat_row, -1)
            engine.returns(state, ret)
            values[i] += ret[viewer]
    return mean_and_best(values, n, rollouts)


def viewer_log(state, viewer: int) -> list[tuple[int, int, int]]:
    """The log LBR's belief replays: viewer's own (another's private cards hidden), but
    up to the last dice match, or the hands shown at the round's end, with the cards
    filled in. A match puts every hand face up (H3), and the end shows every hand (H6), so
    each card another player drew or was dealt before it is then seen, in the discard pile
    or among the revealed, and every filling consistent with what viewer saw leaves the
    same worlds after it (the same hands, pile and discard pile), with the same likelihood
    ratios for what follows: the true one is used. Without this, a belief resampled
    before may keep no world that the revealed hands agree with."""
    events = state.events(viewer)
    full = state.events()
    match = max((i for i, (kind, _, value) in enumerate(full)
                 if (kind == E_DICE and value == 1) or kind == E_SHOW), default=-1)
    return [*full[:match + 1], *events[match + 1:]]


def _policy_object(game, policy: int, table):
    return table if policy == TABLE else HanSoloHeuristic(game, HEURISTIC_NAMES[policy])


def lbr_choice(game, state, viewer: int, policy: int, table=None, seed: int = 1,
               rollouts: int = DEFAULT_ROLLOUTS, particles: int = DEFAULT_PARTICLES,
               stats: dict | None = None) -> tuple[int, np.ndarray]:
    """LBR's action at `viewer`'s decision in `state` (a HanSoloState), its belief built
    from viewer's log only: (action id, value estimate per legal action). `policy`: a
    HEURISTIC_NAMES index or TABLE with `table` loaded (table_policy.load_table)."""
    stats = {} if stats is None else stats
    opponent = _policy_object(game, policy, table)
    events = viewer_log(state, viewer)
    legal = np.array(state.legal_actions(), dtype=np.int32)
    values = np.empty(len(legal))
    stats["decisions"] = stats.get("decisions", 0) + 1
    post = None
    for weigh in (opponent, None):
        try:
            post = replay(game, events, viewer, weigh, particles, seed)
            break
        except LogError:
            # Every world the belief kept gives the policy's choices probability 0
            # (resampled away): the chance odds alone (counted).
            stats["policy_ignored"] = stats.get("policy_ignored", 0) + (weigh is not None)
    if post is None:  # belief lost: the policy's likeliest action (counted)
        stats["lost"] = stats.get("lost", 0) + 1
        probs = opponent.action_probabilities(state)
        values[:] = [probs.get(int(a), 0.0) for a in legal]
        return int(legal[int(np.argmax(values))]), values
    stats["most_worlds"] = max(stats.get("most_worlds", 0), len(post.worlds))
    stats["resampled"] = stats.get("resampled", 0) + (not post.exact)
    key = state_key(state, "exact") ^ seed  # the information state's hash (redacted log)
    best = rollout_values(np.array(post.worlds), post.weights, legal, len(legal), viewer,
                          policy, table_bank(table), rollouts, key, values)
    return int(legal[best]), values


def run_lbr(game, policy: int, deals: int, table=None, seed: int = 1,
            rollouts: int = DEFAULT_ROLLOUTS, particles: int = DEFAULT_PARTICLES,
            on_progress: Callable[[int, int], None] | None = None) -> LBRResult:
    """LBR against `policy` in the other seat, `deals` deals with LBR in each seat in turn
    (the same chance stream per deal): LBRResult (payoffs[deal, seat]: LBR's margin)."""
    if game.num_players() != 2:
        raise ValueError("han_solo LBR is for 2 players")
    if deals <= 0 or rollouts <= 0 or particles <= 0:
        raise ValueError("deals, rollouts and particles must be positive")
    opponent = _policy_object(game, policy, table)
    payoffs = np.zeros((deals, 2))
    stats: dict = {}
    start = time.perf_counter()
    for d in range(deals):
        for viewer in range(2):
            chance = np.random.default_rng([seed, STREAM_HS_LBR_DEAL, d])
            decisions = np.random.default_rng([seed, STREAM_HS_LBR_DECISIONS, d, viewer])
            state = game.new_initial_state()
            while not state.is_terminal():
                if state.is_chance_node():
                    outcomes, odds = zip(*state.chance_outcomes())
                    state.apply_action(int(outcomes[chance.choice(len(odds), p=odds)]))
                elif int(state._s[S_CUR]) == viewer:
                    action, _ = lbr_choice(game, state, viewer, policy, table, seed,
                                           rollouts, particles, stats)
                    state.apply_action(action)
                else:
                    probs = opponent.action_probabilities(state)
                    actions = list(probs)
                    p = np.array([probs[a] for a in actions])
                    state.apply_action(int(actions[decisions.choice(len(p), p=p / p.sum())]))
            payoffs[d, viewer] = state.returns()[viewer]
        if on_progress:
            on_progress(d + 1, deals)
    name = "table" if policy == TABLE else HEURISTIC_NAMES[policy]
    return LBRResult(name, 2, payoffs, {"particles": particles, **stats}, rollouts, name,
                     time.perf_counter() - start)


def exact_lbr_value(tree, policy: int, table=None, seed: int = 1,
                    rollouts: int = DEFAULT_ROLLOUTS,
                    particles: int = DEFAULT_PARTICLES) -> ExactComparison:
    """LBR's exact expected margin against `policy` in each seat on a reduced deck's whole
    tree (its choice at each of its information states, the policy elsewhere), beside the
    exact best response's (solver/evaluation/lbr.py's ExactComparison)."""
    from solver.exact.best_response import best_response, profile_values
    from solver.exact.cfr import TreeArrays
    from solver.exact.tree import infoset_states
    from solver.exact.tree_policy import strategy_from_policy

    start = time.perf_counter()
    arrays = TreeArrays(tree)
    strategy = strategy_from_policy(tree, _policy_object(tree.game, policy, table))
    offsets = tree.action_offsets()
    on_policy = profile_values(tree, strategy, arrays)
    states = list(infoset_states(tree))
    lbr_values, br_values = [], []
    for seat in range(tree.num_players):
        mixed = strategy.copy()
        for index, state in states:
            if int(tree.infoset_player[index]) != seat:
                continue
            action, _ = lbr_choice(tree.game, state, seat, policy, table, seed, rollouts,
                                   particles)
            actions = tree.infoset_actions[index].tolist()
            mixed[offsets[index]:offsets[index + 1]] = 0.0
            mixed[offsets[index] + actions.index(action)] = 1.0
        lbr_values.append(float(profile_values(tree, mixed, arrays)[seat]))
        br_values.append(best_response(tree, strategy, seat, arrays)[0])
    name = "table" if policy == TABLE else HEURISTIC_NAMES[policy]
    return ExactComparison(name, tuple(lbr_values), tuple(br_values),
                           tuple(float(v) for v in on_policy), time.perf_counter() - start)
