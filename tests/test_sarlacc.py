"""Battle at Sarlacc's Pit (`sarlaccs_pit`): a scripted scenario per ruling (docs/RULES.md
S2-S13, named test_s<N>_...; the board's S1 is tests/test_sarlacc_board.py), random games
with invariants, and the OpenSpiel contract. Every card is chosen as a chance outcome,
never by a seed."""

from __future__ import annotations

import copy
import json
import math
import random

import numpy as np
import pyspiel
import pytest

import spiel_game  # noqa: F401  (registers sarlaccs_pit)
from spiel_game.interface import ENGINE_FUNCTIONS
from spiel_game.sarlacc import engine
from spiel_game.sarlacc import layout as L
from spiel_game.sarlacc.game import DEFAULT_NUMBERS, parse_counts

from test_sarlacc_board import MINI

FORCE, ANY, CHANGE, TAKE, JABBA = L.FORCE, L.ANY_SPACE, L.CHANGE_PLACES, L.TAKE_FORCE, L.JABBA
CHANCE = pyspiel.PlayerId.CHANCE
# Ten Move To Any Empty Space cards, to put heroes where a scenario needs them.
MANY_ANY = "any_space:10+change_places:2+take_force:2"
PLENTY = "1:10+2:3+3:3+4:4+5:3+6:3"
SECOND = [L.NUMBER + 2, L.NUMBER + 2, L.NUMBER + 5, L.NUMBER + 5]  # 3, 3, 6, 6: seat 1's


def N(value: int) -> int:  # noqa: N802  (the Number card `value`, as the rulebook names it)
    return L.NUMBER + value - 1


def load(**params) -> pyspiel.Game:
    return pyspiel.load_game("sarlaccs_pit", params)


def scripted(**params) -> pyspiel.Game:
    """A game for scenarios: ten 1s and ten Move To Any Empty Space cards to deal from."""
    return load(**{"numbers": PLENTY, "directions": MANY_ANY, **params})


@pytest.fixture
def mini(tmp_path):
    """A loader of games on the 11-space board MINI (one Gamorrean, Nikto, Boba Fett)."""
    path = tmp_path / "mini.json"
    path.write_text(json.dumps(MINI))
    return lambda **params: scripted(board=str(path), **params)


def chance(state, card: int) -> None:
    assert state.is_chance_node(), f"expected a chance node, at {state}"
    assert card in dict(state.chance_outcomes()), (card, state.chance_outcomes())
    state.apply_action(card)


def act(state, player: int, action: int) -> None:
    assert state.current_player() == player, (state.current_player(), player, str(state))
    assert action in state.legal_actions(), (action, state.legal_actions(), str(state))
    state.apply_action(action)


def deal(game, *hands):
    """A game after the deal: hands[p] = four card kinds for seat p."""
    state = game.new_initial_state()
    for i in range(L.HAND_SIZE):
        for hand in hands:
            chance(state, hand[i])
    return state


def sp(state, name: str) -> int:
    return state.board.space(name)


def move(state, player: int, card: int, to: str) -> None:
    """`player` plays `card` and moves to the space `to`."""
    act(state, player, L.encode_play(card))
    act(state, player, L.encode_move(sp(state, to)))


def destinations(state) -> list[str]:
    return sorted(state.board.names[a - L.MOVE] for a in state.legal_actions())


def last_events(state, count: int, viewer: int | None = None):
    return state.events(viewer)[-count:]


# S2 the deck ----------------------------------------------------------------------------

def test_s2_the_default_deck():
    cfg = load().config
    counts = cfg.pile_counts()
    assert counts[L.NUMBER:L.NUMBER + 6].tolist() == [3, 3, 3, 4, 3, 3]  # 19 Number cards
    assert counts[FORCE] == 6 and counts[ANY:TAKE + 1].tolist() == [2, 2, 2]
    assert counts[JABBA] == 0 and cfg.deck_size == 31  # the 4 Jabba cards come after (S3)
    assert sum(parse_counts("numbers", DEFAULT_NUMBERS, tuple("123456"), "")) == 19


@pytest.mark.parametrize("params, message", [
    ({"players": 5}, "players=5: must be a whole number from 2 to 4"),
    ({"numbers": "7:3"}, "cannot read '7:3'"),
    ({"numbers": "1:3+1:2"}, "1 is given twice"),
    ({"numbers": "4:0"}, "needs 1 to 20 cards"),
    ({"directions": "jump:2"}, "kinds any_space, change_places, take_force"),
    ({"players": 4, "numbers": "1:3", "directions": "any_space:1"},
     "10 cards besides the Jabba cards, but 4 players need at least 17"),
    ({"utility": "wins"}, "allowed are margin, points"),
    ({"max_turns": 0}, "max_turns=0: must be a whole number from 1 to 10000"),
    ({"colour": 1}, "Unknown parameter .colour."),
])
def test_s2_bad_parameters_say_what_is_allowed(params, message):
    with pytest.raises((ValueError, pyspiel.SpielError), match=message):
        load(**params)


# S3 setting up --------------------------------------------------------------------------

def test_s3_four_cards_each_then_the_jabba_cards_are_mixed_in():
    game = load(players=3)
    state = game.new_initial_state()
    assert JABBA not in dict(state.chance_outcomes())  # set aside during the deal
    state = deal(game, [N(1), N(2), N(3), N(4)], [FORCE] * 4, [ANY, CHANGE, TAKE, N(6)])
    v = state.view()
    assert v.pile[JABBA] == 4 and sum(v.pile) == 35 - 12
    assert v.positions == (L.DETENTION,) * 3 and v.current == 0 and v.phase == "play"
    assert [sum(h) for h in v.hands] == [4, 4, 4]
    assert set(state.events(1)[0:3]) >= {(L.E_DEAL, 0, L.HIDDEN), (L.E_DEAL, 1, FORCE)}


def test_s3_a_move_from_the_detention_area_counts_the_entry_first():
    state = deal(scripted(), [N(1), N(2), N(4), FORCE], SECOND)
    act(state, 0, L.encode_play(N(1)))
    assert destinations(state) == ["entry"]
    state = deal(scripted(), [N(1), N(2), N(4), FORCE], SECOND)
    act(state, 0, L.encode_play(N(2)))
    assert destinations(state) == ["b1", "c1", "d1"]


# S4 a turn ------------------------------------------------------------------------------

def test_s4_a_turn_plays_one_card_and_draws_back_to_four():
    state = deal(scripted(), [N(1), N(2), N(4), FORCE], SECOND)
    move(state, 0, N(2), "c1")  # next to no guard
    assert state.is_chance_node()
    chance(state, ANY)
    v = state.view()
    assert v.current == 1 and v.phase == "play" and v.hands[0][ANY] == 1
    assert sum(v.hands[0]) == 4 and v.discard[N(2)] == 1
    assert last_events(state, 1, viewer=1) == [(L.E_DRAW, 0, L.HIDDEN)]  # S12


def test_s4_a_hand_that_cannot_be_followed_plays_a_card_without_effect(mini):
    # On MINI, with the guards standing and the Top Deck closed, five spaces are open: no
    # move of 6 can be made from the Detention Area.
    state = deal(mini(numbers="6:20"), [N(6)] * 4, [N(6)] * 4)
    assert state.legal_actions() == [L.DISCARD + N(6)]
    act(state, 0, L.DISCARD + N(6))
    chance(state, N(6))
    assert state.view().current == 1 and state.view().discard[N(6)] == 1


def test_s4_an_empty_hand_passes_and_draws_four():
    game = scripted(players=4, directions="any_space:2+change_places:2+take_force:5")
    state = deal(game, [TAKE, TAKE, N(1), N(2)], [TAKE, N(1), N(2), N(3)],
                 [TAKE, N(1), N(2), N(3)], [FORCE, FORCE, FORCE, TAKE])
    for thief in (0, 1, 2):  # S7: three Force cards taken from p3
        act(state, thief, L.encode_play(TAKE))
        act(state, thief, L.encode_target(3))
    act(state, 3, L.encode_play(TAKE))  # p3 takes one back from p0 and holds it alone
    act(state, 3, L.encode_target(0))
    act(state, 0, L.encode_play(TAKE))
    act(state, 0, L.encode_target(3))
    move(state, 1, N(1), "entry")
    chance(state, N(4))
    move(state, 2, N(2), "c1")
    chance(state, N(4))
    assert sum(state.view().hands[3]) == 0 and state.legal_actions() == [L.PASS]
    act(state, 3, L.PASS)
    for card in (N(5), N(5), N(6), N(6)):
        chance(state, card)
    assert sum(state.view().hands[3]) == 4 and state.view().current == 0


# S5 moving ------------------------------------------------------------------------------

def test_s5_a_move_never_enters_a_space_twice_nor_returns():
    state = deal(scripted(), [ANY, N(2), N(3), N(4)], SECOND)
    move(state, 0, ANY, "c3")
    chance(state, N(1))
    move(state, 1, N(3), "b1")  # entry, c1, b1
    chance(state, N(1))
    act(state, 0, L.encode_play(N(2)))
    reach = destinations(state)
    assert "c3" not in reach  # no out and back
    assert "c2" in reach and "c4" in reach  # round a triangle of the hex grid
    assert "c5" in reach and "c6" not in reach  # exactly two spaces, not three


def plain_walk_ends(state, p: int) -> dict[int, set[int]]:
    """S5 by brute force: the ends of every path of 1 to 6 spaces that enters no space
    twice, passes no guard, Jabba or closed Top Deck, and ends on no hero."""
    v, board = state.view(), state.board
    heroes = {q for q in v.positions if q != L.DETENTION}

    def enterable(x):
        return x not in v.guards and x != v.jabba and (not v.guards or x not in board.top_deck)

    ends = {k: set() for k in range(1, 7)}

    def walk(node, steps, seen):
        if steps and node not in heroes:
            ends[steps].add(node)
        if steps < 6:
            for nxt in board.neighbours[node]:
                if nxt not in seen and enterable(nxt):
                    walk(nxt, steps + 1, seen | {nxt})

    start = v.positions[p]
    if start != L.DETENTION:
        walk(start, 0, {start})
    elif enterable(board.entry):
        walk(board.entry, 1, {board.entry})  # S3
    return ends


def test_s5_the_compiled_walk_finds_exactly_the_plain_paths_ends():
    rng = random.Random(11)
    game = load(players=4, max_turns=400)
    checked, top_deck_open, masks = 0, 0, np.zeros(7, dtype=np.int64)
    while checked < 30 or top_deck_open < 5:  # the Top Deck open: every guard defeated
        state = game.new_initial_state()
        while not state.is_terminal():
            v = state.view()
            if v.phase == "play" and rng.random() < (0.5 if not v.guards else 0.02):
                p = state.current_player()
                engine.walk_masks(state._s, p, masks)
                found = {k: {x for x in range(state.board.size) if masks[k] >> x & 1}
                         for k in range(1, 7)}
                assert found == plain_walk_ends(state, p), str(state)
                checked += 1
                top_deck_open += not v.guards
            state.apply_action(random_action(state, rng))


def test_s5_heroes_are_passed_not_ended_on_and_guards_block():
    state = deal(scripted(), [N(3), N(2), N(4), N(1)], [ANY, N(2), N(1), N(1)])
    move(state, 0, N(2), "b1")  # entry, b1
    chance(state, N(1))
    move(state, 1, N(2), "c1")
    chance(state, N(1))
    act(state, 0, L.encode_play(N(1)))
    assert "c1" not in destinations(state)  # p1 is there
    assert "a1" in destinations(state)
    state = deal(scripted(), [N(3), N(2), N(4), N(1)], SECOND)
    act(state, 0, L.encode_play(N(3)))  # entry, b1, a1: the posts left1... stand in the way
    assert not [n for n in destinations(state) if n.startswith(("left", "right"))]


def test_s5_the_top_deck_is_closed_while_a_guard_stands():
    state = deal(scripted(), [ANY, FORCE, N(1), N(2)], SECOND)
    move(state, 0, ANY, "c6")
    chance(state, N(5))
    move(state, 1, N(3), "b1")
    chance(state, N(5))
    act(state, 0, L.encode_play(FORCE))
    assert not [n for n in destinations(state) if n.startswith(("grey", "jabba"))]


# S6 challenging a guard -----------------------------------------------------------------

def test_s6_a_number_or_the_force_drawn_defeats_the_guard():
    state = deal(scripted(), [N(3), N(2), N(4), N(1)], SECOND)
    move(state, 0, N(3), "a1")  # entry, b1, a1: next to left1 only
    assert last_events(state, 1) == [(L.E_CHALLENGE, 0, sp(state, "left1"))]
    chance(state, N(5))
    v = state.view()
    assert v.positions[0] == sp(state, "left1") and v.points == (1, 0)
    assert sp(state, "left1") not in v.guards and len(v.guards) == 11
    assert v.hands[0][N(5)] == 1 and sum(v.hands[0]) == 4  # kept
    assert last_events(state, 2, viewer=1) == [(L.E_SHOWN, 0, N(5)), (L.E_RESULT, 0, 1)]
    assert v.current == 1  # the card drawn was the turn's draw


def test_s6_a_direction_card_drawn_sends_the_hero_back():
    state = deal(scripted(), [N(3), N(2), N(4), N(1)], SECOND)
    move(state, 0, N(3), "a1")
    chance(state, CHANGE)
    v = state.view()
    assert v.positions[0] == L.DETENTION and v.points == (0, 0) and len(v.guards) == 12
    assert v.hands[0][CHANGE] == 1 and v.current == 1


def test_s6_two_guards_adjacent_the_player_chooses():
    state = deal(scripted(), [N(4), N(2), N(3), N(1)], SECOND)
    move(state, 0, N(4), "a2")  # entry, b1, a1, a2: touches left1 and left2
    assert state.view().phase == "guard"
    left1, left2 = sp(state, "left1"), sp(state, "left2")
    assert state.legal_actions() == [L.encode_challenge(left1), L.encode_challenge(left2)]
    act(state, 0, L.encode_challenge(left2))
    chance(state, FORCE)
    assert state.view().positions[0] == left2 and left1 in state.view().guards


def test_s6_nikto_and_boba_fett_only_after_every_gamorrean(mini):
    # a2 touches the Gamorrean and Nikto: only the Gamorrean may be challenged.
    state = deal(mini(), [N(3), N(1), N(1), N(2)], SECOND)
    move(state, 0, N(3), "a2")  # entry, b1... a2: three spaces
    assert last_events(state, 1) == [(L.E_CHALLENGE, 0, sp(state, "gam"))]


def test_s6_a_jabba_card_drawn_in_a_challenge_loses_and_moves_jabba():
    state = deal(scripted(), [N(3), N(2), N(4), N(1)], SECOND)
    move(state, 0, N(3), "a1")
    chance(state, JABBA)
    v = state.view()
    assert v.positions[0] == L.DETENTION and v.phase == "jabba_move" and v.current == 0
    assert v.discard[JABBA] == 1 and v.hands[0][JABBA] == 0
    act(state, 0, L.encode_jabba_to(3))
    assert state.view().jabba == sp(state, "grey_d")
    chance(state, N(6))  # S8: the replacement card
    assert state.view().current == 1 and sum(state.view().hands[0]) == 4


def test_s6_neither_a_retreat_nor_change_places_challenges():
    state = deal(scripted(), [ANY, N(1), N(2), N(3)],
                 [N(1), CHANGE, N(1), N(1)])
    move(state, 0, ANY, "b2")
    chance(state, N(4))
    move(state, 1, N(1), "entry")
    chance(state, JABBA)
    act(state, 1, L.encode_jabba_to(1))  # grey_b: p0 is blocked (S9)
    chance(state, N(1))
    assert state.legal_actions() == [L.RETREAT]  # only Number cards in hand
    act(state, 0, L.RETREAT)
    assert destinations(state) == ["a1", "c1"]
    act(state, 0, L.encode_move(sp(state, "a1")))  # next to left1: no challenge
    assert state.view().current == 1 and not state.is_chance_node()
    act(state, 1, L.encode_play(CHANGE))
    act(state, 1, L.encode_target(0))
    v = state.view()
    assert v.positions == (sp(state, "entry"), sp(state, "a1"))  # p1 next to left1
    assert state.is_chance_node() and state._s[L.S_CHALLENGE] == L.NO_CHALLENGE


# S7 direction cards ---------------------------------------------------------------------

def test_s7_move_to_any_empty_space():
    state = deal(scripted(), [ANY, N(2), N(4), N(1)], SECOND)
    act(state, 0, L.encode_play(ANY))
    reach = destinations(state)
    assert len(reach) == 49 - 12 - 6  # every space but the posts and the Top Deck
    assert "entry" in reach and "left1" not in reach and "grey_a" not in reach


def test_s7_take_the_force_ends_the_turn_without_a_draw():
    state = deal(scripted(), [TAKE, N(2), N(4), N(1)], [FORCE, N(1), N(1), N(1)])
    act(state, 0, L.encode_play(TAKE))
    act(state, 0, L.encode_target(1))
    v = state.view()
    assert v.hands[0][FORCE] == 1 and v.hands[1][FORCE] == 0
    assert [sum(h) for h in v.hands] == [4, 3] and v.current == 1 and not state.is_chance_node()
    assert last_events(state, 2, viewer=1) == [(L.E_ASK, 0, 1), (L.E_GIVE, 1, 1)]
    move(state, 1, N(1), "entry")  # the robbed player: 2 cards left, so two draws
    chance(state, N(2))
    chance(state, N(3))
    assert sum(state.view().hands[1]) == 4 and state.view().current == 0


def test_s7_take_the_force_finding_none_also_draws_nothing():
    state = deal(scripted(), [TAKE, N(2), N(4), N(1)], [N(1), N(5), N(5), N(6)])
    act(state, 0, L.encode_play(TAKE))
    act(state, 0, L.encode_target(1))
    assert last_events(state, 1) == [(L.E_GIVE, 1, 0)]
    assert [sum(h) for h in state.view().hands] == [3, 4]
    move(state, 1, N(1), "entry")
    chance(state, N(1))
    move(state, 0, N(2), "c1")
    chance(state, N(5))
    chance(state, N(6))  # three cards after playing: two drawn
    assert sum(state.view().hands[0]) == 4 and state.view().current == 1


def test_s7_change_places_swaps_with_a_hero_in_the_detention_area():
    state = deal(scripted(), [N(2), N(2), N(4), N(1)], [CHANGE, N(1), N(1), N(1)])
    move(state, 0, N(2), "c1")
    chance(state, N(1))
    act(state, 1, L.encode_play(CHANGE))
    assert state.legal_actions() == [L.encode_target(0)]
    act(state, 1, L.encode_target(0))
    assert state.view().positions == (L.DETENTION, sp(state, "c1"))
    assert state.is_chance_node()  # then a draw


# S8 Jabba cards -------------------------------------------------------------------------

def test_s8_a_jabba_card_goes_face_up_and_its_drawer_moves_jabba():
    state = deal(scripted(), [N(2), N(2), N(4), N(1)], [N(1), N(5), N(5), N(6)])
    move(state, 0, N(2), "c1")
    chance(state, JABBA)
    assert state.view().phase == "jabba_move"
    assert state.legal_actions() == [L.encode_jabba_to(i) for i in range(5)]
    assert last_events(state, 1, viewer=1) == [(L.E_DRAW, 0, JABBA)]  # S12: public
    act(state, 0, L.encode_jabba_to(2))
    chance(state, JABBA)  # another: Jabba may stay on his grey space
    assert L.encode_jabba_to(2) in state.legal_actions()
    act(state, 0, L.encode_jabba_to(2))
    chance(state, N(4))
    v = state.view()
    assert v.jabba == sp(state, "grey_c") and v.discard[JABBA] == 2 and v.current == 1
    assert sum(v.hands[0]) == 4 and v.hands[0][JABBA] == 0


# S9 blocked by Jabba --------------------------------------------------------------------

def blocked_on_c3():
    """p0 on c3 with Jabba on grey_c at the start of p0's turn."""
    state = deal(scripted(), [ANY, N(2), N(3), FORCE], [N(1), N(5), N(5), N(6)])
    move(state, 0, ANY, "c3")
    chance(state, N(4))
    move(state, 1, N(1), "entry")
    chance(state, JABBA)
    act(state, 1, L.encode_jabba_to(2))  # grey_c, the end of line c
    chance(state, N(1))
    return state


def test_s9_blocked_no_number_card_but_the_force_or_a_retreat():
    state = blocked_on_c3()
    assert state.view().blocked
    assert state.legal_actions() == [L.encode_play(FORCE), L.RETREAT]
    act(state, 0, L.RETREAT)
    assert destinations(state) == ["b3", "d3"]  # off the line, a row lower
    act(state, 0, L.encode_move(sp(state, "b3")))
    v = state.view()
    assert v.current == 1 and sum(v.hands[0]) == 4 and not state.is_chance_node()


def test_s9_the_force_moves_even_when_blocked():
    state = blocked_on_c3()
    act(state, 0, L.encode_play(FORCE))
    assert "c4" in destinations(state) and "b1" in destinations(state)


# S10 the reshuffle ----------------------------------------------------------------------

def test_s10_an_empty_pile_takes_the_whole_discard_pile():
    # 9 cards besides Jabba's: after the deal the pile holds one and the four Jabba cards.
    game = scripted(numbers="1:2", directions="any_space:1")
    state = deal(game, [N(1), FORCE, FORCE, FORCE], [N(1), FORCE, FORCE, FORCE])
    move(state, 0, N(1), "entry")
    chance(state, ANY)
    act(state, 1, L.encode_play(FORCE))
    act(state, 1, L.encode_move(sp(state, "c1")))
    for _ in range(4):  # only Jabba cards are left to draw
        assert dict(state.chance_outcomes()) == {JABBA: 1.0}
        chance(state, JABBA)
        act(state, 1, L.encode_jabba_to(0))
    v = state.view()
    assert sum(v.pile) == 6 and v.pile[JABBA] == 4 and sum(v.discard) == 0  # reshuffled
    assert (L.E_RESHUFFLE, -1, 6) in state.events()
    chance(state, N(1))
    assert state.view().current == 0


# S11 Jabba and the end ------------------------------------------------------------------

def guards_defeated(game):
    """MINI with its three guards defeated, p0 to play on Boba Fett's post holding The
    Force, 1, 5 and 2; p1 on b1."""
    state = deal(game, [N(2), N(3), FORCE, N(1)], [N(3), N(4), N(2), N(1)])
    move(state, 0, N(2), "a1")  # entry, a1: the Gamorrean
    chance(state, N(5))  # won: p0 on gam
    move(state, 1, N(3), "a2")  # entry, a1, a2: next to Nikto, the Gamorrean gone
    chance(state, N(5))
    move(state, 0, N(3), "b2")  # gam, a1, b1, b2: next to Boba Fett
    chance(state, N(2))
    v = state.view()
    assert not v.guards and v.points == (3, 2), v
    move(state, 1, N(4), "b1")
    chance(state, N(1))
    return state


def test_s11_the_force_played_next_to_jabba_defeats_him(mini):
    state = guards_defeated(mini())
    move(state, 0, N(2), "grey_b")  # the Top Deck is open: next to Jabba
    assert state.view().phase == "jabba_fight"
    assert state.legal_actions() == [L.FORCE_ON_JABBA, L.DRAW_ON_JABBA]
    act(state, 0, L.FORCE_ON_JABBA)
    v = state.view()
    assert state.is_terminal() and v.winner == 0 and v.end == "jabba" and v.points == (7, 2)
    assert state.returns() == [5.0, -5.0]


def test_s11_drawing_against_jabba(mini):
    state = guards_defeated(mini())
    move(state, 0, N(2), "grey_b")
    act(state, 0, L.DRAW_ON_JABBA)
    chance(state, N(6))  # not The Force: back to the Detention Area, the card kept
    v = state.view()
    assert v.positions[0] == L.DETENTION and v.hands[0][N(6)] == 1 and not state.is_terminal()
    state = guards_defeated(mini(utility="points"))
    move(state, 0, N(2), "grey_b")
    act(state, 0, L.DRAW_ON_JABBA)
    chance(state, FORCE)
    assert state.is_terminal() and state.returns() == [7.0, 2.0]


def test_s11_without_the_force_the_challenge_of_jabba_is_a_draw(mini):
    state = guards_defeated(mini())
    act(state, 0, L.encode_play(FORCE))  # p0's only Force moves it
    act(state, 0, L.encode_move(sp(state, "grey_a")))
    assert state.is_chance_node() and state._s[L.S_CHALLENGE] == L.JABBA_CHALLENGE
    chance(state, FORCE)
    assert state.view().winner == 0


def test_s11_the_turn_limit_ends_the_game():
    state = deal(scripted(max_turns=2), [N(2), N(2), N(4), N(1)], [N(1), N(5), N(5), N(6)])
    move(state, 0, N(2), "c1")
    chance(state, N(1))
    move(state, 1, N(1), "entry")
    chance(state, N(1))
    v = state.view()
    assert state.is_terminal() and v.end == "turns" and v.turn == 2
    assert state.returns() == [0.0, 0.0]


# S12 who learns what --------------------------------------------------------------------

def test_s12_information_states_hide_the_others_cards():
    state = deal(scripted(), [N(3), N(2), N(4), N(1)], [FORCE, N(1), N(1), N(1)])
    mine, theirs = state.information_state_string(0), state.information_state_string(1)
    assert "p0 deal 4" in mine and "p0 deal 4" not in theirs and "p0 deal ?" in theirs
    move(state, 0, N(3), "a1")
    chance(state, N(6))
    assert "p0 shown 6; p0 wins" in state.information_state_string(1)
    obs = state.observation_string(1)
    assert "p0:left1" in obs and "points:1,0" in obs and "The Force" in obs
    size = state.get_game().config.max_events
    rows = np.array(state.information_state_tensor(1))[-size * 3:].reshape(size, 3)
    assert rows[0].tolist() == [L.E_DEAL + 1, 1, 1]  # p0's first card, hidden from p1
    assert rows[1].tolist() == [L.E_DEAL + 1, 2, FORCE + 3]  # p1's own
    assert not rows[len(state.events()):].any()


# S13 points and utilities ---------------------------------------------------------------

def test_s13_margin_is_points_minus_the_others_mean():
    game = load(players=3)
    rng = random.Random(3)
    state = game.new_initial_state()
    while not state.is_terminal():
        state.apply_action(random_action(state, rng))
    points = state.view().points
    margin = state.returns()
    assert math.isclose(sum(margin), 0.0, abs_tol=1e-9)
    for i in range(3):
        assert math.isclose(margin[i], points[i] - (sum(points) - points[i]) / 2)
    same = load(players=3, utility="points").deserialize_state(state.serialize())
    assert same.returns() == [float(p) for p in points]
    assert (game.min_utility(), game.max_utility()) == (-9.0, 18.0)
    assert state.winners() == tuple(p for p in range(3) if points[p] == max(points))


def test_s13_a_tie_for_the_most_points_is_a_shared_win():
    state = deal(scripted(max_turns=4), [N(3), N(2), N(4), N(1)], [N(3), N(1), N(5), N(6)])
    assert state.winners() == ()
    move(state, 0, N(3), "a1")  # left1
    chance(state, N(5))
    move(state, 1, N(3), "e1")  # entry, d1, e1: right1
    chance(state, N(5))
    move(state, 0, N(1), "a1")
    chance(state, N(1))
    move(state, 1, N(1), "e1")
    chance(state, N(1))
    assert state.is_terminal() and state.view().points == (1, 1)
    assert state.winners() == (0, 1) and state.returns() == [0.0, 0.0]


# Invariants over random games -----------------------------------------------------------

def random_action(state, rng):
    if state.is_chance_node():
        outcomes, probs = zip(*state.chance_outcomes())
        return rng.choices(outcomes, probs)[0]
    return rng.choice(state.legal_actions())


@pytest.mark.parametrize("players", [2, 3, 4])
def test_random_games_conserve_cards_and_points_and_end(players):
    game = load(players=players)
    rng = random.Random(players)
    for _ in range(4):
        state = game.new_initial_state()
        while not state.is_terminal():
            v = state.view()
            assert sum(v.pile) + sum(v.discard) + sum(map(sum, v.hands)) == (
                35 if v.turn else 31)
            assert all(sum(h) <= L.HAND_SIZE for h in v.hands)
            assert all(h[JABBA] == 0 for h in v.hands)
            standing = sum(L.GUARD_POINTS[g] for g in v.guards.values())
            assert sum(v.points) == 14 - standing  # Jabba's 4 only at the end
            occupied = [p for p in v.positions if p != L.DETENTION]
            assert len(set(occupied)) == len(occupied)  # no two heroes on a space
            assert not set(occupied) & set(v.guards) and v.jabba not in occupied
            if state.is_chance_node():
                assert math.isclose(sum(p for _, p in state.chance_outcomes()), 1.0)
            else:
                assert state.legal_actions()
            state.apply_action(random_action(state, rng))
        v = state.view()
        assert v.end in ("jabba", "turns")
        assert sum(v.points) == 14 - sum(L.GUARD_POINTS[g] for g in v.guards.values()) + (
            4 if v.end == "jabba" else 0)
        assert len(state.history()) <= game.max_game_length()


@pytest.mark.parametrize("players", [2, 3, 4])
def test_random_sim_test(players):
    pyspiel.random_sim_test(load(players=players), num_sims=2, serialize=True,
                            verbose=False)


def test_random_sim_test_short_games_and_points():
    for params in ({"players": 3, "max_turns": 40}, {"players": 4, "utility": "points",
                                                     "max_turns": 60}):
        pyspiel.random_sim_test(load(**params), num_sims=5, serialize=True, verbose=False)


def test_tensors_fit_their_shapes_and_strings_differ_by_player():
    game = load(players=3, max_turns=30)
    rng = random.Random(0)
    state = game.new_initial_state()
    while not state.is_terminal():
        if not state.is_chance_node():
            p = state.current_player()
            assert len(state.information_state_tensor(p)) == \
                game.information_state_tensor_size()
            assert len(state.observation_tensor(p)) == game.observation_tensor_size()
            others = [state.information_state_string(q) for q in range(3) if q != p]
            assert state.information_state_string(p) not in others
        state.apply_action(random_action(state, rng))


def test_a_deep_copy_is_a_clone_sharing_the_game():
    game = load(players=3, max_turns=20)
    rng = random.Random(1)
    state = game.new_initial_state()
    for _ in range(40):
        state.apply_action(random_action(state, rng))
    twin = copy.deepcopy(state)
    assert twin.history() == state.history() and str(twin) == str(state)
    assert twin.get_game() is state.get_game() and twin._s is not state._s
    twin.apply_action(twin.legal_actions()[0])
    assert twin.history() != state.history()


def test_the_engine_interface_and_compiled_random_games():
    assert set(engine.ENGINE.functions) >= set(ENGINE_FUNCTIONS)
    initial = load(players=4).initial_array
    lengths = np.zeros(20, dtype=np.int64)
    won = engine.random_games(initial, 20, 7, lengths)
    assert won == 20 and lengths.min() > 100  # every game ended by defeating Jabba


def test_compiled_and_plain_python_engines_agree():
    """The same games with NUMBA_DISABLE_JIT=1 (the engine as plain Python) end alike."""
    import os
    import subprocess
    import sys
    from pathlib import Path

    game = load(players=3, max_turns=25)
    rng = random.Random(5)
    histories, expected = [], []
    for _ in range(3):
        state = game.new_initial_state()
        while not state.is_terminal():
            state.apply_action(random_action(state, rng))
        histories.append(state.history())
        expected.append([state.returns(), state.information_state_string(1)])
    script = ("import json, sys, pyspiel, spiel_game\n"
              "game = pyspiel.load_game('sarlaccs_pit', {'players': 3, 'max_turns': 25})\n"
              "out = []\n"
              "for h in json.load(sys.stdin):\n"
              "    s = game.new_initial_state()\n"
              "    for a in h:\n"
              "        s.apply_action(a)\n"
              "    out.append([s.returns(), s.information_state_string(1)])\n"
              "print(json.dumps(out))\n")
    root = Path(__file__).resolve().parents[1]
    env = {**os.environ, "NUMBA_DISABLE_JIT": "1", "PYTHONPATH": str(root)}
    done = subprocess.run([sys.executable, "-c", script], input=json.dumps(histories),
                          capture_output=True, text=True, env=env, cwd=root, check=True)
    assert json.loads(done.stdout) == expected


def test_action_encoding_is_closed_and_round_trips():
    assert L.NUM_ACTIONS == load().num_distinct_actions() == 164
    assert L.decode(3) == ("play", N(4)) and L.decode(L.encode_move(5)) == ("move", 5)
    assert L.decode(L.RETREAT) == ("retreat", -1)
    for a in range(L.NUM_ACTIONS):
        what, arg = L.decode(a)
        encode = {"play": L.encode_play, "move": L.encode_move, "target": L.encode_target,
                  "challenge": L.encode_challenge, "jabba_to": L.encode_jabba_to}.get(what)
        if encode:
            assert encode(arg) == a
    with pytest.raises(ValueError, match="not a sarlaccs_pit action id"):
        L.decode(L.NUM_ACTIONS)


def test_an_illegal_action_names_the_legal_ones():
    state = deal(scripted(), [N(1), N(1), N(1), N(1)], SECOND)
    with pytest.raises((ValueError, pyspiel.SpielError),
                       match=r"action 6 is not legal here; legal: 0 \(play 1\)"):
        state.apply_action(L.encode_play(FORCE))
