"""Heuristic policies (solver/policies/heuristics.py) and player knowledge
(solver/policies/knowledge.py).

Three layers: every heuristic gives a valid distribution at every decision of random
rounds; nothing depends on hidden cards (outputs are equal across an information set);
scripted situations with a known answer for each documented rule, and for what a player
knows (docs/RULES.md R2, R8-R10, R13).
"""

from __future__ import annotations

import random
from collections import Counter

import pytest

from conftest import AGENDAS, load, random_action, random_history, tree_decision_states
from scripting import (BIB, BOBA, C3PO, CHEWIE, CRUMB, GUARD, HAN, JABBA, LANDO, LEIA, LUKE,
                       MERC, NO_TRADE, R2D2, RANCOR, TRADE, act, chance, deck_of, keep, name,
                       on_top, setup, target, turn)
from solver.exact.best_response import exploitability
from solver.policies.heuristics import (HEURISTICS, AgendaExpert, CardCounter, KeepHigher,
                                        KeepLower, UniformRandom)
from solver.policies.knowledge import knowledge
from solver.exact.tree_policy import strategy_from_policy
from solver.exact.tree import build_tree
from spiel_game import layout as L
from spiel_game.events import HIDDEN
from test_information import _substitute

GAMES = [(2, "full"), (3, "full"), (4, "full"), (2, "tiny"), (3, "tiny"), (2, "small"),
         (3, "small"), (4, "small")]


def chosen(policy_class, state) -> dict[int, float]:
    """The actions `policy_class` plays with positive probability at `state`."""
    probs = policy_class(state.get_game()).action_probabilities(state)
    return {a: p for a, p in probs.items() if p > 0}


def decision_states(game, rounds: int, rng: random.Random):
    """Every decision state of `rounds` random rounds (copies, in play order)."""
    for _ in range(rounds):
        state = game.new_initial_state()
        while not state.is_terminal():
            if not state.is_chance_node():
                yield state.clone()
            state.apply_action(random_action(state, rng))


# Valid distributions --------------------------------------------------------------------

@pytest.mark.parametrize("players,deck", GAMES)
def test_every_heuristic_gives_a_distribution_over_exactly_the_legal_actions(players, deck):
    rng = random.Random(players * 7 + len(deck))
    for agenda in AGENDAS:
        game = load(players=players, deck=deck, agenda=agenda)
        policies = [cls(game) for cls in HEURISTICS.values()]
        for state in decision_states(game, 6, rng):
            for policy in policies:
                probs = policy.action_probabilities(state)
                assert sorted(probs) == state.legal_actions()
                assert all(p >= 0 for p in probs.values())
                assert sum(probs.values()) == pytest.approx(1.0)


def test_heuristics_play_whole_rounds_and_convert_to_flat_strategies():
    """Heuristics drive rounds, and strategy_from_policy accepts them on the tiny tree."""
    game = load(players=2, deck="tiny")
    tree = build_tree(game)
    for cls in HEURISTICS.values():
        assert exploitability(tree, strategy_from_policy(tree, cls(game))) >= -1e-12
    rng = random.Random(5)
    for players in (2, 3, 4):
        game = load(players=players)
        policy = AgendaExpert(game)
        for _ in range(10):
            state = game.new_initial_state()
            while not state.is_terminal():
                if state.is_chance_node():
                    state.apply_action(random_action(state, rng))
                else:
                    actions, probs = zip(*policy.action_probabilities(state).items())
                    state.apply_action(rng.choices(actions, probs)[0])


# No peeking -----------------------------------------------------------------------------

def _outputs(state, player, policies):
    """What a player's heuristics and knowledge make of a state, comparable across states."""
    return (knowledge(state, player),
            tuple(tuple(sorted(p.action_probabilities(state, player).items()))
                  for p in policies))


def _assert_equal_within_information_sets(game, states) -> int:
    """Group states by (player, information state) and assert one output per group.

    Returns how many groups held more than one state (the checks that mean something).
    """
    policies = [cls(game) for cls in HEURISTICS.values()]
    outputs, sizes = {}, Counter()
    for state in states:
        player = state.current_player()
        key = (player, state.information_state_string(player))
        sizes[key] += 1
        output = _outputs(state, player, policies)
        assert outputs.setdefault(key, output) == output, f"outputs differ within {key}"
    return sum(1 for n in sizes.values() if n > 1)


@pytest.mark.parametrize("players", [2, 3])
def test_no_peeking_on_every_node_of_the_tiny_game(players):
    """Every pair of nodes of the tiny tree sharing an information state gets the same
    knowledge and the same action probabilities from every heuristic."""
    for agenda in ("exalted_one", "my_kind_of_scum"):
        game = load(players=players, deck="tiny", agenda=agenda)
        states = [state for state, _ in tree_decision_states(game)]
        assert _assert_equal_within_information_sets(game, states) > 20


@pytest.mark.parametrize("players,deck,agenda", [(2, "small", "exalted_one"),
                                                 (3, "small", "jabbas_court")])
def test_no_peeking_on_random_rounds(players, deck, agenda):
    """States met in random rounds, grouped by information state (R2, R10)."""
    game = load(players=players, deck=deck, agenda=agenda)
    rng = random.Random(players * 31)
    states = decision_states(game, 150, rng)
    assert _assert_equal_within_information_sets(game, states) > 20


def _decision_states_of(game, history):
    state = game.new_initial_state()
    for action in history:
        if not state.is_chance_node():
            yield state.clone()
        state.apply_action(action)


@pytest.mark.parametrize("players,agenda", [(2, "my_kind_of_scum"), (3, "rescue_mission"),
                                            (4, "exalted_one")])
def test_no_peeking_when_a_hidden_card_is_changed(players, agenda):
    """Full deck: a random round and the same round with one card drawn into some hand
    changed (test_information._substitute); states the other players cannot tell apart
    get the same outputs."""
    game = load(players=players, agenda=agenda)
    rng = random.Random(players * 53)
    states = []
    for _ in range(25):
        history = random_history(game, rng)
        changed = _substitute(game, history, rng)
        if changed is not None:
            states += [*_decision_states_of(game, history),
                       *_decision_states_of(game, changed[2])]
    assert _assert_equal_within_information_sets(game, states) > 20


def test_no_peeking_when_an_unseen_card_is_swapped():
    """p1 was dealt Jabba or Luke, unseen by p0 (R2): p0's Guard names the same either way."""
    def guard_named_by_p0(p1_card):
        state = setup(deck_of(GUARD, HAN, CRUMB, JABBA, LUKE, MERC), (GUARD, p1_card))
        turn(state, 0, HAN, GUARD)
        outputs = {label: cls(state.get_game()).action_probabilities(state)
                   for label, cls in HEURISTICS.items()}
        return state.information_state_string(0), outputs

    assert guard_named_by_p0(JABBA) == guard_named_by_p0(LUKE)


# Knowledge against the hidden truth -----------------------------------------------------

def _true_unseen(state, viewer, k) -> tuple[int, ...]:
    """Cards whose place `viewer` does not know, read from the full state (test only)."""
    s, v = state._s, state.view()
    unseen = Counter({c: int(s[L.S_POOL + c]) for c in range(L.MAX_CHARS)})
    saw_set_aside = any(e.kind == L.E_SEE_SET_ASIDE and e.actor == viewer
                        for e in state.events())
    if v.set_aside is not None and not v.set_aside_taken and not saw_set_aside:
        unseen[v.set_aside] += 1
    unseen.update(c for c, mine in zip(v.bottom, k.bottom) if mine == HIDDEN)
    if v.turn_player != viewer:  # Leia's cards between keep and return (R9)
        unseen.update(int(c) for c in s[L.S_RETURN:L.S_RETURN + s[L.S_RETURN_N]])
    for p, hand in enumerate(v.hands):
        if p != viewer:
            unseen.update(Counter(hand) - Counter(k.known_cards[p]))
    return tuple(unseen[c] for c in range(L.MAX_CHARS))


@pytest.mark.parametrize("players,deck", [(2, "full"), (3, "full"), (5, "full"),
                                          (3, "small")])
def test_knowledge_agrees_with_the_table(players, deck):
    """At every decision, for every player: own hand, play areas, who is out or protected
    (R13), deck size, exact card counting; known cards are really in those hands."""
    game = load(players=players, deck=deck)
    rng = random.Random(players)
    for state in decision_states(game, 40, rng):
        v = state.view()
        for p in range(players):
            k = knowledge(state, p)
            assert k.hand == v.hands[p]
            assert k.hand_sizes == tuple(len(h) for h in v.hands)
            assert (k.play_areas, k.face_up, k.in_round, k.protected, k.deck_size) == (
                v.play_areas, v.face_up, v.in_round, v.protected, v.deck_size)
            for q, cards in enumerate(k.known_cards):
                assert not Counter(cards) - Counter(v.hands[q])
            assert k.unseen_counts == _true_unseen(state, p, k)


# Knowledge, scripted --------------------------------------------------------------------

def _crumb_on_guard():
    """p0 looks at p1's Guard with Salacious Crumb (R10)."""
    state = setup(deck_of(CRUMB, GUARD, GUARD, LUKE, HAN, JABBA, BIB, MERC), (CRUMB, GUARD))
    turn(state, 0, LUKE, CRUMB)
    return state


def test_a_look_makes_the_card_known_and_playing_another_card_keeps_it_known():
    """R10: Salacious Crumb shows p1's Guard to p0 only; p1 then plays the card it drew."""
    state = _crumb_on_guard()
    k0, k1 = knowledge(state, 0), knowledge(state, 1)
    assert k0.known_hands == {1: GUARD} and k1.known_hands == {}
    assert k0.hand_probabilities(1) == {GUARD: 1.0}
    assert k0.unseen_counts[GUARD] == 1  # one Guard seen in p1's hand
    turn(state, 1, HAN, HAN)
    assert knowledge(state, 0).known_hands == {1: GUARD}


def test_playing_the_known_character_makes_the_hand_unknown_again():
    """p1 plays a Guard: it may have been the drawn one, but p0 cannot tell (R2)."""
    state = _crumb_on_guard()
    turn(state, 1, JABBA, GUARD, name(0))
    k0 = knowledge(state, 0)
    assert k0.known_hands == {}
    assert k0.unseen_counts[JABBA] == 1 and k0.unseen_counts[GUARD] == 1
    assert k0.hand_probabilities(1)[JABBA] == pytest.approx(1 / sum(k0.unseen_counts))


def test_boba_fett_makes_a_known_card_public():
    """R8: the taken card goes face up to the Boba Fett player's area; the victim redraws."""
    state = setup(deck_of(CRUMB, JABBA, BOBA, GUARD, HAN, LUKE, MERC), (CRUMB, JABBA))
    turn(state, 0, BOBA, CRUMB)
    assert knowledge(state, 0).known_hands == {1: JABBA}
    turn(state, 1, GUARD, GUARD, name(0))
    turn(state, 0, HAN, BOBA)
    chance(state, LUKE, receiver=1)
    for p in (0, 1):
        k = knowledge(state, p)
        assert k.play_areas[0] == (CRUMB, BOBA, JABBA)
        assert k.unseen_counts[JABBA] == 0
    assert knowledge(state, 0).known_hands == {}
    assert knowledge(state, 1).hand == (LUKE,)


def test_lando_trade_is_known_to_both_and_moves_what_a_third_player_knew():
    """R10: the two traders see both cards; p2, who had looked at p1, now knows p0's card."""
    state = setup(deck_of(LANDO, JABBA, CRUMB, GUARD, HAN, BIB, MERC, LUKE),
                  (LANDO, JABBA, CRUMB))
    turn(state, 0, GUARD, GUARD, target(2), name(0))
    turn(state, 1, HAN, HAN)
    turn(state, 2, BIB, CRUMB, target(1))
    assert knowledge(state, 2).known_hands == {1: JABBA}
    turn(state, 0, MERC, LANDO, target(1), TRADE)
    assert knowledge(state, 0).known_hands == {1: MERC} and knowledge(state, 0).hand == (JABBA,)
    assert knowledge(state, 1).known_hands == {0: JABBA} and knowledge(state, 1).hand == (MERC,)
    assert knowledge(state, 2).known_hands == {0: JABBA}


def test_leia_returned_cards_are_known_when_drawn():
    """R9: only the Leia player knows the returned cards; who draws them holds them."""
    state = setup(deck_of(LEIA, HAN, GUARD, CRUMB, MERC, BIB, JABBA, LUKE), (LEIA, HAN))
    turn(state, 0, GUARD, LEIA)
    chance(state, CRUMB, MERC)
    act(state, 0, keep(GUARD), on_top(MERC))
    k0, k1 = knowledge(state, 0), knowledge(state, 1)
    assert k0.bottom == (MERC, CRUMB) and k1.bottom == (HIDDEN, HIDDEN)
    assert k0.unseen_counts[MERC] == 0 and k1.unseen_counts[MERC] == 1
    assert k0.deck_size == k1.deck_size == state.view().deck_size
    # p1 draws from the shuffled part first, then p0, then p1 draws MERC from the bottom.
    turn(state, 1, BIB, BIB)
    turn(state, 0, JABBA, JABBA)  # p1 is protected: no effect
    act(state, 1, HAN)  # draws MERC (forced), plays Han Solo
    assert knowledge(state, 0).known_hands == {1: MERC}
    assert knowledge(state, 1).known_hands == {}


def test_bib_fortuna_protection_until_the_next_own_turn():
    """R13: protected from the Bib Fortuna play until that player's next turn starts."""
    state = setup(deck_of(BIB, GUARD, HAN, CRUMB, MERC, LUKE, JABBA, R2D2, CHEWIE),
                  (BIB, GUARD, HAN))
    turn(state, 0, CRUMB, BIB)
    assert knowledge(state, 2).protected == (True, False, False)
    turn(state, 1, MERC, GUARD, name(3))  # p0 is protected: p2 is chosen, no decision
    assert knowledge(state, 1).protected == (True, False, False)
    chance(state, JABBA, receiver=2)
    assert knowledge(state, 2).targetable() == (1,)
    act(state, 2, HAN)
    chance(state, LUKE, receiver=0)
    assert knowledge(state, 1).protected == (False, False, False)


# Scripted rules -------------------------------------------------------------------------

def _two_cards(hand, opponent=JABBA, extra=None, agenda="exalted_one"):
    """2 players: p0 holds `hand` (dealt, then drawn); p1 holds `opponent`, unknown to p0.

    The rest of the deck is `extra`, by default three of Han Solo, Crumb, Mercenary, Luke.
    """
    dealt, drawn = hand
    if extra is None:
        extra = [c for c in (HAN, CRUMB, MERC, LUKE) if c not in (*hand, opponent)][:3]
    state = setup(deck_of(dealt, drawn, opponent, *extra), (dealt, opponent), agenda=agenda)
    chance(state, drawn, receiver=0)
    return state


def test_keep_higher_keep_lower_and_uniform_on_the_play():
    state = _two_cards((GUARD, LUKE))
    assert chosen(KeepHigher, state) == {GUARD: 1.0}
    assert chosen(KeepLower, state) == {LUKE: 1.0}
    assert chosen(UniformRandom, state) == {GUARD: 0.5, LUKE: 0.5}
    assert chosen(CardCounter, state) == {GUARD: 1.0}


def test_equal_numbers_split_uniformly():
    state = _two_cards((CRUMB, R2D2))
    assert chosen(KeepHigher, state) == {CRUMB: 0.5, R2D2: 0.5}
    assert chosen(CardCounter, state) == {CRUMB: 0.5, R2D2: 0.5}


def test_card_counter_holds_han_solo():
    """Han Solo scores when held (R11): never played while the other card can be."""
    state = _two_cards((HAN, GUARD))
    assert chosen(KeepHigher, state) == {HAN: 1.0}
    assert chosen(CardCounter, state) == {GUARD: 1.0}


def test_card_counter_names_the_likeliest_number():
    """p0's Guard on p1: unseen are 3 cards numbered 2 and Jabba; p0 names 2 (R5)."""
    state = setup(deck_of(GUARD, HAN, CRUMB, CRUMB, R2D2, JABBA), (GUARD, CRUMB))
    chance(state, HAN, receiver=0)
    assert chosen(CardCounter, state) == {GUARD: 1.0}
    act(state, 0, GUARD)
    assert chosen(CardCounter, state) == {name(2): 1.0}


def test_card_counter_counter_guess_names_the_c3po_players_likeliest_number():
    """R6: after a C-3PO miss, p1 names what p0 most likely holds: one of 2 Guards."""
    state = setup(deck_of(C3PO, LUKE, JABBA, GUARD, GUARD, HAN), (C3PO, LUKE))
    turn(state, 0, JABBA, C3PO, name(8))
    assert state.current_player() == 1
    assert chosen(CardCounter, state) == {name(1): 1.0}


def _p0_looks_at(p1_card, p0_next, extra):
    """p0 looks at p1's card with Crumb, p1 plays a Guard that misses, p0 draws again."""
    state = setup(deck_of(CRUMB, p1_card, LUKE, GUARD, p0_next, *extra), (CRUMB, p1_card))
    turn(state, 0, LUKE, CRUMB)
    turn(state, 1, GUARD, GUARD, name(1))
    chance(state, p0_next, receiver=0)
    assert knowledge(state, 0).known_hands == {1: p1_card}
    return state


def test_card_counter_plays_a_sure_knockout():
    """p1 surely holds R2-D2 (a Rebel): Jabba knocks them out, Luke would not."""
    state = _p0_looks_at(R2D2, JABBA, extra=(GUARD,))
    assert chosen(KeepHigher, state) == {LUKE: 1.0}
    assert chosen(CardCounter, state) == {JABBA: 1.0}


def test_card_counter_names_a_known_card():
    state = _p0_looks_at(R2D2, GUARD, extra=(HAN, JABBA))
    assert chosen(CardCounter, state) == {GUARD: 1.0}
    act(state, 0, GUARD)
    assert chosen(CardCounter, state) == {name(2): 1.0}


def test_card_counter_never_plays_rancor_into_its_own_knockout():
    """R7: p1 surely holds Han Solo (0), so keeping Luke makes p0 the lowest non-0."""
    state = _p0_looks_at(HAN, RANCOR, extra=(BIB, BIB))
    assert chosen(KeepHigher, state) == {RANCOR: 1.0}
    assert chosen(CardCounter, state) == {LUKE: 1.0}


def test_card_counter_never_plays_mercenary_against_a_known_higher_card():
    """p1 surely holds Jabba: a Mercenary keeping Bib Fortuna (4) would lose."""
    state = setup(deck_of(CRUMB, JABBA, BIB, GUARD, MERC, HAN, LUKE), (CRUMB, JABBA))
    turn(state, 0, BIB, CRUMB)
    turn(state, 1, GUARD, GUARD, name(1))
    chance(state, MERC, receiver=0)
    assert chosen(KeepHigher, state) == {MERC: 1.0}
    assert chosen(CardCounter, state) == {BIB: 1.0}


def test_card_counter_jabba_targets_the_known_rebel_holder():
    """3 players: p0 saw p1's R2-D2; p2's card is unknown."""
    state = setup(deck_of(CRUMB, R2D2, GUARD, JABBA, GUARD, HAN, CRUMB, LUKE, MERC),
                  (CRUMB, R2D2, GUARD))
    turn(state, 0, JABBA, CRUMB, target(1))
    turn(state, 1, GUARD, GUARD, target(2), name(8))
    turn(state, 2, CRUMB, CRUMB, target(0))
    chance(state, HAN, receiver=0)
    assert chosen(CardCounter, state) == {JABBA: 1.0}
    act(state, 0, JABBA)
    assert chosen(CardCounter, state) == {target(1): 1.0}
    assert chosen(UniformRandom, state) == {target(1): 0.5, target(2): 0.5}


@pytest.mark.parametrize("p1_card, expected", [(JABBA, TRADE), (CRUMB, TRADE),
                                               (HAN, NO_TRADE), (C3PO, NO_TRADE)])
def test_card_counter_lando_trades_up(p1_card, expected):
    """R10: Lando looks, then trades only for a higher number than the kept Guard."""
    state = setup(deck_of(LANDO, p1_card, GUARD, LUKE, BIB), (LANDO, p1_card))
    turn(state, 0, GUARD, LANDO)
    assert chosen(CardCounter, state) == {expected: 1.0}


def test_card_counter_leia_keeps_the_highest_and_returns_the_lowest_on_top():
    """R9: keep Luke of Guard, Crumb, Luke; Guard goes on top, drawn first."""
    state = setup(deck_of(LEIA, HAN, GUARD, CRUMB, LUKE, MERC, BIB), (LEIA, HAN))
    turn(state, 0, GUARD, LEIA)
    chance(state, CRUMB, LUKE)
    assert chosen(CardCounter, state) == {keep(LUKE): 1.0}
    act(state, 0, keep(LUKE))
    assert chosen(CardCounter, state) == {on_top(GUARD): 1.0}


@pytest.mark.parametrize("agenda, expected", [("jabbas_court", JABBA), ("exalted_one", GUARD),
                                              ("rescue_mission", GUARD)])
def test_agenda_expert_plays_palace_points_in_jabbas_court_at_the_end(agenda, expected):
    """R12: Jabba's Court scores the play area, so on the last turns Jabba (8) is played."""
    state = _two_cards((GUARD, JABBA), opponent=LUKE, agenda=agenda)
    assert state.view().deck_size <= 2
    assert chosen(AgendaExpert, state) == {expected: 1.0}
    assert chosen(CardCounter, state) == {GUARD: 1.0}


def test_agenda_expert_keeps_the_high_card_early_in_jabbas_court():
    state = _two_cards((GUARD, JABBA), opponent=LUKE,
                       extra=(HAN, CRUMB, CRUMB, MERC, BIB, BIB), agenda="jabbas_court")
    assert state.view().deck_size > 2
    assert chosen(AgendaExpert, state) == {GUARD: 1.0}


@pytest.mark.parametrize("agenda, expected", [("jabbas_court", {CRUMB: 1.0}),
                                              ("rescue_mission", {R2D2: 1.0}),
                                              ("exalted_one", {CRUMB: 0.5, R2D2: 0.5})])
def test_agenda_expert_plays_the_agendas_side_at_the_end(agenda, expected):
    """R12: Rescue Mission counts Rebel cards in the area; Jabba's Court Palace points."""
    state = _two_cards((CRUMB, R2D2), agenda=agenda)
    assert chosen(AgendaExpert, state) == expected


def test_agenda_expert_my_kind_of_scum_keeps_the_top_card_of_its_side():
    """R12: no Rebel above Chewbacca is left, Jabba may still beat Bib Fortuna."""
    state = _two_cards((CHEWIE, BIB), extra=(GUARD, HAN), agenda="my_kind_of_scum")
    assert chosen(CardCounter, state) == {CHEWIE: 1.0}
    assert chosen(AgendaExpert, state) == {BIB: 1.0}
