"""The engine's OpenSpiel games, one round each: `pyspiel.load_game("jabbas_palace")` and
`pyspiel.load_game("love_letter")` (classic Love Letter, 2019 edition).

A thin wrapper: every rule is in engine.py, every card in cards.py. Parameters:

| name    | values                                                   | default       |
|---------|----------------------------------------------------------|---------------|
| players | 2 to 6                                                   | 2             |
| agenda  | exalted_one, my_kind_of_scum, jabbas_court, rescue_mission | exalted_one |
|         | (jabbas_palace only: classic has none, docs/RULES.md C8) |               |
| utility | margin (zero-sum: t_i - mean of others), tokens          | margin        |
| deck    | full, tiny, small, medium, or a spec like "guard:2+jabba+han+faceup:0" | full |

Load a game with `load(game, players=..., agenda=..., deck=..., utility=...)`, the one
loader every caller uses (or `pyspiel.load_game`). Chance outcomes are character ids
(cards.py). States serialize as their action history, one id per line.
"""

from __future__ import annotations

import dataclasses

import numpy as np
import pyspiel

from . import engine
from . import events as ev
from . import layout as L
from .actions import chance_to_string, decision_to_string, num_actions
from .cards import (AGENDA_NAMES, CLASSIC, GAMES, JABBAS_PALACE, Agenda, DeckSpec, RuleSet,
                    parse_deck, ruleset)

UTILITIES = {"margin": L.UTIL_MARGIN, "tokens": L.UTIL_TOKENS}


def default_params(rules: RuleSet) -> dict:
    """The game's parameters and their defaults: an agenda only for a game with them."""
    agenda = {"agenda": rules.default_agenda} if rules.has_agendas else {}
    return {"players": 2, **agenda, "utility": "margin", "deck": "full"}


def variant(game) -> str:
    """What names a game's files besides deck and players (RuleSet.variants): its agenda
    in a game with agendas, else the game's name (policy_full_love_letter_2p_fine.npz)."""
    config = game.config
    return config.rules.variant(config.agenda_name)


def check_agenda(params: dict, rules: RuleSet) -> None:
    """Refuse an agenda for a game without agendas, saying why and what is allowed."""
    if not rules.has_agendas and "agenda" in params:
        raise ValueError(f"agenda={params['agenda']!r}: {rules.no_agendas}; allowed "
                         f"parameters: {', '.join(sorted(default_params(rules)))}")


def load_parameters(game: str, params: dict) -> EngineGame:
    """The engine game `game` with OpenSpiel parameters `params`; ValueError naming what
    is wrong and what is allowed. The agenda is checked here, before pyspiel, whose
    refusal of it would not say that the game has none."""
    check_agenda(params, ruleset(game))
    return pyspiel.load_game(game, dict(params))


def load(game: str = GAMES[0], *, players: int = 2, agenda: str | None = None,
         deck: str = "full", utility: str = "margin") -> EngineGame:
    """The one loader of the engine's games. `agenda`: None for the game's default (a
    game without agendas takes none; one given is refused, saying so). ValueError (or
    pyspiel.SpielError) names what is wrong and what is allowed."""
    params = {"players": players, "deck": deck, "utility": utility}
    if agenda is not None:
        params["agenda"] = agenda
    return load_parameters(game, params)


def _game_type(utility: str, rules: RuleSet = JABBAS_PALACE) -> pyspiel.GameType:
    return card_game_type(rules.game, rules.long_name, utility, L.MAX_PLAYERS,
                          default_params(rules))


def card_game_type(short_name: str, long_name: str, utility: str, max_players: int,
                   parameters: dict) -> pyspiel.GameType:
    """The OpenSpiel type of one of the project's card games: sequential, explicit
    chance, imperfect information, terminal rewards, zero-sum under the margin utility,
    2 to `max_players` players, strings and tensors provided."""
    return pyspiel.GameType(
        short_name=short_name,
        long_name=long_name,
        dynamics=pyspiel.GameType.Dynamics.SEQUENTIAL,
        chance_mode=pyspiel.GameType.ChanceMode.EXPLICIT_STOCHASTIC,
        information=pyspiel.GameType.Information.IMPERFECT_INFORMATION,
        utility=(pyspiel.GameType.Utility.ZERO_SUM if utility == "margin"
                 else pyspiel.GameType.Utility.GENERAL_SUM),
        reward_model=pyspiel.GameType.RewardModel.TERMINAL,
        max_num_players=max_players,
        min_num_players=2,
        provides_information_state_string=True,
        provides_information_state_tensor=True,
        provides_observation_string=True,
        provides_observation_tensor=True,
        parameter_specification=parameters)


@dataclasses.dataclass(frozen=True)
class GameConfig:
    """Validated game parameters."""

    num_players: int
    agenda: Agenda  # without agendas: the rule set's deck_end_scoring (classic: C8)
    utility: str
    deck: DeckSpec
    rules: RuleSet = JABBAS_PALACE

    @property
    def agenda_name(self) -> str:
        return next(k for k, v in AGENDA_NAMES.items() if v == self.agenda)

    @classmethod
    def from_params(cls, params: dict, rules: RuleSet = JABBAS_PALACE) -> GameConfig:
        check_agenda(params, rules)
        defaults = default_params(rules)
        unknown = set(params) - set(defaults)
        if unknown:
            raise ValueError(f"unknown parameter(s) {sorted(unknown)}; allowed: "
                             f"{sorted(defaults)}")
        merged = {**defaults, **params}
        players = merged["players"]
        if not isinstance(players, int) or not 2 <= players <= L.MAX_PLAYERS:
            raise ValueError(f"players={players!r}: must be a whole number from 2 to "
                             f"{L.MAX_PLAYERS}")
        if rules.has_agendas:
            agenda = merged["agenda"]
            if agenda not in rules.agendas:
                raise ValueError(f"agenda={agenda!r}: allowed agendas are "
                                 f"{', '.join(rules.agendas)}")
            scoring = AGENDA_NAMES[agenda]
        else:
            scoring = rules.deck_end_scoring
        utility = merged["utility"]
        if utility not in UTILITIES:
            raise ValueError(f"utility={utility!r}: allowed are {', '.join(UTILITIES)}")
        deck_text = merged["deck"]
        if not isinstance(deck_text, str):
            raise ValueError(f"deck={deck_text!r}: must be a preset "
                             f"({', '.join(rules.presets)}) or a spec string")
        deck = parse_deck(deck_text, rules)
        deck.check_playable(players)
        return cls(players, scoring, utility, deck, rules)

    @property
    def face_up(self) -> int:
        return self.deck.face_up(self.num_players)

    @property
    def initial_deck_size(self) -> int:
        """Cards in the deck after set-aside and deal, i.e. the most turns a round has."""
        return self.deck.size - 1 - self.face_up - self.num_players

    @property
    def max_events(self) -> int:
        # Per turn at most 8 events: draw, play and up to 6 more (Rancor with 6 outs,
        # C-3PO: choose, name, miss, name, out); plus setup and the round end.
        return self.face_up + self.num_players + 8 * self.initial_deck_size + 1

    @property
    def max_game_length(self) -> int:
        # Per turn at most 6 recorded actions (a Leia turn: draw, play, 2 draws, keep,
        # order); plus the face-up cards and the deal.
        return self.face_up + self.num_players + 6 * self.initial_deck_size


class ArrayGame(pyspiel.Game):
    """The base of every registered game whose states are `ArrayState`s: a subclass sets
    `_state_class` and `_observer_class` (built from the game's `config`)."""

    _state_class: type
    _observer_class: type

    def new_initial_state(self):
        return self._state_class(self)

    def make_py_observer(self, iig_obs_type=None, params=None):
        if params:
            raise ValueError(f"observer parameters are not supported, got {params}")
        return self._observer_class(
            iig_obs_type or pyspiel.IIGObservationType(perfect_recall=False), self.config)

    def deserialize_state(self, text: str):
        """Inverse of the state's `serialize`: the action history, one id per line."""
        state = self.new_initial_state()
        for line_number, line in enumerate(text.splitlines(), start=1):
            if not line.strip():
                continue
            try:
                action = int(line)
            except ValueError:
                raise ValueError(f"serialized state, line {line_number}: {line!r} is not "
                                 "an action id (one whole number per line)") from None
            try:
                state.apply_action(action)
            except (ValueError, pyspiel.SpielError) as err:
                raise ValueError(f"serialized state, line {line_number}: {err}") from None
        return state


class EngineGame(ArrayGame):
    """One round of the rule set `RULES` on the compiled engine (a subclass per game)."""

    RULES: RuleSet

    def __init__(self, params: dict | None = None):
        self.config = GameConfig.from_params(dict(params or {}), self.RULES)
        cfg = self.config
        self.rules = cfg.rules
        self.characters = cfg.rules.characters
        margin = cfg.utility == "margin"
        # At most 2 tokens a round: a win and Han Solo (R11), or a win and the Spy (C9).
        info = pyspiel.GameInfo(
            num_distinct_actions=num_actions(max(c.number for c in self.characters)),
            max_chance_outcomes=len(self.characters),
            num_players=cfg.num_players,
            min_utility=-2.0 if margin else 0.0,
            max_utility=2.0,
            utility_sum=0.0 if margin else None,
            max_game_length=cfg.max_game_length)
        full_params = {**default_params(self.RULES), **dict(params or {})}
        super().__init__(_game_type(cfg.utility, self.RULES), info, full_params)
        self.initial_array = engine.new_state(
            cfg.num_players, int(cfg.agenda), UTILITIES[cfg.utility],
            cfg.deck.engine_counts(), cfg.face_up, rules=self.RULES.id)


class JabbaPalaceGame(EngineGame):
    """One round of Jabba's Palace (docs/RULES.md R1-R14)."""

    RULES = JABBAS_PALACE


class LoveLetterGame(EngineGame):
    """One round of classic Love Letter, 2019 edition (docs/RULES.md "Classic Love
    Letter", C1-C11)."""

    RULES = CLASSIC


# The game class of each rule set, in the order of GAMES, registered with pyspiel below.
GAME_CLASSES: dict[str, type[EngineGame]] = {
    cls.RULES.game: cls for cls in (JabbaPalaceGame, LoveLetterGame)}
assert tuple(GAME_CLASSES) == GAMES, "a game class per rule set (cards.RULESETS)"


@dataclasses.dataclass(frozen=True)
class RoundView:
    """Read-only view of a state for tests and tools. Cards are character ids."""

    hands: tuple[tuple[int, ...], ...]
    play_areas: tuple[tuple[int, ...], ...]
    in_round: tuple[bool, ...]
    protected: tuple[bool, ...]
    face_up: tuple[int, ...]
    deck_size: int
    bottom: tuple[int, ...]  # cards Leia or a Chancellor returned, next drawn first
    set_aside: int | None  # None while nobody has seen it (it is still in the pool)
    set_aside_taken: bool
    turn_player: int
    phase: str
    pending_card: int | None
    tokens: tuple[int, ...]  # all zero until the round ends
    end: str | None


class _Shared:
    """A value that the deep copy of a state shares instead of copying (it is immutable)."""

    __slots__ = ("value",)

    def __init__(self, value):
        self.value = value

    def __deepcopy__(self, memo):
        return self


class ArrayState(pyspiel.State):
    """A state held in one int32 array (`_s`) that a compiled engine reads and writes; the
    base of every registered game's state. A subclass names its engine module (`_engine`:
    current_actor, legal_actions, chance_outcomes, is_legal, is_terminal, apply_action),
    its action count and largest chance outcome count, and what ends it (`_over`)."""

    _engine = None  # the engine module
    _num_actions = 0
    _num_outcomes = 0
    _over = "the round is over"

    def __init__(self, game):
        super().__init__(game)
        self._s = game.initial_array.copy()

    def current_player(self) -> int:
        return int(self._engine.current_actor(self._s))

    def _legal_actions(self, player: int) -> list[int]:
        buf = np.empty(self._num_actions, dtype=np.int32)
        return buf[:self._engine.legal_actions(self._s, buf)].tolist()

    def chance_outcomes(self) -> list[tuple[int, float]]:
        outcomes = np.empty(self._num_outcomes, dtype=np.int32)
        probs = np.empty(self._num_outcomes, dtype=np.float64)
        n = self._engine.chance_outcomes(self._s, outcomes, probs)
        return list(zip(outcomes[:n].tolist(), probs[:n].tolist()))

    def _apply_action(self, action: int) -> None:
        s = self._s
        if self._engine.is_terminal(s):
            raise ValueError(f"action {action}: {self._over}")
        if not self._engine.is_legal(s, action):
            player = self.current_player()
            legal = ([a for a, _ in self.chance_outcomes()] if player == pyspiel.PlayerId.CHANCE
                     else self._legal_actions(player))
            described = ", ".join(f"{a} ({self._action_to_string(player, a)})" for a in legal)
            raise ValueError(f"action {action} is not legal here{self._where(player)}; "
                             f"legal: {described}")
        self._engine.apply_action(s, action)

    def _where(self, player: int) -> str:
        """Where an illegal action was tried, for its error ('' or ' at ...')."""
        return ""

    @property
    def array(self):
        """The engine state: the int32 array that the engine interface's functions and
        the compiled kernels take (the state's own, not a copy: change it through
        apply_action)."""
        return self._s

    def __deepcopy__(self, memo):
        # copy.deepcopy would otherwise take pyspiel's pickling path (__getstate__ and
        # __setstate__): serialize the game and the history, pickle `__dict__`, load a new
        # game, replay every action and unpickle, about 40x a clone, and the copy would hold
        # another game object. clone() shares the game and deep-copies each attribute.
        twin = self.clone()
        memo[id(self)] = twin
        return twin


class EngineState(ArrayState):
    """A state of a Jabba's Palace or classic Love Letter round."""

    def __init__(self, game: EngineGame):
        super().__init__(game)
        # Not copied with the state: pyspiel's clone deep-copies each attribute, at every
        # child a tree walk visits, and the cards (a tuple of dataclasses) cost 57x `_s`.
        self._game_characters = _Shared(game.characters)

    @property
    def _characters(self) -> tuple:
        return self._game_characters.value

    # OpenSpiel API ----------------------------------------------------------------------

    _engine, _num_actions, _num_outcomes = engine, L.NUM_ACTIONS, L.MAX_CHARS

    def _where(self, player: int) -> str:
        return (" at a chance node" if player == pyspiel.PlayerId.CHANCE else
                f" for player {player} ({L.PHASE_NAMES[self._s[L.S_PHASE]]})")

    def _action_to_string(self, player: int, action: int) -> str:
        if player == pyspiel.PlayerId.CHANCE:
            if not 0 <= action < len(self._characters):
                return f"chance outcome {action} (not a character id)"
            return chance_to_string(int(self._s[L.S_CHANCE_KIND]),
                                    int(self._s[L.S_CHANCE_FOR]), action, self._characters)
        return decision_to_string(action, self._characters)

    def is_terminal(self) -> bool:
        return bool(self._s[L.S_PHASE] == L.PH_TERMINAL)

    def returns(self) -> list[float]:
        out = np.zeros(int(self._s[L.S_NUM_PLAYERS]), dtype=np.float64)
        engine.returns(self._s, out)
        return out.tolist()

    def serialize(self) -> str:
        return "".join(f"{a}\n" for a in self.history())

    def __str__(self) -> str:
        v = self.view()
        characters = self._characters
        names = lambda cards: "[" + ", ".join(characters[c].name for c in cards) + "]"  # noqa: E731
        lines = [f"phase: {v.phase}  turn: p{v.turn_player}  deck: {v.deck_size}"
                 f"  bottom: {names(v.bottom)}  set-aside: "
                 f"{'?' if v.set_aside is None else characters[v.set_aside].name}"
                 f"  face-up: {names(v.face_up)}"]
        for p in range(len(v.hands)):
            status = "in" if v.in_round[p] else "out"
            if v.protected[p]:
                status += ", protected"
            lines.append(f"p{p} ({status}) hand {names(v.hands[p])} area "
                         f"{names(v.play_areas[p])} tokens {v.tokens[p]}")
        return "\n".join(lines)

    # Tools ------------------------------------------------------------------------------

    def view(self) -> RoundView:
        s = self._s
        n = int(s[L.S_NUM_PLAYERS])
        hands = tuple(self.hand(p) for p in range(n))
        areas = tuple(tuple(int(c) for c in
                            s[L.S_AREA + p * L.MAX_AREA:
                              L.S_AREA + p * L.MAX_AREA + s[L.S_AREA_N + p]])
                      for p in range(n))
        phase = int(s[L.S_PHASE])
        return RoundView(
            hands=hands,
            play_areas=areas,
            in_round=tuple(bool(s[L.S_IN_ROUND + p]) for p in range(n)),
            protected=tuple(bool(s[L.S_PROTECTED + p]) for p in range(n)),
            face_up=tuple(int(c) for c in s[L.S_FACE_UP:L.S_FACE_UP + s[L.S_FACE_UP_N]]),
            deck_size=int(engine.deck_size(s)),
            bottom=tuple(int(c) for c in s[L.S_QUEUE:L.S_QUEUE + s[L.S_QUEUE_LEN]]),
            set_aside=None if s[L.S_SET_ASIDE] < 0 else int(s[L.S_SET_ASIDE]),
            set_aside_taken=bool(s[L.S_SET_ASIDE_GONE]),
            turn_player=int(s[L.S_TURN_PLAYER]),
            phase=L.PHASE_NAMES[phase],
            pending_card=(int(s[L.S_PENDING_CARD])
                          if phase in (L.PH_TARGET, L.PH_NAME, L.PH_COUNTER, L.PH_KEEP,
                                       L.PH_ORDER, L.PH_TRADE) else None),
            tokens=tuple(int(s[L.S_TOKENS + p]) for p in range(n)),
            end=(None if phase != L.PH_TERMINAL else
                 ("", "last player", "deck empty", "nobody left")[s[L.S_END_KIND]]))

    def hand(self, player: int) -> tuple[int, ...]:
        """The player's hand, sorted character ids (hidden information: tools only)."""
        s = self._s
        base = L.S_HAND + player * L.MAX_HAND
        return tuple(sorted(s[base:base + s[L.S_HAND_N + player]].tolist()))

    def events(self, viewer: int | None = None) -> list[ev.Event]:
        """The event log, redacted for `viewer` (all detail when None)."""
        return ev.events(self._s, viewer)


class EngineObserver:
    """Observations and information states, as named tensor pieces and strings.

    With C characters (jabbas_palace 14, love_letter 10) and K event kinds (18, 19: the
    kinds the rule set logs):

    Information state (perfect recall), for player p:
      player        (num_players,)       one-hot p
      hand          (C,)                 count of each character in p's hand
      events        (max_events, F)      the log as p saw it; per event:
                                         kind one-hot (K), actor (6), other (6),
                                         card one-hot (C) + hidden flag (1),
                                         extra one-hot (C) + hidden flag (1)
    Observation (the present only):
      player (n), hand (C), face_up (C), play_areas (n, C) counts, in_round (n),
      protected (n), deck_size (1), bottom_size (1), turn (n), phase (9),
      pending_card (C), pending_target (n)
    """

    def __init__(self, iig_obs_type, config: GameConfig):
        if iig_obs_type.private_info == pyspiel.PrivateInfoType.ALL_PLAYERS:
            raise ValueError("observation of all players' private information is not "
                             "supported; use SINGLE_PLAYER or NONE")
        self.perfect_recall = iig_obs_type.perfect_recall
        self.private = iig_obs_type.private_info == pyspiel.PrivateInfoType.SINGLE_PLAYER
        n = config.num_players
        self.characters = config.rules.characters
        self.names = tuple(c.name for c in self.characters)
        C = self.num_cards = len(self.characters)
        self.event_kinds = (L.JABBA_EVENT_KINDS if config.rules is JABBAS_PALACE
                            else L.NUM_EVENT_KINDS)
        self.event_features = self.event_kinds + 2 * L.MAX_PLAYERS + 2 * (C + 1)
        if self.perfect_recall:
            pieces = [("player", (n,)), ("hand", (C,)),
                      ("events", (config.max_events, self.event_features))]
        else:
            pieces = [("player", (n,)), ("hand", (C,)), ("face_up", (C,)),
                      ("play_areas", (n, C)), ("in_round", (n,)), ("protected", (n,)),
                      ("deck_size", (1,)), ("bottom_size", (1,)), ("turn", (n,)),
                      ("phase", (len(L.PHASE_NAMES),)), ("pending_card", (C,)),
                      ("pending_target", (n,))]
        size = sum(int(np.prod(shape)) for _, shape in pieces)
        self.tensor = np.zeros(size, np.float32)
        self.dict = {}
        index = 0
        for name, shape in pieces:
            count = int(np.prod(shape))
            self.dict[name] = self.tensor[index:index + count].reshape(shape)
            index += count

    def _viewer(self, player: int) -> int:
        return player if self.private else -1  # -1 sees no private field

    def set_from(self, state: EngineState, player: int) -> None:
        self.tensor.fill(0)
        s = state._s
        d = self.dict
        d["player"][player] = 1
        if self.private:
            for c in state.hand(player):
                d["hand"][c] += 1
        if self.perfect_recall:
            self._write_events(state, player)
            return
        v = state.view()
        for c in v.face_up:
            d["face_up"][c] += 1
        for p, area in enumerate(v.play_areas):
            for c in area:
                d["play_areas"][p, c] += 1
        d["in_round"][:] = v.in_round
        d["protected"][:] = v.protected
        d["deck_size"][0] = v.deck_size
        d["bottom_size"][0] = len(v.bottom)
        d["turn"][v.turn_player] = 1
        d["phase"][s[L.S_PHASE]] = 1
        if v.pending_card is not None:
            d["pending_card"][v.pending_card] = 1
            target = int(s[L.S_PENDING_TARGET])
            if target >= 0:
                d["pending_target"][target] = 1

    def _write_events(self, state: EngineState, player: int) -> None:
        rows = self.dict["events"]
        C = self.num_cards
        K = self.event_kinds
        card_at = K + 2 * L.MAX_PLAYERS
        extra_at = card_at + C + 1
        for i, e in enumerate(state.events(self._viewer(player))):
            row = rows[i]
            row[e.kind] = 1
            if e.actor >= 0:
                row[K + e.actor] = 1
            if e.other >= 0:
                row[K + L.MAX_PLAYERS + e.other] = 1
            for value, at in ((e.card, card_at), (e.extra, extra_at)):
                if value == ev.HIDDEN:
                    row[at + C] = 1
                elif value >= 0:
                    row[at + value] = 1

    def string_from(self, state: EngineState, player: int) -> str:
        characters = self.characters
        names = lambda cards: ",".join(characters[c].name for c in cards)  # noqa: E731
        hand = names(state.hand(player)) if self.private else "?"
        if self.perfect_recall:
            log = "; ".join(ev.describe(e, self.names)
                            for e in state.events(self._viewer(player)))
            return f"p{player} hand:[{hand}] | {log}"
        v = state.view()
        parts = [f"p{player} hand:[{hand}]", f"face-up:[{names(v.face_up)}]"]
        for p, area in enumerate(v.play_areas):
            flags = ("" if v.in_round[p] else " out") + (" protected" if v.protected[p]
                                                         else "")
            parts.append(f"p{p}{flags}:[{names(area)}]")
        parts.append(f"deck:{v.deck_size} bottom:{len(v.bottom)} turn:p{v.turn_player} "
                     f"phase:{v.phase}")
        if v.pending_card is not None:
            parts.append(f"resolving:{characters[v.pending_card].name}")
            target = int(state._s[L.S_PENDING_TARGET])
            if target >= 0:
                parts.append(f"chosen:p{target}")
        return " ".join(parts)


EngineGame._state_class, EngineGame._observer_class = EngineState, EngineObserver

for _cls in GAME_CLASSES.values():
    pyspiel.register_game(_game_type("margin", _cls.RULES), _cls)
