"""The wheel ships what the code reads: every shipped policy, the rules document, no caches.

The wheel is built the way `pip install .` builds it (pip, isolated build environment),
from a copy of the checkout, so the test never writes into the checkout and a concurrent
build cannot disturb it. About 5 s.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import zipfile
from pathlib import Path

import pytest

import spiel_game
from solver import provenance
from spiel_game.cards import AGENDA_NAMES, DECK_PRESETS

from solver.policies import shipped

ROOT = Path(__file__).resolve().parents[1]
MAX_SHIPPED_BYTES = 25_000_000
NOT_COPIED = ("*.egg-info", "build", "dist", ".*", "checkpoints")  # not sources


@pytest.fixture(scope="module")
def wheel(tmp_path_factory) -> Path:
    # The copy keeps the caches (__pycache__, numba's .nbi/.nbc) next to the sources, as a
    # working checkout has them: the wheel must leave them out.
    source = tmp_path_factory.mktemp("checkout") / "src"
    shutil.copytree(ROOT, source, ignore=shutil.ignore_patterns(*NOT_COPIED))
    out = tmp_path_factory.mktemp("wheel")
    subprocess.run([sys.executable, "-m", "pip", "wheel", "-q", "--no-deps", "-w", str(out),
                    str(source)], check=True, capture_output=True, text=True)
    (path,) = out.glob("jabbas_palace_solver-*.whl")
    return path


def _games():
    variants = [*AGENDA_NAMES, "love_letter"]  # Jabba's Palace's agendas, classic's game
    return [(deck, variant, players) for deck in DECK_PRESETS
            for variant in variants for players in range(2, 7)]


def _header(path: Path) -> dict:
    import json

    import numpy as np

    with np.load(path, allow_pickle=False) as data:
        return json.loads(str(data["header"]))


def test_wheel_holds_every_policy_the_rule_can_pick_and_the_rules(wheel):
    names = zipfile.ZipFile(wheel).namelist()
    picked = [path for game in _games() for path in shipped.policy_files(*game)]
    assert picked, "the checkout ships no policy at all"
    # every shipped policy of a game the commands take (han_solo's tables are results
    # no command reads yet: docs/han-solo.md)
    of_commands = [p for p in (ROOT / "results").glob("policy_*.npz")
                   if provenance.game_name(_header(p)) in spiel_game.GAMES]
    assert len(picked) == len(of_commands)
    for path in picked:
        assert f"solver/{shipped.PACKAGE_DATA}/{path.name}" in names, path.name
    if (ROOT / "docs" / "RULES.md").exists():
        assert zipfile.ZipFile(wheel).read("spiel_game/RULES.md") == \
            (ROOT / "docs" / "RULES.md").read_bytes()


def test_wheel_has_every_package_no_caches_and_no_oversized_file(wheel):
    infos = zipfile.ZipFile(wheel).infolist()
    names = {info.filename for info in infos}
    packages = [p.parent.relative_to(ROOT).as_posix() for top in ("spiel_game", "solver", "cli")
                for p in (ROOT / top).rglob("__init__.py")]
    for package in packages:
        assert f"{package}/__init__.py" in names, package
    assert not [n for n in names if "__pycache__" in n or n.endswith((".pyc", ".nbi", ".nbc"))]
    assert not [n for n in names if n.startswith(("tests/", "results/", "benchmarks/"))]
    assert max(info.file_size for info in infos) <= MAX_SHIPPED_BYTES


def test_installed_layout_finds_the_packaged_policies(wheel, tmp_path):
    """Unpacked like site-packages and run from elsewhere, the locator finds package data;
    from the checkout it finds results/."""
    site = tmp_path / "site-packages"
    zipfile.ZipFile(wheel).extractall(site)
    probe = ("from solver.policies import shipped; print(shipped.checkout_results()); "
             "print(shipped.shipped_folder()); "
             "print(*[p.name for p in shipped.policy_files('full', 'exalted_one', 2)]); "
             "from solver.provenance import code_version; print(code_version())")
    env = {**os.environ, "PYTHONPATH": str(site)}
    lines = subprocess.run([sys.executable, "-c", probe], cwd=tmp_path, env=env, check=True,
                           capture_output=True, text=True).stdout.splitlines()
    assert lines[0] == "None"
    assert Path(lines[1]) == site / "solver" / shipped.PACKAGE_DATA
    assert lines[2].split() == [p.name for p in shipped.policy_files("full", "exalted_one", 2)]
    # The code version the wheel was built from, recorded at build time (no git there).
    assert lines[3] == (site / "solver" / "CODE_VERSION").read_text().strip() != ""
    assert shipped.shipped_folder() == ROOT / "results"
