"""The subgame a search solves: its roots from the belief engine, the rest of the round
expanded by the compiled engine into flat arrays (the layout of solver/exact/tree.py).

Roots (knowledge-limited subgame solving of order 1, "1-KLSS": Zhang & Sandholm 2021,
"Subgame Solving without Common Knowledge"), at a decision of the searching seat `me`:

- order 1: the histories `me` cannot tell from the real one (its information state I):
  the belief engine's posterior for `me`, the opponents' decisions weighted by the
  blueprint;
- order 2: for each opponent q and each information state J of q met among them, the
  histories q cannot tell apart: q's posterior at the same decision of `me`, everybody
  else's decisions (mine too) weighted by the blueprint. They hold the worlds in which
  I hold other cards, so an opponent's re-solved strategy cannot depend on my hand;
- weights: the blueprint's reach pi(h) (chance times every player's blueprint
  probabilities) relative to pi(I). Order 1: my posterior p_me(h). A set J: q's
  posterior p_q(h | J) times pi(J) / pi(I) = p_me(h) / p_q(h | J) for the histories h in
  both I and J (the same ratio for all of them, by perfect recall; summed for noise).

Below an order-1 root my decisions are re-solved; below an order-2 root (where my
information state is not I) they are locked to the blueprint; every opponent decision is
re-solved. Chance is enumerated (every pool card, by its copies). The tree ends at the
end of the round, or, with a depth limit, at the first play decision `max_plays` plays
below the root, where the value is the mean of `leaf_rollouts` blueprint rollouts
(everybody playing the blueprint chain to the end; solver/sim/playout.py).
"""

from __future__ import annotations

import collections
import dataclasses
import time

import numpy as np
from numba import njit

from spiel_game import engine
from spiel_game import layout as L

from solver.abstraction.keys import identity_key
from solver.belief import complete_pattern, posterior
from solver.exact.tree import CHANCE, DECISION, TERMINAL, FlatTree
from solver.policies.chain import chain_probs
from solver.sim.playout import padded_chains, play_out, same_chain
from solver.policies.playout import LOVE_LETTER_PLAYOUT
from solver.sim.rng import STREAM_SEARCH_LEAF, stream_seed
from solver.sim.utility import check_table, engine_utility, is_zero_sum, round_utility

_JIT = dict(cache=True, nogil=True)
OK, TOO_MANY_NODES, TOO_DEEP = 0, 1, 2
_STACK = 8192  # states waiting to be expanded (depth x branching)
_ROLLOUT_STRIDE = 1 << 16  # leaf rollout r below root i: stream i * stride + r


class SubgameTooLarge(Exception):
    """The subgame does not fit the node budget at the depth asked for."""


# Roots ------------------------------------------------------------------------------------

@dataclasses.dataclass
class Roots:
    states: np.ndarray  # (count, STATE_SIZE)
    weights: np.ndarray  # pi(h) / pi(I), not normalised
    free: np.ndarray  # bool: order 1 (my decisions below are re-solved)
    order1: int
    order2: int
    complete: bool  # no belief run dropped a particle
    # 2 players: pi_-q(h), the reach without the opponent's own (the gadget's odds)
    weights_without_opponent: np.ndarray | None = None
    # per root, the opponent model's type k whose chain that seat plays below (-1: none)
    types: np.ndarray | None = None


def _used(s) -> bytes:
    return s[:engine.used_size(s)].tobytes()


def _history(s, players: int) -> bytes:
    """A history as far as anybody can tell: the state apart from its log, and every
    player's view (the belief engine merges histories that agree on these)."""
    from solver.belief import hidden_state

    return hidden_state(s) + b"".join(_view(s, p) for p in range(players))


def _view(s, seat) -> bytes:
    observed, n = complete_pattern(s, seat)
    return observed[:n].tobytes()


def roots(game, states, weights, me: int, bank, chain, floor: float,
          max_particles: int, max_views: int = 48, view_mass: float = 0.99,
          deadline: float | None = None) -> Roots:
    """Order-1 and order-2 roots (module docstring) from my posterior (states, weights:
    particles at my decision, kept apart where any player's log differs). The order-2
    roots come from the opponents' likeliest information states among the order-1
    roots: at most max_views per opponent, until they hold view_mass of my posterior
    (the others keep their order-1 roots only: there the opponent is treated as if it
    knew a little more), and none begun after `deadline` (time.perf_counter())."""
    weights = np.asarray(weights, dtype=np.float64)
    weights = weights / weights.sum()
    my_views = {_view(s, me) for s in states}  # one, unless a hint forgot some of it
    my_view = _view(states[0], me)
    out_states, out_weights, out_free = list(states), list(weights), [True] * len(states)
    seen = {_used(s) for s in states}
    complete = True
    num_players = int(states[0][L.S_NUM_PLAYERS])
    # With 2 players, also the odds without the opponent's reach: chance alone within I
    # (my own reach is the same on all of I), a set J scaled as above by this posterior.
    chance_only = None
    if num_players == 2 and len(my_views) == 1:
        pattern = np.frombuffer(my_view, dtype=np.int32).reshape(-1, L.EVENT_SIZE)
        post = posterior(game, me, pattern, merge_logs=True, max_particles=max_particles)
        complete = complete and post.complete
        by_history = dict(zip((_history(s, num_players) for s in post.states), post.weights))
        chance_only = [by_history.get(_history(s, num_players), 0.0) for s in states]
        if min(chance_only) <= 0:
            chance_only = None  # not one history to one: no gadget (the roots are unsafe)
    out_plain = list(chance_only) if chance_only is not None else None
    for q in range(num_players):
        if q == me or states[0][L.S_IN_ROUND + q] == 0:
            continue
        groups: dict[bytes, float] = {}
        plain_groups: dict[bytes, float] = {}
        for k, (s, w) in enumerate(zip(states, weights)):
            view = _view(s, q)
            groups[view] = groups.get(view, 0.0) + w
            if chance_only is not None:
                plain_groups[view] = plain_groups.get(view, 0.0) + chance_only[k]
        ranked = sorted(groups.items(), key=lambda item: -item[1])
        covered = 0.0
        for rank, (view, mass_in_i) in enumerate(ranked):
            if (rank >= max_views or covered >= view_mass
                    or (deadline is not None and time.perf_counter() > deadline)):
                complete = False
                break
            covered += mass_in_i
            pattern = np.frombuffer(view, dtype=np.int32).reshape(-1, L.EVENT_SIZE)
            post = posterior(game, q, pattern, bank=bank, chain=chain, floor=floor,
                             merge_logs=True, max_particles=max_particles,
                             at_decision_of=me)
            complete = complete and post.complete
            mine = np.array([_view(s, me) in my_views for s in post.states])
            if not mine.any():
                continue  # cannot happen with exact beliefs; a truncated run may lose it
            ratio = mass_in_i / post.weights[mine].sum()
            if chance_only is not None:
                plain_ratio = plain_groups[view] / post.weights[mine].sum()
            for s, w, is_mine in zip(post.states, post.weights, mine):
                if is_mine:
                    continue
                key = _used(s)
                if key in seen:
                    continue
                seen.add(key)
                out_states.append(s)
                out_weights.append(w * ratio)
                out_free.append(False)
                if chance_only is not None:
                    out_plain.append(w * plain_ratio)
    return Roots(np.ascontiguousarray(np.stack(out_states)), np.array(out_weights),
                 np.array(out_free), len(states), len(out_states) - len(states), complete,
                 None if out_plain is None else np.array(out_plain))


# Expansion --------------------------------------------------------------------------------

# What `expand` takes, as passed to the compiled code (named, as solver/mccfr/kernel.py's).
# The roots (weights: the top's odds; types: the opponent model's type per root, -1 none)
# and the gadget's groups: root i is in group group_of[i], an infoset group_key[g].
RootArrays = collections.namedtuple("RootArrays",
                                    "states weights free types group_of group_key")
# The blueprint chain (bank: PolicyBank.arrays()) and the opponent model's chains; the
# multi-valued leaves' seat (-1: none) and its continuation chains (the first: chain).
Blueprint = collections.namedtuple("Blueprint", "bank chain model_seat model_chains "
                                   "leaf_seat leaf_chains")
ExpandLimits = collections.namedtuple(
    "ExpandLimits", "max_nodes max_edges max_plays cut_chance leaf_rollouts count_only seed")
# How a finished round is scored, and a second table only reported (solver/sim/utility.py).
Scoring = collections.namedtuple("Scoring", "round_table report_table")
# The subgame's arrays, filled by `expand`: per node, per edge, per root (its node).
SubgameArrays = collections.namedtuple(
    "SubgameArrays", "kind player key locked child_start num_children edge_child edge_action "
    "edge_prob edge_blueprint utility reported root_node")


@njit(**_JIT)
def expand(root_arrays, top, gadget_player, me, blueprint, limits, scoring, arrays):
    """Fill `arrays` (SubgameArrays) depth first (children after parents) from
    `root_arrays` (RootArrays); returns (status, nodes, edges, leaves); root_node[i]: root
    i's node. `limits` (ExpandLimits): max_plays < 0: no depth limit; else a
    leaf at the first play decision max_plays plays below the root, or with cut_chance
    already at the first chance node or other player's decision after that many plays.
    Below, each field goes by its name, except root_arrays' (states, weights, types):
    roots, root_weight, root_type.
    The order-1 roots are one information state of mine (MY_ROOT_KEY): they differ only
    in what a hint's situation does not say. count_only: the shape alone (no keys,
    blueprint probabilities or rollouts), to choose the depth before paying for them.
    Terminals and rollouts are scored by round_table (solver/sim/utility.py), and, with
    a non-empty report_table, also by it into `reported` (a quantity the answer shows
    but the solve does not maximise, e.g. each player's chance to win the match).

    Multi-valued leaves (Brown, Sandholm & Amos 2018), with leaf_seat >= 0 and more than
    one leaf_chains: a leaf where leaf_seat is still in the round is a decision of
    leaf_seat (its infoset: its information state there, salted) among the continuation
    strategies leaf_chains[j], each child a terminal valued by rollouts with leaf_seat
    playing leaf_chains[j] (the others their chains), on the same rollout seeds (common
    random numbers); the blueprint takes the first (leaf_chains[0], the chain).

    Opponent models: below a root of type k >= 0 (root_type), model_seat's decisions are
    locked to the chain model_chains[k] (its infosets apart from the free ones, by a salt
    per type) and play it in the rollouts; chain and model_chains are as wide.
    The top (`top`): UNSAFE, a chance node over the roots by root_weight; RESOLVE, the
    same, each root below a decision of gadget_player (infoset group_key[group_of[i]]:
    its root information state) to take a terminal (utility filled in later) or enter;
    MAX_MARGIN, a decision of gadget_player choosing a group (edge g), each a chance node
    over its roots by root_weight within the group; BLEND, a chance node over each root
    twice, edge 2i as UNSAFE (odds root_weight[i]) and 2i + 1 as RESOLVE (odds
    root_weight[count + i]): one subtree, expanded twice with the same leaf values."""
    roots, root_weight, root_free = root_arrays.states, root_arrays.weights, root_arrays.free
    root_type, group_of, group_key = (root_arrays.types, root_arrays.group_of,
                                      root_arrays.group_key)
    bank, chain = blueprint.bank, blueprint.chain
    leaf_seat, leaf_chains = blueprint.leaf_seat, blueprint.leaf_chains
    num_values = len(leaf_chains) if leaf_seat >= 0 else 1
    model_seat, model_chains = blueprint.model_seat, blueprint.model_chains
    max_nodes, max_edges, max_plays = limits.max_nodes, limits.max_edges, limits.max_plays
    cut_chance, leaf_rollouts = limits.cut_chance, limits.leaf_rollouts
    count_only, seed = limits.count_only, limits.seed
    round_table, report_table = scoring.round_table, scoring.report_table
    kind, player, key, locked = arrays.kind, arrays.player, arrays.key, arrays.locked
    child_start, num_children = arrays.child_start, arrays.num_children
    edge_child, edge_action = arrays.edge_child, arrays.edge_action
    edge_prob, edge_blueprint = arrays.edge_prob, arrays.edge_blueprint
    utility, reported, root_node = arrays.utility, arrays.reported, arrays.root_node
    num_players = roots[0, L.S_NUM_PLAYERS]
    width = roots.shape[1]
    stack = np.empty((_STACK, width), dtype=roots.dtype)
    stack_edge = np.empty(_STACK, dtype=np.int64)
    stack_plays = np.empty(_STACK, dtype=np.int32)
    stack_free = np.empty(_STACK, dtype=np.bool_)
    stack_what = np.empty(_STACK, dtype=np.int64)  # -1 a state, else a root or group
    stack_kind = np.empty(_STACK, dtype=np.int8)  # 0 state, 1 root, 2 gadget, 3 group
    stack_type = np.empty(_STACK, dtype=np.int32)  # the root's type (opponent model)
    stack_root = np.empty(_STACK, dtype=np.int64)  # the root it descends from
    legal = np.empty(L.NUM_ACTIONS, dtype=np.int32)
    probs = np.empty(L.NUM_ACTIONS)
    outcomes = np.empty(L.MAX_CHARS, dtype=np.int32)
    chance_probs = np.empty(L.MAX_CHARS)
    out = np.zeros(num_players)
    report = report_table.shape[0] > 0
    rollout = np.empty(width, dtype=roots.dtype)
    s = np.empty(width, dtype=roots.dtype)
    rng = np.zeros(1, dtype=np.uint64)
    no_order = np.empty(0, dtype=np.int32)
    no_state = np.empty(0, dtype=np.uint64)
    seat_chain = same_chain(chain, num_players)
    seat_row = np.zeros(num_players, dtype=np.int32)
    counts = np.zeros((1, len(chain) + 1), dtype=np.int64)
    num_groups = len(group_key)
    group_mass = np.zeros(num_groups)
    for i in range(len(roots)):
        group_mass[group_of[i]] += root_weight[i]
    top_edges = (2 if top == BLEND else 1) * len(roots) + num_groups
    if top_edges > max_edges or top_edges > _STACK:
        return TOO_MANY_NODES, 0, 0, 0

    nodes, edges, leaves, sp = 0, 0, 0, 0
    copying, root = False, 0
    # The top node (node 0) and what it leads to.
    child_start[0] = 0
    key[0] = 0
    locked[0] = False
    if top == MAX_MARGIN:
        kind[0] = DECISION
        player[0] = gadget_player
        key[0] = _MAX_MARGIN_KEY
        num_children[0] = num_groups
        for g in range(num_groups - 1, -1, -1):
            edge_action[g] = g
            edge_prob[g] = 1.0
            edge_blueprint[g] = 1.0 / num_groups
            stack_edge[sp] = g
            stack_kind[sp] = 3
            stack_what[sp] = g
            sp += 1
        edges = num_groups
    elif top == BLEND:  # edge 2i: root i unsafe; edge 2i + 1: its resolve gadget
        kind[0] = CHANCE
        player[0] = -1
        num_children[0] = 2 * len(roots)
        for j in range(2 * len(roots) - 1, -1, -1):
            edge_action[j] = j
            edge_prob[j] = root_weight[j // 2 + (j % 2) * len(roots)]
            edge_blueprint[j] = edge_prob[j]
            stack_edge[sp] = j
            stack_kind[sp] = 1 + j % 2
            stack_what[sp] = j // 2
            sp += 1
        edges = 2 * len(roots)
    else:
        kind[0] = CHANCE
        player[0] = -1
        num_children[0] = len(roots)
        total = root_weight.sum()
        for i in range(len(roots) - 1, -1, -1):
            edge_action[i] = i
            edge_prob[i] = root_weight[i] / total
            edge_blueprint[i] = edge_prob[i]
            stack_edge[sp] = i
            stack_kind[sp] = 2 if top == RESOLVE else 1
            stack_what[sp] = i
            sp += 1
        edges = len(roots)
    nodes = 1
    while sp > 0:
        sp -= 1
        node = nodes
        if node + 2 >= max_nodes or edges + 2 > max_edges:
            return TOO_MANY_NODES, nodes, edges, leaves
        nodes += 1
        edge_child[stack_edge[sp]] = node
        child_start[node] = edges
        num_children[node] = 0
        player[node] = -1
        key[node] = 0
        locked[node] = False
        what = stack_what[sp]
        if stack_kind[sp] == 3:  # a group of the max-margin top: chance over its roots
            kind[node] = CHANCE
            n = 0
            for i in range(len(roots) - 1, -1, -1):
                if group_of[i] == what:
                    n += 1
            num_children[node] = n
            k = n - 1
            for i in range(len(roots) - 1, -1, -1):
                if group_of[i] != what:
                    continue
                e = edges + k
                edge_action[e] = i
                edge_prob[e] = root_weight[i] / group_mass[what]
                edge_blueprint[e] = edge_prob[e]
                stack_edge[sp] = e
                stack_kind[sp] = 1
                stack_what[sp] = i
                sp += 1
                k -= 1
            edges += n
            continue
        if stack_kind[sp] == 2:  # a resolve gadget: terminate (edge 0) or enter (edge 1)
            kind[node] = DECISION
            player[node] = gadget_player
            key[node] = group_key[group_of[what]]
            num_children[node] = 2
            for i in range(2):
                edge_action[edges + i] = i
                edge_prob[edges + i] = 1.0
                edge_blueprint[edges + i] = float(i)  # the blueprint enters
            terminal = nodes
            nodes += 1
            edge_child[edges] = terminal
            kind[terminal] = TERMINAL
            player[terminal] = -1
            key[terminal] = 0
            locked[terminal] = False
            child_start[terminal] = edges + 2
            num_children[terminal] = 0
            utility[terminal, :num_players] = 0.0
            stack_edge[sp] = edges + 1
            stack_kind[sp] = 1
            edges += 2
            sp += 1  # the root itself, below its gadget
            continue
        if stack_kind[sp] == 1:  # a root: its state
            # A root's second copy (BLEND) is one subtree with its first (the same leaf
            # seeds: they are the root's); its leaves are not counted again.
            copying = root_node[what] >= 0
            root_node[what] = node
            root = what
            s[:] = roots[what]
            plays = 0
            free = root_free[what]
            kind_of = root_type[what]
        else:
            s[:] = stack[sp]
            plays = stack_plays[sp]
            free = stack_free[sp]
            kind_of = stack_type[sp]
            root = stack_root[sp]
        if engine.is_terminal(s):
            kind[node] = TERMINAL
            round_utility(s, round_table, out)
            utility[node, :num_players] = out
            if report:
                round_utility(s, report_table, out)
                reported[node, :num_players] = out
            continue
        leaf = False
        if max_plays >= 0 and plays >= max_plays:
            if engine.is_chance(s):
                leaf = cut_chance
            else:
                leaf = s[L.S_PHASE] == L.PH_PLAY or (cut_chance
                                                     and engine.current_actor(s) != me)
        if leaf:
            if model_seat >= 0:
                seat_chain[model_seat, :] = model_chains[kind_of] if kind_of >= 0 else chain
            values = num_values if num_values > 1 and s[L.S_IN_ROUND + leaf_seat] else 1
            valued = node
            if values > 1:  # leaf_seat chooses its continuation: a decision over them
                if nodes + values >= max_nodes or edges + values > max_edges:
                    return TOO_MANY_NODES, nodes, edges, leaves
                kind[node] = DECISION
                player[node] = leaf_seat
                if not count_only:
                    key[node] = identity_key(s, leaf_seat) ^ _LEAF_SALT
                num_children[node] = values
            for j in range(values):
                if values > 1:
                    valued = nodes
                    nodes += 1
                    edge_child[edges + j] = valued
                    edge_action[edges + j] = j
                    edge_prob[edges + j] = 1.0
                    edge_blueprint[edges + j] = 1.0 if j == 0 else 0.0
                    player[valued] = -1
                    key[valued] = 0
                    locked[valued] = False
                    child_start[valued] = edges + values
                    num_children[valued] = 0
                    seat_chain[leaf_seat, :] = leaf_chains[j]
                kind[valued] = TERMINAL  # a leaf: rollouts
                utility[valued, :num_players] = 0.0
                for r in range(0 if count_only else leaf_rollouts):
                    rollout[:] = s
                    # Common random numbers: rollout r of every leaf below one root draws
                    # the same stream, so sibling leaves differ by their states, not by
                    # their luck (docs/search.md "Timed search").
                    rng[0] = stream_seed(seed, STREAM_SEARCH_LEAF, root * _ROLLOUT_STRIDE + r)
                    play_out(engine.ENGINE, LOVE_LETTER_PLAYOUT, rollout, no_order, no_state,
                             seat_chain, bank, rng, legal, probs, counts, seat_row, -1)
                    round_utility(rollout, round_table, out)
                    utility[valued, :num_players] += out / leaf_rollouts
                    if report:
                        round_utility(rollout, report_table, out)
                        reported[valued, :num_players] += out / leaf_rollouts
            if values > 1:
                seat_chain[leaf_seat, :] = chain
                edges += values
            if not copying:
                leaves += 1
            continue
        if engine.is_chance(s):
            n = engine.chance_outcomes(s, outcomes, chance_probs)
            kind[node] = CHANCE
        else:
            phase = s[L.S_PHASE]
            p = engine.current_actor(s)
            n = engine.legal_actions(s, legal)
            kind[node] = DECISION
            player[node] = p
            modelled = p == model_seat and kind_of >= 0
            locked[node] = (p == me and not free) or modelled
            if not count_only:
                key[node] = (MY_ROOT_KEY if stack_kind[sp] == 1 and free
                             else identity_key(s, p))
                if modelled:  # the model's own infosets, one set per type
                    key[node] ^= _MODEL_SALT * (kind_of + 1)
                    chain_probs(s, p, bank, model_chains[kind_of], legal, n, probs)
                else:  # the blueprint (a miss: uniform)
                    chain_probs(s, p, bank, chain, legal, n, probs)
            if phase == L.PH_PLAY:
                plays += 1
        if edges + n > max_edges:
            return TOO_MANY_NODES, nodes, edges, leaves
        if sp + n > _STACK:
            return TOO_DEEP, nodes, edges, leaves
        num_children[node] = n
        for i in range(n):
            e = edges + i
            if kind[node] == CHANCE:
                edge_action[e] = outcomes[i]
                edge_prob[e] = chance_probs[i]
                edge_blueprint[e] = chance_probs[i]
            else:
                edge_action[e] = legal[i]
                edge_prob[e] = 1.0
                edge_blueprint[e] = probs[i]
        # Children are pushed last first, so the first is numbered first.
        for i in range(n - 1, -1, -1):
            slot = sp + (n - 1 - i)
            stack[slot, :] = s
            engine.apply_action(stack[slot], edge_action[edges + i])
            stack_edge[slot] = edges + i
            stack_plays[slot] = plays
            stack_free[slot] = free
            stack_type[slot] = kind_of
            stack_root[slot] = root
            stack_kind[slot] = 0
            stack_what[slot] = -1
        sp += n
        edges += n
    return OK, nodes, edges, leaves


@dataclasses.dataclass
class Subgame(FlatTree):
    """Flat arrays as in solver/exact/tree.py GameTree (what solver/exact/cfr.py takes),
    plus which infosets are locked to the blueprint and their locked strategy."""

    kind: np.ndarray
    player: np.ndarray
    infoset: np.ndarray
    child_start: np.ndarray
    num_children: np.ndarray
    edge_child: np.ndarray
    edge_action: np.ndarray
    edge_prob: np.ndarray  # chance odds; 1 at decisions
    utility: np.ndarray
    infoset_player: np.ndarray
    infoset_node: np.ndarray
    infoset_locked: np.ndarray  # bool per infoset
    locked_strategy: np.ndarray  # per (infoset, action) of a locked infoset; else 0
    offsets: np.ndarray
    roots: Roots
    leaves: int
    max_plays: int  # -1: to the end of the round
    blueprint: np.ndarray  # the blueprint's strategy per (infoset, action)
    top: str  # UNSAFE, RESOLVE or MAX_MARGIN
    gadget_player: int  # the opponent who holds the gadget, -1: none
    root_node: np.ndarray  # each root's node
    root_shift: np.ndarray  # per root: what the gadget added to my utilities below it
    reported: np.ndarray | None = None  # (nodes, players): the report table's values
    # refined tops: the gadget's trembles per (infoset, action) (CFRSolver's floor)
    floor: np.ndarray | None = None
    leaf_values: int = 1  # values per depth-limit leaf (multi-valued: the continuations)

    def action_offsets(self) -> np.ndarray:
        return self.offsets

    def root_nodes(self) -> np.ndarray:
        return self.root_node


UNSAFE, RESOLVE, MAX_MARGIN, BLEND = 0, 1, 2, 3
MODES = {"unsafe": UNSAFE, "resolve": RESOLVE, "max-margin": MAX_MARGIN, "blend": BLEND}
# The refined gadgets: the same game, its equilibrium refined by trembles (build()).
REFINED = {"resolve-refined": "resolve", "max-margin-refined": "max-margin"}
TOPS = (*MODES, *REFINED)
# The refined gadgets' tremble: the opponent enters every root information state J with
# at least this probability in all (each J by its share of the roots' odds). Measured
# (docs/search.md, small deck, Exalted One): 0.1 keeps the search at its blueprint; 0.5
# doubles its exploitability, and so does trembling every opponent decision (0.05).
REFINE_TREMBLE = 0.1
# Multi-valued leaves: the opponent's continuation strategies after the blueprint.
# "multi": the blueprint biased toward each class of plays (solver/policies/compiled.py
# BIAS_CLASSES, x BIAS_FACTOR; Brown, Sandholm & Amos 2018); "multi-heuristic": the
# bank's heuristics (keeping high cards, low cards, counting cards), the first version,
# kept for comparison (docs/search.md).
CONTINUATIONS = ("higher", "lower", "knockout")
HEURISTIC_CONTINUATIONS = ("keep_higher", "keep_lower", "card_counter")
LEAVES = ("single", "multi", "multi-heuristic")
# BLEND's weight of the resolve game against the unsafe one (lambda: the unsafe copy has
# 1 / (1 + lambda) of the top). Measured on the small deck, Exalted One (docs/search.md):
# lambda 0.5, 0.7, 1, 1.5, 3: exploitability 0.0173, 0.0152, 0.0154, 0.0152, 0.0194 (the
# blueprint's 0.0194; unsafe alone 0.037).
BLEND_RESOLVE_WEIGHT = 1.0
_MAX_MARGIN_KEY = 0x6A09E667F3BCC909  # the max-margin top's infoset key
MY_ROOT_KEY = 0x3C6EF372FE94F82B  # the order-1 roots' infoset of mine
_GADGET_SALT = 0x2545F4914F6CDD1D  # gadget infosets apart from the opponent's real ones
_MODEL_SALT = 0x1B873593A54FF53A  # a modelled opponent's infosets apart from its free ones
_LEAF_SALT = 0x5BE0CD19137E2179  # a leaf's choice of continuation apart from real infosets


def continuations(policies, leaves: str = "single") -> tuple[object, tuple]:
    """(bank, leaf chains) of the multi-valued leaves, the chains the opponent picks from
    at a leaf, the blueprint chain first, then: "multi", the blueprint chain biased
    toward each of CONTINUATIONS (its biased twins after `policies`' bank,
    compiled.with_biased); "multi-heuristic", the HEURISTIC_CONTINUATIONS (after the
    bank, no table copied). "single": (bank, ())."""
    from solver.policies.compiled import HEURISTIC_KINDS, with_biased

    if leaves not in LEAVES:
        raise ValueError(f"leaves {leaves!r}: allowed are {', '.join(LEAVES)}")
    bank = policies.bank
    if leaves == "single":
        return bank, ()
    blueprint = (tuple(int(j) for j in policies.chain),)
    if leaves == "multi":
        wider, biased = with_biased(bank, policies.chain, CONTINUATIONS)
        return wider, blueprint + biased
    extra = len(HEURISTIC_CONTINUATIONS)
    count = len(bank.names)
    wider = bank.extended(
        list(HEURISTIC_CONTINUATIONS), [HEURISTIC_KINDS[c] for c in HEURISTIC_CONTINUATIONS],
        np.full(extra, -1), [None] * extra, list(HEURISTIC_CONTINUATIONS),
        count + np.arange(extra), np.full(extra, -1), np.ones(extra))
    return wider, blueprint + tuple((count + j,) for j in range(extra))


def build(roots_: Roots, me: int, bank, chain, max_nodes: int, max_plays: int,
          leaf_rollouts: int, seed: int, top: str = "max-margin",
          cut_chance: bool = False, count_only: bool = False, round_table=None,
          report_table=None, model_seat: int = -1,
          model_chains=(), leaf_chains=()) -> Subgame | tuple[int, int]:
    """The subgame below `roots_`; SubgameTooLarge past max_nodes; with count_only,
    only (nodes, leaves). round_table: how a finished round is scored
    (solver/sim/utility.py; None: the engine's utility); report_table: a second table,
    carried to Subgame.reported and not solved for. model_seat, model_chains: an
    opponent model, its seat's decisions below a root of type k (roots_.types) locked
    to the chain model_chains[k]. leaf_chains (2 players, no opponent model; bank holds
    them, `continuations`): multi-valued leaves, the opponent choosing at each leaf
    among these continuations (the first the blueprint chain).

    `top` (2 players, margin utility; otherwise always "unsafe"): "unsafe", the roots by
    the blueprint's reach; "resolve" (Burch, Johanson & Bowling 2014), the opponent may
    take at each of its root information states J its counterfactual best-response value
    against the blueprint, CBV(J), instead of entering; "max-margin" (Moravcik et al.
    2016; Brown & Sandholm 2017), the opponent picks the J to enter and gets its value
    there minus CBV(J), so the solve maximises the smallest margin. Both gadgets weigh
    the roots by the reach of everybody but the opponent. "blend": the unsafe and the
    resolve games side by side below one chance node, weighted 1 : BLEND_RESOLVE_WEIGHT,
    the same infosets in both (the resolve game alone has every strategy that does not
    exceed any CBV(J) as a solution, so DCFR has no reason to improve on the blueprint;
    the unsafe half gives it one, the resolve half penalises each J's excess). Not safe
    in theory: measured (docs/search.md). "resolve-refined", "max-margin-refined": the
    same gadgets with the opponent's gadget choices trembling (CFRSolver's floor, in
    Subgame.floor): it enters every J with at least REFINE_TREMBLE times J's share of
    the roots' odds, so the re-solved strategy is a best response below every J, also
    those a best-responding opponent would not enter (Kubicek, Lisy & Sandholm 2026:
    gadget games have many equilibria; a refinement picks among them)."""
    if top not in TOPS:
        raise ValueError(f"subgame top {top!r}: allowed are {', '.join(TOPS)}")
    refined = top in REFINED
    first = roots_.states[0]
    num_players = int(first[L.S_NUM_PLAYERS])
    table = (engine_utility(num_players) if round_table is None
             else check_table(round_table, num_players))
    report_table = (engine_utility(num_players) if report_table is None
                    else check_table(report_table, num_players))
    zero_sum = (int(first[L.S_UTILITY]) == engine.UTIL_MARGIN if table.shape[0] == 0
                else is_zero_sum(table))
    types = roots_.types if roots_.types is not None else np.full(
        len(roots_.states), -1, dtype=np.int32)
    if np.any(types >= 0) and not (0 <= model_seat < num_players and model_seat != me
                                   and types.max() < len(model_chains)):
        raise ValueError("roots of an opponent model need its seat and chains")
    leaf_seat = 1 - me if (num_players == 2 and len(leaf_chains) > 1
                           and model_seat < 0) else -1
    padded = padded_chains([list(chain)] + [list(c) for c in model_chains]
                           + [list(c) for c in leaf_chains])
    leaf_rows = padded[1 + len(model_chains):]
    padded = padded[:1 + len(model_chains)]
    if leaf_seat < 0:
        leaf_rows = padded[:1]
    mode = MODES[REFINED.get(top, top)]
    if not (num_players == 2 and roots_.weights_without_opponent is not None and zero_sum):
        mode = UNSAFE
    elif mode != UNSAFE:
        keys = np.array([identity_key(s, 1 - me) for s in roots_.states], dtype=np.int64)
        _, group_of = np.unique(keys, return_inverse=True)
        if np.bincount(group_of, weights=roots_.weights_without_opponent).min() <= 0:
            mode = UNSAFE  # a root information state of the opponent without odds
    opponent = 1 - me if mode != UNSAFE else -1
    weights = roots_.weights_without_opponent if mode != UNSAFE else roots_.weights
    count = len(roots_.states)
    group_of = np.zeros(count, dtype=np.int64)
    group_key = np.zeros(1, dtype=np.int64)
    if mode != UNSAFE:
        keys = np.array([identity_key(s, opponent) for s in roots_.states], dtype=np.int64)
        unique, group_of = np.unique(keys, return_inverse=True)
        group_key = unique ^ _GADGET_SALT
        group_of = group_of.astype(np.int64)
    if mode == BLEND:  # the unsafe copies' odds, then the gadgets'
        lam = BLEND_RESOLVE_WEIGHT
        weights = np.concatenate([roots_.weights / roots_.weights.sum() / (1 + lam),
                                  weights / weights.sum() * lam / (1 + lam)])
    extra = (3 if mode == BLEND else 2) * count + len(group_key) + 1  # top and gadgets
    max_nodes += extra
    max_edges = 2 * max_nodes + count
    kind = np.empty(max_nodes, dtype=np.int8)
    player = np.empty(max_nodes, dtype=np.int8)
    key = np.empty(max_nodes, dtype=np.int64)
    locked = np.empty(max_nodes, dtype=np.bool_)
    child_start = np.empty(max_nodes, dtype=np.int64)
    num_children = np.empty(max_nodes, dtype=np.int32)
    edge_child = np.empty(max_edges, dtype=np.int32)
    edge_action = np.empty(max_edges, dtype=np.int32)
    edge_prob = np.empty(max_edges, dtype=np.float64)
    edge_blueprint = np.empty(max_edges, dtype=np.float64)
    utility = np.zeros((max_nodes, num_players), dtype=np.float64)
    reported = np.zeros((max_nodes if len(report_table) else 1, num_players))
    root_node = np.full(count, -1, dtype=np.int64)
    status, n, e, leaves = expand(
        RootArrays(roots_.states, weights, roots_.free, types.astype(np.int32), group_of,
                   group_key),
        mode, opponent, me,
        Blueprint(bank.arrays(), padded[0], int(model_seat),
                  padded[1:] if len(padded) > 1 else padded[:0], leaf_seat, leaf_rows),
        ExpandLimits(max_nodes, max_edges, max_plays, cut_chance, leaf_rollouts, count_only,
                     seed),
        Scoring(table, report_table),
        SubgameArrays(kind, player, key, locked, child_start, num_children, edge_child,
                      edge_action, edge_prob, edge_blueprint, utility, reported, root_node))
    if status != OK:
        raise SubgameTooLarge(f"more than {max_nodes - extra:,} nodes at depth "
                              f"{'unlimited' if max_plays < 0 else max_plays}")
    if count_only:
        return n, leaves
    kind, player, key, locked = kind[:n], player[:n], key[:n], locked[:n]
    num_children = num_children[:n].copy()
    child_start = child_start[:n].copy()
    decisions = np.flatnonzero(kind == DECISION)
    _, first_node, inverse = np.unique(key[decisions], return_index=True, return_inverse=True)
    infoset = np.full(n, -1, dtype=np.int32)
    infoset[decisions] = inverse
    infoset_node = decisions[first_node].astype(np.int32)
    sizes = num_children[infoset_node].astype(np.int64)
    offsets = np.concatenate([[0], np.cumsum(sizes)])
    infoset_locked = locked[infoset_node]
    if np.any(locked[decisions] != infoset_locked[inverse]):
        raise AssertionError("an information set mixes locked and re-solved histories")
    blueprint = np.zeros(int(offsets[-1]))
    for info, node in enumerate(infoset_node.tolist()):
        start = child_start[node]
        blueprint[offsets[info]:offsets[info + 1]] = edge_blueprint[start:start + sizes[info]]
    locked_strategy = np.where(np.repeat(infoset_locked, sizes), blueprint, 0.0)
    sub = Subgame(kind, player, infoset, child_start, num_children, edge_child[:e].copy(),
                  edge_action[:e].copy(), edge_prob[:e].copy(), utility[:n].copy(),
                  player[infoset_node].copy(), infoset_node, infoset_locked, locked_strategy,
                  offsets, roots_, leaves, max_plays, blueprint,
                  top if mode == MODES[REFINED.get(top, top)] else "unsafe", opponent,
                  root_node,
                  np.zeros(count), reported[:n].copy() if len(report_table) else None)
    sub.leaf_values = len(leaf_rows) if leaf_seat >= 0 else 1
    if mode != UNSAFE:
        _gadget_values(sub, me, opponent, group_of, mode)
        if refined:
            sub.floor = _trembles(sub, group_of, weights, mode)
    return sub


def _trembles(sub: Subgame, group_of: np.ndarray, weights: np.ndarray,
              mode: int) -> np.ndarray:
    """The refined gadgets' floors (build): resolve, at each J's gadget, enter with at
    least REFINE_TREMBLE; max-margin, choose each J with at least REFINE_TREMBLE times
    J's share of the roots' odds."""
    floor = np.zeros(int(sub.offsets[-1]))
    if mode == RESOLVE:
        gadgets = sub.edge_child[:len(sub.root_node)]
        floor[sub.offsets[sub.infoset[gadgets]] + 1] = REFINE_TREMBLE
    else:
        share = np.bincount(group_of, weights=weights)
        floor[sub.offsets[sub.infoset[0]] + np.arange(len(share))] = (
            REFINE_TREMBLE * share / share.sum())
    return floor


def _subtree_root(sub: Subgame) -> np.ndarray:
    """For every node, the root it lies below (-1 above the roots)."""
    owner = np.full(sub.num_nodes, -1, dtype=np.int64)
    owner[sub.root_node] = np.arange(len(sub.root_node))
    parent_of_edge = np.repeat(np.arange(sub.num_nodes), sub.num_children)
    parent = np.full(sub.num_nodes, -1, dtype=np.int64)
    parent[sub.edge_child] = parent_of_edge
    for node in range(sub.num_nodes):  # preorder: parents first
        if owner[node] < 0 and parent[node] >= 0:
            owner[node] = owner[parent[node]]
    return owner


def _gadget_values(sub: Subgame, me: int, opponent: int, group_of: np.ndarray,
                   mode: int) -> None:
    """The opponent's counterfactual best-response value against the blueprint at each
    root information state J, CBV(J) (Brown & Sandholm 2017: what the re-solved strategy
    must not let the opponent exceed there), into the gadget: the resolve terminals pay
    it; with max-margin every utility below J is shifted by it."""
    from solver.exact.best_response import with_best_response
    from solver.exact.cfr import value_sweep

    count = len(sub.root_node)
    terminals = None
    if mode in (RESOLVE, BLEND):
        gadgets = sub.edge_child[:count] if mode == RESOLVE else sub.edge_child[1:2 * count:2]
        terminals = sub.edge_child[sub.child_start[gadgets]]
        sub.utility[terminals, opponent] = -1e9  # the best response below always enters
        sub.utility[terminals, me] = 1e9
    _, strategy = with_best_response(sub, sub.blueprint, opponent)
    value = np.zeros((sub.num_nodes, sub.num_players))
    value_sweep(sub.kind, sub.player, sub.infoset, sub.child_start, sub.num_children,
                sub.edge_child, sub.edge_prob, sub.utility, sub.offsets, strategy, value)
    w = sub.roots.weights_without_opponent
    mass = np.bincount(group_of, weights=w)
    alt = np.bincount(group_of, weights=w * value[sub.root_node, opponent])
    alt = alt / np.maximum(mass, 1e-300)
    if mode in (RESOLVE, BLEND):
        sub.utility[terminals, opponent] = alt[group_of]
        sub.utility[terminals, me] = -alt[group_of]
        return
    owner = _subtree_root(sub)
    below = (sub.kind == TERMINAL) & (owner >= 0)
    shift = alt[group_of[owner[below]]]
    sub.utility[below, opponent] -= shift
    sub.utility[below, me] += shift
    sub.root_shift = alt[group_of]
