"""The games for reinforcement learning: a PettingZoo AEC environment with Gymnasium
spaces, Shimmy's OpenSpiel wrapper with one fix (docs/game.md, "Reinforcement learning").

Needs the `rl` extra (`pip install -e ".[rl]"`): shimmy and pettingzoo are imported only
when an environment is made.
"""

from __future__ import annotations


def environment(game_name: str = "jabbas_palace", render_mode: str | None = None,
                **config):
    """A PettingZoo AEC environment of `game_name` with the game parameters `config`
    (players, agenda, deck, utility ...), e.g. environment("jabbas_palace", players=3).
    Two fixes to Shimmy 2.0.1's wrapper:

    - its step(), on an ended round, removes the agent on move but leaves the
    final rewards in `rewards`, and `_accumulate_rewards` adds them again to the agents
    still there: seat k would collect its return k + 1 times. Clearing them when an agent
    leaves, as PettingZoo's `AECEnv._was_dead_step` does, pays each return once
    (tests/test_rl_interop.py pins the upstream behaviour);
    - a round that ends in chance alone, before any decision, made its reset() fail
    (KeyError -4, the terminal player id): it ends at once for every agent, with its
    returns.
    The game goes by name and config, not loaded: the wrapper's reset() reloads it from
    these two."""
    try:
        from shimmy import OpenSpielCompatibilityV0
    except ImportError as err:
        raise ImportError(f"spiel_game.rl needs shimmy and pettingzoo ({err}); install "
                          "them with pip install -e \".[rl]\"") from None
    import numpy as np

    import spiel_game  # noqa: F401  (registers the games with pyspiel)

    class RewardsOnce(OpenSpielCompatibilityV0):
        def _end_routine(self):
            ended = super()._end_routine()
            if ended:
                self._clear_rewards()
            return ended

        def _choose_next_agent(self):
            # A round can end in chance alone (about 1 deal in 170: the single options the
            # engine settles by itself run to the round's end). Shimmy's reset() then asks
            # the terminal state for its player (KeyError -4): end the round for every
            # agent here, with its returns, as step() does after a last action.
            if (self.game_state.is_terminal() and self.agents
                    and not any(self.terminations.values())):
                # Shimmy keeps no observation of a terminal state: the game's own
                self.observations = {
                    agent: np.array(self.game_state.observation_tensor(i), np.float64)
                    .reshape(self.observation_space(agent).shape)
                    for agent, i in self.agent_name_id_mapping.items()}
                self._update_rewards()
                self._update_termination_truncation()
                self._accumulate_rewards()
            super()._choose_next_agent()

    return RewardsOnce(game_name=game_name, config=dict(config), render_mode=render_mode)
