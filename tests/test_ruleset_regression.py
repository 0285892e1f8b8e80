"""Jabba's Palace is unchanged by the second rule set (classic Love Letter, `love_letter`).

A regression fingerprint: digests of seeded random rounds of `jabbas_palace` (their action
histories and returns, every information-state and observation string and tensor, the
abstract keys of every decision at the levels of the shipped policies, the compiled and
Python heuristics' probabilities) and of the engine's own random playouts. The expected
digests were computed with the code of commit fbbd4f5 (before the engine took the cards as
data), by `python tests/test_ruleset_regression.py` in a worktree of that commit
(`git worktree add /tmp/wt_base fbbd4f5`). A failure names the part that changed: keys
of shipped policies, seeded tournaments and the documented figures all rest on them.
If Jabba's Palace is changed on purpose, regenerate them the same way and say why in the
commit.
"""

from __future__ import annotations

import hashlib
import json
import random
import sys

import numpy as np
import pyspiel

import spiel_game  # noqa: F401  (registers the game)

# (players, agenda, deck): every agenda with 2 and 3 players, more seats, reduced decks.
CONFIGS = ([(2, a, "full") for a in ("exalted_one", "my_kind_of_scum", "jabbas_court",
                                     "rescue_mission")]
           + [(3, a, "full") for a in ("exalted_one", "my_kind_of_scum", "jabbas_court",
                                       "rescue_mission")]
           + [(4, "jabbas_court", "full"), (6, "rescue_mission", "full"),
              (2, "exalted_one", "small"), (3, "my_kind_of_scum", "medium")])
ROUNDS = 12  # pyspiel rounds per configuration
ENGINE_ROUNDS = 3000  # engine random playouts per configuration
# The levels and heuristics of the shipped policies at fbbd4f5 (others may be added).
LEVELS = (0, 1, 2)  # identity, fine, coarse
HEURISTICS = ("uniform", "keep_higher", "keep_lower", "card_counter", "agenda_expert")


def _update(h, value) -> None:
    h.update(json.dumps(value, sort_keys=True).encode())
    h.update(b"\n")


def fingerprint() -> dict[str, str]:
    """Digest per (configuration, part); see the module docstring."""
    from solver.abstraction.keys import abstract_key
    from solver.policies.compiled import build_bank, probabilities
    from solver.policies.heuristics import HEURISTICS as PY_HEURISTICS
    from solver.sim.playout import run_playouts

    out = {}
    for players, agenda, deck in CONFIGS:
        game = pyspiel.load_game("jabbas_palace", {"players": players, "agenda": agenda,
                                                   "deck": deck})
        bank = build_bank(list(HEURISTICS), game)
        python_policies = [PY_HEURISTICS[name](game) for name in HEURISTICS]
        rng = random.Random(f"{players}-{agenda}-{deck}")
        parts = {part: hashlib.sha256() for part in (
            "history", "strings", "tensors", "keys", "compiled", "python")}
        for _ in range(ROUNDS):
            state = game.new_initial_state()
            while not state.is_terminal():
                if state.is_chance_node():
                    outcomes, probs = zip(*state.chance_outcomes())
                    _update(parts["history"], [outcomes, [round(p, 12) for p in probs]])
                    state.apply_action(rng.choices(outcomes, probs)[0])
                    continue
                p = state.current_player()
                legal = state.legal_actions()
                _update(parts["history"], [p, legal])
                _update(parts["strings"], [state.information_state_string(p),
                                           state.observation_string(p)])
                _update(parts["tensors"], [
                    hashlib.sha256(np.asarray(state.information_state_tensor(p),
                                              np.float32).tobytes()).hexdigest(),
                    hashlib.sha256(np.asarray(state.observation_tensor(p),
                                              np.float32).tobytes()).hexdigest()])
                _update(parts["keys"], [int(abstract_key(state._s, p, level))
                                        for level in LEVELS])
                for i in range(len(HEURISTICS)):
                    actions, values, _ = probabilities(bank, i, state._s, p)
                    _update(parts["compiled"], [actions.tolist(),
                                                [round(float(v), 12) for v in values]])
                for policy in python_policies:
                    _update(parts["python"], sorted(
                        (a, round(v, 12)) for a, v in policy.action_probabilities(state).items()))
                state.apply_action(rng.choice(legal))
            _update(parts["history"], [state.history(), state.returns()])
            _update(parts["strings"], [state.information_state_string(q)
                                       for q in range(players)] + [str(state)])
        decisions, chances, token_sums = run_playouts(game.initial_array, ENGINE_ROUNDS,
                                                      players * 100 + len(agenda))
        engine = hashlib.sha256()
        _update(engine, [int(decisions), int(chances), token_sums.tolist()])
        name = f"{players}p {agenda} {deck}"
        for part, h in parts.items():
            out[f"{name} {part}"] = h.hexdigest()[:16]
        out[f"{name} engine"] = engine.hexdigest()[:16]
    return out


EXPECTED: dict[str, str] = {  # computed at fbbd4f5 (module docstring)
    "2p exalted_one full history": "73868b94e6ac42d9",
    "2p exalted_one full strings": "8f39fcba83e2a30e",
    "2p exalted_one full tensors": "b83ab96c4317bb12",
    "2p exalted_one full keys": "32de1b9fbb52fd25",
    "2p exalted_one full compiled": "8e35529638b49da8",
    "2p exalted_one full python": "2aa47fa8d3e5f3c3",
    "2p exalted_one full engine": "fcc016a6508944b0",
    "2p my_kind_of_scum full history": "7193928accee3e1e",
    "2p my_kind_of_scum full strings": "2054219c9a57e486",
    "2p my_kind_of_scum full tensors": "ca5bfd7cd915fe18",
    "2p my_kind_of_scum full keys": "82951fca5f9c47a4",
    "2p my_kind_of_scum full compiled": "82ce2c2020e217d9",
    "2p my_kind_of_scum full python": "f26d8eb4b487c401",
    "2p my_kind_of_scum full engine": "89cf22a8d8c82cf7",
    "2p jabbas_court full history": "20544747136910c8",
    "2p jabbas_court full strings": "984b040f7f5f1cfc",
    "2p jabbas_court full tensors": "bc6d2f799ad7ba3d",
    "2p jabbas_court full keys": "892548d142f41138",
    "2p jabbas_court full compiled": "4e843793f1d44a0e",
    "2p jabbas_court full python": "a225a9bc4b1da136",
    "2p jabbas_court full engine": "31beb440202d8d09",
    "2p rescue_mission full history": "456172d095ec5cea",
    "2p rescue_mission full strings": "70d7e0f485cdae03",
    "2p rescue_mission full tensors": "507acd46c276fc1a",
    "2p rescue_mission full keys": "f72c3667a2b3b613",
    "2p rescue_mission full compiled": "b68ed5091235bb51",
    "2p rescue_mission full python": "29e4db8fe778f1b8",
    "2p rescue_mission full engine": "c9bee9c912e0134a",
    "3p exalted_one full history": "a74f59d579efdf1f",
    "3p exalted_one full strings": "e3aeea07aa6f1ed9",
    "3p exalted_one full tensors": "77cc430020d4f375",
    "3p exalted_one full keys": "5cef24066ad37823",
    "3p exalted_one full compiled": "83c02a4e2a63e369",
    "3p exalted_one full python": "97ae61b8374a90b1",
    "3p exalted_one full engine": "732fa5728e96b132",
    "3p my_kind_of_scum full history": "cc29778c96d5217b",
    "3p my_kind_of_scum full strings": "c31e34cfb697479b",
    "3p my_kind_of_scum full tensors": "862203efa60fafef",
    "3p my_kind_of_scum full keys": "5d5c989192f04ced",
    "3p my_kind_of_scum full compiled": "2093b23682d9d5df",
    "3p my_kind_of_scum full python": "5a552fd303c1017b",
    "3p my_kind_of_scum full engine": "563d5e533fb8e83e",
    "3p jabbas_court full history": "4a04b2e034feb095",
    "3p jabbas_court full strings": "56cbbd994344d994",
    "3p jabbas_court full tensors": "ce7fe89cff87ab3b",
    "3p jabbas_court full keys": "e779c0ec862e9260",
    "3p jabbas_court full compiled": "cec5c264fb5427f8",
    "3p jabbas_court full python": "b6787ae8d6346a32",
    "3p jabbas_court full engine": "21584df9dfc25e7b",
    "3p rescue_mission full history": "fff1dec2e535d787",
    "3p rescue_mission full strings": "bd1dd9d66f589e3b",
    "3p rescue_mission full tensors": "4b5965d7f22f1e80",
    "3p rescue_mission full keys": "f02e0eb062cf0f4d",
    "3p rescue_mission full compiled": "d37ece316e15053b",
    "3p rescue_mission full python": "7dc55550cf2a4df6",
    "3p rescue_mission full engine": "e10baba26de54790",
    "4p jabbas_court full history": "d25a0a7917f8b19e",
    "4p jabbas_court full strings": "870a9517bad872ac",
    "4p jabbas_court full tensors": "403810c47b5e6dba",
    "4p jabbas_court full keys": "9939bdddbef2b279",
    "4p jabbas_court full compiled": "efb50cfbf8404518",
    "4p jabbas_court full python": "574878474b232641",
    "4p jabbas_court full engine": "fa10355aa0ffb752",
    "6p rescue_mission full history": "589af7f4e8293413",
    "6p rescue_mission full strings": "51e15aac2fd23aab",
    "6p rescue_mission full tensors": "37881f257d058ebd",
    "6p rescue_mission full keys": "de785e4792bfbec6",
    "6p rescue_mission full compiled": "7e26e8aef58f1a3f",
    "6p rescue_mission full python": "4e70c34551cc8639",
    "6p rescue_mission full engine": "215cc441d0bc2199",
    "2p exalted_one small history": "4421d210065fccbb",
    "2p exalted_one small strings": "5936a986d2b17b3b",
    "2p exalted_one small tensors": "182d25e15b92b4bc",
    "2p exalted_one small keys": "aab125832a43e010",
    "2p exalted_one small compiled": "53986bfe3e48e0d7",
    "2p exalted_one small python": "96f972526db6a953",
    "2p exalted_one small engine": "a6043c636deb6809",
    "3p my_kind_of_scum medium history": "d5386aa9f71a718f",
    "3p my_kind_of_scum medium strings": "21f8a4e911784c82",
    "3p my_kind_of_scum medium tensors": "a6210d1c1e497f16",
    "3p my_kind_of_scum medium keys": "e669fb34894c8ef7",
    "3p my_kind_of_scum medium compiled": "4f28a6ae6605bc36",
    "3p my_kind_of_scum medium python": "eceb49723d210e7a",
    "3p my_kind_of_scum medium engine": "6d024b2228627c17",
}


def test_jabbas_palace_is_unchanged():
    got = fingerprint()
    changed = sorted(k for k in EXPECTED if got.get(k) != EXPECTED[k])
    assert set(got) == set(EXPECTED), "the fingerprint's parts changed"
    assert not changed, f"Jabba's Palace changed in: {', '.join(changed)}"


if __name__ == "__main__":
    json.dump(fingerprint(), sys.stdout, indent=1)
    print()
