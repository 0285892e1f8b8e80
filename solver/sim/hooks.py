"""What the play-out loop and the tournament (solver/sim/playout.py,
solver/evaluation/tournament.py) ask of a game beyond its engine: its policies' choices,
its deals and their random streams, its scores, as a function set
(spiel_game/interface.py). Each engine's hooks live beside its policies, a layer above:
solver/policies/playout.py has the Love Letter engine's (jabbas_palace, love_letter),
solver/han_solo/playout.py Han Solo's; each pairs its engine with them in a
`solver.sim.games.PlayoutGame`.

The loop and the tournament are written once: a game's own rules for chance, its policy
ids and its random-stream purposes are the hooks', never a test of the game's name.
"""

from __future__ import annotations

from spiel_game.interface import FunctionSet


# Each a numba function. `bank`: the game's policy arrays (a tuple), `policy` an index in
# it; `order`: a deal's cards in order; `state`: the deal's own uint64s (its further
# streams and counters: `deal_size` of them), restarted for every play of it. (The loop
# calls policy_probs itself, not a wrapper, and the deal's chance apart from chance at
# random: each call more with the policy arrays or the deal cost tournaments 2-5% of their
# rounds/s.)
PLAYOUT_HOOK_FUNCTIONS = {
    "max_actions": "() -> the most legal actions or chance outcomes at a node",
    "policy_probs": "(s, player, policy, bank, legal, n, out) -> how `policy` decided for "
                    "player at s: missed() when it lacks the key (a heuristic never "
                    "does), else with its probabilities over legal[:n] in out[:n]",
    "missed": "() -> what policy_probs returns for a policy without the key",
    "deal_size": "() -> how many uint64s a deal's state holds",
    "start_deal": "(cards, seed, deal, order, state) -> None: order = deal `deal`'s "
                  "permutation of cards, state = its state as a play of it starts",
    "deal_card": "(s, order, state, outcomes, probs) -> the pending chance outcome as "
                 "the deal (order, state) has it (outcomes, probs: scratch of max_actions)",
    "chance_action": "(s, rng, outcomes, probs) -> the pending chance outcome drawn from "
                     "the stream rng[0] with the engine's odds (no deal)",
    "decision_stream": "(seed, deal, rotation, seat_chain) -> the start of the stream "
                       "of the decisions of deal `deal` played in rotation `rotation` "
                       "(seat_chain: each seat's policy chain there)",
    "num_scores": "() -> how many numbers round_scores gives a seat",
    "round_scores": "(s, out) -> None: out[p, k] the finished round's k-th score of seat "
                    "p (k = 0: the points a match counts)",
    "winners": "(s) -> the finished round's winners as a bitmask of seats",
}


def playout_hooks(name: str, **functions) -> FunctionSet:
    """A game's play-out hooks, checked to provide every one of PLAYOUT_HOOK_FUNCTIONS."""
    return FunctionSet(name, required=tuple(PLAYOUT_HOOK_FUNCTIONS), **functions)
