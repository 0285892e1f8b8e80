"""The whole game tree of a (reduced) game as flat arrays, for exact solving.

Nodes are stored in depth-first preorder, so every child comes after its parent: a
forward sweep sees parents first (reach probabilities), a backward sweep sees children
first (values). Information sets are keyed by the acting player's redacted event log
(spiel_game.events.redact), the same partition as OpenSpiel's information-state strings;
`infoset_strings` holds those strings for export and cross-checks, made on first use.

jabbas_palace trees are built by a compiled walk of the engine (`_compiled_walk`): no
Python per node, 50 bytes per node kept (the Python walk kept about 400), so trees of
tens of millions of nodes fit (the `large` deck: docs/performance.md "Game sizes"). It
numbers nodes and infosets exactly as the Python walk (`python_walk=True`, the reference
tests/test_tree_builder.py compares it with); other games are walked through pyspiel.
"""

from __future__ import annotations

import collections.abc
import dataclasses
import time

import numpy as np
import pyspiel
from numba import njit

from spiel_game import engine
from spiel_game import events as ev
from spiel_game import layout as L

from solver import games
from solver.abstraction.hashing import FNV_OFFSET, mix
from solver.abstraction.keys import redacted_event

DECISION, CHANCE, TERMINAL = 0, 1, 2


class FlatTree:
    """The sizes of a tree in flat arrays (GameTree; the search's Subgame)."""

    @property
    def num_nodes(self) -> int:
        return len(self.kind)

    @property
    def num_infosets(self) -> int:
        return len(self.infoset_player)

    @property
    def num_players(self) -> int:
        return self.utility.shape[1]


@dataclasses.dataclass(frozen=True)
class GameTree(FlatTree):
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
    # OpenSpiel information-state string per infoset (InfosetStrings: made on first use)
    infoset_strings: collections.abc.Sequence[str]
    infoset_node: np.ndarray  # int32: one node of each infoset
    build_seconds: float

    def action_offsets(self) -> np.ndarray:
        """Start of each infoset's actions in a flat (infoset, action) array."""
        sizes = np.array([len(a) for a in self.infoset_actions], dtype=np.int64)
        return np.concatenate([[0], np.cumsum(sizes)])


class _EngineWalk:
    """Tree walk over the compiled engine's state arrays (the engine's games)."""

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
               through_pyspiel: bool = False, python_walk: bool = False) -> GameTree:
    """Walk the whole tree of `game`: compiled over the engine for its games (unless
    `through_pyspiel`, or `python_walk`: the engine walked from Python, the compiled
    walk's reference), else through the pyspiel API. ValueError past `max_nodes` nodes."""
    start = time.perf_counter()
    # A game whose adapter walks compiled (the engine's games) does; another through the
    # pyspiel API (han_solo, OpenSpiel's games).
    adapter = games.find(game.get_type().short_name)
    on_engine = adapter is not None and adapter.capabilities.compiled_tree \
        and not through_pyspiel
    if on_engine and not python_walk:
        return _build_compiled(game, max_nodes, start)
    walk = _EngineWalk(game) if on_engine else _SpielWalk(game)
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
            raise _too_many_nodes(max_nodes)
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
    strings = (infoset_strings if all(text is not None for text in infoset_strings)
               else InfosetStrings(len(infoset_strings)))
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
        infoset_strings=strings,
        infoset_node=np.array(infoset_node, dtype=np.int32),
        build_seconds=time.perf_counter() - start)
    if isinstance(strings, InfosetStrings):
        strings.tree = tree
    return tree


def _too_many_nodes(max_nodes: int) -> ValueError:
    return ValueError(f"game tree has more than {max_nodes:,} nodes; use a smaller deck")


class InfosetStrings(collections.abc.Sequence):
    """OpenSpiel's information-state string of each infoset of a tree built from the
    engine, all made on first use from one history of each (pyspiel replays): a tree of
    millions of infosets makes them only if asked."""

    def __init__(self, count: int):
        self._count = count
        self._strings: list[str] | None = None
        self.tree: GameTree | None = None  # set once the tree exists

    def __len__(self) -> int:
        return self._count

    def __getitem__(self, index):
        if self._strings is None:
            self._strings = [state.information_state_string(int(self.tree.infoset_player[i]))
                             for i, state in infoset_states(self.tree)]
        return self._strings[index]

    def __eq__(self, other) -> bool:
        if not isinstance(other, collections.abc.Sequence):
            return NotImplemented
        return len(self) == len(other) and list(self) == list(other)

    __hash__ = None


# The compiled walk ------------------------------------------------------------------------
# One call walks until done or until an array is full; then _build_compiled grows the
# arrays in place (numpy resize remaps their pages) and calls again: the walk's own state
# (the path's states and its next children) lives in arrays that survive the return.

_WALK_DONE, _WALK_FULL, _WALK_TOO_MANY = 0, 1, 2
# Fields of the walk's control vector.
_C_DEPTH, _C_VISIT, _C_PARENT_EDGE, _C_NODES, _C_EDGES, _C_INFOSETS, _C_ACTIONS = range(7)
_C_SIZE = 7
_FIRST_SIZE = 1 << 12  # nodes first allocated (a power of 2); doubled as needed
_JIT = dict(cache=True, nogil=True)
_GOLDEN = np.uint64(0x9E3779B97F4A7C15)


@njit(inline="always", **_JIT)
def _mix_pair(a, b, value):
    """Two independent 64-bit hashes extended by one int: the keys' FNV-1a mixer
    (solver/abstraction/hashing.py) and a splitmix64 finaliser; 128 bits make a
    collision among 10^8 infosets ~10^-23 likely."""
    a = mix(a, value)
    b = (b + np.uint64(value + 3)) * _GOLDEN
    b ^= b >> np.uint64(31)
    b *= np.uint64(0xBF58476D1CE4E5B9)
    b ^= b >> np.uint64(29)
    return a, b


@njit(**_JIT)
def _infoset_hash(s, player):
    """(player, the log as `player` sees it: events.redact) as two 64-bit hashes."""
    a, b = _mix_pair(FNV_OFFSET, _GOLDEN, player)
    for i in range(s[L.S_EVENT_N]):
        kind, actor, other, card, extra = redacted_event(s, i, player)
        a, b = _mix_pair(a, b, kind)
        a, b = _mix_pair(a, b, actor)
        a, b = _mix_pair(a, b, other)
        a, b = _mix_pair(a, b, card)
        a, b = _mix_pair(a, b, extra)
    return a, b


@njit(**_JIT)
def _find(hash_a, hash_b, hash_index, a, b):
    """Slot of (a, b) in the open-addressing infoset hash, or the empty slot for it."""
    mask = len(hash_index) - 1
    j = np.int64(a & np.uint64(mask))
    while hash_index[j] >= 0 and (hash_a[j] != a or hash_b[j] != b):
        j = (j + 1) & mask
    return j


@njit(**_JIT)
def _rehash(hash_a, hash_b, hash_index, new_a, new_b, new_index):
    for j in range(len(hash_index)):
        if hash_index[j] >= 0:
            k = _find(new_a, new_b, new_index, hash_a[j], hash_b[j])
            new_a[k], new_b[k], new_index[k] = hash_a[j], hash_b[j], hash_index[j]


@njit(**_JIT)
def _compiled_walk(states, num_actions, next_child, first_edge, control, max_nodes,
                   kind, player, infoset, child_start, num_children, utility,
                   edge_child, edge_action, edge_prob,
                   infoset_player, infoset_node, action_start, action_flat,
                   hash_a, hash_b, hash_index, returns):
    """Preorder walk from states[0] (the `python_walk` order: a node, then its children's
    subtrees in action order), resumable: returns _WALK_FULL before a node that might not
    fit the arrays (the caller grows them and calls again), _WALK_TOO_MANY past
    max_nodes, _WALK_DONE at the end. control: _C_* fields."""
    buf = np.empty(L.NUM_ACTIONS, dtype=np.int32)
    probs = np.empty(L.NUM_ACTIONS, dtype=np.float64)
    depth = control[_C_DEPTH]
    while True:
        if control[_C_VISIT] == 1:
            nodes, edges = control[_C_NODES], control[_C_EDGES]
            infosets, actions = control[_C_INFOSETS], control[_C_ACTIONS]
            if nodes >= max_nodes:
                return _WALK_TOO_MANY
            if (nodes >= len(kind) or edges + L.NUM_ACTIONS > len(edge_child)
                    or infosets + 1 >= len(infoset_player)
                    or 2 * (infosets + 1) > len(hash_index)
                    or actions + L.NUM_ACTIONS > len(action_flat)):
                control[_C_DEPTH] = depth
                return _WALK_FULL
            s = states[depth]
            parent_edge = control[_C_PARENT_EDGE]
            if parent_edge >= 0:
                edge_child[parent_edge] = nodes
            child_start[nodes] = edges
            n = 0
            if engine.is_terminal(s):
                kind[nodes] = TERMINAL
                player[nodes] = -1
                infoset[nodes] = -1
                engine.returns(s, returns)
                for q in range(len(returns)):
                    utility[nodes, q] = returns[q]
            elif engine.is_chance(s):
                kind[nodes] = CHANCE
                player[nodes] = -1
                infoset[nodes] = -1
                n = engine.chance_outcomes(s, buf, probs)
            else:
                kind[nodes] = DECISION
                p = engine.current_actor(s)
                n = engine.legal_actions(s, buf)
                for i in range(n):
                    probs[i] = 1.0
                a, b = _infoset_hash(s, p)
                j = _find(hash_a, hash_b, hash_index, a, b)
                if hash_index[j] < 0:
                    hash_a[j], hash_b[j], hash_index[j] = a, b, infosets
                    infoset_player[infosets] = p
                    infoset_node[infosets] = nodes
                    action_start[infosets] = actions
                    for i in range(n):
                        action_flat[actions + i] = buf[i]
                    control[_C_ACTIONS] = actions + n
                    control[_C_INFOSETS] = infosets + 1
                player[nodes] = p
                infoset[nodes] = hash_index[j]
            num_children[nodes] = n
            for i in range(n):
                edge_child[edges + i] = -1
                edge_action[edges + i] = buf[i]
                edge_prob[edges + i] = probs[i]
            num_actions[depth] = n
            next_child[depth] = 0
            first_edge[depth] = edges
            control[_C_NODES] = nodes + 1
            control[_C_EDGES] = edges + n
            control[_C_VISIT] = 0
        # On to the next child, backing up as far as needed.
        while depth >= 0 and next_child[depth] == num_actions[depth]:
            depth -= 1
        if depth < 0:
            control[_C_DEPTH] = depth
            return _WALK_DONE
        i = next_child[depth]
        next_child[depth] = i + 1
        edge = first_edge[depth] + i
        parent, child = states[depth], states[depth + 1]
        for k in range(L.S_EVENTS + parent[L.S_EVENT_N] * L.EVENT_SIZE):
            child[k] = parent[k]
        engine.apply_action(child, edge_action[edge])
        control[_C_PARENT_EDGE] = edge
        control[_C_VISIT] = 1
        depth += 1


def _build_compiled(game: pyspiel.Game, max_nodes: int, start: float) -> GameTree:
    """build_tree by `_compiled_walk`, the arrays doubled whenever it stops for room."""
    n_players = game.num_players()
    depth = game.max_game_length() + 2
    root = game.initial_array
    states = np.zeros((depth, len(root)), dtype=root.dtype)
    states[0] = root
    num_actions = np.zeros(depth, dtype=np.int64)
    next_child = np.zeros(depth, dtype=np.int64)
    first_edge = np.zeros(depth, dtype=np.int64)
    control = np.zeros(_C_SIZE, dtype=np.int64)
    control[_C_VISIT], control[_C_PARENT_EDGE] = 1, -1
    nodes, infosets, hash_slots = _FIRST_SIZE, _FIRST_SIZE // 4, _FIRST_SIZE
    node_arrays = [np.zeros(nodes, dtype=np.int8), np.zeros(nodes, dtype=np.int8),
                   np.zeros(nodes, dtype=np.int32), np.zeros(nodes, dtype=np.int64),
                   np.zeros(nodes, dtype=np.int32)]
    utility = np.zeros((nodes, n_players), dtype=np.float64)
    edge_arrays = [np.zeros(nodes, dtype=np.int32), np.zeros(nodes, dtype=np.int32),
                   np.zeros(nodes, dtype=np.float64)]
    infoset_arrays = [np.zeros(infosets, dtype=np.int8), np.zeros(infosets, dtype=np.int32),
                      np.zeros(infosets, dtype=np.int64)]
    action_flat = np.zeros(4 * infosets, dtype=np.int32)
    hashes = [np.zeros(hash_slots, dtype=np.uint64), np.zeros(hash_slots, dtype=np.uint64),
              np.full(hash_slots, -1, dtype=np.int32)]
    returns = np.zeros(n_players, dtype=np.float64)
    while True:
        status = _compiled_walk(states, num_actions, next_child, first_edge, control,
                                max_nodes, *node_arrays, utility, *edge_arrays,
                                *infoset_arrays, action_flat, *hashes, returns)
        if status == _WALK_DONE:
            break
        if status == _WALK_TOO_MANY:
            raise _too_many_nodes(max_nodes)
        used = control[_C_NODES], control[_C_EDGES], control[_C_INFOSETS]
        if used[0] >= len(node_arrays[0]):
            for array in node_arrays:
                array.resize(2 * len(array), refcheck=False)
            utility.resize((2 * len(utility), n_players), refcheck=False)
        if used[1] + L.NUM_ACTIONS > len(edge_arrays[0]):
            for array in edge_arrays:
                array.resize(2 * len(array), refcheck=False)
        if used[2] + 1 >= len(infoset_arrays[0]):
            for array in infoset_arrays:
                array.resize(2 * len(array), refcheck=False)
        if control[_C_ACTIONS] + L.NUM_ACTIONS > len(action_flat):
            action_flat.resize(2 * len(action_flat), refcheck=False)
        if 2 * (used[2] + 1) > len(hashes[2]):
            grown = [np.zeros(2 * len(hashes[0]), dtype=np.uint64),
                     np.zeros(2 * len(hashes[0]), dtype=np.uint64),
                     np.full(2 * len(hashes[0]), -1, dtype=np.int32)]
            _rehash(*hashes, *grown)
            hashes = grown
    del hashes, states
    nodes, edges, infosets = (int(x) for x in control[[_C_NODES, _C_EDGES, _C_INFOSETS]])
    for array in node_arrays:
        array.resize(nodes, refcheck=False)  # shrinking in place: no copy
    utility.resize((nodes, n_players), refcheck=False)
    for array in edge_arrays:
        array.resize(edges, refcheck=False)
    for array in infoset_arrays:
        array.resize(infosets, refcheck=False)
    action_start = infoset_arrays[2]
    actions_used = int(control[_C_ACTIONS])
    action_flat.resize(actions_used, refcheck=False)
    infoset_actions = np.split(action_flat, action_start[1:]) if infosets else []
    strings = InfosetStrings(infosets)
    kind, player, infoset, child_start, num_children = node_arrays
    edge_child, edge_action, edge_prob = edge_arrays
    tree = GameTree(
        game=game, kind=kind, player=player, infoset=infoset, child_start=child_start,
        num_children=num_children, edge_child=edge_child, edge_action=edge_action,
        edge_prob=edge_prob, utility=utility, infoset_player=infoset_arrays[0],
        infoset_actions=infoset_actions, infoset_strings=strings,
        infoset_node=infoset_arrays[1], build_seconds=time.perf_counter() - start)
    strings.tree = tree
    return tree


# Histories of nodes ------------------------------------------------------------------------

@njit(**_JIT)
def _paths_to(child_start, num_children, edge_child, edge_action, wanted, max_depth,
              lengths, offsets, actions):
    """Depth-first over the tree arrays: for each node with wanted[node] = k >= 0, its
    path from the root (the actions of its edges). With actions empty: only the lengths,
    lengths[k]; else the path of k into actions[offsets[k]:]."""
    path = np.empty(max_depth, dtype=np.int32)
    node_at = np.empty(max_depth + 1, dtype=np.int64)
    next_at = np.empty(max_depth + 1, dtype=np.int64)
    fill = len(actions) > 0
    depth = 0
    node_at[0], next_at[0] = 0, 0
    while True:
        node = node_at[depth]
        if next_at[depth] == 0:
            k = wanted[node]
            if k >= 0:
                if fill:
                    for i in range(depth):
                        actions[offsets[k] + i] = path[i]
                else:
                    lengths[k] = depth
        if next_at[depth] < num_children[node]:
            e = child_start[node] + next_at[depth]
            next_at[depth] += 1
            path[depth] = edge_action[e]
            depth += 1
            node_at[depth], next_at[depth] = edge_child[e], 0
        else:
            depth -= 1
            if depth < 0:
                return


def infoset_paths(tree: GameTree) -> tuple[np.ndarray, np.ndarray]:
    """(actions, offsets): infoset k's node `infoset_node[k]` is reached from the root by
    actions[offsets[k]:offsets[k + 1]] (chance outcomes and decisions; forced steps are
    not nodes and are settled by the engine)."""
    wanted = np.full(tree.num_nodes, -1, dtype=np.int32)
    wanted[tree.infoset_node] = np.arange(tree.num_infosets, dtype=np.int32)
    max_depth = _tree_depth(tree.kind, tree.child_start, tree.num_children,
                            tree.edge_child) + 1
    lengths = np.zeros(tree.num_infosets, dtype=np.int64)
    empty = np.zeros(0, dtype=np.int32)
    args = (tree.child_start, tree.num_children, tree.edge_child, tree.edge_action, wanted,
            max_depth)
    _paths_to(*args, lengths, lengths, empty)
    offsets = np.concatenate([[0], np.cumsum(lengths)]).astype(np.int64)
    actions = np.zeros(max(1, int(offsets[-1])), dtype=np.int32)
    _paths_to(*args, lengths, offsets, actions)
    return actions[:offsets[-1]], offsets


@njit(**_JIT)
def _tree_depth(kind, child_start, num_children, edge_child):
    """The most edges on a root-to-leaf path (children come after their parents)."""
    depth = np.zeros(len(kind), dtype=np.int32)
    deepest = 0
    for node in range(len(kind)):
        for e in range(child_start[node], child_start[node] + num_children[node]):
            depth[edge_child[e]] = depth[node] + 1
            deepest = max(deepest, depth[node] + 1)
    return deepest


def infoset_states(tree: GameTree):
    """Yield (infoset index, a pyspiel state in that infoset), in infoset order."""
    actions, offsets = infoset_paths(tree)
    for index in range(tree.num_infosets):
        state = tree.game.new_initial_state()
        for action in actions[offsets[index]:offsets[index + 1]].tolist():
            state.apply_action(action)
        yield index, state
