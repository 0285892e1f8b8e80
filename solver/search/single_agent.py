"""Single-agent search for the advised seat at 3-6 players: the others play the table
(the blueprint), and my full action now and my next decision are chosen by value.

Per world drawn from the posterior (r) and full action of mine (a), `two_ply_values`
plays on to my next decision with every seat on the table's chain (the hint's rollout
policy), then tries each of my legal actions there, each followed by the chain to the
end on the same random numbers. My choice at that decision may depend only on what I
know then, so it is made per information key (the table's own abstraction key): the
action with the best mean over the samples of that key. To keep a value honest, the
samples are cross-fitted: the even samples choose for the odd ones and the other way
round, so the value of a plan is never read off the samples that picked it (no
winner's curse inside a key). A key with too few samples keeps the table's mixture.

This is SPARTA's single-agent search (Lerer et al. 2020) taken one decision deeper: the
others' blueprint is fixed, so the plan is never worse than the table's up to sampling
error. docs/search.md, "At 3–6 players: the single-agent search".
"""

from __future__ import annotations

import dataclasses
import time

import numpy as np
from numba import njit

from spiel_game import engine
from spiel_game import layout as L

from solver.abstraction.keys import abstract_key
from solver.policies.chain import chain_probs
from solver.sim.playout import padded_paths, play_out, replay_path, same_chain
from solver.policies.playout import LOVE_LETTER_PLAYOUT
from solver.sim.rng import STREAM_SINGLE_AGENT, check_seed, stream_seed
from solver.sim.sampler import sample

# My next decision is chosen among at most this many actions (a play: two cards; Leia's
# keep); a wider one follows the table.
MAX_NEXT = 8
# A key needs this many samples on the choosing half before its choice leaves the table.
MIN_KEY_SAMPLES = 8
# Below this many samples per full action the search does not answer.
MIN_SAMPLES = 256
CONSTRUCTION = ("single-agent search: the others play the table; my next decision "
                "chosen per information key by cross-fitted values")


@njit(cache=True, nogil=True)
def two_ply_values(worlds, picks, paths, me, seed, first, bank, chain, level):
    """values[a, r, b]: my return after full action paths[a] in world picks[r], play on
    by `chain` to my next decision, my action b there (of legal[:nb[a, r]]), then the
    chain to the end; keys[a, r] my information key there at `level` (0: the round
    ended first, or the decision was wider than MAX_NEXT and the chain took it: then
    values[a, r, 0] holds that return alone); probs[a, r, b] the chain's probability of
    b. Sample r uses the streams first + r: the same random numbers for every a and b."""
    num_players = worlds[0, L.S_NUM_PLAYERS]
    values = np.zeros((len(paths), len(picks), MAX_NEXT))
    keys = np.zeros((len(paths), len(picks)), dtype=np.int64)
    probs_out = np.zeros((len(paths), len(picks), MAX_NEXT))
    nb = np.zeros((len(paths), len(picks)), dtype=np.int32)
    out = np.zeros(num_players)
    legal = np.zeros(L.NUM_ACTIONS, dtype=np.int32)
    mine = np.zeros(L.NUM_ACTIONS, dtype=np.int32)
    probs = np.zeros(L.NUM_ACTIONS)
    rng = np.zeros(1, dtype=np.uint64)
    s = np.empty_like(worlds[0])
    t = np.empty_like(worlds[0])
    no_order = np.empty(0, dtype=np.int32)
    no_state = np.empty(0, dtype=np.uint64)
    seat_chain = same_chain(chain, num_players)
    seat_row = np.zeros(num_players, dtype=np.int32)
    counts = np.zeros((1, len(chain) + 1), dtype=np.int64)
    for r in range(len(picks)):
        for a in range(len(paths)):
            replay_path(engine.ENGINE, s, worlds[picks[r]], paths[a])
            rng[0] = stream_seed(seed, STREAM_SINGLE_AGENT, 2 * (first + r))
            play_out(engine.ENGINE, LOVE_LETTER_PLAYOUT, s, no_order, no_state, seat_chain, bank,
                     rng, legal, probs, counts, seat_row, me)
            nb[a, r] = 1
            probs_out[a, r, 0] = 1.0
            if engine.is_terminal(s):
                engine.returns(s, out)
                values[a, r, 0] = out[me]
                continue
            n = engine.legal_actions(s, mine)
            chain_probs(s, me, bank, chain, mine, n, probs)
            rng[0] = stream_seed(seed, STREAM_SINGLE_AGENT, 2 * (first + r) + 1)
            if n > MAX_NEXT:
                engine.apply_action(s, mine[sample(probs, n, rng)])
                play_out(engine.ENGINE, LOVE_LETTER_PLAYOUT, s, no_order, no_state, seat_chain,
                         bank, rng, legal, probs, counts, seat_row, -1)
                engine.returns(s, out)
                values[a, r, 0] = out[me]
                continue
            keys[a, r] = abstract_key(s, me, level)
            nb[a, r] = n
            for b in range(n):
                probs_out[a, r, b] = probs[b]
            for b in range(n):
                t[:] = s
                engine.apply_action(t, mine[b])
                rng[0] = stream_seed(seed, STREAM_SINGLE_AGENT, 2 * (first + r) + 1)
                play_out(engine.ENGINE, LOVE_LETTER_PLAYOUT, t, no_order, no_state, seat_chain,
                         bank, rng, legal, probs, counts, seat_row, -1)
                engine.returns(t, out)
                values[a, r, b] = out[me]
    return values, keys, probs_out, nb


def cross_fitted(values, keys, probs, nb, min_key_samples=MIN_KEY_SAMPLES):
    """(plan, table, changed): per full action and sample, my return under the plan that
    chooses my next decision per key on the other half of the samples (plan), and under
    the table's mixture there (table); `changed`, the share of samples where the plan
    chose other than the table's likeliest action."""
    table = (values * probs).sum(axis=2)
    plan = table.copy()
    num_paths, num_samples = keys.shape
    half = np.arange(num_samples) % 2
    changed = 0
    for a in range(num_paths):
        chosen = keys[a] != 0
        if not chosen.any():
            continue
        uniq, group = np.unique(keys[a][chosen], return_inverse=True)
        rows = np.flatnonzero(chosen)
        width = int(nb[a][chosen].max())
        for h in (0, 1):
            picking, judged = half[rows] != h, half[rows] == h
            sums = np.zeros((len(uniq), width))
            np.add.at(sums, group[picking], values[a, rows[picking], :width])
            seen = np.bincount(group[picking], minlength=len(uniq))
            legal = np.full(len(uniq), width)  # a key's legal count (the fewest seen)
            np.minimum.at(legal, group, nb[a][chosen])
            means = sums / np.maximum(seen, 1)[:, None]
            means[np.arange(width)[None, :] >= legal[:, None]] = -np.inf
            best = np.argmax(means, axis=1)
            ok = seen[group[judged]] >= min_key_samples
            target = rows[judged][ok]
            picked = best[group[judged][ok]]
            plan[a, target] = values[a, target, picked]
            changed += int((picked != probs[a, target].argmax(axis=1)).sum())
    return plan, table, changed / max(1, num_paths * num_samples)


@dataclasses.dataclass
class SingleAgentResult:
    """The search's plan over the full actions `paths` from s0, in the interface of the
    subgame search's SearchResult that the hint reads (line, options_after, phase_after,
    legal, probs, detail): the plan is pure, so a probability is 1 on its line, else 0."""

    s0: np.ndarray
    paths: list[tuple[int, ...]]
    plan: np.ndarray  # (paths, samples): my return under the plan
    table: np.ndarray  # the same with the table's mixture at my next decision
    changed: float
    seconds: float
    level: str

    def __post_init__(self):
        self.means = self.plan.mean(axis=1)
        self.legal = np.array(sorted({p[0] for p in self.paths}), dtype=np.int32)
        self.choose(self.paths[int(np.argmax(self.means))])

    def choose(self, path) -> None:
        """Make `path` the plan's full action (the hint chooses it by its own rule)."""
        self.chosen = tuple(path)
        self.probs = (self.legal == self.chosen[0]).astype(float)

    def _best_after(self, prefix) -> float:
        return max(float(self.means[i]) for i, p in enumerate(self.paths)
                   if p[:len(prefix)] == tuple(prefix))

    def line(self, path, reported: bool = False) -> tuple[float, float]:
        path = tuple(path)
        on_plan = float(self.chosen[:len(path)] == path)
        return on_plan, self._best_after(path)

    def options_after(self, prefix):
        prefix = tuple(prefix)
        nxt = sorted({p[len(prefix)] for p in self.paths
                      if p[:len(prefix)] == prefix and len(p) > len(prefix)})
        return [(a, *self.line(prefix + (a,))) for a in nxt]

    def phase_after(self, prefix) -> int:
        s = self.s0.copy()
        for a in prefix:
            engine.apply_action(s, a)
        return int(s[L.S_PHASE])

    def detail(self) -> dict:
        samples = int(self.plan.shape[1])
        return {"construction": CONSTRUCTION, "iterations": samples,
                "depth": "my next decision", "nodes": samples * len(self.paths),
                "samples": samples, "key_level": self.level,
                "next_decision_changed": round(self.changed, 4),
                "gain_over_table": round(float(self.means.max()
                                               - self.table.mean(axis=1).max()), 4),
                "seconds": round(self.seconds, 3)}


class SearchTooShort(Exception):
    """The budget gave fewer than MIN_SAMPLES samples per full action."""


def single_agent_search(worlds, paths, me, policies, level: str, seconds: float, seed: int,
                        samples: int | None = None, max_samples: int = 20_000
                        ) -> SingleAgentResult:
    """The plan over `paths` (my full actions at the root) in the posterior `worlds`
    ((states, weights)), within about `seconds`, or exactly `samples` samples per full
    action; the chain of `policies` plays every seat, `level` keys my next decision."""
    from solver.abstraction.keys import LEVELS

    seed = check_seed(seed)
    rng = np.random.default_rng(seed)
    acts = padded_paths(paths)
    stacked = np.ascontiguousarray(np.stack(worlds[0]))
    weights = np.asarray(worlds[1], dtype=np.float64)
    weights = weights / weights.sum()
    bank, chain = policies.bank.arrays(), np.asarray(policies.chain, dtype=np.int32)
    key_level = LEVELS[level]
    two_ply_values(stacked[:1], np.zeros(0, np.int64), acts, me, seed, 0, bank, chain,
                   key_level)  # compiled (or loaded) before the clock starts
    target = max_samples if samples is None else samples
    parts, done, batch = [], 0, 32
    start = time.perf_counter()
    while done < target:
        batch = min(batch, target - done)
        picks = rng.choice(len(stacked), size=batch, p=weights).astype(np.int64)
        parts.append(two_ply_values(stacked, picks, acts, me, seed, done, bank, chain,
                                    key_level))
        done += batch
        elapsed = time.perf_counter() - start
        if samples is None:
            if elapsed >= seconds:
                break
            batch = max(32, min(4 * batch, int(done * (seconds - elapsed)
                                               / max(elapsed, 1e-6))))
    if samples is None and done < MIN_SAMPLES:
        raise SearchTooShort(f"{done} samples per full action in {seconds:.2f} s, fewer "
                             f"than {MIN_SAMPLES}: the table and the rollouts answer")
    values, keys, probs, nb = (np.concatenate([p[i] for p in parts], axis=1)
                               for i in range(4))
    plan, table, changed = cross_fitted(values, keys, probs, nb)
    return SingleAgentResult(stacked[0].copy(), [tuple(p) for p in paths], plan, table,
                             changed, time.perf_counter() - start, level)
