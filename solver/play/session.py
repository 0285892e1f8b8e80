"""A played game: one human seat against an opponent policy, a round or a match.

`Session` holds the pyspiel state of the round being played and plays everybody but the
human: chance from the round's seeded deal (solver/sim/playout.py `shuffled`,
`dealt_card`: the engine's own odds, made repeatable), the other seats by their
`Opponent` (solver/play/opponents.py). It stops at each decision of the human
(`waiting`), who acts with `act`; `view` is what the human's seat knows.

Seats. In a single round, `seat` is the human's seat in turn order (the engine's seat,
as in the hint). In a match (docs/RULES.md R14) it is the human's place at the table:
each round's first player is engine seat 0, so table seat t is engine seat (t - starter)
% n. The first round's starter is random; the round winner starts the next; a tie is
broken at random among the winners; a round without a winner is started by a random
player. Rounds go on until somebody reaches the token goal (TOKEN_GOAL), and every
player at or past it wins. The random draws use the tournament's match streams
(solver/sim/rng.py STREAM_MATCH_*, match 0), so a seed deals what a seeded tournament
match would.

Every applied action goes to `record` (solver/play/log.py writes the lines), and the
`Coach` (solver/hint/coach.py), when given, judges the human's plays.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable

import numpy as np

from spiel_game import layout as L
from spiel_game.events import describe

from solver.evaluation.tournament import MAX_MATCH_ROUNDS, TOKEN_GOAL, round_winners
from solver.sim.playout import dealt_card, deck_cards, shuffled
from solver.sim.rng import (STREAM_MATCH_DEAL, STREAM_MATCH_START, STREAM_MATCH_TIES,
                            check_seed, next_below, stream_seed)

CHANCE = -1  # `player` of a chance action




class SessionError(ValueError):
    """An action or round start the game does not allow (a bad choice, a bad log line)."""


@dataclasses.dataclass(frozen=True)
class Step:
    """One applied action: who (engine seat, CHANCE for chance), by whom ('chance',
    'you' or the opponent's name), the id and its words (a chance card in the clear:
    for the log, not for the human's view)."""

    round: int
    player: int
    by: str
    action: int
    text: str


class Session:
    """A game of `game` with the human at `seat`, the others played by `opponent`
    (None: every action comes through `apply`, as a replay gives them)."""

    def __init__(self, game, seat: int, opponent=None, seed: int = 0, match: bool = False,
                 record: Callable[[dict], None] | None = None, coach=None,
                 first_starter: int | None = None):
        self.game = game
        self.characters = game.characters  # the game's cards (Jabba's Palace or classic)
        self.n = game.num_players()
        if not 0 <= seat < self.n:
            raise SessionError(f"seat {seat}: allowed is a seat from 0 to {self.n - 1}")
        self.table_seat = seat
        self.opponent = opponent
        self.seed = check_seed(seed)
        self.match = match
        self.goal = TOKEN_GOAL[self.n] if match else None
        self.record = record or (lambda line: None)
        self.coach = coach
        self.totals = [0] * self.n  # per table seat
        self.round = 0
        self.steps: list[Step] = []
        self.rounds: list[dict] = []  # each finished round's result
        self._cards = deck_cards(game.initial_array)
        self._order = np.empty_like(self._cards)
        self._ties = np.zeros(1, dtype=np.uint64)
        self._ties[0] = stream_seed(self.seed, STREAM_MATCH_TIES, 0)
        if first_starter is None and match:
            start = np.zeros(1, dtype=np.uint64)
            start[0] = stream_seed(self.seed, STREAM_MATCH_START, 0)
            first_starter = next_below(start, self.n)
        self.state = None
        self.start_round(first_starter or 0)

    # Rounds ------------------------------------------------------------------------------

    @property
    def me(self) -> int:
        """The human's engine seat this round."""
        return (self.table_seat - self.starter) % self.n

    def table_of(self, player: int) -> int:
        """The table seat of this round's engine seat `player`."""
        return (self.starter + player) % self.n

    def allowed_starters(self) -> list[int]:
        """The table seats R14 lets start the next round (all: the first round, or a
        round without winner)."""
        if not self.rounds or not self.rounds[-1]["winners"]:
            return list(range(self.n))
        return self.rounds[-1]["winners"]

    def next_starter(self) -> int:
        """The next round's starter by R14, ties drawn from the seeded stream."""
        allowed = self.allowed_starters()
        pick = next_below(self._ties, len(allowed)) if len(allowed) > 1 else 0
        return allowed[pick]

    def start_round(self, starter: int) -> None:
        if self.state is not None and not self.state.is_terminal():
            raise SessionError(f"round {self.round} is not over")
        if self.match_over or (self.round >= 1 and not self.match):
            raise SessionError("the game is over: no next round")
        if self.round >= MAX_MATCH_ROUNDS:
            raise SessionError(f"a match stops after {MAX_MATCH_ROUNDS} rounds")
        if starter not in self.allowed_starters():
            raise SessionError(f"round {self.round + 1} starts with table seat {starter}, "
                               f"but R14 allows {self.allowed_starters()}")
        self.round += 1
        self.starter = starter
        shuffled(self._cards, self.seed, STREAM_MATCH_DEAL, self.round - 1, self._order)
        self.state = self.game.new_initial_state()
        self._shown = 0
        self.record({"round": self.round, "starter": starter})
        if self.coach is not None:
            self.coach.new_round()

    def next_round(self) -> None:
        """The next round of a match, started by R14's starter."""
        self.start_round(self.next_starter())

    # Playing -----------------------------------------------------------------------------

    @property
    def round_over(self) -> bool:
        return self.state.is_terminal()

    @property
    def match_over(self) -> bool:
        if not self.rounds:
            return False
        return not self.match or max(self.totals) >= self.goal

    @property
    def over(self) -> bool:
        return self.round_over and self.match_over

    @property
    def to_act(self) -> int:
        """The engine seat to act (CHANCE for chance); only while the round goes on."""
        return CHANCE if self.state.is_chance_node() else self.state.current_player()

    @property
    def waiting(self) -> bool:
        """Whether the human is to decide."""
        return not self.round_over and self.to_act == self.me

    def legal(self) -> list[tuple[int, str]]:
        """(action id, words) of the human's choices."""
        if not self.waiting:
            return []
        return [(a, self.state.action_to_string(self.me, a))
                for a in self.state.legal_actions()]

    def apply(self, action: int, by: str | None = None) -> Step:
        """Apply the next action, whoever's it is; SessionError when it is not legal."""
        if self.round_over:
            raise SessionError(f"round {self.round} is over: no action {action} to apply")
        player = self.to_act
        legal = self.state.legal_actions()
        if action not in legal:
            who = "chance" if player == CHANCE else f"p{player}"
            words = ", ".join(f"{a} ({self.state.action_to_string(player, a)})"
                              for a in legal)
            raise SessionError(f"action {action} is not legal for {who} here; legal: {words}")
        if by is None:
            by = ("chance" if player == CHANCE else "you" if player == self.me
                  else self.opponent.name)
        step = Step(self.round, player, by, int(action),
                    self.state.action_to_string(player, action))
        self.state.apply_action(action)
        self.steps.append(step)
        self.record({"round": step.round, "player": step.player, "by": step.by,
                     "action": step.action, "text": step.text})
        if self.round_over:
            self._finish_round()
        return step

    def advance(self) -> None:
        """Play chance and the opponents until the human decides or the round ends (with
        no opponent, a replay: nothing; its actions come through `apply`)."""
        while self.opponent is not None and not self.round_over and not self.waiting:
            if self.to_act == CHANCE:
                self.apply(int(dealt_card(self.state.array, self._order)))
            else:
                self.apply(self.opponent.decide(self.state, self.to_act))

    def act(self, action: int) -> dict | None:
        """The human's choice: applied, then the game played on to the human's next
        decision. Returns the coach's verdict once it has one for this choice."""
        if not self.waiting:
            raise SessionError("it is not your turn to decide")
        before = self.state.clone() if self.coach is not None else None
        self.apply(action)
        verdict = None if self.coach is None else self.coach.observe(before, self.me, action)
        self.advance()
        return verdict

    def _finish_round(self) -> None:
        s = self.state.array
        winners = np.zeros(self.n, dtype=np.int32)
        round_winners(s, winners)
        tokens = [0] * self.n
        for i in range(self.n):
            tokens[self.table_of(i)] = int(s[L.S_TOKENS + i])
            self.totals[self.table_of(i)] += int(s[L.S_TOKENS + i])
        view = self.state.view()
        result = {"round": self.round, "end": view.end, "tokens": tokens,
                  "totals": list(self.totals),
                  "winners": sorted(self.table_of(i) for i in range(self.n) if winners[i])}
        self.rounds.append(result)
        line = {"round_end": self.round, **{k: v for k, v in result.items() if k != "round"}}
        if self.match_over and self.match:
            line["match_winners"] = [t for t in range(self.n) if self.totals[t] >= self.goal]
        self.record(line)

    # What the human sees -------------------------------------------------------------------

    def events(self) -> list[str]:
        """This round's log as the human's seat saw it (the game's own redaction)."""
        names = tuple(c.name for c in self.characters)
        return [describe(e, names) for e in self.state.events(self.me)]

    def new_events(self) -> list[str]:
        """The events the human has not been shown yet (and marks them shown)."""
        lines = self.events()
        fresh, self._shown = lines[self._shown:], len(lines)
        return fresh

    def view_state(self) -> dict:
        """The part of `view` every game has: the events as the seat saw them, its
        information state, whether it is to act and its choices, whether it is over."""
        return {"events": self.events(),
                "information_state": self.state.information_state_string(self.me),
                "waiting": self.waiting,
                "legal": [{"action": a, "text": t} for a, t in self.legal()],
                "round_over": self.round_over, "match_over": self.over}

    def view(self) -> dict:
        """What the human's seat knows now, JSON-ready: own hand, the public table, the
        events as the seat saw them, the choices; at a round's end every hand."""
        v = self.state.view()
        me = self.me

        def _names(cards) -> list[str]:
            return [self.characters[int(c)].name for c in cards]
        over = self.round_over
        seats = []
        for p in range(self.n):
            status = "out" if not v.in_round[p] else "protected" if v.protected[p] else "in"
            seats.append({"seat": p, "table_seat": self.table_of(p), "you": p == me,
                          "status": status, "area": _names(v.play_areas[p]),
                          "hand": _names(v.hands[p]) if over or p == me else None})
        out = {"round": self.round, "match": self.match, "goal": self.goal,
               "table_seat": self.table_seat, "seat": me, "players": self.n,
               "game": self.game.get_type().short_name,
               "agenda": self.game.get_parameters().get("agenda"),  # none in love_letter
               "totals": list(self.totals), "hand": _names(v.hands[me]),
               "face_up": _names(v.face_up), "deck": v.deck_size, "seats": seats,
               "turn": v.turn_player, "phase": v.phase,
               "resolving": (None if v.pending_card is None
                             else self.characters[v.pending_card].name),
               **self.view_state()}
        if over:
            result = self.rounds[-1]
            out["result"] = {**result, "set_aside": None if v.set_aside is None
                             else self.characters[v.set_aside].name}
            if self.over and self.match:
                out["result"]["match_winners"] = [t for t in range(self.n)
                                                  if self.totals[t] >= self.goal]
        return out
