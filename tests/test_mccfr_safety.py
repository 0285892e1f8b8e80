"""MCCFR runs that cannot hurt their user: the default level, the memory limit, checkpoints
that survive a kill, the curve across resumes, budgets that must be positive."""

from __future__ import annotations

import math
import subprocess
import sys
import textwrap

import numpy as np
import pytest
from conftest import load
from typer.testing import CliRunner

from cli.main import app
from solver import provenance
from solver.abstraction.keys import LEVELS
from solver.exact.tree import build_tree
from solver.mccfr.checkpoint import read_checkpoint_header
from solver.mccfr.solver import MCCFRSolver
from solver.mccfr.table import Tables, claim_block
from solver.mccfr.train import default_level, parse_memory, train
from solver.policies import table as policy_file
from solver.policies.shipped import policy_files

runner = CliRunner()


def test_full_deck_defaults_to_the_shipped_level(tmp_path, monkeypatch):
    for agenda in ("exalted_one", "my_kind_of_scum", "jabbas_court", "rescue_mission"):
        shipped = policy_files("full", agenda, 2)[0].stem.rsplit("_", 1)[1]
        assert default_level(load(deck="full", agenda=agenda)) == shipped
    assert default_level(load(deck="full", agenda="jabbas_court")) == "counting"
    assert default_level(load(deck="full", players=3)) == "many"
    assert default_level(load(deck="small")) == "identity"
    monkeypatch.chdir(tmp_path)
    result = runner.invoke(app, ["solve", "--algorithm", "mccfr", "--deck", "full",
                                 "--iterations", "20", "--threads", "1"])
    assert result.exit_code == 0, result.output
    assert "abstraction: counting (the default for deck 'full'" in result.output
    path = tmp_path / "jabbas_palace_full_exalted_one_2p_mccfr_counting_20it.npz"
    assert policy_file.load_policy(path).header["abstraction"]["level"] == "counting"


def test_a_resumed_run_defaults_to_its_checkpoint_level(tmp_path):
    game = load(deck="small")
    train(game, LEVELS["coarse"], 50, None, threads=1, checkpoint=tmp_path / "run.npz")
    assert default_level(game, tmp_path / "run.npz") == "coarse"


def test_memory_limit_stops_cleanly_with_a_loadable_checkpoint(tmp_path):
    """Identity on the full deck (the issue's run) with a 4 MiB limit: the first doubling
    would pass it, so the run stops before it, saved; a larger limit resumes it."""
    game = load(deck="full")
    limit = parse_memory("4M")
    notices = []
    outcome = train(game, LEVELS["identity"], 100_000, None, threads=1,
                    checkpoint=tmp_path / "run.npz", max_memory=limit, log=notices.append)
    solver = outcome.solver
    assert outcome.stopped_by == "memory" and 0 < solver.iterations < 100_000
    assert solver.tables.nbytes <= limit
    assert "--max-memory" in outcome.message and "--resume" in outcome.message
    assert len(notices) == 1 and "by iteration 100,000, over the memory limit of 4.0 MiB" \
        in notices[0], notices
    resumed = MCCFRSolver.from_checkpoint(game, tmp_path / "run.npz")
    assert resumed.iterations == solver.iterations
    assert resumed.tables.num_keys == solver.tables.num_keys
    more = train(game, LEVELS["identity"], solver.iterations + 20, None,
                 checkpoint=tmp_path / "run.npz", resume=True, max_memory=parse_memory("64M"))
    assert more.stopped_by == "iterations" and more.solver.iterations == solver.iterations + 20
    with pytest.raises(ValueError, match="already take .* over the memory limit"):
        train(game, LEVELS["identity"], 10, None, max_memory=parse_memory("1M"))


def test_memory_limit_from_the_command_line(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    result = runner.invoke(app, ["solve", "--algorithm", "mccfr", "--deck", "full",
                                 "--abstraction", "identity", "--iterations", "100000",
                                 "--threads", "1", "--max-memory", "4M"])
    assert result.exit_code == 0, result.output
    assert "stopped by memory" in result.output and "--max-memory" in result.output
    written = list(tmp_path.glob("jabbas_palace_full_exalted_one_2p_mccfr_identity_*it.npz"))
    assert len(written) == 1 and policy_file.load_policy(written[0]).header[
        "stopped_by"] == "memory"
    for size in ("lots", "-1G", "0"):
        result = runner.invoke(app, ["solve", "--algorithm", "mccfr", "--deck", "tiny",
                                     "--max-memory", size])
        assert result.exit_code == 2 and "--max-memory" in result.output, result.output


_KILLED_WRITER = textwrap.dedent("""
    import os, sys
    from solver import provenance
    os.fsync = lambda fd: os._exit(9)  # killed (no clean-up runs) as the data goes to disk
    provenance.write_atomic(sys.argv[1], b"half a checkpoint")
""")


def test_a_resume_removes_what_a_killed_checkpoint_write_left(tmp_path):
    game = load(deck="small")
    path = tmp_path / "run.npz"
    first = train(game, LEVELS["identity"], 200, None, threads=1, checkpoint=path)
    killed = subprocess.run([sys.executable, "-c", _KILLED_WRITER, str(path)])
    assert killed.returncode == 9
    orphans = provenance.temporary_files(path)
    assert len(orphans) == 1 and orphans[0].name.startswith(".run.npz.")
    other = tmp_path / ".other.npz.x1y2.tmp"  # another file's: left alone
    other.write_bytes(b"")
    notices = []
    resumed = train(game, LEVELS["identity"], 300, None, checkpoint=path, resume=True,
                    log=notices.append)
    assert resumed.solver.iterations == 300  # the checkpoint before the kill was whole
    assert first.solver.iterations == 200
    assert provenance.temporary_files(path) == [] and other.exists()
    assert notices == [f"removed {orphans[0]}: left by a checkpoint write that did not "
                       "finish"]


def test_the_curve_continues_across_a_resume(tmp_path, monkeypatch):
    game = load(deck="tiny")
    tree = build_tree(game)
    path = tmp_path / "run.npz"
    first = train(game, LEVELS["identity"], 300, None, threads=1, checkpoint=path,
                  tree=tree)
    before = [p["iteration"] for p in first.curve]
    assert before == [1, 2, 5, 10, 20, 50, 100, 200, 300]
    resumed = train(game, LEVELS["identity"], 1000, None, checkpoint=path, resume=True,
                    tree=tree)
    iterations = [p["iteration"] for p in resumed.curve]
    assert iterations == before + [500, 1000]
    assert resumed.curve[:len(before)] == first.curve
    # The command line's CSV after a resume keeps the points before it.
    monkeypatch.chdir(tmp_path)
    args = ["solve", "--algorithm", "mccfr", "--deck", "tiny", "--threads", "1",
            "--checkpoint", "cli.npz", "--out", "policy.npz"]
    assert runner.invoke(app, [*args, "--iterations", "300"]).exit_code == 0
    result = runner.invoke(app, [*args, "--iterations", "1000", "--resume"])
    assert result.exit_code == 0, result.output
    rows = (tmp_path / "policy.csv").read_text().splitlines()
    assert [int(r.split(",")[0]) for r in rows[1:]] == [1, 2, 5, 10, 20, 50, 100, 200, 300,
                                                         500, 1000]


def test_checkpoints_carry_the_provenance_header_and_exact_seconds(tmp_path):
    game = load(deck="small")
    solver = MCCFRSolver(game, seed=3)
    solver.run(300)
    solver.seconds += 1e-7  # not a multiple of 0.01: the header's seconds is rounded
    solver.save_checkpoint(tmp_path / "run.npz")
    header = read_checkpoint_header(tmp_path / "run.npz")
    assert set(provenance.HEADER_FIELDS) <= set(header)
    assert provenance.game_parameters(header) == dict(game.get_parameters())
    assert header["seconds"] == round(solver.seconds, 2)
    assert MCCFRSolver.from_checkpoint(game, tmp_path / "run.npz").seconds == solver.seconds


def test_used_slots_put_back_every_key_in_its_slot():
    """A cluster that wraps around the end of the table comes back where it was."""
    for seed in range(20):
        tables = Tables.empty(capacity=32, values=512)
        rng = np.random.default_rng(seed)
        keys = rng.choice(np.arange(1, 10_000), 15, replace=False)
        keys[:4] = [31 + 32 * k for k in range(1, 5)]  # home slot 31: wraps to 0, 1, 2
        for key in keys:
            claim_block(tables.slots, tables.regret, tables.meta, key, 3, False)
        used_keys, entries = tables.used_slots()
        again = Tables.from_used_slots(used_keys, entries, tables.capacity, tables.regret,
                                       tables.strategy_sum, tables.meta)
        assert np.array_equal(again.slots, tables.slots)


@pytest.mark.parametrize("budget", [{"iterations": 0, "seconds": None},
                                    {"iterations": -5, "seconds": None},
                                    {"iterations": None, "seconds": 0.0},
                                    {"iterations": None, "seconds": -1.0},
                                    {"iterations": 10, "seconds": math.nan},
                                    {"iterations": None, "seconds": math.inf}])
def test_budgets_must_be_positive(budget):
    with pytest.raises(ValueError, match="must be a positive"):
        train(load(deck="tiny"), LEVELS["identity"], threads=1, **budget)


def test_no_zero_iteration_result():
    solver = MCCFRSolver(load(deck="tiny"))
    for iterations in (0, -1):
        with pytest.raises(ValueError, match="iterations must be a positive whole number"):
            solver.run(iterations)
    assert solver.iterations == 0


def test_a_format_2_checkpoint_still_resumes(tmp_path):
    """The earlier layout (every slot's key, offset and count; the game directly under
    "game") resumes to the same tables as the current one."""
    import json

    game = load(deck="small")
    solver = MCCFRSolver(game, seed=7)
    solver.run(500)
    t = solver.tables
    used = int(t.meta[0])
    header = {"format": "jabbas-palace-mccfr-checkpoint", "format_version": 2,
              "game": dict(game.get_parameters()), "level": 0, "seed": 7, "threads": 1,
              "iterations": 500, "seconds": solver.seconds, "keys": t.num_keys}
    np.savez(tmp_path / "v2.npz", header=np.array(json.dumps(header)), keys=t.keys,
             offsets=t.offsets, num_actions=t.num_actions, regret=t.regret[:used],
             strategy_sum=t.strategy_sum[:used], values_capacity=np.int64(len(t.regret)),
             meta=t.meta, rngs=solver.rngs)
    solver.save_checkpoint(tmp_path / "v3.npz")
    old, new = (MCCFRSolver.from_checkpoint(game, tmp_path / name)
                for name in ("v2.npz", "v3.npz"))
    for resumed in (old, new):
        assert np.array_equal(resumed.tables.slots, t.slots)
        assert np.array_equal(resumed.tables.regret, t.regret)
        assert resumed.iterations == 500 and resumed.seconds == solver.seconds
    assert (tmp_path / "v3.npz").stat().st_size < (tmp_path / "v2.npz").stat().st_size
