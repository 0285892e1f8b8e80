"""The hint engine: what to play in a described situation, with EVs and beliefs.

`hint(situation)` answers for the start of the player's turn (2 cards in hand):

1. Worlds: the hidden cards filled in: every history that gives the log (a summary: its
   equivalent partial log), weighted by Bayes with the policy's own action
   probabilities (solver/hint/log.py, by the belief engine solver/belief): exact where
   the histories fit, a seeded sample past that (the answer says which, with the
   effective sample size); `prior_only`: the chance odds alone.
2. Policy: the shipped table for the game (results/policy_full_<agenda>_<n>p_<level>.npz)
   gives the probability of each legal option at the player's abstract information
   state. If that key is missing it backs off to a coarser table for the same game when
   one is there, and otherwise re-solves (`policy.source`).
3. Values: every full action chosen now (the card, then its target and number) is rolled
   out from the worlds, everybody then following the table (a coarser table, then the
   compiled `agenda_expert` heuristic, where a key is missing; the answer reports how
   often), with common random numbers across actions. The 95% intervals count both
   sources of noise, the rollouts and the worlds: rollouts from one world form a cluster
   and the standard error is the cluster-robust one (`_standard_error`).
4. The choice (solver/hint/choice.py `choose`; solver/hint/options.py `decide`, step by
   step), the same rule for the card, the target and the number: the option of best mean
   value, unless other options are within the 95% interval of their
   paired difference to it; then the policy's likeliest of those.

`answer(request)` answers a `HintRequest` (solver/hint/request.py, read and checked once,
by the command line and the web API alike) with a `HintAnswer` (solver/hint/answer.py, one
`to_json`) by its game's adapter; for this engine's games that is the one hint of every
game (solver/hint/pipeline.py) with this engine's part, `LoveLetterHint`.
`hint(situation, game, ...)` is the same for a Situation in hand. A play the rules force
(classic Love Letter's Countess, C3) is answered from the engine (`engine.forced_card`),
with nothing to value.
"""

from __future__ import annotations

import concurrent.futures
import dataclasses
import time

import numpy as np
from numba import njit

from spiel_game import engine
from spiel_game import layout as L
from spiel_game.actions import decision_to_string

from solver.belief import hand_probabilities
from solver.policies.chain import PolicySet, load_policies
from solver import games
# The search by its module: tests replace resolve.search (tests/test_timed_search.py).
from solver.search import resolve
from solver.search.resolve import ModelCannotExplain, SearchLimits, SearchUnfinished
from solver.search.single_agent import SearchTooShort, SingleAgentResult, single_agent_search
from solver.search.subgame import SubgameTooLarge
from solver.hint.answer import SCHEMA, SCHEMA_VERSION, HintAnswer  # noqa: F401  (re-exported)
from solver.hint.choice import Z95, _standard_error, choose
from solver.hint import options as hint_options
from solver.hint import pipeline
from solver.hint.pipeline import (GUARD_MARGIN, NoSearch, Rolled, TableAdvice,  # noqa: F401
                                  search_overruled)
from solver.hint.log import log_worlds, prior_worlds, summary_log_worlds
from solver.hint.request import (SEARCH_MAX_PLAYERS, HintRequest,  # noqa: F401
                                 MatchContext, OpponentModelUse, check_game, match_context)
from solver.hint.situation import Situation
from solver.policies.playout import LOVE_LETTER_PLAYOUT
from solver.sim.playout import (padded_chains, padded_paths, play_out, replay_path,
                                 same_chain)
from solver.sim.rng import STREAM_HINT_ROLLOUT, check_seed, next_float, stream_seed
from solver.sim.utility import round_utility

_JIT = dict(cache=True, nogil=True)
# The posterior's particle budget (a log's and a summary's): exact within it, then sampled
# at it. At 2-3 players 4,096 meets the accuracy goal in well under a second; at 4-6 it
# would take seconds, so 1,024 (docs/hint.md "Limits": the time and accuracy each buys).
SUMMARY_PARTICLES = 4096
MANY_PLAYERS_PARTICLES = 1024


def particle_budget(players: int) -> int:
    """The hint's posterior budget at a table of `players`."""
    return SUMMARY_PARTICLES if players <= 3 else MANY_PLAYERS_PARTICLES
# Rollouts stop before their time budget once the card to play is settled (`_card_settled`),
# but never before this many: the values shown keep intervals of a useful width.
SETTLE_AFTER = 512
# The search's share of --search-seconds that it keeps however long the beliefs took.
MIN_SEARCH_SHARE = 0.25


# Compiled rollouts -----------------------------------------------------------------------

@njit(**_JIT)
def rollout_values(worlds, picks, paths, me, seed, first, bank, chain, counts, tables,
                   model_seat, model_chains, model_cum):
    """values[0, a, r]: my return after the full action paths[a] (my action ids in
    order, padded with -1) in world picks[r], then everybody playing by `chain` (bank
    indices: the first that has their key decides) to the end, chance drawn at random
    (solver/sim/playout.py); values[1 + k, a, r]: the same round scored by tables[k]
    (solver/sim/utility.py). counts[0, k]: decisions chain[k] took, counts[0,
    len(chain)]: misses (none when the chain ends in a heuristic). Rollout r is rollout
    first + r of the seed's streams: the same random numbers for every a.

    An opponent model (model_seat >= 0): that seat plays model_chains[k] (as wide as
    chain) instead, k drawn per rollout by the cumulative weights model_cum (one more
    number of the rollout's stream, before its play-out); its decisions count in
    counts[1]."""
    num_players = worlds[0, L.S_NUM_PLAYERS]
    values = np.zeros((1 + len(tables), len(paths), len(picks)))
    out = np.zeros(num_players)
    legal = np.zeros(L.NUM_ACTIONS, dtype=np.int32)
    probs = np.zeros(L.NUM_ACTIONS)
    rng = np.zeros(1, dtype=np.uint64)
    s = np.empty_like(worlds[0])
    no_order = np.empty(0, dtype=np.int32)
    no_state = np.empty(0, dtype=np.uint64)
    seat_chain = same_chain(chain, num_players)
    seat_row = np.zeros(num_players, dtype=np.int32)  # every seat counts in counts
    if model_seat >= 0:
        seat_row[model_seat] = 1
    for r in range(len(picks)):
        kind = 0
        if model_seat >= 0:
            rng[0] = stream_seed(seed, STREAM_HINT_ROLLOUT, first + r)
            u = next_float(rng)
            while kind < len(model_cum) - 1 and u >= model_cum[kind]:
                kind += 1
            seat_chain[model_seat, :] = model_chains[kind]
        for a in range(len(paths)):
            replay_path(engine.ENGINE, s, worlds[picks[r]], paths[a])
            rng[0] = stream_seed(seed, STREAM_HINT_ROLLOUT, first + r)
            if model_seat >= 0:
                next_float(rng)  # the draw of the model's component
            play_out(engine.ENGINE, LOVE_LETTER_PLAYOUT, s, no_order, no_state, seat_chain, bank,
                     rng, legal, probs, counts, seat_row, -1)
            engine.returns(s, out)
            values[0, a, r] = out[me]
            for k in range(len(tables)):
                round_utility(s, tables[k], out)
                values[1 + k, a, r] = out[me]
    return values


# The hint -------------------------------------------------------------------------------

def _legal(s) -> list[int]:
    buf = np.empty(L.NUM_ACTIONS, dtype=np.int32)
    n = engine.legal_actions(s, buf)
    return buf[:n].tolist()


def _chosen_now(s, me) -> bool:
    """Whether my decision at s is part of the full action chosen now: the play, then its
    target and number (the same in every world). Later choices of mine (Leia's keep and
    order, Lando's trade) come after new information and are left to the rollouts."""
    return (not engine.is_terminal(s) and not engine.is_chance(s)
            and engine.current_actor(s) == me and s[L.S_PHASE] in (L.PH_TARGET, L.PH_NAME))


def _applied(s, a):
    t = s.copy()
    engine.apply_action(t, a)
    return t


def option_tree(policies: PolicySet, me: int) -> hint_options.OptionTree:
    """The Love Letter engine's decisions at a hint of seat `me` (solver/hint/options.py):
    the play, then its target and number; the tables' probabilities (the first level that
    has the key) break the rule's ties."""
    chars = policies.characters

    def probabilities(s, legal):
        found = policies.lookup(s, me, len(legal))
        return None if found is None else found[0]

    return hint_options.OptionTree(
        legal=_legal, apply=_applied, chosen_now=lambda s, prefix: _chosen_now(s, me),
        probabilities=probabilities, words=lambda a: decision_to_string(a, chars),
        decision=lambda s: L.PHASE_NAMES[s[L.S_PHASE]])


def full_actions(s0, me) -> list[tuple[int, ...]]:
    """Every full action of mine from s0 (a play decision): play, target, number."""
    tree = hint_options.OptionTree(
        legal=_legal, apply=_applied, chosen_now=lambda s, prefix: _chosen_now(s, me),
        probabilities=None, words=None, decision=None)
    return hint_options.full_actions(tree, s0.copy())


def _rollouts(worlds, paths, me, policies, seconds, seed, rollouts=None, min_rollouts=64,
              max_rollouts=20000, tables=None, model=None, settled=None,
              settle_after=SETTLE_AFTER):
    """Rollout values (1 + tables, paths, rollouts: rollout_values) within about
    `seconds` (or exactly `rollouts`), and the cluster (world draw) of each rollout.
    settled(values, clusters): whether the values so far decide the answer; then, after
    `settle_after` rollouts, the budget's rest is not spent (never with `rollouts`).
    model: (seat, chains of the bank no longer than policies.chain, weights), the
    seat's mixture.

    `worlds` is (states, weights): the posterior (the belief engine's particles), each
    rollout drawing its world from it by weight, so every rollout is its own cluster."""
    seed = check_seed(seed)
    rng = np.random.default_rng(seed)
    acts = padded_paths(paths)
    counts = np.zeros((2, len(policies.chain) + 1), dtype=np.int64)  # + misses
    bank = policies.bank.arrays()
    tables = np.zeros((0, 1, 1)) if tables is None else np.ascontiguousarray(tables)
    if model is None:
        model_args = (-1, np.zeros((1, len(policies.chain)), np.int32), np.ones(1))
    else:
        seat, chains, weights = model
        model_args = (seat, padded_chains(chains, len(policies.chain)),
                      np.cumsum(np.asarray(weights, np.float64) / np.sum(weights)))
    stacked = np.ascontiguousarray(np.stack(worlds[0]))
    p = np.asarray(worlds[1], dtype=np.float64)
    p = p / p.sum()
    # Compile (or load from the cache) before the clock starts.
    rollout_values(stacked[:1], np.zeros(0, np.int64), acts, me, seed, 0, bank,
                   policies.chain, counts.copy(), tables, *model_args)
    target = max_rollouts if rollouts is None else rollouts
    chunks, clusters, done, batch = [], [], 0, 32
    start = time.perf_counter()
    while done < target:
        batch = min(batch, target - done)
        picks = rng.choice(len(stacked), size=batch, p=p).astype(np.int64)
        clusters.append(np.arange(done, done + batch))
        chunks.append(rollout_values(stacked, picks, acts, me, seed, done, bank,
                                     policies.chain, counts, tables, *model_args))
        done += batch
        elapsed = time.perf_counter() - start
        if rollouts is None:
            if done >= min_rollouts and elapsed >= seconds:
                break
            if (settled is not None and done >= settle_after
                    and settled(np.concatenate(chunks, axis=2), np.concatenate(clusters))):
                break
            batch = min(4 * batch, max(32, int(done * (seconds - elapsed) / max(elapsed, 1e-6))))
        else:
            batch = 4 * batch
    # The chain ends in the rollout default, a heuristic: no decision is a miss.
    return (np.concatenate(chunks, axis=2), np.concatenate(clusters), counts[0, :-1],
            time.perf_counter() - start)


def _card_settled(values: np.ndarray, clusters: np.ndarray, cards: list[list[int]]) -> bool:
    """Whether the card to play is settled: the best card's best full action (by mean)
    leads every other card's best by more than the 95% interval of their paired
    difference. One card (or none worth comparing): settled."""
    means = values.mean(axis=1)
    best_of = [g[int(np.argmax(means[g]))] for g in cards]
    top = max(best_of, key=lambda i: means[i])
    for i in best_of:
        if i != top:
            diff = values[i] - values[top]
            if diff.mean() + Z95 * _standard_error(diff, clusters) >= 0:
                return False
    return True


def _opponents(sit: Situation, s0, hand_mass) -> list[dict]:
    """Per opponent: status and the probability of each card in their hand, from
    hand_mass(q) (weight per character id)."""
    chars = sit.rules.characters
    result = []
    for q in range(sit.players):
        if q == sit.seat:
            continue
        if s0[L.S_IN_ROUND + q] == 0:
            result.append({"seat": q, "status": "out", "hand": []})
            continue
        mass = hand_mass(q)
        mass = mass / mass.sum()
        cards = [{"card": chars[c].name, "probability": float(mass[c])}
                 for c in np.argsort(-mass, kind="stable") if mass[c] > 0]
        result.append({"seat": q, "status": "protected" if s0[L.S_PROTECTED + q] else "in",
                       "hand": cards})
    return result


def _world_mass(states, weights):
    """hand_mass over weighted worlds (Bayes along a log), from the belief engine's
    marginals."""
    hands = hand_probabilities(np.stack(states), weights)
    return lambda q: hands[q]


def _replayed_worlds(sit: Situation, game, policies: PolicySet, prior_only: bool, seed: int,
                     merge_logs: bool | None = None):
    """(weighted worlds, replay info) from the belief engine: Bayes over the histories
    the log or summary allows, exact where they fit `particle_budget` and sampled
    past it (solver/hint/log.py); with `prior_only`, by the chance odds
    alone (no inference from what the others chose). merge_logs: keep worlds apart
    where any player's log differs (what the decision-time search needs: each world
    then shows every opponent one information state)."""
    budget = particle_budget(game.num_players())
    if prior_only:
        return prior_worlds(sit, game, complete_within=budget, merge_logs=merge_logs, seed=seed)
    table = policies  # its tables weigh the opponents' choices, else agenda_expert
    if sit.log is not None:
        return log_worlds(sit, game, table, merge_logs, seed=seed, limit=budget)
    return summary_log_worlds(sit, game, table, complete_within=budget,
                              merge_logs=merge_logs, seed=seed)


def _posterior_answer(sit: Situation, policies: PolicySet, prior_only: bool, replay: dict
                      ) -> dict:
    """The answer's `posterior`: what the beliefs rest on, and how exact they are."""
    what = "the log gives" if sit.log is not None else "the summary allows"
    if prior_only:
        basis = f"the chance odds alone over every history {what} (--prior-only)"
    elif policies.paths:
        basis = (f"Bayes over every history {what}, with the policy's probabilities for "
                 "the opponents' decisions")
    else:
        basis = f"every history {what}, weighted by the odds"
    explanations = replay["explanations"]
    if explanations:
        basis += (f", under each of the {len(explanations)} explanations of which play "
                  "knocked out whom that the summary leaves, weighed by how likely each "
                  "makes what was seen")
    if not replay["exact"]:
        basis += (f"; sampled past {replay['particle_budget']:,} histories at once "
                  f"(effective sample size {replay['effective_sample_size']:,.0f}"
                  + (", collapsed: a rough answer" if replay["collapsed"] else "") + ")")
    return {"basis": basis, "worlds": replay["histories"], "complete": replay["complete"],
            "exact": replay["exact"],
            "effective_sample_size": round(replay["effective_sample_size"], 1),
            "collapsed": replay["collapsed"], "explanations": explanations}


def _run_search(sit, game, policies, states, weights, limits, seed, top, tables=None,
                exploit=None, leaves="single"):
    """(SearchResult, None) or (None, why the search could not answer)."""
    match = {} if tables is None else dict(round_table=tables[0], report_table=tables[1])
    try:
        return resolve.search(game, states, weights, sit.seat, policies, limits, seed,
                              top, exploit=exploit, leaves=leaves, **match), None
    except SubgameTooLarge as err:
        return None, f"the subgame is too large ({err})"
    except SearchUnfinished as err:
        return None, f"unfinished in its budget: {err}"
    except ModelCannotExplain as err:
        return None, str(err)


def _run_single_agent(worlds, paths, me, policies, seconds, seed, samples):
    """(SingleAgentResult, None), or (None, why the search could not answer), with no
    unexploiting twin (the single-agent search takes no opponent model)."""
    if len(paths) < 2:
        return None, "one full action: nothing to search", None
    try:
        found = single_agent_search(worlds, paths, me, policies, policies.levels[0], seconds,
                                    seed, samples)
    except SearchTooShort as why:
        return None, str(why), None
    return found, None, None


def _search_steps(result, path, chars) -> list[dict]:
    """The search's later decisions of a full action: each option's probability (given
    the steps before) and value (SearchResult navigates its subgame)."""
    steps = []
    for k in range(1, len(path)):
        prefix = tuple(path[:k])
        options = [{"action": decision_to_string(a, chars), "action_id": a,
                    "search_probability": p, "search_value": v}
                   for a, p, v in result.options_after(prefix)]
        steps.append({"decision": L.PHASE_NAMES[result.phase_after(prefix)],
                      "chosen": decision_to_string(path[k], chars), "chosen_by": "search",
                      "options": options})
    return steps


def hint(sit: Situation, game, policies: PolicySet | None = None, **options) -> dict:
    """The JSON answer for `sit` in `game` (schema SCHEMA, SCHEMA_VERSION): `answer` of
    the HintRequest with these options (its fields: seconds, rollouts, search, ...), the
    game's shipped tables unless `policies`."""
    policies = load_policies(game) if policies is None else policies
    return answer(HintRequest(sit, game, policies, **options)).to_json()


def answer(request: HintRequest) -> HintAnswer:
    """The answer to `request`, by its game's hint (solver/games/, hook `hint_answer`)."""
    return games.of(request.game).hint_answer(request)


@dataclasses.dataclass
class LoveLetterPosterior:
    """The hint's posterior (solver/hint/pipeline.py): the worlds and their weights, and
    what the replay says of them (`_replayed_worlds`)."""

    worlds: list
    weights: list
    replay: dict

    @property
    def present(self):
        return self.worlds[0]


def _searches(request: HintRequest) -> tuple[bool, bool]:
    """(whether the search is wanted, whether it is the single-agent one): 3-6 players the
    single-agent search (solver/search/single_agent.py), which needs no world kept apart
    by the others' logs; 2 players the subgame search, which does."""
    r = request
    fits = r.situation.players <= r.search_max_players
    return r.search and bool(r.policies.paths) and fits, r.situation.players >= 3


@dataclasses.dataclass
class _Started:
    """A search running on the other core (its kernels release the GIL)."""

    future: concurrent.futures.Future

    def finish(self):
        return self.future.result()


def _start(searches) -> _Started:
    pool = concurrent.futures.ThreadPoolExecutor(1, thread_name_prefix="hint-search")
    started = _Started(pool.submit(searches))
    pool.shutdown(wait=False)
    return started


class LoveLetterHint:
    """The Love Letter engine's part of the hint (solver/hint/pipeline.py `HintPart`):
    worlds and beliefs by the belief engine, the tables' probabilities (backing off to a
    coarser table, re-solving where none has the key), the search where a table (the
    blueprint) exists, rollouts within the time budget, stopping once the card is
    settled. With a match context the search and the rollouts maximise the match utility
    of the standings the round leaves, and every play shows its match-win probability
    beside its round EV (docs/match.md); with an opponent model that seat is locked to
    the model in a second search beside the unexploiting one, and the answer says what
    exploiting expects to gain and what it risks (docs/opponents.md)."""

    def __init__(self, request: HintRequest):
        self._chars = request.game.characters
        self._exploit = None
        self._match_tables = None

    def prepare(self, request):
        prepare(request)

    def forced(self, request, start):
        forced = forced_play(request.situation)
        if forced is None:
            return None
        return _forced_answer(request.situation, request.game, request.policies, forced,
                              start)

    def posterior(self, r):
        want, single_agent = _searches(r)
        weighted, replay = _replayed_worlds(
            r.situation, r.game, r.policies, r.prior_only, check_seed(r.seed),
            merge_logs=True if want and not single_agent else None)
        return LoveLetterPosterior([s for s, _ in weighted], [w for _, w in weighted],
                                   replay)

    def option_tree(self, request):
        return option_tree(request.policies, request.situation.seat)

    def table(self, r, post, tree, legal):
        policies = r.policies  # its lookup, which says the level (backoff) too
        found = policies.lookup(post.present, r.situation.seat, len(legal))
        if found is not None:
            probs, level = found
            if level == policies.levels[0]:
                source, how = "table", "table"
            else:
                source, how = "backoff", f"backed off to the {level} table"
            budget = r.seconds
        else:
            probs, level, source = None, None, "re-solve"
            how = ("re-solved: no table has this situation's key; chosen by the rollout "
                   "values over the worlds" if policies.paths else
                   "re-solved: no policy ships for this game; chosen by the rollout values "
                   f"({policies.default} plays the rollouts)")
            budget = r.resolve_seconds
        return TableAdvice(probs, source, how, level, policies.describe(), budget)

    def card(self, action):
        return self._chars[action - L.PLAY].name

    def search(self, r, post, paths, start):
        want, single_agent = _searches(r)
        seed, me, policies = check_seed(r.seed), r.situation.seat, r.policies
        worlds = (post.worlds, post.weights)
        if not r.search:
            return NoSearch("not asked for (--no-search)")
        if not policies.paths:
            return NoSearch("no table (blueprint) ships for this game")
        if not want:
            return NoSearch(f"the search answers up to {r.search_max_players} players; "
                            f"with {r.situation.players} the table (blueprint) answers")
        if single_agent and (r.match is not None or r.opponent is not None):
            return NoSearch("the search at 3-6 players values the round's margin without "
                            "models: with a match or an opponent model the table answers")
        if single_agent:
            seconds = max(r.search_seconds - (time.perf_counter() - start),
                          MIN_SEARCH_SHARE * r.search_seconds)
            return _start(lambda: _run_single_agent(worlds, paths, me, policies, seconds,
                                                    seed, r.search_samples))
        limits = r.search_limits
        if limits is None:  # --search-seconds bounds the answer: what the beliefs took is spent
            spent = time.perf_counter() - start
            limits = SearchLimits(seconds=max(r.search_seconds - spent,
                                              MIN_SEARCH_SHARE * r.search_seconds),
                                  iterations=r.search_iterations)
        tables = self._tables(r)
        rollout_policies, exploit = self._exploiting(r)

        def searches():
            found, note = _run_search(r.situation, r.game, policies, post.worlds,
                                      post.weights, limits, seed, r.search_top, tables,
                                      leaves=r.search_leaves)
            if r.opponent is None or found is None:
                return found, note, None
            exploiting, note = _run_search(r.situation, r.game, rollout_policies,
                                           post.worlds, post.weights, limits, seed,
                                           r.search_top, tables, exploit)
            return exploiting, note, found

        return _start(searches)

    def searched(self, result, tree, s0, index_of, legal, probs, how):
        d = result.detail()
        if isinstance(result, SingleAgentResult):
            # The plan's full action by the hint's own rule over the plan's values: the
            # best, the table breaking ties within the interval, step by step.
            plan_clusters = np.arange(result.plan.shape[1])
            _, plan_lines = hint_options.play_lines(tree, s0, index_of, result.plan,
                                                    plan_clusters)
            pick, _, _ = choose(np.stack([row for row, _, _ in plan_lines]), plan_clusters,
                                probs)
            result.choose(tuple([legal[pick]] + plan_lines[pick][2]))
            return result.chosen, (
                f"search: {d['construction']}; {d['samples']:,} worlds per full action, "
                f"keyed at the {d['key_level']} level; its plan leaves the table at "
                f"{d['next_decision_changed']:.0%} of my next decisions; the table's "
                f"probabilities beside it ({how})")
        # The card: the search's likeliest play; then its target and number: the best by
        # the search's values (each followed by my best play in the subgame).
        paths = list(index_of)
        play_prob = dict(zip(result.legal.tolist(), result.probs.tolist()))
        card = max(legal, key=lambda a: (play_prob[a], result.line((a,))[1]))
        values = [result.line(path)[1] for path in paths]
        top = max((i for i, path in enumerate(paths) if path[0] == card),
                  key=lambda i: values[i])
        return paths[top], (
            f"search: {d['construction']}, {d['roots']['order1']} + "
            f"{d['roots']['order2']} root histories, {d['nodes']:,} nodes, "
            f"{d['infosets']:,} information sets, to the {d['depth']}, "
            f"{d['iterations']} DCFR iterations; the table's probabilities beside it "
            f"({how})")

    def search_steps(self, result, path):
        return _search_steps(result, path, self._chars)

    def rollouts(self, r, post, paths, legal, table):
        me, match = r.situation.seat, r.match
        tables = self._tables(r)
        rollout_policies, exploit = self._exploiting(r)
        model = None if exploit is None else (exploit.seat, exploit.chains, exploit.weights)
        cards = [[i for i, path in enumerate(paths) if path[0] == a] for a in legal]
        scored, clusters, counts, seconds = _rollouts(
            (post.worlds, post.weights), paths, me, rollout_policies, table.budget,
            check_seed(r.seed), r.rollouts, tables=tables, model=model,
            settled=lambda v, c: _card_settled(v[0 if match is None else 1], c, cards))
        policies = r.policies
        decisions = int(counts.sum())
        total = max(decisions, 1)
        record = {"count": int(scored.shape[2]), "seconds": round(seconds, 3),
                  "worlds": int(np.count_nonzero(np.bincount(clusters))),
                  "decisions": decisions,
                  "from_table": float(counts[0] if policies.paths else 0) / total,
                  "from_coarser_table": float(counts[1:-1].sum()) / total,
                  "default_policy": policies.default,
                  "from_default_policy": float(counts[-1]) / total}
        by_rule = scored[0] if match is None else scored[1]
        return Rolled(by_rule, scored[0], None if match is None else scored[2], clusters,
                      record)

    def situation(self, r, post):
        sit, s0, me = r.situation, post.present, r.situation.seat
        return {"game": sit.game, "players": sit.players, "agenda": sit.agenda, "seat": me,
                "hand": [self._chars[int(c)].name for c in sorted(
                    s0[L.S_HAND + me * L.MAX_HAND:L.S_HAND + me * L.MAX_HAND + 2])],
                "deck": int(engine.deck_size(s0)),
                "described_by": "log" if sit.log is not None else "summary"}

    def posterior_record(self, r, post):
        return _posterior_answer(r.situation, r.policies, r.prior_only, post.replay)

    def opponents(self, r, post):
        return _opponents(r.situation, post.present, _world_mass(post.worlds, post.weights))

    def match_record(self, r, plays, recommendation):
        return None if r.match is None else _match_answer(r.match, plays, recommendation)

    def opponent_record(self, r, result, plain, paths, note):
        return None if r.opponent is None else r.opponent.answer(result, plain, paths, note)

    def _tables(self, r):
        """The match's utility and win tables (None without a match), made once per
        answer: the search and the rollouts score by the same ones."""
        if r.match is not None and self._match_tables is None:
            self._match_tables = r.match.tables()
        return self._match_tables

    def _exploiting(self, r):
        """(the rollouts' and the exploiting search's policies, the Exploit or None),
        made once per answer."""
        if r.opponent is None:
            return r.policies, None
        if self._exploit is None:
            self._exploit = r.opponent.exploit(r.game, r.policies)
        return self._exploit


def engine_answer(request: HintRequest) -> HintAnswer:
    """The answer to `request` in a game of the Love Letter engine: the one hint
    (solver/hint/pipeline.py) with this engine's part, `LoveLetterHint`."""
    return pipeline.answer(LoveLetterHint(request), request)


_PREPARED = []  # whether this process has loaded the hint's kernels
# What a first hint says while it compiles (measured: benchmarks/first_hint.py, README).
FIRST_RUN_NOTE = ("First run: compiling the belief, search and rollout kernels on two cores "
                  "(a few minutes, once; numba caches them)...")


def prepare(request: HintRequest) -> None:
    """Load (the first time: compile) every kernel a hint of this request's kind runs,
    before any budget's clock starts: a hint with the same options, on the first
    decision of seat 1 in a seeded random round of the same game, with one search
    iteration and 32 rollouts. Numba loads a kernel at its first call; without this the
    loading (the first time, the compiling) is taken from the search's budget."""
    import dataclasses

    from solver.hint.describe import person_summary
    from solver.hint.situation import from_mapping

    if _PREPARED:
        return
    _PREPARED.append(True)
    state = _warm_up_state(request.game)
    if state is None:
        return
    # A first run compiles: the rollouts' kernels in a second process meanwhile (numba
    # caches them; this one then loads them), the beliefs' and the search's here.
    helper = None if rollouts_compiled() else _compile_in_background("compile_rollouts")
    told = request.situation
    sit = from_mapping({**person_summary(state, 1),
                        **({"agenda": told.agenda} if told.agenda else {})})
    warm = dataclasses.replace(request, situation=sit, seconds=0.01, rollouts=32,
                               search_iterations=1, search_samples=32, search_limits=None)
    try:
        if helper is not None:  # the beliefs and the search first: the longer part
            post = resolve.my_posterior(request.game, state.array, 1, request.policies)
            if (request.search and request.policies.paths
                    and 2 == sit.players <= request.search_max_players):
                resolve.search(request.game, post.states, post.weights, 1,
                               request.policies, SearchLimits(iterations=1))
            helper.wait()
        answer(warm)
    finally:
        if helper is not None and helper.poll() is None:
            helper.kill()


def _warm_up_state(game):
    """The first decision of seat 1 in a seeded random round of `game` that the rules do
    not force (None if a thousand rounds gave none)."""
    import random

    from solver.sim.random_round import play_decisions

    rng = random.Random(0)
    for _ in range(1000):
        for state in play_decisions(game, rng):
            if state.current_player() == 1:
                hand = state.array[L.S_HAND + L.MAX_HAND:L.S_HAND + L.MAX_HAND + 2]
                if engine.forced_card(game.config.rules.id, hand, 0, 2) < 0:
                    return state.clone()
                break
    return None


def rollouts_compiled() -> bool:
    """Whether numba's cache holds the rollouts' kernel (not a first run)."""
    from pathlib import Path

    return any((Path(__file__).parent / "__pycache__").glob("advice.rollout_values*.nbi"))


def _compile_in_background(what: str):
    """A second Python process that runs `what` of this module (it compiles and caches
    kernels), with this process's import path."""
    import os
    import subprocess
    import sys

    env = {**os.environ, "PYTHONPATH": os.pathsep.join(p for p in sys.path if p)}
    return subprocess.Popen([sys.executable, "-c", f"from solver.hint import advice; "
                             f"advice.{what}()"], env=env, stdout=subprocess.DEVNULL,
                            stderr=subprocess.DEVNULL)


def compile_rollouts() -> None:
    """Compile (and cache) the rollouts' kernels: a few rollouts of the warm-up state of
    a 2-player Jabba's Palace, by its shipped tables."""
    import spiel_game

    game = spiel_game.load("jabbas_palace", players=2)
    policies = load_policies(game)
    s = _warm_up_state(game).array
    policies.lookup(s, 1, len(_legal(s)))
    _rollouts(([s], [1.0]), full_actions(s, 1), 1, policies, 0.01, 0, rollouts=32)


def _match_answer(match: MatchContext, plays: list[dict], recommendation: dict) -> dict:
    """The answer's `match` part: the standings, the chance to win the match now, and
    whether the round's best play (by round EV) is another card than the match's."""
    by_round = max(plays, key=lambda p: p["ev"])
    return {"standings": list(match.standings), "goal": match.values.goal,
            "values": match.source,
            "match_win_now": [float(x) for x in match.now()],
            "round_ev_play": by_round["card"],
            "disagrees": by_round["card"] != recommendation["card"]}


def forced_play(sit: Situation) -> int | None:
    """The card the rules make the player play, with nothing to decide (classic Love
    Letter's Countess held with the King or a Prince, docs/RULES.md C3), or None: the
    engine's own rule (`engine.forced_card`), asked of the described hand."""
    hand = np.asarray(sit.hand, dtype=np.int32)
    forced = int(engine.forced_card(sit.rules.id, hand, 0, len(hand)))
    return None if forced < 0 else forced


def _forced_answer(sit: Situation, game, policies: PolicySet, forced: int, start) -> HintAnswer:
    """The answer where the rules choose (`forced_play`): that play, no values. The engine
    plays a forced card by itself (no decision node), so there is nothing to roll out or
    search; a summary is still checked against the rules."""
    from solver.hint.validate import check

    chars = sit.rules.characters
    if sit.log is None:
        cfg = game.config
        check(sit, tuple(int(c) for c in cfg.deck.counts), cfg.face_up)
    action = L.PLAY + forced
    words = decision_to_string(action, chars)
    why = (f"forced: held with the {sit.names([c for c in sit.hand if c != forced])}, the "
           f"{chars[forced].name} is the only legal play (docs/RULES.md C3)")
    play = {"action": words, "action_id": action, "card": chars[forced].name,
            "probability": 1.0, "full_action": words, "steps": [], "ev": None,
            "ev_ci95": None, "vs_best": 0.0, "vs_best_ci95": 0.0}
    return HintAnswer(
        situation={"game": sit.game, "players": sit.players, "agenda": sit.agenda,
                   "seat": sit.seat, "hand": [chars[c].name for c in sorted(sit.hand)],
                   "deck": sit.deck, "described_by": "summary" if sit.log is None
                   else "log"},
        policy={"source": "rules", "detail": why, "level": None,
                "tables": policies.describe(),
                "search": {"used": False, "reason": "a forced play: nothing to decide"}},
        recommendation={"action": words, "card": chars[forced].name,
                        "chosen_by": "rules", "steps": []},
        plays=[play],
        full_actions=[{"action": words, "action_ids": [action], "ev": None,
                       "ev_ci95": None, "vs_best": 0.0, "vs_best_ci95": 0.0}],
        opponents=[],
        posterior={"basis": "none: the rules choose the play", "worlds": 0},
        rollouts={"count": 0, "seconds": 0.0, "worlds": 0, "decisions": 0,
                  "from_table": 0.0, "from_coarser_table": 0.0,
                  "default_policy": policies.default, "from_default_policy": 0.0},
        seconds=round(time.perf_counter() - start, 3))
