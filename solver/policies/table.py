"""Shipped policies: compact, self-describing .npz files of an MCCFR average strategy.

Layout (numpy .npz, compressed, no pickles): `header` (JSON: the provenance header of
solver/provenance.py, then abstraction level and version, iterations, seed, checksum),
`key_gaps` (the sorted int64 abstract keys as differences from the previous key, split
into byte planes: uint8, one row per byte of the widest difference, so zlib sees the
mostly-zero high bytes apart from the random low ones), `num_actions` (uint8 per key;
each key's row starts where the previous row ends) and `probs` (uint8: probability x
255, rounded; each row renormalised on load). About 4-5 bytes per key (format 1 stored
the keys whole and the row offsets: about 9). Loading checks the format, the checksum,
the game (its name and parameters) and the abstraction version, and refuses the file with
a clear message otherwise. A loaded `TablePolicy` is an OpenSpiel `policy.Policy` (docs/hint.md
"In OpenSpiel's own tools").
"""

from __future__ import annotations

import hashlib
import io
import json
import zipfile
from pathlib import Path

import numpy as np
import pyspiel
from open_spiel.python import policy as policy_lib

import spiel_game
from spiel_game import engine
from spiel_game import layout as L

from solver.abstraction import keys as abstraction
from solver.policies import shipped
from solver import provenance
from solver.provenance import write_atomic

FORMAT = "jabbas-palace-table-policy"
FORMAT_VERSION = 2
_ARRAYS = ("key_gaps", "num_actions", "probs")


def encode_keys(keys: np.ndarray) -> np.ndarray:
    """Sorted non-negative int64 keys -> byte planes of their gaps (uint8, planes x keys)."""
    gaps = np.diff(keys, prepend=np.int64(0)).astype(np.uint64)
    width = max(1, (int(gaps.max(initial=0)).bit_length() + 7) // 8)
    planes = gaps.view(np.uint8).reshape(-1, 8).T  # little-endian: row b holds byte b
    return np.ascontiguousarray(planes[:width])


def decode_keys(planes: np.ndarray) -> np.ndarray:
    """The inverse of `encode_keys`."""
    gaps = np.zeros(planes.shape[1], dtype=np.uint64)
    for b in range(planes.shape[0]):
        gaps |= planes[b].astype(np.uint64) << np.uint64(8 * b)
    return np.cumsum(gaps, dtype=np.uint64).view(np.int64)


def row_offsets(num_actions: np.ndarray) -> np.ndarray:
    """Start of each key's row in `probs`: rows are stored back to back."""
    offsets = np.zeros(len(num_actions), dtype=np.int64)
    np.cumsum(num_actions[:-1], dtype=np.int64, out=offsets[1:])
    return offsets


def _checksum(arrays: dict[str, np.ndarray]) -> str:
    digest = hashlib.sha256()
    for name in _ARRAYS:
        digest.update(np.ascontiguousarray(arrays[name]).tobytes())
    return digest.hexdigest()


def average_strategy_rows(solver, max_keys: int | None = None
                          ) -> tuple[np.ndarray, np.ndarray, np.ndarray, dict]:
    """(sorted keys, action count per key, float64 rows back to back, the header's
    `pruned` entry or {}) of an MCCFR solver's average strategy (solver/mccfr/, a layer
    above: only its `tables` are read); an unvisited row is uniform.

    With `max_keys`, only that many keys are kept: those visited most in training.
    Under external sampling a key's strategy sum grows by 1 per visit (its player not
    traversing), so its row total is its visit count; a dropped key is a table miss and
    plays uniformly, which self-play coverage then measures."""
    if max_keys is not None and max_keys < 1:
        raise ValueError(f"max_keys {max_keys}: must be at least 1")
    t = solver.tables
    used = t.keys != 0
    order = np.argsort(t.keys[used])
    keys = t.keys[used][order]
    num_actions = t.num_actions[used][order].astype(np.uint8)
    values = t.strategy_sum[_row_cells(t.offsets[used][order], num_actions)].astype(
        np.float64)
    totals = _row_totals(values, num_actions)
    pruned = {}
    if max_keys is not None and max_keys < len(keys):
        # Most visited first, ties by key, so the cut is deterministic.
        keep = np.sort(np.lexsort((keys, -totals))[:max_keys])
        pruned = {"pruned": {
            "kept_keys": int(max_keys), "trained_keys": int(len(keys)),
            "by": "visits in training (strategy-sum total); a dropped key plays uniformly",
            "visit_share_kept": float(totals[keep].sum() / max(totals.sum(), 1e-300))}}
        values = values[_row_cells(row_offsets(num_actions)[keep], num_actions[keep])]
        keys, num_actions, totals = keys[keep], num_actions[keep], totals[keep]
    reached = np.repeat(totals > 0, num_actions)
    share = values / np.repeat(np.where(totals > 0, totals, 1.0), num_actions)
    uniform = 1.0 / np.repeat(num_actions.astype(np.float64), num_actions)
    return keys, num_actions, np.where(reached, share, uniform), pruned


def export_policy(solver, path: str | Path, max_keys: int | None = None,
                  **extra) -> dict:
    """Write the solver's average strategy (`average_strategy_rows`, at most `max_keys`
    keys), quantised to 8 bits; returns the header."""
    keys, num_actions, rows, pruned = average_strategy_rows(solver, max_keys)
    return write_rows(path, keys, num_actions, rows, {
        "format": FORMAT, "format_version": FORMAT_VERSION,
        **provenance.header(solver.game, seconds=solver.seconds),
        "algorithm": "external-sampling MCCFR",
        "abstraction": {"level": _level_name(solver.level),
                        "version": abstraction.VERSION},
        "iterations": solver.iterations, "seed": solver.seed, "threads": solver.threads,
        **_warm_start(solver),
    }, {**pruned, **extra})


def _warm_start(solver) -> dict:
    """A warm-started run's `warm_start` (what its tables started as), else nothing."""
    found = getattr(solver, "warm_start", None)
    return {} if found is None else {"warm_start": found}


def write_rows(path: str | Path, keys, num_actions, rows, head: dict, tail: dict) -> dict:
    """Write a table file (the layout above) of float rows: its header is `head` (format,
    provenance, the training), the key count, the quantisation and the checksum, then
    `tail`; written atomically. Returns the header."""
    probs = np.round(rows * 255).astype(np.uint8)
    arrays = {"key_gaps": encode_keys(keys), "num_actions": num_actions, "probs": probs}
    header = {**head, "keys": len(keys),
              "quantisation": "uint8, probability x 255 rounded, rows renormalised on load",
              "checksum_sha256": _checksum(arrays), **tail}
    buffer = io.BytesIO()
    np.savez_compressed(buffer, header=np.array(json.dumps(header)), **arrays)
    write_atomic(path, buffer.getvalue())
    return header


def read_rows(path: str | Path, fmt: str = FORMAT, version: int = FORMAT_VERSION
              ) -> tuple[dict, dict[str, np.ndarray]]:
    """(header, arrays) of a table file of format `fmt` and `version`, its layout and
    checksum checked; ValueError saying what is wrong."""
    try:
        with np.load(path, allow_pickle=False) as data:
            arrays = {name: data[name] for name in data.files}
        header = json.loads(str(arrays.pop("header")))
    except (OSError, ValueError, KeyError, EOFError, zipfile.BadZipFile) as err:
        raise ValueError(f"{path}: not a readable policy file ({err}); it may be truncated "
                         "or corrupt") from None
    if header.get("format") != fmt or header.get("format_version") != version:
        raise ValueError(f"{path}: format {header.get('format')!r} version "
                         f"{header.get('format_version')!r}, expected {fmt!r} version "
                         f"{version}; re-solve (or re-export) it with this code")
    missing = [name for name in _ARRAYS if name not in arrays]
    if missing:
        raise ValueError(f"{path}: not a readable policy file (no {', '.join(missing)}); it "
                         "may be truncated or corrupt")
    if _checksum(arrays) != header.get("checksum_sha256"):
        raise ValueError(f"{path}: checksum mismatch: the file is corrupt")
    return header, arrays


def _row_cells(starts: np.ndarray, lengths: np.ndarray) -> np.ndarray:
    """Indices of rows (start, length) laid back to back."""
    lengths = lengths.astype(np.int64)
    ends = np.cumsum(lengths)
    return np.repeat(starts.astype(np.int64) - (ends - lengths), lengths) + \
        np.arange(int(ends[-1]) if len(ends) else 0)


def _row_totals(values: np.ndarray, num_actions: np.ndarray) -> np.ndarray:
    if not len(num_actions):
        return np.zeros(0)
    return np.add.reduceat(values, row_offsets(num_actions))


def _level_name(level: int) -> str:
    return {v: k for k, v in abstraction.LEVELS.items()}[level]


class TablePolicy(policy_lib.Policy):
    """A loaded policy: probabilities by abstract key, for engine states; also an
    OpenSpiel `policy.Policy` for every seat of its game, so OpenSpiel's own tools
    (exploitability, PolicyBot, evaluate_bots) take it as it is.

    A key missing from the table gets uniform probabilities over the legal actions, as
    the tournaments play it (solver/policies/compiled.py `policy_probs`, TABLE_MISS).
    """

    def __init__(self, header: dict, arrays: dict[str, np.ndarray], game):
        super().__init__(game, list(range(game.num_players())))
        self.header = header
        self.level = abstraction.LEVELS[header["abstraction"]["level"]]
        self.keys = decode_keys(arrays["key_gaps"])  # sorted
        self.offsets = row_offsets(arrays["num_actions"])
        self.num_actions = arrays["num_actions"].astype(np.int64)
        self.probs = arrays["probs"]  # uint8, probability x 255; rows normalised on read

    def __len__(self) -> int:
        return len(self.keys)

    def find(self, key: int) -> int:
        """The row of an abstract key, or -1."""
        i = int(np.searchsorted(self.keys, key))
        return i if i < len(self.keys) and self.keys[i] == key else -1

    def row(self, i: int, n: int) -> np.ndarray:
        """Row i as probabilities of the n legal actions (uniform if all rounded to 0)."""
        if self.num_actions[i] != n:
            raise ValueError(f"policy row has {self.num_actions[i]} actions where the "
                             f"game offers {n}: the file does not match this game")
        row = self.probs[self.offsets[i]:self.offsets[i] + n].astype(np.float64)
        total = row.sum()
        return row / total if total > 0 else np.full(n, 1.0 / n)

    def lookup(self, s, player: int, n: int) -> np.ndarray | None:
        """Probabilities of the n legal actions at engine state s, or None if absent."""
        i = self.find(abstraction.abstract_key(s, player, self.level))
        return None if i < 0 else self.row(i, n)

    def action_probabilities(self, state, player_id=None) -> dict[int, float]:
        """{action: probability} over the legal actions of the player to act at `state`
        (a state of the engine's games); uniform where the table lacks the key."""
        player = state.current_player()
        if player < 0:
            raise ValueError(f"no player decides at this state (current player {player}: "
                             "chance or terminal); a policy answers decision states only")
        if player_id is not None and player_id != player:
            raise ValueError(f"asked for player {player_id} where player {player} is to "
                             "act; the table holds decisions of the player to act only")
        buf = np.empty(L.NUM_ACTIONS, dtype=np.int32)
        n = engine.legal_actions(state.array, buf)  # the order of the table's rows
        probs = self.lookup(state.array, player, n)
        if probs is None:
            probs = np.full(n, 1.0 / n)
        return dict(zip(buf[:n].tolist(), probs.tolist()))


def load_policy(path: str | Path, game=None) -> TablePolicy:
    """Load and verify a policy file; with `game`, also check it was made for that game
    (without, the policy is for the game its header records)."""
    header, arrays = read_rows(path)
    made_with = header["abstraction"]
    if made_with["level"] not in abstraction.LEVELS or \
            made_with["version"] != abstraction.VERSION:
        raise ValueError(f"{path}: made with abstraction {made_with['level']!r} version "
                         f"{made_with['version']}; this code has version "
                         f"{abstraction.VERSION} with levels {sorted(abstraction.LEVELS)}. "
                         "Re-solve with this code.")
    made_for = provenance.game_parameters(header)
    name = provenance.game_name(header)
    if game is None:  # the game the header records
        try:
            game = spiel_game.load_parameters(name, made_for)
        except (ValueError, pyspiel.SpielError) as err:
            raise ValueError(f"{path}: made for game {name} {made_for}, which this code "
                             f"cannot load ({err}); re-solve with this code") from None
    if name != game.get_type().short_name:
        raise ValueError(f"{path}: policy is for the game {name}, not "
                         f"{game.get_type().short_name}; give a policy of this game")
    params = {k: v for k, v in game.get_parameters().items()}
    if made_for != params:
        raise ValueError(f"{path}: policy is for game {made_for}, not {params}")
    return TablePolicy(header, arrays, game)


def shipped_policies(deck: str, variant: str, players: int, folder: Path | None = None
                     ) -> list[Path]:
    """The shipped table policies of a game, finest abstraction first, by the rule of
    solver/policies/shipped.py (`variant`: the agenda, or love_letter)."""
    return shipped.policy_files(deck, variant, players, folder)


# Tables of the games on engines of their own (han_solo, sarlaccs_pit): the same layout,
# their own format name, keys and abstraction version.

def export_engine_table(solver, path: str | Path, fmt: str, version: int,
                        abstraction_version: int, algorithm: str,
                        max_keys: int | None = None, command: str | None = None,
                        **extra) -> dict:
    """Write an MCCFR run's average strategy (at most `max_keys` keys, the most visited),
    quantised to 8 bits, as format `fmt`; returns the header."""
    keys, num_actions, rows, pruned = average_strategy_rows(solver, max_keys)
    return write_rows(path, keys, num_actions, rows, {
        "format": fmt, "format_version": version,
        **provenance.header(solver.game, seconds=solver.seconds, command=command),
        "algorithm": algorithm,
        "abstraction": {"level": solver.level_name, "version": abstraction_version},
        "iterations": solver.iterations, "seed": solver.seed, "threads": solver.threads,
        **_warm_start(solver),
    }, {**pruned, **extra})


class EngineTablePolicy(policy_lib.Policy):
    """A loaded table of a game on its own engine as an OpenSpiel policy; a key not in the
    table plays uniformly over the level's choices (the abstraction's `table_probs`).
    A subclass names `engine` (its `legal_actions`), `abstraction` (`level_id`,
    `table_probs`, `MAX_CHOICES`, `VERSION`) and `max_actions`."""

    engine = None
    abstraction = None
    max_actions = 0

    def __init__(self, game, header: dict, keys, num_actions, probs):
        super().__init__(game, list(range(game.num_players())))
        self.header = header
        self.level = self.abstraction.level_id(header["abstraction"]["level"])
        self.keys = keys
        self.num_actions = num_actions.astype(np.int64)
        self.starts = row_offsets(num_actions)
        self.probs = probs  # float64, rows renormalised

    def __len__(self) -> int:
        return len(self.keys)

    def action_probabilities(self, state, player_id=None) -> dict[int, float]:
        s = state.array
        acts = np.empty(self.max_actions, dtype=np.int32)
        n = self.engine.legal_actions(s, acts)
        row = np.empty(self.max_actions)
        self.abstraction.table_probs(s, acts, n, self.level, self.keys, self.starts,
                                     self.num_actions, self.probs,
                                     np.empty(self.abstraction.MAX_CHOICES, dtype=np.int32),
                                     row)
        return {int(acts[i]): float(row[i]) for i in range(n)}


def load_engine_table(path: str | Path, game, cls: type, fmt: str, version: int):
    """Read a table of format `fmt` as a `cls` (an EngineTablePolicy), checking its
    checksum, game, parameters and abstraction version; ValueError saying what differs."""
    header, arrays = read_rows(path, fmt, version)
    if header["abstraction"]["version"] != cls.abstraction.VERSION:
        raise ValueError(f"{path}: abstraction version {header['abstraction']['version']}, "
                         f"this code has {cls.abstraction.VERSION}")
    params = provenance.game_parameters(header)
    name = game.get_type().short_name
    ours = dict(game.get_parameters())
    if provenance.game_name(header) != name or params != ours:
        differ = sorted(k for k in {*params, *ours} if params.get(k) != ours.get(k))
        said = (f"{', '.join(f'{k}={params.get(k)}' for k in differ)}, not "
                f"{', '.join(f'{k}={ours.get(k)}' for k in differ)}"
                if provenance.game_name(header) == name else "")
        raise ValueError(f"{path}: made for {provenance.game_name(header)} "
                         f"{said + ' ' if said else ''}({params}), not {name} {ours}")
    num_actions = arrays["num_actions"]
    probs = arrays["probs"].astype(np.float64)
    totals = np.add.reduceat(probs, row_offsets(num_actions)) if len(probs) else probs
    sizes = num_actions.astype(np.int64)
    totals = np.where(totals > 0, totals, 1.0)
    probs = np.where(np.repeat(totals, sizes) > 0, probs / np.repeat(totals, sizes), 0.0)
    return cls(game, header, decode_keys(arrays["key_gaps"]), num_actions, probs)
