"""How fast a hint answers, the table's answer (--no-search) and the search's side by
side on the same situations: warm (in-process) and a repeat command-line call.

Targets: the table-only answer under 100 ms warm; a 2-player search hint within its 1 s
budget. The situations are random rounds' own play decisions, described by their event
logs; each agenda's shipped 2-player table. Medians over the situations; for the search
also the subgame it reached (nodes, iterations, depth) by the deck left (early: 9+
cards, middle: 5-8, late: 0-4). --out writes the figures.

    python benchmarks/hint_speed.py [--situations 20] [--cli-calls 3] [--out figures.json]
        [--search-top max-margin] [--search-leaves single]

With --players N (repeatable, 3-6): the answer a user gets at N players, as `jabba hint`
gives it (the default options, warm: kernels loaded first), over --situations random
situations per player count, agendas in turn, half described by the seat's event log and
half by the summary a person at that seat gives (what the table saw and the cards they
know, solver/hint/describe.py `person_summary`; random rounds stopped at a random play
decision, solver/studies/belief_accuracy.py): seconds p50/p95/max of each kind, the refusals
(a SituationError: no world found) and what answered. Issue 37's goal: p95 at most 1 s and
no refusal in 500 situations.

    python benchmarks/hint_speed.py --players 4 --players 5 --players 6 --situations 500
"""

from __future__ import annotations

import argparse
import random
import subprocess
import sys
import time
from pathlib import Path

import numpy as np

from _common import AGENDAS, add_output_args, load_jabba, machine_info, median, \
    markdown_table, write_json_atomic

from solver.hint import advice as H
from solver.hint.situation import from_mapping
from solver.policies.chain import load_policies
from solver.sim.random_round import play_decisions
from spiel_game.events import describe, events

ROOT = Path(__file__).resolve().parent.parent


def random_log(game, rng: random.Random) -> tuple[int, list[str]] | None:
    """A random round stopped at a play decision: (seat, that seat's event log)."""
    stops = [(s.current_player(), [describe(e) for e in events(s._s, s.current_player())])
             for s in play_decisions(game, rng)]
    return rng.choice(stops) if stops else None


def by_players(players: int, situations: int, seed: int) -> dict:
    """The default hint's warm answer times at `players` players (see the docstring)."""
    from solver.hint.describe import person_summary
    from solver.hint.situation import SituationError
    from solver.studies.belief_accuracy import random_stop

    rng = random.Random(seed)
    games = {a: load_jabba(players, a) for a in AGENDAS}
    policies = {a: load_policies(games[a]) for a in AGENDAS}
    warm = random_stop(games[AGENDAS[0]], random.Random(-1))
    H.hint(from_mapping(person_summary(warm, warm.current_player())), games[AGENDAS[0]],
           policies[AGENDAS[0]])  # compile or load every kernel the default answer runs
    found = {"log": [], "summary": []}
    refused, answered_by = [], {}
    for i in range(situations):
        agenda = AGENDAS[i % len(AGENDAS)]
        state = None
        while state is None:
            state = random_stop(games[agenda], rng)
        seat, kind = state.current_player(), ("log", "summary")[i % 2]
        told = (person_summary(state, seat) if kind == "summary" else
                {"players": players, "agenda": agenda, "seat": seat,
                 "log": [describe(e) for e in events(state._s, seat)]})
        sit = from_mapping({**told, "agenda": agenda})
        start = time.perf_counter()
        try:
            answer = H.hint(sit, games[agenda], policies[agenda], seed=rng.randrange(1 << 30))
        except SituationError as e:
            refused.append({"kind": kind, "agenda": agenda, "error": str(e)[:200]})
            continue
        found[kind].append(time.perf_counter() - start)
        source = answer["policy"]["source"]
        answered_by[source] = answered_by.get(source, 0) + 1
    out = {"players": players, "situations": situations, "refused": len(refused),
           "refusals": refused, "answered_by": answered_by}
    for kind, times in found.items():
        x = np.sort(np.asarray(times))
        out[kind] = {"answers": len(x), "p50_s": float(np.median(x)),
                     "p95_s": float(np.quantile(x, 0.95)), "max_s": float(x[-1])}
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--situations", type=int, default=20, help="per agenda")
    parser.add_argument("--cli-calls", type=int, default=3)
    parser.add_argument("--search-top", default="max-margin", help="the search's top")
    parser.add_argument("--search-leaves", default="single",
                        help="single, multi or multi-heuristic")
    parser.add_argument("--players", type=int, action="append", choices=range(3, 7),
                        metavar="N", help="the default hint at N players (3-6; repeatable)")
    add_output_args(parser)
    args = parser.parse_args()
    if args.cli_calls < 1:
        parser.error(f"--cli-calls {args.cli_calls}: at least 1 (the median is over the "
                     "calls after the first)")
    if args.situations < 1:
        parser.error(f"--situations {args.situations}: at least 1")
    if args.players:
        start = time.perf_counter()
        figures = {"machine": machine_info(), "by_players": [
            by_players(n, args.situations, args.seed + n) for n in args.players]}
        print(markdown_table(
            ["players", "situations", "log p50", "log p95", "log max", "summary p50",
             "summary p95", "summary max", "refused", "answered by"],
            [[str(f["players"]), str(f["situations"])]
             + [f"{f[k][q]:.2f} s" for k in ("log", "summary") for q in ("p50_s", "p95_s",
                                                                          "max_s")]
             + [str(f["refused"]), ", ".join(f"{k} {v}" for k, v in
                                            sorted(f["answered_by"].items()))]
             for f in figures["by_players"]]))
        print(f"\n{time.perf_counter() - start:.0f} s")
        if args.out:
            write_json_atomic(args.out, figures)
        return
    rng = random.Random(args.seed)
    rows, figures = [], {"machine": machine_info(), "agendas": {},
                         "search_top": args.search_top, "search_leaves": args.search_leaves}
    stages: dict[str, list[dict]] = {}
    for agenda in AGENDAS:
        game = load_jabba(2, agenda)
        policies = load_policies(game)
        times, search_times, in_table, searched = [], [], 0, 0
        warm = from_mapping({"players": 2, "agenda": agenda, "seat": 0,
                             "log": random_log(game, random.Random(0))[1]})
        H.hint(warm, game, policies)  # warm up (compile or load kernels)
        H.hint(warm, game, policies, search=False)
        for _ in range(args.situations):
            seat, log = random_log(game, rng)
            sit = from_mapping({"players": 2, "agenda": agenda, "seat": seat, "log": log})
            seed = rng.randrange(1 << 30)
            start = time.perf_counter()
            answer = H.hint(sit, game, policies, seed=seed, search=False)
            times.append(time.perf_counter() - start)
            in_table += answer["policy"]["source"] == "table"
            start = time.perf_counter()
            answer = H.hint(sit, game, policies, seed=seed, search_top=args.search_top,
                            search_leaves=args.search_leaves)
            search_times.append(time.perf_counter() - start)
            found = answer["policy"]["search"]
            if search_times[-1] == max(search_times):
                slowest = {"seconds": search_times[-1], "deck": answer["situation"]["deck"],
                           **{k: found.get(k) for k in ("depth", "nodes", "roots",
                                                        "phase_seconds", "iterations")}}
            searched += found["used"]
            if found["used"]:
                deck = answer["situation"]["deck"]
                phase = "early" if deck >= 9 else "middle" if deck >= 5 else "late"
                stages.setdefault(phase, []).append(found)
        figures["agendas"][agenda] = {"warm_median_s": median(times), "warm_max_s": max(times),
                                      "in_table": in_table, "situations": args.situations,
                                      "search_warm_median_s": median(search_times),
                                      "search_warm_max_s": max(search_times),
                                      "searched": searched, "search_slowest": slowest}
        rows.append([agenda, f"{median(times) * 1000:.0f} ms", f"{max(times) * 1000:.0f} ms",
                     f"{in_table}/{args.situations}", f"{median(search_times):.2f} s",
                     f"{max(search_times):.2f} s", f"{searched}/{args.situations}"])
    # This checkout's command line (`jabba` on the PATH may be another's), from its root.
    command = [sys.executable, "-m", "cli.main", "hint", "--hand", "jabba,guard",
               "--face-up", "crumb,bib,merc", "--area", "0=han", "--seat", "1", "--json"]
    cold = []
    for _ in range(args.cli_calls + 1):
        start = time.perf_counter()
        subprocess.run(command, check=True, capture_output=True, cwd=ROOT)
        cold.append(time.perf_counter() - start)
    figures["cli_repeat_median_s"] = median(cold[1:])
    print(markdown_table(["agenda (2 players)", "table: warm median", "warm max",
                          "in the table", "search: warm median", "warm max", "searched"],
                         rows))
    stage_rows = []
    for phase in ("early", "middle", "late"):
        found = stages.get(phase, [])
        if not found:
            continue
        depths = sorted({f["depth"] for f in found})
        stage_rows.append([phase, str(len(found)), f"{median([f['nodes'] for f in found]):,.0f}",
                           f"{median([f['iterations'] for f in found]):,.0f}",
                           ", ".join(f"{d} ({sum(f['depth'] == d for f in found)})"
                                     for d in depths)])
        figures.setdefault("search_by_stage", {})[phase] = {
            "searches": len(found), "median_nodes": median([f["nodes"] for f in found]),
            "median_iterations": median([f["iterations"] for f in found]),
            "depths": {d: sum(f["depth"] == d for f in found) for d in depths}}
    print()
    print(markdown_table(["point in the round (deck left)", "searches", "median nodes",
                          "median iterations", "depth reached (count)"], stage_rows))
    print("\nthe slowest search answer of each agenda: "
          + "; ".join(f"{agenda} {f['search_slowest']['seconds']:.2f} s "
                      f"(deck {f['search_slowest']['deck']}, {f['search_slowest']['depth']}, "
                      f"{f['search_slowest']['nodes']} nodes, phases "
                      f"{f['search_slowest']['phase_seconds']})"
                      for agenda, f in figures["agendas"].items()))
    print(f"\nrepeat CLI call (`python -m cli.main {' '.join(command[3:])}`): "
          f"median {median(cold[1:]):.2f} s "
          f"over {args.cli_calls} (first call {cold[0]:.2f} s)")
    if args.out:
        write_json_atomic(args.out, figures)


if __name__ == "__main__":
    sys.exit(main())
