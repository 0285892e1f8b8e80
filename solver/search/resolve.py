"""Decision-time search: re-solve the rest of the round at a decision, read my strategy.

`search(game, states, weights, me, policies, limits, seed)`:

1. roots: my posterior (states, weights) and the opponents' second-order beliefs
   (solver/search/subgame.py: 1-KLSS, my strategy locked to the blueprint where my
   information state is not the real one);
2. the subgame: to the end of the round if it fits `limits.max_nodes`, else
   depth-limited (the first play decision 3, 2, then 1 plays below the root), leaves
   valued by blueprint rollouts;
3. DCFR (solver/exact/cfr.py, with node locking) until the time budget or exactly
   `limits.iterations` iterations (repeatable: the same seed and iterations give the same
   answer on any machine); a timed search that is not finished then declines
   (SearchUnfinished);
4. the answer: the average strategy at my information state, and each action's value
   to me when the others play the re-solved profile and I then play my best.

The blueprint is the game's tables (a PolicySet, finest first, the game's expert last): it
weighs the beliefs, plays the locked decisions and the leaf rollouts.

Two options change what the search maximises (docs/search.md "Match and opponent"):

- `round_table`: how a finished round is scored (solver/sim/utility.py), e.g. each
  player's chance of winning the match from the standings it leaves (solver/match);
- `exploit`: an opponent model (`Exploit`: a mixture of chains of the bank, 2 players).
  Each mixture component is a type of the opponent, a chance node at the top: my
  posterior under that component (the belief engine with the component's chain) times
  its prior weight and its likelihood of what I saw, the opponent's decisions below
  locked to it (node locking). With `confidence` 1 the answer is my best response to the
  model (computed exactly on the subgame); below 1, a restricted Nash response (Johanson,
  Zinkevich & Bowling 2007): with 1 - confidence the opponent is free (the usual roots,
  re-solved), and DCFR finds my best strategy against that mixture.
"""

from __future__ import annotations

import dataclasses
import time

import numpy as np

from spiel_game import engine
from spiel_game import layout as L

from solver.exact.cfr import CFRSolver, value_sweep
from solver.exact.tree import DECISION
from solver.search.subgame import Subgame, SubgameTooLarge, build, continuations, roots
from solver.sim.rng import STREAM_SEARCH_LEAF, check_seed, stream_seed

CONSTRUCTION = "1-KLSS"  # knowledge-limited subgame solving of order 1 (subgame.py)
TREMBLE = 1e-3  # least blueprint probability of an observed decision in the beliefs
# (plays below the root, cut at chance): the whole round first; last, only my own turn,
# valued by rollouts, from the order-1 roots alone (no opponent decides in it).
DEPTHS = ((-1, False), (2, False), (2, True), (1, False), (1, True))
OWN_TURN = DEPTHS[-1]
# Sizing a timed search (measured here, 2 cores, loaded: a DCFR iteration costs about
# 0.75 us a node, a leaf rollout about 50 us): nodes per second of budget, so that
# min_iterations take under half of it; leaf rollouts per second; the share of what is
# left that the leaves' rollouts may take; the share of the budget after which no
# deeper depth is tried; the share after which no further opponent view's beliefs are
# computed for order-2 roots (each a posterior of up to max_particles).
NODES_PER_SECOND = 50_000
LEAF_ROLLOUTS_PER_SECOND = 20_000
BUILD_SHARE = 0.6
PROBE_SHARE = 0.4
ROOTS_SHARE = 0.2
# What makes a result finished (docs/search.md "Timed search"): every depth-limit leaf is
# valued by at least MIN_LEAF_ROLLOUTS rollouts (a depth whose leaves the rollout budget
# cannot give that many is not taken: a shallower one is), and a timed search's average
# strategy at my decision gives up at most MAX_ROOT_GAP (token margin) against my best
# response to the re-solved others. A timed search that cannot meet both in its budget
# raises SearchUnfinished, and the table answers.
MIN_LEAF_ROLLOUTS = 8
MAX_ROOT_GAP = 0.02


@dataclasses.dataclass(frozen=True)
class SearchLimits:
    """The budget: `seconds` of wall time, or exactly `iterations` DCFR iterations."""

    seconds: float = 1.0
    iterations: int | None = None
    min_iterations: int = 16
    max_iterations: int = 2000
    max_nodes: int = 100_000
    max_roots: int = 400  # order-1 roots and the heaviest order-2 roots
    leaf_rollouts: int = 8  # per leaf, at most 8x this; fewer where leaves are many:
    # rollouts shared by all leaves, for each of a multi-valued leaf's values (a timed
    # search: also what time allows, shared by all leaves and values)
    rollout_budget: int = 40_000
    max_particles: int = 4096

    def __post_init__(self):
        if not self.seconds > 0:
            raise ValueError(f"search seconds must be positive, got {self.seconds!r}")
        if self.iterations is not None and (isinstance(self.iterations, bool)
                                            or self.iterations < 1):
            raise ValueError(f"search iterations must be a positive whole number, got "
                             f"{self.iterations!r}")


@dataclasses.dataclass
class SearchResult:
    legal: np.ndarray  # my legal actions at the root
    probs: np.ndarray  # the search's average strategy there
    values: np.ndarray  # each action's value to me (re-solved profile, my posterior)
    subgame: Subgame
    strategy: np.ndarray  # the average strategy on the whole subgame
    node_values: np.ndarray  # (nodes, players): `strategy`, my best below my decision
    iterations: int
    seconds: float
    phase_seconds: dict | None = None  # where the time went: roots, build, solve
    model_mass: dict | None = None  # exploit: each model type's posterior weight
    reported_values: np.ndarray | None = None  # per action, the report table's value to me
    report_nodes: np.ndarray | None = None  # (nodes, players) under the report table
    root_gap: float = 0.0  # my best action's value less my strategy's (module docstring)

    @property
    def root_nodes(self) -> np.ndarray:
        """The order-1 root nodes (my real information state)."""
        return self.subgame.root_nodes()[:self.subgame.roots.order1]

    def detail(self) -> dict:
        sub = self.subgame
        multi = (f", {sub.leaf_values}-valued leaves (the opponent's continuations)"
                 if sub.leaf_values > 1 else "")
        return {"construction": f"{CONSTRUCTION}, {sub.top} top{multi}",
                "roots": {"order1": sub.roots.order1, "order2": sub.roots.order2,
                          "beliefs_complete": bool(sub.roots.complete)},
                "nodes": sub.num_nodes, "infosets": sub.num_infosets,
                "depth": ("end of round" if sub.max_plays < 0 else
                          "own turn" if sub.roots.order2 == 0 and sub.leaves and
                          sub.max_plays == 1 else f"{sub.max_plays} plays"),
                "leaves": sub.leaves, "iterations": self.iterations,
                "root_gap": round(self.root_gap, 4),
                "seconds": round(self.seconds, 3),
                "phase_seconds": {k: round(v, 3)
                                  for k, v in (self.phase_seconds or {}).items()}}

    def line(self, path, reported: bool = False) -> tuple[float, float]:
        """(probability, value to me) of my consecutive actions `path` from the root; with
        `reported`, the report table's value instead (search's report_table)."""
        sub = self.subgame
        me = int(sub.player[self.root_nodes[0]])
        nodes = list(self.root_nodes)
        prob = 1.0
        for k, action in enumerate(path):
            nxt = []
            for node in nodes:
                start = sub.child_start[node]
                acts = sub.edge_action[start:start + sub.num_children[node]]
                i = int(np.flatnonzero(acts == action)[0])
                if node == nodes[0]:
                    info = sub.infoset[node]
                    prob *= float(self.strategy[sub.offsets[info] + i])
                nxt.append(int(sub.edge_child[start + i]))
            nodes = nxt
            if k + 1 < len(path) and not all(sub.kind[n] == DECISION and sub.player[n] == me
                                             for n in nodes):
                raise ValueError("the path leaves my decisions")
        k = sub.roots.order1
        w = sub.roots.weights[:k]
        if reported:
            return prob, float(np.dot(w, self.report_nodes[nodes, me]) / w.sum())
        return prob, float(np.dot(w, self.node_values[nodes, me] - sub.root_shift[:k]) / w.sum())

    def node_after(self, prefix) -> int:
        """The node my consecutive actions `prefix` lead to from the first root."""
        sub = self.subgame
        node = int(self.root_nodes[0])
        for a in prefix:
            start = sub.child_start[node]
            acts = sub.edge_action[start:start + sub.num_children[node]]
            node = int(sub.edge_child[start + int(np.flatnonzero(acts == a)[0])])
        return node

    def phase_after(self, prefix) -> int:
        """The engine's phase (layout.PH_*) after my consecutive actions `prefix`."""
        s = self.subgame.roots.states[0].copy()
        for a in prefix:
            engine.apply_action(s, a)
        return int(s[L.S_PHASE])

    def options_after(self, prefix) -> list[tuple[int, float, float]]:
        """(action, probability given `prefix`, value to me) of each option of my decision
        after my consecutive actions `prefix`."""
        sub = self.subgame
        node = self.node_after(prefix)
        start = sub.child_start[node]
        before, _ = self.line(prefix)
        out = []
        for i in range(sub.num_children[node]):
            a = int(sub.edge_action[start + i])
            p, v = self.line(tuple(prefix) + (a,))
            out.append((a, p / before if before > 0 else 0.0, v))
        return out


def _heaviest(r, limit: int):
    """All order-1 roots and the heaviest order-2 roots, `limit` in all."""
    import dataclasses as dc

    if len(r.weights) <= limit:
        return r
    k = r.order1
    keep = np.concatenate([np.arange(k), k + np.argsort(-r.weights[k:], kind="stable")
                           [:max(limit - k, 0)]])
    keep.sort()
    plain = (None if r.weights_without_opponent is None
             else r.weights_without_opponent[keep])
    return dc.replace(r, states=r.states[keep], weights=r.weights[keep], free=r.free[keep],
                      order2=len(keep) - k, weights_without_opponent=plain,
                      types=None if r.types is None else r.types[keep])


def _order1(r):
    """The order-1 roots alone."""
    import dataclasses as dc

    k = r.order1
    plain = None if r.weights_without_opponent is None else r.weights_without_opponent[:k]
    return dc.replace(r, states=r.states[:k], weights=r.weights[:k], free=r.free[:k],
                      order2=0, weights_without_opponent=plain,
                      types=None if r.types is None else r.types[:k])


def _seed_for(seed: int, s: np.ndarray, me: int) -> int:
    """The leaf rollouts' seed: the same information state gets the same rollouts,
    whatever was searched before."""
    from solver.abstraction.keys import identity_key

    return int(stream_seed(seed, STREAM_SEARCH_LEAF, int(identity_key(s, me)) & ((1 << 62) - 1))
               & ((1 << 62) - 1))


DEFAULT_LIMITS = SearchLimits()


class ModelCannotExplain(ValueError):
    """The opponent model gives what was seen this round probability 0."""


class SearchUnfinished(Exception):
    """A timed search could not finish in its budget: its leaves would get too few
    rollouts, or its strategy is not yet close to a best response at my decision."""


@dataclasses.dataclass(frozen=True)
class Exploit:
    """An opponent model for `search`: seat plays chains[k] (indices of the bank) with
    prior weight weights[k]; confidence: the restricted Nash response's weight on the
    model (1: best response); tremble: least probability of an observed action."""

    seat: int
    chains: tuple
    weights: tuple
    confidence: float = 1.0
    tremble: float = TREMBLE

    def __post_init__(self):
        if not 0.0 < self.confidence <= 1.0:
            raise ValueError(f"the model's confidence is a weight in (0, 1], got "
                             f"{self.confidence!r}")
        if len(self.chains) != len(self.weights) or not self.chains:
            raise ValueError("an opponent model needs one weight per component")
        if min(self.weights) < 0 or not abs(sum(self.weights) - 1) < 1e-9:
            raise ValueError("an opponent model's weights are >= 0 and sum to 1")

    @property
    def best_response(self) -> bool:
        return self.confidence >= 1.0


def exploit_roots(game, states, me: int, policies, exploit: Exploit,
                  max_particles: int):
    """The roots of an exploiting search (module docstring): per model component k,
    my posterior with the opponent playing chains[k], weighted by
    confidence * P(k | what I saw); with confidence < 1 also the usual roots (blueprint
    beliefs, order 1 and 2) weighted by (1 - confidence) * P(free | what I saw). The
    order-1 roots come first (search reads them), then the free order-2 roots."""
    from solver.belief import posterior
    from solver.search.subgame import Roots, _view

    num_players = int(states[0][L.S_NUM_PLAYERS])
    if num_players != 2:
        raise ValueError("opponent models take 2 players: the belief engine weighs every "
                         "other player by one chain")
    if exploit.seat == me or not 0 <= exploit.seat < num_players:
        raise ValueError(f"the modelled seat {exploit.seat} is not an opponent of seat {me}")
    views = {_view(s, me) for s in states}
    if len(views) != 1:
        raise ValueError("an opponent model needs the whole log of the round (a summary "
                         "leaves the past decisions unknown)")
    pattern = np.frombuffer(views.pop(), dtype=np.int32).reshape(-1, L.EVENT_SIZE)
    parts = []
    for k, (chain_k, w_k) in enumerate(zip(exploit.chains, exploit.weights)):
        if w_k <= 0:
            continue
        post = posterior(game, me, pattern, bank=policies.bank, chain=chain_k,
                         floor=exploit.tremble, merge_logs=True, max_particles=max_particles)
        if len(post.states):
            parts.append((k, post, np.log(w_k * exploit.confidence) + post.log_evidence))
    free = None
    if not exploit.best_response:
        post = posterior(game, me, pattern, bank=policies.bank, chain=policies.chain,
                         floor=TREMBLE, merge_logs=True, max_particles=max_particles)
        if len(post.states):
            free = (post, np.log(1 - exploit.confidence) + post.log_evidence)
    logs = np.array([p[2] for p in parts] + ([free[1]] if free else []))
    if not len(logs) or not np.isfinite(logs.max()):
        raise ModelCannotExplain("the opponent model cannot explain what was seen this "
                                 "round")
    mass = np.exp(logs - logs.max())
    mass /= mass.sum()
    states_out, weights_out, types, complete = [], [], [], True
    for (k, post, _), m in zip(parts, mass):
        states_out += list(post.states)
        weights_out += list(post.weights * m)
        types += [k] * len(post.states)
        complete = complete and post.complete
    order1, order2 = len(states_out), 0
    if free:
        r = roots(game, free[0].states, free[0].weights, me, policies.bank, policies.chain,
                  TREMBLE, max_particles)
        w = r.weights / r.weights[:r.order1].sum() * mass[-1]
        states_out += list(r.states[:r.order1])
        weights_out += list(w[:r.order1])
        order1 += r.order1
        states_out += list(r.states[r.order1:])
        weights_out += list(w[r.order1:])
        order2 = r.order2
        types += [-1] * (r.order1 + r.order2)
        complete = complete and r.complete
    free_flags = np.ones(len(states_out), dtype=bool)
    free_flags[order1:] = False
    return Roots(np.ascontiguousarray(np.stack(states_out)), np.array(weights_out),
                 free_flags, order1, order2, complete, None,
                 np.array(types, dtype=np.int32)), dict(zip(
                     [p[0] for p in parts] + (["free"] if free else []), mass.tolist()))


def search(game, states, weights, me: int, policies, limits: SearchLimits = DEFAULT_LIMITS,
           seed: int = 0, top: str = "max-margin", round_table=None,
           exploit: Exploit | None = None, report_table=None,
           leaves: str = "single") -> SearchResult:
    """Re-solve at my decision in the worlds (states, weights: my posterior, particles
    kept apart where any player's log differs). SubgameTooLarge when even the shallowest
    subgame exceeds the node budget; SearchUnfinished when a timed search cannot finish
    in its budget (MIN_LEAF_ROLLOUTS, MAX_ROOT_GAP). round_table, exploit: module docstring;
    report_table: a second round-utility table whose value per action the answer carries
    (SearchResult.reported_values) without solving for it. leaves: "single", each
    depth-limit leaf valued by blueprint rollouts; "multi" (2 players, no exploit), the
    opponent picks at each leaf among the blueprint and its biased versions, or with
    "multi-heuristic" among the blueprint and heuristics (subgame.continuations:
    multi-valued leaves, Brown, Sandholm & Amos 2018), each valued by rollouts."""
    start = time.perf_counter()
    seed = check_seed(seed)
    deadline = start + limits.seconds
    states = np.ascontiguousarray(np.stack(states))
    s0 = states[0]
    if engine.is_chance(s0) or engine.is_terminal(s0) or engine.current_actor(s0) != me:
        raise ValueError(f"the search starts at a decision of seat {me}")
    chain = policies.chain
    bank, leaf_chains = continuations(policies, leaves if exploit is None else "single")
    values = len(leaf_chains) if len(leaf_chains) > 1 and s0[L.S_NUM_PLAYERS] == 2 else 1
    model = {}
    timed = limits.iterations is None
    if exploit is None:
        root_set = roots(game, states, weights, me, policies.bank, chain, TREMBLE,
                         limits.max_particles,
                         deadline=start + ROOTS_SHARE * limits.seconds if timed else None)
    else:
        root_set, type_mass = exploit_roots(game, states, me, policies, exploit,
                                            limits.max_particles)
        model = dict(model_seat=exploit.seat, model_chains=exploit.chains)
    root_set = _heaviest(root_set, limits.max_roots)
    rooted = time.perf_counter()
    leaf_seed = _seed_for(seed, s0, me)
    # With a time budget the subgame is sized to it: DCFR's min_iterations must fit, the
    # leaves' rollouts share what the build may take, and deeper depths are tried only
    # while time is left (each failed try expands up to max_nodes). Exactly `iterations`:
    # the fixed sizes, so that answers repeat.
    max_nodes = (min(limits.max_nodes, int(limits.seconds * NODES_PER_SECOND)) if timed
                 else limits.max_nodes)
    sub = None
    # The depth is chosen with single-valued leaves; multi-valued leaves come on top of
    # the node budget (their shape counted again at that depth). Counted within it,
    # they cost a ply: on `small` at 1,000 nodes they turned 50 of 1,512 searches from
    # one play deep, the opponent's turn and the gadget with it, into my own turn alone,
    # and doubled or tripled the exploitability (docs/search.md).
    for depth, cut_chance in DEPTHS:
        own_turn = (depth, cut_chance) == OWN_TURN
        if timed and not own_turn and time.perf_counter() > start + PROBE_SHARE * limits.seconds:
            continue
        chosen = _order1(root_set) if own_turn else root_set
        # no opponent decides in my own turn: nothing for a gadget to guard
        shape = dict(top="unsafe" if own_turn else top, cut_chance=cut_chance,
                     round_table=round_table, report_table=report_table, **model)
        try:
            _, leaf_count = build(chosen, me, bank, chain, max_nodes, depth, 0,
                                  leaf_seed, count_only=True, **shape)
        except SubgameTooLarge:
            continue
        # Each value of a leaf is as precise as a single-valued leaf's (with four values
        # sharing the budget, rollout noise alone, four copies of the blueprint as the
        # continuations, cost 0.002 in Exalted One on `small`: docs/search.md), unless
        # time allows fewer: then the leaves' values share what it allows.
        rollouts, budget = limits.leaf_rollouts, limits.rollout_budget * values
        if timed:
            left = max(deadline - time.perf_counter(), 0.0)
            budget = min(budget, int(BUILD_SHARE * left * LEAF_ROLLOUTS_PER_SECOND))
        if leaf_count:  # the leaves' values share a rollout budget
            rollouts = int(min(budget // (leaf_count * values), 8 * rollouts))
            if rollouts < MIN_LEAF_ROLLOUTS:
                if not own_turn:
                    continue  # too many leaves to value well: a shallower depth
                if timed:
                    raise SearchUnfinished(
                        f"{limits.seconds:.2f} s cannot value its {leaf_count:,} leaves by "
                        f"{MIN_LEAF_ROLLOUTS} rollouts each")
                rollouts = MIN_LEAF_ROLLOUTS
        budget_nodes = max_nodes
        if leaf_count and leaf_chains:
            multi_nodes, _ = build(chosen, me, bank, chain, (1 + len(leaf_chains)) * max_nodes,
                                   depth, 0, leaf_seed, count_only=True,
                                   leaf_chains=leaf_chains, **shape)
            budget_nodes = max(max_nodes, multi_nodes)
        sub = build(chosen, me, bank, chain, budget_nodes, depth, rollouts, leaf_seed,
                    leaf_chains=leaf_chains, **shape)
        break
    built = time.perf_counter()
    if sub is None:
        raise SubgameTooLarge(f"the subgame exceeds {limits.max_nodes:,} nodes even one "
                              "play deep")
    if exploit is not None and exploit.best_response and np.all(
            sub.infoset_locked[sub.infoset_player != me]):
        from solver.exact.cfr import TreeArrays

        a = TreeArrays(sub)
        strategy, iterations = _best_response(sub, me, a), 0
    else:
        solver = CFRSolver(sub, "dcfr", sub.infoset_locked, sub.locked_strategy, sub.floor)
        while True:
            solver.iteration()
            if limits.iterations is not None:
                if solver.iterations >= limits.iterations:
                    break
            elif solver.iterations >= limits.max_iterations or (
                    solver.iterations >= limits.min_iterations
                    and time.perf_counter() >= deadline):
                break
        strategy, iterations, a = solver.average_strategy(), solver.iterations, solver.arrays
    solved = time.perf_counter()
    continued, node_values, gap = _continuation_values(sub, me, strategy, a, root_set.order1)
    if timed and gap > MAX_ROOT_GAP:
        raise SearchUnfinished(f"after {iterations} DCFR iterations in {limits.seconds:.2f} s "
                               f"its strategy gives up {gap:.3f} against the best at your "
                               f"decision (at most {MAX_ROOT_GAP} is finished)")
    roots_i = sub.root_nodes()[:root_set.order1]
    info = int(sub.infoset[roots_i[0]])
    if np.any(sub.infoset[roots_i] != info):
        raise AssertionError("order-1 roots in different information states")
    lo, hi = sub.offsets[info], sub.offsets[info + 1]
    start_edge = sub.child_start[roots_i[0]]
    legal = sub.edge_action[start_edge:start_edge + (hi - lo)].copy()
    w = root_set.weights[:root_set.order1]
    shift = sub.root_shift[:root_set.order1]
    values = np.zeros(hi - lo)
    reported = None if sub.reported is None else np.zeros(hi - lo)
    if reported is not None:
        report_nodes = np.zeros((sub.num_nodes, sub.num_players))
        value_sweep(a.kind, a.player, a.infoset, a.child_start, a.num_children, a.edge_child,
                    a.edge_prob, sub.reported, a.offsets, continued, report_nodes)
    for i in range(hi - lo):
        children = sub.edge_child[sub.child_start[roots_i] + i]
        values[i] = np.dot(w, node_values[children, me] - shift) / w.sum()
        if reported is not None:
            reported[i] = np.dot(w, report_nodes[children, me]) / w.sum()
    result = SearchResult(legal, strategy[lo:hi].copy(), values, sub, strategy, node_values,
                          iterations, time.perf_counter() - start,
                          {"roots": rooted - start, "build": built - rooted,
                           "solve": solved - built}, root_gap=gap)
    if exploit is not None:
        result.model_mass = type_mass
    result.reported_values = reported
    result.report_nodes = report_nodes if reported is not None else None
    return result


def _continuation_values(sub: Subgame, me: int, strategy: np.ndarray, arrays, order1: int
                         ) -> tuple[np.ndarray, np.ndarray, float]:
    """(the continued strategy, its node values, the root gap). The continued strategy is
    `strategy` except at my free decisions below my own, where I play my best response to
    the others' `strategy`: an
    action's value is then what it is worth followed by good play, never read off an
    average that has not yet visited below it (early DCFR iterations leave a rarely
    chosen action's later decisions near uniform). The root gap: my best action's value
    less my strategy's, over my order-1 roots."""
    from solver.exact.best_response import best_response

    values = np.zeros((sub.num_nodes, sub.num_players))
    value_sweep(*arrays.args(), strategy, values)
    _, best = best_response(sub, strategy, me, arrays)
    roots = sub.root_nodes()[:order1]
    root_info = int(sub.infoset[roots[0]])
    continued = strategy.copy()
    for info in np.flatnonzero((sub.infoset_player == me) & ~sub.infoset_locked
                               & (best >= 0)):
        if info != root_info:
            lo, hi = sub.offsets[info], sub.offsets[info + 1]
            continued[lo:hi] = 0.0
            continued[lo + best[info]] = 1.0
    node_values = np.zeros_like(values)
    value_sweep(*arrays.args(), continued, node_values)
    w = sub.roots.weights[:order1]
    shift = sub.root_shift[:order1]
    lo, hi = sub.offsets[root_info], sub.offsets[root_info + 1]
    per_action = [np.dot(w, node_values[sub.edge_child[sub.child_start[roots] + i], me] - shift)
                  for i in range(hi - lo)]
    mine = np.dot(w, values[roots, me] - shift)
    return continued, node_values, float((max(per_action) - mine) / w.sum())


def _best_response(sub: Subgame, me: int, arrays) -> np.ndarray:
    """My exact best response on a subgame whose other decisions are all locked: the
    locked strategy there, my best action (first of equals) at each of my infosets."""
    from solver.exact.best_response import best_response

    _, best = best_response(sub, sub.blueprint, me, arrays)
    strategy = sub.blueprint.copy()
    for info in np.flatnonzero((sub.infoset_player == me) & ~sub.infoset_locked):
        lo, hi = sub.offsets[info], sub.offsets[info + 1]
        strategy[lo:hi] = 0.0
        if best[info] >= 0:
            strategy[lo + best[info]] = 1.0
        else:  # unreachable under the model: any action
            strategy[lo:hi] = 1.0 / (hi - lo)
    return strategy


def my_posterior(game, s: np.ndarray, me: int, policies, max_particles: int = 4096):
    """My posterior at a real state's decision (the worlds `search` takes)."""
    from solver.belief import posterior_of_state

    post = posterior_of_state(game, s, me, bank=policies.bank, chain=policies.chain,
                              floor=TREMBLE, merge_logs=True, max_particles=max_particles)
    return post
