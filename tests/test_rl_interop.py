"""RL interop: both games through Shimmy's OpenSpiel wrapper, a PettingZoo AEC environment
with Gymnasium spaces (docs/game.md, "Reinforcement learning"; the `rl` extra).

PettingZoo's own `api_test` on each game, then seeded random rounds through the AEC API
checked against the game underneath: the observation is the game's observation tensor, the
action mask its legal actions, chance never reaches an agent, the rewards are the round's
zero-sum returns (with spiel_game.rl's reward fix), and a seed replays its round. A few
seconds with numba's cache warm.
"""

from __future__ import annotations

import re
import warnings
from pathlib import Path

import numpy as np
import pyspiel
import pytest
from gymnasium import spaces
from pettingzoo.test import api_test
from shimmy import OpenSpielCompatibilityV0

import spiel_game  # noqa: F401  (registers the games)
from spiel_game.rl import environment

ROOT = Path(__file__).resolve().parents[1]
GAMES = [("jabbas_palace", {}),
         ("love_letter", {}),
         ("jabbas_palace", {"players": 3, "agenda": "jabbas_court"}),
         ("love_letter", {"players": 3})]
IDS = [f"{name}-{config.get('players', 2)}p" for name, config in GAMES]
# The wrapper gives every OpenSpiel game an unbounded Box observation space
# (shimmy/openspiel_compatibility.py, _update_observation_spaces), and api_test warns about
# such bounds. Nothing the game declares changes them; any other warning fails the test.
UNBOUNDED_BOX_WARNINGS = ("Agent's minimum observation space value is -infinity",
                          "Agent's maximum observation space value is infinity")


RewardsOnce = type(environment("love_letter"))  # the shipped wrapper, with the fix


# PettingZoo's api_test on the shipped wrapper only: Shimmy's own fails at random on a
# round that ends in chance alone (KeyError -4 in reset(), about 1 deal in 170; pinned
# below), and api_test's resets are not seeded. The shipped one deals such a round again.
WRAPPERS = [RewardsOnce]


def make_env(name: str, config: dict, wrapper=None) -> OpenSpielCompatibilityV0:
    """spiel_game.rl's environment, or Shimmy's plain wrapper (by name and config, not a
    loaded game: its reset() reloads the game from these two)."""
    if wrapper is None or wrapper is RewardsOnce:
        return environment(name, **config)
    return wrapper(game_name=name, config=dict(config))


@pytest.mark.parametrize("wrapper", WRAPPERS, ids=lambda w: w.__name__)
@pytest.mark.parametrize("name,config", GAMES, ids=IDS)
def test_pettingzoo_api_test_passes(name, config, wrapper):
    env = make_env(name, config, wrapper)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        api_test(env, num_cycles=1000)
    unexpected = [str(w.message) for w in caught
                  if not str(w.message).startswith(UNBOUNDED_BOX_WARNINGS)]
    assert not unexpected, unexpected


@pytest.mark.parametrize("name,config", GAMES, ids=IDS)
def test_spaces_are_the_games(name, config):
    env = make_env(name, config)
    game = pyspiel.load_game(name, config)
    n = game.num_players()
    assert env.possible_agents == [f"player_{p}" for p in range(n)]
    for agent in env.possible_agents:
        obs_space, action_space = env.observation_space(agent), env.action_space(agent)
        assert isinstance(obs_space, spaces.Box)
        assert obs_space.shape == tuple(game.observation_tensor_shape())
        assert isinstance(action_space, spaces.Discrete)
        assert action_space.n == game.num_distinct_actions()


def rollout(env: OpenSpielCompatibilityV0, seed: int) -> dict:
    """One round through the AEC API, random legal actions from a generator seeded with
    `seed`; checks every step against the game state underneath."""
    rng = np.random.default_rng(seed)
    env.reset(seed=seed)
    ids = env.agent_name_id_mapping
    totals = dict.fromkeys(env.possible_agents, 0.0)
    steps = []
    for agent in env.agent_iter():
        obs, reward, terminated, truncated, info = env.last()
        totals[agent] += reward
        assert not truncated, f"seed {seed}: truncated after {env.game_length} nodes"
        state = env.game_state
        if terminated:
            assert state.is_terminal()
            env.step(None)
            continue
        # Chance is resolved inside the wrapper: the agent asked is the player on move.
        assert not state.is_chance_node() and state.current_player() == ids[agent]
        mask = info["action_mask"]
        assert mask.dtype == np.int8 and mask.shape == (env._env.num_distinct_actions(),)
        assert np.flatnonzero(mask).tolist() == sorted(state.legal_actions())
        for other in env.agents:
            if other != agent:
                assert not env.infos[other]["action_mask"].any()
        np.testing.assert_array_equal(obs, state.observation_tensor(ids[agent]))
        action = int(rng.choice(np.flatnonzero(mask)))
        steps.append((agent, action, obs.tobytes(), reward))
        env.step(action)
    history = env.game_state.history()
    # The wrapper sampled the chance draws: the round recorded more than the agents did.
    assert len(history) > len(steps)
    returns = dict(zip(env.possible_agents, env.game_state.returns()))
    return {"steps": steps, "history": history, "totals": totals, "returns": returns}


@pytest.mark.parametrize("name,config", GAMES, ids=IDS)
def test_seeded_random_rounds_through_the_aec_api(name, config):
    env = make_env(name, config)
    for seed in range(15):
        run = rollout(env, seed)
        assert run["totals"] == pytest.approx(run["returns"])
        assert sum(run["totals"].values()) == pytest.approx(0.0, abs=1e-9)  # margin
    first, again, other = rollout(env, 7), rollout(make_env(name, config), 7), rollout(env, 8)
    assert again == first
    assert other["history"] != first["history"]


@pytest.mark.parametrize("name,config", GAMES, ids=IDS)
def test_shimmy_alone_pays_seat_k_its_return_k_plus_1_times(name, config):
    """The upstream bug RewardsOnce works around, pinned: when this fails, Shimmy has
    changed; if it now pays each return once, drop the fix here and in docs/game.md."""
    env = make_env(name, config, OpenSpielCompatibilityV0)
    shown = False  # a round where a seat past 0 won or lost something shows the bug
    for seed in range(5):
        run = rollout(env, seed)
        returns = [run["returns"][agent] for agent in env.possible_agents]
        paid = [run["totals"][agent] for agent in env.possible_agents]
        assert paid == pytest.approx([(k + 1) * r for k, r in enumerate(returns)])
        shown = shown or any(returns[1:])
    assert shown


def _chance_only_seed(name: str, config: dict) -> int:
    """A reset seed whose first deal ends the round before any decision (the engine
    settles every single option itself, and chance can run to the round's end): Shimmy's
    own wrapper fails there (KeyError -4)."""
    env = make_env(name, config, OpenSpielCompatibilityV0)
    for seed in range(3000):
        try:
            env.reset(seed=seed)
        except KeyError:
            return seed
    raise AssertionError("no round ended in chance alone in 3,000 deals")


@pytest.mark.parametrize("name,config", GAMES[:2], ids=IDS[:2])
def test_a_round_that_ends_in_chance_alone_is_dealt_again(name, config):
    """After reset() an agent is on move and none is done (PettingZoo's API), also on a
    seed whose first deal ends the round in chance alone; the round dealt again plays
    out, pays its returns once, and repeats with the seed. Shimmy's own wrapper fails
    there (pinned: when it stops failing, the fix in spiel_game.rl can go)."""
    seed = _chance_only_seed(name, config)
    env = make_env(name, config)
    env.reset(seed=seed)
    state = env.game_state
    assert not state.is_terminal() and not any(env.terminations.values())
    assert env.agent_selection == env.possible_agents[state.current_player()]
    run = rollout(make_env(name, config), seed)
    assert run["steps"] and run["totals"] == pytest.approx(run["returns"])
    assert rollout(make_env(name, config), seed) == run
    with pytest.raises(KeyError):
        make_env(name, config, OpenSpielCompatibilityV0).reset(seed=seed)


def test_the_docs_training_loop_runs():
    """docs/game.md's example, as printed there."""
    text = (ROOT / "docs" / "game.md").read_text("utf-8")
    section = text.split("\n## Reinforcement learning\n", 1)[1]
    (code,) = re.findall(r"```python\n(.*?)```", section.split("\n## ", 1)[0], re.S)
    namespace: dict = {}
    exec(compile(code, "docs/game.md", "exec"), namespace)
    env = namespace["env"]
    assert env.game_state.is_terminal() and not env.agents
    run = rollout(env, 0)  # the documented fix pays each agent its return once
    assert run["totals"] == pytest.approx(run["returns"])
