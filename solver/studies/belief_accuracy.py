"""The sampled belief filter against the exact posterior (results/belief_accuracy.*).

Information states: random rounds (seeded), each stopped at a random play decision of a
random seat, told as the hint's summary of what that player knows (hand, play areas,
face-up, out, protected, the cards they saw: `player_summary`), read as the summary's
partial log (solver/hint/log.py `summary_pattern`) and selected by what the player knows
now (`summary_fits`), the opponents weighed by the game's default heuristic with the
hint's tremble, as the hint does. For each: the exact posterior (the filter with a
budget the histories fit), and the filter forced to sample (a budget of a fraction of
the particles the exact run needed, or a fixed budget): total-variation distance of
each opponent's hand marginal, the largest over the opponents still in the round.
"""

from __future__ import annotations

import random
import time

import numpy as np

from spiel_game import layout as L

from solver.sim.random_round import play_decisions
from solver.belief import effective_sample_size, hand_probabilities, posterior
from solver.belief import TREMBLE
from solver.hint.log import _sampled, summary_fits, summary_pattern
from solver.hint.situation import SituationError, from_mapping, player_summary
from solver.hint.validate import check
from solver.policies.chain import default_heuristic
from solver.policies.compiled import build_bank

EXACT_BUDGET = 1 << 16


def random_stop(game, rng: random.Random):
    """A random round stopped at a random play decision, or None (the round gave none)."""
    stops = [state.clone() for state in play_decisions(game, rng)]
    return rng.choice(stops) if stops else None


class Heuristic:
    """The game's default heuristic as the one policy of the hint's belief engine
    (solver/hint/log.py reads `paths` and `bank` of a PolicySet)."""

    def __init__(self, game):
        self.paths = [default_heuristic(game)]
        self.bank = build_bank(self.paths, game)


class Case:
    """One information state: the summary's pattern and the belief engine's inputs."""

    def __init__(self, game, state):
        cfg = game.config
        self.game, self.me = game, state.current_player()
        self.sit = check(from_mapping(player_summary(state, self.me)),
                         tuple(int(c) for c in cfg.deck.counts), cfg.face_up)
        self.pattern, _ = summary_pattern(self.sit, game)
        self.policy = Heuristic(game)
        self.players = game.num_players()

    def run(self, budget: int, seed: int = 0, hint: bool = True):
        """(posterior, hand marginals (players, cards) of the kept worlds or None, ESS).
        hint: as the hint asks (solver/hint/log.py `_sampled`: exact within the budget,
        else sampled at it, a collapsed sample answering as it is (flagged), a sample
        that kept nothing redrawn with new seeds); else one run of the filter."""
        def select(states):
            return [k for k, s in enumerate(states)
                    if summary_fits(self.sit, s, self.game.config)]

        if hint:
            post, keep = _sampled(self.game, self.me, self.pattern, self.policy, None,
                                  budget, seed, select)
        else:
            post = posterior(self.game, self.me, self.pattern, bank=self.policy.bank,
                             chain=[0], floor=TREMBLE, miss_unknown=True, omissions=True,
                             done_phase=L.PH_PLAY, max_particles=budget, grow_to=budget,
                             seed=seed)
            keep = select(post.states)
        w = post.weights[keep]
        if not len(keep) or w.sum() <= 0:
            return post, None, 0.0
        w = w / w.sum()
        ess = float(len(keep)) if post.exact else effective_sample_size(w)
        return post, hand_probabilities(post.states[keep], w), ess

    def opponents(self, states) -> list[int]:
        s = states[0]
        return [q for q in range(self.players) if q != self.me and s[L.S_IN_ROUND + q]]


def hand_tv(a: np.ndarray, b: np.ndarray, seats) -> float:
    """The largest total-variation distance between two marginals of one hand (each
    row: a seat's probability per card, summing to its hand size) over seats."""
    out = 0.0
    for q in seats:
        size = max(a[q].sum(), 1e-12)
        out = max(out, 0.5 * float(np.abs(a[q] - b[q]).sum()) / size)
    return out


def measure(game, count: int, seed: int, plans, exact_budget: int = EXACT_BUDGET) -> dict:
    """`plans`: (label, budget, hint) with budget an int or a fraction "1/k" of the
    particles the exact run needed (not run below 8 particles). For `count` random
    information states whose exact run fits exact_budget: per plan, (TV, ESS, sampled?,
    final budget) of each state; also how many were drawn, refused (the summary cannot
    be read) or too large for the exact run."""
    rng = random.Random(seed)
    rows = {label: [] for label, _, _ in plans}
    drawn = refused = too_large = 0
    exact_sizes = []
    start = time.perf_counter()
    while drawn < count:
        state = random_stop(game, rng)
        if state is None:
            continue
        drawn += 1
        try:
            case = Case(game, state)
        except SituationError:
            refused += 1
            continue
        exact, truth, _ = case.run(exact_budget, hint=False)
        if not exact.exact:
            too_large += 1
            continue
        if truth is None:
            refused += 1
            continue
        peak = exact.stats["most_particles"]
        exact_sizes.append(peak)
        seats = case.opponents(exact.states)
        for label, budget, hint in plans:
            if isinstance(budget, str):
                budget = peak // int(budget.split("/")[1])
                if budget < 8:
                    continue
            post, got, ess = case.run(budget, seed=drawn, hint=hint)
            tv = 1.0 if got is None else hand_tv(got, truth, seats)
            rows[label].append((tv, ess, not post.exact, post.max_particles))
    return {"rows": rows, "drawn": drawn, "refused": refused, "too_large": too_large,
            "exact_particles": exact_sizes, "seconds": time.perf_counter() - start}


def _stat(f, x):
    return round(float(f(x)), 4) if len(x) else None


def _p95(x):
    return np.percentile(x, 95)


COLUMNS = ["deck", "players", "agenda", "plan", "states", "compared", "sampled",
           "tv_median", "tv_p95", "tv_max", "sampled_tv_median", "sampled_tv_p95",
           "sampled_ess_median", "lost", "refused", "too_large", "exact_particles_median",
           "exact_particles_p95", "seconds"]


def summarise(deck: str, players: int, agenda: str, found: dict) -> list[dict]:
    """One row per plan (COLUMNS): TV over every compared state and over those the
    filter sampled (an exact answer has TV 0), lost: samples that kept no history."""
    out = []
    sizes = np.array(found["exact_particles"])
    for label, rows in found["rows"].items():
        tv = np.array([r[0] for r in rows])
        sampled = [r for r in rows if r[2]]
        stv = np.array([r[0] for r in sampled])
        sess = np.array([r[1] for r in sampled])
        out.append({"part": "exactness", "deck": deck, "players": players,
                    "agenda": agenda, "plan": label,
                    "states": found["drawn"], "compared": len(rows),
                    "sampled": len(sampled), "tv_median": _stat(np.median, tv),
                    "tv_p95": _stat(_p95, tv), "tv_max": _stat(np.max, tv),
                    "sampled_tv_median": _stat(np.median, stv),
                    "sampled_tv_p95": _stat(_p95, stv),
                    "sampled_ess_median": _stat(np.median, sess),
                    "lost": sum(1 for r in sampled if r[1] == 0),
                    "refused": found["refused"], "too_large": found["too_large"],
                    "exact_particles_median": _stat(np.median, sizes),
                    "exact_particles_p95": _stat(_p95, sizes),
                    "seconds": round(found["seconds"], 1)})
    return out


# Informativeness: the posterior against card counting on the full game -----------------

def policy_stop(game, policies, rng: random.Random):
    """A round played by `policies` (its tables, then its default heuristic: the
    `chain` rollouts and beliefs use) stopped at a random play decision, or None."""
    from solver.policies.chain import chain_probabilities

    state, stops = game.new_initial_state(), []
    while not state.is_terminal():
        p = state.current_player()
        if state.is_chance_node():
            outcomes, probs = zip(*state.chance_outcomes())
            state.apply_action(rng.choices(outcomes, probs)[0])
            continue
        if state.array[L.S_PHASE] == L.PH_PLAY:
            stops.append(state.clone())
        legal, probs, _ = chain_probabilities(policies.bank, policies.chain, state.array, p)
        state.apply_action(int(rng.choices(legal, probs)[0]))
    return rng.choice(stops) if stops else None


LOG_FLOOR = 1e-6  # a true card a sampled posterior gave no weight counts as this likely


def true_hand_log_likelihood(hands: np.ndarray, s: np.ndarray, seats) -> tuple[float, int]:
    """(sum over seats of log P(seat's true hand card) under marginals `hands`, how many
    true cards had probability below LOG_FLOOR): each card of a hand scored by its
    seat's marginal share (a hand of 1 card, the usual: the probability of that card)."""
    total, floored = 0.0, 0
    for q in seats:
        size = max(hands[q].sum(), 1e-12)
        for i in range(s[L.S_HAND_N + q]):
            p = hands[q, s[L.S_HAND + q * L.MAX_HAND + i]] / size
            floored += int(p < LOG_FLOOR)
            total += float(np.log(max(p, LOG_FLOOR)))
    return total, floored


def informativeness(game, count: int, seed: int, budget: int) -> dict:
    """For `count` random rounds played by the game's tables (agenda_expert where none
    ships), each stopped at a random play decision and told as the player's summary: the
    log-likelihood of the opponents' true hands (those still in the round) under the
    hint's posterior (`summary_log_worlds`, the tables weighing the opponents' choices,
    budget particles) and under card counting (`prior_worlds`, the same histories by
    the chance odds alone). Returns per situation (posterior, prior, hands scored,
    exact, collapsed, floored) and how many summaries were refused."""
    from solver.hint.log import prior_worlds, summary_log_worlds
    from solver.policies.chain import load_policies

    policies = load_policies(game)
    merge_logs = True if policies.paths else None  # as the hint asks (its search's)
    rng = random.Random(seed)
    rows, refused, drawn = [], 0, 0
    start = time.perf_counter()
    while drawn < count:
        state = policy_stop(game, policies, rng)
        if state is None:
            continue
        drawn += 1
        me = state.current_player()
        try:
            sit = from_mapping(player_summary(state, me))
            worlds, info = summary_log_worlds(sit, game, policies, complete_within=budget,
                                              merge_logs=merge_logs, seed=drawn)
            prior, _ = prior_worlds(sit, game, complete_within=budget, merge_logs=merge_logs,
                                    seed=drawn)
        except SituationError:
            refused += 1
            continue
        s = state.array
        seats = [q for q in range(game.num_players()) if q != me and s[L.S_IN_ROUND + q]]
        scores = []
        for found in (worlds, prior):
            states = np.stack([w for w, _ in found])
            hands = hand_probabilities(states, np.array([p for _, p in found]))
            scores.append(true_hand_log_likelihood(hands, s, seats))
        rows.append((scores[0][0], scores[1][0], len(seats), info["exact"], info["collapsed"],
                     scores[0][1] + scores[1][1]))
    return {"rows": rows, "drawn": drawn, "refused": refused,
            "seconds": time.perf_counter() - start}


INFORMATIVE_COLUMNS = ["situations", "hands_scored", "ll_posterior", "ll_card_counting",
                       "ll_gain", "ll_gain_ci95", "gain_positive_share", "exact", "collapsed",
                       "floored"]


def summarise_informativeness(players: int, agenda: str, budget: int, found: dict) -> dict:
    """One row: the mean log-likelihood per opponent hand under each (ll_*), their mean
    difference per hand (ll_posterior - ll_card_counting) and its 95% interval (paired
    over situations), the share of
    situations where the posterior scored higher, exact and collapsed posteriors, and
    true cards floored at LOG_FLOOR (under either)."""
    rows = found["rows"]
    hands = sum(r[2] for r in rows)
    diff = np.array([r[0] - r[1] for r in rows])  # per situation, over its hands
    size = np.array([r[2] for r in rows])
    gain = diff.sum() / hands if hands else None
    # the ratio estimator's interval: the residuals diff - gain * size, paired
    ci = (1.96 * float((diff - gain * size).std(ddof=1)) / np.sqrt(len(rows)) / size.mean()
          if hands and len(rows) > 1 else None)
    return {"deck": "full", "players": players, "agenda": agenda, "part": "informativeness",
            "plan": f"hint@{budget}", "states": found["drawn"], "refused": found["refused"],
            "situations": len(rows), "hands_scored": hands,
            "ll_posterior": round(sum(r[0] for r in rows) / hands, 4) if hands else None,
            "ll_card_counting": round(sum(r[1] for r in rows) / hands, 4) if hands else None,
            "ll_gain": None if gain is None else round(float(gain), 4),
            "ll_gain_ci95": None if ci is None else round(ci, 4),
            "gain_positive_share": _stat(np.mean, diff > 0),
            "exact": sum(r[3] for r in rows), "collapsed": sum(r[4] for r in rows),
            "floored": sum(r[5] for r in rows), "seconds": round(found["seconds"], 1)}
