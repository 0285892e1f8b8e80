"""The summary of a Situation checked against the rules (docs/RULES.md)."""

from __future__ import annotations

import dataclasses
from collections import Counter

from spiel_game.cards import CHARACTERS, JABBAS_PALACE, Effect

from solver.hint.situation import (BOBA_FETT, R2_D2, SET_ASIDE, Situation, SituationError,
                                   card_with, plays)
from solver.hint.turns import Known, knockouts, knowledge, seats, timeline

LANDO = card_with(Effect.LOOK_MAY_TRADE)
MERCENARY = card_with(Effect.COMPARE)


def _with_discards(areas: tuple, out) -> tuple:
    """The areas with each out player's last card marked as the hand they discarded (R3)."""
    areas = list(areas)
    for p in out:
        area = list(areas[p])
        if not area:
            raise SituationError(f"seat {p} is out but has no card in their play area: "
                                 "an out player's discarded hand lies there (R3)")
        area[-1] = dataclasses.replace(area[-1], how="discarded")
        areas[p] = tuple(area)
    return tuple(areas)


_LOOK_EFFECTS = (Effect.PEEK, Effect.PEEK_OR_SET_ASIDE, Effect.LOOK_MAY_TRADE,
                 Effect.COMPARE)
# Classic plays a summary cannot say yet (what the Prince's target discarded, the King's
# trade, the Princess's discard): the round's log says them.
_LOG_ONLY_EFFECTS = (Effect.DISCARD_REDRAW, Effect.TRADE_HANDS)


def _look_cards(sit: Situation) -> list[int]:
    return [c.id for c in sit.rules.characters if c.effect in _LOOK_EFFECTS]


def _look_names(sit: Situation) -> str:
    """The look cards, as a message lists them ('Priest or Baron')."""
    names = [sit.rules.characters[c].name for c in _look_cards(sit)]
    return ", ".join(names[:-1]) + " or " + names[-1]


def _check_cards_seen(sit: Situation, a, p: int, me: int) -> None:
    """A card after ':' says what a look, compare or trade showed: only on such plays,
    a second card only where the chosen seat saw or got one, and only where the player
    knows it: the play is theirs or at them (R10)."""
    if a.seen is None and a.shown is None:
        return
    c = sit.rules.characters[a.card]
    name = f"seat {p}'s {c.name}"
    if a.card not in _look_cards(sit):
        raise SituationError(f"{name}: a card after ':' is what a look showed, but "
                             f"{c.name} shows no card; only {_look_names(sit)} do")
    if a.shown is not None and not (c.effect == Effect.COMPARE or
                                    c.effect == Effect.LOOK_MAY_TRADE and a.traded):
        compare = sit.names([card_with(Effect.COMPARE, sit.rules)])
        trade = card_with(Effect.LOOK_MAY_TRADE, sit.rules)  # Lando's look and trade
        raise SituationError(f"{name}: a second card after ':' is what the chosen seat saw "
                             + (f"({compare}) or got ({sit.names([trade])}, with ':traded')"
                                if trade is not None else f"(a {compare}'s compare)"))
    if a.target == SET_ASIDE:
        raise SituationError(f"{name} looked at the set-aside card: say the card you saw "
                             "as set_aside, not after ':'")
    if p != me and a.target != me:
        where = "a seat not said" if a.target is None else f"seat {a.target}"
        raise SituationError(
            f"{name} at {where}: you cannot know what a look between other players showed "
            f"(R10); a card after ':' is for your own look or one at you, e.g. "
            f"'{c.aliases[0]}@{me}:CARD'")


def _check_classic_summary(sit: Situation) -> None:
    """What a classic summary cannot say yet: a play whose effect moves cards the summary
    has no words for (the Prince's discard, the King's trade), the Princess in a play
    area, a card taken (Boba Fett is Jabba's Palace's). The round's log says them all."""
    chars = sit.rules.characters
    for p, area in enumerate(sit.areas):
        for a in area:
            c = chars[a.card]
            if a.how == "took":
                raise SituationError(f"areas[{p}]: 'took:' marks a card taken with Boba Fett, "
                                     "a card of Jabba's Palace, not of classic Love Letter")
            if c.effect in _LOG_ONLY_EFFECTS or c.out_if_discarded:
                raise SituationError(
                    f"areas[{p}]: a {c.name} in a play area is not said by a summary of "
                    "classic Love Letter (what it made a player discard or trade); give "
                    "the round's event log instead (--log, docs/hint.md), e.g. from "
                    "`jabba play --game love_letter --viewer N`")


def check(sit: Situation, deck_counts: tuple[int, ...], face_up_count: int) -> Situation:
    """The summary checked against the rules (SituationError for anything they do not
    allow), as a new Situation: a play area per seat, out players' last cards marked
    discarded (R3). The caller's Situation is left as it was."""
    n, me = sit.players, sit.seat
    rules, chars = sit.rules, sit.rules.characters
    # The summary's words and what it can say differ per rule set (Boba Fett's took:,
    # Lando's trade; the classic cards only a log says), as do the rulings they cite.
    jabba = rules is JABBAS_PALACE
    protect = card_with(Effect.PROTECT, rules)
    keep_return = card_with(Effect.DRAW_KEEP_RETURN, rules)
    if len(sit.areas) > n:
        raise SituationError(f"areas: {len(sit.areas)} play areas for {n} players")
    if any(p >= n for p in sit.out):
        raise SituationError(f"out: seats are 0 to {n - 1}")
    areas = tuple(sit.areas) + ((),) * (n - len(sit.areas))
    sit = dataclasses.replace(sit, areas=_with_discards(areas, sit.out))
    if len(sit.hand) != 2:
        raise SituationError(f"hand has {len(sit.hand)} card(s); on your turn you hold 2 "
                             "(the card you kept and the one you just drew)")
    if me in sit.out:
        raise SituationError(f"seat {me} (you) is out: an out player has no decision")
    if me in sit.protected:
        raise SituationError(f"seat {me} (you) is protected, but protection ends at the "
                             "start of your own turn (R13)")
    both = sit.out & sit.protected
    if both:
        raise SituationError(f"seat(s) {sorted(both)} are both out and protected; going out "
                             "ends protection")
    if len(sit.face_up) != face_up_count:
        raise SituationError(f"{len(sit.face_up)} face-up card(s) given; with {n} players "
                             f"the rules set aside {face_up_count} face up (R1)")
    if n - len(sit.out) < 2:
        raise SituationError("fewer than 2 players are in: the round is already over")
    if not jabba:
        _check_classic_summary(sit)
    for p in sit.protected:
        played = plays(sit.areas[p])
        if not played or played[-1].card != protect:
            raise SituationError(f"seat {p} is protected, but their last played card is "
                                 f"{chars[played[-1].card].name if played else 'none'}"
                                 f"; only {chars[protect].name} protects "
                                 f"({'R13' if jabba else 'docs/RULES.md C4'})")
    # Turn order: seats before mine have had one more turn this time round than I have.
    mine = len(plays(sit.areas[me]))
    for p in range(n):
        expected = mine + 1 if p < me else mine
        count = len(plays(sit.areas[p]))
        if p in sit.out and count <= expected or p not in sit.out and count == expected:
            continue
        raise SituationError(
            f"seat {p} has played {count} card(s) and you (seat {me}) {mine}; in turn order "
            f"seat {p} should have played {expected}"
            + (" or fewer (out)" if p in sit.out else "")
            + (". List play areas in the order played, with cards taken by Boba Fett as "
               "'took:<card>'" if jabba else ". List play areas in the order played"))
    for p in range(n):
        area = sit.areas[p]
        for i, a in enumerate(area):
            if a.how == "took" and (i == 0 or area[i - 1].card != BOBA_FETT
                                    or area[i - 1].how != "played"):
                raise SituationError(f"seat {p} took {CHARACTERS[a.card].name}, but not "
                                     "right after playing Boba Fett (R8)")
            if a.how == "took" and a.victim == p:
                raise SituationError(f"seat {p} cannot take their own card with Boba Fett")
    for p in range(n):
        for a in plays(sit.areas[p]):
            _check_cards_seen(sit, a, p, me)
    if sit.bottom and not any(a.card == keep_return for a in plays(sit.areas[me])):
        raise SituationError(f"you put cards on the bottom, but only {chars[keep_return].name} "
                             f"does that and you have not played {'her' if jabba else 'one'}")
    known = _check_knowledge(sit, deck_counts, face_up_count)
    if sit.set_aside is not None and not jabba:
        raise SituationError("set_aside: no classic Love Letter card shows the face-down "
                             "set-aside card")
    if sit.set_aside is not None and not any(
            a.card == R2_D2 and a.target in (None, SET_ASIDE) for a in plays(sit.areas[me])):
        raise SituationError("you saw the set-aside card, but only R2-D2 shows it and you "
                             "have not played R2-D2")
    # Card counts: every card I can place.
    # My returned cards count where they are now: in the deck, or in a hand or play area.
    placed = Counter(sit.hand) + Counter(sit.face_up) + Counter(
        sit.bottom[j] for j in known.queued if j < len(sit.bottom))
    for area in sit.areas:
        placed.update(a.card for a in area)
    placed.update(sit.saw.values())
    if sit.set_aside is not None:
        placed[sit.set_aside] += 1
    for c, k in placed.items():
        if k > deck_counts[c]:
            raise SituationError(f"{k} copies of {chars[c].name} are placed (hand, "
                                 "face-up, play areas, known cards), but the deck has "
                                 f"{deck_counts[c]}")
    return sit


def _rulings(sit: Situation, jabba: str, classic: str) -> str:
    return jabba if sit.rules is JABBAS_PALACE else f"docs/RULES.md {classic}"


def _check_knowledge(sit: Situation, deck_counts, face_up_count: int) -> Known:
    """`saw`, `seen_by` and `bottom` against what the turns can show (turns.py
    `knowledge`, the engine's own tracker replayed on the summary): a look, a compare,
    a trade, or a draw of a card returned with Leia (R9, R10), not forgotten since.
    My knowledge (`Known`) is returned for the card counts."""
    me, chars = sit.seat, sit.rules.characters
    turns = timeline(sit)
    try:
        explanations = knockouts(sit, turns)
    except SituationError:  # refused where the summary becomes a log; here: seats may be in
        explanations = []
    # Several explanations of who went out when (each answered, log.py): here a seat
    # counts as in until its out slot, so every explanation's knowledge is allowed.
    outs = explanations[0] if len(explanations) == 1 else None
    table = seats(sit, turns, outs)
    deck = sum(deck_counts) - face_up_count - 1 - sit.players
    mine = knowledge(sit, me, turns, table, deck)
    leia = chars[card_with(Effect.DRAW_KEEP_RETURN, sit.rules)].name
    if sit.bottom and len(sit.bottom) != sum(mine.returned):
        counts = " and ".join(str(r) for r in mine.returned)
        raise SituationError(
            f"bottom: {len(sit.bottom)} card(s) given, but your {leia} returned {counts} "
            f"({_rulings(sit, 'R9', 'C11')}: 2, or 1 when the deck held 1): give every card "
            "you returned, drawn since or not, the first drawn first, e.g. --bottom "
            f"{','.join([chars[c].aliases[0] for c in sit.bottom[:1]] + ['CARD'])}")
    for q, j, k in mine.bottom_draws:
        if q == me and k is None and j < len(sit.bottom) and sit.bottom[j] not in sit.hand:
            raise SituationError(
                f"bottom: you drew your returned {chars[sit.bottom[j]].name} back this turn "
                f"(the deck above it is drawn; {_rulings(sit, 'R9', 'C11')}), but your hand "
                f"is {sit.names(sit.hand)}: list bottom in the order the cards are drawn")
    for q, c in sit.saw.items():
        if q == me or q in sit.out:
            raise SituationError(f"saw: seat {q} has no hand you can know (it is you or out)")
        if not mine.may_know(q, c):
            raise SituationError(_unexplained(sit, mine, q, c))
    for q, c in sit.seen_by.items():
        if q == me:
            raise SituationError("seen_by: name another seat")
        if c not in sit.hand:
            raise SituationError(f"seen_by: seat {q} saw your {chars[c].name}, but it "
                                 "is not in your hand")
        theirs = knowledge(sit, q, turns, table, deck)
        if not theirs.may_know(me, c, 2):
            raise SituationError(_unexplained(sit, theirs, me, c))
    return mine


def _unexplained(sit: Situation, known: Known, q: int, c: int) -> str:
    """Why `known.viewer` cannot know card c in seat q's hand (`saw`, or `seen_by` where
    q is me), and what the rules would let them know."""
    me, v = sit.seat, known.viewer
    chars = sit.rules.characters
    field = "saw" if v == me else "seen_by"
    who = "you know" if v == me else f"seat {v} knows"
    whose = f"seat {q}'s" if v == me else "your"
    rulings = _rulings(sit, "R2, R9, R10", "C1, C11, C12")
    named = known.named(q) if v == me else sorted(
        {x for s in known.hands[q] for x in s if x >= 0})
    shown = "; ".join(dict.fromkeys(known.shown[q]))
    if named:
        return (f"{field}: {who} {whose} {chars[c].name}, but what showed {whose} card "
                f"({shown}) says {sit.names(named)} ({rulings}); give that card, or "
                "leave it out")
    if known.stale[q]:
        return (f"{field}: {who} {whose} card, but that is no longer known: {shown} "
                f"showed it, then {known.stale[q]}; leave it out")
    looks = _look_names(sit)
    compare = sit.names([card_with(Effect.COMPARE, sit.rules)])
    lando = card_with(Effect.LOOK_MAY_TRADE, sit.rules)
    trade = f", no {chars[lando].name} trade was between you" if lando is not None else ""
    leia = sit.names([card_with(Effect.DRAW_KEEP_RETURN, sit.rules)])
    if v == me:
        return (f"saw: you know seat {q}'s card, but no play explains it: you have played "
                f"no {looks} at seat {q}, seat {q} no {compare} at you{trade}, and seat {q} "
                f"has drawn none of the cards you returned with {leia} ({rulings})")
    return (f"seen_by: seat {v} knows your card, but no play explains it: seat {v} has "
            f"played no {looks} at you, you no {compare} at them{trade}, and you have drawn "
            f"none of the cards seat {v} returned with {leia} ({rulings})")
