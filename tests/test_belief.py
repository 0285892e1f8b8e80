"""The belief engine (solver/belief) against the exact posterior, and the log grammar.

The exact posterior is computed independently: the whole tree of a reduced deck
(solver/exact/tree.py `build_tree`) walked with the engine, every history weighted by the
chance odds and a policy's probabilities (Python `probabilities`), grouped by the
viewer's information state (the tree's infosets, from events.redact) or, for a partial
log, by a plain greedy matcher of the pattern against each history's redacted log.
"""

from __future__ import annotations

import random
from collections import defaultdict

import numpy as np
import pyspiel
import pytest

from conftest import load, random_action
from solver.belief import ANY, hidden_state, omissible, posterior
from solver.exact.tree import CHANCE, DECISION, build_tree
from solver.policies.compiled import build_bank, probabilities
from spiel_game import engine
from spiel_game import layout as L
from spiel_game.events import (HIDDEN, LINE_FORMS, UNSTATED, Event, describe, doc_form,
                               events, log_array, parse_line, redact)

PARTICLES = 512  # enough for these trees: every test asserts nothing was dropped


def _viewer_nodes(tree, bank, policy, viewer, floor=0.0):
    """Every decision node of viewer: (infoset, phase, redacted log rows, table, reach),
    reach = chance odds x the policy's probabilities (at least floor) of the others'."""
    out = []
    stack = [(0, tree.game.initial_array.copy(), 1.0)]
    while stack:
        node, s, reach = stack.pop()
        kind = tree.kind[node]
        start, n = tree.child_start[node], tree.num_children[node]
        edges = range(start, start + n)
        if kind == DECISION:
            player = int(tree.player[node])
            if player == viewer:
                rows = [tuple(r) for r in redact(log_array(s), viewer).tolist()]
                out.append((int(tree.infoset[node]), int(s[L.S_PHASE]), rows, hidden_state(s),
                            reach))
                factors = [1.0] * n
            else:
                legal, probs, _ = probabilities(bank, policy, s, player)
                assert list(legal) == [int(tree.edge_action[e]) for e in edges]
                factors = [max(float(p), floor) for p in probs]
        elif kind == CHANCE:
            factors = [float(tree.edge_prob[e]) for e in edges]
        else:
            continue
        for e, f in zip(edges, factors):
            if f > 0:
                child = s.copy()
                engine.apply_action(child, int(tree.edge_action[e]))
                stack.append((int(tree.edge_child[e]), child, reach * f))
    return out


def _greedy_match(pattern, rows, viewer) -> bool:
    """Does a redacted log show this pattern? Lines in order, each fitting the next
    event (ANY fits anything); events a log may leave out skipped when they do not."""
    ptr = 0
    for row in rows:
        if ptr < len(pattern) and all(p == ANY or p == v for p, v in zip(pattern[ptr], row)):
            ptr += 1
        elif omissible(row[0], row[1], viewer):
            continue
        else:
            return False
    return ptr == len(pattern)


def _distribution(states, weights) -> dict:
    got = defaultdict(float)
    for s, w in zip(states, weights):
        got[hidden_state(s)] += w
    return got


def _assert_equal(got: dict, exact: dict, where) -> None:
    total = sum(exact.values())
    assert total > 0, where
    assert set(got) == {k for k, w in exact.items() if w > 0}, where
    for k, w in exact.items():
        assert got[k] == pytest.approx(w / total, abs=1e-9), where


CASES = [("tiny", 2, "card_counter", 1), ("tiny", 2, "uniform", 1),
         ("tiny", 3, "keep_lower", 1), ("small", 2, "card_counter", 5),
         ("small", 2, "results/policy_small_exalted_one_2p_identity.npz", 9)]


@pytest.mark.parametrize("deck,players,policy_name,every", CASES)
def test_posterior_of_a_complete_log_is_the_exact_posterior(deck, players, policy_name,
                                                            every):
    """At every information state (every `every`-th on the small deck): the particles'
    distribution over the hidden state is the exact Bayes posterior. An `identity` table
    reads the whole log: the engine then merges only on every player's log (exact too)."""
    from pathlib import Path
    if policy_name.endswith(".npz"):
        policy_name = str(Path(__file__).resolve().parent.parent / policy_name)
    game = load(deck=deck, players=players)
    tree = build_tree(game)
    bank = build_bank([policy_name], game)
    checked = 0
    for viewer in range(players):
        by_infoset = defaultdict(lambda: defaultdict(float))
        rows_of = {}
        for infoset, _, rows, table, reach in _viewer_nodes(tree, bank, 0, viewer):
            by_infoset[infoset][table] += reach
            rows_of[infoset] = rows
        for infoset in sorted(by_infoset)[::every]:
            post = posterior(game, viewer, np.array(rows_of[infoset]), bank=bank, chain=[0],
                             max_particles=PARTICLES)
            assert post.complete and post.stats["lost"] == 0
            _assert_equal(_distribution(post.states, post.weights), by_infoset[infoset],
                          (viewer, infoset))
            # The marginals are the particles' hands.
            hands = post.hands()
            assert hands[viewer].sum() == pytest.approx(
                post.states[0][L.S_HAND_N + viewer])
            checked += 1
    assert checked >= 20


def _partial(rows, viewer, rng: random.Random):
    """A pattern a player could write for this log: some omissible events left out,
    some fields unstated (ANY)."""
    pattern = []
    for row in rows:
        if omissible(row[0], row[1], viewer) and rng.random() < 0.5:
            continue
        row = list(row)
        for f in (1, 2, 3, 4):
            if rng.random() < 0.15:
                row[f] = ANY
        pattern.append(tuple(row))
    return pattern


@pytest.mark.parametrize("deck,players,policy_name,floor,every", [
    ("tiny", 2, "card_counter", 1e-3, 1), ("tiny", 3, "uniform", 0.0, 1),
    ("small", 2, "keep_lower", 1e-3, 7)])
def test_posterior_of_a_partial_log_sums_the_histories_it_matches(deck, players,
                                                                  policy_name, floor,
                                                                  every):
    """A log with lines left out and fields unstated, at the start of the viewer's turn:
    the exact posterior summed over every history whose redacted log the pattern
    matches, with the hint's floor on the opponents' probabilities."""
    game = load(deck=deck, players=players)
    tree = build_tree(game)
    bank = build_bank([policy_name], game)
    rng = random.Random(7)
    checked = 0
    for viewer in range(players):
        nodes = [x for x in _viewer_nodes(tree, bank, 0, viewer, floor)
                 if x[1] == L.PH_PLAY]
        seen = {}
        for infoset, _, rows, _, _ in nodes:
            seen.setdefault(infoset, rows)
        for infoset in sorted(seen)[::every]:
            pattern = _partial(seen[infoset], viewer, rng)
            exact = defaultdict(float)
            for _, _, rows, table, reach in nodes:
                if _greedy_match(pattern, rows, viewer):
                    exact[table] += reach
            post = posterior(game, viewer, np.array(pattern).reshape(-1, L.EVENT_SIZE),
                             bank=bank, chain=[0], floor=floor, omissions=True,
                             done_phase=L.PH_PLAY, max_particles=PARTICLES)
            assert post.complete
            if not exact:  # greedy: an unstated line may take an event meant for later
                assert len(post.states) == 0, pattern
                continue
            _assert_equal(_distribution(post.states, post.weights), exact,
                          (viewer, pattern))
            checked += 1
    assert checked >= 15


def _random_history(game, rng: random.Random):
    """A random round to a random decision of a random seat: (viewer, its actions)."""
    state, stops = game.new_initial_state(), []
    while not state.is_terminal():
        if not state.is_chance_node():
            stops.append((state.current_player(), len(state.history())))
        state.apply_action(random_action(state, rng))
    viewer, length = rng.choice(stops)
    return viewer, state.history()[:length]


@pytest.mark.parametrize("players", [2, 4, 6])
def test_the_filter_deals_every_card_a_true_history_deals(players):
    """The filter deals a player only cards the rest of the log allows (the cards they
    play or show later, less what their misses rule out, what they hold at the end where
    that is given, and for another player not the copies the viewer draws later:
    filter.py `_chance_candidates`), a prune that must keep every history that fits.
    Along true full-deck rounds, complete logs and logs with lines left out, with and
    without the final hands (the viewer's, and another seat's card as a summary's `saw`
    gives it): at every chance node, the true card is a candidate; and after every
    action, every hand fits what the rest of the log allows it (`_hands_fit`, the same
    prune of the cards held: a Leia player's kept card, the card a turn draw must be)."""
    from solver.belief.filter import (NUM_BELIEF_STATS, OMIT_LOG, _chance_candidates,
                                      _hands_fit, _match, future_masks, no_final,
                                      reservations)

    game = load(players=players)
    rng = random.Random(players)
    checked = fitted = 0
    for _ in range(60):
        viewer, actions = _random_history(game, rng)
        s = game.initial_array.copy()
        s[L.S_LOGGING] = 1
        for a in actions:
            engine.apply_action(s, a)
        given = no_final()
        given[viewer] = sum(1 << int(c) for c in set(s[L.S_HAND + viewer * L.MAX_HAND:
                                                       L.S_HAND + viewer * L.MAX_HAND
                                                       + s[L.S_HAND_N + viewer]]))
        other = rng.choice([q for q in range(players) if q != viewer])
        if s[L.S_IN_ROUND + other]:
            given[other] = 1 << int(s[L.S_HAND + other * L.MAX_HAND])
        rows = [tuple(r) for r in redact(log_array(s), viewer).tolist()]
        partial = [r for r in rows if not (omissible(r[0], r[1], viewer) and rng.random() < .5)]
        for pattern, final in ((rows, no_final()), (partial, no_final()), (rows, given),
                               (partial, given)):
            pattern = np.array(pattern, dtype=np.int32).reshape(-1, L.EVENT_SIZE)
            reserve = reservations(pattern, len(pattern), viewer)
            future = future_masks(pattern, len(pattern), viewer, s[L.S_RULES], final)
            stats = np.zeros(NUM_BELIEF_STATS, dtype=np.int64)
            s = game.initial_array.copy()
            s[L.S_LOGGING] = 1
            done, ptr = 0, 0
            for a in actions:
                if s[L.S_PHASE] == L.PH_CHANCE:
                    mask = _chance_candidates(s, ptr, pattern, 0, len(pattern), viewer,
                                              reserve, future)
                    assert (mask >> a) & 1, (players, viewer, done, a)
                    checked += 1
                engine.apply_action(s, a)
                done, ptr = _match(s, done, ptr, pattern, len(pattern), viewer, OMIT_LOG,
                                   stats)
                if ptr < 0:  # greedy: a line left out let an event take a later line
                    break
                assert _hands_fit(s, ptr, future), (players, viewer, done)
                fitted += 1
    assert checked >= 1000 and fitted >= 1000


def test_hint_log_without_information_agrees_with_card_counting():
    """A log of draws and plays only, weighed with the uniform policy (every distinct
    play equally likely): each opponent's hand is distributed as the unseen cards (card
    counting, solver/policies/knowledge.py `unseen_counts`)."""
    from solver.hint.log import log_pattern
    from solver.hint.situation import from_mapping
    from solver.policies.knowledge import knowledge
    from test_hint import _random_prefix

    plain = {L.E_FACE_UP, L.E_DRAW, L.E_PLAY, L.E_NO_EFFECT}
    checked = 0
    for players in (2, 3):
        game = pyspiel.load_game("jabbas_palace", {"players": players})
        bank = build_bank(["uniform"], game)
        for seed in range(80):
            me = seed % players
            state = _random_prefix(game, seed, me)
            if state is None or any(e.kind not in plain for e in events(state._s, me)):
                continue
            log = [describe(e) for e in events(state._s, me)]
            sit = from_mapping({"players": players, "seat": me, "log": log})
            pattern, _ = log_pattern(sit, game)
            post = posterior(game, me, pattern, bank=bank, chain=[0], omissions=True,
                             done_phase=L.PH_PLAY, max_particles=4096)
            assert post.complete
            counting = np.array(knowledge(state, me).unseen_counts, dtype=np.float64)
            hands = post.hands()
            for q in range(players):
                if q != me and state._s[L.S_IN_ROUND + q]:
                    assert np.allclose(hands[q], counting / counting.sum(), atol=1e-9), \
                        (seed, q)
            checked += 1
    assert checked >= 10


# The log-line grammar ------------------------------------------------------------------

def test_describe_and_parse_round_trip_every_event_kind():
    """Over random rounds of 2-5 players, every event as each player sees it: the line
    `describe` writes reads back (parse_line) as the same event, fields the line does
    not state aside, and every form of the grammar table is used (the Prince's discard
    in rounds of classic Love Letter, with its card names)."""
    from spiel_game.cards import CLASSIC, JABBAS_PALACE

    rng = random.Random(3)
    kinds, forms = set(), set()
    for r in range(500):
        players = 2 + r % 4
        rules = JABBAS_PALACE if r < 400 else CLASSIC
        names = tuple(c.name for c in rules.characters)
        game = pyspiel.load_game(rules.game, {"players": players})
        state = game.new_initial_state()
        while not state.is_terminal():
            state.apply_action(random_action(state, rng))
        for viewer in range(players):
            for event in events(state._s, viewer):
                line = describe(event, names)
                parsed = parse_line(line, rules)
                assert parsed.kind == event.kind, line
                for got, want in zip(parsed[1:], event[1:]):
                    assert got == want or got == UNSTATED, (line, event)
                filled = Event(*(e if p == UNSTATED else p for p, e in zip(parsed, event)))
                assert filled == event and describe(filled, names) == line
                kinds.add(event.kind)
                forms.add(next(i for i, (k, fixed, _) in enumerate(LINE_FORMS)
                               if k == event.kind
                               and all(event[f] == v for f, v in fixed.items())))
    assert kinds == set(range(L.NUM_EVENT_KINDS))
    assert forms == set(range(len(LINE_FORMS))), \
        [doc_form(LINE_FORMS[i][2]) for i in set(range(len(LINE_FORMS))) - forms]


def test_parse_reads_the_looser_forms_a_player_types():
    assert parse_line("P0 draws ?") == Event(L.E_DRAW, 0, UNSTATED, HIDDEN, UNSTATED)
    assert parse_line("faceup guard.") == Event(L.E_FACE_UP, UNSTATED, UNSTATED, 1, UNSTATED)
    assert parse_line("p1 is out") == Event(L.E_OUT, 1, UNSTATED, UNSTATED, UNSTATED)
    assert parse_line("p1 returns luke above guard") == Event(L.E_RETURN, 1, 2, 12, 1)
    with pytest.raises(ValueError, match="is not an event; forms: face-up C"):
        parse_line("p0 dances")


def test_the_hint_guide_lists_every_log_line_form():
    from pathlib import Path
    guide = (Path(__file__).resolve().parent.parent / "docs/hint.md").read_text()
    text = " ".join(guide.split())
    missing = [doc_form(form) for _, _, form in LINE_FORMS
               if f"`{doc_form(form)}`" not in text]
    assert not missing, missing
