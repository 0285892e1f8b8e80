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

With --by-players: the hint's posterior of a summary (solver/hint/log.py
`summary_log_worlds`, SUMMARY_PARTICLES 4096, merge_logs, the shipped tables where the
player count has them) at 2-6 players, random rounds stopped at a random play decision
(solver/studies/belief_accuracy.py): seconds p50/p95, how many were exact, sampled or
refused, beside the filter before sampling (--before, default 97a4fd9: exact within
4,096 particles, else the least likely dropped, and the hint then fell back to card
counting; its time here is that of the filter run alone).

    python benchmarks/belief_speed.py --by-players [--summaries 40] [--before 97a4fd9]
"""

from __future__ import annotations

import argparse
import importlib.util
import random
import subprocess
import sys
import tempfile
import time
from collections import defaultdict
from pathlib import Path

import numpy as np
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


def old_filter_module(rev: str):
    """solver/belief/filter.py at `rev` as a module (its own numba cache)."""
    source = subprocess.run(["git", "show", f"{rev}:solver/belief/filter.py"], cwd=ROOT,
                            check=True, capture_output=True, text=True).stdout
    path = Path(tempfile.mkdtemp()) / "old_filter.py"
    path.write_text(source)
    spec = importlib.util.spec_from_file_location("old_filter", path)
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module
    spec.loader.exec_module(module)
    return module


def _old_seconds(old, game, sit, policy, limit: int = 4096) -> tuple[float, bool]:
    """(seconds, exact) of the filter before sampling on the summary's pattern."""
    from solver.hint.log import TREMBLE, summary_pattern
    from solver.hint.validate import check
    from solver.policies.compiled import build_bank

    cfg = game.config
    start = time.perf_counter()
    sit = check(sit, tuple(int(c) for c in cfg.deck.counts), cfg.face_up)
    pattern, _ = summary_pattern(sit, game)
    if policy is not None:
        bank, chain, floor = policy.bank, np.arange(len(policy.paths)), TREMBLE
    else:
        bank, chain, floor = build_bank(["uniform"], game), np.zeros(0, np.int64), 0.0
    initial = game.initial_array.copy()
    initial[L.S_LOGGING] = 1
    buffers = np.empty((2, limit, len(initial)), dtype=initial.dtype)
    weights = np.empty((2, limit))
    progress = np.zeros((2, limit, 2), dtype=np.int32)
    buffers[0, 0], weights[0, 0] = initial, 1.0
    stats = np.zeros(old.NUM_BELIEF_STATS, dtype=np.int64)
    stats[old.B_FAIL_KIND] = old.NO_FAILURE
    old.advance(buffers, weights, progress, 0, 1, pattern, len(pattern), sit.seat,
                old.OMIT_LOG, L.PH_PLAY, bank.arrays(), np.asarray(chain, np.int64),
                floor, True, True, limit, stats, np.zeros(1), sit.seat)
    return time.perf_counter() - start, stats[old.B_TRUNCATED] == 0


def by_players(args) -> None:
    """Posterior seconds of a summary by player count, before and after sampling."""
    from solver.hint.log import summary_log_worlds
    from solver.hint.situation import SituationError
    from solver.studies.belief_accuracy import player_summary, random_stop

    old = old_filter_module(args.before)
    figures = {"machine": machine_info(), "before": args.before, "agenda": args.agenda,
               "summaries": args.summaries, "players": {}}
    rows = []
    for players in range(2, 7):
        game = load_jabba(players, args.agenda)
        policies = load_policies(game)
        table = policies if policies.paths else None
        rng = random.Random(args.seed)
        new_s, old_s, exact, old_exact, refused, collapsed = [], [], 0, 0, 0, 0
        ess = []
        warm = True
        while len(new_s) < args.summaries:
            state = random_stop(game, rng)
            if state is None:
                continue
            sit = from_mapping(player_summary(state, state.current_player()))
            try:
                start = time.perf_counter()
                _, info = summary_log_worlds(sit, game, table, complete_within=4096,
                                             merge_logs=True, seed=args.seed)
                seconds = time.perf_counter() - start
            except SituationError:
                refused += 1
                continue
            before, before_exact = _old_seconds(old, game, sit, table)
            if warm:  # the first of each: compiling or loading the kernels
                warm = False
                continue
            new_s.append(seconds)
            old_s.append(before)
            exact += int(info["exact"])
            old_exact += int(before_exact)
            collapsed += int(info["collapsed"])
            if not info["exact"]:
                ess.append(info["effective_sample_size"])
        f = {"summaries": len(new_s), "refused": refused, "exact": exact,
             "sampled": len(new_s) - exact, "collapsed": collapsed,
             "sampled_ess_median": median(ess) if ess else None,
             "p50_s": float(np.percentile(new_s, 50)), "p95_s": float(np.percentile(new_s, 95)),
             "max_s": max(new_s), "before_exact": old_exact,
             "before_p50_s": float(np.percentile(old_s, 50)),
             "before_p95_s": float(np.percentile(old_s, 95)),
             "policy": [p.name for p in policies.paths]}
        figures["players"][players] = f
        rows.append([str(players), f"{f['p50_s'] * 1000:.0f} ms", f"{f['p95_s'] * 1000:.0f} ms",
                     f"{exact}/{len(new_s)}", str(collapsed),
                     f"{f['before_p50_s'] * 1000:.0f} ms",
                     f"{f['before_p95_s'] * 1000:.0f} ms", f"{old_exact}/{len(new_s)}"])
        print(rows[-1], file=sys.stderr, flush=True)
    print(markdown_table(["players", "p50", "p95", "exact", "collapsed", "before p50",
                          "before p95", "before exact (else card counting)"], rows))
    if args.out:
        write_json_atomic(args.out, figures)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--logs", type=int, default=30, help="per kind (complete, partial)")
    parser.add_argument("--rev", default="fae5ccb", help="git revision of the old code")
    parser.add_argument("--agenda", default="exalted_one")
    parser.add_argument("--by-players", action="store_true",
                        help="the hint's summary posterior at 2-6 players, before and after")
    parser.add_argument("--summaries", type=int, default=40, help="per player count")
    parser.add_argument("--before", default="97a4fd9",
                        help="git revision of the filter before sampling")
    add_output_args(parser)
    args = parser.parse_args()
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
