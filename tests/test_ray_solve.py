"""`jabba solve --algorithm mccfr --ray`: MCCFR on Ray workers (solver/mccfr/distributed.py).

The workers load the kernel from numba's cache, so the default run has one short local
2-worker solve and a solve with a worker killed (SIGKILL) that ends with the tables of an
unkilled run (each start of a local cluster costs ~5-10 s); determinism with resume,
Ctrl-C, the memory limit and an unreachable address are slow tests (-m slow).
"""

from __future__ import annotations

import json
import os
import re
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path

import numpy as np
import pytest

pytest.importorskip("ray")

from typer.testing import CliRunner  # noqa: E402

from cli.main import app  # noqa: E402

ROOT = Path(__file__).resolve().parent.parent


def _jabba(*args: str, cwd: Path) -> subprocess.Popen:
    # Unbuffered: the test reads the worker pids while the run goes on.
    env = {**os.environ, "PYTHONPATH": str(ROOT), "COLUMNS": "200", "PYTHONUNBUFFERED": "1"}
    return subprocess.Popen([sys.executable, "-m", "cli.main", *args], cwd=cwd, env=env,
                            stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)


def _run(args: list[str], cwd: Path, kill_after_round: bool = False
         ) -> tuple[int, str, int | None]:
    """Run `jabba` (this checkout); optionally SIGKILL worker 1 once 20,000 iterations
    have been merged (the curve's point there). Returns (exit code, output, the killed
    pid)."""
    process = _jabba(*args, cwd=cwd)
    lines, pid, killed = [], None, None
    timer = threading.Timer(600, process.kill)  # never hang the suite
    timer.start()
    try:
        for line in process.stdout:
            lines.append(line)
            match = re.search(r"worker 1 \(pid (\d+)", line)
            if match and pid is None:
                pid = int(match.group(1))
            if kill_after_round and killed is None and pid and "iteration     20,000" in line:
                killed = pid
                os.kill(killed, signal.SIGKILL)
        code = process.wait()
    finally:
        timer.cancel()
    return code, "".join(lines), killed


def _policy_header(path: Path) -> dict:
    with np.load(path, allow_pickle=False) as data:
        return json.loads(str(data["header"]))


def _single_process_exploitability(iterations: int) -> float:
    import spiel_game
    from solver.exact.tree import build_tree
    from solver.mccfr.train import train

    game = spiel_game.load(deck="tiny")
    outcome = train(game, 0, iterations, None, threads=1, seed=1, tree=build_tree(game))
    return outcome.curve[-1]["exploitability"]


def test_ray_solve_writes_a_policy_close_to_one_process(tmp_path):
    iterations = 600_000
    # The one-process reference runs while the cluster starts (mostly waiting).
    reference = {}
    worker = threading.Thread(target=lambda: reference.setdefault(
        "value", _single_process_exploitability(iterations)))
    worker.start()
    code, output, _ = _run(
        ["solve", "--algorithm", "mccfr", "--deck", "tiny", "--ray", "--ray-workers", "2",
         "--ray-round", "500", "--iterations", str(iterations), "--seed", "1",
         "--checkpoint", "ck.npz", "--out", "policy.npz"], tmp_path)
    assert code == 0, output
    assert re.search(r"worker 0 \(pid \d+ on [^)]*\), worker 1 \(pid \d+", output), output
    assert f"{iterations:,} iterations" in output and "stopped by iterations" in output
    header = _policy_header(tmp_path / "policy.npz")
    assert header["ray"]["workers"] == 2 and header["ray"]["restarts"] == 0
    assert header["iterations"] == iterations and header["threads"] == 2
    assert " solve " in header["command"] and "--ray-workers 2" in header["command"]
    # A valid policy: it loads, with every trained key.
    from solver.policies.table import load_policy

    policy = load_policy(tmp_path / "policy.npz")
    assert len(policy) == header["keys"] > 0
    from solver.mccfr.checkpoint import read_checkpoint_header

    checkpoint = read_checkpoint_header(tmp_path / "ck.npz")
    assert checkpoint["iterations"] == iterations and checkpoint["ray"]["workers"] == 2
    # Exactness: the same order as one process with as many iterations. Measured (seeds
    # 1, 2, 3; 600,000 iterations, rounds of 500): Ray 2 workers 5.5e-4, 9.9e-4, 7.8e-4,
    # one process 7.3e-4, 7.9e-4, 1.08e-3 (ratio at most 1.25); bound 3x.
    ray_value = header["curve"][-1]["exploitability"]
    worker.join()
    assert ray_value < 3 * reference["value"], (ray_value, reference)


@pytest.mark.parametrize("args, message", [
    (["--algorithm", "cfr", "--ray"], "Ray runs only --algorithm mccfr"),
    (["--algorithm", "dcfr", "--ray", "auto"], "Ray runs only --algorithm mccfr"),
    (["--algorithm", "mccfr", "--ray-workers", "2"], "applies only with --ray"),
    (["--algorithm", "mccfr", "--ray", "--threads", "2"], "applies only without --ray"),
    (["--algorithm", "mccfr", "--ray", "nonsense"], "give auto, or the head node's HOST:PORT"),
    (["--algorithm", "mccfr", "--ray", "127.0.0.1:9"], "no Ray cluster answers at 127.0.0.1:9"),
    # No `ray start` runs on this machine during the tests.
    (["--algorithm", "mccfr", "--ray", "auto"], "cannot join the Ray cluster"),
])
def test_ray_refusals(tmp_path, args, message):
    started = time.perf_counter()
    result = CliRunner().invoke(app, ["solve", "--deck", "tiny", "--iterations", "10",
                                      "--out", str(tmp_path / "p.npz"), *args])
    assert result.exit_code == 2, result.output
    assert message in " ".join(re.sub("[│╭╮╰╯─]", " ", result.output).split()), result.output
    assert time.perf_counter() - started < 30
    assert not (tmp_path / "p.npz").exists()


def test_auto_with_a_stale_address_is_refused_at_once(tmp_path, monkeypatch):
    """`auto` resolves to RAY_ADDRESS (or the address a killed `ray start` left in Ray's
    temporary folder): a dead one is refused, not waited for (ray.init took minutes)."""
    monkeypatch.setenv("RAY_ADDRESS", "127.0.0.1:9")
    started = time.perf_counter()
    result = CliRunner().invoke(app, ["solve", "--deck", "tiny", "--algorithm", "mccfr",
                                      "--iterations", "10", "--ray", "auto",
                                      "--out", str(tmp_path / "p.npz")])
    assert result.exit_code == 2
    # Ray's lookup may name the machine's own address for 127.0.0.1.
    assert re.search(r"--ray auto: no Ray cluster answers at [\d.]+:9 ", " ".join(
        re.sub("[│╭╮╰╯─]", " ", result.output).split())), result.output
    assert time.perf_counter() - started < 30


@pytest.mark.slow
def test_unreachable_address_is_refused_within_30_s(tmp_path):
    """A host that never answers (a TEST-NET-1 address: packets dropped, no refusal)."""
    started = time.perf_counter()
    result = CliRunner().invoke(app, ["solve", "--deck", "tiny", "--algorithm", "mccfr",
                                      "--iterations", "10", "--ray", "192.0.2.123:6379",
                                      "--out", str(tmp_path / "p.npz")])
    assert result.exit_code == 2 and "no Ray cluster answers" in result.output
    assert time.perf_counter() - started < 30


@pytest.mark.slow
def test_ray_run_is_deterministic_and_resumes_exactly(tmp_path):
    """Two runs with one seed and worker count give the same tables; so does a run
    stopped at a round boundary and resumed."""
    from solver.mccfr.checkpoint import read_checkpoint
    import spiel_game

    game = spiel_game.load(deck="tiny")
    base = ["solve", "--algorithm", "mccfr", "--deck", "tiny", "--ray", "--ray-workers",
            "2", "--ray-round", "500", "--seed", "3"]
    for name, budgets in (("whole", [8000]), ("resumed", [4000, 8000])):
        for i, budget in enumerate(budgets):
            code, output, _ = _run([*base, "--iterations", str(budget), "--checkpoint",
                                    f"{name}.npz", "--out", f"{name}_p.npz",
                                    *(["--resume"] if i else [])], tmp_path)
            assert code == 0, output
    _, whole, whole_rngs = read_checkpoint(tmp_path / "whole.npz", game)
    _, resumed, resumed_rngs = read_checkpoint(tmp_path / "resumed.npz", game)
    assert np.array_equal(whole.used_slots()[0], resumed.used_slots()[0])
    assert np.array_equal(whole.regret, resumed.regret)
    assert np.array_equal(whole.strategy_sum, resumed.strategy_sum)
    assert np.array_equal(whole_rngs, resumed_rngs)


def test_a_killed_worker_changes_nothing(tmp_path):
    """The restarted worker redoes its round from the same tables and stream state: the
    run with a SIGKILL ends with the same tables as the run without."""
    from solver.mccfr.checkpoint import read_checkpoint
    import spiel_game

    game = spiel_game.load(deck="tiny")
    tables = {}
    for kill in (False, True):
        code, output, killed = _run(
            ["solve", "--algorithm", "mccfr", "--deck", "tiny", "--ray", "--ray-workers",
             "2", "--ray-round", "500", "--iterations", "200000", "--seed", "5",
             "--checkpoint", f"{kill}.npz", "--out", f"{kill}_p.npz"], tmp_path, kill)
        assert code == 0 and (killed is not None) == kill, output
        tables[kill] = read_checkpoint(tmp_path / f"{kill}.npz", game)[1]
        if kill:  # reported by name, restarted, and the run went on to its budget
            assert re.search(rf"worker 1 \(pid {killed} on [^)]*\) died", output), output
            assert "restarting it from the merged tables" in output
            assert "200,000 iterations" in output and "stopped by iterations" in output
            assert _policy_header(tmp_path / "True_p.npz")["ray"]["restarts"] == 1
    assert np.array_equal(tables[False].regret, tables[True].regret)
    assert np.array_equal(tables[False].strategy_sum, tables[True].strategy_sum)


@pytest.mark.slow
@pytest.mark.parametrize("stop", [signal.SIGINT, signal.SIGTERM])
def test_ctrl_c_or_kill_keeps_the_merged_rounds(tmp_path, stop):
    process = _jabba("solve", "--algorithm", "mccfr", "--deck", "small", "--ray",
                     "--ray-workers", "2", "--ray-round", "200", "--iterations", "10000000",
                     "--checkpoint", "ck.npz", "--out", "p.npz", cwd=tmp_path)
    lines = []
    for line in process.stdout:
        lines.append(line)
        if "worker 1 (pid" in line:
            time.sleep(3.0)
            process.send_signal(stop)
            break
    lines += process.stdout.readlines()
    assert process.wait(timeout=120) == 0, "".join(lines)
    output = "".join(lines)
    assert "stopped by interrupted" in output
    from solver.mccfr.checkpoint import read_checkpoint_header

    header = read_checkpoint_header(tmp_path / "ck.npz")
    assert header["iterations"] > 0 and header["ray"]["workers"] == 2
    assert (tmp_path / "p.npz").exists()


@pytest.mark.slow
def test_max_memory_per_worker_stops_with_a_checkpoint(tmp_path):
    code, output, _ = _run(["solve", "--algorithm", "mccfr", "--deck", "full", "--ray",
                            "--abstraction", "coarse", "--ray-workers", "2", "--iterations",
                            "100000", "--ray-round", "10", "--max-memory", "8M",
                            "--checkpoint", "ck.npz", "--out", "p.npz"], tmp_path)
    assert code == 0, output
    assert "stopped by memory" in output and "larger --max-memory" in output
    assert (tmp_path / "ck.npz").exists() and (tmp_path / "p.npz").exists()
