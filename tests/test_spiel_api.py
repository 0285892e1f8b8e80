"""The OpenSpiel contract: random simulation, chance, serialization, bad input."""

from __future__ import annotations

import itertools
import math

import pyspiel
import pytest
from conftest import AGENDAS, load, random_action, random_history, replay

# Every character once (Bib and Boba twice): all effects, small enough for 6 players.
REDUCED_ALL_EFFECTS = ("han+guard:2+c3po+crumb+r2+mercenary+chewie+bib:2+lando+boba:2+leia"
                       "+rancor+luke+jabba+faceup:1")


@pytest.mark.parametrize("players,agenda", list(itertools.product(range(2, 7), AGENDAS)))
@pytest.mark.parametrize("deck", ["full", REDUCED_ALL_EFFECTS])
def test_random_sim_test(players, agenda, deck):
    game = load(players=players, agenda=agenda, deck=deck)
    pyspiel.random_sim_test(game, num_sims=15, serialize=True, verbose=False)


@pytest.mark.parametrize("deck", ["tiny", "small", "medium"])
def test_random_sim_test_presets(deck):
    game = load(deck=deck)
    pyspiel.random_sim_test(game, num_sims=30, serialize=True, verbose=False)


@pytest.mark.parametrize("players", [2, 3, 4, 6])
def test_chance_outcomes_are_distributions(players, rng):
    """At every chance node met: distinct character ids, positive odds summing to 1."""
    game = load(players=players, deck="full")
    for _ in range(150):
        state = game.new_initial_state()
        while not state.is_terminal():
            if state.is_chance_node():
                outcomes = state.chance_outcomes()
                ids = [a for a, _ in outcomes]
                assert len(set(ids)) == len(ids)
                assert all(0 <= a < 14 for a in ids)
                assert all(p > 0 for _, p in outcomes)
                assert math.isclose(sum(p for _, p in outcomes), 1.0, abs_tol=1e-12)
                assert ids == state.legal_actions()
            state.apply_action(random_action(state, rng))


def test_returns_margin_is_zero_sum_and_tokens_in_range(rng):
    for players in (2, 3, 5):
        margin = load(players=players)
        tokens = load(players=players, utility="tokens")
        for _ in range(100):
            history = random_history(margin, rng)
            m = replay(margin, history).returns()
            t = replay(tokens, history).returns()
            assert math.isclose(sum(m), 0.0, abs_tol=1e-12)
            assert all(v in (0, 1, 2) for v in t)
            for i in range(players):
                others = (sum(t) - t[i]) / (players - 1)
                assert math.isclose(m[i], t[i] - others)


def test_serialize_round_trip(rng):
    game = load(players=3, agenda="my_kind_of_scum")
    for _ in range(30):
        history = random_history(game, rng)
        for cut in (0, len(history) // 2, len(history)):
            state = replay(game, history[:cut])
            copy = game.deserialize_state(state.serialize())
            assert copy.history() == state.history()
            assert str(copy) == str(state)
            assert copy.information_state_string(1) == state.information_state_string(1)


def test_clone_is_independent(rng):
    game = load()
    state = game.new_initial_state()
    for _ in range(8):
        state.apply_action(random_action(state, rng))
    clone = state.clone()
    before = str(state)
    while not clone.is_terminal():
        clone.apply_action(random_action(clone, rng))
    assert str(state) == before
    assert clone.history()[:len(state.history())] == state.history()


def test_action_strings_read_like_the_game():
    game = load(players=3, deck="guard:2+jabba+luke+han+mercenary")
    state = game.new_initial_state()
    assert state.action_to_string(pyspiel.PlayerId.CHANCE, 1) == "deal Guard to player 0"
    for card in (1, 12, 13):  # deal Guard, Luke, Jabba; p0 draws Guard
        state.apply_action(card)
    assert state.action_to_string(pyspiel.PlayerId.CHANCE, 1) == "player 0 draws Guard"
    state.apply_action(1)
    view = state.view()  # holding two Guards, the play is forced and settled at once
    assert (view.phase, view.pending_card) == ("target", 1)
    assert [state.action_to_string(0, a) for a in state.legal_actions()] == ["choose player 1",
                                                                           "choose player 2"]
    state.apply_action(15)
    assert state.action_to_string(0, 26) == "name 5"


class TestBadInput:
    @pytest.mark.parametrize("params,message", [
        ({"players": 7}, "from 2 to 6"),
        ({"players": 1}, "from 2 to 6"),
        ({"agenda": "galactic_empire"}, "allowed agendas are exalted_one"),
        ({"utility": "score"}, "allowed are margin, tokens"),
        ({"deck": "guard:2+yoda"}, "unknown card 'yoda'"),
        ({"deck": "guard:-1+jabba"}, "must not be negative"),
        ({"deck": "guard:3+jabba+han+luke+leia"}, "Guard has 2 copies"),
        ({"deck": "guard:x"}, "is not a whole number"),
        ({"deck": "guard+jabba+faceup:0"}, "too small for 2 players"),
        ({"deck": "full+faceup:4"}, "unknown card 'full'"),
        ({"deck": "guard+jabba+han+luke+leia+faceup:5"}, "faceup must be 0 to 3"),
        ({"decks": "full"}, "Unknown parameter 'decks'. Available parameters are: agenda, deck"),
    ])
    def test_bad_parameters_say_what_is_allowed(self, params, message):
        with pytest.raises(Exception, match=message):
            load(**params)

    def test_illegal_action_lists_the_legal_ones(self):
        state = load().new_initial_state()
        with pytest.raises(Exception, match=r"not legal here .*legal: 0 \(set aside"):
            state.apply_action(30)

    def test_action_after_the_end_is_refused(self, rng):
        game = load()
        state = replay(game, random_history(game, rng))
        with pytest.raises(Exception, match="round is over"):
            state._apply_action(0)

    @pytest.mark.parametrize("text,message", [
        ("1\nx\n", "line 2: 'x' is not an action id"),
        ("1\n2\n3\n4\n99\n", "line 5: action 99 is not legal"),
        ("13\n13\n", "line 2: .*not legal"),  # only one Jabba in the deck
    ])
    def test_malformed_serialized_state(self, text, message):
        with pytest.raises(ValueError, match=message):
            load().deserialize_state(text)

    def test_unknown_card_names_suggest_the_nearest(self):
        from spiel_game.cards import character_id
        with pytest.raises(ValueError, match="Did you mean Chewbacca"):
            character_id("chewbaca")
        assert character_id("threepio") == character_id("C-3PO") == 2
        assert character_id("R2") == character_id("r2-d2") == 4
        assert character_id("boba") == 9


@pytest.mark.parametrize("players,deck", [(2, "full"), (3, "full"), (2, "medium"),
                                          (2, "leia+guard+han+jabba+luke+faceup:0")])
def test_forced_node_detection_agrees_with_legal_actions(players, deck, rng):
    """`settle` skips exactly the nodes with one legal option, before each is settled."""
    import numpy as np

    from spiel_game import engine, layout
    game = load(players=players, deck=deck)
    buf = np.empty(layout.NUM_ACTIONS, dtype=np.int32)
    checked = 0
    for _ in range(200):
        s = game.initial_array.copy()
        while not engine.is_terminal(s):
            n = engine.legal_actions(s, buf)
            expected = int(buf[0]) if n == 1 else -1
            assert engine._only_option(s) == expected
            checked += 1
            engine._apply_one(s, int(buf[rng.randrange(n)]))  # unsettled on purpose
    assert checked > 1000


def test_layout_sizes_follow_the_card_table_and_load_no_numba():
    import subprocess
    import sys
    from pathlib import Path

    from spiel_game import layout as L
    from spiel_game.cards import CHARACTERS, RULESETS

    # The layout holds every rule set (classic Love Letter too: tests/test_love_letter.py).
    assert L.MAX_CHARS == max(len(r.characters) for r in RULESETS) == len(CHARACTERS)
    assert L.MAX_NUMBER == max(c.number for r in RULESETS for c in r.characters)
    game = load()
    assert game.num_distinct_actions() == L.NAME_HIGH  # ids 0-59: numbers stop at 8 here
    assert game.max_chance_outcomes() == len(CHARACTERS)
    state = game.new_initial_state()
    for c in CHARACTERS:  # a play id is a character id; a named number goes up to the top
        assert state.action_to_string(0, L.PLAY + c.id) == f"play {c.name}"
        assert state.action_to_string(0, L.NAME + c.number) == f"name {c.number}"
        assert c.number < L.NAMES_IN_FIRST_BLOCK
    # layout.py reads cards.py: neither may pull in numba (or each other in a cycle).
    package = Path(L.__file__).parent
    probe = ("import sys, types; pkg = types.ModuleType('spiel_game'); "
             f"pkg.__path__ = [{str(package)!r}]; sys.modules['spiel_game'] = pkg; "
             "import spiel_game.layout; print(sorted(m for m in sys.modules "
             "if m.startswith(('numba', 'pyspiel', 'spiel_game'))))")
    loaded = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True,
                            check=True).stdout
    assert loaded.strip() == "['spiel_game', 'spiel_game.cards', 'spiel_game.layout']"
