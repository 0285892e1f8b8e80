"""A round's event log as the player saw it, and the worlds it allows.

The lines are read with the one log-line grammar (spiel_game/events.py LINE_FORMS, the
form `describe` writes) into an observation pattern: fields a line leaves open fit
anything, `?` is a hidden card, and the events a log may leave out (other players'
draws, misses, targets, "no effect", the round's end: solver/belief/filter.py
`omissible`) may be missing. The belief engine (solver/belief) then finds every history
the engine allows that shows the player exactly this log, weighted by the chance odds
and, with a policy, by its probability of each opponent decision (Bayes); histories
that no later decision or observation can tell apart are merged.

A summary (hand, play areas with what the table saw of each play) is answered the same
way, as the equivalent partial log (`summary_patterns`): what it says is fixed, what it
leaves open (others' unsaid targets and numbers, the order of my own past draws) fits
anything, so a summary and its log give the same posterior. The summary keeps more
histories than the log. Where the rules leave several plays that could have knocked a
seat out, the summary is the union of the histories of each explanation (turns.py
`knockouts`): one partial log each, answered together in one run of the filter whose
particles never merge across explanations, so each weighs its evidence
(`summary_log_worlds`).

Contract (the hint calls these two):

- `log_worlds(sit, game, policy=None, merge_logs=None, seed=0, limit=None)` and
  `summary_log_worlds(sit, game, policy=None, complete_within=None, merge_logs=None,
  seed=0)` return `(weighted_worlds, replay_info)`: worlds as (engine state, posterior
  weight), weights summing to 1. The answer is Bayes in every legal situation: exact
  while the histories fit the particle limit (`limit`, `complete_within`; None: grown
  from MAX_PARTICLES up to GROW_TO), and past it a sampled filter at that limit
  (solver/belief: resampling with unbiased weights, seeded by `seed`, the same answer
  for the same seed). Neither raises SearchLimitError for a legal situation beyond the
  limit; only if even the sampled filter kept no history after its retries (then it
  cannot tell whether the situation can happen).
- `replay_info` has "exact" (bool: every history counted), "effective_sample_size"
  (float; the number of worlds when exact), "complete" (= exact, kept for old callers),
  "collapsed" (a sample whose weight sits on a few worlds even after the budget grew:
  the answer is rough, say so), "particle_budget", "histories", "replay_steps",
  "particles", "opponent_decisions_without_policy", "explanations" (a summary's several
  explanations of its knock-outs, each {"knock_outs": words, "probability"}; else []).
- A situation no history explains is a SituationError that says why (the line or the
  card that cannot be).
- `prior_worlds(sit, game, ...)`: the same with no policy: chance odds only, no
  inference from what the others chose (for a `--prior-only` hint).
"""

from __future__ import annotations

import dataclasses

import numpy as np

from spiel_game import engine
from spiel_game import layout as L
from spiel_game.cards import JABBAS_PALACE, TARGETED_EFFECTS, Effect
from spiel_game.events import (HIDDEN, LINE_FORMS, UNSTATED, Event, describe, events,
                               parse_line)

from solver.belief import (ANY, HEURISTIC_TREMBLE, NO_COPY, NO_FAILURE, TREMBLE, collapsed,
                           effective_sample_size, posterior)
from solver.belief.filter import ALL_CARDS, CARD_SET, KNOWN_HIDDEN, card_set, known_hidden
from solver.hint.parse import SituationError
from solver.hint.situation import SET_ASIDE, Situation, card_with, plays
from solver.hint.turns import (MAX_EXPLANATIONS, effect, knockouts, knowledge, seats,
                               timeline)
from solver.policies.knowledge import knowledge_from_events

assert ANY == UNSTATED, "an unstated field of a line fits anything"
MAX_PARTICLES = 4096  # first try; grown 4x while particles are dropped, up to:
GROW_TO = 1 << 15  # past it (or past a summary's complete_within) the filter samples
# A collapsed sample answers as it is, flagged (`collapsed`): a redraw with 4 times the
# budget took 5 times as long and lifted few 6-player logs above MIN_ESS (docs/hint.md).
# A sample that kept no history is redrawn with a new seed, first at the same budget (the
# filter deals only cards the log allows, so a lost sample is mostly an unlucky one, and a
# redraw costs what the first run did), then with this many times the budget (up to
# GROW_TO: 1,024 -> 1,024 -> 8,192 -> 32,768 particles for the hint's):
LOST_GROWTH = 8
RETRIES = 4  # runs in all while a sample keeps no history
_OTHER_IS_SEAT = {kind for kind, _, form in LINE_FORMS if "{o}" in form}


def parse_log_line(line: str, players: int, rules=JABBAS_PALACE) -> Event:
    """One log line (the words of the information state, as `jabba play` prints them)
    as an Event pattern, card names of the rule set `rules`; fields the line leaves open
    are ANY, hidden cards HIDDEN."""
    try:
        event = parse_line(line, rules)
    except ValueError as err:
        raise SituationError(str(err)) from None
    seats = [event.actor] + ([event.other] if event.kind in _OTHER_IS_SEAT else [])
    for seat in seats:
        if seat != ANY and seat >= players:
            raise SituationError(f"log line {line!r}: seat p{seat} does not exist with "
                                 f"{players} players")
    return event


def _sort_drawn_together(lines: list[Event], text: list[str], rules=JABBAS_PALACE):
    """The engine logs cards drawn together in sorted order (the face-up cards, Leia's
    or the Chancellor's two draws): put runs of such lines in that order too."""
    keep_return = card_with(Effect.DRAW_KEEP_RETURN, rules)
    order = list(range(len(lines)))
    i = 0
    while i < len(lines):
        j = i
        if lines[i].kind == L.E_FACE_UP:
            while j + 1 < len(lines) and lines[j + 1].kind == L.E_FACE_UP:
                j += 1
        elif (lines[i].kind == L.E_DRAW and i > 0 and lines[i - 1].kind == L.E_PLAY
              and lines[i - 1].card == keep_return and i + 1 < len(lines)
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
    lines = [parse_log_line(x, sit.players, sit.rules) for x in sit.log]
    lines, text = _sort_drawn_together(lines, list(sit.log), sit.rules)
    if game.config.face_up and not any(e.kind == L.E_FACE_UP for e in lines):
        if not sit.face_up:
            raise SituationError("the log cannot happen under the rules: at the start, the "
                                 "face-up cards are missing: list them as 'face-up <card>' "
                                 "lines or in face_up")
        face_up = [Event(L.E_FACE_UP, ANY, ANY, c, ANY) for c in sorted(sit.face_up)]
        lines, text = face_up + lines, [describe(e._replace(actor=-1), _names(sit))
                                        for e in face_up] + text
    if own_draw:
        lines.append(Event(L.E_DRAW, sit.seat, ANY, ANY, ANY))
        text.append(f"p{sit.seat} gets <your drawn card>")
    pattern = np.array([tuple(e) for e in lines], dtype=np.int32).reshape(-1, L.EVENT_SIZE)
    return pattern, text


def _names(sit: Situation) -> tuple[str, ...]:
    return tuple(c.name for c in sit.rules.characters)


def _my_hand(s, me) -> list[int]:
    return sorted(int(x) for x in s[L.S_HAND + me * L.MAX_HAND:
                                    L.S_HAND + me * L.MAX_HAND + s[L.S_HAND_N + me]])


class SearchLimitError(SituationError):
    """No history found by a sampled filter (after its retries): the situation may be
    possible; the search could not tell. Not raised where an exact search fits."""


def _refuse(post, text: list[str], what: str, names: tuple[str, ...]):
    """Raise the error for a pattern no history kept fits (`_refusal`)."""
    raise _refusal(post, text, what, names)


def _refusal(post, text: list[str], what: str, names: tuple[str, ...]) -> SituationError:
    """The error for a pattern no history kept fits."""
    if not post.complete:
        return SearchLimitError(
            f"no history of {what} was found: past {post.max_particles:,} histories at "
            f"once the search samples, and {RETRIES} samples kept none, so it cannot tell "
            "whether it can happen: say more of what the table saw (targets, numbers "
            "named, the cards you saw) or give the log")
    return SituationError(f"the {what} cannot happen under the rules: "
                          f"{_why(post.stats, text, names)}")


def _why(stats: dict, text: list[str], names: tuple[str, ...]) -> str:
    ptr = stats["furthest_line"]
    where = f"after line {ptr} ({text[ptr - 1]!r})" if ptr > 0 else "at the start"
    kind, actor, other, card, extra = stats["failed_event"]
    if KNOWN_HIDDEN <= card < KNOWN_HIDDEN + L.MAX_CHARS:
        card -= KNOWN_HIDDEN  # my card another player saw
    if kind == NO_COPY:
        return (f"{where}, {names[card]} cannot be drawn here: no unseen copy "
                "is left")
    if kind == NO_FAILURE:
        return f"{where}, no history reaches the start of your turn"
    expected = (f"line {ptr + 1} says {text[ptr]!r}" if ptr < len(text) else "the log ends")
    event = describe(Event(kind, actor, other, card, extra), names)
    return f"{where}, the rules give '{event}' where {expected}"


def log_worlds(sit: Situation, game, policy=None, merge_logs: bool | None = None,
               seed: int = 0, limit: int | None = None
               ) -> tuple[list[tuple[np.ndarray, float]], dict]:
    """Worlds (engine state, posterior weight) that show `sit.seat` exactly its log, and
    how the search went (`_replay_info`; sampled past `limit`, default grown up to
    GROW_TO, seeded). `policy`: a PolicySet whose tables weigh the opponents' decisions
    (a decision none of them has: no weight; no table: its default heuristic does)."""
    me = sit.seat
    last = parse_log_line(sit.log[-1], sit.players, sit.rules) if sit.log else None
    ends_with_my_draw = last is not None and last.kind == L.E_DRAW and last.actor in (me, ANY)
    attempts = [False, True] if ends_with_my_draw else [True]
    if not sit.hand:
        attempts = [False]
    for own_draw in attempts:
        pattern, text = log_pattern(sit, game, own_draw)

        def select(states, own_draw=own_draw):
            # the turn draw the log leaves out is what the hand holds
            return [k for k, s in enumerate(states)
                    if not own_draw or _my_hand(s, me) == sorted(sit.hand)]

        post, keep = _sampled(game, me, pattern, policy, merge_logs, limit, seed, select)
        states, weights = post.states[keep], post.weights[keep]
        if len(states):
            break
    if not len(states):
        if post.stats["failed_event"][0] == NO_FAILURE and not sit.hand:
            raise SituationError("the log cannot happen under the rules: the log ends before "
                                 "your draw and your hand does not say what you drew")
        _refuse(post, text, "log", _names(sit))
    weights = weights / weights.sum()
    worlds = list(zip(states, weights.tolist()))
    _check_summary_against(sit, worlds[0][0])
    return worlds, _replay_info(worlds, [post])


def _sampled(game, me, pattern, policy, merge_logs, limit, seed, select, final=None):
    """(posterior, indices of its states `select` keeps): exact within the limit; past
    it a sample, which answers as it is (a collapsed one flagged by its replay info). A
    sample that kept no history is redrawn with a new seed, once at the same budget, then,
    where a limit is given, with LOST_GROWTH times the budget up to GROW_TO, up to RETRIES
    runs in all. `pattern` may be a list: the union of their histories (a summary's
    explanations), in one run (solver/belief `posterior`). final: the hands `select`
    requires at the end, which the filter deals toward (`posterior`'s)."""
    budget = limit
    for attempt in range(RETRIES):
        post = _posterior(game, me, pattern, policy, merge_logs, budget, seed + attempt, final)
        keep = select(post.states)
        if keep or post.complete:
            break
        if budget is not None and attempt > 0:
            budget = max(budget, min(budget * LOST_GROWTH, GROW_TO))
    return post, keep


def _check_summary_against(sit: Situation, s: np.ndarray) -> None:
    """Summary fields given along with a log must agree with what the log rebuilt."""
    me = sit.seat

    names = sit.names

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


# A summary as the equivalent partial log ------------------------------------------------

_LOOKS = {Effect.PEEK, Effect.PEEK_OR_SET_ASIDE, Effect.COMPARE, Effect.LOOK_MAY_TRADE}


def _look_target(sit: Situation, k: int, choosable, e, turns, table, deck: int):
    """An unsaid look's target where what the summary says one knows forces it: the one
    seat (or the set-aside card) at which turn k's look still lets the turns explain
    `saw`, `set_aside` and `seen_by` (turns.py `knowledge`). None if several do, or none
    (the belief engine then finds no history and says so)."""
    if not (sit.saw or sit.seen_by or sit.set_aside is not None):
        return None
    options = list(choosable) + ([SET_ASIDE] if e == Effect.PEEK_OR_SET_ASIDE else [])
    fits = [t for t in options if explains(sit, turns, table, deck, {k: t})]
    return fits[0] if len(fits) == 1 else None


def explains(sit: Situation, turns, table, deck: int, fixed: dict | None = None) -> bool:
    """Do the turns (with the `fixed` targets) let me know the cards `saw` and
    `set_aside` name, and the seats `seen_by` names know my cards?"""
    me, r2 = sit.seat, card_with(Effect.PEEK_OR_SET_ASIDE, sit.rules)
    known = knowledge(sit, me, turns, table, deck, fixed)
    if not all(known.may_know(q, c) for q, c in sit.saw.items()):
        return False
    fixed = fixed or {}
    if sit.set_aside is not None and not any(
            p == me and i is not None and sit.areas[p][i].card == r2
            and fixed.get(k, sit.areas[p][i].target) in (None, SET_ASIDE)
            for k, (p, i) in enumerate(turns)):
        return False
    return all(knowledge(sit, q, turns, table, deck, fixed).may_know(me, c, 2)
               for q, c in sit.seen_by.items())


def _my_draws(sit: Situation) -> int:
    """The card field of my own draws: every card I drew I have since played, hold, lost
    to a Boba Fett, given in a trade or returned with Leia, so my draws are among those
    (ANY where a trade or a Leia return leaves one unsaid). The summary does not say
    which I drew when; the set keeps the histories to those my hand can end in."""
    me = sit.seat
    held = set(sit.hand) | {a.card for a in plays(sit.areas[me])} | set(sit.bottom)
    for p, area in enumerate(sit.areas):
        held |= {a.card for a in area if a.how == "took" and a.victim == me}
        for a in plays(area):
            if a.traded and (p == me and a.shown is None or p != me and a.target in (
                    me, None) and (a.target is None or a.seen is None)):
                return ANY  # a card I gave away unsaid
            if a.traded and p != me and a.target == me:
                held.add(a.seen)
    leia = card_with(Effect.DRAW_KEEP_RETURN, sit.rules)
    if not sit.bottom and any(a.card == leia for a in plays(sit.areas[me])):
        return ANY  # returned cards unsaid (`bottom`, when said, names them all)
    held |= {a.shown for a in plays(sit.areas[me]) if a.traded}
    return card_set(held)


@dataclasses.dataclass(eq=False)
class Explanation:
    """One explanation of a summary's knock-outs (turns.py `knockouts`) as a partial log:
    `outs` (turn index -> the seats out at that play), the pattern rows and their words,
    or why it cannot be (`refused`, a SituationError's text; then no pattern)."""

    outs: dict[int, list[int]]
    words: str  # "seat 2 out to seat 2's Mercenary, seat 3 out to seat 5's Jabba the Hutt"
    pattern: np.ndarray | None = None
    text: list[str] | None = None
    refused: str | None = None


def summary_patterns(sit: Situation, game, most: int = MAX_EXPLANATIONS
                     ) -> list[Explanation]:
    """The summary (already checked, solver/hint/validate.py) as equivalent partial logs,
    one per explanation of its knock-outs (turns.py `knockouts`, at most `most`; one
    where marks or the rules decide): the summary is the union of their histories. An
    explanation whose plays cannot be is kept with the reason (`refused`); if every one
    is, SituationError with the reason (each explanation's, where several)."""
    turns = timeline(sit)
    explanations = []
    for outs in knockouts(sit, turns, most):
        words = _outs_words(sit, turns, outs)
        try:
            pattern, text = _pattern(sit, game, turns, outs)
        except SituationError as err:
            explanations.append(Explanation(outs, words, refused=str(err)))
            continue
        explanations.append(Explanation(outs, words, pattern, text))
    if all(e.refused for e in explanations):
        if len({e.refused for e in explanations}) == 1:
            raise SituationError(explanations[0].refused)
        raise SituationError(f"none of the {len(explanations)} explanations of which play "
                             "knocked out whom can be: " + "; ".join(
                                 f"if {e.words}, {e.refused}" for e in explanations))
    return explanations


def summary_pattern(sit: Situation, game):
    """(pattern rows, line texts) of a summary with one explanation of its knock-outs
    (marked, or decided by the rules); refused, asking for marks, where it has several."""
    e = summary_patterns(sit, game, most=1)[0]
    if e.refused:
        raise SituationError(e.refused)
    return e.pattern, e.text


def _outs_words(sit: Situation, turns, outs: dict[int, list[int]]) -> str:
    """Who went out at which play, in words."""
    def at(k):
        p, i = turns[k]
        return f"seat {p}'s {sit.names([sit.areas[p][i].card])}"

    return ", ".join(f"seat {q} out to {at(k)}" for k in sorted(outs) for q in outs[k])


def _pattern(sit: Situation, game, turns, outs: dict[int, list[int]]):
    """The summary as the partial log of one explanation of its knock-outs (`outs`):
    (pattern rows, line texts). What the summary does not say (others' targets and
    numbers, my own past draws) is left open (ANY); what it says (targets, numbers,
    hits, trades, looks, who went out when) is fixed."""
    n, me = sit.players, sit.seat
    table = seats(sit, turns, outs)
    rows: list[tuple] = [(L.E_FACE_UP, ANY, ANY, c, ANY) for c in sorted(sit.face_up)]
    mine = _my_draws(sit)
    rows.append((L.E_DRAW, me, ANY, mine, L.SRC_DEAL))
    in_round, protected = set(range(n)), set()
    deck = deck_after_deal = game.config.deck.size - game.config.face_up - 1 - n
    returned = 0  # cards I returned with Leia so far: `bottom` names them in order

    def discard(q):
        return sit.areas[q][-1].card

    for k, (p, i) in enumerate(turns):
        if i is None:
            continue
        protected.discard(p)
        deck -= 1
        if p == me:
            rows.append((L.E_DRAW, me, ANY, mine, ANY))
        a = sit.areas[p][i]
        c, e = a.card, effect(a.card, sit)
        name = f"seat {p}'s {sit.names([c])}"
        rows.append((L.E_PLAY, p, ANY, c, ANY))
        gone = outs.get(k, [])
        choosable = list(table[k].choosable)
        if e == Effect.PROTECT:
            protected.add(p)
        elif e == Effect.ELIMINATE_LOWEST:
            rows += [(L.E_OUT, q, ANY, discard(q), ANY) for q in sorted(gone)]
        elif e == Effect.DRAW_KEEP_RETURN:
            drawn = min(2, deck)
            if drawn:
                if p == me:
                    rows += [(L.E_DRAW, me, ANY, mine, ANY)] * drawn
                rows.append((L.E_KEEP, p, ANY, ANY, ANY))
                back = [ANY] * drawn
                if p == me and sit.bottom:
                    back = list(sit.bottom[returned:returned + drawn])
                    returned += drawn
                rows.append((L.E_RETURN, p, drawn, back[0], back[1] if drawn == 2 else ANY))
        elif e in TARGETED_EFFECTS:
            t = a.target
            if t == SET_ASIDE:
                if e != Effect.PEEK_OR_SET_ASIDE:
                    raise SituationError(f"{name} cannot choose the set-aside card: only "
                                         "R2-D2 looks at it (R4)")
                seen = sit.set_aside if p == me else ANY
                rows += [(L.E_TARGET_SET_ASIDE, p, ANY, ANY, ANY),
                         (L.E_SEE_SET_ASIDE, p, ANY, ANY if seen is None else seen, ANY)]
                continue
            if t is not None and t not in choosable:
                why = ("themself" if t == p else "out" if t not in in_round else
                       "protected by Bib Fortuna (R13)")
                raise SituationError(f"{name} chose seat {t}, but seat {t} could not be "
                                     f"chosen then: {why} (R4)")
            if not choosable and e != Effect.PEEK_OR_SET_ASIDE:
                if a.hit or gone:
                    raise SituationError(f"{name} had no effect: nobody could be chosen "
                                         "(R4)")
                continue  # no effect (an omissible line)
            # The seat knocked out is the chosen one, unless it is the player: a
            # Mercenary that lost, a C-3PO the counter-guess hit (R6).
            if t is None and gone and gone[0] != p:
                t = gone[0]
            if t is None and len(choosable) == 1 and e != Effect.PEEK_OR_SET_ASIDE:
                t = choosable[0]
            if t is None and e in _LOOKS:
                t = _look_target(sit, k, choosable, e, turns, table, deck_after_deal)
            if t == SET_ASIDE or t is None and e == Effect.PEEK_OR_SET_ASIDE and not choosable:
                rows += [(L.E_TARGET_SET_ASIDE, p, ANY, ANY, ANY),
                         (L.E_SEE_SET_ASIDE, p, ANY,
                          sit.set_aside if p == me and sit.set_aside is not None else ANY, ANY)]
                continue
            if t is None and e == Effect.PEEK_OR_SET_ASIDE:
                # Unsaid: a chosen seat or the set-aside card, both lines left open.
                rows += [(ANY, p, ANY, ANY, ANY)] * 2
                continue
            T = ANY if t is None else t
            rows.append((L.E_TARGET, p, T, ANY, ANY))
            # What a look, compare or trade showed: known to me only if I am one side
            # (a card of mine another saw: the belief engine checks the hidden card).
            with_me = me in (p, t)
            seen = a.seen if with_me and a.seen is not None else ANY
            shown = a.shown if with_me and a.shown is not None else ANY
            seen_of_me = known_hidden(seen) if t == me and seen != ANY else seen
            shown_of_me = known_hidden(shown) if p == me and shown != ANY else shown
            if e in (Effect.GUESS, Effect.GUESS_COUNTER):
                rows.append((L.E_NAME, p, T, ANY, a.named[0] if a.named else ANY))
                if t in gone:
                    rows.append((L.E_OUT, t, ANY, discard(t), ANY))
                elif e == Effect.GUESS_COUNTER:
                    rows.append((L.E_MISS, T, ANY, ANY, ANY))
                    rows.append((L.E_NAME, T, p, ANY,
                                 a.named[1] if len(a.named) > 1 else ANY))
                    if p in gone:
                        rows.append((L.E_OUT, p, ANY, discard(p), ANY))
            elif e in (Effect.PEEK, Effect.PEEK_OR_SET_ASIDE):
                rows.append((L.E_SEE, p, T, seen_of_me, ANY))
            elif e == Effect.COMPARE:
                rows += [(L.E_SEE, p, T, seen_of_me, ANY), (L.E_SEE, T, p, shown_of_me, ANY)]
                if gone:
                    rows.append((L.E_OUT, gone[0], ANY, discard(gone[0]), ANY))
                else:
                    rows.append((L.E_TIE, p, T, ANY, ANY))
            elif e == Effect.ELIMINATE_IF_SIDE:
                if t in gone:
                    rows.append((L.E_OUT, t, ANY, discard(t), ANY))
            elif e == Effect.LOOK_MAY_TRADE:
                rows.append((L.E_SEE, p, T, seen_of_me, ANY))
                if a.traded:
                    rows.append((L.E_TRADE, p, T, shown, seen))
                else:
                    rows.append((L.E_NO_TRADE, p, T, ANY, ANY))
            elif e == Effect.STEAL_HAND:
                took = sit.areas[p][i + 1] if i + 1 < len(sit.areas[p]) else None
                if took is None or took.how != "took":
                    raise SituationError(f"{name}: say the card it took, 'took:CARD' "
                                         "right after it (R8)")
                if t is not None and took.victim != t:
                    raise SituationError(f"{name} chose seat {t} but took seat "
                                         f"{took.victim}'s card")
                rows.append((L.E_STEAL, p, took.victim, took.card, ANY))
                deck -= 1
                if took.victim == me:
                    rows.append((L.E_DRAW, me, ANY, mine, ANY))
        for q in gone:
            in_round.discard(q)
            protected.discard(q)
    # My turn's draw: a card I hold now (prunes, before the end, histories my hand
    # cannot end in).
    rows.append((L.E_DRAW, me, ANY, card_set(sit.hand) if sit.hand else mine, ANY))
    deck = max(0, deck - 1)
    if sit.deck is not None and sit.deck != deck:
        raise SituationError(
            f"deck={sit.deck} cannot be: the plays leave {deck} to draw "
            f"({game.config.deck.size} in the deck, minus face-up and set-aside, one dealt "
            "to each player, one drawn for each turn and after each Boba Fett take; "
            "Leia's returned cards count as deck)")
    pattern = np.array(rows, dtype=np.int32).reshape(-1, L.EVENT_SIZE)
    return pattern, [_row_text(r, _names(sit)) for r in rows]


def _row_text(row, names: tuple[str, ...]) -> str:
    """A pattern row in log words, '?' for what it leaves open."""
    if row[0] == ANY:
        return f"p{row[1]} chooses and looks (a seat's hand or the set-aside card)"
    row = [f - KNOWN_HIDDEN if KNOWN_HIDDEN <= f < KNOWN_HIDDEN + L.MAX_CHARS else f
           for f in row]
    kind, actor, other, c, extra = (HIDDEN if f == ANY or f <= CARD_SET + ALL_CARDS else f
                                    for f in row)
    return describe(Event(kind, actor, other, c, -1 if extra == HIDDEN and kind in (
        L.E_DRAW, L.E_TRADE, L.E_RETURN) else extra), names).replace("p-2", "p?").replace(
        " -2", " ?").replace(" ()", "")


def summary_fits(sit: Situation, s: np.ndarray, config) -> bool:
    """Does a history of the summary's plays leave what I know now: my hand, the cards
    I know others hold (`saw`: known to me in that history, not merely held; a look the
    summary leaves unsaid may have shown me more), the cards of mine others know
    (`seen_by`: known to them, as their own replay of the log says)? `config`: the
    game's."""
    me = sit.seat
    if _my_hand(s, me) != sorted(sit.hand):
        return False
    for q, c in sit.seen_by.items():
        if c not in knowledge_from_events(events(s, q), q, config).known_cards[me]:
            return False
    if sit.saw:  # known to me in that history: a card merely held is not one I saw
        known = knowledge_from_events(events(s, me), me, config).known_hands
        return all(known.get(q) == c for q, c in sit.saw.items())
    return True


def summary_log_worlds(sit: Situation, game, policy=None, complete_within: int | None = None,
                       merge_logs: bool | None = None, seed: int = 0):
    """Worlds (engine state, posterior weight) for a summary: the summary as the
    equivalent partial log (`summary_patterns`), answered by the belief engine like a
    log; then what I know now (my hand, `saw`, `seen_by`) selects among them.
    `complete_within`: the particle limit of the exact search (default: grown up to
    GROW_TO); past it the filter samples at that budget (seeded; `_replay_info` says
    how exact the answer is).

    Where the rules leave several explanations of who knocked out whom, the summary is
    the union of their histories, answered in one run of the filter (their particles
    share its budget; solver/belief `posterior` with a list of patterns): each
    explanation weighs what its worlds do, P(what was seen | it) under the same chance
    odds and policy. Their worlds stay apart: they are different histories. An
    explanation that kept none weighs 0."""
    from solver.hint.validate import check

    cfg = game.config
    sit = check(sit, tuple(int(c) for c in cfg.deck.counts), cfg.face_up)
    me = sit.seat
    explanations = summary_patterns(sit, game)

    def select(states):
        return [k for k, s in enumerate(states) if summary_fits(sit, s, cfg)]

    possible = [i for i, e in enumerate(explanations) if not e.refused]
    # what `select` requires at the end: the filter deals toward it
    final = {me: list(sit.hand)} | {q: [c] for q, c in sit.saw.items()}
    patterns = [explanations[i].pattern for i in possible]
    post, keep = _sampled(game, me, patterns, policy, merge_logs, complete_within, seed,
                          select, final)
    if not keep:
        # each explanation alone, for what rules each out
        runs = [_posterior(game, me, p, policy, merge_logs, complete_within, seed, final)
                for p in patterns]
        raise _no_history(sit, [(explanations[i], run) for i, run in zip(possible, runs)],
                          explanations)
    # One run over the union of the explanations' histories: each world's weight is
    # already P(it and what was seen) under the same chance odds and policy, so an
    # explanation's probability is the weight of the worlds it kept.
    states, weights = post.states[keep], post.weights[keep]
    weights = weights / weights.sum()
    worlds = list(zip(states, weights.tolist()))
    _check_summary_against(sit, worlds[0][0])
    said = [{"knock_outs": e.words, "probability": 0.0} for e in explanations]
    for i, m in zip(possible, np.bincount(post.pattern_index[keep], weights,
                                          len(possible))):
        said[i]["probability"] = float(m)
    return worlds, _replay_info(worlds, [post], said if len(explanations) > 1 else [])


_CANNOT = "the situation cannot happen under the rules: "


def _no_history(sit: Situation, runs, explanations) -> SituationError:
    """The refusal where no explanation of the summary kept a history (`runs`: each
    possible one's (explanation, posterior)): a sample that kept none cannot tell
    (SearchLimitError); else why each cannot happen."""
    reasons = []
    for e, post in runs:
        if len(post.states) and post.complete:
            reasons.append(SituationError(
                "the situation cannot happen under the rules: no history of these plays "
                "leaves you this hand and the cards you know (saw, seen_by)"))
        else:
            reasons.append(_refusal(post, e.text, "situation", _names(sit)))
    if len(explanations) == 1:
        return reasons[0]
    lost = [r for r in reasons if isinstance(r, SearchLimitError)]
    why = "; ".join(f"if {e.words}, {str(r).removeprefix(_CANNOT)}" for e, r in
                    [(e, e.refused) for e in explanations if e.refused]
                    + [(e, r) for (e, _), r in zip(runs, reasons)])
    if lost:
        return SearchLimitError(f"none of the {len(explanations)} explanations of which play "
                                f"knocked out whom kept a history: {why}")
    return SituationError(f"{_CANNOT.removesuffix(': ')}, whichever of its "
                          f"{len(explanations)} explanations of which play knocked out whom: "
                          f"{why}")


def _replay_info(worlds, posts, explanations=()) -> dict:
    """How the belief engine's runs went (one per explanation of a summary's knock-outs;
    `explanations`: each one's words and probability, where there were several)."""
    weights = [w for _, w in worlds]
    complete = all(post.complete for post in posts)
    ess = float(len(worlds)) if complete else effective_sample_size(weights)
    return {"histories": len(worlds),
            "replay_steps": sum(post.stats["steps"] for post in posts),
            "complete": complete, "exact": complete,
            "effective_sample_size": ess,
            "collapsed": not complete and collapsed(ess),
            "particle_budget": max(post.max_particles for post in posts),
            "resamples": sum(post.stats["resamples"] for post in posts),
            "particles": max(post.stats["most_particles"] for post in posts),
            "opponent_decisions_without_policy": sum(post.stats["policy_misses"]
                                                     for post in posts),
            "explanations": list(explanations)}


def prior_worlds(sit: Situation, game, complete_within: int | None = None,
                 merge_logs: bool | None = None, seed: int = 0):
    """(weighted worlds, replay info) by chance odds only: every history the log or
    summary allows, the opponents' decisions not weighed (no inference from what they
    chose): the hint's prior-only beliefs. complete_within: the particle limit of both."""
    if sit.log is not None:
        return log_worlds(sit, game, None, merge_logs, seed, complete_within)
    return summary_log_worlds(sit, game, None, complete_within, merge_logs, seed)


def _posterior(game, me, pattern, policy, merge_logs=None, limit=None, seed=0, final=None):
    kw = {} if merge_logs is None else {"merge_logs": merge_logs}
    if policy is not None:  # its tables; where none ships, its default heuristic
        chain = np.arange(len(policy.paths)) if policy.paths else policy.chain
        floor = TREMBLE if policy.paths else HEURISTIC_TREMBLE
        kw |= dict(bank=policy.bank, chain=chain, floor=floor, miss_unknown=True)
    return posterior(game, me, pattern, omissions=True, done_phase=L.PH_PLAY,
                     max_particles=min(MAX_PARTICLES, limit or MAX_PARTICLES),
                     grow_to=GROW_TO if limit is None else limit, seed=seed, final=final,
                     **kw)
