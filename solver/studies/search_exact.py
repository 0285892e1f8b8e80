"""The search's exact study on reduced decks: blueprint, search and DCFR side by side.

For each (deck, agenda): an MCCFR blueprint at the shipped abstraction level of the
agenda, trained on that deck (seeded); the search policy on the whole tree
(solver/search/exact.py) with that blueprint; exact DCFR as the reference. Rows of
results/search_exact.csv: deck, players, agenda, blueprint_level, blueprint_exploitability,
search_exploitability, dcfr_exploitability, search_seconds, infostates (NashConv with 3+
players, as solver/exact/best_response.py); one row per search variant (search_top,
search_leaves), the blueprint and DCFR computed once for all of them.
"""

from __future__ import annotations

import tempfile
import time
from pathlib import Path
from collections.abc import Callable

import spiel_game
from spiel_game.cards import GAMES, ruleset

from solver.exact.best_response import nash_conv
from solver.exact.cfr import CFRSolver
from solver.exact.tree import build_tree
from solver.search.exact import blueprint_strategy, search_aware_lbr, search_strategy
from solver.search.resolve import SearchLimits

COLUMNS = ["deck", "players", "agenda", "blueprint_level", "search_top", "search_leaves",
           "search_max_nodes",
           "blueprint_exploitability", "search_exploitability", "dcfr_exploitability",
           "search_seconds", "infostates", "lbr_exact", "lbr", "lbr_low", "lbr_high",
           "lbr_best_response"]
# The blueprint level of the exact studies (results/search_exact.csv, exploit_known.csv):
# the shipped 2-player tables' levels when those were made (docs/solving.md; the shipped
# tables are now `counting`, which --blueprint-level can ask for), so that the studies'
# commands still remake them; 3 players: coarse.
STUDY_LEVEL = {"exalted_one": "fine", "my_kind_of_scum": "fine", "jabbas_court": "coarse",
               "rescue_mission": "coarse", "love_letter": "fine"}


def reduced_game(game_name: str, deck: str, players: int, variant: str):
    """The game of one study row: `variant` is one of the game's variants (an agenda, or
    the game's name for one without agendas)."""
    return spiel_game.load(game_name, players=players, deck=deck,
                           agenda=ruleset(game_name).agenda_of(variant))


def train_blueprint(game, level: str, iterations: int, seed: int, folder: Path) -> Path:
    """An MCCFR policy file for `game` at `level` (one thread, seeded)."""
    from solver.abstraction.keys import LEVELS
    from solver.mccfr.solver import MCCFRSolver
    from solver.policies.table import export_policy

    solver = MCCFRSolver(game, level=LEVELS[level], seed=seed, threads=1)
    solver.run(iterations)
    path = folder / f"blueprint_{level}.npz"
    export_policy(solver, path)
    return path


def _every_tenth(name: str, log: Callable[[str], None]) -> Callable[[int, int], None]:
    """A progress callback of the search over a tree: a line at each tenth of its
    information states, with the time taken so far."""
    start = time.perf_counter()

    def progress(done: int, total: int) -> None:
        if done * 10 // total != (done - 1) * 10 // total:
            log(f"{name}: searched {done:,} of {total:,} information states "
                f"({time.perf_counter() - start:.0f} s)")
    return progress


def run(decks: list[str], players: int, agendas: list[str], blueprint_iterations: int,
        search_iterations: int, dcfr_iterations: int, seed: int,
        tops: tuple = ("max-margin",), blueprint_level: str | None = None,
        log: Callable[[str], None] = lambda text: None,
        game_name: str = GAMES[0], leaves: tuple = ("single",),
        max_nodes: int = 100_000, lbr_deals: int = 0,
        on_row: Callable[[list[dict]], None] | None = None) -> list[dict]:
    """The rows (module docstring), one per (deck, agenda, top, leaves); `agendas`:
    reduced_game's variants. lbr_deals > 0: each row also holds the search-aware LBR
    (solver/search/exact.py search_aware_lbr, that many deals). on_row(rows so far):
    called after each row (to write them as they come)."""
    from solver.policies.chain import PolicySet

    rows = []
    limits = SearchLimits(iterations=search_iterations, max_nodes=max_nodes)
    for deck in decks:
        for agenda in agendas:
            game = reduced_game(game_name, deck, players, agenda)
            tree = build_tree(game)
            level = blueprint_level or (STUDY_LEVEL[agenda] if players == 2
                                        else "coarse")  # the 3-player table's
            name = f"{deck} {players}p {agenda}"
            log(f"{name}: {tree.num_infosets:,} information states; blueprint: "
                f"{blueprint_iterations:,} MCCFR iterations at {level}")
            with tempfile.TemporaryDirectory() as folder:
                path = train_blueprint(game, level, blueprint_iterations, seed, Path(folder))
                policies = PolicySet(game, [path])
            blueprint = nash_conv(tree, blueprint_strategy(tree, policies)) / (
                1 if players > 2 else players)
            log(f"{name}: DCFR, {dcfr_iterations:,} iterations")
            cfr = CFRSolver(tree, "dcfr")
            for _ in range(dcfr_iterations):
                cfr.iteration()
            dcfr = nash_conv(tree, cfr.average_strategy()) / (1 if players > 2 else players)
            for top in tops:
                for leaf in leaves:
                    began = time.perf_counter()
                    strategy, info = search_strategy(
                        tree, policies, limits, seed, top,
                        progress=_every_tenth(f"{name} {top} {leaf}", log), leaves=leaf)
                    searched = nash_conv(tree, strategy) / (1 if players > 2 else players)
                    lbr = (search_aware_lbr(tree, strategy, lbr_deals, seed)
                           if lbr_deals and players == 2 else {})
                    rows.append({"deck": deck, "players": players, "agenda": agenda,
                                 "blueprint_level": level, "search_top": top,
                                 "search_leaves": leaf,
                                 "blueprint_exploitability": blueprint,
                                 "search_exploitability": searched,
                                 "dcfr_exploitability": dcfr,
                                 "search_iterations": search_iterations,
                                 "search_max_nodes": max_nodes,
                                 "search_seconds": info["mean_search_seconds"],
                                 "search_run_seconds": time.perf_counter() - began,
                                 "median_subgame_nodes": info["median_subgame_nodes"],
                                 "infostates": tree.num_infosets, **lbr})
                    if on_row is not None:
                        on_row(rows)
                    log(f"{name} {top} {leaf}: blueprint {blueprint:.4f}, search "
                        f"{searched:.4f}, dcfr {dcfr:.1e} ({time.perf_counter() - began:.0f}"
                        f" s; {info['fallbacks_to_blueprint']} infosets fell back to the "
                        "blueprint)")
    return rows
