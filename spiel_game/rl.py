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
    - a deal whose round ends in chance alone, before any decision (about 1 in 170),
    made its reset() fail (KeyError -4, the terminal player id). PettingZoo's API wants
    a turn to play after reset(), and such a round has none to learn from: the
    environment deals again, from the same seeded random stream. Its rounds are thus
    those with at least one decision.
    The game goes by name and config, not loaded: the wrapper's reset() reloads it from
    these two."""
    try:
        from shimmy import OpenSpielCompatibilityV0
    except ImportError as err:
        raise ImportError(f"spiel_game.rl needs shimmy and pettingzoo ({err}); install "
                          "them with pip install -e \".[rl]\"") from None

    import spiel_game  # noqa: F401  (registers the games with pyspiel)

    class RewardsOnce(OpenSpielCompatibilityV0):
        def _end_routine(self):
            ended = super()._end_routine()
            if ended:
                self._clear_rewards()
            return ended

        def reset(self, seed=None, options=None):
            super().reset(seed, options)
            while self.game_state.is_terminal():  # the round ended in chance alone
                self._deal_again()

        def _deal_again(self):
            """A new round from the same random stream: Shimmy's reset() after its
            reseeding and reloading."""
            self.agents = self.possible_agents[:]
            self._cumulative_rewards = {a: 0.0 for a in self.agents}
            self.rewards = {a: 0.0 for a in self.agents}
            self.terminations = {a: False for a in self.agents}
            self.truncations = {a: False for a in self.agents}
            self.infos = {a: {} for a in self.agents}
            self.game_length = 1
            self.game_state = self._env.new_initial_state()
            self._execute_chance_node()
            self._update_action_masks()
            self._update_observations()
            self._choose_next_agent()

        def _choose_next_agent(self):
            # A terminal state before any agent is done: a deal that ended the round in
            # chance alone, which reset() deals again. Shimmy would ask it for its
            # player (KeyError -4).
            if self.game_state.is_terminal() and not any(self.terminations.values()):
                return
            super()._choose_next_agent()

    return RewardsOnce(game_name=game_name, config=dict(config), render_mode=render_mode)
