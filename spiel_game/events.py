"""Who sees what of each logged event (docs/RULES.md R2, R10), and how it reads.

The engine logs every event with full detail. `redact` hides what one viewer does not
see; information-state strings, tensors and solver keys are all built from it, so they
agree by construction.
"""

from __future__ import annotations

import functools
import re
from typing import NamedTuple

import numpy as np

from . import layout as L
from .cards import CHARACTERS

JABBA_NAMES = tuple(c.name for c in CHARACTERS)  # card names by id, Jabba's Palace's

HIDDEN = -2  # a field that exists but the viewer does not see

# Per event kind: are its card fields seen only by the ACTOR (the OTHER too for a trade),
# and does EXTRA hold a card too. Lookup tables indexed by kind, for speed.
_PRIVATE_TO_ACTOR = np.zeros(L.NUM_EVENT_KINDS, dtype=bool)
_PRIVATE_TO_ACTOR[[L.E_DRAW, L.E_SEE, L.E_SEE_SET_ASIDE, L.E_KEEP, L.E_RETURN]] = True
# (Everything else is public: E_DISCARD, a Prince's victim's card, is face up, C5.)
_PRIVATE_TO_BOTH = np.zeros(L.NUM_EVENT_KINDS, dtype=bool)
_PRIVATE_TO_BOTH[L.E_TRADE] = True
_TWO_CARD_KINDS = np.zeros(L.NUM_EVENT_KINDS, dtype=bool)
_TWO_CARD_KINDS[[L.E_RETURN, L.E_TRADE]] = True


class Event(NamedTuple):
    kind: int
    actor: int
    other: int
    card: int
    extra: int


def log_array(state_array: np.ndarray) -> np.ndarray:
    """The raw event log, shape (events, 5): KIND, ACTOR, OTHER, CARD, EXTRA."""
    n = int(state_array[L.S_EVENT_N])
    return state_array[L.S_EVENTS:L.S_EVENTS + n * L.EVENT_SIZE].reshape(n, L.EVENT_SIZE)


def redact(log: np.ndarray, viewer: int) -> np.ndarray:
    """A copy of the log as `viewer` sees it: unseen card fields become HIDDEN.

    The one place visibility is decided; strings, tensors and solver keys use it.
    viewer -1 sees no private field.
    """
    out = log.copy()
    kind, actor, other = log[:, L.EV_KIND], log[:, L.EV_ACTOR], log[:, L.EV_OTHER]
    unseen = (_PRIVATE_TO_ACTOR[kind] & (actor != viewer)) | (
        _PRIVATE_TO_BOTH[kind] & (actor != viewer) & (other != viewer))
    card = out[:, L.EV_CARD]
    card[unseen & (card >= 0)] = HIDDEN
    extra = out[:, L.EV_EXTRA]
    extra[unseen & _TWO_CARD_KINDS[kind] & (extra >= 0)] = HIDDEN
    return out


def events(state_array: np.ndarray, viewer: int | None = None) -> list[Event]:
    """The log as Event tuples, redacted for `viewer` (full detail when None)."""
    log = log_array(state_array)
    if viewer is not None:
        log = redact(log, viewer)
    return [Event(*row) for row in log.tolist()]


def card_name(c: int, names: tuple[str, ...] = JABBA_NAMES) -> str:
    return "?" if c == HIDDEN else names[c]


# The log-line grammar -----------------------------------------------------------------
# One table says how each event kind reads: `describe` writes lines with it and
# `parse_line` (the hint's log reader) reads them with it. Per entry: the kind, the fields
# the form fixes (it is the form written for an event with those values), and the form:
# {a} ACTOR and {o} OTHER as seats (p0...), {c} CARD and {x} EXTRA as card names ("?"
# when hidden), {n} EXTRA as a number, {src} EXTRA as a source, {end} EXTRA as an end
# kind; <u|v> alternatives (written: the first), [...] a part the reader may miss.
# Entries are read in order, so a form that fixes more comes before the one it refines.

UNSTATED = -9  # parse_line: a field the line does not state
END_NAMES = ("", "last player", "deck empty", "nobody left")
_F_ACTOR, _F_OTHER, _F_CARD, _F_EXTRA = range(1, 5)
LINE_FORMS = (
    (L.E_FACE_UP, {}, "<face-up|faceup> {c}"),
    (L.E_DRAW, {}, "p{a} <gets|draws> {c}[ ({src})]"),
    (L.E_PLAY, {}, "p{a} plays {c}"),
    (L.E_TARGET, {}, "p{a} chooses p{o}"),
    (L.E_TARGET_SET_ASIDE, {}, "p{a} chooses the set-aside card"),
    (L.E_NAME, {}, "p{a} names {n}"),
    (L.E_MISS, {}, "p{a} stays in"),
    (L.E_OUT, {}, "p{a} is out[ with {c}]"),
    (L.E_SEE, {_F_CARD: HIDDEN}, "p{a} sees p{o}'s hand"),
    (L.E_SEE, {}, "p{a} sees p{o}'s {c}"),
    (L.E_SEE_SET_ASIDE, {}, "p{a} sees <set-aside|the set-aside> {c}"),
    (L.E_TIE, {}, "p{a} and p{o} tie"),
    (L.E_TRADE, {_F_CARD: HIDDEN, _F_EXTRA: HIDDEN}, "p{a} trades hands with p{o}"),
    (L.E_TRADE, {}, "p{a} trades {c} to p{o} for {x}"),
    (L.E_NO_TRADE, {}, "p{a} does not trade with p{o}"),
    (L.E_STEAL, {}, "p{a} takes p{o}'s {c}"),
    (L.E_DISCARD, {}, "p{a} discards {c}"),
    (L.E_KEEP, {}, "p{a} keeps {c}"),
    (L.E_RETURN, {_F_OTHER: 2, _F_CARD: HIDDEN, _F_EXTRA: HIDDEN},
     "p{a} returns 2 cards[ to the bottom]"),
    (L.E_RETURN, {_F_OTHER: 2}, "p{a} returns {c} above {x}[ to the bottom]"),
    (L.E_RETURN, {_F_OTHER: 1}, "p{a} returns {c}[ to the bottom]"),
    (L.E_NO_EFFECT, {}, "p{a}'s {c} has no effect"),
    (L.E_ROUND_END, {}, "round ends: {end}"),
)
_PLACEHOLDERS = {"a": "A", "o": "B", "c": "C", "x": "D", "n": "N",
                 "src": "|".join(L.SOURCE_NAMES), "end": "|".join(END_NAMES[1:])}
_FIELD_OF = {"a": _F_ACTOR, "o": _F_OTHER, "c": _F_CARD, "x": _F_EXTRA, "n": _F_EXTRA,
             "src": _F_EXTRA, "end": _F_EXTRA}


@functools.cache
def _form_parts(form: str) -> tuple:
    """The form as ("text", s), ("field", name), ("alt", (options)), ("opt", parts);
    cached: information-state strings describe every event of a log."""
    parts, i = [], 0
    while i < len(form):
        ch = form[i]
        if ch == "{":
            j = form.index("}", i)
            parts.append(("field", form[i + 1:j]))
        elif ch == "<":
            j = form.index(">", i)
            parts.append(("alt", tuple(form[i + 1:j].split("|"))))
        elif ch == "[":
            j = form.index("]", i)
            parts.append(("opt", _form_parts(form[i + 1:j])))
        else:
            j = i
            while j + 1 < len(form) and form[j + 1] not in "{<[":
                j += 1
            parts.append(("text", form[i:j + 1]))
        i = j + 1
    return tuple(parts)


def _write(parts, values: dict) -> str:
    out = []
    for what, arg in parts:
        if what == "text":
            out.append(arg)
        elif what == "field":
            out.append(values[arg])
        elif what == "alt":
            out.append(arg[0])
        else:
            out.append(_write(arg, values))
    return "".join(out)


def doc_form(form: str) -> str:
    """A form as docs/hint.md lists it: pA, pB, C, D, N and the source or end names."""
    return _write(_form_parts(form), _PLACEHOLDERS)


_FIELD_TEXT = {  # a field's words, from the event (kind, actor, other, card, extra), names
    "a": lambda e, _: str(e[1]), "o": lambda e, _: str(e[2]),
    "c": lambda e, names: card_name(e[3], names),
    "x": lambda e, names: card_name(e[4], names) if e[4] != -1 else "",
    "n": lambda e, _: str(e[4]),
    "src": lambda e, _: L.SOURCE_NAMES[e[4]] if 0 <= e[4] < len(L.SOURCE_NAMES) else "",
    "end": lambda e, _: END_NAMES[e[4]] if 0 <= e[4] < len(END_NAMES) else ""}


def _fields(parts) -> list[str]:
    out = []
    for what, arg in parts:
        if what == "field":
            out.append(arg)
        elif what == "opt":
            out += _fields(arg)
    return out


# Per event kind, its forms as (fixed fields, str.format template, fields it uses): the
# template is what `_write` writes, built once (information-state strings describe every
# event of a log, and OpenSpiel's tools ask for them at every node).
_WRITERS: dict[int, list] = {}
for _kind, _fixed, _form in LINE_FORMS:
    _parts = _form_parts(_form)
    _template = _write(_parts, {f: "{" + f + "}" for f in _FIELD_TEXT})
    _WRITERS.setdefault(_kind, []).append(
        (tuple(_fixed.items()), _template, tuple(dict.fromkeys(_fields(_parts)))))


@functools.lru_cache(maxsize=1 << 16)  # a round's events recur across its states' strings
def describe(event: Event, names: tuple[str, ...] = JABBA_NAMES) -> str:
    """One event, already redacted, in words (the first LINE_FORMS entry that fits), with
    the card names of its rule set (by id)."""
    for fixed, template, fields in _WRITERS.get(event[0], ()):
        if all(event[f] == v for f, v in fixed):
            return template.format_map({f: _FIELD_TEXT[f](event, names) for f in fields})
    raise ValueError(f"unknown event kind {event[0]}")


_CARD_TEXT = r"[\w\-' .?]+?"
_FIELD_PATTERNS = {"a": r"\d", "o": r"\d", "c": _CARD_TEXT, "x": _CARD_TEXT, "n": r"\d",
                   "src": "|".join(map(re.escape, L.SOURCE_NAMES)),
                   "end": "|".join(map(re.escape, END_NAMES[1:]))}


def _regex(parts) -> str:
    out = []
    for what, arg in parts:
        if what == "text":
            out.append(re.escape(arg))
        elif what == "field":
            out.append(f"(?P<{arg}>{_FIELD_PATTERNS[arg]})")
        elif what == "alt":
            out.append("(?:" + "|".join(map(re.escape, arg)) + ")")
        else:
            out.append("(?:" + _regex(arg) + ")?")
    return "".join(out)


_READERS = [(kind, fixed, re.compile(_regex(_form_parts(form.lower()))))
            for kind, fixed, form in LINE_FORMS]


def parse_line(line: str, rules=None) -> Event:
    """One log line as an Event pattern: fields the line leaves open are UNSTATED,
    cards written "?" HIDDEN (card names of the rule set `rules`, default Jabba's
    Palace). ValueError names the forms (doc_form) for other text, and an unknown card
    name with suggestions."""
    from .cards import JABBAS_PALACE

    character_id = (rules or JABBAS_PALACE).character_id

    text = re.sub(r"\s+", " ", line.strip().rstrip(".")).lower()
    for kind, fixed, reader in _READERS:
        m = reader.fullmatch(text)
        if not m:
            continue
        fields = [kind, UNSTATED, UNSTATED, UNSTATED, UNSTATED]
        for f, v in fixed.items():
            fields[f] = v
        for name, value in m.groupdict().items():
            if value is None:
                continue
            if name in ("a", "o", "n"):
                number = int(value)
            elif name == "src":
                number = L.SOURCE_NAMES.index(value)
            elif name == "end":
                number = END_NAMES.index(value)
            else:
                number = HIDDEN if value.strip() == "?" else character_id(value.strip())
            fields[_FIELD_OF[name]] = number
        return Event(*fields)
    raise ValueError(f"log line {line!r} is not an event; forms: "
                     + "; ".join(doc_form(form) for _, _, form in LINE_FORMS))
