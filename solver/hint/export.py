"""Strategy tables for study: a policy file as CSV or JSON Lines rows.

A table key is a hash of abstract features, so a row cannot be read back from the key
alone. `export_rows` plays `rounds` seeded self-play rounds with the policy and, for each
key met, describes the first information state that reached it (what its player knew:
hand, play areas, known cards, deck) and counts the visits. Keys never met in the sample
are left out unless `all_keys` (then with an empty description and 0 visits).

Columns (COLUMNS): key (the abstract key, int64; a decimal string in JSON), level
(abstraction level), seat and decision (phase) of the player to act, information_state
(readable description of an example state with this key), action (in words), action_id,
probability (the table's, 8-bit), visits (decisions at this key in the sample, all
actions together). `write_rows` writes them as plain CSV with the header in a sidecar
`.json`, or as JSON Lines with the header first.
"""

from __future__ import annotations

import csv
import io
import json
import random
from pathlib import Path

import numpy as np

from spiel_game import engine
from spiel_game import layout as L
from spiel_game.actions import decision_to_string

from solver import provenance
from solver.policies.knowledge import knowledge
from solver.policies.shipped import shipped_folder
from solver.provenance import write_atomic

FORMATS = ("csv", "jsonl")
COLUMNS = ("key", "level", "seat", "decision", "information_state", "action", "action_id",
           "probability", "visits")


def describe_information(state, player: int) -> str:
    """What `player` knows at `state`, in one line (only from their redacted log), with
    the game's card names."""
    k = knowledge(state, player)
    chars = k.characters

    def _names(cards) -> str:
        return "+".join(chars[c].name for c in cards) or "-"
    parts = [f"hand {_names(k.hand)}"]
    if k.face_up:
        parts.append(f"face-up {_names(k.face_up)}")
    for q in range(k.num_players):
        if q == player:
            continue
        status = "out" if not k.in_round[q] else ("protected" if k.protected[q] else "in")
        known = k.known_hands.get(q)
        text = f"p{q} {status} area {_names(k.play_areas[q])}"
        if known is not None:
            text += f" holds {chars[known].name}"
        parts.append(text)
    parts.append(f"my area {_names(k.play_areas[player])}")
    parts.append(f"deck {k.deck_size}")
    s = state.array
    if s[L.S_PHASE] in (L.PH_TARGET, L.PH_NAME, L.PH_COUNTER):
        parts.append(f"resolving {chars[int(s[L.S_PENDING_CARD])].name}")
    return "; ".join(parts)


def export_rows(game, policy, rounds: int = 2000, seed: int = 0, all_keys: bool = False,
                progress=None) -> list[dict]:
    """Rows (COLUMNS) of `policy` (a TablePolicy for `game`), from seeded self-play."""
    from solver.abstraction import keys as abstraction

    level_name = policy.header["abstraction"]["level"]
    rng = random.Random(seed)
    seen: dict[int, dict] = {}
    buf = np.empty(L.NUM_ACTIONS, dtype=np.int32)
    for r in range(rounds):
        state = game.new_initial_state()
        s = state.array
        while not engine.is_terminal(s):
            if engine.is_chance(s):
                outcomes, probs = zip(*state.chance_outcomes())
                state.apply_action(rng.choices(outcomes, probs)[0])
                continue
            player = int(engine.current_actor(s))
            n = engine.legal_actions(s, buf)
            legal = buf[:n].tolist()
            key = int(abstraction.abstract_key(s, player, policy.level))
            row = policy.find(key)
            probs = policy.row(row, n) if row >= 0 else None
            entry = seen.get(key)
            if entry is None and probs is not None:
                entry = seen[key] = {
                    "seat": player, "decision": L.PHASE_NAMES[s[L.S_PHASE]],
                    "information_state": describe_information(state, player),
                    "legal": legal, "visits": 0}
            if entry is not None:
                entry["visits"] += 1
            p = probs if probs is not None else np.full(n, 1.0 / n)
            state.apply_action(rng.choices(legal, p)[0])
        if progress:
            progress(r + 1)
    rows = []
    for key, entry in sorted(seen.items(), key=lambda kv: (-kv[1]["visits"], kv[0])):
        _append_rows(rows, policy, policy.find(key), key, level_name, entry, game.characters)
    if all_keys:
        for i, key in enumerate(policy.keys.tolist()):
            if key not in seen:
                _append_rows(rows, policy, i, key, level_name, None, game.characters)
    return rows


def _append_rows(rows, policy, i, key, level_name, entry, chars):
    n = int(policy.num_actions[i])
    block = policy.row(i, n)
    for j in range(n):
        action = entry["legal"][j] if entry else None
        rows.append({
            "key": key, "level": level_name,
            "seat": entry["seat"] if entry else "", "decision": entry["decision"] if entry else "",
            "information_state": entry["information_state"] if entry else "",
            "action": decision_to_string(action, chars) if entry else f"legal action #{j}",
            "action_id": action if entry else "", "probability": round(float(block[j]), 4),
            "visits": entry["visits"] if entry else 0})


def export_header(game, policy, policy_path, *, rounds: int, seed: int, all_keys: bool,
                  seconds: float) -> dict:
    """The provenance header of an export (solver/provenance.py), then the sample's
    settings and the policy file's own header."""
    return {**provenance.header(game, seconds=seconds),
            "export": {"rounds": rounds, "seed": seed, "all_keys": all_keys,
                       "columns": list(COLUMNS)},
            "policy": provenance.portable_path(policy_path, shipped_folder()),
            "policy_header": policy.header}


def header_path(path) -> Path:
    """Where the header of a CSV export goes: next to it, `<out>.json` (table.csv ->
    table.csv.json), so the CSV itself is plain for any csv reader."""
    path = Path(path)
    return path.with_name(path.name + ".json")


def write_rows(rows: list[dict], path, fmt: str, header: dict) -> list[Path]:
    """Write the rows; returns the files written. CSV: plain (a column line, then the
    rows), the header in `header_path(path)`. JSON Lines: `{"header": ...}`, then one
    object per row. Keys are decimal strings in JSON (int64 does not survive tools that
    read numbers as doubles); each file is written atomically."""
    if fmt not in FORMATS:
        raise ValueError(f"format {fmt!r}: allowed are {', '.join(FORMATS)}")
    out = io.StringIO()
    if fmt == "csv":
        writer = csv.DictWriter(out, fieldnames=COLUMNS, lineterminator="\n")
        writer.writeheader()
        writer.writerows(rows)
        sidecar = header_path(path)
        provenance.write_json(sidecar, header)
        write_atomic(path, out.getvalue().encode())
        return [Path(path), sidecar]
    out.write(json.dumps({"header": header}) + "\n")
    for row in rows:
        out.write(json.dumps({**row, "key": str(row["key"])}) + "\n")
    write_atomic(path, out.getvalue().encode())
    return [Path(path)]
