"""The belief filter past its particle limit: a seeded sample with unbiased weights.

Reduced decks (tiny, small), 2 and 3 players: hint summaries of random rounds
(solver/studies/belief_accuracy.py), the exact posterior from the filter with a budget
its histories fit (itself checked against the game tree in tests/test_belief.py), the
filter forced to sample with a budget below what the exact run needed.
"""

from __future__ import annotations

import random
from collections import defaultdict

import numpy as np
import pytest

import spiel_game
from spiel_game import layout as L
from solver.belief import MIN_ESS, hand_probabilities, hidden_state, posterior
from solver.belief import TREMBLE
from solver.hint.log import summary_fits, summary_log_worlds
from solver.hint.situation import SituationError, from_mapping
from solver.studies.belief_accuracy import Case, hand_tv, random_stop

EXACT = 1 << 12  # every reduced-deck summary fits (the largest needs a few hundred)


def _cases(deck: str, players: int, count: int, seed: int, least: int):
    """(case, exact posterior, exact marginals, its particle peak) of `count` summaries
    whose exact run needed more than `least` particles."""
    game = spiel_game.load("jabbas_palace", players=players, deck=deck)
    rng = random.Random(seed)
    out = []
    for _ in range(20 * count):
        state = random_stop(game, rng)
        if state is None:
            continue
        try:
            case = Case(game, state)
        except SituationError:
            continue
        exact, truth, _ = case.run(EXACT, hint=False)
        assert exact.exact and truth is not None
        if exact.stats["most_particles"] > least:
            out.append((case, exact, truth, exact.stats["most_particles"]))
        if len(out) == count:
            break
    assert len(out) == count
    return out


def test_within_the_budget_the_filter_is_exact_and_unchanged():
    """A budget the histories fit: no resampling, the same particles and weights as a
    larger budget (the exact path is the old one), ESS = the number of particles."""
    for case, exact, _, peak in _cases("small", 3, 6, 1, 4):
        fits, _, ess = case.run(peak, hint=False)
        assert fits.exact and fits.stats["resamples"] == 0 and not fits.collapsed
        assert len(fits.states) == len(exact.states)
        for a, b in zip(fits.states, exact.states):  # past the log, the rows are scratch
            used = L.S_EVENTS + a[L.S_EVENT_N] * L.EVENT_SIZE
            assert np.array_equal(a[:used], b[:used])
        assert np.array_equal(fits.weights, exact.weights)
        assert ess == fits.ess == len(fits.weights)


@pytest.mark.parametrize("deck,players", [("tiny", 2), ("small", 3)])
def test_the_sample_is_unbiased(deck, players):
    """Forced to sample (4 particles), the evidence-weighted mean of many seeded runs'
    hand marginals is the exact posterior's: the resampling keeps every weight's
    expectation (E[Z_hat p_hat] = Z p). Measured over 400 runs: TV at most 0.04 on
    these cases (0.06 on medium); the bound leaves room for the Monte Carlo error."""
    for case, exact, truth, _ in _cases(deck, players, 3, 3, 4):
        total = np.zeros_like(truth)
        for seed in range(400):
            post, _, _ = case.run(4, seed=seed, hint=False)
            assert not post.exact
            keep = [k for k, s in enumerate(post.states)
                    if summary_fits(case.sit, s, case.game.config)]
            if keep:
                total += np.exp(post.log_evidence) * hand_probabilities(
                    post.states[keep], post.weights[keep])
        mean = total / total[case.me].sum() * truth[case.me].sum()
        assert hand_tv(mean, truth, case.opponents(exact.states)) < 0.07


@pytest.mark.parametrize("deck,players", [("small", 2), ("small", 3), ("tiny", 3)])
def test_one_sample_is_near_the_exact_posterior_and_closer_with_more_particles(deck,
                                                                               players):
    """One seeded run at half the particles the exact run needed: the opponents' hand
    marginals within a total-variation distance of the exact ones (measured, 12 cases
    each: mean 0.17 / 0.23 / 0.18 on small 2p / small 3p / tiny 3p, largest 0.5; a
    handful of particles is a coarse sample); at the whole budget, exact."""
    tv = []
    for case, exact, truth, peak in _cases(deck, players, 12, 5, 8):
        seats = case.opponents(exact.states)
        post, got, ess = case.run(peak // 2, seed=7, hint=False)
        assert not post.exact and post.stats["resamples"] > 0
        assert got is None or 0 < ess <= len(post.weights) + 1e-9
        tv.append(1.0 if got is None else hand_tv(got, truth, seats))
        _, whole, _ = case.run(peak, hint=False)
        assert hand_tv(whole, truth, seats) < 1e-9
    assert np.mean(tv) < 0.35 and np.median(tv) < 0.3, tv


def test_a_seed_gives_the_same_sample():
    (case, _, _, peak), = _cases("small", 3, 1, 11, 16)
    a, _, _ = case.run(peak // 4, seed=3, hint=False)
    b, _, _ = case.run(peak // 4, seed=3, hint=False)
    assert np.array_equal(a.weights, b.weights)
    assert [hidden_state(s) for s in a.states] == [hidden_state(s) for s in b.states]
    others = [case.run(peak // 4, seed=s, hint=False)[0] for s in range(4, 12)]
    assert any(len(o.weights) != len(a.weights) or not np.array_equal(o.weights, a.weights)
               for o in others)


def test_a_collapsed_sample_says_so():
    """Two particles: the sample's ESS is below MIN_ESS; the posterior and the hint's
    replay info say it collapsed (after the summary path grew its budget to 4x)."""
    (case, _, _, _), = _cases("small", 3, 1, 2, 32)
    post, _, _ = case.run(2, hint=False)
    assert not post.exact and post.ess < MIN_ESS and post.collapsed
    game = case.game
    _, info = summary_log_worlds(case.sit, game, None, complete_within=2)
    assert not info["exact"] and info["collapsed"]
    assert info["effective_sample_size"] < MIN_ESS and info["particle_budget"] <= 8


# The two situations the card-counting fallback used to answer -------------------------

FOUR_PLAYERS = {"players": 4, "seat": 2, "hand": "jabba,guard",
                "areas": {"0": "han", "1": "crumb@2"}, "seen_by": {"1": "guard"}}
LONG_ROUND = {"players": 2, "seat": 0, "hand": "han,guard", "face_up": "rancor,jabba,luke",
              "areas": {"0": "guard,boba,took:mercenary,lando,bib,leia",
                        "1": "c3po,chewie,r2,bib,boba,took:crumb"}}


@pytest.mark.parametrize("data", [FOUR_PLAYERS, LONG_ROUND], ids=["4p", "long"])
def test_the_summaries_past_the_exact_limit_are_answered_by_bayes(data):
    """As the hint asks (SUMMARY_PARTICLES 4096, merge_logs for its search, the shipped
    tables): no SearchLimitError; exact, or a sample (these two: past the exact limit)
    with an ESS of at least MIN_ESS; seeded; the worlds fit what the player knows."""
    from solver.hint.advice import check_game
    from solver.policies.chain import load_policies

    sit = from_mapping(data)
    game = check_game(sit)
    policies = load_policies(game)
    table = policies if policies.paths else None
    worlds, info = summary_log_worlds(sit, game, table, complete_within=4096,
                                      merge_logs=True, seed=0)
    assert info["exact"] == info["complete"] and not info["collapsed"]
    assert info["exact"] or info["effective_sample_size"] >= MIN_ESS
    weights = np.array([w for _, w in worlds])
    assert weights.sum() == pytest.approx(1.0) and (weights > 0).all()
    assert all(summary_fits(sit, s, game.config) for s, _ in worlds)
    again, _ = summary_log_worlds(sit, game, table, complete_within=4096, merge_logs=True,
                                  seed=0)
    assert [w for _, w in again] == weights.tolist()


def test_merging_on_the_logs_keeps_the_exact_posterior():
    """merge_logs keys a particle by each opponent's whole redacted log instead of their
    card counting (`track`, a function of that log): a finer merge, the same exact
    posterior over the hidden state."""
    for case, exact, _, _ in _cases("small", 3, 4, 2, 4):
        finer = posterior(case.game, case.me, case.pattern, bank=case.policy.bank,
                          chain=[0], floor=TREMBLE, miss_unknown=True, omissions=True,
                          done_phase=L.PH_PLAY, max_particles=EXACT, merge_logs=True)
        assert finer.exact and len(finer.states) >= len(exact.states)
        a, b = defaultdict(float), defaultdict(float)
        for states, weights, out in ((exact.states, exact.weights, a),
                                     (finer.states, finer.weights, b)):
            for s, w in zip(states, weights):
                out[hidden_state(s)] += w
        assert set(a) == set(b)
        assert all(a[k] == pytest.approx(b[k], abs=1e-12) for k in a)


def test_where_no_table_ships_the_default_heuristic_weighs_the_choices():
    """4 players with no table (a policy set without files, as for a game none ships
    for): the hint's posterior weighs the opponents' plays by agenda_expert, so it
    differs from card counting (the same histories by the chance odds alone), and
    seeded runs agree."""
    from solver.hint.advice import check_game
    from solver.hint.log import prior_worlds
    from solver.policies.chain import PolicySet

    sit = from_mapping(FOUR_PLAYERS)
    game = check_game(sit)
    policies = PolicySet(game, [])
    assert not policies.paths
    bayes, info = summary_log_worlds(sit, game, policies, complete_within=1024, seed=0)
    prior, _ = prior_worlds(sit, game, complete_within=1024, seed=0)

    def hands(worlds):
        return hand_probabilities(np.stack([s for s, _ in worlds]),
                                  np.array([w for _, w in worlds]))
    assert np.abs(hands(bayes)[0] - hands(prior)[0]).max() > 0.01
    again, _ = summary_log_worlds(sit, game, policies, complete_within=1024, seed=0)
    assert [w for _, w in again] == [w for _, w in bayes]


def test_the_true_hands_log_likelihood_scores_each_held_card_by_its_marginal():
    from solver.studies.belief_accuracy import LOG_FLOOR, true_hand_log_likelihood

    game = spiel_game.load("jabbas_palace", players=3)
    s = game.new_initial_state()
    while s.is_chance_node():
        s.apply_action(s.chance_outcomes()[0][0])
    s = s._s
    hands = np.zeros((L.MAX_PLAYERS, L.MAX_CHARS))
    seats = [q for q in range(3) if s[L.S_HAND_N + q] == 1][:2]
    assert len(seats) == 2
    first = s[L.S_HAND + seats[0] * L.MAX_HAND]
    second = s[L.S_HAND + seats[1] * L.MAX_HAND]
    hands[seats[0], first] = 0.25
    hands[seats[0], (first + 1) % L.MAX_CHARS] = 0.75
    hands[seats[1], (second + 1) % L.MAX_CHARS] = 1.0  # the true card: no weight
    total, floored = true_hand_log_likelihood(hands, s, seats)
    assert floored == 1 and total == pytest.approx(np.log(0.25) + np.log(LOG_FLOOR))
