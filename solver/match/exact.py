"""Match-aware play measured exactly on a reduced deck: DCFR policies on the whole round
tree, their exact round-outcome distributions, and the match between them by the match
values' dynamic programme (docs/match.md "Match-aware play, measured").

1. Every terminal node's outcome code (outcomes.py) by replaying its path with the engine
   (`terminal_codes`, a compiled walk over the tree arrays).
2. The margin policy: DCFR on the tree with the margin utility. Its exact outcome
   distribution (the reach of every terminal) is the distribution of a round started by
   engine seat 0; rotated to each starter (outcomes.py `to_table`) it gives V_margin
   (value.py `match_values`).
3. The match-aware policy: at each standings in turn order (engine seat 0 started the
   round), DCFR on the same tree with the terminal utilities round_utility_table(V_margin,
   standings, 0)[code]: each player's chance of winning the match, less the other's.
4. The match: at each standings and starter, the exact outcome distribution of the round
   with the match-aware player's strategy at its seat and the margin player's at the
   other; then the dynamic programme with a distribution per standings gives the
   match-aware player's expected match score from 0-0, the first starter random (a shared
   win split, duel.py `score`), averaged over its two table seats (seat rotation).

Nothing is sampled: the only error is DCFR's convergence, so every solve's
exploitability with respect to its own utility (best_response.py `exploitability` on the
tree whose terminals hold that utility) is reported with it.
"""

from __future__ import annotations

import dataclasses
import time
from collections.abc import Callable

import numpy as np
from numba import njit

from spiel_game import engine

from solver.exact.best_response import exploitability
from solver.exact.cfr import CFRSolver, TreeArrays, reach_sweep, value_sweep
from solver.exact.tree import DECISION, TERMINAL, GameTree, _tree_depth, infoset_paths
from solver.match.outcomes import num_codes, to_table
from solver.match.value import MatchValues, match_values, round_utility_table
from solver.sim.utility import outcome_code

_JIT = dict(cache=True, nogil=True)
# An infoset's advice changes (changed_positions): another most likely action, some
# action's probability moved by more than CHANGED_PROBABILITY, and the new choice worth
# VALUE_GAP more match utility (0.1 point of match-win probability) than the old one.
CHANGED_PROBABILITY = 0.2
VALUE_GAP = 1e-3


@njit(**_JIT)
def _terminal_codes(root, kind, child_start, num_children, edge_child, edge_action,
                    max_depth, codes):
    """codes[node] = the outcome code of each terminal node (-1 elsewhere): the engine
    replays the tree depth-first, one state per depth."""
    states = np.empty((max_depth + 1, len(root)), dtype=root.dtype)
    node_at = np.empty(max_depth + 1, dtype=np.int64)
    next_at = np.empty(max_depth + 1, dtype=np.int64)
    states[0, :] = root
    node_at[0], next_at[0] = 0, 0
    depth = 0
    while depth >= 0:
        node = node_at[depth]
        if next_at[depth] == 0 and kind[node] == TERMINAL:
            codes[node] = outcome_code(states[depth])
        if next_at[depth] < num_children[node]:
            e = child_start[node] + next_at[depth]
            next_at[depth] += 1
            states[depth + 1, :] = states[depth, :]
            engine.apply_action(states[depth + 1], edge_action[e])
            depth += 1
            node_at[depth], next_at[depth] = edge_child[e], 0
        else:
            depth -= 1


def terminal_codes(tree: GameTree) -> np.ndarray:
    """int64 per node: the outcome code of each terminal (by engine seat), -1 elsewhere."""
    codes = np.full(tree.num_nodes, -1, dtype=np.int64)
    depth = _tree_depth(tree.kind, tree.child_start, tree.num_children, tree.edge_child)
    _terminal_codes(tree.game.initial_array, tree.kind, tree.child_start,
                    tree.num_children, tree.edge_child, tree.edge_action, depth, codes)
    return codes


def with_table(tree: GameTree, codes: np.ndarray, table: np.ndarray) -> GameTree:
    """The tree with terminal utilities table[code] (a round-utility table,
    solver/sim/utility.py)."""
    utility = np.zeros_like(tree.utility)
    terminal = codes >= 0
    utility[terminal] = table[codes[terminal]]
    return dataclasses.replace(tree, utility=utility)


def node_reach(tree: GameTree, strategy: np.ndarray, arrays: TreeArrays | None = None
               ) -> np.ndarray:
    """Each node's probability of being reached (chance and every player) under strategy."""
    a = arrays or TreeArrays(tree)
    reach = np.zeros((tree.num_nodes, tree.num_players + 1))
    reach_sweep(a.kind, a.player, a.infoset, a.child_start, a.num_children, a.edge_child,
                a.edge_prob, a.offsets, strategy, a.num_players, reach)
    return reach.prod(axis=1)


def outcome_distribution(tree: GameTree, strategy: np.ndarray, codes: np.ndarray,
                         arrays: TreeArrays | None = None) -> np.ndarray:
    """(codes,): the exact probability of each round outcome (engine seats) under
    strategy."""
    reach = node_reach(tree, strategy, arrays)
    terminal = codes >= 0
    return np.bincount(codes[terminal], weights=reach[terminal],
                       minlength=num_codes(tree.num_players))


def seat_mix(tree: GameTree, strategies) -> np.ndarray:
    """The flat strategy with engine seat p's infosets from strategies[p]."""
    sizes = np.diff(tree.action_offsets())
    seat = np.repeat(tree.infoset_player.astype(np.int64), sizes)
    return np.choose(seat, [np.asarray(s) for s in strategies])


@dataclasses.dataclass
class Solved:
    strategy: np.ndarray
    exploitability: float  # with respect to the utility it was solved for
    seconds: float


def dcfr(tree: GameTree, iterations: int) -> Solved:
    """DCFR's average strategy after `iterations` on `tree` (its own utility)."""
    start = time.perf_counter()
    solver = CFRSolver(tree, "dcfr")
    for _ in range(iterations):
        solver.iteration()
    strategy = solver.average_strategy()
    return Solved(strategy, exploitability(tree, strategy, solver.arrays),
                  time.perf_counter() - start)


def per_starter(distribution: np.ndarray, players: int) -> np.ndarray:
    """(n, codes) by table seat: the engine-seat distribution of a round with the same
    policy at every seat, as started by each table seat."""
    out = np.zeros((players, len(distribution)))
    codes = np.arange(len(distribution), dtype=np.int64)
    for s in range(players):
        out[s, to_table(codes, players, s)] = distribution
    return out


def turn_order(standings, starter: int) -> tuple[int, ...]:
    """Table-seat standings as the round started by `starter` sees them (engine seats)."""
    n = len(standings)
    return tuple(int(standings[(starter + p) % n]) for p in range(n))


@dataclasses.dataclass
class MatchStudy:
    """Everything `study` computes (2 players)."""

    players: int
    goal: int
    iterations: int
    margin: Solved
    margin_values: MatchValues
    aware: dict  # turn-order standings -> Solved
    score: float  # the match-aware player's expected match score v margin, shared split
    score_by_seat: list[float]  # with the match-aware player at table seat 0, 1, ...
    win_rate: float  # its share of matches won, a shared win counted as a win
    margin_score: float  # the margin policy against itself (1/n by symmetry)
    positions: list[dict]
    seconds: float


def match_distributions(tree: GameTree, codes: np.ndarray, goal: int, aware: dict,
                        margin: np.ndarray, seat: int,
                        arrays: TreeArrays | None = None) -> np.ndarray:
    """(goal,)*n + (n, codes): at table standings t and starter s, the outcome
    distribution (table seats) of the round with `aware[turn-order standings]` at table
    seat `seat` and `margin` at the others."""
    n = tree.num_players
    out = np.zeros((goal,) * n + (n, num_codes(n)))
    all_codes = np.arange(num_codes(n), dtype=np.int64)
    for t in np.ndindex(*(goal,) * n):
        for s in range(n):
            mine = (seat - s) % n  # the match-aware player's engine seat
            strategies = [aware[turn_order(t, s)] if p == mine else margin for p in range(n)]
            dist = outcome_distribution(tree, seat_mix(tree, strategies), codes, arrays)
            out[t + (s,)][to_table(all_codes, n, s)] = dist
    return out


def match_score(probs: np.ndarray, goal: int, seat: int, split: bool = True) -> float:
    """The expected match score of table seat `seat` from 0 tokens each, the first
    starter random (R14): probs as `match_values` takes them."""
    win = match_values(probs, goal, split=split)
    n = win.shape[-1]
    return float(win[(0,) * n].mean(axis=0)[seat])


def study(tree: GameTree, goal: int, iterations: int,
          progress: Callable[[str], None] | None = None) -> MatchStudy:
    """The match-aware DCFR policy against the margin DCFR policy (module docstring), on
    a 2-player tree whose utility is the margin."""
    n = tree.num_players
    if n != 2:
        raise ValueError(f"the exact match study is for 2 players (the match-aware "
                         f"utility is zero-sum there), got {n}")
    start = time.perf_counter()
    codes = terminal_codes(tree)
    arrays = TreeArrays(tree)
    margin = dcfr(tree, iterations)
    say = progress or (lambda text: None)
    say(f"margin DCFR {iterations} it.: exploitability {margin.exploitability:.2e} "
        f"({margin.seconds:.1f} s)")
    base = outcome_distribution(tree, margin.strategy, codes, arrays)
    values = MatchValues(n, goal, match_values(per_starter(base, n), goal))
    aware, tables = {}, {}
    for t in np.ndindex(*(goal,) * n):
        tables[t] = round_utility_table(values, t, 0)
        aware[t] = dcfr(with_table(tree, codes, tables[t]), iterations)
        say(f"standings {t} (starter first): exploitability "
            f"{aware[t].exploitability:.2e} ({aware[t].seconds:.1f} s)")
    strategies = {t: solved.strategy for t, solved in aware.items()}
    by_seat, wins = [], []
    for seat in range(n):
        probs = match_distributions(tree, codes, goal, strategies, margin.strategy, seat,
                                    arrays)
        by_seat.append(match_score(probs, goal, seat))
        wins.append(match_score(probs, goal, seat, split=False))
    margin_score = match_score(per_starter(base, n), goal, 0)
    positions = changed_positions(tree, codes, margin.strategy, strategies, tables,
                                  arrays)
    return MatchStudy(n, goal, iterations, margin, values, aware, float(np.mean(by_seat)),
                      by_seat, float(np.mean(wins)), margin_score, positions,
                      time.perf_counter() - start)


def infoset_reach(tree: GameTree, strategy: np.ndarray, arrays: TreeArrays | None = None
                  ) -> np.ndarray:
    """Each infoset's probability of being reached (the sum over its nodes)."""
    reach = node_reach(tree, strategy, arrays)
    decision = tree.kind == DECISION
    return np.bincount(tree.infoset[decision], weights=reach[decision],
                       minlength=tree.num_infosets)


def action_values(tree: GameTree, strategy: np.ndarray, arrays: TreeArrays | None = None
                  ) -> np.ndarray:
    """Flat (infoset, action): the acting player's expected utility (the tree's) of each
    action under strategy, its histories weighted by the others' and chance's reach (the
    counterfactual value normalised by the infoset's counterfactual reach; 0 where that
    is 0)."""
    a = arrays or TreeArrays(tree)
    n = tree.num_players
    reach = np.zeros((tree.num_nodes, n + 1))
    reach_sweep(a.kind, a.player, a.infoset, a.child_start, a.num_children, a.edge_child,
                a.edge_prob, a.offsets, strategy, n, reach)
    value = np.zeros((tree.num_nodes, n))
    value_sweep(*a.args(), strategy, value)
    nodes = np.flatnonzero(tree.kind == DECISION)
    p = tree.player[nodes].astype(np.int64)
    own = reach[nodes, p]
    cf = np.divide(reach[nodes].prod(axis=1), own, out=np.zeros(len(nodes)), where=own > 0)
    # own reach 0: the product over the others is taken directly
    zero = own == 0
    if zero.any():
        others = reach[nodes[zero]].copy()
        others[np.arange(zero.sum()), p[zero]] = 1.0
        cf[zero] = others.prod(axis=1)
    counts = tree.num_children[nodes].astype(np.int64)
    parent = np.repeat(np.arange(len(nodes)), counts)
    step = np.arange(counts.sum()) - np.repeat(np.cumsum(counts) - counts, counts)
    edge = tree.child_start[nodes][parent] + step
    flat = a.offsets[tree.infoset[nodes]][parent] + step
    size = int(a.offsets[-1])
    q = np.bincount(flat, weights=cf[parent] * value[tree.edge_child[edge], p[parent]],
                    minlength=size)
    mass = np.bincount(flat, weights=cf[parent], minlength=size)
    return np.divide(q, mass, out=np.zeros(size), where=mass > 0)


def changed_positions(tree: GameTree, codes: np.ndarray, margin: np.ndarray, aware: dict,
                      tables: dict, arrays: TreeArrays | None = None) -> list[dict]:
    """Per turn-order standings: the infosets whose advice changes (the margin self-play
    reaches them; the match-aware policy's most likely action is another than the margin
    policy's; some action's probability moved by more than CHANGED_PROBABILITY; and by
    the match utility, under the match-aware profile, that action is worth at least
    VALUE_GAP more than the margin policy's choice: not an indifference between
    equilibria). Their number, their share of the round's decisions (reach-weighted,
    margin self-play), and the heaviest one as the example."""
    offsets = tree.action_offsets()
    weight = infoset_reach(tree, margin, arrays)
    total = weight.sum()
    infosets = np.arange(tree.num_infosets)
    owner = np.repeat(infosets, np.diff(offsets))
    best_margin = _argmax_rows(margin, offsets)
    rows = []
    for t, strategy in aware.items():
        change = np.zeros(tree.num_infosets)
        np.maximum.at(change, owner, np.abs(strategy - margin))
        best_aware = _argmax_rows(strategy, offsets)
        q = action_values(with_table(tree, codes, tables[t]), strategy)
        gap = q[offsets[:-1] + best_aware] - q[offsets[:-1] + best_margin]
        changed = ((best_aware != best_margin) & (change > CHANGED_PROBABILITY)
                   & (weight > 0) & (gap > VALUE_GAP))
        row = {"starter_tokens": int(t[0]), "other_tokens": int(t[1]),
               "changed_infosets": int(changed.sum()),
               "reach_share": float(weight[changed].sum() / total)}
        if changed.any():
            k = int(infosets[changed][np.argmax(weight[changed])])
            row["example"] = k
            row["example_gain"] = float(gap[k])
        rows.append(row)
    return rows


def _argmax_rows(strategy: np.ndarray, offsets: np.ndarray) -> np.ndarray:
    """Each infoset's most likely action (its index within the infoset; the first of
    equals)."""
    best = np.empty(len(offsets) - 1, dtype=np.int64)
    for i in range(len(best)):
        best[i] = np.argmax(strategy[offsets[i]:offsets[i + 1]])
    return best


def describe_examples(tree: GameTree, rows: list[dict], margin: np.ndarray,
                      aware: dict) -> None:
    """Replace each row's example infoset (`changed_positions`) by its player, its
    information-state string and each action's probability under the two policies."""
    actions, offsets = infoset_paths(tree)
    starts = tree.action_offsets()
    for row in rows:
        if "example" not in row:
            continue
        index = row["example"]
        strategy = aware[(row["starter_tokens"], row["other_tokens"])]
        state = tree.game.new_initial_state()
        for action in actions[offsets[index]:offsets[index + 1]].tolist():
            state.apply_action(action)
        player = int(tree.infoset_player[index])
        lo = starts[index]
        row["example"] = {
            "player": player, "information_state": state.information_state_string(player),
            "actions": [{"action": state.action_to_string(player, int(a)),
                         "margin": float(margin[lo + i]),
                         "match_aware": float(strategy[lo + i])}
                        for i, a in enumerate(tree.infoset_actions[index].tolist())]}
