"""Play logs of a known policy at one seat, in `jabba play`'s log format
(solver/play/log.py), to measure how well `fit` finds it.

Each log is a match (docs/RULES.md R14) played by solver/play/session.py `Session`: the
seat `seat` (a table seat) by `seat_policy`, the others by `other_policy`, chance from
the session's seeded deal. Matches are played until `rounds` rounds are logged; the
last match is cut after its last needed round (a valid prefix: `replay` reads it).
"""

from __future__ import annotations

import io
import json

from solver.play.log import LogWriter
from solver.play.opponents import resolve
from solver.play.session import Session
from solver.sim.rng import STREAM_MODEL_SAMPLE, check_seed, stream_seed

# A sampled match's seed: its stream (STREAM_MODEL_SAMPLE) in a Session's seed range.
_SEED_MASK = (1 << 63) - 1


class _Seats:
    """The Session's opponent: each seat's own Opponent, by table seat."""

    def __init__(self, name: str, by_table_seat: dict, session_ref: list):
        self.name = name
        self.by_table_seat = by_table_seat
        self.session_ref = session_ref

    def decide(self, state, player: int) -> int:
        table_seat = self.session_ref[0].table_of(player)
        return self.by_table_seat[table_seat].decide(state, player)


def _seed(seed: int, index: int) -> int:
    return int(stream_seed(seed, STREAM_MODEL_SAMPLE, index)) & _SEED_MASK


def sample_logs(game, seat_policy: str, seat: int, rounds: int, seed: int,
                other_policy: str = "agenda_expert", command: str | None = None
                ) -> list[list[dict]]:
    """Logs (each a list of JSON-lines objects, the header first) with `rounds` rounds in
    all of `seat_policy` at table seat `seat`; policies are opponent names of
    solver/play/opponents.py (a heuristic, `table`, a policy file). ValueError for a
    bad seat, count or name."""
    n = game.num_players()
    seed = check_seed(seed)
    if isinstance(seat, bool) or not isinstance(seat, int) or not 0 <= seat < n:
        raise ValueError(f"seat {seat!r}: allowed is a seat from 0 to {n - 1}")
    if isinstance(rounds, bool) or not isinstance(rounds, int) or rounds < 1:
        raise ValueError(f"rounds {rounds!r}: allowed is a whole number from 1")
    you = (seat + 1) % n  # the log's own seat ("you"): one of the others
    logs = []
    logged = 0
    while logged < rounds:
        match_seed = _seed(seed, 2 * len(logs))
        policies = {t: resolve(seat_policy if t == seat else other_policy, game,
                               match_seed if t == seat else _seed(seed, 2 * len(logs) + 1))
                    for t in range(n)}
        name = f"{seat_policy} at table seat {seat}, others {other_policy}"
        stream = io.StringIO()
        writer = LogWriter(stream)
        writer.header(game, command=command, seat=you, against=name, seed=match_seed,
                      match=True, sampled={"seat": seat, "policy": seat_policy,
                                           "others": other_policy})
        ref: list = []
        session = Session(game, you, _Seats(name, policies, ref), seed=match_seed,
                          match=True, record=writer.write)
        ref.append(session)
        while True:
            session.advance()
            while session.waiting:
                session.act(policies[you].decide(session.state, session.me))
            if session.round_over:
                logged += 1
                if session.match_over or logged == rounds:
                    break
                session.next_round()
        logs.append([json.loads(line) for line in stream.getvalue().splitlines()])
    return logs


def write_log(lines: list[dict], path) -> None:
    """A sampled log as a file `jabba play --replay` and `jabba model fit` read
    (written atomically)."""
    from solver.provenance import write_atomic

    write_atomic(path, "".join(json.dumps(line) + "\n" for line in lines).encode())
