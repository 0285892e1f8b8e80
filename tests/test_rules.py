"""Scripted scenarios for the rules of one round (docs/RULES.md R1-R13, card effects, payoffs).

Every card that is dealt or drawn is chosen as a chance outcome (see scripting.py); no
test depends on a random seed. R14 (the match: token goals, who starts the next round)
is about a sequence of rounds and is out of scope here: the engine plays one round.
"""

from __future__ import annotations

import pytest

from scripting import (BIB, BOBA, C3PO, CHANCE, CHEWIE, CRUMB, GUARD, HAN, JABBA, LANDO,
                       LEIA, LUKE, MERC, NO_TRADE, R2D2, RANCOR, SET_ASIDE, TRADE, act,
                       chance, deck_of, info, keep, name, new_round, on_top, out, setup,
                       target, tokens, turn)
from spiel_game.cards import CHARACTERS

# Face-up cards for 2-player rounds on the full deck whose face-up cards do not matter.
FACE_UP = (LANDO, R2D2, LEIA)


def card(c: int) -> str:
    return CHARACTERS[c].name


def quiet_round(hands, agenda="exalted_one", utility="margin"):
    """3 players end on the deck with `hands` and play areas BIB / CRUMB / CRUMB.

    p0 plays Bib Fortuna; p1 plays Salacious Crumb (p0 is protected, so on p2); p2 plays
    Salacious Crumb on p1. Nobody goes out. Returns the state before p2's play.
    """
    set_aside = next(c for c in (R2D2, LANDO, CHEWIE, LEIA) if c not in hands)
    state = setup(deck_of(*hands, BIB, CRUMB, CRUMB, set_aside), hands, agenda=agenda,
                  utility=utility)
    turn(state, 0, BIB, BIB)
    turn(state, 1, CRUMB, CRUMB)
    chance(state, CRUMB, receiver=2)
    return state


# R1 setup -------------------------------------------------------------------------------

@pytest.mark.parametrize("deck, size", [("full", 19), ("guard:2+jabba+han+leia+luke+crumb", 7)])
def test_r1_two_players_three_face_up_cards_then_one_card_each(deck, size):
    """R1: with 2 players, 3 cards are set aside face up (public) before the deal."""
    state = new_round(deck)
    for c in (GUARD, JABBA, GUARD):
        assert state.action_to_string(CHANCE, c).startswith("set aside face up")
        chance(state, c)
    assert GUARD not in state.legal_actions()  # both Guards are gone from the pool
    assert state.action_to_string(CHANCE, LEIA) == "deal Leia Organa to player 0"
    chance(state, LEIA)
    assert state.action_to_string(CHANCE, HAN) == "deal Han Solo to player 1"
    chance(state, HAN)
    view = state.view()
    assert view.face_up == (GUARD, GUARD, JABBA)  # set aside together: kept sorted
    assert view.hands == ((LEIA,), (HAN,))
    assert view.deck_size == size - 1 - 3 - 2  # one face-down card is set aside too
    assert view.set_aside is None and not view.set_aside_taken
    # Seat 0 starts by drawing.
    assert state.action_to_string(CHANCE, LUKE) == "player 0 draws Luke Skywalker"
    for p in (0, 1):
        assert "face-up Guard" in info(state, p) and "face-up Jabba the Hutt" in info(state, p)
    assert "Han Solo" not in info(state, 0) and "Leia Organa" not in info(state, 1)


def test_r1_full_deck_draw_odds_count_the_face_down_card():
    """R1: after 3 face-up cards and 2 deals, 14 unseen cards remain (13 deck + 1 set aside)."""
    state = setup("full", (LEIA, HAN), face_up=(GUARD, JABBA, GUARD))
    odds = dict(state.chance_outcomes())
    assert odds[LUKE] == pytest.approx(1 / 14)
    assert odds[BOBA] == pytest.approx(2 / 14)
    assert GUARD not in odds and JABBA not in odds


def test_r1_three_players_no_face_up_cards():
    """R1: the face-up cards exist only with exactly 2 players."""
    state = new_round("full", players=3)
    assert state.action_to_string(CHANCE, JABBA) == "deal Jabba the Hutt to player 0"
    chance(state, JABBA, LUKE)
    assert state.action_to_string(CHANCE, HAN) == "deal Han Solo to player 2"
    chance(state, HAN)
    view = state.view()
    assert view.face_up == ()
    assert view.hands == ((JABBA,), (LUKE,), (HAN,))
    assert view.deck_size == 19 - 1 - 3
    assert state.action_to_string(CHANCE, GUARD) == "player 0 draws Guard"


# R2 turn --------------------------------------------------------------------------------

def _han_turn(dealt: int, drawn: int):
    state = setup(deck_of(HAN, LUKE, GUARD, GUARD, JABBA), (dealt, GUARD))
    turn(state, 0, drawn, HAN)
    return state


def test_r2_opponent_cannot_tell_drawn_card_from_kept_card():
    """R2: p0 holds Han Solo + Luke and plays Han Solo; whether Han was dealt or drawn
    is invisible to p1 (identical information state), visible to p0."""
    played_dealt = _han_turn(dealt=HAN, drawn=LUKE)
    played_drawn = _han_turn(dealt=LUKE, drawn=HAN)
    for state in (played_dealt, played_drawn):
        assert state.view().hands[0] == (LUKE,)
        assert state.view().play_areas[0] == (HAN,)  # R2: the played card stays face up
    assert info(played_dealt, 1) == info(played_drawn, 1)
    assert (played_dealt.information_state_tensor(1)
            == played_drawn.information_state_tensor(1))
    assert info(played_dealt, 0) != info(played_drawn, 0)
    assert "p0 gets ? (deck)" in info(played_dealt, 1)


# R3 out of the round --------------------------------------------------------------------

def _guard_knocks_out_rancor_holder(utility="margin"):
    """3 players: p0's Guard names 6 and knocks out p1, who holds Rancor."""
    state = setup(deck_of(GUARD, GUARD, RANCOR, CRUMB, JABBA, HAN, LUKE),
                  (GUARD, RANCOR, CRUMB), utility=utility)
    turn(state, 0, HAN, GUARD, target(1), name(6))
    return state


def test_r3_out_player_discards_face_up_without_effect_and_is_skipped():
    """R3: the hand goes face up into the own play area, its effect is not resolved (a
    discarded Rancor knocks nobody out); the out player takes no turn, cannot be chosen."""
    state = _guard_knocks_out_rancor_holder()
    view = state.view()
    assert out(state) == {1}
    assert view.hands[1] == () and view.play_areas[1] == (RANCOR,)
    assert view.in_round == (True, False, True)
    assert "p1 is out with Rancor" in info(state, 2)
    # p1's turn is skipped: the next draw is p2's.
    assert state.action_to_string(CHANCE, GUARD) == "player 2 draws Guard"
    chance(state, GUARD)
    # p2 plays Guard: p1 cannot be chosen, so p0 is chosen without a decision.
    act(state, 2, GUARD)
    assert state.view().phase == "name" and state.current_player() == 2
    assert info(state, 2).endswith("p2 plays Guard; p2 chooses p0")
    act(state, 2, name(8))  # p0 holds Han Solo: a miss
    assert "p0 stays in" in info(state, 1)
    # p0's turn again (p1 skipped); Luke on p2's Salacious Crumb ends the round.
    turn(state, 0, LUKE, LUKE)
    assert state.is_terminal() and state.view().end == "last player"
    assert tokens(state) == (2, 0, 0)  # win + Han Solo in hand


def test_r3_out_player_holding_han_solo_gets_no_token():
    """R3/R11: Jabba knocks out p1 holding Han Solo; at the deck end p1 gets nothing."""
    state = setup(deck_of(GUARD, HAN, CRUMB, JABBA, BIB, MERC, LUKE),
                  (GUARD, HAN, CRUMB))
    turn(state, 0, JABBA, JABBA, target(1))
    assert out(state) == {1} and state.view().play_areas[1] == (HAN,)
    turn(state, 2, BIB, BIB)
    turn(state, 0, MERC, MERC)  # p2 is protected and p1 out: no effect
    assert "p0's Mercenary has no effect" in info(state, 2)
    assert state.is_terminal() and state.view().end == "deck empty"
    assert tokens(state) == (0, 0, 1)  # Guard 1 < Crumb 2; the out Han holder gets 0


# R4 choosing ----------------------------------------------------------------------------

def test_r4_never_self_never_out_players():
    """R4: the choosable players are the others still in the round."""
    state = setup("full", (GUARD, LUKE, MERC))
    turn(state, 0, JABBA, GUARD)
    assert state.legal_actions() == [target(1), target(2)]
    act(state, 0, target(1), name(7))
    assert out(state) == {1}
    turn(state, 2, CRUMB, CRUMB)  # p1 is out and p2 cannot choose itself: p0 is chosen
    assert info(state, 0).endswith("p2 plays Salacious Crumb; p2 chooses p0; "
                                   "p2 sees p0's hand")


def test_r4_protected_player_cannot_be_chosen():
    """R4: with p0 protected by Bib Fortuna, p1's Guard can only choose p2."""
    state = setup("full", (HAN, GUARD, MERC))
    turn(state, 0, BIB, BIB)
    turn(state, 1, LUKE, GUARD)
    assert state.view().phase == "name"
    assert info(state, 1).endswith("p1 chooses p2")
    act(state, 1, name(3))
    assert out(state) == {2}


def _p0_protected_p1_to_play(p1_draw: int):
    """2 players: p0 plays Bib Fortuna, then p1 (holding Leia) has drawn `p1_draw`."""
    face_up = [c for c in (RANCOR, R2D2, CHEWIE, LANDO) if c != p1_draw][:3]
    state = setup("full", (BIB, LEIA), face_up=face_up)
    turn(state, 0, HAN, BIB)
    assert state.view().protected == (True, False)
    chance(state, p1_draw, receiver=1)
    return state


@pytest.mark.parametrize("played", [GUARD, C3PO, CRUMB, MERC, CHEWIE, LANDO, BOBA, LUKE,
                                    JABBA])
def test_r4_no_one_to_choose_means_no_effect(played):
    """R4: every "choose another player" card with nobody choosable has no effect."""
    state = _p0_protected_p1_to_play(played)
    act(state, 1, played)
    assert state.view().hands == ((HAN,), (LEIA,))
    assert state.view().play_areas == ((BIB,), (played,))
    assert not out(state)
    assert info(state, 0).endswith(f"p1 plays {card(played)}; p1's {card(played)} has "
                                   "no effect")
    assert state.action_to_string(CHANCE, GUARD) == "player 0 draws Guard"
    # p0's turn has started and with it p0's protection has ended (R13).
    assert state.view().turn_player == 0 and state.view().protected == (False, False)


def test_r4_r2d2_still_looks_at_the_set_aside_card():
    """R4: R2-D2 with nobody choosable looks at the face-down set-aside card."""
    state = _p0_protected_p1_to_play(R2D2)
    act(state, 1, R2D2)  # the set-aside card is the only option: chosen automatically
    assert state.is_chance_node()
    assert state.action_to_string(CHANCE, JABBA) == "the set-aside card is Jabba the Hutt"
    chance(state, JABBA)
    assert state.view().set_aside == JABBA and not state.view().set_aside_taken
    assert "p1 chooses the set-aside card; p1 sees set-aside Jabba the Hutt" in info(state, 1)
    assert "p1 sees set-aside ?" in info(state, 0)
    assert "Jabba" not in info(state, 0)
    assert JABBA not in state.legal_actions()  # p0's draw: Jabba is no longer in the pool


# R5 naming ------------------------------------------------------------------------------

def test_r5_guard_may_name_1_and_every_number_is_legal_on_the_full_deck():
    """R5: Guard names any number 0-8; naming 1 hits C-3PO."""
    state = setup("full", (GUARD, C3PO), face_up=FACE_UP)
    turn(state, 0, HAN, GUARD)
    assert state.legal_actions() == [name(n) for n in range(9)]
    act(state, 0, name(1))
    assert out(state) == {1} and state.view().play_areas[1] == (C3PO,)
    assert tokens(state) == (2, 0)  # last player + Han Solo


def test_r5_c3po_naming_1_hits_a_guard():
    """R5: C-3PO may name 1 too, hitting a Guard."""
    state = setup("full", (C3PO, GUARD), face_up=FACE_UP)
    turn(state, 0, LUKE, C3PO)
    assert state.legal_actions() == [name(n) for n in range(9)]
    act(state, 0, name(1))
    assert out(state) == {1} and tokens(state) == (1, 0)


# R6 C-3PO -------------------------------------------------------------------------------

def _c3po_misses_p1():
    """3 players: p0 holds C-3PO + Luke, plays C-3PO on p1 (Guard) naming 5: a miss."""
    state = setup("full", (C3PO, GUARD, CRUMB))
    turn(state, 0, LUKE, C3PO, target(1), name(5))
    return state


def test_r6_c3po_miss_chosen_player_names_and_hits():
    """R6: after a miss the chosen player (p1, not p2) names; 7 knocks out p0 (Luke)."""
    state = _c3po_misses_p1()
    assert state.current_player() == 1 and state.view().phase == "counter"
    assert state.legal_actions() == [name(n) for n in range(9)]
    act(state, 1, name(7))
    assert out(state) == {0}
    assert state.view().play_areas[0] == (C3PO, LUKE)
    assert info(state, 2).endswith("p0 names 5; p1 stays in; p1 names 7; "
                                   "p0 is out with Luke Skywalker")


def test_r6_c3po_counter_miss_keeps_both_in():
    """R6: a wrong counter guess leaves the C-3PO player in."""
    state = _c3po_misses_p1()
    act(state, 1, name(3))
    assert not out(state)
    assert info(state, 2).endswith("p1 names 3; p0 stays in")


def test_r6_c3po_hit_has_no_counter():
    """R6: a hit knocks the chosen player out and nobody names back."""
    state = setup("full", (C3PO, GUARD, CRUMB))
    turn(state, 0, LUKE, C3PO, target(2), name(2))
    assert out(state) == {2}
    assert state.is_chance_node()  # p1's draw, no counter decision
    assert state.action_to_string(CHANCE, HAN) == "player 1 draws Han Solo"


# R7 Rancor ------------------------------------------------------------------------------

@pytest.mark.parametrize("kept, p1, p2, knocked_out", [
    pytest.param(LUKE, GUARD, MERC, {1}, id="lowest-out"),
    pytest.param(LUKE, GUARD, C3PO, {1, 2}, id="ties-all-out"),
    pytest.param(LUKE, HAN, CRUMB, {2}, id="han-never-lowest"),
    pytest.param(GUARD, LUKE, MERC, {0}, id="rancor-player-included"),
    pytest.param(CRUMB, R2D2, JABBA, {0, 1}, id="rancor-player-in-a-tie"),
])
def test_r7_rancor(kept, p1, p2, knocked_out):
    """R7: the lowest non-0 hand(s) among everyone in the round are out."""
    state = setup("full", (kept, p1, p2))
    turn(state, 0, RANCOR, RANCOR)
    assert out(state) == knocked_out
    for p in knocked_out:
        assert state.view().play_areas[p][-1] == (kept, p1, p2)[p]
    if len(knocked_out) == 2:
        assert state.is_terminal() and state.view().end == "last player"
    else:
        assert not state.is_terminal()


def test_r7_rancor_includes_protected_players():
    """R7: Bib Fortuna's protection does not save p1 from Rancor."""
    state = setup("full", (LUKE, GUARD, JABBA))
    turn(state, 0, HAN, HAN)
    turn(state, 1, BIB, BIB)
    turn(state, 2, CRUMB, CRUMB)  # on p0, as p1 is protected
    assert state.view().protected == (False, True, False)
    turn(state, 0, RANCOR, RANCOR)
    assert out(state) == {1}


def test_r7_rancor_everyone_out_no_winner_no_tokens():
    """R7/R11: Rancor ties everyone: the round ends with nobody left and no tokens."""
    state = setup("full", (GUARD, C3PO), face_up=FACE_UP)
    turn(state, 0, RANCOR, RANCOR)
    assert out(state) == {0, 1}
    assert state.is_terminal() and state.view().end == "nobody left"
    assert tokens(state) == (0, 0) and state.returns() == [0.0, 0.0]
    assert info(state, 1).endswith("p0 is out with Guard; p1 is out with C-3PO; "
                                   "round ends: nobody left")


def test_r7_rancor_han_holder_survives_alone():
    """R7/R11: Rancor knocks out the only non-Han player; the Han holder wins at once
    and gains the Han Solo token too."""
    state = setup("full", (HAN, JABBA), face_up=FACE_UP)
    turn(state, 0, RANCOR, RANCOR)
    assert out(state) == {1} and state.view().end == "last player"
    assert tokens(state) == (2, 0) and state.returns() == [2.0, -2.0]


# R8 Boba Fett ---------------------------------------------------------------------------

def test_r8_boba_fett_takes_the_hand_and_the_victim_redraws():
    """R8: the chosen hand goes face up into the Boba player's area, unresolved; the
    victim draws a new hand from the deck (privately)."""
    state = setup("full", (BOBA, RANCOR), face_up=FACE_UP)
    turn(state, 0, GUARD, BOBA)
    view = state.view()
    assert view.play_areas == ((BOBA, RANCOR), ())
    assert view.hands == ((GUARD,), ())
    assert not out(state)  # the taken Rancor is not resolved
    assert state.action_to_string(CHANCE, JABBA) == "player 1 draws Jabba the Hutt"
    chance(state, JABBA)
    assert state.view().hands == ((GUARD,), (JABBA,))
    assert state.view().deck_size == 13 - 2
    assert info(state, 0).endswith("p0 takes p1's Rancor; p1 gets ? (deck)")
    assert info(state, 1).endswith("p0 takes p1's Rancor; p1 gets Jabba the Hutt (deck)")
    assert state.action_to_string(CHANCE, LUKE) == "player 1 draws Luke Skywalker"


@pytest.mark.parametrize("agenda, expected", [
    ("exalted_one", (1, 0)),  # Jabba 8 > Luke 7
    ("my_kind_of_scum", (1, 1)),  # Jabba: best Palace; Luke: best Rebel
    ("jabbas_court", (1, 0)),  # Boba 5 + taken Guard 1 = 6 > Boba 5 (+ Han, Rebel)
    ("rescue_mission", (0, 1)),  # p1 holds the taken Han Solo, a Rebel card
])
def test_r8_boba_fett_on_empty_deck_and_taken_cards(agenda, expected):
    """R8: with the deck empty the victim takes the face-down set-aside card; a taken
    Han Solo gives no token; taken cards count for Jabba's Court and Rescue Mission."""
    state = setup(deck_of(BOBA, BOBA, GUARD, HAN, JABBA, LUKE), (BOBA, GUARD),
                  agenda=agenda)
    turn(state, 0, HAN, BOBA)  # takes p1's Guard
    chance(state, LUKE, receiver=1)
    turn(state, 1, BOBA, BOBA)  # draws the last deck card, takes p0's Han Solo
    view = state.view()
    assert view.play_areas == ((BOBA, GUARD), (BOBA, HAN))
    assert view.set_aside == JABBA and view.set_aside_taken
    assert view.hands == ((JABBA,), (LUKE,))
    assert "p0 gets Jabba the Hutt (set-aside)" in info(state, 0)
    assert "p0 gets ? (set-aside)" in info(state, 1)
    assert state.is_terminal() and view.end == "deck empty"
    assert tokens(state) == expected


# R9 Leia Organa -------------------------------------------------------------------------

@pytest.mark.parametrize("first, second, expected", [
    (CRUMB, MERC, (0, 1)),  # p0 ends with Salacious Crumb 2, p1 with Mercenary 3
    (MERC, CRUMB, (1, 0)),
])
def test_r9_leia_keeps_one_returns_two_in_chosen_order(first, second, expected):
    """R9/R10: keep 1 of 3; the 2 others go under the deck in the chosen order, known to
    the Leia player only; the unknown cards are drawn first, then the returned ones."""
    state = setup(deck_of(LEIA, GUARD, CRUMB, MERC, BIB, JABBA, HAN), (LEIA, HAN))
    turn(state, 0, GUARD, LEIA)
    chance(state, CRUMB, MERC, receiver=0)
    assert state.legal_actions() == [keep(GUARD), keep(CRUMB), keep(MERC)]
    act(state, 0, keep(GUARD))
    assert state.legal_actions() == [on_top(CRUMB), on_top(MERC)]
    act(state, 0, on_top(first))
    view = state.view()
    assert view.hands[0] == (GUARD,) and view.bottom == (first, second)
    assert view.deck_size == 3  # 1 unknown card + the 2 returned ones
    assert (f"p0 returns {card(first)} above {card(second)} to the bottom"
            in info(state, 0))
    assert "p0 keeps ?; p0 returns 2 cards to the bottom" in info(state, 1)
    assert "Crumb" not in info(state, 1) and "Mercenary" not in info(state, 1)
    # p1 draws from the unknown part: the returned cards are not in the pool.
    assert state.legal_actions() == [BIB, JABBA]
    turn(state, 1, BIB, BIB)
    # Then the returned cards, in the chosen order, with no chance node.
    assert state.current_player() == 0
    assert state.view().hands[0] == tuple(sorted((GUARD, first)))
    assert info(state, 1).endswith("p0 gets ? (bottom)")
    act(state, 0, GUARD)  # p1 is protected: no effect
    assert state.current_player() == 1
    assert state.view().hands[1] == (HAN, second)
    act(state, 1, HAN)
    assert state.is_terminal() and state.view().end == "deck empty"
    assert tokens(state) == expected


def test_r9_leia_with_one_card_in_the_deck_draws_one_returns_one():
    """R9: with 1 card in the deck Leia draws it, keeps 1 of 2 and returns 1."""
    state = setup(deck_of(LEIA, HAN, GUARD, LUKE, JABBA), (LEIA, HAN))
    turn(state, 0, GUARD, LEIA)
    assert state.view().deck_size == 1
    chance(state, LUKE, receiver=0)
    assert state.legal_actions() == [keep(GUARD), keep(LUKE)]
    act(state, 0, keep(LUKE))
    # The return needs no order and p1's draw no chance node: p1 gets the Guard back.
    assert state.current_player() == 1 and state.view().hands[1] == (HAN, GUARD)
    assert state.view().deck_size == 0 and state.view().bottom == ()
    assert info(state, 0).endswith("p0 keeps Luke Skywalker; p0 returns Guard to the bottom; "
                                   "p1 gets ? (bottom)")
    assert info(state, 1).endswith("p0 keeps ?; p0 returns ? to the bottom; "
                                   "p1 gets Guard (bottom)")
    act(state, 1, GUARD, name(7))
    assert state.is_terminal() and tokens(state) == (0, 2)


def test_r9_leia_with_an_empty_deck_has_no_effect():
    """R9: Leia played after the last card was drawn has no effect."""
    state = setup(deck_of(LEIA, HAN, GUARD, JABBA), (LEIA, HAN))
    turn(state, 0, GUARD, LEIA)
    assert info(state, 1).endswith("p0 plays Leia Organa; p0's Leia Organa has no effect; "
                                   "round ends: deck empty")
    assert state.view().hands == ((GUARD,), (HAN,))
    assert tokens(state) == (1, 1)  # Guard 1 > Han 0; Han Solo token for p1


# R10 who learns what --------------------------------------------------------------------

def _lando_looks():
    """3 players: p0 plays Lando on p1 (Jabba) keeping Han Solo; p2 watches."""
    state = setup("full", (LANDO, JABBA, GUARD))
    turn(state, 0, HAN, LANDO, target(1))
    return state


def test_r10_lando_looks_before_deciding_to_trade():
    """R10: the trade decision comes after the look; only p0 sees p1's card."""
    state = _lando_looks()
    assert state.current_player() == 0 and state.legal_actions() == [NO_TRADE, TRADE]
    assert info(state, 0).endswith("p0 sees p1's Jabba the Hutt")
    for p in (1, 2):
        assert info(state, p).endswith("p0 sees p1's hand")
    assert "Jabba" not in info(state, 2)


def test_r10_lando_trade_seen_by_both_traders_only():
    """R10: the traders learn both cards; the others learn only that a trade happened."""
    state = _lando_looks()
    act(state, 0, TRADE)
    assert state.view().hands[:2] == ((JABBA,), (HAN,))
    for p in (0, 1):
        assert "p0 trades Han Solo to p1 for Jabba the Hutt" in info(state, p)
    assert "p0 trades hands with p1" in info(state, 2)
    assert "Han Solo" not in info(state, 2) and "Jabba" not in info(state, 2)


def test_r10_lando_no_trade_is_public():
    """R10: declining the trade is public, hands stay."""
    state = _lando_looks()
    act(state, 0, NO_TRADE)
    assert state.view().hands[:2] == ((HAN,), (JABBA,))
    for p in range(3):
        assert "p0 does not trade with p1" in info(state, p)


def test_r10_mercenary_both_learn_loser_card_public():
    """R10: both compared players see each other's card; p2 sees only the loser's."""
    state = setup("full", (MERC, LUKE, GUARD))
    turn(state, 0, CRUMB, MERC, target(1))
    assert out(state) == {0} and state.view().play_areas[0] == (MERC, CRUMB)
    assert "p0 sees p1's Luke Skywalker" in info(state, 0)
    assert "p1 sees p0's Salacious Crumb" in info(state, 1)
    assert ("p0 sees p1's hand; p1 sees p0's hand; p0 is out with Salacious Crumb"
            in info(state, 2))
    assert "Luke" not in info(state, 2)


def test_r10_mercenary_tie_nobody_out_cards_stay_private():
    """R10: on a tie nobody is out; p2 learns only that the numbers are equal."""
    state = setup("full", (CHEWIE, MERC, GUARD))
    turn(state, 0, MERC, MERC, target(1))
    assert not out(state)
    assert "p0 sees p1's Mercenary; p1 sees p0's hand; p0 and p1 tie" in info(state, 0)
    assert "p0 sees p1's hand; p1 sees p0's Chewbacca; p0 and p1 tie" in info(state, 1)
    assert "p0 sees p1's hand; p1 sees p0's hand; p0 and p1 tie" in info(state, 2)
    assert "Chewbacca" not in info(state, 2)


@pytest.mark.parametrize("looker", [CRUMB, R2D2])
def test_r10_look_at_a_hand_only_the_looker_sees(looker):
    """R10: Salacious Crumb / R2-D2: everyone knows who looked at whom, only the looker
    knows the card."""
    state = setup("full", (looker, JABBA, GUARD))
    turn(state, 0, HAN, looker, target(1))
    assert info(state, 0).endswith("p0 chooses p1; p0 sees p1's Jabba the Hutt")
    assert info(state, 1).endswith("p0 chooses p1; p0 sees p1's hand")
    assert info(state, 2).endswith("p0 chooses p1; p0 sees p1's hand")
    assert "Jabba" not in info(state, 2)


def test_r10_r2d2_set_aside_card_only_the_looker_sees():
    """R10: R2-D2 on the set-aside card: the others know the look happened, not the card."""
    state = setup("full", (R2D2, JABBA, GUARD))
    turn(state, 0, HAN, R2D2)
    assert state.legal_actions() == [target(1), target(2), SET_ASIDE]
    act(state, 0, SET_ASIDE)
    chance(state, LUKE)
    assert state.view().set_aside == LUKE
    assert "p0 sees set-aside Luke Skywalker" in info(state, 0)
    for p in (1, 2):
        assert "p0 chooses the set-aside card; p0 sees set-aside ?" in info(state, p)
        assert "Luke" not in info(state, p)


# R11 round end --------------------------------------------------------------------------

def test_r11_empty_deck_ends_the_round_after_the_turn():
    """R11: drawing the last card does not end the round; finishing that turn does."""
    state = quiet_round((JABBA, LUKE, GUARD))
    view = state.view()
    assert view.deck_size == 0 and not state.is_terminal()
    assert state.current_player() == 2 and view.phase == "play"
    act(state, 2, CRUMB)
    assert state.is_terminal() and state.view().end == "deck empty"
    assert tokens(state) == (1, 0, 0)


def test_r11_last_player_wins_at_once():
    """R11: knocking out the only opponent ends the round, cards left in the deck."""
    state = setup("full", (JABBA, LUKE), face_up=FACE_UP)
    turn(state, 0, GUARD, JABBA)
    view = state.view()
    assert state.is_terminal() and view.end == "last player"
    assert view.deck_size == 12 and tokens(state) == (1, 0)


def test_r11_last_player_of_three_wins_at_once():
    """R11: with 3 players the round goes on after one is out, ends after the second."""
    state = setup("full", (GUARD, LUKE, MERC))
    turn(state, 0, JABBA, GUARD, target(1), name(7))
    assert not state.is_terminal()
    turn(state, 2, GUARD, GUARD, name(8))  # p0 kept Jabba: out
    assert out(state) == {0, 1} and state.is_terminal()
    assert state.view().end == "last player" and tokens(state) == (0, 0, 1)


def test_r11_han_solo_token_at_the_deck_end():
    """R11: the Han Solo holder gains 1 token even when losing the agenda."""
    state = quiet_round((HAN, LUKE, GUARD))
    act(state, 2, CRUMB)
    assert tokens(state) == (1, 1, 0)


def test_r11_han_solo_token_at_the_last_player_end():
    """R11: the last player holding Han Solo gains 2 tokens."""
    state = setup("full", (HAN, LUKE), face_up=FACE_UP)
    turn(state, 0, JABBA, JABBA)
    assert state.view().end == "last player" and tokens(state) == (2, 0)


# R12 agendas ----------------------------------------------------------------------------

@pytest.mark.parametrize("agenda, hands, expected", [
    ("exalted_one", (JABBA, LUKE, GUARD), (1, 0, 0)),
    ("exalted_one", (BOBA, LEIA, MERC), (1, 1, 0)),  # tie at 5
    ("exalted_one", (HAN, GUARD, C3PO), (1, 1, 1)),  # tie at 1; Han token for p0
    ("my_kind_of_scum", (JABBA, LUKE, GUARD), (1, 1, 0)),
    ("my_kind_of_scum", (MERC, CHEWIE, MERC), (1, 1, 1)),  # Palace tie; Rebel Chewbacca
    ("my_kind_of_scum", (JABBA, GUARD, RANCOR), (1, 0, 0)),  # no Rebel: no Rebel winner
    ("my_kind_of_scum", (LUKE, C3PO, HAN), (1, 0, 1)),  # no Palace: only Luke (+Han)
    ("my_kind_of_scum", (HAN, GUARD, MERC), (2, 0, 1)),  # Han is the best Rebel card
    ("jabbas_court", (JABBA, LUKE, GUARD), (1, 0, 0)),  # Bib 4 > Crumb 2 = Crumb 2
    ("rescue_mission", (JABBA, LUKE, GUARD), (1, 1, 1)),  # nobody played a Rebel: tie
])
def test_r12_agendas_at_the_deck_end(agenda, hands, expected):
    """R12: the agenda picks the round winners among players in the round; ties all win.
    Play areas: p0 Bib Fortuna, p1 and p2 Salacious Crumb each."""
    state = quiet_round(hands, agenda=agenda)
    act(state, 2, CRUMB)
    assert state.view().end == "deck empty" and tokens(state) == expected


def test_r12_jabbas_court_sums_palace_cards_of_players_in_the_round():
    """R12: Jabba's Court sums Palace numbers in own play area; Rebel cards and the
    areas of out players do not count."""
    state = setup(deck_of(GUARD, CRUMB, JABBA, LUKE, MERC, HAN, R2D2),
                  (GUARD, CRUMB, JABBA), agenda="jabbas_court")
    turn(state, 0, LUKE, GUARD, target(2), name(8))  # p2 out: Jabba 8 in its area
    turn(state, 1, MERC, CRUMB)  # on p0
    turn(state, 0, HAN, HAN)
    assert state.view().play_areas == ((GUARD, HAN), (CRUMB,), (JABBA,))
    assert state.view().end == "deck empty"
    assert tokens(state) == (0, 1, 0)  # Crumb 2 > Guard 1 (+ Han 0, Rebel)


@pytest.mark.parametrize("agenda, expected", [
    ("rescue_mission", (1, 0, 1)),  # Han / - / R2-D2: 1, 0, 1 Rebel cards
    ("jabbas_court", (0, 1, 0)),  # Han 0 / Bib 4 / R2-D2 0
])
def test_r12_play_area_agendas(agenda, expected):
    """R12: Rescue Mission counts Rebel cards in own play area (ties all win); Jabba's
    Court sums Palace numbers there. Areas: p0 Han Solo, p1 Bib Fortuna, p2 R2-D2."""
    state = setup(deck_of(GUARD, CRUMB, MERC, HAN, BIB, R2D2, LANDO),
                  (GUARD, CRUMB, MERC), agenda=agenda)
    turn(state, 0, HAN, HAN)
    turn(state, 1, BIB, BIB)
    turn(state, 2, R2D2, R2D2, target(0))
    assert state.view().play_areas == ((HAN,), (BIB,), (R2D2,))
    assert state.view().end == "deck empty" and tokens(state) == expected


def test_r12_two_player_exalted_one_tie():
    """R12: 2 players with equal numbers both win."""
    state = setup(deck_of(LUKE, LEIA, BOBA, BIB, BIB), (BOBA, LUKE))
    turn(state, 0, BIB, BIB)
    turn(state, 1, LEIA, LUKE)  # p0 is protected: Luke has no effect
    assert state.view().hands == ((BOBA,), (LEIA,))
    assert tokens(state) == (1, 1) and state.returns() == [0.0, 0.0]


# R13 Bib Fortuna ------------------------------------------------------------------------

def test_r13_protection_ends_at_the_start_of_own_next_turn():
    """R13: p0 is protected through p1's and p2's turns, not during p0's next turn."""
    state = setup(deck_of(HAN, GUARD, GUARD, CRUMB, CRUMB, BIB, MERC, LUKE, JABBA),
                  (HAN, GUARD, CRUMB))
    turn(state, 0, BIB, BIB)
    turn(state, 1, MERC, GUARD)
    assert info(state, 0).endswith("p1 chooses p2")  # p0 could not be chosen
    act(state, 1, name(8))
    chance(state, LUKE, receiver=2)
    assert state.view().protected == (True, False, False)
    act(state, 2, CRUMB)
    assert info(state, 0).endswith("p2 chooses p1; p2 sees p1's hand")
    assert state.view().protected == (False, False, False)  # p0's turn has started
    turn(state, 0, JABBA, HAN)
    turn(state, 1, GUARD, GUARD)
    assert state.legal_actions() == [target(0), target(2)]
    act(state, 1, target(0), name(8))
    assert out(state) == {0}
    assert tokens(state) == (0, 0, 1)  # deck empty: Luke 7 > Mercenary 3


# Card effects ---------------------------------------------------------------------------

@pytest.mark.parametrize("attacker, defender, named, hit", [
    (GUARD, MERC, 3, True),
    (GUARD, MERC, 2, False),
    (GUARD, HAN, 0, True),
    (JABBA, LUKE, None, True),
    (JABBA, HAN, None, True),  # Han Solo is a Rebel card
    (JABBA, BOBA, None, False),
    (LUKE, JABBA, None, True),
    (LUKE, GUARD, None, True),
    (LUKE, HAN, None, False),
    (CHEWIE, BIB, None, True),  # Palace 4
    (CHEWIE, GUARD, None, True),
    (CHEWIE, BOBA, None, False),  # Palace 5
    (CHEWIE, C3PO, None, False),  # Rebel
    (MERC, GUARD, None, True),  # Mercenary player keeps Bib 4 > 1
    (MERC, JABBA, None, False),  # 4 < 8: the Mercenary player is out
])
def test_effects_knock_out(attacker, defender, named, hit):
    """Card table: Guard, Jabba, Luke, Chewbacca and Mercenary against p1's card (p0
    keeps Bib Fortuna, number 4)."""
    state = setup("full", (attacker, defender), face_up=FACE_UP)
    turn(state, 0, BIB, attacker, *(() if named is None else (name(named),)))
    expected_out = {1} if hit else ({0} if attacker == MERC else set())
    assert out(state) == expected_out
    if expected_out:
        loser = expected_out.pop()
        assert state.is_terminal() and state.view().play_areas[loser][-1] == (
            BIB if loser == 0 else defender)
    else:
        assert "p1 stays in" in info(state, 1)
        assert state.action_to_string(CHANCE, HAN if defender != HAN else GUARD).startswith(
            "player 1 draws")


def test_han_solo_no_effect_and_identical_cards_play_themselves():
    """Han Solo does nothing when played; holding two Bib Fortuna, p1 has no decision
    to make and is protected."""
    state = setup("full", (HAN, BIB), face_up=FACE_UP)
    turn(state, 0, GUARD, HAN)
    assert info(state, 1).endswith("p0 gets ? (deck); p0 plays Han Solo")
    assert state.view().play_areas[0] == (HAN,) and not out(state)
    turn(state, 1, BIB)  # no decision: both cards are Bib Fortuna
    assert state.is_chance_node() and state.view().turn_player == 0
    assert state.view().protected == (False, True)
    assert state.view().play_areas[1] == (BIB,) and state.view().hands[1] == (BIB,)


# Payoffs --------------------------------------------------------------------------------

@pytest.mark.parametrize("utility, expected", [
    ("margin", [2.0, -1.0, -1.0]),  # t_i - mean of the others' tokens
    ("tokens", [2.0, 0.0, 0.0]),
])
def test_utilities(utility, expected):
    """Payoffs: `margin` is t_i minus the mean of the others, `tokens` is t_i."""
    state = _guard_knocks_out_rancor_holder(utility)
    assert state.returns() == [0.0, 0.0, 0.0]  # nothing until the end
    turn(state, 2, GUARD, GUARD, name(8))
    turn(state, 0, LUKE, LUKE)
    assert tokens(state) == (2, 0, 0)
    assert state.returns() == expected


def test_margin_two_players():
    """Payoffs: 2-player margin is t_0 - t_1 (here Han Solo token vs the win: 1 - 1)."""
    state = setup(deck_of(LEIA, HAN, GUARD, JABBA), (LEIA, HAN), utility="margin")
    turn(state, 0, GUARD, LEIA)
    assert tokens(state) == (1, 1) and state.returns() == [0.0, 0.0]


def test_illegal_action_is_rejected():
    """A decision that is not legal raises an error naming the legal ones."""
    state = setup("full", (GUARD, LUKE), face_up=FACE_UP)
    chance(state, HAN)
    with pytest.raises(Exception, match="legal"):
        state.apply_action(JABBA)  # not in p0's hand
    with pytest.raises(Exception, match="legal"):
        state.apply_action(name(3))  # a number, while p0 must play a card


# R14 (match: token goals, who starts the next round) is out of scope: one round only.
