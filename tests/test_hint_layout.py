"""`jabba hint`'s text answer reads well at 80 columns and in a wide terminal: no line
wider than the terminal, no figure broken across lines, the others' hands cut with '...'
rather than wrapped (issue 36)."""

from __future__ import annotations

import re

import pytest
from rich.cells import cell_len
from typer.testing import CliRunner

from cli.main import app

runner = CliRunner()
FAST = ["--seconds", "0.05", "--search-iterations", "8", "--seed", "3"]
JABBA = ["hint", "--hand", "jabba,guard", "--face-up", "crumb,bib,merc", "--area", "0=han",
         "--seat", "1"]
ANSWERS = {
    # the widest plays table: search, match and table columns side by side
    "jabbas_palace match": [*JABBA, *FAST, "--score", "3,5"],
    # the table's answer: the follow-up decision's options with their intervals
    "jabbas_palace table": [*JABBA, "--seconds", "0.05", "--seed", "3", "--no-search"],
    "love_letter": ["hint", "--game", "love_letter", "--seat", "1", "--hand", "guard,baron",
                    "--face-up", "guard,guard,handmaid", "--area", "0=spy,guard@1:5,priest@1",
                    "--area", "1=guard@0:7,guard@0:3", "--seen-by", "0=baron", *FAST],
    "han_solo": ["hint", "--game", "han_solo", "--seat", "1", "--hand", "green +4,red -2",
                 "--pot", "green,gold", "--log", "flip green +9; p0 draw; p0 discard red -2",
                 "--rollouts", "200", "--seed", "3"],
}
FIGURE = re.compile(r"[+-]?\d+\.\d+ ± \d+\.\d+")  # a value and its 95% interval


def shown(args: list[str], width: int) -> list[str]:
    result = runner.invoke(app, args, env={"COLUMNS": str(width)}, terminal_width=width)
    assert result.exit_code == 0, result.output
    return result.stdout.splitlines()


def table_rows(lines: list[str], header: str) -> list[str]:
    """The body lines of the table whose header line contains `header`."""
    start = next(i for i, line in enumerate(lines) if header in line) + 2
    end = next(i for i in range(start, len(lines)) if lines[i].startswith("└"))
    return lines[start:end]


@pytest.mark.parametrize("name", ANSWERS)
def test_at_80_columns_no_line_overflows_and_no_figure_breaks(name):
    lines = shown(ANSWERS[name], 80)
    assert any(line.startswith("Recommended:") for line in lines)
    assert max(cell_len(line) for line in lines) <= 80
    figures = [f for line in lines for f in FIGURE.findall(line)]
    assert figures, "the answer shows values with intervals"
    for line in lines:
        assert line.count("±") == len(FIGURE.findall(line)), line
    header = "cards" if name == "han_solo" else "hand (probability)"
    for row in table_rows(lines, header):  # one line a seat: cut, not wrapped
        assert re.match(r"│ p\d", row), row


def test_a_wide_terminal_keeps_every_column_and_a_narrow_one_says_what_it_left_out():
    wide = shown(ANSWERS["jabbas_palace match"], 200)
    header = next(line for line in wide if "┃ play" in line)
    for column in ("search value", "table", "match win", "EV (token margin)", "vs best"):
        assert column in header
    plays = table_rows(wide, "┃ play")
    assert len(plays) == 2 and all(len(FIGURE.findall(row)) == 2 for row in plays)
    assert not any("left out" in line for line in wide)
    narrow = shown(ANSWERS["jabbas_palace match"], 80)
    assert any("left out at this width; --json has all" in line for line in narrow)
