"""The whole game tree of a (reduced) game as flat arrays, for exact solving.

Nodes are stored in depth-first preorder, so every child comes after its parent: a
forward sweep sees parents first (reach probabilities), a backward sweep sees children
first (values). Information sets are keyed by the acting player's redacted event log
(spiel_game.events.redact), the same partition as OpenSpiel's information-state strings;
`infoset_strings` holds those strings for export and cross-checks.
"""

from __future__ import annotations

import dataclasses
import time

import numpy as np
import pyspiel

from spiel_game import engine
from spiel_game import events as ev
from spiel_game import layout as L

DECISION, CHANCE, TERMINAL = 0, 1, 2


@dataclasses.dataclass(frozen=True)
class GameTree:
    """Flat arrays; node i's edges are edge_* [child_start[i] : child_start[i] + num_children[i]]."""

    game: pyspiel.Game
    kind: np.ndarray  # int8 per node: DECISION, CHANCE or TERMINAL
    player: np.ndarray  # int8 per node, -1 unless DECISION
    infoset: np.ndarray  # int32 per node, -1 unless DECISION
    child_start: np.ndarray  # int64 per node
    num_children: np.ndarray  # int32 per node
    edge_child: np.ndarray  # int32 per edge
    edge_action: np.ndarray  # int32 per edge
    edge_prob: np.ndarray  # float64 per edge: chance probability (1 for decisions)
    utility: np.ndarray  # float64 (nodes, players), zero except at terminals
    infoset_player: np.ndarray  # int8 per infoset
    infoset_actions: list[np.ndarray]  # legal action ids per infoset, ascending
    infoset_strings: list[str]  # OpenSpiel information-state string per infoset
    infoset_node: np.ndarray  # int32: one node of each infoset
    build_seconds: float

    @property
    def num_nodes(self) -> int:
        return len(self.kind)

    @property
    def num_infosets(self) -> int:
        return len(self.infoset_player)

    @property
    def num_players(self) -> int:
        return self.utility.shape[1]

    @property
    def max_actions(self) -> int:
        return max(len(a) for a in self.infoset_actions)

    def action_offsets(self) -> np.ndarray:
        """Start of each infoset's actions in a flat (infoset, action) array."""
        sizes = np.array([len(a) for a in self.infoset_actions], dtype=np.int64)
        return np.concatenate([[0], np.cumsum(sizes)])


def build_tree(game: pyspiel.Game, max_nodes: int = 20_000_000) -> GameTree:
    """Walk the whole tree of `game` (a jabbas_palace game) with the compiled engine."""
    start = time.perf_counter()
    n_players = game.num_players()
    kind, player, infoset, child_start, num_children = [], [], [], [], []
    edge_child, edge_action, edge_prob = [], [], []
    utilities: dict[int, list[float]] = {}
    infoset_index: dict[tuple[int, bytes], int] = {}
    infoset_player, infoset_actions, infoset_strings, infoset_node = [], [], [], []
    buf = np.empty(L.NUM_ACTIONS, dtype=np.int32)
    outcomes = np.empty(L.MAX_CHARS, dtype=np.int32)
    probs = np.empty(L.MAX_CHARS, dtype=np.float64)
    returns = np.zeros(n_players, dtype=np.float64)

    # Preorder with an explicit stack of (state array, parent edge index to fill).
    stack = [(game.initial_array.copy(), -1)]
    while stack:
        s, parent_edge = stack.pop()
        node = len(kind)
        if node >= max_nodes:
            raise ValueError(f"game tree has more than {max_nodes} nodes; use a smaller deck")
        if parent_edge >= 0:
            edge_child[parent_edge] = node
        child_start.append(len(edge_child))
        if engine.is_terminal(s):
            kind.append(TERMINAL)
            player.append(-1)
            infoset.append(-1)
            num_children.append(0)
            engine.returns(s, returns)
            utilities[node] = returns.tolist()
            continue
        if engine.is_chance(s):
            n = engine.chance_outcomes(s, outcomes, probs)
            kind.append(CHANCE)
            player.append(-1)
            infoset.append(-1)
            actions, action_probs = outcomes[:n].copy(), probs[:n].copy()
        else:
            n = engine.legal_actions(s, buf)
            p = int(engine.current_actor(s))
            key = (p, ev.redact(ev.log_array(s), p).tobytes())
            index = infoset_index.get(key)
            if index is None:
                index = infoset_index[key] = len(infoset_player)
                infoset_player.append(p)
                infoset_actions.append(buf[:n].copy())
                infoset_node.append(node)
                infoset_strings.append(None)
            kind.append(DECISION)
            player.append(p)
            infoset.append(index)
            actions, action_probs = buf[:n].copy(), np.ones(n)
        num_children.append(n)
        first_edge = len(edge_child)
        edge_child.extend([-1] * n)
        edge_action.extend(actions.tolist())
        edge_prob.extend(action_probs.tolist())
        # Push in reverse so the first action's subtree is numbered first.
        for i in range(n - 1, -1, -1):
            child = s.copy()
            engine.apply_action(child, int(actions[i]))
            stack.append((child, first_edge + i))

    utility = np.zeros((len(kind), n_players), dtype=np.float64)
    for node, values in utilities.items():
        utility[node] = values
    tree = GameTree(
        game=game,
        kind=np.array(kind, dtype=np.int8),
        player=np.array(player, dtype=np.int8),
        infoset=np.array(infoset, dtype=np.int32),
        child_start=np.array(child_start, dtype=np.int64),
        num_children=np.array(num_children, dtype=np.int32),
        edge_child=np.array(edge_child, dtype=np.int32),
        edge_action=np.array(edge_action, dtype=np.int32),
        edge_prob=np.array(edge_prob, dtype=np.float64),
        utility=utility,
        infoset_player=np.array(infoset_player, dtype=np.int8),
        infoset_actions=infoset_actions,
        infoset_strings=infoset_strings,
        infoset_node=np.array(infoset_node, dtype=np.int32),
        build_seconds=time.perf_counter() - start)
    _fill_infoset_strings(tree)
    return tree


def infoset_states(tree: GameTree):
    """Yield (infoset index, a pyspiel state in that infoset), in infoset order."""
    history = _histories_of(tree, set(tree.infoset_node.tolist()))
    for index, node in enumerate(tree.infoset_node.tolist()):
        state = tree.game.new_initial_state()
        for action in history[node]:
            state.apply_action(action)
        yield index, state


def _fill_infoset_strings(tree: GameTree) -> None:
    """OpenSpiel's string for each infoset, from one of its histories."""
    for index, state in infoset_states(tree):
        tree.infoset_strings[index] = state.information_state_string(
            int(tree.infoset_player[index]))


def _histories_of(tree: GameTree, wanted: set[int]) -> dict[int, list[int]]:
    """Action paths (excluding forced, auto-resolved steps) to the wanted nodes."""
    paths: dict[int, list[int]] = {}
    stack = [(0, [])]
    while stack:
        node, path = stack.pop()
        if node in wanted:
            paths[node] = path
            if len(paths) == len(wanted):
                break
        start = tree.child_start[node]
        for e in range(start, start + tree.num_children[node]):
            stack.append((int(tree.edge_child[e]), path + [int(tree.edge_action[e])]))
    return paths
