"""Game size of `jabbas_palace`: exact tree walks, Knuth estimates, OpenSpiel CFR timing.

(a) Exact counts for reduced decks (2 players): histories by kind and distinct
    information states, by a full walk through the pyspiel API (clone + apply_action),
    cross-checked against a walk of the compiled engine.
(b) Knuth (random-probe) estimates of decision and terminal histories with the compiled
    engine: full deck for 2-4 players, plus the reduced decks where the exact counts
    validate the estimator.
(c) Wall time of pyspiel.CFRSolver (C++ CFR on this Python game) for some iterations
    plus pyspiel.exploitability of the average policy; decks whose projected time
    exceeds --cfr-limit are skipped and their projected time is reported instead.
(d) The compiled tree builder (solver/exact/tree.py build_tree) on --tree-decks, the
    decks too large for a pyspiel walk: histories by kind, information states per player,
    build time and the growth of the process's peak memory (ru_maxrss), 2 players.

    python benchmarks/game_size.py [--walk-decks tiny,small] [--probes 2000000]
        [--cfr-decks tiny,small] [--tree-decks ""] [--seed 1] [--out FILE]
"""

from __future__ import annotations

import argparse
import functools
import math
import resource
import sys

import _tree
import numpy as np
import pyspiel
from _common import (
    AGENDAS,
    Stopwatch,
    add_output_args,
    load_jabba,
    machine_info,
    markdown_table,
    write_json_atomic,
)

from spiel_game.cards import parse_deck

PROTOTYPE_DECISION_HISTORIES_2P = 8e20  # Knuth estimate: docs/performance.md "The prototype"
KNUTH_PLAYERS = (2, 3, 4)
KNUTH_BATCHES = 10  # the probes are also split into batches to show the spread
AUTO_ALL_AGENDAS_NODES = 200_000  # "--agendas auto": all four agendas below this size
CHECK_EVERY_NODES = 4096  # how often the pyspiel walk looks at the clock


class WalkTimeout(Exception):
    pass


def walk_pyspiel(game, time_limit: float) -> dict:
    """Every history of `game` via clone + apply_action, and the distinct information
    state strings at decision nodes, per player; stops after `time_limit` seconds."""
    counts = dict.fromkeys(_tree.COUNT_NAMES, 0)
    info_states = [set() for _ in range(game.num_players())]
    clock = Stopwatch()

    def visit(state):
        counts["all"] += 1
        if counts["all"] % CHECK_EVERY_NODES == 0 and clock.elapsed() > time_limit:
            raise WalkTimeout
        if state.is_terminal():
            counts["terminal"] += 1
            return
        if state.is_chance_node():
            counts["chance"] += 1
            actions = [outcome for outcome, _ in state.chance_outcomes()]
        else:
            counts["decision"] += 1
            player = state.current_player()
            info_states[player].add(state.information_state_string(player))
            actions = state.legal_actions()
        for action in actions:
            child = state.clone()
            child.apply_action(action)
            visit(child)

    complete = True
    try:
        visit(game.new_initial_state())
    except WalkTimeout:
        complete = False
    return {"complete": complete, "seconds": clock.elapsed(), "histories": counts,
            "info_states": [len(s) for s in info_states]}


@functools.cache
def engine_counts(deck: str, players: int = 2) -> dict:
    """Exact history counts from the compiled engine (a depth-first walk in numba)."""
    game = load_jabba(players=players, deck=deck)
    clock = Stopwatch()
    counts = _tree.exact_counts(game.initial_array, game.max_game_length())
    return {"seconds": clock.elapsed(),
            "histories": {name: int(counts[i]) for i, name in enumerate(_tree.COUNT_NAMES)}}


def compile_engine_walks() -> None:
    """Compile the numba walks outside any timing."""
    game = load_jabba(deck="tiny")
    _tree.exact_counts(game.initial_array, game.max_game_length())
    _tree.knuth_probes(game.initial_array, 1, 1)


def knuth_estimate(game, probes: int, seed: int) -> dict:
    """Knuth's estimator: mean, standard error and heavy-tail diagnostics per count."""
    clock = Stopwatch()
    weights = _tree.knuth_probes(game.initial_array, probes, seed)
    seconds = clock.elapsed()
    result = {"probes": probes, "seconds": seconds}
    for i, name in enumerate(_tree.COUNT_NAMES):
        column = weights[:, i]
        mean = float(column.mean())
        std_error = float(column.std(ddof=1) / math.sqrt(probes))
        batch_means = [float(b.mean()) for b in np.array_split(column, KNUTH_BATCHES)]
        result[name] = {
            "mean": mean, "std_error": std_error, "log10_mean": math.log10(mean),
            "log10_mean_plus_2se": math.log10(mean + 2 * std_error),
            "log10_mean_minus_2se": (math.log10(mean - 2 * std_error)
                                     if mean > 2 * std_error else None),
            "largest_probe_share": float(column.max() / column.sum()),
            "log10_batch_means": [math.log10(m) for m in batch_means],
        }
    return result


def time_cfr(game, iterations: int) -> dict:
    """Seconds for `iterations` of pyspiel.CFRSolver and one exploitability call."""
    clock = Stopwatch()
    solver = pyspiel.CFRSolver(game)
    for _ in range(iterations):
        solver.evaluate_and_update_policy()
    cfr_seconds = clock.elapsed()
    clock = Stopwatch()
    exploitability = pyspiel.exploitability(game, solver.average_policy())
    return {"cfr_seconds": cfr_seconds, "exploitability_seconds": clock.elapsed(),
            "exploitability": exploitability}


# Report sections ------------------------------------------------------------------------

def deck_legend(decks) -> str:
    """What each deck name or spec stands for (presets change; the spec is the record)."""
    rows = []
    for deck in dict.fromkeys(decks):
        spec = parse_deck(deck)
        draws = spec.size - 1 - spec.face_up(2) - 2
        rows.append([deck, spec.to_spec(), spec.size, spec.face_up(2), draws])
    return markdown_table(["deck", "spec", "cards", "face-up (2p)", "cards to draw (2p)"],
                          rows)


def exact_section(decks, agenda_mode, walk_limit):
    """(a): pyspiel walks (with engine cross-checks) for every deck and chosen agenda."""
    rows, records = [], []
    for deck in decks:
        engine = engine_counts(deck)
        agendas = AGENDAS
        if agenda_mode == "exalted_one" or (
                agenda_mode == "auto" and engine["histories"]["all"] > AUTO_ALL_AGENDAS_NODES):
            agendas = ("exalted_one",)
        for agenda in agendas:
            walk = walk_pyspiel(load_jabba(deck=deck, agenda=agenda), walk_limit)
            h = walk["histories"]
            if walk["complete"]:
                agrees = "yes" if h == engine["histories"] else "NO"
                status = f"{walk['seconds']:.2f}"
            else:
                agrees = "-"
                status = f"> {walk_limit:g} (stopped)"
            rows.append([deck, agenda, h["all"], h["terminal"], h["decision"], h["chance"],
                         walk["info_states"][0], walk["info_states"][1],
                         sum(walk["info_states"]), status, agrees,
                         f"{engine['seconds']:.2f}"])
            records.append({"deck": deck, "agenda": agenda, "pyspiel_walk": walk,
                            "engine_walk": engine})
            print(f"  walked {deck} / {agenda}: {walk['seconds']:.1f} s", file=sys.stderr)
    table = markdown_table(
        ["deck", "agenda", "histories", "terminal", "decision", "chance",
         "info states p0", "info states p1", "info states total", "pyspiel walk s",
         "engine walk agrees", "engine walk s"], rows)
    return table, records


def knuth_section(validation_decks, probes, seed):
    """(b): Knuth estimates, full deck for 2-4 players and the validation decks."""
    configs = [(deck, 2) for deck in validation_decks]
    configs += [("full", players) for players in KNUTH_PLAYERS]
    rows, records = [], []
    for index, (deck, players) in enumerate(configs):
        game = load_jabba(players=players, deck=deck)
        estimate = knuth_estimate(game, probes, seed + index)
        exact = engine_counts(deck, players)["histories"] if deck != "full" else None
        for name in ("decision", "terminal"):
            e = estimate[name]
            batches = e["log10_batch_means"]
            rows.append([deck, str(players), name, e["mean"],
                         f"{100 * e['std_error'] / e['mean']:.1f}%",
                         exact[name] if exact else "-", f"{e['log10_mean']:.2f}",
                         _log10_interval(e), f"{min(batches):.2f} – {max(batches):.2f}",
                         f"{e['largest_probe_share']:.1e}", f"{estimate['seconds']:.1f}"])
        records.append({"deck": deck, "players": players, "agenda": "exalted_one",
                        "knuth": estimate, "exact": exact})
        print(f"  probed {deck} / {players}p: {estimate['seconds']:.1f} s", file=sys.stderr)
    table = markdown_table(
        ["deck", "players", "histories", "Knuth mean", "SE", "exact", "log10 mean",
         "log10 (mean ± 2 SE)", f"log10 of {KNUTH_BATCHES} batch means",
         "largest probe share", "probe s"], rows)
    full_2p = next(r for r in records if r["deck"] == "full" and r["players"] == 2)
    ratio = full_2p["knuth"]["decision"]["mean"] / PROTOTYPE_DECISION_HISTORIES_2P
    note = (f"Full deck, 2 players: {full_2p['knuth']['decision']['mean']:.2e} decision "
            f"histories, {ratio:.1f}× the prototype's ~8e20 (docs/performance.md).")
    return table, note, records


def _log10_interval(e: dict) -> str:
    low = e["log10_mean_minus_2se"]
    return f"{'-inf' if low is None else f'{low:.2f}'} – {e['log10_mean_plus_2se']:.2f}"


def cfr_section(decks, iterations, limit):
    """(c): CFR + exploitability wall times; projected from seconds per node-iteration
    (measured on the decks run before) when a deck would take longer than `limit`."""
    rows, records = [], []
    per_node_iteration = per_node_exploitability = None
    for deck in decks:
        game = load_jabba(deck=deck)
        nodes = engine_counts(deck)["histories"]["all"]
        projected = None
        if per_node_iteration is not None:
            projected = nodes * (iterations * per_node_iteration + per_node_exploitability)
        record = {"deck": deck, "nodes": nodes, "iterations": iterations,
                  "projected_seconds": projected}
        if projected is not None and projected > limit:
            rows.append([deck, nodes, "skipped", "skipped", f"~{projected:,.0f} (projected)",
                         "-"])
        else:
            timing = time_cfr(game, iterations)
            total = timing["cfr_seconds"] + timing["exploitability_seconds"]
            record.update(timing)
            rows.append([deck, nodes, f"{timing['cfr_seconds']:.1f}",
                         f"{timing['exploitability_seconds']:.2f}", f"{total:.1f}",
                         f"{timing['exploitability']:.4f}"])
            per_node_iteration = timing["cfr_seconds"] / (nodes * iterations)
            per_node_exploitability = timing["exploitability_seconds"] / nodes
            print(f"  CFR {deck}: {total:.1f} s", file=sys.stderr)
        records.append(record)
    table = markdown_table(["deck", "histories", f"CFR {iterations} it. s",
                            "exploitability s", "total s", "exploitability"], rows)
    return table, records


def tree_section(decks):
    """(d): the compiled builder's trees; the engine walk's counts as a cross-check."""
    from solver.exact.tree import CHANCE, DECISION, TERMINAL, build_tree

    build_tree(load_jabba(deck="tiny"))  # compile outside the timing
    rows, records = [], []
    for deck in decks:
        game = load_jabba(deck=deck)
        peak_before = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
        clock = Stopwatch()
        tree = build_tree(game, max_nodes=200_000_000)
        seconds = clock.elapsed()
        growth_mb = (resource.getrusage(resource.RUSAGE_SELF).ru_maxrss - peak_before) / 1024
        counts = {"all": tree.num_nodes, "terminal": int((tree.kind == TERMINAL).sum()),
                  "decision": int((tree.kind == DECISION).sum()),
                  "chance": int((tree.kind == CHANCE).sum())}
        per_player = [int((tree.infoset_player == p).sum()) for p in range(2)]
        agrees = "yes" if counts == engine_counts(deck)["histories"] else "NO"
        rows.append([deck, counts["all"], counts["terminal"], counts["decision"],
                     counts["chance"], per_player[0], per_player[1], tree.num_infosets,
                     f"{seconds:.1f}", f"{growth_mb:,.0f}",
                     f"{growth_mb * 2**20 / tree.num_nodes:.0f}", agrees])
        records.append({"deck": deck, "histories": counts, "info_states": per_player,
                        "seconds": seconds, "peak_rss_growth_mb": growth_mb})
        print(f"  built {deck}: {seconds:.1f} s", file=sys.stderr)
        del tree
    table = markdown_table(
        ["deck", "histories", "terminal", "decision", "chance", "info states p0",
         "info states p1", "info states total", "build s", "peak RSS growth MB",
         "bytes per history", "engine walk agrees"], rows)
    return table, records


def main(argv: list[str] | None = None) -> dict:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--walk-decks", default="tiny,small",
                        help="comma-separated decks for the exact walks (default "
                             "%(default)s); presets or specs like 'han+guard:2+jabba'")
    parser.add_argument("--agendas", choices=("auto", "all", "exalted_one"), default="auto",
                        help="agendas to walk: auto = all four for trees up to "
                             f"{AUTO_ALL_AGENDAS_NODES:,} histories, else exalted_one")
    parser.add_argument("--walk-limit", type=float, default=180.0,
                        help="stop a pyspiel walk after this many seconds")
    parser.add_argument("--probes", type=int, default=2_000_000,
                        help="Knuth probes per configuration (default %(default)s)")
    parser.add_argument("--cfr-decks", default="tiny,small",
                        help="comma-separated decks to time CFR on; the first is always run")
    parser.add_argument("--cfr-iterations", type=int, default=100)
    parser.add_argument("--cfr-limit", type=float, default=120.0,
                        help="skip a CFR deck whose projected seconds exceed this")
    parser.add_argument("--tree-decks", default="",
                        help="comma-separated decks for the compiled tree builder (d), "
                             "e.g. large")
    parser.add_argument("--skip", default="",
                        help="comma-separated parts to skip: exact, knuth, cfr")
    add_output_args(parser)
    args = parser.parse_args(argv)
    skip = set(filter(None, args.skip.split(",")))
    walk_decks = args.walk_decks.split(",")
    wall = Stopwatch()
    result = {"args": vars(args), "machine": machine_info()}
    compile_engine_walks()
    tree_decks = [d for d in args.tree_decks.split(",") if d]
    decks = (walk_decks * ("exact" not in skip or "knuth" not in skip)
             + (args.cfr_decks.split(",") if "cfr" not in skip else []) + tree_decks)
    print("### Decks\n\n" + deck_legend(decks) + "\n")

    if "exact" not in skip:
        table, result["exact"] = exact_section(walk_decks, args.agendas, args.walk_limit)
        print("### (a) Exact tree walk, 2 players (histories = nodes; single-option nodes "
              "are settled by the engine and not counted)\n")
        print(table + "\n")
    if "knuth" not in skip:
        table, note, result["knuth"] = knuth_section(walk_decks, args.probes, args.seed)
        print(f"### (b) Knuth estimates, exalted_one, {args.probes:,} probes each "
              "(heavy-tailed: read the log10 column, not the mean's digits)\n")
        print(table + "\n\n" + note + "\n")
    if "cfr" not in skip:
        table, result["cfr"] = cfr_section(args.cfr_decks.split(","), args.cfr_iterations,
                                           args.cfr_limit)
        print(f"### (c) pyspiel.CFRSolver, {args.cfr_iterations} iterations + "
              "pyspiel.exploitability, 2 players, exalted_one\n")
        print(table + "\n")
    if tree_decks:
        table, result["tree"] = tree_section(tree_decks)
        print("### (d) Compiled tree builder, 2 players (histories = nodes, as in (a))\n")
        print(table + "\n")
    result["wall_seconds"] = wall.elapsed()
    print(f"wall time {result['wall_seconds']:.1f} s")
    if args.out:
        write_json_atomic(args.out, result)
    return result


if __name__ == "__main__":
    main()
