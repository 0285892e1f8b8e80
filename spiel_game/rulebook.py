"""The rules document (docs/RULES.md) read as data: the card tables, agendas and rulings.

`ruling_for(card_id)` is what `jabba rules CARD` prints: the card's row of the table in
"The deck" and every ruling whose `Cards:` line names the card. `agenda_ruling(key)` does
the same for an agenda through the `Agendas:` lines. Classic Love Letter's cards and
rulings C1-C13 are the section "Classic Love Letter" (`ruling_for(card_id, CLASSIC)`,
`jabba rules --game love_letter CARD`). The document is found by `locate`: the source
checkout's docs/RULES.md, else the copy installed inside this package.
"""

from __future__ import annotations

import dataclasses
import functools
import importlib.resources
import re
from pathlib import Path

from .cards import AGENDA_NAMES, CLASSIC, JABBAS_PALACE, RuleSet

SOURCE_DOCUMENT = Path(__file__).resolve().parents[1] / "docs" / "RULES.md"
INSTALLED_DOCUMENT = "RULES.md"  # inside the spiel_game package of an installed wheel

_RULING_HEADING = re.compile(r"^### (R\d+)\. (.+)$")
_CLASSIC_HEADING = re.compile(r"^### (C\d+)\. (.+)$")
CLASSIC_SECTION = "Classic Love Letter"
_CARD_COLUMNS = ["id", "character", "number", "side", "copies", "effect"]
_CLASSIC_CARD_COLUMNS = ["id", "card", "number", "copies", "effect"]
_AGENDA_COLUMNS = ["agenda", "parameter", "who wins at the deck end"]


@dataclasses.dataclass(frozen=True)
class CardEntry:
    id: int
    name: str
    number: int
    side: str
    copies: int
    effect: str

    def reference_line(self) -> str:
        copies = f"{self.copies} cop{'y' if self.copies == 1 else 'ies'}"
        side = f"{self.side}, " if self.side else ""
        return f"{self.name} ({self.number}, {side}{copies}): {self.effect}"


@dataclasses.dataclass(frozen=True)
class AgendaEntry:
    key: str
    name: str
    text: str

    def reference_line(self) -> str:
        return f"{self.name} ({self.key}): {self.text}"


@dataclasses.dataclass(frozen=True)
class Ruling:
    number: str  # "R5"
    title: str
    cards: tuple[int, ...]
    agendas: tuple[str, ...]
    body: str  # the rulebook quote and the ruling, without the Cards/Agendas lines

    def text(self) -> str:
        return f"{self.number}. {self.title}\n\n{self.body}"


@dataclasses.dataclass(frozen=True)
class Rulebook:
    cards: dict[int, CardEntry]
    agendas: dict[str, AgendaEntry]
    rulings: tuple[Ruling, ...]
    classic_cards: dict[int, CardEntry] = dataclasses.field(default_factory=dict)
    classic_rulings: tuple[Ruling, ...] = ()

    def ruling(self, number: str) -> Ruling:
        for r in self.rulings:
            if r.number == number:
                return r
        raise KeyError(f"no ruling {number} in the rules document; it has "
                       + ", ".join(r.number for r in self.rulings))


def locate():
    """The rules document: the source checkout's, else the installed copy.

    Raises FileNotFoundError naming both places when neither exists.
    """
    if SOURCE_DOCUMENT.is_file():
        return SOURCE_DOCUMENT
    installed = importlib.resources.files("spiel_game") / INSTALLED_DOCUMENT
    if installed.is_file():
        return installed
    raise FileNotFoundError(
        f"the rules document is missing: looked for {SOURCE_DOCUMENT} (source checkout) "
        f"and {installed} (installed package); reinstall the project or restore "
        "docs/RULES.md")


def _sections(text: str) -> dict[str, list[str]]:
    """Lines under each '## ' heading, keyed by its title."""
    sections: dict[str, list[str]] = {}
    current = None
    for line in text.splitlines():
        if line.startswith("## "):
            current = line[3:].strip()
            sections[current] = []
        elif current is not None:
            sections[current].append(line)
    return sections


def _table(lines: list[str], columns: list[str], section: str) -> list[list[str]]:
    """The rows of the first Markdown table in `lines`, checked against `columns`."""
    rows = [line for line in lines if line.startswith("|")]
    if len(rows) < 2:
        raise ValueError(f"rules document, section {section!r}: no table found")
    split = [[cell.strip().strip("`") for cell in row.strip().strip("|").split("|")]
             for row in rows]
    if split[0] != columns:
        raise ValueError(f"rules document, section {section!r}: table columns {split[0]}, "
                         f"expected {columns}")
    body = split[2:]  # after the header and its |---| line
    for row in body:
        if len(row) != len(columns):
            raise ValueError(f"rules document, section {section!r}: row {row} has "
                             f"{len(row)} cells, expected {len(columns)}")
    return body


def _cards(lines: list[str], rules: RuleSet = JABBAS_PALACE) -> dict[int, CardEntry]:
    section = "The deck" if rules is JABBAS_PALACE else CLASSIC_SECTION
    cards = {}
    if rules is JABBAS_PALACE:
        rows = [(cid, name, number, side, copies, effect) for cid, name, number, side, copies,
                effect in _table(lines, _CARD_COLUMNS, section)]
    else:  # classic cards have no side
        rows = [(cid, name, number, "", copies, effect) for cid, name, number, copies,
                effect in _table(lines, _CLASSIC_CARD_COLUMNS, section)]
    for cid, name, number, side, copies, effect in rows:
        entry = CardEntry(int(cid), name, int(number), side, int(copies), effect)
        if entry.id in cards:
            raise ValueError(f"rules document, {section!r}: id {entry.id} appears twice")
        cards[entry.id] = entry
    missing = sorted(set(range(len(rules.characters))) - set(cards))
    if missing:
        raise ValueError(f"rules document, {section!r}: no row for card id(s) {missing}")
    return cards


def _agendas(lines: list[str]) -> dict[str, AgendaEntry]:
    agendas = {}
    for name, key, text in _table(lines, _AGENDA_COLUMNS, "Agendas"):
        if key not in AGENDA_NAMES:
            raise ValueError(f"rules document, 'Agendas': unknown parameter {key!r}; "
                             f"allowed: {', '.join(AGENDA_NAMES)}")
        agendas[key] = AgendaEntry(key, name, text)
    return agendas


def _names(value: str) -> list[str]:
    value = value.strip()
    return [] if value.lower() == "none" else [n.strip() for n in value.split(",")]


def _agenda_key(name: str) -> str:
    key = re.sub(r"[^a-z]+", "_", name.lower().replace("'", "")).strip("_")
    if key not in AGENDA_NAMES:
        raise ValueError(f"unknown agenda {name!r}; allowed: {', '.join(AGENDA_NAMES)}")
    return key


def _rulings(lines: list[str], rules: RuleSet = JABBAS_PALACE) -> tuple[Ruling, ...]:
    """Each '### Rn. Title' section (classic: 'Cn'): its Cards (required) and Agendas
    lines, and body."""
    found: list[tuple[str, str, list[str]]] = []
    pattern = _RULING_HEADING if rules is JABBAS_PALACE else _CLASSIC_HEADING
    for line in lines:
        heading = pattern.match(line)
        if heading:
            found.append((heading.group(1), heading.group(2).strip(), []))
        elif found:
            found[-1][2].append(line)
    rulings = []
    for number, title, body in found:
        cards: list[int] | None = None
        agendas: list[str] = []
        kept = []
        for line in body:
            if line.startswith("Cards:"):
                try:
                    cards = [rules.character_id(n) for n in _names(line[len("Cards:"):])]
                except ValueError as err:
                    raise ValueError(f"rules document, {number} 'Cards:' line: {err}") from None
            elif line.startswith("Agendas:"):
                try:
                    agendas = [_agenda_key(n) for n in _names(line[len("Agendas:"):])]
                except ValueError as err:
                    raise ValueError(f"rules document, {number} 'Agendas:' line: {err}") from None
            else:
                kept.append(line)
        if cards is None:
            raise ValueError(f"rules document, {number}: no 'Cards:' line (write 'Cards: none' "
                             "if the ruling concerns no card)")
        rulings.append(Ruling(number, title, tuple(cards), tuple(agendas),
                              "\n".join(kept).strip()))
    return tuple(rulings)


def parse(text: str) -> Rulebook:
    """The rules document's card table, agendas and rulings; ValueError names a flaw."""
    sections = _sections(text)
    for title in ("The deck", "Agendas", "Rulings", CLASSIC_SECTION):
        if title not in sections:
            raise ValueError(f"rules document: no section '## {title}'")
    classic = sections[CLASSIC_SECTION]
    return Rulebook(_cards(sections["The deck"]), _agendas(sections["Agendas"]),
                    _rulings(sections["Rulings"]), _cards(classic, CLASSIC),
                    _rulings(classic, CLASSIC))


@functools.lru_cache(maxsize=1)
def load() -> Rulebook:
    """The parsed rules document (read once)."""
    return parse(locate().read_text(encoding="utf-8"))


def ruling_for(card_id: int, rules: RuleSet = JABBAS_PALACE) -> str:
    """A card's reference line and every ruling that names it, as plain text (a card of
    the rule set `rules`)."""
    count = len(rules.characters)
    if not 0 <= card_id < count:
        raise ValueError(f"card id {card_id} out of range: ids are 0 to {count - 1}")
    book = load()
    cards, rulings = ((book.cards, book.rulings) if rules is JABBAS_PALACE
                      else (book.classic_cards, book.classic_rulings))
    parts = [cards[card_id].reference_line()]
    parts += [r.text() for r in rulings if card_id in r.cards]
    return "\n\n".join(parts)


def agenda_ruling(key: str) -> str:
    """An agenda's reference line and every ruling that names it, as plain text."""
    book = load()
    if key not in book.agendas:
        raise ValueError(f"unknown agenda {key!r}; allowed: {', '.join(book.agendas)}")
    parts = [book.agendas[key].reference_line()]
    parts += [r.text() for r in book.rulings if key in r.agendas]
    return "\n\n".join(parts)
