"""The `jabba` command line: commands run, write what they say, and refuse bad input."""

from __future__ import annotations

import json
import re
import sys

from typer.testing import CliRunner

from cli.main import app
from solver import provenance as results

runner = CliRunner()


def test_play_prints_a_round_and_rules_prints_a_card_with_its_rulings():
    played = runner.invoke(app, ["play", "--seed", "3", "--players", "3"])
    assert played.exit_code == 0, played.output
    assert "returns (margin)" in played.output and "phase: terminal" in played.output
    ruled = runner.invoke(app, ["rules", "threepio"])
    assert ruled.exit_code == 0 and ruled.output.startswith("C-3PO (1, Rebel, 1 copy)")
    assert "R6. C-3PO's miss" in ruled.output  # the ruling from docs/RULES.md


def test_bad_input_says_what_is_allowed():
    cases = [(["play", "--players", "7"], "from 2 to 6"),
             (["rules", "chewbaca"], "Did you mean Chewbacca"),
             (["solve", "--algorithm", "cfr++"], "allowed are cfr, cfr+, dcfr, mccfr"),
             (["solve", "--deck", "full"], "use --algorithm mccfr"),
             (["solve", "--algorithm", "mccfr", "--abstraction", "finest"],
              "allowed are identity, counting, fine, coarse"),
             (["exploit", "--agendas", "galactic"], "unknown agenda")]
    for args, message in cases:
        result = runner.invoke(app, args)
        assert result.exit_code != 0, args
        text = " ".join(re.sub("[\u2500-\u257f]", " ", result.output).split())  # unbox
        assert message in text, (args, result.output)


def test_solve_writes_a_self_describing_result(tmp_path, monkeypatch):
    out = tmp_path / "tiny.json.gz"
    args = ["solve", "--deck", "tiny", "--algorithm", "dcfr", "--iterations", "200",
            "--out", str(out)]
    monkeypatch.chdir(tmp_path)
    monkeypatch.setattr(sys, "argv", ["/opt/bin/jabba", *args])  # as a shell runs it
    result = runner.invoke(app, args)
    assert result.exit_code == 0, result.output
    record = results.read_json(out)
    assert set(results.HEADER_FIELDS) <= set(record)
    assert record["command"] == "jabba " + " ".join(args[:-1]) + " tiny.json.gz"
    assert record["game"]["parameters"]["deck"] == "tiny" and record["cores"] >= 1
    assert record["iterations"] == 200 and record["algorithm"] == "dcfr"
    assert record["exploitability"] < 1e-3
    assert abs(record["lp_game_value_player0"] - 41 / 120) < 1e-6  # tiny's value (LP)


def test_mccfr_solve_writes_a_policy_and_its_curve(tmp_path):
    from solver.policies.table import load_policy
    out = tmp_path / "policy.npz"
    result = runner.invoke(app, ["solve", "--deck", "tiny", "--algorithm", "mccfr",
                                 "--iterations", "2000", "--threads", "1", "--out", str(out)])
    assert result.exit_code == 0, result.output
    policy = load_policy(out)
    assert policy.header["iterations"] == 2000 and len(policy) == 108
    assert set(results.HEADER_FIELDS) <= set(policy.header)
    assert out.with_suffix(".png").exists() and out.with_suffix(".csv").exists()


def test_exploit_writes_table_plot_and_record(tmp_path):
    result = runner.invoke(app, ["exploit", "--deck", "tiny", "--agendas", "exalted_one",
                                 "--iterations", "50", "--out-dir", str(tmp_path)])
    assert result.exit_code == 0, result.output
    table = (tmp_path / "exploitability_tiny_2p.md").read_text()
    assert "| card_counter |" in table and "| dcfr |" in table
    record = json.loads((tmp_path / "exploitability_tiny_2p.json").read_text())
    assert {r["policy"] for r in record["rows"]} >= {"uniform", "cfr", "cfr+", "dcfr"}
    assert set(results.HEADER_FIELDS) <= set(record) and record["metric"] == "exploitability"
    assert record["game"]["parameters"]["agenda"] == ["exalted_one"]
    assert (tmp_path / "exploitability_tiny_2p.png").stat().st_size > 10_000


def _unboxed(output: str) -> str:
    return " ".join(re.sub("[\u2500-\u257f]", " ", output).split())


def test_version_prints_the_package_and_code_versions():
    from importlib.metadata import version

    result = runner.invoke(app, ["--version"])
    assert result.exit_code == 0, result.output
    assert result.output == (f"jabba {version('jabbas-palace-solver')} "
                             f"(code {results.code_version()})\n")


def _checkout(tmp_path, monkeypatch, installed: bool = False):
    """Point the locator of shipped files at a stand-in checkout (or installed package)."""
    from solver.policies import shipped

    root = tmp_path / "checkout"
    (root / "results").mkdir(parents=True)
    if not installed:
        (root / "pyproject.toml").write_text("")
    monkeypatch.setattr(shipped, "_CHECKOUT", root)
    return root / "results"


def test_solve_and_exploit_write_into_the_working_directory_by_default(tmp_path,
                                                                       monkeypatch):
    shipped_folder = _checkout(tmp_path, monkeypatch)
    work = tmp_path / "work"
    work.mkdir()
    monkeypatch.chdir(work)
    for args in (["solve", "--deck", "tiny", "--algorithm", "cfr+", "--iterations", "30"],
                 ["solve", "--deck", "tiny", "--algorithm", "mccfr", "--iterations", "300",
                  "--threads", "1"],
                 ["exploit", "--deck", "tiny", "--agendas", "exalted_one", "--iterations",
                  "20"]):
        result = runner.invoke(app, args)
        assert result.exit_code == 0, (args, result.output)
    written = sorted(p.name for p in work.iterdir())
    assert "jabbas_palace_tiny_exalted_one_2p_cfr+_30it.json.gz" in written
    assert "jabbas_palace_tiny_exalted_one_2p_mccfr_identity_300it.npz" in written
    assert "exploitability_tiny_2p.json" in written
    assert list(shipped_folder.iterdir()) == []


def test_ship_writes_where_the_readers_look(tmp_path, monkeypatch):
    from solver.evaluation.report import shipped_table
    from solver.policies.table import load_policy, shipped_policies

    shipped_folder = _checkout(tmp_path, monkeypatch)
    monkeypatch.chdir(tmp_path)
    result = runner.invoke(app, ["solve", "--deck", "tiny", "--algorithm", "mccfr",
                                 "--abstraction", "fine", "--iterations", "300",
                                 "--threads", "1", "--ship"])
    assert result.exit_code == 0, result.output
    path = shipped_folder / "policy_tiny_exalted_one_2p_fine.npz"
    assert shipped_policies("tiny", "exalted_one", 2) == [path]
    assert shipped_table("tiny", "exalted_one", 2) == path
    assert load_policy(path).header["iterations"] == 300
    result = runner.invoke(app, ["solve", "--deck", "tiny", "--algorithm", "dcfr",
                                 "--iterations", "10", "--no-lp", "--ship"])
    assert result.exit_code == 0, result.output
    assert results.read_json(shipped_folder / "solve_tiny_exalted_one_2p_dcfr.json.gz")[
        "iterations"] == 10


def test_ship_is_refused_when_it_cannot_write_a_shipped_file(tmp_path, monkeypatch):
    _checkout(tmp_path, monkeypatch, installed=True)
    refused = [
        (["solve", "--ship"], "--ship writes into results/ of a source checkout"),
        (["exploit", "--ship"], "this code runs from an installed package"),
        (["evaluate", "--ship"], "write elsewhere with --out or --out-dir"),
    ]
    for args, message in refused:
        result = runner.invoke(app, args)
        assert result.exit_code == 2 and message in _unboxed(result.output), (args,
                                                                             result.output)
    _checkout(tmp_path / "source", monkeypatch)
    for args, message in [(["solve", "--ship", "--out", "x.json.gz"], "give one"),
                          (["exploit", "--ship", "--out-dir", "x"], "give one"),
                          (["solve", "--ship", "--deck", "guard:2+jabba+luke+han+faceup:0"],
                           "only a named deck"),
                          (["solve", "--ship", "--algorithm", "mccfr", "--abstraction",
                            "finest"], "allowed are identity, counting, fine, coarse")]:
        result = runner.invoke(app, args)
        assert result.exit_code == 2 and message in _unboxed(result.output), (args,
                                                                             result.output)
