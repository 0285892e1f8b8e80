"""The summary of a Situation checked against the rules (docs/RULES.md)."""

from __future__ import annotations

import dataclasses
from collections import Counter

from spiel_game.cards import CHARACTERS

from solver.hint.situation import (BIB_FORTUNA, BOBA_FETT, LEIA, R2_D2, Situation,
                                   SituationError, plays)


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


def check(sit: Situation, deck_counts: tuple[int, ...], face_up_count: int) -> Situation:
    """The summary checked against the rules (SituationError for anything they do not
    allow), as a new Situation: a play area per seat, out players' last cards marked
    discarded (R3). The caller's Situation is left as it was."""
    n, me = sit.players, sit.seat
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
    for p in sit.protected:
        played = plays(sit.areas[p])
        if not played or played[-1].card != BIB_FORTUNA:
            raise SituationError(f"seat {p} is protected, but their last played card is "
                                 f"{CHARACTERS[played[-1].card].name if played else 'none'}"
                                 "; only Bib Fortuna protects (R13)")
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
            + ". List play areas in the order played, with cards taken by Boba Fett as "
            "'took:<card>'")
    for p in range(n):
        area = sit.areas[p]
        for i, a in enumerate(area):
            if a.how == "took" and (i == 0 or area[i - 1].card != BOBA_FETT
                                    or area[i - 1].how != "played"):
                raise SituationError(f"seat {p} took {CHARACTERS[a.card].name}, but not "
                                     "right after playing Boba Fett (R8)")
            if a.how == "took" and a.victim == p:
                raise SituationError(f"seat {p} cannot take their own card with Boba Fett")
    for q in sit.saw:
        if q == me or q in sit.out:
            raise SituationError(f"saw: seat {q} has no hand you can know (it is you or out)")
    for q, c in sit.seen_by.items():
        if q == me:
            raise SituationError("seen_by: name another seat")
        if c not in sit.hand:
            raise SituationError(f"seen_by: seat {q} saw your {CHARACTERS[c].name}, but it "
                                 "is not in your hand")
    if sit.set_aside is not None and not any(
            a.card == R2_D2 for a in plays(sit.areas[me])):
        raise SituationError("you saw the set-aside card, but only R2-D2 shows it and you "
                             "have not played R2-D2")
    if sit.bottom and not any(a.card == LEIA for a in plays(sit.areas[me])):
        raise SituationError("you put cards on the bottom, but only Leia Organa does that "
                             "and you have not played her")
    my_leia = sum(a.card == LEIA for a in plays(sit.areas[me]))
    if len(sit.bottom) > 2 * my_leia:
        raise SituationError(f"{len(sit.bottom)} bottom card(s) from {my_leia} Leia play(s); "
                             "each returns at most 2 (R9)")
    # Card counts: every card I can place.
    placed = Counter(sit.hand) + Counter(sit.face_up) + Counter(sit.bottom)
    for area in sit.areas:
        placed.update(a.card for a in area)
    placed.update(sit.saw.values())
    if sit.set_aside is not None:
        placed[sit.set_aside] += 1
    for c, k in placed.items():
        if k > deck_counts[c]:
            raise SituationError(f"{k} copies of {CHARACTERS[c].name} are placed (hand, "
                                 "face-up, play areas, known cards), but the deck has "
                                 f"{deck_counts[c]}")
    return sit
