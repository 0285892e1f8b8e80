"""The single-agent search at 3-6 players (solver/search/single_agent.py): its cross-fitted
choice of my next decision, and the hint that answers with it."""

from __future__ import annotations

import random

import numpy as np
import pytest
from conftest import random_play_stop

from solver.search.single_agent import MIN_KEY_SAMPLES, cross_fitted
from spiel_game.game import load


def _synthetic(rng, samples, gap):
    """One full action; key 1: action 1 beats action 0 by `gap` on average; key 2: both
    actions the same in law; the table mixes 50/50 everywhere."""
    keys = np.where(np.arange(samples) % 4 < 2, 1, 2)[None, :]
    values = rng.normal(size=(1, samples, 8))
    values[0, keys[0] == 1, 1] += gap
    values[0, :, 2:] = 0.0
    probs = np.zeros((1, samples, 8))
    probs[..., :2] = 0.5
    nb = np.full((1, samples), 2, dtype=np.int32)
    return values, keys, probs, nb


def test_cross_fitting_picks_the_better_action_per_key_and_gains_nothing_from_noise():
    rng = np.random.default_rng(3)
    values, keys, probs, nb = _synthetic(rng, 20_000, gap=0.5)
    plan, table, changed = cross_fitted(values, keys, probs, nb)
    one = keys[0] == 1
    assert np.array_equal(plan[0, one], values[0, one, 1])  # the better action, always
    # where the two actions are the same in law, choosing on the other half of the
    # samples gains nothing: the plan's mean there stays within noise of the table's
    two = ~one
    diff = plan[0, two] - table[0, two]
    assert abs(diff.mean()) < 4 * diff.std() / np.sqrt(two.sum())
    gain = (plan - table).mean()
    assert gain == pytest.approx(0.5 * 0.5 * 0.5, abs=0.02)  # half the keys, half the mix
    assert 0.2 < changed < 0.8


def test_choosing_on_the_same_samples_would_show_a_gain_that_cross_fitting_does_not():
    # the winner's curse the cross-fitting avoids: pure noise, many small keys
    rng = np.random.default_rng(5)
    samples = 4_000
    keys = (np.arange(samples) // 20 + 1)[None, :]  # 200 keys of 20 samples
    values = np.zeros((1, samples, 8))
    values[0, :, :4] = rng.normal(size=(samples, 4))
    probs = np.zeros((1, samples, 8))
    probs[..., :4] = 0.25
    nb = np.full((1, samples), 4, dtype=np.int32)
    plan, table, _ = cross_fitted(values, keys, probs, nb)
    in_sample = np.mean([values[0, keys[0] == k].mean(axis=0)[:4].max()
                         for k in range(1, 201)])
    assert in_sample > 0.15  # the best of 4 means of 20 standard normals: about +0.23
    assert abs((plan - table).mean()) < 0.06  # 4 standard errors


def test_a_key_with_too_few_samples_keeps_the_table():
    rng = np.random.default_rng(7)
    samples = 2 * (MIN_KEY_SAMPLES - 1)
    values = rng.normal(size=(1, samples, 8))
    keys = np.ones((1, samples), dtype=np.int64)
    probs = np.zeros((1, samples, 8))
    probs[..., :3] = 1 / 3
    nb = np.full((1, samples), 3, dtype=np.int32)
    plan, table, changed = cross_fitted(values, keys, probs, nb)
    assert np.array_equal(plan, table) and changed == 0


def _four_player_situation(seed):
    from solver.hint.situation import from_mapping

    game = load(players=4, deck="full", agenda="exalted_one")
    rng = random.Random(seed)
    while True:
        state = random_play_stop(game, rng)
        if state is not None:
            me = state.current_player()
            return game, from_mapping({"game": "jabbas_palace", "players": 4,
                                       "agenda": "exalted_one", "utility": "margin",
                                       "log": state.information_state_string(me)})


@pytest.mark.parametrize("seed", [2, 9])
def test_the_hint_at_four_players_answers_by_the_single_agent_search_when_asked(seed):
    from solver.hint import advice
    from solver.hint.request import HintRequest
    from solver.policies.chain import load_policies

    game, sit = _four_player_situation(seed)
    policies = load_policies(game)
    ask = dict(seed=1, rollouts=64, search_samples=512, search_max_players=4)
    answer = advice.answer(HintRequest(sit, game, policies, **ask))
    again = advice.answer(HintRequest(sit, game, policies, **ask))
    search = answer.policy["search"]
    if len(answer.full_actions) < 2:
        assert not search["used"]
        return
    assert answer.policy["source"] == "search" and search["used"]
    assert search["samples"] == 512 and search["depth"] == "my next decision"
    assert answer.recommendation == again.recommendation  # seeded
    chosen = [f for f in answer.full_actions if f["action"] == answer.recommendation["action"]]
    if answer.recommendation["chosen_by"] == "search":
        # the plan is pure: probability 1 on the recommended card, and on its full action
        on_plan = [p["card"] for p in answer.plays if p["search_probability"] == 1.0]
        assert on_plan == [answer.recommendation["card"]]
        assert chosen[0]["search_probability"] == 1.0
    else:  # the guard: the rollouts put the plan's choice far below the best
        assert answer.policy["search"]["overruled"] is not None
    # by default at 4 players the table answers, and says why
    plain = advice.answer(HintRequest(sit, game, policies, seed=1, rollouts=64))
    assert plain.policy["source"] != "search"
    assert "answers up to 2 players" in plain.policy["search"]["reason"]
