"""The hint engine: what to play in a described situation, with EVs and beliefs.

`hint(situation)` answers for the start of the player's turn (2 cards in hand):

1. Worlds: the hidden cards filled in: every history that gives the log, weighted by
   Bayes with the policy's own action probabilities (solver/hint/log.py, by the belief
   engine solver/belief), or, from a summary, the unseen cards dealt at random (card
   counting, solver/hint/worlds.py).
2. Policy: the shipped table for the game (results/policy_full_<agenda>_<n>p_<level>.npz)
   gives the probability of each legal play at the player's abstract information
   state. If that key is missing it backs off to a coarser table for the same game when
   one is there, and otherwise re-solves: it picks by a rollout search over the worlds
   within a time budget. The answer says which (`policy.source`).
3. Values: each play's expected token margin, from rollouts in which everybody follows
   the table (a coarser table, then the compiled `agenda_expert` heuristic, where a key
   is missing; the answer reports how often), with common random numbers across plays
   and a 95% interval.
4. The full action: after the card, the target and the number, each by the same rule.

The JSON form (`to_json`) is versioned: SCHEMA, SCHEMA_VERSION; the fields are in
docs/hint.md "JSON schema".
"""

from __future__ import annotations

import math
import time
from pathlib import Path

import numpy as np
from numba import njit

from spiel_game import engine
from spiel_game import layout as L
from spiel_game.actions import decision_to_string
from spiel_game.cards import CHARACTERS

from solver.policies.compiled import FROM_TABLE, build_bank, probabilities
from solver.policies.table import shipped_policies
from solver.hint.log import log_worlds
from solver.hint.situation import Situation, SituationError
from solver.hint.worlds import summary_worlds
from solver.sim.playout import play_out, reset
from solver.sim.rng import STREAM_HINT_ROLLOUT, check_seed, stream_seed

SCHEMA = "jabbas-palace-hint"
SCHEMA_VERSION = 1
_JIT = dict(cache=True, nogil=True)


# Compiled rollouts -----------------------------------------------------------------------

@njit(**_JIT)
def rollout_values(worlds, picks, actions, me, seed, first, bank, chain, counts):
    """values[a, r]: my return after action a in world picks[r], then everybody playing
    by `chain` (bank indices: the first that has their key decides) to the end, chance
    drawn at random (solver/sim/playout.py); counts[0, k]: decisions chain[k] took,
    counts[0, len(chain)]: misses (none when the chain ends in a heuristic). Rollout r is
    rollout first + r of the seed's streams: the same random numbers for every a."""
    num_players = worlds[0, L.S_NUM_PLAYERS]
    values = np.zeros((len(actions), len(picks)))
    out = np.zeros(num_players)
    legal = np.zeros(L.NUM_ACTIONS, dtype=np.int32)
    probs = np.zeros(L.NUM_ACTIONS)
    rng = np.zeros(1, dtype=np.uint64)
    s = np.empty_like(worlds[0])
    no_order = np.empty(0, dtype=np.int32)
    seat_chain = np.empty((num_players, len(chain)), dtype=np.int32)
    for p in range(num_players):
        seat_chain[p, :] = chain
    seat_row = np.zeros(num_players, dtype=np.int32)  # every seat counts in counts
    for r in range(len(picks)):
        for a in range(len(actions)):
            reset(s, worlds[picks[r]])
            engine.apply_action(s, actions[a])
            rng[0] = stream_seed(seed, STREAM_HINT_ROLLOUT, first + r)
            play_out(s, no_order, seat_chain, bank, rng, legal, probs, counts, seat_row, -1)
            engine.returns(s, out)
            values[a, r] = out[me]
    return values


# Policies -------------------------------------------------------------------------------

ROLLOUT_DEFAULT = "agenda_expert"  # plays the rollout decisions no table has


class PolicySet:
    """The table(s) for one game, finest level first (maybe none), in one compiled bank
    with ROLLOUT_DEFAULT after them: rollouts try them in that order."""

    def __init__(self, game, paths: list[Path]):
        self.paths = list(paths)
        self.bank = build_bank([str(p) for p in self.paths] + [ROLLOUT_DEFAULT], game)
        self.chain = np.arange(len(self.paths) + 1, dtype=np.int64)

    @property
    def levels(self) -> list[str]:
        return [self.bank.headers[i]["abstraction"]["level"] for i in range(len(self.paths))]

    def lookup(self, s, player: int, n: int):
        """(probabilities, level name) from the finest table that has the key, or None."""
        for i, level in enumerate(self.levels):
            _, probs, source = probabilities(self.bank, i, s, player)
            if source == FROM_TABLE:
                return probs[:n], level
        return None

    def describe(self) -> list[dict]:
        return [{"file": _display_path(path), "level": level,
                 "iterations": self.bank.headers[i]["iterations"],
                 "keys": self.bank.headers[i]["keys"]}
                for i, (path, level) in enumerate(zip(self.paths, self.levels))]


def _display_path(path: Path) -> str:
    try:
        return str(path.resolve().relative_to(Path.cwd()))
    except ValueError:
        return str(path)


def load_policies(game, paths: list[Path] | None = None) -> PolicySet:
    """The tables to use (the shipped ones by default), checked against the game."""
    if paths is None:
        params = game.get_parameters()
        paths = shipped_policies(params["deck"], params["agenda"], params["players"])
    return PolicySet(game, [Path(p) for p in paths])


# The hint -------------------------------------------------------------------------------

def _legal(s) -> list[int]:
    buf = np.empty(L.NUM_ACTIONS, dtype=np.int32)
    n = engine.legal_actions(s, buf)
    return buf[:n].tolist()


def _rollouts(states, weights, actions, me, policies, seconds, seed, min_rollouts=64,
              max_rollouts=20000):
    """Rollout values (actions x rollouts) within about `seconds`, worlds drawn by weight."""
    seed = check_seed(seed)
    rng = np.random.default_rng(seed)
    stacked = np.ascontiguousarray(np.stack(states))
    p = np.asarray(weights, dtype=np.float64)
    p = p / p.sum()
    counts = np.zeros((1, len(policies.chain) + 1), dtype=np.int64)  # + misses
    acts = np.asarray(actions, dtype=np.int32)
    bank = policies.bank.arrays()
    # Compile (or load from the cache) before the clock starts.
    rollout_values(stacked, np.zeros(0, np.int64), acts, me, seed, 0, bank, policies.chain,
                   counts.copy())
    chunks, done, batch = [], 0, 32
    start = time.perf_counter()
    while done < max_rollouts:
        picks = rng.choice(len(stacked), size=batch, p=p).astype(np.int64)
        chunks.append(rollout_values(stacked, picks, acts, me, seed, done, bank,
                                     policies.chain, counts))
        done += batch
        elapsed = time.perf_counter() - start
        if done >= min_rollouts and elapsed >= seconds:
            break
        batch = min(4 * batch, max(32, int(done * (seconds - elapsed) / max(elapsed, 1e-6))),
                    max_rollouts - done)
        if batch <= 0:
            break
    # The chain ends in ROLLOUT_DEFAULT, a heuristic: no decision is a miss.
    return np.concatenate(chunks, axis=1), counts[0, :-1], time.perf_counter() - start


def _summary_stats(values: np.ndarray) -> list[dict]:
    r = values.shape[1]
    out = []
    best = int(np.argmax(values.mean(axis=1)))
    for a in range(values.shape[0]):
        mean = float(values[a].mean())
        se = float(values[a].std(ddof=1) / math.sqrt(r)) if r > 1 else float("inf")
        diff = values[a] - values[best]
        se_diff = float(diff.std(ddof=1) / math.sqrt(r)) if r > 1 else float("inf")
        out.append({"ev": mean, "ev_ci95": 1.96 * se,
                    "vs_best": float(diff.mean()), "vs_best_ci95": 1.96 * se_diff})
    return out


def _opponents(sit: Situation, s0, hand_mass) -> list[dict]:
    """Per opponent: status and the probability of each card in their hand, from
    hand_mass(q) (weight per character id)."""
    result = []
    for q in range(sit.players):
        if q == sit.seat:
            continue
        if s0[L.S_IN_ROUND + q] == 0:
            result.append({"seat": q, "status": "out", "hand": []})
            continue
        mass = hand_mass(q)
        mass = mass / mass.sum()
        cards = [{"card": CHARACTERS[c].name, "probability": float(mass[c])}
                 for c in np.argsort(-mass, kind="stable") if mass[c] > 0]
        result.append({"seat": q, "status": "protected" if s0[L.S_PROTECTED + q] else "in",
                       "hand": cards})
    return result


def _world_mass(states, weights):
    """hand_mass over weighted worlds (Bayes along a log)."""
    def mass(q):
        out = np.zeros(L.MAX_CHARS)
        for s, w in zip(states, weights):
            for k in range(int(s[L.S_HAND_N + q])):
                out[s[L.S_HAND + q * L.MAX_HAND + k]] += w
        return out
    return mass


def _counting_mass(sit: Situation, unseen):
    """hand_mass by card counting: a known card, else the unseen cards (exact)."""
    counts = np.zeros(L.MAX_CHARS)
    for c, k in unseen.items():
        counts[c] = k

    def mass(q):
        if q in sit.saw:
            return np.eye(L.MAX_CHARS)[sit.saw[q]]
        return counts
    return mass


def hint(sit: Situation, game, policies: PolicySet | None = None, seconds: float = 0.25,
         resolve_seconds: float = 2.0, seed: int = 0, worlds: int = 512) -> dict:
    """The answer for `sit` as a JSON-ready dict (schema SCHEMA, SCHEMA_VERSION)."""
    start = time.perf_counter()
    policies = load_policies(game) if policies is None else policies
    me = sit.seat
    if sit.log is not None:
        weighted, replay = log_worlds(sit, game, policies if policies.paths else None)
        states = [s for s, _ in weighted]
        weights = [w for _, w in weighted]
        source = "log"
        posterior_basis = ("Bayes over every history that gives the log, with the "
                           "policy's probabilities for the opponents' decisions"
                           if policies.paths else
                           "every history that gives the log, weighted by the odds")
    else:
        states, unseen = summary_worlds(sit, game, worlds, np.random.default_rng(seed))
        weights = [1.0] * len(states)
        replay = None
        source = "summary"
        posterior_basis = "card counting: the unseen cards, known cards fixed"
    s0 = states[0]
    legal = _legal(s0)
    found = policies.lookup(s0, me, len(legal))
    if found is not None:
        probs, level = found
        if level == policies.levels[0]:
            policy_source, how = "table", "table"
        else:
            policy_source, how = "backoff", f"backed off to the {level} table"
        budget = seconds
    else:
        probs, level = None, None
        policy_source = "re-solve"
        how = ("re-solved: no table has this situation's key; plays chosen by a rollout "
               "search over the worlds" if policies.paths else
               "re-solved: no policy ships for this game; plays chosen by a rollout search "
               f"({ROLLOUT_DEFAULT} plays the rollouts)")
        budget = resolve_seconds
    values, counts, rollout_seconds = _rollouts(states, weights, legal, me, policies, budget,
                                                seed)
    stats = _summary_stats(values)
    means = values.mean(axis=1)
    if probs is not None:
        # The policy's likeliest play; near-ties (within 0.05) go to the better value.
        near = np.flatnonzero(probs >= probs.max() - 0.05)
        best = int(near[np.argmax(means[near])])
    else:
        best = int(np.argmax(means))
    plays = []
    for i, a in enumerate(legal):
        plays.append({"action": decision_to_string(a), "action_id": a,
                      "card": CHARACTERS[a - L.PLAY].name,
                      "probability": None if probs is None else float(probs[i]),
                      **stats[i]})
    steps, follow_how = _follow_up(states, weights, legal[best], me, policies, seconds, seed)
    rollout_decisions = int(counts.sum())
    total = max(rollout_decisions, 1)
    answer = {
        "schema": SCHEMA, "schema_version": SCHEMA_VERSION,
        "situation": {"players": sit.players, "agenda": sit.agenda, "seat": me,
                      "hand": [CHARACTERS[int(c)].name for c in sorted(
                          s0[L.S_HAND + me * L.MAX_HAND:L.S_HAND + me * L.MAX_HAND + 2])],
                      "deck": int(engine.deck_size(s0)), "described_by": source},
        "policy": {"source": policy_source, "detail": how, "level": level,
                   "tables": policies.describe()},
        "recommendation": {
            "action": ", ".join([plays[best]["action"]] + [s["chosen"] for s in steps]),
            "card": plays[best]["card"], "steps": steps},
        "plays": plays,
        "opponents": _opponents(sit, s0, _world_mass(states, weights) if sit.log is not None
                                else _counting_mass(sit, unseen)),
        "posterior": {"basis": posterior_basis, "worlds": len(states),
                      **({"complete": replay["complete"]} if replay else {})},
        "rollouts": {"count": int(values.shape[1]), "seconds": round(rollout_seconds, 3),
                     "decisions": rollout_decisions,
                     "from_table": float(counts[0] if policies.paths else 0) / total,
                     "from_coarser_table": float(counts[1:-1].sum()) / total,
                     "default_policy": ROLLOUT_DEFAULT,
                     "from_default_policy": float(counts[-1]) / total,
                     "follow_up": follow_how},
        "seconds": round(time.perf_counter() - start, 3),
    }
    return answer


def _follow_up(states, weights, play, me, policies, seconds, seed):
    """The rest of the full action after `play`: target, number... by the same rule."""
    steps, how = [], []
    current = [s.copy() for s in states]
    for s in current:
        engine.apply_action(s, play)
    while True:
        alive = [(s, w) for s, w in zip(current, weights) if not engine.is_terminal(s)
                 and not engine.is_chance(s) and engine.current_actor(s) == me
                 and s[L.S_PHASE] in (L.PH_TARGET, L.PH_NAME)]
        if not alive:
            return steps, how
        s0 = alive[0][0]
        legal = _legal(s0)
        found = policies.lookup(s0, me, len(legal))
        options = []
        if found is not None:
            probs = found[0]
            best = int(np.argmax(probs))
            how.append(f"{L.PHASE_NAMES[s0[L.S_PHASE]]}: table ({found[1]})")
        else:
            values, _, _ = _rollouts([s for s, _ in alive], [w for _, w in alive], legal, me,
                                     policies, seconds, seed)
            probs = None
            means = values.mean(axis=1)
            best = int(np.argmax(means))
            how.append(f"{L.PHASE_NAMES[s0[L.S_PHASE]]}: re-solved by rollouts")
        for i, a in enumerate(legal):
            options.append({"action": decision_to_string(a), "action_id": a,
                            "probability": None if probs is None else float(probs[i])})
        steps.append({"decision": L.PHASE_NAMES[s0[L.S_PHASE]],
                      "chosen": decision_to_string(legal[best]), "options": options})
        current = []
        weights = []
        for s, w in alive:
            engine.apply_action(s, legal[best])
            current.append(s)
            weights.append(w)


def check_game(sit: Situation):
    """The OpenSpiel game for a situation; SituationError for bad parameters."""
    import pyspiel

    import spiel_game  # noqa: F401

    try:
        return pyspiel.load_game("jabbas_palace", sit.game_params())
    except (ValueError, pyspiel.SpielError) as err:
        raise SituationError(str(err)) from None
