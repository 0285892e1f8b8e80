"""The build step that puts data kept outside the packages into the wheel.

pyproject.toml holds the whole configuration; this file only extends `build_py`, because
setuptools' package data must lie inside a package folder and the repository keeps these
files elsewhere:

- results/policy_*.npz -> solver/shipped/ (the shipped table policies; where the code
  looks for them: solver/policies/shipped.py)
- results/match_values_*.json -> solver/shipped/ (the match values the hint's --score
  reads: solver/match/value.py `shipped_match_values`)
- docs/RULES.md -> spiel_game/RULES.md (the rules document; spiel_game/rulebook.py)

An editable install copies nothing: it reads both from the checkout.
"""

from __future__ import annotations

import shutil
import sys
from pathlib import Path

from setuptools import setup
from setuptools.command.build_py import build_py

ROOT = Path(__file__).resolve().parent
sys.path.insert(0, str(ROOT))  # solver.provenance, for the code version
# (folder in the repository, file pattern, folder in the package tree)
SHIPPED_DATA = (("results", "policy_*.npz", "solver/shipped"),
                ("results", "match_values_*.json", "solver/shipped"),
                ("docs", "RULES.md", "spiel_game"))


class BuildPyWithShippedData(build_py):
    """build_py, then copy SHIPPED_DATA into the build tree."""

    def run(self) -> None:
        editable = getattr(self, "editable_mode", False)
        build_lib = Path(self.build_lib).resolve()
        if not editable and build_lib not in (ROOT, *ROOT.parents):
            # A clean build: a stale build/ (from before a file moved or was deleted)
            # must not put that file into the wheel.
            shutil.rmtree(build_lib, ignore_errors=True)
        super().run()
        if editable:
            return
        for source, pattern, target in SHIPPED_DATA:
            for path in sorted((ROOT / source).glob(pattern)):
                self.mkpath(str(Path(self.build_lib, target)))
                self.copy_file(str(path), str(Path(self.build_lib, target, path.name)))
        # The installed package cannot ask git: record the code version it was built from.
        from solver.provenance import BUILT_CODE_VERSION, code_version
        Path(self.build_lib, "solver", BUILT_CODE_VERSION).write_text(code_version() + "\n")


setup(cmdclass={"build_py": BuildPyWithShippedData})
