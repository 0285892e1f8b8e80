"""The coach: the hint engine's answer to each of the human's plays, and what a play cost.

At a play decision the coach keeps the human's information state; once the human has
chosen the full action (the card, then its target and number: what the hint rolls out,
solver/hint/advice.py), it asks the hint about that information state, pasted as the
event log `jabba hint --log` reads (solver/hint/log.py `read_log`), with the
decision-time search in exactly `search_iterations` iterations (repeatable; or without
the search), and compares:

    cost = EV(best full action) - EV(chosen full action)

with the 95% interval of that paired difference (the hint's `full_actions` `vs_best`:
the same rollouts for every action, where everybody then plays the table). The rollout
EV exists with or without the search and carries an interval, so the cost is always
that one; the search's probability and value of each play are shown beside it, and its
recommendation. A cost above `threshold` is flagged. The hint answers plays only: Leia's
keep and order, Lando's trade and a number named back after a C-3PO miss come after new
information and are not coached (the verdict says so).
"""

from __future__ import annotations

from spiel_game import layout as L

from solver.hint import advice
from solver.hint.situation import SituationError, from_mapping
from solver.play import COACH_SEARCH_ITERATIONS
from solver.play.opponents import hint_policies

DEFAULT_THRESHOLD = 0.05  # tokens of margin per round


def check_coachable(game) -> None:
    """ValueError unless the hint answers this game (the full deck)."""
    deck = game.get_parameters()["deck"]
    if deck != "full":
        raise ValueError(f"the coach is the hint engine, which answers the full deck; this "
                         f"game's deck is {deck!r}")


class Coach:
    """Judges the human's plays of one session (module docstring)."""

    def __init__(self, game, threshold: float = DEFAULT_THRESHOLD, seconds: float = 0.25,
                 resolve_seconds: float = 2.0, seed: int = 0, search: bool = True,
                 search_iterations: int = COACH_SEARCH_ITERATIONS):
        check_coachable(game)
        if isinstance(search_iterations, bool) or not isinstance(search_iterations, int) \
                or search_iterations < 1:
            raise ValueError(f"coach search iterations {search_iterations!r}: allowed is a "
                             "whole number from 1")
        self.game = game
        self.params = game.get_parameters()
        self.game_name = game.get_type().short_name
        self.threshold = threshold
        self.seconds = seconds
        self.resolve_seconds = resolve_seconds
        self.seed = seed
        self.search = search
        self.search_iterations = search_iterations
        self.policies = hint_policies(game)
        self.verdicts: list[dict] = []
        self.new_round()

    def new_round(self) -> None:
        """Forget a full action under way (a round starts)."""
        self._start = None  # the state at the play decision of the full action under way
        self._path: list[int] = []
        self._answer = None

    def advise(self, state, me: int) -> dict:
        """The hint's answer at `me`'s play decision (pyspiel `state`), from the seat's
        information state; SituationError if the hint cannot answer."""
        sit = from_mapping({"game": self.game_name, "players": self.params["players"],
                            "agenda": self.params.get("agenda"),  # none in love_letter
                            "utility": self.params["utility"],
                            "log": state.information_state_string(me)})
        return advice.hint(sit, advice.check_game(sit), self.policies, seconds=self.seconds,
                           resolve_seconds=self.resolve_seconds, seed=self.seed,
                           search=self.search, search_iterations=self.search_iterations)

    def observe(self, before, me: int, action: int) -> dict | None:
        """The human (engine seat `me`) took `action` at the pyspiel state `before`. The
        verdict once a full action is complete (or for a decision not coached), else
        None."""
        phase = int(before.array[L.S_PHASE])
        if phase == L.PH_PLAY:
            self._start, self._path, self._answer = before, [action], None
        elif phase in (L.PH_TARGET, L.PH_NAME):  # the rest of one's own play
            if self._start is None:
                return None  # of a play the hint could not answer (already said)
            self._path.append(action)
        else:
            return self._keep({"coached": False, "decision": L.PHASE_NAMES[phase],
                               "why": "the hint answers plays (card, target, number); this "
                                      "decision comes after new information"})
        if self._answer is None:
            try:
                self._answer = self.advise(self._start, me)
            except SituationError as err:
                start = self._start
                self.new_round()
                return self._keep({"coached": False, "decision": "play",
                                   "why": f"the hint could not answer: {err}",
                                   "information_state": start.information_state_string(me)})
        paths = {tuple(f["action_ids"]): f for f in self._answer["full_actions"]}
        chosen = paths.get(tuple(self._path))
        if chosen is None:
            if any(p[:len(self._path)] == tuple(self._path) for p in paths):
                return None  # its target or number is still to come
            raise AssertionError(f"full action {self._path} is not one the hint rolled out")
        verdict = self._verdict(self._answer, chosen)
        self.new_round()
        return self._keep(verdict)

    def _verdict(self, answer: dict, chosen: dict) -> dict:
        best = max(answer["full_actions"], key=lambda f: f["ev"])
        cost = 0.0 - chosen["vs_best"]  # (never -0.0)
        return {"coached": True, "decision": "play", "chosen": chosen["action"],
                "chosen_ev": chosen["ev"], "chosen_ev_ci95": chosen["ev_ci95"],
                "chosen_search_probability": chosen.get("search_probability"),
                "chosen_search_value": chosen.get("search_value"),
                "best": best["action"], "best_ev": best["ev"], "best_ev_ci95": best["ev_ci95"],
                "cost": cost, "cost_ci95": chosen["vs_best_ci95"], "threshold": self.threshold,
                "flagged": cost > self.threshold,
                "recommendation": answer["recommendation"]["action"],
                "chosen_by": answer["recommendation"]["chosen_by"],
                "plays": [{"play": p["full_action"], "probability": p["probability"],
                           "search_probability": p.get("search_probability"),
                           "search_value": p.get("search_value"),
                           "ev": p["ev"], "ev_ci95": p["ev_ci95"]} for p in answer["plays"]],
                "opponents": answer["opponents"], "policy": answer["policy"]["source"],
                "search": answer["policy"]["search"], "seconds": answer["seconds"]}

    def _keep(self, verdict: dict) -> dict:
        self.verdicts.append(verdict)
        return verdict

    def summary(self) -> dict:
        """The coached plays so far: how many, how many flagged, their total cost."""
        coached = [v for v in self.verdicts if v["coached"]]
        return {"coached": len(coached), "flagged": sum(v["flagged"] for v in coached),
                "cost": sum(v["cost"] for v in coached),
                "not_coached": len(self.verdicts) - len(coached)}
