"""The hint, written once for every game: a `HintRequest` (solver/hint/request.py) in, a
`HintAnswer` (solver/hint/answer.py) out.

1. The posterior: the worlds (engine states, the hidden cards filled in) and their weights.
2. The options chosen now: every full action of the game's `OptionTree`
   (solver/hint/options.py `full_actions`), and the table's probabilities at the decision.
3. A decision-time search, where the game has one, in a thread beside the rollouts.
4. The rollouts: every full action's value from worlds drawn by weight, everybody then
   playing the policy, the same random numbers for every full action (the one play-out
   loop, solver/sim/playout.py); what the rule chooses by (the round's value, or with a
   match the match utility of the standings it leaves).
5. The choice: each decision along the full actions by the one rule (solver/hint/options.py
   `decide`, solver/hint/choice.py `choose`), the table breaking ties within the interval;
   the guard (a full action more than GUARD_MARGIN below the best, its interval below 0,
   is not recommended: the best by value is); where a search answered, its choice, unless
   the rollouts overrule it by the same guard.

What is a game's own is its `HintPart` (the Love Letter engine's in solver/hint/advice.py,
the own-engine games' in solver/hint/engine_hint.py, each of those giving its game's
posterior, option tree and answer records).
"""

from __future__ import annotations

import dataclasses
import time
from typing import Protocol

import numpy as np

from solver.hint import options as hint_options
from solver.hint.answer import HintAnswer
from solver.hint.choice import Z95, _standard_error, choose
from solver.sim.rng import check_seed

# Where a full action loses to another by the answer's own rollouts, by more than this
# (the round's margin, or the match utility) with the paired 95% interval below 0, it is
# not the answer: neither as the search's choice nor as the tie-breaks' (docs/hint.md
# "When search and rollouts disagree").
GUARD_MARGIN = 0.10


def search_overruled(stats: dict) -> bool:
    """Whether a full action's rollout figures (`choose`'s ev, vs_best, vs_best_ci95)
    put it more than GUARD_MARGIN below the best with the interval excluding 0."""
    return (stats["vs_best"] < -GUARD_MARGIN
            and stats["vs_best"] + stats["vs_best_ci95"] < 0)


@dataclasses.dataclass
class TableAdvice:
    """What the policy says at the decision: each legal option's probability (None: no
    table has the key), where that came from, and the rollouts' time budget."""

    probs: object  # a sequence over the legal actions, or None
    source: str  # table, backoff, re-solve, heuristic
    detail: str
    level: str | None
    tables: list
    budget: float | None = None  # the rollouts' seconds (None: a fixed count)


@dataclasses.dataclass
class Rolled:
    """The rollouts of every full action: values[path, rollout]."""

    by_rule: np.ndarray  # what the rule chooses by
    round: np.ndarray  # the round's value (the answer's ev fields); by_rule without a match
    wins: np.ndarray | None  # the match-win of each rollout with a match, else None
    clusters: np.ndarray  # each rollout's world draw
    record: dict  # the answer's `rollouts`


class Searching(Protocol):
    """A search under way (or none): `finish` waits for it."""

    def finish(self) -> tuple[object, str | None, object]:
        """(its result or None, why it did not answer, the unexploiting twin or None)."""


@dataclasses.dataclass
class NoSearch:
    """No search: why."""

    reason: str

    def finish(self):
        return None, self.reason, None


class HintPart(Protocol):
    """One game's part of the hint (module docstring)."""

    def prepare(self, request) -> None:
        """Load or compile what the answer runs, before any budget starts."""

    def forced(self, request, start: float) -> HintAnswer | None:
        """The answer where the rules choose the play, else None."""

    def posterior(self, request):
        """The posterior: `present` (the state at the decision), `worlds`, `weights`."""

    def option_tree(self, request) -> hint_options.OptionTree: ...

    def table(self, request, post, tree, legal) -> TableAdvice:
        """The policy at the decision (`tree`: the option tree, its probabilities)."""

    def card(self, action: int) -> str | None:
        """The card an option plays (None: the game's options are not cards)."""

    def search(self, request, post, paths, start: float) -> Searching: ...

    def searched(self, result, tree, s0, index_of, legal, probs, how: str) -> tuple:
        """(the search's chosen full action, the policy's detail) of a result."""

    def search_steps(self, result, path) -> list[dict]: ...

    def rollouts(self, request, post, paths, legal, table: TableAdvice) -> Rolled: ...

    def situation(self, request, post) -> dict: ...

    def posterior_record(self, request, post) -> dict: ...

    def opponents(self, request, post) -> list[dict]: ...

    def match_record(self, request, plays, recommendation) -> dict | None: ...

    def opponent_record(self, request, result, plain, paths, note) -> dict | None: ...


def _match_stats(utility_stats: dict, wins: np.ndarray, clusters) -> dict:
    """A play's match figures: its match utility (what the rule chose by) and its
    rollouts' mean match-win probability with a 95% interval."""
    return {"match_utility": utility_stats["ev"], "match_win": float(wins.mean()),
            "match_win_ci95": Z95 * _standard_error(wins, clusters)}


def answer(part: HintPart, request) -> HintAnswer:
    """The HintAnswer for `request`, by the steps of the module docstring over `part`."""
    part.prepare(request)
    start = time.perf_counter()  # the budgets count from here, the kernels ready
    check_seed(request.seed)
    forced = part.forced(request, start)
    if forced is not None:
        return forced
    post = part.posterior(request)
    s0 = post.present
    tree = part.option_tree(request)
    legal = tree.legal(s0)
    table = part.table(request, post, tree, legal)
    probs = table.probs
    paths = hint_options.full_actions(tree, s0.copy())
    searching = part.search(request, post, paths, start)
    rolled = part.rollouts(request, post, paths, legal, table)
    result, search_note, plain = searching.finish()
    index_of = {path: i for i, path in enumerate(paths)}
    source, how = table.source, table.detail
    chosen = None
    if result is not None:
        source = "search"
        chosen, how = part.searched(result, tree, s0, index_of, legal, probs, how)
    values, clusters, wins = rolled.by_rule, rolled.clusters, rolled.wins
    _, lines = hint_options.play_lines(tree, s0, index_of, values, clusters)
    best, stats, chosen_by = choose(np.stack([row for row, _, _ in lines]), clusters, probs)
    path_index = [index_of[tuple([a] + lines[i][2])] for i, a in enumerate(legal)]
    if wins is not None:  # ev fields stay the round's; the match's beside them
        _, round_stats, _ = choose(rolled.round[path_index], clusters, None)
        stats = [{**round_stats[i], **_match_stats(stats[i], wins[path_index[i]], clusters)}
                 for i in range(len(legal))]
    plays = [{"action": tree.words(a), "action_id": a, "card": part.card(a),
              "probability": None if probs is None else float(probs[i]),
              "full_action": tree.full_words([a] + lines[i][2]), "steps": lines[i][1],
              **stats[i]}
             for i, a in enumerate(legal)]
    _, path_stats, _ = choose(rolled.round, clusters, None)
    by_value = path_stats
    if wins is not None:
        _, by_value, _ = choose(values, clusters, None)
        path_stats = [{**path_stats[i], **_match_stats(by_value[i], wins[i], clusters)}
                      for i in range(len(paths))]
    recommendation = {"action": plays[best]["full_action"], "card": plays[best]["card"],
                      "chosen_by": chosen_by, "steps": plays[best]["steps"]}
    # The policy breaks ties within each step's interval; two such steps can leave the
    # full action past the guard's margin from the best one: then the best by value.
    if search_overruled(by_value[path_index[best]]):
        top = int(np.argmax([st["ev"] for st in by_value]))
        _, steps, _ = hint_options.decide(tree, tree.apply(s0, paths[top][0]),
                                          paths[top][:1], index_of, values, clusters,
                                          paths[top])
        recommendation = {"action": tree.full_words(paths[top]),
                          "card": part.card(paths[top][0]),
                          "chosen_by": "value: the policy's tie-breaks went past the "
                                       "interval", "steps": steps}
    overruled = None
    if result is not None:
        _search_fields(result, plain, plays, path_stats, paths, wins is not None)
        top = index_of[chosen]
        # The guard: the rollouts judge the search's choice by what the rule chooses by.
        if search_overruled(by_value[top]):
            overruled = {"search_choice": tree.full_words(chosen),
                         "vs_best": by_value[top]["vs_best"],
                         "vs_best_ci95": by_value[top]["vs_best_ci95"],
                         "margin": GUARD_MARGIN}
            recommendation["chosen_by"] = "rollouts: search and rollouts disagree"
            how += (f"; its choice ({overruled['search_choice']}) overruled: search and "
                    "rollouts disagree")
        else:
            recommendation = {"action": tree.full_words(chosen), "card": part.card(chosen[0]),
                              "chosen_by": "search", "steps": part.search_steps(result, chosen)}
    return HintAnswer(
        situation=part.situation(request, post),
        policy={"source": source, "detail": how, "level": table.level,
                "tables": table.tables,
                "search": ({"used": True, **result.detail(), "overruled": overruled}
                           if result is not None
                           else {"used": False, "reason": search_note})},
        recommendation=recommendation,
        plays=plays,
        full_actions=[{"action": tree.full_words(path), "action_ids": list(path),
                       **path_stats[i]} for i, path in enumerate(paths)],
        opponents=part.opponents(request, post),
        match=part.match_record(request, plays, recommendation),
        opponent_model=part.opponent_record(request, result, plain, paths, search_note),
        posterior=part.posterior_record(request, post),
        rollouts=rolled.record,
        seconds=round(time.perf_counter() - start, 3))


def _search_fields(result, plain, plays, path_stats, paths, match: bool) -> None:
    """Each play's and full action's search probability and value (and match-win, and
    the unexploiting twin's), beside the rollouts' figures."""
    for play in plays:
        p, v = result.line((play["action_id"],))
        play["search_probability"], play["search_value"] = p, v
        if match:
            play["search_match_win"] = result.line((play["action_id"],), True)[1]
        if plain is not None:
            p, v = plain.line((play["action_id"],))
            play["unexploiting_probability"], play["unexploiting_value"] = p, v
    for i, path in enumerate(paths):
        p, v = result.line(path)
        path_stats[i] = {**path_stats[i], "search_probability": p, "search_value": v}
        if match:
            path_stats[i]["search_match_win"] = result.line(path, True)[1]

