"""A round's event log as the player saw it, and the worlds it allows.

The lines are read with the one log-line grammar (spiel_game/events.py LINE_FORMS, the
form `describe` writes) into an observation pattern: fields a line leaves open fit
anything, `?` is a hidden card, and the events a log may leave out (other players'
draws, misses, targets, "no effect", the round's end: solver/belief/filter.py
`omissible`) may be missing. The belief engine (solver/belief) then finds every history
the engine allows that shows the player exactly this log, weighted by the chance odds
and, with a policy, by its probability of each opponent decision (Bayes); histories
that no later decision or observation can tell apart are merged.
"""

from __future__ import annotations

import numpy as np

from spiel_game import engine
from spiel_game import layout as L
from spiel_game.cards import CHARACTERS
from spiel_game.events import LINE_FORMS, UNSTATED, Event, describe, parse_line

from solver.belief import ANY, NO_COPY, NO_FAILURE, posterior
from solver.hint.situation import LEIA, Situation, SituationError

assert ANY == UNSTATED, "an unstated field of a line fits anything"
TREMBLE = 1e-3  # least probability given to an opponent's decision (they stray)
MAX_PARTICLES = 4096  # first try; grown 4x while particles are dropped, up to:
GROW_TO = 1 << 15
_OTHER_IS_SEAT = {kind for kind, _, form in LINE_FORMS if "{o}" in form}


def parse_log_line(line: str, players: int) -> Event:
    """One log line (the words of the information state, as `jabba play` prints them)
    as an Event pattern; fields the line leaves open are ANY, hidden cards HIDDEN."""
    try:
        event = parse_line(line)
    except ValueError as err:
        raise SituationError(str(err)) from None
    seats = [event.actor] + ([event.other] if event.kind in _OTHER_IS_SEAT else [])
    for seat in seats:
        if seat != ANY and seat >= players:
            raise SituationError(f"log line {line!r}: seat p{seat} does not exist with "
                                 f"{players} players")
    return event


def _sort_drawn_together(lines: list[Event], text: list[str]):
    """The engine logs cards drawn together in sorted order (the face-up cards, Leia's
    two draws): put runs of such lines in that order too."""
    order = list(range(len(lines)))
    i = 0
    while i < len(lines):
        j = i
        if lines[i].kind == L.E_FACE_UP:
            while j + 1 < len(lines) and lines[j + 1].kind == L.E_FACE_UP:
                j += 1
        elif (lines[i].kind == L.E_DRAW and i > 0 and lines[i - 1].kind == L.E_PLAY
              and lines[i - 1].card == LEIA and i + 1 < len(lines)
              and lines[i + 1].kind == L.E_DRAW and lines[i + 1].actor == lines[i].actor):
            j = i + 1
        if j > i:
            order[i:j + 1] = sorted(order[i:j + 1], key=lambda k: lines[k].card)
        i = j + 1
    return [lines[k] for k in order], [text[k] for k in order]


def log_pattern(sit: Situation, game, own_draw: bool = False):
    """(pattern rows, line texts) for the belief engine. Face-up cards given only in
    `face_up` become the first lines; with own_draw, a last line stands for the turn
    draw the log leaves out (its card: what the hand holds)."""
    lines = [parse_log_line(x, sit.players) for x in sit.log]
    lines, text = _sort_drawn_together(lines, list(sit.log))
    if game.config.face_up and not any(e.kind == L.E_FACE_UP for e in lines):
        if not sit.face_up:
            raise SituationError("the log cannot happen under the rules: at the start, the "
                                 "face-up cards are missing: list them as 'face-up <card>' "
                                 "lines or in face_up")
        face_up = [Event(L.E_FACE_UP, ANY, ANY, c, ANY) for c in sorted(sit.face_up)]
        lines, text = face_up + lines, [describe(e._replace(actor=-1)) for e in face_up] + text
    if own_draw:
        lines.append(Event(L.E_DRAW, sit.seat, ANY, ANY, ANY))
        text.append(f"p{sit.seat} gets <your drawn card>")
    pattern = np.array([tuple(e) for e in lines], dtype=np.int32).reshape(-1, L.EVENT_SIZE)
    return pattern, text


def _my_hand(s, me) -> list[int]:
    return sorted(int(x) for x in s[L.S_HAND + me * L.MAX_HAND:
                                    L.S_HAND + me * L.MAX_HAND + s[L.S_HAND_N + me]])


def _why(stats: dict, text: list[str]) -> str:
    ptr = stats["furthest_line"]
    where = f"after line {ptr} ({text[ptr - 1]!r})" if ptr > 0 else "at the start"
    kind, actor, other, card, extra = stats["failed_event"]
    if kind == NO_COPY:
        return (f"{where}, {CHARACTERS[card].name} cannot be drawn here: no unseen copy "
                "is left")
    if kind == NO_FAILURE:
        return f"{where}, no history reaches the start of your turn"
    expected = (f"line {ptr + 1} says {text[ptr]!r}" if ptr < len(text) else "the log ends")
    event = describe(Event(kind, actor, other, card, extra))
    return f"{where}, the rules give '{event}' where {expected}"


def log_worlds(sit: Situation, game, policy=None) -> tuple[list[tuple[np.ndarray, float]], dict]:
    """Worlds (engine state, posterior weight) that show `sit.seat` exactly its log, and
    how the search went ("complete": no history dropped). `policy`: a PolicySet whose
    tables weigh the opponents' decisions (a decision none of them has: no weight)."""
    me = sit.seat
    last = parse_log_line(sit.log[-1], sit.players) if sit.log else None
    ends_with_my_draw = last is not None and last.kind == L.E_DRAW and last.actor in (me, ANY)
    attempts = [False, True] if ends_with_my_draw else [True]
    if not sit.hand:
        attempts = [False]
    for own_draw in attempts:
        pattern, text = log_pattern(sit, game, own_draw)
        kw = {}
        if policy is not None and policy.paths:
            kw = dict(bank=policy.bank, chain=np.arange(len(policy.paths)), floor=TREMBLE,
                      miss_unknown=True)
        post = posterior(game, me, pattern, omissions=True, done_phase=L.PH_PLAY,
                         max_particles=MAX_PARTICLES, grow_to=GROW_TO, **kw)
        states, weights = post.states, post.weights
        if own_draw:  # the turn draw the log leaves out is what the hand holds
            keep = [k for k, s in enumerate(states) if _my_hand(s, me) == sorted(sit.hand)]
            states, weights = states[keep], weights[keep]
        if len(states):
            break
    if not len(states):
        if post.stats["failed_event"][0] == NO_FAILURE and not sit.hand:
            raise SituationError("the log cannot happen under the rules: the log ends before "
                                 "your draw and your hand does not say what you drew")
        raise SituationError(f"the log cannot happen under the rules: {_why(post.stats, text)}")
    weights = weights / weights.sum()
    worlds = list(zip(states, weights.tolist()))
    _check_summary_against(sit, worlds[0][0])
    return worlds, {"histories": len(worlds), "replay_steps": post.stats["steps"],
                    "complete": post.complete, "particles": post.stats["most_particles"],
                    "opponent_decisions_without_policy": post.stats["policy_misses"]}


def _check_summary_against(sit: Situation, s: np.ndarray) -> None:
    """Summary fields given along with a log must agree with what the log rebuilt."""
    me = sit.seat

    def names(cards):
        return ", ".join(CHARACTERS[c].name for c in cards) or "nothing"

    def differ(field, summary, rebuilt):
        raise SituationError(f"{field} says {summary}, but the log gives {rebuilt}")

    hand = sorted(int(x) for x in s[L.S_HAND + me * L.MAX_HAND:
                                    L.S_HAND + me * L.MAX_HAND + s[L.S_HAND_N + me]])
    if sit.hand and sorted(sit.hand) != hand:
        differ("hand", names(sit.hand), names(hand))
    if sit.face_up and sorted(sit.face_up) != sorted(
            int(x) for x in s[L.S_FACE_UP:L.S_FACE_UP + s[L.S_FACE_UP_N]]):
        differ("face_up", names(sorted(sit.face_up)), names(sorted(
            int(x) for x in s[L.S_FACE_UP:L.S_FACE_UP + s[L.S_FACE_UP_N]])))
    for p, area in enumerate(sit.areas):
        rebuilt = [int(x) for x in s[L.S_AREA + p * L.MAX_AREA:
                                     L.S_AREA + p * L.MAX_AREA + s[L.S_AREA_N + p]]]
        if area and [a.card for a in area] != rebuilt:
            differ(f"areas[{p}]", names([a.card for a in area]), names(rebuilt))
    out = {p for p in range(sit.players) if s[L.S_IN_ROUND + p] == 0}
    if sit.out and set(sit.out) != out:
        differ("out", sorted(sit.out), sorted(out))
    protected = {p for p in range(sit.players) if s[L.S_PROTECTED + p] == 1}
    if sit.protected and set(sit.protected) != protected:
        differ("protected", sorted(sit.protected), sorted(protected))
    if sit.deck is not None and sit.deck != engine.deck_size(s):
        differ("deck", sit.deck, int(engine.deck_size(s)))
