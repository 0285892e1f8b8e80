"""Opponent models (solver/opponent_model/): the fit finds a known heuristic from its logs,
its likelihoods equal a direct computation with the Python heuristics, a log no candidate
explains is reported, bad models are refused, and a mixture plays the weighted sum."""

from __future__ import annotations

import json
import math

import numpy as np
import pyspiel
import pytest
from typer.testing import CliRunner

import spiel_game  # noqa: F401  (registers the games)
from cli.main import app
from solver.policies.shipped import policy_files
from solver.opponent_model.fit import OK, UNEXPLAINED, TREMBLE, fit
from solver.opponent_model.model import (ModelError, load_model, locked_probabilities,
                                         mixture, observe, parse_opponents, resolve_model)
from solver.opponent_model.sample import sample_logs, write_log
from solver.play.log import LogError
from solver.policies.compiled import TABLE_MISS, probabilities
from solver.policies.heuristics import HEURISTICS

runner = CliRunner()
HEURISTIC_CANDIDATES = ["agenda_expert", "card_counter", "keep_higher", "keep_lower", "uniform"]


def _game(agenda="exalted_one", players=2):
    return pyspiel.load_game("jabbas_palace", {"players": players, "agenda": agenda})


@pytest.mark.parametrize("agenda, truth", [("exalted_one", "keep_higher"),
                                           ("exalted_one", "keep_lower"),
                                           ("exalted_one", "uniform"),
                                           ("exalted_one", "table"),
                                           ("my_kind_of_scum", "card_counter")])
def test_the_right_policy_gets_90_percent_after_20_rounds(agenda, truth):
    """The issue's bar: >= 0.9 posterior weight after 20 rounds. The threshold is the
    issue's and the seeds are 1, 2, 3 (not chosen); the pairs are those
    docs/opponents.md reports as distinguishable (agenda_expert and card_counter are
    not, in three agendas: the next test)."""
    game = _game(agenda)
    for seed in (1, 2, 3):
        result = fit(sample_logs(game, truth, 1, 20, seed), 1, None, game)
        assert result.status == OK and result.rounds == 20
        assert result.weights[result.candidates.index(truth)] >= 0.9, (seed, result)


def test_card_counter_and_agenda_expert_are_one_policy_in_exalted_one():
    """agenda_expert adds rules for the other three agendas only: on Exalted One logs the
    two get the same likelihood, so the same weight, whatever the number of rounds."""
    game = _game()
    result = fit(sample_logs(game, "card_counter", 1, 20, 7), 1, None, game)
    cc, ae = (result.candidates.index(n) for n in ("card_counter", "agenda_expert"))
    assert result.log_likelihoods[cc] == result.log_likelihoods[ae]
    assert result.weights[cc] + result.weights[ae] >= 0.9


def _direct_log_likelihoods(game, logs, seat, names, tremble):
    """The log-likelihoods computed from the log lines alone: pyspiel states replayed by
    hand, the Python heuristics' probabilities, table seat -> engine seat by the rounds'
    starters."""
    policies = [HEURISTICS[name](game) for name in names]
    n = game.num_players()
    total = np.zeros(len(names))
    count = 0
    for lines in logs:
        state = None
        for line in lines[1:]:
            if "starter" in line:
                state, starter = game.new_initial_state(), line["starter"]
            elif "action" in line:
                player, action = line["player"], line["action"]
                if player >= 0 and (starter + player) % n == seat:
                    count += 1
                    legal = state.legal_actions()
                    for k, policy in enumerate(policies):
                        p = policy.action_probabilities(state, player)[action]
                        total[k] += math.log((1 - tremble) * p + tremble / len(legal))
                state.apply_action(action)
    return total, count


def test_log_likelihoods_equal_a_direct_computation_with_the_python_heuristics():
    game = _game("jabbas_court")
    logs = sample_logs(game, "card_counter", 0, 8, 11, other_policy="keep_lower")
    result = fit(logs, 0, HEURISTIC_CANDIDATES, game)
    expected, count = _direct_log_likelihoods(game, logs, 0, HEURISTIC_CANDIDATES, TREMBLE)
    assert result.decisions == count > 8
    np.testing.assert_allclose(result.log_likelihoods, expected, rtol=0, atol=1e-9)
    weights = np.exp(expected - expected.max())
    np.testing.assert_allclose(result.weights, weights / weights.sum(), atol=1e-12)
    evidence = expected.max() + math.log(np.exp(expected - expected.max()).mean())
    assert result.evidence == pytest.approx(evidence, abs=1e-9)


def test_a_log_no_candidate_explains_is_reported_not_fitted(tmp_path, monkeypatch):
    game = _game()
    logs = sample_logs(game, "keep_lower", 1, 10, 3)
    result = fit(logs, 1, ["keep_higher"], game)
    assert result.status == UNEXPLAINED
    assert "no candidate explains the logs" in result.reason and "line" in result.reason
    assert result.off_support[0] > result.decisions / 2
    with pytest.raises(ModelError, match="no model"):
        result.model(game)
    assert fit(logs, 1, ["keep_lower"], game).off_support == [0]  # its own policy explains it
    monkeypatch.chdir(tmp_path)
    write_log(logs[0], "kl.jsonl")
    out = runner.invoke(app, ["model", "fit", "--log", "kl.jsonl", "--seat", "1",
                              "--candidates", "keep_higher", "--out", "m.json"])
    assert out.exit_code == 2 and "not fitted: no candidate explains" in out.output
    assert not (tmp_path / "m.json").exists()


def test_an_illegal_logged_action_is_refused_with_its_line():
    game = _game()
    lines = sample_logs(game, "keep_higher", 1, 2, 5)[0]
    index = next(i for i, line in enumerate(lines) if line.get("player", -1) >= 0)
    lines[index] = {**lines[index], "action": 250}
    with pytest.raises(LogError, match=f"line {index + 1}: action 250 is not legal"):
        fit([lines], 1, None, game)


def test_the_fitted_model_file_round_trips_and_a_wrong_game_is_refused(tmp_path,
                                                                       monkeypatch):
    monkeypatch.chdir(tmp_path)
    out = runner.invoke(app, ["model", "sample", "--policy", "keep_higher", "--seat", "1",
                              "--rounds", "12", "--seed", "4", "--out", "kh.jsonl"])
    assert out.exit_code == 0, out.output
    files = sorted(p.name for p in tmp_path.glob("kh*.jsonl"))
    args = [w for f in files for w in ("--log", f)]
    out = runner.invoke(app, ["model", "fit", *args, "--seat", "1", "--out", "m.json"])
    assert out.exit_code == 0, out.output
    assert "keep_higher" in out.output and "evidence" in out.output
    record = json.loads((tmp_path / "m.json").read_text())
    for field in ("code_version", "command", "game", "identity", "evidence", "decisions"):
        assert field in record
    assert record["logs"] == files  # as given: no machine paths
    model = resolve_model("m.json", _game())
    assert list(model.weights) == [c["weight"] for c in record["candidates"]]
    assert model.weights[model.candidates.index("keep_higher")] > 0.9
    for other, message in ((_game("jabbas_court"), "a model of the game jabbas_palace, 2 "
                            "players, agenda exalted_one"),
                           (_game(players=3), "not jabbas_palace, 3 players")):
        with pytest.raises(ModelError, match=message):
            load_model("m.json", other)


def test_bad_models_and_seats_are_refused(tmp_path):
    game = _game()
    for spec, message in (("best", "unknown model 'best'; allowed: table, uniform"),
                          (str(tmp_path / "none.npz"), "does not exist"),
                          (str(tmp_path / "none.json"), "does not exist")):
        with pytest.raises(ModelError, match=message):
            resolve_model(spec, game)
    (tmp_path / "bad.json").write_text("{not json")
    (tmp_path / "other.json").write_text('{"format": "jabbas-palace-policy"}')
    with pytest.raises(ModelError, match="not a model file"):
        resolve_model(str(tmp_path / "bad.json"), game)
    with pytest.raises(ModelError, match="format 'jabbas-palace-policy'"):
        resolve_model(str(tmp_path / "other.json"), game)
    with pytest.raises(ModelError, match="policy is for game"):  # table.py's refusal
        resolve_model(str(policy_files("full", "jabbas_court", 2)[0]), game)
    for specs, message in ((["1=uniform"], "allowed is a seat other than yours"),
                           (["2=uniform"], "seat '2'"),
                           (["x=uniform"], "seat 'x'"),
                           (["uniform"], "expected SEAT=MODEL"),
                           (["0=uniform", "0=table"], "seat 0 given twice")):
        with pytest.raises(ModelError, match=message):
            parse_opponents(specs, game, 1)
    models = parse_opponents(["0=keep_lower", "2=table"], _game(players=3), 1)
    assert models[0].candidates == ("keep_lower",) and models[2].candidates == ("table",)
    with pytest.raises(ModelError, match="seat 5: allowed is a table seat from 0 to 1"):
        fit(sample_logs(game, "uniform", 0, 1, 1), 5, None, game)


def _random_decisions(game, count, seed):
    rng = np.random.default_rng(seed)
    found = []
    while len(found) < count:
        state = game.new_initial_state()
        while not state.is_terminal():
            if state.is_chance_node():
                actions, probs = zip(*state.chance_outcomes())
                state.apply_action(int(rng.choice(actions, p=probs)))
                continue
            found.append((state._s.copy(), state.current_player()))
            state.apply_action(int(rng.choice(state.legal_actions())))
    return found


def test_locked_probabilities_of_a_mixture_are_the_weighted_sum():
    """At random decisions: sum_k w_k pi_k, the table's chain falling back to
    agenda_expert where the table lacks the key (about 0.6% of random decisions on the
    small deck), and `observe` is Bayes' rule on the chosen action."""
    game = pyspiel.load_game("jabbas_palace", {"players": 2, "deck": "small"})
    model = mixture(["keep_higher", "card_counter", "table"], [0.2, 0.3, 0.5], game, "test")
    bank = model.bank(game)
    table_file = next(spec for spec in bank.specs if spec.endswith(".npz"))
    chains = {"keep_higher": ["keep_higher"], "card_counter": ["card_counter"],
              "table": [table_file, "agenda_expert"]}
    singles = [mixture([c], [1.0], game, "one") for c in model.candidates]
    misses = 0
    for d, (s, player) in enumerate(_random_decisions(game, 1500, 1)):
        expected = 0
        for candidate, w in zip(model.candidates, model.weights):
            for spec in chains[candidate]:
                legal, probs, source = probabilities(bank, bank.specs.index(spec), s, player)
                if source != TABLE_MISS:
                    break
                misses += 1
            expected = expected + w * probs
        got = locked_probabilities(model, bank, s, player)
        np.testing.assert_allclose(got, expected, atol=1e-12)
        assert got.sum() == pytest.approx(1.0)
        if d % 10 == 0:
            i = int(np.argmax(got))
            after = observe(model, bank, s, player, int(legal[i]))
            pi = [locked_probabilities(m, m.bank(game), s, player)[i] for m in singles]
            joint = np.array(model.weights) * pi
            np.testing.assert_allclose(after, joint / joint.sum(), atol=1e-12)
    assert misses > 0  # the chain was exercised past a missing key
    with pytest.raises(ModelError, match="not built from this model"):
        locked_probabilities(singles[1], bank, s, player)
