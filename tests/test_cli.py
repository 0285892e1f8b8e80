"""The `jabba` command line: commands run, write what they say, and refuse bad input."""

from __future__ import annotations

import json
import re

from typer.testing import CliRunner

from cli.main import app
from solver import provenance as results

runner = CliRunner()


def test_play_prints_a_round_and_rules_prints_a_card():
    played = runner.invoke(app, ["play", "--seed", "3", "--players", "3"])
    assert played.exit_code == 0, played.output
    assert "returns (margin)" in played.output and "phase: terminal" in played.output
    ruled = runner.invoke(app, ["rules", "threepio"])
    assert ruled.exit_code == 0 and ruled.output.startswith("C-3PO (1, Rebel, 1 copy)")


def test_bad_input_says_what_is_allowed():
    cases = [(["play", "--players", "7"], "from 2 to 6"),
             (["rules", "chewbaca"], "Did you mean Chewbacca"),
             (["solve", "--algorithm", "cfr++"], "allowed are cfr, cfr+, dcfr, mccfr"),
             (["solve", "--deck", "full"], "use --algorithm mccfr"),
             (["solve", "--algorithm", "mccfr", "--abstraction", "finest"],
              "allowed are identity, fine, coarse"),
             (["exploit", "--agendas", "galactic"], "unknown agenda")]
    for args, message in cases:
        result = runner.invoke(app, args)
        assert result.exit_code != 0, args
        text = " ".join(re.sub("[\u2500-\u257f]", " ", result.output).split())  # unbox
        assert message in text, (args, result.output)


def test_solve_writes_a_self_describing_result(tmp_path):
    out = tmp_path / "tiny.json.gz"
    result = runner.invoke(app, ["solve", "--deck", "tiny", "--algorithm", "dcfr",
                                 "--iterations", "200", "--out", str(out)])
    assert result.exit_code == 0, result.output
    record = results.read_json(out)
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
    assert out.with_suffix(".png").exists() and out.with_suffix(".csv").exists()


def test_exploit_writes_table_plot_and_record(tmp_path):
    result = runner.invoke(app, ["exploit", "--deck", "tiny", "--agendas", "exalted_one",
                                 "--iterations", "50", "--out-dir", str(tmp_path)])
    assert result.exit_code == 0, result.output
    table = (tmp_path / "exploitability_tiny_2p.md").read_text()
    assert "| card_counter |" in table and "| dcfr |" in table
    record = json.loads((tmp_path / "exploitability_tiny_2p.json").read_text())
    assert {r["policy"] for r in record["rows"]} >= {"uniform", "cfr", "cfr+", "dcfr"}
    assert (tmp_path / "exploitability_tiny_2p.png").stat().st_size > 10_000
