"""Self-describing result files: JSON (optionally gzipped), written atomically.

Every file records what made it: game parameters, algorithm, abstraction, iterations,
exploitability, code version and time. Never pickles.
"""

from __future__ import annotations

import datetime
import gzip
import json
import os
import subprocess
import tempfile
from pathlib import Path

import numpy as np

from solver.exact.solve import SolveOutcome
from solver.exact.tree import GameTree

FORMAT = "jabbas-palace-policy"
FORMAT_VERSION = 1
_ROOT = Path(__file__).resolve().parent.parent


def code_version() -> str:
    """The git commit of this checkout ('+dirty' if the code has local changes), else
    'unknown'."""
    try:
        commit = subprocess.run(["git", "rev-parse", "--short=12", "HEAD"], cwd=_ROOT,
                                capture_output=True, text=True, timeout=5, check=True)
        # Only code counts: regenerating a file in results/ does not make the code dirty.
        dirty = subprocess.run(["git", "status", "--porcelain", "--untracked-files=no", "--",
                                "spiel_game", "solver", "cli", "pyproject.toml"],
                               cwd=_ROOT, capture_output=True, text=True, timeout=5)
        return commit.stdout.strip() + ("+dirty" if dirty.stdout.strip() else "")
    except (OSError, subprocess.SubprocessError):
        return "unknown"


def write_atomic(path: str | os.PathLike, data: bytes) -> None:
    """Write to a temporary file in the same folder, then rename: never half a file."""
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".tmp")
    try:
        with os.fdopen(fd, "wb") as f:
            f.write(data)
            f.flush()
            os.fsync(f.fileno())
        umask = os.umask(0)
        os.umask(umask)
        os.chmod(tmp, 0o666 & ~umask)  # mkstemp makes files private; results are not
        os.replace(tmp, path)
    except BaseException:
        if os.path.exists(tmp):
            os.unlink(tmp)
        raise


def write_json(path: str | os.PathLike, obj: dict) -> None:
    data = json.dumps(obj, indent=1, sort_keys=False).encode()
    if str(path).endswith(".gz"):
        data = gzip.compress(data, mtime=0)
    write_atomic(path, data)


def read_json(path: str | os.PathLike) -> dict:
    raw = Path(path).read_bytes()
    try:
        if str(path).endswith(".gz"):
            raw = gzip.decompress(raw)
        return json.loads(raw)
    except (OSError, EOFError, ValueError) as err:
        raise ValueError(f"{path}: not a readable result file ({err}); it may be "
                         "truncated or corrupt") from None


def policy_record(tree: GameTree, outcome: SolveOutcome, *, deck_spec: str,
                  lp_value: float | None = None) -> dict:
    """The result of an exact solve, with its whole policy table."""
    offsets = tree.action_offsets()
    game = tree.game
    params = {k: v for k, v in game.get_parameters().items()}
    return {
        "format": FORMAT,
        "format_version": FORMAT_VERSION,
        "game": {"name": "jabbas_palace", "parameters": params, "deck_spec": deck_spec},
        "algorithm": outcome.algorithm,
        "abstraction": "none (exact game tree, perfect recall)",
        "iterations": outcome.iterations,
        "seconds": round(outcome.seconds, 3),
        "stopped_by": outcome.stopped_by,
        outcome.metric: outcome.value,
        "metric_units": "tokens per round (margin utility)" if params.get(
            "utility") == "margin" else "tokens per round",
        "lp_game_value_player0": lp_value,
        "tree": {"histories": tree.num_nodes, "information_states": tree.num_infosets},
        "code_version": code_version(),
        "created": datetime.datetime.now(datetime.timezone.utc).isoformat(timespec="seconds"),
        "curve": [{"iteration": m.iteration, "seconds": round(m.seconds, 4),
                   outcome.metric: m.value} for m in outcome.curve],
        "policy": {
            "columns": ["information_state", "actions", "probabilities"],
            "rows": [[tree.infoset_strings[i], tree.infoset_actions[i].tolist(),
                      np.round(outcome.strategy[offsets[i]:offsets[i + 1]], 6).tolist()]
                     for i in range(tree.num_infosets)],
        },
    }
