"""The per-round outcome distribution of a policy lineup, per starter: what the match
values (value.py) are computed from.

An *outcome* of a round is every player's tokens t_i (0, 1 or 2: a win, Han Solo's token
R11, the classic Spy's C9) and the round winners W (docs/RULES.md R11, R12: the engine's
`S_WINNERS`, without card tokens), one integer

    code = sum_i t_i * 3**i + 3**n * (sum_{i in W} 2**i)

over 3**n * 2**n codes (`encode`, `decode`). Codes name players by their seat at the
table (`table seat`); `engine seat` p of a round is table seat (starter + p) % n, the
starter being the round's first player, engine seat 0 (`to_table`, `to_engine`).

The rounds are played by the tournament's compiled duplicate-deal kernel
(solver/evaluation/tournament.py `play_lineup`). Deal d is played in every rotation of the
lineup over the seats, but only its rotation d % n is counted: the rotations of one deal
share the cards, so counting them all would count correlated rounds as independent (with
one policy in every seat they are the same round up to the decisions' randomness). So the
counted rounds are independent draws, and `rounds` per starter take n * rounds deals.

With one policy in every seat (`symmetric`) the outcome seen from the starter does not
depend on which table seat starts: the rounds are pooled by engine seat (one row of
counts, n * rounds rounds) and rotated to each starter. Otherwise row s counts the rounds
that table seat s started, by table seat.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable

import numpy as np

from solver.evaluation.report import resolve_policies
from solver.evaluation.tournament import C_TABLE_HITS, C_TABLE_MISSES, play_lineup
from solver.policies.compiled import build_bank
from solver.sim.rng import check_seed
from solver.sim.utility import num_codes  # the code layout's one definition

MAX_TOKENS_PER_PLAYER = 2  # a round's win and one card token (R11 Han Solo, C9 the Spy)


def encode(tokens, winners_mask: int) -> int:
    """The code of a round in which player i gained tokens[i] and the winners are the bits
    of winners_mask."""
    n = len(tokens)
    return int(sum(int(t) * 3 ** i for i, t in enumerate(tokens)) + 3 ** n * int(winners_mask))


def decode(code: int, players: int) -> tuple[tuple[int, ...], int]:
    """(tokens per player, winners bitmask) of a code."""
    tokens = tuple((code // 3 ** i) % 3 for i in range(players))
    return tokens, code // 3 ** players


def code_arrays(players: int) -> tuple[np.ndarray, np.ndarray]:
    """(tokens (codes, n) int64, winners masks (codes,) int64) of every code in order."""
    codes = np.arange(num_codes(players), dtype=np.int64)
    tokens = np.stack([(codes // 3 ** i) % 3 for i in range(players)], axis=1)
    return tokens, codes // 3 ** players


def _rotated(codes: np.ndarray, players: int, shift: int) -> np.ndarray:
    """The codes with player i renamed (i + shift) % n."""
    tokens, masks = code_arrays(players)
    tokens, masks = tokens[codes], masks[codes]
    out = np.zeros_like(codes)
    new_masks = np.zeros_like(masks)
    for i in range(players):
        j = (i + shift) % players
        out += tokens[:, i] * 3 ** j
        new_masks |= ((masks >> i) & 1) << j
    return out + 3 ** players * new_masks


def to_table(codes, players: int, starter: int) -> np.ndarray:
    """Engine-seat codes of a round started by table seat `starter` as table-seat codes."""
    return _rotated(np.asarray(codes, dtype=np.int64), players, starter)


def to_engine(codes, players: int, starter: int) -> np.ndarray:
    """Table-seat codes of a round started by `starter` as engine-seat codes."""
    return _rotated(np.asarray(codes, dtype=np.int64), players, -starter)


@dataclasses.dataclass
class RoundOutcomes:
    """Counts of round outcomes of a lineup (module docstring)."""

    players: int
    lineup: list[str]  # the policy at each table seat
    symmetric: bool  # one policy in every seat: one row of counts, by engine seat
    counts: np.ndarray  # int64 (1 or n, codes); see the module docstring
    seed: int
    rounds: int  # rounds counted (all rows)
    seconds: float = 0.0
    miss_rate: float = float("nan")  # share of a table's decisions not in it (uniform)
    interrupted: bool = False

    def __post_init__(self):
        rows = 1 if self.symmetric else self.players
        if self.counts.shape != (rows, num_codes(self.players)):
            raise ValueError(f"counts of {self.players} players need shape "
                             f"({rows}, {num_codes(self.players)}), got {self.counts.shape}")
        if (self.counts < 0).any():
            raise ValueError("outcome counts must not be negative")

    def per_starter(self, rows: np.ndarray | None = None) -> np.ndarray:
        """(n, codes) probabilities per starter, codes by table seat, from `rows` (the
        counts, or a posterior draw of the same shape: normalised per row here)."""
        rows = self.counts if rows is None else rows
        rows = np.asarray(rows, dtype=np.float64)
        totals = rows.sum(axis=1, keepdims=True)
        if (totals <= 0).any():
            raise ValueError("no rounds counted for a starter: play some rounds first")
        rows = rows / totals
        if not self.symmetric:
            return rows
        n = self.players
        out = np.zeros((n, rows.shape[1]))
        codes = np.arange(rows.shape[1], dtype=np.int64)
        for s in range(n):
            out[s, to_table(codes, n, s)] = rows[0]
        return out

    def to_dict(self) -> dict:
        """JSON-ready: the nonzero counts per row as {code: count}."""
        return {"players": self.players, "lineup": self.lineup, "symmetric": self.symmetric,
                "rows": "one row by engine seat (seat 0 starts), pooled over seats"
                if self.symmetric else "row s: rounds started by table seat s",
                "counts": [{str(c): int(row[c]) for c in np.flatnonzero(row)}
                           for row in self.counts],
                "rounds": self.rounds, "seed": self.seed, "miss_rate": self.miss_rate,
                "interrupted": self.interrupted}

    @classmethod
    def from_dict(cls, record: dict) -> RoundOutcomes:
        n = record["players"]
        counts = np.zeros((len(record["counts"]), num_codes(n)), dtype=np.int64)
        for r, row in enumerate(record["counts"]):
            for code, count in row.items():
                counts[r, int(code)] = count
        return cls(n, list(record["lineup"]), bool(record["symmetric"]), counts,
                   record["seed"], record["rounds"],
                   miss_rate=record.get("miss_rate", float("nan")),
                   interrupted=record.get("interrupted", False))


def round_outcomes(game, policies: list[str] | None = None, rounds: int = 20_000,
                   seed: int = 1, on_progress: Callable[[int, int], None] | None = None
                   ) -> RoundOutcomes:
    """Count `rounds` independent rounds per starter of `policies` (one name per table
    seat, or one name for every seat; names as `jabba tournament` takes them: 'table',
    the game's shipped table, a heuristic, a policy file; default: 'table'), seeded.
    Ctrl-C stops after the current chunk; the counts so far are marked interrupted."""
    from spiel_game.game import variant

    n = game.num_players()
    seed = check_seed(seed)
    if isinstance(rounds, bool) or not isinstance(rounds, (int, np.integer)) or rounds < 1:
        raise ValueError(f"rounds {rounds!r}: allowed is a whole number from 1")
    policies = list(policies or ["table"])
    if len(policies) == 1:
        policies = policies * n
    if len(policies) != n:
        raise ValueError(f"{len(policies)} policies for {n} players: give one per seat, "
                         "or one for every seat")
    names = list(dict.fromkeys(policies))
    params = game.get_parameters()
    labels, specs = resolve_policies(names, params["deck"], variant(game), n)
    bank = build_bank(specs, game, labels)
    lineup = [names.index(p) for p in policies]
    result = play_lineup(game, bank, lineup, deals=int(rounds) * n, seed=seed,
                         on_progress=on_progress)
    deals = result.deals - result.deals % n  # whole groups: every starter equally often
    d = np.arange(deals)
    r = d % n  # the counted rotation of deal d; its starter (engine seat 0) is role -r
    tokens = result.tokens[d, r]  # (deals, roles)
    masks = result.winners[d, r].astype(np.int64)
    role_codes = (tokens * 3 ** np.arange(n)).sum(axis=1) + 3 ** n * masks
    starters = (-r) % n
    symmetric = len(set(policies)) == 1
    if symmetric:
        counts = np.zeros((1, num_codes(n)), dtype=np.int64)
        for s in range(n):
            pick = starters == s
            np.add.at(counts[0], to_engine(role_codes[pick], n, s), 1)
    else:
        counts = np.zeros((n, num_codes(n)), dtype=np.int64)
        np.add.at(counts, (starters, role_codes), 1)
    hits = result.counts[:, C_TABLE_HITS].sum()
    misses = result.counts[:, C_TABLE_MISSES].sum()
    miss_rate = float(misses / (hits + misses)) if hits + misses else float("nan")
    return RoundOutcomes(n, [bank.names[i] for i in lineup], symmetric, counts, seed,
                         int(deals), result.seconds, miss_rate, result.interrupted)
