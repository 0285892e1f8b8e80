"""The hint's posterior from a log: the old depth-first `_LogReplay` against solver/belief.

Both answer the same logs in one run: random 2-player rounds stopped at a play decision,
described by the player's event log as `describe` writes it (complete) and with lines left
out (others' draws, misses, targets, each with probability 1/2: partial), weighted by the
shipped table. The old code is read from git (`git show REV:solver/situation.py`, default
fae5ccb) into a temporary module. Reported: median seconds, the ratio, how many answers
were complete (the old search stops after 30,000 steps), how many logs the old code
refused (it cannot skip a left-out target line), and, where the old answer was complete,
the largest difference between the two posteriors (hidden state and hand marginals).

    python benchmarks/belief_speed.py [--logs 30] [--rev fae5ccb] [--out figures.json]

With --by-players: the hint's posterior (solver/hint/advice.py `_replayed_worlds`, as a
hint asks it: its particle budget, the shipped tables, merge_logs where the search runs,
2 players; at 3-6 players this script merged on the logs too until issue #37's speed
work, which no hint does)
at 2-6 players, of --summaries summaries and --logs-per-count logs per player count
(random rounds stopped at a random play decision, solver/studies/belief_accuracy.py),
timed in this tree and in a git worktree of --before (default fa38d60, the engine before
the speed work: exact tries up to 32,768 particles for a log, 4,096 for a summary, then
sampled), each in its own process, in turn per player count, on the same situations:
seconds p50/p95 of each, the median of the per-situation ratios, how many were exact
and collapsed (a few answers first warm the kernels up, not counted).

    python benchmarks/belief_speed.py --by-players [--summaries 30] [--logs-per-count 10]
        [--before fa38d60]
"""

from __future__ import annotations

import argparse
import importlib.util
import os
import random
import subprocess
import sys
import tempfile
import time
from collections import defaultdict
from pathlib import Path

import numpy as np

if "--worker" in sys.argv:  # time the tree given (before _common puts this one first)
    sys.path.insert(0, sys.argv[sys.argv.index("--worker") + 1])

from _common import add_output_args, load_jabba, machine_info, markdown_table, median, \
    write_json_atomic

from solver.belief import hidden_state, omissible
from solver.hint.log import log_worlds
from solver.hint.situation import from_mapping
from solver.policies.chain import load_policies
from spiel_game import layout as L
from spiel_game.events import describe, events

ROOT = Path(__file__).resolve().parent.parent


def old_situation_module(rev: str):
    """The old solver/situation.py (with _LogReplay) as a module."""
    source = subprocess.run(["git", "show", f"{rev}:solver/situation.py"], cwd=ROOT,
                            check=True, capture_output=True, text=True).stdout
    path = Path(tempfile.mkdtemp()) / "old_situation.py"
    path.write_text(source)
    spec = importlib.util.spec_from_file_location("old_situation", path)
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module  # dataclasses look their module up
    spec.loader.exec_module(module)
    return module


def random_log(game, rng: random.Random, partial: bool):
    """A random round stopped at one of its play decisions: (seat, log lines)."""
    state, stops = game.new_initial_state(), []
    while not state.is_terminal():
        p = state.current_player()
        if p >= 0 and state._s[L.S_PHASE] == L.PH_PLAY:
            stops.append((p, events(state._s, p)))
        if state.is_chance_node():
            outcomes, probs = zip(*state.chance_outcomes())
            state.apply_action(rng.choices(outcomes, probs)[0])
        else:
            state.apply_action(rng.choice(state.legal_actions()))
    seat, log = rng.choice(stops)
    if partial:
        log = [e for e in log if not (omissible(e.kind, e.actor, seat) and rng.random() < 0.5)]
    return seat, [describe(e) for e in log]


def difference(old_worlds, new_worlds, seat: int) -> float:
    """Largest difference in probability of a hidden state or of an opponent's card."""
    def dist(worlds):
        states, hands = defaultdict(float), np.zeros((L.MAX_PLAYERS, L.MAX_CHARS))
        for s, w in worlds:
            states[hidden_state(s)] += w
            for q in range(L.MAX_PLAYERS):
                for k in range(int(s[L.S_HAND_N + q])):
                    hands[q, s[L.S_HAND + q * L.MAX_HAND + k]] += w
        return states, hands
    (a, ha), (b, hb) = dist(old_worlds), dist(new_worlds)
    state_diff = max(abs(a[k] - b[k]) for k in set(a) | set(b))
    return max(state_diff, float(np.abs(ha - hb).max()))


def worker(args) -> None:
    """Time the hint's posterior (solver/hint/advice.py `_replayed_worlds`, as a hint asks
    it: the shipped tables, merge_logs where the search would run) on the seeded random
    situations of each player count, in the tree this process imports (--tree); print
    one JSON line per player count: per situation, kind, seconds, exact, collapsed, or
    refused."""
    import json

    from solver.hint import advice
    from solver.hint.request import SEARCH_MAX_PLAYERS
    from solver.hint.situation import SituationError
    from solver.studies.belief_accuracy import player_summary, random_stop

    warm = random.Random(-1)  # compile or load the kernels on answers not counted
    for players in (2, 4):
        game = load_jabba(players, args.agenda)
        for _ in range(3):
            state = random_stop(game, warm)
            if state is not None:
                try:
                    advice._replayed_worlds(from_mapping(player_summary(
                        state, state.current_player())), game, load_policies(game), False,
                        0, merge_logs=True if players == 2 else None)
                except SituationError:
                    pass
    for players in (int(p) for p in args.players.split(",")):
        game = load_jabba(players, args.agenda)
        policies = load_policies(game)
        # as solver/hint/advice.py asks: merged on the logs only where the search runs
        merge_logs = True if policies.paths and players <= SEARCH_MAX_PLAYERS else None
        rng = random.Random(args.seed)
        found = []
        for kind, count in (("summary", args.summaries), ("log", args.logs_per_count)):
            done = 0
            while done < count:
                state = random_stop(game, rng)
                if state is None:
                    continue
                seat = state.current_player()
                data = (player_summary(state, seat) if kind == "summary" else
                        {"players": players, "agenda": args.agenda, "seat": seat,
                         "log": [describe(e) for e in events(state._s, seat)]})
                sit = from_mapping(data)
                start = time.perf_counter()
                try:
                    _, info = advice._replayed_worlds(sit, game, policies, False, args.seed,
                                                      merge_logs=merge_logs)
                except SituationError:
                    info = None
                seconds = time.perf_counter() - start
                found.append({"kind": kind, "seconds": seconds, "refused": info is None,
                              "exact": bool(info and info["exact"]),
                              "collapsed": bool(info and info["collapsed"])})
                done += 1
        print(json.dumps({"players": players, "situations": found}), flush=True)


def _run_worker(tree: Path, args, players: int) -> dict:
    """{players: situations} from `worker` run on `tree` in a child process."""
    import json

    command = [sys.executable, str(Path(__file__).resolve()), "--worker", str(tree),
               "--players", str(players), "--agenda", args.agenda,
               "--summaries", str(args.summaries), "--logs-per-count",
               str(args.logs_per_count), "--seed", str(args.seed)]
    out = subprocess.run(command, cwd=tree, check=True, capture_output=True, text=True,
                         env={**os.environ, "PYTHONPATH": str(tree)}).stdout
    rows = [json.loads(line) for line in out.splitlines() if line.startswith("{")]
    return {r["players"]: r["situations"] for r in rows}


def _p(values, q):
    return float(np.percentile(values, q)) if values else float("nan")


def by_players(args) -> None:
    """The hint's posterior seconds by player count: this tree against --before (a git
    worktree of that revision, made and removed here), the same seeded situations, the
    two in turn for each player count (so both meet about the same machine load)."""
    before = Path(tempfile.mkdtemp()) / "before"
    subprocess.run(["git", "worktree", "add", "--detach", str(before), args.before],
                   cwd=ROOT, check=True, capture_output=True)
    old, new = {}, {}
    try:
        for players in (int(p) for p in args.players.split(",")):
            old.update(_run_worker(before, args, players))
            new.update(_run_worker(ROOT, args, players))
            print(f"{players} players done", file=sys.stderr, flush=True)
    finally:
        subprocess.run(["git", "worktree", "remove", "--force", str(before)], cwd=ROOT,
                       check=True, capture_output=True)
    figures = {"machine": machine_info(), "before": args.before, "agenda": args.agenda,
               "seed": args.seed, "players": {}}
    rows = []
    for players in sorted(new):
        for kind in ("summary", "log"):
            pairs = [(o, n) for o, n in zip(old[players], new[players]) if n["kind"] == kind]
            both = [(o["seconds"], n["seconds"]) for o, n in pairs
                    if not o["refused"] and not n["refused"]]
            if not pairs:
                continue
            n_s, o_s = [b for _, b in both], [a for a, _ in both]
            f = {"situations": len(pairs), "compared": len(both),
                 "refused": sum(n["refused"] for _, n in pairs),
                 "before_refused": sum(o["refused"] for o, _ in pairs),
                 "exact": sum(n["exact"] for _, n in pairs),
                 "before_exact": sum(o["exact"] for o, _ in pairs),
                 "collapsed": sum(n["collapsed"] for _, n in pairs),
                 "before_collapsed": sum(o["collapsed"] for o, _ in pairs),
                 "p50_s": _p(n_s, 50), "p95_s": _p(n_s, 95), "max_s": max(n_s),
                 "before_p50_s": _p(o_s, 50), "before_p95_s": _p(o_s, 95),
                 "before_max_s": max(o_s),
                 "median_ratio": median([a / b for a, b in both])}
            figures["players"].setdefault(players, {})[kind] = f
            rows.append([str(players), kind, f"{len(both)}",
                         f"{f['before_p50_s'] * 1000:.0f} ms", f"{f['p50_s'] * 1000:.0f} ms",
                         f"{f['before_p95_s'] * 1000:.0f} ms", f"{f['p95_s'] * 1000:.0f} ms",
                         f"{f['median_ratio']:.1f}x",
                         f"{f['before_exact']} / {f['exact']}",
                         f"{f['before_collapsed']} / {f['collapsed']}"])
    print(markdown_table(["players", "given as", "compared", "before p50", "p50",
                          "before p95", "p95", "median ratio (before / now)",
                          "exact, before / now", "collapsed, before / now"], rows))
    if args.out:
        write_json_atomic(args.out, figures)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--logs", type=int, default=30, help="per kind (complete, partial)")
    parser.add_argument("--rev", default="fae5ccb", help="git revision of the old code")
    parser.add_argument("--agenda", default="exalted_one")
    parser.add_argument("--by-players", action="store_true",
                        help="the hint's summary posterior at 2-6 players, before and after")
    parser.add_argument("--summaries", type=int, default=30, help="per player count")
    parser.add_argument("--logs-per-count", type=int, default=10,
                        help="with --by-players: logs per player count")
    parser.add_argument("--players", default="2,3,4,5,6", help="with --by-players")
    parser.add_argument("--before", default="fa38d60",
                        help="git revision of the engine compared with --by-players")
    parser.add_argument("--worker", metavar="TREE", help=argparse.SUPPRESS)
    add_output_args(parser)
    args = parser.parse_args()
    if args.worker:
        return worker(args)
    if args.by_players:
        return by_players(args)
    old = old_situation_module(args.rev)
    game = load_jabba(2, args.agenda)
    policies = load_policies(game)
    rng = random.Random(args.seed)
    seat, log = random_log(game, random.Random(0), False)  # warm up: compile or load
    log_worlds(from_mapping({"players": 2, "agenda": args.agenda, "seat": seat,
                             "log": log}), game, policies)
    figures = {"machine": machine_info(), "rev": args.rev, "agenda": args.agenda,
               "policy": [str(p.name) for p in policies.paths], "kinds": {}}
    rows = []
    for kind in ("complete", "partial"):
        old_s, new_s, old_complete, new_complete, diffs, steps = [], [], 0, 0, [], []
        truncated_old_s, truncated_new_s, old_refused = [], [], 0
        for _ in range(args.logs):
            seat, log = random_log(game, rng, kind == "partial")
            data = {"players": 2, "agenda": args.agenda, "seat": seat, "log": log}
            start = time.perf_counter()
            new_worlds, new_info = log_worlds(from_mapping(data), game, policies)
            new_seconds = time.perf_counter() - start
            start = time.perf_counter()
            try:
                old_worlds, old_info = old.log_worlds(old.from_mapping(data), game,
                                                      policies, seed=rng.randrange(1 << 30))
            except old.SituationError:  # e.g. a target line left out: the old cannot
                old_refused += 1
                continue
            old_s.append(time.perf_counter() - start)
            new_s.append(new_seconds)
            old_complete += old_info["complete"]
            new_complete += new_info["complete"]
            steps.append(old_info["replay_steps"])
            if old_info["complete"]:
                diffs.append(difference(old_worlds, new_worlds, seat))
            else:
                truncated_old_s.append(old_s[-1])
                truncated_new_s.append(new_s[-1])
        figures["kinds"][kind] = {
            "logs": args.logs, "old_refused": old_refused, "compared": len(old_s),
            "old_median_s": median(old_s), "new_median_s": median(new_s),
            "speedup_of_medians": median(old_s) / median(new_s),
            "median_speedup": median([o / n for o, n in zip(old_s, new_s)]),
            "old_complete": old_complete, "new_complete": new_complete,
            "old_median_steps": median(steps),
            "truncated_by_old": len(truncated_old_s),
            "truncated_old_median_s": median(truncated_old_s) if truncated_old_s else None,
            "truncated_new_median_s": median(truncated_new_s) if truncated_new_s else None,
            "largest_posterior_difference": max(diffs) if diffs else None}
        f = figures["kinds"][kind]
        rows.append([kind, f"{f['old_median_s'] * 1000:.1f} ms",
                     f"{f['new_median_s'] * 1000:.1f} ms", f"{f['speedup_of_medians']:.1f}x",
                     f"{old_complete}/{len(old_s)}", f"{new_complete}/{len(old_s)}",
                     str(old_refused),
                     (f"{f['truncated_old_median_s'] * 1000:.0f} -> "
                      f"{f['truncated_new_median_s'] * 1000:.0f} ms")
                     if truncated_old_s else "-",
                     f"{f['largest_posterior_difference']:.1e}" if diffs else "-"])
    print(markdown_table(["log", "old median", "new median", "ratio", "old complete",
                          "new complete", "old refused",
                          "logs the old truncated (old -> new median)",
                          "largest difference where the old was complete"], rows))
    if args.out:
        write_json_atomic(args.out, figures)


if __name__ == "__main__":
    sys.exit(main())
