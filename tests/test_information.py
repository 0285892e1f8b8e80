"""Information states: hidden differences are invisible, seen differences are not (R2, R10).

Property tests over random rounds. The reference for "what a player can see" here is
independent of the event log: the observation string (own hand and the public table),
plus who looked at cards (public: everyone sees a look happen, R10).
"""

from __future__ import annotations

import random
from collections import defaultdict

import pytest

from conftest import load, random_action, random_history, replay
from spiel_game import layout as L

HAND_DRAWS = (L.CH_DEAL, L.CH_TURN_DRAW, L.CH_LEIA_DRAW, L.CH_REDRAW)


def _looks_by(state, viewer) -> int:
    """How many times `viewer` looked at a card or got one in a trade (public facts)."""
    return sum(e.kind in (L.E_SEE, L.E_SEE_SET_ASIDE, L.E_TRADE) and e.actor == viewer
               or e.kind == L.E_TRADE and e.other == viewer for e in state.events())


def _substitute(game, history, rng):
    """Change one card drawn into some player's hand; return (index, receiver, new history).

    The new history keeps every later action while it stays legal.
    """
    candidates = []
    for k in range(len(history)):
        state = replay(game, history[:k])
        if state.is_chance_node() and state._s[L.S_CHANCE_KIND] in HAND_DRAWS:
            others = [a for a in state.legal_actions() if a != history[k]]
            if others:
                candidates.append((k, int(state._s[L.S_CHANCE_FOR]), others))
    if not candidates:
        return None
    k, receiver, others = rng.choice(candidates)
    state = replay(game, history[:k])
    state.apply_action(rng.choice(others))
    for action in history[k + 1:]:
        if action not in state.legal_actions():
            break
        state.apply_action(action)
    return k, receiver, state.history()


@pytest.mark.parametrize("players,deck", [(2, "full"), (3, "full"), (4, "full"),
                                          (2, "medium"), (3, "medium")])
def test_hidden_card_changes_are_invisible_and_seen_ones_are_not(players, deck):
    game = load(players=players, deck=deck)
    rng = random.Random(players * 101 + len(deck))
    checked_same = checked_different = 0
    for _ in range(60):
        history = random_history(game, rng)
        result = _substitute(game, history, rng)
        if result is None:
            continue
        k, receiver, changed = result
        # The receiver saw the card: their string differs right after the draw...
        after_draw = replay(game, history[:k + 1])
        changed_draw = replay(game, changed[:k + 1])
        assert (after_draw.information_state_string(receiver)
                != changed_draw.information_state_string(receiver))
        checked_different += 1
        # ...while every other player sees no difference until the table shows one.
        for viewer in range(players):
            if viewer == receiver:
                continue
            looks_before = _looks_by(after_draw, viewer)
            for i in range(k + 1, min(len(history), len(changed)) + 1):
                a, b = replay(game, history[:i]), replay(game, changed[:i])
                if history[:i] != changed[:i] and (
                        a.observation_string(viewer) != b.observation_string(viewer)
                        or _looks_by(a, viewer) > looks_before
                        or _looks_by(b, viewer) > looks_before):
                    break
                assert (a.information_state_string(viewer)
                        == b.information_state_string(viewer)), (history[:i], changed[:i])
                checked_same += 1
    assert checked_same > 50 and checked_different > 20


@pytest.mark.parametrize("players,deck", [(2, "full"), (3, "full"), (2, "medium")])
def test_a_visible_difference_always_shows_in_the_information_state(players, deck, rng):
    """If the present (own hand, table) differs, so does the information state."""
    game = load(players=players, deck=deck)
    for _ in range(40):
        first, second = random_history(game, rng), random_history(game, rng)
        for i in range(1, min(len(first), len(second)) + 1):
            a, b = replay(game, first[:i]), replay(game, second[:i])
            for viewer in range(players):
                if a.observation_string(viewer) != b.observation_string(viewer):
                    assert (a.information_state_string(viewer)
                            != b.information_state_string(viewer))


@pytest.mark.parametrize("players,deck", [(2, "tiny"), (2, "medium"), (3, "medium")])
def test_states_sharing_an_information_state_are_indistinguishable(players, deck, rng):
    """Same string: same player to act, same legal actions, same hand and table."""
    game = load(players=players, deck=deck)
    seen = defaultdict(set)
    for _ in range(1500):
        state = game.new_initial_state()
        while not state.is_terminal():
            if not state.is_chance_node():
                player = state.current_player()
                key = (player, state.information_state_string(player))
                seen[key].add((tuple(state.legal_actions()),
                               state.observation_string(player),
                               tuple(state.information_state_tensor(player))))
            state.apply_action(random_action(state, rng))
    shared = [facts for facts in seen.values()]
    assert all(len(facts) == 1 for facts in shared)
    assert len(seen) > 100


def test_tensor_matches_string_granularity(rng):
    """Information-state tensors separate exactly what strings separate."""
    game = load(players=2, deck="medium")
    by_string, by_tensor = {}, {}
    for _ in range(400):
        state = game.new_initial_state()
        while not state.is_terminal():
            if not state.is_chance_node():
                p = state.current_player()
                text, tensor = state.information_state_string(p), tuple(
                    state.information_state_tensor(p))
                assert by_string.setdefault(text, tensor) == tensor
                assert by_tensor.setdefault(tensor, text) == text
            state.apply_action(random_action(state, rng))


def test_order_of_cards_drawn_together_is_no_information():
    """R1 face-up cards and R9 Leia's two cards are drawn together: order is not seen."""
    game = load(deck="full")
    first, second = replay(game, [1, 3, 13, 5, 6]), replay(game, [13, 1, 3, 5, 6])
    for p in (0, 1):
        assert first.information_state_string(p) == second.information_state_string(p)
        assert first.observation_string(p) == second.observation_string(p)
    leia = load(deck="han+guard+leia+luke+jabba+mercenary+bib+faceup:0")
    first = replay(leia, [10, 1, 0, 10, 12, 13])  # Leia draws Luke then Jabba
    second = replay(leia, [10, 1, 0, 10, 13, 12])  # ... Jabba then Luke
    assert first.information_state_string(0) == second.information_state_string(0)
    assert first.history() != second.history()
