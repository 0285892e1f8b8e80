"""The hint's answer: one dataclass, one JSON form (versioned: SCHEMA, SCHEMA_VERSION; the
fields are in docs/hint.md "JSON schema"). Every answer, a valued one or a play the rules
force, is a `HintAnswer`; `to_json` is the only place its JSON is laid out."""

from __future__ import annotations

import copy
import dataclasses

SCHEMA = "jabbas-palace-hint"
SCHEMA_VERSION = 5  # 4: situation.game (love_letter), the "rules" source; 5: match, opponent models
# The fields of the JSON answer that are wall times: all that a rerun with a fixed number
# of rollouts and search iterations may change (dotted paths).
WALL_TIMES = ("seconds", "rollouts.seconds", "policy.search.seconds",
              "policy.search.phase_seconds")


def without_wall_times(answer: dict) -> dict:
    """A copy of a JSON answer without its WALL_TIMES, to compare two answers."""
    out = copy.deepcopy(answer)
    for path in WALL_TIMES:
        *parents, last = path.split(".")
        node = out
        for key in parents:
            node = node.get(key, {})
        node.pop(last, None)
    return out


@dataclasses.dataclass
class HintAnswer:
    situation: dict  # game, players, agenda, seat, hand, deck, described_by
    policy: dict  # source, detail, level, tables, search
    recommendation: dict  # action, card, chosen_by, steps
    plays: list[dict]  # each card that may be played, with its values
    full_actions: list[dict]  # each card, target and number, with its values
    opponents: list[dict]  # each opponent's status and hand probabilities
    posterior: dict  # basis, worlds (and complete)
    rollouts: dict  # count, seconds, worlds, decisions, where their decisions came from
    seconds: float  # the whole answer's wall time
    match: dict | None = None  # with a match context (docs/match.md)
    opponent_model: dict | None = None  # with an opponent model (docs/opponents.md)

    def to_json(self) -> dict:
        """The versioned JSON answer (`jabba hint --json`, /api/hint)."""
        return {"schema": SCHEMA, "schema_version": SCHEMA_VERSION,
                "situation": self.situation, "policy": self.policy,
                "recommendation": self.recommendation, "plays": self.plays,
                "full_actions": self.full_actions, "opponents": self.opponents,
                **({} if self.match is None else {"match": self.match}),
                **({} if self.opponent_model is None else
                   {"opponent_model": self.opponent_model}),
                "posterior": self.posterior, "rollouts": self.rollouts,
                "seconds": self.seconds}
