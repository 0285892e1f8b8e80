"""The OpenSpiel game `sarlaccs_pit`: Star Wars: Return of the Jedi – Battle at Sarlacc's
Pit (docs/RULES.md S1-S13), a thin wrapper over the compiled engine.

    pyspiel.load_game("sarlaccs_pit", {"players": 3, "board": "my_barge.toml"})

States serialize as their action history, one id per line.
"""

from __future__ import annotations

import dataclasses

import numpy as np
import pyspiel

from ..game import ArrayGame, ArrayState, card_game_type
from . import engine
from . import layout as L
from .board import Board, load_board

DEFAULT_NUMBERS = "1:3+2:3+3:3+4:4+5:3+6:3"  # S2: 19 Number cards
DEFAULT_DIRECTIONS = "any_space:2+change_places:2+take_force:2"  # S2: 6 Direction cards
FORCE_CARDS = 6  # the rulebook's count
JABBA_CARDS = 4  # the rulebook's count
UTILITIES = {"margin": L.UTIL_MARGIN, "points": L.UTIL_POINTS}
DEFAULTS = {"players": 2, "numbers": DEFAULT_NUMBERS, "directions": DEFAULT_DIRECTIONS,
            "board": "default", "utility": "margin", "max_turns": 1000}
MAX_TURNS = 10_000
EVENTS_PER_TURN = 6  # S11: the log's room per turn, past the deal


def parse_counts(name: str, text: str, kinds: tuple[str, ...], default: str) -> list[int]:
    """Counts per kind from "kind:COUNT+kind:COUNT"; kinds left out have none. ValueError
    saying what is wrong and what is allowed."""
    counts = [0] * len(kinds)
    form = (f"write kind:COUNT joined by '+', kinds {', '.join(kinds)}, e.g. {default!r}")
    if not isinstance(text, str) or not text.strip():
        raise ValueError(f"{name}={text!r}: {form}")
    for part in text.split("+"):
        kind, _, count = part.strip().partition(":")
        if kind not in kinds or not count.isdigit():
            raise ValueError(f"{name}={text!r}: cannot read {part!r}; {form}")
        k = kinds.index(kind)
        if counts[k]:
            raise ValueError(f"{name}={text!r}: {kind} is given twice")
        counts[k] = int(count)
        if not 1 <= counts[k] <= 20:
            raise ValueError(f"{name}={text!r}: {part!r} needs 1 to 20 cards")
    return counts


@dataclasses.dataclass(frozen=True)
class Config:
    """Validated parameters of a sarlaccs_pit game."""

    players: int
    numbers: tuple[int, ...]  # count of each Number card 1-6 (S2)
    directions: tuple[int, ...]  # count of each Direction card kind (S2)
    board: Board
    utility: str
    max_turns: int

    @classmethod
    def from_params(cls, params: dict) -> Config:
        unknown = set(params) - set(DEFAULTS)
        if unknown:
            raise ValueError(f"unknown parameter(s) {sorted(unknown)}; allowed: "
                             f"{sorted(DEFAULTS)}")
        p = {**DEFAULTS, **params}
        for name, (low, high) in {"players": (2, L.MAX_PLAYERS),
                                  "max_turns": (1, MAX_TURNS)}.items():
            v = p[name]
            if isinstance(v, bool) or not isinstance(v, int) or not low <= v <= high:
                raise ValueError(f"{name}={v!r}: must be a whole number from {low} to {high}")
        if p["utility"] not in UTILITIES:
            raise ValueError(f"utility={p['utility']!r}: allowed are {', '.join(UTILITIES)}")
        numbers = parse_counts("numbers", p["numbers"], tuple(str(v) for v in range(1, 7)),
                               DEFAULT_NUMBERS)
        directions = parse_counts("directions", p["directions"], L.DIRECTION_NAMES,
                                  DEFAULT_DIRECTIONS)
        cfg = cls(p["players"], tuple(numbers), tuple(directions), load_board(p["board"]),
                  p["utility"], p["max_turns"])
        need = L.HAND_SIZE * cfg.players + 1
        if cfg.deck_size < need:
            raise ValueError(f"numbers={p['numbers']!r}, directions={p['directions']!r}: "
                             f"{cfg.deck_size} cards besides the Jabba cards, but "
                             f"{cfg.players} players need at least {need} (four each and "
                             "one to draw)")
        return cfg

    @property
    def deck_size(self) -> int:
        """The cards dealt from: all but the Jabba cards (S3)."""
        return sum(self.numbers) + FORCE_CARDS + sum(self.directions)

    def pile_counts(self) -> np.ndarray:
        counts = np.zeros(L.NUM_KINDS, dtype=np.int32)
        counts[L.NUMBER:L.NUMBER + L.MAX_NUMBER] = self.numbers
        counts[L.FORCE] = FORCE_CARDS
        counts[L.ANY_SPACE:L.ANY_SPACE + len(self.directions)] = self.directions
        return counts

    @property
    def max_events(self) -> int:
        """S11: the log's size; every action logs an event, so also the longest game."""
        return L.HAND_SIZE * self.players + EVENTS_PER_TURN * self.max_turns + 16

    @property
    def total_points(self) -> int:
        return self.board.guard_points() + L.JABBA_POINTS

    def utility_bounds(self) -> tuple[float, float]:
        total, n = float(self.total_points), self.players
        if self.utility == "points":
            return 0.0, total
        return -total / (n - 1), total


def _game_type(utility: str = "margin") -> pyspiel.GameType:
    return card_game_type("sarlaccs_pit", "Star Wars: Return of the Jedi - Battle at "
                          "Sarlacc's Pit", utility, L.MAX_PLAYERS, DEFAULTS)


class SarlaccGame(ArrayGame):
    """Battle at Sarlacc's Pit on the compiled engine."""

    def __init__(self, params: dict | None = None):
        self.config = cfg = Config.from_params(dict(params or {}))
        low, high = cfg.utility_bounds()
        info = pyspiel.GameInfo(
            num_distinct_actions=L.NUM_ACTIONS,
            max_chance_outcomes=L.NUM_KINDS,
            num_players=cfg.players,
            min_utility=low,
            max_utility=high,
            utility_sum=0.0 if cfg.utility == "margin" else None,
            max_game_length=cfg.max_events)
        super().__init__(_game_type(cfg.utility), info, {**DEFAULTS, **dict(params or {})})
        self.initial_array = engine.new_state(
            cfg.players, UTILITIES[cfg.utility], cfg.max_turns, cfg.max_events,
            cfg.pile_counts(), JABBA_CARDS, cfg.board)


@dataclasses.dataclass(frozen=True)
class View:
    """Read-only view of a state for tests and tools. Spaces are board ids."""

    hands: tuple[tuple[int, ...], ...]  # count per card kind
    positions: tuple[int, ...]  # each hero's space, L.DETENTION in the Detention Area
    points: tuple[int, ...]
    guards: dict[int, int]  # space -> guard kind, the guards still standing
    jabba: int
    pile: tuple[int, ...]  # count per card kind
    discard: tuple[int, ...]
    phase: str
    chance: str | None
    current: int
    turn: int
    blocked: bool
    winner: int | None  # who defeated Jabba
    end: str | None  # "jabba", "turns" or "log" once over


END_NAMES = ("jabba", "turns", "log")


class SarlaccState(ArrayState):
    """A state of a game of Battle at Sarlacc's Pit."""

    _engine, _num_actions, _num_outcomes = engine, L.NUM_ACTIONS, L.NUM_KINDS
    _over = "the game is over"

    @property
    def board(self) -> Board:
        # Read through the game, not kept: pyspiel's clone deep-copies every attribute.
        return self.get_game().config.board

    def _action_to_string(self, player: int, action: int) -> str:
        if player == pyspiel.PlayerId.CHANCE:
            if not 0 <= action < L.NUM_KINDS:
                return f"chance outcome {action} (not a card kind)"
            s = self._s
            if s[L.S_CHANCE_KIND] == L.CH_DEAL:
                return f"deal {L.card_name(action)} to p{s[L.S_DEAL_TO]}"
            return f"p{s[L.S_CUR]} draws {L.card_name(action)}"
        return action_to_string(action, self.board)

    def is_terminal(self) -> bool:
        return bool(self._s[L.S_PHASE] == L.PH_TERMINAL)

    def returns(self) -> list[float]:
        out = np.zeros(int(self._s[L.S_NUM_PLAYERS]), dtype=np.float64)
        engine.returns(self._s, out)
        return out.tolist()

    def serialize(self) -> str:
        return "".join(f"{a}\n" for a in self.history())

    def hand(self, player: int) -> tuple[int, ...]:
        """Count per card kind in `player`'s hand."""
        at = L.S_HAND + player * L.NUM_KINDS
        return tuple(self._s[at:at + L.NUM_KINDS].tolist())

    def winners(self) -> tuple[int, ...]:
        """S13: once the game is over, every player with the most Jedi points (a tie is a
        shared win); before, none."""
        if not self.is_terminal():
            return ()
        points = self.view().points
        return tuple(p for p, x in enumerate(points) if x == max(points))

    def events(self, viewer: int | None = None) -> list[tuple[int, int, int]]:
        """(kind, player, value) per event; a dealt or drawn card hidden (L.HIDDEN) from
        everyone but its receiver, unless it is a Jabba card (S12)."""
        s = self._s
        n = int(s[L.S_EVENT_N])
        rows = s[L.S_EVENTS:L.S_EVENTS + n * L.EVENT_SIZE].reshape(n, L.EVENT_SIZE).copy()
        if viewer is not None:
            rows[_hidden_rows(rows, viewer), 2] = L.HIDDEN
        return [tuple(r) for r in rows.tolist()]

    def view(self) -> View:
        s = self._s
        n = int(s[L.S_NUM_PLAYERS])
        phase = int(s[L.S_PHASE])
        guards = {i: int(s[L.S_GUARD + i]) - 1 for i in range(self.board.size)
                  if s[L.S_GUARD + i]}
        return View(
            hands=tuple(self.hand(p) for p in range(n)),
            positions=tuple(s[L.S_POS:L.S_POS + n].tolist()),
            points=tuple(s[L.S_POINTS:L.S_POINTS + n].tolist()),
            guards=guards,
            jabba=int(s[L.S_JABBA]),
            pile=tuple(s[L.S_PILE:L.S_PILE + L.NUM_KINDS].tolist()),
            discard=tuple(s[L.S_DISCARD:L.S_DISCARD + L.NUM_KINDS].tolist()),
            phase=L.PHASE_NAMES[phase],
            chance=L.CHANCE_NAMES[s[L.S_CHANCE_KIND]] if phase == L.PH_CHANCE else None,
            current=int(s[L.S_CUR]),
            turn=int(s[L.S_TURN]),
            blocked=bool(s[L.S_BLOCKED]),
            winner=None if s[L.S_WINNER] < 0 else int(s[L.S_WINNER]),
            end=None if s[L.S_END] < 0 else END_NAMES[s[L.S_END]])

    def __str__(self) -> str:
        v, names = self.view(), self.board.names
        lines = [f"turn {v.turn} phase: {v.phase} jabba: {names[v.jabba]} "
                 f"guards: {len(v.guards)} pile: {sum(v.pile)} discard: {sum(v.discard)}"]
        for p, hand in enumerate(v.hands):
            lines.append(f"p{p} {L.HEROES[p]} at {_where(v.positions[p], names)} points "
                         f"{v.points[p]} hand [{_cards(hand)}]")
        return "\n".join(lines)


def _hidden_rows(rows: np.ndarray, viewer: int) -> np.ndarray:
    """S12: the rows a viewer may not see the value of."""
    private = (rows[:, 0] == L.E_DEAL) | ((rows[:, 0] == L.E_DRAW) & (rows[:, 2] != L.JABBA))
    return private & (rows[:, 1] != viewer)


def _where(space: int, names) -> str:
    return "detention" if space == L.DETENTION else names[space]


def _cards(counts) -> str:
    return ", ".join(f"{L.card_name(k)}" + (f" x{c}" if c > 1 else "")
                     for k, c in enumerate(counts) if c)


def action_to_string(action: int, board: Board) -> str:
    """A decision as text: 'play 4', 'move to c3', 'challenge left2', 'Jabba to grey_b'."""
    what, arg = L.decode(action)
    if what in ("play", "discard"):
        return f"{what} {L.card_name(arg)}" + (" (no effect)" if what == "discard" else "")
    if what == "move":
        return f"move to {board.names[arg] if arg < board.size else arg}"
    if what == "target":
        return f"choose p{arg}"
    if what == "challenge":
        return f"challenge {board.names[arg] if arg < board.size else arg}"
    if what == "jabba_to":
        grey = board.names[board.greys[arg]] if arg < len(board.greys) else arg
        return f"Jabba to {grey}"
    return {"pass": "pass", "retreat": "retreat one space", "force_on_jabba":
            "play The Force on Jabba", "draw_on_jabba": "draw against Jabba"}[what]


def describe(event: tuple[int, int, int], board: Board) -> str:
    """One event as text: 'p0 play 4', 'p1 move c3', 'p0 draw ?', 'reshuffle 12'."""
    kind, player, value = event
    name = L.EVENT_NAMES[kind]
    if kind == L.E_RESHUFFLE:
        return f"reshuffle {value}"
    if kind == L.E_END:
        return f"end {END_NAMES[value]}"
    if kind in (L.E_DEAL, L.E_DRAW, L.E_SHOWN, L.E_PLAY, L.E_DISCARD):
        return f"p{player} {name} {'?' if value == L.HIDDEN else L.card_name(value)}"
    if kind in (L.E_MOVE, L.E_CHALLENGE, L.E_JABBA):
        return f"p{player} {name} {board.names[value]}"
    if kind in (L.E_SWAP, L.E_ASK):
        return f"p{player} {name} p{value}"
    if kind in (L.E_GIVE, L.E_RESULT, L.E_FIGHT):
        word = {L.E_GIVE: ("has none", "gives The Force"), L.E_RESULT: ("loses", "wins"),
                L.E_FIGHT: ("draws", "plays The Force")}[kind][value]
        return f"p{player} {word}"
    return f"p{player} {name}"


class SarlaccObserver:
    """Observations and information states, as named tensor pieces and strings.

    Information state (perfect recall), for player p: player (n) one-hot; hand (11) card
    counts; events (max_events, 3): each event of the log as kind + 1, player + 1 and
    value + 3 (so 0 is no event, a hidden value reads 1).
    Observation (the present only): player (n); hand (11); positions (n, spaces + 1): each
    hero's space one-hot, the last column the Detention Area; guards (spaces): 1 where a
    guard stands; jabba (spaces) one-hot; points (n); hand_sizes (n); pile_size (1);
    discard (11) counts; phase (8) one-hot; current (n) one-hot; move_card (12) one-hot:
    the card being moved with or targeting (the last: a retreat); turn (1).
    """

    def __init__(self, iig_obs_type, config: Config):
        if iig_obs_type.private_info == pyspiel.PrivateInfoType.ALL_PLAYERS:
            raise ValueError("observation of all players' private information is not "
                             "supported; use SINGLE_PLAYER or NONE")
        self.perfect_recall = iig_obs_type.perfect_recall
        self.private = iig_obs_type.private_info == pyspiel.PrivateInfoType.SINGLE_PLAYER
        self.board = config.board
        n, K, S = config.players, L.NUM_KINDS, config.board.size
        if self.perfect_recall:
            pieces = [("player", (n,)), ("hand", (K,)),
                      ("events", (config.max_events, L.EVENT_SIZE))]
        else:
            pieces = [("player", (n,)), ("hand", (K,)), ("positions", (n, S + 1)),
                      ("guards", (S,)), ("jabba", (S,)), ("points", (n,)),
                      ("hand_sizes", (n,)), ("pile_size", (1,)), ("discard", (K,)),
                      ("phase", (len(L.PHASE_NAMES),)), ("current", (n,)),
                      ("move_card", (L.MOVE_RETREAT + 1,)), ("turn", (1,))]
        self.tensor = np.zeros(sum(int(np.prod(shape)) for _, shape in pieces), np.float32)
        self.dict, index = {}, 0
        for name, shape in pieces:
            count = int(np.prod(shape))
            self.dict[name] = self.tensor[index:index + count].reshape(shape)
            index += count

    def _viewer(self, player: int) -> int:
        return player if self.private else -1  # -1 sees no private card

    def set_from(self, state: SarlaccState, player: int) -> None:
        self.tensor.fill(0)
        d, s = self.dict, state._s
        d["player"][player] = 1
        if self.private:
            d["hand"][:] = state.hand(player)
        if self.perfect_recall:
            n = int(s[L.S_EVENT_N])
            rows = s[L.S_EVENTS:L.S_EVENTS + n * L.EVENT_SIZE].reshape(n, L.EVENT_SIZE)
            hidden = _hidden_rows(rows, self._viewer(player))
            d["events"][:n] = rows + (1, 1, 3)
            d["events"][:n, 2][hidden] = 1
            return
        v = state.view()
        S = self.board.size
        for q, pos in enumerate(v.positions):
            d["positions"][q, S if pos == L.DETENTION else pos] = 1
        for space in v.guards:
            d["guards"][space] = 1
        d["jabba"][v.jabba] = 1
        d["points"][:] = v.points
        d["hand_sizes"][:] = [sum(h) for h in v.hands]
        d["pile_size"][0] = sum(v.pile)
        d["discard"][:] = v.discard
        d["phase"][s[L.S_PHASE]] = 1
        if v.phase not in ("chance", "terminal"):
            d["current"][v.current] = 1
        if s[L.S_PHASE] in (L.PH_MOVE, L.PH_TARGET):
            d["move_card"][s[L.S_MOVE_CARD]] = 1
        d["turn"][0] = v.turn

    def string_from(self, state: SarlaccState, player: int) -> str:
        hand = _cards(state.hand(player)) if self.private else "?"
        head = f"p{player} {L.HEROES[player]} hand:[{hand}]"
        if self.perfect_recall:
            log = "; ".join(describe(e, self.board)
                            for e in state.events(self._viewer(player)))
            return f"{head} | {log}"
        v, names = state.view(), self.board.names
        where = " ".join(f"p{q}:{_where(pos, names)}" for q, pos in enumerate(v.positions))
        guards = ",".join(names[sp] for sp in sorted(v.guards))
        turn = (f" to act:p{v.current}" if v.phase not in ("chance", "terminal") else "")
        card = int(state._s[L.S_MOVE_CARD])
        moving = "" if v.phase not in ("move", "target") else (
            " with:retreat" if card == L.MOVE_RETREAT else f" with:{L.card_name(card)}")
        return (f"{head} turn:{v.turn} {where} jabba:{names[v.jabba]} guards:[{guards}] "
                f"points:{','.join(map(str, v.points))} sizes:"
                f"{','.join(str(sum(h)) for h in v.hands)} pile:{sum(v.pile)} "
                f"discard:[{_cards(v.discard)}] phase:{v.phase}{turn}{moving}")


SarlaccGame._state_class, SarlaccGame._observer_class = SarlaccState, SarlaccObserver
pyspiel.register_game(_game_type(), SarlaccGame)
