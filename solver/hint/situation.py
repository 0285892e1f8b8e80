"""A round as a player describes it: the `Situation` and how it is read.

A `Situation` is what one player (`seat`) knows at the start of their play decision:
the summary (hand, face-up cards, play areas, who is out or protected, private
knowledge) and optionally the round's event log as that player saw it. `from_mapping`
reads one from parsed TOML/JSON, card names in any usual form, of the situation's game
(`game`: jabbas_palace, or love_letter with classic cards and no agenda). The rest of the hint's
situation code, by job: validate.py (the summary against the rules), turns.py (the
summary's turns: knock-outs, who can know whose card), worlds.py (engine states from a
summary), log.py (the posterior from a log, by solver/belief).

Anything impossible raises `SituationError` naming the problem.
"""

from __future__ import annotations

import dataclasses
import re

from spiel_game import layout as L
from spiel_game.cards import AGENDA_GAMES, GAMES, JABBAS_PALACE, RULESET_OF_GAME, Effect, RuleSet

from solver.hint.parse import SituationError, card, read_log  # noqa: F401  (re-exported)

SET_ASIDE = -1  # AreaCard.target: R2-D2 looked at the face-down set-aside card


def card_with(effect: Effect, rules: RuleSet = JABBAS_PALACE) -> int | None:
    """The id of the rule set's card with this effect (each has at most one), or None:
    Leia Organa and the classic Chancellor both draw, keep and return."""
    return next((c.id for c in rules.characters if c.effect == effect), None)


BIB_FORTUNA = card_with(Effect.PROTECT)
BOBA_FETT = card_with(Effect.STEAL_HAND)
LEIA = card_with(Effect.DRAW_KEEP_RETURN)
R2_D2 = card_with(Effect.PEEK_OR_SET_ASIDE)


@dataclasses.dataclass(frozen=True)
class AreaCard:
    """One card in a play area: played by its owner, taken with Boba Fett, or discarded
    when the owner went out."""

    card: int
    how: str = "played"  # "played", "took" or "discarded"
    victim: int | None = None  # for "took": whose hand it was
    # What the table saw of a play (docs/hint.md "What the table saw"); None: not said.
    target: int | None = None  # the seat chosen, or SET_ASIDE (R2-D2)
    named: tuple[int, ...] = ()  # Guard/C-3PO: the number named, C-3PO: then the one named back
    hit: bool = False  # the target went out (a Mercenary: somebody did; C-3PO: see named)
    traded: bool = False  # Lando traded hands
    # A look, compare or trade between the player and the chosen seat, one of them me:
    seen: int | None = None  # the chosen seat's card as the player saw it (and got it)
    shown: int | None = None  # the player's card as the chosen seat saw it (and got it)


@dataclasses.dataclass
class Situation:
    players: int
    agenda: str | None  # None for love_letter: classic Love Letter has none (C8)
    seat: int
    hand: tuple[int, ...]
    face_up: tuple[int, ...] = ()
    areas: tuple[tuple[AreaCard, ...], ...] = ()
    out: frozenset[int] = frozenset()
    protected: frozenset[int] = frozenset()
    saw: dict[int, int] = dataclasses.field(default_factory=dict)  # seat -> their card
    seen_by: dict[int, int] = dataclasses.field(default_factory=dict)  # seat -> my card
    set_aside: int | None = None  # the face-down card, if I saw it (R2-D2)
    bottom: tuple[int, ...] = ()  # every card I returned with Leia, in draw order
    deck: int | None = None  # cards left to draw, if the player counted them
    log: tuple[str, ...] | None = None
    utility: str = "margin"
    game: str = GAMES[0]  # the OpenSpiel game: jabbas_palace or love_letter

    @property
    def rules(self) -> RuleSet:
        return RULESET_OF_GAME[self.game]

    def names(self, cards) -> str:
        """Card ids as the rule set names them, comma-separated ('nothing' if none)."""
        return ", ".join(self.rules.characters[c].name for c in cards) or "nothing"

    def game_params(self) -> dict:
        params = {"players": self.players, "utility": self.utility}
        return params if self.agenda is None else {**params, "agenda": self.agenda}


# Reading ---------------------------------------------------------------------------------

_KEYS = {"game", "players", "agenda", "seat", "hand", "face_up", "areas", "out", "protected", "saw",
         "seen_by", "set_aside", "bottom", "deck", "log", "utility"}


def _cards(value, what: str, rules: RuleSet) -> tuple[int, ...]:
    if value is None:
        return ()
    if isinstance(value, str):
        # Commas separate names when there are any, so full names keep their spaces
        # ("Salacious Crumb,Lando Calrissian"); else white space does ("jabba guard").
        value = [v.strip() for v in re.split("," if "," in value else r"\s+", value.strip())
                 if v.strip()]
    if not isinstance(value, (list, tuple)):
        raise SituationError(f"{what}: expected a list of card names, got {value!r}")
    return tuple(card(v, rules) for v in value)


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


def _play(text: str, players: int, owner: int, rules: RuleSet) -> AreaCard:
    """A played card with what the table saw of it: 'CARD[@SEAT|@set-aside][:DETAIL]...',
    DETAIL a number named (Guard, C-3PO; a second one: named back after a C-3PO miss),
    'hit', 'traded', or, where the look is mine or at me, a card: first the chosen
    seat's card the player saw, then the player's card the chosen seat saw (a compare)
    or got (a trade)."""
    what = f"areas[{owner}] {text!r}"
    head, *details = text.split(":")
    name, at, target_text = head.partition("@")
    c = card(name, rules)
    target = None
    if at:
        if target_text.lower().replace("-", "").replace("_", "") in ("setaside", "sa"):
            target = SET_ASIDE
        else:
            target = _seat(target_text, what, players)
    named, hit, traded, seen, shown = [], False, False, None, None
    for d in details:
        word = d.strip().lower()
        if word.isdigit():
            named.append(int(word))
        elif word == "hit":
            hit = True
        elif word in ("traded", "trade"):
            traded = True
        elif word and seen is None:
            seen = card(word, rules)
        elif word and shown is None:
            shown = card(word, rules)
        elif word:
            raise SituationError(f"{what}: more than two cards after ':' (the card the "
                                 "player saw, then the card the chosen seat saw)")
        else:
            raise SituationError(f"{what}: empty detail after ':'")
    return AreaCard(c, "played", None, target, tuple(named), hit, traded, seen, shown)


def _area(items, players: int, owner: int, rules: RuleSet) -> tuple[AreaCard, ...]:
    """Cards in play order; 'took:luke' or 'took:luke@2' marks a card taken with Boba
    Fett (from seat 2; with 2 players the other seat); a played card may say what the
    table saw of it (`_play`)."""
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
            out.append(AreaCard(card(name, rules), "took", v))
        else:
            out.append(_play(text, players, owner, rules))
    return tuple(out)


def from_mapping(data: dict) -> Situation:
    """A Situation from a parsed TOML/JSON mapping (fields: docs/hint.md "The situation")."""
    unknown = set(data) - _KEYS
    if unknown:
        raise SituationError(f"unknown field(s) {sorted(unknown)}; allowed: {sorted(_KEYS)}")
    pasted = None
    if data.get("log") is not None:  # lines; a pasted information state's seat and hand
        pasted = read_log(data["log"])
        data = pasted.fill(data)
    for required in ("players", "seat", "hand"):
        if required not in data and not (required == "hand" and data.get("log")):
            raise SituationError(f"missing field {required!r}")
    players = data["players"]
    if not isinstance(players, int) or not 2 <= players <= L.MAX_PLAYERS:
        raise SituationError(f"players={players!r}: must be a whole number from 2 to "
                             f"{L.MAX_PLAYERS}")
    game = data.get("game", GAMES[0])
    rules = RULESET_OF_GAME.get(game) if isinstance(game, str) else None
    if rules is None:  # the engine's rule sets read this situation
        raise SituationError(f"game={game!r}: allowed are {', '.join(GAMES)}")
    if rules.has_agendas:
        agenda = data.get("agenda", rules.default_agenda)
        if agenda not in rules.agendas:
            raise SituationError(f"agenda={agenda!r}: allowed agendas are "
                                 f"{', '.join(rules.agendas)}")
    elif data.get("agenda") is not None:
        raise SituationError(f"agenda={data['agenda']!r}: {rules.no_agendas}; agendas are "
                             f"{' and '.join(AGENDA_GAMES)}'s")
    else:
        agenda = None
    seat = _seat(data["seat"], "seat", players)
    areas_in = data.get("areas") or {}
    if isinstance(areas_in, (list, tuple)):
        areas_in = dict(enumerate(areas_in))
    areas = [()] * players
    if not isinstance(areas_in, dict):
        raise SituationError(f"areas: expected a table seat = cards, got {areas_in!r}")
    for key, items in areas_in.items():
        p = _seat(key, "areas", players)
        areas[p] = _area(items, players, p, rules)

    def per_seat(field: str) -> dict[int, int]:
        value = data.get(field) or {}
        if not isinstance(value, dict):
            raise SituationError(f"{field}: expected a table seat = card, got {value!r}")
        return {_seat(k, field, players): card(v, rules) for k, v in value.items()}

    set_aside = data.get("set_aside")
    deck = data.get("deck")
    if deck is not None and (not isinstance(deck, int) or deck < 0):
        raise SituationError(f"deck={deck!r}: must be a whole number of cards, 0 or more")
    log = data.get("log")
    sit = Situation(
        players=players, agenda=agenda, seat=seat,
        hand=_cards(data.get("hand"), "hand", rules),
        face_up=_cards(data.get("face_up"), "face_up", rules), areas=tuple(areas),
        out=_seats(data.get("out"), "out", players),
        protected=_seats(data.get("protected"), "protected", players),
        saw=per_seat("saw"), seen_by=per_seat("seen_by"),
        set_aside=None if set_aside is None else card(set_aside, rules),
        bottom=_cards(data.get("bottom"), "bottom", rules), deck=deck, log=log,
        utility=data.get("utility", "margin"), game=game)
    if pasted is not None:
        pasted.check(sit)
    return sit



def plays(area: tuple[AreaCard, ...]) -> list[AreaCard]:
    """The cards of a play area that its owner played (not taken, not discarded)."""
    return [a for a in area if a.how == "played"]


def player_summary(state, me: int) -> dict:
    """The summary a player would give of `state` (a pyspiel state of a round): only
    what they know, plays without what the table saw of them, as a mapping for
    `from_mapping` (the studies' and tests' plain summaries)."""
    from solver.policies.knowledge import knowledge

    chars = state.get_game().characters
    k = knowledge(state, me)
    n = k.num_players

    def name(c):
        return chars[c].aliases[0]

    areas = [[] for _ in range(n)]
    bottom = []  # every card I returned with Leia, in draw order, drawn since or not
    for e in state.events(me):
        if e.kind in (L.E_PLAY, L.E_OUT):
            areas[e.actor].append(name(e.card))
        elif e.kind == L.E_STEAL:
            areas[e.actor].append(f"took:{name(e.card)}@{e.other}")
        elif e.kind == L.E_RETURN and e.actor == me:
            bottom += [name(c) for c in (e.card, e.extra)[:e.other]]
    data = {"game": state.get_game().get_type().short_name, "players": n, "seat": me,
            "hand": [name(c) for c in k.hand],
            "face_up": [name(c) for c in k.face_up], "areas": dict(enumerate(areas)),
            "out": [p for p in range(n) if not k.in_round[p]],
            "protected": [p for p in range(n) if k.protected[p]],
            "saw": {q: name(c) for q, c in k.known_hands.items()}, "deck": k.deck_size}
    if k.set_aside is not None:
        data["set_aside"] = name(k.set_aside)
    if bottom:
        data["bottom"] = bottom
    return data
