"""Classic Love Letter, 2019 edition (`love_letter`): scripted scenarios per card and per
ruling (docs/RULES.md "Classic Love Letter", C1-C13), OpenSpiel's API checks, information
states, compiled against un-jitted engine agreement, exact exploitability against
OpenSpiel's.

Every dealt or drawn card is a chance outcome chosen by the script (scripting.py); a node
with one option is resolved by the engine and is not scripted.
"""

from __future__ import annotations

import hashlib
import json
import os
import random
import subprocess
import sys
from collections import Counter, defaultdict

import numpy as np
import pyspiel
import pytest

from conftest import random_action, replay
from scripting import CHANCE, act, chance, info, keep, on_top, out, target, tokens, turn
from scripting import name as name_number
from scripting import setup as _setup
from spiel_game import engine
from spiel_game import layout as L
from spiel_game.cards import (BARON, CHANCELLOR, CLASSIC, CLASSIC_CHARACTERS, COUNTESS, GUARD,
                              HANDMAID, KING, PRIEST, PRINCE, PRINCESS, SPY, parse_deck)
from test_information import _looks_by, _substitute

GAME = "love_letter"


def load(**params) -> pyspiel.Game:
    return pyspiel.load_game(GAME, params)


def deck_of(*cards: int, face_up: int = 0) -> str:
    """A classic deck spec holding exactly `cards` (repeat a card for several copies)."""
    counts = Counter(cards)
    return "+".join([f"{CLASSIC_CHARACTERS[c].aliases[0]}:{n}"
                     for c, n in sorted(counts.items())] + [f"faceup:{face_up}"])


def setup(deck: str, hands, face_up=(), utility="margin"):
    return _setup(deck, hands, face_up, utility=utility, game=GAME)


def name(card: int) -> int:
    """The classic Guard names a card: its number (C2)."""
    return name_number(CLASSIC_CHARACTERS[card].number)


def area(state, p) -> tuple[int, ...]:
    return state.view().play_areas[p]


# The game --------------------------------------------------------------------------------

def test_the_game_loads_with_its_parameters_and_refuses_an_agenda():
    game = load()
    assert game.get_type().short_name == GAME
    assert game.get_parameters() == {"players": 2, "utility": "margin", "deck": "full"}
    assert game.num_distinct_actions() == 61  # name 9 (the Princess) is id 60
    assert game.max_chance_outcomes() == 10
    assert sum(c.copies for c in CLASSIC_CHARACTERS) == 21
    with pytest.raises(pyspiel.SpielError, match="agenda"):
        load(agenda="exalted_one")
    from spiel_game.game import LoveLetterGame
    with pytest.raises(ValueError, match="love_letter has no agendas.*C8"):
        LoveLetterGame({"agenda": "exalted_one"})
    with pytest.raises(ValueError, match="Jabba the Hutt.*classic Love Letter"):
        load(deck="jabba+guard:3")


@pytest.mark.parametrize("players", range(2, 7))
def test_openspiel_random_sim_test(players):
    for deck in ("full", "tiny", "small", "medium"):
        if deck != "full" and players > 3:
            continue  # the reduced decks are dealt to 2 or 3 players
        pyspiel.random_sim_test(load(players=players, deck=deck), num_sims=10,
                                serialize=True, verbose=False)


def test_presets_are_small_enough_for_openspiels_exact_tools():
    """tiny and small are about the sizes of Jabba's Palace's (1,374 and 15,565 histories,
    docs/performance.md), which OpenSpiel's own Python tools walk in seconds."""
    from solver.exact.tree import build_tree

    tiny, small = (build_tree(load(deck=deck)).num_nodes for deck in ("tiny", "small"))
    assert 1_000 < tiny < 2_000 and 10_000 < small < 20_000


def test_a_deck_whose_guard_could_name_nothing_is_refused():
    """C2: a Guard may not name 1, so a deck of Guards only has nothing to name."""
    with pytest.raises(ValueError, match="Guard could name no number"):
        parse_deck("guard:6+faceup:0", CLASSIC).check_playable(2)
    parse_deck("guard:5+spy+faceup:0", CLASSIC).check_playable(2)


# C1 setup and turns ------------------------------------------------------------------------

def test_c1_two_players_set_three_cards_face_up_then_deal_one_each():
    state = setup("full", (GUARD, PRINCE), face_up=(GUARD, BARON, PRIEST))
    view = state.view()
    assert view.face_up == (GUARD, PRIEST, BARON)
    assert view.deck_size == 21 - 1 - 3 - 2
    odds = dict(state.chance_outcomes())  # 16 unseen: the deck and the set-aside card
    assert odds[GUARD] == pytest.approx(4 / 16) and odds[PRINCESS] == pytest.approx(1 / 16)
    assert state.action_to_string(CHANCE, KING) == "player 0 draws King"
    three = _setup("full", (SPY, GUARD, BARON), game=GAME)
    assert three.view().face_up == () and three.view().deck_size == 21 - 1 - 3


# C2 the Guard ------------------------------------------------------------------------------

def test_c2_the_guard_names_any_card_of_the_deck_but_the_guard():
    state = setup(deck_of(GUARD, GUARD, PRIEST, BARON, PRINCESS), (GUARD, PRINCESS))
    turn(state, 0, PRIEST, GUARD)  # the only other player is chosen without a decision
    assert state.legal_actions() == [name(PRIEST), name(BARON), name(PRINCESS)]
    assert name(PRINCESS) == 60 and state.action_to_string(0, 60) == "name 9"
    act(state, 0, name(PRINCESS))
    assert out(state) == {1} and tokens(state) == (1, 0)
    assert info(state, 1).endswith("p0 names 9; p1 is out with Princess; round ends: "
                                   "last player")


def test_c2_a_guard_miss_is_public():
    state = setup(deck_of(GUARD, GUARD, PRIEST, BARON, PRINCESS), (GUARD, GUARD))
    turn(state, 0, PRIEST, GUARD)
    act(state, 0, name(BARON))
    assert out(state) == set()
    assert info(state, 1).endswith("p0 names 3; p1 stays in")


# C3 the Countess ---------------------------------------------------------------------------

@pytest.mark.parametrize("partner", [KING, PRINCE])
def test_c3_the_countess_must_be_played_with_the_king_or_a_prince(partner):
    state = setup(deck_of(COUNTESS, partner, GUARD, BARON, SPY), (COUNTESS, GUARD))
    chance(state, partner, receiver=0)
    # No decision: the Countess is the only legal play, resolved by the engine.
    assert state.is_chance_node() and area(state, 0) == (COUNTESS,)
    assert state.view().hands[0] == (partner,)
    assert "p0 plays Countess" in info(state, 1)


def test_c3_the_countess_with_another_card_is_a_free_choice():
    state = setup(deck_of(COUNTESS, PRINCESS, GUARD, BARON, SPY), (COUNTESS, GUARD))
    chance(state, BARON, receiver=0)
    assert state.current_player() == 0 and state.legal_actions() == [BARON, COUNTESS]
    act(state, 0, COUNTESS)  # no effect
    assert area(state, 0) == (COUNTESS,) and state.view().hands[0] == (BARON,)


# C4 choosing and the Handmaid --------------------------------------------------------------

def _three_with_two_handmaids():
    """3 players: p0 and p1 play a Handmaid, p2 (holding a Priest) is to draw."""
    state = _setup(deck_of(HANDMAID, HANDMAID, PRINCE, GUARD, GUARD, BARON, PRIEST, SPY,
                           KING), (GUARD, BARON, PRIEST), game=GAME)
    turn(state, 0, HANDMAID, HANDMAID)
    turn(state, 1, HANDMAID, HANDMAID)
    return state


def test_c4_handmaids_on_every_other_player_make_the_prince_choose_oneself():
    state = _three_with_two_handmaids()
    turn(state, 2, PRINCE, PRINCE)
    # Nobody else can be chosen: p2 discards the Priest kept and draws, no decision.
    assert state.is_chance_node() and area(state, 2) == (PRINCE, PRIEST)
    chance(state, KING, receiver=2)
    assert state.view().hands[2] == (KING,)
    assert info(state, 0).endswith("p2 plays Prince; p2 chooses p2; p2 discards Priest; "
                                   "p2 gets ? (deck)")


def test_c4_handmaids_on_every_other_player_leave_the_guard_without_effect():
    state = _three_with_two_handmaids()
    turn(state, 2, GUARD, GUARD)
    assert info(state, 0).endswith("p2 plays Guard; p2's Guard has no effect")
    assert state.is_chance_node() and state.view().hands[2] == (PRIEST,)


def test_c4_a_protected_player_cannot_be_chosen_and_protection_ends_on_their_turn():
    state = _setup(deck_of(HANDMAID, PRIEST, PRIEST, GUARD, BARON, SPY, KING, PRINCESS),
                   (GUARD, BARON, SPY), game=GAME)
    turn(state, 0, HANDMAID, HANDMAID)
    turn(state, 1, PRIEST, PRIEST)  # p0 is protected: p2 is the only choice
    assert "p1 chooses p2; p1 sees p2's Spy" in info(state, 1)
    assert state.view().protected == (True, False, False)
    chance(state, PRIEST, receiver=2)
    assert state.legal_actions() == [SPY, PRIEST]
    act(state, 2, PRIEST)  # p0 still protected: p1 is the only choice
    assert "p2 chooses p1" in info(state, 0)
    chance(state, KING, receiver=0)
    assert state.view().protected == (False, False, False)


# C5 the Prince -----------------------------------------------------------------------------

def test_c5_the_prince_makes_another_player_discard_and_draw():
    state = setup(deck_of(PRINCE, BARON, GUARD, SPY, KING, PRIEST), (PRINCE, BARON))
    chance(state, GUARD, receiver=0)
    act(state, 0, PRINCE)
    assert state.legal_actions() == [target(0), target(1)]  # oneself too
    act(state, 0, target(1))
    assert area(state, 1) == (BARON,) and state.view().hands[1] == ()
    chance(state, KING, receiver=1)  # the new card, seen by p1 only
    assert info(state, 0).endswith("p0 chooses p1; p1 discards Baron; p1 gets ? (deck)")
    assert info(state, 1).endswith("p1 discards Baron; p1 gets King (deck)")


def test_c5_with_the_deck_empty_the_prince_victim_takes_the_set_aside_card():
    state = setup(deck_of(PRINCE, BARON, GUARD, SPY), (PRINCE, BARON))
    chance(state, GUARD, receiver=0)  # the last card of the deck
    act(state, 0, PRINCE, target(1))
    view = state.view()
    assert state.is_terminal() and view.hands[1] == (SPY,) and view.set_aside_taken
    assert info(state, 0).endswith("p1 discards Baron; p1 gets ? (set-aside); round ends: "
                                   "deck empty")
    assert tokens(state) == (1, 0)  # Guard beats the Spy; a Spy in hand is no Spy played


def test_c5_the_prince_on_oneself_discards_the_kept_card():
    state = setup(deck_of(PRINCE, BARON, GUARD, SPY, KING, PRIEST), (PRINCE, BARON))
    chance(state, GUARD, receiver=0)
    act(state, 0, PRINCE, target(0))
    assert area(state, 0) == (PRINCE, GUARD)
    chance(state, KING, receiver=0)
    assert state.view().hands[0] == (KING,)


# C6 the King -------------------------------------------------------------------------------

def test_c6_the_king_trades_hands_seen_by_the_two_only():
    state = _setup("full", (KING, BARON, PRIEST), game=GAME)
    chance(state, GUARD, receiver=0)
    act(state, 0, KING)
    assert state.legal_actions() == [target(1), target(2)]
    act(state, 0, target(1))
    assert state.view().hands[:2] == ((BARON,), (GUARD,))
    for p in (0, 1):
        assert info(state, p).endswith("p0 trades Guard to p1 for Baron")
    assert info(state, 2).endswith("p0 trades hands with p1")
    assert "Baron" not in info(state, 2)


# C7 the Princess ---------------------------------------------------------------------------

def test_c7_playing_the_princess_puts_one_out():
    state = setup(deck_of(PRINCESS, GUARD, BARON, SPY, PRIEST), (PRINCESS, GUARD))
    chance(state, BARON, receiver=0)
    assert state.legal_actions() == [BARON, PRINCESS]  # legal, and a loss
    act(state, 0, PRINCESS)
    assert area(state, 0) == (PRINCESS, BARON) and tokens(state) == (0, 1)
    assert info(state, 1).endswith("p0 plays Princess; p0 is out with Baron; round ends: "
                                   "last player")


def test_c7_a_prince_on_oneself_holding_the_princess_puts_one_out():
    state = setup(deck_of(PRINCE, PRINCESS, GUARD, BARON, SPY), (PRINCESS, GUARD))
    chance(state, PRINCE, receiver=0)
    act(state, 0, PRINCE, target(0))
    assert state.is_terminal() and out(state) == {0} and tokens(state) == (0, 1)
    assert state.view().hands[0] == ()  # no card drawn
    assert info(state, 1).endswith("p0 chooses p0; p0 is out with Princess; round ends: "
                                   "last player")


def test_c7_a_prince_on_the_princess_holder_puts_them_out():
    state = setup(deck_of(PRINCE, PRINCESS, GUARD, BARON, SPY), (PRINCE, PRINCESS))
    chance(state, GUARD, receiver=0)
    act(state, 0, PRINCE, target(1))
    assert out(state) == {1} and tokens(state) == (1, 0)


# C8 the round's end ------------------------------------------------------------------------

def test_c8_a_tie_for_the_highest_card_makes_every_tied_player_a_winner():
    state = setup(deck_of(GUARD, GUARD, GUARD, PRIEST, BARON), (GUARD, GUARD))
    turn(state, 0, PRIEST, PRIEST)  # looks at p1's Guard, keeps the Guard
    chance(state, GUARD, receiver=1)  # two Guards: the play is forced
    act(state, 1, name(BARON))  # p1 may not name the Guard p0 holds
    assert state.is_terminal() and state.view().end == "deck empty"
    assert tokens(state) == (1, 1)


def test_c8_the_highest_card_wins_at_the_deck_end():
    state = setup(deck_of(GUARD, PRIEST, BARON, HANDMAID, KING), (GUARD, KING))
    turn(state, 0, HANDMAID, HANDMAID)
    chance(state, BARON, receiver=1)
    act(state, 1, BARON)  # p0 is protected: no effect
    assert tokens(state) == (0, 1)


# C9 the Spy --------------------------------------------------------------------------------

def _round_winners(state):
    from solver.evaluation.tournament import round_winners

    winners = np.zeros(state.get_game().num_players(), dtype=np.int32)
    round_winners(state._s, winners)
    return tuple(winners.tolist())


def test_c9_a_spy_played_by_one_player_alone_gives_a_token():
    state = setup(deck_of(SPY, GUARD, BARON, KING, COUNTESS), (SPY, GUARD))
    turn(state, 0, BARON, SPY)
    turn(state, 1, KING, GUARD, name(KING))  # a miss: p0 keeps the Baron
    assert state.is_terminal()
    assert tokens(state) == (1, 1)  # p1 wins with the King; p0 has the Spy's token
    assert _round_winners(state) == (0, 1)  # a Spy token makes no round winner (C13)


def test_c9_spies_played_by_two_players_still_in_give_nothing():
    state = setup(deck_of(SPY, SPY, GUARD, BARON, KING), (SPY, SPY))
    turn(state, 0, BARON, SPY)
    turn(state, 1, KING, SPY)
    assert tokens(state) == (0, 1)


def test_c9_one_player_playing_both_spies_gets_one_token():
    state = setup(deck_of(SPY, SPY, GUARD, BARON, PRIEST, KING), (SPY, GUARD))
    chance(state, SPY, receiver=0)  # two Spies: the play is forced
    turn(state, 1, PRIEST, PRIEST)
    turn(state, 0, BARON, SPY)
    assert tokens(state) == (2, 0)  # Baron beats the Guard, and one Spy token only


def test_c9_the_spy_of_a_player_out_counts_for_nobody():
    """p1 played a Spy and went out; p0, the only Spy player left, gains the token."""
    state = _setup(deck_of(SPY, SPY, GUARD, BARON, KING, PRIEST, HANDMAID, COUNTESS),
                   (SPY, SPY, GUARD), game=GAME)
    turn(state, 0, BARON, SPY)
    turn(state, 1, PRIEST, SPY)  # keeps the Priest
    turn(state, 2, KING, GUARD, target(1), name(PRIEST))
    assert out(state) == {1}
    turn(state, 0, HANDMAID, HANDMAID)
    assert state.is_terminal()  # the deck is empty
    assert tokens(state) == (1, 0, 1)  # p2's King wins; p0 has the Spy's token


def test_c9_a_spy_discarded_to_a_prince_counts_as_discarded():
    state = setup(deck_of(PRINCE, SPY, GUARD, BARON, KING, COUNTESS), (PRINCE, SPY))
    chance(state, GUARD, receiver=0)
    act(state, 0, PRINCE, target(1))
    chance(state, BARON, receiver=1)
    assert area(state, 1) == (SPY,)
    turn(state, 1, KING, BARON)  # Baron 3 v Guard 1: p0 is out
    assert tokens(state) == (0, 2)  # the last player, and the only one with a Spy


# C10 knocked-out discards ------------------------------------------------------------------

def test_c10_a_knocked_out_spy_gives_nothing_and_a_knocked_out_princess_does_nothing():
    state = setup(deck_of(GUARD, SPY, BARON, KING, PRINCESS, PRIEST), (BARON, SPY))
    turn(state, 0, GUARD, GUARD, name(SPY))
    assert out(state) == {1} and area(state, 1) == (SPY,) and tokens(state) == (1, 0)
    state = setup(deck_of(GUARD, PRINCESS, BARON, KING, PRIEST), (BARON, PRINCESS))
    turn(state, 0, GUARD, GUARD, name(PRINCESS))
    assert out(state) == {1} and tokens(state) == (1, 0)


# C11 the Chancellor ------------------------------------------------------------------------

def test_c11_the_chancellor_with_two_cards_left_keeps_one_returns_two_in_order():
    state = setup(deck_of(CHANCELLOR, SPY, GUARD, PRIEST, BARON, HANDMAID, KING),
                  (CHANCELLOR, SPY))
    turn(state, 0, GUARD, CHANCELLOR)
    chance(state, PRIEST, BARON, receiver=0)
    assert state.legal_actions() == [keep(GUARD), keep(PRIEST), keep(BARON)]
    act(state, 0, keep(GUARD), on_top(BARON))
    view = state.view()
    assert view.hands[0] == (GUARD,) and view.bottom == (BARON, PRIEST)
    assert view.deck_size == 3
    assert "p0 returns Baron above Priest to the bottom" in info(state, 0)
    assert "p0 keeps ?; p0 returns 2 cards to the bottom" in info(state, 1)
    assert "Baron" not in info(state, 1)
    assert state.legal_actions() == [HANDMAID, KING]  # the unknown part is drawn first
    turn(state, 1, HANDMAID, HANDMAID)
    assert state.view().hands[0] == (GUARD, BARON)  # then the returned cards, in order


def test_c11_the_chancellor_with_one_card_left_draws_one_returns_one():
    state = setup(deck_of(CHANCELLOR, SPY, GUARD, KING, COUNTESS), (CHANCELLOR, SPY))
    turn(state, 0, GUARD, CHANCELLOR)
    chance(state, KING, receiver=0)
    assert state.legal_actions() == [keep(GUARD), keep(KING)]
    act(state, 0, keep(KING))  # the Guard goes back; p1 draws it with no chance node
    assert state.current_player() == 1 and state.view().hands[1] == (SPY, GUARD)
    assert info(state, 1).endswith("p0 keeps ?; p0 returns ? to the bottom; "
                                   "p1 gets Guard (bottom)")
    act(state, 1, GUARD, name(KING))
    assert tokens(state) == (0, 1)


def test_c11_the_chancellor_with_an_empty_deck_has_no_effect():
    state = setup(deck_of(CHANCELLOR, SPY, GUARD, KING), (CHANCELLOR, SPY))
    turn(state, 0, GUARD, CHANCELLOR)
    assert info(state, 1).endswith("p0 plays Chancellor; p0's Chancellor has no effect; "
                                   "round ends: deck empty")
    assert tokens(state) == (1, 0)


# C12 who learns what -----------------------------------------------------------------------

def test_c12_the_priests_look_is_private():
    state = _setup("full", (PRIEST, BARON, SPY), game=GAME)
    turn(state, 0, GUARD, PRIEST, target(1))
    assert info(state, 0).endswith("p0 sees p1's Baron")
    for p in (1, 2):
        assert info(state, p).endswith("p0 sees p1's hand")
    assert "Baron" not in info(state, 2)


def test_c12_the_barons_comparison_is_seen_by_the_two_players():
    state = _setup("full", (BARON, PRIEST, SPY), game=GAME)
    turn(state, 0, KING, BARON, target(1))
    assert out(state) == {1}
    assert "p0 sees p1's Priest; p1 sees p0's hand; p1 is out" in info(state, 0)
    assert "p0 sees p1's hand; p1 sees p0's King; p1 is out" in info(state, 1)
    assert "King" not in info(state, 2) and "p1 is out with Priest" in info(state, 2)


@pytest.mark.parametrize("players,deck", [(2, "full"), (3, "full"), (2, "medium")])
def test_hidden_card_changes_are_invisible_to_the_others(players, deck):
    """As tests/test_information.py for Jabba's Palace: another card drawn into a hand
    changes its owner's information state, nobody else's until the table shows it."""
    game = load(players=players, deck=deck)
    rng = random.Random(players * 31 + len(deck))
    same = different = 0
    for _ in range(40):
        history = []
        state = game.new_initial_state()
        while not state.is_terminal():
            action = random_action(state, rng)
            history.append(action)
            state.apply_action(action)
        result = _substitute(game, history, rng)
        if result is None:
            continue
        k, receiver, changed = result
        assert (replay(game, history[:k + 1]).information_state_string(receiver)
                != replay(game, changed[:k + 1]).information_state_string(receiver))
        different += 1
        for viewer in set(range(players)) - {receiver}:
            looks = _looks_by(replay(game, history[:k + 1]), viewer)
            for i in range(k + 1, min(len(history), len(changed)) + 1):
                a, b = replay(game, history[:i]), replay(game, changed[:i])
                if history[:i] != changed[:i] and (
                        a.observation_string(viewer) != b.observation_string(viewer)
                        or max(_looks_by(a, viewer), _looks_by(b, viewer)) > looks):
                    break
                assert a.information_state_string(viewer) == b.information_state_string(
                    viewer)
                same += 1
    assert same > 30 and different > 20


def test_states_sharing_an_information_state_are_indistinguishable(rng):
    game = load(deck="medium")
    seen = defaultdict(set)
    for _ in range(600):
        state = game.new_initial_state()
        while not state.is_terminal():
            if not state.is_chance_node():
                p = state.current_player()
                seen[p, state.information_state_string(p)].add(
                    (tuple(state.legal_actions()), state.observation_string(p),
                     tuple(state.information_state_tensor(p))))
            state.apply_action(random_action(state, rng))
    assert len(seen) > 100 and all(len(facts) == 1 for facts in seen.values())


def test_tensors_have_the_classic_shapes():
    game = load(players=3)
    state = _setup("full", (PRIEST, BARON, SPY), game=GAME)
    events = game.make_py_observer(pyspiel.IIGObservationType(perfect_recall=True))
    assert events.dict["hand"].shape == (10,)
    assert events.dict["events"].shape[1] == L.NUM_EVENT_KINDS + 12 + 2 * 11
    assert len(state.information_state_tensor(0)) == game.information_state_tensor_size()
    assert len(state.observation_tensor(0)) == game.observation_tensor_size()


# C13 the match ---------------------------------------------------------------------------

def test_c13_matches_end_at_the_token_goals():
    from solver.evaluation.tournament import TOKEN_GOAL, play_lineup
    from solver.policies.compiled import build_bank

    assert TOKEN_GOAL == {2: 6, 3: 5, 4: 4, 5: 3, 6: 3}
    for players in (2, 4):
        game = load(players=players)
        bank = build_bank(["classic_expert", "uniform"], game)
        result = play_lineup(game, bank, [0] + [1] * (players - 1), deals=0, matches=100,
                             seed=2)
        assert (result.wins.sum(axis=2) >= 1).all()
        # A round gives at most 2 tokens (a win and the Spy), so a match lasts at least
        # half the goal in rounds.
        assert result.match_rounds.min() >= TOKEN_GOAL[players] / 2


# The engine, compiled and un-jitted ----------------------------------------------------------

JIT_CONFIGS = [(2, "full"), (3, "full"), (4, "full"), (6, "full"), (2, "medium")]


def playout_digests(rounds: int = 25) -> dict[str, str]:
    """SHA-256 of the final states of seeded random classic rounds, per configuration."""
    from solver.sim import playout
    from solver.sim.rng import STREAM_RANDOM_PLAYOUT, stream_seed

    digests = {}
    for players, deck in JIT_CONFIGS:
        spec = parse_deck(deck, CLASSIC)
        initial = engine.new_state(players, 0, 0, spec.engine_counts(),
                                   spec.face_up(players), rules=CLASSIC.id)
        h = hashlib.sha256()
        rng = np.array([stream_seed(99 + players, STREAM_RANDOM_PLAYOUT, 0)],
                       dtype=np.uint64)
        for _ in range(rounds):
            state = initial.copy()
            playout.random_playout(state, rng)
            h.update(state.tobytes())
        digests[f"{players}-{deck}"] = h.hexdigest()
    return digests


def test_compiled_and_interpreted_engines_agree_on_classic_rounds():
    compiled = playout_digests()
    env = {**os.environ, "NUMBA_DISABLE_JIT": "1"}
    code = ("import json, test_love_letter as t; "
            "assert type(t.engine.apply_action).__name__ == 'function', 'still compiled'; "
            "print(json.dumps(t.playout_digests()))")
    result = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True,
                            text=True, cwd=os.path.dirname(__file__), timeout=600)
    assert result.returncode == 0, result.stderr
    assert json.loads(result.stdout.strip().splitlines()[-1]) == compiled


def test_random_rounds_use_every_card_rule():
    """Random classic rounds reach every event kind and end kind the rules allow."""
    from spiel_game.events import events as read_events

    kinds, ends = set(), set()
    rng = random.Random(5)
    for _ in range(400):
        state = load(players=rng.choice((2, 3))).new_initial_state()
        while not state.is_terminal():
            state.apply_action(random_action(state, rng))
        kinds |= {e.kind for e in read_events(state._s)}
        ends.add(state.view().end)
    jabba_only = {L.E_TARGET_SET_ASIDE, L.E_SEE_SET_ASIDE, L.E_NO_TRADE, L.E_STEAL}
    assert kinds == set(range(L.NUM_EVENT_KINDS)) - jabba_only
    assert ends == {"last player", "deck empty"}  # nobody-left is Rancor's (R7)


# Exact solving, cross-checked with OpenSpiel ---------------------------------------------------

def test_exact_exploitability_equals_openspiels_on_the_tiny_deck():
    from open_spiel.python import policy as policy_lib
    from open_spiel.python.algorithms import exploitability as openspiel_exploitability

    from solver.exact.best_response import exploitability
    from solver.exact.tree import build_tree
    from solver.exact.tree_policy import strategy_from_policy
    from solver.policies.heuristics import ClassicExpert

    game = load(deck="tiny")
    tree = build_tree(game)
    for policy in (policy_lib.UniformRandomPolicy(game), ClassicExpert(game)):
        ours = exploitability(tree, strategy_from_policy(tree, policy))
        theirs = openspiel_exploitability.exploitability(game, policy)
        assert ours == pytest.approx(theirs, abs=1e-9) and ours > 0.01


# The rules document ----------------------------------------------------------------------

def test_the_classic_section_agrees_with_the_card_data_and_names_every_card():
    from spiel_game import rulebook

    book = rulebook.load()
    assert sorted(book.classic_cards) == [c.id for c in CLASSIC_CHARACTERS]
    for c in CLASSIC_CHARACTERS:
        row = book.classic_cards[c.id]
        assert (row.name, row.number, row.copies) == (c.name, c.number, c.copies)
        assert any(c.id in r.cards for r in book.classic_rulings), c.name
    assert [r.number for r in book.classic_rulings] == [f"C{n}" for n in range(1, 14)]
    for r in book.classic_rulings:
        assert r.body.startswith('> "'), r.number  # the rulebook passage first


def test_cited_classic_rulings_exist():
    """Every "C<n>" the code and tests cite as a ruling is one of C1-C13."""
    import re
    from pathlib import Path

    root = Path(__file__).resolve().parents[1]
    cited = set()
    for path in [*root.glob("spiel_game/*.py"), *root.glob("solver/**/*.py"),
                 Path(__file__)]:
        cited |= {int(n) for n in re.findall(r"\bC(\d+)\b", path.read_text())}
    assert cited and cited <= set(range(1, 14)), sorted(cited)


def test_jabba_rules_prints_a_classic_card_and_its_rulings():
    from typer.testing import CliRunner

    from cli.main import app

    result = CliRunner().invoke(app, ["rules", "--game", "love_letter", "countess"])
    assert result.exit_code == 0, result.output
    assert result.output.startswith("Countess (8, 1 copy): No effect; must be played")
    assert "C3. The Countess" in result.output
