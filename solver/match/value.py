"""Match values: each player's probability of winning the match (docs/RULES.md R14) from
the standings, by dynamic programming over rounds, and the round utility table they give.

V(t, s)[i] is the probability that player i is among the match winners when the players
hold t = (t_0, ..., t_{n-1}) tokens (each 0..goal-1, by table seat) and table seat s
starts the next round, every round's outcome drawn from the per-starter distribution
P_s (outcomes.py: the codes of tokens and round winners). After a round with tokens d and
winners W:

- if some t_i + d_i >= goal the match is over and its winners are every such i (several
  may win at once, R14): V = 1 for them, 0 for the others;
- else the next starter is a round winner, uniformly among W (a tie broken at random), or
  any player uniformly when W is empty (R7's round without winner), and the match goes on
  from t + d.

The distribution may also be one per standings (`match_values` with probs of shape
(goal,)*n + (n, codes)): the rounds of a player whose play depends on the score
(solver/match/exact.py), by the same programme.

Every round that awards a token makes sum(t) larger, so the standings are solved from
the fullest down. A round that awards no token leaves t as it is and only moves the
starter: at each t the values of the n starters solve a small linear system
(I - M) V(t, .) = b, M[s, s'] the probability that a round started by s awards nothing
and s' starts the next; solved exactly (Gaussian elimination), not by truncation. It is
singular only if some starters' rounds never award a token (the match would not end):
refused.

Uncertainty. The outcome distribution is estimated from counted rounds. Its posterior
given the counts is taken as a Dirichlet over the outcomes seen, one per row of counts
(the Bayesian bootstrap, Rubin 1981: the Dirichlet(counts) posterior; an outcome never
seen gets no mass, which with the tens of thousands of rounds counted moves a value by
less than the interval's width); V is solved under `draws` seeded draws and the 2.5% and
97.5% quantiles of each entry are its 95% interval.
"""

from __future__ import annotations

import dataclasses

import numpy as np
from numba import njit

from solver.match.outcomes import RoundOutcomes, code_arrays, num_codes
from solver.match.standings import check_standings, default_goal
from solver.sim.rng import check_seed

_JIT = dict(cache=True, nogil=True)
_SINGULAR = 1e-12  # a pivot below this: some starters' rounds never award a token


@njit(**_JIT)
def _solve_values(probs, row_of, support, tokens, masks, goal, split, out):
    """out[idx, s, i] = V(t, s)[i] for standings index idx = sum_i t_i goal**(n-1-i) (so
    out reshapes to (goal,)*n + (n, n)); probs[r, s, c] the outcome distribution of
    starter s in row r, the row of standings idx being row_of[idx]; support[r, s] its codes
    of positive probability (-1 padded). With `split`, a match won by k players at once
    gives each 1/k (a score) rather than 1. Returns -1, or the index of standings whose
    self-loop system is singular."""
    n = probs.shape[1]
    size = goal ** n
    stride = np.empty(n, dtype=np.int64)
    for i in range(n):
        stride[i] = goal ** (n - 1 - i)
    t = np.empty(n, dtype=np.int64)
    b = np.empty((n, n))
    m = np.empty((n, n))
    a = np.empty((n, n))
    for idx in range(size - 1, -1, -1):
        for i in range(n):
            t[i] = (idx // stride[i]) % goal
        b[:, :] = 0.0
        m[:, :] = 0.0
        row = row_of[idx]
        for s in range(n):
            for k in range(support.shape[2]):
                c = support[row, s, k]
                if c < 0:
                    break
                p = probs[row, s, c]
                over = False
                moved = False
                nxt = 0
                for i in range(n):
                    ti = t[i] + tokens[c, i]
                    if ti >= goal:
                        over = True
                    if tokens[c, i] > 0:
                        moved = True
                    nxt += ti * stride[i]
                if over:
                    share = p
                    if split:
                        winners = 0
                        for i in range(n):
                            if t[i] + tokens[c, i] >= goal:
                                winners += 1
                        share = p / winners
                    for i in range(n):
                        if t[i] + tokens[c, i] >= goal:
                            b[s, i] += share
                    continue
                mask = masks[c]
                count = 0
                for j in range(n):
                    count += (mask >> j) & 1
                for j in range(n):
                    if count == 0:
                        q = p / n
                    elif (mask >> j) & 1:
                        q = p / count
                    else:
                        continue
                    if moved:
                        for i in range(n):
                            b[s, i] += q * out[nxt, j, i]
                    else:
                        m[s, j] += q
        # (I - M) x = b by Gaussian elimination with partial pivoting.
        for r in range(n):
            for j in range(n):
                a[r, j] = (1.0 if r == j else 0.0) - m[r, j]
        for col in range(n):
            pivot = col
            for r in range(col + 1, n):
                if abs(a[r, col]) > abs(a[pivot, col]):
                    pivot = r
            if abs(a[pivot, col]) < _SINGULAR:
                return idx
            if pivot != col:
                for j in range(n):
                    a[col, j], a[pivot, j] = a[pivot, j], a[col, j]
                    b[col, j], b[pivot, j] = b[pivot, j], b[col, j]
            for r in range(col + 1, n):
                f = a[r, col] / a[col, col]
                if f != 0.0:
                    for j in range(col, n):
                        a[r, j] -= f * a[col, j]
                    for j in range(n):
                        b[r, j] -= f * b[col, j]
        for r in range(n - 1, -1, -1):
            for i in range(n):
                x = b[r, i]
                for j in range(r + 1, n):
                    x -= a[r, j] * out[idx, j, i]
                out[idx, r, i] = x / a[r, r]
    return -1


def match_values(probs, goal: int, split: bool = False) -> np.ndarray:
    """V as an array win[t_0, ..., t_{n-1}, starter, i] (module docstring) from probs,
    each row a distribution over the 3**n * 2**n codes by table seat: shape (n starters,
    codes), the same at every standings, or (goal,)*n + (n, codes), the rounds played at
    standings t drawn from probs[t] (a player whose play depends on the score). With
    `split`, a match won by k players at once counts 1/k for each: win is then each
    player's expected match score (duel.py `score`), summing to 1."""
    probs = np.asarray(probs, dtype=np.float64)
    if isinstance(goal, bool) or not isinstance(goal, (int, np.integer)) or goal < 1:
        raise ValueError(f"goal {goal!r}: allowed is a whole number of tokens from 1")
    goal = int(goal)
    n = probs.shape[-2] if probs.ndim >= 2 else 0
    if probs.ndim == 2 and n >= 2:
        rows = probs[None]
        row_of = np.zeros(goal ** n, dtype=np.int64)
    elif probs.ndim == n + 2 and n >= 2 and probs.shape[:n] == (goal,) * n:
        rows = probs.reshape((goal ** n,) + probs.shape[-2:])
        row_of = np.arange(goal ** n, dtype=np.int64)
    else:
        raise ValueError(f"outcome probabilities need shape (players, codes), or (goal,) * "
                         f"players + (players, codes) per standings, got {probs.shape} "
                         f"(goal {goal})")
    rows = np.ascontiguousarray(rows)
    if rows.shape[2] != num_codes(n):
        raise ValueError(f"{n} players have {num_codes(n)} outcome codes, got "
                         f"{rows.shape[2]}")
    if not np.isfinite(rows).all() or (rows < 0).any() \
            or not np.allclose(rows.sum(axis=2), 1.0, atol=1e-9):
        raise ValueError("each starter's outcome probabilities must be non-negative and "
                         "sum to 1")
    tokens, masks = code_arrays(n)
    positive = rows > 0
    width = max(1, int(positive.sum(axis=2).max()))
    support = np.full(rows.shape[:2] + (width,), -1, dtype=np.int64)
    for r, s in np.ndindex(*rows.shape[:2]):
        nz = np.flatnonzero(positive[r, s])
        support[r, s, :len(nz)] = nz
    out = np.zeros((goal ** n, n, n))
    bad = _solve_values(rows, row_of, support, tokens, masks, goal, bool(split), out)
    if bad >= 0:
        standings = np.unravel_index(bad, (goal,) * n)
        raise ValueError(f"at standings {tuple(int(x) for x in standings)} the rounds of "
                         "some starters never award a token, so the match would never "
                         "end: the outcome distribution needs rounds with winners")
    return out.reshape((goal,) * n + (n, n))


@dataclasses.dataclass
class MatchValues:
    """V and its 95% interval: win[t_0, ..., t_{n-1}, starter, i] (module docstring);
    low and high the 2.5% and 97.5% quantiles under the posterior draws (None without)."""

    players: int
    goal: int
    win: np.ndarray
    low: np.ndarray | None = None
    high: np.ndarray | None = None
    draws: int = 0
    seed: int | None = None

    def at(self, standings, starter: int) -> np.ndarray:
        """Each player's match-win probability (table seats) from `standings`, `starter`
        to start the next round."""
        t = check_standings(standings, self.players, self.goal, starter=starter)
        return self.win[tuple(t) + (starter,)].copy()

    def match_start(self) -> np.ndarray:
        """Each player's match-win probability from 0 tokens each, the first starter
        random (R14)."""
        return self.win[(0,) * self.players].mean(axis=0)

    def rows(self) -> list[dict]:
        """One row per standings and starter: t0.., starter, p<i>_win, p<i>_low, p<i>_high."""
        out = []
        n = self.players
        for t in np.ndindex(*(self.goal,) * n):
            for s in range(n):
                row = {f"t{i}": int(t[i]) for i in range(n)}
                row["starter"] = s
                for i in range(n):
                    row[f"p{i}_win"] = float(self.win[t + (s, i)])
                    if self.low is not None:
                        row[f"p{i}_low"] = float(self.low[t + (s, i)])
                        row[f"p{i}_high"] = float(self.high[t + (s, i)])
                out.append(row)
        return out

    @classmethod
    def from_record(cls, record: dict) -> MatchValues:
        """The values of a `jabba match-table` record (its rows)."""
        n = int(record["game"]["parameters"]["players"])
        goal = int(record["goal"])
        win = np.full((goal,) * n + (n, n), np.nan)
        low, high = win.copy(), win.copy()
        has_interval = "p0_low" in record["columns"]
        for row in record["rows"]:
            at = tuple(int(row[f"t{i}"]) for i in range(n)) + (int(row["starter"]),)
            for i in range(n):
                win[at + (i,)] = row[f"p{i}_win"]
                if has_interval:
                    low[at + (i,)] = row[f"p{i}_low"]
                    high[at + (i,)] = row[f"p{i}_high"]
        if np.isnan(win).any():
            raise ValueError("a match-value record without a row for every standings and "
                             "starter; remake it with jabba match-table")
        return cls(n, goal, win, low if has_interval else None,
                   high if has_interval else None, int(record.get("draws", 0)),
                   record.get("seed"))

    def columns(self) -> list[str]:
        n = self.players
        per = ["win", "low", "high"] if self.low is not None else ["win"]
        return [f"t{i}" for i in range(n)] + ["starter"] + [f"p{i}_{k}" for i in range(n)
                                                             for k in per]


def read_match_values(path, game=None) -> MatchValues:
    """The values of a `jabba match-table` JSON record (results/match_values_*.json);
    with `game`, a record of another game or other parameters is refused."""
    from solver import provenance

    record = provenance.read_json(path)
    if not str(record.get("what", "")).startswith("match values"):
        raise ValueError(f"{path}: not a match-value record (jabba match-table --out)")
    if game is not None:
        want = (game.get_type().short_name, dict(game.get_parameters()))
        got = (provenance.game_name(record), provenance.game_parameters(record))
        if got != want:
            raise ValueError(f"{path}: match values of {got[0]} {got[1]}, not of {want[0]} "
                             f"{want[1]}; give the values of this game or make them with "
                             "jabba match-table")
    return MatchValues.from_record(record)


def solve_match_values(outcomes: RoundOutcomes, goal: int | None = None, draws: int = 200,
                       seed: int = 1) -> MatchValues:
    """V from counted outcomes (the counts' frequencies), with the 95% interval of `draws`
    Dirichlet posterior draws seeded by `seed` (0 draws: no interval). goal: R14's for the
    player count by default."""
    n = outcomes.players
    goal = default_goal(n) if goal is None else goal
    if isinstance(draws, bool) or not isinstance(draws, (int, np.integer)) or draws < 0:
        raise ValueError(f"draws {draws!r}: allowed is a whole number from 0")
    win = match_values(outcomes.per_starter(), goal)
    if draws == 0:
        return MatchValues(n, int(goal), win)
    rng = np.random.default_rng(check_seed(seed))
    samples = np.empty((draws,) + win.shape)
    for k in range(draws):
        rows = np.zeros(outcomes.counts.shape)
        for r, row in enumerate(outcomes.counts):
            seen = np.flatnonzero(row)
            rows[r, seen] = rng.dirichlet(row[seen].astype(np.float64))
        samples[k] = match_values(outcomes.per_starter(rows), goal)
    low, high = np.quantile(samples, [0.025, 0.975], axis=0)
    return MatchValues(n, int(goal), win, low, high, int(draws), int(seed))


def round_win_table(values: MatchValues, standings, starter: int = 0) -> np.ndarray:
    """(3**n * 2**n, n): each player's match-win probability after a round ending with
    each outcome code, from `standings` (table seats) in a round started by table seat
    `starter`. Codes and columns are by the round's engine seats (engine seat p: table seat
    (starter + p) % n), as the engine's S_TOKENS and S_WINNERS give them; starter 0 makes
    the two the same. The next starter follows R14, averaged over its random choice."""
    n, goal = values.players, values.goal
    t = np.array(check_standings(standings, n, goal, starter=starter), dtype=np.int64)
    tokens, masks = code_arrays(n)
    table = (starter + np.arange(n)) % n  # table seat of engine seat p
    after = np.empty_like(tokens)
    after[:, table] = t[table] + tokens  # table-seat standings after the round
    table_masks = np.zeros_like(masks)
    for p in range(n):
        table_masks |= ((masks >> p) & 1) << table[p]
    over = (after >= goal).any(axis=1)
    w = np.where(over[:, None], (after >= goal).astype(np.float64), 0.0)
    going = ~over
    bits = (table_masks[going, None] >> np.arange(n)) & 1  # (codes, next starter)
    counts = bits.sum(axis=1, keepdims=True)
    weights = np.where(counts > 0, bits / np.maximum(counts, 1), 1.0 / n)
    nxt = values.win[tuple(after[going].T)]  # (codes, next starter, players)
    w[going] = np.einsum("cs,csi->ci", weights, nxt)
    return w[:, table]  # by engine seat


def utilities(w: np.ndarray) -> np.ndarray:
    """u_i = w_i - mean_{j != i} w_j over the last axis (the margin utility's form)."""
    n = w.shape[-1]
    total = w.sum(axis=-1, keepdims=True)
    return w - (total - w) / (n - 1)


def round_utility_table(values: MatchValues, standings, starter: int = 0) -> np.ndarray:
    """(3**n * 2**n, n) float64: the match utility u_i = w_i - mean_{j != i} w_j of each
    outcome code (w: `round_win_table`, same seats and codes), zero-sum like the margin
    utility (for 2 players w_0 - w_1): the terminal utility of a round played at these
    standings. Codes no round can end with (a token without a winner) hold what the
    formula gives; no round reaches them."""
    return utilities(round_win_table(values, standings, starter))


def shipped_match_values(game):
    """The shipped `jabba match-table` record of `game` (full deck), a Path, or None:
    results/match_values_<players>p_<variant>.json (solver/policies/shipped.py's folder)."""
    from spiel_game.game import variant

    from solver.policies.shipped import shipped_folder

    params = game.get_parameters()
    folder = shipped_folder()
    if folder is None or params.get("deck") != "full":
        return None
    path = folder / f"match_values_{params['players']}p_{variant(game)}.json"
    return path if path.is_file() else None
