"""A summary's turns: who played when, who went out at which play, who could be chosen,
and what one player can know of another's hand by the end.

`timeline` orders the plays of a summary (docs/hint.md "The situation"), `knockouts`
says at which play each out seat went out (every explanation the rules leave), `seats`
who was in and protected at each play, and `knowledge` replays the turns for one player
as solver/policies/knowledge.py replays a log: a look, a compare, a trade, or a draw of
a card that player returned with Leia (R9, R10) shows them a card, forgotten where the
tracker forgets it. What the summary leaves open (a target, a card seen) is every case
at once, so `knowledge` says what the player may know; the belief engine (log.py) keeps
the histories where they do.
"""

from __future__ import annotations

import dataclasses

from spiel_game.cards import JABBAS_PALACE, TARGETED_EFFECTS, Effect

from solver.hint.parse import SituationError
from solver.hint.situation import SET_ASIDE, Situation

_KNOCKS = {Effect.GUESS, Effect.GUESS_COUNTER, Effect.COMPARE, Effect.ELIMINATE_IF_SIDE}


def effect(c: int, sit: Situation) -> Effect:
    """What card `c` does, in the situation's rule set."""
    return sit.rules.characters[c].effect


def _could_knock_out(a, p: int, q: int, discard: int, sit: Situation) -> bool:
    """Could seat p's play `a` have knocked out seat q, whose discard (the card q held
    then) is `discard`? A number named must be the discard's (R5, R6); Chewbacca, Luke
    and Jabba need its side and number; a Rancor or a compare cannot be told apart."""
    chars = sit.rules.characters
    e, number = effect(a.card, sit), chars[discard].number
    if e == Effect.ELIMINATE_LOWEST:
        return True
    if p == q:  # named back after a C-3PO miss (R6), or lost their own compare
        return (e == Effect.COMPARE or e == Effect.GUESS_COUNTER
                and (len(a.named) < 2 or a.named[1] == number))
    if a.target not in (None, q):
        return False
    if e in (Effect.GUESS, Effect.GUESS_COUNTER):
        return not a.named or a.named[0] == number
    if e == Effect.ELIMINATE_IF_SIDE:
        c = chars[a.card]
        return chars[discard].side == c.param_a and number <= c.param_b
    return e == Effect.COMPARE


# The most explanations of who went out when that a summary may leave open: each is a
# belief engine run (solver/hint/log.py); past it the summary is refused, asking for marks.
MAX_EXPLANATIONS = 16
# Past this many the explanations are not counted further ("more than").
_COUNT_UP_TO = 10_000


def knockouts(sit: Situation, turns, most: int = MAX_EXPLANATIONS
              ) -> list[dict[int, list[int]]]:
    """Every explanation of the out seats: turn index -> the seats that went out at that
    play. A play marked ':hit' knocks out its target (a Mercenary: whichever of the two
    is out and plays no more, not chosen since; both: the lower discard, R10). Another
    out seat went out at a play between their last turn (or their last being chosen)
    and their next that could have done it: their own C-3PO if it named their number
    back (R6), a Rancor marked ':hit' (R7); where several plays could, each is an
    explanation (all of them: the product over such seats). SituationError if none, or
    more than `most`, saying how to mark the play that did."""
    outs: dict[int, list[int]] = {}
    assigned = set()

    def plays_after(x, k):
        return any(p == x and i is not None for p, i in turns[k + 1:])

    def number(x):  # the number of x's discard: the hand x held when they went out
        return sit.rules.characters[sit.areas[x][-1].card].number

    def chosen(x):  # turns whose play chose x, who was in the round then (R4)
        return [k for k, (p, i) in enumerate(turns) if i is not None and (
            sit.areas[p][i].target == x or i + 1 < len(sit.areas[p])
            and sit.areas[p][i + 1].how == "took" and sit.areas[p][i + 1].victim == x)]

    hits = [k for k, (p, i) in enumerate(turns)
            if i is not None and sit.areas[p][i].hit
            and effect(sit.areas[p][i].card, sit) in _KNOCKS]
    # A compare's loser is told once the other hits are placed.
    for k in sorted(hits, key=lambda k: effect(sit.areas[turns[k][0]][turns[k][1]].card, sit)
                    == Effect.COMPARE):
        p, i = turns[k]
        a = sit.areas[p][i]
        name = f"seat {p}'s {sit.names([a.card])} is marked ':hit'"
        if a.target is None or a.target == SET_ASIDE:
            raise SituationError(f"{name}, but its target is not said (e.g. 'jabba@2:hit')")
        if effect(a.card, sit) == Effect.COMPARE:
            losers = [x for x in (a.target, p) if x in sit.out and x not in assigned
                      and not plays_after(x, k) and max(chosen(x), default=-1) <= k]
            if len(losers) == 2 and all(_hand_kept(sit, turns, x, k) for x in losers):
                # Both out, neither played again: each discard is the hand compared, and
                # the lower number lost (R10); equal numbers tie, and a tie is no hit.
                if number(p) == number(a.target):
                    raise SituationError(f"{name}, but seats {a.target} and {p} went out "
                                         "with the same number: that compare was a tie, "
                                         "which knocks out nobody (R10)")
                losers = [min(losers, key=number)]
            if len(losers) != 1:
                raise SituationError(
                    f"{name}, but " + ("neither seat is out for it: the loser of the compare "
                                       "must be out and play no more (R3)" if not losers else
                                       "both seats are out and neither played again, and a "
                                       "trade or a Boba Fett since changed a hand, so the "
                                       "summary cannot say which lost: give the round's "
                                       "log instead (--log)"))
            loser = losers[0]
        elif a.target not in sit.out:
            raise SituationError(f"{name}, but seat {a.target} is not out")
        else:
            loser = a.target
        outs.setdefault(k, []).append(loser)
        assigned.add(loser)

    def window(q):
        """The words for the turns in which q went out."""
        own = [k for k, (p, i) in enumerate(turns) if p == q and i is not None]
        end = next((k for k, (p, i) in enumerate(turns) if p == q and i is None),
                   len(turns))
        return (f"between their last turn and {'now' if end == len(turns) else 'their next'}"
                if own else "before their first turn")

    def candidates(q, outs):
        """The plays that could have knocked out q, the other knock-outs being `outs`."""
        own = [k for k, (p, i) in enumerate(turns) if p == q and i is not None]
        start = max(own[-1] if own else 0, max(chosen(q), default=0))
        end = next((k for k, (p, i) in enumerate(turns) if p == q and i is None),
                   len(turns))
        discard = sit.areas[q][-1].card
        found = []
        for k in range(start, end):
            p, i = turns[k]
            if i is None:
                continue
            a = sit.areas[p][i]
            if k in outs and effect(a.card, sit) != Effect.ELIMINATE_LOWEST:
                continue  # a play knocks out one player, a Rancor several
            if _could_knock_out(a, p, q, discard, sit):
                found.append(k)
        named_back = [k for k in found if turns[k][0] == q and _hand_kept(sit, turns, q, k)
                      and effect(sit.areas[q][turns[k][1]].card, sit) == Effect.GUESS_COUNTER
                      and len(sit.areas[q][turns[k][1]].named) > 1]
        if named_back:  # R6: their own C-3PO's miss named their card's number back: out then
            return named_back
        marked = [k for k in found if sit.areas[turns[k][0]][turns[k][1]].hit and effect(
            sit.areas[turns[k][0]][turns[k][1]].card, sit) == Effect.ELIMINATE_LOWEST]
        return marked or found  # 'rancor:hit': it knocked out those it could have

    def idle_rancor(outs):
        """A Rancor marked ':hit' at which nobody went out (R7: it knocked somebody out)."""
        return next(((p, i) for k, (p, i) in enumerate(turns) if i is not None
                     and sit.areas[p][i].hit and k not in outs
                     and effect(sit.areas[p][i].card, sit) == Effect.ELIMINATE_LOWEST), None)

    # Each out seat not placed by a mark, in seat order, at each play that could have
    # knocked them out given the seats placed before: every explanation the rules leave.
    rest = sorted(sit.out - assigned)
    found: list[dict[int, list[int]]] = []
    options: dict[int, set[int]] = {q: set() for q in rest}  # every play seen per seat
    stuck: list[int] = []  # seats left no play, as the others were placed
    idle: list[tuple[int, int]] = []  # marked Rancors left without a knock-out
    count = 0

    def place(j, outs):
        nonlocal count
        if count > _COUNT_UP_TO:
            return
        if j == len(rest):
            if idle_rancor(outs) is not None:
                idle.append(idle_rancor(outs))
                return
            count += 1
            if count <= most:
                found.append(outs)
            return
        q = rest[j]
        ks = candidates(q, outs)
        options[q].update(ks)
        if not ks:
            stuck.append(q)
        for k in ks:
            place(j + 1, {**outs, k: outs.get(k, []) + [q]})

    place(0, outs)
    if not count and stuck:
        q = stuck[0]
        # The summary's words for a knock-out differ per rule set (a classic Prince or
        # Princess needs the round's log).
        could = ("a Guard, C-3PO, Mercenary, Chewbacca, Luke Skywalker, Jabba the Hutt "
                 "choosing them, or a Rancor" if sit.rules is JABBAS_PALACE else
                 "a Guard or a Baron choosing them; for a Prince or the Princess give the "
                 "round's log")
        raise SituationError(f"seat {q} is out, but no play {window(q)} could have knocked "
                             f"them out ({could})")
    if not count:
        p, i = idle[0]
        raise SituationError(f"seat {p}'s {sit.names([sit.areas[p][i].card])} is marked "
                             "':hit', but nobody who is out went out to it (R7: the lowest "
                             "non-0 hand goes out); leave ':hit' off or mark who is out")
    if count > most:
        many = f"more than {_COUNT_UP_TO:,}" if count > _COUNT_UP_TO else f"{count}"
        said = "; ".join(
            f"seat {q} is out and {len(options[q])} plays {window(q)} could have done it: "
            + ", ".join(f"{_play(sit, turns, k)} as {_mark(sit, turns, k, q)}"
                        for k in sorted(options[q]))
            for q in rest if len(options[q]) > 1)
        raise SituationError(
            f"the summary leaves {many} explanations of which play knocked out whom (at "
            f"most {most} are weighed): mark the one that did, in its player's area (each "
            f"mark leaves fewer): {said}")
    return found


def _play(sit: Situation, turns, k: int) -> str:
    """Turn k's play in words: "seat 2's Mercenary"."""
    p, i = turns[k]
    return f"seat {p}'s {sit.names([sit.areas[p][i].card])}"


def _mark(sit: Situation, turns, k: int, q: int) -> str:
    """How to mark turn k's play as the one that knocked out seat q: ':hit' on a play at
    them or on their own Mercenary (R10), their card's number named back on their own
    C-3PO (R6), ':hit' on a Rancor, which chooses nobody (R7)."""
    p, i = turns[k]
    a = sit.areas[p][i]
    alias, e = sit.rules.characters[a.card].aliases[0], effect(a.card, sit)
    seat = "SEAT" if a.target is None else a.target
    if e == Effect.ELIMINATE_LOWEST:
        return f"'{alias}:hit'"
    if p != q:
        return f"'{alias}@{q}:hit'"
    if e == Effect.GUESS_COUNTER:
        named = a.named[0] if a.named else "N"
        number = sit.rules.characters[sit.areas[q][-1].card].number
        return f"'{alias}@{seat}:{named}:{number}' (their card's number named back)"
    return f"'{alias}@{seat}:hit' (SEAT: the seat compared with)" if a.target is None else \
        f"'{alias}@{seat}:hit'"


def _hand_kept(sit: Situation, turns, q: int, k: int) -> bool:
    """Does seat q keep the hand they held at turn k until their next turn or now: no
    Lando trade, King trade or Prince may have reached them, no Boba Fett took it?"""
    for p, i in turns[k + 1:]:
        if p == q:
            return True
        if i is None:
            continue
        a = sit.areas[p][i]
        e = effect(a.card, sit)
        took = sit.areas[p][i + 1] if i + 1 < len(sit.areas[p]) else None
        if (e == Effect.LOOK_MAY_TRADE and a.traded or e in (
                Effect.TRADE_HANDS, Effect.DISCARD_REDRAW)) and a.target in (q, None) or (
                e == Effect.STEAL_HAND and took is not None and took.victim == q):
            return False
    return True


def timeline(sit: Situation):
    """Turns in order: (seat, index of the play in their area list, or None where an out
    player's turn would be) until my turn."""
    n, me = sit.players, sit.seat
    plays = [[i for i, a in enumerate(sit.areas[p]) if a.how == "played"] for p in range(n)]
    turns = []
    cycle = 0
    while True:
        for p in range(n):
            if p == me and cycle == len(plays[me]):
                return turns
            if cycle < len(plays[p]):
                turns.append((p, plays[p][cycle]))
            elif p in sit.out and cycle == len(plays[p]):
                turns.append((p, None))  # out by now: their discard goes here
        cycle += 1


@dataclasses.dataclass(frozen=True)
class Seats:
    """Who could be chosen at one play (R4: in the round, not protected, not the player)
    and who went out at it."""

    choosable: tuple[int, ...]
    gone: tuple[int, ...]


def seats(sit: Situation, turns, outs: dict[int, list[int]] | None) -> list[Seats]:
    """Per turn of `turns`, who could be chosen and who went out (`outs`, from
    `knockouts`). Without `outs` (a knock-out the summary leaves unplaced) a seat counts
    as in until its out slot: more seats than could be chosen, never fewer."""
    protect = next(c.id for c in sit.rules.characters if c.effect == Effect.PROTECT)
    in_round, protected = set(range(sit.players)), set()
    out = []
    for k, (p, i) in enumerate(turns):
        if i is None:
            gone = () if outs is not None else (p,)
            out.append(Seats((), gone))
        else:
            protected.discard(p)  # R13: protection ends at the start of one's own turn
            out.append(Seats(tuple(sorted(q for q in in_round if q != p
                                          and q not in protected)),
                             tuple(sorted(outs.get(k, ()))) if outs is not None else ()))
            if sit.areas[p][i].card == protect:
                protected.add(p)
        in_round.difference_update(out[-1].gone)
        protected.difference_update(out[-1].gone)
    return out


UNNAMED = -1  # a card the player knows there that the summary does not name


@dataclasses.dataclass
class Known:
    """What `viewer` may know of each hand when the summary ends (`knowledge`).

    `hands[q]`: the cases of what the viewer's tracker (solver/policies/knowledge.py)
    holds for seat q, each a sorted tuple of cards (UNNAMED: a card the summary does not
    name; () nothing known). `shown[q]`: the plays that may have shown a card of q's;
    `stale[q]`: why such knowledge was forgotten since, if it was. `returned`: the cards
    each of the viewer's Leia plays returned (R9); `bottom_draws`: (seat, index in the
    viewer's returned cards, turn or None for my draw now) for each of them drawn;
    `queued`: the indices still in the deck."""

    viewer: int
    hands: list[set[tuple[int, ...]]]
    shown: list[list[str]]
    stale: list[str | None]
    returned: list[int]
    bottom_draws: list[tuple[int, int, int | None]]
    queued: list[int]

    def may_know(self, q: int, c: int, cards: int = 1) -> bool:
        """May the viewer know that seat q, holding `cards` cards, has card c?"""
        return any(0 < len(s) <= cards and (c in s or UNNAMED in s) for s in self.hands[q])

    def named(self, q: int) -> list[int]:
        """The cards the viewer may know in q's one-card hand that the summary names."""
        return sorted({s[0] for s in self.hands[q] if len(s) == 1 and s[0] != UNNAMED})


def _lose(cases: set, c: int) -> set:
    """The tracker's `_lose`: a copy of c played or discarded from the hand forgets a
    known c, or an unnamed known card if it was c (R2: nobody sees which copy was kept)."""
    out = set()
    for s in cases:
        if c in s or UNNAMED in s:
            k = list(s)
            k.remove(c if c in s else UNNAMED)
            out.add(tuple(k))
        if c not in s:
            out.add(s)
    return out


def knowledge(sit: Situation, viewer: int, turns, table: list[Seats], deck: int,
              fixed: dict[int, int] | None = None) -> Known:
    """Replay the summary's turns for `viewer` as solver/policies/knowledge.py replays a
    log (module docstring): `deck` is the deck's size after the deal, `table` from
    `seats`, `fixed` targets to use for some turns' unsaid ones (turn index -> seat or
    SET_ASIDE). A target not said is every seat that could be chosen, each a case."""
    n, chars = sit.players, sit.rules.characters
    jabba = sit.rules is JABBAS_PALACE
    hands = [{()} for _ in range(n)]
    shown = [[] for _ in range(n)]
    stale: list[str | None] = [None] * n
    queue: list[int | None] = []  # returned cards in draw order: the viewer's index, or None
    returned, bottom_draws = [], []
    leia = sit.names([c.id for c in chars if c.effect == Effect.DRAW_KEEP_RETURN])
    me = sit.seat

    def who(x):  # the words of the summary's player (me)
        return "you" if x == me else f"seat {x}"

    def whose(x):
        return "your" if x == me else f"seat {x}'s"

    def has(x):
        return f"{who(x)} {'have' if x == me else 'has'}"

    def forget(x, why, new=None):
        new = {()} if new is None else new
        if x != viewer and any(hands[x]) and not any(new):
            stale[x] = why
        hands[x] = new

    def returned_card(j):
        """The viewer's j-th returned card as the summary names it (mine: `bottom`)."""
        return sit.bottom[j] if viewer == me and j < len(sit.bottom) else UNNAMED

    def draw(x, k):
        nonlocal deck
        if deck > 0:
            deck -= 1
            return
        if not queue:  # the set-aside card, on an empty deck: the round ends (R8, R11)
            return
        j = queue.pop(0)  # R9: the returned cards come last, in their order
        if j is None:
            return
        bottom_draws.append((x, j, k))
        if x != viewer:  # the tracker's `_draw` from the bottom: a card the viewer put there
            c = returned_card(j)
            hands[x] = {tuple(sorted(s + (c,))) for s in hands[x]}
            card = sit.names([c]) if c != UNNAMED else "card"
            shown[x].append(f"the {card} {who(viewer)} returned with {leia}, drawn by {who(x)} "
                            "from the bottom")

    def know(x, c, how):
        if x != viewer:
            hands[x] = {(UNNAMED if c is None else c,)}
            shown[x].append(how)

    def trade(p, t, gave, got, how):
        """The tracker's `_trade`: p gave `gave` to t and got `got` (cards as the summary
        says them; both seen only by the two, R10)."""
        if viewer == p:
            know(t, gave, how)
        elif viewer == t:
            know(p, got, how)
        else:  # two hands swap places: what was known moves with them
            for x, y in ((p, t), (t, p)):
                if any(hands[x]) and not any(hands[y]):
                    stale[x] = (f"{who(p)} traded hands with {who(t)} since: the card "
                                f"known is {whose(y)} now (R10)")
            hands[p], hands[t] = hands[t], hands[p]

    def resolve(k, p, i, t):
        """Seat p's play (area index i) at seat t (a seat, or SET_ASIDE)."""
        a = sit.areas[p][i]
        e, name = effect(a.card, sit), sit.names([a.card])
        if t == SET_ASIDE:
            return
        if e in (Effect.PEEK, Effect.PEEK_OR_SET_ASIDE, Effect.LOOK_MAY_TRADE) and p == viewer:
            know(t, a.seen, f"{whose(p)} {name} at {who(t)}")
        elif e == Effect.COMPARE and viewer in (p, t):
            if p == viewer:
                know(t, a.seen, f"{whose(p)} {name} at {who(t)}")
            else:
                know(p, a.shown, f"{whose(p)} {name} at {who(t)}")
        if e == Effect.LOOK_MAY_TRADE and a.traded or e == Effect.TRADE_HANDS:
            trade(p, t, a.shown, a.seen, f"the {name} trade between {who(p)} and {who(t)}")
        elif e == Effect.STEAL_HAND:
            forget(t, f"{whose(p)} {name} took {whose(t)} hand since (R8)")
            draw(t, k)  # their new hand

    for k, (p, i) in enumerate(turns):
        seen = table[k]
        if i is None:
            for q in seen.gone:
                forget(q, f"{who(q)} went out")
            continue
        draw(p, k)
        a = sit.areas[p][i]
        e, name = effect(a.card, sit), sit.names([a.card])
        if p != viewer:
            forget(p, f"{has(p)} played a {name} since: nobody sees whether it was the "
                      f"card known or the one drawn ({'R2' if jabba else 'docs/RULES.md C1'})",
                   _lose(hands[p], a.card))
        if e == Effect.DRAW_KEEP_RETURN:
            drawn = min(2, deck + len(queue))
            for _ in range(drawn):
                draw(p, k)
            if p != viewer:
                forget(p, f"{who(p)} kept one card of three with {name} since "
                          f"({'R9' if jabba else 'docs/RULES.md C11'})")
            start = sum(returned)
            if p == viewer:
                returned.append(drawn)
            queue.extend(range(start, start + drawn) if p == viewer else [None] * drawn)
        elif e in TARGETED_EFFECTS:
            t = fixed.get(k, a.target) if fixed else a.target
            if e == Effect.STEAL_HAND:
                took = sit.areas[p][i + 1] if i + 1 < len(sit.areas[p]) else None
                t = took.victim if took is not None and took.how == "took" else t
            if t is not None:
                resolve(k, p, i, t)
            else:  # every seat it could have chosen, each a case (R2-D2: or no seat)
                before, cases = [set(h) for h in hands], []
                options = list(seen.choosable) or [SET_ASIDE]
                if e == Effect.PEEK_OR_SET_ASIDE:
                    options.append(SET_ASIDE)
                for t in options:
                    hands[:] = [set(h) for h in before]
                    resolve(k, p, i, t)
                    cases.append(hands[:])
                hands[:] = [set().union(*(c[x] for c in cases)) for x in range(n)]
        for q in seen.gone:
            forget(q, f"{who(q)} went out")
        for x in range(n):  # between turns every hand holds one card
            if x != viewer:
                hands[x] = {s for s in hands[x] if len(s) <= 1} or {()}
    draw(me, None)  # my turn's draw
    return Known(viewer, hands, shown, stale, returned, bottom_draws,
                 [j for j in queue if j is not None])
