"""The advice harness: the hint seated as a user gets it, against n - 1 opponents.

The advised seat asks the hint (solver/hint/advice.py `answer`, the one pipeline of
`jabba hint` and the web app) at each of its play decisions, with its information state
pasted as the event log (as the coach does, solver/hint/coach.py), and plays the
recommended full action: the card, then its target and number. With 3-6 players the
hint's table path answers (no search: `advice.SEARCH_MAX_PLAYERS`): every full action
rolled out from the Bayes worlds with everybody then following the tables, the best
mean chosen, ties to the table's likeliest. The seat's other decisions (Leia's keep and
order, Lando's trade, a number named back after a C-3PO miss) come after new
information and the hint does not answer them; there the seat plays what the hint's
rollouts assume it plays: the policy chain of the hint's tables (`PolicySet.chain`:
the finest table with the key, else the default heuristic), drawn from the seat's
decision stream.

Deals and seatings are the tournament's (solver/evaluation/tournament.py): deal d is
the seeded permutation (seed, STREAM_DEAL, d), played once with the advised seat at each
seat (rotation r: engine seat r), the same cards in the same order; the opponents'
decisions are drawn through the compiled play-out loop from the stream (seed,
STREAM_DECISIONS, d * n + r). A deal's value is the advised seat's margin u = t_i - mean
of the others' tokens, averaged over its rotations: the unit of the 95% interval.

Matches follow the tournament's `_run_matches` rule for rule (R14: to the token goal,
the round winner starts the next round, `tournament.next_starter`), with the
advised role at table seat r in rotation r; the match-win rate counts shared wins.
"""

from __future__ import annotations

import dataclasses
import time
from collections.abc import Callable

import numpy as np

from spiel_game import engine
from spiel_game import layout as L

from solver.evaluation.tournament import (MAX_MATCH_ROUNDS, TOKEN_GOAL, Estimate, estimate,
                                          next_starter)
from solver.hint import advice
from solver.hint.log import SearchLimitError
from solver.hint.request import HintRequest
from solver.hint.situation import SituationError, from_mapping
from solver.policies.chain import chain_probabilities
from solver.sim.playout import deck_cards, play_out, shuffled
from solver.policies.playout import LOVE_LETTER_PLAYOUT
from solver.sim.rng import (STREAM_DEAL, STREAM_DECISIONS, STREAM_MATCH_DEAL,
                            STREAM_MATCH_DECISIONS, STREAM_MATCH_START, STREAM_MATCH_TIES,
                            check_seed, next_below, stream_seed)
from solver.sim.sampler import sample


class HintSeat:
    """The hint as a seat (module docstring). `options`: the hint's request options
    (seconds, rollouts, search, ...; the user's defaults if not given); each answer is
    seeded from `seed` and the decision's number, so a run is repeatable with a fixed
    number of rollouts (`rollouts`)."""

    def __init__(self, game, policies, seed: int = 1, **options):
        self.game, self.policies, self.options = game, policies, options
        self.seed = check_seed(seed)
        self.params = game.get_parameters()
        self.state = game.new_initial_state()  # a pyspiel view of the engine state
        self.path: list[int] = []  # the rest of the full action under way
        self.answers = 0  # asked
        self.refused = 0
        self.sources: dict[str, int] = {}  # policy.source of the answers
        self.other_decisions = 0
        self.seconds = 0.0

    def recommend(self, s, seat: int) -> list[int]:
        """The hint's full action (action ids) at `seat`'s play decision s; [] where the
        hint refuses (it says why, as to a user: its beliefs kept no history), counted in
        `refused`: the tables' chain then plays, as for the seat's other decisions."""
        self.state._s = s.copy()
        sit = from_mapping({"game": self.game.get_type().short_name,
                            "players": self.params["players"],
                            "agenda": self.params.get("agenda"),
                            "utility": self.params["utility"],
                            "log": self.state.information_state_string(seat)})
        start = time.perf_counter()
        try:
            answer = advice.answer(HintRequest(sit, advice.check_game(sit), self.policies,
                                               seed=(self.seed * 1_000_003 + self.answers)
                                               % (1 << 31), **self.options))
        except (SearchLimitError, SituationError):
            self.refused += 1
            return []
        finally:
            self.seconds += time.perf_counter() - start
            self.answers += 1
        source = answer.policy["source"]
        self.sources[source] = self.sources.get(source, 0) + 1
        words = answer.recommendation["action"]
        return next(list(f["action_ids"]) for f in answer.full_actions
                    if f["action"] == words)

    def action(self, s, seat: int, rng) -> int:
        """`seat`'s action at s: the hint's at a play, its full action's next step at the
        play's target and number, the hint's tables (chain) elsewhere."""
        phase = s[L.S_PHASE]
        if phase == L.PH_PLAY:
            self.path = self.recommend(s, seat)
        if self.path and phase in (L.PH_PLAY, L.PH_TARGET, L.PH_NAME):
            return self.path.pop(0)
        self.path = []
        self.other_decisions += 1
        legal, probs, _ = chain_probabilities(self.policies.bank, self.policies.chain, s,
                                              seat)
        return int(legal[sample(np.asarray(probs, np.float64), len(legal), rng)])


class PolicySeat:
    """Policy `index` of a compiled bank as the advised seat: the tournament's own play
    (the same probabilities, drawn from the same stream), so that `play_advice` with it
    plays exactly the tournament's games of the lineup [index, opponent, ...]
    (tests/test_advice_seat.py)."""

    def __init__(self, bank, index: int):
        self.bank, self.chain = bank, [index]

    def action(self, s, seat: int, rng) -> int:
        legal, probs, _ = chain_probabilities(self.bank, self.chain, s, seat)
        return int(legal[sample(np.asarray(probs, np.float64), len(legal), rng)])


def play_round(initial, order, seat, advised, bank_arrays, opponent: int, rng, counts):
    """One round from `initial` with the deal `order`: engine seat `seat` played by
    `advised` (its `action(s, seat, rng)`), every other seat by policy `opponent` of the
    bank through the compiled play-out loop (counts: its decisions and misses), all
    decisions drawn from the stream `rng`. The final state."""
    n = initial[L.S_NUM_PLAYERS]
    s = initial.copy()
    legal = np.empty(L.NUM_ACTIONS, dtype=np.int32)
    probs = np.empty(L.NUM_ACTIONS)
    seat_chain = np.full((n, 1), opponent, dtype=np.int32)
    seat_row = np.zeros(n, dtype=np.int32)
    no_state = np.empty(0, dtype=np.uint64)
    while True:
        play_out(engine.ENGINE, LOVE_LETTER_PLAYOUT, s, order, no_state, seat_chain, bank_arrays,
                 rng, legal, probs, counts, seat_row, seat)
        if engine.is_terminal(s):
            return s
        engine.apply_action(s, advised.action(s, seat, rng))


@dataclasses.dataclass
class AdviceResult:
    """The advised seat's margin per deal (mean over rotations) and match wins per match
    (mean over rotations)."""

    deal_margins: list[float]
    match_wins: list[float]
    seconds: float

    @property
    def margin(self) -> Estimate:
        return estimate(self.deal_margins)

    @property
    def match_win_rate(self) -> Estimate:
        return estimate(self.match_wins)


def play_advice(game, advised, bank, opponent: int, deals: int, matches: int = 0,
                seed: int = 1, progress: Callable[[int, int], None] | None = None
                ) -> AdviceResult:
    """`advised` (a HintSeat, or anything with `action(s, seat, rng)`) against n - 1
    seats of policy `opponent` of `bank`: `deals` duplicate deals, each at every seat, and
    `matches` matches to the token goal, each with the advised role at every table seat
    (module docstring)."""
    seed = check_seed(seed)
    n = game.num_players()
    initial = game.initial_array.copy()
    initial[L.S_LOGGING] = 1  # keys, card counting and the hint read the event log
    cards = deck_cards(initial)
    order = np.empty(len(cards), dtype=np.int32)
    arrays = bank.arrays()
    counts = np.zeros((1, 2), dtype=np.int64)
    rng = np.zeros(1, dtype=np.uint64)
    tokens = np.zeros(n)
    start = time.perf_counter()
    deal_margins = []
    for d in range(deals):
        shuffled(cards, seed, STREAM_DEAL, d, order)
        margins = []
        for r in range(n):
            rng[0] = stream_seed(seed, STREAM_DECISIONS, d * n + r)
            s = play_round(initial, order, r, advised, arrays, opponent, rng, counts)
            engine.tokens(s, tokens)
            margins.append(tokens[r] - (tokens.sum() - tokens[r]) / (n - 1))
        deal_margins.append(float(np.mean(margins)))
        if progress is not None:
            progress(d + 1, deals + matches)
    match_wins = []
    goal = TOKEN_GOAL[n]
    winners = np.zeros(n, dtype=np.int32)
    ties = np.zeros(1, dtype=np.uint64)
    for m in range(matches):
        start_rng = np.array([stream_seed(seed, STREAM_MATCH_START, m)], dtype=np.uint64)
        first_starter = next_below(start_rng, n)
        wins = []
        for r in range(n):  # the advised role at table seat r
            ties[0] = stream_seed(seed, STREAM_MATCH_TIES, m * n + r)
            totals = np.zeros(n, dtype=np.int64)  # per table seat
            starter, played = first_starter, 0
            while totals.max() < goal and played < MAX_MATCH_ROUNDS:
                shuffled(cards, seed, STREAM_MATCH_DEAL, m * MAX_MATCH_ROUNDS + played, order)
                rng[0] = stream_seed(seed, STREAM_MATCH_DECISIONS,
                                     (m * n + r) * MAX_MATCH_ROUNDS + played)
                # Engine seat i is table seat (starter + i) % n.
                s = play_round(initial, order, (r - starter) % n, advised, arrays, opponent,
                               rng, counts)
                for i in range(n):
                    totals[(starter + i) % n] += s[L.S_TOKENS + i]
                starter = next_starter(s, starter, ties, winners)
                played += 1
            wins.append(1.0 if totals[r] >= goal else 0.0)
        match_wins.append(float(np.mean(wins)))
        if progress is not None:
            progress(deals + m + 1, deals + matches)
    return AdviceResult(deal_margins, match_wins, time.perf_counter() - start)
