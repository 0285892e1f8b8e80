"""The exact match study on reduced decks (solver/match/exact.py, docs/match.md "Match-aware
play, measured"): terminal outcome codes against pyspiel replays, the exact outcome
distribution against the tree's own token values, the dynamic programme with a
distribution per standings, the sudden-death standings, and the exact match score
against sampled duplicate matches."""

from __future__ import annotations

import numpy as np
import pyspiel
import pytest

import spiel_game  # noqa: F401  (registers the games)
from spiel_game import layout as L

from solver.abstraction.keys import identity_key
from solver.evaluation.tournament import Z_95
from solver.exact.best_response import profile_values
from solver.exact.tree import TERMINAL, build_tree, infoset_states
from solver.match.duel import play_matches
from solver.match.exact import (dcfr, match_distributions, match_score, outcome_distribution,
                                per_starter, seat_mix, study, terminal_codes, with_table)
from solver.match.outcomes import code_arrays, decode, num_codes
from solver.match.value import MatchValues, match_values, round_utility_table
from solver.sim.sampler import sample


def _game(deck="tiny", utility="margin", agenda="exalted_one"):
    return pyspiel.load_game("jabbas_palace", {"players": 2, "deck": deck,
                                               "utility": utility, "agenda": agenda})


@pytest.fixture(scope="module")
def tiny():
    tree = build_tree(_game())
    return tree, terminal_codes(tree)


def _random_strategy(tree, seed):
    rng = np.random.default_rng(seed)
    offsets = tree.action_offsets()
    strategy = np.empty(int(offsets[-1]))
    for i in range(tree.num_infosets):
        strategy[offsets[i]:offsets[i + 1]] = rng.dirichlet(np.ones(offsets[i + 1] - offsets[i]))
    return strategy


def test_terminal_codes_agree_with_a_pyspiel_replay_of_random_paths():
    tree = build_tree(_game("small"))
    codes = terminal_codes(tree)
    assert ((codes >= 0) == (tree.kind == TERMINAL)).all()
    rng = np.random.default_rng(7)
    for _ in range(200):
        node, state = 0, tree.game.new_initial_state()
        while tree.kind[node] != TERMINAL:
            i = int(rng.integers(tree.num_children[node]))
            e = tree.child_start[node] + i
            state.apply_action(int(tree.edge_action[e]))
            node = int(tree.edge_child[e])
        assert state.is_terminal()
        tokens, mask = decode(int(codes[node]), 2)
        assert list(tokens) == [int(state._s[L.S_TOKENS + p]) for p in range(2)]
        assert mask == int(state._s[L.S_WINNERS])
        assert tree.utility[node].tolist() == state.returns()  # the margin, from the engine
        assert [tokens[0] - tokens[1], tokens[1] - tokens[0]] == state.returns()


def test_the_outcome_distribution_sums_to_one_and_gives_the_trees_token_values(tiny):
    tree, codes = tiny
    tokens_tree = build_tree(_game(utility="tokens"))
    assert (tokens_tree.edge_action == tree.edge_action).all()  # the same tree, other payoffs
    tokens, _ = code_arrays(2)
    for seed in range(3):
        strategy = _random_strategy(tree, seed)
        dist = outcome_distribution(tree, strategy, codes)
        assert dist.sum() == pytest.approx(1.0, abs=1e-12)
        assert (dist >= 0).all()
        assert dist @ tokens == pytest.approx(profile_values(tokens_tree, strategy), abs=1e-12)


def test_a_table_of_the_margin_gives_the_margin_solve(tiny):
    """with_table: a table holding each code's margin reproduces the tree's own utility,
    so DCFR on it is the margin solve, iterate for iterate."""
    tree, codes = tiny
    tokens, _ = code_arrays(2)
    table = np.stack([tokens[:, 0] - tokens[:, 1], tokens[:, 1] - tokens[:, 0]], axis=1)
    assert np.array_equal(with_table(tree, codes, table.astype(float)).utility, tree.utility)


def test_seat_mix_takes_each_seats_infosets_from_its_strategy(tiny):
    tree, _ = tiny
    a, b = _random_strategy(tree, 1), _random_strategy(tree, 2)
    mixed = seat_mix(tree, [a, b])
    seat = np.repeat(tree.infoset_player, np.diff(tree.action_offsets()))
    assert np.array_equal(mixed[seat == 0], a[seat == 0])
    assert np.array_equal(mixed[seat == 1], b[seat == 1])


def test_match_values_per_standings_equal_the_single_distribution_form():
    rng = np.random.default_rng(3)
    for n, goal in ((2, 4), (3, 3)):
        probs = rng.dirichlet(np.ones(num_codes(n)), size=n)
        same = np.broadcast_to(probs, (goal,) * n + probs.shape)
        for split in (False, True):
            assert np.abs(match_values(same, goal, split) - match_values(probs, goal, split)
                          ).max() < 1e-12


def test_split_scores_share_a_joint_win():
    """With 2 players every match has a winner, so P(both win) = V0 + V1 - 1 and each
    player's split score is V_i - P(both)/2; the scores sum to 1."""
    rng = np.random.default_rng(4)
    probs = rng.dirichlet(np.ones(num_codes(2)), size=(5, 5, 2))
    win, score = match_values(probs, 5), match_values(probs, 5, split=True)
    both = win.sum(axis=-1) - 1
    assert both.min() > 0  # ties happen in this distribution
    assert np.abs(score - (win - both[..., None] / 2)).max() < 1e-12
    assert np.abs(score.sum(axis=-1) - 1).max() < 1e-12


def test_per_standings_shapes_are_checked():
    with pytest.raises(ValueError, match="per standings"):
        match_values(np.full((3, 3, 2, 36), 1 / 36), 4)  # standings of goal 3, not 4


def test_margin_against_itself_scores_one_half_and_the_study_is_seat_symmetric(tiny):
    tree, _ = tiny
    result = study(tree, 4, 30)
    assert result.margin_score == pytest.approx(0.5, abs=1e-12)
    assert result.score_by_seat[0] == pytest.approx(result.score_by_seat[1], abs=1e-12)
    assert result.margin.exploitability < 0.01
    assert max(s.exploitability for s in result.aware.values()) < 0.01


def test_at_five_all_the_match_aware_solve_is_the_solve_for_the_round_win(tiny):
    """At 5-5 (goal 6) the round decides the match: whoever gains a token reaches the
    goal, so a second token (Han Solo's) is worth nothing, one token alone is worth +1,
    and both gaining (a tie, or Han Solo's token to the loser: both win the match) or
    nobody (the next round is 5-5 again, with a random starter) 0. The match utility
    table is that table, and DCFR on it gives the same policy as DCFR on the table
    written from the rules."""
    tree, codes = tiny
    margin = dcfr(tree, 50).strategy
    base = outcome_distribution(tree, margin, codes)
    values = MatchValues(2, 6, match_values(per_starter(base, 2), 6))
    table = round_utility_table(values, (5, 5), 0)
    tokens, _ = code_arrays(2)
    gains = (tokens > 0).astype(float)
    win = np.stack([gains[:, 0] - gains[:, 1], gains[:, 1] - gains[:, 0]], axis=1)
    reached = np.unique(codes[codes >= 0])
    assert np.abs(table[reached] - win[reached]).max() < 1e-12
    aware = dcfr(with_table(tree, codes, table), 100).strategy
    rules = dcfr(with_table(tree, codes, win), 100).strategy
    assert np.abs(aware - rules).max() < 1e-9


def test_the_exact_match_score_agrees_with_sampled_duplicate_matches(tiny):
    """The margin DCFR policy against a seeded random strategy, to 3 tokens: the exact
    score (per-standings distributions, the dynamic programme) within 3.3 standard
    errors of play_matches over the same policies."""
    tree, codes = tiny
    goal = 3
    strong, weak = dcfr(tree, 50).strategy, _random_strategy(tree, 5)
    every = {t: strong for t in np.ndindex(goal, goal)}
    exact = np.mean([match_score(match_distributions(tree, codes, goal, every, weak, seat),
                                 goal, seat) for seat in range(2)])
    index = {(int(tree.infoset_player[i]), int(identity_key(state._s,
              int(tree.infoset_player[i])))): i for i, state in infoset_states(tree)}
    offsets = tree.action_offsets()

    def policy_of(strategy):
        def policy(state, player, standings, rng):
            i = index[(player, int(identity_key(state._s, player)))]
            probs = strategy[offsets[i]:offsets[i + 1]]
            return int(tree.infoset_actions[i][sample(probs, len(probs), rng)])
        return lambda: policy

    result = play_matches(tree.game, policy_of(strong), policy_of(weak), 1500, seed=3,
                          goal=goal, progress=None)
    score = result.score()
    assert 0.6 < exact < 0.95  # a real difference to detect
    assert abs(score.mean - exact) < 3.3 * score.half_width / Z_95
