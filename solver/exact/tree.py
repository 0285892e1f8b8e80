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
    """Flat arrays; node i's edges are edge_*[child_start[i]:][:num_children[i]]."""

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

    def action_offsets(self) -> np.ndarray:
        """Start of each infoset's actions in a flat (infoset, action) array."""
        sizes = np.array([len(a) for a in self.infoset_actions], dtype=np.int64)
        return np.concatenate([[0], np.cumsum(sizes)])


class _EngineWalk:
    """Tree walk over the compiled engine's state arrays (jabbas_palace games)."""

    def __init__(self, game: pyspiel.Game):
        self.root = game.initial_array
        self.returns_buf = np.zeros(game.num_players())
        self.buf = np.empty(L.NUM_ACTIONS, dtype=np.int32)
        self.outcomes = np.empty(L.MAX_CHARS, dtype=np.int32)
        self.probs = np.empty(L.MAX_CHARS, dtype=np.float64)

    def kind(self, s) -> int:
        return TERMINAL if engine.is_terminal(s) else CHANCE if engine.is_chance(s) else DECISION

    def returns(self, s) -> list[float]:
        engine.returns(s, self.returns_buf)
        return self.returns_buf.tolist()

    def chance(self, s):
        n = engine.chance_outcomes(s, self.outcomes, self.probs)
        return self.outcomes[:n].tolist(), self.probs[:n].tolist()

    def decision(self, s):
        """(player, infoset key, legal actions)."""
        n = engine.legal_actions(s, self.buf)
        p = int(engine.current_actor(s))
        return p, (p, ev.redact(ev.log_array(s), p).tobytes()), self.buf[:n].tolist()

    def child(self, s, action: int):
        child = s.copy()
        engine.apply_action(child, action)
        return child


class _SpielWalk:
    """Tree walk through the pyspiel API, for any game (e.g. kuhn_poker)."""

    def __init__(self, game: pyspiel.Game):
        self.root = game.new_initial_state()

    def kind(self, s) -> int:
        return TERMINAL if s.is_terminal() else CHANCE if s.is_chance_node() else DECISION

    def returns(self, s) -> list[float]:
        return s.returns()

    def chance(self, s):
        actions, probs = zip(*s.chance_outcomes())
        return list(actions), list(probs)

    def decision(self, s):
        p = s.current_player()
        return p, s.information_state_string(p), s.legal_actions()

    def child(self, s, action: int):
        return s.child(action)


def build_tree(game: pyspiel.Game, max_nodes: int = 20_000_000,
               through_pyspiel: bool = False) -> GameTree:
    """Walk the whole tree of `game`: with the compiled engine for jabbas_palace (unless
    `through_pyspiel`), else through the pyspiel API."""
    start = time.perf_counter()
    use_engine = game.get_type().short_name == "jabbas_palace" and not through_pyspiel
    walk = _EngineWalk(game) if use_engine else _SpielWalk(game)
    n_players = game.num_players()
    kind, player, infoset, child_start, num_children = [], [], [], [], []
    edge_child, edge_action, edge_prob = [], [], []
    utilities: dict[int, list[float]] = {}
    infoset_index: dict = {}
    infoset_player, infoset_actions, infoset_strings, infoset_node = [], [], [], []

    # Preorder with an explicit stack of (state, parent edge index to fill).
    stack = [(walk.root, -1)]
    while stack:
        s, parent_edge = stack.pop()
        node = len(kind)
        if node >= max_nodes:
            raise ValueError(f"game tree has more than {max_nodes} nodes; use a smaller deck")
        if parent_edge >= 0:
            edge_child[parent_edge] = node
        child_start.append(len(edge_child))
        node_kind = walk.kind(s)
        kind.append(node_kind)
        if node_kind == TERMINAL:
            player.append(-1)
            infoset.append(-1)
            num_children.append(0)
            utilities[node] = walk.returns(s)
            continue
        if node_kind == CHANCE:
            player.append(-1)
            infoset.append(-1)
            actions, probs = walk.chance(s)
        else:
            p, key, actions = walk.decision(s)
            index = infoset_index.get(key)
            if index is None:
                index = infoset_index[key] = len(infoset_player)
                infoset_player.append(p)
                infoset_actions.append(np.array(actions, dtype=np.int32))
                infoset_node.append(node)
                infoset_strings.append(key if isinstance(key, str) else None)
            player.append(p)
            infoset.append(index)
            probs = [1.0] * len(actions)
        num_children.append(len(actions))
        first_edge = len(edge_child)
        edge_child.extend([-1] * len(actions))
        edge_action.extend(actions)
        edge_prob.extend(probs)
        # Push in reverse so the first action's subtree is numbered first.
        for i in range(len(actions) - 1, -1, -1):
            stack.append((walk.child(s, int(actions[i])), first_edge + i))

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
    if any(text is None for text in infoset_strings):
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
