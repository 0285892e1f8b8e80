"""copy.deepcopy of every registered game's state: independent of the original, equal to it,
sharing the game, and as cheap as clone() (issue 36: OpenSpiel's Python algorithms copy
states at every node)."""

from __future__ import annotations

import copy
import random
import statistics
import time

import pyspiel
import pytest

from conftest import random_action
from spiel_game import REGISTERED

COPIES = 3000  # timed pairs: medians of this many are steady on a loaded machine


def mid_round(name: str, seed: int = 7) -> pyspiel.State:
    """The state at the middle decision of a seeded random round of `name`."""
    game = pyspiel.load_game(name)
    rng = random.Random(seed)
    state, decisions = game.new_initial_state(), []
    while not state.is_terminal():
        if not state.is_chance_node():
            decisions.append(state.clone())
        state.apply_action(random_action(state, rng))
    assert len(decisions) >= 3, f"{name}: seed {seed} gave a round too short to test"
    return decisions[len(decisions) // 2]


def described(state: pyspiel.State) -> tuple:
    players = range(state.num_players())
    return (str(state), state.history(), state.move_number(), state.legal_actions(),
            [state.information_state_string(p) for p in players],
            [state.observation_string(p) for p in players])


@pytest.mark.parametrize("name", REGISTERED)
def test_deepcopy_equals_the_state_and_shares_the_game(name):
    state = mid_round(name)
    twin = copy.deepcopy(state)
    assert type(twin) is type(state) and twin is not state
    assert described(twin) == described(state)
    assert twin.get_game() is state.get_game()
    assert twin._s is not state._s
    if hasattr(state, "_characters"):
        assert twin._characters is state._characters  # immutable: shared, not copied
    pair = copy.deepcopy([state, state])  # the memo: one state, one copy
    assert pair[0] is pair[1] and pair[0] is not state


@pytest.mark.parametrize("name", REGISTERED)
@pytest.mark.parametrize("make_copy", [copy.deepcopy, pyspiel.State.clone],
                         ids=["deepcopy", "clone"])
def test_a_copy_is_independent_of_its_original(name, make_copy):
    state = mid_round(name)
    before = described(state)
    twin = make_copy(state)
    action = twin.legal_actions()[-1]
    twin.apply_action(action)
    assert described(state) == before
    assert twin.history() == before[1] + [action]
    twin_now = described(twin)
    state.apply_action(state.legal_actions()[0])
    assert described(twin) == twin_now


@pytest.mark.parametrize("name", REGISTERED)
def test_deepcopy_costs_at_most_twice_a_clone(name):
    state = mid_round(name)
    clone_times, deepcopy_times = [], []
    for _ in range(COPIES):  # interleaved, so load on the machine hits both alike
        start = time.perf_counter()
        state.clone()
        middle = time.perf_counter()
        copy.deepcopy(state)
        deepcopy_times.append(time.perf_counter() - middle)
        clone_times.append(middle - start)
    clone, deep = statistics.median(clone_times), statistics.median(deepcopy_times)
    assert deep <= 2 * clone, (f"{name}: deepcopy {deep * 1e6:.1f} us, clone "
                               f"{clone * 1e6:.1f} us")
