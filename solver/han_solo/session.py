"""A played han_solo round: `Session`'s play (apply, act, the log lines) on han_solo's
engine. One round (a han_solo game is one round; the match rulings H11, H12 are not
played), no coach. Chance comes from the round's seeded stream (the engine's odds), the
other seats from an `Opponent` drawing from the policy (solver/han_solo/players.py) by
its own seeded stream. `view` is what the human's seat knows: own hand, the discard
pile, the others' hand sizes, the pot, the turn; every hand once shown at the round's end
(H6), before the tokens are taken. The log's round end gives the hands shown."""

from __future__ import annotations

from collections.abc import Callable

import numpy as np

from spiel_game.han_solo import layout as L
from spiel_game.han_solo.game import describe

from solver.han_solo.players import resolve as resolve_player
from solver.play.session import CHANCE, Session, SessionError
from solver.sim.rng import check_seed, next_float, stream_seed

STREAM_HS_PLAY_CHANCE, STREAM_HS_PLAY_DECISIONS = 41, 42


def _draw(rng, pairs) -> int:
    """An outcome of (outcome, probability) pairs from the seeded stream rng."""
    u = next_float(rng)
    for outcome, p in pairs:
        u -= p
        if u < 0:
            return int(outcome)
    return int(pairs[-1][0])


class HanSoloOpponent:
    """The other seats: a HanSoloPlayer's probabilities, the action drawn from a seeded
    stream."""

    def __init__(self, player, seed: int):
        self.name = player.name
        self.player = player
        self.rng = np.array([stream_seed(check_seed(seed), STREAM_HS_PLAY_DECISIONS, 0)],
                            dtype=np.uint64)

    def decide(self, state, player: int) -> int:
        return _draw(self.rng, sorted(self.player.action_probabilities(state).items()))


def resolve(against: str, game, seed: int) -> HanSoloOpponent:
    """'table', a heuristic or a table file (players.resolve); ValueError if none."""
    return HanSoloOpponent(resolve_player(against, game), seed)


class HanSoloSession(Session):
    """One han_solo round with the human at `seat` (the engine's seat, turn order from
    the dealer's left), the others played by `opponent` (None: a replay)."""

    def __init__(self, game, seat: int, opponent=None, seed: int = 0, match: bool = False,
                 record: Callable[[dict], None] | None = None, coach=None,
                 first_starter: int | None = None):
        if match:
            raise SessionError("han_solo plays one round: the match rulings (H11, H12) "
                               "are not played by the engine")
        if coach is not None:
            raise SessionError("han_solo has no coach")
        self.game = game
        self.n = game.num_players()
        if not 0 <= seat < self.n:
            raise SessionError(f"seat {seat}: allowed is a seat from 0 to {self.n - 1}")
        self.table_seat, self.opponent, self.seed = seat, opponent, check_seed(seed)
        self.match, self.goal, self.coach = False, None, None
        self.record = record or (lambda line: None)
        self.totals = [0] * self.n
        self.round = 0
        self.steps, self.rounds = [], []
        self.state = None
        self.start_round(first_starter or 0)

    def start_round(self, starter: int) -> None:
        if self.round >= 1:
            raise SessionError("the game is over: no next round")
        if starter != 0:
            raise SessionError(f"a han_solo round starts with seat 0, not {starter}")
        self.round, self.starter = 1, 0
        self.state = self.game.new_initial_state()
        self._chance = np.array([stream_seed(self.seed, STREAM_HS_PLAY_CHANCE, 0)],
                                dtype=np.uint64)
        self._shown = 0
        self.record({"round": self.round, "starter": starter})

    def advance(self) -> None:
        while self.opponent is not None and not self.round_over and not self.waiting:
            if self.to_act == CHANCE:
                self.apply(_draw(self._chance, self.state.chance_outcomes()))
            else:
                self.apply(self.opponent.decide(self.state, self.to_act))

    def _finish_round(self) -> None:
        v = self.state.view()
        values = self.game.config.token_values
        tokens = [0 if k is None else values[k] // 1000 for k in v.got]
        self.totals = list(tokens)
        best = max(v.keys)
        result = {"round": 1, "end": "tokens taken", "tokens": tokens,
                  "totals": list(tokens), "tokens_taken": [
                      None if k is None else L.TOKEN_NAMES[k] for k in v.got],
                  "winners": [p for p in range(self.n) if v.keys[p] == best],
                  "hands": [[L.card_name(c) for c in hand] for hand in v.hands]}
        self.rounds.append(result)
        self.record({"round_end": 1, **{k: v for k, v in result.items() if k != "round"}})

    def events(self) -> list[str]:
        return [describe(e) for e in self.state.events(self.me)]

    def view(self) -> dict:
        v = self.state.view()
        me, over, shown = self.me, self.round_over, self.state.shown()

        def names(cards) -> list[str]:
            return [L.card_name(int(c)) for c in cards]
        seats = [{"seat": p, "table_seat": p, "you": p == me, "status": "in",
                  "cards": len(v.hands[p]),
                  "hand": names(v.hands[p]) if shown or p == me else None,
                  "total": sum(L.card_value(c) for c in v.hands[p]) if shown or p == me
                  else None} for p in range(self.n)]
        out = {"round": self.round, "match": False, "goal": None, "table_seat": me,
               "seat": me, "players": self.n, "game": "han_solo", "agenda": None,
               "totals": list(self.totals), "hand": names(v.hands[me]),
               "hand_total": sum(L.card_value(c) for c in v.hands[me]),
               "discard": names(v.discard), "pile": sum(v.pile),
               "pot": [L.TOKEN_NAMES[k] for k in range(L.NUM_TOKEN_KINDS)
                       for _ in range(v.pot[k])],
               "turn": min(v.cycle + 1, self.game.config.turns),
               "turns": self.game.config.turns, "phase": v.phase, "seats": seats,
               **self.view_state()}
        if over:
            out["result"] = self.rounds[-1]
        return out
