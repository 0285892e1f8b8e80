"""What the search maximises: round-utility tables and opponent models (node locking).

The node-locked search against a heuristic must be the exact best response to it
(solver/exact/best_response.py): the same action values at every information state,
to 1e-9, on the small deck where the subgame reaches the end of the round.
"""

import itertools

import numpy as np
import pyspiel
import pytest

import spiel_game  # noqa: F401  (registers the games)
from solver.exact.best_response import best_response
from solver.exact.cfr import TreeArrays, reach_sweep, value_sweep
from solver.exact.tree import DECISION, build_tree, infoset_states
from solver.policies.compiled import build_bank
from solver.search.exact import _place, blueprint_strategy
from solver.search.policy import SearchPolicy
from solver.search.resolve import Exploit, SearchLimits, my_posterior, search
from solver.sim.utility import num_codes


class _Policies:
    def __init__(self, bank, chain):
        self.bank, self.chain = bank, np.asarray(chain, dtype=np.int64)


@pytest.fixture(scope="module")
def small():
    game = pyspiel.load_game("jabbas_palace", {"players": 2, "deck": "small",
                                               "agenda": "exalted_one"})
    tree = build_tree(game)
    bank = build_bank(["agenda_expert", "keep_higher", "card_counter"], game)
    return game, tree, bank


def _exact_action_values(tree, strategy, me):
    """Per infoset of `me`: each action's value under `strategy`, weighted by the others'
    and chance's reach (what the search's roots weigh), and that reach."""
    a = TreeArrays(tree)
    reach = np.zeros((tree.num_nodes, tree.num_players + 1))
    reach_sweep(a.kind, a.player, a.infoset, a.child_start, a.num_children, a.edge_child,
                a.edge_prob, a.offsets, strategy, a.num_players, reach)
    others = reach[:, tree.num_players].copy()
    for q in range(tree.num_players):
        if q != me:
            others *= reach[:, q]
    values = np.zeros((tree.num_nodes, tree.num_players))
    value_sweep(*a.args(), strategy, values)
    offsets = tree.action_offsets()
    q = np.zeros(int(offsets[-1]))
    mass = np.zeros(tree.num_infosets)
    for node in np.flatnonzero((a.kind == DECISION) & (a.player == me)):
        info = a.infoset[node]
        start = a.child_start[node]
        children = a.edge_child[start:start + a.num_children[node]]
        q[offsets[info]:offsets[info + 1]] += others[node] * values[children, me]
        mass[info] += others[node]
    return q, mass


def _with_best_response(tree, strategy, me):
    _, best = best_response(tree, strategy, me)
    out = strategy.copy()
    offsets = tree.action_offsets()
    for info in np.flatnonzero((tree.infoset_player == me) & (best >= 0)):
        out[offsets[info]:offsets[info + 1]] = 0.0
        out[offsets[info] + best[info]] = 1.0
    return out


@pytest.mark.parametrize("heuristic", ["keep_higher", "card_counter"])
def test_node_locked_search_is_the_exact_best_response(small, heuristic):
    """At sampled information states of seat 0 that the heuristic can reach, the
    search with seat 1 locked to the heuristic values every action as the exact best
    response to it does (the tree, the heuristic everywhere, seat 0's best response)."""
    game, tree, bank = small
    k = bank.index(heuristic)
    model = blueprint_strategy(tree, _Policies(bank, [k]))
    exact = _with_best_response(tree, model, 0)
    q, mass = _exact_action_values(tree, exact, 0)
    policies = _Policies(bank, [0])
    exploit = Exploit(seat=1, chains=((k,),), weights=(1.0,), tremble=0.0)
    offsets = tree.action_offsets()
    reachable = [(i, s) for i, s in infoset_states(tree)
                 if tree.infoset_player[i] == 0 and mass[i] > 0]
    rng = np.random.default_rng(5)
    checked = 0
    for pick in rng.choice(len(reachable), size=25, replace=False):
        index, state = reachable[pick]
        post = my_posterior(game, state._s, 0, policies)
        result = search(game, post.states, post.weights, 0, policies,
                        SearchLimits(iterations=1), exploit=exploit)
        assert result.subgame.max_plays < 0  # the whole round: exact
        expected = dict(zip(tree.infoset_actions[index].tolist(),
                            q[offsets[index]:offsets[index + 1]] / mass[index]))
        for action, value in zip(result.legal.tolist(), result.values.tolist()):
            assert value == pytest.approx(expected[action], abs=1e-9)
        best = result.legal[np.argmax(result.probs)]
        assert expected[int(best)] == pytest.approx(max(expected.values()), abs=1e-9)
        checked += 1
    assert checked == 25


@pytest.mark.slow
def test_node_locked_search_policy_reaches_the_best_response_value(small):
    """The search policy assembled at every information state of both seats, each
    exploiting the other seat's heuristic: its value against the heuristic equals the
    exact best-response value (1e-9)."""
    game, tree, bank = small
    k = bank.index("keep_higher")
    model = blueprint_strategy(tree, _Policies(bank, [k]))
    exploits = {me: Exploit(seat=1 - me, chains=((k,),), weights=(1.0,), tremble=0.0)
                for me in (0, 1)}
    policy = SearchPolicy(game, _Policies(bank, [0]), SearchLimits(iterations=1), 0,
                          exploits=exploits)
    strategy = model.copy()
    for index, state in infoset_states(tree):
        try:
            legal, probs = policy.probabilities(state._s, int(tree.infoset_player[index]))
        except ValueError:  # the heuristic never reaches it: any strategy
            continue
        _place(tree, strategy, index, legal, probs)
    sizes = np.diff(tree.action_offsets())
    for me in (0, 1):
        mixed = model.copy()
        own = np.repeat(tree.infoset_player == me, sizes)
        mixed[own] = strategy[own]
        values = np.zeros((tree.num_nodes, tree.num_players))
        value_sweep(*TreeArrays(tree).args(), mixed, values)
        assert values[0, me] == pytest.approx(best_response(tree, model, me)[0], abs=1e-9)


def _margin_table(players):
    """The engine's margin utility written as a round-utility table."""
    table = np.zeros((num_codes(players), players))
    for code, tokens in enumerate(itertools.product(range(3), repeat=players)):
        t = np.array(tokens[::-1])  # code = sum t_i 3^i: the last digit is seat 0
        for winners in range(2 ** players):
            row = code + 3 ** players * winners
            table[row] = t - (t.sum() - t) / (players - 1)
    return table


def test_a_margin_table_scores_rounds_as_the_engine_does(small):
    """round_table filled with the margin gives the search's own answer exactly."""
    game, tree, bank = small
    policies = _Policies(bank, [0])
    states = [s for i, s in infoset_states(tree) if tree.infoset_player[i] == 1][:40:8]
    for state in states:
        post = my_posterior(game, state._s, 1, policies)
        plain = search(game, post.states, post.weights, 1, policies,
                       SearchLimits(iterations=20))
        tabled = search(game, post.states, post.weights, 1, policies,
                        SearchLimits(iterations=20), round_table=_margin_table(2))
        np.testing.assert_allclose(tabled.values, plain.values, atol=1e-12)
        np.testing.assert_allclose(tabled.probs, plain.probs, atol=1e-12)
        assert tabled.subgame.top == plain.subgame.top  # zero-sum: the gadget stays


def test_a_scaled_table_scales_the_values(small):
    """Twice the margin as a table: every action value doubles and the strategy does
    not move (regret matching is scale-free), so the table is what scores the rounds."""
    game, tree, bank = small
    policies = _Policies(bank, [0])
    state = next(s for i, s in infoset_states(tree) if tree.infoset_player[i] == 0)
    post = my_posterior(game, state._s, 0, policies)
    plain = search(game, post.states, post.weights, 0, policies, SearchLimits(iterations=10))
    doubled = search(game, post.states, post.weights, 0, policies,
                     SearchLimits(iterations=10), round_table=2 * _margin_table(2))
    np.testing.assert_allclose(doubled.values, 2 * plain.values, atol=1e-12)
    np.testing.assert_allclose(doubled.probs, plain.probs, atol=1e-9)


def test_bad_round_tables_and_models_are_refused(small):
    game, tree, bank = small
    policies = _Policies(bank, [0])
    state = next(s for i, s in infoset_states(tree) if tree.infoset_player[i] == 0)
    post = my_posterior(game, state._s, 0, policies)
    with pytest.raises(ValueError, match="shape"):
        search(game, post.states, post.weights, 0, policies, SearchLimits(iterations=1),
               round_table=np.zeros((5, 2)))
    with pytest.raises(ValueError, match="not an opponent"):
        search(game, post.states, post.weights, 0, policies, SearchLimits(iterations=1),
               exploit=Exploit(seat=0, chains=((1,),), weights=(1.0,)))
    with pytest.raises(ValueError, match="confidence"):
        Exploit(seat=1, chains=((1,),), weights=(1.0,), confidence=1.5)
    with pytest.raises(ValueError, match="sum to 1"):
        Exploit(seat=1, chains=((1,), (2,)), weights=(0.5, 0.6))


def test_a_report_table_is_carried_not_solved(small):
    """report_table: its value per action under the solved strategy; the margin as the
    report gives the search's own values (the gadget's shift taken off), and the solve
    is the same as without a report."""
    game, tree, bank = small
    policies = _Policies(bank, [0])
    state = next(s for i, s in infoset_states(tree) if tree.infoset_player[i] == 0)
    post = my_posterior(game, state._s, 0, policies)
    plain = search(game, post.states, post.weights, 0, policies, SearchLimits(iterations=10))
    assert plain.reported_values is None
    reported = search(game, post.states, post.weights, 0, policies,
                      SearchLimits(iterations=10), report_table=3 * _margin_table(2))
    np.testing.assert_allclose(reported.probs, plain.probs, atol=1e-12)
    np.testing.assert_allclose(reported.reported_values, 3 * plain.values, atol=1e-9)
