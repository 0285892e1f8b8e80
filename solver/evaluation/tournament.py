"""Tournaments: policies against each other on the full game, compiled, with duplicate deals,
for every engine.

A *lineup* gives one policy chain per role (a chain of one policy of a
solver/policies/compiled.py bank for the Love Letter engine's games; a han_solo player's
table and its heuristic, solver/han_solo/players.py); role j plays seat j. Every deal is
played once per cyclic rotation of the roles over the seats (role j at seat (j + r) % n in
rotation r), with the same cards in the same order: with 2 players, the duplicate pair,
the same shuffle with the seats swapped. Seat advantage and card luck cancel within a
deal, so a deal (all its rotations) is the independent unit of the statistics.

The kernels take the engine's interface and the game's play-out hooks (solver/sim/games.py
`playout_game`): deals (`start_deal`: the order and the deal's own streams, restarted for
each rotation), the decisions' stream of a rotation, a round's scores and winners are the
game's; the play-out loop and its counts of table misses are solver/sim/playout.py's.

Matches (docs/RULES.md R14, for a game with a token goal: the Love Letter engine's) play
rounds until a player reaches the token goal (2 players 6, 3 players 5, 4 players 4, more
3); the round winner starts the next round, a tie for the round is broken at random among
the tied winners, a round without winner is started by a random player; the first round's
starter is random. A match is played once per rotation of the roles, with the same deals
round by round.

Statistics: mean over units ± 1.96 standard errors (normal approximation), units being
deals or matches (averaged over their rotations).

Every random choice comes from a stream of solver/sim/rng.py keyed by (seed, purpose,
index): a deal, or a game's decisions, is the same whatever else is played.
"""

from __future__ import annotations

import dataclasses
import math
import time
from collections.abc import Callable

import numpy as np
from numba import njit

from spiel_game import layout as L

from solver.policies.compiled import TABLE, PolicyBank
from solver.sim.games import TOKEN_GOAL, playout_game  # noqa: F401  (TOKEN_GOAL: R14's)
from solver.sim.playout import play_out, reset, shuffled
from solver.sim.rng import (STREAM_MATCH_DECISIONS, STREAM_MATCH_DEAL, STREAM_MATCH_START,
                            STREAM_MATCH_TIES, check_seed, next_below, stream_seed)

_JIT = dict(cache=True, nogil=True)
Z_95 = 1.959963984540054
MAX_MATCH_ROUNDS = 500  # a safety stop; matches take about 6-15 rounds

# Per-role counters of a run (LineupResult.counts).
C_DECISIONS, C_TABLE_HITS, C_TABLE_MISSES = range(3)
_NO_STOP = -1  # play every seat


# Playing --------------------------------------------------------------------------------------

@njit(**_JIT)
def _run_lineup(engine, hooks, initial, bank, chains, cards, seed, first_deal, num_deals,
                scores, winners, counts):
    """scores[d, r, j, k]: role j's k-th round score (hooks.round_scores) in deal
    first_deal + d, rotation r; winners[d, r]: the round winners as a bitmask of roles
    (bit j: role j won the round, hooks.winners); counts[j, k]: role j's decisions taken
    by position k of its chain chains[j] (k = its length: misses)."""
    n = engine.num_players(initial)
    s = np.empty_like(initial)
    order = np.empty_like(cards)
    deal_start = np.zeros(hooks.deal_size(), dtype=np.uint64)
    deal_state = np.zeros(hooks.deal_size(), dtype=np.uint64)
    legal = np.empty(hooks.max_actions(), dtype=np.int32)
    probs = np.empty(hooks.max_actions())
    rng = np.empty(1, dtype=np.uint64)
    seat_chain = np.empty((n, chains.shape[1]), dtype=np.int32)
    seat_role = np.empty(n, dtype=np.int32)
    round_scores = np.zeros((n, hooks.num_scores()))
    for d in range(num_deals):
        deal = first_deal + d
        hooks.start_deal(cards, seed, deal, order, deal_start)
        for r in range(n):
            for j in range(n):
                seat_chain[(j + r) % n, :] = chains[j]
                seat_role[(j + r) % n] = j
            rng[0] = hooks.decision_stream(seed, deal, r, seat_chain)
            deal_state[:] = deal_start
            reset(engine, s, initial)
            play_out(engine, hooks, s, order, deal_state, seat_chain, bank, rng, legal,
                     probs, counts, seat_role, _NO_STOP)
            hooks.round_scores(s, round_scores)
            won = hooks.winners(s)
            mask = 0
            for p in range(n):
                scores[d, r, seat_role[p], :] = round_scores[p, :]
                mask |= ((won >> p) & 1) << seat_role[p]
            winners[d, r] = mask


@njit(**_JIT)
def round_winners(s, out):
    """out[p] = 1 for the round's winners (R11, R12, C8), as the engine recorded them: not
    counting tokens from cards (Han Solo, the classic Spy)."""
    n = s[L.S_NUM_PLAYERS]
    count = 0
    for p in range(n):
        out[p] = (s[L.S_WINNERS] >> p) & 1
        count += out[p]
    return count


@njit(**_JIT)
def _starter_after(won, n, starter, ties):
    """The table seat that starts the round after a round started by table seat
    `starter` whose winners were `won` (a bitmask of engine seats; R14): its winner, a
    tie among winners broken by the stream `ties`, or a random player when nobody won."""
    count = 0
    for i in range(n):
        count += (won >> i) & 1
    if count == 0:
        return next_below(ties, n)
    pick = next_below(ties, count) if count > 1 else 0
    for i in range(n):
        if (won >> i) & 1 == 1:
            if pick == 0:
                return (starter + i) % n
            pick -= 1
    return starter


@njit(**_JIT)
def next_starter(s, starter, ties, winners):
    """The table seat that starts the round after the finished round s, started by table
    seat `starter` (R14): its winner, a tie among winners broken by the stream `ties`, or
    a random player when nobody won. `winners`: int32 work space of n."""
    n = s[L.S_NUM_PLAYERS]
    round_winners(s, winners)
    won = 0
    for i in range(n):
        won |= winners[i] << i
    return _starter_after(won, n, starter, ties)


@njit(**_JIT)
def _run_matches(engine, hooks, initial, bank, chains, cards, seed, goal, first_match,
                 num_matches, wins, rounds, counts):
    """wins[m, r, j]: role j reached the goal (score 0 of hooks.round_scores summed over
    the rounds) in match first_match + m, rotation r. Each round's cards are a shuffle of
    its own (the match's deal streams; a game whose deals have streams of their own has
    no matches)."""
    n = engine.num_players(initial)
    s = np.empty_like(initial)
    order = np.empty_like(cards)
    no_state = np.zeros(0, dtype=np.uint64)
    legal = np.empty(hooks.max_actions(), dtype=np.int32)
    probs = np.empty(hooks.max_actions())
    rng = np.empty(1, dtype=np.uint64)
    ties = np.empty(1, dtype=np.uint64)
    seat_chain = np.empty((n, chains.shape[1]), dtype=np.int32)
    seat_role = np.empty(n, dtype=np.int32)
    totals = np.zeros(n, dtype=np.int64)  # per table seat
    round_scores = np.zeros((n, hooks.num_scores()))
    for m in range(num_matches):
        match = first_match + m
        start = np.empty(1, dtype=np.uint64)
        start[0] = stream_seed(seed, STREAM_MATCH_START, match)
        first_starter = next_below(start, n)
        for r in range(n):
            ties[0] = stream_seed(seed, STREAM_MATCH_TIES, match * n + r)
            totals[:] = 0
            starter = first_starter
            played = 0
            while totals.max() < goal and played < MAX_MATCH_ROUNDS:
                shuffled(cards, seed, STREAM_MATCH_DEAL, match * MAX_MATCH_ROUNDS + played,
                         order)
                # Engine seat i is table seat (starter + i) % n, where sits role
                # (table seat - r) % n.
                for i in range(n):
                    role = ((starter + i) % n - r) % n
                    seat_chain[i, :] = chains[role]
                    seat_role[i] = role
                rng[0] = stream_seed(seed, STREAM_MATCH_DECISIONS,
                                     (match * n + r) * MAX_MATCH_ROUNDS + played)
                reset(engine, s, initial)
                play_out(engine, hooks, s, order, no_state, seat_chain, bank, rng, legal,
                         probs, counts, seat_role, _NO_STOP)
                hooks.round_scores(s, round_scores)
                for i in range(n):
                    totals[(starter + i) % n] += np.int64(round_scores[i, 0])
                starter = _starter_after(hooks.winners(s), n, starter, ties)
                played += 1
            rounds[m, r] = played
            for table_seat in range(n):
                wins[m, r, (table_seat - r) % n] = 1 if totals[table_seat] >= goal else 0


# Statistics ----------------------------------------------------------------------------------

@dataclasses.dataclass(frozen=True)
class Estimate:
    """A mean over independent units with its 95% confidence interval (normal)."""

    mean: float
    half_width: float  # 1.96 standard errors
    units: int

    @property
    def low(self) -> float:
        return self.mean - self.half_width

    @property
    def high(self) -> float:
        return self.mean + self.half_width

    def contains(self, value: float) -> bool:
        return self.low <= value <= self.high

    def __str__(self) -> str:
        return f"{self.mean:+.4f} ± {self.half_width:.4f}"

    def to_dict(self) -> dict:
        return {"mean": self.mean, "ci95_low": self.low, "ci95_high": self.high,
                "half_width": self.half_width, "units": self.units}


def estimate(unit_values) -> Estimate:
    """Mean ± 1.96 × sample standard deviation / sqrt(units)."""
    values = np.asarray(unit_values, dtype=np.float64)
    if len(values) == 0:
        return Estimate(math.nan, math.nan, 0)
    if len(values) == 1:
        return Estimate(float(values[0]), math.inf, 1)
    se = values.std(ddof=1) / math.sqrt(len(values))
    return Estimate(float(values.mean()), float(Z_95 * se), len(values))


def margins(tokens: np.ndarray) -> np.ndarray:
    """Margin utility per role: tokens minus the mean of the others' (last axis = roles)."""
    n = tokens.shape[-1]
    total = tokens.sum(axis=-1, keepdims=True)
    return tokens - (total - tokens) / (n - 1)


# Runs ------------------------------------------------------------------------------------------

@dataclasses.dataclass
class LineupResult:
    """Rounds (duplicate deals) and matches of one lineup."""

    lineup: list[str]  # policy name per role
    tokens: np.ndarray  # (deals, rotations, roles) points per round (tokens; han_solo: credits)
    wins: np.ndarray  # (matches, rotations, roles) 1 if the role reached the token goal
    match_rounds: np.ndarray  # (matches, rotations)
    counts: np.ndarray  # (roles, 3): decisions, table hits, table misses
    seconds: float
    interrupted: bool = False
    # (deals, rotations) round winners as a bitmask of roles; None where not recorded
    winners: np.ndarray | None = None
    # (deals, rotations, roles, k): every round score of the game (solver/sim/games.py
    # PlayoutGame.scores; `tokens` is score 0); None where not recorded
    scores: np.ndarray | None = None

    @property
    def deals(self) -> int:
        return len(self.tokens)

    @property
    def rounds(self) -> int:
        return int(self.tokens.shape[0] * self.tokens.shape[1])

    def _per_unit(self, values: np.ndarray, roles) -> np.ndarray:
        """Mean over rotations and over `roles`: one value per unit (deal or match)."""
        return values[:, :, list(roles)].mean(axis=(1, 2))

    def margin(self, roles=(0,)) -> Estimate:
        """Mean margin per round of `roles` (tokens minus the others' mean)."""
        return estimate(self._per_unit(margins(self.tokens.astype(float)), roles))

    def mean_tokens(self, roles=(0,)) -> Estimate:
        return estimate(self._per_unit(self.tokens.astype(float), roles))

    def win_rate(self, roles=(0,)) -> Estimate:
        """Share of matches in which `roles` reached the goal (shared wins count)."""
        return estimate(self._per_unit(self.wins.astype(float), roles))

    def shared_win_rate(self) -> float:
        """Share of matches won by more than one player at once."""
        if self.wins.size == 0:
            return math.nan
        return float((self.wins.sum(axis=2) > 1).mean())

    def mean_match_rounds(self) -> float:
        return float(self.match_rounds.mean()) if self.match_rounds.size else math.nan

    def miss_rate(self, roles=(0,)) -> float:
        """Share of the roles' table look-ups whose key was not in the table."""
        roles = list(roles)
        hits = self.counts[roles, C_TABLE_HITS].sum()
        misses = self.counts[roles, C_TABLE_MISSES].sum()
        return float(misses / (hits + misses)) if hits + misses else math.nan


def play_lineup(game, bank: PolicyBank, lineup: list[int], deals: int, matches: int = 0,
                seed: int = 1, first_deal: int = 0,
                on_progress: Callable[[int, int], None] | None = None,
                chunk_seconds: float = 0.5) -> LineupResult:
    """Play `deals` duplicate deals (numbered from `first_deal`, so that runs can be
    split) and `matches` matches of `lineup` (bank indices per role, each a chain of one
    policy). Runs in chunks; `on_progress(done, total)` after each (units: deals +
    matches). Ctrl-C stops after the current chunk and returns what was played, marked
    interrupted."""
    n = game.num_players()
    if len(lineup) != n:
        raise ValueError(f"a lineup needs one policy per seat ({n}), got {len(lineup)}")
    roles = np.array(lineup, dtype=np.int32)
    return play_chains(game, bank.arrays(), roles[:, None], [bank.names[i] for i in lineup],
                       deals, matches, seed, first_deal, on_progress, chunk_seconds,
                       tables=bank.kinds[roles] == TABLE)


def play_chains(game, bank: tuple, chains: np.ndarray, names: list[str], deals: int,
                matches: int = 0, seed: int = 1, first_deal: int = 0,
                on_progress: Callable[[int, int], None] | None = None,
                chunk_seconds: float = 0.5, tables=None) -> LineupResult:
    """`play_lineup` for any game (solver/sim/games.py): role j plays the policy chain
    chains[j] (int32 rows, indices of the game's policy arrays `bank`), named names[j].
    tables[j]: whether the chain starts with a table (its first policy's decisions are
    the table's hits, the others' decisions its misses). Matches only for a game with a
    token goal."""
    playing = playout_game(game)
    n = game.num_players()
    chains = np.ascontiguousarray(chains, dtype=np.int32)
    if len(chains) != n:
        raise ValueError(f"a lineup needs one policy per seat ({n}), got {len(chains)}")
    if deals < 0 or matches < 0:
        raise ValueError("deals and matches must not be negative")
    if matches and playing.token_goal is None:
        raise ValueError(f"{game.get_type().short_name} has no matches to a token goal: "
                         "play deals")
    seed = check_seed(seed)
    initial = playing.root(game)
    cards = playing.deck(initial)
    scores = np.zeros((deals, n, n, len(playing.scores)))
    round_winner_masks = np.zeros((deals, n), dtype=np.int32)
    wins = np.zeros((matches, n, n), dtype=np.int8)
    match_rounds = np.zeros((matches, n), dtype=np.int32)
    played = np.zeros((n, chains.shape[1] + 1), dtype=np.int64)  # by chain position
    goal = playing.token_goal[n] if matches else 0
    engine, hooks = playing.engine, playing.hooks
    done_deals = done_matches = 0
    interrupted = False
    start = time.perf_counter()
    try:
        for kind, total in (("deals", deals), ("matches", matches)):
            size = 16
            done = 0
            while done < total:
                size = min(size, total - done)
                t0 = time.perf_counter()
                if kind == "deals":
                    _run_lineup(engine, hooks, initial, bank, chains, cards, seed,
                                first_deal + done, size, scores[done:done + size],
                                round_winner_masks[done:done + size], played)
                    done_deals = done + size
                else:
                    _run_matches(engine, hooks, initial, bank, chains, cards, seed, goal, done,
                                 size, wins[done:done + size],
                                 match_rounds[done:done + size], played)
                    done_matches = done + size
                done += size
                if on_progress:
                    on_progress(done_deals + done_matches, deals + matches)
                if time.perf_counter() - t0 < chunk_seconds:
                    size *= 2
    except KeyboardInterrupt:
        interrupted = True
    # A table's decisions are its hits (its chain's first policy decided) and its misses
    # (a later one, or none); a heuristic looks nothing up (and never misses).
    tables = np.zeros(n, bool) if tables is None else np.asarray(tables, bool)
    hits = np.where(tables, played[:, 0], 0)
    misses = np.where(tables, played[:, 1:].sum(axis=1), played[:, -1])
    counts = np.column_stack([played.sum(axis=1), hits, misses])
    scores = scores[:done_deals]
    return LineupResult(list(names), scores[..., 0].astype(playing.points_dtype),
                        wins[:done_matches], match_rounds[:done_matches], counts,
                        time.perf_counter() - start, interrupted,
                        round_winner_masks[:done_deals], scores)



def mean_interval(x: np.ndarray) -> dict:
    """`estimate` as a record: mean and its 95% normal interval (nan bounds for fewer
    than 2 values)."""
    found = estimate(x)
    half = found.half_width if found.units > 1 else math.nan
    return {"mean": found.mean, "low": found.mean - half, "high": found.mean + half}


def duplicate_match(game, bank: tuple, table_policy: int, a: int, b: int, deals: int,
                    seed: int, fallback: int, score: str, played: str) -> dict:
    """Policy ids a and b of a game on its own engine (its heuristics, or `table_policy`:
    the table of `bank`, then `fallback` where it has no key) on `deals` duplicate deals
    (`play_chains`): a in one seat and b in the other n - 1, each deal played in every
    rotation. a's margin (its return, score 1: its points less the others' mean) per deal
    averaged over the rotations; a's and the others' points a round (score 0, named
    `score`: `score` and `opponent_<score>`); a's game-win rate (the share of the others
    it beats; a tie counts half); `played`: the name of the count of games played."""
    n = game.num_players()
    chains = [(table_policy, fallback) if p == table_policy else (p, p)
              for p in [a] + [b] * (n - 1)]
    result = play_chains(game, bank, np.array(chains, np.int32), ["a"] + ["b"] * (n - 1),
                         deals, seed=seed, chunk_seconds=math.inf,
                         tables=[p == table_policy for p in [a] + [b] * (n - 1)])
    if result.interrupted:
        raise KeyboardInterrupt
    points = result.scores[..., 0]  # (deal, rotation, role)
    mine = points[:, :, 0].T  # (rotation, deal)
    others = points[:, :, 1:].transpose(1, 0, 2)  # (rotation, deal, role)
    per_deal = result.scores[:, :, 0, 1].mean(axis=1)  # a's return, every rotation
    wins = ((mine[:, :, None] > others) + 0.5 * (mine[:, :, None] == others)).mean(axis=2)
    misses = int(result.counts[:, 2].sum())
    return {"deals": deals, played: n * deals, "seed": seed,
            "margin": mean_interval(per_deal), score: mean_interval(mine.mean(axis=0)),
            f"opponent_{score}": mean_interval(others.mean(axis=2).mean(axis=0)),
            "win_rate": mean_interval(wins.mean(axis=0)), "table_misses": misses,
            "table_decisions": int(result.counts[:, 1].sum()) + misses}

# Cross-tables -------------------------------------------------------------------------------

@dataclasses.dataclass
class CrossTable:
    """Every policy against every other: cell (a, b) is a lineup of a (role 0) against b.

    2 players: the lineup [a, b]; cell (b, a) is the same games seen from b's role.
    3+ players: a in one seat against b in all the others ([a, b, b]), which is another
    lineup than (b, a). The diagonal is a policy against itself (margin near 0).
    """

    policies: list[str]
    players: int
    cells: dict[tuple[str, str], LineupResult]
    interrupted: bool = False

    def _cell(self, a: str, b: str) -> tuple[LineupResult, tuple, tuple] | None:
        """The lineup holding a against b, a's roles and b's roles there."""
        others = tuple(range(1, self.players))
        if (a, b) in self.cells:
            return self.cells[(a, b)], (0,), others
        if self.players == 2 and (b, a) in self.cells:
            return self.cells[(b, a)], (1,), (0,)
        return None

    def margin(self, a: str, b: str) -> Estimate | None:
        """a's mean margin per round against b."""
        cell = self._cell(a, b)
        return cell[0].margin(cell[1]) if cell else None

    def mean_tokens(self, a: str, b: str) -> Estimate | None:
        cell = self._cell(a, b)
        return cell[0].mean_tokens(cell[1]) if cell else None

    def win_rate(self, a: str, b: str) -> Estimate | None:
        """Share of matches against b that a wins (reaches the goal, shared or not)."""
        cell = self._cell(a, b)
        return cell[0].win_rate(cell[1]) if cell and cell[0].wins.size else None

    def miss_rate(self, policy: str) -> float:
        """A table policy's share of look-ups not in its table, over all its cells."""
        hits = misses = 0
        for result in self.cells.values():
            roles = [j for j, name in enumerate(result.lineup) if name == policy]
            hits += result.counts[roles, C_TABLE_HITS].sum()
            misses += result.counts[roles, C_TABLE_MISSES].sum()
        return float(misses / (hits + misses)) if hits + misses else math.nan


def cross_table_cells(names: list[str], players: int, diagonal: bool = True
                      ) -> list[tuple[str, str]]:
    """The (a, b) cells to play: a before b for 2 players (the mirror is the same games)."""
    cells = []
    for i, a in enumerate(names):
        for j, b in enumerate(names):
            if (i == j and not diagonal) or (players == 2 and j < i):
                continue
            cells.append((a, b))
    return cells


def play_cross_table(game, bank: PolicyBank, deals: int, matches: int, seed: int = 1,
                     diagonal: bool = True,
                     on_progress: Callable[[str, int, int], None] | None = None
                     ) -> CrossTable:
    """Every pair of the bank's policies, the same deals in every cell (common cards).
    Ctrl-C keeps the finished cells and the played part of the current one."""
    players = game.num_players()
    table = CrossTable(list(bank.names), players, {})
    for a, b in cross_table_cells(bank.names, players, diagonal):
        lineup = [bank.index(a)] + [bank.index(b)] * (players - 1)
        progress = None
        if on_progress:
            def progress(done, total, label=f"{a} v {b}"):
                on_progress(label, done, total)
        result = play_lineup(game, bank, lineup, deals, matches, seed, on_progress=progress)
        table.cells[(a, b)] = result
        if result.interrupted:
            table.interrupted = True
            break
    return table
