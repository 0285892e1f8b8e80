"""The rules document docs/RULES.md: complete, agreeing with the engine's card data, cited
correctly, and what `jabba rules` prints."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from typer.testing import CliRunner

from cli.main import app
from spiel_game import rulebook
from spiel_game.cards import AGENDA_NAMES, CHARACTERS

ROOT = Path(__file__).resolve().parents[1]
# An R-number as code and tests cite it ("R5", "R8-R10"), not the card R2-D2.
CITATION = re.compile(r"\bR(\d+)\b(?!-?D2)")
runner = CliRunner()


def flat(text: str) -> str:
    """Text with its line breaks (the document is hard-wrapped) as single spaces."""
    return " ".join(text.split())


@pytest.fixture(scope="module")
def book() -> rulebook.Rulebook:
    return rulebook.load()


def test_the_document_is_the_source_checkout_copy():
    assert rulebook.locate() == ROOT / "docs" / "RULES.md"


def test_every_card_has_a_row_agreeing_with_the_card_data(book):
    assert sorted(book.cards) == [c.id for c in CHARACTERS]
    for c in CHARACTERS:
        row = book.cards[c.id]
        assert (row.name, row.number, row.side, row.copies) == (
            c.name, c.number, c.side.name.title(), c.copies), row
    assert sum(row.copies for row in book.cards.values()) == 19


def test_every_card_and_agenda_is_named_by_a_ruling(book):
    for c in CHARACTERS:
        assert any(c.id in r.cards for r in book.rulings), c.name
    assert sorted(book.agendas) == sorted(AGENDA_NAMES)
    for key in AGENDA_NAMES:
        assert any(key in r.agendas for r in book.rulings), key


def test_rulings_are_r1_to_r14_in_order_each_with_a_rulebook_quote(book):
    assert [r.number for r in book.rulings] == [f"R{n}" for n in range(1, 15)]
    for r in book.rulings:
        assert r.body.startswith('> "'), r.number  # the rulebook passage comes first
        assert r.body.split("\n\n", 1)[1].strip(), r.number  # then the ruling


def _cited_numbers(path: Path) -> set[int]:
    text = path.read_text(encoding="utf-8", errors="replace")
    return {int(n) for n in CITATION.findall(text)}


def test_every_cited_ruling_exists(book):
    files = [p for folder in ("spiel_game", "solver", "cli", "tests", "benchmarks")
             for p in (ROOT / folder).rglob("*.py")]
    files += [ROOT / "README.md", *(ROOT / "docs").glob("*.md")]
    files = [p for p in files if p.is_file()]
    assert len(files) > 20
    existing = {int(r.number[1:]) for r in book.rulings}
    cited = {}
    for path in files:
        for n in _cited_numbers(path) - existing:
            cited.setdefault(f"R{n}", []).append(str(path.relative_to(ROOT)))
    assert not cited, f"rulings cited but missing from docs/RULES.md: {cited}"


def test_the_citation_pattern_reads_ranges_and_skips_the_card(tmp_path):
    sample = tmp_path / "sample.py"
    missing = 14 + 1  # written so that this file does not cite it
    sample.write_text(f'"""R2-D2 looks (R8-R10); R2D2; R{missing} and R5."""\n')
    assert _cited_numbers(sample) == {8, 10, missing, 5}


def test_a_ruling_for_a_card_is_its_line_then_the_rulings_naming_it():
    text = rulebook.ruling_for(2)  # C-3PO
    first, rest = text.split("\n\n", 1)
    assert first.startswith("C-3PO (1, Rebel, 1 copy): ")
    headings = re.findall(r"^(R\d+)\. ", rest, flags=re.M)
    assert headings == ["R4", "R5", "R6", "R10"]
    assert "the chosen player, not the C-3PO player, names a number from 0 to 8" in flat(text)


def test_a_card_id_out_of_range_is_refused():
    with pytest.raises(ValueError, match="ids are 0 to 13"):
        rulebook.ruling_for(14)


def test_jabba_rules_guard_prints_choosing_and_naming():
    result = runner.invoke(app, ["rules", "guard"])
    assert result.exit_code == 0, result.output
    assert result.output.startswith("Guard (1, Palace, 2 copies): ")
    assert "R4. Choosing another player" in result.output
    assert "R5. Naming a number" in result.output
    assert "naming 1 is allowed" in flat(result.output)
    assert "R6." not in result.output  # only C-3PO's miss makes the target name back


def test_jabba_rules_for_rancor_and_an_agenda():
    rancor = runner.invoke(app, ["rules", "Rancor"])
    assert rancor.exit_code == 0 and "R7. Rancor" in rancor.output
    assert "A Han Solo (0) holder is never the lowest" in flat(rancor.output)
    court = runner.invoke(app, ["rules", "jabbas_court"])
    assert court.exit_code == 0, court.output
    assert court.output.startswith("Jabba's Court (jabbas_court): ")
    assert "R12. Agendas" in court.output and "R7." not in court.output


def test_a_missing_document_is_a_clear_error(monkeypatch, tmp_path):
    monkeypatch.setattr(rulebook, "SOURCE_DOCUMENT", tmp_path / "docs" / "RULES.md")
    monkeypatch.setattr(rulebook, "INSTALLED_DOCUMENT", "no_such_RULES.md")
    rulebook.load.cache_clear()
    try:
        with pytest.raises(FileNotFoundError, match="rules document is missing"):
            rulebook.locate()
        result = runner.invoke(app, ["rules", "guard"])
        assert result.exit_code == 1
        assert "rules document is missing" in result.output
    finally:
        rulebook.load.cache_clear()


@pytest.mark.parametrize("edit, message", [
    (("Cards: Bib Fortuna\n", "Cards: Bib Fortunato\n"), "R13 'Cards:' line: unknown card"),
    (("Cards: Leia Organa\n", ""), "R9: no 'Cards:' line"),
    (("| 13 | Jabba the Hutt |", "| 12 | Jabba the Hutt |"), "id 12 appears twice"),
    (("| Rescue Mission | `rescue_mission` |", "| Rescue Mission | `rescue` |"),
     "unknown parameter 'rescue'"),
    (("## Agendas", "## Agenda"), "no section '## Agendas'"),
])
def test_a_malformed_document_names_its_flaw(edit, message):
    text = (ROOT / "docs" / "RULES.md").read_text(encoding="utf-8")
    old, new = edit
    assert old in text
    with pytest.raises(ValueError, match=re.escape(message)):
        rulebook.parse(text.replace(old, new, 1))
