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

    Shimmy 2.0.1's step(), on an ended round, removes the agent on move but leaves the
    final rewards in `rewards`, and `_accumulate_rewards` adds them again to the agents
    still there: seat k would collect its return k + 1 times. Clearing them when an agent
    leaves, as PettingZoo's `AECEnv._was_dead_step` does, pays each return once
    (tests/test_rl_interop.py pins the upstream behaviour). The game goes by name and
    config, not loaded: the wrapper's reset() reloads it from these two."""
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

    return RewardsOnce(game_name=game_name, config=dict(config), render_mode=render_mode)
