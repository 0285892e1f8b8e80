"""Jabba's Palace (one round) as an OpenSpiel game: `pyspiel.load_game("jabbas_palace")`.

A thin wrapper: every rule is in engine.py. Parameters:

| name    | values                                                   | default       |
|---------|----------------------------------------------------------|---------------|
| players | 2 to 6                                                   | 2             |
| agenda  | exalted_one, my_kind_of_scum, jabbas_court, rescue_mission | exalted_one |
| utility | margin (zero-sum: t_i - mean of others), tokens          | margin        |
| deck    | full, tiny, small, medium, or a spec like "guard:2+jabba+han+faceup:0" | full |

Chance outcomes are character ids (cards.py). States serialize as their action history,
one id per line.
"""

from __future__ import annotations

import dataclasses

import numpy as np
import pyspiel

from . import engine
from . import events as ev
from . import layout as L
from .actions import chance_to_string, decision_to_string
from .cards import (AGENDA_NAMES, CHARACTERS, DECK_PRESETS, NUM_CHARACTERS, Agenda,
                    DeckSpec, parse_deck)

SHORT_NAME = "jabbas_palace"
UTILITIES = {"margin": L.UTIL_MARGIN, "tokens": L.UTIL_TOKENS}
DEFAULT_PARAMS = {"players": 2, "agenda": "exalted_one", "utility": "margin",
                  "deck": "full"}


def _game_type(utility: str) -> pyspiel.GameType:
    return pyspiel.GameType(
        short_name=SHORT_NAME,
        long_name="Star Wars: Jabba's Palace - A Love Letter Game (one round)",
        dynamics=pyspiel.GameType.Dynamics.SEQUENTIAL,
        chance_mode=pyspiel.GameType.ChanceMode.EXPLICIT_STOCHASTIC,
        information=pyspiel.GameType.Information.IMPERFECT_INFORMATION,
        utility=(pyspiel.GameType.Utility.ZERO_SUM if utility == "margin"
                 else pyspiel.GameType.Utility.GENERAL_SUM),
        reward_model=pyspiel.GameType.RewardModel.TERMINAL,
        max_num_players=L.MAX_PLAYERS,
        min_num_players=2,
        provides_information_state_string=True,
        provides_information_state_tensor=True,
        provides_observation_string=True,
        provides_observation_tensor=True,
        parameter_specification=DEFAULT_PARAMS)


GAME_TYPE = _game_type("margin")


@dataclasses.dataclass(frozen=True)
class GameConfig:
    """Validated game parameters."""

    num_players: int
    agenda: Agenda
    utility: str
    deck: DeckSpec

    @classmethod
    def from_params(cls, params: dict) -> GameConfig:
        unknown = set(params) - set(DEFAULT_PARAMS)
        if unknown:
            raise ValueError(f"unknown parameter(s) {sorted(unknown)}; allowed: "
                             f"{sorted(DEFAULT_PARAMS)}")
        merged = {**DEFAULT_PARAMS, **params}
        players = merged["players"]
        if not isinstance(players, int) or not 2 <= players <= L.MAX_PLAYERS:
            raise ValueError(f"players={players!r}: must be a whole number from 2 to "
                             f"{L.MAX_PLAYERS}")
        agenda = merged["agenda"]
        if agenda not in AGENDA_NAMES:
            raise ValueError(f"agenda={agenda!r}: allowed agendas are "
                             f"{', '.join(AGENDA_NAMES)}")
        utility = merged["utility"]
        if utility not in UTILITIES:
            raise ValueError(f"utility={utility!r}: allowed are {', '.join(UTILITIES)}")
        deck_text = merged["deck"]
        if not isinstance(deck_text, str):
            raise ValueError(f"deck={deck_text!r}: must be a preset "
                             f"({', '.join(DECK_PRESETS)}) or a spec string")
        deck = parse_deck(deck_text)
        deck.check_playable(players)
        return cls(players, AGENDA_NAMES[agenda], utility, deck)

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


class JabbaPalaceGame(pyspiel.Game):
    """One round of Jabba's Palace."""

    def __init__(self, params: dict | None = None):
        self.config = GameConfig.from_params(dict(params or {}))
        cfg = self.config
        margin = cfg.utility == "margin"
        info = pyspiel.GameInfo(
            num_distinct_actions=L.NUM_ACTIONS,
            max_chance_outcomes=NUM_CHARACTERS,
            num_players=cfg.num_players,
            min_utility=-2.0 if margin else 0.0,
            max_utility=2.0,
            utility_sum=0.0 if margin else None,
            max_game_length=cfg.max_game_length)
        full_params = {**DEFAULT_PARAMS, **dict(params or {})}
        super().__init__(_game_type(cfg.utility), info, full_params)
        self.initial_array = engine.new_state(
            cfg.num_players, int(cfg.agenda), UTILITIES[cfg.utility],
            np.array(cfg.deck.counts), cfg.face_up)

    def new_initial_state(self) -> JabbaPalaceState:
        return JabbaPalaceState(self)

    def make_py_observer(self, iig_obs_type=None, params=None):
        if params:
            raise ValueError(f"observer parameters are not supported, got {params}")
        return JabbaPalaceObserver(
            iig_obs_type or pyspiel.IIGObservationType(perfect_recall=False), self.config)

    def deserialize_state(self, text: str) -> JabbaPalaceState:
        """Inverse of `JabbaPalaceState.serialize`: the action history, one id per line."""
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


@dataclasses.dataclass(frozen=True)
class RoundView:
    """Read-only view of a state for tests and tools. Cards are character ids."""

    hands: tuple[tuple[int, ...], ...]
    play_areas: tuple[tuple[int, ...], ...]
    in_round: tuple[bool, ...]
    protected: tuple[bool, ...]
    face_up: tuple[int, ...]
    deck_size: int
    bottom: tuple[int, ...]  # cards Leia returned, next drawn first
    set_aside: int | None  # None while nobody has seen it (it is still in the pool)
    set_aside_taken: bool
    turn_player: int
    phase: str
    pending_card: int | None
    tokens: tuple[int, ...]  # all zero until the round ends
    end: str | None


class JabbaPalaceState(pyspiel.State):
    """A state: one int32 array (`_s`) that the compiled engine reads and writes."""

    def __init__(self, game: JabbaPalaceGame):
        super().__init__(game)
        self._s = game.initial_array.copy()

    # OpenSpiel API ----------------------------------------------------------------------

    def current_player(self) -> int:
        return int(engine.current_actor(self._s))

    def _legal_actions(self, player: int) -> list[int]:
        buf = np.empty(L.NUM_ACTIONS, dtype=np.int32)
        n = engine.legal_actions(self._s, buf)
        return buf[:n].tolist()

    def chance_outcomes(self) -> list[tuple[int, float]]:
        outcomes = np.empty(NUM_CHARACTERS, dtype=np.int32)
        probs = np.empty(NUM_CHARACTERS, dtype=np.float64)
        n = engine.chance_outcomes(self._s, outcomes, probs)
        return list(zip(outcomes[:n].tolist(), probs[:n].tolist()))

    def _apply_action(self, action: int) -> None:
        s = self._s
        if s[L.S_PHASE] == L.PH_TERMINAL:
            raise ValueError(f"action {action}: the round is over")
        if not engine.is_legal(s, action):
            player = self.current_player()
            legal = self._legal_actions(player)
            described = ", ".join(f"{a} ({self._action_to_string(player, a)})" for a in legal)
            where = ("at a chance node" if player == pyspiel.PlayerId.CHANCE else
                     f"for player {player} ({L.PHASE_NAMES[s[L.S_PHASE]]})")
            raise ValueError(f"action {action} is not legal here {where}; legal: {described}")
        engine.apply_action(s, action)

    def _action_to_string(self, player: int, action: int) -> str:
        if player == pyspiel.PlayerId.CHANCE:
            if not 0 <= action < NUM_CHARACTERS:
                return f"chance outcome {action} (not a character id)"
            return chance_to_string(int(self._s[L.S_CHANCE_KIND]),
                                    int(self._s[L.S_CHANCE_FOR]), action)
        return decision_to_string(action)

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
        names = lambda cards: "[" + ", ".join(CHARACTERS[c].name for c in cards) + "]"  # noqa: E731
        lines = [f"phase: {v.phase}  turn: p{v.turn_player}  deck: {v.deck_size}"
                 f"  bottom: {names(v.bottom)}  set-aside: "
                 f"{'?' if v.set_aside is None else CHARACTERS[v.set_aside].name}"
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


class JabbaPalaceObserver:
    """Observations and information states, as named tensor pieces and strings.

    Information state (perfect recall), for player p:
      player        (num_players,)       one-hot p
      hand          (14,)                count of each character in p's hand
      events        (max_events, 60)     the log as p saw it; per event:
                                         kind one-hot (18), actor (6), other (6),
                                         card one-hot (14) + hidden flag (1),
                                         extra one-hot (14) + hidden flag (1)
    Observation (the present only):
      player (n), hand (14), face_up (14), play_areas (n, 14) counts, in_round (n),
      protected (n), deck_size (1), bottom_size (1), turn (n), phase (9),
      pending_card (14), pending_target (n)
    """

    EVENT_FEATURES = L.NUM_EVENT_KINDS + 2 * L.MAX_PLAYERS + 2 * (NUM_CHARACTERS + 1)

    def __init__(self, iig_obs_type, config: GameConfig):
        if iig_obs_type.private_info == pyspiel.PrivateInfoType.ALL_PLAYERS:
            raise ValueError("observation of all players' private information is not "
                             "supported; use SINGLE_PLAYER or NONE")
        self.perfect_recall = iig_obs_type.perfect_recall
        self.private = iig_obs_type.private_info == pyspiel.PrivateInfoType.SINGLE_PLAYER
        n = config.num_players
        C = NUM_CHARACTERS
        if self.perfect_recall:
            pieces = [("player", (n,)), ("hand", (C,)),
                      ("events", (config.max_events, self.EVENT_FEATURES))]
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

    def set_from(self, state: JabbaPalaceState, player: int) -> None:
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

    def _write_events(self, state: JabbaPalaceState, player: int) -> None:
        rows = self.dict["events"]
        C = NUM_CHARACTERS
        card_at = L.NUM_EVENT_KINDS + 2 * L.MAX_PLAYERS
        extra_at = card_at + C + 1
        for i, e in enumerate(state.events(self._viewer(player))):
            row = rows[i]
            row[e.kind] = 1
            if e.actor >= 0:
                row[L.NUM_EVENT_KINDS + e.actor] = 1
            if e.other >= 0:
                row[L.NUM_EVENT_KINDS + L.MAX_PLAYERS + e.other] = 1
            for value, at in ((e.card, card_at), (e.extra, extra_at)):
                if value == ev.HIDDEN:
                    row[at + C] = 1
                elif value >= 0:
                    row[at + value] = 1

    def string_from(self, state: JabbaPalaceState, player: int) -> str:
        names = lambda cards: ",".join(CHARACTERS[c].name for c in cards)  # noqa: E731
        hand = names(state.hand(player)) if self.private else "?"
        if self.perfect_recall:
            log = "; ".join(ev.describe(e) for e in state.events(self._viewer(player)))
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
            parts.append(f"resolving:{CHARACTERS[v.pending_card].name}")
            target = int(state._s[L.S_PENDING_TARGET])
            if target >= 0:
                parts.append(f"chosen:p{target}")
        return " ".join(parts)


pyspiel.register_game(GAME_TYPE, JabbaPalaceGame)
