"""Local best response (solver/evaluation/lbr.py): Bayes beliefs, information, and a true
lower bound.

On reduced decks everything is exact: the belief is checked against the posterior computed
on the whole tree, LBR's choices against the information partition, and LBR's value (exact
on the tree, and sampled by play with a fixed seed) against the exact exploitability.
"""

from __future__ import annotations

from collections import defaultdict
from pathlib import Path

import numpy as np
import pytest

from conftest import load, tree_decision_states
from solver.policies.compiled import build_bank, probabilities
from solver.evaluation.lbr import belief, exact_lbr_value, lbr_choice, run_lbr
from solver.exact.tree import build_tree
from spiel_game import layout as L

SHIPPED_SMALL_TABLE = Path(__file__).resolve().parent.parent / \
    "results/policy_small_exalted_one_2p_identity.npz"


def _hands(s, players, viewer):
    """The other players' hands (sorted tuples), in seat order."""
    return tuple(tuple(sorted(s[L.S_HAND + q * L.MAX_HAND:
                                L.S_HAND + q * L.MAX_HAND + s[L.S_HAND_N + q]].tolist()))
                 for q in range(players) if q != viewer)


def _exact_posteriors(game, bank, policy, viewer):
    """Per information state of viewer: the posterior over the others' hands, from every
    history weighted by chance and by the policy's probabilities of the others' actions."""
    posteriors = defaultdict(lambda: defaultdict(float))
    stack = [(game.new_initial_state(), 1.0)]
    while stack:
        state, reach = stack.pop()
        if state.is_terminal():
            continue
        if state.is_chance_node():
            stack.extend((state.child(a), reach * p) for a, p in state.chance_outcomes())
            continue
        player = state.current_player()
        if player == viewer:
            key = state.information_state_string(viewer)
            posteriors[key][_hands(state._s, game.num_players(), viewer)] += reach
            stack.extend((state.child(a), reach) for a in state.legal_actions())
            continue
        legal, probs, _ = probabilities(bank, policy, state._s, player)
        stack.extend((state.child(int(a)), reach * p) for a, p in zip(legal, probs) if p > 0)
    return posteriors


@pytest.mark.parametrize("players,policy_name", [(2, "card_counter"), (2, "uniform"),
                                                 (3, "keep_lower")])
def test_belief_is_the_exact_bayes_posterior(players, policy_name):
    game = load(deck="tiny", players=players)
    bank = build_bank([policy_name], game)
    seen = set()
    for viewer in range(players):
        posteriors = _exact_posteriors(game, bank, 0, viewer)
        for state, p in tree_decision_states(game):
            key = state.information_state_string(p) if p == viewer else None
            if key is None or key in seen or key not in posteriors:
                continue
            seen.add(key)
            states, weights, stats = belief(game, state._s, viewer, bank, 0)
            assert stats["lost"] == 0 and stats["truncated"] == 0
            got = defaultdict(float)
            for s, w in zip(states, weights):
                got[_hands(s, players, viewer)] += w
            exact = posteriors[key]
            total = sum(exact.values())
            assert set(got) == {h for h, w in exact.items() if w > 0}, key
            for hands, w in exact.items():
                assert got[hands] == pytest.approx(w / total, abs=1e-9), (key, hands)
    assert seen


@pytest.mark.parametrize("players", [2, 3])
def test_lbr_choice_depends_only_on_its_information_state(players):
    """Every history of an information state gives the same choice: LBR reads nothing
    hidden (a peeking LBR could beat the exact exploitability)."""
    game = load(deck="tiny", players=players)
    bank = build_bank(["card_counter"], game)
    choices = defaultdict(set)
    for state, p in tree_decision_states(game):
        action, values, _ = lbr_choice(game, state._s, p, bank, 0, rollouts=8)
        choices[state.information_state_string(p)].add(action)
        assert action in state.legal_actions() and len(values) == len(state.legal_actions())
    assert all(len(actions) == 1 for actions in choices.values())


def test_lbr_is_a_lower_bound_on_the_exact_exploitability():
    """Small deck, 2 players: LBR's exact value (computed on the tree) never exceeds the
    exact exploitability, for heuristics and an MCCFR table policy, and is tight for the
    heuristics. Its estimate by play (fixed seed) agrees with the exact value within its
    interval, whose lower end stays below the exact exploitability."""
    game = load(deck="small")
    tree = build_tree(game)
    bank = build_bank(["uniform", "keep_lower", "card_counter", str(SHIPPED_SMALL_TABLE)],
                      game)
    for policy, name in enumerate(bank.names):
        exact = exact_lbr_value(tree, bank, policy, rollouts=32)
        assert exact.lbr <= exact.exact + 1e-12, name
        for lbr_value, best in zip(exact.lbr_per_seat, exact.best_response_per_seat):
            assert lbr_value <= best + 1e-12
        if name in ("uniform", "keep_lower", "card_counter"):
            assert exact.tightness > 0.85, (name, exact)
        sampled = run_lbr(game, bank, policy, deals=400, seed=3, rollouts=32).lower_bound()
        assert abs(sampled.mean - exact.lbr) <= sampled.half_width, (name, sampled, exact)
        assert sampled.low <= exact.exact, name


def test_three_player_lower_bound_is_nash_conv():
    game = load(deck="tiny", players=3)
    tree = build_tree(game)
    bank = build_bank(["uniform", "card_counter"], game)
    for policy in range(2):
        exact = exact_lbr_value(tree, bank, policy, rollouts=16)
        assert exact.lbr <= exact.exact + 1e-12
        assert exact.exact == pytest.approx(sum(exact.best_response_per_seat), abs=1e-9)


def test_full_deck_lbr_runs_and_reports_its_belief():
    game = load(players=2, agenda="jabbas_court")
    bank = build_bank(["agenda_expert"], game)
    result = run_lbr(game, bank, 0, deals=20, seed=5, rollouts=4)
    assert result.payoffs.shape == (20, 2) and result.belief_stats["decisions"] > 20
    assert result.belief_stats["lost"] == 0
    bound = result.lower_bound()
    assert bound.units == 20 and np.isfinite(bound.half_width)
    again = run_lbr(game, bank, 0, deals=20, seed=5, rollouts=4)
    assert np.array_equal(again.payoffs, result.payoffs)  # seeded


def test_lbr_with_a_one_particle_belief_finishes():
    """A belief of one particle resamples to it at every step (it once looped forever:
    a full one-row buffer could not make room)."""
    game = load(players=2, agenda="jabbas_court")
    bank = build_bank(["agenda_expert"], game)
    result = run_lbr(game, bank, 0, deals=3, seed=5, rollouts=2, max_particles=1)
    assert result.payoffs.shape == (3, 2) and result.belief_stats["most_particles"] <= 2


def test_lbr_command_reports_the_bound_and_the_exact_value(tmp_path):
    import json

    from typer.testing import CliRunner

    from cli.main import app

    out = tmp_path / "lbr.json"
    result = CliRunner().invoke(app, ["lbr", "--policy", "card_counter", "--deck", "tiny",
                                      "--deals", "100", "--rollouts", "8", "--exact",
                                      "--out", str(out)])
    assert result.exit_code == 0, result.output
    assert "exploitability >= " in result.output and "exact on the tree" in result.output
    record = json.loads(out.read_text())
    assert record["exact"]["lbr"] <= record["exact"]["exploitability"] + 1e-12
    assert record["exploitability"]["units"] == 100
    bad = CliRunner().invoke(app, ["lbr", "--policy", "table", "--agenda", "exalted_one",
                                   "--deck", "small", "--players", "3"])
    assert bad.exit_code != 0 and "no shipped table policy" in bad.output


def test_belief_carried_through_a_round_equals_the_one_built_from_scratch():
    """In play the belief advances from LBR's previous decision; at every decision the
    choice equals the one from a belief rebuilt from the whole log (so play and
    `exact_lbr_value` measure the same strategy)."""
    from solver.belief.filter import LOVE_LETTER_FILTER, observe
    from solver.evaluation.lbr import DEFAULT_MAX_PARTICLES, NUM_BELIEF_STATS, decide
    from solver.policies.playout import LOVE_LETTER_PLAYOUT
    from solver.sim.playout import reset
    from spiel_game import engine

    game = load(deck="small", players=2)
    bank = build_bank(["card_counter"], game)
    rng = np.random.default_rng(8)
    legal = np.empty(L.NUM_ACTIONS, dtype=np.int32)
    values = np.empty(L.NUM_ACTIONS)
    observed = np.empty((L.MAX_EVENTS, L.EVENT_SIZE), dtype=np.int32)
    buffers = np.empty((2, DEFAULT_MAX_PARTICLES, L.STATE_SIZE), dtype=np.int32)
    weights = np.empty((2, DEFAULT_MAX_PARTICLES))
    stats = np.zeros(NUM_BELIEF_STATS, dtype=np.int64)
    decisions = 0
    for viewer in (0, 1) * 15:
        state = game.new_initial_state()
        s = state._s
        reset(engine.ENGINE, buffers[0, 0], game.initial_array)
        weights[0, 0] = 1.0
        current, count = 0, 1
        while not engine.is_terminal(s):
            if engine.is_chance(s):
                outcomes, chance = zip(*state.chance_outcomes())
                engine.apply_action(s, int(rng.choice(outcomes, p=chance)))
                continue
            n = engine.legal_actions(s, legal)
            if engine.current_actor(s) == viewer:
                n_obs = observe(s, viewer, observed)
                best, current, count = decide(
                    engine.ENGINE, LOVE_LETTER_PLAYOUT, LOVE_LETTER_FILTER,
                    s, observed, n_obs, viewer, buffers, weights, current, count,
                    bank.arrays(), 0, 0, 16, DEFAULT_MAX_PARTICLES, 1, legal, n, values, stats)
                action = int(legal[best])
                assert action == lbr_choice(game, s, viewer, bank, 0, seed=1, rollouts=16)[0]
                decisions += 1
            else:
                legal_actions, policy, _ = probabilities(bank, 0, s, engine.current_actor(s))
                action = int(rng.choice(legal_actions, p=policy))
            engine.apply_action(s, action)
    assert decisions > 30
