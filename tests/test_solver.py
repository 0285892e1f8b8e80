"""Exact solving: known values, cross-checks against OpenSpiel, stop criteria, files."""

from __future__ import annotations

import gzip
import json

import numpy as np
import pyspiel
import pytest
from open_spiel.python import policy as policy_lib

from conftest import load
from solver import provenance as results
from solver.exact.best_response import exploitability, nash_conv, profile_values
from solver.exact.cfr import normalise
from solver.exact.solve import FORMAT, policy_record, solve
from solver.exact.tree_policy import strategy_from_policy, tabular_policy
from solver.exact.tree import build_tree


@pytest.fixture(scope="module")
def tiny_tree():
    return build_tree(load(deck="tiny"))


def _random_strategy(tree, seed):
    rng = np.random.default_rng(seed)
    offsets = tree.action_offsets()
    return normalise(rng.random(int(offsets[-1])) ** 3, offsets)


def test_cfr_reaches_kuhn_value():
    """Kuhn poker's equilibrium value for player 0 is -1/18."""
    tree = build_tree(pyspiel.load_game("kuhn_poker"))
    outcome = solve(tree, "cfr", iterations=2000)
    assert abs(profile_values(tree, outcome.strategy)[0] - (-1 / 18)) < 1e-3
    assert outcome.value < 1e-3


def test_engine_tree_equals_pyspiel_tree(tiny_tree):
    """The compiled-engine walk and the generic pyspiel walk build the same tree."""
    generic = build_tree(load(deck="tiny"), through_pyspiel=True)
    assert generic.num_nodes == tiny_tree.num_nodes
    assert generic.infoset_strings == tiny_tree.infoset_strings
    assert np.array_equal(generic.edge_action, tiny_tree.edge_action)
    assert np.array_equal(generic.edge_prob, tiny_tree.edge_prob)
    assert np.array_equal(generic.utility, tiny_tree.utility)


@pytest.mark.parametrize("params", [
    {"deck": "tiny"},
    {"deck": "tiny", "agenda": "rescue_mission"},
    # the face-up and 3-player cross-checks take 75-100 s each: -m slow runs them
    pytest.param({"deck": "han+guard+r2+lando+leia+boba+faceup:1"}, marks=pytest.mark.slow),
    pytest.param({"deck": "han+guard+mercenary+luke+jabba+bib", "players": 3},
                 marks=pytest.mark.slow),
])
def test_nash_conv_equals_openspiel(params):
    game = load(**params)
    tree = build_tree(game)
    strategy = _random_strategy(tree, seed=1)
    theirs = pyspiel.nash_conv(game, policy_lib.python_policy_to_pyspiel_policy(
        tabular_policy(tree, strategy)))
    assert abs(nash_conv(tree, strategy) - theirs) < 1e-9
    uniform = strategy_from_policy(tree, policy_lib.UniformRandomPolicy(game))
    if game.num_players() == 2:
        theirs = pyspiel.exploitability(game, policy_lib.python_policy_to_pyspiel_policy(
            tabular_policy(tree, uniform)))
        assert abs(exploitability(tree, uniform) - theirs) < 1e-9


@pytest.mark.parametrize("algorithm", ["cfr", "cfr+", "dcfr"])
def test_cfr_converges_on_tiny_and_matches_the_lp_value(tiny_tree, algorithm):
    from open_spiel.python.algorithms import sequence_form_lp
    outcome = solve(tiny_tree, algorithm, iterations=1000)
    assert outcome.value < 1e-2
    assert outcome.curve[-1].value < outcome.curve[0].value
    lp_value, _, _, _ = sequence_form_lp.solve_zero_sum_game(tiny_tree.game)
    # |v(avg) - v*| <= sum of both players' best-response gains = 2 * exploitability.
    cfr_value = profile_values(tiny_tree, outcome.strategy)[0]
    assert abs(cfr_value - lp_value) <= 2 * outcome.value + 1e-6


def test_solve_stops_at_target_and_time(tiny_tree):
    by_target = solve(tiny_tree, "cfr+", iterations=None, target=1e-3)
    assert by_target.stopped_by == "target" and by_target.value <= 1e-3
    by_time = solve(tiny_tree, "cfr", iterations=None, seconds=0.2)
    assert by_time.stopped_by == "seconds"
    with pytest.raises(ValueError, match="at least one stop criterion"):
        solve(tiny_tree, "cfr", iterations=None)
    with pytest.raises(ValueError, match="allowed are cfr, cfr\\+, dcfr"):
        solve(tiny_tree, "cfr-", iterations=10)


def test_result_file_is_self_describing_and_atomic(tiny_tree, tmp_path):
    outcome = solve(tiny_tree, "cfr+", iterations=50)
    record = policy_record(tiny_tree, outcome, deck_spec="tiny")
    for path in (tmp_path / "r.json", tmp_path / "r.json.gz"):
        results.write_json(path, record)
        loaded = results.read_json(path)
        assert loaded["game"]["parameters"]["deck"] == "tiny"
        assert set(results.HEADER_FIELDS) <= set(loaded) and loaded["deck_spec"] == "tiny"
        assert loaded["iterations"] == 50 and loaded["algorithm"] == "cfr+"
        assert loaded["exploitability"] == pytest.approx(outcome.value)
        assert len(loaded["policy"]["rows"]) == tiny_tree.num_infosets
        assert list(tmp_path.glob(".*.tmp")) == []
    truncated = tmp_path / "t.json.gz"
    truncated.write_bytes((tmp_path / "r.json.gz").read_bytes()[:100])
    with pytest.raises(ValueError, match="truncated or corrupt"):
        results.read_json(truncated)
    assert json.loads(gzip.decompress((tmp_path / "r.json.gz").read_bytes()))["format"] == \
        FORMAT


def test_solved_policy_beats_every_heuristic_on_tiny(tiny_tree):
    """CFR's policy is < 1e-2 exploitable and less exploitable than each heuristic."""
    from solver.policies.heuristics import HEURISTICS
    solved = solve(tiny_tree, "cfr", iterations=300).value
    assert solved < 1e-2
    for name, heuristic in HEURISTICS.items():
        strategy = strategy_from_policy(tiny_tree, heuristic(tiny_tree.game))
        value = exploitability(tiny_tree, strategy)
        theirs = pyspiel.exploitability(tiny_tree.game,
                                        policy_lib.python_policy_to_pyspiel_policy(
                                            tabular_policy(tiny_tree, strategy)))
        assert abs(value - theirs) < 1e-9, name
        assert solved < value, name
