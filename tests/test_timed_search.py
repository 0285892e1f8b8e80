"""The timed search as users get it (docs/search.md "Timed search"): sure wins kept at
every budget, quiet and with both cores busy; leaf values comparable across siblings;
values never read off an unfinished average; an unfinished search declines; the guard
against the rollouts."""

from __future__ import annotations

import subprocess
import sys
import time

import numpy as np
import pytest

from solver.hint import advice
from solver.hint.request import HintRequest
from solver.search import resolve
from solver.search.resolve import SearchLimits, SearchUnfinished, search

# The README's worked hint: the opponent holds the Mercenary (3) with 99%, I hold the only
# Jabba (8): the Guard names 3.
README_HINT = {"players": 2, "seat": 1, "hand": ["jabba", "guard"],
               "face_up": ["crumb", "bib", "merc"], "areas": {"0": ["han"]}}
# A certain win: my R2-D2 showed seat 0's Luke Skywalker (7), and I hold a Guard.
SURE_WIN = {"players": 2, "seat": 1, "hand": ["guard", "bib"],
            "face_up": ["crumb", "bib", "merc"],
            "areas": {"0": ["han", "guard@1:3"], "1": ["r2@0"]}, "saw": {"0": "luke"}}
CASES = [(README_HINT, "play Guard, name 3"), (SURE_WIN, "play Guard, name 7")]
BUDGETS = (0.1, 0.25, 0.5, 1.0)


def _hint(data: dict, **options) -> dict:
    return advice.answer(HintRequest.from_inputs(dict(data), **options)).to_json()


class BothCoresBusy:
    """Two Python processes that spin for at most `seconds` (ended on exit): a busy
    machine."""

    def __init__(self, seconds: float = 900.0):
        self.seconds = seconds

    def __enter__(self):
        spin = f"import time\nstop = time.time() + {self.seconds}\nwhile time.time() < stop: pass"
        self.hogs = [subprocess.Popen([sys.executable, "-c", spin]) for _ in range(2)]
        time.sleep(0.2)  # let them start
        return self

    def __exit__(self, *exc):
        for hog in self.hogs:
            hog.kill()
            hog.wait()


def _sure_things(seeds, busy: bool) -> list:
    """(situation, budget, seed, answer) of every answer that is not the sure thing."""
    wrong = []

    def run():
        for data, right in CASES:
            for budget in BUDGETS:
                for seed in seeds:
                    a = _hint(data, seed=seed, search_seconds=budget)
                    if a["recommendation"]["action"] != right:
                        wrong.append((right, budget, seed, a["recommendation"],
                                      a["policy"]["search"]))

    if busy:
        with BothCoresBusy():
            run()
    else:
        run()
    return wrong


@pytest.mark.parametrize("busy", [False, True], ids=["quiet", "both-cores-busy"])
def test_the_timed_hint_keeps_sure_wins_at_every_budget(busy):
    assert _sure_things(range(3), busy) == []


@pytest.mark.slow
@pytest.mark.parametrize("busy", [False, True], ids=["quiet", "both-cores-busy"])
def test_the_timed_hint_keeps_sure_wins_in_50_seeds(busy):
    """The issue's count: 50 seeds at each budget, each situation."""
    assert _sure_things(range(50), busy) == []


def _search_of(data: dict, limits: SearchLimits, seed: int = 0):
    from solver.hint.advice import _replayed_worlds
    from solver.hint.situation import from_mapping
    from solver.hint.request import check_game
    from solver.policies.chain import load_policies

    sit = from_mapping(data)
    game = check_game(sit)
    policies = load_policies(game)
    weighted, _ = _replayed_worlds(sit, game, policies, False, seed, merge_logs=True)
    states = [s for s, _ in weighted]
    return search(game, states, [w for _, w in weighted], sit.seat, policies, limits, seed)


def test_sibling_leaves_share_their_rollouts():
    """Common random numbers: the leaves below one root are valued on the same rollout
    streams, so the differences between sibling actions are less noisy than their
    values. Over 8 seeds, the names that miss after the Guard: the spread of each miss's
    value less the first miss's is under 0.8 of the spread of the values themselves
    (measured 0.56; on independent streams it would be about 1.4)."""
    rows = []
    for seed in range(8):
        result = _search_of(README_HINT, SearchLimits(iterations=20), seed=seed)
        guard = max(result.legal.tolist(), key=lambda a: result.line((a,))[1])
        rows.append([v for _, _, v in result.options_after((guard,))])
    values = np.array(rows)
    misses = values[:, values.mean(axis=0) < 0.9]
    assert misses.shape[1] == 8
    level = misses.std(axis=0).mean()
    difference = (misses[:, 1:] - misses[:, :1]).std(axis=0).mean()
    assert difference < 0.8 * level, (difference, level)


def test_an_action_is_valued_by_good_play_below_it():
    """After one DCFR iteration the average strategy names uniformly below the Guard;
    the Guard is still valued by its best name (7: a win), not by that average (about
    -0.5, what the timed search once reported)."""
    result = _search_of(SURE_WIN, SearchLimits(iterations=1))
    by_action = dict(zip(result.legal.tolist(), result.values.tolist()))
    assert max(by_action.values()) == pytest.approx(1.0)
    guard = max(by_action, key=by_action.get)
    names = result.options_after((guard,))
    assert max(v for _, _, v in names) == pytest.approx(1.0)
    assert np.std([p for _, p, _ in names]) < 1e-9  # the average: still uniform


def test_a_search_without_the_time_to_value_its_leaves_declines():
    with pytest.raises(SearchUnfinished, match="rollouts each"):
        _search_of(README_HINT, SearchLimits(seconds=0.02))
    a = _hint(README_HINT, search_seconds=0.02)
    assert a["policy"]["search"]["used"] is False
    assert a["policy"]["search"]["reason"].startswith("unfinished in its budget")
    assert a["recommendation"]["action"] == "play Guard, name 3"


def test_an_unconverged_timed_search_declines(monkeypatch):
    """A timed search whose strategy at my decision is not within MAX_ROOT_GAP of my best
    response when its time is up declines rather than answer."""
    monkeypatch.setattr(resolve, "MAX_ROOT_GAP", -1.0)  # no strategy is close enough
    with pytest.raises(SearchUnfinished, match="gives up"):
        _search_of(SURE_WIN, SearchLimits(seconds=0.5))


def test_the_rollouts_overrule_a_search_that_contradicts_them(monkeypatch):
    """The guard: a search that puts all its weight on the Jabba the Hutt (by the
    rollouts about 1.4 below the Guard) does not answer; the rollouts' choice does, and
    the answer says so."""
    real = resolve.search

    def wrong_search(*args, **kwargs):
        result = real(*args, **kwargs)
        worst = int(np.argmin(result.values))
        info = int(result.subgame.infoset[result.root_nodes[0]])
        lo, hi = result.subgame.offsets[info], result.subgame.offsets[info + 1]
        result.strategy[lo:hi] = np.eye(hi - lo)[worst]
        result.probs = result.strategy[lo:hi].copy()
        return result

    monkeypatch.setattr(resolve, "search", wrong_search)
    a = _hint(README_HINT, search_iterations=16, rollouts=400)
    assert a["recommendation"]["action"] == "play Guard, name 3"
    assert a["recommendation"]["chosen_by"] == "rollouts: search and rollouts disagree"
    overruled = a["policy"]["search"]["overruled"]
    assert overruled["search_choice"] == "play Jabba the Hutt"
    assert overruled["vs_best"] < -advice.GUARD_MARGIN
    assert overruled["vs_best"] + overruled["vs_best_ci95"] < 0
    assert "overruled" in a["policy"]["detail"]


def test_the_guard_rule():
    assert advice.search_overruled({"vs_best": -0.2, "vs_best_ci95": 0.1})
    assert not advice.search_overruled({"vs_best": -0.2, "vs_best_ci95": 0.25})  # in reach
    assert not advice.search_overruled({"vs_best": -0.08, "vs_best_ci95": 0.01})  # small
    assert not advice.search_overruled({"vs_best": 0.0, "vs_best_ci95": 0.0})


# A random round's summary (benchmarks/hint_consistency.py, random situation 171): with
# 512 rollouts and seed 2 the table's rule broke a tie by the policy at the name (5 for
# the best 0) and again at the card (Bib Fortuna), leaving the full action 0.16 below the
# best, the interval excluding it.
TIES_COMPOUND = {"game": "jabbas_palace", "players": 2, "seat": 1, "agenda": "rescue_mission",
                 "hand": ["guard", "bib"], "face_up": ["guard", "luke", "jabba"],
                 "areas": {"0": ["c3po@1:0:3", "bib", "boba@1", "took:r2@1"],
                           "1": ["crumb@0:boba", "mercenary"]}, "deck": 6}


def test_the_tables_rule_never_answers_past_the_guard():
    a = _hint(TIES_COMPOUND, seed=2, rollouts=512, search=False)
    chosen = next(f for f in a["full_actions"] if f["action"] == a["recommendation"]["action"])
    assert not advice.search_overruled(chosen)
    assert a["recommendation"]["action"] == "play Guard, name 0"
    assert a["recommendation"]["chosen_by"].startswith("value: the policy's tie-breaks")
    assert [s["chosen"] for s in a["recommendation"]["steps"]] == ["name 0"]
