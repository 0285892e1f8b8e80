"""The Han Solo card game (`han_solo`): a scripted scenario per ruling (docs/RULES.md
H1-H12, named test_h<N>_...), random playouts with invariants, the OpenSpiel contract and
CFR on the smallest reduced deck. Every card and token is chosen as a chance outcome,
never by a seed."""

from __future__ import annotations

import math
import random

import numpy as np
import pyspiel
import pytest

import spiel_game  # noqa: F401  (registers han_solo)
from spiel_game.han_solo import engine
from spiel_game.han_solo import layout as L
from spiel_game.han_solo.game import DEFAULT_BOUNTIES, parse_bounties
from spiel_game.han_solo.match import capture_falcon, match_scores, pot_size

B0 = L.BLUE_ZERO
GREEN_TOKEN, GOLD, RED_TOKEN, BLUE_TOKEN, FALCON = range(5)
CHANCE = pyspiel.PlayerId.CHANCE
# 3 tokens worth 5,000, 3,000 and 1,000: a 3-player pot of one each (the stack is empty).
THREE_TOKENS = "green:1x5000+gold:1x3000+red:1x1000"


def G(n: int) -> int:  # noqa: N802  (green +n, as the rulebook writes cards)
    return L.GREEN - 1 + n


def R(n: int) -> int:  # noqa: N802
    return L.RED - 1 + n


def load(**params) -> pyspiel.Game:
    return pyspiel.load_game("han_solo", params)


def chance(state, outcome: int) -> None:
    assert state.is_chance_node(), f"expected a chance node, at {state}"
    assert outcome in dict(state.chance_outcomes()), (outcome, state.chance_outcomes())
    state.apply_action(outcome)


def act(state, player: int, action: int) -> None:
    assert state.current_player() == player, (state.current_player(), player)
    assert action in state.legal_actions(), (action, state.legal_actions())
    state.apply_action(action)


def setup(game, pot, hands, flip):
    """A round after the pot (token kinds), the deal (hands[p] = 2 card kinds) and the
    turned-up card."""
    state = game.new_initial_state()
    for k in pot:
        chance(state, k)
    for i in range(2):
        for hand in hands:
            chance(state, hand[i])
    chance(state, flip)
    return state


def key(*cards, best=0) -> int:
    return int(engine.hand_key(np.array(cards, np.int32), len(cards), best))


def discard(c: int) -> int:
    return L.encode_discard(c)


def pick(k: int) -> int:
    return L.encode_pick(k)


# H1 setup -------------------------------------------------------------------------------

def test_h1_pot_then_two_cards_each_then_one_turned_up():
    game = load()
    state = game.new_initial_state()
    assert state.chance_outcomes() == [(0, 10 / 24), (1, 5 / 24), (2, 4 / 24), (3, 4 / 24),
                                       (4, 1 / 24)]
    assert state.action_to_string(CHANCE, FALCON) == "pot gets a falcon token"
    chance(state, GREEN_TOKEN)
    assert dict(state.chance_outcomes())[GREEN_TOKEN] == pytest.approx(9 / 23)
    chance(state, FALCON)
    # Dealt one at a time, seat 0 (the dealer's left) first; 6 of 62 cards are blue 0s and 0s.
    assert state.action_to_string(CHANCE, G(5)) == "deal green +5 to p0"
    assert dict(state.chance_outcomes())[B0] == pytest.approx(2 / 62)
    for c in (G(5), R(7), R(2), B0):
        chance(state, c)
    assert state.action_to_string(CHANCE, G(9)) == "turn up green +9"
    chance(state, G(9))
    v = state.view()
    assert v.hands == ((G(5), R(2)), (B0, R(7)))
    assert v.pot == (1, 0, 0, 0, 1) and sum(v.stack) == 22
    assert v.discard == (G(9),) and sum(v.pile) == 57
    assert state.current_player() == 0
    assert state.legal_actions() == [L.DRAW, L.TAKE, L.STAND]


# H2 a turn ------------------------------------------------------------------------------

def test_h2_draw_is_private_discard_is_public_and_take_any_time():
    game = load()
    state = setup(game, [GREEN_TOKEN, GOLD], [(G(5), R(2)), (G(3), R(3))], G(1))
    act(state, 0, L.DRAW)
    assert state.action_to_string(CHANCE, G(2)) == "draw green +2 to p0"
    chance(state, G(2))
    assert "p0 draw green +2" in state.information_state_string(0)
    assert "p0 draw ?" in state.information_state_string(1)
    # After taking, a player may discard any card in hand, or none (KEEP).
    assert state.legal_actions() == [L.KEEP, discard(G(2)), discard(G(5)), discard(R(2))]
    act(state, 0, discard(R(2)))
    assert state.view().discard == (G(1), R(2))
    assert "p0 discard red -2" in state.information_state_string(1)
    act(state, 1, L.TAKE)  # the top card: red -2
    assert state.hand(1) == (G(3), R(2), R(3))  # sorted kinds
    assert "p1 take red -2" in state.information_state_string(0)
    act(state, 1, discard(R(2)))  # the card just taken may go straight back (H2)
    assert state.hand(1) == (G(3), R(3)) and state.view().discard == (G(1), R(2))


def test_h2_standing_moves_no_card_and_hands_reach_five():
    game = load(dice=0)
    state = setup(game, [GREEN_TOKEN, GOLD], [(G(5), R(2)), (G(3), R(3))], G(1))
    for c in (G(1), G(2), G(4)):
        act(state, 0, L.DRAW)
        chance(state, c)
        act(state, 0, L.KEEP)
        act(state, 1, L.STAND)
    assert len(state.hand(0)) == 5 and state.hand(1) == (G(3), R(3))
    assert state.view().discard == (G(1),)


def test_h2_taking_the_last_discard_and_keeping_turns_up_a_new_one():
    game = load()
    state = setup(game, [GREEN_TOKEN, GOLD], [(G(5), R(2)), (G(3), R(3))], R(3))
    act(state, 0, L.TAKE)
    act(state, 0, L.KEEP)
    assert state.is_chance_node() and state.view().chance == "flip"
    chance(state, G(8))
    assert state.view().discard == (G(8),) and state.current_player() == 1


# H3 the dice ----------------------------------------------------------------------------

@pytest.mark.parametrize("dice, odds", [(6, 1 / 6), (3, 1 / 3), (1, 1.0)])
def test_h3_a_roll_after_each_full_turn_matches_with_one_in_dice(dice, odds):
    game = load(dice=dice)
    state = setup(game, [GREEN_TOKEN, GOLD], [(G(5), R(2)), (G(3), R(3))], G(1))
    act(state, 0, L.STAND)
    assert not state.is_chance_node()
    act(state, 1, L.STAND)
    assert state.view().chance == "dice"
    assert dict(state.chance_outcomes())[1] == pytest.approx(odds)
    assert sum(p for _, p in state.chance_outcomes()) == pytest.approx(1.0)


def test_h3_a_match_puts_every_hand_face_up_and_redeals_as_many():
    game = load()
    state = setup(game, [GREEN_TOKEN, GOLD], [(G(5), R(2)), (G(3), R(3))], G(1))
    act(state, 0, L.DRAW)
    chance(state, G(2))
    act(state, 0, L.KEEP)  # p0 holds 3 cards
    act(state, 1, L.STAND)  # p1 holds 2
    chance(state, 0)  # dice differ: nothing happens
    assert state.current_player() == 0 and state.view().cycle == 1
    act(state, 0, L.STAND)
    act(state, 1, L.STAND)
    chance(state, 1)  # a match
    # Seat order from the dealer's left, each hand lowest value first: the dealer's
    # highest card ends on top.
    assert state.view().discard == (G(1), R(2), G(2), G(5), R(3), G(3))
    assert "p0 reveal green +5" in state.information_state_string(1)
    for c in (B0, G(7), R(9)):
        assert state.action_to_string(CHANCE, c).endswith("to p0")
        chance(state, c)
    for c in (G(4), R(4)):
        assert state.action_to_string(CHANCE, c).endswith("to p1")
        chance(state, c)
    assert state.hand(0) == (B0, G(7), R(9)) and state.hand(1) == (G(4), R(4))
    assert "p1 redeal ?" in state.information_state_string(0)
    assert state.current_player() == 0 and state.view().cycle == 2


def test_h3_no_dice_parameter_skips_the_rolls():
    game = load(dice=0, turns=1)
    state = setup(game, [GREEN_TOKEN, GOLD], [(G(5), R(2)), (G(3), R(3))], G(1))
    act(state, 0, L.STAND)
    act(state, 1, L.STAND)
    assert state.view().phase == "pick"


# H4 the Best hand -----------------------------------------------------------------------

def test_h4_best_is_a_green_a_red_of_one_number_and_a_blue_zero():
    best = key(G(4), R(4), B0)
    assert best > key(G(1), R(1), G(2), R(2), B0)  # beats zero with five cards
    assert key(G(5), R(5), B0) > best  # higher numbers beat lower
    assert key(G(1), G(3), R(4)) < best  # zero with three cards, no blue: Very Good
    # best=-1: no Best hand; best=7: only green 7, red 7, blue 0.
    assert key(G(4), R(4), B0, best=-1) < key(G(1), R(1), G(2), R(2), B0, best=-1)
    assert key(G(4), R(4), B0, best=7) < key(G(1), R(1), G(2), R(2), B0, best=7)
    assert key(G(7), R(7), B0, best=7) > key(G(1), R(1), G(2), R(2), B0, best=7)


# H5 ranking -----------------------------------------------------------------------------

def test_h5_the_rulebook_examples():
    assert key(G(1), R(1), G(2), R(2), B0) > key(G(1), R(1), G(2), R(2))  # 5 over 4 cards
    assert key(G(4), R(4)) > key(G(3), R(3))  # two 4s over two 3s
    assert key(G(2), R(1)) > key(G(1), R(2))  # +1 over -1
    assert key(G(1), G(1), R(1)) > key(G(2), R(1))  # +1 with three over +1 with two
    assert key(G(1), R(1)) > key(G(2), R(1), B0)  # zero over any non-zero
    assert key(G(3), R(2)) > key(G(5), R(3))  # closer to zero first
    assert key(G(1), R(3)) > key(G(5), R(2))  # -2 over +3
    assert key(G(3), R(1)) == key(G(1), G(1))  # +2 and +2, two cards each: a tie (H7)
    assert key(B0, B0) < key(G(1), R(1))  # zero with two 0s: the lowest numbers


def test_h5_keys_are_recorded_at_the_round_end():
    game = load(dice=0, turns=1)
    state = setup(game, [GREEN_TOKEN, GOLD], [(G(5), R(2)), (G(4), R(4))], G(1))
    act(state, 0, L.STAND)
    act(state, 1, L.STAND)
    keys = state.view().keys
    assert keys[1] > keys[0] and state.current_player() == 1  # zero picks first


# H6 sharing out the pot -----------------------------------------------------------------

def test_h6_best_hand_chooses_first_then_the_others_by_rank():
    game = load(players=3, dice=0, turns=1, bounties=THREE_TOKENS)
    state = setup(game, [GREEN_TOKEN, GOLD, RED_TOKEN],
                  [(G(2), R(1)), (G(5), R(5)), (G(1), R(2))], G(9))
    for p in range(3):
        act(state, p, L.STAND)
    assert state.current_player() == 1  # zero
    assert state.legal_actions() == [pick(GREEN_TOKEN), pick(GOLD), pick(RED_TOKEN)]
    act(state, 1, pick(GOLD))  # any token, not only the most valuable
    assert state.current_player() == 0  # +1 over -1
    act(state, 0, pick(RED_TOKEN))
    assert state.is_terminal()  # the last token is given to p2
    assert state.view().got == (RED_TOKEN, GOLD, GREEN_TOKEN)
    assert state.returns() == pytest.approx([1 - 8 / 2, 3 - 6 / 2, 5 - 4 / 2])
    tokens = load(players=3, dice=0, turns=1, bounties=THREE_TOKENS, utility="tokens")
    replay = tokens.new_initial_state()
    for a in state.history():
        replay.apply_action(a)
    assert replay.returns() == [1.0, 3.0, 5.0]  # thousands of credits


def _shown_rows(state, player: int) -> list[tuple[int, int]]:
    """(seat, card) of each show event in player's information-state tensor, checked equal
    to the named observer's tensor."""
    observer = state.get_game().make_py_observer(
        pyspiel.IIGObservationType(perfect_recall=True))
    observer.set_from(state, player)
    assert np.array_equal(observer.tensor, state.information_state_tensor(player))
    rows = observer.dict["events"]
    value_at = L.NUM_EVENT_KINDS + L.MAX_PLAYERS
    return [(int(np.argmax(r[L.NUM_EVENT_KINDS:value_at])),
             int(np.argmax(r[value_at:value_at + L.NUM_CARD_KINDS])))
            for r in rows if r[L.E_SHOW] == 1 and r[value_at + L.NUM_CARD_KINDS] == 0]


def _shown_counts(state, player: int, public: bool = False) -> np.ndarray:
    """The observation tensor's `shown` piece (seats x card kinds)."""
    kind = pyspiel.IIGObservationType(
        perfect_recall=False, private_info=pyspiel.PrivateInfoType.NONE) if public else None
    observer = state.get_game().make_py_observer(kind)
    observer.set_from(state, player)
    if not public:
        assert np.array_equal(observer.tensor, state.observation_tensor(player))
    return observer.dict["shown"].copy()


def test_h6_every_hand_is_shown_at_the_round_end_before_the_tokens():
    """H6: "The round is then over and all players reveal their cards at the same time",
    then the tokens: after the last roll and its redeal, every hand in every view."""
    game = load(players=3, turns=2, bounties=THREE_TOKENS)
    state = setup(game, [GREEN_TOKEN, GOLD, RED_TOKEN],
                  [(G(2), R(1)), (G(5), R(6)), (G(1), R(2))], G(9))
    act(state, 0, L.DRAW)
    chance(state, R(4))
    act(state, 0, L.KEEP)
    act(state, 1, L.STAND)
    act(state, 2, L.STAND)
    chance(state, 0)  # dice differ
    for p in range(3):
        act(state, p, L.STAND)
    chance(state, 1)  # the last roll matches: every hand down, 3, 2 and 2 cards redealt (H3)
    redeal = [G(3), R(3), B0, G(8), R(7), G(4), R(10)]
    for c in redeal:
        # Before the end: nobody sees another's new cards, in any view.
        assert not state.view().shown
        for p in range(3):
            info, obs = state.information_state_string(p), state.observation_string(p)
            assert " show " not in info and "shown:" not in obs
            assert _shown_rows(state, p) == []
            assert not _shown_counts(state, p).any()
            assert not _shown_counts(state, p, public=True).any()
        assert "green +8" not in state.information_state_string(0)  # p1's, to come
        chance(state, c)
    assert "p1 redeal ?" in state.information_state_string(0)
    # The end: every hand shown, each lowest value first, before the first token choice.
    assert state.view().shown and state.view().phase == "pick"
    shows = ("p0 show red -3; p0 show blue 0; p0 show green +3; p1 show red -7; "
             "p1 show green +8; p2 show red -10; p2 show green +4")
    shown = " shown: p0:[blue 0, green +3, red -3] p1:[green +8, red -7] p2:[green +4, red -10]"
    counts = np.zeros((3, L.NUM_CARD_KINDS))
    for seat, cards in enumerate([(G(3), R(3), B0), (G(8), R(7)), (G(4), R(10))]):
        counts[seat, list(cards)] = 1
    expected_rows = [(0, R(3)), (0, B0), (0, G(3)), (1, R(7)), (1, G(8)), (2, R(10)),
                     (2, G(4))]
    for p in range(3):
        last = "red -10" if p == 2 else "?"  # the last redeal, then the shows
        assert state.information_state_string(p).endswith(f"p2 redeal {last}; {shows}")
        assert state.observation_string(p).endswith(shown)
        assert _shown_rows(state, p) == expected_rows
        assert np.array_equal(_shown_counts(state, p), counts)
        assert np.array_equal(_shown_counts(state, p, public=True), counts)
    # p0's Best hand picks first, knowing the others' hands; the shows stay in the log.
    assert state.current_player() == 0
    act(state, 0, pick(GREEN_TOKEN))
    act(state, 1, pick(GOLD))  # +1 over -6
    assert state.is_terminal() and state.view().got == (GREEN_TOKEN, GOLD, RED_TOKEN)
    for p in range(3):
        assert state.information_state_string(p).endswith(
            f"{shows}; p0 pick green; p1 pick gold; p2 pick red")
        assert state.observation_string(p).endswith(shown)


# H7 ties --------------------------------------------------------------------------------

def test_h7_tied_players_draw_for_the_contested_token():
    game = load(players=3, dice=0, turns=1, bounties=THREE_TOKENS)
    state = setup(game, [GREEN_TOKEN, GOLD, RED_TOKEN],
                  [(G(3), R(3)), (G(3), R(3)), (G(1), G(1))], G(9))
    for p in range(3):
        act(state, p, L.STAND)
    assert state.view().chance == "tie"
    # H6: the hands are shown before the tie draw
    assert state.information_state_string(2).endswith("p1 show red -3; p1 show green +3; "
                                                      "p2 show green +1; p2 show green +1")
    assert state.chance_outcomes() == [(0, 0.5), (1, 0.5)]
    assert state.action_to_string(CHANCE, 1) == "p1 draws closest to zero"
    chance(state, 1)
    act(state, 1, pick(GREEN_TOKEN))
    act(state, 0, pick(GOLD))  # the other tied player: alone now, no draw
    assert state.view().got == (GOLD, GREEN_TOKEN, RED_TOKEN)


def test_h7_no_draw_when_the_pot_holds_one_kind():
    game = load(players=2, dice=0, turns=1, bounties="green:2x5000")
    state = setup(game, [GREEN_TOKEN, GREEN_TOKEN], [(G(3), R(3)), (G(3), R(3))], G(9))
    act(state, 0, L.STAND)
    act(state, 1, L.STAND)
    assert state.is_terminal() and state.returns() == [0.0, 0.0]


# H8 an empty draw pile ------------------------------------------------------------------

def test_h8_an_empty_pile_is_refilled_from_the_discards_under_the_top():
    # 6 cards: green 1-3 and red 1-3; 4 dealt, 1 turned up, 1 left in the pile.
    game = load(numbers=3, copies=1, blues=0, dice=0)
    state = setup(game, [GREEN_TOKEN, GOLD], [(G(1), R(1)), (G(2), R(2))], G(3))
    act(state, 0, L.DRAW)
    assert state.chance_outcomes() == [(R(3), 1.0)]  # the last card
    chance(state, R(3))
    act(state, 0, discard(G(1)))  # discard pile: green 3, green 1 (top)
    assert sum(state.view().pile) == 0
    act(state, 1, L.DRAW)  # legal: the discards under the top are shuffled
    assert "reshuffle 1" in state.information_state_string(0)
    assert state.view().discard == (G(1),)
    assert state.chance_outcomes() == [(G(3), 1.0)]
    chance(state, G(3))
    act(state, 1, L.KEEP)
    act(state, 0, L.TAKE)  # the last discard...
    act(state, 0, L.KEEP)  # ...kept, with no card to turn up: the discard pile is empty
    assert state.view().discard == () and not state.is_chance_node()
    assert state.legal_actions() == [L.STAND]  # nothing to draw or take


def test_h8_a_redeal_may_use_the_top_discard_when_nothing_else_is_left():
    game = load(numbers=2, copies=1, blues=1, dice=1, turns=1)  # 5 cards, always a match
    state = setup(game, [GREEN_TOKEN, GOLD], [(G(1), R(1)), (G(2), R(2))], B0)
    act(state, 0, L.TAKE)
    act(state, 0, L.KEEP)  # every card is in a hand
    act(state, 1, L.STAND)
    chance(state, 1)
    for _ in range(5):
        assert state.is_chance_node()
        chance(state, state.chance_outcomes()[0][0])
    v = state.view()
    assert len(v.hands[0]) == 3 and len(v.hands[1]) == 2 and v.discard == ()


# H9 players and decks -------------------------------------------------------------------

@pytest.mark.parametrize("params, message", [
    ({"players": 1}, "players=1: must be a whole number from 2 to 6"),
    ({"players": 7}, "from 2 to 6"),
    ({"numbers": 1, "copies": 1, "blues": 2}, "4 cards, but 2 players need at least 5"),
    ({"turns": 4}, "turns=4: must be a whole number from 1 to 3"),
    ({"best": 5, "numbers": 3}, "the deck's numbers stop at 3"),
    ({"utility": "credits"}, "allowed are margin, tokens"),
    ({"colour": 1}, "Unknown parameter .colour."),
])
def test_h9_bad_parameters_say_what_is_allowed(params, message):
    with pytest.raises((ValueError, pyspiel.SpielError), match=message):
        load(**params)


def test_h9_deck_sizes():
    assert load().config.deck_size == 62
    assert load(numbers=2, copies=1, blues=1).config.deck_size == 5
    assert load(players=6).num_players() == 6


# H10 bounty tokens ----------------------------------------------------------------------

def test_h10_default_tokens():
    counts, values = parse_bounties(DEFAULT_BOUNTIES)
    assert counts == (10, 5, 4, 4, 1) and sum(counts) == 24
    assert values == (5000, 3000, 1000, 1000, 25000)
    assert min(values) == 1000 and max(values) == 25000


@pytest.mark.parametrize("text, message", [
    ("purple:1x5", "cannot read"), ("falcon:2x25000+green:3x1", "one Millennium Falcon"),
    ("green:1x5+green:1x5", "given twice"), ("green:0x5000", "at least 1 token"),
])
def test_h10_bad_bounties(text, message):
    with pytest.raises(ValueError, match=message):
        parse_bounties(text)


def test_h10_the_pot_needs_a_token_per_player():
    with pytest.raises((ValueError, pyspiel.SpielError), match="needs one per player"):
        load(players=3, bounties="green:2x5000")


# H11 the Millennium Falcon --------------------------------------------------------------

def test_h11_four_blue_or_red_capture_the_falcon_once():
    holdings = [[0, 0, 0, 4, 0], [1, 0, 0, 0, 1], [0, 0, 3, 0, 0]]
    after, captured = capture_falcon(holdings, [False] * 3)
    assert after[0][FALCON] == 1 and after[1][FALCON] == 0 and captured == [True, False, False]
    # p2 reaches four reds later: takes it from p0; p0 cannot take it back.
    after[2][RED_TOKEN] = 4
    after, captured = capture_falcon(after, captured)
    assert after[2][FALCON] == 1 and after[0][FALCON] == 0
    assert match_scores(after, (5000, 3000, 1000, 1000, 25000)) == [4000, 5000, 29000]
    # Nobody else has it: nothing happens.
    same, flags = capture_falcon([[0, 0, 4, 0, 1], [0] * 5], [False, False])
    assert same[0][FALCON] == 1 and flags == [False, False]


# H12 one round, utilities and the match -------------------------------------------------

def test_h12_one_round_is_one_game_and_pots_shrink_at_the_end():
    assert pot_size(24, 5) == 5 and pot_size(4, 5) == 4
    game = load()
    assert game.get_type().utility == pyspiel.GameType.Utility.ZERO_SUM
    assert game.max_utility() == pytest.approx(24.0) and game.min_utility() == -24.0
    tokens = load(utility="tokens")
    assert (tokens.min_utility(), tokens.max_utility()) == (1.0, 25.0)


# Invariants over random rounds ----------------------------------------------------------

def random_action(state, rng):
    if state.is_chance_node():
        outcomes, probs = zip(*state.chance_outcomes())
        return rng.choices(outcomes, probs)[0]
    return rng.choice(state.legal_actions())


@pytest.mark.parametrize("players", range(2, 7))
def test_random_rounds_conserve_cards_and_tokens(players):
    rng = random.Random(players)
    margin, tokens = load(players=players), load(players=players, utility="tokens")
    for _ in range(40):
        state = margin.new_initial_state()
        while not state.is_terminal():
            v = state.view()
            assert sum(v.pile) + len(v.discard) + sum(map(len, v.hands)) == 62
            assert all(len(h) <= L.MAX_HAND for h in v.hands)
            assert sum(v.pot) + sum(v.stack) + sum(g is not None for g in v.got) == 24
            outcomes = state.chance_outcomes() if state.is_chance_node() else []
            assert math.isclose(sum(p for _, p in outcomes), 1.0) or not outcomes
            state.apply_action(random_action(state, rng))
        assert all(g is not None for g in state.view().got)  # one token each
        assert len(state.history()) <= margin.max_game_length()
        m = state.returns()
        t = tokens.deserialize_state(state.serialize()).returns()
        assert math.isclose(sum(m), 0.0, abs_tol=1e-9)
        for i in range(players):
            assert math.isclose(m[i], t[i] - (sum(t) - t[i]) / (players - 1))


@pytest.mark.parametrize("players", range(2, 7))
def test_random_sim_test(players):
    pyspiel.random_sim_test(load(players=players), num_sims=5, serialize=True,
                            verbose=False)


def test_random_sim_test_reduced_decks():
    for params in ({"numbers": 2, "copies": 1, "blues": 1, "dice": 1},
                   {"players": 3, "numbers": 2, "copies": 2, "blues": 0, "dice": 2}):
        pyspiel.random_sim_test(load(**params), num_sims=20, serialize=True, verbose=False)


def test_tensors_fit_their_shapes_and_strings_differ_by_player():
    game = load(players=3)
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


def test_engine_random_rounds_run_compiled():
    initial = load(players=4).initial_array
    assert engine.random_rounds(initial, 50, 1) > 50 * 20


# CFR on the smallest reduced deck -------------------------------------------------------

# 5 cards (green 1 twice, red 1 twice, a blue 0), one turn each, no dice, a 5,000 and a
# 1,000 token: 2,104 terminal histories, 1,640 decision nodes.
SMALLEST = {"numbers": 1, "copies": 2, "blues": 1, "turns": 1, "dice": 0,
            "bounties": "green:1x5000+red:1x1000"}


def nash_convs(iterations: list[int]) -> list[float]:
    from open_spiel.python.algorithms import exploitability
    game = load(**SMALLEST)
    solver, out = pyspiel.CFRSolver(game), []
    for i in range(1, max(iterations) + 1):
        solver.evaluate_and_update_policy()
        if i in iterations:
            out.append(exploitability.nash_conv(game, solver.average_policy()))
    return out


def test_cfr_converges_on_the_smallest_deck():
    # Measured: 7.32, 2.77, 0.692 after 1, 5 and 20 iterations (thousands of credits).
    first, middle, last = nash_convs([1, 5, 20])
    assert first > middle > last
    assert last < 0.75


@pytest.mark.slow
def test_cfr_converges_further():
    # Measured: 0.277 after 50 iterations, 0.138 after 100.
    assert nash_convs([100])[0] < 0.15


def test_the_project_exact_solver_takes_the_game():
    """solver/exact walks han_solo through pyspiel; CFR+ on the smallest deck, checked
    against OpenSpiel's exploitability of the same strategy."""
    from open_spiel.python.algorithms import exploitability

    from solver.exact.solve import solve
    from solver.exact.tree import build_tree
    from solver.exact.tree_policy import tabular_policy
    game = load(**SMALLEST)
    tree = build_tree(game)
    outcome = solve(tree, "cfr+", iterations=200)
    # Measured: exploitability 3.66 after 1 iteration, 0.0022 after 100, 0.00055 after 200.
    assert outcome.curve[0].value > 3 and outcome.value < 1e-3
    theirs = exploitability.exploitability(game, tabular_policy(tree, outcome.strategy))
    assert theirs == pytest.approx(outcome.value, abs=1e-9)


def test_compiled_and_plain_python_engines_agree():
    """The same rounds with NUMBA_DISABLE_JIT=1 (the engine as plain Python) end alike."""
    import json
    import os
    import subprocess
    import sys
    from pathlib import Path

    game = load(players=3, dice=2)
    rng = random.Random(5)
    histories, expected = [], []
    for _ in range(5):
        state = game.new_initial_state()
        while not state.is_terminal():
            state.apply_action(random_action(state, rng))
        histories.append(state.history())
        expected.append([state.returns(), state.information_state_string(1)])
    script = ("import json, sys, pyspiel, spiel_game\n"
              "game = pyspiel.load_game('han_solo', {'players': 3, 'dice': 2})\n"
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


@pytest.mark.parametrize("params", [
    SMALLEST,
    # always a match, so every redeal is walked, the one that needs the top discard too (H8)
    {**SMALLEST, "dice": 1},
])
def test_every_node_of_a_small_tree(params):
    """The whole tree: chance sums to 1, no dead end, cards conserved, zero-sum ends."""
    game = load(**params)
    stack, terminals = [game.new_initial_state()], 0
    while stack:
        state = stack.pop()
        v = state.view()
        assert sum(v.pile) + len(v.discard) + sum(map(len, v.hands)) == 5
        if state.is_terminal():
            terminals += 1
            assert sum(state.returns()) == pytest.approx(0.0)
            continue
        actions = state.legal_actions()
        assert actions
        if state.is_chance_node():
            assert sum(p for _, p in state.chance_outcomes()) == pytest.approx(1.0)
        stack.extend(state.child(a) for a in actions)
    assert terminals > 1000


def test_action_encoding_is_closed_and_round_trips():
    assert L.NUM_ACTIONS == load().num_distinct_actions() == 30
    assert L.decode(17) == ("discard", R(3)) and L.action_to_string(17) == "discard red -3"
    assert L.encode_pick(FALCON) == 29 and L.action_to_string(29) == "take the falcon token"
    for a in range(L.NUM_ACTIONS):
        what, arg = L.decode(a)
        if what == "discard":
            assert L.encode_discard(arg) == a
        elif what == "pick":
            assert L.encode_pick(arg) == a
    with pytest.raises(ValueError, match="not a han_solo action id"):
        L.decode(30)
    assert [L.card_value(c) for c in (B0, G(10), R(10))] == [0, 10, -10]


def test_an_illegal_action_names_the_legal_ones():
    state = setup(load(), [GREEN_TOKEN, GOLD], [(G(5), R(2)), (G(3), R(3))], G(1))
    with pytest.raises((ValueError, pyspiel.SpielError),
                       match=r"action 3 is not legal here; legal: 0 \(draw from the pile\)"):
        state.apply_action(L.KEEP)
