"""Where the shipped policy files are, and which of them a game uses.

The rule (one for the hint, the evaluation and `jabba solve --ship`):

1. Where. In a source checkout (a clone, or the editable install `pip install -e .`) the
   shipped files are the checkout's results/. In an installed package (`pip install .`)
   they are package data, solver/shipped/: the wheel's build step copies
   results/policy_*.npz there (setup.py).
2. Name. The table policy of the game (deck, variant, players) at abstraction level
   <level> is policy_<deck>_<variant>_<players>p_<level>.npz, the variant being the
   agenda for jabbas_palace and `love_letter` for classic Love Letter
   (spiel_game.game.variant): policy_full_love_letter_2p_fine.npz. Only a named deck
   (full, tiny, small, medium) ships: a deck spec has no file name. The file's header
   names its game, and loading it for another game is refused (table.py).
3. Which. A game uses every such file that exists, finest level first: identity,
   counting, fine, coarse, many (the order of solver.abstraction.keys.LEVELS; the
   4-6-player tables are `many`). The hint looks
   a situation up in the first and backs off to the next ones; the evaluation plays the
   first, "the shipped table" of the game.
"""

from __future__ import annotations

from importlib import resources
from pathlib import Path

from solver.abstraction.keys import LEVELS

PACKAGE_DATA = "shipped"  # folder of the `solver` package that holds them when installed
_CHECKOUT = Path(__file__).resolve().parents[2]


def checkout_results() -> Path | None:
    """results/ of the source checkout this code runs from, or None in an installed
    package."""
    if (_CHECKOUT / "pyproject.toml").is_file() and (_CHECKOUT / "results").is_dir():
        return _CHECKOUT / "results"
    return None


def shipped_folder() -> Path | None:
    """The folder of the shipped files (rule 1), or None if this install has none."""
    checkout = checkout_results()
    if checkout is not None:
        return checkout
    installed = Path(str(resources.files("solver") / PACKAGE_DATA))
    return installed if installed.is_dir() else None


def policy_name(deck: str, variant: str, players: int, level: str,
                levels: tuple[str, ...] = LEVELS) -> str:
    """The file name of a game's table policy at `level` (rule 2); `levels`: the game's
    abstraction levels (han_solo has its own, solver/han_solo/abstraction.py)."""
    if not deck.isidentifier():
        raise ValueError(f"deck {deck!r}: only a named deck (full, tiny, small, medium) "
                         "has a shipped policy, not a deck spec")
    if level not in levels:
        raise ValueError(f"abstraction level {level!r}: allowed are {', '.join(levels)}")
    return f"policy_{deck}_{variant}_{players}p_{level}.npz"


def policy_files(deck: str, variant: str, players: int, folder: Path | None = None,
                 levels: tuple[str, ...] = LEVELS) -> list[Path]:
    """The shipped policy files a game uses, in the order of `levels` (rule 3: finest
    first); `folder` replaces the shipped folder (rule 1)."""
    folder = shipped_folder() if folder is None else folder
    if folder is None or not deck.isidentifier():
        return []
    paths = (folder / policy_name(deck, variant, players, level, levels) for level in levels)
    return [path for path in paths if path.is_file()]


def ship_folder(out: Path | None = None, option: str = "--out") -> Path:
    """results/ of the source checkout, where `--ship` writes (every command that writes
    results has it). ValueError if `out` (the command's `option`) also says where to
    write, in an installed package (its shipped files are package data, rebuilt from a
    checkout), or for uncommitted code (provenance.check_results_write)."""
    from solver import provenance

    if out is not None:
        raise ValueError(f"--ship and {option} both choose where to write; give one")
    checkout = checkout_results()
    if checkout is None:
        raise ValueError("--ship writes into results/ of a source checkout, and this code "
                         f"runs from an installed package ({_CHECKOUT}); write elsewhere with "
                         "--out or --out-dir")
    provenance.check_results_write(checkout)
    return checkout
