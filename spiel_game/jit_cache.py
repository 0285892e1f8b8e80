"""A guard against stale numba caches of compiled code from other files.

numba checks a cached function against its own file only, but a cached function holds the
code of every compiled function it calls from other files (and all the more of those
inlined with `inline="always"`). After an edit of spiel_game/engine.py, say, the cached
rollouts, filters and kernels of solver/ would go on running the old engine.

So at import (spiel_game/__init__.py), before any compiled function runs, the sources of
every module of spiel_game/ and solver/ are hashed and compared with the hashes recorded
when the caches were last checked: compiled code also bakes in the constants of modules
without any (spiel_game/layout.py's offsets, cards.py's tables). Where a source changed,
the caches of every compiled module that is it or imports it, directly or not, are
deleted: numba then compiles them anew. The check reads ~150 files (a few ms); the import
scan runs only after a change.
Set JABBA_JIT_CACHE_CHECK=0 to skip it.
"""

from __future__ import annotations

import ast
import hashlib
import json
import os
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
PACKAGES = ("spiel_game", "solver")
RECORD = ROOT / "spiel_game" / "__pycache__" / "jit_sources.json"


def package_modules() -> dict[str, Path]:
    """{module name: file} of every module of the packages."""
    found = {}
    for package in PACKAGES:
        for path in sorted((ROOT / package).rglob("*.py")):
            parts = path.relative_to(ROOT).with_suffix("").parts
            found[".".join(parts[:-1] if parts[-1] == "__init__" else parts)] = path
    return found


def compiled_modules() -> dict[str, Path]:
    """{module name: file} of the modules whose source compiles code (numba's njit)."""
    return {m: p for m, p in package_modules().items() if b"njit" in p.read_bytes()}


def module_imports(path: Path, package_of: str) -> set[str]:
    """The module names `path` imports, lazily or not (absolute and relative)."""
    names = set()
    for node in ast.walk(ast.parse(path.read_bytes())):
        if isinstance(node, ast.Import):
            names.update(a.name for a in node.names)
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                parts = package_of.split(".")[:len(package_of.split(".")) - node.level + 1]
                base = ".".join(parts + ([base] if base else []))
            names.add(base)
            names.update(f"{base}.{a.name}" for a in node.names)
    return names


def compiled_into(path: Path) -> set[str]:
    """The modules a module says its compiled code is compiled into, by a top-level
    `COMPILED_INTO = ("solver.mccfr.kernel", ...)`: a function set built here and taken
    as an argument by a kernel there (spiel_game/interface.py) puts this module's code in
    the kernel's cache, though the kernel's module does not import it (a lower layer
    imports no higher one: docs/design.md "Layers of solver/")."""
    for node in ast.parse(path.read_bytes()).body:
        if (isinstance(node, ast.Assign) and len(node.targets) == 1
                and isinstance(node.targets[0], ast.Name)
                and node.targets[0].id == "COMPILED_INTO"):
            return {e.value for e in getattr(node.value, "elts", ())
                    if isinstance(e, ast.Constant) and isinstance(e.value, str)}
    return set()


def stale_modules(changed: set[str], modules: dict[str, Path]) -> set[str]:
    """`changed` and every module of `modules` that imports one of them, directly or
    not, or that one of them is compiled into (`compiled_into`)."""
    importers: dict[str, set[str]] = {m: set() for m in modules}
    for m, path in modules.items():
        package = m if path.name == "__init__.py" else m.rpartition(".")[0]
        for name in module_imports(path, package):
            if name in importers and name != m:
                importers[name].add(m)
        importers[m].update(compiled_into(path) - {m})
    stale, todo = set(), list(changed)
    while todo:
        m = todo.pop()
        if m not in stale:
            stale.add(m)
            todo.extend(importers.get(m, ()))
    return stale


def _caches_of(path: Path) -> list[Path]:
    """numba's index and data files of the functions of `path` (its __pycache__)."""
    folder = path.parent / "__pycache__"
    if not folder.is_dir():
        return []
    return [f for f in folder.iterdir()
            if f.name.startswith(path.stem + ".") and f.suffix in (".nbi", ".nbc")]


def check() -> list[str]:
    """Delete the caches made stale by an edited source; return the compiled modules
    cleared."""
    if os.environ.get("JABBA_JIT_CACHE_CHECK", "1") == "0":
        return []
    modules = package_modules()
    sources = {m: p.read_bytes() for m, p in modules.items()}
    now = {m: hashlib.sha256(text).hexdigest() for m, text in sources.items()}
    try:
        before = json.loads(RECORD.read_text())
    except (OSError, ValueError):
        before = None
    if before == now:
        return []
    if before is None:  # no record: which caches are current is unknown
        changed = set(modules)
    else:
        changed = {m for m in now if before.get(m) != now[m]}
    cleared = sorted(m for m in stale_modules(changed, modules) if b"njit" in sources[m])
    for m in cleared:
        for f in _caches_of(modules[m]):
            f.unlink(missing_ok=True)
    try:
        RECORD.parent.mkdir(exist_ok=True)
        fd, tmp = tempfile.mkstemp(dir=RECORD.parent, suffix=".tmp")
        with os.fdopen(fd, "w") as f:
            json.dump(now, f)
        os.replace(tmp, RECORD)
    except OSError:  # a read-only install: numba keeps its caches elsewhere, or none
        pass
    return cleared
