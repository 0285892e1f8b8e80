"""The advice measured at every table size: the hint seated as a user gets it.

For each player count (--players) and agenda (--agendas), the advice (--advice) plays
against n - 1 seats of each opponent (--opponents: `agenda_expert`, `table` = the
shipped table of the game, misses played uniformly as in `jabba tournament`), with
duplicate deals and seat rotation (solver/studies/advice_seat.py):

- `hint`: `HintSeat`, the hint's own pipeline (`advice.answer`) at every play decision
  of the advised seat, with the user's defaults (0.25 s of rollouts; the search with 2
  players) or exactly --rollouts rollouts per answer (repeatable) and --no-search;
- `hint-search`: the same hint with its search asked at every table size (the hint's
  default answers from the table past `SEARCH_MAX_PLAYERS`, 2): what the search adds
  at 3-6 players;
- `table`: the shipped table itself, played by the compiled tournament (the same games
  as `PolicySeat` in the harness, tests/test_advice_seat.py), over --table-deals deals;
  also the share of its decisions missing the table in self-play (every seat the table,
  --self-play-deals deals), as `jabba tournament --diagonal` reports it.

Per row: the advised seat's margin u = t_i - mean of the others' tokens per round, mean
over deals (each averaged over its rotations) with its 95% interval; the match-win
rate to the token goal (R14) over --matches matches (--table-matches for `table`).
Rows merge into an earlier --out file by (players, agenda, advice, opponent), so runs
of different rows can go side by side.

    python benchmarks/advice_by_players.py --players 4 --agendas all
        --opponents agenda_expert,table --advice hint --deals 40 --matches 0
        [--rollouts 128] [--no-search] [--seed 1] [--out results/advice_by_players.csv]
"""

from __future__ import annotations

import argparse
import datetime
import fcntl
import tempfile
import time
from pathlib import Path

from _common import AGENDAS, add_allow_dirty, guard_outputs, load_jabba, policy_bank

from solver import provenance
from solver.studies.advice_seat import HintSeat, play_advice
from solver.evaluation.tournament import play_lineup
from solver.policies.chain import load_policies
from solver.reports.records import write_merged

COLUMNS = ["players", "agenda", "advice", "opponent", "deals", "margin", "low", "high",
           "match_win_rate"]
ADVICE = ("hint", "hint-search", "table")
OPPONENTS = ("agenda_expert", "table")


def _row_id(r: dict) -> tuple:
    return r["players"], r["agenda"], r["advice"], r["opponent"]


def _row(players, agenda, advice, opponent, deals, margin, matches, wins, **more) -> dict:
    """A row: the margin's mean and 95% interval over `deals`, the match-win rate over
    `matches` (none without matches)."""
    return {"players": players, "agenda": agenda, "advice": advice, "opponent": opponent,
            "deals": deals, "margin": margin.mean, "low": margin.low, "high": margin.high,
            "matches": matches, "match_win_rate": wins.mean if matches else None,
            "match_win_low": wins.low if matches else None,
            "match_win_high": wins.high if matches else None, **more}


def hint_row(game, agenda, players, opponent, args, advice: str = "hint") -> dict:
    policies = load_policies(game)
    options = {"search": args.search}
    if advice == "hint-search":
        options["search_max_players"] = players
    if args.rollouts is not None:
        options["rollouts"] = args.rollouts
    seat = HintSeat(game, policies, seed=args.seed, **options)
    bank = policy_bank(game, agenda, players, [opponent])
    def progress(done, total):
        if done % 5 == 0 or done == total:
            print(f"  {players}p {agenda} {advice} v {opponent}: {done}/{total} "
                  f"({seat.answers} answers)", flush=True)

    result = play_advice(game, seat, bank, 0, args.deals, args.matches, args.seed, progress)
    return _row(players, agenda, advice, opponent, args.deals, result.margin, args.matches,
                result.match_win_rate, hint_answers=seat.answers, refused=seat.refused,
                answered_by=seat.sources,
                other_decisions_by_the_tables=seat.other_decisions,
                seconds_per_answer=seat.seconds / max(seat.answers, 1),
                hint_options={**options, "seconds": None if args.rollouts else 0.25},
                tables=[p.name for p in policies.paths], seconds=result.seconds)


def table_row(game, agenda, players, opponent, args) -> dict:
    bank = policy_bank(game, agenda, players, ["table", opponent])
    start = time.perf_counter()
    result = play_lineup(game, bank, [0] + [1] * (players - 1), args.table_deals,
                         args.table_matches, args.seed)
    # Self-play: the table in every seat (what `jabba tournament --diagonal` reports).
    self_play = play_lineup(game, bank, [0] * players, args.self_play_deals, 0, args.seed)
    return _row(players, agenda, "table", opponent, args.table_deals, result.margin((0,)),
                args.table_matches, result.win_rate((0,)),
                table_misses=result.miss_rate((0,)), self_play_deals=args.self_play_deals,
                self_play_misses=self_play.miss_rate(tuple(range(players))),
                tables=[Path(bank.specs[0]).name], seconds=time.perf_counter() - start)


def _write(args, rows: list[dict], started: str, seconds: float) -> None:
    """This run's rows so far merged into --out (a run of other rows may share it)."""
    record = provenance.header(
        {}, game_name="jabbas_palace", seconds=seconds,
        what="the advice by table size: the hint seated with duplicate deals "
        "and seat rotation (solver/studies/advice_seat.py)",
        margin="u_i = t_i - mean of the others' tokens per round; mean over "
        "deals (each over its rotations), 95% normal interval",
        match_win_rate="share of matches to the token goal (R14) the advice "
        "reaches it, shared wins counted; mean over matches and rotations",
        seed=args.seed)
    # Runs of other rows may share the file: one merge at a time.
    lock = Path(tempfile.gettempdir()) / f"{Path(args.out).stem}.lock"
    with open(lock, "w") as held:
        fcntl.flock(held, fcntl.LOCK_EX)
        write_merged(Path(args.out), COLUMNS, rows, record, _row_id, started,
                     {"deck": "full", "utility": "margin"}, "jabbas_palace")


def main(argv=None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--players", default="3,4,5,6")
    parser.add_argument("--agendas", default="all")
    parser.add_argument("--advice", default="hint,table")
    parser.add_argument("--opponents", default=",".join(OPPONENTS))
    parser.add_argument("--deals", type=int, default=40, help="duplicate deals (hint)")
    parser.add_argument("--matches", type=int, default=0, help="matches (hint)")
    parser.add_argument("--table-deals", type=int, default=5000)
    parser.add_argument("--table-matches", type=int, default=1000)
    parser.add_argument("--self-play-deals", type=int, default=1000,
                        help="deals of the table against itself, for its misses")
    parser.add_argument("--rollouts", type=int, default=None,
                        help="rollouts per hint answer (default: the hint's 0.25 s)")
    parser.add_argument("--search", action=argparse.BooleanOptionalAction, default=True,
                        help="the hint's search (it answers up to 3 players)")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--out", default="results/advice_by_players.csv")
    add_allow_dirty(parser)
    args = parser.parse_args(argv)
    players = [int(p) for p in args.players.split(",")]
    agendas = list(AGENDAS) if args.agendas == "all" else args.agendas.split(",")
    advice = args.advice.split(",")
    opponents = args.opponents.split(",")
    for name, given, allowed in (("--advice", advice, ADVICE),
                                 ("--opponents", opponents, OPPONENTS),
                                 ("--agendas", agendas, AGENDAS)):
        bad = [x for x in given if x not in allowed]
        if bad:
            parser.error(f"{name} {','.join(bad)}: allowed are {', '.join(allowed)}")
    if any(not 3 <= n <= 6 for n in players):
        parser.error(f"--players {args.players}: allowed are 3 to 6")
    guard_outputs(parser, args.out)
    # The run's id in the merged file (runs side by side start within one second).
    started = datetime.datetime.now(datetime.timezone.utc).isoformat(timespec="microseconds")
    start = time.perf_counter()
    rows = []
    for n in players:
        for agenda in agendas:
            game = load_jabba(players=n, agenda=agenda)
            for kind in advice:
                for opponent in opponents:
                    if kind == "table" and opponent == "table":
                        continue  # the table against itself: 0 by symmetry
                    if kind == "table":
                        row = table_row(game, agenda, n, opponent, args)
                    else:
                        row = hint_row(game, agenda, n, opponent, args, kind)
                    rows.append(row)
                    if args.out:
                        _write(args, rows, started, time.perf_counter() - start)
                    print(f"{n}p {agenda}: {kind} v {opponent}: {row['margin']:+.3f} "
                          f"({row['low']:+.3f} .. {row['high']:+.3f}), {row['deals']} "
                          f"deals, match-win {row['match_win_rate']}, "
                          f"{row['seconds']:.0f} s", flush=True)
    if args.out:
        print(f"wrote {args.out} ({time.perf_counter() - start:.0f} s)")


if __name__ == "__main__":
    main()
