"""External-sampling MCCFR speed and memory: our compiled solver vs OpenSpiel's, side by side.

(0) Warm-up, untimed and reported: on every deck our configurations run a throwaway solver
    (numba compiles or loads its cache) and OpenSpiel's solver runs --openspiel-warm-up
    iterations on a throwaway solver (the Python game's code paths, pybind, the first
    calls' one-off costs), so no timed window starts cold.
(1) Our `solver.mccfr.MCCFRSolver` (numba) at the `identity` abstraction (perfect recall:
    OpenSpiel's information states) with one thread: iterations/s and nodes touched/s,
    timed around one `solver.run(k)` call per repeat, k calibrated so that a call takes
    about --seconds and at least OURS_MIN_ITERATIONS. Also, reported apart, the other
    --threads counts and --levels (other levels are coarser games than OpenSpiel's).
(2) `pyspiel.ExternalSamplingMCCFRSolver` (C++, calling back into our Python game):
    iterations/s from `run_iteration()` in a loop, the solver built before the clock
    starts; a repeat lasts at least --openspiel-seconds and then goes on until it has
    --openspiel-min-iterations (30) or has lasted --openspiel-max-seconds (60). Rates are
    medians over the repeats (min - max beside them; the JSON adds pooled). OpenSpiel
    counts no nodes, so its nodes/s is an ESTIMATE: its iterations/s times our measured
    nodes per iteration (same algorithm, same game, same perfect-recall information
    states: the expected nodes per iteration are equal). As a check of that estimate, an
    untimed pass counts both solvers' nodes iteration by iteration (OpenSpiel's by
    wrapping the Python state's `_apply_action`) and compares the means within their
    sampling error.
(2b) What OpenSpiel's solver pays per node on our Python game, untimed by the windows:
    medians over the decision states of seeded random rounds of `state.clone()` (what
    the solver calls at every child), `copy.deepcopy(state)`, `information_state_string`
    and `legal_actions`, in µs. A slow clone or string drags OpenSpiel's rate down and
    inflates the ratio (as the cards in the state's dictionary once did: 2 ms a clone).
(3) The ratio of the medians, ours (identity, one thread) / OpenSpiel (target: at least
    100x on the same game); the other configurations' ratios in a second table. A ratio
    is printed only when both sides had at least MIN_RATIO_ITERATIONS (10) iterations in
    every repeat (`too_few_iterations`); otherwise a warning, and no ratio.
(4) Memory of our tables after a longer run on the full deck: bytes per key as allocated
    and as used, and peak RSS growth (ru_maxrss) per million keys. It runs first, so the
    earlier measurements do not raise the RSS peak it starts from.
(5) Our levels side by side (--levels): each configuration's iterations/s over identity's
    and over fine's with the same threads, from the same repeats. With --warm-iterations
    N each configuration keeps one solver, trained N iterations untimed first, and every
    repeat times its next run() on it: the speed of a long training run, whose tables
    have stopped growing (a coarse level's do; identity's never), not of its first
    seconds. --openspiel-seconds 0 leaves OpenSpiel and the ratios (2), (3) out.

Every repeat starts both solvers from empty tables (seeded; with --warm-iterations ours
continue theirs); the decks and solvers are interleaved within each repeat, so machine
noise hits them alike.

    python benchmarks/mccfr_speed.py [--seconds 3] [--openspiel-seconds 10] [--repeats 5]
        [--openspiel-min-iterations 30] [--openspiel-max-seconds 60] [--openspiel-warm-up 3]
        [--deck full,small]
        [--players 2] [--threads 1,2] [--levels identity] [--warm-iterations 0]
        [--memory-seconds 30] [--check-seconds 3] [--seed 1] [--out FILE]
"""

from __future__ import annotations

import argparse
import copy
import random
import resource
import sys

import numpy as np
import pyspiel
from _common import (
    Stopwatch,
    add_output_args,
    load_jabba,
    machine_info,
    markdown_table,
    median,
    write_json_atomic,
)

from solver.mccfr import solver as mccfr
from solver.abstraction.keys import LEVELS
from spiel_game.cards import parse_deck

TARGET_RATIO = 100  # the issue: ours >= 100x OpenSpiel's, same game
CALIBRATE_FRACTION = 0.1  # calibration runs until a call takes this share of --seconds
MEMORY_DECK = "full"
HEADLINE = ("identity", 1)  # (level, threads) compared with OpenSpiel for the target
MIN_RATIO_ITERATIONS = 10  # a ratio needs this many iterations in every repeat of each side
OURS_MIN_ITERATIONS = 30  # our timed run() calls are at least this long


def too_few_iterations(counts: dict[str, list[int]],
                       minimum: int = MIN_RATIO_ITERATIONS) -> list[str]:
    """Why a ratio of these sides' rates would not be a measurement: for each side (name ->
    its iterations in every repeat) with no repeat or a repeat of fewer than `minimum`
    iterations, one message. [] means a ratio may be printed."""
    problems = []
    for side, per_repeat in counts.items():
        if not per_repeat:
            problems.append(f"{side}: no repeat")
        elif min(per_repeat) < minimum:
            fewest = min(per_repeat)
            problems.append(f"{side}: a run of only {fewest} iteration"
                            f"{'' if fewest == 1 else 's'} (fewer than {minimum})")
    return problems


def guarded_ratio(numerator: float, denominator: float, problems: list[str]) -> float | None:
    """numerator / denominator, or None when `problems` (too_few_iterations) is not empty."""
    return None if problems else numerator / denominator


def new_solver(game, seed: int, config: tuple[str, int] = HEADLINE):
    level, threads = config
    return mccfr.MCCFRSolver(game, level=LEVELS[level], seed=seed, threads=threads)


def label(config: tuple[str, int]) -> str:
    level, threads = config
    return f"{level}, {threads} thread{'s' if threads > 1 else ''}"


def calibrate_ours(game, seconds: float, seed: int, config: tuple[str, int]) -> int:
    """Iterations that one run() call on empty tables needs to last about `seconds`."""
    solver = new_solver(game, seed, config)
    k, done, clock = 1, 0, Stopwatch()
    while True:
        call = Stopwatch()
        solver.run(k)
        done += k
        if call.elapsed() >= CALIBRATE_FRACTION * seconds:
            return max(OURS_MIN_ITERATIONS, round(done / clock.elapsed() * seconds))
        k *= 2


def measure_ours(game, iterations: int, seed: int, config: tuple[str, int],
                 solver=None) -> dict:
    """One timed run() of `iterations` on a fresh solver (or on `solver`, continued)."""
    solver = solver or new_solver(game, seed, config)
    nodes0, iterations0 = solver.nodes_touched, solver.iterations
    clock = Stopwatch()
    solver.run(iterations)
    elapsed = clock.elapsed()
    done = solver.iterations - iterations0
    nodes = solver.nodes_touched - nodes0
    return {"iterations": done, "nodes": nodes, "seconds": elapsed,
            "iterations_per_s": done / elapsed, "nodes_per_s": nodes / elapsed,
            "nodes_per_iteration": nodes / done, "keys": solver.tables.num_keys}


def window_done(done: int, elapsed: float, seconds: float, min_iterations: int,
                   max_seconds: float) -> bool:
    """Whether a timed OpenSpiel window stops: it has lasted `seconds`, and it has
    `min_iterations` or has lasted `max_seconds` (a window longer than that: `seconds`)."""
    return elapsed >= seconds and (done >= min_iterations or elapsed >= max_seconds)


def measure_openspiel(game, seconds: float, min_iterations: int, max_seconds: float,
                      seed: int) -> dict:
    """run_iteration() on a fresh pyspiel solver (built before the clock starts) until
    `window_done`."""
    solver = pyspiel.ExternalSamplingMCCFRSolver(game, seed=seed)
    done, clock = 0, Stopwatch()
    while not window_done(done, clock.elapsed(), seconds, min_iterations, max_seconds):
        solver.run_iteration()
        done += 1
    elapsed = clock.elapsed()
    return {"iterations": done, "seconds": elapsed, "iterations_per_s": done / elapsed}


def per_iteration_nodes_ours(game, seconds: float, max_seconds: float,
                             seed: int) -> list[int]:
    """Untimed: our nodes touched by each iteration (run(1) calls on a fresh solver), for
    `seconds` and at least MIN_RATIO_ITERATIONS iterations (or `max_seconds`)."""
    solver = new_solver(game, seed)
    counts, clock = [], Stopwatch()
    while not window_done(len(counts), clock.elapsed(), seconds, MIN_RATIO_ITERATIONS,
                             max_seconds):
        before = solver.nodes_touched
        solver.run(1)
        counts.append(solver.nodes_touched - before)
    return counts


def per_iteration_nodes_openspiel(game, seconds: float, max_seconds: float,
                                  seed: int) -> list[int]:
    """Untimed: OpenSpiel's nodes per iteration, counted by wrapping the Python state's
    `_apply_action` (each child it visits is one clone + apply; plus one root per player
    per iteration), for `seconds` and at least MIN_RATIO_ITERATIONS iterations (or
    `max_seconds`). Restores the method afterwards."""
    state_class = type(game.new_initial_state())
    original = state_class._apply_action
    applied = [0]

    def counting_apply(self, action):
        applied[0] += 1
        return original(self, action)

    solver = pyspiel.ExternalSamplingMCCFRSolver(game, seed=seed)
    counts, clock = [], Stopwatch()
    state_class._apply_action = counting_apply
    try:
        while not window_done(len(counts), clock.elapsed(), seconds,
                                 MIN_RATIO_ITERATIONS, max_seconds):
            before = applied[0]
            solver.run_iteration()
            counts.append(applied[0] - before + game.num_players())
    finally:
        state_class._apply_action = original
    return counts


STATE_COST_ROUNDS = 40  # random rounds whose decision states (2b) times
STATE_COST_CALLS = ("clone", "deepcopy", "information_state_string", "legal_actions")


def state_costs(game, rng: random.Random, rounds: int = STATE_COST_ROUNDS) -> dict:
    """(2b): per call, the median µs over the decision states of `rounds` random rounds
    of what OpenSpiel's solver calls on the Python state (and of copy.deepcopy)."""
    states = []
    for _ in range(rounds):
        state = game.new_initial_state()
        while not state.is_terminal():
            if state.is_chance_node():
                outcomes, probs = zip(*state.chance_outcomes())
                state.apply_action(rng.choices(outcomes, probs)[0])
            else:
                states.append(state.clone())
                state.apply_action(rng.choice(state.legal_actions()))
    calls = {"clone": lambda s: s.clone(), "deepcopy": copy.deepcopy,
             "information_state_string": lambda s: s.information_state_string(),
             "legal_actions": lambda s: s.legal_actions()}
    costs = {}
    for name, call in calls.items():
        times = []
        for state in states:
            clock = Stopwatch()
            call(state)
            times.append(clock.elapsed() * 1e6)
        costs[name] = median(times)
    return {"states": len(states), "median_us": costs}


def mean_and_error(counts: list[int]) -> dict:
    """Mean and its standard error (sample standard deviation / sqrt(n))."""
    values = np.asarray(counts, dtype=np.float64)
    error = values.std(ddof=1) / np.sqrt(len(values)) if len(values) > 1 else float("nan")
    return {"n": len(values), "mean": float(values.mean()), "standard_error": float(error),
            "max": float(values.max())}


def node_count_check(game, seconds: float, max_seconds: float, rng: random.Random) -> dict:
    """Nodes per iteration of both solvers, counted iteration by iteration (untimed), and
    the z-score of their difference (None, with the problems, from too few iterations)."""
    theirs = mean_and_error(per_iteration_nodes_openspiel(game, seconds, max_seconds,
                                                          rng.randrange(1, 2**31 - 1)))
    ours = mean_and_error(per_iteration_nodes_ours(game, seconds, max_seconds,
                                                   rng.randrange(1, 2**31 - 1)))
    problems = too_few_iterations({"OpenSpiel": [theirs["n"]], "ours": [ours["n"]]})
    z = guarded_ratio(theirs["mean"] - ours["mean"],
                      np.hypot(theirs["standard_error"], ours["standard_error"]), problems)
    return {"openspiel": theirs, "ours": ours, "problems": problems,
            "ratio": guarded_ratio(theirs["mean"], ours["mean"], problems),
            "z": None if z is None else float(z)}


def table_memory(tables) -> dict:
    """Bytes per key of the hash table: as allocated (every array's nbytes / keys) and as
    used (per-key slot entries + one regret and one strategy-sum value per action)."""
    keys = tables.num_keys
    value_arrays = (tables.regret, tables.strategy_sum)
    values_used = int(tables.num_actions[tables.keys != 0].astype(np.int64).sum())
    actions_per_key = values_used / keys
    slot_bytes = tables.slots.nbytes // tables.capacity
    value_bytes = sum(a.itemsize for a in value_arrays)
    allocated = tables.slots.nbytes + sum(a.nbytes for a in value_arrays)
    return {"keys": keys, "slots": tables.capacity, "values_allocated": len(tables.regret),
            "values_used": values_used, "actions_per_key": actions_per_key,
            "allocated_bytes": allocated, "bytes_per_key_allocated": allocated / keys,
            "bytes_per_key_used": slot_bytes + value_bytes * actions_per_key}


def measure_memory(game, seconds: float, seed: int) -> dict:
    """Run a fresh solver for about `seconds` (calls of growing size); table bytes per key
    and the growth of the process's peak RSS per million keys."""
    peak_before_kb = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    solver = new_solver(game, seed)
    k, clock = 64, Stopwatch()
    while clock.elapsed() < seconds:
        call = Stopwatch()
        solver.run(k)
        if call.elapsed() < min(1.0, seconds / 20):
            k *= 2
    elapsed = clock.elapsed()
    peak_after_kb = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    result = table_memory(solver.tables)
    growth_mb = (peak_after_kb - peak_before_kb) / 1024
    result.update({"iterations": solver.iterations, "seconds": elapsed,
                   "iterations_per_s": solver.iterations / elapsed,
                   "nodes_per_s": solver.nodes_touched / elapsed,
                   "peak_rss_before_mb": peak_before_kb / 1024,
                   "peak_rss_after_mb": peak_after_kb / 1024,
                   "peak_rss_growth_mb": growth_mb,
                   "rss_mb_per_million_keys": growth_mb / (result["keys"] / 1e6)})
    return result


def summarize(runs: list[dict], key: str) -> dict:
    """Median, min and max of a rate over the runs (the median is what the tables and
    ratios use), and the pooled rate: the total count over the total seconds."""
    values = [run[key] for run in runs]
    count = "iterations" if key == "iterations_per_s" else "nodes"
    pooled = sum(run[count] for run in runs) / sum(run["seconds"] for run in runs)
    return {"median": median(values), "min": min(values), "max": max(values),
            "pooled": pooled}


def per_repeat(runs: list[dict]) -> dict:
    """Each repeat's iterations and seconds, and their medians."""
    iterations = [run["iterations"] for run in runs]
    seconds = [run["seconds"] for run in runs]
    return {"iterations": iterations, "seconds": seconds,
            "median_iterations": median(iterations), "median_seconds": median(seconds)}


def spread(summary: dict) -> str:
    low, high = summary["min"], summary["max"]
    return f"{low:,.0f} – {high:,.0f}" if low >= 100 else f"{low:.3g} – {high:.3g}"


def count_spread(counts: list[int]) -> str:
    low, high = min(counts), max(counts)
    return f"{low:,}" if low == high else f"{low:,} – {high:,}"


def ratio_cell(ratio: float | None, digits: int = 1) -> str:
    return "no ratio" if ratio is None else f"{ratio:,.{digits}f}×"


def warm_up(games: dict, configs: list[tuple[str, int]], openspiel_iterations: int,
            openspiel_decks) -> dict:
    """Compile (or load numba's cache) and touch every code path outside the timings: on
    every deck a throwaway solver of each of our configurations, and on `openspiel_decks`
    `openspiel_iterations` of a throwaway OpenSpiel solver. The seconds they took, per
    deck."""
    seconds = {}
    for deck, game in games.items():
        clock = Stopwatch()
        for config in configs:
            new_solver(game, 1, config).run(2)
        seconds[deck] = {"ours": clock.elapsed(), "openspiel_iterations": []}
        solver = pyspiel.ExternalSamplingMCCFRSolver(game, seed=1)
        for _ in range(openspiel_iterations if deck in openspiel_decks else 0):
            clock = Stopwatch()
            solver.run_iteration()
            seconds[deck]["openspiel_iterations"].append(clock.elapsed())
    return seconds


def warm_solvers(games: dict, configs: list[tuple[str, int]], iterations: int,
                 rng: random.Random) -> dict:
    """One solver per deck and configuration, trained `iterations` (untimed)."""
    solvers = {}
    for deck, game in games.items():
        for config in configs:
            solvers[deck, config] = new_solver(game, rng.randrange(1, 2**31 - 1), config)
            solvers[deck, config].run(iterations)
    return solvers


def calibrate_continued(solver, seconds: float) -> int:
    """Iterations that one more run() call on `solver` needs to last about `seconds`."""
    k = 1
    while True:
        call = Stopwatch()
        solver.run(k)
        if call.elapsed() >= CALIBRATE_FRACTION * seconds:
            return max(OURS_MIN_ITERATIONS, round(k / call.elapsed() * seconds))
        k *= 2


def speed_section(games: dict, configs: list[tuple[str, int]], args,
                  rng: random.Random) -> dict:
    """Calibrate, then interleave our configurations and OpenSpiel for every deck in every
    repeat."""
    solvers = (warm_solvers(games, configs, args.warm_iterations, rng)
               if args.warm_iterations > 0 else {})
    if solvers:
        iterations = {key: calibrate_continued(solver, args.seconds)
                      for key, solver in solvers.items()}
    else:
        iterations = {(deck, config): calibrate_ours(game, args.seconds,
                                                     rng.randrange(1, 2**31 - 1), config)
                      for deck, game in games.items() for config in configs}
    openspiel = args.openspiel_seconds > 0
    runs = {deck: {"ours": {config: [] for config in configs}, "openspiel": []}
            for deck in games}
    for _ in range(args.repeats):
        for deck, game in games.items():
            for config in configs:
                runs[deck]["ours"][config].append(measure_ours(
                    game, iterations[deck, config], rng.randrange(1, 2**31 - 1), config,
                    solvers.get((deck, config))))
            if openspiel:
                runs[deck]["openspiel"].append(measure_openspiel(
                    game, args.openspiel_seconds, args.openspiel_min_iterations,
                    args.openspiel_max_seconds, rng.randrange(1, 2**31 - 1)))
    costs = {deck: state_costs(game, rng) for deck, game in games.items()} if openspiel else {}
    checks = {deck: node_count_check(game, args.check_seconds,
                                     max(args.check_seconds, args.openspiel_max_seconds), rng)
              for deck, game in games.items()} if args.check_seconds > 0 and openspiel else {}

    results = {}
    for deck in games:
        theirs = runs[deck]["openspiel"]
        theirs_it = (summarize(theirs, "iterations_per_s") if openspiel
                     else {"median": float("nan")})
        theirs_counts = {"OpenSpiel": [r["iterations"] for r in theirs]} if openspiel else {}
        ours_by_config = {}
        for config in configs:
            ours = runs[deck]["ours"][config]
            problems = too_few_iterations({f"ours ({label(config)})":
                                           [r["iterations"] for r in ours], **theirs_counts})
            ours_by_config[config] = {
                "level": config[0], "threads": config[1],
                "iterations_per_call": iterations[deck, config],
                **per_repeat(ours),
                "iterations_per_s": summarize(ours, "iterations_per_s"),
                "nodes_per_s": summarize(ours, "nodes_per_s"),
                # Pooled over repeats.
                "nodes_per_iteration": (sum(r["nodes"] for r in ours)
                                        / sum(r["iterations"] for r in ours)),
                "ratio_problems": problems if openspiel else None,
                "ratio_iterations_per_s": (guarded_ratio(
                    summarize(ours, "iterations_per_s")["median"], theirs_it["median"],
                    problems) if openspiel else None),
                "keys_at_end": (solvers[deck, config].tables.num_keys if solvers
                                else None),
                "runs": ours}
        for config, r in ours_by_config.items():
            rate = r["iterations_per_s"]["median"]
            for base in ("identity", "fine"):
                same = ours_by_config.get((base, config[1]))
                problems = same and too_few_iterations({
                    "ours": r["iterations"], "base": same["iterations"]})
                r[f"ratio_to_{base}"] = (guarded_ratio(rate, same["iterations_per_s"]["median"],
                                                       problems) if same else None)
        headline = ours_by_config[HEADLINE]
        # The estimate of OpenSpiel's nodes per iteration: ours at the same information
        # states (identity).
        per_iteration = headline["nodes_per_iteration"]
        theirs_nodes_estimate = theirs_it["median"] * per_iteration
        results[deck] = {
            "spec": parse_deck(deck).to_spec(),
            "ours": headline,
            "ours_other": {label(c): r for c, r in ours_by_config.items() if c != HEADLINE},
            "openspiel": {**per_repeat(theirs), "iterations_per_s": theirs_it,
                          "nodes_per_iteration_estimate": per_iteration,
                          "nodes_per_s_estimate": theirs_nodes_estimate,
                          "runs": theirs} if openspiel else None,
            "node_count_check": checks.get(deck),
            "state_costs": costs.get(deck),
            "ratio_problems": headline["ratio_problems"],
            "ratio_iterations_per_s": headline["ratio_iterations_per_s"],
            "ratio_nodes_per_s": (guarded_ratio(headline["nodes_per_s"]["median"],
                                                theirs_nodes_estimate,
                                                headline["ratio_problems"])
                                  if openspiel else None),
        }
    return results


def print_levels(results: dict, args) -> None:
    """(5): every configuration's rate over identity's and fine's (same threads)."""
    rows = []
    for deck, r in results.items():
        for name, ours in [(label(HEADLINE), r["ours"]), *r["ours_other"].items()]:
            rows.append([deck, name, ours["iterations_per_s"]["median"],
                         spread(ours["iterations_per_s"]), ours["nodes_per_iteration"],
                         "-" if ours["keys_at_end"] is None else ours["keys_at_end"],
                         *(f"{ours[k]:.3f}" if ours[k] is not None else "-"
                           for k in ("ratio_to_identity", "ratio_to_fine"))])
    warm = (f"each continuing one solver trained {args.warm_iterations:,} iterations "
            "first" if args.warm_iterations > 0 else "each from empty tables")
    print(f"\n### Our levels side by side ({args.players} players, exalted_one), "
          f"{args.repeats} repeats of ~{args.seconds:g} s, {warm}\n")
    print("iterations/s: the median over the repeats; min – max the runs'.\n")
    print(markdown_table(["deck", "ours", "iterations/s", "min – max", "nodes/iteration",
                          "keys at the end", "/ identity", "/ fine"], rows))


def print_warm_up(seconds: dict) -> None:
    rows = [[deck, f"{s['ours']:.2f}",
             ", ".join(f"{t:.3g}" for t in s["openspiel_iterations"]) or "-"]
            for deck, s in seconds.items()]
    print("### Warm-up (untimed, before every measurement)\n")
    print(markdown_table(["deck", "ours: seconds (every configuration)",
                          "OpenSpiel: seconds per iteration"], rows) + "\n")


def print_speed(results: dict, args) -> None:
    if args.openspiel_seconds <= 0:
        return
    rows, ratio_rows, check_rows, other_rows, warnings = [], [], [], [], []
    for deck, r in results.items():
        theirs = r["openspiel"]
        for name, ours in [(label(HEADLINE), r["ours"]), *r["ours_other"].items()]:
            rows.append([deck, f"ours (numba, {name})", count_spread(ours["iterations"]),
                         f"{ours['median_seconds']:.2f}", ours["iterations_per_s"]["median"],
                         spread(ours["iterations_per_s"]), ours["nodes_per_iteration"],
                         ours["nodes_per_s"]["median"]])
            if ours is not r["ours"]:
                other_rows.append([deck, name, ratio_cell(ours["ratio_iterations_per_s"])])
                warnings += [f"{deck}, ours ({name}) / OpenSpiel: {p}"
                             for p in ours["ratio_problems"]]
        rows.append([deck, "OpenSpiel C++ on the Python game",
                     count_spread(theirs["iterations"]), f"{theirs['median_seconds']:.2f}",
                     theirs["iterations_per_s"]["median"], spread(theirs["iterations_per_s"]),
                     f"≈ {theirs['nodes_per_iteration_estimate']:,.1f} (ours)",
                     f"≈ {theirs['nodes_per_s_estimate']:,.0f}"])
        warnings += [f"{deck}, ours ({label(HEADLINE)}) / OpenSpiel: {p}"
                     for p in r["ratio_problems"]]
        if r["ratio_problems"]:
            met = "no ratio"
        else:
            met = ("yes" if min(r["ratio_iterations_per_s"], r["ratio_nodes_per_s"])
                   >= TARGET_RATIO else "no")
        ratio_rows.append([deck, ratio_cell(r["ratio_iterations_per_s"]),
                           ratio_cell(r["ratio_nodes_per_s"]), f"{TARGET_RATIO}×", met])
        check = r["node_count_check"]
        if check:
            check_rows.append([deck, *count_cells(check["openspiel"]),
                               *count_cells(check["ours"]), ratio_cell(check["ratio"], 2),
                               "-" if check["z"] is None else f"{check['z']:+.1f}"])
            warnings += [f"{deck}, check of the estimate: {p}" for p in check["problems"]]
    print(f"### MCCFR speed ({args.players} players, exalted_one), {args.repeats} repeats, "
          f"each from empty tables: ours one run() of ≥ {OURS_MIN_ITERATIONS} iterations, "
          f"~{args.seconds:g} s; OpenSpiel ≥ {args.openspiel_seconds:g} s, then until "
          f"{args.openspiel_min_iterations} iterations or {args.openspiel_max_seconds:g} s\n")
    print("iterations/s and nodes/s: the medians over the repeats; min – max the runs'; "
          "iterations and\nseconds: per repeat (seconds: the median).\n")
    print(markdown_table(["deck", "solver", "iterations per repeat", "seconds per repeat",
                          "iterations/s", "min – max", "nodes/iteration", "nodes/s"], rows))
    print("\nOpenSpiel does not count nodes: its nodes/iteration and nodes/s are ESTIMATES, "
          "ours measured\nnodes/iteration (pooled over the repeats) times its iterations/s. "
          "Same algorithm, game and\nperfect-recall information states, so the expected "
          "nodes per iteration are equal.\n")
    cost_rows = [[deck, r["state_costs"]["states"],
                  *(f"{r['state_costs']['median_us'][k]:,.1f}" for k in STATE_COST_CALLS)]
                 for deck, r in results.items() if r["state_costs"]]
    if cost_rows:
        print("What OpenSpiel's solver calls on our Python state, per call (µs, medians "
              f"over the decision states\nof {STATE_COST_ROUNDS} random rounds): it clones "
              "the state at every child and asks for the\ninformation-state string at every "
              "decision.\n")
        print(markdown_table(["deck", "states", *STATE_COST_CALLS], cost_rows) + "\n")
    print(f"Ratios of the medians; none unless both sides had ≥ {MIN_RATIO_ITERATIONS} "
          "iterations in every repeat.\n")
    print(markdown_table(["deck", f"iterations/s ours ({label(HEADLINE)}) / OpenSpiel",
                          "nodes/s ours / OpenSpiel (estimate)", "target", "target met"],
                         ratio_rows))
    if other_rows:
        print("\nOur other configurations, iterations/s over OpenSpiel's (not the target's "
              "comparison:\nanother thread count, or a coarser game than OpenSpiel's "
              "information states):\n")
        print(markdown_table(["deck", "ours", "iterations/s ours / OpenSpiel"], other_rows))
    if check_rows:
        print(f"\nCheck of the estimate (untimed, {args.check_seconds:g} s and at least "
              f"{MIN_RATIO_ITERATIONS} iterations per solver and deck,\nor "
              f"{max(args.check_seconds, args.openspiel_max_seconds):g} s; fresh solvers): "
              "nodes counted iteration by iteration. OpenSpiel's by\nwrapping the Python "
              "state's `_apply_action` (one root per player + one apply per child\nvisited); "
              "ours from `nodes_touched` after each run(1). z = difference of the means / "
              "its\nstandard error; |z| < 2 is agreement within sampling noise.\n")
        print(markdown_table(["deck", "OpenSpiel iterations", "OpenSpiel nodes/iteration",
                              "max", "our iterations", "our nodes/iteration", "max",
                              "OpenSpiel / ours", "z"], check_rows))
    for warning in warnings:
        print(f"\n**WARNING: no ratio.** {warning}: a rate from so few iterations is not "
              "a measurement.")
        print(f"WARNING: no ratio. {warning}", file=sys.stderr)


def count_cells(counts: dict) -> list:
    return [counts["n"], f"{counts['mean']:,.1f} ± {counts['standard_error']:,.1f}",
            counts["max"]]


def print_memory(m: dict, players: int) -> None:
    print(f"\n### Our table memory ({MEMORY_DECK} deck, {players} players, one run of "
          f"{m['seconds']:.0f} s from empty tables)\n")
    print(markdown_table(
        ["iterations", "iterations/s", "keys", "actions/key", "key slots", "value slots",
         "bytes/key allocated", "bytes/key used", "peak RSS growth (MB)",
         "MB per million keys"],
        [[m["iterations"], m["iterations_per_s"], m["keys"], f"{m['actions_per_key']:.2f}",
          m["slots"], m["values_allocated"], f"{m['bytes_per_key_allocated']:.1f}",
          f"{m['bytes_per_key_used']:.1f}", f"{m['peak_rss_growth_mb']:,.0f}",
          f"{m['rss_mb_per_million_keys']:.1f}"]]))
    print("\nAllocated = nbytes of the slots (key + entry), regret and strategy_sum over "
          "the keys stored;\nused = one 16-byte slot + (regret + strategy "
          "sum) × actions per key. The RSS\ngrowth is the rise of ru_maxrss over the run "
          "(tables grow in place: no moment\nholds two copies). Zero-filled memory counts "
          "once written, so a doubling adds its new\nhalf at once; MB per million keys "
          "varies up to 2x with where between two doublings\nthe run stops.")


def main(argv: list[str] | None = None) -> dict:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seconds", type=float, default=3.0,
                        help="seconds per measurement (default %(default)s)")
    parser.add_argument("--openspiel-seconds", type=float, default=10.0,
                        help="least seconds per OpenSpiel measurement; 0 leaves OpenSpiel "
                             "out (default %(default)s)")
    parser.add_argument("--openspiel-min-iterations", type=int, default=30,
                        help="an OpenSpiel measurement goes on past --openspiel-seconds "
                             "until it has this many iterations... (default %(default)s)")
    parser.add_argument("--openspiel-max-seconds", type=float, default=60.0,
                        help="...or has lasted this long (default %(default)s)")
    parser.add_argument("--openspiel-warm-up", type=int, default=3,
                        help="untimed OpenSpiel iterations per deck before any timing "
                             "(default %(default)s)")
    parser.add_argument("--repeats", type=int, default=5,
                        help="measurements per solver and deck (default %(default)s)")
    parser.add_argument("--deck", default="full,small",
                        help="comma-separated decks (presets or specs; default %(default)s)")
    parser.add_argument("--players", type=int, default=2,
                        help="players (default %(default)s)")
    parser.add_argument("--threads", default="1,2",
                        help="comma-separated thread counts of ours; 1 is the headline "
                             "(default %(default)s)")
    parser.add_argument("--levels", default="identity",
                        help="comma-separated abstraction levels of ours; identity is the "
                             "headline (default %(default)s)")
    parser.add_argument("--warm-iterations", type=int, default=0,
                        help="train each of our configurations this long (untimed) and "
                             "time its continuation: the speed of a long run (default "
                             "%(default)s: from empty tables)")
    parser.add_argument("--memory-seconds", type=float, default=30.0,
                        help="length of the memory run on the full deck; 0 skips it "
                             "(default %(default)s)")
    parser.add_argument("--check-seconds", type=float, default=3.0,
                        help="untimed per-iteration node counts, per solver and deck; 0 "
                             "skips them (default %(default)s)")
    add_output_args(parser)
    args = parser.parse_args(argv)
    wall = Stopwatch()
    rng = random.Random(args.seed)

    decks = list(dict.fromkeys(d.strip() for d in args.deck.split(",") if d.strip()))
    levels = [x.strip() for x in args.levels.split(",") if x.strip()]
    threads = [int(x) for x in args.threads.split(",") if x.strip()]
    for level in levels:
        if level not in LEVELS:
            parser.error(f"unknown level {level!r}; choose from {', '.join(LEVELS)}")
    configs = list(dict.fromkeys([HEADLINE] + [(level, k) for level in levels
                                               for k in threads]))
    games = {deck: load_jabba(players=args.players, deck=deck) for deck in decks}
    memory_game = games.get(MEMORY_DECK) or load_jabba(players=args.players, deck=MEMORY_DECK)
    openspiel = args.openspiel_seconds > 0
    warm = warm_up({**games, MEMORY_DECK: memory_game}, configs,
                   args.openspiel_warm_up if openspiel else 0, games)

    memory = None
    if args.memory_seconds > 0:
        memory = measure_memory(memory_game, args.memory_seconds, rng.randrange(1, 2**31 - 1))
    speed = speed_section(games, configs, args, rng)

    print(f"solver: {mccfr.__file__}\n")
    print("### Decks\n")
    print(markdown_table(["deck", "spec"], [[d, r["spec"]] for d, r in speed.items()]) + "\n")
    print_warm_up(warm)
    print_speed(speed, args)
    if len(configs) > 1:
        print_levels(speed, args)
    if memory:
        print_memory(memory, args.players)
    print(f"\nwall time {wall.elapsed():.1f} s")

    result = {"args": vars(args), "machine": machine_info(), "solver_file": mccfr.__file__,
              "target_ratio": TARGET_RATIO, "min_ratio_iterations": MIN_RATIO_ITERATIONS,
              "warm_up_seconds": warm, "speed": speed, "memory": memory,
              "wall_seconds": wall.elapsed()}
    if args.out:
        write_json_atomic(args.out, result)
    return result


if __name__ == "__main__":
    main()
