"""Self-describing result files: one provenance header, JSON (optionally gzipped) written
atomically.

Every result and policy file starts from `header`: the game (name and parameters), the code
version, the command that made it (naming no machine path), wall time, the machine's cores
and the date, then the fields of its kind (algorithm, abstraction, iterations, metric ...).
Never pickles.
"""

from __future__ import annotations

import contextlib
import datetime
import glob
import gzip
import hashlib
import json
import os
import shlex
import subprocess
import sys
import tempfile
from collections.abc import Sequence
from pathlib import Path

GAME_NAME = "jabbas_palace"  # the game of a record that names none (older files)
HEADER_FIELDS = ("game", "code_version", "command", "seconds", "cores", "created")
_ROOT = Path(__file__).resolve().parent.parent


def header(game, *, seconds: float, command: str | Sequence[str] | None = None,
           game_name: str = GAME_NAME, **fields) -> dict:
    """The provenance header (HEADER_FIELDS, then `fields`). `game`: a pyspiel game, or a
    dict of its parameters (a list value: the file covers each) with `game_name` its
    short name; `command`: the command that remakes the file, by default the one running
    (sys.argv)."""
    if not isinstance(game, dict):
        game_name = game.get_type().short_name
        game = dict(game.get_parameters())
    return {"game": {"name": game_name, "parameters": game},
            "code_version": code_version(), "command": command_line(command),
            "seconds": round(float(seconds), 2), "cores": os.cpu_count(),
            "created": datetime.datetime.now(datetime.timezone.utc).isoformat(
                timespec="seconds"),
            **({"code_diff_sha256": code_diff_sha256()} if code_diff_sha256() else {}),
            **fields}


def game_parameters(record: dict) -> dict:
    """The game parameters of a header; files written before `header` existed (policy
    format 2, checkpoints) hold them directly under "game"."""
    game = record["game"]
    return game["parameters"] if "parameters" in game else game


def game_name(record: dict) -> str:
    """The game's short name in a header (jabbas_palace in files from before it had
    another game)."""
    game = record["game"]
    return game.get("name", GAME_NAME) if "parameters" in game else GAME_NAME


def game_flags(game: str, agenda: str | None = None) -> list[str]:
    """The `jabba` flags that name a game and its variant in a recorded command: --agenda
    in a game with agendas (None: the default one), --game for any game but the
    default."""
    from spiel_game.cards import GAMES, ruleset

    rules = ruleset(game)
    # The default game is the --game option's default: a recorded command omits it (a name
    # branch kept, tests/test_game_adapter.py: the command's text, not a capability).
    flags = [] if game == GAMES[0] else ["--game", game]
    return flags + (["--agenda", rules.variant(agenda)] if rules.has_agendas else [])


def portable_path(path: str | os.PathLike, root: str | os.PathLike | None = None) -> str:
    """A path as a result file may record it: a relative one as given; an absolute one
    relative to `root` (default: the working directory) if inside it, else its name."""
    path = Path(path)
    if not path.is_absolute():
        return str(path)
    try:
        return str(path.resolve().relative_to(Path(root or Path.cwd()).resolve()))
    except ValueError:
        return path.name


def command_line(command: str | Sequence[str] | None = None) -> str:
    """A command as typed (default: sys.argv, the program by its name), with every
    absolute path made portable (`portable_path`), also in --option=/path and in comma
    lists (--policies table,/path/p.npz)."""
    if command is None:
        program = Path(sys.argv[0])
        # a script is run by python, named from the repository's root (benchmarks/x.py);
        # an installed command (jabba) by its name
        script = portable_path(program.resolve(), _ROOT)
        words = (["jabba"] if script == "cli/main.py"  # the jabba command, run from source
                 else ["python", script] if program.suffix == ".py" else [program.name])
        words += sys.argv[1:]
    else:
        words = shlex.split(command) if isinstance(command, str) else list(command)

    def portable(value: str) -> str:
        return ",".join(portable_path(item) if item else item for item in value.split(","))

    out = []
    for word in map(str, words):
        option, equals, value = word.partition("=")
        out.append(f"{option}={portable(value)}" if equals and option.startswith("-")
                   else portable(word))
    return shlex.join(out)


BUILT_CODE_VERSION = "CODE_VERSION"  # file of the solver package in a wheel (setup.py)
# What counts as the code of a record: regenerating a file in results/ or editing the docs
# does not make it dirty.
CODE_PATHS = ("spiel_game", "solver", "cli", "benchmarks", "pyproject.toml", "setup.py")


class DirtyCodeError(ValueError):
    """A write into results/ of a checkout whose code has uncommitted changes."""


def _git(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run(["git", *args], cwd=_ROOT, capture_output=True, timeout=10,
                          check=True)


def _read_code_version() -> tuple[str, str | None]:
    """(version, diff hash): the git commit of this checkout, '+dirty' if the code has
    local changes (then the sha256 of `git diff HEAD` and of the untracked code files);
    in an installed package, the one recorded when its wheel was built; else 'unknown'."""
    built = Path(__file__).resolve().parent / BUILT_CODE_VERSION
    if not (_ROOT / "pyproject.toml").is_file():  # installed: never some other repo's git
        return (built.read_text().strip() if built.is_file() else "unknown"), None
    try:
        commit = _git("rev-parse", "--short=12", "HEAD").stdout.decode().strip()
        # Every untracked file by name (a new folder is otherwise one entry, not a file).
        status = _git("status", "--porcelain", "-z", "--untracked-files=all", "--",
                      *CODE_PATHS).stdout
        if not status:
            return commit, None
        digest = hashlib.sha256(_git("diff", "--binary", "HEAD", "--", *CODE_PATHS).stdout)
        for entry in sorted(status.split(b"\0")):
            if entry.startswith(b"?? "):  # untracked and not ignored: its name and bytes
                name = entry[3:].decode()
                digest.update(name.encode() + b"\0" + (_ROOT / name).read_bytes())
        return commit + "+dirty", digest.hexdigest()
    except (OSError, subprocess.SubprocessError):
        return "unknown", None


# Read once, when the process starts (every command imports this module first): a commit
# made during a long run must not tag its record with code the run never ran.
_CODE_AT_START = _read_code_version()
_allow_dirty = False


def code_version() -> str:
    """The code version this process started with (`_read_code_version`)."""
    return _CODE_AT_START[0]


def code_diff_sha256() -> str | None:
    """The hash of the uncommitted code changes this process started with, or None."""
    return _CODE_AT_START[1]


def allow_dirty(allowed: bool = True) -> None:
    """Let this process write into results/ from uncommitted code (`--allow-dirty`); its
    records then carry `code_diff_sha256`."""
    global _allow_dirty
    _allow_dirty = allowed


def check_results_write(path: str | os.PathLike) -> None:
    """Refuse (DirtyCodeError) to write `path` if it is a tracked kind of file in results/
    of this checkout and the code has uncommitted changes: no commit would remake it."""
    version = code_version()
    if _allow_dirty or not version.endswith("+dirty"):
        return
    path = Path(path).resolve()
    results = _ROOT / "results"
    if not path.is_relative_to(results):
        return
    ignored = subprocess.run(["git", "check-ignore", "-q", str(path)], cwd=_ROOT,
                             capture_output=True, timeout=10).returncode == 0
    if not ignored:  # checkpoints (results/checkpoints/) are scratch, not results
        raise DirtyCodeError(
            f"{path.relative_to(_ROOT)}: results/ holds files a commit remakes, and this "
            f"code ({version}) has uncommitted changes in {', '.join(CODE_PATHS)} "
            "(git status); commit them first, write elsewhere, or pass --allow-dirty to "
            "record the diff's hash (code_diff_sha256) instead")


def attested(record, landed: dict[str, tuple[str, str]]):
    """`record` with every part made from uncommitted code re-attested: `landed` maps a
    recorded '<commit>+dirty' to (the commit that holds that code, the basis for saying
    so). Every field named '*code_version' (a row's `training_code_version` too) becomes
    the commit, and its '*attestation' beside it keeps what was recorded and the basis
    (the part was not re-run)."""
    if isinstance(record, list):
        return [attested(item, landed) for item in record]
    if not isinstance(record, dict):
        return record
    out = {k: attested(v, landed) for k, v in record.items()}
    for key, recorded in record.items():
        if key.endswith("code_version") and isinstance(recorded, str) and recorded in landed:
            commit, basis = landed[recorded]
            out[key] = commit
            out[key[:-len("code_version")] + "attestation"] = {
                "recorded": recorded, "basis": basis,
                "attested": datetime.date.today().isoformat()}
    return out


def write_atomic(path: str | os.PathLike, data: bytes) -> None:
    """Write to a temporary file in the same folder, then rename: never half a file."""
    with atomic_file(path) as f:
        f.write(data)


@contextlib.contextmanager
def atomic_file(path: str | os.PathLike):
    """A binary file to write `path` through: a temporary file in the same folder
    (`temporary_files` finds those a killed process left), flushed to disk and renamed
    onto `path` when the block ends; removed if the block raises. Never half a file."""
    path = Path(path)
    check_results_write(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".tmp")
    try:
        with os.fdopen(fd, "wb") as f:
            yield f
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


def temporary_files(path: str | os.PathLike) -> list[Path]:
    """The temporary files of `atomic_file(path)` that exist: .<name>.<random>.tmp in the
    same folder (a killed writer leaves its own behind)."""
    path = Path(path)
    return sorted(path.parent.glob(f".{glob.escape(path.name)}.*.tmp"))


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
