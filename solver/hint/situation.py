"""A round as a player describes it, checked against the rules, and the worlds it allows.

A `Situation` is what one player (`seat`) knows at the start of their play decision:
the summary (hand, face-up cards, play areas, who is out or protected, private
knowledge) and optionally the round's event log as that player saw it. `worlds()` turns
it into concrete engine states (the hidden cards filled in) with weights:

- from a log: the round is replayed through the engine, every hidden card and hidden
  choice tried (`_LogReplay`); the worlds left are exactly those that give this log, so
  they share the player's information state. Weights: the chance odds times the
  policy's probability of each opponent decision (Bayes), when a policy is given.
- from a summary: an engine state is written directly, with a log made up of the
  summary's facts (draws, plays, steals, outs, looks), and each world deals the
  opponents' unknown cards from the unseen ones (card counting; equal weights).

Anything impossible raises `SituationError` naming the problem.
"""

from __future__ import annotations

import dataclasses
import re
from collections import Counter

import numpy as np

from spiel_game import engine
from spiel_game import layout as L
from spiel_game.cards import AGENDA_NAMES, CHARACTERS, Effect, character_id
from spiel_game.events import HIDDEN, Event, describe, redact

BIB_FORTUNA = next(c.id for c in CHARACTERS if c.effect == Effect.PROTECT)
BOBA_FETT = next(c.id for c in CHARACTERS if c.effect == Effect.STEAL_HAND)
LEIA = next(c.id for c in CHARACTERS if c.effect == Effect.DRAW_KEEP_RETURN)
R2_D2 = next(c.id for c in CHARACTERS if c.effect == Effect.PEEK_OR_SET_ASIDE)


class SituationError(ValueError):
    """A situation that cannot happen under the rules, or that cannot be read."""


def card(name) -> int:
    """Character id from a name in any usual form; SituationError with suggestions."""
    try:
        return character_id(str(name))
    except ValueError as err:
        raise SituationError(str(err)) from None


@dataclasses.dataclass(frozen=True)
class AreaCard:
    """One card in a play area: played by its owner, taken with Boba Fett, or discarded
    when the owner went out."""

    card: int
    how: str = "played"  # "played", "took" or "discarded"
    victim: int | None = None  # for "took": whose hand it was


@dataclasses.dataclass
class Situation:
    players: int
    agenda: str
    seat: int
    hand: tuple[int, ...]
    face_up: tuple[int, ...] = ()
    areas: tuple[tuple[AreaCard, ...], ...] = ()
    out: frozenset[int] = frozenset()
    protected: frozenset[int] = frozenset()
    saw: dict[int, int] = dataclasses.field(default_factory=dict)  # seat -> their card
    seen_by: dict[int, int] = dataclasses.field(default_factory=dict)  # seat -> my card
    set_aside: int | None = None  # the face-down card, if I saw it (R2-D2)
    bottom: tuple[int, ...] = ()  # cards I returned with Leia, in draw order
    deck: int | None = None  # cards left to draw, if the player counted them
    log: tuple[str, ...] | None = None
    utility: str = "margin"

    def game_params(self) -> dict:
        return {"players": self.players, "agenda": self.agenda, "utility": self.utility}


# Reading ---------------------------------------------------------------------------------

_KEYS = {"players", "agenda", "seat", "hand", "face_up", "areas", "out", "protected", "saw",
         "seen_by", "set_aside", "bottom", "deck", "log", "utility"}


def _cards(value, what: str) -> tuple[int, ...]:
    if value is None:
        return ()
    if isinstance(value, str):
        value = [v for v in re.split(r"[,\s]+", value.strip()) if v]
    if not isinstance(value, (list, tuple)):
        raise SituationError(f"{what}: expected a list of card names, got {value!r}")
    return tuple(card(v) for v in value)


def _seats(value, what: str, players: int) -> frozenset[int]:
    if value is None:
        return frozenset()
    if isinstance(value, (int, str)):
        value = [v for v in re.split(r"[,\s]+", str(value)) if v]
    seats = set()
    for v in value:
        seats.add(_seat(v, what, players))
    return frozenset(seats)


def _seat(value, what: str, players: int) -> int:
    text = str(value).strip().lower().lstrip("p")
    if not text.isdigit() or not 0 <= int(text) < players:
        raise SituationError(f"{what}: seat {value!r} is not a seat; seats are 0 to "
                             f"{players - 1} in turn order from the round's first player")
    return int(text)


def _area(items, players: int, owner: int) -> tuple[AreaCard, ...]:
    """Cards in play order; 'took:luke' or 'took:luke@2' marks a card taken with Boba
    Fett (from seat 2; with 2 players the other seat)."""
    if isinstance(items, str):
        items = [v for v in re.split(r"[,\s]+", items.strip()) if v]
    out = []
    for item in items or ():
        text = str(item).strip()
        if text.lower().startswith("took:"):
            name, _, victim = text[5:].partition("@")
            if victim:
                v = _seat(victim, f"areas[{owner}] {text!r}", players)
            elif players == 2:
                v = 1 - owner
            else:
                raise SituationError(f"areas[{owner}] {text!r}: with {players} players say "
                                     "whose card it was, e.g. 'took:luke@2'")
            out.append(AreaCard(card(name), "took", v))
        else:
            out.append(AreaCard(card(text)))
    return tuple(out)


def from_mapping(data: dict) -> Situation:
    """A Situation from a parsed TOML/JSON mapping (see the README for the fields)."""
    unknown = set(data) - _KEYS
    if unknown:
        raise SituationError(f"unknown field(s) {sorted(unknown)}; allowed: {sorted(_KEYS)}")
    for required in ("players", "seat", "hand"):
        if required not in data and not (required == "hand" and data.get("log")):
            raise SituationError(f"missing field {required!r}")
    players = data["players"]
    if not isinstance(players, int) or not 2 <= players <= L.MAX_PLAYERS:
        raise SituationError(f"players={players!r}: must be a whole number from 2 to "
                             f"{L.MAX_PLAYERS}")
    agenda = data.get("agenda", "exalted_one")
    if agenda not in AGENDA_NAMES:
        raise SituationError(f"agenda={agenda!r}: allowed agendas are "
                             f"{', '.join(AGENDA_NAMES)}")
    seat = _seat(data["seat"], "seat", players)
    areas_in = data.get("areas") or {}
    if isinstance(areas_in, (list, tuple)):
        areas_in = dict(enumerate(areas_in))
    areas = [()] * players
    for key, items in areas_in.items():
        p = _seat(key, "areas", players)
        areas[p] = _area(items, players, p)

    def per_seat(field: str) -> dict[int, int]:
        value = data.get(field) or {}
        if not isinstance(value, dict):
            raise SituationError(f"{field}: expected a table seat = card, got {value!r}")
        return {_seat(k, field, players): card(v) for k, v in value.items()}

    set_aside = data.get("set_aside")
    deck = data.get("deck")
    if deck is not None and (not isinstance(deck, int) or deck < 0):
        raise SituationError(f"deck={deck!r}: must be a whole number of cards, 0 or more")
    log = data.get("log")
    if log is not None:
        if isinstance(log, str):
            log = [line for line in re.split(r"[;\n]", log) if line.strip()]
        log = tuple(str(line).strip() for line in log)
    return Situation(
        players=players, agenda=agenda, seat=seat, hand=_cards(data.get("hand"), "hand"),
        face_up=_cards(data.get("face_up"), "face_up"), areas=tuple(areas),
        out=_seats(data.get("out"), "out", players),
        protected=_seats(data.get("protected"), "protected", players),
        saw=per_seat("saw"), seen_by=per_seat("seen_by"),
        set_aside=None if set_aside is None else card(set_aside),
        bottom=_cards(data.get("bottom"), "bottom"), deck=deck, log=log,
        utility=data.get("utility", "margin"))


# Checking the summary ------------------------------------------------------------------

def _plays(area: tuple[AreaCard, ...]) -> list[AreaCard]:
    return [a for a in area if a.how == "played"]


def _mark_discards(sit: Situation) -> None:
    """An out player's last area card is the hand they discarded (R3)."""
    areas = list(sit.areas)
    for p in sit.out:
        area = list(areas[p])
        if not area:
            raise SituationError(f"seat {p} is out but has no card in their play area: "
                                 "an out player's discarded hand lies there (R3)")
        area[-1] = dataclasses.replace(area[-1], how="discarded")
        areas[p] = tuple(area)
    sit.areas = tuple(areas)


def check(sit: Situation, deck_counts: tuple[int, ...], face_up_count: int) -> None:
    """Raise SituationError for anything the rules do not allow in the summary."""
    n, me = sit.players, sit.seat
    if len(sit.areas) != n:
        sit.areas = tuple(sit.areas) + ((),) * (n - len(sit.areas))
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
        plays = _plays(sit.areas[p])
        if not plays or plays[-1].card != BIB_FORTUNA:
            raise SituationError(f"seat {p} is protected, but their last played card is "
                                 f"{CHARACTERS[plays[-1].card].name if plays else 'none'}"
                                 "; only Bib Fortuna protects (R13)")
    # Turn order: seats before mine have had one more turn this time round than I have.
    mine = len(_plays(sit.areas[me]))
    for p in range(n):
        expected = mine + 1 if p < me else mine
        count = len(_plays(sit.areas[p]))
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
    for q, c in sit.saw.items():
        if q == me or q in sit.out:
            raise SituationError(f"saw: seat {q} has no hand you can know (it is you or out)")
    for q, c in sit.seen_by.items():
        if q == me:
            raise SituationError("seen_by: name another seat")
        if c not in sit.hand:
            raise SituationError(f"seen_by: seat {q} saw your {CHARACTERS[c].name}, but it "
                                 "is not in your hand")
    if sit.set_aside is not None and not any(
            a.card == R2_D2 for a in _plays(sit.areas[me])):
        raise SituationError("you saw the set-aside card, but only R2-D2 shows it and you "
                             "have not played R2-D2")
    if sit.bottom and not any(a.card == LEIA for a in _plays(sit.areas[me])):
        raise SituationError("you put cards on the bottom, but only Leia Organa does that "
                             "and you have not played her")
    my_leia = sum(a.card == LEIA for a in _plays(sit.areas[me]))
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


# Building worlds from a summary --------------------------------------------------------

def _timeline(sit: Situation):
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


def summary_worlds(sit: Situation, game, count: int, rng: np.random.Generator
                   ) -> tuple[list[np.ndarray], Counter]:
    """`count` engine states for the summary, opponents' unknown cards dealt at random
    from the unseen cards (each world equally likely); and the unseen cards."""
    cfg = game.config
    deck_counts = tuple(int(c) for c in cfg.deck.counts)
    _mark_discards(sit)
    check(sit, deck_counts, cfg.face_up)
    n, me = sit.players, sit.seat
    turns = _timeline(sit)
    opp_leia = {p: sum(a.card == LEIA for a in _plays(sit.areas[p]))
                for p in range(n) if p != me}
    unseen = Counter({c: k for c, k in enumerate(deck_counts) if k})
    for c in sit.hand + sit.face_up + sit.bottom + tuple(sit.saw.values()):
        unseen[c] -= 1
    for area in sit.areas:
        for a in area:
            unseen[a.card] -= 1
    if sit.set_aside is not None:
        unseen[sit.set_aside] -= 1
    unseen_list = sorted(unseen.elements())
    hidden_hands = [p for p in range(n) if p != me and p not in sit.out and p not in sit.saw]
    hidden_bottom = 2 * sum(opp_leia.values())
    needed = len(hidden_hands) + hidden_bottom
    set_aside_unseen = 0 if sit.set_aside is not None else 1
    deck_left = len(unseen_list) - needed - set_aside_unseen + hidden_bottom + len(sit.bottom)
    if deck_left < 0:
        raise SituationError(
            f"the situation places too many cards: {len(unseen_list)} unseen card(s) cannot "
            f"fill {len(hidden_hands)} unknown hand(s), {hidden_bottom} opponents' Leia "
            f"return(s) and the set-aside card")
    if sit.deck is not None and sit.deck != deck_left:
        raise SituationError(
            f"deck={sit.deck} cannot be: the cards placed leave {deck_left} to draw "
            f"({cfg.deck.size} in the deck, minus face-up, set-aside, hands, play areas; "
            "Leia's returned cards count as deck)")
    worlds = []
    for _ in range(count):
        order = rng.permutation(len(unseen_list))
        drawn = [unseen_list[i] for i in order[:needed]]
        hands = {p: drawn[i] for i, p in enumerate(hidden_hands)}
        hands.update(sit.saw)
        returns = drawn[len(hidden_hands):]
        worlds.append(_write_world(sit, game, turns, hands, returns, deck_left))
    return worlds, +unseen


def _write_world(sit, game, turns, hands, opp_returns, deck_left) -> np.ndarray:
    """One engine state: the summary, the opponents' hands and Leia returns filled in."""
    n, me = sit.players, sit.seat
    s = game.initial_array.copy()
    s[L.S_EVENT_N] = 0
    s[L.S_LOGGING] = 1
    log = []

    def event(kind, actor=-1, other=-1, c=-1, extra=-1):
        log.append((kind, actor, other, c, extra))

    for c in sorted(sit.face_up):
        event(L.E_FACE_UP, c=c)
    steal_at = {}  # (thief, area index of their Boba Fett play) -> (victim, card)
    for p in range(n):
        for i, a in enumerate(sit.areas[p]):
            if a.how == "took":
                steal_at[(p, i - 1)] = (a.victim, a.card)
    # What each seat must hold next, in time order: the card of each play and each card
    # taken from them, then their hand now (or their discard). The made-up log deals the
    # first of these and draws the next one at each turn and after each theft.
    needs = {p: [] for p in range(n)}
    for p, i in turns:
        if i is None:
            continue
        needs[p].append(sit.areas[p][i].card)
        if (p, i) in steal_at:
            victim, c = steal_at[(p, i)]
            needs[victim].append(c)
    for p in range(n):
        if p == me:
            needs[p] += list(sit.hand)
        elif p in sit.out:
            needs[p].append(sit.areas[p][-1].card)
        else:
            needs[p].append(hands[p])
    pointer = {p: 0 for p in range(n)}

    def next_need(p):
        c = needs[p][pointer[p]]
        pointer[p] += 1
        return c

    for p in range(n):
        event(L.E_DRAW, p, -1, next_need(p), L.SRC_DEAL)
    returns_left = list(opp_returns)
    turn_count = 0
    gone = set()
    for p, i in turns:
        if i is None:  # p is out by now
            event(L.E_OUT, p, -1, sit.areas[p][-1].card, -1)
            gone.add(p)
            continue
        turn_count += 1
        played = sit.areas[p][i].card
        d = next_need(p)
        event(L.E_DRAW, p, -1, d, L.SRC_DECK)
        event(L.E_PLAY, p, -1, played, -1)
        if played == LEIA:
            if p == me:
                back = list(sit.bottom)
            else:
                back, returns_left = returns_left[:2], returns_left[2:]
            for c in sorted(back):
                event(L.E_DRAW, p, -1, c, L.SRC_DECK)
            event(L.E_KEEP, p, -1, d, -1)  # keeps the card they hold next
            if len(back) == 2:
                event(L.E_RETURN, p, 2, back[0], back[1])
            elif back:
                event(L.E_RETURN, p, 1, back[0], -1)
        if (p, i) in steal_at:
            victim, c = steal_at[(p, i)]
            event(L.E_TARGET, p, victim, -1, -1)
            event(L.E_STEAL, p, victim, c, -1)
            new = next_need(victim)
            event(L.E_DRAW, victim, -1, new, L.SRC_DECK)
        if played == R2_D2 and p == me and sit.set_aside is not None and \
                i == max(k for k, a in enumerate(sit.areas[me])
                         if a.card == R2_D2 and a.how == "played"):
            event(L.E_TARGET_SET_ASIDE, p)
            event(L.E_SEE_SET_ASIDE, p, -1, sit.set_aside, -1)
    for p in sorted(sit.out - gone):  # out since their last turn
        event(L.E_OUT, p, -1, sit.areas[p][-1].card, -1)
    for q, c in sit.saw.items():
        event(L.E_SEE, me, q, c, -1)
    for q, c in sit.seen_by.items():
        event(L.E_SEE, q, me, c, -1)
    # My turn now: I drew my second card.
    turn_count += 1
    event(L.E_DRAW, me, -1, sit.hand[1], L.SRC_DECK)
    if len(log) > L.MAX_EVENTS:
        raise SituationError("the situation is longer than any round can be")
    for k, e in enumerate(log):
        s[L.S_EVENTS + k * L.EVENT_SIZE:L.S_EVENTS + (k + 1) * L.EVENT_SIZE] = e
    s[L.S_EVENT_N] = len(log)
    # The table.
    s[L.S_FACE_UP_N] = len(sit.face_up)
    s[L.S_FACE_UP_LEFT] = 0
    for k, c in enumerate(sorted(sit.face_up)):
        s[L.S_FACE_UP + k] = c
    s[L.S_DEAL_NEXT] = n
    for p in range(n):
        s[L.S_IN_ROUND + p] = 0 if p in sit.out else 1
        s[L.S_PROTECTED + p] = 1 if p in sit.protected else 0
        held = list(sit.hand) if p == me else ([] if p in sit.out else [hands[p]])
        s[L.S_HAND_N + p] = len(held)
        for k in range(L.MAX_HAND):
            s[L.S_HAND + p * L.MAX_HAND + k] = held[k] if k < len(held) else 0
        area = [a.card for a in sit.areas[p]]
        s[L.S_AREA_N + p] = len(area)
        for k, c in enumerate(area):
            s[L.S_AREA + p * L.MAX_AREA + k] = c
    queue = list(sit.bottom) + [c for c in opp_returns]
    s[L.S_QUEUE_LEN] = len(queue)
    for k, c in enumerate(queue):
        s[L.S_QUEUE + k] = c
    # The pool: the unseen deck part plus the set-aside card while nobody saw it.
    pool = np.array(game.config.deck.counts, dtype=np.int64)
    for p in range(n):
        for k in range(int(s[L.S_HAND_N + p])):
            pool[s[L.S_HAND + p * L.MAX_HAND + k]] -= 1
        for k in range(int(s[L.S_AREA_N + p])):
            pool[s[L.S_AREA + p * L.MAX_AREA + k]] -= 1
    for c in list(sit.face_up) + queue:
        pool[c] -= 1
    if sit.set_aside is not None:
        pool[sit.set_aside] -= 1
        s[L.S_SET_ASIDE] = sit.set_aside
    else:
        s[L.S_SET_ASIDE] = -1
    assert (pool >= 0).all(), "card accounting"
    s[L.S_POOL:L.S_POOL + L.MAX_CHARS] = pool
    s[L.S_POOL_SIZE] = int(pool.sum())
    s[L.S_UNKNOWN_DECK] = deck_left - len(queue)
    assert s[L.S_UNKNOWN_DECK] == s[L.S_POOL_SIZE] - (sit.set_aside is None)
    s[L.S_TURNS] = turn_count
    s[L.S_TURN_PLAYER] = me
    s[L.S_PHASE] = L.PH_PLAY
    s[L.S_ACTOR] = me
    s[L.S_PENDING_CARD] = -1
    s[L.S_PENDING_TARGET] = -1
    return s



# Reading an event log ------------------------------------------------------------------

ANY = -9  # a field the log line does not state
TREMBLE = 1e-3  # least probability given to an opponent's logged decision
_CARD = r"(?P<{}>[\w\-' .?]+?)"
_LINE_PATTERNS = [
    (L.E_FACE_UP, r"face-?up " + _CARD.format("c")),
    (L.E_DRAW, r"p(?P<a>\d) (?:gets|draws) " + _CARD.format("c")
     + r"(?: \((?P<src>deal|deck|bottom|set-aside)\))?"),
    (L.E_PLAY, r"p(?P<a>\d) plays " + _CARD.format("c")),
    (L.E_TARGET_SET_ASIDE, r"p(?P<a>\d) chooses the set-aside card"),
    (L.E_TARGET, r"p(?P<a>\d) chooses p(?P<o>\d)"),
    (L.E_NAME, r"p(?P<a>\d) names (?P<x>\d)"),
    (L.E_MISS, r"p(?P<a>\d) stays in"),
    (L.E_OUT, r"p(?P<a>\d) is out(?: with " + _CARD.format("c") + ")?"),
    (L.E_SEE, r"p(?P<a>\d) sees p(?P<o>\d)'s (?:hand|" + _CARD.format("c") + ")"),
    (L.E_SEE_SET_ASIDE, r"p(?P<a>\d) sees (?:the )?set-aside " + _CARD.format("c")),
    (L.E_TIE, r"p(?P<a>\d) and p(?P<o>\d) tie"),
    (L.E_TRADE, r"p(?P<a>\d) trades hands with p(?P<o>\d)"),
    (L.E_TRADE, r"p(?P<a>\d) trades " + _CARD.format("c") + r" to p(?P<o>\d) for "
     + _CARD.format("x2")),
    (L.E_NO_TRADE, r"p(?P<a>\d) does not trade with p(?P<o>\d)"),
    (L.E_STEAL, r"p(?P<a>\d) takes p(?P<o>\d)'s " + _CARD.format("c")),
    (L.E_KEEP, r"p(?P<a>\d) keeps " + _CARD.format("c")),
    (L.E_RETURN, r"p(?P<a>\d) returns 2 cards(?: to the bottom)?"),
    (L.E_RETURN, r"p(?P<a>\d) returns " + _CARD.format("c") + " above "
     + _CARD.format("x2") + r"(?: to the bottom)?"),
    (L.E_RETURN, r"p(?P<a>\d) returns " + _CARD.format("c") + r"(?: to the bottom)?"),
    (L.E_NO_EFFECT, r"p(?P<a>\d)'s " + _CARD.format("c") + " has no effect"),
]
_SOURCES = {"deal": L.SRC_DEAL, "deck": L.SRC_DECK, "bottom": L.SRC_BOTTOM,
            "set-aside": L.SRC_SET_ASIDE}
_LOG_FORMS = ("face-up C", "pA gets C|? (deal|deck|bottom|set-aside)", "pA plays C",
              "pA chooses pB", "pA chooses the set-aside card", "pA names N", "pA stays in",
              "pA is out with C", "pA sees pB's C|hand", "pA sees set-aside C",
              "pA and pB tie", "pA trades C to pB for D", "pA trades hands with pB",
              "pA does not trade with pB", "pA takes pB's C", "pA keeps C|?",
              "pA returns C [above D] to the bottom", "pA returns 2 cards to the bottom",
              "pA's C has no effect")


def parse_log_line(line: str, players: int) -> Event:
    """One log line (the words of the information state, as `jabba play` prints them)
    as an Event pattern; fields the line leaves open are ANY, hidden cards HIDDEN."""
    text = re.sub(r"\s+", " ", line.strip().rstrip(".")).lower()
    for kind, pattern in _LINE_PATTERNS:
        m = re.fullmatch(pattern, text)
        if not m:
            continue
        g = m.groupdict()

        def seat(name):
            if g.get(name) is None:
                return ANY
            value = int(g[name])
            if value >= players:
                raise SituationError(f"log line {line!r}: seat p{value} does not exist with "
                                     f"{players} players")
            return value

        def one_card(name):
            value = g.get(name)
            if value is None:
                return ANY
            return HIDDEN if value.strip() == "?" else card(value)

        actor, other, c, extra = seat("a"), seat("o"), one_card("c"), ANY
        if kind == L.E_DRAW:
            extra = _SOURCES[g["src"]] if g.get("src") else ANY
        elif kind == L.E_NAME:
            extra = int(g["x"])
        elif kind in (L.E_TRADE, L.E_RETURN):
            extra = one_card("x2")
            if kind == L.E_RETURN:
                if "2 cards" in text:
                    other, c, extra = 2, HIDDEN, HIDDEN
                else:
                    other = 1 if extra == ANY else 2
        elif kind == L.E_FACE_UP:
            actor = ANY
        return Event(kind, actor, other, c, extra)
    raise SituationError(f"log line {line!r} is not an event; forms: "
                         + "; ".join(_LOG_FORMS))


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


def _matches(pattern: Event, event: Event) -> bool:
    return all(p == ANY or p == e for p, e in zip(pattern, event))


# Events a log may leave out: they follow from the lines around them.
def _omissible(event: Event, me: int) -> bool:
    return (event.kind in (L.E_MISS, L.E_ROUND_END, L.E_NO_EFFECT, L.E_TARGET)
            or event.kind == L.E_DRAW and event.actor != me)


class _LogReplay:
    """Every history the engine allows that shows `me` exactly this log (depth first)."""

    def __init__(self, sit: Situation, game, policy=None, max_nodes: int = 30_000,
                 seed: int = 0):
        self.sit, self.game, self.policy = sit, game, policy
        self.me = sit.seat
        lines = [parse_log_line(x, sit.players) for x in sit.log]
        self.lines, self.text = _sort_drawn_together(lines, list(sit.log))
        self.worlds: list[tuple[np.ndarray, float]] = []
        self.nodes = 0
        # Past max_nodes steps the search stops with the histories found so far; hidden
        # branches are tried in a random order weighted by their odds, so that what is
        # found then is a sample of the likely histories, not the first few in card order.
        self.max_nodes = max_nodes
        self.truncated = False
        self.rng = np.random.default_rng(seed)
        self.policy_misses = 0
        self.furthest = (-1, "")
        self.buf = np.empty(L.NUM_ACTIONS, dtype=np.int32)

    def fail(self, ptr: int, why: str) -> None:
        if ptr >= self.furthest[0]:
            self.furthest = (ptr, why)

    def run(self) -> list[tuple[np.ndarray, float]]:
        s = self.game.initial_array.copy()
        s[L.S_LOGGING] = 1
        self._expand(s, 0, 1.0, 0)
        if not self.worlds:
            ptr, why = self.furthest
            where = (f"after line {ptr} ({self.text[ptr - 1]!r})" if ptr > 0
                     else "at the start")
            raise SituationError(f"the log cannot happen under the rules: {where}, {why}")
        total = sum(w for _, w in self.worlds)
        return [(s, w / total) for s, w in self.worlds]

    def _expand(self, s, ptr, weight, face_up_used):
        self.nodes += 1
        if self.nodes > self.max_nodes:
            self.truncated = True
            return None
        me = self.me
        if engine.is_terminal(s):
            return self.fail(ptr, "the round would be over")
        if engine.is_chance(s):
            kind, receiver = int(s[L.S_CHANCE_KIND]), int(s[L.S_CHANCE_FOR])
            outcomes = np.empty(L.MAX_CHARS, dtype=np.int32)
            probs = np.empty(L.MAX_CHARS, dtype=np.float64)
            k = engine.chance_outcomes(s, outcomes, probs)
            odds = dict(zip(outcomes[:k].tolist(), probs[:k].tolist()))
            if kind == L.CH_FACE_UP and ptr < len(self.lines) and \
                    self.lines[ptr].kind == L.E_FACE_UP:
                wanted = [self.lines[ptr].card]
            elif kind == L.CH_FACE_UP:
                if face_up_used >= len(self.sit.face_up):
                    return self.fail(ptr, "the face-up cards are missing: list them as "
                                          "'face-up <card>' lines or in face_up")
                wanted = [sorted(self.sit.face_up)[face_up_used]]
            elif receiver == me:
                if ptr < len(self.lines):
                    line = self.lines[ptr]
                    look = kind == L.CH_SET_ASIDE_LOOK
                    if line.kind != (L.E_SEE_SET_ASIDE if look else L.E_DRAW) or \
                            line.actor not in (me, ANY) or line.card < 0:
                        said = (f"'p{me} sees set-aside <card>'" if look
                                else f"'p{me} gets <card>'")
                        return self.fail(ptr, f"p{me} (you) sees a card here: the next "
                                              f"line should be {said}")
                    wanted = [line.card]
                else:  # the log ends at my turn's draw: the hand says what I drew
                    held = Counter(int(x) for x in
                                   s[L.S_HAND + me * L.MAX_HAND:
                                     L.S_HAND + me * L.MAX_HAND + s[L.S_HAND_N + me]])
                    missing = list((Counter(self.sit.hand) - held).elements())
                    if len(missing) != 1:
                        return self.fail(ptr, "the log ends before your draw and your hand "
                                              "does not say what you drew")
                    wanted = missing
            else:
                wanted = self._shuffled(sorted(odds), [odds[c] for c in sorted(odds)])
            for c in wanted:
                if c not in odds:
                    self.fail(ptr, f"{CHARACTERS[c].name} cannot be drawn here: no unseen "
                                   "copy is left")
                    continue
                child = s.copy()
                engine.apply_action(child, c)
                after = self._match(s, child, ptr)
                if after is not None:
                    self._expand(child, after, weight * odds[c],
                                 face_up_used + (kind == L.CH_FACE_UP))
            return None
        actor = int(engine.current_actor(s))
        phase = int(s[L.S_PHASE])
        if ptr == len(self.lines):
            if actor == me and phase == L.PH_PLAY:
                self.worlds.append((s, weight))
                return None
            return self.fail(ptr, f"the log stops while p{actor} still has to act "
                                  f"({L.PHASE_NAMES[phase]}); the hint is for the start of "
                                  "your own turn")
        n = engine.legal_actions(s, self.buf)
        legal = self.buf[:n].tolist()
        candidates = self._actions(phase, actor, self.lines[ptr], legal)
        if not candidates:
            return self.fail(ptr, f"next p{actor} must {L.PHASE_NAMES[phase]}, which line "
                                  f"{ptr + 1} ({self.text[ptr]!r}) does not do legally")
        probs = None
        if actor != me and self.policy is not None:
            found = self.policy.lookup(s, actor, n)  # (probabilities, level) or None
            probs = found[0] if found is not None else None
            if probs is None:
                self.policy_misses += 1
        # Real players stray from any policy: a floor keeps a play the table never makes
        # possible (Bayes with a trembling hand) instead of ruling its worlds out.
        factors = [1.0 if probs is None else max(float(probs[legal.index(a)]), TREMBLE)
                   for a in candidates]
        for a, factor in zip(*self._ordered(candidates, factors)):
            if factor <= 0.0:
                continue
            child = s.copy()
            engine.apply_action(child, a)
            after = self._match(s, child, ptr)
            if after is not None:
                self._expand(child, after, weight * factor, face_up_used)
        return None

    def _ordered(self, items, weights):
        """Items in a random order, heavier first in expectation (Efraimidis-Spirakis)."""
        w = np.asarray(weights, dtype=np.float64)
        keys = np.where(w > 0, np.log(self.rng.random(len(w))) / np.maximum(w, 1e-300),
                        -np.inf)
        order = np.argsort(-keys)
        return [items[i] for i in order], [weights[i] for i in order]

    def _shuffled(self, items, weights):
        return self._ordered(items, weights)[0]

    def _actions(self, phase, actor, line, legal) -> list[int]:
        """The action(s) the next line says `actor` took; every legal one where hidden."""
        me = self.me
        if phase in (L.PH_KEEP, L.PH_ORDER) and actor != me:
            return legal  # an opponent's Leia choice: hidden from me
        wanted = []
        if line.actor not in (actor, ANY):
            return []
        if phase == L.PH_PLAY and line.kind == L.E_PLAY and line.card >= 0:
            wanted = [L.PLAY + line.card]
        elif phase == L.PH_TARGET and line.kind == L.E_TARGET and line.other >= 0:
            wanted = [L.TARGET + line.other]
        elif phase == L.PH_TARGET and line.kind == L.E_TARGET_SET_ASIDE:
            wanted = [L.TARGET_SET_ASIDE]
        elif phase in (L.PH_NAME, L.PH_COUNTER) and line.kind == L.E_NAME:
            wanted = [L.NAME + line.extra]
        elif phase == L.PH_KEEP and line.kind == L.E_KEEP and line.card >= 0:
            wanted = [L.KEEP + line.card]
        elif phase == L.PH_ORDER and line.kind == L.E_RETURN and line.card >= 0:
            wanted = [L.ORDER + line.card]
        elif phase == L.PH_TRADE and line.kind == L.E_TRADE:
            wanted = [L.TRADE]
        elif phase == L.PH_TRADE and line.kind == L.E_NO_TRADE:
            wanted = [L.NO_TRADE]
        return [a for a in wanted if a in legal]

    def _match(self, before, after, ptr) -> int | None:
        """Check the events one step made against the lines from ptr; the new ptr."""
        start = int(before[L.S_EVENT_N])
        log = redact(after[L.S_EVENTS:L.S_EVENTS + after[L.S_EVENT_N] * L.EVENT_SIZE]
                     .reshape(-1, L.EVENT_SIZE)[start:], self.me)
        for row in log.tolist():
            event = Event(*row)
            if ptr < len(self.lines) and _matches(self.lines[ptr], event):
                ptr += 1
            elif event.kind == L.E_FACE_UP or _omissible(event, self.me):
                continue
            else:
                expected = (f"line {ptr + 1} says {self.text[ptr]!r}" if ptr < len(self.lines)
                            else "the log ends")
                self.fail(ptr, f"the rules give '{describe(event)}' where {expected}")
                return None
        return ptr


def log_worlds(sit: Situation, game, policy=None, seed: int = 0
               ) -> tuple[list[tuple[np.ndarray, float]], dict]:
    """Worlds (engine state, posterior weight) that show `sit.seat` exactly its log; all
    of them unless the search passes its step budget ("complete": False)."""
    replay = _LogReplay(sit, game, policy, seed=seed)
    worlds = replay.run()
    _check_summary_against(sit, worlds[0][0])
    return worlds, {"histories": len(worlds), "replay_steps": replay.nodes,
                    "complete": not replay.truncated,
                    "opponent_decisions_without_policy": replay.policy_misses}


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
