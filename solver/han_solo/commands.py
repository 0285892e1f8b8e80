"""What the `jabba` commands do with han_solo beyond the hint: a duplicate-deal cross
table of named policies (`duplicate_match` on each pairing: the shared tournament,
solver/evaluation/tournament.py), a table's strategy as export rows (the columns of
solver/hint/export.py, from seeded self-play), and the round as a player sees it (for
`jabba play`)."""

from __future__ import annotations

import itertools
import random
import time

import numpy as np

from spiel_game.han_solo import engine
from spiel_game.han_solo import layout as L

from solver.evaluation.tournament import duplicate_match as shared_duplicate_match
from solver.han_solo.abstraction import info_key
from solver.han_solo.players import HanSoloPlayer
from solver.han_solo.playout import TABLE, table_bank

TOURNAMENT_COLUMNS = ("policy", "opponent", "deals", "margin", "margin_low", "margin_high",
                      "credits", "opponent_credits", "win_rate", "win_rate_low",
                      "win_rate_high", "table_miss_rate", "seconds")


def duplicate_match(game, a: int, b: int, deals: int, seed: int, table=None,
                    fallback: int = 0) -> dict:
    """Policy ids a and b (HEURISTIC_NAMES index, or TABLE with `table` a loaded
    HanSoloTablePolicy) on `deals` duplicate deals: a in one seat and b in the other n - 1,
    each deal played in every rotation (solver/evaluation/tournament.py
    `duplicate_match`, dealt and scored by solver/han_solo/playout.py). a's margin (the
    game's return: its credits less the others' mean, thousands a round) per deal
    averaged over the rotations, a's and the others' credits a round, and a's game-win
    rate (the share of the others whose token a's beats; a tie counts half).
    `fallback`: the heuristic a table plays where it has no key (0: uniform)."""
    return shared_duplicate_match(game, table_bank(table), TABLE, a, b, deals, seed,
                                  fallback, "credits", "rounds")


def cross_table(game, players: list[HanSoloPlayer], deals: int, seed: int,
                diagonal: bool = True, on_pairing=None) -> list[dict]:
    """Every pairing (a, b), a before b in `players` (and each against itself with
    `diagonal`): a's margin, credits and game-win rate on `deals` duplicate deals. At
    most one table among them (the compiled matches hold one table's arrays)."""
    tables = [p for p in players if p.table is not None]
    if len({id(p.table) for p in tables}) > 1:
        raise ValueError("a han_solo tournament plays one table at a time against "
                         "heuristics; give one table")
    table = tables[0] if tables else None
    pairs = list(itertools.combinations(range(len(players)), 2))
    if diagonal:
        pairs = [(i, i) for i in range(len(players))] + pairs
    rows = []
    for done, (i, j) in enumerate(pairs):
        a, b = players[i], players[j]
        clock = time.perf_counter()
        r = duplicate_match(game, a.kind, b.kind, deals, seed,
                            None if table is None else table.table,
                            fallback=table.heuristic if table is not None else 0)
        rows.append({"policy": a.name, "opponent": b.name, **r,
                     "table_miss_rate": (r["table_misses"] / r["table_decisions"]
                                         if r["table_decisions"] else None),
                     "seconds": round(time.perf_counter() - clock, 2)})
        if on_pairing is not None:
            on_pairing(done + 1, len(pairs))
    return rows


def tournament_csv(rows: list[dict]) -> str:
    from solver.reports import csv

    return csv.table(list(TOURNAMENT_COLUMNS), [[
        r["policy"], r["opponent"], r["deals"],
        *(csv.number(r["margin"][k]) for k in ("mean", "low", "high")),
        csv.number(r["credits"]["mean"]), csv.number(r["opponent_credits"]["mean"]),
        *(csv.number(r["win_rate"][k]) for k in ("mean", "low", "high")),
        csv.number(r["table_miss_rate"]), r["seconds"]] for r in rows])


def describe_information(state, player: int) -> str:
    """What `player` knows at `state`, in one line: hand and total, the discard top and
    pile, the others' hand sizes, the turn, the pot."""
    v = state.view()
    hand = v.hands[player]
    parts = [f"hand {', '.join(L.card_name(c) for c in hand) or '-'} "
             f"(total {sum(L.card_value(c) for c in hand):+d})",
             f"discard top {L.card_name(v.discard[-1]) if v.discard else '-'} "
             f"({len(v.discard)} cards)",
             *(f"p{q} holds {len(h)}" for q, h in enumerate(v.hands) if q != player),
             f"turn {min(v.cycle + 1, int(state._s[L.S_TURNS]))} of "
             f"{int(state._s[L.S_TURNS])}",
             "pot " + ",".join(L.TOKEN_NAMES[k] for k in range(L.NUM_TOKEN_KINDS)
                               for _ in range(v.pot[k]))]
    return "; ".join(parts)


def export_rows(game, player: HanSoloPlayer, rounds: int = 2000, seed: int = 0,
                all_keys: bool = False, progress=None) -> list[dict]:
    """solver/hint/export.py's rows (COLUMNS) for a han_solo table, from seeded
    self-play of `player` (the table, its fallback where it has no key)."""
    table = player.table
    level = table.header["abstraction"]["level"]
    rng = random.Random(seed)
    seen: dict[int, dict] = {}
    acts = np.empty(L.NUM_ACTIONS, dtype=np.int32)
    for r in range(rounds):
        state = game.new_initial_state()
        s = state._s
        while not state.is_terminal():
            if state.is_chance_node():
                outcomes, probs = zip(*state.chance_outcomes())
                state.apply_action(rng.choices(outcomes, probs)[0])
                continue
            p = state.current_player()
            n = engine.legal_actions(s, acts)
            key = int(info_key(s, acts, n, table.level))
            row = player.table_row(s)
            if row is not None:
                entry = seen.setdefault(key, {
                    "seat": p, "decision": L.PHASE_NAMES[int(s[L.S_PHASE])],
                    "information_state": describe_information(state, p), "row": row,
                    "visits": 0})
                entry["visits"] += 1
            moves = player.action_probabilities(state)
            state.apply_action(rng.choices(list(moves), list(moves.values()))[0])
        if progress:
            progress(r + 1)
    rows = []
    for key, e in sorted(seen.items(), key=lambda kv: (-kv[1]["visits"], kv[0])):
        for action, prob in e["row"].items():
            rows.append({"key": key, "level": level, "seat": e["seat"],
                         "decision": e["decision"], "information_state":
                         e["information_state"], "action": L.action_to_string(action),
                         "action_id": action, "probability": round(prob, 4),
                         "visits": e["visits"]})
    if all_keys:
        for i, key in enumerate(table.keys.tolist()):
            if key in seen:
                continue
            for j in range(int(table.num_actions[i])):
                rows.append({"key": key, "level": level, "seat": "", "decision": "",
                             "information_state": "", "action": f"legal action #{j}",
                             "action_id": "", "probability":
                             round(float(table.probs[table.starts[i] + j]), 4),
                             "visits": 0})
    return rows
