"""Local best response (LBR): a lower bound on a policy's exploitability on the full game.

Lisý and Bowling (2017), "Equilibrium Approximation Quality of Current No-Limit Poker
Bots" (AAAI workshop; arXiv:1612.07547): the LBR player knows the policy it plays
against. At each of its decisions it

1. forms its belief over the hidden state from what it has seen, by Bayes' rule with the
   policy's own action probabilities: every full history consistent with its
   information state, weighted by the chance odds and by the probability the policy
   gives to each of its players' actions on that history (`advance_belief`);
2. picks the action with the best estimated value: for each legal action, rollouts from
   states drawn from the belief, everybody then following a continuation policy (by
   default the policy itself, so that LBR improves on the policy one decision at a time;
   the paper's poker LBR assumes a fixed continuation the same way) (`lbr_action`).

LBR is a fixed strategy that sees only its own information state, so its expected payoff
against the policy is at most the best response's: its mean margin per round (over
seats; summed over seats for NashConv with 3+ players) is a lower bound on the policy's
exploitability, up to sampling noise, which the 95% interval states. `exact_lbr_value`
measures it without noise on a reduced deck's whole tree, where the exact exploitability
is known (solver/exact/best_response.py), and so shows how tight the bound is.

One LBR for every engine: the game's adapter (solver/games/) gives its play-out game
(engine interface and play-out hooks: the deals, the policies' choices, the rollouts'
loop, solver/sim/) and its filter hooks (solver/belief/kernel.py), and the compiled
driver below takes both as arguments, compiled once per engine. `bank` is the game's
policies for compiled code (a PolicyBank; Han Solo's HanSoloBank).

Belief details. The belief is the compiled particle filter (solver/belief/kernel.py) on
the complete observation (`hooks.observe`: for the Love Letter engine the redacted log;
for Han Solo the seat's log with every card seen at a dice match or the round's end
filled in, solver/han_solo/filter.py): particles (full engine states) advance in lockstep
to the observed decision and are kept when their log agrees with the observed one;
particles that agree on the state and on what every other player knows (the Love Letter
engine: `track`; Han Solo: the state alone, its policies read the present) are merged,
which is exact for policies that read only that (the heuristics, the `fine` and
`coarse` keys) and for an `identity` policy lets the likelier history stand for the
merged ones, which only loosens the bound. Above `max_particles` the set is resampled
(counted); should the policy give every consistent history probability 0, the step
ignores its probabilities, and should none be left, LBR plays the continuation policy
(counted as lost). Tests compare the belief with the exact posterior on reduced decks
(tests/test_lbr.py, tests/test_belief.py) and LBR's sampled value with its exact one
(tests/test_han_solo_solved.py).
"""

from __future__ import annotations

import dataclasses
import math
import time
from collections.abc import Callable

import numpy as np
from numba import njit

from solver import games
from solver.belief import kernel
from solver.belief.kernel import (ANY_PHASE, B_DECISIONS, B_LOST, B_MOST_PARTICLES,
                                  B_POLICY_IGNORED, B_STEPS, B_TRUNCATED, NUM_BELIEF_STATS)
from solver.evaluation.tournament import Estimate, estimate
from solver.policies.compiled import PolicyBank
from solver.sim.playout import play_out, reset
from solver.sim.rng import STREAM_LBR_ROLLOUT, next_float, stream_seed

_JIT = dict(cache=True, nogil=True)

DEFAULT_ROLLOUTS = 64
DEFAULT_MAX_PARTICLES = 4096
OMIT_NONE = 0  # the filter's pattern mode of a complete log (both engines' hooks)


# Belief: the compiled particle filter of solver/belief, on the complete redacted log ------

@njit(**_JIT)
def advance_belief(engine, beliefs, buffers, weights, current, count, observed, n_obs,
                   viewer, bank, policy, max_particles, stats):
    """Advance the particles in buffers[current] (weights[current]) to the observed
    decision, over the engine's filter hooks `beliefs`; returns (buffer index, count).
    Start a round with the initial state as the one particle of weight 1. count 0 on
    return: the belief is lost."""
    progress = np.empty((2, buffers.shape[1], 2), dtype=np.int32)
    kernel.aligned_progress(beliefs, buffers, progress, current, count)
    chain = np.full(1, policy, dtype=np.int64)
    row_start = np.zeros(n_obs + 1, dtype=np.int64)
    row_end = np.full(n_obs + 1, n_obs, dtype=np.int64)
    return kernel.advance_patterns(engine, beliefs, buffers, weights, progress, current,
                                   count, observed, row_start, row_end, viewer, OMIT_NONE,
                                   ANY_PHASE, bank, chain, 0.0, False, False, max_particles,
                                   stats, np.zeros(1), beliefs.no_final(), -1, 0)


# Choosing ----------------------------------------------------------------------------------

@njit(inline="always", **_JIT)
def start_values(key, stream, values, n):
    """values[:n] = 0 and the rollouts' first random stream (key, stream, 0); returns
    (rng, systematic resampling's offset)."""
    for i in range(n):
        values[i] = 0.0
    rng = np.empty(1, dtype=np.uint64)
    rng[0] = stream_seed(key, stream, 0)
    return rng, next_float(rng)


@njit(inline="always", **_JIT)
def mean_and_best(values, n, rollouts):
    """values[:n] summed over `rollouts` -> their means; the best action's index."""
    best = 0
    for i in range(n):
        values[i] /= rollouts
        if values[i] > values[best]:
            best = i
    return best


@njit(inline="always", **_JIT)
def systematic_pick(r, rollouts, offset, weights, count, k, cumulative):
    """Systematic resampling, rollout by rollout: the particle of rollout r (of
    `rollouts`, a uniform `offset` in [0, 1) for all) given the previous rollout's
    (k, cumulative weight up to k); returns them for rollout r."""
    u = (r + offset) / rollouts
    while u > cumulative and k < count - 1:
        k += 1
        cumulative += weights[k]
    return k, cumulative


@njit(**_JIT)
def lbr_action(engine, hooks, particles, particle_weights, count, viewer, bank, policy,
               continuation, rollouts, key, legal, n, values):
    """The legal action (index into legal[:n]) with the highest mean rollout value from
    the belief; values[:n] gets the estimates. Rollouts start from particles drawn by
    systematic resampling; every action sees the same particles and random streams
    (the play-out loop over the engine and its play-out hooks)."""
    num_players = engine.num_players(particles[0])
    seat_chain = np.full((num_players, 1), policy, dtype=np.int32)
    seat_chain[viewer, 0] = continuation
    seat_row = np.arange(num_players).astype(np.int32)
    counts = np.zeros((num_players, 2), dtype=np.int64)  # per seat: decided, missed
    no_order = np.empty(0, dtype=np.int32)
    no_state = np.empty(0, dtype=np.uint64)
    state = np.empty(particles.shape[1], dtype=particles.dtype)
    roll_legal = np.empty(hooks.max_actions(), dtype=np.int32)
    roll_probs = np.empty(hooks.max_actions())
    returns = np.empty(num_players)
    rng, offset = start_values(key, STREAM_LBR_ROLLOUT, values, n)
    k = 0
    cumulative = particle_weights[0]
    for r in range(rollouts):
        k, cumulative = systematic_pick(r, rollouts, offset, particle_weights, count, k,
                                        cumulative)
        source = particles[k]
        used = engine.used_size(source)
        for i in range(n):
            state[:used] = source[:used]
            engine.apply_action(state, legal[i])
            rng[0] = stream_seed(key, STREAM_LBR_ROLLOUT, r + 1)
            play_out(engine, hooks, state, no_order, no_state, seat_chain, bank, rng,
                     roll_legal, roll_probs, counts, seat_row, -1)
            engine.returns(state, returns)
            values[i] += returns[viewer]
    return mean_and_best(values, n, rollouts)


@njit(**_JIT)
def decide(engine, hooks, beliefs, s, observed, n_obs, viewer, buffers, weights, current,
           count, bank, policy, continuation, rollouts, max_particles, seed, legal, n,
           values, stats):
    """LBR's choice at its decision in state s, whose observation by viewer
    (`beliefs.observe`) is observed[:n_obs]: advance the belief, then roll out. Returns
    (action index, buffer index, particle count). Only the belief and the rollouts
    choose; s itself is read only by the continuation policy if the belief is lost, and
    a policy reads only what its player has seen."""
    current, count = advance_belief(engine, beliefs, buffers, weights, current, count,
                                    observed, n_obs, viewer, bank, policy, max_particles,
                                    stats)
    stats[B_DECISIONS] += 1
    key = beliefs.observed_key(observed, n_obs, viewer) ^ np.uint64(seed)
    if count == 0:  # belief lost: play the continuation policy's likeliest action
        probs = np.empty(n)
        hooks.policy_probs(s, viewer, continuation, bank, legal, n, probs)
        return int(np.argmax(probs)), current, count
    best = lbr_action(engine, hooks, buffers[current], weights[current], count, viewer, bank,
                      policy, continuation, rollouts, key, legal, n, values)
    return best, current, count


# Playing LBR against the policy ---------------------------------------------------------

@njit(**_JIT)
def _run_lbr(engine, hooks, beliefs, initial, bank, policy, continuation, cards, seed,
             first_deal, num_deals, rollouts, max_particles, payoffs, stats):
    """payoffs[d, r]: LBR's margin in deal first_deal + d with LBR in seat r and the
    policy in every other seat (the same deal for every seat: duplicate deals, the
    play-out hooks' `start_deal` and `decision_stream`)."""
    n = engine.num_players(initial)
    s = np.empty_like(initial)
    order = np.empty_like(cards)
    deal_state = np.zeros(hooks.deal_size(), dtype=np.uint64)
    legal = np.empty(hooks.max_actions(), dtype=np.int32)
    probs = np.empty(hooks.max_actions())
    values = np.empty(hooks.max_actions())
    rng = np.empty(1, dtype=np.uint64)
    returns = np.empty(n)
    seat_chain = np.full((n, 1), policy, dtype=np.int32)  # LBR's seat is never played
    seat_row = np.arange(n).astype(np.int32)
    counts = np.zeros((n, 2), dtype=np.int64)  # per seat: decided, missed
    rows, fields = beliefs.pattern_shape()
    observed = np.empty((rows, fields), dtype=np.int32)
    # At least two rows: a full buffer makes room by resampling to half of it
    # (solver/belief/kernel.py `_insert`), which one row cannot.
    rows = max(2, max_particles)
    buffers = np.empty((2, rows, len(initial)), dtype=initial.dtype)
    weights = np.empty((2, rows))
    for d in range(num_deals):
        deal = first_deal + d
        for viewer in range(n):
            hooks.start_deal(cards, seed, deal, order, deal_state)
            rng[0] = hooks.decision_stream(seed, deal, viewer, seat_chain)
            reset(engine, s, initial)
            current, count = 0, 1
            reset(engine, buffers[0, 0], initial)
            weights[0, 0] = 1.0
            while True:
                # The policy's seats and chance, up to LBR's next decision.
                play_out(engine, hooks, s, order, deal_state, seat_chain, bank, rng, legal,
                         probs, counts, seat_row, viewer)
                if engine.is_terminal(s):
                    break
                k = engine.legal_actions(s, legal)
                n_obs = beliefs.observe(s, viewer, observed)
                best, current, count = decide(
                    engine, hooks, beliefs, s, observed, n_obs, viewer, buffers, weights,
                    current, count, bank, policy, continuation, rollouts, max_particles,
                    seed, legal, k, values, stats)
                engine.apply_action(s, legal[best])
            engine.returns(s, returns)
            payoffs[d, viewer] = returns[viewer]


@dataclasses.dataclass
class LBRResult:
    """LBR against one policy: margins per deal and seat, and how the belief fared."""

    policy: str
    players: int
    payoffs: np.ndarray  # (deals, seats): LBR's margin per round
    belief_stats: dict
    rollouts: int
    continuation: str
    seconds: float
    interrupted: bool = False

    @property
    def deals(self) -> int:
        return len(self.payoffs)

    def per_seat(self) -> list[Estimate]:
        return [estimate(self.payoffs[:, p]) for p in range(self.players)]

    def lower_bound(self) -> Estimate:
        """Exploitability (2 players: mean over seats) or NashConv (3+: sum over seats)
        lower bound, tokens per round; one unit per deal."""
        return estimate(self.payoffs.sum(axis=1) if self.players > 2
                        else self.payoffs.mean(axis=1))

    @property
    def metric(self) -> str:
        return "exploitability" if self.players == 2 else "nash_conv"


def belief_counts(stats: np.ndarray) -> dict:
    return {"decisions": int(stats[B_DECISIONS]), "steps": int(stats[B_STEPS]),
            "most_particles": int(stats[B_MOST_PARTICLES]),
            "policy_ignored_steps": int(stats[B_POLICY_IGNORED]),
            "lost": int(stats[B_LOST]), "truncated": int(stats[B_TRUNCATED])}


def lbr_game(game):
    """(PlayoutGame, filter hooks) of a loaded game: what LBR plays it with (its
    adapter's, solver/games/)."""
    adapter = games.of(game)
    return adapter.playout(), adapter.belief_filter()


def run_lbr(game, bank, policy: int, deals: int, seed: int = 1,
            rollouts: int = DEFAULT_ROLLOUTS, continuation: int | None = None,
            max_particles: int = DEFAULT_MAX_PARTICLES,
            on_progress: Callable[[int, int], None] | None = None,
            chunk_seconds: float = 1.0) -> LBRResult:
    """LBR against bank policy `policy` (in every other seat), `deals` duplicate deals
    with LBR in each seat in turn. bank: the game's policies for compiled code, with
    `arrays()` and `names` (a PolicyBank; Han Solo's HanSoloBank). Ctrl-C stops after
    the current chunk."""
    if deals <= 0 or rollouts <= 0 or max_particles <= 0:
        raise ValueError(f"deals ({deals}), rollouts ({rollouts}) and max_particles "
                         f"({max_particles}) must be positive")
    continuation = policy if continuation is None else continuation
    played, beliefs = lbr_game(game)
    n = game.num_players()
    initial = played.root(game)
    cards = played.deck(initial)
    payoffs = np.zeros((deals, n))
    stats = np.zeros(NUM_BELIEF_STATS, dtype=np.int64)
    arrays = bank.arrays()
    done = 0
    size = 1
    interrupted = False
    start = time.perf_counter()
    try:
        while done < deals:
            size = min(size, deals - done)
            t0 = time.perf_counter()
            _run_lbr(played.engine, played.hooks, beliefs, initial, arrays, policy,
                     continuation, cards, seed, done, size, rollouts, max_particles,
                     payoffs[done:done + size], stats)
            done += size
            if on_progress:
                on_progress(done, deals)
            if time.perf_counter() - t0 < chunk_seconds:
                size *= 2
    except KeyboardInterrupt:
        interrupted = True
    return LBRResult(bank.names[policy], n, payoffs[:done], belief_counts(stats), rollouts,
                     bank.names[continuation], time.perf_counter() - start, interrupted)


# Exact value on a reduced deck's tree ------------------------------------------------------

def bank_strategy_on_tree(tree, bank: PolicyBank, policy: int) -> np.ndarray:
    """The flat strategy (tree infoset order) of a bank policy."""
    from solver.policies.compiled import probabilities
    from solver.exact.tree import infoset_states

    offsets = tree.action_offsets()
    strategy = np.zeros(int(offsets[-1]))
    for index, state in infoset_states(tree):
        legal, probs, _ = probabilities(bank, policy, state._s, int(tree.infoset_player[index]))
        if not np.array_equal(legal, tree.infoset_actions[index]):
            raise ValueError("the engine's legal actions differ from the tree's")
        strategy[offsets[index]:offsets[index + 1]] = probs
    return strategy


def fresh_buffers(game, capacity: int):
    """Particle buffers (2, capacity, state) and weights holding the round's start as
    the one particle of weight 1."""
    played = lbr_game(game)[0]
    initial = played.root(game)
    buffers = np.empty((2, capacity, len(initial)), dtype=initial.dtype)
    weights = np.empty((2, capacity))
    reset(played.engine, buffers[0, 0], initial)
    weights[0, 0] = 1.0
    return buffers, weights


def _observed(beliefs, state_array, viewer: int):
    observed = np.empty(beliefs.pattern_shape(), dtype=np.int32)
    return observed, beliefs.observe(state_array, viewer, observed)


def belief(game, state_array: np.ndarray, viewer: int, bank, policy: int,
           max_particles: int = DEFAULT_MAX_PARTICLES) -> tuple[np.ndarray, np.ndarray, dict]:
    """LBR's belief at a decision of `viewer`, from its observation only: (particle
    states, normalised weights, belief stats)."""
    played, beliefs = lbr_game(game)
    observed, n_obs = _observed(beliefs, state_array, viewer)
    buffers, weights = fresh_buffers(game, max_particles)
    stats = np.zeros(NUM_BELIEF_STATS, dtype=np.int64)
    current, count = advance_belief(played.engine, beliefs, buffers, weights, 0, 1,
                                    observed, n_obs, viewer, bank.arrays(), policy,
                                    max_particles, stats)
    return buffers[current, :count].copy(), weights[current, :count].copy(), \
        belief_counts(stats)


def lbr_choice(game, state_array: np.ndarray, viewer: int, bank, policy: int,
               seed: int = 1, rollouts: int = DEFAULT_ROLLOUTS,
               continuation: int | None = None,
               max_particles: int = DEFAULT_MAX_PARTICLES) -> tuple[int, np.ndarray, dict]:
    """LBR's action at a decision of `viewer`, its belief built from scratch from its
    observation only: (action id, value estimate per legal action, belief stats)."""
    continuation = policy if continuation is None else continuation
    played, beliefs = lbr_game(game)
    observed, n_obs = _observed(beliefs, state_array, viewer)
    legal = np.empty(played.hooks.max_actions(), dtype=np.int32)
    n = played.engine.legal_actions(state_array, legal)
    buffers, weights = fresh_buffers(game, max_particles)
    values = np.empty(played.hooks.max_actions())
    stats = np.zeros(NUM_BELIEF_STATS, dtype=np.int64)
    best, _, _ = decide(played.engine, played.hooks, beliefs, state_array, observed, n_obs,
                        viewer, buffers, weights, 0, 1, bank.arrays(), policy, continuation,
                        rollouts, max_particles, seed, legal, n, values, stats)
    return int(legal[best]), values[:n].copy(), belief_counts(stats)


@dataclasses.dataclass(frozen=True)
class ExactComparison:
    """LBR's exact value against a policy on a whole tree, next to the best response's."""

    policy: str
    lbr_per_seat: tuple[float, ...]  # LBR's exact expected margin in each seat
    best_response_per_seat: tuple[float, ...]
    policy_values: tuple[float, ...]  # the policy against itself, per seat
    seconds: float

    @property
    def lbr(self) -> float:
        """Exploitability (2 players) or NashConv (3+) lower bound, exactly."""
        return _combine(self.lbr_per_seat, self.policy_values)

    @property
    def exact(self) -> float:
        return _combine(self.best_response_per_seat, self.policy_values)

    @property
    def tightness(self) -> float:
        """LBR's share of the exact value (1: tight)."""
        return self.lbr / self.exact if self.exact > 0 else math.nan


def _combine(per_seat, policy_values) -> float:
    """NashConv = sum of (deviation value - policy value); exploitability = NashConv / 2
    with 2 players (solver/exact/best_response.py)."""
    nash_conv = sum(v - u for v, u in zip(per_seat, policy_values))
    return nash_conv / 2 if len(per_seat) == 2 else nash_conv


def exact_lbr_value(tree, bank, policy: int, seed: int = 1,
                    rollouts: int = DEFAULT_ROLLOUTS, continuation: int | None = None,
                    max_particles: int = DEFAULT_MAX_PARTICLES,
                    strategy: np.ndarray | None = None) -> ExactComparison:
    """LBR's exact expected margin against `policy` in each seat, computed on the whole
    tree: LBR's choice at each of its information states (from one state of it, reading
    only the redacted log), the policy elsewhere; with the exact best response's.
    strategy: the policy's flat strategy on the tree (default: a PolicyBank's,
    `bank_strategy_on_tree`)."""
    from solver.exact.best_response import best_response, profile_values
    from solver.exact.cfr import TreeArrays
    from solver.exact.tree import infoset_states

    start = time.perf_counter()
    arrays = TreeArrays(tree)
    if strategy is None:
        strategy = bank_strategy_on_tree(tree, bank, policy)
    offsets = tree.action_offsets()
    on_policy = profile_values(tree, strategy, arrays)
    game = tree.game
    lbr_values, br_values = [], []
    states = list(infoset_states(tree))
    for seat in range(tree.num_players):
        mixed = strategy.copy()
        for index, state in states:
            if int(tree.infoset_player[index]) != seat:
                continue
            action, _, _ = lbr_choice(game, state._s, seat, bank, policy, seed, rollouts,
                                      continuation, max_particles)
            actions = tree.infoset_actions[index].tolist()
            row = np.zeros(len(actions))
            row[actions.index(action)] = 1.0
            mixed[offsets[index]:offsets[index + 1]] = row
        lbr_values.append(float(profile_values(tree, mixed, arrays)[seat]))
        br_values.append(best_response(tree, strategy, seat, arrays)[0])
    return ExactComparison(bank.names[policy], tuple(lbr_values), tuple(br_values),
                           tuple(float(v) for v in on_policy), time.perf_counter() - start)
