"""A han_solo round as a player describes it: card names, the event log, the situation.

Cards: 'green +3' (also '+3', 'g3'), 'red -3' ('-3', 'r3'), 'blue 0' ('0', 'b0', 'blue').
A log is the round's events as one seat saw them, in the engine's words (what
`information_state_string` prints after '|', `game.describe`), separated by ';' or new
lines: 'pot green', 'p0 deal ?', 'flip red -2', 'p0 draw ?' (or just 'p0 draw'),
'p1 draw green +4' (a card of mine), 'p0 take', 'p0 discard green +7', 'p0 keep',
'p0 stand', 'dice differ', 'dice match', 'p0 reveal green +3', 'p0 redeal ?',
'reshuffle 12', and past the round's end 'p0 show green +3' (the hands shown, H6),
'p1 tie', 'p1 pick gold'. A pasted information state 'p1 hand:[...] | ...' gives its seat
and hand. Lines a player need not write are filled in (docs/han-solo.md "Hints"): the
pot's tokens (the `pot` field, or unknown), the others' deals, the reveals after a match,
a reshuffle, the hands shown; my own deal is worked back from my hand when the log has no
deal of mine and no match.

Anything impossible raises `solver.hint.parse.SituationError` (docs/bad-input.md).
"""

from __future__ import annotations

import dataclasses
import re

from spiel_game.cards import RULESETS
from spiel_game.han_solo import layout as L
from spiel_game.han_solo.game import DEFAULTS, UTILITIES

from solver.hint.parse import SituationError, read_log

GAME = "han_solo"
KEYS = {"game", "players", "seat", "hand", "log", "pot", "turn", "params", "utility"}
_CARD_TEXT = ("cards are green +1..+10, red -1..-10 and blue 0 ('green +3', '+3', "
              "'red -3', '-3', 'blue 0', '0')")
_EVENT_KINDS = {name: k for k, name in enumerate(L.EVENT_NAMES)}
_PUBLIC_CARD_EVENTS = (L.E_FLIP, L.E_TAKE, L.E_DISCARD, L.E_REVEAL)


def card(text) -> int:
    """A card kind from a name in any usual form; SituationError saying what cards are
    (and the game a card of another game is from)."""
    raw = str(text).strip()
    t = raw.lower().replace(" ", "")
    m = re.fullmatch(r"(green|g|red|r|blue|b)?([+-]?)(\d+)?", t)
    if m and (m[1] or m[3]):
        colour, sign, number = m[1] or "", m[2], m[3]
        if colour in ("blue", "b") or (not colour and number == "0"):
            if (number or "0") == "0" and not sign:
                return L.BLUE_ZERO
        elif number is not None and 1 <= int(number) <= 10:
            red = colour in ("red", "r") or (not colour and sign == "-")
            if colour and sign and (sign == "-") != red:
                raise SituationError(f"card {raw!r}: greens are positive, reds negative; "
                                     f"{_CARD_TEXT}")
            if colour or sign:
                return (L.RED if red else L.GREEN) - 1 + int(number)
    other = [r.title for r in RULESETS if _known_to(r, raw)]
    where = f" {raw!r} is a card of {other[0]}, not of the Han Solo card game;" if other \
        else ""
    raise SituationError(f"unknown card {raw!r}:{where} {_CARD_TEXT}")


def _known_to(rules, name: str) -> bool:
    try:
        rules.character_id(name)
        return True
    except ValueError:
        return False


def cards(value, what: str) -> tuple[int, ...]:
    """A list of cards (or a text of them, separated by ',')."""
    if value is None:
        return ()
    if isinstance(value, str):
        value = [v for v in value.split(",") if v.strip()]
    if not isinstance(value, (list, tuple)):
        raise SituationError(f"{what}: expected a list of cards, got {value!r}")
    return tuple(card(v) for v in value)


def parse_event(line: str, players: int) -> tuple[int, int, int]:
    """One log line as an engine event (kind, player, value); value L.HIDDEN for '?' or
    a card left out of a private event."""
    words = line.strip().split(None, 1)
    if not words:
        raise SituationError("empty log line")
    player = -1
    if re.fullmatch(r"p\d+", words[0].lower()):
        player = int(words[0][1:])
        if player >= players:
            raise SituationError(f"log line {line!r}: seat p{player} is not a seat; seats "
                                 f"are p0 to p{players - 1} in turn order")
        words = words[1].split(None, 1) if len(words) > 1 else []
        if not words:
            raise SituationError(f"log line {line!r}: what did p{player} do?")
    name, rest = words[0].lower(), (words[1].strip() if len(words) > 1 else "")
    kind = _EVENT_KINDS.get(name)
    allowed = ("pot TOKEN, pN deal CARD|?, flip CARD, pN draw CARD|?, pN take [CARD], "
               "pN discard CARD, pN keep, pN stand, dice differ|match, pN reveal CARD, "
               "pN redeal CARD|?, reshuffle N, pN show CARD, pN tie, pN pick TOKEN")
    if kind is None:
        raise SituationError(f"log line {line!r}: unknown event {name!r}; a hint's log "
                             f"has {allowed}")
    needs_player = kind not in (L.E_POT, L.E_FLIP, L.E_DICE, L.E_RESHUFFLE)
    if needs_player != (player >= 0):
        raise SituationError(f"log line {line!r}: " + (
            f"say whose it is, e.g. 'p0 {name}'" if needs_player else
            f"'{name}' is nobody's; write it without a seat"))
    if kind in (L.E_POT, L.E_PICK):
        if rest not in L.TOKEN_NAMES:
            raise SituationError(f"log line {line!r}: tokens are {', '.join(L.TOKEN_NAMES)}")
        return kind, player, L.TOKEN_NAMES.index(rest)
    if kind == L.E_DICE:
        if rest not in ("differ", "match"):
            raise SituationError(f"log line {line!r}: dice 'differ' or 'match'")
        return kind, player, int(rest == "match")
    if kind == L.E_RESHUFFLE:
        if not rest.isdigit():
            raise SituationError(f"log line {line!r}: reshuffle N (the cards shuffled)")
        return kind, player, int(rest)
    if kind in (L.E_KEEP, L.E_STAND, L.E_TIE):
        if rest:
            raise SituationError(f"log line {line!r}: '{name}' takes nothing after it")
        return kind, player, -1
    if not rest or rest == "?":
        if kind in L.PRIVATE_EVENTS or kind == L.E_TAKE:
            return kind, player, L.HIDDEN  # a take's card is the discard top: filled in
        raise SituationError(f"log line {line!r}: which card? ({_CARD_TEXT})")
    return kind, player, card(rest)


@dataclasses.dataclass(frozen=True)
class HanSoloSituation:
    """What one seat knows at its decision: the log (engine events, private cards of the
    others hidden), the hand it claims (checked by the replay), the pot if the log
    does not say, the turn it claims (1-based, checked), and the game's parameters."""

    players: int
    seat: int
    events: tuple[tuple[int, int, int], ...]
    hand: tuple[int, ...] | None = None
    pot: tuple[int, ...] | None = None  # token kinds
    turn: int | None = None
    params: tuple = ()  # extra han_solo parameters, (name, value) pairs
    utility: str = "margin"
    log_text: tuple[str, ...] = ()
    game: str = GAME
    agenda = None  # the situation fields every game's answer shares

    def game_params(self) -> dict:
        return {**dict(self.params), "players": self.players, "utility": self.utility}


def from_mapping(data: dict) -> HanSoloSituation:
    """A han_solo situation from a parsed TOML/JSON mapping (docs/han-solo.md "Hints")."""
    unknown = set(data) - KEYS
    if unknown:
        other = sorted(unknown & {"agenda", "face_up", "areas", "out", "protected", "saw",
                                  "seen_by", "set_aside", "bottom", "deck"})
        why = (f" ({', '.join(other)}: Love Letter fields; han_solo has none)"
               if other else "")
        raise SituationError(f"unknown field(s) {sorted(unknown)}{why}; allowed for "
                             f"han_solo: {sorted(KEYS)}")
    if data.get("log") is None:
        raise SituationError("missing field 'log': a han_solo hint replays the round's "
                             "events as your seat saw them (docs/han-solo.md \"Hints\")")
    text = read_log(data["log"])
    players = data.get("players", 2)
    if isinstance(players, bool) or not isinstance(players, int) or \
            not 2 <= players <= L.MAX_PLAYERS:
        raise SituationError(f"players={players!r}: must be a whole number from 2 to "
                             f"{L.MAX_PLAYERS}")
    seat = data.get("seat", text.seat if text.seat is not None else 0)
    if isinstance(seat, str) and seat.lower().lstrip("p").isdigit():
        seat = int(seat.lower().lstrip("p"))
    if isinstance(seat, bool) or not isinstance(seat, int) or not 0 <= seat < players:
        raise SituationError(f"seat {seat!r} is not a seat; seats are 0 to {players - 1} "
                             "in turn order from the round's first player")
    if text.seat is not None and text.seat != seat:
        raise SituationError(f"seat is {seat}, but the pasted information state is "
                             f"p{text.seat}'s: give seat {text.seat} or leave it out")
    hand = data.get("hand", list(text.hand) if text.hand is not None else None)
    hand = None if hand is None else cards(hand, "hand")
    if hand is not None:
        _check_copies(hand, "hand")
        if not 1 <= len(hand) <= L.MAX_HAND:
            raise SituationError(f"hand: {len(hand)} cards; a hand holds 1 to {L.MAX_HAND} "
                                 "at a decision (H2)")
    pot = data.get("pot")
    if pot is not None:
        items = pot.split(",") if isinstance(pot, str) else pot
        if not isinstance(items, (list, tuple)) or not all(
                isinstance(x, str) and x.strip() in L.TOKEN_NAMES for x in items):
            raise SituationError(f"pot={pot!r}: a list of tokens, one per player, of "
                                 f"{', '.join(L.TOKEN_NAMES)}")
        pot = tuple(L.TOKEN_NAMES.index(x.strip()) for x in items)
        if len(pot) != players:
            raise SituationError(f"pot={data['pot']!r}: {len(pot)} tokens; the pot holds "
                                 f"one per player ({players}, H1)")
    turn = data.get("turn")
    if turn is not None and (isinstance(turn, bool) or not isinstance(turn, int) or turn < 1):
        raise SituationError(f"turn={turn!r}: a turn is a whole number from 1 (each "
                             "player has 3 turns a round, H2)")
    params = data.get("params") or {}
    if not isinstance(params, dict):
        raise SituationError(f"params={params!r}: a table of han_solo parameters "
                             "(docs/han-solo.md \"Parameters\")")
    if {"players", "utility"} & set(params):
        raise SituationError("params: give players and utility as fields of their own")
    for name, value in params.items():
        if name not in DEFAULTS:
            raise SituationError(f"params: unknown parameter {name!r}; allowed: "
                                 f"{', '.join(sorted(set(DEFAULTS) - {'players', 'utility'}))}")
        kind = type(DEFAULTS[name])
        if isinstance(value, bool) or not isinstance(value, kind) or (
                kind is int and not -1000 <= value <= 1000):
            raise SituationError(f"params: {name}={value!r}: "
                                 + ("a whole number" if kind is int else "a text")
                                 + " (docs/han-solo.md \"Parameters\")")
    utility = data.get("utility", "margin")
    if utility not in UTILITIES:
        raise SituationError(f"utility={utility!r}: allowed are {', '.join(UTILITIES)}")
    events = tuple(parse_event(line, players) for line in text.lines)
    return HanSoloSituation(players, seat, events, hand, pot, turn,
                            tuple(sorted(params.items())), utility, text.lines)


def _check_copies(hand, what: str, copies: int = 3, blues: int = 2) -> None:
    """More copies of a card than the deck has (H9: three of each green and red, two
    blue 0s) cannot be."""
    for c in set(hand):
        limit = blues if c == L.BLUE_ZERO else copies
        if hand.count(c) > limit:
            raise SituationError(f"{what}: {hand.count(c)} x {L.card_name(c)}, but the "
                                 f"deck has {limit} (H9)")
