"""The one hint of every game (solver/hint/pipeline.py): each game's example situation is
answered through `pipeline.answer` with its game's part, the answer holds together (the
recommendation is one of the full actions, each play's full action is one too, with its
figures), and the guard against the table's tie-breaks holds
for every game."""

from __future__ import annotations

import numpy as np
import pytest

from solver import games
from solver.hint import pipeline
from solver.hint.advice import answer
from solver.hint.request import HintRequest


@pytest.mark.parametrize("name", games.NAMES)
def test_every_game_answers_through_the_one_pipeline(name, monkeypatch):
    parts = []
    real = pipeline.answer

    def recording(part, request):
        parts.append(type(part).__name__)
        return real(part, request)

    monkeypatch.setattr(pipeline, "answer", recording)
    adapter = games.adapter(name)
    example = dict(adapter.example_situation)
    options = {"search": False} if adapter.capabilities.search else {}
    out = answer(HintRequest.from_inputs(example, seed=1, rollouts=32, **options)).to_json()
    # The Love Letter engine's part (with its search) or the own engines' one.
    # (a first Love Letter engine hint in a process answers a warm-up hint first)
    assert parts and set(parts) == {
        "LoveLetterHint" if adapter.capabilities.search else "OwnEngineHint"}
    full = {row["action"]: row for row in out["full_actions"]}
    assert out["recommendation"]["action"] in full
    assert out["rollouts"]["count"] == 32
    for play in out["plays"]:
        assert play["full_action"] in full
        # A play's figures are its full action's, chosen below it by the same rule.
        assert play["ev"] == pytest.approx(full[play["full_action"]]["ev"])


class _Part:
    """A game of two cards, the first with two follow-ups (full actions (0, 0), (0, 1),
    (1, 0)), fixed rollout values, and a table that prefers the second option at every
    decision."""

    def __init__(self, values):
        self.values = np.asarray(values, float)

    def prepare(self, request):
        pass

    def forced(self, request, start):
        return None

    def posterior(self, request):
        return type("Post", (), {"present": np.array([0, 0])})()

    def option_tree(self, request):
        from solver.hint.options import OptionTree

        def legal(s):
            return [0, 1] if s[0] == 0 or s[1] == 0 else [0]

        def probabilities(s, options):
            return [0.1, 0.9] if len(options) == 2 else [1.0]

        return OptionTree(legal=legal, apply=lambda s, a: np.array([s[0] + 1, a]),
                          chosen_now=lambda s, prefix: len(prefix) == 1,
                          probabilities=probabilities, words=str,
                          decision=lambda s: "step")

    def table(self, request, post, tree, legal):
        return pipeline.TableAdvice([0.1, 0.9], "table", "table", None, [])

    def card(self, action):
        return None

    def search(self, request, post, paths, start):
        return pipeline.NoSearch("none")

    def rollouts(self, request, post, paths, legal, table):
        assert paths == [(0, 0), (0, 1), (1, 0)]
        clusters = np.arange(self.values.shape[1])
        return pipeline.Rolled(self.values, self.values, None, clusters, {})

    def situation(self, request, post):
        return {}

    def posterior_record(self, request, post):
        return {}

    def opponents(self, request, post):
        return []

    def match_record(self, request, plays, recommendation):
        return None

    def opponent_record(self, request, result, plain, paths, note):
        return None


def test_the_guard_takes_the_best_by_value_past_two_tie_breaks():
    """Each step's tie-break is within its interval, but the two together leave the full
    action more than GUARD_MARGIN below the best, its interval below 0: the answer is the
    best by value, and says so."""
    rng = np.random.default_rng(0)
    n = 400
    base = rng.normal(0.0, 1.0, n)
    values = [base, base - 0.08 + rng.normal(0.0, 1.0, n), base - 0.15 + rng.normal(0.0, 0.5, n)]
    request = type("Request", (), {"seed": 0})()
    out = pipeline.answer(_Part(values), request)
    # Both steps were ties the table broke: the second card, and (0, 1) under the first.
    second = out.plays[1]
    assert -out.plays[0]["vs_best"] <= out.plays[0]["vs_best_ci95"]
    assert out.plays[0]["full_action"] == "0, 1"
    full = {row["action"]: row for row in out.full_actions}
    assert second["full_action"] == "1, 0"
    assert pipeline.search_overruled(full["1, 0"])
    assert out.recommendation["action"] == "0, 0"
    assert out.recommendation["chosen_by"].startswith("value: the policy's tie-breaks")
