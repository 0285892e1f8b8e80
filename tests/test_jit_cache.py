"""The guard against stale numba caches (spiel_game/jit_cache.py)."""

from __future__ import annotations

import json

from spiel_game import jit_cache


def test_an_engine_edit_makes_every_compiled_importer_stale():
    modules = jit_cache.compiled_modules()
    assert {"spiel_game.engine", "solver.belief.filter", "solver.mccfr.kernel",
            "solver.hint.advice"} <= set(modules)
    stale = jit_cache.stale_modules({"spiel_game.engine"}, modules)
    assert {"spiel_game.engine", "solver.belief.filter", "solver.mccfr.kernel",
            "solver.search.subgame", "solver.hint.advice"} <= stale
    # The hint's rollouts are called from no other compiled module: only their own caches.
    assert jit_cache.stale_modules({"solver.hint.advice"}, modules) == {"solver.hint.advice"}
    # The MCCFR kernel takes the engines as arguments (spiel_game/interface.py), so it holds
    # every engine's code and every game's hooks: its module imports the Love Letter
    # engine's (through solver/mccfr/games.py, which compiles nothing: the check follows
    # every module); Han Solo's hooks, a layer above, name the kernel in COMPILED_INTO.
    everything = jit_cache.package_modules()
    for engine_or_hooks in ("spiel_game.han_solo.engine", "solver.han_solo.abstraction",
                            "solver.han_solo.mccfr", "solver.mccfr.hooks",
                            "spiel_game.interface"):
        assert "solver.mccfr.kernel" in jit_cache.stale_modules({engine_or_hooks}, everything)
    # Likewise the play-out loop and the tournament hold every engine's code and every
    # game's play-out hooks (each hooks module, a layer above, names them in COMPILED_INTO).
    for engine_or_hooks in ("spiel_game.han_solo.engine", "spiel_game.engine",
                            "solver.han_solo.playout", "solver.policies.playout",
                            "solver.sim.hooks"):
        assert {"solver.sim.playout", "solver.evaluation.tournament",
                "solver.evaluation.lbr"} <= jit_cache.stale_modules({engine_or_hooks},
                                                                    everything)
    # The particle filter's kernel and LBR take each engine's filter hooks as arguments:
    # the hooks modules name them in COMPILED_INTO.
    for engine_or_hooks in ("spiel_game.han_solo.engine", "spiel_game.engine",
                            "solver.han_solo.filter", "solver.belief.filter"):
        assert {"solver.belief.kernel", "solver.evaluation.lbr"} <= jit_cache.stale_modules(
            {engine_or_hooks}, everything)
    # The layout's offsets are compiled into the engine and all that calls it.
    assert {"spiel_game.engine", "solver.mccfr.kernel"} <= jit_cache.stale_modules(
        {"spiel_game.layout"}, everything)


def _tree(tmp_path, monkeypatch):
    """A package `solver` of two compiled modules, `top` importing `base`, each with a
    numba cache, and the guard pointed at it."""
    pkg = tmp_path / "solver"
    (pkg / "__pycache__").mkdir(parents=True)
    (tmp_path / "spiel_game").mkdir()
    (pkg / "__init__.py").write_text("")
    (pkg / "consts.py").write_text("SIZE = 3\n")  # no compiled code, constants only
    (pkg / "base.py").write_text("from numba import njit\nfrom solver.consts import SIZE\n")
    (pkg / "top.py").write_text("from numba import njit\nfrom solver.base import f\n")
    for stem in ("base", "top"):
        for suffix in (".f-1.py311.nbi", ".f-1.py311.1.nbc"):
            (pkg / "__pycache__" / (stem + suffix)).write_bytes(b"x")
    monkeypatch.setattr(jit_cache, "ROOT", tmp_path)
    monkeypatch.setattr(jit_cache, "RECORD",
                        tmp_path / "spiel_game" / "__pycache__" / "jit_sources.json")
    return pkg


def _caches(pkg) -> set[str]:
    return {f.name.split(".")[0] for f in (pkg / "__pycache__").iterdir()}


def test_the_caches_of_an_edited_module_and_its_importers_are_deleted(tmp_path, monkeypatch):
    pkg = _tree(tmp_path, monkeypatch)
    assert jit_cache.check() == ["solver.base", "solver.top"]  # no record: unknown, cleared
    assert json.loads(jit_cache.RECORD.read_text()).keys() == {"solver", "solver.consts",
                                                               "solver.base", "solver.top"}
    for stem in ("base", "top"):
        (pkg / "__pycache__" / f"{stem}.f-1.py311.nbi").write_bytes(b"x")
    assert jit_cache.check() == [] and _caches(pkg) == {"base", "top"}  # nothing changed
    (pkg / "top.py").write_text("from numba import njit\nfrom solver.base import f  # edited\n")
    assert jit_cache.check() == ["solver.top"] and _caches(pkg) == {"base"}
    (pkg / "__pycache__" / "top.f-1.py311.nbi").write_bytes(b"x")
    (pkg / "base.py").write_text("from numba import njit  # edited\n"
                                 "from solver.consts import SIZE\n")
    assert jit_cache.check() == ["solver.base", "solver.top"] and _caches(pkg) == set()
    for stem in ("base", "top"):
        (pkg / "__pycache__" / f"{stem}.f-1.py311.nbi").write_bytes(b"x")
    (pkg / "consts.py").write_text("SIZE = 4\n")  # a constant compiled into both
    assert jit_cache.check() == ["solver.base", "solver.top"] and _caches(pkg) == set()


def test_the_check_can_be_switched_off(tmp_path, monkeypatch):
    pkg = _tree(tmp_path, monkeypatch)
    monkeypatch.setenv("JABBA_JIT_CACHE_CHECK", "0")
    assert jit_cache.check() == [] and _caches(pkg) == {"base", "top"}


def test_a_module_compiled_into_a_kernel_it_does_not_import(tmp_path, monkeypatch):
    """`COMPILED_INTO`: a hooks module whose function set a kernel takes as an argument
    makes the kernel stale, though the kernel does not import it."""
    pkg = _tree(tmp_path, monkeypatch)
    (pkg / "hooks.py").write_text('from numba import njit\nCOMPILED_INTO = ("solver.top",)\n')
    assert jit_cache.compiled_into(pkg / "hooks.py") == {"solver.top"}
    jit_cache.check()
    (pkg / "__pycache__" / "top.f-1.py311.nbi").write_bytes(b"x")
    (pkg / "hooks.py").write_text('from numba import njit  # edited\n'
                                  'COMPILED_INTO = ("solver.top",)\n')
    assert jit_cache.check() == ["solver.hooks", "solver.top"] and "top" not in _caches(pkg)
