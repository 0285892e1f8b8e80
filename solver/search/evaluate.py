"""The search in duplicate-deal games on the full deck, against a bank policy.

The deals and their seatings are the tournament's (solver/evaluation/tournament.py):
deal d is the seeded permutation of (seed, STREAM_DEAL, d), played once with the search
in each seat (2 players: the duplicate pair); the other seats follow one policy of a
PolicyBank through the compiled play-out loop, which stops at each decision of the
search's seat (solver/sim/playout.py `stop_seat`); the search's action is drawn from
its probabilities with the same decision stream. A deal's value is the search seat's
margin (its tokens minus the mean of the others'), averaged over its seatings.

The other seats can instead be a player object deciding by itself, told when a round
starts and when the search decides: local best response, for a lower bound on the
search's exploitability, its belief and rollouts by the blueprint (`LBRPlayer`) or its
belief by the search itself (`SearchAwareLBR`).
"""

from __future__ import annotations

import time
from collections.abc import Callable

import numpy as np

from spiel_game import engine
from spiel_game import layout as L

from solver.abstraction.keys import IDENTITY, identity_key
from solver.belief.filter import (ANY_PHASE, B_DECISIONS, NUM_BELIEF_STATS, OMIT_NONE, advance,
                                  aligned_progress, no_final, observe, observed_key)
from solver.evaluation.lbr import belief_counts, fresh_buffers, lbr_action
from solver.evaluation.tournament import Estimate, estimate
from solver.sim.playout import dealt_card, deck_cards, play_out, shuffled
from solver.policies.playout import LOVE_LETTER_PLAYOUT
from solver.sim.rng import STREAM_DEAL, STREAM_DECISIONS, check_seed, stream_seed
from solver.sim.sampler import sample


def play_deals(game, search_policy, bank, opponent: int, deals: int, seed: int = 1,
               progress: Callable[[int, int], None] | None = None,
               player=None) -> tuple[Estimate, dict]:
    """(margin of the search per deal, with its 95% interval; counts and timing). The
    other seats play policy `opponent` of `bank`, or, given `player`, its `action(s,
    seat)` (with `start_round()` and `searcher_decides(s, seat)` calls). Ctrl-C stops
    after the deals finished (info "interrupted")."""
    seed = check_seed(seed)
    players = game.num_players()
    initial = game.initial_array.copy()
    initial[L.S_LOGGING] = 1
    cards = deck_cards(initial)
    order = np.empty(len(cards), dtype=np.int32)
    no_state = np.empty(0, dtype=np.uint64)
    legal = np.empty(L.NUM_ACTIONS, dtype=np.int32)
    probs = np.empty(L.NUM_ACTIONS)
    seat_chain = np.full((players, 1), opponent, dtype=np.int32)
    seat_row = np.zeros(players, dtype=np.int32)
    counts = np.zeros((1, 2), dtype=np.int64)
    arrays = bank.arrays()
    rng = np.zeros(1, dtype=np.uint64)
    tokens = np.zeros(players)
    values, decisions = [], 0
    start = time.perf_counter()
    interrupted = False
    try:
        for d in range(deals):
            shuffled(cards, seed, STREAM_DEAL, d, order)
            margins = []
            for seat in range(players):
                s = initial.copy()
                rng[0] = stream_seed(seed, STREAM_DECISIONS, d * players + seat)
                if player is not None:
                    player.start_round()
                while True:
                    if player is None:
                        play_out(engine.ENGINE, LOVE_LETTER_PLAYOUT, s, order, no_state, seat_chain,
                                 arrays, rng, legal, probs, counts, seat_row, seat)
                    else:
                        while engine.is_chance(s):
                            engine.apply_action(s, dealt_card(s, order))
                    if engine.is_terminal(s):
                        break
                    if engine.current_actor(s) != seat:  # only with a player
                        engine.apply_action(s, player.action(s, engine.current_actor(s)))
                        continue
                    if player is not None:
                        player.searcher_decides(s, seat)
                    acts, p = search_policy.probabilities(s, seat)
                    engine.apply_action(s, int(acts[sample(np.asarray(p, np.float64),
                                                           len(acts), rng)]))
                    decisions += 1
                engine.tokens(s, tokens)
                margins.append(tokens[seat] - (tokens.sum() - tokens[seat]) / (players - 1))
            values.append(float(np.mean(margins)))
            if progress is not None:
                progress(d + 1, deals)
    except KeyboardInterrupt:  # Ctrl-C: the deals finished so far stand
        interrupted = True
    return estimate(values), {"deals": len(values), "values": values,
                              "interrupted": interrupted,
                              "search_decisions": decisions,
                              "searches": search_policy.searches,
                              "fallbacks_to_blueprint": search_policy.fallbacks,
                              "fallback_reasons": dict(getattr(search_policy,
                                                               "fallback_reasons", {})),
                              "search_seconds": search_policy.seconds /
                              max(search_policy.searches, 1),
                              "seconds": time.perf_counter() - start}


def _add_counts(total: dict[str, int], counts: dict) -> None:
    """Belief counts of one decision into a player's totals (the most particles: the
    largest)."""
    for name, count in counts.items():
        merge = max if name == "most_particles" else int.__add__
        total[name] = merge(total.get(name, 0), int(count))


class BlueprintPolicy:
    """The blueprint chain of `policies` as a policy `play_deals` can seat (no search):
    the baseline of paired comparisons on the same deals."""

    def __init__(self, policies):
        self.policies = policies
        self.searches, self.fallbacks, self.seconds = 0, 0, 0.0

    def probabilities(self, s, player: int):
        from solver.search.policy import blueprint_probabilities

        return blueprint_probabilities(self.policies, s, player)


class LBRPlayer:
    """Local best response (solver/evaluation/lbr.py `lbr_choice`) as the other seat of
    `play_deals`: its belief and its rollouts' continuation use policy `policy` of
    `bank` (the search's blueprint), not the search. It is still a fixed strategy of its
    own information, so its mean margin against the search is a lower bound on the
    search's exploitability; a looser one than an LBR that modelled the search, which
    would need a search in every world of its belief at every decision."""

    def __init__(self, game, bank, policy: int = 0, rollouts: int = 64, seed: int = 1):
        if game.num_players() != 2:
            raise ValueError(f"LBR against the search takes 2 players, not "
                             f"{game.num_players()}")
        self.game, self.bank, self.policy, self.rollouts = game, bank, policy, rollouts
        self.seed = check_seed(seed)
        self.decisions = 0
        self.belief: dict[str, int] = {}

    def start_round(self) -> None:
        pass  # its belief is built from the log alone

    def searcher_decides(self, s, seat: int) -> None:
        pass

    def action(self, s, seat: int) -> int:
        from solver.evaluation.lbr import lbr_choice

        self.decisions += 1
        # Its rollouts are seeded by its information state and the seed: a fixed strategy.
        action, _, stats = lbr_choice(self.game, s, seat, self.bank, self.policy,
                                      rollouts=self.rollouts, seed=self.seed)
        _add_counts(self.belief, stats)
        return action


# The searcher's information states searched per decision of its (the heaviest of the
# belief): on the full deck 8 cover 53-56% of the belief's mass at 10-15 s a deal, 16
# cover 67% at about twice the time (2 deals each, measured here).
DEFAULT_LBR_SEARCHES = 8


class SearchAwareLBR:
    """Local best response whose opponent model is the search itself (2 players): LBR
    (solver/evaluation/lbr.py) whose belief weighs the searcher's past decisions by what
    the search plays there.

    At each of its decisions it builds its belief from the redacted log, stopping at each
    decision the searcher made this round (`searcher_decides` notes where; the log shows
    it too): there the particles are the searcher's possible information states, and
    `model`, a SearchPolicy like the searcher's, is asked at the `max_searches` heaviest
    of them not yet searched (its answers are kept by information state for the round,
    with the later decisions of the same turn that each solve answers). Those answers,
    as an identity-keyed table in front of the blueprint chain, weigh the filter's next
    steps; the searcher's states left unsearched are weighed by the blueprint. The
    rollouts that value LBR's actions continue with the blueprint, as the search's own
    leaves do. Everything LBR uses is a function of its own information state (the
    searches are seeded by the searcher's information state and run a fixed number of
    iterations), so its margin against the search is a lower bound on the search's
    exploitability, whatever the model's shortcuts cost in tightness."""

    def __init__(self, game, model, rollouts: int = 64, seed: int = 1,
                 max_searches: int = DEFAULT_LBR_SEARCHES, max_particles: int = 4096):
        if game.num_players() != 2:
            raise ValueError(f"the search-aware LBR takes 2 players, not "
                             f"{game.num_players()}")
        if model.limits.iterations is None:
            raise ValueError("the search-aware LBR needs a model search with a fixed "
                             "number of iterations (a timed search is no fixed strategy)")
        if rollouts <= 0 or max_searches <= 0 or max_particles <= 0:
            raise ValueError("rollouts, max_searches and max_particles must be positive")
        self.game, self.model, self.rollouts = game, model, rollouts
        self.seed, self.max_searches, self.max_particles = check_seed(seed), max_searches, \
            max_particles
        self.decisions = 0
        self.belief: dict[str, int] = {}
        self.modelled = {"searches": 0, "searcher_states": 0, "searched_states": 0,
                         "searched_mass": 0.0, "stops": 0}
        self._stops: list[int] = []  # events logged when the searcher decided this round
        self._bank: tuple | None = None  # (answers in it, bank arrays, chain)

    def start_round(self) -> None:
        self._stops = []
        self._bank = None
        self.model.forget()  # identity keys never recur in another round

    def searcher_decides(self, s, seat: int) -> None:
        """The searcher (seat) is about to decide at engine state s."""
        n = int(s[L.S_EVENT_N])
        if not self._stops or self._stops[-1] != n:
            self._stops.append(n)

    def action(self, s, seat: int) -> int:
        """LBR's action at its decision (seat) in engine state s."""
        self.decisions += 1
        particles, weights, legal = self.belief_at(s, seat)
        if len(particles) == 0:  # belief lost: the blueprint's likeliest action
            acts, probs = self.model.blueprint(s, seat)
            return int(acts[int(np.argmax(probs))])
        observed = np.empty((L.MAX_EVENTS, L.EVENT_SIZE), dtype=np.int32)
        n_obs = observe(s, seat, observed)
        key = observed_key(observed, n_obs, seat) ^ np.uint64(self.seed)
        values = np.empty(L.NUM_ACTIONS)
        policies = self.model.policies
        policy = int(policies.chain[0])
        best = lbr_action(engine.ENGINE, LOVE_LETTER_PLAYOUT, particles, weights,
                          len(particles), seat, policies.bank.arrays(), policy, policy,
                          self.rollouts, key, legal, len(legal), values)
        return int(legal[best])

    def belief_at(self, s, seat: int):
        """(particle states, normalised weights, legal actions) of LBR's belief at its
        decision in s, the searcher's decisions weighed by the search."""
        observed = np.empty((L.MAX_EVENTS, L.EVENT_SIZE), dtype=np.int32)
        n_obs = observe(s, seat, observed)
        legal = np.empty(L.NUM_ACTIONS, dtype=np.int32)
        legal = legal[:engine.legal_actions(s, legal)].copy()
        searcher = 1 - seat
        # room for a step's children before resampling (filter.advance)
        buffers, weights = fresh_buffers(self.game, 2 * self.max_particles)
        progress = np.empty((2, buffers.shape[1], 2), dtype=np.int32)
        current, count = 0, 1
        stats = np.zeros(NUM_BELIEF_STATS, dtype=np.int64)
        for stop, actor in [(n, searcher) for n in self._stops if n < n_obs] + [(n_obs, seat)]:
            bank, chain = self._model_bank()
            aligned_progress(buffers, progress, current, count)
            current, count = advance(buffers, weights, progress, current, count, observed,
                                     stop, seat, OMIT_NONE, ANY_PHASE, bank, chain,
                                     0.0, False, False, self.max_particles, stats,
                                     np.zeros(1), no_final(), actor, self.seed)
            if count == 0:
                break
            if actor == searcher:
                self._search_heaviest(buffers[current, :count], weights[current, :count],
                                      searcher)
        stats[B_DECISIONS] += 1
        _add_counts(self.belief, belief_counts(stats))
        return buffers[current, :count].copy(), weights[current, :count].copy(), legal

    def _model_bank(self):
        """(bank arrays, chain): the search's answers so far this round as an
        identity-keyed table before the blueprint chain; rebuilt only when they grew."""
        answers = self.model.answers()
        if self._bank is None or self._bank[0] != len(answers):
            rows = {key: probs for (_, key), (_, probs) in answers.items()}
            policies = self.model.policies
            bank = policies.bank.with_table("search", IDENTITY, rows)
            chain = np.concatenate([[len(bank.names) - 1], policies.chain]).astype(np.int64)
            self._bank = (len(answers), bank.arrays(), chain)
        return self._bank[1], self._bank[2]

    def _search_heaviest(self, states, weights, searcher: int) -> None:
        """Search at the heaviest of the searcher's information states among the
        particles (at most max_searches new ones)."""
        mass: dict[int, float] = {}
        first: dict[int, int] = {}
        for k in range(len(states)):
            key = int(identity_key(states[k], searcher))
            mass[key] = mass.get(key, 0.0) + float(weights[k])
            first.setdefault(key, k)
        order = sorted(mass, key=mass.get, reverse=True)
        searched = 0
        for key in order:
            if (searcher, key) in self.model.answers():
                continue
            if searched == self.max_searches:
                break
            before = self.model.searches
            self.model.probabilities(states[first[key]], searcher)
            self.modelled["searches"] += self.model.searches - before
            searched += 1
        self.modelled["stops"] += 1
        self.modelled["searcher_states"] += len(order)
        known = [key for key in order if (searcher, key) in self.model.answers()]
        self.modelled["searched_states"] += len(known)
        self.modelled["searched_mass"] += sum(mass[key] for key in known)

    def report(self) -> dict:
        """How much of the searcher's belief mass the model searched, and the belief's
        counts."""
        stops = max(self.modelled["stops"], 1)
        return {"decisions": self.decisions, "searches": self.modelled["searches"],
                "searcher_states_per_stop": self.modelled["searcher_states"] / stops,
                "searched_share_of_states": self.modelled["searched_states"] /
                max(self.modelled["searcher_states"], 1),
                "searched_share_of_mass": self.modelled["searched_mass"] / stops,
                "belief": dict(self.belief)}
