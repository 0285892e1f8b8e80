"""Match play between two policies (docs/RULES.md R14), with duplicate deals and seat
rotation: A's match-win rate with a 95% interval.

A *policy* is a callable `policy(state, player, standings, rng) -> action`: the pyspiel
`state` at a decision of engine seat `player`, `standings` the tokens so far by this
round's engine seats (standings[p]: engine seat p, seat 0 having started the round), and
`rng` the round's seeded decision stream (solver/sim/rng.py; solver/sim/sampler.py
`sample` draws from it). `make_policy()` makes a fresh one for each match and seating,
so a policy may keep state within a match.

Match m is played once per rotation r = 0..n-1, A at table seat r and B at every other
seat, with the same chance: round k of the match is deal k of the match (solver/sim/
playout.py `shuffled`, the tournament's STREAM_MATCH_DEAL numbering), the first starter
is the same table seat, and the tie-breaks of R14 come from one stream per match. With 2
players the two rotations are the same deal sequence with the seats swapped. A match
(all its rotations) is the independent unit: the interval is over matches of the
per-match mean (tournament.py `estimate`), paired by duplicate.

A's *score* in a match is 1 for a win alone, 1/k for a win shared by k players (R14: all
who reach the goal win), else 0; so a policy against itself scores 1/n in expectation.
`win_rate` counts a shared win as a win (the tournaments' match-win rate).

Streaming and resuming: progress lines on stderr; Ctrl-C stops after the current round
and returns the finished matches, marked interrupted; with `checkpoint`, the finished
matches are written there atomically (every few seconds and at the end, with the
provenance header) and `resume=True` continues a run from its file.
"""

from __future__ import annotations

import dataclasses
import sys
import time
from collections.abc import Callable
from pathlib import Path

import numpy as np

from solver import provenance
from solver.evaluation.report import resolve_policies
from solver.evaluation.tournament import MAX_MATCH_ROUNDS, Estimate, estimate, round_winners
from solver.match.standings import default_goal
from solver.match.value import round_utility_table
from solver.policies.compiled import TABLE_MISS, build_bank, probabilities
from solver.search.policy import SearchPolicy
from solver.sim.playout import dealt_card, deck_cards, shuffled
from solver.sim.rng import (STREAM_MATCH_DEAL, STREAM_MATCH_DECISIONS, STREAM_MATCH_START,
                            STREAM_MATCH_TIES, check_seed, next_below, stream_seed)
from solver.sim.sampler import sample

Policy = Callable[[object, int, tuple, np.ndarray], int]
KIND = "match duel"
SAVE_SECONDS = 5.0
# Columns of DuelResult.games: per match and rotation.
G_A_WON, G_WINNERS, G_ROUNDS = range(3)


def bank_policy(game, name: str) -> Callable[[], Policy]:
    """make_policy for a policy of the compiled bank: 'table' (the game's shipped table),
    a heuristic or a policy file, its action drawn from the stream with the one sampler.
    It ignores the standings (it maximises the round)."""
    from spiel_game.game import variant

    params = game.get_parameters()
    labels, specs = resolve_policies([name], params["deck"], variant(game), game.num_players())
    bank = build_bank(specs, game, labels)

    def policy(state, player, standings, rng):
        legal, probs, source = probabilities(bank, 0, state.array, player)
        if source == TABLE_MISS:  # a table without the key: uniform, as in a tournament
            probs = np.full(len(legal), 1.0 / len(legal))
        return int(legal[sample(probs, len(legal), rng)])

    return lambda: policy


@dataclasses.dataclass
class DuelResult:
    """Finished matches first_match, first_match + 1, ...: games[m, r] = (A won, number
    of winners, rounds) in rotation r (A at table seat r)."""

    labels: tuple[str, str]
    players: int
    goal: int
    seed: int
    first_match: int
    games: np.ndarray  # int64 (matches, rotations, 3)
    seconds: float = 0.0
    interrupted: bool = False

    @property
    def matches(self) -> int:
        return len(self.games)

    def score(self) -> Estimate:
        """A's mean match score (shared wins split), paired over rotations."""
        won = self.games[:, :, G_A_WON]
        share = np.where(won > 0, 1.0 / np.maximum(self.games[:, :, G_WINNERS], 1), 0.0)
        return estimate(share.mean(axis=1))

    def win_rate(self) -> Estimate:
        """A's share of matches won, a shared win counted as a win."""
        return estimate(self.games[:, :, G_A_WON].mean(axis=1))

    def shared_rate(self) -> float:
        return float((self.games[:, :, G_WINNERS] > 1).mean()) if self.matches else np.nan

    def to_dict(self) -> dict:
        score, win = self.score(), self.win_rate()
        return {"labels": list(self.labels), "players": self.players, "goal": self.goal,
                "seed": self.seed, "first_match": self.first_match,
                "matches": self.matches, "interrupted": self.interrupted,
                "score": score.to_dict(), "win_rate": win.to_dict(),
                "shared_rate": self.shared_rate(),
                "games_columns": ["a_won", "winners", "rounds"],
                "games": self.games.tolist()}


def _play_match(game, policies, cards, seed, goal, match, rotation, ties, first_starter,
                on_round) -> tuple[int, int, int]:
    """One match of one rotation: (A won, winners, rounds). policies[t]: table seat t's."""
    n = game.num_players()
    order = np.empty_like(cards)
    totals = [0] * n
    starter = first_starter
    winners = np.zeros(n, dtype=np.int32)
    rng = np.zeros(1, dtype=np.uint64)
    played = 0
    while max(totals) < goal and played < MAX_MATCH_ROUNDS:
        shuffled(cards, seed, STREAM_MATCH_DEAL, match * MAX_MATCH_ROUNDS + played, order)
        rng[0] = stream_seed(seed, STREAM_MATCH_DECISIONS,
                             (match * n + rotation) * MAX_MATCH_ROUNDS + played)
        standings = tuple(totals[(starter + p) % n] for p in range(n))
        state = game.new_initial_state()
        while not state.is_terminal():
            if state.is_chance_node():
                state.apply_action(int(dealt_card(state.array, order)))
            else:
                p = state.current_player()
                state.apply_action(policies[(starter + p) % n](state, p, standings, rng))
        tokens = state.view().tokens
        for p in range(n):
            totals[(starter + p) % n] += tokens[p]
        count = round_winners(state.array, winners)
        if on_round is not None:
            on_round(match, rotation, played, state, starter)
        if count == 0:
            starter = next_below(ties, n)
        else:
            seats = [(starter + p) % n for p in range(n) if winners[p]]
            starter = seats[next_below(ties, count) if count > 1 else 0]
        played += 1
    reached = [t >= goal for t in totals]
    return int(reached[rotation]), int(sum(reached)), played


def _record(result: DuelResult, game) -> dict:
    return {**provenance.header(game, seconds=result.seconds), "what": KIND,
            **result.to_dict()}


def _resumed(path: Path, labels, players, goal, seed, first_match
             ) -> tuple[np.ndarray, float]:
    """(games, seconds) of a checkpoint of this run; ValueError for another run's."""
    record = provenance.read_json(path)
    want = {"what": KIND, "labels": list(labels), "players": players, "goal": goal,
            "seed": seed, "first_match": first_match}
    got = {k: record.get(k) for k in want}
    if got != want:
        wrong = ", ".join(f"{k} {got[k]!r} (this run: {want[k]!r})" for k in want
                          if got[k] != want[k])
        raise ValueError(f"{path}: a checkpoint of another run ({wrong}); give a new file "
                         "or the same parameters")
    games = np.array(record["games"], dtype=np.int64).reshape(-1, players, 3)
    return games, float(record["seconds"])


def _print_progress(result: DuelResult, total: int) -> None:
    if result.matches:
        score = result.score()
        print(f"match {result.matches}/{total}: {result.labels[0]} scores "
              f"{100 * score.mean:.1f}% ± {100 * score.half_width:.1f} "
              f"(shared {100 * result.shared_rate():.1f}%, {result.seconds:.0f} s)",
              file=sys.stderr, flush=True)


def play_matches(game, make_policy_a: Callable[[], Policy], make_policy_b: Callable[[], Policy],
                 matches: int, seed: int = 1, goal: int | None = None,
                 first_match: int = 0, labels: tuple[str, str] = ("A", "B"),
                 checkpoint: str | Path | None = None, resume: bool = False,
                 progress: Callable[[DuelResult, int], None] | None = _print_progress,
                 progress_seconds: float = 10.0,
                 on_round: Callable | None = None,
                 seconds: float | None = None) -> DuelResult:
    """Play `matches` duplicate matches (numbered from `first_match`) of A against B
    (module docstring); goal: R14's by default. `progress(result, matches)` every
    `progress_seconds` and at the end (default: a line on stderr; None: quiet);
    `on_round(match, rotation, round, terminal state, starter)` after every round;
    `seconds`: a time budget, no match begun once it is spent (the result says how many
    were played)."""
    n = game.num_players()
    goal = default_goal(n) if goal is None else goal
    seed = check_seed(seed)
    if isinstance(matches, bool) or not isinstance(matches, (int, np.integer)) or matches < 1:
        raise ValueError(f"matches {matches!r}: allowed is a whole number from 1")
    if isinstance(goal, bool) or not isinstance(goal, (int, np.integer)) or goal < 1:
        raise ValueError(f"goal {goal!r}: allowed is a whole number of tokens from 1")
    if seconds is not None and not seconds > 0:
        raise ValueError(f"seconds {seconds!r}: allowed is a time budget above 0")
    if resume and checkpoint is None:
        raise ValueError("resume needs the checkpoint file to continue from")
    checkpoint = Path(checkpoint) if checkpoint is not None else None
    games = np.zeros((0, n, 3), dtype=np.int64)
    earlier = 0.0  # seconds of the resumed part
    if resume and checkpoint.exists():
        games, earlier = _resumed(checkpoint, labels, n, goal, seed, first_match)
        games = games[:matches]
    result = DuelResult(tuple(labels), n, int(goal), seed, first_match, games)
    cards = deck_cards(game.initial_array)
    start = time.perf_counter()
    last_save = last_report = start
    rows = list(games)

    def update(interrupted=False) -> None:
        result.games = np.array(rows, dtype=np.int64).reshape(-1, n, 3)
        result.seconds = earlier + time.perf_counter() - start
        result.interrupted = interrupted

    try:
        for m in range(len(rows), matches):
            if seconds is not None and earlier + time.perf_counter() - start >= seconds:
                break
            match = first_match + m
            start_stream = np.zeros(1, dtype=np.uint64)
            start_stream[0] = stream_seed(seed, STREAM_MATCH_START, match)
            first_starter = next_below(start_stream, n)
            row = []
            for r in range(n):
                ties = np.zeros(1, dtype=np.uint64)
                ties[0] = stream_seed(seed, STREAM_MATCH_TIES, match)  # the same each way
                a, b = make_policy_a(), make_policy_b()
                policies = [a if t == r else b for t in range(n)]
                row.append(_play_match(game, policies, cards, seed, goal, match, r, ties,
                                       first_starter, on_round))
            rows.append(row)
            now = time.perf_counter()
            if checkpoint is not None and now - last_save >= SAVE_SECONDS:
                update()
                provenance.write_json(checkpoint, _record(result, game))
                last_save = now
            if progress is not None and now - last_report >= progress_seconds:
                update()
                progress(result, matches)
                last_report = now
        update()
    except KeyboardInterrupt:
        update(interrupted=True)
    if checkpoint is not None:
        provenance.write_json(checkpoint, _record(result, game))
    if progress is not None:
        progress(result, matches)
    return result


def search_policy(game, policies, limits, seed: int = 0, values=None
                  ) -> Callable[[], Policy]:
    """make_policy for the decision-time search (solver/search) with the blueprint
    `policies` (hint/advice.py `load_policies`): with `values` (a MatchValues) match-aware,
    each round scored by round_utility_table(values, standings, 0), the standings being by
    the round's engine seats, one search per standings (its answers are kept per
    information state, so a table of its own); without, it maximises the margin."""
    def make() -> Policy:
        searches: dict[tuple, SearchPolicy] = {}

        def policy(state, player, standings, rng):
            key = tuple(standings) if values is not None else ()
            search = searches.get(key)
            if search is None:
                table = None if values is None else round_utility_table(values, key, 0)
                search = searches[key] = SearchPolicy(game, policies, limits, seed,
                                                      round_table=table)
            legal, probs = search.probabilities(state.array, player)
            return int(legal[sample(np.asarray(probs, np.float64), len(legal), rng)])

        return policy

    return make
