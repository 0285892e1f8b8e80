"""Information abstractions for MCCFR: table size, saturation and loss, level by level.

For every level of `solver.abstraction.LEVELS`:

(a) Growth on the full deck (--players, default 2; --agendas, default Exalted One and
    Jabba's Court):
    `MCCFRSolver(game, level, seed)` runs in small chunks up to --iterations (or until
    --time-limit seconds or --max-keys keys); distinct keys are reported at log-spaced
    iteration counts. Saturation: the share of key visits (decision nodes) that created a
    new key over the last tenth of the run, i.e. new keys in that tenth / decision visits
    in it. The solver counts all nodes it touches (`nodes_touched`), not decisions: the
    decision share of touched nodes is measured after the run by a read-only replica of
    the solver's traversal (same sampling, same tables, nothing written), and the visits
    in the last tenth are its nodes times that share. The replica also reports the share
    of its decision visits whose key is not in the table (an upper bound on the same
    rate: a missing key met twice counts twice). Requirement for a shippable level: < 1%.
(b) Bytes per key: the tables' arrays as allocated (hash slots at most half full, value
    arrays doubled with them) and as used (16 bytes per slot at 50% load, plus two
    float32 per action).
(c) Self-play on the full deck with the table's average strategy (chance sampled with
    engine.sample_chance): the share of decisions whose key is in the table (requirement
    >= 99% for the shipped level; missing keys are played uniformly), and that every key
    found has as many actions as the decision (one block of n values per key).
(d) Loss on reduced decks (--decks, default "small", "medium"; the `large` deck too, 44 M
    nodes, ~7 GB in one job; --reduced-agendas, default Exalted One; --players): per
    (deck, agenda) one job builds the exact tree (solver/exact/tree.py, compiled), runs
    DCFR on it (--dcfr-iterations; the ~0 reference), then per level MCCFR for
    --reduced-iterations iterations (--reduced-seeds seeds, the same for every level;
    mean, min and max reported: MCCFR's own noise is a few 1e-3) and the exact
    exploitability (NashConv with 3+ players) of its average strategy in the TRUE reduced
    game, the table read through each infoset's key (keys.replayed_keys, compiled). With
    --abstract-dcfr-iterations, also DCFR on the tree with each key's infosets merged:
    the level's loss without MCCFR's noise. --loss-out STEM writes the table to
    STEM.csv / .json / .md (results/abstraction_loss), keeping an earlier STEM.json's
    rows for other decks, agendas or levels: the large deck can run on its own.

Before anything else a guard checks that the compiled solver uses the current keys: numba
checks a cached function against its own source file only, so after an edit of
abstraction.py a stale cache would silently keep the old keys (delete
solver/mccfr/__pycache__ then).

Jobs run in --jobs worker processes (default 2), each single-threaded and seeded, so a
run is deterministic except for its timings and time-limited cut-offs.

    python benchmarks/abstraction_study.py [--iterations 60000] [--time-limit 240]
        [--max-keys 6000000] [--reduced-iterations 400000] [--reduced-seeds 3]
        [--dcfr-iterations 300] [--selfplay-rounds 200000]
        [--levels identity,counting,fine,coarse] [--agendas exalted_one,jabbas_court]
        [--players 2] [--decks small,medium] [--reduced-agendas exalted_one]
        [--abstract-dcfr-iterations 0] [--loss-out STEM] [--jobs 2] [--seed 1] [--out FILE]
"""

from __future__ import annotations

import argparse
import concurrent.futures
import datetime
import math
import multiprocessing
import sys
from pathlib import Path

import numpy as np
from _common import (
    AGENDAS,
    Stopwatch,
    add_output_args,
    guard_outputs,
    load_jabba,
    machine_info,
    markdown_table,
    write_json_atomic,
)
from numba import njit

from solver.abstraction import keys as abstraction
from solver.abstraction.keys import LEVELS, abstract_key
from solver.mccfr.solver import MCCFRSolver
from solver.mccfr.table import META_SLOTS_USED, find_slot
from solver.sim.rng import STREAM_MCCFR, next_float, stream_seed
from solver.sim.sampler import chance_card, sample
from spiel_game import engine
from spiel_game import layout as L

REQUIRED_NEW_SHARE = 0.01  # < 1% of key visits create a key over the last tenth
REQUIRED_HIT_RATE = 0.99  # >= 99% of self-play decisions find their key
REDUCED_DECKS = ("small", "medium")
REDUCED_AGENDA = "exalted_one"
LEVEL_ORDER = tuple(LEVELS)  # finest first
LOSS_MAX_NODES = 60_000_000  # the large deck's 44 M nodes and their solvers fit in ~7 GB
_JIT = {"cache": True, "nogil": True}


# Compiled helpers --------------------------------------------------------------------------

@njit(**_JIT)
def _probe(s, p, level, keys, offsets, regret, rng, counts):
    """A read-only copy of solver/mccfr/kernel.py's traversal: same sampling from the
    current regrets,
    nothing written. counts: [nodes, decisions, decisions whose key is missing]."""
    counts[0] += 1
    if engine.is_terminal(s):
        return
    if engine.is_chance(s):
        engine.apply_action(s, chance_card(s, rng))
        _probe(s, p, level, keys, offsets, regret, rng, counts)
        return
    counts[1] += 1
    actions = np.empty(L.NUM_ACTIONS, dtype=np.int32)
    n = engine.legal_actions(s, actions)
    actor = engine.current_actor(s)
    j = find_slot(keys, abstract_key(s, actor, level))
    sigma = np.full(n, 1.0 / n)
    if keys[j] == 0:
        counts[2] += 1
    else:
        total = 0.0
        for i in range(n):
            total += max(regret[offsets[j] + i], 0.0)
        if total > 0:
            for i in range(n):
                sigma[i] = max(regret[offsets[j] + i], 0.0) / total
    if actor != p:
        engine.apply_action(s, actions[sample(sigma, n, rng)])
        _probe(s, p, level, keys, offsets, regret, rng, counts)
        return
    for i in range(n):
        child = s.copy()
        engine.apply_action(child, actions[i])
        _probe(child, p, level, keys, offsets, regret, rng, counts)


@njit(**_JIT)
def _probe_iterations(root, level, iterations, keys, offsets, regret, seed):
    counts = np.zeros(3, dtype=np.int64)
    rng = np.array([stream_seed(seed, STREAM_MCCFR, 0)], dtype=np.uint64)
    for _ in range(iterations):
        for p in range(root[L.S_NUM_PLAYERS]):
            _probe(root.copy(), p, level, keys, offsets, regret, rng, counts)
    return counts


@njit(**_JIT)
def _self_play(root, level, rounds, seed, keys, offsets, num_actions, strategy_sum):
    """Rounds with the table's average strategy (uniform where a key is missing).
    Returns [decisions, keys found, keys found with another action count]."""
    out = np.zeros(3, dtype=np.int64)
    buf = np.empty(L.NUM_ACTIONS, dtype=np.int32)
    rng = np.array([stream_seed(seed, STREAM_MCCFR, 1)], dtype=np.uint64)
    for _ in range(rounds):
        s = root.copy()
        while not engine.is_terminal(s):
            if engine.is_chance(s):
                engine.apply_action(s, chance_card(s, rng))
                continue
            n = engine.legal_actions(s, buf)
            actor = engine.current_actor(s)
            j = find_slot(keys, abstract_key(s, actor, level))
            out[0] += 1
            u = next_float(rng)
            pick = min(int(u * n), n - 1)
            if keys[j] != 0:
                out[1] += 1
                if num_actions[j] != n:
                    out[2] += 1
                else:
                    total = 0.0
                    for i in range(n):
                        total += strategy_sum[offsets[j] + i]
                    if total > 0:
                        x = u * total
                        pick = 0
                        while pick < n - 1 and x >= strategy_sum[offsets[j] + pick]:
                            x -= strategy_sum[offsets[j] + pick]
                            pick += 1
            engine.apply_action(s, buf[pick])
    return out


# Guard: the compiled solver must use the current abstraction -----------------------------

def check_solver_keys(levels: dict[str, int]) -> None:
    """Every key the compiled solver stores on 'tiny' must be one the current
    abstract_key gives some decision node of the tiny tree; else numba's cache of
    solver/mccfr/ predates the last edit of solver/abstraction/keys.py."""
    from solver.exact.tree import build_tree, infoset_states

    game = load_jabba(deck="tiny")
    tree = build_tree(game)
    for name, level in levels.items():
        expected = set()
        for index, state in infoset_states(tree):
            expected.add(int(abstract_key(state._s, int(tree.infoset_player[index]), level)))
        solver = MCCFRSolver(game, level=level, seed=3)
        solver.run(300)
        stored = set(solver.tables.keys[solver.tables.keys != 0].tolist())
        if not stored <= expected:
            sys.exit(f"level {name}: the compiled solver stores keys that the current "
                     "abstract_key does not give: numba's cache of solver/mccfr/ is "
                     "stale (it does not see edits of solver/abstraction/keys.py). Delete "
                     "solver/mccfr/__pycache__ and run again.")


# Jobs (run in worker processes) ------------------------------------------------------------

def checkpoints(total: int) -> list[int]:
    """Log-spaced 1-2-5 iteration counts up to total, plus total itself."""
    points = []
    k = 0
    while True:
        for m in (1, 2, 5):
            x = m * 10 ** k
            if x >= total:
                return sorted(set(points + [total]))
            if x >= 100:
                points.append(x)
        k += 1


def table_bytes(tables) -> dict:
    keys = max(1, tables.num_keys)
    allocated = tables.slots.nbytes + tables.regret.nbytes + tables.strategy_sum.nbytes
    values_used = int(tables.meta[META_SLOTS_USED])
    slot_bytes = tables.slots.nbytes // tables.capacity
    used = 2 * keys * slot_bytes + values_used * 8  # slots at 50% load, 2 x float32/action
    return {"allocated_bytes": int(allocated), "allocated_bytes_per_key": allocated / keys,
            "used_bytes_per_key": used / keys, "actions_per_key": values_used / keys}


def growth_job(agenda: str, level_name: str, iterations: int, seconds: float,
               max_keys: int, seed: int, selfplay_rounds: int, players: int) -> dict:
    game = load_jabba(players=players, agenda=agenda)
    level = LEVELS[level_name]
    solver = MCCFRSolver(game, level=level, seed=seed)
    chunk = max(20, iterations // 200)
    points = checkpoints(iterations)
    history = [(0, 0, 0, 0.0)]  # (iterations, keys, nodes touched, seconds)
    clock = Stopwatch()
    stopped_by = "iterations"
    while solver.iterations < iterations:
        next_point = min(p for p in points if p > solver.iterations)
        solver.run(min(chunk, next_point - solver.iterations))
        history.append((solver.iterations, solver.tables.num_keys, solver.nodes_touched,
                        clock.elapsed()))
        if solver.iterations >= iterations:
            break
        if clock.elapsed() > seconds:
            stopped_by = "time limit"
            break
        if solver.tables.num_keys > max_keys:
            stopped_by = "key limit"
            break
    run_seconds = clock.elapsed()
    done = solver.iterations
    at_points = [{"iterations": it, "keys": k} for it, k, _, _ in history if it in points]
    if not at_points or at_points[-1]["iterations"] != done:
        at_points.append({"iterations": done, "keys": solver.tables.num_keys})
    # The last tenth: from the latest record at or before 90% of the iterations done.
    start = max((h for h in history if h[0] <= 0.9 * done), key=lambda h: h[0])
    end = history[-1]
    t = solver.tables
    probe_iterations = max(50, min(2000, done // 20))
    probe = _probe_iterations(solver.root, level, probe_iterations, t.keys, t.offsets,
                              t.regret, seed + 99)
    decision_share = probe[1] / probe[0]
    new_keys = end[1] - start[1]
    visits = (end[2] - start[2]) * decision_share
    # log-log slope of keys against iterations over the last tenth
    slope = (math.log(end[1] / start[1]) / math.log(end[0] / start[0])
             if start[0] > 0 and start[1] > 0 and end[0] > start[0] else None)
    play = _self_play(solver.root, level, selfplay_rounds, seed + 7, t.keys, t.offsets,
                      t.num_actions, t.strategy_sum)
    return {
        "agenda": agenda, "level": level_name, "players": players, "iterations": done,
        "stopped_by": stopped_by,
        "seconds": run_seconds, "keys": t.num_keys, "nodes_touched": solver.nodes_touched,
        "iterations_per_s": done / run_seconds, "nodes_per_s": solver.nodes_touched / run_seconds,
        "growth": at_points,
        "history": [list(h) for h in history],
        "last_tenth": {"from_iteration": start[0], "to_iteration": end[0],
                       "new_keys": int(new_keys), "decision_visits": visits,
                       "new_share": new_keys / visits if visits else None,
                       "new_per_node": new_keys / max(1, end[2] - start[2]),
                       "loglog_slope": slope},
        "probe": {"iterations": probe_iterations, "nodes": int(probe[0]),
                  "decisions": int(probe[1]), "missing": int(probe[2]),
                  "decision_share": decision_share,
                  "missing_share": probe[2] / max(1, probe[1])},
        "bytes": table_bytes(t),
        "self_play": {"rounds": selfplay_rounds, "decisions": int(play[0]),
                      "hits": int(play[1]), "hit_rate": play[1] / max(1, play[0]),
                      "action_count_mismatches": int(play[2])},
    }


def _exact_metric(players: int):
    """Exploitability with 2 players, NashConv with more."""
    from solver.exact.best_response import exploitability, nash_conv

    return exploitability if players == 2 else nash_conv


@njit(**_JIT)
def _table_strategy(table_keys, table_offsets, num_actions, strategy_sum, keys,
                    action_offsets):
    """The table's average strategy on a tree: infoset k (key keys[k], actions
    action_offsets[k]:[k + 1] of the flat strategy) reads its key's block; uniform where
    the table has no such key or a block of another size. Returns (strategy, missing)."""
    strategy = np.empty(action_offsets[-1], dtype=np.float64)
    missing = 0
    for k in range(len(keys)):
        lo, n = action_offsets[k], action_offsets[k + 1] - action_offsets[k]
        j = find_slot(table_keys, keys[k])
        total = 0.0
        if table_keys[j] != 0 and num_actions[j] == n:
            for i in range(n):
                total += strategy_sum[table_offsets[j] + i]
        else:
            missing += 1
        for i in range(n):
            strategy[lo + i] = (strategy_sum[table_offsets[j] + i] / total if total > 0
                                else 1.0 / n)
    return strategy, missing


def abstract_dcfr(tree, keys: np.ndarray, iterations: int, metric, arrays) -> float:
    """The level's loss without MCCFR's noise: DCFR on the tree with the infosets of one
    key merged (one strategy per key, as the table has), then the exact exploitability of
    that strategy in the true game. (Imperfect recall: no convergence guarantee, and
    results move by ~0.002 between similar abstractions; a diagnostic, not the table's
    figure.)"""
    import dataclasses

    from solver.exact.cfr import CFRSolver

    _, first, merged_of = np.unique(keys, return_index=True, return_inverse=True)
    infoset = np.where(tree.infoset >= 0, merged_of[np.maximum(tree.infoset, 0)], -1)
    merged = dataclasses.replace(
        tree, infoset=infoset.astype(np.int32), infoset_player=tree.infoset_player[first],
        infoset_actions=[tree.infoset_actions[i] for i in first],
        infoset_node=tree.infoset_node[first], infoset_strings=[""] * len(first))
    solver = CFRSolver(merged, "dcfr")
    for _ in range(iterations):
        solver.iteration()
    average = solver.average_strategy()
    del solver
    merged_offsets, offsets = merged.action_offsets(), tree.action_offsets()
    sizes = np.diff(offsets)
    index = (np.repeat(merged_offsets[merged_of], sizes)
             + np.arange(int(offsets[-1])) - np.repeat(offsets[:-1], sizes))
    return metric(tree, average[index], arrays)


def loss_job(deck: str, agenda: str, levels: list[str], iterations: int, seeds: int,
             dcfr_iterations: int, seed: int, players: int,
             abstract_iterations: int = 0) -> list[dict]:
    """(d) for one deck and agenda: the exact tree built once; DCFR on it; then per level
    MCCFR for `iterations` with each seed and the exact exploitability of its average
    strategy, the table read through every infoset's key (`replayed_keys`); with
    `abstract_iterations`, also `abstract_dcfr`'s loss."""
    from solver.exact.cfr import CFRSolver, TreeArrays
    from solver.exact.tree import build_tree, infoset_paths

    game = load_jabba(players=players, agenda=agenda, deck=deck)
    clock = Stopwatch()
    tree = build_tree(game, max_nodes=LOSS_MAX_NODES)
    build_seconds = clock.elapsed()
    arrays = TreeArrays(tree)
    metric = _exact_metric(players)
    clock = Stopwatch()
    dcfr = CFRSolver(tree, "dcfr")
    for _ in range(dcfr_iterations):
        dcfr.iteration()
    dcfr_value = metric(tree, dcfr.average_strategy(), arrays)
    dcfr_seconds = clock.elapsed()
    del dcfr  # its reach and value arrays: 40 bytes per node
    actions, offsets = infoset_paths(tree)
    infoset_players = tree.infoset_player.astype(np.int64)
    action_offsets = tree.action_offsets()
    rows = []
    for level_name in levels:
        keys = abstraction.replayed_keys(game.initial_array, actions, offsets,
                                         infoset_players, LEVELS[level_name])
        runs = []
        for k in range(seeds):
            clock = Stopwatch()
            solver = MCCFRSolver(game, level=LEVELS[level_name], seed=seed + k)
            solver.run(iterations)
            run_seconds = clock.elapsed()
            t = solver.tables
            strategy, missing = _table_strategy(t.keys, t.offsets, t.num_actions,
                                                t.strategy_sum, keys, action_offsets)
            runs.append({"seed": seed + k, "table_keys": t.num_keys,
                         "missing_infosets": int(missing),
                         "exploitability": metric(tree, strategy, arrays),
                         "seconds": run_seconds})
        values = [r["exploitability"] for r in runs]
        abstract = ({"abstract_dcfr_iterations": abstract_iterations,
                     "abstract_dcfr_exploitability": abstract_dcfr(
                         tree, keys, abstract_iterations, metric, arrays)}
                    if abstract_iterations else {})
        rows.append({**abstract, "deck": deck, "players": players, "agenda": agenda,
                     "level": level_name, "keys": int(len(np.unique(keys))),
                     "infosets": tree.num_infosets, "nodes": tree.num_nodes,
                     "iterations": iterations, "seeds": [r["seed"] for r in runs],
                     "exploitability": float(np.mean(values)),
                     "exploitability_min": min(values), "exploitability_max": max(values),
                     "dcfr_iterations": dcfr_iterations, "dcfr_exploitability": dcfr_value,
                     "dcfr_seconds": dcfr_seconds, "tree_seconds": build_seconds,
                     "runs": runs})
        print(f"  {deck} {agenda} {level_name}: {rows[-1]['exploitability']:.4g}",
              file=sys.stderr)
    return rows


LOSS_COLUMNS = ["deck", "players", "agenda", "level", "keys", "exploitability",
                "dcfr_exploitability"]


def write_loss_table(stem: str, rows: list[dict], part: dict) -> None:
    """stem.json (the provenance header; every row with its seeds, iterations and runs;
    the parts of the runs that made them), stem.csv (LOSS_COLUMNS) and stem.md. Rows of
    an earlier stem.json for other (deck, players, agenda, level) are kept, so the table
    can be made in parts (e.g. the large deck in a run of its own)."""
    from solver import provenance
    from solver.reports.records import merged_rows

    path = Path(f"{stem}.json")
    merged, parts = merged_rows(path, [{**r, "run": part["created"]} for r in rows],
                                _row_id, {**part, "started": part["created"]})
    decks = {d: i for i, d in enumerate(("tiny", "small", "medium", "large"))}
    merged.sort(key=lambda r: (decks.get(r["deck"], len(decks)), r["deck"], r["players"],
                               AGENDAS.index(r["agenda"]), LEVEL_ORDER.index(r["level"])))
    record = {**provenance.header(
        {"deck": sorted({r["deck"] for r in merged}, key=lambda d: decks.get(d, 9)),
         "players": sorted({r["players"] for r in merged}),
         "agenda": [a for a in AGENDAS if a in {r["agenda"] for r in merged}],
         "utility": "margin"},
        seconds=sum(p["seconds"] for p in parts), command=part["command"]),
        "kind": "abstraction_loss",
        "method": ("per row: MCCFR (external sampling, one thread) at the level for "
                   "`iterations` with each seed of `seeds`, then the exact exploitability "
                   "(NashConv with 3+ players) of its average strategy in the true reduced "
                   "game, mean over the seeds (min and max in the row); "
                   "dcfr_exploitability: DCFR (alpha 1.5, beta 0, gamma 2) on the exact "
                   "tree for `dcfr_iterations`, the same for every level; keys: the "
                   "level's distinct keys over the tree's infosets"),
        "columns": LOSS_COLUMNS, "rows": merged, "parts": parts}
    provenance.write_json(path, record)
    for name, data in loss_table_files(record, Path(stem).name).items():
        provenance.write_atomic(path.with_name(name), data)


def loss_table_files(record: dict, stem: str) -> dict[str, bytes]:
    """stem.csv (LOSS_COLUMNS) and stem.md, rendered from the record alone (a test remakes
    the committed ones byte for byte)."""
    from solver.reports import csv

    table = csv.table(LOSS_COLUMNS, [
        [r["deck"], r["players"], r["agenda"], r["level"], r["keys"],
         csv.number(r["exploitability"]), csv.number(r["dcfr_exploitability"])]
        for r in record["rows"]])
    return {f"{stem}.csv": table.encode(), f"{stem}.md": loss_markdown(record).encode()}


def _row_id(r: dict) -> tuple:
    return r["deck"], r["players"], r["agenda"], r["level"]


def loss_markdown(record: dict) -> str:
    lines = ["# Abstraction loss, exact", "",
             "Exploitability in tokens per round of MCCFR's average strategy at each "
             "abstraction level, measured exactly in the true reduced game (NashConv with "
             "3+ players); the exact DCFR solution of the same tree for reference. Made "
             "by `benchmarks/abstraction_study.py` (`--loss-out`), in parts:", ""]
    for p in record["parts"]:
        lines.append(f"- `{p['command']}` ({p['seconds']:.0f} s, code {p['code_version']}, "
                     f"{p['created']})")
    lines += ["", record["method"] + ".", ""]
    rows = [[r["deck"], str(r["players"]), r["agenda"], r["level"], f"{r['keys']:,}",
             f"{r['infosets']:,}", f"{r['iterations']:,} × {len(r['seeds'])}",
             _loss(r["exploitability"]),
             f"{_loss(r['exploitability_min'])} – {_loss(r['exploitability_max'])}",
             f"{max(x['missing_infosets'] for x in r['runs']):,}",
             f"{_loss(r['dcfr_exploitability'])} ({r['dcfr_iterations']} it.)"]
            for r in record["rows"]]
    lines += [markdown_table(["deck", "players", "agenda", "level", "keys", "infosets",
                              "MCCFR iterations × seeds", "exploitability (mean)",
                              "min – max", "infosets without key (most)", "exact DCFR"],
                             rows), ""]
    abstract = [r for r in record["rows"] if "abstract_dcfr_exploitability" in r]
    if abstract:
        lines += ["Without MCCFR's noise (`--abstract-dcfr-iterations`): DCFR on the tree "
                  "with each key's infosets merged (one strategy per key), then the exact "
                  "exploitability of that strategy in the true game. Imperfect recall: no "
                  "convergence guarantee; similar abstractions differ by ~0.002.", ""]
        lines += [markdown_table(
            ["deck", "agenda", "level", "keys", "DCFR iterations", "exploitability"],
            [[r["deck"], r["agenda"], r["level"], f"{r['keys']:,}",
              str(r["abstract_dcfr_iterations"]), _loss(r["abstract_dcfr_exploitability"])]
             for r in abstract]), ""]
    return "\n".join(lines)


# Report ------------------------------------------------------------------------------------

def _pct(x) -> str:
    return "-" if x is None else f"{100 * x:.3g}%"


def _loss(x: float) -> str:
    return f"{x:.4f}" if x >= 1e-3 else f"{x:.1e}"


def report(results: dict) -> str:
    args = results["args"]
    lines = [f"# Abstraction study ({results['seconds']:.0f} s wall)", "",
             f"Command: `{results['command']}`", ""]
    lines += ["## Levels", ""]
    rows = [[name, str(level), (getattr(abstraction, f"{name}_key").__doc__ or "")
             .strip().splitlines()[0]] for name, level in LEVELS.items()
            if name in args["levels"]]
    lines += [markdown_table(["level", "id", "summary"], rows), ""]

    growth = results["growth"]
    all_points = sorted({p["iterations"] for g in growth for p in g["growth"]})
    players = args["players"]
    lines += [f"## (a) Distinct keys against MCCFR iterations (full deck, {players} players)",
              ""]
    rows = []
    for g in growth:
        by_it = {p["iterations"]: p["keys"] for p in g["growth"]}
        rows.append([g["agenda"], g["level"]] + [by_it.get(i, "") for i in all_points])
    lines += [markdown_table(["agenda", "level"] + [f"{i:,} it." for i in all_points], rows),
              ""]
    lines += ["## (a-c) Saturation, memory, self-play", ""]
    rows = []
    for g in growth:
        lt, sp, b = g["last_tenth"], g["self_play"], g["bytes"]
        saturated = lt["new_share"] is not None and lt["new_share"] < REQUIRED_NEW_SHARE
        rows.append([
            g["agenda"], g["level"], f"{g['iterations']:,} ({g['stopped_by']})",
            f"{g['seconds']:.0f}", g["keys"], _pct(lt["new_share"]),
            _pct(g["probe"]["missing_share"]),
            "-" if lt["loglog_slope"] is None else f"{lt['loglog_slope']:.2f}",
            "yes" if saturated else "no",
            f"{b['allocated_bytes_per_key']:.0f} / {b['used_bytes_per_key']:.0f}",
            f"{b['allocated_bytes'] / 2**20:.0f}",
            _pct(sp["hit_rate"]), sp["action_count_mismatches"]])
    lines += [markdown_table(
        ["agenda", "level", "iterations (stop)", "s", "keys", "new keys / visits, last tenth",
         "missing at end (probe)", "log-log slope, last tenth", "< 1%",
         "bytes/key alloc / used", "table MiB", "self-play hit rate", "n mismatches"],
        rows), ""]
    if not results["reduced"]:
        return "\n".join(lines)
    metric = "exact exploitability" if players == 2 else "exact NashConv"
    lines += [f"## (d) Loss on reduced decks ({players} players, {metric})", ""]
    rows = [[r["deck"], r["agenda"], r["level"], r["iterations"], len(r["seeds"]),
             r["keys"], r["infosets"], max(x["missing_infosets"] for x in r["runs"]),
             _loss(r["exploitability"]),
             f"{_loss(r['exploitability_min'])} - {_loss(r['exploitability_max'])}",
             f"{np.mean([x['seconds'] for x in r['runs']]):.1f}",
             f"{_loss(r['dcfr_exploitability'])} ({r['dcfr_iterations']} it.)"]
            for r in results["reduced"]]
    lines += [markdown_table(["deck", "agenda", "level", "iterations", "seeds", "keys",
                              "tree infosets", "infosets without key",
                              "exploitability (mean)", "min - max", "MCCFR s (one run)",
                              "exact DCFR"], rows), ""]
    return "\n".join(lines)


def main(argv=None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--iterations", type=int, default=60_000,
                        help="full-deck MCCFR iterations per level and agenda")
    parser.add_argument("--time-limit", type=float, default=240.0,
                        help="seconds per full-deck run (levels that never saturate stop)")
    parser.add_argument("--max-keys", type=int, default=6_000_000,
                        help="stop a full-deck run past this many keys (memory)")
    parser.add_argument("--reduced-iterations", type=int, default=400_000,
                        help="MCCFR iterations on each reduced deck, the same per level")
    parser.add_argument("--reduced-seeds", type=int, default=3,
                        help="MCCFR seeds per level on each reduced deck (seed, seed+1...)")
    parser.add_argument("--dcfr-iterations", type=int, default=300,
                        help="DCFR iterations on the exact reduced trees (reference)")
    parser.add_argument("--abstract-dcfr-iterations", type=int, default=0,
                        help="also DCFR on each level's merged tree for this many "
                             "iterations (the loss without MCCFR's noise; 0: not)")
    parser.add_argument("--reduced-agendas", default=REDUCED_AGENDA,
                        help="agendas of the reduced-deck part (comma-separated)")
    parser.add_argument("--loss-out", metavar="STEM",
                        help="also write the loss table to STEM.csv, .json and .md, "
                             "keeping an earlier STEM.json's rows for other decks, agendas "
                             "or levels (e.g. results/abstraction_loss)")
    parser.add_argument("--selfplay-rounds", type=int, default=200_000)
    parser.add_argument("--levels", default=",".join(LEVELS))
    parser.add_argument("--agendas", default="exalted_one,jabbas_court")
    parser.add_argument("--players", type=int, default=2, help="players (default 2)")
    parser.add_argument("--decks", default=",".join(REDUCED_DECKS))
    parser.add_argument("--jobs", type=int, default=2, help="worker processes")
    add_output_args(parser)
    args = parser.parse_args(argv)
    guard_outputs(parser, args.out, args.loss_out and f"{args.loss_out}.json")
    levels = [x for x in args.levels.split(",") if x]
    for name in levels:
        if name not in LEVELS:
            parser.error(f"unknown level {name!r}; choose from {', '.join(LEVELS)}")
    agendas = [x for x in args.agendas.split(",") if x]
    reduced_agendas = [x for x in args.reduced_agendas.split(",") if x]
    for agenda in agendas + reduced_agendas:
        if agenda not in AGENDAS:
            parser.error(f"unknown agenda {agenda!r}; choose from {', '.join(AGENDAS)}")
    decks = [x for x in args.decks.split(",") if x]
    clock = Stopwatch()

    # Compile (or load numba's caches) once here, so that workers only load them.
    check_solver_keys({name: LEVELS[name] for name in levels})
    warm = load_jabba()
    root = warm.initial_array.copy()
    root[L.S_LOGGING] = 1
    t = MCCFRSolver(warm, seed=1).tables
    _probe_iterations(root, 0, 1, t.keys, t.offsets, t.regret, 1)
    _self_play(root, 0, 1, 1, t.keys, t.offsets, t.num_actions, t.strategy_sum)
    print(f"compiled and checked in {clock.elapsed():.0f} s", file=sys.stderr)

    jobs = []  # longest first
    for level in levels:
        for agenda in agendas:
            jobs.append(("growth", (agenda, level, args.iterations, args.time_limit,
                                    args.max_keys, args.seed, args.selfplay_rounds,
                                    args.players)))
    for deck in reversed(decks):
        for agenda in reduced_agendas:
            jobs.append(("reduced", (deck, agenda, levels, args.reduced_iterations,
                                     args.reduced_seeds, args.dcfr_iterations, args.seed,
                                     args.players, args.abstract_dcfr_iterations)))
    functions = {"growth": growth_job, "reduced": loss_job}
    results = {"growth": [], "reduced": []}
    context = multiprocessing.get_context("fork")
    with concurrent.futures.ProcessPoolExecutor(args.jobs, mp_context=context) as pool:
        futures = {pool.submit(functions[kind], *job_args): (kind, job_args)
                   for kind, job_args in jobs}
        for future in concurrent.futures.as_completed(futures):
            kind, job_args = futures[future]
            result = future.result()
            if kind == "reduced":
                results[kind].extend(result)
            else:
                results[kind].append(result)
            print(f"[{clock.elapsed():5.0f} s] {kind} {job_args[:2]} done", file=sys.stderr)
    results["growth"].sort(key=lambda g: (agendas.index(g["agenda"]),
                                          LEVEL_ORDER.index(g["level"])))
    results["reduced"].sort(key=lambda r: (decks.index(r["deck"]),
                                           reduced_agendas.index(r["agenda"]),
                                           LEVEL_ORDER.index(r["level"])))
    from solver import provenance

    command = provenance.command_line(["python", "benchmarks/abstraction_study.py",
                                       *(sys.argv[1:] if argv is None else argv)])
    if args.loss_out and results["reduced"]:
        write_loss_table(args.loss_out, results["reduced"], {
            "command": command, "seconds": round(clock.elapsed(), 1),
            "code_version": provenance.code_version(),
            "created": datetime.datetime.now(datetime.timezone.utc).isoformat(
                timespec="seconds"),
            "decks": decks, "agendas": reduced_agendas, "levels": levels,
            "iterations": args.reduced_iterations, "seeds": args.reduced_seeds,
            "dcfr_iterations": args.dcfr_iterations,
            "abstract_dcfr_iterations": args.abstract_dcfr_iterations,
            "machine": machine_info()})
    results.update({
        "args": {**vars(args), "levels": levels, "agendas": agendas, "decks": decks,
                 "reduced_agendas": reduced_agendas},
        "command": command,
        "seconds": clock.elapsed(), "machine": machine_info(),
        "requirements": {"new_share_last_tenth": REQUIRED_NEW_SHARE,
                         "self_play_hit_rate": REQUIRED_HIT_RATE}})
    print(report(results))
    if args.out:
        write_json_atomic(args.out, results)


if __name__ == "__main__":
    main()
