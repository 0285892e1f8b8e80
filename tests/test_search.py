"""Decision-time search (solver/search/): exact gains and safety on reduced decks,
determinism, node locking, the hint's search answer and its fallback."""

from __future__ import annotations

import random

import numpy as np
import pytest
from open_spiel.python.algorithms import exploitability as os_exploitability

from spiel_game import layout as L
from conftest import load, random_play_stop

from solver.exact.best_response import best_response, nash_conv, profile_values
from solver.exact.cfr import CFRSolver
from solver.exact.tree import build_tree
from solver.hint import advice
from solver.hint.situation import from_mapping
from solver.policies.chain import PolicySet, load_policies
from solver.search.exact import TreeBlueprint, blueprint_strategy, search_strategy
from solver.search.policy import SearchPolicy
from solver.search.resolve import SearchLimits, my_posterior, search
from solver.search.subgame import roots

LIMITS = SearchLimits(iterations=100)


@pytest.fixture(scope="module")
def tiny():
    game = load(deck="tiny", players=2)
    return game, build_tree(game)


@pytest.fixture(scope="module")
def searched_from_agenda_expert(tiny):
    """NashConv of agenda_expert alone as the blueprint (no table for a reduced deck),
    and of the search at every information state of the tree against it, per top."""
    game, tree = tiny
    policies = PolicySet(game, [])
    before = nash_conv(tree, blueprint_strategy(tree, policies))
    after = {}
    for top in ("max-margin", "blend"):
        strategy, info = search_strategy(tree, policies, LIMITS, seed=1, top=top)
        assert info["fallbacks_to_blueprint"] == 0
        after[top] = nash_conv(tree, strategy)
    return before, after


@pytest.mark.parametrize("top", ["max-margin", "blend"])
def test_search_on_tiny_is_less_exploitable_than_its_blueprint(searched_from_agenda_expert,
                                                              top):
    before, after = searched_from_agenda_expert
    assert after[top] < before - 0.02, (before, after)


def test_blend_improves_on_the_max_margin_gadget(searched_from_agenda_expert):
    # The gadget alone has every strategy that concedes no root information state more
    # than the blueprint did as a solution; blend's unsafe half makes DCFR improve.
    _, after = searched_from_agenda_expert
    assert after["blend"] < 0.75 * after["max-margin"], after


@pytest.mark.parametrize("top", ["max-margin", "blend"])
def test_search_keeps_an_equilibrium_blueprint_unexploitable(tiny, top):
    # Safety: with an (8-bit) equilibrium as the blueprint the gadget keeps the search
    # at equilibrium, and so does blend's resolve half; unsafe re-solving does not
    # (measured: 0.025 NashConv).
    game, tree = tiny
    cfr = CFRSolver(tree, "dcfr")
    for _ in range(300):
        cfr.iteration()
    blueprint = TreeBlueprint(tree, cfr.average_strategy())
    base = nash_conv(tree, blueprint_strategy(tree, blueprint))
    strategy, _ = search_strategy(tree, blueprint, LIMITS, seed=1, top=top)
    assert nash_conv(tree, strategy) < base + 1e-3


def full_deck_decision(seed: int):
    """(game, shipped tables, seat 1's posterior) at a random play decision of seat 1 of
    a 2-player full-deck round (random.Random(seed))."""
    game = load(players=2)
    policies = load_policies(game)
    rng = random.Random(seed)
    state = None
    while state is None:
        state = random_play_stop(game, rng, seat=1)
    return game, policies, my_posterior(game, state._s, 1, policies)


def test_blend_copies_of_a_root_are_one_subtree():
    """Depth-limited on the full deck: a root's unsafe copy and its copy below the
    resolve gadget have the same shape and the same leaf values (the same rollouts)."""
    from solver.exact.tree import TERMINAL

    game, policies, post = full_deck_decision(6)  # a decision whose subgame is 2 plays deep
    limits = SearchLimits(iterations=2, max_nodes=20_000, rollout_budget=20_000)
    sub = search(game, post.states, post.weights, 1, policies, limits, seed=9,
                 top="blend").subgame
    count = len(sub.root_node)
    assert sub.top == "blend" and sub.leaves > 0
    first = sub.edge_child[0:2 * count:2]  # the unsafe copies
    gadget = sub.edge_child[1:2 * count:2]
    second = sub.edge_child[sub.child_start[gadget] + 1]  # the gadget's enter edge
    assert np.array_equal(second, sub.root_node)
    size = gadget - first  # the first copy's subtree ends where its gadget starts
    for a, b, n in zip(first.tolist(), second.tolist(), size.tolist()):
        assert np.array_equal(sub.kind[a:a + n], sub.kind[b:b + n])
        leaves = sub.kind[a:a + n] == TERMINAL
        assert np.array_equal(sub.utility[a:a + n][leaves], sub.utility[b:b + n][leaves])


def test_the_search_policy_is_an_openspiel_policy(tiny):
    # OpenSpiel's own exploitability of the search policy equals ours on its tree.
    game, tree = tiny
    policies = PolicySet(game, [])
    ours = nash_conv(tree, search_strategy(tree, policies, LIMITS, seed=1)[0])
    theirs = os_exploitability.nash_conv(game, SearchPolicy(game, policies, LIMITS, seed=1))
    assert theirs == pytest.approx(ours, abs=1e-9)


def test_search_is_deterministic_for_a_seed_and_budget():
    game = load(players=2)
    policies = load_policies(game)
    rng = random.Random(4)
    state = None
    while state is None:
        state = random_play_stop(game, rng, seat=1)
    limits = SearchLimits(iterations=20, max_nodes=20_000, rollout_budget=2000)
    answers = []
    for _ in range(2):
        post = my_posterior(game, state._s, 1, policies)
        result = search(game, post.states, post.weights, 1, policies, limits, seed=9)
        answers.append((result.legal.tolist(), result.probs.tolist(), result.values.tolist(),
                        result.subgame.num_nodes))
    assert answers[0] == answers[1]


def test_order2_roots_hold_my_other_hands(tiny):
    # At my decision the opponent's information states also hold the worlds where I
    # hold other cards (else the opponent would be modelled as knowing my hand).
    game, _ = tiny
    policies = PolicySet(game, [])
    rng = random.Random(2)
    state = random_play_stop(game, rng, seat=1)
    post = my_posterior(game, state._s, 1, policies)
    r = roots(game, post.states, post.weights, 1, policies.bank, policies.chain, 1e-3, 4096)
    mine = {tuple(sorted(s[L.S_HAND + L.MAX_HAND:L.S_HAND + L.MAX_HAND + 2])) for s in
            r.states[:r.order1]}
    assert len(mine) == 1 and r.order2 > 0
    others = {tuple(sorted(s[L.S_HAND + L.MAX_HAND:L.S_HAND + L.MAX_HAND + 2])) for s in
              r.states[r.order1:]}
    assert others - mine
    assert not r.free[r.order1:].any() and r.free[:r.order1].all()


def test_node_locking_gives_the_best_response_to_the_locked_player():
    # Kuhn poker: lock player 0 to uniform play; CFR's average strategy for player 1 is
    # then a best response: its value equals the exact best response's.
    import pyspiel

    game = pyspiel.load_game("kuhn_poker")
    tree = build_tree(game)
    offsets = tree.action_offsets()
    locked = tree.infoset_player == 0
    uniform = np.concatenate([np.full(len(a), 1.0 / len(a)) for a in tree.infoset_actions])
    cfr = CFRSolver(tree, "dcfr", locked, uniform)
    for _ in range(2000):
        cfr.iteration()
    average = cfr.average_strategy()
    for info in np.flatnonzero(locked):
        assert np.allclose(average[offsets[info]:offsets[info + 1]],
                           uniform[offsets[info]:offsets[info + 1]])
    br_value, _ = best_response(tree, uniform, 1)
    assert profile_values(tree, average)[1] == pytest.approx(br_value, abs=2e-3)


QUICK = {"players": 2, "seat": 1, "hand": "jabba,bib", "face_up": "crumb,bib,merc",
         "areas": {0: "han,guard", 1: "r2"}, "saw": {0: "luke"}}


def _hint(data, **kw):
    sit = from_mapping(data)
    game = advice.check_game(sit)
    return advice.hint(sit, game, load_policies(game), rollouts=256, **kw)


def test_hint_answers_by_search_with_schema_3():
    answer = _hint(QUICK, search_iterations=50)
    assert answer["schema_version"] == 5
    assert answer["policy"]["source"] == "search"
    found = answer["policy"]["search"]
    assert found["used"] and found["iterations"] == 50 and found["nodes"] > 0
    assert "1-KLSS" in found["construction"] and "1-KLSS" in answer["policy"]["detail"]
    plays = {p["card"]: p for p in answer["plays"]}
    # Jabba the Hutt against the known Luke Skywalker wins the round (R-rulings: Jabba
    # knocks out a Rebel): the search plays it, the table does not always.
    assert plays["Jabba the Hutt"]["search_probability"] > 0.99
    assert plays["Jabba the Hutt"]["search_value"] == pytest.approx(1.0, abs=1e-6)
    assert answer["recommendation"]["chosen_by"] == "search"
    assert answer["recommendation"]["card"] == "Jabba the Hutt"
    for row in answer["full_actions"]:
        assert 0.0 <= row["search_probability"] <= 1.0
    assert sum(r["search_probability"] for r in answer["full_actions"]) == pytest.approx(1.0)


def test_no_search_gives_the_table_answer():
    answer = _hint(QUICK, search=False)
    assert answer["policy"]["source"] == "table"
    assert answer["policy"]["search"] == {"used": False,
                                          "reason": "not asked for (--no-search)"}
    assert all("search_probability" not in p for p in answer["plays"])


def test_a_subgame_past_every_budget_falls_back_to_the_table_and_says_so():
    answer = _hint(QUICK, search_limits=SearchLimits(iterations=5, max_nodes=3))
    assert answer["policy"]["source"] == "table"
    assert not answer["policy"]["search"]["used"]
    assert "too large" in answer["policy"]["search"]["reason"]
    assert answer["recommendation"]["chosen_by"] != "search"


def test_bad_search_limits_are_refused():
    with pytest.raises(ValueError, match="search seconds must be positive"):
        SearchLimits(seconds=0)
    with pytest.raises(ValueError, match="positive whole number"):
        SearchLimits(iterations=0)


def _run(*args):
    from typer.testing import CliRunner

    from cli.main import app
    return CliRunner().invoke(app, [str(a) for a in args])


def test_search_exact_writes_its_table_with_provenance(tmp_path):
    import csv
    import json

    out = tmp_path / "search_exact.csv"
    result = _run("search-exact", "--decks", "tiny", "--agendas", "exalted_one",
                  "--blueprint-iterations", 2000, "--search-iterations", 10,
                  "--dcfr-iterations", 50, "--out", out)
    assert result.exit_code == 0, result.output
    rows = list(csv.DictReader(out.open()))
    assert list(rows[0]) == ["deck", "players", "agenda", "blueprint_level", "search_top",
                             "search_leaves", "search_max_nodes", "blueprint_exploitability",
                             "search_exploitability", "dcfr_exploitability",
                             "search_seconds", "infostates", "lbr_exact", "lbr", "lbr_low",
                             "lbr_high", "lbr_best_response"]
    assert rows[0]["search_top"] == "max-margin" and rows[0]["search_leaves"] == "single"
    assert rows[0]["deck"] == "tiny" and rows[0]["infostates"] == "108"
    record = json.loads(out.with_suffix(".json").read_text())
    assert record["search_iterations"] == 10 and record["code_version"]
    assert float(rows[0]["dcfr_exploitability"]) < float(rows[0]["blueprint_exploitability"])
    # A second run adds its rows; the first run's row stays, with its command.
    result = _run("search-exact", "--decks", "tiny", "--agendas", "rescue_mission",
                  "--blueprint-iterations", 1000, "--search-iterations", 4,
                  "--dcfr-iterations", 10, "--out", out)
    assert result.exit_code == 0, result.output
    again = list(csv.DictReader(out.open()))
    assert [r["agenda"] for r in again] == ["exalted_one", "rescue_mission"]
    assert again[0] == rows[0]
    record = json.loads(out.with_suffix(".json").read_text())
    assert len(record["parts"]) == 2 and len(record["rows"]) == 2
    assert record["rows"][1]["run"] == record["parts"][1]["started"]
    assert record["game"]["parameters"]["agenda"] == ["exalted_one", "rescue_mission"]


def test_search_commands_refuse_bad_names():
    result = _run("search-exact", "--agendas", "exalted")
    assert result.exit_code == 2 and "allowed are 'all' or a comma list" in result.output
    result = _run("search-exact", "--top", "sometimes")
    assert result.exit_code == 2 and "max-margin" in result.output
    result = _run("search-exact", "--leaves", "many")
    assert result.exit_code == 2 and "single, multi" in result.output
    result = _run("search-duel", "--top", "sometimes", "--deals", 1)
    assert result.exit_code == 2 and "blend" in result.output
    result = _run("search-duel", "--opponents", "nobody", "--deals", 1)
    assert result.exit_code == 2 and "unknown policy 'nobody'" in result.output


class _BankSeat:
    """A bank policy seated where play_deals seats the search."""

    def __init__(self, bank):
        self.arrays = bank.arrays()
        self.searches = self.fallbacks = 0
        self.seconds = 0.0

    def probabilities(self, s, seat):
        from spiel_game import engine
        from solver.policies.compiled import policy_probs

        legal = np.empty(L.NUM_ACTIONS, dtype=np.int32)
        n = engine.legal_actions(s, legal)
        probs = np.empty(L.NUM_ACTIONS)
        policy_probs(s, seat, 0, self.arrays, legal, n, probs)
        return legal[:n], probs[:n]


def test_lbr_seated_against_a_policy_plays_as_lbr_does():
    """LBRPlayer (the lower bound against the search) is run_lbr's LBR: against the same
    policy on the same deals it scores the same, but where the policy's own random tie
    breaks (drawn from another stream) take another path."""
    from solver.evaluation.lbr import run_lbr
    from solver.policies.compiled import build_bank
    from solver.search.evaluate import LBRPlayer, play_deals

    game = load(deck="small")
    bank = build_bank(["keep_higher"], game)
    player = LBRPlayer(game, bank, seed=2)
    estimate, info = play_deals(game, _BankSeat(bank), bank, 0, 60, seed=2, player=player)
    reference = run_lbr(game, bank, 0, 60, seed=2).payoffs.mean(axis=1)
    seated = -np.array(info["values"])
    assert np.mean(seated == reference) >= 0.9
    assert estimate.high < 0  # keep_higher is exploitable: LBR wins
    assert player.belief["decisions"] > 60 and player.belief["lost"] == 0
    with pytest.raises(ValueError, match="takes 2 players"):
        LBRPlayer(load(deck="small", players=3), bank)
